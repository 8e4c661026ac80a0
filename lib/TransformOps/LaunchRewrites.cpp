//===- LaunchRewrites.cpp - Rewrites of a gpu.launch's blocks -------------===//
//
// Persistent blocks, cluster partners' tile values and clusters for the
// wgmma rewrite (LaunchRewrites.h).
//
//===----------------------------------------------------------------------===//

#include "LaunchRewrites.h"
#include "tessel/TransformOps/WgmmaLayout.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace tessel {

SmallVector<Value> blockIndexValues(gpu::LaunchOp launch) {
  gpu::KernelDim3 ids = launch.getBlockIds(), grid = launch.getGridSize();
  SmallVector<Value> values{ids.x, ids.y, ids.z, grid.x, grid.y, grid.z};
  launch.getBody().walk([&](Operation *op) {
    if (isa<gpu::BlockIdOp, gpu::GridDimOp>(op))
      values.push_back(op->getResult(0));
  });
  return values;
}

/// The first computation of `launch`'s body that depends on the block's
/// index and that a persistent block could not recompute for each of its
/// tiles (one with memory effects or regions), leaving out the ops in
/// `replaced` (the block matmul's, which the rewrite replaces); null when
/// there is none.
Operation *findUnrecomputable(gpu::LaunchOp launch,
                              const DenseSet<Operation *> &replaced) {
  SmallVector<Value> worklist = blockIndexValues(launch);
  DenseSet<Operation *> seen;
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (replaced.contains(user) || !seen.insert(user).second)
        continue;
      if (!isMemoryEffectFree(user) || user->getNumRegions() > 0)
        return user;
      llvm::append_range(worklist, user->getResults());
    }
  }
  return nullptr;
}

/// `v` recomputed with the values `map` holds replaced by theirs: each op
/// inside `scope` on a path from a mapped value to `v` is cloned at the
/// rewriter's insertion point (and recorded in `map`); values that depend
/// on no mapped one are `v` as it is (and recorded in `independent`).
/// Fails if such an op has memory effects or regions.
static FailureOr<Value> recomputeWith(RewriterBase &rewriter, Operation *scope,
                                      IRMapping &map,
                                      DenseSet<Value> &independent, Value v) {
  if (Value mapped = map.lookupOrNull(v))
    return mapped;
  Operation *def = v.getDefiningOp();
  if (independent.contains(v) || !def || !scope->isProperAncestor(def))
    return v;
  bool depends = false;
  for (Value operand : def->getOperands()) {
    FailureOr<Value> r =
        recomputeWith(rewriter, scope, map, independent, operand);
    if (failed(r))
      return failure();
    depends |= *r != operand;
  }
  if (!depends) {
    independent.insert(v);
    return v;
  }
  if (!isMemoryEffectFree(def) || def->getNumRegions() > 0)
    return failure();
  rewriter.clone(*def, map);
  return map.lookup(v);
}

LogicalResult makePersistent(RewriterBase &rewriter, gpu::LaunchOp launch,
                             ArrayRef<scf::ForOp> loops, ArrayRef<Value> tiles,
                             ArrayRef<Value> indexValues,
                             std::array<int64_t, 3> grid, int64_t blocks) {
  Location loc = launch.getLoc();
  gpu::KernelDim3 ids = launch.getBlockIds(), sizes = launch.getGridSize();
  for (auto [constLoop, t] : llvm::zip_equal(loops, tiles)) {
    scf::ForOp loop = constLoop;
    OpBuilder::InsertionGuard guard(rewriter);
    if (Operation *def = t.getDefiningOp())
      rewriter.setInsertionPointAfter(def);
    else
      rewriter.setInsertionPointToStart(loop.getBody());
    auto cst = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(rewriter, loc, v);
    };
    // Tile t's block index in the former grid, x fastest.
    Value x = arith::RemUIOp::create(rewriter, loc, t, cst(grid[0]));
    Value row = arith::DivUIOp::create(rewriter, loc, t, cst(grid[0]));
    Value y = arith::RemUIOp::create(rewriter, loc, row, cst(grid[1]));
    Value z = arith::DivUIOp::create(rewriter, loc, t, cst(grid[0] * grid[1]));
    Value block[3] = {x, y, z};
    IRMapping map;
    auto dimIndex = [](gpu::Dimension d) { return static_cast<int>(d); };
    for (Value v : indexValues) {
      int d;
      bool isId;
      if (auto id = v.getDefiningOp<gpu::BlockIdOp>())
        d = dimIndex(id.getDimension()), isId = true;
      else if (auto size = v.getDefiningOp<gpu::GridDimOp>())
        d = dimIndex(size.getDimension()), isId = false;
      else if (v == ids.x || v == ids.y || v == ids.z)
        d = v == ids.x ? 0 : v == ids.y ? 1 : 2, isId = true;
      else
        d = v == sizes.x ? 0 : v == sizes.y ? 1 : 2, isId = false;
      map.map(v, isId ? block[d] : cst(grid[d]));
    }
    // Values of the body that do not depend on the block's index.
    DenseSet<Value> independent;
    SmallVector<OpOperand *> uses;
    loop.getBody()->walk([&](Operation *op) {
      for (OpOperand &use : op->getOpOperands())
        if (!loop->isAncestor(use.get().getParentRegion()->getParentOp()))
          uses.push_back(&use);
    });
    for (OpOperand *use : uses) {
      FailureOr<Value> r =
          recomputeWith(rewriter, launch, map, independent, use->get());
      if (failed(r))
        return launch.emitError()
               << "persistent: a computation of the block's tile cannot be "
                  "recomputed for each tile";
      if (*r != use->get())
        rewriter.modifyOpInPlace(use->getOwner(), [&] { use->set(*r); });
    }
  }
  // What depended on the block's index outside the loops is now unused
  // (the tile views the replaced ops read, the recomputed originals):
  // erased, users first.
  llvm::SetVector<Operation *> dependent;
  SmallVector<Value> worklist(indexValues);
  while (!worklist.empty())
    for (Operation *user : worklist.pop_back_val().getUsers())
      if (!loops.front()->isAncestor(user) && !loops.back()->isAncestor(user) &&
          dependent.insert(user))
        llvm::append_range(worklist, user->getResults());
  for (bool erased = true; erased;) {
    erased = false;
    for (Operation *op : llvm::reverse(dependent))
      if (op->use_empty() && isMemoryEffectFree(op)) {
        dependent.remove(op);
        rewriter.eraseOp(op);
        erased = true;
        break;
      }
  }
  for (Value v : indexValues) {
    Operation *def = v.getDefiningOp();
    if (def && def->use_empty()) {
      rewriter.eraseOp(def);
      continue;
    }
    if (!v.use_empty())
      return launch.emitError() << "persistent: the block's index is still "
                                   "read outside its tile loops";
  }
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(launch);
  Value launched = arith::ConstantIndexOp::create(rewriter, loc, blocks);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  rewriter.modifyOpInPlace(launch, [&] {
    launch.getGridSizeXMutable().assign(launched);
    launch.getGridSizeYMutable().assign(one);
    launch.getGridSizeZMutable().assign(one);
  });
  return success();
}

LogicalResult resolvePartners(RewriterBase &rewriter, gpu::LaunchOp launch,
                              gpu::Dimension clusterDim, bool persistent) {
  SmallVector<UnrealizedConversionCastOp> partners;
  launch.getBody().walk([&](UnrealizedConversionCastOp cast) {
    if (cast->hasAttr(kPartnerAttr))
      partners.push_back(cast);
  });
  if (partners.empty())
    return success();
  // The stand-ins follow each other in the producer's block
  // (findSharedOperands): one mapping serves them all, its clones placed
  // before the first, so that the values they share (the group_m order)
  // are recomputed once.
  UnrealizedConversionCastOp first = partners.front();
  for (UnrealizedConversionCastOp partner : partners)
    if (partner->getBlock() != first->getBlock())
      return partner.emitError("the cluster partner's tile values are not "
                               "in one block");
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(first);
  Location loc = first.getLoc();
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  auto flip = [&](Value v) -> Value {
    return arith::XOrIOp::create(rewriter, loc, v, one);
  };
  IRMapping map;
  if (persistent) {
    auto loop = first->getParentOfType<scf::ForOp>();
    while (loop && !loop->hasAttr(wgmma::kPersistentTilesAttr))
      loop = loop->getParentOfType<scf::ForOp>();
    if (!loop)
      return first.emitError("a cluster partner's tile outside the tile "
                             "loop");
    map.map(loop.getInductionVar(), flip(loop.getInductionVar()));
  } else {
    // Every name of the block's index along the cluster's dimension.
    gpu::KernelDim3 ids = launch.getBlockIds();
    Value id = clusterDim == gpu::Dimension::x   ? ids.x
               : clusterDim == gpu::Dimension::y ? ids.y
                                                 : ids.z;
    Value partnerId = flip(id);
    map.map(id, partnerId);
    launch.getBody().walk([&](gpu::BlockIdOp op) {
      if (op.getDimension() == clusterDim)
        map.map(op.getResult(), partnerId);
    });
  }
  DenseSet<Value> independent;
  for (UnrealizedConversionCastOp partner : partners) {
    FailureOr<Value> value = recomputeWith(rewriter, launch, map, independent,
                                           partner.getOperand(0));
    if (failed(value))
      return partner.emitError("a cluster partner's tile cannot be "
                               "recomputed from its block index");
    rewriter.replaceOp(partner, *value);
  }
  return success();
}

gpu::LaunchOp launchInClusters(RewriterBase &rewriter, gpu::LaunchOp launch,
                               gpu::Dimension dim, int64_t size,
                               bool shareIndex) {
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(launch);
  Location loc = launch.getLoc();
  auto cst = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, v);
  };
  unsigned d = static_cast<unsigned>(dim);
  gpu::KernelDim3 gridOperands = launch.getGridSizeOperandValues();
  SmallVector<Value> grid{gridOperands.x, gridOperands.y, gridOperands.z};
  if (shareIndex)
    grid[d] = arith::MulIOp::create(rewriter, loc, grid[d], cst(size));
  SmallVector<Value> cluster{cst(1), cst(1), cst(1)};
  cluster[d] = cst(size);
  gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
  auto clustered = gpu::LaunchOp::create(
      rewriter, loc, grid[0], grid[1], grid[2], block.x, block.y, block.z,
      launch.getDynamicSharedMemorySize(),
      launch.getAsyncToken() ? launch.getAsyncToken().getType() : Type(),
      launch.getAsyncDependencies(), TypeRange(), TypeRange(), cluster[0],
      cluster[1], cluster[2]);
  Block &body = clustered.getBody().front();
  // The builder gives the body the 12 arguments of a launch without
  // clusters; one with clusters also has their ids and sizes.
  while (body.getNumArguments() < gpu::LaunchOp::kNumConfigRegionAttributes + 6)
    body.addArgument(rewriter.getIndexType(), loc);
  rewriter.setInsertionPointToStart(&body);
  auto perCluster = [&](Value v) -> Value {
    return arith::DivUIOp::create(rewriter, loc, v, cst(size));
  };
  gpu::KernelDim3 ids = clustered.getBlockIds();
  gpu::KernelDim3 threads = clustered.getThreadIds();
  gpu::KernelDim3 gridSize = clustered.getGridSize();
  gpu::KernelDim3 blockSize = clustered.getBlockSize();
  SmallVector<Value> replacements{ids.x,       ids.y,       ids.z,
                                  threads.x,   threads.y,   threads.z,
                                  gridSize.x,  gridSize.y,  gridSize.z,
                                  blockSize.x, blockSize.y, blockSize.z};
  if (shareIndex) {
    replacements[d] = perCluster(replacements[d]);
    replacements[6 + d] = perCluster(replacements[6 + d]);
  }
  // The builder leaves the body without a terminator: the old one moves.
  rewriter.mergeBlocks(&launch.getBody().front(), &body, replacements);
  // The body may also read them through gpu.block_id and gpu.grid_dim
  // (the batch blocks' indices do).
  if (shareIndex) {
    Value blockIndex = replacements[d], gridExtent = replacements[6 + d];
    SmallVector<Operation *> reads;
    clustered.getBody().walk([&](Operation *op) {
      if (auto id = dyn_cast<gpu::BlockIdOp>(op);
          id && id.getDimension() == dim)
        reads.push_back(op);
      if (auto extent = dyn_cast<gpu::GridDimOp>(op);
          extent && extent.getDimension() == dim)
        reads.push_back(op);
    });
    for (Operation *op : reads)
      rewriter.replaceOp(op, isa<gpu::BlockIdOp>(op) ? blockIndex : gridExtent);
  }
  rewriter.replaceOp(launch, clustered);
  return clustered;
}

} // namespace tessel
