// Hand-written LLVM-dialect kernels that follow the CPU kernel ABI
// (docs/runtime.md): what lowering/cpu emits, written out by hand so that the
// runtime is tested on its own.
#ifndef TESSERA_TESTS_UNIT_RUNTIME_CPU_TESTKERNELS_H
#define TESSERA_TESTS_UNIT_RUNTIME_CPU_TESTKERNELS_H

#include "runtime/Runtime.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/SmallString.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace tessera::testing {

/// vadd(x, y, out: ptr<f32>, n: i32): out[i] = x[i] + y[i] for i < n;
/// program x covers [256 x, 256 x + 256). Signature in tessera.kernel_arg_types.
extern const char *const kVectorAdd;
constexpr int kVectorAddBlock = 256;

/// count(counts: ptr<i32>, total: ptr<i64>): atomically adds 1 to
/// counts[x + nx * (y + ny * z)] and to *total. No signature attribute.
extern const char *const kCountPrograms;

/// check(out: ptr<i32>, limit: i32): program x asserts x < limit ("program id
/// below limit", file "check.py", line 42), then stores out[x] = x + 100.
extern const char *const kAssertKernel;

/// kinds(out: ptr<f64>, a: i64, b: f32, c: f64, h: f16, flag: i1, s: i8):
/// out[0..5] = a, b, c, h, flag, s as f64.
extern const char *const kScalarKinds;

/// A context with the LLVM and tile dialects loaded.
std::unique_ptr<mlir::MLIRContext> makeContext();
mlir::OwningOpRef<mlir::ModuleOp> parse(mlir::MLIRContext &context, const std::string &text);

/// A fresh directory under the system temp dir, removed with the object.
struct TempDir {
  llvm::SmallString<128> path;
  TempDir();
  ~TempDir();
  std::string str() const { return std::string(path); }
};

/// Device options for tests: `threads` threads, disk cache only in `cacheDir`.
runtime::CpuDeviceOptions deviceOptions(unsigned threads, const std::string &cacheDir = "");

} // namespace tessera::testing

/// ASSERT that an llvm::Error is success, printing it otherwise.
#define ASSERT_NO_ERR(expr)                                                                        \
  do {                                                                                             \
    if (llvm::Error err_ = (expr))                                                                 \
      FAIL() << llvm::toString(std::move(err_));                                                   \
  } while (0)

/// Unwraps an llvm::Expected or fails the test.
#define ASSERT_OK_AND_ASSIGN(var, expr)                                                            \
  auto var##Expected_ = (expr);                                                                    \
  if (!var##Expected_)                                                                             \
    FAIL() << llvm::toString(var##Expected_.takeError());                                          \
  auto var = std::move(*var##Expected_)

#endif
