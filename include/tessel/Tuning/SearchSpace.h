//===- SearchSpace.h - The knobs of a schedule ------------------*- C++ -*-===//

#ifndef TESSEL_TUNING_SEARCHSPACE_H
#define TESSEL_TUNING_SEARCHSPACE_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <map>
#include <string>
#include <vector>

namespace tessel {

/// One `transform.tune.knob`: its options as the text `knobs=` accepts.
struct Knob {
  std::string name;
  std::vector<std::string> options;
  std::string defaultValue; // Empty when the schedule selects none.
};

/// A point of the space: one option index per knob.
using Candidate = std::vector<unsigned>;

/// The cross product of a schedule's knobs.
class SearchSpace {
public:
  /// Collects the knobs of a parsed schedule library. Fails on a schedule
  /// without knobs, a knob whose options are not a non-empty list, and
  /// knobs of one name with different options.
  static llvm::Expected<SearchSpace> fromSchedule(mlir::ModuleOp schedule);

  const std::vector<Knob> &knobs() const { return knobList; }
  /// Number of candidates (saturates at UINT64_MAX).
  uint64_t size() const;
  /// The `i`-th candidate in lexicographic order (last knob fastest).
  Candidate at(uint64_t index) const;
  /// The schedule's defaults (first option where a knob has none).
  Candidate defaults() const;
  /// "tile_m=64,tile_n=128" as --tessel-apply-schedule's knobs option.
  std::string assignment(const Candidate &c) const;
  std::map<std::string, std::string> values(const Candidate &c) const;
  /// Parses an assignment back; fails on unknown knobs or values.
  llvm::Expected<Candidate>
  parse(const std::map<std::string, std::string> &values) const;

private:
  std::vector<Knob> knobList;
};

} // namespace tessel

#endif // TESSEL_TUNING_SEARCHSPACE_H
