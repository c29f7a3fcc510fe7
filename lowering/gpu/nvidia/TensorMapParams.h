// The tensor-map parameters of an NVIDIA kernel (TMA copies of host tensor
// descriptors): their recipes for the runtime, and the pass that passes them
// by value.
#ifndef TESSERA_LOWERING_GPU_NVIDIA_TENSORMAPPARAMS_H
#define TESSERA_LOWERING_GPU_NVIDIA_TENSORMAPPARAMS_H

#include "lowering/gpu/KernelBinary.h"

#include "mlir/IR/Operation.h"
#include "llvm/Support/Error.h"

#include <vector>

namespace tessera::gpu {

/// The recipes of `kernel`'s tensor maps (its `tessera.tensor_maps`
/// attribute; none without it); an error names what is malformed.
llvm::Expected<std::vector<TensorMapParam>> tensorMapParamsOf(mlir::Operation *kernel);

} // namespace tessera::gpu

#endif // TESSERA_LOWERING_GPU_NVIDIA_TENSORMAPPARAMS_H
