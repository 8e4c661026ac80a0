//===- tessel-db.cpp - Tuning database import and export ------------------===//
//
// The tuner records trials in a SQLite database; the records committed in
// schedules/tuned/ are JSON text, reviewable in a diff. This tool moves
// records between the two (docs/tuning.md):
//
//   tessel-db export tuning.db -o schedules/tuned/x.json [--workload=W]
//   tessel-db import schedules/tuned/x.json -o tuning.db
//   tessel-db list tuning.db
//
//===----------------------------------------------------------------------===//

#include "tessel/Tuning/Database.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace tessel;
namespace cl = llvm::cl;

static cl::SubCommand
    exportCommand("export",
                  "Write a database's records as a JSON tuning database");
static cl::SubCommand importCommand(
    "import", "Add the records of databases (JSON or SQLite) to a SQLite one");
static cl::SubCommand listCommand("list", "Print one line per record");

static cl::list<std::string> inputs(cl::Positional, cl::OneOrMore,
                                    cl::desc("<database>..."),
                                    cl::sub(exportCommand),
                                    cl::sub(importCommand),
                                    cl::sub(listCommand));
static cl::opt<std::string>
    output("o",
           cl::desc("export: the JSON file (default: stdout); import: "
                    "the SQLite database to add to (created if missing)"),
           cl::value_desc("path"), cl::sub(exportCommand),
           cl::sub(importCommand));
static cl::opt<std::string>
    workload("workload",
             cl::desc("only the records whose workload contains this text"),
             cl::sub(exportCommand), cl::sub(listCommand));

/// The records of every input, in order, filtered by --workload.
static llvm::Expected<std::vector<TuningRecord>> readInputs() {
  std::vector<TuningRecord> records;
  for (const std::string &path : inputs) {
    if (!llvm::sys::fs::exists(path))
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "'" + path + "': no such file");
    llvm::Expected<TuningDatabase> db = TuningDatabase::open(path);
    if (!db)
      return db.takeError();
    for (const TuningRecord &r : db->records())
      if (llvm::StringRef(r.key.workload).contains(workload))
        records.push_back(r);
  }
  return records;
}

static llvm::Error exportRecords() {
  llvm::Expected<std::vector<TuningRecord>> records = readInputs();
  if (!records)
    return records.takeError();
  // A JSON database holds one record per key and knobs: the last one read
  // wins, as an import into SQLite would have it.
  TuningDatabase merged;
  for (const TuningRecord &r : *records)
    merged.remember(r);
  std::error_code ec;
  llvm::ToolOutputFile out(output.empty() ? std::string("-") : output, ec,
                           llvm::sys::fs::OF_Text);
  if (ec)
    return llvm::createStringError(ec, "cannot write '" + output +
                                           "': " + ec.message());
  out.os() << merged.toJSONText();
  out.keep();
  return llvm::Error::success();
}

static llvm::Error importRecords() {
  if (output.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "import needs -o <database.db>");
  llvm::Expected<std::vector<TuningRecord>> records = readInputs();
  if (!records)
    return records.takeError();
  llvm::Expected<TuningDatabase> db = TuningDatabase::openForWriting(output);
  if (!db)
    return db.takeError();
  if (llvm::Error e = db->addAll(*records))
    return e;
  llvm::outs() << llvm::formatv("{0}: {1} records ({2} imported)\n", output,
                                db->records().size(), records->size());
  return llvm::Error::success();
}

static llvm::Error listRecords() {
  llvm::Expected<std::vector<TuningRecord>> records = readInputs();
  if (!records)
    return records.takeError();
  for (const TuningRecord &r : *records) {
    llvm::outs() << llvm::formatv("{0,-13} ", r.status);
    if (r.ok())
      llvm::outs() << llvm::formatv("{0,9:f4} ms {1,7:f1} TFLOP/s ", r.medianMs,
                                    r.tflops);
    else
      llvm::outs() << llvm::formatv("{0,29}", "");
    llvm::ListSeparator sep(",");
    for (const auto &[name, value] : r.knobs)
      llvm::outs() << sep << name << "=" << value;
    llvm::outs() << (r.selected ? "  selected" : "") << "  [" << r.key.workload
                 << " on " << r.key.device << "]\n";
  }
  return llvm::Error::success();
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(
      argc, argv,
      "Tessel tuning databases: export SQLite records as reviewable JSON, "
      "import JSON records into SQLite, list records\n");
  llvm::Error e =
      exportCommand   ? exportRecords()
      : importCommand ? importRecords()
      : listCommand
          ? listRecords()
          : llvm::createStringError(llvm::inconvertibleErrorCode(),
                                    "expected a command: export, import "
                                    "or list (see --help)");
  if (e) {
    llvm::WithColor::error(llvm::errs(), "tessel-db")
        << llvm::toString(std::move(e)) << "\n";
    return 1;
  }
  return 0;
}
