//===- FuseEpilogues.cpp - One epilogue generic per contraction -----------===//

#include "tessel/Transforms/FuseEpilogues.h"

#include "tessel/Analysis/Contraction.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

/// An elementwise generic on tensors: every loop parallel.
static bool isElementwiseGeneric(Operation *op) {
  auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
  return generic && generic.hasPureTensorSemantics() &&
         generic.getNumLoops() == generic.getNumParallelLoops();
}

/// An operand of an elementwise generic whose producer is another one,
/// used by nothing else and fusable into it.
static OpOperand *findFusableOperand(linalg::GenericOp consumer) {
  for (OpOperand *input : consumer.getDpsInputOperands()) {
    Operation *producer = input->get().getDefiningOp();
    if (isElementwiseGeneric(producer) && producer->hasOneUse() &&
        linalg::areElementwiseOpsFusable(input))
      return input;
  }
  return nullptr;
}

unsigned tessel::fuseEpilogueChains(ModuleOp module) {
  IRRewriter rewriter(module.getContext());
  unsigned fusions = 0;
  bool changed = true;
  while (changed) {
    changed = false;
    SmallVector<linalg::GenericOp> consumers;
    module.walk([&](linalg::GenericOp op) {
      if (isElementwiseGeneric(op))
        consumers.push_back(op);
    });
    for (linalg::GenericOp consumer : consumers) {
      OpOperand *operand = findFusableOperand(consumer);
      if (!operand)
        continue;
      Operation *producer = operand->get().getDefiningOp();
      // The empty destinations the fused op may no longer write.
      llvm::SetVector<Operation *> empties;
      for (Operation *op : {producer, consumer.getOperation()})
        for (Value operand : op->getOperands())
          if (auto empty = operand.getDefiningOp<tensor::EmptyOp>())
            empties.insert(empty);
      rewriter.setInsertionPoint(consumer);
      FailureOr<linalg::ElementwiseOpFusionResult> fused =
          linalg::fuseElementwiseOps(rewriter, operand);
      if (failed(fused))
        continue;
      for (auto [original, replacement] : fused->replacements)
        rewriter.replaceUsesWithIf(original, replacement, [&](OpOperand &use) {
          return use.getOwner() != fused->fusedOp;
        });
      if (consumer->use_empty())
        rewriter.eraseOp(consumer);
      if (producer->use_empty())
        rewriter.eraseOp(producer);
      for (Operation *empty : empties)
        if (empty->use_empty())
          rewriter.eraseOp(empty);
      ++fusions;
      changed = true;
      break; // The walk's list holds erased ops now: collect again.
    }
  }
  return fusions;
}

unsigned tessel::addEpilogues(ModuleOp module) {
  SmallVector<Contraction> bare;
  module.walk([&](linalg::LinalgOp op) {
    std::string why;
    FailureOr<Contraction> c = inferContraction(op, why);
    if (failed(c) || !op.hasPureTensorSemantics() ||
        !isa<FloatType>(c->accElementType) ||
        !c->acc.getDefiningOp<linalg::FillOp>())
      return;
    Value result = op->getResult(0);
    if (!result.use_empty() &&
        llvm::all_of(result.getUsers(), llvm::IsaPred<func::ReturnOp>))
      bare.push_back(*c);
  });
  IRRewriter rewriter(module.getContext());
  for (Contraction &c : bare) {
    auto fill = c.acc.getDefiningOp<linalg::FillOp>();
    auto type = cast<RankedTensorType>(c.acc.getType());
    Location loc = c.op->getLoc();
    Value dest = fill.getDpsInitOperand(0)->get();
    // The contraction accumulates into a fresh, zeroed tensor ...
    rewriter.setInsertionPoint(fill);
    Value empty = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                          type.getElementType());
    Value acc = linalg::FillOp::create(rewriter, loc, fill.getDpsInputs(),
                                       ValueRange{empty})
                    .getResult(0);
    rewriter.modifyOpInPlace(
        c.op, [&] { c.op.getDpsInitOperand(0)->set(acc); });
    // ... and the epilogue writes acc + 0.0 where it accumulated before.
    rewriter.setInsertionPointAfter(c.op);
    Value result = c.op->getResult(0);
    AffineMap identity = rewriter.getMultiDimIdentityMap(type.getRank());
    auto epilogue = linalg::GenericOp::create(
        rewriter, loc, TypeRange{dest.getType()}, ValueRange{result},
        ValueRange{dest}, ArrayRef<AffineMap>{identity, identity},
        SmallVector<utils::IteratorType>(type.getRank(),
                                         utils::IteratorType::parallel),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          Value zero = arith::ConstantOp::create(
              b, loc, b.getZeroAttr(type.getElementType()));
          linalg::YieldOp::create(
              b, loc, ValueRange{arith::AddFOp::create(b, loc, args[0], zero)});
        });
    rewriter.replaceAllUsesExcept(result, epilogue.getResult(0), epilogue);
    if (fill->use_empty())
      rewriter.eraseOp(fill);
  }
  return bare.size();
}
