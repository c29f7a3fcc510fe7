#ifndef TESSERA_IR_TILETYPES_TD
#define TESSERA_IR_TILETYPES_TD

include "ir/TileDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"
include "mlir/IR/CommonTypeConstraints.td"

class Tile_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Tile_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Tile_PtrType : Tile_Type<"Pointer", "ptr"> {
  let summary = "Pointer to scalars of one element type in an address space";
  let description = [{
    A pointer into device memory. The pointee is a scalar type (integer or
    float). The address space defaults to 1 (global memory) and is printed only
    when it differs.

    ```mlir
    !tile.ptr<f16>
    !tile.ptr<i8, 3>
    ```
  }];
  let parameters = (ins "::mlir::Type":$pointeeType,
                        DefaultValuedParameter<"unsigned", "1">:$addressSpace);
  let builders = [
    TypeBuilderWithInferredContext<(ins "::mlir::Type":$pointeeType,
                                        CArg<"unsigned", "1">:$addressSpace), [{
      return $_get(pointeeType.getContext(), pointeeType, addressSpace);
    }]>
  ];
  let assemblyFormat = "`<` $pointeeType (`,` $addressSpace^)? `>`";
  let genVerifyDecl = 1;
  let skipDefaultBuilders = 1;
}

def Tile_TensorDescType : Tile_Type<"TensorDesc", "tensordesc"> {
  let summary = "Descriptor of a strided global tensor accessed block by block";
  let description = [{
    A tensor descriptor holds a base pointer, the global shape and strides of
    a tensor and the shape of the block that each `tile.descriptor_load` or
    `tile.descriptor_store` moves. The type records the block: its shape and
    element type.

    ```mlir
    !tile.tensordesc<tensor<64x32xf16>>
    ```
  }];
  let parameters = (ins "::mlir::RankedTensorType":$blockType);
  let assemblyFormat = "`<` $blockType `>`";
  let genVerifyDecl = 1;
}

def Tile_Float : AnyTypeOf<[F8E4M3FN, F8E5M2, F16, BF16, F32, F64]>;
def Tile_Int : AnyTypeOf<[I1, I8, I16, I32, I64]>;
def Tile_Ptr : Type<CPred<"::llvm::isa<::tessera::tile::PointerType>($_self)">,
                    "tile pointer", "::tessera::tile::PointerType">;
def Tile_Scalar : AnyTypeOf<[Tile_Float, Tile_Int, Tile_Ptr]>;

class Tile_TensorOf<list<Type> allowed>
    : StaticShapeTensorOf<allowed>;

def Tile_FloatTile : Tile_TensorOf<[Tile_Float]>;
def Tile_IntTile : Tile_TensorOf<[Tile_Int]>;
def Tile_BoolTile : Tile_TensorOf<[I1]>;
def Tile_PtrTile : Tile_TensorOf<[Tile_Ptr]>;
def Tile_AnyTile : Tile_TensorOf<[Tile_Scalar]>;

def Tile_FloatLike : AnyTypeOf<[Tile_Float, Tile_FloatTile]>;
def Tile_IntLike : AnyTypeOf<[Tile_Int, Tile_IntTile]>;
def Tile_BoolLike : AnyTypeOf<[I1, Tile_BoolTile]>;
def Tile_PtrLike : AnyTypeOf<[Tile_Ptr, Tile_PtrTile]>;
def Tile_Value : AnyTypeOf<[Tile_Scalar, Tile_AnyTile]>;
def Tile_TensorDesc : Type<CPred<"::llvm::isa<::tessera::tile::TensorDescType>($_self)">,
                           "tile tensor descriptor", "::tessera::tile::TensorDescType">;

#endif // TESSERA_IR_TILETYPES_TD
