//===- Contraction.cpp - What a contraction computes, by structure --------===//

#include "tessel/Analysis/Contraction.h"

#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace tessel;

bool Contraction::hasStaticShape() const {
  auto isStatic = [](int64_t size) { return !ShapedType::isDynamic(size); };
  return isStatic(m) && isStatic(n) && isStatic(k) &&
         llvm::all_of(batch, isStatic);
}

int64_t Contraction::batchCount() const {
  int64_t count = 1;
  for (int64_t size : batch)
    count *= size;
  return count;
}

std::string Contraction::layoutName() const {
  std::string b(batch.size(), 'b');
  auto dims = [&](char first, char second) {
    std::string s = "[";
    for (char c : b)
      s += std::string(1, c) + ",";
    return s + first + "," + second + "]";
  };
  return "A" + (lhsTransposed ? dims('k', 'm') : dims('m', 'k')) + " B" +
         (rhsTransposed ? dims('n', 'k') : dims('k', 'n'));
}

/// Reads an operand's indexing map as loop positions, one per operand
/// dimension; fails on anything but a projected permutation.
static FailureOr<SmallVector<unsigned>> loopsOf(AffineMap map) {
  if (!map.isProjectedPermutation(/*allowZeroInResults=*/false))
    return failure();
  SmallVector<unsigned> loops;
  for (AffineExpr e : map.getResults())
    loops.push_back(cast<AffineDimExpr>(e).getPosition());
  return loops;
}

FailureOr<Contraction> tessel::inferContraction(Operation *op,
                                                std::string &why) {
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
  if (!linalgOp || linalgOp.getNumDpsInputs() != 2 ||
      linalgOp.getNumDpsInits() != 1 ||
      !linalg::isaContractionOpInterface(linalgOp)) {
    why = "expected a contraction: a linalg op with two inputs and one "
          "accumulator whose body multiplies and adds";
    return failure();
  }
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(linalgOp);
  if (failed(dims) || dims->m.size() != 1 || dims->n.size() != 1 ||
      dims->k.size() != 1) {
    why = "expected a contraction with exactly one M, one N and one K "
          "dimension";
    return failure();
  }

  Contraction c;
  c.op = linalgOp;
  c.mLoop = dims->m.front();
  c.nLoop = dims->n.front();
  c.kLoop = dims->k.front();
  c.batchLoops.assign(dims->batch.begin(), dims->batch.end());
  SmallVector<int64_t> ranges = linalgOp.getStaticLoopRanges();
  c.m = ranges[c.mLoop];
  c.n = ranges[c.nLoop];
  c.k = ranges[c.kLoop];
  for (unsigned loop : c.batchLoops)
    c.batch.push_back(ranges[loop]);

  OpOperand *lhs = linalgOp.getDpsInputOperand(0);
  OpOperand *rhs = linalgOp.getDpsInputOperand(1);
  OpOperand *acc = linalgOp.getDpsInitOperand(0);
  c.lhs = lhs->get();
  c.rhs = rhs->get();
  c.acc = acc->get();
  c.lhsElementType = getElementTypeOrSelf(c.lhs.getType());
  c.rhsElementType = getElementTypeOrSelf(c.rhs.getType());
  c.accElementType = getElementTypeOrSelf(c.acc.getType());

  // Every operand: batch loops first, in order, then its two matrix loops.
  auto matrixLoops = [&](OpOperand *operand, unsigned first, unsigned second,
                         bool &transposed) -> bool {
    FailureOr<SmallVector<unsigned>> loops =
        loopsOf(linalgOp.getMatchingIndexingMap(operand));
    if (failed(loops) || loops->size() != c.batchLoops.size() + 2 ||
        !llvm::equal(ArrayRef(*loops).drop_back(2), c.batchLoops))
      return false;
    unsigned row = (*loops)[loops->size() - 2], col = loops->back();
    if (row == first && col == second)
      transposed = false;
    else if (row == second && col == first)
      transposed = true;
    else
      return false;
    return true;
  };
  bool accTransposed = false;
  if (!matrixLoops(lhs, c.mLoop, c.kLoop, c.lhsTransposed) ||
      !matrixLoops(rhs, c.kLoop, c.nLoop, c.rhsTransposed) ||
      !matrixLoops(acc, c.mLoop, c.nLoop, accTransposed) || accTransposed) {
    why = "expected every operand of the contraction indexed by its batch "
          "dimensions first, then A by (m, k) or (k, m), B by (k, n) or "
          "(n, k) and the accumulator by (m, n)";
    return failure();
  }
  return c;
}

FailureOr<int64_t> tessel::constantUpperBound(Value shaped, int64_t dim) {
  auto type = cast<ShapedType>(shaped.getType());
  if (!type.isDynamicDim(dim))
    return type.getDimSize(dim);
  return ValueBoundsConstraintSet::computeConstantBound(
      presburger::BoundType::UB, ValueBoundsConstraintSet::Variable(shaped, dim),
      /*stopCondition=*/nullptr, /*closedUB=*/true);
}
