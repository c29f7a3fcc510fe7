// The GPU a kernel is compiled for. One description serves every GPU target:
// the target-independent layout system reads the warp size and the matrix
// instructions available; the last, per-vendor steps read the chip name.
#ifndef TESSERA_LOWERING_GPU_GPUTARGET_H
#define TESSERA_LOWERING_GPU_GPUTARGET_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace tessera::gpu {

enum class GpuVendor : unsigned char { Nvidia, Amd, Vulkan };

struct GpuTarget {
  GpuVendor vendor = GpuVendor::Nvidia;
  /// "sm_80", "sm_90a", "gfx90a", "gfx942", "gfx1100", "vulkan1.2", "vulkan1.3".
  std::string chip = "sm_90a";
  /// NVIDIA only (":cubin=sm_90a"): the newer chip ptxas assembles the PTX
  /// generated for `chip` into a cubin for, so that one chip's code runs on
  /// another's device (sm_80's mma.sync kernels on an H100); empty: `chip`.
  std::string cubinChip;
  /// Threads that execute in lock step and exchange values with shuffles:
  /// 32 on NVIDIA and RDNA, 64 on CDNA, the subgroup size on Vulkan.
  unsigned warpSize = 32;
  /// Shared (workgroup) memory one program may use, in bytes.
  unsigned maxSharedMemoryBytes = 48 * 1024;
  /// Vulkan only (":coopmat"): the device offers VK_KHR_cooperative_matrix
  /// with 16x16x16 f16 x f16 -> f32 at subgroup scope, and f16 dots use it.
  bool cooperativeMatrix = false;

  /// NVIDIA compute capability as 80, 86, 89, 90; 0 for other vendors.
  unsigned computeCapability() const;
  /// The chip of the cubin: cubinChip where given, else chip.
  const std::string &assembledChip() const { return cubinChip.empty() ? chip : cubinChip; }
  bool hasMmaSync() const { return computeCapability() >= 80; }
  /// Loads and stores of vectors, in global and shared memory (not on
  /// Vulkan, whose buffers and workgroup arrays are arrays of scalars).
  bool hasVectorAccesses() const { return vendor != GpuVendor::Vulkan; }
  /// fp8 (e4m3, e5m2) instructions, mma.sync and the cvt conversions: Ada
  /// (sm_89) and later.
  bool hasFp8() const { return computeCapability() >= 89; }
  /// wgmma needs the architecture-specific sm_90a.
  bool hasWgmma() const { return chip == "sm_90a"; }
  bool hasCpAsync() const { return computeCapability() >= 80; }
  bool hasTma() const { return computeCapability() >= 90; }
  /// bf16x2 addition and subtraction (sub.bf16x2); sm_80 has only fma.bf16x2.
  bool hasBf16Subtraction() const { return computeCapability() >= 90; }
  /// stmatrix: warp-wide stores of 8x8 16-bit matrices to shared memory.
  bool hasStMatrix() const { return computeCapability() >= 90; }
  /// CDNA matrix cores (v_mfma_*).
  bool hasMfma() const { return chip == "gfx90a" || chip == "gfx942"; }
  /// RDNA3 matrix instructions (v_wmma_*).
  bool hasWmma() const { return chip == "gfx1100"; }

  /// Parses "cuda:sm_90a", "sm_80", "cuda:sm_80:cubin=sm_90a", "hip:gfx942",
  /// "gfx1100", "vulkan", "vulkan:1.3", "vulkan:1.3:subgroup=8". The error
  /// names the spec and lists what is accepted.
  static llvm::Expected<GpuTarget> parse(llvm::StringRef spec);
  /// What parse accepts, as its errors list it:
  /// "cuda:sm_80|...|sm_121, hip:gfx90a|gfx942|gfx1100, vulkan[...]".
  static llvm::StringRef accepted();
  /// The canonical spec ("cuda:sm_90a", "cuda:sm_80:cubin=sm_90a", "hip:gfx942",
  /// "vulkan:1.3:subgroup=32"); part of kernel cache keys.
  std::string str() const;
  bool operator==(const GpuTarget &) const = default;
};

} // namespace tessera::gpu

#endif // TESSERA_LOWERING_GPU_GPUTARGET_H
