//===- tessel-run.cpp - Run, check and time exported Tessel kernels -------===//
//
//   tessel-run out/matmul_relu.launch.json [--json] [--seed=N] ...
//   tessel-run --serve [--device=N]
//
// Reads the launch spec written by --tessel-export-kernels, runs the
// function's kernels on the GPU, checks the output against a reference and
// prints the time. Needs an NVIDIA driver, neither LLVM nor a CUDA toolkit.
// Exit status: 0 output correct (or not checkable), 1 error, 2 wrong output.
//
// --serve is the tuner's measurement worker (docs/tuning.md): one process
// and CUDA context for many launch specs, read one JSON request per line
// from stdin, answered one JSON line each on stdout; the arguments and the
// reference are kept while the requests share them.
//
//===----------------------------------------------------------------------===//

#include "tessel/Runtime/CudaDriver.h"
#include "tessel/Runtime/LaunchSpec.h"
#include "tessel/Runtime/Runner.h"
#include "tessel/Version.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"
#include <chrono>
#include <cmath>
#include <iostream>
#include <string>

using namespace llvm;

static cl::OptionCategory category("tessel-run options");
static cl::opt<std::string> specPath(cl::Positional,
                                     cl::desc("<function>.launch.json"),
                                     cl::cat(category));
static cl::opt<bool> asJson("json", cl::desc("Print one JSON object"),
                            cl::cat(category));
static cl::opt<uint64_t> seed("seed", cl::desc("Seed of the random inputs"),
                              cl::init(1), cl::cat(category));
static cl::opt<int> deviceOrdinal("device", cl::desc("CUDA device ordinal"),
                                  cl::init(0), cl::cat(category));
static cl::opt<double> warmupMs("warmup-ms", cl::desc("Warm-up budget (ms)"),
                                cl::init(50), cl::cat(category));
static cl::opt<double> repeatMs("rep-ms", cl::desc("Measurement budget (ms)"),
                                cl::init(200), cl::cat(category));
static cl::opt<std::string> reference(
    "reference",
    cl::desc("Reference: auto (CPU if small, else GPU), cpu, gpu, none"),
    cl::init("auto"), cl::cat(category));
static cl::opt<double>
    tolerance("tolerance",
              cl::desc("Relative error bound (default by dtype: f32 1e-5, "
                       "f16/bf16 1e-2)"),
              cl::init(0), cl::cat(category));
static cl::opt<bool>
    deviceInfo("device-info",
               cl::desc("Print the device (name and chip) and exit"),
               cl::cat(category));
static cl::opt<bool> listDevices(
    "list-devices",
    cl::desc("Print every device (ordinal, name and chip) and exit"),
    cl::cat(category));
static cl::opt<bool>
    serve("serve",
          cl::desc("Measurement worker: JSON requests on stdin, one per "
                   "line ({\"spec\": PATH, \"seed\": N, \"warmup_ms\": "
                   "X, \"rep_ms\": Y}), a JSON answer per line on stdout"),
          cl::cat(category));
static cl::opt<std::string> l2Flush(
    "l2-flush",
    cl::desc("How L2 is flushed before each timed repeat: 'write' (256 "
             "MiB zeroed, as triton.testing.do_bench does; L2 is left "
             "dirty; the default), 'read' (a kernel reads 256 MiB; L2 is "
             "left clean) or 'none'"),
    cl::init("write"), cl::cat(category));
static cl::opt<bool> noFlush("no-flush-l2",
                             cl::desc("Do not flush L2 between repeats (the "
                                      "same as --l2-flush=none)"),
                             cl::cat(category));

/// Reports `message` on stderr and, with --json, as `{"error": ...}` on
/// stdout, so that a caller reading JSON gets JSON; returns exit status 1.
static int error(const Twine &message) {
  WithColor::error(errs(), "tessel-run") << message << "\n";
  if (asJson)
    outs() << formatv("{0:2}",
                      json::Value(json::Object{{"error", message.str()}}))
           << "\n";
  return 1;
}

/// The run options the command line gives (--serve's defaults).
static tessel::RunOptions commandLineOptions() {
  tessel::RunOptions options;
  options.seed = seed;
  options.warmupMs = warmupMs;
  options.repeatMs = repeatMs;
  options.reference = reference;
  options.tolerance = tolerance;
  options.flush = noFlush ? tessel::RunOptions::L2Flush::None
                          : *tessel::parseL2Flush(l2Flush);
  return options;
}

/// Writes one protocol line.
static void answer(json::Value object) {
  outs() << object << "\n";
  outs().flush();
}

/// The --serve loop. Each request is answered with tessel-run --json's
/// object, or {"error": ...}; after an error that leaves the CUDA context
/// unusable (an illegal address, a kernel fault), the answer also says
/// "context_lost": true and the worker exits with status 1, so that its
/// parent starts a new one. EOF on stdin ends it with status 0.
static int serveRequests(tessel::cuda::Driver &driver,
                         const tessel::RunOptions &defaults) {
  const tessel::cuda::DeviceInfo &d = driver.device();
  answer(json::Object{{"ready", true},
                      {"device", d.name + " (" + d.chip() + ")"}});
  std::unique_ptr<tessel::PreparedArguments> prepared;
  std::string line;
  while (std::getline(std::cin, line)) {
    if (StringRef(line).trim().empty())
      continue;
    Expected<json::Value> request = json::parse(line);
    const json::Object *o = request ? request->getAsObject() : nullptr;
    if (!request)
      consumeError(request.takeError());
    std::optional<StringRef> path = o ? o->getString("spec") : std::nullopt;
    if (!path) {
      answer(json::Object{
          {"error", "a request is a JSON object with a \"spec\" path"}});
      continue;
    }
    tessel::RunOptions options = defaults;
    options.seed = o->getInteger("seed").value_or(defaults.seed);
    options.warmupMs = o->getNumber("warmup_ms").value_or(defaults.warmupMs);
    options.repeatMs = o->getNumber("rep_ms").value_or(defaults.repeatMs);
    if (std::string why = tessel::checkMeasurementBudgets(options.warmupMs,
                                                          options.repeatMs, "");
        !why.empty()) {
      answer(json::Object{{"error", why}});
      continue;
    }
    Expected<tessel::HostFunctionSpec> spec = tessel::readLaunchSpec(*path);
    if (!spec) {
      answer(json::Object{{"error", toString(spec.takeError())}});
      continue;
    }
    auto run = [&]() -> Expected<tessel::RunResult> {
      auto start = std::chrono::steady_clock::now();
      double prepareMs = 0;
      if (!prepared || !prepared->serves(*spec, options)) {
        prepared.reset(); // Its memory first.
        Expected<std::unique_ptr<tessel::PreparedArguments>> made =
            tessel::PreparedArguments::prepare(driver, *spec, options);
        if (!made)
          return made.takeError();
        prepared = std::move(*made);
        prepareMs = std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - start)
                        .count();
      }
      Expected<tessel::RunResult> result = tessel::runHostFunction(
          driver, *spec, sys::path::parent_path(*path), options, *prepared);
      if (result)
        result->prepareMs = prepareMs;
      return result;
    };
    Expected<tessel::RunResult> result = run();
    if (result) {
      json::Value value = tessel::toJSON(*result);
      answer(std::move(value));
      continue;
    }
    std::string message = toString(result.takeError());
    // A context a kernel broke fails every later call, synchronize first.
    if (Error lost = driver.synchronize()) {
      consumeError(std::move(lost));
      answer(json::Object{{"error", message}, {"context_lost", true}});
      return 1;
    }
    answer(json::Object{{"error", message}});
  }
  return 0;
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::AddExtraVersionPrinter(
      [](raw_ostream &os) { os << "Tessel " << tessel::getVersion() << "\n"; });
  cl::ParseCommandLineOptions(argc, argv,
                              "Run, check and time exported Tessel kernels\n");
  if (!is_contained({"auto", "cpu", "gpu", "none"}, StringRef(reference)))
    return error("--reference must be auto, cpu, gpu or none");
  if (!tessel::parseL2Flush(l2Flush))
    return error("--l2-flush must be read, write or none (got '" + l2Flush +
                 "')");
  if (std::string why =
          tessel::checkMeasurementBudgets(warmupMs, repeatMs, "--");
      !why.empty())
    return error(why);
  if (!(tolerance >= 0 && std::isfinite(tolerance)))
    return error(formatv("--tolerance must be a finite number >= 0, 0 for "
                         "the element type's default (got {0})",
                         double(tolerance)));
  if (deviceOrdinal < 0)
    return error(formatv("--device must be a device ordinal >= 0 (got {0})",
                         int(deviceOrdinal)));

  if (listDevices) {
    Expected<std::unique_ptr<tessel::cuda::Driver>> first =
        tessel::cuda::Driver::open(0, /*makeCurrent=*/false);
    if (!first)
      return error(toString(first.takeError()));
    for (int ordinal = 0; ordinal < (*first)->deviceCount(); ++ordinal) {
      Expected<std::unique_ptr<tessel::cuda::Driver>> driver =
          tessel::cuda::Driver::open(ordinal, /*makeCurrent=*/false);
      if (!driver)
        return error(toString(driver.takeError()));
      const tessel::cuda::DeviceInfo &d = (*driver)->device();
      outs() << ordinal << ": " << d.name << " (" << d.chip() << ")\n";
    }
    return 0;
  }
  if (deviceInfo) {
    Expected<std::unique_ptr<tessel::cuda::Driver>> driver =
        tessel::cuda::Driver::open(deviceOrdinal);
    if (!driver)
      return error(toString(driver.takeError()));
    const tessel::cuda::DeviceInfo &d = (*driver)->device();
    outs() << d.name << " (" << d.chip() << ")\n";
    return 0;
  }
  if (serve) {
    if (!specPath.empty() || asJson)
      return error("--serve takes its launch specs from stdin");
    Expected<std::unique_ptr<tessel::cuda::Driver>> driver =
        tessel::cuda::Driver::open(deviceOrdinal);
    if (!driver) {
      answer(json::Object{{"error", toString(driver.takeError())}});
      return 1;
    }
    return serveRequests(**driver, commandLineOptions());
  }
  if (specPath.empty())
    return error("expected a <function>.launch.json file");
  Expected<tessel::HostFunctionSpec> spec = tessel::readLaunchSpec(specPath);
  if (!spec)
    return error(toString(spec.takeError()));
  Expected<std::unique_ptr<tessel::cuda::Driver>> driver =
      tessel::cuda::Driver::open(deviceOrdinal);
  if (!driver)
    return error(toString(driver.takeError()));

  Expected<tessel::RunResult> result = tessel::runHostFunction(
      **driver, *spec, sys::path::parent_path(specPath), commandLineOptions());
  if (!result)
    return error(toString(result.takeError()));

  const tessel::RunResult &r = *result;
  if (asJson) {
    outs() << formatv("{0:2}", tessel::toJSON(r)) << "\n";
  } else {
    const tessel::cuda::DeviceInfo &d = (*driver)->device();
    outs() << formatv("device:  {0} ({1}, {2} SMs)\n", d.name, d.chip(),
                      d.multiprocessors);
    outs() << formatv("kernel:  {0} ({1} launch(es))\n", r.function,
                      spec->launches.size());
    if (r.checked)
      outs() << formatv("check:   {0}  relative error {1:e2} (tolerance "
                        "{2:e1}), max abs error {3:e2}, {4} NaN, against "
                        "{5} reference\n",
                        r.passed ? "PASS" : "FAIL", r.relativeError,
                        r.tolerance, r.maxAbsError, r.nanCount, r.reference);
    else
      outs() << "check:   none (no reference for this workload)\n";
    outs() << formatv("time:    median {0:f4} ms  min {1:f4} ms  max {2:f4} ms"
                      "  ({3} repeats, L2 {4})\n",
                      r.medianMs, r.minMs, r.maxMs, r.repeats,
                      r.l2Flush == "none" ? "not flushed"
                                          : "flushed by " + r.l2Flush + "s");
    if (r.tflops > 0)
      outs() << formatv("rate:    {0:f1} TFLOP/s\n", r.tflops);
  }
  return r.checked && !r.passed ? 2 : 0;
}
