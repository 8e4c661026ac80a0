//===- CudaDriver.h - The CUDA driver API, loaded at run time ---*- C++ -*-===//
//
// Tessel never links CUDA: libcuda.so.1 is opened with dlopen on first use,
// so the same binary builds and runs its CPU work on machines without a GPU.
// Every call's result is checked and turned into an llvm::Error naming the
// call and the driver's error.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_CUDADRIVER_H
#define TESSEL_RUNTIME_CUDADRIVER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace tessel::cuda {

using DevicePtr = unsigned long long;
using Module = struct CUmod_st *;
using Function = struct CUfunc_st *;
using Stream = struct CUstream_st *;
using Event = struct CUevent_st *;
using MemPool = struct CUmemPoolHandle_st *;

/// A CUtensorMap: 128 opaque bytes, 64-byte aligned, passed to kernels by
/// value.
struct alignas(64) TensorMap {
  uint64_t words[16];
};

/// The arguments of cuTensorMapEncodeTiled; dimensions innermost first.
struct TensorMapEncoding {
  int dataType = 0; // CUtensorMapDataType
  unsigned rank = 0;
  uint64_t dims[5] = {};
  uint64_t strides[4] = {}; // Bytes, of dimensions 1 .. rank - 1.
  uint32_t box[5] = {};
  uint32_t elementStrides[5] = {1, 1, 1, 1, 1};
  int interleave = 0, swizzle = 0, l2Promotion = 0, oobFill = 0;
  /// Bytes from the buffer's address to the tensor's first element.
  uint64_t offsetBytes = 0;
};

/// What a launch decision needs to know about the GPU.
struct DeviceInfo {
  std::string name;
  int computeMajor = 0, computeMinor = 0;
  int multiprocessors = 0;
  int maxThreadsPerBlock = 0;
  int maxBlockDim[3] = {0, 0, 0}; // x, y, z
  int maxGridDim[3] = {0, 0, 0};
  int sharedMemoryPerBlock = 0;      // Without opt-in.
  int sharedMemoryPerBlockOptin = 0; // With the attribute raised.
  int l2CacheBytes = 0;
  std::string chip() const; // "sm_90"
};

/// A context on one device (its primary context).
class Driver {
public:
  /// Loads libcuda.so.1 and initializes device `ordinal`; errors say why
  /// (no driver library, no device, a bad ordinal). With `makeCurrent`, the
  /// context stays current on the calling thread (tools that own the
  /// thread); without, the thread's current context is left as it was
  /// (libraries sharing it with other CUDA users, who use makeCurrent()).
  static llvm::Expected<std::unique_ptr<Driver>> open(int ordinal = 0,
                                                      bool makeCurrent = true);
  ~Driver();

  const DeviceInfo &device() const { return info; }
  /// How many CUDA devices the driver sees.
  int deviceCount() const { return count; }

  /// Makes this driver's context (the device's primary context, the one
  /// the CUDA runtime and PyTorch use) current on the calling thread until
  /// the returned guard is destroyed, then restores the previous one.
  /// Needed on other threads than the one `open` made it current on, and
  /// after `open(ordinal, /*makeCurrent=*/false)`.
  class CurrentContext {
  public:
    ~CurrentContext();
    CurrentContext(CurrentContext &&other) : driver(other.driver) {
      other.driver = nullptr;
    }
    CurrentContext(const CurrentContext &) = delete;

  private:
    friend class Driver;
    explicit CurrentContext(Driver *driver) : driver(driver) {}
    Driver *driver;
  };
  llvm::Expected<CurrentContext> makeCurrent();

  /// JIT-compiles PTX (or loads a cubin); the JIT's error log is part of
  /// the error.
  llvm::Expected<Module> loadModule(llvm::StringRef image);
  /// Unloads a module of this context (errors ignored: a context a kernel
  /// broke refuses, and is going away).
  void unloadModule(Module module);
  llvm::Expected<Function> getFunction(Module module, llvm::StringRef name);
  llvm::Error setMaxDynamicSharedMemory(Function function, int bytes);
  /// How many blocks of `function` with `threads` threads and
  /// `sharedMemory` bytes of dynamic shared memory an SM runs at once
  /// (0: none fits).
  llvm::Expected<int> residentBlocksPerSM(Function function, int threads,
                                          int sharedMemory);

  llvm::Expected<DevicePtr> allocate(size_t bytes);
  void free(DevicePtr ptr);
  /// Stream-ordered allocation from Tessel's memory pool on the device
  /// (cuMemAllocFromPoolAsync, CUDA 11.2+), which keeps the memory it maps
  /// for later calls: usable by work queued on `stream` after this call;
  /// freeAsync returns it to the pool once that work is done.
  llvm::Expected<DevicePtr> allocateAsync(size_t bytes, Stream stream);
  void freeAsync(DevicePtr ptr, Stream stream);
  /// Whether work queued on `stream` now is being captured into a CUDA
  /// graph (cuStreamIsCapturing; false on drivers without it).
  bool isCapturing(Stream stream);
  llvm::Error copyToDevice(DevicePtr dst, const void *src, size_t bytes);
  llvm::Error copyToHost(void *dst, DevicePtr src, size_t bytes);
  llvm::Error fill32(DevicePtr dst, uint32_t value, size_t count);
  /// fill32, queued on `stream`.
  llvm::Error fill32Async(DevicePtr dst, uint32_t value, size_t count,
                          Stream stream);

  /// Launches on `stream` (nullptr: the legacy default stream) with
  /// `params` (pointers to each parameter's value). With `overlapPrevious`
  /// the launch allows programmatic stream serialization (PDL, sm_90 and
  /// later, cuLaunchKernelEx): the kernel may start before the previous one
  /// on the stream completes, and must wait for it (griddepcontrol.wait)
  /// before touching what it wrote. Drivers without cuLaunchKernelEx launch
  /// it the ordinary way.
  llvm::Error launch(Function function, const int64_t grid[3],
                     const int64_t block[3], int sharedMemory,
                     std::vector<void *> &params, Stream stream = nullptr,
                     bool overlapPrevious = false);
  /// Encodes a TMA tensor map of the buffer at `address`
  /// (cuTensorMapEncodeTiled, CUDA 12 drivers and later).
  llvm::Error encodeTensorMap(TensorMap &map, const TensorMapEncoding &encoding,
                              DevicePtr address);
  llvm::Error synchronize();

  llvm::Expected<Event> createEvent();
  void destroyEvent(Event event);
  llvm::Error record(Event event);
  /// Milliseconds between two recorded (and completed) events.
  llvm::Expected<float> elapsedMs(Event start, Event end);

  struct Api; // Resolved entry points.

private:
  Driver() = default;
  llvm::Error check(int result, llvm::StringRef call);

  std::unique_ptr<Api> api;
  void *library = nullptr;
  int cuDevice = 0;
  int count = 0;
  void *context = nullptr;
  DeviceInfo info;
  std::mutex poolMutex;
  MemPool workspacePool = nullptr; // Created by the first allocateAsync.
};

} // namespace tessel::cuda

#endif // TESSEL_RUNTIME_CUDADRIVER_H
