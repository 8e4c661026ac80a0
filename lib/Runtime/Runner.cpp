//===- Runner.cpp - Run, check and time a host function's kernels ---------===//

#include "tessel/Runtime/Runner.h"

#include "tessel/Runtime/LoadedFunction.h"
#include "tessel/Runtime/Reference.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include <cstring>

#include <algorithm>
#include <cmath>
#include <random>

using namespace tessel;

static llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

double tessel::defaultTolerance(llvm::StringRef elementType) {
  return elementType == "f32" ? 1e-5 : elementType == "f64" ? 1e-12 : 1e-2;
}

namespace {
/// Device buffers freed on scope exit.
struct Buffers {
  cuda::Driver &driver;
  std::vector<cuda::DevicePtr> ptrs;
  ~Buffers() {
    for (cuda::DevicePtr p : ptrs)
      driver.free(p);
  }
  llvm::Expected<cuda::DevicePtr> allocate(size_t bytes) {
    llvm::Expected<cuda::DevicePtr> p = driver.allocate(bytes);
    if (p)
      ptrs.push_back(*p);
    return p;
  }
};
} // namespace

/// NaN bit pattern repeated over 32 bits for a storage type.
std::string tessel::checkMeasurementBudgets(double warmupMs, double repeatMs,
                                            llvm::StringRef optionPrefix) {
  constexpr double kMaxBudgetMs = 60000;
  auto number = [](double value) {
    std::string text;
    llvm::raw_string_ostream(text) << llvm::format("%g", value);
    return text;
  };
  if (!(warmupMs >= 0 && warmupMs <= kMaxBudgetMs))
    return llvm::formatv("{0}warmup-ms must be in [0, {1}] (got {2})",
                         optionPrefix, number(kMaxBudgetMs), number(warmupMs));
  if (!(repeatMs > 0 && repeatMs <= kMaxBudgetMs))
    return llvm::formatv("{0}rep-ms must be in (0, {1}] (got {2})",
                         optionPrefix, number(kMaxBudgetMs), number(repeatMs));
  return "";
}

static uint32_t nanPattern(llvm::StringRef type) {
  if (type == "f32")
    return 0x7fc00000u;
  if (type == "f16")
    return 0x7e007e00u;
  if (type == "bf16")
    return 0x7fc07fc0u;
  return 0xffffffffu;
}

llvm::Expected<RunResult> tessel::runHostFunction(cuda::Driver &driver,
                                                  const HostFunctionSpec &spec,
                                                  llvm::StringRef dir,
                                                  const RunOptions &options) {
  RunResult result;
  result.function = spec.name;
  result.device = driver.device().name;
  result.chip = driver.device().chip();

  llvm::Expected<LoadedFunction> function =
      LoadedFunction::load(driver, spec, dir);
  if (!function)
    return function.takeError();

  // Buffers: inputs random normal (seeded), outputs NaN.
  Buffers buffers{driver, {}};
  std::vector<cuda::DevicePtr> args;
  std::vector<std::vector<uint8_t>> hostInputs(spec.arguments.size());
  std::mt19937_64 rng(options.seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (auto [i, buffer] : llvm::enumerate(spec.arguments)) {
    size_t bytes = buffer.numElements() * buffer.elementBytes();
    // Outputs are poisoned 4 bytes at a time: an odd number of 16-bit
    // elements gets one more, which the kernel never writes. Buffers span
    // whole 16-byte granules, as every CUDA allocation does: kernels may
    // read the granule around a valid element (the wgmma producer's loads
    // of misaligned rows), and compute-sanitizer checks the size asked for.
    size_t allocated = llvm::alignTo(bytes, 16);
    llvm::Expected<cuda::DevicePtr> ptr = buffers.allocate(allocated);
    if (!ptr)
      return ptr.takeError();
    args.push_back(*ptr);
    if (llvm::is_contained(spec.results, i)) {
      if (llvm::Error e = driver.fill32(*ptr, nanPattern(buffer.elementType),
                                        allocated / 4))
        return std::move(e);
      continue;
    }
    if (!llvm::is_contained({"f32", "f16", "bf16", "f64"}, buffer.elementType))
      return fail("input argument #" + llvm::Twine(i) + " has element type '" +
                  buffer.elementType + "': only float inputs are generated");
    std::vector<uint8_t> &host = hostInputs[i];
    host.resize(bytes);
    for (int64_t e = 0, n = buffer.numElements(); e < n; ++e)
      storeElement(host, buffer.elementType, e, normal(rng));
    if (llvm::Error e = driver.copyToDevice(*ptr, host.data(), bytes))
      return std::move(e);
  }

  auto runOnce = [&]() -> llvm::Error { return function->launch(args); };

  // Run once, then check.
  if (llvm::Error e = runOnce())
    return std::move(e);
  if (llvm::Error e = driver.synchronize())
    return std::move(e);

  result.reference = "none";
  if (spec.workload && options.reference != "none") {
    const WorkloadSpec &w = *spec.workload;
    const BufferSpec &out = spec.arguments[w.out];
    llvm::StringRef lhsType = spec.arguments[w.lhs].elementType;
    llvm::StringRef rhsType = spec.arguments[w.rhs].elementType;
    bool cpu = options.reference == "cpu" ||
               (options.reference == "auto" && w.flops() <= 2.0 * (1 << 27));
    std::vector<double> reference;
    if (cpu) {
      reference = cpuContraction(w, hostInputs[w.lhs], lhsType,
                                 hostInputs[w.rhs], rhsType);
      result.reference = "cpu-f64";
    } else {
      llvm::Expected<cuda::DevicePtr> refPtr =
          buffers.allocate(out.numElements() * sizeof(double));
      if (!refPtr)
        return refPtr.takeError();
      if (llvm::Error e = gpuContraction(driver, w, lhsType, rhsType,
                                         args[w.lhs], args[w.rhs], *refPtr))
        return std::move(e);
      reference.resize(out.numElements());
      if (llvm::Error e = driver.copyToHost(reference.data(), *refPtr,
                                            reference.size() * sizeof(double)))
        return std::move(e);
      result.reference = "gpu-f64";
    }
    applyEpilogue(w, spec.arguments, hostInputs, reference);
    std::vector<uint8_t> output(out.numElements() * out.elementBytes());
    if (llvm::Error e =
            driver.copyToHost(output.data(), args[w.out], output.size()))
      return std::move(e);
    double errorSq = 0, refSq = 0, maxAbs = 0;
    for (int64_t i = 0, n = out.numElements(); i < n; ++i) {
      double value = loadElement(output, out.elementType, i);
      if (std::isnan(value)) {
        ++result.nanCount;
        continue;
      }
      double diff = value - reference[i];
      errorSq += diff * diff;
      refSq += reference[i] * reference[i];
      maxAbs = std::max(maxAbs, std::fabs(diff));
    }
    result.checked = true;
    result.relativeError =
        refSq > 0 ? std::sqrt(errorSq / refSq) : std::sqrt(errorSq);
    result.maxAbsError = maxAbs;
    result.tolerance = options.tolerance > 0
                           ? options.tolerance
                           : defaultTolerance(out.elementType);
    result.passed = result.nanCount == 0 &&
                    std::isfinite(result.relativeError) &&
                    result.relativeError <= result.tolerance;
  }

  // Time: L2 flushed before each repeat, one event pair per repeat.
  Buffers flush{driver, {}};
  cuda::DevicePtr flushPtr = 0;
  const size_t flushBytes = 256ull << 20;
  if (options.flushL2) {
    llvm::Expected<cuda::DevicePtr> p = flush.allocate(flushBytes);
    if (!p)
      return p.takeError();
    flushPtr = *p;
  }
  llvm::Expected<cuda::Event> probeStart = driver.createEvent();
  llvm::Expected<cuda::Event> probeEnd = driver.createEvent();
  if (!probeStart || !probeEnd)
    return fail("cannot create CUDA events");
  auto timeOne = [&](cuda::Event start, cuda::Event end) -> llvm::Error {
    if (flushPtr)
      if (llvm::Error e = driver.fill32(flushPtr, 0, flushBytes / 4))
        return e;
    if (llvm::Error e = driver.record(start))
      return e;
    if (llvm::Error e = runOnce())
      return e;
    return driver.record(end);
  };
  // Estimate one run's time, then size warm-up and repeats by budget.
  double estimate = 0;
  for (int i = 0; i < 5; ++i) {
    if (llvm::Error e = timeOne(*probeStart, *probeEnd))
      return std::move(e);
    llvm::Expected<float> ms = driver.elapsedMs(*probeStart, *probeEnd);
    if (!ms)
      return ms.takeError();
    estimate += *ms / 5;
  }
  estimate = std::max(estimate, 1e-4);
  int warmup =
      std::clamp(int(options.warmupMs / estimate), 1, options.maxRepeats);
  int repeats = std::clamp(int(options.repeatMs / estimate), options.minRepeats,
                           options.maxRepeats);
  for (int i = 0; i < warmup; ++i)
    if (llvm::Error e = runOnce())
      return std::move(e);
  std::vector<cuda::Event> events;
  for (int i = 0; i < 2 * repeats; ++i) {
    llvm::Expected<cuda::Event> event = driver.createEvent();
    if (!event)
      return event.takeError();
    events.push_back(*event);
  }
  llvm::scope_exit destroyEvents([&] {
    for (cuda::Event e : events)
      driver.destroyEvent(e);
    driver.destroyEvent(*probeStart);
    driver.destroyEvent(*probeEnd);
  });
  for (int i = 0; i < repeats; ++i)
    if (llvm::Error e = timeOne(events[2 * i], events[2 * i + 1]))
      return std::move(e);
  if (llvm::Error e = driver.synchronize())
    return std::move(e);
  std::vector<double> times;
  for (int i = 0; i < repeats; ++i) {
    llvm::Expected<float> ms =
        driver.elapsedMs(events[2 * i], events[2 * i + 1]);
    if (!ms)
      return ms.takeError();
    times.push_back(*ms);
  }
  std::sort(times.begin(), times.end());
  result.repeats = repeats;
  result.minMs = times.front();
  result.maxMs = times.back();
  result.medianMs = repeats % 2
                        ? times[repeats / 2]
                        : (times[repeats / 2 - 1] + times[repeats / 2]) / 2;
  if (spec.workload)
    result.tflops = spec.workload->flops() / (result.medianMs * 1e-3) / 1e12;
  return result;
}

llvm::json::Value tessel::toJSON(const RunResult &r) {
  return llvm::json::Object{
      {"function", r.function},
      {"device", r.device},
      {"chip", r.chip},
      {"reference", r.reference},
      {"checked", r.checked},
      {"passed", r.passed},
      {"relative_error", r.relativeError},
      {"max_abs_error", r.maxAbsError},
      {"tolerance", r.tolerance},
      {"nan_count", r.nanCount},
      {"repeats", r.repeats},
      {"median_ms", r.medianMs},
      {"min_ms", r.minMs},
      {"max_ms", r.maxMs},
      {"tflops", r.tflops},
  };
}
