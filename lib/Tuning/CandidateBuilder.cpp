//===- CandidateBuilder.cpp - Compile a schedule's candidates -------------===//

#include "tessel/Tuning/CandidateBuilder.h"

#include "tessel/Pipelines/Pipelines.h"
#include "tessel/Runtime/LaunchSpec.h"
#include "tessel/Transforms/Passes.h"
#include "tessel/Tuning/Subprocess.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"

#include <chrono>

using namespace mlir;
using namespace tessel;

static llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// The .ptx files an export wrote to `dir`.
static std::vector<std::string> ptxFilesIn(llvm::StringRef dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec))
    if (llvm::sys::path::extension(it->path()) == ".ptx")
      files.push_back(it->path());
  return files;
}

/// Corrupts a kernel's PTX the way `kind` says (the fault-injection hook
/// that tests the tuner's isolation).
static llvm::Error injectFault(llvm::StringRef dir, llvm::StringRef kind) {
  for (const std::string &path : ptxFilesIn(dir)) {
    auto buffer = llvm::MemoryBuffer::getFile(path);
    if (!buffer)
      return fail("cannot read " + path);
    std::string ptx = (*buffer)->getBuffer().str();
    size_t body = ptx.find("\n{\n", ptx.find(".entry"));
    if (body == std::string::npos)
      return fail("no kernel body in " + path);
    body += 3;
    if (kind == "hang") {
      ptx.insert(body, "TESSEL_HANG:\n\tbra.uni TESSEL_HANG;\n");
    } else if (kind == "illegal-address") {
      ptx.insert(body, "\t.reg .b64 %tessel_bad;\n\tmov.u64 %tessel_bad, 8;\n"
                       "\tst.global.u32 [%tessel_bad], 0;\n");
    } else if (kind == "wrong") {
      size_t pos;
      while ((pos = ptx.find("max.NaN.f32")) != std::string::npos)
        ptx.replace(pos, 11, "min.NaN.f32");
    } else {
      return fail("unknown fault kind '" + kind +
                  "' (expected hang, illegal-address or wrong)");
    }
    std::error_code wec;
    llvm::raw_fd_ostream os(path, wec);
    if (wec)
      return fail("cannot write " + path);
    os << ptx;
  }
  return llvm::Error::success();
}

CandidateBuilder::CandidateBuilder(ModuleOp payload, BuildOptions options)
    : context(payload.getContext()), options(std::move(options)) {
  llvm::raw_string_ostream os(payloadText);
  payload.print(os);
}

std::string
CandidateBuilder::build(const std::map<std::string, std::string> &knobs,
                        unsigned id, TuningRecord &r) const {
  auto start = std::chrono::steady_clock::now();
  auto elapsedMs = [&] {
    return std::chrono::duration<double, std::milli>(
               std::chrono::steady_clock::now() - start)
        .count();
  };
  MLIRContext ctx(context->getDialectRegistry(),
                  MLIRContext::Threading::DISABLED);
  std::string error;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
    if (d.getSeverity() == DiagnosticSeverity::Error && error.empty()) {
      llvm::raw_string_ostream os(error);
      if (auto loc = dyn_cast<FileLineColLoc>(d.getLocation()))
        os << loc.getFilename().getValue() << ":" << loc.getLine() << ":"
           << loc.getColumn() << ": ";
      os << d;
    }
    return success();
  });
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(payloadText, &ctx);
  std::string dir = llvm::formatv("{0}/trial{1}", options.workDir, id).str();
  PassManager pm(&ctx);
  if (module) {
    TesselApplyScheduleOptions apply;
    apply.schedules = {options.schedule};
    apply.entry = options.entry;
    for (auto &[name, value] : knobs)
      apply.knobs.push_back(name + "=" + value);
    pm.addPass(createTesselApplySchedule(apply));
    LowerToPtxOptions target;
    target.chip = options.chip;
    target.features = options.features;
    buildLowerToPtxPipeline(pm, target);
    TesselExportKernelsOptions exportOptions;
    exportOptions.dir = dir;
    pm.addPass(createTesselExportKernels(exportOptions));
  }
  if (!module || failed(pm.run(*module))) {
    r.compileMs = elapsedMs();
    r.status = "compile-error";
    r.error = error.empty() ? "compilation failed" : error;
    return "";
  }
  std::string specPath;
  for (auto func : module->getOps<func::FuncOp>())
    if (!func.isExternal())
      specPath = dir + "/" + func.getSymName().str() + ".launch.json";
  for (auto &[assignment, kind] : options.faults) {
    auto [name, value] = llvm::StringRef(assignment).split('=');
    auto it = knobs.find(name.str());
    if (it != knobs.end() && it->second == value)
      if (llvm::Error e = injectFault(dir, kind)) {
        r.compileMs = elapsedMs();
        r.status = "compile-error";
        r.error = llvm::toString(std::move(e));
        return "";
      }
  }
  bool assembled = options.ptxas.empty() || assemble(dir, specPath, r);
  r.compileMs = elapsedMs();
  return assembled ? specPath : "";
}

bool CandidateBuilder::assemble(llvm::StringRef dir, llvm::StringRef specPath,
                                TuningRecord &r) const {
  llvm::Regex registers("Used ([0-9]+) registers");
  llvm::Regex spills("([0-9]+) bytes spill stores");
  std::map<std::string, std::string> cubins; // Image -> its cubin.
  for (const std::string &path : ptxFilesIn(dir)) {
    std::string cubin = llvm::sys::path::stem(path).str() + ".cubin";
    std::string out, err, message;
    int rc = runProcess(
        options.ptxas,
        {"-arch=" + options.chip, "-v", path, "-o", (dir + "/" + cubin).str()},
        120, options.workDir, out, err, message);
    if (rc != 0) {
      r.status = "compile-error";
      r.error = "ptxas: " + firstLine(err.empty() ? message : err);
      return false;
    }
    cubins[llvm::sys::path::filename(path).str()] = cubin;
    // "ptxas info    : Used 99 registers, ..." and
    // "    0 bytes stack frame, 16 bytes spill stores, 16 bytes spill loads"
    llvm::SmallVector<llvm::StringRef> groups;
    if (registers.match(err, &groups))
      r.registers = std::max<int64_t>(r.registers, std::stoll(groups[1].str()));
    if (spills.match(err, &groups))
      r.spillBytes =
          std::max<int64_t>(r.spillBytes, std::stoll(groups[1].str()));
  }
  // A kernel that spills is measured like any other: a few bytes of spill
  // stores can leave it the fastest. wgmma's persistent 128x256 tiles with
  // a bias spill 8-24 bytes at 168 registers; the rule picks them for
  // Linear layers, and while spills were rejected the tuner replaced them
  // with non-persistent kernels that raced slower
  // (bench/results/linear/README.md). The record keeps the count.
  // The measurement loads the cubins: no JIT on its path.
  llvm::Expected<HostFunctionSpec> spec = readLaunchSpec(specPath);
  if (!spec) {
    r.status = "compile-error";
    r.error = llvm::toString(spec.takeError());
    return false;
  }
  for (LaunchSpec &launch : spec->launches)
    if (auto it = cubins.find(launch.image); it != cubins.end())
      launch.image = it->second;
  std::error_code ec;
  llvm::raw_fd_ostream os(specPath, ec);
  if (ec) {
    r.status = "compile-error";
    r.error = "cannot write " + specPath.str();
    return false;
  }
  os << llvm::formatv("{0:2}", toJSON(*spec)) << "\n";
  return true;
}
