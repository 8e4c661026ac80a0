// SIMT schedule for matmul + ReLU on tensors (f32, f16 or bf16 inputs).
//
// Each thread block computes a tile_m x tile_n tile of C; each thread computes
// a thread_m x thread_n sub-tile of it in registers, stepping through K by
// tile_k with vectorized loads of A and B, then applies ReLU to its
// accumulators and stores the result: the matmul result never reaches global
// memory before ReLU (epilogue fusion). Threads per block =
// (tile_m / thread_m) * (tile_n / thread_n), inferred when mapping.
//
// Knobs (transform.tune.knob): tile_m, tile_n, tile_k, thread_m, thread_n.
// Any M, N and K: edge tiles are shifted back to overlap their neighbours
// (full tiles where a dimension holds one; smaller dimensions are masked),
// the partial last K step is peeled off and zero-padded, and large
// misaligned matrices are read from aligned copies (docs/any-shape.md). Values no kernel can serve are rejected with the
// knob's name before anything is changed.
//
// Chips: any Tessel compiles for, sm_70 or later (tessel.min_chip); the
// kernels are compiled for the chip asked for.
//
// Batch dimensions (linalg.batch_matmul, batched generics): each batch
// element is computed by its own blocks along grid z, as one unbatched
// contraction (transform.tessel.tile_batch_to_blocks, docs/workloads.md).
module attributes {transform.with_named_sequence, tessel.min_chip = "sm_70"} {

  transform.named_sequence @__transform_main(
      %root: !transform.any_op {transform.consumed}) {
    %tile_m = transform.tune.knob<"tile_m"> = 64 : i64
        from options = [16, 32, 64, 128, 256] -> !transform.param<i64>
    %tile_n = transform.tune.knob<"tile_n"> = 128 : i64
        from options = [16, 32, 64, 128, 256] -> !transform.param<i64>
    %tile_k = transform.tune.knob<"tile_k"> = 8 : i64
        from options = [4, 8, 16, 32] -> !transform.param<i64>
    %thread_m = transform.tune.knob<"thread_m"> = 4 : i64
        from options = [1, 2, 4, 8] -> !transform.param<i64>
    %thread_n = transform.tune.knob<"thread_n"> = 8 : i64
        from options = [1, 2, 4, 8] -> !transform.param<i64>

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

    // Step 2. Tile the ReLU to thread blocks and fuse its producers into
    // the block loop. Where tile_m or tile_n does not divide M or N, the
    // last block moves back to end at the matrix's edge (it overlaps its
    // neighbour): every block tile is full and statically shaped.
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
    transform.tessel.shift_partial_tiles %f1 : !transform.any_op
    %func_s = transform.structured.match ops{["func.func"]} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %func_s {
      transform.apply_patterns.canonicalization
      transform.apply_patterns.linalg.tiling_canonicalization
    } : !transform.any_op

    // Step 3. Tile the block's ReLU to threads and fuse again: each thread
    // owns a thread_m x thread_n tile of C and its accumulator (shifted
    // back like the blocks where the block tile is not a multiple of it).
    %relu_t, %forall_t = transform.structured.tile_using_forall %relu_b
        tile_sizes [%thread_m, %thread_n]
        (mapping = [#gpu.thread<y>, #gpu.thread<x>])
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>)
        -> (!transform.any_op, !transform.any_op)
    %matmul_t, %f2 = transform.structured.fuse_into_containing_op %matmul_b
        into %forall_t
        : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    %fill_t, %f3 = transform.structured.fuse_into_containing_op %fill_b
        into %f2
        : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.tessel.shift_partial_tiles %f3 : !transform.any_op
    transform.apply_patterns to %func_s {
      transform.apply_patterns.canonicalization
      transform.apply_patterns.linalg.tiling_canonicalization
    } : !transform.any_op

    // Step 4. Tile K. Where tile_k does not divide K, the last step is
    // peeled off the loop and its slices of A and B are padded with zeros
    // to tile_k (out-of-bounds reads once vectorized): the loop itself
    // keeps full steps.
    %matmul_k, %loop_k = transform.structured.tile_using_for %matmul_t
        tile_sizes [0, 0, %tile_k]
        : (!transform.any_op, !transform.param<i64>)
        -> (!transform.any_op, !transform.any_op)
    %for_k = transform.cast %loop_k : !transform.any_op to !transform.op<"scf.for">
    transform.sequence %for_k : !transform.op<"scf.for"> failures(suppress) {
    ^bb0(%loop: !transform.op<"scf.for">):
      %main, %last = transform.loop.peel %loop
          : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
    }
    %matmuls_k = transform.structured.match ops{["linalg.matmul"]} in %f3
        : (!transform.any_op) -> !transform.any_op
    %padded, %pad, %copy = transform.structured.pad %matmuls_k {
        padding_dimensions = [2], copy_back_op = "none"}
        : (!transform.any_op)
        -> (!transform.any_op, !transform.any_op, !transform.any_op)

    // Step 5. Vectorize, and keep the accumulator in registers across the K
    // loop.
    %func = transform.structured.match ops{["func.func"]} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %func {
      transform.apply_patterns.canonicalization
      transform.apply_patterns.linalg.tiling_canonicalization
    } : !transform.any_op
    %vfunc = transform.structured.vectorize_children_and_apply_patterns %func {
        vectorize_padding}
        : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %vfunc {
      transform.apply_patterns.canonicalization
      transform.apply_patterns.vector.cast_away_vector_leading_one_dim
    } : !transform.any_op
    %loops = transform.structured.match ops{["scf.for"]} in %vfunc
        : (!transform.any_op) -> !transform.any_op
    transform.loop.hoist_loop_invariant_subsets %loops : !transform.any_op
    transform.apply_patterns to %vfunc {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.apply_cse to %vfunc : !transform.any_op

    // Step 6. Bufferize: C is written in place; the accumulator tensor has
    // no uses left once its reads were forwarded from the vector writes.
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
    transform.memref.erase_dead_alloc_and_stores %func_b : (!transform.any_op) -> ()

    // Step 7. Map to blocks and threads. Matrices whose rows are not
    // 16-byte aligned (K or N not a multiple of 4 floats) are read from
    // copies with aligned rows, so that their loads stay 16 bytes wide,
    // unless they are too small to repay the copy's launch.
    // The batch loop and the block loop tiled inside it become one grid.
    transform.tessel.merge_block_foralls %func_b : !transform.any_op
    %launch = transform.gpu.map_forall_to_blocks %func_b generate_gpu_launch
        : (!transform.any_op) -> !transform.any_op
    %launch_t = transform.tessel.map_nested_forall_to_threads %launch
        : (!transform.any_op) -> !transform.any_op
    transform.tessel.copy_to_aligned_rows %launch_t alignment 16
        min_elements 65536 : !transform.any_op

    transform.yield
  }
}
