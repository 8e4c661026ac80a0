//===- Measurer.cpp - How the tuner measures its candidates ---------------===//

#include "tessel/Tuning/Measurer.h"

#include "tessel/Tuning/Subprocess.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <chrono>
#include <cmath>
#include <set>
#include <thread>

using namespace tessel;

static llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

namespace {
using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start)
      .count();
}

/// tessel-run's errors without its prefix.
std::string runnerError(llvm::StringRef text) {
  std::string line = firstLine(text);
  llvm::StringRef l(line);
  if (l.consume_front("tessel-run: error: "))
    return l.str();
  return line;
}

/// The error of a tuning run that finds no GPU, and how to tune without.
llvm::Error noGpu(const llvm::Twine &why) {
  return fail("no GPU to measure on: " + why +
              " (use replay=DB to tune from recorded measurements)");
}
} // namespace

llvm::Error Measurer::setDevice(const std::set<std::string> &names) {
  if (names.size() > 1)
    return fail("devices= names GPUs of different models (" +
                llvm::join(names, ", ") +
                "): one tuning run measures on one model");
  deviceName = *names.begin();
  return llvm::Error::success();
}

llvm::Expected<std::vector<int>> tessel::listDevices(const std::string &runner,
                                                     llvm::StringRef workDir) {
  std::string out, err, message;
  int rc =
      runProcess(runner, {"--list-devices"}, 60, workDir, out, err, message);
  if (rc != 0)
    return noGpu(runnerError(err.empty() ? message : err));
  std::vector<int> devices;
  for (llvm::StringRef line : llvm::split(llvm::StringRef(out).trim(), '\n'))
    if (!line.trim().empty())
      devices.push_back(devices.size());
  if (devices.empty())
    return fail("devices=all: " + runner + " lists no GPU");
  return devices;
}

/// Why a runner's JSON result cannot be recorded, or "" when it can: each
/// time a positive, finite number of milliseconds, min <= median <= max,
/// "checked" a boolean, and a relative error, when given, a number that is
/// not negative (NaN is allowed: a kernel that wrote NaN).
static std::string invalidRunnerOutput(const llvm::json::Object &o) {
  for (llvm::StringRef field : {"median_ms", "min_ms", "max_ms"}) {
    const llvm::json::Value *v = o.get(field);
    std::optional<double> ms = v ? v->getAsNumber() : std::nullopt;
    if (!ms || !std::isfinite(*ms) || *ms <= 0) {
      std::string shown = "nothing";
      if (v)
        shown = llvm::formatv("{0}", *v).str();
      return (field + " is " + shown +
              ", not a positive number of milliseconds")
          .str();
    }
  }
  double median = *o.getNumber("median_ms");
  if (!(*o.getNumber("min_ms") <= median && median <= *o.getNumber("max_ms")))
    return "min_ms <= median_ms <= max_ms does not hold";
  for (llvm::StringRef field : {"checked", "passed"})
    if (!o.getBoolean(field))
      return ("\"" + field + "\" is not a boolean").str();
  if (const llvm::json::Value *e = o.get("relative_error")) {
    std::optional<double> error = e->getAsNumber();
    if (e->kind() != llvm::json::Value::Null && (!error || *error < 0))
      return "relative_error is not a number >= 0";
  }
  return "";
}

void tessel::recordRunnerAnswer(const llvm::json::Object &o,
                                bool runnerSaysWrong, llvm::StringRef runner,
                                TuningRecord &r) {
  // Times are positive, finite and ordered, "checked" and "passed"
  // booleans: a runner's negative or non-numeric time would otherwise be
  // recorded as a measurement (and win).
  if (std::string why = invalidRunnerOutput(o); !why.empty()) {
    r.status = "run-error";
    r.error = ("invalid output of " + runner + ": " + why).str();
    return;
  }
  r.medianMs = *o.getNumber("median_ms");
  r.minMs = *o.getNumber("min_ms");
  r.maxMs = *o.getNumber("max_ms");
  r.tflops = o.getNumber("tflops").value_or(0);
  r.relativeError = o.getNumber("relative_error").value_or(0);
  // A candidate passes when the runner checked its output and says so
  // both ways: `"passed": false` with exit status 0 is not a pass.
  if (!runnerSaysWrong && *o.getBoolean("checked") && *o.getBoolean("passed")) {
    r.status = "ok";
    r.error.clear();
    return;
  }
  r.status = "wrong-output";
  r.error = llvm::formatv("relative error {0:e2} > tolerance {1:e1}, {2} NaN",
                          r.relativeError, o.getNumber("tolerance").value_or(0),
                          o.getInteger("nan_count").value_or(0))
                .str();
}

//===----------------------------------------------------------------------===//
// One process per measurement
//===----------------------------------------------------------------------===//

namespace {
class ProcessMeasurer : public Measurer {
public:
  explicit ProcessMeasurer(const MeasureOptions &options) : options(options) {}
  llvm::Error start();
  unsigned slots() const override { return options.devices.size(); }
  int gpu(unsigned slot) const override { return options.devices[slot]; }
  void measure(unsigned slot, const MeasureRequest &request,
               TuningRecord &record) override;

private:
  MeasureOptions options;
};
} // namespace

llvm::Error ProcessMeasurer::start() {
  std::set<std::string> names;
  for (int device : options.devices) {
    std::string out, err, message;
    int rc = runProcess(options.runner,
                        {"--device-info", "--device=" + std::to_string(device)},
                        30, options.workDir, out, err, message);
    if (rc != 0)
      return noGpu(runnerError(err.empty() ? message : err));
    names.insert(firstLine(out));
  }
  return setDevice(names);
}

void ProcessMeasurer::measure(unsigned slot, const MeasureRequest &request,
                              TuningRecord &r) {
  Clock::time_point start = Clock::now();
  std::string out, err, message;
  int rc = runProcess(options.runner,
                      {request.specPath, "--json",
                       llvm::formatv("--warmup-ms={0}", options.warmupMs).str(),
                       llvm::formatv("--rep-ms={0}", options.repeatMs).str(),
                       "--device=" + std::to_string(options.devices[slot]),
                       "--seed=" + std::to_string(request.seed)},
                      options.timeoutS, options.workDir, out, err, message);
  r.measureMs = msSince(start);
  if (rc == 0 || rc == 2) {
    llvm::Expected<llvm::json::Value> json = llvm::json::parse(out);
    const llvm::json::Object *o = json ? json->getAsObject() : nullptr;
    if (!json)
      llvm::consumeError(json.takeError());
    if (!o) {
      r.status = "run-error";
      r.error = "unreadable output of " + options.runner;
      return;
    }
    recordRunnerAnswer(*o, /*runnerSaysWrong=*/rc == 2, options.runner, r);
    return;
  }
  if (rc == -2) {
    bool timedOut = llvm::StringRef(message).contains_insensitive("time");
    r.status = timedOut ? "timeout" : "crash";
    r.error = timedOut
                  ? llvm::formatv("killed after {0} s", options.timeoutS).str()
                  : firstLine(message);
    return;
  }
  r.status = "run-error";
  r.error = runnerError(err.empty() ? message : err);
}

//===----------------------------------------------------------------------===//
// A persistent worker per GPU
//===----------------------------------------------------------------------===//

namespace {
class WorkerMeasurer : public Measurer {
public:
  explicit WorkerMeasurer(const MeasureOptions &options)
      : options(options), workers(options.devices.size()) {}
  llvm::Error start();
  unsigned slots() const override { return options.devices.size(); }
  int gpu(unsigned slot) const override { return options.devices[slot]; }
  void measure(unsigned slot, const MeasureRequest &request,
               TuningRecord &record) override;

private:
  struct Worker {
    std::optional<Subprocess> process;
    std::string errPath;
    unsigned starts = 0;
  };
  /// Starts slot's worker if it is not running; its device, or why not.
  llvm::Expected<std::string> ensureRunning(unsigned slot);
  /// The last line the worker wrote to stderr, for crash reports.
  std::string lastErrorLine(const Worker &worker) const;

  MeasureOptions options;
  std::vector<Worker> workers;
};
} // namespace

std::string WorkerMeasurer::lastErrorLine(const Worker &worker) const {
  auto buffer = llvm::MemoryBuffer::getFile(worker.errPath);
  if (!buffer)
    return "";
  llvm::StringRef text = (*buffer)->getBuffer().rtrim();
  return runnerError(
      text.rsplit('\n').second.empty() ? text : text.rsplit('\n').second);
}

llvm::Expected<std::string> WorkerMeasurer::ensureRunning(unsigned slot) {
  Worker &w = workers[slot];
  if (w.process && w.process->running())
    return deviceName;
  w.errPath =
      llvm::formatv("{0}/worker{1}.{2}.err", options.workDir, slot, w.starts++)
          .str();
  llvm::Expected<Subprocess> p = Subprocess::start(
      options.runner,
      {"--serve", "--device=" + std::to_string(options.devices[slot]),
       llvm::formatv("--warmup-ms={0}", options.warmupMs).str(),
       llvm::formatv("--rep-ms={0}", options.repeatMs).str()},
      w.errPath);
  if (!p)
    return p.takeError();
  w.process.emplace(std::move(*p));
  // Starting takes a CUDA context: generous, but bounded.
  std::string line;
  Subprocess::Read read = w.process->readLine(line, options.timeoutS + 60.0);
  if (read != Subprocess::Read::Line) {
    std::string how = read == Subprocess::Read::Timeout
                          ? "did not start within " +
                                std::to_string(options.timeoutS + 60) + " s"
                          : w.process->wait();
    w.process->kill();
    std::string err = lastErrorLine(w);
    return fail("the measurement worker (" + options.runner + " --serve) " +
                how + (err.empty() ? "" : ": " + err));
  }
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(line);
  const llvm::json::Object *o = json ? json->getAsObject() : nullptr;
  if (!json)
    llvm::consumeError(json.takeError());
  if (o)
    if (std::optional<llvm::StringRef> error = o->getString("error")) {
      w.process->kill();
      return fail(runnerError(*error));
    }
  std::optional<llvm::StringRef> device =
      o ? o->getString("device") : std::nullopt;
  if (!device || !o->getBoolean("ready").value_or(false)) {
    w.process->kill();
    return fail("the measurement worker (" + options.runner +
                " --serve) did not announce itself: '" + firstLine(line) + "'");
  }
  return device->str();
}

llvm::Error WorkerMeasurer::start() {
  // The workers start at once: each takes a CUDA context (a few hundred
  // ms), which GPUs create in parallel. With devices=all, device 0's
  // worker starts while the GPUs are listed, the others after.
  std::vector<std::string> devices(1), errors(1);
  unsigned first = 0;
  if (options.allDevices) {
    std::optional<llvm::Expected<std::vector<int>>> listed;
    std::thread lister([&] {
      listed.emplace(listDevices(options.runner, options.workDir));
    });
    llvm::Expected<std::string> device = ensureRunning(0);
    lister.join();
    if (!*listed) {
      if (!device)
        llvm::consumeError(device.takeError());
      return listed->takeError();
    }
    if (!device)
      return noGpu(llvm::toString(device.takeError()));
    devices[0] = *device;
    options.devices = std::move(**listed);
    workers.resize(options.devices.size());
    first = 1;
  }
  devices.resize(workers.size());
  errors.resize(workers.size());
  std::vector<std::thread> threads;
  for (unsigned slot = first; slot < workers.size(); ++slot)
    threads.emplace_back([&, slot] {
      llvm::Expected<std::string> device = ensureRunning(slot);
      if (device)
        devices[slot] = *device;
      else
        errors[slot] = llvm::toString(device.takeError());
    });
  for (std::thread &t : threads)
    t.join();
  std::set<std::string> names;
  for (unsigned slot = 0; slot < workers.size(); ++slot) {
    if (!errors[slot].empty())
      return noGpu(errors[slot]);
    names.insert(devices[slot]);
  }
  return setDevice(names);
}

void WorkerMeasurer::measure(unsigned slot, const MeasureRequest &request,
                             TuningRecord &r) {
  Clock::time_point start = Clock::now();
  auto finish = [&](llvm::StringRef status, const std::string &error) {
    r.status = status.str();
    r.error = error;
    r.measureMs = msSince(start);
  };
  Worker &w = workers[slot];
  llvm::Expected<std::string> running = ensureRunning(slot);
  if (!running)
    return finish("run-error", llvm::toString(running.takeError()));
  if (*running != deviceName) {
    w.process->kill();
    return finish("run-error", "the restarted worker is on '" + *running +
                                   "', not '" + deviceName + "'");
  }
  llvm::json::Object requestJson{{"spec", request.specPath},
                                 {"seed", int64_t(request.seed)}};
  std::string text;
  llvm::raw_string_ostream(text) << llvm::json::Value(std::move(requestJson));
  std::string line;
  Subprocess::Read read = Subprocess::Read::EndOfFile;
  if (w.process->writeLine(text))
    read = w.process->readLine(line, options.timeoutS);
  if (read == Subprocess::Read::Timeout) {
    w.process->kill();
    return finish("timeout",
                  llvm::formatv("killed after {0} s", options.timeoutS).str());
  }
  if (read == Subprocess::Read::EndOfFile) {
    std::string how = w.process->wait();
    std::string err = lastErrorLine(w);
    return finish("crash",
                  "the worker " + how + (err.empty() ? "" : " (" + err + ")"));
  }
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(line);
  const llvm::json::Object *o = json ? json->getAsObject() : nullptr;
  if (!json)
    llvm::consumeError(json.takeError());
  if (!o) {
    w.process->kill();
    return finish("run-error", "unreadable output of " + options.runner);
  }
  if (std::optional<llvm::StringRef> error = o->getString("error")) {
    // The worker exits after an error that broke its context.
    if (o->getBoolean("context_lost").value_or(false))
      w.process->wait();
    return finish("run-error", runnerError(*error));
  }
  recordRunnerAnswer(*o, /*runnerSaysWrong=*/false, options.runner, r);
  r.measureMs = msSince(start);
}

//===----------------------------------------------------------------------===//
// Replay
//===----------------------------------------------------------------------===//

namespace {
class ReplayMeasurer : public Measurer {
public:
  ReplayMeasurer(TuningDatabase db, std::string workload, std::string device)
      : db(std::move(db)), workload(std::move(workload)) {
    deviceName = std::move(device);
  }
  bool needsKernels() const override { return false; }
  const TuningDatabase *recordings() const override { return &db; }
  void measure(unsigned slot, const MeasureRequest &request,
               TuningRecord &record) override;

private:
  TuningDatabase db;
  std::string workload;
};
} // namespace

void ReplayMeasurer::measure(unsigned slot, const MeasureRequest &request,
                             TuningRecord &record) {
  for (const TuningRecord *rec : db.matching(workload, deviceName))
    if (rec->knobs == request.knobs) {
      TuningKey ownKey = record.key;
      record = *rec;
      record.key = ownKey;
      return;
    }
  record.status = "not-recorded";
  record.error = "no measurement of these knobs in the replay database";
}

//===----------------------------------------------------------------------===//
// Factories
//===----------------------------------------------------------------------===//

static llvm::Error checkOptions(const MeasureOptions &options) {
  if (options.devices.empty())
    return fail("no device to measure on (devices=)");
  std::set<int> seen;
  for (int d : options.devices)
    if (d < 0 || !seen.insert(d).second)
      return fail(llvm::formatv("devices= must list distinct CUDA device "
                                "ordinals >= 0 (got {0})",
                                d));
  if (!llvm::sys::fs::can_execute(options.runner))
    return fail("cannot execute the measuring tool '" + options.runner +
                "' (set runner=)");
  return llvm::Error::success();
}

llvm::Expected<std::unique_ptr<Measurer>>
tessel::createWorkerMeasurer(const MeasureOptions &options) {
  if (llvm::Error e = checkOptions(options))
    return std::move(e);
  auto measurer = std::make_unique<WorkerMeasurer>(options);
  if (llvm::Error e = measurer->start())
    return std::move(e);
  return measurer;
}

llvm::Expected<std::unique_ptr<Measurer>>
tessel::createProcessMeasurer(const MeasureOptions &options) {
  if (llvm::Error e = checkOptions(options))
    return std::move(e);
  auto measurer = std::make_unique<ProcessMeasurer>(options);
  if (llvm::Error e = measurer->start())
    return std::move(e);
  return measurer;
}

llvm::Expected<std::unique_ptr<Measurer>>
tessel::createReplayMeasurer(llvm::StringRef path, llvm::StringRef workload,
                             llvm::StringRef device) {
  if (!llvm::sys::fs::exists(path))
    return fail("replay database '" + path + "' does not exist");
  llvm::Expected<TuningDatabase> db = TuningDatabase::open(path);
  if (!db)
    return db.takeError();
  std::set<std::string> devices;
  for (const TuningRecord &rec : db->records())
    if (rec.key.workload == workload)
      devices.insert(rec.key.device);
  std::string chosen = device.str();
  if (chosen.empty()) {
    if (devices.size() != 1)
      return fail(llvm::formatv("replay database '{0}' has records of '{1}' "
                                "for {2} devices; choose one with "
                                "replay-device=",
                                path, workload, devices.size())
                      .str());
    chosen = *devices.begin();
  }
  return std::make_unique<ReplayMeasurer>(std::move(*db), workload.str(),
                                          chosen);
}
