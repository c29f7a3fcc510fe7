#ifndef TESSERA_IR_TILEDIALECT_TD
#define TESSERA_IR_TILEDIALECT_TD

include "mlir/IR/OpBase.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::tessera::tile";
  let summary = "Tessera's tile-level kernel dialect";
  let description = [{
    The `tile` dialect describes a kernel as one *program* of a grid that works
    on whole blocks of data. Values are tiles: statically shaped ranked tensors
    of scalars or of `!tile.ptr<T>` pointers. Arithmetic on tiles uses the
    `arith` and `math` dialects elementwise, control flow uses `scf`; this
    dialect adds what they lack: program ids, pointer tiles and memory access,
    shape manipulation, `dot`, reductions, scans, atomics and debugging aids.

    ```mlir
    tile.func @add(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                   %y: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                   %n: i32) {
      %pid = tile.program_id x
      %offs = tile.make_range 0 to 128 : tensor<128xi32>
      ...
      tile.return
    }
    ```
  }];
  let useDefaultTypePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let hasRegionArgAttrVerify = 1;
  let extraClassDeclaration = [{
    void registerTypes();

    /// Argument attribute: the integer or address is a multiple of this power of two.
    static constexpr ::llvm::StringLiteral kDivisibilityAttr = "tile.divisibility";
    /// Argument attribute: the integer argument is known to equal 1.
    static constexpr ::llvm::StringLiteral kEqualToOneAttr = "tile.equal_to_1";
    /// scf.for attribute: the loop nest starting at this loop may be
    /// flattened into one loop (Triton's `tl.range(..., flatten=True)`;
    /// tile-flatten-loops).
    static constexpr ::llvm::StringLiteral kFlattenAttr = "tile.flatten";
    /// scf.for attribute: the loop asks for a producer warpgroup of its own
    /// where its blocks are copied by TMA (Triton's
    /// `tl.range(..., warp_specialize=True)`; tile-gpu-distribute).
    static constexpr ::llvm::StringLiteral kWarpSpecializeAttr = "tile.warp_specialize";
    /// scf.for attribute (i32): the pipelining depth the loop asks for
    /// (Triton's `tl.range(..., num_stages=S)`; tile-gpu-prefetch-loads).
    static constexpr ::llvm::StringLiteral kNumStagesAttr = "tile.num_stages";
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

#endif // TESSERA_IR_TILEDIALECT_TD
