//===- LowerBf16MmaSync.cpp - bf16 nvgpu.mma.sync to nvvm.mma.sync --------===//

#include "tessel/Transforms/Passes.h"

#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace tessel {
#define GEN_PASS_DEF_TESSELLOWERBF16MMASYNC
#include "tessel/Transforms/Passes.h.inc"
} // namespace tessel

using namespace mlir;

namespace {

struct LowerBf16MmaSync
    : tessel::impl::TesselLowerBf16MmaSyncBase<LowerBf16MmaSync> {
  void runOnOperation() override;
};

/// m16n8k16 bf16 x bf16 + f32 -> f32 as nvvm.mma.sync.
struct Bf16MmaSyncPattern : OpRewritePattern<nvgpu::MmaSyncOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(nvgpu::MmaSyncOp op,
                                PatternRewriter &rewriter) const override {
    auto aType = cast<VectorType>(op.getMatrixA().getType());
    auto bType = cast<VectorType>(op.getMatrixB().getType());
    auto cType = cast<VectorType>(op.getMatrixC().getType());
    SmallVector<int64_t> shape = llvm::map_to_vector(
        op.getMmaShape(), [](Attribute a) {
          return cast<IntegerAttr>(a).getInt();
        });
    if (!aType.getElementType().isBF16() ||
        !bType.getElementType().isBF16() ||
        !cType.getElementType().isF32() ||
        shape != ArrayRef<int64_t>{16, 8, 16} ||
        aType.getShape() != ArrayRef<int64_t>{4, 2} ||
        bType.getShape() != ArrayRef<int64_t>{2, 2} ||
        cType.getShape() != ArrayRef<int64_t>{2, 2})
      return rewriter.notifyMatchFailure(op, "not a bf16 m16n8k16 mma.sync");

    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type();
    Type f32 = rewriter.getF32Type();
    // Each row of a 16-bit fragment is one 32-bit register.
    auto registers = [&](Value fragment, int64_t rows) {
      SmallVector<Value> regs;
      for (int64_t i = 0; i < rows; ++i) {
        Value pair = vector::ExtractOp::create(rewriter, loc, fragment,
                                               ArrayRef<int64_t>{i});
        Value word = vector::BitCastOp::create(
            rewriter, loc, VectorType::get({1}, i32), pair);
        regs.push_back(vector::ExtractOp::create(rewriter, loc, word,
                                                 ArrayRef<int64_t>{0}));
      }
      return regs;
    };
    SmallVector<Value> a = registers(op.getMatrixA(), 4);
    SmallVector<Value> b = registers(op.getMatrixB(), 2);
    SmallVector<Value> c;
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 2; ++j)
        c.push_back(vector::ExtractOp::create(rewriter, loc, op.getMatrixC(),
                                              ArrayRef<int64_t>{i, j}));

    Type resultType = LLVM::LLVMStructType::getLiteral(
        rewriter.getContext(), SmallVector<Type>(4, f32));
    auto mma = NVVM::MmaOp::create(
        rewriter, loc, resultType, a, b, c, shape, std::nullopt, std::nullopt,
        std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::bf16,
                                      NVVM::MMATypes::bf16},
        std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                       NVVM::MMALayout::col});

    Value result = arith::ConstantOp::create(
        rewriter, loc, cType, rewriter.getZeroAttr(cType));
    for (int64_t i = 0; i < 2; ++i) {
      SmallVector<Value> row;
      for (int64_t j = 0; j < 2; ++j)
        row.push_back(LLVM::ExtractValueOp::create(rewriter, loc, mma,
                                                   ArrayRef<int64_t>{2 * i + j}));
      Value rowVec = vector::FromElementsOp::create(
          rewriter, loc, VectorType::get({2}, f32), row);
      result = vector::InsertOp::create(rewriter, loc, rowVec, result,
                                        ArrayRef<int64_t>{i});
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void LowerBf16MmaSync::runOnOperation() {
  RewritePatternSet patterns(&getContext());
  patterns.add<Bf16MmaSyncPattern>(&getContext());
  if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
    signalPassFailure();
}
