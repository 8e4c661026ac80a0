//===- InputFiles.cpp - Limits on the files Tessel reads ------------------===//

#include "tessel/Runtime/InputFiles.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"

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
