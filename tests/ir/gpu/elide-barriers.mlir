// RUN: tessera-opt %s -split-input-file -tile-gpu-elide-barriers | FileCheck %s

// Two users of different bytes of dynamic shared memory: the barrier ending
// the first orders nothing the second touches and goes. The second's goes
// too: nothing touches shared memory after it.
// CHECK-LABEL: gpu.func @disjoint_users
// CHECK: memref.load %[[FIRST:.*]][
// CHECK-NEXT: memref.store %{{.*}}, %[[SECOND:.*]][
// CHECK-NEXT: gpu.barrier{{$}}
// CHECK-NEXT: memref.load %[[SECOND]]
// CHECK-NEXT: gpu.return
gpu.module @m {
  gpu.func @disjoint_users(%v: f32, %i: index) kernel {
    %c0 = arith.constant 0 : index
    %c48 = arith.constant 48 : index
    %base = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %first = memref.view %base[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<9xf32, #gpu.address_space<workgroup>>
    %second = memref.view %base[%c48][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<9xf32, #gpu.address_space<workgroup>>
    memref.store %v, %first[%i] : memref<9xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %a = memref.load %first[%i] : memref<9xf32, #gpu.address_space<workgroup>>
    gpu.barrier {tessera.ends_shared_memory_user}
    memref.store %a, %second[%i] : memref<9xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %b = memref.load %second[%i] : memref<9xf32, #gpu.address_space<workgroup>>
    gpu.barrier {tessera.ends_shared_memory_user}
    gpu.return
  }
}

// -----

// The second user writes bytes [32, 68), which the first read ([0, 36)): the
// barrier stays, without its attribute. A barrier without the attribute
// (tl.debug_barrier) stays even with nothing around it.
// CHECK-LABEL: gpu.func @overlapping_users
// CHECK: memref.load
// CHECK-NEXT: gpu.barrier{{$}}
// CHECK-NEXT: memref.store
// CHECK-NEXT: gpu.barrier {tessera.orders_global_memory}
// CHECK-NEXT: gpu.return
gpu.module @m {
  gpu.func @overlapping_users(%v: f32, %i: index) kernel {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %base = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %first = memref.view %base[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<9xf32, #gpu.address_space<workgroup>>
    %second = memref.view %base[%c32][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<9xf32, #gpu.address_space<workgroup>>
    %a = memref.load %first[%i] : memref<9xf32, #gpu.address_space<workgroup>>
    gpu.barrier {tessera.ends_shared_memory_user}
    memref.store %a, %second[%i] : memref<9xf32, #gpu.address_space<workgroup>>
    gpu.barrier {tessera.orders_global_memory}
    gpu.return
  }
}

// -----

// Reads on both sides order nothing: a barrier between two loads of the same
// bytes goes.
// CHECK-LABEL: gpu.func @reads_only
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
gpu.module @m {
  gpu.func @reads_only(%i: index, %out: memref<?xf32>) kernel {
    %c0 = arith.constant 0 : index
    %base = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %view = memref.view %base[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4xf32, #gpu.address_space<workgroup>>
    %a = memref.load %view[%i] : memref<4xf32, #gpu.address_space<workgroup>>
    gpu.barrier {tessera.ends_shared_memory_user}
    %b = memref.load %view[%i] : memref<4xf32, #gpu.address_space<workgroup>>
    %s = arith.addf %a, %b : f32
    memref.store %s, %out[%i] : memref<?xf32>
    gpu.return
  }
}

// -----

// In a loop the body runs again: the barrier at its end orders the reads of
// this iteration before the next one's write of the same bytes and stays;
// where the next iteration writes other bytes it goes. Global memory (the
// memref argument, asm marked tessera.no_shared_memory, math intrinsics)
// is not shared memory; the pass drops the asm's attribute.
// CHECK-LABEL: gpu.func @loops
// CHECK: scf.for
// CHECK: memref.load %[[LOW:.*]][
// CHECK-NEXT: gpu.barrier{{$}}
// CHECK-NEXT: }
// CHECK: scf.for
// CHECK: memref.load %[[LOW]]
// CHECK-NEXT: memref.store %{{.*}}, %[[HIGH:.*]][
// CHECK-NEXT: gpu.barrier{{$}}
// CHECK-NEXT: memref.load %[[HIGH]]
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.div.full"
// CHECK-NEXT: llvm.inline_asm has_side_effects asm_dialect = att "st.global.b32
// CHECK-NEXT: memref.store %{{.*}}, %arg2
// CHECK-NEXT: }
gpu.module @m {
  gpu.func @loops(%v: f32, %i: index, %out: memref<?xf32>, %address: i64, %word: i32) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c16 = arith.constant 16 : index
    %base = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %low = memref.view %base[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4xf32, #gpu.address_space<workgroup>>
    %high = memref.view %base[%c16][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4xf32, #gpu.address_space<workgroup>>
    scf.for %k = %c0 to %c4 step %c1 {
      memref.store %v, %low[%i] : memref<4xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %a = memref.load %low[%i] : memref<4xf32, #gpu.address_space<workgroup>>
      gpu.barrier {tessera.ends_shared_memory_user}
    }
    scf.for %k = %c0 to %c4 step %c1 {
      memref.store %v, %low[%i] : memref<4xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %a = memref.load %low[%i] : memref<4xf32, #gpu.address_space<workgroup>>
      gpu.barrier {tessera.ends_shared_memory_user}
      memref.store %a, %high[%i] : memref<4xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %b = memref.load %high[%i] : memref<4xf32, #gpu.address_space<workgroup>>
      %q = llvm.call_intrinsic "llvm.nvvm.div.full"(%a, %b) : (f32, f32) -> f32
      llvm.inline_asm has_side_effects asm_dialect = att {tessera.no_shared_memory} "st.global.b32 [$0], $1;", "l,r" %address, %word : (i64, i32) -> ()
      gpu.barrier {tessera.ends_shared_memory_user}
      memref.store %q, %out[%i] : memref<?xf32>
    }
    gpu.return
  }
}

// -----

// Asm without tessera.no_shared_memory, a pointer that may be shared and an
// intrinsic that may touch memory may touch any byte: the barriers before
// them stay.
// CHECK-LABEL: gpu.func @unknown_accesses
// CHECK: memref.load
// CHECK-NEXT: gpu.barrier{{$}}
// CHECK-NEXT: llvm.inline_asm
// CHECK: memref.load
// CHECK-NEXT: gpu.barrier{{$}}
// CHECK-NEXT: llvm.store
// CHECK: memref.load
// CHECK-NEXT: gpu.barrier{{$}}
// CHECK-NEXT: llvm.call_intrinsic "llvm.prefetch.p0"
gpu.module @m {
  gpu.func @unknown_accesses(%i: index, %address: i64, %pointer: !llvm.ptr<3>, %word: i32,
                             %generic: !llvm.ptr) kernel {
    %c0 = arith.constant 0 : index
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %base = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %view = memref.view %base[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4xf32, #gpu.address_space<workgroup>>
    %a = memref.load %view[%i] : memref<4xf32, #gpu.address_space<workgroup>>
    gpu.barrier {tessera.ends_shared_memory_user}
    llvm.inline_asm has_side_effects asm_dialect = att "st.shared.b32 [$0], $1;", "l,r" %address, %word : (i64, i32) -> ()
    %b = memref.load %view[%i] : memref<4xf32, #gpu.address_space<workgroup>>
    gpu.barrier {tessera.ends_shared_memory_user}
    llvm.store %word, %pointer : i32, !llvm.ptr<3>
    %c = memref.load %view[%i] : memref<4xf32, #gpu.address_space<workgroup>>
    gpu.barrier {tessera.ends_shared_memory_user}
    llvm.call_intrinsic "llvm.prefetch.p0"(%generic, %c0_i32, %c0_i32, %c1_i32) : (!llvm.ptr, i32, i32, i32) -> ()
    gpu.return
  }
}

// -----

// Workgroup attributions (AMD, Vulkan) are buffers of their own: a user of
// another one needs no barrier, a user of the same one does. A barrier in a
// branch orders what follows the branch.
// CHECK-LABEL: gpu.func @attributions
// CHECK: scf.if
// CHECK-NEXT: memref.load %[[A:.*]][
// CHECK-NEXT: }
// CHECK-NEXT: memref.store %{{.*}}, %[[B:.*]][
// CHECK-NEXT: memref.load %[[B]]
// CHECK-NEXT: gpu.barrier{{$}}
// CHECK-NEXT: memref.store %{{.*}}, %[[B]][
// CHECK-NEXT: gpu.return
gpu.module @m {
  gpu.func @attributions(%v: f32, %i: index, %c: i1)
      workgroup(%a: memref<4xf32, #gpu.address_space<workgroup>>,
                %b: memref<4xf32, #gpu.address_space<workgroup>>) kernel {
    scf.if %c {
      %x = memref.load %a[%i] : memref<4xf32, #gpu.address_space<workgroup>>
      gpu.barrier {tessera.ends_shared_memory_user}
    }
    memref.store %v, %b[%i] : memref<4xf32, #gpu.address_space<workgroup>>
    %y = memref.load %b[%i] : memref<4xf32, #gpu.address_space<workgroup>>
    gpu.barrier {tessera.ends_shared_memory_user}
    memref.store %y, %b[%i] : memref<4xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

// Unstructured control flow is not the distribution's: paths that leave a
// block may reach any access, and the barrier stays.
// CHECK-LABEL: gpu.func @blocks
// CHECK: memref.load
// CHECK-NEXT: gpu.barrier{{$}}
// CHECK-NEXT: cf.br
gpu.module @m {
  gpu.func @blocks(%i: index) kernel {
    %c0 = arith.constant 0 : index
    %base = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %view = memref.view %base[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4xf32, #gpu.address_space<workgroup>>
    %a = memref.load %view[%i] : memref<4xf32, #gpu.address_space<workgroup>>
    gpu.barrier {tessera.ends_shared_memory_user}
    cf.br ^next
  ^next:
    memref.store %a, %view[%i] : memref<4xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}
