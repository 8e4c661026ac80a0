//===- Passes.td - Tessel pass definitions -----------------*- tablegen -*-===//
//
// Passes of the Tessel compiler, kept in alphabetical order.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_TRANSFORMS_PASSES
#define TESSEL_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"

def TesselApplySchedule : Pass<"tessel-apply-schedule", "::mlir::ModuleOp"> {
  let summary = "Apply a Transform Dialect schedule with knob values chosen for the payload";
  let description = [{
    Loads schedule libraries (modules of `transform.named_sequence`s), sets
    the `selected` value of every `transform.tune.knob`, runs the transform
    interpreter on the payload module from the entry sequence and leaves the
    payload without any schedule in it.

    ```mlir
    // schedule.mlir
    transform.named_sequence @__transform_main(%root: !transform.any_op) {
      %tm = transform.tune.knob<"tile_m"> = 64 from options = [32, 64, 128]
          -> !transform.param<i64>
      ...
    }
    ```

    Knob values, first source that has them:
    1. `knobs` (`name=value` pairs) for the knobs it names;
    2. the fastest verified record of the workload in the tuning databases
       `db` for `device` (or for the only device recorded), else for
       another GPU of the same architecture (an H200's records on an H100);
    3. with `defaults=rule` (the default), the rule: every point of the
       schedule's knob space ranked by a model of its time on the chip
       (`docs/knob-rule.md`); with `defaults=nearest`, the records of the
       nearest tuned shape, then the rule; with `defaults=schedule`, the
       `selected` values written in the schedule.
    Rule and nearest-record candidates are applied in order until one
    succeeds, so a shape the schedule can serve always gets a kernel. The
    payload's functions record the schedule, its hash, the knob values and
    where they came from (`tessel.schedule`, read into the launch metadata).

    `schedule` may list several libraries: each is tried in order and the
    first that serves the payload is applied, with a remark naming the ones
    that could not and why (e.g. wgmma, then mma.sync).

    First, a chain of elementwise `linalg.generic`s on tensors (a bias add,
    an activation, a conversion) is fused into one generic with upstream's
    elementwise fusion, where each link's result has no other user: the
    schedules tile one epilogue after the contraction. A contraction that
    accumulates straight into a result gets one, after its workload is
    recorded: it accumulates into a fresh tensor and a generic writes
    `acc + 0.0` (exact) into the result.

    `tessel-opt in.mlir --tessel-apply-schedule="schedule=schedule.mlir knobs=tile_m=128"`

    An unknown knob name, a value outside a knob's options, a knob left
    without any value, a missing schedule file or entry point, or a payload
    that no schedule serves is reported as a located error (the first
    schedule's own diagnostics, then a summary) and fails the pass.
  }];
  let options = [
    ListOption<"schedules", "schedule", "std::string",
               "Schedule libraries (.mlir), tried in order">,
    Option<"entry", "entry", "std::string", /*default=*/"\"__transform_main\"",
           "Name of the named sequence to run">,
    ListOption<"knobs", "knobs", "std::string",
               "Knob values as name=value; they win over every other source">,
    ListOption<"dbs", "db", "std::string",
               "Tuning databases: the knobs of the fastest verified record "
               "of this workload, schedule and compiler">,
    Option<"device", "device", "std::string", /*default=*/"",
           "With db=: the device whose records to use (default: the only "
           "one recorded for the workload)">,
    Option<"chip", "chip", "std::string", /*default=*/"",
           "The GPU the kernels are for (sm_80, sm_90, sm_90a, ...): records "
           "of devices of its architecture apply, and the rule uses its "
           "limits (default: the schedule's tessel.target_chip, else sm_90)">,
    Option<"smCount", "sm-count", "int64_t", /*default=*/"0",
           "Multiprocessors of the GPU, for the rule (default: the chip's "
           "usual count, 132 for sm_90)">,
    Option<"givenSource", "source", "std::string", /*default=*/"\"given\"",
           "How the launch metadata names the source of knobs= when it sets "
           "every knob (tessel-tune records its winner's)">,
    Option<"defaults", "defaults", "std::string", /*default=*/"\"rule\"",
           "Knobs without a tuned record: rule, nearest (the nearest tuned "
           "shape's record, then the rule) or schedule (its selected "
           "values)">,
  ];
  let dependentDialects = [
    "::mlir::transform::TransformDialect",
  ];
}

def TesselAttachNvvmTarget : Pass<"tessel-attach-nvvm-target", "::mlir::ModuleOp"> {
  let summary = "Attach an NVVM target for the payload's chip to every GPU module";
  let description = [{
    Gives every `gpu.module` without a target an `#nvvm.target` for the
    chip `tessel-check-kernel-payload` resolved (the module's `tessel.chip`
    attribute: the `chip=` given, or the one the payload's schedules were
    written for), else for `chip`. Unlike upstream's `nvvm-attach-target`,
    whose chip is fixed when the pipeline is built, the chip can come from
    the payload: `tessel-lower-to-ptx` without `chip=` compiles a wgmma
    schedule's kernels for its `sm_90a`. The PTX version in `features` must
    support the chip (a located error otherwise).

    ```mlir
    module attributes {tessel.chip = "sm_90a"} {
      gpu.module @k { ... }
    }
    // -> gpu.module @k [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">]
    ```
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90\"",
           "The chip when the module records none">,
    Option<"features", "features", "std::string", /*default=*/"\"+ptx80\"",
           "PTX features (+ptxNN)">,
    Option<"optLevel", "O", "unsigned", /*default=*/"3",
           "LLVM optimization level (0-3)">,
  ];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect",
    "::mlir::NVVM::NVVMDialect",
  ];
}

def TesselCheckKernelPayload : Pass<"tessel-check-kernel-payload", "::mlir::ModuleOp"> {
  let summary = "Check that a scheduled payload can be lowered to GPU kernels";
  let description = [{
    The entry check of `tessel-lower-to-ptx`. A payload is accepted when
    every function is bufferized (no tensor values), has statically shaped
    memref arguments, and all its computation sits in `gpu.launch` or
    `gpu.launch_func` ops; kernels must not allocate global memory
    (`memref.alloc` inside a launch would become device `malloc`).

    With `index-bitwidth=32`, kernels compute addresses in 32 bits: a
    buffer of 2^31 bytes or more cannot be addressed and is rejected.

    Before any lowering, what NVPTX cannot compile is refused where it
    appears (it aborted in instruction selection or the PTX printer): a
    function name that is not a PTX identifier (kernels are named after
    their function), element types wider than 64 bits (`f80`, `f128`,
    `i128`), and, given a chip, GPU operations that chip lacks:
    `cp.async` and `mma.sync` need sm_80, `ldmatrix` sm_75, wgmma, TMA
    and transaction-count mbarriers sm_90a.

    The chip is `chip`, else the one the payload's schedules were written
    for (`target_chip` in a function's `tessel.schedule` record, which
    tessel-apply-schedule copies from the schedule's `tessel.target_chip`),
    else `default-chip`. A function whose schedule's kernels do not run on
    an explicit `chip` (wgmma's sm_90a code with chip=sm_90, mma.sync's
    `tessel.min_chip` sm_80 with chip=sm_75) is refused at the function,
    before anything is lowered. The chip is recorded as the module's
    `tessel.chip` attribute for the later steps of `tessel-lower-to-ptx`.

    ```mlir
    func.func @f(%a: tensor<4x4xf32>) -> tensor<4x4xf32> { ... }
    // error: function 'f' still computes on tensors: was a schedule applied?
    ```
  }];
  let options = [
    Option<"indexBitwidth", "index-bitwidth", "unsigned", /*default=*/"64",
           "The kernels' index width (32 or 64)">,
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "The target chip (sm_XX[a]); when empty, the one the payload's "
           "schedules declare (tessel.target_chip), else default-chip">,
    Option<"defaultChip", "default-chip", "std::string", /*default=*/"\"\"",
           "The chip when neither chip= nor the payload names one; when "
           "empty too, operations are not checked against a chip">,
  ];
}

def TesselExportKernels : Pass<"tessel-export-kernels", "::mlir::ModuleOp"> {
  let summary = "Write each kernel's PTX and launch metadata to files";
  let description = [{
    Runs on a module lowered by `tessel-lower-to-ptx` (host functions with
    `gpu.launch_func` ops and `gpu.binary` ops holding PTX). For every
    `gpu.binary` it writes `<dir>/<binary>.ptx`, and for every host function
    `<dir>/<function>.launch.json` describing what a runtime needs to run
    it: the function's arguments (element type, shape), and for each launch
    in order, the kernel, its PTX file, grid and block sizes, dynamic shared
    memory and the kernel parameters (which function argument each one is;
    memrefs are passed as bare pointers).

    ```mlir
    gpu.launch_func @matmul_relu_kernel::@matmul_relu_kernel
        blocks in (%c64, %c64, %c1) threads in (%c16, %c16, %c1)
        args(%A : memref<4096x4096xf32>, ...)
    // -> matmul_relu.launch.json with "grid": [64, 64, 1], "block": [16, 16, 1]
    ```

    The module itself is left unchanged. Launch sizes and kernel arguments
    that are not constants or function arguments are rejected.
  }];
  let options = [
    Option<"dir", "dir", "std::string", /*default=*/"\".\"",
           "Directory the .ptx and .launch.json files are written to">,
  ];
}

def TesselLowerBf16MmaSync : Pass<"tessel-lower-bf16-mma-sync"> {
  let summary = "Lower bf16 nvgpu.mma.sync to nvvm.mma.sync, which upstream's NVGPU lowering cannot";
  let description = [{
    MLIR 22's `convert-nvgpu-to-nvvm` fails on `nvgpu.mma.sync` with bf16
    operands ("failed to deduce operand PTX types"), although PTX has
    `mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32`. This pass rewrites
    each bf16 m16n8k16 `nvgpu.mma.sync` with f32 accumulators into
    `nvvm.mma.sync` itself: each pair of bf16 values becomes one 32-bit
    register (`vector.bitcast`), the result struct is unpacked into the
    `vector<2x2xf32>` the rest of the code expects. Other `nvgpu.mma.sync`
    ops are left to the upstream lowering.

    ```mlir
    %d = nvgpu.mma.sync(%a, %b, %c) {mmaShape = [16, 8, 16]}
        : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
    // becomes
    %r = nvvm.mma.sync A[...] B[...] C[...] {layoutA = #nvvm.mma_layout<row>,
        layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>,
        multiplicandBPtxType = #nvvm.mma_type<bf16>,
        shape = #nvvm.shape<m = 16, n = 8, k = 16>}
        : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
    ```
  }];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def TesselExternDynamicSharedMemory : Pass<"tessel-extern-dynamic-shared-memory", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Declare the dynamic shared memory symbol extern, after the static shared variables";
  let description = [{
    Runs inside a `gpu.module` after `convert-gpu-to-nvvm`, which lowers
    `gpu.dynamic_shared_memory` to the address of a zero-length
    `llvm.mlir.global internal` in address space 3. NVPTX prints an
    internal global of that kind as a one-byte *static* shared variable
    (`.shared .align 16 .b8 __dynamic_shmem__0;`), which `ptxas` lays out
    among the kernel's other static shared variables. Declared first, it
    lands at the start of the static area and the `nvgpu.mbarrier.create`
    barriers right after it (on an H100: the buffer at shared address
    0x400, the barriers at 0x408 and 0x428), so the "dynamic" buffer
    overlaps them. A TMA load or an
    epilogue store into the first bytes of that buffer then overwrites
    live barriers (measured: wgmma kernels that crash, hang or write NaNs
    on multi-wave grids; bench/results/any-shape/README.md).

    The pass gives every zero-length address-space-3 global external
    linkage, which NVPTX prints as `.extern .shared .align A .b8 name[];`:
    true dynamic shared memory, which the driver places after the static
    variables.

    ```mlir
    // Before
    llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
    // After
    llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def TesselLowerMath : Pass<"tessel-lower-math"> {
  let summary = "Lower math ops without libdevice";
  let description = [{
    The NVVM conversion turns most `math` ops into calls to CUDA's libdevice
    (`__nv_tanhf`), which serialization links only when it finds a CUDA
    toolkit: without one the PTX names an extern function the driver cannot
    resolve. This pass makes kernels independent of that: `exp2`, `powf`
    and `rsqrt` are expanded, 16-bit math is computed in f32, `tanh`, `erf`,
    `exp`, `expm1` and the logarithms become polynomial approximations (f32
    accuracy), and `absf`, `copysign`, `floor`, `ceil` and `fma` exact
    arith (or `vector.fma`) forms. Any other math op (`sqrt`, `sin`, ...)
    and `arith.remf` is an error at its location.

    ```mlir
    %t = math.tanh %x : vector<4xf32>
    // becomes clamps, FMAs and a division on vector<4xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::math::MathDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def TesselLowerTensorMapParams : Pass<"tessel-lower-tensor-map-params", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Pass TMA tensor maps to kernels as __grid_constant__ parameters";
  let description = [{
    Runs inside a `gpu.module` after `convert-nvgpu-to-nvvm`, which lowers
    the uses of a `!nvgpu.tensormap.descriptor` to an `!llvm.ptr` but not
    the kernel arguments themselves (upstream converts the descriptors on
    the host, before outlining, into pointers to device memory). Here each
    kernel argument of that type becomes an `!llvm.ptr` with
    `llvm.byval = !llvm.array<128 x i8>`, `llvm.align = 64` and
    `nvvm.grid_constant`: the 128-byte `CUtensorMap` travels in the kernel's
    parameter space, as CUDA's `const __grid_constant__ CUtensorMap`, and
    TMA instructions read it there through its generic address. The
    launcher passes the encoded map by value (Tessel's runtime builds it
    from the launch metadata with `cuTensorMapEncodeTiled`); no device
    allocation or copy is needed per launch.

    NVVM accepts `nvvm.grid_constant` only on an `llvm.func` kernel, and
    `convert-gpu-to-nvvm` drops argument attributes such as `llvm.byval`,
    so the pass runs twice: after `convert-nvgpu-to-nvvm` it retypes the
    `gpu.func` arguments and lists them in the kernel's
    `tessel.tensor_map_args` attribute; after `convert-gpu-to-nvvm` it
    gives the listed `llvm.func` arguments their attributes.

    Fails with a located error when such an argument has a use other than
    the conversion casts left by `convert-nvgpu-to-nvvm` (run that first).
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect"];
}

def TesselLowerVectors : Pass<"tessel-lower-vectors"> {
  let summary = "Lower n-D vector ops to the 1-D form the NVVM lowering accepts";
  let description = [{
    Inside GPU code, the NVVM conversion only handles 1-D vectors. This pass
    lowers `vector.contract` to outer products and FMAs, unrolls n-D
    transfers into 1-D ones (in-bounds minor-identity transfers become
    `vector.load`/`vector.store`), and lowers broadcasts, transposes,
    shape casts and reductions, so that every vector op left is 1-D.

    ```mlir
    %r = vector.contract {...} %a, %b, %acc
        : vector<4x8xf32>, vector<8x4xf32> into vector<4x4xf32>
    // becomes 8 rank-1 updates, each 4 vector.fma on vector<4xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def TesselPackWorkgroupMemory : Pass<"tessel-pack-workgroup-memory", "::mlir::ModuleOp"> {
  let summary = "Place each gpu.launch's workgroup-memory allocations in its dynamic shared memory";
  let description = [{
    Schedules allocate shared memory with `memref.alloc` in the workgroup
    address space inside a `gpu.launch` (as `transform.structured.promote`
    or `transform.tessel.rewrite_block_matmul_as_mma_sync` do). The NVVM
    lowering has no allocator for them, and static shared memory is capped
    at 48 KiB per block. This pass lays the allocations of each launch out
    one after the other (each aligned to at least 16 bytes) in the launch's
    dynamic shared memory, replaces each with a `memref.view` of
    `gpu.dynamic_shared_memory`, erases their deallocations and sets the
    launch's `dynamic_shared_memory_size`, which the launch metadata records
    and the runtime grants (opting in above 48 KiB).

    ```mlir
    %a = memref.alloc() : memref<3x128x40xf16, #gpu.address_space<workgroup>>
    // becomes
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %a = memref.view %smem[%c0][] : memref<?xi8, #gpu.address_space<workgroup>>
        to memref<3x128x40xf16, #gpu.address_space<workgroup>>
    ```

    Fails with an error on the allocation when it has a dynamic shape or a
    non-identity layout, or when the launch already sets a dynamic shared
    memory size.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def TesselOverlapLaunches : Pass<"tessel-overlap-launches", "::mlir::func::FuncOp"> {
  let summary = "Let each kernel of a host function launch before the previous one ends (PDL, sm_90+)";
  let description = [{
    A host function that launches several kernels (a copy into aligned
    workspaces, then the matmul) pays each later kernel's launch after the
    previous one ends. With programmatic dependent launch (sm_90 and later)
    the next grid is launched as the previous one's blocks exit, and waits
    on the GPU for that grid's completion. This pass makes every
    `gpu.launch` that follows another one in the function wait for it
    (`nvvm.griddepcontrol wait`) before anything else:

    ```mlir
    gpu.launch ... {            // the copy
      ...
    }
    gpu.launch ... {            // the matmul
      nvvm.griddepcontrol wait
      ...
    }
    ```

    Waiting first keeps the order of every memory access:
    `griddepcontrol.wait` returns once the prerequisite grid has completed
    and its writes are visible, and does nothing when the kernel was
    launched the ordinary way. The launch metadata marks kernels that wait
    (`waits_for_previous`); Tessel's runtime launches those after the first
    kernel of a call with programmatic stream serialization. The
    predecessors do not trigger their dependents early
    (`launch_dependents`): the waiting blocks then occupy the SMs (measured
    on an H100, docs/any-shape.md). When the module records a chip before
    sm_90 (`tessel.chip`, set by `tessel-check-kernel-payload`), it does
    nothing: those chips have no `griddepcontrol`.
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect",
    "::mlir::NVVM::NVVMDialect",
  ];
}

def TesselPersistentLaunches : Pass<"tessel-persistent-launches", "::mlir::ModuleOp"> {
  let summary = "Let runtimes launch persistent kernels with as many blocks as run at once";
  let description = [{
    A persistent kernel (`transform.tessel.rewrite_block_matmul_as_wgmma`
    with `persistent`) walks the tiles of its former grid in loops marked
    `tessel.persistent_tiles = T`: tile `block_id.x`, then `+ grid_dim.x`,
    and so on up to `T`. Its launch has `T` blocks along x, so the kernel
    is correct as launched; a runtime may launch fewer (as many as the GPU
    runs at once) to keep each block's pipeline busy across tiles.

    After `gpu-kernel-outlining`, this pass drops such a kernel's
    `known_grid_size`, which outlining set to `T x 1 x 1` (a compiler may
    fold `grid_dim.x` to it, and a smaller launch would then skip tiles),
    and marks each `gpu.launch_func` of it `tessel.persistent`;
    `tessel-export-kernels` writes that as `"persistent": true`, and
    Tessel's runtime then launches `min(T, SMs x resident blocks per SM)`
    blocks. A launch of such a kernel whose grid is not the constant
    `T x 1 x 1` is an error at the launch.

    ```mlir
    gpu.launch_func @k::@k blocks in (%c512, %c1, %c1) ...
        {tessel.persistent}
    ```
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def TesselRequireClusterDims : Pass<"tessel-require-cluster-dims", "::mlir::ModuleOp"> {
  let summary = "Compile each kernel launched in thread-block clusters for its cluster shape";
  let description = [{
    A `gpu.launch_func` with constant `clusters in (x, y, z)` (what
    `gpu-kernel-outlining` makes of a `gpu.launch clusters(...)`) gives its
    kernel the attribute `nvvm.cluster_dim = array<i32: x, y, z>`, which
    the NVPTX backend emits as `.explicitcluster` and `.reqnctapercluster
    x, y, z`. The kernel then runs in clusters of that shape however it is
    launched (`cuLaunchKernel` included), as a CUDA kernel declared with
    `__cluster_dims__` does: its cluster barriers and distributed shared
    memory accesses cannot meet a launch without clusters. Kernels
    launched with different cluster shapes, or with cluster sizes that are
    not constants, are an error at the launch.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def TesselRequireEntryRegisters : Pass<"tessel-require-entry-registers", "::mlir::ModuleOp"> {
  let summary = "Give kernels that move registers between warpgroups a known register count at entry";
  let description = [{
    `setmaxnreg` (`nvvm.setmaxregister`) moves registers between a block's
    warpgroups through the block's pool: `decrease` returns a warpgroup's
    registers to it, `increase` waits until it holds what is asked. ptxas
    honors it only when it knows the register count at the kernel's entry
    (C7508, "'setmaxnreg' ignored; unable to determine register count at
    entry", otherwise), which takes both `.maxntid` and `.minnctapersm`;
    each thread then starts with what one block of `.maxntid` threads per
    SM allows (168 for 384 threads), and the counts the kernel asks for
    add up within that.

    This pass gives every `gpu.func` kernel that contains
    `nvvm.setmaxregister` the attribute `nvvm.minctasm = 1` (emitted as
    `.minnctapersm 1`); `transform.tessel.rewrite_block_matmul_as_wgmma`
    emits `setmaxnreg` only for blocks that run one per SM anyway. A
    kernel that already asks for more blocks per SM is an error.

    A kernel whose body holds an op marked `tessel.blocks_per_sm = N` (the
    wgmma rewrite marks blocks whose shared memory and registers it sized
    for two per SM) gets `nvvm.minctasm = N`, so that ptxas keeps its
    registers within what N blocks share: left free, it gave a 64x192
    block with a bias 132 registers per thread, and the SM one block
    instead of two (14-31% slower on an H200). Marks that disagree, or a
    mark with `setmaxnreg`, are errors.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::NVVM::NVVMDialect"];
}

def TesselSerializeToPtx : Pass<"tessel-serialize-to-ptx", "::mlir::ModuleOp"> {
  let summary = "Serialize GPU modules to PTX; LLVM's fatal errors become diagnostics";
  let description = [{
    Runs upstream's `gpu-module-to-binary` with `format=isa` (PTX text,
    no CUDA toolkit needed), the last step of `tessel-lower-to-ptx`.

    LLVM's NVPTX backend ends the process on what it cannot compile (`LLVM
    ERROR: Cannot select: intrinsic %llvm.nvvm.cp.async.commit.group`,
    asking for a bug report to LLVM). The check at the pipeline's entry
    refuses the known cases where they appear (`tessel-check-kernel-payload`);
    for the others, this pass reports LLVM's message as an error at the
    GPU module (the `gpu.launch` it was outlined from) and exits with
    status 1, removing its output file, instead of aborting.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def TesselSetVectorAlignment : Pass<"tessel-set-vector-alignment"> {
  let summary = "Mark vector loads and stores with the alignment they provably have";
  let description = [{
    NVPTX only emits wide accesses (`ld.global.v4.f32`, 16 bytes) for loads
    and stores whose alignment is known; MLIR's default is the element's
    alignment. This pass proves alignment instead of assuming it: given that
    kernel buffer arguments (bare pointers) are aligned to
    `pointer-alignment` bytes, it computes, for each `vector.load`,
    `vector.store`, `vector.maskedload` and `vector.maskedstore` on a
    statically shaped, identity-layout memref, a divisor of the linearized
    offset (from constants, loop steps and affine index arithmetic) and sets
    the op's `alignment` to what that divisor guarantees, capped at the
    vector's size.

    ```mlir
    // %i is a multiple of 4 (scf.for step 4):
    %v = vector.load %A[%row, %i] : memref<64x64xf32>, vector<4xf32>
    // becomes
    %v = vector.load %A[%row, %i] {alignment = 16 : i64} : memref<64x64xf32>, vector<4xf32>
    ```

    Runtimes must pass buffers aligned to `pointer-alignment` (cudaMalloc
    gives 256 bytes); the launch metadata records it.

    A block tile that `transform.tessel.shift_partial_tiles` moved back to
    end at a dimension's end starts at `min(b * T, D - T)` for block id `b`;
    where `D - T` is not a multiple of what the accesses need (an f32 row of
    4097 columns read from an aligned copy), no access of any block can be
    proven aligned. With `version-edge-tiles`, such a kernel's body is
    versioned on the block id: the blocks before the last run a copy in
    which the offset is `b * T` and the accesses are aligned; the edge
    blocks run the body as it was.

    ```mlir
    %o = affine.min affine_map<()[s0] -> (4033, s0 * 64)>()[%block_id_x]
    ...
    // becomes
    %in = arith.cmpi ule, %block_id_x, %c63 : index
    scf.if %in {
      %o = affine.apply affine_map<(d0) -> (d0 * 64)>(%block_id_x)
      ...   // {alignment = 16}
    } else {
      %o = affine.min affine_map<()[s0] -> (4033, s0 * 64)>()[%block_id_x]
      ...
    }
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::affine::AffineDialect"];
  let options = [
    Option<"pointerAlignment", "pointer-alignment", "int64_t", /*default=*/"16",
           "Alignment in bytes guaranteed for kernel buffer arguments">,
    Option<"versionEdgeTiles", "version-edge-tiles", "bool", /*default=*/"true",
           "Version kernels whose shifted edge tiles keep accesses from being "
           "proven aligned">,
  ];
}

def TesselTune : Pass<"tessel-tune", "::mlir::ModuleOp"> {
  let summary = "Tune a schedule's knobs on the GPU and apply the fastest";
  let description = [{
    Searches the `transform.tune.knob` values of a schedule for the payload's
    workload: each candidate is compiled (in parallel, one MLIRContext per
    thread) and measured by a persistent `tessel-run --serve` worker per GPU
    (`devices=`), with a timeout: the worker keeps its CUDA context, the
    inputs and the reference between candidates, and a candidate that
    crashes the GPU context, hangs or computes a wrong result is recorded
    with its reason, its worker restarted, and the search goes on
    (`measure=process` runs one `tessel-run` process per candidate instead). Every
    result goes to the SQLite tuning database `db` (a transaction each), keyed by
    workload, device, schedule content and compiler version: a second run
    measures only new candidates; several tuning processes may share one
    database. On a terminal a live line shows the trials done, the best so
    far, the time elapsed and an estimate of the time left (`progress=`).
    The two best and the defaults (the knobs the compiler picks without a
    record) are re-measured on fresh inputs, tuned knobs are kept only if
    they beat the defaults by more than the noise, and the winner is
    applied to the module (as
    `--tessel-apply-schedule` would), so a following `--tessel-lower-to-ptx`
    compiles it.

    ```
    tessel-opt matmul.mlir \
      --tessel-tune="schedule=schedules/matmul_relu_simt.mlir strategy=evolutionary budget=200 db=tuning.db" \
      --tessel-lower-to-ptx="chip=sm_90" -o tuned.mlir
    ```

    Every strategy proposes first the knobs the compiler picks without a
    record (`start=rule`), or the schedule's own defaults
    (`start=defaults`). Strategies: `exhaustive`, `random`, `evolutionary` (population,
    tournament selection, crossover, mutation, elitism) and `model` (a
    regression cost model refit on every result ranks the candidates).
    `replay=DB` takes measurements from a recorded database instead of the
    GPU, to test and compare strategies on machines without one.
  }];
  let options = [
    Option<"schedule", "schedule", "std::string", /*default=*/"",
           "Path of the schedule library (.mlir)">,
    Option<"entry", "entry", "std::string", /*default=*/"\"__transform_main\"",
           "Name of the named sequence to run">,
    Option<"strategy", "strategy", "std::string", /*default=*/"\"evolutionary\"",
           "exhaustive, random, evolutionary or model">,
    Option<"start", "start", "std::string", /*default=*/"\"rule\"",
           "The first candidate: rule (the knobs the compiler picks without "
           "a record, where the workload is modeled) or defaults (the "
           "schedule's own)">,
    Option<"budget", "budget", "int64_t", /*default=*/"100",
           "Number of trials (database hits included)">,
    Option<"timeBudget", "time-budget", "double", /*default=*/"0",
           "Wall-clock budget in seconds (0: none)">,
    Option<"db", "db", "std::string", /*default=*/"",
           "Tuning database (SQLite; created if missing) to read and extend">,
    Option<"seed", "seed", "uint64_t", /*default=*/"1",
           "Seed of the search">,
    Option<"jobs", "jobs", "unsigned", /*default=*/"0",
           "Compile threads (0: one per core)">,
    Option<"runner", "runner", "std::string", /*default=*/"",
           "The measuring tool (default: tessel-run next to tessel-opt)">,
    Option<"device", "device", "int", /*default=*/"0", "CUDA device ordinal">,
    Option<"devices", "devices", "std::string", /*default=*/"",
           "GPUs measuring candidates at once, one worker each: ordinals "
           "separated by commas, or 'all' (default: device=)">,
    Option<"measure", "measure", "std::string", /*default=*/"\"worker\"",
           "worker (a persistent tessel-run --serve per GPU), process (a "
           "tessel-run process per candidate) or mpi (under mpirun: rank 0 "
           "searches, the other ranks measure on their GPUs)">,
    Option<"progress", "progress", "std::string", /*default=*/"\"auto\"",
           "auto (a live status line when stderr is a terminal), lines (a "
           "progress line every tenth of the budget) or none">,
    Option<"timeout", "timeout", "unsigned", /*default=*/"60",
           "Seconds before a measurement is killed as hung">,
    Option<"warmupMs", "warmup-ms", "double", /*default=*/"20",
           "Warm-up budget of each measurement (ms)">,
    Option<"repeatMs", "rep-ms", "double", /*default=*/"100",
           "Timed budget of each measurement (ms)">,
    Option<"chip", "chip", "std::string", /*default=*/"",
           "Target GPU of the candidates (as tessel-lower-to-ptx; default: "
           "the schedule's tessel.target_chip, else sm_90)">,
    Option<"features", "features", "std::string", /*default=*/"\"+ptx80\"",
           "PTX features of the candidates">,
    Option<"ptxas", "ptxas", "std::string", /*default=*/"\"auto\"",
           "ptxas for register/spill counts (auto: PATH or /usr/local/cuda/bin; "
           "none; or a path); candidates that spill are rejected unmeasured">,
    Option<"replay", "replay", "std::string", /*default=*/"",
           "Take measurements from this recorded database, not the GPU">,
    Option<"replayDevice", "replay-device", "std::string", /*default=*/"",
           "With replay=: whose records (default: the only device recorded)">,
    Option<"faults", "inject-faults", "std::string", /*default=*/"",
           "Testing: knob=value:kind;... corrupts matching candidates' PTX "
           "(kind: hang, illegal-address, wrong)">,
  ];
  let dependentDialects = [
    "::mlir::transform::TransformDialect",
  ];
}

#endif // TESSEL_TRANSFORMS_PASSES
