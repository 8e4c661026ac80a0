//===- Passes.h - Tessel passes ---------------------------------*- C++ -*-===//

#ifndef TESSEL_TRANSFORMS_PASSES_H
#define TESSEL_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace tessel {

#define GEN_PASS_DECL
#include "tessel/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tessel/Transforms/Passes.h.inc"

} // namespace tessel

#endif // TESSEL_TRANSFORMS_PASSES_H
