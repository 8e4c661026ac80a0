//===- Reference.cpp - Trusted references and host-side numerics ----------===//

#include "tessel/Runtime/Reference.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Parallel.h"

#include <cmath>
#include <cstring>

using namespace tessel;

/// IEEE binary16 bits to float (exact).
static float halfToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  uint32_t bits;
  if (exponent == 0x1f) {
    bits = sign | 0x7f800000 | (mantissa << 13);
  } else if (exponent == 0) {
    if (mantissa == 0) {
      bits = sign;
    } else { // Subnormal: normalize.
      int shift = 0;
      while (!(mantissa & 0x400)) {
        mantissa <<= 1;
        ++shift;
      }
      mantissa &= 0x3ff;
      bits = sign | uint32_t(113 - shift) << 23 | (mantissa << 13);
    }
  } else {
    bits = sign | (exponent + 112) << 23 | (mantissa << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

/// Float to IEEE binary16 bits, rounding to nearest even.
static uint16_t floatToHalf(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  uint16_t sign = (bits >> 16) & 0x8000;
  uint32_t abs = bits & 0x7fffffff;
  if (abs >= 0x7f800000) // Inf or NaN.
    return sign | 0x7c00 | (abs > 0x7f800000 ? 0x200 : 0);
  if (abs >= 0x477ff000) // Rounds to above the largest half: infinity.
    return sign | 0x7c00;
  if (abs < 0x38800000) { // Subnormal half (or zero).
    float scaled;
    std::memcpy(&scaled, &abs, 4);
    // 2^-24 is the smallest subnormal; rint rounds to nearest even.
    return sign | uint16_t(std::nearbyint(scaled * 16777216.0f));
  }
  uint32_t rounded = abs + 0xfff + ((abs >> 13) & 1);
  return sign | uint16_t((rounded - 0x38000000) >> 13);
}

static float bf16ToFloat(uint16_t h) {
  uint32_t bits = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

static uint16_t floatToBf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  if ((bits & 0x7fffffff) > 0x7f800000)
    return uint16_t(bits >> 16) | 0x40; // Quiet NaN.
  return uint16_t((bits + 0x7fff + ((bits >> 16) & 1)) >> 16);
}

double tessel::loadElement(const std::vector<uint8_t> &bytes,
                           llvm::StringRef type, int64_t index) {
  if (type == "f32") {
    float f;
    std::memcpy(&f, bytes.data() + 4 * index, 4);
    return f;
  }
  if (type == "f64") {
    double d;
    std::memcpy(&d, bytes.data() + 8 * index, 8);
    return d;
  }
  uint16_t h;
  std::memcpy(&h, bytes.data() + 2 * index, 2);
  return type == "f16" ? halfToFloat(h) : bf16ToFloat(h);
}

void tessel::storeElement(std::vector<uint8_t> &bytes, llvm::StringRef type,
                          int64_t index, double value) {
  if (type == "f32") {
    float f = value;
    std::memcpy(bytes.data() + 4 * index, &f, 4);
  } else if (type == "f64") {
    std::memcpy(bytes.data() + 8 * index, &value, 8);
  } else {
    uint16_t h = type == "f16" ? floatToHalf(value) : floatToBf16(value);
    std::memcpy(bytes.data() + 2 * index, &h, 2);
  }
}

namespace {
/// Where element (b, row, col) of a contraction operand lies in its
/// row-major buffer, in elements: A's (b, m, k), B's (b, k, n).
struct OperandStrides {
  int64_t batch, row, col;
};
} // namespace

static OperandStrides lhsStrides(const WorkloadSpec &w) {
  return w.lhsTransposed ? OperandStrides{w.m * w.k, 1, w.m}
                         : OperandStrides{w.m * w.k, w.k, 1};
}

static OperandStrides rhsStrides(const WorkloadSpec &w) {
  return w.rhsTransposed ? OperandStrides{w.k * w.n, 1, w.k}
                         : OperandStrides{w.k * w.n, w.n, 1};
}

std::vector<double> tessel::cpuContraction(const WorkloadSpec &w,
                                           const std::vector<uint8_t> &lhs,
                                           llvm::StringRef lhsType,
                                           const std::vector<uint8_t> &rhs,
                                           llvm::StringRef rhsType) {
  OperandStrides sa = lhsStrides(w), sb = rhsStrides(w);
  std::vector<double> a(w.m * w.k), b(w.k * w.n),
      c(w.batchCount() * w.m * w.n, 0.0);
  for (int64_t batch = 0; batch < w.batchCount(); ++batch) {
    // A as [m, k] and B as [k, n], whatever their layout, then the rows.
    for (int64_t i = 0; i < w.m; ++i)
      for (int64_t p = 0; p < w.k; ++p)
        a[i * w.k + p] = loadElement(
            lhs, lhsType, batch * sa.batch + i * sa.row + p * sa.col);
    for (int64_t p = 0; p < w.k; ++p)
      for (int64_t j = 0; j < w.n; ++j)
        b[p * w.n + j] = loadElement(
            rhs, rhsType, batch * sb.batch + p * sb.row + j * sb.col);
    double *out = &c[batch * w.m * w.n];
    for (int64_t i = 0; i < w.m; ++i)
      for (int64_t p = 0; p < w.k; ++p) {
        double aip = a[i * w.k + p];
        const double *brow = &b[p * w.n];
        double *crow = &out[i * w.n];
        for (int64_t j = 0; j < w.n; ++j)
          crow[j] += aip * brow[j];
      }
  }
  return c;
}

void tessel::applyEpilogue(const WorkloadSpec &w,
                           llvm::ArrayRef<BufferSpec> arguments,
                           llvm::ArrayRef<std::vector<uint8_t>> hostArguments,
                           std::vector<double> &values) {
  if (w.epilogue.empty())
    return;
  // Each operand's element strides along the output's dimensions
  // ([batch..., m, n]): zero along those it is broadcast over.
  size_t rank = w.batch.size() + 2;
  std::vector<std::vector<int64_t>> strides;
  for (const EpilogueOperandSpec &operand : w.operands) {
    std::vector<int64_t> along(rank, 0);
    int64_t stride = 1;
    for (size_t d = operand.dims.size(); d-- > 0;) {
      // Validated: every name is an output dimension.
      along[*w.outputDim(operand.dims[d])] = stride;
      stride *= arguments[operand.argument].shape[d];
    }
    strides.push_back(std::move(along));
  }
  std::vector<int64_t> shape = w.outShape();
  int64_t rows = values.size() / w.n;
  // One task per output row: an epilogue of a dozen steps over 10^8
  // elements takes seconds on one core.
  llvm::parallelFor(0, rows, [&](int64_t row) {
    EpilogueEvaluator evaluate(w);
    std::vector<int64_t> index(rank, 0);
    for (int64_t r = row, d = rank - 1; d-- > 0;) {
      index[d] = r % shape[d];
      r /= shape[d];
    }
    std::vector<int64_t> base(w.operands.size(), 0);
    for (auto [i, along] : llvm::enumerate(strides))
      for (size_t d = 0; d + 1 < rank; ++d)
        base[i] += index[d] * along[d];
    std::vector<double> operandValues(w.operands.size());
    for (int64_t col = 0; col < w.n; ++col) {
      for (auto [i, operand] : llvm::enumerate(w.operands))
        operandValues[i] = loadElement(hostArguments[operand.argument],
                                       arguments[operand.argument].elementType,
                                       base[i] + col * strides[i][rank - 1]);
      double &value = values[row * w.n + col];
      value = evaluate(value, operandValues);
    }
  });
}

std::string tessel::referencePtx(llvm::StringRef lhsType,
                                 llvm::StringRef rhsType) {
  // A 64x64 tile of the output per block of 16x16 threads, each thread 4x4
  // elements (rows ty + 16i, columns tx + 16j), K in steps of 16 through
  // shared memory, where A's and B's elements are kept as f64. Every
  // element read is predicated on its bounds (zero outside), every store
  // too; the accumulation order along K is the plain one, k = 0, 1, ...
  // Hand-written PTX, independent of Tessel's compiler, as simple as a
  // tiled kernel gets: a naive kernel (one thread per output, A and B read
  // from global memory for every product) took most of a tuning worker's
  // preparation, 0.2 s at 4096^3 and 0.9 s at 8192^3.
  auto bytes = [](llvm::StringRef type) {
    return type == "f64" ? 8 : type == "f32" ? 4 : 2;
  };
  // Loads one element of `type` at [ptr] into the f64 register `out` if
  // `pred`, else 0.
  auto load = [&](llvm::StringRef type, llvm::StringRef ptr,
                  llvm::StringRef pred, llvm::StringRef out) -> std::string {
    if (type == "f64")
      return llvm::formatv("  mov.f64 {2}, 0d0000000000000000;\n"
                           "  @{1} ld.global.f64 {2}, [{0}];\n",
                           ptr, pred, out);
    if (type == "f32")
      return llvm::formatv("  mov.f32 %f1, 0f00000000;\n"
                           "  @{1} ld.global.f32 %f1, [{0}];\n"
                           "  cvt.f64.f32 {2}, %f1;\n",
                           ptr, pred, out);
    if (type == "f16")
      return llvm::formatv("  mov.b16 %h1, 0;\n"
                           "  @{1} ld.global.b16 %h1, [{0}];\n"
                           "  cvt.f32.f16 %f1, %h1;\n"
                           "  cvt.f64.f32 {2}, %f1;\n",
                           ptr, pred, out);
    return llvm::formatv("  mov.b16 %h1, 0;\n" // bf16: the high half of f32.
                         "  @{1} ld.global.b16 %h1, [{0}];\n"
                         "  cvt.u32.u16 %r40, %h1;\n"
                         "  shl.b32 %r40, %r40, 16;\n"
                         "  mov.b32 %f1, %r40;\n"
                         "  cvt.f64.f32 {2}, %f1;\n",
                         ptr, pred, out);
  };
  std::string body;
  llvm::raw_string_ostream os(body);
  // Per-thread load slots q = 0..3 of idx = tid + 256q: A's element
  // (r = idx / 16, kk = idx % 16), B's (kk = idx / 64, c = idx % 64).
  for (int q = 0; q < 4; ++q) {
    os << llvm::formatv(R"(  add.u32 %r50, %r22, {0};
  shr.u32 %r51, %r50, 4;
  and.b32 %ra_kk{1}, %r50, 15;
  add.u32 %ra_row{1}, %r23, %r51;
  mad.lo.u32 %ra_sh{1}, %ra_kk{1}, 64, %r51;
  shl.b32 %ra_sh{1}, %ra_sh{1}, 3;
  add.u32 %ra_sh{1}, %ra_sh{1}, %r28;
  and.b32 %r52, %r50, 63;
  shr.u32 %rb_kk{1}, %r50, 6;
  add.u32 %rb_col{1}, %r24, %r52;
  mad.lo.u32 %rb_sh{1}, %rb_kk{1}, 64, %r52;
  shl.b32 %rb_sh{1}, %rb_sh{1}, 3;
  add.u32 %rb_sh{1}, %rb_sh{1}, %r29;
  setp.lt.u32 %pa_in{1}, %ra_row{1}, %r1;
  setp.lt.u32 %pb_in{1}, %rb_col{1}, %r2;
  cvt.u64.u32 %rd40, %ra_row{1};
  mul.lo.u64 %rda{1}, %rd40, %rd21;
  cvt.u64.u32 %rd40, %rb_col{1};
  mul.lo.u64 %rdb{1}, %rd40, %rd25;
)",
                        256 * q, q);
  }
  std::string setup = body;
  body.clear();
  // One K step: the loads into shared memory. An operand's element of
  // slot q: k = k0 + its kk, address base + (batch offset + k * k stride +
  // its row or column offset) * bytes, predicated on k < K and its row or
  // column in bounds; stored to its shared-memory slot.
  auto stage = [&](char x, int q, llvm::StringRef kStride,
                   llvm::StringRef batchOffset, llvm::StringRef base,
                   llvm::StringRef type, llvm::StringRef pred,
                   llvm::StringRef addr, llvm::StringRef value) {
    os << llvm::formatv(R"(  add.u32 %r60, %r30, %r{0}_kk{1};
  setp.lt.u32 {6}, %r60, %r3;
  and.pred {6}, {6}, %p{0}_in{1};
  cvt.u64.u32 %rd41, %r60;
  mad.lo.u64 {7}, %rd41, {2}, %rd{0}{1};
  add.u64 {7}, {7}, {3};
  mul.lo.u64 {7}, {7}, {5};
  add.u64 {7}, {4}, {7};
{8}  st.shared.f64 [%r{0}_sh{1}], {9};
)",
                        x, q, kStride, batchOffset, base, bytes(type), pred,
                        addr, load(type, addr, pred, value), value);
  };
  for (int q = 0; q < 4; ++q) {
    stage('a', q, "%rd22", "%rd30", "%rd1", lhsType, "%p10", "%rd42", "%fd1");
    stage('b', q, "%rd24", "%rd31", "%rd2", rhsType, "%p11", "%rd43", "%fd2");
  }
  std::string loads = body;
  body.clear();
  // The products of one K step, from shared memory.
  for (int kk = 0; kk < 16; ++kk) {
    for (int i = 0; i < 4; ++i)
      os << llvm::formatv("  ld.shared.f64 %a{0}, [%r25 + {1}];\n", i,
                          (kk * 64 + 16 * i) * 8);
    for (int j = 0; j < 4; ++j)
      os << llvm::formatv("  ld.shared.f64 %b{0}, [%r26 + {1}];\n", j,
                          (kk * 64 + 16 * j) * 8);
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j)
        os << llvm::formatv("  fma.rn.f64 %acc{0}, %a{1}, %b{2}, %acc{0};\n",
                            4 * i + j, i, j);
  }
  std::string products = body;
  body.clear();
  for (int a = 0; a < 16; ++a)
    os << llvm::formatv("  mov.f64 %acc{0}, 0d0000000000000000;\n", a);
  std::string zero = body;
  body.clear();
  // The stores: out + ((b * m + row) * n + col) * 8, in bounds only.
  for (int i = 0; i < 4; ++i) {
    os << llvm::formatv(R"(  add.u32 %r70, %r23, %r21;
  add.u32 %r70, %r70, {0};
  setp.lt.u32 %p12, %r70, %r1;
  cvt.u64.u32 %rd50, %r70;
  add.u64 %rd50, %rd50, %rd32;
  mul.lo.u64 %rd50, %rd50, %rd16;
)",
                        16 * i);
    for (int j = 0; j < 4; ++j)
      os << llvm::formatv(R"(  add.u32 %r71, %r24, %r20;
  add.u32 %r71, %r71, {0};
  setp.lt.u32 %p13, %r71, %r2;
  and.pred %p13, %p13, %p12;
  cvt.u64.u32 %rd51, %r71;
  add.u64 %rd51, %rd51, %rd50;
  shl.b64 %rd51, %rd51, 3;
  add.u64 %rd51, %rd3, %rd51;
  @%p13 st.global.f64 [%rd51], %acc{1};
)",
                          16 * j, 4 * i + j);
  }
  std::string stores = body;

  return llvm::formatv(R"(.version 7.0
.target sm_70
.address_size 64

// out[b, row, col] = sum_k A[b, row, k] * B[b, k, col] in f64; A and B are
// read through element strides (batch, row, col), so either layout works.
.visible .entry tessel_reference_contraction(
  .param .u64 pa, .param .u64 pb, .param .u64 pc,
  .param .u32 pm, .param .u32 pn, .param .u32 pk, .param .u32 pbatch,
  .param .u64 pab, .param .u64 pam, .param .u64 pak,
  .param .u64 pbb, .param .u64 pbk, .param .u64 pbn)
{{
  .shared .align 8 .b8 sA[8192];
  .shared .align 8 .b8 sB[8192];
  .reg .pred %p<16>;
  .reg .pred %pa_in<4>;
  .reg .pred %pb_in<4>;
  .reg .b32 %r<80>;
  .reg .b32 %ra_kk<4>;
  .reg .b32 %ra_row<4>;
  .reg .b32 %ra_sh<4>;
  .reg .b32 %rb_kk<4>;
  .reg .b32 %rb_col<4>;
  .reg .b32 %rb_sh<4>;
  .reg .b64 %rd<60>;
  .reg .b64 %rda<4>;
  .reg .b64 %rdb<4>;
  .reg .f32 %f<2>;
  .reg .f64 %fd<4>;
  .reg .f64 %a<4>;
  .reg .f64 %b<4>;
  .reg .f64 %acc<16>;
  .reg .b16 %h<2>;

  ld.param.u64 %rd1, [pa];
  ld.param.u64 %rd2, [pb];
  ld.param.u64 %rd3, [pc];
  ld.param.u32 %r1, [pm];
  ld.param.u32 %r2, [pn];
  ld.param.u32 %r3, [pk];
  ld.param.u32 %r11, [pbatch];
  ld.param.u64 %rd20, [pab];
  ld.param.u64 %rd21, [pam];
  ld.param.u64 %rd22, [pak];
  ld.param.u64 %rd23, [pbb];
  ld.param.u64 %rd24, [pbk];
  ld.param.u64 %rd25, [pbn];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  cvta.to.global.u64 %rd3, %rd3;
  // tx, ty, tid; the tile's first row and column.
  mov.u32 %r20, %tid.x;
  mov.u32 %r21, %tid.y;
  mad.lo.u32 %r22, %r21, 16, %r20;
  mov.u32 %r23, %ctaid.y;
  shl.b32 %r23, %r23, 6;
  mov.u32 %r24, %ctaid.x;
  shl.b32 %r24, %r24, 6;
  // This thread's reads of the products: sA[kk][ty + 16i], sB[kk][tx + 16j].
  mov.u32 %r28, sA;
  mov.u32 %r29, sB;
  shl.b32 %r27, %r21, 3;
  add.u32 %r25, %r28, %r27;
  shl.b32 %r27, %r20, 3;
  add.u32 %r26, %r29, %r27;
  cvt.u64.u32 %rd16, %r2;
{0}  mov.u32 %r12, %ctaid.z;
BATCH:
  setp.ge.u32 %p1, %r12, %r11;
  @%p1 bra DONE;
  cvt.u64.u32 %rd14, %r12;
  // The batch's offsets, in elements: b * sab, b * sbb; its first output
  // row, b * m.
  mul.lo.u64 %rd30, %rd14, %rd20;
  mul.lo.u64 %rd31, %rd14, %rd23;
  cvt.u64.u32 %rd32, %r1;
  mul.lo.u64 %rd32, %rd32, %rd14;
{1}  mov.u32 %r30, 0;
KLOOP:
  setp.ge.u32 %p2, %r30, %r3;
  @%p2 bra STORE;
{2}  bar.sync 0;
{3}  bar.sync 0;
  add.u32 %r30, %r30, 16;
  bra KLOOP;
STORE:
{4}  mov.u32 %r13, %nctaid.z;
  add.u32 %r12, %r12, %r13;
  bra BATCH;
DONE:
  ret;
}
)",
                       setup, zero, loads, products, stores)
      .str();
}

llvm::Error tessel::gpuContraction(cuda::Driver &driver, const WorkloadSpec &w,
                                   llvm::StringRef lhsType,
                                   llvm::StringRef rhsType, cuda::DevicePtr lhs,
                                   cuda::DevicePtr rhs, cuda::DevicePtr out) {
  llvm::Expected<cuda::Module> module =
      driver.loadModule(referencePtx(lhsType, rhsType));
  if (!module)
    return module.takeError();
  llvm::scope_exit unload([&] { driver.unloadModule(*module); });
  llvm::Expected<cuda::Function> function =
      driver.getFunction(*module, "tessel_reference_contraction");
  if (!function)
    return function.takeError();
  if (w.m > UINT32_MAX || w.n > UINT32_MAX || w.k > UINT32_MAX ||
      w.batchCount() > UINT32_MAX)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "the GPU reference indexes m, n, k and batch with 32 bits");
  uint32_t m = w.m, n = w.n, k = w.k, batch = w.batchCount();
  OperandStrides sa = lhsStrides(w), sb = rhsStrides(w);
  uint64_t strides[6] = {uint64_t(sa.batch), uint64_t(sa.row),
                         uint64_t(sa.col),   uint64_t(sb.batch),
                         uint64_t(sb.row),   uint64_t(sb.col)};
  std::vector<void *> params = {&lhs, &rhs, &out, &m, &n, &k, &batch};
  for (uint64_t &stride : strides)
    params.push_back(&stride);
  int64_t block[3] = {16, 16, 1};
  int64_t grid[3] = {(w.n + 63) / 64, (w.m + 63) / 64,
                     std::min<int64_t>(batch, 65535)};
  if (llvm::Error e = driver.launch(*function, grid, block, 0, params))
    return e;
  return driver.synchronize();
}
