//===- SetVectorAlignment.cpp - Prove and record vector access alignment --===//

#include "tessel/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"
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
  /// Takes `divisor` as known to divide `value` (what a version of the code
  /// would know).
  void assume(Value value, int64_t divisor) { cache[value] = clamp(divisor); }

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
    if (isa<affine::AffineMinOp, affine::AffineMaxOp>(op)) {
      // Whichever result is taken, each divisor of all of them divides it.
      AffineMap map = cast<AffineMapAttr>(op->getAttr("map")).getValue();
      int64_t divisor = 0;
      for (AffineExpr result : map.getResults())
        divisor = std::gcd(divisor,
                           expr(result, op->getOperands(), map.getNumDims()));
      return clamp(divisor);
    }
    if (isa<arith::AddIOp, arith::SubIOp, arith::MinSIOp, arith::MinUIOp,
            arith::MaxSIOp, arith::MaxUIOp>(op))
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

/// The memref, indices and vector type of a vector load or store, or none.
static std::optional<std::tuple<Value, ValueRange, VectorType>>
getVectorAccess(Operation *op) {
  using Access = std::optional<std::tuple<Value, ValueRange, VectorType>>;
  return llvm::TypeSwitch<Operation *, Access>(op)
      .Case<vector::LoadOp, vector::StoreOp, vector::MaskedLoadOp,
            vector::MaskedStoreOp>([](auto access) -> Access {
        return std::make_tuple(access.getBase(), access.getIndices(),
                               access.getVectorType());
      })
      .Default([](Operation *) -> Access { return std::nullopt; });
}

/// The alignment in bytes `op`, a vector access, provably has when it is
/// more than its element's, or 0.
static int64_t provenAlignment(Operation *op, DivisorAnalysis &analysis,
                               int64_t pointerAlignment) {
  auto access = getVectorAccess(op);
  if (!access)
    return 0;
  auto [base, indices, vectorType] = *access;
  auto memrefType = dyn_cast<MemRefType>(base.getType());
  if (!memrefType || !memrefType.hasStaticShape() ||
      !memrefType.getLayout().isIdentity() ||
      !memrefType.getElementType().isIntOrFloat())
    return 0;
  int64_t baseAlign = baseAlignment(base, pointerAlignment);
  if (baseAlign <= 0)
    return 0;

  // Divisor of the linearized element offset sum(index_i * stride_i).
  int64_t elementBytes = memrefType.getElementTypeBitWidth() / 8;
  if (elementBytes == 0)
    return 0;
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
  return align > elementBytes ? align : 0;
}

namespace {

/// A block tile offset `min(b * T, D - T)` over a block id `b`, as
/// `transform.tessel.shift_partial_tiles` leaves it: the last tile moved
/// back to end at the dimension's end `D`.
struct ShiftedOffset {
  Operation *op; // The affine.min.
  Value blockId;
  int64_t tile = 0, last = 0; // T and D - T.
};

} // namespace

static std::optional<ShiftedOffset>
matchShiftedOffset(affine::AffineMinOp min) {
  AffineMap map = min.getAffineMap();
  if (map.getNumInputs() != 1 || map.getNumResults() != 2 ||
      !min.getOperand(0).getDefiningOp<gpu::BlockIdOp>())
    return std::nullopt;
  AffineExpr input = map.getNumDims() == 1
                         ? getAffineDimExpr(0, min.getContext())
                         : getAffineSymbolExpr(0, min.getContext());
  for (int first = 0; first < 2; ++first) {
    auto last = dyn_cast<AffineConstantExpr>(map.getResult(first));
    auto offset = dyn_cast<AffineBinaryOpExpr>(map.getResult(1 - first));
    if (!last || last.getValue() < 0 || !offset ||
        offset.getKind() != AffineExprKind::Mul || offset.getLHS() != input)
      continue;
    auto tile = dyn_cast<AffineConstantExpr>(offset.getRHS());
    if (!tile || tile.getValue() <= 0 || last.getValue() % tile.getValue() == 0)
      continue;
    return ShiftedOffset{min, min.getOperand(0), tile.getValue(),
                         last.getValue()};
  }
  return std::nullopt;
}

/// Whether taking `offset` as a multiple of its tile proves a larger
/// alignment for some vector access of `func` than `actual` does.
static bool spoilsAlignment(gpu::GPUFuncOp func, const ShiftedOffset &offset,
                            DivisorAnalysis &actual, int64_t pointerAlignment) {
  DivisorAnalysis interior;
  interior.assume(offset.op->getResult(0), offset.tile);
  bool spoils = false;
  func.walk([&](Operation *op) {
    if (provenAlignment(op, interior, pointerAlignment) >
        provenAlignment(op, actual, pointerAlignment))
      spoils = true;
  });
  return spoils;
}

/// Where a shifted edge tile's offset keeps vector accesses from being
/// proven aligned, versions the kernel's body: the blocks whose tiles are
/// not shifted (all but the last along that dimension) run a copy in which
/// the offset is `b * T`, with its accesses aligned; the edge blocks run
/// the body as it was. The condition depends only on block ids, so every
/// thread of a block takes the same version (barriers stay uniform).
static void versionShiftedTiles(gpu::GPUFuncOp func, int64_t pointerAlignment) {
  if (!func.getBody().hasOneBlock())
    return;
  Block &body = func.getBody().front();
  SmallVector<ShiftedOffset> offsets;
  DivisorAnalysis actual;
  for (auto min : body.getOps<affine::AffineMinOp>())
    if (std::optional<ShiftedOffset> offset = matchShiftedOffset(min))
      if (spoilsAlignment(func, *offset, actual, pointerAlignment))
        offsets.push_back(*offset);
  if (offsets.empty())
    return;

  // Version every op from the first such offset on; those before it (block
  // ids, constants, launch-dependency waits) stay shared.
  Operation *first = offsets.front().op;
  Operation *terminator = body.getTerminator();
  Location loc = func.getLoc();
  OpBuilder b(first);
  Value interior;
  for (const ShiftedOffset &offset : offsets) {
    // b * T <= D - T, i.e. b <= (D - T) floordiv T.
    Value bound =
        arith::ConstantIndexOp::create(b, loc, offset.last / offset.tile);
    Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule,
                                         offset.blockId, bound);
    interior =
        interior ? arith::AndIOp::create(b, loc, interior, inside) : inside;
  }
  auto version = scf::IfOp::create(b, loc, interior, /*withElse=*/true);

  b.setInsertionPointToStart(version.thenBlock());
  IRMapping mapping;
  for (const ShiftedOffset &offset : offsets) {
    AffineExpr d0 = b.getAffineDimExpr(0);
    mapping.map(offset.op->getResult(0),
                affine::AffineApplyOp::create(
                    b, offset.op->getLoc(),
                    AffineMap::get(1, 0, d0 * offset.tile), offset.blockId)
                    .getResult());
  }
  for (Operation &op :
       llvm::make_range(first->getIterator(), terminator->getIterator()))
    if (llvm::none_of(offsets, [&](const ShiftedOffset &offset) {
          return offset.op == &op;
        }))
      b.clone(op, mapping);

  Block *elseBlock = version.elseBlock();
  elseBlock->getOperations().splice(elseBlock->begin(), body.getOperations(),
                                    first->getIterator(),
                                    terminator->getIterator());
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

  // Kernels whose shifted edge tiles keep accesses from being proven
  // aligned get a second version of their body for the other blocks.
  if (versionEdgeTiles)
    getOperation()->walk([&](gpu::GPUFuncOp func) {
      if (func.isKernel())
        versionShiftedTiles(func, pointerAlignment);
    });

  DivisorAnalysis analysis;
  getOperation()->walk([&](Operation *op) {
    int64_t align = provenAlignment(op, analysis, pointerAlignment);
    if (align > 0)
      op->setAttr(
          "alignment",
          IntegerAttr::get(IntegerType::get(op->getContext(), 64), align));
  });
}
