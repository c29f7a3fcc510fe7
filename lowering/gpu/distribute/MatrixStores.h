// Storing a tile of 16-bit elements to a row-major shared buffer with
// stmatrix (sm_90): one stmatrix.sync.aligned.m8n8.x4.shared.b16 writes four
// 8x8 matrices, each lane handing in one 32-bit pair per matrix, where the
// scalar path needs one 4-byte store per pair. A tensor-core accumulator's
// distribution is exactly stmatrix's fragment (lane l holds row l / 4,
// columns 2 * (l % 4) and the next), so the epilogue of a GEMM, which moves
// its result to rows of 8-element runs for 16-byte global stores, writes
// shared memory with a quarter of the instructions.
#ifndef TESSERA_LOWERING_GPU_DISTRIBUTE_MATRIXSTORES_H
#define TESSERA_LOWERING_GPU_DISTRIBUTE_MATRIXSTORES_H

#include "lowering/gpu/LinearLayout.h"
#include "lowering/gpu/distribute/DistributedValues.h"

#include "mlir/IR/Builders.h"

#include <optional>

namespace tessera::gpu {

/// How the warps store a tile with stmatrix: instruction i writes `matrices`
/// (1, 2 or 4) 8x8 matrices. Lane l gives the address of row l % 8 of matrix
/// l / 8, which is the row-major index of register i of `rowStarts` in that
/// lane (lanes past 8 * matrices give addresses the instruction ignores).
/// Matrix m's 32-bit fragment is the pair of tile registers
/// fragments[i][m] (low half) and fragments[i][m] + 1.
struct MatrixStores {
  unsigned matrices = 0;
  LinearLayout rowStarts;
  llvm::SmallVector<llvm::SmallVector<unsigned, 4>> fragments;
};

/// The stmatrix plan for a tile of 16-bit elements in `layout` on 32-lane
/// warps, or std::nullopt unless every thread holds stmatrix fragments:
/// register bit 0 moves one column, lane bits 0 and 1 two and four columns,
/// lane bits 2 to 4 independent rows (no column), and every other register
/// and warp basis a multiple of 8 columns, so that each 8x8 block a warp
/// writes is 8 runs of 8 consecutive columns (16 bytes of one row).
std::optional<MatrixStores> planMatrixStores(const LinearLayout &layout);

/// Stores `registers` (16-bit scalars of a tile in the layout `stores` was
/// planned for) into `buffer` (16-bit elements, starting at a multiple of 16
/// bytes): instruction i writes each matrix row at the element index
/// `rowStart(i)` (index) gives, a multiple of 8, for the row that this lane
/// hands in (`stores.rowStarts` register i). Every thread of each warp must
/// reach the stores. Where `issued` is given, only the instructions it
/// accepts are issued (a part of the tile).
void storeTileWithMatrixStores(
    mlir::OpBuilder &builder, mlir::Location loc, mlir::Value buffer, const MatrixStores &stores,
    mlir::ValueRange registers,
    llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location, unsigned)> rowStart,
    llvm::function_ref<bool(unsigned)> issued = nullptr);

} // namespace tessera::gpu

#endif // TESSERA_LOWERING_GPU_DISTRIBUTE_MATRIXSTORES_H
