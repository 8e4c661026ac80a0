// Buffers that 32-bit kernel indices cannot address, though no argument is
// 2^31 bytes: a workspace the host function allocates, and an argument
// whose strides span more than its elements.
func.func @workspace(%a: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  // expected-error@below {{'gpu.alloc' makes a buffer of type 'memref<1073741824xf16>': its 1073741824 elements need addresses beyond the kernels' 32-bit indices (use index-bitwidth=64)}}
  %w = gpu.alloc () : memref<1073741824xf16>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %c0 = arith.constant 0 : index
    %v = memref.load %w[%c0] : memref<1073741824xf16>
    gpu.terminator
  }
  gpu.dealloc %w : memref<1073741824xf16>
  return
}

// -----

// expected-error@below {{argument #0 of 'strided' has type 'memref<2x16xf32, strided<[536870912, 1]>>': its 536870928 elements need addresses beyond the kernels' 32-bit indices (use index-bitwidth=64)}}
func.func @strided(%a: memref<2x16xf32, strided<[536870912, 1]>>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    gpu.terminator
  }
  return
}
