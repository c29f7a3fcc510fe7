#ifndef TESSERA_LOWERING_GPU_AMD_PASSES_TD
#define TESSERA_LOWERING_GPU_AMD_PASSES_TD

include "mlir/Pass/PassBase.td"

def AmdCheckTarget : Pass<"tessera-amd-check-target", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Reject what the chosen AMD chip cannot run, naming the op and the chip";
  let description = [{
    Checks a kernel in the distributed GPU form against one AMD chip before
    any lowering, so that the failure names the construct and the chip instead
    of surfacing as an unlegalized op or an LLVM backend crash:

    - operations of another vendor (`nvvm`, `nvgpu`, `spirv`);
    - matrix instructions the chip lacks: `amdgpu.mfma` (and `rocdl.mfma.*`)
      need CDNA (gfx90a, gfx942), `amdgpu.wmma` (and `rocdl.wmma.*`) need
      RDNA3 (gfx1100);
    - arithmetic (arith, math, amdgpu ops) on 8-bit floats: only gfx942 has
      the FNUZ variants, no chip here has the OCP ones (`f8E4M3FN`,
      `f8E5M2`); loading, storing and selecting them is moving bytes;
    - `gpu.shuffle` over more lanes than a wave of the chip has;
    - the kernel interface: `known_block_size` must be `num_warps` times the
      wave size of the chip (the distribution was done for that wave size), at
      most 1024 threads, and the workgroup memory (attributions plus
      `tessera.shared_memory_bytes`) must fit the chip's 64 KiB of LDS.

    ```mlir
    // tessera-opt --tessera-amd-check-target=chip=gfx1100
    %d = amdgpu.mfma %a * %b + %c {...}
    // error: 'amdgpu.mfma' needs MFMA matrix cores (CDNA: gfx90a, gfx942);
    //        hip:gfx1100 has none
    ```
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"gfx942\"",
           "AMD chip: gfx90a, gfx942 or gfx1100">,
  ];
}

#endif // TESSERA_LOWERING_GPU_AMD_PASSES_TD
