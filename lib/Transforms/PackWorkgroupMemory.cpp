//===- PackWorkgroupMemory.cpp - Workgroup allocs to dynamic shared memory ===//

#include "tessel/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/Support/MathExtras.h"

namespace tessel {
#define GEN_PASS_DEF_TESSELPACKWORKGROUPMEMORY
#include "tessel/Transforms/Passes.h.inc"
} // namespace tessel

using namespace mlir;

namespace {

struct PackWorkgroupMemory
    : tessel::impl::TesselPackWorkgroupMemoryBase<PackWorkgroupMemory> {
  void runOnOperation() override;
};

} // namespace

/// Smallest alignment of each buffer: what 16-byte vector accesses
/// (ldmatrix rows, cp.async) need.
static constexpr int64_t kMinAlignment = 16;

/// The size in bytes of an element of a workgroup buffer: integers and
/// floats of whole bytes, and static vectors of them. None for anything
/// else (index, whose size the target decides, complex, sub-byte types).
static std::optional<int64_t> elementBytes(Type type) {
  int64_t count = 1;
  if (auto vector = dyn_cast<VectorType>(type)) {
    if (vector.isScalable())
      return std::nullopt;
    count = vector.getNumElements();
    type = vector.getElementType();
  }
  if (!type.isIntOrFloat() || type.getIntOrFloatBitWidth() % 8 != 0)
    return std::nullopt;
  return count * (type.getIntOrFloatBitWidth() / 8);
}

/// Lays out the workgroup allocations of one launch.
static LogicalResult packLaunch(gpu::LaunchOp launch) {
  SmallVector<memref::AllocOp> allocs;
  launch.walk([&](memref::AllocOp alloc) {
    if (gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(alloc.getType()))
      allocs.push_back(alloc);
  });
  if (allocs.empty())
    return success();
  if (launch.getDynamicSharedMemorySize())
    return launch.emitError()
           << "cannot pack workgroup allocations into a launch that already "
              "sets dynamic_shared_memory_size";

  IRRewriter rewriter(launch.getContext());
  rewriter.setInsertionPointToStart(&launch.getBody().front());
  Location loc = launch.getLoc();
  Attribute workgroup = allocs.front().getType().getMemorySpace();
  Value base = gpu::DynamicSharedMemoryOp::create(
      rewriter, loc,
      MemRefType::get({ShapedType::kDynamic}, rewriter.getI8Type(),
                      MemRefLayoutAttrInterface(), workgroup));

  int64_t offset = 0;
  for (memref::AllocOp alloc : allocs) {
    MemRefType type = alloc.getType();
    if (!type.hasStaticShape() || !type.getLayout().isIdentity())
      return alloc.emitError() << "workgroup allocation " << type
                               << " must have a static shape and an identity "
                                  "layout to be placed in shared memory";
    std::optional<int64_t> bytes = elementBytes(type.getElementType());
    if (!bytes)
      return alloc.emitError()
             << "workgroup allocation of " << type
             << ": elements must be integers or floats of whole bytes, or "
                "static vectors of them";
    int64_t alignment = std::max<int64_t>(
        kMinAlignment, alloc.getAlignment().value_or(kMinAlignment));
    offset = llvm::alignTo(offset, alignment);
    // Checked before the allocation is replaced (and erased): the error is
    // located at it.
    int64_t size, end;
    if (llvm::MulOverflow(type.getNumElements(), *bytes, size) ||
        llvm::AddOverflow(offset, size, end) || end > INT32_MAX)
      return alloc.emitError()
             << "the launch's workgroup allocations exceed " << INT32_MAX
             << " bytes (its dynamic shared memory size is a 32-bit value)";

    rewriter.setInsertionPoint(alloc);
    Value shift = arith::ConstantIndexOp::create(rewriter, alloc.getLoc(),
                                                 offset);
    Value view = memref::ViewOp::create(rewriter, alloc.getLoc(), type, base,
                                        shift, ValueRange{});
    for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
      if (isa<memref::DeallocOp>(user))
        rewriter.eraseOp(user);
    rewriter.replaceOp(alloc, view);
    offset = end;
  }

  rewriter.setInsertionPoint(launch);
  Value size = arith::ConstantIntOp::create(rewriter, loc,
                                            rewriter.getI32Type(), offset);
  launch.getDynamicSharedMemorySizeMutable().assign(size);
  return success();
}

void PackWorkgroupMemory::runOnOperation() {
  WalkResult result = getOperation().walk([](gpu::LaunchOp launch) {
    return failed(packLaunch(launch)) ? WalkResult::interrupt()
                                      : WalkResult::advance();
  });
  if (result.wasInterrupted())
    signalPassFailure();
}
