//===- CandidateBuilder.h - Compile a schedule's candidates -----*- C++ -*-===//
//
// One candidate's kernels: the schedule applied to the payload with the
// candidate's knobs, lowered to PTX and exported (launch spec and images), in
// its own MLIRContext so that candidates compile on several threads. Where
// ptxas is available, each image is assembled for the chip (its register and
// spill counts recorded; a kernel that spills is measured too), and the launch
// spec points at the cubin, so the measurement loads it without a JIT.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_TUNING_CANDIDATEBUILDER_H
#define TESSEL_TUNING_CANDIDATEBUILDER_H

#include "tessel/Tuning/Database.h"

#include "mlir/IR/BuiltinOps.h"

#include <map>
#include <string>
#include <vector>

namespace tessel {

struct BuildOptions {
  std::string schedule, entry = "__transform_main";
  std::string chip, features; // The target, as tessel-lower-to-ptx takes it.
  std::string ptxas;          // Path; empty: none.
  std::string workDir;        // Each candidate gets a directory below.
  /// Test hook: (knob=value, kind) pairs; the PTX of matching candidates is
  /// corrupted (kind: hang, illegal-address, wrong) before it is assembled.
  std::vector<std::pair<std::string, std::string>> faults;
};

class CandidateBuilder {
public:
  CandidateBuilder(mlir::ModuleOp payload, BuildOptions options);

  /// Compiles the candidate with knob values `knobs` into
  /// `<workDir>/trial<id>`; returns its launch spec's path, or "" after
  /// setting the record's status (compile-error) and error. Sets
  /// compileMs, registers and spillBytes. Thread-safe.
  std::string build(const std::map<std::string, std::string> &knobs,
                    unsigned id, TuningRecord &record) const;

private:
  /// Assembles the images of `dir` with ptxas and points `specPath` at the
  /// cubins; false after setting the record's status.
  bool assemble(llvm::StringRef dir, llvm::StringRef specPath,
                TuningRecord &record) const;

  mlir::MLIRContext *context; // The payload's: its dialect registry.
  std::string payloadText;
  BuildOptions options;
};

} // namespace tessel

#endif // TESSEL_TUNING_CANDIDATEBUILDER_H
