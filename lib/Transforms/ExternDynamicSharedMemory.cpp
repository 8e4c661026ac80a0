//===- ExternDynamicSharedMemory.cpp - Dynamic shared memory as extern ----===//

#include "tessel/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace tessel {
#define GEN_PASS_DEF_TESSELEXTERNDYNAMICSHAREDMEMORY
#include "tessel/Transforms/Passes.h.inc"
} // namespace tessel

using namespace mlir;

/// NVPTX's (and NVVM's) shared address space.
static constexpr unsigned kSharedAddressSpace = 3;

namespace {

struct ExternDynamicSharedMemory
    : tessel::impl::TesselExternDynamicSharedMemoryBase<
          ExternDynamicSharedMemory> {
  void runOnOperation() override {
    getOperation().walk([](LLVM::GlobalOp global) {
      auto array = dyn_cast<LLVM::LLVMArrayType>(global.getGlobalType());
      if (global.getAddrSpace() == kSharedAddressSpace && array &&
          array.getNumElements() == 0)
        global.setLinkage(LLVM::Linkage::External);
    });
  }
};

} // namespace
