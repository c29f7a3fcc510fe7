// RUN: tessera-opt %s -tile-lower-to-gpu="target=cuda:sm_90a num-warps=4" | FileCheck %s
// RUN: tessera-opt %s -tile-lower-to-gpu="target=cuda:sm_80 num-warps=4" | FileCheck %s --check-prefix=MMA

// A dot whose A is another dot's result converted (attention's P = S.to(f16)
// in P @ V) is in the accumulator layout, which is the register layout for A
// of wgmma and of mma.sync: the second dot takes P from registers, pairs of
// halves packed into 32-bit words, 4 per k16 step, and only V goes to shared
// memory. The first dot, both operands loaded, reads them from shared memory
// behind one proxy fence (wgmma) and one barrier.

tile.func @chained(%q: !tile.ptr<f16>, %k: !tile.ptr<f16>, %v: !tile.ptr<f16>, %out: !tile.ptr<f32>) {
  %r64 = tile.make_range 0 to 64 : tensor<64xi32>
  %rows = tile.expand_dims %r64, axis = 1 : tensor<64xi32> -> tensor<64x1xi32>
  %c64 = arith.constant dense<64> : tensor<64x1xi32>
  %rowoff = arith.muli %rows, %c64 : tensor<64x1xi32>
  %rowb = tile.broadcast %rowoff : tensor<64x1xi32> -> tensor<64x64xi32>
  %cols = tile.expand_dims %r64, axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
  %colb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<64x64xi32>
  %off = arith.addi %rowb, %colb : tensor<64x64xi32>
  %qb = tile.splat %q : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
  %qp = tile.addptr %qb, %off : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>
  %qt = tile.load %qp : tensor<64x64x!tile.ptr<f16>>
  %kb = tile.splat %k : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
  %kp = tile.addptr %kb, %off : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>
  %kt = tile.load %kp : tensor<64x64x!tile.ptr<f16>>
  %vb = tile.splat %v : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
  %vp = tile.addptr %vb, %off : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>
  %vt = tile.load %vp : tensor<64x64x!tile.ptr<f16>>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %s = tile.dot %qt, %kt, %zero : tensor<64x64xf16> * tensor<64x64xf16> -> tensor<64x64xf32>
  %p = arith.truncf %s : tensor<64x64xf32> to tensor<64x64xf16>
  %o = tile.dot %p, %vt, %zero : tensor<64x64xf16> * tensor<64x64xf16> -> tensor<64x64xf32>
  %ob = tile.splat %out : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %op = tile.addptr %ob, %off : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %op, %o : tensor<64x64x!tile.ptr<f32>>
  tile.return
}

// CHECK-LABEL: gpu.func @chained
// CHECK-SAME: wgmma.m64n64k16.f16", "{{.*}}: wgmma.m64n64k16.f16, A in registers"]
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>
// CHECK-NEXT: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-4: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: wgmma.wait_group.sync.aligned 0;
// Only V is stored for the second dot, then fenced and synchronized once.
// CHECK-COUNT-4: vector.store %{{.*}} : memref<4096xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK-NOT: vector.store
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>
// CHECK-NEXT: gpu.barrier
// CHECK: %[[PAIR:.*]] = vector.from_elements %{{.*}}, %{{.*}} : vector<2xf16>
// CHECK: %[[WORD:.*]] = vector.bitcast %[[PAIR]] : vector<2xf16> to vector<1xi32>
// CHECK: vector.extract %[[WORD]][0] : i32 from vector<1xi32>
// CHECK-NOT: vector.store
// CHECK-NOT: gpu.barrier
// CHECK: nvvm.wgmma.fence.aligned
// Four k16 steps, A as four registers, B (V, N-major) transposed.
// CHECK-COUNT-4: llvm.inline_asm has_side_effects asm_dialect = att "{\0A.reg .pred p;\0Asetp.ne.b32 p, {{[01]}}, 0;\0Awgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}}, {$64, $65, $66, $67}, $68, p, 1, 1, 1;
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: gpu.return

// The first dot: A's two k16 steps through ldmatrix, 8 n8 tiles each.
// MMA-LABEL: gpu.func @chained
// MMA-SAME: mma.sync.m16n8k16.f16", "{{.*}}: mma.sync.m16n8k16.f16, A in registers"]
// MMA-NOT: nvvm.wgmma
// MMA: gpu.barrier
// MMA-NOT: gpu.barrier
// MMA-COUNT-32: nvvm.mma.sync
// MMA: gpu.barrier
// The second: only V is stored; P's halves pair into A's fragment words.
// MMA-COUNT-4: vector.store %{{.*}} : memref<4096xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// MMA-NEXT: gpu.barrier
// MMA-NEXT: %[[A0:.*]] = vector.from_elements %{{.*}}, %{{.*}} : vector<2xf16>
// MMA-NEXT: %[[A1:.*]] = vector.from_elements %{{.*}}, %{{.*}} : vector<2xf16>
// MMA-NEXT: %[[A2:.*]] = vector.from_elements %{{.*}}, %{{.*}} : vector<2xf16>
// MMA-NEXT: %[[A3:.*]] = vector.from_elements %{{.*}}, %{{.*}} : vector<2xf16>
// MMA-NOT: transpose = false
// MMA: nvgpu.ldmatrix{{.*}}transpose = true
// MMA: nvvm.mma.sync A[%[[A0]], %[[A1]], %[[A2]], %[[A3]]]
// MMA-NOT: vector.store
// MMA-NOT: transpose = false
// MMA-COUNT-31: nvvm.mma.sync
// MMA-NOT: nvvm.mma.sync
// MMA: gpu.return
