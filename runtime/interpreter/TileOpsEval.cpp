// The tile dialect's grid, shape and pointer ops. Tiles are flat row-major
// arrays, so shape ops are index permutations of the element array.
#include "runtime/interpreter/Elementwise.h"

#include "ir/TileDialect.h"

using namespace mlir;

namespace tessera::interp {
namespace {

llvm::Error bindTile(Executor &exec, Value result, Tile tile) {
  exec.bind(result, std::move(tile));
  return llvm::Error::success();
}

// A result element taken from source position `sourceIndex(resultIndex)`.
template <typename Fn>
llvm::Error gather(Executor &exec, Operation *op, const Tile &src, Fn sourceIndex) {
  Tile result = Tile::zeros(op->getResult(0).getType());
  SmallVector<int64_t, 4> srcStrides = rowMajorStrides(src.shape);
  for (int64_t lane = 0; lane < result.size(); ++lane)
    result.elements[lane] =
        src.elements[linearize(sourceIndex(delinearize(lane, result.shape)), srcStrides)];
  return bindTile(exec, op->getResult(0), std::move(result));
}

// Same elements, another shape: expand_dims and reshape.
llvm::Error reshape(Executor &exec, Operation *op) {
  Tile result = exec.tile(op->getOperand(0));
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  result.shape.assign(type.getShape().begin(), type.getShape().end());
  return bindTile(exec, op->getResult(0), std::move(result));
}

void addGridOps(HandlerTable &table) {
  table.add<tile::ProgramIdOp>([](Executor &exec, tile::ProgramIdOp op) {
    uint32_t id = exec.programId()[static_cast<unsigned>(op.getAxis())];
    return bindTile(exec, op, Tile::scalar(op.getType(), makeInt(id, 32)));
  });
  table.add<tile::NumProgramsOp>([](Executor &exec, tile::NumProgramsOp op) {
    GridSize grid = exec.grid();
    unsigned sizes[] = {grid.x, grid.y, grid.z};
    unsigned size = sizes[static_cast<unsigned>(op.getAxis())];
    return bindTile(exec, op, Tile::scalar(op.getType(), makeInt(size, 32)));
  });
  table.add<tile::MakeRangeOp>([](Executor &exec, tile::MakeRangeOp op) {
    int64_t start = op.getStart();
    return mapResult(exec, op, [&](int64_t lane) { return makeInt(start + lane, 32); });
  });
}

void addShapeOps(HandlerTable &table) {
  table.add<tile::SplatOp>([](Executor &exec, tile::SplatOp op) {
    const Tile &src = exec.tile(op.getSrc());
    return mapResult(exec, op, [&](int64_t) { return src.at(0); });
  });
  table.add<tile::BroadcastOp>([](Executor &exec, tile::BroadcastOp op) {
    const Tile &src = exec.tile(op.getSrc());
    return gather(exec, op, src, [&](SmallVector<int64_t, 4> index) {
      for (auto [i, dim] : llvm::enumerate(src.shape))
        if (dim == 1)
          index[i] = 0;
      return index;
    });
  });
  table.addGeneric<tile::ExpandDimsOp, tile::ReshapeOp>(reshape);
  table.add<tile::TransOp>([](Executor &exec, tile::TransOp op) {
    ArrayRef<int32_t> order = op.getOrder();
    return gather(exec, op, exec.tile(op.getSrc()), [&](ArrayRef<int64_t> index) {
      SmallVector<int64_t, 4> source(index.size());
      for (auto [resultDim, sourceDim] : llvm::enumerate(order))
        source[sourceDim] = index[resultDim];
      return source;
    });
  });
  // join interleaves: result[..., 0] = lhs, result[..., 1] = rhs.
  table.add<tile::JoinOp>([](Executor &exec, tile::JoinOp op) {
    const Tile &lhs = exec.tile(op.getLhs()), &rhs = exec.tile(op.getRhs());
    return mapResult(exec, op,
                     [&](int64_t lane) { return (lane % 2 ? rhs : lhs).elements[lane / 2]; });
  });
  table.add<tile::SplitOp>([](Executor &exec, tile::SplitOp op) {
    const Tile &src = exec.tile(op.getSrc());
    Tile lhs = Tile::zeros(op.getLhs().getType()), rhs = Tile::zeros(op.getRhs().getType());
    for (int64_t lane = 0; lane < lhs.size(); ++lane) {
      lhs.elements[lane] = src.elements[2 * lane];
      rhs.elements[lane] = src.elements[2 * lane + 1];
    }
    exec.bind(op.getLhs(), std::move(lhs));
    return bindTile(exec, op.getRhs(), std::move(rhs));
  });
  table.add<tile::CatOp>([](Executor &exec, tile::CatOp op) {
    const Tile &lhs = exec.tile(op.getLhs()), &rhs = exec.tile(op.getRhs());
    unsigned axis = op.getAxis();
    int64_t split = lhs.shape[axis];
    Tile result = Tile::zeros(op.getType());
    SmallVector<int64_t, 4> strides = rowMajorStrides(lhs.shape);
    for (int64_t lane = 0; lane < result.size(); ++lane) {
      SmallVector<int64_t, 4> index = delinearize(lane, result.shape);
      const Tile &src = index[axis] < split ? lhs : rhs;
      if (index[axis] >= split)
        index[axis] -= split;
      result.elements[lane] = src.elements[linearize(index, strides)];
    }
    return bindTile(exec, op, std::move(result));
  });
  table.add<tile::GatherOp>([](Executor &exec, tile::GatherOp op) -> llvm::Error {
    const Tile &src = exec.tile(op.getSrc()), &indices = exec.tile(op.getIndices());
    unsigned axis = op.getAxis(), width = intWidth(indices.elementType);
    int64_t extent = src.shape[axis];
    for (const Element &index : indices.elements) {
      int64_t value = signExtend(index.bits, width);
      if (value < 0 || value >= extent)
        return exec.fail(op, "gather index " + llvm::Twine(value) + " is outside [0, " +
                                 llvm::Twine(extent) + ") of axis " + llvm::Twine(axis));
    }
    SmallVector<int64_t, 4> indexStrides = rowMajorStrides(indices.shape);
    return gather(exec, op, src, [&](SmallVector<int64_t, 4> index) {
      index[axis] = signExtend(indices.elements[linearize(index, indexStrides)].bits, width);
      return index;
    });
  });
}

void addPointerOps(HandlerTable &table) {
  table.add<tile::AddPtrOp>([](Executor &exec, tile::AddPtrOp op) {
    const Tile &ptr = exec.tile(op.getPtr()), &offset = exec.tile(op.getOffset());
    auto pointee = cast<tile::PointerType>(ptr.elementType).getPointeeType();
    int64_t bytes = storageBytes(pointee);
    unsigned width = intWidth(offset.elementType);
    return mapResult(exec, op, [&](int64_t lane) {
      Element result = ptr.at(lane);
      result.bits += static_cast<uint64_t>(signExtend(offset.at(lane).bits, width) * bytes);
      return result;
    });
  });
  // Pointers are untyped byte addresses: reinterpreting keeps them as they are.
  table.add<tile::BitcastOp>([](Executor &exec, tile::BitcastOp op) {
    Tile result = exec.tile(op.getSrc());
    result.elementType = getElementTypeOrSelf(op.getType());
    return bindTile(exec, op, std::move(result));
  });
  // Promises for the compiler; the values are the operand's.
  table.add<tile::HintOp>([](Executor &exec, tile::HintOp op) {
    return bindTile(exec, op, Tile(exec.tile(op.getSrc())));
  });
  table.add<tile::PtrToIntOp>([](Executor &exec, tile::PtrToIntOp op) {
    const Tile &src = exec.tile(op.getSrc());
    return mapResult(exec, op, [&](int64_t lane) {
      return makeInt(exec.memory().addressOf(src.at(lane)), 64);
    });
  });
  table.add<tile::IntToPtrOp>([](Executor &exec, tile::IntToPtrOp op) {
    const Tile &src = exec.tile(op.getSrc());
    return mapResult(exec, op, [&](int64_t lane) {
      return exec.memory().pointerFromAddress(src.at(lane).bits);
    });
  });
}

} // namespace

void registerTileHandlers(HandlerTable &table) {
  addGridOps(table);
  addShapeOps(table);
  addPointerOps(table);
}

} // namespace tessera::interp
