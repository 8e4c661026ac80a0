// With ptxas, each candidate's registers and spills are recorded; a
// candidate that spills is measured like any other (a few bytes of spill
// stores can leave a kernel the fastest), and the log says it spilled. A
// stand-in ptxas (Inputs/fake-ptxas.py) makes every 16 x 16-thread kernel
// spill.

// RUN: rm -f %t.db
// RUN: tessel-opt %examples/matmul_relu_1024_f32.mlir \
// RUN:   --tessel-tune="schedule=%schedules/matmul_relu_simt.mlir strategy=random start=defaults budget=24 seed=2 db=%t.db runner=%S/Inputs/fake-runner.py timeout=10 ptxas=%S/Inputs/fake-ptxas.py" \
// RUN:   -o /dev/null 2> %t.log
// RUN: FileCheck %s --input-file=%t.log
// RUN: tessel-db export %t.db -o %t.json
// RUN: python3 -c "import json; rs = json.load(open('%t.json'))['records']; \
// RUN:   print(sorted({(r['status'], r['registers'], r['spill_bytes'], r['measure_ms'] == 0) for r in rs if r['status'] in ('ok', 'spills')}))" \
// RUN:   | FileCheck %s --check-prefix=DB

// The default knobs (tile 64 x 128, 4 x 8 per thread) run 16 x 16 threads.
// CHECK: [tune]    1/24 ok {{.*}} ms tile_m=64,tile_n=128,tile_k=8,thread_m=4,thread_n=8  (spills 64 bytes)
// CHECK-NOT: rejected, spills
// CHECK: [tune] winner:
// DB: [('ok', 96, 0, False), ('ok', 255, 64, False)]

// A ptxas that cannot be run is an error up front.
// RUN: not tessel-opt %examples/matmul_relu_1024_f32.mlir \
// RUN:   --tessel-tune="schedule=%schedules/matmul_relu_simt.mlir runner=%S/Inputs/fake-runner.py ptxas=%t.no-ptxas" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BAD
// BAD: error: tessel-tune: cannot execute ptxas '{{.*}}no-ptxas'
