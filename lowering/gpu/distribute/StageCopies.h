// How a software-pipelined loop's loads go into the stages of their rings
// and come back out (SoftwarePipeline.cpp, WarpSpecializedLoop.cpp): a staged
// block copied as its dot reads it, with cp.async runs where they are
// allowed; a load read back copied into per-thread slots and read into
// registers again in its iteration. Private to lowering/gpu/distribute.
#ifndef TESSERA_LOWERING_GPU_DISTRIBUTE_STAGECOPIES_H
#define TESSERA_LOWERING_GPU_DISTRIBUTE_STAGECOPIES_H

#include "lowering/gpu/distribute/DotPlan.h"
#include "lowering/gpu/distribute/KernelLowering.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

namespace tessera::gpu::pipelining {

/// DotPlan::sharedRunPlaces of a ring's operand by run width, found once
/// for all the stages' copies.
using RunPlaces = llvm::SmallDenseMap<unsigned, llvm::SmallVector<SharedRunPlace>, 1>;

/// Alignment in bytes of a read-back ring: its 16-byte chunks.
constexpr int64_t kReadBackAlignment = 16;

/// Where a load read back keeps its registers in a stage. Each thread's
/// distinct registers (one with a bit of a zero basis set repeats the one
/// without it) are its slots, squeezed together; the slots go chunk after
/// chunk of 16 bytes (or all of them where they are fewer), the chunk of every
/// thread in turn, so that a warp's copies and reads of one chunk are
/// consecutive 16-byte pieces. A run of registers along the last dimension
/// (bits of non-zero bases) stays a run of slots.
class ReadBackPlacement {
public:
  ReadBackPlacement(const LinearLayout &layout, mlir::Type element, unsigned threads);
  unsigned slots() const { return slots_; }
  unsigned chunk() const { return chunk_; }
  int64_t stageElements() const { return int64_t(slots_) * threads_; }
  /// The slot of register `reg`: its bits of distinct bases, squeezed.
  unsigned slotOf(unsigned reg) const;
  /// This thread's first element of every chunk, before the chunk's offset.
  mlir::Value threadChunk(KernelLowering &k, mlir::OpBuilder &builder, mlir::Location loc) const;
  /// The stage index of `slot` of the thread whose threadChunk is given.
  mlir::Value index(mlir::OpBuilder &builder, mlir::Location loc, mlir::Value start,
                    mlir::Value threadChunk, unsigned slot) const;

private:
  unsigned threads_;
  llvm::SmallVector<bool> distinctBits_;
  unsigned slots_ = 1, chunk_ = 1;
};

/// Copies one staged load's elements into its stage: one cp.async per run
/// where `async` and the run allows, else loads and shared stores.
void copyToStage(KernelLowering &k, mlir::OpBuilder &builder, mlir::Location loc,
                 const LoadAccesses &load, const DotPlan &plan, DotOperand slot,
                 const OperandSource &source, const SharedOperand &stage, bool async,
                 RunPlaces &runPlaces);

/// Copies a load read back into registers into its stage, each distinct
/// register at its slot: cp.async where `async` and its runs allow, else
/// loads and shared stores.
void copyToReadBackStage(KernelLowering &k, mlir::OpBuilder &builder, mlir::Location loc,
                         const LoadAccesses &load, const LinearLayout &layout,
                         const SharedOperand &stage, unsigned threads, bool async);

/// The registers of a load read back from its stage: each slot once, a chunk
/// at a time where the target has vector accesses.
Registers readBackFromStage(KernelLowering &k, mlir::OpBuilder &builder, mlir::Location loc,
                            const LinearLayout &layout, mlir::Type element,
                            const SharedOperand &stage, unsigned threads);

} // namespace tessera::gpu::pipelining

#endif // TESSERA_LOWERING_GPU_DISTRIBUTE_STAGECOPIES_H
