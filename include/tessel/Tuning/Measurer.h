//===- Measurer.h - How the tuner measures its candidates -------*- C++ -*-===//
//
// The tuner compiles candidates and hands their launch specs to a Measurer,
// which runs, checks and times them and records the outcome. Three kinds:
//   - worker: one persistent `tessel-run --serve` process per GPU, which
//     keeps its CUDA context, the inputs and the reference between
//     candidates, and is restarted when a candidate kills it;
//   - process: one `tessel-run --json` process per candidate;
//   - replay: measurements taken from a recorded database (no GPU);
//   - mpi: the other ranks of an MPI job (Mpi.h).
// A runner's answer becomes a record in one place (recordRunnerAnswer).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_TUNING_MEASURER_H
#define TESSEL_TUNING_MEASURER_H

#include "tessel/Tuning/Database.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace tessel {

struct MeasureRequest {
  std::string specPath; // The candidate's launch spec (not for replay).
  std::map<std::string, std::string> knobs; // Replay finds records by them.
  uint64_t seed = 1;                        // Of the random inputs.
};

class Measurer {
public:
  virtual ~Measurer() = default;
  /// The device the measurements are made on, as records name it: "NVIDIA
  /// H100 80GB HBM3 (sm_90)".
  const std::string &device() const { return deviceName; }
  /// Whether candidates must be compiled before they are measured (replay
  /// reads recorded measurements).
  virtual bool needsKernels() const { return true; }
  /// How many measurements may run at once (one per GPU).
  virtual unsigned slots() const { return 1; }
  /// The GPU ordinal of `slot`, recorded with its measurements; -1: none.
  virtual int gpu(unsigned slot) const { return -1; }
  /// The recorded database measurements come from (replay), else null.
  virtual const TuningDatabase *recordings() const { return nullptr; }
  /// Measures the request on `slot` (< slots()) and sets the record's
  /// status (ok, wrong-output, run-error, crash, timeout, not-recorded),
  /// times, relative error, error and measureMs. Calls on different slots
  /// may run concurrently.
  virtual void measure(unsigned slot, const MeasureRequest &request,
                       TuningRecord &record) = 0;

protected:
  /// Sets the device from the names the GPUs gave: an error unless they
  /// are one model.
  llvm::Error setDevice(const std::set<std::string> &names);

  std::string deviceName;
};

struct MeasureOptions {
  std::string runner;       // tessel-run, or a stand-in speaking its JSON.
  std::vector<int> devices; // CUDA ordinals, one slot each.
  /// devices=all: every GPU `runner --list-devices` lists. The worker
  /// measurer starts device 0's worker while the list is made; the others
  /// get `devices` from it.
  bool allDevices = false;
  unsigned timeoutS = 60;   // Per measurement: a hang is killed.
  double warmupMs = 20, repeatMs = 100;
  std::string workDir; // For the processes' output files.
};

/// The ordinals of every GPU `runner --list-devices` lists (devices=all).
llvm::Expected<std::vector<int>> listDevices(const std::string &runner,
                                             llvm::StringRef workDir);

/// Persistent `runner --serve` workers, one per device, started now (so
/// that no GPU, or a device of another model, is an error here).
llvm::Expected<std::unique_ptr<Measurer>>
createWorkerMeasurer(const MeasureOptions &options);

/// One `runner --json` process per measurement.
llvm::Expected<std::unique_ptr<Measurer>>
createProcessMeasurer(const MeasureOptions &options);

/// Measurements of `workload` taken from the database at `path`, recorded
/// on `device` (empty: the only device it has records of `workload` for).
llvm::Expected<std::unique_ptr<Measurer>>
createReplayMeasurer(llvm::StringRef path, llvm::StringRef workload,
                     llvm::StringRef device);

/// Records a runner's JSON answer (tessel-run --json's object): a valid
/// result sets the times and the status, ok when the output was checked and
/// passed and `runnerSaysWrong` is false, wrong-output otherwise; an answer
/// with invalid times or fields is a run-error naming the field.
void recordRunnerAnswer(const llvm::json::Object &answer, bool runnerSaysWrong,
                        llvm::StringRef runner, TuningRecord &record);

} // namespace tessel

#endif // TESSEL_TUNING_MEASURER_H
