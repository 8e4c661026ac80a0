//===- LoadedFunction.cpp - A host function's kernels on a device ---------===//

#include "tessel/Runtime/LoadedFunction.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"
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
    if (launch.dynamicSharedMemory > device.sharedMemoryPerBlockOptin)
      return fail(llvm::formatv("kernel '{0}' needs {1} bytes of dynamic "
                                "shared memory; {2} allows {3}",
                                launch.kernel, launch.dynamicSharedMemory,
                                device.name, device.sharedMemoryPerBlockOptin));
    cuda::Module &module = modules[launch.image];
    if (!module) {
      llvm::SmallString<256> path(dir);
      llvm::sys::path::append(path, launch.image);
      auto file = llvm::MemoryBuffer::getFile(path);
      if (!file)
        return fail("cannot read kernel image '" + path +
                    "': " + file.getError().message());
      llvm::Expected<cuda::Module> image =
          driver.loadModule((*file)->getBuffer());
      if (!image)
        return fail("loading '" + path +
                    "': " + llvm::toString(image.takeError()));
      module = *image;
    }
    llvm::Expected<cuda::Function> function =
        driver.getFunction(module, launch.kernel);
    if (!function)
      return function.takeError();
    if (launch.dynamicSharedMemory > 48 * 1024)
      if (llvm::Error e = driver.setMaxDynamicSharedMemory(
              *function, launch.dynamicSharedMemory))
        return std::move(e);

    Kernel kernel{static_cast<unsigned>(index), *function, {}};
    for (const KernelParamSpec &param : launch.params) {
      if (param.kind == KernelParamSpec::Kind::Buffer) {
        kernel.values.push_back(param.argument);
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

llvm::Error LoadedFunction::launch(llvm::ArrayRef<cuda::DevicePtr> buffers,
                                   cuda::Stream stream) const {
  if (buffers.size() != functionSpec.arguments.size())
    return fail(llvm::formatv("'{0}' takes {1} buffers, {2} given",
                              functionSpec.name,
                              functionSpec.arguments.size(), buffers.size()));
  // Check every launch before the first one runs.
  for (const Kernel &kernel : kernels) {
    const LaunchSpec &launch = functionSpec.launches[kernel.launch];
    for (auto [param, value] : llvm::zip_equal(launch.params, kernel.values))
      if (param.kind == KernelParamSpec::Kind::Buffer &&
          buffers[value] % launch.pointerAlignment != 0)
        return fail(llvm::formatv(
            "argument #{0} of '{1}' (address {2:x}) is not aligned to {3} "
            "bytes, as kernel '{4}' assumes",
            value, functionSpec.name, buffers[value], launch.pointerAlignment,
            launch.kernel));
  }
  std::vector<void *> params;
  for (const Kernel &kernel : kernels) {
    const LaunchSpec &launch = functionSpec.launches[kernel.launch];
    params.clear();
    for (auto [param, value] : llvm::zip_equal(launch.params, kernel.values))
      params.push_back(
          param.kind == KernelParamSpec::Kind::Buffer
              ? static_cast<void *>(
                    const_cast<cuda::DevicePtr *>(&buffers[value]))
              : static_cast<void *>(const_cast<uint64_t *>(&value)));
    if (llvm::Error e =
            driver->launch(kernel.function, launch.grid.data(),
                           launch.block.data(), launch.dynamicSharedMemory,
                           params, stream))
      return e;
  }
  return llvm::Error::success();
}
