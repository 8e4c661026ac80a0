//===- Tuner.cpp - The search loop of tessel-tune -------------------------===//
//
// Proposes candidates (Strategy), compiles them in parallel
// (CandidateBuilder), has them measured (Measurer: persistent workers, one
// process per candidate, or replay), records every outcome (Database) and
// verifies the winner on fresh inputs. A candidate that fails to compile,
// crashes the GPU context, hangs or computes a wrong result is recorded with
// its reason and the search goes on.
//
//===----------------------------------------------------------------------===//

#include "tessel/Tuning/Tuner.h"

#include "tessel/Pipelines/Pipelines.h"
#include "tessel/Runtime/InputFiles.h"
#include "tessel/Runtime/Runner.h"
#include "tessel/Transforms/Chips.h"
#include "tessel/Transforms/LaunchMetadata.h"
#include "tessel/Tuning/CandidateBuilder.h"
#include "tessel/Tuning/Database.h"
#include "tessel/Tuning/KnobChoice.h"
#include "tessel/Tuning/Measurer.h"
#include "tessel/Tuning/Mpi.h"
#include "tessel/Tuning/SearchSpace.h"
#include "tessel/Tuning/Strategy.h"
#include "tessel/Tuning/Subprocess.h"
#include "tessel/Tuning/WorkDirectory.h"
#include "tessel/Version.h"

#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/Dialect/Transform/Transforms/TransformInterpreterUtils.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/ThreadPool.h"

#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

using namespace mlir;
using namespace tessel;

static llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// A number as the user would write it (-1, nan, 0.5).
static std::string shortNumber(double value) {
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%g", value);
  return text;
}

namespace {

struct Trial {
  Candidate candidate;
  TuningRecord record;
  unsigned id = 0;      // Names the trial's work directory.
  std::string specPath; // Set once compiled.
  /// Where the record comes from: only compiled trials are measured and
  /// written to the database.
  enum class Origin { Compiled, Cached, Replayed } origin = Origin::Compiled;
};

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start)
      .count();
}

std::string nowIso() {
  return llvm::formatv("{0:%Y-%m-%dT%H:%M:%S}Z",
                       std::chrono::system_clock::now())
      .str();
}

/// Everything one tuning run shares.
class Tuner {
public:
  Tuner(ModuleOp payload, const TuneOptions &options, llvm::raw_ostream &log)
      : payload(payload), options(options), log(log) {}

  llvm::Expected<std::map<std::string, std::string>> run();

private:
  llvm::Error setUp();
  /// The measurer the options ask for; sets key.device.
  llvm::Error setUpMeasurer();
  /// Leaves the candidates the schedules' constraints refuse out of the
  /// search (they would not compile, or would spill), and logs how many.
  llvm::Error applyConstraints();
  void compile(Trial &trial);
  /// Runs and checks the candidate on inputs drawn from `inputSeed`.
  void measure(Trial &trial, unsigned slot, uint64_t inputSeed = 1);
  /// The search: proposes up to the budget, applies cached records,
  /// compiles the rest in parallel and measures them on the measurer's
  /// slots, reporting (and teaching the strategy) each trial in order.
  llvm::Error search();
  /// How many trials may be in flight (proposed, not yet reported).
  unsigned window() const;
  llvm::Error report(const Trial &trial);
  /// The progress line (progress=): drawn over on a terminal, printed every
  /// tenth of the budget with progress=lines.
  void showProgress();
  void clearProgress();
  void printSummary();
  /// The knobs the compiler picks for the workload without a tuned record:
  /// the rule's first choice that compiles; none when the workload is not
  /// modeled.
  std::optional<Candidate> ruleDefaults();
  /// ruleDefaults(), computed once the constraints are applied: where the
  /// search starts (start=rule) and the finalists' "defaults".
  std::optional<Candidate> ruleKnobs;
  /// Re-measures the two best of the search and the defaults on fresh
  /// inputs and returns the winner (see the definition).
  llvm::Expected<const Trial *>
  chooseWinner(const std::vector<const Trial *> &ranked);

  ModuleOp payload;
  const TuneOptions &options;
  llvm::raw_ostream &log;

  std::optional<SearchSpace> space;
  std::unique_ptr<SearchStrategy> strategy;
  std::unique_ptr<Measurer> measurer;
  std::optional<CandidateBuilder> builder;
  std::optional<TuningDatabase> db;
  TuningKey key;
  std::optional<WorkDirectory> work;
  std::string workDir;
  std::string chip; // options.chip, else the schedule's, else sm_90.
  std::vector<Trial> done;
  /// Finalists measured only in the final round (the defaults, when the
  /// search did not try them); a winner may point here.
  std::deque<Trial> extraFinalists;
  unsigned nextId = 0;
  int64_t cachedCount = 0, measuredCount = 0, replayedCount = 0;
  uint64_t refusedCount = 0;
  double bestMs = std::numeric_limits<double>::infinity();
  double bestTflops = 0;
  Clock::time_point startTime = Clock::now();
  bool liveProgress = false;  // A status line redrawn on a terminal.
  bool progressShown = false; // It is on the screen now.
  int64_t progressLinesShown = 0;
};

} // namespace

/// "0,1" or "all" (every GPU `runner --list-devices` lists) as ordinals.
static llvm::Expected<std::vector<int>> parseDevices(llvm::StringRef text,
                                                     const std::string &runner,
                                                     llvm::StringRef workDir) {
  if (text.trim() == "all")
    return listDevices(runner, workDir);
  std::vector<int> devices;
  for (llvm::StringRef item : llvm::split(text, ',')) {
    int ordinal;
    if (item.trim().getAsInteger(10, ordinal) || ordinal < 0)
      return fail("devices= takes CUDA device ordinals >= 0 separated by "
                  "commas, or 'all' (got '" +
                  text + "')");
    devices.push_back(ordinal);
  }
  return devices;
}

llvm::Error Tuner::setUpMeasurer() {
  // Under mpirun the other ranks wait for rank 0's measurements: a run
  // that would take none must not leave them waiting.
  if (!options.replay.empty() && options.measure == "mpi")
    return fail("replay= takes no measurements: it does not combine with "
                "measure=mpi");
  if (!options.replay.empty()) {
    llvm::Expected<std::unique_ptr<Measurer>> m = createReplayMeasurer(
        options.replay, key.workload, options.replayDevice);
    if (!m)
      return m.takeError();
    measurer = std::move(*m);
    key.device = measurer->device();
    return llvm::Error::success();
  }
  if (options.measure != "worker" && options.measure != "process" &&
      options.measure != "mpi")
    return fail("measure must be worker, process or mpi (got '" +
                options.measure + "')");
  if (options.measure == "mpi" && !options.devices.empty())
    return fail("devices= does not apply to measure=mpi: each measuring "
                "rank uses one GPU (its index among its host's ranks)");
  MeasureOptions m;
  m.runner = options.runner;
  if (m.runner.empty()) {
    std::string self = llvm::sys::fs::getMainExecutable(
        nullptr, reinterpret_cast<void *>(&tessel::getVersion));
    llvm::SmallString<256> path(llvm::sys::path::parent_path(self));
    llvm::sys::path::append(path, "tessel-run");
    m.runner = path.str().str();
  }
  if (!llvm::sys::fs::can_execute(m.runner))
    return fail("cannot execute the measuring tool '" + m.runner +
                "' (set runner=)");
  m.timeoutS = options.timeoutS;
  m.warmupMs = options.warmupMs;
  m.repeatMs = options.repeatMs;
  m.workDir = workDir;
  if (options.devices.empty()) {
    m.devices = {options.deviceOrdinal};
  } else if (llvm::StringRef(options.devices).trim() == "all" &&
             options.measure == "worker") {
    m.devices = {0}; // The workers' start lists the rest.
    m.allDevices = true;
  } else {
    llvm::Expected<std::vector<int>> devices =
        parseDevices(options.devices, m.runner, workDir);
    if (!devices)
      return devices.takeError();
    m.devices = std::move(*devices);
  }
  llvm::Expected<std::unique_ptr<Measurer>> made =
      options.measure == "mpi"      ? createMpiMeasurer(m)
      : options.measure == "worker" ? createWorkerMeasurer(m)
                                    : createProcessMeasurer(m);
  if (!made)
    return made.takeError();
  measurer = std::move(*made);
  key.device = measurer->device();
  return llvm::Error::success();
}

/// The largest space whose every point is checked against the constraints
/// before the search (the shipped schedules' spaces have at most 49,152);
/// a larger one is searched whole.
static constexpr uint64_t kMaxConstrainedSpace = uint64_t(1) << 20;

llvm::Error Tuner::applyConstraints() {
  std::optional<ProblemShape> problem = parseWorkloadKey(key.workload);
  if (!problem || space->size() > kMaxConstrainedSpace) {
    log << llvm::formatv("[tune] constraints: not checked ({0})\n",
                         problem ? "space too large" : "workload not modeled");
    return llvm::Error::success();
  }
  ChipLimits limits = chipLimits(chip);
  std::map<std::string, uint64_t> reasons; // Kind -> count.
  std::string example;
  for (uint64_t i = 0; i < space->size(); ++i) {
    Candidate c = space->at(i);
    std::string why = whyRefused(*space, c, *problem, limits);
    if (why.empty())
      continue;
    strategy->exclude(c);
    ++refusedCount;
    if (example.empty())
      example = space->assignment(c) + ": " + why;
  }
  log << llvm::formatv("[tune] constraints: {0} of {1} candidates left, {2} "
                       "refused before compiling{3}\n",
                       space->size() - refusedCount, space->size(),
                       refusedCount,
                       example.empty() ? "" : " (e.g. " + example + ")");
  if (refusedCount == space->size())
    return fail("every candidate breaks a constraint of the schedule for " +
                key.workload + ", e.g. " + example);

  // Replaying: how the constraints judge what was recorded (a refused
  // point recorded ok would be a constraint that loses kernels).
  if (const TuningDatabase *recorded = measurer->recordings()) {
    std::map<std::string, std::pair<int64_t, int64_t>> byStatus;
    for (const TuningRecord *r : recorded->matching(key.workload, key.device)) {
      llvm::Expected<Candidate> c = space->parse(r->knobs);
      if (!c) {
        llvm::consumeError(c.takeError());
        continue;
      }
      auto &[refused, total] = byStatus[r->status];
      ++total;
      refused += !whyRefused(*space, *c, *problem, limits).empty();
    }
    log << "[tune] constraints vs the recorded candidates:";
    for (auto &[status, counts] : byStatus)
      log << llvm::formatv(" {0} {1} of {2};", status, counts.first,
                           counts.second);
    log << "\n";
  }
  return llvm::Error::success();
}

llvm::Error Tuner::setUp() {
  if (options.progress != "auto" && options.progress != "lines" &&
      options.progress != "none")
    return fail("progress must be auto, lines or none (got '" +
                options.progress + "')");
  liveProgress = options.progress == "auto" && log.is_displayed();
  if (options.budget <= 0)
    return fail("budget must be at least 1 trial (got " +
                llvm::Twine(options.budget) + ")");
  // Budgets are finite (NaN compares false with everything) and, per
  // measurement, at most a minute, as tessel-run takes them.
  if (!(options.timeBudgetS >= 0 && std::isfinite(options.timeBudgetS)))
    return fail(llvm::formatv("time-budget must be a finite number of "
                              "seconds >= 0, 0 for none (got {0})",
                              shortNumber(options.timeBudgetS)));
  if (std::string why =
          checkMeasurementBudgets(options.warmupMs, options.repeatMs, "");
      !why.empty())
    return fail(why);
  if (options.timeoutS == 0)
    return fail("timeout must be at least 1 second (0 would kill every "
                "measurement)");
  if (options.deviceOrdinal < 0)
    return fail(llvm::formatv("device must be a CUDA device ordinal >= 0 "
                              "(got {0})",
                              options.deviceOrdinal));
  if (options.schedule.empty())
    return fail("the 'schedule' option is required");
  if (std::string error =
          [&] {
            LowerToPtxOptions target;
            target.chip = options.chip;
            target.features = options.features;
            return validateLowerToPtxOptions(target);
          }();
      !error.empty())
    return fail(error);

  // The space, from the schedule.
  OwningOpRef<ModuleOp> schedule;
  if (!llvm::sys::fs::exists(options.schedule))
    return fail("cannot open schedule file '" + options.schedule + "'");
  if (llvm::Error e = checkInputFile(options.schedule))
    return fail("cannot read schedule file " + llvm::toString(std::move(e)));
  if (failed(transform::detail::parseTransformModuleFromFile(
          payload.getContext(), options.schedule, schedule)))
    return fail("cannot parse schedule file '" + options.schedule + "'");
  // Every candidate runs this sequence: a missing one is reported now, not
  // after compiling them all.
  if (!schedule->lookupSymbol<transform::NamedSequenceOp>(options.entry))
    return fail("schedule file '" + options.schedule +
                "' has no transform.named_sequence @" + options.entry +
                " (entry=)");
  // The chip: the one given, else the one the schedule's kernels are for.
  ChipRequirement need = ChipRequirement::ofSchedule(schedule.get());
  chip = !options.chip.empty()  ? options.chip
         : !need.target.empty() ? need.target
                                : std::string("sm_90");
  if (std::string why = need.mismatch(chip); !why.empty())
    return fail("schedule '" + options.schedule + "' " + why +
                ": its candidates cannot be compiled for chip=" + chip +
                (need.target.empty()
                     ? std::string()
                     : "; pass chip=" + need.target + " or leave chip unset"));
  llvm::Expected<SearchSpace> parsed = SearchSpace::fromSchedule(*schedule);
  if (!parsed)
    return parsed.takeError();
  space = std::move(*parsed);
  if (options.start != "rule" && options.start != "defaults")
    return fail("start='" + options.start + "': expected rule or defaults");
  llvm::Expected<std::unique_ptr<SearchStrategy>> s =
      createStrategy(options.strategy, *space, options.seed);
  if (!s)
    return s.takeError();
  strategy = std::move(*s);

  BuildOptions build;
  build.schedule = options.schedule;
  build.entry = options.entry;
  build.chip = chip;
  build.features = options.features;
  for (llvm::StringRef item : llvm::split(options.faults, ';')) {
    if (item.trim().empty())
      continue;
    auto [assignment, kind] = item.trim().rsplit(':');
    if (kind.empty() || !assignment.contains('='))
      return fail("malformed fault '" + item + "' (expected knob=value:kind)");
    build.faults.push_back({assignment.str(), kind.str()});
  }

  // The candidates' files go with the run however it ends (the Tuner's
  // destruction, or an interrupt).
  llvm::Expected<WorkDirectory> dir = WorkDirectory::create("tessel-tune");
  if (!dir)
    return dir.takeError();
  work.emplace(std::move(*dir));
  workDir = work->str();
  build.workDir = workDir;

  // The key: workload, device, schedule content, compiler.
  llvm::Expected<std::string> workload = tessel::workloadKey(payload);
  if (!workload)
    return workload.takeError();
  key.workload = *workload;
  key.scheduleHash = tessel::scheduleHash(*schedule);
  key.compiler = compilerId();
  if (llvm::Error e = setUpMeasurer())
    return e;

  if (options.ptxas == "auto") {
    llvm::ErrorOr<std::string> found = llvm::sys::findProgramByName("ptxas");
    if (!found)
      found = llvm::sys::findProgramByName("ptxas", {"/usr/local/cuda/bin"});
    if (found)
      build.ptxas = *found;
  } else if (options.ptxas != "none") {
    build.ptxas = options.ptxas;
    if (!llvm::StringRef(build.ptxas).contains('/'))
      if (llvm::ErrorOr<std::string> found =
              llvm::sys::findProgramByName(build.ptxas))
        build.ptxas = *found;
    if (!llvm::sys::fs::can_execute(build.ptxas))
      return fail("cannot execute ptxas '" + options.ptxas + "'");
  }

  // A replay records nothing: replayed times are not measurements.
  if (!options.db.empty() && measurer->needsKernels()) {
    llvm::Expected<TuningDatabase> d =
        TuningDatabase::openForWriting(options.db);
    if (!d)
      return d.takeError();
    db = std::move(*d);
  }
  builder.emplace(payload, std::move(build));
  if (llvm::Error e = applyConstraints())
    return e;
  ruleKnobs = ruleDefaults();
  // The search starts from the knobs the compiler picks without a record,
  // so that its first generation holds them and it explores around them
  // (bench/results/tuning, "Starting from the rule's knobs").
  if (options.start == "rule" && ruleKnobs)
    strategy->startFrom(*ruleKnobs);
  return llvm::Error::success();
}

void Tuner::compile(Trial &trial) {
  trial.specPath = builder->build(trial.record.knobs, trial.id, trial.record);
}

void Tuner::measure(Trial &trial, unsigned slot, uint64_t inputSeed) {
  MeasureRequest request;
  request.specPath = trial.specPath;
  request.knobs = trial.record.knobs;
  request.seed = inputSeed;
  measurer->measure(slot, request, trial.record);
  if (measurer->needsKernels())
    trial.record.gpu = measurer->gpu(slot);
}

llvm::Error Tuner::report(const Trial &trial) {
  const TuningRecord &r = trial.record;
  if (r.ok() && r.medianMs < bestMs) {
    bestMs = r.medianMs;
    bestTflops = r.tflops;
  }
  strategy->observe(trial.candidate,
                    r.ok() ? r.medianMs
                           : std::numeric_limits<double>::infinity());
  // The record first: a trial in the log is in the database, even when the
  // tuner is killed right after.
  if (db && trial.origin == Trial::Origin::Compiled)
    if (llvm::Error e = db->add(r))
      return e;
  clearProgress();
  log << llvm::formatv("[tune] {0,4}/{1} {2,-13} ", done.size(), options.budget,
                       r.status);
  if (r.ok())
    log << llvm::formatv("{0,9:f4} ms ", r.medianMs);
  else
    log << "             ";
  log << space->assignment(trial.candidate);
  if (!r.ok())
    log << "  (" << firstLine(r.error) << ")";
  else if (r.spillBytes > 0)
    log << llvm::formatv("  (spills {0} bytes)", r.spillBytes);
  if (std::isfinite(bestMs))
    log << llvm::formatv("  best {0:f4} ms", bestMs);
  log << "\n";
  showProgress();
  log.flush();
  return llvm::Error::success();
}

void Tuner::showProgress() {
  int64_t budget = std::max<int64_t>(options.budget, 1);
  int64_t trials = done.size();
  if (!liveProgress && (options.progress != "lines" ||
                        trials * 10 / budget <= progressLinesShown))
    return;
  progressLinesShown = trials * 10 / budget;
  double elapsedS = msSince(startTime) / 1e3;
  // The time left at the pace so far, within the time budget.
  double leftS = elapsedS / trials * (budget - trials);
  if (options.timeBudgetS > 0)
    leftS = std::min(leftS, std::max(0.0, options.timeBudgetS - elapsedS));
  std::string best =
      std::isfinite(bestMs)
          ? llvm::formatv("best {0:f4} ms ({1:f1} TFLOP/s)", bestMs, bestTflops)
                .str()
          : std::string("no correct candidate yet");
  if (liveProgress)
    log << "\r\x1b[K"; // Back to the line's start, erase it.
  log << llvm::formatv("[tune] {0}/{1} trials, {2}, {3:f1} s elapsed, about "
                       "{4:f0} s left",
                       trials, budget, best, elapsedS, leftS);
  if (liveProgress)
    progressShown = true;
  else
    log << "\n";
}

void Tuner::clearProgress() {
  if (progressShown)
    log << "\r\x1b[K";
  progressShown = false;
}

unsigned Tuner::window() const {
  return 4 * std::max(2u, measurer->slots());
}

llvm::Error Tuner::search() {
  // The pipeline: up to window() trials are in flight, each compiled on the
  // thread pool as soon as it is proposed and measured on a free slot (one
  // GPU each) as soon as it is compiled; trials are reported (and observed
  // by the strategy) in order. Trial j is proposed once trial j - window()
  // has been reported: it sees exactly the observations 0 .. j - window(),
  // whatever the timing, so a seed gives one search, as many GPUs as one or
  // two have (window() grows past two, to keep more GPUs fed).
  struct Flight {
    Trial trial;
    enum State { Compiling, Compiled, Done } state = Compiling;
  };
  std::deque<Flight> flights; // Indexed by trial number; stable addresses.
  std::mutex mutex;
  std::condition_variable changed;
  bool proposing = true;       // Written by this thread, under the mutex.
  std::atomic<bool> aborted{false}; // A report failed: measure no more.
  auto setState = [&](Flight &f, Flight::State to) {
    std::lock_guard<std::mutex> lock(mutex);
    f.state = to;
    changed.notify_all();
  };
  std::optional<llvm::DefaultThreadPool> pool;
  std::atomic<int64_t> measured{0};
  std::atomic<size_t> nextToMeasure{0};
  std::vector<std::thread> threads;
  if (measurer->needsKernels()) {
    pool.emplace(llvm::hardware_concurrency(options.jobs));
    // Each slot takes the next trial in order and waits for its compile.
    for (unsigned slot = 0; slot < measurer->slots(); ++slot)
      threads.emplace_back([&, slot] {
        for (size_t n;;) {
          n = nextToMeasure++;
          Flight *f;
          {
            std::unique_lock<std::mutex> lock(mutex);
            changed.wait(lock, [&] {
              return (n < flights.size() &&
                      flights[n].state != Flight::Compiling) ||
                     (!proposing && n >= flights.size());
            });
            if (n >= flights.size())
              return;
            f = &flights[n];
            if (f->state == Flight::Done) // From the database.
              continue;
          }
          // Not measured: a compile error, or an abort.
          if (f->trial.record.status.empty() && !aborted) {
            measure(f->trial, slot);
            ++measured;
          }
          setState(*f, Flight::Done);
        }
      });
  }
  auto stopProposing = [&] {
    std::lock_guard<std::mutex> lock(mutex);
    proposing = false;
    changed.notify_all();
  };

  llvm::Error error = llvm::Error::success();
  size_t reported = 0;
  while (true) {
    // Propose as far as the window allows.
    while (proposing && (int64_t)flights.size() < options.budget &&
           flights.size() < reported + window()) {
      if (options.timeBudgetS > 0 &&
          msSince(startTime) > options.timeBudgetS * 1e3) {
        clearProgress();
        log << "[tune] time budget reached\n";
        stopProposing();
        break;
      }
      std::vector<Candidate> proposal = strategy->propose(1);
      if (proposal.empty()) {
        stopProposing();
        break;
      }
      Trial t{proposal.front(), {}, nextId++, ""};
      t.record.key = key;
      t.record.knobs = space->values(t.candidate);
      t.record.timestamp = nowIso();
      Flight::State state = Flight::Compiling;
      if (!measurer->needsKernels()) {
        measure(t, 0);
        t.origin = Trial::Origin::Replayed;
        ++replayedCount;
        state = Flight::Done;
      } else if (const TuningRecord *cached =
                     db ? db->find(key, t.record.knobs) : nullptr) {
        t.record = *cached;
        t.origin = Trial::Origin::Cached;
        ++cachedCount;
        state = Flight::Done;
      }
      Flight *f;
      {
        std::lock_guard<std::mutex> lock(mutex);
        f = &flights.emplace_back(Flight{std::move(t), state});
        changed.notify_all();
      }
      if (state == Flight::Compiling)
        pool->async([this, f, &setState] {
          compile(f->trial);
          setState(*f, Flight::Compiled);
        });
    }
    if (reported == flights.size())
      break; // The budget is spent, or nothing is left to propose.
    Flight &f = flights[reported];
    {
      std::unique_lock<std::mutex> lock(mutex);
      changed.wait(lock, [&] { return f.state == Flight::Done; });
    }
    ++reported;
    if (error)
      continue; // Draining after an error: nothing more is recorded.
    done.push_back(f.trial);
    if ((error = report(done.back()))) {
      aborted = true;
      stopProposing();
    }
  }
  stopProposing();
  for (std::thread &t : threads)
    t.join();
  if (pool)
    pool->wait();
  measuredCount += measured;
  return error;
}

void Tuner::printSummary() {
  std::vector<const Trial *> ok;
  std::map<std::string, std::vector<const Trial *>> rejected;
  for (const Trial &t : done) {
    if (t.record.ok())
      ok.push_back(&t);
    else
      rejected[t.record.status].push_back(&t);
  }
  llvm::sort(ok, [](const Trial *a, const Trial *b) {
    return a->record.medianMs < b->record.medianMs;
  });
  log << llvm::formatv(
      "\n[tune] {0}: {1} trials ({2} measured, {3} from the "
      "database{6}), space of {4} candidates ({7} refused by the "
      "constraints), strategy {5}\n",
      key.workload, done.size(), measuredCount, cachedCount, space->size(),
      options.strategy,
      replayedCount ? llvm::formatv(", {0} replayed", replayedCount).str()
                    : std::string(),
      refusedCount);
  log << "[tune] best candidates (verified against the reference):\n";
  for (size_t i = 0; i < std::min<size_t>(ok.size(), 5); ++i)
    log << llvm::formatv("[tune]   {0,9:f4} ms {1,7:f1} TFLOP/s  {2}\n",
                         ok[i]->record.medianMs, ok[i]->record.tflops,
                         space->assignment(ok[i]->candidate));
  for (auto &[status, trials] : rejected)
    log << llvm::formatv("[tune] rejected, {0}: {1}, e.g. {2}: {3}\n", status,
                         trials.size(),
                         space->assignment(trials.front()->candidate),
                         firstLine(trials.front()->record.error));
}

std::optional<Candidate> Tuner::ruleDefaults() {
  std::optional<ProblemShape> problem = parseWorkloadKey(key.workload);
  if (!problem)
    return std::nullopt;
  ChipLimits limits = chipLimits(chip);
  // As --tessel-apply-schedule without a record: the rule's ranking, the
  // first that the schedule accepts.
  for (const Candidate &c :
       rankByRule(*space, *problem, limits, /*fixed=*/{}, /*limit=*/16))
    if (whyRefused(*space, c, *problem, limits).empty())
      return c;
  return std::nullopt;
}

llvm::Expected<const Trial *>
Tuner::chooseWinner(const std::vector<const Trial *> &ranked) {
  // The finalists: the two best of the search and the defaults. Each is
  // measured kRounds times, alternating, on fresh inputs every round, so
  // the winner is checked on more than the inputs it was selected on; a
  // finalist that fails a check is out.
  constexpr int kRounds = 5;
  struct Finalist {
    const Trial *source; // Its trial in the search; null: not measured there.
    Trial trial;
    std::string role;
    bool fromSearch; // One of the two best.
    bool isDefaults;
    std::vector<double> times = {};
    std::string why = {}; // Why it failed (its status and error), or "".
    bool failed() const { return !why.empty(); }
  };
  std::vector<Finalist> finalists;
  for (size_t i = 0; i < std::min<size_t>(ranked.size(), 2); ++i)
    finalists.push_back({ranked[i], *ranked[i],
                         i == 0 ? "best of the search" : "runner-up",
                         /*fromSearch=*/true, /*isDefaults=*/false});
  if (const std::optional<Candidate> &defaults = ruleKnobs) {
    auto same = llvm::find_if(finalists, [&](const Finalist &f) {
      return f.trial.candidate == *defaults;
    });
    if (same != finalists.end()) {
      same->role += ", the defaults";
      same->isDefaults = true;
    } else {
      // Measured in the search (perhaps not correct there), or not at all.
      Trial t;
      t.candidate = *defaults;
      t.record.key = key;
      t.record.knobs = space->values(*defaults);
      t.record.timestamp = nowIso();
      const Trial *searched = nullptr;
      for (const Trial &d : done)
        if (d.candidate == *defaults)
          searched = &d;
      if (searched && !searched->record.ok()) {
        // Knobs that failed once are no candidate, however they do now.
        log << "[tune] the defaults " << space->assignment(*defaults)
            << " failed in the search (" << searched->record.status
            << "): the tuned knobs are kept without comparing\n";
      } else {
        finalists.push_back({searched, t, "the defaults",
                             /*fromSearch=*/false, /*isDefaults=*/true});
      }
    }
  }
  if (finalists.size() < 2)
    return ranked.front();

  // A finalist compiled by this search is measured from its files; the
  // others (records from the database, whose kernels are gone, and the
  // defaults when the search did not try them) are compiled now.
  for (Finalist &f : finalists) {
    const Trial *compiled =
        f.source && f.source->origin == Trial::Origin::Compiled &&
                !f.source->specPath.empty() &&
                llvm::sys::fs::exists(f.source->specPath)
            ? f.source
            : nullptr;
    f.trial.record.status.clear();
    f.trial.specPath = compiled ? compiled->specPath : "";
    if (!compiled)
      f.trial.id = nextId++;
  }
  {
    llvm::DefaultThreadPool pool(llvm::hardware_concurrency(options.jobs));
    for (Finalist &f : finalists)
      if (f.trial.specPath.empty())
        pool.async([this, &f] { compile(f.trial); });
    pool.wait();
  }
  // The rounds run on every slot at once, round r on slot r % slots: each
  // round measures every finalist on one GPU, so the finalists share the
  // GPUs alike.
  for (Finalist &f : finalists)
    if (f.trial.specPath.empty() || !f.trial.record.status.empty())
      f.why = "did not compile (" + f.trial.record.status + ": " +
              firstLine(f.trial.record.error) + ")";
  std::vector<std::vector<Trial>> rounds(kRounds);
  {
    std::vector<std::thread> threads;
    unsigned slots = std::min<unsigned>(measurer->slots(), kRounds);
    for (unsigned slot = 0; slot < slots; ++slot)
      threads.emplace_back([&, slot] {
        for (int round = slot; round < kRounds; round += slots) {
          rounds[round].reserve(finalists.size());
          for (Finalist &f : finalists) {
            Trial &t = rounds[round].emplace_back(f.trial);
            if (!f.failed())
              measure(t, slot, /*inputSeed=*/2 + round);
          }
        }
      });
    for (std::thread &t : threads)
      t.join();
  }
  std::optional<TuningRecord> defaultsRecord;
  for (int round = 0; round < kRounds; ++round)
    for (auto [f, t] : llvm::zip(finalists, rounds[round])) {
      if (f.failed())
        continue;
      if (!t.record.ok()) {
        f.why = "failed on fresh inputs (" + t.record.status + ": " +
                firstLine(t.record.error) + ")";
        continue;
      }
      f.times.push_back(t.record.medianMs);
      if (f.isDefaults && !f.source && !defaultsRecord)
        defaultsRecord = t.record;
    }

  auto median = [](std::vector<double> v) {
    llvm::sort(v);
    return v[v.size() / 2];
  };
  // The noise: the largest spread of one finalist's times, relative to its
  // median.
  double noise = 0;
  for (Finalist &f : finalists)
    if (!f.failed()) {
      auto [lo, hi] = std::minmax_element(f.times.begin(), f.times.end());
      noise = std::max(noise, (*hi - *lo) / median(f.times));
    }
  log << llvm::formatv("[tune] re-measured {0} finalists on fresh inputs, {1} "
                       "rounds each (noise {2:f1}%):\n",
                       finalists.size(), kRounds, 100 * noise);
  for (Finalist &f : finalists) {
    if (f.failed())
      log << "[tune]   failed    ";
    else
      log << llvm::formatv("[tune]   {0,9:f4} ms ", median(f.times));
    log << space->assignment(f.trial.candidate) << "  (" << f.role << ")";
    log << (f.failed() ? ": " + f.why + ": not a winner" : "") << "\n";
  }

  // The fastest of the search's finalists, then against the defaults.
  Finalist *tuned = nullptr, *defaults = nullptr;
  for (Finalist &f : finalists) {
    if (f.failed())
      continue;
    if (f.isDefaults)
      defaults = &f;
    if (f.fromSearch && (!tuned || median(f.times) < median(tuned->times)))
      tuned = &f;
  }
  if (!tuned && !defaults)
    return fail("every finalist (the two best and the defaults) failed the "
                "check on fresh inputs; no verified winner");
  Finalist *chosen = tuned ? tuned : defaults;
  if (tuned && defaults && tuned != defaults) {
    double gain = 1 - median(tuned->times) / median(defaults->times);
    if (gain > noise) {
      log << llvm::formatv("[tune] the tuned knobs beat the defaults by "
                           "{0:f1}%, beyond the noise\n",
                           100 * gain);
    } else if (gain >= 0) {
      log << llvm::formatv("[tune] the tuned knobs are within the noise of "
                           "the defaults ({0:f1}% faster, noise {1:f1}%): "
                           "keeping the defaults\n",
                           100 * gain, 100 * noise);
      chosen = defaults;
    } else {
      log << llvm::formatv("[tune] the search's best is {0:f1}% slower "
                           "than the defaults (noise {1:f1}%): keeping the "
                           "defaults\n",
                           100 * median(tuned->times) / median(defaults->times)
                               - 100,
                           100 * noise);
      chosen = defaults;
    }
  } else if (!tuned) {
    log << "[tune] the search's finalists failed: keeping the defaults\n";
  }
  if (chosen->source)
    return chosen->source;
  // The defaults, never measured correct in the search: their record is
  // the first fresh-input measurement, so that the database can say which
  // knobs won.
  Trial &t = extraFinalists.emplace_back(chosen->trial);
  t.record = *defaultsRecord;
  if (db)
    if (llvm::Error e = db->add(t.record))
      return std::move(e);
  return &t;
}

llvm::Expected<std::map<std::string, std::string>> Tuner::run() {
  Clock::time_point setUpStart = Clock::now();
  if (llvm::Error e = setUp())
    return std::move(e);
  std::string gpus;
  if (measurer->needsKernels() && measurer->slots() > 1)
    gpus = llvm::formatv(" ({0} GPUs)", measurer->slots()).str();
  log << llvm::formatv("[tune] {0} on {1}{7}: {2} knobs, {3} candidates, "
                       "strategy {4}, budget {5}{6}\n",
                       key.workload, key.device, space->knobs().size(),
                       space->size(), options.strategy, options.budget,
                       measurer->needsKernels() ? "" : " (replay)", gpus);
  startTime = Clock::now();
  double setUpS = std::chrono::duration<double>(startTime - setUpStart).count();
  if (llvm::Error e = search()) {
    clearProgress();
    return std::move(e);
  }
  double searchS = msSince(startTime) / 1e3;
  clearProgress();
  printSummary();
  Clock::time_point finalStart = Clock::now();

  std::vector<const Trial *> ok;
  for (const Trial &t : done)
    if (t.record.ok())
      ok.push_back(&t);
  if (ok.empty())
    return fail("no candidate compiled and produced a correct result");
  llvm::sort(ok, [](const Trial *a, const Trial *b) {
    return a->record.medianMs < b->record.medianMs;
  });
  const Trial *winner = ok.front();
  // Noise must not pick the winner, nor keep tuned knobs that are no
  // faster than what the compiler picks without them (not when nothing new
  // was measured: the records were verified when they were made, and a
  // cache hit must not touch the GPU).
  if (measurer->needsKernels() && measuredCount > 0) {
    llvm::Expected<const Trial *> chosen = chooseWinner(ok);
    if (!chosen)
      return chosen.takeError();
    winner = *chosen;
  } else if (const TuningRecord *selected = db ? db->best(key) : nullptr;
             selected && selected->selected) {
    // Nothing new: the verdict of the run that measured these records.
    const Trial *found = nullptr;
    for (const Trial &t : done)
      if (t.record.knobs == selected->knobs)
        found = &t;
    llvm::Expected<Candidate> c = space->parse(selected->knobs);
    if (!found && c) {
      Trial &t = extraFinalists.emplace_back();
      t.candidate = *c;
      t.record = *selected;
      found = &t;
    } else if (!c) {
      llvm::consumeError(c.takeError());
    }
    if (found)
      winner = found;
  }
  log << "[tune] winner: " << space->assignment(winner->candidate) << "\n";
  // Where a run's time went: the workers' start and the constraints, the
  // search (trials per second: the tuner's throughput), the finalists.
  if (measurer->needsKernels())
    log << llvm::formatv("[tune] time: set-up {0:f2} s, search {1:f2} s "
                         "({2} trials, {3:f2} per s), finalists {4:f2} s\n",
                         setUpS, searchS, done.size(),
                         done.size() / std::max(searchS, 1e-9),
                         msSince(finalStart) / 1e3);
  // Readers of the database (db=) get the same verdict, not the record
  // whose single measurement was fastest.
  if (db && measurer->needsKernels())
    if (llvm::Error e = db->select(key, winner->record.knobs))
      return std::move(e);
  return space->values(winner->candidate);
}

llvm::Expected<std::map<std::string, std::string>>
tessel::runTuning(ModuleOp payload, const TuneOptions &options,
                  llvm::raw_ostream &log) {
  Tuner tuner(payload, options, log);
  return tuner.run();
}
