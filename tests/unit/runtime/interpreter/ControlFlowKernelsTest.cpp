// Control flow in kernels: device function calls, scf.if with results and
// scf.while, each checked against a plain C++ loop.
#include "InterpreterTestUtils.h"
#include "tests/unit/kernels/TileKernels.h"

namespace tessera::interp::testing {
namespace {

using namespace tessera::test_kernels;

using ControlFlowKernelsTest = InterpreterTest;

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
