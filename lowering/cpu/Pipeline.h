// The CPU code generator's entry points: the target description, the whole
// lowering of a tile module to the LLVM dialect, and pass registration.
#ifndef TESSERA_LOWERING_CPU_PIPELINE_H
#define TESSERA_LOWERING_CPU_PIPELINE_H

#include "lowering/cpu/CpuTarget.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/LogicalResult.h"

namespace tessera::cpu {

/// Lowers every kernel of `module` (tile + arith + math + scf on static
/// tensors) in place to the LLVM dialect, with `llvm.target_triple` and
/// `llvm.data_layout` set. For each kernel @K it emits
///   llvm.func @K(<args>, i32 pid_x, pid_y, pid_z, num_x, num_y, num_z)
///   llvm.func @K__grid_entry(!llvm.ptr args, i32 x, y, z, nx, ny, nz)
/// where `args` points to an array of `void*`, the i-th pointing to the i-th
/// argument's value. Failures are reported as diagnostics on the offending op.
mlir::LogicalResult lowerTileToLLVM(mlir::ModuleOp module, const CpuTarget &target);

/// Adds the passes of the lowering to `pm` (a pass manager on a module).
void buildTileToLLVMCpuPipeline(mlir::OpPassManager &pm, const CpuTarget &target);

/// Registers the passes of lowering/cpu and the pipeline `tile-lower-to-llvm-cpu`.
void registerCpuLoweringPasses();

} // namespace tessera::cpu

#endif // TESSERA_LOWERING_CPU_PIPELINE_H
