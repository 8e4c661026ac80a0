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

/// Name of the unit attribute of a gpu.launch_func whose kernel is
/// persistent (tessel-persistent-launches): launch.json's "persistent".
constexpr llvm::StringLiteral kPersistentLaunchAttrName = "tessel.persistent";

/// Name of the unit attribute of a host gpu.memset of a workspace to zero
/// whose launches leave the workspace zero again (stream-K's flags, each
/// cleared by the block that reads it): launch.json's "left_zeroed", so
/// that the runtime keeps the workspace across calls and zeroes it once.
constexpr llvm::StringLiteral kLeftZeroedAttrName = "tessel.left_zeroed";

/// What `func` computes, when it is a workload Tessel can check: a
/// contraction of two of its arguments (tessel::inferContraction: either
/// layout of each, batch dimensions) into a zero-filled accumulator,
/// followed by a chain of elementwise linalg.generics whose other inputs
/// are arguments read through some of the output's dimensions and whose
/// bodies use only the arith and math ops the reference evaluates; the last
/// one (or the contraction itself) writes an argument, which the function
/// returns. Nullopt for anything else.
std::optional<WorkloadSpec> recognizeWorkload(mlir::func::FuncOp func);

/// The workload as the function attribute tessel.workload: its launch-file
/// JSON as a dictionary.
mlir::DictionaryAttr workloadAttr(mlir::MLIRContext *context,
                                  const WorkloadSpec &workload);

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

/// "matmul_relu 4096x4096x4096 f16->f16 acc=f32" (WorkloadSpec::key): the
/// tuning-database key of the payload's one recognized function. Fails when
/// there is none or several.
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
