//===- BlockMatmul.h - A thread block's matmul and its epilogue -*- C++ -*-===//
//
// What the tensor-core rewrites (mma.sync, wgmma) read from the payload: a
// contraction that one thread block computes inside a gpu.launch, the
// linalg.fill zeroing its accumulator and the elementwise linalg.generic
// consuming it, and the block tile's bounds (a partial tile at the edge of
// the problem has dynamic sizes bounded by the tile size). Shared so that
// both rewrites accept the same payloads with the same diagnostics, and
// with KernelBuilder, the one place where tiles are walked and residues
// masked.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_LIB_TRANSFORMOPS_BLOCKMATMUL_H
#define TESSEL_LIB_TRANSFORMOPS_BLOCKMATMUL_H

#include "tessel/Analysis/Contraction.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Transform/Interfaces/TransformInterfaces.h"

namespace tessel {

inline constexpr int64_t kThreadsPerWarp = 32;

/// What a rewrite reads from the payload, collected and checked before
/// anything is changed.
struct BlockMatmul {
  Contraction contraction;
  mlir::gpu::LaunchOp launch;
  mlir::linalg::FillOp fill;
  /// The elementwise consumer of the accumulator; null when the contraction
  /// accumulates directly into the output.
  mlir::linalg::GenericOp epilogue;
  mlir::Value a, b, acc, out;
  /// The block tile: M and N are the constant bounds of the block's extents
  /// (the tile size; a partial tile at the problem's edge is smaller at run
  /// time), K the whole reduction.
  int64_t m = 0, n = 0, k = 0;
  mlir::Type inType, outType;
  /// f32 inputs may be multiplied as TF32 (the payload function has
  /// tessel.allow_tf32); otherwise they keep FP32-level accuracy.
  bool allowTf32 = false;
  /// The operands' roles are swapped (swapOperands): the kernel computes
  /// the transposed tile `C^T = B^T A^T`, whose rows are the output's
  /// columns. `a`, `b`, `m`, `n` and the contraction's operands and layouts
  /// describe that product; `out`, `acc` and the epilogue stay the
  /// output's.
  bool swapped = false;

  mlir::Operation *op() const { return contraction.op; }
  /// Whether B is stored `[n, k]` (K-major, a Linear layer's weight)
  /// rather than `[k, n]`.
  bool bKMajor() const { return contraction.rhsTransposed; }
  /// The dimension of B that runs along N.
  int64_t bDimN() const { return bKMajor() ? 0 : 1; }
  /// Whether A is stored `[m, k]` (K-major) rather than `[k, m]`.
  bool aKMajor() const { return !contraction.lhsTransposed; }
  /// The dimension of A that runs along M.
  int64_t aDimM() const { return aKMajor() ? 0 : 1; }
  mlir::Location loc() const { return contraction.op->getLoc(); }
};

/// Finds the contraction's fill and epilogue and checks shapes and types:
/// f16 or bf16 inputs (both the same; wgmma also f32), an f32
/// accumulator, A[m,k] or A[k,m] and B[k,n] or B[n,k] with unit inner
/// strides and no batch dimensions, block extents with constant bounds.
/// `what` names the instruction in diagnostics ("mma.sync", "wgmma").
mlir::DiagnosedSilenceableFailure
matchBlockMatmul(mlir::transform::TransformOpInterface transformOp,
                 mlir::Operation *target, llvm::StringRef what,
                 BlockMatmul &bm);

/// Swaps the roles of A and B in `bm` (swap-AB): the kernel then computes
/// `C^T = B^T A^T`, B's tile as the instruction's A operand, A's as its B.
/// A B stored `[k, n]` becomes an A stored `[k, m]` (MN-major), B `[n, k]`
/// an A `[m, k]`, and likewise for A. Sets `bm.swapped`.
void swapOperands(BlockMatmul &bm);

/// Applies the epilogue's scalar body lane-wise to `values` (a vector of
/// the accumulator's elements at (row, col) .. (row, col + width - 1) of
/// the block tile, or with `alongRows` at (row, col) .. (row + width - 1,
/// col)); returns `values` when there is no epilogue. Further epilogue
/// inputs (a bias over columns or rows, a full-size residual) are read
/// there, with the elements past the tile's valid part masked along the
/// vector and the other index clamped to it, so a partial tile reads
/// nothing out of bounds.
mlir::Value applyEpilogue(mlir::OpBuilder &b, mlir::Location loc,
                          const BlockMatmul &bm, mlir::Value values,
                          mlir::Value row, mlir::Value col,
                          bool alongRows = false);

/// Erases the contraction, its fill, its epilogue and a temporary
/// accumulator once a rewrite has replaced them.
void eraseBlockMatmul(mlir::RewriterBase &rewriter, const BlockMatmul &bm);

/// A tile operand read through the whole buffer it is a tile of: the
/// buffer (defined outside the launch) and the tile's offsets in it. A
/// batched buffer has leading batch dimensions, which the 2-D tile drops
/// (rank-reducing views); the tile's rows and columns are the buffer's
/// last two dimensions.
struct TiledOperand {
  mlir::Value source;
  /// Per dimension of `source`, the offsets along it of the views from the
  /// buffer down to the tile; their sum is the tile's offset (0 if none).
  llvm::SmallVector<llvm::SmallVector<mlir::OpFoldResult, 1>> offsetTerms;

  int64_t batchRank() const { return int64_t(offsetTerms.size()) - 2; }
  /// The tile's offsets, one per dimension of `source` (the batch's, then
  /// the row's and the column's), added with `b` where not constant.
  llvm::SmallVector<mlir::OpFoldResult> offsets(mlir::OpBuilder &b,
                                                mlir::Location loc) const;
};

/// The dimensions of `subview`'s source that its result's run along, in
/// order: all of them, or those a rank-reducing view keeps.
llvm::SmallVector<int64_t> keptSourceDims(mlir::memref::SubViewOp subview);

/// Reads `value` as a unit-stride tile of a statically shaped buffer with
/// a unit inner stride defined outside `launch`: the buffer itself, or a
/// chain of memref.subviews of it that keeps the buffer's last two
/// dimensions and drops any leading (batch) ones; failure otherwise.
/// Creates nothing.
mlir::FailureOr<TiledOperand> getTiledOperand(mlir::Value value,
                                              mlir::gpu::LaunchOp launch);

/// The row stride of a memref of rank 2 or more with a unit inner stride,
/// in elements, or nullopt when dynamic or not strided.
std::optional<int64_t> rowStride(mlir::MemRefType type);

/// Whether the rows of the memref type (and, batched, its matrices) start
/// on `bytes`-byte boundaries (given an aligned base): TMA and 16-byte
/// cp.async need 16.
bool hasAlignedRows(mlir::MemRefType type, int64_t bytes = 16);

/// The number of elements a thread stores at once into the 2-D buffer
/// `type` when a warp writes a tile row by row: `maxElems` (a power of
/// two) where its rows allow aligned vectors of that size, else the widest
/// power of two they allow, down to 1. With misaligned rows (f16 with an
/// odd row length) single elements keep a warp's stores contiguous, where
/// a vector split into scalars would scatter them (measured on an H100:
/// 2804x16229x66 f16's main kernel took 3.5x the time of 2816x16240x80's).
int64_t alignedChunk(mlir::MemRefType type, int64_t maxElems);

/// Whether copyToAlignedRows can copy a buffer of this type: statically
/// shaped, of rank 2 or more, with a unit inner stride and (batched) batch
/// and row dimensions that are contiguous (one run of rows).
bool isCopyable(mlir::MemRefType type);

/// Copies each of `sources`, statically shaped buffers of rank 2 or more
/// defined outside `launch` whose rows are not 16-byte aligned, into a
/// workspace with rows padded to 128 bytes: a `gpu.alloc` each and one copy
/// kernel for all (a `gpu.launch`; each launch costs microseconds) just
/// before `launch`, and the `gpu.dealloc`s just after. A batched source's
/// matrices are copied as the rows of one, so its batch and row dimensions
/// must be contiguous (isCopyable). Returns the workspaces, in order, each
/// of its source's rank; the leading source-shaped part of each holds its
/// copy. The kernel reads
/// misaligned 16- and 32-bit rows through aligned 16-byte granules, so it
/// assumes such a source's start 16-byte aligned (memref.assume_alignment,
/// which the kernel's signature then declares and the runtime checks).
llvm::SmallVector<mlir::Value>
copyToAlignedRows(mlir::RewriterBase &rewriter, mlir::gpu::LaunchOp launch,
                  llvm::ArrayRef<mlir::Value> sources);

/// Whether copyTransposed can copy a buffer of this type: statically
/// shaped, of rank 2 or more, with a unit inner stride, in at most
/// INT32_MAX blocks of its kernel.
bool canCopyTransposed(mlir::MemRefType type);

/// Copies `source`, a statically shaped buffer of rank 2 or more defined
/// outside `launch` (a matrix or a batch of them, `[..., rows, cols]`),
/// transposed into a workspace `[..., cols, padded]` whose rows are padded
/// to 128 bytes: a `gpu.alloc` and a copy kernel (a `gpu.launch`) just
/// before `launch`, the `gpu.dealloc` just after. Returns the workspace;
/// its leading `[..., cols, rows]` part holds the transpose (what lies past
/// `rows` in a row is not written). For operands an instruction reads in
/// one layout only (TF32 wgmma reads B K-major).
mlir::Value copyTransposed(mlir::RewriterBase &rewriter,
                           mlir::gpu::LaunchOp launch, mlir::Value source);

/// What the rewrites' emitters build kernels from: index arithmetic,
/// workgroup-memory types and the tile walk with its residue masks, at one
/// location. Values are `index` unless stated.
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
  mlir::Value ult(mlir::Value x, mlir::Value y) {
    return mlir::arith::CmpIOp::create(b, loc, mlir::arith::CmpIPredicate::ult,
                                       x, y);
  }
  mlir::Value select(mlir::Value c, mlir::Value x, mlir::Value y) {
    return mlir::arith::SelectOp::create(b, loc, c, x, y);
  }
  /// Dimension `i` of a memref (a constant when static).
  mlir::Value dim(mlir::Value memref, int64_t i);
  /// The elements of dimension `i` of `memref` from `origin` on, at least 0
  /// (forEachChunk compares unsigned); without an origin, all of them.
  mlir::Value extentPast(mlir::Value memref, int64_t i, mlir::Value origin) {
    mlir::Value extent = dim(memref, i);
    if (!origin)
      return extent;
    mlir::Value left = sub(extent, origin);
    mlir::Value zero = cst(0);
    return mlir::arith::MaxSIOp::create(b, loc, left, zero);
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

  /// Visits a `rows x cols` tile in chunks of `width` consecutive elements
  /// of a row, spread over `threads` threads: thread `tid` takes chunks
  /// tid, tid + threads, ..., so that consecutive threads take consecutive
  /// chunks of a row (coalesced); when `threads` does not divide the
  /// `rows * cols / width` chunks, a thread past the last one in the last
  /// round gets row 0 and `valid` 0. Calls `body(row, col, valid)` for
  /// each of the thread's
  /// chunks, where `valid` counts the chunk's elements inside the region
  /// [0, validRows) x [0, validCols) of the tile: 0 for a row outside it,
  /// else min(width, max(validCols - col, 0)). It is the constant `width`
  /// when the valid region provably covers the tile (null extents mean the
  /// whole tile).
  void forEachChunk(
      mlir::Value tid, int64_t rows, int64_t cols, int64_t width,
      int64_t threads, mlir::Value validRows, mlir::Value validCols,
      llvm::function_ref<void(mlir::Value, mlir::Value, mlir::Value)> body);
  /// Loads a 1-D vector of `type` from `source[indices]`: its first `valid`
  /// elements (all when `valid` is the constant width), zeros past them. A
  /// full load when all are valid at run time, a masked one otherwise,
  /// which reads nothing when `valid` is 0.
  mlir::Value loadValid(mlir::VectorType type, mlir::Value source,
                        mlir::ValueRange indices, mlir::Value valid);
  /// A 1-D view, from its first element, of a statically shaped, strided
  /// buffer of rank 2 or more whose start the kernel assumes 16-byte aligned
  /// (memref.assume_alignment; tessel-set-vector-alignment then declares
  /// that alignment in the kernel's signature, which the runtime checks).
  mlir::Value flatView(mlir::Value source);
  /// The two 16-byte aligned granules of a buffer around a 16-byte chunk
  /// of one of its rows, which may start anywhere: `lo` holds the chunk's
  /// first element at element `shift`, `hi` the 16 bytes after `lo`.
  struct ChunkGranules {
    mlir::Value lo, hi, shift, valid;
  };
  /// Loads the granules of the chunk of `valid` elements at (row, col) of
  /// `source` through `flat` (its flatView): two aligned 16-byte loads and
  /// no branch. Both stay within granules that hold an element of the
  /// buffer, so they never fault; a chunk with no valid element reads the
  /// buffer's first granule.
  ChunkGranules loadChunkGranules(mlir::Value source, mlir::Value flat,
                                  mlir::Value row, mlir::Value col,
                                  mlir::Value valid);
  /// The chunk itself, a vector of `type` (16 bytes): its `valid` elements
  /// shifted out of `g`'s granules (whole 32-bit words selected, then a
  /// funnel shift for 16-bit elements), zeros past them.
  mlir::Value realignChunk(const ChunkGranules &g, mlir::VectorType type);
  /// Stores the 1-D vector `value` at `dest[indices]`, only its first
  /// `valid` elements (all when `valid` is the constant width): a full
  /// store when all are valid at run time, a masked one otherwise.
  void storeValid(mlir::Value value, mlir::Value dest,
                  mlir::ValueRange indices, mlir::Value valid);

  mlir::OpBuilder &b;
  mlir::Location loc;
};

} // namespace tessel

#endif // TESSEL_LIB_TRANSFORMOPS_BLOCKMATMUL_H
