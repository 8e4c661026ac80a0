//===- InputFiles.cpp - Limits on the files Tessel reads ------------------===//

#include "tessel/Runtime/InputFiles.h"

#include "llvm/ADT/StringExtras.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"

#include <cstring>

using namespace llvm;

static Error fail(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message);
}

Error tessel::checkInputFile(StringRef path) {
  sys::fs::file_status status;
  if (std::error_code ec = sys::fs::status(path, status))
    return fail(path + ": cannot read: " + ec.message());
  if (status.type() != sys::fs::file_type::regular_file) {
    StringRef what = status.type() == sys::fs::file_type::directory_file
                         ? "a directory"
                         : "a device, FIFO or socket";
    return fail(path + ": not a regular file (" + what + ")");
  }
  if (status.getSize() > kMaxInputFileBytes)
    return fail(formatv("{0}: {1} bytes, more than the {2} bytes Tessel "
                        "reads from one file",
                        path, status.getSize(), kMaxInputFileBytes));
  return Error::success();
}

Expected<std::unique_ptr<MemoryBuffer>> tessel::readInputFile(StringRef path) {
  if (Error e = checkInputFile(path))
    return std::move(e);
  ErrorOr<std::unique_ptr<MemoryBuffer>> file =
      MemoryBuffer::getFile(path, /*IsText=*/false,
                            /*RequiresNullTerminator=*/false);
  if (!file)
    return fail(path + ": cannot read: " + file.getError().message());
  return std::move(*file);
}

Expected<json::Value> tessel::parseJson(StringRef text) {
  unsigned depth = 0;
  bool inString = false, escaped = false;
  for (char c : text) {
    if (inString) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth)
        return fail(formatv("arrays and objects nested more "
                            "than {0} levels deep",
                            kMaxJsonDepth));
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return json::parse(text);
}

/// Whether `c` may continue an MLIR bare identifier.
static bool isIdentifierChar(char c) {
  return llvm::isAlnum(c) || c == '_' || c == '.' || c == '$' || c == '-';
}

std::optional<tessel::TextIssue> tessel::findParserCrash(llvm::StringRef text) {
  size_t i = 0, n = text.size();
  // Past a string literal starting at `at` (escapes skipped).
  auto skipString = [&](size_t at) {
    for (size_t j = at + 1; j < n; ++j) {
      if (text[j] == '\\')
        ++j;
      else if (text[j] == '"')
        return j + 1;
    }
    return n;
  };
  // Past spaces and // comments from `at`. MLIR's lexer skips a NUL byte
  // inside the text as it skips a space.
  auto skipSpace = [&](size_t at) {
    while (at < n) {
      if (llvm::isSpace(text[at]) || text[at] == '\0')
        ++at;
      else if (text.substr(at).starts_with("//"))
        at = std::min(text.find('\n', at), n);
      else
        break;
    }
    return at;
  };
  auto issue = [&](size_t at, llvm::StringRef message) {
    llvm::StringRef before = text.take_front(at);
    size_t lineStart = before.rfind('\n');
    lineStart = lineStart == llvm::StringRef::npos ? 0 : lineStart + 1;
    return tessel::TextIssue{unsigned(before.count('\n') + 1),
                             unsigned(at - lineStart + 1), message.str()};
  };
  constexpr llvm::StringLiteral op = "linalg.generic";
  while (i < n) {
    if (text[i] == '"') {
      i = skipString(i); // The generic form names ops in strings.
      continue;
    }
    if (text.substr(i).starts_with("//")) {
      i = skipSpace(i);
      continue;
    }
    bool atOp = text.substr(i).starts_with(op) &&
                (i == 0 || !isIdentifierChar(text[i - 1])) &&
                (i + op.size() == n || !isIdentifierChar(text[i + op.size()]));
    if (!atOp) {
      ++i;
      continue;
    }
    i += op.size();
    // The custom form's attribute dictionary, and its iterator_types.
    size_t j = skipSpace(i);
    if (j >= n || text[j] != '{')
      continue;
    int depth = 0;
    for (; j < n; ++j) {
      char c = text[j];
      if (c == '"') {
        j = skipString(j) - 1;
      } else if (text.substr(j).starts_with("//")) {
        j = skipSpace(j) - 1;
      } else if (c == '-' && j + 1 < n && text[j + 1] == '>') {
        ++j; // An arrow (affine maps, types), not a closing bracket.
      } else if (c == '{' || c == '[' || c == '(' || c == '<') {
        ++depth;
      } else if (c == '}' || c == ']' || c == ')' || c == '>') {
        if (--depth == 0)
          break;
      } else if (depth == 1 && text.substr(j).starts_with("iterator_types") &&
                 !isIdentifierChar(text[j - 1])) {
        size_t k = skipSpace(j + strlen("iterator_types"));
        if (k >= n || text[k] != '=')
          continue;
        k = skipSpace(k + 1);
        if (k >= n || text[k] != '[')
          break; // Not an array: the parser says so itself.
        for (k = skipSpace(k + 1); k < n && text[k] != ']';) {
          if (text[k] != '"')
            return issue(k, "the iterator_types of linalg.generic must be "
                            "strings (\"parallel\", \"reduction\"); MLIR "
                            "22's parser reads any other element as a string "
                            "and crashes");
          k = skipSpace(skipString(k));
          if (k < n && text[k] == ',')
            k = skipSpace(k + 1);
        }
        break;
      }
    }
    i = j;
  }
  return std::nullopt;
}
