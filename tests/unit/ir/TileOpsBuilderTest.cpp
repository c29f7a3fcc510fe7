// Building tile ops from C++, as the front ends do: inferred result types,
// verifier messages and folding.
#include "ir/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace tessera::tile;

namespace {

class TileOpsBuilderTest : public ::testing::Test {
protected:
  TileOpsBuilderTest() : builder(&context) {
    context.loadDialect<TileDialect, arith::ArithDialect>();
    module = ModuleOp::create(builder.getUnknownLoc());
    handler.emplace(&context, [this](Diagnostic &diag) {
      diagnostics += diag.str() + "\n";
      return success();
    });
  }

  // A kernel taking `argTypes`, with the builder inside its body.
  FuncOp makeKernel(ArrayRef<Type> argTypes) {
    builder.setInsertionPointToEnd(module->getBody());
    auto func = FuncOp::create(builder, loc(), "kernel", builder.getFunctionType(argTypes, {}));
    builder.setInsertionPointToStart(func.addEntryBlock());
    ReturnOp::create(builder, loc());
    builder.setInsertionPointToStart(&func.getBody().front());
    return func;
  }

  Location loc() { return builder.getUnknownLoc(); }
  Type f32() { return builder.getF32Type(); }
  Type i32() { return builder.getI32Type(); }

  MLIRContext context;
  OpBuilder builder;
  OwningOpRef<ModuleOp> module;
  std::string diagnostics;
  std::optional<ScopedDiagnosticHandler> handler;
};

TEST_F(TileOpsBuilderTest, VectorAddKernelVerifies) {
  auto ptr = PointerType::get(f32());
  FuncOp func = makeKernel({ptr, ptr, i32()});
  Value x = func.getArgument(0), out = func.getArgument(1), n = func.getArgument(2);

  auto offsType = RankedTensorType::get({128}, i32());
  Value pid = ProgramIdOp::create(builder, loc(), ProgramAxis::X);
  Value offs = MakeRangeOp::create(builder, loc(), offsType, 0, 128);
  Value base = SplatOp::create(builder, loc(), offsType, pid);
  offs = arith::AddIOp::create(builder, loc(), base, offs);
  Value bound = SplatOp::create(builder, loc(), offsType, n);
  Value mask = arith::CmpIOp::create(builder, loc(), arith::CmpIPredicate::slt, offs, bound);
  auto ptrTile = RankedTensorType::get({128}, ptr);
  Value xs = AddPtrOp::create(builder, loc(), SplatOp::create(builder, loc(), ptrTile, x), offs);
  auto load = LoadOp::create(builder, loc(), xs, mask, Value());
  Value outs = AddPtrOp::create(builder, loc(), SplatOp::create(builder, loc(), ptrTile, out), offs);
  StoreOp::create(builder, loc(), outs, load, mask);

  EXPECT_EQ(load.getType(), RankedTensorType::get({128}, f32()));
  EXPECT_TRUE(succeeded(verify(*module))) << diagnostics;
}

TEST_F(TileOpsBuilderTest, BroadcastOfIncompatibleShapeIsReported) {
  makeKernel({});
  Value zero = arith::ConstantOp::create(builder, loc(), builder.getF32FloatAttr(0));
  Value row = SplatOp::create(builder, loc(), RankedTensorType::get({4, 8}, f32()), zero);
  BroadcastOp::create(builder, loc(), RankedTensorType::get({4, 16}, f32()), row);
  EXPECT_TRUE(failed(verify(*module)));
  EXPECT_NE(diagnostics.find("dimension 1 of the operand (8) must equal the result's (16) or be 1"),
            std::string::npos)
      << diagnostics;
}

TEST_F(TileOpsBuilderTest, DotRejectsMismatchedK) {
  makeKernel({});
  Value zero = arith::ConstantOp::create(builder, loc(), builder.getF32FloatAttr(0));
  auto tile = [&](int64_t rows, int64_t cols) -> Value {
    return SplatOp::create(builder, loc(), RankedTensorType::get({rows, cols}, f32()), zero);
  };
  DotOp::create(builder, loc(), tile(16, 32), tile(16, 16), tile(16, 16));
  EXPECT_TRUE(failed(verify(*module)));
  EXPECT_NE(diagnostics.find("K of a [16, 32] (32) must equal K of b [16, 16] (16)"),
            std::string::npos)
      << diagnostics;
}

TEST_F(TileOpsBuilderTest, ReduceInfersScalarResultFromVector) {
  makeKernel({});
  Value zero = arith::ConstantOp::create(builder, loc(), builder.getF32FloatAttr(0));
  Value v = SplatOp::create(builder, loc(), RankedTensorType::get({64}, f32()), zero);
  Value m = SplatOp::create(builder, loc(), RankedTensorType::get({8, 64}, f32()), zero);
  auto reduceVector = ReduceOp::create(builder, loc(), ValueRange{v}, 0);
  auto reduceRows = ReduceOp::create(builder, loc(), ValueRange{m}, 1);
  EXPECT_EQ(reduceVector.getResult(0).getType(), f32());
  EXPECT_EQ(reduceRows.getResult(0).getType(), RankedTensorType::get({8}, f32()));
}

TEST_F(TileOpsBuilderTest, SplatOfConstantFolds) {
  makeKernel({});
  Value one = arith::ConstantOp::create(builder, loc(), builder.getI32IntegerAttr(1));
  auto splat = SplatOp::create(builder, loc(), RankedTensorType::get({16}, i32()), one);
  SmallVector<OpFoldResult> folded;
  ASSERT_TRUE(succeeded(splat->fold(folded)));
  ASSERT_EQ(folded.size(), 1u);
  auto attr = dyn_cast<SplatElementsAttr>(dyn_cast<Attribute>(folded[0]));
  ASSERT_TRUE(attr);
  EXPECT_EQ(attr.getSplatValue<APInt>().getSExtValue(), 1);
}

} // namespace
