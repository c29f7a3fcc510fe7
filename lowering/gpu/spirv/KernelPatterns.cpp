#include "lowering/gpu/spirv/KernelPatterns.h"

#include "lowering/gpu/DistributedFormAttrs.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace {

/// The scope an atomic on a memref of this storage class synchronizes over.
spirv::Scope atomicScope(MemRefType type) {
  auto storage = dyn_cast_or_null<spirv::StorageClassAttr>(type.getMemorySpace());
  return storage && storage.getValue() == spirv::StorageClass::Workgroup ? spirv::Scope::Workgroup
                                                                         : spirv::Scope::Device;
}

/// memref.atomic_rmw addf (f32) -> spirv.EXT.AtomicFAdd, assign ->
/// spirv.AtomicExchange and xori -> spirv.AtomicXor (the upstream patterns
/// lack these three). Relaxed ordering, as CUDA's atomicAdd/atomicExch:
/// kernels that publish data through atomics use gpu.barrier or fences.
struct AtomicRMWToSpirv final : OpConversionPattern<memref::AtomicRMWOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(memref::AtomicRMWOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    arith::AtomicRMWKind kind = op.getKind();
    if (kind != arith::AtomicRMWKind::addf && kind != arith::AtomicRMWKind::assign &&
        kind != arith::AtomicRMWKind::xori)
      return rewriter.notifyMatchFailure(op, "left to the upstream integer atomics");
    Type resultType = getTypeConverter()->convertType(op.getType());
    if (!resultType)
      return rewriter.notifyMatchFailure(op, "element type has no SPIR-V type");
    const auto &typeConverter = *getTypeConverter<SPIRVTypeConverter>();
    Value pointer = spirv::getElementPtr(typeConverter, op.getMemRefType(), adaptor.getMemref(),
                                         adaptor.getIndices(), op.getLoc(), rewriter);
    if (!pointer)
      return rewriter.notifyMatchFailure(op, "cannot address the element");
    auto scope = rewriter.getAttr<spirv::ScopeAttr>(atomicScope(op.getMemRefType()));
    auto relaxed = rewriter.getAttr<spirv::MemorySemanticsAttr>(spirv::MemorySemantics::None);
    Value old;
    if (kind == arith::AtomicRMWKind::addf)
      old = spirv::EXTAtomicFAddOp::create(rewriter, op.getLoc(), resultType, pointer, scope,
                                           relaxed, adaptor.getValue());
    else if (kind == arith::AtomicRMWKind::xori)
      old = spirv::AtomicXorOp::create(rewriter, op.getLoc(), resultType, pointer, scope, relaxed,
                                       adaptor.getValue());
    else
      old = spirv::AtomicExchangeOp::create(rewriter, op.getLoc(), resultType, pointer, scope,
                                            relaxed, adaptor.getValue());
    rewriter.replaceOp(op, old);
    return success();
  }
};

/// memref.generic_atomic_rmw in the compare-and-swap form ->
/// spirv.AtomicCompareExchange. Sequentially consistent when the swap
/// happens, as tile.atomic_cas's default acq_rel asks at least; relaxed when
/// it does not (SPIR-V forbids release semantics there).
struct CompareAndSwapToSpirv final : OpConversionPattern<memref::GenericAtomicRMWOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(memref::GenericAtomicRMWOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    std::optional<tessera::gpu::vulkan::CompareAndSwap> cas =
        tessera::gpu::vulkan::matchCompareAndSwap(op);
    if (!cas)
      return rewriter.notifyMatchFailure(op, "not a compare-and-swap");
    Type resultType = getTypeConverter()->convertType(op.getType());
    if (!resultType || !isa<IntegerType>(resultType))
      return rewriter.notifyMatchFailure(op, "compare-and-swap acts on integers only");
    const auto &typeConverter = *getTypeConverter<SPIRVTypeConverter>();
    auto memrefType = cast<MemRefType>(op.getMemref().getType());
    Value pointer = spirv::getElementPtr(typeConverter, memrefType,
                                         adaptor.getMemref(), adaptor.getIndices(), op.getLoc(),
                                         rewriter);
    if (!pointer)
      return rewriter.notifyMatchFailure(op, "cannot address the element");
    Value value = rewriter.getRemappedValue(cas->value);
    Value comparator = rewriter.getRemappedValue(cas->comparator);
    if (!value || !comparator)
      return rewriter.notifyMatchFailure(op, "operands not converted");
    auto scope = rewriter.getAttr<spirv::ScopeAttr>(atomicScope(memrefType));
    auto ordered = rewriter.getAttr<spirv::MemorySemanticsAttr>(
        spirv::MemorySemantics::SequentiallyConsistent);
    auto relaxed = rewriter.getAttr<spirv::MemorySemanticsAttr>(spirv::MemorySemantics::None);
    rewriter.replaceOp(op, spirv::AtomicCompareExchangeOp::create(rewriter, op.getLoc(), resultType,
                                                                  pointer, scope, ordered, relaxed,
                                                                  value, comparator));
    return success();
  }
};

/// math.exp2 -> GLSL.std.450 Exp2, which MLIR's Math-to-SPIR-V patterns
/// leave out (f16 and f32; wider types fail to legalize, naming the op).
struct Exp2ToSpirv final : OpConversionPattern<math::Exp2Op> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(math::Exp2Op op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Type type = getTypeConverter()->convertType(op.getType());
    if (!type || !(type.isF32() || type.isF16()))
      return rewriter.notifyMatchFailure(op, "GLSL's Exp2 takes f16 and f32");
    rewriter.replaceOpWithNewOp<spirv::GLExp2Op>(op, type, adaptor.getOperand());
    return success();
  }
};

/// math.ctpop -> OpBitCount, which MLIR's Math-to-SPIR-V patterns leave out
/// (libdevice's __nv_popc, tile-libdevice-to-math).
struct CtPopToSpirv final : OpConversionPattern<math::CtPopOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(math::CtPopOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Type type = getTypeConverter()->convertType(op.getType());
    if (!type)
      return rewriter.notifyMatchFailure(op, "integer type has no SPIR-V type");
    rewriter.replaceOpWithNewOp<spirv::BitCountOp>(op, type, adaptor.getOperand());
    return success();
  }
};

/// A gpu.barrier that must order global memory too (tile.debug_barrier) ->
/// a workgroup ControlBarrier whose semantics include UniformMemory (storage
/// buffers); upstream's lowering orders workgroup memory only.
struct GlobalBarrierToSpirv final : OpConversionPattern<mlir::gpu::BarrierOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(mlir::gpu::BarrierOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (!op->hasAttr(tessera::gpu::kBarrierOrdersGlobalMemory))
      return rewriter.notifyMatchFailure(op, "orders workgroup memory only");
    auto semantics = spirv::MemorySemantics::AcquireRelease |
                     spirv::MemorySemantics::WorkgroupMemory |
                     spirv::MemorySemantics::UniformMemory;
    rewriter.replaceOpWithNewOp<spirv::ControlBarrierOp>(op, spirv::Scope::Workgroup,
                                                         spirv::Scope::Workgroup, semantics);
    return success();
  }
};

/// gpu.shuffle up|down -> GroupNonUniformShuffleUp|Down. The width is the
/// subgroup size (tessera-spirv-prepare-kernel checks it), so a lane's
/// result is valid when the source lane exists: lane >= offset (up),
/// lane + offset < width (down).
struct RelativeShuffleToSpirv final : OpConversionPattern<gpu::ShuffleOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(gpu::ShuffleOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    bool up = op.getMode() == gpu::ShuffleMode::UP;
    if (!up && op.getMode() != gpu::ShuffleMode::DOWN)
      return rewriter.notifyMatchFailure(op, "xor and idx shuffles are upstream's");
    Location loc = op.getLoc();
    auto scope = rewriter.getAttr<spirv::ScopeAttr>(spirv::Scope::Subgroup);
    Value offset = adaptor.getOffset();
    Value shuffled;
    if (up)
      shuffled = spirv::GroupNonUniformShuffleUpOp::create(rewriter, loc, scope,
                                                           adaptor.getValue(), offset);
    else
      shuffled = spirv::GroupNonUniformShuffleDownOp::create(rewriter, loc, scope,
                                                             adaptor.getValue(), offset);
    Type i32 = rewriter.getI32Type();
    Value lane = spirv::getBuiltinVariableValue(op, spirv::BuiltIn::SubgroupLocalInvocationId,
                                                i32, rewriter);
    Value valid;
    if (up) {
      valid = spirv::UGreaterThanEqualOp::create(rewriter, loc, lane, offset);
    } else {
      Value source = spirv::IAddOp::create(rewriter, loc, lane, offset);
      valid = spirv::ULessThanOp::create(rewriter, loc, source, adaptor.getWidth());
    }
    rewriter.replaceOp(op, {shuffled, valid});
    return success();
  }
};

} // namespace

std::optional<tessera::gpu::vulkan::CompareAndSwap>
tessera::gpu::vulkan::matchCompareAndSwap(memref::GenericAtomicRMWOp rmw) {
  Block *body = rmw.getBody();
  Value current = rmw.getCurrentValue();
  auto yield = dyn_cast<memref::AtomicYieldOp>(body->getTerminator());
  auto select = yield ? yield.getResult().getDefiningOp<arith::SelectOp>() : nullptr;
  if (!select || select.getFalseValue() != current || body->getOperations().size() != 3)
    return std::nullopt;
  auto equal = select.getCondition().getDefiningOp<arith::CmpIOp>();
  if (!equal || equal.getPredicate() != arith::CmpIPredicate::eq)
    return std::nullopt;
  Value comparator = equal.getLhs() == current ? equal.getRhs() : equal.getLhs();
  if ((equal.getLhs() != current && equal.getRhs() != current) ||
      comparator.getParentRegion() == &rmw.getAtomicBody() ||
      select.getTrueValue().getParentRegion() == &rmw.getAtomicBody())
    return std::nullopt;
  return CompareAndSwap{comparator, select.getTrueValue()};
}

void tessera::gpu::vulkan::populateKernelToSpirvPatterns(const SPIRVTypeConverter &typeConverter,
                                                         RewritePatternSet &patterns) {
  patterns.add<AtomicRMWToSpirv, CompareAndSwapToSpirv, CtPopToSpirv, Exp2ToSpirv,
               GlobalBarrierToSpirv, RelativeShuffleToSpirv>(typeConverter, patterns.getContext(),
                                                             /*benefit=*/2);
}
