#include "lowering/gpu/GpuTarget.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

using tessera::gpu::GpuTarget;
using tessera::gpu::GpuVendor;

namespace {

constexpr llvm::StringLiteral kAccepted =
    "cuda:sm_80|sm_86|sm_87|sm_89|sm_90|sm_90a|sm_100|sm_103|sm_120|sm_121[:cubin=CHIP], "
    "hip:gfx90a|gfx942|gfx1100, vulkan[:1.2|1.3][:subgroup=N]";

llvm::Error badSpec(llvm::StringRef spec, const llvm::Twine &why) {
  return llvm::createStringError("bad GPU target '" + spec + "': " + why + " (accepted: " +
                                 kAccepted + ")");
}

// Largest dynamic shared memory one block may opt in to, per the CUDA
// programming guide's table of compute capabilities.
unsigned nvidiaSharedMemory(unsigned cc) {
  if (cc == 90 || cc == 100 || cc == 103)
    return 227 * 1024;
  if (cc == 80 || cc == 87)
    return 163 * 1024;
  return 99 * 1024; // 8.6, 8.9, 12.0, 12.1
}

bool isNvidiaChip(llvm::StringRef chip) {
  // sm_100 and later get what sm_80 and sm_90 have (mma.sync, cp.async,
  // stmatrix), not wgmma (sm_90a only) nor tcgen05.
  static const char *const kChips[] = {"sm_80", "sm_86",  "sm_87",  "sm_89",  "sm_90",
                                       "sm_90a", "sm_100", "sm_103", "sm_120", "sm_121"};
  return llvm::find(kChips, chip) != std::end(kChips);
}

llvm::Expected<GpuTarget> parseNvidia(llvm::StringRef spec, llvm::StringRef text) {
  auto [chip, option] = text.split(':');
  if (!isNvidiaChip(chip))
    return badSpec(spec, "unknown NVIDIA architecture '" + chip + "'");
  GpuTarget target;
  target.vendor = GpuVendor::Nvidia;
  target.chip = chip.str();
  target.warpSize = 32;
  target.maxSharedMemoryBytes = nvidiaSharedMemory(target.computeCapability());
  if (option.empty())
    return target;
  llvm::StringRef cubin = option;
  if (!cubin.consume_front("cubin="))
    return badSpec(spec, "unknown NVIDIA option '" + option + "'");
  if (!isNvidiaChip(cubin))
    return badSpec(spec, "unknown NVIDIA architecture '" + cubin + "' after cubin=");
  GpuTarget assembled = target;
  assembled.chip = cubin.str();
  // PTX runs on its own and later architectures, but an architecture-
  // specific chip's (sm_90a: wgmma) on that chip alone.
  if (assembled.computeCapability() < target.computeCapability() ||
      (chip.ends_with("a") && cubin != chip))
    return badSpec(spec, "code for " + chip + " cannot be assembled for " + cubin);
  if (cubin != chip)
    target.cubinChip = cubin.str();
  return target;
}

llvm::Expected<GpuTarget> parseAmd(llvm::StringRef spec, llvm::StringRef chip) {
  if (chip != "gfx90a" && chip != "gfx942" && chip != "gfx1100")
    return badSpec(spec, "unknown AMD architecture '" + chip + "'");
  GpuTarget target;
  target.vendor = GpuVendor::Amd;
  target.chip = chip.str();
  target.warpSize = chip == "gfx1100" ? 32 : 64;
  target.maxSharedMemoryBytes = 64 * 1024;
  return target;
}

llvm::Expected<GpuTarget> parseVulkan(llvm::StringRef spec, llvm::StringRef rest) {
  GpuTarget target;
  target.vendor = GpuVendor::Vulkan;
  target.chip = "vulkan1.3";
  target.warpSize = 32;
  target.maxSharedMemoryBytes = 32 * 1024;
  llvm::SmallVector<llvm::StringRef> parts;
  rest.split(parts, ':', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef part : parts) {
    unsigned subgroup = 0;
    if (part == "1.2" || part == "1.3") {
      target.chip = ("vulkan" + part).str();
    } else if (part.consume_front("subgroup=")) {
      if (part.getAsInteger(10, subgroup) || subgroup == 0 || subgroup > 128 ||
          (subgroup & (subgroup - 1)) != 0)
        return badSpec(spec, "the subgroup size must be a power of two from 1 to 128");
      target.warpSize = subgroup;
    } else if (part.consume_front("shared=")) {
      if (part.getAsInteger(10, target.maxSharedMemoryBytes) || target.maxSharedMemoryBytes == 0)
        return badSpec(spec, "shared= takes a size in bytes");
    } else if (part == "coopmat") {
      target.cooperativeMatrix = true;
    } else {
      return badSpec(spec, "unknown Vulkan option '" + part + "'");
    }
  }
  return target;
}

} // namespace

llvm::StringRef GpuTarget::accepted() { return kAccepted; }

unsigned GpuTarget::computeCapability() const {
  llvm::StringRef name = chip;
  if (vendor != GpuVendor::Nvidia || !name.consume_front("sm_"))
    return 0;
  name.consume_back("a");
  unsigned cc = 0;
  return name.getAsInteger(10, cc) ? 0 : cc;
}

llvm::Expected<GpuTarget> GpuTarget::parse(llvm::StringRef spec) {
  llvm::StringRef text = spec.trim();
  if (text.consume_front("cuda:") || text.consume_front("nvidia:"))
    return parseNvidia(spec, text);
  if (text.starts_with("sm_"))
    return parseNvidia(spec, text);
  if (text.consume_front("hip:") || text.consume_front("amd:") || text.consume_front("rocm:"))
    return parseAmd(spec, text);
  if (text.starts_with("gfx"))
    return parseAmd(spec, text);
  if (text == "vulkan" || text.consume_front("vulkan:"))
    return parseVulkan(spec, text == "vulkan" ? llvm::StringRef() : text);
  return badSpec(spec, "unknown vendor");
}

std::string GpuTarget::str() const {
  switch (vendor) {
  case GpuVendor::Nvidia:
    return "cuda:" + chip + (cubinChip.empty() ? "" : ":cubin=" + cubinChip);
  case GpuVendor::Amd:
    return "hip:" + chip;
  case GpuVendor::Vulkan: {
    std::string spec = "vulkan:" + llvm::StringRef(chip).drop_front(6).str() +
                       ":subgroup=" + std::to_string(warpSize) +
                       ":shared=" + std::to_string(maxSharedMemoryBytes);
    return cooperativeMatrix ? spec + ":coopmat" : spec;
  }
  }
  return chip;
}
