//===- PersistentLaunches.cpp - Persistent kernels, launched as they run --===//

#include "tessel/TransformOps/WgmmaLayout.h"
#include "tessel/Transforms/LaunchMetadata.h"
#include "tessel/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"

namespace tessel {
#define GEN_PASS_DEF_TESSELPERSISTENTLAUNCHES
#include "tessel/Transforms/Passes.h.inc"
} // namespace tessel

using namespace mlir;

namespace {

struct PersistentLaunches
    : tessel::impl::TesselPersistentLaunchesBase<PersistentLaunches> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The persistent kernels and their tile counts.
    llvm::DenseMap<gpu::GPUFuncOp, int64_t> tilesOf;
    WalkResult marked = module.walk([&](gpu::GPUFuncOp kernel) {
      WalkResult inner = kernel.walk([&](Operation *op) {
        auto tiles = op->getAttrOfType<IntegerAttr>(tessel::wgmma::kPersistentTilesAttr);
        if (!tiles)
          return WalkResult::advance();
        auto [it, inserted] = tilesOf.try_emplace(kernel, tiles.getInt());
        if (!inserted && it->second != tiles.getInt()) {
          op->emitError() << "the tile loops of a persistent kernel disagree "
                             "on its number of tiles";
          return WalkResult::interrupt();
        }
        return WalkResult::advance();
      });
      if (inner.wasInterrupted())
        return WalkResult::interrupt();
      if (tilesOf.contains(kernel))
        kernel->removeAttr(kernel.getKnownGridSizeAttrName());
      return WalkResult::advance();
    });
    if (marked.wasInterrupted())
      return signalPassFailure();
    if (tilesOf.empty())
      return;
    SymbolTableCollection symbols;
    WalkResult result = module.walk([&](gpu::LaunchFuncOp launch) {
      auto kernel = symbols.lookupNearestSymbolFrom<gpu::GPUFuncOp>(
          launch, launch.getKernel());
      auto it = kernel ? tilesOf.find(kernel) : tilesOf.end();
      if (it == tilesOf.end())
        return WalkResult::advance();
      gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
      APInt x, y, z;
      // Clusters, if any, pair blocks along x (cluster = 2 of the wgmma
      // rewrite): a runtime launches a multiple of their size.
      bool clustersAlongX = true;
      if (launch.hasClusterSize()) {
        std::optional<gpu::KernelDim3> cluster =
            launch.getClusterSizeOperandValues();
        APInt cx, cy, cz;
        clustersAlongX = matchPattern(cluster->x, m_ConstantInt(&cx)) &&
                         matchPattern(cluster->y, m_ConstantInt(&cy)) &&
                         matchPattern(cluster->z, m_ConstantInt(&cz)) &&
                         cy.isOne() && cz.isOne() && cx.getSExtValue() >= 1 &&
                         it->second % cx.getSExtValue() == 0;
      }
      if (!clustersAlongX || !matchPattern(grid.x, m_ConstantInt(&x)) ||
          !matchPattern(grid.y, m_ConstantInt(&y)) ||
          !matchPattern(grid.z, m_ConstantInt(&z)) ||
          x.getSExtValue() != it->second || !y.isOne() || !z.isOne()) {
        launch.emitError() << "a persistent kernel of " << it->second
                           << " tiles must be launched with a constant grid "
                              "of "
                           << it->second
                           << " x 1 x 1 blocks, in clusters (if any) along "
                              "x whose size divides it";
        return WalkResult::interrupt();
      }
      launch->setAttr(tessel::kPersistentLaunchAttrName,
                      UnitAttr::get(&getContext()));
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
