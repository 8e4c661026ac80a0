//===- Pipelines.h - Tessel's named pass pipelines --------------*- C++ -*-===//

#ifndef TESSEL_PIPELINES_PIPELINES_H
#define TESSEL_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace tessel {

/// Options of `tessel-lower-to-ptx`.
struct LowerToPtxOptions : public mlir::PassPipelineOptions<LowerToPtxOptions> {
  Option<std::string> chip{
      *this, "chip",
      llvm::cl::desc("Target GPU (sm_80, sm_90, sm_90a, ...); default: the "
                     "one the payload's schedules declare "
                     "(tessel.target_chip), else sm_90"),
      llvm::cl::init("")};
  Option<std::string> features{
      *this, "features",
      llvm::cl::desc("PTX features; sm_90/sm_90a need +ptx80 or higher"),
      llvm::cl::init("+ptx80")};
  Option<int> optLevel{*this, "opt-level",
                       llvm::cl::desc("LLVM optimization level (0-3)"),
                       llvm::cl::init(3)};
  Option<int64_t> indexBitwidth{
      *this, "index-bitwidth",
      llvm::cl::desc("Bitwidth of the index type in kernels (32 or 64)"),
      llvm::cl::init(64)};
  Option<int64_t> pointerAlignment{
      *this, "pointer-alignment",
      llvm::cl::desc("Alignment in bytes the runtime guarantees for kernel "
                     "buffer arguments (used to emit wide loads/stores)"),
      llvm::cl::init(16)};
};

/// Lowers a scheduled payload (functions whose work is in gpu.launch ops on
/// memrefs) to host functions that launch kernels held as PTX in
/// gpu.binary ops.
void buildLowerToPtxPipeline(mlir::OpPassManager &pm,
                             const LowerToPtxOptions &options);

/// Returns why `options` cannot produce PTX (unknown chip, a PTX version the
/// chip does not support, ...), or an empty string when they can.
std::string validateLowerToPtxOptions(const LowerToPtxOptions &options);

void registerPipelines();

} // namespace tessel

#endif // TESSEL_PIPELINES_PIPELINES_H
