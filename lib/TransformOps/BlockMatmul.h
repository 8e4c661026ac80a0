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

#include "mlir/Dialect/Arith/IR/Arith.h"
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

/// What the rewrites' emitters build kernels from: index arithmetic and
/// workgroup-memory types at one location. Values are `index` unless
/// stated.
class KernelBuilder {
protected:
  KernelBuilder(mlir::OpBuilder &b, mlir::Location loc) : b(b), loc(loc) {}

  mlir::Value cst(int64_t v) {
    return mlir::arith::ConstantIndexOp::create(b, loc, v);
  }
  mlir::Value add(mlir::Value x, mlir::Value y) {
    return mlir::arith::AddIOp::create(b, loc, x, y);
  }
  mlir::Value sub(mlir::Value x, mlir::Value y) {
    return mlir::arith::SubIOp::create(b, loc, x, y);
  }
  mlir::Value mul(mlir::Value x, int64_t y) {
    return mlir::arith::MulIOp::create(b, loc, x, cst(y));
  }
  mlir::Value div(mlir::Value x, int64_t y) {
    return mlir::arith::DivUIOp::create(b, loc, x, cst(y));
  }
  mlir::Value rem(mlir::Value x, int64_t y) {
    return mlir::arith::RemUIOp::create(b, loc, x, cst(y));
  }
  mlir::Value addC(mlir::Value x, int64_t y) {
    return y == 0 ? x : add(x, cst(y));
  }
  mlir::Value eq(mlir::Value x, int64_t y) {
    return mlir::arith::CmpIOp::create(b, loc, mlir::arith::CmpIPredicate::eq,
                                       x, cst(y));
  }
  /// The workgroup (shared) memory space.
  mlir::Attribute workgroupSpace() {
    return mlir::gpu::AddressSpaceAttr::get(
        b.getContext(), mlir::gpu::AddressSpace::Workgroup);
  }
  /// A statically shaped buffer type in workgroup memory.
  mlir::MemRefType sharedType(llvm::ArrayRef<int64_t> shape,
                              mlir::Type element) {
    return mlir::MemRefType::get(shape, element,
                                 mlir::MemRefLayoutAttrInterface(),
                                 workgroupSpace());
  }

  mlir::OpBuilder &b;
  mlir::Location loc;
};

} // namespace tessel

#endif // TESSEL_LIB_TRANSFORMOPS_BLOCKMATMUL_H
