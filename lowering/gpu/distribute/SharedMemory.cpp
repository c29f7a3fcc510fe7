#include "lowering/gpu/distribute/SharedMemory.h"

#include "lowering/gpu/DistributedFormAttrs.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace tessera::gpu {

namespace {

constexpr llvm::StringLiteral kAlignAttr = "llvm.align";

Attribute workgroupSpace(MLIRContext *context) {
  return mlir::gpu::AddressSpaceAttr::get(context, mlir::gpu::AddressSpace::Workgroup);
}

/// A 1-D workgroup buffer of `elements` values of `elementType`.
MemRefType bufferType(Type elementType, int64_t elements) {
  return MemRefType::get({elements}, elementType, MemRefLayoutAttrInterface(),
                         workgroupSpace(elementType.getContext()));
}

} // namespace

int64_t storageBytes(Type type) { return llvm::divideCeil(type.getIntOrFloatBitWidth(), 8); }

SharedMemory::SharedMemory(mlir::gpu::GPUFuncOp func, const GpuTarget &target, ThreadContext &thread)
    : func_(func), target_(target), thread_(thread) {}

void SharedMemory::startUser(int64_t bytes) {
  int64_t previousEnd = userBytes_;
  userBytes_ = reservedBytes_;
  for (Attribution &attribution : attributions_) {
    attribution.usedByPreviousUser = attribution.inUse && !attribution.reserved;
    attribution.inUse = attribution.reserved;
  }
  avoidPreviousUser_ = bytes > 0 && attributionBytes_ + bytes <= kStaggeredBytes;
  if (bytes <= 0 || !usesDynamicMemory())
    return;
  int64_t staggeredEnd = int64_t(llvm::alignTo(previousEnd, kMinAlignment)) + bytes;
  if (staggeredEnd <= std::max(peakBytes_, reservedBytes_ + kStaggeredBytes) &&
      staggeredEnd <= target_.maxSharedMemoryBytes)
    userBytes_ = previousEnd;
}

void SharedMemory::endUser(OpBuilder &builder, Location loc) {
  mlir::gpu::BarrierOp::create(builder, loc)->setAttr(kBarrierEndsSharedMemoryUser,
                                                      builder.getUnitAttr());
}

FailureOr<SmallVector<Value>> SharedMemory::beginUserWith(Operation *user,
                                                          ArrayRef<BufferRequest> buffers) {
  int64_t bytes = 0;
  for (const BufferRequest &buffer : buffers)
    bytes += llvm::alignTo(buffer.elements * storageBytes(buffer.elementType), kMinAlignment);
  startUser(bytes);
  SmallVector<Value> allocated;
  for (const BufferRequest &buffer : buffers) {
    FailureOr<Value> value = allocate(user, buffer.elementType, buffer.elements);
    if (failed(value))
      return failure();
    allocated.push_back(*value);
  }
  return allocated;
}

FailureOr<Value> SharedMemory::allocate(Operation *user, Type elementType, int64_t elements,
                                        int64_t alignment) {
  return place(user, elementType, elements, alignment, /*reserve=*/false);
}

bool SharedMemory::canAllocate(Type elementType, int64_t elements, int64_t alignment) const {
  int64_t bytes = elements * storageBytes(elementType);
  if (usesDynamicMemory())
    return fitsAfter(userBytes_, alignment, bytes);
  return freeAttribution(bufferType(elementType, elements), alignment) ||
         attributionBytes_ + int64_t(llvm::alignTo(bytes, alignment)) <=
             target_.maxSharedMemoryBytes;
}

bool SharedMemory::fitsNewUser(Type elementType, int64_t elements, int64_t alignment) const {
  return usesDynamicMemory() &&
         fitsAfter(reservedBytes_, alignment, elements * storageBytes(elementType));
}

bool SharedMemory::fitsAfter(int64_t usedBytes, int64_t alignment, int64_t bytes) const {
  return int64_t(llvm::alignTo(usedBytes, alignment)) + bytes <= target_.maxSharedMemoryBytes;
}

std::optional<size_t> SharedMemory::freeAttribution(MemRefType type, int64_t alignment) const {
  mlir::gpu::GPUFuncOp func = func_;
  std::optional<size_t> best;
  for (auto [index, attribution] : llvm::enumerate(attributions_)) {
    auto aligned = func.getWorkgroupAttributionAttr(index, kAlignAttr);
    if (attribution.inUse || (avoidPreviousUser_ && attribution.usedByPreviousUser) ||
        attribution.type.getElementType() != type.getElementType() ||
        attribution.type.getNumElements() < type.getNumElements() || !aligned ||
        cast<IntegerAttr>(aligned).getInt() % alignment != 0)
      continue;
    if (!best || attribution.type.getNumElements() < attributions_[*best].type.getNumElements())
      best = index;
  }
  return best;
}

FailureOr<Value> SharedMemory::reserve(Operation *user, Type elementType, int64_t elements,
                                       int64_t alignment) {
  beginUser();
  FailureOr<Value> buffer = place(user, elementType, elements, alignment, /*reserve=*/true);
  beginUser();
  return buffer;
}

void SharedMemory::release(Mark mark) {
  reservedBytes_ = mark.reservedBytes;
  for (size_t index : llvm::drop_begin(reserved_, mark.reservedAttributions))
    attributions_[index].reserved = false;
  reserved_.resize(mark.reservedAttributions);
  beginUser();
}

void SharedMemory::cancel(Mark mark) {
  release(mark);
  peakBytes_ = mark.peakBytes;
}

int64_t SharedMemory::conversionRowPadding(ArrayRef<int64_t> shape, Type elementType) const {
  int64_t rows = 1;
  for (int64_t extent : shape.drop_back())
    rows *= extent;
  if (!usesDynamicMemory() || rows < 2)
    return 0;
  int64_t padding = 16 / storageBytes(elementType);
  int64_t bytes = rows * (shape.back() + padding) * storageBytes(elementType);
  return fitsAfter(userBytes_, kMinAlignment, bytes) ? padding : 0;
}

FailureOr<Value> SharedMemory::place(Operation *user, Type elementType, int64_t elements,
                                     int64_t alignment, bool reserve) {
  MLIRContext *context = user->getContext();
  MemRefType type = bufferType(elementType, elements);
  int64_t bytes = elements * storageBytes(elementType);
  auto tooLarge = [&](int64_t total) {
    return user->emitOpError() << "needs " << total << " bytes of shared memory in all, more than the "
                               << target_.maxSharedMemoryBytes << " bytes one program has on "
                               << target_.str();
  };

  if (usesDynamicMemory()) {
    int64_t offset = llvm::alignTo(userBytes_, alignment);
    userBytes_ = offset + bytes;
    if (reserve)
      reservedBytes_ = userBytes_;
    peakBytes_ = std::max(peakBytes_, userBytes_);
    if (peakBytes_ > target_.maxSharedMemoryBytes)
      return tooLarge(peakBytes_);
    OpBuilder &builder = thread_.prologue();
    Location loc = func_.getLoc();
    if (!dynamicBase_)
      dynamicBase_ = mlir::gpu::DynamicSharedMemoryOp::create(
          builder, loc,
          MemRefType::get({ShapedType::kDynamic}, builder.getI8Type(), MemRefLayoutAttrInterface(),
                          workgroupSpace(context)));
    Value shift = arith::ConstantIndexOp::create(builder, loc, offset);
    return memref::ViewOp::create(builder, loc, type, dynamicBase_, shift, ValueRange()).getResult();
  }

  auto claim = [&](size_t index) {
    attributions_[index].inUse = true;
    if (reserve) {
      attributions_[index].reserved = true;
      reserved_.push_back(index);
    }
    return attributions_[index].buffer;
  };
  if (std::optional<size_t> free = freeAttribution(type, alignment))
    return claim(*free);
  attributionBytes_ += llvm::alignTo(bytes, alignment);
  if (attributionBytes_ > target_.maxSharedMemoryBytes)
    return tooLarge(attributionBytes_);
  Value buffer = func_.addWorkgroupAttribution(type, func_.getLoc());
  // The GPU-to-LLVM lowering gives the attribution's global this alignment.
  func_.setWorkgroupAttributionAttr(func_.getNumWorkgroupAttributions() - 1, kAlignAttr,
                                    Builder(context).getI64IntegerAttr(alignment));
  attributions_.push_back({type, buffer});
  return claim(attributions_.size() - 1);
}

namespace {
/// A vector access to a row-major buffer at a run's start is aligned to its
/// own size (runs start at multiples of their length, buffers at 16 bytes).
llvm::MaybeAlign vectorAlignment(VectorType type) {
  return llvm::MaybeAlign(type.getNumElements() * type.getElementTypeBitWidth() / 8);
}
} // namespace

Type sharedElementType(Type type) {
  if (type.isInteger(1))
    return IntegerType::get(type.getContext(), 8);
  if (type.isIndex())
    return IntegerType::get(type.getContext(), 64);
  return type;
}

Value toSharedElement(OpBuilder &builder, Location loc, Value value) {
  Type type = value.getType();
  if (type.isInteger(1))
    return arith::ExtUIOp::create(builder, loc, builder.getI8Type(), value);
  if (type.isIndex())
    return arith::IndexCastOp::create(builder, loc, builder.getI64Type(), value);
  return value;
}

Value fromSharedElement(OpBuilder &builder, Location loc, Value stored, Type registerType) {
  if (registerType.isInteger(1))
    return arith::TruncIOp::create(builder, loc, registerType, stored);
  if (registerType.isIndex())
    return arith::IndexCastOp::create(builder, loc, registerType, stored);
  return stored;
}

Value toIndex(OpBuilder &builder, Location loc, Value i32) {
  return arith::IndexCastOp::create(builder, loc, builder.getIndexType(), i32);
}

Value indexConstant(OpBuilder &builder, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(builder, loc, value);
}

namespace {
/// No register basis moves along a coordinate bit that a lane or warp basis
/// moves along.
bool registerBitsApartFromThreadBits(const LinearLayout &layout) {
  for (unsigned dim = 0; dim < layout.rank(); ++dim) {
    int64_t registerBits = 0;
    for (const Basis &basis : layout.registers)
      registerBits |= basis[dim];
    if (layout.threadBits(dim) & registerBits)
      return false;
  }
  return true;
}
} // namespace

RegisterIndices::RegisterIndices(ThreadContext &thread, OpBuilder &builder, Location loc,
                                 const LinearLayout &layout, int64_t rowPadding)
    : thread_(thread), layout_(layout), rowPadding_(rowPadding), paddedShape_(layout.shape),
      registerOffsetsAdd_(registerBitsApartFromThreadBits(layout)),
      first_(toIndex(builder, loc, thread.flatIndex(builder, loc, layout, 0, rowPadding))) {
  if (!paddedShape_.empty())
    paddedShape_.back() += rowPadding;
}

Value RegisterIndices::operator()(OpBuilder &builder, Location loc, unsigned reg) const {
  if (reg == 0)
    return first_;
  if (!registerOffsetsAdd_)
    return toIndex(builder, loc, thread_.flatIndex(builder, loc, layout_, reg, rowPadding_));
  int64_t offset = rowMajorIndex(paddedShape_, layout_.registerOffset(reg));
  if (offset == 0)
    return first_;
  return arith::AddIOp::create(builder, loc, first_, indexConstant(builder, loc, offset),
                               arith::IntegerOverflowFlags::nsw | arith::IntegerOverflowFlags::nuw);
}

void storeTileToShared(ThreadContext &thread, OpBuilder &builder, Location loc, Value buffer,
                       const LinearLayout &layout, ValueRange registers, bool ownersOnly,
                       ValueRange predicates, int64_t rowPadding) {
  Value owner = ownersOnly ? thread.ownsElements(layout) : Value();
  RegisterIndices indices(thread, builder, loc, layout, rowPadding);
  for (unsigned reg = 0; reg < layout.numRegisters(); ++reg) {
    if (layout.isDuplicateRegister(reg))
      continue;
    Value guard = owner;
    if (!predicates.empty())
      guard = guard ? Value(arith::AndIOp::create(builder, loc, guard, predicates[reg])) : predicates[reg];
    Value index = indices(builder, loc, reg);
    OpBuilder::InsertionGuard insertion(builder);
    if (guard) {
      auto ifOp = scf::IfOp::create(builder, loc, guard, /*withElseRegion=*/false);
      builder.setInsertionPointToStart(&ifOp.getThenRegion().front());
    }
    memref::StoreOp::create(builder, loc, toSharedElement(builder, loc, registers[reg]), buffer,
                            index);
  }
}

Registers loadTileFromShared(ThreadContext &thread, OpBuilder &builder, Location loc, Value buffer,
                             const LinearLayout &layout, Type registerType, unsigned width,
                             int64_t rowPadding) {
  Registers registers;
  auto type = VectorType::get({int64_t(width)}, sharedElementType(registerType));
  RegisterIndices indices(thread, builder, loc, layout, rowPadding);
  for (unsigned first = 0; first < layout.numRegisters(); first += width) {
    Value index = indices(builder, loc, first);
    if (width == 1) {
      Value stored = memref::LoadOp::create(builder, loc, buffer, index);
      registers.push_back(fromSharedElement(builder, loc, stored, registerType));
      continue;
    }
    Value vector = vector::LoadOp::create(builder, loc, type, buffer, ValueRange{index},
                                          /*nontemporal=*/false, vectorAlignment(type));
    for (unsigned i = 0; i < width; ++i)
      registers.push_back(fromSharedElement(
          builder, loc, vector::ExtractOp::create(builder, loc, vector, int64_t(i)), registerType));
  }
  return registers;
}

} // namespace tessera::gpu
