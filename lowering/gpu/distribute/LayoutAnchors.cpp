#include "lowering/gpu/distribute/LayoutAnchors.h"

#include "lowering/gpu/tensorcore/TensorCore.h"

#include "llvm/ADT/bit.h"

using namespace mlir;

namespace tessera::gpu {

namespace {

constexpr unsigned kVectorBits = 128;
/// The narrowest store worth keeping a value's layout for.
constexpr unsigned kWordBits = 32;
/// Consecutive rows of an 8-bit operand per thread where shared memory keeps
/// them together: one 32-bit store.
constexpr unsigned kPackedRows = 4;

} // namespace

unsigned elementBits(Type element) {
  if (isa<tile::PointerType>(element))
    return 64;
  return std::max(8u, element.getIntOrFloatBitWidth());
}

int64_t LayoutAnchors::elementsPerThread(ArrayRef<int64_t> shape) const {
  int64_t elements = 1;
  for (int64_t size : shape)
    elements *= size;
  return elements / (int64_t(target.warpSize) * numWarps);
}

LinearLayout LayoutAnchors::defaultWithVectors(ArrayRef<int64_t> shape, Type element,
                                               int64_t maxVector) const {
  // A vector wider than a tile's share per thread would leave threads
  // holding copies of others' elements, each loading them again: a 1024-wide
  // fp16 row on 8 warps takes 4 elements a thread, not 8 on half the warps.
  int64_t vector = std::min({int64_t(std::max(1u, kVectorBits / elementBits(element))),
                             maxVector, std::max<int64_t>(1, elementsPerThread(shape))});
  return LinearLayout::defaultFor(shape, target.warpSize, numWarps,
                                  static_cast<unsigned>(llvm::bit_floor(uint64_t(vector))));
}

LinearLayout LayoutAnchors::fallback(RankedTensorType type) const {
  return defaultWithVectors(type.getShape(), type.getElementType());
}

LinearLayout LayoutAnchors::descriptorBlock(RankedTensorType block) const {
  return defaultWithVectors(block.getShape(), block.getElementType());
}

LinearLayout LayoutAnchors::memoryAccess(Value ptrTile, bool vectorize) {
  auto type = cast<RankedTensorType>(ptrTile.getType());
  Type pointee = cast<tile::PointerType>(type.getElementType()).getPointeeType();
  int64_t contiguous = vectorize ? contiguity.contiguousRuns(ptrTile).elements : 1;
  return defaultWithVectors(type.getShape(), pointee, contiguous);
}

bool LayoutAnchors::storesAsItIs(Value ptrTile, const LinearLayout &layout) {
  auto type = cast<RankedTensorType>(ptrTile.getType());
  Type pointee = cast<tile::PointerType>(type.getElementType()).getPointeeType();
  unsigned bits = elementBits(pointee);
  int64_t widest = std::min<int64_t>(std::max(1u, kVectorBits / bits),
                                     contiguity.contiguousRuns(ptrTile).elements);
  for (int64_t vector = widest / 2; vector * bits >= kWordBits; vector /= 2)
    if (defaultWithVectors(type.getShape(), pointee, vector) == layout)
      return true;
  return false;
}

LinearLayout LayoutAnchors::operandLoad(tile::LoadOp load, const LinearLayout &access) const {
  Value loaded = load.getResult();
  auto type = cast<RankedTensorType>(loaded.getType());
  auto dot = loaded.hasOneUse() ? dyn_cast<tile::DotOp>(*loaded.user_begin()) : tile::DotOp();
  if (!dot || dot.getB() != loaded || type.getRank() != 2 ||
      elementBits(type.getElementType()) != 8 || !target.hasVectorAccesses())
    return access;
  std::unique_ptr<TensorCoreDot> instruction =
      selectTensorCoreDot(target, dotProblemOf(dot), numWarps);
  if (!instruction || instruction->contiguousRows(DotOperand::B) < kPackedRows)
    return access;
  ArrayRef<int64_t> shape = type.getShape();
  int64_t perThread = elementsPerThread(shape);
  if (shape[0] < kPackedRows || perThread < kPackedRows)
    return access;
  unsigned vector = std::min<int64_t>(access.contiguousRegisters(), perThread / kPackedRows);
  return LinearLayout::defaultFor(shape, target.warpSize, numWarps, vector, kPackedRows);
}

FailureOr<LinearLayout> LayoutAnchors::dotResult(tile::DotOp dot) const {
  auto accType = cast<RankedTensorType>(dot.getAcc().getType());
  ArrayRef<int64_t> acc = accType.getShape();
  DotProblem problem = dotProblemOf(dot);
  std::unique_ptr<TensorCoreDot> instruction = selectTensorCoreDot(target, problem, numWarps);
  if (!instruction)
    return fallback(accType);
  LinearLayout layout = instruction->accumulatorLayout();
  if (layout.shape != SmallVector<int64_t, 4>{problem.m, problem.n} || !layout.isValid() ||
      layout.numLanes() != target.warpSize || layout.numWarps() != numWarps)
    return dot.emitError() << "the accumulator layout of " << instruction->name() << " ("
                           << layout.str() << ") does not fit a [" << problem.m << ", "
                           << problem.n << "] tile on " << numWarps << " warps of "
                           << target.warpSize << " for target " << target.str();
  if (acc.size() == 3)
    return layout.withLeadingBatch(acc[0]);
  return layout;
}

} // namespace tessera::gpu
