// RUN: tessera-opt %s -pass-pipeline='builtin.module(spirv.module(tessera-spirv-kernel-abi))' | FileCheck %s

// Buffers are renumbered 0, 1 in argument order; the scalars move into one
// push-constant block at std430 offsets (f16 +0, i32 +4, i64 +8) and are
// loaded from it on entry.
// CHECK: spirv.GlobalVariable @k_push_constants : !spirv.ptr<!spirv.struct<(f16 [0], i32 [4], i64 [8])>, PushConstant>
// CHECK: spirv.func @k(%[[A:.*]]: !spirv.ptr<{{.*}}> {spirv.interface_var_abi = #spirv.interface_var_abi<(0, 0)>}, %[[B:.*]]: !spirv.ptr<{{.*}}> {spirv.interface_var_abi = #spirv.interface_var_abi<(0, 1)>})
// CHECK: %[[BLOCK:.*]] = spirv.mlir.addressof @k_push_constants
// CHECK: %[[C0:.*]] = spirv.Constant 0 : i32
// CHECK: %[[P0:.*]] = spirv.AccessChain %[[BLOCK]][%[[C0]]]
// CHECK: %[[H:.*]] = spirv.Load "PushConstant" %[[P0]] : f16
// CHECK: %[[C1:.*]] = spirv.Constant 1 : i32
// CHECK: spirv.AccessChain %[[BLOCK]][%[[C1]]]
// CHECK: %[[N:.*]] = spirv.Load "PushConstant" %{{.*}} : i32
// CHECK: spirv.Load "PushConstant" %{{.*}} : i64
// CHECK: spirv.FAdd %[[H]], %[[H]] : f16
// CHECK: spirv.IAdd %[[N]], %[[N]] : i32
spirv.module Logical GLSL450 attributes {spirv.target_env = #spirv.target_env<#spirv.vce<v1.6,
    [Shader, Float16, Int64, StoragePushConstant16], []>, api=Vulkan, #spirv.resource_limits<>>} {
  spirv.func @k(%h: f16 {spirv.interface_var_abi = #spirv.interface_var_abi<(0, 0), StorageBuffer>},
                %a: !spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0])>, StorageBuffer>
                    {spirv.interface_var_abi = #spirv.interface_var_abi<(0, 1)>},
                %n: i32 {spirv.interface_var_abi = #spirv.interface_var_abi<(0, 2), StorageBuffer>},
                %b: !spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0])>, StorageBuffer>
                    {spirv.interface_var_abi = #spirv.interface_var_abi<(0, 3)>},
                %big: i64 {spirv.interface_var_abi = #spirv.interface_var_abi<(0, 4), StorageBuffer>}) "None"
      attributes {spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [64, 1, 1]>} {
    %h2 = spirv.FAdd %h, %h : f16
    %n2 = spirv.IAdd %n, %n : i32
    spirv.Return
  }
}
