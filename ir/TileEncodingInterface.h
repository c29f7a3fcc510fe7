// How tile ops carry the encodings that backends attach to tile types (the
// GPU's `#tgpu.layout`). Ops whose result types are inferred from their
// operands ask the encoding's dialect through this interface, so the tile
// dialect stays independent of every backend.
#ifndef TESSERA_IR_TILEENCODINGINTERFACE_H
#define TESSERA_IR_TILEENCODINGINTERFACE_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/DialectInterface.h"
#include "mlir/Support/LLVM.h"

namespace tessera::tile {

class TileEncodingInterface : public mlir::DialectInterface::Base<TileEncodingInterface> {
public:
  explicit TileEncodingInterface(mlir::Dialect *dialect) : Base(dialect) {}

  /// The encoding of `tile.reduce`'s result when its operand, a tile of
  /// `shape` (rank >= 2), carries `encoding` and is reduced along `axis`.
  virtual mlir::FailureOr<mlir::Attribute>
  inferReducedEncoding(mlir::Attribute encoding, llvm::ArrayRef<int64_t> shape,
                       unsigned axis) const = 0;
};

} // namespace tessera::tile

#endif // TESSERA_IR_TILEENCODINGINTERFACE_H
