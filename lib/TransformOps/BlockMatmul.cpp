//===- BlockMatmul.cpp - A thread block's matmul and its epilogue ---------===//

#include "BlockMatmul.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"

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

/// Checks that `generic` is `out = f(acc)` elementwise: identity maps,
/// parallel loops, one input, and a body of lane-wise scalar ops that does
/// not read the output.
static LogicalResult checkEpilogue(linalg::GenericOp generic, Value acc,
                                   std::string &why) {
  if (generic.getNumDpsInputs() != 1 || generic.getNumDpsInits() != 1 ||
      generic.getDpsInputOperand(0)->get() != acc) {
    why = "the accumulator's consumer must be a linalg.generic with the "
          "accumulator as its only input and one output";
    return failure();
  }
  if (generic.getNumParallelLoops() != generic.getNumLoops() ||
      !llvm::all_of(generic.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isIdentity(); })) {
    why = "the epilogue must be elementwise (identity maps, parallel loops)";
    return failure();
  }
  Block &body = generic.getRegion().front();
  if (!body.getArgument(1).use_empty()) {
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

/// Finds the matmul's fill and epilogue and checks shapes and types.
DiagnosedSilenceableFailure
tessel::matchBlockMatmul(transform::TransformOpInterface transformOp,
                         Operation *target, StringRef what, BlockMatmul &bm) {
  auto fail = [&](const Twine &message) {
    DiagnosedSilenceableFailure diag =
        transformOp.emitSilenceableError() << message;
    diag.attachNote(target->getLoc()) << "target op";
    return diag;
  };

  auto matmul = dyn_cast<linalg::MatmulOp>(target);
  if (!matmul || !matmul.hasPureBufferSemantics())
    return fail("expected a linalg.matmul on memrefs (bufferize first)");
  if (matmul.hasUserDefinedMaps())
    return fail("expected a linalg.matmul without transposed or broadcast "
                "operands (no indexing_maps)");
  bm.matmul = matmul;
  bm.launch = matmul->getParentOfType<gpu::LaunchOp>();
  if (!bm.launch)
    return fail("expected the matmul inside a gpu.launch (map the block "
                "forall with transform.gpu.map_forall_to_blocks first)");
  for (Value dim : {bm.launch.getBlockSizeX(), bm.launch.getBlockSizeY(),
                    bm.launch.getBlockSizeZ()})
    if (getConstantIntValue(dim) != 1)
      return fail("expected a gpu.launch with a 1x1x1 block: its threads "
                  "are laid out by this rewrite");

  bm.a = matmul.getDpsInputOperand(0)->get();
  bm.b = matmul.getDpsInputOperand(1)->get();
  bm.acc = matmul.getDpsInitOperand(0)->get();
  auto aType = cast<MemRefType>(bm.a.getType());
  auto bType = cast<MemRefType>(bm.b.getType());
  auto accType = cast<MemRefType>(bm.acc.getType());
  if (!aType.hasStaticShape() || !bType.hasStaticShape() ||
      !accType.hasStaticShape())
    return fail("dynamic shapes are not supported");
  bm.m = aType.getDimSize(0);
  bm.k = aType.getDimSize(1);
  bm.n = bType.getDimSize(1);
  bm.inType = aType.getElementType();
  if (!(bm.inType.isF16() || bm.inType.isBF16()) ||
      bType.getElementType() != bm.inType ||
      !accType.getElementType().isF32())
    return fail(what + " needs f16 or bf16 inputs (both the same) and an "
                       "f32 accumulator");
  for (MemRefType type : {aType, bType}) {
    int64_t offset;
    SmallVector<int64_t> strides;
    if (failed(type.getStridesAndOffset(strides, offset)) ||
        strides.back() != 1 || ShapedType::isDynamic(strides.front()) ||
        strides.front() % 8 != 0)
      return fail("expected row-major A and B with rows of a multiple of 8 "
                  "elements (16-byte aligned copies)");
  }

  // The accumulator: zeroed by one fill, then either read by one
  // elementwise generic (a temporary buffer) or itself the output.
  for (OpOperand &use : bm.acc.getUses()) {
    Operation *user = use.getOwner();
    if (user == matmul || isa<memref::DeallocOp>(user))
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
        fail("the accumulator may only be used by a linalg.fill, the matmul "
             "and one elementwise linalg.generic");
    diag.attachNote(user->getLoc()) << "other use";
    return diag;
  }
  if (!bm.fill || bm.fill->getBlock() != matmul->getBlock() ||
      !bm.fill->isBeforeInBlock(matmul))
    return fail("expected the accumulator to be zeroed by a linalg.fill "
                "before the matmul, in the same block");
  if (bm.epilogue) {
    std::string why;
    if (bm.epilogue->getBlock() != matmul->getBlock() ||
        !matmul->isBeforeInBlock(bm.epilogue))
      return fail("expected the epilogue after the matmul, in the same block");
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
  int64_t offset;
  SmallVector<int64_t> strides;
  if (outType.getShape() != accType.getShape() ||
      failed(outType.getStridesAndOffset(strides, offset)) ||
      strides.back() != 1)
    return fail("expected a row-major output of the accumulator's shape");
  return DiagnosedSilenceableFailure::success();
}

Value tessel::applyEpilogue(OpBuilder &b, Location loc, const BlockMatmul &bm,
                            Value values) {
  if (!bm.epilogue)
    return values;
  int64_t width = cast<VectorType>(values.getType()).getNumElements();
  linalg::GenericOp epilogue = bm.epilogue;
  Block &body = epilogue.getRegion().front();
  IRMapping map;
  map.map(body.getArgument(0), values);
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
  rewriter.eraseOp(bm.matmul);
  rewriter.eraseOp(bm.fill);
  if (auto alloc = bm.acc.getDefiningOp<memref::AllocOp>()) {
    for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
      if (isa<memref::DeallocOp>(user))
        rewriter.eraseOp(user);
    if (alloc->use_empty())
      rewriter.eraseOp(alloc);
  }
}
