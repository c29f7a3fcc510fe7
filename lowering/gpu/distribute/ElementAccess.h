// Loads and stores of a tile's registers, one element each or, on NVIDIA and
// AMD, one vector per run of registers that holds a contiguous piece of a row
// (LinearLayout::contiguousRegisters). Where the contiguity analysis proves
// a run aligned and its mask constant over it, the run is one vector access
// under its mask (RunAccess::provedWhole()); elsewhere whether a run may be one
// vector is only known at run time (alignment, masks, bounds), so each run
// checks and falls back to element accesses: the ragged edge of a tile pays,
// its interior does not. Pointer loads/stores and tensor-descriptor blocks
// both go through here.
#ifndef TESSERA_LOWERING_GPU_DISTRIBUTE_ELEMENTACCESS_H
#define TESSERA_LOWERING_GPU_DISTRIBUTE_ELEMENTACCESS_H

#include "lowering/gpu/GpuTarget.h"
#include "lowering/gpu/LinearLayout.h"
#include "lowering/gpu/distribute/DistributedValues.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace tessera::gpu {

/// One register's element: its offset (index) into the base memref and the
/// i1 under which it is accessed (null: always).
struct ElementAccess {
  mlir::Value offset;
  mlir::Value condition;
};

/// Registers per vector access for a tile in `layout` of `element`s on
/// `target`: the layout's contiguous run, at most 128 bits; 1 on Vulkan
/// (SPIR-V storage buffers are arrays of scalars) and for elements that are
/// not 8 to 64-bit numbers. The caller must know that the addresses of a
/// row are consecutive (or check it in `vectorCondition` below).
unsigned vectorAccessWidth(const GpuTarget &target, const LinearLayout &layout,
                           mlir::Type element);
/// The same for `contiguous` consecutive elements (a power of two) in memory.
unsigned vectorAccessWidth(const GpuTarget &target, unsigned contiguous, mlir::Type element);

/// How the accesses of a run are known to address consecutive elements.
enum class RunAddresses {
  /// Proved at compile time: the element accesses of a run that cannot be
  /// one vector address from the run's first offset, so only one offset per
  /// run stays live (a GEMM's operand pointers would otherwise fill the
  /// register file).
  Consecutive,
  /// Only when `vectorCondition` holds at run time (a descriptor's innermost
  /// stride is 1): element accesses use their own offsets.
  WhenVectorConditionHolds,
  /// Only where the run's last offset is its first + width - 1 at run time
  /// (ContiguityAnalysis::ContiguousRuns::checkEndpoints), and
  /// `vectorCondition` holds. Consecutive from the run's second access to its
  /// last either way: element accesses address from the run's endpoints
  /// (accessInRun).
  WhenEndpointsAreConsecutive,
};

/// A tile's registers in memory, `width` registers per run (1: no vectors).
struct RunAccess {
  unsigned width = 1;
  RunAddresses addresses = RunAddresses::Consecutive;
  /// i1 that must hold for a run to be one vector access; null: true.
  mlir::Value vectorCondition;
  /// Proved at compile time: every run starts at an address that is a
  /// multiple of its bytes, and the accesses of a run share one condition
  /// (a mask constant over aligned groups, as `cols < n` with n a multiple of
  /// the width). Of runs WhenEndpointsAreConsecutive, the endpoints are then
  /// all a run checks at run time.
  bool provedAligned = false;
  /// NVIDIA, runs of global memory: each proved run under a condition is one
  /// `ld.global` or `st.global` predicated on it (inline PTX; a load's
  /// registers first hold the fill) rather than a branch around a vector
  /// access. After such a branch LLVM moves what reads the loaded values (an
  /// f16 to f32 extension) into it, and each thread then waits for one run's
  /// load before it issues the next: the loads of a row no longer overlap.
  /// Around stores, ptxas keeps the branches, each with a convergence
  /// barrier (BSSY/BSYNC) and its own reloads of kernel parameters: a third
  /// of the SASS of a 128x256 GEMM's epilogue. A run checked at run time
  /// loads its vector with inline PTX too: LLVM would split a vector load
  /// into element loads and merge them with the fallback's, leaving no
  /// vector at all.
  bool predicated = false;

  /// Each run is one vector access under its first access's condition, with
  /// no run-time check and no element fallback.
  bool provedWhole() const { return provedAligned && addresses == RunAddresses::Consecutive; }
};

/// i1: every non-null value of `conditions` holds (null when none is).
mlir::Value allOf(mlir::OpBuilder &builder, mlir::Location loc,
                  llvm::ArrayRef<mlir::Value> conditions);

/// i1: as far as its addresses go, the run of `width` accesses from `first`
/// may be one vector access: its first address (from `baseAddress`, the
/// base memref's aligned pointer as an index) is a multiple of the run's
/// bytes, `runs.vectorCondition` holds and, for WhenEndpointsAreConsecutive,
/// the endpoints of the run of `runs.width` holding it are consecutive. The
/// accesses' own conditions are not in it. Where `runs.provedAligned` the
/// alignment is not tested and `baseAddress` may be null.
mlir::Value runAddressesAllowVector(mlir::OpBuilder &builder, mlir::Location loc,
                                   mlir::Value baseAddress, int64_t elementBytes,
                                   llvm::ArrayRef<ElementAccess> accesses, unsigned first,
                                   unsigned width, const RunAccess &runs);

/// Access `i` of `accesses` (a tile's registers, in runs of `runs.width`),
/// its offset derived from its run's where the run's addresses allow, so that
/// only those stay live: from the run's first where they are Consecutive;
/// for WhenEndpointsAreConsecutive the first keeps its own and every later
/// access derives from the run's last, since the run is consecutive from its
/// second access on in any case (ContiguityAnalysis: a signed remainder's
/// group wraps at most once, right after its first value). Its own offset
/// for WhenVectorConditionHolds.
ElementAccess accessInRun(mlir::OpBuilder &builder, mlir::Location loc,
                          llvm::ArrayRef<ElementAccess> accesses, const RunAccess &runs,
                          unsigned i);

/// One scalar per access, read from `base` where its condition holds and
/// `otherwise(builder, i)` where it does not. Each run is one vector load
/// when it is aligned, every condition of the run holds and the run's
/// vectorCondition does.
Registers loadElements(mlir::OpBuilder &builder, mlir::Location loc, mlir::Value base,
                       mlir::Type element, llvm::ArrayRef<ElementAccess> accesses,
                       const RunAccess &runs,
                       llvm::function_ref<mlir::Value(mlir::OpBuilder &, unsigned)> otherwise);

/// Writes `values[i]` where access i's condition holds, skipping the
/// accesses `skip(i)` names (copies of other registers); runs as for
/// loadElements.
void storeElements(mlir::OpBuilder &builder, mlir::Location loc, mlir::Value base,
                   llvm::ArrayRef<ElementAccess> accesses, mlir::ValueRange values,
                   const RunAccess &runs, llvm::function_ref<bool(unsigned)> skip);

/// The columns of four rows of 4 bytes (`rows`, each a vector of 4 8-bit
/// elements): column j holds byte j of rows 0 to 3. Two rounds of
/// interleaving shuffles, each column two permutes of two words (prmt on
/// NVIDIA) where one gathered byte by byte takes three.
llvm::SmallVector<mlir::Value, 4> transposeByteRows(mlir::OpBuilder &builder, mlir::Location loc,
                                                    llvm::ArrayRef<mlir::Value> rows);

} // namespace tessera::gpu

#endif // TESSERA_LOWERING_GPU_DISTRIBUTE_ELEMENTACCESS_H
