#include "lowering/cpu/TileShuffles.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

namespace tessera::cpu {

int64_t product(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

SmallVector<int64_t, 4> rowMajorStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t, 4> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

SmallVector<int64_t> mapLanes(ArrayRef<int64_t> resultShape,
                              function_ref<int64_t(ArrayRef<int64_t>)> sourceLane) {
  int64_t n = product(resultShape);
  SmallVector<int64_t> lanes;
  lanes.reserve(n);
  SmallVector<int64_t, 4> index(resultShape.size(), 0);
  for (int64_t flat = 0; flat < n; ++flat) {
    lanes.push_back(sourceLane(index));
    for (int64_t d = static_cast<int64_t>(index.size()) - 1; d >= 0; --d) {
      if (++index[d] < resultShape[d])
        break;
      index[d] = 0;
    }
  }
  return lanes;
}

SmallVector<int64_t> broadcastLanes(ArrayRef<int64_t> srcShape, ArrayRef<int64_t> resultShape) {
  SmallVector<int64_t, 4> strides = rowMajorStrides(srcShape);
  return mapLanes(resultShape, [&](ArrayRef<int64_t> index) {
    int64_t lane = 0;
    for (size_t d = 0; d < index.size(); ++d)
      lane += (srcShape[d] == 1 ? 0 : index[d]) * strides[d];
    return lane;
  });
}

SmallVector<int64_t> transposeLanes(ArrayRef<int64_t> srcShape, ArrayRef<int32_t> order) {
  SmallVector<int64_t, 4> strides = rowMajorStrides(srcShape), resultShape;
  for (int32_t d : order)
    resultShape.push_back(srcShape[d]);
  return mapLanes(resultShape, [&](ArrayRef<int64_t> index) {
    int64_t lane = 0;
    for (size_t i = 0; i < index.size(); ++i)
      lane += index[i] * strides[order[i]];
    return lane;
  });
}

SmallVector<int64_t> joinLanes(ArrayRef<int64_t> operandShape) {
  SmallVector<int64_t, 4> resultShape(operandShape), strides = rowMajorStrides(operandShape);
  resultShape.push_back(2);
  int64_t n = product(operandShape);
  return mapLanes(resultShape, [&](ArrayRef<int64_t> index) {
    int64_t lane = index.back() * n;
    for (size_t d = 0; d + 1 < index.size(); ++d)
      lane += index[d] * strides[d];
    return lane;
  });
}

SmallVector<int64_t> splitLanes(ArrayRef<int64_t> srcShape, unsigned half) {
  int64_t n = product(srcShape) / 2;
  SmallVector<int64_t> lanes;
  for (int64_t i = 0; i < n; ++i)
    lanes.push_back(2 * i + half);
  return lanes;
}

SmallVector<int64_t> catLanes(ArrayRef<int64_t> operandShape, unsigned axis) {
  SmallVector<int64_t, 4> resultShape(operandShape), strides = rowMajorStrides(operandShape);
  resultShape[axis] *= 2;
  int64_t n = product(operandShape);
  return mapLanes(resultShape, [&](ArrayRef<int64_t> index) {
    int64_t lane = 0, which = index[axis] >= operandShape[axis];
    for (size_t d = 0; d < index.size(); ++d)
      lane += (d == axis ? index[d] - which * operandShape[axis] : index[d]) * strides[d];
    return lane + which * n;
  });
}

SmallVector<int64_t> sliceLanes(int64_t outer, int64_t n, int64_t inner, int64_t begin,
                                int64_t end) {
  return mapLanes({outer, end - begin, inner}, [&](ArrayRef<int64_t> index) {
    return (index[0] * n + begin + index[1]) * inner + index[2];
  });
}

Value shuffleLanes(OpBuilder &b, Location loc, Value lhs, Value rhs, ArrayRef<int64_t> lanes) {
  auto type = cast<VectorType>(lhs.getType());
  bool identity = !rhs && static_cast<int64_t>(lanes.size()) == type.getNumElements();
  for (size_t i = 0; identity && i < lanes.size(); ++i)
    identity = lanes[i] == static_cast<int64_t>(i);
  if (identity)
    return lhs;
  SmallVector<int32_t> mask(lanes.begin(), lanes.end());
  return LLVM::ShuffleVectorOp::create(b, loc, lhs, rhs ? rhs : lhs, mask);
}

Value concatVectors(OpBuilder &b, Location loc, ArrayRef<Value> parts) {
  SmallVector<Value> level(parts.begin(), parts.end());
  while (level.size() > 1) {
    SmallVector<Value> next;
    for (size_t i = 0; i + 1 < level.size(); i += 2) {
      int64_t n = cast<VectorType>(level[i].getType()).getNumElements();
      SmallVector<int32_t> mask;
      for (int64_t j = 0; j < 2 * n; ++j)
        mask.push_back(static_cast<int32_t>(j));
      next.push_back(LLVM::ShuffleVectorOp::create(b, loc, level[i], level[i + 1], mask));
    }
    if (level.size() % 2)
      next.push_back(level.back());
    level = std::move(next);
  }
  return level.front();
}

} // namespace tessera::cpu
