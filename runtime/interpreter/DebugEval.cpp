// tile.print and tile.assert: the user's debugging aids, with the program id
// in every line and the op's source location in every failure.
#include "runtime/interpreter/Executor.h"

#include "ir/TileDialect.h"

#include "llvm/Support/Format.h"

using namespace mlir;

namespace tessera::interp {
namespace {

void printElement(llvm::raw_ostream &os, Executor &exec, const Element &element, Type type,
                  bool hex, bool isUnsigned) {
  if (isa<tile::PointerType>(type)) {
    os << llvm::format_hex(exec.memory().addressOf(element), 18);
    return;
  }
  if (hex) {
    os << llvm::format_hex(toBits(element, type), 2 + 2 * storageBytes(type));
    return;
  }
  if (isa<FloatType>(type)) {
    os << llvm::format("%f", element.real);
    return;
  }
  unsigned width = intWidth(type);
  if (width == 1 || isUnsigned)
    os << (width == 64 ? element.bits : element.bits & ((uint64_t{1} << width) - 1));
  else
    os << signExtend(element.bits, width);
}

// Lines as Triton's device_print writes them:
//   pid (x, y, z) idx (i, j)<prefix>[(operand k) ]<value>
llvm::Error print(Executor &exec, tile::PrintOp op) {
  llvm::raw_ostream &os = exec.printStream();
  auto [x, y, z] = exec.programId();
  auto header = [&] { os << "pid (" << x << ", " << y << ", " << z << ")"; };
  if (op.getArgs().empty()) {
    header();
    os << " " << op.getPrefix() << "\n";
    return llvm::Error::success();
  }
  bool several = op.getArgs().size() > 1;
  for (auto [operand, value] : llvm::enumerate(op.getArgs())) {
    const Tile &tile = exec.tile(value);
    for (int64_t lane = 0; lane < tile.size(); ++lane) {
      header();
      if (!tile.isScalar()) {
        os << " idx (";
        SmallVector<int64_t, 4> index = delinearize(lane, tile.shape);
        for (auto [dim, i] : llvm::enumerate(index)) {
          unsigned digits = std::to_string(std::max<int64_t>(tile.shape[dim] - 1, 0)).size();
          os << (dim ? ", " : "") << llvm::format_decimal(i, digits);
        }
        os << ")";
      }
      os << " " << op.getPrefix();
      if (several)
        os << "(operand " << operand << ") ";
      printElement(os, exec, tile.elements[lane], tile.elementType, op.getHex(),
                   op.getUnsignedArgs() && (*op.getUnsignedArgs())[operand]);
      os << "\n";
    }
  }
  return llvm::Error::success();
}

llvm::Error assertion(Executor &exec, tile::AssertOp op) {
  const Tile &condition = exec.tile(op.getCondition());
  for (int64_t lane = 0; lane < condition.size(); ++lane) {
    if (condition.elements[lane].bits)
      continue;
    std::string where = condition.isScalar() ? "" : " (lane " + std::to_string(lane) + ")";
    return exec.fail(op, "assertion failed: " + op.getMessage() + where);
  }
  return llvm::Error::success();
}

// Undefined behaviour in a compiled kernel; the interpreter says so.
llvm::Error assumption(Executor &exec, tile::AssumeOp op) {
  if (exec.tile(op.getCondition()).elements.front().bits)
    return llvm::Error::success();
  return exec.fail(op, "an assumption (tl.assume) does not hold");
}

} // namespace

void registerDebugHandlers(HandlerTable &table) {
  table.add<tile::PrintOp>(print);
  table.add<tile::AssertOp>(assertion);
  table.add<tile::AssumeOp>(assumption);
  // The interpreter runs a program as one thread.
  table.add<tile::DebugBarrierOp>(
      [](Executor &, tile::DebugBarrierOp) { return llvm::Error::success(); });
}

} // namespace tessera::interp
