#ifndef TESSERA_IR_TILEATTRS_TD
#define TESSERA_IR_TILEATTRS_TD

include "ir/TileDialect.td"
include "mlir/IR/EnumAttr.td"

// Enums are stored as integer attributes and printed as bare keywords in the
// op formats (`cache = cg`).
class Tile_I32Enum<string name, string summary, list<I32EnumAttrCase> cases>
    : I32EnumAttr<name, summary, cases> {
  let cppNamespace = "::tessera::tile";
}

def Tile_ProgramAxisAttr : Tile_I32Enum<"ProgramAxis", "axis of the launch grid", [
  I32EnumAttrCase<"X", 0, "x">, I32EnumAttrCase<"Y", 1, "y">,
  I32EnumAttrCase<"Z", 2, "z">]>;

def Tile_CacheModifierAttr : Tile_I32Enum<"CacheModifier", "cache modifier of a memory access", [
  I32EnumAttrCase<"None", 0, "none">, I32EnumAttrCase<"CA", 1, "ca">,
  I32EnumAttrCase<"CG", 2, "cg">, I32EnumAttrCase<"CS", 3, "cs">,
  I32EnumAttrCase<"CV", 4, "cv">, I32EnumAttrCase<"WB", 5, "wb">,
  I32EnumAttrCase<"WT", 6, "wt">]>;

def Tile_EvictionPolicyAttr : Tile_I32Enum<"EvictionPolicy", "cache eviction policy", [
  I32EnumAttrCase<"Normal", 0, "normal">,
  I32EnumAttrCase<"EvictFirst", 1, "evict_first">,
  I32EnumAttrCase<"EvictLast", 2, "evict_last">]>;

def Tile_PaddingOptionAttr : Tile_I32Enum<"PaddingOption",
    "value read outside the bounds of a tensor descriptor", [
  I32EnumAttrCase<"Zero", 0, "zero">, I32EnumAttrCase<"NaN", 1, "nan">]>;

def Tile_InputPrecisionAttr : Tile_I32Enum<"InputPrecision",
    "precision of fp32 operands of a dot", [
  I32EnumAttrCase<"TF32", 0, "tf32">, I32EnumAttrCase<"TF32x3", 1, "tf32x3">,
  I32EnumAttrCase<"IEEE", 2, "ieee">]>;

def Tile_RMWOpAttr : Tile_I32Enum<"RMWOp", "read-modify-write operation of an atomic", [
  I32EnumAttrCase<"Add", 0, "add">, I32EnumAttrCase<"FAdd", 1, "fadd">,
  I32EnumAttrCase<"Max", 2, "max">, I32EnumAttrCase<"UMax", 3, "umax">,
  I32EnumAttrCase<"Min", 4, "min">, I32EnumAttrCase<"UMin", 5, "umin">,
  I32EnumAttrCase<"And", 6, "and">, I32EnumAttrCase<"Or", 7, "or">,
  I32EnumAttrCase<"Xor", 8, "xor">, I32EnumAttrCase<"Xchg", 9, "xchg">]>;

def Tile_MemSemanticAttr : Tile_I32Enum<"MemSemantic", "memory ordering of an atomic", [
  I32EnumAttrCase<"Relaxed", 0, "relaxed">, I32EnumAttrCase<"Acquire", 1, "acquire">,
  I32EnumAttrCase<"Release", 2, "release">, I32EnumAttrCase<"AcqRel", 3, "acq_rel">]>;

def Tile_MemScopeAttr : Tile_I32Enum<"MemScope", "scope of an atomic", [
  I32EnumAttrCase<"GPU", 0, "gpu">, I32EnumAttrCase<"CTA", 1, "cta">,
  I32EnumAttrCase<"System", 2, "sys">]>;

def Tile_PropagateNanAttr : Tile_I32Enum<"PropagateNan", "NaN handling of clamp", [
  I32EnumAttrCase<"None", 0, "none">, I32EnumAttrCase<"All", 1, "all">]>;

#endif // TESSERA_IR_TILEATTRS_TD
