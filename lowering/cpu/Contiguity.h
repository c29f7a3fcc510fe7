// Contiguity of pointer tiles: proves that the addresses of a tile of
// pointers increase by exactly one element along the last dimension, so that
// each row can be read or written with one masked vector load or store
// instead of a gather or scatter.
#ifndef TESSERA_LOWERING_CPU_CONTIGUITY_H
#define TESSERA_LOWERING_CPU_CONTIGUITY_H

#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"

#include <cstdint>
#include <optional>

namespace tessera::cpu {

/// Walks the expression that computes a tile (through addptr, splat,
/// broadcast, expand_dims, make_range, arith.addi/subi/muli/extsi/extui/trunci
/// and constants) and finds the constant difference between neighbouring
/// elements along its last dimension, counted in elements of the pointee for
/// pointers. Scalars and splats have stride 0; a last dimension of size 1 has
/// stride 0. Integer arguments marked `tile.equal_to_1` count as the constant 1.
class ContiguityAnalysis {
public:
  /// The stride along the last dimension, or nullopt when it is unknown.
  std::optional<int64_t> lastDimStride(mlir::Value value);
  /// The value of an integer scalar or splat known at compile time.
  std::optional<int64_t> constantValue(mlir::Value value);
  /// True when `ptrTile` is a tile of pointers whose rows are contiguous.
  bool isContiguous(mlir::Value ptrTile);

private:
  std::optional<int64_t> compute(mlir::Value value);
  llvm::DenseMap<mlir::Value, std::optional<int64_t>> cache;
};

} // namespace tessera::cpu

#endif // TESSERA_LOWERING_CPU_CONTIGUITY_H
