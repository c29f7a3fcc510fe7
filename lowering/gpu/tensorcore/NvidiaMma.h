// `tile.dot` on NVIDIA tensor cores with mma.sync (sm_80 and later): operand
// fragments come from shared memory through ldmatrix, the accumulator stays in
// registers.
//
// Instructions (PTX ISA, "Warp-level matrix multiply-accumulate"):
//   f16 x f16 -> f32 | f16   m16n8k16
//   bf16 x bf16 -> f32       m16n8k16
//   f32 x f32 -> f32         m16n8k8 .tf32, only for input_precision = tf32
//                            (ieee and tf32x3 keep the exact FMA path)
//   i8 x i8 -> i32           m16n8k32 .s8, wrapping (two's complement) sums
// Every instruction reads 32 bytes of K per row of A and per column of B.
//
// Warp tiling: the warps form a warpsM x warpsN grid, as many along M as the
// 16-row instruction tiles allow (warp w is at row w / warpsN, column
// w % warpsN); each warp owns a contiguous (M / warpsM) x (N / warpsN) block of
// tilesM x tilesN m16n8 instruction tiles. Accumulator register r of a lane is
// element r % 4 of the C fragment of instruction tile t = r / 4, with
// t = tn + tilesN * tm; the C fragment of m16n8 gives lane l (group g = l / 4,
// thread-in-group q = l % 4) elements (g, 2q), (g, 2q + 1), (g + 8, 2q),
// (g + 8, 2q + 1).
//
// Shared memory: both operands are stored in rows of 16-byte chunks whose chunk
// index is XORed with a phase taken from the row (see SwizzledMatrix), so the
// eight row addresses of one ldmatrix 8x8 matrix hit eight different bank
// groups. A is row-major [M, K]. B is [K, N] row-major for 16-bit types and
// read with ldmatrix.trans; ldmatrix transposes 16-bit elements only, so for
// tf32 and i8 B is stored transposed, [N, K] (K contiguous), and read like A.
// The buffers must be 16-byte aligned (ldmatrix reads whole chunks).
#ifndef TESSERA_LOWERING_GPU_TENSORCORE_NVIDIAMMA_H
#define TESSERA_LOWERING_GPU_TENSORCORE_NVIDIAMMA_H

#include "lowering/gpu/tensorcore/TensorCore.h"

#include "mlir/IR/BuiltinTypes.h"

#include <optional>

namespace tessera::gpu {

/// NVVM's enumerator for an fp8 element type, in either enumeration that
/// names them: NVVM::MMATypes (mma.sync) or NVVM::WGMMATypes (wgmma).
template <class NvvmTypes> std::optional<NvvmTypes> float8NvvmType(mlir::Type element) {
  if (mlir::isa<mlir::Float8E4M3FNType>(element))
    return NvvmTypes::e4m3;
  if (mlir::isa<mlir::Float8E5M2Type>(element))
    return NvvmTypes::e5m2;
  return std::nullopt;
}

/// The C/D fragment of one m16n8 tile in one warp, in a layout of shape
/// [m, n] (PTX ISA, "Matrix Fragments for mma.m16n8k16"): registers c0/c1
/// are adjacent columns and c2/c3 eight rows down; lane 4g + q holds row g,
/// columns 2q and 2q + 1. mma.sync and wgmma append the bases that repeat it
/// over their tiles and warps.
LinearLayout m16n8AccumulatorFragment(int64_t m, int64_t n);

/// Appends step, 2 * step, ... below count * step: the bases that repeat a
/// pattern `count` (a power of two) times, `step` apart.
void appendRepeats(llvm::SmallVector<Basis> &bases, int64_t count, const Basis &step);

/// A 16-bit A of [m, k] in registers as mma.sync and wgmma take it: the
/// m16n8k16 A fragment (a0a1 row g, a2a3 row g + 8, a4..a7 the same eight
/// columns on) is the m16n8 accumulator fragment of two neighbouring n8
/// blocks, so the layout is that of an accumulator over [m, k], repeated
/// `tilesM` times `tileRows` apart; the caller adds the warps. Register
/// tm * k / 2 + 8 s + i is element i of k16 step s's fragment of tile tm.
LinearLayout sixteenBitRegisterALayout(int64_t m, int64_t k, int64_t tilesM, int64_t tileRows);

/// The four 32-bit fragment registers of k16 step `step`, tile row `tm`, of
/// `a` (registers of sixteenBitRegisterALayout over K = `k`): pairs of halves
/// as vector<2xf16> where `f16Pairs` and the elements are f16 (mma.sync's f16
/// operands), else as i32.
llvm::SmallVector<mlir::Value, 4> registerAFragment(mlir::OpBuilder &builder, mlir::Location loc,
                                                    mlir::ValueRange a, int64_t k, int64_t step,
                                                    int64_t tm, bool f16Pairs);

/// A matrix stored row by row in shared memory in 16-byte chunks, with the
/// chunk index of row r XORed with (r / rowsPerPhase) % phases. A bank line
/// (32 banks of 4 bytes) holds eight chunks: rows shorter than that share a
/// line (rowsPerPhase = 8 / chunksPerRow) and the phase moves every line, so any
/// eight consecutive rows read at one chunk column touch eight distinct chunk
/// positions of the bank line.
struct SwizzledMatrix {
  int64_t rows = 0, cols = 0;
  int64_t chunkElements = 0, rowsPerPhase = 1, phases = 1;

  static SwizzledMatrix get(int64_t rows, int64_t cols, unsigned elementBytes);
  /// Rows after which the swizzle repeats: row r + periodRows() holds its
  /// chunks where row r does, periodRows() * cols elements on.
  int64_t periodRows() const { return rowsPerPhase * phases; }
  /// Index of the first element of chunk `chunk` of row `row` (index values).
  mlir::Value chunkStart(mlir::OpBuilder &builder, mlir::Location loc, mlir::Value row,
                         mlir::Value chunk) const;
  /// Index of element (row, col).
  mlir::Value index(mlir::OpBuilder &builder, mlir::Location loc, mlir::Value row,
                    mlir::Value col) const;
};

/// The instruction and the warp grid chosen for one dot.
struct MmaSyncPlan {
  /// "mma.sync.m16n8k16.bf16": TensorCoreDot::name().
  std::string name;
  int64_t instructionK = 0;
  int64_t warpsM = 1, warpsN = 1;
  int64_t tilesM = 1, tilesN = 1;
  /// B is stored [N, K] in shared memory (tf32, i8, and B given as the
  /// transpose of an [N, K] tile) rather than [K, N].
  bool bKContiguous = false;
};

/// The plan for `problem` with `numWarps` warps, or std::nullopt when the
/// target has no mma.sync, the types have no instruction (fp32 with ieee or
/// tf32x3 precision, f64, fp8), a dimension is not a power of two that
/// gives every warp at least one instruction tile, or A and B together do not
/// fit in the target's shared memory.
std::optional<MmaSyncPlan> planMmaSync(const GpuTarget &target, const DotProblem &problem,
                                       unsigned numWarps);

/// The TensorCoreDot for planMmaSync's plan, or nullptr when there is none.
std::unique_ptr<TensorCoreDot> selectMmaSyncDot(const GpuTarget &target,
                                                const DotProblem &problem, unsigned numWarps);

} // namespace tessera::gpu

#endif // TESSERA_LOWERING_GPU_TENSORCORE_NVIDIAMMA_H
