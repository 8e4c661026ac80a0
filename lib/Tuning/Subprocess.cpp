//===- Subprocess.cpp - A child process spoken to through pipes -----------===//

#include "tessel/Tuning/Subprocess.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

using namespace tessel;

static llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Expected<Subprocess> Subprocess::start(llvm::StringRef program,
                                             llvm::ArrayRef<std::string> args,
                                             llvm::StringRef stderrPath) {
  // Our ends are close-on-exec, so that a worker started later does not
  // hold an earlier one's pipes open (its EOF would never come).
  int toChild[2], fromChild[2];
  if (pipe2(toChild, O_CLOEXEC) != 0)
    return fail("cannot create a pipe: " + llvm::Twine(strerror(errno)));
  if (pipe2(fromChild, O_CLOEXEC) != 0) {
    close(toChild[0]);
    close(toChild[1]);
    return fail("cannot create a pipe: " + llvm::Twine(strerror(errno)));
  }
  std::string errPath = stderrPath.str();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, toChild[0], 0);
  posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1);
  posix_spawn_file_actions_addopen(&actions, 2, errPath.c_str(),
                                   O_WRONLY | O_CREAT | O_APPEND, 0644);
  std::string path = program.str();
  std::vector<char *> argv = {path.data()};
  std::vector<std::string> copies(args.begin(), args.end());
  for (std::string &a : copies)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  int rc =
      posix_spawn(&pid, path.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(toChild[0]);
  close(fromChild[1]);
  if (rc != 0) {
    close(toChild[1]);
    close(fromChild[0]);
    return fail("cannot start '" + program + "': " + strerror(rc));
  }
  Subprocess p;
  p.pid = pid;
  p.in = toChild[1];
  p.out = fromChild[0];
  return p;
}

Subprocess::Subprocess(Subprocess &&other)
    : pid(other.pid), in(other.in), out(other.out),
      pending(std::move(other.pending)) {
  other.pid = -1;
  other.in = other.out = -1;
}

Subprocess &Subprocess::operator=(Subprocess &&other) {
  if (this != &other) {
    kill();
    pid = other.pid, in = other.in, out = other.out;
    pending = std::move(other.pending);
    other.pid = -1;
    other.in = other.out = -1;
  }
  return *this;
}

Subprocess::~Subprocess() { kill(); }

void Subprocess::closePipes() {
  if (in >= 0)
    close(in);
  if (out >= 0)
    close(out);
  in = out = -1;
}

bool Subprocess::writeLine(llvm::StringRef line) {
  if (in < 0)
    return false;
  std::string text = line.str() + "\n";
  // A write to a pipe nobody reads raises SIGPIPE, which LLVM's handlers
  // turn into an exit: block it on this thread, and take back the one the
  // write raised.
  sigset_t pipeSignal, previous;
  sigemptyset(&pipeSignal);
  sigaddset(&pipeSignal, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipeSignal, &previous);
  bool ok = true;
  for (size_t done = 0; done < text.size();) {
    ssize_t n = write(in, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      ok = false;
      break;
    }
    done += n;
  }
  if (!ok) {
    struct timespec zero = {0, 0};
    sigtimedwait(&pipeSignal, nullptr, &zero);
  }
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  return ok;
}

Subprocess::Read Subprocess::readLine(std::string &line, double timeoutS) {
  using Clock = std::chrono::steady_clock;
  Clock::time_point deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(
                         std::chrono::duration<double>(timeoutS));
  while (true) {
    size_t newline = pending.find('\n');
    if (newline != std::string::npos) {
      line = pending.substr(0, newline);
      pending.erase(0, newline + 1);
      return Read::Line;
    }
    if (out < 0)
      return Read::EndOfFile;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - Clock::now())
                    .count();
    if (left <= 0)
      return Read::Timeout;
    struct pollfd fd = {out, POLLIN, 0};
    int ready = poll(&fd, 1, int(std::min<long long>(left, 1 << 30)));
    if (ready < 0 && errno == EINTR)
      continue;
    if (ready == 0)
      return Read::Timeout;
    char buffer[65536];
    ssize_t n = read(out, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return Read::EndOfFile; // A partial last line is not an answer.
    pending.append(buffer, n);
  }
}

void Subprocess::kill() {
  if (pid > 0) {
    ::kill(pid, SIGKILL);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
      ;
    pid = -1;
  }
  closePipes();
}

std::string Subprocess::wait() {
  closePipes();
  if (pid <= 0)
    return "not running";
  // A child that closed its stdout but lives on gets 5 s, then SIGKILL.
  int status = 0;
  for (int tries = 0;; ++tries) {
    pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid || (done < 0 && errno != EINTR))
      break;
    if (tries == 500)
      ::kill(pid, SIGKILL);
    usleep(10000);
  }
  pid = -1;
  if (WIFSIGNALED(status))
    return llvm::formatv("killed by signal {0} ({1})", WTERMSIG(status),
                         strsignal(WTERMSIG(status)))
        .str();
  return llvm::formatv("exited with status {0}", WEXITSTATUS(status)).str();
}

std::string tessel::firstLine(llvm::StringRef text) {
  return text.trim().split('\n').first.str();
}

int tessel::runProcess(llvm::StringRef program,
                       llvm::ArrayRef<std::string> args, unsigned timeoutS,
                       llvm::StringRef dir, std::string &out, std::string &err,
                       std::string &message) {
  llvm::SmallString<128> outPath, errPath;
  llvm::sys::fs::createUniqueFile(dir + "/process-%%%%%%%%.out", outPath);
  llvm::sys::fs::createUniqueFile(dir + "/process-%%%%%%%%.err", errPath);
  std::vector<llvm::StringRef> argv = {program};
  for (const std::string &a : args)
    argv.push_back(a);
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, outPath.str(),
                                                errPath.str()};
  // Not ExecuteAndWait's timeout: it is a SIGALRM, which another thread
  // of this process may take (measurements run on one thread per GPU), and
  // then the wait never ends. Poll instead.
  bool execFailed = false;
  llvm::sys::ProcessInfo child = llvm::sys::ExecuteNoWait(
      program, argv, std::nullopt, redirects, 0, &message, &execFailed);
  int rc = -1;
  if (!execFailed) {
    auto deadline =
        std::chrono::steady_clock::now() + std::chrono::seconds(timeoutS);
    while (true) {
      llvm::sys::ProcessInfo state = llvm::sys::Wait(child, 0, &message);
      if (state.Pid != 0) {
        rc = state.ReturnCode;
        break;
      }
      if (std::chrono::steady_clock::now() >= deadline) {
        ::kill(child.Pid, SIGKILL);
        llvm::sys::Wait(child, std::nullopt);
        rc = -2;
        message = llvm::formatv("timed out after {0} s", timeoutS).str();
        break;
      }
      usleep(2000);
    }
  }
  if (auto b = llvm::MemoryBuffer::getFile(outPath))
    out = (*b)->getBuffer().str();
  if (auto b = llvm::MemoryBuffer::getFile(errPath))
    err = (*b)->getBuffer().str();
  llvm::sys::fs::remove(outPath);
  llvm::sys::fs::remove(errPath);
  return rc;
}
