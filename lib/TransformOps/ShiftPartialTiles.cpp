//===- ShiftPartialTiles.cpp - Full tiles for shapes the tile does not divide -===//
//
// transform.tessel.shift_partial_tiles: the last, partial tile of each
// dimension of a tiled scf.forall moves back so that it ends at the
// dimension's end and is full; it overlaps its neighbour. Every tile then
// has a static size, and the code that computes a tile needs no masks.
//
//===----------------------------------------------------------------------===//

#include "tessel/TransformOps/TesselTransformOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;

namespace {

/// How tiling used one induction variable: the tiles' offsets
/// (`affine.apply (i * T)`) and sizes (`affine.min (T, D - i * T)`).
struct TiledDim {
  int64_t tile = 0, size = 0;
  SmallVector<affine::AffineApplyOp> offsets;
  SmallVector<affine::AffineMinOp> sizes;
};

} // namespace

/// Matches `(d0) -> (d0 * T)`; returns T.
static std::optional<int64_t> matchOffset(AffineMap map) {
  if (map.getNumDims() != 1 || map.getNumSymbols() != 0 ||
      map.getNumResults() != 1)
    return std::nullopt;
  AffineExpr d0 = getAffineDimExpr(0, map.getContext());
  auto bin = dyn_cast<AffineBinaryOpExpr>(map.getResult(0));
  if (!bin || bin.getKind() != AffineExprKind::Mul || bin.getLHS() != d0)
    return std::nullopt;
  auto t = dyn_cast<AffineConstantExpr>(bin.getRHS());
  if (!t || t.getValue() <= 0)
    return std::nullopt;
  return t.getValue();
}

/// Matches `(d0) -> (T, d0 * -T + D)` in either order; returns (T, D).
static std::optional<std::pair<int64_t, int64_t>> matchSize(AffineMap map) {
  if (map.getNumDims() != 1 || map.getNumSymbols() != 0 ||
      map.getNumResults() != 2)
    return std::nullopt;
  MLIRContext *ctx = map.getContext();
  for (int first = 0; first < 2; ++first) {
    auto t = dyn_cast<AffineConstantExpr>(map.getResult(first));
    if (!t || t.getValue() <= 0)
      continue;
    AffineExpr rest = map.getResult(1 - first);
    // D is the rest at d0 = 0.
    auto d = dyn_cast<AffineConstantExpr>(simplifyAffineExpr(
        rest.replaceDims({getAffineConstantExpr(0, ctx)}), 0, 0));
    if (!d)
      continue;
    AffineExpr expected =
        getAffineDimExpr(0, ctx) * (-t.getValue()) + d.getValue();
    if (simplifyAffineExpr(rest - expected, 1, 0) ==
        getAffineConstantExpr(0, ctx))
      return std::make_pair(t.getValue(), d.getValue());
  }
  return std::nullopt;
}

/// Whether the forall's shared output `out` is only written: inserted into
/// by the terminator, or sliced into inits of linalg ops whose bodies do not
/// read them. Otherwise an overlapping tile would read elements that
/// another tile may already have written.
static bool isWriteOnly(BlockArgument out, Operation *&reader) {
  for (OpOperand &use : out.getUses()) {
    Operation *user = use.getOwner();
    if (isa<tensor::ParallelInsertSliceOp>(user))
      continue;
    auto slice = dyn_cast<tensor::ExtractSliceOp>(user);
    if (!slice) {
      reader = user;
      return false;
    }
    for (OpOperand &sliceUse : slice->getUses()) {
      auto linalgOp = dyn_cast<linalg::LinalgOp>(sliceUse.getOwner());
      if (!linalgOp || !linalgOp.isDpsInit(&sliceUse) ||
          linalgOp.payloadUsesValueFromOperand(&sliceUse)) {
        reader = sliceUse.getOwner();
        return false;
      }
    }
  }
  return true;
}

DiagnosedSilenceableFailure
tessel::ShiftPartialTilesOp::apply(transform::TransformRewriter &rewriter,
                                   transform::TransformResults &results,
                                   transform::TransformState &state) {
  for (Operation *target : state.getPayloadOps(getTarget())) {
    auto fail = [&](const Twine &message, Operation *at = nullptr) {
      DiagnosedSilenceableFailure diag = failOnTarget(*this, target, message);
      if (at)
        diag.attachNote(at->getLoc()) << "here";
      return diag;
    };
    auto forall = dyn_cast<scf::ForallOp>(target);
    if (!forall || !forall.isNormalized())
      return fail("expected a normalized scf.forall (zero lower bounds, "
                  "unit steps), as tile_using_forall produces");
    std::optional<SmallVector<int64_t>> trips =
        getConstantIntValues(forall.getMixedUpperBound());
    if (!trips)
      return fail("expected static trip counts (tile with constant tile "
                  "sizes, after canonicalizing the enclosing tiles)");
    for (BlockArgument out : forall.getRegionIterArgs()) {
      Operation *reader = nullptr;
      if (!isWriteOnly(out, reader))
        return fail("the loop's output is read inside it; overlapping "
                    "tiles would read what another tile wrote",
                    reader);
    }

    // Check every dimension before changing any. Tiling and fusion leave
    // offsets and sizes as chains of affine ops (a size may be computed
    // from an offset): each is read composed down to the induction
    // variables.
    SmallVector<TiledDim> dims(forall.getRank());
    for (Operation &op : forall.getBody()->without_terminator()) {
      if (!isa<affine::AffineApplyOp, affine::AffineMinOp>(op))
        continue;
      AffineMap map = cast<AffineMapAttr>(op.getAttr("map")).getValue();
      SmallVector<Value> operands(op.getOperands());
      affine::fullyComposeAffineMapAndOperands(&map, &operands);
      affine::canonicalizeMapAndOperands(&map, &operands);
      auto ivs = forall.getInductionVars();
      auto isIv = [&](Value v) { return llvm::is_contained(ivs, v); };
      if (llvm::none_of(operands, isIv))
        continue;
      if (operands.size() != 1)
        return fail("unexpected tile index computation over several "
                    "induction variables",
                    &op);
      unsigned d = llvm::find(ivs, operands.front()) - ivs.begin();
      TiledDim &dim = dims[d];
      if (auto apply = dyn_cast<affine::AffineApplyOp>(op)) {
        std::optional<int64_t> t = matchOffset(map);
        if (!t || (dim.tile && dim.tile != *t))
          return fail("unexpected tile offset; expected i * T", &op);
        dim.tile = *t;
        dim.offsets.push_back(apply);
        continue;
      }
      std::optional<std::pair<int64_t, int64_t>> ts = matchSize(map);
      if (!ts || (dim.tile && dim.tile != ts->first) ||
          (dim.size && dim.size != ts->second))
        return fail("unexpected tile size; expected min(T, D - i * T)", &op);
      dim.tile = ts->first;
      dim.size = ts->second;
      dim.sizes.push_back(cast<affine::AffineMinOp>(op));
    }

    auto isPartial = [](const TiledDim &dim) {
      // Evenly divided, or one tile: nothing partial to shift.
      return !dim.sizes.empty() && dim.size > dim.tile &&
             dim.size % dim.tile != 0;
    };
    for (auto [dim, iv] : llvm::zip(dims, forall.getInductionVars()))
      for (Operation *user : iv.getUsers())
        if (isPartial(dim) &&
            !isa<affine::AffineApplyOp, affine::AffineMinOp>(user))
          return fail("unexpected use of the induction variable; expected "
                      "tile offsets and sizes",
                      user);

    for (TiledDim &dim : dims) {
      if (!isPartial(dim))
        continue;
      for (affine::AffineMinOp min : dim.sizes) {
        rewriter.setInsertionPoint(min);
        rewriter.replaceOpWithNewOp<arith::ConstantIndexOp>(min, dim.tile);
      }
      unsigned d = &dim - dims.data();
      for (affine::AffineApplyOp apply : dim.offsets) {
        MLIRContext *ctx = apply.getContext();
        AffineExpr d0 = getAffineDimExpr(0, ctx);
        auto map = AffineMap::get(
            1, 0,
            {d0 * dim.tile, getAffineConstantExpr(dim.size - dim.tile, ctx)},
            ctx);
        rewriter.setInsertionPoint(apply);
        rewriter.replaceOpWithNewOp<affine::AffineMinOp>(
            apply, map, ValueRange{forall.getInductionVars()[d]});
      }
    }
  }
  return DiagnosedSilenceableFailure::success();
}

void tessel::ShiftPartialTilesOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  transform::onlyReadsHandle(getTargetMutable(), effects);
  transform::modifiesPayload(effects);
}
