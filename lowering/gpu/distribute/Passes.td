#ifndef TESSERA_LOWERING_GPU_DISTRIBUTE_PASSES_TD
#define TESSERA_LOWERING_GPU_DISTRIBUTE_PASSES_TD

include "mlir/Pass/PassBase.td"

// The values of the passes' read-back-loads options (Pipeline.h).
defvar readBackLoadsValues = [{::tessera::gpu::readBackLoadsValues()}];

def TileGpuDistribute : Pass<"tile-gpu-distribute", "::mlir::ModuleOp"> {
  let summary = "Lower tile kernels whose tiles carry #tgpu.layout to per-thread gpu.func kernels";
  let description = [{
    Every kernel `tile.func` (with `tgpu.target` and `tgpu.num_warps`, every
    tile type carrying a `#tgpu.layout`) becomes a `gpu.func ... kernel` in a
    `gpu.module` of its own name: the distributed GPU form of
    docs/gpu-backends.md. A tile value becomes the scalars this thread holds,
    one per register of its layout; the coordinates of each register are its
    compile-time register offset XOR the lane and warp contributions
    (computed once per layout from `gpu.thread_id x`). `!tile.ptr<T>`
    arguments become `memref<?xT>` and pointer values become element offsets
    into them; loads and stores become per-register `memref.load/store` under
    their masks, stores and atomics skip duplicate copies, reductions use
    `gpu.shuffle xor` across lanes and workgroup memory across warps, layout
    conversions that move data between threads and `tile.dot` go through
    workgroup memory (tensor-core emitters where the target has them, an FMA
    loop otherwise). Device functions must be inlined first.

    With `num-stages` of 2 or more, loops whose loads feed a `tile.dot`
    directly are software-pipelined (docs/gpu-backends.md, "Software
    pipelining"): the loads of the next `num-stages - 1` iterations are in
    flight into a ring of shared-memory stages (asynchronous `cp.async`
    copies on sm_80 and later) while the dot of this iteration runs. With
    `tensor-maps`, on sm_90 the blocks of host tensor descriptors that wgmma
    reads are copied by the tensor memory accelerator instead
    (`cp.async.bulk.tensor` completing on an `mbarrier` per stage), and
    `tile.descriptor_store`s of such descriptors go through a swizzled shared
    buffer and `cp.async.bulk.tensor` to global memory, through a
    `tessera.tensor_map` parameter appended to the kernel for each.

    ```mlir
    tile.func @k(%p: !tile.ptr<f32>) attributes {tgpu.num_warps = 1 : i32, tgpu.target = "vulkan:1.3:subgroup=32"} { ... }
    // becomes
    gpu.module @k {
      gpu.func @k(%p: memref<?xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>,
          tessera.num_warps = 1 : i32, tessera.shared_memory_bytes = 0 : i32} { ... }
    }
    ```
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
                           "::mlir::scf::SCFDialect", "::mlir::cf::ControlFlowDialect",
                           "::mlir::LLVM::LLVMDialect",
                           // What vector memory accesses and the tensor-core emitters
                           // (lowering/gpu/tensorcore) create.
                           "::mlir::vector::VectorDialect", "::mlir::nvgpu::NVGPUDialect",
                           "::mlir::NVVM::NVVMDialect", "::mlir::amdgpu::AMDGPUDialect"];
  let options = [
    Option<"numStages", "num-stages", "unsigned", /*default=*/"1",
           "Software-pipelining depth of loops feeding tile.dot (1: no pipelining)">,
    Option<"tensorMaps", "tensor-maps", "bool", /*default=*/"false",
           "Copy pipelined blocks of host tensor descriptors, and store such "
           "blocks, with TMA on sm_90a (a tensor-map parameter per descriptor "
           "and box)">,
    Option<"warpSpecialize", "warp-specialize", "bool", /*default=*/"false",
           "With tensor-maps: give a pipelined loop whose blocks TMA copies a "
           "producer warpgroup of its own (4 warps more per program), its other "
           "warps computing without a barrier of the whole program per "
           "iteration">,
    Option<"readBackLoads", "read-back-loads", "::tessera::gpu::ReadBackLoads",
           /*default=*/"::tessera::gpu::ReadBackLoads::WithCpAsync",
           "Loads of a pipelined loop that reach a dot through other ops (a "
           "conversion), copied ahead into shared memory and read back into "
           "registers in their iteration",
           readBackLoadsValues>
  ];
}


def TileGpuAssignLayouts : Pass<"tile-gpu-assign-layouts", "::mlir::ModuleOp"> {
  let summary = "Give every tile of a kernel a #tgpu.layout for a GPU target";
  let description = [{
    The first half of the GPU distribution (docs/gpu-backends.md, "Layouts").
    The module holds one kernel (a public `tile.func`; device functions must
    be inlined first: a `tile.call` left is an error). Afterwards every ranked
    tensor type in it (tiles of numbers and pointers, masks, loop-carried
    tiles, results of `scf.if`, reductions and scans, the blocks of tensor
    descriptors) carries a `#tgpu.layout`, `tgpu.convert_layout` sits exactly
    where two layouts meet, and the kernel has `tgpu.num_warps` and
    `tgpu.target` attributes.

    Layouts start at anchors: loads, stores and atomics take the default
    layout of their pointer tile with as many contiguous elements per thread
    (up to 128 bits) as the contiguity analysis proves; `tile.dot` results
    take the accumulator layout of the target's matrix instruction (the
    default layout where there is none); reductions reduce their operand's
    layout. Elementwise ops follow their first operand with a fixed layout;
    shape ops get layouts in which they move no data; values computed only
    from ranges, splats and constants are recomputed in whatever layout a
    user needs; loop-carried tiles keep the layout the loop body yields
    (iterated to a fixed point), so an accumulator stays in its matrix layout
    with no conversion inside the loop.

    ```mlir
    %x = tile.load %p : tensor<256x!tile.ptr<f32>>    // %p contiguous
    // becomes, for num-warps=2 on a 32-wide target: 4 floats per thread
    %x = tile.load %p : tensor<256x!tile.ptr<f32>, #tgpu.layout<rank = 1,
           reg = [[1], [2]], lane = [[4], [8], [16], [32], [64]], warp = [[128]]>>
    ```
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"\"",
           "GPU target spec: cuda:sm_80, hip:gfx942, vulkan:1.3:subgroup=32, ...">,
    Option<"numWarps", "num-warps", "unsigned", /*default=*/"4",
           "Warps per program (a power of two)">
  ];
  let dependentDialects = ["::tessera::gpu::TileGpuDialect"];
}

def TileGpuWidenFloat8Dots : Pass<"tile-gpu-widen-float8-dots", "::mlir::ModuleOp"> {
  let summary = "Widen to f16 the fp8 dots that the target's matrix instructions cannot take";
  let description = [{
    A `tile.dot` of fp8 operands stays as it is where the target multiplies
    it with a matrix instruction of fp8 operands (wgmma on sm_90a, mma.sync
    from sm_89 on, for the shapes, accumulator and `num-warps` that the
    instruction selection of `tile-gpu-assign-layouts` takes), and becomes
    the dot of its operands converted to f16 everywhere else: NVIDIA before
    sm_89, AMD and Vulkan, and dots too small for an fp8 instruction or with
    an accumulator it does not have. f16 holds every fp8 value exactly, so
    the f16 instruction (or the FMA loop) computes the same products.

    ```mlir
    // cuda:sm_90a, num-warps=4: 16 rows are too few for wgmma, and 16 of K
    // too few for mma.sync's k32 of fp8
    %c = tile.dot %a, %b, %acc : tensor<16x16xf8E4M3FN> * tensor<16x16xf8E4M3FN> -> tensor<16x16xf32>
    // becomes
    %a16 = arith.extf %a : tensor<16x16xf8E4M3FN> to tensor<16x16xf16>
    %b16 = arith.extf %b : tensor<16x16xf8E4M3FN> to tensor<16x16xf16>
    %c = tile.dot %a16, %b16, %acc : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
    ```

    `max_num_imprecise_acc` is dropped from a widened dot: it adds every
    product at full precision.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"\"",
           "GPU target spec: cuda:sm_80, hip:gfx942, vulkan:1.3:subgroup=32, ...">,
    Option<"numWarps", "num-warps", "unsigned", /*default=*/"4",
           "Warps per program (a power of two)">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def TileGpuPrefetchLoads : Pass<"tile-gpu-prefetch-loads", "::mlir::ModuleOp"> {
  let summary = "Issue a num_stages loop's loads an iteration ahead";
  let description = [{
    Triton's `tl.range(..., num_stages=S)` on a loop without dots: with S of 2
    or more (the `tile.num_stages` attribute of the scf.for), each
    `tile.load` of the loop's body whose pointers, mask and `other` are
    computed by pure ops of the body from the induction variable and values
    defined before the loop is issued one iteration ahead, into a tile the
    loop carries: the first iteration's before the loop, the next one's at
    the top of the body, each under its own mask and the condition that its
    iteration exists. A persistent row kernel then has the next row on its
    way while it reduces and stores this one.

    ```mlir
    scf.for %row = %pid to %n step %programs {
      %p = tile.addptr %base, (%row * stride + cols)
      %x = tile.load %p, %m
      ... use %x ...
    } {tile.num_stages = 2 : i32}
    // becomes
    %x0 = tile.load %p(%pid), %m(%pid) & (%pid < %n)
    scf.for %row = %pid to %n step %programs iter_args(%x = %x0) {
      %next = tile.load %p(%row + %programs), %m(...) & (%row + %programs < %n)
      ... use %x ...
      scf.yield %next
    }
    ```

    Loops with a dot are left to tile-gpu-distribute's shared-memory
    pipeline; volatile loads and loads whose addresses depend on a
    loop-carried value stay. As in Triton, stores of the loop do not hold the
    next iteration's loads back (the loop asked to be pipelined).

    With a `target` on which tile-gpu-distribute reads loads back
    (`read-back-loads`: cp.async on sm_80 and later, or `always`), the loads
    it can read back are left to it: it copies them `S - 1` iterations ahead
    into shared memory and reads each thread's registers back at the top of
    their iteration, so the loop carries no second copy of them. Those are
    loads whose elements go to shared memory as they are, with no `other`
    but +0, through pointers into a kernel argument that the loop does not
    write, each thread's share of them 4 bytes or more, a stage of them all
    within half of the target's shared memory; none in a loop where one
    load's addresses read another's values (a gather's indices).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"\"",
           "GPU target spec (cuda:sm_80, ...); none: every load is prefetched into "
           "registers">,
    Option<"numWarps", "num-warps", "unsigned", /*default=*/"4",
           "Warps per program: the threads the loads left to read back spread over">,
    Option<"readBackLoads", "read-back-loads", "::tessera::gpu::ReadBackLoads",
           /*default=*/"::tessera::gpu::ReadBackLoads::WithCpAsync",
           "Where tile-gpu-distribute reads loads back (its option of that name)",
           readBackLoadsValues>
  ];
}

def TileGpuIssueLoadsEarly : Pass<"tile-gpu-issue-loads-early", "::mlir::ModuleOp"> {
  let summary = "Issue loads before the reductions, scans and dots they do not depend on";
  let description = [{
    The distribution lowers `tile.reduce`, `tile.scan`, `tile.dot`,
    `tile.gather` and `tile.histogram` with barriers, across which neither LLVM nor ptxas moves a global load. A
    `tile.load` written after such an op that it does not depend on (and with
    no op that may write memory in between) moves above it, together with the
    pure ops of its block that compute its pointers, mask and `other`, so that
    its latency overlaps the exchange:

    ```mlir
    %x = tile.load %xp, %m, %zero : tensor<1024x!tile.ptr<f16>>
    %mean = "tile.reduce"(%x) ... // barrier
    %wp = tile.addptr %wbase, %cols : ...
    %w = tile.load %wp, %m : tensor<1024x!tile.ptr<f16>>
    // becomes: %wp and %w right after %x, above the reduction
    ```

    Volatile loads stay where they are; loads move nowhere else (ptxas
    schedules them among ordinary instructions itself).
  }];
}

def TileGpuVersionSignedRemainders
    : Pass<"tile-gpu-version-signed-remainders", "::mlir::ModuleOp"> {
  let summary = "Split a kernel where the dividends of its signed remainders are non-negative";
  let description = [{
    A tile of offsets wrapped with a signed `%`, as `(pid_n * BN +
    arange(0, BN)) % N` in Triton's tutorial GEMM written before `tl.assume`,
    holds runs of consecutive values only where the run's endpoints are
    consecutive when nothing proves the dividend non-negative
    (ir/analysis/Contiguity.h): every access of such a run checks that at
    run time and keeps an element-wise fallback beside its vector access or
    `cp.async`. Where such a tile addresses a load or store inside a loop
    (each K step of a GEMM checks each run again) and its layout gives each
    thread runs of more than one element (run after
    tile-gpu-assign-layouts, which names the kernel's target), the rest of
    the block after the scalars that decide the dividends' sign (`pid_n *
    BN`) becomes an `scf.if` on all of them being non-negative. In its
    `then` branch, which every program of an ordinary launch takes, each
    such scalar `s` is read as `max(s, 0)`, equal to it there, which the
    analysis proves non-negative: its runs are proved and its loop has no
    check. The `else` branch keeps the original ops. The condition is one
    value for the whole program, so both branches may hold barriers.

    ```mlir
    %s = arith.muli %pid_n, %c256 : i32
    ...                                  // the loop, its copies checked
    // becomes
    %s = arith.muli %pid_n, %c256 : i32
    %ok = arith.cmpi sge, %s, %c0 : i32
    scf.if %ok {
      %s1 = arith.maxsi %s, %c0 : i32
      ...                                // the loop on %s1, its runs proved
    } else {
      ...                                // as before
    }
    ```

    A dividend not built from scalars by sums, products, splats and
    broadcasts (a loaded tile), remainders in different blocks, and kernels
    whose checked accesses are outside loops or one element a thread stay
    as they are.
  }];
}

def TileGpuTransposeColumnLoads : Pass<"tile-gpu-transpose-column-loads", "::mlir::ModuleOp"> {
  let summary = "Load dot operands whose addresses run down columns as the transpose of a row load";
  let description = [{
    A rank-2 `tile.load` whose only user is the B operand of a `tile.dot` and
    whose pointers are consecutive down each column (unit stride along
    dimension 0, by the contiguity analysis) but not along each row, such as
    B = W.T of a PyTorch Linear weight W [N, K] passed with strides (1, K),
    becomes a load of the transposed pointers followed by `tile.trans`:

    ```mlir
    %b = tile.load %p, %m, %zero : tensor<32x64x!tile.ptr<bf16>>
    // becomes
    %pt = tile.trans %p, order = [1, 0] : ... -> tensor<64x32x!tile.ptr<bf16>>
    %mt = tile.trans %m, order = [1, 0] : tensor<32x64xi1> -> tensor<64x32xi1>
    %bt = tile.load %pt, %mt, %zero_t : tensor<64x32x!tile.ptr<bf16>>
    %b = tile.trans %bt, order = [1, 0] : tensor<64x32xbf16> -> tensor<32x64xbf16>
    ```

    The layouts then give each thread runs along the contiguous dimension
    (vector loads), and the software pipeline copies the runs into the dot's
    K-major B with `cp.async`, as it does for a B written as a transposed
    [N, K] load in the kernel. The new `tile.trans` ops are folded and
    canonicalized: splat and constant masks and `other` values become splats
    and constants of the transposed shape.
  }];
}

def TileGpuElideBarriers : Pass<"tile-gpu-elide-barriers", "::mlir::ModuleOp"> {
  let summary = "Remove the barriers ending shared-memory users that order no access";
  let description = [{
    tile-gpu-distribute ends every user of shared memory (a reduction across
    warps, a scan, a layout conversion, a dot's operand buffers, a gather, a
    histogram) with a `gpu.barrier {tessera.ends_shared_memory_user}`, so
    that the next user may take the same bytes. Such a barrier is removed
    where no shared-memory access on the paths after it (up to the next
    barrier, around loops) overlaps an access on the paths before it, one of
    the two being a write; the attribute is dropped from those that stay.
    Other barriers (inside a user, `tl.debug_barrier`, pipelines, TMA) are
    kept as they are.

    ```mlir
    memref.store %a, %view0[%i]    // %view0: bytes [0, 36) of dynamic shared memory
    gpu.barrier
    %s = memref.load %view0[%j]
    gpu.barrier {tessera.ends_shared_memory_user}   // removed: nothing below
    memref.store %b, %view1[%i]    //   touches [0, 36) (%view1 is [48, 84))
    gpu.barrier
    ```

    The last user's barrier before the kernel's end goes, and so does one
    between users that the allocator placed one after the other
    (SharedMemory::beginUser). A view of dynamic shared memory at a constant
    offset touches its own bytes, a workgroup attribution all of its own;
    inline asm without `tessera.no_shared_memory` (which the pass also
    drops), pointers that may be shared and ops that declare no effects are
    taken to read and write all of shared memory.
  }];
}

#endif // TESSERA_LOWERING_GPU_DISTRIBUTE_PASSES_TD
