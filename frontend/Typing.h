// Triton's typing rules on MLIR types, shared by the KernelBuilder sources:
// element type promotion and shape broadcasting.
#ifndef TESSERA_FRONTEND_TYPING_H
#define TESSERA_FRONTEND_TYPING_H

#include "mlir/IR/Types.h"
#include "llvm/ADT/ArrayRef.h"

#include <optional>
#include <vector>

namespace tessera::frontend::typing {

/// The element type two (non-pointer) operands are converted to: a float
/// beats an integer; otherwise the wider wins; f16 with bf16 gives f32.
mlir::Type promote(mlir::Type lhs, mlir::Type rhs);

/// The shape both shapes broadcast to (ranks aligned on the right, size-1
/// dimensions stretched), or nothing when they are incompatible.
std::optional<std::vector<int64_t>> broadcastShapes(llvm::ArrayRef<int64_t> lhs,
                                                    llvm::ArrayRef<int64_t> rhs);

/// Whether `from` broadcasts to exactly `to`.
bool broadcastsTo(llvm::ArrayRef<int64_t> from, llvm::ArrayRef<int64_t> to);

inline bool isFloat(mlir::Type type) { return llvm::isa<mlir::FloatType>(type); }
inline bool isInteger(mlir::Type type) { return llvm::isa<mlir::IntegerType>(type); }
inline bool isBool(mlir::Type type) { return type.isInteger(1); }

} // namespace tessera::frontend::typing

#endif // TESSERA_FRONTEND_TYPING_H
