//===- LaunchMetadata.cpp - Read launch specs off lowered IR --------------===//

#include "tessel/Transforms/LaunchMetadata.h"
#include "tessel/Analysis/Contraction.h"
#include "tessel/Transforms/Chips.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Transform/TuneExtension/TuneExtensionOps.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/xxhash.h"

using namespace mlir;
using namespace tessel;

/// Prints a type the way MLIR writes it ("f32", "bf16", "i64").
static std::string typeName(Type type) {
  std::string name;
  llvm::raw_string_ostream os(name);
  type.print(os);
  return name;
}

/// Index of `value` among the arguments of `func`'s entry block, if it is one.
static std::optional<unsigned> argumentIndex(func::FuncOp func, Value value) {
  auto arg = dyn_cast<BlockArgument>(value);
  if (!arg || arg.getOwner() != &func.getBody().front())
    return std::nullopt;
  return arg.getArgNumber();
}

/// The function's arguments as buffers (a dynamic size is -1, which no
/// workload describes).
static std::vector<BufferSpec> argumentBuffers(func::FuncOp func) {
  std::vector<BufferSpec> buffers;
  for (Type type : func.getArgumentTypes()) {
    BufferSpec buffer;
    if (auto shaped = dyn_cast<ShapedType>(type)) {
      buffer.elementType = typeName(shaped.getElementType());
      if (shaped.hasRank())
        buffer.shape = shaped.getShape().vec();
    }
    buffers.push_back(std::move(buffer));
  }
  return buffers;
}

/// True if `generic` is an elementwise op over an output of `rank`
/// dimensions: parallel loops, one init indexed by the identity, and an
/// init value that the body does not read.
static bool isElementwise(linalg::GenericOp generic, unsigned rank) {
  if (generic.getNumDpsInits() != 1 || generic.getNumLoops() != rank ||
      generic.getNumParallelLoops() != rank ||
      !generic.getMatchingIndexingMap(generic.getDpsInitOperand(0))
           .isIdentity())
    return false;
  return generic.getMatchingBlockArgument(generic.getDpsInitOperand(0))
      .use_empty();
}

namespace {
/// Translates a chain of elementwise generics into epilogue steps.
class EpilogueBuilder {
public:
  EpilogueBuilder(func::FuncOp func, const Contraction &contraction)
      : func(func), batchRank(contraction.batch.size()) {}

  /// Collects the arguments `generic` reads besides the chain's value
  /// (`chained`): they become operands 1..P.
  LogicalResult collectOperands(linalg::GenericOp generic, Value chained) {
    for (OpOperand *input : generic.getDpsInputOperands()) {
      if (input->get() == chained)
        continue;
      std::optional<EpilogueOperandSpec> operand = describe(generic, input);
      if (!operand)
        return failure();
      if (!find(*operand))
        w.operands.push_back(std::move(*operand));
    }
    return success();
  }

  /// Appends the steps of `generic`'s body; the chain's value becomes what
  /// it yields.
  LogicalResult addSteps(linalg::GenericOp generic, Value chained) {
    llvm::DenseMap<Value, unsigned> ids;
    for (OpOperand *input : generic.getDpsInputOperands()) {
      BlockArgument arg = generic.getMatchingBlockArgument(input);
      // Operands were collected first: describe and find succeed.
      ids[arg] =
          input->get() == chained ? current : *find(*describe(generic, input));
    }
    auto idOf = [&](Value value) -> std::optional<unsigned> {
      if (auto it = ids.find(value); it != ids.end())
        return it->second;
      // A constant defined outside the body (the function's zero).
      FloatAttr constant;
      if (!matchPattern(value, m_Constant(&constant)))
        return std::nullopt;
      return ids[value] = push({"constant", {}, constant.getValueAsDouble()});
    };
    for (Operation &op : generic.getRegion().front().without_terminator()) {
      if (op.getNumResults() != 1 || op.getNumRegions() != 0)
        return failure();
      Value result = op.getResult(0);
      if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
        auto value = dyn_cast<FloatAttr>(constant.getValue());
        if (!value)
          return failure();
        ids[result] = push({"constant", {}, value.getValueAsDouble()});
        continue;
      }
      SmallVector<unsigned> args;
      for (Value operand : op.getOperands()) {
        std::optional<unsigned> id = idOf(operand);
        if (!id)
          return failure();
        args.push_back(*id);
      }
      // Conversions between float types: the reference computes in f64.
      if (isa<arith::TruncFOp, arith::ExtFOp>(op)) {
        ids[result] = args.front();
        continue;
      }
      std::string name;
      if (auto cmp = dyn_cast<arith::CmpFOp>(op))
        name =
            "cmpf_" + arith::stringifyCmpFPredicate(cmp.getPredicate()).str();
      else if (isa<arith::ArithDialect, math::MathDialect>(op.getDialect()))
        name = op.getName().stripDialect().str();
      std::optional<unsigned> arity = epilogueArity(name);
      if (!arity || *arity != args.size() ||
          !(isa<FloatType>(result.getType()) || isa<arith::CmpFOp>(op)))
        return failure();
      ids[result] = push({name, {args.begin(), args.end()}, 0});
    }
    auto yield = cast<linalg::YieldOp>(generic.getRegion().front().back());
    std::optional<unsigned> yielded = idOf(yield.getOperand(0));
    if (!yielded)
      return failure();
    current = *yielded;
    return success();
  }

  /// The epilogue whose last value is the chain's result.
  void finish() {
    if (current == 0) {
      // The steps did not change the accumulator (only conversions).
      w.epilogue.clear();
      w.operands.clear();
      return;
    }
    if (current != 1 + w.operands.size() + w.epilogue.size() - 1)
      push({"maxnumf", {current, current}, 0}); // The value itself.
  }

  WorkloadSpec w;

private:
  /// An input of `generic` besides the chain's value as an epilogue
  /// operand: a function argument read through a projection of the
  /// output's dimensions; nullopt for anything else.
  std::optional<EpilogueOperandSpec> describe(linalg::GenericOp generic,
                                              OpOperand *input) const {
    std::optional<unsigned> argument = argumentIndex(func, input->get());
    AffineMap map = generic.getMatchingIndexingMap(input);
    if (!argument || !map.isProjectedPermutation(false) ||
        map.getNumResults() == 0)
      return std::nullopt;
    EpilogueOperandSpec operand{*argument, {}};
    for (AffineExpr e : map.getResults())
      operand.dims.push_back(dimName(cast<AffineDimExpr>(e).getPosition()));
    return operand;
  }
  /// The value number of an operand already collected.
  std::optional<unsigned> find(const EpilogueOperandSpec &operand) const {
    for (auto [i, o] : llvm::enumerate(w.operands))
      if (o.argument == operand.argument && o.dims == operand.dims)
        return 1 + i;
    return std::nullopt;
  }
  std::string dimName(unsigned loop) const {
    if (loop < batchRank)
      return "b" + std::to_string(loop);
    return loop == batchRank ? "m" : "n";
  }
  unsigned push(EpilogueStep step) {
    w.epilogue.push_back(std::move(step));
    return w.operands.size() + w.epilogue.size();
  }

  func::FuncOp func;
  unsigned batchRank;
  unsigned current = 0;
};
} // namespace

std::optional<WorkloadSpec> tessel::recognizeWorkload(func::FuncOp func) {
  if (func.isExternal() || !func.getBody().hasOneBlock())
    return std::nullopt;
  auto ret = dyn_cast<func::ReturnOp>(func.getBody().front().getTerminator());
  if (!ret || ret.getNumOperands() != 1)
    return std::nullopt;

  // Walk back from the result to the contraction.
  SmallVector<linalg::GenericOp> chain;
  SmallVector<Value> chained; // The value each generic reads from the chain.
  Value value = ret.getOperand(0);
  FailureOr<Contraction> contraction = failure();
  while (Operation *def = value.getDefiningOp()) {
    std::string why;
    contraction = inferContraction(def, why);
    if (succeeded(contraction))
      break;
    auto generic = dyn_cast<linalg::GenericOp>(def);
    if (!generic)
      return std::nullopt;
    Value next;
    for (Value input : generic.getDpsInputs()) {
      if (argumentIndex(func, input))
        continue;
      if (next)
        return std::nullopt;
      next = input;
    }
    if (!next)
      return std::nullopt;
    chain.push_back(generic);
    chained.push_back(next);
    value = next;
  }
  if (failed(contraction) || !contraction->hasStaticShape() ||
      contraction->op->getNumResults() != 1)
    return std::nullopt;
  std::reverse(chain.begin(), chain.end());
  std::reverse(chained.begin(), chained.end());

  // A zero-filled accumulator; without an epilogue it is the output.
  auto fill = contraction->acc.getDefiningOp<linalg::FillOp>();
  if (!fill || !matchPattern(fill.getInputs()[0], m_AnyZeroFloat()))
    return std::nullopt;
  Value out =
      chain.empty() ? fill.getDpsInits()[0] : chain.back().getDpsInits()[0];
  std::optional<unsigned> lhs = argumentIndex(func, contraction->lhs);
  std::optional<unsigned> rhs = argumentIndex(func, contraction->rhs);
  std::optional<unsigned> outIndex = argumentIndex(func, out);
  if (!lhs || !rhs || !outIndex)
    return std::nullopt;

  unsigned rank = contraction->batch.size() + 2;
  EpilogueBuilder epilogue(func, *contraction);
  for (auto [generic, input] : llvm::zip_equal(chain, chained)) {
    OpOperand *operand =
        llvm::find_if(generic->getOpOperands(),
                      [&](OpOperand &o) { return o.get() == input; });
    if (!isElementwise(generic, rank) ||
        !generic.getMatchingIndexingMap(operand).isIdentity() ||
        failed(epilogue.collectOperands(generic, input)))
      return std::nullopt;
  }
  for (auto [generic, input] : llvm::zip_equal(chain, chained))
    if (failed(epilogue.addSteps(generic, input)))
      return std::nullopt;
  epilogue.finish();

  WorkloadSpec w = std::move(epilogue.w);
  w.lhs = *lhs;
  w.rhs = *rhs;
  w.out = *outIndex;
  w.batch.assign(contraction->batch.begin(), contraction->batch.end());
  w.m = contraction->m;
  w.n = contraction->n;
  w.k = contraction->k;
  w.lhsTransposed = contraction->lhsTransposed;
  w.rhsTransposed = contraction->rhsTransposed;
  w.accumulatorType = typeName(contraction->accElementType);
  if (func->hasAttr(kAllowTf32AttrName) && contraction->lhsElementType.isF32())
    w.precision = "tf32";
  // Whatever else the reference could not compute (an i8 operand, an
  // output that is also an input) is not a workload either.
  if (llvm::Error e = validateWorkload(w, argumentBuffers(func))) {
    llvm::consumeError(std::move(e));
    return std::nullopt;
  }
  return w;
}

/// A JSON value as an attribute: objects become dictionaries, numbers i64
/// or f64 attributes.
static Attribute toAttribute(MLIRContext *context,
                             const llvm::json::Value &value) {
  Builder b(context);
  if (const llvm::json::Object *object = value.getAsObject()) {
    SmallVector<NamedAttribute> fields;
    for (const auto &[name, field] : *object)
      fields.push_back(b.getNamedAttr(name, toAttribute(context, field)));
    return b.getDictionaryAttr(fields);
  }
  if (const llvm::json::Array *array = value.getAsArray()) {
    SmallVector<Attribute> elements;
    for (const llvm::json::Value &element : *array)
      elements.push_back(toAttribute(context, element));
    return b.getArrayAttr(elements);
  }
  if (std::optional<bool> flag = value.getAsBoolean())
    return b.getBoolAttr(*flag);
  if (std::optional<int64_t> integer = value.getAsInteger())
    return b.getI64IntegerAttr(*integer);
  if (std::optional<double> number = value.getAsNumber())
    return b.getF64FloatAttr(*number);
  if (std::optional<llvm::StringRef> text = value.getAsString())
    return b.getStringAttr(*text);
  return b.getUnitAttr(); // null
}

/// An attribute as JSON, the inverse of toAttribute; fails with the reason
/// on what JSON cannot hold (an i128, a type).
static FailureOr<llvm::json::Value> toJson(Attribute attr, std::string &why) {
  if (auto dict = dyn_cast<DictionaryAttr>(attr)) {
    llvm::json::Object object;
    for (NamedAttribute field : dict) {
      FailureOr<llvm::json::Value> value = toJson(field.getValue(), why);
      if (failed(value)) {
        why = "'" + field.getName().str() + "' " + why;
        return failure();
      }
      object[field.getName().str()] = std::move(*value);
    }
    return llvm::json::Value(std::move(object));
  }
  if (auto array = dyn_cast<ArrayAttr>(attr)) {
    llvm::json::Array elements;
    for (Attribute element : array) {
      FailureOr<llvm::json::Value> value = toJson(element, why);
      if (failed(value))
        return failure();
      elements.push_back(std::move(*value));
    }
    return llvm::json::Value(std::move(elements));
  }
  if (auto flag = dyn_cast<BoolAttr>(attr))
    return llvm::json::Value(flag.getValue());
  if (auto integer = dyn_cast<IntegerAttr>(attr)) {
    if (integer.getType().isIntOrIndex() &&
        integer.getValue().getSignificantBits() <= 64)
      return llvm::json::Value(integer.getValue().getSExtValue());
    why = "= " + llvm::toString(integer.getValue(), 10, /*Signed=*/true) +
          ", not a 64-bit integer";
    return failure();
  }
  if (auto number = dyn_cast<FloatAttr>(attr))
    return llvm::json::Value(number.getValueAsDouble());
  if (auto text = dyn_cast<StringAttr>(attr))
    return llvm::json::Value(text.str());
  if (isa<UnitAttr>(attr))
    return llvm::json::Value(nullptr);
  why = "is neither a string, a number, an array nor a dictionary";
  return failure();
}

DictionaryAttr tessel::workloadAttr(MLIRContext *context,
                                    const WorkloadSpec &workload) {
  return cast<DictionaryAttr>(toAttribute(context, toJSON(workload)));
}

std::optional<int64_t> tessel::spannedElements(ShapedType type) {
  int64_t offset = 0;
  SmallVector<int64_t> strides;
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || failed(memref.getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(offset) ||
      llvm::any_of(strides, ShapedType::isDynamic)) {
    offset = 0;
    strides = computeStrides(type.getShape());
  }
  int64_t last = offset;
  for (auto [size, stride] : llvm::zip_equal(type.getShape(), strides)) {
    if (size == 0)
      return 0;
    int64_t step;
    if (llvm::MulOverflow(size - 1, stride, step) ||
        llvm::AddOverflow(last, step, last))
      return std::nullopt;
  }
  int64_t bytes;
  unsigned bits = type.getElementTypeBitWidth();
  if (last == INT64_MAX ||
      llvm::MulOverflow(last + 1, int64_t(llvm::divideCeil(bits, 8)), bytes))
    return std::nullopt;
  return last + 1;
}

std::string tessel::scheduleHash(ModuleOp schedule) {
  OwningOpRef<ModuleOp> copy = schedule.clone();
  // The lowest chip a schedule declares does not change its kernels (they
  // are compiled for the chip asked for); a tessel.target_chip does, as
  // the chip they are compiled for, and stays in the key.
  copy.get()->removeAttr(kMinChipAttrName);
  UnitAttr unit = UnitAttr::get(schedule.getContext());
  copy->walk([&](transform::tune::KnobOp knob) {
    knob.removeSelectedAttr();
    knob.setOptionsAttr(unit);
  });
  std::string text;
  llvm::raw_string_ostream os(text);
  copy->print(os, OpPrintingFlags().printGenericOpForm());
  return llvm::formatv("{0:x16}", llvm::xxh3_64bits(text)).str();
}

Location tessel::payloadLocation(ModuleOp payload) {
  for (auto func : payload.getOps<FunctionOpInterface>())
    return func->getLoc();
  return payload.getLoc();
}

llvm::Expected<std::string> tessel::workloadKey(ModuleOp payload) {
  auto fail = [](const llvm::Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
  };
  std::string key;
  for (auto func : payload.getOps<func::FuncOp>()) {
    std::optional<WorkloadSpec> w = recognizeWorkload(func);
    if (!w)
      continue;
    if (!key.empty())
      return fail("the payload has several functions to tune; tune one "
                  "function per module");
    key = w->key(argumentBuffers(func));
  }
  if (key.empty())
    return fail("no function of the payload computes a workload Tessel can "
                "check (a contraction of two arguments and an elementwise "
                "epilogue, docs/workloads.md)");
  return key;
}

/// Reads the workload attribute back: none when absent; an error, at the
/// function, when it is malformed or does not describe the function's
/// arguments (a hand-edited attribute was exported as is, with argument
/// indices out of range or an i128 dimension truncated).
static FailureOr<std::optional<WorkloadSpec>>
readWorkload(func::FuncOp func, const std::vector<BufferSpec> &arguments) {
  Attribute attr = func->getAttr(kWorkloadAttrName);
  if (!attr)
    return std::optional<WorkloadSpec>();
  auto fail = [&](const Twine &why) {
    return func.emitError() << "the " << kWorkloadAttrName << " attribute of '"
                            << func.getSymName() << "' " << why;
  };
  if (!isa<DictionaryAttr>(attr))
    return fail("must be a dictionary");
  std::string why;
  FailureOr<llvm::json::Value> json = toJson(attr, why);
  if (failed(json))
    return fail("has " + why);
  WorkloadSpec w;
  llvm::json::Path::Root root(kWorkloadAttrName);
  if (!fromJSON(*json, w, root))
    return fail("is malformed: " + llvm::toString(root.getError()));
  if (llvm::Error e = validateWorkload(w, arguments))
    return fail(llvm::toString(std::move(e)));
  return std::optional<WorkloadSpec>(w);
}

/// Reads the schedule attribute back; ignores a malformed one.
static std::optional<ScheduleSpec> readSchedule(func::FuncOp func) {
  auto dict = func->getAttrOfType<DictionaryAttr>(kScheduleAttrName);
  if (!dict)
    return std::nullopt;
  auto path = dict.getAs<StringAttr>("path");
  auto hash = dict.getAs<StringAttr>("hash");
  auto knobs = dict.getAs<DictionaryAttr>("knobs");
  if (!path || !hash || !knobs)
    return std::nullopt;
  ScheduleSpec schedule{path.str(), hash.str(), {}, ""};
  if (auto source = dict.getAs<StringAttr>("knob_source"))
    schedule.knobSource = source.str();
  for (NamedAttribute knob : knobs) {
    std::string text;
    llvm::raw_string_ostream os(text);
    if (auto integer = dyn_cast<IntegerAttr>(knob.getValue()))
      os << integer.getValue();
    else if (auto str = dyn_cast<StringAttr>(knob.getValue()))
      os << str.getValue();
    else
      os << knob.getValue();
    schedule.knobs[knob.getName().str()] = text;
  }
  return schedule;
}

/// Which buffer `value` is in the host function: one of its arguments, or
/// a workspace (a `gpu.alloc` of the function, numbered in `workspaces`).
static bool bufferOf(func::FuncOp func, Value value,
                     const llvm::DenseMap<Value, unsigned> &workspaces,
                     KernelParamSpec &param) {
  if (std::optional<unsigned> index = argumentIndex(func, value)) {
    param.argument = *index;
    param.workspace = false;
    return true;
  }
  auto it = workspaces.find(value);
  if (it == workspaces.end())
    return false;
  param.argument = it->second;
  param.workspace = true;
  return true;
}

/// Describes a tensor map the host creates from one of `func`'s buffers
/// (`nvgpu.tma.create.descriptor` of a `memref.cast` of an argument, of a
/// workspace, or of a leading `memref.subview` of one); the runtime encodes
/// it with cuTensorMapEncodeTiled. Fails with a diagnostic on anything
/// else.
static LogicalResult
readTensorMap(func::FuncOp func, nvgpu::TmaCreateDescriptorOp create,
              const llvm::DenseMap<Value, unsigned> &workspaces,
              KernelParamSpec &param) {
  Value tensor = create.getTensor();
  if (auto cast = tensor.getDefiningOp<memref::CastOp>())
    tensor = cast.getSource();
  TensorMapSpec &map = param.tensorMap;
  if (auto view = tensor.getDefiningOp<memref::ReinterpretCastOp>()) {
    // A strided view of a buffer (every eighth row of a matrix whose rows
    // TMA cannot read): static sizes, strides and offset, which count from
    // the buffer's start whatever views lie between.
    auto [strides, offset] = view.getType().getStridesAndOffset();
    if (!view.getType().hasStaticShape() || ShapedType::isDynamic(offset) ||
        llvm::any_of(strides, ShapedType::isDynamic))
      return create.emitError()
             << "tensor map of a reinterpret_cast with a dynamic size, "
                "stride or offset";
    map.shape = view.getType().getShape().vec();
    map.strides.assign(strides.begin(), strides.end());
    map.offset = offset;
    tensor = view.getSource();
    while (true) {
      if (auto cast = tensor.getDefiningOp<memref::CastOp>())
        tensor = cast.getSource();
      else if (auto subview = tensor.getDefiningOp<memref::SubViewOp>())
        tensor = subview.getSource();
      else
        break;
    }
  } else if (auto subview = tensor.getDefiningOp<memref::SubViewOp>()) {
    // The leading part of a buffer: zero offsets, unit strides, static
    // sizes.
    if (!llvm::all_of(
            subview.getMixedOffsets(),
            [](OpFoldResult o) { return isConstantIntValue(o, 0); }) ||
        !subview.hasUnitStride() || !subview.getType().hasStaticShape())
      return create.emitError()
             << "tensor map of a subview that is not the leading part of "
                "its buffer (zero offsets, unit strides, static sizes)";
    map.shape = subview.getType().getShape().vec();
    tensor = subview.getSource();
  }
  if (!bufferOf(func, tensor, workspaces, param))
    return create.emitError()
           << "tensor map of a value that is neither an argument of '"
           << func.getSymName() << "' nor a workspace it allocates; the "
           << "runtime only encodes tensor maps of the host function's "
           << "buffers";
  param.kind = KernelParamSpec::Kind::TensorMap;
  for (Value size : create.getBoxDimensions()) {
    std::optional<int64_t> box = getConstantIntValue(size);
    if (!box || *box <= 0)
      return create.emitError()
             << "tensor map box sizes must be positive constants";
    map.box.push_back(*box);
  }
  nvgpu::TensorMapDescriptorType type = create.getTensorMap().getType();
  auto strip = [](StringRef name, StringRef prefix) {
    name.consume_front(prefix);
    return name.str();
  };
  map.swizzle =
      strip(nvgpu::stringifyTensorMapSwizzleKind(type.getSwizzle()), "swizzle_");
  map.l2Promotion =
      strip(nvgpu::stringifyTensorMapL2PromoKind(type.getL2promo()), "l2promo_");
  map.oobFill = nvgpu::stringifyTensorMapOOBKind(type.getOob()).str();
  map.interleave =
      strip(nvgpu::stringifyTensorMapInterleaveKind(type.getInterleave()),
            "interleave_");
  return success();
}

/// Reads three constant launch sizes; fails with a diagnostic otherwise.
static LogicalResult readSizes(gpu::LaunchFuncOp launch, StringRef what,
                               gpu::KernelDim3 dims,
                               std::array<int64_t, 3> &sizes) {
  for (auto [i, value] :
       llvm::enumerate(SmallVector<Value>{dims.x, dims.y, dims.z})) {
    std::optional<int64_t> size = getConstantIntValue(value);
    if (!size || *size <= 0)
      return launch.emitError()
             << what << " size "
             << "xyz"[i]
             << " is not a positive constant; Tessel launches need static "
                "launch sizes";
    sizes[i] = *size;
  }
  return success();
}

FailureOr<HostFunctionSpec> tessel::collectLaunchSpec(func::FuncOp func) {
  HostFunctionSpec spec;
  spec.name = func.getSymName().str();
  spec.schedule = readSchedule(func);
  for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
    auto memref = dyn_cast<MemRefType>(type);
    if (!memref || !memref.hasStaticShape() || !memref.getLayout().isIdentity())
      return func.emitError()
             << "argument #" << i << " has type " << type
             << ": only statically shaped, row-major memrefs are supported";
    spec.arguments.push_back(
        {typeName(memref.getElementType()), memref.getShape().vec()});
  }
  FailureOr<std::optional<WorkloadSpec>> workload =
      readWorkload(func, spec.arguments);
  if (failed(workload))
    return failure();
  spec.workload = *workload;
  for (Block &block : func.getBody()) {
    auto ret = dyn_cast<func::ReturnOp>(block.getTerminator());
    if (!ret)
      continue;
    spec.results.clear();
    for (Value value : ret.getOperands()) {
      std::optional<unsigned> index = argumentIndex(func, value);
      if (!index)
        return ret.emitError()
               << "function '" << spec.name
               << "' returns a value that is not one of its arguments; "
                  "Tessel host functions write their results in place";
      spec.results.push_back(*index);
    }
  }

  // Workspaces: device buffers the function allocates (gpu.alloc) for its
  // kernels; the runtime allocates them at each call.
  llvm::DenseMap<Value, unsigned> workspaces;
  WalkResult allocs = func.walk([&](gpu::AllocOp alloc) -> WalkResult {
    MemRefType type = alloc.getType();
    if (alloc.getAsyncToken() || !type.hasStaticShape() ||
        !type.getLayout().isIdentity() || type.getMemorySpace())
      return alloc.emitError()
             << "a workspace must be a synchronous gpu.alloc of a statically "
                "shaped, row-major memref in global memory";
    workspaces[alloc.getMemref()] = spec.workspaces.size();
    spec.workspaces.push_back(
        {typeName(type.getElementType()), type.getShape().vec()});
    return WalkResult::advance();
  });
  if (allocs.wasInterrupted())
    return failure();
  // A workspace set to zero before the launches (stream-K's flags): the
  // runtime zeroes it at each call, or once where the launches leave it
  // zero (kLeftZeroedAttrName). No other memset runs on the host.
  WalkResult memsets = func.walk([&](gpu::MemsetOp memset) -> WalkResult {
    auto it = workspaces.find(memset.getDst());
    bool zero = matchPattern(memset.getValue(), m_Zero()) ||
                matchPattern(memset.getValue(), m_PosZeroFloat());
    if (memset.getAsyncToken() || it == workspaces.end() || !zero)
      return memset.emitError()
             << "a host memset must be a synchronous gpu.memset of a "
                "workspace to zero";
    // The runtime zeroes it before the first launch: no launch before the
    // memset may use it.
    for (Operation *op = memset->getPrevNode(); op; op = op->getPrevNode())
      if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op);
          launch &&
          llvm::is_contained(launch.getKernelOperands(), memset.getDst()))
        return memset.emitError()
               << "a workspace is zeroed before the launches that use it";
    spec.workspaces[it->second].zeroed = true;
    spec.workspaces[it->second].leftZeroed =
        memset->hasAttr(kLeftZeroedAttrName);
    return WalkResult::advance();
  });
  if (memsets.wasInterrupted())
    return failure();

  WalkResult walk = func.walk([&](gpu::LaunchFuncOp launch) -> WalkResult {
    LaunchSpec ls;
    ls.binary = launch.getKernelModuleName().str();
    ls.kernel = launch.getKernelName().str();
    ls.persistent = launch->hasAttr(kPersistentLaunchAttrName);
    if (launch.hasClusterSize() &&
        failed(readSizes(launch, "cluster",
                         launch.getClusterSizeOperandValues(), ls.cluster)))
      return WalkResult::interrupt();
    if (failed(readSizes(launch, "grid", launch.getGridSizeOperandValues(),
                         ls.grid)) ||
        failed(readSizes(launch, "block", launch.getBlockSizeOperandValues(),
                         ls.block)))
      return WalkResult::interrupt();
    if (Value smem = launch.getDynamicSharedMemorySize()) {
      std::optional<int64_t> bytes = getConstantIntValue(smem);
      if (!bytes || *bytes < 0)
        return launch.emitError()
               << "dynamic shared memory size is not a non-negative constant";
      ls.dynamicSharedMemory = *bytes;
    }
    for (auto [i, operand] : llvm::enumerate(launch.getKernelOperands())) {
      KernelParamSpec param;
      Attribute constant;
      if (bufferOf(func, operand, workspaces, param)) {
        param.kind = KernelParamSpec::Kind::Buffer;
      } else if (auto create =
                     operand.getDefiningOp<nvgpu::TmaCreateDescriptorOp>()) {
        if (failed(readTensorMap(func, create, workspaces, param)))
          return WalkResult::interrupt();
      } else if (matchPattern(operand, m_Constant(&constant)) &&
                 isa<IntegerAttr, FloatAttr>(constant) &&
                 !operand.getType().isIndex()) {
        param.kind = KernelParamSpec::Kind::Scalar;
        param.scalarType = typeName(operand.getType());
        llvm::raw_string_ostream os(param.scalarValue);
        if (auto intAttr = dyn_cast<IntegerAttr>(constant))
          os << intAttr.getValue().getSExtValue();
        else
          os << llvm::formatv("{0:e17}",
                              cast<FloatAttr>(constant).getValueAsDouble());
      } else {
        return launch.emitError()
               << "kernel argument #" << i << " is neither an argument of '"
               << spec.name
               << "', a workspace it allocates, nor a non-index scalar "
                  "constant; a plain launcher cannot provide it";
      }
      ls.params.push_back(std::move(param));
    }
    spec.launches.push_back(std::move(ls));
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  return spec;
}
