//===- LoadedFunction.h - A host function's kernels on a device -*- C++ -*-===//
//
// The kernels of one exported host function, loaded on a device and ready to
// launch on caller-provided buffers: what tessel-run (through the Runner) and
// the C API (for Python) both launch through.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_LOADEDFUNCTION_H
#define TESSEL_RUNTIME_LOADEDFUNCTION_H

#include "tessel/Runtime/CudaDriver.h"
#include "tessel/Runtime/LaunchSpec.h"

#include "llvm/ADT/ArrayRef.h"

#include <memory>
#include <mutex>

namespace tessel {

class LoadedFunction {
public:
  /// Loads the kernel images (files relative to `dir`) of every launch of
  /// `spec`, raises the dynamic shared memory limit where a launch needs it,
  /// and checks launch sizes, scalar parameters and tensor maps (element
  /// type, box, swizzle, strides) against the device and TMA's limits.
  static llvm::Expected<LoadedFunction>
  load(cuda::Driver &driver, const HostFunctionSpec &spec, llvm::StringRef dir);

  /// Launches every kernel in program order on `stream` (nullptr: the
  /// legacy default stream); `buffers[i]` is the device address of the host
  /// function's argument i. Fails, launching nothing, when the number of
  /// buffers differs from the function's arguments, or a buffer is less
  /// aligned than the kernels assume. Tensor maps are encoded from the
  /// buffers' addresses at each launch (host-only work, no device copy).
  llvm::Error launch(llvm::ArrayRef<cuda::DevicePtr> buffers,
                     cuda::Stream stream = nullptr) const;

  /// Fails unless every workspace the launches leave zero (launch.json's
  /// "left_zeroed") is zero in the copy kept for `stream`: waits for the
  /// device, then reads them back. What the runner checks after its first
  /// call, so that no later call, which finds them as the first left them,
  /// is timed on stale flags.
  llvm::Error checkLeftZeroed(cuda::Stream stream = nullptr) const;

  const HostFunctionSpec &spec() const { return functionSpec; }

  /// Unloads the kernel images: a process that loads many functions (the
  /// tuner's measurement worker) keeps only the live ones on the device.
  ~LoadedFunction();
  LoadedFunction(LoadedFunction &&other);
  LoadedFunction(const LoadedFunction &) = delete;
  LoadedFunction &operator=(const LoadedFunction &) = delete;
  LoadedFunction &operator=(LoadedFunction &&) = delete;

private:
  struct Kernel {
    unsigned launch; // Index in functionSpec.launches.
    cuda::Function function;
    /// The grid it is launched with: the spec's, or for a persistent
    /// kernel as many of its blocks as the device runs at once.
    std::array<int64_t, 3> grid;
    /// Per parameter: a scalar's bits, or the argument index of a buffer
    /// or tensor map.
    std::vector<uint64_t> values;
    /// Per tensor-map parameter, in order: its encoding but the address,
    /// filled in at each launch.
    std::vector<cuda::TensorMapEncoding> tensorMaps;
  };

  /// The workspaces the launches leave zero, one allocation per stream
  /// that launched the function (each at a 256-byte boundary, as the
  /// others), made and zeroed by its first call there and freed with the
  /// function: calls on one stream run one after the other, so each finds
  /// them zero without a memset of its own. A call captured into a CUDA
  /// graph uses none of them (launch()).
  struct KeptWorkspaces {
    std::mutex mutex;
    std::vector<std::pair<cuda::Stream, cuda::DevicePtr>> perStream;
  };

  LoadedFunction(cuda::Driver &driver, const HostFunctionSpec &spec)
      : driver(&driver), functionSpec(spec),
        kept(std::make_unique<KeptWorkspaces>()) {}

  /// The kept workspaces' allocation (`bytes` of them) for `stream`: made
  /// and zeroed on the stream at its first call.
  llvm::Expected<cuda::DevicePtr> keptWorkspaces(cuda::Stream stream,
                                                 size_t bytes) const;

  cuda::Driver *driver;
  HostFunctionSpec functionSpec;
  std::vector<Kernel> kernels;
  std::vector<cuda::Module> modules; // Unloaded with the function.
  std::unique_ptr<KeptWorkspaces> kept;
};

} // namespace tessel

#endif // TESSEL_RUNTIME_LOADEDFUNCTION_H
