// The builder API both front doors call: Triton's typing rules, the IR it
// makes, and errors at the caller's location instead of invalid IR.
#include "frontend/KernelBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace tessera;
using namespace tessera::frontend;

namespace {

class KernelBuilderTest : public ::testing::Test {
protected:
  KernelBuilderTest() : kb(context) {}

  // A location per test line, as a front end would pass it.
  static SourceLocation at(unsigned line) { return {"kernel.py", line, 5}; }

  std::vector<Value> begin(std::vector<KernelArg> args) {
    return kb.beginKernel("kernel", args, at(1));
  }
  Type f32() { return Float32Type::get(&context); }
  Type i32() { return IntegerType::get(&context, 32); }
  Type ptr(Type pointee) { return kb.pointerType(pointee); }

  // Runs `fn`, expecting a KernelError; returns it.
  template <class Fn> KernelError expectError(Fn fn) {
    try {
      fn();
    } catch (const KernelError &error) {
      return error;
    }
    ADD_FAILURE() << "no KernelError was thrown";
    return KernelError({}, "");
  }

  MLIRContext context;
  KernelBuilder kb;
};

TEST_F(KernelBuilderTest, VectorAddTracesAndVerifies) {
  auto args = begin({{ptr(f32()), 16}, {ptr(f32()), 16}, {i32(), 0}});
  Value offsets = kb.binary(BinaryOp::Add,
                            kb.binary(BinaryOp::Mul, kb.programId(0, at(2)),
                                      kb.literal(int64_t{64}, Type(), at(2)), at(2)),
                            kb.arange(0, 64, at(2)), at(2));
  Value mask = kb.compare(CompareOp::Lt, offsets, args[2], at(3));
  Value x = kb.load(kb.binary(BinaryOp::Add, args[0], offsets, at(4)), mask, {}, {}, at(4));
  kb.store(kb.binary(BinaryOp::Add, args[1], offsets, at(5)), x, mask, {}, at(5));
  OwningOpRef<ModuleOp> module = kb.finish(at(6));

  auto func = cast<tile::FuncOp>(module->getBody()->front());
  EXPECT_EQ(func.getArgAttrOfType<IntegerAttr>(0, "tile.divisibility").getInt(), 16);
  EXPECT_FALSE(func.getArgAttr(2, "tile.divisibility"));
  int loads = 0;
  module->walk([&](tile::LoadOp load) {
    ++loads;
    auto loc = cast<FileLineColLoc>(load.getLoc());
    EXPECT_EQ(loc.getFilename(), "kernel.py");
    EXPECT_EQ(loc.getLine(), 4u);
  });
  EXPECT_EQ(loads, 1);
}

TEST_F(KernelBuilderTest, PromotesIntegersToFloatsAndNarrowToWide) {
  begin({});
  Value i = kb.constant(int64_t{2}, i32(), at(2));
  Value f = kb.constant(1.5, f32(), at(2));
  Value h = kb.constant(1.0, Float16Type::get(&context), at(2));
  Value bf = kb.constant(1.0, BFloat16Type::get(&context), at(2));
  EXPECT_EQ(kb.binary(BinaryOp::Add, i, f, at(3)).getType(), f32());
  EXPECT_EQ(kb.binary(BinaryOp::Mul, h, f, at(3)).getType(), f32());
  EXPECT_EQ(kb.binary(BinaryOp::Add, h, bf, at(3)).getType(), f32());
  EXPECT_EQ(kb.binary(BinaryOp::Add, bf, i, at(3)).getType(), f32());
  EXPECT_EQ(kb.binary(BinaryOp::Mul, bf, bf, at(3)).getType(), bf.getType());
  EXPECT_EQ(kb.binary(BinaryOp::TrueDiv, i, i, at(3)).getType(), f32());
  EXPECT_EQ(kb.binary(BinaryOp::Div, i, i, at(3)).getType(), i32());
  EXPECT_EQ(kb.literal(int64_t{3}, h.getType(), at(4)).getType(), h.getType());
  EXPECT_EQ(kb.literal(0.5, i.getType(), at(4)).getType(), f32());
}

TEST_F(KernelBuilderTest, UnsignedOperandsPickTheUnsignedOps) {
  auto args = begin({{ptr(i32()), 16}});
  Value x = kb.arange(0, 16, at(2));
  constexpr Signedness u = Signedness::Unsigned;
  EXPECT_TRUE(kb.binary(BinaryOp::Div, x, x, at(3), u).getDefiningOp<arith::DivUIOp>());
  EXPECT_TRUE(kb.binary(BinaryOp::Mod, x, x, at(3), u).getDefiningOp<arith::RemUIOp>());
  EXPECT_TRUE(kb.binary(BinaryOp::Shr, x, x, at(3), u).getDefiningOp<arith::ShRUIOp>());
  EXPECT_TRUE(kb.binary(BinaryOp::Maximum, x, x, at(3), u).getDefiningOp<arith::MaxUIOp>());
  EXPECT_TRUE(kb.binary(BinaryOp::Minimum, x, x, at(3), u).getDefiningOp<arith::MinUIOp>());
  EXPECT_TRUE(kb.binary(BinaryOp::Shr, x, x, at(3)).getDefiningOp<arith::ShRSIOp>());
  auto less = kb.compare(CompareOp::Lt, x, x, at(4), u).getDefiningOp<arith::CmpIOp>();
  ASSERT_TRUE(less);
  EXPECT_EQ(less.getPredicate(), arith::CmpIPredicate::ult);
  Value largest = kb.reduce(ReduceKind::Max, x, 0, false, at(5), u);
  Operation *combine = &largest.getDefiningOp<tile::ReduceOp>().getCombineOp().front().front();
  EXPECT_TRUE(isa<arith::MaxUIOp>(combine));
  Value ptrs = kb.binary(BinaryOp::Add, args[0], x, at(6));
  auto atomicMin = kb.atomic(AtomicKind::Min, ptrs, x, {}, tile::MemSemantic::Relaxed,
                             tile::MemScope::GPU, at(6), u)
                       .getDefiningOp<tile::AtomicRMWOp>();
  ASSERT_TRUE(atomicMin);
  EXPECT_EQ(atomicMin.getRmwOp(), tile::RMWOp::UMin);
  Value asFloat = kb.cast(x, f32(), at(7), {.sourceUnsigned = true});
  EXPECT_TRUE(asFloat.getDefiningOp<arith::UIToFPOp>());
  EXPECT_TRUE(kb.cast(asFloat, i32(), at(7), {.targetUnsigned = true})
                  .getDefiningOp<arith::FPToUIOp>());
  EXPECT_NO_THROW(kb.finish(at(8)));
}

TEST_F(KernelBuilderTest, BroadcastsScalarsRanksAndUnitDimensions) {
  begin({});
  Value row = kb.expandDims(kb.arange(0, 8, at(2)), 0, at(2)); // [1, 8]
  Value col = kb.expandDims(kb.arange(0, 4, at(2)), 1, at(2)); // [4, 1]
  Value grid = kb.binary(BinaryOp::Add, row, col, at(3));
  EXPECT_EQ(KernelBuilder::shapeOf(grid), (std::vector<int64_t>{4, 8}));
  Value plusVector = kb.binary(BinaryOp::Add, grid, kb.arange(0, 8, at(4)), at(4));
  EXPECT_EQ(KernelBuilder::shapeOf(plusVector), (std::vector<int64_t>{4, 8}));
  Value plusScalar = kb.binary(BinaryOp::Mul, grid, kb.literal(int64_t{3}, KernelBuilder::elementType(grid), at(5)), at(5));
  EXPECT_EQ(KernelBuilder::shapeOf(plusScalar), (std::vector<int64_t>{4, 8}));
  EXPECT_NO_THROW(kb.finish(at(6)));
}

TEST_F(KernelBuilderTest, IncompatibleShapesAreReported) {
  begin({});
  Value grid = kb.zeros({4, 8}, f32(), at(2));
  Value vector = kb.zeros({16}, f32(), at(3));
  KernelError error = expectError([&] { kb.binary(BinaryOp::Add, grid, vector, at(7)); });
  EXPECT_EQ(error.message(), "shapes [4, 8] and [16] cannot be broadcast");
  EXPECT_EQ(error.location(), at(7));
  EXPECT_STREQ(error.what(), "kernel.py:7:5: error: shapes [4, 8] and [16] cannot be broadcast");
}

TEST_F(KernelBuilderTest, PointerArithmeticNeedsIntegerOffsets) {
  auto args = begin({{ptr(f32()), 16}});
  Value offsets = kb.arange(0, 16, at(2));
  Value ptrs = kb.binary(BinaryOp::Add, args[0], offsets, at(3));
  EXPECT_EQ(ptrs.getType(), RankedTensorType::get({16}, ptr(f32())));
  EXPECT_TRUE(kb.binary(BinaryOp::Sub, ptrs, kb.literal(int64_t{1}, Type(), at(4)), at(4))
                  .getDefiningOp<tile::AddPtrOp>());
  Value half = kb.constant(0.5, f32(), at(5));
  EXPECT_EQ(expectError([&] { kb.binary(BinaryOp::Add, args[0], half, at(6)); }).message(),
            "cannot add f32 to a pointer");
  EXPECT_EQ(expectError([&] { kb.binary(BinaryOp::Mul, args[0], offsets, at(6)); }).message(),
            "operator * is not defined for pointers");
}

TEST_F(KernelBuilderTest, LoadingThroughAFloatIsReported) {
  begin({});
  Value floats = kb.zeros({64}, f32(), at(2));
  EXPECT_EQ(expectError([&] { kb.load(floats, {}, {}, {}, at(3)); }).message(),
            "load needs a pointer or a tile of pointers, got tensor<64xf32>");
}

TEST_F(KernelBuilderTest, MaskMustBroadcastToThePointerTile) {
  auto args = begin({{ptr(f32()), 16}});
  Value rows = kb.expandDims(kb.arange(0, 64, at(2)), 1, at(2));
  Value cols = kb.expandDims(kb.arange(0, 32, at(2)), 0, at(2));
  Value ptrs = kb.binary(BinaryOp::Add, kb.binary(BinaryOp::Add, args[0], rows, at(3)), cols, at(3));
  Value mask = kb.compare(CompareOp::Lt, kb.arange(0, 64, at(4)), kb.literal(int64_t{10}, {}, at(4)), at(4));
  KernelError error = expectError([&] { kb.load(ptrs, mask, {}, {}, at(9)); });
  EXPECT_EQ(error.message(), "mask of shape [64] does not match pointer tile [64, 32]");
  EXPECT_EQ(error.location().line, 9u);
  // A column mask broadcasts along the rows.
  Value colMask = kb.compare(CompareOp::Lt, cols, kb.literal(int64_t{10}, {}, at(5)), at(5));
  Value loaded = kb.load(ptrs, colMask, kb.literal(0.0, {}, at(5)), {}, at(5));
  EXPECT_EQ(KernelBuilder::shapeOf(loaded), (std::vector<int64_t>{64, 32}));
}

TEST_F(KernelBuilderTest, ArangeLengthMustBeAPowerOfTwo) {
  begin({});
  EXPECT_EQ(expectError([&] { kb.arange(0, 100, at(2)); }).message(),
            "arange length must be a power of two, got 100");
}

TEST_F(KernelBuilderTest, DotChecksRanksAndK) {
  begin({});
  Value a = kb.zeros({16, 32}, f32(), at(2));
  Value b = kb.zeros({16, 16}, f32(), at(2));
  Value v = kb.zeros({16}, f32(), at(2));
  EXPECT_EQ(expectError([&] { kb.dot(a, b, {}, tile::InputPrecision::TF32, at(3)); }).message(),
            "dot: K of a [16, 32] is 32 but K of b [16, 16] is 16");
  EXPECT_EQ(expectError([&] { kb.dot(v, b, {}, tile::InputPrecision::TF32, at(3)); }).message(),
            "dot needs two tiles of rank 2 (or both of rank 3, with a batch dimension), got [16] "
            "and [16, 16]");
  Value c = kb.dot(b, a, {}, tile::InputPrecision::IEEE, at(4));
  EXPECT_EQ(c.getType(), RankedTensorType::get({16, 32}, f32()));
}

TEST_F(KernelBuilderTest, VerifierDiagnosticsBecomeErrorsAtTheOpLocation) {
  begin({});
  Type f16 = Float16Type::get(&context);
  Value a = kb.zeros({16, 16}, f16, at(2));
  Value acc = kb.zeros({16, 16}, i32(), at(3));
  kb.dot(a, a, acc, tile::InputPrecision::TF32, at(12)); // f16 cannot accumulate in i32
  KernelError error = expectError([&] { kb.finish(at(20)); });
  EXPECT_EQ(error.location(), at(12));
  EXPECT_NE(error.message().find("unsupported operand/accumulator types"), std::string::npos)
      << error.message();
}

TEST_F(KernelBuilderTest, ReductionsBuildCombineRegions) {
  begin({});
  Value x = kb.zeros({8, 32}, f32(), at(2));
  EXPECT_EQ(kb.reduce(ReduceKind::Sum, x, 1, false, at(3)).getType(),
            RankedTensorType::get({8}, f32()));
  EXPECT_EQ(kb.reduce(ReduceKind::Max, x, 0, true, at(3)).getType(),
            RankedTensorType::get({1, 32}, f32()));
  EXPECT_EQ(kb.reduce(ReduceKind::Min, x, std::nullopt, false, at(3)).getType(), f32());
  EXPECT_EQ(kb.reduce(ReduceKind::ArgMax, x, -1, false, at(4)).getType(),
            RankedTensorType::get({8}, i32()));
  // Sums are in the type given: the front ends widen small integers first.
  Value bytes = kb.zeros({16}, IntegerType::get(&context, 8), at(5));
  EXPECT_EQ(kb.reduce(ReduceKind::Sum, bytes, 0, false, at(5)).getType(),
            IntegerType::get(&context, 8));
  EXPECT_EQ(kb.cumsum(x, 1, false, at(6)).getType(), x.getType());
  EXPECT_EQ(expectError([&] { kb.reduce(ReduceKind::Sum, x, 2, false, at(7)); }).message(),
            "sum: axis 2 is out of range for a tile of rank 2");
  EXPECT_NO_THROW(kb.finish(at(8)));
}

TEST_F(KernelBuilderTest, CastsFollowTheElementKinds) {
  begin({});
  Value i = kb.zeros({4}, i32(), at(2));
  Value f = kb.cast(i, f32(), at(3));
  EXPECT_TRUE(f.getDefiningOp<arith::SIToFPOp>());
  EXPECT_TRUE(kb.cast(i, f32(), at(3), {.sourceUnsigned = true}).getDefiningOp<arith::UIToFPOp>());
  EXPECT_TRUE(kb.cast(f, Float16Type::get(&context), at(4)).getDefiningOp<arith::TruncFOp>());
  EXPECT_TRUE(kb.cast(f, i32(), at(4), {.bitcast = true}).getDefiningOp<arith::BitcastOp>());
  EXPECT_TRUE(kb.cast(f, IntegerType::get(&context, 1), at(5)).getDefiningOp<arith::CmpFOp>());
  EXPECT_EQ(expectError([&] { kb.cast(f, IntegerType::get(&context, 64), at(6), {.bitcast = true}); })
                .message(),
            "cannot bitcast f32 to i64: the bit widths differ");
  EXPECT_NO_THROW(kb.finish(at(7)));
}

TEST_F(KernelBuilderTest, ControlFlowCarriesValues) {
  auto args = begin({{i32(), 0}});
  Value n = args[0];
  Value zero = kb.literal(int64_t{0}, {}, at(2)), one = kb.literal(int64_t{1}, {}, at(2));
  std::vector<Value> sum = kb.forLoop(zero, n, one, {kb.zeros({16}, f32(), at(3))},
                                      [&](Value iv, ArrayRef<Value> carried) {
                                        EXPECT_EQ(iv.getType(), i32());
                                        return std::vector<Value>{kb.binary(
                                            BinaryOp::Add, carried[0], kb.cast(iv, f32(), at(4)), at(4))};
                                      },
                                      at(3));
  Value positive = kb.compare(CompareOp::Gt, n, zero, at(5));
  std::vector<Value> picked = kb.ifThenElse(
      positive, [&] { return std::vector<Value>{sum[0]}; },
      [&] { return std::vector<Value>{kb.zeros({16}, f32(), at(6))}; }, at(5));
  EXPECT_EQ(picked[0].getType(), sum[0].getType());
  std::vector<Value> counted = kb.whileLoop(
      {zero}, [&](ArrayRef<Value> v) { return std::vector<Value>{kb.compare(CompareOp::Lt, v[0], n, at(7))}; },
      [&](ArrayRef<Value> v) { return std::vector<Value>{kb.binary(BinaryOp::Add, v[0], one, at(8))}; },
      at(7));
  EXPECT_EQ(counted[0].getType(), i32());
  KernelError mismatch = expectError([&] {
    kb.ifThenElse(positive, [&] { return std::vector<Value>{zero}; },
                  [&] { return std::vector<Value>{kb.constant(0.0, f32(), at(9))}; }, at(9));
  });
  EXPECT_EQ(mismatch.message(), "if/else branches yield different types: then yields (i32), else yields (f32)");
}

TEST_F(KernelBuilderTest, JoinSplitAndCatCheckTheirOperands) {
  auto args = begin({{ptr(f32()), 16}});
  Value x = kb.load(kb.binary(BinaryOp::Add, args[0], kb.arange(0, 16, at(2)), at(2)), {}, {}, {},
                    at(2));
  Value ints = kb.arange(0, 16, at(3));
  EXPECT_EQ(expectError([&] { kb.join(x, ints, at(4)); }).message(),
            "join needs two values of one element type, got f32 and i32");
  EXPECT_EQ(expectError([&] { kb.split(x, at(5)); }).message(),
            "split needs a tile whose last dimension is 2, got [16]");
  EXPECT_EQ(expectError([&] { kb.cat(x, kb.reshape(x, {4, 4}, at(6)), 0, at(6)); }).message(),
            "cat needs two tiles of one shape and element type, got tensor<16xf32> and "
            "tensor<4x4xf32>");
  EXPECT_EQ(expectError([&] { kb.cat(x, x, 1, at(7)); }).message(),
            "cat: axis 1 is out of range for a tile of rank 1");
  Value pair = kb.join(kb.literal(1.0, {}, at(8)), kb.literal(2.0, {}, at(8)), at(8));
  EXPECT_EQ(pair.getType(), RankedTensorType::get({2}, f32()));
  auto [one, two] = kb.split(pair, at(9));
  EXPECT_EQ(one.getType(), f32());
  EXPECT_EQ(kb.join(x, one, at(10)).getType(), RankedTensorType::get({16, 2}, f32()));
  EXPECT_NO_THROW(kb.finish(at(11)));
}

TEST_F(KernelBuilderTest, LoopBodyMustKeepCarriedTypes) {
  auto args = begin({{i32(), 0}});
  Value zero = kb.literal(int64_t{0}, {}, at(2)), one = kb.literal(int64_t{1}, {}, at(2));
  KernelError error = expectError([&] {
    kb.forLoop(zero, args[0], one, {kb.zeros({16}, f32(), at(3))},
               [&](Value, ArrayRef<Value>) { return std::vector<Value>{kb.zeros({16}, i32(), at(4))}; },
               at(3));
  });
  EXPECT_EQ(error.message(),
            "for loop: carried value #0 enters as tensor<16xf32> but the body yields tensor<16xi32>");
  EXPECT_EQ(error.location(), at(3));
}

TEST_F(KernelBuilderTest, AtomicsDescriptorsAndDebugOpsVerify) {
  auto args = begin({{ptr(f32()), 16}, {ptr(i32()), 16}, {i32(), 0}});
  Value offsets = kb.arange(0, 32, at(2));
  Value ptrs = kb.binary(BinaryOp::Add, args[0], offsets, at(2));
  Value old = kb.atomic(AtomicKind::Add, ptrs, kb.literal(1.0, {}, at(3)), {},
                        tile::MemSemantic::AcqRel, tile::MemScope::GPU, at(3));
  EXPECT_EQ(old.getType(), RankedTensorType::get({32}, f32()));
  kb.atomicCas(args[1], kb.literal(int64_t{0}, {}, at(4)), kb.literal(int64_t{1}, {}, at(4)),
               tile::MemSemantic::AcqRel, tile::MemScope::GPU, at(4));
  EXPECT_EQ(expectError([&] {
              kb.atomic(AtomicKind::Xor, ptrs, old, {}, tile::MemSemantic::Relaxed,
                        tile::MemScope::GPU, at(5));
            }).message(),
            "atomic_xor needs integer elements, got f32");
  Value one = kb.literal(int64_t{1}, {}, at(6));
  Value desc = kb.makeTensorDescriptor(args[0], {args[2], args[2]}, {args[2], one}, {16, 32},
                                       tile::PaddingOption::Zero, at(6));
  EXPECT_EQ(expectError([&] {
              kb.makeTensorDescriptor(args[1], {args[2]}, {one}, {16}, tile::PaddingOption::NaN,
                                      at(6));
            }).message(),
            "make_tensor_descriptor: NaN padding needs floating-point elements, got i32");
  EXPECT_EQ(expectError([&] { kb.descriptorGather(desc, kb.arange(0, 8, at(6)), one, at(6)); })
                .message(),
            "descriptor gather needs a 2-D descriptor whose block is one row, got block shape "
            "[16, 32]");
  EXPECT_EQ(expectError([&] {
              kb.descriptorAtomic(AtomicKind::Add, desc, {one, one}, kb.zeros({8}, f32(), at(6)),
                                  at(6));
            }).message(),
            "value of shape [8] does not match the descriptor block [16, 32]");
  Value block = kb.descriptorLoad(desc, {one, one}, at(7));
  EXPECT_EQ(block.getType(), RankedTensorType::get({16, 32}, f32()));
  kb.descriptorStore(desc, {one, one}, kb.unary(UnaryOp::Sigmoid, block, at(8)), at(8));
  kb.print("block = ", {block}, false, at(9));
  kb.assertTrue(kb.compare(CompareOp::Ge, offsets, kb.literal(int64_t{0}, {}, at(10)), at(10)),
                "negative offset", at(10));
  EXPECT_NO_THROW(kb.finish(at(11)));
}

} // namespace
