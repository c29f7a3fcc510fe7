// RUN: tessera-opt %s -split-input-file | tessera-opt -split-input-file | FileCheck %s
// RUN: tessera-opt %s -split-input-file --mlir-print-op-generic | tessera-opt -split-input-file | FileCheck %s
// RUN: tessera-opt %s -split-input-file --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// Round trip of every tile op and type, in the custom and in the generic form.

// CHECK-LABEL: tile.func @kernel_signature(
// CHECK-SAME: %{{.*}}: !tile.ptr<f32> {tile.divisibility = 16 : i32},
// CHECK-SAME: %{{.*}}: i32 {tile.divisibility = 8 : i32},
// CHECK-SAME: %{{.*}}: i32 {tile.equal_to_1},
// CHECK-SAME: %{{.*}}: !tile.ptr<i8, 3>,
// CHECK-SAME: %{{.*}}: !tile.ptr<f16>,
// CHECK-SAME: %{{.*}}: !tile.tensordesc<tensor<64x32xf16>>,
// CHECK-SAME: %{{.*}}: f32, %{{.*}}: i64) {
// CHECK-NEXT: tile.return
// GENERIC-LABEL: "tile.func"()
// GENERIC-SAME: function_type = (!tile.ptr<f32>, i32, i32, !tile.ptr<i8, 3>, !tile.ptr<f16>, !tile.tensordesc<tensor<64x32xf16>>, f32, i64) -> ()
// GENERIC-SAME: sym_name = "kernel_signature"
// GENERIC: "tile.return"() : () -> ()
tile.func @kernel_signature(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                            %n: i32 {tile.divisibility = 8 : i32},
                            %stride: i32 {tile.equal_to_1},
                            %smem: !tile.ptr<i8, 3>,
                            // Address space 1 is the default and is not printed.
                            %h: !tile.ptr<f16, 1>,
                            %desc: !tile.tensordesc<tensor<64x32xf16>>,
                            %alpha: f32, %big: i64) {
  tile.return
}

// -----

// CHECK-LABEL: tile.func @grid(
// CHECK-NEXT: %{{.*}} = tile.program_id x
// CHECK-NEXT: %{{.*}} = tile.program_id y
// CHECK-NEXT: %{{.*}} = tile.program_id z
// CHECK-NEXT: %{{.*}} = tile.num_programs x
// CHECK-NEXT: %{{.*}} = tile.num_programs y
// CHECK-NEXT: %{{.*}} = tile.num_programs z
// GENERIC-LABEL: sym_name = "grid"
// GENERIC: "tile.program_id"() <{axis = 0 : i32}> : () -> i32
// GENERIC: "tile.num_programs"() <{axis = 2 : i32}> : () -> i32
tile.func @grid(%out: !tile.ptr<i32>) {
  %px = tile.program_id x
  %py = tile.program_id y
  %pz = tile.program_id z
  %nx = tile.num_programs x
  %ny = tile.num_programs y
  %nz = tile.num_programs z
  tile.return
}

// -----

// CHECK-LABEL: tile.func private @shapes(
// CHECK-SAME: %[[S:.*]]: f32, %[[P:.*]]: !tile.ptr<f16>, %[[ROW:.*]]: tensor<1x64xf32>, %[[V:.*]]: tensor<32xf32>, %[[M:.*]]: tensor<4x16xf32>, %[[B:.*]]: tensor<32x64xf16>, %[[A:.*]]: tensor<32x8xf32>)
// CHECK-NEXT: %{{.*}} = tile.make_range 0 to 128 : tensor<128xi32>
// CHECK-NEXT: %{{.*}} = tile.make_range 64 to 96 : tensor<32xi32>
// CHECK-NEXT: %{{.*}} = tile.splat %[[S]] : f32 -> tensor<64x64xf32>
// CHECK-NEXT: %{{.*}} = tile.splat %[[P]] : !tile.ptr<f16> -> tensor<16x!tile.ptr<f16>>
// CHECK-NEXT: %{{.*}} = tile.broadcast %[[ROW]] : tensor<1x64xf32> -> tensor<32x64xf32>
// CHECK-NEXT: %[[COL:.*]] = tile.expand_dims %[[V]], axis = 1 : tensor<32xf32> -> tensor<32x1xf32>
// CHECK-NEXT: %{{.*}} = tile.expand_dims %[[V]], axis = 0 : tensor<32xf32> -> tensor<1x32xf32>
// CHECK-NEXT: %{{.*}} = tile.reshape %[[M]] : tensor<4x16xf32> -> tensor<64xf32>
// CHECK-NEXT: %{{.*}} = tile.reshape %[[M]] allow_reorder : tensor<4x16xf32> -> tensor<8x8xf32>
// CHECK-NEXT: %{{.*}} = tile.trans %[[B]], order = [1, 0] : tensor<32x64xf16> -> tensor<64x32xf16>
// CHECK-NEXT: %[[J:.*]] = tile.join %[[V]], %[[V]] : tensor<32xf32> -> tensor<32x2xf32>
// Results with ODS names print with those names.
// CHECK-NEXT: %lhs, %rhs = tile.split %[[J]] : tensor<32x2xf32> -> tensor<32xf32>
// CHECK-NEXT: %{{.*}} = tile.cat %[[A]], %[[A]], axis = 0 : tensor<32x8xf32> -> tensor<64x8xf32>
// CHECK-NEXT: %{{.*}} = tile.cat %[[A]], %[[A]], axis = 1 : tensor<32x8xf32> -> tensor<32x16xf32>
// GENERIC-LABEL: sym_name = "shapes"
// GENERIC: "tile.make_range"() <{end = 128 : i32, start = 0 : i32}> : () -> tensor<128xi32>
// GENERIC: "tile.splat"(%{{.*}}) : (f32) -> tensor<64x64xf32>
// GENERIC: "tile.broadcast"(%{{.*}}) : (tensor<1x64xf32>) -> tensor<32x64xf32>
// GENERIC: "tile.expand_dims"(%{{.*}}) <{axis = 1 : i32}> : (tensor<32xf32>) -> tensor<32x1xf32>
// GENERIC: "tile.reshape"(%{{.*}}) : (tensor<4x16xf32>) -> tensor<64xf32>
// GENERIC: "tile.reshape"(%{{.*}}) <{allow_reorder}> : (tensor<4x16xf32>) -> tensor<8x8xf32>
// GENERIC: "tile.trans"(%{{.*}}) <{order = array<i32: 1, 0>}> : (tensor<32x64xf16>) -> tensor<64x32xf16>
// GENERIC: "tile.join"(%{{.*}}, %{{.*}}) : (tensor<32xf32>, tensor<32xf32>) -> tensor<32x2xf32>
// GENERIC: "tile.split"(%{{.*}}) : (tensor<32x2xf32>) -> (tensor<32xf32>, tensor<32xf32>)
// GENERIC: "tile.cat"(%{{.*}}, %{{.*}}) <{axis = 0 : i32}> : (tensor<32x8xf32>, tensor<32x8xf32>) -> tensor<64x8xf32>
tile.func private @shapes(%s: f32, %p: !tile.ptr<f16>, %row: tensor<1x64xf32>,
                          %v: tensor<32xf32>, %m: tensor<4x16xf32>,
                          %b: tensor<32x64xf16>, %a: tensor<32x8xf32>) {
  %r0 = tile.make_range 0 to 128 : tensor<128xi32>
  %r1 = tile.make_range 64 to 96 : tensor<32xi32>
  %t = tile.splat %s : f32 -> tensor<64x64xf32>
  %ps = tile.splat %p : !tile.ptr<f16> -> tensor<16x!tile.ptr<f16>>
  %bc = tile.broadcast %row : tensor<1x64xf32> -> tensor<32x64xf32>
  %col = tile.expand_dims %v, axis = 1 : tensor<32xf32> -> tensor<32x1xf32>
  %rw = tile.expand_dims %v, axis = 0 : tensor<32xf32> -> tensor<1x32xf32>
  %flat = tile.reshape %m : tensor<4x16xf32> -> tensor<64xf32>
  %sq = tile.reshape %m allow_reorder : tensor<4x16xf32> -> tensor<8x8xf32>
  %bt = tile.trans %b, order = [1, 0] : tensor<32x64xf16> -> tensor<64x32xf16>
  %j = tile.join %v, %v : tensor<32xf32> -> tensor<32x2xf32>
  %re, %im = tile.split %j : tensor<32x2xf32> -> tensor<32xf32>
  %c0 = tile.cat %a, %a, axis = 0 : tensor<32x8xf32> -> tensor<64x8xf32>
  %c1 = tile.cat %a, %a, axis = 1 : tensor<32x8xf32> -> tensor<32x16xf32>
  tile.return
}

// -----

// CHECK-LABEL: tile.func private @pointers(
// CHECK-SAME: %[[P:[^:]*]]: !tile.ptr<f32>, %[[PS:[^:]*]]: tensor<128x!tile.ptr<f32>>, %[[O:[^:]*]]: tensor<128xi32>, %[[I:[^:]*]]: i32, %[[A:[^:]*]]: i64, %[[AS:[^:]*]]: tensor<128xi64>)
// CHECK-NEXT: %{{.*}} = tile.addptr %[[P]], %[[I]] : !tile.ptr<f32>, i32
// CHECK-NEXT: %{{.*}} = tile.addptr %[[PS]], %[[O]] : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
// CHECK-NEXT: %{{.*}} = tile.bitcast %[[P]] : !tile.ptr<f32> -> !tile.ptr<i32>
// CHECK-NEXT: %{{.*}} = tile.bitcast %[[PS]] : tensor<128x!tile.ptr<f32>> -> tensor<128x!tile.ptr<i8, 3>>
// CHECK-NEXT: %{{.*}} = tile.int_to_ptr %[[A]] : i64 -> !tile.ptr<f32>
// CHECK-NEXT: %{{.*}} = tile.int_to_ptr %[[AS]] : tensor<128xi64> -> tensor<128x!tile.ptr<bf16>>
// CHECK-NEXT: %{{.*}} = tile.ptr_to_int %[[P]] : !tile.ptr<f32> -> i64
// CHECK-NEXT: %{{.*}} = tile.ptr_to_int %[[PS]] : tensor<128x!tile.ptr<f32>> -> tensor<128xi64>
// GENERIC-LABEL: sym_name = "pointers"
// GENERIC: "tile.addptr"(%{{.*}}, %{{.*}}) : (!tile.ptr<f32>, i32) -> !tile.ptr<f32>
// GENERIC: "tile.bitcast"(%{{.*}}) : (!tile.ptr<f32>) -> !tile.ptr<i32>
// GENERIC: "tile.int_to_ptr"(%{{.*}}) : (i64) -> !tile.ptr<f32>
// GENERIC: "tile.ptr_to_int"(%{{.*}}) : (!tile.ptr<f32>) -> i64
tile.func private @pointers(%p: !tile.ptr<f32>, %ps: tensor<128x!tile.ptr<f32>>,
                            %offs: tensor<128xi32>, %i: i32, %addr: i64,
                            %addrs: tensor<128xi64>) {
  %q = tile.addptr %p, %i : !tile.ptr<f32>, i32
  %qs = tile.addptr %ps, %offs : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %b = tile.bitcast %p : !tile.ptr<f32> -> !tile.ptr<i32>
  %bs = tile.bitcast %ps : tensor<128x!tile.ptr<f32>> -> tensor<128x!tile.ptr<i8, 3>>
  %fromInt = tile.int_to_ptr %addr : i64 -> !tile.ptr<f32>
  %fromInts = tile.int_to_ptr %addrs : tensor<128xi64> -> tensor<128x!tile.ptr<bf16>>
  %toInt = tile.ptr_to_int %p : !tile.ptr<f32> -> i64
  %toInts = tile.ptr_to_int %ps : tensor<128x!tile.ptr<f32>> -> tensor<128xi64>
  tile.return
}

// -----

// CHECK-LABEL: tile.func private @memory(
// CHECK-SAME: %[[PS:[^:]*]]: tensor<128x!tile.ptr<f32>>, %[[M:[^:]*]]: tensor<128xi1>, %[[Z:[^:]*]]: tensor<128xf32>, %[[P:[^:]*]]: !tile.ptr<f16>, %[[B:[^:]*]]: i1, %[[H:[^:]*]]: f16)
// CHECK-NEXT: %[[X:.*]] = tile.load %[[PS]] : tensor<128x!tile.ptr<f32>>
// CHECK-NEXT: %{{.*}} = tile.load %[[PS]], %[[M]] : tensor<128x!tile.ptr<f32>>
// CHECK-NEXT: %{{.*}} = tile.load %[[PS]], %[[M]], %[[Z]] : tensor<128x!tile.ptr<f32>>
// CHECK-NEXT: %{{.*}} = tile.load %[[PS]] cache = cg evict = evict_first : tensor<128x!tile.ptr<f32>>
// CHECK-NEXT: %{{.*}} = tile.load %[[PS]] cache = ca : tensor<128x!tile.ptr<f32>>
// CHECK-NEXT: %{{.*}} = tile.load %[[PS]] evict = evict_last : tensor<128x!tile.ptr<f32>>
// CHECK-NEXT: %{{.*}} = tile.load %[[PS]], %[[M]], %[[Z]] cache = cv volatile : tensor<128x!tile.ptr<f32>>
// CHECK-NEXT: %{{.*}} = tile.load %[[PS]] volatile : tensor<128x!tile.ptr<f32>>
// CHECK-NEXT: %[[S:.*]] = tile.load %[[P]], %[[B]], %[[H]] : !tile.ptr<f16>
// CHECK-NEXT: tile.store %[[PS]], %[[X]] : tensor<128x!tile.ptr<f32>>
// CHECK-NEXT: tile.store %[[PS]], %[[X]], %[[M]] : tensor<128x!tile.ptr<f32>>
// CHECK-NEXT: tile.store %[[PS]], %[[X]], %[[M]] cache = wb evict = evict_last : tensor<128x!tile.ptr<f32>>
// CHECK-NEXT: tile.store %[[PS]], %[[X]] cache = cs : tensor<128x!tile.ptr<f32>>
// CHECK-NEXT: tile.store %[[P]], %[[S]] evict = evict_first : !tile.ptr<f16>
// GENERIC-LABEL: sym_name = "memory"
// GENERIC: "tile.load"(%{{.*}}) <{cache = 0 : i32, evict = 0 : i32, operandSegmentSizes = array<i32: 1, 0, 0>}> : (tensor<128x!tile.ptr<f32>>) -> tensor<128xf32>
// GENERIC: "tile.load"(%{{.*}}, %{{.*}}, %{{.*}}) <{cache = 4 : i32, evict = 0 : i32, isVolatile, operandSegmentSizes = array<i32: 1, 1, 1>}>
// GENERIC: "tile.store"(%{{.*}}, %{{.*}}, %{{.*}}) <{cache = 5 : i32, evict = 2 : i32}> : (tensor<128x!tile.ptr<f32>>, tensor<128xf32>, tensor<128xi1>) -> ()
tile.func private @memory(%ps: tensor<128x!tile.ptr<f32>>, %mask: tensor<128xi1>,
                          %zero: tensor<128xf32>, %p: !tile.ptr<f16>, %b: i1, %h: f16) {
  %x = tile.load %ps : tensor<128x!tile.ptr<f32>>
  %x1 = tile.load %ps, %mask : tensor<128x!tile.ptr<f32>>
  %x2 = tile.load %ps, %mask, %zero : tensor<128x!tile.ptr<f32>>
  %x3 = tile.load %ps cache = cg evict = evict_first : tensor<128x!tile.ptr<f32>>
  %x4 = tile.load %ps cache = ca : tensor<128x!tile.ptr<f32>>
  %x5 = tile.load %ps evict = evict_last : tensor<128x!tile.ptr<f32>>
  %x6 = tile.load %ps, %mask, %zero cache = cv volatile : tensor<128x!tile.ptr<f32>>
  %x7 = tile.load %ps volatile : tensor<128x!tile.ptr<f32>>
  // Defaults are not printed: `cache = none evict = normal` reads back as nothing.
  %s = tile.load %p, %b, %h cache = none evict = normal : !tile.ptr<f16>
  tile.store %ps, %x : tensor<128x!tile.ptr<f32>>
  tile.store %ps, %x, %mask : tensor<128x!tile.ptr<f32>>
  tile.store %ps, %x, %mask cache = wb evict = evict_last : tensor<128x!tile.ptr<f32>>
  tile.store %ps, %x cache = cs : tensor<128x!tile.ptr<f32>>
  tile.store %p, %s evict = evict_first : !tile.ptr<f16>
  tile.return
}

// -----

// CHECK-LABEL: tile.func @descriptors(
// CHECK-SAME: %[[A:[^:]*]]: !tile.ptr<f16>, %[[M:[^:]*]]: i32, %[[K:[^:]*]]: i32, %[[LDA:[^:]*]]: i64, %[[I:[^:]*]]: i32, %[[Q:[^:]*]]: !tile.ptr<f32>)
// CHECK: %[[ONE:.*]] = arith.constant 1 : i64
// Operands and results whose ODS type is a tile type class print the type
// without its `!tile.ptr` / `!tile.tensordesc` prefix.
// CHECK-NEXT: %[[D:.*]] = tile.make_tensor_descriptor %[[A]], [%[[M]], %[[K]]], [%[[LDA]], %[[ONE]]] : !tile.ptr<f16> -> !tile.tensordesc<tensor<64x32xf16>>
// CHECK-NEXT: %[[DN:.*]] = tile.make_tensor_descriptor %[[Q]], [%[[M]]], [%[[ONE]]] padding = nan : !tile.ptr<f32> -> !tile.tensordesc<tensor<128xf32>>
// CHECK-NEXT: %[[BLK:.*]] = tile.descriptor_load %[[D]][%[[I]], %[[K]]] : !tile.tensordesc<tensor<64x32xf16>>
// CHECK-NEXT: %{{.*}} = tile.descriptor_load %[[DN]][%[[I]]] cache = cg evict = evict_last : !tile.tensordesc<tensor<128xf32>>
// CHECK-NEXT: tile.descriptor_store %[[D]][%[[I]], %[[K]]], %[[BLK]] : !tile.tensordesc<tensor<64x32xf16>>
// GENERIC-LABEL: sym_name = "descriptors"
// GENERIC: "tile.make_tensor_descriptor"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{operandSegmentSizes = array<i32: 1, 2, 2>, padding = 0 : i32}> : (!tile.ptr<f16>, i32, i32, i64, i64) -> !tile.tensordesc<tensor<64x32xf16>>
// GENERIC: padding = 1 : i32
// GENERIC: "tile.descriptor_load"(%{{.*}}, %{{.*}}, %{{.*}}) <{cache = 0 : i32, evict = 0 : i32}> : (!tile.tensordesc<tensor<64x32xf16>>, i32, i32) -> tensor<64x32xf16>
// GENERIC: "tile.descriptor_store"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (!tile.tensordesc<tensor<64x32xf16>>, i32, i32, tensor<64x32xf16>) -> ()
tile.func @descriptors(%a: !tile.ptr<f16>, %m: i32, %k: i32, %lda: i64, %i: i32,
                       %q: !tile.ptr<f32>) {
  %c1 = arith.constant 1 : i64
  %d = tile.make_tensor_descriptor %a, [%m, %k], [%lda, %c1]
         : !tile.ptr<f16> -> !tile.tensordesc<tensor<64x32xf16>>
  %dn = tile.make_tensor_descriptor %q, [%m], [%c1] padding = nan
         : !tile.ptr<f32> -> !tile.tensordesc<tensor<128xf32>>
  %blk = tile.descriptor_load %d[%i, %k] : !tile.tensordesc<tensor<64x32xf16>>
  %row = tile.descriptor_load %dn[%i] cache = cg evict = evict_last : !tile.tensordesc<tensor<128xf32>>
  tile.descriptor_store %d[%i, %k], %blk : !tile.tensordesc<tensor<64x32xf16>>
  tile.return
}

// -----

// CHECK-LABEL: tile.func private @dots(
// CHECK-NEXT: %{{.*}} = tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
// CHECK-NEXT: %{{.*}} = tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf16>
// CHECK-NEXT: %{{.*}} = tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x32xbf16> * tensor<32x64xbf16> -> tensor<64x64xf32>
// CHECK-NEXT: %{{.*}} = tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32>
// CHECK-NEXT: %{{.*}} = tile.dot %{{.*}}, %{{.*}}, %{{.*}} input_precision = ieee : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32>
// CHECK-NEXT: %{{.*}} = tile.dot %{{.*}}, %{{.*}}, %{{.*}} input_precision = tf32x3 : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32>
// CHECK-NEXT: %{{.*}} = tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<16x16xf64> * tensor<16x16xf64> -> tensor<16x16xf64>
// CHECK-NEXT: %{{.*}} = tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<32x64xi8> * tensor<64x16xi8> -> tensor<32x16xi32>
// CHECK-NEXT: %{{.*}} = tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<4x16x32xf16> * tensor<4x32x8xf16> -> tensor<4x16x8xf32>
// CHECK-NEXT: %{{.*}} = tile.dot %{{.*}}, %{{.*}}, %{{.*}} max_num_imprecise_acc = 32 : tensor<64x32xf8E4M3FN> * tensor<32x64xf8E4M3FN> -> tensor<64x64xf32>
// CHECK-NEXT: %{{.*}} = tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x32xf8E5M2> * tensor<32x64xf8E5M2> -> tensor<64x64xf16>
// GENERIC-LABEL: sym_name = "dots"
// GENERIC: "tile.dot"(%{{.*}}, %{{.*}}, %{{.*}}) <{inputPrecision = 0 : i32, maxNumImpreciseAcc = 0 : i32}> : (tensor<64x32xf16>, tensor<32x64xf16>, tensor<64x64xf32>) -> tensor<64x64xf32>
// GENERIC: inputPrecision = 2 : i32
// GENERIC: maxNumImpreciseAcc = 32 : i32
tile.func private @dots(%a16: tensor<64x32xf16>, %b16: tensor<32x64xf16>,
                        %acc32: tensor<64x64xf32>, %acc16: tensor<64x64xf16>,
                        %abf: tensor<64x32xbf16>, %bbf: tensor<32x64xbf16>,
                        %x: tensor<16x16xf32>, %xd: tensor<16x16xf64>,
                        %ai: tensor<32x64xi8>, %bi: tensor<64x16xi8>, %acci: tensor<32x16xi32>,
                        %ab: tensor<4x16x32xf16>, %bb: tensor<4x32x8xf16>, %accb: tensor<4x16x8xf32>,
                        %a8: tensor<64x32xf8E4M3FN>, %b8: tensor<32x64xf8E4M3FN>,
                        %a5: tensor<64x32xf8E5M2>, %b5: tensor<32x64xf8E5M2>) {
  %0 = tile.dot %a16, %b16, %acc32 : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
  %1 = tile.dot %a16, %b16, %acc16 : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf16>
  %2 = tile.dot %abf, %bbf, %acc32 : tensor<64x32xbf16> * tensor<32x64xbf16> -> tensor<64x64xf32>
  // tf32 is the default input precision and is not printed.
  %3 = tile.dot %x, %x, %x input_precision = tf32 : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32>
  %4 = tile.dot %x, %x, %x input_precision = ieee : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32>
  %5 = tile.dot %x, %x, %x input_precision = tf32x3 : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32>
  %6 = tile.dot %xd, %xd, %xd : tensor<16x16xf64> * tensor<16x16xf64> -> tensor<16x16xf64>
  %7 = tile.dot %ai, %bi, %acci : tensor<32x64xi8> * tensor<64x16xi8> -> tensor<32x16xi32>
  %8 = tile.dot %ab, %bb, %accb : tensor<4x16x32xf16> * tensor<4x32x8xf16> -> tensor<4x16x8xf32>
  %9 = tile.dot %a8, %b8, %acc32 max_num_imprecise_acc = 32 : tensor<64x32xf8E4M3FN> * tensor<32x64xf8E4M3FN> -> tensor<64x64xf32>
  %10 = tile.dot %a5, %b5, %acc16 : tensor<64x32xf8E5M2> * tensor<32x64xf8E5M2> -> tensor<64x64xf16>
  tile.return
}

// -----

// Result types are inferred and not printed in the custom form.
// CHECK-LABEL: tile.func private @reductions(
// CHECK-SAME: %[[X:[^:]*]]: tensor<128xf32>, %[[I:[^:]*]]: tensor<128xi32>, %[[M:[^:]*]]: tensor<32x64xf32>)
// CHECK-NEXT: %{{.*}} = tile.reduce %[[X]] axis = 0 : tensor<128xf32> {
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32):
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[A]], %[[B]] : f32
// CHECK-NEXT: tile.yield %[[S]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: %{{.*}}:2 = tile.reduce %[[X]], %[[I]] axis = 0 : tensor<128xf32>, tensor<128xi32> {
// CHECK-NEXT: ^bb0(%{{.*}}: f32, %{{.*}}: i32, %{{.*}}: f32, %{{.*}}: i32):
// CHECK: tile.yield %{{.*}}, %{{.*}} : f32, i32
// CHECK-NEXT: }
// CHECK-NEXT: %[[ROWS:.*]] = tile.reduce %[[M]] axis = 1 : tensor<32x64xf32> {
// CHECK: arith.maximumf
// CHECK-NEXT: tile.yield %{{.*}} : f32
// CHECK-NEXT: }
// CHECK-NEXT: %{{.*}} = tile.scan %[[X]] axis = 0 : tensor<128xf32> {
// CHECK: tile.yield
// CHECK-NEXT: }
// CHECK-NEXT: %{{.*}}:2 = tile.scan %[[M]], %[[M]] axis = 1 reverse : tensor<32x64xf32>, tensor<32x64xf32> {
// CHECK-NEXT: ^bb0(%{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32):
// CHECK: tile.yield %{{.*}}, %{{.*}} : f32, f32
// GENERIC-LABEL: sym_name = "reductions"
// GENERIC: %{{.*}} = "tile.reduce"(%{{.*}}) <{axis = 0 : i32}> ({
// GENERIC: "tile.yield"(%{{.*}}) : (f32) -> ()
// GENERIC-NEXT: }) : (tensor<128xf32>) -> f32
// GENERIC: }) : (tensor<128xf32>, tensor<128xi32>) -> (f32, i32)
// GENERIC: }) : (tensor<32x64xf32>) -> tensor<32xf32>
// GENERIC: "tile.scan"(%{{.*}}, %{{.*}}) <{axis = 1 : i32, reverse}> ({
tile.func private @reductions(%x: tensor<128xf32>, %i: tensor<128xi32>, %m: tensor<32x64xf32>) {
  %sum = tile.reduce %x axis = 0 : tensor<128xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tile.yield %s : f32
  }
  // argmax: the value and its index travel together.
  %max, %idx = tile.reduce %x, %i axis = 0 : tensor<128xf32>, tensor<128xi32> {
  ^bb0(%a: f32, %ai: i32, %b: f32, %bi: i32):
    %gt = arith.cmpf ogt, %a, %b : f32
    %mx = arith.select %gt, %a, %b : f32
    %mi = arith.select %gt, %ai, %bi : i32
    tile.yield %mx, %mi : f32, i32
  }
  %rows = tile.reduce %m axis = 1 : tensor<32x64xf32> {
  ^bb0(%a: f32, %b: f32):
    %mx = arith.maximumf %a, %b : f32
    tile.yield %mx : f32
  }
  %cum = tile.scan %x axis = 0 : tensor<128xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tile.yield %s : f32
  }
  %rc0, %rc1 = tile.scan %m, %m axis = 1 reverse : tensor<32x64xf32>, tensor<32x64xf32> {
  ^bb0(%a: f32, %a1: f32, %b: f32, %b1: f32):
    %s = arith.addf %a, %b : f32
    %p = arith.mulf %a1, %b1 : f32
    tile.yield %s, %p : f32, f32
  }
  tile.return
}

// -----

// CHECK-LABEL: tile.func private @atomics(
// CHECK-SAME: %[[PS:[^:]*]]: tensor<64x!tile.ptr<f32>>, %[[V:[^:]*]]: tensor<64xf32>, %[[M:[^:]*]]: tensor<64xi1>, %[[IP:[^:]*]]: tensor<64x!tile.ptr<i32>>, %[[IV:[^:]*]]: tensor<64xi32>, %[[L:[^:]*]]: !tile.ptr<i32>, %[[C0:[^:]*]]: i32, %[[C1:[^:]*]]: i32, %[[HP:[^:]*]]: !tile.ptr<f16>, %[[H:[^:]*]]: f16, %[[QP:[^:]*]]: !tile.ptr<i64>, %[[Q:[^:]*]]: i64)
// CHECK-NEXT: %{{.*}} = tile.atomic_rmw fadd, relaxed, gpu, %[[PS]], %[[V]], %[[M]] : tensor<64x!tile.ptr<f32>>
// CHECK-NEXT: %{{.*}} = tile.atomic_rmw add, acquire, cta, %[[IP]], %[[IV]] : tensor<64x!tile.ptr<i32>>
// CHECK-NEXT: %{{.*}} = tile.atomic_rmw max, release, sys, %[[PS]], %[[V]] : tensor<64x!tile.ptr<f32>>
// CHECK-NEXT: %{{.*}} = tile.atomic_rmw max, acq_rel, gpu, %[[IP]], %[[IV]], %[[M]] : tensor<64x!tile.ptr<i32>>
// CHECK-NEXT: %{{.*}} = tile.atomic_rmw umax, relaxed, gpu, %[[IP]], %[[IV]] : tensor<64x!tile.ptr<i32>>
// CHECK-NEXT: %{{.*}} = tile.atomic_rmw min, relaxed, gpu, %[[PS]], %[[V]] : tensor<64x!tile.ptr<f32>>
// CHECK-NEXT: %{{.*}} = tile.atomic_rmw umin, relaxed, gpu, %[[IP]], %[[IV]] : tensor<64x!tile.ptr<i32>>
// CHECK-NEXT: %{{.*}} = tile.atomic_rmw and, relaxed, gpu, %[[IP]], %[[IV]] : tensor<64x!tile.ptr<i32>>
// CHECK-NEXT: %{{.*}} = tile.atomic_rmw or, relaxed, gpu, %[[IP]], %[[IV]] : tensor<64x!tile.ptr<i32>>
// CHECK-NEXT: %{{.*}} = tile.atomic_rmw xor, relaxed, gpu, %[[IP]], %[[IV]] : tensor<64x!tile.ptr<i32>>
// CHECK-NEXT: %{{.*}} = tile.atomic_rmw xchg, relaxed, gpu, %[[PS]], %[[V]], %[[M]] : tensor<64x!tile.ptr<f32>>
// CHECK-NEXT: %{{.*}} = tile.atomic_rmw fadd, relaxed, gpu, %[[HP]], %[[H]] : !tile.ptr<f16>
// CHECK-NEXT: %{{.*}} = tile.atomic_cas acq_rel, gpu, %[[L]], %[[C0]], %[[C1]] : !tile.ptr<i32>
// CHECK-NEXT: %{{.*}} = tile.atomic_cas relaxed, sys, %[[QP]], %[[Q]], %[[Q]] : !tile.ptr<i64>
// CHECK-NEXT: %{{.*}} = tile.atomic_cas acquire, cta, %[[HP]], %[[H]], %[[H]] : !tile.ptr<f16>
// GENERIC-LABEL: sym_name = "atomics"
// GENERIC: "tile.atomic_rmw"(%{{.*}}, %{{.*}}, %{{.*}}) <{rmwOp = 1 : i32, scope = 0 : i32, sem = 0 : i32}> : (tensor<64x!tile.ptr<f32>>, tensor<64xf32>, tensor<64xi1>) -> tensor<64xf32>
// GENERIC: "tile.atomic_cas"(%{{.*}}, %{{.*}}, %{{.*}}) <{scope = 0 : i32, sem = 3 : i32}> : (!tile.ptr<i32>, i32, i32) -> i32
tile.func private @atomics(%ps: tensor<64x!tile.ptr<f32>>, %v: tensor<64xf32>, %mask: tensor<64xi1>,
                           %ip: tensor<64x!tile.ptr<i32>>, %iv: tensor<64xi32>,
                           %lock: !tile.ptr<i32>, %c0: i32, %c1: i32,
                           %hp: !tile.ptr<f16>, %h: f16, %qp: !tile.ptr<i64>, %q: i64) {
  %0 = tile.atomic_rmw fadd, relaxed, gpu, %ps, %v, %mask : tensor<64x!tile.ptr<f32>>
  %1 = tile.atomic_rmw add, acquire, cta, %ip, %iv : tensor<64x!tile.ptr<i32>>
  %2 = tile.atomic_rmw max, release, sys, %ps, %v : tensor<64x!tile.ptr<f32>>
  %3 = tile.atomic_rmw max, acq_rel, gpu, %ip, %iv, %mask : tensor<64x!tile.ptr<i32>>
  %4 = tile.atomic_rmw umax, relaxed, gpu, %ip, %iv : tensor<64x!tile.ptr<i32>>
  %5 = tile.atomic_rmw min, relaxed, gpu, %ps, %v : tensor<64x!tile.ptr<f32>>
  %6 = tile.atomic_rmw umin, relaxed, gpu, %ip, %iv : tensor<64x!tile.ptr<i32>>
  %7 = tile.atomic_rmw and, relaxed, gpu, %ip, %iv : tensor<64x!tile.ptr<i32>>
  %8 = tile.atomic_rmw or, relaxed, gpu, %ip, %iv : tensor<64x!tile.ptr<i32>>
  %9 = tile.atomic_rmw xor, relaxed, gpu, %ip, %iv : tensor<64x!tile.ptr<i32>>
  %10 = tile.atomic_rmw xchg, relaxed, gpu, %ps, %v, %mask : tensor<64x!tile.ptr<f32>>
  %11 = tile.atomic_rmw fadd, relaxed, gpu, %hp, %h : !tile.ptr<f16>
  %12 = tile.atomic_cas acq_rel, gpu, %lock, %c0, %c1 : !tile.ptr<i32>
  %13 = tile.atomic_cas relaxed, sys, %qp, %q, %q : !tile.ptr<i64>
  %14 = tile.atomic_cas acquire, cta, %hp, %h, %h : !tile.ptr<f16>
  tile.return
}

// -----

// CHECK-LABEL: tile.func private @math(
// CHECK-SAME: %[[X:[^:]*]]: tensor<64xf32>, %[[LO:[^:]*]]: tensor<64xf32>, %[[HI:[^:]*]]: tensor<64xf32>, %[[S:[^:]*]]: f16, %[[I:[^:]*]]: tensor<64xi32>)
// CHECK-NEXT: %{{.*}} = tile.clamp %[[X]], %[[LO]], %[[HI]] : tensor<64xf32>
// CHECK-NEXT: %{{.*}} = tile.clamp %[[X]], %[[LO]], %[[HI]] propagate_nan = all : tensor<64xf32>
// CHECK-NEXT: %{{.*}} = tile.clamp %[[S]], %[[S]], %[[S]] : f16
// CHECK-NEXT: %{{.*}} = tile.precise_sqrt %[[X]] : tensor<64xf32>
// CHECK-NEXT: %{{.*}} = tile.precise_divf %[[X]], %[[HI]] : tensor<64xf32>
// CHECK-NEXT: %{{.*}} = tile.extern_elementwise "__nv_erff"(%[[X]]) lib "libdevice" pure : (tensor<64xf32>) -> tensor<64xf32>
// CHECK-NEXT: %{{.*}} = tile.extern_elementwise "__nv_powf"(%[[X]], %[[HI]]) lib "libdevice" path "/opt/cuda/nvvm/libdevice/libdevice.10.bc" pure : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
// CHECK-NEXT: %{{.*}} = tile.extern_elementwise "my_rand"(%[[I]]) lib "mylib" : (tensor<64xi32>) -> tensor<64xf32>
// CHECK-NEXT: %{{.*}} = tile.extern_elementwise "my_scalar"(%[[S]]) lib "mylib" path "/lib/mylib.bc" : (f16) -> f16
// CHECK-NEXT: %{{.*}} = tile.inline_asm_elementwise "tanh.approx.f32 $0, $1;"(%[[X]]) constraints "=r,r" pure : (tensor<64xf32>) -> tensor<64xf32>
// CHECK-NEXT: %{{.*}}:2 = tile.inline_asm_elementwise "{ .reg .b32 t; mov.b32 t, $2; mov.b32 $0, t; mov.b32 $1, t; }"(%[[I]]) constraints "=r,=r,r,~{memory}" : (tensor<64xi32>) -> (tensor<64xi32>, tensor<64xf32>)
// CHECK-NEXT: %{{.*}} = tile.inline_asm_elementwise "cvt.rn.f16x2.f32 $0, $1, $1;"(%[[S]]) constraints "=r,r" pure pack 2 : (f16) -> f16
// GENERIC-LABEL: sym_name = "math"
// GENERIC: "tile.clamp"(%{{.*}}, %{{.*}}, %{{.*}}) <{propagateNan = 1 : i32}> : (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
// GENERIC: "tile.precise_sqrt"(%{{.*}}) : (tensor<64xf32>) -> tensor<64xf32>
// GENERIC: "tile.precise_divf"(%{{.*}}, %{{.*}}) : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
// GENERIC: "tile.extern_elementwise"(%{{.*}}) <{libname = "libdevice", libpath = "", pure, symbol = "__nv_erff"}> : (tensor<64xf32>) -> tensor<64xf32>
tile.func private @math(%x: tensor<64xf32>, %lo: tensor<64xf32>, %hi: tensor<64xf32>,
                        %s: f16, %i: tensor<64xi32>) {
  %c0 = tile.clamp %x, %lo, %hi : tensor<64xf32>
  %c1 = tile.clamp %x, %lo, %hi propagate_nan = all : tensor<64xf32>
  %c2 = tile.clamp %s, %s, %s propagate_nan = none : f16
  %r = tile.precise_sqrt %x : tensor<64xf32>
  %q = tile.precise_divf %x, %hi : tensor<64xf32>
  %e = tile.extern_elementwise "__nv_erff"(%x) lib "libdevice" pure : (tensor<64xf32>) -> tensor<64xf32>
  %p = tile.extern_elementwise "__nv_powf"(%x, %hi) lib "libdevice" path "/opt/cuda/nvvm/libdevice/libdevice.10.bc" pure : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  %u = tile.extern_elementwise "my_rand"(%i) lib "mylib" : (tensor<64xi32>) -> tensor<64xf32>
  %w = tile.extern_elementwise "my_scalar"(%s) lib "mylib" path "/lib/mylib.bc" : (f16) -> f16
  %t = tile.inline_asm_elementwise "tanh.approx.f32 $0, $1;"(%x) constraints "=r,r" pure : (tensor<64xf32>) -> tensor<64xf32>
  %two:2 = tile.inline_asm_elementwise "{ .reg .b32 t; mov.b32 t, $2; mov.b32 $0, t; mov.b32 $1, t; }"(%i) constraints "=r,=r,r,~{memory}" : (tensor<64xi32>) -> (tensor<64xi32>, tensor<64xf32>)
  %h = tile.inline_asm_elementwise "cvt.rn.f16x2.f32 $0, $1, $1;"(%s) constraints "=r,r" pure pack 2 : (f16) -> f16
  tile.return
}

// -----

// CHECK-LABEL: tile.func private @debugging(
// CHECK-SAME: %[[X:[^:]*]]: tensor<8xf32>, %[[B:[^:]*]]: tensor<8xi32>, %[[S:[^:]*]]: i32, %[[OK:[^:]*]]: tensor<64xi1>, %[[C:[^:]*]]: i1)
// CHECK-NEXT: tile.print "x = "(%[[X]] : tensor<8xf32>)
// CHECK-NEXT: tile.print "bits: " hex(%[[B]] : tensor<8xi32>)
// CHECK-NEXT: tile.print "two: "(%[[X]], %[[S]] : tensor<8xf32>, i32)
// CHECK-NEXT: tile.print "unsigned: "(%[[S]], %[[B]] : i32, tensor<8xi32>) {unsigned_args = array<i1: false, true>}
// CHECK-NEXT: tile.print "reached here"
// CHECK-NEXT: arith.addi
// CHECK-NEXT: tile.assert %[[OK]], "index out of range" : tensor<64xi1>
// CHECK-NEXT: tile.assert %[[C]], "scalar" : i1
// CHECK-NEXT: tile.assume %[[C]]
// CHECK-NEXT: tile.debug_barrier
// GENERIC-LABEL: sym_name = "debugging"
// GENERIC: "tile.print"(%{{.*}}) <{hex, prefix = "bits: "}> : (tensor<8xi32>) -> ()
// GENERIC: "tile.print"() <{prefix = "reached here"}> : () -> ()
// GENERIC: "tile.assert"(%{{.*}}) <{message = "index out of range"}> : (tensor<64xi1>) -> ()
// GENERIC: "tile.assume"(%{{.*}}) : (i1) -> ()
// GENERIC: "tile.debug_barrier"() : () -> ()
tile.func private @debugging(%x: tensor<8xf32>, %b: tensor<8xi32>, %s: i32,
                             %ok: tensor<64xi1>, %c: i1) {
  tile.print "x = " (%x : tensor<8xf32>)
  tile.print "bits: " hex (%b : tensor<8xi32>)
  tile.print "two: " (%x, %s : tensor<8xf32>, i32)
  tile.print "unsigned: " (%s, %b : i32, tensor<8xi32>) {unsigned_args = array<i1: false, true>}
  tile.print "reached here"
  %after = arith.addi %s, %s : i32
  tile.assert %ok, "index out of range" : tensor<64xi1>
  tile.assert %c, "scalar" : i1
  tile.assume %c
  tile.debug_barrier
  tile.return
}

// -----

// CHECK-LABEL: tile.func private @square(
// CHECK-SAME: %[[X:[^:]*]]: tensor<64xf32>) -> tensor<64xf32> {
// CHECK-NEXT: %[[Y:.*]] = arith.mulf %[[X]], %[[X]] : tensor<64xf32>
// CHECK-NEXT: tile.return %[[Y]] : tensor<64xf32>
// CHECK-LABEL: tile.func private @pair(
// CHECK-SAME: -> (tensor<64xf32>, i32)
// CHECK-NEXT: tile.return %{{.*}}, %{{.*}} : tensor<64xf32>, i32
// CHECK-LABEL: tile.func private @declared(tensor<64xf32>) -> tensor<64xf32>
// CHECK-LABEL: tile.func private @effect()
// CHECK-LABEL: tile.func @caller(
// CHECK: %[[SQ:.*]] = tile.call @square(%{{.*}}) : (tensor<64xf32>) -> tensor<64xf32>
// CHECK-NEXT: %{{.*}}:2 = tile.call @pair(%[[SQ]], %{{.*}}) : (tensor<64xf32>, i32) -> (tensor<64xf32>, i32)
// CHECK-NEXT: %{{.*}} = tile.call @declared(%[[SQ]]) : (tensor<64xf32>) -> tensor<64xf32>
// CHECK-NEXT: tile.call @effect() : () -> ()
// GENERIC-LABEL: sym_name = "square"
// GENERIC: "tile.return"(%{{.*}}) : (tensor<64xf32>) -> ()
// GENERIC: "tile.call"(%{{.*}}) <{callee = @square}> : (tensor<64xf32>) -> tensor<64xf32>
tile.func private @square(%x: tensor<64xf32>) -> tensor<64xf32> {
  %y = arith.mulf %x, %x : tensor<64xf32>
  tile.return %y : tensor<64xf32>
}
tile.func private @pair(%x: tensor<64xf32>, %n: i32) -> (tensor<64xf32>, i32) {
  tile.return %x, %n : tensor<64xf32>, i32
}
tile.func private @declared(tensor<64xf32>) -> tensor<64xf32>
tile.func private @effect() {
  tile.return
}
tile.func @caller(%p: !tile.ptr<f32>, %n: i32) {
  %offs = tile.make_range 0 to 64 : tensor<64xi32>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %addrs = tile.addptr %ps, %offs : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %x = tile.load %addrs : tensor<64x!tile.ptr<f32>>
  %sq = tile.call @square(%x) : (tensor<64xf32>) -> tensor<64xf32>
  %y, %m = tile.call @pair(%sq, %n) : (tensor<64xf32>, i32) -> (tensor<64xf32>, i32)
  %z = tile.call @declared(%sq) : (tensor<64xf32>) -> tensor<64xf32>
  tile.call @effect() : () -> ()
  tile.store %addrs, %y : tensor<64x!tile.ptr<f32>>
  tile.return
}

// -----

// CHECK-LABEL: tile.func private @hints
// CHECK: tile.hint %{{.*}} {max_contiguous = 64 : i64, multiple_of = 16 : i64} : tensor<64xi32>
// CHECK: tile.hint %{{.*}} {max_constancy = 8 : i64} : tensor<64x!tile.ptr<f32>>
// CHECK: tile.hint %{{.*}} {multiple_of = 8 : i64} : i32
// GENERIC-LABEL: sym_name = "hints"
// GENERIC: "tile.hint"(%{{.*}}) <{max_contiguous = 64 : i64, multiple_of = 16 : i64}> : (tensor<64xi32>) -> tensor<64xi32>
tile.func private @hints(%x: tensor<64xi32>, %p: tensor<64x!tile.ptr<f32>>, %s: i32) {
  %a = tile.hint %x {multiple_of = 16 : i64, max_contiguous = 64 : i64} : tensor<64xi32>
  %b = tile.hint %p {max_constancy = 8 : i64} : tensor<64x!tile.ptr<f32>>
  %c = tile.hint %s {multiple_of = 8 : i64} : i32
  tile.return
}

// -----

// CHECK-LABEL: tile.func private @gather_and_histogram(
// CHECK-SAME: %[[S:[^:]*]]: tensor<16x32xf32>, %[[I:[^:]*]]: tensor<16x8xi64>, %[[X:[^:]*]]: tensor<1024xi8>, %[[M:[^:]*]]: tensor<1024xi1>)
// CHECK-NEXT: %{{.*}} = tile.gather %[[S]][%[[I]]] axis = 1 : tensor<16x32xf32>, tensor<16x8xi64> -> tensor<16x8xf32>
// CHECK-NEXT: %{{.*}} = tile.histogram %[[X]] : tensor<1024xi8> -> tensor<256xi32>
// CHECK-NEXT: %{{.*}} = tile.histogram %[[X]], mask %[[M]] : tensor<1024xi8>, tensor<1024xi1> -> tensor<64xi32>
// GENERIC-LABEL: sym_name = "gather_and_histogram"
// GENERIC: "tile.gather"(%{{.*}}, %{{.*}}) <{axis = 1 : i32}> : (tensor<16x32xf32>, tensor<16x8xi64>) -> tensor<16x8xf32>
// GENERIC: "tile.histogram"(%{{.*}}) : (tensor<1024xi8>) -> tensor<256xi32>
// GENERIC: "tile.histogram"(%{{.*}}, %{{.*}}) : (tensor<1024xi8>, tensor<1024xi1>) -> tensor<64xi32>
tile.func private @gather_and_histogram(%src: tensor<16x32xf32>, %idx: tensor<16x8xi64>,
                                        %x: tensor<1024xi8>, %m: tensor<1024xi1>) {
  %g = tile.gather %src[%idx] axis = 1 : tensor<16x32xf32>, tensor<16x8xi64> -> tensor<16x8xf32>
  %h = tile.histogram %x : tensor<1024xi8> -> tensor<256xi32>
  %hm = tile.histogram %x, mask %m : tensor<1024xi8>, tensor<1024xi1> -> tensor<64xi32>
  tile.return
}
