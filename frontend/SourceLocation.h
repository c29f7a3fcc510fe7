// Where in the user's kernel source something happened. Both front doors
// (the C++ EDSL and the Python AST visitor) report positions this way, and
// every op a user's line creates carries it as its MLIR location.
#ifndef TESSERA_FRONTEND_SOURCELOCATION_H
#define TESSERA_FRONTEND_SOURCELOCATION_H

#include "mlir/IR/Location.h"

#include <optional>
#include <source_location>
#include <string>

namespace tessera::frontend {

struct SourceLocation {
  std::string file;
  unsigned line = 0;
  unsigned column = 0;

  static SourceLocation from(const std::source_location &loc) {
    return {loc.file_name(), static_cast<unsigned>(loc.line()),
            static_cast<unsigned>(loc.column())};
  }

  /// `file:line:col`, the prefix compilers use, so editors can jump to it.
  std::string str() const {
    return file + ":" + std::to_string(line) + ":" + std::to_string(column);
  }

  mlir::FileLineColLoc toMLIR(mlir::MLIRContext *context) const {
    return mlir::FileLineColLoc::get(context, file, line, column);
  }

  /// The file position inside an MLIR location (looking through fused and
  /// named locations), or nothing when it holds none.
  static std::optional<SourceLocation> fromMLIR(mlir::Location loc);

  bool operator==(const SourceLocation &) const = default;
};

} // namespace tessera::frontend

#endif // TESSERA_FRONTEND_SOURCELOCATION_H
