// The example kernels trace into verified tile IR with the expected ops.
#include "examples/Examples.h"
#include "tests/unit/lang/LangTestUtils.h"

#include "ir/TileDialect.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

using namespace mlir;
using namespace tessera;
using tessera::testing::countOps;

namespace {

tile::FuncOp kernelOf(ModuleOp module) { return cast<tile::FuncOp>(module.getBody()->front()); }

TEST(ExampleKernelsTest, VectorAdd) {
  MLIRContext context;
  OwningOpRef<ModuleOp> module = examples::traceVectorAdd(context, 1024);
  ASSERT_TRUE(succeeded(verify(*module)));
  tile::FuncOp kernel = kernelOf(*module);
  EXPECT_EQ(kernel.getSymName(), "vector_add");
  EXPECT_TRUE(kernel.isKernel());
  EXPECT_EQ(kernel.getArgAttrOfType<IntegerAttr>(0, "tile.divisibility").getInt(), 16);
  EXPECT_EQ(countOps(*module, "tile.make_range"), 1);
  EXPECT_EQ(countOps(*module, "tile.load"), 2);
  EXPECT_EQ(countOps(*module, "tile.store"), 1);
  EXPECT_EQ(countOps(*module, "arith.addf"), 1);
  module->walk([](tile::LoadOp load) {
    EXPECT_EQ(load.getType(), RankedTensorType::get({1024}, Float32Type::get(load.getContext())));
    EXPECT_TRUE(load.getMask());
    // Each op carries the line of the example that made it.
    auto loc = cast<FileLineColLoc>(load.getLoc());
    EXPECT_TRUE(loc.getFilename().getValue().ends_with("examples/vector_add.cpp"));
  });
}

TEST(ExampleKernelsTest, FusedSoftmax) {
  MLIRContext context;
  OwningOpRef<ModuleOp> module = examples::traceSoftmax(context, 256);
  ASSERT_TRUE(succeeded(verify(*module)));
  EXPECT_EQ(countOps(*module, "tile.load"), 1);
  EXPECT_EQ(countOps(*module, "tile.reduce"), 2);
  EXPECT_EQ(countOps(*module, "math.exp"), 1);
  EXPECT_EQ(countOps(*module, "arith.maxnumf"), 1);
  EXPECT_EQ(countOps(*module, "arith.divf"), 1);
  EXPECT_EQ(countOps(*module, "tile.store"), 1);
  module->walk([](tile::ReduceOp reduce) {
    EXPECT_EQ(reduce.getResult(0).getType(), Float32Type::get(reduce.getContext()));
  });
}

void checkMatmul(examples::MatmulInputs inputs) {
  MLIRContext context;
  examples::MatmulConfig config{.blockM = 64, .blockN = 32, .blockK = 16, .inputs = inputs};
  OwningOpRef<ModuleOp> module = examples::traceMatmul(context, config);
  ASSERT_TRUE(succeeded(verify(*module)));
  Type f32 = Float32Type::get(&context);
  Type operand = inputs == examples::MatmulInputs::F16 ? Type(Float16Type::get(&context)) : f32;
  // One k-loop, carrying the f32 accumulator and nothing else.
  SmallVector<scf::ForOp> loops;
  module->walk([&](scf::ForOp loop) { loops.push_back(loop); });
  ASSERT_EQ(loops.size(), 1u);
  ASSERT_EQ(loops[0].getNumRegionIterArgs(), 1u);
  EXPECT_EQ(loops[0].getRegionIterArgs()[0].getType(), RankedTensorType::get({64, 32}, f32));
  EXPECT_EQ(loops[0].getStep().getType(), IntegerType::get(&context, 32));
  SmallVector<tile::DotOp> dots;
  loops[0].walk([&](tile::DotOp dot) { dots.push_back(dot); });
  ASSERT_EQ(dots.size(), 1u);
  EXPECT_EQ(dots[0].getA().getType(), RankedTensorType::get({64, 16}, operand));
  EXPECT_EQ(dots[0].getB().getType(), RankedTensorType::get({16, 32}, operand));
  EXPECT_EQ(dots[0].getAcc(), loops[0].getRegionIterArgs()[0]);
  EXPECT_EQ(countOps(*module, "tile.load"), 2);
  EXPECT_EQ(countOps(*module, "tile.store"), 1);
  EXPECT_EQ(countOps(*module, "arith.truncf"), operand == f32 ? 0 : 1);
}

TEST(ExampleKernelsTest, MatmulF32) { checkMatmul(examples::MatmulInputs::F32); }

TEST(ExampleKernelsTest, MatmulF16InputsAccumulateInF32) {
  checkMatmul(examples::MatmulInputs::F16);
}

TEST(ExampleKernelsTest, LayerNorm) {
  MLIRContext context;
  OwningOpRef<ModuleOp> module = examples::traceLayerNorm(context, 512);
  ASSERT_TRUE(succeeded(verify(*module)));
  EXPECT_EQ(countOps(*module, "scf.for"), 3);
  EXPECT_EQ(countOps(*module, "tile.reduce"), 2);
  EXPECT_EQ(countOps(*module, "math.rsqrt"), 1);
  EXPECT_EQ(countOps(*module, "arith.select"), 1);
  EXPECT_EQ(countOps(*module, "tile.load"), 5);
  EXPECT_EQ(countOps(*module, "tile.store"), 3);
  tile::FuncOp kernel = kernelOf(*module);
  EXPECT_EQ(kernel.getNumArguments(), 9u);
  EXPECT_TRUE(kernel.getArgumentTypes().back().isF32());
}

} // namespace
