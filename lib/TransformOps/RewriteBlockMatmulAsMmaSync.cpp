//===- RewriteBlockMatmulAsMmaSync.cpp - A block's matmul on tensor cores -===//
//
// transform.tessel.rewrite_block_matmul_as_mma_sync: a thread block's
// matmul, its zero fill and its elementwise epilogue become a K loop that
// stages A and B tiles in workgroup memory and computes warp tiles with
// nvgpu.ldmatrix + nvgpu.mma.sync (m16n8k16, f32 accumulators).
//
//===----------------------------------------------------------------------===//

#include "tessel/TransformOps/TesselTransformOps.h"

#include "BlockMatmul.h"
#include "tessel/TransformOps/MmaLayout.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/TransformOps/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace tessel;

/// The unit attribute marking the generated K loop.
static constexpr llvm::StringLiteral kMainLoopAttr = "tessel.mma_main_loop";

/// m16n8k16: the one mma.sync shape for 16-bit inputs.
static constexpr int64_t kMmaM = 16, kMmaN = 8, kMmaK = 16;
/// Elements of a 16-bit type in one 16-byte copy.
static constexpr int64_t kCopyElems = 8;
/// Shared memory one block may use on sm_90 (227 KiB), the most of any chip
/// Tessel targets; the runtime checks the device's own limit at load time.
static constexpr int64_t kMaxSharedMemory = 232448;

namespace {

/// The knob values the rewrite is instantiated with.
struct MmaConfig {
  int64_t tileK, warpM, warpN, stages, padding;
  /// Whether the epilogue goes through shared memory (16-byte stores).
  bool stageOutput;
};

} // namespace

/// Threads of the block: one warp per warp tile.
static int64_t blockThreads(const BlockMatmul &bm, const MmaConfig &c) {
  return kThreadsPerWarp * (bm.m / c.warpM) * (bm.n / c.warpN);
}

/// The shared memory of the A and B stage buffers and, with stage_output,
/// of the staged output tile, in bytes.
static int64_t sharedMemoryBytes(const BlockMatmul &bm, const MmaConfig &c) {
  int64_t inBytes = bm.inType.getIntOrFloatBitWidth() / 8;
  // A and B are staged as stored ([m, k] or [k, m]; [k, n] or [n, k]),
  // rows padded.
  int64_t bytes = c.stages *
                  (mma::stageElems(bm.aKMajor(), bm.m, c.tileK, c.padding) +
                   mma::stageElems(bm.bKMajor(), bm.n, c.tileK, c.padding)) *
                  inBytes;
  if (c.stageOutput) {
    int64_t outBits = bm.outType.getIntOrFloatBitWidth();
    bytes += bm.m * (bm.n + 128 / outBits) * outBits / 8;
  }
  return bytes;
}

/// Checks the configuration against the block tile; returns why it does not
/// fit, or an empty string.
static std::string checkConfig(const BlockMatmul &bm, const MmaConfig &c) {
  std::string msg;
  llvm::raw_string_ostream os(msg);
  if (c.tileK <= 0 || c.tileK % kMmaK != 0)
    os << "tile_k = " << c.tileK << " must be a multiple of " << kMmaK;
  else if (c.warpM <= 0 || c.warpM % kMmaM != 0 || bm.m % c.warpM != 0)
    os << "warp tile M = " << c.warpM << " must be a multiple of " << kMmaM
       << " that divides the block tile M = " << bm.m;
  else if (c.warpN <= 0 || c.warpN % (2 * kMmaN) != 0 || bm.n % c.warpN != 0)
    os << "warp tile N = " << c.warpN << " must be a multiple of "
       << 2 * kMmaN << " that divides the block tile N = " << bm.n;
  else if (c.stages < 1)
    os << "stages = " << c.stages << " must be at least 1";
  else if (c.padding < 0 || c.padding % kCopyElems != 0)
    os << "padding = " << c.padding << " must be a non-negative multiple of "
       << kCopyElems << " (16-byte aligned rows)";
  else if (c.stageOutput && 128 % bm.outType.getIntOrFloatBitWidth() != 0)
    os << "the output type " << bm.outType
       << " does not fill 16-byte stores; stage_output must be 0";
  if (!msg.empty())
    return msg;
  int64_t threads = blockThreads(bm, c);
  if (threads > 1024)
    os << "the block tile " << bm.m << "x" << bm.n << " with warp tile "
       << c.warpM << "x" << c.warpN << " needs " << threads
       << " threads; at most 1024 fit in a block";
  else if ((bm.m * c.tileK / kCopyElems) % threads != 0 ||
           (c.tileK * bm.n / kCopyElems) % threads != 0)
    os << "the " << bm.m << "x" << c.tileK << " A tile and " << c.tileK << "x"
       << bm.n << " B tile do not split into 16-byte copies evenly among "
       << threads << " threads";
  else if (int64_t bytes = sharedMemoryBytes(bm, c); bytes > kMaxSharedMemory)
    os << "the " << bm.m << "x" << bm.n << " tile with tile_k = " << c.tileK
       << ", " << c.stages << " stages and padding " << c.padding
       << (c.stageOutput ? " (and its staged output)" : "") << " needs "
       << bytes << " bytes of shared memory; a block has at most "
       << kMaxSharedMemory << " (sm_90)";
  return msg;
}

namespace {

/// Emits the rewrite; all values are `index` unless stated.
class MmaSyncEmitter : KernelBuilder {
public:
  MmaSyncEmitter(RewriterBase &rewriter, BlockMatmul bm,
                 const MmaConfig &c)
      : KernelBuilder(rewriter, bm.loc()), bm(bm), c(c) {}

  scf::ForOp emit();

private:

  /// Copies one tile (rows x cols of `src` at [row0, col0]) into buffer
  /// `stage` of `shared`, in 16-byte chunks spread over all threads. Only
  /// the part of the tile inside `src`'s first validRows x validCols
  /// elements is read; the rest is zero-filled (cp.async with a smaller
  /// source size once the copies become asynchronous).
  void emitTileCopy(Value src, Value row0, Value col0, Value validRows,
                    Value validCols, Value shared, Value stage, int64_t rows,
                    int64_t cols);
  /// One K-tile of warp-level mma.sync; returns the new accumulators.
  SmallVector<Value> emitCompute(Value stage, ValueRange accs);
  /// Applies the epilogue to the accumulators and stores them.
  void emitEpilogue(ValueRange accs);

  BlockMatmul bm;
  const MmaConfig c;
  int64_t threads = 0, warpsN = 0, fragsM = 0, fragsN = 0;
  Value tid, lane, warpRow, warpCol, sharedA, sharedB;
};

} // namespace

void MmaSyncEmitter::emitTileCopy(Value src, Value row0, Value col0,
                                  Value validRows, Value validCols,
                                  Value shared, Value stage, int64_t rows,
                                  int64_t cols) {
  auto vecType = VectorType::get({kCopyElems}, bm.inType);
  auto maskType = VectorType::get({kCopyElems}, b.getI1Type());
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(bm.inType));
  forEachChunk(
      tid, rows, cols, kCopyElems, threads, validRows, validCols,
      [&](Value row, Value col, Value valid) {
        Value srcRow = add(row0, row), srcCol = add(col0, col);
        Value mask;
        if (getConstantIntValue(valid) != kCopyElems) {
          // A chunk with nothing to read still gets an address inside the
          // buffer: the tile's first element.
          Value any = ult(cst(0), valid);
          srcRow = select(any, srcRow, row0);
          srcCol = select(any, srcCol, col0);
          mask = vector::CreateMaskOp::create(b, loc, maskType,
                                              ValueRange{valid});
        }
        auto read = vector::TransferReadOp::create(
            b, loc, vecType, src, ValueRange{srcRow, srcCol}, zero,
            ArrayRef<bool>{true});
        if (mask)
          read.getMaskMutable().assign(mask);
        Value v = read;
        vector::TransferWriteOp::create(b, loc, v, shared,
                                        ValueRange{stage, row, col},
                                        ArrayRef<bool>{true});
      });
}

SmallVector<Value> MmaSyncEmitter::emitCompute(Value stage, ValueRange accs) {
  auto fragA = VectorType::get({4, 2}, bm.inType);
  Value laneRow = rem(lane, 16);
  Value laneCol = mul(div(lane, 16), kCopyElems);
  SmallVector<Value> result(accs.begin(), accs.end());
  for (int64_t kk = 0; kk < c.tileK; kk += kMmaK) {
    // A: one x4 ldmatrix per 16x16 fragment, its 8x8 matrices ordered
    // (m 0-7, k 0-7), (m 8-15, k 0-7), (m 0-7, k 8-15), (m 8-15, k 8-15).
    // Staged [m, k], they are read as stored: lane l addresses m row
    // l % 16 at k 8 * (l / 16). Staged [k, m], they are read transposed:
    // lane l addresses k row 8 * (l / 16) + l % 8 at m 8 * (l / 8 % 2).
    SmallVector<Value> a;
    for (int64_t mi = 0; mi < fragsM; ++mi) {
      Value m0 = addC(warpRow, mi * kMmaM);
      a.push_back(
          bm.aKMajor()
              ? nvgpu::LdMatrixOp::create(
                    b, loc, fragA, sharedA,
                    ValueRange{stage, add(m0, laneRow), addC(laneCol, kk)},
                    /*transpose=*/false, /*numTiles=*/4)
              : nvgpu::LdMatrixOp::create(
                    b, loc, fragA, sharedA,
                    ValueRange{stage, addC(add(laneCol, rem(lane, 8)), kk),
                               add(m0, mul(rem(div(lane, 8), 2), kCopyElems))},
                    /*transpose=*/true, /*numTiles=*/4));
    }
    // B: one x4 ldmatrix yields the fragments of two adjacent 8-column
    // tiles, its 8x8 matrices ordered (n 0-7, k 0-7), (n 0-7, k 8-15),
    // (n 8-15, k 0-7), (n 8-15, k 8-15). Staged [k, n], they are read
    // transposed: lane l addresses k row l % 16 at n 8 * (l / 16). Staged
    // [n, k] (K-major, as A), they are read as stored: lane l addresses n
    // row 8 * (l / 16) + l % 8 at k 8 * (l / 8 % 2).
    SmallVector<Value> bFrags;
    for (int64_t nj = 0; nj < fragsN; nj += 2) {
      Value n0 = addC(warpCol, nj * kMmaN);
      Value pair =
          bm.bKMajor()
              ? nvgpu::LdMatrixOp::create(
                    b, loc, fragA, sharedB,
                    ValueRange{stage, add(add(n0, laneCol), rem(lane, 8)),
                               addC(mul(rem(div(lane, 8), 2), kCopyElems), kk)},
                    /*transpose=*/false, /*numTiles=*/4)
              : nvgpu::LdMatrixOp::create(
                    b, loc, fragA, sharedB,
                    ValueRange{stage, addC(laneRow, kk), add(n0, laneCol)},
                    /*transpose=*/true, /*numTiles=*/4);
      for (int64_t half = 0; half < 2; ++half)
        bFrags.push_back(vector::ShuffleOp::create(
            b, loc, pair, pair, ArrayRef<int64_t>{2 * half, 2 * half + 1}));
    }
    for (int64_t mi = 0; mi < fragsM; ++mi)
      for (int64_t ni = 0; ni < fragsN; ++ni) {
        Value &acc = result[mi * fragsN + ni];
        acc = nvgpu::MmaSyncOp::create(
            b, loc, a[mi], bFrags[ni], acc,
            b.getI64ArrayAttr({kMmaM, kMmaN, kMmaK}));
      }
  }
  return result;
}

void MmaSyncEmitter::emitEpilogue(ValueRange accs) {
  // mma.sync accumulator layout: lane l holds rows l / 4 and l / 4 + 8,
  // columns 2 * (l % 4) + {0, 1} of each 16x8 fragment. Pairs go straight
  // to the output (4-byte stores for 16-bit types) or, with stageOutput,
  // to a padded tile in shared memory first.
  Value staged = bm.out;
  int64_t padOut = 0;
  if (c.stageOutput) {
    padOut = 128 / bm.outType.getIntOrFloatBitWidth();
    staged = memref::AllocOp::create(
        b, loc, sharedType({bm.m, bm.n + padOut}, bm.outType));
  }
  Value groupRow = div(lane, 4);
  Value groupCol = mul(rem(lane, 4), 2);
  // Direct stores of a partial tile keep only its valid part.
  Value validRows = dim(bm.out, 0), validCols = dim(bm.out, 1);
  bool full = getConstantIntValue(validRows) >= bm.m &&
              getConstantIntValue(validCols) >= bm.n;
  for (int64_t mi = 0; mi < fragsM; ++mi)
    for (int64_t ni = 0; ni < fragsN; ++ni)
      for (int64_t half = 0; half < 2; ++half) {
        Value pair = vector::ExtractOp::create(b, loc, accs[mi * fragsN + ni],
                                               ArrayRef<int64_t>{half});
        Value row = add(addC(warpRow, mi * kMmaM + 8 * half), groupRow);
        Value col = add(addC(warpCol, ni * kMmaN), groupCol);
        Value value = applyEpilogue(b, loc, bm, pair, row, col);
        if (c.stageOutput || full) {
          vector::StoreOp::create(b, loc, value, staged, ValueRange{row, col});
          continue;
        }
        Value left = arith::MaxSIOp::create(b, loc, sub(validCols, col),
                                            cst(0));
        left = arith::MinSIOp::create(b, loc, left, cst(2));
        storeValid(value, staged, ValueRange{row, col},
                   select(ult(row, validRows), left, cst(0)));
      }
  if (!c.stageOutput)
    return;

  // All threads copy the tile out in 16-byte rows: consecutive threads on
  // consecutive chunks of a row (coalesced).
  gpu::BarrierOp::create(b, loc);
  int64_t elems = alignedChunk(cast<MemRefType>(bm.out.getType()), padOut);
  auto vecType = VectorType::get({elems}, bm.outType);
  forEachChunk(tid, bm.m, bm.n, elems, threads, validRows, validCols,
               [&](Value row, Value col, Value valid) {
                 Value v = vector::LoadOp::create(b, loc, vecType, staged,
                                                  ValueRange{row, col});
                 storeValid(v, bm.out, ValueRange{row, col}, valid);
               });
}

scf::ForOp MmaSyncEmitter::emit() {
  warpsN = bm.n / c.warpN;
  threads = blockThreads(bm, c);
  fragsM = c.warpM / kMmaM;
  fragsN = c.warpN / kMmaN;

  tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  lane = rem(tid, kThreadsPerWarp);
  Value warp = div(tid, kThreadsPerWarp);
  warpRow = mul(div(warp, warpsN), c.warpM);
  warpCol = mul(rem(warp, warpsN), c.warpN);

  // Each operand staged as stored, K-major ([m, k], [n, k]) or not.
  auto staged = [&](bool kMajor, int64_t mn) {
    auto [rows, cols] = mma::stageShape(kMajor, mn, c.tileK, c.padding);
    return memref::AllocOp::create(
        b, loc, sharedType({c.stages, rows, cols}, bm.inType));
  };
  sharedA = staged(bm.aKMajor(), bm.m);
  sharedB = staged(bm.bKMajor(), bm.n);

  auto accType = VectorType::get({2, 2}, b.getF32Type());
  Value init = vector::BroadcastOp::create(b, loc, accType,
                                           bm.fill.getInputs().front());
  SmallVector<Value> inits(fragsM * fragsN, init);

  auto loop = scf::ForOp::create(
      b, loc, cst(0), cst(bm.k), cst(c.tileK), inits,
      [&](OpBuilder &, Location, Value kb, ValueRange accs) {
        // Copies first (they run ahead once pipelined), then the math. The
        // barrier before the copies keeps them from overwriting a buffer
        // that other warps still read; the one after makes them visible.
        // The buffer index is computed twice on purpose: once for the
        // copies, once for the math, which the pipeliner puts in different
        // stages; a shared value would be carried across iterations.
        Value copyStage = rem(div(kb, c.tileK), c.stages);
        gpu::BarrierOp::create(b, loc);
        Value zero = cst(0);
        Value kLeft = bm.k % c.tileK == 0 ? cst(c.tileK) : sub(cst(bm.k), kb);
        // A K-major tile's rows run along M or N, another's along K.
        auto copy = [&](Value src, bool kMajor, int64_t mn, Value shared) {
          if (kMajor)
            emitTileCopy(src, zero, kb, dim(src, 0), kLeft, shared, copyStage,
                         mn, c.tileK);
          else
            emitTileCopy(src, kb, zero, kLeft, dim(src, 1), shared, copyStage,
                         c.tileK, mn);
        };
        copy(bm.a, bm.aKMajor(), bm.m, sharedA);
        copy(bm.b, bm.bKMajor(), bm.n, sharedB);
        gpu::BarrierOp::create(b, loc);
        Value computeStage = rem(div(kb, c.tileK), c.stages);
        scf::YieldOp::create(b, loc, emitCompute(computeStage, accs));
      });
  loop->setAttr(kMainLoopAttr, b.getUnitAttr());
  b.setInsertionPointAfter(loop);
  emitEpilogue(loop.getResults());
  return loop;
}

/// Whether `tile` (a block's tile of a buffer, or of a batched buffer's
/// matrix) spans the buffer's whole dimension `dim`.
static bool wholeDimension(Value tile, int64_t dim) {
  auto type = cast<MemRefType>(tile.getType());
  if (type.isDynamicDim(dim))
    return false;
  Value whole = tile;
  int64_t wholeDim = dim;
  if (auto subview = tile.getDefiningOp<memref::SubViewOp>()) {
    whole = subview.getSource();
    // A rank-reducing view (one batch element's matrix) drops the batch
    // dimensions.
    wholeDim = keptSourceDims(subview)[dim];
  }
  auto wholeType = cast<MemRefType>(whole.getType());
  return !wholeType.isDynamicDim(wholeDim) &&
         wholeType.getDimSize(wholeDim) == type.getDimSize(dim);
}

DiagnosedSilenceableFailure tessel::RewriteBlockMatmulAsMmaSyncOp::apply(
    transform::TransformRewriter &rewriter,
    transform::TransformResults &results, transform::TransformState &state) {
  SmallVector<int64_t> values;
  for (Value param : {getTileK(), getWarpM(), getWarpN(), getStages(),
                      getPadding(), getStageOutput()}) {
    FailureOr<int64_t> v = tessel::getSingleIntParam(state, param);
    if (failed(v))
      return emitDefiniteFailure()
             << "expected each param to hold exactly one integer";
    values.push_back(*v);
  }
  if (values[5] != 0 && values[5] != 1)
    return emitDefiniteFailure() << "expected stage_output to be 0 or 1";
  MmaConfig config{values[0], values[1], values[2],
                   values[3], values[4], values[5] == 1};
  auto transformOp = cast<transform::TransformOpInterface>(getOperation());

  SmallVector<Operation *> loops;
  for (Operation *target : state.getPayloadOps(getTarget())) {
    BlockMatmul bm;
    DiagnosedSilenceableFailure diag =
        matchBlockMatmul(transformOp, target, "mma.sync", bm);
    if (!diag.succeeded())
      return diag;
    // When one block covers a whole dimension that is not a multiple of
    // the warp tile, the block computes whole warp tiles; the rest is
    // zero-filled and not stored.
    if (wholeDimension(bm.a, bm.aDimM()))
      bm.m = llvm::alignTo(bm.m, config.warpM);
    if (wholeDimension(bm.b, bm.bDimN()))
      bm.n = llvm::alignTo(bm.n, config.warpN);
    if (std::string why = checkConfig(bm, config); !why.empty())
      return failOnTarget(*this, target, why);

    diag = transform::gpu::alterGpuLaunch(
        rewriter, bm.launch, transformOp, std::nullopt, std::nullopt,
        std::nullopt, blockThreads(bm, config), 1, 1);
    if (!diag.succeeded())
      return diag;

    // 16-byte cp.async needs 16-byte row strides: an operand whose rows are
    // not (f16 with an odd K or N) is first copied into a workspace with
    // padded rows, and the block reads its tile of the copy.
    SmallVector<std::pair<Value *, TiledOperand>> copied;
    for (Value *operand : {&bm.a, &bm.b}) {
      if (hasAlignedRows(cast<MemRefType>(operand->getType())))
        continue;
      FailureOr<TiledOperand> tiled = getTiledOperand(*operand, bm.launch);
      if (failed(tiled) ||
          !isCopyable(cast<MemRefType>(tiled->source.getType())))
        return failOnTarget(
            *this, target,
            "the rows of A or B are not 16-byte aligned and the operand is "
            "not a unit-stride tile of a statically shaped buffer defined "
            "outside the launch, which could be copied");
      copied.emplace_back(operand, *tiled);
    }
    SmallVector<Value> workspaces = copyToAlignedRows(
        rewriter, bm.launch,
        llvm::map_to_vector(copied, [](auto &c) { return c.second.source; }));
    for (auto [entry, ws] : llvm::zip_equal(copied, workspaces)) {
      auto &[operand, tiled] = entry;
      rewriter.setInsertionPoint(bm.op());
      auto type = cast<MemRefType>(operand->getType());
      // The tile of the copy, at the same offsets; a batched copy's batch
      // dimensions are dropped again.
      SmallVector<OpFoldResult> sizes(tiled.batchRank(),
                                      rewriter.getIndexAttr(1));
      llvm::append_range(sizes,
                         memref::getMixedSizes(rewriter, bm.loc(), *operand));
      SmallVector<OpFoldResult> strides(sizes.size(), rewriter.getIndexAttr(1));
      SmallVector<OpFoldResult> offsets = tiled.offsets(rewriter, bm.loc());
      auto tileType = memref::SubViewOp::inferRankReducedResultType(
          type.getShape(), cast<MemRefType>(ws.getType()), offsets, sizes,
          strides);
      *operand = memref::SubViewOp::create(rewriter, bm.loc(), tileType, ws,
                                           offsets, sizes, strides);
    }

    Operation *last = bm.epilogue ? bm.epilogue.getOperation() : bm.op();
    rewriter.setInsertionPoint(last);
    MmaSyncEmitter emitter(rewriter, bm, config);
    loops.push_back(emitter.emit());

    // The generic, matmul and fill are replaced; so is a temporary
    // accumulator.
    eraseBlockMatmul(rewriter, bm);
  }
  results.set(cast<OpResult>(getLoop()), loops);
  return DiagnosedSilenceableFailure::success();
}

void tessel::RewriteBlockMatmulAsMmaSyncOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  transform::consumesHandle(getTargetMutable(), effects);
  transform::onlyReadsHandle(getTileKMutable(), effects);
  transform::onlyReadsHandle(getWarpMMutable(), effects);
  transform::onlyReadsHandle(getWarpNMutable(), effects);
  transform::onlyReadsHandle(getStagesMutable(), effects);
  transform::onlyReadsHandle(getPaddingMutable(), effects);
  transform::onlyReadsHandle(getStageOutputMutable(), effects);
  transform::producesHandle(getOperation()->getOpResults(), effects);
  transform::modifiesPayload(effects);
}
