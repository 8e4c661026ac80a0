//===- Chips.cpp - NVIDIA chips Tessel compiles for -----------------------===//

#include "tessel/Transforms/Chips.h"

#include "mlir/IR/Operation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;

std::optional<tessel::Chip> tessel::parseChip(llvm::StringRef name) {
  Chip chip;
  if (!name.consume_front("sm_") || name.consumeInteger(10, chip.sm))
    return std::nullopt;
  chip.arch = name == "a";
  if (!name.empty() && !chip.arch)
    return std::nullopt;
  return chip;
}

std::optional<int> tessel::minimumPtxVersion(llvm::StringRef chip) {
  return llvm::StringSwitch<std::optional<int>>(chip)
      .Case("sm_70", 60)
      .Case("sm_72", 61)
      .Case("sm_75", 63)
      .Case("sm_80", 70)
      .Case("sm_86", 71)
      .Case("sm_87", 74)
      .Case("sm_89", 78)
      .Case("sm_90", 78)
      .Case("sm_90a", 80)
      .Cases({"sm_100", "sm_100a", "sm_101", "sm_101a"}, 86)
      .Cases({"sm_120", "sm_120a"}, 87)
      .Default(std::nullopt);
}

FailureOr<int> tessel::ptxVersion(llvm::StringRef features) {
  int ptx = 0;
  for (llvm::StringRef feature : llvm::split(features, ','))
    if (feature.consume_front("+ptx") && feature.getAsInteger(10, ptx))
      return failure();
  return ptx;
}

static std::string stringAttr(Attribute attr) {
  auto str = dyn_cast_or_null<StringAttr>(attr);
  return str ? str.str() : std::string();
}

tessel::ChipRequirement
tessel::ChipRequirement::ofSchedule(Operation *scheduleModule) {
  return {stringAttr(scheduleModule->getAttr(kTargetChipAttrName)),
          stringAttr(scheduleModule->getAttr(kMinChipAttrName))};
}

tessel::ChipRequirement
tessel::ChipRequirement::ofRecord(DictionaryAttr record) {
  if (!record)
    return {};
  return {stringAttr(record.get("target_chip")),
          stringAttr(record.get("min_chip"))};
}

std::string tessel::ChipRequirement::mismatch(llvm::StringRef chip,
                                              bool gpu) const {
  std::optional<Chip> have = parseChip(chip);
  if (!target.empty()) {
    std::optional<Chip> need = parseChip(target);
    bool runs = gpu ? have && need && have->sm == need->sm : chip == target;
    if (!runs)
      return "needs " + target + " (its " + kTargetChipAttrName.str() + ")";
  }
  if (!min.empty()) {
    std::optional<Chip> need = parseChip(min);
    if (!have || !need || have->sm < need->sm)
      return "needs " + min + " or later (its " + kMinChipAttrName.str() + ")";
  }
  return "";
}
