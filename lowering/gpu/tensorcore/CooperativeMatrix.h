// `tile.dot` on Vulkan cooperative matrices (VK_KHR_cooperative_matrix),
// emitted as the GPU dialect's subgroup MMA ops, which the SPIR-V conversion
// turns into OpCooperativeMatrixLoadKHR / MulAddKHR / StoreKHR.
//
// One shape: 16x16x16, f16 x f16 -> f32 at subgroup scope, the combination
// every driver with the extension lists (NVIDIA, AMD RDNA3, Intel Arc, Mesa);
// the runtime sets GpuTarget::cooperativeMatrix only where the device lists
// it (vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR).
//
// Which element of a cooperative matrix a lane holds is the driver's secret,
// so matrices only meet the rest of the kernel through memory:
//  - A ([M, K]) and B ([K, N]) sit row-major in their workgroup buffers; each
//    16x16 piece is one OpCooperativeMatrixLoadKHR with the row length as
//    stride.
//  - The accumulator goes through a workgroup buffer of M * N elements
//    (accumulatorScratchElements): each thread stores its registers there,
//    the subgroups load their C pieces, multiply over all of K, store the
//    pieces back, and each thread reads its registers again. The register
//    layout (accumulatorLayout) is row-major by thread: register r of thread
//    t = warp * warpSize + lane holds flat element r * threads + t, so the
//    threads' stores and loads are consecutive words.
//
// Subgroups form a warpsM x warpsN grid (subgroup w at row w / warpsN,
// column w % warpsN), each owning a block of tilesM x tilesN 16x16 pieces;
// subgroups beyond the grid (a dot with fewer pieces than subgroups) skip
// the multiplication. The K loop is unrolled.
#ifndef TESSERA_LOWERING_GPU_TENSORCORE_COOPERATIVEMATRIX_H
#define TESSERA_LOWERING_GPU_TENSORCORE_COOPERATIVEMATRIX_H

#include "lowering/gpu/tensorcore/TensorCore.h"

namespace tessera::gpu {

/// The side of the one cooperative-matrix shape used (M = N = K).
constexpr int64_t kCooperativeMatrixSize = 16;

/// The cooperative-matrix dot for `problem`, or nullptr when the target has
/// no cooperative matrices or the problem does not fit them: operands other
/// than f16 with an f32 accumulator, extents that are not multiples of 16,
/// fewer accumulator elements than threads, or buffers beyond the target's
/// workgroup memory.
std::unique_ptr<TensorCoreDot> selectCooperativeMatrixDot(const GpuTarget &target,
                                                          const DotProblem &problem,
                                                          unsigned numWarps);

} // namespace tessera::gpu

#endif // TESSERA_LOWERING_GPU_TENSORCORE_COOPERATIVEMATRIX_H
