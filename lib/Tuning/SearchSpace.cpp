//===- SearchSpace.cpp - The knobs of a schedule --------------------------===//

#include "tessel/Tuning/SearchSpace.h"

#include "mlir/Dialect/Transform/TuneExtension/TuneExtensionOps.h"
#include "llvm/ADT/MapVector.h"

using namespace mlir;
using namespace tessel;

/// The text of a knob value as `knobs=` accepts it ("64", not "64 : i64").
static std::string valueText(Attribute attr) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto integer = dyn_cast<IntegerAttr>(attr))
    os << integer.getValue();
  else
    attr.print(os);
  return text;
}

static llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Expected<SearchSpace> SearchSpace::fromSchedule(ModuleOp schedule) {
  SearchSpace space;
  llvm::MapVector<StringRef, Knob> byName;
  WalkResult walk =
      schedule.walk(
          [&](transform::tune::KnobOp op) {
            auto options = dyn_cast<ArrayAttr>(op.getOptions());
            if (!options || options.empty()) {
              op.emitError()
                  << "knob '" << op.getName().getValue()
                  << "' must list its options (a non-empty array) to be tuned";
              return WalkResult::interrupt();
            }
            Knob knob;
            knob.name = op.getName().str();
            for (Attribute option : options)
              knob.options.push_back(valueText(option));
            if (std::optional<Attribute> selected = op.getSelected())
              knob.defaultValue = valueText(*selected);
            auto [it, inserted] = byName.insert({op.getName(), knob});
            if (!inserted && it->second.options != knob.options) {
              op.emitError() << "knob '" << op.getName().getValue()
                             << "' appears twice with different options";
              return WalkResult::interrupt();
            }
            return WalkResult::advance();
          });
  if (walk.wasInterrupted())
    return fail("invalid knobs in the schedule");
  if (byName.empty())
    return fail("the schedule has no transform.tune.knob: nothing to tune");
  for (auto &[name, knob] : byName)
    space.knobList.push_back(knob);
  return space;
}

uint64_t SearchSpace::size() const {
  uint64_t n = 1;
  for (const Knob &k : knobList) {
    if (n > UINT64_MAX / k.options.size())
      return UINT64_MAX;
    n *= k.options.size();
  }
  return n;
}

Candidate SearchSpace::at(uint64_t index) const {
  Candidate c(knobList.size());
  for (size_t i = knobList.size(); i-- > 0;) {
    c[i] = index % knobList[i].options.size();
    index /= knobList[i].options.size();
  }
  return c;
}

Candidate SearchSpace::defaults() const {
  Candidate c(knobList.size(), 0);
  for (auto [i, knob] : llvm::enumerate(knobList))
    for (auto [j, option] : llvm::enumerate(knob.options))
      if (option == knob.defaultValue)
        c[i] = j;
  return c;
}

std::string SearchSpace::assignment(const Candidate &c) const {
  std::string text;
  for (auto [i, knob] : llvm::enumerate(knobList))
    text += (i ? "," : "") + knob.name + "=" + knob.options[c[i]];
  return text;
}

std::map<std::string, std::string>
SearchSpace::values(const Candidate &c) const {
  std::map<std::string, std::string> result;
  for (auto [i, knob] : llvm::enumerate(knobList))
    result[knob.name] = knob.options[c[i]];
  return result;
}

llvm::Expected<Candidate>
SearchSpace::parse(const std::map<std::string, std::string> &values) const {
  Candidate c(knobList.size());
  for (auto [i, knob] : llvm::enumerate(knobList)) {
    auto it = values.find(knob.name);
    if (it == values.end())
      return fail("no value for knob '" + knob.name + "'");
    auto pos = llvm::find(knob.options, it->second);
    if (pos == knob.options.end())
      return fail("value " + it->second + " is not an option of knob '" +
                  knob.name + "'");
    c[i] = pos - knob.options.begin();
  }
  if (values.size() != knobList.size())
    return fail("record has knobs the schedule does not have");
  return c;
}
