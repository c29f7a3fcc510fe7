// PTX the NVVM dialect has no op for (a wgmma wait that names the registers
// it orders, a predicated load or store), as one llvm.inline_asm.
#ifndef TESSERA_LOWERING_GPU_INLINEPTX_H
#define TESSERA_LOWERING_GPU_INLINEPTX_H

#include "mlir/IR/Builders.h"

namespace tessera::gpu {

/// Whether PTX that may access memory may read or write shared memory.
enum class SharedMemoryUse { Possible, None };

/// `assembly` with `operands` and one result per type of `results`, bound by
/// `constraints` (LLVM's spelling: "=r,=f,b,l,0,1"); kept in program order
/// with every memory access (it may read or write memory). Returns the
/// results, out of the struct LLVM returns for more than one (none for an
/// empty `results`). With SharedMemoryUse::None the op carries
/// kAsmTouchesNoSharedMemory, so that barriers around it may go.
llvm::SmallVector<mlir::Value> inlinePtx(mlir::OpBuilder &builder, mlir::Location loc,
                                         mlir::TypeRange results, mlir::ValueRange operands,
                                         llvm::StringRef assembly, llvm::StringRef constraints,
                                         SharedMemoryUse shared = SharedMemoryUse::Possible);
/// The same for assembly of any target; with `sideEffects` false, LLVM may
/// drop or merge it like any computation.
llvm::SmallVector<mlir::Value> inlineAssembly(mlir::OpBuilder &builder, mlir::Location loc,
                                              mlir::TypeRange results, mlir::ValueRange operands,
                                              llvm::StringRef assembly,
                                              llvm::StringRef constraints, bool sideEffects);

/// `values` passed through one inline asm of movs, which no compiler can see
/// through: a branch that yields them (an accumulator's restart after a
/// persistent GEMM's epilogue) stays a branch where constants would let it
/// be folded into a select on every register.
llvm::SmallVector<mlir::Value> opaqueCopies(mlir::OpBuilder &builder, mlir::Location loc,
                                            mlir::ValueRange values);

} // namespace tessera::gpu

#endif // TESSERA_LOWERING_GPU_INLINEPTX_H
