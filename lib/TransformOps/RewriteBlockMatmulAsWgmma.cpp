//===- RewriteBlockMatmulAsWgmma.cpp - A block's matmul on Hopper ---------===//
//
// transform.tessel.rewrite_block_matmul_as_wgmma: a thread block's matmul,
// its zero fill and its elementwise epilogue become a warp-specialized
// Hopper kernel body:
//
//   - the host creates one TMA tensor map for A and one for B
//     (nvgpu.tma.create.descriptor; Tessel's runtime encodes them from the
//     launch metadata and passes them as __grid_constant__ parameters);
//   - a producer warpgroup (one thread of it) streams BM x 64 tiles of A
//     and 64 x BN tiles of B (as BN / 64 boxes of 64 x 64) with
//     nvgpu.tma.async.load into a ring of `stages` shared-memory buffers,
//     128-byte swizzled, each guarded by a "full" mbarrier (transaction
//     count) and an "empty" mbarrier (consumer arrivals); with a short K,
//     an operand whose rows TMA cannot read is instead read by whole
//     producer warpgroups, up to four taking K steps in turn (aligned
//     16-byte loads, realigned in registers), and stored swizzled, as TMA
//     would; with a longer K, by one producer warpgroup through staging
//     slots that TMA fills a few K steps ahead, every eighth row through
//     one tensor map (rows 8 apart are 16-byte aligned alike), realigned
//     by a constant shift per row phase;
//   - BM / 64 consumer warpgroups each compute 64 x BN of the tile with
//     nvgpu.warpgroup.mma (wgmma m64nBNk16, f32 accumulators in registers),
//     keeping one wgmma group in flight, and release a buffer as soon as
//     the wgmma that read it has completed;
//   - the consumers apply the epilogue (ReLU, bias, GELU, ..., then the
//     conversion) on the accumulator registers, stage the converted tile
//     in shared memory (reusing the ring) and write it with coalesced
//     16-byte stores;
//   - optionally (split_k, persistent, cluster): K split across the blocks
//     of a cluster, persistent blocks walking tiles (with stream-K:
//     sharing the last partial wave's K steps, docs/wgmma.md), or
//     clusters of two blocks that multicast the operand tiles they share.
//
//===----------------------------------------------------------------------===//

#include "tessel/TransformOps/TesselTransformOps.h"

#include "BlockMatmul.h"
#include "LaunchRewrites.h"
#include "tessel/TransformOps/WgmmaLayout.h"
#include "tessel/Transforms/LaunchMetadata.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/TransformOps/Utils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/MathExtras.h"

#include <functional>

using namespace mlir;
using namespace tessel;
using namespace tessel::wgmma;

/// The unit attribute marking the consumers' K loop.
static constexpr llvm::StringLiteral kMainLoopAttr = "tessel.wgmma_main_loop";

/// 16-bit elements of one 16-byte chunk, the unit the producer threads
/// read, realign and store.
static constexpr int64_t kChunk = 8;
/// Largest box dimension TMA accepts.
static constexpr int64_t kMaxBoxDim = 256;
/// The most dimensions a tensor map has.
static constexpr int64_t kMaxTmaRank = 5;
/// Shared memory one block may use on sm_90 (227 KiB).
static constexpr int64_t kMaxSharedMemory = 232448;
/// Producer warpgroups at most when the threads read operands.
static constexpr int64_t kMaxProducers = 4;
/// The time limit, in nanoseconds, of one mbarrier.try_wait before it is
/// retried.
static constexpr int64_t kTryWaitTicks = 10000000;
/// Named barrier (0 is __syncthreads) the consumer warpgroups share.
static constexpr int64_t kConsumerBarrier = 1;
/// Blocks of a cluster at most: split-K splits K over the blocks of one
/// (the largest portable cluster size).
static constexpr int64_t kMaxClusterSize = 8;

/// Stream-K: the most blocks a launch has, each with one partial tile in
/// the workspace (the runtime launches as many as the GPU holds at once).
static constexpr int64_t kMaxStreamKBlocks = 256;
/// Stream-K: what a consumer warpgroup's partial flag reaches once its
/// threads stored their parts (one arrival, by its first thread).
static constexpr int64_t kPartialArrivals = 1;
/// Stream-K: elements between a thread's consecutive quads of its partial
/// tile (a quad of each of the warpgroup's threads lies between: 16-byte
/// stores and loads coalesce).
static constexpr int64_t kPartialQuadStride = 4 * wgmma::kWarpgroupThreads;

/// Staging slots at most for the staged reads' TMA loads.
static constexpr int64_t kMaxStagingSlots = 4;
/// The chunks whose loads a producer thread has in flight at once (two
/// 16-byte granules each: 64 registers).
static constexpr int64_t kLoadGroup = 8;
/// By default, misaligned operands of a K longer than the producers cover
/// are read through staging slots when the matmul does at most this many
/// flops per byte of them, in at least this many blocks (docs/any-shape.md).
static constexpr int64_t kStagedReadMaxFlopsPerByte = 64;
static constexpr int64_t kStagedReadMinBlocks = 64;
/// ... and in fewer blocks when K has at most this many steps.
static constexpr int64_t kSmallGridMaxSteps = 16;
/// By default, the producer warpgroups read misaligned operands whose K
/// steps they cover when the blocks read at most this many bytes of such
/// rows in all (each operand's bytes times the blocks that read each of
/// its tiles); beyond, the copy wins (docs/any-shape.md, "Several
/// producers"). With a single K step, up to kRegisterReadOneStepMaxBytes.
static constexpr double kRegisterReadMaxBytes = 9e6;
static constexpr double kRegisterReadOneStepMaxBytes = 16e6;

/// Elements of one K step: a 128-byte row of a tile.
static int64_t stepK(const BlockMatmul &bm) {
  return wgmma::tileK(bm.inType.getIntOrFloatBitWidth() / 8);
}

/// The warps of a producer warpgroup.
static constexpr int64_t kProducerWarps =
    wgmma::kWarpgroupThreads / kThreadsPerWarp;
/// Bytes of one mbarrier.
static constexpr int64_t kMBarrierBytes = 8;

namespace {
/// Where a staged read puts an operand's tile of one K step in a staging
/// slot (emitStagedProducer). The tile's rows are taken in eight phases
/// (row % 8), each through its own tensor map; a phase's rows of one piece
/// (its whole row where TMA's box takes it, else 128 columns) form a block
/// of `phaseRows` rows of the piece's columns and 8 elements more (the up
/// to 7 before them that the row's 16-byte aligned start brings, rounded
/// to a granule), padded to 128 bytes (TMA's destination alignment).
/// Blocks lie piece after piece, phase after phase. (Rows of 64-column
/// pieces, 144 bytes for 128 of data, ran 0.95x at 63x13566x4846: TMA's
/// time follows the lines its rows touch; bench/results/any-shape, "Phase
/// maps".)
struct StagedLayout {
  /// The ring tile, as swizzledIndex sees it: rows of `cols` elements.
  int64_t rows, cols;
  int64_t pieceCols, pieces, phaseRows, blockBytes;
  /// Elements of a staged row of a piece.
  int64_t rowElems() const { return pieceCols + 8; }
  int64_t bytes() const { return pieces * 8 * blockBytes; }
  /// Bytes from the operand's part of a slot to block (piece, phase).
  int64_t blockOffset(int64_t piece, int64_t phase) const {
    return (piece * 8 + phase) * blockBytes;
  }
};
} // namespace

/// The staged layout of A's (`isA`) or B's tile (16-bit elements): A and a
/// K-major B have rows of one K step, an MN-major B rows of N.
static StagedLayout stagedLayout(const BlockMatmul &bm, bool isA) {
  int64_t k = wgmma::tileK(bm.inType.getIntOrFloatBitWidth() / 8);
  bool kMajor = isA || bm.bKMajor();
  StagedLayout s;
  s.rows = isA ? bm.m : kMajor ? bm.n : k;
  s.cols = kMajor ? k : bm.n;
  // TMA boxes are at most 256 elements wide.
  s.pieceCols = s.cols + 8 <= 256 ? s.cols : 128;
  s.pieces = llvm::divideCeil(s.cols, s.pieceCols);
  s.phaseRows = s.rows / 8;
  s.blockBytes = llvm::alignTo(s.phaseRows * s.rowElems() *
                                   (bm.inType.getIntOrFloatBitWidth() / 8),
                               128);
  return s;
}

static wgmma::Layout computeLayout(const BlockMatmul &bm, int64_t stages,
                                   int64_t producers = 1,
                                   int64_t stagingBytes = 0,
                                   int64_t splits = 1,
                                   bool persistent = false) {
  return wgmma::computeLayout(
      bm.m, bm.n, bm.outType.getIntOrFloatBitWidth() / 8, stages, producers,
      stagingBytes, splits,
      wgmma::operandParts(bm.inType.getIntOrFloatBitWidth() / 8, bm.allowTf32),
      persistent, bm.bKMajor(), bm.swapped);
}

/// Checks the block tile, `stages` and `splits`; returns why they do not
/// fit, or an empty string.
static std::string checkConfig(const BlockMatmul &bm, int64_t stages,
                               int64_t producers = 1, int64_t stagingBytes = 0,
                               int64_t splits = 1, bool persistent = false) {
  std::string msg;
  llvm::raw_string_ostream os(msg);
  wgmma::Layout l =
      computeLayout(bm, stages, producers, stagingBytes, splits, persistent);
  if (bm.m > kMaxBoxDim)
    os << "the block tile M = " << bm.m << " must be at most " << kMaxBoxDim
       << " (one TMA box; one consumer warpgroup per 64 rows)";
  else if (bm.n > kMaxBoxDim)
    os << "the block tile N = " << bm.n << " must be at most " << kMaxBoxDim
       << " (one wgmma instruction)";
  else if (stages < 2)
    os << "stages = " << stages << " must be at least 2";
  else if (accumulatorRegs(bm.n, l.parts) > kMaxAccumulatorRegs)
    os << "the block tile N = " << bm.n << " needs "
       << accumulatorRegs(bm.n, l.parts) << " accumulator registers per thread"
       << (l.parts > 1 ? " (3xTF32 keeps two sets)" : "") << "; at most "
       << kMaxAccumulatorRegs;
  else if (l.threads > 1024)
    os << "the block tile M = " << bm.m << " needs " << l.threads
       << " threads; at most 1024 fit in a block";
  else if (l.sharedBytes + l.barrierBytes > kMaxSharedMemory)
    os << "the " << bm.m << "x" << bm.n << " tile with " << stages << " stages"
       << (splits > 1 ? " and its f32 partial tile" : "")
       << (persistent ? " and its own staged output tile (persistent)" : "")
       << " needs "
       << l.sharedBytes + l.barrierBytes
       << " bytes of shared memory; an sm_90 block has at most "
       << kMaxSharedMemory;
  else if (accumulatorRegs(bm.n, l.parts) + kOtherRegs >
           registersPerThread(l.threads))
    os << "the " << bm.m << "x" << bm.n << " tile needs "
       << accumulatorRegs(bm.n, l.parts)
       << " accumulator registers per thread, but its " << l.threads
       << " threads get at most " << registersPerThread(l.threads)
       << " registers each; the kernel would spill";
  return msg;
}

namespace {

/// Emits the rewrite; all values are `index` unless stated.
class WgmmaEmitter : KernelBuilder {
public:
  /// `readA` / `readB`: the producer warpgroups read that operand
  /// themselves (rows TMA cannot read) instead of loading it with TMA.
  /// `producers`: producer warpgroups, taking K steps in turn.
  /// `stagingSlots`: when not 0, one producer warpgroup loads the read
  /// operands' tiles with TMA through their phase maps into that many
  /// staging slots ahead of the ring, and realigns them from there.
  /// `splits`: the blocks of a cluster (along z) that each take a range
  /// of K steps and reduce their partial tiles through distributed shared
  /// memory (operands loaded by TMA, or read through staging slots).
  /// `persistentTiles`: when not 0, the block walks tiles block, block +
  /// grid, ... of that many (the launch's grid before it became
  /// persistent, `grid`, linearized), its producer loading a tile's first
  /// stages while the consumers finish the one before (TMA-loaded 16-bit
  /// or TF32 operands, no split-K).
  /// `streamK`: the persistent blocks split the tiles of the last partial
  /// wave along K (stream-K): each takes an equal share of their K steps,
  /// leaves the partial tile of a share that ends inside a tile in a
  /// workspace, and the block that ends a tile adds the partials before
  /// its epilogue.
  /// `clusterDim`: when not null, the launch runs in clusters of two blocks
  /// along that dimension (0: x, 1: y) that multicast the operand tiles
  /// they share (TMA-loaded 16-bit or TF32 operands, no split-K).
  WgmmaEmitter(RewriterBase &rewriter, BlockMatmul bm, int64_t stages,
               int64_t producers, TiledOperand a, TiledOperand bOperand,
               bool readA, bool readB, int64_t stagingSlots, int64_t splits,
               int64_t persistentTiles = 0, bool streamK = false,
               std::optional<gpu::Dimension> clusterDim = std::nullopt)
      : KernelBuilder(rewriter, bm.loc()), bm(bm), stages(stages),
        a(std::move(a)), bOp(std::move(bOperand)), readA(readA), readB(readB),
        stagingSlots(stagingSlots), splits(splits),
        persistentTiles(persistentTiles), streamK(streamK),
        clusterDim(clusterDim),
        l(computeLayout(bm, stages, producers,
                        stagingBytes(bm, readA, readB, stagingSlots), splits,
                        persistentTiles > 0)) {
    assert((splits == 1 || stagingSlots > 0 || (!readA && !readB)) &&
           "split-K reads its operands with TMA (staged reads too)");
    assert((persistentTiles == 0 ||
            (!readA && !readB && splits == 1 && l.parts == 1)) &&
           "a persistent block reads its operands with TMA, unsplit");
    assert((!clusterDim || (!readA && !readB && splits == 1 && l.parts == 1)) &&
           "a multicasting block reads its operands with TMA, unsplit");
    assert((!streamK || (persistentTiles > 0 && !clusterDim)) &&
           "stream-K blocks are persistent, without clusters");
  }

  /// Stream-K: the blocks the launch has at most (one per K step of the
  /// tiles, up to kMaxStreamKBlocks).
  int64_t streamBlocks() const {
    return std::min<int64_t>(kMaxStreamKBlocks, persistentTiles * tileSteps());
  }

  /// Bytes of one staging slot: the staged layouts of the read operands'
  /// tiles of one K step.
  static int64_t slotBytes(const BlockMatmul &bm, bool readA, bool readB) {
    return (readA ? stagedLayout(bm, true).bytes() : 0) +
           (readB ? stagedLayout(bm, false).bytes() : 0);
  }
  /// Shared memory `slots` staging slots take, their barriers included.
  static int64_t stagingBytes(const BlockMatmul &bm, bool readA, bool readB,
                              int64_t slots) {
    return slots *
           (slotBytes(bm, readA, readB) + kProducerWarps * kMBarrierBytes);
  }

  /// Emits the host-side tensor maps before the launch and the kernel body
  /// at the current insertion point; returns the consumers' K loop.
  scf::ForOp emit();

  /// Persistent: the producer's and the consumers' tile loops, and in each
  /// the tile's linear index in the former grid (the induction variable,
  /// or computed at the body's start for stream-K).
  SmallVector<scf::ForOp, 2> tileLoops;
  SmallVector<Value, 2> tileIndices;

private:
  /// A K step's place in the ring: its stage, and the parity of the
  /// stage's full barrier phase it waits for.
  struct RingPosition {
    Value stage;
    Value phase;
  };
  /// Elements of one K step.
  int64_t tileK() const { return stepK(bm); }
  /// K steps of one tile.
  int64_t tileSteps() const { return llvm::divideCeil(bm.k, tileK()); }
  /// 3xTF32: the producer warpgroup splits the f32 tiles into high and low
  /// TF32 parts, and the consumers wait for that ("ready").
  bool splitsF32() const { return l.parts == 2; }
  /// Whether the block shares operand loads with a cluster partner.
  bool multicasts() const { return clusterDim.has_value(); }
  /// The registers a rebalancing producer warpgroup keeps.
  int64_t producerRegs() const {
    return multicasts() ? wgmma::kMulticastProducerRegs
                        : wgmma::kTmaProducerRegs;
  }
  /// Releases ring stage `stage` (after the consumers' wgmma read it): an
  /// arrival on the empty barrier, and with a partner, one per warp on the
  /// partner's, whose producer may multicast into this block's ring.
  void release(Value stage);
  /// Sets sharesA and sharesB for the block's (current) tile: whether the
  /// partner's tile has the same rows of A, the same columns of B.
  void findSharedOperands(Value m0, Value n0);
  /// Emits `load(half)` for an operand: with half set, under `shared`, the
  /// block's half of the tile multicast to both blocks; otherwise (or
  /// without a partner) the whole tile.
  void loadOperand(Value shared, function_ref<void(bool)> load);
  /// Whether the producer warpgroup gives its registers to the consumers
  /// (setmaxnreg): when one of its threads issues every load (TMA, no
  /// splitting), there are consumers enough to share them, and the block
  /// runs one per SM anyway (setmaxnreg needs the kernel compiled for one
  /// block per SM, which would cost a smaller block its occupancy).
  bool rebalancesRegisters() const {
    return !readA && !readB && !splitsF32() && l.producers == 1 &&
           l.consumers >= 2 && !wgmma::twoBlocksFit(l, bm.n, l.parts);
  }
  /// Orders this thread's generic-proxy accesses to shared memory before
  /// later async-proxy ones (TMA, wgmma): fence.proxy.async.shared::cta.
  void fenceAsyncShared() {
    NVVM::FenceProxyOp::create(
        b, loc, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(b.getContext(),
                                   NVVM::SharedSpace::shared_cta));
  }
  /// A barrier of all threads of the cluster: arrive (release), then wait
  /// (acquire). Not `.aligned`: the producer warp's threads may reach it
  /// apart.
  void clusterSync() {
    NVVM::ClusterArriveOp::create(b, loc, UnitAttr());
    NVVM::ClusterWaitOp::create(b, loc, UnitAttr());
  }
  /// Bit 0 of `x` as an i1 (an mbarrier phase parity).
  Value parity(Value x) {
    return arith::IndexCastOp::create(b, loc, b.getI1Type(), rem(x, 2));
  }
  /// The other phase parity.
  Value flip(Value phase) {
    return arith::XOrIOp::create(
        b, loc, phase, arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1));
  }
  /// A view of the ring `bytes` past its 1024-byte aligned start.
  Value view(Value byteOffset, MemRefType type) {
    return memref::ViewOp::create(b, loc, type, raw, add(alignPad, byteOffset),
                                  ValueRange{});
  }
  nvgpu::TensorMapDescriptorType
  tensorMapType(ArrayRef<int64_t> box,
                nvgpu::TensorMapL2PromoKind promotion =
                    nvgpu::TensorMapL2PromoKind::L2PROMO_256B,
                nvgpu::TensorMapSwizzleKind swizzle =
                    nvgpu::TensorMapSwizzleKind::SWIZZLE_128B);
  /// A's TMA box: its whole K-major tile ([m, k]), or one 64-column box of
  /// its MN-major tile ([k, m]; one per consumer warpgroup's 64 rows).
  SmallVector<int64_t> boxA() const {
    return bm.aKMajor() ? SmallVector<int64_t>{bm.m, tileK()}
                        : SmallVector<int64_t>{tileK(), kBoxN};
  }
  /// B's TMA box: its whole K-major tile ([n, k]), or one 64-column box of
  /// its MN-major tile ([k, n]; BN / 64 of them side by side).
  SmallVector<int64_t> boxB() const {
    return bm.bKMajor() ? SmallVector<int64_t>{bm.n, tileK()}
                        : SmallVector<int64_t>{tileK(), kBoxN};
  }
  /// A tensor map of the whole `source` (batched: its batch dimensions
  /// too, with a box of one matrix along them) whose box is `box` in its
  /// last two dimensions.
  Value makeTensorMap(Value source, ArrayRef<int64_t> box);
  /// `shape` behind `batchRank` unit dimensions: a TMA load's destination
  /// for a tensor map of that rank.
  static SmallVector<int64_t> withBatch(int64_t batchRank,
                                        ArrayRef<int64_t> shape) {
    SmallVector<int64_t> full(batchRank, 1);
    llvm::append_range(full, shape);
    return full;
  }
  /// TMA coordinates, innermost first: `col` and `row` of the tile, then
  /// the tile's batch indices (`batch`, outermost first) from the last.
  static SmallVector<Value> coordinates(Value col, Value row,
                                        ArrayRef<Value> batch) {
    SmallVector<Value> c{col, row};
    llvm::append_range(c, llvm::reverse(batch));
    return c;
  }
  /// Emits the producer; returns the ring position after its last step
  /// (null for the staged and splitting producers, never persistent).
  RingPosition emitProducer(Value m0, Value n0, Value tidX, Value producer);
  /// A chunk loaded as its two granules, to be realigned and stored at
  /// `index` of `ring` (a stage of one operand).
  struct PendingChunk {
    ChunkGranules granules;
    Value ring, index;
  };
  /// Loads this thread's chunks of a rows x cols tile of `source` (into
  /// the ring at `stageBytes`) as granules, appending them to `pending`;
  /// stores the chunks of every full group (flushChunks).
  void fillStage(Value source, Value flat, Value rowOrigin, Value colOrigin,
                 int64_t rows, int64_t cols, Value stageBytes, Value tidX,
                 SmallVectorImpl<PendingChunk> &pending);
  /// Realigns and stores the pending chunks, after all their loads.
  void flushChunks(SmallVectorImpl<PendingChunk> &pending);
  /// The ring index of chunk (row, col) of a rows x 64-column-box tile, as
  /// TMA's 128-byte swizzle puts it.
  Value swizzledIndex(Value row, Value col, int64_t rows);
  /// Stores each chunk, realigned out of its granules, at its index of its
  /// ring.
  void storeRealigned(ArrayRef<PendingChunk> chunks);
  /// The position `steps` (1 to `stages`) ring steps after `at`: the
  /// stage advanced modulo `stages`, the phase flipped where it wraps.
  /// Loops carry their position: computed from the step index, it costs a
  /// division by `stages` per wait, which cost rings of 5-7 stages 2-15%
  /// (bench/results/hopper-v2, "Ring position").
  RingPosition advance(RingPosition at, int64_t steps);
  /// A loop over the tile's ring steps lower, lower + step, ... below
  /// `upper` (step at most `stages`) that carries their ring position,
  /// with the insertion point in its body; returns the loop and the
  /// position of its step.
  std::pair<scf::ForOp, RingPosition> emitRingLoop(Value lower, Value upper,
                                                   int64_t step);
  /// Persistent: emits a loop over the block's tiles (tile block, block +
  /// grid, ...) with `body` inside it, which gets the ring position of the
  /// tile's first K step (tileStart) and returns the position after its
  /// last: each tile's steps follow the previous tile's in the ring.
  /// Records the loop in tileLoops.
  void emitTileLoop(function_ref<RingPosition()> body);
  /// The position of the tile's ring step `kt`: counted from the ring's
  /// first stage, or for a persistent block from tileStart.
  RingPosition positionOf(Value kt) {
    if (std::optional<int64_t> c = getConstantIntValue(kt))
      return positionOf(*c);
    return stepPosition(tileStart ? add(kt, tileStart->stage) : kt);
  }
  RingPosition positionOf(int64_t kt) {
    if (!tileStart)
      return {cst(kt % stages), parity(cst(kt / stages))};
    if (kt == 0)
      return *tileStart;
    return stepPosition(addC(tileStart->stage, kt));
  }
  /// The position of ring step `step` counted from stage 0 of the round of
  /// tileStart (or of the ring's first round).
  RingPosition stepPosition(Value step) {
    Value phase = parity(div(step, stages));
    Value stage = rem(step, stages);
    if (tileStart)
      phase = arith::XOrIOp::create(b, loc, phase, tileStart->phase);
    return {stage, phase};
  }
  /// Where a producer's K step `kt` goes in the ring.
  struct StepBuffers {
    Value stage, k0, aBytes, bBytes;
  };
  /// Starts the block's K step `kt` (K step kBegin + kt of the matmul), at
  /// `at` in the ring, in the producer: waits until the consumers have
  /// released its ring stage, when it is reused, and issues the TMA loads
  /// of the operands TMA reads.
  StepBuffers beginProducerStep(Value kt, RingPosition at, Value m0, Value n0,
                                Value tidX);
  /// Waits until the consumers released the ring stage of the tile's ring
  /// step `kt`, at `at` (when it held an earlier step: a round of a
  /// persistent block's tile, or of an earlier tile, precedes it).
  void waitForEmpty(Value kt, RingPosition at);
  /// The staged read (`stagingSlots` > 0): one producer warpgroup, each
  /// warp w taking the row phases w and w + 4 of every read operand's
  /// tiles. Its first thread loads them with TMA through the phase maps
  /// into a staging slot, `stagingSlots` K steps ahead, completing on the
  /// warp's `landed` barrier of the slot; its threads then realign each
  /// chunk by the phase's shift (a constant) into the ring.
  void emitStagedProducer(Value m0, Value n0, Value tidX);
  /// A read operand's phase maps: for phase p (tile rows r % 8 == p), a
  /// tensor map of the operand's rows p, p + 8, ..., each from the 16-byte
  /// boundary at or before its start (`shift[p]` elements before it), of a
  /// box of a StagedLayout block; null where the operand has no such row.
  /// Where the operand has fewer rows than a tile, a phase's box has only
  /// the phase's rows (`boxRows`; TMA's zero fill of rows past a matrix is
  /// slow: loadRows), and where an MN-major tile is wider than the
  /// operand, only its first `pieces` pieces are loaded. What is not
  /// loaded lies past M or N: it reaches only outputs the kernel does not
  /// store. (Rows of boxes narrower than 72 columns would land closer
  /// together: the boxes keep 72 columns, TMA's zeros past K included.)
  struct PhaseMaps {
    std::array<Value, 8> maps;
    std::array<int64_t, 8> shift{}, boxRows{};
    int64_t pieces = 0;
  };
  PhaseMaps makePhaseMaps(Value source, bool isA);
  /// The TMA loads of K step `k0`'s operands that TMA reads into ring
  /// `stage` (at `aBytes`, `bBytes`), with the transaction count: by one
  /// thread (thread 0 when the others fill operands themselves).
  void emitTmaLoads(Value stage, Value k0, Value m0, Value n0, Value aBytes,
                    Value bBytes, Value tidX);
  /// 3xTF32: all producer threads split each stage's f32 tiles, after
  /// thread 0's TMA loads, `stages - 1` K steps ahead.
  void emitSplittingProducer(Value m0, Value n0, Value tidX);
  /// Writes the low TF32 part of each f32 tile part (start, length in
  /// bytes) into the `length` bytes after it; the value as loaded is its
  /// high part (wgmma reads it as TF32, dropping the low bits).
  void splitTiles(ArrayRef<std::pair<Value, int64_t>> parts, Value tidX);
  scf::ForOp emitConsumers(Value consumer);
  /// Waits for the K step at `at` and issues its wgmma group onto `acc`
  /// (or, with a null `acc`, starts the accumulator of type `accType`
  /// with it). Returns the accumulator.
  Value emitStep(RingPosition at, Value acc, Value consumer, Type accType);
  /// One K step's wgmma group on 16-bit tiles: an m64nNk16 instruction per
  /// 16-deep slice, adding to `acc`, or with a null `acc` starting the
  /// accumulator (of type `accType`: the first instruction has scale-d =
  /// 0). Returns the accumulator.
  Value emitMma(Type accType, Value aRows, Value bBytes, Value acc);
  /// One K step's wgmma on f32 tiles, as TF32: an m64nNk8 instruction per
  /// 8-column slice and product (3xTF32: lo x hi, hi x lo, hi x hi), one
  /// wgmma group for the step. 3xTF32 waits for the group, releases the
  /// step's stage and adds the step's partial to the running total in FP32.
  /// Returns the accumulator (of type `accType`; a null `acc` starts it:
  /// the step's first instruction has scale-d = 0).
  Value emitTf32Mma(Value acc, Type accType, Value consumer, Value stage,
                    Value aBytes,
                    Value bBytes);
  /// wgmma's fragment of a 64 x N f32 accumulator as nvgpu's conversion
  /// types it: a struct of N / 2 f32 registers (held in a struct of one).
  LLVM::LLVMStructType fragmentType();
  /// The fragment of accumulator `acc`, and an accumulator of type
  /// `accType` holding `fragment`: casts that meet nvgpu's conversion's
  /// own and fold away (reconcile-unrealized-casts).
  Value accumulatorFragment(Value acc);
  Value withFragment(Value fragment, Type accType);
  /// The accumulator's f32 registers, in the order of wgmma's fragment.
  SmallVector<Value> accumulatorElements(Value acc);
  /// Applies the epilogue to the accumulator of warpgroup `consumer`
  /// (thread `tidX` of it) and stores the tile.
  void emitEpilogue(scf::ForOp kLoop, Value consumer, Value tidX);
  /// A barrier of consumer warpgroup `consumer`'s 128 threads alone (named
  /// barrier 2 + consumer): emits its id and count, and returns what emits
  /// the barrier.
  std::function<void()> warpgroupBarrier(Value consumer);
  /// Stream-K: the slot of `block`'s consumer warpgroup `consumer` among
  /// the flags and the partial tiles' warpgroup parts.
  Value streamSlot(Value block, Value consumer) {
    return add(mul(block, l.consumers), consumer);
  }
  /// Stream-K: the address of the flag of `block`'s consumer warpgroup
  /// `consumer` (a generic pointer).
  Value flagPointer(Value block, Value consumer);
  /// Stream-K: the index in `partials` of this thread's first 4
  /// accumulator elements in `block`'s partial tile; those from element
  /// 4 * q lie kPartialQuadStride further.
  Value partialBase(Value block, Value consumer, Value tidX);
  /// Stream-K: stores this thread's accumulator `elements` as the block's
  /// partial tile and raises its warpgroup's flag.
  void storePartial(ArrayRef<Value> elements, Value consumer, Value tidX);
  /// Stream-K: adds to `elements` the partial tiles of the blocks whose
  /// shares end inside the current tile before this block's, once each is
  /// flagged; returns the sums.
  SmallVector<Value> addPartials(ArrayRef<Value> elements, Value consumer,
                                 Value tidX);
  /// Stream-K: the body of `loop` over those blocks: waits for block j's
  /// flag, then adds its partial tile to the carried elements.
  void addPartialsOf(scf::ForOp loop, Value consumer, Value tidX);
  /// A pair of adjacent f32 columns of the tile at (row, col), with the
  /// epilogue applied and converted to the output type.
  struct Pair {
    Value value, row, col;
  };
  /// Stores a converted pair at (row, col) of a staging buffer (rows of
  /// an even number of elements, at a 16-byte aligned offset of the
  /// ring's 1024-byte aligned start; col even), stating the pair's
  /// alignment: tessel-set-vector-alignment cannot see through the ring's
  /// run-time alignment padding, and LLVM split the stores it could not
  /// prove aligned into one per element (half of a persistent 16-bit
  /// epilogue's pair stores, 2026-11-26).
  void storePair(Value pair, Value buffer, Value row, Value col);
  /// The epilogue applied to the pair at (row, col) of the tile the block
  /// computes: two columns of one output row, or swapped two rows of one
  /// output column.
  Value epilogueAt(Value pair, Value row, Value col);
  /// Stores the converted pair at (row, col) of the computed tile into a
  /// staging buffer that holds the output's orientation: as a pair, or
  /// swapped at (col, row) and (col + 1, row).
  void storeStaged(Value pair, Value buffer, Value row, Value col);
  /// Persistent: warpgroup `consumer` stores its rows' pairs through its
  /// own 64-column staging buffer after the ring.
  void emitSubtiledStores(ArrayRef<Pair> pairs, Value consumer, Value tidX);
  /// Split-K: stages this block's partial accumulator, waits for the
  /// cluster's, and returns this block's share of the tile (its columns
  /// from `colOrigin`, `cols` of them) summed over the cluster's blocks, in
  /// pairs with the epilogue applied.
  SmallVector<Pair> reduceSplits(ArrayRef<Value> elements, Value consumer,
                                 Value tidX, Value laneRow, Value laneCol,
                                 Value &colOrigin, int64_t &cols);

  BlockMatmul bm;
  int64_t stages;
  TiledOperand a, bOp;
  bool readA, readB;
  int64_t stagingSlots;
  int64_t splits;
  int64_t persistentTiles;
  bool streamK;
  std::optional<gpu::Dimension> clusterDim;
  wgmma::Layout l;
  /// Persistent: the ring position of the current tile's first K step
  /// (the tile loop's iteration arguments); unset otherwise.
  std::optional<RingPosition> tileStart;
  /// Stream-K: the workspace's partial tiles (f32, kMaxStreamKBlocks of
  /// them, in the consumers' register order) and flags (i32, one per
  /// block and consumer warpgroup, zeroed by the runtime before the
  /// launch).
  Value partials, flags;
  /// Stream-K, inside a tile loop: the block, the blocks launched, the K
  /// steps the blocks share (their tiles' first), and the current share's
  /// tile and end K step (kBegin and kSteps give its start and length).
  struct StreamShare {
    Value block, blocks, sharedSteps, tile, kEnd;
  };
  std::optional<StreamShare> share;
  Value tid, raw, alignPad, full, empty;
  /// Staged reads: per staging slot and producer warp, the barrier its TMA
  /// loads complete on (slot * kProducerWarps + warp).
  Value landed;
  PhaseMaps phasesA, phasesB;
  /// 3xTF32: a stage's tiles are split (one arrival per producer thread).
  Value ready;
  /// The ring's 1024-byte aligned start (a shared-memory address).
  Value ringAddress;
  /// The block's K steps: kSteps of them from kBegin (split-K: its range;
  /// otherwise all), and its rank in its cluster (split-K only).
  Value kBegin, kSteps, split;
  /// The tensor maps TMA loads through, and those whose types the wgmma
  /// descriptors read (the same maps, or stand-ins of 2-D box types for a
  /// batched or read operand).
  Value descA, descB, wgmmaDescA, wgmmaDescB;
  /// With a partner: tensor maps of half boxes (A: BM / 2 rows; a K-major
  /// B: BN / 2 rows; an MN-major B: 32 of a box's 64 rows), the block's
  /// rank in its cluster (index) and its partner's (i32), and whether the
  /// current tile's A and B tiles are the partner's too (i1).
  Value halfDescA, halfDescB, rank, partnerRank, sharesA, sharesB;
  /// A K-major operand whose rows its tiles do not divide: the rows of its
  /// last tile (0: every tile is whole), and a tensor map of a box of that
  /// many rows, which that tile loads instead of the whole box (TMA's
  /// zero-filled rows past the operand are slow: loadRows).
  int64_t edgeRowsA = 0, edgeRowsB = 0;
  Value edgeDescA, edgeDescB;
  /// The block's batch indices in A and B (empty without batch).
  SmallVector<Value> batchA, batchB;
};

} // namespace

nvgpu::TensorMapDescriptorType
WgmmaEmitter::tensorMapType(ArrayRef<int64_t> box,
                            nvgpu::TensorMapL2PromoKind promotion,
                            nvgpu::TensorMapSwizzleKind swizzle) {
  return nvgpu::TensorMapDescriptorType::get(
      b.getContext(), sharedType(box, bm.inType), swizzle, promotion,
      nvgpu::TensorMapOOBKind::OOB_ZERO,
      nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
}

/// The L2 promotion of TMA's reads of `type`'s rows: 256 bytes, but 128
/// where the rows start on 16- but not 32-byte boundaries. There each
/// 128-byte box row spans two 128-byte lines, and promoting its misses to
/// 256 bytes made the loads of a matmul bound by L2's bandwidth 5-13%
/// slower (2026-11-26, bench/results/any-shape, "L2 promotion": on an
/// H100 1000^3 f16 13.70 -> 12.38 us, TF32 1004^3 1.13x; on an H200 64
/// bytes or none were within noise of 128, and the aligned twin 1008^3
/// did not move with any; nor did ten aligned kernels on an H100).
/// The same test as the copy decision's (hasAlignedRows), so that every
/// operand TMA reads on such rows gets it.
static nvgpu::TensorMapL2PromoKind l2Promotion(MemRefType type) {
  return hasAlignedRows(type, 32) ? nvgpu::TensorMapL2PromoKind::L2PROMO_256B
                                  : nvgpu::TensorMapL2PromoKind::L2PROMO_128B;
}

Value WgmmaEmitter::makeTensorMap(Value source, ArrayRef<int64_t> matrixBox) {
  auto type = cast<MemRefType>(source.getType());
  SmallVector<int64_t> box = withBatch(type.getRank() - 2, matrixBox);
  Value unranked = memref::CastOp::create(
      b, loc,
      UnrankedMemRefType::get(type.getElementType(), type.getMemorySpace()),
      source);
  SmallVector<Value> boxSizes =
      llvm::map_to_vector(box, [&](int64_t size) { return cst(size); });
  return nvgpu::TmaCreateDescriptorOp::create(
      b, loc, tensorMapType(box, l2Promotion(type)), unranked, boxSizes);
}

void WgmmaEmitter::fillStage(Value source, Value flat, Value rowOrigin,
                             Value colOrigin, int64_t rows, int64_t cols,
                             Value stageBytes, Value tidX,
                             SmallVectorImpl<PendingChunk> &pending) {
  // The 128 producer threads walk the rows x cols tile in 16-byte chunks
  // (consecutive threads, consecutive chunks of a row), zeros past the
  // matrix. Each chunk's row may start anywhere: the thread loads the two
  // aligned granules around it and shifts it out of them. It stores the
  // chunk where TMA would: box j of 64 columns holds `rows` rows of 128
  // bytes, and chunk c of row r sits at chunk c ^ (r % 8) of its row (the
  // 128-byte swizzle of a 1024-byte aligned box).
  Value stage = view(stageBytes, sharedType({rows * cols}, bm.inType));
  // Created one after the other: the order of a call's arguments'
  // evaluation (and so of the ops) would be the compiler's choice.
  Value validRows = sub(dim(source, 0), rowOrigin);
  Value validCols = sub(dim(source, 1), colOrigin);
  // Every chunk is stored (zeros past the matrix), so the threads must fill
  // every round: forEachChunk gives a part-filled round's idle threads row
  // 0 and no valid element, whose zeros would land on row 0 (a 64 x 24
  // [k, n] tile, 192 chunks for 128 threads, did so on an H200). Blocks
  // whose B the producers read compute whole 32-column groups
  // (kWgmmaReadNGranule), A whole 64-row warpgroups.
  assert((rows * cols / kChunk) % kWarpgroupThreads == 0 &&
         "a producer fill in whole rounds of its threads");
  forEachChunk(
      tidX, rows, cols, kChunk, kWarpgroupThreads, validRows, validCols,
      [&](Value row, Value col, Value valid) {
        ChunkGranules granules = loadChunkGranules(
            source, flat, add(rowOrigin, row), add(colOrigin, col), valid);
        pending.push_back({granules, stage, swizzledIndex(row, col, rows)});
        if (pending.size() == kLoadGroup)
          flushChunks(pending);
      });
}

void WgmmaEmitter::flushChunks(SmallVectorImpl<PendingChunk> &pending) {
  if (pending.empty())
    return;
  // A group's loads are all issued before its first store, so that they
  // wait for memory about once. Left alone, ptxas sinks each chunk's loads
  // to just before its store, after the previous chunk's store: on an H100
  // (127x129x131 f16, SASS from ncu) two chunks' loads were in flight at a
  // time. No load moves below the warp barrier (in the SASS, all 16 LDG
  // precede the WARPSYNC); ptxas still starts realigning the first chunks
  // between the loads. Kernel times (ncu): 14 shapes 1.02x in geometric
  // mean, 0.83x to 1.13x (docs/any-shape.md).
  NVVM::SyncWarpOp::create(
      b, loc, arith::ConstantIntOp::create(b, loc, b.getI32Type(), -1));
  storeRealigned(pending);
  pending.clear();
}

void WgmmaEmitter::emitTmaLoads(Value stage, Value k0, Value m0, Value n0,
                                Value aBytes, Value bBytes, Value tidX) {
  int64_t inBytes = bm.inType.getIntOrFloatBitWidth() / 8;
  // TMA fills a stage's first copy of each tile (its only one but with
  // 3xTF32).
  int64_t tmaBytes = (readA ? 0 : l.aPartBytes) + (readB ? 0 : l.bPartBytes);
  if (tmaBytes == 0)
    return;
  // `cond` where the block loads the operand's tile alone: with a partner,
  // and not `shared` with it (shared tiles come in half boxes, kept whole).
  auto alone = [&](Value cond, Value shared) -> Value {
    if (!multicasts())
      return cond;
    Value yes = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
    Value notShared = arith::XOrIOp::create(b, loc, shared, yes);
    return arith::AndIOp::create(b, loc, cond, notShared);
  };
  // Whether the tile of a K-major operand from `origin` is its last, partial
  // one (its rows past the operand number `rows` - `edgeRows`), loaded
  // alone: then only its `edgeRows` rows are loaded. Null where no tile is
  // partial.
  auto edgeTile = [&](const TiledOperand &t, int64_t edgeRows, Value origin,
                      Value shared) -> Value {
    if (!edgeRows)
      return Value();
    int64_t rank = cast<MemRefType>(t.source.getType()).getRank();
    Value rowsLeft = sub(dim(t.source, rank - 2), origin);
    return alone(eq(rowsLeft, edgeRows), shared);
  };
  Value edgeA = readA ? Value() : edgeTile(a, edgeRowsA, m0, sharesA);
  Value edgeB = readB ? Value() : edgeTile(bOp, edgeRowsB, n0, sharesB);
  // The 64-column boxes of an MN-major operand's tile (`tileCols` columns
  // of M or N from `origin`) that may lie wholly past the operand: those of
  // the last tile from its last column on (box j from j * 64 >= the
  // columns left). Each is skipped where it does lie past them and the
  // tile is loaded alone (TMA would fill it with zeros, slowly: loadRows).
  // Box j -> whether it is skipped (null: never).
  auto boxesPast = [&](const TiledOperand &t, bool kMajor, int64_t tileCols,
                       Value origin, Value shared) {
    SmallVector<Value> past(llvm::divideCeil(tileCols, kBoxN));
    auto type = cast<MemRefType>(t.source.getType());
    int64_t cols = type.getDimSize(type.getRank() - 1);
    if (kMajor || ShapedType::isDynamic(cols) || cols % tileCols == 0)
      return past;
    for (int64_t j = llvm::divideCeil(cols % tileCols, kBoxN),
                 boxes = llvm::divideCeil(tileCols, kBoxN);
         j < boxes; ++j) {
      // (Created one after the other: the order in which a call's
      // arguments are evaluated is the C++ compiler's choice.)
      Value boxOrigin = addC(origin, j * kBoxN);
      Value end = cst(cols);
      Value isPast = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                           boxOrigin, end);
      past[j] = alone(isPast, shared);
    }
    return past;
  };
  SmallVector<Value> pastA, pastB;
  if (!readA)
    pastA = boxesPast(a, bm.aKMajor(), bm.m, m0, sharesA);
  if (!readB)
    pastB = boxesPast(bOp, bm.bKMajor(), bm.n, n0, sharesB);
  // One thread issues the TMA loads and the transaction count (the only
  // thread here when no operand is filled by the threads).
  OpBuilder::InsertionGuard inner(b);
  if (readA || readB) {
    auto ifLeader = scf::IfOp::create(b, loc, eq(tidX, 0),
                                      /*withElse=*/false);
    b.setInsertionPointToStart(ifLeader.thenBlock());
  }
  // The bytes TMA writes: whole boxes (their zero-filled rows and columns
  // count), less the rows an edge tile does not load and the boxes it
  // skips: `bytes` less where `cond` holds.
  Value txBytes = cst(tmaBytes);
  auto lessWhere = [&](Value cond, int64_t bytes) {
    if (!cond)
      return;
    Value less = cst(bytes);
    Value none = cst(0);
    txBytes = sub(txBytes, select(cond, less, none));
  };
  lessWhere(edgeA, (bm.m - edgeRowsA) * wgmma::kRowBytes);
  lessWhere(edgeB, (bm.n - edgeRowsB) * wgmma::kRowBytes);
  for (Value skip : llvm::concat<Value>(pastA, pastB))
    lessWhere(skip, tileK() * kBoxN * inBytes);
  nvgpu::MBarrierArriveExpectTxOp::create(b, loc, full, txBytes, stage,
                                          Value());
  int64_t batchRank = batchA.size();
  auto tile = [&](int64_t rows, int64_t cols) {
    return sharedType(withBatch(batchRank, {rows, cols}), bm.inType);
  };
  // A load of `rows` x `cols` at (row, col) of the operand into `bytes`
  // of the ring; with `half`, the block's half (its rank's `rows` rows
  // after `rows` * rank) multicast to both blocks of the cluster.
  auto load = [&](Value desc, Value bytes, int64_t rows, int64_t cols,
                  Value col, Value row, ArrayRef<Value> batch, bool half) {
    Value mask;
    if (half) {
      bytes = add(bytes, mul(rank, rows * cols * inBytes));
      row = add(row, mul(rank, rows));
      mask = arith::ConstantIntOp::create(b, loc, b.getI16Type(), 0b11);
    }
    nvgpu::TmaAsyncLoadOp::create(b, loc, view(bytes, tile(rows, cols)), full,
                                  desc, coordinates(col, row, batch), stage,
                                  mask, Value());
  };
  // An MN-major operand tile ([k, m] or [k, n], `extent` columns from
  // `mn0`): whole 64-column boxes side by side, each tileK rows (the
  // block's half of them with `half`).
  // Without `half`, the boxes in `past` only where they are not skipped.
  auto loadBoxes = [&](Value desc, Value bytes, int64_t extent, Value mn0,
                       ArrayRef<Value> batch, bool half, ArrayRef<Value> past) {
    for (int64_t j = 0, boxes = llvm::divideCeil(extent, kBoxN); j < boxes;
         ++j) {
      OpBuilder::InsertionGuard guard(b);
      if (Value skip = half || past.empty() ? Value() : past[j]) {
        auto ifSkip = scf::IfOp::create(b, loc, skip, /*withElse=*/true);
        b.setInsertionPointToStart(ifSkip.elseBlock());
      }
      load(desc, addC(bytes, j * tileK() * kBoxN * inBytes),
           half ? tileK() / 2 : tileK(), kBoxN, addC(mn0, j * kBoxN), k0,
           batch, half);
    }
  };
  // A K-major operand's box of `rows` rows from `row`, or on an edge tile
  // its `edgeRows` rows only. TMA fills the rows of a box past the operand
  // with zeros, but slowly: a swapped 160x64 kernel ran 131.9 us at
  // 264x3584x18944 bf16 (56 such rows in every load of its last row of
  // blocks) and 85.8 us at 320 rows with the same grid and PTX (H100,
  // bench/results/hopper-v2, "Edge tiles"). The rows not loaded keep what
  // the stage held: they only reach the tile's rows (or columns) past the
  // operand, which the epilogue does not store.
  auto loadRows = [&](Value desc, Value edgeDesc, Value edge, Value bytes,
                      int64_t rows, int64_t edgeRows, Value row,
                      ArrayRef<Value> batch) {
    if (!edge)
      return load(desc, bytes, rows, tileK(), k0, row, batch, false);
    auto ifEdge = scf::IfOp::create(b, loc, edge, /*withElse=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifEdge.thenBlock());
    load(edgeDesc, bytes, edgeRows, tileK(), k0, row, batch, false);
    b.setInsertionPointToStart(ifEdge.elseBlock());
    load(desc, bytes, rows, tileK(), k0, row, batch, false);
  };
  if (!readA && bm.aKMajor())
    loadOperand(sharesA, [&](bool half) {
      if (half)
        return load(halfDescA, aBytes, bm.m / 2, tileK(), k0, m0, batchA, true);
      loadRows(descA, edgeDescA, edgeA, aBytes, bm.m, edgeRowsA, m0, batchA);
    });
  // An MN-major A: box j holds consumer j's 64 rows of the tile (8 KB,
  // where a K-major A's slice j starts); multicast, each block loads half
  // of each box's K rows, as for an MN-major B.
  if (!readA && !bm.aKMajor())
    loadOperand(sharesA, [&](bool half) {
      loadBoxes(half ? halfDescA : descA, aBytes, bm.m, m0, batchA, half,
                pastA);
    });
  if (!readB && bm.bKMajor())
    loadOperand(sharesB, [&](bool half) {
      if (half)
        return load(halfDescB, bBytes, bm.n / 2, tileK(), k0, n0, batchB, true);
      loadRows(descB, edgeDescB, edgeB, bBytes, bm.n, edgeRowsB, n0, batchB);
    });
  if (!readB && !bm.bKMajor())
    loadOperand(sharesB, [&](bool half) {
      loadBoxes(half ? halfDescB : descB, bBytes, bm.n, n0, batchB, half,
                pastB);
    });
}

void WgmmaEmitter::loadOperand(Value shared, function_ref<void(bool)> load) {
  if (!multicasts())
    return load(/*half=*/false);
  auto ifShared = scf::IfOp::create(b, loc, shared, /*withElse=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifShared.thenBlock());
  load(/*half=*/true);
  b.setInsertionPointToStart(ifShared.elseBlock());
  load(/*half=*/false);
}

void WgmmaEmitter::findSharedOperands(Value m0, Value n0) {
  // The partner's values stand in as marked casts of the block's own; the
  // rewrite resolves them once the block's tile is final (persistent: its
  // tile loop's), recomputing each from the partner's block or tile.
  auto same = [&](Value v) -> Value {
    auto partner = UnrealizedConversionCastOp::create(b, loc, v.getType(), v);
    partner->setAttr(kPartnerAttr, b.getUnitAttr());
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                 partner.getResult(0), v)
        .getResult();
  };
  auto all = [&](Value origin, ArrayRef<Value> batch) {
    Value shares = same(origin);
    for (Value index : batch)
      shares = arith::AndIOp::create(b, loc, shares, same(index));
    return shares;
  };
  sharesA = all(m0, batchA);
  sharesB = all(n0, batchB);
}

void WgmmaEmitter::release(Value stage) {
  nvgpu::MBarrierArriveOp::create(b, loc, empty, stage);
  if (!multicasts())
    return;
  MLIRContext *ctx = b.getContext();
  auto sharedPtr = LLVM::LLVMPointerType::get(
      ctx, static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared));
  auto clusterPtr = LLVM::LLVMPointerType::get(
      ctx, static_cast<unsigned>(NVVM::NVVMMemorySpace::SharedCluster));
  Value address =
      nvgpu::MBarrierGetOp::create(b, loc, b.getI32Type(), empty, stage);
  Value local = LLVM::IntToPtrOp::create(b, loc, sharedPtr, address);
  Value remote =
      NVVM::MapaOp::create(b, loc, clusterPtr, local, partnerRank);
  // Lane 0 of each consumer warp (the empty barriers count them): the
  // warp's wgmma reads of the stage completed with its warpgroup's wait.
  // The arrival orders no memory access of the consumers for the partner
  // (they only read the stage, and the reads are complete), so it keeps
  // the default CTA scope, as CUTLASS's remote arrivals do: with cluster
  // scope, a release fence before each arrival made every kernel 1.3-2.4x
  // slower (H100, bench/results/hopper-v2, "Clusters").
  auto ifLeader = scf::IfOp::create(b, loc, eq(rem(tid, kThreadsPerWarp), 0),
                                    /*withElse=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifLeader.thenBlock());
  NVVM::MBarrierArriveOp::create(b, loc, Type(), remote, Value(),
                                 NVVM::MemScopeKind::CTA);
}

WgmmaEmitter::PhaseMaps WgmmaEmitter::makePhaseMaps(Value source, bool isA) {
  // Rows p, p + 8, ... of a matrix whose rows lie off 16-byte boundaries
  // are 8 rows apart, a multiple of 16 bytes: a tensor map reads them
  // from the 16-byte boundary at or before row p's start, `shift` elements
  // before it (the same for all of them), its columns `shift` more than
  // the operand's (those past them are TMA's zeros).
  auto type = cast<MemRefType>(source.getType());
  auto [strides, offset] = type.getStridesAndOffset();
  int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
  int64_t perGranule = 128 / type.getElementTypeBitWidth();
  StagedLayout s = stagedLayout(bm, isA);
  auto unranked =
      UnrankedMemRefType::get(type.getElementType(), type.getMemorySpace());
  PhaseMaps phases;
  // Pieces of an MN-major tile past the operand's columns (a tile wider
  // than the operand) are not loaded.
  phases.pieces =
      std::min<int64_t>(s.pieces, llvm::divideCeil(cols, s.pieceCols));
  for (int64_t p = 0; p < std::min<int64_t>(8, rows); ++p) {
    int64_t first = offset + p * strides[0];
    int64_t shift = first % perGranule;
    SmallVector<int64_t> shape{llvm::divideCeilSigned(rows - p, int64_t(8)),
                               cols + shift};
    phases.boxRows[p] = std::min(s.phaseRows, shape[0]);
    SmallVector<int64_t> viewStrides{8 * strides[0], 1};
    auto viewType = MemRefType::get(
        shape, type.getElementType(),
        StridedLayoutAttr::get(b.getContext(), first - shift, viewStrides),
        type.getMemorySpace());
    Value view = memref::ReinterpretCastOp::create(
        b, loc, viewType, source, first - shift, shape, viewStrides);
    Value cast = memref::CastOp::create(b, loc, unranked, view);
    SmallVector<Value> box{cst(phases.boxRows[p]), cst(s.rowElems())};
    phases.maps[p] = nvgpu::TmaCreateDescriptorOp::create(
        b, loc,
        tensorMapType({phases.boxRows[p], s.rowElems()},
                      nvgpu::TensorMapL2PromoKind::L2PROMO_128B,
                      nvgpu::TensorMapSwizzleKind::SWIZZLE_NONE),
        cast, box);
    phases.shift[p] = shift;
  }
  return phases;
}

void WgmmaEmitter::emitStagedProducer(Value m0, Value n0, Value tidX) {
  // The block's K steps (split-K: its range from kBegin).
  int64_t steps = tileSteps();
  int64_t inBytes = bm.inType.getIntOrFloatBitWidth() / 8;
  int64_t slotSize = slotBytes(bm, readA, readB);
  auto vecType = VectorType::get({kChunk}, bm.inType);
  struct Operand {
    bool isA;
    StagedLayout s;
    const PhaseMaps *phases;
    int64_t base; // bytes from the slot's start
  };
  SmallVector<Operand> operands;
  if (readA)
    operands.push_back({true, stagedLayout(bm, true), &phasesA, 0});
  if (readB)
    operands.push_back({false, stagedLayout(bm, false), &phasesB,
                        readA ? stagedLayout(bm, true).bytes() : 0});
  Value warp = div(tidX, kThreadsPerWarp);
  Value lane = rem(tidX, kThreadsPerWarp);
  // body(w) for this thread's warp w as a constant: its phases' maps and
  // shifts are the case's (the warp's threads take the same case).
  auto perWarp = [&](function_ref<void(int64_t)> body) {
    SmallVector<int64_t> cases;
    for (int64_t w = 0; w + 1 < kProducerWarps; ++w)
      cases.push_back(w);
    auto sw = scf::IndexSwitchOp::create(b, loc, TypeRange{}, warp, cases,
                                         cases.size());
    for (int64_t w = 0; w < kProducerWarps; ++w) {
      OpBuilder::InsertionGuard guard(b);
      b.createBlock(w < kProducerWarps - 1 ? &sw.getCaseRegions()[w]
                                           : &sw.getDefaultRegion());
      body(w);
      scf::YieldOp::create(b, loc);
    }
  };
  auto slotOffset = [&](Value slot) {
    return addC(mul(slot, slotSize), l.ringBytes);
  };
  // The bytes of warp w's TMA loads of one K step (0 where its phases
  // have no rows: it loads and waits for nothing).
  auto warpBytes = [&](int64_t w) {
    int64_t bytes = 0;
    for (const Operand &op : operands)
      for (int64_t h = 0; h < 2; ++h)
        if (int64_t p = w + 4 * h; op.phases->maps[p])
          bytes += op.phases->pieces * op.phases->boxRows[p] * op.s.rowElems() *
                   inBytes;
    return bytes;
  };
  // Warp w's TMA loads of K step kt into its slot, by its first thread.
  auto issue = [&](Value kt, int64_t w) {
    int64_t bytes = warpBytes(w);
    if (bytes == 0)
      return;
    Value slot = rem(kt, stagingSlots);
    Value barrier = addC(mul(slot, kProducerWarps), w);
    Value base = slotOffset(slot);
    Value k0 = mul(splits > 1 ? add(kBegin, kt) : kt, tileK());
    OpBuilder::InsertionGuard guard(b);
    auto ifFirst = scf::IfOp::create(b, loc, eq(lane, 0), /*withElse=*/false);
    b.setInsertionPointToStart(ifFirst.thenBlock());
    nvgpu::MBarrierArriveExpectTxOp::create(b, loc, landed, cst(bytes), barrier,
                                            Value());
    for (const Operand &op : operands) {
      bool kMajor = op.isA || bm.bKMajor();
      Value mn0 = op.isA ? m0 : n0;
      for (int64_t h = 0; h < 2; ++h) {
        int64_t p = w + 4 * h;
        Value map = op.phases->maps[p];
        if (!map)
          continue;
        for (int64_t piece = 0; piece < op.phases->pieces; ++piece) {
          // A phase map's row q is the operand's row 8q + p; its column c
          // the row's element c - shift.
          Value row = kMajor ? div(mn0, 8) : div(k0, 8);
          Value col = kMajor ? k0 : addC(mn0, piece * op.s.pieceCols);
          Value dst = view(
              addC(base, op.base + op.s.blockOffset(piece, p)),
              sharedType({op.phases->boxRows[p], op.s.rowElems()}, bm.inType));
          nvgpu::TmaAsyncLoadOp::create(b, loc, dst, landed, map,
                                        coordinates(col, row, {}), barrier,
                                        Value(), Value());
        }
      }
    }
  };
  // Warp w's chunks of K step kt: each realigned out of its row's two
  // granules in the slot (one where the phase's shift is 0) and stored
  // where TMA's 128-byte swizzle puts it in the ring.
  auto realign = [&](Value kt, Value aBytes, Value bBytes, int64_t w) {
    Value slot = rem(kt, stagingSlots);
    if (warpBytes(w) > 0)
      nvgpu::MBarrierTryWaitParityOp::create(
          b, loc, landed, parity(div(kt, stagingSlots)), cst(kTryWaitTicks),
          addC(mul(slot, kProducerWarps), w));
    Value staging =
        view(slotOffset(slot), sharedType({slotSize / inBytes}, bm.inType));
    for (const Operand &op : operands) {
      Value ring = view(op.isA ? aBytes : bBytes,
                        sharedType({op.s.rows * op.s.cols}, bm.inType));
      for (int64_t h = 0; h < 2; ++h) {
        int64_t p = w + 4 * h;
        for (int64_t piece = 0; piece < op.s.pieces; ++piece) {
          // The piece's chunks per row (its columns are a multiple of 32).
          int64_t perRow = op.s.pieceCols / kChunk;
          int64_t chunks = op.s.phaseRows * perRow;
          assert(chunks % kThreadsPerWarp == 0 &&
                 "a phase's chunks in whole rounds of a warp");
          for (int64_t j = 0; j < chunks / kThreadsPerWarp; ++j) {
            Value u = addC(lane, j * kThreadsPerWarp);
            Value q = div(u, perRow), c = rem(u, perRow);
            Value row = addC(mul(q, 8), p);
            Value col = addC(mul(c, kChunk), piece * op.s.pieceCols);
            Value chunk;
            if (!op.phases->maps[p]) {
              chunk = arith::ConstantOp::create(b, loc, b.getZeroAttr(vecType));
            } else {
              Value at =
                  add(addC(mul(q, op.s.rowElems()),
                           (op.base + op.s.blockOffset(piece, p)) / inBytes),
                      mul(c, kChunk));
              auto load = [&](Value index) -> Value {
                return vector::LoadOp::create(
                    b, loc, vecType, staging, ValueRange{index},
                    /*nontemporal=*/false, llvm::MaybeAlign(16));
              };
              // realignChunk's shift network folds away for the phase's
              // constant shift (a funnel shift by 16 bits where it is odd).
              int64_t shift = op.phases->shift[p];
              Value lo = load(at);
              chunk = shift == 0 ? lo
                                 : realignChunk({lo, load(addC(at, kChunk)),
                                                 cst(shift), cst(kChunk)},
                                                vecType);
            }
            vector::StoreOp::create(
                b, loc, chunk, ring,
                ValueRange{swizzledIndex(row, col, op.s.rows)},
                /*nontemporal=*/false, llvm::MaybeAlign(16));
          }
        }
      }
    }
  };

  // Prologue: the first stagingSlots steps in flight.
  perWarp([&](int64_t w) {
    for (int64_t d = 0; d < std::min(stagingSlots, steps); ++d) {
      OpBuilder::InsertionGuard guard(b);
      if (splits > 1) {
        // A split's range may be shorter than the slots.
        auto ifStep = scf::IfOp::create(b, loc, ult(cst(d), kSteps),
                                        /*withElse=*/false);
        b.setInsertionPointToStart(ifStep.thenBlock());
      }
      issue(cst(d), w);
    }
  });
  OpBuilder::InsertionGuard guard(b);
  auto [loop, at] = emitRingLoop(cst(0), kSteps, 1);
  Value kt = loop.getInductionVar();
  StepBuffers step = beginProducerStep(kt, at, m0, n0, tidX);
  perWarp([&](int64_t w) { realign(kt, step.aBytes, step.bBytes, w); });
  fenceAsyncShared();
  nvgpu::MBarrierArriveOp::create(b, loc, full, step.stage);
  // The warp's threads have read the slot: its first thread refills it
  // with step kt + stagingSlots.
  NVVM::SyncWarpOp::create(
      b, loc, arith::ConstantIntOp::create(b, loc, b.getI32Type(), -1));
  Value next = addC(kt, stagingSlots);
  auto ifMore = scf::IfOp::create(b, loc, ult(next, kSteps),
                                  /*withElse=*/false);
  b.setInsertionPointToStart(ifMore.thenBlock());
  perWarp([&](int64_t w) { issue(next, w); });
}

WgmmaEmitter::StepBuffers WgmmaEmitter::beginProducerStep(Value kt,
                                                          RingPosition at,
                                                          Value m0, Value n0,
                                                          Value tidX) {
  // The ring's stages and phases count the block's own steps; the loads
  // read the matmul's K step kBegin + kt.
  Value stage = at.stage;
  waitForEmpty(kt, at);
  Value k = splits > 1 || streamK ? add(kBegin, kt) : kt;
  StepBuffers step{stage, mul(k, tileK()), mul(stage, l.aStageBytes),
                   addC(mul(stage, l.bStageBytes), stages * l.aStageBytes)};
  emitTmaLoads(step.stage, step.k0, m0, n0, step.aBytes, step.bBytes, tidX);
  return step;
}

void WgmmaEmitter::waitForEmpty(Value kt, RingPosition at) {
  // The previous round's phase; a persistent block also waits in its first
  // round, for the previous phase of a fresh barrier, which has completed.
  // Values created one after the other (the order in which a call's
  // arguments are evaluated is the C++ compiler's choice).
  auto wait = [&] {
    Value p = flip(at.phase);
    Value ticks = cst(kTryWaitTicks);
    nvgpu::MBarrierTryWaitParityOp::create(b, loc, empty, p, ticks, at.stage);
  };
  if (tileStart)
    return wait();
  Value reuse = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, kt,
                                      cst(stages));
  auto ifReuse = scf::IfOp::create(b, loc, reuse, /*withElse=*/false);
  OpBuilder::InsertionGuard inner(b);
  b.setInsertionPointToStart(ifReuse.thenBlock());
  wait();
}

void WgmmaEmitter::storeRealigned(ArrayRef<PendingChunk> chunks) {
  auto vecType = VectorType::get({kChunk}, bm.inType);
  for (const PendingChunk &c : chunks)
    vector::StoreOp::create(b, loc, realignChunk(c.granules, vecType), c.ring,
                            ValueRange{c.index}, /*nontemporal=*/false,
                            llvm::MaybeAlign(16));
}

Value WgmmaEmitter::swizzledIndex(Value row, Value col, int64_t rows) {
  Value box = div(col, kBoxN);
  Value chunk =
      arith::XOrIOp::create(b, loc, div(rem(col, kBoxN), kChunk), rem(row, 8));
  return add(add(mul(box, rows * kBoxN), mul(row, kBoxN)), mul(chunk, kChunk));
}

WgmmaEmitter::RingPosition
WgmmaEmitter::emitProducer(Value m0, Value n0, Value tidX, Value producer) {
  if (stagingSlots > 0) {
    emitStagedProducer(m0, n0, tidX);
    return {};
  }
  if (splitsF32()) {
    emitSplittingProducer(m0, n0, tidX);
    return {};
  }
  Value flatA = readA ? flatView(a.source) : Value();
  Value flatB = readB ? flatView(bOp.source) : Value();
  // Producer p takes K steps p, p + producers, ...: each waits for its
  // stage's loads before its next, so several keep loads in flight.
  OpBuilder::InsertionGuard guard(b);
  auto [loop, at] = emitRingLoop(producer, kSteps, l.producers);
  RingPosition end{loop.getResult(0), loop.getResult(1)};
  Value kt = loop.getInductionVar();
  auto [stage, k0, aBytes, bBytes] = beginProducerStep(kt, at, m0, n0, tidX);
  if (!readA && !readB)
    return end;
  // Operands TMA cannot read: every producer thread fills its chunks, makes
  // its (generic-proxy) stores visible to wgmma's async proxy, and arrives.
  // One sequence of load groups over both operands' chunks.
  SmallVector<PendingChunk> pending;
  if (readA)
    fillStage(a.source, flatA, m0, k0, bm.m, tileK(), aBytes, tidX, pending);
  if (readB && bm.bKMajor())
    fillStage(bOp.source, flatB, n0, k0, bm.n, tileK(), bBytes, tidX, pending);
  else if (readB)
    fillStage(bOp.source, flatB, k0, n0, tileK(), bm.n, bBytes, tidX, pending);
  flushChunks(pending);
  fenceAsyncShared();
  nvgpu::MBarrierArriveOp::create(b, loc, full, stage);
  return end;
}

scf::ForOp WgmmaEmitter::emitConsumers(Value consumer) {
  auto accType = nvgpu::WarpgroupAccumulatorType::get(
      b.getContext(), VectorType::get({kWgmmaM, bm.n}, b.getF32Type()));
  // Where the K loop's trip count is not a constant (a persistent block's
  // tile, a split-K block's share of K), the accumulator starts with the
  // first K step's first instruction (scale-d = 0), peeled off the loop.
  // Zeroed registers would reach the epilogue on the path where the loop
  // runs no step, which ptxas cannot rule out there: it fences them
  // (warpgroup.arrive) and serializes every wgmma of the kernel (C7520; on
  // an H200 that cost a persistent kernel 10-20%; split-K kernels gained
  // 1.5-4% on an H100). Every block has at least one K step. With a
  // constant trip count ptxas only notes the fence it adds before the loop
  // (C7519), and peeling there changed nothing beyond the A/B's noise
  // (bench/results/hopper-v2, "Step 4"): those kernels stay as they were.
  bool peel = !splitsF32() && (tileStart || splits > 1);
  RingPosition first = positionOf(0);
  Value init =
      peel ? emitStep(first, Value(), consumer, accType)
           : nvgpu::WarpgroupMmaInitAccumulatorOp::create(b, loc, accType)
                 .getResult();
  RingPosition start = peel ? advance(first, 1) : first;
  Value lower = cst(peel ? 1 : 0);
  Value one = cst(1);
  auto loop = scf::ForOp::create(
      b, loc, lower, kSteps, one, ValueRange{init, start.stage, start.phase},
      [&](OpBuilder &, Location, Value kt, ValueRange iterArgs) {
        RingPosition at{iterArgs[1], iterArgs[2]};
        Value next = emitStep(at, iterArgs[0], consumer, accType);
        RingPosition after = advance(at, 1);
        // 3xTF32 released this step's stage (emitTf32Mma); otherwise one
        // group stays in flight, and the previous step's stage is free.
        if (!splitsF32()) {
          auto ifRelease = scf::IfOp::create(
              b, loc,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, kt,
                                    cst(0)),
              /*withElse=*/false);
          OpBuilder::InsertionGuard inner(b);
          b.setInsertionPointToStart(ifRelease.thenBlock());
          release(advance(at, stages - 1).stage);
        }
        scf::YieldOp::create(b, loc,
                             ValueRange{next, after.stage, after.phase});
      });
  loop->setAttr(kMainLoopAttr, b.getUnitAttr());
  return loop;
}

WgmmaEmitter::RingPosition WgmmaEmitter::advance(RingPosition at,
                                                 int64_t steps) {
  assert(steps > 0 && steps <= stages && "advances at most a round");
  if (steps == stages)
    return {at.stage, flip(at.phase)};
  Value moved = addC(at.stage, steps);
  Value wraps = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, moved,
                                      cst(stages));
  return {select(wraps, sub(moved, cst(stages)), moved),
          arith::XOrIOp::create(b, loc, at.phase, wraps)};
}

std::pair<scf::ForOp, WgmmaEmitter::RingPosition>
WgmmaEmitter::emitRingLoop(Value lower, Value upper, int64_t step) {
  RingPosition first = positionOf(lower);
  auto loop = scf::ForOp::create(b, loc, lower, upper, cst(step),
                                 ValueRange{first.stage, first.phase});
  b.setInsertionPointToStart(loop.getBody());
  RingPosition at{loop.getRegionIterArgs()[0], loop.getRegionIterArgs()[1]};
  RingPosition next = advance(at, step);
  auto yield = scf::YieldOp::create(b, loc, ValueRange{next.stage, next.phase});
  b.setInsertionPoint(yield);
  return {loop, at};
}

Value WgmmaEmitter::emitStep(RingPosition at, Value acc, Value consumer,
                             Type accType) {
  Value stage = at.stage;
  Value ticks = cst(kTryWaitTicks);
  nvgpu::MBarrierTryWaitParityOp::create(b, loc, splitsF32() ? ready : full,
                                         at.phase, ticks, stage);
  Value aBytes = mul(stage, l.aStageBytes);
  Value bBytes = addC(mul(stage, l.bStageBytes), stages * l.aStageBytes);
  if (bm.inType.isF32())
    return emitTf32Mma(acc, accType, consumer, stage, aBytes, bBytes);
  // This warpgroup's rows of the A tile: its 64 rows of a K-major tile,
  // or its box of an MN-major one ([k, m]: tileK x 64, at the same byte
  // offset).
  if (!bm.aKMajor()) {
    int64_t inBytes = bm.inType.getIntOrFloatBitWidth() / 8;
    Value aBox = view(add(aBytes, mul(consumer, tileK() * kBoxN * inBytes)),
                      sharedType({tileK(), kBoxN}, bm.inType));
    return emitMma(accType, aBox, bBytes, acc);
  }
  Value aStage = view(aBytes, sharedType({bm.m, tileK()}, bm.inType));
  Value aRows = memref::SubViewOp::create(
      b, loc, aStage,
      ArrayRef<OpFoldResult>{mul(consumer, kWgmmaM), b.getIndexAttr(0)},
      ArrayRef<OpFoldResult>{b.getIndexAttr(kWgmmaM),
                             b.getIndexAttr(tileK())},
      ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1)});
  return emitMma(accType, aRows, bBytes, acc);
}

Value WgmmaEmitter::emitMma(Type accType, Value aRows, Value bBytes,
                            Value acc) {
  // Issued at the NVVM level rather than as nvgpu.warpgroup.mma, which
  // always accumulates (scale-d = 1) and, for a K-major B, advances B's
  // descriptor along K as for an MN-major one (one op per slice then made
  // each slice a wgmma group of its own, with its own fence, commit and
  // wait: 4 per K step). As nvgpu's lowering does for an MN-major B: one
  // fence, an m64nNk16 instruction per 16-deep slice with descriptors
  // advanced (A and a K-major B: 32 bytes into each 128-byte swizzled row;
  // an MN-major B: 16 of its 128-byte rows), one commit, and a wait that
  // leaves this step's group in flight while the previous one completes
  // (its buffer is then released).
  MLIRContext *ctx = b.getContext();
  constexpr int64_t kSliceK = 16;
  auto descriptor = [&](Value memref, ArrayRef<int64_t> shape,
                        Value map) -> Value {
    auto type = nvgpu::WarpgroupMatrixDescriptorType::get(
        ctx, sharedType(shape, bm.inType));
    Value desc =
        nvgpu::WarpgroupGenerateDescriptorOp::create(b, loc, type, memref, map);
    return UnrealizedConversionCastOp::create(b, loc, b.getI64Type(), desc)
        .getResult(0);
  };
  auto advance = [&](Value desc, int64_t bytes) -> Value {
    return bytes == 0 ? desc
                      : LLVM::AddOp::create(
                            b, loc, desc,
                            LLVM::ConstantOp::create(b, loc, b.getI64Type(),
                                                     bytes >> 4));
  };
  Value dA = descriptor(aRows, {kWgmmaM, tileK()}, wgmmaDescA);
  // B's tile in the ring: [n, k] (K-major) or [k, n].
  SmallVector<int64_t> bTile = bm.bKMajor()
                                   ? SmallVector<int64_t>{bm.n, tileK()}
                                   : SmallVector<int64_t>{tileK(), bm.n};
  Value dB = descriptor(view(bBytes, sharedType(bTile, bm.inType)),
                        {tileK(), bm.n}, wgmmaDescB);
  // Where slice s of 16 starts: 32 bytes further into each 128-byte
  // swizzled row of a K-major tile, 16 of the 128-byte rows of an MN-major
  // one ([k, m] or [k, n]).
  int64_t inBytes = bm.inType.getIntOrFloatBitWidth() / 8;
  auto sliceBytes = [&](bool kMajor) {
    return kMajor ? kSliceK * inBytes : kSliceK * wgmma::kRowBytes;
  };
  int64_t aSliceBytes = sliceBytes(bm.aKMajor());
  int64_t bSliceBytes = sliceBytes(bm.bKMajor());
  auto type = [&](NVVM::WGMMATypes t) {
    return NVVM::WGMMATypesAttr::get(ctx, t);
  };
  NVVM::WGMMATypes in =
      bm.inType.isBF16() ? NVVM::WGMMATypes::bf16 : NVVM::WGMMATypes::f16;
  auto one = NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one);
  Value fragment = acc ? accumulatorFragment(acc)
                       : LLVM::PoisonOp::create(b, loc, fragmentType());
  NVVM::WgmmaFenceAlignedOp::create(b, loc);
  for (int64_t s = 0; s < tileK() / kSliceK; ++s) {
    Value sliceA = advance(dA, s * aSliceBytes);
    Value sliceB = advance(dB, s * bSliceBytes);
    fragment = NVVM::WgmmaMmaAsyncOp::create(
        b, loc, fragmentType(), fragment, sliceA, sliceB,
        NVVM::MMAShapeAttr::get(ctx, kWgmmaM, bm.n, kSliceK), type(in),
        type(in), type(NVVM::WGMMATypes::f32),
        NVVM::WGMMAScaleOutAttr::get(ctx, s == 0 && !acc
                                              ? NVVM::WGMMAScaleOut::zero
                                              : NVVM::WGMMAScaleOut::one),
        one, one,
        NVVM::MMALayoutAttr::get(ctx, bm.aKMajor() ? NVVM::MMALayout::row
                                                   : NVVM::MMALayout::col),
        NVVM::MMALayoutAttr::get(ctx, bm.bKMajor() ? NVVM::MMALayout::col
                                                   : NVVM::MMALayout::row),
        NVVM::MMAIntOverflowAttr());
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 1);
  return withFragment(fragment, accType);
}

Value WgmmaEmitter::emitTf32Mma(Value acc, Type accType, Value consumer,
                                Value stage,
                                Value aBytes, Value bBytes) {
  // wgmma multiplies f32 tiles as TF32 with its k8 instruction, which reads
  // both operands K-major: slice s of 8 columns starts 32 bytes into each
  // 128-byte swizzled row, as a 16-bit slice of 16 does. nvgpu's
  // warpgroup.mma advances its descriptors by the element type's width,
  // which TF32's 19 bits get wrong, so the step is issued here, at the
  // NVVM level: one fence, every slice's products, one commit, and a wait
  // that leaves this step's group in flight while the previous one
  // completes (as emitMma's wait_group 1). 3xTF32 adds the
  // small products before the large one: lo x hi, hi x lo, hi x hi.
  //
  // 3xTF32 sums each step's products into a fresh partial accumulator and
  // adds it to the running total with FP32 adds, after waiting for the
  // step's group: wgmma accumulates with truncation, so a total kept in
  // its accumulator over all K drifts toward zero by about one unit in
  // the last place per instruction (2.9e-5 relative at 4096^3 measured on
  // an H100, cuBLAS's FP32 1.2e-6; bench/results/f32). The partial costs a
  // second set of accumulator registers (checkConfig) and the overlap of
  // one step's group with the next.
  MLIRContext *ctx = b.getContext();
  constexpr int64_t kSliceK = 8;
  Type tf32 = b.getTF32Type();
  auto descTypeA = nvgpu::WarpgroupMatrixDescriptorType::get(
      ctx, sharedType({kWgmmaM, kSliceK}, tf32));
  auto descTypeB = nvgpu::WarpgroupMatrixDescriptorType::get(
      ctx, sharedType({kSliceK, bm.n}, tf32));
  // The i64 descriptor of slice `kk` of `rows` rows from `firstRow` of the
  // tile part at `bytes` (`tileRows` rows).
  auto descriptor = [&](Value bytes, int64_t tileRows, Value firstRow,
                        int64_t rows, int64_t kk,
                        nvgpu::WarpgroupMatrixDescriptorType type,
                        Value map) -> Value {
    Value tile = view(bytes, sharedType({tileRows, tileK()}, bm.inType));
    Value slice = memref::SubViewOp::create(
        b, loc, tile, ArrayRef<OpFoldResult>{firstRow, b.getIndexAttr(kk)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(rows), b.getIndexAttr(kSliceK)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1)});
    Value desc =
        nvgpu::WarpgroupGenerateDescriptorOp::create(b, loc, type, slice, map);
    return UnrealizedConversionCastOp::create(b, loc, b.getI64Type(), desc)
        .getResult(0);
  };
  // This warpgroup's first row of the A tile.
  Value firstRow = mul(consumer, kWgmmaM);
  LLVM::LLVMStructType inner = fragmentType();
  Value total = acc ? accumulatorFragment(acc)
                    : LLVM::PoisonOp::create(b, loc, inner).getResult();
  // The first instruction of a partial, or of a new accumulator, ignores
  // its input (scale-d = 0).
  Value fragment = splitsF32() ? LLVM::PoisonOp::create(b, loc, inner) : total;
  bool first = splitsF32() || !acc;
  auto type = [&](NVVM::WGMMATypes t) {
    return NVVM::WGMMATypesAttr::get(ctx, t);
  };
  auto one = NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one);
  // Parts: 0 the high (or only) part, 1 the low part.
  SmallVector<std::pair<int64_t, int64_t>> products =
      splitsF32()
          ? SmallVector<std::pair<int64_t, int64_t>>{{1, 0}, {0, 1}, {0, 0}}
          : SmallVector<std::pair<int64_t, int64_t>>{{0, 0}};
  NVVM::WgmmaFenceAlignedOp::create(b, loc);
  for (int64_t kk = 0; kk < tileK(); kk += kSliceK)
    for (auto [partA, partB] : products) {
      Value dA = descriptor(addC(aBytes, partA * l.aPartBytes), bm.m, firstRow,
                            kWgmmaM, kk, descTypeA, wgmmaDescA);
      Value dB = descriptor(addC(bBytes, partB * l.bPartBytes), bm.n, cst(0),
                            bm.n, kk, descTypeB, wgmmaDescB);
      fragment = NVVM::WgmmaMmaAsyncOp::create(
          b, loc, inner, fragment, dA, dB,
          NVVM::MMAShapeAttr::get(ctx, kWgmmaM, bm.n, kSliceK),
          type(NVVM::WGMMATypes::tf32), type(NVVM::WGMMATypes::tf32),
          type(NVVM::WGMMATypes::f32),
          NVVM::WGMMAScaleOutAttr::get(ctx, first ? NVVM::WGMMAScaleOut::zero
                                                  : NVVM::WGMMAScaleOut::one),
          one, one, NVVM::MMALayoutAttr::get(ctx, NVVM::MMALayout::row),
          NVVM::MMALayoutAttr::get(ctx, NVVM::MMALayout::col),
          NVVM::MMAIntOverflowAttr());
      first = false;
    }
  NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, splitsF32() ? 0 : 1);
  if (splitsF32()) {
    // The group read this stage's tiles: the producer may refill it while
    // the partial is added.
    nvgpu::MBarrierArriveOp::create(b, loc, empty, stage);
    for (int64_t i = 0; i < bm.n / 2; ++i) {
      Value sum = arith::AddFOp::create(
          b, loc,
          LLVM::ExtractValueOp::create(b, loc, total, ArrayRef<int64_t>{i}),
          LLVM::ExtractValueOp::create(b, loc, fragment, ArrayRef<int64_t>{i}));
      total =
          LLVM::InsertValueOp::create(b, loc, total, sum, ArrayRef<int64_t>{i});
    }
    fragment = total;
  }
  return withFragment(fragment, accType);
}

void WgmmaEmitter::splitTiles(ArrayRef<std::pair<Value, int64_t>> parts,
                              Value tidX) {
  // x = hi + lo exactly: hi is x with the 13 mantissa bits TF32 lacks
  // cleared, lo = x - hi (exact: x and hi share sign and exponent). wgmma
  // reads an f32 value as TF32 by dropping those bits, so the tile as TMA
  // wrote it serves as hi, and only lo is stored (measured on an H100: the
  // products and errors are the same as with hi written back). lo is
  // stored with half a TF32 unit added to its bits (the carry, if any,
  // reaches the bits wgmma keeps): wgmma's truncation of it then rounds
  // to the nearest TF32 value, ties away from zero. Truncated as it was
  // before, lo erred by up to a unit of its 11th bit, the largest term of
  // the kernel's error at K of a few thousand (H100, 2026-11-26: 5.6e-7
  // -> 3.5e-7 at 256x1024x1024, 5.9e-7 -> 4.0e-7 at 4096^3, for one add
  // per value: 1-2% of the time, 5% at 256x1024x1024;
  // bench/f32_split_error.py models it).
  // A part is split as a flat array: the swizzle moves whole 16-byte
  // chunks, so x and its lo sit at the same index of their copies. A thread
  // issues all its loads (both parts) before its first store, so their
  // latencies overlap.
  auto quad = VectorType::get({4}, b.getF32Type());
  auto quadBits = VectorType::get({4}, b.getI32Type());
  Value mask = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(quadBits, b.getI32IntegerAttr(-8192)));
  Value half = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(quadBits, b.getI32IntegerAttr(4096)));
  struct Chunk {
    Value part, index, x;
    int64_t elems;
  };
  SmallVector<Chunk> chunks;
  for (auto [bytes, partBytes] : parts) {
    int64_t elems = partBytes / 4;
    Value part = view(bytes, sharedType({2 * elems}, b.getF32Type()));
    for (int64_t c = 0; c < elems / 4 / kWarpgroupThreads; ++c) {
      Value index = addC(mul(tidX, 4), c * 4 * kWarpgroupThreads);
      chunks.push_back(
          {part, index,
           vector::LoadOp::create(b, loc, quad, part, ValueRange{index},
                                  /*nontemporal=*/false, llvm::MaybeAlign(16)),
           elems});
    }
  }
  for (const Chunk &c : chunks) {
    Value bits = vector::BitCastOp::create(b, loc, quadBits, c.x);
    Value hi = vector::BitCastOp::create(
        b, loc, quad, arith::AndIOp::create(b, loc, bits, mask));
    Value loBits = vector::BitCastOp::create(
        b, loc, quadBits, arith::SubFOp::create(b, loc, c.x, hi));
    Value lo = vector::BitCastOp::create(
        b, loc, quad, arith::AddIOp::create(b, loc, loBits, half));
    vector::StoreOp::create(b, loc, lo, c.part,
                            ValueRange{addC(c.index, c.elems)},
                            /*nontemporal=*/false, llvm::MaybeAlign(16));
  }
}

void WgmmaEmitter::emitSplittingProducer(Value m0, Value n0, Value tidX) {
  // Thread 0 issues each K step's TMA loads `stages - 1` steps ahead (the
  // first ones before the loop, then each after the step `stages - 1`
  // before it is split: its stage was released by then or will be once
  // the consumers, who have that step's tiles, complete the one before).
  // Every producer thread waits for a step's tiles, splits its share of
  // them, makes its stores visible to wgmma (the async proxy) and arrives
  // on the stage's ready barrier. A thread that waits on full without
  // arriving on it cannot fall two phases behind: the stage is refilled
  // only after its own arrival on ready. (Issued by the first consumer
  // thread as it released each stage instead, the loads cost the
  // consumers' K step more than they saved the producer's: 0.95x at
  // 256x1024x1024 on an H100, bench/results/f32, "lo rounded".)
  int64_t ahead = stages - 1;
  auto issue = [&](Value kt, RingPosition at) {
    OpBuilder::InsertionGuard guard(b);
    Value inRange =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, kt, kSteps);
    auto ifIssue = scf::IfOp::create(
        b, loc, arith::AndIOp::create(b, loc, eq(tidX, 0), inRange),
        /*withElse=*/false);
    b.setInsertionPointToStart(ifIssue.thenBlock());
    beginProducerStep(kt, at, m0, n0, tidX);
  };
  for (int64_t d = 0; d < ahead; ++d)
    issue(cst(d), positionOf(d));
  OpBuilder::InsertionGuard guard(b);
  auto [loop, at] = emitRingLoop(cst(0), kSteps, 1);
  Value kt = loop.getInductionVar();
  Value stage = at.stage;
  nvgpu::MBarrierTryWaitParityOp::create(b, loc, full, at.phase,
                                         cst(kTryWaitTicks), stage);
  splitTiles(
      {{mul(stage, l.aStageBytes), l.aPartBytes},
       {addC(mul(stage, l.bStageBytes), stages * l.aStageBytes), l.bPartBytes}},
      tidX);
  fenceAsyncShared();
  nvgpu::MBarrierArriveOp::create(b, loc, ready, stage);
  issue(addC(kt, ahead), advance(at, ahead));
}

LLVM::LLVMStructType WgmmaEmitter::fragmentType() {
  return LLVM::LLVMStructType::getLiteral(
      b.getContext(), SmallVector<Type>(bm.n / 2, b.getF32Type()));
}

Value WgmmaEmitter::accumulatorFragment(Value acc) {
  auto outer = LLVM::LLVMStructType::getLiteral(b.getContext(), {fragmentType()});
  return LLVM::ExtractValueOp::create(
      b, loc,
      UnrealizedConversionCastOp::create(b, loc, outer, acc).getResult(0),
      ArrayRef<int64_t>{0});
}

Value WgmmaEmitter::withFragment(Value fragment, Type accType) {
  auto outer = LLVM::LLVMStructType::getLiteral(b.getContext(), {fragmentType()});
  Value whole = LLVM::InsertValueOp::create(
      b, loc, LLVM::PoisonOp::create(b, loc, outer), fragment,
      ArrayRef<int64_t>{0});
  return UnrealizedConversionCastOp::create(b, loc, accType, whole)
      .getResult(0);
}

SmallVector<Value> WgmmaEmitter::accumulatorElements(Value acc) {
  Value fragment = accumulatorFragment(acc);
  SmallVector<Value> elements;
  for (int64_t i = 0; i < bm.n / 2; ++i)
    elements.push_back(
        LLVM::ExtractValueOp::create(b, loc, fragment, ArrayRef<int64_t>{i}));
  return elements;
}

void WgmmaEmitter::emitEpilogue(scf::ForOp kLoop, Value consumer, Value tidX) {
  Value acc = kLoop.getResult(0);
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
  // Persistent: the tile's last stage (the one before the loop's final
  // position) is released as soon as its wgmma completed, so that the
  // producer fills the ring with the next tile's loads while the epilogue
  // runs.
  if (tileStart)
    release(
        advance({kLoop.getResult(1), kLoop.getResult(2)}, stages - 1).stage);
  // The epilogue runs on the accumulator registers. wgmma's fragment
  // layout (m64nNk16, f32): lane l of warp w holds rows 16w + l / 4 and
  // 16w + l / 4 + 8 of the warpgroup's 64, columns 8j + 2 (l % 4) + {0, 1}
  // of each 8-column group j, at registers 4j + 2h + {0, 1} (h: the lower
  // row). Each pair gets the epilogue at its (row, col) of the tile and is
  // converted to the output type there.
  SmallVector<Value> elements = accumulatorElements(acc);
  // Stream-K: a share that ends inside its tile leaves its partial tile;
  // the one that ends the tile adds the others' before the epilogue.
  OpBuilder::InsertionGuard streamGuard(b);
  if (share) {
    Value partial = ult(share->kEnd, cst(tileSteps()));
    auto ifPartial = scf::IfOp::create(b, loc, partial, /*withElse=*/true);
    b.setInsertionPointToStart(ifPartial.thenBlock());
    storePartial(elements, consumer, tidX);
    b.setInsertionPointToStart(ifPartial.elseBlock());
    elements = addPartials(elements, consumer, tidX);
  }
  Value lane = rem(tidX, kThreadsPerWarp);
  // Created one after the other (the evaluation order of a call's
  // arguments is the compiler's choice).
  Value warpgroupRow = mul(consumer, kWgmmaM);
  Value warpRow = add(warpgroupRow, mul(div(tidX, kThreadsPerWarp), 16));
  Value laneRow = add(warpRow, div(lane, 4));
  Value laneCol = mul(rem(lane, 4), 2);

  // The converted tile is staged in shared memory, reusing the ring once no
  // consumer reads it (the proxy fence orders this thread's wgmma reads of
  // the ring, in the async proxy, before its stores), in rows padded by
  // stagePad elements: a warp's 4-byte (16-bit output) or 8-byte (f32)
  // pair stores hit distinct banks.
  auto consumerBarrier = [&] {
    Value id = arith::ConstantIntOp::create(b, loc, b.getI32Type(),
                                            kConsumerBarrier);
    Value count = arith::ConstantIntOp::create(
        b, loc, b.getI32Type(), kWarpgroupThreads * l.consumers);
    NVVM::BarrierOp::create(b, loc, Type(), id, count, {}, Value());
  };
  SmallVector<Pair> pairs;
  // The columns of the tile this block stores: all, or its share of a
  // split-K tile.
  Value colOrigin;
  int64_t cols = bm.n;
  if (splits == 1) {
    auto pairType = VectorType::get({2}, b.getF32Type());
    for (int64_t j = 0; j < bm.n / 8; ++j)
      for (int64_t h = 0; h < 2; ++h) {
        Value pair = vector::FromElementsOp::create(
            b, loc, pairType,
            ValueRange{elements[4 * j + 2 * h], elements[4 * j + 2 * h + 1]});
        Value row = addC(laneRow, 8 * h), col = addC(laneCol, 8 * j);
        pairs.push_back({epilogueAt(pair, row, col), row, col});
      }
    // Persistent: the ring is the next tile's; each warpgroup stages its
    // own rows in a buffer after it.
    if (tileStart)
      return emitSubtiledStores(pairs, consumer, tidX);
    fenceAsyncShared();
    consumerBarrier();
  } else {
    fenceAsyncShared();
    consumerBarrier();
    pairs = reduceSplits(elements, consumer, tidX, laneRow, laneCol, colOrigin,
                         cols);
  }
  // The tile is staged as the output holds it (swapped: transposed).
  int64_t outRows = bm.swapped ? bm.n : bm.m;
  int64_t outCols = bm.swapped ? bm.m : bm.n;
  Value staged =
      view(cst(l.stagedOffset),
           sharedType({outRows, outCols + stagePad(outCols)}, bm.outType));
  for (const Pair &p : pairs)
    storeStaged(p.value, staged, p.row, p.col);
  consumerBarrier();

  // The consumers copy the tile (or the block's columns of it, which are
  // the output's rows when swapped) out in coalesced 16-byte chunks
  // (single elements where the output's rows are misaligned); a partial
  // tile at the problem's edge stores only its valid part.
  int64_t elems = alignedChunk(cast<MemRefType>(bm.out.getType()),
                               128 / bm.outType.getIntOrFloatBitWidth());
  auto vecType = VectorType::get({elems}, bm.outType);
  Value rowOrigin = bm.swapped ? colOrigin : Value();
  Value outColOrigin = bm.swapped ? Value() : colOrigin;
  int64_t regionRows = bm.swapped ? cols : bm.m;
  int64_t regionCols = bm.swapped ? bm.m : cols;
  Value validRows = extentPast(bm.out, 0, rowOrigin);
  Value validCols = extentPast(bm.out, 1, outColOrigin);
  forEachChunk(tid, regionRows, regionCols, elems,
               kWarpgroupThreads * l.consumers, validRows, validCols,
               [&](Value row, Value col, Value valid) {
                 if (rowOrigin)
                   row = add(rowOrigin, row);
                 if (outColOrigin)
                   col = add(outColOrigin, col);
                 Value v = vector::LoadOp::create(b, loc, vecType, staged,
                                                  ValueRange{row, col});
                 storeValid(v, bm.out, ValueRange{row, col}, valid);
               });
}

std::function<void()> WgmmaEmitter::warpgroupBarrier(Value consumer) {
  Value id = arith::IndexCastOp::create(b, loc, b.getI32Type(),
                                        addC(consumer, kConsumerBarrier + 1));
  Value count =
      arith::ConstantIntOp::create(b, loc, b.getI32Type(), kWarpgroupThreads);
  return [this, id, count] {
    NVVM::BarrierOp::create(b, loc, Type(), id, count, {}, Value());
  };
}

Value WgmmaEmitter::flagPointer(Value block, Value consumer) {
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, flags);
  Value slot = streamSlot(block, consumer);
  Value address = add(base, mul(slot, 4));
  return LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext()),
      arith::IndexCastOp::create(b, loc, b.getI64Type(), address).getResult());
}

Value WgmmaEmitter::partialBase(Value block, Value consumer, Value tidX) {
  // [block][consumer][quad][thread][4]: a warpgroup part holds bm.n / 8
  // quads of each thread.
  Value slot = streamSlot(block, consumer);
  Value quads = mul(slot, bm.n / 8 * kPartialQuadStride);
  return add(quads, mul(tidX, 4));
}

void WgmmaEmitter::storePartial(ArrayRef<Value> elements, Value consumer,
                                Value tidX) {
  auto quadType = VectorType::get({4}, b.getF32Type());
  Value base = partialBase(share->block, consumer, tidX);
  for (int64_t q = 0; q < bm.n / 8; ++q) {
    Value quad = vector::FromElementsOp::create(b, loc, quadType,
                                                elements.slice(4 * q, 4));
    vector::StoreOp::create(b, loc, quad, partials,
                            addC(base, q * kPartialQuadStride));
  }
  // The warpgroup's stores (its named barrier, 2 + consumer, as the
  // persistent epilogue's), then one arrival at device scope by its first
  // thread (a release fence before a relaxed add, cumulative over the
  // stores the barrier ordered before it: CUTLASS's arrive_inc; NVPTX
  // drops the release of an atomicrmw). An arrival per thread serialized
  // 128 atomic adds on each flag: 1024^3 ran 23.9 us against 13.9 without
  // them (bench/results/hopper-v2, "Stream-K").
  warpgroupBarrier(consumer)();
  auto ifFirst = scf::IfOp::create(b, loc, eq(tidX, 0), /*withElse=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifFirst.thenBlock());
  LLVM::FenceOp::create(b, loc, LLVM::AtomicOrdering::release, "device");
  Value flag = flagPointer(share->block, consumer);
  Value one = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 1);
  LLVM::AtomicRMWOp::create(b, loc, LLVM::AtomicBinOp::add, flag, one,
                            LLVM::AtomicOrdering::monotonic, "device");
}

SmallVector<Value> WgmmaEmitter::addPartials(ArrayRef<Value> elements,
                                             Value consumer, Value tidX) {
  // The tile's K steps before this share's are the ends of the shares of
  // blocks first .. block - 1, where first holds the tile's first step x:
  // the block j with floor(j * I / G) <= x < floor((j + 1) * I / G)
  // (I steps shared by G blocks), j = ceil((x + 1) * G / I) - 1. A share
  // that starts the tile adds none.
  Value x = mul(share->tile, tileSteps());
  Value scaled = arith::MulIOp::create(b, loc, addC(x, 1), share->blocks);
  Value owner = arith::CeilDivUIOp::create(b, loc, scaled, share->sharedSteps);
  Value firstOwner = sub(owner, cst(1));
  Value startsTile = eq(kBegin, 0);
  Value first = select(startsTile, share->block, firstOwner);
  auto loop = scf::ForOp::create(b, loc, first, share->block, cst(1),
                                 ValueRange(elements));
  addPartialsOf(loop, consumer, tidX);
  // The flags read, cleared: the next call on the stream finds them zero
  // without a memset (launch.json's "left_zeroed"). Each has this one
  // reader; its first thread clears them once every thread has seen them
  // (the warpgroup's barrier: a thread still waiting would wait forever).
  auto ifRead = scf::IfOp::create(b, loc, ult(first, share->block),
                                  /*withElse=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifRead.thenBlock());
  warpgroupBarrier(consumer)();
  auto ifFirst = scf::IfOp::create(b, loc, eq(tidX, 0), /*withElse=*/false);
  b.setInsertionPointToStart(ifFirst.thenBlock());
  auto clear = scf::ForOp::create(b, loc, first, share->block, cst(1));
  b.setInsertionPointToStart(clear.getBody());
  Value zero = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0);
  LLVM::StoreOp::create(b, loc, zero,
                        flagPointer(clear.getInductionVar(), consumer),
                        /*alignment=*/4);
  return llvm::to_vector_of<Value>(loop.getResults());
}

void WgmmaEmitter::addPartialsOf(scf::ForOp loop, Value consumer, Value tidX) {
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value j = loop.getInductionVar();
  // Every thread waits for the warpgroup's flag of block j (acquire: its
  // partial's stores are visible after).
  Value flag = flagPointer(j, consumer);
  Value all =
      arith::ConstantIntOp::create(b, loc, b.getI32Type(), kPartialArrivals);
  auto wait = scf::WhileOp::create(b, loc, TypeRange(), ValueRange());
  {
    OpBuilder::InsertionGuard inner(b);
    Block *before = b.createBlock(&wait.getBefore());
    b.setInsertionPointToStart(before);
    Value seen = LLVM::LoadOp::create(
        b, loc, b.getI32Type(), flag, /*alignment=*/4, /*isVolatile=*/false,
        /*isNonTemporal=*/false, /*isInvariant=*/false,
        /*isInvariantGroup=*/false, LLVM::AtomicOrdering::acquire, "device");
    Value pending =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, seen, all);
    scf::ConditionOp::create(b, loc, pending, ValueRange());
    Block *after = b.createBlock(&wait.getAfter());
    b.setInsertionPointToStart(after);
    scf::YieldOp::create(b, loc, ValueRange());
  }
  auto quadType = VectorType::get({4}, b.getF32Type());
  SmallVector<Value> sums;
  Value base = partialBase(j, consumer, tidX);
  for (int64_t q = 0; q < bm.n / 8; ++q) {
    Value quad = vector::LoadOp::create(b, loc, quadType, partials,
                                        addC(base, q * kPartialQuadStride));
    for (int64_t e = 0; e < 4; ++e) {
      Value part = vector::ExtractOp::create(b, loc, quad, e);
      sums.push_back(arith::AddFOp::create(
          b, loc, loop.getRegionIterArgs()[4 * q + e], part));
    }
  }
  scf::YieldOp::create(b, loc, sums);
}

Value WgmmaEmitter::epilogueAt(Value pair, Value row, Value col) {
  if (bm.swapped)
    return applyEpilogue(b, loc, bm, pair, /*row=*/col, /*col=*/row,
                         /*alongRows=*/true);
  return applyEpilogue(b, loc, bm, pair, row, col);
}

void WgmmaEmitter::storeStaged(Value pair, Value buffer, Value row, Value col) {
  if (!bm.swapped)
    return storePair(pair, buffer, row, col);
  // The pair is two rows of one output column: two stores. A warp's
  // stores of 16-bit values hit distinct banks (its lanes' columns are 8
  // consecutive elements, its lane quads' rows 2 apart: 8 banks with rows
  // of 64 + stagePad); of f32 values two lanes share a bank.
  for (int64_t i = 0; i < 2; ++i) {
    Value v = vector::ExtractOp::create(b, loc, pair, i);
    memref::StoreOp::create(b, loc, v, buffer, ValueRange{addC(col, i), row});
  }
}

void WgmmaEmitter::storePair(Value pair, Value buffer, Value row,
                             Value col) {
  auto type = cast<MemRefType>(buffer.getType());
  int64_t pairBytes =
      2 * static_cast<int64_t>(type.getElementTypeBitWidth()) / 8;
  assert(type.getShape().back() % 2 == 0 && "staging rows of pairs");
  vector::StoreOp::create(b, loc, pair, buffer, ValueRange{row, col},
                          /*nontemporal=*/false, llvm::MaybeAlign(pairBytes));
}

void WgmmaEmitter::emitSubtiledStores(ArrayRef<Pair> pairs, Value consumer,
                                      Value tidX) {
  // Warpgroup c stages its 64 rows of the tile 128 bytes of columns at a
  // time (64 16-bit or 32 f32 values) in its own buffer after the ring
  // (rows padded as above), synchronizing only its own 128 threads (named
  // barrier 2 + c): stage, barrier, copy out in 16-byte chunks (the valid
  // part), barrier. The ring stays the producer's, which fills it with the
  // next tile's stages meanwhile, and the buffers take BM / 64 x 64 x
  // (columns + 8) elements instead of BM x (BN + 8): a 128x256 tile keeps 4
  // stages, TF32's included. Swapped, its 64 rows are the output's columns
  // and each subtile is as many of the output's rows, staged transposed
  // (subCols rows of 64 + 8 columns, no more bytes).
  int64_t subCols =
      wgmma::subtileCols(bm.outType.getIntOrFloatBitWidth() / 8);
  Value offset = cst(l.stagedOffset);
  int64_t bufferRows = bm.swapped ? subCols : kWgmmaM;
  int64_t bufferCols = bm.swapped ? kWgmmaM : subCols;
  Value buffer = view(
      add(offset, mul(consumer, l.subtileBytes)),
      sharedType({bufferRows, bufferCols + stagePad(bufferCols)}, bm.outType));
  std::function<void()> barrier = warpgroupBarrier(consumer);
  int64_t elems = alignedChunk(cast<MemRefType>(bm.out.getType()),
                               128 / bm.outType.getIntOrFloatBitWidth());
  auto vecType = VectorType::get({elems}, bm.outType);
  Value rowOrigin = mul(consumer, kWgmmaM);
  // What the output has past the warpgroup's rows of the computed tile
  // (swapped: its columns), the same for every subtile.
  Value warpgroupLeft = extentPast(bm.out, bm.swapped ? 1 : 0, rowOrigin);
  // Pairs come in 8-column groups j, two rows each (pairs[2 * j + h]). The
  // last subtile is narrower where the tile's width is not a multiple of
  // subCols (160 16-bit columns: 64, 64 and 32).
  for (int64_t q = 0; q * subCols < bm.n; ++q) {
    int64_t width = std::min(subCols, bm.n - q * subCols);
    for (const Pair &p : pairs.slice(2 * q * subCols / 8, 2 * width / 8))
      storeStaged(p.value, buffer, sub(p.row, rowOrigin),
                  addC(p.col, -q * subCols));
    barrier();
    // The subtile in the output: the warpgroup's 64 rows from rowOrigin
    // and `width` columns from colOrigin, with what the output has past
    // each origin; swapped, the same region transposed.
    Value colOrigin = cst(q * subCols);
    Value subtileLeft = extentPast(bm.out, bm.swapped ? 0 : 1, colOrigin);
    int64_t rows = kWgmmaM, cols = width;
    Value outRow = rowOrigin, outCol = colOrigin;
    Value rowsLeft = warpgroupLeft, colsLeft = subtileLeft;
    if (bm.swapped) {
      std::swap(rows, cols);
      std::swap(outRow, outCol);
      std::swap(rowsLeft, colsLeft);
    }
    forEachChunk(tidX, rows, cols, elems, kWarpgroupThreads, rowsLeft, colsLeft,
                 [&](Value row, Value col, Value valid) {
                   Value v = vector::LoadOp::create(b, loc, vecType, buffer,
                                                    ValueRange{row, col});
                   storeValid(v, bm.out,
                              ValueRange{add(outRow, row), add(outCol, col)},
                              valid);
                 });
    barrier();
  }
}

SmallVector<WgmmaEmitter::Pair>
WgmmaEmitter::reduceSplits(ArrayRef<Value> elements, Value consumer, Value tidX,
                           Value laneRow, Value laneCol, Value &colOrigin,
                           int64_t &cols) {
  // Each block of the cluster stages its f32 partial tile in its own
  // shared memory (the ring, free once its consumers passed the barrier)
  // in the order of wgmma's fragment: the four registers of 8-column group
  // j of thread t of warpgroup c at quad (c * groups + j) * 128 + t, so
  // that a warp's 16-byte stores and loads are contiguous. After a cluster
  // barrier, block r of the cluster sums groups [r * share, (r + 1) *
  // share) of every block's partial, in the order of the blocks (the sum
  // does not depend on which block finishes last), through distributed
  // shared memory, applies the epilogue once, and stores those columns. A
  // second cluster barrier keeps every partial in place until all blocks
  // have read it.
  MLIRContext *ctx = b.getContext();
  int64_t groups = bm.n / 8;
  int64_t share = groups / splits;
  auto quadType = VectorType::get({4}, b.getF32Type());
  auto pairType = VectorType::get({2}, b.getF32Type());
  auto quadIndex = [&](Value j) {
    return add(mul(add(mul(consumer, groups), j), kWarpgroupThreads), tidX);
  };
  Value partial =
      view(cst(0), sharedType({l.partialBytes / 4}, b.getF32Type()));
  for (int64_t j = 0; j < groups; ++j) {
    Value quad = vector::FromElementsOp::create(b, loc, quadType,
                                                elements.slice(4 * j, 4));
    vector::StoreOp::create(b, loc, quad, partial,
                            ValueRange{mul(quadIndex(cst(j)), 4)},
                            /*nontemporal=*/false, llvm::MaybeAlign(16));
  }
  clusterSync();

  // The ring's start in each block of the cluster (mapa).
  auto sharedPtr = LLVM::LLVMPointerType::get(
      ctx, static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared));
  auto clusterPtr = LLVM::LLVMPointerType::get(
      ctx, static_cast<unsigned>(NVVM::NVVMMemorySpace::SharedCluster));
  Value address64 =
      arith::IndexCastOp::create(b, loc, b.getI64Type(), ringAddress);
  Value local =
      LLVM::IntToPtrOp::create(b, loc, sharedPtr, ValueRange{address64});
  SmallVector<Value> remote;
  for (int64_t r = 0; r < splits; ++r)
    remote.push_back(NVVM::MapaOp::create(
        b, loc, clusterPtr, local,
        arith::ConstantIntOp::create(b, loc, b.getI32Type(), r)));

  SmallVector<Pair> pairs;
  Value firstGroup = mul(split, share);
  for (int64_t i = 0; i < share; ++i) {
    Value j = addC(firstGroup, i);
    Value offset = arith::IndexCastOp::create(b, loc, b.getI64Type(),
                                              mul(quadIndex(j), 16));
    Value sum;
    for (Value base : remote) {
      Value at = LLVM::GEPOp::create(b, loc, clusterPtr, b.getI8Type(), base,
                                     ValueRange{offset});
      Value quad = LLVM::LoadOp::create(b, loc, quadType, at, /*alignment=*/16);
      sum = sum ? arith::AddFOp::create(b, loc, sum, quad).getResult() : quad;
    }
    for (int64_t h = 0; h < 2; ++h) {
      Value pair = vector::FromElementsOp::create(
          b, loc, pairType,
          ValueRange{vector::ExtractOp::create(b, loc, sum, 2 * h),
                     vector::ExtractOp::create(b, loc, sum, 2 * h + 1)});
      Value row = addC(laneRow, 8 * h), col = add(laneCol, mul(j, 8));
      pairs.push_back({epilogueAt(pair, row, col), row, col});
    }
  }
  clusterSync();
  colOrigin = mul(firstGroup, 8);
  cols = share * 8;
  return pairs;
}

scf::ForOp WgmmaEmitter::emit() {
  {
    // Host: the tensor maps of the whole A and B.
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(bm.launch);
    if (!readA)
      descA = makeTensorMap(a.source, boxA());
    if (!readB)
      descB = makeTensorMap(bOp.source, boxB());
    if (stagingSlots > 0) {
      if (readA)
        phasesA = makePhaseMaps(a.source, /*isA=*/true);
      if (readB)
        phasesB = makePhaseMaps(bOp.source, /*isA=*/false);
    }
    // A block's half of a tile it shares with its partner: half the rows
    // of a K-major operand's box, or of each 64-column box of an MN-major
    // one (each half starts on a 1024-byte swizzle boundary).
    auto halfBox = [&](bool kMajor, int64_t mn) {
      return kMajor ? SmallVector<int64_t>{mn / 2, tileK()}
                    : SmallVector<int64_t>{tileK() / 2, kBoxN};
    };
    if (multicasts()) {
      halfDescA = makeTensorMap(a.source, halfBox(bm.aKMajor(), bm.m));
      halfDescB = makeTensorMap(bOp.source, halfBox(bm.bKMajor(), bm.n));
    }
    // The last tile of a K-major operand whose rows the tile does not
    // divide: a box of its rows only (emitTmaLoads).
    auto edgeRows = [&](const TiledOperand &t, bool kMajor,
                        int64_t rows) -> int64_t {
      auto type = cast<MemRefType>(t.source.getType());
      int64_t extent = type.getDimSize(type.getRank() - 2);
      return kMajor && !ShapedType::isDynamic(extent) ? extent % rows : 0;
    };
    if (!readA && (edgeRowsA = edgeRows(a, bm.aKMajor(), bm.m)))
      edgeDescA = makeTensorMap(a.source, {edgeRowsA, tileK()});
    if (!readB && (edgeRowsB = edgeRows(bOp, bm.bKMajor(), bm.n)))
      edgeDescB = makeTensorMap(bOp.source, {edgeRowsB, tileK()});
    // Stream-K's workspace: a partial tile per block, and a flag per block
    // and consumer warpgroup, zeroed before the launch; freed after it.
    if (streamK) {
      auto alloc = [&](int64_t elements, Type type) {
        return gpu::AllocOp::create(b, loc, MemRefType::get({elements}, type),
                                    /*asyncToken=*/Type(), ValueRange(),
                                    ValueRange(), ValueRange())
            .getMemref();
      };
      partials = alloc(streamBlocks() * bm.m * bm.n, b.getF32Type());
      flags = alloc(streamBlocks() * l.consumers, b.getI32Type());
      Value zero = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0);
      auto memset = gpu::MemsetOp::create(b, loc, /*asyncToken=*/Type(),
                                          ValueRange(), flags, zero);
      // The finishers clear the flags they read (addPartials).
      memset->setAttr(kLeftZeroedAttrName, b.getUnitAttr());
      b.setInsertionPointAfter(bm.launch);
      for (Value ws : {partials, flags})
        gpu::DeallocOp::create(b, loc, /*asyncToken=*/Type(), ValueRange(), ws);
    }
  }
  // The consumers' wgmma descriptors take only a tensor map's type (for
  // the swizzle and, from a 2-D box, the leading byte offset). An operand
  // the producer reads has no tensor map, and a batched operand's has a
  // batch dimension: a poison value of the 2-D box's type stands in and
  // lowers away.
  auto noMap = [&](nvgpu::TensorMapDescriptorType type) -> Value {
    Value poison = LLVM::PoisonOp::create(
        b, loc, LLVM::LLVMPointerType::get(b.getContext()));
    return UnrealizedConversionCastOp::create(b, loc, type, poison)
        .getResult(0);
  };
  wgmmaDescA =
      readA || a.batchRank() > 0 ? noMap(tensorMapType(boxA())) : descA;
  wgmmaDescB =
      readB || bOp.batchRank() > 0 ? noMap(tensorMapType(boxB())) : descB;

  auto values = [&](ArrayRef<OpFoldResult> offsets) {
    return llvm::map_to_vector(offsets, [&](OpFoldResult offset) {
      return getValueOrCreateConstantIndexOp(b, loc, offset);
    });
  };
  SmallVector<Value> aOffsets = values(a.offsets(b, loc));
  SmallVector<Value> bOffsets = values(bOp.offsets(b, loc));
  batchA.assign(aOffsets.begin(), aOffsets.end() - 2);
  batchB.assign(bOffsets.begin(), bOffsets.end() - 2);
  Value m0 = aOffsets[a.batchRank() + bm.aDimM()];
  Value n0 = bOffsets[bOp.batchRank() + bm.bDimN()];
  // Warpgroups are laid out along y: (128, consumers + 1, 1) threads.
  Value tidX = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value warpgroup = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::y);
  tid = add(tidX, mul(warpgroup, kWarpgroupThreads));

  auto rawAlloc = memref::AllocOp::create(
      b, loc, sharedType({l.sharedBytes}, b.getI8Type()));
  raw = rawAlloc;
  Value address =
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, raw);
  alignPad = rem(sub(cst(kSwizzleAlign), rem(address, kSwizzleAlign)),
                 kSwizzleAlign);
  int64_t steps = llvm::divideCeil(bm.k, tileK());
  if (splits > 1) {
    // Block `split` of its cluster takes K steps [split * steps / splits,
    // (split + 1) * steps / splits): at least one each (splits <= steps).
    ringAddress = add(address, alignPad);
    split = gpu::ClusterBlockIdOp::create(b, loc, gpu::Dimension::z);
    kBegin = div(mul(split, steps), splits);
    kSteps = sub(div(mul(addC(split, 1), steps), splits), kBegin);
  } else {
    kBegin = cst(0);
    kSteps = cst(steps);
  }
  if (multicasts()) {
    rank = gpu::ClusterBlockIdOp::create(b, loc, *clusterDim);
    partnerRank = arith::IndexCastOp::create(
        b, loc, b.getI32Type(),
        arith::XOrIOp::create(b, loc, rank, cst(1)).getResult());
  }

  auto barrierType = nvgpu::MBarrierGroupType::get(
      b.getContext(), workgroupSpace(), stages);
  full = nvgpu::MBarrierCreateOp::create(b, loc, barrierType);
  empty = nvgpu::MBarrierCreateOp::create(b, loc, barrierType);
  if (splitsF32())
    ready = nvgpu::MBarrierCreateOp::create(b, loc, barrierType);
  if (stagingSlots > 0)
    landed = nvgpu::MBarrierCreateOp::create(
        b, loc,
        nvgpu::MBarrierGroupType::get(b.getContext(), workgroupSpace(),
                                      stagingSlots * kProducerWarps));
  auto ifFirst = scf::IfOp::create(b, loc, eq(tid, 0), /*withElse=*/false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifFirst.thenBlock());
    // Full: the TMA leader's arrival (with the transaction bytes), and
    // each producer thread's when it fills part of the stage itself.
    int64_t fullArrivals =
        (readA && readB ? 0 : 1) + (readA || readB ? kWarpgroupThreads : 0);
    for (int64_t s = 0; s < stages; ++s) {
      nvgpu::MBarrierInitOp::create(b, loc, full, cst(fullArrivals), cst(s),
                                    Value());
      // Empty: each consumer thread's arrival, and with a partner, one per
      // warp of the partner's consumers (release).
      int64_t emptyArrivals =
          kWarpgroupThreads * l.consumers +
          (multicasts() ? kWarpgroupThreads / kThreadsPerWarp * l.consumers
                        : 0);
      nvgpu::MBarrierInitOp::create(b, loc, empty, cst(emptyArrivals), cst(s),
                                    Value());
      if (splitsF32())
        nvgpu::MBarrierInitOp::create(b, loc, ready, cst(kWarpgroupThreads),
                                      cst(s), Value());
    }
    // Landed: the arrival of the warp's TMA issuer, with the bytes.
    for (int64_t i = 0; i < stagingSlots * kProducerWarps; ++i)
      nvgpu::MBarrierInitOp::create(b, loc, landed, cst(1), cst(i), Value());
    // The barriers are initialized by generic-proxy stores; TMA completes
    // transactions on them through the async proxy: the initialization is
    // made visible to it before the first load (CUTLASS's
    // fence_barrier_init and fence_view_async_shared).
    NVVM::FenceMbarrierInitOp::create(b, loc);
    fenceAsyncShared();
    if (!readA)
      nvgpu::TmaPrefetchOp::create(b, loc, descA, Value());
    if (!readB)
      nvgpu::TmaPrefetchOp::create(b, loc, descB, Value());
    for (Value edgeDesc : {edgeDescA, edgeDescB})
      if (edgeDesc)
        nvgpu::TmaPrefetchOp::create(b, loc, edgeDesc, Value());
  }
  // With a partner, no multicast or remote arrival may reach its barriers
  // before they are initialized: a cluster barrier (which the block's
  // threads all take part in) after the initialization.
  if (multicasts())
    clusterSync();
  else
    gpu::BarrierOp::create(b, loc);

  // The last warpgroups produce; the others consume.
  auto ifProducer = scf::IfOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, warpgroup,
                            cst(l.consumers)),
      /*withElse=*/true);
  // A block sized for two per SM is compiled for two, so that ptxas keeps
  // its registers within half the register file (an epilogue's operands
  // took a 64x192 block to 132 and the SM to one block).
  if (wgmma::twoBlocksFit(l, bm.n, l.parts))
    ifProducer->setAttr(kBlocksPerSMAttr, b.getI64IntegerAttr(2));
  scf::ForOp loop;
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifProducer.thenBlock());
    // setmaxnreg, executed by every warp of the warpgroup: a producer that
    // only issues TMA loads keeps few registers, and the consumers take the
    // rest (room for the epilogue's operands and math; a 128x256 tile's
    // bias epilogue spilled at the 168 registers of 384 threads).
    if (rebalancesRegisters())
      NVVM::SetMaxRegisterOp::create(b, loc, producerRegs(),
                                     NVVM::SetMaxRegisterAction::decrease);
    // Only threads that arrive on the full barriers may wait on the empty
    // ones: a waiter that arrives on nothing could fall two phases behind
    // and wait forever on a parity that has passed. So one thread produces
    // when TMA loads everything, and all 128 when they fill or split a
    // stage.
    {
      OpBuilder::InsertionGuard leader(b);
      if (!readA && !readB && !splitsF32()) {
        auto ifLeader = scf::IfOp::create(b, loc, eq(tidX, 0),
                                          /*withElse=*/false);
        b.setInsertionPointToStart(ifLeader.thenBlock());
      }
      auto produce = [&] {
        if (multicasts())
          findSharedOperands(m0, n0);
        return emitProducer(
            m0, n0, tidX,
            l.producers == 1 ? cst(0) : sub(warpgroup, cst(l.consumers)));
      };
      if (persistentTiles)
        emitTileLoop(produce);
      else
        produce();
    }
    // Split-K: the producers take part in the consumers' two cluster
    // barriers (the partials staged, then read).
    if (splits > 1) {
      clusterSync();
      clusterSync();
    }
    b.setInsertionPointToStart(ifProducer.elseBlock());
    if (rebalancesRegisters())
      NVVM::SetMaxRegisterOp::create(
          b, loc, wgmma::rebalancedConsumerRegs(l.consumers, producerRegs()),
          NVVM::SetMaxRegisterAction::increase);
    auto consume = [&] {
      loop = emitConsumers(warpgroup);
      emitEpilogue(loop, warpgroup, tidX);
      return RingPosition{loop.getResult(1), loop.getResult(2)};
    };
    if (persistentTiles)
      emitTileLoop(consume);
    else
      consume();
  }
  // The partner's consumers arrive on this block's empty barriers until
  // they are done: a cluster barrier before either block exits.
  if (multicasts())
    clusterSync();
  return loop;
}

void WgmmaEmitter::emitTileLoop(function_ref<RingPosition()> body) {
  // Tile t of the former grid, linearized as CUDA orders blocks (x fastest):
  // the blocks resident at once take consecutive tiles, as a wave of the
  // former launch did, so its block order (group_m) keeps its L2 reuse.
  Value block = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value count = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
  Value tiles = cst(persistentTiles);
  Value phase = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 0);
  int64_t steps = tileSteps();
  Value lower = block, upper = tiles, step = count;
  // Stream-K: when the tiles do not fill whole waves of the blocks, the
  // last partial wave's tiles are shared out along K (where they fill less
  // than half a wave, with one whole wave more if there is one: with more
  // tiles than blocks, each tile is then shared by at most three blocks): block
  // g takes their K steps [g * I / G, (g + 1) * I / G) (I steps, G blocks), a
  // share at a time from its last one (each block's last share is the only one
  // that may end inside a tile: it leaves a partial tile, before anything else,
  // which the block holding the tile's end adds when it gets there, as the last
  // of its shares; a block waits only for blocks launched before it). Then each
  // block takes whole tiles of the remaining waves.
  Value skTiles, sharedSteps, t0, t1, sBegin, sEnd, shares;
  if (streamK) {
    Value leftover = arith::RemUIOp::create(b, loc, tiles, count);
    // (Every block takes at least one K step: the launch has at most a
    // block per K step of the tiles.)
    // (Values created one after the other: the order in which a call's
    // arguments are evaluated is the C++ compiler's choice.)
    Value twice = add(leftover, leftover);
    Value halfFull =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, twice, count);
    Value leftSteps = mul(leftover, steps);
    Value everyBlock = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                             leftSteps, count);
    Value halfWave = arith::AndIOp::create(b, loc, halfFull, everyBlock);
    Value withWave =
        arith::MinUIOp::create(b, loc, add(count, leftover), tiles);
    Value some = select(halfWave, leftover, withWave);
    Value none = eq(leftover, 0);
    skTiles = select(none, cst(0), some);
    sharedSteps = mul(skTiles, steps);
    sBegin = arith::DivUIOp::create(
        b, loc, arith::MulIOp::create(b, loc, block, sharedSteps), count);
    sEnd = arith::DivUIOp::create(
        b, loc, arith::MulIOp::create(b, loc, addC(block, 1), sharedSteps),
        count);
    t0 = div(sBegin, steps);
    t1 = div(sub(sEnd, cst(1)), steps);
    Value span = addC(sub(t1, t0), 1);
    Value noShares = eq(sharedSteps, 0);
    shares = select(noShares, cst(0), span);
    Value waves = arith::DivUIOp::create(b, loc, sub(tiles, skTiles), count);
    lower = cst(0);
    upper = add(shares, waves);
    step = cst(1);
  }
  auto loop =
      scf::ForOp::create(b, loc, lower, upper, step, ValueRange{cst(0), phase});
  loop->setAttr(
      kPersistentTilesAttr,
      b.getI64IntegerAttr(streamK ? streamBlocks() : persistentTiles));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value tile = loop.getInductionVar();
  Value savedBegin = kBegin, savedSteps = kSteps;
  if (streamK) {
    Value u = loop.getInductionVar();
    Value isShare = ult(u, shares);
    Value shareTile = sub(t1, u);
    Value waveBase = add(skTiles, block);
    Value wave = arith::MulIOp::create(b, loc, sub(u, shares), count);
    Value waveTile = add(waveBase, wave);
    tile = select(isShare, shareTile, waveTile);
    Value zero = cst(0), whole = cst(steps);
    Value first = arith::AndIOp::create(
        b, loc, isShare,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, shareTile, t0));
    Value last = arith::AndIOp::create(
        b, loc, isShare,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, shareTile, t1));
    kBegin = select(first, sub(sBegin, mul(t0, steps)), zero);
    Value kEnd = select(last, sub(sEnd, mul(t1, steps)), whole);
    kSteps = sub(kEnd, kBegin);
    share = StreamShare{block, count, sharedSteps, tile, kEnd};
  }
  tileStart =
      RingPosition{loop.getRegionIterArgs()[0], loop.getRegionIterArgs()[1]};
  RingPosition end = body();
  scf::YieldOp::create(b, loc, ValueRange{end.stage, end.phase});
  tileStart.reset();
  share.reset();
  kBegin = savedBegin;
  kSteps = savedSteps;
  tileLoops.push_back(loop);
  tileIndices.push_back(tile);
}

DiagnosedSilenceableFailure tessel::RewriteBlockMatmulAsWgmmaOp::apply(
    transform::TransformRewriter &rewriter,
    transform::TransformResults &results, transform::TransformState &state) {
  FailureOr<int64_t> stages = tessel::getSingleIntParam(state, getStages());
  if (failed(stages))
    return emitDefiniteFailure()
           << "expected each param to hold exactly one integer";
  // B's rows on 16- but not 32-byte boundaries are copied once its tiles
  // are read this many times (docs/any-shape.md).
  int64_t worthCopying =
      getCopy_16bRowsFrom().value_or(wgmma::kCopy16bRowsFrom);
  if (worthCopying < 0)
    return emitDefiniteFailure()
           << "copy_16b_rows_from = " << worthCopying
           << " must not be negative (0 copies every such B)";
  // Rows that are not 16-byte aligned are read by the producer warpgroups
  // when K is at most this, copied otherwise (by default: see below).
  std::optional<int64_t> givenReadMaxK = getReadMisalignedRowsMaxK();
  if (givenReadMaxK && *givenReadMaxK < 0)
    return emitDefiniteFailure()
           << "read_misaligned_rows_max_k = " << *givenReadMaxK
           << " must not be negative (0 copies every such operand)";
  int64_t readMaxK = givenReadMaxK.value_or(-1); // -1: the default below.
  // The optional params' one integer each, or their defaults.
  auto optionalParam = [&](Value param,
                           int64_t fallback) -> FailureOr<int64_t> {
    if (!param)
      return fallback;
    return tessel::getSingleIntParam(state, param);
  };
  FailureOr<int64_t> given[] = {
      optionalParam(getSplitK(), 1), optionalParam(getPersistent(), 0),
      optionalParam(getCluster(), 1), optionalParam(getSwapAb(), 0)};
  if (llvm::any_of(given, [](FailureOr<int64_t> v) { return failed(v); }))
    return emitDefiniteFailure()
           << "expected each param to hold exactly one integer";
  int64_t splits = *given[0], persistent = *given[1], cluster = *given[2],
          swapAB = *given[3];
  auto transformOp = cast<transform::TransformOpInterface>(getOperation());

  SmallVector<Operation *> loops;
  for (Operation *target : state.getPayloadOps(getTarget())) {
    BlockMatmul bm;
    DiagnosedSilenceableFailure diag =
        matchBlockMatmul(transformOp, target, "wgmma", bm);
    if (!diag.succeeded())
      return diag;
    auto fail = [&](const Twine &why) {
      if (bm.swapped)
        return failOnTarget(*this, target,
                            why + " (swap_ab = 1: the block computes the "
                                  "transposed tile, whose M is the output's "
                                  "columns and N its rows)");
      return failOnTarget(*this, target, why);
    };
    if (swapAB != 0 && swapAB != 1)
      return fail("swap_ab = " + Twine(swapAB) + " must be 0 or 1");
    // Swap-AB: B's tile is wgmma's A operand (64 rows of the output's
    // columns per consumer warpgroup) and A's its B (the output's rows
    // along wgmma's N), so that a narrow M fills N rather than zero-filled
    // rows of wgmma's M.
    if (swapAB)
      swapOperands(bm);
    // Split-K: the K steps are shared out among the `splits` blocks of a
    // cluster, and each block of it stores 1 / splits of the tile's 8-column
    // groups.
    if (splits < 1 || splits > kMaxClusterSize)
      return fail("split_k = " + Twine(splits) + " must be between 1 and " +
                  Twine(kMaxClusterSize) +
                  " (the blocks of one portable cluster)");
    if (cluster != 1 && cluster != 2)
      return fail("cluster = " + Twine(cluster) + " must be 1 or 2");
    FailureOr<TiledOperand> a = getTiledOperand(bm.a, bm.launch);
    FailureOr<TiledOperand> bOperand = getTiledOperand(bm.b, bm.launch);
    if (failed(a) || failed(bOperand))
      return fail("expected A and B to be unit-stride tiles of statically "
                  "shaped, row-major buffers (matrices, or batches of them) "
                  "defined outside the launch (the tensor maps are created "
                  "on the host)");
    // The emitted tile: whole warpgroups of rows and whole 8-column groups
    // (wgmma's N), as many per block of a split-K or multicasting cluster
    // (blockColumns; an MN-major B's last 64-column box is loaded whole),
    // or 32-column groups where the producers may read B's misaligned rows
    // or split its tiles (3xTF32); what lies beyond the block's extents is
    // zero-filled by TMA, or holds the next block's rows or columns, and is
    // not stored.
    bool splitsF32 = wgmma::operandParts(bm.inType.getIntOrFloatBitWidth() / 8,
                                         bm.allowTf32) > 1;
    bool alignedB =
        hasAlignedRows(cast<MemRefType>(bOperand->source.getType()), 16);
    bm.m = llvm::alignTo(bm.m, kWgmmaM);
    bm.n = blockColumns(bm.n, splits, cluster,
                        alignedB && !splitsF32 ? kWgmmaNGranule
                                               : kWgmmaReadNGranule);
    int64_t steps = llvm::divideCeil(bm.k, stepK(bm));
    if (splits > steps)
      return fail("split_k = " + Twine(splits) + " exceeds the " +
                  Twine(steps) + " K steps of " + Twine(stepK(bm)));
    // Refusals the knobs share: persistent and multicasting blocks do not
    // serve 3xTF32 (its producer splits each tile), and a launch with
    // clusters already serves none of persistent, cluster and split_k.
    auto refuseSplitF32 = [&](StringRef knob, StringRef off) {
      return fail(knob + " does not serve f32 inputs at FP32 accuracy "
                         "(3xTF32: the producer splits each tile); use " +
                  off + ", or tessel.allow_tf32");
    };
    auto refuseClusters = [&](StringRef knob) {
      return fail(knob + " needs a gpu.launch without clusters");
    };
    // Persistent: one block per SM (or as many as fit) walks the tiles, its
    // producer loading the next tile while the consumers finish one.
    std::array<int64_t, 3> grid = {1, 1, 1};
    if (persistent < 0 || persistent > 2)
      return fail("persistent = " + Twine(persistent) +
                  " must be 0, 1 or 2 (stream-K)");
    std::string persistentKnob = "persistent = " + std::to_string(persistent);
    if (persistent) {
      if (splits > 1)
        return fail(persistentKnob + " with split_k = " + Twine(splits) +
                    ": a persistent kernel does not split K across a "
                    "cluster (use one of them)");
      if (splitsF32)
        return refuseSplitF32(persistentKnob, "persistent = 0");
      if (bm.launch.hasClusterSize())
        return refuseClusters(persistentKnob);
      if (persistent == 2 && cluster != 1)
        return fail(
            "persistent = 2 (stream-K) with cluster = " + Twine(cluster) +
            ": stream-K blocks share K steps, not operand tiles "
            "(use one of them)");
      gpu::KernelDim3 sizes = bm.launch.getGridSizeOperandValues();
      int64_t tiles = 1;
      for (auto [d, size] :
           llvm::enumerate(std::array<Value, 3>{sizes.x, sizes.y, sizes.z})) {
        std::optional<int64_t> c = getConstantIntValue(size);
        if (!c || *c < 1)
          return fail(persistentKnob + " needs a gpu.launch with a constant "
                                       "grid");
        grid[d] = *c;
        tiles *= *c;
        if (tiles > INT32_MAX)
          return fail(persistentKnob + ": the launch's " + Twine(tiles) +
                      "+ blocks exceed one grid dimension");
      }
      DenseSet<Operation *> replaced{bm.op(), bm.fill};
      if (bm.epilogue)
        replaced.insert(bm.epilogue);
      if (Operation *alloc = bm.acc.getDefiningOp()) {
        replaced.insert(alloc);
        for (Operation *user : alloc->getUsers())
          if (isa<memref::DeallocOp>(user))
            replaced.insert(user);
      }
      if (Operation *op = findUnrecomputable(bm.launch, replaced)) {
        DiagnosedSilenceableFailure diag =
            fail(persistentKnob +
                 " needs the block's other computations that depend on its "
                 "index to be free of side effects, so that each tile "
                 "recomputes them");
        diag.attachNote(op->getLoc()) << "this one is not";
        return diag;
      }
    }
    // Clusters of two blocks that multicast the operand tiles they share:
    // along x, or y when x has an odd extent (a persistent grid pairs its
    // tiles along x).
    std::optional<gpu::Dimension> clusterDim;
    if (cluster == 2) {
      if (splits > 1)
        return fail("cluster = 2 with split_k = " + Twine(splits) +
                    ": split-K runs its blocks in clusters of its own (use "
                    "one of them)");
      if (splitsF32)
        return refuseSplitF32("cluster = 2", "cluster = 1");
      if (bm.launch.hasClusterSize())
        return refuseClusters("cluster = 2");
      std::optional<int64_t> gx = getConstantIntValue(bm.launch.getGridSizeX());
      std::optional<int64_t> gy = getConstantIntValue(bm.launch.getGridSizeY());
      if (!gx || !gy)
        return fail("cluster = 2 needs a gpu.launch with a constant grid");
      if (persistent) {
        if ((grid[0] * grid[1] * grid[2]) % 2 != 0)
          return fail("cluster = 2 with persistent = 1 needs an even number "
                      "of tiles; the grid has " +
                      Twine(grid[0] * grid[1] * grid[2]));
        clusterDim = gpu::Dimension::x;
      } else if (*gx % 2 == 0) {
        clusterDim = gpu::Dimension::x;
      } else if (*gy % 2 == 0) {
        clusterDim = gpu::Dimension::y;
      } else {
        return fail("cluster = 2 needs an even number of blocks along x or "
                    "y; the grid has " +
                    Twine(*gx) + " x " + Twine(*gy));
      }
    }
    if (splits > 1) {
      if (bm.launch.hasClusterSize())
        return refuseClusters("split_k");
      if (bm.launch.getNumWorkgroupAttributions() +
              bm.launch.getNumPrivateAttributions() >
          0)
        return fail("split_k needs a gpu.launch without memory attributions");
      std::optional<int64_t> gridZ =
          getConstantIntValue(bm.launch.getGridSizeZ());
      if (!gridZ || *gridZ * splits > 65535)
        return fail("split_k = " + Twine(splits) +
                    " times the launch's grid z extent (its batch blocks) "
                    "must be a constant of at most 65535");
    }
    // f32 inputs are multiplied as TF32, whose wgmma reads only K-major
    // tiles (no transpose, unlike 16-bit types): B stored [k, n] is copied
    // transposed first (docs/f32.md).
    bool transposeB = bm.inType.isF32() && !bm.bKMajor();
    if (std::string why = checkConfig(bm, *stages, 1, 0, splits, persistent);
        !why.empty())
      return fail(why);
    if (128 % bm.outType.getIntOrFloatBitWidth() != 0)
      return fail("the output type does not fill 16-byte stores");
    if (a->batchRank() + 2 > kMaxTmaRank ||
        bOperand->batchRank() + 2 > kMaxTmaRank)
      return fail("A or B has more than " + Twine(kMaxTmaRank - 2) +
                  " batch dimensions; a tensor map has at most " +
                  Twine(kMaxTmaRank) + " (fold them into one)");
    for (const TiledOperand *operand : {&*a, &*bOperand}) {
      auto type = cast<MemRefType>(operand->source.getType());
      if (llvm::any_of(type.getShape(),
                       [](int64_t size) { return size > INT32_MAX; }))
        return fail("a dimension of A or B exceeds the 32-bit coordinates "
                    "of TMA");
    }

    if (transposeB &&
        !canCopyTransposed(cast<MemRefType>(bOperand->source.getType())))
      return fail("B, f32 and stored [k, n], is too large to copy "
                  "transposed for TF32 wgmma (which reads B [n, k] only)");

    // TMA needs 16-byte row strides: an operand whose rows are not (f16 with
    // an odd K or N) is first copied into a workspace with 128-byte rows,
    // and its tensor map describes the copy. Rows on 16- but not 32-byte
    // boundaries are read more slowly (1000^3 f16 against 1008^3,
    // docs/any-shape.md). With 128-byte L2 promotion (l2Promotion), TMA
    // reads A's (tile_m box rows per K step) in place faster than a copy:
    // 0.97-1.26x, 1.07x in geometric mean, on 9 shapes whose blocks read
    // each of its tiles 8 to 32 times (H100, 2026-11-26,
    // bench/results/any-shape, "Copy or read"). B's tile puts tile_n box
    // rows on each K step (twice tile_m at 128x256), in either layout: in
    // place it ran 1.32x at 8 reads of each tile, about even at 16,
    // 0.79-0.89x at 32 to 64; so it is copied once its tiles are read
    // copy_16b_rows_from times (ceil(M / tile_m)). (An optional attribute:
    // when absent the schedule's text, and so its hash, stays as it was.)
    auto matrixDim = [](const TiledOperand &t, int64_t d) {
      auto type = cast<MemRefType>(t.source.getType());
      return type.getDimSize(type.getRank() - 2 + d);
    };
    int64_t fullM = matrixDim(*a, bm.aDimM());
    int64_t fullN = matrixDim(*bOperand, bm.bDimN());
    int64_t fullK = matrixDim(*a, 1 - bm.aDimM());
    // An A stored [k, m] is read MN-major by TMA: 64-column boxes along M,
    // as a B stored [k, n] (docs/wgmma.md, "Operand layouts"). Where TMA
    // cannot read it so (TF32 wgmma reads K-major tiles only; rows off
    // 16-byte boundaries) it is copied transposed, as an f32 B [k, n] is.
    bool transposeA =
        !bm.aKMajor() &&
        (bm.inType.isF32() ||
         !hasAlignedRows(cast<MemRefType>(a->source.getType()), 16));
    if (transposeA && !canCopyTransposed(cast<MemRefType>(a->source.getType())))
      return fail("A, stored [k, m] with " +
                  Twine(bm.inType.isF32() ? "f32 inputs"
                                          : "rows off 16-byte boundaries") +
                  ", is too large to copy transposed");
    // Several producer warpgroups take K steps in turn when the threads
    // read operands: as many as the registers allow (up to kMaxProducers,
    // one per stage and K step). Each waits for a stage's loads before its
    // next, so they keep that many stages in flight.
    int64_t maxProducers = 1;
    for (int64_t p = 2; p <= std::min({kMaxProducers, *stages, steps}); ++p)
      if (checkConfig(bm, *stages, p).empty())
        maxProducers = p;
    // By default the threads read such operands when the producers can have
    // all of a tile's K steps in flight at once, as TMA would with that
    // many stages. Measured on an H100 (docs/any-shape.md): 31 of the 300
    // shapes of bench/any_shape.py changed from copy to read and ran 1.42x
    // faster; with more steps than producers (big tiles leave registers for
    // one or two) the copy wins on most shapes. Except where the blocks
    // read more than kRegisterReadMaxBytes of such rows in all: each chunk
    // is two granule loads through the registers, where TMA reads the copy
    // once per tile. Measured on an H200 over 269 pairs of the same knobs
    // reading and copying at short K (bench/results/any-shape, "Short K,
    // odd N: 64x128 blocks"): at up to 9 MB reading ran 1.16x faster in
    // geometric mean (0.81x-1.52x, faster in 147 of 165), above it 0.86x
    // (0.48x-1.15x, faster in 16 of 104). A single K step reads well past
    // that: 64x128 blocks ran 1.088x faster reading than copying at 9 to
    // 24 MB (16 of 18 shapes), 0.875x above 24 MB (all tiles). The two
    // thresholds leave 0.58% in geometric mean to the faster of each of
    // 306 pairs; always reading 6.6%, one threshold of 9 MB 0.96%.
    // A transposed copy has 128-byte rows.
    bool transposed[2] = {transposeA, transposeB};
    bool misaligned[2], readable[2];
    for (auto [i, operand] :
         llvm::enumerate(std::array<TiledOperand *, 2>{&*a, &*bOperand})) {
      auto type = cast<MemRefType>(operand->source.getType());
      misaligned[i] = !hasAlignedRows(type, 16) && !transposed[i];
      // The producer's aligned loads and the phase maps need the buffer's
      // start, a static offset from it and static sizes, and read
      // matrices, not batches of them. The producers read 16-bit values
      // (f32 rows are copied).
      readable[i] = type.getStridesAndOffset().second != ShapedType::kDynamic &&
                    type.hasStaticShape() && operand->batchRank() == 0 &&
                    !bm.inType.isF32();
    }
    // Persistent and multicasting blocks load their operands with TMA:
    // misaligned rows are copied. Split-K blocks read them only through
    // staging slots (TMA's phase maps), not with the register producers.
    bool tmaOnly = persistent || clusterDim;
    bool mayRead[2] = {misaligned[0] && readable[0] && !tmaOnly,
                       misaligned[1] && readable[1] && !tmaOnly};
    // With more K steps than producers (or split K), one producer
    // warpgroup loads the tiles with TMA through the phase maps into
    // staging slots, as many as shared memory holds (2 to
    // kMaxStagingSlots), which keeps that many steps in flight without
    // registers.
    auto stagingSlots = [&](bool readA, bool readB) -> int64_t {
      if (!(readA || readB) || (splits == 1 && steps <= maxProducers))
        return 0;
      for (int64_t d = std::min(kMaxStagingSlots, steps); d >= 2; --d)
        if (checkConfig(bm, *stages, 1,
                        WgmmaEmitter::stagingBytes(bm, readA, readB, d), splits)
                .empty())
          return d;
      return 0;
    };
    // The bytes of the misaligned operands the producers may read: each
    // once, or (`everyRead`) as often as the blocks read each of its tiles.
    int64_t inBytes = bm.inType.getIntOrFloatBitWidth() / 8;
    auto mayReadBytes = [&](bool everyRead) {
      double aBytes = double(fullM) * fullK *
                      (everyRead ? llvm::divideCeil(fullN, bm.n) : 1);
      double bBytes = double(fullK) * fullN *
                      (everyRead ? llvm::divideCeil(fullM, bm.m) : 1);
      return double(inBytes) *
             ((mayRead[0] ? aBytes : 0) + (mayRead[1] ? bBytes : 0));
    };
    bool readInKernel;
    if (splits > 1 && stagingSlots(mayRead[0], mayRead[1]) == 0) {
      readInKernel = false;
    } else if (readMaxK >= 0) {
      readInKernel = fullK <= readMaxK;
    } else if (splits == 1 && steps <= maxProducers) {
      readInKernel =
          mayReadBytes(/*everyRead=*/true) <=
          (steps == 1 ? kRegisterReadOneStepMaxBytes : kRegisterReadMaxBytes);
    } else {
      // Beyond that, the staged reads win where the matmul is bound by
      // memory and its blocks fill the GPU: the copy moves each
      // misaligned operand twice more. Measured on an H100
      // (docs/any-shape.md): 1.15-1.55x at up to 64 flops per byte of
      // misaligned operand in 64 blocks or more; with fewer blocks each
      // one's four slots in flight bound the bandwidth, and a long K lost
      // to the copy (1660x2x2927 0.79x, 3012x28x14461 0.75x in 26 and 48
      // blocks).
      double bytes = mayReadBytes(/*everyRead=*/false);
      double flops = 2.0 * fullM * fullN * fullK;
      int64_t blocks = llvm::divideCeil(fullM, bm.m) *
                       llvm::divideCeil(fullN, bm.n) * splits;
      // In fewer blocks, a short K is read too: the copy is then mostly
      // its launch and its latency, which one launch saves. Measured on an
      // H100 against the copy with programmatic dependent launch
      // (docs/any-shape.md): 1.074x in geometric mean on 15 shapes of 1 to
      // 45 blocks and 5 to 16 steps (0.94x to 1.30x), 0.917x on 5 of 18 to
      // 22 steps.
      bool bigGrid = blocks >= kStagedReadMinBlocks &&
                     flops <= kStagedReadMaxFlopsPerByte * bytes;
      bool smallGrid =
          blocks < kStagedReadMinBlocks && steps <= kSmallGridMaxSteps;
      readInKernel = bytes > 0 && (bigGrid || smallGrid) &&
                     stagingSlots(mayRead[0], mayRead[1]) > 0;
    }
    SmallVector<TiledOperand *> copied;
    bool read[2] = {false, false};
    for (auto [i, operand, other] : {std::make_tuple(0, &*a, fullN),
                                     std::make_tuple(1, &*bOperand, fullM)}) {
      auto type = cast<MemRefType>(operand->source.getType());
      if (mayRead[i] && readInKernel)
        read[i] = true;
      else if (transposed[i])
        continue;
      else if (misaligned[i] ||
               (!hasAlignedRows(type, 32) && i == 1 &&
                llvm::divideCeilSigned(other, bm.m) >= worthCopying))
        copied.push_back(operand);
    }
    for (TiledOperand *operand : copied)
      if (!isCopyable(cast<MemRefType>(operand->source.getType())))
        return fail("the rows of a batched A or B are not 16-byte aligned "
                    "and its matrices are not contiguous, so it cannot be "
                    "copied to aligned rows");
    int64_t slots = stagingSlots(read[0], read[1]);
    int64_t producers = slots ? 1 : read[0] || read[1] ? maxProducers : 1;
    int64_t warpgroups = computeLayout(bm, *stages, producers).consumers +
                         producers;
    diag = transform::gpu::alterGpuLaunch(
        rewriter, bm.launch, transformOp, std::nullopt, std::nullopt,
        std::nullopt, kWarpgroupThreads, warpgroups, 1);
    if (!diag.succeeded())
      return diag;
    if (splits > 1)
      bm.launch = launchInClusters(rewriter, bm.launch, gpu::Dimension::z,
                                   splits, /*shareIndex=*/true);
    // A persistent launch is clustered once its grid is the tiles'.
    if (clusterDim && !persistent)
      bm.launch = launchInClusters(rewriter, bm.launch, *clusterDim, 2,
                                   /*shareIndex=*/false);
    if (splits > 1 || (clusterDim && !persistent)) {
      // The launch was rebuilt and its block indices replaced (split-K's
      // by the cluster's): the tiles' offsets, a batch block's index among
      // them, are read again from the new body. (Held over, they named
      // erased values: a one-dimensional batch split along K loaded batch
      // 1 in every block, measured on an H100.)
      FailureOr<TiledOperand> newA = getTiledOperand(bm.a, bm.launch);
      FailureOr<TiledOperand> newB = getTiledOperand(bm.b, bm.launch);
      if (failed(newA) || failed(newB))
        return emitDefiniteFailure() << "the clustered launch lost its tiles";
      *a = std::move(*newA);
      *bOperand = std::move(*newB);
    }

    SmallVector<Value> workspaces = copyToAlignedRows(
        rewriter, bm.launch,
        llvm::map_to_vector(copied, [](TiledOperand *t) { return t->source; }));
    rewriter.setInsertionPoint(bm.launch);
    for (auto [operand, ws] : llvm::zip_equal(copied, workspaces)) {
      auto type = cast<MemRefType>(operand->source.getType());
      operand->source = memref::SubViewOp::create(
          rewriter, bm.loc(), ws, SmallVector<int64_t>(type.getRank(), 0),
          type.getShape(), SmallVector<int64_t>(type.getRank(), 1));
    }

    // The kernel reads A [m, k] or B [n, k] from a transposed copy: the
    // operand's tile offsets swap, and it is K-major from here on.
    auto readTransposed = [&](TiledOperand &operand) {
      auto type = cast<MemRefType>(operand.source.getType());
      int64_t rank = type.getRank();
      Value ws = copyTransposed(rewriter, bm.launch, operand.source);
      SmallVector<int64_t> shape(type.getShape());
      std::swap(shape[rank - 2], shape[rank - 1]);
      rewriter.setInsertionPoint(bm.launch);
      operand.source = memref::SubViewOp::create(
          rewriter, bm.loc(), ws, SmallVector<int64_t>(rank, 0), shape,
          SmallVector<int64_t>(rank, 1));
      std::swap(operand.offsetTerms[rank - 2], operand.offsetTerms[rank - 1]);
    };
    if (transposeA) {
      readTransposed(*a);
      bm.contraction.lhsTransposed = false;
    }
    if (transposeB) {
      readTransposed(*bOperand);
      bm.contraction.rhsTransposed = true;
    }

    // What names the block before the rewrite: a persistent block reads
    // its tile's instead.
    SmallVector<Value> indexValues = blockIndexValues(bm.launch);
    Operation *last = bm.epilogue ? bm.epilogue.getOperation() : bm.op();
    rewriter.setInsertionPoint(last);
    int64_t tiles = persistent ? grid[0] * grid[1] * grid[2] : 0;
    WgmmaEmitter emitter(rewriter, bm, *stages, producers, *a, *bOperand,
                         read[0], read[1], slots, splits, tiles,
                         /*streamK=*/persistent == 2, clusterDim);
    loops.push_back(emitter.emit());
    eraseBlockMatmul(rewriter, bm);
    if (persistent && failed(makePersistent(
                          rewriter, bm.launch, emitter.tileLoops,
                          emitter.tileIndices, indexValues, grid,
                          persistent == 2 ? emitter.streamBlocks() : tiles)))
      return emitDefiniteFailure() << "the persistent rewrite failed";
    if (clusterDim) {
      if (failed(resolvePartners(rewriter, bm.launch, *clusterDim,
                                 persistent)))
        return emitDefiniteFailure() << "the cluster rewrite failed";
      if (persistent)
        bm.launch = launchInClusters(rewriter, bm.launch, *clusterDim, 2,
                                     /*shareIndex=*/false);
    }
  }
  results.set(cast<OpResult>(getLoop()), loops);
  return DiagnosedSilenceableFailure::success();
}

void tessel::RewriteBlockMatmulAsWgmmaOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  transform::consumesHandle(getTargetMutable(), effects);
  transform::onlyReadsHandle(getStagesMutable(), effects);
  transform::onlyReadsHandle(getSplitKMutable(), effects);
  transform::onlyReadsHandle(getPersistentMutable(), effects);
  transform::onlyReadsHandle(getClusterMutable(), effects);
  transform::onlyReadsHandle(getSwapAbMutable(), effects);
  transform::producesHandle(getOperation()->getOpResults(), effects);
  transform::modifiesPayload(effects);
}
