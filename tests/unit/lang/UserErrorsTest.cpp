// One test per user mistake: the exact message, reported at the line of the
// test kernel that made it.
#include "lang/Tessera.h"
#include "tests/unit/lang/LangTestUtils.h"

using namespace tessera::lang;
using tessera::testing::expectKernelError;

namespace {

// Traces `kernel`, which must fail; checks the message and that the error
// points at `line` of this file (set by the kernel as it is traced).
template <class Fn> void expectMistake(Fn kernel, const int &line, const std::string &message) {
  KernelError error = expectKernelError([&] { trace("mistake", kernel); });
  EXPECT_EQ(error.message(), message);
  EXPECT_EQ(error.location().file, __FILE__);
  EXPECT_EQ(error.location().line, static_cast<unsigned>(line)) << error.what();
}

TEST(UserErrorsTest, ShapeMismatch) {
  int line = 0;
  expectMistake(
      [&](Ptr<float> x) {
        Tile<float> grid = zeros<float>({4, 8});
        Tile<float> vector = zeros<float>({16});
        line = __LINE__ + 1;
        [[maybe_unused]] Tile<float> bad = grid + vector;
      },
      line, "shapes [4, 8] and [16] cannot be broadcast");
}

TEST(UserErrorsTest, MaskOfTheWrongShape) {
  int line = 0;
  expectMistake(
      [&](Ptr<float> x, Int n) {
        Tile<int32_t> rows = arange(0, 64), cols = arange(0, 32);
        Tile<Ptr<float>> ptrs = x + rows.expand(1) * 32 + cols.expand(0); // [64, 32]
        Mask rowMask = rows < n;                                           // [64]
        line = __LINE__ + 1;
        [[maybe_unused]] Tile<float> bad = load(ptrs, rowMask);
      },
      line, "mask of shape [64] does not match pointer tile [64, 32]");
}

TEST(UserErrorsTest, DotOfWrongRanks) {
  int line = 0;
  expectMistake(
      [&](Ptr<float> x) {
        Tile<float> a = zeros<float>({16}), b = zeros<float>({16, 16});
        line = __LINE__ + 1;
        [[maybe_unused]] Tile<float> bad = dot(a, b);
      },
      line, "dot needs two tiles of rank 2 (or both of rank 3, with a batch dimension), got [16] "
            "and [16, 16]");
}

TEST(UserErrorsTest, DotOfMismatchedK) {
  int line = 0;
  expectMistake(
      [&](Ptr<float> x) {
        Tile<float> a = zeros<float>({16, 32}), b = zeros<float>({16, 16});
        line = __LINE__ + 1;
        [[maybe_unused]] Tile<float> bad = dot(a, b);
      },
      line, "dot: K of a [16, 32] is 32 but K of b [16, 16] is 16");
}

TEST(UserErrorsTest, FloatUsedAsAPointerOffset) {
  int line = 0;
  expectMistake(
      [&](Ptr<float> x, Float scale) {
        line = __LINE__ + 1;
        [[maybe_unused]] Ptr<float> bad = x + scale;
      },
      line, "cannot add f32 to a pointer");
}

TEST(UserErrorsTest, FloatLoadedAsAPointer) {
  int line = 0;
  expectMistake(
      [&](Ptr<int64_t> addresses) {
        // An integer reinterpreted as an address is fine; a float is not.
        Tile<float> notAddresses = load(addresses + arange(0, 16)).to<float>();
        line = __LINE__ + 1;
        [[maybe_unused]] Tile<Ptr<float>> bad = notAddresses.to<Ptr<float>>();
      },
      line, "cannot convert f32 to !tile.ptr<f32> (pointers convert to and from i64 only)");
}

TEST(UserErrorsTest, ArangeOfNonPowerOfTwoLength) {
  int line = 0;
  expectMistake(
      [&](Ptr<float> x) {
        line = __LINE__ + 1;
        [[maybe_unused]] Tile<int32_t> bad = arange(0, 100);
      },
      line, "arange length must be a power of two, got 100");
}

TEST(UserErrorsTest, LoopCarriedValueChangesShape) {
  // Typed handles catch a changed element type at compile time; shapes are
  // checked when tracing, and reported at the loop.
  int line = 0;
  expectMistake(
      [&](Ptr<float> x, Int n) {
        line = __LINE__ + 1;
        for_range(0, n, 1, std::tuple{zeros<float>({16})}, [&](Int i, Tile<float> acc) {
          return std::tuple{zeros<float>({32})};
        });
      },
      line, "for loop: carried value #0 enters as tensor<16xf32> but the body yields tensor<32xf32>");
}

TEST(UserErrorsTest, VerifierErrorsPointAtTheUserLine) {
  int line = 0;
  expectMistake(
      [&](Ptr<float> x) {
        Tile<f16> a = zeros<f16>({16, 16});
        Tile<int32_t> acc = zeros<int32_t>({16, 16});
        line = __LINE__ + 1;
        [[maybe_unused]] Tile<int32_t> bad = dot(a, a, acc);
      },
      line, "'tile.dot' op unsupported operand/accumulator types 'f16' -> 'i32' (supported: "
            "f16->f32|f16, bf16->f32, f32->f32, f64->f64, f8->f32|f16, i8->i32)");
}

TEST(UserErrorsTest, HintThatDoesNotDivideTheRow) {
  int line = 0;
  expectMistake(
      [&](Ptr<int32_t> x) {
        Tile<int32_t> offs = arange(0, 64);
        line = __LINE__ + 1;
        Tile<int32_t> bad = max_contiguous(offs, 48);
        store(x + bad, offs);
      },
      line, "'tile.hint' op max_contiguous must divide the last dimension (64), got 48");
}

TEST(UserErrorsTest, OperationsOutsideATraceAreRejected) {
  KernelError error = expectKernelError([] { program_id(0); });
  EXPECT_EQ(error.message(), "EDSL operations can only be used inside a kernel being traced");
  EXPECT_EQ(error.location().line, static_cast<unsigned>(__LINE__ - 2));
}

} // namespace
