//===- TesselTransformOps.h - Tessel transform ops --------------*- C++ -*-===//

#ifndef TESSEL_TRANSFORMOPS_TESSELTRANSFORMOPS_H
#define TESSEL_TRANSFORMOPS_TESSELTRANSFORMOPS_H

#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Transform/IR/TransformTypes.h"
#include "mlir/Dialect/Transform/Interfaces/TransformInterfaces.h"
#include "mlir/IR/OpImplementation.h"

#define GET_OP_CLASSES
#include "tessel/TransformOps/TesselTransformOps.h.inc"

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace tessel {
/// The integer `param` holds, or failure when it does not hold exactly one
/// integer (the knob-valued params of Tessel's transform ops).
mlir::FailureOr<int64_t>
getSingleIntParam(mlir::transform::TransformState &state, mlir::Value param);

/// The silenceable failure of transform op `op` on payload op `target`:
/// `message` at the transform op, with a "target op" note at `target`.
mlir::DiagnosedSilenceableFailure
failOnTarget(mlir::transform::TransformOpInterface op, mlir::Operation *target,
             const llvm::Twine &message);

/// Registers Tessel's transform ops as an extension of the transform dialect.
void registerTransformDialectExtension(mlir::DialectRegistry &registry);
} // namespace tessel

#endif // TESSEL_TRANSFORMOPS_TESSELTRANSFORMOPS_H
