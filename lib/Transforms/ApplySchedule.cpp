//===- ApplySchedule.cpp - Apply a schedule with chosen knob values -------===//

#include "tessel/Transforms/LaunchMetadata.h"
#include "tessel/Transforms/Passes.h"
#include "tessel/Tuning/Database.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/Dialect/Transform/Transforms/TransformInterpreterUtils.h"
#include "mlir/Dialect/Transform/TuneExtension/TuneExtensionOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

namespace tessel {
#define GEN_PASS_DEF_TESSELAPPLYSCHEDULE
#include "tessel/Transforms/Passes.h.inc"
} // namespace tessel

using namespace mlir;

namespace {

struct ApplySchedule : tessel::impl::TesselApplyScheduleBase<ApplySchedule> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *context) override;
  void runOnOperation() override;

private:
  /// Sets `selected` on the schedule's knobs from `assignments` (name=value),
  /// checking names and values; every knob must end up with a value.
  LogicalResult selectKnobs(ArrayRef<std::string> assignments);
  /// The knobs of the best record in the tuning database `db` for this
  /// payload, followed by the `knobs` option (which wins).
  FailureOr<SmallVector<std::string>> knobsFromDatabase(ModuleOp payload);

  /// Shared with clones of the pass (one per pass-manager thread).
  std::shared_ptr<OwningOpRef<ModuleOp>> library;
  /// The knob values in effect, by name, as recorded on the payload.
  SmallVector<NamedAttribute> selectedKnobs;
  /// The same, for diagnostics ("tile_m=64 tile_n=128").
  std::string knobSummary;
};

} // namespace

LogicalResult ApplySchedule::initialize(MLIRContext *context) {
  Location loc = FileLineColLoc::get(context, schedule, 0, 0);
  if (schedule.empty())
    return emitError(UnknownLoc::get(context))
           << "tessel-apply-schedule: the 'schedule' option (path of a "
              "schedule library) is required";
  if (!llvm::sys::fs::exists(schedule))
    return emitError(loc) << "cannot open schedule file '" << schedule
                          << "': no such file";

  library = std::make_shared<OwningOpRef<ModuleOp>>();
  if (failed(transform::detail::parseTransformModuleFromFile(context, schedule,
                                                             *library)))
    return emitError(loc) << "cannot parse schedule file '" << schedule << "'";
  // With a database, the knobs depend on the payload: chosen when it runs.
  if (!db.empty())
    return success();
  return selectKnobs(knobs);
}

FailureOr<SmallVector<std::string>>
ApplySchedule::knobsFromDatabase(ModuleOp payload) {
  Location loc = tessel::payloadLocation(payload);
  llvm::Expected<tessel::TuningDatabase> database =
      tessel::TuningDatabase::open(db);
  if (!database)
    return emitError(loc) << llvm::toString(database.takeError());
  llvm::Expected<std::string> workload = tessel::workloadKey(payload);
  if (!workload)
    return emitError(loc) << "cannot take knobs from '" << db
                          << "': " << llvm::toString(workload.takeError());
  tessel::TuningKey key{*workload, device, tessel::scheduleHash(library->get()),
                        tessel::compilerId()};
  if (key.device.empty()) {
    std::vector<std::string> devices = database->devicesFor(key);
    if (devices.empty())
      return emitError(loc)
             << "tuning database '" << db << "' has no records of '"
             << key.workload << "' for this schedule (content hash "
             << key.scheduleHash << ") and compiler (" << key.compiler
             << "): tune it first";
    if (devices.size() != 1)
      return emitError(loc)
             << "tuning database '" << db << "' has records of '"
             << key.workload << "' with this schedule and compiler for "
             << devices.size()
             << " devices; choose one with device=<name as recorded>";
    key.device = devices.front();
  }
  const tessel::TuningRecord *best = database->best(key);
  if (!best)
    return emitError(loc) << "tuning database '" << db
                          << "' has no verified record of '" << key.workload
                          << "' on '" << key.device
                          << "' for this schedule and compiler: tune first";
  // The knobs= option wins over the record.
  llvm::StringSet<> overridden;
  for (const std::string &assignment : knobs)
    overridden.insert(StringRef(assignment).split('=').first.trim());
  SmallVector<std::string> result;
  for (const auto &[name, value] : best->knobs)
    if (!overridden.contains(name))
      result.push_back(name + "=" + value);
  result.append(knobs.begin(), knobs.end());
  return result;
}

LogicalResult ApplySchedule::selectKnobs(ArrayRef<std::string> assignments) {
  ModuleOp module = library->get();
  llvm::MapVector<StringRef, SmallVector<transform::tune::KnobOp>> byName;
  module.walk([&](transform::tune::KnobOp knob) {
    byName[knob.getName()].push_back(knob);
  });

  auto knownNames = [&] {
    std::string names;
    llvm::raw_string_ostream os(names);
    llvm::interleaveComma(llvm::make_first_range(byName), os);
    return names.empty() ? std::string("none") : names;
  };

  llvm::StringSet<> given;
  for (const std::string &assignment : assignments) {
    auto [name, valueText] = StringRef(assignment).split('=');
    name = name.trim();
    valueText = valueText.trim();
    if (name.empty() || valueText.empty() ||
        !StringRef(assignment).contains('='))
      return emitError(module.getLoc())
             << "malformed knob assignment '" << assignment
             << "': expected name=value";
    if (!given.insert(name).second)
      return emitError(module.getLoc())
             << "knob '" << name << "' is given more than once";
    auto it = byName.find(name);
    if (it == byName.end())
      return emitError(module.getLoc())
             << "schedule '" << schedule << "' has no knob named '" << name
             << "' (its knobs: " << knownNames() << ")";

    for (transform::tune::KnobOp knob : it->second) {
      // Parse the value with the type of the options, so that "64" matches
      // `64 : i64` in `options = [32, 64]`.
      Type type;
      if (auto options = dyn_cast<ArrayAttr>(knob.getOptions()))
        if (!options.empty())
          if (auto typed = dyn_cast<TypedAttr>(options[0]))
            type = typed.getType();
      size_t numRead = 0;
      Attribute value;
      {
        // The parser's own message points into the option string; the
        // error below says the same with the knob's location.
        ScopedDiagnosticHandler quiet(knob.getContext(),
                                      [](Diagnostic &) { return success(); });
        value = parseAttribute(valueText, knob.getContext(), type, &numRead,
                               /*isKnownNullTerminated=*/false);
      }
      if (!value || numRead != valueText.size())
        return emitError(knob.getLoc())
               << "cannot parse '" << valueText << "' as a value of knob '"
               << name << "'";
      if (auto options = dyn_cast<ArrayAttr>(knob.getOptions());
          options && !llvm::is_contained(options, value))
        return emitError(knob.getLoc())
               << "value " << valueText << " is not among the options of knob '"
               << name << "': " << knob.getOptions();
      knob.setSelectedAttr(value);
      if (failed(knob.verify()))
        return failure();
    }
  }

  selectedKnobs.clear();
  knobSummary.clear();
  llvm::raw_string_ostream summary(knobSummary);
  for (auto &[name, ops] : byName) {
    transform::tune::KnobOp knob = ops.front();
    if (!knob.getSelected())
      return emitError(knob.getLoc())
             << "knob '" << name
             << "' has no value: give one with knobs=" << name
             << "=<value> or a `selected` default in the schedule";
    selectedKnobs.emplace_back(knob.getNameAttr(), *knob.getSelected());
    if (!knobSummary.empty())
      summary << " ";
    summary << name << "=";
    if (auto integer = dyn_cast<IntegerAttr>(*knob.getSelected()))
      summary << integer.getValue();
    else
      summary << *knob.getSelected();
  }
  return success();
}

void ApplySchedule::runOnOperation() {
  ModuleOp payload = getOperation();
  ModuleOp module = library->get();
  if (!db.empty()) {
    FailureOr<SmallVector<std::string>> assignments =
        knobsFromDatabase(payload);
    if (failed(assignments) || failed(selectKnobs(*assignments)))
      return signalPassFailure();
  }
  auto entryOp = dyn_cast_or_null<transform::TransformOpInterface>(
      SymbolTable::lookupSymbolIn(module, entry));
  if (!entryOp) {
    emitError(module.getLoc()) << "schedule '" << schedule
                               << "' has no named sequence '" << entry << "'";
    return signalPassFailure();
  }

  // Record what each function computes before the schedule rewrites it,
  // so that runtimes can check kernels against a reference, and which
  // schedule and knobs produced its kernels.
  MLIRContext *ctx = payload.getContext();
  DictionaryAttr scheduleInfo = DictionaryAttr::get(
      ctx, {NamedAttribute(StringAttr::get(ctx, "path"),
                           StringAttr::get(ctx, schedule)),
            NamedAttribute(StringAttr::get(ctx, "hash"),
                           StringAttr::get(ctx, tessel::scheduleHash(module))),
            NamedAttribute(StringAttr::get(ctx, "knobs"),
                           DictionaryAttr::get(ctx, selectedKnobs))});
  for (auto func : payload.getOps<func::FuncOp>()) {
    if (DictionaryAttr workload = tessel::recognizeWorkload(func))
      func->setAttr(tessel::kWorkloadAttrName, workload);
    func->setAttr(tessel::kScheduleAttrName, scheduleInfo);
  }

  if (failed(transform::applyTransformNamedSequence(
          payload, entryOp, module, transform::TransformOptions()))) {
    emitError(tessel::payloadLocation(payload))
        << "schedule '" << schedule << "' (entry @" << entry
        << ") failed on this payload with knobs: " << knobSummary;
    return signalPassFailure();
  }
}
