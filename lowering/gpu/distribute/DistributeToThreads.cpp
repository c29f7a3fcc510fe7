// The tile-gpu-distribute pass: each kernel tile.func becomes a gpu.func in a
// gpu.module of its own, its body walked in order with every value mapped to
// this thread's registers (KernelLowering). The walk, rather than MLIR's 1:N
// dialect conversion, keeps the mapping explicit: pointer bases, descriptors
// and registers live side by side, and shape ops need the layouts of both
// their operands and results, which the conversion framework's type
// converter cannot see.
#include "lowering/gpu/Diagnostics.h"
#include "lowering/gpu/DistributedFormAttrs.h"
#include "lowering/gpu/distribute/ConstantTerms.h"
#include "lowering/gpu/distribute/FastMath.h"
#include "lowering/gpu/distribute/KernelLowering.h"
#include "lowering/gpu/distribute/Passes.h"
#include "lowering/gpu/distribute/Pipeline.h"
#include "lowering/gpu/distribute/TensorMapStores.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/Support/MathExtras.h"

#include <numeric>

using namespace mlir;

namespace tessera::gpu {

#define GEN_PASS_DEF_TILEGPUDISTRIBUTE
#include "lowering/gpu/distribute/Passes.h.inc"

//===----------------------------------------------------------------------===//
// KernelLowering
//===----------------------------------------------------------------------===//

bool isPointerLike(Type type) { return isa<tile::PointerType>(getElementTypeOrSelf(type)); }

Registers KernelLowering::registers(Value value) const {
  auto found = registers_.find(value);
  assert(found != registers_.end() && "value used before it was lowered");
  return found->second;
}

void KernelLowering::map(Value value, Registers regs, Value base) {
  registers_[value] = std::move(regs);
  if (base)
    pointerBases_[value] = base;
}

KernelLowering::SavedMapping KernelLowering::save(ArrayRef<Value> values) const {
  SavedMapping saved;
  for (Value value : values) {
    SavedMapping::Entry &entry = saved.entries.emplace_back();
    entry.value = value;
    if (auto found = registers_.find(value); found != registers_.end())
      entry.registers = found->second;
    entry.pointerBase = pointerBases_.lookup(value);
    if (const TensorDescriptor *lowered = descriptor(value))
      entry.descriptor = *lowered;
  }
  return saved;
}

void KernelLowering::restore(const SavedMapping &saved) {
  for (const SavedMapping::Entry &entry : saved.entries) {
    if (entry.registers)
      registers_[entry.value] = *entry.registers;
    else
      registers_.erase(entry.value);
    if (entry.pointerBase)
      pointerBases_[entry.value] = entry.pointerBase;
    else
      pointerBases_.erase(entry.value);
    if (entry.descriptor)
      descriptors_[entry.value] = *entry.descriptor;
    else
      descriptors_.erase(entry.value);
  }
}

const TensorDescriptor *KernelLowering::descriptor(Value descriptor) const {
  auto found = descriptors_.find(descriptor);
  return found == descriptors_.end() ? nullptr : &found->second;
}

FailureOr<LinearLayout> KernelLowering::layout(Operation *user, Type tileType) {
  std::optional<LinearLayout> found = layoutOf(tileType);
  if (!found)
    return user->emitOpError() << "uses the tile type " << tileType
                               << " without a #tgpu.layout (run tile-gpu-assign-layouts first)";
  if (found->numLanes() != thread.warpSize() || found->numWarps() != thread.numWarps())
    return user->emitOpError() << "uses the layout " << found->str() << " of "
                               << found->numLanes() << " lanes and " << found->numWarps()
                               << " warps in a program of " << thread.numWarps() << " warps of "
                               << thread.warpSize() << " lanes";
  return *found;
}

FailureOr<KernelLowering::Writers> KernelLowering::writersOf(Operation *user, Value pointer) {
  Writers writers;
  if (!isa<RankedTensorType>(pointer.getType())) {
    writers.owner = thread.isFirstThread();
    return writers;
  }
  FailureOr<LinearLayout> found = layout(user, pointer);
  if (failed(found))
    return failure();
  writers.layout = *found;
  writers.owner = thread.ownsElements(*found);
  return writers;
}

FailureOr<unsigned> KernelLowering::numRegisters(Operation *user, Type type) {
  if (!isa<RankedTensorType>(type))
    return 1u;
  FailureOr<LinearLayout> found = layout(user, type);
  if (failed(found))
    return failure();
  return found->numRegisters();
}

Type KernelLowering::registerType(Type type) {
  Type element = getElementTypeOrSelf(type);
  if (isa<tile::PointerType>(element))
    return IndexType::get(type.getContext());
  return element;
}

SmallVector<Value> KernelLowering::flatRegisters(ValueRange values) const {
  SmallVector<Value> flat;
  for (Value value : values)
    llvm::append_range(flat, registers(value));
  return flat;
}

FailureOr<SmallVector<Type>> KernelLowering::flatTypes(Operation *op, TypeRange types) {
  SmallVector<Type> flat;
  for (Type type : types) {
    if (isa<tile::TensorDescType>(type))
      return unsupported(op, "a tensor descriptor carried through control flow");
    FailureOr<unsigned> count = numRegisters(op, type);
    if (failed(count))
      return failure();
    flat.append(*count, registerType(type));
  }
  return flat;
}

void KernelLowering::mapFlat(ValueRange originals, ValueRange flat, ArrayRef<Value> bases) {
  unsigned next = 0;
  for (auto [original, base] : llvm::zip(originals, bases)) {
    unsigned count = isa<RankedTensorType>(original.getType())
                         ? layoutOf(original.getType())->numRegisters()
                         : 1;
    map(original, Registers(flat.begin() + next, flat.begin() + next + count), base);
    next += count;
  }
}

SmallVector<Value> KernelLowering::pointerBases(ValueRange values) const {
  return llvm::map_to_vector(values, [&](Value value) { return pointerBase(value); });
}

LogicalResult KernelLowering::lowerBlock(Block &block, OpBuilder &builder) {
  for (Operation &op : block.without_terminator())
    if (failed(lowerOp(&op, builder)))
      return failure();
  return success();
}

FailureOr<SmallVector<Value>> KernelLowering::combine(OpBuilder &builder, Region &region,
                                                      ValueRange lhs, ValueRange rhs) {
  Block &block = region.front();
  for (auto [arg, value] : llvm::zip(block.getArguments(), llvm::concat<const Value>(lhs, rhs)))
    map(arg, {value});
  if (failed(lowerBlock(block, builder)))
    return failure();
  SmallVector<Value> combined;
  for (Value yielded : block.getTerminator()->getOperands())
    combined.push_back(registers(yielded).front());
  return combined;
}

InFlightDiagnostic KernelLowering::unsupported(Operation *op, const Twine &what) {
  return op->emitOpError() << what << " is not supported on GPU targets yet (target "
                           << target.str() << ")";
}

//===----------------------------------------------------------------------===//
// Grid queries, ranges, splats, constants, elementwise ops
//===----------------------------------------------------------------------===//

namespace {

mlir::gpu::Dimension dimensionOf(tile::ProgramAxis axis) {
  switch (axis) {
  case tile::ProgramAxis::X:
    return mlir::gpu::Dimension::x;
  case tile::ProgramAxis::Y:
    return mlir::gpu::Dimension::y;
  case tile::ProgramAxis::Z:
    return mlir::gpu::Dimension::z;
  }
  llvm_unreachable("unknown program axis");
}

LogicalResult lowerGridQuery(KernelLowering &k, Operation *op, OpBuilder &builder) {
  Location loc = op->getLoc();
  Value index;
  if (auto pid = dyn_cast<tile::ProgramIdOp>(op))
    index = mlir::gpu::BlockIdOp::create(builder, loc, dimensionOf(pid.getAxis()));
  else
    index = mlir::gpu::GridDimOp::create(builder, loc,
                                   dimensionOf(cast<tile::NumProgramsOp>(op).getAxis()));
  k.map(op->getResult(0),
        {arith::IndexCastUIOp::create(builder, loc, builder.getI32Type(), index)});
  return success();
}

LogicalResult lowerMakeRange(KernelLowering &k, tile::MakeRangeOp op, OpBuilder &builder) {
  FailureOr<LinearLayout> layout = k.layout(op, op.getType());
  if (failed(layout))
    return failure();
  Location loc = op.getLoc();
  Value start = arith::ConstantIntOp::create(builder, loc, op.getStart(), 32);
  Registers regs;
  for (unsigned reg = 0; reg < layout->numRegisters(); ++reg)
    regs.push_back(builder.createOrFold<arith::AddIOp>(
        loc, start, k.thread.coordinate(builder, loc, *layout, reg, 0)));
  k.map(op, std::move(regs));
  return success();
}

LogicalResult lowerSplat(KernelLowering &k, tile::SplatOp op) {
  FailureOr<unsigned> count = k.numRegisters(op, op.getType());
  if (failed(count))
    return failure();
  Value scalar = k.registers(op.getSrc()).front();
  k.map(op, Registers(*count, scalar), k.pointerBase(op.getSrc()));
  return success();
}

LogicalResult lowerConstant(KernelLowering &k, arith::ConstantOp op, OpBuilder &builder) {
  auto tileType = dyn_cast<RankedTensorType>(op.getType());
  if (!tileType) {
    k.map(op, {builder.clone(*op)->getResult(0)});
    return success();
  }
  FailureOr<LinearLayout> layout = k.layout(op, tileType);
  if (failed(layout))
    return failure();
  auto elements = cast<DenseElementsAttr>(op.getValue());
  Location loc = op.getLoc();
  Registers regs;
  if (elements.isSplat()) {
    Value scalar =
        arith::ConstantOp::create(builder, loc, cast<TypedAttr>(elements.getSplatValue<Attribute>()));
    k.map(op, Registers(layout->numRegisters(), scalar));
    return success();
  }
  if (!llvm::all_of(layout->lanes, isZero) || !llvm::all_of(layout->warps, isZero))
    return k.unsupported(op, "a non-splat constant tile spread over several threads");
  auto values = elements.getValues<Attribute>();
  for (unsigned reg = 0; reg < layout->numRegisters(); ++reg) {
    int64_t index = rowMajorIndex(tileType.getShape(), layout->registerOffset(reg));
    regs.push_back(arith::ConstantOp::create(builder, loc, cast<TypedAttr>(values[index])));
  }
  k.map(op, std::move(regs));
  return success();
}

bool sameDistribution(const LinearLayout &a, const LinearLayout &b) {
  return a.registers == b.registers && a.lanes == b.lanes && a.warps == b.warps;
}

/// One register of an elementwise op that has no counterpart on scalars in
/// the target dialects.
Value lowerTileElementwise(Operation *op, OpBuilder &builder, ArrayRef<Value> operands) {
  Location loc = op->getLoc();
  if (auto call = dyn_cast<tile::ExternElementwiseOp>(op))
    return callDeviceFunction(call, builder, operands);
  if (auto clamp = dyn_cast<tile::ClampOp>(op)) {
    // maximumf/minimumf propagate a NaN in x; maxnumf/minnumf return a bound.
    if (clamp.getPropagateNan() == tile::PropagateNan::All)
      return arith::MinimumFOp::create(
          builder, loc, arith::MaximumFOp::create(builder, loc, operands[0], operands[1]),
          operands[2]);
    return arith::MinNumFOp::create(
        builder, loc, arith::MaxNumFOp::create(builder, loc, operands[0], operands[1]), operands[2]);
  }
  // math.sqrt and arith.divf are correctly rounded on NVIDIA and AMD unless
  // fast-math flags say otherwise; Vulkan gives no such guarantee.
  if (isa<tile::PreciseSqrtOp>(op))
    return math::SqrtOp::create(builder, loc, operands[0]);
  return arith::DivFOp::create(builder, loc, operands[0], operands[1]);
}

/// The register of an integer `op` (add or multiply) with the constant
/// terms of its operands moved outermost: (x + c) * k as x * k + c * k,
/// (x + c) + (y + d) as (x + y) + (c + d); null where no operand has one. A
/// tile's registers differ by constants (a range's register r is its thread
/// part plus r's offset), and so do the addresses built from them. Written
/// innermost, the constant is lost to LLVM, which turns `x + c` into `x | c`
/// (their bits are apart) and moves no constant through that; outermost, it
/// reaches each access as an immediate offset from one address, where
/// attention's copies otherwise computed an address per register.
Value withConstantOutermost(Operation *op, OpBuilder &builder, ArrayRef<Value> operands) {
  if (!isa<arith::MulIOp, arith::AddIOp>(op) || operands.size() != 2 ||
      !operands[0].getType().isIntOrIndex())
    return {};
  auto [x, c] = splitConstantTerm(operands[0]);
  auto [y, d] = splitConstantTerm(operands[1]);
  if (!c && !d)
    return {};
  Location loc = op->getLoc();
  Type type = operands[0].getType();
  auto constant = [&](const APInt &value) -> Value {
    return arith::ConstantOp::create(builder, loc, builder.getIntegerAttr(type, value));
  };
  if (isa<arith::MulIOp>(op)) {
    // Only a constant factor keeps the term a constant.
    Value factorValue = c ? operands[1] : operands[0];
    std::optional<APInt> factor = constantOf(factorValue);
    if (!factor || (c && d))
      return {};
    Value scaled = arith::MulIOp::create(builder, loc, c ? x : y, factorValue);
    return arith::AddIOp::create(builder, loc, scaled, constant(*(c ? c : d) * *factor));
  }
  if ((c && constantOf(operands[1])) || (d && constantOf(operands[0])))
    return {};
  APInt term = c && d ? *c + *d : *(c ? c : d);
  Value variables = arith::AddIOp::create(builder, loc, x, y);
  return arith::AddIOp::create(builder, loc, variables, constant(term));
}

LogicalResult lowerElementwise(KernelLowering &k, Operation *op, OpBuilder &builder) {
  if (op->getNumRegions() != 0 || op->getNumResults() == 0)
    return k.unsupported(op, "this op");
  // Every result has the shape and layout of the first (arith.mului_extended's
  // low and high halves).
  Type resultType = op->getResult(0).getType();
  unsigned count = 1, equalGroup = 1;
  if (auto tileType = dyn_cast<RankedTensorType>(resultType)) {
    FailureOr<LinearLayout> layout = k.layout(op, resultType);
    if (failed(layout))
      return failure();
    count = layout->numRegisters();
    // Registers of a run that the contiguity analysis proves equal (a mask
    // `cols < n`, n a multiple of the group) share the first one's value:
    // LLVM cannot see that `col + 1 < n` is `col < n`.
    if (tileType.getElementType().isIntOrIndex())
      equalGroup = std::gcd<int64_t>(layout->contiguousRegisters(),
                                     k.contiguity.piecesOf(op->getResult(0)).constancy);
    for (Value operand : op->getOperands()) {
      if (!isa<RankedTensorType>(operand.getType()))
        continue;
      FailureOr<LinearLayout> operandLayout = k.layout(op, operand.getType());
      if (failed(operandLayout))
        return failure();
      if (!sameDistribution(*layout, *operandLayout))
        return op->emitOpError()
               << "has operands and results in different layouts (" << operandLayout->str()
               << " vs " << layout->str()
               << "); tile-gpu-assign-layouts inserts tgpu.convert_layout between them";
    }
  }

  // A select between pointers keeps one statically known base.
  Value base;
  if (isPointerLike(resultType)) {
    auto select = dyn_cast<arith::SelectOp>(op);
    if (!select)
      return k.unsupported(op, "this op on pointers");
    base = k.pointerBase(select.getTrueValue());
    if (base != k.pointerBase(select.getFalseValue()))
      return k.unsupported(op, "a select between pointers into different kernel arguments");
  }

  bool isTileOp =
      isa<tile::ClampOp, tile::PreciseSqrtOp, tile::PreciseDivFOp, tile::ExternElementwiseOp>(op);
  SmallVector<Registers> operandRegs =
      llvm::map_to_vector(op->getOperands(), [&](Value operand) { return k.registers(operand); });
  SmallVector<Registers> resultRegs(op->getNumResults());
  for (unsigned reg = 0; reg < count; ++reg) {
    if (reg % equalGroup != 0) {
      for (Registers &regs : resultRegs)
        regs.push_back(regs[reg - reg % equalGroup]);
      continue;
    }
    // Scalar operands (the condition of a select on tiles) serve every register.
    SmallVector<Value> operands = llvm::map_to_vector(
        operandRegs, [&](const Registers &r) { return r.size() == 1 ? r.front() : r[reg]; });
    if (isTileOp) {
      resultRegs.front().push_back(lowerTileElementwise(op, builder, operands));
      continue;
    }
    if (Value fast = lowerWithFastMath(k.target, op, builder, operands)) {
      resultRegs.front().push_back(fast);
      continue;
    }
    if (Value moved = withConstantOutermost(op, builder, operands)) {
      resultRegs.front().push_back(moved);
      continue;
    }
    IRMapping mapping;
    mapping.map(op->getOperands(), operands);
    Operation *scalarOp = builder.clone(*op, mapping);
    for (auto [result, regs] : llvm::zip(scalarOp->getResults(), resultRegs)) {
      result.setType(KernelLowering::registerType(result.getType()));
      regs.push_back(result);
    }
  }
  for (auto [result, regs] : llvm::zip(op->getResults(), resultRegs))
    k.map(result, std::move(regs), base);
  return success();
}

} // namespace

LogicalResult KernelLowering::lowerOp(Operation *op, OpBuilder &builder) {
  if (isa<tile::ProgramIdOp, tile::NumProgramsOp>(op))
    return lowerGridQuery(*this, op, builder);
  if (auto range = dyn_cast<tile::MakeRangeOp>(op))
    return lowerMakeRange(*this, range, builder);
  if (auto splat = dyn_cast<tile::SplatOp>(op))
    return lowerSplat(*this, splat);
  if (auto constant = dyn_cast<arith::ConstantOp>(op))
    return lowerConstant(*this, constant, builder);
  if (isa<tile::ExpandDimsOp, tile::ReshapeOp, tile::TransOp, tile::BroadcastOp, tile::JoinOp,
          tile::SplitOp, tile::CatOp>(op))
    return lowerShapeOp(*this, op, builder);
  if (auto convert = dyn_cast<ConvertLayoutOp>(op))
    return lowerConvertLayout(*this, convert, builder);
  if (isa<tile::AddPtrOp, tile::LoadOp, tile::StoreOp, tile::BitcastOp, tile::IntToPtrOp,
          tile::PtrToIntOp>(op))
    return lowerPointerOp(*this, op, builder);
  if (isa<tile::AtomicRMWOp, tile::AtomicCASOp>(op))
    return lowerAtomic(*this, op, builder);
  if (isa<tile::MakeTensorDescOp, tile::DescriptorLoadOp, tile::DescriptorStoreOp>(op))
    return lowerDescriptorOp(*this, op, builder);
  if (isa<scf::ForOp, scf::IfOp, scf::WhileOp>(op))
    return lowerControlFlow(*this, op, builder);
  if (auto reduce = dyn_cast<tile::ReduceOp>(op))
    return lowerReduce(*this, reduce, builder);
  if (auto scan = dyn_cast<tile::ScanOp>(op))
    return lowerScan(*this, scan, builder);
  if (auto gather = dyn_cast<tile::GatherOp>(op))
    return lowerGather(*this, gather, builder);
  if (auto histogram = dyn_cast<tile::HistogramOp>(op))
    return lowerHistogram(*this, histogram, builder);
  if (auto dot = dyn_cast<tile::DotOp>(op))
    return lowerDot(*this, dot, builder);
  if (isa<tile::PrintOp, tile::AssertOp>(op))
    return lowerDebugOp(*this, op, builder);
  if (isa<tile::AssumeOp>(op))
    return success(); // read by the contiguity analysis; nothing to run
  if (auto hint = dyn_cast<tile::HintOp>(op)) {
    // The contiguity analysis has read the facts; the value is its operand.
    map(hint.getResult(), registers(hint.getSrc()), pointerBase(hint.getSrc()));
    return success();
  }
  if (isa<tile::DebugBarrierOp>(op)) {
    // Vulkan's workgroup barrier orders only workgroup memory unless asked.
    auto barrier = mlir::gpu::BarrierOp::create(builder, op->getLoc());
    barrier->setAttr(kBarrierOrdersGlobalMemory, builder.getUnitAttr());
    return success();
  }
  if (isa<tile::CallOp>(op))
    return op->emitOpError(
        "calls a device function; inline device functions before tile-gpu-distribute");
  if (auto assembly = dyn_cast<tile::InlineAsmElementwiseOp>(op))
    return lowerInlineAsm(*this, assembly, builder);
  if (auto call = dyn_cast<tile::ExternElementwiseOp>(op))
    if (failed(declareDeviceFunction(*this, call, builder)))
      return failure();
  if (isa<tile::ClampOp, tile::PreciseSqrtOp, tile::PreciseDivFOp, tile::ExternElementwiseOp>(op) ||
      isa<arith::ArithDialect, math::MathDialect>(op->getDialect()))
    return lowerElementwise(*this, op, builder);
  return unsupported(op, "this op");
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

FailureOr<GpuTarget> kernelTarget(tile::FuncOp kernel) {
  auto spec = kernel->getAttrOfType<StringAttr>(TileGpuDialect::kTargetAttr);
  if (!spec)
    return kernel.emitOpError() << "has no '" << TileGpuDialect::kTargetAttr
                                << "' (run tile-gpu-assign-layouts first)";
  llvm::Expected<GpuTarget> target = GpuTarget::parse(spec.getValue());
  if (!target)
    return kernel.emitOpError() << llvm::toString(target.takeError());
  return *target;
}

namespace {

FailureOr<unsigned> kernelNumWarps(tile::FuncOp kernel) {
  auto attr = kernel->getAttrOfType<IntegerAttr>(TileGpuDialect::kNumWarpsAttr);
  if (!attr)
    return kernel.emitOpError() << "has no '" << TileGpuDialect::kNumWarpsAttr
                                << "' (run tile-gpu-assign-layouts first)";
  int64_t numWarps = attr.getInt();
  if (numWarps < 1 || numWarps > 32 || !llvm::isPowerOf2_64(numWarps))
    return kernel.emitOpError() << "has " << numWarps
                                << " warps; a program has a power of two from 1 to 32";
  return static_cast<unsigned>(numWarps);
}

/// Kernel arguments in the distributed form: pointers become memref<?xT>,
/// i1 becomes i32.
FailureOr<SmallVector<Type>> kernelArgumentTypes(tile::FuncOp kernel) {
  SmallVector<Type> types;
  for (Type type : kernel.getArgumentTypes()) {
    if (auto pointer = dyn_cast<tile::PointerType>(type))
      types.push_back(MemRefType::get({ShapedType::kDynamic}, pointer.getPointeeType()));
    else if (type.isInteger(1))
      types.push_back(IntegerType::get(type.getContext(), 32));
    else if (type.isIntOrFloat())
      types.push_back(type);
    else
      return kernel.emitOpError() << "has an argument of type " << type
                                  << "; GPU kernels take scalars and pointers";
  }
  return types;
}

/// Once a loop's producer warps have left (KernelLowering::producerBranch),
/// the program's barriers after its branch are the consumers' alone: named
/// barrier 1 over numWarps warps. A barrier of the whole program would wait
/// for the producer, which may itself be waiting for the consumers.
void barriersOfConsumersOnly(mlir::gpu::GPUFuncOp func, Operation *producerBranch,
                             unsigned consumerThreads) {
  Block &entry = func.getBody().front();
  SmallVector<mlir::gpu::BarrierOp> barriers;
  func.walk([&](mlir::gpu::BarrierOp barrier) {
    Operation *top = entry.findAncestorOpInBlock(*barrier);
    if (top && producerBranch->isBeforeInBlock(top))
      barriers.push_back(barrier);
  });
  for (mlir::gpu::BarrierOp barrier : barriers) {
    OpBuilder builder(barrier);
    Location loc = barrier.getLoc();
    NVVM::BarrierOp::create(builder, loc, Type(), i32Constant(builder, loc, 1),
                            i32Constant(builder, loc, consumerThreads),
                            NVVM::BarrierReductionAttr(), Value());
    barrier.erase();
  }
}

LogicalResult distributeKernel(tile::FuncOp kernel, unsigned numStages, bool tensorMaps,
                               bool warpSpecialize, ReadBackLoads readBackLoads) {
  FailureOr<GpuTarget> target = kernelTarget(kernel);
  FailureOr<unsigned> numWarps = kernelNumWarps(kernel);
  if (failed(target) || failed(numWarps))
    return failure();
  FailureOr<SmallVector<Type>> argumentTypes = kernelArgumentTypes(kernel);
  if (failed(argumentTypes))
    return failure();
  if (!kernel.getBody().hasOneBlock())
    return kernel.emitOpError("has unstructured control flow; GPU kernels use scf");

  MLIRContext *context = kernel.getContext();
  Location loc = kernel.getLoc();
  OpBuilder builder(kernel);
  auto gpuModule = mlir::gpu::GPUModuleOp::create(builder, loc, kernel.getName());
  builder.setInsertionPointToStart(gpuModule.getBody());
  auto func = mlir::gpu::GPUFuncOp::create(builder, loc, kernel.getName(),
                                     FunctionType::get(context, *argumentTypes, {}));
  int32_t blockSize = static_cast<int32_t>(*numWarps * target->warpSize);
  func->setAttr(mlir::gpu::GPUDialect::getKernelFuncAttrName(), builder.getUnitAttr());
  func.setKnownBlockSizeAttr(builder.getDenseI32ArrayAttr({blockSize, 1, 1}));
  func->setAttr("tessera.num_warps", builder.getI32IntegerAttr(*numWarps));

  Block &entry = func.getBody().front();
  ThreadContext thread(entry, loc, target->warpSize, *numWarps,
                       /*broadcastWarp=*/target->hasWgmma());
  SharedMemory shared(func, *target, thread);
  // TMA copies fill wgmma's operand panels (sm_90a): elsewhere the option has
  // nothing to copy into.
  KernelLowering lowering(*target, *numWarps, numStages, tensorMaps && target->hasWgmma(),
                          warpSpecialize, func, thread, shared);
  lowering.readBackLoads = readBackLoads;
  if (lowering.tensorMaps)
    placeConversionsAtTheirStores(kernel);
  OpBuilder body = OpBuilder::atBlockEnd(&entry);
  for (auto [original, argument] : llvm::zip(kernel.getArguments(), func.getArguments())) {
    if (isa<tile::PointerType>(original.getType()))
      lowering.map(original, {arith::ConstantIndexOp::create(body, loc, 0)}, argument);
    else if (original.getType().isInteger(1))
      lowering.map(original,
                   {arith::CmpIOp::create(body, loc, arith::CmpIPredicate::ne, argument,
                                          arith::ConstantIntOp::create(body, loc, 0, 32))});
    else
      lowering.map(original, {argument});
  }
  if (failed(lowering.lowerBlock(kernel.getBody().front(), body))) {
    gpuModule.erase();
    return failure();
  }
  mlir::gpu::ReturnOp::create(body, loc);
  if (lowering.producerBranch) {
    barriersOfConsumersOnly(func, lowering.producerBranch, blockSize);
    int32_t producerThreads = int32_t(kProducerWarps * target->warpSize);
    func.setKnownBlockSizeAttr(builder.getDenseI32ArrayAttr({blockSize + producerThreads, 1, 1}));
    func->setAttr("tessera.producer_warps", builder.getI32IntegerAttr(kProducerWarps));
  }
  func->setAttr("tessera.shared_memory_bytes",
                builder.getI32IntegerAttr(static_cast<int32_t>(shared.dynamicBytes())));
  // Where each is in the kernel's source, then what became of it.
  auto placed = [&](StringRef name, const llvm::MapVector<Operation *, std::string> &notes) {
    SmallVector<Attribute> lines;
    for (auto [op, note] : notes)
      lines.push_back(builder.getStringAttr(describeLocation(op->getLoc()) + ": " + note));
    if (!lines.empty())
      func->setAttr(name, builder.getArrayAttr(lines));
  };
  placed(kDotsAttrName, lowering.dotInstructions);
  placed(kPipelinesAttrName, lowering.loopPipelines);
  kernel.erase();
  return success();
}

struct TileGpuDistribute : impl::TileGpuDistributeBase<TileGpuDistribute> {
  using Base::Base;

  void runOnOperation() override {
    if (numStages < 1) {
      getOperation().emitError("tile-gpu-distribute: num-stages must be at least 1");
      return signalPassFailure();
    }
    ModuleOp module = getOperation();
    SmallVector<tile::FuncOp> kernels, deviceFunctions;
    for (auto func : module.getOps<tile::FuncOp>())
      (func.isKernel() ? kernels : deviceFunctions).push_back(func);
    bool failedAny = false;
    for (tile::FuncOp kernel : kernels)
      failedAny |=
          failed(distributeKernel(kernel, numStages, tensorMaps, warpSpecialize, readBackLoads));
    if (failedAny)
      return signalPassFailure();
    // Every call was inlined (a remaining one failed above): the device
    // functions have no users left.
    for (tile::FuncOp function : deviceFunctions)
      function.erase();
    module->setAttr(mlir::gpu::GPUDialect::getContainerModuleAttrName(), UnitAttr::get(&getContext()));
  }
};

} // namespace

} // namespace tessera::gpu
