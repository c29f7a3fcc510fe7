// Helpers of the GPU compiler's tests: compile a catalogued kernel, check a
// binary's container, run spirv-val.
#ifndef TESSERA_TESTS_UNIT_LOWERING_GPU_COMPILE_GPUCOMPILETESTUTILS_H
#define TESSERA_TESTS_UNIT_LOWERING_GPU_COMPILE_GPUCOMPILETESTUTILS_H

#include "lowering/gpu/Compile.h"
#include "tests/unit/lowering/gpu/SpirvValidator.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::gpu::testing {

/// The targets every kernel is compiled for.
inline constexpr const char *kSweepTargets[] = {
    "cuda:sm_80", "cuda:sm_90", "cuda:sm_90a", "hip:gfx90a", "hip:gfx942", "hip:gfx1100",
    "vulkan:1.2:subgroup=8", "vulkan:1.3:subgroup=8", "vulkan:1.3:subgroup=32:coopmat"};

GpuTarget parseTarget(llvm::StringRef spec);

/// Compiles the catalogued kernel `name` (GpuTestKernels.h) for `target`
/// with the default options and `numWarps` warps.
llvm::Expected<CompiledGpuKernel> compileCatalogued(llvm::StringRef name, const GpuTarget &target,
                                                    unsigned numWarps = 4);

bool isElf(const std::vector<uint8_t> &binary);
bool isSpirv(const std::vector<uint8_t> &binary);

/// A test-name-safe spelling of a target: "cuda_sm_90a", "vulkan_1_3_subgroup_8".
std::string sanitize(llvm::StringRef text);

} // namespace tessera::gpu::testing

#endif // TESSERA_TESTS_UNIT_LOWERING_GPU_COMPILE_GPUCOMPILETESTUTILS_H
