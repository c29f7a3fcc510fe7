// tile.histogram: counts in a workgroup buffer of i32, one per bin. The
// threads zero it in the result's layout, add one for each element they own
// with a workgroup atomic (each element once: copies of an element in other
// registers or other threads are skipped), and read the counts back in the
// result's layout.
#include "lowering/gpu/distribute/KernelLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace tessera::gpu {

LogicalResult lowerHistogram(KernelLowering &k, tile::HistogramOp op, OpBuilder &builder) {
  FailureOr<LinearLayout> source = k.layout(op, op.getSrc());
  FailureOr<LinearLayout> result = k.layout(op, op.getResult());
  if (failed(source) || failed(result))
    return failure();
  Location loc = op.getLoc();
  Type i32 = builder.getI32Type();
  int64_t bins = op.getType().getNumElements();

  FailureOr<SmallVector<Value>> buffers = k.shared.beginUserWith(op, {{i32, bins}});
  if (failed(buffers))
    return failure();
  Value counts = buffers->front();
  storeTileToShared(k.thread, builder, loc, counts, *result,
                    Registers(result->numRegisters(), i32Constant(builder, loc, 0)),
                    /*ownersOnly=*/false);
  mlir::gpu::BarrierOp::create(builder, loc);

  const Registers &values = k.registers(op.getSrc());
  Registers mask = op.getMask() ? k.registers(op.getMask()) : Registers();
  Value owner = k.thread.ownsElements(*source);
  // Values narrower than i32 are widened with their sign: compared unsigned,
  // negative values are then above the bins too.
  bool wide = values.front().getType().getIntOrFloatBitWidth() > 32;
  Type valueType = wide ? values.front().getType() : i32;
  Value binCount = arith::ConstantOp::create(builder, loc, IntegerAttr::get(valueType, bins));
  for (unsigned reg = 0; reg < source->numRegisters(); ++reg) {
    if (source->isDuplicateRegister(reg))
      continue;
    Value value = values[reg];
    if (value.getType() != valueType)
      value = arith::ExtSIOp::create(builder, loc, valueType, value);
    Value counted =
        arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ult, value, binCount);
    for (Value also : {owner, mask.empty() ? Value() : mask[reg]})
      if (also)
        counted = arith::AndIOp::create(builder, loc, counted, also);
    OpBuilder::InsertionGuard insertion(builder);
    auto ifOp = scf::IfOp::create(builder, loc, counted, /*withElseRegion=*/false);
    builder.setInsertionPointToStart(&ifOp.getThenRegion().front());
    Value bin = wide ? Value(arith::TruncIOp::create(builder, loc, i32, value)) : value;
    memref::AtomicRMWOp::create(builder, loc, arith::AtomicRMWKind::addi,
                                i32Constant(builder, loc, 1), counts,
                                ValueRange{toIndex(builder, loc, bin)});
  }
  mlir::gpu::BarrierOp::create(builder, loc);
  Registers loaded = loadTileFromShared(k.thread, builder, loc, counts, *result, i32,
                                        vectorAccessWidth(k.target, *result, i32));
  k.shared.endUser(builder, loc);
  k.map(op, std::move(loaded));
  return success();
}

} // namespace tessera::gpu
