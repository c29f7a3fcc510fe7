// RUN: tessera-opt %s -split-input-file --tessera-gpu-to-nvvm=chip=sm_80 | FileCheck %s
// RUN: not tessera-opt %s --tessera-gpu-to-nvvm=chip=sm_50 2>&1 | FileCheck %s --check-prefix=BADCHIP

// BADCHIP: tessera-gpu-to-nvvm: bad GPU target 'cuda:sm_50': unknown NVIDIA architecture 'sm_50'

// Pointer arguments arrive as bare pointers and are indexed directly; the
// mask becomes a branch.
// CHECK-LABEL: gpu.module @vector_add [#nvvm.target<O = 3, chip = "sm_80">]
// CHECK: llvm.func @vector_add(%[[X:.*]]: !llvm.ptr, %[[Y:.*]]: !llvm.ptr, %[[OUT:.*]]: !llvm.ptr, %[[N:.*]]: i32)
// CHECK-SAME: gpu.kernel
// CHECK-SAME: nvvm.kernel
// CHECK-SAME: nvvm.maxntid = array<i32: 128, 1, 1>
// CHECK: nvvm.read.ptx.sreg.tid.x
// CHECK: nvvm.read.ptx.sreg.ctaid.x
// CHECK: llvm.cond_br
// CHECK: llvm.getelementptr inbounds|nuw %[[X]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK: llvm.load
// CHECK: llvm.getelementptr inbounds|nuw %[[Y]]
// CHECK: llvm.fadd
// CHECK: llvm.getelementptr inbounds|nuw %[[OUT]]
// CHECK: llvm.store
// CHECK-NOT: unrealized_conversion_cast
module attributes {gpu.container_module} {
  gpu.module @vector_add {
    gpu.func @vector_add(%x: memref<?xf32>, %y: memref<?xf32>, %out: memref<?xf32>, %n: i32) kernel
        attributes {known_block_size = array<i32: 128, 1, 1>, tessera.num_warps = 4 : i32,
                    tessera.shared_memory_bytes = 0 : i32} {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %c128 = arith.constant 128 : index
      %base = arith.muli %bid, %c128 : index
      %i = arith.addi %base, %tid : index
      %bound = arith.index_cast %n : i32 to index
      %inside = arith.cmpi slt, %i, %bound : index
      scf.if %inside {
        %a = memref.load %x[%i] : memref<?xf32>
        %b = memref.load %y[%i] : memref<?xf32>
        %sum = arith.addf %a, %b : f32
        memref.store %sum, %out[%i] : memref<?xf32>
      }
      gpu.return
    }
  }
}

// -----

// Shuffles, barriers and workgroup memory become NVVM ops and a shared
// global; math becomes libdevice calls.
// CHECK-LABEL: gpu.module @warp_ops
// CHECK-DAG: llvm.mlir.global internal @__wg_warp_ops_0() {addr_space = 3 : i32} : !llvm.array<2 x f32>
// CHECK-DAG: llvm.func @__nv_expf(f32) -> f32
// CHECK: llvm.func @warp_ops
// CHECK: nvvm.shfl.sync bfly
// CHECK: llvm.call @__nv_expf
// CHECK: llvm.store {{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier
// CHECK: llvm.load {{.*}} : !llvm.ptr<3> -> f32
module attributes {gpu.container_module} {
  gpu.module @warp_ops {
    gpu.func @warp_ops(%x: memref<?xf32>, %out: memref<?xf32>) workgroup(%buf: memref<2xf32, #gpu.address_space<workgroup>>) kernel
        attributes {known_block_size = array<i32: 64, 1, 1>, tessera.num_warps = 2 : i32,
                    tessera.shared_memory_bytes = 0 : i32} {
      %tid = gpu.thread_id x
      %v = memref.load %x[%tid] : memref<?xf32>
      %offset = arith.constant 1 : i32
      %width = arith.constant 32 : i32
      %s, %ok = gpu.shuffle xor %v, %offset, %width : f32
      %e = math.exp %s : f32
      %c32 = arith.constant 32 : index
      %warp = arith.divui %tid, %c32 : index
      memref.store %e, %buf[%warp] : memref<2xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %r = memref.load %buf[%warp] : memref<2xf32, #gpu.address_space<workgroup>>
      memref.store %r, %out[%tid] : memref<?xf32>
      gpu.return
    }
  }
}

// -----

// Dynamic shared memory is an extern symbol; mma.sync and ldmatrix map to
// their NVVM ops.
// CHECK-LABEL: gpu.module @tensor_core
// CHECK: llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CHECK: llvm.func @tensor_core
// CHECK: llvm.mlir.addressof @__dynamic_shmem__0 : !llvm.ptr<3>
// CHECK: nvvm.ldmatrix {{.*}}layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>
// CHECK: nvvm.mma.sync
// CHECK-SAME: shape = #nvvm.shape<m = 16, n = 8, k = 16>
module attributes {gpu.container_module} {
  gpu.module @tensor_core {
    gpu.func @tensor_core(%b: memref<?xf16>, %c: memref<?xf32>) kernel
        attributes {known_block_size = array<i32: 32, 1, 1>, tessera.num_warps = 1 : i32,
                    tessera.shared_memory_bytes = 512 : i32} {
      %lane = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %c8 = arith.constant 8 : index
      %bytes = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
      %tile = memref.view %bytes[%c0][] : memref<?xi8, #gpu.address_space<workgroup>>
          to memref<256xf16, #gpu.address_space<workgroup>>
      %row = arith.muli %lane, %c8 : index
      %aFrag = nvgpu.ldmatrix %tile[%row] {numTiles = 4 : i32, transpose = false}
          : memref<256xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
      %bFlat = vector.load %b[%row] : memref<?xf16>, vector<2xf16>
      %bFrag = vector.broadcast %bFlat : vector<2xf16> to vector<2x2xf16>
      %zero = arith.constant dense<0.0> : vector<2x2xf32>
      %d = nvgpu.mma.sync (%aFrag, %bFrag, %zero) {mmaShape = [16, 8, 16]}
          : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
      %top = vector.extract %d[0] : vector<2xf32> from vector<2x2xf32>
      vector.store %top, %c[%row] : memref<?xf32>, vector<2xf32>
      gpu.return
    }
  }
}
