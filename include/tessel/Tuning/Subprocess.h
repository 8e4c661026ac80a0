//===- Subprocess.h - A child process spoken to through pipes ---*- C++ -*-===//
//
// The tuner's measurement workers: a child process whose stdin and stdout
// are pipes (requests and answers, one line each) and whose stderr goes to a
// file, read with a timeout, killed when it hangs. POSIX only, as Tessel's
// GPU runtime is.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_TUNING_SUBPROCESS_H
#define TESSEL_TUNING_SUBPROCESS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <sys/types.h>

namespace tessel {

class Subprocess {
public:
  /// Starts `program args...` with its stderr appended to `stderrPath`.
  static llvm::Expected<Subprocess> start(llvm::StringRef program,
                                          llvm::ArrayRef<std::string> args,
                                          llvm::StringRef stderrPath);
  Subprocess(Subprocess &&other);
  Subprocess &operator=(Subprocess &&other);
  Subprocess(const Subprocess &) = delete;
  /// Kills the child if it is still running.
  ~Subprocess();

  /// Writes `line` and a newline to the child's stdin; false when the
  /// child no longer reads (it exited).
  bool writeLine(llvm::StringRef line);

  enum class Read { Line, EndOfFile, Timeout };
  /// Reads one line (without its newline) from the child's stdout, waiting
  /// at most `timeoutS` seconds.
  Read readLine(std::string &line, double timeoutS);

  /// Kills the child (SIGKILL) and reaps it.
  void kill();
  /// Waits for the child to exit (after EOF on its stdout, it has or soon
  /// will; after 5 s it is killed) and says how: "exited with status 1",
  /// "killed by signal 11 (Segmentation fault)".
  std::string wait();
  bool running() const { return pid > 0; }

private:
  Subprocess() = default;
  void closePipes();

  pid_t pid = -1;
  int in = -1, out = -1; // Our ends of the child's stdin and stdout.
  std::string pending;   // Read past the last line returned.
};

/// The first line of a process's message (trimmed), for records and logs.
std::string firstLine(llvm::StringRef text);

/// Runs `program args...` to completion with a timeout; returns its exit
/// code (-1: it could not be started, -2: it crashed or timed out, with
/// `message` saying which), its stdout and its stderr, which pass through
/// files in `dir`.
int runProcess(llvm::StringRef program, llvm::ArrayRef<std::string> args,
               unsigned timeoutS, llvm::StringRef dir, std::string &out,
               std::string &err, std::string &message);

} // namespace tessel

#endif // TESSEL_TUNING_SUBPROCESS_H
