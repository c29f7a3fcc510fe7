// The `tgpu` dialect: tile IR whose tiles carry GPU layouts.
#ifndef TESSERA_LOWERING_GPU_IR_TILEGPUDIALECT_H
#define TESSERA_LOWERING_GPU_IR_TILEGPUDIALECT_H

#include "lowering/gpu/LinearLayout.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "mlir/IR/TensorEncoding.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <optional>

#include "lowering/gpu/ir/TileGpuDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "lowering/gpu/ir/TileGpuAttrs.h.inc"

#define GET_OP_CLASSES
#include "lowering/gpu/ir/TileGpuOps.h.inc"

namespace tessera::gpu {

/// The layout of a tile type carrying a `#tgpu.layout` encoding.
std::optional<LinearLayout> layoutOf(mlir::Type tileType);
/// `type` with `layout` as its encoding.
mlir::RankedTensorType withLayout(mlir::RankedTensorType type, const LinearLayout &layout);

} // namespace tessera::gpu

#endif // TESSERA_LOWERING_GPU_IR_TILEGPUDIALECT_H
