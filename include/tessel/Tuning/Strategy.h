//===- Strategy.h - Search strategies over a schedule's knobs ---*- C++ -*-===//

#ifndef TESSEL_TUNING_STRATEGY_H
#define TESSEL_TUNING_STRATEGY_H

#include "tessel/Tuning/SearchSpace.h"

#include <memory>
#include <random>
#include <set>

namespace tessel {

/// Proposes candidates to evaluate and learns from their costs. Seeded:
/// the same seed and the same observed costs give the same proposals.
class SearchStrategy {
public:
  SearchStrategy(const SearchSpace &space, uint64_t seed)
      : space(space), rng(seed) {}
  virtual ~SearchStrategy() = default;

  /// Up to `count` candidates never proposed before, the first candidate
  /// (startFrom) leading the first batch; fewer (or none) when the strategy
  /// has nothing left to try.
  std::vector<Candidate> propose(unsigned count);
  /// Reports a candidate's cost (milliseconds; infinity when it failed).
  void observe(const Candidate &candidate, double cost);
  /// Leaves a candidate out of the search (it cannot compile): it is never
  /// proposed, as if it had been.
  void exclude(const Candidate &candidate) { proposed.insert(candidate); }
  /// The first candidate proposed (unless it was observed or excluded
  /// before): by default the schedule's defaults.
  void startFrom(Candidate candidate) { start = std::move(candidate); }

protected:
  /// One new candidate (after the first one, which propose() offers), or
  /// nothing.
  virtual std::optional<Candidate> next() = 0;
  /// A uniformly random candidate not proposed yet, if one is found.
  std::optional<Candidate> randomUnseen();
  bool seen(const Candidate &c) const { return proposed.count(c); }

  const SearchSpace &space;
  std::mt19937_64 rng;
  std::set<Candidate> proposed;
  std::vector<std::pair<Candidate, double>> history; // Observed costs.
  std::optional<Candidate> start;
  bool startOffered = false;
};

/// "exhaustive", "random", "evolutionary" or "model".
llvm::Expected<std::unique_ptr<SearchStrategy>>
createStrategy(llvm::StringRef name, const SearchSpace &space, uint64_t seed);

} // namespace tessel

#endif // TESSEL_TUNING_STRATEGY_H
