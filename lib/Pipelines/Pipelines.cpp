//===- Pipelines.cpp - Tessel's named pass pipelines ----------------------===//

#include "tessel/Pipelines/Pipelines.h"
#include "tessel/Transforms/Chips.h"
#include "tessel/Transforms/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/Transforms/OptimizeForNVVM.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

/// Whether `chip` may have griddepcontrol (programmatic dependent launch):
/// sm_90 and later, or a chip the payload decides (the pass checks it).
static bool mayHaveGridDependencyControl(StringRef chip) {
  std::optional<tessel::Chip> parsed = tessel::parseChip(chip);
  return chip.empty() || (parsed && parsed->sm >= 90);
}

void tessel::buildLowerToPtxPipeline(OpPassManager &pm,
                                     const LowerToPtxOptions &options) {
  // Step 1. Reject payloads that cannot become kernels (not bufferized,
  // dynamic shapes, work left on the host, device mallocs, operations or
  // schedules the chip cannot run), and settle the chip: chip=, else the
  // one the payload's schedules declare, else sm_90.
  TesselCheckKernelPayloadOptions check;
  check.indexBitwidth = options.indexBitwidth;
  check.chip = options.chip;
  check.defaultChip = "sm_90";
  pm.addPass(createTesselCheckKernelPayload(check));

  // Step 1b. On sm_90 and later, each kernel after the first of a host
  // function waits for its predecessor on the GPU (griddepcontrol), so
  // that runtimes can launch it before that one ends.
  if (mayHaveGridDependencyControl(options.chip))
    pm.addNestedPass<func::FuncOp>(tessel::createTesselOverlapLaunches());

  // Step 2. Outline. Workgroup allocations become views of the launch's
  // dynamic shared memory. Index computations and constants are sunk into
  // the launches first: canonicalizing earlier would hoist vector constants
  // out of them and turn them into kernel arguments.
  pm.addPass(tessel::createTesselPackWorkgroupMemory());
  pm.addNestedPass<func::FuncOp>(createGpuLaunchSinkIndexComputationsPass());
  pm.addPass(createGpuKernelOutliningPass());
  // Kernels launched in clusters (split-K) are compiled for their cluster
  // shape (.reqnctapercluster).
  pm.addPass(tessel::createTesselRequireClusterDims());
  // Kernels that move registers from producers to consumers (setmaxnreg)
  // are compiled for one block per SM (.minnctapersm 1).
  pm.addPass(tessel::createTesselRequireEntryRegisters());
  // Persistent kernels may be launched with fewer blocks than tiles.
  pm.addPass(tessel::createTesselPersistentLaunches());

  // Step 3. Inside the GPU module: fold views into accesses, lower n-D
  // vectors, affine, nvgpu and scf to what the NVVM conversion accepts.
  // Tensor-map kernel arguments become grid-constant parameters.
  OpPassManager &gpuPm = pm.nest<gpu::GPUModuleOp>();
  gpuPm.addPass(createCanonicalizerPass());
  gpuPm.addPass(createCSEPass());
  gpuPm.addPass(memref::createFoldMemRefAliasOpsPass());
  gpuPm.addPass(tessel::createTesselLowerBf16MmaSync());
  // Math first: its approximations are n-D vector code when the epilogue
  // is, which tessel-lower-vectors then takes down to 1-D.
  gpuPm.addPass(tessel::createTesselLowerMath());
  gpuPm.addPass(tessel::createTesselLowerVectors());
  tessel::TesselSetVectorAlignmentOptions alignment;
  alignment.pointerAlignment = options.pointerAlignment;
  gpuPm.addPass(tessel::createTesselSetVectorAlignment(alignment));
  gpuPm.addPass(createLowerAffinePass());
  // nvgpu is lowered while loops are still scf: wgmma accumulators are loop
  // iter_args, which its conversion retypes through scf but not through cf
  // blocks. It also retypes scf's index values to i64, so with 32-bit
  // indices (which nvgpu's lowering does not support anyway) it runs after
  // scf-to-cf, as it did before wgmma.
  auto lowerNvgpu = [&] {
    gpuPm.addPass(createConvertNVGPUToNVVMPass());
    gpuPm.addPass(tessel::createTesselLowerTensorMapParams());
    // It emits memref accesses (wgmma fragment stores) into views: fold
    // them, and expand what remains.
    gpuPm.addPass(memref::createFoldMemRefAliasOpsPass());
    gpuPm.addPass(memref::createExpandStridedMetadataPass());
    gpuPm.addPass(createLowerAffinePass());
  };
  if (options.indexBitwidth == 64)
    lowerNvgpu();
  gpuPm.addPass(createSCFToControlFlowPass());
  if (options.indexBitwidth != 64)
    lowerNvgpu();
  gpuPm.addPass(createCanonicalizerPass());
  gpuPm.addPass(createCSEPass());
  // Canonicalization folds the element-wise inserts that lowered an n-D
  // vector (a transposed operand's column, vector<4x1xf32>) back into a
  // vector.shape_cast, which the NVVM conversion cannot lower: lower it
  // again.
  gpuPm.addPass(tessel::createTesselLowerVectors());

  // Step 4. Attach the NVVM target (the chip settled in step 1, PTX
  // features, opt level).
  TesselAttachNvvmTargetOptions target;
  target.features = options.features;
  target.optLevel = options.optLevel;
  pm.addPass(createTesselAttachNvvmTarget(target));

  // Step 5. GPU dialects to NVVM/LLVM; memrefs are passed as bare pointers
  // (all shapes are static), which is what Tessel's launcher provides.
  ConvertGpuOpsToNVVMOpsOptions toNvvm;
  toNvvm.useBarePtrCallConv = true;
  toNvvm.indexBitwidth = options.indexBitwidth;
  gpuPm.addPass(createConvertGpuOpsToNVVMOps(toNvvm));
  gpuPm.addPass(tessel::createTesselLowerTensorMapParams());
  gpuPm.addPass(tessel::createTesselExternDynamicSharedMemory());
  gpuPm.addPass(createConvertNVVMToLLVMPass());
  gpuPm.addPass(LLVM::createNVVMOptimizeForTargetPass());
  gpuPm.addPass(createCanonicalizerPass());
  gpuPm.addPass(createCSEPass());
  gpuPm.addPass(createReconcileUnrealizedCastsPass());

  // Step 6. Serialize each GPU module to PTX with LLVM's NVPTX backend (no
  // CUDA toolkit needed; what it cannot compile is an error, not an
  // abort); the host stays at the memref level, where launch metadata is
  // read from it.
  pm.addPass(tessel::createTesselSerializeToPtx());
  pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());
}

std::string
tessel::validateLowerToPtxOptions(const LowerToPtxOptions &options) {
  // An empty chip is settled from the payload (the PTX version is checked
  // then, by tessel-attach-nvvm-target).
  std::optional<int> minPtx = tessel::minimumPtxVersion(options.chip);
  if (!options.chip.empty() && !minPtx)
    return "chip '" + options.chip +
           "' is not a supported NVIDIA target (sm_70 ... sm_120a)";
  FailureOr<int> version = tessel::ptxVersion(options.features);
  if (failed(version))
    return "malformed PTX feature in '" + options.features + "'";
  int ptx = *version;
  if (ptx == 0)
    return "features '" + options.features +
           "' name no PTX version (e.g. +ptx80)";
  if (minPtx && ptx < *minPtx)
    return llvm::formatv("PTX version {0}.{1} does not support {2}: use "
                         "features=+ptx{3} or higher",
                         ptx / 10, ptx % 10, options.chip, *minPtx)
        .str();
  if (options.optLevel < 0 || options.optLevel > 3)
    return "opt-level must be 0, 1, 2 or 3";
  if (options.indexBitwidth != 32 && options.indexBitwidth != 64)
    return "index-bitwidth must be 32 or 64";
  if (options.pointerAlignment < 1 || options.pointerAlignment > 256 ||
      !llvm::isPowerOf2_64(options.pointerAlignment))
    return "pointer-alignment must be a power of two between 1 and 256";
  return "";
}

void tessel::registerPipelines() {
  registerPassPipeline(
      "tessel-lower-to-ptx",
      "Lower a scheduled payload (gpu.launch on memrefs) to host functions "
      "launching PTX kernels held in gpu.binary ops",
      [](OpPassManager &pm, StringRef text,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        LowerToPtxOptions options;
        if (failed(options.parseFromString(text)))
          return failure();
        if (std::string error = validateLowerToPtxOptions(options);
            !error.empty())
          return errorHandler("tessel-lower-to-ptx: " + error);
        buildLowerToPtxPipeline(pm, options);
        return success();
      },
      [](function_ref<void(const detail::PassOptions &)> handler) {
        handler(LowerToPtxOptions());
      });
}
