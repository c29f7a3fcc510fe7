#ifndef TESSERA_IR_TRANSFORMS_PASSES_TD
#define TESSERA_IR_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileLibdeviceToMath : Pass<"tile-libdevice-to-math"> {
  let summary = "Rewrite calls of libdevice functions into the math/arith ops they compute";
  let description = [{
    `tile.extern_elementwise` calls of NVIDIA's libdevice (`__nv_tanhf`,
    `__nv_atan2`, `__nv_umulhi`, ...) whose function has a counterpart in
    the math or arith dialect become that op, so that a kernel written
    against libdevice runs on targets without libdevice: the CPU, AMD GPUs
    (whose math ops lower to ocml) and Vulkan. NVIDIA targets do not run
    this pass: there the call stays a call of libdevice, bit for bit what
    CUDA C++ would compute (`__nv_expf` is not the faster `ex2.approx` form
    that `math.exp` gets on NVIDIA). The `fast_` functions become the
    accurate ops.

    A call is rewritten only where its operand and result types are the
    function's (f32 for `__nv_tanhf`, f64 for `__nv_tanh`, i32 for
    `__nv_popc`); other calls are left for the backend, which reports them.

    ```mlir
    %y = tile.extern_elementwise "__nv_tanhf"(%x) lib "libdevice" pure
        : (tensor<64xf32>) -> tensor<64xf32>
    // becomes
    %y = math.tanh %x : tensor<64xf32>
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::math::MathDialect"];
}

def TileMergeScalars : Pass<"tile-merge-scalars"> {
  let summary = "Merge the scalar expressions a kernel spells more than once";
  let description = [{
    A pure scalar op equal to one before it (same name, attributes, operands
    and result types) in its block or in a block of the control flow (`scf`)
    around it is replaced by that one, in every `tile.func`:

    ```mlir
    %s = arith.muli %pid_n, %c256 : i32      // the loads' columns
    ...
    %t = arith.muli %pid_n, %c256 : i32      // the store's: replaced by %s
    ```

    The analyses read facts off values: `tile.assume(%s >= 0)` (tl.assume)
    and the versioning of signed remainders speak of one value, so each
    spelling of the expression must be that value. Tiles are left alone:
    two uses of one tile may want it in different layouts, and a tile made
    for each use costs nothing to convert. (The scalars' copies would
    otherwise only be merged after the distribution, by CSE and LLVM.)
  }];
}

def TileFlattenLoops : Pass<"tile-flatten-loops"> {
  let summary = "Flatten a loop nest marked tile.flatten into one loop";
  let description = [{
    Triton's `tl.range(..., flatten=True)`: a persistent kernel's loop over
    output tiles and the K loop inside it become one loop over (tile, K
    block) pairs, so that the GPU pipeliner runs across tiles (the next
    tile's first blocks are copied while this tile's last dots run and its
    epilogue stores) and a warp-specialized producer can run ahead through
    all of them.

    A `scf.for` carrying `tile.flatten` (and no values) whose body is `pre`,
    one inner `scf.for` and `post`, where `pre` has no memory effects (but
    promises), both steps are positive constants, and the inner loop's bounds
    and initial values are the same for every outer iteration, becomes:

    ```mlir
    scf.for %t = %lo to %hi step 132 {
      %row = ...                                  // pre
      %acc = scf.for %k = %c0 to %K step %c64 iter_args(%a = %zero) -> ... {
        ...                                       // body
      }
      tile.descriptor_store %c[%row, ...], %acc   // post
    }
    // becomes
    %r:3 = scf.for %s = %c0 to %steps step %c1 iter_args(%ki = %c0, %t = %lo, %a = %zero) {
      %k = %c0 + trunc(%ki) * %c64
      %row = ...                                  // pre, for the loads
      %next = ...                                 // body
      %last = arith.cmpi eq, %ki, %kSteps - 1
      scf.if %last { %row' = ...; tile.descriptor_store %c[%row', ...], %next }
      scf.yield select(%last, 0, %ki + 1), select(%last, %t + 132, %t),
                select(%last, %zero, %next)
    }
    scf.for %t = %lo to (kSteps == 0 ? %hi : %lo) step 132 { pre; post on %zero }
    ```

    `%steps` is the product of the two trip counts in 64 bits; the nest's
    `tile.warp_specialize` goes to the flattened loop. The epilogue
    recomputes `pre` in its branch, so that a step that is not a tile's last
    computes only what the loads need; where the K loop runs no step, the
    second loop runs each tile's epilogue on the initial values. Nests of
    another shape are left as they are.

    With `carry-tile-work` (the default), the results of `pre` that the rest
    of the nest reads are carried instead, as Triton's flattening does: a
    tile's first step computes them (`scf.if %ki == 0`), the other steps and
    the epilogue read them, so that the grouped order's divisions run once
    per tile rather than in every step. The loop carries them from the
    first tile's (`pre` cloned for the tile loop's lower bound, its divisions
    dividing by at least 1 since that tile may not exist, its promises left
    out), never read, so that what the analyses learn of a carried value is
    what every tile's work gives: from zeros, the contiguity analysis took a
    carried column range (Triton's persistent tutorial carries its offsets)
    for one value repeated, and the copies through it went element by
    element. Where `pre` has an op that could fault there, from zeros.
    Work of `pre` that is the same for every tile (pure, reading nothing the
    tile loop defines: a `tl.arange(0, BLOCK_K)`) moves above the tile loop
    first rather than being carried.
    Where one of them has no zero type (a pointer, a descriptor), and for a
    nest marked `tile.warp_specialize`, every step redoes `pre` as above.
  }];
  let options = [
    Option<"carryTileWork", "carry-tile-work", "bool", /*default=*/"true",
           "Compute the tile's work before the K loop once per tile and carry it">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect"];
}

def TileWidenFloat8Dots : Pass<"tile-widen-float8-dots"> {
  let summary = "Widen the fp8 operands of every dot, for targets without fp8 matrix instructions";
  let description = [{
    A `tile.dot` of fp8 operands (f8E4M3FN, f8E5M2, or one of each) becomes
    a dot of the operands converted to `operand-type`, which holds every fp8
    value exactly, so that the product is the one an fp8 instruction would
    compute. The CPU runs it with `operand-type=f32`; the GPU targets run
    `tile-gpu-widen-float8-dots` instead, which widens only the dots that
    their matrix instructions cannot take as they are. With
    `operand-type=f32`, a dot with an f16 accumulator still widens to f16 (an
    f32 dot accumulates in f32 only).

    ```mlir
    %c = tile.dot %a, %b, %acc : tensor<64x32xf8E4M3FN> * tensor<32x64xf8E5M2> -> tensor<64x64xf32>
    // becomes
    %a16 = arith.extf %a : tensor<64x32xf8E4M3FN> to tensor<64x32xf16>
    %b16 = arith.extf %b : tensor<32x64xf8E5M2> to tensor<32x64xf16>
    %c = tile.dot %a16, %b16, %acc : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
    ```

    `max_num_imprecise_acc` is dropped: the widened dot adds every product
    at full precision.
  }];
  let options = [
    Option<"operandType", "operand-type", "std::string", /*default=*/"\"f16\"",
           "Type the operands are widened to: f16, or f32 (for dots with an f32 accumulator)">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def TileEmulateFloat8Arithmetic : Pass<"tile-emulate-float8-arithmetic"> {
  let summary = "Compute arithmetic on fp8 values in f32";
  let description = [{
    No backend has fp8 arithmetic: an arith or math op on f8E4M3FN or f8E5M2
    operands (`a + b` of two fp8 tiles, a comparison, an `exp`) becomes the
    op on f32, between `arith.extf` of its operands and `arith.truncf` of
    its fp8 results. Rounding the f32 result to fp8 gives the fp8 op's
    result: f32 has more than twice the precision plus two bits (so the
    double rounding is innocuous for +, -, *, / and sqrt). Ops that only move
    values (`arith.select`, constants, bitcasts, the conversions themselves)
    and `tile.dot` stay as they are. The tile ops that compute (`tile.clamp`,
    `tile.precise_sqrt`, `tile.precise_divf`) are emulated like arith's, and
    `tile.print` prints the f32 value (its `hex` form prints the bits as
    they are).

    With `bf16`, bf16 arithmetic is computed in f32 as well (f32's 24 bits
    are more than twice bf16's 8 plus two): the CPU sets it, whose vector
    units have no bf16 arithmetic and for which LLVM would round each bf16
    result with a scalar call of `__truncsfbf2`.

    ```mlir
    %s = arith.addf %x, %y : tensor<128xf8E5M2>
    // becomes
    %x32 = arith.extf %x : tensor<128xf8E5M2> to tensor<128xf32>
    %y32 = arith.extf %y : tensor<128xf8E5M2> to tensor<128xf32>
    %s32 = arith.addf %x32, %y32 : tensor<128xf32>
    %s = arith.truncf %s32 : tensor<128xf32> to tensor<128xf8E5M2>
    ```
  }];
  let options = [
    Option<"bf16", "bf16", "bool", /*default=*/"false",
           "Compute bf16 arithmetic in f32 too (targets without bf16 arithmetic: the CPU)">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def TileExpandFloat8Conversions : Pass<"tile-expand-float8-conversions"> {
  let summary = "Convert to and from fp8 with integer arithmetic";
  let description = [{
    For targets without fp8 conversion instructions (the CPU, NVIDIA before
    sm_89, AMD, Vulkan): `arith.extf` from and `arith.truncf` to f8E4M3FN
    and f8E5M2 become integer arithmetic on the bits, through f32, with the
    semantics of NVIDIA's `cvt.rn.satfinite`: round to nearest even, a
    finite value or infinity beyond the largest finite fp8 value becomes
    that value (with its sign), NaN stays NaN (0x7f, with the input's sign).
    Every fp8 value is exact in f16, bf16, f32 and f64; f64 and narrower
    sources go through f32 (f64 rounds twice).

    Subnormal fp8 values are converted with `arith.uitofp` and a power of
    two rather than through f32 subnormals, which GPUs may flush to zero.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def TileCombineDotAdd : Pass<"tile-combine-dot-add"> {
  let summary = "Accumulate `acc + dot(a, b)` in the dot: `dot(a, b, acc)`";
  let description = [{
    `acc += tl.dot(a, b)` is a dot into a zero accumulator and an addition
    of the whole product tile. On tensor cores the two forms differ in cost
    (the separate form holds a second accumulator tile in registers and adds
    it element by element every step: a 128x128 fp32 GEMM on 4 warps spilled
    on sm_90a), so, as Triton's combine pass, the addition moves into the dot:

    ```mlir
    %p = tile.dot %a, %b, %zero : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
    %s = arith.addf %acc, %p : tensor<64x64xf32>
    // becomes
    %s = tile.dot %a, %b, %acc : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
    ```

    Applies to `arith.addf` and `arith.addi` with the dot on either side,
    where the dot's accumulator is a constant zero and the addition is the
    dot's only user. The additions then run in another order (`acc` enters
    the dot's sum instead of being added to its rounded result). fp8 dots with
    `max_num_imprecise_acc` are left alone: they promote their partial sums
    at intervals that a non-zero accumulator would shift.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

#endif // TESSERA_IR_TRANSFORMS_PASSES_TD
