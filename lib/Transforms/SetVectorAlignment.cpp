//===- SetVectorAlignment.cpp - Prove and record vector access alignment --===//

#include "tessel/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/MathExtras.h"

#include <numeric>

namespace tessel {
#define GEN_PASS_DEF_TESSELSETVECTORALIGNMENT
#include "tessel/Transforms/Passes.h.inc"
} // namespace tessel

using namespace mlir;

namespace {

/// Large enough to stand for "divisible by anything" (the value 0) without
/// overflowing when multiplied by a stride.
constexpr int64_t kAnyMultiple = int64_t(1) << 40;

/// Computes a positive divisor known to divide an index value: a
/// conservative divisibility analysis over constants, affine maps, integer
/// arithmetic and loop induction variables.
class DivisorAnalysis {
public:
  int64_t divisorOf(Value value) {
    auto it = cache.find(value);
    if (it != cache.end())
      return it->second;
    cache[value] = 1; // Breaks cycles through loop-carried values.
    int64_t divisor = compute(value);
    cache[value] = divisor;
    return divisor;
  }

private:
  static int64_t clamp(int64_t v) {
    v = v < 0 ? -v : v;
    return (v == 0 || v > kAnyMultiple) ? kAnyMultiple : v;
  }

  int64_t compute(Value value) {
    APInt constant;
    if (matchPattern(value, m_ConstantInt(&constant)))
      return clamp(constant.getSExtValue());
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      if (auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp()))
        if (loop.getInductionVar() == arg)
          return std::gcd(divisorOf(loop.getLowerBound()),
                          divisorOf(loop.getStep()));
      return 1;
    }
    Operation *op = value.getDefiningOp();
    if (auto apply = dyn_cast<affine::AffineApplyOp>(op))
      return expr(apply.getAffineMap().getResult(0), apply.getMapOperands(),
                  apply.getAffineMap().getNumDims());
    if (isa<arith::AddIOp, arith::SubIOp>(op))
      return std::gcd(divisorOf(op->getOperand(0)),
                      divisorOf(op->getOperand(1)));
    if (isa<arith::MulIOp>(op))
      return clamp(divisorOf(op->getOperand(0)) *
                   std::min(divisorOf(op->getOperand(1)), kAnyMultiple));
    if (isa<arith::IndexCastOp, arith::IndexCastUIOp>(op))
      return divisorOf(op->getOperand(0));
    return 1;
  }

  int64_t expr(AffineExpr e, ValueRange operands, unsigned numDims) {
    if (auto c = dyn_cast<AffineConstantExpr>(e))
      return clamp(c.getValue());
    if (auto d = dyn_cast<AffineDimExpr>(e))
      return divisorOf(operands[d.getPosition()]);
    if (auto s = dyn_cast<AffineSymbolExpr>(e))
      return divisorOf(operands[numDims + s.getPosition()]);
    auto bin = cast<AffineBinaryOpExpr>(e);
    int64_t lhs = expr(bin.getLHS(), operands, numDims);
    int64_t rhs = expr(bin.getRHS(), operands, numDims);
    switch (e.getKind()) {
    case AffineExprKind::Add:
      return std::gcd(lhs, rhs);
    case AffineExprKind::Mul:
      return clamp(lhs * std::min(rhs, kAnyMultiple));
    default: // floordiv, ceildiv, mod: nothing known.
      return 1;
    }
  }

  llvm::DenseMap<Value, int64_t> cache;
};

struct SetVectorAlignment
    : tessel::impl::TesselSetVectorAlignmentBase<SetVectorAlignment> {
  using Base::Base;
  LogicalResult initialize(MLIRContext *context) override {
    // As tessel-lower-to-ptx checks it: run alone, 0 or a negative value
    // declared no alignment and 3 a misleading one.
    if (pointerAlignment < 1 || pointerAlignment > 256 ||
        !llvm::isPowerOf2_64(pointerAlignment))
      return emitError(UnknownLoc::get(context))
             << "tessel-set-vector-alignment: pointer-alignment="
             << static_cast<int64_t>(pointerAlignment)
             << " must be a power of two between 1 and 256";
    return success();
  }
  void runOnOperation() override;
};

} // namespace

/// Alignment in bytes known for the start of `memref`'s buffer, or 0. Only
/// the buffer arguments of kernels carry the runtime's guarantee: workgroup
/// and private attributions, other blocks' arguments and non-kernel
/// functions' arguments do not.
static int64_t baseAlignment(Value memref, int64_t pointerAlignment) {
  if (auto arg = dyn_cast<BlockArgument>(memref)) {
    auto func = dyn_cast<gpu::GPUFuncOp>(arg.getOwner()->getParentOp());
    bool isKernelArgument = func && func.isKernel() &&
                            arg.getOwner() == &func.front() &&
                            arg.getArgNumber() < func.getNumArguments();
    return isKernelArgument ? pointerAlignment : 0;
  }
  if (auto alloc = memref.getDefiningOp<memref::AllocaOp>())
    return alloc.getAlignment().value_or(0);
  if (auto alloc = memref.getDefiningOp<memref::AllocOp>())
    return alloc.getAlignment().value_or(0);
  return 0;
}

void SetVectorAlignment::runOnOperation() {
  // State the assumption in the kernel's signature: it reaches the PTX as
  // `.param .u64 .ptr .align N`, where runtimes and readers can see it.
  getOperation()->walk([&](gpu::GPUFuncOp func) {
    if (!func.isKernel())
      return;
    for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
      if (!isa<MemRefType>(type))
        continue;
      // A kernel that assumes more of an argument (memref.assume_alignment:
      // the wgmma producer's aligned loads of misaligned rows) declares it.
      int64_t align = pointerAlignment;
      for (Operation *user : func.getArgument(i).getUsers())
        if (auto assume = dyn_cast<memref::AssumeAlignmentOp>(user))
          align = std::max<int64_t>(align, assume.getAlignment());
      func.setArgAttr(
          i, "llvm.align",
          IntegerAttr::get(IntegerType::get(func.getContext(), 64), align));
    }
  });

  DivisorAnalysis analysis;
  getOperation()->walk([&](Operation *op) {
    Value base;
    ValueRange indices;
    VectorType vectorType;
    if (auto load = dyn_cast<vector::LoadOp>(op)) {
      base = load.getBase(), indices = load.getIndices();
      vectorType = load.getVectorType();
    } else if (auto store = dyn_cast<vector::StoreOp>(op)) {
      base = store.getBase(), indices = store.getIndices();
      vectorType = store.getVectorType();
    } else if (auto load = dyn_cast<vector::MaskedLoadOp>(op)) {
      base = load.getBase(), indices = load.getIndices();
      vectorType = load.getVectorType();
    } else if (auto store = dyn_cast<vector::MaskedStoreOp>(op)) {
      base = store.getBase(), indices = store.getIndices();
      vectorType = store.getVectorType();
    } else {
      return;
    }
    auto memrefType = dyn_cast<MemRefType>(base.getType());
    if (!memrefType || !memrefType.hasStaticShape() ||
        !memrefType.getLayout().isIdentity() ||
        !memrefType.getElementType().isIntOrFloat())
      return;
    int64_t baseAlign = baseAlignment(base, pointerAlignment);
    if (baseAlign <= 0)
      return;

    // Divisor of the linearized element offset sum(index_i * stride_i).
    int64_t elementBytes = memrefType.getElementTypeBitWidth() / 8;
    if (elementBytes == 0)
      return;
    int64_t divisor = kAnyMultiple, stride = 1;
    ArrayRef<int64_t> shape = memrefType.getShape();
    for (int64_t i = static_cast<int64_t>(shape.size()) - 1; i >= 0; --i) {
      int64_t term = std::min(analysis.divisorOf(indices[i]), kAnyMultiple) *
                     std::min(stride, kAnyMultiple);
      divisor = std::gcd(divisor, std::min(term, kAnyMultiple));
      stride *= shape[i];
    }
    // Largest power of two dividing the byte offset, capped by the base's
    // and the vector's size.
    uint64_t byteDivisor = static_cast<uint64_t>(divisor) * elementBytes;
    int64_t align = int64_t(1) << llvm::countr_zero(byteDivisor);
    int64_t vectorBytes = vectorType.getNumElements() * elementBytes;
    align =
        std::min({align, baseAlign, int64_t(llvm::PowerOf2Ceil(vectorBytes))});
    if (align > elementBytes)
      op->setAttr(
          "alignment",
          IntegerAttr::get(IntegerType::get(op->getContext(), 64), align));
  });
}
