// The state of distributing one kernel over the threads of a program, shared
// by the lowerings of the individual ops (one file per group of ops).
//
// The kernel is walked in order and every value is mapped to its registers
// (Registers: one scalar per register of its layout, one for a scalar). A
// pointer value is mapped to per-register element offsets (index) into one
// kernel argument, its base, which must be known statically.
#ifndef TESSERA_LOWERING_GPU_DISTRIBUTE_KERNELLOWERING_H
#define TESSERA_LOWERING_GPU_DISTRIBUTE_KERNELLOWERING_H

#include "ir/TileDialect.h"
#include "ir/analysis/Contiguity.h"
#include "lowering/gpu/GpuTarget.h"
#include "lowering/gpu/KernelBinary.h"
#include "lowering/gpu/distribute/DistributedValues.h"
#include "lowering/gpu/distribute/ElementAccess.h"
#include "lowering/gpu/distribute/Pipeline.h"
#include "lowering/gpu/distribute/SharedMemory.h"
#include "lowering/gpu/ir/TileGpuDialect.h"
#include "lowering/gpu/tensorcore/TensorCore.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"

namespace tessera::gpu {

/// A tensor descriptor of the kernel: where its block accesses go.
struct TensorDescriptor {
  mlir::Value base;       // the kernel argument (memref)
  mlir::Value baseOffset; // element offset of the descriptor's base (index)
  llvm::SmallVector<mlir::Value> shape;   // i32
  llvm::SmallVector<mlir::Value> strides; // i64, in elements
  tile::PaddingOption padding = tile::PaddingOption::Zero;
  /// Proved at compile time: the innermost stride is 1, and the first
  /// element of every row (all coordinates but the last) sits at a byte
  /// address that is a multiple of `rowAlignment`.
  bool unitInnerStride = false;
  int64_t rowAlignment = 1;
  /// Proved: the shape's last extent is a multiple of this.
  int64_t lastExtentDivisibility = 1;
  /// Where the descriptor is made of kernel arguments and constants alone
  /// (a base argument; extents and outer strides that are i32 or i64
  /// arguments or constants; inner stride 1), as a host descriptor is: what
  /// a launch needs to encode a TMA tensor map of it.
  struct HostArguments {
    unsigned base = 0;
    llvm::SmallVector<TensorMapValue, 2> shape, outerStrides;
  };
  std::optional<HostArguments> hostArguments;
};

/// A warp-specialized loop's producer is a whole warpgroup, as setmaxnreg
/// moves registers between warpgroups (and ptxas sizes registers for whole
/// warpgroups anyway); one of its warps issues the copies
/// (WarpSpecializedLoop.cpp).
constexpr unsigned kProducerWarps = 4;

class KernelLowering {
public:
  KernelLowering(const GpuTarget &target, unsigned numWarps, unsigned numStages,
                 bool tensorMaps, bool warpSpecialize, mlir::gpu::GPUFuncOp kernel,
                 ThreadContext &thread, SharedMemory &shared)
      : target(target), numWarps(numWarps), numStages(numStages), tensorMaps(tensorMaps),
        warpSpecialize(warpSpecialize && tensorMaps), kernel(kernel), thread(thread),
        shared(shared) {}

  const GpuTarget &target;
  unsigned numWarps;
  /// Stages of the software-pipelined loops over K (1: not pipelined).
  unsigned numStages;
  /// Whether pipelined loops copy descriptor blocks with TMA (TensorMaps.h):
  /// asked for, and the target has wgmma, whose operand panels TMA fills.
  bool tensorMaps;
  /// Whether a pipelined loop whose blocks TMA copies may get a producer
  /// warpgroup of its own (WarpSpecializedLoop.cpp): asked for, with
  /// tensorMaps.
  bool warpSpecialize;
  /// Which loads that reach a dot through other ops pipelined loops read
  /// back from stages of shared memory (SoftwarePipeline.cpp).
  ReadBackLoads readBackLoads = ReadBackLoads::WithCpAsync;
  /// The branch in which the producer warps (numWarps and up) run their
  /// loop and exit, once a loop has been warp-specialized: everything after
  /// it runs in the numWarps consumer warps alone, and the program has
  /// kProducerWarps warps more than the layouts' numWarps.
  mlir::Operation *producerBranch = nullptr;
  /// The gpu.func being built; tensor-map parameters are appended to it.
  mlir::gpu::GPUFuncOp kernel;
  ThreadContext &thread;
  SharedMemory &shared;
  /// Which pointer tiles of the kernel have contiguous rows (vector accesses).
  tile::ContiguityAnalysis contiguity{tile::LoopCarriedStrides::Inductive};
  /// What each dot planned so far runs on (planDot): the instruction's name,
  /// or kFmaDot.
  llvm::MapVector<mlir::Operation *, std::string> dotInstructions;
  /// How each loop the software pipeliner took up was lowered
  /// (PipelinedLoop::report), or why it was not pipelined.
  llvm::MapVector<mlir::Operation *, std::string> loopPipelines;
  /// The buffers software-pipelined loops reserved for the TMA stores of
  /// their bodies (reserveTensorStoreBuffers), with the panels each store
  /// copies at a time.
  struct ReservedStoreBuffer {
    mlir::Value buffer;
    int64_t piecePanels = 0;
  };
  llvm::DenseMap<mlir::Operation *, ReservedStoreBuffer> reservedStoreBuffers;
  /// The bulk groups each TMA store lowered so far commits (one a piece).
  llvm::DenseMap<mlir::Operation *, int64_t> tensorStoreGroups;

  /// The registers of an already lowered value (a copy: the map grows while
  /// ops are lowered).
  Registers registers(mlir::Value value) const;
  /// Records the registers of `value`; for a pointer value also its base.
  void map(mlir::Value value, Registers registers, mlir::Value pointerBase = {});
  /// The kernel argument a pointer value points into.
  mlir::Value pointerBase(mlir::Value pointer) const { return pointerBases_.lookup(pointer); }

  /// Dot operands that a software-pipelined loop has put into shared memory
  /// for the current iteration: their loads are not lowered, and the dot
  /// reads them from there.
  void stage(mlir::Value operand, SharedOperand where) { staged_[operand] = where; }
  void unstage(mlir::Value operand) { staged_.erase(operand); }
  std::optional<SharedOperand> staged(mlir::Value operand) const {
    auto found = staged_.find(operand);
    return found == staged_.end() ? std::nullopt : std::optional(found->second);
  }

  /// Dots of a software-pipelined loop that may leave their instructions
  /// running into the next iteration (TensorCoreDot::emitOverlapped); the
  /// loop waits for them after its last iteration. `whileRunning` (may be
  /// empty) is the loop's work to lower between the dot's issue and its wait.
  void overlap(mlir::Operation *dot, WhileDotRuns whileRunning) {
    overlapped_[dot] = std::move(whileRunning);
  }
  void endOverlap(mlir::Operation *dot) { overlapped_.erase(dot); }
  /// The `whileRunning` of an overlapped dot; null for any other dot.
  const WhileDotRuns *overlapped(mlir::Operation *dot) const {
    auto found = overlapped_.find(dot);
    return found == overlapped_.end() ? nullptr : &found->second;
  }

  /// What the map holds for some values (or that it holds nothing), so that
  /// ops lowered a second time, for another loop iteration, can be undone.
  struct SavedMapping {
    struct Entry {
      mlir::Value value;
      std::optional<Registers> registers;
      mlir::Value pointerBase;
      std::optional<TensorDescriptor> descriptor;
    };
    llvm::SmallVector<Entry, 2> entries;
  };
  SavedMapping save(llvm::ArrayRef<mlir::Value> values) const;
  void restore(const SavedMapping &saved);

  void mapDescriptor(mlir::Value descriptor, TensorDescriptor lowered) {
    descriptors_[descriptor] = std::move(lowered);
  }
  const TensorDescriptor *descriptor(mlir::Value descriptor) const;

  /// The layout of a tile type; an error at `user` when it has none or does
  /// not match the program (one lane basis per lane bit, one warp basis per
  /// warp bit).
  mlir::FailureOr<LinearLayout> layout(mlir::Operation *user, mlir::Type tileType);
  mlir::FailureOr<LinearLayout> layout(mlir::Operation *user, mlir::Value tile) {
    return layout(user, tile.getType());
  }
  /// Who writes the elements of a store or atomic through `pointer`.
  struct Writers {
    /// The pointer tile's layout; none for a scalar pointer.
    std::optional<LinearLayout> layout;
    /// i1, true in the one thread holding the first copy of each element
    /// (thread 0 for a scalar); null when no two threads share elements.
    mlir::Value owner;
  };
  mlir::FailureOr<Writers> writersOf(mlir::Operation *user, mlir::Value pointer);
  /// How many registers a value of `type` has (1 for a scalar).
  mlir::FailureOr<unsigned> numRegisters(mlir::Operation *user, mlir::Type type);
  /// The type of one register of a value of `type`: its element type, and
  /// `index` (an element offset) for pointers.
  static mlir::Type registerType(mlir::Type type);

  /// The registers of `values`, one after the other (control flow carries
  /// tiles this way).
  llvm::SmallVector<mlir::Value> flatRegisters(mlir::ValueRange values) const;
  /// The register types of values of `types`, in order; an error at `op`
  /// for types that cannot be carried (tensor descriptors).
  mlir::FailureOr<llvm::SmallVector<mlir::Type>> flatTypes(mlir::Operation *op,
                                                           mlir::TypeRange types);
  /// Maps each of `originals` to its slice of `flat`, with pointer bases.
  void mapFlat(mlir::ValueRange originals, mlir::ValueRange flat,
               llvm::ArrayRef<mlir::Value> bases);
  /// The pointer base of each of `values` (null for non-pointers).
  llvm::SmallVector<mlir::Value> pointerBases(mlir::ValueRange values) const;

  /// Lowers the ops of `block` except its terminator at `builder`'s point.
  mlir::LogicalResult lowerBlock(mlir::Block &block, mlir::OpBuilder &builder);
  /// Lowers one op (the dispatcher, DistributeToThreads.cpp).
  mlir::LogicalResult lowerOp(mlir::Operation *op, mlir::OpBuilder &builder);
  /// Inlines the combine region of a reduce or scan: `lhs` and `rhs` hold one
  /// scalar per operand; returns the combined scalars.
  mlir::FailureOr<llvm::SmallVector<mlir::Value>> combine(mlir::OpBuilder &builder,
                                                          mlir::Region &region,
                                                          mlir::ValueRange lhs,
                                                          mlir::ValueRange rhs);

  /// "'tile.x' <what> is not supported on GPU targets yet (target T)".
  mlir::InFlightDiagnostic unsupported(mlir::Operation *op, const llvm::Twine &what);

private:
  llvm::DenseMap<mlir::Value, Registers> registers_;
  llvm::DenseMap<mlir::Value, mlir::Value> pointerBases_;
  llvm::DenseMap<mlir::Value, TensorDescriptor> descriptors_;
  llvm::DenseMap<mlir::Value, SharedOperand> staged_;
  llvm::DenseMap<mlir::Operation *, WhileDotRuns> overlapped_;
};

bool isPointerLike(mlir::Type type);

/// A tile.load or tile.descriptor_load as element accesses: which element of
/// `base` each register reads under which condition, how runs of registers
/// may be read as vectors, and what a register holds where its condition
/// fails.
struct LoadAccesses {
  mlir::Value base;
  mlir::Type element;
  llvm::SmallVector<ElementAccess> accesses;
  RunAccess runs;
  /// One value per register, or one for every register.
  Registers fill;
  /// A block of a zero-padded descriptor whose innermost stride is 1: the
  /// elements of a run (a piece of a block row) that lie inside the shape
  /// are a prefix of it whenever its first column is a multiple of its
  /// width, so a copy can take them and zero-fill the rest, with no check of
  /// each element (BlockRows); none for other loads.
  struct BlockRows {
    const TensorDescriptor *desc = nullptr;
    LinearLayout layout;
    llvm::SmallVector<mlir::Value> offsets; // i32, the block's first element
    /// Proved: the block's first column is at a byte address that is a
    /// multiple of this (with a run's first column a multiple of its
    /// width, so is the run's, up to the run's bytes).
    int64_t startAlignment = 1;
  };
  std::optional<BlockRows> rows;

  mlir::Value fillOf(unsigned reg) const { return fill.size() == 1 ? fill.front() : fill[reg]; }
};
mlir::FailureOr<LoadAccesses> loadAccessesOf(KernelLowering &k, mlir::Operation *load,
                                             mlir::OpBuilder &builder);
/// The run of `width` registers from `first` of a descriptor block of
/// `rows`: how many of its leading elements lie inside the descriptor's shape
/// (index): all, none, or those before the shape's last column; and an i1
/// that holds where those are all it has inside (its first column is at
/// least 0 or at most -width, as it is when a multiple of `width`). With
/// `aligned` (the run's first column is a multiple of `width`) and a last
/// extent that is one too, the run is wholly in or out: all or none.
std::pair<mlir::Value, mlir::Value>
leadingElementsInBounds(KernelLowering &k, mlir::OpBuilder &builder, mlir::Location loc,
                        const LoadAccesses::BlockRows &rows, unsigned first, unsigned width,
                        bool aligned);
mlir::FailureOr<LoadAccesses> descriptorLoadAccesses(KernelLowering &k, tile::DescriptorLoadOp op,
                                                     mlir::OpBuilder &builder);

// The op lowerings. Each maps the op's results and reports errors on the op.
mlir::LogicalResult lowerShapeOp(KernelLowering &k, mlir::Operation *op, mlir::OpBuilder &builder);
mlir::LogicalResult lowerConvertLayout(KernelLowering &k, ConvertLayoutOp op,
                                       mlir::OpBuilder &builder);
mlir::LogicalResult lowerPointerOp(KernelLowering &k, mlir::Operation *op, mlir::OpBuilder &builder);
mlir::LogicalResult lowerAtomic(KernelLowering &k, mlir::Operation *op, mlir::OpBuilder &builder);
mlir::LogicalResult lowerDescriptorOp(KernelLowering &k, mlir::Operation *op,
                                      mlir::OpBuilder &builder);
mlir::LogicalResult lowerControlFlow(KernelLowering &k, mlir::Operation *op,
                                     mlir::OpBuilder &builder);
/// Lowers an scf.for as a software-pipelined loop (SoftwarePipeline.cpp)
/// when k.numStages > 1 and some load in its body feeds a dot; true when it
/// did, false (nothing emitted) when the loop is not pipelined.
mlir::FailureOr<bool> lowerPipelinedFor(KernelLowering &k, mlir::scf::ForOp op,
                                        mlir::OpBuilder &builder);
mlir::LogicalResult lowerReduce(KernelLowering &k, tile::ReduceOp op, mlir::OpBuilder &builder);
mlir::LogicalResult lowerScan(KernelLowering &k, tile::ScanOp op, mlir::OpBuilder &builder);
mlir::LogicalResult lowerGather(KernelLowering &k, tile::GatherOp op, mlir::OpBuilder &builder);
mlir::LogicalResult lowerHistogram(KernelLowering &k, tile::HistogramOp op,
                                   mlir::OpBuilder &builder);
mlir::LogicalResult lowerDot(KernelLowering &k, tile::DotOp op, mlir::OpBuilder &builder);
mlir::LogicalResult lowerDebugOp(KernelLowering &k, mlir::Operation *op, mlir::OpBuilder &builder);
mlir::LogicalResult lowerInlineAsm(KernelLowering &k, tile::InlineAsmElementwiseOp op,
                                   mlir::OpBuilder &builder);
/// Declares the device-library function `call` calls in the kernel's
/// gpu.module; an error on the call where the target does not link its
/// library (LowerExternCalls.cpp).
mlir::LogicalResult declareDeviceFunction(KernelLowering &k, tile::ExternElementwiseOp call,
                                          mlir::OpBuilder &builder);
/// One register of `call`: a call of its declared function on `operands`.
mlir::Value callDeviceFunction(tile::ExternElementwiseOp call, mlir::OpBuilder &builder,
                               mlir::ValueRange operands);

/// The target tile-gpu-assign-layouts gave `kernel` (tgpu.target); an
/// error at the kernel where it has none or it does not parse.
mlir::FailureOr<GpuTarget> kernelTarget(tile::FuncOp kernel);

/// Moves a tile between two layouts through a shared buffer (store, barrier,
/// load, barrier). With `ownersOnly`, only the first copy of each element is
/// stored (needed when copies may differ, as the results of atomics do).
mlir::FailureOr<Registers> exchangeThroughShared(KernelLowering &k, mlir::Operation *user,
                                                 mlir::OpBuilder &builder, mlir::ValueRange regs,
                                                 const LinearLayout &from, const LinearLayout &to,
                                                 mlir::Type registerType, bool ownersOnly);
/// The least shared memory (bytes) lowering `op` needs, as a loop budgets
/// it beside its stages: 0 for a renaming, else the smallest pieces
/// exchangeThroughShared moves it in with every thread storing and loading
/// (split along register bits; splits that make threads take turns are its
/// last resort, not a budget).
mlir::FailureOr<int64_t> leastConversionBytes(KernelLowering &k, ConvertLayoutOp op);

} // namespace tessera::gpu

#endif // TESSERA_LOWERING_GPU_DISTRIBUTE_KERNELLOWERING_H
