//===- Chips.h - NVIDIA chips Tessel compiles for ---------------*- C++ -*-===//

#ifndef TESSEL_TRANSFORMS_CHIPS_H
#define TESSEL_TRANSFORMS_CHIPS_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace tessel {

/// A chip name taken apart: "sm_90a" is {90, arch = true}.
struct Chip {
  unsigned sm = 0;
  bool arch = false; // The `a` suffix: code for this chip alone.
};

/// Parses "sm_XX" or "sm_XXa"; none for anything else.
std::optional<Chip> parseChip(llvm::StringRef name);

/// The lowest PTX ISA version (x10) LLVM's NVPTX backend accepts for a chip
/// Tessel supports (sm_70 ... sm_120a); none for any other name.
std::optional<int> minimumPtxVersion(llvm::StringRef chip);

/// The PTX ISA version (x10) that comma-separated PTX `features` name
/// ("+ptx80" -> 80), 0 when they name none; failure when a "+ptx" feature
/// is not followed by a number.
mlir::FailureOr<int> ptxVersion(llvm::StringRef features);

/// Schedule module attributes that say which chips a schedule's kernels run
/// on: `tessel.target_chip` for code of exactly that chip (e.g. sm_90a,
/// whose wgmma no other chip has), `tessel.min_chip` for code of that chip
/// or any later one. apply-schedule copies them into the payload functions'
/// `tessel.schedule` record as `target_chip` and `min_chip`.
constexpr llvm::StringLiteral kTargetChipAttrName = "tessel.target_chip";
constexpr llvm::StringLiteral kMinChipAttrName = "tessel.min_chip";

/// The module attribute in which tessel-check-kernel-payload records the
/// chip it resolved; the later steps of tessel-lower-to-ptx read it.
constexpr llvm::StringLiteral kChipAttrName = "tessel.chip";

/// What a schedule requires of a chip.
struct ChipRequirement {
  std::string target; // Exactly this chip, or empty.
  std::string min;    // This chip or a later one, or empty.

  /// From a schedule module's attributes or a `tessel.schedule` record
  /// (`target_chip`, `min_chip`).
  static ChipRequirement ofSchedule(mlir::Operation *scheduleModule);
  static ChipRequirement ofRecord(mlir::DictionaryAttr record);

  /// Why code with this requirement cannot be compiled for the target
  /// `chip`, as a phrase ("needs sm_90a (its tessel.target_chip)"); empty
  /// when it can. With `gpu`, `chip` names a GPU instead, which runs code
  /// for its own architecture-specific target too (an sm_90 GPU runs
  /// sm_90a code).
  std::string mismatch(llvm::StringRef chip, bool gpu = false) const;
};

} // namespace tessel

#endif // TESSEL_TRANSFORMS_CHIPS_H
