//===- Reference.cpp - Trusted references and host-side numerics ----------===//

#include "tessel/Runtime/Reference.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"

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

std::vector<double> tessel::cpuMatmulRelu(const WorkloadSpec &w,
                                          const std::vector<uint8_t> &lhs,
                                          const std::vector<uint8_t> &rhs,
                                          llvm::StringRef elementType) {
  std::vector<double> a(w.m * w.k), b(w.k * w.n), c(w.m * w.n, 0.0);
  for (int64_t i = 0; i < w.m * w.k; ++i)
    a[i] = loadElement(lhs, elementType, i);
  for (int64_t i = 0; i < w.k * w.n; ++i)
    b[i] = loadElement(rhs, elementType, i);
  for (int64_t i = 0; i < w.m; ++i)
    for (int64_t p = 0; p < w.k; ++p) {
      double aip = a[i * w.k + p];
      const double *brow = &b[p * w.n];
      double *crow = &c[i * w.n];
      for (int64_t j = 0; j < w.n; ++j)
        crow[j] += aip * brow[j];
    }
  for (double &v : c)
    v = v > 0.0 ? v : 0.0;
  return c;
}

std::string tessel::referencePtx(llvm::StringRef elementType) {
  // Loads one element at [%rd_ptr] into %fd_out as f64.
  auto load = [&](const char *ptr, const char *out) -> std::string {
    if (elementType == "f32")
      return llvm::formatv("  ld.global.f32 %f1, [{0}];\n"
                           "  cvt.f64.f32 {1}, %f1;\n",
                           ptr, out);
    if (elementType == "f16")
      return llvm::formatv("  ld.global.b16 %h1, [{0}];\n"
                           "  cvt.f32.f16 %f1, %h1;\n"
                           "  cvt.f64.f32 {1}, %f1;\n",
                           ptr, out);
    return llvm::formatv("  ld.global.b16 %h1, [{0}];\n" // bf16
                         "  cvt.u32.u16 %r10, %h1;\n"
                         "  shl.b32 %r10, %r10, 16;\n"
                         "  mov.b32 %f1, %r10;\n"
                         "  cvt.f64.f32 {1}, %f1;\n",
                         ptr, out);
  };
  int bytes = elementType == "f32" ? 4 : 2;
  return llvm::formatv(R"(.version 7.0
.target sm_70
.address_size 64

// out[row, col] = max(sum_k A[row, k] * B[k, col], 0) in f64.
.visible .entry tessel_reference_matmul_relu(
  .param .u64 pa, .param .u64 pb, .param .u64 pc,
  .param .u32 pm, .param .u32 pn, .param .u32 pk)
{{
  .reg .pred %p<4>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<16>;
  .reg .f32 %f<2>;
  .reg .f64 %fd<4>;
  .reg .b16 %h<2>;

  ld.param.u64 %rd1, [pa];
  ld.param.u64 %rd2, [pb];
  ld.param.u64 %rd3, [pc];
  ld.param.u32 %r1, [pm];
  ld.param.u32 %r2, [pn];
  ld.param.u32 %r3, [pk];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  cvta.to.global.u64 %rd3, %rd3;
  mov.u32 %r4, %ctaid.x;
  mov.u32 %r5, %ntid.x;
  mov.u32 %r6, %tid.x;
  mad.lo.u32 %r7, %r4, %r5, %r6;
  mov.u32 %r4, %ctaid.y;
  mov.u32 %r5, %ntid.y;
  mov.u32 %r6, %tid.y;
  mad.lo.u32 %r8, %r4, %r5, %r6;
  setp.ge.u32 %p1, %r7, %r2;
  setp.ge.u32 %p2, %r8, %r1;
  or.pred %p3, %p1, %p2;
  @%p3 bra DONE;
  mov.f64 %fd1, 0d0000000000000000;
  mul.wide.u32 %rd4, %r8, %r3;
  mul.lo.u64 %rd4, %rd4, {0};
  add.u64 %rd5, %rd1, %rd4;
  mul.wide.u32 %rd6, %r7, {0};
  add.u64 %rd7, %rd2, %rd6;
  mul.wide.u32 %rd8, %r2, {0};
  mov.u32 %r9, 0;
  setp.eq.u32 %p1, %r3, 0;
  @%p1 bra STORE;
LOOP:
{1}{2}  fma.rn.f64 %fd1, %fd2, %fd3, %fd1;
  add.u64 %rd5, %rd5, {0};
  add.u64 %rd7, %rd7, %rd8;
  add.u32 %r9, %r9, 1;
  setp.lt.u32 %p1, %r9, %r3;
  @%p1 bra LOOP;
STORE:
  max.f64 %fd1, %fd1, 0d0000000000000000;
  mul.wide.u32 %rd9, %r8, %r2;
  cvt.u64.u32 %rd10, %r7;
  add.u64 %rd9, %rd9, %rd10;
  shl.b64 %rd9, %rd9, 3;
  add.u64 %rd9, %rd3, %rd9;
  st.global.f64 [%rd9], %fd1;
DONE:
  ret;
}
)",
                       bytes, load("%rd5", "%fd2"), load("%rd7", "%fd3"))
      .str();
}

llvm::Error tessel::gpuMatmulRelu(cuda::Driver &driver, const WorkloadSpec &w,
                                  llvm::StringRef elementType,
                                  cuda::DevicePtr lhs, cuda::DevicePtr rhs,
                                  cuda::DevicePtr out) {
  llvm::Expected<cuda::Module> module =
      driver.loadModule(referencePtx(elementType));
  if (!module)
    return module.takeError();
  llvm::Expected<cuda::Function> function =
      driver.getFunction(*module, "tessel_reference_matmul_relu");
  if (!function)
    return function.takeError();
  uint32_t m = w.m, n = w.n, k = w.k;
  std::vector<void *> params = {&lhs, &rhs, &out, &m, &n, &k};
  int64_t block[3] = {16, 16, 1};
  int64_t grid[3] = {(w.n + 15) / 16, (w.m + 15) / 16, 1};
  if (llvm::Error e = driver.launch(*function, grid, block, 0, params))
    return e;
  return driver.synchronize();
}
