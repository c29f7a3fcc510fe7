// Helpers for the EDSL tests: counting ops and catching kernel errors.
#ifndef TESSERA_TESTS_UNIT_LANG_LANGTESTUTILS_H
#define TESSERA_TESTS_UNIT_LANG_LANGTESTUTILS_H

#include "frontend/KernelError.h"

#include "mlir/IR/BuiltinOps.h"

#include <gtest/gtest.h>

namespace tessera::testing {

/// How many ops named `name` (e.g. "tile.dot") the module holds.
inline int countOps(mlir::ModuleOp module, llvm::StringRef name) {
  int count = 0;
  module.walk([&](mlir::Operation *op) { count += op->getName().getStringRef() == name; });
  return count;
}

/// Runs `fn`, which must throw a KernelError; returns it.
template <class Fn> frontend::KernelError expectKernelError(Fn fn) {
  try {
    fn();
  } catch (const frontend::KernelError &error) {
    return error;
  }
  ADD_FAILURE() << "no KernelError was thrown";
  return frontend::KernelError({}, "");
}

} // namespace tessera::testing

#endif // TESSERA_TESTS_UNIT_LANG_LANGTESTUTILS_H
