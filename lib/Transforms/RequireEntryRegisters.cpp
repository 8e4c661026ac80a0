//===- RequireEntryRegisters.cpp - Blocks per SM for ptxas ----------------===//

#include "tessel/TransformOps/WgmmaLayout.h"
#include "tessel/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinOps.h"

namespace tessel {
#define GEN_PASS_DEF_TESSELREQUIREENTRYREGISTERS
#include "tessel/Transforms/Passes.h.inc"
} // namespace tessel

using namespace mlir;

namespace {

struct RequireEntryRegisters
    : tessel::impl::TesselRequireEntryRegistersBase<RequireEntryRegisters> {
  void runOnOperation() override {
    StringRef name = NVVM::NVVMDialect::getMinctasmAttrName();
    WalkResult result = getOperation().walk([&](gpu::GPUFuncOp kernel) {
      if (!kernel.isKernel())
        return WalkResult::advance();
      // What the kernel needs: one block per SM where it moves registers
      // (setmaxnreg), else the blocks per SM its marks ask for, if any.
      bool rebalances = false;
      std::optional<int64_t> marked;
      WalkResult inner =
          kernel.walk([&](Operation *op) {
            if (isa<NVVM::SetMaxRegisterOp>(op))
              rebalances = true;
            auto mark =
                op->getAttrOfType<IntegerAttr>(tessel::wgmma::kBlocksPerSMAttr);
            if (!mark)
              return WalkResult::advance();
            if (mark.getInt() < 1 || mark.getInt() > INT32_MAX ||
                (marked && *marked != mark.getInt())) {
              op->emitError()
                  << "kernel " << kernel.getName() << " asks for "
                  << mark.getInt() << " blocks per SM ("
                  << tessel::wgmma::kBlocksPerSMAttr << ")"
                  << (marked ? ", and elsewhere for " + std::to_string(*marked)
                             : std::string());
              return WalkResult::interrupt();
            }
            marked = mark.getInt();
            return WalkResult::advance();
          });
      if (inner.wasInterrupted())
        return WalkResult::interrupt();
      if (!rebalances && !marked)
        return WalkResult::advance();
      int64_t blocks = rebalances ? 1 : *marked;
      // Why the kernel needs `blocks`, then what contradicts it.
      auto conflict = [&](int64_t other, StringRef attr, StringRef verb) {
        InFlightDiagnostic diag = kernel.emitError()
                                  << "kernel " << kernel.getName();
        if (rebalances)
          diag << " moves registers between warpgroups (setmaxnreg), which "
                  "needs one block per SM, but ";
        else
          diag << " is sized for " << blocks << " blocks per SM, but ";
        diag << verb << " " << other << " (" << attr << ")";
        return WalkResult::interrupt();
      };
      if (rebalances && marked && *marked != 1)
        return conflict(*marked, tessel::wgmma::kBlocksPerSMAttr,
                        "is marked for");
      if (auto existing = kernel->getAttrOfType<IntegerAttr>(name);
          existing && existing.getInt() != blocks)
        return conflict(existing.getInt(), name, "asks for");
      kernel->setAttr(
          name, IntegerAttr::get(IntegerType::get(&getContext(), 32), blocks));
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
