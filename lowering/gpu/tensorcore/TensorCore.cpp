#include "lowering/gpu/tensorcore/TensorCore.h"

#include "lowering/gpu/tensorcore/AmdMatrixCores.h"
#include "lowering/gpu/tensorcore/NvidiaMma.h"
#include "lowering/gpu/tensorcore/Wgmma.h"

namespace tessera::gpu {

TensorCoreDot::~TensorCoreDot() = default;

std::unique_ptr<TensorCoreDot> selectTensorCoreDot(const GpuTarget &target,
                                                   const DotProblem &problem, unsigned numWarps) {
  switch (target.vendor) {
  case GpuVendor::Nvidia:
    // wgmma where the chip (sm_90a), whole warpgroups and the shape allow it.
    if (std::unique_ptr<TensorCoreDot> wgmma = selectWgmmaDot(target, problem, numWarps))
      return wgmma;
    return selectMmaSyncDot(target, problem, numWarps);
  case GpuVendor::Amd:
    return selectAmdMatrixDot(target, problem, numWarps);
  case GpuVendor::Vulkan:
    // Cooperative matrices are not used yet: lavapipe, the Vulkan device
    // tests run on, has none.
    return nullptr;
  }
  llvm_unreachable("unknown GPU vendor");
}

} // namespace tessera::gpu
