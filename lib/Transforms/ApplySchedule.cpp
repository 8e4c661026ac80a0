//===- ApplySchedule.cpp - Apply schedules, knobs chosen for the payload --===//

#include "tessel/Analysis/Contraction.h"
#include "tessel/Runtime/InputFiles.h"
#include "tessel/Transforms/Chips.h"
#include "tessel/Transforms/FuseEpilogues.h"
#include "tessel/Transforms/LaunchMetadata.h"
#include "tessel/Transforms/Passes.h"
#include "tessel/Tuning/Database.h"
#include "tessel/Tuning/KnobChoice.h"
#include "tessel/Tuning/SearchSpace.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/Dialect/Transform/Transforms/TransformInterpreterUtils.h"
#include "mlir/Dialect/Transform/TuneExtension/TuneExtensionOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

namespace tessel {
#define GEN_PASS_DEF_TESSELAPPLYSCHEDULE
#include "tessel/Transforms/Passes.h.inc"
} // namespace tessel

using namespace mlir;

/// How many of the rule's best points are tried before giving up on a
/// schedule (each try applies the schedule to a copy of the payload).
static constexpr size_t kRuleCandidates = 16;
/// How many nearest records are tried.
static constexpr size_t kNearestCandidates = 4;

namespace {

/// One schedule library.
struct Library {
  std::string path;
  OwningOpRef<ModuleOp> module;
  std::string hash;
  /// Each knob op with the `selected` value the schedule gives it.
  SmallVector<std::pair<transform::tune::KnobOp, std::optional<Attribute>>>
      written;
  /// The knob space, when every knob lists its options (the rule needs it).
  std::optional<tessel::SearchSpace> space;
  /// Why this library cannot serve any payload here (`chip=` names a GPU
  /// its kernels do not run on, or `knobs=` does not fit it); empty when it
  /// can.
  std::string refusal;
  /// The chips its kernels run on (tessel.target_chip, tessel.min_chip).
  tessel::ChipRequirement chips;
};

/// Knob values to try, and where they come from.
struct Choice {
  SmallVector<std::string> assignments;
  std::string source;
};

struct ApplySchedule : tessel::impl::TesselApplyScheduleBase<ApplySchedule> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *context) override;
  void runOnOperation() override;

private:
  /// Sets `selected` on the library's knobs from `assignments` (name=value)
  /// after restoring the schedule's own values, checking names and values;
  /// every knob must end up with a value. Errors go to the diagnostic
  /// engine.
  LogicalResult selectKnobs(Library &lib, ArrayRef<std::string> assignments);
  /// The knob values to try for `payload`, best first. The tuning
  /// databases are opened into `databases` on first use, once per payload.
  FailureOr<SmallVector<Choice>>
  chooseKnobs(Library &lib, ModuleOp payload,
              std::optional<SmallVector<tessel::TuningDatabase>> &databases);
  /// Applies `lib` with `choice` to a copy of the payload and, when that
  /// succeeds, replaces the payload with it. Diagnostics are shown only
  /// with `report`; otherwise the first error is returned in `why`.
  LogicalResult tryChoice(Library &lib, const Choice &choice, ModuleOp payload,
                          bool report, std::string &why);
  /// The knob summary ("tile_m=64 tile_n=128") of the library's selection.
  std::string knobSummary(const Library &lib) const;

  /// Shared with clones of the pass (one per pass-manager thread).
  std::shared_ptr<std::vector<Library>> libraries;
};

} // namespace

/// The knob ops of `module` by name, in order.
static llvm::MapVector<StringRef, SmallVector<transform::tune::KnobOp>>
knobsByName(ModuleOp module) {
  llvm::MapVector<StringRef, SmallVector<transform::tune::KnobOp>> byName;
  module.walk([&](transform::tune::KnobOp knob) {
    byName[knob.getName()].push_back(knob);
  });
  return byName;
}

/// The size arrays of upstream's transform ops (tile sizes, thread counts,
/// vector sizes, padding multiples). Their verifiers accept negative
/// entries, and tiling K by -8 made a loop that never runs: a kernel that
/// wrote ReLU(0) everywhere, with exit status 0.
static constexpr StringLiteral kSizeArrays[] = {"static_sizes",
                                                "static_tile_sizes",
                                                "static_num_threads",
                                                "static_chunk_sizes",
                                                "static_vector_sizes",
                                                "static_packed_sizes",
                                                "static_matmul_packed_sizes",
                                                "static_pad_to_multiple_of",
                                                "static_padding_sizes"};

/// The integer values `attr` holds (an integer or an array of them).
static SmallVector<int64_t> integersOf(Attribute attr) {
  SmallVector<int64_t> values;
  if (auto integer = dyn_cast_or_null<IntegerAttr>(attr))
    values.push_back(integer.getValue().getSExtValue());
  else if (auto array = dyn_cast_or_null<ArrayAttr>(attr))
    for (Attribute element : array)
      llvm::append_range(values, integersOf(element));
  return values;
}

/// Refuses negative sizes given to upstream's tiling, vectorization and
/// padding ops: written in the op, or through a `transform.param.constant`
/// or a knob (its selected value) as an operand. Sizes computed while the
/// schedule runs are not seen.
static LogicalResult checkSizes(ModuleOp schedule) {
  WalkResult result = schedule.walk([&](Operation *op) -> WalkResult {
    bool takesSizes = false;
    for (StringLiteral name : kSizeArrays) {
      auto sizes = op->getAttrOfType<DenseI64ArrayAttr>(name);
      if (!sizes)
        continue;
      takesSizes = true;
      for (int64_t size : sizes.asArrayRef())
        if (size < 0 && !ShapedType::isDynamic(size)) {
          op->emitError() << "size " << size << " in '" << op->getName()
                          << "': sizes are >= 0 (0 leaves a dimension whole)";
          return WalkResult::interrupt();
        }
    }
    if (!takesSizes)
      return WalkResult::advance();
    for (Value operand : op->getOperands()) {
      Operation *def = operand.getDefiningOp();
      SmallVector<int64_t> values;
      std::string source;
      if (auto constant = dyn_cast_or_null<transform::ParamConstantOp>(def)) {
        values = integersOf(constant.getValue());
        source = "a transform.param.constant";
      } else if (auto knob = dyn_cast_or_null<transform::tune::KnobOp>(def)) {
        if (std::optional<Attribute> selected = knob.getSelected())
          values = integersOf(*selected);
        source = "knob '" + knob.getName().str() + "'";
      }
      auto negative = llvm::find_if(values, [](int64_t v) { return v < 0; });
      if (negative == values.end())
        continue;
      InFlightDiagnostic diag = op->emitError()
                                << source << " gives size " << *negative
                                << " to '" << op->getName()
                                << "': sizes are >= 0 (0 leaves a dimension "
                                   "whole)";
      diag.attachNote(def->getLoc()) << "defined here";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// Whether a value of `type` spans a number of bytes that int64 holds
/// (other than shaped types of integers or floats, all do).
static bool fitsInt64Bytes(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  return !shaped || !shaped.hasStaticShape() ||
         !shaped.getElementType().isIntOrFloat() ||
         tessel::spannedElements(shaped).has_value();
}

/// Refuses payloads with tensors or buffers of more bytes than int64
/// counts (a 3270 x 2^57 matrix): schedules compute offsets and extents
/// from their sizes in int64, and overflowed (UBSan, in the mma rewrite).
static LogicalResult checkPayloadSizes(ModuleOp payload) {
  WalkResult result = payload.walk([](Operation *op) {
    auto refuse = [&](Type type, const Twine &what) {
      op->emitError() << what << " has type " << type
                      << ": its size in bytes is beyond what a 64-bit "
                         "integer holds";
      return WalkResult::interrupt();
    };
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (!fitsInt64Bytes(arg.getType()))
            return refuse(arg.getType(),
                          "argument #" + Twine(arg.getArgNumber()));
    for (Value result : op->getResults())
      if (!fitsInt64Bytes(result.getType()))
        return refuse(result.getType(),
                      "a result of '" + op->getName().getStringRef() + "'");
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// Refuses a tessel.allow_tf32 that is not a unit attribute: the schedules
/// and the workload read its presence, so `= false` would allow TF32.
static LogicalResult checkPayloadAttributes(ModuleOp payload) {
  for (auto func : payload.getOps<FunctionOpInterface>()) {
    Attribute allow = func->getAttr(tessel::kAllowTf32AttrName);
    if (allow && !isa<UnitAttr>(allow))
      return func->emitError()
             << "'" << tessel::kAllowTf32AttrName
             << "' is a unit attribute (present: f32 inputs may be "
                "multiplied as TF32; absent: FP32-level accuracy), got "
             << allow;
  }
  return success();
}

LogicalResult ApplySchedule::initialize(MLIRContext *context) {
  if (schedules.empty())
    return emitError(UnknownLoc::get(context))
           << "tessel-apply-schedule: the 'schedule' option (path of a "
              "schedule library) is required";
  if (defaults != "rule" && defaults != "nearest" && defaults != "schedule")
    return emitError(UnknownLoc::get(context))
           << "tessel-apply-schedule: defaults=" << defaults
           << " is not one of rule, nearest, schedule";
  // The rule's estimates multiply the SM count (ChipLimits): a count no GPU
  // has would overflow them, and a negative one was once taken silently as
  // the chip's usual count.
  if (smCount < 0 || smCount > tessel::kMaxSmCount)
    return emitError(UnknownLoc::get(context))
           << "tessel-apply-schedule: sm-count=" << int64_t(smCount)
           << " is outside [1, " << tessel::kMaxSmCount
           << "] (0, the default, takes the chip's usual count)";
  libraries = std::make_shared<std::vector<Library>>();
  for (const std::string &path : schedules) {
    Location loc = FileLineColLoc::get(context, path, 0, 0);
    if (!llvm::sys::fs::exists(path))
      return emitError(loc)
             << "cannot open schedule file '" << path << "': no such file";
    llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> text =
        tessel::readInputFile(path);
    if (!text)
      return emitError(loc) << "cannot read schedule file "
                            << llvm::toString(text.takeError());
    if (std::optional<tessel::TextIssue> issue =
            tessel::findParserCrash((*text)->getBuffer()))
      return emitError(
                 FileLineColLoc::get(context, path, issue->line, issue->column))
             << issue->message;
    Library lib;
    lib.path = path;
    if (failed(transform::detail::parseTransformModuleFromFile(context, path,
                                                               lib.module)))
      return emitError(loc) << "cannot parse schedule file '" << path << "'";
    lib.hash = tessel::scheduleHash(lib.module.get());
    lib.module->walk([&](transform::tune::KnobOp knob) {
      lib.written.emplace_back(knob, knob.getSelected());
    });
    lib.chips = tessel::ChipRequirement::ofSchedule(lib.module.get());
    for (StringRef declared : {lib.chips.target, lib.chips.min})
      if (!declared.empty() && !tessel::minimumPtxVersion(declared))
        return emitError(lib.module->getLoc())
               << "schedule '" << path << "' declares chip '" << declared
               << "', which is not a chip Tessel compiles for (sm_70 ... "
                  "sm_120a)";
    {
      // A library whose knobs list no options has no space for the rule.
      ScopedDiagnosticHandler quiet(context,
                                    [](Diagnostic &) { return success(); });
      llvm::Expected<tessel::SearchSpace> space =
          tessel::SearchSpace::fromSchedule(lib.module.get());
      if (space)
        lib.space = std::move(*space);
      else
        llvm::consumeError(space.takeError());
    }
    libraries->push_back(std::move(lib));
  }

  // chip= must name a GPU the schedule's kernels run on, and knobs= must
  // make sense for it: with one schedule a mistake is an error; with
  // several, a schedule they do not fit is skipped.
  bool anyAccepts = false;
  for (Library &lib : *libraries) {
    if (!chip.empty()) {
      if (!tessel::minimumPtxVersion(chip))
        return emitError(UnknownLoc::get(context))
               << "tessel-apply-schedule: chip=" << chip
               << " is not a chip Tessel compiles for (sm_70 ... sm_120a)";
      if (std::string why = lib.chips.mismatch(chip, /*gpu=*/true);
          !why.empty()) {
        lib.refusal = "its kernels do not run on chip=" + chip + ": it " + why;
        continue;
      }
    }
    std::string message;
    {
      ScopedDiagnosticHandler capture(context, [&](Diagnostic &d) {
        if (message.empty())
          message = d.str();
        return success();
      });
      if (failed(selectKnobs(lib, knobs)))
        lib.refusal = message.empty() ? "bad knobs" : message;
    }
    anyAccepts |= lib.refusal.empty();
  }
  if (anyAccepts)
    return success();
  // Report the first schedule's error where it happens: its module for a
  // chip it does not run on, the knob for a bad value.
  Library &first = libraries->front();
  if (!chip.empty() && !first.chips.mismatch(chip, /*gpu=*/true).empty())
    (void)(emitError(first.module->getLoc())
           << "schedule '" << first.path << "': " << first.refusal);
  else
    (void)selectKnobs(first, knobs);
  if (libraries->size() > 1)
    (void)(emitError(UnknownLoc::get(context))
           << "no schedule serves chip=" << chip << " and the given knobs: "
           << llvm::join(llvm::map_range(*libraries,
                                         [](const Library &lib) {
                                           return lib.path + ": " + lib.refusal;
                                         }),
                         "; "));
  return failure();
}

LogicalResult ApplySchedule::selectKnobs(Library &lib,
                                         ArrayRef<std::string> assignments) {
  for (auto &[knob, value] : lib.written) {
    if (value)
      knob.setSelectedAttr(*value);
    else
      knob.removeSelectedAttr();
  }
  ModuleOp module = lib.module.get();
  auto byName = knobsByName(module);
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
             << "schedule '" << lib.path << "' has no knob named '" << name
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
  for (auto &[name, ops] : byName)
    if (!ops.front().getSelected())
      return emitError(ops.front().getLoc())
             << "knob '" << name
             << "' has no value: give one with knobs=" << name
             << "=<value> or a `selected` default in the schedule";
  return success();
}

std::string ApplySchedule::knobSummary(const Library &lib) const {
  std::string text;
  llvm::raw_string_ostream os(text);
  for (auto &[name, ops] : knobsByName(lib.module.get())) {
    if (!text.empty())
      os << " ";
    os << name << "=";
    Attribute value = *ops.front().getSelected();
    if (auto integer = dyn_cast<IntegerAttr>(value))
      os << integer.getValue();
    else
      os << value;
  }
  return text.empty() ? "(none)" : text;
}

/// `assignments` followed by the given knobs, which win.
static SmallVector<std::string> withGiven(ArrayRef<std::string> base,
                                          ArrayRef<std::string> given) {
  llvm::StringSet<> overridden;
  for (const std::string &assignment : given)
    overridden.insert(StringRef(assignment).split('=').first.trim());
  SmallVector<std::string> result;
  for (const std::string &assignment : base)
    if (!overridden.contains(StringRef(assignment).split('=').first.trim()))
      result.push_back(assignment);
  result.append(given.begin(), given.end());
  return result;
}

static SmallVector<std::string>
assignmentsOf(const std::map<std::string, std::string> &knobs) {
  SmallVector<std::string> result;
  for (const auto &[name, value] : knobs)
    result.push_back(name + "=" + value);
  return result;
}

FailureOr<SmallVector<Choice>> ApplySchedule::chooseKnobs(
    Library &lib, ModuleOp payload,
    std::optional<SmallVector<tessel::TuningDatabase>> &databases) {
  SmallVector<Choice> choices;
  std::string givenNote;
  if (!knobs.empty())
    givenNote =
        "; knobs= sets " +
        llvm::join(
            llvm::map_range(knobs,
                            [](const std::string &a) {
                              return StringRef(a).split('=').first.trim().str();
                            }),
            ", ");

  // 1. Every knob given.
  auto byName = knobsByName(lib.module.get());
  llvm::StringSet<> givenNames;
  std::map<std::string, std::string> fixed;
  for (const std::string &assignment : knobs) {
    auto [name, value] = StringRef(assignment).split('=');
    givenNames.insert(name.trim());
    fixed[name.trim().str()] = value.trim().str();
  }
  if (llvm::all_of(byName, [&](auto &entry) {
        return givenNames.contains(entry.first);
      })) {
    choices.push_back(
        {SmallVector<std::string>(knobs.begin(), knobs.end()), givenSource});
    return choices;
  }

  // What the payload computes; without a recognized workload only the
  // schedule's own values apply.
  llvm::Expected<std::string> workload = tessel::workloadKey(payload);
  std::optional<tessel::ProblemShape> shape;
  if (workload)
    shape = tessel::parseWorkloadKey(*workload);
  else
    llvm::consumeError(workload.takeError());
  std::string chipName = !chip.empty()               ? chip
                         : !lib.chips.target.empty() ? lib.chips.target
                                                     : std::string("sm_90");
  tessel::ChipLimits limits = tessel::chipLimits(chipName, smCount);
  std::string arch = device.empty() ? limits.arch : tessel::deviceArch(device);

  // 2. A tuned record of this workload.
  Location loc = tessel::payloadLocation(payload);
  if (!databases) {
    databases.emplace();
    for (const std::string &path : dbs) {
      llvm::Expected<tessel::TuningDatabase> db =
          tessel::TuningDatabase::open(path);
      if (!db) {
        databases.reset();
        emitError(loc) << llvm::toString(db.takeError());
        return failure();
      }
      databases->push_back(std::move(*db));
    }
  }
  if (!dbs.empty() && !shape) {
    emitError(loc) << "cannot take knobs from a tuning database: no function "
                      "of the payload computes a workload Tessel recognizes "
                      "(relu(A x B) on its arguments)";
    return failure();
  }
  if (shape) {
    tessel::TuningKey key{*workload, device, lib.hash, tessel::compilerId()};
    for (auto [path, db] : llvm::zip(dbs, *databases)) {
      tessel::TuningKey k = key;
      std::string note;
      if (k.device.empty()) {
        std::vector<std::string> devices = db.devicesFor(k);
        if (devices.size() > 1) {
          emitError(loc) << "tuning database '" << path << "' has records of '"
                         << k.workload
                         << "' with this schedule and compiler for "
                         << devices.size()
                         << " devices; choose one with device=<name as "
                            "recorded>";
          return failure();
        }
        if (devices.empty())
          continue;
        k.device = devices.front();
      }
      // Records of a GPU of another architecture do not apply.
      const tessel::TuningRecord *best =
          tessel::deviceArch(k.device) == arch ? db.best(k) : nullptr;
      if (!best && !device.empty()) {
        // Another GPU of the same architecture (an H200 for an H100).
        for (const std::string &other :
             db.devicesFor({*workload, "", lib.hash, key.compiler}))
          if (tessel::deviceArch(other) == arch) {
            k.device = other;
            best = db.best(k);
            note = " (another " + arch + " GPU)";
            break;
          }
      }
      if (!best)
        continue;
      choices.push_back(
          {withGiven(assignmentsOf(best->knobs), knobs),
           "tuned on " + k.device + note + " in " + path + givenNote});
      // A record the schedule now refuses (a knob point found unsafe after
      // it was tuned) falls back to the choices below.
      break;
    }
  }

  // 3. The nearest tuned shape, the rule, the schedule's values.
  if (shape && defaults == "nearest") {
    tessel::TuningKey key{*workload, device, lib.hash, tessel::compilerId()};
    SmallVector<std::pair<const tessel::TuningRecord *, std::string>> nearest;
    for (auto [path, db] : llvm::zip(dbs, *databases))
      for (const tessel::TuningRecord *r :
           tessel::nearestRecords(db, key, arch, *shape, kNearestCandidates,
                                  /*excludeSelf=*/false))
        nearest.emplace_back(r, path);
    for (auto &[r, path] : nearest)
      choices.push_back({withGiven(assignmentsOf(r->knobs), knobs),
                         "nearest record: " + r->key.workload + " on " +
                             r->key.device + " in " + path + givenNote});
  }
  if (shape && defaults != "schedule" && lib.space) {
    for (const tessel::Candidate &c :
         tessel::rankByRule(*lib.space, *shape, limits, fixed, kRuleCandidates))
      choices.push_back({withGiven(assignmentsOf(lib.space->values(c)), knobs),
                         "rule (" + limits.arch + ", " +
                             std::to_string(limits.smCount) + " SMs)" +
                             givenNote});
  }
  choices.push_back({SmallVector<std::string>(knobs.begin(), knobs.end()),
                     "schedule defaults" + givenNote});
  return choices;
}

LogicalResult ApplySchedule::tryChoice(Library &lib, const Choice &choice,
                                       ModuleOp payload, bool report,
                                       std::string &why) {
  MLIRContext *ctx = payload.getContext();
  // A trial's diagnostics are held back: its errors only say why it could
  // not serve; its remarks and warnings (transform.debug.emit_remark_at,
  // a schedule's own warnings) are the user's, and are shown if it serves.
  struct Held {
    Location loc;
    DiagnosticSeverity severity;
    std::string message;
  };
  SmallVector<Held> held;
  std::optional<ScopedDiagnosticHandler> quiet;
  if (!report)
    quiet.emplace(ctx, [&](Diagnostic &d) {
      if (d.getSeverity() == DiagnosticSeverity::Error) {
        if (why.empty())
          why = d.str();
      } else {
        held.push_back({d.getLocation(), d.getSeverity(), d.str()});
      }
      return success();
    });
  auto replayHeld = [&] {
    quiet.reset();
    for (const Held &h : held) {
      if (h.severity == DiagnosticSeverity::Warning)
        emitWarning(h.loc) << h.message;
      else if (h.severity == DiagnosticSeverity::Remark)
        emitRemark(h.loc) << h.message;
    }
  };
  if (failed(selectKnobs(lib, choice.assignments)))
    return failure();
  auto entryOp = dyn_cast_or_null<transform::TransformOpInterface>(
      SymbolTable::lookupSymbolIn(lib.module.get(), entry));
  if (!entryOp)
    return emitError(lib.module->getLoc())
           << "schedule '" << lib.path << "' has no named sequence '" << entry
           << "'";

  // Record what each function computes before the schedule rewrites it,
  // so that runtimes can check kernels against a reference, and which
  // schedule and knobs produced its kernels.
  SmallVector<NamedAttribute> selected;
  for (auto &[name, ops] : knobsByName(lib.module.get()))
    selected.emplace_back(ops.front().getNameAttr(),
                          *ops.front().getSelected());
  auto str = [&](StringRef s) { return StringAttr::get(ctx, s); };
  SmallVector<NamedAttribute> info = {
      NamedAttribute(str("path"), str(lib.path)),
      NamedAttribute(str("hash"), str(lib.hash)),
      NamedAttribute(str("knobs"), DictionaryAttr::get(ctx, selected)),
      NamedAttribute(str("knob_source"), str(choice.source))};
  // Which chips its kernels are for: tessel-lower-to-ptx compiles for the
  // target, or refuses a chip= they cannot run on.
  if (!lib.chips.target.empty())
    info.emplace_back(str("target_chip"), str(lib.chips.target));
  if (!lib.chips.min.empty())
    info.emplace_back(str("min_chip"), str(lib.chips.min));
  DictionaryAttr scheduleInfo = DictionaryAttr::get(ctx, info);
  OwningOpRef<ModuleOp> copy = payload.clone();
  for (auto func : copy->getOps<func::FuncOp>()) {
    if (std::optional<tessel::WorkloadSpec> workload =
            tessel::recognizeWorkload(func))
      func->setAttr(tessel::kWorkloadAttrName,
                    tessel::workloadAttr(ctx, *workload));
    func->setAttr(tessel::kScheduleAttrName, scheduleInfo);
  }
  // The schedules tile a contraction's epilogue: one without gets `+ 0.0`
  // (after the workload was recorded, which keeps none).
  tessel::addEpilogues(copy.get());
  if (failed(checkSizes(lib.module.get())) ||
      failed(transform::applyTransformNamedSequence(
          copy.get(), entryOp, lib.module.get(),
          transform::TransformOptions()))) {
    InFlightDiagnostic diag = emitError(tessel::payloadLocation(payload))
                              << "schedule '" << lib.path << "' (entry @"
                              << entry << ") failed on this payload with "
                              << "knobs: " << knobSummary(lib);
    // What a schedule's matchers most often find nothing of.
    bool hasContraction = false;
    payload.walk([&](linalg::LinalgOp op) {
      hasContraction |= linalg::isaContractionOpInterface(op);
      return hasContraction ? WalkResult::interrupt() : WalkResult::advance();
    });
    if (!hasContraction)
      diag.attachNote() << "the payload has no linalg contraction (a "
                           "linalg.matmul, linalg.batch_matmul or "
                           "contraction linalg.generic) for the schedule "
                           "to tile";
    return failure();
  }
  payload.getBodyRegion().takeBody(copy->getBodyRegion());
  payload->setAttrs(copy.get()->getAttrDictionary());
  replayHeld();
  return success();
}

void ApplySchedule::runOnOperation() {
  ModuleOp payload = getOperation();
  if (failed(checkPayloadSizes(payload)) ||
      failed(checkPayloadAttributes(payload)))
    return signalPassFailure();
  // A chain of elementwise generics after the contraction (bias add, then
  // activation, then conversion) becomes the one epilogue schedules tile.
  tessel::fuseEpilogueChains(payload);
  SmallVector<std::string> reasons;
  Library *firstServable = nullptr;
  std::optional<SmallVector<tessel::TuningDatabase>> databases;
  for (Library &lib : *libraries) {
    if (!lib.refusal.empty()) {
      reasons.push_back(lib.path + ": " + lib.refusal);
      continue;
    }
    if (!firstServable)
      firstServable = &lib;
    FailureOr<SmallVector<Choice>> choices =
        chooseKnobs(lib, payload, databases);
    if (failed(choices))
      return signalPassFailure();
    std::string why, firstWhy, refusedTuned;
    for (Choice &choice : *choices) {
      why.clear();
      if (!refusedTuned.empty())
        choice.source += "; the tuned record was refused: " + refusedTuned;
      if (succeeded(tryChoice(lib, choice, payload, /*report=*/false, why))) {
        if (!reasons.empty())
          emitRemark(tessel::payloadLocation(payload))
              << "schedule '" << lib.path << "' serves this payload; "
              << llvm::join(reasons, "; ");
        return;
      }
      if (firstWhy.empty())
        firstWhy = why;
      if (StringRef(choice.source).starts_with("tuned"))
        refusedTuned = StringRef(why).split('\n').first.str();
    }
    reasons.push_back("schedule '" + lib.path +
                      "' cannot serve it: " + firstWhy);
  }

  // Nothing served the payload: show the first schedule's own diagnostics
  // for its first choice, then the reasons of the others.
  if (firstServable) {
    std::string why;
    FailureOr<SmallVector<Choice>> choices =
        chooseKnobs(*firstServable, payload, databases);
    if (succeeded(choices))
      (void)tryChoice(*firstServable, choices->front(), payload,
                      /*report=*/true, why);
  }
  if (libraries->size() > 1)
    emitError(tessel::payloadLocation(payload))
        << "no schedule serves this payload: " << llvm::join(reasons, "; ");
  signalPassFailure();
}
