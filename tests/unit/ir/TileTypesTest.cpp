// Tile types: construction, printing and the pointee/mask helpers that the
// memory ops infer their types with.
#include "ir/TileDialect.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/AsmParser/AsmParser.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace tessera::tile;

namespace {

class TileTypesTest : public ::testing::Test {
protected:
  TileTypesTest() { context.loadDialect<TileDialect>(); }

  std::string print(Type type) {
    std::string text;
    llvm::raw_string_ostream os(text);
    type.print(os);
    return text;
  }

  MLIRContext context;
};

TEST_F(TileTypesTest, PointerDefaultsToGlobalAddressSpace) {
  auto ptr = PointerType::get(Float32Type::get(&context));
  EXPECT_EQ(ptr.getAddressSpace(), 1u);
  EXPECT_EQ(print(ptr), "!tile.ptr<f32>");
  EXPECT_EQ(print(PointerType::get(IntegerType::get(&context, 8), 3)), "!tile.ptr<i8, 3>");
}

TEST_F(TileTypesTest, PointeeOfScalarAndTilePointers) {
  Type f16 = Float16Type::get(&context);
  auto ptr = PointerType::get(f16);
  EXPECT_EQ(getPointeeType(ptr), f16);
  auto ptrTile = RankedTensorType::get({4, 8}, ptr);
  EXPECT_EQ(getPointeeType(ptrTile), RankedTensorType::get({4, 8}, f16));
}

TEST_F(TileTypesTest, MaskTypeFollowsPointerShape) {
  auto ptr = PointerType::get(Float32Type::get(&context));
  Type i1 = IntegerType::get(&context, 1);
  EXPECT_EQ(getMaskType(ptr), i1);
  EXPECT_EQ(getMaskType(RankedTensorType::get({128}, ptr)), RankedTensorType::get({128}, i1));
}

TEST_F(TileTypesTest, NonPointerComesBackUnchanged) {
  auto tile = RankedTensorType::get({16}, Float32Type::get(&context));
  EXPECT_EQ(getPointeeType(tile), tile);
}

TEST_F(TileTypesTest, ParsesTensorDescriptor) {
  Type type = parseType("!tile.tensordesc<tensor<64x32xf16>>", &context);
  auto desc = dyn_cast_or_null<TensorDescType>(type);
  ASSERT_TRUE(desc);
  EXPECT_EQ(desc.getBlockType().getShape(), ArrayRef<int64_t>({64, 32}));
  EXPECT_TRUE(desc.getBlockType().getElementType().isF16());
}

TEST_F(TileTypesTest, RejectsInvalidTypesWithoutCrashing) {
  // The context reports the verifier's message; parsing yields a null type.
  std::string diagnostics;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    diagnostics += diag.str() + "\n";
    return success();
  });
  EXPECT_FALSE(parseType("!tile.ptr<tensor<4xf32>>", &context));
  EXPECT_NE(diagnostics.find("pointee of !tile.ptr must be i1, i8"),
            std::string::npos)
      << diagnostics;
  diagnostics.clear();
  EXPECT_FALSE(parseType("!tile.tensordesc<tensor<?x32xf16>>", &context));
  EXPECT_NE(diagnostics.find("must have a static shape"), std::string::npos) << diagnostics;
}

} // namespace
