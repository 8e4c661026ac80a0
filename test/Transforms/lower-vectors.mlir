// RUN: tessel-opt %s --tessel-lower-vectors --split-input-file | FileCheck %s

// A 2x3 * 3x4 contraction becomes 3 rank-1 updates of 2 rows each: 6
// vector.fma on vector<4xf32>, each row's chain starting from its row of the
// accumulator.

#map_a = affine_map<(m, n, k) -> (m, k)>
#map_b = affine_map<(m, n, k) -> (k, n)>
#map_c = affine_map<(m, n, k) -> (m, n)>

// CHECK-LABEL: func.func @contract
// CHECK-SAME:    (%[[A:.+]]: vector<2x3xf32>, %[[B:.+]]: vector<3x4xf32>, %[[C:.+]]: vector<2x4xf32>)
// CHECK-NOT:     vector.contract
// CHECK-NOT:     vector.outerproduct
// CHECK-DAG:     %[[B0:.+]] = vector.extract %[[B]][0] : vector<4xf32> from vector<3x4xf32>
// CHECK-DAG:     %[[A00:.+]] = vector.extract %[[A]][0, 0] : f32 from vector<2x3xf32>
// CHECK-DAG:     %[[A00B:.+]] = vector.broadcast %[[A00]] : f32 to vector<4xf32>
// CHECK-DAG:     %[[C0:.+]] = vector.extract %[[C]][0] : vector<4xf32> from vector<2x4xf32>
// CHECK:         %[[R00:.+]] = vector.fma %[[A00B]], %[[B0]], %[[C0]] : vector<4xf32>
// CHECK:         %[[R10:.+]] = vector.fma %{{.+}}, %[[B0]], %{{.+}} : vector<4xf32>
// CHECK:         %[[B1:.+]] = vector.extract %[[B]][1] : vector<4xf32> from vector<3x4xf32>
// CHECK:         %[[R01:.+]] = vector.fma %{{.+}}, %[[B1]], %[[R00]] : vector<4xf32>
// CHECK:         %[[R11:.+]] = vector.fma %{{.+}}, %[[B1]], %[[R10]] : vector<4xf32>
// CHECK:         %[[B2:.+]] = vector.extract %[[B]][2] : vector<4xf32> from vector<3x4xf32>
// CHECK:         %[[R02:.+]] = vector.fma %{{.+}}, %[[B2]], %[[R01]] : vector<4xf32>
// CHECK:         %[[ROW0:.+]] = vector.insert %[[R02]], %{{.+}} [0] : vector<4xf32> into vector<2x4xf32>
// CHECK:         %[[R12:.+]] = vector.fma %{{.+}}, %[[B2]], %[[R11]] : vector<4xf32>
// CHECK:         %[[RES:.+]] = vector.insert %[[R12]], %[[ROW0]] [1] : vector<4xf32> into vector<2x4xf32>
// CHECK-NOT:     vector.fma
// CHECK:         return %[[RES]]
func.func @contract(%a: vector<2x3xf32>, %b: vector<3x4xf32>, %c: vector<2x4xf32>) -> vector<2x4xf32> {
  %r = vector.contract {indexing_maps = [#map_a, #map_b, #map_c],
                        iterator_types = ["parallel", "parallel", "reduction"],
                        kind = #vector.kind<add>} %a, %b, %c
      : vector<2x3xf32>, vector<3x4xf32> into vector<2x4xf32>
  return %r : vector<2x4xf32>
}

// -----

// Mixed precision: the extensions stay, the contraction on f32 is lowered.

#map_a = affine_map<(m, n, k) -> (m, k)>
#map_b = affine_map<(m, n, k) -> (k, n)>
#map_c = affine_map<(m, n, k) -> (m, n)>

// CHECK-LABEL: func.func @contract_extf
// CHECK:         arith.extf %{{.+}} : vector<2x2xf16> to vector<2x2xf32>
// CHECK:         arith.extf %{{.+}} : vector<2x8xf16> to vector<2x8xf32>
// CHECK-NOT:     vector.contract
// CHECK-COUNT-4: vector.fma {{.+}} : vector<8xf32>
// CHECK-NOT:     vector.fma
func.func @contract_extf(%a: vector<2x2xf16>, %b: vector<2x8xf16>, %c: vector<2x8xf32>) -> vector<2x8xf32> {
  %ae = arith.extf %a : vector<2x2xf16> to vector<2x2xf32>
  %be = arith.extf %b : vector<2x8xf16> to vector<2x8xf32>
  %r = vector.contract {indexing_maps = [#map_a, #map_b, #map_c],
                        iterator_types = ["parallel", "parallel", "reduction"],
                        kind = #vector.kind<add>} %ae, %be, %c
      : vector<2x2xf32>, vector<2x8xf32> into vector<2x8xf32>
  return %r : vector<2x8xf32>
}

// -----

// In-bounds 2-D transfers become one 1-D vector.load / vector.store per row,
// at row offsets i and i + 1.

// CHECK: #[[$NEXT:.+]] = affine_map<()[s0] -> (s0 + 1)>
// CHECK-LABEL: func.func @transfers
// CHECK-SAME:    (%[[SRC:.+]]: memref<8x16xf32>, %[[DST:.+]]: memref<8x16xf32>, %[[I:.+]]: index, %[[J:.+]]: index)
// CHECK-NOT:     vector.transfer_read
// CHECK:         %[[ROW0:.+]] = vector.load %[[SRC]][%[[I]], %[[J]]] : memref<8x16xf32>, vector<4xf32>
// CHECK:         %[[I1:.+]] = affine.apply #[[$NEXT]]()[%[[I]]]
// CHECK:         %[[ROW1:.+]] = vector.load %[[SRC]][%[[I1]], %[[J]]] : memref<8x16xf32>, vector<4xf32>
// CHECK:         vector.store %[[ROW0]], %[[DST]][%[[I]], %[[J]]] : memref<8x16xf32>, vector<4xf32>
// CHECK:         %[[I1B:.+]] = affine.apply #[[$NEXT]]()[%[[I]]]
// CHECK:         vector.store %[[ROW1]], %[[DST]][%[[I1B]], %[[J]]] : memref<8x16xf32>, vector<4xf32>
// CHECK-NOT:     vector.transfer_write
func.func @transfers(%src: memref<8x16xf32>, %dst: memref<8x16xf32>, %i: index, %j: index) {
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %src[%i, %j], %pad {in_bounds = [true, true]}
      : memref<8x16xf32>, vector<2x4xf32>
  vector.transfer_write %v, %dst[%i, %j] {in_bounds = [true, true]}
      : vector<2x4xf32>, memref<8x16xf32>
  return
}

// -----

// A transfer that may be out of bounds (the edge tile of a shape that its
// tiles do not divide) gets a fast path for when it is not: full-width
// vector.loads under the run-time bound check; the slow path guards each
// row and masks the columns past the end. Neither turns into an unchecked
// load of the whole vector.

// CHECK-LABEL: func.func @maybe_out_of_bounds
// CHECK-SAME:    (%[[SRC:.+]]: memref<8x16xf32>, %[[I:.+]]: index, %[[J:.+]]: index)
// CHECK-DAG:     %[[C2:.+]] = arith.constant 2 : index
// CHECK-DAG:     %[[C4:.+]] = arith.constant 4 : index
// CHECK:         %[[IEND:.+]] = arith.addi %[[I]], %[[C2]]
// CHECK:         %[[IOK:.+]] = arith.cmpi sle, %[[IEND]]
// CHECK:         %[[JEND:.+]] = arith.addi %[[J]], %[[C4]]
// CHECK:         %[[JOK:.+]] = arith.cmpi sle, %[[JEND]]
// CHECK:         %[[OK:.+]] = arith.andi %[[IOK]], %[[JOK]]
// CHECK:         scf.if %[[OK]]
// CHECK-COUNT-2:   vector.load %[[SRC]]{{.+}} : memref<8x16xf32>, vector<4xf32>
// CHECK:         } else {
// CHECK:           scf.if
// CHECK:             vector.maskedload %[[SRC]]
// CHECK:           scf.if
// CHECK:             vector.maskedload %[[SRC]]
// CHECK:         } {tessel.split_transfer}
func.func @maybe_out_of_bounds(%src: memref<8x16xf32>, %i: index, %j: index) -> vector<2x4xf32> {
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %src[%i, %j], %pad : memref<8x16xf32>, vector<2x4xf32>
  return %v : vector<2x4xf32>
}

// -----

// Inside a GPU kernel, as in the PTX pipeline.

// CHECK-LABEL: gpu.func @kernel
// CHECK-NOT:     vector.contract
// CHECK-NOT:     vector.transfer
// CHECK-COUNT-2: vector.load {{.+}} : memref<4x4xf32>, vector<2xf32>
// CHECK-COUNT-4: vector.fma
// CHECK-COUNT-2: vector.store {{.+}} : memref<4x4xf32>, vector<4xf32>
#map_a = affine_map<(m, n, k) -> (m, k)>
#map_b = affine_map<(m, n, k) -> (k, n)>
#map_c = affine_map<(m, n, k) -> (m, n)>
gpu.module @kernels {
  gpu.func @kernel(%a: memref<4x4xf32>, %c: memref<4x4xf32>) kernel {
    %c0 = arith.constant 0 : index
    %pad = arith.constant 0.0 : f32
    %av = vector.transfer_read %a[%c0, %c0], %pad {in_bounds = [true, true]}
        : memref<4x4xf32>, vector<2x2xf32>
    %bv = arith.constant dense<1.0> : vector<2x4xf32>
    %cv = arith.constant dense<0.0> : vector<2x4xf32>
    %r = vector.contract {indexing_maps = [#map_a, #map_b, #map_c],
                          iterator_types = ["parallel", "parallel", "reduction"],
                          kind = #vector.kind<add>} %av, %bv, %cv
        : vector<2x2xf32>, vector<2x4xf32> into vector<2x4xf32>
    vector.transfer_write %r, %c[%c0, %c0] {in_bounds = [true, true]}
        : vector<2x4xf32>, memref<4x4xf32>
    gpu.return
  }
}
