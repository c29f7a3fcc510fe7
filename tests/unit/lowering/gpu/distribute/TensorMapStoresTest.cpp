// Where a TMA store's shared buffer puts each block element
// (swizzledPanelIndex, lowering/gpu/tensorcore/Wgmma.h, the layout the store
// shares with wgmma's operands, here for the element widths wgmma does not
// read too), folded to constants, against what a TMA store reads (PTX ISA,
// "Tensor-map swizzle modes"): box p of `lines` lines of `swizzleBytes`
// bytes starts at byte p * lines * swizzleBytes, line after line, each
// 16-byte chunk of a line moved to chunk index XOR (address bits 7 and up,
// as many as the swizzle has chunks). And the epilogue's stmatrix stores
// (MatrixStores.h) into that buffer: each matrix's eight rows on the eight
// 16-byte positions of a 128-byte bank line.
#include "lowering/gpu/distribute/MatrixStores.h"
#include "lowering/gpu/tensorcore/Wgmma.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include <gtest/gtest.h>

#include <set>

using namespace mlir;

namespace tessera::gpu {
namespace {

SwizzledPanels panelsOf(int64_t rows, int64_t rowBytes, int64_t swizzleBytes,
                        int64_t elementBytes) {
  SwizzledPanels panels;
  panels.lines = rows;
  panels.swizzleBytes = swizzleBytes;
  panels.elementBytes = elementBytes;
  panels.panels = rowBytes / swizzleBytes;
  return panels;
}

/// The byte a TMA store of `panels` reads element (row, col) of its block
/// from, relative to a buffer aligned to the swizzle's repeat.
int64_t tmaReadsFrom(const SwizzledPanels &panels, int64_t row, int64_t col) {
  int64_t box = col / panels.panelElements();
  int64_t address = box * panels.panelBytes() + row * panels.swizzleBytes +
                    (col % panels.panelElements()) * panels.elementBytes;
  int64_t chunks = panels.swizzleBytes / 16;
  return address ^ (((address >> 7) & (chunks - 1)) << 4);
}

class TensorMapStoresTest : public ::testing::Test {
protected:
  TensorMapStoresTest() { context.loadDialect<arith::ArithDialect, func::FuncDialect>(); }

  /// swizzledPanelIndex of every element of a block of `panels`, folded:
  /// [row][col].
  std::vector<std::vector<int64_t>> indices(const SwizzledPanels &panels) {
    int64_t cols = panels.panels * panels.panelElements();
    OpBuilder builder(&context);
    Location loc = builder.getUnknownLoc();
    OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
    builder.setInsertionPointToEnd(module->getBody());
    SmallVector<Type> results(panels.lines * cols, builder.getIndexType());
    auto func = func::FuncOp::create(builder, loc, "indices", builder.getFunctionType({}, results));
    builder.setInsertionPointToEnd(func.addEntryBlock());
    SmallVector<Value> values;
    for (int64_t row = 0; row < panels.lines; ++row)
      for (int64_t col = 0; col < cols; ++col)
        values.push_back(swizzledPanelIndex(builder, loc, panels,
                                            arith::ConstantIndexOp::create(builder, loc, row),
                                            arith::ConstantIndexOp::create(builder, loc, col)));
    func::ReturnOp::create(builder, loc, values);
    PassManager pm(&context);
    pm.addPass(createCanonicalizerPass());
    EXPECT_TRUE(succeeded(pm.run(*module)));
    std::vector<std::vector<int64_t>> byRow(panels.lines, std::vector<int64_t>(cols, -1));
    auto returned = cast<func::ReturnOp>(func.getBody().front().getTerminator());
    for (auto [position, value] : llvm::enumerate(returned.getOperands())) {
      std::optional<int64_t> index = getConstantIntValue(value);
      EXPECT_TRUE(index.has_value()) << "element " << position << " did not fold";
      byRow[position / cols][position % cols] = index.value_or(-1);
    }
    return byRow;
  }

  /// Every element at the index whose bytes TMA reads it from: the buffer
  /// holds the block once over.
  void expectWhereTmaReads(const SwizzledPanels &panels) {
    std::vector<std::vector<int64_t>> byRow = indices(panels);
    std::set<int64_t> taken;
    for (int64_t row = 0; row < panels.lines; ++row)
      for (size_t col = 0; col < byRow[row].size(); ++col) {
        int64_t index = byRow[row][col];
        ASSERT_EQ(index * panels.elementBytes, tmaReadsFrom(panels, row, int64_t(col)))
            << "(" << row << ", " << col << ") of " << panels.panels << " panels of "
            << panels.swizzleBytes << " bytes";
        EXPECT_TRUE(taken.insert(index).second);
      }
    EXPECT_EQ(*taken.rbegin(), panels.lines * panels.panels * panels.panelElements() - 1);
  }

  MLIRContext context;
};

TEST_F(TensorMapStoresTest, EachSwizzleAndElementWidthPutsElementsWhereTmaReadsThem) {
  expectWhereTmaReads(panelsOf(64, 256, 128, 2));  // bf16 64x128: two 128-byte panels
  expectWhereTmaReads(panelsOf(16, 128, 128, 4));  // f32 16x32
  expectWhereTmaReads(panelsOf(16, 64, 64, 2));    // f16 16x32: 64-byte swizzle
  expectWhereTmaReads(panelsOf(8, 96, 32, 2));     // bf16 8x48: three 32-byte panels
  expectWhereTmaReads(panelsOf(16, 128, 128, 1));  // i8 16x128
  expectWhereTmaReads(panelsOf(8, 256, 128, 8));   // f64 8x32
}

TEST_F(TensorMapStoresTest, TheGemmEpilogueStoresEveryMatrixRowOnItsOwnBankPosition) {
  // The 128x256 bf16 accumulator of the benchmark's GEMM (wgmma, 8 warps),
  // stored with stmatrix into four 128-byte panels.
  llvm::Expected<GpuTarget> target = GpuTarget::parse("cuda:sm_90a");
  ASSERT_TRUE(static_cast<bool>(target));
  Builder b(&context);
  DotProblem problem{128, 256, 64, b.getBF16Type(), b.getBF16Type(), b.getF32Type()};
  std::unique_ptr<TensorCoreDot> dot = selectTensorCoreDot(*target, problem, 8);
  ASSERT_TRUE(dot);
  LinearLayout layout = dot->accumulatorLayout();
  std::optional<MatrixStores> stores = planMatrixStores(layout);
  ASSERT_TRUE(stores.has_value());
  SwizzledPanels panels = panelsOf(128, 512, 128, 2);
  std::vector<std::vector<int64_t>> byRow = indices(panels);
  std::multiset<int64_t> stored;
  for (unsigned warp = 0; warp < layout.numWarps(); ++warp)
    for (auto [instruction, fragments] : llvm::enumerate(stores->fragments))
      for (unsigned matrix = 0; matrix < stores->matrices; ++matrix) {
        unsigned positions = 0;
        for (unsigned row = 0; row < 8; ++row) {
          Basis start = stores->rowStarts.coordinates(instruction, 8 * matrix + row, warp);
          int64_t index = byRow[start[0]][start[1]];
          ASSERT_EQ(index % 8, 0) << "a matrix row is 16 aligned bytes";
          positions |= 1u << (index * 2 / 16 % 8);
          // The row's 8 elements stay together: the swizzle moves whole chunks.
          for (int64_t element = 0; element < 8; ++element)
            stored.insert(byRow[start[0]][start[1] + element]);
          EXPECT_EQ(byRow[start[0]][start[1] + 7], index + 7);
        }
        EXPECT_EQ(positions, 0xffu) << "warp " << warp << ", instruction " << instruction;
      }
  EXPECT_EQ(stored.size(), size_t(128 * 256));
  EXPECT_EQ(std::set<int64_t>(stored.begin(), stored.end()).size(), stored.size());
}

} // namespace
} // namespace tessera::gpu
