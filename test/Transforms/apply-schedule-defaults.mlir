// Knobs without a tuned record: the rule picks them for the shape and the
// GPU, the launch metadata says so, and a list of schedules falls back to
// the first that serves the payload.

// 128 rows: the rule takes 128x64 tiles (64 of them) and splits each
// one's 64 K steps over a cluster of 2 blocks (128 blocks for 132 SMs;
// bench/results/split-k: 1.19x the unsplit tuned kernel); each block is
// alone on its SM and its shared memory holds 8 stages, so its ring is 8
// stages deep (docs/knob-rule.md).
// RUN: tessel-opt %examples/matmul_relu_128x4096x4096_f16.mlir \
// RUN:   --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir" \
// RUN:   | FileCheck %s --check-prefix=SKINNY
// SKINNY: knob_source = "rule (sm_90, 132 SMs)", knobs = {cluster = 1 : i64, group_m = 1 : i64, persistent = 0 : i64, split_k = 2 : i64, stages = 8 : i64, swap_ab = 0 : i64, tile_m = 128 : i64, tile_n = 64 : i64}

// K = 9 is one K step of mma.sync's smallest tile_k: a loop of one
// iteration, which is not pipelined, so any stages value serves it; the
// rule takes the smallest blocks and stages (it once found no valid point).
// RUN: tessel-opt %S/Inputs/matmul-relu-3x7x9-f16.mlir \
// RUN:   --tessel-apply-schedule="schedule=%schedules/matmul_relu_mma.mlir" \
// RUN:   | FileCheck %s --check-prefix=ONE-K-STEP
// ONE-K-STEP: knob_source = "rule (sm_90, 132 SMs)", knobs = {group_m = 1 : i64, padding = 8 : i64, stage_output = 0 : i64, stages = 2 : i64, tile_k = 16 : i64, tile_m = 64 : i64, tile_n = 64 : i64, warp_m = 64 : i64, warp_n = 64 : i64}

// On a GPU of 16 SMs the same shape fills the GPU with 128x256 blocks.
// RUN: tessel-opt %examples/matmul_relu_128x4096x4096_f16.mlir \
// RUN:   --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir sm-count=16" \
// RUN:   | FileCheck %s --check-prefix=FEW-SMS
// FEW-SMS: knob_source = "rule (sm_90, 16 SMs)", knobs = {cluster = 1 : i64, group_m = 1 : i64, persistent = 0 : i64, split_k = 1 : i64, stages = 4 : i64, swap_ab = 0 : i64, tile_m = 128 : i64, tile_n = 256 : i64}

// 4096^3: 128x256 blocks in groups of 8 block rows, persistent (512 tiles
// for 132 SMs: each block walks about 4).
// One SM: a wave still holds one cluster of each size (clusters of two
// once divided the count of blocks by zero).
// RUN: tessel-opt %examples/matmul_relu_128x4096x4096_f16.mlir \
// RUN:   --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir sm-count=1" \
// RUN:   | FileCheck %s --check-prefix=ONE-SM
// ONE-SM: knob_source = "rule (sm_90, 1 SMs)", knobs = {
// RUN: tessel-opt %examples/matmul_relu_4096_f16.mlir \
// RUN:   --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir" \
// RUN:   | FileCheck %s --check-prefix=LARGE
// LARGE: knobs = {cluster = 1 : i64, group_m = 8 : i64, persistent = 1 : i64, split_k = 1 : i64, stages = 4 : i64, swap_ab = 0 : i64, tile_m = 128 : i64, tile_n = 256 : i64}

// 1000^3: A's rows (2000 bytes) start on 16- but not 32-byte boundaries
// and TMA reads them (it always reads such rows of A): the rule pairs the
// blocks of a block row in clusters that multicast A's tile, each reading
// half of it (1.08x on an H100), at any N (1024x4096x3000: 1.17x). 1008^3's
// rows are 32-byte aligned: no clusters.
// RUN: sed 's/1024/1000/g' %examples/matmul_relu_1024_f16.mlir \
// RUN:   | tessel-opt --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir" \
// RUN:   | FileCheck %s --check-prefix=SLOW-ROWS
// SLOW-ROWS: knob_source = "rule (sm_90, 132 SMs)", knobs = {cluster = 2 : i64, group_m = 1 : i64, persistent = 0 : i64, split_k = 1 : i64, stages = 8 : i64, swap_ab = 0 : i64, tile_m = 128 : i64, tile_n = 64 : i64}
// RUN: sed 's/3x9xf16/1024x3000xf16/g; s/9x7xf16/3000x4096xf16/g; s/3x7xf/1024x4096xf/g' \
// RUN:   %S/Inputs/matmul-relu-3x7x9-f16.mlir \
// RUN:   | tessel-opt --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir" \
// RUN:   | FileCheck %s --check-prefix=SLOW-ROWS-WIDE
// SLOW-ROWS-WIDE: knob_source = "rule (sm_90, 132 SMs)", knobs = {cluster = 2 : i64, group_m = 1 : i64, persistent = 0 : i64, split_k = 1 : i64, stages = 4 : i64, swap_ab = 0 : i64, tile_m = 128 : i64, tile_n = 256 : i64}

// A persistent kernel runs one block per SM: its blocks get no credit for
// company on the SM. 96x8579x4376 f16 had taken persistent 64x64 blocks
// (one consumer warpgroup alone on each SM, 270 tiles); it now takes
// 128x128 blocks in clusters (A's rows on 16- but not 32-byte boundaries),
// 1.28x faster on an H100 (bench/results/any-shape, "Persistent blocks
// alone on their SM").
// RUN: sed 's/3x9xf16/96x4376xf16/g; s/9x7xf16/4376x8579xf16/g; s/3x7xf/96x8579xf/g' \
// RUN:   %S/Inputs/matmul-relu-3x7x9-f16.mlir \
// RUN:   | tessel-opt --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir" \
// RUN:   | FileCheck %s --check-prefix=PERSISTENT-ALONE
// PERSISTENT-ALONE: knob_source = "rule (sm_90, 132 SMs)", knobs = {cluster = 2 : i64, group_m = 1 : i64, persistent = 0 : i64, split_k = 1 : i64, stages = 6 : i64, swap_ab = 0 : i64, tile_m = 128 : i64, tile_n = 128 : i64}

// A block alone on its SM gets 8 stages only where TMA reads both
// operands: 12079x56x5100's A rows (10,200 bytes) are read by the
// producers through staging slots after the ring, which 8 stages leave no
// room for (A copied instead ran 0.62x on an H100): 6 stages.
// RUN: sed 's/3x9xf16/12079x5100xf16/g; s/9x7xf16/5100x56xf16/g; s/3x7xf/12079x56xf/g' \
// RUN:   %S/Inputs/matmul-relu-3x7x9-f16.mlir \
// RUN:   | tessel-opt --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir" \
// RUN:   | FileCheck %s --check-prefix=STAGED-READS
// STAGED-READS: knob_source = "rule (sm_90, 132 SMs)", knobs = {cluster = 1 : i64, group_m = 1 : i64, persistent = 0 : i64, split_k = 1 : i64, stages = 6 : i64, swap_ab = 0 : i64, tile_m = 128 : i64, tile_n = 64 : i64}

// 2048x5120x5120: 128x256 tiles fill 2.4 rounds of the 132 SMs, 128x160
// tiles 3.9. With the weight stored [n, k] (B's box is the whole tile) the
// rule took 128x160 (1.06x-1.11x faster than 128x128 on an H100), and since
// tile widths of whole 8-column groups 128x216 (2.9 rounds; 1.002x-1.004x
// 128x160 on an H200, bench/results/hopper-v2, "Tiles that fill their
// waves"); with B
// stored [k, n] 128x160 ran 0.93x as fast as 128x128 there (bench/results/
// hopper-v2, "128x160 tiles"), and the rule takes stream-K's 128x256
// tiles, whose 2.4 rounds it shares out along K: 1.012x 128x128 on an H200
// ("Stream-K by the rule").
// RUN: sed 's/3x9xf16/2048x5120xf16/g; s/7x9xf16/5120x5120xf16/g; s/3x7xf/2048x5120xf/g' \
// RUN:   %S/Inputs/linear-relu-3x7x9-f16-nk.mlir \
// RUN:   | tessel-opt --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir" \
// RUN:   | FileCheck %s --check-prefix=TILE160-NK
// TILE160-NK: knob_source = "rule (sm_90, 132 SMs)", knobs = {cluster = 1 : i64, group_m = 8 : i64, persistent = 1 : i64, split_k = 1 : i64, stages = 4 : i64, swap_ab = 0 : i64, tile_m = 128 : i64, tile_n = 216 : i64}
// RUN: sed 's/3x9xf16/2048x5120xf16/g; s/9x7xf16/5120x5120xf16/g; s/3x7xf/2048x5120xf/g' \
// RUN:   %S/Inputs/matmul-relu-3x7x9-f16.mlir \
// RUN:   | tessel-opt --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir" \
// RUN:   | FileCheck %s --check-prefix=TILE160-KN
// TILE160-KN: knob_source = "rule (sm_90, 132 SMs)", knobs = {cluster = 1 : i64, group_m = 8 : i64, persistent = 2 : i64, split_k = 1 : i64, stages = 4 : i64, swap_ab = 0 : i64, tile_m = 128 : i64, tile_n = 256 : i64}

// Tiles that fill their waves (docs/knob-rule.md): tile_n takes whole
// 8-column groups from 96 to 256. 512x11008x4096 in 128x168 tiles makes 264
// blocks, two waves of 132 (128x192 made 1.76: 1.105x on an H200), and
// 512x3072x3072 in 128x96 tiles 128 blocks, one wave (128x128 made 96:
// 1.16x). Where such widths were measured slower the rule ranks them after
// the fitted ones (64, 128, 160, 192, 256): at most 64 rows of M (decode:
// 16x32001x768 keeps 64x256), K of at most 4 steps (753x11877x200 keeps
// 128x192; 128x184 ran 0.71x), and a last row of blocks less than half full
// (264x3072x3072 keeps 64x128; three rows of 128x96 ran 0.96x).
// RUN: sed 's/3x9xf16/512x4096xf16/g; s/7x9xf16/11008x4096xf16/g; s/3x7xf/512x11008xf/g' \
// RUN:   %S/Inputs/linear-relu-3x7x9-f16-nk.mlir \
// RUN:   | tessel-opt --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir" \
// RUN:   | FileCheck %s --check-prefix=WAVES-168
// WAVES-168: knobs = {cluster = 1 : i64, group_m = 8 : i64, persistent = 1 : i64, split_k = 1 : i64, stages = 4 : i64, swap_ab = 0 : i64, tile_m = 128 : i64, tile_n = 168 : i64}
// RUN: sed 's/3x9xf16/512x3072xf16/g; s/7x9xf16/3072x3072xf16/g; s/3x7xf/512x3072xf/g' \
// RUN:   %S/Inputs/linear-relu-3x7x9-f16-nk.mlir \
// RUN:   | tessel-opt --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir" \
// RUN:   | FileCheck %s --check-prefix=WAVES-96
// WAVES-96: knobs = {cluster = 1 : i64, group_m = 8 : i64, persistent = 0 : i64, split_k = 1 : i64, stages = 8 : i64, swap_ab = 0 : i64, tile_m = 128 : i64, tile_n = 96 : i64}
// RUN: sed 's/3x9xf16/16x768xf16/g; s/7x9xf16/32001x768xf16/g; s/3x7xf/16x32001xf/g' \
// RUN:   %S/Inputs/linear-relu-3x7x9-f16-nk.mlir \
// RUN:   | tessel-opt --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir" \
// RUN:   | FileCheck %s --check-prefix=WAVES-DECODE
// WAVES-DECODE: knobs = {cluster = 1 : i64, group_m = 1 : i64, persistent = 0 : i64, split_k = 1 : i64, stages = 5 : i64, swap_ab = 0 : i64, tile_m = 64 : i64, tile_n = 256 : i64}
// RUN: sed 's/3x9xf16/753x200xf16/g; s/7x9xf16/11877x200xf16/g; s/3x7xf/753x11877xf/g' \
// RUN:   %S/Inputs/linear-relu-3x7x9-f16-nk.mlir \
// RUN:   | tessel-opt --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir" \
// RUN:   | FileCheck %s --check-prefix=WAVES-SHORT-K
// WAVES-SHORT-K: tile_m = 128 : i64, tile_n = 192 : i64}
// RUN: sed 's/3x9xf16/264x3072xf16/g; s/7x9xf16/3072x3072xf16/g; s/3x7xf/264x3072xf/g' \
// RUN:   %S/Inputs/linear-relu-3x7x9-f16-nk.mlir \
// RUN:   | tessel-opt --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir" \
// RUN:   | FileCheck %s --check-prefix=WAVES-ROWS
// WAVES-ROWS: tile_m = 64 : i64, tile_n = 128 : i64}

// Stream-K where 128-row tiles make more than a wave and not whole waves
// (docs/knob-rule.md): 1280x4096x14336 in 128x256 tiles is 1.21 waves,
// shared out along K 1.20x faster than the persistent 128x192 blocks the
// rule took before on an H200; at 1536x4096x4096 128x192 tiles make two
// whole waves, nothing to share, and stay persistent.
// RUN: sed 's/3x9xf16/1280x14336xf16/g; s/9x7xf16/14336x4096xf16/g; s/3x7xf/1280x4096xf/g' \
// RUN:   %S/Inputs/matmul-relu-3x7x9-f16.mlir \
// RUN:   | tessel-opt --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir" \
// RUN:   | FileCheck %s --check-prefix=STREAM-K
// STREAM-K: knob_source = "rule (sm_90, 132 SMs)", knobs = {cluster = 1 : i64, group_m = 8 : i64, persistent = 2 : i64, split_k = 1 : i64, stages = 4 : i64, swap_ab = 0 : i64, tile_m = 128 : i64, tile_n = 256 : i64}
// RUN: sed 's/3x9xf16/1536x4096xf16/g; s/9x7xf16/4096x4096xf16/g; s/3x7xf/1536x4096xf/g' \
// RUN:   %S/Inputs/matmul-relu-3x7x9-f16.mlir \
// RUN:   | tessel-opt --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir" \
// RUN:   | FileCheck %s --check-prefix=WHOLE-WAVES
// WHOLE-WAVES: knob_source = "rule (sm_90, 132 SMs)", knobs = {cluster = 1 : i64, group_m = 8 : i64, persistent = 1 : i64, split_k = 1 : i64, stages = 4 : i64, swap_ab = 0 : i64, tile_m = 128 : i64, tile_n = 192 : i64}

// One wave of blocks in groups of 8 block rows where B is the larger
// operand (16 MB or more), so that blocks launched one after another share
// B's tiles: 512x4096x11008 (128 blocks of 128x128) ran 1.12x faster with
// group_m 8 on an H100; with A the larger operand (4096x512x11008) the
// blocks keep row order (docs/knob-rule.md).
// RUN: sed 's/3x9xf16/512x11008xf16/g; s/9x7xf16/11008x4096xf16/g; s/3x7xf/512x4096xf/g' \
// RUN:   %S/Inputs/matmul-relu-3x7x9-f16.mlir \
// RUN:   | tessel-opt --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir" \
// RUN:   | FileCheck %s --check-prefix=ONE-WAVE-B
// ONE-WAVE-B: knob_source = "rule (sm_90, 132 SMs)", knobs = {cluster = 1 : i64, group_m = 8 : i64, persistent = 0 : i64, split_k = 1 : i64, stages = 6 : i64, swap_ab = 0 : i64, tile_m = 128 : i64, tile_n = 128 : i64}
// RUN: sed 's/3x9xf16/4096x11008xf16/g; s/9x7xf16/11008x512xf16/g; s/3x7xf/4096x512xf/g' \
// RUN:   %S/Inputs/matmul-relu-3x7x9-f16.mlir \
// RUN:   | tessel-opt --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir" \
// RUN:   | FileCheck %s --check-prefix=ONE-WAVE-A
// ONE-WAVE-A: knob_source = "rule (sm_90, 132 SMs)", knobs = {cluster = 1 : i64, group_m = 1 : i64, persistent = 0 : i64, split_k = 1 : i64, stages = 6 : i64, swap_ab = 0 : i64, tile_m = 128 : i64, tile_n = 128 : i64}

// Decode layers (at most 64 rows, 8 MB or more of B, N of about 2750 or
// more, rows on 16-byte boundaries): blocks ordered by how they stream B,
// not by the tensor cores' model. 1x11008x4096: 86 blocks of 64x128 tiles (0.65 of the SMs or
// more), no split, 8 stages (1.26x the previous pick on an H100).
// 1x4096x4096: 128-column tiles would need a split of 4, so 64x64 tiles
// split in two (128 blocks). 8x2048x2048 is too narrow for 64x64 tiles
// split in two to fill the SMs: the tensor cores' model keeps its split
// of 4 (bench/results/hopper-v2, "The rule's picks for decode layers").
// RUN: sed 's/3x9xf16/1x4096xf16/g; s/9x7xf16/4096x11008xf16/g; s/3x7xf/1x11008xf/g' \
// RUN:   %S/Inputs/matmul-relu-3x7x9-f16.mlir \
// RUN:   | tessel-opt --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir" \
// RUN:   | FileCheck %s --check-prefix=DECODE-WIDE
// DECODE-WIDE: knob_source = "rule (sm_90, 132 SMs)", knobs = {cluster = 1 : i64, group_m = 1 : i64, persistent = 0 : i64, split_k = 1 : i64, stages = 8 : i64, swap_ab = 0 : i64, tile_m = 64 : i64, tile_n = 128 : i64}
// RUN: sed 's/3x9xf16/1x4096xf16/g; s/9x7xf16/4096x4096xf16/g; s/3x7xf/1x4096xf/g' \
// RUN:   %S/Inputs/matmul-relu-3x7x9-f16.mlir \
// RUN:   | tessel-opt --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir" \
// RUN:   | FileCheck %s --check-prefix=DECODE-4096
// DECODE-4096: knob_source = "rule (sm_90, 132 SMs)", knobs = {cluster = 1 : i64, group_m = 1 : i64, persistent = 0 : i64, split_k = 2 : i64, stages = 8 : i64, swap_ab = 0 : i64, tile_m = 64 : i64, tile_n = 64 : i64}
// RUN: sed 's/3x9xf16/8x2048xf16/g; s/9x7xf16/2048x2048xf16/g; s/3x7xf/8x2048xf/g' \
// RUN:   %S/Inputs/matmul-relu-3x7x9-f16.mlir \
// RUN:   | tessel-opt --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir" \
// RUN:   | FileCheck %s --check-prefix=DECODE-NARROW
// DECODE-NARROW: knob_source = "rule (sm_90, 132 SMs)", knobs = {cluster = 1 : i64, group_m = 1 : i64, persistent = 0 : i64, split_k = 4 : i64, stages = 6 : i64, swap_ab = 0 : i64, tile_m = 64 : i64, tile_n = 64 : i64}
// Split-K waves count the blocks of the clusters the GPCs hold at once
// (120 of 132 SMs for clusters of 4): 112x2048x8192 in 128x64 tiles split
// in 4 would be 128 blocks, more than a wave, so the rule splits 64x64 tiles
// in 2 (1.34x faster on an H200); a decode layer's small blocks fill the
// SMs the clusters leave and keep their split in 4.
// RUN: sed 's/3x9xf16/112x8192xf16/g; s/9x7xf16/8192x2048xf16/g; s/3x7xf/112x2048xf/g' \
// RUN:   %S/Inputs/matmul-relu-3x7x9-f16.mlir \
// RUN:   | tessel-opt --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir" \
// RUN:   | FileCheck %s --check-prefix=CLUSTER-SLOTS
// CLUSTER-SLOTS: knob_source = "rule (sm_90, 132 SMs)", knobs = {cluster = 1 : i64, group_m = 1 : i64, persistent = 0 : i64, split_k = 2 : i64, stages = 8 : i64, swap_ab = 0 : i64, tile_m = 64 : i64, tile_n = 64 : i64}
// RUN: sed 's/3x9xf16/8x8192xf16/g; s/9x7xf16/8192x2048xf16/g; s/3x7xf/8x2048xf/g' \
// RUN:   %S/Inputs/matmul-relu-3x7x9-f16.mlir \
// RUN:   | tessel-opt --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir" \
// RUN:   | FileCheck %s --check-prefix=CLUSTER-SLOTS-DECODE
// CLUSTER-SLOTS-DECODE: knob_source = "rule (sm_90, 132 SMs)", knobs = {cluster = 1 : i64, group_m = 1 : i64, persistent = 0 : i64, split_k = 4 : i64, stages = 6 : i64, swap_ab = 0 : i64, tile_m = 64 : i64, tile_n = 64 : i64}
// At 257-320 rows the swap must not add work per SM: 304x4480x5120 takes
// one wave either way, of 160x128 swapped blocks or smaller 128x128 ones
// (three rows of 104-row blocks would fill 105 of 132 SMs, too few: no
// point fills one wave), and stays unswapped; 288x13824x5120 ties (2 waves
// of 160x128 against 5 of 128x64) and swaps.
// RUN: sed 's/3x9xf16/304x5120xf16/g; s/9x7xf16/5120x4480xf16/g; s/3x7xf/304x4480xf/g' \
// RUN:   %S/Inputs/matmul-relu-3x7x9-f16.mlir \
// RUN:   | tessel-opt --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir" \
// RUN:   | FileCheck %s --check-prefix=SWAP-MORE-WORK
// SWAP-MORE-WORK: knob_source = "rule (sm_90, 132 SMs)", knobs = {cluster = 1 : i64, group_m = 8 : i64, persistent = 0 : i64, split_k = 1 : i64, stages = 6 : i64, swap_ab = 0 : i64, tile_m = 128 : i64, tile_n = 128 : i64}
// RUN: sed 's/3x9xf16/288x5120xf16/g; s/9x7xf16/5120x13824xf16/g; s/3x7xf/288x13824xf/g' \
// RUN:   %S/Inputs/matmul-relu-3x7x9-f16.mlir \
// RUN:   | tessel-opt --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir" \
// RUN:   | FileCheck %s --check-prefix=SWAP-TIE
// SWAP-TIE: knob_source = "rule (sm_90, 132 SMs)", knobs = {cluster = 1 : i64, group_m = 8 : i64, persistent = 0 : i64, split_k = 1 : i64, stages = 6 : i64, swap_ab = 1 : i64, tile_m = 160 : i64, tile_n = 128 : i64}
// Swapped blocks that fill one wave come first where there are some: at
// 288x5120 three rows of 96-row blocks, 128 weight rows wide (120 blocks,
// 8 stages); at 176 rows three rows of 64; at 304x5120 three rows of 104
// and at 320x5120 of 112 (6 stages: 8 do not fit). Rows of 104 or 112 come
// only in threes: at 216x8192 two rows of 112 would fill 128 SMs, but the
// rule keeps one row of 64x216 blocks (as many, the weight read once). At
// 264x3584 three rows of 96 fill 84 of 132 SMs, too few: two rows of
// 160x64 blocks, as before.
// RUN: sed 's/3x9xf16/288x5120xf16/g; s/9x7xf16/5120x5120xf16/g; s/3x7xf/288x5120xf/g' \
// RUN:   %S/Inputs/matmul-relu-3x7x9-f16.mlir \
// RUN:   | tessel-opt --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir" \
// RUN:   | FileCheck %s --check-prefix=WAVE-96
// WAVE-96: knob_source = "rule (sm_90, 132 SMs)", knobs = {cluster = 1 : i64, group_m = 8 : i64, persistent = 0 : i64, split_k = 1 : i64, stages = 8 : i64, swap_ab = 1 : i64, tile_m = 96 : i64, tile_n = 128 : i64}
// RUN: sed 's/3x9xf16/304x5120xf16/g; s/9x7xf16/5120x5120xf16/g; s/3x7xf/304x5120xf/g' \
// RUN:   %S/Inputs/matmul-relu-3x7x9-f16.mlir \
// RUN:   | tessel-opt --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir" \
// RUN:   | FileCheck %s --check-prefix=WAVE-104
// WAVE-104: knob_source = "rule (sm_90, 132 SMs)", knobs = {cluster = 1 : i64, group_m = 8 : i64, persistent = 0 : i64, split_k = 1 : i64, stages = 6 : i64, swap_ab = 1 : i64, tile_m = 104 : i64, tile_n = 128 : i64}
// RUN: sed 's/3x9xf16/320x5120xf16/g; s/9x7xf16/5120x5120xf16/g; s/3x7xf/320x5120xf/g' \
// RUN:   %S/Inputs/matmul-relu-3x7x9-f16.mlir \
// RUN:   | tessel-opt --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir" \
// RUN:   | FileCheck %s --check-prefix=WAVE-112
// WAVE-112: knob_source = "rule (sm_90, 132 SMs)", knobs = {cluster = 1 : i64, group_m = 8 : i64, persistent = 0 : i64, split_k = 1 : i64, stages = 6 : i64, swap_ab = 1 : i64, tile_m = 112 : i64, tile_n = 128 : i64}
// RUN: sed 's/3x9xf16/216x4096xf16/g; s/9x7xf16/4096x8192xf16/g; s/3x7xf/216x8192xf/g' \
// RUN:   %S/Inputs/matmul-relu-3x7x9-f16.mlir \
// RUN:   | tessel-opt --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir" \
// RUN:   | FileCheck %s --check-prefix=WAVE-TWO-ROWS
// WAVE-TWO-ROWS: knob_source = "rule (sm_90, 132 SMs)", knobs = {cluster = 1 : i64, group_m = 1 : i64, persistent = 0 : i64, split_k = 1 : i64, stages = 6 : i64, swap_ab = 1 : i64, tile_m = 256 : i64, tile_n = 64 : i64}
// RUN: sed 's/3x9xf16/176x13824xf16/g; s/9x7xf16/13824x5120xf16/g; s/3x7xf/176x5120xf/g' \
// RUN:   %S/Inputs/matmul-relu-3x7x9-f16.mlir \
// RUN:   | tessel-opt --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir" \
// RUN:   | FileCheck %s --check-prefix=WAVE-64
// WAVE-64: knob_source = "rule (sm_90, 132 SMs)", knobs = {cluster = 1 : i64, group_m = 8 : i64, persistent = 0 : i64, split_k = 1 : i64, stages = 8 : i64, swap_ab = 1 : i64, tile_m = 64 : i64, tile_n = 128 : i64}
// RUN: sed 's/3x9xf16/264x18944xf16/g; s/9x7xf16/18944x3584xf16/g; s/3x7xf/264x3584xf/g' \
// RUN:   %S/Inputs/matmul-relu-3x7x9-f16.mlir \
// RUN:   | tessel-opt --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir" \
// RUN:   | FileCheck %s --check-prefix=WAVE-TOO-FEW
// WAVE-TOO-FEW: knob_source = "rule (sm_90, 132 SMs)", knobs = {cluster = 1 : i64, group_m = 8 : i64, persistent = 0 : i64, split_k = 1 : i64, stages = 8 : i64, swap_ab = 1 : i64, tile_m = 160 : i64, tile_n = 64 : i64}
// Where no unsplit point fills the wave, K split in two: 280x2048x8192
// takes three rows of 96x128 blocks split in two (96 blocks, group_m 1);
// not with a K under 6144 (280x2048x4096), nor where the swapped points
// rank first anyway (144x4096x14336: one row of 160x64 split in two).
// RUN: sed 's/3x9xf16/280x8192xf16/g; s/9x7xf16/8192x2048xf16/g; s/3x7xf/280x2048xf/g' \
// RUN:   %S/Inputs/matmul-relu-3x7x9-f16.mlir \
// RUN:   | tessel-opt --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir" \
// RUN:   | FileCheck %s --check-prefix=WAVE-SPLIT
// WAVE-SPLIT: knob_source = "rule (sm_90, 132 SMs)", knobs = {cluster = 1 : i64, group_m = 1 : i64, persistent = 0 : i64, split_k = 2 : i64, stages = 8 : i64, swap_ab = 1 : i64, tile_m = 96 : i64, tile_n = 128 : i64}
// knobs=split_k=1 leaves that point out: the ranking without it.
// RUN: sed 's/3x9xf16/280x8192xf16/g; s/9x7xf16/8192x2048xf16/g; s/3x7xf/280x2048xf/g' \
// RUN:   %S/Inputs/matmul-relu-3x7x9-f16.mlir \
// RUN:   | tessel-opt --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=split_k=1" \
// RUN:   | FileCheck %s --check-prefix=WAVE-SPLIT-LEFT-OUT
// WAVE-SPLIT-LEFT-OUT: knobs = {{{.*}} split_k = 1 : i64, stages = 8 : i64, swap_ab = 0 : i64, tile_m = 128 : i64, tile_n = 64 : i64}
// RUN: sed 's/3x9xf16/280x4096xf16/g; s/9x7xf16/4096x2048xf16/g; s/3x7xf/280x2048xf/g' \
// RUN:   %S/Inputs/matmul-relu-3x7x9-f16.mlir \
// RUN:   | tessel-opt --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir" \
// RUN:   | FileCheck %s --check-prefix=WAVE-SPLIT-SHORT-K
// WAVE-SPLIT-SHORT-K: knobs = {{{.*}} split_k = 1 : i64, stages = 8 : i64, swap_ab = 0 : i64, tile_m = 128 : i64, tile_n = 64 : i64}
// RUN: sed 's/3x9xf16/144x14336xf16/g; s/9x7xf16/14336x4096xf16/g; s/3x7xf/144x4096xf/g' \
// RUN:   %S/Inputs/matmul-relu-3x7x9-f16.mlir \
// RUN:   | tessel-opt --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir" \
// RUN:   | FileCheck %s --check-prefix=WAVE-SPLIT-SWAPPED
// WAVE-SPLIT-SWAPPED: knobs = {{{.*}} split_k = 2 : i64, stages = 8 : i64, swap_ab = 1 : i64, tile_m = 160 : i64, tile_n = 64 : i64}
// Knobs that leave that point out (tile_n=64) get the ranking without it:
// 288x5120x5120 is not in the swap classes, so it stays unswapped.
// RUN: sed 's/3x9xf16/288x5120xf16/g; s/9x7xf16/5120x5120xf16/g; s/3x7xf/288x5120xf/g' \
// RUN:   %S/Inputs/matmul-relu-3x7x9-f16.mlir \
// RUN:   | tessel-opt --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_n=64" \
// RUN:   | FileCheck %s --check-prefix=WAVE-LEFT-OUT
// WAVE-LEFT-OUT: knobs = {{{.*}} swap_ab = 0 : i64, tile_m = 128 : i64, tile_n = 64 : i64}
// RUN: sed 's/1024/1008/g' %examples/matmul_relu_1024_f16.mlir \
// RUN:   | tessel-opt --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir" \
// RUN:   | FileCheck %s --check-prefix=ALIGNED-ROWS
// ALIGNED-ROWS: knob_source = "rule (sm_90, 132 SMs)", knobs = {cluster = 1 : i64, group_m = 1 : i64, persistent = 0 : i64, split_k = 1 : i64, stages = 8 : i64, swap_ab = 0 : i64, tile_m = 128 : i64, tile_n = 64 : i64}

// knobs= wins; the rule picks the rest.
// RUN: tessel-opt %examples/matmul_relu_4096_f16.mlir \
// RUN:   --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_n=128" \
// RUN:   | FileCheck %s --check-prefix=GIVEN
// GIVEN: knob_source = "rule (sm_90, 132 SMs); knobs= sets tile_n", knobs = {cluster = 1 : i64, group_m = 8 : i64, persistent = {{[01]}} : i64, split_k = 1 : i64, stages = 4 : i64, swap_ab = 0 : i64, tile_m = {{[0-9]+}} : i64, tile_n = 128 : i64}

// An f32 output whose rows are not 16-byte aligned (N = 7001) is stored one
// column at a time; with K = 8 the stores are the kernel, and the rule
// gives each thread 2 columns rather than 4. N = 7004 keeps 4.
// RUN: tessel-opt %S/Inputs/matmul-relu-5000x7001x8-f32.mlir \
// RUN:   --tessel-apply-schedule="schedule=%schedules/matmul_relu_simt.mlir" \
// RUN:   | FileCheck %s --check-prefix=SCALAR-STORES
// SCALAR-STORES: knobs = {thread_m = 4 : i64, thread_n = 2 : i64,
// RUN: sed 's/7001/7004/g' %S/Inputs/matmul-relu-5000x7001x8-f32.mlir | tessel-opt \
// RUN:   --tessel-apply-schedule="schedule=%schedules/matmul_relu_simt.mlir" \
// RUN:   | FileCheck %s --check-prefix=VECTOR-STORES
// VECTOR-STORES: knobs = {thread_m = 4 : i64, thread_n = 4 : i64,

// FP32-accurate f32 (3xTF32) at 128x4096x4096: each K step's wait and FP32
// add is charged, so 64 steps of 64x128 tiles split 2 ways beat 128 steps
// of 64x64 (measured on an H100: 56.0 against 69.8 us,
// bench/results/f32/README.md, "split-K").
// RUN: sed -e 's/xf16>/xf32>/g' -e 's/%out: f16/%out: f32/' \
// RUN:   -e 's/= arith.truncf %r : f32 to f16/= arith.addf %r, %zero : f32/' \
// RUN:   -e 's/yield \(.*\) : f16/yield \1 : f32/' %examples/matmul_relu_128x4096x4096_f16.mlir \
// RUN:   | tessel-opt --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir" \
// RUN:   | FileCheck %s --check-prefix=X3-THIN
// X3-THIN: knob_source = "rule (sm_90, 132 SMs)", knobs = {cluster = 1 : i64, group_m = 1 : i64, persistent = 0 : i64, split_k = 2 : i64, stages = 4 : i64, swap_ab = 0 : i64, tile_m = 64 : i64, tile_n = 128 : i64}

// TF32 at 2048^3: 128 tiles of 128x256, one per block, persistent (TF32
// blocks of one tile ran 1.02x-1.04x faster persistent on five such shapes
// on an H100, bench/results/f32/README.md; 16-bit ones gained nothing).
// RUN: sed 's/-> tensor<2048x2048xf32> {/-> tensor<2048x2048xf32> attributes {tessel.allow_tf32} {/' \
// RUN:   %examples/matmul_relu_2048_f32.mlir \
// RUN:   | tessel-opt --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir" \
// RUN:   | FileCheck %s --check-prefix=TF32-ONE-TILE
// TF32-ONE-TILE: knob_source = "rule (sm_90, 132 SMs)", knobs = {cluster = 1 : i64, group_m = 1 : i64, persistent = 1 : i64, split_k = 1 : i64, stages = 4 : i64, swap_ab = 0 : i64, tile_m = 128 : i64, tile_n = 256 : i64}

// Knob options no kernel can use (0, negative, 2^62) are not ranked (the
// rule divided by a zero tile_k): it picks the one usable point.
// RUN: tessel-opt %examples/matmul_relu_1024_f32.mlir \
// RUN:   --tessel-apply-schedule="schedule=%S/Inputs/knob-options-out-of-range.mlir" \
// RUN:   | FileCheck %s --check-prefix=OUT-OF-RANGE
// OUT-OF-RANGE: knob_source = "rule (sm_90, 132 SMs)", knobs = {thread_m = 4 : i64, thread_n = 4 : i64, tile_k = 8 : i64, tile_m = 64 : i64, tile_n = 64 : i64}

// A space too large to score whole (2^48 points) is sampled; the rule
// still chooses. Unfixed, this test does not end.
// RUN: tessel-opt %examples/matmul_relu_1024_f32.mlir \
// RUN:   --tessel-apply-schedule="schedule=%S/Inputs/knob-space-large.mlir" \
// RUN:   | FileCheck %s --check-prefix=LARGE-SPACE
// LARGE-SPACE: knob_source = "rule (sm_90, 132 SMs)"

// defaults=schedule keeps the values the schedule is written with.
// RUN: tessel-opt %examples/matmul_relu_128x4096x4096_f16.mlir \
// RUN:   --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir defaults=schedule" \
// RUN:   | FileCheck %s --check-prefix=WRITTEN
// WRITTEN: knob_source = "schedule defaults", knobs = {cluster = 1 : i64, group_m = 8 : i64, persistent = 0 : i64, split_k = 1 : i64, stages = 4 : i64, swap_ab = 0 : i64, tile_m = 128 : i64, tile_n = 128 : i64}

// A list of schedules: mma.sync cannot take f32 inputs, SIMT serves them; a
// remark says which served and why the others could not.
// RUN: tessel-opt %examples/matmul_relu_1024_f32.mlir \
// RUN:   --tessel-apply-schedule="schedule=%schedules/matmul_relu_mma.mlir,%schedules/matmul_relu_simt.mlir" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=FALLBACK
// FALLBACK: matmul_relu_1024_f32.mlir:4:1: remark: schedule '{{.*}}matmul_relu_simt.mlir' serves this payload; schedule '{{.*}}matmul_relu_mma.mlir' cannot serve it: mma.sync needs f16 or bf16 inputs (both the same) and an f32 accumulator
// FALLBACK: path = "{{.*}}matmul_relu_simt.mlir"

// When none serves the payload, the first schedule's own diagnostics are
// shown, then one line per schedule (3xTF32 tiles are at most 128 columns
// wide, swapped or not: 256x256). With tile_n=256 alone the rule serves it
// swapped: 256 output columns along wgmma's M, the rows along its N.
// RUN: not tessel-opt %examples/matmul_relu_1024_f32.mlir \
// RUN:   --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir,%schedules/matmul_relu_mma.mlir knobs=tile_m=256,tile_n=256" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NONE
// RUN: tessel-opt %examples/matmul_relu_1024_f32.mlir \
// RUN:   --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_n=256" \
// RUN:   | FileCheck %s --check-prefix=SWAPPED
// SWAPPED: knobs = {{{.*}} swap_ab = 1 : i64, tile_m = {{64|128}} : i64, tile_n = 256 : i64}
// NONE: matmul_relu_wgmma.mlir:{{[0-9]+}}:{{[0-9]+}}: error: the block tile N = 256 needs 256 accumulator registers per thread (3xTF32 keeps two sets); at most 128
// NONE: matmul_relu_1024_f32.mlir:4:1: error: no schedule serves this payload: schedule '{{.*}}matmul_relu_wgmma.mlir' cannot serve it: the block tile N = 256 needs 256 accumulator registers per thread (3xTF32 keeps two sets); at most 128; schedule '{{.*}}matmul_relu_mma.mlir' cannot serve it: mma.sync needs f16 or bf16 inputs (both the same) and an f32 accumulator

// 2000x3000x1500: 128x192 blocks are 16 x 16 = 256, two waves on 132 SMs,
// where 128x128 blocks would be 3 waves and 128x256 blocks 1.5
// (bench/results/any-shape/tile192.md: 52 against 57 us); persistent, two
// tiles per block (bench/results/persistent: 1.095x).
// RUN: tessel-opt %S/Inputs/matmul-relu-2000x3000x1500-f16.mlir \
// RUN:   --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir" \
// RUN:   | FileCheck %s --check-prefix=WAVES
// WAVES: knob_source = "rule (sm_90, 132 SMs)", knobs = {cluster = 1 : i64, group_m = 8 : i64, persistent = 1 : i64, split_k = 1 : i64, stages = 4 : i64, swap_ab = 0 : i64, tile_m = 128 : i64, tile_n = 192 : i64}

// Knobs one schedule lacks make it skip that schedule (stage_output is an
// mma.sync knob).
// RUN: tessel-opt %examples/matmul_relu_1024_f16.mlir \
// RUN:   --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir,%schedules/matmul_relu_mma.mlir knobs=stage_output=1" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SKIP
// SKIP: remark: schedule '{{.*}}matmul_relu_mma.mlir' serves this payload; {{.*}}matmul_relu_wgmma.mlir: {{.*}}has no knob named 'stage_output'
// SKIP: stage_output = 1 : i64

// A bad defaults= value.
// RUN: not tessel-opt %examples/matmul_relu_1024_f16.mlir \
// RUN:   --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir defaults=fastest" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BAD
// BAD: error: tessel-apply-schedule: defaults=fastest is not one of rule, nearest, schedule
