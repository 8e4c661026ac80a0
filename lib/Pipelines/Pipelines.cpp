//===- Pipelines.cpp - Tessel's named pass pipelines ----------------------===//

#include "tessel/Pipelines/Pipelines.h"
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

using namespace mlir;

void tessel::buildLowerToPtxPipeline(OpPassManager &pm,
                                     const LowerToPtxOptions &options) {
  // Step 1. Reject payloads that cannot become kernels (not bufferized,
  // dynamic shapes, work left on the host, device mallocs).
  pm.addPass(createTesselCheckKernelPayload());

  // Step 2. Outline. Index computations and constants are sunk into the
  // launches first: canonicalizing earlier would hoist vector constants out
  // of them and turn them into kernel arguments.
  pm.addNestedPass<func::FuncOp>(createGpuLaunchSinkIndexComputationsPass());
  pm.addPass(createGpuKernelOutliningPass());

  // Step 3. Inside the GPU module: fold views into accesses and lower n-D
  // vectors, affine and scf to what the NVVM conversion accepts.
  OpPassManager &gpuPm = pm.nest<gpu::GPUModuleOp>();
  gpuPm.addPass(createCanonicalizerPass());
  gpuPm.addPass(createCSEPass());
  gpuPm.addPass(memref::createFoldMemRefAliasOpsPass());
  gpuPm.addPass(tessel::createTesselLowerVectors());
  tessel::TesselSetVectorAlignmentOptions alignment;
  alignment.pointerAlignment = options.pointerAlignment;
  gpuPm.addPass(tessel::createTesselSetVectorAlignment(alignment));
  gpuPm.addPass(createLowerAffinePass());
  gpuPm.addPass(createSCFToControlFlowPass());
  gpuPm.addPass(createCanonicalizerPass());
  gpuPm.addPass(createCSEPass());

  // Step 4. Attach the NVVM target (chip, PTX features, opt level).
  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  target.features = options.features;
  target.optLevel = options.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(target));

  // Step 5. GPU dialects to NVVM/LLVM; memrefs are passed as bare pointers
  // (all shapes are static), which is what Tessel's launcher provides.
  gpuPm.addPass(createConvertNVGPUToNVVMPass());
  ConvertGpuOpsToNVVMOpsOptions toNvvm;
  toNvvm.useBarePtrCallConv = true;
  toNvvm.indexBitwidth = options.indexBitwidth;
  gpuPm.addPass(createConvertGpuOpsToNVVMOps(toNvvm));
  gpuPm.addPass(createConvertNVVMToLLVMPass());
  gpuPm.addPass(LLVM::createNVVMOptimizeForTargetPass());
  gpuPm.addPass(createCanonicalizerPass());
  gpuPm.addPass(createCSEPass());
  gpuPm.addPass(createReconcileUnrealizedCastsPass());

  // Step 6. Serialize each GPU module to PTX with LLVM's NVPTX backend (no
  // CUDA toolkit needed); the host stays at the memref level, where launch
  // metadata is read from it.
  GpuModuleToBinaryPassOptions toBinary;
  toBinary.compilationTarget = "isa";
  pm.addPass(createGpuModuleToBinaryPass(toBinary));
  pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());
}

void tessel::registerPipelines() {
  PassPipelineRegistration<LowerToPtxOptions>(
      "tessel-lower-to-ptx",
      "Lower a scheduled payload (gpu.launch on memrefs) to host functions "
      "launching PTX kernels held in gpu.binary ops",
      buildLowerToPtxPipeline);
}
