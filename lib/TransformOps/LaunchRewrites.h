//===- LaunchRewrites.h - Rewrites of a gpu.launch's blocks -----*- C++ -*-===//
//
// What the wgmma rewrite does to the launch around a block's matmul once
// its kernel body is emitted: persistent blocks that walk the former grid's
// tiles (the block's index-dependent computations recomputed per tile),
// the cluster partner's tile values recomputed from the partner's index,
// and the launch relaunched in thread-block clusters. Kept apart from the
// emitter: these read and rewrite the launch, not the kernel's pipeline.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_TRANSFORMOPS_LAUNCHREWRITES_H
#define TESSEL_LIB_TRANSFORMOPS_LAUNCHREWRITES_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

#include <array>

namespace tessel {

/// The unit attribute marking a stand-in (an unrealized cast) for a value of
/// the block's tile as the cluster partner's tile has it (resolvePartners).
inline constexpr llvm::StringLiteral kPartnerAttr = "tessel.cluster_partner";

/// The values of `launch`'s body that name its block: the launch's block
/// ids and grid sizes, and the gpu.block_id and gpu.grid_dim ops in it.
llvm::SmallVector<mlir::Value> blockIndexValues(mlir::gpu::LaunchOp launch);

/// The first computation of `launch`'s body that depends on the block's
/// index and that a persistent block could not recompute for each of its
/// tiles (one with memory effects or regions), leaving out the ops in
/// `replaced` (the block matmul's, which the rewrite replaces); null when
/// there is none.
mlir::Operation *
findUnrecomputable(mlir::gpu::LaunchOp launch,
                   const llvm::DenseSet<mlir::Operation *> &replaced);

/// Makes `launch` persistent once its tile loops (`loops`, over the tiles of
/// its `grid`, linearized) are emitted: inside each loop, the computations
/// of the body that depend on the block's index (its tile's offsets and
/// views, `indexValues` naming the block) are recomputed from the loop's
/// tile (`tiles`, one per loop: its induction variable, or a value its body
/// computes first), the originals are erased, and the launch gets `blocks`
/// blocks along x (one per tile, or for stream-K as many as may share its
/// K steps), which a runtime may launch fewer of. Fails, with an error, if
/// the block's index is still read outside the loops.
mlir::LogicalResult makePersistent(mlir::RewriterBase &rewriter,
                                   mlir::gpu::LaunchOp launch,
                                   llvm::ArrayRef<mlir::scf::ForOp> loops,
                                   llvm::ArrayRef<mlir::Value> tiles,
                                   llvm::ArrayRef<mlir::Value> indexValues,
                                   std::array<int64_t, 3> grid, int64_t blocks);

/// Resolves the partner stand-ins of `launch` (kPartnerAttr): each becomes
/// its value recomputed for the partner, from the block index along
/// `clusterDim` with its lowest bit flipped or, in a persistent kernel,
/// from the tile loop's tile with its lowest bit flipped (an even grid
/// pairs tiles 2i and 2i + 1).
mlir::LogicalResult resolvePartners(mlir::RewriterBase &rewriter,
                                    mlir::gpu::LaunchOp launch,
                                    mlir::gpu::Dimension clusterDim,
                                    bool persistent);

/// Relaunches `launch` in clusters of `size` blocks along `dim`. With
/// `shareIndex` (split-K, along z), the grid's extent along `dim` grows
/// `size` times, and the body sees its former block index and grid size
/// along `dim` divided by `size` (the blocks of a cluster share them; a
/// block's rank in its cluster is the remainder); otherwise the grid and
/// the body's block indices stay as they are. The old launch is erased:
/// its body's arguments and its gpu.block_id / gpu.grid_dim reads along
/// `dim` are replaced, so values held from before must be read again from
/// the new body.
mlir::gpu::LaunchOp launchInClusters(mlir::RewriterBase &rewriter,
                                     mlir::gpu::LaunchOp launch,
                                     mlir::gpu::Dimension dim, int64_t size,
                                     bool shareIndex);

} // namespace tessel

#endif // TESSEL_LIB_TRANSFORMOPS_LAUNCHREWRITES_H
