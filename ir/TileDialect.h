// The `tile` dialect: types, attributes and operations of Tessera's tile IR.
#ifndef TESSERA_IR_TILEDIALECT_H
#define TESSERA_IR_TILEDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "ir/TileDialect.h.inc"
#include "ir/TileEnums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "ir/TileTypes.h.inc"

namespace tessera::tile {

/// The type a load through `ptrLike` yields: the pointee for a pointer, a
/// tile of pointees of the same shape for a tile of pointers. A type that is
/// not pointer-like comes back unchanged, so that the parser still builds an
/// op whose pointer-type constraint then reports the mistake.
mlir::Type getPointeeType(mlir::Type ptrLike);

/// The mask type that goes with `ptrLike`: i1, or an i1 tile of its shape.
mlir::Type getMaskType(mlir::Type ptrLike);

/// Whether `op` and the ops its regions hold have no memory effects but
/// promises (tile.assume, whose write only keeps it in place): such ops may
/// be computed again, for another loop iteration or in a branch, since the
/// promises only tell the analyses what holds.
bool hasNoEffectsButPromises(mlir::Operation *op);

/// Whether `type` is one of the tile dialect's fp8 element types (OCP
/// f8E4M3FN and f8E5M2).
inline bool isFloat8(mlir::Type type) {
  return mlir::isa<mlir::Float8E4M3FNType, mlir::Float8E5M2Type>(type);
}

} // namespace tessera::tile

#define GET_OP_CLASSES
#include "ir/TileOps.h.inc"

#endif // TESSERA_IR_TILEDIALECT_H
