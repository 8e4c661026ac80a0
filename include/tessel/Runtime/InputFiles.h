//===- InputFiles.h - Limits on the files Tessel reads ----------*- C++ -*-===//
//
// Every file a user names (launch specs, kernel images, tuning databases,
// schedule libraries) enters through these checks: a regular file of
// bounded size, and JSON of bounded nesting. A character device or a FIFO
// (`db=/dev/zero`) would otherwise be read forever, and llvm::json::parse
// recurses once per nesting level, so 60,000 levels overflow the stack.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_INPUTFILES_H
#define TESSEL_RUNTIME_INPUTFILES_H

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace tessel {

/// The largest file Tessel reads: 1 GiB.
constexpr uint64_t kMaxInputFileBytes = uint64_t(1) << 30;
/// The deepest nesting of arrays and objects Tessel parses as JSON. Tessel's
/// own files nest 6 levels at most.
constexpr unsigned kMaxJsonDepth = 256;

/// Succeeds when `path` is a regular file of at most kMaxInputFileBytes;
/// the error says what it is instead ("<path>: not a regular file ...").
llvm::Error checkInputFile(llvm::StringRef path);

/// Reads `path` after checkInputFile.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readInputFile(llvm::StringRef path);

/// A place in a text and what is wrong there.
struct TextIssue {
  unsigned line, column; // 1-based.
  std::string message;
};

/// MLIR text that Debian's MLIR 22 parser would crash on rather than
/// refuse: a `linalg.generic` in custom form whose `iterator_types` array
/// holds anything but strings (GenericOp::parse reads every element as a
/// string). Checked before parsing, by tessel-opt and for schedule
/// libraries; none when the text has no such op.
std::optional<TextIssue> findParserCrash(llvm::StringRef text);

/// Parses `text` as JSON when its arrays and objects nest at most
/// kMaxJsonDepth levels (strings are skipped in the count).
llvm::Expected<llvm::json::Value> parseJson(llvm::StringRef text);

} // namespace tessel

#endif // TESSEL_RUNTIME_INPUTFILES_H
