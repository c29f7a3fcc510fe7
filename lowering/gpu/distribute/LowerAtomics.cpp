// tile.atomic_rmw and tile.atomic_cas. Each element must be updated exactly
// once, so only the first copy of each element (its first register in its
// first thread; thread 0 for scalars) performs the atomic. Where the old
// values are used, the threads holding copies get them from the performing
// thread through workgroup memory.
//
// Every atomic becomes memref.atomic_rmw (or memref.generic_atomic_rmw for
// compare-and-swap), which the target pipelines lower with acq_rel ordering at
// system scope: at least as strong as any `sem`/`scope` the op asks for.
#include "lowering/gpu/distribute/KernelLowering.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace tessera::gpu {

namespace {

arith::AtomicRMWKind rmwKind(tile::RMWOp op, Type element) {
  bool isFloat = isa<FloatType>(element);
  switch (op) {
  case tile::RMWOp::Add:
    return arith::AtomicRMWKind::addi;
  case tile::RMWOp::FAdd:
    return arith::AtomicRMWKind::addf;
  // Floats follow fmaxf/fminf: a NaN operand is ignored.
  case tile::RMWOp::Max:
    return isFloat ? arith::AtomicRMWKind::maxnumf : arith::AtomicRMWKind::maxs;
  case tile::RMWOp::Min:
    return isFloat ? arith::AtomicRMWKind::minnumf : arith::AtomicRMWKind::mins;
  case tile::RMWOp::UMax:
    return arith::AtomicRMWKind::maxu;
  case tile::RMWOp::UMin:
    return arith::AtomicRMWKind::minu;
  case tile::RMWOp::And:
    return arith::AtomicRMWKind::andi;
  case tile::RMWOp::Or:
    return arith::AtomicRMWKind::ori;
  case tile::RMWOp::Xor:
    return arith::AtomicRMWKind::xori;
  case tile::RMWOp::Xchg:
    return arith::AtomicRMWKind::assign;
  }
  llvm_unreachable("unknown atomic operation");
}

/// Compare-and-swap on the bits: floats compare by representation, as
/// hardware CAS does.
Value compareAndSwap(OpBuilder &builder, Location loc, Value base, Value offset, Value cmp,
                     Value val) {
  auto rmw = memref::GenericAtomicRMWOp::create(builder, loc, base, ValueRange{offset});
  OpBuilder body = OpBuilder::atBlockBegin(rmw.getBody());
  Value current = rmw.getCurrentValue();
  Value currentBits = current, cmpBits = cmp;
  if (auto floatType = dyn_cast<FloatType>(current.getType())) {
    Type bits = body.getIntegerType(floatType.getWidth());
    currentBits = arith::BitcastOp::create(body, loc, bits, current);
    cmpBits = arith::BitcastOp::create(body, loc, bits, cmp);
  }
  Value equal = arith::CmpIOp::create(body, loc, arith::CmpIPredicate::eq, currentBits, cmpBits);
  memref::AtomicYieldOp::create(body, loc, arith::SelectOp::create(body, loc, equal, val, current));
  return rmw.getResult();
}

/// The old value of a scalar atomic performed by thread 0, for every thread.
FailureOr<Value> broadcastFromFirstThread(KernelLowering &k, Operation *op, OpBuilder &builder,
                                          Value value) {
  Location loc = op->getLoc();
  FailureOr<SmallVector<Value>> buffers =
      k.shared.beginUserWith(op, {{sharedElementType(value.getType()), 1}});
  if (failed(buffers))
    return failure();
  Value buffer = buffers->front();
  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  {
    OpBuilder::InsertionGuard insertion(builder);
    auto ifOp = scf::IfOp::create(builder, loc, k.thread.isFirstThread(), false);
    builder.setInsertionPointToStart(&ifOp.getThenRegion().front());
    memref::StoreOp::create(builder, loc, toSharedElement(builder, loc, value), buffer, zero);
  }
  mlir::gpu::BarrierOp::create(builder, loc);
  Value stored = memref::LoadOp::create(builder, loc, buffer, zero);
  k.shared.endUser(builder, loc);
  return fromSharedElement(builder, loc, stored, value.getType());
}

} // namespace

LogicalResult lowerAtomic(KernelLowering &k, Operation *op, OpBuilder &builder) {
  Location loc = op->getLoc();
  auto rmw = dyn_cast<tile::AtomicRMWOp>(op);
  auto cas = dyn_cast<tile::AtomicCASOp>(op);
  Value pointer = rmw ? rmw.getPtr() : cas.getPtr();
  Value result = op->getResult(0);
  Type element = result.getType().isIntOrFloat() ? result.getType()
                                                 : getElementTypeOrSelf(result.getType());
  Value base = k.pointerBase(pointer);
  Registers offsets = k.registers(pointer);

  FailureOr<KernelLowering::Writers> writers = k.writersOf(op, pointer);
  if (failed(writers))
    return failure();
  const std::optional<LinearLayout> &layout = writers->layout;
  Value owner = writers->owner;

  Value zero = arith::ConstantOp::create(builder, loc, cast<TypedAttr>(builder.getZeroAttr(element)));
  Registers old;
  for (unsigned reg = 0; reg < offsets.size(); ++reg) {
    if (layout && layout->isDuplicateRegister(reg)) {
      old.push_back(zero);
      continue;
    }
    Value guard = owner;
    if (rmw && rmw.getMask()) {
      Value mask = k.registers(rmw.getMask())[reg];
      guard = guard ? Value(arith::AndIOp::create(builder, loc, guard, mask)) : mask;
    }
    auto perform = [&](OpBuilder &b, Location loc) -> Value {
      if (rmw)
        return memref::AtomicRMWOp::create(b, loc, rmwKind(rmw.getRmwOp(), element),
                                           k.registers(rmw.getVal())[reg], base, offsets[reg]);
      return compareAndSwap(b, loc, base, offsets[reg], k.registers(cas.getCmp())[reg],
                            k.registers(cas.getVal())[reg]);
    };
    if (!guard) {
      old.push_back(perform(builder, loc));
      continue;
    }
    auto ifOp = scf::IfOp::create(
        builder, loc, guard,
        [&](OpBuilder &then, Location loc) {
          scf::YieldOp::create(then, loc, perform(then, loc));
        },
        [&](OpBuilder &otherwise, Location loc) { scf::YieldOp::create(otherwise, loc, zero); });
    old.push_back(ifOp.getResult(0));
  }

  bool copiesNeedOldValues =
      !result.use_empty() &&
      (!layout || owner || llvm::any_of(llvm::seq(layout ? layout->numRegisters() : 0u),
                                        [&](unsigned reg) { return layout->isDuplicateRegister(reg); }));
  if (!copiesNeedOldValues) {
    k.map(result, std::move(old));
    return success();
  }
  if (!layout) {
    FailureOr<Value> shared = broadcastFromFirstThread(k, op, builder, old.front());
    if (failed(shared))
      return failure();
    k.map(result, {*shared});
    return success();
  }
  FailureOr<Registers> shared =
      exchangeThroughShared(k, op, builder, old, *layout, *layout, element, /*ownersOnly=*/true);
  if (failed(shared))
    return failure();
  k.map(result, std::move(*shared));
  return success();
}

} // namespace tessera::gpu
