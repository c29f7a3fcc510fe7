// transposeByteRows (lowering/gpu/distribute/ElementAccess.h) on constant
// rows, its shuffles folded: column j must hold byte j of each row, in row
// order, for every byte of the 4x4 block.
#include "lowering/gpu/distribute/ElementAccess.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"

#include <gtest/gtest.h>

using namespace mlir;

namespace tessera::gpu {
namespace {

TEST(ByteTransposeTest, ColumnsHoldEachRowsByteInRowOrder) {
  MLIRContext context;
  context.loadDialect<arith::ArithDialect, vector::VectorDialect>();
  OpBuilder builder(&context);
  Location loc = builder.getUnknownLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  builder.setInsertionPointToEnd(module->getBody());
  auto rowType = VectorType::get({4}, builder.getI8Type());
  SmallVector<Value> rows;
  for (int row = 0; row < 4; ++row) {
    SmallVector<int8_t> bytes;
    for (int byte = 0; byte < 4; ++byte)
      bytes.push_back(static_cast<int8_t>(16 * row + byte));
    rows.push_back(arith::ConstantOp::create(
        builder, loc, rowType, DenseElementsAttr::get(rowType, ArrayRef<int8_t>(bytes))));
  }
  SmallVector<Value, 4> columns = transposeByteRows(builder, loc, rows);
  ASSERT_EQ(columns.size(), 4u);
  // Folds the shuffles, each over constants by then, in the order built.
  llvm::DenseMap<Value, DenseElementsAttr> known;
  for (Value row : rows)
    matchPattern(row, m_Constant(&known[row]));
  for (Operation &op : module->getBody()->getOperations()) {
    auto shuffle = dyn_cast<vector::ShuffleOp>(op);
    if (!shuffle)
      continue;
    SmallVector<int8_t> pool;
    for (Value source : {shuffle.getV1(), shuffle.getV2()}) {
      ASSERT_TRUE(known.count(source)) << "a shuffle of a value not built from the rows";
      llvm::append_range(pool, known[source].getValues<int8_t>());
    }
    SmallVector<int8_t> picked;
    for (int64_t pick : shuffle.getMask())
      picked.push_back(pool[pick]);
    known[shuffle.getResult()] = DenseElementsAttr::get(rowType, ArrayRef<int8_t>(picked));
  }
  for (int column = 0; column < 4; ++column) {
    ASSERT_TRUE(known.count(columns[column]));
    SmallVector<int8_t> bytes(known[columns[column]].getValues<int8_t>());
    for (int row = 0; row < 4; ++row)
      EXPECT_EQ(bytes[row], 16 * row + column) << "column " << column << ", row " << row;
  }
}

} // namespace
} // namespace tessera::gpu
