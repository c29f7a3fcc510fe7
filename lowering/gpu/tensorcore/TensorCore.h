// Matrix instructions behind `tile.dot` on GPUs: mma.sync (+ ldmatrix) on
// NVIDIA sm_80+, wgmma on sm_90a, MFMA on CDNA (gfx90a, gfx942), WMMA on
// RDNA3 (gfx1100), cooperative matrices on Vulkan.
//
// The contract with the distribution pass (lowering/gpu/distribute):
//  1. `selectTensorCoreDot` picks an instruction for one dot, or nullptr when
//     the target, shape or types have none (the pass then uses its FMA path).
//  2. The pass gives the result (and accumulator) tile the layout
//     `accumulatorLayout()`.
//  3. The pass allocates two 1-D workgroup buffers of `sharedElements(A|B)`
//     elements of the operand type and stores every element (row, col) of
//     operand A ([M, K]) and B ([K, N]) at index `sharedIndex(...)`, which may
//     swizzle against bank conflicts. Then it emits a workgroup barrier,
//     after a proxy fence where the instruction `readsThroughAsyncProxy()`,
//     and hands both operands over `ready` (SharedOperand).
//  4. `emit` reads the operands from the buffers and returns the new
//     accumulator: one scalar per register of `accumulatorLayout()`, in
//     register order, given the old one in the same form. An instruction
//     whose accumulator cannot stay in registers across it (cooperative
//     matrices) also gets a workgroup buffer of
//     `accumulatorScratchElements()` accumulator elements. An operand may
//     start anywhere in its buffer (SharedOperand::start): a software-
//     pipelined loop keeps one stage of every operand per loop iteration in
//     flight in one ring of stages. An asynchronous instruction (wgmma) can
//     also leave the dot itself running (emitOverlapped), so that the loop's
//     next copies are issued while it runs.
// Batched dots ([B, M, K]) are split by the pass into one call per batch.
#ifndef TESSERA_LOWERING_GPU_TENSORCORE_TENSORCORE_H
#define TESSERA_LOWERING_GPU_TENSORCORE_TENSORCORE_H

#include "ir/TileDialect.h"
#include "lowering/gpu/GpuTarget.h"
#include "lowering/gpu/LinearLayout.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <functional>
#include <memory>
#include <optional>

namespace tessera::gpu {

/// One dot: [M, K] x [K, N] + [M, N] with these element types.
struct DotProblem {
  int64_t m = 0, n = 0, k = 0;
  mlir::Type aElement, bElement, accElement;
  tile::InputPrecision precision = tile::InputPrecision::TF32;
  /// Whether B reaches the dot as tile.trans of a [N, K] tile: memory then
  /// holds B's columns contiguous, and an instruction that can read B either
  /// way keeps it K-major in shared memory (else N-major, as B [K, N] sits).
  bool bTransposed = false;
  /// Whether another dot of the same block feeds this one or is fed by it
  /// (attention's two GEMMs, with a softmax over rows between them): each
  /// row of the result then stays within one warp, so that the reductions
  /// along rows exchange nothing between warps.
  bool chained = false;
  /// fp8 products that may be added at reduced precision before the sum is
  /// promoted to the accumulator's (tile.dot's max_num_imprecise_acc); 0: no
  /// bound.
  int64_t maxImpreciseAcc = 0;
};

/// The problem `op` poses (its last two dimensions: batches are split).
DotProblem dotProblemOf(tile::DotOp op);

enum class DotOperand { A, B };

/// Where an operand sits in shared memory: a 1-D workgroup memref and the
/// index (an `index` value, a multiple of 16 bytes) of its first element;
/// element (row, col) is at `start + sharedIndex(row, col)`.
struct SharedOperand {
  mlir::Value buffer;
  mlir::Value start;
  /// Whether the stores that filled it are already ordered before the dot
  /// for every thread and, where the instruction reads through the async
  /// proxy, fenced for it (a pipelined loop's stage): emit then adds no
  /// fence or barrier of its own.
  bool ready = false;
};

/// An operand buffer made of panels a tensor memory accelerator (TMA) copy
/// can fill: `lines` lines, each `swizzleBytes` long, per panel; panel j holds
/// elements [j * swizzleBytes / elementBytes, (j + 1) * ...) of every line, at
/// byte j * lines * swizzleBytes, its 16-byte chunks permuted as TMA's
/// swizzle mode of that width permutes them.
struct SwizzledPanels {
  int64_t lines = 0, panels = 0, swizzleBytes = 0, elementBytes = 0;
  /// Whether the lines are the operand's rows (their elements its columns);
  /// else its columns.
  bool linesAreRows = true;
  int64_t panelElements() const { return swizzleBytes / elementBytes; }
  int64_t panelBytes() const { return lines * swizzleBytes; }
};

/// Work lowered while an asynchronous dot runs (a pipelined loop's copies).
using WhileDotRuns = std::function<mlir::LogicalResult(mlir::OpBuilder &)>;

class TensorCoreDot {
public:
  virtual ~TensorCoreDot();

  /// "mma.sync.m16n8k16.bf16", "mfma.32x32x8.f16", "wmma.16x16x16.f16": shown
  /// in diagnostics and checked by tests.
  virtual llvm::StringRef name() const = 0;
  /// The layout of the [M, N] accumulator and result.
  virtual LinearLayout accumulatorLayout() const = 0;
  /// Elements of the operand's shared buffer (at least rows * cols).
  virtual int64_t sharedElements(DotOperand operand) const = 0;
  /// Bytes both buffers must be aligned to (where `start` points).
  virtual int64_t sharedAlignment() const { return 16; }
  /// How many consecutive columns of an operand row, starting at any
  /// multiple of the count, sit at consecutive indices of its shared buffer:
  /// the pass stores such a run with one vector store. 1 where the placement
  /// transposes the operand.
  virtual int64_t contiguousColumns(DotOperand operand) const = 0;
  /// The same along a column: how many consecutive rows, starting at any
  /// multiple of the count, sit at consecutive indices (a transposed
  /// placement). A load of the operand's transpose copies such runs whole.
  virtual int64_t contiguousRows(DotOperand operand) const = 0;
  /// Index of element (row, col) of the operand in its shared buffer; row and
  /// col are `index` values.
  virtual mlir::Value sharedIndex(mlir::OpBuilder &builder, mlir::Location loc, DotOperand operand,
                                  mlir::Value row, mlir::Value col) const = 0;
  /// The operand's buffer as TMA-fillable panels, where it is one (wgmma).
  virtual std::optional<SwizzledPanels> swizzledPanels(DotOperand) const { return std::nullopt; }
  /// Elements of the accumulator's type that emit needs in a workgroup
  /// buffer of its own, at index 0 (0: none).
  virtual int64_t accumulatorScratchElements() const { return 0; }
  /// Emits the matrix instructions. `lane` and `warp` are i32 values (lane in
  /// warp, warp in program); `a`/`b` say where the operands are; `acc` holds
  /// accumulatorLayout().numRegisters() scalars of the accumulator type;
  /// `accumulatorScratch` is the buffer accumulatorScratchElements() asks for
  /// (null when it asks for none). Returns as many scalars, the new
  /// accumulator.
  virtual llvm::SmallVector<mlir::Value> emit(mlir::OpBuilder &builder, mlir::Location loc,
                                              mlir::Value lane, mlir::Value warp,
                                              const SharedOperand &a, const SharedOperand &b,
                                              mlir::ValueRange acc,
                                              mlir::Value accumulatorScratch) const = 0;

  /// The layout in which the instruction can take A from registers rather
  /// than shared memory (16-bit A of mma.sync and of wgmma's register form:
  /// that of an accumulator over [M, K], which a dot's result converted
  /// keeps, attention's P); none where it reads A from shared memory only.
  virtual std::optional<LinearLayout> registerALayout() const { return std::nullopt; }
  /// As emit, with A as this thread's registers in registerALayout().
  virtual llvm::SmallVector<mlir::Value>
  emitWithRegisterA(mlir::OpBuilder &builder, mlir::Location loc, mlir::Value lane,
                    mlir::Value warp, mlir::ValueRange a, const SharedOperand &b,
                    mlir::ValueRange acc) const {
    llvm_unreachable("the instruction takes A from shared memory only");
  }

  /// Whether the instructions run on after they are issued (wgmma), so that
  /// a software-pipelined loop can issue the next iteration's copies while
  /// one dot runs.
  virtual bool isAsynchronous() const { return false; }
  /// As emit, but an asynchronous dot returns while this dot may still run
  /// (every earlier one has finished). Until emitWaitForAll, its result
  /// registers may only be the `acc` of the next issue of the same dot.
  /// `whileRunning` (if any) is lowered after this dot is issued and before
  /// it waits for the one before it.
  virtual mlir::FailureOr<llvm::SmallVector<mlir::Value>>
  emitOverlapped(mlir::OpBuilder &builder, mlir::Location loc, mlir::Value lane, mlir::Value warp,
                 const SharedOperand &a, const SharedOperand &b, mlir::ValueRange acc,
                 mlir::Value accumulatorScratch, const WhileDotRuns &whileRunning) const {
    llvm::SmallVector<mlir::Value> result =
        emit(builder, loc, lane, warp, a, b, acc, accumulatorScratch);
    if (whileRunning && mlir::failed(whileRunning(builder)))
      return mlir::failure();
    return result;
  }
  /// Whether the instructions read shared memory through the async proxy
  /// (wgmma): ordinary stores into the operand buffers must then be ordered
  /// before them with emitAsyncProxyFence.
  virtual bool readsThroughAsyncProxy() const { return false; }
  /// Waits for every dot emitOverlapped left running; `acc` is the last
  /// one's result (empty when nothing reads it) and the values returned
  /// replace it, so that its readers follow the wait.
  virtual llvm::SmallVector<mlir::Value> emitWaitForAll(mlir::OpBuilder &builder,
                                                        mlir::Location loc,
                                                        mlir::ValueRange acc) const {
    return llvm::SmallVector<mlir::Value>(acc);
  }
  /// After emitWaitForAll on one path of a branch (a persistent GEMM's
  /// epilogue), the accumulator the next issue starts from on that path:
  /// `fresh`, passed through where the compiler cannot merge it with the
  /// other path's running registers into a select, which would cost a select
  /// per register in every iteration (and for wgmma read the registers
  /// before their wait).
  virtual llvm::SmallVector<mlir::Value> emitRestart(mlir::OpBuilder &builder,
                                                     mlir::Location loc,
                                                     mlir::ValueRange fresh) const {
    return llvm::SmallVector<mlir::Value>(fresh);
  }
};

/// How warps cover a grid of tilesM x tilesN instruction tiles: a
/// warpsM x warpsN grid of warps, each owning a contiguous block of tiles.
struct WarpGrid {
  int64_t warpsM = 1, warpsN = 1;
};
/// Doubles the warps along whichever dimension leaves each the larger share,
/// so blocks stay square-ish (fewest operand reads per instruction); stops
/// when every warp holds one tile, so a grid may use fewer warps than given.
/// With `rowsWithinWarps` (DotProblem::chained) the warps go along M while M
/// has tiles for them, and only the rest along N.
WarpGrid chooseWarpGrid(int64_t tilesM, int64_t tilesN, unsigned numWarps,
                        bool rowsWithinWarps = false);

/// Builds an index from the coordinates (row, col) (`index` values).
using IndexOf = llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location, mlir::Value,
                                               mlir::Value)>;
/// The index `indexOf` builds from the constant coordinates (row, col), as
/// a shared-memory placement (sharedIndex) at compile time: its ops folded
/// bottom-up in a scratch block (the emitters build with plain create, which
/// folds nothing); nullopt where it does not fold.
std::optional<int64_t> foldedIndex(mlir::MLIRContext *context, IndexOf indexOf, int64_t row,
                                   int64_t col);

/// fence.proxy.async (shared::cta): orders this thread's ordinary stores to
/// shared memory before reads through the async proxy.
void emitAsyncProxyFence(mlir::OpBuilder &builder, mlir::Location loc);

/// The matrix instruction for `problem` on `target` with `numWarps` warps, or
/// nullptr when there is none (wrong types, shape below the instruction's
/// tile, no matrix unit on the target).
std::unique_ptr<TensorCoreDot> selectTensorCoreDot(const GpuTarget &target,
                                                   const DotProblem &problem, unsigned numWarps);

} // namespace tessera::gpu

#endif // TESSERA_LOWERING_GPU_TENSORCORE_TENSORCORE_H
