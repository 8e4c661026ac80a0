//===- LaunchMetadata.cpp - Describe a host function's kernel launches ----===//

#include "tessel/Transforms/LaunchMetadata.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace tessel;

/// Prints a type the way MLIR writes it ("f32", "bf16", "i64").
static std::string typeName(Type type) {
  std::string name;
  llvm::raw_string_ostream os(name);
  type.print(os);
  return name;
}

/// Reads three constant launch sizes; fails with a diagnostic otherwise.
static LogicalResult readSizes(gpu::LaunchFuncOp launch, StringRef what,
                               gpu::KernelDim3 dims,
                               std::array<int64_t, 3> &sizes) {
  for (auto [i, value] : llvm::enumerate(SmallVector<Value>{dims.x, dims.y, dims.z})) {
    std::optional<int64_t> size = getConstantIntValue(value);
    if (!size || *size <= 0)
      return launch.emitError()
             << what << " size " << "xyz"[i]
             << " is not a positive constant; Tessel launches need static "
                "launch sizes";
    sizes[i] = *size;
  }
  return success();
}

FailureOr<HostFunctionInfo> tessel::collectLaunchInfo(func::FuncOp func) {
  HostFunctionInfo info;
  info.name = func.getSymName().str();
  for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
    auto memref = dyn_cast<MemRefType>(type);
    if (!memref || !memref.hasStaticShape() || !memref.getLayout().isIdentity())
      return func.emitError()
             << "argument #" << i << " has type " << type
             << ": only statically shaped, row-major memrefs are supported";
    info.arguments.push_back(
        {typeName(memref.getElementType()), llvm::to_vector(memref.getShape())});
  }
  for (Block &block : func.getBody()) {
    auto ret = dyn_cast<func::ReturnOp>(block.getTerminator());
    if (!ret)
      continue;
    info.results.clear();
    for (Value value : ret.getOperands()) {
      auto arg = dyn_cast<BlockArgument>(value);
      if (!arg || arg.getOwner() != &func.getBody().front())
        return ret.emitError()
               << "function '" << info.name
               << "' returns a value that is not one of its arguments; "
                  "Tessel host functions write their results in place";
      info.results.push_back(arg.getArgNumber());
    }
  }

  WalkResult walk = func.walk([&](gpu::LaunchFuncOp launch) -> WalkResult {
    LaunchInfo li;
    li.binary = launch.getKernelModuleName().str();
    li.kernel = launch.getKernelName().str();
    if (launch.hasClusterSize())
      return launch.emitError() << "cluster launches are not supported yet";
    if (failed(readSizes(launch, "grid", launch.getGridSizeOperandValues(),
                         li.grid)) ||
        failed(readSizes(launch, "block", launch.getBlockSizeOperandValues(),
                         li.block)))
      return WalkResult::interrupt();
    if (Value smem = launch.getDynamicSharedMemorySize()) {
      std::optional<int64_t> bytes = getConstantIntValue(smem);
      if (!bytes || *bytes < 0)
        return launch.emitError()
               << "dynamic shared memory size is not a constant";
      li.dynamicSharedMemory = *bytes;
    }
    for (auto [i, operand] : llvm::enumerate(launch.getKernelOperands())) {
      KernelParamInfo param;
      auto arg = dyn_cast<BlockArgument>(operand);
      Attribute constant;
      if (arg && arg.getOwner() == &func.getBody().front()) {
        param.kind = KernelParamInfo::Kind::Buffer;
        param.functionArg = arg.getArgNumber();
      } else if (matchPattern(operand, m_Constant(&constant)) &&
                 isa<IntegerAttr, FloatAttr>(constant) &&
                 !operand.getType().isIndex()) {
        param.kind = KernelParamInfo::Kind::Scalar;
        param.scalarType = typeName(operand.getType());
        llvm::raw_string_ostream os(param.scalarValue);
        if (auto intAttr = dyn_cast<IntegerAttr>(constant))
          os << intAttr.getValue().getSExtValue();
        else
          os << llvm::formatv("{0:e17}",
                              cast<FloatAttr>(constant).getValueAsDouble());
      } else {
        return launch.emitError()
               << "kernel argument #" << i
               << " is neither an argument of '" << info.name
               << "' nor a non-index scalar constant; a plain launcher "
                  "cannot provide it";
      }
      li.params.push_back(std::move(param));
    }
    info.launches.push_back(std::move(li));
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  return info;
}

llvm::json::Value tessel::toJSON(const HostFunctionInfo &info) {
  llvm::json::Array arguments;
  for (const BufferInfo &buffer : info.arguments)
    arguments.push_back(llvm::json::Object{
        {"element_type", buffer.elementType},
        {"shape", llvm::json::Array(buffer.shape)},
    });
  llvm::json::Array launches;
  for (const LaunchInfo &launch : info.launches) {
    llvm::json::Array params;
    for (const KernelParamInfo &param : launch.params) {
      if (param.kind == KernelParamInfo::Kind::Buffer)
        params.push_back(llvm::json::Object{
            {"kind", "buffer"}, {"argument", param.functionArg}});
      else
        params.push_back(llvm::json::Object{{"kind", "scalar"},
                                            {"type", param.scalarType},
                                            {"value", param.scalarValue}});
    }
    launches.push_back(llvm::json::Object{
        {"binary", launch.binary},
        {"kernel", launch.kernel},
        {"grid", llvm::json::Array(launch.grid)},
        {"block", llvm::json::Array(launch.block)},
        {"dynamic_shared_memory", launch.dynamicSharedMemory},
        {"params", std::move(params)},
    });
  }
  return llvm::json::Object{
      {"function", info.name},
      {"calling_convention", "bare-pointer"},
      {"arguments", std::move(arguments)},
      {"results", llvm::json::Array(info.results)},
      {"launches", std::move(launches)},
  };
}
