//===- TesselTransformOpsExtension.cpp - Register Tessel transform ops ----===//

#include "tessel/TransformOps/TesselTransformOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/IR/DialectRegistry.h"

namespace {
class TesselTransformDialectExtension
    : public mlir::transform::TransformDialectExtension<
          TesselTransformDialectExtension> {
public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TesselTransformDialectExtension)

  TesselTransformDialectExtension() {
    declareGeneratedDialect<mlir::gpu::GPUDialect>();
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
