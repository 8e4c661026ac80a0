//===- Contraction.h - What a contraction computes, by structure -*- C++ -*-===//
//
// The one description of a contraction that Tessel's matchers, emitters,
// launch metadata and tuner read: `C[b, m, n] += A * B` recognized from a
// linalg op's indexing maps and body (upstream's
// linalg::inferContractionDims), not from its name. `linalg.matmul` with or
// without `indexing_maps`, `linalg.batch_matmul` and equivalent
// `linalg.generic`s all yield one.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_ANALYSIS_CONTRACTION_H
#define TESSEL_ANALYSIS_CONTRACTION_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <string>

namespace tessel {

/// A unit attribute of a payload function: its f32 contractions may be
/// multiplied as TF32 (10-bit mantissas) on tensor cores, as PyTorch's
/// torch.backends.cuda.matmul.allow_tf32. Without it they keep FP32-level
/// accuracy (docs/f32.md).
inline constexpr llvm::StringLiteral kAllowTf32AttrName = "tessel.allow_tf32";

/// A contraction `acc[batch..., m, n] += lhs * rhs` with one M, one N and
/// one K loop and any number of batch loops.
struct Contraction {
  mlir::linalg::LinalgOp op;
  /// Loop positions in `op`'s iteration space.
  unsigned mLoop = 0, nLoop = 0, kLoop = 0;
  llvm::SmallVector<unsigned, 2> batchLoops;
  /// Static loop ranges; mlir::ShapedType::kDynamic where dynamic.
  int64_t m = 0, n = 0, k = 0;
  llvm::SmallVector<int64_t, 2> batch;
  mlir::Value lhs, rhs, acc;
  mlir::Type lhsElementType, rhsElementType, accElementType;
  /// A is stored `[m, k]` (false) or `[k, m]` (true); B `[k, n]` (false) or
  /// `[n, k]` (true, a Linear layer's weight). Batch dimensions lead.
  bool lhsTransposed = false, rhsTransposed = false;

  bool hasStaticShape() const;
  /// The number of batch elements (the product of the static batch sizes;
  /// 1 without batch).
  int64_t batchCount() const;
  /// "A[m,k] B[k,n]", "A[b,m,k] B[b,n,k]", ...: the layout, for messages.
  std::string layoutName() const;
};

/// Recognizes `op` as a contraction; on failure says why (for diagnostics).
/// Requires a linalg op with two inputs and one init whose body multiplies
/// and adds (linalg::isaContractionOpInterface), exactly one M, N and K
/// dimension, batch dimensions leading every operand, and the accumulator
/// indexed `[batch..., m, n]`.
mlir::FailureOr<Contraction> inferContraction(mlir::Operation *op,
                                              std::string &why);

/// The smallest constant that bounds dimension `dim` of the shaped value
/// `shaped` from above (its static size, or for a dynamic size the bound
/// ValueBoundsConstraintSet proves, e.g. the tile size of a partial tile);
/// failure when none can be proven.
mlir::FailureOr<int64_t> constantUpperBound(mlir::Value shaped, int64_t dim);

} // namespace tessel

#endif // TESSEL_ANALYSIS_CONTRACTION_H
