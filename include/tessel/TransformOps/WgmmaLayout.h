//===- WgmmaLayout.h - A wgmma block's threads, registers, shared memory --===//
//
// What transform.tessel.rewrite_block_matmul_as_wgmma builds for a BM x BN
// block, and the register bound its accumulators must respect: the rewrite
// refuses what does not fit, and the knob rule (Tuning/KnobChoice.cpp)
// estimates with the same numbers, so that the two cannot drift apart.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_TRANSFORMOPS_WGMMALAYOUT_H
#define TESSEL_TRANSFORMOPS_WGMMALAYOUT_H

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cstdint>
#include <numeric>

namespace tessel::wgmma {

inline constexpr int64_t kWarpgroupThreads = 128;
/// The attribute marking a persistent block's tile loops, with the number
/// of tiles it walks (tessel-persistent-launches reads it after outlining).
inline constexpr char kPersistentTilesAttr[] = "tessel.persistent_tiles";
/// The attribute marking a block sized to run `value` per SM (shared memory
/// and registers: twoBlocksFit); tessel-require-entry-registers compiles
/// its kernel for that many (.minnctapersm) after outlining.
inline constexpr char kBlocksPerSMAttr[] = "tessel.blocks_per_sm";
/// Rows of the accumulator one consumer warpgroup owns (wgmma's M).
inline constexpr int64_t kWgmmaM = 64;
/// Columns of the block tile a block computes in whole units of this: the
/// wgmma instruction's N (a multiple of 8 up to 256), so that a 112-row
/// swapped tile (tile_m along wgmma's N) is computed as 112, not 128, and
/// a block whose N is 20 computes 24 columns ...
inline constexpr int64_t kWgmmaNGranule = 8;
/// ... where TMA loads B as stored (rows on 16-byte boundaries) and the
/// producer does not split it (3xTF32); else in whole groups of this many.
/// The producers' reads of misaligned rows and the 3xTF32 split walk B's
/// tile in 16-byte chunks, whole rounds of their 128 threads, which the
/// narrower widths do not fill: on an H200 the staged reads of a 24-column
/// [k, n] tile wrote past their slots and the split would leave chunks
/// unsplit (bench/results/hopper-v2, "Blocks of 8-column groups").
inline constexpr int64_t kWgmmaReadNGranule = 32;
/// The columns a block computes for a block extent of `n` columns, in
/// whole groups of `granule` (kWgmmaNGranule or kWgmmaReadNGranule). With
/// K split over `splits` blocks of a cluster, each stores an equal share of
/// the tile's 8-column groups; in a cluster of `cluster` blocks that
/// multicast the operand tiles they share, each loads its part of a
/// K-major tile's rows, which starts on a 1024-byte swizzle boundary (whole
/// 8-row groups). The width is a multiple of both (n = 20: 24 columns; 32
/// with split_k = 4, 64 with split_k = 8, 32 in a cluster of two; n = 104
/// in a cluster of two: 112; n = 60 in 32-column groups with split_k = 3:
/// 96). Split-K and clusters do not combine.
inline int64_t blockColumns(int64_t n, int64_t splits, int64_t cluster = 1,
                            int64_t granule = kWgmmaNGranule) {
  return llvm::alignTo(n, std::lcm(granule, kWgmmaNGranule * splits * cluster));
}
/// Bytes of a tile row in one ring buffer: one 128-byte swizzle row, the
/// K extent of one K step (64 16-bit or 32 f32 values).
inline constexpr int64_t kRowBytes = 128;
/// Columns of one TMA box of an MN-major B ([k, n]): one 128-byte swizzle
/// row of 16-bit values.
inline constexpr int64_t kBoxN = 64;
/// The K extent of one K step for inputs of `inBytes` bytes.
inline constexpr int64_t tileK(int64_t inBytes) { return kRowBytes / inBytes; }
/// Copies of each operand tile a stage holds for inputs of `inBytes` bytes:
/// 2 when f32 inputs keep FP32-level accuracy (3xTF32: the tiles as loaded,
/// read as their high TF32 parts, and their low parts), else 1.
inline constexpr int64_t operandParts(int64_t inBytes, bool allowTf32) {
  return inBytes == 4 && !allowTf32 ? 2 : 1;
}
/// Buffers addressed by 128-byte-swizzled wgmma descriptors start on 1024-byte
/// boundaries; the dynamic shared memory base is aligned at run time.
inline constexpr int64_t kSwizzleAlign = 1024;
/// Padding (elements of the output type) of the staged output rows against
/// bank conflicts of the fragment stores.
inline constexpr int64_t kStagePad = 8;
/// The padding of a staged row of `cols` columns (a multiple of 8): the
/// eight rows a warp's fragment stores reach start 8 or 24 elements apart
/// modulo 16 (4-byte words 4 mod 8 apart for 16-bit outputs), so that no two
/// share a bank's word. kStagePad for widths of whole 16-column groups; 16
/// for the others, whose rows kStagePad would leave 0 mod 16 apart: a
/// 184-wide tile's rows 384 bytes apart took every row of a warp's stores
/// to the same banks (H200: 128x184 blocks 0.71x the 128x192 ones at
/// 753x11877x200; bench/results/hopper-v2, "Tiles that fill their waves").
inline constexpr int64_t stagePad(int64_t cols) {
  return kStagePad + cols % 16;
}
/// Columns of the output a persistent block's consumer warpgroup stages at
/// a time, in a 64 x (columns + stagePad) buffer of its own: 128 bytes of
/// a row (64 16-bit or 32 f32 values; 64 f32 columns made the persistent
/// 128x256 TF32 tile need 234,560 bytes).
inline constexpr int64_t subtileCols(int64_t outBytes) {
  return kRowBytes / outBytes;
}
/// The default copy_16b_rows_from of the wgmma rewrite: a B whose rows
/// start on 16- but not 32-byte boundaries (which TMA reads more slowly)
/// is copied to 128-byte rows once the blocks read each of its tiles this
/// many times (ceil(M / tile_m)), and read by TMA below it; A's such rows
/// are always read by TMA (docs/any-shape.md).
inline constexpr int64_t kCopy16bRowsFrom = 12;
/// Accumulator registers per consumer thread above which the kernel spills.
inline constexpr int64_t kMaxAccumulatorRegs = 128;
/// Registers of an SM, and those a consumer thread needs besides its
/// accumulators (addresses, barriers, loop state: 26-38 in the tuned kernels
/// on an H100, fewer under pressure). ptxas needs 26 besides them at the
/// wgmma instruction itself: at 512 threads (128 registers each) a 64x208
/// f16 block's 104 accumulators failed to compile ("Insufficient registers
/// (128) ... register target of 130"), 64x200 compiled in exactly 128
/// (H200, bench/results/hopper-v2, "Blocks of 8-column groups"). 30 keeps
/// a margin, and the widths blocks had before computing 8-column groups
/// (192 at 512 threads, 128 at 640).
inline constexpr int64_t kRegisterFile = 65536;
inline constexpr int64_t kOtherRegs = 30;

/// A BM x BN block's warpgroups and shared memory, in bytes.
struct Layout {
  int64_t consumers = 0, producers = 1, threads = 0;
  /// A stage holds `parts` copies of each tile (3xTF32: the operands' high
  /// and low parts), each of aPartBytes (A) and bPartBytes (B).
  int64_t parts = 1, aPartBytes = 0, bPartBytes = 0;
  int64_t aStageBytes = 0, bStageBytes = 0, ringBytes = 0, stagedBytes = 0;
  /// Split-K: the block's f32 partial tile, which the other blocks of its
  /// cluster read (0 without split-K).
  int64_t partialBytes = 0;
  /// The producer's staging of misaligned rows' granules, after the ring.
  int64_t stagingBytes = 0;
  /// Where the epilogue stages its output tile: over the ring (0), or,
  /// persistent, after it, where the producer's loads of the block's next
  /// tile do not reach: one buffer of subtileBytes per consumer warpgroup,
  /// which stages its rows kSubtileCols columns at a time.
  int64_t stagedOffset = 0, subtileBytes = 0;
  /// The dynamic shared memory of the block, and its static shared memory
  /// (the mbarriers: full and empty, and ready with 3xTF32, per stage),
  /// which count together against the chip's limit.
  int64_t sharedBytes = 0, barrierBytes = 0;
};

/// Rows of 128 bytes a `bn`-column B tile takes in one ring buffer: bn for
/// a K-major B ([n, k]), whose box is the whole tile; whole 64-column boxes
/// of an MN-major B ([k, n], 16-bit), the last one loaded whole even where
/// the tile ends inside it (wgmma then reads only its first columns). A
/// caller that does not know B's layout (the knob rule) counts the larger.
inline int64_t bRingRows(int64_t bn, bool bKMajor) {
  return bKMajor ? bn : llvm::alignTo(bn, kBoxN);
}

/// The layout of a `bm` x `bn` block (bm a multiple of 64, bn of
/// kWgmmaNGranule, B K-major where `bKMajor`) with an output of
/// `outBytes` bytes per element, `stages` ring buffers (a K step of a tile
/// row is kRowBytes whatever the input type),
/// `producers` producer warpgroups and `stagingBytes` of staging after the
/// ring (the epilogue's staged output tile reuses both), K split over
/// `splits` blocks of a cluster (their f32 partial tiles reuse them too),
/// `parts` copies of each operand tile per stage; a `persistent` block
/// (which walks several tiles) stages its output tile after the ring. A
/// block that computes the output's tile transposed (`transposedOut`,
/// swap-AB) stages it as the output holds it: bn rows of bm columns.
inline Layout computeLayout(int64_t bm, int64_t bn, int64_t outBytes,
                            int64_t stages, int64_t producers = 1,
                            int64_t stagingBytes = 0, int64_t splits = 1,
                            int64_t parts = 1, bool persistent = false,
                            bool bKMajor = false, bool transposedOut = false) {
  Layout l;
  l.consumers = bm / kWgmmaM;
  l.producers = producers;
  l.threads = kWarpgroupThreads * (l.consumers + producers);
  l.parts = parts;
  l.aPartBytes = bm * kRowBytes;
  l.bPartBytes = bRingRows(bn, bKMajor) * kRowBytes;
  l.aStageBytes = parts * l.aPartBytes;
  l.bStageBytes = parts * l.bPartBytes;
  l.ringBytes = stages * (l.aStageBytes + l.bStageBytes);
  // A transposed subtile, subtileCols(outBytes) rows of kWgmmaM + stagePad
  // columns, takes at most as much.
  int64_t subCols = subtileCols(outBytes);
  l.subtileBytes = kWgmmaM * (subCols + stagePad(subCols)) * outBytes;
  l.stagedBytes = persistent      ? l.consumers * l.subtileBytes
                  : transposedOut ? bn * (bm + stagePad(bm)) * outBytes
                                  : bm * (bn + stagePad(bn)) * outBytes;
  l.stagingBytes = stagingBytes;
  l.partialBytes = splits > 1 ? bm * bn * 4 : 0;
  if (persistent)
    l.stagedOffset = l.ringBytes + stagingBytes;
  l.sharedBytes = std::max({l.ringBytes + stagingBytes,
                            l.stagedOffset + l.stagedBytes, l.partialBytes}) +
                  kSwizzleAlign;
  l.barrierBytes = 8 * stages * (parts > 1 ? 3 : 2);
  return l;
}

/// The registers each of `threads` threads of a block can have: the register
/// file shared out in whole warps, 8 registers per thread at a time.
inline int64_t registersPerThread(int64_t threads) {
  int64_t warps = llvm::divideCeil(threads, 32);
  return std::min<int64_t>(255, kRegisterFile / (warps * 32) / 8 * 8);
}

/// A consumer thread's accumulator registers for a block `bn` wide: bn / 2
/// f32 registers per set; 3xTF32 keeps two sets (`parts`), the step's
/// partial sum and the running total.
inline int64_t accumulatorRegs(int64_t bn, int64_t parts = 1) {
  return bn / 2 * parts;
}

/// Registers a producer warpgroup keeps when one of its threads issues every
/// TMA load of a stage (CUTLASS's warp-specialized kernels keep 40); the
/// consumers take the rest (setmaxnreg).
inline constexpr int64_t kTmaProducerRegs = 40;
/// ... and when it also finds which tiles its cluster partner shares and
/// chooses between half and whole loads for each (40 spilled a persistent
/// kernel's producer, whose K loop is unrolled by the stages).
inline constexpr int64_t kMulticastProducerRegs = 56;

/// The registers each consumer thread of a block of `consumers` consumer
/// warpgroups and one producer warpgroup can have once the producer keeps
/// only `producerRegs`: the block's registers at entry (ptxas gives each
/// thread registersPerThread, as .maxntid allows, when the kernel has
/// setmaxnreg) with the producer's released share split among the
/// consumers, in steps of 8 (setmaxnreg's unit), at most 256. setmaxnreg.inc
/// waits until the block's pool has what it asks, so the consumers never ask
/// for more than the producer released.
inline int64_t rebalancedConsumerRegs(int64_t consumers,
                                      int64_t producerRegs = kTmaProducerRegs) {
  int64_t entry = registersPerThread(kWarpgroupThreads * (consumers + 1));
  int64_t released = entry - producerRegs;
  return std::min<int64_t>(256, (entry + released / consumers) / 8 * 8);
}

/// Shared memory of an sm_90 SM, and what the driver reserves of it per
/// block.
inline constexpr int64_t kSharedMemoryPerSM = 233472;
inline constexpr int64_t kSharedReservedPerBlock = 1024;

/// Whether two blocks of layout `l` and `bn` columns (`parts` accumulator
/// sets) could be resident on one SM: their shared memory, and their
/// consumers' accumulators with the other registers they need.
inline bool twoBlocksFit(const Layout &l, int64_t bn, int64_t parts = 1) {
  int64_t shared = l.sharedBytes + l.barrierBytes + kSharedReservedPerBlock;
  return 2 * shared <= kSharedMemoryPerSM &&
         accumulatorRegs(bn, parts) + kOtherRegs <=
             registersPerThread(2 * l.threads);
}

/// Whether a consumer thread's accumulators and its other registers fit
/// among `threads` threads.
inline bool accumulatorsFit(int64_t bn, int64_t threads, int64_t parts = 1) {
  return accumulatorRegs(bn, parts) <= kMaxAccumulatorRegs &&
         accumulatorRegs(bn, parts) + kOtherRegs <= registersPerThread(threads);
}

} // namespace tessel::wgmma

#endif // TESSEL_TRANSFORMOPS_WGMMALAYOUT_H
