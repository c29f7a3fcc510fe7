// RUN: tessera-opt %s -split-input-file -tile-lower-to-llvm-cpu="triple=x86_64-unknown-linux-gnu cpu=haswell features=+avx2,+fma" -verify-diagnostics | FileCheck %s

// The whole pipeline: only the LLVM dialect is left; the kernel takes the
// grid arguments and has a packed entry point. The 64-lane tile is computed in
// register-sized chunks (vector-bits / 32 lanes) (tile-cpu-split-vectors), chunk after chunk.
// CHECK-LABEL: llvm.func @scale(%{{.*}}: !llvm.ptr, %{{.*}}: f32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32)
// CHECK: llvm.intr.masked.load {{.*}} -> vector<{{[48]}}xf32>
// CHECK: llvm.fmul {{.*}} : vector<{{[48]}}xf32>
// CHECK: llvm.intr.masked.store {{.*}} : vector<{{[48]}}xf32>
// CHECK-LABEL: llvm.func @scale__grid_entry(%{{.*}}: !llvm.ptr, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32)
// CHECK: llvm.call @scale(
// CHECK-NOT: tile.
// CHECK-NOT: arith.
// CHECK-NOT: scf.
tile.func @scale(%p: !tile.ptr<f32>, %s: f32, %n: i32) {
  %pid = tile.program_id x
  %c64 = arith.constant 64 : i32
  %start = arith.muli %pid, %c64 : i32
  %r = tile.make_range 0 to 64 : tensor<64xi32>
  %sb = tile.splat %start : i32 -> tensor<64xi32>
  %offs = arith.addi %sb, %r : tensor<64xi32>
  %nb = tile.splat %n : i32 -> tensor<64xi32>
  %mask = arith.cmpi slt, %offs, %nb : tensor<64xi32>
  %pb = tile.splat %p : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %pp = tile.addptr %pb, %offs : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %x = tile.load %pp, %mask : tensor<64x!tile.ptr<f32>>
  %ss = tile.splat %s : f32 -> tensor<64xf32>
  %y = arith.mulf %x, %ss : tensor<64xf32>
  tile.store %pp, %y, %mask : tensor<64x!tile.ptr<f32>>
  tile.return
}

// -----

// What the CPU backend cannot lower is an error on the op.
tile.func @ext(%x: f32) {
  // expected-error @+1 {{'tile.extern_elementwise' calls 'erff' of library 'libm', which the CPU backend does not link}}
  %e = tile.extern_elementwise "erff"(%x) lib "libm" pure : (f32) -> f32
  tile.return
}
