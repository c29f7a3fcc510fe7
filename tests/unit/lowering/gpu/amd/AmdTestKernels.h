// Hand-written kernels in the distributed GPU form for the AMD tests, sized
// for a wave of `waveSize` threads (num_warps = 2).
#ifndef TESSERA_TESTS_UNIT_LOWERING_GPU_AMD_AMDTESTKERNELS_H
#define TESSERA_TESTS_UNIT_LOWERING_GPU_AMD_AMDTESTKERNELS_H

#include <string>

namespace tessera::gpu::amd::testing {

/// out[i] = x[i] + y[i] for i < n: `vector_add(x, y, out: memref<?xf32>, n: i32)`.
std::string maskedVectorAdd(unsigned waveSize);

/// Stages x through a workgroup attribution, reverses it within the
/// workgroup behind a barrier, then exchanges lanes with gpu.shuffle xor and
/// idx: `lds_shuffle(x, out: memref<?xf32>)`.
std::string workgroupMemoryShuffle(unsigned waveSize);

/// out[i] = exp(x[i]) + erf(x[i]) + tanh(x[i]), the erf also in f64:
/// `math_functions(x, out: memref<?xf32>, n: i32)`.
std::string mathFunctions(unsigned waveSize);

} // namespace tessera::gpu::amd::testing

#endif // TESSERA_TESTS_UNIT_LOWERING_GPU_AMD_AMDTESTKERNELS_H
