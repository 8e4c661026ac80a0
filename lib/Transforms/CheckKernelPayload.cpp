//===- CheckKernelPayload.cpp - Entry check of the PTX lowering -----------===//

#include "tessel/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "llvm/ADT/StringExtras.h"

namespace tessel {
#define GEN_PASS_DEF_TESSELCHECKKERNELPAYLOAD
#include "tessel/Transforms/Passes.h.inc"
} // namespace tessel

using namespace mlir;

namespace {

struct CheckKernelPayload
    : tessel::impl::TesselCheckKernelPayloadBase<CheckKernelPayload> {
  using Base::Base;
  void runOnOperation() override;
};

/// Returns true for ops that compute on data and so must not stay on the
/// host: the host side only launches kernels on its arguments.
static bool isHostComputation(Operation *op) {
  StringRef dialect = op->getDialect() ? op->getDialect()->getNamespace() : "";
  if (llvm::is_contained({"linalg", "scf", "vector", "tensor"}, dialect))
    return true;
  return isa<affine::AffineForOp, affine::AffineParallelOp,
             affine::AffineLoadOp, affine::AffineStoreOp, memref::CopyOp,
             memref::LoadOp, memref::StoreOp>(op);
}

/// Whether a kernel with `indexBitwidth`-bit indices can address every byte
/// of a buffer of `type`.
/// The elements from a buffer's start that a memref of `type` spans: its
/// offset and strides included (a strided view of a larger buffer).
static int64_t spannedElements(MemRefType type) {
  int64_t offset;
  SmallVector<int64_t> strides;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(offset) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return type.getNumElements();
  int64_t last = offset;
  for (auto [size, stride] : llvm::zip_equal(type.getShape(), strides)) {
    if (size == 0)
      return 0;
    last += (size - 1) * stride;
  }
  return last + 1;
}

static bool addressable(MemRefType type, unsigned indexBitwidth) {
  if (indexBitwidth >= 64 || !type.hasStaticShape())
    return true;
  unsigned bits = type.getElementTypeBitWidth();
  int64_t limit = (int64_t(1) << (indexBitwidth - 1)) - 1;
  return bits == 0 ||
         spannedElements(type) <= limit / llvm::divideCeil(bits, 8);
}

/// Whether `name` is a PTX identifier: a letter, `_` or `$`, then letters,
/// digits, `_` and `$` (PTX also allows a leading `%`, which MLIR symbol
/// names cannot carry into kernel names).
static bool isPtxIdentifier(StringRef name) {
  auto follows = [](char c) {
    return llvm::isAlnum(c) || c == '_' || c == '$';
  };
  return !name.empty() && !llvm::isDigit(name.front()) &&
         llvm::all_of(name, follows);
}

/// The element type at the bottom of `type` (shaped types' elements).
static Type scalarOf(Type type) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    return shaped.getElementType();
  return type;
}

/// Why NVPTX cannot hold values of `type`, or "" when it can.
static std::string unsupportedElement(Type type) {
  Type scalar = scalarOf(type);
  if (auto f = dyn_cast<FloatType>(scalar); f && f.getWidth() > 64)
    return "NVPTX has no floating-point type wider than 64 bits";
  if (auto i = dyn_cast<IntegerType>(scalar); i && i.getWidth() > 64)
    return "NVPTX has no integer type wider than 64 bits";
  return "";
}

/// The SM version of `chip` ("sm_90a" -> 90, with `arch` set), if it
/// names one.
static std::optional<unsigned> smVersion(StringRef chip, bool &arch) {
  unsigned sm;
  if (!chip.consume_front("sm_") || chip.consumeInteger(10, sm))
    return std::nullopt;
  arch = chip == "a";
  return sm;
}

/// The chips that have `op`, when `sm` (with the `a` suffix when `arch`)
/// is not one of them: "sm_80 or later", "sm_90a". Empty otherwise, and
/// for operations any chip has.
static std::string missingOnChip(Operation *op, unsigned sm, bool arch) {
  auto atLeast = [&](unsigned min) -> std::string {
    return sm >= min ? "" : "sm_" + std::to_string(min) + " or later";
  };
  if (isa<nvgpu::DeviceAsyncCopyOp, nvgpu::DeviceAsyncCreateGroupOp,
          nvgpu::DeviceAsyncWaitOp, nvgpu::MmaSyncOp>(op))
    return atLeast(80);
  if (isa<nvgpu::LdMatrixOp>(op))
    return atLeast(75);
  if (isa<nvgpu::TmaAsyncLoadOp, nvgpu::TmaAsyncStoreOp,
          nvgpu::MBarrierArriveExpectTxOp>(op))
    return atLeast(90);
  // wgmma is sm_90a's alone (Blackwell has other tensor-core instructions).
  if (isa<nvgpu::WarpgroupMmaOp, nvgpu::WarpgroupGenerateDescriptorOp>(op))
    return sm == 90 && arch ? "" : "sm_90a";
  return "";
}

/// Checks what NVPTX needs of `func` and its kernels for `chip` (may be
/// empty): a PTX identifier as its name, element types it can hold, and
/// operations the chip has.
static LogicalResult checkTarget(func::FuncOp func, StringRef chip) {
  if (!isPtxIdentifier(func.getSymName()))
    return func.emitError()
           << "function name '" << func.getSymName()
           << "' is not a PTX identifier (letters, digits, '_' and '$', not "
              "starting with a digit): its kernels are named after it";
  bool arch = false;
  std::optional<unsigned> sm = smVersion(chip, arch);
  WalkResult result = func.walk([&](Operation *op) -> WalkResult {
    for (TypeRange types :
         {TypeRange(op->getOperandTypes()), TypeRange(op->getResultTypes())})
      for (Type type : types)
        if (std::string why = unsupportedElement(type); !why.empty()) {
          op->emitError() << "values of type " << type << ": " << why;
          return WalkResult::interrupt();
        }
    if (!sm)
      return WalkResult::advance();
    if (std::string needs = missingOnChip(op, *sm, arch); !needs.empty()) {
      op->emitError() << "'" << op->getName() << "' needs " << needs
                      << "; the chip is " << chip
                      << " (choose a schedule for it, or another chip=)";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// Checks one host function; reports the first problem found.
static LogicalResult checkFunction(func::FuncOp func, unsigned indexBitwidth) {
  for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
    if (auto memref = dyn_cast<MemRefType>(type);
        memref && !addressable(memref, indexBitwidth))
      return func.emitError()
             << "argument #" << i << " of '" << func.getSymName()
             << "' has type " << type << ": its " << spannedElements(memref)
             << " elements need addresses beyond "
             << "the kernels' " << indexBitwidth
             << "-bit indices (use index-bitwidth=64)";
    if (isa<TensorType>(type))
      return func.emitError()
             << "function '" << func.getSymName()
             << "' still has tensor arguments: apply a schedule that "
                "bufferizes (e.g. --tessel-apply-schedule) before lowering";
    auto memref = dyn_cast<MemRefType>(type);
    if (memref && !memref.hasStaticShape())
      return func.emitError()
             << "argument #" << i << " of '" << func.getSymName()
             << "' has type " << type << ": dynamic shapes are not supported";
  }

  WalkResult result = func.walk<WalkOrder::PreOrder>([&](Operation *op)
                                                         -> WalkResult {
    if (auto launch = dyn_cast<gpu::LaunchOp>(op)) {
      WalkResult inner = launch.walk([&](memref::AllocOp alloc) {
        // Workgroup memory becomes the launch's shared memory.
        if (gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(alloc.getType()))
          return WalkResult::advance();
        alloc.emitError() << "memref.alloc inside a GPU kernel would become a "
                             "device malloc: keep the value in registers or "
                             "use memref.alloca / workgroup memory";
        return WalkResult::interrupt();
      });
      return inner.wasInterrupted() ? WalkResult::interrupt()
                                    : WalkResult::skip();
    }
    // Buffers the host function makes (workspaces: gpu.alloc, and views of
    // them) are addressed by the kernels too.
    for (Type type : op->getResultTypes())
      if (auto memref = dyn_cast<MemRefType>(type);
          memref && !addressable(memref, indexBitwidth)) {
        op->emitError() << "'" << op->getName() << "' makes a buffer of type "
                        << type << ": its " << spannedElements(memref)
                        << " elements need addresses beyond the kernels' "
                        << indexBitwidth
                        << "-bit indices (use index-bitwidth=64)";
        return WalkResult::interrupt();
      }
    if (llvm::any_of(op->getResultTypes(), llvm::IsaPred<TensorType>)) {
      op->emitError() << "tensor computation left outside a GPU kernel: the "
                         "schedule must bufferize and map all work to "
                         "gpu.launch";
      return WalkResult::interrupt();
    }
    if (isHostComputation(op)) {
      op->emitError() << "computation left on the host: the schedule must map "
                         "all work into gpu.launch";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

} // namespace

void CheckKernelPayload::runOnOperation() {
  ModuleOp module = getOperation();
  bool hasLaunch = false;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    if (failed(checkFunction(func, indexBitwidth)) ||
        failed(checkTarget(func, chip)))
      return signalPassFailure();
    func.walk([&](Operation *op) {
      hasLaunch |= isa<gpu::LaunchOp, gpu::LaunchFuncOp>(op);
    });
  }
  if (!hasLaunch) {
    module.emitError() << "no gpu.launch in the module: nothing to compile to "
                          "PTX (was a schedule applied?)";
    return signalPassFailure();
  }
}
