// Unsigned elements in the EDSL: a traced kernel run on the tile IR
// interpreter against C++'s own unsigned arithmetic, on random values that
// use the top bit, for sizes that are and are not multiples of the block.
#include "lang/Tessera.h"
#include "tests/unit/lang/LangTestUtils.h"
#include "tests/unit/runtime/interpreter/InterpreterTestUtils.h"

#include "mlir/IR/Verifier.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <limits>

namespace tessera::interp::testing {
namespace {

using namespace tessera::lang;

constexpr int64_t kBlock = 64;
constexpr int kResults = 7;

mlir::OwningOpRef<mlir::ModuleOp> traceUnsignedOps(mlir::MLIRContext &context) {
  return trace(context, "unsigned_ops",
               [](Ptr<uint32_t> x, Ptr<uint32_t> y, Ptr<uint8_t> bytes, Ptr<uint32_t> out,
                  Ptr<int32_t> ints, Ptr<float> floats, Ptr<uint32_t> largest, Int n) {
                 Tile<int32_t> offs = program_id(0) * kBlock + arange(0, kBlock);
                 Mask mask = offs < n;
                 Tile<uint32_t> a = load(x + offs, mask, 0);
                 Tile<uint32_t> b = load(y + offs, mask, 1);
                 Tile<uint8_t> c = load(bytes + offs, mask, 0);
                 store(out + offs, a / b, mask);
                 store(out + n + offs, a % b, mask);
                 store(out + 2 * n + offs, a >> 3, mask);
                 store(out + 3 * n + offs, maximum(a, b), mask);
                 store(out + 4 * n + offs, c + a, mask); // c zero-extended
                 store(out + 5 * n + offs, c / 7, mask); // uint8 division
                 store(out + 6 * n + offs, (a * 16777619) ^ b, mask);
                 store(ints + offs, (a < b).to<int32_t>(), mask);
                 store(ints + n + offs, c + offs * 0 - 1, mask); // int32: c - 1
                 store(floats + offs, a.to<float>(), mask);
                 store(floats + n + offs, c, mask); // by value: 200 -> 200.0
                 atomic_max(largest + offs * 0, a, mask);
               });
}

class UnsignedEdslTest : public InterpreterTest {
protected:
  std::vector<uint32_t> randomWords(size_t count) {
    std::uniform_int_distribution<uint32_t> dist(0, std::numeric_limits<uint32_t>::max());
    std::vector<uint32_t> values(count);
    for (uint32_t &value : values)
      value = dist(rng);
    return values;
  }
};

TEST_F(UnsignedEdslTest, TracesTheUnsignedOps) {
  mlir::OwningOpRef<mlir::ModuleOp> module = traceUnsignedOps(context);
  ASSERT_TRUE(module && mlir::succeeded(mlir::verify(*module)));
  for (const char *op : {"arith.divui", "arith.remui", "arith.shrui", "arith.maxui",
                         "arith.uitofp"})
    EXPECT_GE(tessera::testing::countOps(*module, op), 1) << op;
  EXPECT_EQ(tessera::testing::countOps(*module, "arith.divsi"), 0);
  EXPECT_EQ(tessera::testing::countOps(*module, "arith.shrsi"), 0);
}

TEST_F(UnsignedEdslTest, PrintsUnsignedElementsAsUnsigned) {
  mlir::OwningOpRef<mlir::ModuleOp> module =
      trace(context, "print_words", [](Ptr<uint64_t> x, Ptr<int64_t> y) {
        Tile<int32_t> offs = arange(0, 4);
        device_print("words ", {load(x + offs), load(y + offs)});
      });
  ASSERT_TRUE(module && mlir::succeeded(mlir::verify(*module)));
  std::vector<uint64_t> x = {~uint64_t{0}, 1, 2, 3};
  std::vector<int64_t> y = {-1, 1, 2, 3};
  std::string printed;
  llvm::raw_string_ostream os(printed);
  InterpreterOptions options;
  options.printStream = &os;
  ASSERT_EQ(llvm::toString(runKernel(*module, "print_words", {bufferOf(x), bufferOf(y)},
                                     {1, 1, 1}, options)),
            "");
  EXPECT_NE(printed.find("(operand 0) 18446744073709551615"), std::string::npos) << printed;
  EXPECT_NE(printed.find("(operand 1) -1"), std::string::npos) << printed;
}

TEST_F(UnsignedEdslTest, RunsAsCUnsignedArithmetic) {
  mlir::OwningOpRef<mlir::ModuleOp> module = traceUnsignedOps(context);
  for (int64_t n : {int64_t{1}, kBlock - 3, kBlock, 3 * kBlock + 5}) {
    SCOPED_TRACE(llvm::formatv("n={0}", n).str());
    std::vector<uint32_t> x = randomWords(n), y = randomWords(n);
    x[0] = 0xFFFFFFFFu;
    y[0] = 0x80000000u;
    for (uint32_t &divisor : y)
      divisor = std::max(divisor >> (divisor % 29), 1u);
    std::vector<uint8_t> bytes(n);
    for (int64_t i = 0; i < n; ++i)
      bytes[i] = static_cast<uint8_t>(randomWords(1)[0]);
    bytes[0] = 200;
    std::vector<uint32_t> out(kResults * n), largest{0};
    std::vector<int32_t> ints(2 * n);
    std::vector<float> floats(2 * n);
    unsigned programs = static_cast<unsigned>((n + kBlock - 1) / kBlock);
    ASSERT_EQ(llvm::toString(runKernel(*module, "unsigned_ops",
                                       {bufferOf(x), bufferOf(y), bufferOf(bytes), bufferOf(out),
                                        bufferOf(ints), bufferOf(floats), bufferOf(largest),
                                        KernelArgument::integer(n)},
                                       {programs, 1, 1})),
              "");
    for (int64_t i = 0; i < n; ++i) {
      SCOPED_TRACE(llvm::formatv("element {0}: x={1} y={2} byte={3}", i, x[i], y[i], bytes[i])
                       .str());
      const uint32_t expected[kResults] = {
          x[i] / y[i],           x[i] % y[i], x[i] >> 3, std::max(x[i], y[i]), bytes[i] + x[i],
          bytes[i] / 7u, (x[i] * 16777619u) ^ y[i]};
      for (int r = 0; r < kResults; ++r)
        EXPECT_EQ(out[r * n + i], expected[r]) << "result " << r;
      EXPECT_EQ(ints[i], x[i] < y[i] ? 1 : 0);
      EXPECT_EQ(ints[n + i], static_cast<int32_t>(bytes[i]) - 1);
      EXPECT_EQ(floats[i], static_cast<float>(x[i]));
      EXPECT_EQ(floats[n + i], static_cast<float>(bytes[i]));
    }
    EXPECT_EQ(largest[0], *std::max_element(x.begin(), x.end()));
  }
}

} // namespace
} // namespace tessera::interp::testing
