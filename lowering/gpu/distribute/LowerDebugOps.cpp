// tile.print and tile.assert. NVIDIA and AMD have a device printf
// (gpu.printf); Vulkan compute has none, so both ops are errors there.
//
// print: scalars are printed once, by thread 0; a tile is printed one element
// per line by the first thread holding it, with the element's coordinates:
//   <prefix>pid (0, 0, 0) idx (3, 1) 2.500000
// assert: on NVIDIA `cf.assert`, which convert-gpu-to-nvvm lowers to CUDA's
// __assertfail (message, file and line, then the kernel traps); on AMD a
// printf of location and message, then `llvm.intr.trap`.
#include "lowering/gpu/distribute/KernelLowering.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace tessera::gpu {

namespace {

std::string escapePercent(StringRef text) {
  std::string escaped;
  for (char c : text) {
    escaped += c;
    if (c == '%')
      escaped += '%';
  }
  return escaped;
}

/// The printf conversion for one register and the value to pass for it
/// (an integer read as unsigned where `isUnsigned`).
std::pair<std::string, Value> formatted(OpBuilder &builder, Location loc, Value value, bool hex,
                                        bool isUnsigned) {
  Type type = value.getType();
  if (auto floatType = dyn_cast<FloatType>(type)) {
    if (!hex)
      return {"%f", arith::ExtFOp::create(builder, loc, builder.getF64Type(), value)};
    value = arith::BitcastOp::create(builder, loc, builder.getIntegerType(floatType.getWidth()),
                                     value);
    type = value.getType();
  }
  unsigned width = type.getIntOrFloatBitWidth();
  if (width > 32)
    return {hex ? "0x%llx" : isUnsigned ? "%llu" : "%lld", value};
  // Booleans print as 0 and 1, narrow integers with their sign (in hex, their bits).
  bool zeroExtend = hex || width == 1 || isUnsigned;
  if (width < 32)
    value = zeroExtend
                ? arith::ExtUIOp::create(builder, loc, builder.getI32Type(), value).getResult()
                : arith::ExtSIOp::create(builder, loc, builder.getI32Type(), value).getResult();
  return {hex ? "0x%x" : isUnsigned ? "%u" : "%d", value};
}

void ifThen(OpBuilder &builder, Location loc, Value condition,
            llvm::function_ref<void(OpBuilder &)> then) {
  if (!condition) {
    then(builder);
    return;
  }
  OpBuilder::InsertionGuard insertion(builder);
  auto ifOp = scf::IfOp::create(builder, loc, condition, /*withElseRegion=*/false);
  builder.setInsertionPointToStart(&ifOp.getThenRegion().front());
  then(builder);
}

LogicalResult lowerPrint(KernelLowering &k, tile::PrintOp op, OpBuilder &builder) {
  Location loc = op.getLoc();
  std::string prefix = escapePercent(op.getPrefix()) + "pid (%d, %d, %d) ";
  SmallVector<Value> pids;
  for (mlir::gpu::Dimension dim : {mlir::gpu::Dimension::x, mlir::gpu::Dimension::y, mlir::gpu::Dimension::z})
    pids.push_back(arith::IndexCastUIOp::create(builder, loc, builder.getI32Type(),
                                                mlir::gpu::BlockIdOp::create(builder, loc, dim)));
  bool hex = op.getHex();
  for (auto [position, arg] : llvm::enumerate(op.getArgs())) {
    bool isUnsigned = op.getUnsignedArgs() && (*op.getUnsignedArgs())[position];
    if (isPointerLike(arg.getType()))
      return k.unsupported(op, "printing pointers");
    std::string operand =
        op.getArgs().size() > 1 ? "(operand " + std::to_string(position) + ") " : "";
    Registers regs = k.registers(arg);
    if (!isa<RankedTensorType>(arg.getType())) {
      ifThen(builder, loc, k.thread.isFirstThread(), [&](OpBuilder &b) {
        auto [conversion, value] = formatted(b, loc, regs.front(), hex, isUnsigned);
        SmallVector<Value> args(pids);
        args.push_back(value);
        mlir::gpu::PrintfOp::create(b, loc, prefix + operand + conversion + "\n", args);
      });
      continue;
    }
    FailureOr<LinearLayout> layout = k.layout(op, arg);
    if (failed(layout))
      return failure();
    std::string index = "idx (";
    for (unsigned dim = 0; dim < layout->rank(); ++dim)
      index += dim ? ", %d" : "%d";
    index += ") ";
    ifThen(builder, loc, k.thread.ownsElements(*layout), [&](OpBuilder &b) {
      for (unsigned reg = 0; reg < layout->numRegisters(); ++reg) {
        if (layout->isDuplicateRegister(reg))
          continue;
        SmallVector<Value> args(pids);
        for (unsigned dim = 0; dim < layout->rank(); ++dim)
          args.push_back(k.thread.coordinate(b, loc, *layout, reg, dim));
        auto [conversion, value] = formatted(b, loc, regs[reg], hex, isUnsigned);
        args.push_back(value);
        mlir::gpu::PrintfOp::create(b, loc, prefix + index + operand + conversion + "\n", args);
      }
    });
  }
  return success();
}

LogicalResult lowerAssert(KernelLowering &k, tile::AssertOp op, OpBuilder &builder) {
  Location loc = op.getLoc();
  Value holds;
  for (Value reg : k.registers(op.getCondition()))
    holds = holds ? Value(arith::AndIOp::create(builder, loc, holds, reg)) : reg;
  if (k.target.vendor == GpuVendor::Nvidia) {
    cf::AssertOp::create(builder, loc, holds, op.getMessage());
    return success();
  }
  std::string where = "unknown location";
  if (auto fileLine = dyn_cast<FileLineColLoc>(loc))
    where = (fileLine.getFilename().getValue() + ":" + Twine(fileLine.getLine())).str();
  Value fails = arith::XOrIOp::create(builder, loc, holds,
                                      arith::ConstantIntOp::create(builder, loc, 1, 1));
  ifThen(builder, loc, fails, [&](OpBuilder &b) {
    mlir::gpu::PrintfOp::create(b, loc,
                          escapePercent(where) + ": block (%d, %d, %d) thread %d: Assertion `" +
                              escapePercent(op.getMessage()) + "` failed.\n",
                          ValueRange{arith::IndexCastUIOp::create(
                                         b, loc, b.getI32Type(),
                                         mlir::gpu::BlockIdOp::create(b, loc, mlir::gpu::Dimension::x)),
                                     arith::IndexCastUIOp::create(
                                         b, loc, b.getI32Type(),
                                         mlir::gpu::BlockIdOp::create(b, loc, mlir::gpu::Dimension::y)),
                                     arith::IndexCastUIOp::create(
                                         b, loc, b.getI32Type(),
                                         mlir::gpu::BlockIdOp::create(b, loc, mlir::gpu::Dimension::z)),
                                     k.thread.threadId()});
    LLVM::Trap::create(b, loc);
  });
  return success();
}

} // namespace

LogicalResult lowerDebugOp(KernelLowering &k, Operation *op, OpBuilder &builder) {
  if (k.target.vendor == GpuVendor::Vulkan)
    return k.unsupported(op, "printing and asserting on Vulkan (which has no device printf)");
  if (auto print = dyn_cast<tile::PrintOp>(op))
    return lowerPrint(k, print, builder);
  return lowerAssert(k, cast<tile::AssertOp>(op), builder);
}

} // namespace tessera::gpu
