//===- opt-fuzzer.cpp - libFuzzer over tessel-opt's compile path ----------===//
//
// Parses an input as MLIR, applies a schedule with tessel-apply-schedule and
// lowers the result with tessel-lower-to-ptx (LLVM's NVPTX backend, no GPU,
// no ptxas), registered exactly as tessel-opt registers them. Bad input must
// end in diagnostics; a crash, an LLVM abort or a hang is a bug.
//
// An input is one selector byte, then the payload's MLIR text, optionally
// followed by a line `// ----- schedule` and a schedule library's text:
//
//   selector bits 0-1  the schedule when the input embeds none:
//                      0 simt, 1 mma, 2 wgmma (schedules/); 3 applies no
//                      schedule (the payload is already scheduled)
//   selector bits 2-4  chip: sm_70 sm_75 sm_80 sm_86 sm_89 sm_90 sm_90a sm_100
//   selector bit 5     index-bitwidth=32 (else 64)
//   selector bit 6     defaults=schedule (the schedule's own knob values;
//                      else the rule's ranked candidates)
//
// TESSEL_FUZZ_VERBOSE=1 prints the diagnostics and the pipeline's outcome.
//
// The schedule travels through a file, as it does in tessel-opt.
//
//===----------------------------------------------------------------------===//

#include "tessel/InitTessel.h"
#include "tessel/Runtime/InputFiles.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <string>

using namespace mlir;

/// The line that separates the payload from an embedded schedule.
static constexpr llvm::StringLiteral kScheduleMarker = "\n// ----- schedule\n";

static const char *const kShippedSchedules[] = {
    "matmul_relu_simt.mlir", "matmul_relu_mma.mlir", "matmul_relu_wgmma.mlir"};

/// Each chip with a PTX version its NVPTX target accepts.
static const char *const kChips[][2] = {
    {"sm_70", "+ptx80"},  {"sm_75", "+ptx80"}, {"sm_80", "+ptx80"},
    {"sm_86", "+ptx80"},  {"sm_89", "+ptx80"}, {"sm_90", "+ptx80"},
    {"sm_90a", "+ptx80"}, {"sm_100", "+ptx86"}};

/// Built once: registering every dialect per input would dominate the time.
static DialectRegistry *registry;
/// Where an embedded schedule is written for tessel-apply-schedule.
static std::string schedulePath;

static void removeScheduleFile() {
  if (!schedulePath.empty()) {
    llvm::sys::fs::remove(schedulePath);
    llvm::sys::fs::remove(llvm::sys::path::parent_path(schedulePath));
  }
}

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  tessel::registerAllPasses();
  registry = new DialectRegistry();
  tessel::registerAllDialects(*registry);
  llvm::SmallString<128> dir;
  if (llvm::sys::fs::createUniqueDirectory("tessel-opt-fuzzer", dir)) {
    llvm::errs() << "tessel-opt-fuzzer: cannot create a temporary directory\n";
    std::abort();
  }
  schedulePath = (dir + "/schedule.mlir").str();
  std::atexit(removeScheduleFile);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  unsigned selector = data[0];
  // A std::string is null-terminated, as the files tessel-opt reads are.
  std::string text(reinterpret_cast<const char *>(data + 1), size - 1);
  llvm::StringRef payload = text, schedule;
  if (size_t at = payload.find(kScheduleMarker); at != llvm::StringRef::npos) {
    schedule = payload.drop_front(at + kScheduleMarker.size());
    payload = payload.take_front(at);
  }

  unsigned which = selector & 3;
  const char *const *chip = kChips[(selector >> 2) & 7];
  int indexBitwidth = selector & 32 ? 32 : 64;
  const char *defaults = selector & 64 ? "schedule" : "rule";

  std::string path;
  if (which != 3) {
    if (schedule.empty()) {
      path = (llvm::Twine(TESSEL_SOURCE_DIR) + "/schedules/" +
              kShippedSchedules[which])
                 .str();
    } else {
      std::error_code ec;
      llvm::raw_fd_ostream os(schedulePath, ec);
      if (ec)
        return 0;
      os << schedule;
      path = schedulePath;
    }
  }

  MLIRContext context(*registry, MLIRContext::Threading::DISABLED);
  // Bad input is expected: its diagnostics are swallowed, not printed,
  // unless TESSEL_FUZZ_VERBOSE is set (to see why a case stops early).
  static const bool verbose = std::getenv("TESSEL_FUZZ_VERBOSE");
  ScopedDiagnosticHandler swallow(&context, [](Diagnostic &d) {
    if (verbose)
      llvm::errs() << d.getLocation() << ": " << d << "\n";
    return success();
  });
  // What tessel-opt refuses before parsing (a schedule, tessel-apply-schedule
  // checks itself).
  if (tessel::findParserCrash(payload))
    return 0;
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(payload, ParserConfig(&context));
  if (!module)
    return 0;

  std::string pipeline;
  if (!path.empty())
    pipeline = llvm::formatv("tessel-apply-schedule{{schedule={0} chip={1} "
                             "defaults={2}},",
                             path, chip[0], defaults);
  pipeline += llvm::formatv("tessel-lower-to-ptx{{chip={0} features={1} "
                            "index-bitwidth={2}}",
                            chip[0], chip[1], indexBitwidth);
  PassManager pm(&context);
  std::string error;
  llvm::raw_string_ostream errorStream(error);
  if (failed(parsePassPipeline(pipeline, pm, errorStream))) {
    // The pipeline is ours, not the input's: failing to build it is a bug.
    llvm::errs() << "tessel-opt-fuzzer: bad pipeline '" << pipeline
                 << "': " << error << "\n";
    std::abort();
  }
  LogicalResult result = pm.run(*module);
  if (verbose)
    llvm::errs() << "tessel-opt-fuzzer: " << pipeline << ": "
                 << (succeeded(result) ? "ok" : "failed") << "\n";
  return 0;
}
