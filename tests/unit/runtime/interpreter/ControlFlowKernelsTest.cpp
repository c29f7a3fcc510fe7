// Control flow in kernels: device function calls, scf.if with results and
// scf.while, each checked against a plain C++ loop.
#include "InterpreterTestUtils.h"

namespace tessera::interp::testing {
namespace {

using ControlFlowKernelsTest = InterpreterTest;

// For each x: steps of the Collatz sequence to reach 1 (scf.while, scf.if),
// and x * x through a device function.
constexpr llvm::StringLiteral kCollatz = R"mlir(
tile.func private @square(%x: tensor<16xi32>) -> tensor<16xi32> {
  %y = arith.muli %x, %x : tensor<16xi32>
  tile.return %y : tensor<16xi32>
}
tile.func private @steps(%x: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %n:2 = scf.while (%v = %x, %count = %c0) : (i32, i32) -> (i32, i32) {
    %more = arith.cmpi ne, %v, %c1 : i32
    scf.condition(%more) %v, %count : i32, i32
  } do {
  ^bb0(%v: i32, %count: i32):
    %parity = arith.remui %v, %c2 : i32
    %odd = arith.cmpi eq, %parity, %c1 : i32
    %next = scf.if %odd -> (i32) {
      %t = arith.muli %v, %c3 : i32
      %u = arith.addi %t, %c1 : i32
      scf.yield %u : i32
    } else {
      %h = arith.divui %v, %c2 : i32
      scf.yield %h : i32
    }
    %inc = arith.addi %count, %c1 : i32
    scf.yield %next, %inc : i32, i32
  }
  tile.return %n#1 : i32
}
tile.func @collatz(%in: !tile.ptr<i32>, %steps: !tile.ptr<i32>, %squares: !tile.ptr<i32>) {
  %r = tile.make_range 0 to 16 : tensor<16xi32>
  %ib = tile.splat %in : !tile.ptr<i32> -> tensor<16x!tile.ptr<i32>>
  %ip = tile.addptr %ib, %r : tensor<16x!tile.ptr<i32>>, tensor<16xi32>
  %x = tile.load %ip : tensor<16x!tile.ptr<i32>>
  %sq = tile.call @square(%x) : (tensor<16xi32>) -> tensor<16xi32>
  %qb = tile.splat %squares : !tile.ptr<i32> -> tensor<16x!tile.ptr<i32>>
  %qp = tile.addptr %qb, %r : tensor<16x!tile.ptr<i32>>, tensor<16xi32>
  tile.store %qp, %sq : tensor<16x!tile.ptr<i32>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c16 step %c1 {
    %i32 = arith.index_cast %i : index to i32
    %p = tile.addptr %in, %i32 : !tile.ptr<i32>, i32
    %v = tile.load %p : !tile.ptr<i32>
    %s = tile.call @steps(%v) : (i32) -> i32
    %sp = tile.addptr %steps, %i32 : !tile.ptr<i32>, i32
    tile.store %sp, %s : !tile.ptr<i32>
  }
  tile.return
}
)mlir";

TEST_F(ControlFlowKernelsTest, WhileIfAndCalls) {
  std::vector<int32_t> in = randomInts(16, 1, 1000), steps(16), squares(16);
  ASSERT_EQ(run(kCollatz, "collatz", {bufferOf(in), bufferOf(steps), bufferOf(squares)}, {1, 1, 1}),
            "");
  for (int i = 0; i < 16; ++i) {
    int64_t v = in[i], count = 0;
    while (v != 1) {
      v = v % 2 ? 3 * v + 1 : v / 2;
      ++count;
    }
    EXPECT_EQ(steps[i], count) << "x = " << in[i];
    EXPECT_EQ(squares[i], in[i] * in[i]) << "x = " << in[i];
  }
}

} // namespace
} // namespace tessera::interp::testing
