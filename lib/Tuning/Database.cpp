//===- Database.cpp - Tuning records --------------------------------------===//

#include "tessel/Tuning/Database.h"
#include "tessel/Runtime/InputFiles.h"

#include "tessel/Version.h"

#include "llvm/Config/llvm-config.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

using namespace tessel;
using llvm::json::Object;
using llvm::json::Value;

static constexpr llvm::StringLiteral kFormat = "tessel-tuning-db";
static constexpr int64_t kVersion = 1;

static llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

static Value toJSON(const TuningRecord &r) {
  Object knobs;
  for (const auto &[name, value] : r.knobs)
    knobs[name] = value;
  Object o{{"workload", r.key.workload},
           {"device", r.key.device},
           {"schedule_hash", r.key.scheduleHash},
           {"compiler", r.key.compiler},
           {"knobs", std::move(knobs)},
           {"status", r.status},
           {"median_ms", r.medianMs},
           {"min_ms", r.minMs},
           {"max_ms", r.maxMs},
           {"tflops", r.tflops},
           {"relative_error", r.relativeError},
           {"compile_ms", r.compileMs},
           {"measure_ms", r.measureMs},
           {"registers", r.registers},
           {"spill_bytes", r.spillBytes},
           {"error", r.error},
           {"timestamp", r.timestamp},
           {"selected", r.selected}};
  if (r.gpu >= 0)
    o["gpu"] = r.gpu;
  return o;
}

namespace tessel {
static bool fromJSON(const Value &value, TuningRecord &r,
                     llvm::json::Path path) {
  llvm::json::ObjectMapper o(value, path);
  return o && o.map("workload", r.key.workload) &&
         o.map("device", r.key.device) &&
         o.map("schedule_hash", r.key.scheduleHash) &&
         o.map("compiler", r.key.compiler) && o.map("knobs", r.knobs) &&
         o.map("status", r.status) && o.mapOptional("median_ms", r.medianMs) &&
         o.mapOptional("min_ms", r.minMs) && o.mapOptional("max_ms", r.maxMs) &&
         o.mapOptional("tflops", r.tflops) &&
         o.mapOptional("relative_error", r.relativeError) &&
         o.mapOptional("compile_ms", r.compileMs) &&
         o.mapOptional("measure_ms", r.measureMs) &&
         o.mapOptional("registers", r.registers) &&
         o.mapOptional("spill_bytes", r.spillBytes) &&
         o.mapOptional("error", r.error) &&
         o.mapOptional("timestamp", r.timestamp) &&
         o.mapOptional("selected", r.selected) && o.mapOptional("gpu", r.gpu);
}
} // namespace tessel

std::string tessel::compilerId() {
  return llvm::formatv("tessel {0}, LLVM {1}", tessel::getVersion(),
                       LLVM_VERSION_STRING)
      .str();
}

std::vector<std::string> TuningDatabase::devicesFor(const TuningKey &k) const {
  std::vector<std::string> devices;
  for (const TuningRecord &r : recordList)
    if (r.key.workload == k.workload && r.key.scheduleHash == k.scheduleHash &&
        r.key.compiler == k.compiler &&
        !llvm::is_contained(devices, r.key.device))
      devices.push_back(r.key.device);
  return devices;
}

llvm::Expected<TuningDatabase> TuningDatabase::open(llvm::StringRef path) {
  TuningDatabase db;
  db.path = path.str();
  if (!llvm::sys::fs::exists(path))
    return db;
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> file =
      readInputFile(path);
  if (!file)
    return file.takeError();
  llvm::Expected<Value> json = parseJson((*file)->getBuffer());
  if (!json)
    return fail(path + ": not a Tessel tuning database (invalid JSON: " +
                llvm::toString(json.takeError()) + "); it is left untouched");
  const Object *root = json->getAsObject();
  if (!root || root->getString("format") != kFormat)
    return fail(path + ": not a Tessel tuning database (no \"format\": \"" +
                kFormat + "\"); it is left untouched");
  if (root->getInteger("version") != kVersion)
    return fail(path + ": tuning database version " +
                llvm::Twine(root->getInteger("version").value_or(-1)) +
                " is not supported (expected " + llvm::Twine(kVersion) + ")");
  llvm::json::Path::Root jsonRoot("database");
  const Value *records = root->get("records");
  if (!records ||
      !llvm::json::fromJSON(*records, db.recordList,
                            llvm::json::Path(jsonRoot).field("records"))) {
    std::string message = "missing records";
    if (records)
      message = llvm::toString(jsonRoot.getError());
    return fail(path + ": corrupt tuning database: " + message +
                "; it is left untouched");
  }
  return db;
}

const TuningRecord *
TuningDatabase::find(const TuningKey &key,
                     const std::map<std::string, std::string> &knobs) const {
  for (const TuningRecord &r : recordList)
    if (r.key == key && r.knobs == knobs)
      return &r;
  return nullptr;
}

const TuningRecord *TuningDatabase::best(const TuningKey &key) const {
  const TuningRecord *best = nullptr;
  for (const TuningRecord &r : recordList) {
    if (!(r.key == key) || !r.ok())
      continue;
    if (r.selected)
      return &r;
    if (!best || r.medianMs < best->medianMs)
      best = &r;
  }
  return best;
}

llvm::Error
TuningDatabase::select(const TuningKey &key,
                       const std::map<std::string, std::string> &knobs) {
  bool found = false;
  for (TuningRecord &r : recordList) {
    if (!(r.key == key))
      continue;
    r.selected = r.knobs == knobs && r.ok();
    found |= r.selected;
  }
  if (!found)
    return fail("no correct record of the winner to select in '" + path + "'");
  return save();
}

std::vector<const TuningRecord *>
TuningDatabase::matching(llvm::StringRef workload,
                         llvm::StringRef device) const {
  std::vector<const TuningRecord *> result;
  for (const TuningRecord &r : recordList)
    if (r.key.workload == workload && r.key.device == device)
      result.push_back(&r);
  return result;
}

llvm::Error TuningDatabase::add(const TuningRecord &record) {
  bool replaced = false;
  for (TuningRecord &r : recordList)
    if (r.key == record.key && r.knobs == record.knobs) {
      r = record;
      replaced = true;
    }
  if (!replaced)
    recordList.push_back(record);
  return save();
}

llvm::Error TuningDatabase::save() const {
  llvm::json::Array records;
  for (const TuningRecord &r : recordList)
    records.push_back(toJSON(r));
  Value root = Object{{"format", kFormat},
                      {"version", kVersion},
                      {"records", std::move(records)}};
  // Write a sibling temporary file, then rename it over the database: the
  // rename is atomic, so readers (and a kill -9) see one whole file.
  llvm::SmallString<256> temp(path);
  temp += llvm::formatv(".tmp{0}", llvm::sys::Process::getProcessId()).str();
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(temp, ec);
    if (ec)
      return fail("cannot write '" + temp + "': " + ec.message());
    os << llvm::formatv("{0:1}", root) << "\n";
    os.close();
    if (os.has_error())
      return fail("cannot write '" + temp + "': " + os.error().message());
  }
  if (std::error_code ec = llvm::sys::fs::rename(temp, path))
    return fail("cannot replace '" + path + "': " + ec.message());
  return llvm::Error::success();
}
