//===- BlockMatmul.cpp - A thread block's matmul and its epilogue ---------===//

#include "BlockMatmul.h"

#include "tessel/TransformOps/TesselTransformOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"

using namespace mlir;
using namespace tessel;

/// Whether `op` can be applied lane-wise to vectors (arith/math ops).
static bool isVectorizableScalarOp(Operation &op) {
  if (op.getNumRegions() != 0 || op.getNumResults() != 1 ||
      !op.hasTrait<OpTrait::Elementwise>() ||
      !op.hasTrait<OpTrait::Vectorizable>())
    return false;
  auto isScalar = [](Type t) { return t.isIntOrIndexOrFloat(); };
  return llvm::all_of(op.getOperandTypes(), isScalar) &&
         llvm::all_of(op.getResultTypes(), isScalar);
}

/// Checks that `generic` is `out = f(acc, inputs...)` elementwise: the
/// accumulator and the output indexed by the identity, further inputs
/// (bias, residual) by some of the output's dimensions, parallel loops, and
/// a body of lane-wise scalar ops that does not read the output.
static LogicalResult checkEpilogue(linalg::GenericOp generic, Value acc,
                                   std::string &why) {
  OpOperand *accOperand = nullptr;
  for (OpOperand *input : generic.getDpsInputOperands())
    if (input->get() == acc)
      accOperand = accOperand ? nullptr : input;
  if (!accOperand || generic.getNumDpsInits() != 1) {
    why = "the accumulator's consumer must be a linalg.generic that reads "
          "the accumulator once and has one output";
    return failure();
  }
  if (generic.getNumParallelLoops() != generic.getNumLoops() ||
      generic.getNumLoops() != 2 ||
      !generic.getMatchingIndexingMap(accOperand).isIdentity() ||
      !generic.getMatchingIndexingMap(generic.getDpsInitOperand(0))
           .isIdentity()) {
    why = "the epilogue must be elementwise (parallel loops, the "
          "accumulator and the output indexed by the identity)";
    return failure();
  }
  for (OpOperand *input : generic.getDpsInputOperands()) {
    AffineMap map = generic.getMatchingIndexingMap(input);
    if (input != accOperand &&
        (!isa<MemRefType>(input->get().getType()) ||
         !map.isProjectedPermutation(/*allowZeroInResults=*/false) ||
         map.getNumResults() == 0)) {
      why = "an epilogue input besides the accumulator must be a buffer "
            "indexed by the rows, the columns or both (a bias, a residual)";
      return failure();
    }
  }
  Block &body = generic.getRegion().front();
  if (!generic.getMatchingBlockArgument(generic.getDpsInitOperand(0))
           .use_empty()) {
    why = "the epilogue must not read its output";
    return failure();
  }
  for (Operation &op : body.without_terminator()) {
    if (!isVectorizableScalarOp(op)) {
      why = "the epilogue body may only hold elementwise scalar ops";
      return failure();
    }
  }
  return success();
}

std::optional<int64_t> tessel::rowStride(MemRefType type) {
  int64_t offset;
  SmallVector<int64_t> strides;
  if (type.getRank() < 2 || failed(type.getStridesAndOffset(strides, offset)) ||
      strides.back() != 1 || ShapedType::isDynamic(strides.end()[-2]))
    return std::nullopt;
  return strides.end()[-2];
}

bool tessel::hasAlignedRows(MemRefType type, int64_t bytes) {
  if (!rowStride(type))
    return false;
  // Every stride but the unit one: the rows' and, batched, the matrices'.
  auto [strides, offset] = type.getStridesAndOffset();
  int64_t elemBits = type.getElementTypeBitWidth();
  return llvm::all_of(ArrayRef(strides).drop_back(), [&](int64_t stride) {
    return !ShapedType::isDynamic(stride) && stride * elemBits / 8 % bytes == 0;
  });
}

int64_t tessel::alignedChunk(MemRefType type, int64_t maxElems) {
  int64_t elemBytes = type.getElementTypeBitWidth() / 8;
  int64_t elems = maxElems;
  while (elems > 1 && !hasAlignedRows(type, elems * elemBytes))
    elems /= 2;
  return elems;
}

/// Whether dimension `dim` of `x` and `y` provably has the same size.
static bool sameSize(Value x, Value y, int64_t dim) {
  FailureOr<bool> equal = ValueBoundsConstraintSet::areEqual(
      ValueBoundsConstraintSet::Variable(x, dim),
      ValueBoundsConstraintSet::Variable(y, dim));
  return succeeded(equal) && *equal;
}

DiagnosedSilenceableFailure
tessel::matchBlockMatmul(transform::TransformOpInterface transformOp,
                         Operation *target, StringRef what, BlockMatmul &bm) {
  auto fail = [&](const Twine &message) {
    return failOnTarget(transformOp, target, message);
  };

  std::string why;
  FailureOr<Contraction> contraction = inferContraction(target, why);
  if (failed(contraction))
    return fail(why);
  bm.contraction = *contraction;
  Contraction &c = bm.contraction;
  if (!c.op.hasPureBufferSemantics())
    return fail("expected the contraction on memrefs (bufferize first)");
  // Batches are blocks by now (transform.tessel.tile_batch_to_blocks).
  if (!c.batch.empty())
    return fail("the " + what +
                " rewrite needs a contraction without "
                "batch dimensions (map them to blocks first); this one is " +
                c.layoutName());
  bm.launch = target->getParentOfType<gpu::LaunchOp>();
  if (!bm.launch)
    return fail("expected the contraction inside a gpu.launch (map the "
                "block forall with transform.gpu.map_forall_to_blocks "
                "first)");
  for (Value dim : {bm.launch.getBlockSizeX(), bm.launch.getBlockSizeY(),
                    bm.launch.getBlockSizeZ()})
    if (getConstantIntValue(dim) != 1)
      return fail("expected a gpu.launch with a 1x1x1 block: its threads "
                  "are laid out by this rewrite");

  bm.a = c.lhs;
  bm.b = c.rhs;
  bm.acc = c.acc;
  auto aType = cast<MemRefType>(bm.a.getType());
  auto bType = cast<MemRefType>(bm.b.getType());
  bm.inType = c.lhsElementType;
  // wgmma also multiplies f32 inputs, as TF32 (docs/f32.md).
  bool f32Inputs = what == "wgmma" && bm.inType.isF32();
  if (!(bm.inType.isF16() || bm.inType.isBF16() || f32Inputs) ||
      c.rhsElementType != bm.inType || !c.accElementType.isF32())
    return fail(what +
                (what == "wgmma" ? " needs f16, bf16 or f32 inputs"
                                 : " needs f16 or bf16 inputs") +
                " (both the same) and an f32 accumulator");
  if (auto func = target->getParentOfType<FunctionOpInterface>())
    bm.allowTf32 = func->hasAttr(kAllowTf32AttrName);
  if (!rowStride(aType) || !rowStride(bType))
    return fail("expected A and B with rows of unit inner stride and a "
                "static row stride");
  if (ShapedType::isDynamic(c.k))
    return fail("expected the whole K dimension in the block (K = ? is "
                "dynamic: do not tile K before this rewrite)");
  FailureOr<int64_t> m = constantUpperBound(bm.a, bm.aDimM());
  FailureOr<int64_t> n = constantUpperBound(bm.b, bm.bDimN());
  if (failed(m) || failed(n))
    return fail("cannot bound the block tile's M and N extents by "
                "constants (tile the block loop with constant tile sizes)");
  bm.m = *m;
  bm.n = *n;
  bm.k = c.k;
  if (bm.m <= 0 || bm.n <= 0 || bm.k <= 0)
    return fail("the block tile is empty (M, N or K is 0)");

  // The accumulator: zeroed by one fill, then either read by one
  // elementwise generic (a temporary buffer) or itself the output.
  for (OpOperand &use : bm.acc.getUses()) {
    Operation *user = use.getOwner();
    if (user == target || isa<memref::DeallocOp>(user))
      continue;
    if (auto fill = dyn_cast<linalg::FillOp>(user)) {
      if (bm.fill)
        return fail("the accumulator is filled twice");
      bm.fill = fill;
      continue;
    }
    if (auto generic = dyn_cast<linalg::GenericOp>(user)) {
      if (bm.epilogue)
        return fail("the accumulator has more than one consumer");
      bm.epilogue = generic;
      continue;
    }
    DiagnosedSilenceableFailure diag =
        fail("the accumulator may only be used by a linalg.fill, the "
             "contraction and one elementwise linalg.generic");
    diag.attachNote(user->getLoc()) << "other use";
    return diag;
  }
  if (!bm.fill || bm.fill->getBlock() != target->getBlock() ||
      !bm.fill->isBeforeInBlock(target))
    return fail("expected the accumulator to be zeroed by a linalg.fill "
                "before the contraction, in the same block");
  if (bm.epilogue) {
    if (bm.epilogue->getBlock() != target->getBlock() ||
        !target->isBeforeInBlock(bm.epilogue))
      return fail("expected the epilogue after the contraction, in the same "
                  "block");
    if (failed(checkEpilogue(bm.epilogue, bm.acc, why)))
      return fail(why);
    if (!bm.acc.getDefiningOp<memref::AllocOp>())
      return fail("an accumulator read by an epilogue must be a temporary "
                  "(memref.alloc)");
    bm.out = bm.epilogue.getDpsInitOperand(0)->get();
  } else {
    bm.out = bm.acc;
  }
  auto outType = cast<MemRefType>(bm.out.getType());
  bm.outType = outType.getElementType();
  if (!rowStride(outType) || !sameSize(bm.out, bm.acc, 0) ||
      !sameSize(bm.out, bm.acc, 1))
    return fail("expected a row-major output of the accumulator's shape");
  return DiagnosedSilenceableFailure::success();
}

/// Reads `width` elements of the epilogue input `input` for the
/// accumulator elements (row, col) .. (row, col + width - 1), or with
/// `alongRows` (row, col) .. (row + width - 1, col): a vector along that
/// dimension when the input has it (masked past its end), else one element
/// broadcast. The other index is clamped to the input's last.
static Value readEpilogueInput(OpBuilder &b, Location loc,
                               linalg::GenericOp epilogue, OpOperand *input,
                               int64_t width, Value row, Value col,
                               bool alongRows) {
  Value source = input->get();
  auto type = cast<MemRefType>(source.getType());
  AffineMap map = epilogue.getMatchingIndexingMap(input);
  auto clamp = [&](Value index, int64_t dim) -> Value {
    Value size = memref::DimOp::create(b, loc, source, dim);
    Value last = arith::SubIOp::create(
        b, loc, size, arith::ConstantIndexOp::create(b, loc, 1));
    return arith::MinSIOp::create(b, loc, index, last);
  };
  // The loop (0: rows, 1: columns) the vector runs along.
  unsigned vectorLoop = alongRows ? 0 : 1;
  SmallVector<Value> indices;
  std::optional<int64_t> vectorDim;
  for (auto [dim, e] : llvm::enumerate(map.getResults())) {
    unsigned loop = cast<AffineDimExpr>(e).getPosition();
    Value index = loop == 0 ? row : col;
    if (loop == vectorLoop)
      vectorDim = dim;
    indices.push_back(loop == vectorLoop ? index : clamp(index, dim));
  }
  auto vecType = VectorType::get({width}, type.getElementType());
  if (!vectorDim) {
    Value element = memref::LoadOp::create(b, loc, source, indices);
    return vector::BroadcastOp::create(b, loc, vecType, element);
  }
  // The vector runs along input dimension vectorDim.
  AffineMap permutation =
      AffineMap::get(type.getRank(), 0, b.getAffineDimExpr(*vectorDim));
  Value padding =
      arith::ConstantOp::create(b, loc, b.getZeroAttr(type.getElementType()));
  return vector::TransferReadOp::create(
      b, loc, vecType, source, indices, AffineMapAttr::get(permutation),
      padding, /*mask=*/Value(), b.getBoolArrayAttr({false}));
}

void tessel::swapOperands(BlockMatmul &bm) {
  Contraction &c = bm.contraction;
  std::swap(bm.a, bm.b);
  std::swap(bm.m, bm.n);
  std::swap(c.lhs, c.rhs);
  std::swap(c.m, c.n);
  std::swap(c.mLoop, c.nLoop);
  std::swap(c.lhsElementType, c.rhsElementType);
  // B [k, n] read as the product's A is [k, m'] (MN-major); B [n, k] is
  // [m', k]. A [m, k] read as its B is [n', k] (K-major); A [k, m] is
  // [k, n'].
  bool lhsTransposed = c.lhsTransposed;
  c.lhsTransposed = !c.rhsTransposed;
  c.rhsTransposed = !lhsTransposed;
  bm.swapped = !bm.swapped;
}

Value tessel::applyEpilogue(OpBuilder &b, Location loc, const BlockMatmul &bm,
                            Value values, Value row, Value col,
                            bool alongRows) {
  if (!bm.epilogue)
    return values;
  int64_t width = cast<VectorType>(values.getType()).getNumElements();
  linalg::GenericOp epilogue = bm.epilogue;
  IRMapping map;
  for (OpOperand *input : epilogue.getDpsInputOperands()) {
    BlockArgument arg = epilogue.getMatchingBlockArgument(input);
    map.map(arg, input->get() == bm.acc
                     ? values
                     : readEpilogueInput(b, loc, epilogue, input, width, row,
                                         col, alongRows));
  }
  Block &body = epilogue.getRegion().front();
  auto lift = [&](Value v) -> Value {
    if (Value mapped = map.lookupOrNull(v))
      return mapped;
    // A scalar from outside the body (e.g. the ReLU's zero): splat it.
    return vector::BroadcastOp::create(
        b, loc, VectorType::get({width}, v.getType()), v);
  };
  for (Operation &op : body.without_terminator()) {
    SmallVector<Value> operands = llvm::map_to_vector(op.getOperands(), lift);
    Operation *vectorOp =
        b.create(loc, op.getName().getIdentifier(), operands,
                 VectorType::get({width}, op.getResult(0).getType()),
                 op.getAttrs());
    map.map(op.getResult(0), vectorOp->getResult(0));
  }
  return lift(body.getTerminator()->getOperand(0));
}

void tessel::eraseBlockMatmul(RewriterBase &rewriter, const BlockMatmul &bm) {
  if (bm.epilogue)
    rewriter.eraseOp(bm.epilogue);
  rewriter.eraseOp(bm.op());
  rewriter.eraseOp(bm.fill);
  if (auto alloc = bm.acc.getDefiningOp<memref::AllocOp>()) {
    for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
      if (isa<memref::DeallocOp>(user))
        rewriter.eraseOp(user);
    if (alloc->use_empty())
      rewriter.eraseOp(alloc);
  }
}

SmallVector<int64_t> tessel::keptSourceDims(memref::SubViewOp subview) {
  llvm::SmallBitVector dropped = subview.getDroppedDims();
  SmallVector<int64_t> kept;
  for (int64_t d = 0, e = dropped.size(); d < e; ++d)
    if (!dropped.test(d))
      kept.push_back(d);
  return kept;
}

FailureOr<TiledOperand> tessel::getTiledOperand(Value value,
                                                gpu::LaunchOp launch) {
  // The chain of views from the buffer down to the tile.
  SmallVector<memref::SubViewOp> chain;
  Value source = value;
  while (auto subview = source.getDefiningOp<memref::SubViewOp>()) {
    if (!subview.hasUnitStride())
      return failure();
    chain.push_back(subview);
    source = subview.getSource();
  }
  auto type = dyn_cast<MemRefType>(source.getType());
  if (!type || type.getRank() < 2 || !type.hasStaticShape() ||
      !rowStride(type) || launch.getBody().isAncestor(source.getParentRegion()))
    return failure();
  TiledOperand t;
  t.source = source;
  t.offsetTerms.resize(type.getRank());
  // dims[i]: the buffer's dimension that dimension i of the current view
  // runs along.
  SmallVector<int64_t> dims = llvm::to_vector(llvm::seq(type.getRank()));
  for (memref::SubViewOp subview : llvm::reverse(chain)) {
    for (auto [i, offset] : llvm::enumerate(subview.getMixedOffsets()))
      if (getConstantIntValue(offset) != 0)
        t.offsetTerms[dims[i]].push_back(offset);
    dims = llvm::map_to_vector(keptSourceDims(subview),
                               [&](int64_t d) { return dims[d]; });
  }
  // The tile keeps the buffer's last two dimensions, in order.
  if (dims.size() != 2 || dims[0] != type.getRank() - 2 ||
      dims[1] != type.getRank() - 1)
    return failure();
  return t;
}

SmallVector<OpFoldResult> TiledOperand::offsets(OpBuilder &b,
                                                Location loc) const {
  AffineExpr s0, s1;
  bindSymbols(b.getContext(), s0, s1);
  SmallVector<OpFoldResult> result;
  for (ArrayRef<OpFoldResult> terms : offsetTerms) {
    OpFoldResult total = b.getIndexAttr(0);
    for (OpFoldResult term : terms)
      total =
          affine::makeComposedFoldedAffineApply(b, loc, s0 + s1, {total, term});
    result.push_back(total);
  }
  return result;
}

//===----------------------------------------------------------------------===//
// KernelBuilder
//===----------------------------------------------------------------------===//

Value KernelBuilder::dim(Value memref, int64_t i) {
  auto type = cast<MemRefType>(memref.getType());
  if (!type.isDynamicDim(i))
    return cst(type.getDimSize(i));
  return memref::DimOp::create(b, loc, memref, i);
}

void KernelBuilder::forEachChunk(Value tid, int64_t rows, int64_t cols,
                                 int64_t width, int64_t threads,
                                 Value validRows, Value validCols,
                                 function_ref<void(Value, Value, Value)> body) {
  auto covers = [](Value valid, int64_t extent) {
    std::optional<int64_t> v = valid ? getConstantIntValue(valid) : extent;
    return v && *v >= extent;
  };
  bool full = covers(validRows, rows) && covers(validCols, cols);
  int64_t chunksPerRow = cols / width;
  // Chunk tid + j * threads is at row (tid + j * threads) / chunksPerRow.
  // When one of threads and chunksPerRow divides the other, the row and
  // the column are the thread's first ones plus constants, which the
  // addresses then fold (a division per chunk otherwise).
  Value firstRow, firstCol;
  if (threads % chunksPerRow == 0) {
    firstRow = div(tid, chunksPerRow);
    firstCol = mul(rem(tid, chunksPerRow), width);
  }
  // When the threads do not divide the chunks, the last round's threads
  // past the end read row 0 and store nothing.
  int64_t chunks = rows * chunksPerRow;
  for (int64_t j = 0, e = llvm::divideCeil(chunks, threads); j < e; ++j) {
    Value row, col;
    if (firstRow) {
      row = addC(firstRow, j * threads / chunksPerRow);
      col = firstCol;
    } else if (chunksPerRow % threads == 0) {
      int64_t perRow = chunksPerRow / threads;
      row = cst(j / perRow);
      col = mul(addC(tid, j % perRow * threads), width);
    } else {
      Value chunk = addC(tid, j * threads);
      row = div(chunk, chunksPerRow);
      col = mul(rem(chunk, chunksPerRow), width);
    }
    Value inRange;
    if ((j + 1) * threads > chunks) {
      inRange = ult(row, cst(rows));
      row = select(inRange, row, cst(0));
    }
    auto tail = [&](Value valid) {
      return inRange ? select(inRange, valid, cst(0)) : valid;
    };
    if (full) {
      body(row, col, tail(cst(width)));
      continue;
    }
    Value zero = cst(0);
    // validCols - col, clamped to [0, width]; signed, as col may pass it.
    Value left = validCols ? sub(validCols, col) : sub(cst(cols), col);
    left = arith::MaxSIOp::create(b, loc, left, zero);
    left = arith::MinSIOp::create(b, loc, left, cst(width));
    body(row, col,
         tail(validRows ? select(ult(row, validRows), left, zero) : left));
  }
}

Value KernelBuilder::loadValid(VectorType type, Value source,
                               ValueRange indices, Value valid) {
  int64_t width = type.getNumElements();
  if (getConstantIntValue(valid) == width)
    return vector::LoadOp::create(b, loc, type, source, indices);
  auto full = scf::IfOp::create(b, loc, type, eq(valid, width),
                                /*withElse=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(full.thenBlock());
  scf::YieldOp::create(
      b, loc,
      ValueRange{vector::LoadOp::create(b, loc, type, source, indices)});
  b.setInsertionPointToStart(full.elseBlock());
  Value mask = vector::CreateMaskOp::create(
      b, loc, VectorType::get({width}, b.getI1Type()), ValueRange{valid});
  Value zeros = arith::ConstantOp::create(b, loc, b.getZeroAttr(type));
  scf::YieldOp::create(b, loc,
                       ValueRange{vector::MaskedLoadOp::create(
                           b, loc, type, source, indices, mask, zeros)});
  return full.getResult(0);
}

Value KernelBuilder::flatView(Value source) {
  auto type = cast<MemRefType>(source.getType());
  auto [strides, offset] = type.getStridesAndOffset();
  // One past the last element.
  int64_t extent = offset + 1;
  for (auto [size, stride] : llvm::zip_equal(type.getShape(), strides))
    extent += (size - 1) * stride;
  Value aligned = memref::AssumeAlignmentOp::create(b, loc, source,
                                                    b.getI32IntegerAttr(16));
  return memref::ReinterpretCastOp::create(
      b, loc, MemRefType::get({extent}, type.getElementType()), aligned,
      /*offset=*/0, ArrayRef<int64_t>{extent}, ArrayRef<int64_t>{1});
}

KernelBuilder::ChunkGranules
KernelBuilder::loadChunkGranules(Value source, Value flat, Value row, Value col,
                                 Value valid) {
  auto type = cast<MemRefType>(source.getType());
  auto [strides, offset] = type.getStridesAndOffset();
  int64_t perGranule = 128 / type.getElementTypeBitWidth();
  int64_t extent = cast<MemRefType>(flat.getType()).getDimSize(0);
  // The chunk's first element, or the buffer's when none is valid. A
  // batched `source`'s rows are counted over all its matrices, which must
  // be contiguous (isCopyable).
  Value first = addC(add(mul(row, strides.end()[-2]), col), offset);
  if (getConstantIntValue(valid) != perGranule)
    first = select(eq(valid, 0), cst(offset), first);
  Value lo = arith::AndIOp::create(b, loc, first, cst(-perGranule));
  // The granule after `lo`, unless it lies past the buffer's last one
  // (then no valid element is read from it).
  Value hi = arith::MinUIOp::create(b, loc, addC(lo, perGranule),
                                    cst((extent - 1) & -perGranule));
  Value shift = sub(first, lo);
  auto granuleType = VectorType::get({perGranule}, type.getElementType());
  auto load = [&](Value index) -> Value {
    return vector::LoadOp::create(b, loc, granuleType, flat, ValueRange{index},
                                  /*nontemporal=*/false, llvm::MaybeAlign(16));
  };
  return {load(lo), load(hi), shift, valid};
}

Value KernelBuilder::realignChunk(const ChunkGranules &g, VectorType type) {
  Type i32 = b.getI32Type();
  auto wordsType = VectorType::get({4}, i32);
  int64_t elemBytes = type.getElementTypeBitWidth() / 8;
  int64_t perWord = 4 / elemBytes;
  SmallVector<Value> w;
  for (Value granule : {g.lo, g.hi}) {
    Value words = vector::BitCastOp::create(b, loc, wordsType, granule);
    for (int64_t i = 0; i < 4; ++i)
      w.push_back(vector::ExtractOp::create(b, loc, words, i));
  }
  // The chunk starts `shift` elements into `lo`: `skip` (0 to 3) whole
  // words, shifted out in two stages (by two words, then by one: 11
  // selects where choosing each word among four took 15), and half a word
  // more for an odd 16-bit shift (a funnel shift by 0 or 16 bits, one
  // shf.r.wrap per word where a shift pair and a select took two).
  Value skip = div(g.shift, perWord);
  auto bitSet = [&](Value x, int64_t bit) {
    Value masked = arith::AndIOp::create(b, loc, x, cst(bit));
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, masked,
                                 cst(0));
  };
  Value byTwo = bitSet(skip, 2), byOne = bitSet(skip, 1);
  SmallVector<Value> y; // y[t] = w[t + (skip & 2)]
  for (int64_t t = 0; t <= 5; ++t)
    y.push_back(select(byTwo, w[t + 2], w[t]));
  SmallVector<Value> x; // x[t] = w[t + skip]
  for (int64_t t = 0; t <= 4; ++t)
    x.push_back(select(byOne, y[t + 1], y[t]));
  auto i32Cst = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, i32, v).getResult();
  };
  Value funnel;
  if (perWord == 2)
    funnel = arith::IndexCastOp::create(b, loc, i32, mul(rem(g.shift, 2), 16));
  bool full = getConstantIntValue(g.valid) == 4 * perWord;
  SmallVector<Value> out;
  for (int64_t i = 0; i < 4; ++i) {
    // The upper half of x[i], then the lower half of x[i + 1], when odd.
    Value word =
        funnel
            ? LLVM::FshrOp::create(b, loc, x[i + 1], x[i], funnel).getResult()
            : x[i];
    if (!full) {
      // Elements past `valid` become zeros.
      auto ge = [&](int64_t n) {
        return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, g.valid,
                                     cst(n));
      };
      Value mask = select(ge(perWord * (i + 1)), i32Cst(-1), i32Cst(0));
      if (perWord == 2)
        mask = select(eq(g.valid, 2 * i + 1), i32Cst(0xFFFF), mask);
      word = arith::AndIOp::create(b, loc, word, mask);
    }
    out.push_back(word);
  }
  Value words = vector::FromElementsOp::create(b, loc, wordsType, out);
  return vector::BitCastOp::create(b, loc, type, words);
}

void KernelBuilder::storeValid(Value value, Value dest, ValueRange indices,
                               Value valid) {
  int64_t width = cast<VectorType>(value.getType()).getNumElements();
  if (getConstantIntValue(valid) == width) {
    vector::StoreOp::create(b, loc, value, dest, indices);
    return;
  }
  auto full = scf::IfOp::create(b, loc, eq(valid, width), /*withElse=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(full.thenBlock());
  vector::StoreOp::create(b, loc, value, dest, indices);
  b.setInsertionPointToStart(full.elseBlock());
  Value mask = vector::CreateMaskOp::create(
      b, loc, VectorType::get({width}, b.getI1Type()), ValueRange{valid});
  vector::MaskedStoreOp::create(b, loc, dest, indices, mask, value);
}

//===----------------------------------------------------------------------===//
// copyToAlignedRows
//===----------------------------------------------------------------------===//

/// The row length, in elements of `bits` bits, of a workspace that holds
/// rows of `cols` elements for TMA: padded to 128 bytes (TMA reads rows
/// that start on 32-byte boundaries fastest,
/// bench/results/any-shape/README.md), and one 128-byte granule more where
/// that is a multiple of 4 KiB (rows a multiple of 4 KiB apart put a tile's
/// rows in the same memory partitions and cache sets).
static int64_t workspaceRow(int64_t cols, int64_t bits) {
  int64_t granule = 1024 / bits;
  int64_t padded = llvm::alignTo(cols, granule);
  if (padded * bits / 8 % 4096 == 0)
    padded += granule;
  return padded;
}

namespace {

/// Emits the copy kernel of copyToAlignedRows. The chunks (16 bytes of a
/// workspace row) of all sources are numbered row by row, source after
/// source; each block takes kBlockChunks consecutive chunks of one source,
/// each of its threads every kThreads-th of them, so that a warp's loads
/// and stores are contiguous whatever the shape: a block per row left most
/// threads idle where rows are short and launched tens of thousands of
/// blocks where sources are tall (measured on an H100: 53 us to copy
/// 64x12353 and 12353x3 bf16). A thread issues all its loads before its
/// stores. Misaligned 16- and 32-bit rows are read through aligned 16-byte
/// granules (loadChunkGranules), other rows chunk by chunk, masked at the
/// row's end; the workspace takes whole 16-byte stores, zeros past the
/// source's columns.
class AlignedCopyEmitter : KernelBuilder {
public:
  AlignedCopyEmitter(OpBuilder &b, Location loc) : KernelBuilder(b, loc) {}

  static constexpr int64_t kThreads = 256;
  static constexpr int64_t kChunksPerThread = 4;
  static constexpr int64_t kBlockChunks = kThreads * kChunksPerThread;

  SmallVector<Value> emit(gpu::LaunchOp before, ArrayRef<Value> sources) {
    b.setInsertionPoint(before);
    SmallVector<Value> workspaces;
    SmallVector<int64_t> firstBlocks;
    int64_t blocks = 0;
    for (Value source : sources) {
      auto type = cast<MemRefType>(source.getType());
      int64_t elems = 128 / type.getElementTypeBitWidth();
      int64_t cols = type.getShape().back();
      SmallVector<int64_t> wsShape(type.getShape());
      wsShape.back() = workspaceRow(cols, type.getElementTypeBitWidth());
      auto wsType = MemRefType::get(wsShape, type.getElementType());
      workspaces.push_back(gpu::AllocOp::create(b, loc, wsType,
                                                /*asyncToken=*/Type(),
                                                ValueRange(), ValueRange(),
                                                ValueRange())
                               .getMemref());
      firstBlocks.push_back(blocks);
      int64_t chunks = rowCount(type) * llvm::divideCeil(cols, elems);
      blocks += llvm::divideCeil(chunks, kBlockChunks);
    }
    auto copy = gpu::LaunchOp::create(b, loc, cst(blocks), cst(1), cst(1),
                                      cst(kThreads), cst(1), cst(1));
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&copy.getBody().front());
      Value block = copy.getBlockIds().x;
      Value tid = copy.getThreadIds().x;
      for (auto [i, source, ws] : llvm::enumerate(sources, workspaces)) {
        int64_t first = firstBlocks[i];
        int64_t last = i + 1 < sources.size() ? firstBlocks[i + 1] : blocks;
        Value mine = ult(block, cst(last));
        if (first > 0)
          mine = arith::AndIOp::create(
              b, loc, mine,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, block,
                                    cst(first)));
        auto ifMine = scf::IfOp::create(b, loc, mine, /*withElse=*/false);
        OpBuilder::InsertionGuard inner(b);
        b.setInsertionPointToStart(ifMine.thenBlock());
        copyChunks(source, ws, first ? sub(block, cst(first)) : block, tid);
      }
      b.setInsertionPointToEnd(&copy.getBody().front());
      gpu::TerminatorOp::create(b, loc);
    }
    b.setInsertionPointAfter(before);
    for (Value ws : workspaces)
      gpu::DeallocOp::create(b, loc, /*asyncToken=*/Type(), ValueRange(), ws);
    return workspaces;
  }

private:
  /// The rows of all the matrices of a (batched) buffer.
  static int64_t rowCount(MemRefType type) {
    int64_t rows = 1;
    for (int64_t size : type.getShape().drop_back())
      rows *= size;
    return rows;
  }
  /// The indices of element `col` of row `row` (counted over all matrices)
  /// of a buffer of `type`'s shape: a matrix's are (row, col).
  SmallVector<Value> indices(MemRefType type, Value row, Value col) {
    if (type.getRank() == 2)
      return {row, col};
    SmallVector<Value> result;
    for (int64_t size : llvm::reverse(type.getShape().drop_back())) {
      result.push_back(rem(row, size));
      row = div(row, size);
    }
    std::reverse(result.begin(), result.end());
    result.push_back(col);
    return result;
  }
  /// Copies the thread's chunks of block `block` (counted from the
  /// source's first block) of `source` into `ws`: the rows of all its
  /// matrices in turn (batch and row dimensions contiguous, isCopyable).
  void copyChunks(Value source, Value ws, Value block, Value tid) {
    auto type = cast<MemRefType>(source.getType());
    int64_t rows = rowCount(type), cols = type.getShape().back();
    int64_t bits = type.getElementTypeBitWidth();
    int64_t elems = 128 / bits;
    int64_t chunksPerRow = llvm::divideCeil(cols, elems);
    auto vecType = VectorType::get({elems}, type.getElementType());
    // Granule loads need 16- or 32-bit elements (realignChunk) and a static
    // offset from a 16-byte aligned start.
    bool granules = !hasAlignedRows(type, 16) && (bits == 16 || bits == 32) &&
                    !ShapedType::isDynamic(type.getStridesAndOffset().second);
    Value flat = granules ? flatView(source) : Value();
    Value base = mul(block, kBlockChunks);
    struct Chunk {
      Value row, col, valid, value;
      ChunkGranules granules;
    };
    SmallVector<Chunk> chunks;
    for (int64_t j = 0; j < kChunksPerThread; ++j) {
      Chunk c;
      Value index = add(base, addC(tid, j * kThreads));
      c.row = div(index, chunksPerRow);
      c.col = mul(rem(index, chunksPerRow), elems);
      // col < cols: a chunk holds at least one element of its row.
      Value left =
          arith::MinSIOp::create(b, loc, sub(cst(cols), c.col), cst(elems));
      c.valid = select(ult(c.row, cst(rows)), left, cst(0));
      if (granules)
        c.granules = loadChunkGranules(source, flat, c.row, c.col, c.valid);
      else
        c.value =
            loadValid(vecType, source, indices(type, c.row, c.col), c.valid);
      chunks.push_back(c);
    }
    for (Chunk &c : chunks) {
      Value value = granules ? realignChunk(c.granules, vecType) : c.value;
      auto inside = scf::IfOp::create(b, loc, ult(c.row, cst(rows)),
                                      /*withElse=*/false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(inside.thenBlock());
      // The workspace comes from the runtime's allocator (256-byte aligned)
      // and its rows are 128 bytes apart: each chunk is 16-byte aligned.
      vector::StoreOp::create(b, loc, value, ws, indices(type, c.row, c.col),
                              /*nontemporal=*/false, llvm::MaybeAlign(16));
    }
  }
};

/// Emits the kernel of copyTransposed: one block per 32x32 tile of a
/// matrix, 32x8 threads. A warp reads 32 consecutive elements of a source
/// row into a row of a shared tile (rows padded by one element, so the
/// column reads below hit 32 banks), and after a barrier writes 32
/// consecutive elements of a workspace row from a column of it: both
/// global accesses coalesced.
class TransposedCopyEmitter : KernelBuilder {
public:
  TransposedCopyEmitter(OpBuilder &b, Location loc) : KernelBuilder(b, loc) {}

  static constexpr int64_t kTile = 32;
  static constexpr int64_t kRowsPerPass = 8;

  static int64_t blocks(MemRefType type) {
    int64_t rank = type.getRank();
    int64_t n = llvm::divideCeil(type.getDimSize(rank - 2), kTile) *
                llvm::divideCeil(type.getDimSize(rank - 1), kTile);
    for (int64_t size : type.getShape().drop_back(2))
      n *= size;
    return n;
  }

  Value emit(gpu::LaunchOp before, Value source) {
    b.setInsertionPoint(before);
    auto type = cast<MemRefType>(source.getType());
    int64_t rank = type.getRank();
    int64_t rows = type.getDimSize(rank - 2), cols = type.getDimSize(rank - 1);
    SmallVector<int64_t> wsShape(type.getShape());
    wsShape[rank - 2] = cols;
    wsShape[rank - 1] = workspaceRow(rows, type.getElementTypeBitWidth());
    Value ws =
        gpu::AllocOp::create(
            b, loc, MemRefType::get(wsShape, type.getElementType()),
            /*asyncToken=*/Type(), ValueRange(), ValueRange(), ValueRange())
            .getMemref();
    int64_t tilesR = llvm::divideCeil(rows, kTile);
    int64_t tilesC = llvm::divideCeil(cols, kTile);
    auto copy = gpu::LaunchOp::create(b, loc, cst(blocks(type)), cst(1), cst(1),
                                      cst(kTile), cst(kRowsPerPass), cst(1));
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&copy.getBody().front());
      Value block = copy.getBlockIds().x;
      Value tx = copy.getThreadIds().x, ty = copy.getThreadIds().y;
      Value c0 = mul(rem(block, tilesC), kTile);
      block = div(block, tilesC);
      Value r0 = mul(rem(block, tilesR), kTile);
      block = div(block, tilesR);
      // The matrix's batch indices, innermost last.
      SmallVector<Value> batch;
      for (int64_t size : llvm::reverse(type.getShape().drop_back(2))) {
        batch.push_back(rem(block, size));
        block = div(block, size);
      }
      std::reverse(batch.begin(), batch.end());
      auto at = [&](Value row, Value col) {
        SmallVector<Value> indices(batch);
        indices.append({row, col});
        return indices;
      };
      auto inside = [&](Value row, Value col) {
        return arith::AndIOp::create(b, loc, ult(row, cst(rows)),
                                     ult(col, cst(cols)));
      };
      Type element = type.getElementType();
      Value tile = memref::AllocOp::create(
          b, loc, sharedType({kTile, kTile + 1}, element));
      Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(element));
      // All loads before the stores into the tile.
      SmallVector<Value> loaded;
      for (int64_t i = 0; i < kTile / kRowsPerPass; ++i) {
        Value row = add(r0, addC(ty, i * kRowsPerPass)), col = add(c0, tx);
        auto ifIn = scf::IfOp::create(b, loc, element, inside(row, col),
                                      /*withElse=*/true);
        OpBuilder::InsertionGuard inner(b);
        b.setInsertionPointToStart(ifIn.thenBlock());
        scf::YieldOp::create(
            b, loc,
            memref::LoadOp::create(b, loc, source, at(row, col)).getResult());
        b.setInsertionPointToStart(ifIn.elseBlock());
        scf::YieldOp::create(b, loc, zero);
        loaded.push_back(ifIn.getResult(0));
      }
      for (auto [i, value] : llvm::enumerate(loaded))
        memref::StoreOp::create(b, loc, value, tile,
                                {addC(ty, i * kRowsPerPass), tx});
      gpu::BarrierOp::create(b, loc);
      for (int64_t i = 0; i < kTile / kRowsPerPass; ++i) {
        Value col = add(c0, addC(ty, i * kRowsPerPass)), row = add(r0, tx);
        Value value = memref::LoadOp::create(b, loc, tile,
                                             {tx, addC(ty, i * kRowsPerPass)});
        auto ifIn =
            scf::IfOp::create(b, loc, inside(row, col), /*withElse=*/false);
        OpBuilder::InsertionGuard inner(b);
        b.setInsertionPointToStart(ifIn.thenBlock());
        memref::StoreOp::create(b, loc, value, ws, at(col, row));
      }
      b.setInsertionPointToEnd(&copy.getBody().front());
      gpu::TerminatorOp::create(b, loc);
    }
    b.setInsertionPointAfter(before);
    gpu::DeallocOp::create(b, loc, /*asyncToken=*/Type(), ValueRange(), ws);
    return ws;
  }
};

} // namespace

bool tessel::isCopyable(MemRefType type) {
  if (!type.hasStaticShape() || !rowStride(type))
    return false;
  // Batched: each dimension's stride spans the next one's whole extent, so
  // that the rows of all matrices follow each other a row stride apart.
  auto [strides, offset] = type.getStridesAndOffset();
  for (int64_t d = 0; d + 2 < type.getRank(); ++d)
    if (strides[d] != strides[d + 1] * type.getDimSize(d + 1))
      return false;
  return true;
}

SmallVector<Value> tessel::copyToAlignedRows(RewriterBase &rewriter,
                                             gpu::LaunchOp launch,
                                             ArrayRef<Value> sources) {
  if (sources.empty())
    return {};
  OpBuilder::InsertionGuard guard(rewriter);
  return AlignedCopyEmitter(rewriter, launch.getLoc()).emit(launch, sources);
}

bool tessel::canCopyTransposed(MemRefType type) {
  return type.hasStaticShape() && type.getRank() >= 2 && rowStride(type) &&
         TransposedCopyEmitter::blocks(type) <= INT32_MAX;
}

Value tessel::copyTransposed(RewriterBase &rewriter, gpu::LaunchOp launch,
                             Value source) {
  OpBuilder::InsertionGuard guard(rewriter);
  return TransposedCopyEmitter(rewriter, launch.getLoc()).emit(launch, source);
}
