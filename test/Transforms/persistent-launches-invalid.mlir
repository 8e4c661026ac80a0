// RUN: tessel-opt %s --split-input-file --verify-diagnostics --tessel-persistent-launches

// A persistent kernel of 4 tiles launched with another grid: it would walk
// tiles its loops do not expect.
module attributes {gpu.container_module} {
  func.func @launch() {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c128 = arith.constant 128 : index
    // expected-error@below {{a persistent kernel of 4 tiles must be launched with a constant grid of 4 x 1 x 1 blocks, in clusters (if any) along x whose size divides it}}
    gpu.launch_func @persistent::@k blocks in (%c2, %c2, %c1) threads in (%c128, %c1, %c1)
    return
  }
  gpu.module @persistent {
    gpu.func @k() kernel {
      %c0 = arith.constant 0 : index
      %c4 = arith.constant 4 : index
      %first = gpu.block_id x
      %count = gpu.grid_dim x
      scf.for %t = %first to %c4 step %count {
      } {tessel.persistent_tiles = 4 : i64}
      gpu.return
    }
  }
}

// -----

// Tile loops of one kernel that disagree on its number of tiles.
module attributes {gpu.container_module} {
  gpu.module @persistent {
    gpu.func @k() kernel {
      %c4 = arith.constant 4 : index
      %first = gpu.block_id x
      %count = gpu.grid_dim x
      scf.for %t = %first to %c4 step %count {
      } {tessel.persistent_tiles = 4 : i64}
      // expected-error@below {{the tile loops of a persistent kernel disagree on its number of tiles}}
      scf.for %t = %first to %c4 step %count {
      } {tessel.persistent_tiles = 6 : i64}
      gpu.return
    }
  }
}

// -----

// Clusters along y: a runtime shrinking the grid along x would split them.
module attributes {gpu.container_module} {
  func.func @launch() {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c128 = arith.constant 128 : index
    // expected-error@below {{a persistent kernel of 4 tiles must be launched with a constant grid of 4 x 1 x 1 blocks, in clusters (if any) along x whose size divides it}}
    gpu.launch_func @persistent::@k clusters in (%c1, %c2, %c1) blocks in (%c4, %c1, %c1) threads in (%c128, %c1, %c1)
    return
  }
  gpu.module @persistent {
    gpu.func @k() kernel {
      %c4 = arith.constant 4 : index
      %first = gpu.block_id x
      %count = gpu.grid_dim x
      scf.for %t = %first to %c4 step %count {
      } {tessel.persistent_tiles = 4 : i64}
      gpu.return
    }
  }
}
