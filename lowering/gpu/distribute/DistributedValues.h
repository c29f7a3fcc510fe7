// The per-thread form of tile values: which scalars a thread holds and at
// which tile coordinates, and how shape ops rename registers without moving
// data between threads.
#ifndef TESSERA_LOWERING_GPU_DISTRIBUTE_DISTRIBUTEDVALUES_H
#define TESSERA_LOWERING_GPU_DISTRIBUTE_DISTRIBUTEDVALUES_H

#include "lowering/gpu/LinearLayout.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <map>
#include <optional>
#include <utility>
#include <vector>

namespace tessera::gpu {

/// A tile value in the distributed form: this thread's scalars, one per
/// register of the tile's layout, in register order. A scalar is a list of one.
using Registers = llvm::SmallVector<mlir::Value, 4>;

/// The i32 constant `value`.
mlir::Value i32Constant(mlir::OpBuilder &builder, mlir::Location loc, int64_t value);

/// Facts about the executing thread. The thread id, lane and warp are
/// emitted at the entry of the kernel; so is, once per layout, the part of
/// the coordinates that lane and warp contribute, so that every use anywhere
/// in the kernel (loops included) is dominated by it.
class ThreadContext {
public:
  /// Emits the thread facts at the start of `entry`. With `broadcastWarp`
  /// the warp index is read from the warp's lane 0 (a shuffle): the same
  /// value, but one ptxas then knows to be the same in every lane, so that
  /// it and what is computed from it alone (the shared-memory addresses in
  /// wgmma's descriptors) live in uniform registers instead of each thread's
  /// (docs/gpu-tensor-cores.md has what it saves, and why sm_80 goes without).
  ThreadContext(mlir::Block &entry, mlir::Location loc, unsigned warpSize, unsigned numWarps,
                bool broadcastWarp);

  unsigned warpSize() const { return warpSize_; }
  unsigned numWarps() const { return numWarps_; }
  /// i32 values: thread id in the program, lane in the warp, warp index.
  mlir::Value threadId() const { return threadId_; }
  mlir::Value lane() const { return lane_; }
  mlir::Value warp() const { return warp_; }

  /// The i32 coordinate along `dim` of register `reg` of `layout`.
  mlir::Value coordinate(mlir::OpBuilder &builder, mlir::Location loc, const LinearLayout &layout,
                         unsigned reg, unsigned dim);
  /// The row-major element index (i32) of register `reg` of `layout`, in
  /// rows (innermost dimension) followed by `rowPadding` unused elements.
  mlir::Value flatIndex(mlir::OpBuilder &builder, mlir::Location loc, const LinearLayout &layout,
                        unsigned reg, int64_t rowPadding = 0);
  /// An i1 that is true in the one thread of each group of threads holding
  /// copies of the same elements (the thread whose lane and warp bits on zero
  /// bases are 0), or null when no two threads share elements.
  mlir::Value ownsElements(const LinearLayout &layout);
  /// i1: this is thread 0 of the program.
  mlir::Value isFirstThread();

  /// A builder that inserts at the end of the kernel's prologue.
  mlir::OpBuilder &prologue() { return prologue_; }

private:
  struct ThreadPart {
    /// Per dimension, the XOR of the lane and warp contributions, or null
    /// when none moves along that dimension.
    llvm::SmallVector<mlir::Value> coordinates;
    mlir::Value owner;
    bool ownerComputed = false;
  };
  ThreadPart &threadPart(const LinearLayout &layout);
  mlir::Value bitOf(mlir::Value index, unsigned bit);

  unsigned warpSize_, numWarps_;
  mlir::Location loc_;
  mlir::OpBuilder prologue_;
  mlir::Value threadId_, lane_, warp_, firstThread_;
  std::map<std::vector<int64_t>, ThreadPart> parts_;
};

/// Where register `reg` of operand `operand` of a shape op is found.
struct RegisterSource {
  unsigned operand = 0;
  unsigned reg = 0;
  bool operator==(const RegisterSource &) const = default;
};

/// Maps the coordinates of an element of a shape op's result to the operand
/// that holds it and its coordinates there.
using CoordinateMap = llvm::function_ref<std::pair<unsigned, Basis>(const Basis &)>;

/// For a result in layout `result` made from operands in layouts `operands`
/// by `map`: the operand register every result register copies, or nullopt
/// when some thread would need an element that another thread holds (the
/// layouts do not allow a renaming). `map` must be affine over GF(2) on each
/// operand's part (as expand_dims, reshape, trans, broadcast, join, split and
/// cat are on power-of-two shapes): then checking register 0 of every thread
/// and every single lane and warp bit is checking every thread.
std::optional<llvm::SmallVector<RegisterSource>>
registerRenaming(const LinearLayout &result, llvm::ArrayRef<LinearLayout> operands,
                 CoordinateMap map);

/// Row-major index of `coords` in a tile of `shape`.
int64_t rowMajorIndex(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<int64_t> coords);
/// The coordinates of row-major index `index` in a tile of `shape`.
Basis rowMajorCoordinates(llvm::ArrayRef<int64_t> shape, int64_t index);

} // namespace tessera::gpu

#endif // TESSERA_LOWERING_GPU_DISTRIBUTE_DISTRIBUTEDVALUES_H
