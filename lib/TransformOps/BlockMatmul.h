//===- BlockMatmul.h - A thread block's matmul and its epilogue -*- C++ -*-===//
//
// What the tensor-core rewrites (mma.sync, wgmma) read from the payload: a
// linalg.matmul that one thread block computes inside a gpu.launch, the
// linalg.fill zeroing its accumulator and the elementwise linalg.generic
// consuming it. Shared so that both rewrites accept the same payloads with
// the same diagnostics.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_TRANSFORMOPS_BLOCKMATMUL_H
#define TESSEL_LIB_TRANSFORMOPS_BLOCKMATMUL_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Transform/Interfaces/TransformInterfaces.h"

namespace tessel {

/// What a rewrite reads from the payload, collected and checked before
/// anything is changed.
struct BlockMatmul {
  mlir::linalg::MatmulOp matmul;
  mlir::gpu::LaunchOp launch;
  mlir::linalg::FillOp fill;
  /// The elementwise consumer of the accumulator; null when the matmul
  /// accumulates directly into the output.
  mlir::linalg::GenericOp epilogue;
  mlir::Value a, b, acc, out;
  int64_t m = 0, n = 0, k = 0;
  mlir::Type inType, outType;
};

/// Finds the matmul's fill and epilogue and checks shapes and types: f16 or
/// bf16 inputs (both the same), an f32 accumulator, row-major operands.
/// `what` names the instruction in diagnostics ("mma.sync", "wgmma").
mlir::DiagnosedSilenceableFailure
matchBlockMatmul(mlir::transform::TransformOpInterface transformOp,
                 mlir::Operation *target, llvm::StringRef what,
                 BlockMatmul &bm);

/// Applies the epilogue's scalar body lane-wise to `values` (a vector of
/// accumulator values); returns `values` when there is no epilogue.
mlir::Value applyEpilogue(mlir::OpBuilder &b, mlir::Location loc,
                          const BlockMatmul &bm, mlir::Value values);

/// Erases the matmul, its fill, its epilogue and a temporary accumulator
/// once a rewrite has replaced them.
void eraseBlockMatmul(mlir::RewriterBase &rewriter, const BlockMatmul &bm);

} // namespace tessel

#endif // TESSEL_LIB_TRANSFORMOPS_BLOCKMATMUL_H
