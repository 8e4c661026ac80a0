// RUN: tessel-opt %s --split-input-file --tessel-attach-nvvm-target | FileCheck %s
// RUN: tessel-opt %s --split-input-file --tessel-attach-nvvm-target="chip=sm_80 features=+ptx81 O=2" \
// RUN:   | FileCheck %s --check-prefix=OPTIONS

// The chip tessel-check-kernel-payload settled wins over chip=. (O = 2 is
// the attribute's default, which it does not print.)
// CHECK-LABEL: module attributes {tessel.chip = "sm_90a"}
// CHECK:         gpu.module @k [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">]
// OPTIONS-LABEL: module attributes {tessel.chip = "sm_90a"}
// OPTIONS:         gpu.module @k [#nvvm.target<chip = "sm_90a", features = "+ptx81">]
module attributes {tessel.chip = "sm_90a"} {
  gpu.module @k {
  }
}

// -----

// Without a recorded chip: chip= (default sm_90). A module that has a
// target keeps it.
// CHECK-LABEL: module {
// CHECK:         gpu.module @k [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">]
// CHECK:         gpu.module @mine [#nvvm.target<chip = "sm_75">]
// OPTIONS-LABEL: module {
// OPTIONS:         gpu.module @k [#nvvm.target<chip = "sm_80", features = "+ptx81">]
module {
  gpu.module @k {
  }
  gpu.module @mine [#nvvm.target<chip = "sm_75">] {
  }
}
