// RUN: tessel-opt %s --split-input-file --verify-diagnostics --tessel-attach-nvvm-target

// expected-error@below {{PTX version 8.0 (features=+ptx80) does not support sm_100a: use features=+ptx86 or higher}}
module attributes {tessel.chip = "sm_100a"} {
  gpu.module @k {
  }
}

// -----

// expected-error@below {{chip 'sm_11' is not a chip Tessel compiles for (sm_70 ... sm_120a)}}
module attributes {tessel.chip = "sm_11"} {
  gpu.module @k {
  }
}
