//===- RequireClusterDims.cpp - Kernels compiled for their cluster shape --===//

#include "tessel/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"

namespace tessel {
#define GEN_PASS_DEF_TESSELREQUIRECLUSTERDIMS
#include "tessel/Transforms/Passes.h.inc"
} // namespace tessel

using namespace mlir;

namespace {

struct RequireClusterDims
    : tessel::impl::TesselRequireClusterDimsBase<RequireClusterDims> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTableCollection symbols;
    StringRef name = NVVM::NVVMDialect::getClusterDimAttrName();
    WalkResult result = module.walk([&](gpu::LaunchFuncOp launch) {
      if (!launch.hasClusterSize())
        return WalkResult::advance();
      gpu::KernelDim3 cluster = launch.getClusterSizeOperandValues();
      SmallVector<int32_t> dims;
      for (Value size : {cluster.x, cluster.y, cluster.z}) {
        APInt value;
        if (!matchPattern(size, m_ConstantInt(&value)) ||
            value.getSExtValue() < 1 || value.getSExtValue() > INT32_MAX) {
          launch.emitError() << "the cluster size of a launch must be a "
                                "positive constant";
          return WalkResult::interrupt();
        }
        dims.push_back(int32_t(value.getSExtValue()));
      }
      auto kernel = symbols.lookupNearestSymbolFrom<gpu::GPUFuncOp>(
          launch, launch.getKernel());
      if (!kernel) {
        launch.emitError() << "the launched kernel " << launch.getKernel()
                           << " is not a gpu.func of this module";
        return WalkResult::interrupt();
      }
      auto attr = DenseI32ArrayAttr::get(&getContext(), dims);
      if (auto existing = kernel->getAttrOfType<DenseI32ArrayAttr>(name);
          existing && existing != attr) {
        launch.emitError() << "kernel " << launch.getKernel()
                           << " is launched in clusters of two shapes";
        return WalkResult::interrupt();
      }
      kernel->setAttr(name, attr);
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
