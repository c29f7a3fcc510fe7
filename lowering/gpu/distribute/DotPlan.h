// How one tile.dot is computed: by the target's matrix instruction
// (lowering/gpu/tensorcore) or by the FMA loop, and where each operand sits
// in shared memory for it. The dot lowering and the software pipeliner, which
// fills the operands' shared memory ahead of the dot, both ask here, so they
// agree on the placement.
#ifndef TESSERA_LOWERING_GPU_DISTRIBUTE_DOTPLAN_H
#define TESSERA_LOWERING_GPU_DISTRIBUTE_DOTPLAN_H

#include "lowering/gpu/distribute/KernelLowering.h"
#include "lowering/gpu/tensorcore/TensorCore.h"

#include <memory>

namespace tessera::gpu {

/// How a thread's registers cover a dot operand: in the operand's own
/// layout, or in the layout of its transpose (a tile loaded as [N, K] that
/// reaches B through tile.trans).
struct OperandSource {
  LinearLayout layout;
  bool transposed = false;
};

/// How a thread's registers of an operand's source fall into runs that sit
/// at consecutive indices of the operand's buffer, each stored with one
/// vector store: `width` registers `stride` apart. Runs along the source's
/// rows (columns of its registers) have stride 1; runs across rows (an 8-bit
/// B loaded as rows of N into a K-major placement: each thread holds a few
/// consecutive rows) have the register distance between two rows.
struct SharedRuns {
  unsigned width = 1;
  unsigned stride = 1;

  /// The register that holds element 0 of run `run`.
  unsigned firstRegister(unsigned run) const {
    return run / stride * stride * width + run % stride;
  }
  /// The run that register `reg` belongs to.
  unsigned runOf(unsigned reg) const { return reg / (stride * width) * stride + reg % stride; }
};

/// Where a run of an operand's source lies in its buffer: run `baseRun`'s
/// index plus `delta` elements, in every thread.
struct SharedRunPlace {
  unsigned baseRun;
  int64_t delta;
};

struct DotPlan {
  /// The matrix instruction; null for the FMA path, which keeps each operand
  /// row-major ([B,] M, K and [B,] K, N).
  std::unique_ptr<TensorCoreDot> instruction;
  /// Tensor-core path: per batch, the accumulator registers in the
  /// instruction's register order.
  llvm::SmallVector<llvm::SmallVector<unsigned>> accRegisters;
  LinearLayout aLayout, bLayout, accLayout;
  llvm::SmallVector<int64_t, 3> aShape, bShape;
  mlir::Type aElement, bElement;
  /// Whether shared memory takes vector stores (not on Vulkan, whose
  /// workgroup arrays are arrays of scalars).
  bool vectorStores = true;

  mlir::Type element(DotOperand operand) const {
    return operand == DotOperand::A ? aElement : bElement;
  }
  const LinearLayout &layout(DotOperand operand) const {
    return operand == DotOperand::A ? aLayout : bLayout;
  }
  /// Whether A's registers are in the instruction's register form for A
  /// (attention's P in the first dot's accumulator layout), so that it can
  /// take them without a buffer; one batch only.
  bool aInRegisterForm() const;
  /// Elements of the operand's shared buffer.
  int64_t sharedElements(DotOperand operand) const;
  /// Bytes the operand's buffer must be aligned to.
  int64_t sharedAlignment() const;
  /// Index of operand element (row, col) (`index` values) in its buffer.
  mlir::Value sharedIndex(mlir::OpBuilder &builder, mlir::Location loc, DotOperand operand,
                          mlir::Value row, mlir::Value col) const;
  /// The operand's registers as the dot receives them.
  OperandSource source(DotOperand operand) const { return {layout(operand), false}; }
  /// Registers of `source` that one vector store (or cp.async) puts into the
  /// operand's buffer: a run of the source's row that the placement keeps
  /// contiguous (columns, or rows of the operand for a transposed source),
  /// else a run across the source's rows that it keeps contiguous (SharedRuns).
  SharedRuns sharedRuns(DotOperand operand, const OperandSource &source) const;
  /// `start` + the index of register `reg` of `source` in the operand's buffer.
  mlir::Value sharedIndexOf(KernelLowering &k, mlir::OpBuilder &builder, mlir::Location loc,
                            DotOperand operand, const OperandSource &source, unsigned reg,
                            mlir::Value start) const;
  /// For each of the `runs` of `source`, the earliest run whose index in
  /// the operand's buffer is at a distance from its own that is the same in
  /// every thread (e.g. rows a whole swizzle period apart), and that
  /// distance; a run with no such earlier run is its own base, at distance 0.
  llvm::SmallVector<SharedRunPlace> sharedRunPlaces(mlir::MLIRContext *context,
                                                    DotOperand operand,
                                                    const OperandSource &source,
                                                    SharedRuns runs) const;
};

/// The indices of a source's runs in an operand's buffer, where each base
/// run's (DotPlan::sharedRunPlaces) is computed once and every other run is
/// its base's plus a constant: the runs of a thread then share a few address
/// registers (ptxas folds the constants into the instructions' offsets).
class SharedRunIndices {
public:
  /// `places`: plan.sharedRunPlaces(..., operand, source, runs).
  SharedRunIndices(KernelLowering &k, const DotPlan &plan, DotOperand operand,
                   const OperandSource &source, SharedRuns runs, mlir::Value start,
                   llvm::ArrayRef<SharedRunPlace> places)
      : k(k), plan(plan), operand(operand), source(source), runs(runs), start(start),
        places(places) {}

  /// `start` + the index of the run whose element 0 is register `reg`.
  mlir::Value at(mlir::OpBuilder &builder, mlir::Location loc, unsigned reg);

private:
  KernelLowering &k;
  const DotPlan &plan;
  DotOperand operand;
  const OperandSource &source;
  SharedRuns runs;
  mlir::Value start;
  llvm::ArrayRef<SharedRunPlace> places;
  llvm::SmallDenseMap<unsigned, mlir::Value> baseIndices;
};

/// The plan for `op`; errors (a tile without a layout) are reported on `op`.
mlir::FailureOr<DotPlan> planDot(KernelLowering &k, tile::DotOp op);

/// Stores this thread's registers of an operand (laid out as `source`) at
/// their places in `shared`, one vector store per run (`sharedRuns`); copies
/// of other registers are skipped, and so are the registers of other batches
/// than `batch` of a batched operand.
void storeOperandToShared(KernelLowering &k, mlir::OpBuilder &builder, mlir::Location loc,
                          const DotPlan &plan, DotOperand operand, const OperandSource &source,
                          mlir::ValueRange registers, const SharedOperand &shared,
                          int64_t batch = 0);

/// Stores this thread's registers of an operand of an unbatched dot into
/// `shared` where the dot reads it: the matrix instruction's placement, or
/// the FMA path's row-major buffer.
void storeUnbatchedOperand(KernelLowering &k, mlir::OpBuilder &builder, mlir::Location loc,
                           const DotPlan &plan, DotOperand operand, mlir::ValueRange registers,
                           const SharedOperand &shared);

} // namespace tessera::gpu

#endif // TESSERA_LOWERING_GPU_DISTRIBUTE_DOTPLAN_H
