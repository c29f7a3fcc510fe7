#include "lowering/gpu/distribute/DistributedValues.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace tessera::gpu {

Value i32Constant(OpBuilder &builder, Location loc, int64_t value) {
  return arith::ConstantIntOp::create(builder, loc, value, 32);
}

ThreadContext::ThreadContext(Block &entry, Location loc, unsigned warpSize, unsigned numWarps,
                             bool broadcastWarp)
    : warpSize_(warpSize), numWarps_(numWarps), loc_(loc), prologue_(entry.getParent()->getContext()) {
  OpBuilder builder = OpBuilder::atBlockBegin(&entry);
  Value tid = mlir::gpu::ThreadIdOp::create(builder, loc, mlir::gpu::Dimension::x);
  threadId_ = arith::IndexCastUIOp::create(builder, loc, builder.getI32Type(), tid);
  Value size = i32Constant(builder, loc, warpSize);
  lane_ = arith::RemUIOp::create(builder, loc, threadId_, size);
  warp_ = arith::DivUIOp::create(builder, loc, threadId_, size);
  if (broadcastWarp)
    warp_ = mlir::gpu::ShuffleOp::create(builder, loc, warp_, /*offset=*/0, warpSize,
                                         mlir::gpu::ShuffleMode::IDX)
                .getShuffleResult();
  // Everything the prologue builder creates lands before this constant, so
  // before every op of the kernel body, which is appended after it.
  Operation *anchor = i32Constant(builder, loc, 0).getDefiningOp();
  prologue_.setInsertionPoint(anchor);
}

Value ThreadContext::bitOf(Value index, unsigned bit) {
  Value shifted = bit ? Value(arith::ShRUIOp::create(prologue_, loc_, index, i32Constant(prologue_, loc_, bit)))
                      : index;
  return arith::AndIOp::create(prologue_, loc_, shifted, i32Constant(prologue_, loc_, 1));
}

ThreadContext::ThreadPart &ThreadContext::threadPart(const LinearLayout &layout) {
  std::vector<int64_t> key{static_cast<int64_t>(layout.rank()),
                           static_cast<int64_t>(layout.lanes.size())};
  for (auto bases : {llvm::ArrayRef(layout.lanes), llvm::ArrayRef(layout.warps)})
    for (const Basis &basis : bases)
      key.insert(key.end(), basis.begin(), basis.end());
  auto [it, inserted] = parts_.try_emplace(std::move(key));
  ThreadPart &part = it->second;
  if (!inserted)
    return part;
  part.coordinates.assign(layout.rank(), Value());
  auto contribute = [&](llvm::ArrayRef<Basis> bases, Value index) {
    for (auto [bit, basis] : llvm::enumerate(bases)) {
      for (unsigned dim = 0; dim < layout.rank(); ++dim) {
        int64_t step = basis[dim];
        if (step == 0)
          continue;
        Value term = bitOf(index, bit);
        term = llvm::isPowerOf2_64(step)
                   ? Value(arith::ShLIOp::create(prologue_, loc_, term,
                                           i32Constant(prologue_, loc_, llvm::Log2_64(step))))
                   : Value(arith::MulIOp::create(prologue_, loc_, term, i32Constant(prologue_, loc_, step)));
        Value &acc = part.coordinates[dim];
        acc = acc ? Value(arith::XOrIOp::create(prologue_, loc_, acc, term)) : term;
      }
    }
  };
  contribute(layout.lanes, lane_);
  contribute(layout.warps, warp_);
  return part;
}

Value ThreadContext::coordinate(OpBuilder &builder, Location loc, const LinearLayout &layout,
                                unsigned reg, unsigned dim) {
  int64_t offset = layout.registerOffset(reg)[dim];
  Value part = threadPart(layout).coordinates[dim];
  if (!part)
    return i32Constant(builder, loc, offset);
  if (offset == 0)
    return part;
  // Where the thread part leaves the offset's bits clear, the XOR is a sum
  // that cannot wrap: as one, the offset is a constant term that later
  // arithmetic carries outward (withConstantOutermost) into the addresses.
  if ((layout.threadBits(dim) & offset) == 0)
    return arith::AddIOp::create(
        builder, loc, part, i32Constant(builder, loc, offset),
        arith::IntegerOverflowFlags::nsw | arith::IntegerOverflowFlags::nuw);
  return arith::XOrIOp::create(builder, loc, part, i32Constant(builder, loc, offset));
}

Value ThreadContext::flatIndex(OpBuilder &builder, Location loc, const LinearLayout &layout,
                               unsigned reg, int64_t rowPadding) {
  // Coordinates and indices are non-negative and below a tile's element
  // count: saying that the arithmetic cannot wrap lets LLVM move the constant
  // part of an index through the widening to 64-bit addresses, into the
  // immediate offset of each shared-memory access.
  constexpr auto noWrap = arith::IntegerOverflowFlags::nsw | arith::IntegerOverflowFlags::nuw;
  Value index;
  int64_t stride = 1;
  for (int dim = static_cast<int>(layout.rank()) - 1; dim >= 0; --dim) {
    Value term = coordinate(builder, loc, layout, reg, dim);
    if (stride != 1)
      term = arith::MulIOp::create(builder, loc, term, i32Constant(builder, loc, stride), noWrap);
    index = index ? Value(arith::AddIOp::create(builder, loc, index, term, noWrap)) : term;
    stride *= layout.shape[dim] + (dim + 1 == static_cast<int>(layout.rank()) ? rowPadding : 0);
  }
  return index ? index : i32Constant(builder, loc, 0);
}

Value ThreadContext::ownsElements(const LinearLayout &layout) {
  ThreadPart &part = threadPart(layout);
  if (part.ownerComputed)
    return part.owner;
  part.ownerComputed = true;
  auto zeroBits = [](llvm::ArrayRef<Basis> bases) {
    int64_t mask = 0;
    for (auto [bit, basis] : llvm::enumerate(bases))
      if (isZero(basis))
        mask |= int64_t(1) << bit;
    return mask;
  };
  for (auto [bases, index] : {std::pair(llvm::ArrayRef(layout.lanes), lane_),
                              std::pair(llvm::ArrayRef(layout.warps), warp_)}) {
    int64_t mask = zeroBits(bases);
    if (!mask)
      continue;
    Value masked = arith::AndIOp::create(prologue_, loc_, index, i32Constant(prologue_, loc_, mask));
    Value first = arith::CmpIOp::create(prologue_, loc_, arith::CmpIPredicate::eq, masked,
                                        i32Constant(prologue_, loc_, 0));
    part.owner = part.owner ? Value(arith::AndIOp::create(prologue_, loc_, part.owner, first)) : first;
  }
  return part.owner;
}

Value ThreadContext::isFirstThread() {
  if (!firstThread_)
    firstThread_ = arith::CmpIOp::create(prologue_, loc_, arith::CmpIPredicate::eq, threadId_,
                                         i32Constant(prologue_, loc_, 0));
  return firstThread_;
}

std::optional<SmallVector<RegisterSource>>
registerRenaming(const LinearLayout &result, ArrayRef<LinearLayout> operands, CoordinateMap map) {
  // The first register holding each register offset, per operand.
  SmallVector<std::map<Basis, unsigned>> holders(operands.size());
  for (auto [operand, layout] : llvm::enumerate(operands))
    for (unsigned reg = 0; reg < layout.numRegisters(); ++reg)
      holders[operand].try_emplace(layout.registerOffset(reg), reg);

  SmallVector<RegisterSource> sources;
  for (unsigned reg = 0; reg < result.numRegisters(); ++reg) {
    auto [operand, coords] = map(result.registerOffset(reg));
    auto found = holders[operand].find(coords);
    if (found == holders[operand].end())
      return std::nullopt;
    RegisterSource source{operand, found->second};
    const LinearLayout &from = operands[operand];
    unsigned laneBits = std::max(result.lanes.size(), from.lanes.size());
    unsigned warpBits = std::max(result.warps.size(), from.warps.size());
    for (unsigned bit = 0; bit < laneBits + warpBits; ++bit) {
      unsigned lane = bit < laneBits ? 1u << bit : 0;
      unsigned warp = bit < laneBits ? 0 : 1u << (bit - laneBits);
      auto [otherOperand, needed] = map(result.coordinates(reg, lane, warp));
      if (otherOperand != operand || needed != from.coordinates(source.reg, lane, warp))
        return std::nullopt;
    }
    sources.push_back(source);
  }
  return sources;
}

int64_t rowMajorIndex(ArrayRef<int64_t> shape, ArrayRef<int64_t> coords) {
  int64_t index = 0;
  for (auto [extent, coord] : llvm::zip(shape, coords))
    index = index * extent + coord;
  return index;
}

Basis rowMajorCoordinates(ArrayRef<int64_t> shape, int64_t index) {
  Basis coords(shape.size(), 0);
  for (int dim = static_cast<int>(shape.size()) - 1; dim >= 0; --dim) {
    coords[dim] = index % shape[dim];
    index /= shape[dim];
  }
  return coords;
}

} // namespace tessera::gpu
