//===- WorkDirectory.cpp - A tuning run's temporary directory -------------===//

#include "tessel/Tuning/WorkDirectory.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Signals.h"

#include <csignal>
#include <cstring>

#ifdef __linux__
#include <dirent.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

using namespace tessel;

/// The directory an interrupt removes; empty when none.
static char interruptPath[4096];

#ifdef __linux__
/// Removes the tree at `path` (a buffer of sizeof(interruptPath) bytes
/// holding `length` characters) with async-signal-safe calls only: the
/// interrupted thread may hold the allocator's lock, so no opendir, no
/// malloc. The tuner's trees are two levels deep; deeper ones are left.
static void removeTreeOnSignal(char *path, size_t length, int depth) {
  // Entries are removed while the directory is read: read it again until
  // a pass removes nothing (a few passes at most).
  for (int pass = 0; pass < 4; ++pass) {
    int fd = ::open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
      break;
    bool removed = false;
    alignas(8) char buffer[4096];
    long bytes;
    while ((bytes = ::syscall(SYS_getdents64, fd, buffer, sizeof buffer)) > 0) {
      for (long offset = 0; offset < bytes;) {
        auto *entry = reinterpret_cast<struct dirent64 *>(buffer + offset);
        offset += entry->d_reclen;
        const char *name = entry->d_name;
        if (!std::strcmp(name, ".") || !std::strcmp(name, ".."))
          continue;
        size_t nameLength = std::strlen(name);
        if (length + 1 + nameLength + 1 > sizeof(interruptPath))
          continue;
        path[length] = '/';
        std::memcpy(path + length + 1, name, nameLength + 1);
        if (::unlink(path) == 0) {
          removed = true;
        } else if (depth < 4) {
          removeTreeOnSignal(path, length + 1 + nameLength, depth + 1);
          removed = true;
        }
        path[length] = '\0';
      }
    }
    ::close(fd);
    if (::rmdir(path) == 0 || !removed)
      break;
  }
}
#endif

/// LLVM's handlers call this on SIGINT, SIGTERM or SIGHUP instead of
/// letting the process die; it dies here, as an interrupted program does.
static void removeOnInterrupt() {
#ifdef __linux__
  if (interruptPath[0])
    removeTreeOnSignal(interruptPath, std::strlen(interruptPath), 0);
#endif
  std::signal(SIGINT, SIG_DFL);
  std::raise(SIGINT);
}

llvm::Expected<WorkDirectory> WorkDirectory::create(llvm::StringRef prefix) {
  llvm::SmallString<128> dir;
  if (std::error_code ec = llvm::sys::fs::createUniqueDirectory(prefix, dir))
    return llvm::createStringError(ec, "cannot create a work directory: " +
                                           ec.message());
  WorkDirectory result(dir.str().str());
  if (result.path.size() < sizeof(interruptPath)) {
    std::memcpy(interruptPath, result.path.c_str(), result.path.size() + 1);
    llvm::sys::SetInterruptFunction(removeOnInterrupt);
  }
  return std::move(result);
}

WorkDirectory::~WorkDirectory() {
  if (path.empty())
    return;
  if (path == interruptPath) {
    llvm::sys::SetInterruptFunction(nullptr);
    interruptPath[0] = '\0';
  }
  llvm::sys::fs::remove_directories(path);
}
