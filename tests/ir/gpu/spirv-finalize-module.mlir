// RUN: tessera-opt %s -split-input-file -verify-diagnostics -pass-pipeline='builtin.module(spirv.module(tessera-spirv-finalize-module))' | FileCheck %s

// The version spirv-update-vce chose (1.3) is raised to the target's (1.6),
// so the entry point may list storage buffers in its interface.
// CHECK: spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader], [SPV_KHR_storage_buffer_storage_class]>
spirv.module Logical GLSL450 requires #spirv.vce<v1.3, [Shader], [SPV_KHR_storage_buffer_storage_class]>
    attributes {spirv.target_env = #spirv.target_env<#spirv.vce<v1.6, [Shader], []>, api=Vulkan,
                #spirv.resource_limits<max_compute_shared_memory_size = 1024>>} {
  spirv.GlobalVariable @fits : !spirv.ptr<!spirv.struct<(!spirv.array<256 x f32>)>, Workgroup>
}

// -----

// expected-error @+1 {{'spirv.module' op uses 1028 bytes of workgroup memory; the target has 1024}}
spirv.module Logical GLSL450 requires #spirv.vce<v1.3, [Shader], []>
    attributes {spirv.target_env = #spirv.target_env<#spirv.vce<v1.6, [Shader], []>, api=Vulkan,
                #spirv.resource_limits<max_compute_shared_memory_size = 1024>>} {
  spirv.GlobalVariable @a : !spirv.ptr<!spirv.struct<(!spirv.array<256 x f32>)>, Workgroup>
  spirv.GlobalVariable @b : !spirv.ptr<!spirv.struct<(!spirv.array<2 x f16>)>, Workgroup>
}

// -----

// A built-in that needs a capability of its own: SubgroupLocalInvocationId
// (gpu.lane_id) needs GroupNonUniform, which no instruction declared.
// CHECK: requires #spirv.vce<v1.6, [Shader, GroupNonUniform], []>
spirv.module Logical GLSL450 requires #spirv.vce<v1.3, [Shader], []>
    attributes {spirv.target_env = #spirv.target_env<#spirv.vce<v1.6, [Shader, GroupNonUniform], []>,
                api=Vulkan, #spirv.resource_limits<>>} {
  spirv.GlobalVariable @lane built_in("SubgroupLocalInvocationId") : !spirv.ptr<i32, Input>
}
