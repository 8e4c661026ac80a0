// f32 inputs with B stored [k, n] on the wgmma schedule (docs/f32.md):
// TF32 wgmma reads both operands K-major only, so a kernel first copies B
// transposed into a workspace [n, k'] whose rows are padded to 128 bytes,
// and the tensor map of the matmul's B describes the copy's [n, k] part.
// K = 701 also makes A's rows misaligned: A is copied to aligned rows.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: tessel-opt %s --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=128,tile_n=128,stages=3,group_m=8,split_k=1" \
// RUN:   | FileCheck %s
// RUN: tessel-opt %s --tessel-apply-schedule="schedule=%schedules/matmul_relu_wgmma.mlir knobs=tile_m=128,tile_n=128,stages=3,group_m=8,split_k=1" \
// RUN:   --tessel-lower-to-ptx --tessel-export-kernels=dir=%t/x3 -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/x3/matmul_relu_kernel_0.ptx
// RUN: FileCheck %s --check-prefix=JSON --input-file=%t/x3/matmul_relu.launch.json

// The transposing copy: one block per 32x32 tile (22 x 17 of them), 32x8
// threads, a 32x33 shared tile (one element of padding per row, so its
// columns are read without bank conflicts), loads masked at the matrix's
// edges, a barrier, then stores of the tile's columns as the workspace's
// rows.
// CHECK-LABEL: func.func @matmul_relu(
// CHECK:         %[[WS:.+]] = gpu.alloc () : memref<520x704xf32>
// CHECK:         gpu.launch blocks({{.+}}) in ({{.+}} = %c374, {{.+}} = %c1{{[_0-9]*}}, {{.+}} = %c1{{[_0-9]*}}) threads({{.+}}) in ({{.+}} = %c32{{[_0-9]*}}, {{.+}} = %c8{{[_0-9]*}}, {{.+}} = %c1{{[_0-9]*}})
// CHECK:           memref.alloc() : memref<32x33xf32, #gpu.address_space<workgroup>>
// CHECK-COUNT-4:   memref.load %arg1[
// CHECK-COUNT-4:   memref.store {{.+}} : memref<32x33xf32, #gpu.address_space<workgroup>>
// CHECK:           gpu.barrier
// CHECK-COUNT-4:   memref.store {{.+}}, %[[WS]][{{.+}}] : memref<520x704xf32>
// CHECK:         %[[B:.+]] = memref.subview %[[WS]][0, 0] [520, 701] [1, 1]
// CHECK:         memref.cast %[[B]]
// B's tensor map: K-major boxes of 128 rows of 32 values.
// CHECK:         nvgpu.tma.create.descriptor %{{.+}} box[%c128{{[_0-9]*}}, %c32{{[_0-9]*}}] : memref<*xf32> -> <tensor = memref<128x32xf32
// CHECK:         gpu.launch
// CHECK:         gpu.dealloc %[[WS]]

// The copy's loads and stores of global memory are 4-byte accesses,
// consecutive across a warp.
// PTX-COUNT-4: ld.global.b32
// PTX:         bar.sync
// PTX-COUNT-4: st.global.b32

// The copies run first (A's to aligned rows, then B's transposed into
// workspace 1, reading argument 1); the matmul reads B from workspace 1,
// K-major ([n, k] = [520, 701], rows of 704 values), after waiting for them.
// JSON:      "binary": "matmul_relu_kernel_0",
// JSON-NEXT: "block": [
// JSON-NEXT:   32,
// JSON-NEXT:   8,
// JSON:      "argument": 1,
// JSON:      "workspace": 1
// JSON:      "binary": "matmul_relu_kernel_1",
// JSON:      "kind": "tensor_map",
// JSON:      "kind": "tensor_map",
// JSON:      "shape": [
// JSON-NEXT:   520,
// JSON-NEXT:   701
// JSON-NEXT: ],
// JSON-NEXT: "swizzle": "128b",
// JSON-NEXT: "workspace": 1
// JSON:      "waits_for_previous": true
// JSON:      "workspaces": [
// JSON:        "shape": [
// JSON-NEXT:     300,
// JSON-NEXT:     704
// JSON:        "shape": [
// JSON-NEXT:     520,
// JSON-NEXT:     704
func.func @matmul_relu(%A: tensor<300x701xf32>, %B: tensor<701x520xf32>,
    %C: tensor<300x520xf32>) -> tensor<300x520xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<300x520xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<300x520xf32>) -> tensor<300x520xf32>
  %mm = linalg.matmul ins(%A, %B : tensor<300x701xf32>, tensor<701x520xf32>)
                      outs(%acc : tensor<300x520xf32>) -> tensor<300x520xf32>
  %relu = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<300x520xf32>) outs(%C : tensor<300x520xf32>) {
  ^bb0(%x: f32, %out: f32):
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  } -> tensor<300x520xf32>
  return %relu : tensor<300x520xf32>
}
