// How the GPU code generators report the diagnostics of a failed pipeline:
// every compile error names the place in the kernel's source.
#ifndef TESSERA_LOWERING_GPU_DIAGNOSTICS_H
#define TESSERA_LOWERING_GPU_DIAGNOSTICS_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"

#include <string>

namespace tessera::gpu {

/// "file:line:col" of the innermost file location (inlined device functions
/// carry call-site locations), MLIR's syntax for other locations, empty for
/// an unknown one.
std::string describeLocation(mlir::Location loc);

/// Collects the error diagnostics emitted on a context while it lives. Each
/// becomes a line "\n  file:line:col: error: message" (the first line of the
/// message: conversions append op dumps), its notes indented below it, less
/// the pass manager's dump of the failing op.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(mlir::MLIRContext *context);

  /// The collected lines ("no diagnostic was emitted" when there are none).
  std::string take();

private:
  void append(llvm::StringRef indent, mlir::Diagnostic &diagnostic, llvm::StringRef severity);

  std::string text;
  mlir::ScopedDiagnosticHandler handler;
};

} // namespace tessera::gpu

#endif // TESSERA_LOWERING_GPU_DIAGNOSTICS_H
