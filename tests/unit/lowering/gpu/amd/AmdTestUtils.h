// Shared helpers of the AMD pipeline tests: parsing kernels, running the
// LLVM tools on a code object.
#ifndef TESSERA_TESTS_UNIT_LOWERING_GPU_AMD_AMDTESTUTILS_H
#define TESSERA_TESTS_UNIT_LOWERING_GPU_AMD_AMDTESTUTILS_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::gpu::amd::testing {

/// A context with what the AMD steps need registered.
std::unique_ptr<mlir::MLIRContext> makeAmdContext();

/// Parses `text`; null (with the parser's message on stderr) on failure.
mlir::OwningOpRef<mlir::ModuleOp> parseKernel(mlir::MLIRContext &context, llvm::StringRef text);

/// Runs `tool` (a program of the LLVM this build uses) with `arguments` on a
/// temporary copy of `codeObject`, appended as the last argument; returns its
/// standard output, or "error: ..." when it cannot run or fails.
std::string runLlvmTool(llvm::StringRef tool, llvm::ArrayRef<std::string> arguments,
                        llvm::ArrayRef<uint8_t> codeObject);

} // namespace tessera::gpu::amd::testing

#endif // TESSERA_TESTS_UNIT_LOWERING_GPU_AMD_AMDTESTUTILS_H
