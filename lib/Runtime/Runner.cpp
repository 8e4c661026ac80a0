//===- Runner.cpp - Run, check and time a host function's kernels ---------===//

#include "tessel/Runtime/Runner.h"

#include "tessel/Runtime/LoadedFunction.h"
#include "tessel/Runtime/Reference.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include <cstring>

#include <algorithm>
#include <chrono>
#include <cmath>

using namespace tessel;

static llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

double tessel::defaultTolerance(llvm::StringRef elementType,
                                llvm::StringRef precision) {
  // TF32 keeps 10 of f32's 23 mantissa bits: cuBLAS's TF32 errs by 2.9e-4
  // at 4096^3 (../shared/ANCHORS.md), FP32 by 1.1e-6; a TF32 kernel fails
  // an FP32 check.
  if (precision == "tf32" && elementType == "f32")
    return 5e-3;
  return elementType == "f32" ? 1e-5 : elementType == "f64" ? 1e-12 : 1e-2;
}

std::string tessel::checkMeasurementBudgets(double warmupMs, double repeatMs,
                                            llvm::StringRef optionPrefix) {
  constexpr double kMaxBudgetMs = 60000;
  auto number = [](double value) {
    std::string text;
    llvm::raw_string_ostream(text) << llvm::format("%g", value);
    return text;
  };
  if (!(warmupMs >= 0 && warmupMs <= kMaxBudgetMs))
    return llvm::formatv("{0}warmup-ms must be in [0, {1}] (got {2})",
                         optionPrefix, number(kMaxBudgetMs), number(warmupMs));
  if (!(repeatMs > 0 && repeatMs <= kMaxBudgetMs))
    return llvm::formatv("{0}rep-ms must be in (0, {1}] (got {2})",
                         optionPrefix, number(kMaxBudgetMs), number(repeatMs));
  return "";
}

/// NaN bit pattern repeated over 32 bits for a storage type.
static uint32_t nanPattern(llvm::StringRef type) {
  if (type == "f32")
    return 0x7fc00000u;
  if (type == "f16")
    return 0x7e007e00u;
  if (type == "bf16")
    return 0x7fc07fc0u;
  return 0xffffffffu;
}

std::string tessel::randomFillPtx(llvm::StringRef elementType) {
  // Stores the f32 value %f1 at element %rd4 of %rd1 in the storage type.
  std::string store;
  if (elementType == "f32")
    store = "  shl.b64 %rd11, %rd4, 2;\n"
            "  add.u64 %rd11, %rd1, %rd11;\n"
            "  st.global.f32 [%rd11], %f1;\n";
  else if (elementType == "f64")
    store = "  shl.b64 %rd11, %rd4, 3;\n"
            "  add.u64 %rd11, %rd1, %rd11;\n"
            "  cvt.f64.f32 %fd1, %f1;\n"
            "  st.global.f64 [%rd11], %fd1;\n";
  else if (elementType == "f16")
    store = "  shl.b64 %rd11, %rd4, 1;\n"
            "  add.u64 %rd11, %rd1, %rd11;\n"
            "  cvt.rn.f16.f32 %h1, %f1;\n"
            "  st.global.b16 [%rd11], %h1;\n";
  else // bf16: round to nearest even by hand (cvt.rn.bf16 needs sm_80).
    store = "  shl.b64 %rd11, %rd4, 1;\n"
            "  add.u64 %rd11, %rd1, %rd11;\n"
            "  mov.b32 %r5, %f1;\n"
            "  shr.u32 %r6, %r5, 16;\n"
            "  and.b32 %r6, %r6, 1;\n"
            "  add.u32 %r6, %r6, 32767;\n"
            "  add.u32 %r5, %r5, %r6;\n"
            "  shr.u32 %r5, %r5, 16;\n"
            "  cvt.u16.u32 %h1, %r5;\n"
            "  st.global.b16 [%rd11], %h1;\n";
  // x = (sum of the four 16-bit fields + 2) / 65536 - 2, times sqrt(3):
  // the sum of four uniform variables on (0, 1), centered, of variance 1.
  float scale = float(std::sqrt(3.0) / 65536.0);
  float offset = float((2.0 / 65536.0 - 2.0) * std::sqrt(3.0));
  uint32_t scaleBits, offsetBits;
  std::memcpy(&scaleBits, &scale, 4);
  std::memcpy(&offsetBits, &offset, 4);
  return llvm::formatv(R"(.version 7.0
.target sm_70
.address_size 64

// out[i] for i < n: a seeded random value of mean 0 and variance 1 (the
// sum of the four 16-bit fields of splitmix64(key + (i + 1) * golden),
// centered and scaled), in a grid-stride loop.
.visible .entry tessel_fill_random(
  .param .u64 pout, .param .u64 pn, .param .u64 pkey)
{{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<16>;
  .reg .f32 %f<2>;
  .reg .f64 %fd<2>;
  .reg .b16 %h<2>;

  ld.param.u64 %rd1, [pout];
  ld.param.u64 %rd2, [pn];
  ld.param.u64 %rd3, [pkey];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mul.wide.u32 %rd4, %r1, %r2;
  cvt.u64.u32 %rd5, %r3;
  add.u64 %rd4, %rd4, %rd5;
  mov.u32 %r4, %nctaid.x;
  mul.wide.u32 %rd6, %r4, %r2;
LOOP:
  setp.ge.u64 %p1, %rd4, %rd2;
  @%p1 bra DONE;
  add.u64 %rd7, %rd4, 1;
  mad.lo.u64 %rd7, %rd7, -7046029254386353131, %rd3;
  shr.u64 %rd8, %rd7, 30;
  xor.b64 %rd7, %rd7, %rd8;
  mul.lo.u64 %rd7, %rd7, -4658895280553007687;
  shr.u64 %rd8, %rd7, 27;
  xor.b64 %rd7, %rd7, %rd8;
  mul.lo.u64 %rd7, %rd7, -7723592293110705685;
  shr.u64 %rd8, %rd7, 31;
  xor.b64 %rd7, %rd7, %rd8;
  and.b64 %rd9, %rd7, 65535;
  shr.u64 %rd10, %rd7, 16;
  and.b64 %rd10, %rd10, 65535;
  add.u64 %rd9, %rd9, %rd10;
  shr.u64 %rd10, %rd7, 32;
  and.b64 %rd10, %rd10, 65535;
  add.u64 %rd9, %rd9, %rd10;
  shr.u64 %rd10, %rd7, 48;
  add.u64 %rd9, %rd9, %rd10;
  cvt.rn.f32.u64 %f1, %rd9;
  fma.rn.f32 %f1, %f1, 0f{0:X-8}, 0f{1:X-8};
{2}  add.u64 %rd4, %rd4, %rd6;
  bra LOOP;
DONE:
  ret;
}
)",
                       scaleBits, offsetBits, store)
      .str();
}

/// The fill kernel's key for argument `index` under `seed` (splitmix64 of
/// both, so that arguments and seeds draw unrelated values).
static uint64_t fillKey(uint64_t seed, unsigned index) {
  uint64_t z = seed * 0x9E3779B97F4A7C15ull + index + 1;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::string tessel::argumentSignature(const HostFunctionSpec &spec,
                                      const RunOptions &options) {
  llvm::json::Object o;
  llvm::json::Value whole = toJSON(spec);
  if (llvm::json::Object *all = whole.getAsObject())
    for (llvm::StringRef field : {"arguments", "results", "workload"})
      if (llvm::json::Value *v = all->get(field))
        o[field] = *v;
  o["seed"] = int64_t(options.seed);
  o["reference"] = options.reference;
  o["l2_flush"] = l2FlushName(options.flush);
  std::string text;
  llvm::raw_string_ostream(text) << llvm::json::Value(std::move(o));
  return text;
}

bool PreparedArguments::serves(const HostFunctionSpec &spec,
                               const RunOptions &options) const {
  return signature == argumentSignature(spec, options);
}

PreparedArguments::~PreparedArguments() {
  for (cuda::DevicePtr p : buffers)
    driver.free(p);
  for (cuda::DevicePtr p : {flush, reference, partials})
    if (p)
      driver.free(p);
  driver.unloadModule(compareModule);
  driver.unloadModule(flushModule);
}

/// Threads of the comparison kernel (256 blocks of 256): each sums a
/// strided share of the elements.
static constexpr int64_t kCompareBlocks = 256, kCompareThreads = 256;

std::string tessel::comparePtx(llvm::StringRef elementType) {
  // Loads out[i] (%rd4) into the f64 register %fd2.
  std::string load;
  if (elementType == "f64")
    load = "  shl.b64 %rd11, %rd4, 3;\n"
           "  add.u64 %rd11, %rd1, %rd11;\n"
           "  ld.global.f64 %fd2, [%rd11];\n";
  else if (elementType == "f32")
    load = "  shl.b64 %rd11, %rd4, 2;\n"
           "  add.u64 %rd11, %rd1, %rd11;\n"
           "  ld.global.f32 %f1, [%rd11];\n"
           "  cvt.f64.f32 %fd2, %f1;\n";
  else if (elementType == "f16")
    load = "  shl.b64 %rd11, %rd4, 1;\n"
           "  add.u64 %rd11, %rd1, %rd11;\n"
           "  ld.global.b16 %h1, [%rd11];\n"
           "  cvt.f32.f16 %f1, %h1;\n"
           "  cvt.f64.f32 %fd2, %f1;\n";
  else // bf16
    load = "  shl.b64 %rd11, %rd4, 1;\n"
           "  add.u64 %rd11, %rd1, %rd11;\n"
           "  ld.global.b16 %h1, [%rd11];\n"
           "  cvt.u32.u16 %r5, %h1;\n"
           "  shl.b32 %r5, %r5, 16;\n"
           "  mov.b32 %f1, %r5;\n"
           "  cvt.f64.f32 %fd2, %f1;\n";
  return llvm::formatv(R"(.version 7.0
.target sm_70
.address_size 64

// For i < n in a grid-stride loop: NaN outputs are counted, the others add
// (out[i] - ref[i])^2 and ref[i]^2 to the thread's sums and raise its
// largest |out[i] - ref[i]|; thread t writes its four values to
// part[4t .. 4t+3] (the count as an integer).
.visible .entry tessel_compare(
  .param .u64 pout, .param .u64 pref, .param .u64 pn, .param .u64 ppart)
{{
  .reg .pred %p<4>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<20>;
  .reg .f32 %f<2>;
  .reg .f64 %fd<10>;
  .reg .b16 %h<2>;

  ld.param.u64 %rd1, [pout];
  ld.param.u64 %rd2, [pref];
  ld.param.u64 %rd3, [pn];
  ld.param.u64 %rd9, [ppart];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  cvta.to.global.u64 %rd9, %rd9;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mul.wide.u32 %rd4, %r1, %r2;
  cvt.u64.u32 %rd5, %r3;
  add.u64 %rd4, %rd4, %rd5;
  mov.u64 %rd16, %rd4;
  mov.u32 %r4, %nctaid.x;
  mul.wide.u32 %rd6, %r4, %r2;
  mov.f64 %fd5, 0d0000000000000000;
  mov.f64 %fd6, 0d0000000000000000;
  mov.f64 %fd7, 0d0000000000000000;
  mov.u64 %rd15, 0;
LOOP:
  setp.ge.u64 %p1, %rd4, %rd3;
  @%p1 bra DONE;
{0}  shl.b64 %rd12, %rd4, 3;
  add.u64 %rd12, %rd2, %rd12;
  ld.global.f64 %fd3, [%rd12];
  setp.nan.f64 %p2, %fd2, %fd2;
  @%p2 add.u64 %rd15, %rd15, 1;
  @%p2 bra NEXT;
  sub.f64 %fd4, %fd2, %fd3;
  fma.rn.f64 %fd5, %fd4, %fd4, %fd5;
  fma.rn.f64 %fd6, %fd3, %fd3, %fd6;
  abs.f64 %fd4, %fd4;
  max.f64 %fd7, %fd7, %fd4;
NEXT:
  add.u64 %rd4, %rd4, %rd6;
  bra LOOP;
DONE:
  shl.b64 %rd13, %rd16, 5;
  add.u64 %rd13, %rd9, %rd13;
  st.global.f64 [%rd13], %fd5;
  st.global.f64 [%rd13+8], %fd6;
  st.global.f64 [%rd13+16], %fd7;
  st.global.u64 [%rd13+24], %rd15;
  ret;
}
)",
                       load)
      .str();
}

std::optional<RunOptions::L2Flush>
tessel::parseL2Flush(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<RunOptions::L2Flush>>(name)
      .Case("read", RunOptions::L2Flush::Read)
      .Case("write", RunOptions::L2Flush::Write)
      .Case("none", RunOptions::L2Flush::None)
      .Default(std::nullopt);
}

llvm::StringRef tessel::l2FlushName(RunOptions::L2Flush flush) {
  switch (flush) {
  case RunOptions::L2Flush::Read:
    return "read";
  case RunOptions::L2Flush::Write:
    return "write";
  case RunOptions::L2Flush::None:
    return "none";
  }
  llvm_unreachable("unknown L2 flush");
}

/// The read flush's launch: kFlushBlocks x kFlushThreads threads, each
/// reading four 16-byte granules per turn of a grid-stride loop; the
/// buffer's size is a multiple of one turn (16 MiB).
static constexpr int64_t kFlushBlocks = 1024, kFlushThreads = 256;
static constexpr uint64_t kFlushBytes = 256ull << 20;
static_assert(kFlushBytes % (kFlushBlocks * kFlushThreads * 4 * 16) == 0);

std::string tessel::l2FlushReadPtx() {
  return R"(.version 7.0
.target sm_70
.address_size 64

// Reads the n 16-byte granules of buf (n a multiple of four times the
// grid's threads), four per thread and turn, and xors what it reads. The
// buffer holds zeros, so the store that keeps the loads alive never runs.
.visible .entry tessel_l2_read(.param .u64 pbuf, .param .u64 pn)
{
  .reg .pred %p<3>;
  .reg .b32 %r<24>;
  .reg .b64 %rd<16>;

  ld.param.u64 %rd1, [pbuf];
  ld.param.u64 %rd2, [pn];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mul.wide.u32 %rd3, %r1, %r2;
  cvt.u64.u32 %rd4, %r3;
  add.u64 %rd3, %rd3, %rd4;
  mov.u32 %r4, %nctaid.x;
  mul.wide.u32 %rd5, %r4, %r2;
  shl.b64 %rd6, %rd5, 4;
  mov.u32 %r20, 0;
LOOP:
  setp.ge.u64 %p1, %rd3, %rd2;
  @%p1 bra DONE;
  shl.b64 %rd7, %rd3, 4;
  add.u64 %rd7, %rd1, %rd7;
  add.u64 %rd8, %rd7, %rd6;
  add.u64 %rd9, %rd8, %rd6;
  add.u64 %rd10, %rd9, %rd6;
  ld.global.v4.u32 {%r5, %r6, %r7, %r8}, [%rd7];
  ld.global.v4.u32 {%r9, %r10, %r11, %r12}, [%rd8];
  ld.global.v4.u32 {%r13, %r14, %r15, %r16}, [%rd9];
  ld.global.v4.u32 {%r17, %r18, %r19, %r21}, [%rd10];
  xor.b32 %r20, %r20, %r5;
  xor.b32 %r20, %r20, %r6;
  xor.b32 %r20, %r20, %r7;
  xor.b32 %r20, %r20, %r8;
  xor.b32 %r20, %r20, %r9;
  xor.b32 %r20, %r20, %r10;
  xor.b32 %r20, %r20, %r11;
  xor.b32 %r20, %r20, %r12;
  xor.b32 %r20, %r20, %r13;
  xor.b32 %r20, %r20, %r14;
  xor.b32 %r20, %r20, %r15;
  xor.b32 %r20, %r20, %r16;
  xor.b32 %r20, %r20, %r17;
  xor.b32 %r20, %r20, %r18;
  xor.b32 %r20, %r20, %r19;
  xor.b32 %r20, %r20, %r21;
  shl.b64 %rd11, %rd5, 2;
  add.u64 %rd3, %rd3, %rd11;
  bra LOOP;
DONE:
  setp.ne.u32 %p2, %r20, 0;
  @%p2 st.global.u32 [%rd1], %r20;
  ret;
}
)";
}

/// Loads the PTX `image` into `module` (which the caller unloads, also
/// when this fails after loading it) and returns its kernel `name`.
static llvm::Expected<cuda::Function> loadKernel(cuda::Driver &driver,
                                                 llvm::StringRef image,
                                                 llvm::StringRef name,
                                                 cuda::Module &module) {
  llvm::Expected<cuda::Module> loaded = driver.loadModule(image);
  if (!loaded)
    return loaded.takeError();
  module = *loaded;
  return driver.getFunction(module, name);
}

llvm::Expected<std::unique_ptr<PreparedArguments>>
PreparedArguments::prepare(cuda::Driver &driver, const HostFunctionSpec &spec,
                           const RunOptions &options) {
  std::unique_ptr<PreparedArguments> prepared(new PreparedArguments(driver));
  prepared->signature = argumentSignature(spec, options);

  // Inputs: seeded random values of mean 0 and variance 1, generated on
  // the GPU (a host generator took seconds for large matrices).
  llvm::StringMap<std::pair<cuda::Module, cuda::Function>> fills;
  llvm::scope_exit unloadFills([&] {
    for (auto &entry : fills)
      driver.unloadModule(entry.second.first);
  });
  for (auto [i, buffer] : llvm::enumerate(spec.arguments)) {
    size_t bytes = buffer.numElements() * buffer.elementBytes();
    // Outputs are poisoned 4 bytes at a time: an odd number of 16-bit
    // elements gets one more, which the kernel never writes. Buffers span
    // whole 16-byte granules, as every CUDA allocation does: kernels may
    // read the granule around a valid element (the wgmma producer's loads
    // of misaligned rows), and compute-sanitizer checks the size asked for.
    size_t allocated = llvm::alignTo(bytes, 16);
    llvm::Expected<cuda::DevicePtr> ptr = driver.allocate(allocated);
    if (!ptr)
      return ptr.takeError();
    prepared->buffers.push_back(*ptr);
    prepared->allocatedBytes.push_back(allocated);
    if (llvm::is_contained(spec.results, i))
      continue;
    if (!llvm::is_contained({"f32", "f16", "bf16", "f64"}, buffer.elementType))
      return fail("input argument #" + llvm::Twine(i) + " has element type '" +
                  buffer.elementType + "': only float inputs are generated");
    auto &fill = fills[buffer.elementType];
    if (!fill.first) {
      llvm::Expected<cuda::Function> function =
          loadKernel(driver, randomFillPtx(buffer.elementType),
                     "tessel_fill_random", fill.first);
      if (!function)
        return function.takeError();
      fill.second = *function;
    }
    uint64_t out = *ptr, n = buffer.numElements();
    uint64_t key = fillKey(options.seed, i);
    std::vector<void *> params = {&out, &n, &key};
    int64_t block[3] = {256, 1, 1};
    int64_t grid[3] = {
        std::clamp<int64_t>(llvm::divideCeil(int64_t(n), 256), 1, 4096), 1, 1};
    if (llvm::Error e = driver.launch(fill.second, grid, block, 0, params))
      return std::move(e);
  }
  if (llvm::Error e = driver.synchronize())
    return std::move(e);

  if (spec.workload && options.reference != "none") {
    const WorkloadSpec &w = *spec.workload;
    const BufferSpec &out = spec.arguments[w.out];
    llvm::StringRef lhsType = spec.arguments[w.lhs].elementType;
    llvm::StringRef rhsType = spec.arguments[w.rhs].elementType;
    bool cpu = options.reference == "cpu" ||
               (options.reference == "auto" && w.flops() <= 2.0 * (1 << 27));
    // Host copies of what the host reads: A and B for the CPU reference,
    // the epilogue's operands.
    std::vector<std::vector<uint8_t>> host(spec.arguments.size());
    auto copyBack = [&](unsigned index) -> llvm::Error {
      if (!host[index].empty())
        return llvm::Error::success();
      const BufferSpec &b = spec.arguments[index];
      host[index].resize(b.numElements() * b.elementBytes());
      return driver.copyToHost(host[index].data(), prepared->buffers[index],
                               host[index].size());
    };
    for (const EpilogueOperandSpec &operand : w.operands)
      if (llvm::Error e = copyBack(operand.argument))
        return std::move(e);
    std::vector<double> reference;
    if (cpu) {
      if (llvm::Error e = copyBack(w.lhs))
        return std::move(e);
      if (llvm::Error e = copyBack(w.rhs))
        return std::move(e);
      reference = cpuContraction(w, host[w.lhs], lhsType, host[w.rhs], rhsType);
      prepared->referenceKind = "cpu-f64";
    } else {
      llvm::Expected<cuda::DevicePtr> refPtr =
          driver.allocate(out.numElements() * sizeof(double));
      if (!refPtr)
        return refPtr.takeError();
      llvm::scope_exit freeRef([&] { driver.free(*refPtr); });
      if (llvm::Error e = gpuContraction(driver, w, lhsType, rhsType,
                                         prepared->buffers[w.lhs],
                                         prepared->buffers[w.rhs], *refPtr))
        return std::move(e);
      reference.resize(out.numElements());
      if (llvm::Error e = driver.copyToHost(reference.data(), *refPtr,
                                            reference.size() * sizeof(double)))
        return std::move(e);
      prepared->referenceKind = "gpu-f64";
    }
    applyEpilogue(w, spec.arguments, host, reference);
    // The reference and the comparison kernel stay on the device: a check
    // copies back a few sums, not the output.
    llvm::Expected<cuda::DevicePtr> onDevice =
        driver.allocate(reference.size() * sizeof(double));
    if (!onDevice)
      return onDevice.takeError();
    prepared->reference = *onDevice;
    if (llvm::Error e = driver.copyToDevice(*onDevice, reference.data(),
                                            reference.size() * sizeof(double)))
      return std::move(e);
    llvm::Expected<cuda::Function> compare =
        loadKernel(driver, comparePtx(out.elementType), "tessel_compare",
                   prepared->compareModule);
    if (!compare)
      return compare.takeError();
    prepared->compare = *compare;
    llvm::Expected<cuda::DevicePtr> partials =
        driver.allocate(kCompareBlocks * kCompareThreads * 4 * sizeof(double));
    if (!partials)
      return partials.takeError();
    prepared->partials = *partials;
  }

  if (options.flush != RunOptions::L2Flush::None) {
    prepared->flushBytes = kFlushBytes;
    llvm::Expected<cuda::DevicePtr> p = driver.allocate(prepared->flushBytes);
    if (!p)
      return p.takeError();
    prepared->flush = *p;
  }
  if (options.flush == RunOptions::L2Flush::Read) {
    // Zeros, which tessel_l2_read's store tests for.
    if (llvm::Error e =
            driver.fill32(prepared->flush, 0, prepared->flushBytes / 4))
      return std::move(e);
    llvm::Expected<cuda::Function> read =
        loadKernel(driver, l2FlushReadPtx(), "tessel_l2_read",
                   prepared->flushModule);
    if (!read)
      return read.takeError();
    prepared->flushRead = *read;
  }
  return prepared;
}

using Clock = std::chrono::steady_clock;

static double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start)
      .count();
}

llvm::Expected<RunResult> tessel::runHostFunction(cuda::Driver &driver,
                                                  const HostFunctionSpec &spec,
                                                  llvm::StringRef dir,
                                                  const RunOptions &options) {
  Clock::time_point start = Clock::now();
  llvm::Expected<std::unique_ptr<PreparedArguments>> arguments =
      PreparedArguments::prepare(driver, spec, options);
  if (!arguments)
    return arguments.takeError();
  double prepareMs = msSince(start);
  llvm::Expected<RunResult> result =
      runHostFunction(driver, spec, dir, options, **arguments);
  if (result)
    result->prepareMs = prepareMs;
  return result;
}

llvm::Expected<RunResult> tessel::runHostFunction(cuda::Driver &driver,
                                                  const HostFunctionSpec &spec,
                                                  llvm::StringRef dir,
                                                  const RunOptions &options,
                                                  PreparedArguments &prepared) {
  if (!prepared.serves(spec, options))
    return fail("the prepared arguments do not serve '" + spec.name + "'");
  RunResult result;
  result.function = spec.name;
  result.device = driver.device().name;
  result.chip = driver.device().chip();

  Clock::time_point phase = Clock::now();
  llvm::Expected<LoadedFunction> function =
      LoadedFunction::load(driver, spec, dir);
  if (!function)
    return function.takeError();
  result.loadMs = msSince(phase);
  phase = Clock::now();

  // Outputs poisoned with NaN: an element the kernel does not write fails.
  const std::vector<cuda::DevicePtr> &args = prepared.buffers;
  for (unsigned i : spec.results)
    if (llvm::Error e =
            driver.fill32(args[i], nanPattern(spec.arguments[i].elementType),
                          prepared.allocatedBytes[i] / 4))
      return std::move(e);

  auto runOnce = [&]() -> llvm::Error { return function->launch(args); };

  // Run once, then check.
  if (llvm::Error e = runOnce())
    return std::move(e);
  if (llvm::Error e = driver.synchronize())
    return std::move(e);
  // The timed calls find the kept workspaces as this one left them.
  if (llvm::Error e = function->checkLeftZeroed())
    return std::move(e);

  result.reference = prepared.referenceKind;
  if (prepared.reference) {
    const WorkloadSpec &w = *spec.workload;
    const BufferSpec &out = spec.arguments[w.out];
    uint64_t output = args[w.out], reference = prepared.reference,
             n = out.numElements(), partials = prepared.partials;
    std::vector<void *> params = {&output, &reference, &n, &partials};
    int64_t grid[3] = {kCompareBlocks, 1, 1};
    int64_t block[3] = {kCompareThreads, 1, 1};
    if (llvm::Error e = driver.launch(prepared.compare, grid, block, 0, params))
      return std::move(e);
    std::vector<double> sums(kCompareBlocks * kCompareThreads * 4);
    if (llvm::Error e = driver.copyToHost(sums.data(), partials,
                                          sums.size() * sizeof(double)))
      return std::move(e);
    // Summed in thread order: the same result on every run.
    double errorSq = 0, refSq = 0, maxAbs = 0;
    for (size_t t = 0; t < sums.size(); t += 4) {
      errorSq += sums[t];
      refSq += sums[t + 1];
      maxAbs = std::max(maxAbs, sums[t + 2]);
      uint64_t nans;
      std::memcpy(&nans, &sums[t + 3], sizeof(nans));
      result.nanCount += nans;
    }
    result.checked = true;
    result.relativeError =
        refSq > 0 ? std::sqrt(errorSq / refSq) : std::sqrt(errorSq);
    result.maxAbsError = maxAbs;
    result.tolerance = options.tolerance > 0
                           ? options.tolerance
                           : defaultTolerance(out.elementType, w.precision);
    result.passed = result.nanCount == 0 &&
                    std::isfinite(result.relativeError) &&
                    result.relativeError <= result.tolerance;
  }
  result.checkMs = msSince(phase);
  phase = Clock::now();

  // Time: L2 flushed (options.flush) before each repeat, one event pair per
  // repeat.
  llvm::Expected<cuda::Event> probeStart = driver.createEvent();
  llvm::Expected<cuda::Event> probeEnd = driver.createEvent();
  if (!probeStart || !probeEnd)
    return fail("cannot create CUDA events");
  auto flushL2 = [&]() -> llvm::Error {
    switch (options.flush) {
    case RunOptions::L2Flush::Read: {
      uint64_t buffer = prepared.flush, granules = prepared.flushBytes / 16;
      std::vector<void *> params = {&buffer, &granules};
      int64_t grid[3] = {kFlushBlocks, 1, 1};
      int64_t block[3] = {kFlushThreads, 1, 1};
      return driver.launch(prepared.flushRead, grid, block, 0, params);
    }
    case RunOptions::L2Flush::Write:
      return driver.fill32(prepared.flush, 0, prepared.flushBytes / 4);
    case RunOptions::L2Flush::None:
      return llvm::Error::success();
    }
    llvm_unreachable("unknown L2 flush");
  };
  // `withFlush`: the events bracket the flush too (the estimate).
  auto timeOne = [&](cuda::Event start, cuda::Event end,
                     bool withFlush = false) -> llvm::Error {
    if (withFlush)
      if (llvm::Error e = driver.record(start))
        return e;
    if (llvm::Error e = flushL2())
      return e;
    if (!withFlush)
      if (llvm::Error e = driver.record(start))
        return e;
    if (llvm::Error e = runOnce())
      return e;
    return driver.record(end);
  };
  // Estimate one timed repeat, its flush included (as do_bench does), then
  // size warm-up and repeats by budget: the budgets are the loops' time,
  // not the kernel's alone, which for a 10 us kernel behind a 256 MiB
  // flush was a tenth of it (about 1 s per measurement instead of 0.12).
  double estimate = 0;
  for (int i = 0; i < 5; ++i) {
    if (llvm::Error e = timeOne(*probeStart, *probeEnd, /*withFlush=*/true))
      return std::move(e);
    llvm::Expected<float> ms = driver.elapsedMs(*probeStart, *probeEnd);
    if (!ms)
      return ms.takeError();
    estimate += *ms / 5;
  }
  estimate = std::max(estimate, 1e-4);
  int warmup =
      std::clamp(int(options.warmupMs / estimate), 1, options.maxRepeats);
  int repeats = std::clamp(int(options.repeatMs / estimate), options.minRepeats,
                           options.maxRepeats);
  for (int i = 0; i < warmup; ++i)
    if (llvm::Error e = runOnce())
      return std::move(e);
  std::vector<cuda::Event> events;
  for (int i = 0; i < 2 * repeats; ++i) {
    llvm::Expected<cuda::Event> event = driver.createEvent();
    if (!event)
      return event.takeError();
    events.push_back(*event);
  }
  llvm::scope_exit destroyEvents([&] {
    for (cuda::Event e : events)
      driver.destroyEvent(e);
    driver.destroyEvent(*probeStart);
    driver.destroyEvent(*probeEnd);
  });
  for (int i = 0; i < repeats; ++i)
    if (llvm::Error e = timeOne(events[2 * i], events[2 * i + 1]))
      return std::move(e);
  if (llvm::Error e = driver.synchronize())
    return std::move(e);
  std::vector<double> times;
  for (int i = 0; i < repeats; ++i) {
    llvm::Expected<float> ms =
        driver.elapsedMs(events[2 * i], events[2 * i + 1]);
    if (!ms)
      return ms.takeError();
    times.push_back(*ms);
  }
  std::sort(times.begin(), times.end());
  result.repeats = repeats;
  result.l2Flush = l2FlushName(options.flush).str();
  result.minMs = times.front();
  result.maxMs = times.back();
  result.medianMs = repeats % 2
                        ? times[repeats / 2]
                        : (times[repeats / 2 - 1] + times[repeats / 2]) / 2;
  if (spec.workload)
    result.tflops = spec.workload->flops() / (result.medianMs * 1e-3) / 1e12;
  result.timeMs = msSince(phase);
  return result;
}

llvm::json::Value tessel::toJSON(const RunResult &r) {
  return llvm::json::Object{
      {"function", r.function},
      {"device", r.device},
      {"chip", r.chip},
      {"reference", r.reference},
      {"checked", r.checked},
      {"passed", r.passed},
      {"relative_error", r.relativeError},
      {"max_abs_error", r.maxAbsError},
      {"tolerance", r.tolerance},
      {"nan_count", r.nanCount},
      {"repeats", r.repeats},
      {"l2_flush", r.l2Flush},
      {"median_ms", r.medianMs},
      {"min_ms", r.minMs},
      {"max_ms", r.maxMs},
      {"tflops", r.tflops},
      {"phases_ms", llvm::json::Object{{"prepare", r.prepareMs},
                                       {"load", r.loadMs},
                                       {"check", r.checkMs},
                                       {"time", r.timeMs}}},
  };
}
