// What the interpreter tells a user: out-of-bounds accesses with the kernel
// line, lane and program; failed assertions; unsupported ops; tile.print.
#include "InterpreterTestUtils.h"
#include "tests/unit/kernels/TileKernels.h"

#include "llvm/Support/FormatVariadic.h"

namespace tessera::interp::testing {
namespace {

using namespace tessera::test_kernels;

using DebuggingTest = InterpreterTest;

std::string copyKernel(bool maskLoad, bool maskStore) {
  std::string source = kCopy.str();
  source.replace(source.find("LOADMASK"), 8, maskLoad ? ", %mask" : "");
  source.replace(source.find("STOREMASK"), 9, maskStore ? ", %mask" : "");
  return source;
}

TEST_F(DebuggingTest, OutOfBoundsLoadNamesLineLaneAndProgram) {
  std::string source = copyKernel(/*maskLoad=*/false, /*maskStore=*/true);
  std::vector<float> src(420), dst(420);
  std::string error = run(source, "copy",
                          {bufferOf(src), bufferOf(dst), KernelArgument::integer(420)},
                          {4, 1, 1});
  unsigned line = lineOf(source, "tile.load");
  // Program 3 covers elements 384..511; lane 36 is element 420, byte 1680.
  EXPECT_EQ(error, llvm::formatv("kernel.mlir:{0}:8: out-of-bounds load: lane 36 reads byte "
                                 "offset 1680 of argument #0 (1680 bytes) in program (3, 0, 0)",
                                 line)
                       .str());
}

TEST_F(DebuggingTest, OutOfBoundsStoreIsReported) {
  std::string source = copyKernel(/*maskLoad=*/true, /*maskStore=*/false);
  std::vector<float> src(100), dst(100);
  std::string error = run(source, "copy",
                          {bufferOf(src), bufferOf(dst), KernelArgument::integer(100)},
                          {1, 1, 1});
  unsigned line = lineOf(source, "tile.store");
  EXPECT_EQ(error, llvm::formatv("kernel.mlir:{0}:3: out-of-bounds store: lane 100 writes byte "
                                 "offset 400 of argument #1 (400 bytes) in program (0, 0, 0)",
                                 line)
                       .str());
}

TEST_F(DebuggingTest, MaskedOffLanesAreNotChecked) {
  std::string source = copyKernel(/*maskLoad=*/true, /*maskStore=*/true);
  std::vector<float> src = randomFloats(100), dst(100);
  ASSERT_EQ(run(source, "copy", {bufferOf(src), bufferOf(dst), KernelArgument::integer(100)},
                {1, 1, 1}),
            "");
  EXPECT_EQ(dst, src);
}

TEST_F(DebuggingTest, FailedAssertReportsMessageAndLane) {
  EXPECT_EQ(run(kAssert, "check", {KernelArgument::integer(16)}, {2, 1, 1}), "");
  unsigned line = lineOf(kAssert, "tile.assert");
  EXPECT_EQ(run(kAssert, "check", {KernelArgument::integer(9)}, {2, 1, 1}),
            llvm::formatv("kernel.mlir:{0}:3: assertion failed: index out of range (lane 9) in "
                          "program (0, 0, 0)",
                          line)
                .str());
}

TEST_F(DebuggingTest, UnsupportedOpIsNamed) {
  constexpr llvm::StringLiteral kIsNormal = R"mlir(
tile.func @isnormal(%x: f32) {
  %y = math.isnormal %x : f32
  tile.return
}
)mlir";
  EXPECT_EQ(run(kIsNormal, "isnormal", {KernelArgument::floating(1.0)}, {1, 1, 1}),
            "kernel.mlir:3:8: unsupported operation 'math.isnormal' in the interpreter in "
            "program (0, 0, 0)");
}

TEST_F(DebuggingTest, CallOfALibraryOtherThanLibdeviceIsNamed) {
  EXPECT_EQ(run(kUnsupported, "ext", {KernelArgument::floating(1.0)}, {1, 1, 1}),
            "kernel.mlir:3:8: calls 'my_erff' of library 'mylib': the interpreter computes "
            "libdevice's functions (__nv_*) only in program (0, 0, 0)");
}

TEST_F(DebuggingTest, LoadOutsideEveryBufferIsReported) {
  std::vector<float> data(4);
  EXPECT_EQ(run(kStrayPointer, "stray", {bufferOf(data)}, {1, 1, 1}),
            "kernel.mlir:5:8: out-of-bounds load: lane 0 reads address 0x0000000000000010 "
            "outside every buffer argument in program (0, 0, 0)");
}

TEST_F(DebuggingTest, ArgumentsAreCheckedAgainstTheSignature) {
  EXPECT_EQ(run(kStrayPointer, "stray", {KernelArgument::integer(1)}, {1, 1, 1}),
            "argument #0: the kernel declares !tile.ptr<f32>, which takes a buffer");
  EXPECT_EQ(run(kStrayPointer, "missing", {}, {1, 1, 1}),
            "no tile.func named @missing in the module");
}

TEST_F(DebuggingTest, PrintWritesOneLinePerElementWithProgramId) {
  std::string text;
  llvm::raw_string_ostream os(text);
  InterpreterOptions options;
  options.printStream = &os;
  ASSERT_EQ(run(kPrint, "show", {KernelArgument::integer(-2)}, {2, 1, 1}, options), "");
  EXPECT_EQ(text, "pid (0, 0, 0) idx (0) x = 0.000000\n"
                  "pid (0, 0, 0) idx (1) x = 1.000000\n"
                  "pid (0, 0, 0) idx (2) x = 2.000000\n"
                  "pid (0, 0, 0) s: 0xfffffffe\n"
                  "pid (0, 0, 0) pair (operand 0) 0\n"
                  "pid (0, 0, 0) pair (operand 1) -2\n"
                  "pid (1, 0, 0) idx (0) x = 0.000000\n"
                  "pid (1, 0, 0) idx (1) x = 1.000000\n"
                  "pid (1, 0, 0) idx (2) x = 2.000000\n"
                  "pid (1, 0, 0) s: 0xfffffffe\n"
                  "pid (1, 0, 0) pair (operand 0) 1\n"
                  "pid (1, 0, 0) pair (operand 1) -2\n");
}

} // namespace
} // namespace tessera::interp::testing
