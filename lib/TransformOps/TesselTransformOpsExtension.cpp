//===- TesselTransformOpsExtension.cpp - Register Tessel transform ops ----===//

#include "tessel/TransformOps/TesselTransformOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectRegistry.h"

namespace {
class TesselTransformDialectExtension
    : public mlir::transform::TransformDialectExtension<
          TesselTransformDialectExtension> {
public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TesselTransformDialectExtension)

  TesselTransformDialectExtension() {
    declareGeneratedDialect<mlir::affine::AffineDialect>();
    declareGeneratedDialect<mlir::arith::ArithDialect>();
    declareGeneratedDialect<mlir::gpu::GPUDialect>();
    declareGeneratedDialect<mlir::LLVM::LLVMDialect>();
    declareGeneratedDialect<mlir::memref::MemRefDialect>();
    declareGeneratedDialect<mlir::nvgpu::NVGPUDialect>();
    declareGeneratedDialect<mlir::NVVM::NVVMDialect>();
    declareGeneratedDialect<mlir::scf::SCFDialect>();
    declareGeneratedDialect<mlir::tensor::TensorDialect>();
    declareGeneratedDialect<mlir::vector::VectorDialect>();
    registerTransformOps<
#define GET_OP_LIST
#include "tessel/TransformOps/TesselTransformOps.cpp.inc"
        >();
  }
};
} // namespace

void tessel::registerTransformDialectExtension(
    mlir::DialectRegistry &registry) {
  registry.addExtensions<TesselTransformDialectExtension>();
}
