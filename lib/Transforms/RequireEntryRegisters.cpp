//===- RequireEntryRegisters.cpp - A known register count for setmaxnreg --===//

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
    auto one = IntegerAttr::get(IntegerType::get(&getContext(), 32), 1);
    WalkResult result = getOperation().walk([&](gpu::GPUFuncOp kernel) {
      if (!kernel.isKernel() ||
          !kernel.walk([](NVVM::SetMaxRegisterOp) {
                   return WalkResult::interrupt();
                 }).wasInterrupted())
        return WalkResult::advance();
      if (auto existing = kernel->getAttrOfType<IntegerAttr>(name);
          existing && existing.getInt() != 1) {
        kernel.emitError() << "kernel " << kernel.getName()
                           << " moves registers between warpgroups "
                              "(setmaxnreg), which needs one block per SM, "
                              "but asks for "
                           << existing.getInt() << " (" << name << ")";
        return WalkResult::interrupt();
      }
      kernel->setAttr(name, one);
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
