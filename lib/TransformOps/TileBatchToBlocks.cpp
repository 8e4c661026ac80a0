//===- TileBatchToBlocks.cpp - Batch dimensions to grid z -----------------===//
//
// transform.tessel.tile_batch_to_blocks: a batched contraction, its fill
// and its elementwise epilogue become one scf.forall over the batch mapped
// to #gpu.block<z>, whose body computes one batch element with 2-D ops (a
// linalg.matmul, its fill, a 2-D epilogue) on rank-reducing slices. The
// schedules then tile that 2-D body as they tile an unbatched one, and
// transform.tessel.merge_block_foralls folds the two block loops into one
// grid before mapping.
//
//===----------------------------------------------------------------------===//

#include "tessel/Analysis/Contraction.h"
#include "tessel/TransformOps/TesselTransformOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace tessel;

/// Grid z's limit (CUDA's maximum gridDim.z).
static constexpr int64_t kMaxGridZ = 65535;

namespace {

/// A batched contraction with what the split rewrites along with it.
struct BatchedChain {
  Contraction contraction;
  linalg::FillOp fill;
  /// The elementwise consumer of the accumulator, or null.
  linalg::GenericOp epilogue;
};

/// Builds one batch element's 2-D ops inside the forall.
class BatchSplitter {
public:
  BatchSplitter(RewriterBase &rewriter, BatchedChain chain)
      : b(rewriter), chain(std::move(chain)), c(this->chain.contraction),
        loc(c.op->getLoc()), nb(c.batch.size()) {}

  /// Replaces the chain with the forall; returns it.
  scf::ForallOp rewrite();

private:
  /// The `[batch..., r, c]` value's slice at the current batch indices,
  /// rank-reduced to 2-D (a tensor of `type`'s last two dimensions).
  Value slice2d(Value source) {
    DenseMap<int64_t, int64_t> batchOfDim;
    for (int64_t i = 0; i < nb; ++i)
      batchOfDim[i] = i;
    return sliceAt(source, batchOfDim);
  }
  /// `source`'s slice at the current batch element, with the dimensions
  /// indexed by the batch dropped: `batchOfDim` maps each of them to the
  /// batch dimension (0 to nb - 1) it runs along.
  Value sliceAt(Value source, const DenseMap<int64_t, int64_t> &batchOfDim);
  /// `map` (over the epilogue's loops, batch first) without the batch
  /// loops: results on them dropped, the others renumbered.
  AffineMap dropBatch(AffineMap map) const;

  RewriterBase &b;
  BatchedChain chain;
  Contraction &c;
  Location loc;
  int64_t nb;
  SmallVector<Value> batchIndex;
};

} // namespace

Value BatchSplitter::sliceAt(Value source,
                             const DenseMap<int64_t, int64_t> &batchOfDim) {
  auto type = cast<RankedTensorType>(source.getType());
  SmallVector<OpFoldResult> offsets, sizes, strides;
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    auto it = batchOfDim.find(d);
    strides.push_back(b.getIndexAttr(1));
    if (it != batchOfDim.end()) {
      offsets.push_back(batchIndex[it->second]);
      sizes.push_back(b.getIndexAttr(1));
      continue;
    }
    offsets.push_back(b.getIndexAttr(0));
    sizes.push_back(b.getIndexAttr(type.getDimSize(d)));
    shape.push_back(type.getDimSize(d));
  }
  auto sliceType = RankedTensorType::get(shape, type.getElementType());
  return tensor::ExtractSliceOp::create(b, loc, sliceType, source, offsets,
                                        sizes, strides);
}

AffineMap BatchSplitter::dropBatch(AffineMap map) const {
  SmallVector<AffineExpr> results;
  for (AffineExpr e : map.getResults()) {
    unsigned loop = cast<AffineDimExpr>(e).getPosition();
    if (loop >= unsigned(nb))
      results.push_back(getAffineDimExpr(loop - nb, map.getContext()));
  }
  return AffineMap::get(map.getNumDims() - nb, 0, results, map.getContext());
}

scf::ForallOp BatchSplitter::rewrite() {
  MLIRContext *ctx = b.getContext();
  Operation *last =
      chain.epilogue ? chain.epilogue.getOperation() : c.op.getOperation();
  Value dest = chain.epilogue ? chain.epilogue.getDpsInitOperand(0)->get()
                              : chain.fill.getDpsInitOperand(0)->get();
  b.setInsertionPoint(last);
  auto forall = scf::ForallOp::create(
      b, loc, ArrayRef<OpFoldResult>{b.getIndexAttr(c.batchCount())},
      ValueRange{dest},
      b.getArrayAttr(
          {gpu::GPUBlockMappingAttr::get(ctx, gpu::MappingId::DimZ)}),
      /*bodyBuilderFn=*/nullptr);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(forall.getBody());
  Value linear = forall.getInductionVars().front();
  if (nb == 1) {
    batchIndex.push_back(linear);
  } else {
    SmallVector<OpFoldResult> basis =
        llvm::map_to_vector(c.batch, [&](int64_t size) -> OpFoldResult {
          return b.getIndexAttr(size);
        });
    auto delinearize = affine::AffineDelinearizeIndexOp::create(
        b, loc, linear, basis, /*hasOuterBound=*/true);
    batchIndex.append(delinearize.getResults().begin(),
                      delinearize.getResults().end());
  }
  Value out = forall.getRegionIterArgs().front();

  // The accumulator: zeroed by a 2-D fill of a fresh tensor, or of the
  // output's slice when the contraction writes the output itself.
  auto accType = cast<RankedTensorType>(c.acc.getType());
  Value accInit =
      chain.epilogue
          ? tensor::EmptyOp::create(b, loc, accType.getShape().take_back(2),
                                    accType.getElementType())
                .getResult()
          : slice2d(out);
  Value acc = linalg::FillOp::create(b, loc, chain.fill.getDpsInputs(),
                                     ValueRange{accInit})
                  .getResult(0);

  // The contraction: linalg.matmul, with indexing maps where an operand is
  // transposed.
  AffineExpr m = getAffineDimExpr(0, ctx), n = getAffineDimExpr(1, ctx),
             k = getAffineDimExpr(2, ctx);
  SmallVector<NamedAttribute> attrs;
  if (c.lhsTransposed || c.rhsTransposed) {
    auto map = [&](AffineExpr x, AffineExpr y) {
      return AffineMap::get(3, 0, {x, y}, ctx);
    };
    attrs.push_back(b.getNamedAttr(
        "indexing_maps",
        b.getAffineMapArrayAttr({c.lhsTransposed ? map(k, m) : map(m, k),
                                 c.rhsTransposed ? map(n, k) : map(k, n),
                                 map(m, n)})));
  }
  Value product =
      linalg::MatmulOp::create(b, loc, TypeRange{acc.getType()},
                               ValueRange{slice2d(c.lhs), slice2d(c.rhs)},
                               ValueRange{acc}, attrs)
          .getResult(0);

  Value result = product;
  if (chain.epilogue) {
    // The epilogue: each input sliced at the batch indices along the
    // dimensions its map indexes by batch loops.
    linalg::GenericOp epilogue = chain.epilogue;
    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    for (OpOperand *input : epilogue.getDpsInputOperands()) {
      AffineMap map = epilogue.getMatchingIndexingMap(input);
      maps.push_back(dropBatch(map));
      if (input->get() == c.op->getResult(0)) {
        inputs.push_back(product);
        continue;
      }
      // Loop p < nb of the epilogue (the output's dimension p) runs along
      // batch dimension p.
      DenseMap<int64_t, int64_t> batchOfDim;
      for (auto [d, e] : llvm::enumerate(map.getResults()))
        if (unsigned loop = cast<AffineDimExpr>(e).getPosition();
            loop < unsigned(nb))
          batchOfDim[d] = loop;
      inputs.push_back(batchOfDim.empty() ? input->get()
                                          : sliceAt(input->get(), batchOfDim));
    }
    maps.push_back(dropBatch(
        epilogue.getMatchingIndexingMap(epilogue.getDpsInitOperand(0))));
    Value outSlice = slice2d(out);
    auto generic = linalg::GenericOp::create(
        b, loc, TypeRange{outSlice.getType()}, inputs, ValueRange{outSlice},
        maps,
        SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel));
    IRMapping mapping;
    epilogue.getRegion().cloneInto(&generic.getRegion(), mapping);
    result = generic.getResult(0);
  }

  // The element's result into the output.
  auto outType = cast<RankedTensorType>(dest.getType());
  SmallVector<OpFoldResult> offsets(batchIndex.begin(), batchIndex.end()),
      sizes(nb, b.getIndexAttr(1)),
      strides(outType.getRank(), b.getIndexAttr(1));
  for (int64_t d = nb; d < outType.getRank(); ++d) {
    offsets.push_back(b.getIndexAttr(0));
    sizes.push_back(b.getIndexAttr(outType.getDimSize(d)));
  }
  b.setInsertionPointToStart(forall.getTerminator().getBody());
  tensor::ParallelInsertSliceOp::create(b, loc, result, out, offsets, sizes,
                                        strides);

  b.replaceOp(last, forall.getResults());
  if (chain.epilogue)
    b.eraseOp(c.op);
  if (chain.fill->use_empty())
    b.eraseOp(chain.fill);
  return forall;
}

/// Finds the contraction's fill and epilogue; on failure says why.
static FailureOr<BatchedChain> matchChain(Contraction c, std::string &why) {
  BatchedChain chain;
  chain.contraction = c;
  if (!c.op.hasPureTensorSemantics()) {
    why = "expected a batched contraction on tensors (before bufferization)";
    return failure();
  }
  if (!c.hasStaticShape()) {
    why = "expected static batch, M, N and K sizes";
    return failure();
  }
  int64_t count = c.batchCount();
  if (count > kMaxGridZ) {
    why = "the batch has " + std::to_string(count) +
          " elements; a grid holds at most " + std::to_string(kMaxGridZ) +
          " along z";
    return failure();
  }
  chain.fill = c.acc.getDefiningOp<linalg::FillOp>();
  if (!chain.fill) {
    why = "expected the accumulator zeroed by a linalg.fill";
    return failure();
  }
  Value result = c.op->getResult(0);
  if (!result.hasOneUse()) {
    why = "expected the contraction's result used once (by the epilogue or "
          "as the function's result)";
    return failure();
  }
  auto generic = dyn_cast<linalg::GenericOp>(*result.getUsers().begin());
  if (!generic)
    return chain;
  // An elementwise epilogue: parallel loops over the output's dimensions,
  // the accumulator and the output indexed by the identity, the other
  // inputs by projections of it.
  unsigned rank = c.batch.size() + 2;
  bool elementwise =
      generic.getNumLoops() == rank && generic.getNumParallelLoops() == rank &&
      generic.getNumDpsInits() == 1 &&
      llvm::all_of(generic.getIndexingMapsArray(), [](AffineMap map) {
        return map.isProjectedPermutation(/*allowZeroInResults=*/false);
      });
  for (OpOperand *input : generic.getDpsInputOperands())
    if (input->get() == result &&
        !generic.getMatchingIndexingMap(input).isIdentity())
      elementwise = false;
  if (!elementwise ||
      !generic.getMatchingIndexingMap(generic.getDpsInitOperand(0))
           .isIdentity()) {
    why = "expected the contraction's consumer to be an elementwise "
          "linalg.generic over its result (an epilogue)";
    return failure();
  }
  chain.epilogue = generic;
  return chain;
}

DiagnosedSilenceableFailure
tessel::TileBatchToBlocksOp::apply(transform::TransformRewriter &rewriter,
                                   transform::TransformResults &results,
                                   transform::TransformState &state) {
  SmallVector<Operation *> foralls;
  for (Operation *target : state.getPayloadOps(getTarget())) {
    // Collect first: the rewrite replaces ops inside `target`.
    SmallVector<BatchedChain> chains;
    DiagnosedSilenceableFailure diag = DiagnosedSilenceableFailure::success();
    target->walk([&](linalg::LinalgOp op) {
      std::string why;
      FailureOr<Contraction> c = inferContraction(op, why);
      if (failed(c) || c->batch.empty())
        return WalkResult::advance();
      FailureOr<BatchedChain> chain = matchChain(*c, why);
      if (failed(chain)) {
        diag = failOnTarget(*this, op, why);
        return WalkResult::interrupt();
      }
      chains.push_back(*chain);
      return WalkResult::advance();
    });
    if (!diag.succeeded())
      return diag;
    for (const BatchedChain &chain : chains)
      foralls.push_back(BatchSplitter(rewriter, chain).rewrite());
  }
  results.set(cast<OpResult>(getForall()), foralls);
  return DiagnosedSilenceableFailure::success();
}

void tessel::TileBatchToBlocksOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  transform::onlyReadsHandle(getTargetMutable(), effects);
  transform::producesHandle(getOperation()->getOpResults(), effects);
  transform::modifiesPayload(effects);
}

//===----------------------------------------------------------------------===//
// MergeBlockForallsOp
//===----------------------------------------------------------------------===//

/// Whether `forall` is mapped to thread blocks.
static bool isBlockForall(scf::ForallOp forall) {
  std::optional<ArrayAttr> mapping = forall.getMapping();
  return mapping && !mapping->empty() &&
         llvm::all_of(*mapping, llvm::IsaPred<gpu::GPUBlockMappingAttr>);
}

DiagnosedSilenceableFailure
tessel::MergeBlockForallsOp::apply(transform::TransformRewriter &rewriter,
                                   transform::TransformResults &results,
                                   transform::TransformState &state) {
  for (Operation *target : state.getPayloadOps(getTarget())) {
    SmallVector<scf::ForallOp> outers;
    target->walk([&](scf::ForallOp forall) {
      if (isBlockForall(forall) && !forall->getParentOfType<scf::ForallOp>())
        outers.push_back(forall);
    });
    for (scf::ForallOp outer : outers) {
      SmallVector<scf::ForallOp> inners;
      outer.getBody()->walk([&](scf::ForallOp forall) {
        if (isBlockForall(forall))
          inners.push_back(forall);
      });
      if (inners.empty())
        continue;
      auto fail = [&](const Twine &why) {
        return failOnTarget(*this, outer, why);
      };
      scf::ForallOp inner = inners.front();
      if (inners.size() != 1 || inner->getParentOp() != outer)
        return fail("expected at most one block loop nested in a block loop, "
                    "directly in its body");
      if (!outer.getResults().empty() || !inner.getResults().empty())
        return fail("expected block loops on buffers (bufferize first)");
      if (!outer.isNormalized() || !inner.isNormalized())
        return fail("expected normalized block loops (zero lower bounds, "
                    "unit steps)");
      // The outer body's other ops are moved into the inner body: they must
      // be free of side effects (views, index arithmetic) or allocate a
      // buffer (a block's temporary, which bufferization leaves in the
      // outer body when one inner block covers the whole matrix): each
      // block then has its own, as it would without batch.
      auto movable = [](Operation &op) {
        return isMemoryEffectFree(&op) ||
               hasSingleEffect<MemoryEffects::Allocate>(&op);
      };
      for (Operation &op : outer.getBody()->without_terminator()) {
        if (&op != inner && !movable(op)) {
          DiagnosedSilenceableFailure diag =
              fail("the outer block loop's body has an op with side effects "
                   "besides the inner block loop");
          diag.attachNote(op.getLoc()) << "this op";
          return diag;
        }
      }
      SmallVector<Attribute> mapping(outer.getMapping()->begin(),
                                     outer.getMapping()->end());
      llvm::append_range(mapping, *inner.getMapping());
      llvm::SmallDenseSet<Attribute> seen(mapping.begin(), mapping.end());
      if (seen.size() != mapping.size())
        return fail("the nested block loops map to the same grid dimension");
      SmallVector<OpFoldResult> bounds = outer.getMixedUpperBound();
      llvm::append_range(bounds, inner.getMixedUpperBound());

      rewriter.setInsertionPoint(outer);
      auto merged = scf::ForallOp::create(
          rewriter, outer.getLoc(), bounds, ValueRange{},
          rewriter.getArrayAttr(mapping), /*bodyBuilderFn=*/nullptr);
      Block *body = merged.getBody();
      unsigned outerRank = outer.getRank();
      // The inner body first, then the outer body's views in front of it.
      SmallVector<Value> innerIvs(body->getArguments().drop_front(outerRank));
      rewriter.eraseOp(body->getTerminator());
      rewriter.mergeBlocks(inner.getBody(), body, innerIvs);
      rewriter.eraseOp(inner);
      SmallVector<Value> outerIvs(body->getArguments().take_front(outerRank));
      rewriter.eraseOp(outer.getBody()->getTerminator());
      rewriter.inlineBlockBefore(outer.getBody(), &body->front(), outerIvs);
      rewriter.eraseOp(outer);
    }
  }
  return DiagnosedSilenceableFailure::success();
}

void tessel::MergeBlockForallsOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  transform::onlyReadsHandle(getTargetMutable(), effects);
  transform::modifiesPayload(effects);
}
