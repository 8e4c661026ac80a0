//===- Database.h - Tuning records ------------------------------*- C++ -*-===//
//
// Tuning records. A record is one candidate measured (or rejected) for one
// workload on one device, with one schedule (content hash) and one compiler
// version: changing any of those, or adding a knob value, re-measures only
// what is new.
//
// Two formats hold the same records (docs/tuning.md):
// - a SQLite database, the one the tuner writes: each record is one row
//   written in its own transaction, so several processes can add records to
//   one file at once without losing any, and a kill -9 at any moment leaves
//   every committed record;
// - a JSON file, reviewable text (schedules/tuned/), read like the other and
//   written only whole, by tessel-db export.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_TUNING_DATABASE_H
#define TESSEL_TUNING_DATABASE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <map>
#include <memory>
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
  /// ok, wrong-output, compile-error, run-error, crash, timeout (and spills:
  /// candidates that spilled, not measured before 2026-11-26).
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

/// A record as the JSON object both formats hold (and MPI ranks send).
llvm::json::Value toJSON(const TuningRecord &record);
bool fromJSON(const llvm::json::Value &value, TuningRecord &record,
              llvm::json::Path path);

/// The compiler part of the key: "tessel 0.1.0, LLVM 22.1.8".
std::string compilerId();

class TuningDatabase {
public:
  TuningDatabase();
  TuningDatabase(TuningDatabase &&);
  TuningDatabase &operator=(TuningDatabase &&);
  ~TuningDatabase();

  /// Reads `path`, SQLite or JSON (told apart by content); a missing file is
  /// an empty database. A file that is not a Tessel tuning database
  /// (corrupt, another application's SQLite file, another format or
  /// version) is an error, and it is never written.
  static llvm::Expected<TuningDatabase> open(llvm::StringRef path);
  /// Opens `path` to add records: a SQLite database, created when missing.
  /// A JSON database is refused (it is written only whole, by export), and
  /// so is any file `open` refuses.
  static llvm::Expected<TuningDatabase> openForWriting(llvm::StringRef path);

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

  /// Adds or replaces the record of the same key and knobs, in one
  /// transaction of the SQLite file (openForWriting).
  llvm::Error add(const TuningRecord &record);
  /// Adds `records` in one transaction (import); a selected record among
  /// them unmarks the others of its key.
  llvm::Error addAll(llvm::ArrayRef<TuningRecord> records);

  /// Adds or replaces the record of the same key and knobs in memory only
  /// (an export gathers records this way).
  void remember(const TuningRecord &record);
  /// The records as a JSON database (the reviewable format).
  std::string toJSONText() const;

private:
  struct Sqlite;
  std::string path;
  std::vector<TuningRecord> recordList;
  /// The open SQLite file; null when read-only.
  std::unique_ptr<Sqlite> sqlite;
  llvm::Error openSqlite(bool create);
  /// Marks the record of `key` with `knobs` selected and unmarks the others
  /// of `key`, inside an open transaction.
  llvm::Error markSelected(const TuningKey &key,
                           const std::map<std::string, std::string> &knobs);
};

} // namespace tessel

#endif // TESSEL_TUNING_DATABASE_H
