// Every file a user names is a regular file of bounded size, and every
// JSON file nests a bounded number of levels: a device or a FIFO is
// refused without being read (db=/dev/zero was read forever, growing to
// 2 GB), a directory is named as one, and JSON nested past 256 levels is
// refused before llvm::json::parse recurses through it (60,000 levels
// overflowed the stack). Nothing here opens the device or the FIFO.

// RUN: rm -rf %t && mkdir -p %t && mkfifo %t/fifo
// RUN: %python -c "print('[' * 100000 + ']' * 100000)" > %t/deep.json
// RUN: %python -c "print('{\"format\": \"tessel-tuning-db\", \"x\": ' + '[' * 300 + ']' * 300 + '}')" > %t/deep-db.json

// Launch specs and kernel images (tessel-run).
// RUN: not tessel-run /dev/zero 2>&1 | FileCheck %s --check-prefix=RUN-DEVICE
// RUN: not tessel-run %t/fifo 2>&1 | FileCheck %s --check-prefix=RUN-FIFO
// RUN: not tessel-run %t 2>&1 | FileCheck %s --check-prefix=RUN-DIR
// RUN: not tessel-run %t/deep.json 2>&1 | FileCheck %s --check-prefix=RUN-DEEP
// RUN-DEVICE: tessel-run: error: /dev/zero: not a regular file (a device, FIFO or socket)
// RUN-FIFO: tessel-run: error: {{.*}}fifo: not a regular file (a device, FIFO or socket)
// RUN-DIR: tessel-run: error: {{.*}}: not a regular file (a directory)
// RUN-DEEP: tessel-run: error: {{.*}}deep.json: invalid JSON: arrays and objects nested more than 256 levels deep

// Schedule libraries and tuning databases (tessel-apply-schedule).
// RUN: not tessel-opt %s --tessel-apply-schedule="schedule=/dev/zero" 2>&1 | FileCheck %s --check-prefix=SCHEDULE
// RUN: not tessel-opt %s --tessel-apply-schedule="schedule=%schedules/matmul_relu_simt.mlir db=/dev/zero" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=DB-DEVICE
// RUN: not tessel-opt %s --tessel-apply-schedule="schedule=%schedules/matmul_relu_simt.mlir db=%t/deep-db.json" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=DB-DEEP
// SCHEDULE: error: cannot read schedule file /dev/zero: not a regular file (a device, FIFO or socket)
// DB-DEVICE: error: {{.*}}/dev/zero: not a regular file (a device, FIFO or socket)
// DB-DEEP: deep-db.json: not a Tessel tuning database (invalid JSON: arrays and objects nested more than 256 levels deep); it is left untouched

// The tuner's schedule, database and replay database (tessel-tune).
// RUN: not tessel-opt %s --tessel-tune="schedule=%t/fifo runner=%S/Inputs/fake-runner.py" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=TUNE-SCHEDULE
// RUN: not tessel-opt %s --tessel-tune="schedule=%schedules/matmul_relu_simt.mlir db=/dev/zero runner=%S/Inputs/fake-runner.py" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=TUNE-DB
// RUN: not tessel-opt %s --tessel-tune="schedule=%schedules/matmul_relu_simt.mlir replay=/dev/zero" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=TUNE-REPLAY
// TUNE-SCHEDULE: error: tessel-tune: cannot read schedule file {{.*}}fifo: not a regular file (a device, FIFO or socket)
// TUNE-DB: error: tessel-tune: /dev/zero: not a regular file (a device, FIFO or socket)
// TUNE-REPLAY: error: tessel-tune: /dev/zero: not a regular file (a device, FIFO or socket)

func.func @matmul_relu(%A: tensor<64x32xf32>, %B: tensor<32x64xf32>,
                       %C: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<64x64xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<64x64xf32>) -> tensor<64x64xf32>
  %mm = linalg.matmul ins(%A, %B : tensor<64x32xf32>, tensor<32x64xf32>)
                      outs(%acc : tensor<64x64xf32>) -> tensor<64x64xf32>
  %relu = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<64x64xf32>) outs(%C : tensor<64x64xf32>) {
  ^bb0(%x: f32, %out: f32):
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  } -> tensor<64x64xf32>
  return %relu : tensor<64x64xf32>
}
