//===- LowerMath.cpp - Math ops to code that needs no libdevice -----------===//

#include "tessel/Transforms/Passes.h"

#include "tessel/Transforms/Chips.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace tessel {
#define GEN_PASS_DEF_TESSELLOWERMATH
#include "tessel/Transforms/Passes.h.inc"
} // namespace tessel

using namespace mlir;

namespace {
struct LowerMath : tessel::impl::TesselLowerMathBase<LowerMath> {
  void runOnOperation() override;
};
} // namespace

/// The math ops upstream approximates by polynomials in f32, by operation
/// name ("math.tanh").
static bool isApproximated(StringRef name) {
  return name.consume_front("math.") &&
         llvm::is_contained(
             {"tanh", "erf", "erfc", "exp", "expm1", "log", "log1p", "log2"},
             name);
}

/// The math ops rewritten into arith ops below, exactly. The NVVM
/// conversion takes their LLVM intrinsics for illegal (it wants libdevice).
static bool hasArithForm(Operation *op) {
  return isa<math::AbsFOp, math::CopySignOp, math::FloorOp, math::CeilOp,
             math::FmaOp>(op);
}

/// The multi-index of `linear` in row-major `shape`.
static SmallVector<int64_t> delinearize(int64_t linear,
                                        ArrayRef<int64_t> shape) {
  SmallVector<int64_t> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = linear % shape[d];
    linear /= shape[d];
  }
  return index;
}

/// Whether every value computed from `value` (through elementwise float
/// arith and math ops, on scalars or vectors) is rounded to a 16-bit float
/// (arith.truncf) before anything else reads it: an f32 error well below
/// that rounding's (2^-9 for bf16, 2^-11 for f16) is then invisible in the
/// result. False for an f32 output, a comparison, a store of f32, ...
static bool roundedTo16Bits(Value value) {
  SmallVector<Value> work{value};
  llvm::SmallPtrSet<Operation *, 16> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (v.use_empty())
      return false;
    for (Operation *user : v.getUsers()) {
      if (!seen.insert(user).second)
        continue;
      if (auto trunc = dyn_cast<arith::TruncFOp>(user)) {
        if (getElementTypeOrSelf(trunc.getType()).getIntOrFloatBitWidth() > 16)
          return false;
        continue;
      }
      bool elementwise =
          isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp,
              arith::NegFOp, arith::MaximumFOp, arith::MinimumFOp,
              arith::MaxNumFOp, arith::MinNumFOp, math::FmaOp>(user);
      if (!elementwise || user->getNumResults() != 1)
        return false;
      work.push_back(user->getResult(0));
    }
  }
  return true;
}

/// The chip a module's kernels are compiled for (tessel.chip, which
/// tessel-check-kernel-payload records on the enclosing module), if any.
static std::optional<tessel::Chip> recordedChip(Operation *op) {
  for (; op; op = op->getParentOp())
    if (auto chip = op->getAttrOfType<StringAttr>(tessel::kChipAttrName))
      return tessel::parseChip(chip.getValue());
  return std::nullopt;
}

namespace {
/// math.tanh in f32 whose result is rounded to 16 bits becomes PTX's
/// tanh.approx.f32 (sm_75 and later; one MUFU.TANH instead of about 20
/// instructions), lane by lane on a vector. Its maximum relative error,
/// measured on an H100 (bench/results/linear), is well below the 16-bit
/// rounding that follows; an f32 result keeps the polynomial.
struct TanhToApprox : OpRewritePattern<math::TanhOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::TanhOp op,
                                PatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (!getElementTypeOrSelf(type).isF32() || !roundedTo16Bits(op))
      return failure();
    auto vector = dyn_cast<VectorType>(type);
    if (vector && (vector.isScalable() || vector.getRank() != 1))
      return failure();
    Location loc = op.getLoc();
    auto approx = [&](Value x) -> Value {
      return LLVM::InlineAsmOp::create(
                 rewriter, loc, rewriter.getF32Type(), ValueRange{x},
                 "tanh.approx.f32 $0, $1;", "=f,f",
                 /*has_side_effects=*/false, /*is_align_stack=*/false,
                 LLVM::TailCallKind::None,
                 LLVM::AsmDialectAttr::get(rewriter.getContext(),
                                           LLVM::AsmDialect::AD_ATT),
                 /*operand_attrs=*/ArrayAttr())
          .getResult(0);
    };
    if (!vector) {
      rewriter.replaceOp(op, approx(op.getOperand()));
      return success();
    }
    SmallVector<Value> lanes;
    for (int64_t i = 0, e = vector.getNumElements(); i < e; ++i)
      lanes.push_back(
          approx(vector::ExtractOp::create(rewriter, loc, op.getOperand(), i)));
    rewriter.replaceOpWithNewOp<vector::FromElementsOp>(op, vector, lanes);
    return success();
  }
};

/// Builds arith ops on scalars or vectors of `type`'s shape.
struct ArithBuilder {
  PatternRewriter &b;
  Location loc;
  Type type; // The float type or vector of floats.

  Type shaped(Type element) const {
    if (auto vector = dyn_cast<VectorType>(type))
      return vector.clone(element);
    return element;
  }
  Value constant(double value) const {
    Type element = getElementTypeOrSelf(type);
    Attribute attr = b.getFloatAttr(element, value);
    if (auto vector = dyn_cast<VectorType>(type))
      attr = DenseElementsAttr::get(vector, attr);
    return arith::ConstantOp::create(b, loc, cast<TypedAttr>(attr));
  }
  Value bits(Value v) const {
    auto width = getElementTypeOrSelf(type).getIntOrFloatBitWidth();
    return arith::BitcastOp::create(b, loc, shaped(b.getIntegerType(width)), v);
  }
  /// |x|, by clearing the sign bit.
  Value abs(Value x) const {
    APInt sign =
        APInt::getSignMask(getElementTypeOrSelf(type).getIntOrFloatBitWidth());
    return arith::BitcastOp::create(
        b, loc, type,
        arith::AndIOp::create(b, loc, bits(x), intConstant(~sign)));
  }
  Value intConstant(APInt value) const {
    Type element = b.getIntegerType(value.getBitWidth());
    Attribute attr = b.getIntegerAttr(element, value);
    if (auto vector = dyn_cast<VectorType>(type))
      attr = DenseElementsAttr::get(vector.clone(element), attr);
    return arith::ConstantOp::create(b, loc, cast<TypedAttr>(attr));
  }
  /// floor(x), exactly: values of magnitude 2^(mantissa bits) or more (and
  /// NaN, infinities) are integers already; the others go through an
  /// integer conversion and step down where it rounded up.
  Value floor(Value x) const {
    auto element = cast<FloatType>(getElementTypeOrSelf(type));
    Value big = constant(std::ldexp(1.0, element.getFPMantissaWidth() - 1));
    Value small =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, abs(x), big);
    Type intType = shaped(b.getIntegerType(64));
    Value t = arith::SIToFPOp::create(
        b, loc, type, arith::FPToSIOp::create(b, loc, intType, x));
    Value over = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, t, x);
    Value down = arith::SelectOp::create(
        b, loc, over, arith::SubFOp::create(b, loc, t, constant(1.0)), t);
    return arith::SelectOp::create(b, loc, small, down, x);
  }
};

/// math.absf, math.copysign, math.floor, math.ceil and math.fma in arith
/// (fma as vector.fma, which lowers to the fused instruction).
struct LowerToArith : RewritePattern {
  LowerToArith(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!hasArithForm(op))
      return failure();
    Location loc = op->getLoc();
    Type type = op->getResult(0).getType();
    ArithBuilder ab{rewriter, loc, type};
    Value x = op->getOperand(0), result;
    if (isa<math::AbsFOp>(op)) {
      result = ab.abs(x);
    } else if (isa<math::CopySignOp>(op)) {
      APInt sign = APInt::getSignMask(
          getElementTypeOrSelf(type).getIntOrFloatBitWidth());
      Value signBit = arith::AndIOp::create(
          rewriter, loc, ab.bits(op->getOperand(1)), ab.intConstant(sign));
      result = arith::BitcastOp::create(
          rewriter, loc, type,
          arith::OrIOp::create(rewriter, loc, ab.bits(ab.abs(x)), signBit));
    } else if (isa<math::FloorOp>(op)) {
      result = ab.floor(x);
    } else if (isa<math::CeilOp>(op)) {
      result = arith::NegFOp::create(
          rewriter, loc, ab.floor(arith::NegFOp::create(rewriter, loc, x)));
    } else {
      auto vector = dyn_cast<VectorType>(type);
      if (!vector) {
        // vector.fma on one lane: the fused instruction for a scalar.
        auto one = VectorType::get({1}, type);
        auto lane = [&](Value v) {
          return vector::BroadcastOp::create(rewriter, loc, one, v);
        };
        Value fma = vector::FMAOp::create(rewriter, loc, lane(x),
                                          lane(op->getOperand(1)),
                                          lane(op->getOperand(2)));
        result = vector::ExtractOp::create(rewriter, loc, fma, 0);
      } else {
        // Row by row (the NVVM conversion takes 1-D vector.fma only).
        ArrayRef<int64_t> shape = vector.getShape();
        result = arith::ConstantOp::create(rewriter, loc,
                                           rewriter.getZeroAttr(vector));
        int64_t rows = vector.getNumElements() / shape.back();
        for (int64_t r = 0; r < rows; ++r) {
          SmallVector<int64_t> index = delinearize(r, shape.drop_back());
          auto part = [&](Value v) -> Value {
            return vector.getRank() == 1
                       ? v
                       : vector::ExtractOp::create(rewriter, loc, v, index);
          };
          Value fma = vector::FMAOp::create(rewriter, loc, part(x),
                                            part(op->getOperand(1)),
                                            part(op->getOperand(2)));
          result =
              vector.getRank() == 1
                  ? fma
                  : vector::InsertOp::create(rewriter, loc, fma, result, index);
        }
      }
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};
} // namespace

void LowerMath::runOnOperation() {
  Operation *root = getOperation();
  MLIRContext *ctx = &getContext();

  // Step 1. Expand what is defined through other math ops, compute 16-bit
  // math in f32, and approximate the transcendental functions: tanh with
  // the chip's instruction where the result is rounded to 16 bits.
  {
    RewritePatternSet patterns(ctx);
    std::optional<tessel::Chip> chip = recordedChip(root);
    if (chip && chip->sm >= 75)
      patterns.add<TanhToApprox>(ctx, /*benefit=*/2);
    math::populateExpansionPatterns(patterns, {"exp2", "powf", "rsqrt"});
    populateMathF32ExpansionPatterns(
        patterns, [](StringRef name) { return isApproximated(name); });
    populateMathPolynomialApproximationPatterns(patterns, isApproximated);
    if (failed(applyPatternsGreedily(root, std::move(patterns))))
      return signalPassFailure();
  }

  // Step 2. What has an exact arith form becomes it (the approximations
  // above use floor and absf).
  {
    RewritePatternSet patterns(ctx);
    patterns.add<LowerToArith>(ctx);
    if (failed(applyPatternsGreedily(root, std::move(patterns))))
      return signalPassFailure();
  }

  // Step 3. Anything else the NVVM conversion would turn into a libdevice
  // call is an error here, where the user can see which op it is.
  WalkResult unsupported = root->walk([&](Operation *op) {
    if (isa<math::MathDialect>(op->getDialect()) || isa<arith::RemFOp>(op)) {
      op->emitError() << "'" << op->getName()
                      << "' has no lowering in Tessel's GPU pipeline (it "
                         "would need CUDA's libdevice); epilogues may use "
                         "tanh, erf, exp, expm1, exp2, log, log1p, log2, "
                         "powf, absf, floor, ceil, copysign, fma and arith "
                         "ops";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (unsupported.wasInterrupted())
    return signalPassFailure();
}
