//===- LowerTensorMapParams.cpp - Tensor maps as grid-constant params -----===//

#include "tessel/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/BuiltinOps.h"

namespace tessel {
#define GEN_PASS_DEF_TESSELLOWERTENSORMAPPARAMS
#include "tessel/Transforms/Passes.h.inc"
} // namespace tessel

using namespace mlir;

/// Lists a kernel's tensor map arguments until it is an llvm.func:
/// convert-gpu-to-nvvm keeps function attributes but not argument
/// attributes like llvm.byval, and NVVM accepts nvvm.grid_constant only on
/// an llvm.func kernel.
static constexpr llvm::StringLiteral kTensorMapArgsAttr =
    "tessel.tensor_map_args";
/// The kernel's argument count when the list was made: argument numbers
/// only carry over when convert-gpu-to-nvvm keeps one argument per memref
/// (the bare-pointer calling convention).
static constexpr llvm::StringLiteral kNumArgsAttr = "tessel.num_args";

/// Size and alignment of a CUtensorMap.
static constexpr int64_t kTensorMapBytes = 128, kTensorMapAlign = 64;

namespace {

struct LowerTensorMapParams
    : tessel::impl::TesselLowerTensorMapParamsBase<LowerTensorMapParams> {
  void runOnOperation() override;
};

} // namespace

/// Retypes a gpu.func kernel's tensor map arguments to !llvm.ptr and lists
/// them in kTensorMapArgsAttr.
static LogicalResult lowerKernel(gpu::GPUFuncOp func) {
  MLIRContext *ctx = func.getContext();
  auto ptrType = LLVM::LLVMPointerType::get(ctx);
  SmallVector<Type> argTypes(func.getArgumentTypes());
  SmallVector<int32_t> maps;
  for (BlockArgument arg : func.getArguments()) {
    if (!isa<nvgpu::TensorMapDescriptorType>(arg.getType()))
      continue;
    for (Operation *user : llvm::make_early_inc_range(arg.getUsers())) {
      auto cast = dyn_cast<UnrealizedConversionCastOp>(user);
      if (!cast || cast->getNumOperands() != 1 ||
          cast->getResultTypes() != TypeRange{ptrType})
        return user->emitError()
               << "tensor map argument #" << arg.getArgNumber()
               << " of kernel '" << func.getName()
               << "' is used by an op that is not lowered to LLVM; run "
                  "convert-nvgpu-to-nvvm first";
      cast.getResult(0).replaceAllUsesWith(arg);
      cast.erase();
    }
    arg.setType(ptrType);
    argTypes[arg.getArgNumber()] = ptrType;
    maps.push_back(arg.getArgNumber());
  }
  if (maps.empty())
    return success();
  func.setFunctionType(FunctionType::get(ctx, argTypes, {}));
  func->setAttr(kTensorMapArgsAttr, DenseI32ArrayAttr::get(ctx, maps));
  func->setAttr(kNumArgsAttr,
                IntegerAttr::get(IntegerType::get(ctx, 32),
                                 func.getNumArguments()));
  return success();
}

/// Makes the listed arguments of a converted kernel 128-byte byval,
/// grid-constant parameters.
static LogicalResult markGridConstants(LLVM::LLVMFuncOp func) {
  auto maps = func->getAttrOfType<DenseI32ArrayAttr>(kTensorMapArgsAttr);
  if (!maps)
    return success();
  auto numArgs = func->getAttrOfType<IntegerAttr>(kNumArgsAttr);
  if (!numArgs || numArgs.getInt() != func.getNumArguments())
    return func.emitError()
           << "kernel '" << func.getName()
           << "' has tensor map arguments but its arguments changed in "
              "number when it became an llvm.func; convert it with the "
              "bare-pointer calling convention "
              "(use-bare-ptr-memref-call-conv)";
  Builder b(func.getContext());
  for (int32_t i : maps.asArrayRef()) {
    func.setArgAttr(i, LLVM::LLVMDialect::getByValAttrName(),
                    TypeAttr::get(LLVM::LLVMArrayType::get(b.getI8Type(),
                                                           kTensorMapBytes)));
    func.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                    b.getI64IntegerAttr(kTensorMapAlign));
    func.setArgAttr(i, NVVM::NVVMDialect::getGridConstantAttrName(),
                    b.getUnitAttr());
  }
  func->removeAttr(kTensorMapArgsAttr);
  func->removeAttr(kNumArgsAttr);
  return success();
}

void LowerTensorMapParams::runOnOperation() {
  for (Operation &op : getOperation().getBody()->getOperations()) {
    if (auto func = dyn_cast<gpu::GPUFuncOp>(op)) {
      if (func.isKernel() && failed(lowerKernel(func)))
        return signalPassFailure();
    } else if (auto func = dyn_cast<LLVM::LLVMFuncOp>(op)) {
      if (func->hasAttr(NVVM::NVVMDialect::getKernelFuncAttrName()) &&
          failed(markGridConstants(func)))
        return signalPassFailure();
    }
  }
}
