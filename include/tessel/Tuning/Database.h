//===- Database.h - Tuning records ------------------------------*- C++ -*-===//
//
// One JSON file of tuning records. A record is one candidate measured (or
// rejected) for one workload on one device, with one schedule (content hash)
// and one compiler version: changing any of those, or adding a knob value,
// re-measures only what is new. Writes are atomic (temporary file + rename),
// so a kill at any moment leaves the previous or the new valid file.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_TUNING_DATABASE_H
#define TESSEL_TUNING_DATABASE_H

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tessel {

/// What identifies a tuning problem; records match on all four.
struct TuningKey {
  std::string workload;     // "matmul_relu 4096x4096x4096 f16 acc=f32"
  std::string device;       // "NVIDIA H200 (sm_90)"
  std::string scheduleHash; // tessel::scheduleHash of the schedule
  std::string compiler;     // "tessel 0.1.0, LLVM 22.1.8"
  bool operator==(const TuningKey &o) const {
    return workload == o.workload && device == o.device &&
           scheduleHash == o.scheduleHash && compiler == o.compiler;
  }
};

struct TuningRecord {
  TuningKey key;
  std::map<std::string, std::string> knobs;
  /// ok, wrong-output, compile-error, spills, run-error, crash, timeout.
  std::string status;
  double medianMs = 0, minMs = 0, maxMs = 0, tflops = 0;
  double relativeError = 0;
  double compileMs = 0, measureMs = 0;
  int64_t registers = -1, spillBytes = -1; // From ptxas -v; -1: unknown.
  std::string error;                       // First line(s) of why it failed.
  std::string timestamp;                   // ISO 8601, UTC.
  /// The CUDA ordinal of the GPU that measured it (several may share a
  /// run: devices=); -1: unknown, or not measured.
  int64_t gpu = -1;
  /// The tuner's verdict: the winner after its finalists were re-measured
  /// on fresh inputs (one per key), which `best` returns over a record whose
  /// single measurement happened to be faster.
  bool selected = false;

  bool ok() const { return status == "ok"; }
};

/// The compiler part of the key: "tessel 0.1.0, LLVM 22.1.8".
std::string compilerId();

class TuningDatabase {
public:
  /// Opens `path`; a missing file is an empty database. A file that is not
  /// a Tessel tuning database (corrupt JSON, another format or version) is
  /// an error, and it is never overwritten.
  static llvm::Expected<TuningDatabase> open(llvm::StringRef path);

  const TuningRecord *
  find(const TuningKey &key,
       const std::map<std::string, std::string> &knobs) const;
  /// The record the tuner selected for `key`, else the fastest correct one.
  const TuningRecord *best(const TuningKey &key) const;
  /// Marks the record of `key` with `knobs` as the tuner's winner (and no
  /// other record of `key`) and saves; an error if there is no such record.
  llvm::Error select(const TuningKey &key,
                     const std::map<std::string, std::string> &knobs);
  /// The devices with records for `workload`, schedule and compiler.
  std::vector<std::string> devicesFor(const TuningKey &keyWithoutDevice) const;
  /// Records matching the workload and device, whatever the schedule hash
  /// and compiler (replay uses a recorded run of another build).
  std::vector<const TuningRecord *> matching(llvm::StringRef workload,
                                             llvm::StringRef device) const;
  const std::vector<TuningRecord> &records() const { return recordList; }

  /// Adds or replaces the record of the same key and knobs, then writes the
  /// whole file atomically.
  llvm::Error add(const TuningRecord &record);
  llvm::Error save() const;

private:
  std::string path;
  std::vector<TuningRecord> recordList;
};

} // namespace tessel

#endif // TESSEL_TUNING_DATABASE_H
