//===- CheckKernelPayload.cpp - Entry check of the PTX lowering -----------===//

#include "tessel/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

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
static bool addressable(MemRefType type, unsigned indexBitwidth) {
  if (indexBitwidth >= 64 || !type.hasStaticShape())
    return true;
  unsigned bits = type.getElementTypeBitWidth();
  int64_t limit = (int64_t(1) << (indexBitwidth - 1)) - 1;
  return bits == 0 ||
         type.getNumElements() <= limit / llvm::divideCeil(bits, 8);
}

/// Checks one host function; reports the first problem found.
static LogicalResult checkFunction(func::FuncOp func, unsigned indexBitwidth) {
  for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
    if (auto memref = dyn_cast<MemRefType>(type);
        memref && !addressable(memref, indexBitwidth))
      return func.emitError()
             << "argument #" << i << " of '" << func.getSymName()
             << "' has type " << type << ": its " << memref.getNumElements()
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
    if (failed(checkFunction(func, indexBitwidth)))
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
