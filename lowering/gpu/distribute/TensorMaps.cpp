#include "lowering/gpu/distribute/TensorMaps.h"

#include "lowering/gpu/InlinePtx.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;

namespace tessera::gpu {

namespace {

constexpr int64_t kGlobalAlignmentBytes = 16;
constexpr int64_t kBarrierBytes = 8;
Value i32Of(OpBuilder &builder, Location loc, Value index) {
  return arith::IndexCastUIOp::create(builder, loc, builder.getI32Type(), index);
}

/// The shared address (i32) of element `element` (i32) of `buffer`, whose
/// elements are `elementBytes` long.
Value elementAddress(OpBuilder &builder, Location loc, Value buffer, Value element,
                     int64_t elementBytes) {
  Value offset =
      arith::MulIOp::create(builder, loc, element, i32Constant(builder, loc, elementBytes));
  Value base =
      i32Of(builder, loc, memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, buffer));
  return arith::AddIOp::create(builder, loc, base, offset);
}

/// The kernel's tensor-map parameter for `recipe`, appended on first use:
/// accesses of one descriptor with one box share it.
Value parameterFor(KernelLowering &k, DictionaryAttr recipe) {
  mlir::gpu::GPUFuncOp kernel = k.kernel;
  SmallVector<Attribute> recipes;
  if (auto listed = kernel->getAttrOfType<ArrayAttr>(kTensorMapsAttrName))
    recipes.assign(listed.begin(), listed.end());
  unsigned firstMap = kernel.getNumArguments() - recipes.size();
  if (const auto *found = llvm::find(recipes, recipe); found != recipes.end())
    return kernel.getArgument(firstMap + (found - recipes.begin()));
  MLIRContext *context = kernel.getContext();
  unsigned index = kernel.getNumArguments();
  (void)kernel.insertArgument(index, LLVM::LLVMPointerType::get(context), DictionaryAttr(),
                              kernel.getLoc());
  recipes.push_back(recipe);
  kernel->setAttr(kTensorMapsAttrName, ArrayAttr::get(context, recipes));
  return kernel.getArgument(index);
}

DictionaryAttr recipeOf(MLIRContext *context, const TensorDescriptor::HostArguments &host,
                        Type element, const SwizzledPanels &panels,
                        tile::PaddingOption padding) {
  Builder b(context);
  // The attribute's two arrays per field (kTensorMapsAttrName).
  auto arguments = [&](ArrayRef<TensorMapValue> values) {
    return b.getDenseI64ArrayAttr(llvm::to_vector(
        llvm::map_range(values, [](TensorMapValue v) -> int64_t { return v.argument; })));
  };
  auto constants = [&](ArrayRef<TensorMapValue> values) {
    return b.getDenseI64ArrayAttr(llvm::to_vector(
        llvm::map_range(values, [](TensorMapValue v) { return v.constant; })));
  };
  return b.getDictionaryAttr({
      b.getNamedAttr("base", b.getI64IntegerAttr(host.base)),
      b.getNamedAttr("shape", arguments(host.shape)),
      b.getNamedAttr("strides", arguments(host.outerStrides)),
      b.getNamedAttr("constant_shape", constants(host.shape)),
      b.getNamedAttr("constant_strides", constants(host.outerStrides)),
      b.getNamedAttr("element", TypeAttr::get(element)),
      b.getNamedAttr("box", b.getDenseI64ArrayAttr({panels.panelElements(), panels.lines})),
      b.getNamedAttr("swizzle", b.getI64IntegerAttr(panels.swizzleBytes)),
      b.getNamedAttr("padding",
                     b.getStringAttr(padding == tile::PaddingOption::NaN ? "nan" : "zero")),
  });
}

} // namespace

std::string electedLane(unsigned issuer) {
  return "{ .reg .pred %tessera_elected, %tessera_issue; .reg .b32 %tessera_lane; "
         ".reg .b64 %tessera_state; elect.sync %tessera_lane|%tessera_elected, -1; "
         "setp.ne.and.b32 %tessera_issue, $" +
         std::to_string(issuer) + ", 0, %tessera_elected; @%tessera_issue ";
}

Value tensorMapParameter(KernelLowering &k, const TensorDescriptor &desc, Type element,
                         const SwizzledPanels &panels) {
  return parameterFor(
      k, recipeOf(element.getContext(), *desc.hostArguments, element, panels, desc.padding));
}

bool hasTensorMap(const TensorDescriptor *desc) {
  return desc && desc->hostArguments && desc->rowAlignment % kGlobalAlignmentBytes == 0;
}

std::optional<SwizzledPanels> tensorCopyPanels(KernelLowering &k, Operation *op,
                                               bool transposed, const DotPlan &plan,
                                               DotOperand slot) {
  auto load = dyn_cast<tile::DescriptorLoadOp>(op);
  if (!k.tensorMaps || !load || !plan.instruction)
    return std::nullopt;
  std::optional<SwizzledPanels> panels = plan.instruction->swizzledPanels(slot);
  if (!panels || !llvm::is_contained({32, 64, 128}, panels->swizzleBytes) ||
      panels->lines > kMaxTensorMapBox)
    return std::nullopt;
  // Each panel line must be a run of the block's innermost dimension.
  if (panels->linesAreRows == transposed)
    return std::nullopt;
  auto blockType = cast<tile::TensorDescType>(load.getDesc().getType()).getBlockType();
  if (blockType.getRank() != 2 || blockType.getDimSize(0) != panels->lines ||
      blockType.getDimSize(1) != panels->panels * panels->panelElements())
    return std::nullopt;
  if (!hasTensorMap(k.descriptor(load.getDesc())))
    return std::nullopt;
  return panels;
}

std::optional<TensorCopy> tensorCopyFor(KernelLowering &k, Operation *op, bool transposed,
                                        const DotPlan &plan, DotOperand slot) {
  std::optional<SwizzledPanels> panels = tensorCopyPanels(k, op, transposed, plan, slot);
  if (!panels)
    return std::nullopt;
  auto load = cast<tile::DescriptorLoadOp>(op);
  auto blockType = cast<tile::TensorDescType>(load.getDesc().getType()).getBlockType();
  return TensorCopy{load,
                    tensorMapParameter(k, *k.descriptor(load.getDesc()),
                                       blockType.getElementType(), *panels),
                    *panels};
}

Value isWarp(KernelLowering &k, OpBuilder &builder, Location loc, unsigned warp) {
  Value same = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq, k.thread.warp(),
                                     i32Constant(builder, loc, warp));
  return arith::ExtUIOp::create(builder, loc, builder.getI32Type(), same);
}

unsigned spreadOverWarps(KernelLowering &k, OpBuilder &builder, Location loc,
                         const SwizzledPanels &panels, const SharedOperand &buffer, Value column,
                         Issuers issuers, function_ref<void(const PanelBox &)> issue) {
  int64_t warps = issuers.soleIssuer ? 1 : k.numWarps;
  unsigned firstWarp = issuers.firstWarp;
  auto i32 = [&](int64_t value) { return i32Constant(builder, loc, value); };
  Value start = elementAddress(builder, loc, buffer.buffer, i32Of(builder, loc, buffer.start),
                               panels.elementBytes);
  // Warp firstWarp + i (mod warps) is the i-th in turn: its panel in each
  // round of `warps` panels. A round of one panel is firstWarp's alone.
  Value turn;
  for (int64_t round = 0; round < panels.panels; round += warps) {
    int64_t issuing = std::min(warps, panels.panels - round);
    Value panel = i32(round), issuer = issuers.soleIssuer;
    if (!issuer && issuing == 1) {
      issuer = isWarp(k, builder, loc, firstWarp);
    } else if (!issuer) {
      if (!turn)
        turn = arith::RemUIOp::create(
            builder, loc,
            arith::AddIOp::create(builder, loc, k.thread.warp(), i32(warps - firstWarp)),
            i32(warps));
      panel = arith::AddIOp::create(builder, loc, turn, panel);
      issuer = arith::ExtUIOp::create(
          builder, loc, builder.getI32Type(),
          arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ult, turn, i32(issuing)));
    }
    auto along = [&](Value first, int64_t perPanel) -> Value {
      return arith::AddIOp::create(builder, loc, first,
                                   arith::MulIOp::create(builder, loc, panel, i32(perPanel)));
    };
    issue({along(start, panels.panelBytes()), along(column, panels.panelElements()), issuer});
  }
  return issuers.soleIssuer ? firstWarp : (firstWarp + panels.panels) % warps;
}

unsigned issueTensorCopy(KernelLowering &k, OpBuilder &builder, Location loc,
                         const TensorCopy &copy, ValueRange offsets, const SharedOperand &stage,
                         Value barrier, Issuers issuers) {
  return spreadOverWarps(
      k, builder, loc, copy.panels, stage, offsets[1], issuers, [&](const PanelBox &box) {
        inlinePtx(builder, loc, {},
                  {box.shared, copy.map, box.column, offsets[0], barrier, box.issuer},
                  electedLane(5) +
                      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::"
                      "bytes [$0], [$1, {$2, $3}], [$4]; }",
                  "r,l,r,r,r,r");
      });
}

FailureOr<StageBarriers> StageBarriers::reserve(KernelLowering &k, Operation *user,
                                                unsigned stages, unsigned arrivals) {
  FailureOr<Value> buffer = k.shared.reserve(user, IntegerType::get(user->getContext(), 64),
                                             stages, kBarrierBytes);
  if (failed(buffer))
    return failure();
  StageBarriers barriers;
  barriers.buffer = *buffer;
  barriers.stages = stages;
  barriers.arrivals = arrivals;
  return barriers;
}

Value StageBarriers::address(OpBuilder &builder, Location loc, Value stage) const {
  return elementAddress(builder, loc, buffer, stage, kBarrierBytes);
}

void StageBarriers::initialize(KernelLowering &k, OpBuilder &builder, Location loc,
                               ValueRange tensorMaps) const {
  scf::IfOp::create(builder, loc, k.thread.isFirstThread(), [&](OpBuilder &then, Location loc) {
    for (unsigned stage = 0; stage < stages; ++stage)
      inlinePtx(then, loc, {}, {address(then, loc, i32Constant(then, loc, stage))},
                "mbarrier.init.shared::cta.b64 [$0], " + std::to_string(arrivals) + ";", "r");
    inlinePtx(then, loc, {}, {}, "fence.mbarrier_init.release.cluster;", "");
    for (Value map : tensorMaps)
      inlinePtx(then, loc, {}, {map}, "prefetch.tensormap [$0];", "l");
    scf::YieldOp::create(then, loc);
  });
  // Whatever ordinary stores put into this shared memory before (another
  // loop's stages, an epilogue) is ordered before the copies' writes.
  emitAsyncProxyFence(builder, loc);
  mlir::gpu::BarrierOp::create(builder, loc);
}

void StageBarriers::expectBytes(OpBuilder &builder, Location loc, Value barrier, int64_t bytes,
                                Value issuer) {
  inlinePtx(builder, loc, {},
            {barrier, i32Constant(builder, loc, bytes), issuer},
            electedLane(2) +
                "mbarrier.arrive.expect_tx.shared::cta.b64 %tessera_state, [$0], $1; }",
            "r,r,r");
}

void StageBarriers::arrive(OpBuilder &builder, Location loc, Value stage, Value issuer) const {
  inlinePtx(builder, loc, {}, {address(builder, loc, stage), issuer},
            electedLane(1) + "mbarrier.arrive.shared::cta.b64 %tessera_state, [$0]; }", "r,r");
}

void StageBarriers::wait(OpBuilder &builder, Location loc, Value stage, Value phase) const {
  // try_wait suspends the thread for a while before it reports failure; the
  // loop only retries.
  inlinePtx(builder, loc, {}, {address(builder, loc, stage), phase},
            "{ .reg .pred %tessera_done; tessera_wait: "
            "mbarrier.try_wait.parity.shared::cta.b64 %tessera_done, [$0], $1; "
            "@!%tessera_done bra.uni tessera_wait; }",
            "r,r");
}

void StageBarriers::invalidate(KernelLowering &k, OpBuilder &builder, Location loc) const {
  scf::IfOp::create(builder, loc, k.thread.isFirstThread(), [&](OpBuilder &then, Location loc) {
    for (unsigned stage = 0; stage < stages; ++stage)
      inlinePtx(then, loc, {}, {address(then, loc, i32Constant(then, loc, stage))},
                "mbarrier.inval.shared::cta.b64 [$0];", "r");
    scf::YieldOp::create(then, loc);
  });
}

} // namespace tessera::gpu
