#ifndef TESSERA_LOWERING_GPU_SPIRV_PASSES_TD
#define TESSERA_LOWERING_GPU_SPIRV_PASSES_TD

include "mlir/Pass/PassBase.td"

def TesseraSpirvPrepareKernel : Pass<"tessera-spirv-prepare-kernel", "::mlir::ModuleOp"> {
  let summary = "Check a distributed GPU kernel against a Vulkan target; attach the SPIR-V target";
  let description = [{
    Takes the distributed GPU form (one `gpu.module` holding one kernel
    `gpu.func` with `known_block_size`) and checks everything the SPIR-V
    lowering cannot express on the given Vulkan target, reporting each as an
    error on the offending op that names the target: element types without a
    SPIR-V lowering (bf16) or without the device feature (f64, f16, i64,
    i16, i8, 8/16-bit buffer or push-constant storage; 8-bit floats are
    stored as i8 and need what i8 needs), arithmetic on 8-bit floats,
    vectors of other than
    2 to 4 elements, `gpu.shuffle` whose width is not the subgroup size,
    atomics the target lacks, dynamic shared memory, workgroup memory above
    the target's limit, kernel arguments that are neither `memref<?xT>` nor
    scalars.

    It then attaches `spirv.target_env` to the `gpu.module` (SPIR-V 1.5 for
    Vulkan 1.2, 1.6 for Vulkan 1.3; the capabilities and extensions the
    device features allow; the subgroup size and shared memory of the
    target) and `spirv.entry_point_abi<workgroup_size = known_block_size>` to
    the kernel.

    ```mlir
    gpu.module @k {
      gpu.func @k(%x: memref<?xf32>, %n: i32) kernel
          attributes {known_block_size = array<i32: 64, 1, 1>} { ... }
    }
    // becomes
    gpu.module @k attributes {spirv.target_env = #spirv.target_env<
        #spirv.vce<v1.6, [Shader, ...], [...]>, api=Vulkan,
        #spirv.resource_limits<subgroup_size = 8, ...>>} {
      gpu.func @k(...) kernel attributes {known_block_size = ...,
          spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [64, 1, 1]>}
    }
    ```
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"vulkan:1.3\"",
           "The Vulkan target, as GpuTarget::parse reads it (vulkan:1.3:subgroup=8)">,
    ListOption<"without", "without", "std::string",
               "Device features to treat as absent (float64, float16, int64, ...)">
  ];
  let dependentDialects = ["::mlir::spirv::SPIRVDialect"];
}

def TesseraSpirvConvertGpuKernel : Pass<"tessera-spirv-convert-gpu-kernel", "::mlir::ModuleOp"> {
  let summary = "Convert the prepared gpu.module into a spirv.module for Vulkan compute";
  let description = [{
    Rewrites each `gpu.module` carrying a `spirv.target_env` into a
    `spirv.module` in place, in one full dialect conversion:
    - workgroup attributions of the kernel become `Workgroup` global
      variables, `gpu.barrier` a `spirv.ControlBarrier`;
    - unstructured control flow (`cf`) is lifted to `scf` first, since Vulkan
      needs structured SPIR-V;
    - `gpu.shuffle xor|idx|up|down` become subgroup shuffles
      (`GroupNonUniformShuffle{Xor,,Up,Down}`);
    - `memref.atomic_rmw addf` (f32) becomes `spirv.EXT.AtomicFAdd`,
      `assign` an `AtomicExchange`, the integer kinds the `spirv.Atomic*` ops;
    - `gpu`, `arith`, `math`, `scf`, `memref`, `index` and `ub` ops on the
      SPIR-V types of the target (32-bit indices).
    Kernel arguments keep the upstream ABI attributes; the
    `tessera-spirv-kernel-abi` pass then gives them Tessera's ABI.

    ```mlir
    gpu.module @k attributes {spirv.target_env = ...} { gpu.func @k(...) kernel ... }
    // becomes
    spirv.module @__spv__k Logical GLSL450 attributes {spirv.target_env = ...} {
      spirv.func @k(%arg0: !spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0])>,
                   StorageBuffer> {spirv.interface_var_abi = ...}, %arg1: i32 {...}) ...
    }
    ```
  }];
  let dependentDialects = ["::mlir::spirv::SPIRVDialect", "::mlir::scf::SCFDialect",
                           "::mlir::ub::UBDialect", "::mlir::memref::MemRefDialect"];
}

def TesseraSpirvKernelAbi : Pass<"tessera-spirv-kernel-abi", "::mlir::spirv::ModuleOp"> {
  let summary = "Give kernel entry points Tessera's Vulkan ABI: storage buffers and push constants";
  let description = [{
    For each entry function (`spirv.entry_point_abi`): the pointer arguments
    get storage-buffer bindings 0, 1, 2, ... of descriptor set 0 in argument
    order, and the scalar arguments are moved into one push-constant block
    (`@<kernel>_push_constants`, a `PushConstant` struct, members in argument
    order at std430 offsets) from which the function loads them on entry.
    Run before `spirv-lower-abi-attrs`, which turns the remaining
    (buffer) arguments into global variables. A block above the 128 bytes
    that every Vulkan device offers is an error.

    ```mlir
    spirv.func @k(%x: !spirv.ptr<...> {spirv.interface_var_abi = #spirv.interface_var_abi<(0, 0)>},
                  %n: i32 {...}, %y: !spirv.ptr<...> {... (0, 2)>}) ...
    // becomes
    spirv.GlobalVariable @k_push_constants : !spirv.ptr<!spirv.struct<(i32 [0])>, PushConstant>
    spirv.func @k(%x: ... (0, 0)>, %y: ... (0, 1)>) ... {
      %block = spirv.mlir.addressof @k_push_constants
      %p = spirv.AccessChain %block[%c0] ...
      %n = spirv.Load "PushConstant" %p : i32
    ```
  }];
}

def TesseraSpirvFinalizeModule : Pass<"tessera-spirv-finalize-module", "::mlir::spirv::ModuleOp"> {
  let summary = "Pin the SPIR-V version to the target's, add built-ins' capabilities, check shared memory";
  let description = [{
    Run after `spirv-update-vce`. That pass picks the lowest SPIR-V version
    the instructions need, but an entry point lists its storage buffers and
    push constants in its interface, which SPIR-V allows from 1.4 on only:
    this pass sets the version to the target environment's (1.5 for Vulkan
    1.2, 1.6 for Vulkan 1.3). It declares the capabilities built-in variables
    need, which `spirv-update-vce` does not see (`SubgroupLocalInvocationId`,
    from `gpu.lane_id`, needs `GroupNonUniform`), and checks that the
    `Workgroup` variables fit the target's shared memory.

    ```mlir
    spirv.module ... requires #spirv.vce<v1.3, [Shader], []> attributes {spirv.target_env =
        #spirv.target_env<#spirv.vce<v1.6, ...>, ...>}
    // becomes
    spirv.module ... requires #spirv.vce<v1.6, [Shader], []> ...
    ```
  }];
}

#endif // TESSERA_LOWERING_GPU_SPIRV_PASSES_TD
