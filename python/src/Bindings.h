// Shared declarations of the tessera._C extension's sources.
#ifndef TESSERA_PYTHON_SRC_BINDINGS_H
#define TESSERA_PYTHON_SRC_BINDINGS_H

#include "lowering/gpu/Compile.h"
#include "runtime/cache/GpuKernelCache.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

#include <pybind11/pybind11.h>

#include <memory>

namespace tessera::python {

/// A finished kernel module with the context that owns it.
struct PyModule {
  std::shared_ptr<mlir::MLIRContext> context;
  mlir::OwningOpRef<mlir::ModuleOp> module; // Declared after the context: destroyed first.
};

/// A kernel's launch options as the GPU compiler's: `num_warps` (a power of
/// two), `num_stages` (at least 1), `fp_fusion` (Triton's enable_fp_fusion)
/// `max_registers` (Triton's maxnreg; 0: ptxas decides), `tma` (copy
/// pipelined host-descriptor blocks, and store such blocks, with TMA on
/// sm_90a; the default, as in C++) and `warpSpecialize` (with tma: a
/// producer warpgroup for such a loop's copies). ValueError on bad values.
gpu::GpuCompileOptions gpuCompileOptions(unsigned numWarps, unsigned numStages, bool fpFusion,
                                         unsigned maxRegisters, bool tma, bool warpSpecialize);

/// "disk" or "compiled": the `origin` of the kernel objects.
const char *originName(runtime::GpuKernelOrigin origin);

void bindBuilder(pybind11::module_ &m);
void bindRuntime(pybind11::module_ &m);
void bindGpuCompiler(pybind11::module_ &m);
void bindDevices(pybind11::module_ &m);
void bindTuningRecords(pybind11::module_ &m);

} // namespace tessera::python

#endif // TESSERA_PYTHON_SRC_BINDINGS_H
