//===- KnobChoice.cpp - Knob values for a shape without a tuned record ----===//

#include "tessel/Tuning/KnobChoice.h"
#include "tessel/TransformOps/MmaLayout.h"
#include "tessel/TransformOps/WgmmaLayout.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/Regex.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <unordered_set>

using namespace tessel;

/// The most batch elements a key may give (a grid's z extent): within it,
/// the rule's block counts fit in 64 bits.
static constexpr int64_t kMaxBatch = 65535;

std::optional<ProblemShape> tessel::parseWorkloadKey(llvm::StringRef workload) {
  llvm::Regex re("^[a-z_]+ ([0-9]+)x([0-9]+)x([0-9]+) (.+)$");
  llvm::SmallVector<llvm::StringRef> groups;
  if (!re.match(workload, &groups))
    return std::nullopt;
  ProblemShape p;
  if (groups[1].getAsInteger(10, p.m) || groups[2].getAsInteger(10, p.n) ||
      groups[3].getAsInteger(10, p.k))
    return std::nullopt;
  p.types = groups[4].str();
  auto [in, out] = llvm::StringRef(p.types).split("->");
  p.inBytes = in.starts_with("f32") ? 4 : 2;
  p.outBytes = out.starts_with("f32") ? 4 : 2;
  p.wgmmaParts = tessel::wgmma::operandParts(
      p.inBytes, llvm::StringRef(p.types).contains(" precision=tf32"));
  p.bKMajor = llvm::Regex(" layout=[^ ]*B\\[n,k\\]( |$)").match(p.types);
  p.aKMajor = !llvm::Regex(" layout=A\\[(b,)*k,m\\]").match(p.types);
  llvm::SmallVector<llvm::StringRef> batch;
  if (llvm::Regex(" batch=([0-9x]+)( |$)").match(p.types, &batch))
    for (llvm::StringRef size : llvm::split(batch[1], 'x')) {
      int64_t b;
      if (size.getAsInteger(10, b) || b < 1 || p.batch > kMaxBatch / b)
        return std::nullopt;
      p.batch *= b;
    }
  return p;
}

ChipLimits tessel::chipLimits(llvm::StringRef chip, int64_t smCount) {
  ChipLimits c;
  c.arch = chip.str();
  if (llvm::StringRef(c.arch).ends_with("a"))
    c.arch.pop_back();
  // Multiprocessors and shared memory (per block opt-in, per SM) of the
  // usual part of each generation: H100 SXM, A100, L40/4090-class, ...
  if (c.arch == "sm_90")
    c.smCount = 132, c.sharedMemory = 232448, c.sharedMemoryPerSM = 233472;
  else if (c.arch == "sm_80")
    c.smCount = 108, c.sharedMemory = 166912, c.sharedMemoryPerSM = 167936;
  else if (c.arch == "sm_86" || c.arch == "sm_89")
    c.smCount = c.arch == "sm_89" ? 128 : 84, c.sharedMemory = 101376,
    c.sharedMemoryPerSM = 102400;
  else
    c.smCount = 80, c.sharedMemory = 49152, c.sharedMemoryPerSM = 65536;
  if (smCount > 0)
    c.smCount = smCount;
  return c;
}

int64_t tessel::ChipLimits::clusterBlocks(int64_t size) const {
  if (size <= 1)
    return smCount;
  // At least one cluster (sm-count=1 with clusters of two once divided by
  // zero).
  if (size == 2)
    return std::max(size, smCount / 2 * 2);
  // 120 of an H200's 132 SMs, for clusters of 4 and of 8.
  return std::max(size, smCount / 11 * 10 / size * size);
}

std::string tessel::deviceArch(llvm::StringRef device) {
  size_t open = device.rfind("(sm_");
  if (open == llvm::StringRef::npos || !device.ends_with(")"))
    return "";
  std::string arch = device.drop_front(open + 1).drop_back().str();
  if (llvm::StringRef(arch).ends_with("a"))
    arch.pop_back();
  return arch;
}

namespace {

/// One point of the space, by knob name; absent knobs are std::nullopt.
/// `overrides` (knob name -> value) take precedence over the candidate's
/// values (a swapped point's tiles).
struct Point {
  const SearchSpace &space;
  const Candidate &c;
  const std::map<std::string, int64_t> *overrides = nullptr;
  std::optional<int64_t> get(llvm::StringRef name) const {
    if (overrides)
      if (auto it = overrides->find(name.str()); it != overrides->end())
        return it->second;
    for (auto [i, knob] : llvm::enumerate(space.knobs()))
      if (knob.name == name) {
        int64_t v;
        if (llvm::StringRef(knob.options[c[i]]).getAsInteger(10, v))
          return std::nullopt;
        return v;
      }
    return std::nullopt;
  }
  std::optional<int64_t> defaultOf(llvm::StringRef name) const {
    for (const Knob &knob : space.knobs())
      if (knob.name == name) {
        int64_t v;
        if (llvm::StringRef(knob.defaultValue).getAsInteger(10, v))
          return std::nullopt;
        return v;
      }
    return std::nullopt;
  }
};

constexpr double kInfeasible = std::numeric_limits<double>::infinity();
/// Blocks of a cluster at most (wgmma's split-K).
constexpr int64_t kMaxClusterSize = 8;
/// Multiply-adds a split-K block's reduction costs per element of its tile
/// (docs/knob-rule.md).
constexpr double kSplitReduceCost = 1500;
/// The multiply-adds an SM's tensor cores do (2048 per cycle, 16-bit) in the
/// time it takes in one byte of operand tiles (about 49 per cycle: 97 GB/s
/// on an H200; bench/results/hopper-v2, "Cluster slots, and the swap
/// bounds after edge tiles").
constexpr double kIngestCost = 42;
/// A wgmma block alone on its SM hides its loads' latency with its ring
/// alone: up to this many stages each one fewer costs kShallowRingCost of
/// its efficiency (docs/knob-rule.md).
constexpr int64_t kLoneBlockStages = 6;
constexpr double kShallowRingCost = 0.04;
/// ... and up to this many for 16-bit blocks whose shared memory holds
/// them (128x64, 64x128 and smaller tiles), split at most in two, of
/// operands whose rows TMA reads (16-byte aligned): 8 stages ran
/// 1.02x-1.15x faster than 6 on one-wave shapes, but 0.87x split in four,
/// 0.965x with TF32, and 0.62x where the producers' staged reads of
/// misaligned rows no longer fit beside the ring (docs/knob-rule.md).
constexpr int64_t kDeepRingStages = 8;
constexpr int64_t kDeepRingMaxSplits = 2;
/// 3xTF32: multiply-adds each K step of a block costs besides its products
/// (its consumers wait for the step's wgmma group, then add its partial in
/// FP32, before the next: docs/knob-rule.md), and the efficiency of two or
/// more consumer warpgroups, which the producer's split keeps waiting.
constexpr double kSplitF32StepCost = 3.8e5;
constexpr double kSplitF32ConsumersEfficiency = 0.85;
/// A persistent block that gains nothing over the same block not persistent
/// (one tile to walk, or misaligned rows it copies where the other reads
/// them) costs this much more: its tile loops; a TF32 block of one tile ran
/// faster persistent, and costs kTf32LoneTilePersistent
/// (docs/knob-rule.md).
constexpr double kPersistentCost = 1.04;
constexpr double kTf32LoneTilePersistent = 0.97;
/// What sharing the last partial wave's tiles costs a stream-K kernel
/// (persistent = 2), in multiply-adds: 16 us at an SM's tensor-core peak
/// (docs/knob-rule.md).
constexpr double kStreamKCost = 6e7;
/// A 16-bit matmul of at most 64 rows whose B holds at least this many
/// bytes streams B from HBM (decode layers), and estimate() orders its
/// points by how they stream B instead of by the tensor cores' model:
/// docs/knob-rule.md.
constexpr double kStreamMinBytes = 8e6;
/// ... the share of the SMs its blocks should fill at least.
constexpr double kStreamMinFill = 0.65;
/// A 16-bit matmul of a K of at most kStoreBoundMaxKSteps wgmma steps whose
/// output rows are not 4-byte aligned (16-bit, odd N), of at least
/// kStoreBoundMinRows rows, whose 64x128 tiles fill kStoreBoundMinWaves
/// waves or more, is bound by its single-element stores: estimate() ranks
/// those tiles first (docs/knob-rule.md).
constexpr int64_t kStoreBoundMaxKSteps = 4;
constexpr int64_t kStoreBoundMinRows = 256;
/// ... or, where TMA reads both operands (the rule's persistent blocks are
/// the alternative), at least this many.
constexpr int64_t kStoreBoundMinRowsAligned = 1152;
constexpr int64_t kStoreBoundMinWaves = 2;
constexpr int64_t kStoreBoundTileM = 64;
constexpr int64_t kStoreBoundTileN = 128;
/// The factor on the other points' estimates there, which puts them after
/// every such tile.
constexpr double kStoreBoundOtherTile = 1e3;
/// One wave of wgmma blocks is launched in groups of 8 block rows (group_m
/// 8) where B is the larger operand and holds at least this many bytes
/// (estimate(), "Blocks in groups").
constexpr double kOneWaveGroupMinBytes = 16e6;
/// The preference for clusters of two blocks that multicast A's tile where
/// TMA reads A's rows on 16- but not 32-byte boundaries, and for no
/// clusters elsewhere (docs/knob-rule.md).
constexpr double kClusterPreference = 0.08;
/// ... in matmuls of at least this many flops (a tiny one lost).
constexpr double kClusterMinFlops = 1e9;
/// The factor on the estimate of a swap-AB point outside swapsRows()'s
/// class (estimate()), which puts it after every point without the swap.
constexpr double kUncalibratedSwap = 1e9;
/// ... and of a point of a tile width the rule ranks last (widthFactor).
constexpr double kUncalibratedWidth = 1e9;
/// K steps up to which a 16-bit matmul counts as short (widthFactor): its
/// epilogue, not its K loop, takes most of a block's time.
constexpr int64_t kShortKSteps = 4;
/// The rows of a matmul whose swap-AB points the rule ranks first (beyond
/// 64, which the decode ordering serves): in one row of blocks up to
/// wgmma's largest N, in two up to two 160-row blocks; and the least bytes
/// of its B.
constexpr int64_t kWgmmaMaxN = 256;
constexpr int64_t kSwapMaxRows = 320;
constexpr double kSwapMinBytes = 32e6;
/// The width in which the model counts a wgmma block narrower than its tile
/// (estimate(): its tile's efficiency and its blocks along N), as the rule
/// was calibrated when blocks computed whole 32-column groups.
constexpr int64_t kModelNGranule = 32;
/// Swap-AB blocks that fill one wave (waveSwapPoint): 128 weight rows wide
/// (two consumer warpgroups), M in at most three rows of blocks, filling at
/// least this share of the SMs.
constexpr int64_t kWaveSwapColumns = 128;
/// The tile_m values it tries, narrowest first (the schedule's options
/// below 128 that wgmma's N serves); those above kWaveSwapTwoRowsMax only in
/// three rows of blocks (289-336 rows of M).
constexpr int64_t kWaveSwapTileRows[] = {64, 96, 104, 112};
constexpr int64_t kWaveSwapTwoRowsMax = 96;
constexpr int64_t kWaveSwapMinRows = 128;
constexpr int64_t kWaveSwapMaxRowBlocks = 3;
constexpr double kWaveSwapMinFill = 0.8;
/// Where no such point exists, K split in two, in three rows of blocks, for
/// a K of at least kWaveSwapSplitMinK, filling at least
/// kWaveSwapSplitMinFill of the SMs.
constexpr int64_t kWaveSwapSplitMinK = 6144;
constexpr double kWaveSwapSplitMinFill = 0.7;
/// The most elements of one matrix (M x K, K x N or M x N) the rule
/// estimates (2^40: no GPU holds more) and the largest knob value it
/// models: within these, its products (blocks, shared memory) fit in 64
/// bits.
constexpr int64_t kMaxModeledElements = int64_t(1) << 40;
constexpr int64_t kMaxModeledKnob = int64_t(1) << 16;
/// The most points the rule estimates, enough for every point of the
/// shipped schedules' spaces (304,128 at most, the wgmma schedule's since
/// its 22 tile widths: 0.24 s for the rule; sampled, the rule missed points
/// it picks from the whole space, 128x4096x4096 f16's 128x64 split in two,
/// and with 2^17 changed 739 of 1158 layers' picks at random). Six knobs
/// of 16 options (16.7M points) kept tessel-apply-schedule busy for 78 s.
constexpr uint64_t kMaxRankedPoints = uint64_t(1) << 19;

/// Whether the rule may rank swap-AB points of `s` first at all: a 16-bit
/// matmul on operands TMA reads (16-byte aligned rows), unbatched, with a B
/// of kSwapMinBytes or more (swapsRows, waveSwapPoint).
bool swapEligible(const ProblemShape &s) {
  auto aligned = [&](int64_t elems) { return (elems * s.inBytes) % 16 == 0; };
  return s.inBytes == 2 && s.wgmmaParts == 1 && s.batch == 1 &&
         double(s.n) * double(s.k) * double(s.inBytes) >= kSwapMinBytes &&
         aligned(s.k) && aligned(s.n) && aligned(s.m);
}

/// The swap-AB point of `s` whose blocks fill one wave, if there is one:
/// the narrowest of kWaveSwapTileRows (wgmma's N) that lays M (more than
/// kWaveSwapMinRows) out in at most kWaveSwapMaxRowBlocks rows of blocks
/// kWaveSwapColumns weight rows wide, between kWaveSwapMinFill and all of the
/// SMs in one wave; else, with K split in two, in three rows of blocks
/// between kWaveSwapSplitMinFill and all of them, where the rule does not
/// rank the other swapped points first (swapsRows). Each block has two
/// consumer warpgroups and a ring of 8 stages; cuBLASLt runs such tiles
/// there (128x96 at 272-288 x 5120 x 13824, its 128x64 at 176 rows).
/// Measured on an H200 (bench/results/hopper-v2, "Swapped rows of 96"):
/// 1.190x the previous rule's kernels on 67 layers of 136-288 rows
/// (0.947x-1.368x) and 1.156x on 36 held-out ones; where three rows fill 84
/// of 132 SMs (264 x 3584) the 160x64 blocks ran 1.04x faster, and four
/// rows of blocks lost (0.68x-0.98x). Three rows of 104 or 112 (289-336
/// rows, cuBLASLt's 128x104 and 128x112 there) ran 1.065x the previous
/// picks with 6 stages on 34 layers (8 do not fit; 7 ran 1.008x as fast as
/// 6: "Ring position"); two rows of them ran 0.93x-1.08x
/// the one row of 64-row swapped blocks that already fills the wave at
/// 193-224 x 6784-8448 ("Blocks of 8-column groups"). Split in two, three
/// rows of 64- to 112-row blocks ran 1.057x the previous picks on 63
/// case-file layers of 136-320 x 2048-4096 (0.916x-1.184x; 0.918x -> 0.970x
/// of cuBLASLt) and 1.033x on 19 drawn at random; in two rows of blocks, or
/// where the previous pick was a swapped 160x64 block split in two
/// (swapsRows), they ran 0.954x ("Swapped blocks split in two").
bool swapsRows(const ProblemShape &s, const ChipLimits &chip);
struct WaveSwap {
  int64_t tileM;
  int64_t splits;
};
std::optional<WaveSwap> waveSwapPoint(const ProblemShape &s,
                                      const ChipLimits &chip) {
  if (!swapEligible(s) || s.m <= kWaveSwapMinRows)
    return std::nullopt;
  for (int64_t splits : {1, 2}) {
    if (splits > 1 && (s.k < kWaveSwapSplitMinK || swapsRows(s, chip)))
      break;
    double minFill = splits == 1 ? kWaveSwapMinFill : kWaveSwapSplitMinFill;
    for (int64_t tm : kWaveSwapTileRows) {
      int64_t rows = llvm::divideCeil(s.m, tm);
      if ((tm > kWaveSwapTwoRowsMax || splits > 1) &&
          rows < kWaveSwapMaxRowBlocks)
        continue;
      int64_t blocks = rows * llvm::divideCeil(s.n, kWaveSwapColumns) * splits;
      if (rows <= kWaveSwapMaxRowBlocks && blocks <= chip.smCount &&
          double(blocks) >= minFill * double(chip.smCount))
        return WaveSwap{tm, splits};
    }
  }
  return std::nullopt;
}

/// Whether the rule ranks the swap-AB points of `s` first (besides the
/// point that fills one wave, waveSwapPoint): a matmul swapEligible, and
/// - 65 to 256 rows whose last 64-row warpgroup would be at most half full
///   unswapped (M % 64 in 1..32), or
/// - 257 to kSwapMaxRows rows: two rows of 160-row blocks, where the
///   unswapped kernels take three rows of 128 or five of 64.
/// Measured on an H100 (bench/results/hopper-v2, "Swap-AB"): on 25 layers
/// that played no part in choosing the first class (M of 88 to 216), the
/// swapped kernels the rule picks ran 1.088x the unswapped ones in
/// geometric mean (0.949x-1.664x, 23 at 0.98x or more), 1.093x on all 66
/// such layers measured; the second class's picks ran 1.246x the
/// unswapped rule's kernels on the 37 layers of 264-320 rows it was drawn
/// from and 1.306x (1.060x-1.705x) on 25 layers of five other weights. At
/// other row counts (112, 128, 176, 192, 240, 256, 352-512) swapped points
/// ran 0.36x-1.31x, mostly slower, so those keep the unswapped kernels.
/// In the second class the swap must not add work per SM: the swapped
/// blocks' waves times their area (2 rows of 160 x tile_n) at most the
/// unswapped ones' (3 rows of 128 x tile_n), each at its best tile_n.
/// Since edge tiles load only the rows that exist, 3 rows of 128 are no
/// longer slow for their 16-row third: on an H200, 264-320 x 5120 x 13824
/// and x 5120 x 5120 (80 swapped 160x128 blocks against 120 unswapped
/// 128x128 ones, one wave each) ran 1.13x faster unswapped, eight held-out
/// weights 1.00x-1.18x. Ties swap: 13824x5120 ran 0.77x unswapped
/// (bench/results/hopper-v2, "Cluster slots, and the swap bounds after
/// edge tiles").
bool swapsRows(const ProblemShape &s, const ChipLimits &chip) {
  int64_t residue = s.m % 64;
  // The least of waves x tile area over the class's tile widths, for
  // `rows` rows of blocks `height` rows high.
  auto perSMWork = [&](int64_t rows, int64_t height) {
    int64_t best = std::numeric_limits<int64_t>::max();
    for (int64_t tn : {64, 128, 192, 256}) {
      int64_t blocks = rows * llvm::divideCeil(s.n, tn);
      int64_t waves = llvm::divideCeil(blocks, chip.smCount);
      best = std::min(best, waves * height * tn);
    }
    return best;
  };
  bool rows = s.m > kWgmmaMaxN ? s.m <= kSwapMaxRows &&
                                     perSMWork(2, 160) <= perSMWork(3, 128)
                               : s.m > 64 && residue >= 1 && residue <= 32;
  return swapEligible(s) && rows;
}

/// The factor on the rule's estimate of a wgmma point whose tile_n lies
/// between the widths its model was fitted on (64, 128, 160, 192, 256):
/// 1 where widths of whole 8-column groups were measured to let the tiles
/// fill their last wave (on an H200, 512x11008x4096 in 128x168 blocks, two
/// waves of 132, ran 1.10x the 128x192 persistent ones; docs/knob-rule.md,
/// "Tiles that fill their waves"): 16-bit blocks of two or more consumer
/// warpgroups' rows of M (128 or more), the last row of blocks at least half
/// full, more than kShortKSteps K steps. kUncalibratedWidth elsewhere, after
/// every other point, which the tuner still measures: there the rule's
/// picks of such widths ran 0.71x-0.99x the fitted ones (64-row blocks,
/// decode layers, a short K, 264-320 rows in three rows of 128), and f32
/// and batched contractions were not measured.
double widthFactor(const Point &p, const ProblemShape &s) {
  std::optional<int64_t> tm = p.get("tile_m"), tn = p.get("tile_n");
  bool wgmma = p.get("stages") && !p.get("tile_k") && !p.get("thread_m") &&
               !p.get("warp_m");
  if (!wgmma || !tm || !tn || *tm < 1 || p.get("swap_ab").value_or(0) != 0 ||
      llvm::is_contained({64, 128, 160, 192, 256}, *tn))
    return 1;
  int64_t rows = std::min(*tm, int64_t(llvm::alignTo(s.m, 64)));
  int64_t lastRows = s.m % rows;
  bool filled = lastRows == 0 || 2 * lastRows >= rows;
  int64_t kSteps = llvm::divideCeil(s.k, tessel::wgmma::tileK(s.inBytes));
  return s.inBytes == 2 && s.batch == 1 && rows >= 128 && filled &&
                 kSteps > kShortKSteps
             ? 1
             : kUncalibratedWidth;
}

/// The rule's estimate (arbitrary units) of a point's time; kInfeasible for
/// points that break a constraint the rule knows, with the constraint in
/// `why` where the schedule would refuse the point or the kernel would spill
/// (left empty for points outside the rule's model). docs/knob-rule.md
/// explains each term.
double estimate(const Point &p, const ProblemShape &s, const ChipLimits &chip,
                std::string *why = nullptr) {
  auto refuse = [&](const llvm::Twine &reason) {
    if (why)
      *why = reason.str();
    return kInfeasible;
  };
  auto roundUp = [](int64_t x, int64_t g) -> int64_t {
    return llvm::alignTo(x, g);
  };
  // A problem with nothing to compute has no best point (the schedule
  // reports its empty loop, located); sizes and knob values in range keep
  // the integer terms below from dividing by zero or overflowing.
  auto fits = [](int64_t rows, int64_t cols) {
    return rows <= kMaxModeledElements / cols;
  };
  if (s.m < 1 || s.n < 1 || s.k < 1 || s.batch < 1 || s.batch > kMaxBatch ||
      !fits(s.m, s.k) || !fits(s.k, s.n) || !fits(s.m, s.n))
    return kInfeasible;
  // Swap-AB (wgmma): the block computes the transposed tile of the
  // transposed problem, C^T = B^T A^T, so its constraints and its estimate
  // are that problem's with tile_m and tile_n exchanged. The rule ranks
  // swapped points by that estimate only where the swap was measured to
  // pay (swapsRows): elsewhere after every other feasible point, which the
  // tuner still measures.
  if (std::optional<int64_t> swap = p.get("swap_ab"); swap && *swap != 0) {
    if (*swap != 1)
      return refuse(llvm::formatv("swap_ab={0} is not 0 or 1", *swap));
    std::map<std::string, int64_t> swapped = {{"swap_ab", 0}};
    if (std::optional<int64_t> tm = p.get("tile_m"))
      swapped["tile_n"] = *tm;
    if (std::optional<int64_t> tn = p.get("tile_n"))
      swapped["tile_m"] = *tn;
    ProblemShape t = s;
    std::swap(t.m, t.n);
    t.aKMajor = s.bKMajor;
    t.bKMajor = s.aKMajor;
    std::string inner;
    double time = estimate(Point{p.space, p.c, &swapped}, t, chip, &inner);
    if (time == kInfeasible) {
      if (!inner.empty())
        return refuse("swap_ab=1 (the transposed tile: tile_m and tile_n "
                      "trade roles): " +
                      inner);
      return kInfeasible;
    }
    int64_t tm = p.get("tile_m").value_or(0), tn = p.get("tile_n").value_or(0);
    int64_t splits = p.get("split_k").value_or(1);
    int64_t stages = p.get("stages").value_or(0);
    // The point that fills one wave ranks first wherever it exists; the
    // other swapped points only in swapsRows' class, so that knobs= which
    // leave it out (tile_n=64, split_k=2) get the previous ranking.
    std::optional<WaveSwap> wave = waveSwapPoint(s, chip);
    bool wavePoint = wave && tm == wave->tileM && tn == kWaveSwapColumns &&
                     splits == wave->splits;
    if (!wavePoint && !swapsRows(s, chip))
      return time * kUncalibratedSwap;
    if (tm < 1 || tn < 1)
      return kInfeasible;
    // In that class the swapped blocks stream the weight (B) and the
    // points are ordered as the measurements ranked them, each criterion
    // outweighing the later ones together: the point that fills one wave
    // (waveSwapPoint) where there is one; else M in the fewest rows of blocks
    // (one up to wgmma's largest N), in the narrowest tile_m that gives
    // them; the blocks in as few waves as possible, filling the last one;
    // no split where a split adds nothing; the narrowest tile_n; the
    // deepest ring up to 8 stages; no persistent blocks or clusters, and
    // block groups of 8 rows where there are several rows of blocks, not
    // split (the blocks that read the same weight tile run together:
    // 1.05-1.13x at 264-320 rows; split in two, 0.92-1.01x), none
    // otherwise. The result is below every other point's estimate, so it
    // ranks first.
    int64_t rowBlocks = llvm::divideCeil(s.m, tm);
    int64_t fewestRowBlocks = llvm::divideCeil(s.m, kWgmmaMaxN);
    bool severalRows = rowBlocks > 1;
    double order = 0;
    if (wave && !wavePoint)
      order += 1e5;
    if (!wavePoint) {
      // (64 or 128 columns split at most in two; in several rows of blocks
      // 64, 128 or 192 unsplit: what was measured.)
      if (rowBlocks > fewestRowBlocks ||
          (tn != 64 && tn != 128 && !(severalRows && tn == 192)) ||
          splits > (severalRows ? 1 : 2))
        order += 1000;
      order += 1e-3 * tm;
      int64_t blocks = rowBlocks * llvm::divideCeil(s.n, tn) * splits;
      int64_t waves = llvm::divideCeil(blocks, chip.smCount);
      order += 10.0 * double(waves - 1) +
               (1.0 - double(blocks) / double(waves * chip.smCount));
      order += 1e-2 * double(splits - 1) + 1e-3 * double(tn / 64 - 1);
    }
    order += 1e-4 * double(std::abs(stages - 8));
    if (p.get("persistent").value_or(0) || p.get("cluster").value_or(1) != 1 ||
        p.get("group_m").value_or(1) != (severalRows && splits == 1 ? 8 : 1))
      order += 100;
    return 1e-9 * (1.0 + order);
  }
  for (llvm::StringRef name : {"tile_m", "tile_n", "tile_k", "thread_m",
                               "thread_n", "warp_m", "warp_n", "stages"})
    if (std::optional<int64_t> v = p.get(name);
        v && (*v < 1 || *v > kMaxModeledKnob))
      return kInfeasible;
  if (std::optional<int64_t> pad = p.get("padding");
      pad && (*pad < 0 || *pad > kMaxModeledKnob))
    return kInfeasible;
  int64_t tm = p.get("tile_m").value_or(roundUp(s.m, 16));
  int64_t tn = p.get("tile_n").value_or(roundUp(s.n, 16));
  if (tm <= 0 || tn <= 0)
    return kInfeasible;
  // Tensor-core schedules (warp tiles, or wgmma's stages without tile_k)
  // compute whole 16-row granules; a tile larger than its dimension is one
  // tile of the dimension's size.
  std::optional<int64_t> thm = p.get("thread_m"), thn = p.get("thread_n");
  bool simt = thm && thn;
  std::optional<int64_t> wm = p.get("warp_m"), wn = p.get("warp_n");
  bool wgmma = !simt && !wm && p.get("stages") && !p.get("tile_k");
  // wgmma blocks compute whole warpgroups of 64 rows and whole groups of
  // kWgmmaNGranule columns (more with split-K or clusters: blockColumns);
  // the model counts a block narrower than its tile (N below tile_n) in
  // whole kModelNGranule columns, as it was calibrated (below).
  int64_t granule = simt ? 1 : (wgmma ? 64 : 16);
  int64_t nGranule = wgmma ? kModelNGranule : granule;
  int64_t em = std::min(tm, roundUp(s.m, granule));
  int64_t en = std::min(tn, roundUp(s.n, nGranule));
  // Blocks along N (grid x) and all of them.
  int64_t gx = llvm::divideCeil(s.n, en);
  int64_t blocks = llvm::divideCeil(s.m, em) * gx * s.batch;
  int64_t tk =
      p.get("tile_k").value_or(wgmma ? tessel::wgmma::tileK(s.inBytes) : 16);
  int64_t kSteps = llvm::divideCeil(s.k, tk);
  int64_t stages = p.get("stages").value_or(1);
  // Split-K (wgmma): the K steps shared out among the blocks of a cluster.
  int64_t splits = p.get("split_k").value_or(1);
  if (splits < 1 || splits > kMaxClusterSize)
    return refuse(llvm::formatv("split_k={0} is outside [1, {1}]", splits,
                                kMaxClusterSize));
  if (splits > 1 && !wgmma)
    return refuse(llvm::formatv("split_k={0}: only the wgmma schedule "
                                "splits K",
                                splits));
  // Clusters of two blocks that multicast shared operand tiles (wgmma).
  int64_t cluster = p.get("cluster").value_or(1);
  if (cluster != 1 && cluster != 2)
    return refuse(llvm::formatv("cluster={0} is not 1 or 2", cluster));
  if (cluster > 1 && !wgmma)
    return refuse(llvm::formatv("cluster={0}: only the wgmma schedule "
                                "multicasts",
                                cluster));
  // Rows that are not 16-byte aligned, which TMA cannot read (copied, or
  // read by the producers), as stored: A's are K long, or M for an A
  // stored [k, m]; B's N long, or K for a B stored [n, k] (a Linear
  // layer's weight).
  int64_t aRowBytes = (s.aKMajor ? s.k : s.m) * s.inBytes;
  int64_t bRowBytes = (s.bKMajor ? s.k : s.n) * s.inBytes;
  bool misalignedA = aRowBytes % 16 != 0;
  bool misalignedB = bRowBytes % 16 != 0;

  // The columns a block computes, and those its time is modeled with: a
  // wgmma K step narrower than 64 columns takes about as long as a
  // 64-column one (its instructions wait on issue and the loads, not the
  // tensor cores). 32-column blocks ran 1.0x-1.2x faster than 64-column
  // ones with the same knobs, but modeled at their width they won the
  // rule's picks from deeper splits of 64 columns, and a split of K in 4
  // instead of 8 lost 0.71x-0.94x on thin shapes with a long K (H100,
  // bench/results/hopper-v2, "128x160 tiles"). For the same reason the
  // tile's efficiency counts a narrow N (5 columns) in whole 32-column
  // groups, not the 8 the block computes: at 8 it made splits of K in 8
  // the rule's pick on such shapes. Where the producers may read B's
  // misaligned rows or split its tiles (3xTF32), blocks compute whole
  // 32-column groups.
  bool readsB = s.wgmmaParts > 1 || misalignedB;
  int64_t blockN =
      wgmma ? tessel::wgmma::blockColumns(
                  std::min(tn, roundUp(s.n, tessel::wgmma::kWgmmaNGranule)),
                  splits, cluster,
                  readsB ? tessel::wgmma::kWgmmaReadNGranule
                         : tessel::wgmma::kWgmmaNGranule)
            : roundUp(en, granule);
  int64_t modelN = wgmma ? std::max<int64_t>(blockN, 64) : blockN;
  // Persistent blocks (wgmma): each walks several tiles; with stream-K
  // (persistent = 2) the last partial wave's tiles are shared out along K.
  int64_t persistentKnob = p.get("persistent").value_or(0);
  bool persistent = persistentKnob >= 1;
  bool streamK = persistentKnob == 2;

  // Constraints the schedules check (the dry run is the final judge).
  int64_t threads = 128;
  int64_t smem = 0;
  // Whether one block takes an SM: more than half its shared memory with a
  // ring of kLoneBlockStages or more (wgmma). Only the split blocks of a
  // decode layer's rows ask (cluster slots, below).
  bool wholeSM = false;
  if (simt) {
    if (*thm <= 0 || *thn <= 0 || tm % *thm || tn % *thn)
      return refuse(llvm::formatv("thread_m={0}, thread_n={1} do not divide "
                                  "tile_m={2}, tile_n={3}",
                                  *thm, *thn, tm, tn));
    threads = llvm::divideCeil(std::min(tm, s.m), *thm) *
              llvm::divideCeil(std::min(tn, s.n), *thn);
  } else if (wm && wn) {
    int64_t bm = roundUp(em, *wm), bn = roundUp(en, *wn);
    // A warp's accumulators live in registers: 64x64 f32 is 128 per
    // thread; more spills.
    if (*wm > tm || *wn > tn || tm % *wm || tn % *wn)
      return refuse(llvm::formatv("warp_m={0}, warp_n={1} do not divide "
                                  "tile_m={2}, tile_n={3}",
                                  *wm, *wn, tm, tn));
    if (*wm * *wn / 32 > 128)
      return refuse(llvm::formatv("warp_m={0} x warp_n={1}: {2} f32 "
                                  "accumulators per thread spill",
                                  *wm, *wn, *wm * *wn / 32));
    threads = 32 * (bm / *wm) * (bn / *wn);
    // Each thread copies whole 16-byte pieces of the A and B tiles.
    int64_t copyElems = 16 / s.inBytes;
    if (threads <= 1024 &&
        ((bm * tk / copyElems) % threads || (tk * bn / copyElems) % threads))
      return refuse(llvm::formatv("the {0}x{1} A tile and {1}x{2} B tile do "
                                  "not split into 16-byte copies evenly "
                                  "among {3} threads",
                                  bm, tk, bn, threads));
    // Each operand is staged as stored, its rows padded.
    int64_t pad = p.get("padding").value_or(8);
    smem = stages *
           (tessel::mma::stageElems(s.aKMajor, bm, tk, pad) +
            tessel::mma::stageElems(s.bKMajor, bn, tk, pad)) *
           s.inBytes;
    if (p.get("stage_output").value_or(0))
      smem += bm * (bn + 8) * 2;
    // Fewer K steps than stages cannot be pipelined, except one step,
    // which is not pipelined at all
    // (transform.tessel.pipeline_shared_memory_copies).
    if (kSteps > 1 && kSteps < stages)
      return refuse(llvm::formatv("stages={0} exceeds the {1} K steps of "
                                  "tile_k={2}",
                                  stages, kSteps, tk));
  } else if (wgmma) {
    // The block the rewrite builds: its threads and shared memory, and
    // accumulators that must fit the registers, or the kernel spills.
    int64_t bm = roundUp(em, 64), bn = blockN;
    // With an MN-major B, a tile_n that is not a multiple of 64 (whose last
    // 32 columns are half a 128-byte swizzle row of B) ran slower: 128x160
    // 0.86x-0.96x as fast as 128x128 or the wider tiles on five shapes
    // where it was 1.03x-1.11x faster with B stored [n, k] (H100,
    // bench/results/hopper-v2, "128x160 tiles"). The rule leaves such
    // points to the tuner.
    if (!s.bKMajor && tn % tessel::wgmma::kBoxN != 0)
      return kInfeasible;
    // Rows come in whole 64-row warpgroups: a tile_m of 160 (wgmma's N
    // with swap_ab = 1) would compute 192.
    if (tm % 64 != 0 && s.m > tm)
      return refuse(llvm::formatv("tile_m={0} is not a whole number of "
                                  "64-row warpgroups (it serves swap_ab=1, "
                                  "where tile_m runs along wgmma's N)",
                                  tm));
    // A persistent block stages its output after the ring.
    tessel::wgmma::Layout layout = tessel::wgmma::computeLayout(
        bm, bn, s.outBytes, stages, 1, 0, splits, s.wgmmaParts, persistent,
        s.bKMajor);
    threads = layout.threads;
    smem = layout.sharedBytes + layout.barrierBytes;
    if (s.m <= 64 && splits > 2) {
      int64_t deepest = smem;
      if (stages < kLoneBlockStages) {
        tessel::wgmma::Layout deep = tessel::wgmma::computeLayout(
            bm, bn, s.outBytes, kLoneBlockStages, 1, 0, splits, s.wgmmaParts,
            persistent, s.bKMajor);
        deepest = deep.sharedBytes + deep.barrierBytes;
      }
      wholeSM = 2 * deepest > chip.sharedMemoryPerSM;
    }
    if (!tessel::wgmma::accumulatorsFit(bn, threads, s.wgmmaParts))
      return refuse(llvm::formatv(
          "tile_n={0}: {1} f32 accumulators per consumer thread do not fit "
          "the registers of {2} threads",
          bn, tessel::wgmma::accumulatorRegs(bn, s.wgmmaParts), threads));
    // Each block of a cluster stores bn / 8 / splits of the tile's 8-column
    // groups (blockColumns rounds bn to them) and takes at least one K step.
    if (splits > kSteps)
      return refuse(
          llvm::formatv("split_k={0} exceeds the {1} K steps", splits, kSteps));
    if (persistent && splits > 1)
      return refuse(llvm::formatv("persistent={0} with split_k={1}: a "
                                  "persistent kernel does not split K",
                                  persistentKnob, splits));
    if (persistent && s.wgmmaParts > 1)
      return refuse(llvm::formatv("persistent={0}: 3xTF32 (f32 at FP32 "
                                  "accuracy) is not persistent",
                                  persistentKnob));
    if (streamK && cluster > 1)
      return refuse(llvm::formatv("persistent=2 (stream-K) with cluster={0}: "
                                  "stream-K blocks share K steps, not "
                                  "operand tiles",
                                  cluster));
    if (cluster > 1) {
      int64_t gy = llvm::divideCeil(s.m, em);
      if (splits > 1)
        return refuse(llvm::formatv("cluster=2 with split_k={0}: split-K "
                                    "has clusters of its own",
                                    splits));
      if (s.wgmmaParts > 1)
        return refuse("cluster=2: 3xTF32 (f32 at FP32 accuracy) does not "
                      "multicast");
      if (persistent ? (gx * gy * s.batch) % 2 != 0
                     : gx % 2 != 0 && gy % 2 != 0)
        return refuse(llvm::formatv(
            "cluster=2: the {0} x {1} tiles{2} do not pair", gx, gy,
            s.batch > 1 ? llvm::formatv(" x {0}", s.batch).str() : ""));
    }
  }
  if (threads > 1024 || threads < 1)
    return refuse(
        llvm::formatv("{0} threads per block (at most 1024)", threads));
  if (smem > chip.sharedMemory)
    return refuse(llvm::formatv("{0} bytes of shared memory per block ({1} "
                                "allows {2})",
                                smem, chip.arch, chip.sharedMemory));

  // Each SM works through its share of the blocks (the slowest SM's share
  // is the time): with the tensor cores or FMA units busy, blocks resident
  // together on an SM share them, so occupancy hides latency but adds no
  // throughput.
  // A cluster's blocks run at once on SMs of one GPC: count the blocks of
  // whole clusters a wave holds at one block per SM
  // (ChipLimits::clusterBlocks), blocks beyond them sharing SMs. Split in
  // 4, 112x5120x13824 bf16 in 128x160 tiles (32 clusters where 30 run at
  // once) ran 72.3 us on an H200, in 128x192 tiles (27 clusters) 53.5 us.
  // Except the small blocks of a decode layer's rows (at most 64, two
  // blocks fit on an SM with a ring of kLoneBlockStages, whatever ring the
  // point gives them): two such blocks on an SM overlap their loads'
  // latency, and they fill the SMs the clusters leave. Counted at one
  // block per SM, 28 decode layers (1-64 x 1024-2048 x 8192-16384) took
  // other splits that ran 0.84x-0.99x as fast (bench/results/hopper-v2,
  // "Cluster slots").
  blocks *= splits;
  bool sharesSM = !wholeSM && s.m <= 64;
  int64_t perSM = llvm::divideCeil(
      blocks, sharesSM
                  ? std::max<int64_t>(splits, chip.smCount / splits * splits)
                  : chip.clusterBlocks(splits));

  // A decode layer (wgmma, 16-bit, at most 64 rows, B of kStreamMinBytes
  // or more) waits on HBM, not on its tensor cores: what counts is that
  // its blocks fill the SMs in one wave, each with a deep ring. Measured on
  // an H100 over 13 such layers x 42 knob points
  // (bench/results/hopper-v2, "The rule's picks for decode layers"), the
  // fastest points: blocks between kStreamMinFill and all of the SMs,
  // 128-column tiles, no split unless it fills the SMs (splits of 4 lost),
  // 8 stages where they fit (no more than the block's K steps); 64-row
  // tiles, not persistent, no clusters.
  // The points are ordered by those criteria in turn (each term outweighs
  // the sum of the later ones). Only where 64-column tiles split in two
  // can fill that share of the SMs (N of about 2750 or more on an H100)
  // and TMA reads A and B (rows on 16-byte boundaries): narrower layers,
  // which need deeper splits, were not measured, and on rows that are
  // copied or read by the producers the ordering lost (63x13566x4846 f16:
  // 134 -> 151 us); both keep the tensor cores' model.
  bool decodeLayer =
      wgmma && s.inBytes == 2 && s.wgmmaParts == 1 && s.m <= 64 &&
      s.batch == 1 && !misalignedA && !misalignedB &&
      double(s.k) * s.n * s.inBytes >= kStreamMinBytes &&
      2.0 * double(llvm::divideCeil(s.n, 64)) >=
          kStreamMinFill * double(chip.smCount);
  if (decodeLayer) {
    double fill = double(blocks) / double(chip.smCount);
    bool inRange = fill >= kStreamMinFill && fill <= 1.0;
    double order = 0;
    if (splits > 2 || persistent || cluster != 1)
      order += 1000;
    if (inRange)
      order += (tn != 128) * 1.0 + (splits - 1) * 0.3 - 0.1 * fill;
    else if (fill <= 1.0)
      order += 10.0 - 5.0 * fill + (tn != 128) * 0.01 + (splits - 1) * 0.005;
    else
      order += 20.0 + fill;
    int64_t depth = std::min<int64_t>(8, llvm::divideCeil(kSteps, splits));
    order += 1e-3 * double(std::abs(stages - depth)) +
             1e-4 * std::log2(double(tm) / 64.0) +
             1e-4 * (p.get("group_m").value_or(1) != 1);
    return 1.0 + order;
  }

  // Store-bound short K (kStoreBoundMaxKSteps): with 2-byte output rows the
  // epilogue stores single elements, and the block's few K steps hide
  // nothing of it. Blocks of 64x128, several to an SM, overlap one block's
  // stores with the others' loads; the model's fixed cost per block, which
  // favors one wave of the largest tiles (128x192, 192x192, 128x256), does
  // not see that. Measured on an H200, the build before against this one
  // (bench/results/any-shape, "Short K, odd N: 64x128 blocks", 2026-11-29;
  // relu(A x B) with B [k, n], Linear layers with a bias): 1.276x in
  // geometric mean on the 39 shapes the class was fitted on (0.91x-2.13x),
  // 1.112x on 50 held out (0.86x-2.21x; 1.063x on the last 29). Elsewhere
  // 64x128 lost: 0.72x-0.78x on 7 shapes whose output rows are 4-byte
  // aligned, 0.91x in geometric mean on 8 Linear layers of aligned rows
  // and 380-1135 rows (kStoreBoundMinRowsAligned; there the rule's
  // persistent blocks are the alternative), and mixed below two waves. Not
  // persistent (those ran 0.69x-0.71x with 2-byte output rows), not split,
  // no clusters.
  int64_t storeBoundTiles = llvm::divideCeil(s.m, kStoreBoundTileM) *
                            llvm::divideCeil(s.n, kStoreBoundTileN);
  bool storeBound =
      wgmma && s.inBytes == 2 && s.outBytes == 2 && s.wgmmaParts == 1 &&
      s.batch == 1 && kSteps <= kStoreBoundMaxKSteps &&
      (s.n * s.outBytes) % 4 != 0 &&
      s.m >= (misalignedA || misalignedB ? kStoreBoundMinRows
                                         : kStoreBoundMinRowsAligned) &&
      storeBoundTiles >= kStoreBoundMinWaves * chip.smCount;
  double storeBoundFactor = 1.0;
  if (storeBound && !(tm == kStoreBoundTileM && tn == kStoreBoundTileN &&
                      splits == 1 && !persistent && cluster == 1))
    storeBoundFactor = kStoreBoundOtherTile;

  // One block's work (whole granules of M and N, whole K steps) over the
  // efficiency of its tile: operand traffic per multiply-add falls as
  // 1/tm + 1/tn (per thread tile for SIMT).
  double work = double(roundUp(em, granule)) * modelN *
                double(llvm::divideCeil(kSteps, splits) * tk);
  // wgmma multiplies TF32 at half the rate of 16-bit types: twice the time
  // per multiply-add, against the same fixed and split-K costs per block.
  // 3xTF32 issues three products and adds each step's partial in FP32; a
  // factor of 3 (not the 6 of its peak rate: its blocks are bound by the
  // producer's split as much as by the tensor cores) picks the fastest
  // measured point on 3 of 4 small and thin shapes of ANCHORS.md, within
  // 0.82 on the fourth (H100, bench/results/f32/README.md, "split-K").
  bool splitsF32 = wgmma && s.inBytes == 4 && s.wgmmaParts == 2;
  if (wgmma && s.inBytes == 4)
    work *= splitsF32 ? 3.0 : 2.0;
  double efficiency = simt ? 1.0 / (1.0 + 2.0 * (1.0 / *thm + 1.0 / *thn) +
                                    8.0 * (1.0 / em + 1.0 / en))
                           : 1.0 / (1.0 + 32.0 * (1.0 / em + 1.0 / en));
  if (wm && wn)
    efficiency /= 1.0 + 8.0 * (1.0 / *wm + 1.0 / *wn);
  // SIMT blocks read A and B straight from global memory and need about a
  // thousand threads per SM to hide its latency: a small problem is better
  // served by small thread tiles, and so more threads.
  if (simt) {
    int64_t resident =
        std::min(perSM, std::max<int64_t>(1, 2048 / threads)) * threads;
    efficiency *= std::min(1.0, double(resident) / 1024.0);
  }
  // wgmma, calibrated on an H100's tuning records and tile pairs
  // (docs/knob-rule.md): one consumer warpgroup alone on an SM keeps the
  // tensor cores busy about 70% of the time; three consumers, capped at
  // 128 registers each, run about 15% slower per multiply-add; and each
  // block pays a fixed cost (pipeline fill, epilogue, launch) worth about
  // 6M multiply-adds.
  double perBlock = 0;
  // How well the block's ring hides its loads' latency (wgmma): it slows
  // the multiply-adds and the operand stream alike.
  double ring = 1.0;
  if (wgmma) {
    int64_t consumers = roundUp(em, 64) / 64;
    // A persistent kernel launches one block per SM, which walks the
    // SM's tiles alone: nothing resident beside it. (Registers are not
    // counted: blocks of two or more consumers take the register file
    // whole, ptxas giving their 384 threads 168 registers each, one block
    // per SM whatever their shared memory; `resident` only matters below
    // for one consumer, whose 256 threads fit twice, and where perSM is 1.)
    int64_t resident =
        persistent ? 1
                   : std::max<int64_t>(1, std::min({perSM,
                                                    chip.sharedMemoryPerSM /
                                                        smem,
                                                    2048 / threads}));
    // 3xTF32's producer splits each stage's tiles while the consumers
    // multiply: one consumer keeps up with it (64-row tiles ran fastest on
    // the small and thin shapes, bench/results/f32/README.md).
    if (resident * consumers == 1 && !splitsF32)
      efficiency *= 0.7;
    if (consumers == 3)
      efficiency *= 0.85;
    if (splitsF32 && consumers >= 2)
      efficiency *= kSplitF32ConsumersEfficiency;
    // Fewer than 4 stages leave the tensor cores waiting for loads: at
    // 128x256, persistent blocks with 3 stages ran 0.915x-0.975x as fast as
    // with 4 on seven shapes (H200, two sessions, each against the same
    // non-persistent kernel: bench/results/persistent).
    // Two stages overlap nothing: the stage being loaded is the one the
    // consumers wait for next (448x9216x4096 f16 in 64x256 tiles with 2
    // stages ran 0.48x as fast as 64x128 with 4 on an H200,
    // bench/results/hopper-v2, "Cluster slots, and the swap bounds after
    // edge tiles").
    if (stages < 4 && kSteps > stages)
      ring *= stages <= 2 ? 0.5 : 1.0 - 0.06 * double(4 - stages);
    // A block alone on its SM (one wave, nothing resident beside it) has
    // only its ring to hide the loads' latency, and the shared memory the
    // deeper ring takes is free: the tuned records of every such shape on
    // an H100 took 6 stages where they fit, 1.05x-1.24x faster than 4 on
    // five of them (128x4096x4096, 8x8192x8192, 1024^3 bf16, 256x1024x1024
    // bf16), within 2% either way on three (docs/knob-rule.md). 3xTF32's
    // blocks wait on its producer's split instead.
    // The stages it lacks: those up to kLoneBlockStages its share of the
    // K loop could fill, counted from 4 (fewer cost the term above).
    // Blocks whose shared memory holds kDeepRingStages count up to that
    // many; the others keep kLoneBlockStages, so that the choice between
    // tiles stays as it was measured.
    if (perSM == 1 && resident == 1 && !splitsF32) {
      int64_t lone = kLoneBlockStages;
      if (s.inBytes == 2 && !misalignedA && !misalignedB &&
          splits <= kDeepRingMaxSplits) {
        tessel::wgmma::Layout deep = tessel::wgmma::computeLayout(
            roundUp(em, 64), blockN, s.outBytes,
            kDeepRingStages, 1, 0, splits, s.wgmmaParts, persistent,
            s.bKMajor);
        if (deep.sharedBytes + deep.barrierBytes <= chip.sharedMemory)
          lone = kDeepRingStages;
      }
      int64_t missing =
          std::min<int64_t>(lone, llvm::divideCeil(kSteps, splits)) -
          std::max<int64_t>(stages, 4);
      if (missing > 0)
        ring *= 1.0 - kShallowRingCost * double(missing);
    }
    perBlock = 6e6;
    // Split-K: the f32 partial tile staged and read back through
    // distributed shared memory, and two cluster barriers; the cost is
    // fitted to H100 times (bench/results/split-k), where splitting paid
    // only for thin problems with a long K.
    if (splits > 1)
      perBlock += kSplitReduceCost * roundUp(em, 64) * modelN *
                  (splitsF32 ? double(splits - 1) : 1.0);
    if (splitsF32)
      perBlock += kSplitF32StepCost * double(llvm::divideCeil(kSteps, splits));
  }
  // What an SM takes in bounds a 16-bit wgmma block's K loop: about 49
  // bytes of operand tiles per cycle, kIngestCost multiply-adds' time per
  // byte (docs/knob-rule.md, "Operand bytes per SM"). The efficiency above
  // adds that traffic to the multiply-adds; blocks that share an SM, or
  // small tiles, reach the bound first.
  double body = work / efficiency;
  if (wgmma && s.inBytes == 2)
    body = std::max(
        body, kIngestCost * double(std::min(tm, s.m) + std::min(tn, s.n)) *
                  double(llvm::divideCeil(kSteps, splits) * tk) * s.inBytes);
  body /= ring;
  double time = double(perSM) * (body + perBlock);
  // A persistent block loads its next tile's first stages while the
  // consumers finish a tile: the fixed cost is paid once per SM rather than
  // per tile. With one tile per block there is nothing to overlap, and its
  // tile loops cost a little. Measured on an H200 against the same knobs
  // (bench/results/persistent): 1.006x-1.124x on 10 shapes of several
  // tiles per SM (this model predicts 1.015x at 8192^3, 1.024x at 4096^3,
  // 1.095x at 4096x4096x1024; measured 1.015x, 1.030x, 1.124x), 0.95x-0.99x
  // on 4 of one tile per block.
  // Persistent blocks load their operands with TMA, so rows that are not
  // 16-byte aligned are copied first, where a non-persistent block may
  // read them itself (16-bit inputs, a K of at most 4 steps, or a
  // memory-bound matmul: RewriteBlockMatmulAsWgmma.cpp's default, which
  // ran 1.14x-1.42x faster than the copy, docs/any-shape.md): the rule
  // leaves those non-persistent. Except a K of at most 4 steps with an
  // operand whose rows are misaligned (B's rows are N long stored [k, n],
  // K long stored [n, k]) and an output whose rows are 4-byte aligned:
  // there the epilogue is most of a tile's time, and persistent blocks,
  // which load the next tile during it, ran 1.02x-1.21x faster than the
  // rule's non-persistent kernels (reading or copying) on 15 such shapes,
  // 1.134x in geometric mean, 1.140x on the 11 it was not fitted on (H200,
  // 2026-11-29, bench/results/any-shape, "Short K: persistent blocks"). With
  // 2-byte output rows (16-bit, odd N) they ran 0.69x-0.71x (single-element
  // stores; not shared memory: both kernels run one block per SM, their
  // 384 threads holding 168 registers each; bench/results/any-shape, "More
  // staging slots, narrower subtiles"), and a Linear layer of aligned
  // inputs and 4-byte output rows (2048x14338x96 f16) 0.89x.
  bool shortKReads = kSteps <= 4 && ((s.n * s.outBytes) % 4 != 0 ||
                                     !(misalignedA || misalignedB));
  double misalignedBytes = double(s.inBytes) * s.batch *
                           ((misalignedA ? double(s.m) * s.k : 0) +
                            (misalignedB ? double(s.k) * s.n : 0));
  bool readInKernel =
      wgmma && s.inBytes == 2 && misalignedBytes > 0 &&
      (shortKReads || 2.0 * s.m * s.n * s.k * s.batch <= 64 * misalignedBytes);
  // TF32 is the exception: its blocks of one tile ran 1.020x-1.041x
  // faster persistent on five shapes of about one wave (H100,
  // bench/results/f32/README.md, "one tile per block"), where 16-bit ones
  // gained nothing (2048^3 f16 1.001x).
  // (readInKernel is 16-bit only.)
  bool tf32 = wgmma && s.inBytes == 4 && !splitsF32;
  if (wgmma && persistent)
    time = perSM == 1 || readInKernel
               ? time * (tf32 ? kTf32LoneTilePersistent : kPersistentCost)
               : double(perSM) * body + perBlock;
  // Stream-K shares the last partial wave's tiles out along K, so the SMs
  // finish together: each works through tiles / SMs of them (not the
  // whole number above), and the sharing costs about kStreamKCost (the
  // partial tiles' round trip, the waits, the clock the busier SMs run
  // at). Fitted on 80 pairs of persistent and stream-K kernels of the same
  // 128-row tiles, 40 16-bit shapes of 0.97-3.7 waves (H200,
  // bench/results/hopper-v2, "Stream-K by the rule"): 12 us orders 74 of
  // the pairs as measured; kStreamKCost (about 15 us) gave the rule's
  // picks the most. Elsewhere its points rank just behind the same
  // persistent ones, and only the tuner picks them: whole waves; fewer
  // tiles than SMs, where a finisher adds the partials of several blocks;
  // tiles of 64 or 192 rows and swapped ones (estimated as the transposed
  // problem, through p.overrides), which lost or were not measured; TF32;
  // rows copied where a non-persistent block reads them.
  if (streamK) {
    if (wgmma && s.inBytes == 2 && !readInKernel && tm == 128 && !p.overrides &&
        blocks > chip.smCount && blocks % chip.smCount != 0)
      time = double(blocks) / double(chip.smCount) * body + perBlock +
             kStreamKCost;
    else
      time *= 1.001;
  }

  // Preferences among points of equal estimate: the pipeline depth, K step
  // and other knobs the schedule chose by default, a block order grouped by
  // 8 rows once there is more than a wave of blocks, 4x4 SIMT thread tiles
  // (the tuner's most frequent winner on an H100).
  double penalty = 0;
  auto prefer = [&](llvm::StringRef name, std::optional<int64_t> want,
                    double weight) {
    std::optional<int64_t> v = p.get(name);
    if (v && want && *v > 0 && *want > 0)
      penalty += weight * std::fabs(std::log2(double(*v) / double(*want)));
    else if (v && want && *v != *want)
      penalty += weight;
  };
  std::optional<int64_t> defaultStages = p.defaultOf("stages");
  if (defaultStages && !simt)
    prefer("stages",
           std::min<int64_t>(*defaultStages, std::max<int64_t>(kSteps, 1)),
           0.02);
  // SIMT blocks read A and B straight from global memory: 4-deep K steps
  // won most often on an H100.
  prefer("tile_k", simt ? std::optional<int64_t>(4) : p.defaultOf("tile_k"),
         simt ? 0.1 : 0.02);
  // Splitting K pays its reduction and cluster barriers: only where it
  // clearly wins.
  prefer("split_k", 1, 0.05);
  // Clusters: a pair of non-persistent blocks along a block row (group_m 1,
  // an even number of N tiles) shares A's tile, each block reading half of
  // it. Where TMA reads A's rows on 16- but not 32-byte boundaries (five
  // sectors for each 128-byte box row) in a matmul of 1 GFLOP or more,
  // that paid 1.04-1.12x on an H100 (1000^3 f16 and bf16, 600x1000x1400
  // f16), and since A's such rows are read in place at any N, 1.17x at
  // 1024x4096x3000 and 1.00x at 2000x2048x5000 (persistent blocks sharing
  // A lost 1-14% on five wider shapes; bench/results/any-shape, "Copy or
  // read"); a tiny one (74x70x184, 4 blocks) ran 0.6x as fast, and
  // elsewhere the cluster barriers and the lockstep of two blocks cost
  // 1-16% on small shapes and gained 0-4% on large ones (docs/wgmma.md,
  // "Clusters"): clusters are preferred only there.
  // A's rows run along K, or along M for an A stored [k, m], whose boxes
  // are multicast in halves along K: at 1000^3 clusters ran 1.05-1.13x
  // there too (f16 and bf16, B [k, n] and [n, k]; bench/results/any-shape,
  // "A stored [k, m] everywhere").
  bool slowRowsA = s.inBytes == 2 && aRowBytes % 32 == 16 &&
                   2.0 * s.m * s.n * s.k * s.batch >= kClusterMinFlops;
  bool halvesSlowA = wgmma && slowRowsA && !persistent && splits == 1 &&
                     p.get("group_m").value_or(1) == 1 && gx % 2 == 0;
  prefer("cluster", halvesSlowA ? 2 : 1, kClusterPreference);
  // Blocks in groups of 8 block rows, each group walked down its columns
  // (group_m 8), so that blocks launched one after another share B's tiles
  // rather than A's: once there is more than a wave of blocks, and for
  // wgmma blocks in one wave, not split, where B is the larger operand and
  // holds kOneWaveGroupMinBytes or more, except where the cluster above
  // pairs blocks along a block row (group_m 1). In one wave all blocks run
  // at once, yet the order counted on an H100: on 50 such shapes (M
  // 200-1024, N and K up to 28672; Linear layers and relu(A x B), 16 bits
  // and TF32) group_m 8 ran 1.061x faster in geometric mean (0.97x-1.24x;
  // 1.063x on the 21 held out of the choice of this rule; 512x4096x11008
  // bf16 89.2 -> 72.0 us). Elsewhere it ran 0.986x: where A is larger
  // (4341x436x3160 bf16 0.92x, 2000x1000x2048 f16 0.91x), B smaller, or K
  // split (384x4096x11008 f16 0.93x) (bench/results/linear, "Block order
  // in one wave").
  bool shareB = wgmma && splits == 1 && s.n > s.m &&
                llvm::divideCeil(s.m, em) > 1 &&
                double(s.k) * double(s.n) * s.inBytes >=
                    kOneWaveGroupMinBytes &&
                !(slowRowsA && gx % 2 == 0);
  prefer("group_m", blocks > chip.smCount || shareB ? 8 : 1, 0.01);
  prefer("padding", p.defaultOf("padding"), 0.01);
  prefer("stage_output", p.defaultOf("stage_output"), 0.01);
  // Register pressure and occupancy, which the efficiency term leaves out,
  // make 4x4 SIMT thread tiles and blocks of 128 to 256 threads win (the
  // tuner's most frequent winners on an H100). Except where an f32 output's
  // rows are not 16-byte aligned: each column is a scalar store, and a
  // thread's thread_n columns are strided across its warp. Where the stores
  // are the kernel (K within 16), keeping thread_n at 2 or less ran 1.264x
  // faster in geometric mean on 19 such shapes on an H100
  // (bench/results/any-shape/README.md, "Fourth session").
  bool scalarStores = s.inBytes == 4 && s.n % 4 != 0 && s.k <= 16;
  if (simt) {
    prefer("thread_m", 4, 0.2);
    if (!scalarStores)
      prefer("thread_n", 4, 0.2);
    else if (*thn > 2)
      penalty += std::log2(double(*thn) / 2.0);
  }
  if (simt || (wm && wn))
    penalty += 0.1 * std::fabs(std::log2(double(threads) / 256.0)) *
               (threads < 128 || threads > 256);
  return time * (1.0 + penalty) * storeBoundFactor;
}

} // namespace

std::vector<Candidate>
tessel::rankByRule(const SearchSpace &space, const ProblemShape &problem,
                   const ChipLimits &chip,
                   const std::map<std::string, std::string> &fixed,
                   size_t limit) {
  std::vector<std::pair<double, Candidate>> scored;
  // A space larger than kMaxRankedPoints is sampled: the same points on
  // every run, each once.
  uint64_t size = space.size();
  bool sample = size > kMaxRankedPoints;
  std::mt19937_64 rng(/*seed=*/1);
  std::unordered_set<uint64_t> sampled;
  for (uint64_t n = 0; n < std::min(size, kMaxRankedPoints); ++n) {
    uint64_t index = n;
    if (sample)
      do
        index = rng() % size;
      while (!sampled.insert(index).second);
    Candidate c = space.at(index);
    bool agrees = true;
    for (auto [i, knob] : llvm::enumerate(space.knobs())) {
      auto it = fixed.find(knob.name);
      agrees &= it == fixed.end() || it->second == knob.options[c[i]];
    }
    if (!agrees)
      continue;
    Point point{space, c};
    double t = estimate(point, problem, chip);
    if (t != kInfeasible)
      scored.emplace_back(t * widthFactor(point, problem), std::move(c));
  }
  std::stable_sort(
      scored.begin(), scored.end(),
      [](const auto &x, const auto &y) { return x.first < y.first; });
  std::vector<Candidate> ranked;
  for (auto &[t, c] : scored) {
    if (ranked.size() >= limit)
      break;
    ranked.push_back(std::move(c));
  }
  return ranked;
}

std::string tessel::whyRefused(const SearchSpace &space, const Candidate &c,
                               const ProblemShape &problem,
                               const ChipLimits &chip) {
  std::string why;
  estimate(Point{space, c}, problem, chip, &why);
  return why;
}

std::vector<const TuningRecord *>
tessel::nearestRecords(const TuningDatabase &db, const TuningKey &key,
                       llvm::StringRef arch, const ProblemShape &problem,
                       size_t limit, bool excludeSelf) {
  // The best record of each (workload, device) of the right kind.
  std::map<std::pair<std::string, std::string>, const TuningRecord *> best;
  for (const TuningRecord &r : db.records()) {
    if (!r.ok() || r.key.scheduleHash != key.scheduleHash ||
        r.key.compiler != key.compiler || deviceArch(r.key.device) != arch ||
        (excludeSelf && r.key.workload == key.workload))
      continue;
    std::optional<ProblemShape> shape = parseWorkloadKey(r.key.workload);
    if (!shape || shape->types != problem.types ||
        llvm::StringRef(r.key.workload).split(' ').first !=
            llvm::StringRef(key.workload).split(' ').first)
      continue;
    const TuningRecord *&slot = best[{r.key.workload, r.key.device}];
    if (!slot || (r.selected && !slot->selected) ||
        (r.selected == slot->selected && r.medianMs < slot->medianMs))
      slot = &r;
  }
  auto distance = [&](const TuningRecord *r) {
    ProblemShape s = *parseWorkloadKey(r->key.workload);
    return std::fabs(std::log(double(problem.m) / s.m)) +
           std::fabs(std::log(double(problem.n) / s.n)) +
           std::fabs(std::log(double(problem.k) / s.k));
  };
  std::vector<const TuningRecord *> records;
  for (auto &[k, r] : best)
    records.push_back(r);
  std::stable_sort(records.begin(), records.end(),
                   [&](const TuningRecord *x, const TuningRecord *y) {
                     return distance(x) < distance(y);
                   });
  if (records.size() > limit)
    records.resize(limit);
  return records;
}
