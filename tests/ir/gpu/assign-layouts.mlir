// RUN: tessera-opt %s -split-input-file -tile-gpu-assign-layouts="target=vulkan:1.3:subgroup=32 num-warps=2" | FileCheck %s --check-prefix=VK
// RUN: tessera-opt %s -split-input-file -tile-gpu-assign-layouts="target=cuda:sm_80 num-warps=4" | FileCheck %s --check-prefix=SM80
// RUN: tessera-opt %s -split-input-file -tile-gpu-assign-layouts="target=hip:gfx942 num-warps=2" | FileCheck %s --check-prefix=CDNA

// Vector add: every tile, the cheap offsets and mask included, gets the
// load's layout (4 contiguous floats per thread); nothing is converted.
// VK: #[[V4:layout]] = #tgpu.layout<rank = 1, reg = {{\[}}[1], [2]], lane = {{\[}}[4], [8], [16], [32], [64]], warp = {{\[}}[128]]>
// VK-NOT: #layout1
// VK-LABEL: tile.func @add
// VK-SAME: attributes {tgpu.num_warps = 2 : i32, tgpu.target = "vulkan:1.3:subgroup=32{{.*}}"}
// VK: %[[MASK:.*]] = arith.cmpi slt, {{.*}} : tensor<256xi32, #[[V4]]>
// VK: %[[A:.*]] = tile.load %{{.*}}, %[[MASK]] : tensor<256x!tile.ptr<f32>, #[[V4]]>
// VK: %[[B:.*]] = tile.load %{{.*}}, %[[MASK]] : tensor<256x!tile.ptr<f32>, #[[V4]]>
// VK: %[[SUM:.*]] = arith.addf %[[A]], %[[B]] : tensor<256xf32, #[[V4]]>
// VK: tile.store %{{.*}}, %[[SUM]], %[[MASK]] : tensor<256x!tile.ptr<f32>, #[[V4]]>
// VK-NOT: tgpu.convert_layout
// SM80-LABEL: tile.func @add
// SM80-SAME: tgpu.target = "cuda:sm_80"
// SM80-NOT: tgpu.convert_layout
tile.func @add(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %z: !tile.ptr<f32>, %n: i32) {
  %pid = tile.program_id x
  %c256 = arith.constant 256 : i32
  %start = arith.muli %pid, %c256 : i32
  %r = tile.make_range 0 to 256 : tensor<256xi32>
  %s = tile.splat %start : i32 -> tensor<256xi32>
  %offs = arith.addi %s, %r : tensor<256xi32>
  %ns = tile.splat %n : i32 -> tensor<256xi32>
  %mask = arith.cmpi slt, %offs, %ns : tensor<256xi32>
  %xb = tile.splat %x : !tile.ptr<f32> -> tensor<256x!tile.ptr<f32>>
  %xp = tile.addptr %xb, %offs : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  %a = tile.load %xp, %mask : tensor<256x!tile.ptr<f32>>
  %yb = tile.splat %y : !tile.ptr<f32> -> tensor<256x!tile.ptr<f32>>
  %yp = tile.addptr %yb, %offs : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  %b = tile.load %yp, %mask : tensor<256x!tile.ptr<f32>>
  %sum = arith.addf %a, %b : tensor<256xf32>
  %zb = tile.splat %z : !tile.ptr<f32> -> tensor<256x!tile.ptr<f32>>
  %zp = tile.addptr %zb, %offs : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  tile.store %zp, %sum, %mask : tensor<256x!tile.ptr<f32>>
  tile.return
}

// -----

// 2-D pointers on 64-wide CDNA waves: row-major rows are contiguous (4
// floats per thread along the columns); the column-major store proves
// nothing (one element per thread) and its value is converted to it.
// CDNA-DAG: #[[ROWMAJOR:layout[0-9]*]] = #tgpu.layout<rank = 2, reg = {{\[}}[0, 1], [0, 2], [8, 0], [16, 0]], lane = {{\[}}[0, 4], [0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = {{\[}}[4, 0]]>
// CDNA-DAG: #[[SCALAR:layout[0-9]*]] = #tgpu.layout<rank = 2, reg = {{\[}}[2, 0], [4, 0], [8, 0], [16, 0]], lane = {{\[}}[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32]], warp = {{\[}}[1, 0]]>
// CDNA-LABEL: tile.func @rows
// CDNA: %[[X:.*]] = tile.load %{{.*}} : tensor<32x64x!tile.ptr<f32>, #[[ROWMAJOR]]>
// CDNA: %[[C:.*]] = tgpu.convert_layout %[[X]] : tensor<32x64xf32, #[[ROWMAJOR]]> -> tensor<32x64xf32, #[[SCALAR]]>
// CDNA: tile.store %{{.*}}, %[[C]] : tensor<32x64x!tile.ptr<f32>, #[[SCALAR]]>
// VK-LABEL: tile.func @rows
// SM80-LABEL: tile.func @rows
tile.func @rows(%in: !tile.ptr<f32>, %out: !tile.ptr<f32>, %stride: i32) {
  %r = tile.make_range 0 to 32 : tensor<32xi32>
  %c = tile.make_range 0 to 64 : tensor<64xi32>
  %r2 = tile.expand_dims %r, axis = 1 : tensor<32xi32> -> tensor<32x1xi32>
  %ss = tile.splat %stride : i32 -> tensor<32x1xi32>
  %rs = arith.muli %r2, %ss : tensor<32x1xi32>
  %rb = tile.broadcast %rs : tensor<32x1xi32> -> tensor<32x64xi32>
  %c2 = tile.expand_dims %c, axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
  %cb = tile.broadcast %c2 : tensor<1x64xi32> -> tensor<32x64xi32>
  %rowMajor = arith.addi %rb, %cb : tensor<32x64xi32>
  %ib = tile.splat %in : !tile.ptr<f32> -> tensor<32x64x!tile.ptr<f32>>
  %ip = tile.addptr %ib, %rowMajor : tensor<32x64x!tile.ptr<f32>>, tensor<32x64xi32>
  %x = tile.load %ip : tensor<32x64x!tile.ptr<f32>>
  %cs = tile.splat %stride : i32 -> tensor<1x64xi32>
  %cstr = arith.muli %c2, %cs : tensor<1x64xi32>
  %cstrb = tile.broadcast %cstr : tensor<1x64xi32> -> tensor<32x64xi32>
  %r2b = tile.broadcast %r2 : tensor<32x1xi32> -> tensor<32x64xi32>
  %colMajor = arith.addi %r2b, %cstrb : tensor<32x64xi32>
  %ob = tile.splat %out : !tile.ptr<f32> -> tensor<32x64x!tile.ptr<f32>>
  %op = tile.addptr %ob, %colMajor : tensor<32x64x!tile.ptr<f32>>, tensor<32x64xi32>
  tile.store %op, %x : tensor<32x64x!tile.ptr<f32>>
  tile.return
}

// -----

// Softmax: the row maximum and sum are reduced within each warp's rows; the
// expanded row statistic is converted to the broadcast's operand layout,
// which differs from it only by duplicate registers (same lanes and warps:
// a register renaming, no shared memory). The output needs no conversion.
// SM80-DAG: #[[X:layout[0-9]*]] = #tgpu.layout<rank = 2, reg = {{\[}}[0, 1], [0, 2], [4, 0], [8, 0]], lane = {{\[}}[0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], warp = {{\[}}[1, 0], [2, 0]]>
// SM80-DAG: #[[ROWSTAT:layout[0-9]*]] = #tgpu.layout<rank = 2, reg = {{\[}}[4, 0], [8, 0]], lane = {{\[}}[0, 0], [0, 0], [0, 0], [0, 0], [0, 0]], warp = {{\[}}[1, 0], [2, 0]]>
// SM80-DAG: #[[BCAST:layout[0-9]*]] = #tgpu.layout<rank = 2, reg = {{\[}}[0, 0], [0, 0], [4, 0], [8, 0]], lane = {{\[}}[0, 0], [0, 0], [0, 0], [0, 0], [0, 0]], warp = {{\[}}[1, 0], [2, 0]]>
// SM80-LABEL: tile.func @softmax
// SM80: %[[XV:.*]] = tile.load %{{.*}} : tensor<16x128x!tile.ptr<f32>, #[[X]]>
// SM80: %[[MAX:.*]] = tile.reduce %[[XV]] axis = 1 : tensor<16x128xf32, #[[X]]>
// SM80: %[[MAX2:.*]] = tile.expand_dims %[[MAX]], axis = 1 : {{.*}} -> tensor<16x1xf32, #[[ROWSTAT]]>
// SM80: %[[MAXC:.*]] = tgpu.convert_layout %[[MAX2]] : tensor<16x1xf32, #[[ROWSTAT]]> -> tensor<16x1xf32, #[[BCAST]]>
// SM80: %[[MAXB:.*]] = tile.broadcast %[[MAXC]] : tensor<16x1xf32, #[[BCAST]]> -> tensor<16x128xf32, #[[X]]>
// SM80: arith.subf %[[XV]], %[[MAXB]] : tensor<16x128xf32, #[[X]]>
// SM80: tgpu.convert_layout %{{.*}} : tensor<16x1xf32, #[[ROWSTAT]]> -> tensor<16x1xf32, #[[BCAST]]>
// SM80: %[[Y:.*]] = arith.divf {{.*}} : tensor<16x128xf32, #[[X]]>
// SM80-NOT: tgpu.convert_layout
// SM80: tile.store %{{.*}}, %[[Y]] : tensor<16x128x!tile.ptr<f32>, #[[X]]>
// VK-LABEL: tile.func @softmax
tile.func @softmax(%in: !tile.ptr<f32>, %out: !tile.ptr<f32>, %stride: i32) {
  %rows = tile.make_range 0 to 16 : tensor<16xi32>
  %cols = tile.make_range 0 to 128 : tensor<128xi32>
  %r2 = tile.expand_dims %rows, axis = 1 : tensor<16xi32> -> tensor<16x1xi32>
  %ss = tile.splat %stride : i32 -> tensor<16x1xi32>
  %roff = arith.muli %r2, %ss : tensor<16x1xi32>
  %rb = tile.broadcast %roff : tensor<16x1xi32> -> tensor<16x128xi32>
  %c2 = tile.expand_dims %cols, axis = 0 : tensor<128xi32> -> tensor<1x128xi32>
  %cb = tile.broadcast %c2 : tensor<1x128xi32> -> tensor<16x128xi32>
  %offs = arith.addi %rb, %cb : tensor<16x128xi32>
  %ib = tile.splat %in : !tile.ptr<f32> -> tensor<16x128x!tile.ptr<f32>>
  %ip = tile.addptr %ib, %offs : tensor<16x128x!tile.ptr<f32>>, tensor<16x128xi32>
  %x = tile.load %ip : tensor<16x128x!tile.ptr<f32>>
  %max = tile.reduce %x axis = 1 : tensor<16x128xf32> {
  ^bb0(%a: f32, %b: f32):
    %m = arith.maximumf %a, %b : f32
    tile.yield %m : f32
  }
  %max2 = tile.expand_dims %max, axis = 1 : tensor<16xf32> -> tensor<16x1xf32>
  %maxb = tile.broadcast %max2 : tensor<16x1xf32> -> tensor<16x128xf32>
  %shifted = arith.subf %x, %maxb : tensor<16x128xf32>
  %e = math.exp %shifted : tensor<16x128xf32>
  %sum = tile.reduce %e axis = 1 : tensor<16x128xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tile.yield %s : f32
  }
  %sum2 = tile.expand_dims %sum, axis = 1 : tensor<16xf32> -> tensor<16x1xf32>
  %sumb = tile.broadcast %sum2 : tensor<16x1xf32> -> tensor<16x128xf32>
  %y = arith.divf %e, %sumb : tensor<16x128xf32>
  %ob = tile.splat %out : !tile.ptr<f32> -> tensor<16x128x!tile.ptr<f32>>
  %op = tile.addptr %ob, %offs : tensor<16x128x!tile.ptr<f32>>, tensor<16x128xi32>
  tile.store %op, %y : tensor<16x128x!tile.ptr<f32>>
  tile.return
}

// -----

// A matmul k-loop. On sm_80 the accumulator takes mma.sync's m16n8 layout
// with the warps in a 2x2 grid of 32x32 blocks:
// its zero initial value is built in it before the loop, the iteration
// argument, the dot and the loop result carry it, and the only conversion
// is the one before the coalesced store after the loop. The pointer tiles
// advanced every iteration stay contiguous (8 halves per thread).
// SM80-DAG: #[[MMA:layout[0-9]*]] = #tgpu.layout<rank = 2, reg = {{\[}}[0, 1], [8, 0], [0, 8], [0, 16], [16, 0]], lane = {{\[}}[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = {{\[}}[0, 32], [32, 0]]>
// SM80-DAG: #[[A:layout[0-9]*]] = #tgpu.layout<rank = 2, reg = {{\[}}[0, 1], [0, 2], [0, 4], [32, 0]], lane = {{\[}}[0, 8], [0, 16], [1, 0], [2, 0], [4, 0]], warp = {{\[}}[8, 0], [16, 0]]>
// SM80-DAG: #[[B:layout[0-9]*]] = #tgpu.layout<rank = 2, reg = {{\[}}[0, 1], [0, 2], [0, 4], [16, 0]], lane = {{\[}}[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = {{\[}}[4, 0], [8, 0]]>
// SM80-DAG: #[[C:layout[0-9]*]] = #tgpu.layout<rank = 2, reg = {{\[}}[0, 1], [0, 2], [8, 0], [16, 0], [32, 0]], lane = {{\[}}[0, 4], [0, 8], [0, 16], [0, 32], [1, 0]], warp = {{\[}}[2, 0], [4, 0]]>
// SM80-LABEL: tile.func @matmul
// SM80: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #[[MMA]]>
// SM80: %[[LOOP:.*]]:3 = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]], %[[AP:.*]] = %{{.*}}, %[[BP:.*]] = %{{.*}}) -> (tensor<64x64xf32, #[[MMA]]>, tensor<64x32x!tile.ptr<f16>, #[[A]]>, tensor<32x64x!tile.ptr<f16>, #[[B]]>)
// SM80-NOT: tgpu.convert_layout
// SM80: %[[AT:.*]] = tile.load %[[AP]] : tensor<64x32x!tile.ptr<f16>, #[[A]]>
// SM80: %[[BT:.*]] = tile.load %[[BP]] : tensor<32x64x!tile.ptr<f16>, #[[B]]>
// SM80: %[[NEXT:.*]] = tile.dot %[[AT]], %[[BT]], %[[ACC]] : tensor<64x32xf16, #[[A]]> * tensor<32x64xf16, #[[B]]> -> tensor<64x64xf32, #[[MMA]]>
// SM80-NOT: tgpu.convert_layout
// SM80: scf.yield %[[NEXT]], {{.*}} : tensor<64x64xf32, #[[MMA]]>,
// SM80: %[[OUT:.*]] = tgpu.convert_layout %[[LOOP]]#0 : tensor<64x64xf32, #[[MMA]]> -> tensor<64x64xf32, #[[C]]>
// SM80: tile.store %{{.*}}, %[[OUT]] : tensor<64x64x!tile.ptr<f32>, #[[C]]>
// Without matrix instructions (Vulkan) the accumulator takes the default
// layout, which the store also wants: no conversion at all.
// VK-LABEL: tile.func @matmul
// VK-NOT: tgpu.convert_layout
// VK: tile.dot {{.*}} -> tensor<64x64xf32, #[[ACC:layout[0-9]*]]>
// VK-NOT: tgpu.convert_layout
// VK: tile.store %{{.*}}, %{{.*}} : tensor<64x64x!tile.ptr<f32>, #[[ACC]]>
tile.func @matmul(%a: !tile.ptr<f16>, %b: !tile.ptr<f16>, %c: !tile.ptr<f32>, %lda: i32, %ldb: i32, %ldc: i32, %kTiles32: i32) {
  %kTiles = arith.index_cast %kTiles32 : i32 to index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : i32
  %m = tile.make_range 0 to 64 : tensor<64xi32>
  %n = tile.make_range 0 to 64 : tensor<64xi32>
  %k = tile.make_range 0 to 32 : tensor<32xi32>
  // A pointers: [64, 32], row-major with leading dimension lda.
  %am = tile.expand_dims %m, axis = 1 : tensor<64xi32> -> tensor<64x1xi32>
  %ldas = tile.splat %lda : i32 -> tensor<64x1xi32>
  %arow = arith.muli %am, %ldas : tensor<64x1xi32>
  %arowb = tile.broadcast %arow : tensor<64x1xi32> -> tensor<64x32xi32>
  %ak = tile.expand_dims %k, axis = 0 : tensor<32xi32> -> tensor<1x32xi32>
  %akb = tile.broadcast %ak : tensor<1x32xi32> -> tensor<64x32xi32>
  %aoff = arith.addi %arowb, %akb : tensor<64x32xi32>
  %abase = tile.splat %a : !tile.ptr<f16> -> tensor<64x32x!tile.ptr<f16>>
  %aptrs = tile.addptr %abase, %aoff : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
  // B pointers: [32, 64].
  %bk = tile.expand_dims %k, axis = 1 : tensor<32xi32> -> tensor<32x1xi32>
  %ldbs = tile.splat %ldb : i32 -> tensor<32x1xi32>
  %brow = arith.muli %bk, %ldbs : tensor<32x1xi32>
  %browb = tile.broadcast %brow : tensor<32x1xi32> -> tensor<32x64xi32>
  %bn = tile.expand_dims %n, axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
  %bnb = tile.broadcast %bn : tensor<1x64xi32> -> tensor<32x64xi32>
  %boff = arith.addi %browb, %bnb : tensor<32x64xi32>
  %bbase = tile.splat %b : !tile.ptr<f16> -> tensor<32x64x!tile.ptr<f16>>
  %bptrs = tile.addptr %bbase, %boff : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
  %acc0 = arith.constant dense<0.0> : tensor<64x64xf32>
  %bstep = arith.muli %ldb, %c32 : i32
  %astepv = tile.splat %c32 : i32 -> tensor<64x32xi32>
  %bstepv = tile.splat %bstep : i32 -> tensor<32x64xi32>
  %acc, %ap, %bp = scf.for %i = %c0 to %kTiles step %c1
      iter_args(%acc_i = %acc0, %ap_i = %aptrs, %bp_i = %bptrs)
      -> (tensor<64x64xf32>, tensor<64x32x!tile.ptr<f16>>, tensor<32x64x!tile.ptr<f16>>) {
    %at = tile.load %ap_i : tensor<64x32x!tile.ptr<f16>>
    %bt = tile.load %bp_i : tensor<32x64x!tile.ptr<f16>>
    %next = tile.dot %at, %bt, %acc_i : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
    %ap2 = tile.addptr %ap_i, %astepv : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
    %bp2 = tile.addptr %bp_i, %bstepv : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
    scf.yield %next, %ap2, %bp2 : tensor<64x64xf32>, tensor<64x32x!tile.ptr<f16>>, tensor<32x64x!tile.ptr<f16>>
  }
  %cm = tile.expand_dims %m, axis = 1 : tensor<64xi32> -> tensor<64x1xi32>
  %ldcs = tile.splat %ldc : i32 -> tensor<64x1xi32>
  %crow = arith.muli %cm, %ldcs : tensor<64x1xi32>
  %crowb = tile.broadcast %crow : tensor<64x1xi32> -> tensor<64x64xi32>
  %cn = tile.expand_dims %n, axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
  %cnb = tile.broadcast %cn : tensor<1x64xi32> -> tensor<64x64xi32>
  %coff = arith.addi %crowb, %cnb : tensor<64x64xi32>
  %cbase = tile.splat %c : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %cptrs = tile.addptr %cbase, %coff : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %cptrs, %acc : tensor<64x64x!tile.ptr<f32>>
  tile.return
}

// -----

// Two chained dots (attention's S = Q K^T, then O = P V): both keep their
// warps along M, so that whole rows of S stay within one warp for the
// softmax between them.
// SM80-DAG: #[[S:layout[0-9]*]] = #tgpu.layout<rank = 2, reg = {{\[}}[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = {{\[}}[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = {{\[}}[16, 0], [32, 0]]>
// SM80-DAG: #[[O:layout[0-9]*]] = #tgpu.layout<rank = 2, reg = {{\[}}[0, 1], [8, 0], [0, 8], [0, 16]], lane = {{\[}}[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = {{\[}}[16, 0], [32, 0]]>
// SM80-LABEL: tile.func @chained_dots
// SM80: tile.dot {{.*}} -> tensor<64x64xf32, #[[S]]>
// SM80: tile.dot {{.*}} -> tensor<64x32xf32, #[[O]]>
tile.func @chained_dots(%q: !tile.ptr<f16>, %o: !tile.ptr<f32>) {
  %qp = tile.splat %q : !tile.ptr<f16> -> tensor<64x32x!tile.ptr<f16>>
  %qt = tile.load %qp : tensor<64x32x!tile.ptr<f16>>
  %kp = tile.splat %q : !tile.ptr<f16> -> tensor<32x64x!tile.ptr<f16>>
  %kt = tile.load %kp : tensor<32x64x!tile.ptr<f16>>
  %zs = arith.constant dense<0.0> : tensor<64x64xf32>
  %s = tile.dot %qt, %kt, %zs : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
  %p = arith.truncf %s : tensor<64x64xf32> to tensor<64x64xf16>
  %vp = tile.splat %q : !tile.ptr<f16> -> tensor<64x32x!tile.ptr<f16>>
  %vt = tile.load %vp : tensor<64x32x!tile.ptr<f16>>
  %zo = arith.constant dense<0.0> : tensor<64x32xf32>
  %out = tile.dot %p, %vt, %zo : tensor<64x64xf16> * tensor<64x32xf16> -> tensor<64x32xf32>
  %op = tile.splat %o : !tile.ptr<f32> -> tensor<64x32x!tile.ptr<f32>>
  tile.store %op, %out : tensor<64x32x!tile.ptr<f32>>
  tile.return
}

// -----

// A batched dot repeats the mma layout of one batch in the highest register
// bit (one instruction-level dot per batch).
// SM80: #[[BMMA:layout[0-9]*]] = #tgpu.layout<rank = 3, reg = {{\[}}[0, 0, 1], [0, 8, 0], [0, 0, 8], [1, 0, 0]], lane = {{\[}}[0, 0, 2], [0, 0, 4], [0, 1, 0], [0, 2, 0], [0, 4, 0]], warp = {{\[}}[0, 0, 16], [0, 16, 0]]>
// SM80-LABEL: tile.func @batched
// SM80: tile.dot {{.*}} -> tensor<2x32x32xf32, #[[BMMA]]>
// VK-LABEL: tile.func @batched
tile.func @batched(%p: !tile.ptr<f32>, %a: !tile.ptr<f16>) {
  %ab = tile.splat %a : !tile.ptr<f16> -> tensor<2x32x16x!tile.ptr<f16>>
  %x = tile.load %ab : tensor<2x32x16x!tile.ptr<f16>>
  %bb = tile.splat %a : !tile.ptr<f16> -> tensor<2x16x32x!tile.ptr<f16>>
  %y = tile.load %bb : tensor<2x16x32x!tile.ptr<f16>>
  %acc = arith.constant dense<0.0> : tensor<2x32x32xf32>
  %d = tile.dot %x, %y, %acc : tensor<2x32x16xf16> * tensor<2x16x32xf16> -> tensor<2x32x32xf32>
  %pb = tile.splat %p : !tile.ptr<f32> -> tensor<2x32x32x!tile.ptr<f32>>
  tile.store %pb, %d : tensor<2x32x32x!tile.ptr<f32>>
  tile.return
}

// -----

// VK-DAG: #[[LOADED:layout[0-9]*]] = #tgpu.layout<rank = 2, reg = {{\[}}[0, 1], [0, 2], [4, 0], [8, 0], [16, 0]], lane = {{\[}}[0, 4], [0, 8], [0, 16], [0, 32], [1, 0]], warp = {{\[}}[2, 0]]>
// VK-DAG: #[[TRANSPOSED:layout[0-9]*]] = #tgpu.layout<rank = 2, reg = {{\[}}[1, 0], [2, 0], [0, 4], [0, 8], [0, 16]], lane = {{\[}}[4, 0], [8, 0], [16, 0], [32, 0], [0, 1]], warp = {{\[}}[0, 2]]>
// VK-DAG: #[[STORED:layout[0-9]*]] = #tgpu.layout<rank = 2, reg = {{\[}}[2, 0], [4, 0], [8, 0], [16, 0], [32, 0]], lane = {{\[}}[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], warp = {{\[}}[1, 0]]>
// VK-LABEL: tile.func @transpose
// VK: %[[X:.*]] = tile.load %{{.*}} : tensor<32x64x!tile.ptr<f32>, #[[LOADED]]>
// VK: %[[T:.*]] = tile.trans %[[X]], order = [1, 0] : tensor<32x64xf32, #[[LOADED]]> -> tensor<64x32xf32, #[[TRANSPOSED]]>
// VK: %[[TC:.*]] = tgpu.convert_layout %[[T]] : tensor<64x32xf32, #[[TRANSPOSED]]> -> tensor<64x32xf32, #[[STORED]]>
// VK: %[[TOFFS:.*]] = tile.trans %{{.*}}, order = [1, 0] : tensor<32x64xi32, #{{.*}}> -> tensor<64x32xi32, #[[STORED]]>
// VK-NOT: tgpu.convert_layout
// VK: tile.store %{{.*}}, %[[TC]] : tensor<64x32x!tile.ptr<f32>, #[[STORED]]>
// Transposes: a transposed load is stored row-major (a real transpose) and
// cheap offsets are transposed for free.
// SM80-LABEL: tile.func @transpose
tile.func @transpose(%in: !tile.ptr<f32>, %out: !tile.ptr<f32>) {
  %r = tile.make_range 0 to 32 : tensor<32xi32>
  %c = tile.make_range 0 to 64 : tensor<64xi32>
  %r2 = tile.expand_dims %r, axis = 1 : tensor<32xi32> -> tensor<32x1xi32>
  %c64 = arith.constant 64 : i32
  %s64 = tile.splat %c64 : i32 -> tensor<32x1xi32>
  %rs = arith.muli %r2, %s64 : tensor<32x1xi32>
  %rb = tile.broadcast %rs : tensor<32x1xi32> -> tensor<32x64xi32>
  %c2 = tile.expand_dims %c, axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
  %cb = tile.broadcast %c2 : tensor<1x64xi32> -> tensor<32x64xi32>
  %offs = arith.addi %rb, %cb : tensor<32x64xi32>
  %ib = tile.splat %in : !tile.ptr<f32> -> tensor<32x64x!tile.ptr<f32>>
  %ip = tile.addptr %ib, %offs : tensor<32x64x!tile.ptr<f32>>, tensor<32x64xi32>
  %x = tile.load %ip : tensor<32x64x!tile.ptr<f32>>
  %t = tile.trans %x, order = [1, 0] : tensor<32x64xf32> -> tensor<64x32xf32>
  %toffs = tile.trans %offs, order = [1, 0] : tensor<32x64xi32> -> tensor<64x32xi32>
  %ob = tile.splat %out : !tile.ptr<f32> -> tensor<64x32x!tile.ptr<f32>>
  %op = tile.addptr %ob, %toffs : tensor<64x32x!tile.ptr<f32>>, tensor<64x32xi32>
  tile.store %op, %t : tensor<64x32x!tile.ptr<f32>>
  tile.return
}

// -----

// VK-DAG: #[[FLAT:layout[0-9]*]] = #tgpu.layout<rank = 1, reg = {{\[}}[1], [2]], lane = {{\[}}[4], [8], [16], [32], [64]], warp = {{\[}}[128]]>
// VK-DAG: #[[ROWS:layout[0-9]*]] = #tgpu.layout<rank = 2, reg = {{\[}}[0, 1], [0, 2]], lane = {{\[}}[0, 4], [0, 8], [0, 16], [1, 0], [2, 0]], warp = {{\[}}[4, 0]]>
// VK-DAG: #[[SUMS:layout[0-9]*]] = #tgpu.layout<rank = 1, reg = [], lane = {{\[}}[0], [0], [0], [1], [2]], warp = {{\[}}[4]]>
// VK-LABEL: tile.func @reshape
// VK: %[[X:.*]] = tile.load %{{.*}} : tensor<256x!tile.ptr<f32>, #[[FLAT]]>
// VK-NOT: tgpu.convert_layout
// VK: %[[M:.*]] = tile.reshape %[[X]] : tensor<256xf32, #[[FLAT]]> -> tensor<8x32xf32, #[[ROWS]]>
// VK: %[[S:.*]] = tile.reduce %[[M]] axis = 1 : tensor<8x32xf32, #[[ROWS]]>
// VK: tgpu.convert_layout %[[S]] : tensor<8xf32, #[[SUMS]]> ->
// Reshapes move no data: row sums of a 1-D load seen as [8, 32].
// SM80-LABEL: tile.func @reshape
tile.func @reshape(%in: !tile.ptr<f32>, %out: !tile.ptr<f32>) {
  %r = tile.make_range 0 to 256 : tensor<256xi32>
  %ib = tile.splat %in : !tile.ptr<f32> -> tensor<256x!tile.ptr<f32>>
  %ip = tile.addptr %ib, %r : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  %x = tile.load %ip : tensor<256x!tile.ptr<f32>>
  %m = tile.reshape %x : tensor<256xf32> -> tensor<8x32xf32>
  %s = tile.reduce %m axis = 1 : tensor<8x32xf32> {
  ^bb0(%a: f32, %b: f32):
    %sum = arith.addf %a, %b : f32
    tile.yield %sum : f32
  }
  %o = tile.make_range 0 to 8 : tensor<8xi32>
  %ob = tile.splat %out : !tile.ptr<f32> -> tensor<8x!tile.ptr<f32>>
  %op = tile.addptr %ob, %o : tensor<8x!tile.ptr<f32>>, tensor<8xi32>
  tile.store %op, %s : tensor<8x!tile.ptr<f32>>
  tile.return
}

// -----

// VK-DAG: #[[HALF:layout[0-9]*]] = #tgpu.layout<rank = 1, reg = [], lane = {{\[}}[1], [2], [4], [8], [16]], warp = {{\[}}[32]]>
// VK-DAG: #[[PAIR:layout[0-9]*]] = #tgpu.layout<rank = 2, reg = {{\[}}[0, 1]], lane = {{\[}}[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = {{\[}}[32, 0]]>
// VK-DAG: #[[CAT:layout[0-9]*]] = #tgpu.layout<rank = 1, reg = {{\[}}[64]], lane = {{\[}}[1], [2], [4], [8], [16]], warp = {{\[}}[32]]>
// VK-LABEL: tile.func @join_split_cat
// VK-NOT: tgpu.convert_layout
// VK: %[[J:.*]] = tile.join %{{.*}}, %{{.*}} : tensor<64xf32, #[[HALF]]> -> tensor<64x2xf32, #[[PAIR]]>
// VK: %[[LO:.*]], %[[HI:.*]] = tile.split %[[J]] : tensor<64x2xf32, #[[PAIR]]> -> tensor<64xf32, #[[HALF]]>
// VK: %[[C:.*]] = tile.cat %[[LO]], %[[HI]], axis = 0 : tensor<64xf32, #[[HALF]]> -> tensor<128xf32, #[[CAT]]>
// VK-NOT: tgpu.convert_layout
// VK: tile.store %{{.*}}, %[[C]] : tensor<128x!tile.ptr<f32>, #[[CAT]]>
// 64 elements on 64 threads: one each. join puts the pair in registers;
// split takes it out again; cat stacks in registers, and the store writes
// that as it is (a warp's 32 consecutive floats per access).
// SM80-LABEL: tile.func @join_split_cat
tile.func @join_split_cat(%in: !tile.ptr<f32>, %out: !tile.ptr<f32>) {
  %r = tile.make_range 0 to 64 : tensor<64xi32>
  %ib = tile.splat %in : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %ip = tile.addptr %ib, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %x = tile.load %ip : tensor<64x!tile.ptr<f32>>
  %y = math.exp %x : tensor<64xf32>
  %j = tile.join %x, %y : tensor<64xf32> -> tensor<64x2xf32>
  %lo, %hi = tile.split %j : tensor<64x2xf32> -> tensor<64xf32>
  %c = tile.cat %lo, %hi, axis = 0 : tensor<64xf32> -> tensor<128xf32>
  %o = tile.make_range 0 to 128 : tensor<128xi32>
  %ob = tile.splat %out : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %op = tile.addptr %ob, %o : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  tile.store %op, %c : tensor<128x!tile.ptr<f32>>
  tile.return
}

// -----

// VK: #[[L:layout]] = #tgpu.layout<rank = 1, reg = {{\[}}[1]], lane = {{\[}}[2], [4], [8], [16], [32]], warp = {{\[}}[64]]>
// VK-LABEL: tile.func @branch
// VK: %[[V:.*]] = scf.if %{{.*}} -> (tensor<128xf32, #[[L]]>)
// VK: tile.load {{.*}} : tensor<128x!tile.ptr<f32>, #[[L]]>
// VK: arith.constant dense<0.000000e+00> : tensor<128xf32, #[[L]]>
// VK-NOT: tgpu.convert_layout
// VK: tile.store %{{.*}}, %[[V]] : tensor<128x!tile.ptr<f32>, #[[L]]>
// scf.if results take the layout of the branch that computes a fixed tile.
// SM80-LABEL: tile.func @branch
tile.func @branch(%in: !tile.ptr<f32>, %flag: i1) {
  %r = tile.make_range 0 to 128 : tensor<128xi32>
  %ib = tile.splat %in : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %ip = tile.addptr %ib, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %v = scf.if %flag -> tensor<128xf32> {
    %x = tile.load %ip : tensor<128x!tile.ptr<f32>>
    scf.yield %x : tensor<128xf32>
  } else {
    %z = arith.constant dense<0.0> : tensor<128xf32>
    scf.yield %z : tensor<128xf32>
  }
  tile.store %ip, %v : tensor<128x!tile.ptr<f32>>
  tile.return
}

// -----

// scf.while: the carried tile keeps the layout it enters with.
// VK: #[[L:layout]] = #tgpu.layout<rank = 1, reg = {{\[}}[1]], lane = {{\[}}[2], [4], [8], [16], [32]], warp = {{\[}}[64]]>
// VK-LABEL: tile.func @while_loop
// VK: scf.while ({{.*}}) : (i32, tensor<128xf32, #[[L]]>) -> (i32, tensor<128xf32, #[[L]]>)
// VK: scf.condition(%{{.*}}) %{{.*}}, %{{.*}} : i32, tensor<128xf32, #[[L]]>
// VK: math.exp %{{.*}} : tensor<128xf32, #[[L]]>
// VK-NOT: tgpu.convert_layout
// VK: tile.store
// SM80-LABEL: tile.func @while_loop
tile.func @while_loop(%p: !tile.ptr<f32>, %n: i32) {
  %r = tile.make_range 0 to 128 : tensor<128xi32>
  %b = tile.splat %p : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %ptrs = tile.addptr %b, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %x0 = tile.load %ptrs : tensor<128x!tile.ptr<f32>>
  %c0 = arith.constant 0 : i32
  %res:2 = scf.while (%i = %c0, %x = %x0) : (i32, tensor<128xf32>) -> (i32, tensor<128xf32>) {
    %cond = arith.cmpi slt, %i, %n : i32
    scf.condition(%cond) %i, %x : i32, tensor<128xf32>
  } do {
  ^bb0(%j: i32, %y: tensor<128xf32>):
    %y2 = math.exp %y : tensor<128xf32>
    %c1 = arith.constant 1 : i32
    %j2 = arith.addi %j, %c1 : i32
    scf.yield %j2, %y2 : i32, tensor<128xf32>
  }
  tile.store %ptrs, %res#1 : tensor<128x!tile.ptr<f32>>
  tile.return
}

// -----

// Tensor descriptors carry the layout of their block (8 halves per thread).
// VK: #[[BLOCK:layout]] = #tgpu.layout<rank = 2, reg = {{\[}}[0, 1], [0, 2], [0, 4], [16, 0], [32, 0]], lane = {{\[}}[0, 8], [0, 16], [1, 0], [2, 0], [4, 0]], warp = {{\[}}[8, 0]]>
// VK-LABEL: tile.func @descriptor
// VK: %[[D:.*]] = tile.make_tensor_descriptor {{.*}} -> !tile.tensordesc<tensor<64x32xf16, #[[BLOCK]]>>
// VK: %[[BLK:.*]] = tile.descriptor_load %[[D]][{{.*}}] : !tile.tensordesc<tensor<64x32xf16, #[[BLOCK]]>>
// VK: %[[E:.*]] = math.exp %[[BLK]] : tensor<64x32xf16, #[[BLOCK]]>
// VK: tile.descriptor_store %[[D]][{{.*}}], %[[E]] : !tile.tensordesc<tensor<64x32xf16, #[[BLOCK]]>>
// SM80-LABEL: tile.func @descriptor
tile.func @descriptor(%p: !tile.ptr<f16>, %m: i32, %k: i32, %ld: i64) {
  %c1 = arith.constant 1 : i64
  %c0 = arith.constant 0 : i32
  %d = tile.make_tensor_descriptor %p, [%m, %k], [%ld, %c1] : !tile.ptr<f16> -> !tile.tensordesc<tensor<64x32xf16>>
  %blk = tile.descriptor_load %d[%c0, %c0] : !tile.tensordesc<tensor<64x32xf16>>
  %e = math.exp %blk : tensor<64x32xf16>
  tile.descriptor_store %d[%c0, %c0], %e : !tile.tensordesc<tensor<64x32xf16>>
  tile.return
}

// -----

// Two rows cannot take the 4 warps: all of them go along the columns, each
// thread holding its 4 columns of both rows, rather than 2 warps a row, whose
// row sums would cross warps all the same. Weights loaded as [512] and only
// broadcast over the rows are read in the rows' layout with the row bit
// zeroed (each thread reads the 4 weights of its columns once for both
// rows), not sent through shared memory.
// The x load keeps its anchor layout; the one conversion left is the row
// sums' register renaming.
// SM80-DAG: #[[ROWS:layout[0-9]*]] = #tgpu.layout<rank = 2, reg = {{\[}}[0, 1], [0, 2], [1, 0]], lane = {{\[}}[0, 4], [0, 8], [0, 16], [0, 32], [0, 64]], warp = {{\[}}[0, 128], [0, 256]]>
// SM80-DAG: #[[WEIGHTS:layout[0-9]*]] = #tgpu.layout<rank = 1, reg = {{\[}}[1], [2], [0]], lane = {{\[}}[4], [8], [16], [32], [64]], warp = {{\[}}[128], [256]]>
// SM80-LABEL: tile.func @broadcast_weights
// SM80: tile.load %{{.*}} : tensor<2x512x!tile.ptr<f32>, #[[ROWS]]>
// SM80: tgpu.convert_layout %{{.*}} : tensor<2x1xf32, #{{.*}}> -> tensor<2x1xf32, #{{.*}}>
// SM80-NOT: tgpu.convert_layout
// SM80: tile.load %{{.*}} : tensor<512x!tile.ptr<f32>, #[[WEIGHTS]]>
// SM80-NOT: tgpu.convert_layout
// SM80: tile.return
tile.func @broadcast_weights(%x: !tile.ptr<f32>, %w: !tile.ptr<f32>, %y: !tile.ptr<f32>) {
  %c512 = arith.constant 512 : i32
  %rows = tile.make_range 0 to 2 : tensor<2xi32>
  %cols = tile.make_range 0 to 512 : tensor<512xi32>
  %re = tile.expand_dims %rows, axis = 1 : tensor<2xi32> -> tensor<2x1xi32>
  %stride = tile.splat %c512 : i32 -> tensor<2x1xi32>
  %rs = arith.muli %re, %stride : tensor<2x1xi32>
  %rb = tile.broadcast %rs : tensor<2x1xi32> -> tensor<2x512xi32>
  %ce = tile.expand_dims %cols, axis = 0 : tensor<512xi32> -> tensor<1x512xi32>
  %cb = tile.broadcast %ce : tensor<1x512xi32> -> tensor<2x512xi32>
  %off = arith.addi %rb, %cb : tensor<2x512xi32>
  %xb = tile.splat %x : !tile.ptr<f32> -> tensor<2x512x!tile.ptr<f32>>
  %xp = tile.addptr %xb, %off : tensor<2x512x!tile.ptr<f32>>, tensor<2x512xi32>
  %xv = tile.load %xp : tensor<2x512x!tile.ptr<f32>>
  %sum = tile.reduce %xv axis = 1 : tensor<2x512xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tile.yield %s : f32
  }
  %se = tile.expand_dims %sum, axis = 1 : tensor<2xf32> -> tensor<2x1xf32>
  %sb = tile.broadcast %se : tensor<2x1xf32> -> tensor<2x512xf32>
  %centered = arith.subf %xv, %sb : tensor<2x512xf32>
  %wb = tile.splat %w : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %wp = tile.addptr %wb, %cols : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  %wv = tile.load %wp : tensor<512x!tile.ptr<f32>>
  %we = tile.expand_dims %wv, axis = 0 : tensor<512xf32> -> tensor<1x512xf32>
  %wbc = tile.broadcast %we : tensor<1x512xf32> -> tensor<2x512xf32>
  %out = arith.mulf %centered, %wbc : tensor<2x512xf32>
  %yb = tile.splat %y : !tile.ptr<f32> -> tensor<2x512x!tile.ptr<f32>>
  %yp = tile.addptr %yb, %off : tensor<2x512x!tile.ptr<f32>>, tensor<2x512xi32>
  tile.store %yp, %out : tensor<2x512x!tile.ptr<f32>>
  tile.return
}

// -----

// A persistent loop's row offsets: carried around the loop, moved to the
// next tile's rows under `if`, added to the K offsets for a load. Nothing
// places the carried tile; it takes the layout the load's pointers convert
// it to (their rows' slice), so that no conversion runs in the loop. A
// carried accumulator keeps the layout its body yields.
tile.func @carried_offsets(%a: !tile.ptr<f32>, %c: !tile.ptr<f32>, %n: i32, %ld: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %rows = tile.make_range 0 to 64 : tensor<64xi32>
  %k = tile.make_range 0 to 32 : tensor<32xi32>
  %zero = arith.constant dense<0.0> : tensor<64x32xf32>
  %offs, %acc = scf.for %i = %c0 to %n step %c1 iter_args(%o = %rows, %s = %zero)
      -> (tensor<64xi32>, tensor<64x32xf32>) : i32 {
    %first = arith.cmpi eq, %i, %c0 : i32
    %moved = scf.if %first -> (tensor<64xi32>) {
      %start = arith.muli %i, %c64 : i32
      %ss = tile.splat %start : i32 -> tensor<64xi32>
      %next = arith.addi %ss, %rows : tensor<64xi32>
      scf.yield %next : tensor<64xi32>
    } else {
      scf.yield %o : tensor<64xi32>
    }
    %re = tile.expand_dims %moved, axis = 1 : tensor<64xi32> -> tensor<64x1xi32>
    %lds = tile.splat %ld : i32 -> tensor<64x1xi32>
    %ro = arith.muli %re, %lds : tensor<64x1xi32>
    %rb = tile.broadcast %ro : tensor<64x1xi32> -> tensor<64x32xi32>
    %ke = tile.expand_dims %k, axis = 0 : tensor<32xi32> -> tensor<1x32xi32>
    %kb = tile.broadcast %ke : tensor<1x32xi32> -> tensor<64x32xi32>
    %off = arith.addi %rb, %kb : tensor<64x32xi32>
    %ab = tile.splat %a : !tile.ptr<f32> -> tensor<64x32x!tile.ptr<f32>>
    %ap = tile.addptr %ab, %off : tensor<64x32x!tile.ptr<f32>>, tensor<64x32xi32>
    %x = tile.load %ap : tensor<64x32x!tile.ptr<f32>>
    %sum = arith.addf %s, %x : tensor<64x32xf32>
    scf.yield %moved, %sum : tensor<64xi32>, tensor<64x32xf32>
  }
  %re = tile.expand_dims %rows, axis = 1 : tensor<64xi32> -> tensor<64x1xi32>
  %c32 = arith.constant dense<32> : tensor<64x1xi32>
  %ro = arith.muli %re, %c32 : tensor<64x1xi32>
  %rb = tile.broadcast %ro : tensor<64x1xi32> -> tensor<64x32xi32>
  %ke = tile.expand_dims %k, axis = 0 : tensor<32xi32> -> tensor<1x32xi32>
  %kb = tile.broadcast %ke : tensor<1x32xi32> -> tensor<64x32xi32>
  %off = arith.addi %rb, %kb : tensor<64x32xi32>
  %cb = tile.splat %c : !tile.ptr<f32> -> tensor<64x32x!tile.ptr<f32>>
  %cp = tile.addptr %cb, %off : tensor<64x32x!tile.ptr<f32>>, tensor<64x32xi32>
  tile.store %cp, %acc : tensor<64x32x!tile.ptr<f32>>
  tile.return
}
// SM80-LABEL: tile.func @carried_offsets
// SM80: scf.for
// SM80-NOT: tgpu.convert_layout
// SM80: tile.load
// SM80-NOT: tgpu.convert_layout
// SM80: scf.yield
// SM80-NEXT: }

// -----

// A narrowing store keeps the loaded layout where each thread's run is a
// 32-bit word or more: 4 f32 a thread loaded, stored as 4 halves and as 4
// fp8 (their own widest stores would take 8 and 16), no conversion. A
// widening store converts: 8 halves a thread loaded are more than f32's
// 128-bit stores take.
// SM80-LABEL: tile.func @casts
// SM80: tile.load %{{.*}} : tensor<1024x!tile.ptr<f32>, #[[FOURF32:layout[0-9]*]]>
// SM80-NOT: tgpu.convert_layout
// SM80: tile.store %{{.*}}, %{{.*}} : tensor<1024x!tile.ptr<f16>, #[[FOURF32]]>
// SM80-NOT: tgpu.convert_layout
// SM80: tile.store %{{.*}}, %{{.*}} : tensor<1024x!tile.ptr<f8E4M3FN>, #[[FOURF32]]>
// SM80: tile.load %{{.*}} : tensor<1024x!tile.ptr<f16>, #[[EIGHTF16:layout[0-9]*]]>
// SM80: tgpu.convert_layout %{{.*}} : tensor<1024xf32, #[[EIGHTF16]]> -> tensor<1024xf32, #[[FOURF32]]>
// SM80: tile.store %{{.*}}, %{{.*}} : tensor<1024x!tile.ptr<f32>, #[[FOURF32]]>
tile.func @casts(%x: !tile.ptr<f32> {tt.divisibility = 16 : i32},
                 %h: !tile.ptr<f16> {tt.divisibility = 16 : i32},
                 %q: !tile.ptr<f8E4M3FN> {tt.divisibility = 16 : i32},
                 %w: !tile.ptr<f32> {tt.divisibility = 16 : i32}) {
  %r = tile.make_range 0 to 1024 : tensor<1024xi32>
  %xb = tile.splat %x : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %xp = tile.addptr %xb, %r : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %xv = tile.load %xp : tensor<1024x!tile.ptr<f32>>
  %hv = arith.truncf %xv : tensor<1024xf32> to tensor<1024xf16>
  %hb = tile.splat %h : !tile.ptr<f16> -> tensor<1024x!tile.ptr<f16>>
  %hp = tile.addptr %hb, %r : tensor<1024x!tile.ptr<f16>>, tensor<1024xi32>
  tile.store %hp, %hv : tensor<1024x!tile.ptr<f16>>
  %qv = arith.truncf %xv : tensor<1024xf32> to tensor<1024xf8E4M3FN>
  %qb = tile.splat %q : !tile.ptr<f8E4M3FN> -> tensor<1024x!tile.ptr<f8E4M3FN>>
  %qp = tile.addptr %qb, %r : tensor<1024x!tile.ptr<f8E4M3FN>>, tensor<1024xi32>
  tile.store %qp, %qv : tensor<1024x!tile.ptr<f8E4M3FN>>
  %yv = tile.load %hp : tensor<1024x!tile.ptr<f16>>
  %wv = arith.extf %yv : tensor<1024xf16> to tensor<1024xf32>
  %wb = tile.splat %w : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %wp = tile.addptr %wb, %r : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  tile.store %wp, %wv : tensor<1024x!tile.ptr<f32>>
  tile.return
}

// -----

// A row of 256 halves on 4 warps of 32: 2 a thread, every thread its own
// (128-bit vectors would cover it with one warp and leave three holding
// copies that load it again).
// SM80: #[[ROW:layout]] = #tgpu.layout<rank = 1, reg = {{\[}}[1]], lane = {{\[}}[2], [4], [8], [16], [32]], warp = {{\[}}[64], [128]]>
// SM80-LABEL: tile.func @small_row
// SM80: tile.load %{{.*}} : tensor<256x!tile.ptr<f16>, #[[ROW]]>
// SM80-NOT: tgpu.convert_layout
// VK-LABEL: tile.func @small_row
// CDNA-LABEL: tile.func @small_row
tile.func @small_row(%x: !tile.ptr<f16> {tile.divisibility = 16 : i32}) {
  %r = tile.make_range 0 to 256 : tensor<256xi32>
  %xb = tile.splat %x : !tile.ptr<f16> -> tensor<256x!tile.ptr<f16>>
  %xp = tile.addptr %xb, %r : tensor<256x!tile.ptr<f16>>, tensor<256xi32>
  %v = tile.load %xp : tensor<256x!tile.ptr<f16>>
  %e = math.exp %v : tensor<256xf16>
  tile.store %xp, %e : tensor<256x!tile.ptr<f16>>
  tile.return
}
