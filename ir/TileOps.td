#ifndef TESSERA_IR_TILEOPS_TD
#define TESSERA_IR_TILEOPS_TD

include "ir/TileDialect.td"
include "ir/TileTypes.td"
include "ir/TileAttrs.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/CallInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

// The optional `mask` and `other` operands of memory ops are typed from the
// pointer operand. The comparator first checks that the optional operand is
// present: `position` is its ODS operand index (ptr, [value,] mask, other).
// Counting operands is not enough: a load may have `other` without `mask`.
class Tile_OptionalTypeFromPtr<string summary, string operand, int position,
                               string transform>
    : TypesMatchWith<summary, "ptr", operand, transform,
                     "this->getODSOperands(" # position # ").empty() || std::equal_to<>()">;

//===----------------------------------------------------------------------===//
// Kernel functions
//===----------------------------------------------------------------------===//

def Tile_FuncOp : Tile_Op<"func", [
    AffineScope, AutomaticAllocationScope, FunctionOpInterface,
    IsolatedFromAbove]> {
  let summary = "A kernel or a device function of tile code";
  let description = [{
    A public `tile.func` with no results is a *kernel*: one program of a grid.
    Its arguments are scalars and pointers; argument attributes record what the
    specializer knows about them, which later passes use to vectorize and
    coalesce:

    - `tile.divisibility = N : i32` — the integer (or the address of the
      pointer, in bytes) is a multiple of N (a power of two);
    - `tile.equal_to_1` — the integer argument is known to be 1.

    A private `tile.func` is a device function, called with `tile.call`; it may
    take and return tiles, and is usually inlined.

    ```mlir
    tile.func @copy(%src: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                    %dst: !tile.ptr<f32>, %n: i32) {
      tile.return
    }
    tile.func private @square(%x: tensor<64xf32>) -> tensor<64xf32> {
      %y = arith.mulf %x, %x : tensor<64xf32>
      tile.return %y : tensor<64xf32>
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       OptionalAttr<StrAttr>:$sym_visibility,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs);
  let regions = (region AnyRegion:$body);
  let builders = [OpBuilder<(ins "::llvm::StringRef":$name,
                                 "::mlir::FunctionType":$type)>];
  let extraClassDeclaration = [{
    ::mlir::Region *getCallableRegion() { return isExternal() ? nullptr : &getBody(); }
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() { return getFunctionType().getInputs(); }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() { return getFunctionType().getResults(); }
    bool isDeclaration() { return isExternal(); }
    /// A kernel is a public function without results: a grid launches it.
    bool isKernel() { return isPublic() && getFunctionType().getNumResults() == 0; }
  }];
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Tile_ReturnOp : Tile_Op<"return", [
    Pure, HasParent<"FuncOp">, ReturnLike, Terminator]> {
  let summary = "Returns from a tile function";
  let description = [{
    ```mlir
    tile.return
    tile.return %y : tensor<64xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$srcs);
  let builders = [OpBuilder<(ins), [{ build($_builder, $_state, ::mlir::ValueRange()); }]>];
  let assemblyFormat = "attr-dict ($srcs^ `:` type($srcs))?";
  let hasVerifier = 1;
}

def Tile_CallOp : Tile_Op<"call", [
    CallOpInterface, DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Calls a device function";
  let description = [{
    ```mlir
    %y = tile.call @square(%x) : (tensor<64xf32>) -> tensor<64xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee, Variadic<AnyType>:$operands,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs);
  let results = (outs Variadic<AnyType>);
  let assemblyFormat = [{
    $callee `(` $operands `)` attr-dict `:` functional-type($operands, results)
  }];
  let extraClassDeclaration = [{
    operand_range getArgOperands() { return getOperands(); }
    ::mlir::MutableOperandRange getArgOperandsMutable() { return getOperandsMutable(); }
    ::mlir::CallInterfaceCallable getCallableForCallee() { return getCalleeAttr(); }
    void setCalleeFromCallable(::mlir::CallInterfaceCallable callee) {
      setCalleeAttr(::llvm::cast<::mlir::FlatSymbolRefAttr>(::llvm::cast<::mlir::SymbolRefAttr>(callee)));
    }
  }];
}

//===----------------------------------------------------------------------===//
// The launch grid
//===----------------------------------------------------------------------===//

def Tile_ProgramIdOp : Tile_Op<"program_id", [Pure]> {
  let summary = "Index of this program along an axis of the grid";
  let description = [{
    ```mlir
    %pid = tile.program_id x
    ```
  }];
  let arguments = (ins Tile_ProgramAxisAttr:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict";
}

def Tile_NumProgramsOp : Tile_Op<"num_programs", [Pure]> {
  let summary = "Number of programs along an axis of the grid";
  let description = [{
    ```mlir
    %n = tile.num_programs y
    ```
  }];
  let arguments = (ins Tile_ProgramAxisAttr:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict";
}

//===----------------------------------------------------------------------===//
// Making and reshaping tiles
//===----------------------------------------------------------------------===//

def Tile_MakeRangeOp : Tile_Op<"make_range", [Pure]> {
  let summary = "The tile of consecutive integers [start, end)";
  let description = [{
    ```mlir
    %offs = tile.make_range 0 to 128 : tensor<128xi32>
    ```
  }];
  let arguments = (ins I32Attr:$start, I32Attr:$end);
  let results = (outs TensorOf<[I32]>:$result);
  let assemblyFormat = "$start `to` $end attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_SplatOp : Tile_Op<"splat", [Pure,
    TypesMatchWith<"source is the element type of the result",
                   "result", "src", "::llvm::cast<::mlir::RankedTensorType>($_self).getElementType()">]> {
  let summary = "A tile whose every element is one scalar";
  let description = [{
    ```mlir
    %t = tile.splat %x : f32 -> tensor<64x64xf32>
    ```
  }];
  let arguments = (ins Tile_Scalar:$src);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasFolder = 1;
}

def Tile_BroadcastOp : Tile_Op<"broadcast", [Pure, SameOperandsAndResultElementType]> {
  let summary = "Stretches the size-1 dimensions of a tile";
  let description = [{
    Operand and result have the same rank; every dimension of the operand
    equals the result's or is 1.

    ```mlir
    %b = tile.broadcast %row : tensor<1x64xf32> -> tensor<32x64xf32>
    ```
  }];
  let arguments = (ins Tile_AnyTile:$src);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Tile_ExpandDimsOp : Tile_Op<"expand_dims", [Pure, SameOperandsAndResultElementType]> {
  let summary = "Inserts a dimension of size 1";
  let description = [{
    ```mlir
    %col = tile.expand_dims %v, axis = 1 : tensor<32xf32> -> tensor<32x1xf32>
    ```
  }];
  let arguments = (ins Tile_AnyTile:$src, I32Attr:$axis);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = "$src `,` `axis` `=` $axis attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Tile_ReshapeOp : Tile_Op<"reshape", [Pure, SameOperandsAndResultElementType]> {
  let summary = "Gives a tile another shape of the same number of elements";
  let description = [{
    Elements keep their row-major order unless `allow_reorder` is set, which
    lets a backend pick the cheapest element order (for reductions that do not
    care).

    ```mlir
    %flat = tile.reshape %t : tensor<4x16xf32> -> tensor<64xf32>
    ```
  }];
  let arguments = (ins Tile_AnyTile:$src, UnitAttr:$allow_reorder);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = "$src (`allow_reorder` $allow_reorder^)? attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Tile_TransOp : Tile_Op<"trans", [Pure, SameOperandsAndResultElementType]> {
  let summary = "Permutes the dimensions of a tile";
  let description = [{
    Result dimension `i` is operand dimension `order[i]`.

    ```mlir
    %bt = tile.trans %b, order = [1, 0] : tensor<32x64xf16> -> tensor<64x32xf16>
    ```
  }];
  let arguments = (ins Tile_AnyTile:$src, DenseI32ArrayAttr:$order);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = "$src `,` `order` `=` $order attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Tile_JoinOp : Tile_Op<"join", [Pure, AllTypesMatch<["lhs", "rhs"]>]> {
  let summary = "Stacks two tiles along a new minor dimension of size 2";
  let description = [{
    ```mlir
    %j = tile.join %re, %im : tensor<64xf32> -> tensor<64x2xf32>
    ```
  }];
  let arguments = (ins Tile_AnyTile:$lhs, Tile_AnyTile:$rhs);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_SplitOp : Tile_Op<"split", [Pure, AllTypesMatch<["lhs", "rhs"]>]> {
  let summary = "Splits a tile whose minor dimension is 2 into two tiles";
  let description = [{
    The inverse of `tile.join`.

    ```mlir
    %re, %im = tile.split %j : tensor<64x2xf32> -> tensor<64xf32>
    ```
  }];
  let arguments = (ins Tile_AnyTile:$src);
  let results = (outs Tile_AnyTile:$lhs, Tile_AnyTile:$rhs);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($lhs)";
  let hasVerifier = 1;
}

def Tile_CatOp : Tile_Op<"cat", [Pure, AllTypesMatch<["lhs", "rhs"]>]> {
  let summary = "Concatenates two tiles of one type along an axis";
  let description = [{
    ```mlir
    %c = tile.cat %a, %b, axis = 0 : tensor<32x8xf32> -> tensor<64x8xf32>
    ```
  }];
  let arguments = (ins Tile_AnyTile:$lhs, Tile_AnyTile:$rhs, I32Attr:$axis);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = "$lhs `,` $rhs `,` `axis` `=` $axis attr-dict `:` type($lhs) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_GatherOp : Tile_Op<"gather", [Pure]> {
  let summary = "Picks elements of a tile along one axis by index";
  let description = [{
    `result[i0, .., ia, .., in] = src[i0, .., indices[i0, .., ia, .., in], .., in]`
    for the axis `a`: `indices` has the rank of `src` and its extents on
    every other axis; the result has the shape of `indices`. An index
    outside `[0, src extent)` picks an unspecified element of the same
    slice (compiled code wraps it; the interpreter reports it).

    ```mlir
    %g = tile.gather %src[%idx] axis = 1 : tensor<16x32xf32>, tensor<16x8xi32> -> tensor<16x8xf32>
    ```
  }];
  let arguments = (ins Tile_AnyTile:$src, Tile_IntTile:$indices, I32Attr:$axis);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = [{
    $src `[` $indices `]` `axis` `=` $axis attr-dict `:` type($src) `,` type($indices) `->`
    type($result)
  }];
  let hasVerifier = 1;
}

def Tile_HistogramOp : Tile_Op<"histogram", [Pure]> {
  let summary = "Counts the values of a 1-D integer tile in unit bins from 0";
  let description = [{
    Element `b` of the i32 result counts the elements of `src` equal to `b`,
    for `b` below the result's extent. Values outside the bins and elements
    whose `mask` is false are not counted.

    ```mlir
    %h = tile.histogram %x, mask %m : tensor<1024xi32>, tensor<1024xi1> -> tensor<64xi32>
    ```
  }];
  let arguments = (ins Tile_IntTile:$src, Optional<Tile_BoolTile>:$mask);
  let results = (outs Tile_IntTile:$result);
  let assemblyFormat = [{
    $src (`,` `mask` $mask^)? attr-dict `:` type($src) (`,` type($mask)^)? `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Pointers
//===----------------------------------------------------------------------===//

def Tile_AddPtrOp : Tile_Op<"addptr", [Pure, AllTypesMatch<["ptr", "result"]>]> {
  let summary = "Advances pointers by element offsets";
  let description = [{
    The offset counts elements of the pointee type. A tile of pointers takes a
    tile of offsets of the same shape; a scalar pointer takes a scalar offset.

    ```mlir
    %p = tile.addptr %base, %offs : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
    ```
  }];
  let arguments = (ins Tile_PtrLike:$ptr, Tile_IntLike:$offset);
  let results = (outs Tile_PtrLike:$result);
  let assemblyFormat = "$ptr `,` $offset attr-dict `:` type($ptr) `,` type($offset)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Tile_BitcastOp : Tile_Op<"bitcast", [Pure, SameOperandsAndResultShape]> {
  let summary = "Reinterprets pointers as pointers to another element type";
  let description = [{
    Scalars are reinterpreted with `arith.bitcast`; this op covers pointers.

    ```mlir
    %q = tile.bitcast %p : !tile.ptr<f32> -> !tile.ptr<i32>
    ```
  }];
  let arguments = (ins Tile_PtrLike:$src);
  let results = (outs Tile_PtrLike:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
}

def Tile_IntToPtrOp : Tile_Op<"int_to_ptr", [Pure, SameOperandsAndResultShape]> {
  let summary = "Turns 64-bit addresses into pointers";
  let description = [{
    ```mlir
    %p = tile.int_to_ptr %addr : i64 -> !tile.ptr<f32>
    ```
  }];
  let arguments = (ins AnyTypeOf<[I64, TensorOf<[I64]>]>:$src);
  let results = (outs Tile_PtrLike:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
}

def Tile_PtrToIntOp : Tile_Op<"ptr_to_int", [Pure, SameOperandsAndResultShape]> {
  let summary = "Turns pointers into 64-bit addresses";
  let description = [{
    ```mlir
    %addr = tile.ptr_to_int %p : !tile.ptr<f32> -> i64
    ```
  }];
  let arguments = (ins Tile_PtrLike:$src);
  let results = (outs AnyTypeOf<[I64, TensorOf<[I64]>]>:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
}

//===----------------------------------------------------------------------===//
// Memory access through pointers
//===----------------------------------------------------------------------===//

def Tile_LoadOp : Tile_Op<"load", [
    AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    TypesMatchWith<"result is the pointee of ptr", "ptr", "result",
                   "::tessera::tile::getPointeeType($_self)">,
    Tile_OptionalTypeFromPtr<"mask is an i1 tile shaped like ptr", "mask", 1,
                             "::tessera::tile::getMaskType($_self)">,
    Tile_OptionalTypeFromPtr<"other is shaped like the result", "other", 2,
                             "::tessera::tile::getPointeeType($_self)">]> {
  let summary = "Reads the elements that a tile of pointers points to";
  let description = [{
    Lanes whose `mask` is false read nothing and yield `other` (undefined
    without it). `cache` and `evict` are hints; `volatile` forbids removing or
    merging the access.

    ```mlir
    %x = tile.load %ptrs, %mask, %zero : tensor<128x!tile.ptr<f32>>
    %y = tile.load %ptrs cache = cg evict = evict_first : tensor<128x!tile.ptr<f32>>
    ```
  }];
  let arguments = (ins Tile_PtrLike:$ptr, Optional<Tile_BoolLike>:$mask,
                       Optional<Tile_Value>:$other,
                       DefaultValuedAttr<Tile_CacheModifierAttr, "::tessera::tile::CacheModifier::None">:$cache,
                       DefaultValuedAttr<Tile_EvictionPolicyAttr, "::tessera::tile::EvictionPolicy::Normal">:$evict,
                       UnitAttr:$isVolatile);
  let results = (outs Tile_Value:$result);
  let assemblyFormat = [{
    $ptr (`,` $mask^)? (`,` $other^)?
    (`cache` `=` $cache^)? (`evict` `=` $evict^)? (`volatile` $isVolatile^)?
    attr-dict `:` type($ptr)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def Tile_StoreOp : Tile_Op<"store", [
    MemoryEffects<[MemWrite]>,
    TypesMatchWith<"value is the pointee of ptr", "ptr", "value",
                   "::tessera::tile::getPointeeType($_self)">,
    Tile_OptionalTypeFromPtr<"mask is an i1 tile shaped like ptr", "mask", 2,
                             "::tessera::tile::getMaskType($_self)">]> {
  let summary = "Writes a tile to the places a tile of pointers points to";
  let description = [{
    Lanes whose `mask` is false write nothing.

    ```mlir
    tile.store %ptrs, %y, %mask : tensor<128x!tile.ptr<f32>>
    ```
  }];
  let arguments = (ins Tile_PtrLike:$ptr, Tile_Value:$value,
                       Optional<Tile_BoolLike>:$mask,
                       DefaultValuedAttr<Tile_CacheModifierAttr, "::tessera::tile::CacheModifier::None">:$cache,
                       DefaultValuedAttr<Tile_EvictionPolicyAttr, "::tessera::tile::EvictionPolicy::Normal">:$evict);
  let assemblyFormat = [{
    $ptr `,` $value (`,` $mask^)?
    (`cache` `=` $cache^)? (`evict` `=` $evict^)?
    attr-dict `:` type($ptr)
  }];
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// Tensor descriptors
//===----------------------------------------------------------------------===//

def Tile_MakeTensorDescOp : Tile_Op<"make_tensor_descriptor", [
    Pure, AttrSizedOperandSegments]> {
  let summary = "Describes a strided global tensor to be accessed in blocks";
  let description = [{
    The descriptor remembers base, shape (i32) and strides (i64, in elements)
    of a tensor in global memory; its type gives the block moved by each
    access. Reads outside the shape yield the `padding` value (zero unless
    told), writes outside it are dropped. The innermost stride is expected to
    be 1 for the fast paths (TMA, buffer loads, contiguous vectors).

    ```mlir
    %d = tile.make_tensor_descriptor %a, [%m, %k], [%lda, %c1]
           : !tile.ptr<f16> -> !tile.tensordesc<tensor<64x32xf16>>
    ```
  }];
  let arguments = (ins Tile_Ptr:$base, Variadic<I32>:$shape,
                       Variadic<I64>:$strides,
                       DefaultValuedAttr<Tile_PaddingOptionAttr, "::tessera::tile::PaddingOption::Zero">:$padding);
  let results = (outs Tile_TensorDesc:$result);
  let assemblyFormat = [{
    $base `,` `[` $shape `]` `,` `[` $strides `]` (`padding` `=` $padding^)?
    attr-dict `:` qualified(type($base)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Tile_DescriptorLoadOp : Tile_Op<"descriptor_load", [
    MemoryEffects<[MemRead]>,
    TypesMatchWith<"result is the block of the descriptor", "desc", "result",
                   "::llvm::cast<::tessera::tile::TensorDescType>($_self).getBlockType()">]> {
  let summary = "Reads the block of a tensor descriptor at element offsets";
  let description = [{
    ```mlir
    %blk = tile.descriptor_load %d[%row, %col] : !tile.tensordesc<tensor<64x32xf16>>
    ```
  }];
  let arguments = (ins Tile_TensorDesc:$desc, Variadic<I32>:$offsets,
                       DefaultValuedAttr<Tile_CacheModifierAttr, "::tessera::tile::CacheModifier::None">:$cache,
                       DefaultValuedAttr<Tile_EvictionPolicyAttr, "::tessera::tile::EvictionPolicy::Normal">:$evict);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = [{
    $desc `[` $offsets `]` (`cache` `=` $cache^)? (`evict` `=` $evict^)?
    attr-dict `:` qualified(type($desc))
  }];
  let hasVerifier = 1;
}

def Tile_DescriptorStoreOp : Tile_Op<"descriptor_store", [
    MemoryEffects<[MemWrite]>,
    TypesMatchWith<"value is the block of the descriptor", "desc", "value",
                   "::llvm::cast<::tessera::tile::TensorDescType>($_self).getBlockType()">]> {
  let summary = "Writes the block of a tensor descriptor at element offsets";
  let description = [{
    ```mlir
    tile.descriptor_store %d[%row, %col], %blk : !tile.tensordesc<tensor<64x32xf16>>
    ```
  }];
  let arguments = (ins Tile_TensorDesc:$desc, Variadic<I32>:$offsets,
                       Tile_AnyTile:$value);
  let assemblyFormat = "$desc `[` $offsets `]` `,` $value attr-dict `:` qualified(type($desc))";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Matrix product
//===----------------------------------------------------------------------===//

def Tile_DotOp : Tile_Op<"dot", [Pure, AllTypesMatch<["acc", "result"]>]> {
  let summary = "Matrix product with accumulation: result = a * b + acc";
  let description = [{
    `a` is [M, K], `b` is [K, N] and `acc` is [M, N] (a leading batch
    dimension is allowed on all three). Operand and accumulator element types:

    | a, b | acc |
    | --- | --- |
    | f16 | f32 or f16 |
    | bf16 | f32 |
    | f32 | f32 (`input_precision`: tf32, tf32x3 or ieee) |
    | f64 | f64 |
    | f8E4M3FN, f8E5M2 | f32 or f16 |
    | i8 | i32 |

    `max_num_imprecise_acc` bounds how many fp8 products a backend may add
    at reduced precision before promoting (0: no bound is given).

    ```mlir
    %c = tile.dot %a, %b, %acc : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
    %d = tile.dot %x, %y, %acc input_precision = ieee : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32>
    ```
  }];
  let arguments = (ins Tile_AnyTile:$a, Tile_AnyTile:$b, Tile_AnyTile:$acc,
                       DefaultValuedAttr<Tile_InputPrecisionAttr, "::tessera::tile::InputPrecision::TF32">:$inputPrecision,
                       DefaultValuedAttr<I32Attr, "0">:$maxNumImpreciseAcc);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = [{
    $a `,` $b `,` $acc (`input_precision` `=` $inputPrecision^)?
    (`max_num_imprecise_acc` `=` $maxNumImpreciseAcc^)?
    attr-dict `:` type($a) `*` type($b) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Reductions and scans
//===----------------------------------------------------------------------===//

def Tile_ReduceOp : Tile_Op<"reduce", [
    Pure, SameOperandsShape, SingleBlock,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "Reduces tiles along an axis with a combining region";
  let description = [{
    All operands have one shape; the results drop `axis` (a 1-D operand
    reduces to a scalar). The region combines two partial results: for N
    operands it takes N element values of the accumulated side, then N of the
    other side, and yields N values with `tile.yield`. The combination must be
    associative and commutative; the order of evaluation is unspecified.

    ```mlir
    %max, %idx = tile.reduce %x, %i axis = 0 : tensor<128xf32>, tensor<128xi32> {
    ^bb0(%a: f32, %ai: i32, %b: f32, %bi: i32):
      %gt = arith.cmpf ogt, %a, %b : f32
      %m = arith.select %gt, %a, %b : f32
      %mi = arith.select %gt, %ai, %bi : i32
      tile.yield %m, %mi : f32, i32
    }
    ```
  }];
  let arguments = (ins Variadic<Tile_AnyTile>:$srcs, I32Attr:$axis);
  let results = (outs Variadic<Tile_Value>:$results);
  let regions = (region SizedRegion<1>:$combineOp);
  let assemblyFormat = "$srcs `axis` `=` $axis attr-dict `:` type($srcs) $combineOp";
  let hasRegionVerifier = 1;
}

def Tile_ScanOp : Tile_Op<"scan", [
    Pure, SameOperandsAndResultShape, SingleBlock,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "Inclusive associative scan along an axis";
  let description = [{
    Like `tile.reduce`, but result element `i` combines operand elements `0..i`
    along `axis` (or `i..n-1` with `reverse`). The region combines the running
    value (first N arguments) with the next element (last N arguments).

    ```mlir
    %c = tile.scan %x axis = 0 : tensor<128xf32> {
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      tile.yield %s : f32
    }
    ```
  }];
  let arguments = (ins Variadic<Tile_AnyTile>:$srcs, I32Attr:$axis, UnitAttr:$reverse);
  let results = (outs Variadic<Tile_AnyTile>:$results);
  let regions = (region SizedRegion<1>:$combineOp);
  let assemblyFormat = [{
    $srcs `axis` `=` $axis (`reverse` $reverse^)? attr-dict `:` type($srcs) $combineOp
  }];
  let hasRegionVerifier = 1;
}

def Tile_YieldOp : Tile_Op<"yield", [
    Pure, ReturnLike, Terminator, ParentOneOf<["ReduceOp", "ScanOp"]>]> {
  let summary = "Yields the combined values of a reduce or scan region";
  let description = [{
    ```mlir
    tile.yield %s : f32
    ```
  }];
  let arguments = (ins Variadic<Tile_Scalar>:$values);
  let assemblyFormat = "$values attr-dict `:` type($values)";
}

//===----------------------------------------------------------------------===//
// Atomics
//===----------------------------------------------------------------------===//

def Tile_AtomicRMWOp : Tile_Op<"atomic_rmw", [
    MemoryEffects<[MemRead, MemWrite]>,
    TypesMatchWith<"value is the pointee of ptr", "ptr", "val",
                   "::tessera::tile::getPointeeType($_self)">,
    TypesMatchWith<"result is the pointee of ptr", "ptr", "result",
                   "::tessera::tile::getPointeeType($_self)">,
    Tile_OptionalTypeFromPtr<"mask is an i1 tile shaped like ptr", "mask", 2,
                             "::tessera::tile::getMaskType($_self)">]> {
  let summary = "Atomic read-modify-write; returns the old values";
  let description = [{
    `fadd` adds floats; `add`, `and`, `or`, `xor`, `umax`, `umin` work on
    integers; `max` and `min` on signed integers and floats; `xchg` on both.
    Masked-off lanes do nothing and return undefined values.

    ```mlir
    %old = tile.atomic_rmw fadd, relaxed, gpu, %ptrs, %v, %mask : tensor<64x!tile.ptr<f32>>
    ```
  }];
  let arguments = (ins Tile_RMWOpAttr:$rmwOp, Tile_MemSemanticAttr:$sem,
                       Tile_MemScopeAttr:$scope, Tile_PtrLike:$ptr,
                       Tile_Value:$val, Optional<Tile_BoolLike>:$mask);
  let results = (outs Tile_Value:$result);
  let assemblyFormat = [{
    $rmwOp `,` $sem `,` $scope `,` $ptr `,` $val (`,` $mask^)? attr-dict `:` type($ptr)
  }];
  let hasVerifier = 1;
}

def Tile_AtomicCASOp : Tile_Op<"atomic_cas", [
    MemoryEffects<[MemRead, MemWrite]>,
    TypesMatchWith<"cmp is the pointee of ptr", "ptr", "cmp",
                   "::tessera::tile::getPointeeType($_self)">,
    TypesMatchWith<"val is the pointee of ptr", "ptr", "val",
                   "::tessera::tile::getPointeeType($_self)">,
    TypesMatchWith<"result is the pointee of ptr", "ptr", "result",
                   "::tessera::tile::getPointeeType($_self)">]> {
  let summary = "Atomic compare-and-swap; returns the old values";
  let description = [{
    Where the memory holds `cmp`, writes `val`. Integer and float elements of
    16, 32 or 64 bits.

    ```mlir
    %old = tile.atomic_cas acq_rel, gpu, %lock, %c0, %c1 : !tile.ptr<i32>
    ```
  }];
  let arguments = (ins Tile_MemSemanticAttr:$sem, Tile_MemScopeAttr:$scope,
                       Tile_PtrLike:$ptr, Tile_Value:$cmp, Tile_Value:$val);
  let results = (outs Tile_Value:$result);
  let assemblyFormat = "$sem `,` $scope `,` $ptr `,` $cmp `,` $val attr-dict `:` type($ptr)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Math beyond the math dialect
//===----------------------------------------------------------------------===//

def Tile_ClampOp : Tile_Op<"clamp", [Pure, Elementwise, SameOperandsAndResultType]> {
  let summary = "Clamps floats to [min, max]";
  let description = [{
    With `propagate_nan = all` a NaN in `x` stays NaN; otherwise the result
    for a NaN `x` is one of the bounds. `min <= max` is the caller's duty.

    ```mlir
    %y = tile.clamp %x, %lo, %hi propagate_nan = all : tensor<64xf32>
    ```
  }];
  let arguments = (ins Tile_FloatLike:$x, Tile_FloatLike:$min, Tile_FloatLike:$max,
                       DefaultValuedAttr<Tile_PropagateNanAttr, "::tessera::tile::PropagateNan::None">:$propagateNan);
  let results = (outs Tile_FloatLike:$result);
  let assemblyFormat = [{
    $x `,` $min `,` $max (`propagate_nan` `=` $propagateNan^)? attr-dict `:` type($result)
  }];
}

def Tile_PreciseSqrtOp : Tile_Op<"precise_sqrt", [Pure, Elementwise, SameOperandsAndResultType]> {
  let summary = "Correctly rounded square root";
  let description = [{
    `math.sqrt` may be approximated by a backend; this one is IEEE-rounded.

    ```mlir
    %r = tile.precise_sqrt %x : tensor<64xf32>
    ```
  }];
  let arguments = (ins Tile_FloatLike:$x);
  let results = (outs Tile_FloatLike:$result);
  let assemblyFormat = "$x attr-dict `:` type($x)";
}

def Tile_PreciseDivFOp : Tile_Op<"precise_divf", [Pure, Elementwise, SameOperandsAndResultType]> {
  let summary = "Correctly rounded division";
  let description = [{
    ```mlir
    %q = tile.precise_divf %x, %y : tensor<64xf32>
    ```
  }];
  let arguments = (ins Tile_FloatLike:$x, Tile_FloatLike:$y);
  let results = (outs Tile_FloatLike:$result);
  let assemblyFormat = "$x `,` $y attr-dict `:` type($x)";
}

def Tile_ExternElementwiseOp : Tile_Op<"extern_elementwise", [
    Elementwise, SameOperandsAndResultShape,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Calls an elementwise function of an external device library";
  let description = [{
    Applies `symbol` from library `libname` (found at `libpath`, or where the
    target looks for that library) to each element. Unless `pure` is set the
    call is assumed to have side effects.

    ```mlir
    %e = tile.extern_elementwise "__nv_erff"(%x) lib "libdevice" pure : (tensor<64xf32>) -> tensor<64xf32>
    ```
  }];
  let arguments = (ins Variadic<Tile_Value>:$srcs, StrAttr:$symbol,
                       StrAttr:$libname, DefaultValuedStrAttr<StrAttr, "">:$libpath,
                       UnitAttr:$pure);
  let results = (outs Tile_Value:$result);
  let assemblyFormat = [{
    $symbol `(` $srcs `)` `lib` $libname (`path` $libpath^)? (`pure` $pure^)?
    attr-dict `:` functional-type($srcs, $result)
  }];
}

def Tile_InlineAsmElementwiseOp : Tile_Op<"inline_asm_elementwise", [
    Elementwise, SameOperandsAndResultShape,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Runs the target's assembly on each element, or each pack of elements";
  let description = [{
    Triton's `inline_asm_elementwise`: `asm_string` in LLVM's inline
    assembly syntax (`$0` the first result, then the arguments) runs once per
    `pack` elements of the arguments, which share one shape. `constraints`
    binds results and arguments in that order, LLVM's way (`"=r,r"`). With
    `pack` > 1 each operand of the assembly is a vector of `pack` elements
    (such as two f16 in one 32-bit register). Unless `pure` is set the
    assembly is assumed to have side effects. Only GPU targets whose
    assembly it is can run it (NVIDIA's PTX, AMD's GCN).

    ```mlir
    %t = tile.inline_asm_elementwise "tanh.approx.f32 $0, $1;"(%x) constraints "=r,r" pure
        : (tensor<64xf32>) -> tensor<64xf32>
    ```
  }];
  let arguments = (ins Variadic<Tile_Value>:$args, StrAttr:$asm_string, StrAttr:$constraints,
                       UnitAttr:$pure, DefaultValuedAttr<I32Attr, "1">:$pack);
  let results = (outs Variadic<Tile_Value>:$results);
  let assemblyFormat = [{
    $asm_string `(` $args `)` `constraints` $constraints (`pure` $pure^)? (`pack` $pack^)?
    attr-dict `:` functional-type($args, $results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Debugging
//===----------------------------------------------------------------------===//

def Tile_PrintOp : Tile_Op<"print", [MemoryEffects<[MemWrite]>]> {
  let summary = "Prints values from every program, with a prefix";
  let description = [{
    ```mlir
    tile.print "x = " (%x : tensor<8xf32>)
    tile.print "bits: " hex (%b : tensor<8xi32>)
    tile.print "hash = " (%h : tensor<8xi64>) {unsigned_args = array<i1: true>}
    ```

    Integers print as signed numbers, except the operands that
    `unsigned_args` (one flag per operand, where present) marks: the IR's
    integers are signless, and the front ends know which are unsigned.
  }];
  let arguments = (ins StrAttr:$prefix, UnitAttr:$hex, Variadic<Tile_Value>:$args,
                       OptionalAttr<DenseBoolArrayAttr>:$unsigned_args);
  let hasVerifier = 1;
  // The values sit in parentheses: bare, they would swallow the `%x = ` of a
  // following op when there are none.
  let assemblyFormat = "$prefix (`hex` $hex^)? (`(` $args^ `:` type($args) `)`)? attr-dict";
}

def Tile_AssertOp : Tile_Op<"assert", [MemoryEffects<[MemWrite]>]> {
  let summary = "Stops the kernel with a message where a condition is false";
  let description = [{
    ```mlir
    tile.assert %ok, "index out of range" : tensor<64xi1>
    ```
  }];
  let arguments = (ins Tile_BoolLike:$condition, StrAttr:$message);
  let assemblyFormat = "$condition `,` $message attr-dict `:` type($condition)";
  let hasCanonicalizer = 1;
}

def Tile_AssumeOp : Tile_Op<"assume", [MemoryEffects<[MemWrite]>]> {
  let summary = "A promise that a scalar condition holds, for the compiler's analyses";
  let description = [{
    ```mlir
    %ok = arith.cmpi sge, %pid_n, %c0 : i32
    tile.assume %ok
    ```
    A kernel whose assumption is false has undefined behaviour (the
    interpreter stops it with an error). The contiguity analysis reads
    `v >= c` (c >= 0) and `v > c` (c >= -1), or the same with the operands
    swapped, as "v is non-negative" for an integer scalar `v` where the
    assumption sits in the block that defines `v` (the entry block for a
    function argument). The op has a (nominal) write effect so that it is
    not removed as dead; it is erased when the kernel is lowered.
  }];
  let arguments = (ins I1:$condition);
  let assemblyFormat = "$condition attr-dict";
}

def Tile_HintOp : Tile_Op<"hint", [Pure, SameOperandsAndResultType]> {
  let summary = "Facts about an integer or pointer value that the compiler cannot prove";
  let description = [{
    ```mlir
    %offs = tile.hint %wrapped {multiple_of = 64 : i64, max_contiguous = 64 : i64}
        : tensor<64xi32>
    ```
    The result is the operand; the attributes are promises about it along
    its last dimension, in aligned groups (Triton's `tl.multiple_of`,
    `tl.max_contiguous`, `tl.max_constancy`): groups of `max_contiguous`
    elements hold consecutive values, groups of `max_constancy` elements hold
    equal values, and the first value of every group is a multiple of
    `multiple_of` (for a scalar: the value is). The contiguity analysis takes
    them where it proves less; a false promise is undefined behaviour. The
    backends lower the op to its operand.
  }];
  let arguments = (ins AnyTypeOf<[Tile_IntLike, Tile_PtrLike]>:$src,
                       OptionalAttr<I64Attr>:$multiple_of,
                       OptionalAttr<I64Attr>:$max_contiguous,
                       OptionalAttr<I64Attr>:$max_constancy);
  let results = (outs AnyTypeOf<[Tile_IntLike, Tile_PtrLike]>:$result);
  let assemblyFormat = "$src attr-dict `:` type($src)";
  let hasVerifier = 1;
}

def Tile_DebugBarrierOp : Tile_Op<"debug_barrier", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Synchronizes the threads that run one program";
  let description = [{
    ```mlir
    tile.debug_barrier
    ```
    Every thread of the program waits here until all have arrived, and the
    memory accesses (global and shared) each made before it are visible to
    all of them after it (`tl.debug_barrier`, CUDA's `__syncthreads`). On the
    CPU and in the interpreter a program is one thread, and it does nothing.
  }];
  let assemblyFormat = "attr-dict";
}

#endif // TESSERA_IR_TILEOPS_TD
