// Kernel arguments for a HIP launch: checked against the kernel's signature
// and packed in the sizes the code object's metadata gives each parameter.
#ifndef TESSERA_RUNTIME_HIP_HIPARGUMENTS_H
#define TESSERA_RUNTIME_HIP_HIPARGUMENTS_H

#include "lowering/gpu/amd/CodeObject.h"
#include "runtime/Runtime.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace tessera::runtime::hip {

/// Bytes a parameter of `kind` occupies in the GPU kernel ABI of the
/// distributed form: pointers are 8 bytes, i1 is passed as i32.
unsigned abiSize(ArgKind kind);

/// Checks that the code object's explicit arguments are the signature's
/// parameters: same count, each of the expected size. The error names the
/// kernel and the first parameter that differs.
llvm::Error checkArgumentLayout(llvm::StringRef kernel, const KernelSignature &signature,
                                llvm::ArrayRef<gpu::amd::KernelArgumentLayout> layout);

/// One 8-byte slot per argument holding its ABI value in the low bytes
/// (hipModuleLaunchKernel's kernelParams point at the slots and copy as many
/// bytes as the metadata gives). The rules are the CPU runtime's: pointers to
/// pointer parameters, integers within the parameter's range, floats
/// converted to the parameter's type (round to nearest even), raw bits of
/// exactly the parameter's kind, and the specializations (tile.equal_to_1,
/// tile.divisibility) honoured. The error names the kernel and the argument.
llvm::Expected<std::vector<uint64_t>> packArguments(llvm::StringRef kernel,
                                                    const KernelSignature &signature,
                                                    llvm::ArrayRef<Argument> args);

} // namespace tessera::runtime::hip

#endif // TESSERA_RUNTIME_HIP_HIPARGUMENTS_H
