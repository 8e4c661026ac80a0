// Tensor-core (mma.sync) schedule for matmul + ReLU on tensors: f16 or bf16
// inputs, f32 accumulation, any output type the epilogue produces.
//
// Each thread block computes a tile_m x tile_n tile of C. Its K loop copies
// the block's A and B tiles (tile_k deep) into shared memory with cp.async,
// `stages` tiles ahead of the math (multi-buffered, rows padded by
// `padding` elements against bank conflicts). Each warp computes a
// warp_m x warp_n tile with ldmatrix + mma.sync m16n8k16 into f32
// registers; after the loop, ReLU and the conversion to the output type are
// applied to the registers and stored (directly, or with stage_output = 1
// through shared memory for coalesced 16-byte stores): the matmul result
// never reaches memory before ReLU. Blocks are launched in groups of `group_m` block rows
// so that neighbours share A and B tiles in L2.
//
// Knobs: tile_m, tile_n, tile_k, warp_m, warp_n, stages, padding, group_m,
// stage_output.
// Threads per block = 32 * (tile_m / warp_m) * (tile_n / warp_n). Any M, N
// and K: cp.async zero-fills what a partial tile reads past the matrices
// and only the valid part is stored; operands whose rows cp.async cannot
// read 16 bytes at a time are first copied into workspaces
// (docs/any-shape.md). Values that do not fit are rejected, naming the knob
// or the constraint, before anything is changed.
//
// Chips: sm_80 or later (cp.async and bf16 mma.sync), as tessel.min_chip
// says; the kernels are compiled for the chip asked for.
//
// Batch dimensions (linalg.batch_matmul, batched generics): each batch
// element is computed by its own blocks along grid z, as one unbatched
// contraction (transform.tessel.tile_batch_to_blocks, docs/workloads.md).
module attributes {transform.with_named_sequence, tessel.min_chip = "sm_80"} {

  transform.named_sequence @__transform_main(
      %root: !transform.any_op {transform.consumed}) {
    %tile_m = transform.tune.knob<"tile_m"> = 128 : i64
        from options = [32, 64, 128, 256] -> !transform.param<i64>
    %tile_n = transform.tune.knob<"tile_n"> = 128 : i64
        from options = [32, 64, 128, 256] -> !transform.param<i64>
    %tile_k = transform.tune.knob<"tile_k"> = 32 : i64
        from options = [16, 32, 64] -> !transform.param<i64>
    %warp_m = transform.tune.knob<"warp_m"> = 64 : i64
        from options = [16, 32, 64, 128] -> !transform.param<i64>
    %warp_n = transform.tune.knob<"warp_n"> = 64 : i64
        from options = [16, 32, 64, 128] -> !transform.param<i64>
    %stages = transform.tune.knob<"stages"> = 3 : i64
        from options = [2, 3, 4, 5] -> !transform.param<i64>
    %padding = transform.tune.knob<"padding"> = 8 : i64
        from options = [0, 8] -> !transform.param<i64>
    %group_m = transform.tune.knob<"group_m"> = 8 : i64
        from options = [1, 4, 8, 16] -> !transform.param<i64>
    %stage_output = transform.tune.knob<"stage_output"> = 0 : i64
        from options = [0, 1] -> !transform.param<i64>

    // Batch dimensions (linalg.batch_matmul, batched generics): each batch
    // element gets its own blocks along grid z, and the steps below see
    // one element's 2-D linalg.matmul and epilogue.
    %batch = transform.tessel.tile_batch_to_blocks %root
        : (!transform.any_op) -> !transform.any_op
    %matmul = transform.structured.match ops{["linalg.matmul"]} in %root
        : (!transform.any_op) -> !transform.any_op
    %fill = transform.structured.match ops{["linalg.fill"]} in %root
        : (!transform.any_op) -> !transform.any_op
    %relu = transform.get_consumers_of_result %matmul[0]
        : (!transform.any_op) -> !transform.any_op

    // Step 1. Reject what no kernel can serve (dynamic or empty loops,
    // tile sizes below one), naming the knob; partial tiles are served.
    transform.tessel.check_tile_sizes %matmul by %tile_m, %tile_n, %tile_k
        : !transform.any_op, !transform.param<i64>, !transform.param<i64>,
          !transform.param<i64>
    transform.tessel.check_tile_sizes %relu by %tile_m, %tile_n
        : !transform.any_op, !transform.param<i64>, !transform.param<i64>

    // Step 2. Tile the ReLU to thread blocks and fuse the matmul and its
    // fill into the block loop.
    %relu_b, %forall_b = transform.structured.tile_using_forall %relu
        tile_sizes [%tile_m, %tile_n]
        (mapping = [#gpu.block<y>, #gpu.block<x>])
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>)
        -> (!transform.any_op, !transform.any_op)
    %matmul_b, %f0 = transform.structured.fuse_into_containing_op %matmul
        into %forall_b
        : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    %fill_b, %f1 = transform.structured.fuse_into_containing_op %fill
        into %f0
        : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)

    // Step 3. Bufferize. The block's accumulator becomes a temporary that
    // the mma.sync rewrite replaces with registers.
    %func = transform.structured.match ops{["func.func"]} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %func {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.apply_dce to %func : !transform.any_op
    transform.structured.eliminate_empty_tensors %root : !transform.any_op
    %root_b = transform.bufferization.one_shot_bufferize %root {
        bufferize_function_boundaries = true,
        function_boundary_type_conversion = 1 : i32}
        : (!transform.any_op) -> !transform.any_op
    %func_b = transform.structured.match ops{["func.func"]} in %root_b
        : (!transform.any_op) -> !transform.any_op
    transform.apply_cse to %func_b : !transform.any_op
    transform.apply_patterns to %func_b {
      transform.apply_patterns.canonicalization
    } : !transform.any_op

    // Step 4. Map the block loop to a gpu.launch, order its blocks for L2
    // reuse, and rewrite the block's matmul + fill + ReLU into the
    // shared-memory, warp-level mma.sync loop.
    // The batch loop and the block loop tiled inside it become one grid.
    transform.tessel.merge_block_foralls %func_b : !transform.any_op
    %launch = transform.gpu.map_forall_to_blocks %func_b generate_gpu_launch
        : (!transform.any_op) -> !transform.any_op
    transform.tessel.swizzle_block_order %launch group %group_m
        : !transform.any_op, !transform.param<i64>
    %matmul_l = transform.structured.match ops{["linalg.matmul"]} in %launch
        : (!transform.any_op) -> !transform.any_op
    %loop = transform.tessel.rewrite_block_matmul_as_mma_sync %matmul_l
        tile_k %tile_k warp_tile %warp_m, %warp_n
        stages %stages padding %padding stage_output %stage_output
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>,
           !transform.param<i64>, !transform.param<i64>,
           !transform.param<i64>, !transform.param<i64>) -> !transform.any_op

    // Step 5. The tile copies become cp.async (16 bytes) and the loop is
    // software-pipelined `stages` deep. The copies keep L1 allocation
    // (cp.async.ca): on an H100, bypassing L1 (cp.async.cg) measured 10%
    // slower at 4096^3 (bench/results/mma/README.md).
    %func_c = transform.structured.match ops{["func.func"]} in %root_b
        : (!transform.any_op) -> !transform.any_op
    %func_d = transform.nvgpu.create_async_groups %func_c
        : (!transform.any_op) -> !transform.any_op
    %main_loop = transform.structured.match ops{["scf.for"]}
        attributes {tessel.mma_main_loop} in %func_d
        : (!transform.any_op) -> !transform.any_op
    %pipelined = transform.tessel.pipeline_shared_memory_copies %main_loop
        depth %stages
        : (!transform.any_op, !transform.param<i64>) -> !transform.any_op
    transform.apply_cse to %func_d : !transform.any_op
    transform.yield
  }
}
