//===- LaunchMetadata.h - Read launch specs off lowered IR ------*- C++ -*-===//

#ifndef TESSEL_TRANSFORMS_LAUNCHMETADATA_H
#define TESSEL_TRANSFORMS_LAUNCHMETADATA_H

#include "tessel/Runtime/LaunchSpec.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace tessel {

/// The elements from a buffer's start that a value of `type` spans (a
/// memref's offset and strides included: a strided view of a larger
/// buffer); none when that count or its bytes overflow int64 (a 300 x 2^62
/// matrix). `type` has a static shape and integer or float elements.
std::optional<int64_t> spannedElements(mlir::ShapedType type);

/// Name of the function attribute describing a recognized workload.
constexpr llvm::StringLiteral kWorkloadAttrName = "tessel.workload";

/// Name of the function attribute recording the schedule applied to it:
/// {path = "...", hash = "0x...", knobs = {name = value, ...}}.
constexpr llvm::StringLiteral kScheduleAttrName = "tessel.schedule";

/// Recognizes `out = relu(lhs x rhs)` on function arguments (fill, matmul,
/// elementwise max with zero, optional cast) and returns its description as
/// a dictionary attribute, or null when `func` is something else.
mlir::DictionaryAttr recognizeWorkload(mlir::func::FuncOp func);

/// The tuning-database key of a schedule library: a hash of its transform
/// IR with every knob's options and selected value, and its
/// tessel.min_chip, left out (and comments and locations, which the
/// printer drops). Editing a knob's option list keeps the key, so records
/// of the candidates that remain are reused; changing what the schedule
/// does changes it.
std::string scheduleHash(mlir::ModuleOp schedule);

/// Where to report an error about a whole payload: its first function (an
/// implicit module has no useful location of its own).
mlir::Location payloadLocation(mlir::ModuleOp payload);

/// "matmul_relu 4096x4096x4096 f16->f16 acc=f32": the tuning-database key
/// of the payload's one recognized function. Fails when there is none or
/// several.
llvm::Expected<std::string> workloadKey(mlir::ModuleOp payload);

/// Collects the launches of a host function lowered by tessel-lower-to-ptx
/// (images and pointer alignments are left for the caller, which sees the
/// binaries). Emits a located error and fails when the function does
/// something a plain launcher cannot reproduce (non-constant launch sizes,
/// kernel arguments that are neither function arguments nor constants,
/// non-memref or dynamically shaped arguments, results that are not
/// arguments).
mlir::FailureOr<HostFunctionSpec> collectLaunchSpec(mlir::func::FuncOp func);

} // namespace tessel

#endif // TESSEL_TRANSFORMS_LAUNCHMETADATA_H
