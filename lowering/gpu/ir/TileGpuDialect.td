#ifndef TESSERA_LOWERING_GPU_IR_TILEGPUDIALECT_TD
#define TESSERA_LOWERING_GPU_IR_TILEGPUDIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/TensorEncoding.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def TileGpu_Dialect : Dialect {
  let name = "tgpu";
  let cppNamespace = "::tessera::gpu";
  let summary = "Tile IR distributed over the threads of a GPU program";
  let description = [{
    Between tile IR and the per-thread GPU form, every tile type carries a
    `#tgpu.layout` encoding saying which register of which lane of which warp
    holds each element (a linear layout, lowering/gpu/LinearLayout.h), and
    `tgpu.convert_layout` moves a tile between two layouts. A kernel in this
    form carries `tgpu.num_warps` (i32) and `tgpu.target` (the GpuTarget spec,
    a string) on its `tile.func`.
  }];
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
    static constexpr ::llvm::StringLiteral kNumWarpsAttr = "tgpu.num_warps";
    static constexpr ::llvm::StringLiteral kTargetAttr = "tgpu.target";
  }];
}

def TileGpu_LayoutAttr : AttrDef<TileGpu_Dialect, "Layout", [
    DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let mnemonic = "layout";
  let summary = "Which thread and register holds each element of a tile";
  let description = [{
    The bases of a linear layout, each a list of `rank` coordinates: bit i of
    the register index contributes `reg[i]`, of the lane `lane[i]`, of the
    warp `warp[i]`; an element's holder is any (register, lane, warp) whose
    contributions XOR to its coordinates. All-zero bases mean copies.

    ```mlir
    // 64 elements, 2 per thread, 32 lanes, 1 warp.
    tensor<64xf32, #tgpu.layout<reg = [[1]], lane = [[2], [4], [8], [16], [32]], warp = []>>
    ```
  }];
  let parameters = (ins "unsigned":$rank,
                        ArrayRefParameter<"int64_t">:$registers,
                        ArrayRefParameter<"int64_t">:$lanes,
                        ArrayRefParameter<"int64_t">:$warps);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    static LayoutAttr get(::mlir::MLIRContext *context, const ::tessera::gpu::LinearLayout &layout);
    /// The layout of a tile of `shape` with these bases.
    ::tessera::gpu::LinearLayout toLinearLayout(::llvm::ArrayRef<int64_t> shape) const;
  }];
}

def TileGpu_ConvertLayoutOp : Op<TileGpu_Dialect, "convert_layout", [Pure,
    SameOperandsAndResultShape, SameOperandsAndResultElementType]> {
  let summary = "Moves a tile to another layout";
  let description = [{
    Same values, other holders. Lowered as a register permutation when no
    element changes thread, else through shared memory.

    ```mlir
    %b = tgpu.convert_layout %a : tensor<64xf32, #tgpu.layout<...>> -> tensor<64xf32, #tgpu.layout<...>>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$src);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def TileGpu_ReinterpretPointerOp : Op<TileGpu_Dialect, "reinterpret_pointer", [Pure]> {
  let summary = "Views the memory of a pointer as elements of another type";
  let description = [{
    A `tile.bitcast` of a pointer to another element type (Triton's
    `ptr.to(tl.pointer_type(U))`) in the distributed form: the same address,
    read and written as elements of the result's type. Source and result are
    pointers of the distributed form (1-D dynamic contiguous memrefs of the
    default memory space). `tessera-gpu-bare-pointer-args` rebuilds the
    result from the source's aligned pointer, as it rebuilds kernel
    arguments; Vulkan, whose storage buffers are typed arrays, has no
    lowering of it.

    ```mlir
    %bytes = tgpu.reinterpret_pointer %x : memref<?xf32> to memref<?xi8>
    ```
  }];
  let arguments = (ins AnyMemRef:$source);
  let results = (outs AnyMemRef:$result);
  let assemblyFormat = "$source attr-dict `:` type($source) `to` type($result)";
  let hasVerifier = 1;
}

#endif // TESSERA_LOWERING_GPU_IR_TILEGPUDIALECT_TD
