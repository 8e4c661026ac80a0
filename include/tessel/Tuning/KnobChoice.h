//===- KnobChoice.h - Knob values without a tuned record --------*- C++ -*-===//
//
// When no tuning record of a workload exists, tessel-apply-schedule picks a
// schedule's knob values by one of two documented methods
// (docs/knob-rule.md): the rule, a small model of the knob space that ranks
// every point by its estimated time on the GPU, or the nearest tuned record
// (the same schedule, dtypes and compiler on a GPU of the same
// architecture, for the shape nearest in log space). The pass then applies
// the candidates in order until one succeeds, so a shape the schedule can
// serve always gets a kernel.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_TUNING_KNOBCHOICE_H
#define TESSEL_TUNING_KNOBCHOICE_H

#include "tessel/Tuning/Database.h"
#include "tessel/Tuning/SearchSpace.h"

#include "llvm/ADT/StringRef.h"

#include <optional>

namespace tessel {

/// A contraction as the rule and the distance between records see it.
struct ProblemShape {
  int64_t m = 0, n = 0, k = 0;
  /// Batch elements (the product of the batch sizes; 1 without batch): each
  /// has its own M x N grid of blocks.
  int64_t batch = 1;
  /// "f16->f16 acc=f32": what must match between a workload and a record.
  std::string types;
  /// Bytes of an input and of an output element, from `types` (f32: 4,
  /// 16-bit types: 2).
  int64_t inBytes = 2, outBytes = 2;
  /// Copies of each operand tile a wgmma stage holds: 2 for f32 inputs
  /// at FP32-level accuracy (3xTF32's high and low parts), else 1.
  int64_t wgmmaParts = 1;
  /// B stored [n, k] (`layout=...B[n,k]` in the key): a wgmma block loads
  /// its B tile as one TMA box of any width; stored [k, n], in whole boxes
  /// of 64 columns.
  bool bKMajor = false;
  /// Whether A is stored `[m, k]` (the key's `layout=A[...,k,m]...` says
  /// otherwise).
  bool aKMajor = true;
};

/// Reads "matmul_relu 4096x4096x4096 f16->f16 acc=f32" (a tuning-database
/// workload key; a " batch=8x12" in its rest gives the batch); nullopt for
/// another form.
std::optional<ProblemShape> parseWorkloadKey(llvm::StringRef workload);

/// What the rule knows of the GPU.
struct ChipLimits {
  std::string arch;         // "sm_90": a chip without its "a" suffix.
  int64_t smCount = 132;    // Multiprocessors.
  int64_t sharedMemory = 0; // Bytes one block may use.
  int64_t sharedMemoryPerSM = 0;

  /// The blocks of clusters of `size` blocks (one block per SM) that run
  /// at once. A cluster's blocks run on SMs of one GPC, and a GPC whose SMs
  /// are not a multiple of `size` leaves the rest idle: on an H200 (132
  /// SMs in 8 GPCs), 30 clusters of 4 and 15 of 8 at once, 120 blocks
  /// (cuOccupancyMaxActiveClusters, bench/cluster_slots.py). Clusters of
  /// one or two fill every SM. Other SM counts are assumed to lose the
  /// same share, in whole clusters.
  int64_t clusterBlocks(int64_t size) const;
};

/// The most multiprocessors a `chipLimits` override may give (a GPU of
/// today has at most a few hundred).
constexpr int64_t kMaxSmCount = int64_t(1) << 16;

/// The limits of `chip` (sm_80, sm_86, sm_89, sm_90, sm_90a, ...); a
/// positive `smCount` overrides the chip's usual count (132 for an H100
/// SXM, 114 for a PCIe card, 108 for an A100).
ChipLimits chipLimits(llvm::StringRef chip, int64_t smCount = 0);

/// The architecture of a tuning-database device name, "NVIDIA H100 80GB
/// HBM3 (sm_90)" -> "sm_90"; empty when it names none.
std::string deviceArch(llvm::StringRef device);

/// Ranks the points of `space` by the rule's estimated time for `problem`
/// on `chip`, fastest first, and returns the first `limit`. Points that
/// disagree with `fixed` (knob name -> value, e.g. from knobs=) are left
/// out. Knobs the rule does not model keep their schedule default.
std::vector<Candidate>
rankByRule(const SearchSpace &space, const ProblemShape &problem,
           const ChipLimits &chip,
           const std::map<std::string, std::string> &fixed, size_t limit);

/// Why the point cannot serve `problem` on `chip`, as the rule knows the
/// schedules' constraints: the schedule would refuse it (a tile the thread
/// or warp tiles do not divide, a split of K the tile cannot share out, too
/// many threads, shared memory over the limit) or its accumulators would
/// spill; "" when the rule knows no reason (the point may still fail to
/// compile). The tuner leaves such points out of its search.
std::string whyRefused(const SearchSpace &space, const Candidate &candidate,
                       const ProblemShape &problem, const ChipLimits &chip);

/// The best record (the tuner's selection, else the fastest correct one) of
/// each workload of `db` with the same types, schedule hash and compiler as
/// `key` on a device of architecture `arch`, nearest to `problem` first
/// (distance: the sum of |log(size / record size)| over M, N and K), at
/// most `limit`; `key.workload` itself is left out when `excludeSelf`.
std::vector<const TuningRecord *>
nearestRecords(const TuningDatabase &db, const TuningKey &key,
               llvm::StringRef arch, const ProblemShape &problem, size_t limit,
               bool excludeSelf);

} // namespace tessel

#endif // TESSEL_TUNING_KNOBCHOICE_H
