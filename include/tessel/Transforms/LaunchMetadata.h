//===- LaunchMetadata.h - What a runtime needs to launch kernels -*- C++ -*-===//
//
// Host functions lowered by tessel-lower-to-ptx only launch kernels on their
// arguments. This describes those launches in plain data, so that a runtime
// that never sees MLIR (tessel's own, or a user's) can run them.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_TRANSFORMS_LAUNCHMETADATA_H
#define TESSEL_TRANSFORMS_LAUNCHMETADATA_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Support/LLVM.h"
#include "llvm/Support/JSON.h"

#include <array>
#include <string>

namespace tessel {

/// One host-function argument: a statically shaped buffer.
struct BufferInfo {
  std::string elementType; // "f32", "f16", "bf16", "i32", ...
  llvm::SmallVector<int64_t> shape;
};

/// One kernel parameter: a buffer (bare pointer to a host-function
/// argument) or a scalar constant.
struct KernelParamInfo {
  enum class Kind { Buffer, Scalar } kind;
  unsigned functionArg = 0; // Buffer: index of the host-function argument.
  std::string scalarType;   // Scalar: "i32", "i64", "f32", ...
  std::string scalarValue;  // Scalar: decimal text of the value.
};

/// One `gpu.launch_func`, in program order.
struct LaunchInfo {
  std::string binary; // Symbol of the gpu.binary holding the kernel.
  std::string kernel; // Kernel (entry) name in the PTX.
  std::array<int64_t, 3> grid;
  std::array<int64_t, 3> block;
  int64_t dynamicSharedMemory = 0;
  llvm::SmallVector<KernelParamInfo> params;
};

struct HostFunctionInfo {
  std::string name;
  llvm::SmallVector<BufferInfo> arguments;
  /// Results are arguments written in place: the i-th result is argument
  /// `results[i]` (bufferization keeps public signatures returning them).
  llvm::SmallVector<unsigned> results;
  llvm::SmallVector<LaunchInfo> launches;
};

/// Collects the launches of `func`. Emits a located error and fails when the
/// function does something a plain launcher cannot reproduce (non-constant
/// launch sizes, kernel arguments that are not function arguments or
/// constants, non-memref or dynamically shaped arguments).
mlir::FailureOr<HostFunctionInfo> collectLaunchInfo(mlir::func::FuncOp func);

llvm::json::Value toJSON(const HostFunctionInfo &info);

} // namespace tessel

#endif // TESSEL_TRANSFORMS_LAUNCHMETADATA_H
