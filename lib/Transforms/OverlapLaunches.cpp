//===- OverlapLaunches.cpp - Programmatic dependent launch between kernels ===//

#include "tessel/Transforms/Chips.h"
#include "tessel/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace tessel {
#define GEN_PASS_DEF_TESSELOVERLAPLAUNCHES
#include "tessel/Transforms/Passes.h.inc"
} // namespace tessel

using namespace mlir;

namespace {

struct OverlapLaunches
    : tessel::impl::TesselOverlapLaunchesBase<OverlapLaunches> {
  void runOnOperation() override {
    SmallVector<gpu::LaunchOp> launches;
    getOperation().walk(
        [&](gpu::LaunchOp launch) { launches.push_back(launch); });
    // Only the wait: a predecessor that let its dependents launch early
    // (griddepcontrol.launch_dependents first thing) filled the SMs with
    // waiting blocks. Measured on an H100 (docs/any-shape.md): 997x1009x1013
    // f32 went from 237 to 285 us; launched when its predecessor's blocks
    // exit, the same kernel ran in 236 us.
    // drop_begin of an empty range walks past its end: a function without
    // launches (a host helper, or kernels already outlined) read garbage.
    if (launches.size() < 2)
      return;
    // The chip the entry check settled, when it did: chips before sm_90
    // have no griddepcontrol.
    if (auto module = getOperation()->getParentOfType<ModuleOp>())
      if (auto chip =
              module->getAttrOfType<StringAttr>(tessel::kChipAttrName)) {
        std::optional<tessel::Chip> parsed = tessel::parseChip(chip);
        if (!parsed || parsed->sm < 90)
          return;
      }
    OpBuilder b(&getContext());
    for (gpu::LaunchOp launch : llvm::drop_begin(launches)) {
      b.setInsertionPointToStart(&launch.getBody().front());
      NVVM::GriddepcontrolOp::create(b, launch.getLoc(),
                                     NVVM::GridDepActionKind::wait);
    }
  }
};

} // namespace
