//===- SerializeToPtx.cpp - GPU modules to PTX, LLVM errors reported ------===//

#include "tessel/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

namespace tessel {
#define GEN_PASS_DEF_TESSELSERIALIZETOPTX
#include "tessel/Transforms/Passes.h.inc"
} // namespace tessel

using namespace mlir;

namespace {

struct SerializeToPtx : tessel::impl::TesselSerializeToPtxBase<SerializeToPtx> {
  using Base::Base;
  void runOnOperation() override;
};

/// Where LLVM's fatal errors are reported while the GPU modules compile.
struct FatalErrorSite {
  Location loc;
  std::string modules;
};

/// LLVM's fatal-error handler while compiling: the message as an error at
/// the GPU modules, then exit status 1. It must not return: LLVM aborts
/// when it does.
[[noreturn]] static void reportFatalError(void *data, const char *reason,
                                          bool /*genCrashDiag*/) {
  auto *site = static_cast<FatalErrorSite *>(data);
  emitError(site->loc)
      << "LLVM's NVPTX backend cannot compile GPU module " << site->modules
      << ": " << reason
      << " (an operation the chip or NVPTX does not have, or LLVM-dialect "
         "input it cannot lower)";
  llvm::errs().flush();
  llvm::outs().flush();
  // Removes the output file, as LLVM's own fatal-error path does.
  llvm::sys::RunInterruptHandlers();
  std::exit(1);
}

} // namespace

void SerializeToPtx::runOnOperation() {
  ModuleOp module = getOperation();
  auto gpuModules = llvm::to_vector(module.getOps<gpu::GPUModuleOp>());
  if (gpuModules.empty())
    return;
  FatalErrorSite site{gpuModules.front().getLoc(), ""};
  site.modules =
      llvm::join(llvm::map_range(gpuModules,
                                 [](gpu::GPUModuleOp m) {
                                   return "'" + m.getName().str() + "'";
                                 }),
                 " or ");

  OpPassManager pipeline(ModuleOp::getOperationName());
  GpuModuleToBinaryPassOptions toBinary;
  toBinary.compilationTarget = "isa";
  pipeline.addPass(createGpuModuleToBinaryPass(toBinary));
  llvm::ScopedFatalErrorHandler guard(reportFatalError, &site);
  if (failed(runPipeline(pipeline, module)))
    signalPassFailure();
}
