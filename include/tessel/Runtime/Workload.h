//===- Workload.h - What a host function computes, as data ------*- C++ -*-===//
//
// A recognized workload is a contraction `acc[batch..., m, n] = sum_k A * B`
// (each operand in either layout) followed by an elementwise epilogue: a
// small program over the accumulator and further arguments read through
// some of the output's dimensions (a bias over columns, a residual). The
// compiler writes it into the `tessel.workload` attribute and the launch
// file; the runtime's reference check evaluates it in f64; the tuner keys
// its records by it. No MLIR dependency here.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_WORKLOAD_H
#define TESSEL_RUNTIME_WORKLOAD_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <string>
#include <vector>

namespace tessel {

/// One host-function argument: a statically shaped, row-major buffer.
struct BufferSpec {
  std::string elementType; // "f32", "f16", "bf16", "i32", ...
  std::vector<int64_t> shape;
  /// A workspace the runtime zeroes before the function's launches (a
  /// gpu.memset of it to 0 in the host function: stream-K's flags).
  bool zeroed = false;
  /// A zeroed workspace the launches leave zero (each flag is cleared by
  /// the block that reads it): the runtime keeps it across calls on one
  /// stream and zeroes it once, when it allocates it.
  bool leftZeroed = false;

  int64_t numElements() const;
  /// Size of one element in bytes, 0 for an unknown element type.
  int64_t elementBytes() const;
};

/// An argument the epilogue reads at each output element, through some of
/// the output's dimensions.
struct EpilogueOperandSpec {
  unsigned argument = 0;
  /// The output dimension of each of the argument's dimensions, in order:
  /// "b0", "b1", ... (batch), "m", "n". {"n"} is a bias broadcast over
  /// rows; {"m", "n"} a full-size residual.
  std::vector<std::string> dims;
};

/// One step of the epilogue program. Values are numbered: 0 is the
/// contraction's result, 1..P the P epilogue operands' elements, then one
/// per step; the last value is the output. Written as text, "addf 0 1",
/// "constant 0.5".
struct EpilogueStep {
  /// An arith or math op without its dialect ("addf", "maximumf", "erf",
  /// "tanh", "select", ...), "cmpf_<predicate>" (1.0 or 0.0), or
  /// "constant". Conversions (truncf, extf) are not steps: the reference
  /// computes in f64 and the output's type rounds once.
  std::string op;
  std::vector<unsigned> args;
  double constant = 0; // op == "constant"

  std::string str() const;
  /// Reads "op arg..." or "constant <number>"; the error says why not.
  static llvm::Expected<EpilogueStep> parse(llvm::StringRef text);
};

/// The number of operands `op` takes, or nullopt for an op the epilogue
/// does not know.
std::optional<unsigned> epilogueArity(llvm::StringRef op);

struct WorkloadSpec {
  std::string kind = "contraction";
  unsigned lhs = 0, rhs = 1, out = 2;
  /// Leading batch dimensions, shared by every operand.
  std::vector<int64_t> batch;
  int64_t m = 0, n = 0, k = 0;
  /// A is stored [m, k] or, transposed, [k, m]; B [k, n] or [n, k] (a
  /// Linear layer's weight).
  bool lhsTransposed = false, rhsTransposed = false;
  std::string accumulatorType; // "f32"
  /// How f32 inputs may be multiplied: empty for FP32-level accuracy,
  /// "tf32" where TF32 products are allowed (the payload function's
  /// tessel.allow_tf32). The reference check's tolerance follows it.
  std::string precision;
  std::vector<EpilogueOperandSpec> operands;
  /// Empty: the output is the accumulator.
  std::vector<EpilogueStep> epilogue;

  /// The product of the batch dimensions (1 without any).
  int64_t batchCount() const;
  /// 2 * batch * m * n * k.
  double flops() const;
  std::vector<int64_t> lhsShape() const;
  std::vector<int64_t> rhsShape() const;
  std::vector<int64_t> outShape() const;
  /// The position in the output ([batch..., m, n]) of the dimension named
  /// "b<i>", "m" or "n"; nullopt for any other name.
  std::optional<unsigned> outputDim(llvm::StringRef name) const;
  /// The size of each output dimension `dims` names; nullopt for a name
  /// that is none of them.
  std::optional<std::vector<int64_t>>
  dimSizes(llvm::ArrayRef<std::string> dims) const;

  /// "A[m,k] B[n,k]": the operands' layout (batch dimensions left out).
  std::string layoutName() const;
  /// The tuning-database key: "matmul_relu 4096x4096x4096 f16->f16
  /// acc=f32" for relu(A x B) in the plain layout, as records have always
  /// been keyed; otherwise "matmul MxNxK in->out acc=T" followed, where
  /// they differ from a plain matmul, by "rhs=T", "batch=BxB",
  /// "layout=A[k,m],B[n,k]", "operands=f16[n]" (the epilogue operands'
  /// types and dimensions) and "epilogue=addf 0 1;constant 0;maximumf 2 3".
  std::string key(llvm::ArrayRef<BufferSpec> arguments) const;
};

/// Evaluates a workload's epilogue in f64, one output element at a time.
/// Not shared between threads: it keeps its values between calls.
class EpilogueEvaluator {
public:
  explicit EpilogueEvaluator(const WorkloadSpec &w);
  /// The output at one element; `operandValues[i]` is epilogue operand i's
  /// element there.
  double operator()(double accumulator, llvm::ArrayRef<double> operandValues);

private:
  struct Step {
    int code;
    unsigned args[3];
    double constant;
  };
  std::vector<Step> steps;
  std::vector<double> values;
};

/// Checks a workload against the function's arguments: indices, shapes
/// for each layout and batch, element types the reference knows, each
/// step's op and values. The error names the field, to follow "workload"
/// ("has kind 'conv'; ...").
llvm::Error validateWorkload(const WorkloadSpec &w,
                             llvm::ArrayRef<BufferSpec> arguments);

llvm::json::Value toJSON(const WorkloadSpec &w);
bool fromJSON(const llvm::json::Value &value, WorkloadSpec &w,
              llvm::json::Path path);
bool fromJSON(const llvm::json::Value &value, BufferSpec &spec,
              llvm::json::Path path);

/// Reads an index (an argument's, a workspace's, a result's) as an integer
/// in [0, 2^32): llvm::json reads an `unsigned` by truncating, so
/// 4294967296 would be argument #0.
bool readJsonIndex(const llvm::json::Value &value, unsigned &index,
                   llvm::json::Path path);
/// Maps the index field `name` of `o` into `index` (readJsonIndex).
bool mapJsonIndex(llvm::json::ObjectMapper &o, llvm::StringLiteral name,
                  unsigned &index);

} // namespace tessel

#endif // TESSEL_RUNTIME_WORKLOAD_H
