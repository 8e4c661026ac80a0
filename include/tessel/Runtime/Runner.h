//===- Runner.h - Run, check and time a host function's kernels -*- C++ -*-===//

#ifndef TESSEL_RUNTIME_RUNNER_H
#define TESSEL_RUNTIME_RUNNER_H

#include "tessel/Runtime/CudaDriver.h"
#include "tessel/Runtime/LaunchSpec.h"

#include "llvm/Support/JSON.h"

#include <string>

namespace tessel {

struct RunOptions {
  uint64_t seed = 1;
  /// Warm-up and measurement budgets in milliseconds, as the anchors were
  /// measured (triton.testing.do_bench: 50 ms warm-up, 200 ms of repeats).
  double warmupMs = 50, repeatMs = 200;
  int minRepeats = 10, maxRepeats = 10000;
  /// "auto" (CPU when small, GPU otherwise), "cpu", "gpu" or "none".
  std::string reference = "auto";
  /// Overrides the dtype's default bound on the relative error.
  double tolerance = 0;
  /// Flush the L2 cache before every timed repeat.
  bool flushL2 = true;
};

/// Why a measurement's budgets (RunOptions::warmupMs, repeatMs) cannot be
/// used, or "" when they can: each finite and at most a minute, the warm-up
/// >= 0 and the repeats > 0 (NaN fails every test). Messages name the
/// options as `optionPrefix` + "warmup-ms" / "rep-ms" ("--" for tessel-run,
/// "" for tessel-tune).
std::string checkMeasurementBudgets(double warmupMs, double repeatMs,
                                    llvm::StringRef optionPrefix);

struct RunResult {
  std::string function, device, chip;
  // Check.
  std::string reference; // "cpu-f64", "gpu-f64" or "none"
  bool checked = false, passed = false;
  double relativeError = 0, maxAbsError = 0, tolerance = 0;
  int64_t nanCount = 0;
  // Timing (milliseconds over all launches of the function).
  int repeats = 0;
  double medianMs = 0, minMs = 0, maxMs = 0;
  double tflops = 0; // 0 when the workload is unknown.
};

/// Loads the function's kernels (image files relative to `dir`), fills its
/// inputs with seeded random normal values and poisons its outputs with
/// NaN, runs it once and checks the outputs against a reference, then times
/// it. Fails (with the reason) on any driver error or mismatched metadata;
/// a wrong output is not an error: `passed` is false.
llvm::Expected<RunResult> runHostFunction(cuda::Driver &driver,
                                          const HostFunctionSpec &spec,
                                          llvm::StringRef dir,
                                          const RunOptions &options);

llvm::json::Value toJSON(const RunResult &result);

/// Default relative-error bound by output element type.
double defaultTolerance(llvm::StringRef elementType);

} // namespace tessel

#endif // TESSEL_RUNTIME_RUNNER_H
