// Pointers and the loads and stores through them. A pointer is an element
// offset (index) per register into one kernel argument, its base, known at
// compile time. A load or store is one memref access per register, under an
// scf.if where it is masked, or, on NVIDIA and AMD, one vector access per run
// of registers holding a contiguous piece of a row where that run is aligned
// and unmasked at run time.
//
// Cache modifiers and eviction policies are hints and are dropped; so is
// `volatile`, which memref.load cannot express.
#include "lowering/gpu/distribute/ElementAccess.h"
#include "lowering/gpu/distribute/KernelLowering.h"

#include "llvm/ADT/bit.h"

using namespace mlir;

namespace tessera::gpu {

namespace {

Value zeroOf(OpBuilder &builder, Location loc, Type type) {
  return arith::ConstantOp::create(builder, loc, cast<TypedAttr>(builder.getZeroAttr(type)));
}

LogicalResult lowerAddPtr(KernelLowering &k, tile::AddPtrOp op, OpBuilder &builder) {
  Location loc = op.getLoc();
  const Registers &pointers = k.registers(op.getPtr());
  const Registers &offsets = k.registers(op.getOffset());
  Registers regs;
  for (auto [pointer, offset] : llvm::zip(pointers, offsets)) {
    // index_cast sign-extends: negative offsets move backwards.
    Value step = arith::IndexCastOp::create(builder, loc, builder.getIndexType(), offset);
    regs.push_back(arith::AddIOp::create(builder, loc, pointer, step));
  }
  k.map(op, std::move(regs), k.pointerBase(op.getPtr()));
  return success();
}

/// How a load or store through `ptrTile` under `mask` moves runs of
/// registers: the run of its layout (vectorAccessWidth) as far as the
/// contiguity analysis proves the addresses consecutive (whole rows or
/// aligned pieces, maybe to be checked at run time), else one register at a
/// time; provedAligned where it also proves every run aligned and its mask
/// constant over the run.
FailureOr<RunAccess> runAccessOf(KernelLowering &k, Operation *op, Value ptrTile, Value mask,
                                 Type element) {
  RunAccess runs{1, RunAddresses::Consecutive, Value()};
  if (!isa<RankedTensorType>(ptrTile.getType()))
    return runs;
  FailureOr<LinearLayout> layout = k.layout(op, ptrTile);
  if (failed(layout))
    return failure();
  tile::ContiguityAnalysis::ContiguousRuns contiguous = k.contiguity.contiguousRuns(ptrTile);
  int64_t width = std::min<int64_t>(vectorAccessWidth(k.target, *layout, element),
                                    contiguous.elements);
  runs.width = static_cast<unsigned>(llvm::bit_floor(uint64_t(std::max<int64_t>(width, 1))));
  if (runs.width < 2)
    return runs; // vector widths > 1 imply 8- to 64-bit numbers
  if (contiguous.checkEndpoints)
    runs.addresses = RunAddresses::WhenEndpointsAreConsecutive;
  int64_t runBytes = runs.width * element.getIntOrFloatBitWidth() / 8;
  runs.provedAligned =
      k.contiguity.runStartAlignment(ptrTile, runs.width, runBytes / runs.width) % runBytes == 0 &&
      (!mask || k.contiguity.piecesOf(mask).constancy % runs.width == 0);
  runs.predicated = k.target.vendor == GpuVendor::Nvidia;
  return runs;
}

SmallVector<ElementAccess> accessesOf(const Registers &offsets, const Registers &masks,
                                      Value owner, OpBuilder &builder, Location loc) {
  SmallVector<ElementAccess> accesses;
  for (unsigned reg = 0; reg < offsets.size(); ++reg) {
    Value condition = masks.empty() ? Value() : masks[reg];
    if (owner)
      condition = condition ? Value(arith::AndIOp::create(builder, loc, owner, condition)) : owner;
    accesses.push_back({offsets[reg], condition});
  }
  return accesses;
}

FailureOr<LoadAccesses> pointerLoadAccesses(KernelLowering &k, tile::LoadOp op,
                                            OpBuilder &builder) {
  Location loc = op.getLoc();
  LoadAccesses load;
  load.element = KernelLowering::registerType(op.getType());
  FailureOr<RunAccess> runs = runAccessOf(k, op, op.getPtr(), op.getMask(), load.element);
  if (failed(runs))
    return failure();
  load.base = k.pointerBase(op.getPtr());
  Registers masks = op.getMask() ? k.registers(op.getMask()) : Registers();
  load.accesses = accessesOf(k.registers(op.getPtr()), masks, Value(), builder, loc);
  load.runs = *runs;
  // Masked-off elements without `other` are undefined; zero is as good.
  load.fill = op.getOther() ? k.registers(op.getOther())
                            : Registers{zeroOf(builder, loc, load.element)};
  return load;
}

/// Registers that copy another (zero register bases: a [1, N] row kept in
/// the registers of its broadcast to [M, N]) are loaded once and shared:
/// LLVM would not merge the copies' loads, predicated PTX of their own, so
/// each copy would cost a load and registers. Copies come as whole runs.
LogicalResult lowerLoad(KernelLowering &k, Operation *op, OpBuilder &builder) {
  FailureOr<LoadAccesses> load = loadAccessesOf(k, op, builder);
  if (failed(load))
    return failure();
  std::optional<LinearLayout> layout;
  if (isa<RankedTensorType>(op->getResult(0).getType())) {
    FailureOr<LinearLayout> tileLayout = k.layout(op, op->getResult(0));
    if (failed(tileLayout))
      return failure();
    layout = *tileLayout;
  }
  auto isCopy = [&](unsigned reg) { return layout && layout->isDuplicateRegister(reg); };
  SmallVector<unsigned> issued;
  SmallVector<ElementAccess> accesses;
  SmallVector<unsigned> positionOf(load->accesses.size());
  for (unsigned reg = 0; reg < load->accesses.size(); ++reg) {
    if (isCopy(reg))
      continue;
    positionOf[reg] = issued.size();
    issued.push_back(reg);
    accesses.push_back(load->accesses[reg]);
  }
  Registers distinct =
      loadElements(builder, op->getLoc(), load->base, load->element, accesses, load->runs,
                   [&](OpBuilder &, unsigned i) { return load->fillOf(issued[i]); });
  Registers regs;
  for (unsigned reg = 0; reg < load->accesses.size(); ++reg)
    regs.push_back(distinct[positionOf[isCopy(reg) ? layout->firstCopy(reg) : reg]]);
  k.map(op->getResult(0), std::move(regs));
  return success();
}

LogicalResult lowerStore(KernelLowering &k, tile::StoreOp op, OpBuilder &builder) {
  Location loc = op.getLoc();
  // Each element is written once: by the first copy's register and thread.
  FailureOr<KernelLowering::Writers> writers = k.writersOf(op, op.getPtr());
  if (failed(writers))
    return failure();
  const std::optional<LinearLayout> &layout = writers->layout;
  Value owner = writers->owner;
  Type element = KernelLowering::registerType(op.getValue().getType());
  FailureOr<RunAccess> runs = runAccessOf(k, op, op.getPtr(), op.getMask(), element);
  if (failed(runs))
    return failure();
  Registers masks = op.getMask() ? k.registers(op.getMask()) : Registers();
  SmallVector<ElementAccess> accesses =
      accessesOf(k.registers(op.getPtr()), masks, owner, builder, loc);
  storeElements(builder, loc, k.pointerBase(op.getPtr()), accesses, k.registers(op.getValue()),
                *runs, [&](unsigned reg) { return layout && layout->isDuplicateRegister(reg); });
  return success();
}

/// A pointer to elements of another type: the same addresses, as indices
/// into a view of the memory as those elements (tgpu.reinterpret_pointer).
/// An index scales by the ratio of the sizes; a byte address that is no
/// multiple of the new size is misaligned, as in CUDA, and rounds down.
LogicalResult lowerPointerBitcast(KernelLowering &k, tile::BitcastOp op, OpBuilder &builder) {
  auto from = cast<tile::PointerType>(getElementTypeOrSelf(op.getSrc().getType()));
  auto to = cast<tile::PointerType>(getElementTypeOrSelf(op.getType()));
  Value base = k.pointerBase(op.getSrc());
  if (from.getPointeeType() == to.getPointeeType()) {
    k.map(op, k.registers(op.getSrc()), base);
    return success();
  }
  if (k.target.vendor == GpuVendor::Vulkan)
    return k.unsupported(op, "a pointer bitcast between element types (Vulkan's storage "
                             "buffers are arrays of one type)");
  int64_t fromBytes = storageBytes(from.getPointeeType());
  int64_t toBytes = storageBytes(to.getPointeeType());
  Location loc = op.getLoc();
  Value view = ReinterpretPointerOp::create(
      builder, loc, MemRefType::get({ShapedType::kDynamic}, to.getPointeeType()), base);
  Registers regs;
  for (Value index : k.registers(op.getSrc())) {
    if (fromBytes == toBytes)
      regs.push_back(index);
    else if (fromBytes > toBytes)
      regs.push_back(arith::MulIOp::create(
          builder, loc, index, arith::ConstantIndexOp::create(builder, loc, fromBytes / toBytes)));
    else
      regs.push_back(arith::FloorDivSIOp::create(
          builder, loc,
          arith::MulIOp::create(builder, loc, index,
                                arith::ConstantIndexOp::create(builder, loc, fromBytes)),
          arith::ConstantIndexOp::create(builder, loc, toBytes)));
  }
  k.map(op, std::move(regs), view);
  return success();
}

} // namespace

FailureOr<LoadAccesses> loadAccessesOf(KernelLowering &k, Operation *op, OpBuilder &builder) {
  if (auto load = dyn_cast<tile::LoadOp>(op))
    return pointerLoadAccesses(k, load, builder);
  return descriptorLoadAccesses(k, cast<tile::DescriptorLoadOp>(op), builder);
}

LogicalResult lowerPointerOp(KernelLowering &k, Operation *op, OpBuilder &builder) {
  if (auto addptr = dyn_cast<tile::AddPtrOp>(op))
    return lowerAddPtr(k, addptr, builder);
  if (isa<tile::LoadOp>(op))
    return lowerLoad(k, op, builder);
  if (auto store = dyn_cast<tile::StoreOp>(op))
    return lowerStore(k, store, builder);
  if (auto bitcast = dyn_cast<tile::BitcastOp>(op))
    return lowerPointerBitcast(k, bitcast, builder);
  if (isa<tile::IntToPtrOp>(op))
    return k.unsupported(op, "making pointers from integers");
  return k.unsupported(op, "turning pointers into integers");
}

} // namespace tessera::gpu
