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
  let summary = "Check that a structured op can be tiled with the given sizes";
  let description = [{
    Checks, for every payload op associated with `target` (ops implementing
    `LinalgOp`), what tiling it with `tile_sizes` (the i-th size for the
    i-th loop; 0 means "not tiled") really requires: static loop ranges,
    no empty loop range, and no negative tile size. Schedules run it before
    anything is tiled, so that such a payload or knob value is rejected up
    front with the knob's name and the payload op's location.

    Tile sizes need not divide the loop ranges: Tessel's schedules handle
    the partial tiles at the edges (TMA's zero fill and predicated stores
    for wgmma, zero-filling `cp.async` and masked stores for mma.sync,
    shifted tiles and padded K steps for SIMT). A size larger than its
    range is one tile.

    ```mlir
    %tm = transform.tune.knob<"tile_m"> = 64 from options = [32, 64, 128]
        -> !transform.param<i64>
    transform.tessel.check_tile_sizes %matmul by %tm, %tn
        : !transform.any_op, !transform.param<i64>, !transform.param<i64>
    ```

    #### Return modes

    Produces a silenceable failure, with a note on the payload op, when a
    payload op is not a `LinalgOp`, has a dynamic or an empty loop range,
    or when a tile size is negative (naming the knob that gave it). Fails
    definitely when a size param does not hold exactly one integer. Reads
    its operands and the payload and changes neither.
  }];

  let arguments = (ins TransformHandleTypeInterface:$target,
                       Variadic<TransformParamTypeInterface>:$tile_sizes);
  let results = (outs);
  let assemblyFormat = [{
    $target `by` $tile_sizes attr-dict `:` type($target) (`,` type($tile_sizes)^)?
  }];
  let cppNamespace = "::tessel";
}

def CopyToAlignedRowsOp : Op<Transform_Dialect,
    "tessel.copy_to_aligned_rows", [
    DeclareOpInterfaceMethods<TransformOpInterface>,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    ReportTrackingListenerFailuresOpTrait]> {
  let summary = "Make a launch read its misaligned input matrices from copies with aligned rows";
  let description = [{
    For every statically shaped 2-D buffer with a unit inner stride that the
    target `gpu.launch` reads but does not write (a matmul's A and B), and
    whose rows do not start on `alignment`-byte boundaries (an f32 matrix
    with a K that is not a multiple of 4, say): copies the buffer into a
    workspace whose rows are padded to 128 bytes (a `gpu.alloc` and a copy
    kernel launched just before the target, a `gpu.dealloc` just after) and
    makes the target read the copy. Buffers of fewer than `min_elements`
    elements are left alone: in a problem that small the copy's launch costs
    more than the loads it widens. Vector loads of the copy's rows can
    then be full width where the original's had to be split into scalar
    loads; the copy moves each matrix once more. Tessel's launch metadata
    records the workspaces and the runtime allocates them at each call.

    ```mlir
    %launch = transform.gpu.map_forall_to_blocks %func generate_gpu_launch
        : (!transform.any_op) -> !transform.any_op
    transform.tessel.copy_to_aligned_rows %launch alignment 16
        min_elements 65536 : !transform.any_op
    ```

    #### Return modes

    Produces a silenceable failure, with a note on the payload op, when the
    target is not a `gpu.launch`. A misaligned buffer the launch writes, or
    uses otherwise than through subviews, vector transfer reads and loads,
    is left as it is. Fails definitely when `alignment` is not a power of
    two. Modifies the payload in place; the handle stays valid.
  }];

  let arguments = (ins TransformHandleTypeInterface:$target,
                       DefaultValuedAttr<I64Attr, "16">:$alignment,
                       DefaultValuedAttr<I64Attr, "0">:$min_elements);
  let results = (outs);
  let assemblyFormat = [{
    $target `alignment` $alignment (`min_elements` $min_elements^)? attr-dict
    `:` type($target)
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

def PipelineSharedMemoryCopiesOp : Op<Transform_Dialect,
    "tessel.pipeline_shared_memory_copies", [
    DeclareOpInterfaceMethods<TransformOpInterface>,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Software-pipeline a loop's copies to shared memory, with the depth given as a param";
  let description = [{
    Upstream `transform.nvgpu.pipeline_shared_memory_copies` with its
    `depth` taken from a `!transform.param<i64>` instead of an attribute, so
    that a schedule can tune it with a `transform.tune.knob`. The pipelining
    itself is upstream's: the global-to-shared copies of the target
    `scf.for` (async copies and their groups, with the barriers before them)
    run `depth` iterations ahead of the rest of the body, the async waits
    get the matching number of groups in flight, and the copies of the last
    `depth` iterations are predicated off (or peeled with `peel_epilogue`).
    The shared buffers must already hold `depth` stages (for example as
    allocated by `transform.tessel.rewrite_block_matmul_as_mma_sync`).
    A loop with a static trip count of one (a K that one tile covers) has
    nothing to overlap: it is returned as it is, its copies waited for
    before the compute that reads them, whatever the depth.

    ```mlir
    %stages = transform.tune.knob<"stages"> = 3 from options = [2, 3, 4]
        -> !transform.param<i64>
    %pipelined = transform.tessel.pipeline_shared_memory_copies %loop
        depth %stages
        : (!transform.any_op, !transform.param<i64>) -> !transform.any_op
    ```

    #### Return modes

    Consumes the loop handle and returns the pipelined loop. Fails
    definitely when `depth` is not a single integer of at least 1;
    silenceably, naming both numbers, when a loop of two or more iterations
    runs fewer than `depth`. Other failures are upstream's: silenceable when the loop has no shared memory
    copy or nested regions in its body, definite when the IR was already
    changed.
  }];

  let arguments = (ins TransformHandleTypeInterface:$target,
                       TransformParamTypeInterface:$depth,
                       UnitAttr:$peel_epilogue);
  let results = (outs TransformHandleTypeInterface:$result);
  let assemblyFormat = [{
    $target `depth` $depth attr-dict `:` functional-type(operands, results)
  }];
  let cppNamespace = "::tessel";
}

def RewriteBlockMatmulAsMmaSyncOp : Op<Transform_Dialect,
    "tessel.rewrite_block_matmul_as_mma_sync", [
    DeclareOpInterfaceMethods<TransformOpInterface>,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Rewrite a thread block's matmul and its epilogue into a shared-memory, warp-level mma.sync main loop";
  let description = [{
    Rewrites a contraction `C[m, n] += A[m, k] * B[k, n]` on memrefs
    (`linalg.matmul`, or any linalg op `linalg::inferContractionDims`
    recognizes as one with that layout) that one thread block computes
    inside a `gpu.launch` (after `transform.gpu.map_forall_to_blocks`),
    together with the `linalg.fill` that zeroes its accumulator and the
    elementwise `linalg.generic` that consumes it (e.g. ReLU and the
    conversion to the output type), into tensor-core code. The block tile
    may be partial (the edge of a shape its tiles do not divide, with
    dynamic sizes bounded by the tile size), and K need not be a multiple
    of `tile_k`: the copies read only what lies inside the matrices and
    zero-fill the rest (they become `cp.async` with a smaller source size),
    and the stores write only the valid part (a full store where a chunk
    lies inside, a masked one at the edge). A matrix whose rows do not
    start on 16-byte boundaries (f16 with an odd K or N) is first copied
    into a workspace with 128-byte rows (a `gpu.alloc` and a copy kernel
    before the launch). The block computes:

    - a K loop with step `tile_k` whose body copies the block's A
      (`BM x tile_k`) and B (`tile_k x BN`) tiles into workgroup memory with
      16-byte `vector.transfer_read`/`transfer_write` pairs spread over all
      threads (consecutive threads take consecutive 16-byte chunks of a
      row: coalesced), into one of `stages` buffers, each row padded by
      `padding` elements against bank conflicts;
    - per warp, a `warp_m x warp_n` tile of the block tile, computed with
      `nvgpu.ldmatrix` (A: x4; B: x4 transposed) and `nvgpu.mma.sync`
      (m16n8k16, f32 accumulators carried in registers as loop iter_args);
    - after the loop, the epilogue's scalar body applied to each thread's
      accumulator fragments, and the result stored to the output: directly
      (pairs of values) with `stage_output = 0`, or with `stage_output = 1`
      through a padded `BM x BN` tile in workgroup memory that all threads
      then copy out in coalesced 16-byte rows.

    The launch gets `32 * (BM / warp_m) * (BN / warp_n)` threads along x.
    `transform.nvgpu.create_async_groups` then turns the copies into
    `cp.async`, and `transform.tessel.pipeline_shared_memory_copies` (with
    the same `stages`) pipelines the loop. The loop is marked with the unit
    attribute `tessel.mma_main_loop` so that a schedule can match it again
    after handles were invalidated.

    ```mlir
    %loop = transform.tessel.rewrite_block_matmul_as_mma_sync %matmul
        tile_k %bk warp_tile %wm, %wn stages %stages padding %pad
        stage_output %so
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>,
           !transform.param<i64>, !transform.param<i64>,
           !transform.param<i64>, !transform.param<i64>) -> !transform.any_op
    ```

    #### Return modes

    Consumes the contraction handle and returns the K loop. Produces a
    silenceable failure, with a note on the payload op, and before changing
    anything, when: the target is not an `A[m,k] * B[k,n]` contraction on
    memrefs inside a `gpu.launch` whose block extents have constant bounds;
    the inputs are not both f16 or both bf16 with an f32 accumulator; the
    accumulator is not zeroed by a `linalg.fill` or is read by anything but
    the contraction and one elementwise `linalg.generic` (or is not itself
    the output); `tile_k` is not a multiple of 16; the warp tile does not
    divide the block tile (a block that covers a whole dimension smaller
    than the warp tile computes one warp tile), or 16 the warp tile; the
    copy chunks of a tile do not split evenly among the threads; the block
    would exceed 1024 threads or the 227 KiB of shared memory of an sm_90
    block; `stage_output = 1` with an output type that does not fill
    16-byte stores. Fails definitely when a param does not hold exactly one
    integer, or `stage_output` is not 0 or 1.
  }];

  let arguments = (ins TransformHandleTypeInterface:$target,
                       TransformParamTypeInterface:$tile_k,
                       TransformParamTypeInterface:$warp_m,
                       TransformParamTypeInterface:$warp_n,
                       TransformParamTypeInterface:$stages,
                       TransformParamTypeInterface:$padding,
                       TransformParamTypeInterface:$stage_output);
  let results = (outs TransformHandleTypeInterface:$loop);
  let assemblyFormat = [{
    $target `tile_k` $tile_k `warp_tile` $warp_m `,` $warp_n
    `stages` $stages `padding` $padding `stage_output` $stage_output attr-dict
    `:` functional-type(operands, results)
  }];
  let cppNamespace = "::tessel";
}

def RewriteBlockMatmulAsWgmmaOp : Op<Transform_Dialect,
    "tessel.rewrite_block_matmul_as_wgmma", [AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<TransformOpInterface>,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Rewrite a thread block's matmul and its epilogue into a warp-specialized TMA + mbarrier + wgmma pipeline (sm_90a)";
  let description = [{
    Rewrites a contraction `C[m, n] += A[m, k] * B[k, n]` on memrefs
    (`linalg.matmul`, or any linalg op `linalg::inferContractionDims`
    recognizes as one with that layout) that one thread block computes
    inside a `gpu.launch` (after `transform.gpu.map_forall_to_blocks`),
    together with the `linalg.fill` that zeroes its accumulator and the
    elementwise `linalg.generic` that consumes it (e.g. ReLU and the
    conversion to the output type), into a Hopper kernel body. The block
    tile `BM x BN` is the bound of the block's extents rounded up, BM to a
    multiple of 64 (one consumer warpgroup per 64 rows), BN to a multiple
    of 32 (of 64 with `split_k` = 8, so that each block of the split stores
    whole 8-column groups); a B stored `[k, n]` is loaded in whole
    64-column boxes, a B stored `[n, k]` as one box of BN rows. A partial
    tile at the edge of the problem and a K that
    is not a multiple of 64 are zero-filled by TMA, and only the valid part
    of the tile is stored. A matrix whose rows do not start on 16-byte
    boundaries (TMA's requirement) is first copied into a workspace with
    128-byte rows (a `gpu.alloc` and a copy kernel before the launch), and
    its tensor map describes the copy. Rows on 16- but not 32-byte
    boundaries, which TMA reads more slowly, get 128-byte L2 promotion;
    TMA reads A's in place, and B's are copied once the blocks read each
    of its tiles `copy_16b_rows_from` times (ceil(M / tile_m); default
    12). When K is at most
    `read_misaligned_rows_max_k` (0 never; when absent, when the producer
    warpgroups can hold all of a block's K steps in flight: one per step,
    up to four, as the registers and `stages` allow, and the blocks read
    at most 9 MB of such rows in all, 16 MB with one K step, or else
    when the matmul does at most 64 flops per byte of such matrices in 64
    blocks or more, or runs fewer blocks and at most 16 K steps, and
    staging fits), a
    matrix whose rows do not start on 16-byte boundaries is instead read
    by whole producer warpgroups, up to four taking K steps in turn as the
    registers allow (the two aligned 16-byte granules
    around each 16-byte chunk, realigned in registers; the kernel then
    assumes that matrix's start 16-byte aligned, and says so in its
    signature) and stored where TMA's 128-byte swizzle would put it: no
    copy kernel, no tensor map. With more K steps than producers, one
    producer warpgroup copies the granules with 16-byte `cp.async` into
    2 to 4 staging slots after the ring (as many as shared memory holds),
    K steps ahead, and realigns them from there. The body:

    - On the host, before the launch, one `nvgpu.tma.create.descriptor`
      for the whole A (box `BM x 64`) and one for the whole B (box
      `64 x 64`), 128-byte swizzled. They become kernel parameters; Tessel's
      launch metadata records them and its runtime encodes them with
      `cuTensorMapEncodeTiled` and passes them as `__grid_constant__`
      parameters (see `tessel-lower-to-ptx`).
    - A ring of `stages` buffers in workgroup memory, each holding a
      `BM x 64` A tile and a `64 x BN` B tile (as `BN / 64` boxes), aligned
      to 1024 bytes at run time, with two `nvgpu.mbarrier.group`s: "full"
      (one arrival plus the transaction bytes of the TMA loads) and "empty"
      (one arrival per consumer thread).
    - `BM / 64 + 1` warpgroups. The last one is the producer: one of its
      threads walks K in steps of 64, waits until a buffer is empty, and
      issues `nvgpu.mbarrier.arrive.expect_tx` and `nvgpu.tma.async.load`s
      into it. When it reads an operand itself, all 128 threads walk K,
      fill their 16-byte chunks, fence them for the async proxy and
      arrive on the full barrier. Consumer warpgroup `c` computes rows `64c .. 64c + 63` of the
      tile: it waits until a buffer is full, builds wgmma descriptors
      (`nvgpu.warpgroup.generate.descriptor`) and issues
      `nvgpu.warpgroup.mma` (m64nBNk16 x 4, f32 accumulators in registers)
      with one wgmma group left in flight; once the previous group has
      completed, its buffer is released on the empty barrier.
    - After the loop, the consumers wait for the last group, apply the
      epilogue's scalar body (and the conversion to the output type) on
      the accumulator registers, a pair of columns at a time at each
      pair's (row, col), stage the converted tile in the (then free) ring
      memory in rows padded by 8 elements against bank conflicts, and copy
      it out in coalesced 16-byte chunks: the matmul result never reaches
      global memory before the epilogue.
    - With `split_k` = S > 1 (an optional param, default 1; S in [1, 8],
      dividing `BN / 8`, at most the number of K steps), the launch runs
      in thread-block clusters of `1 x 1 x S` blocks along grid z (its z
      extent, the batch blocks, times S; the body sees its former block
      index along z as `z / S`), and the block of rank `r` in its cluster
      (`gpu.cluster_block_id z`) takes K steps `[r * steps / S, (r + 1) *
      steps / S)`. After its loop each block stages its f32 partial tile
      in its own shared memory in wgmma's fragment order (16-byte stores);
      after a cluster barrier (`nvvm.cluster.arrive` / `wait`, which the
      producer warpgroup joins) it sums columns `[r * BN / S, (r + 1) * BN
      / S)` of the tile over the cluster's partials, read through
      distributed shared memory (`nvvm.mapa`, `ld.shared::cluster`) in the
      order of the blocks, so the sum does not depend on timing; applies
      the epilogue once; and after a second cluster barrier (every partial
      read) stages and stores those columns as above. Operands whose rows
      TMA cannot read are copied, never read by the producers. The kernel
      is compiled for its cluster shape (`tessel-require-cluster-dims`).

    - With `persistent` = 1 (an optional param, default 0), the launch
      gets one block per tile along x (its former grid, linearized x
      first, which a runtime may launch fewer blocks of: see
      `tessel-persistent-launches`), and each block walks tiles
      `block_id.x`, `+ grid_dim.x`, ... in two loops marked
      `tessel.persistent_tiles = T`, one per role, recomputing inside
      them the computations of the body that depend on the block's index
      (its tile's offsets and views, the `group_m` order). The tile loops
      carry the ring position (stage and phase parity) of each tile's
      first K step, so that a tile's steps follow the previous tile's in
      the ring. The consumers start each tile's
      accumulator with its first K step (scale-d = 0, at the NVVM level),
      release the tile's last stage once its wgmma completed, and stage
      the epilogue's tile after the ring (`BM x (BN + 8)` more bytes), so
      the producer loads the next tile meanwhile. Operands whose rows TMA
      cannot read are copied; `split_k` > 1 and FP32-accurate f32 (3xTF32)
      are refused.

    - With `persistent` = 2 (stream-K), the same, except that the blocks
      first share out the K steps of the tiles of the last partial wave
      (with a whole wave more where those fill less than half of one):
      block g takes steps `[g * I / G, (g + 1) * I / G)` of their `I`, a
      share (its part of one tile) at a time from its last one, then
      whole tiles of the remaining waves. A share that ends inside its
      tile stores its f32 accumulators (in register order) as the block's
      partial tile in a workspace (`gpu.alloc`, a tile per block) and
      raises its consumer warpgroup's flag (a second workspace, zeroed
      by a `gpu.memset` before the launch: the warpgroup's barrier, then
      one thread's release fence and atomic add); the block whose share
      ends the tile waits for the flags of the blocks before it that hold
      the tile's earlier K steps (acquire loads), adds their partials,
      clears those flags (so the launch leaves them zero: the memset is
      marked `tessel.left_zeroed`, and the runtime zeroes them once per
      stream) and runs the epilogue. A block waits only for blocks
      launched before it. The launch gets a block per K step of the
      tiles, at most 256.
      `cluster` = 2 is refused.

    - With `cluster` = 2 (an optional param, default 1), the launch runs in
      thread-block clusters of two blocks (along x, or along y when the
      grid's x extent is odd; persistent: along x, with an even number of
      tiles and an even grid) that share an operand's loads. Each block
      finds its partner's tile (the block index, or the persistent tile,
      with its lowest bit flipped, through the same computations as its
      own) and, for each operand whose tile the two share, loads half of
      it (its rows `r * BM / 2 ..` for A, `r * BN / 2 ..` for a K-major
      B, the rows `r * 32 ..` of each box of an MN-major B, through
      tensor maps with half boxes) with `multicast_mask = 3`: TMA writes
      it into both blocks' rings at the same offset and completes the
      transaction bytes on both blocks' full barriers. An operand the two
      do not share is loaded whole, as without clusters. The consumers
      release each stage on their own empty barrier and, one thread per
      warp, on the partner's (`nvvm.mapa` and a cluster-scope
      `nvvm.mbarrier.arrive`), so a stage is refilled only when both
      blocks have read it. A cluster barrier follows the barriers'
      initialization and precedes the blocks' exit. Operands whose rows
      TMA cannot read are copied; `split_k` > 1, 3xTF32 and a launch that
      already has clusters are refused.

    - With `swap_ab` = 1 (an optional param, default 0), the block computes
      its output tile transposed, `C^T = B^T * A^T`: B's tile is wgmma's A
      operand (64 of the output's columns per consumer warpgroup) and A's
      tile its B (the output's rows along wgmma's N, in steps of 8), so
      that a tile of 160 rows is wgmma's N = 160 rather than three 64-row
      warpgroups of its M, the last half empty. `BM` and `BN` below are then the transposed tile's (the
      block's columns and rows), a K-major operand stays K-major in its
      new role, and each refusal says that the tile was transposed. The
      epilogue reads its extra operands in output order (a bias along the
      output's columns runs along the accumulator's rows) and stages the
      tile as the output holds it, so the stores stay coalesced chunks;
      split-K, `persistent` and `cluster` apply unchanged.

    The consumers' K loop is returned and marked with the unit attribute
    `tessel.wgmma_main_loop`. The launch gets `128 * (BM / 64 + 1)` threads
    along x and `max(ring, staged tile) + 1024` bytes of workgroup memory
    (one `memref.alloc`, which `tessel-pack-workgroup-memory` places in
    dynamic shared memory; with split-K, at least the `BM x BN x 4`-byte
    partial tile). The result only runs on sm_90a.

    ```mlir
    %loop = transform.tessel.rewrite_block_matmul_as_wgmma %matmul
        stages %stages
        : (!transform.any_op, !transform.param<i64>) -> !transform.any_op
    %loop = transform.tessel.rewrite_block_matmul_as_wgmma %matmul
        stages %stages split_k %split_k persistent %persistent
        cluster %cluster
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>,
           !transform.param<i64>, !transform.param<i64>) -> !transform.any_op
    ```

    #### Return modes

    Consumes the contraction handle and returns the consumers' K loop.
    Produces a silenceable failure, with a note on the payload op and
    before changing anything, when: the target is not an `A[m,k] * B[k,n]`
    contraction on memrefs inside a `gpu.launch` whose block extents have
    constant bounds; the inputs are not both f16 or both bf16 with an f32
    accumulator; the accumulator is not zeroed by a `linalg.fill` or is
    read by anything but the contraction and one elementwise
    `linalg.generic`; A or B is not a unit-stride tile of a statically
    shaped 2-D buffer with unit inner stride defined outside the launch, or
    has a dimension beyond TMA's 32-bit coordinates; `BM` or `BN` exceeds
    256 (or `BN` needs more than 128 accumulator registers per thread, or
    the accumulators and 24 other registers exceed the register file's
    share for the block's threads);
    `stages < 2`; the ring, the staged tile or the partial tile exceeds
    the 227 KiB of shared memory of an sm_90 block; the output type does
    not fill 16-byte stores; `split_k` is outside [1, 8], does not divide
    `BN / 8` or exceeds the K steps, or (above 1) the launch already has
    clusters, memory attributions, or a grid z extent that times
    `split_k` exceeds 65535; `persistent` is not 0, 1 or 2, or is 1 or 2
    with `split_k` > 1, f32 inputs at FP32 accuracy, clusters, a grid
    that is not constant, or block-index computations in the body that
    have side effects, or is 2 with `cluster` = 2; `cluster` is not 1 or
    2, or is 2 with `split_k` > 1, 3xTF32,
    a launch with clusters, or a grid that cannot be paired (a grid that
    is not constant or has odd x and y extents; persistent: an odd number
    of tiles); `swap_ab` is not 0 or 1. Fails definitely when `stages`,
    `split_k`, `persistent`, `cluster` or `swap_ab` does not hold exactly
    one integer, or when `copy_16b_rows_from` or
    `read_misaligned_rows_max_k` is negative.
  }];

  let arguments = (ins TransformHandleTypeInterface:$target,
                       TransformParamTypeInterface:$stages,
                       Optional<TransformParamTypeInterface>:$split_k,
                       Optional<TransformParamTypeInterface>:$persistent,
                       Optional<TransformParamTypeInterface>:$cluster,
                       Optional<TransformParamTypeInterface>:$swap_ab,
                       OptionalAttr<I64Attr>:$copy_16b_rows_from,
                       OptionalAttr<I64Attr>:$read_misaligned_rows_max_k);
  let results = (outs TransformHandleTypeInterface:$loop);
  let assemblyFormat = [{
    $target `stages` $stages (`split_k` $split_k^)?
    (`persistent` $persistent^)? (`cluster` $cluster^)?
    (`swap_ab` $swap_ab^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let cppNamespace = "::tessel";
}

def ShiftPartialTilesOp : Op<Transform_Dialect,
    "tessel.shift_partial_tiles", [
    DeclareOpInterfaceMethods<TransformOpInterface>,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    ReportTrackingListenerFailuresOpTrait]> {
  let summary = "Make the partial last tiles of a tiled scf.forall full by shifting them back inside the iteration space";
  let description = [{
    `transform.structured.tile_using_forall` tiles a dimension of size `D`
    with tiles of size `T` that do not divide it into `ceil(D / T)` tiles,
    the last one partial: its offset is `i * T` and its size
    `min(T, D - i * T)`, a dynamic size that later steps (vectorization,
    thread mapping) must mask. This op rewrites such a dimension of the
    target `scf.forall` so that every tile is full: tile `i` starts at
    `min(i * T, D - T)` and has the static size `T`. The last tile then
    overlaps the one before it; the elements they share are computed by
    both, with the same operations in the same order, and written twice
    with the same value. Dimensions that are divided evenly, or that one
    tile covers (`D <= T`), are left alone.

    ```mlir
    %tiled, %forall = transform.structured.tile_using_forall %relu
        tile_sizes [64, 128] ...
    transform.tessel.shift_partial_tiles %forall : !transform.any_op
    // Canonicalization then turns the slices' sizes into static types.
    ```

    This is only correct when a tile's result does not depend on what the
    overlapped elements held before: the op checks that the loop's shared
    outputs are only written (through `tensor.parallel_insert_slice`, or as
    the init of linalg ops whose bodies do not read it).

    #### Return modes

    Produces a silenceable failure, with a note on the payload op, when the
    target is not a normalized `scf.forall` with static trip counts, when an
    induction variable is used otherwise than in the offsets (`i * T`) and
    sizes (`min(T, D - i * T)`) that tiling produces, or when a shared
    output is read. Modifies the payload in place; the handle stays valid.
  }];

  let arguments = (ins TransformHandleTypeInterface:$target);
  let results = (outs);
  let assemblyFormat = "$target attr-dict `:` type($target)";
  let cppNamespace = "::tessel";
}

def SwizzleBlockOrderOp : Op<Transform_Dialect,
    "tessel.swizzle_block_order", [
    DeclareOpInterfaceMethods<TransformOpInterface>,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Remap a launch's 2-D block ids so that groups of block rows run together (L2 reuse)";
  let description = [{
    Inside the target `gpu.launch` (grid `gx x gy`), replaces the uses of
    `gpu.block_id x` and `gpu.block_id y` with ids remapped in groups of
    `group` block rows: blocks are numbered in launch order
    (`l = y * gx + x`) and consecutive numbers walk down `group` rows of a
    block column before moving to the next column, so that blocks running
    at the same time share A rows and B columns in L2 (Triton's "grouped
    ordering"). A last group with fewer rows is handled. `group = 1` leaves
    the launch unchanged.

    ```mlir
    transform.tessel.swizzle_block_order %launch group %g
        : !transform.any_op, !transform.param<i64>
    ```

    #### Return modes

    Produces a silenceable failure when the target is not a `gpu.launch`
    with a constant grid; fails definitely when `group` is not a single
    integer of at least 1. Modifies the payload in place; the handle stays
    valid.
  }];

  let arguments = (ins TransformHandleTypeInterface:$target,
                       TransformParamTypeInterface:$group);
  let results = (outs);
  let assemblyFormat = [{
    $target `group` $group attr-dict `:` type($target) `,` type($group)
  }];
  let cppNamespace = "::tessel";
}

def TileBatchToBlocksOp : Op<Transform_Dialect,
    "tessel.tile_batch_to_blocks", [
    DeclareOpInterfaceMethods<TransformOpInterface>,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    ReportTrackingListenerFailuresOpTrait]> {
  let summary = "Give each batch element of a batched contraction and its epilogue its own thread blocks (grid z)";
  let description = [{
    For every contraction under `target` (recognized by structure, as
    `tessel::inferContraction` does: `linalg.batch_matmul`, a
    `linalg.matmul`-like generic with leading batch loops) that has batch
    dimensions, rewrites the contraction, the `linalg.fill` zeroing its
    accumulator and its elementwise epilogue (a `linalg.generic` over its
    result, if any) into one `scf.forall` over the batch elements, mapped
    to `#gpu.block<z>` (several batch dimensions are linearized into one
    loop and recovered with `affine.delinearize_index`). Its body computes
    one element with 2-D ops on rank-reducing slices: a `linalg.fill`, a
    `linalg.matmul` (with `indexing_maps` where an operand is transposed)
    and a 2-D epilogue whose further inputs (a bias, a residual) are sliced
    along the dimensions they index by the batch. The rest of a schedule
    then matches, tiles and rewrites the 2-D ops as for an unbatched
    contraction; `transform.tessel.merge_block_foralls` folds the batch
    loop and the block loop tiled inside it into one grid.

    ```mlir
    %batch = transform.tessel.tile_batch_to_blocks %root
        : (!transform.any_op) -> !transform.any_op
    %matmul = transform.structured.match ops{["linalg.matmul"]} in %root
    ...
    ```

    Contractions without batch dimensions are left alone.

    #### Return modes

    Produces a silenceable failure, with a note on the contraction, when a
    batched contraction is not on tensors, has dynamic sizes, more batch
    elements than a grid holds along z (65535), an accumulator not zeroed
    by a `linalg.fill`, or a result used otherwise than by one elementwise
    `linalg.generic` (or as a result of its own). Returns the new
    `scf.forall` ops (none when nothing is batched). Reads `target`'s
    handle and modifies the payload inside it.
  }];

  let arguments = (ins TransformHandleTypeInterface:$target);
  let results = (outs TransformHandleTypeInterface:$forall);
  let assemblyFormat = "$target attr-dict `:` functional-type(operands, results)";
  let cppNamespace = "::tessel";
}

def MergeBlockForallsOp : Op<Transform_Dialect,
    "tessel.merge_block_foralls", [
    DeclareOpInterfaceMethods<TransformOpInterface>,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    ReportTrackingListenerFailuresOpTrait]> {
  let summary = "Fold a block loop nested in another block loop into one loop over the whole grid";
  let description = [{
    Under `target`, folds each `scf.forall` mapped to thread blocks
    (`#gpu.block<...>`) that directly holds another one into a single
    `scf.forall` over both loops' dimensions, with both mappings, so that
    `transform.gpu.map_forall_to_blocks` maps the whole grid at once (it
    maps one loop). The outer body's other ops, which must be free of side
    effects (the slices `tile_batch_to_blocks` takes, index arithmetic) or
    only allocate (a block's temporary accumulator, which bufferization
    leaves there when one block covers the whole matrix), move to the
    front of the merged body. Runs on buffers, after bufferization.

    ```mlir
    // scf.forall (%b) in (8) { %v = memref.subview ...
    //   scf.forall (%i, %j) in (4, 2) {...} {mapping = [block<y>, block<x>]}
    // } {mapping = [#gpu.block<z>]}
    transform.tessel.merge_block_foralls %func : !transform.any_op
    // scf.forall (%b, %i, %j) in (8, 4, 2) { %v = memref.subview ... }
    //   {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
    ```

    Block loops that hold no other are left alone.

    #### Return modes

    Produces a silenceable failure, with a note, when a block loop holds
    more than one block loop or one not directly in its body, when either
    loop has results or is not normalized, when both map to the same grid
    dimension, or when the outer body has another op with side effects
    (a write, a deallocation). Modifies the payload in place; the handle
    stays valid.
  }];

  let arguments = (ins TransformHandleTypeInterface:$target);
  let results = (outs);
  let assemblyFormat = "$target attr-dict `:` type($target)";
  let cppNamespace = "::tessel";
}

#endif // TESSEL_TRANSFORMOPS_TESSELTRANSFORMOPS
