//===- json-fuzzer.cpp - libFuzzer over Tessel's JSON readers -------------===//
//
// The files a user hands Tessel as JSON: launch specs (tessel-run), tuning
// databases (db=, replay=) and the JSON limits they all go through
// (tessel::readInputFile, tessel::parseJson). Each input is read from a
// file, as the tools read it, and what a reader accepts is then used the
// way its callers use it. An error is fine; a crash, a sanitizer report or
// a hang is a bug.
//
// An input is one selector byte (modulo 3: 0 a launch spec, 1 a tuning
// database, 2 bare JSON), then the file's bytes.
//
//===----------------------------------------------------------------------===//

#include "tessel/Runtime/InputFiles.h"
#include "tessel/Runtime/LaunchSpec.h"
#include "tessel/Tuning/Database.h"
#include "tessel/Tuning/KnobChoice.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <string>

/// The file each input is written to.
static std::string inputPath;

static void removeInputFile() {
  if (!inputPath.empty()) {
    llvm::sys::fs::remove(inputPath);
    llvm::sys::fs::remove(llvm::sys::path::parent_path(inputPath));
  }
}

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  llvm::SmallString<128> dir;
  if (llvm::sys::fs::createUniqueDirectory("tessel-json-fuzzer", dir)) {
    llvm::errs() << "tessel-json-fuzzer: cannot create a temporary directory\n";
    std::abort();
  }
  inputPath = (dir + "/input.json").str();
  std::atexit(removeInputFile);
  return 0;
}

/// What the runtime computes from a spec before it touches a GPU: each
/// buffer's byte size (tessel::runHostFunction), the workspaces' total
/// (LoadedFunction::launch).
static void useLaunchSpec(const tessel::HostFunctionSpec &spec) {
  for (const tessel::BufferSpec &buffer : spec.arguments) {
    size_t bytes = buffer.numElements() * buffer.elementBytes();
    asm volatile("" : : "r"(bytes));
  }
  size_t total = 0;
  for (const tessel::BufferSpec &workspace : spec.workspaces)
    total +=
        llvm::alignTo(workspace.numElements() * workspace.elementBytes(), 256);
  asm volatile("" : : "r"(total));
}

/// What tessel-apply-schedule and the tuner ask of a database, keyed by its
/// own records so that lookups find something.
static void useDatabase(const tessel::TuningDatabase &db) {
  for (const tessel::TuningRecord &record : db.records()) {
    (void)db.find(record.key, record.knobs);
    (void)db.best(record.key);
    tessel::TuningKey anyDevice = record.key;
    anyDevice.device.clear();
    (void)db.devicesFor(anyDevice);
    std::string arch = tessel::deviceArch(record.key.device);
    (void)db.matching(record.key.workload, record.key.device);
    if (std::optional<tessel::ProblemShape> shape =
            tessel::parseWorkloadKey(record.key.workload))
      (void)tessel::nearestRecords(db, record.key, arch, *shape, 4,
                                   /*excludeSelf=*/true);
  }
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  unsigned reader = data[0] % 3;
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(inputPath, ec);
    if (ec)
      return 0;
    os.write(reinterpret_cast<const char *>(data + 1), size - 1);
  }
  switch (reader) {
  case 0: {
    llvm::Expected<tessel::HostFunctionSpec> spec =
        tessel::readLaunchSpec(inputPath);
    if (!spec) {
      llvm::consumeError(spec.takeError());
      return 0;
    }
    useLaunchSpec(*spec);
    // What tessel-export-kernels writes must read back.
    std::string text;
    llvm::raw_string_ostream os(text);
    os << tessel::toJSON(*spec);
    llvm::Expected<llvm::json::Value> again = tessel::parseJson(text);
    tessel::HostFunctionSpec copy;
    llvm::json::Path::Root root;
    if (!again || !tessel::fromJSON(*again, copy, root)) {
      llvm::errs() << "tessel-json-fuzzer: a launch spec does not read back\n";
      std::abort();
    }
    llvm::consumeError(again.takeError());
    return 0;
  }
  case 1: {
    llvm::Expected<tessel::TuningDatabase> db =
        tessel::TuningDatabase::open(inputPath);
    if (!db) {
      llvm::consumeError(db.takeError());
      return 0;
    }
    useDatabase(*db);
    return 0;
  }
  default: {
    llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> file =
        tessel::readInputFile(inputPath);
    if (!file) {
      llvm::consumeError(file.takeError());
      return 0;
    }
    llvm::Expected<llvm::json::Value> json =
        tessel::parseJson((*file)->getBuffer());
    if (!json) {
      llvm::consumeError(json.takeError());
      return 0;
    }
    // Printing walks the whole value (recursively, like the parser).
    std::string text;
    llvm::raw_string_ostream os(text);
    os << *json;
    return 0;
  }
  }
}
