//===- AttachNvvmTarget.cpp - An NVVM target for the payload's chip -------===//

#include "tessel/Transforms/Chips.h"
#include "tessel/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinOps.h"

namespace tessel {
#define GEN_PASS_DEF_TESSELATTACHNVVMTARGET
#include "tessel/Transforms/Passes.h.inc"
} // namespace tessel

using namespace mlir;

namespace {

struct AttachNvvmTarget
    : tessel::impl::TesselAttachNvvmTargetBase<AttachNvvmTarget> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::string target = chip;
    if (auto recorded =
            module->getAttrOfType<StringAttr>(tessel::kChipAttrName))
      target = recorded.str();
    std::optional<int> minPtx = tessel::minimumPtxVersion(target);
    if (!minPtx) {
      module.emitError() << "chip '" << target
                         << "' is not a chip Tessel compiles for (sm_70 ... "
                            "sm_120a)";
      return signalPassFailure();
    }
    FailureOr<int> ptx = tessel::ptxVersion(features);
    if (failed(ptx)) {
      module.emitError() << "malformed PTX feature in '" << features << "'";
      return signalPassFailure();
    }
    if (*ptx < *minPtx) {
      module.emitError() << "PTX version " << *ptx / 10 << "." << *ptx % 10
                         << " (features=" << features << ") does not support "
                         << target << ": use features=+ptx" << *minPtx
                         << " or higher";
      return signalPassFailure();
    }
    auto nvvm = NVVM::NVVMTargetAttr::get(
        &getContext(), optLevel, "nvptx64-nvidia-cuda", target, features);
    module.walk([&](gpu::GPUModuleOp gpuModule) {
      if (!gpuModule.getTargetsAttr())
        gpuModule.setTargetsAttr(ArrayAttr::get(&getContext(), {nvvm}));
    });
  }
};

} // namespace
