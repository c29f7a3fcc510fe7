// Pointers to bool in the EDSL (`Ptr<bool>`, Triton's `*i1`): a byte per
// element in memory; a load reads a byte as `byte != 0`, a store writes 0 or 1,
// and a number stored through one is converted as `value != 0`.
#include "lang/Tessera.h"
#include "tests/unit/lang/LangTestUtils.h"
#include "tests/unit/runtime/interpreter/InterpreterTestUtils.h"

#include "mlir/IR/Verifier.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

namespace tessera::interp::testing {
namespace {

using namespace tessera::lang;

constexpr int64_t kBlock = 32;

class BoolPointerEdslTest : public InterpreterTest {};

TEST_F(BoolPointerEdslTest, LoadsBytesAsNonZeroAndStoresZeroOrOne) {
  mlir::OwningOpRef<mlir::ModuleOp> module =
      trace(context, "bool_ops",
            [](Ptr<bool> flags, Ptr<float> x, Ptr<bool> out, Ptr<int32_t> ints, Int n) {
              Tile<int32_t> offs = program_id(0) * kBlock + arange(0, kBlock);
              Mask mask = offs < n;
              Tile<bool> flag = load(flags + offs, mask, true);
              Tile<float> value = load(x + offs, mask, 0.0f);
              store(out + offs, ~flag | (value > 0.5f), mask);
              store(out + n + offs, value, mask); // value != 0
              store(ints + offs, flag.to<int32_t>() + 1, mask);
              // Unsigned, as in Triton: true > false, maximum(true, false) is true.
              Tile<bool> positive = value > 0.0f;
              store(ints + n + offs, (flag > positive).to<int32_t>(), mask);
              store(ints + 2 * n + offs, maximum(flag, positive).to<int32_t>(), mask);
              Scalar<uint32_t> count = sum(where(mask, flag, false), 0);
              Mask firstLane = offs == program_id(0) * kBlock;
              atomic_add(ints + 3 * n + offs * 0, count.to<int32_t>(), firstLane);
            });
  ASSERT_TRUE(module && mlir::succeeded(mlir::verify(*module)));
  for (int64_t n : {int64_t{1}, kBlock - 5, 2 * kBlock + 3}) {
    SCOPED_TRACE(llvm::formatv("n={0}", n).str());
    std::vector<uint8_t> flags(n), out(2 * n, 7);
    std::vector<float> x(n);
    std::vector<int32_t> ints(3 * n + 1);
    std::uniform_int_distribution<int> byte(0, 255);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    for (int64_t i = 0; i < n; ++i) {
      // Any byte but 0 is true, as C++ and NumPy read a bool they did not write.
      flags[i] = static_cast<uint8_t>(i % 3 == 0 ? 0 : byte(rng));
      x[i] = i % 4 == 0 ? 0.0f : uniform(rng);
    }
    unsigned programs = static_cast<unsigned>((n + kBlock - 1) / kBlock);
    ASSERT_EQ(llvm::toString(runKernel(*module, "bool_ops",
                                       {bufferOf(flags), bufferOf(x), bufferOf(out),
                                        bufferOf(ints), KernelArgument::integer(n)},
                                       {programs, 1, 1})),
              "");
    for (int64_t i = 0; i < n; ++i) {
      SCOPED_TRACE(llvm::formatv("element {0}: flag byte {1}, x={2}", i, flags[i], x[i]).str());
      bool flag = flags[i] != 0;
      EXPECT_EQ(out[i], (!flag || x[i] > 0.5f) ? 1 : 0);
      EXPECT_EQ(out[n + i], x[i] != 0.0f ? 1 : 0);
      EXPECT_EQ(ints[i], flag ? 2 : 1);
      EXPECT_EQ(ints[n + i], flag && !(x[i] > 0.0f) ? 1 : 0);
      EXPECT_EQ(ints[2 * n + i], flag || x[i] > 0.0f ? 1 : 0);
    }
    EXPECT_EQ(ints[3 * n], std::count_if(flags.begin(), flags.end(), [](uint8_t b) { return b; }));
  }
}

} // namespace
} // namespace tessera::interp::testing
