// A minimal payload accepted by tessel-lower-to-ptx: one gpu.launch on a
// statically shaped buffer.
func.func @scale(%a: memref<1024xf32>) -> memref<1024xf32> {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c256 = arith.constant 256 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %i = arith.muli %tx, %c4 : index
    %two = arith.constant dense<2.0> : vector<4xf32>
    %v = vector.load %a[%i] : memref<1024xf32>, vector<4xf32>
    %r = arith.mulf %v, %two : vector<4xf32>
    vector.store %r, %a[%i] : memref<1024xf32>, vector<4xf32>
    gpu.terminator
  }
  return %a : memref<1024xf32>
}
