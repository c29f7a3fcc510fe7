// tile.reduce and tile.scan: the combining region is interpreted for every
// pair of elements, sequentially along the axis (a valid order, since the
// region must be associative). And tile.histogram, a reduction to counts.
#include "runtime/interpreter/Executor.h"

#include "ir/TileDialect.h"

using namespace mlir;

namespace tessera::interp {
namespace {

// The elements along `axis` of tiles shaped `shape` form lines: line
// (outer, inner) holds flat positions (outer * extent + k) * innerSize + inner.
struct AxisLines {
  int64_t outerSize = 1, extent = 1, innerSize = 1;

  AxisLines(ArrayRef<int64_t> shape, unsigned axis) : extent(shape[axis]) {
    outerSize = numElements(shape.take_front(axis));
    innerSize = numElements(shape.drop_front(axis + 1));
  }
  int64_t position(int64_t line, int64_t k) const {
    return ((line / innerSize) * extent + k) * innerSize + line % innerSize;
  }
  int64_t numLines() const { return outerSize * innerSize; }
};

// Combines the accumulated elements `acc` with the elements at `position` of
// `srcs` through the region; the result replaces `acc`.
llvm::Error combine(Executor &exec, Region &region, ArrayRef<Tile> srcs,
                    SmallVectorImpl<Element> &acc, int64_t position) {
  SmallVector<RuntimeValue, 4> args;
  for (auto [src, value] : llvm::zip_equal(srcs, acc))
    args.push_back(Tile::scalar(src.elementType, value));
  for (const Tile &src : srcs)
    args.push_back(Tile::scalar(src.elementType, src.elements[position]));
  auto yielded = exec.runRegion(region, args);
  if (!yielded)
    return yielded.takeError();
  for (auto [slot, value] : llvm::zip_equal(acc, *yielded))
    slot = std::get<Tile>(value).at(0);
  return llvm::Error::success();
}

// Copies the operand tiles: the region binds values in the same frame, which
// may move the tiles that references into the frame would name.
SmallVector<Tile, 4> copyOperands(Executor &exec, ValueRange srcs) {
  SmallVector<Tile, 4> tiles;
  for (Value src : srcs)
    tiles.push_back(exec.tile(src));
  return tiles;
}

llvm::Error reduce(Executor &exec, tile::ReduceOp op) {
  SmallVector<Tile, 4> srcs = copyOperands(exec, op.getSrcs());
  AxisLines lines(srcs.front().shape, op.getAxis());
  SmallVector<Tile, 4> results;
  for (Value result : op.getResults())
    results.push_back(Tile::zeros(result.getType()));
  SmallVector<Element, 4> acc(srcs.size());
  for (int64_t line = 0; line < lines.numLines(); ++line) {
    for (auto [slot, src] : llvm::zip_equal(acc, srcs))
      slot = src.elements[lines.position(line, 0)];
    for (int64_t k = 1; k < lines.extent; ++k)
      if (llvm::Error error =
              combine(exec, op.getCombineOp(), srcs, acc, lines.position(line, k)))
        return error;
    for (auto [result, value] : llvm::zip_equal(results, acc))
      result.elements[line] = value;
  }
  for (auto [value, result] : llvm::zip_equal(op.getResults(), results))
    exec.bind(value, std::move(result));
  return llvm::Error::success();
}

llvm::Error scan(Executor &exec, tile::ScanOp op) {
  SmallVector<Tile, 4> srcs = copyOperands(exec, op.getSrcs());
  AxisLines lines(srcs.front().shape, op.getAxis());
  SmallVector<Tile, 4> results(srcs);
  SmallVector<Element, 4> acc(srcs.size());
  bool reverse = op.getReverse();
  for (int64_t line = 0; line < lines.numLines(); ++line) {
    for (int64_t step = 0; step < lines.extent; ++step) {
      int64_t position = lines.position(line, reverse ? lines.extent - 1 - step : step);
      if (step == 0) {
        for (auto [slot, src] : llvm::zip_equal(acc, srcs))
          slot = src.elements[position];
      } else if (llvm::Error error = combine(exec, op.getCombineOp(), srcs, acc, position)) {
        return error;
      }
      for (auto [result, value] : llvm::zip_equal(results, acc))
        result.elements[position] = value;
    }
  }
  for (auto [value, result] : llvm::zip_equal(op.getResults(), results))
    exec.bind(value, std::move(result));
  return llvm::Error::success();
}

llvm::Error histogram(Executor &exec, tile::HistogramOp op) {
  const Tile &src = exec.tile(op.getSrc());
  const Tile *mask = op.getMask() ? &exec.tile(op.getMask()) : nullptr;
  Tile counts = Tile::zeros(op.getType());
  unsigned width = intWidth(src.elementType);
  for (int64_t lane = 0; lane < src.size(); ++lane) {
    int64_t bin = signExtend(src.elements[lane].bits, width);
    if ((!mask || mask->at(lane).bits != 0) && bin >= 0 && bin < counts.size())
      counts.elements[bin] = makeInt(counts.elements[bin].bits + 1, 32);
  }
  exec.bind(op, std::move(counts));
  return llvm::Error::success();
}

} // namespace

void registerReduceHandlers(HandlerTable &table) {
  table.add<tile::ReduceOp>(reduce);
  table.add<tile::ScanOp>(scan);
  table.add<tile::HistogramOp>(histogram);
}

} // namespace tessera::interp
