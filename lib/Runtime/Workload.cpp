//===- Workload.cpp - What a host function computes, as data --------------===//

#include "tessel/Runtime/Workload.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <charconv>
#include <cmath>
#include <set>

using namespace tessel;
using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

int64_t BufferSpec::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

int64_t BufferSpec::elementBytes() const {
  return llvm::StringSwitch<int64_t>(elementType)
      .Cases({"f64", "i64"}, 8)
      .Cases({"f32", "i32"}, 4)
      .Cases({"f16", "bf16", "i16"}, 2)
      .Case("i8", 1)
      .Default(0);
}

//===----------------------------------------------------------------------===//
// Epilogue steps
//===----------------------------------------------------------------------===//

/// The comparison predicates of arith.cmpf the epilogue evaluates.
static constexpr llvm::StringLiteral kPredicates[] = {
    "oeq", "ogt", "oge", "olt", "ole", "one", "ord",
    "ueq", "ugt", "uge", "ult", "ule", "une", "uno"};

/// The shortest decimal text that reads back as `value` ("0.5", "-0", "1e-05").
static std::string shortest(double value) {
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, end);
}

std::string EpilogueStep::str() const {
  if (op == "constant")
    return "constant " + shortest(constant);
  std::string text = op;
  for (unsigned arg : args)
    text += " " + std::to_string(arg);
  return text;
}

llvm::Expected<EpilogueStep> EpilogueStep::parse(llvm::StringRef text) {
  auto fail = [&](const llvm::Twine &why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "epilogue step '" + text + "' " + why);
  };
  llvm::SmallVector<llvm::StringRef> words;
  text.split(words, ' ', -1, /*KeepEmpty=*/false);
  if (words.empty())
    return fail("is empty");
  EpilogueStep step;
  step.op = words.front().str();
  std::optional<unsigned> arity = epilogueArity(step.op);
  if (!arity)
    return fail("has an op the epilogue does not know");
  if (step.op == "constant") {
    if (words.size() != 2 || words[1].getAsDouble(step.constant))
      return fail("needs one number");
    return step;
  }
  if (words.size() != *arity + 1)
    return fail("needs " + llvm::Twine(*arity) + " operands");
  for (llvm::StringRef word : llvm::drop_begin(words)) {
    unsigned arg;
    if (word.getAsInteger(10, arg))
      return fail("has an operand that is not a value number");
    step.args.push_back(arg);
  }
  return step;
}

namespace {
/// What the evaluator switches on.
enum Code {
  Constant,
  NegF,
  AbsF,
  Exp,
  Exp2,
  ExpM1,
  Log,
  Log1p,
  Log2,
  Erf,
  Tanh,
  Sqrt,
  Rsqrt,
  Floor,
  Ceil,
  AddF,
  SubF,
  MulF,
  DivF,
  RemF,
  MaximumF,
  MinimumF,
  MaxNumF,
  MinNumF,
  PowF,
  CopySign,
  Select,
  Fma,
  CmpF, // + predicate index
};

/// An op the epilogue knows: its name in steps, code and operand count.
struct OpInfo {
  llvm::StringLiteral name;
  Code code;
  unsigned arity;
};
} // namespace

/// Every op but cmpf, whose predicates are kPredicates.
static constexpr OpInfo kOps[] = {
    {"constant", Constant, 0}, {"negf", NegF, 1},
    {"absf", AbsF, 1},         {"exp", Exp, 1},
    {"exp2", Exp2, 1},         {"expm1", ExpM1, 1},
    {"log", Log, 1},           {"log1p", Log1p, 1},
    {"log2", Log2, 1},         {"erf", Erf, 1},
    {"tanh", Tanh, 1},         {"sqrt", Sqrt, 1},
    {"rsqrt", Rsqrt, 1},       {"floor", Floor, 1},
    {"ceil", Ceil, 1},         {"addf", AddF, 2},
    {"subf", SubF, 2},         {"mulf", MulF, 2},
    {"divf", DivF, 2},         {"remf", RemF, 2},
    {"maximumf", MaximumF, 2}, {"minimumf", MinimumF, 2},
    {"maxnumf", MaxNumF, 2},   {"minnumf", MinNumF, 2},
    {"powf", PowF, 2},         {"copysign", CopySign, 2},
    {"select", Select, 3},     {"fma", Fma, 3},
};

/// The code and arity of a step's op; nullopt for an unknown op.
static std::optional<std::pair<int, unsigned>> lookUp(llvm::StringRef op) {
  if (op.consume_front("cmpf_")) {
    const llvm::StringLiteral *p = llvm::find(kPredicates, op);
    if (p == std::end(kPredicates))
      return std::nullopt;
    return std::make_pair(int(CmpF + (p - std::begin(kPredicates))), 2u);
  }
  const OpInfo *info =
      llvm::find_if(kOps, [&](const OpInfo &i) { return i.name == op; });
  if (info == std::end(kOps))
    return std::nullopt;
  return std::make_pair(int(info->code), info->arity);
}

std::optional<unsigned> tessel::epilogueArity(llvm::StringRef op) {
  if (std::optional<std::pair<int, unsigned>> found = lookUp(op))
    return found->second;
  return std::nullopt;
}

/// arith.cmpf's predicate `kPredicates[p]` on `a` and `b`.
static bool compare(unsigned p, double a, double b) {
  llvm::StringRef name = kPredicates[p];
  bool unordered = std::isnan(a) || std::isnan(b);
  if (name == "ord" || name == "uno")
    return (name == "uno") == unordered;
  if (unordered)
    return name.front() == 'u';
  return llvm::StringSwitch<bool>(name.drop_front())
      .Case("eq", a == b)
      .Case("gt", a > b)
      .Case("ge", a >= b)
      .Case("lt", a < b)
      .Case("le", a <= b)
      .Default(a != b); // "ne"
}

EpilogueEvaluator::EpilogueEvaluator(const WorkloadSpec &w) {
  values.assign(1 + w.operands.size() + w.epilogue.size(), 0.0);
  for (const EpilogueStep &step : w.epilogue) {
    // Steps were validated: their ops are known.
    Step s{lookUp(step.op)->first, {0, 0, 0}, step.constant};
    llvm::copy(step.args, s.args);
    steps.push_back(s);
  }
}

double EpilogueEvaluator::operator()(double accumulator,
                                     llvm::ArrayRef<double> operandValues) {
  if (steps.empty())
    return accumulator;
  values[0] = accumulator;
  llvm::copy(operandValues, values.begin() + 1);
  size_t next = 1 + operandValues.size();
  for (const Step &s : steps) {
    double a = values[s.args[0]], b = values[s.args[1]], c = values[s.args[2]];
    // maximumf and minimumf propagate NaN; maxnumf and minnumf drop it.
    bool nan = std::isnan(a) || std::isnan(b);
    double r;
    switch (s.code) {
    case Constant:
      r = s.constant;
      break;
    case NegF:
      r = -a;
      break;
    case AbsF:
      r = std::fabs(a);
      break;
    case Exp:
      r = std::exp(a);
      break;
    case Exp2:
      r = std::exp2(a);
      break;
    case ExpM1:
      r = std::expm1(a);
      break;
    case Log:
      r = std::log(a);
      break;
    case Log1p:
      r = std::log1p(a);
      break;
    case Log2:
      r = std::log2(a);
      break;
    case Erf:
      r = std::erf(a);
      break;
    case Tanh:
      r = std::tanh(a);
      break;
    case Sqrt:
      r = std::sqrt(a);
      break;
    case Rsqrt:
      r = 1.0 / std::sqrt(a);
      break;
    case Floor:
      r = std::floor(a);
      break;
    case Ceil:
      r = std::ceil(a);
      break;
    case AddF:
      r = a + b;
      break;
    case SubF:
      r = a - b;
      break;
    case MulF:
      r = a * b;
      break;
    case DivF:
      r = a / b;
      break;
    case RemF:
      r = std::fmod(a, b);
      break;
    case MaximumF:
      r = nan ? NAN : std::fmax(a, b);
      break;
    case MinimumF:
      r = nan ? NAN : std::fmin(a, b);
      break;
    case MaxNumF:
      r = std::fmax(a, b);
      break;
    case MinNumF:
      r = std::fmin(a, b);
      break;
    case PowF:
      r = std::pow(a, b);
      break;
    case CopySign:
      r = std::copysign(a, b);
      break;
    case Select:
      r = a != 0 ? b : c;
      break;
    case Fma:
      r = a * b + c;
      break;
    default:
      r = compare(s.code - CmpF, a, b);
      break;
    }
    values[next++] = r;
  }
  return values[next - 1];
}

//===----------------------------------------------------------------------===//
// WorkloadSpec
//===----------------------------------------------------------------------===//

int64_t WorkloadSpec::batchCount() const {
  int64_t count = 1;
  for (int64_t b : batch)
    count *= b;
  return count;
}

double WorkloadSpec::flops() const {
  return 2.0 * double(batchCount()) * double(m) * double(n) * double(k);
}

static std::vector<int64_t> withBatch(const std::vector<int64_t> &batch,
                                      int64_t rows, int64_t cols) {
  std::vector<int64_t> shape = batch;
  shape.push_back(rows);
  shape.push_back(cols);
  return shape;
}

std::vector<int64_t> WorkloadSpec::lhsShape() const {
  return lhsTransposed ? withBatch(batch, k, m) : withBatch(batch, m, k);
}

std::vector<int64_t> WorkloadSpec::rhsShape() const {
  return rhsTransposed ? withBatch(batch, n, k) : withBatch(batch, k, n);
}

std::vector<int64_t> WorkloadSpec::outShape() const {
  return withBatch(batch, m, n);
}

std::optional<unsigned> WorkloadSpec::outputDim(llvm::StringRef name) const {
  unsigned rank = batch.size() + 2, index;
  if (name == "m")
    return rank - 2;
  if (name == "n")
    return rank - 1;
  if (name.consume_front("b") && !name.getAsInteger(10, index) &&
      index < batch.size() && name == std::to_string(index))
    return index;
  return std::nullopt;
}

std::optional<std::vector<int64_t>>
WorkloadSpec::dimSizes(llvm::ArrayRef<std::string> dims) const {
  std::vector<int64_t> out = outShape(), sizes;
  for (llvm::StringRef dim : dims) {
    std::optional<unsigned> index = outputDim(dim);
    if (!index)
      return std::nullopt;
    sizes.push_back(out[*index]);
  }
  return sizes;
}

std::string WorkloadSpec::layoutName() const {
  return std::string("A") + (lhsTransposed ? "[k,m]" : "[m,k]") + " B" +
         (rhsTransposed ? "[n,k]" : "[k,n]");
}

std::string WorkloadSpec::key(llvm::ArrayRef<BufferSpec> arguments) const {
  auto typeOf = [&](unsigned arg) {
    return arg < arguments.size() ? arguments[arg].elementType
                                  : std::string("?");
  };
  std::vector<std::string> steps;
  for (const EpilogueStep &step : epilogue)
    steps.push_back(step.str());
  bool plain = batch.empty() && !lhsTransposed && !rhsTransposed &&
               typeOf(rhs) == typeOf(lhs) && precision.empty();
  bool relu = operands.empty() && steps.size() == 2 &&
              steps[0] == "constant 0" &&
              (steps[1] == "maximumf 0 1" || steps[1] == "maximumf 1 0");
  std::string key =
      llvm::formatv("{0} {1}x{2}x{3} {4}->{5} acc={6}",
                    plain && relu ? "matmul_relu" : "matmul", m, n, k,
                    typeOf(lhs), typeOf(out), accumulatorType)
          .str();
  if (plain && relu)
    return key;
  auto joined = [](auto &&range, llvm::StringRef separator) {
    return llvm::join(
        llvm::map_range(range,
                        [](auto v) { return llvm::formatv("{0}", v).str(); }),
        separator);
  };
  if (typeOf(rhs) != typeOf(lhs))
    key += " rhs=" + typeOf(rhs);
  if (!precision.empty())
    key += " precision=" + precision;
  if (!batch.empty())
    key += " batch=" + joined(batch, "x");
  if (lhsTransposed || rhsTransposed) {
    std::string layout = layoutName();
    std::replace(layout.begin(), layout.end(), ' ', ',');
    key += " layout=" + layout;
  }
  if (!operands.empty())
    key += " operands=" +
           joined(llvm::map_range(operands,
                                  [&](const EpilogueOperandSpec &o) {
                                    return typeOf(o.argument) + "[" +
                                           llvm::join(o.dims, ",") + "]";
                                  }),
                  ",");
  if (!steps.empty())
    key += " epilogue=" + llvm::join(steps, ";");
  return key;
}

//===----------------------------------------------------------------------===//
// Validation and JSON
//===----------------------------------------------------------------------===//

llvm::Error tessel::validateWorkload(const WorkloadSpec &w,
                                     llvm::ArrayRef<BufferSpec> arguments) {
  auto error = [](const llvm::Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
  };
  if (w.kind != "contraction")
    return error("has kind '" + w.kind + "'; Tessel knows 'contraction'");
  static constexpr llvm::StringLiteral kReferenceTypes[] = {"f16", "bf16",
                                                            "f32", "f64"};
  if (!llvm::is_contained(kReferenceTypes, w.accumulatorType))
    return error("has accumulator_type '" + w.accumulatorType +
                 "'; expected f16, bf16, f32 or f64");
  if (!w.precision.empty() && w.precision != "tf32")
    return error("has precision '" + w.precision +
                 "'; expected none (FP32-level) or 'tf32'");
  if (w.m <= 0 || w.n <= 0 || w.k <= 0 ||
      llvm::any_of(w.batch, [](int64_t b) { return b <= 0; }))
    return error("has an empty dimension (m, n, k and batch must be "
                 "positive)");
  std::vector<unsigned> used = {w.lhs, w.rhs};
  for (const EpilogueOperandSpec &operand : w.operands)
    used.push_back(operand.argument);
  used.push_back(w.out);
  for (unsigned index : used)
    if (index >= arguments.size())
      return error("names argument #" + llvm::Twine(index) + ", but there " +
                   (arguments.size() == 1 ? "is " : "are ") +
                   llvm::Twine(arguments.size()));
  if (llvm::is_contained(llvm::ArrayRef(used).drop_back(), w.out))
    return error("names the output among its inputs");

  auto describe = [](const std::vector<int64_t> &shape) {
    return llvm::join(
        llvm::map_range(shape, [](int64_t d) { return std::to_string(d); }),
        "x");
  };
  auto checkShape = [&](llvm::StringRef what, unsigned index,
                        const std::vector<int64_t> &shape) -> llvm::Error {
    if (arguments[index].shape != shape)
      return error("describes " + what + " (argument #" + llvm::Twine(index) +
                   ") as " + describe(shape) + ", but it is " +
                   describe(arguments[index].shape) +
                   " (m=" + llvm::Twine(w.m) + ", n=" + llvm::Twine(w.n) +
                   ", k=" + llvm::Twine(w.k) + ", " + w.layoutName() + ")");
    return llvm::Error::success();
  };
  if (llvm::Error e = checkShape("A", w.lhs, w.lhsShape()))
    return e;
  if (llvm::Error e = checkShape("B", w.rhs, w.rhsShape()))
    return e;
  if (llvm::Error e = checkShape("the output", w.out, w.outShape()))
    return e;
  for (auto [i, operand] : llvm::enumerate(w.operands)) {
    std::set<std::string> distinct(operand.dims.begin(), operand.dims.end());
    std::optional<std::vector<int64_t>> sizes = w.dimSizes(operand.dims);
    if (!sizes || distinct.size() != operand.dims.size() ||
        operand.dims.empty())
      return error("has epilogue operand #" + llvm::Twine(i) + " with dims [" +
                   llvm::join(operand.dims, ",") +
                   "]; expected distinct names among " +
                   (w.batch.empty()
                        ? std::string()
                        : "b0..b" + std::to_string(w.batch.size() - 1) + ", ") +
                   "m and n");
    if (llvm::Error e = checkShape("epilogue operand #" + std::to_string(i),
                                   operand.argument, *sizes))
      return e;
  }
  for (unsigned index : used)
    if (!llvm::is_contained(kReferenceTypes, arguments[index].elementType))
      return error("argument #" + llvm::Twine(index) + " has element type '" +
                   arguments[index].elementType +
                   "'; the reference knows f16, bf16, f32 and f64");

  size_t values = 1 + w.operands.size();
  for (const EpilogueStep &step : w.epilogue) {
    std::optional<unsigned> arity = epilogueArity(step.op);
    if (!arity || step.args.size() != *arity)
      return error("epilogue step '" + step.str() +
                   "' is not an op the reference knows with its operands");
    for (unsigned arg : step.args)
      if (arg >= values)
        return error("epilogue step '" + step.str() + "' reads value " +
                     llvm::Twine(arg) + " before it is defined");
    ++values;
  }
  return llvm::Error::success();
}

bool tessel::readJsonIndex(const Value &value, unsigned &index,
                           llvm::json::Path path) {
  std::optional<int64_t> integer = value.getAsInteger();
  if (!integer || *integer < 0 || *integer > UINT32_MAX) {
    path.report("expected an index (an integer in [0, 2^32))");
    return false;
  }
  index = static_cast<unsigned>(*integer);
  return true;
}

namespace tessel {
/// An index field, read by readJsonIndex.
struct IndexField {
  unsigned &index;
};

static bool fromJSON(const Value &value, IndexField &field,
                     llvm::json::Path path) {
  return readJsonIndex(value, field.index, path);
}
} // namespace tessel

bool tessel::mapJsonIndex(llvm::json::ObjectMapper &o, llvm::StringLiteral name,
                          unsigned &index) {
  IndexField field{index};
  return o.map(name, field);
}

namespace tessel {
static bool fromJSON(const Value &value, EpilogueOperandSpec &operand,
                     llvm::json::Path path) {
  llvm::json::ObjectMapper o(value, path);
  return o && mapJsonIndex(o, "argument", operand.argument) &&
         o.map("dims", operand.dims);
}

static bool fromJSON(const Value &value, EpilogueStep &step,
                     llvm::json::Path path) {
  std::optional<llvm::StringRef> text = value.getAsString();
  llvm::Expected<EpilogueStep> parsed =
      text ? EpilogueStep::parse(*text)
           : llvm::createStringError(llvm::inconvertibleErrorCode(), "");
  if (!parsed) {
    llvm::consumeError(parsed.takeError());
    path.report("expected an epilogue step: an op the reference knows with "
                "its operands' value numbers (\"addf 0 1\"), or "
                "\"constant <number>\"");
    return false;
  }
  step = std::move(*parsed);
  return true;
}
} // namespace tessel

bool tessel::fromJSON(const Value &value, BufferSpec &spec,
                      llvm::json::Path path) {
  llvm::json::ObjectMapper o(value, path);
  return o && o.map("element_type", spec.elementType) &&
         o.map("shape", spec.shape) && o.mapOptional("zeroed", spec.zeroed) &&
         o.mapOptional("left_zeroed", spec.leftZeroed);
}

bool tessel::fromJSON(const Value &value, WorkloadSpec &w,
                      llvm::json::Path path) {
  llvm::json::ObjectMapper o(value, path);
  if (!o || !o.map("kind", w.kind))
    return false;
  // Launch files written before workloads were data (kind "matmul_relu",
  // relu(A x B) in the plain layout) still run and are checked.
  if (w.kind == "matmul_relu") {
    w.kind = "contraction";
    w.epilogue = {{"constant", {}, 0.0}, {"maximumf", {0, 1}, 0.0}};
  }
  return mapJsonIndex(o, "lhs", w.lhs) && mapJsonIndex(o, "rhs", w.rhs) &&
         mapJsonIndex(o, "out", w.out) && o.map("m", w.m) && o.map("n", w.n) &&
         o.map("k", w.k) && o.mapOptional("batch", w.batch) &&
         o.mapOptional("lhs_transposed", w.lhsTransposed) &&
         o.mapOptional("rhs_transposed", w.rhsTransposed) &&
         o.map("accumulator_type", w.accumulatorType) &&
         o.mapOptional("precision", w.precision) &&
         o.mapOptional("epilogue_operands", w.operands) &&
         (w.epilogue.empty() ? o.mapOptional("epilogue", w.epilogue) : true);
}

Value tessel::toJSON(const WorkloadSpec &w) {
  Object o{{"kind", w.kind}, {"lhs", w.lhs},
           {"rhs", w.rhs},   {"out", w.out},
           {"m", w.m},       {"n", w.n},
           {"k", w.k},       {"accumulator_type", w.accumulatorType}};
  if (!w.batch.empty())
    o["batch"] = Array(w.batch);
  if (w.lhsTransposed)
    o["lhs_transposed"] = true;
  if (w.rhsTransposed)
    o["rhs_transposed"] = true;
  if (!w.precision.empty())
    o["precision"] = w.precision;
  if (!w.operands.empty()) {
    Array operands;
    for (const EpilogueOperandSpec &operand : w.operands)
      operands.push_back(Object{{"argument", operand.argument},
                                {"dims", Array(operand.dims)}});
    o["epilogue_operands"] = std::move(operands);
  }
  if (!w.epilogue.empty()) {
    Array steps;
    for (const EpilogueStep &step : w.epilogue)
      steps.push_back(step.str());
    o["epilogue"] = std::move(steps);
  }
  return o;
}
