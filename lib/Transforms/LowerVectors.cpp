//===- LowerVectors.cpp - n-D vector ops to 1-D for the NVVM lowering -----===//

#include "tessel/Transforms/Passes.h"

#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace tessel {
#define GEN_PASS_DEF_TESSELLOWERVECTORS
#include "tessel/Transforms/Passes.h.inc"
} // namespace tessel

using namespace mlir;

namespace {

struct LowerVectors : tessel::impl::TesselLowerVectorsBase<LowerVectors> {
  void runOnOperation() override;
};

/// Marks the scf.if of a split transfer: its partial branch is not split
/// again.
static constexpr llvm::StringLiteral kSplitAttr = "tessel.split_transfer";

/// Whether every out-of-bounds dimension of `xfer` (a transfer on a memref
/// with a minor identity map) is in bounds at run time: index + vector size
/// <= the memref's size along it.
static Value buildInBoundsCondition(OpBuilder &b, Location loc,
                                    VectorTransferOpInterface xfer) {
  Value cond;
  auto memrefType = cast<MemRefType>(xfer.getShapedType());
  int64_t leading = memrefType.getRank() - xfer.getVectorType().getRank();
  for (int64_t i = 0, e = xfer.getVectorType().getRank(); i < e; ++i) {
    if (xfer.isDimInBounds(i))
      continue;
    int64_t d = leading + i;
    Value end = arith::AddIOp::create(
        b, loc, xfer.getIndices()[d],
        arith::ConstantIndexOp::create(b, loc,
                                       xfer.getVectorType().getDimSize(i)));
    Value size = memref::DimOp::create(b, loc, xfer.getBase(), d);
    Value ok = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, end,
                                     size);
    cond = cond ? arith::AndIOp::create(b, loc, cond, ok) : ok;
  }
  return cond;
}

/// Whether `xfer` may read or write past its memref's end (an edge tile)
/// and can be specialized: unmasked, minor identity, on a memref.
static bool isSplittable(VectorTransferOpInterface xfer) {
  auto parentIf = dyn_cast_or_null<scf::IfOp>(xfer->getParentOp());
  return !xfer.getMask() && xfer.hasOutOfBoundsDim() &&
         isa<MemRefType>(xfer.getShapedType()) &&
         xfer.getPermutationMap().isMinorIdentity() &&
         !(parentIf && parentIf->hasAttr(kSplitAttr));
}

/// Splits a transfer_read that may go out of bounds into
/// `scf.if (in bounds) { in-bounds read } else { the original read }`, so
/// that all but the edge tiles take full-width loads (the partial read is
/// lowered to masked, per-element loads).
struct SplitPartialTransferRead : OpRewritePattern<vector::TransferReadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::TransferReadOp read,
                                PatternRewriter &rewriter) const override {
    if (!isSplittable(read))
      return failure();
    Location loc = read.getLoc();
    Value cond = buildInBoundsCondition(rewriter, loc, read);
    auto ifOp = scf::IfOp::create(rewriter, loc, read.getVectorType(), cond,
                                  /*withElseRegion=*/true);
    ifOp->setAttr(kSplitAttr, rewriter.getUnitAttr());
    rewriter.setInsertionPointToStart(ifOp.thenBlock());
    auto full = cast<vector::TransferReadOp>(rewriter.clone(*read));
    full.setInBoundsAttr(rewriter.getBoolArrayAttr(
        SmallVector<bool>(read.getVectorType().getRank(), true)));
    scf::YieldOp::create(rewriter, loc, full.getResult());
    rewriter.setInsertionPointToStart(ifOp.elseBlock());
    Operation *partial = rewriter.clone(*read);
    scf::YieldOp::create(rewriter, loc, partial->getResult(0));
    rewriter.replaceOp(read, ifOp.getResults());
    return success();
  }
};

/// The same for a transfer_write on a memref.
struct SplitPartialTransferWrite
    : OpRewritePattern<vector::TransferWriteOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::TransferWriteOp write,
                                PatternRewriter &rewriter) const override {
    if (!isSplittable(write))
      return failure();
    Location loc = write.getLoc();
    Value cond = buildInBoundsCondition(rewriter, loc, write);
    auto ifOp = scf::IfOp::create(rewriter, loc, TypeRange(), cond,
                                  /*withElseRegion=*/true);
    ifOp->setAttr(kSplitAttr, rewriter.getUnitAttr());
    rewriter.setInsertionPointToStart(ifOp.thenBlock());
    auto full = cast<vector::TransferWriteOp>(rewriter.clone(*write));
    full.setInBoundsAttr(rewriter.getBoolArrayAttr(
        SmallVector<bool>(write.getVectorType().getRank(), true)));
    rewriter.setInsertionPointToStart(ifOp.elseBlock());
    rewriter.clone(*write);
    rewriter.eraseOp(write);
    return success();
  }
};

} // namespace

void LowerVectors::runOnOperation() {
  Operation *root = getOperation();
  MLIRContext *ctx = &getContext();

  // Step 0. Transfers that may run past a memref's end (the edge tiles of
  // a shape that the tiles do not divide) get a fast path for when they do
  // not: in-bounds full-width accesses, the masked ones only at the edge.
  {
    RewritePatternSet patterns(ctx);
    patterns.add<SplitPartialTransferRead, SplitPartialTransferWrite>(ctx);
    if (failed(applyPatternsGreedily(root, std::move(patterns))))
      return signalPassFailure();
  }

  // Step 1. Contractions to outer products to FMAs; transfers to minor
  // identity form; shape-changing ops to extract/insert.
  {
    RewritePatternSet patterns(ctx);
    vector::populateVectorContractLoweringPatterns(
        patterns, vector::VectorContractLowering::OuterProduct);
    vector::populateVectorOuterProductLoweringPatterns(patterns);
    vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
    vector::populateVectorBroadcastLoweringPatterns(patterns);
    vector::populateVectorTransposeLoweringPatterns(
        patterns, vector::VectorTransposeLowering::EltWise);
    vector::populateVectorShapeCastLoweringPatterns(patterns);
    vector::populateVectorMultiReductionLoweringPatterns(
        patterns, vector::VectorMultiReductionLowering::InnerParallel);
    vector::populateVectorMaskOpLoweringPatterns(patterns);
    vector::ContractionOp::getCanonicalizationPatterns(patterns, ctx);
    vector::TransferReadOp::getCanonicalizationPatterns(patterns, ctx);
    vector::TransferWriteOp::getCanonicalizationPatterns(patterns, ctx);
    if (failed(applyPatternsGreedily(root, std::move(patterns))))
      return signalPassFailure();
  }

  // Step 2. Unroll n-D transfers into 1-D ones.
  {
    RewritePatternSet patterns(ctx);
    populateVectorToSCFConversionPatterns(
        patterns,
        VectorTransferToSCFOptions().enableFullUnroll().setTargetRank(1));
    if (failed(applyPatternsGreedily(root, std::move(patterns))))
      return signalPassFailure();
  }

  // Step 3. In-bounds 1-D transfers become plain vector loads and stores;
  // what is left of n-D shapes is lowered again.
  {
    RewritePatternSet patterns(ctx);
    vector::populateVectorTransferLoweringPatterns(patterns,
                                                   /*maxTransferRank=*/1);
    // Out-of-bounds and masked 1-D transfers become masked loads and
    // stores; masks become comparisons.
    vector::populateVectorMaskMaterializationPatterns(
        patterns, /*force32BitVectorIndices=*/true);
    vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
    vector::populateVectorBroadcastLoweringPatterns(patterns);
    vector::populateVectorShapeCastLoweringPatterns(patterns);
    vector::populateVectorMaskOpLoweringPatterns(patterns);
    if (failed(applyPatternsGreedily(root, std::move(patterns))))
      return signalPassFailure();
  }
}
