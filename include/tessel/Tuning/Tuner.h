//===- Tuner.h - Compile, run and rank a schedule's candidates --*- C++ -*-===//

#ifndef TESSEL_TUNING_TUNER_H
#define TESSEL_TUNING_TUNER_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <string>

namespace tessel {

struct TuneOptions {
  std::string schedule, entry = "__transform_main";
  std::string strategy = "evolutionary";
  /// The search's first candidate: "rule" (the knob rule's pick, as the
  /// compiler makes it without a record; the schedule's defaults where the
  /// workload is not modeled) or "defaults" (the schedule's).
  std::string start = "rule";
  int64_t budget = 100;   // Trials (cached ones included).
  double timeBudgetS = 0; // Wall-clock limit; 0: none.
  std::string db;         // Tuning database (SQLite); empty: none.
  uint64_t seed = 1;
  unsigned jobs = 0;  // Compile threads; 0: one per core.
  std::string runner; // tessel-run; empty: next to this executable.
  int deviceOrdinal = 0;
  /// GPUs that measure candidates at once, one worker each: "0,1", "all";
  /// empty: deviceOrdinal alone.
  std::string devices;
  /// "worker": a persistent `tessel-run --serve` per GPU; "process": one
  /// `tessel-run --json` per candidate; "mpi": the other ranks of an MPI
  /// job measure (Mpi.h).
  std::string measure = "worker";
  /// "auto": a live status line (trials, best, elapsed, time left) when the
  /// log is a terminal; "lines": a progress line every tenth of the budget;
  /// "none".
  std::string progress = "auto";
  unsigned timeoutS = 60; // Per measurement (hangs are killed).
  double warmupMs = 20, repeatMs = 100;
  std::string chip, features = "+ptx80"; // chip: default the schedule's.
  /// ptxas for register and spill counts: "auto" (PATH, then
  /// /usr/local/cuda/bin), "none", or a path. Candidates that spill are
  /// rejected before measurement.
  std::string ptxas = "auto";
  /// Replay: take measurements from this recorded database instead of the
  /// GPU (for testing and comparing strategies without one).
  std::string replay;
  std::string replayDevice; // Which device's records; empty: the only one.
  /// Test hook: "knob=value:kind;..." corrupts the PTX of matching
  /// candidates before measurement (kind: hang, illegal-address, wrong).
  std::string faults;
};

/// Searches the schedule's knobs for `payload` (left unchanged) and returns
/// the fastest verified knob values. Progress and the final table go to
/// `log`. Errors: bad options, an unrecognized workload, a schedule without
/// knobs, a corrupt database, no GPU (unless replaying), no valid candidate.
llvm::Expected<std::map<std::string, std::string>>
runTuning(mlir::ModuleOp payload, const TuneOptions &options,
          llvm::raw_ostream &log);

} // namespace tessel

#endif // TESSEL_TUNING_TUNER_H
