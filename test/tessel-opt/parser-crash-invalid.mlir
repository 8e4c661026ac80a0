// Text that MLIR 22's own parser crashes on is refused before parsing, at
// its place: a linalg.generic in custom form whose iterator_types are not
// all strings (GenericOp::parse reads each element as a string; mlir-opt
// dies of SIGSEGV on this file). Found by the opt fuzzer
// (fuzz/corpus/opt/regress-iterator-types).

// RUN: not tessel-opt %s -o /dev/null 2>&1 | FileCheck %s
// CHECK: parser-crash-invalid.mlir:[[@LINE+20]]:37: error: the iterator_types of linalg.generic must be strings ("parallel", "reduction"); MLIR 22's parser reads any other element as a string and crashes

// An iterator_types of enum attributes (the generic form's) crashes it too.
// RUN: sed 's/"parallel", 4294967296/#linalg.iterator_type<parallel>/' %s > %t.mlir
// RUN: not tessel-opt %t.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=ENUM
// ENUM: .mlir:[[@LINE+15]]:25: error: the iterator_types of linalg.generic must be strings

// NUL bytes between tokens, which MLIR's lexer skips as spaces (the opt
// fuzzer's fuzz/corpus/opt/regress-iterator-types-nul).
// RUN: sed 's/iterator_types = /iterator_types \x00\x00= \x00/' %s > %t.nul.mlir
// RUN: not tessel-opt %t.nul.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=NUL
// NUL: .mlir:[[@LINE+9]]:40: error: the iterator_types of linalg.generic must be strings

// The same in a schedule library (tessel-apply-schedule reads it itself).
// RUN: not tessel-opt %S/../../examples/matmul_relu_1024_f32.mlir --tessel-apply-schedule=schedule=%s -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SCHEDULE
// SCHEDULE: parser-crash-invalid.mlir:[[@LINE+4]]:37: error: the iterator_types of linalg.generic must be strings

func.func @f(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
      iterator_types = ["parallel", 4294967296]}
      ins(%x : tensor<4xf32>) outs(%y : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
