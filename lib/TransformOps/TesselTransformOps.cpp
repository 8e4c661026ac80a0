//===- TesselTransformOps.cpp - Tessel transform ops ----------------------===//

#include "tessel/TransformOps/TesselTransformOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/TransformOps/GPUTransformOps.h"
#include "mlir/Dialect/GPU/TransformOps/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/NVGPU/TransformOps/NVGPUTransformOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Transform/TuneExtension/TuneExtensionOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/ScopeExit.h"

using namespace mlir;

#define GET_OP_CLASSES
#include "tessel/TransformOps/TesselTransformOps.cpp.inc"

/// Describes where a tile-size param comes from, for diagnostics: the knob
/// name when it is a `transform.tune.knob`, its position otherwise.
static std::string describeSize(Value size, unsigned position) {
  if (auto knob = size.getDefiningOp<transform::tune::KnobOp>())
    return ("knob '" + knob.getName().getValue() + "'").str();
  return "tile size #" + std::to_string(position);
}

FailureOr<int64_t>
tessel::getSingleIntParam(transform::TransformState &state, Value param) {
  ArrayRef<Attribute> values = state.getParams(param);
  if (values.size() != 1 || !isa<IntegerAttr>(values.front()))
    return failure();
  return cast<IntegerAttr>(values.front()).getInt();
}

DiagnosedSilenceableFailure
tessel::failOnTarget(transform::TransformOpInterface op, Operation *target,
                     const Twine &message) {
  DiagnosedSilenceableFailure diag = op.emitSilenceableError() << message;
  diag.attachNote(target->getLoc()) << "target op";
  return diag;
}

//===----------------------------------------------------------------------===//
// CheckTileSizesOp
//===----------------------------------------------------------------------===//

DiagnosedSilenceableFailure
tessel::CheckTileSizesOp::apply(transform::TransformRewriter &rewriter,
                                transform::TransformResults &results,
                                transform::TransformState &state) {
  SmallVector<int64_t> sizes;
  for (Value param : getTileSizes()) {
    FailureOr<int64_t> size = getSingleIntParam(state, param);
    if (failed(size))
      return emitDefiniteFailure()
             << "expected each tile size to be a single integer param";
    sizes.push_back(*size);
  }

  for (Operation *target : state.getPayloadOps(getTarget())) {
    auto fail = [&](const Twine &message) {
      return failOnTarget(*this, target, message);
    };
    auto linalgOp = dyn_cast<linalg::LinalgOp>(target);
    if (!linalgOp)
      return fail("expected a linalg op");
    SmallVector<int64_t> ranges = linalgOp.getStaticLoopRanges();
    for (auto [i, range] : llvm::enumerate(ranges)) {
      if (ShapedType::isDynamic(range))
        return fail("dynamic shapes are not supported: loop dimension " +
                    Twine(i) + " has a dynamic size");
      if (range == 0)
        return fail("loop dimension " + Twine(i) +
                    " has size 0: there is nothing to compute");
    }
    for (auto [i, size] : llvm::enumerate(sizes)) {
      if (size >= 0)
        continue;
      return fail(describeSize(getTileSizes()[i], i) + " = " + Twine(size) +
                  " is negative; tile sizes are positive "
                  "(or 0 for \"not tiled\")");
    }
  }
  return DiagnosedSilenceableFailure::success();
}

void tessel::CheckTileSizesOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  transform::onlyReadsHandle(getTargetMutable(), effects);
  transform::onlyReadsHandle(getTileSizesMutable(), effects);
  transform::onlyReadsPayload(effects);
}

//===----------------------------------------------------------------------===//
// MapNestedForallToThreadsOp
//===----------------------------------------------------------------------===//

/// Returns the GPU dimension (0 = x, 1 = y, 2 = z) of a thread mapping, or
/// nothing when `attr` maps to something else (blocks, warps, linear ids).
static std::optional<int64_t> threadDimension(Attribute attr) {
  auto thread = dyn_cast<gpu::GPUThreadMappingAttr>(attr);
  if (!thread || thread.isLinearMapping())
    return std::nullopt;
  return static_cast<int64_t>(thread.getMappingId());
}

DiagnosedSilenceableFailure tessel::MapNestedForallToThreadsOp::applyToOne(
    transform::TransformRewriter &rewriter, Operation *target,
    transform::ApplyToEachResultList &results,
    transform::TransformState &state) {
  auto launch = dyn_cast<gpu::LaunchOp>(target);
  if (!launch)
    return failOnTarget(*this, target, "expected a gpu.launch");

  SmallVector<int64_t> blockDims = {1, 1, 1};
  bool foundThreadForall = false;
  Operation *dynamicForall = nullptr;
  Operation *unnormalizedForall = nullptr;
  scf::ForallOp mismatchedForall;
  launch.walk([&](scf::ForallOp forall) {
    std::optional<ArrayAttr> mapping = forall.getMapping();
    if (!mapping)
      return;
    // The transform interpreter does not verify the payload between
    // steps: a tile size of 0 drops a loop and can leave its mapping.
    if (mapping->size() != static_cast<size_t>(forall.getRank())) {
      mismatchedForall = forall;
      return;
    }
    SmallVector<OpFoldResult> lbs = forall.getMixedLowerBound();
    SmallVector<OpFoldResult> ubs = forall.getMixedUpperBound();
    SmallVector<OpFoldResult> steps = forall.getMixedStep();
    for (auto [i, attr] : llvm::enumerate(mapping->getValue())) {
      std::optional<int64_t> dim = threadDimension(attr);
      if (!dim)
        continue;
      foundThreadForall = true;
      std::optional<int64_t> lb = getConstantIntValue(lbs[i]);
      std::optional<int64_t> ub = getConstantIntValue(ubs[i]);
      std::optional<int64_t> step = getConstantIntValue(steps[i]);
      if (!lb || !ub || !step || *step <= 0) {
        dynamicForall = forall;
        continue;
      }
      if (*lb != 0 || *step != 1)
        unnormalizedForall = forall;
      blockDims[*dim] = std::max<int64_t>(
          blockDims[*dim], llvm::divideCeilSigned(*ub - *lb, *step));
    }
  });

  if (mismatchedForall) {
    DiagnosedSilenceableFailure diag =
        emitSilenceableError()
        << "an scf.forall has " << mismatchedForall.getMapping()->size()
        << " mapping attributes for its " << mismatchedForall.getRank()
        << " loops (a tile size of 0 tiles no loop: give it no mapping)";
    diag.attachNote(mismatchedForall.getLoc()) << "scf.forall";
    return diag;
  }
  if (!foundThreadForall)
    return failOnTarget(*this, target,
                        "no scf.forall mapped to #gpu.thread in the launch");
  if (dynamicForall) {
    DiagnosedSilenceableFailure diag =
        emitSilenceableError()
        << "cannot infer the block size from a thread-mapped scf.forall "
           "with a dynamic trip count";
    diag.attachNote(dynamicForall->getLoc()) << "scf.forall";
    return diag;
  }

  if (unnormalizedForall) {
    // Checked before the launch is resized: the upstream mapping rejects
    // such loops only after that.
    DiagnosedSilenceableFailure diag =
        emitSilenceableError()
        << "thread-mapped scf.forall must have zero lower bounds and unit "
           "steps (tile with tile_using_forall, which produces them)";
    diag.attachNote(unnormalizedForall->getLoc()) << "scf.forall";
    return diag;
  }

  auto constantOr = [](Value v) -> std::optional<int64_t> {
    return getConstantIntValue(v);
  };
  auto transformOp = cast<transform::TransformOpInterface>(getOperation());
  DiagnosedSilenceableFailure diag = transform::gpu::checkGpuLimits(
      transformOp, constantOr(launch.getGridSizeX()),
      constantOr(launch.getGridSizeY()), constantOr(launch.getGridSizeZ()),
      blockDims[0], blockDims[1], blockDims[2]);
  if (!diag.succeeded()) {
    if (diag.isSilenceableFailure())
      diag.attachNote(target->getLoc())
          << "inferred block size " << blockDims[0] << " x " << blockDims[1]
          << " x " << blockDims[2] << " ("
          << blockDims[0] * blockDims[1] * blockDims[2]
          << " threads) from the thread tiling of this launch";
    return diag;
  }

  diag = transform::gpu::alterGpuLaunch(
      rewriter, launch, transformOp, std::nullopt, std::nullopt, std::nullopt,
      blockDims[0], blockDims[1], blockDims[2]);
  if (!diag.succeeded())
    return diag;

  rewriter.setInsertionPointToStart(&launch.getBody().front());
  diag = transform::gpu::mapNestedForallToThreadsImpl(
      rewriter, transformOp, launch, blockDims, getWarpSize(),
      /*syncAfterDistribute=*/true);
  results.push_back(launch);
  return diag;
}

//===----------------------------------------------------------------------===//
// PipelineSharedMemoryCopiesOp
//===----------------------------------------------------------------------===//

DiagnosedSilenceableFailure tessel::PipelineSharedMemoryCopiesOp::apply(
    transform::TransformRewriter &rewriter,
    transform::TransformResults &results, transform::TransformState &state) {
  FailureOr<int64_t> depth = getSingleIntParam(state, getDepth());
  if (failed(depth) || *depth < 1)
    return emitDefiniteFailure()
           << "expected depth to be a single integer of at least 1";

  // Upstream's op does the work; it takes the depth as an attribute, so a
  // detached instance carries the param's value. Its operand is a scratch
  // block argument: a use of the real handle by an op outside the schedule
  // would confuse the interpreter's handle tracking.
  OpBuilder builder(getContext());
  Block scratch;
  Value scratchHandle = scratch.addArgument(getTarget().getType(), getLoc());
  auto upstream = transform::PipelineSharedMemoryCopiesOp::create(
      builder, getLoc(), getResult().getType(), scratchHandle,
      static_cast<uint64_t>(*depth), getPeelEpilogue());
  auto eraseUpstream = llvm::scope_exit([&] { upstream->erase(); });

  SmallVector<Operation *> pipelined;
  for (Operation *target : state.getPayloadOps(getTarget())) {
    auto forOp = dyn_cast<scf::ForOp>(target);
    if (!forOp)
      return failOnTarget(*this, target, "expected an scf.for");
    // Upstream's only answer to a loop shorter than the pipeline is
    // "pipelining preconditions failed".
    std::optional<int64_t> lb = getConstantIntValue(forOp.getLowerBound()),
                           ub = getConstantIntValue(forOp.getUpperBound()),
                           step = getConstantIntValue(forOp.getStep());
    if (lb && ub && step && *step > 0) {
      int64_t trips = *ub > *lb ? (*ub - *lb + *step - 1) / *step : 0;
      // A loop of one iteration (K within one tile) has nothing to overlap
      // at any depth: its copies stay synchronous (each waited for before
      // the compute that reads them), so every depth serves it.
      if (trips <= 1) {
        pipelined.push_back(forOp);
        continue;
      }
      if (trips < *depth) {
        DiagnosedSilenceableFailure diag =
            emitSilenceableError()
            << "pipelining depth " << *depth << " needs a loop of at least "
            << *depth << " iterations; this loop runs " << trips
            << " (lower the depth or the loop's tile size)";
        diag.attachNote(forOp.getLoc()) << "target loop";
        return diag;
      }
    }
    transform::ApplyToEachResultList loopResults;
    DiagnosedSilenceableFailure diag =
        upstream.applyToOne(rewriter, forOp, loopResults, state);
    if (!diag.succeeded())
      return diag;
    pipelined.push_back(cast<Operation *>(loopResults[0]));
  }
  results.set(cast<OpResult>(getResult()), pipelined);
  return DiagnosedSilenceableFailure::success();
}

void tessel::PipelineSharedMemoryCopiesOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  transform::consumesHandle(getTargetMutable(), effects);
  transform::onlyReadsHandle(getDepthMutable(), effects);
  transform::producesHandle(getOperation()->getOpResults(), effects);
  transform::modifiesPayload(effects);
}

//===----------------------------------------------------------------------===//
// SwizzleBlockOrderOp
//===----------------------------------------------------------------------===//

DiagnosedSilenceableFailure
tessel::SwizzleBlockOrderOp::apply(transform::TransformRewriter &rewriter,
                                   transform::TransformResults &results,
                                   transform::TransformState &state) {
  FailureOr<int64_t> group = getSingleIntParam(state, getGroup());
  if (failed(group) || *group < 1)
    return emitDefiniteFailure()
           << "expected group to be a single integer of at least 1";

  for (Operation *target : state.getPayloadOps(getTarget())) {
    auto launch = dyn_cast<gpu::LaunchOp>(target);
    std::optional<int64_t> gx, gy;
    if (launch) {
      gx = getConstantIntValue(launch.getGridSizeX());
      gy = getConstantIntValue(launch.getGridSizeY());
    }
    if (!gx || !gy)
      return failOnTarget(*this, target,
                          "expected a gpu.launch with a constant grid");
    int64_t rows = std::min(*group, *gy);
    if (rows == 1)
      continue;

    SmallVector<gpu::BlockIdOp> xs, ys;
    launch.walk([&](gpu::BlockIdOp id) {
      if (id.getDimension() == gpu::Dimension::x)
        xs.push_back(id);
      else if (id.getDimension() == gpu::Dimension::y)
        ys.push_back(id);
    });
    if (xs.empty() && ys.empty())
      continue;

    // l = y * gx + x; a group covers `rows` block rows of all gx columns and
    // is walked column by column.
    Location loc = launch.getLoc();
    rewriter.setInsertionPointToStart(&launch.getBody().front());
    auto cst = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(rewriter, loc, v);
    };
    Value x = gpu::BlockIdOp::create(rewriter, loc, gpu::Dimension::x);
    Value y = gpu::BlockIdOp::create(rewriter, loc, gpu::Dimension::y);
    Value linear = arith::AddIOp::create(
        rewriter, loc, arith::MulIOp::create(rewriter, loc, y, cst(*gx)), x);
    Value perGroup = cst(rows * *gx);
    Value groupId = arith::DivUIOp::create(rewriter, loc, linear, perGroup);
    Value firstRow = arith::MulIOp::create(rewriter, loc, groupId, cst(rows));
    Value rowsHere = arith::MinUIOp::create(
        rewriter, loc, arith::SubIOp::create(rewriter, loc, cst(*gy), firstRow),
        cst(rows));
    Value inGroup = arith::RemUIOp::create(rewriter, loc, linear, perGroup);
    Value newY = arith::AddIOp::create(
        rewriter, loc, firstRow,
        arith::RemUIOp::create(rewriter, loc, inGroup, rowsHere));
    Value newX = arith::DivUIOp::create(rewriter, loc, inGroup, rowsHere);
    for (gpu::BlockIdOp id : xs)
      rewriter.replaceOp(id, newX);
    for (gpu::BlockIdOp id : ys)
      rewriter.replaceOp(id, newY);
  }
  return DiagnosedSilenceableFailure::success();
}

void tessel::SwizzleBlockOrderOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  transform::onlyReadsHandle(getTargetMutable(), effects);
  transform::onlyReadsHandle(getGroupMutable(), effects);
  transform::modifiesPayload(effects);
}
