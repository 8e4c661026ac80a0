// RUN: tessel-opt %s --tessel-persistent-launches | FileCheck %s

// A kernel whose tile loop is marked persistent loses its known_grid_size
// (a compiler could fold grid_dim.x to 4, and a launch of fewer blocks would
// skip tiles); its launch is marked for the runtime. Other kernels and
// launches are left alone.

// CHECK-LABEL: func.func @launch
// CHECK:         gpu.launch_func @persistent::@k blocks in (%c4, %c1, %c1) threads in (%c128, %c1, %c1) args(%c4 : index) {tessel.persistent}
// CHECK:         gpu.launch_func @plain::@k blocks in (%c4, %c1, %c1) threads in (%c128, %c1, %c1) args(%c4 : index){{$}}
// CHECK:       gpu.module @persistent
// CHECK:         gpu.func @k(%{{.*}}: index) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
// CHECK:       gpu.module @plain
// CHECK:         gpu.func @k(%{{.*}}: index) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {

module attributes {gpu.container_module} {
  func.func @launch() {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c128 = arith.constant 128 : index
    gpu.launch_func @persistent::@k blocks in (%c4, %c1, %c1) threads in (%c128, %c1, %c1) args(%c4 : index)
    gpu.launch_func @plain::@k blocks in (%c4, %c1, %c1) threads in (%c128, %c1, %c1) args(%c4 : index)
    return
  }
  gpu.module @persistent {
    gpu.func @k(%tiles: index) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
      %c0 = arith.constant 0 : index
      %first = gpu.block_id x
      %count = gpu.grid_dim x
      %phase = scf.for %t = %first to %tiles step %count iter_args(%p = %c0) -> (index) {
        scf.yield %p : index
      } {tessel.persistent_tiles = 4 : i64}
      gpu.return
    }
  }
  gpu.module @plain {
    gpu.func @k(%n: index) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {
      gpu.return
    }
  }
}
