// Tile-level passes that every backend may run (ir/transforms/Passes.td).
#ifndef TESSERA_IR_TRANSFORMS_PASSES_H
#define TESSERA_IR_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"

#include <memory>

namespace tessera::tile {

#define GEN_PASS_DECL
#include "ir/transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "ir/transforms/Passes.h.inc"

} // namespace tessera::tile

#endif // TESSERA_IR_TRANSFORMS_PASSES_H
