//===- CudaDriver.cpp - The CUDA driver API, loaded at run time -----------===//

#include "tessel/Runtime/CudaDriver.h"

#include "llvm/Support/FormatVariadic.h"

#include <dlfcn.h>

using namespace tessel::cuda;

namespace {
// Values from the CUDA driver API (cuda.h), stable across releases.
enum : int {
  kSuccess = 0,
  kAttrMaxThreadsPerBlock = 1,
  kAttrMaxBlockDimX = 2, // then Y, Z
  kAttrMaxGridDimX = 5,  // then Y, Z
  kAttrSharedMemoryPerBlock = 8,
  kAttrMultiprocessorCount = 16,
  kAttrL2CacheSize = 38,
  kAttrComputeMajor = 75,
  kAttrComputeMinor = 76,
  kAttrSharedMemoryPerBlockOptin = 97,
  kFuncAttrMaxDynamicSharedBytes = 8,
  kJitErrorLogBuffer = 5,
  kJitErrorLogBufferSize = 6,
  kMemAllocationTypePinned = 1,
  kMemLocationTypeDevice = 1,
  kMemPoolAttrReleaseThreshold = 4,
  kLaunchAttributeProgrammaticStreamSerialization = 6,
};

// CUmemPoolProps (cuda.h); the driver reads the documented fields and
// requires the rest to be zero.
struct MemPoolProps {
  int allocType;
  int handleTypes;
  int locationType;
  int locationId;
  void *win32SecurityAttributes;
  size_t maxSize;
  unsigned short usage;
  unsigned char reserved[54];
};
static_assert(sizeof(MemPoolProps) == 88, "CUmemPoolProps is 88 bytes");

// CUlaunchAttribute and CUlaunchConfig (cuda.h): an attribute is an id and
// a 64-byte union of values.
struct LaunchAttribute {
  int id;
  union alignas(8) {
    int programmaticStreamSerializationAllowed;
    unsigned char pad[64];
  } value;
};
static_assert(sizeof(LaunchAttribute) == 72, "CUlaunchAttribute is 72 bytes");
struct LaunchConfig {
  unsigned gridDim[3];
  unsigned blockDim[3];
  unsigned sharedMemBytes;
  Stream stream;
  LaunchAttribute *attrs;
  unsigned numAttrs;
};
static_assert(sizeof(LaunchConfig) == 56, "CUlaunchConfig is 56 bytes");
} // namespace

struct Driver::Api {
  int (*cuInit)(unsigned);
  int (*cuDeviceGetCount)(int *);
  int (*cuDeviceGet)(int *, int);
  int (*cuDeviceGetName)(char *, int, int);
  int (*cuDeviceGetAttribute)(int *, int, int);
  int (*cuDevicePrimaryCtxRetain)(void **, int);
  int (*cuDevicePrimaryCtxRelease)(int);
  int (*cuCtxSetCurrent)(void *);
  int (*cuCtxPushCurrent)(void *);
  int (*cuCtxPopCurrent)(void **);
  int (*cuCtxSynchronize)();
  int (*cuModuleLoadDataEx)(Module *, const void *, unsigned, int *, void **);
  int (*cuModuleGetFunction)(Function *, Module, const char *);
  int (*cuModuleUnload)(Module);
  int (*cuFuncSetAttribute)(Function, int, int);
  int (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(int *, Function, int,
                                                     size_t);
  int (*cuMemAlloc)(DevicePtr *, size_t);
  int (*cuMemFree)(DevicePtr);
  int (*cuMemcpyHtoD)(DevicePtr, const void *, size_t);
  int (*cuMemcpyDtoH)(void *, DevicePtr, size_t);
  int (*cuMemsetD32)(DevicePtr, unsigned, size_t);
  int (*cuMemsetD32Async)(DevicePtr, unsigned, size_t, Stream);
  int (*cuLaunchKernel)(Function, unsigned, unsigned, unsigned, unsigned,
                        unsigned, unsigned, unsigned, Stream, void **, void **);
  int (*cuEventCreate)(Event *, unsigned);
  int (*cuEventDestroy)(Event);
  int (*cuEventRecord)(Event, Stream);
  int (*cuEventSynchronize)(Event);
  int (*cuEventElapsedTime)(float *, Event, Event);
  int (*cuGetErrorName)(int, const char **);
  int (*cuGetErrorString)(int, const char **);
  // Optional (CUDA 11.2+): only functions with workspaces need them.
  int (*cuMemPoolCreate)(MemPool *, const MemPoolProps *) = nullptr;
  int (*cuMemPoolDestroy)(MemPool) = nullptr;
  int (*cuMemPoolSetAttribute)(MemPool, int, void *) = nullptr;
  int (*cuMemAllocFromPoolAsync)(DevicePtr *, size_t, MemPool,
                                 Stream) = nullptr;
  int (*cuMemFreeAsync)(DevicePtr, Stream) = nullptr;
  // Optional (CUDA 10.0+): whether a stream is being captured into a graph.
  int (*cuStreamIsCapturing)(Stream, int *) = nullptr;
  // Optional (CUDA 12.0+): programmatic dependent launches.
  int (*cuLaunchKernelEx)(const LaunchConfig *, Function, void **,
                          void **) = nullptr;
  // Optional (CUDA 12+): only kernels with TMA tensor maps need it.
  int (*cuTensorMapEncodeTiled)(void *, int, unsigned, void *,
                                const uint64_t *, const uint64_t *,
                                const uint32_t *, const uint32_t *, int, int,
                                int, int) = nullptr;
};

std::string DeviceInfo::chip() const {
  return llvm::formatv("sm_{0}{1}", computeMajor, computeMinor).str();
}

llvm::Error Driver::check(int result, llvm::StringRef call) {
  if (result == kSuccess)
    return llvm::Error::success();
  const char *name = "unknown error", *text = "";
  if (api && api->cuGetErrorName)
    api->cuGetErrorName(result, &name);
  if (api && api->cuGetErrorString)
    api->cuGetErrorString(result, &text);
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      llvm::formatv("{0} failed: {1} ({2}): {3}", call, name, result, text));
}

llvm::Expected<std::unique_ptr<Driver>> Driver::open(int ordinal,
                                                     bool makeCurrent) {
  auto fail = [](const llvm::Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
  };
  std::unique_ptr<Driver> driver(new Driver());
  driver->library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!driver->library)
    return fail(llvm::Twine("no CUDA driver: cannot load libcuda.so.1 (") +
                dlerror() + "); an NVIDIA GPU and its driver are required");
  driver->api = std::make_unique<Api>();
  Api &api = *driver->api;
  // Versioned names first: the plain names are the legacy ABI.
  auto resolve = [&](auto &fn, std::initializer_list<const char *> names) {
    for (const char *name : names)
      if (void *sym = dlsym(driver->library, name)) {
        fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(sym);
        return true;
      }
    return false;
  };
  bool ok =
      resolve(api.cuInit, {"cuInit"}) &&
      resolve(api.cuDeviceGetCount, {"cuDeviceGetCount"}) &&
      resolve(api.cuDeviceGet, {"cuDeviceGet"}) &&
      resolve(api.cuDeviceGetName, {"cuDeviceGetName"}) &&
      resolve(api.cuDeviceGetAttribute, {"cuDeviceGetAttribute"}) &&
      resolve(api.cuDevicePrimaryCtxRetain, {"cuDevicePrimaryCtxRetain"}) &&
      resolve(api.cuDevicePrimaryCtxRelease,
              {"cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"}) &&
      resolve(api.cuCtxSetCurrent, {"cuCtxSetCurrent"}) &&
      resolve(api.cuCtxPushCurrent, {"cuCtxPushCurrent_v2"}) &&
      resolve(api.cuCtxPopCurrent, {"cuCtxPopCurrent_v2"}) &&
      resolve(api.cuCtxSynchronize, {"cuCtxSynchronize"}) &&
      resolve(api.cuModuleLoadDataEx, {"cuModuleLoadDataEx"}) &&
      resolve(api.cuModuleGetFunction, {"cuModuleGetFunction"}) &&
      resolve(api.cuModuleUnload, {"cuModuleUnload"}) &&
      resolve(api.cuFuncSetAttribute, {"cuFuncSetAttribute"}) &&
      resolve(api.cuOccupancyMaxActiveBlocksPerMultiprocessor,
              {"cuOccupancyMaxActiveBlocksPerMultiprocessor"}) &&
      resolve(api.cuMemAlloc, {"cuMemAlloc_v2"}) &&
      resolve(api.cuMemFree, {"cuMemFree_v2"}) &&
      resolve(api.cuMemcpyHtoD, {"cuMemcpyHtoD_v2"}) &&
      resolve(api.cuMemcpyDtoH, {"cuMemcpyDtoH_v2"}) &&
      resolve(api.cuMemsetD32, {"cuMemsetD32_v2"}) &&
      resolve(api.cuMemsetD32Async, {"cuMemsetD32Async"}) &&
      resolve(api.cuLaunchKernel, {"cuLaunchKernel"}) &&
      resolve(api.cuEventCreate, {"cuEventCreate"}) &&
      resolve(api.cuEventDestroy, {"cuEventDestroy_v2", "cuEventDestroy"}) &&
      resolve(api.cuEventRecord, {"cuEventRecord"}) &&
      resolve(api.cuEventSynchronize, {"cuEventSynchronize"}) &&
      resolve(api.cuEventElapsedTime,
              {"cuEventElapsedTime_v2", "cuEventElapsedTime"}) &&
      resolve(api.cuGetErrorName, {"cuGetErrorName"}) &&
      resolve(api.cuGetErrorString, {"cuGetErrorString"});
  resolve(api.cuTensorMapEncodeTiled, {"cuTensorMapEncodeTiled"});
  resolve(api.cuMemPoolCreate, {"cuMemPoolCreate"});
  resolve(api.cuMemPoolDestroy, {"cuMemPoolDestroy"});
  resolve(api.cuMemPoolSetAttribute, {"cuMemPoolSetAttribute"});
  resolve(api.cuMemAllocFromPoolAsync, {"cuMemAllocFromPoolAsync"});
  resolve(api.cuLaunchKernelEx, {"cuLaunchKernelEx"});
  resolve(api.cuMemFreeAsync, {"cuMemFreeAsync"});
  resolve(api.cuStreamIsCapturing, {"cuStreamIsCapturing"});
  if (!ok)
    return fail("libcuda.so.1 lacks a driver API entry point Tessel needs; "
                "the driver is too old");

  if (llvm::Error e = driver->check(api.cuInit(0), "cuInit"))
    return std::move(e);
  int count = 0;
  if (llvm::Error e =
          driver->check(api.cuDeviceGetCount(&count), "cuDeviceGetCount"))
    return std::move(e);
  if (count == 0)
    return fail("no CUDA device found");
  driver->count = count;
  if (ordinal < 0 || ordinal >= count)
    return fail(
        llvm::formatv("device {0} requested, {1} present", ordinal, count)
            .str());
  if (llvm::Error e = driver->check(api.cuDeviceGet(&driver->cuDevice, ordinal),
                                    "cuDeviceGet"))
    return std::move(e);
  if (llvm::Error e = driver->check(
          api.cuDevicePrimaryCtxRetain(&driver->context, driver->cuDevice),
          "cuDevicePrimaryCtxRetain"))
    return std::move(e);
  if (makeCurrent)
    if (llvm::Error e = driver->check(api.cuCtxSetCurrent(driver->context),
                                      "cuCtxSetCurrent"))
      return std::move(e);

  DeviceInfo &info = driver->info;
  char name[256] = {0};
  if (llvm::Error e = driver->check(
          api.cuDeviceGetName(name, sizeof(name) - 1, driver->cuDevice),
          "cuDeviceGetName"))
    return std::move(e);
  info.name = name;
  std::pair<int *, int> attributes[] = {
      {&info.computeMajor, kAttrComputeMajor},
      {&info.computeMinor, kAttrComputeMinor},
      {&info.multiprocessors, kAttrMultiprocessorCount},
      {&info.maxThreadsPerBlock, kAttrMaxThreadsPerBlock},
      {&info.sharedMemoryPerBlock, kAttrSharedMemoryPerBlock},
      {&info.sharedMemoryPerBlockOptin, kAttrSharedMemoryPerBlockOptin},
      {&info.l2CacheBytes, kAttrL2CacheSize},
      {&info.maxBlockDim[0], kAttrMaxBlockDimX},
      {&info.maxBlockDim[1], kAttrMaxBlockDimX + 1},
      {&info.maxBlockDim[2], kAttrMaxBlockDimX + 2},
      {&info.maxGridDim[0], kAttrMaxGridDimX},
      {&info.maxGridDim[1], kAttrMaxGridDimX + 1},
      {&info.maxGridDim[2], kAttrMaxGridDimX + 2}};
  for (auto [value, attribute] : attributes)
    if (llvm::Error e = driver->check(
            api.cuDeviceGetAttribute(value, attribute, driver->cuDevice),
            "cuDeviceGetAttribute"))
      return std::move(e);
  return driver;
}

Driver::~Driver() {
  // Memory still in flight is released once its frees complete.
  if (workspacePool)
    api->cuMemPoolDestroy(workspacePool);
  if (api && context)
    api->cuDevicePrimaryCtxRelease(cuDevice);
  // libcuda stays loaded: unloading the driver library is not supported.
}

llvm::Expected<Driver::CurrentContext> Driver::makeCurrent() {
  if (llvm::Error e = check(api->cuCtxPushCurrent(context), "cuCtxPushCurrent"))
    return std::move(e);
  return CurrentContext(this);
}

Driver::CurrentContext::~CurrentContext() {
  void *popped = nullptr;
  if (driver)
    driver->api->cuCtxPopCurrent(&popped);
}

llvm::Expected<Module> Driver::loadModule(llvm::StringRef image) {
  std::string text = image.str(); // PTX must be null-terminated.
  std::vector<char> log(16384, 0);
  int options[] = {kJitErrorLogBuffer, kJitErrorLogBufferSize};
  void *values[] = {log.data(),
                    reinterpret_cast<void *>(uintptr_t(log.size() - 1))};
  Module module = nullptr;
  int result =
      api->cuModuleLoadDataEx(&module, text.c_str(), 2, options, values);
  if (result != kSuccess) {
    llvm::Error error = check(result, "cuModuleLoadDataEx (PTX JIT)");
    std::string jitLog(log.data());
    if (jitLog.empty())
      return std::move(error);
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   llvm::toString(std::move(error)) +
                                       "\nJIT log:\n" + jitLog);
  }
  return module;
}

void Driver::unloadModule(Module module) {
  if (module)
    api->cuModuleUnload(module);
}

llvm::Expected<Function> Driver::getFunction(Module module,
                                             llvm::StringRef name) {
  Function function = nullptr;
  if (llvm::Error e =
          check(api->cuModuleGetFunction(&function, module, name.str().c_str()),
                ("cuModuleGetFunction('" + name + "')").str()))
    return std::move(e);
  return function;
}

llvm::Error Driver::setMaxDynamicSharedMemory(Function function, int bytes) {
  return check(
      api->cuFuncSetAttribute(function, kFuncAttrMaxDynamicSharedBytes, bytes),
      "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
}

llvm::Expected<int> Driver::residentBlocksPerSM(Function function,
                                                int threads, int sharedMemory) {
  int blocks = 0;
  if (llvm::Error e =
          check(api->cuOccupancyMaxActiveBlocksPerMultiprocessor(
                    &blocks, function, threads, sharedMemory),
                "cuOccupancyMaxActiveBlocksPerMultiprocessor"))
    return std::move(e);
  return blocks;
}

llvm::Expected<DevicePtr> Driver::allocate(size_t bytes) {
  DevicePtr ptr = 0;
  if (llvm::Error e =
          check(api->cuMemAlloc(&ptr, bytes),
                llvm::formatv("cuMemAlloc({0} bytes)", bytes).str()))
    return std::move(e);
  return ptr;
}

void Driver::free(DevicePtr ptr) {
  if (ptr)
    api->cuMemFree(ptr);
}

llvm::Expected<DevicePtr> Driver::allocateAsync(size_t bytes, Stream stream) {
  if (!api->cuMemPoolCreate || !api->cuMemPoolSetAttribute ||
      !api->cuMemAllocFromPoolAsync || !api->cuMemFreeAsync)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "libcuda.so.1 lacks stream-ordered memory pools: functions with "
        "workspaces need a CUDA 11.2 driver or later");
  {
    std::lock_guard<std::mutex> lock(poolMutex);
    if (!workspacePool) {
      // Tessel's own pool, which keeps what it has mapped: a pool with
      // the default release threshold (0, as the device's default pool)
      // unmaps its memory at synchronizations and maps it again on the
      // next allocation, which added 50-500 us to some calls on an H100
      // (bench/results/any-shape/README.md). Its size is bounded by the
      // largest workspaces in flight at once.
      MemPoolProps props{};
      props.allocType = kMemAllocationTypePinned;
      props.locationType = kMemLocationTypeDevice;
      props.locationId = cuDevice;
      MemPool pool = nullptr;
      if (llvm::Error e =
              check(api->cuMemPoolCreate(&pool, &props), "cuMemPoolCreate"))
        return std::move(e);
      uint64_t keep = UINT64_MAX;
      if (llvm::Error e = check(api->cuMemPoolSetAttribute(
                                    pool, kMemPoolAttrReleaseThreshold, &keep),
                                "cuMemPoolSetAttribute(RELEASE_THRESHOLD)")) {
        api->cuMemPoolDestroy(pool);
        return std::move(e);
      }
      workspacePool = pool;
    }
  }
  DevicePtr ptr = 0;
  if (llvm::Error e = check(
          api->cuMemAllocFromPoolAsync(&ptr, bytes, workspacePool, stream),
          llvm::formatv("cuMemAllocFromPoolAsync({0} bytes)", bytes).str()))
    return std::move(e);
  return ptr;
}

void Driver::freeAsync(DevicePtr ptr, Stream stream) {
  if (ptr && api->cuMemFreeAsync)
    api->cuMemFreeAsync(ptr, stream);
}

bool Driver::isCapturing(Stream stream) {
  if (!api->cuStreamIsCapturing)
    return false;
  int status = 0; // CU_STREAM_CAPTURE_STATUS_NONE
  // An error (the legacy stream while another stream captures) counts as
  // capturing: what the caller then does must be capturable too.
  return api->cuStreamIsCapturing(stream, &status) != kSuccess || status != 0;
}

llvm::Error Driver::copyToDevice(DevicePtr dst, const void *src, size_t bytes) {
  return check(api->cuMemcpyHtoD(dst, src, bytes), "cuMemcpyHtoD");
}

llvm::Error Driver::copyToHost(void *dst, DevicePtr src, size_t bytes) {
  return check(api->cuMemcpyDtoH(dst, src, bytes), "cuMemcpyDtoH");
}

llvm::Error Driver::fill32(DevicePtr dst, uint32_t value, size_t count) {
  return check(api->cuMemsetD32(dst, value, count), "cuMemsetD32");
}

llvm::Error Driver::fill32Async(DevicePtr dst, uint32_t value, size_t count,
                                Stream stream) {
  return check(api->cuMemsetD32Async(dst, value, count, stream),
               "cuMemsetD32Async");
}

llvm::Error Driver::launch(Function function, const int64_t grid[3],
                           const int64_t block[3], int sharedMemory,
                           std::vector<void *> &params, Stream stream,
                           bool overlapPrevious) {
  if (overlapPrevious && api->cuLaunchKernelEx) {
    LaunchAttribute attribute{};
    attribute.id = kLaunchAttributeProgrammaticStreamSerialization;
    attribute.value.programmaticStreamSerializationAllowed = 1;
    LaunchConfig config{};
    config.gridDim[0] = grid[0];
    config.gridDim[1] = grid[1];
    config.gridDim[2] = grid[2];
    config.blockDim[0] = block[0];
    config.blockDim[1] = block[1];
    config.blockDim[2] = block[2];
    config.sharedMemBytes = sharedMemory;
    config.stream = stream;
    config.attrs = &attribute;
    config.numAttrs = 1;
    return check(
        api->cuLaunchKernelEx(&config, function, params.data(), nullptr),
        "cuLaunchKernelEx");
  }
  return check(api->cuLaunchKernel(function, grid[0], grid[1], grid[2],
                                   block[0], block[1], block[2], sharedMemory,
                                   stream, params.data(), nullptr),
               "cuLaunchKernel");
}

llvm::Error Driver::encodeTensorMap(TensorMap &map,
                                    const TensorMapEncoding &e,
                                    DevicePtr address) {
  if (!api->cuTensorMapEncodeTiled)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "libcuda.so.1 lacks cuTensorMapEncodeTiled: kernels using TMA need a "
        "CUDA 12 driver or later");
  return check(api->cuTensorMapEncodeTiled(
                   &map, e.dataType, e.rank,
                   reinterpret_cast<void *>(static_cast<uintptr_t>(address)),
                   e.dims, e.strides, e.box, e.elementStrides, e.interleave,
                   e.swizzle, e.l2Promotion, e.oobFill),
               "cuTensorMapEncodeTiled");
}

llvm::Error Driver::synchronize() {
  return check(api->cuCtxSynchronize(), "cuCtxSynchronize (kernel execution)");
}

llvm::Expected<Event> Driver::createEvent() {
  Event event = nullptr;
  if (llvm::Error e = check(api->cuEventCreate(&event, 0), "cuEventCreate"))
    return std::move(e);
  return event;
}

void Driver::destroyEvent(Event event) {
  if (event)
    api->cuEventDestroy(event);
}

llvm::Error Driver::record(Event event) {
  return check(api->cuEventRecord(event, nullptr), "cuEventRecord");
}

llvm::Expected<float> Driver::elapsedMs(Event start, Event end) {
  if (llvm::Error e = check(api->cuEventSynchronize(end), "cuEventSynchronize"))
    return std::move(e);
  float ms = 0;
  if (llvm::Error e =
          check(api->cuEventElapsedTime(&ms, start, end), "cuEventElapsedTime"))
    return std::move(e);
  return ms;
}
