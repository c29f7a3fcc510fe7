// Contiguity of pointer tiles: proves that the addresses of a tile of
// pointers increase by exactly one element along the last dimension, so that
// each row can be read or written with vector accesses instead of a gather or
// scatter. Shared by the backends: the CPU picks masked row loads with it, the
// GPUs the number of contiguous elements each thread holds.
#ifndef TESSERA_IR_ANALYSIS_CONTIGUITY_H
#define TESSERA_IR_ANALYSIS_CONTIGUITY_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <cstdint>
#include <optional>
#include <tuple>

namespace tessera::tile {

class HintOp;

/// What the analysis knows about a tile carried around an scf.for loop.
enum class LoopCarriedStrides {
  /// Nothing: an iteration argument has an unknown stride.
  Unknown,
  /// An iteration argument has its initial value's stride when the value it
  /// yields provably has that stride again, assuming the argument does
  /// (induction over the iterations): pointers advanced by a splat offset
  /// every iteration stay contiguous.
  Inductive,
};

/// Walks the expression that computes a tile (through addptr, splat,
/// broadcast, expand_dims, trans, make_range, arith.addi/subi/muli/extsi/
/// extui/trunci and constants) and finds the constant difference between
/// neighbouring elements along its last dimension (or another one), counted
/// in elements of the pointee for pointers. Scalars and splats have stride 0;
/// a dimension of size 1 has stride 0. Integer arguments marked
/// `tile.equal_to_1` count as the constant 1.
///
/// Where no stride holds for a whole row, `contiguousElements` looks for
/// pieces, as Triton's axis analysis does: a tile whose last dimension splits
/// into aligned groups of G elements that each hold consecutive values, with
/// the first of each group divisible by D and every value non-negative, keeps
/// groups of min(G, D, d) consecutive values through `% n` for an n divisible
/// by d (`tile.divisibility` on integer arguments, powers of two in constants).
/// That is what keeps `(pid * BN + arange(0, BN)) % N` vectorizable. Where
/// the dividend of a signed `%` may be negative, a group may wrap at 0 (the
/// remainder takes the dividend's sign); since every group is then either
/// wholly non-negative or wholly negative and wraps at most once, the group
/// is consecutive exactly when its last value is its first plus its length
/// minus 1, which the access checks at run time (`checkEndpoints`). The one
/// multiple of n a group may hold is its first value, so it wraps, if at all,
/// right after it: from its second value on the group is consecutive.
/// `tile.assume(pid_n >= 0)` (tl.assume) makes such a dividend non-negative
/// and the check unnecessary.
class ContiguityAnalysis {
public:
  explicit ContiguityAnalysis(LoopCarriedStrides loops = LoopCarriedStrides::Unknown)
      : loops(loops) {}

  /// The stride along the last dimension, or nullopt when it is unknown.
  std::optional<int64_t> lastDimStride(mlir::Value value);
  /// The same along dimension `dim` (through tile.trans, expand_dims, ...).
  std::optional<int64_t> strideAlong(mlir::Value value, unsigned dim);
  /// The value of an integer scalar or splat known at compile time.
  std::optional<int64_t> constantValue(mlir::Value value);
  /// True when `ptrTile` is a tile of pointers whose rows are contiguous.
  bool isContiguous(mlir::Value ptrTile);
  /// Aligned groups of a row of a pointer tile with consecutive addresses.
  struct ContiguousRuns {
    /// The group size: the whole row where isContiguous, else what the
    /// piecewise facts prove (a power of two); 1 when nothing is known.
    int64_t elements = 1;
    /// The groups are consecutive only where a group's last address is its
    /// first + elements - 1, to be checked where the access is made.
    bool checkEndpoints = false;
  };
  ContiguousRuns contiguousRuns(mlir::Value ptrTile);

  /// What is known of a value along its last dimension, in aligned groups.
  struct Pieces {
    /// Groups of `run` elements hold consecutive values.
    int64_t run = 1;
    /// Groups of `constancy` elements hold equal values.
    int64_t constancy = 1;
    /// The first value of every group (either kind) is a multiple of this.
    int64_t divisibility = 1;
    bool nonNegative = false;
    /// The runs hold only where their endpoints are consecutive (a signed
    /// `%` of a dividend not proved non-negative).
    bool checkEndpoints = false;
  };
  Pieces piecesOf(mlir::Value value);
  /// The same along dimension `dim` (through tile.trans, expand_dims, ...).
  Pieces piecesAlong(mlir::Value value, unsigned dim);

  /// A power of two that divides the byte address of the first element of
  /// every aligned group of `run` elements along the last dimension of
  /// `pointer` (a pointer tile or scalar of `elementBytes`-byte elements):
  /// from the `tile.divisibility` of the kernel argument it points into
  /// (bytes) and the divisibility of the offsets added to it; in the
  /// Inductive mode also for pointers carried around an scf.for loop (what
  /// holds for the initial value and is kept by every iteration's step, as a
  /// GEMM's `a_ptrs += BLOCK_K * stride_ak`). 1 where nothing is known.
  int64_t runStartAlignment(mlir::Value pointer, int64_t run, int64_t elementBytes);

private:
  std::optional<int64_t> strideOf(mlir::Value value, unsigned dim);
  Pieces cachedPieces(mlir::Value value, unsigned dim);
  Pieces computePieces(mlir::Value value, unsigned dim);
  /// Divisibility and sign of an integer scalar: what its computation
  /// proves, or a tile.assume promises.
  Pieces scalarPieces(mlir::Value value);
  Pieces provenScalarPieces(mlir::Value value);
  /// `pieces` (what is proved of a tile.hint's operand) with the hint's
  /// promises where they say more (a scalar's hint has only multiple_of).
  Pieces withPromises(Pieces pieces, HintOp hint);
  /// Constancy of a comparison: `x < n` with x consecutive in aligned groups
  /// and n a multiple of the group size is constant over each group.
  Pieces comparisonPieces(mlir::arith::CmpIOp compare, unsigned dim);
  /// Whether a tile.assume in the block defining `value` promises `value >= c`
  /// (c >= 0) or `value > c` (c >= -1), either way round.
  bool assumedNonNegative(mlir::Value value);
  std::optional<int64_t> compute(mlir::Value value, unsigned dim);
  std::optional<int64_t> loopCarriedStride(mlir::Value value, unsigned dim);
  /// runStartAlignment for groups along dimension `dim`.
  int64_t alignmentAlong(mlir::Value pointer, int64_t run, int64_t elementBytes, unsigned dim);
  int64_t loopCarriedAlignment(mlir::scf::ForOp loop, mlir::BlockArgument arg, int64_t run,
                               int64_t elementBytes, unsigned dim);

  LoopCarriedStrides loops;
  using ValueDim = std::pair<mlir::Value, unsigned>;
  llvm::DenseMap<ValueDim, std::optional<int64_t>> cache;
  llvm::DenseMap<ValueDim, Pieces> piecesCache;
  /// Iteration arguments whose inductive assumption failed: unknown from then on.
  llvm::DenseSet<ValueDim> refuted;
  llvm::DenseSet<ValueDim> refutedPieces;
  /// The divisibility a loop-carried tile's assumption was weakened to.
  llvm::DenseMap<ValueDim, int64_t> weakenedDivisibility;
  /// The pieces queries under way (their cache entries say "unknown" until
  /// they finish).
  llvm::DenseSet<ValueDim> inProgress;
  /// Run-start alignments assumed of loop-carried pointers (pointer, dim,
  /// run) while their loop's step is checked: a query for groups of another
  /// size is another claim and must not read the hypothesis.
  using AlignmentQuery = std::tuple<mlir::Value, unsigned, int64_t>;
  llvm::DenseMap<AlignmentQuery, int64_t> alignmentHypotheses;
  /// Set when an assumption failed during the current query: every stride
  /// (or pieces) cached since may rest on it, so the query starts over.
  bool assumptionFailed = false;
};

} // namespace tessera::tile

#endif // TESSERA_IR_ANALYSIS_CONTIGUITY_H
