//===- CopyToAlignedRows.cpp - Misaligned matrices from aligned copies ---===//
//
// transform.tessel.copy_to_aligned_rows: a launch's read-only matrices
// whose rows are misaligned are copied, before the launch, into workspaces
// with 128-byte rows (copyToAlignedRows, shared with the tensor-core
// rewrites), and the launch reads the copies.
//
//===----------------------------------------------------------------------===//

#include "tessel/TransformOps/TesselTransformOps.h"

#include "BlockMatmul.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tessel;

/// Whether every use of `value` (and of the subviews of it) inside
/// `region` reads: subviews, vector transfer reads and loads. Sets `other`
/// to the first other user.
static bool onlyRead(Value value, Region &region, Operation *&other) {
  for (OpOperand &use : value.getUses()) {
    Operation *user = use.getOwner();
    if (!region.isAncestor(user->getParentRegion()))
      continue;
    if (auto subview = dyn_cast<memref::SubViewOp>(user)) {
      if (subview.getSource() != value ||
          subview.getType().getRank() != subview.getSourceType().getRank() ||
          !onlyRead(subview.getResult(), region, other))
        return false;
      continue;
    }
    if (isa<vector::TransferReadOp, vector::LoadOp, memref::LoadOp>(user))
      continue;
    other = user;
    return false;
  }
  return true;
}

/// Makes the reads of `from` inside `region` read `to` (same shape, another
/// layout), recreating the subviews in between with the new layout.
static void replaceReads(RewriterBase &rewriter, Value from, Value to,
                         Region &region) {
  for (OpOperand &use : llvm::make_early_inc_range(from.getUses())) {
    Operation *user = use.getOwner();
    if (!region.isAncestor(user->getParentRegion()))
      continue;
    if (auto subview = dyn_cast<memref::SubViewOp>(user)) {
      rewriter.setInsertionPoint(subview);
      auto replacement = memref::SubViewOp::create(
          rewriter, subview.getLoc(), to, subview.getMixedOffsets(),
          subview.getMixedSizes(), subview.getMixedStrides());
      replaceReads(rewriter, subview.getResult(), replacement.getResult(),
                   region);
      rewriter.eraseOp(subview);
      continue;
    }
    rewriter.modifyOpInPlace(user, [&] { use.set(to); });
  }
}

DiagnosedSilenceableFailure
tessel::CopyToAlignedRowsOp::apply(transform::TransformRewriter &rewriter,
                                   transform::TransformResults &results,
                                   transform::TransformState &state) {
  int64_t alignment = getAlignment();
  if (alignment <= 0 || !llvm::isPowerOf2_64(alignment))
    return emitDefiniteFailure()
           << "alignment = " << alignment << " must be a power of two";
  for (Operation *target : state.getPayloadOps(getTarget())) {
    auto launch = dyn_cast<gpu::LaunchOp>(target);
    if (!launch)
      return failOnTarget(*this, target, "expected a gpu.launch");
    Region &body = launch.getBody();
    llvm::SetVector<Value> captured;
    getUsedValuesDefinedAbove(body, captured);
    SmallVector<Value> misaligned;
    for (Value value : captured) {
      auto type = dyn_cast<MemRefType>(value.getType());
      if (!type || !isCopyable(type) || !type.getElementType().isIntOrFloat() ||
          hasAlignedRows(type, alignment) ||
          type.getNumElements() < int64_t(getMinElements()))
        continue;
      // A written buffer (the output) stays: its stores are split.
      Operation *other = nullptr;
      if (onlyRead(value, body, other))
        misaligned.push_back(value);
    }
    SmallVector<Value> workspaces =
        copyToAlignedRows(rewriter, launch, misaligned);
    for (auto [value, ws] : llvm::zip_equal(misaligned, workspaces)) {
      auto type = cast<MemRefType>(value.getType());
      rewriter.setInsertionPointToStart(&body.front());
      Value view = memref::SubViewOp::create(
          rewriter, launch.getLoc(), ws,
          SmallVector<int64_t>(type.getRank(), 0), type.getShape(),
          SmallVector<int64_t>(type.getRank(), 1));
      replaceReads(rewriter, value, view, body);
    }
  }
  return DiagnosedSilenceableFailure::success();
}

void tessel::CopyToAlignedRowsOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  transform::onlyReadsHandle(getTargetMutable(), effects);
  transform::modifiesPayload(effects);
}
