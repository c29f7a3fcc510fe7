// Copies of tensor-descriptor blocks by the tensor memory accelerator (TMA,
// sm_90a) into the stages of a software-pipelined loop.
//
// A descriptor made of kernel arguments and constants alone, as a host
// descriptor is (TensorDescriptor::HostArguments), gets a tensor-map
// parameter, appended to the kernel: a 128-byte CUtensorMap that the launch
// encodes from the descriptor's arguments (cuTensorMapEncodeTiled) and
// passes by value. Its box is one
// panel of the stage (SwizzledPanels): `swizzleBytes` of the innermost
// dimension by the panel's lines, written with TMA's swizzle of that width,
// which is the permutation wgmma reads. One lane of warp 0 issues a stage's
// copies, one `cp.async.bulk.tensor` per panel, after announcing their bytes
// on the stage's mbarrier; every thread waits on that mbarrier's phase before
// the dot reads the stage. TMA fills what lies outside the shape with zeros
// (NaN for padding_option "nan"), as the element-wise lowering does.
//
// The kernel lists the recipes of its tensor maps in the attribute
// `tessera.tensor_maps` (kTensorMapsAttrName): base, shape and outer-stride
// argument numbers or constants, element type, box (innermost first),
// swizzle bytes and padding. tessera-nvvm-tensor-map-params makes those parameters by-value
// grid constants; compileForNvidia records the recipes in
// KernelBinary::tensorMaps.
#ifndef TESSERA_LOWERING_GPU_DISTRIBUTE_TENSORMAPS_H
#define TESSERA_LOWERING_GPU_DISTRIBUTE_TENSORMAPS_H

#include "lowering/gpu/DistributedFormAttrs.h"
#include "lowering/gpu/distribute/DotPlan.h"
#include "lowering/gpu/distribute/KernelLowering.h"

#include <optional>

namespace tessera::gpu {

/// One staged descriptor load copied by TMA.
struct TensorCopy {
  tile::DescriptorLoadOp load;
  /// The tensor-map parameter (!llvm.ptr).
  mlir::Value map;
  SwizzledPanels panels;
  /// Bytes one stage receives: the whole box of every panel, also where it
  /// reaches outside the shape (TMA fills and counts those bytes too).
  int64_t bytes() const { return panels.panels * panels.panelBytes(); }
};

/// The TMA copy of staged load `load` (through a transpose where
/// `transposed`), operand `slot` of `plan`; nullopt where TMA cannot fill
/// the operand's buffer: without k.tensorMaps, a descriptor not made of
/// arguments and constants or not proved 16-byte aligned, a buffer that is
/// not 32/64/128-byte panels, or a block whose contiguous dimension is not
/// the panels' lines'.
std::optional<TensorCopy> tensorCopyFor(KernelLowering &k, mlir::Operation *load,
                                        bool transposed, const DotPlan &plan, DotOperand slot);

/// i32: 1 in the threads of warp 0, whose elected lane issues the copies.
mlir::Value copyingWarp(KernelLowering &k, mlir::OpBuilder &builder, mlir::Location loc);

/// Issues `copy` of the block at `offsets` (i32, outermost first) into the
/// stage at `stage`, completing on the mbarrier at `barrier` (a shared
/// address, i32), from one lane (`elect.sync`) of the warp where
/// `copyingWarp` holds, after expectBytes. Every thread runs it, convergent:
/// predicated rather than branched on, the copy keeps its operands in
/// uniform registers, as ptxas issues a TMA copy once per warp.
void issueTensorCopy(mlir::OpBuilder &builder, mlir::Location loc, const TensorCopy &copy,
                     mlir::ValueRange offsets, const SharedOperand &stage, mlir::Value barrier,
                     mlir::Value copyingWarp);

/// One mbarrier per stage of a pipelined loop, in shared memory reserved for
/// the loop.
class StageBarriers {
public:
  static mlir::FailureOr<StageBarriers> reserve(KernelLowering &k, mlir::Operation *user,
                                                unsigned stages);
  /// Thread 0 initializes each for one arrival, fences the initialization
  /// for the async proxy and prefetches the descriptors of `tensorMaps` (so
  /// that the first copies need not fetch them); every thread fences its
  /// earlier shared-memory stores for the async proxy; then a barrier: no
  /// thread waits on an mbarrier, nor a copy overwrites a store, before.
  void initialize(KernelLowering &k, mlir::OpBuilder &builder, mlir::Location loc,
                  mlir::ValueRange tensorMaps) const;
  /// The shared address (i32) of stage `stage`'s mbarrier.
  mlir::Value address(mlir::OpBuilder &builder, mlir::Location loc, mlir::Value stage) const;
  /// Arrives at `barrier` from the lane issueTensorCopy elects, expecting
  /// `bytes` from the copies that follow.
  static void expectBytes(mlir::OpBuilder &builder, mlir::Location loc, mlir::Value barrier,
                          int64_t bytes, mlir::Value copyingWarp);
  /// Waits until phase `phase` (i32, 0 or 1) of stage `stage`'s mbarrier
  /// has completed.
  void wait(mlir::OpBuilder &builder, mlir::Location loc, mlir::Value stage,
            mlir::Value phase) const;
  /// Thread 0 invalidates them, once every thread has waited for its last
  /// phase, so that their memory can be used for something else.
  void invalidate(KernelLowering &k, mlir::OpBuilder &builder, mlir::Location loc) const;

private:
  mlir::Value buffer;
  unsigned stages = 0;
};

} // namespace tessera::gpu

#endif // TESSERA_LOWERING_GPU_DISTRIBUTE_TENSORMAPS_H
