// Reads an AMDGPU code object (HSACO): the chip it was built for, its symbols
// and the `amdhsa.kernels` metadata of its NT_AMDGPU_METADATA note, parsed
// in-process with LLVM's ELF and MessagePack readers. Shared by the compiler
// (resource usage) and the HIP runtime (argument layout).
#ifndef TESSERA_LOWERING_GPU_AMD_CODEOBJECT_H
#define TESSERA_LOWERING_GPU_AMD_CODEOBJECT_H

#include "lowering/gpu/KernelBinary.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::gpu::amd {

/// One explicit kernel argument as the metadata lays it out in the kernarg
/// segment; hidden arguments (filled by the runtime) are left out.
struct KernelArgumentLayout {
  /// "global_buffer", "by_value", ...
  std::string valueKind;
  uint64_t offset = 0;
  uint64_t size = 0;
};

/// One entry of `amdhsa.kernels`; -1 for a field the metadata lacks.
struct KernelMetadata {
  std::string name;
  /// The kernel descriptor's symbol, `<name>.kd`.
  std::string symbol;
  int vgprCount = -1;
  int agprCount = -1;
  int sgprCount = -1;
  int vgprSpillCount = -1;
  int sgprSpillCount = -1;
  int64_t groupSegmentBytes = -1;   ///< static LDS
  int64_t privateSegmentBytes = -1; ///< scratch per work-item
  int64_t kernargSegmentBytes = -1;
  int wavefrontSize = -1;
  int maxFlatWorkgroupSize = -1;
  std::vector<KernelArgumentLayout> arguments;

  /// The fields of the common ResourceUsage: VGPRs, SGPRs, static LDS,
  /// scratch; spills as the scratch bytes per work-item the spilled VGPRs
  /// occupy (the metadata counts registers, not loads and stores, so both
  /// spill fields carry that footprint). `report` is left empty.
  ResourceUsage resourceUsage() const;
};

struct CodeObject {
  /// From the ELF header's e_flags: "gfx90a", "gfx942", "gfx1100".
  std::string chip;
  /// `amdhsa.target`: "amdgcn-amd-amdhsa--gfx942".
  std::string targetId;
  /// From the ELF header's EI_ABIVERSION: 4, 5 or 6.
  int codeObjectVersion = -1;
  /// `amdhsa.version` as major * 100 + minor (102 for code objects v5 and v6).
  int metadataVersion = -1;
  std::vector<KernelMetadata> kernels;
  /// Names of the defined and of the undefined symbols of the symbol table.
  std::vector<std::string> definedSymbols;
  std::vector<std::string> undefinedSymbols;
  /// The whole metadata note as YAML.
  std::string metadataYaml;

  const KernelMetadata *findKernel(llvm::StringRef name) const;
};

/// Parses `elf`; the error says what is malformed or missing.
llvm::Expected<CodeObject> readCodeObject(llvm::ArrayRef<uint8_t> elf);

} // namespace tessera::gpu::amd

#endif // TESSERA_LOWERING_GPU_AMD_CODEOBJECT_H
