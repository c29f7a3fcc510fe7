// RUN: tessera-opt %s -split-input-file -tile-cpu-prepare-kernels -tile-cpu-lower-tiles | FileCheck %s

// A contiguous vector add: flat vectors, one masked load per operand and one
// masked store, no gathers.
// CHECK-LABEL: func.func @add(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i32
// CHECK-NOT: masked.gather
// CHECK: llvm.intr.masked.load %{{.*}}, %{{.*}}, %{{.*}} {alignment = 4 : i32} : (!llvm.ptr, vector<128xi1>, vector<128xf32>) -> vector<128xf32>
// CHECK: llvm.intr.masked.load
// CHECK: arith.addf %{{.*}}, %{{.*}} : vector<128xf32>
// CHECK: llvm.intr.masked.store %{{.*}}, %{{.*}}, %{{.*}} {alignment = 4 : i32} : vector<128xf32>, vector<128xi1> into !llvm.ptr
tile.func @add(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %out: !tile.ptr<f32>, %n: i32) {
  %pid = tile.program_id x
  %block = arith.constant 128 : i32
  %start = arith.muli %pid, %block : i32
  %range = tile.make_range 0 to 128 : tensor<128xi32>
  %base = tile.splat %start : i32 -> tensor<128xi32>
  %offs = arith.addi %base, %range : tensor<128xi32>
  %bound = tile.splat %n : i32 -> tensor<128xi32>
  %mask = arith.cmpi slt, %offs, %bound : tensor<128xi32>
  %xb = tile.splat %x : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %xp = tile.addptr %xb, %offs : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %yb = tile.splat %y : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %yp = tile.addptr %yb, %offs : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %ob = tile.splat %out : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %op = tile.addptr %ob, %offs : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %xv = tile.load %xp, %mask : tensor<128x!tile.ptr<f32>>
  %yv = tile.load %yp, %mask : tensor<128x!tile.ptr<f32>>
  %sum = arith.addf %xv, %yv : tensor<128xf32>
  tile.store %op, %sum, %mask : tensor<128x!tile.ptr<f32>>
  tile.return
}

// -----

// Loaded indices make a gather: addresses are i64 vectors, read with
// llvm.intr.masked.gather.
// CHECK-LABEL: func.func @gather
// CHECK: arith.extsi %{{.*}} : vector<16xi32> to vector<16xi64>
// CHECK: arith.muli %{{.*}}, %{{.*}} : vector<16xi64>
// CHECK: llvm.inttoptr %{{.*}} : vector<16xi64> to vector<16x!llvm.ptr>
// CHECK: llvm.intr.masked.gather %{{.*}}, %{{.*}}, %{{.*}} {alignment = 4 : i32} : (vector<16x!llvm.ptr>, vector<16xi1>, vector<16xf32>) -> vector<16xf32>
tile.func @gather(%src: !tile.ptr<f32>, %idx: !tile.ptr<i32>, %dst: !tile.ptr<f32>) {
  %r = tile.make_range 0 to 16 : tensor<16xi32>
  %ib = tile.splat %idx : !tile.ptr<i32> -> tensor<16x!tile.ptr<i32>>
  %ip = tile.addptr %ib, %r : tensor<16x!tile.ptr<i32>>, tensor<16xi32>
  %i = tile.load %ip : tensor<16x!tile.ptr<i32>>
  %sb = tile.splat %src : !tile.ptr<f32> -> tensor<16x!tile.ptr<f32>>
  %sp = tile.addptr %sb, %i : tensor<16x!tile.ptr<f32>>, tensor<16xi32>
  %v = tile.load %sp : tensor<16x!tile.ptr<f32>>
  %db = tile.splat %dst : !tile.ptr<f32> -> tensor<16x!tile.ptr<f32>>
  %dp = tile.addptr %db, %r : tensor<16x!tile.ptr<f32>>, tensor<16xi32>
  tile.store %dp, %v : tensor<16x!tile.ptr<f32>>
  tile.return
}

// -----

// 2-D tiles are flat row-major vectors: a reduce
// along axis 1 halves the axis with shuffles and applies the region on
// vectors.
// CHECK-LABEL: func.func @k(
// CHECK: llvm.shufflevector %{{.*}}, %{{.*}} [0, 1, 4, 5] : vector<8xf32>
// CHECK: llvm.shufflevector %{{.*}}, %{{.*}} [2, 3, 6, 7] : vector<8xf32>
// CHECK: arith.maximumf %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK: llvm.shufflevector %{{.*}}, %{{.*}} [0, 2] : vector<4xf32>
// CHECK: llvm.shufflevector %{{.*}}, %{{.*}} [1, 3] : vector<4xf32>
// CHECK: arith.maximumf %{{.*}}, %{{.*}} : vector<2xf32>
tile.func private @rows(%x: tensor<2x1xf32>) -> tensor<2xf32> {
  %b = tile.broadcast %x : tensor<2x1xf32> -> tensor<2x4xf32>
  %m = tile.reduce %b axis = 1 : tensor<2x4xf32> {
  ^bb0(%a: f32, %c: f32):
    %r = arith.maximumf %a, %c : f32
    tile.yield %r : f32
  }
  tile.return %m : tensor<2xf32>
}
tile.func @k(%p: !tile.ptr<f32>) {
  %x = arith.constant dense<1.0> : tensor<2x1xf32>
  %m = tile.call @rows(%x) : (tensor<2x1xf32>) -> tensor<2xf32>
  %r = tile.make_range 0 to 2 : tensor<2xi32>
  %pb = tile.splat %p : !tile.ptr<f32> -> tensor<2x!tile.ptr<f32>>
  %pp = tile.addptr %pb, %r : tensor<2x!tile.ptr<f32>>, tensor<2xi32>
  tile.store %pp, %m : tensor<2x!tile.ptr<f32>>
  tile.return
}

// -----

// dot is the register-blocked micro-kernel: stack buffers, an FMA k-loop on
// rows of NR lanes.
// CHECK-LABEL: func.func @dot
// CHECK: llvm.alloca %{{.*}} x f32 {alignment = 64 : i64}
// CHECK: scf.for
// CHECK: scf.for {{.*}} iter_args
// CHECK: vector.broadcast %{{.*}} : f32 to vector<16xf32>
// CHECK: math.fma %{{.*}}, %{{.*}}, %{{.*}} : vector<16xf32>
tile.func @dot(%p: !tile.ptr<f32>) {
  %a = arith.constant dense<1.0> : tensor<16x8xf32>
  %b = arith.constant dense<2.0> : tensor<8x16xf32>
  %c = arith.constant dense<0.0> : tensor<16x16xf32>
  %d = tile.dot %a, %b, %c : tensor<16x8xf32> * tensor<8x16xf32> -> tensor<16x16xf32>
  %s = tile.reduce %d axis = 0 : tensor<16x16xf32> {
  ^bb0(%x: f32, %y: f32):
    %r = arith.addf %x, %y : f32
    tile.yield %r : f32
  }
  %t = tile.reduce %s axis = 0 : tensor<16xf32> {
  ^bb0(%x: f32, %y: f32):
    %r = arith.addf %x, %y : f32
    tile.yield %r : f32
  }
  tile.store %p, %t : !tile.ptr<f32>
  tile.return
}

// -----

// A descriptor whose innermost stride is the constant 1 moves each block row
// as one masked vector; one whose innermost stride is only known at run time
// branches on it: rows when it is 1, a loop over the block's strided lanes
// when it is not.
// CHECK-LABEL: func.func @descriptor_strides
// CHECK-NOT: scf.if
// CHECK: llvm.intr.masked.load %{{.*}} : (!llvm.ptr, vector<8xi1>, vector<8xf32>) -> vector<8xf32>
// CHECK: %[[UNIT:.*]] = arith.cmpi eq, %{{.*}}, %{{.*}} : i64
// CHECK: scf.if %[[UNIT]] {
// CHECK:   llvm.intr.masked.store %{{.*}} : vector<8xf32>, vector<8xi1> into !llvm.ptr
// CHECK: } else {
// CHECK-NOT: llvm.intr.masked.scatter
// CHECK:   scf.for
// CHECK:     scf.if
// CHECK:       llvm.store %{{.*}} : f32, !llvm.ptr
// CHECK: }
tile.func @descriptor_strides(%src: !tile.ptr<f32>, %dst: !tile.ptr<f32>, %m: i32, %n: i32,
                              %ld: i64, %step: i64) {
  %c0 = arith.constant 0 : i32
  %one = arith.constant 1 : i64
  %din = tile.make_tensor_descriptor %src, [%m, %n], [%ld, %one]
           : !tile.ptr<f32> -> !tile.tensordesc<tensor<2x8xf32>>
  %dout = tile.make_tensor_descriptor %dst, [%m, %n], [%ld, %step]
            : !tile.ptr<f32> -> !tile.tensordesc<tensor<2x8xf32>>
  %block = tile.descriptor_load %din[%c0, %c0] : !tile.tensordesc<tensor<2x8xf32>>
  tile.descriptor_store %dout[%c0, %c0], %block : !tile.tensordesc<tensor<2x8xf32>>
  tile.return
}

// -----

// fp8 tiles are byte vectors: loaded and stored as i8, their bits selected
// and reduced (the tile passes before this one left only such moves and
// integer arithmetic; an fp8 constant becomes its bits, 0x38 for 1.0 in e4m3).
// CHECK-LABEL: func.func @float8_bytes
// CHECK: llvm.intr.masked.load %{{.*}} : (!llvm.ptr, vector<16xi1>, vector<16xi8>) -> vector<16xi8>
// CHECK: arith.constant dense<56> : vector<16xi8>
// CHECK: arith.select %{{.*}} : vector<16xi1>, vector<16xi8>
// CHECK: arith.maxsi %{{.*}} : vector<8xi8>
// CHECK: llvm.intr.masked.store %{{.*}} : vector<16xi8>, vector<16xi1> into !llvm.ptr
// CHECK-NOT: f8E4M3FN
tile.func @float8_bytes(%p: !tile.ptr<f8E4M3FN>, %out: !tile.ptr<f8E4M3FN>, %n: i32) {
  %r = tile.make_range 0 to 16 : tensor<16xi32>
  %nb = tile.splat %n : i32 -> tensor<16xi32>
  %mask = arith.cmpi slt, %r, %nb : tensor<16xi32>
  %pb = tile.splat %p : !tile.ptr<f8E4M3FN> -> tensor<16x!tile.ptr<f8E4M3FN>>
  %pp = tile.addptr %pb, %r : tensor<16x!tile.ptr<f8E4M3FN>>, tensor<16xi32>
  %x = tile.load %pp, %mask : tensor<16x!tile.ptr<f8E4M3FN>>
  %one = arith.constant dense<1.0> : tensor<16xf8E4M3FN>
  %picked = arith.select %mask, %x, %one : tensor<16xi1>, tensor<16xf8E4M3FN>
  %largest = "tile.reduce"(%picked) <{axis = 0 : i32}> ({
  ^bb0(%a: f8E4M3FN, %b: f8E4M3FN):
    %ai = arith.bitcast %a : f8E4M3FN to i8
    %bi = arith.bitcast %b : f8E4M3FN to i8
    %m = arith.maxsi %ai, %bi : i8
    %mf = arith.bitcast %m : i8 to f8E4M3FN
    tile.yield %mf : f8E4M3FN
  }) : (tensor<16xf8E4M3FN>) -> f8E4M3FN
  %ob = tile.splat %out : !tile.ptr<f8E4M3FN> -> tensor<16x!tile.ptr<f8E4M3FN>>
  %op = tile.addptr %ob, %r : tensor<16x!tile.ptr<f8E4M3FN>>, tensor<16xi32>
  tile.store %op, %picked, %mask : tensor<16x!tile.ptr<f8E4M3FN>>
  %first = tile.addptr %out, %n : !tile.ptr<f8E4M3FN>, i32
  tile.store %first, %largest : !tile.ptr<f8E4M3FN>
  tile.return
}

// -----

// bf16 tiles are i16 vectors (tile-cpu-expand-bf16 left only moves): loaded,
// selected and stored as i16, a constant as its bits (0x3F80 for 1.0), so
// that LLVM, which legalizes bfloat vectors lane by lane, never sees them.
// CHECK-LABEL: func.func @bf16_lanes
// CHECK: llvm.intr.masked.load %{{.*}} : (!llvm.ptr, vector<16xi1>, vector<16xi16>) -> vector<16xi16>
// CHECK: arith.constant dense<16256> : vector<16xi16>
// CHECK: arith.select %{{.*}} : vector<16xi1>, vector<16xi16>
// CHECK: llvm.intr.masked.store %{{.*}} : vector<16xi16>, vector<16xi1> into !llvm.ptr
// CHECK-NOT: bf16
tile.func @bf16_lanes(%p: !tile.ptr<bf16>, %out: !tile.ptr<bf16>, %n: i32) {
  %r = tile.make_range 0 to 16 : tensor<16xi32>
  %nb = tile.splat %n : i32 -> tensor<16xi32>
  %mask = arith.cmpi slt, %r, %nb : tensor<16xi32>
  %pb = tile.splat %p : !tile.ptr<bf16> -> tensor<16x!tile.ptr<bf16>>
  %pp = tile.addptr %pb, %r : tensor<16x!tile.ptr<bf16>>, tensor<16xi32>
  %x = tile.load %pp, %mask : tensor<16x!tile.ptr<bf16>>
  %one = arith.constant dense<1.0> : tensor<16xbf16>
  %picked = arith.select %mask, %x, %one : tensor<16xi1>, tensor<16xbf16>
  %ob = tile.splat %out : !tile.ptr<bf16> -> tensor<16x!tile.ptr<bf16>>
  %op = tile.addptr %ob, %r : tensor<16x!tile.ptr<bf16>>, tensor<16xi32>
  tile.store %op, %picked, %mask : tensor<16x!tile.ptr<bf16>>
  tile.return
}

// -----

// A float atomic of bf16 is a compare-and-swap loop on the lane's bits that
// adds in f32 and rounds back with integer arithmetic (no `bfloat` reaches
// LLVM); an exchange moves the bits.
// CHECK-LABEL: func.func @bf16_atomics
// CHECK: %[[FIRST:.*]] = llvm.load %[[PTR:.*]] atomic monotonic {alignment = 2 : i64} : !llvm.ptr -> i16
// CHECK: scf.while (%[[EXPECTED:.*]] = %[[FIRST]]) : (i16) -> i16
// CHECK: %[[SUM:.*]] = arith.addf %{{.*}}, %{{.*}} : f32
// CHECK: %[[BITS:.*]] = arith.bitcast %[[SUM]] : f32 to i32
// CHECK: %[[NEW:.*]] = arith.trunci %{{.*}} : i32 to i16
// CHECK: %[[PAIR:.*]] = llvm.cmpxchg %[[PTR]], %[[EXPECTED]], %[[NEW]] acq_rel acquire
// CHECK: %[[SEEN:.*]] = llvm.extractvalue %[[PAIR]][0]
// CHECK: scf.condition(%{{.*}}) %[[SEEN]] : i16
// CHECK-NOT: bf16
// CHECK: llvm.atomicrmw xchg %{{.*}}, %{{.*}} acq_rel : !llvm.ptr, i16
tile.func @bf16_atomics(%p: !tile.ptr<bf16>, %s: bf16) {
  %v = tile.splat %s : bf16 -> tensor<8xbf16>
  %r = tile.make_range 0 to 8 : tensor<8xi32>
  %pb = tile.splat %p : !tile.ptr<bf16> -> tensor<8x!tile.ptr<bf16>>
  %pp = tile.addptr %pb, %r : tensor<8x!tile.ptr<bf16>>, tensor<8xi32>
  %old = tile.atomic_rmw fadd, acq_rel, gpu, %pp, %v : tensor<8x!tile.ptr<bf16>>
  %swapped = tile.atomic_rmw xchg, acq_rel, gpu, %pp, %old : tensor<8x!tile.ptr<bf16>>
  tile.return
}

// -----

// gather: the source goes to a stack buffer; each lane reads the element at
// its slice's first element (a constant) plus its index, wrapped into the
// axis (& 3 for an extent of 4), times the axis's stride (4 for axis 0).
// CHECK-LABEL: func.func @gather_rows
// CHECK: %[[SRC:.*]] = llvm.alloca %{{.*}} x f32 {alignment = 64 : i64}
// CHECK: llvm.store %{{.*}}, %[[SRC]] {alignment = 4 : i64} : vector<16xf32>, !llvm.ptr
// CHECK: %[[MAXI:.*]] = arith.constant dense<3> : vector<8xi32>
// CHECK: %[[WRAPPED:.*]] = arith.andi %{{.*}}, %[[MAXI]] : vector<8xi32>
// CHECK: %[[STARTS:.*]] = arith.constant dense<[0, 1, 2, 3, 0, 1, 2, 3]> : vector<8xi32>
// CHECK: %[[STRIDE:.*]] = arith.constant dense<4> : vector<8xi32>
// CHECK: %[[SCALED:.*]] = arith.muli %[[WRAPPED]], %[[STRIDE]]
// CHECK: %[[ELEMENTS:.*]] = arith.addi %[[SCALED]], %[[STARTS]]
// CHECK: llvm.store %[[ELEMENTS]], %{{.*}} {alignment = 4 : i64} : vector<8xi32>, !llvm.ptr
// CHECK: scf.for
// CHECK: llvm.getelementptr %[[SRC]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> vector<8xf32>
tile.func @gather_rows(%p: !tile.ptr<f32>, %q: !tile.ptr<i32>) {
  %r16 = tile.make_range 0 to 16 : tensor<16xi32>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<16x!tile.ptr<f32>>
  %pps = tile.addptr %ps, %r16 : tensor<16x!tile.ptr<f32>>, tensor<16xi32>
  %flatsrc = tile.load %pps : tensor<16x!tile.ptr<f32>>
  %src = tile.reshape %flatsrc : tensor<16xf32> -> tensor<4x4xf32>
  %r = tile.make_range 0 to 8 : tensor<8xi32>
  %qb = tile.splat %q : !tile.ptr<i32> -> tensor<8x!tile.ptr<i32>>
  %qp = tile.addptr %qb, %r : tensor<8x!tile.ptr<i32>>, tensor<8xi32>
  %flatidx = tile.load %qp : tensor<8x!tile.ptr<i32>>
  %idx = tile.reshape %flatidx : tensor<8xi32> -> tensor<2x4xi32>
  %g = tile.gather %src[%idx] axis = 0 : tensor<4x4xf32>, tensor<2x4xi32> -> tensor<2x4xf32>
  %pb = tile.splat %p : !tile.ptr<f32> -> tensor<8x!tile.ptr<f32>>
  %pp = tile.addptr %pb, %r : tensor<8x!tile.ptr<f32>>, tensor<8xi32>
  %flat = tile.reshape %g : tensor<2x4xf32> -> tensor<8xf32>
  tile.store %pp, %flat : tensor<8x!tile.ptr<f32>>
  tile.return
}

// -----

// The loop reads each lane's element index from a buffer and copies the
// element to the result's buffer (no mask, no addresses); bf16 moves as i16.
// CHECK-LABEL: func.func @gather_loop
// CHECK: %[[SRC:.*]] = llvm.alloca %{{.*}} x i16 {alignment = 64 : i64}
// CHECK: %[[INDICES:.*]] = llvm.alloca %{{.*}} x i32
// CHECK: %[[OUT:.*]] = llvm.alloca %{{.*}} x i16
// CHECK: llvm.store %{{.*}}, %[[INDICES]] {alignment = 4 : i64} : vector<32xi32>, !llvm.ptr
// CHECK: scf.for %[[LANE:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[AT:.*]] = llvm.getelementptr %[[INDICES]][%[[LANE]]]
// CHECK: %[[I:.*]] = llvm.load %[[AT]] {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK: %[[WIDE:.*]] = arith.extui %[[I]] : i32 to i64
// CHECK: %[[FROM:.*]] = llvm.getelementptr %[[SRC]][%[[WIDE]]]
// CHECK: %[[TO:.*]] = llvm.getelementptr %[[OUT]][%[[LANE]]]
// CHECK: %[[V:.*]] = llvm.load %[[FROM]] {alignment = 2 : i64} : !llvm.ptr -> i16
// CHECK: llvm.store %[[V]], %[[TO]]
// CHECK: llvm.load %[[OUT]] {alignment = 2 : i64} : !llvm.ptr -> vector<32xi16>
tile.func @gather_loop(%p: !tile.ptr<bf16>, %q: !tile.ptr<i64>) {
  %r = tile.make_range 0 to 32 : tensor<32xi32>
  %pb = tile.splat %p : !tile.ptr<bf16> -> tensor<32x!tile.ptr<bf16>>
  %pp = tile.addptr %pb, %r : tensor<32x!tile.ptr<bf16>>, tensor<32xi32>
  %src = tile.load %pp : tensor<32x!tile.ptr<bf16>>
  %qb = tile.splat %q : !tile.ptr<i64> -> tensor<32x!tile.ptr<i64>>
  %qp = tile.addptr %qb, %r : tensor<32x!tile.ptr<i64>>, tensor<32xi32>
  %idx = tile.load %qp : tensor<32x!tile.ptr<i64>>
  %g = tile.gather %src[%idx] axis = 0 : tensor<32xbf16>, tensor<32xi64> -> tensor<32xbf16>
  tile.store %pp, %g : tensor<32x!tile.ptr<bf16>>
  tile.return
}

// -----

// histogram: each lane's slot is its value where it is counted (sign-extended
// to i32 and below the bins as unsigned, and masked on) and the extra slot 8
// elsewhere; a loop over the lanes adds one to its slot of the zeroed counts.
// CHECK-LABEL: func.func @histogram
// CHECK: %[[VALUES:.*]] = arith.extsi %{{.*}} : vector<16xi8> to vector<16xi32>
// CHECK: %[[BINS:.*]] = arith.constant dense<8> : vector<16xi32>
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[VALUES]], %[[BINS]]
// CHECK: %[[COUNTED:.*]] = arith.andi %[[IN]], %{{.*}} : vector<16xi1>
// CHECK: %[[SLOTS:.*]] = arith.select %[[COUNTED]], %[[VALUES]], %{{.*}} : vector<16xi1>, vector<16xi32>
// CHECK: %[[SLOTBUF:.*]] = llvm.alloca %{{.*}} x i32
// CHECK: %[[COUNTS:.*]] = llvm.alloca %{{.*}} x i32
// CHECK: llvm.store %[[SLOTS]], %[[SLOTBUF]]
// CHECK: llvm.store %{{.*}}, %[[COUNTS]] {alignment = 4 : i64} : vector<9xi32>, !llvm.ptr
// CHECK: scf.for
// CHECK: %[[SLOT:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK: %[[WIDE:.*]] = arith.extui %[[SLOT]] : i32 to i64
// CHECK: %[[COUNT:.*]] = llvm.getelementptr %[[COUNTS]][%[[WIDE]]]
// CHECK: %[[OLD:.*]] = llvm.load %[[COUNT]]
// CHECK: %[[NEW:.*]] = arith.addi %[[OLD]], %{{.*}} : i32
// CHECK: llvm.store %[[NEW]], %[[COUNT]]
// CHECK: llvm.load %[[COUNTS]] {alignment = 4 : i64} : !llvm.ptr -> vector<8xi32>
tile.func @histogram(%p: !tile.ptr<i32>, %q: !tile.ptr<i8>) {
  %r16 = tile.make_range 0 to 16 : tensor<16xi32>
  %qb = tile.splat %q : !tile.ptr<i8> -> tensor<16x!tile.ptr<i8>>
  %qp = tile.addptr %qb, %r16 : tensor<16x!tile.ptr<i8>>, tensor<16xi32>
  %x = tile.load %qp : tensor<16x!tile.ptr<i8>>
  %c5 = arith.constant dense<5> : tensor<16xi32>
  %m = arith.cmpi slt, %r16, %c5 : tensor<16xi32>
  %h = tile.histogram %x, mask %m : tensor<16xi8>, tensor<16xi1> -> tensor<8xi32>
  %r = tile.make_range 0 to 8 : tensor<8xi32>
  %pb = tile.splat %p : !tile.ptr<i32> -> tensor<8x!tile.ptr<i32>>
  %pp = tile.addptr %pb, %r : tensor<8x!tile.ptr<i32>>, tensor<8xi32>
  tile.store %pp, %h : tensor<8x!tile.ptr<i32>>
  tile.return
}
