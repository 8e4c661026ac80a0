//===- InitTessel.h - Everything a Tessel tool registers --------*- C++ -*-===//
//
// One registration function for every tool and test, so that tessel-opt,
// the tuner and the tests always agree on what exists.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_INITTESSEL_H
#define TESSEL_INITTESSEL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace tessel {

/// Adds every upstream dialect and extension (as mlir-opt does) plus
/// Tessel's transform ops to `registry`.
void registerAllDialects(mlir::DialectRegistry &registry);

/// Registers every upstream pass and pipeline (as mlir-opt does) plus
/// Tessel's passes and pipelines. Call once per process.
void registerAllPasses();

} // namespace tessel

#endif // TESSEL_INITTESSEL_H
