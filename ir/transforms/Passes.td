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

#endif // TESSERA_IR_TRANSFORMS_PASSES_TD
