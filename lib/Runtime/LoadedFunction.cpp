//===- LoadedFunction.cpp - A host function's kernels on a device ---------===//

#include "tessel/Runtime/LoadedFunction.h"
#include "tessel/Runtime/InputFiles.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cstring>

using namespace tessel;

static llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// The bits of a scalar kernel parameter, as the kernel reads them.
static llvm::Expected<uint64_t> scalarBits(const KernelParamSpec &param) {
  uint64_t bits = 0;
  llvm::StringRef type = param.scalarType, text = param.scalarValue;
  if (type == "f32") {
    float f = std::strtof(param.scalarValue.c_str(), nullptr);
    std::memcpy(&bits, &f, 4);
  } else if (type == "f64") {
    double d = std::strtod(param.scalarValue.c_str(), nullptr);
    std::memcpy(&bits, &d, 8);
  } else if (type.starts_with("i")) {
    int64_t v;
    if (text.getAsInteger(10, v))
      return fail("scalar parameter '" + text + "' is not an integer");
    bits = static_cast<uint64_t>(v); // Little-endian: low bytes first.
  } else {
    return fail("unsupported scalar parameter type '" + type + "'");
  }
  return bits;
}

/// cuTensorMapEncodeTiled's encoding of a tensor map of `buffer` (all but
/// the address); errors name what TMA cannot tile.
static llvm::Expected<cuda::TensorMapEncoding>
tensorMapEncoding(const BufferSpec &buffer, const TensorMapSpec &map) {
  cuda::TensorMapEncoding e;
  // CUtensorMapDataType values.
  std::optional<int> type =
      llvm::StringSwitch<std::optional<int>>(buffer.elementType)
          .Case("i8", 0)
          .Case("i16", 1)
          .Case("i32", 3)
          .Case("i64", 5)
          .Case("f16", 6)
          .Case("f32", 7)
          .Case("f64", 8)
          .Case("bf16", 9)
          .Default(std::nullopt);
  if (!type)
    return fail("TMA cannot load element type '" + buffer.elementType + "'");
  e.dataType = *type;
  size_t rank = buffer.shape.size();
  if (rank < 1 || rank > 5 || map.box.size() != rank)
    return fail("a tensor map needs a box of the buffer's rank (1 to 5)");
  e.rank = rank;
  // The tensor may be the leading part of its buffer (padded rows): its
  // dimensions are its own, its strides the buffer's.
  const std::vector<int64_t> &dims =
      map.shape.empty() ? buffer.shape : map.shape;
  if (dims.size() != rank)
    return fail("a tensor map's shape needs the buffer's rank");
  int64_t bytes = buffer.elementBytes(), stride = bytes;
  for (size_t i = 0; i < rank; ++i) {
    // Innermost first.
    int64_t dim = dims[rank - 1 - i], box = map.box[rank - 1 - i];
    // A box may be larger than the tensor (a tile bigger than a small
    // matrix): TMA fills what lies outside with zeros.
    if (box < 1 || box > 256)
      return fail(
          llvm::formatv("tensor map box size {0} is outside [1, 256]", box));
    e.dims[i] = dim;
    e.box[i] = box;
    // A strided view's own strides, else the buffer's.
    if (!map.strides.empty())
      stride = map.strides[rank - 1 - i] * bytes;
    if (i > 0) {
      if (stride % 16 != 0)
        return fail(llvm::formatv("a tensor map needs row strides of a "
                                  "multiple of 16 bytes; this one is {0}",
                                  stride));
      e.strides[i - 1] = stride;
    }
    stride *= buffer.shape[rank - 1 - i];
  }
  std::optional<int> swizzle = map.swizzleCode(),
                     l2 = map.l2PromotionCode(), oob = map.oobFillCode(),
                     interleave = map.interleaveCode();
  if (!swizzle || !l2 || !oob || !interleave)
    return fail("unknown tensor map swizzle, l2_promotion, oob_fill or "
                "interleave value");
  int64_t innerBytes = e.box[0] * bytes;
  if (*swizzle != 0 && innerBytes > (16 << *swizzle))
    return fail(llvm::formatv("a {0}-byte box row does not fit the {1} "
                              "swizzle",
                              innerBytes, map.swizzle));
  if (innerBytes % 16 != 0)
    return fail(llvm::formatv("a tensor map box row must be a multiple of 16 "
                              "bytes; this one is {0}",
                              innerBytes));
  if (map.offset * bytes % 16 != 0)
    return fail(llvm::formatv("a tensor map must start on a 16-byte "
                              "boundary of its buffer; this one starts {0} "
                              "bytes in",
                              map.offset * bytes));
  e.offsetBytes = map.offset * bytes;
  e.swizzle = *swizzle, e.l2Promotion = *l2, e.oobFill = *oob,
  e.interleave = *interleave;
  return e;
}

llvm::Expected<LoadedFunction>
LoadedFunction::load(cuda::Driver &driver, const HostFunctionSpec &spec,
                     llvm::StringRef dir) {
  LoadedFunction loaded(driver, spec);
  const cuda::DeviceInfo &device = driver.device();
  llvm::StringMap<cuda::Module> modules;
  for (auto [index, launch] : llvm::enumerate(spec.launches)) {
    int64_t threads = launch.block[0] * launch.block[1] * launch.block[2];
    if (threads > device.maxThreadsPerBlock)
      return fail(llvm::formatv("kernel '{0}' needs {1} threads per block; "
                                "{2} allows {3}",
                                launch.kernel, threads, device.name,
                                device.maxThreadsPerBlock));
    // Each dimension against the device's limits, before anything is
    // loaded (the launch failed with CUDA_ERROR_INVALID_VALUE).
    static constexpr char kAxes[] = "xyz";
    for (int d = 0; d < 3; ++d) {
      llvm::StringRef axis(kAxes + d, 1);
      if (launch.block[d] > device.maxBlockDim[d])
        return fail(llvm::formatv("kernel '{0}' has {1} threads along {2}; "
                                  "{3} allows {4}",
                                  launch.kernel, launch.block[d], axis,
                                  device.name, device.maxBlockDim[d]));
      if (launch.grid[d] > device.maxGridDim[d])
        return fail(llvm::formatv("kernel '{0}' has {1} blocks along {2}; "
                                  "{3} allows {4}",
                                  launch.kernel, launch.grid[d], axis,
                                  device.name, device.maxGridDim[d]));
    }
    if (launch.dynamicSharedMemory > device.sharedMemoryPerBlockOptin)
      return fail(llvm::formatv("kernel '{0}' needs {1} bytes of dynamic "
                                "shared memory; {2} allows {3}",
                                launch.kernel, launch.dynamicSharedMemory,
                                device.name, device.sharedMemoryPerBlockOptin));
    cuda::Module &module = modules[launch.image];
    if (!module) {
      llvm::SmallString<256> path(dir);
      llvm::sys::path::append(path, launch.image);
      llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> file =
          readInputFile(path);
      if (!file)
        return fail("cannot read kernel image: " +
                    llvm::toString(file.takeError()));
      llvm::Expected<cuda::Module> image =
          driver.loadModule((*file)->getBuffer());
      if (!image)
        return fail("loading '" + path +
                    "': " + llvm::toString(image.takeError()));
      module = *image;
      loaded.modules.push_back(module);
    }
    llvm::Expected<cuda::Function> function =
        driver.getFunction(module, launch.kernel);
    if (!function)
      return fail("kernel image '" + launch.image + "' has no kernel '" +
                  launch.kernel + "': " + llvm::toString(function.takeError()));
    if (launch.dynamicSharedMemory > 48 * 1024)
      if (llvm::Error e = driver.setMaxDynamicSharedMemory(
              *function, launch.dynamicSharedMemory))
        return std::move(e);

    Kernel kernel{static_cast<unsigned>(index), *function, launch.grid, {},
                  {}};
    if (launch.persistent) {
      // Each block walks tiles block, block + grid, ...: one block per
      // place the device runs at once (more would wait for a free SM with
      // nothing to overlap).
      llvm::Expected<int> resident = driver.residentBlocksPerSM(
          *function, int(threads), int(launch.dynamicSharedMemory));
      if (!resident)
        return resident.takeError();
      if (*resident < 1)
        return fail(llvm::formatv("kernel '{0}' does not fit an SM of {1} "
                                  "({2} threads, {3} bytes of shared memory)",
                                  launch.kernel, device.name, threads,
                                  launch.dynamicSharedMemory));
      // Whole clusters: a cluster's blocks walk partner tiles.
      int64_t places = int64_t(*resident) * device.multiprocessors;
      kernel.grid[0] = std::min<int64_t>(
          launch.grid[0],
          std::max(launch.cluster[0], places / launch.cluster[0] *
                                          launch.cluster[0]));
    }
    for (const KernelParamSpec &param : launch.params) {
      // Buffers are numbered arguments first, then workspaces.
      uint64_t buffer = param.workspace ? spec.arguments.size() + param.argument
                                        : param.argument;
      if (param.kind == KernelParamSpec::Kind::Buffer) {
        kernel.values.push_back(buffer);
        continue;
      }
      if (param.kind == KernelParamSpec::Kind::TensorMap) {
        llvm::Expected<cuda::TensorMapEncoding> encoding =
            tensorMapEncoding(param.workspace ? spec.workspaces[param.argument]
                                              : spec.arguments[param.argument],
                              param.tensorMap);
        if (!encoding)
          return fail("kernel '" + launch.kernel + "', tensor map of " +
                      (param.workspace ? "workspace" : "argument") + " #" +
                      llvm::Twine(param.argument) + ": " +
                      llvm::toString(encoding.takeError()));
        kernel.values.push_back(buffer);
        kernel.tensorMaps.push_back(*encoding);
        continue;
      }
      llvm::Expected<uint64_t> bits = scalarBits(param);
      if (!bits)
        return bits.takeError();
      kernel.values.push_back(*bits);
    }
    loaded.kernels.push_back(std::move(kernel));
  }
  return loaded;
}

LoadedFunction::LoadedFunction(LoadedFunction &&other)
    : driver(other.driver), functionSpec(std::move(other.functionSpec)),
      kernels(std::move(other.kernels)), modules(std::move(other.modules)),
      kept(std::move(other.kept)) {
  other.modules.clear();
}

LoadedFunction::~LoadedFunction() {
  if (kept)
    for (auto [stream, base] : kept->perStream)
      driver->free(base); // Waits for the launches that use it.
  for (cuda::Module module : modules)
    driver->unloadModule(module);
}

namespace {
/// Where each workspace lies in its allocation: the kept ones (left
/// zeroed, where `keep`) share one, the others another, each at a
/// 256-byte boundary.
struct WorkspaceLayout {
  std::vector<size_t> offsets;
  size_t keptBytes = 0, perCallBytes = 0;

  WorkspaceLayout(const HostFunctionSpec &spec, bool keep) {
    for (const BufferSpec &workspace : spec.workspaces) {
      size_t &total = keep && workspace.leftZeroed ? keptBytes : perCallBytes;
      offsets.push_back(total);
      total += llvm::alignTo(workspace.numElements() * workspace.elementBytes(),
                             256);
    }
  }
};
} // namespace

llvm::Expected<cuda::DevicePtr>
LoadedFunction::keptWorkspaces(cuda::Stream stream, size_t bytes) const {
  std::lock_guard<std::mutex> lock(kept->mutex);
  for (auto [keptStream, base] : kept->perStream)
    if (keptStream == stream)
      return base;
  llvm::Expected<cuda::DevicePtr> base = driver->allocate(bytes);
  if (!base)
    return base.takeError();
  // Zeroed in stream order, before the launches of the call that made it.
  if (llvm::Error e = driver->fill32Async(*base, 0, bytes / 4, stream)) {
    driver->free(*base);
    return std::move(e);
  }
  kept->perStream.push_back({stream, *base});
  return *base;
}

llvm::Error LoadedFunction::checkLeftZeroed(cuda::Stream stream) const {
  WorkspaceLayout layout(functionSpec, /*keep=*/true);
  if (layout.keptBytes == 0)
    return llvm::Error::success();
  llvm::Expected<cuda::DevicePtr> base =
      keptWorkspaces(stream, layout.keptBytes);
  if (!base)
    return base.takeError();
  if (llvm::Error e = driver->synchronize())
    return e;
  for (auto [i, workspace] : llvm::enumerate(functionSpec.workspaces)) {
    if (!workspace.leftZeroed)
      continue;
    // 32-bit words (validate: a zeroed workspace's elements are).
    std::vector<uint32_t> words(workspace.numElements());
    if (llvm::Error e =
            driver->copyToHost(words.data(), *base + layout.offsets[i],
                               words.size() * sizeof(uint32_t)))
      return e;
    size_t nonzero = llvm::count_if(words, [](uint32_t w) { return w != 0; });
    if (nonzero)
      return fail(llvm::formatv(
          "the launches of '{0}' left {1} of the {2} words of workspace #{3} "
          "nonzero; launch.json says they leave it zeroed (left_zeroed), so "
          "the next call would read them",
          functionSpec.name, nonzero, words.size(), i));
  }
  return llvm::Error::success();
}

llvm::Error LoadedFunction::launch(llvm::ArrayRef<cuda::DevicePtr> buffers,
                                   cuda::Stream stream) const {
  if (buffers.size() != functionSpec.arguments.size())
    return fail(llvm::formatv("'{0}' takes {1} buffers, {2} given",
                              functionSpec.name,
                              functionSpec.arguments.size(), buffers.size()));
  // Check every launch before the first one runs.
  for (const Kernel &kernel : kernels) {
    const LaunchSpec &launch = functionSpec.launches[kernel.launch];
    for (auto [param, value] : llvm::zip_equal(launch.params, kernel.values)) {
      // Workspaces come from the allocator, aligned to 256 bytes or more.
      if (param.kind == KernelParamSpec::Kind::Scalar || param.workspace)
        continue;
      // TMA needs 16-byte aligned global addresses.
      int64_t alignment = param.kind == KernelParamSpec::Kind::TensorMap
                              ? std::max<int64_t>(16, launch.pointerAlignment)
                              : launch.pointerAlignment;
      if (buffers[value] % alignment != 0)
        return fail(llvm::formatv(
            "argument #{0} of '{1}' (address {2:x}) is not aligned to {3} "
            "bytes, as kernel '{4}' assumes",
            value, functionSpec.name, buffers[value], alignment,
            launch.kernel));
    }
  }
  // The function's buffers: its arguments, then its workspaces. Those the
  // launches leave zero are the stream's kept ones; the others share one
  // allocation, made and freed in stream order around the launches: every
  // allocation and free is a driver call on the path of each call. A call
  // captured into a CUDA graph keeps nothing (each replay of the graph
  // allocates and zeroes its own, in the graph).
  std::vector<cuda::DevicePtr> addresses(buffers.begin(), buffers.end());
  // (The driver is asked only where there is something to keep.)
  bool keep = llvm::any_of(functionSpec.workspaces,
                           [](const BufferSpec &workspace) {
                             return workspace.leftZeroed;
                           }) &&
              !driver->isCapturing(stream);
  WorkspaceLayout layout(functionSpec, keep);
  llvm::Expected<cuda::DevicePtr> keptBase =
      keep ? keptWorkspaces(stream, layout.keptBytes) : cuda::DevicePtr(0);
  if (!keptBase)
    return keptBase.takeError();
  cuda::DevicePtr workspaceBase = 0;
  llvm::scope_exit freeWorkspaces([&] {
    if (workspaceBase)
      driver->freeAsync(workspaceBase, stream);
  });
  if (layout.perCallBytes > 0) {
    llvm::Expected<cuda::DevicePtr> base =
        driver->allocateAsync(layout.perCallBytes, stream);
    if (!base)
      return base.takeError();
    workspaceBase = *base;
  }
  for (auto [offset, workspace] :
       llvm::zip_equal(layout.offsets, functionSpec.workspaces)) {
    if (keep && workspace.leftZeroed) {
      addresses.push_back(*keptBase + offset);
      continue;
    }
    addresses.push_back(workspaceBase + offset);
    // Zeroed in every call: the pool's memory holds whatever its previous
    // user left.
    if (workspace.zeroed)
      if (llvm::Error e = driver->fill32Async(workspaceBase + offset, 0,
                                              workspace.numElements(), stream))
        return std::move(e);
  }
  // Every kernel's parameters (tensor maps encoded) before the first
  // launch, so that the launches follow each other closely.
  std::vector<std::vector<void *>> params(kernels.size());
  std::vector<std::vector<cuda::TensorMap>> maps(kernels.size());
  for (auto [kernel, kernelParams, kernelMaps] :
       llvm::zip_equal(kernels, params, maps)) {
    const LaunchSpec &launch = functionSpec.launches[kernel.launch];
    // Sized before any pointer into it is taken.
    kernelMaps.resize(kernel.tensorMaps.size());
    size_t nextMap = 0;
    for (auto [param, value] : llvm::zip_equal(launch.params, kernel.values)) {
      if (param.kind == KernelParamSpec::Kind::TensorMap) {
        cuda::TensorMap &map = kernelMaps[nextMap];
        if (llvm::Error e = driver->encodeTensorMap(
                map, kernel.tensorMaps[nextMap],
                addresses[value] + kernel.tensorMaps[nextMap].offsetBytes))
          return e;
        ++nextMap;
        kernelParams.push_back(&map);
        continue;
      }
      kernelParams.push_back(
          param.kind == KernelParamSpec::Kind::Buffer
              ? static_cast<void *>(&addresses[value])
              : static_cast<void *>(const_cast<uint64_t *>(&value)));
    }
  }
  for (auto [i, kernel] : llvm::enumerate(kernels)) {
    const LaunchSpec &launch = functionSpec.launches[kernel.launch];
    // A kernel after the first that waits for its predecessor overlaps
    // that one's end (its launch and prologue); the first one of a call
    // follows whatever came before on the stream the ordinary way.
    bool overlap = i > 0 && launch.waitsForPrevious;
    if (llvm::Error e = driver->launch(
            kernel.function, kernel.grid.data(), launch.block.data(),
            launch.dynamicSharedMemory, params[i], stream, overlap))
      return e;
  }
  return llvm::Error::success();
}
