//===- Runner.h - Run, check and time a host function's kernels -*- C++ -*-===//

#ifndef TESSEL_RUNTIME_RUNNER_H
#define TESSEL_RUNTIME_RUNNER_H

#include "tessel/Runtime/CudaDriver.h"
#include "tessel/Runtime/LaunchSpec.h"

#include "llvm/Support/JSON.h"

#include <memory>
#include <optional>
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
  /// What runs before every timed repeat to evict the previous repeat's
  /// lines from L2 (docs/runtime.md, tessel-run):
  /// - Write: 256 MiB are zeroed, as triton.testing.do_bench flushes (the
  ///   anchors' method, and what the tuner measures). L2 then holds dirty
  ///   lines, and a kernel that streams its operands from HBM also pays
  ///   for writing them back (decode shapes: about 17% of their time).
  /// - Read: a kernel reads a 256 MiB buffer nothing else touches. L2 then
  ///   holds clean lines, so the timed kernel pays only for its own bytes.
  /// - None: no flush.
  enum class L2Flush { Write, Read, None };
  L2Flush flush = L2Flush::Write;
};

/// The L2Flush named `name` ("read", "write" or "none"), if any, and its
/// name.
std::optional<RunOptions::L2Flush> parseL2Flush(llvm::StringRef name);
llvm::StringRef l2FlushName(RunOptions::L2Flush flush);

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
  std::string l2Flush; // l2FlushName(RunOptions::flush)
  double medianMs = 0, minMs = 0, maxMs = 0;
  double tflops = 0; // 0 when the workload is unknown.
  /// Where the call's wall-clock time went (milliseconds): preparing the
  /// arguments and the reference (0 when they were reused), loading the
  /// kernels, running and checking them once, timing them.
  double prepareMs = 0, loadMs = 0, checkMs = 0, timeMs = 0;
};

/// A function's arguments on the device, inputs filled with seeded random
/// values (generated on the GPU) and outputs allocated, with the reference
/// the outputs are checked against and the L2-flush buffer: made once, they
/// serve any number of functions that take the same arguments and compute
/// the same workload (the tuner's measurement worker keeps them between
/// candidates).
class PreparedArguments {
public:
  static llvm::Expected<std::unique_ptr<PreparedArguments>>
  prepare(cuda::Driver &driver, const HostFunctionSpec &spec,
          const RunOptions &options);
  ~PreparedArguments();

  /// Whether these arguments serve `spec` under `options`: the same
  /// arguments, results and workload, the same seed and reference.
  bool serves(const HostFunctionSpec &spec, const RunOptions &options) const;

private:
  friend llvm::Expected<RunResult>
  runHostFunction(cuda::Driver &driver, const HostFunctionSpec &spec,
                  llvm::StringRef dir, const RunOptions &options,
                  PreparedArguments &arguments);
  explicit PreparedArguments(cuda::Driver &driver) : driver(driver) {}

  cuda::Driver &driver;
  std::string signature;                // What serves() compares.
  std::vector<cuda::DevicePtr> buffers; // One per argument.
  std::vector<size_t> allocatedBytes;
  /// The expected output on the device (the workload's reference in f64,
  /// epilogue applied), 0 when there is none; the outputs are compared with
  /// it on the GPU, each of `compareThreads` threads summing its share into
  /// `partials` (4 values each).
  cuda::DevicePtr reference = 0;
  std::string referenceKind = "none";
  cuda::Module compareModule = nullptr;
  cuda::Function compare = nullptr;
  cuda::DevicePtr partials = 0;
  /// The L2 flush's buffer, and for RunOptions::L2Flush::Read the kernel
  /// that reads it.
  cuda::DevicePtr flush = 0;
  size_t flushBytes = 0;
  cuda::Module flushModule = nullptr;
  cuda::Function flushRead = nullptr;
};

/// The signature PreparedArguments::serves compares: the spec's arguments,
/// results and workload, and the options' seed, reference and L2 flush.
std::string argumentSignature(const HostFunctionSpec &spec,
                              const RunOptions &options);

/// Loads the function's kernels (image files relative to `dir`), poisons
/// its outputs with NaN, runs it once and checks the outputs against the
/// reference, then times it, on `arguments` (which must serve `spec`). The
/// kernel images are unloaded on return. Fails (with the reason) on any
/// driver error or mismatched metadata; a wrong output is not an error:
/// `passed` is false.
llvm::Expected<RunResult> runHostFunction(cuda::Driver &driver,
                                          const HostFunctionSpec &spec,
                                          llvm::StringRef dir,
                                          const RunOptions &options,
                                          PreparedArguments &arguments);

/// The same on arguments prepared for this call only.
llvm::Expected<RunResult> runHostFunction(cuda::Driver &driver,
                                          const HostFunctionSpec &spec,
                                          llvm::StringRef dir,
                                          const RunOptions &options);

/// The PTX of the kernel that fills inputs of `elementType` with seeded
/// random values, for inspection.
std::string randomFillPtx(llvm::StringRef elementType);

/// The PTX of the kernel that compares an output of `elementType` with its
/// f64 reference: each thread's sums of squared errors and of squared
/// reference values, its largest absolute error and its NaN count.
std::string comparePtx(llvm::StringRef elementType);

/// The PTX of RunOptions::L2Flush::Read's kernel, `tessel_l2_read`: it
/// reads its buffer in 16-byte loads and writes nothing.
std::string l2FlushReadPtx();

llvm::json::Value toJSON(const RunResult &result);

/// Default relative-error bound by output element type.
double defaultTolerance(llvm::StringRef elementType,
                        llvm::StringRef precision = "");

} // namespace tessel

#endif // TESSEL_RUNTIME_RUNNER_H
