//===- Database.cpp - Tuning records --------------------------------------===//

#include "tessel/Tuning/Database.h"
#include "tessel/Runtime/InputFiles.h"

#include "tessel/Version.h"

#include "llvm/Config/llvm-config.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <sqlite3.h>

using namespace tessel;
using llvm::json::Object;
using llvm::json::Value;

static constexpr llvm::StringLiteral kFormat = "tessel-tuning-db";
static constexpr int64_t kVersion = 1;

static llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

Value tessel::toJSON(const TuningRecord &r) {
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
bool fromJSON(const Value &value, TuningRecord &r, llvm::json::Path path) {
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

/// Reads the JSON database `path` into `records`.
static llvm::Error readJSON(llvm::StringRef path,
                            std::vector<TuningRecord> &records) {
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
  const Value *value = root->get("records");
  if (!value ||
      !llvm::json::fromJSON(*value, records,
                            llvm::json::Path(jsonRoot).field("records"))) {
    std::string message = "missing records";
    if (value)
      message = llvm::toString(jsonRoot.getError());
    return fail(path + ": corrupt tuning database: " + message +
                "; it is left untouched");
  }
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// SQLite
//===----------------------------------------------------------------------===//

/// "TSDB": PRAGMA application_id of a Tessel tuning database, so that another
/// application's SQLite file is refused rather than written.
static constexpr int64_t kApplicationId = 0x54534442;
/// PRAGMA user_version: the schema.
static constexpr int64_t kSchemaVersion = 1;

/// One row per record: the key and knobs as columns (the unique key of an
/// upsert) and the whole record as the JSON object the JSON format holds,
/// so that both formats are parsed by one fromJSON. The `trials` view shows
/// the usual fields for `sqlite3 tuning.db 'select * from trials'`.
static constexpr llvm::StringLiteral kSchema = R"sql(
CREATE TABLE records(
  id INTEGER PRIMARY KEY,
  workload TEXT NOT NULL,
  device TEXT NOT NULL,
  schedule_hash TEXT NOT NULL,
  compiler TEXT NOT NULL,
  knobs TEXT NOT NULL,
  record TEXT NOT NULL,
  UNIQUE(workload, device, schedule_hash, compiler, knobs));
CREATE VIEW trials AS SELECT id, workload, device, knobs,
  json_extract(record, '$.status') AS status,
  json_extract(record, '$.median_ms') AS median_ms,
  json_extract(record, '$.tflops') AS tflops,
  json_extract(record, '$.gpu') AS gpu,
  json_extract(record, '$.selected') AS selected,
  json_extract(record, '$.timestamp') AS timestamp
  FROM records;
)sql";

namespace {
/// A prepared statement, finalized on scope exit.
class Statement {
public:
  Statement(sqlite3 *db, llvm::StringRef sql) {
    sqlite3_prepare_v2(db, sql.data(), sql.size(), &stmt, nullptr);
  }
  ~Statement() { sqlite3_finalize(stmt); }
  explicit operator bool() const { return stmt; }
  void bind(int index, llvm::StringRef text) {
    sqlite3_bind_text(stmt, index, text.data(), text.size(), SQLITE_TRANSIENT);
  }
  void bind(int index, int64_t value) {
    sqlite3_bind_int64(stmt, index, value);
  }
  int step() { return sqlite3_step(stmt); }
  llvm::StringRef text(int column) {
    const unsigned char *t = sqlite3_column_text(stmt, column);
    return t ? llvm::StringRef(reinterpret_cast<const char *>(t),
                               sqlite3_column_bytes(stmt, column))
             : llvm::StringRef();
  }
  int64_t integer(int column) { return sqlite3_column_int64(stmt, column); }

private:
  sqlite3_stmt *stmt = nullptr;
};
} // namespace

struct TuningDatabase::Sqlite {
  sqlite3 *handle = nullptr;
  std::string path;
  ~Sqlite() { sqlite3_close_v2(handle); }

  llvm::Error error(const llvm::Twine &what) const {
    return fail(path + ": " + what + ": " + sqlite3_errmsg(handle));
  }
  /// Runs `sql` (statements without results).
  llvm::Error exec(llvm::StringRef sql) const {
    if (sqlite3_exec(handle, sql.str().c_str(), nullptr, nullptr, nullptr) !=
        SQLITE_OK)
      return error("SQLite error");
    return llvm::Error::success();
  }
  /// The integer a PRAGMA returns.
  llvm::Expected<int64_t> pragma(llvm::StringRef name) const {
    Statement statement(handle, ("PRAGMA " + name).str());
    if (!statement || statement.step() != SQLITE_ROW)
      return error("not a Tessel tuning database");
    return statement.integer(0);
  }
};

/// Whether `path` is a regular file that starts with SQLite's header.
static bool isSqliteFile(llvm::StringRef path) {
  if (!llvm::sys::fs::is_regular_file(path))
    return false;
  llvm::Expected<llvm::sys::fs::file_t> fd =
      llvm::sys::fs::openNativeFileForRead(path);
  if (!fd) {
    llvm::consumeError(fd.takeError());
    return false;
  }
  char header[16] = {};
  llvm::Expected<size_t> n = llvm::sys::fs::readNativeFile(
      *fd, llvm::MutableArrayRef<char>(header, sizeof(header)));
  llvm::sys::fs::closeFile(*fd);
  if (!n) {
    llvm::consumeError(n.takeError());
    return false;
  }
  return *n == sizeof(header) && llvm::StringRef(header, sizeof(header)) ==
                                     llvm::StringRef("SQLite format 3\0", 16);
}

static std::string knobsText(const std::map<std::string, std::string> &knobs) {
  Object o;
  for (const auto &[name, value] : knobs)
    o[name] = value;
  return llvm::formatv("{0}", Value(std::move(o))).str();
}

static std::string recordText(const TuningRecord &r) {
  return llvm::formatv("{0}", toJSON(r)).str();
}

/// Parses one row's record.
static llvm::Error parseRecord(llvm::StringRef path, int64_t id,
                               llvm::StringRef text, TuningRecord &record) {
  llvm::Expected<Value> json = parseJson(text);
  llvm::json::Path::Root root("record");
  if (json && fromJSON(*json, record, root))
    return llvm::Error::success();
  std::string message =
      json ? llvm::toString(root.getError()) : llvm::toString(json.takeError());
  return fail(path + ": corrupt tuning database: record " + llvm::Twine(id) +
              ": " + message + "; it is left untouched");
}

TuningDatabase::TuningDatabase() = default;
TuningDatabase::TuningDatabase(TuningDatabase &&) = default;
TuningDatabase &TuningDatabase::operator=(TuningDatabase &&) = default;
TuningDatabase::~TuningDatabase() = default;

llvm::Error TuningDatabase::openSqlite(bool create) {
  auto db = std::make_unique<Sqlite>();
  db->path = path;
  // Read-write whenever the file allows it: a reader may have to roll back
  // the journal a killed writer left. Nothing else is written unless this
  // is a Tessel database.
  int flags = create ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
              : llvm::sys::fs::access(path, llvm::sys::fs::AccessMode::Write)
                  ? SQLITE_OPEN_READONLY
                  : SQLITE_OPEN_READWRITE;
  if (sqlite3_open_v2(path.c_str(), &db->handle, flags, nullptr) != SQLITE_OK)
    return db->error("cannot open tuning database");
  // Writers wait for each other: one record is a short transaction.
  sqlite3_busy_timeout(db->handle, 60000);

  llvm::Expected<int64_t> application = db->pragma("application_id");
  if (!application)
    return application.takeError();
  if (*application == 0 && create) {
    // A new file, or one a concurrent writer is creating: the first to take
    // the write lock creates the schema, the others then find it.
    if (llvm::Error e = db->exec("BEGIN IMMEDIATE"))
      return e;
    llvm::Expected<int64_t> tables = db->pragma("schema_version");
    application = db->pragma("application_id");
    if (!tables || !application) {
      (void)db->exec("ROLLBACK");
      return tables ? application.takeError() : tables.takeError();
    }
    if (*application == 0 && *tables == 0) {
      if (llvm::Error e =
              db->exec((kSchema + llvm::formatv("PRAGMA application_id = {0};"
                                                "PRAGMA user_version = {1};",
                                                kApplicationId, kSchemaVersion)
                                      .str())
                           .str())) {
        (void)db->exec("ROLLBACK");
        return e;
      }
      application = kApplicationId;
    }
    if (llvm::Error e = db->exec("COMMIT"))
      return e;
  }
  if (*application != kApplicationId)
    return fail(path + ": not a Tessel tuning database (a SQLite file of "
                       "another application); it is left untouched");
  llvm::Expected<int64_t> version = db->pragma("user_version");
  if (!version)
    return version.takeError();
  if (*version != kSchemaVersion)
    return fail(path + ": tuning database version " + llvm::Twine(*version) +
                " is not supported (expected " + llvm::Twine(kSchemaVersion) +
                ")");
  Statement rows(db->handle, "SELECT id, record FROM records ORDER BY id");
  if (!rows)
    return db->error("corrupt tuning database; it is left untouched");
  int status;
  while ((status = rows.step()) == SQLITE_ROW) {
    TuningRecord record;
    if (llvm::Error e =
            parseRecord(path, rows.integer(0), rows.text(1), record))
      return e;
    recordList.push_back(std::move(record));
  }
  if (status != SQLITE_DONE)
    return db->error("cannot read tuning database");
  if (create)
    sqlite = std::move(db);
  return llvm::Error::success();
}

/// Whether `path` is an empty regular file: a SQLite database that another
/// process has just created and not yet written (SQLite creates the file
/// when it opens it), which holds no records.
static bool isEmptyFile(llvm::StringRef path) {
  uint64_t size = 0;
  return llvm::sys::fs::is_regular_file(path) &&
         !llvm::sys::fs::file_size(path, size) && size == 0;
}

llvm::Expected<TuningDatabase> TuningDatabase::open(llvm::StringRef path) {
  TuningDatabase db;
  db.path = path.str();
  if (!llvm::sys::fs::exists(path) || isEmptyFile(path))
    return db;
  llvm::Error e = isSqliteFile(path) ? db.openSqlite(/*create=*/false)
                                     : readJSON(path, db.recordList);
  if (e)
    return std::move(e);
  return db;
}

llvm::Expected<TuningDatabase>
TuningDatabase::openForWriting(llvm::StringRef path) {
  // A file that does not exist yet, or that a concurrent tuner has just
  // created, becomes a SQLite database here.
  bool exists = llvm::sys::fs::exists(path) && !isEmptyFile(path);
  if (exists ? !isSqliteFile(path) : path.ends_with(".json")) {
    // Say why a file that is not SQLite cannot take records: it is not a
    // database at all, or a JSON one.
    if (exists)
      if (llvm::Expected<TuningDatabase> json = open(path); !json)
        return json.takeError();
    return fail(path + ": a JSON tuning database is written only whole (by "
                       "tessel-db export); record trials in a SQLite one "
                       "(any other file name, e.g. db=tuning.db) and export "
                       "it");
  }
  TuningDatabase db;
  db.path = path.str();
  if (llvm::Error e = db.openSqlite(/*create=*/true))
    return std::move(e);
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
  if (!sqlite)
    return fail("'" + path + "' is not open for writing");
  // Read, mark and write the key's rows in one transaction: another process
  // may have added records of the same key since this one was opened.
  if (llvm::Error e = sqlite->exec("BEGIN IMMEDIATE"))
    return e;
  if (llvm::Error e = markSelected(key, knobs)) {
    (void)sqlite->exec("ROLLBACK");
    return e;
  }
  if (llvm::Error e = sqlite->exec("COMMIT")) {
    (void)sqlite->exec("ROLLBACK");
    return e;
  }
  return llvm::Error::success();
}

llvm::Error
TuningDatabase::markSelected(const TuningKey &key,
                             const std::map<std::string, std::string> &knobs) {
  Statement rows(sqlite->handle,
                 "SELECT id, record FROM records WHERE workload = ?1 AND "
                 "device = ?2 AND schedule_hash = ?3 AND compiler = ?4");
  rows.bind(1, key.workload);
  rows.bind(2, key.device);
  rows.bind(3, key.scheduleHash);
  rows.bind(4, key.compiler);
  std::vector<std::pair<int64_t, TuningRecord>> changed;
  bool found = false;
  int status;
  while ((status = rows.step()) == SQLITE_ROW) {
    TuningRecord r;
    if (llvm::Error e = parseRecord(path, rows.integer(0), rows.text(1), r))
      return e;
    bool selected = r.knobs == knobs && r.ok();
    found |= selected;
    if (selected != r.selected) {
      r.selected = selected;
      changed.emplace_back(rows.integer(0), std::move(r));
    }
  }
  if (status != SQLITE_DONE)
    return sqlite->error("cannot read tuning database");
  if (!found)
    return fail("no correct record of the winner to select in '" + path + "'");
  for (auto &[id, r] : changed) {
    Statement update(sqlite->handle,
                     "UPDATE records SET record = ?1 WHERE id = ?2");
    update.bind(1, recordText(r));
    update.bind(2, id);
    if (update.step() != SQLITE_DONE)
      return sqlite->error("cannot write tuning database");
  }
  for (TuningRecord &r : recordList)
    if (r.key == key)
      r.selected = r.knobs == knobs && r.ok();
  return llvm::Error::success();
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

void TuningDatabase::remember(const TuningRecord &record) {
  // One selected record per key: a selected one added unmarks the others.
  if (record.selected)
    for (TuningRecord &r : recordList)
      if (r.key == record.key)
        r.selected = false;
  for (TuningRecord &r : recordList)
    if (r.key == record.key && r.knobs == record.knobs) {
      r = record;
      return;
    }
  recordList.push_back(record);
}

llvm::Error TuningDatabase::add(const TuningRecord &record) {
  return addAll(record);
}

llvm::Error TuningDatabase::addAll(llvm::ArrayRef<TuningRecord> records) {
  if (!sqlite)
    return fail("'" + path + "' is not open for writing");
  if (llvm::Error e = sqlite->exec("BEGIN IMMEDIATE"))
    return e;
  for (const TuningRecord &r : records) {
    Statement insert(
        sqlite->handle,
        "INSERT INTO records(workload, device, schedule_hash, compiler, "
        "knobs, record) VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT(workload, "
        "device, schedule_hash, compiler, knobs) DO UPDATE SET record = "
        "excluded.record");
    insert.bind(1, r.key.workload);
    insert.bind(2, r.key.device);
    insert.bind(3, r.key.scheduleHash);
    insert.bind(4, r.key.compiler);
    insert.bind(5, knobsText(r.knobs));
    insert.bind(6, recordText(r));
    if (insert.step() != SQLITE_DONE) {
      llvm::Error e = sqlite->error("cannot write tuning database");
      (void)sqlite->exec("ROLLBACK");
      return e;
    }
  }
  // One selected record per key: an added selected record unmarks the
  // others of its key (an import of another run's verdict).
  for (const TuningRecord &r : records)
    if (r.selected && r.ok())
      if (llvm::Error e = markSelected(r.key, r.knobs)) {
        (void)sqlite->exec("ROLLBACK");
        return e;
      }
  if (llvm::Error e = sqlite->exec("COMMIT")) {
    (void)sqlite->exec("ROLLBACK");
    return e;
  }
  for (const TuningRecord &r : records)
    remember(r);
  return llvm::Error::success();
}

std::string TuningDatabase::toJSONText() const {
  llvm::json::Array records;
  for (const TuningRecord &r : recordList)
    records.push_back(toJSON(r));
  Value root = Object{{"format", kFormat},
                      {"version", kVersion},
                      {"records", std::move(records)}};
  return llvm::formatv("{0:1}\n", root).str();
}
