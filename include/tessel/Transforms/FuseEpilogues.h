//===- FuseEpilogues.h - One epilogue generic per contraction ---*- C++ -*-===//
//
// The schedules tile one elementwise linalg.generic after the contraction
// (the epilogue). Front ends often write a chain instead: a bias add, then
// an activation, then a conversion, each its own generic. This fuses such
// chains into one generic with upstream's elementwise fusion, before a
// schedule runs, and gives a contraction that has no epilogue one.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_TRANSFORMS_FUSEEPILOGUES_H
#define TESSEL_TRANSFORMS_FUSEEPILOGUES_H

#include "mlir/IR/BuiltinOps.h"

namespace tessel {

/// Fuses every elementwise linalg.generic (on tensors, all loops parallel)
/// into its elementwise generic consumer where it has no other user and
/// linalg::areElementwiseOpsFusable allows it (linalg::fuseElementwiseOps),
/// until none is left: a chain of such generics becomes one, whose body
/// computes the chain's steps in order and which writes the last one's
/// destination. Contractions, fills and generics with other users are left
/// as they are. Returns the number of fusions.
unsigned fuseEpilogueChains(mlir::ModuleOp module);

/// Gives every contraction (tessel::inferContraction) on tensors with a
/// float accumulator that accumulates straight into a function's result (its accumulator a
/// linalg.fill, its result used only by the return) an epilogue: the
/// contraction accumulates into a fresh tensor, and an elementwise generic
/// writes `acc + 0.0` into the fill's destination. Adding +0.0 is exact
/// (the accumulator starts at +0.0, so no sum is -0.0), and unlike an
/// identity generic, which canonicalization erases while a schedule holds
/// handles to it, it stays. Run after the workload is recognized: the
/// workload still has no epilogue. Returns the number of epilogues added.
unsigned addEpilogues(mlir::ModuleOp module);

} // namespace tessel

#endif // TESSEL_TRANSFORMS_FUSEEPILOGUES_H
