// RUN: tessera-opt %s --split-input-file -tile-lower-to-gpu="target=cuda:sm_90a num-warps=4 num-stages=3" | FileCheck %s --check-prefixes=CHECK,SM90
// RUN: tessera-opt %s --split-input-file -tile-lower-to-gpu="target=cuda:sm_80 num-warps=4 num-stages=3" | FileCheck %s --check-prefixes=CHECK,SM80
// RUN: tessera-opt %s --split-input-file -tile-lower-to-gpu="target=cuda:sm_90a num-warps=4 num-stages=3 read-back-loads=never" | FileCheck %s --check-prefix=NEVER
// RUN: tessera-opt %s --split-input-file -tile-lower-to-gpu="target=vulkan:1.3:subgroup=32 num-warps=4 num-stages=3" | FileCheck %s --check-prefix=NEVER
// RUN: tessera-opt %s --split-input-file -tile-lower-to-gpu="target=cuda:sm_90a num-warps=4 num-stages=3 read-back-loads=always" | FileCheck %s --check-prefix=ALWAYS
// RUN: not tessera-opt %s --split-input-file -tile-lower-to-gpu="target=cuda:sm_90a read-back-loads=sometimes" 2>&1 | FileCheck %s --check-prefix=BAD

// A weight-only quantized GEMM: B is int8 in memory, widened to f16 before
// the dot. Its load reaches the dot through the conversion, so the dot does
// not read it from a stage; yet it is pipelined as A is: copied two
// iterations ahead by 16-byte cp.async into a ring of its own, laid out as
// the load's registers (chunk after chunk of every thread's 16 bytes), and
// read back into registers with one 16-byte shared load at the start of its
// iteration, before the conversion (StagedLoad::readBack). Without cp.async
// (Vulkan) or with read-back-loads=never the load stays in its iteration.
// CHECK-LABEL: gpu.func @weight_only_int8
// CHECK-SAME: "{{.*}}: 3 stages (num_stages 3), copies 2 iterations ahead by cp.async (1 load read back into registers)"
// CHECK: nvgpu.device_async_copy %arg1[%{{.*}}], %[[RING:.*]][%{{.*}}], 16 {bypassL1} : memref<?xi8> to memref<{{[0-9]+}}xi8, #gpu.address_space<workgroup>>
// CHECK: scf.for
// CHECK: nvvm.cp.async.wait.group 1
// CHECK: gpu.barrier
// CHECK: nvgpu.device_async_copy %arg1[%{{.*}}], %[[RING]][%{{.*}}], 16 {bypassL1}
// CHECK: nvvm.cp.async.commit.group
// CHECK-NOT: %arg1
// CHECK: %[[CHUNK:.*]] = vector.load %[[RING]][%{{.*}}] {alignment = 16 : i64} : memref<{{[0-9]+}}xi8, #gpu.address_space<workgroup>>, vector<16xi8>
// CHECK: %[[BYTE:.*]] = vector.extract %[[CHUNK]][0] : i8 from vector<16xi8>
// CHECK: arith.sitofp %[[BYTE]] : i8 to f16
// SM90: nvvm.wgmma.mma_async
// SM80: nvvm.mma.sync
// CHECK: scf.yield

// NEVER-LABEL: gpu.func @weight_only_int8
// NEVER-NOT: read back into registers
// NEVER: scf.for
// NEVER: {{(vector|memref)}}.load %arg1[%{{[0-9]+}}]{{.*}} : memref<?xi8>
// NEVER: scf.yield

// BAD: for the --read-back-loads option: Cannot find option named 'sometimes'
tile.func @weight_only_int8(%arg0: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<i8> {tile.divisibility = 16 : i32}, %arg2: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg3: i32 {tile.divisibility = 16 : i32}, %arg4: i32 {tile.divisibility = 16 : i32}, %arg5: i32 {tile.divisibility = 16 : i32}) {
  %0 = tile.program_id x
  %c64_i32 = arith.constant 64 : i32
  %1 = arith.muli %0, %c64_i32 : i32
  %2 = tile.make_range 0 to 64 : tensor<64xi32>
  %3 = tile.splat %1 : i32 -> tensor<64xi32>
  %4 = arith.addi %3, %2 : tensor<64xi32>
  %5 = tile.program_id y
  %c64_i32_0 = arith.constant 64 : i32
  %6 = arith.muli %5, %c64_i32_0 : i32
  %7 = tile.make_range 0 to 64 : tensor<64xi32>
  %8 = tile.splat %6 : i32 -> tensor<64xi32>
  %9 = arith.addi %8, %7 : tensor<64xi32>
  %10 = tile.make_range 0 to 32 : tensor<32xi32>
  %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
  %c0_i32 = arith.constant 0 : i32
  %c32_i32 = arith.constant 32 : i32
  %11 = scf.for %arg6 = %c0_i32 to %arg5 step %c32_i32 iter_args(%arg7 = %cst) -> (tensor<64x64xf32>)  : i32 {
    %21 = tile.expand_dims %4, axis = 1 : tensor<64xi32> -> tensor<64x1xi32>
    %22 = tile.splat %arg5 : i32 -> tensor<64x1xi32>
    %23 = arith.muli %21, %22 : tensor<64x1xi32>
    %24 = tile.splat %arg0 : !tile.ptr<f16> -> tensor<64x1x!tile.ptr<f16>>
    %25 = tile.addptr %24, %23 : tensor<64x1x!tile.ptr<f16>>, tensor<64x1xi32>
    %26 = tile.splat %arg6 : i32 -> tensor<32xi32>
    %27 = arith.addi %26, %10 : tensor<32xi32>
    %28 = tile.expand_dims %27, axis = 0 : tensor<32xi32> -> tensor<1x32xi32>
    %29 = tile.broadcast %25 : tensor<64x1x!tile.ptr<f16>> -> tensor<64x32x!tile.ptr<f16>>
    %30 = tile.broadcast %28 : tensor<1x32xi32> -> tensor<64x32xi32>
    %31 = tile.addptr %29, %30 : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
    %32 = tile.load %31 : tensor<64x32x!tile.ptr<f16>>
    %33 = tile.splat %arg6 : i32 -> tensor<32xi32>
    %34 = arith.addi %33, %10 : tensor<32xi32>
    %35 = tile.expand_dims %34, axis = 1 : tensor<32xi32> -> tensor<32x1xi32>
    %36 = tile.splat %arg4 : i32 -> tensor<32x1xi32>
    %37 = arith.muli %35, %36 : tensor<32x1xi32>
    %38 = tile.splat %arg1 : !tile.ptr<i8> -> tensor<32x1x!tile.ptr<i8>>
    %39 = tile.addptr %38, %37 : tensor<32x1x!tile.ptr<i8>>, tensor<32x1xi32>
    %40 = tile.expand_dims %9, axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
    %41 = tile.broadcast %39 : tensor<32x1x!tile.ptr<i8>> -> tensor<32x64x!tile.ptr<i8>>
    %42 = tile.broadcast %40 : tensor<1x64xi32> -> tensor<32x64xi32>
    %43 = tile.addptr %41, %42 : tensor<32x64x!tile.ptr<i8>>, tensor<32x64xi32>
    %44 = tile.load %43 : tensor<32x64x!tile.ptr<i8>>
    %45 = arith.sitofp %44 : tensor<32x64xi8> to tensor<32x64xf16>
    %46 = tile.dot %32, %45, %arg7 : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
    scf.yield %46 : tensor<64x64xf32>
  }
  %12 = tile.expand_dims %4, axis = 1 : tensor<64xi32> -> tensor<64x1xi32>
  %13 = tile.splat %arg4 : i32 -> tensor<64x1xi32>
  %14 = arith.muli %12, %13 : tensor<64x1xi32>
  %15 = tile.splat %arg2 : !tile.ptr<f32> -> tensor<64x1x!tile.ptr<f32>>
  %16 = tile.addptr %15, %14 : tensor<64x1x!tile.ptr<f32>>, tensor<64x1xi32>
  %17 = tile.expand_dims %9, axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
  %18 = tile.broadcast %16 : tensor<64x1x!tile.ptr<f32>> -> tensor<64x64x!tile.ptr<f32>>
  %19 = tile.broadcast %17 : tensor<1x64xi32> -> tensor<64x64xi32>
  %20 = tile.addptr %18, %19 : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %20, %11 : tensor<64x64x!tile.ptr<f32>>
  tile.return
}

// -----

// Zero points subtracted before the widening: z, 32 int8 over 128 threads,
// gives each thread runs of one byte, which cp.async does not copy; its
// copies would be a load and a shared store that wait for memory where they
// are issued, so by default only B is read back. `always` reads back both.
// CHECK-LABEL: gpu.func @zero_points
// CHECK-SAME: "{{.*}}: 3 stages (num_stages 3), copies 2 iterations ahead by cp.async (1 load read back into registers)"
// NEVER-LABEL: gpu.func @zero_points
// NEVER-NOT: read back into registers
// ALWAYS-LABEL: gpu.func @zero_points
// ALWAYS-SAME: "{{.*}}: 3 stages (num_stages 3), copies 2 iterations ahead by cp.async (2 loads read back into registers)"
tile.func @zero_points(%arg0: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<i8> {tile.divisibility = 16 : i32}, %arg2: !tile.ptr<i8> {tile.divisibility = 16 : i32}, %arg3: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg4: i32 {tile.divisibility = 16 : i32}, %arg5: i32 {tile.divisibility = 16 : i32}, %arg6: i32 {tile.divisibility = 16 : i32}) {
  %0 = tile.program_id x
  %c64_i32 = arith.constant 64 : i32
  %1 = arith.muli %0, %c64_i32 : i32
  %2 = tile.make_range 0 to 64 : tensor<64xi32>
  %3 = tile.splat %1 : i32 -> tensor<64xi32>
  %4 = arith.addi %3, %2 : tensor<64xi32>
  %5 = tile.program_id y
  %c64_i32_0 = arith.constant 64 : i32
  %6 = arith.muli %5, %c64_i32_0 : i32
  %7 = tile.make_range 0 to 64 : tensor<64xi32>
  %8 = tile.splat %6 : i32 -> tensor<64xi32>
  %9 = arith.addi %8, %7 : tensor<64xi32>
  %10 = tile.make_range 0 to 32 : tensor<32xi32>
  %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
  %c0_i32 = arith.constant 0 : i32
  %c32_i32 = arith.constant 32 : i32
  %11 = scf.for %arg7 = %c0_i32 to %arg6 step %c32_i32 iter_args(%arg8 = %cst) -> (tensor<64x64xf32>)  : i32 {
    %21 = tile.expand_dims %4, axis = 1 : tensor<64xi32> -> tensor<64x1xi32>
    %22 = tile.splat %arg6 : i32 -> tensor<64x1xi32>
    %23 = arith.muli %21, %22 : tensor<64x1xi32>
    %24 = tile.splat %arg0 : !tile.ptr<f16> -> tensor<64x1x!tile.ptr<f16>>
    %25 = tile.addptr %24, %23 : tensor<64x1x!tile.ptr<f16>>, tensor<64x1xi32>
    %26 = tile.splat %arg7 : i32 -> tensor<32xi32>
    %27 = arith.addi %26, %10 : tensor<32xi32>
    %28 = tile.expand_dims %27, axis = 0 : tensor<32xi32> -> tensor<1x32xi32>
    %29 = tile.broadcast %25 : tensor<64x1x!tile.ptr<f16>> -> tensor<64x32x!tile.ptr<f16>>
    %30 = tile.broadcast %28 : tensor<1x32xi32> -> tensor<64x32xi32>
    %31 = tile.addptr %29, %30 : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
    %32 = tile.load %31 : tensor<64x32x!tile.ptr<f16>>
    %33 = tile.splat %arg7 : i32 -> tensor<32xi32>
    %34 = arith.addi %33, %10 : tensor<32xi32>
    %35 = tile.expand_dims %34, axis = 1 : tensor<32xi32> -> tensor<32x1xi32>
    %36 = tile.splat %arg5 : i32 -> tensor<32x1xi32>
    %37 = arith.muli %35, %36 : tensor<32x1xi32>
    %38 = tile.splat %arg1 : !tile.ptr<i8> -> tensor<32x1x!tile.ptr<i8>>
    %39 = tile.addptr %38, %37 : tensor<32x1x!tile.ptr<i8>>, tensor<32x1xi32>
    %40 = tile.expand_dims %9, axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
    %41 = tile.broadcast %39 : tensor<32x1x!tile.ptr<i8>> -> tensor<32x64x!tile.ptr<i8>>
    %42 = tile.broadcast %40 : tensor<1x64xi32> -> tensor<32x64xi32>
    %43 = tile.addptr %41, %42 : tensor<32x64x!tile.ptr<i8>>, tensor<32x64xi32>
    %44 = tile.load %43 : tensor<32x64x!tile.ptr<i8>>
    %45 = tile.addptr %arg2, %arg7 : !tile.ptr<i8>, i32
    %46 = tile.splat %45 : !tile.ptr<i8> -> tensor<32x!tile.ptr<i8>>
    %47 = tile.addptr %46, %10 : tensor<32x!tile.ptr<i8>>, tensor<32xi32>
    %48 = tile.load %47 : tensor<32x!tile.ptr<i8>>
    %49 = tile.expand_dims %48, axis = 1 : tensor<32xi8> -> tensor<32x1xi8>
    %50 = tile.broadcast %49 : tensor<32x1xi8> -> tensor<32x64xi8>
    %51 = arith.subi %44, %50 : tensor<32x64xi8>
    %52 = arith.sitofp %51 : tensor<32x64xi8> to tensor<32x64xf16>
    %53 = tile.dot %32, %52, %arg8 : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
    scf.yield %53 : tensor<64x64xf32>
  }
  %12 = tile.expand_dims %4, axis = 1 : tensor<64xi32> -> tensor<64x1xi32>
  %13 = tile.splat %arg5 : i32 -> tensor<64x1xi32>
  %14 = arith.muli %12, %13 : tensor<64x1xi32>
  %15 = tile.splat %arg3 : !tile.ptr<f32> -> tensor<64x1x!tile.ptr<f32>>
  %16 = tile.addptr %15, %14 : tensor<64x1x!tile.ptr<f32>>, tensor<64x1xi32>
  %17 = tile.expand_dims %9, axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
  %18 = tile.broadcast %16 : tensor<64x1x!tile.ptr<f32>> -> tensor<64x64x!tile.ptr<f32>>
  %19 = tile.broadcast %17 : tensor<1x64xi32> -> tensor<64x64xi32>
  %20 = tile.addptr %18, %19 : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %20, %11 : tensor<64x64x!tile.ptr<f32>>
  tile.return
}
