// Hopper (sm_90a) schedule for matmul + ReLU on tensors: f16 or bf16
// inputs, f32 accumulation, any 16-byte-storable output type the epilogue
// produces. Its kernels are sm_90a code (wgmma, TMA), as tessel.target_chip
// says: tessel-lower-to-ptx compiles them for sm_90a without chip=, and
// refuses another chip=. sm_90a code runs on sm_90 GPUs (H100, H200).
//
// Each thread block computes a tile_m x tile_n tile of C with a
// warp-specialized pipeline: a producer warpgroup streams 64-deep K slices
// of A and B with TMA (tensor maps created by the runtime) into a ring of
// `stages` 128-byte-swizzled shared-memory buffers guarded by mbarriers;
// tile_m / 64 consumer warpgroups each compute 64 rows of the tile with
// wgmma (f32 accumulators in registers, one wgmma group in flight). After
// the loop, ReLU and the conversion to the output type are applied while
// the tile is copied out through shared memory in 16-byte stores: the
// matmul result never reaches memory before ReLU. Blocks are launched in
// groups of `group_m` block rows so that neighbours share A and B tiles in
// L2.
//
// Knobs: tile_m (consumer warpgroups = tile_m / 64), tile_n, stages,
// group_m, split_k, persistent (2: stream-K), cluster. Threads per block = 128 *
// (tile_m / 64 + 1). Any M, N and K: TMA zero-fills what a partial tile
// reads past the matrices and the epilogue stores only the valid part;
// operands whose rows TMA cannot read (not 16-byte aligned) are first
// copied into workspaces with 128-byte rows (docs/any-shape.md). Values that do not fit (shared memory, registers)
// are rejected, naming the knob or the constraint, before anything is
// changed.
//
// Batch dimensions (linalg.batch_matmul, batched generics): each batch
// element is computed by its own blocks along grid z, as one unbatched
// contraction (transform.tessel.tile_batch_to_blocks, docs/workloads.md).
module attributes {transform.with_named_sequence, tessel.target_chip = "sm_90a"} {

  transform.named_sequence @__transform_main(
      %root: !transform.any_op {transform.consumed}) {
    // 96, 104, 112 and 160 serve swap_ab = 1, where tile_m is wgmma's N
    // (the output's rows along it): up to 336 rows in rows of 96-, 104- or
    // 112-row blocks that fill one wave (docs/knob-rule.md), 257-320 in two
    // rows of 160. Without the swap, tile_m is whole 64-row warpgroups.
    %tile_m = transform.tune.knob<"tile_m"> = 128 : i64
        from options = [64, 96, 104, 112, 128, 160, 192, 256] -> !transform.param<i64>
    // Widths of whole 8-column groups from 96 fill the last wave of tiles:
    // 512x11008x4096 in 128x168 tiles makes exactly two waves of 132
    // (docs/knob-rule.md, "Tiles that fill their waves").
    %tile_n = transform.tune.knob<"tile_n"> = 128 : i64
        from options = [64, 96, 104, 112, 120, 128, 136, 144, 152, 160, 168,
                        176, 184, 192, 200, 208, 216, 224, 232, 240, 248,
                        256] -> !transform.param<i64>
    // Deep rings (8-16) serve small tiles alone on their SM (a 64x64
    // block of a thin problem hides its loads' latency with 12 stages).
    %stages = transform.tune.knob<"stages"> = 4 : i64
        from options = [2, 3, 4, 5, 6, 8, 10, 12, 16] -> !transform.param<i64>
    %group_m = transform.tune.knob<"group_m"> = 8 : i64
        from options = [1, 4, 8, 16] -> !transform.param<i64>
    %split_k = transform.tune.knob<"split_k"> = 1 : i64
        from options = [1, 2, 4, 8] -> !transform.param<i64>
    // persistent: 0 a block per tile; 1 a block per SM walking the tiles;
    // 2 the same with stream-K, the last partial wave's tiles shared out
    // along K (docs/wgmma.md, "Stream-K").
    %persistent = transform.tune.knob<"persistent"> = 0 : i64
        from options = [0, 1, 2] -> !transform.param<i64>
    // Clusters of two blocks that multicast the A or B tiles they share
    // (half the L2 reads of that operand).
    %cluster = transform.tune.knob<"cluster"> = 1 : i64
        from options = [1, 2] -> !transform.param<i64>
    // Swap-AB: the blocks compute the output's tiles transposed, B's tile
    // as wgmma's A operand (64 output columns per consumer warpgroup) and
    // A's as its B (tile_m output rows along wgmma's N).
    %swap_ab = transform.tune.knob<"swap_ab"> = 0 : i64
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
    transform.tessel.check_tile_sizes %matmul by %tile_m, %tile_n
        : !transform.any_op, !transform.param<i64>, !transform.param<i64>
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
    // the wgmma rewrite replaces with registers.
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
    // TMA + mbarrier + wgmma pipeline.
    // The batch loop and the block loop tiled inside it become one grid.
    transform.tessel.merge_block_foralls %func_b : !transform.any_op
    %launch = transform.gpu.map_forall_to_blocks %func_b generate_gpu_launch
        : (!transform.any_op) -> !transform.any_op
    transform.tessel.swizzle_block_order %launch group %group_m
        : !transform.any_op, !transform.param<i64>
    %matmul_l = transform.structured.match ops{["linalg.matmul"]} in %launch
        : (!transform.any_op) -> !transform.any_op
    %loop = transform.tessel.rewrite_block_matmul_as_wgmma %matmul_l
        stages %stages split_k %split_k persistent %persistent
        cluster %cluster swap_ab %swap_ab
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>,
           !transform.param<i64>, !transform.param<i64>,
           !transform.param<i64>) -> !transform.any_op
    %func_c = transform.structured.match ops{["func.func"]} in %root_b
        : (!transform.any_op) -> !transform.any_op
    transform.apply_cse to %func_c : !transform.any_op
    transform.yield
  }
}
