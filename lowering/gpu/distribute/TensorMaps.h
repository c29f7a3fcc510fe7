// Copies of tensor-descriptor blocks by the tensor memory accelerator (TMA,
// sm_90a) into the stages of a software-pipelined loop, and what TMA stores
// (TensorMapStores.h) share with them.
//
// A descriptor made of kernel arguments and constants alone, as a host
// descriptor is (TensorDescriptor::HostArguments), gets a tensor-map
// parameter, appended to the kernel: a 128-byte CUtensorMap that the launch
// encodes from the descriptor's arguments (cuTensorMapEncodeTiled) and
// passes by value. Its box is one panel of the stage (SwizzledPanels):
// `swizzleBytes` of the innermost dimension by the panel's lines, written
// with TMA's swizzle of that width, which is the permutation wgmma reads.
// One lane of warp 0 announces a stage's bytes on the stage's mbarrier; one
// `cp.async.bulk.tensor` per panel copies them, the panels spread over the
// warps; every thread waits on that mbarrier's phase before the dot reads
// the stage. TMA fills what lies outside the shape with zeros (NaN for
// padding_option "nan"), as the element-wise lowering does.
//
// The kernel lists the recipes of its tensor maps in the attribute
// `tessera.tensor_maps` (kTensorMapsAttrName): base, shape and outer-stride
// argument numbers or constants, element type, box (innermost first),
// swizzle bytes and padding. tessera-nvvm-tensor-map-params makes those
// parameters by-value grid constants; compileForNvidia records the recipes
// in KernelBinary::tensorMaps.
#ifndef TESSERA_LOWERING_GPU_DISTRIBUTE_TENSORMAPS_H
#define TESSERA_LOWERING_GPU_DISTRIBUTE_TENSORMAPS_H

#include "lowering/gpu/DistributedFormAttrs.h"
#include "lowering/gpu/distribute/DotPlan.h"
#include "lowering/gpu/distribute/KernelLowering.h"

#include <optional>

namespace tessera::gpu {

/// The most elements a TMA box has along a dimension.
constexpr int64_t kMaxTensorMapBox = 256;

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

/// The panels of a TMA copy of staged load `load` (through a transpose
/// where `transposed`), operand `slot` of `plan`; nullopt where TMA cannot
/// fill the operand's buffer: without k.tensorMaps, a descriptor not made of
/// arguments and constants or not proved 16-byte aligned, a buffer that is
/// not 32/64/128-byte panels, or a block whose contiguous dimension is not
/// the panels' lines'.
std::optional<SwizzledPanels> tensorCopyPanels(KernelLowering &k, mlir::Operation *load,
                                               bool transposed, const DotPlan &plan,
                                               DotOperand slot);

/// The TMA copy of staged load `load` where tensorCopyPanels has panels for
/// it, its tensor-map parameter appended to the kernel on first use.
std::optional<TensorCopy> tensorCopyFor(KernelLowering &k, mlir::Operation *load,
                                        bool transposed, const DotPlan &plan, DotOperand slot);

/// Whether a launch can encode a TMA tensor map of `desc`: made of kernel
/// arguments and constants alone, its base and outer strides proved
/// multiples of 16 bytes.
bool hasTensorMap(const TensorDescriptor *desc);

/// The kernel's tensor-map parameter (!llvm.ptr) for boxes of `panels` of
/// `desc` (hasTensorMap), appended with its recipe on first use: accesses of
/// one descriptor with one box share it.
mlir::Value tensorMapParameter(KernelLowering &k, const TensorDescriptor &desc,
                               mlir::Type element, const SwizzledPanels &panels);

/// i32: 1 in the threads of warp `warp`.
mlir::Value isWarp(KernelLowering &k, mlir::OpBuilder &builder, mlir::Location loc, unsigned warp);

/// One box of a TMA copy of swizzled panels: the shared address (i32) of its
/// panel, its innermost coordinate (i32), and `issuer` (i32), nonzero in the
/// warps that copy it.
struct PanelBox {
  mlir::Value shared, column, issuer;
};

/// Who issues the boxes of a TMA copy or store: the program's warps in
/// turn, warp `firstWarp` first, or (where `soleIssuer`, i32, is set) every
/// box from the warp where it is nonzero, as a warp-specialized loop's
/// producer issues its copies.
struct Issuers {
  unsigned firstWarp = 0;
  mlir::Value soleIssuer;
};

/// Spreads the boxes of `panels` in `buffer`, the first at innermost
/// coordinate `column` (i32), over the warps, as Triton does: `issue(box)`
/// builds one instruction for each round of up to numWarps panels, in which
/// warp firstWarp + i (mod numWarps) has panel i of the round (each panel a
/// round of its own for a sole issuer). Returns the warp whose turn is next.
unsigned spreadOverWarps(KernelLowering &k, mlir::OpBuilder &builder, mlir::Location loc,
                         const SwizzledPanels &panels, const SharedOperand &buffer,
                         mlir::Value column, Issuers issuers,
                         llvm::function_ref<void(const PanelBox &box)> issue);

/// Opens a PTX block whose next instruction runs in one lane (elect.sync)
/// of the warp where asm operand `$issuer` is nonzero; the caller closes the
/// block with "}".
std::string electedLane(unsigned issuer);

/// Issues `copy` of the block at `offsets` (i32, outermost first) into the
/// stage at `stage`, completing on the mbarrier at `barrier` (a shared
/// address, i32). The panels are spread over the warps, as Triton does: in
/// one `cp.async.bulk.tensor` for up to numWarps panels, one lane
/// (`elect.sync`) of each of the warps firstWarp, firstWarp + 1, ... (mod
/// numWarps) copies a panel of its own, so that a copy of many panels costs
/// every warp one instruction, not one warp a train of them that the others
/// then wait for at the loop's barrier; with `issuers.soleIssuer`, every
/// panel from that warp. Returns the warp whose turn is next.
/// Every thread runs it, convergent: predicated rather than branched on,
/// the copy keeps its operands in uniform registers, as ptxas issues a TMA
/// copy once per warp. The bytes may land before expectBytes announces them
/// (from another warp): the mbarrier's transaction count may go below zero,
/// and its phase cannot complete before that arrival.
unsigned issueTensorCopy(KernelLowering &k, mlir::OpBuilder &builder, mlir::Location loc,
                         const TensorCopy &copy, mlir::ValueRange offsets,
                         const SharedOperand &stage, mlir::Value barrier, Issuers issuers);

/// One mbarrier per stage of a pipelined loop, in shared memory reserved for
/// the loop, each phase completing after `arrivals` arrivals (and the bytes
/// they announce).
class StageBarriers {
public:
  static mlir::FailureOr<StageBarriers> reserve(KernelLowering &k, mlir::Operation *user,
                                                unsigned stages, unsigned arrivals = 1);
  /// Thread 0 initializes each for `arrivals` arrivals, fences the initialization
  /// for the async proxy and prefetches the descriptors of `tensorMaps` (so
  /// that the first copies need not fetch them); every thread fences its
  /// earlier shared-memory stores for the async proxy; then a barrier: no
  /// thread waits on an mbarrier, nor a copy overwrites a store, before.
  void initialize(KernelLowering &k, mlir::OpBuilder &builder, mlir::Location loc,
                  mlir::ValueRange tensorMaps) const;
  /// The shared address (i32) of stage `stage`'s mbarrier.
  mlir::Value address(mlir::OpBuilder &builder, mlir::Location loc, mlir::Value stage) const;
  /// Arrives at `barrier` from one lane of the warp where `issuer` (i32) is
  /// nonzero, expecting `bytes` from the stage's copies.
  static void expectBytes(mlir::OpBuilder &builder, mlir::Location loc, mlir::Value barrier,
                          int64_t bytes, mlir::Value issuer);
  /// Arrives at stage `stage`'s mbarrier from one lane of each warp where
  /// `issuer` (i32) is nonzero.
  void arrive(mlir::OpBuilder &builder, mlir::Location loc, mlir::Value stage,
              mlir::Value issuer) const;
  /// Waits until phase `phase` (i32, 0 or 1) of stage `stage`'s mbarrier
  /// has completed.
  void wait(mlir::OpBuilder &builder, mlir::Location loc, mlir::Value stage,
            mlir::Value phase) const;
  /// Thread 0 invalidates them, once every thread has waited for its last
  /// phase, so that their memory can be used for something else.
  void invalidate(KernelLowering &k, mlir::OpBuilder &builder, mlir::Location loc) const;

private:
  mlir::Value buffer;
  unsigned stages = 0, arrivals = 1;
};

} // namespace tessera::gpu

#endif // TESSERA_LOWERING_GPU_DISTRIBUTE_TENSORMAPS_H
