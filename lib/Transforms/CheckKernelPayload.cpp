//===- CheckKernelPayload.cpp - Entry check of the PTX lowering -----------===//

#include "tessel/Transforms/Chips.h"
#include "tessel/Transforms/LaunchMetadata.h"
#include "tessel/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Target/LLVMIR/TypeToLLVM.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MathExtras.h"

namespace tessel {
#define GEN_PASS_DEF_TESSELCHECKKERNELPAYLOAD
#include "tessel/Transforms/Passes.h.inc"
} // namespace tessel

using namespace mlir;

namespace {

struct CheckKernelPayload
    : tessel::impl::TesselCheckKernelPayloadBase<CheckKernelPayload> {
  using Base::Base;
  void runOnOperation() override;
};

/// Returns true for ops that compute on data and so must not stay on the
/// host: the host side only launches kernels on its arguments.
static bool isHostComputation(Operation *op) {
  StringRef dialect = op->getDialect() ? op->getDialect()->getNamespace() : "";
  if (llvm::is_contained({"linalg", "scf", "vector", "tensor"}, dialect))
    return true;
  return isa<affine::AffineForOp, affine::AffineParallelOp,
             affine::AffineLoadOp, affine::AffineStoreOp, memref::CopyOp,
             memref::LoadOp, memref::StoreOp>(op);
}

/// Whether a kernel with `indexBitwidth`-bit indices can address every byte
/// of a buffer of `type` (no buffer larger than int64 holds can be).
static bool addressable(MemRefType type, unsigned indexBitwidth) {
  if (!type.hasStaticShape() || !type.getElementType().isIntOrFloat())
    return true;
  std::optional<int64_t> elements = tessel::spannedElements(type);
  if (!elements)
    return false;
  if (indexBitwidth >= 64)
    return true;
  unsigned bits = type.getElementTypeBitWidth();
  int64_t limit = (int64_t(1) << (indexBitwidth - 1)) - 1;
  return bits == 0 || *elements <= limit / llvm::divideCeil(bits, 8);
}

/// Why a kernel with `indexBitwidth`-bit indices cannot address a buffer of
/// `type` (for the error message).
static std::string unaddressable(MemRefType type, unsigned indexBitwidth) {
  std::optional<int64_t> elements = tessel::spannedElements(type);
  if (!elements)
    return "its size in bytes is beyond what a 64-bit integer holds";
  return "its " + std::to_string(*elements) +
         " elements need addresses beyond the kernels' " +
         std::to_string(indexBitwidth) + "-bit indices (use index-bitwidth=64)";
}

/// Whether `name` is a PTX identifier: a letter, `_` or `$`, then letters,
/// digits, `_` and `$` (PTX also allows a leading `%`, which MLIR symbol
/// names cannot carry into kernel names).
static bool isPtxIdentifier(StringRef name) {
  auto follows = [](char c) {
    return llvm::isAlnum(c) || c == '_' || c == '$';
  };
  return !name.empty() && !llvm::isDigit(name.front()) &&
         llvm::all_of(name, follows);
}

/// Why NVPTX cannot hold values of `type`, or "" when it can. Types nested
/// in `type` count too (an `f80` in an LLVM struct or array).
static std::string unsupportedElement(Type type) {
  std::string why;
  type.walk([&](Type inner) {
    if (auto f = dyn_cast<FloatType>(inner); f && f.getWidth() > 64)
      why = "NVPTX has no floating-point type wider than 64 bits";
    else if (auto i = dyn_cast<IntegerType>(inner); i && i.getWidth() > 64)
      why = "NVPTX has no integer type wider than 64 bits";
    return why.empty() ? WalkResult::advance() : WalkResult::interrupt();
  });
  return why;
}

/// The first operand reference of an inline assembly string that LLVM's
/// asm printer cannot substitute (it aborts on them): `$N` or `${N:mod}`
/// with N not below `numOperands`, a `$` followed by anything but a digit,
/// `{`, `$`, `(`, `|` or `)`, an unterminated `${`. Empty when there is
/// none.
static std::string badOperandReference(StringRef text, unsigned numOperands) {
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '$')
      continue;
    StringRef rest = text.drop_front(i + 1);
    if (rest.empty())
      return "a '$' at the end";
    if (StringRef("$(|)").contains(rest.front())) {
      ++i;
      continue;
    }
    StringRef number;
    if (rest.front() == '{') {
      size_t close = rest.find('}');
      if (close == StringRef::npos)
        return "an unterminated '${'";
      StringRef inner = rest.slice(1, close);
      i += close + 1;
      number = inner.split(':').first;
      if (number.empty()) // ${:uid}, ${:comment}, ${:private}
        continue;
    } else {
      number = rest.take_while(llvm::isDigit);
      i += number.size();
    }
    unsigned n;
    if (number.empty() || number.getAsInteger(10, n))
      return "'$" + rest.take_front(std::max<size_t>(number.size(), 1)).str() +
             "'";
    if (n >= numOperands)
      return "'$" + number.str() + "' (it has " + std::to_string(numOperands) +
             " operand" + (numOperands == 1 ? "" : "s") + ")";
  }
  return "";
}

/// Checks what LLVM's inline assembly support takes for granted and does
/// not verify (a mismatch crashed NVPTX instruction selection): the
/// constraints fit the operands and results (LLVM's own
/// `InlineAsm::verify`), and the string refers only to existing operands.
static LogicalResult checkInlineAsm(LLVM::InlineAsmOp op) {
  llvm::LLVMContext context;
  LLVM::TypeToLLVMIRTranslator translator(context);
  llvm::Type *result = op.getNumResults()
                           ? translator.translateType(op.getResult(0).getType())
                           : llvm::Type::getVoidTy(context);
  SmallVector<llvm::Type *> params;
  for (Type type : op.getOperandTypes())
    params.push_back(translator.translateType(type));
  auto *type = llvm::FunctionType::get(result, params, /*isVarArg=*/false);
  if (llvm::Error e = llvm::InlineAsm::verify(type, op.getConstraints()))
    return op.emitError() << "inline assembly constraints \""
                          << op.getConstraints()
                          << "\" do not fit its operands and results: "
                          << llvm::toString(std::move(e));
  unsigned numOperands =
      llvm::count_if(llvm::InlineAsm::ParseConstraints(op.getConstraints()),
                     [](const llvm::InlineAsm::ConstraintInfo &info) {
                       return info.Type != llvm::InlineAsm::isClobber &&
                              info.Type != llvm::InlineAsm::isLabel;
                     });
  if (std::string bad = badOperandReference(op.getAsmString(), numOperands);
      !bad.empty())
    return op.emitError() << "inline assembly refers to a missing operand: "
                          << bad;
  return success();
}

/// Refuses intrinsics of other targets than NVPTX (`llvm.x86.*`), which
/// NVPTX cannot select (LLVM aborted). Unknown names and wrong signatures
/// are reported by the translation to LLVM IR.
static LogicalResult checkIntrinsic(LLVM::CallIntrinsicOp op) {
  StringRef name = op.getIntrin();
  llvm::Intrinsic::ID id = llvm::Intrinsic::lookupIntrinsicID(name);
  if (id == llvm::Intrinsic::not_intrinsic ||
      !llvm::Intrinsic::isTargetIntrinsic(id) || name.starts_with("llvm.nvvm."))
    return success();
  return op.emitError() << "intrinsic '" << name
                        << "' belongs to another target than NVPTX";
}

/// The chips that have `op`, when `chip` is not one of them: "sm_80 or
/// later", "sm_90a". Empty otherwise, and for operations any chip has.
static std::string missingOnChip(Operation *op, tessel::Chip chip) {
  auto atLeast = [&](unsigned min) -> std::string {
    return chip.sm >= min ? "" : "sm_" + std::to_string(min) + " or later";
  };
  if (isa<nvgpu::DeviceAsyncCopyOp, nvgpu::DeviceAsyncCreateGroupOp,
          nvgpu::DeviceAsyncWaitOp, nvgpu::MmaSyncOp>(op))
    return atLeast(80);
  if (isa<nvgpu::LdMatrixOp>(op))
    return atLeast(75);
  if (isa<nvgpu::TmaAsyncLoadOp, nvgpu::TmaAsyncStoreOp,
          nvgpu::MBarrierArriveExpectTxOp>(op))
    return atLeast(90);
  // wgmma is sm_90a's alone (Blackwell has other tensor-core instructions).
  if (isa<nvgpu::WarpgroupMmaOp, nvgpu::WarpgroupGenerateDescriptorOp>(op))
    return chip.sm == 90 && chip.arch ? "" : "sm_90a";
  return "";
}

/// Checks what NVPTX needs of `func` and its kernels for `chip` (may be
/// empty): a PTX identifier as its name, element types it can hold, and
/// operations the chip has.
static LogicalResult checkTarget(func::FuncOp func, StringRef chip) {
  if (!isPtxIdentifier(func.getSymName()))
    return func.emitError()
           << "function name '" << func.getSymName()
           << "' is not a PTX identifier (letters, digits, '_' and '$', not "
              "starting with a digit): its kernels are named after it";
  std::optional<tessel::Chip> parsed = tessel::parseChip(chip);
  WalkResult result = func.walk([&](Operation *op) -> WalkResult {
    for (TypeRange types :
         {TypeRange(op->getOperandTypes()), TypeRange(op->getResultTypes())})
      for (Type type : types)
        if (std::string why = unsupportedElement(type); !why.empty()) {
          op->emitError() << "values of type " << type << ": " << why;
          return WalkResult::interrupt();
        }
    // Types held by attributes: an alloca's element type, a global's.
    std::string why;
    op->getAttrDictionary().walk([&](Type type) {
      why = unsupportedElement(type);
      if (!why.empty())
        op->emitError() << "type " << type << " in '" << op->getName()
                        << "': " << why;
      return why.empty() ? WalkResult::advance() : WalkResult::interrupt();
    });
    if (!why.empty())
      return WalkResult::interrupt();
    if (auto inlineAsm = dyn_cast<LLVM::InlineAsmOp>(op);
        inlineAsm && failed(checkInlineAsm(inlineAsm)))
      return WalkResult::interrupt();
    if (auto call = dyn_cast<LLVM::CallIntrinsicOp>(op);
        call && failed(checkIntrinsic(call)))
      return WalkResult::interrupt();
    if (!parsed)
      return WalkResult::advance();
    if (std::string needs = missingOnChip(op, *parsed); !needs.empty()) {
      op->emitError() << "'" << op->getName() << "' needs " << needs
                      << "; the chip is " << chip
                      << " (choose a schedule for it, or another chip=)";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// The most a thread's vector value may hold before the kernel warns: four
/// times the 255 32-bit registers a thread can have.
constexpr int64_t kMaxThreadVectorBits = 4 * 255 * 32;

/// Warns at the first vector value of `launch` larger than a thread's
/// registers: it is unrolled into one scalar operation per element and
/// spilled to local memory, and compiling it takes long (a schedule that
/// left K untiled gave each thread a vector<4x4096xf32>: 22 s, 4 MB of
/// PTX). Vectors are per thread in a launch body; warpgroup accumulators
/// are nvgpu types, distributed over their 128 threads, and not counted.
static void warnAboutLargeVectors(gpu::LaunchOp launch) {
  launch.walk([&](Operation *op) {
    for (Type type : op->getResultTypes()) {
      auto vector = dyn_cast<VectorType>(type);
      if (!vector || vector.isScalable() ||
          !vector.getElementType().isIntOrFloat())
        continue;
      int64_t bits = vector.getNumElements() *
                     vector.getElementType().getIntOrFloatBitWidth();
      if (bits <= kMaxThreadVectorBits)
        continue;
      op->emitWarning()
          << "each thread holds a " << type << " ("
          << llvm::divideCeil(bits, 32)
          << " 32-bit registers; a thread has at most 255): it is unrolled "
             "into one operation per element and spilled to local memory, "
             "and compiling it takes long. Does the schedule tile every "
             "loop to what one thread computes, the reduction (K) included?";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
}

/// Checks one host function; reports the first problem found.
static LogicalResult checkFunction(func::FuncOp func, unsigned indexBitwidth) {
  for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
    if (auto memref = dyn_cast<MemRefType>(type);
        memref && !addressable(memref, indexBitwidth))
      return func.emitError() << "argument #" << i << " of '"
                              << func.getSymName() << "' has type " << type
                              << ": " << unaddressable(memref, indexBitwidth);
    if (isa<TensorType>(type))
      return func.emitError()
             << "function '" << func.getSymName()
             << "' still has tensor arguments: apply a schedule that "
                "bufferizes (e.g. --tessel-apply-schedule) before lowering";
    auto memref = dyn_cast<MemRefType>(type);
    if (memref && !memref.hasStaticShape())
      return func.emitError()
             << "argument #" << i << " of '" << func.getSymName()
             << "' has type " << type << ": dynamic shapes are not supported";
  }

  WalkResult result = func.walk<WalkOrder::PreOrder>([&](Operation *op)
                                                         -> WalkResult {
    if (auto launch = dyn_cast<gpu::LaunchOp>(op)) {
      warnAboutLargeVectors(launch);
      WalkResult inner = launch.walk([&](memref::AllocOp alloc) {
        // Workgroup memory becomes the launch's shared memory.
        if (gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(alloc.getType()))
          return WalkResult::advance();
        alloc.emitError() << "memref.alloc inside a GPU kernel would become a "
                             "device malloc: keep the value in registers or "
                             "use memref.alloca / workgroup memory";
        return WalkResult::interrupt();
      });
      return inner.wasInterrupted() ? WalkResult::interrupt()
                                    : WalkResult::skip();
    }
    // Buffers the host function makes (workspaces: gpu.alloc, and views of
    // them) are addressed by the kernels too.
    for (Type type : op->getResultTypes())
      if (auto memref = dyn_cast<MemRefType>(type);
          memref && !addressable(memref, indexBitwidth)) {
        op->emitError() << "'" << op->getName() << "' makes a buffer of type "
                        << type << ": " << unaddressable(memref, indexBitwidth);
        return WalkResult::interrupt();
      }
    if (llvm::any_of(op->getResultTypes(), llvm::IsaPred<TensorType>)) {
      op->emitError() << "tensor computation left outside a GPU kernel: the "
                         "schedule must bufferize and map all work to "
                         "gpu.launch";
      return WalkResult::interrupt();
    }
    if (isHostComputation(op)) {
      op->emitError() << "computation left on the host: the schedule must map "
                         "all work into gpu.launch";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// The chip to compile `module` for: `chip`, else the one its functions'
/// schedules were written for, else `defaultChip`. Fails, at the function,
/// when a schedule's kernels do not run on it.
static FailureOr<std::string> resolveChip(ModuleOp module, StringRef chip,
                                          StringRef defaultChip) {
  std::string resolved = chip.str();
  func::FuncOp targetSetter;
  for (auto func : module.getOps<func::FuncOp>()) {
    tessel::ChipRequirement need = tessel::ChipRequirement::ofRecord(
        func->getAttrOfType<DictionaryAttr>(tessel::kScheduleAttrName));
    if (!chip.empty() || need.target.empty())
      continue;
    if (resolved.empty()) {
      resolved = need.target;
      targetSetter = func;
    } else if (resolved != need.target) {
      // At the function's location, without printing the whole function.
      return emitError(func.getLoc())
             << "function '" << func.getSymName() << "' was scheduled for "
             << need.target << ", function '" << targetSetter.getSymName()
             << "' for " << resolved
             << ": compile them separately, or choose a chip= both run on";
    }
  }
  if (resolved.empty())
    resolved = defaultChip.str();
  if (resolved.empty())
    return resolved;
  if (!tessel::minimumPtxVersion(resolved))
    return module.emitError()
           << "chip '" << resolved
           << "' is not a chip Tessel compiles for (sm_70 ... sm_120a)";
  for (auto func : module.getOps<func::FuncOp>()) {
    auto record =
        func->getAttrOfType<DictionaryAttr>(tessel::kScheduleAttrName);
    tessel::ChipRequirement need = tessel::ChipRequirement::ofRecord(record);
    if (std::string why = need.mismatch(resolved); !why.empty()) {
      auto path = record ? record.getAs<StringAttr>("path") : StringAttr();
      InFlightDiagnostic diag = emitError(func.getLoc());
      diag << "function '" << func.getSymName() << "' was scheduled with '"
           << (path ? path.getValue() : StringRef("?"))
           << "', whose kernels cannot be compiled for " << resolved
           << ": the schedule " << why;
      if (!need.target.empty())
        diag << "; pass chip=" << need.target << " or leave chip unset";
      if (need.target == "sm_90a")
        diag << " (sm_90a code runs on sm_90 GPUs such as the H100)";
      return failure();
    }
  }
  return resolved;
}

} // namespace

void CheckKernelPayload::runOnOperation() {
  ModuleOp module = getOperation();
  FailureOr<std::string> target = resolveChip(module, chip, defaultChip);
  if (failed(target))
    return signalPassFailure();
  if (!target->empty())
    module->setAttr(tessel::kChipAttrName,
                    StringAttr::get(module.getContext(), *target));
  bool hasLaunch = false;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    if (failed(checkFunction(func, indexBitwidth)) ||
        failed(checkTarget(func, *target)))
      return signalPassFailure();
    func.walk([&](Operation *op) {
      hasLaunch |= isa<gpu::LaunchOp, gpu::LaunchFuncOp>(op);
    });
  }
  if (!hasLaunch) {
    module.emitError() << "no gpu.launch in the module: nothing to compile to "
                          "PTX (was a schedule applied?)";
    return signalPassFailure();
  }
}
