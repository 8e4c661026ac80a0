// Tuning without a GPU from a real recording: Inputs/recorded-2048-f16-h200.json
// is bench/results/tuning/exhaustive-2048-f16-h200.json, the SIMT schedule's
// candidates for matmul_relu 2048^3 f16 measured on an NVIDIA H200
// (2026-11-21; cut after 951 of 1600 candidates). The schedule replayed is
// the SIMT schedule with tile_m's options cut to [16, 32, 64], what the
// recording covers: 960 candidates, 9 of them not recorded. Replay matches
// records by workload, device and knobs, so the schedule hash may differ.
// RUN: sed '/"tile_m"/{n;s/\[16, 32, 64, 128, 256\]/[16, 32, 64]/}' \
// RUN:   %schedules/matmul_relu_simt.mlir > %t.schedule.mlir
// RUN: grep -q "from options = \[16, 32, 64\] ->" %t.schedule.mlir

// Exhaustive over the whole space finds the recording's best knobs. The
// constraints refuse the 133 recorded compile errors (and no recorded kernel
// that ran) before compiling; the unrecorded candidates count as trials.
// RUN: tessel-opt %examples/matmul_relu_2048_f16.mlir \
// RUN:   --tessel-tune="schedule=%t.schedule.mlir strategy=exhaustive start=defaults budget=960 replay=%S/Inputs/recorded-2048-f16-h200.json" \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXH

// EXH: [tune] constraints: 824 of 960 candidates left, 136 refused before compiling (e.g. tile_m=16,tile_n=128,tile_k=4,thread_m=1,thread_n=1: 2048 threads per block (at most 1024))
// EXH-NEXT: [tune] constraints vs the recorded candidates: compile-error 133 of 133; ok 0 of 818;
// EXH-NEXT: [tune] matmul_relu 2048x2048x2048 f16->f16 acc=f32 on NVIDIA H200 (sm_90): 5 knobs, 960 candidates, strategy exhaustive, budget 960 (replay)
// EXH-NEXT: [tune]    1/960 ok               0.7037 ms tile_m=64,tile_n=128,tile_k=8,thread_m=4,thread_n=8  best 0.7037 ms
// EXH: [tune]  806/960 ok               0.5092 ms tile_m=64,tile_n=256,tile_k=4,thread_m=8,thread_n=8  best 0.5092 ms
// EXH: [tune]  824/960 not-recorded               tile_m=64,tile_n=256,tile_k=32,thread_m=8,thread_n=8  (no measurement of these knobs in the replay database)  best 0.5092 ms
// EXH: 824 trials ({{.*}}), space of 960 candidates (136 refused by the constraints), strategy exhaustive
// EXH-NEXT: [tune] best candidates (verified against the reference):
// EXH-NEXT: [tune]      0.5092 ms    33.7 TFLOP/s  tile_m=64,tile_n=256,tile_k=4,thread_m=8,thread_n=8
// EXH-NEXT: [tune]      0.5297 ms    32.4 TFLOP/s  tile_m=32,tile_n=128,tile_k=4,thread_m=8,thread_n=8
// EXH-NOT: compile-error
// EXH: [tune] rejected, not-recorded: 6,
// EXH-NEXT: [tune] winner: tile_m=64,tile_n=256,tile_k=4,thread_m=8,thread_n=8

// By default (start=rule) a search's first trial is the knobs the compiler
// picks without a record, the knob rule's (as --tessel-apply-schedule
// reports them), not the schedule's own defaults; start= takes nothing else.
// RUN: tessel-opt %examples/matmul_relu_2048_f16.mlir \
// RUN:   --tessel-tune="schedule=%t.schedule.mlir strategy=evolutionary seed=1 budget=2 replay=%S/Inputs/recorded-2048-f16-h200.json" \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=START
// RUN: tessel-opt %examples/matmul_relu_2048_f16.mlir --tessel-apply-schedule="schedule=%t.schedule.mlir" \
// RUN:   | FileCheck %s --check-prefix=RULE
// RUN: not tessel-opt %examples/matmul_relu_2048_f16.mlir \
// RUN:   --tessel-tune="schedule=%t.schedule.mlir start=first replay=%S/Inputs/recorded-2048-f16-h200.json" \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD-START
// START: [tune]    1/2 ok               0.6513 ms tile_m=64,tile_n=64,tile_k=4,thread_m=4,thread_n=4  best 0.6513 ms
// RULE: knob_source = "rule (sm_90, 132 SMs)", knobs = {thread_m = 4 : i64, thread_n = 4 : i64, tile_k = 4 : i64, tile_m = 64 : i64, tile_n = 64 : i64}
// BAD-START: matmul_relu_2048_f16.mlir:{{[0-9]+}}:{{[0-9]+}}: error: tessel-tune: start='first': expected rule or defaults

// Evolutionary search, seed 1, 300 trials: within 3% of the recorded best
// (here, since the runner-up is 4% slower, the best itself, found at trial
// 241; over 60 seeds the median is 83.5 trials and 58 find it within 300:
// bench/results/tuning/strategies-replay.md), and its winner is applied to
// the payload (8x8 register tiles).
// RUN: tessel-opt %examples/matmul_relu_2048_f16.mlir \
// RUN:   --tessel-tune="schedule=%t.schedule.mlir strategy=evolutionary start=defaults seed=1 budget=300 replay=%S/Inputs/recorded-2048-f16-h200.json" \
// RUN:   -o %t.evo.mlir 2> %t.evo.log
// RUN: python3 %S/Inputs/check-replay.py %t.evo.log %S/Inputs/recorded-2048-f16-h200.json 1.03 \
// RUN:   | FileCheck %s --check-prefix=WITHIN
// RUN: FileCheck %s --check-prefix=EVO --input-file=%t.evo.log
// RUN: FileCheck %s --check-prefix=IR --input-file=%t.evo.mlir

// WITHIN: trials 300
// WITHIN-NEXT: recorded best 0.5092 ms
// WITHIN-NEXT: tuned best 0.5092 ms
// WITHIN-NEXT: within 1.03x: yes

// EVO: strategy evolutionary, budget 300 (replay)
// EVO: [tune]  241/300 ok               0.5092 ms tile_m=64,tile_n=256,tile_k=4,thread_m=8,thread_n=8  best 0.5092 ms
// EVO: [tune]  300/300 {{.*}}  best 0.5092 ms
// EVO: 300 trials ({{.*}}), space of 960 candidates (136 refused by the constraints), strategy evolutionary
// EVO: [tune] winner: tile_m=64,tile_n=256,tile_k=4,thread_m=8,thread_n=8

// IR: arith.constant dense<0.000000e+00> : vector<8x8xf32>
// IR: gpu.launch
// IR-NOT: linalg.
