//===- LaunchSpec.cpp - Launch metadata to and from JSON ------------------===//

#include "tessel/Runtime/LaunchSpec.h"
#include "tessel/Runtime/InputFiles.h"

#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace tessel;
using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

std::optional<int> TensorMapSpec::swizzleCode() const {
  return llvm::StringSwitch<std::optional<int>>(swizzle)
      .Case("none", 0)
      .Case("32b", 1)
      .Case("64b", 2)
      .Case("128b", 3)
      .Default(std::nullopt);
}

std::optional<int> TensorMapSpec::l2PromotionCode() const {
  return llvm::StringSwitch<std::optional<int>>(l2Promotion)
      .Case("none", 0)
      .Case("64b", 1)
      .Case("128b", 2)
      .Case("256b", 3)
      .Default(std::nullopt);
}

std::optional<int> TensorMapSpec::oobFillCode() const {
  return llvm::StringSwitch<std::optional<int>>(oobFill)
      .Case("zero", 0)
      .Case("nan", 1)
      .Default(std::nullopt);
}

std::optional<int> TensorMapSpec::interleaveCode() const {
  return llvm::StringSwitch<std::optional<int>>(interleave)
      .Case("none", 0)
      .Case("16b", 1)
      .Case("32b", 2)
      .Default(std::nullopt);
}

Value tessel::toJSON(const HostFunctionSpec &spec) {
  Array arguments;
  for (const BufferSpec &buffer : spec.arguments)
    arguments.push_back(Object{{"element_type", buffer.elementType},
                               {"shape", Array(buffer.shape)}});
  Array launches;
  for (const LaunchSpec &launch : spec.launches) {
    Array params;
    for (const KernelParamSpec &param : launch.params) {
      switch (param.kind) {
      case KernelParamSpec::Kind::Buffer:
        params.push_back(Object{
            {"kind", "buffer"},
            {param.workspace ? "workspace" : "argument", param.argument}});
        break;
      case KernelParamSpec::Kind::Scalar:
        params.push_back(Object{{"kind", "scalar"},
                                {"type", param.scalarType},
                                {"value", param.scalarValue}});
        break;
      case KernelParamSpec::Kind::TensorMap: {
        const TensorMapSpec &map = param.tensorMap;
        Object object{
            {"kind", "tensor_map"},
            {param.workspace ? "workspace" : "argument", param.argument},
            {"box", Array(map.box)},
            {"swizzle", map.swizzle},
            {"l2_promotion", map.l2Promotion},
            {"oob_fill", map.oobFill},
            {"interleave", map.interleave}};
        if (!map.shape.empty())
          object["shape"] = Array(map.shape);
        if (!map.strides.empty()) {
          object["strides"] = Array(map.strides);
          object["offset"] = map.offset;
        }
        params.push_back(std::move(object));
        break;
      }
      }
    }
    Object object{
        {"binary", launch.binary},
        {"kernel", launch.kernel},
        {"image", launch.image},
        {"grid", Array(launch.grid)},
        {"block", Array(launch.block)},
        {"dynamic_shared_memory", launch.dynamicSharedMemory},
        {"pointer_alignment", launch.pointerAlignment},
        {"params", std::move(params)},
    };
    if (launch.waitsForPrevious)
      object["waits_for_previous"] = true;
    if (launch.persistent)
      object["persistent"] = true;
    if (launch.cluster != std::array<int64_t, 3>{1, 1, 1})
      object["cluster"] = Array(launch.cluster);
    launches.push_back(std::move(object));
  }
  Array workspaces;
  for (const BufferSpec &buffer : spec.workspaces) {
    Object workspace{{"element_type", buffer.elementType},
                     {"shape", Array(buffer.shape)}};
    if (buffer.zeroed)
      workspace["zeroed"] = true;
    if (buffer.leftZeroed)
      workspace["left_zeroed"] = true;
    workspaces.push_back(std::move(workspace));
  }
  Object result{
      {"function", spec.name},
      {"calling_convention", "bare-pointer"},
      {"arguments", std::move(arguments)},
      {"results", Array(spec.results)},
      {"launches", std::move(launches)},
  };
  if (!spec.workspaces.empty())
    result["workspaces"] = std::move(workspaces);
  if (spec.workload)
    result["workload"] = toJSON(*spec.workload);
  if (spec.schedule) {
    Object knobs;
    for (const auto &[name, value] : spec.schedule->knobs)
      knobs[name] = value;
    result["schedule"] = Object{{"path", spec.schedule->path},
                                {"hash", spec.schedule->hash},
                                {"knobs", std::move(knobs)},
                                {"knob_source", spec.schedule->knobSource}};
  }
  return result;
}

namespace tessel {
/// Maps the buffer a parameter refers to: "argument" or "workspace".
static bool mapBuffer(llvm::json::ObjectMapper &o, const Value &value,
                      KernelParamSpec &spec, llvm::json::Path path) {
  const llvm::json::Object *object = value.getAsObject();
  spec.workspace = object->get("workspace") != nullptr;
  if (spec.workspace && object->get("argument")) {
    path.report("expected one of \"argument\" and \"workspace\"");
    return false;
  }
  return spec.workspace ? mapJsonIndex(o, "workspace", spec.argument)
                        : mapJsonIndex(o, "argument", spec.argument);
}

static bool fromJSON(const Value &value, KernelParamSpec &spec,
                     llvm::json::Path path) {
  llvm::json::ObjectMapper o(value, path);
  std::string kind;
  if (!o || !o.map("kind", kind))
    return false;
  if (kind == "buffer") {
    spec.kind = KernelParamSpec::Kind::Buffer;
    return mapBuffer(o, value, spec, path);
  }
  if (kind == "scalar") {
    spec.kind = KernelParamSpec::Kind::Scalar;
    return o.map("type", spec.scalarType) && o.map("value", spec.scalarValue);
  }
  if (kind == "tensor_map") {
    spec.kind = KernelParamSpec::Kind::TensorMap;
    TensorMapSpec &map = spec.tensorMap;
    return mapBuffer(o, value, spec, path) && o.map("box", map.box) &&
           o.mapOptional("shape", map.shape) &&
           o.mapOptional("strides", map.strides) &&
           o.mapOptional("offset", map.offset) &&
           o.map("swizzle", map.swizzle) &&
           o.map("l2_promotion", map.l2Promotion) &&
           o.map("oob_fill", map.oobFill) &&
           o.map("interleave", map.interleave);
  }
  path.field("kind").report(
      "expected \"buffer\", \"scalar\" or \"tensor_map\"");
  return false;
}

/// Maps a field holding exactly three sizes.
static bool mapDims(llvm::json::ObjectMapper &o, const Value &value,
                    llvm::StringLiteral field, std::array<int64_t, 3> &dims,
                    llvm::json::Path path) {
  std::vector<int64_t> list;
  if (!o.map(field, list))
    return false;
  if (list.size() != 3) {
    path.field(field).report("expected 3 sizes");
    return false;
  }
  std::copy(list.begin(), list.end(), dims.begin());
  return true;
}

static bool fromJSON(const Value &value, LaunchSpec &spec,
                     llvm::json::Path path) {
  llvm::json::ObjectMapper o(value, path);
  return o && o.map("binary", spec.binary) && o.map("kernel", spec.kernel) &&
         o.map("image", spec.image) &&
         mapDims(o, value, "grid", spec.grid, path) &&
         mapDims(o, value, "block", spec.block, path) &&
         o.mapOptional("dynamic_shared_memory", spec.dynamicSharedMemory) &&
         o.mapOptional("pointer_alignment", spec.pointerAlignment) &&
         o.mapOptional("waits_for_previous", spec.waitsForPrevious) &&
         o.mapOptional("persistent", spec.persistent) &&
         (!value.getAsObject()->get("cluster") ||
          mapDims(o, value, "cluster", spec.cluster, path)) &&
         o.map("params", spec.params);
}

static bool fromJSON(const Value &value, ScheduleSpec &spec,
                     llvm::json::Path path) {
  llvm::json::ObjectMapper o(value, path);
  return o && o.map("path", spec.path) && o.map("hash", spec.hash) &&
         o.map("knobs", spec.knobs) &&
         o.mapOptional("knob_source", spec.knobSource);
}
} // namespace tessel

bool tessel::fromJSON(const Value &value, HostFunctionSpec &spec,
                      llvm::json::Path path) {
  llvm::json::ObjectMapper o(value, path);
  auto mapResults = [&] {
    const llvm::json::Object *object = value.getAsObject();
    const Value *results = object ? object->get("results") : nullptr;
    if (!results)
      return true;
    const llvm::json::Array *array = results->getAsArray();
    llvm::json::Path field = path.field("results");
    if (!array) {
      field.report("expected array");
      return false;
    }
    spec.results.assign(array->size(), 0);
    for (auto [i, element] : llvm::enumerate(*array))
      if (!readJsonIndex(element, spec.results[i], field.index(i)))
        return false;
    return true;
  };
  return o && o.map("function", spec.name) &&
         o.map("arguments", spec.arguments) &&
         o.mapOptional("workspaces", spec.workspaces) && mapResults() &&
         o.map("launches", spec.launches) &&
         o.mapOptional("workload", spec.workload) &&
         o.mapOptional("schedule", spec.schedule);
}

/// The byte size of a buffer of valid shape and element type, rounded up
/// to `granule`; nullopt when int64 cannot hold it. Runtimes compute
/// numElements() * elementBytes() (K = 2^62 wrapped and passed every other
/// check).
static std::optional<int64_t> byteSize(const BufferSpec &buffer,
                                       int64_t granule) {
  int64_t bytes = buffer.elementBytes();
  for (int64_t d : buffer.shape)
    if (llvm::MulOverflow(bytes, d, bytes))
      return std::nullopt;
  if (llvm::AddOverflow(bytes, granule - 1, bytes))
    return std::nullopt;
  return bytes / granule * granule;
}

/// Checks what JSON typing cannot: sizes, indices, element types.
static llvm::Error validate(const HostFunctionSpec &spec) {
  auto error = [](const llvm::Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
  };
  for (auto [i, buffer] : llvm::enumerate(spec.arguments)) {
    if (buffer.elementBytes() == 0)
      return error("argument #" + llvm::Twine(i) +
                   " has unsupported element "
                   "type '" +
                   buffer.elementType + "'");
    if (buffer.shape.empty() ||
        llvm::any_of(buffer.shape, [](int64_t d) { return d <= 0; }))
      return error("argument #" + llvm::Twine(i) + " has an invalid shape");
    if (!byteSize(buffer, 16))
      return error("argument #" + llvm::Twine(i) +
                   " has more bytes than a 64-bit size holds");
    if (buffer.zeroed || buffer.leftZeroed)
      return error("argument #" + llvm::Twine(i) +
                   " is marked zeroed; only workspaces are zeroed by the "
                   "runtime");
  }
  // The workspaces share one allocation, each at a 256-byte boundary.
  int64_t workspaceBytes = 0;
  for (auto [i, buffer] : llvm::enumerate(spec.workspaces)) {
    if (buffer.elementBytes() == 0 || buffer.shape.empty() ||
        llvm::any_of(buffer.shape, [](int64_t d) { return d <= 0; }))
      return error("workspace #" + llvm::Twine(i) +
                   " has an unsupported element type or an invalid shape");
    std::optional<int64_t> bytes = byteSize(buffer, 256);
    if (!bytes || llvm::AddOverflow(workspaceBytes, *bytes, workspaceBytes))
      return error("workspaces have more bytes than a 64-bit size holds");
    // Zeroed in 32-bit words.
    if (buffer.zeroed && buffer.elementBytes() != 4)
      return error("workspace #" + llvm::Twine(i) +
                   " is zeroed but its elements are not 32-bit");
    if (buffer.leftZeroed && !buffer.zeroed)
      return error("workspace #" + llvm::Twine(i) +
                   " is left_zeroed but not zeroed: the runtime keeps only "
                   "what it zeroed first");
  }
  for (unsigned r : spec.results)
    if (r >= spec.arguments.size())
      return error("result refers to argument #" + llvm::Twine(r) +
                   " of a function with " + llvm::Twine(spec.arguments.size()) +
                   " arguments");
  if (spec.launches.empty())
    return error("no launches");
  for (const LaunchSpec &launch : spec.launches) {
    for (int64_t d :
         llvm::concat<const int64_t>(launch.grid, launch.block, launch.cluster))
      if (d <= 0)
        return error("launch of '" + launch.kernel +
                     "' has a non-positive grid, block or cluster size");
    for (int d = 0; d < 3; ++d)
      if (launch.grid[d] % launch.cluster[d] != 0)
        return error("launch of '" + launch.kernel + "' has a grid of " +
                     llvm::Twine(launch.grid[d]) + " blocks along dimension " +
                     llvm::Twine(d) + ", not a multiple of its cluster size " +
                     llvm::Twine(launch.cluster[d]));
    if (launch.persistent &&
        (launch.grid[1] != 1 || launch.grid[2] != 1 ||
         launch.cluster[1] != 1 || launch.cluster[2] != 1))
      return error("launch of '" + launch.kernel +
                   "' is persistent but its grid is not N x 1 x 1 blocks "
                   "in clusters (if any) along x");
    if (launch.dynamicSharedMemory < 0)
      return error("launch of '" + launch.kernel +
                   "' has negative dynamic shared memory");
    // Buffers are checked against it (address % alignment) before launch.
    if (launch.pointerAlignment < 1 || launch.pointerAlignment > 256 ||
        !llvm::isPowerOf2_64(launch.pointerAlignment))
      return error("launch of '" + launch.kernel + "' has pointer_alignment " +
                   llvm::Twine(launch.pointerAlignment) +
                   ", not a power of two in [1, 256]");
    for (const KernelParamSpec &param : launch.params) {
      if (param.kind == KernelParamSpec::Kind::Scalar)
        continue;
      const std::vector<BufferSpec> &space =
          param.workspace ? spec.workspaces : spec.arguments;
      llvm::StringRef what = param.workspace ? "workspace" : "argument";
      if (param.argument >= space.size())
        return error("launch of '" + launch.kernel + "' passes " + what + " #" +
                     llvm::Twine(param.argument) + " of a function with " +
                     llvm::Twine(space.size()) + " " + what + "s");
      if (param.kind != KernelParamSpec::Kind::TensorMap)
        continue;
      const TensorMapSpec &map = param.tensorMap;
      const std::vector<int64_t> &bufferShape = space[param.argument].shape;
      if (map.box.size() != bufferShape.size())
        return error("launch of '" + launch.kernel +
                     "' has a tensor map whose box rank differs from the "
                     "rank of " +
                     what + " #" + llvm::Twine(param.argument));
      if (!map.strides.empty()) {
        // A strided view: its last element inside the buffer (a span that
        // overflows 64 bits does not fit; the buffer's own size was checked
        // above, byteSize).
        int64_t elements = space[param.argument].numElements();
        std::optional<int64_t> last = map.offset;
        bool fits = map.shape.size() == map.strides.size() &&
                    map.strides.size() == bufferShape.size() &&
                    map.strides.back() == 1 && map.offset >= 0;
        for (auto [dim, stride] : llvm::zip(map.shape, map.strides)) {
          fits = fits && dim >= 1 && stride >= 1;
          if (!fits || !last)
            continue;
          std::optional<int64_t> span = llvm::checkedMul(dim - 1, stride);
          last = span ? llvm::checkedAdd(*last, *span) : std::nullopt;
        }
        if (!fits || !last || *last >= elements)
          return error("launch of '" + launch.kernel +
                       "' has a strided tensor map that does not fit in " +
                       what + " #" + llvm::Twine(param.argument));
      } else if (!map.shape.empty() &&
                 (map.shape.size() != bufferShape.size() ||
                  llvm::any_of(llvm::zip(map.shape, bufferShape),
                               [](auto pair) {
                                 auto [dim, bound] = pair;
                                 return dim < 1 || dim > bound;
                               })))
        return error("launch of '" + launch.kernel +
                     "' has a tensor map whose shape does not fit in its "
                     "buffer");
      for (int64_t box : map.box)
        if (box < 1 || box > 256)
          return error("launch of '" + launch.kernel +
                       "' has a tensor map box size outside [1, 256]");
      if (!map.swizzleCode() || !map.l2PromotionCode() ||
          !map.oobFillCode() || !map.interleaveCode())
        return error("launch of '" + launch.kernel +
                     "' has a tensor map with an unknown swizzle, "
                     "l2_promotion, oob_fill or interleave");
    }
  }
  if (spec.workload)
    if (llvm::Error e = validateWorkload(*spec.workload, spec.arguments))
      return error("workload " + llvm::toString(std::move(e)));
  return llvm::Error::success();
}

llvm::Expected<HostFunctionSpec> tessel::readLaunchSpec(llvm::StringRef path) {
  auto fail = [&](const llvm::Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   path + ": " + message);
  };
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> file =
      readInputFile(path);
  if (!file)
    return file.takeError();
  llvm::Expected<Value> json = parseJson((*file)->getBuffer());
  if (!json)
    return fail("invalid JSON: " + llvm::toString(json.takeError()));
  HostFunctionSpec spec;
  llvm::json::Path::Root root("launch spec");
  if (!fromJSON(*json, spec, root)) {
    std::string message;
    llvm::raw_string_ostream os(message);
    os << llvm::toString(root.getError());
    return fail(message);
  }
  if (llvm::Error error = validate(spec))
    return fail(llvm::toString(std::move(error)));
  return spec;
}
