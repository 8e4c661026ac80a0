//===- WorkDirectory.h - A tuning run's temporary directory -----*- C++ -*-===//
//
// The tuner compiles every candidate into a directory of its own under one
// temporary work directory. It goes with the run however the run ends: when
// the run returns (an error included) and when the process is interrupted
// (SIGINT, SIGTERM, SIGHUP), which left /tmp/tessel-tune-* behind.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_TUNING_WORKDIRECTORY_H
#define TESSEL_TUNING_WORKDIRECTORY_H

#include "llvm/Support/Error.h"

#include <string>

namespace tessel {

/// A unique temporary directory named after `prefix`, removed with its
/// contents on destruction and on an interrupt. One may exist at a time per
/// process (a tuning run is one pass): the interrupt handler is global.
class WorkDirectory {
public:
  static llvm::Expected<WorkDirectory> create(llvm::StringRef prefix);
  WorkDirectory(WorkDirectory &&other) : path(std::move(other.path)) {
    other.path.clear();
  }
  WorkDirectory(const WorkDirectory &) = delete;
  WorkDirectory &operator=(const WorkDirectory &) = delete;
  WorkDirectory &operator=(WorkDirectory &&) = delete;
  ~WorkDirectory();

  const std::string &str() const { return path; }

private:
  explicit WorkDirectory(std::string path) : path(std::move(path)) {}
  std::string path;
};

} // namespace tessel

#endif // TESSEL_TUNING_WORKDIRECTORY_H
