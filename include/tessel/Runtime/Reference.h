//===- Reference.h - Trusted references and host-side numerics --*- C++ -*-===//

#ifndef TESSEL_RUNTIME_REFERENCE_H
#define TESSEL_RUNTIME_REFERENCE_H

#include "tessel/Runtime/CudaDriver.h"
#include "tessel/Runtime/LaunchSpec.h"

#include <cstdint>
#include <vector>

namespace tessel {

/// Host copies of buffers in their storage types (f32, f16, bf16 bits).
double loadElement(const std::vector<uint8_t> &bytes, llvm::StringRef type,
                   int64_t index);
void storeElement(std::vector<uint8_t> &bytes, llvm::StringRef type,
                  int64_t index, double value);

/// The contraction's accumulator, sum_k A * B in f64 on the CPU, for every
/// output element ([batch..., m, n] row-major), from host copies of A and B
/// in their storage types; the epilogue is left to applyEpilogue.
std::vector<double> cpuContraction(const WorkloadSpec &w,
                                   const std::vector<uint8_t> &lhs,
                                   llvm::StringRef lhsType,
                                   const std::vector<uint8_t> &rhs,
                                   llvm::StringRef rhsType);

/// The same with f64 accumulation by a simple tiled GPU kernel (64x64
/// outputs per block, K in steps of 16 through shared memory, every access
/// predicated on its bounds; hand-written PTX independent of Tessel's
/// compiler), written to `out` (batch * M * N doubles).
llvm::Error gpuContraction(cuda::Driver &driver, const WorkloadSpec &w,
                           llvm::StringRef lhsType, llvm::StringRef rhsType,
                           cuda::DevicePtr lhs, cuda::DevicePtr rhs,
                           cuda::DevicePtr out);

/// Applies the workload's epilogue to `values` (the accumulator of every
/// output element) in place, in f64, reading the epilogue operands from
/// their host copies (`hostArguments[i]` holds argument i).
void applyEpilogue(const WorkloadSpec &w, llvm::ArrayRef<BufferSpec> arguments,
                   llvm::ArrayRef<std::vector<uint8_t>> hostArguments,
                   std::vector<double> &values);

/// The PTX of the GPU reference kernel for A's and B's element types, for
/// inspection.
std::string referencePtx(llvm::StringRef lhsType, llvm::StringRef rhsType);

} // namespace tessel

#endif // TESSEL_RUNTIME_REFERENCE_H
