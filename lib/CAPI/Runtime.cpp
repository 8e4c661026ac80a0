//===- Runtime.cpp - Tessel's runtime as a C API --------------------------===//

#include "tessel-c/Runtime.h"

#include "tessel/Runtime/CudaDriver.h"
#include "tessel/Runtime/LaunchSpec.h"
#include "tessel/Runtime/LoadedFunction.h"
#include "tessel/Version.h"

#include "llvm/Support/Path.h"

#include <memory>
#include <string>

using namespace tessel;

struct TesselFunctionSpec {
  HostFunctionSpec spec;
  std::string dir; // Where the launch file is: images are relative to it.
};

struct TesselDevice {
  std::unique_ptr<cuda::Driver> driver;
  std::string chip;
};

struct TesselFunction {
  TesselDevice *device;
  LoadedFunction function;
};

static thread_local std::string lastError;

/// Records `message` as the thread's last error; returns the failure code.
static int fail(std::string message) {
  lastError = std::move(message);
  return 1;
}

static int fail(llvm::Error error) {
  return fail(llvm::toString(std::move(error)));
}

static int succeed() {
  lastError.clear();
  return 0;
}

const char *tesselGetVersion(void) { return tessel::getVersion(); }

const char *tesselGetLastError(void) { return lastError.c_str(); }

int tesselFunctionSpecRead(const char *path, TesselFunctionSpec **result) {
  if (!path || !result)
    return fail("tesselFunctionSpecRead: null argument");
  *result = nullptr;
  llvm::Expected<HostFunctionSpec> spec = readLaunchSpec(path);
  if (!spec)
    return fail(spec.takeError());
  *result = new TesselFunctionSpec{std::move(*spec),
                                   llvm::sys::path::parent_path(path).str()};
  return succeed();
}

void tesselFunctionSpecDestroy(TesselFunctionSpec *spec) { delete spec; }

const char *tesselFunctionSpecGetName(const TesselFunctionSpec *spec) {
  return spec ? spec->spec.name.c_str() : nullptr;
}

int tesselFunctionSpecGetNumArguments(const TesselFunctionSpec *spec) {
  return spec ? static_cast<int>(spec->spec.arguments.size()) : -1;
}

static const BufferSpec *argument(const TesselFunctionSpec *spec, int index) {
  if (!spec || index < 0 ||
      static_cast<size_t>(index) >= spec->spec.arguments.size())
    return nullptr;
  return &spec->spec.arguments[index];
}

const char *tesselFunctionSpecGetArgumentType(const TesselFunctionSpec *spec,
                                              int index) {
  const BufferSpec *buffer = argument(spec, index);
  return buffer ? buffer->elementType.c_str() : nullptr;
}

int tesselFunctionSpecGetArgumentRank(const TesselFunctionSpec *spec,
                                      int index) {
  const BufferSpec *buffer = argument(spec, index);
  return buffer ? static_cast<int>(buffer->shape.size()) : -1;
}

int64_t tesselFunctionSpecGetArgumentDim(const TesselFunctionSpec *spec,
                                         int index, int dim) {
  const BufferSpec *buffer = argument(spec, index);
  if (!buffer || dim < 0 || static_cast<size_t>(dim) >= buffer->shape.size())
    return -1;
  return buffer->shape[dim];
}

int tesselFunctionSpecIsArgumentWritten(const TesselFunctionSpec *spec,
                                        int index) {
  if (!argument(spec, index))
    return -1;
  return llvm::is_contained(spec->spec.results, static_cast<unsigned>(index));
}

int tesselDeviceOpen(int ordinal, TesselDevice **result) {
  if (!result)
    return fail("tesselDeviceOpen: null argument");
  *result = nullptr;
  // The caller's current context (e.g. PyTorch's device) stays as it is;
  // loads and launches make the device's context current for their span.
  llvm::Expected<std::unique_ptr<cuda::Driver>> driver =
      cuda::Driver::open(ordinal, /*makeCurrent=*/false);
  if (!driver)
    return fail(driver.takeError());
  std::string chip = (*driver)->device().chip();
  *result = new TesselDevice{std::move(*driver), std::move(chip)};
  return succeed();
}

void tesselDeviceClose(TesselDevice *device) { delete device; }

const char *tesselDeviceGetName(const TesselDevice *device) {
  return device ? device->driver->device().name.c_str() : nullptr;
}

const char *tesselDeviceGetChip(const TesselDevice *device) {
  return device ? device->chip.c_str() : nullptr;
}

int tesselDeviceGetMultiprocessorCount(const TesselDevice *device) {
  return device ? device->driver->device().multiprocessors : 0;
}

int tesselFunctionLoad(TesselDevice *device, const TesselFunctionSpec *spec,
                       const char *dir, TesselFunction **result) {
  if (!device || !spec || !result)
    return fail("tesselFunctionLoad: null argument");
  *result = nullptr;
  // Load in the device's context, whatever context the caller has current.
  llvm::Expected<cuda::Driver::CurrentContext> current =
      device->driver->makeCurrent();
  if (!current)
    return fail(current.takeError());
  llvm::Expected<LoadedFunction> function = LoadedFunction::load(
      *device->driver, spec->spec, dir ? llvm::StringRef(dir) : spec->dir);
  if (!function)
    return fail(function.takeError());
  *result = new TesselFunction{device, std::move(*function)};
  return succeed();
}

void tesselFunctionDestroy(TesselFunction *function) {
  if (!function)
    return;
  // The kernel images are unloaded in the device's context.
  llvm::Expected<cuda::Driver::CurrentContext> current =
      function->device->driver->makeCurrent();
  if (!current)
    llvm::consumeError(current.takeError());
  delete function;
}

int tesselFunctionLaunch(const TesselFunction *function,
                         const uint64_t *buffers, int numBuffers,
                         void *stream) {
  if (!function || (!buffers && numBuffers > 0) || numBuffers < 0)
    return fail("tesselFunctionLaunch: null function or buffers");
  llvm::Expected<cuda::Driver::CurrentContext> current =
      function->device->driver->makeCurrent();
  if (!current)
    return fail(current.takeError());
  std::vector<cuda::DevicePtr> pointers(buffers, buffers + numBuffers);
  if (llvm::Error e = function->function.launch(
          pointers, static_cast<cuda::Stream>(stream)))
    return fail(std::move(e));
  return succeed();
}
