//===- LaunchMetadata.cpp - Read launch specs off lowered IR --------------===//

#include "tessel/Transforms/LaunchMetadata.h"
#include "tessel/Transforms/Chips.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
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

/// True if `generic` computes max(x, 0) of its only input, possibly cast.
static bool isRelu(linalg::GenericOp generic) {
  if (generic.getNumDpsInputs() != 1 || generic.getNumDpsInits() != 1 ||
      generic.getNumReductionLoops() != 0)
    return false;
  Block &body = generic.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  Value result = yield.getOperand(0);
  if (auto cast = result.getDefiningOp<arith::TruncFOp>())
    result = cast.getIn();
  auto max = result.getDefiningOp<arith::MaximumFOp>();
  if (!max)
    return false;
  Value input = body.getArgument(0);
  return (max.getLhs() == input &&
          matchPattern(max.getRhs(), m_AnyZeroFloat())) ||
         (max.getRhs() == input &&
          matchPattern(max.getLhs(), m_AnyZeroFloat()));
}

DictionaryAttr tessel::recognizeWorkload(func::FuncOp func) {
  if (func.isExternal() || !func.getBody().hasOneBlock())
    return {};
  auto ret = dyn_cast<func::ReturnOp>(func.getBody().front().getTerminator());
  if (!ret || ret.getNumOperands() != 1)
    return {};
  auto relu = ret.getOperand(0).getDefiningOp<linalg::GenericOp>();
  if (!relu || !isRelu(relu))
    return {};
  auto matmul = relu.getDpsInputs()[0].getDefiningOp<linalg::MatmulOp>();
  // Transposed or broadcast operands (user indexing maps) are another
  // workload than the references compute.
  if (!matmul ||
      (!matmul.getIndexingMaps().empty() &&
       !linalg::MatmulOp::isDefaultIndexingMaps(matmul.getIndexingMaps())))
    return {};
  auto fill = matmul.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
  if (!fill || !matchPattern(fill.getInputs()[0], m_AnyZeroFloat()))
    return {};
  std::optional<unsigned> lhs = argumentIndex(func, matmul.getDpsInputs()[0]);
  std::optional<unsigned> rhs = argumentIndex(func, matmul.getDpsInputs()[1]);
  std::optional<unsigned> out = argumentIndex(func, relu.getDpsInits()[0]);
  auto lhsType = dyn_cast<RankedTensorType>(matmul.getDpsInputs()[0].getType());
  auto rhsType = dyn_cast<RankedTensorType>(matmul.getDpsInputs()[1].getType());
  auto accType = dyn_cast<RankedTensorType>(matmul.getDpsInits()[0].getType());
  if (!lhs || !rhs || !out || !lhsType || !rhsType || !accType ||
      !lhsType.hasStaticShape() || !rhsType.hasStaticShape())
    return {};
  Builder b(func.getContext());
  return b.getDictionaryAttr({
      b.getNamedAttr("kind", b.getStringAttr("matmul_relu")),
      b.getNamedAttr("lhs", b.getI64IntegerAttr(*lhs)),
      b.getNamedAttr("rhs", b.getI64IntegerAttr(*rhs)),
      b.getNamedAttr("out", b.getI64IntegerAttr(*out)),
      b.getNamedAttr("m", b.getI64IntegerAttr(lhsType.getDimSize(0))),
      b.getNamedAttr("n", b.getI64IntegerAttr(rhsType.getDimSize(1))),
      b.getNamedAttr("k", b.getI64IntegerAttr(lhsType.getDimSize(1))),
      b.getNamedAttr("accumulator_type",
                     b.getStringAttr(typeName(accType.getElementType()))),
  });
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
    DictionaryAttr w = recognizeWorkload(func);
    if (!w)
      continue;
    if (!key.empty())
      return fail("the payload has several functions to tune; tune one "
                  "function per module");
    auto num = [&](StringRef n) { return w.getAs<IntegerAttr>(n).getInt(); };
    auto typeOf = [&](StringRef n) {
      return typeName(
          cast<ShapedType>(func.getArgumentTypes()[num(n)]).getElementType());
    };
    key = llvm::formatv("matmul_relu {0}x{1}x{2} {3}->{4} acc={5}", num("m"),
                        num("n"), num("k"), typeOf("lhs"), typeOf("out"),
                        w.getAs<StringAttr>("accumulator_type").getValue())
              .str();
  }
  if (key.empty())
    return fail("no function of the payload computes a workload Tessel can "
                "check (relu(A x B) on its arguments)");
  return key;
}

/// Reads the workload attribute back: none when absent; an error, at the
/// function, when it is malformed or does not describe the function's
/// arguments (a hand-edited attribute was exported as is, with argument
/// indices out of range or an i128 dimension truncated).
static FailureOr<std::optional<WorkloadSpec>> readWorkload(func::FuncOp func) {
  Attribute attr = func->getAttr(kWorkloadAttrName);
  if (!attr)
    return std::optional<WorkloadSpec>();
  auto fail = [&](const Twine &why) {
    return func.emitError() << "the " << kWorkloadAttrName << " attribute of '"
                            << func.getSymName() << "' " << why;
  };
  auto dict = dyn_cast<DictionaryAttr>(attr);
  if (!dict)
    return fail("must be a dictionary");
  WorkloadSpec w;
  for (auto [name, field] :
       {std::make_pair("kind", &w.kind),
        std::make_pair("accumulator_type", &w.accumulatorType)}) {
    auto value = dict.getAs<StringAttr>(name);
    if (!value)
      return fail(Twine("needs a string '") + name + "'");
    *field = value.str();
  }
  if (w.kind != "matmul_relu")
    return fail("has kind '" + w.kind + "'; Tessel knows 'matmul_relu'");
  if (!llvm::is_contained({"f16", "bf16", "f32", "f64"}, w.accumulatorType))
    return fail("has accumulator_type '" + w.accumulatorType +
                "'; expected f16, bf16, f32 or f64");
  int64_t values[6];
  const char *names[6] = {"m", "n", "k", "lhs", "rhs", "out"};
  for (auto [name, value] : llvm::zip_equal(names, values)) {
    auto integer = dict.getAs<IntegerAttr>(name);
    if (!integer || !integer.getType().isIntOrIndex())
      return fail(Twine("needs an integer '") + name + "'");
    if (integer.getValue().getSignificantBits() > 64 ||
        integer.getValue().getSExtValue() < 0)
      return fail(Twine("has '") + name + "' = " +
                  llvm::toString(integer.getValue(), 10, /*Signed=*/true) +
                  ", not an integer in [0, 2^63)");
    value = integer.getValue().getSExtValue();
  }
  auto [m, n, k, lhs, rhs, out] = values;
  if (m == 0 || n == 0 || k == 0)
    return fail("has an empty dimension (m, n and k must be positive)");
  int64_t args = func.getNumArguments();
  std::pair<int64_t, std::array<int64_t, 2>> operands[] = {
      {lhs, {m, k}}, {rhs, {k, n}}, {out, {m, n}}};
  for (auto [index, shape] : operands) {
    if (index >= args)
      return fail("names argument #" + Twine(index) + ", but '" +
                  func.getSymName() + "' has " + Twine(args));
    auto type = dyn_cast<MemRefType>(func.getArgumentTypes()[index]);
    if (!type || type.getShape() != ArrayRef<int64_t>(shape))
      return fail("describes argument #" + Twine(index) + " as " +
                  Twine(shape[0]) + "x" + Twine(shape[1]) +
                  ", but it has type " +
                  llvm::formatv("{0}", func.getArgumentTypes()[index]).str());
  }
  if (out == lhs || out == rhs)
    return fail("names the output among the inputs");
  w.m = m, w.n = n, w.k = k;
  w.lhs = lhs, w.rhs = rhs, w.out = out;
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
  if (auto subview = tensor.getDefiningOp<memref::SubViewOp>()) {
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
  FailureOr<std::optional<WorkloadSpec>> workload = readWorkload(func);
  if (failed(workload))
    return failure();
  spec.workload = *workload;
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

  WalkResult walk = func.walk([&](gpu::LaunchFuncOp launch) -> WalkResult {
    LaunchSpec ls;
    ls.binary = launch.getKernelModuleName().str();
    ls.kernel = launch.getKernelName().str();
    if (launch.hasClusterSize())
      return launch.emitError() << "cluster launches are not supported yet";
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
