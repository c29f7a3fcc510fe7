#ifndef TESSERA_LOWERING_CPU_PASSES_TD
#define TESSERA_LOWERING_CPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileCpuPrepareKernels : Pass<"tile-cpu-prepare-kernels", "::mlir::ModuleOp"> {
  let summary = "Inline device functions; turn kernels into func.func with grid arguments";
  let description = [{
    Inlines every `tile.call` to a private device function and erases the
    device functions. Each kernel (public `tile.func` without results) becomes
    a `func.func` of the same name whose arguments are the kernel's, followed by
    six `i32`: `pid_x, pid_y, pid_z, num_x, num_y, num_z`.
    `tile.program_id` and `tile.num_programs` become uses of those arguments and
    `tile.return` becomes `func.return`. The kernel is tagged `tessera.kernel`.

    ```mlir
    tile.func @k(%p: !tile.ptr<f32>) { %x = tile.program_id x ... }
    // becomes
    func.func @k(%p: !tile.ptr<f32>, %pid_x: i32, ..., %num_z: i32)
        attributes {tessera.kernel} { ... uses %pid_x ... }
    ```
  }];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def TileCpuLowerTiles : Pass<"tile-cpu-lower-tiles", "::mlir::ModuleOp"> {
  let summary = "Lower tile ops and tensor-typed arith/math/scf to flat LLVM vectors";
  let description = [{
    Every tile `tensor<AxBxT>` becomes the row-major `vector<(A*B)xT>`; tiles
    of pointers become `vector<N x i64>` addresses and a scalar `!tile.ptr`
    becomes `!llvm.ptr`. arith and math ops are rebuilt on the flat vector
    types, scf ops are converted structurally, and tile ops become LLVM
    dialect operations: shuffles for broadcast/trans/join/split/cat, masked
    loads and stores (contiguous rows) or masked gathers and scatters, trees
    of shuffles for reduce, Hillis-Steele scans, a register-blocked FMA
    micro-kernel for dot. Ops the CPU backend cannot lower are reported as
    errors on the op.

    ```mlir
    %s = arith.addf %x, %y : tensor<4x16xf32>
    // becomes
    %s = arith.addf %x, %y : vector<64xf32>
    ```
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "unsigned", /*default=*/"512",
           "Width of the target's vector registers in bits (blocks the dot micro-kernel)">
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::vector::VectorDialect",
                           "::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect",
                           "::mlir::math::MathDialect", "::mlir::func::FuncDialect"];
}

def TileCpuEmitGridEntry : Pass<"tile-cpu-emit-grid-entry", "::mlir::ModuleOp"> {
  let summary = "Emit the packed-argument entry point K__grid_entry of each kernel";
  let description = [{
    For each kernel `func.func @K(a0..an, pid_x, pid_y, pid_z, num_x, num_y,
    num_z)` tagged `tessera.kernel` (its argument types already lowered),
    emits `func.func @K__grid_entry(%args: !llvm.ptr, %x, %y, %z, %nx, %ny,
    %nz: i32)` where `%args` points to an array of `void*`, the i-th pointing
    to the i-th argument's value (MLIR's packed calling convention; an `i1`
    argument is read as a byte). The entry loads each argument and calls @K.

    ```mlir
    func.func @K__grid_entry(%args: !llvm.ptr, %x: i32, %y: i32, %z: i32,
                             %nx: i32, %ny: i32, %nz: i32)
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::func::FuncDialect"];
}

def TileCpuApproximateMath : Pass<"tile-cpu-approximate-math", "::mlir::ModuleOp"> {
  let summary = "Vectorized polynomial approximations of math functions for the CPU";
  let description = [{
    Rewrites `math` functions that LLVM would otherwise scalarize into libm
    calls (exp, log, tanh, erf, sin, cos, ...) on f32 vectors into
    polynomial approximations made of vector arithmetic (MLIR's
    `populateMathPolynomialApproximationPatterns`). What is left afterwards
    becomes LLVM intrinsics or libm calls.

    ```mlir
    %e = math.exp %x : vector<1024xf32>   // becomes vector FMAs, no calls
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
                           "::mlir::vector::VectorDialect"];
}

def TileCpuExpandBf16 : Pass<"tile-cpu-expand-bf16", "::mlir::ModuleOp"> {
  let summary = "Convert between f32 and bf16 with integer arithmetic and widen bf16 dots, "
                "so that bf16 tiles are only moved";
  let description = [{
    x86 CPUs without AVX512-BF16 have no bf16 instructions. LLVM legalizes
    `bfloat` vectors lane by lane and rounds to bf16 with a call of
    `__truncsfbf2`, which Debian 12's libgcc lacks; instruction selection of
    a whole-tile `select` of bf16 (a 64x64 tile's NaN test) took minutes. So
    the CPU computes bf16 arithmetic in f32 (`tile-emulate-float8-arithmetic`
    with `bf16`) and, in this pass, before the tiles become vectors:

    - `arith.extf`/`arith.truncf` between bf16 and f32 become bit
      manipulation (MLIR's `populateExpandBFloat16Patterns`: round to
      nearest even, NaN kept quiet), which vectorizes; bf16 <-> f64 goes
      through f32 (f64 to bf16 rounds twice);
    - a `tile.dot` of bf16 operands becomes the dot of their f32 values
      (exact), which is what the micro-kernel computes for them anyway.

    What is left of bf16 only moves (loads, stores, selects, shuffles), and
    `tile-cpu-lower-tiles` carries it in i16 lanes (its float atomics as
    compare-and-swap loops on the bits): LLVM never sees `bfloat`.

    ```mlir
    %b = arith.truncf %x : tensor<8xf32> to tensor<8xbf16>
    // becomes arith.bitcast, shifts, adds and a select on tensor<8xi32>
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def TileCpuSplitVectors : Pass<"tile-cpu-split-vectors", "::mlir::ModuleOp"> {
  let summary = "Split long flat vectors into register-sized chunks, computed chunk by chunk";
  let description = [{
    A tile is one long vector (`vector<1024xf32>`); LLVM splits it into
    registers only in instruction selection, one whole-tile operation after
    the other, so a chain of elementwise ops (the polynomial of `exp`) keeps
    every intermediate tile alive at once and spills most of it to the stack.
    This pass splits, in each block, elementwise arith/math ops, splat and
    dense constants, broadcasts, register-aligned `llvm.shufflevector`s (the
    halving steps of reductions), `llvm.extractelement` and contiguous
    `llvm.intr.masked.load`/`masked.store` on vectors longer than one chunk
    (`vector-bits / 32` lanes) into per-chunk ops, concatenates chunks again
    only for users it does not split, and then moves each side-effect-free op
    (and each load, when no write lies in between) down to just before its
    first user, so that the code computes chunk after chunk.

    ```mlir
    %e = arith.mulf %a, %b : vector<64xf32>   // vector-bits=512
    // becomes four arith.mulf on vector<16xf32>
    ```
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "unsigned", /*default=*/"512",
           "Width of the target's vector registers in bits (chunks hold vector-bits/32 lanes)">
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::vector::VectorDialect",
                           "::mlir::arith::ArithDialect"];
}

#endif // TESSERA_LOWERING_CPU_PASSES_TD
