// Workgroup (shared) memory of one kernel: allocation and moving tiles in
// and out of row-major buffers.
//
// Every user of shared memory in the distribution (layout conversions,
// reductions across warps, dots, scans, atomics whose results are shared)
// allocates its buffers, uses them and ends with a barrier after its last
// access (endUser), so the space of one user is free for the next: the
// allocator hands out space per user, not per kernel. That barrier is marked:
// tile-gpu-elide-barriers removes it where nothing after it touches the bytes
// read or written before it, as when a small user is placed after the one
// before it (beginUserWith). The exception are reservations: the
// stage buffers of a software-pipelined loop are written in one iteration and
// read in a later one, so they stay live, below every user's space, until the
// loop releases them.
#ifndef TESSERA_LOWERING_GPU_DISTRIBUTE_SHAREDMEMORY_H
#define TESSERA_LOWERING_GPU_DISTRIBUTE_SHAREDMEMORY_H

#include "lowering/gpu/GpuTarget.h"
#include "lowering/gpu/distribute/DistributedValues.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Support/LLVM.h"

namespace tessera::gpu {

/// The bytes one element of `type` takes in memory (an i1 takes one).
int64_t storageBytes(mlir::Type type);

class SharedMemory {
public:
  /// On NVIDIA, buffers are views of `gpu.dynamic_shared_memory` at aligned
  /// byte offsets (so a kernel may use more than the 48 KiB of static shared
  /// memory); elsewhere they are typed workgroup attributions of `func`.
  SharedMemory(mlir::gpu::GPUFuncOp func, const GpuTarget &target, ThreadContext &thread);

  /// Starts a new user: the buffers of earlier users are dead. It takes its
  /// space from the reservations on.
  void beginUser() { startUser(0); }
  /// A buffer a user asks for: `elements` values of `elementType` (a memory
  /// type), at kMinAlignment.
  struct BufferRequest {
    mlir::Type elementType;
    int64_t elements;
  };
  /// Starts a new user that takes `buffers`, and allocates them. Knowing all
  /// its bytes, the user shares none with the user before it where that costs
  /// little: on NVIDIA it starts where that user ended if it then ends within
  /// the kernel's shared memory so far or kStaggeredBytes past the
  /// reservations; elsewhere it takes none of that user's attributions while
  /// the kernel's stay within kStaggeredBytes with its own.
  mlir::FailureOr<llvm::SmallVector<mlir::Value>>
  beginUserWith(mlir::Operation *user, llvm::ArrayRef<BufferRequest> buffers);
  /// Ends a user: a barrier after its last access, marked
  /// kBarrierEndsSharedMemoryUser.
  void endUser(mlir::OpBuilder &builder, mlir::Location loc);
  /// A 1-D workgroup buffer of `elements` values of `elementType` (a memory
  /// type: see sharedElementType) starting at a multiple of `alignment`
  /// bytes. Fails with an error at `user` when the kernel would need more
  /// shared memory than the target has.
  mlir::FailureOr<mlir::Value> allocate(mlir::Operation *user, mlir::Type elementType,
                                        int64_t elements, int64_t alignment = kMinAlignment);
  /// Whether `allocate` with these arguments would succeed now.
  bool canAllocate(mlir::Type elementType, int64_t elements,
                   int64_t alignment = kMinAlignment) const;
  /// Whether it would succeed as the first allocation of a new user
  /// (NVIDIA's dynamic shared memory).
  bool fitsNewUser(mlir::Type elementType, int64_t elements, int64_t alignment) const;

  /// What is reserved at one point; `release` frees what was reserved since.
  struct Mark {
    int64_t reservedBytes = 0;
    size_t reservedAttributions = 0;
    int64_t peakBytes = 0;
  };
  Mark mark() const { return {reservedBytes_, reserved_.size(), peakBytes_}; }
  /// A buffer as `allocate` gives, which stays live across the users that
  /// follow until `release`. Call between users: it starts a new user.
  mlir::FailureOr<mlir::Value> reserve(mlir::Operation *user, mlir::Type elementType,
                                       int64_t elements, int64_t alignment = kMinAlignment);
  /// Frees the reservations made since `mark` (the caller's last access to
  /// them is behind a barrier) and starts a new user.
  void release(Mark mark);
  /// Takes back the reservations of dynamic shared memory made since `mark`,
  /// which nothing accesses: a launch need not provide their bytes.
  void cancel(Mark mark);

  /// Every buffer starts at a multiple of this many bytes, enough for the
  /// 128-bit vector accesses of the distribution and the tensor-core emitters.
  static constexpr int64_t kMinAlignment = 16;
  /// Elements of `elementType` (a memory type) to pad each row of a layout
  /// conversion's buffer for a tile of `shape` with, allocated next: on
  /// NVIDIA 16 bytes for tiles of more than one row, where the padded buffer
  /// fits; else 0. A tensor-core accumulator's threads write 4-byte pairs in
  /// 8 rows at once; in rows of a multiple of 128 bytes those fall into 4 of
  /// the 32 banks, an 8-way conflict on every store, and 16 more bytes per
  /// row spread them over all 32. Rows stay aligned for 16-byte vector reads.
  /// (Workgroup attributions elsewhere are not shared between sizes, so
  /// padding would add to every kernel's total.)
  int64_t conversionRowPadding(llvm::ArrayRef<int64_t> shape, mlir::Type elementType) const;

  /// Bytes of dynamic shared memory a launch must provide (0 when buffers are
  /// workgroup attributions).
  int64_t dynamicBytes() const { return usesDynamicMemory() ? peakBytes_ : 0; }

private:
  /// How far past the reservations consecutive small users may be placed
  /// one after the other rather than all at the reservations.
  static constexpr int64_t kStaggeredBytes = 1024;
  bool usesDynamicMemory() const { return target_.vendor == GpuVendor::Nvidia; }
  /// beginUser for a user of `bytes` in all, placed as beginUserWith says (0:
  /// unknown, from the reservations on).
  void startUser(int64_t bytes);
  /// Whether `bytes` more, placed at the first multiple of `alignment` after
  /// `usedBytes` of dynamic shared memory, stay within the target's.
  bool fitsAfter(int64_t usedBytes, int64_t alignment, int64_t bytes) const;

  struct Attribution {
    mlir::MemRefType type;
    mlir::Value buffer;
    bool inUse = false;
    bool reserved = false;
    bool usedByPreviousUser = false;
  };
  /// An unused attribution (not on NVIDIA; with avoidPreviousUser_, not
  /// the previous user's) that can hold `type` at `alignment`: of its
  /// element type, at least as long, aligned to a multiple; the shortest
  /// such. A user indexes only its own elements, so
  /// the epilogue of a pipelined loop reuses the loop's stage buffers once
  /// they are released, as NVIDIA's offsets do.
  std::optional<size_t> freeAttribution(mlir::MemRefType type, int64_t alignment) const;
  mlir::FailureOr<mlir::Value> place(mlir::Operation *user, mlir::Type elementType,
                                     int64_t elements, int64_t alignment, bool reserve);

  mlir::gpu::GPUFuncOp func_;
  const GpuTarget &target_;
  ThreadContext &thread_;
  mlir::Value dynamicBase_;
  int64_t reservedBytes_ = 0, userBytes_ = 0, peakBytes_ = 0, attributionBytes_ = 0;
  /// Whether the user being placed takes no attribution of the one before.
  bool avoidPreviousUser_ = false;
  llvm::SmallVector<Attribution> attributions_;
  /// Indices into attributions_ of the reserved ones, in reservation order.
  llvm::SmallVector<size_t> reserved_;
};

/// The type a register of type `type` is kept as in memory: i1 as i8, index
/// (pointer offsets) as i64.
mlir::Type sharedElementType(mlir::Type type);

/// Stores this thread's registers of a tile in `layout` at their row-major
/// indices of `buffer` (rows followed by `rowPadding` unused elements).
/// Registers that copy another register are skipped, and with `ownersOnly`
/// so are threads that hold copies of another thread's elements (else copies
/// store the same value twice). `predicates`, when not empty, guards each
/// register's store. (Scalar stores: LLVM pairs 16-bit
/// neighbours itself, and NVPTX then converts both halves of a pair from f32
/// in one cvt.rn.bf16x2.f32, which a vector store would split.)
void storeTileToShared(ThreadContext &thread, mlir::OpBuilder &builder, mlir::Location loc,
                       mlir::Value buffer, const LinearLayout &layout, mlir::ValueRange registers,
                       bool ownersOnly, mlir::ValueRange predicates = {},
                       int64_t rowPadding = 0);
/// Loads the registers of a tile in `layout` from their row-major indices
/// (rows followed by `rowPadding` unused elements), `width` registers
/// (vectorAccessWidth of the memory type) per vector load.
Registers loadTileFromShared(ThreadContext &thread, mlir::OpBuilder &builder, mlir::Location loc,
                             mlir::Value buffer, const LinearLayout &layout, mlir::Type registerType,
                             unsigned width = 1, int64_t rowPadding = 0);
/// The `index` of each register of a tile in `layout` in a row-major buffer
/// (rows followed by `rowPadding` unused elements). Register 0's
/// (ThreadContext::flatIndex) is emitted where this is made. Where no
/// register basis moves along a coordinate bit that a lane or warp basis
/// moves along, a coordinate's thread and register parts XOR as a sum, and
/// every other register's index is register 0's plus a constant, added in 64
/// bits so that LLVM folds it into the access's immediate offset; elsewhere
/// each index is computed in full.
class RegisterIndices {
public:
  RegisterIndices(ThreadContext &thread, mlir::OpBuilder &builder, mlir::Location loc,
                  const LinearLayout &layout, int64_t rowPadding);
  mlir::Value operator()(mlir::OpBuilder &builder, mlir::Location loc, unsigned reg) const;

private:
  ThreadContext &thread_;
  const LinearLayout &layout_;
  int64_t rowPadding_;
  /// The shape with the padding in its rows: row-major indices over it are
  /// the buffer's.
  llvm::SmallVector<int64_t, 4> paddedShape_;
  bool registerOffsetsAdd_;
  mlir::Value first_;
};
/// One register to or from its memory type.
mlir::Value toSharedElement(mlir::OpBuilder &builder, mlir::Location loc, mlir::Value value);
mlir::Value fromSharedElement(mlir::OpBuilder &builder, mlir::Location loc, mlir::Value stored,
                              mlir::Type registerType);
/// A memref index from an i32.
mlir::Value toIndex(mlir::OpBuilder &builder, mlir::Location loc, mlir::Value i32);
/// The `index` constant `value`.
mlir::Value indexConstant(mlir::OpBuilder &builder, mlir::Location loc, int64_t value);

} // namespace tessera::gpu

#endif // TESSERA_LOWERING_GPU_DISTRIBUTE_SHAREDMEMORY_H
