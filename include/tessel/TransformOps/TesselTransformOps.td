//===- TesselTransformOps.td - Tessel transform ops --------*- tablegen -*-===//
//
// Transform ops that upstream MLIR 22 lacks and Tessel's schedules need.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_TRANSFORMOPS_TESSELTRANSFORMOPS
#define TESSEL_TRANSFORMOPS_TESSELTRANSFORMOPS

include "mlir/Dialect/Transform/IR/TransformDialect.td"
include "mlir/Dialect/Transform/IR/TransformTypes.td"
include "mlir/Dialect/Transform/Interfaces/TransformInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/OpBase.td"

def CheckTileSizesOp : Op<Transform_Dialect, "tessel.check_tile_sizes", [
    DeclareOpInterfaceMethods<TransformOpInterface>,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Check that tile sizes evenly divide a structured op's loops";
  let description = [{
    Checks, for every payload op associated with `target` (ops implementing
    `LinalgOp`), that its loop ranges are static and that the i-th tile size
    divides the i-th loop range (a tile size of 0 means "not tiled").
    Schedules run it before tiling with knob-valued tile sizes, so a knob
    value that would leave a partial tile is rejected up front with the
    knob's name, instead of producing dynamically shaped tiles that later
    steps cannot vectorize.

    ```mlir
    %tm = transform.tune.knob<"tile_m"> = 64 from options = [32, 64, 128]
        -> !transform.param<i64>
    transform.tessel.check_tile_sizes %matmul by %tm, %tn
        : !transform.any_op, !transform.param<i64>, !transform.param<i64>
    ```

    #### Return modes

    Produces a silenceable failure, with a note on the payload op, when a
    payload op is not a `LinalgOp`, has a dynamic loop range, or when a tile
    size does not divide its loop range. Fails definitely when a size param
    does not hold exactly one integer. Reads its operands and the payload and
    changes neither.
  }];

  let arguments = (ins TransformHandleTypeInterface:$target,
                       Variadic<TransformParamTypeInterface>:$tile_sizes);
  let results = (outs);
  let assemblyFormat = [{
    $target `by` $tile_sizes attr-dict `:` type($target) (`,` type($tile_sizes)^)?
  }];
  let cppNamespace = "::tessel";
}

def MapNestedForallToThreadsOp : Op<Transform_Dialect,
    "tessel.map_nested_forall_to_threads", [
    FunctionalStyleTransformOpTrait,
    MemoryEffectsOpInterface,
    TransformEachOpTrait,
    TransformOpInterface]> {
  let summary = "Map thread-level scf.forall ops to GPU threads, inferring the block size";
  let description = [{
    Like upstream `transform.gpu.map_nested_forall_to_threads`, but the
    block size is not an attribute: it is inferred from the static trip
    counts of the `scf.forall` ops mapped to `#gpu.thread<x|y|z>` nested in
    the target `gpu.launch` (per dimension, the largest count). Upstream
    requires `block_dims` as a constant attribute, so a schedule whose tile
    sizes are knobs could not state it; inferring it keeps the thread layout
    consistent with the tile sizes by construction.

    ```mlir
    %launch = transform.gpu.map_forall_to_blocks %func generate_gpu_launch
        : (!transform.any_op) -> !transform.any_op
    transform.tessel.map_nested_forall_to_threads %launch
        : (!transform.any_op) -> !transform.any_op
    ```

    #### Return modes

    The target must be a `gpu.launch`. Produces a silenceable failure when no
    thread-mapped `scf.forall` is nested in it, when one has a dynamic trip
    count, or when the inferred block exceeds the GPU's limits (1024 threads,
    1024 x 1024 x 64); the note names the offending op. Failures of the
    upstream mapping are propagated. Returns the (updated) launch.
  }];

  let arguments = (ins TransformHandleTypeInterface:$target,
                       DefaultValuedAttr<I64Attr, "32">:$warp_size);
  let results = (outs TransformHandleTypeInterface:$result);
  let assemblyFormat = [{
    $target attr-dict `:` functional-type($target, $result)
  }];
  let cppNamespace = "::tessel";

  let extraClassDeclaration = [{
    ::mlir::DiagnosedSilenceableFailure applyToOne(
        ::mlir::transform::TransformRewriter &rewriter,
        ::mlir::Operation *target,
        ::mlir::transform::ApplyToEachResultList &results,
        ::mlir::transform::TransformState &state);
  }];
}

#endif // TESSEL_TRANSFORMOPS_TESSELTRANSFORMOPS
