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

/// relu(lhs x rhs) in double precision on the CPU, row-major.
std::vector<double> cpuMatmulRelu(const WorkloadSpec &w,
                                  const std::vector<uint8_t> &lhs,
                                  const std::vector<uint8_t> &rhs,
                                  llvm::StringRef elementType);

/// relu(lhs x rhs) with f64 accumulation by a deliberately naive GPU kernel
/// (one thread per output, hand-written PTX independent of Tessel's
/// compiler), written to `out` (M*N doubles).
llvm::Error gpuMatmulRelu(cuda::Driver &driver, const WorkloadSpec &w,
                          llvm::StringRef elementType, cuda::DevicePtr lhs,
                          cuda::DevicePtr rhs, cuda::DevicePtr out);

/// The PTX of that kernel for one input element type, for inspection.
std::string referencePtx(llvm::StringRef elementType);

} // namespace tessel

#endif // TESSEL_RUNTIME_REFERENCE_H
