//===- LaunchSpec.h - What a runtime needs to launch kernels ----*- C++ -*-===//
//
// A host function lowered by tessel-lower-to-ptx only launches kernels on its
// arguments. LaunchSpec describes those launches in plain data (and JSON,
// the `<function>.launch.json` files of tessel-export-kernels), so that a
// runtime that never sees MLIR can run them. No MLIR dependency here.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_LAUNCHSPEC_H
#define TESSEL_RUNTIME_LAUNCHSPEC_H

#include "tessel/Runtime/Workload.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tessel {

/// How a TMA tensor map tiles a buffer (the fields of
/// cuTensorMapEncodeTiled that are not the buffer itself).
struct TensorMapSpec {
  /// Box (tile) sizes, outermost dimension first like the buffer's shape.
  std::vector<int64_t> box;
  /// The tensor's dimensions when it is the leading part of its row-major
  /// buffer (a matrix in a workspace whose rows are padded); empty: the
  /// whole buffer.
  std::vector<int64_t> shape;
  /// With `shape`, a strided view of the buffer instead of its leading
  /// part: element strides, outermost first (the innermost 1), and the
  /// view's first element (a multiple of 16 bytes into the buffer). Every
  /// eighth row of a matrix whose rows lie off 16-byte boundaries is such
  /// a view (docs/any-shape.md, "Phase maps"). Empty: the buffer's strides.
  std::vector<int64_t> strides;
  int64_t offset = 0;
  std::string swizzle = "none";    // "none", "32b", "64b", "128b"
  std::string l2Promotion = "none"; // "none", "64b", "128b", "256b"
  std::string oobFill = "zero";    // "zero", "nan"
  std::string interleave = "none"; // "none", "16b", "32b"

  /// The CUtensorMap{Swizzle, L2promotion, FloatOOBfill, Interleave} values
  /// of the fields; nullopt for a name that is not one of those above.
  std::optional<int> swizzleCode() const;
  std::optional<int> l2PromotionCode() const;
  std::optional<int> oobFillCode() const;
  std::optional<int> interleaveCode() const;
};

/// One kernel parameter: a buffer (bare pointer to a host-function
/// argument or a workspace), a scalar constant, or a TMA tensor map of
/// such a buffer (a 128-byte CUtensorMap passed by value,
/// __grid_constant__).
struct KernelParamSpec {
  enum class Kind { Buffer, Scalar, TensorMap } kind = Kind::Buffer;
  /// Buffer, TensorMap: the index of a host-function argument, or of one of
  /// the function's workspaces when `workspace` is set.
  unsigned argument = 0;
  bool workspace = false;
  std::string scalarType;  // Scalar: "i32", "i64", "f32", "f64".
  std::string scalarValue; // Scalar: decimal text of the value.
  TensorMapSpec tensorMap; // TensorMap: how the argument is tiled.
};

/// One `gpu.launch_func`, in program order.
struct LaunchSpec {
  std::string binary; // Symbol of the gpu.binary holding the kernel.
  std::string kernel; // Entry name in the PTX.
  std::string image;  // File holding the binary's PTX (or cubin).
  std::array<int64_t, 3> grid = {1, 1, 1};
  std::array<int64_t, 3> block = {1, 1, 1};
  /// Blocks per thread-block cluster (split-K); the kernel is compiled for
  /// it (.reqnctapercluster), so it is informational and checked against
  /// the grid.
  std::array<int64_t, 3> cluster = {1, 1, 1};
  int64_t dynamicSharedMemory = 0;
  int64_t pointerAlignment = 1; // Alignment the kernel assumes for buffers.
  /// The kernel waits for the grid launched before it (griddepcontrol.wait)
  /// before it touches memory: it may be launched with programmatic stream
  /// serialization, overlapping that grid's end.
  bool waitsForPrevious = false;
  /// The kernel walks the `grid[0]` tiles of its grid (which is
  /// `grid[0] x 1 x 1`) with a stride of its launch's grid size: a runtime
  /// may launch fewer blocks, down to 1 (as many as run at once is best).
  bool persistent = false;
  std::vector<KernelParamSpec> params;
};

/// Which schedule, with which knob values, produced the kernels.
struct ScheduleSpec {
  std::string path; // The schedule library as given to tessel-apply-schedule.
  std::string hash; // Its tuning-database key (tessel::scheduleHash).
  std::map<std::string, std::string> knobs; // Name -> value, as text.
  /// Where the knob values came from: "given", "tuned on <device> in
  /// <db>", "nearest record: ...", "rule (...)" or "schedule defaults".
  std::string knobSource;
};

struct HostFunctionSpec {
  std::string name;
  std::vector<BufferSpec> arguments;
  /// Device buffers the function needs between its launches (e.g. a copy
  /// of a matrix with 16-byte aligned rows), allocated by the runtime for
  /// each call, on its stream.
  std::vector<BufferSpec> workspaces;
  /// The i-th result is argument `results[i]`, written in place.
  std::vector<unsigned> results;
  std::vector<LaunchSpec> launches;
  /// What the function computes, when Tessel recognized it; runtimes
  /// check the output against its reference.
  std::optional<WorkloadSpec> workload;
  std::optional<ScheduleSpec> schedule;
};

llvm::json::Value toJSON(const HostFunctionSpec &spec);
bool fromJSON(const llvm::json::Value &value, HostFunctionSpec &spec,
              llvm::json::Path path);

/// Reads and validates a `.launch.json` file (shapes, parameter indices,
/// launch sizes); errors name the file and the offending field.
llvm::Expected<HostFunctionSpec> readLaunchSpec(llvm::StringRef path);

} // namespace tessel

#endif // TESSEL_RUNTIME_LAUNCHSPEC_H
