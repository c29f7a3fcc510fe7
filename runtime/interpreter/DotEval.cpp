// tile.dot: result = a * b + acc, accumulated in the accumulator's type one
// product at a time along K. Each step is an FMA: std::fma in double, then
// rounded to the accumulator type (a single rounding for f64, and for the
// narrower types one that differs only at rare double-rounding ties). tf32 and
// tf32x3 are computed at full f32 precision: the reference is the exact
// product, and the backends are checked against it with tf32's tolerance.
#include "runtime/interpreter/Executor.h"

#include "ir/TileDialect.h"

#include <cmath>

using namespace mlir;

namespace tessera::interp {
namespace {

llvm::Error dot(Executor &exec, tile::DotOp op) {
  const Tile &a = exec.tile(op.getA()), &b = exec.tile(op.getB());
  Tile result = exec.tile(op.getAcc());
  size_t rank = a.shape.size();
  int64_t batch = rank == 3 ? a.shape[0] : 1;
  int64_t m = a.shape[rank - 2], k = a.shape[rank - 1], n = b.shape[rank - 1];
  Type accType = result.elementType;
  bool isInteger = isa<IntegerType>(accType);
  unsigned aWidth = isInteger ? intWidth(a.elementType) : 0;
  for (int64_t p = 0; p < batch; ++p) {
    const Element *aBatch = a.elements.data() + p * m * k;
    const Element *bBatch = b.elements.data() + p * k * n;
    Element *cBatch = result.elements.data() + p * m * n;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        Element &c = cBatch[i * n + j];
        for (int64_t q = 0; q < k; ++q) {
          const Element &x = aBatch[i * k + q], &y = bBatch[q * n + j];
          if (isInteger) {
            int64_t product = signExtend(x.bits, aWidth) * signExtend(y.bits, aWidth);
            c = makeInt(c.bits + static_cast<uint64_t>(product), 32);
          } else {
            c = makeFloat(std::fma(x.real, y.real, c.real), accType);
          }
        }
      }
  }
  exec.bind(op.getResult(), std::move(result));
  return llvm::Error::success();
}

} // namespace

void registerDotHandlers(HandlerTable &table) { table.add<tile::DotOp>(dot); }

} // namespace tessera::interp
