// Shape-to-lane index maps for tiles flattened to 1-D vectors (row-major), and
// the shuffles that apply them. Every data movement op of the CPU backend
// (broadcast, trans, join, split, cat, the halving steps of reduce and the
// shifts of scan) is one call to `shuffleLanes` with a mask computed here.
#ifndef TESSERA_LOWERING_CPU_TILESHUFFLES_H
#define TESSERA_LOWERING_CPU_TILESHUFFLES_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>

namespace tessera::cpu {

int64_t product(llvm::ArrayRef<int64_t> shape);
llvm::SmallVector<int64_t, 4> rowMajorStrides(llvm::ArrayRef<int64_t> shape);

/// For every lane of a result of shape `resultShape` (row-major order), the
/// lane of the source it takes: `sourceLane(index)` of the result's
/// multi-index. A negative lane means "don't care".
llvm::SmallVector<int64_t> mapLanes(llvm::ArrayRef<int64_t> resultShape,
                                    llvm::function_ref<int64_t(llvm::ArrayRef<int64_t>)> sourceLane);

/// Lane maps of the tile data movement ops (source lanes index the
/// concatenation of the operands for join and cat).
llvm::SmallVector<int64_t> broadcastLanes(llvm::ArrayRef<int64_t> srcShape,
                                          llvm::ArrayRef<int64_t> resultShape);
llvm::SmallVector<int64_t> transposeLanes(llvm::ArrayRef<int64_t> srcShape,
                                          llvm::ArrayRef<int32_t> order);
llvm::SmallVector<int64_t> joinLanes(llvm::ArrayRef<int64_t> operandShape);
llvm::SmallVector<int64_t> splitLanes(llvm::ArrayRef<int64_t> srcShape, unsigned half);
llvm::SmallVector<int64_t> catLanes(llvm::ArrayRef<int64_t> operandShape, unsigned axis);
/// Viewing a tile as [outer, n, inner], the lanes whose index along the middle
/// dimension is in [begin, end): a tile of shape [outer, end - begin, inner].
llvm::SmallVector<int64_t> sliceLanes(int64_t outer, int64_t n, int64_t inner, int64_t begin,
                                      int64_t end);

/// `llvm.shufflevector` of `lhs` (and `rhs`, or `lhs` again when null) with
/// the lanes `lanes` of their concatenation; returns `lhs` itself for the
/// identity map.
mlir::Value shuffleLanes(mlir::OpBuilder &b, mlir::Location loc, mlir::Value lhs, mlir::Value rhs,
                         llvm::ArrayRef<int64_t> lanes);

/// `parts` (1-D vectors) one after the other: a balanced tree of shuffles,
/// each joining two neighbours of one length (no size limit, unlike LLVM's
/// vector.insert intrinsic, which stops at 2^17 bits).
mlir::Value concatVectors(mlir::OpBuilder &b, mlir::Location loc,
                          llvm::ArrayRef<mlir::Value> parts);

} // namespace tessera::cpu

#endif // TESSERA_LOWERING_CPU_TILESHUFFLES_H
