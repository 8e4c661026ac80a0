//===- LowerVectors.cpp - n-D vector ops to 1-D for the NVVM lowering -----===//

#include "tessel/Transforms/Passes.h"

#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
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

} // namespace

void LowerVectors::runOnOperation() {
  Operation *root = getOperation();
  MLIRContext *ctx = &getContext();

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
    vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
    vector::populateVectorBroadcastLoweringPatterns(patterns);
    vector::populateVectorShapeCastLoweringPatterns(patterns);
    vector::populateVectorMaskOpLoweringPatterns(patterns);
    if (failed(applyPatternsGreedily(root, std::move(patterns))))
      return signalPassFailure();
  }
}
