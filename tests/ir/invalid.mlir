// RUN: tessera-opt %s -split-input-file -verify-diagnostics -allow-unregistered-dialect

// One case per verifier message of the tile dialect, per ODS constraint that
// tile code can break, and per parser error that used to be a crash.

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

// expected-error @+1 {{pointee of !tile.ptr must be i1, i8, i16, i32, i64, f8E4M3FN, f8E5M2, f16, bf16, f32 or f64, got 'tensor<4xf32>'}}
tile.func private @ptr_to_tensor(%p: !tile.ptr<tensor<4xf32>>)

// -----

// expected-error @+1 {{pointee of !tile.ptr must be i1, i8, i16, i32, i64, f8E4M3FN, f8E5M2, f16, bf16, f32 or f64, got 'index'}}
tile.func private @ptr_to_index(%p: !tile.ptr<index>)

// -----

// expected-error @+1 {{pointee of !tile.ptr must be i1, i8, i16, i32, i64, f8E4M3FN, f8E5M2, f16, bf16, f32 or f64, got '!tile.ptr<f32>'}}
tile.func private @ptr_to_ptr(%p: !tile.ptr<!tile.ptr<f32>>)

// -----

// expected-error @+1 {{block of a tensor descriptor must have a static shape, got 'tensor<?x32xf16>'}}
tile.func private @desc_dynamic(%d: !tile.tensordesc<tensor<?x32xf16>>)

// -----

// expected-error @+1 {{block of a tensor descriptor must have rank 1 to 5, got rank 0}}
tile.func private @desc_rank0(%d: !tile.tensordesc<tensor<f16>>)

// -----

// expected-error @+1 {{block of a tensor descriptor must have rank 1 to 5, got rank 6}}
tile.func private @desc_rank6(%d: !tile.tensordesc<tensor<2x2x2x2x2x2xf16>>)

// -----

// expected-error @+1 {{block element type must be i1, i8, i16, i32, i64, f8E4M3FN, f8E5M2, f16, bf16, f32 or f64, got '!tile.ptr<f16>'}}
tile.func private @desc_of_ptrs(%d: !tile.tensordesc<tensor<4x!tile.ptr<f16>>>)

// -----

//===----------------------------------------------------------------------===//
// Functions, arguments, calls
//===----------------------------------------------------------------------===//

// expected-error @+1 {{'tile.func' op kernel argument #1 must be a scalar, a !tile.ptr or a !tile.tensordesc, got 'tensor<64xf32>' (tiles are passed to device functions only)}}
tile.func @kernel_takes_tile(%p: !tile.ptr<f32>, %x: tensor<64xf32>) {
  tile.return
}

// -----

// expected-error @+1 {{'tile.func' op kernel argument #0 must be a scalar, a !tile.ptr or a !tile.tensordesc, got 'index'}}
tile.func @kernel_takes_index(%i: index) {
  tile.return
}

// -----

tile.func private @returns_too_few(%x: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{'tile.return' op returns 0 value(s) but @returns_too_few declares 1}}
  tile.return
}

// -----

tile.func private @returns_too_many(%x: tensor<64xf32>) {
  // expected-error @+1 {{'tile.return' op returns 1 value(s) but @returns_too_many declares 0}}
  tile.return %x : tensor<64xf32>
}

// -----

tile.func private @returns_wrong_type(%x: tensor<64xf32>) -> tensor<64xf16> {
  // expected-error @+1 {{'tile.return' op returned value #0 has type 'tensor<64xf32>' but @returns_wrong_type declares 'tensor<64xf16>'}}
  tile.return %x : tensor<64xf32>
}

// -----

// expected-error @+1 {{'tile.return' op expects parent op 'tile.func'}}
tile.return

// -----

tile.func @calls_nothing(%n: i32) {
  // expected-error @+1 {{'tile.call' op calls @missing, which is not a tile.func}}
  tile.call @missing(%n) : (i32) -> ()
  tile.return
}

// -----

module @not_a_function {
}
tile.func @calls_a_module(%n: i32) {
  // expected-error @+1 {{'tile.call' op calls @not_a_function, which is not a tile.func}}
  tile.call @not_a_function(%n) : (i32) -> ()
  tile.return
}

// -----

tile.func private @callee(%x: tensor<64xf32>) -> tensor<64xf32> {
  tile.return %x : tensor<64xf32>
}
tile.func private @wrong_operands(%x: tensor<32xf32>) {
  // expected-error @+1 {{'tile.call' op operand types do not match the signature of @callee: '(tensor<64xf32>) -> tensor<64xf32>'}}
  %y = tile.call @callee(%x) : (tensor<32xf32>) -> tensor<64xf32>
  tile.return
}

// -----

tile.func private @callee(%x: tensor<64xf32>) -> tensor<64xf32> {
  tile.return %x : tensor<64xf32>
}
tile.func private @wrong_results(%x: tensor<64xf32>) {
  // expected-error @+1 {{'tile.call' op result types do not match the signature of @callee: '(tensor<64xf32>) -> tensor<64xf32>'}}
  %y = tile.call @callee(%x) : (tensor<64xf32>) -> tensor<64xf16>
  tile.return
}

// -----

tile.func private @callee(%x: tensor<64xf32>) -> tensor<64xf32> {
  tile.return %x : tensor<64xf32>
}
tile.func private @missing_operand() {
  // expected-error @+1 {{'tile.call' op operand types do not match the signature of @callee}}
  %y = tile.call @callee() : () -> tensor<64xf32>
  tile.return
}

// -----

// expected-error @+1 {{argument #0: 'tile.divisibility' must be a positive power-of-two integer, got 12 : i32}}
tile.func @divisibility_not_pow2(%p: !tile.ptr<f32> {tile.divisibility = 12 : i32}) {
  tile.return
}

// -----

// expected-error @+1 {{argument #1: 'tile.divisibility' must be a positive power-of-two integer, got 0 : i32}}
tile.func @divisibility_zero(%p: !tile.ptr<f32>, %n: i32 {tile.divisibility = 0 : i32}) {
  tile.return
}

// -----

// expected-error @+1 {{argument #0: 'tile.divisibility' must be a positive power-of-two integer, got -16 : i32}}
tile.func @divisibility_negative(%n: i32 {tile.divisibility = -16 : i32}) {
  tile.return
}

// -----

// expected-error @+1 {{argument #0: 'tile.divisibility' must be a positive power-of-two integer, got "16"}}
tile.func @divisibility_string(%n: i32 {tile.divisibility = "16"}) {
  tile.return
}

// -----

// expected-error @+1 {{argument #0: 'tile.divisibility' applies to integers and pointers, not 'f32'}}
tile.func @divisibility_on_float(%x: f32 {tile.divisibility = 16 : i32}) {
  tile.return
}

// -----

// expected-error @+1 {{argument #0: 'tile.divisibility' applies to integers and pointers, not 'tensor<64xi32>'}}
tile.func private @divisibility_on_tile(%x: tensor<64xi32> {tile.divisibility = 16 : i32}) {
  tile.return
}

// -----

// expected-error @+1 {{argument #0: 'tile.equal_to_1' is a unit attribute on integer arguments}}
tile.func @equal_to_1_on_float(%x: f32 {tile.equal_to_1}) {
  tile.return
}

// -----

// expected-error @+1 {{argument #0: 'tile.equal_to_1' is a unit attribute on integer arguments}}
tile.func @equal_to_1_on_pointer(%p: !tile.ptr<i32> {tile.equal_to_1}) {
  tile.return
}

// -----

// expected-error @+1 {{argument #0: 'tile.equal_to_1' is a unit attribute on integer arguments}}
tile.func @equal_to_1_with_value(%n: i32 {tile.equal_to_1 = 1 : i32}) {
  tile.return
}

// -----

// expected-error @+1 {{argument #1: unknown tile argument attribute 'tile.aligned'}}
tile.func @unknown_arg_attr(%p: !tile.ptr<f32>, %n: i32 {tile.aligned = 16 : i32}) {
  tile.return
}

// -----

//===----------------------------------------------------------------------===//
// Making and reshaping tiles
//===----------------------------------------------------------------------===//

tile.func @range_empty() {
  // expected-error @+1 {{'tile.make_range' op end (0) must be greater than start (0)}}
  %r = tile.make_range 0 to 0 : tensor<0xi32>
  tile.return
}

// -----

tile.func @range_backwards() {
  // expected-error @+1 {{'tile.make_range' op end (16) must be greater than start (32)}}
  %r = tile.make_range 32 to 16 : tensor<16xi32>
  tile.return
}

// -----

tile.func @range_wrong_size() {
  // expected-error @+1 {{'tile.make_range' op result must be a 1-D tile of 64 elements, got 'tensor<128xi32>'}}
  %r = tile.make_range 0 to 64 : tensor<128xi32>
  tile.return
}

// -----

tile.func @range_2d() {
  // expected-error @+1 {{'tile.make_range' op result must be a 1-D tile of 64 elements, got 'tensor<8x8xi32>'}}
  %r = tile.make_range 0 to 64 : tensor<8x8xi32>
  tile.return
}

// -----

tile.func @range_unranked() {
  // expected-error @+1 {{'tile.make_range' op result must be a 1-D tile of 4 elements, got 'tensor<*xi32>'}}
  %r = tile.make_range 0 to 4 : tensor<*xi32>
  tile.return
}

// -----

tile.func @range_negative_start() {
  // Bounds are signed: -4 to 4 holds 8 elements.
  // expected-error @+1 {{'tile.make_range' op result must be a 1-D tile of 8 elements, got 'tensor<4xi32>'}}
  %r = tile.make_range -4 to 4 : tensor<4xi32>
  tile.return
}

// -----

tile.func @range_i64() {
  // expected-error @+1 {{'tile.make_range' op result #0 must be tensor of 32-bit signless integer values, but got 'tensor<4xi64>'}}
  %r = tile.make_range 0 to 4 : tensor<4xi64>
  tile.return
}

// -----

tile.func private @splat_wrong_element(%x: f32) {
  // expected-error @+1 {{'tile.splat' op failed to verify that source is the element type of the result}}
  %t = tile.splat %x : f32 -> tensor<4xi32>
  tile.return
}

// -----

tile.func private @splat_to_scalar(%x: f32) {
  // The result of a splat is parsed as a tensor type.
  // expected-error @+1 {{custom op 'tile.splat' invalid kind of type specified: expected builtin.tensor, but found 'f32'}}
  %t = tile.splat %x : f32 -> f32
  tile.return
}

// -----

tile.func private @splat_dynamic(%x: f32) {
  // expected-error @+1 {{'tile.splat' op result #0 must be statically shaped tensor of}}
  %t = tile.splat %x : f32 -> tensor<?xf32>
  tile.return
}

// -----

tile.func private @broadcast_rank(%x: tensor<64xf32>) {
  // expected-error @+1 {{'tile.broadcast' op operand rank (1) must equal result rank (2); use tile.expand_dims to add dimensions first}}
  %b = tile.broadcast %x : tensor<64xf32> -> tensor<32x64xf32>
  tile.return
}

// -----

tile.func private @broadcast_dim(%x: tensor<2x64xf32>) {
  // expected-error @+1 {{'tile.broadcast' op dimension 0 of the operand (2) must equal the result's (32) or be 1}}
  %b = tile.broadcast %x : tensor<2x64xf32> -> tensor<32x64xf32>
  tile.return
}

// -----

tile.func private @broadcast_element(%x: tensor<1x64xf32>) {
  // expected-error @+1 {{'tile.broadcast' op requires the same element type for all operands and results}}
  %b = tile.broadcast %x : tensor<1x64xf32> -> tensor<32x64xf16>
  tile.return
}

// -----

tile.func private @expand_dims_axis(%x: tensor<32xf32>) {
  // expected-error @+1 {{'tile.expand_dims' op axis 2 is out of range [0, 2)}}
  %e = tile.expand_dims %x, axis = 2 : tensor<32xf32> -> tensor<32x1xf32>
  tile.return
}

// -----

tile.func private @expand_dims_negative_axis(%x: tensor<32xf32>) {
  // expected-error @+1 {{'tile.expand_dims' op axis -1 is out of range [0, 2)}}
  %e = tile.expand_dims %x, axis = -1 : tensor<32xf32> -> tensor<32x1xf32>
  tile.return
}

// -----

tile.func private @expand_dims_shape(%x: tensor<32xf32>) {
  // expected-error @+1 {{'tile.expand_dims' op result shape must be [1, 32], got [32, 1]}}
  %e = tile.expand_dims %x, axis = 0 : tensor<32xf32> -> tensor<32x1xf32>
  tile.return
}

// -----

tile.func private @reshape_count(%x: tensor<4x16xf32>) {
  // expected-error @+1 {{'tile.reshape' op operand has 64 elements but result 'tensor<8x16xf32>' has 128}}
  %r = tile.reshape %x : tensor<4x16xf32> -> tensor<8x16xf32>
  tile.return
}

// -----

tile.func private @reshape_element(%x: tensor<4x16xf32>) {
  // expected-error @+1 {{'tile.reshape' op requires the same element type for all operands and results}}
  %r = tile.reshape %x allow_reorder : tensor<4x16xf32> -> tensor<64xi32>
  tile.return
}

// -----

tile.func private @trans_order_size(%x: tensor<32x64xf32>) {
  // expected-error @+1 {{'tile.trans' op order has 3 entries but the operand has rank 2}}
  %t = tile.trans %x, order = [2, 1, 0] : tensor<32x64xf32> -> tensor<64x32xf32>
  tile.return
}

// -----

tile.func private @trans_not_permutation(%x: tensor<32x64xf32>) {
  // expected-error @+1 {{'tile.trans' op order must be a permutation of 0..1}}
  %t = tile.trans %x, order = [1, 1] : tensor<32x64xf32> -> tensor<64x64xf32>
  tile.return
}

// -----

tile.func private @trans_out_of_range(%x: tensor<32x64xf32>) {
  // expected-error @+1 {{'tile.trans' op order must be a permutation of 0..1}}
  %t = tile.trans %x, order = [0, 2] : tensor<32x64xf32> -> tensor<32x64xf32>
  tile.return
}

// -----

tile.func private @trans_shape(%x: tensor<32x64xf32>) {
  // expected-error @+1 {{'tile.trans' op result shape must be [64, 32], got [32, 64]}}
  %t = tile.trans %x, order = [1, 0] : tensor<32x64xf32> -> tensor<32x64xf32>
  tile.return
}

// -----

tile.func private @join_shape(%x: tensor<64xf32>) {
  // expected-error @+1 {{'tile.join' op result shape must be [64, 2], got [2, 64]}}
  %j = tile.join %x, %x : tensor<64xf32> -> tensor<2x64xf32>
  tile.return
}

// -----

tile.func private @join_element(%x: tensor<64xf32>) {
  // expected-error @+1 {{'tile.join' op result element type must match the operands'}}
  %j = tile.join %x, %x : tensor<64xf32> -> tensor<64x2xf16>
  tile.return
}

// -----

tile.func private @join_operand_types(%x: tensor<64xf32>, %y: tensor<64xf16>) {
  // expected-error @+1 {{'tile.join' op failed to verify that all of {lhs, rhs} have same type}}
  %j = "tile.join"(%x, %y) : (tensor<64xf32>, tensor<64xf16>) -> tensor<64x2xf32>
  tile.return
}

// -----

tile.func private @join_operand_types_custom(%x: tensor<64xf32>, %y: tensor<64xf16>) {
  // The custom form types `rhs` from `lhs`.
  // expected-note @-2 {{prior use here}}
  // expected-error @+1 {{use of value '%y' expects different type than prior uses: 'tensor<64xf32>' vs 'tensor<64xf16>'}}
  %j = tile.join %x, %y : tensor<64xf32> -> tensor<64x2xf32>
  tile.return
}

// -----

tile.func private @split_minor_not_2(%x: tensor<64x4xf32>) {
  // expected-error @+1 {{'tile.split' op operand must have rank 2 or more and a minor dimension of 2, got [64, 4]}}
  %a, %b = tile.split %x : tensor<64x4xf32> -> tensor<64xf32>
  tile.return
}

// -----

tile.func private @split_rank1(%x: tensor<2xf32>) {
  // expected-error @+1 {{'tile.split' op operand must have rank 2 or more and a minor dimension of 2, got [2]}}
  %a, %b = tile.split %x : tensor<2xf32> -> tensor<f32>
  tile.return
}

// -----

tile.func private @split_result_shape(%x: tensor<64x2xf32>) {
  // expected-error @+1 {{'tile.split' op results must be tiles of shape [64] and the operand's element type}}
  %a, %b = tile.split %x : tensor<64x2xf32> -> tensor<32xf32>
  tile.return
}

// -----

tile.func private @split_result_element(%x: tensor<64x2xf32>) {
  // expected-error @+1 {{'tile.split' op results must be tiles of shape [64] and the operand's element type}}
  %a, %b = tile.split %x : tensor<64x2xf32> -> tensor<64xi32>
  tile.return
}

// -----

tile.func private @cat_axis(%x: tensor<32x8xf32>) {
  // expected-error @+1 {{'tile.cat' op axis 2 is out of range [0, 2)}}
  %c = tile.cat %x, %x, axis = 2 : tensor<32x8xf32> -> tensor<32x16xf32>
  tile.return
}

// -----

tile.func private @cat_negative_axis(%x: tensor<32x8xf32>) {
  // expected-error @+1 {{'tile.cat' op axis -1 is out of range [0, 2)}}
  %c = tile.cat %x, %x, axis = -1 : tensor<32x8xf32> -> tensor<32x16xf32>
  tile.return
}

// -----

tile.func private @cat_shape(%x: tensor<32x8xf32>) {
  // expected-error @+1 {{'tile.cat' op result shape must be [64, 8], got [32, 16]}}
  %c = tile.cat %x, %x, axis = 0 : tensor<32x8xf32> -> tensor<32x16xf32>
  tile.return
}

// -----

tile.func private @cat_element(%x: tensor<32x8xf32>) {
  // expected-error @+1 {{'tile.cat' op result element type must match the operands'}}
  %c = tile.cat %x, %x, axis = 1 : tensor<32x8xf32> -> tensor<32x16xbf16>
  tile.return
}

// -----

tile.func private @cat_operand_types(%x: tensor<32x8xf32>, %y: tensor<16x8xf32>) {
  // expected-error @+1 {{'tile.cat' op failed to verify that all of {lhs, rhs} have same type}}
  %c = "tile.cat"(%x, %y) <{axis = 0 : i32}> : (tensor<32x8xf32>, tensor<16x8xf32>) -> tensor<48x8xf32>
  tile.return
}

// -----

//===----------------------------------------------------------------------===//
// Pointers
//===----------------------------------------------------------------------===//

tile.func private @addptr_tile_scalar(%p: tensor<64x!tile.ptr<f32>>, %o: i32) {
  // expected-error @+1 {{'tile.addptr' op a tile of pointers needs a tile of offsets; splat the offset first}}
  %q = tile.addptr %p, %o : tensor<64x!tile.ptr<f32>>, i32
  tile.return
}

// -----

tile.func private @addptr_scalar_tile(%p: !tile.ptr<f32>, %o: tensor<64xi32>) {
  // expected-error @+1 {{'tile.addptr' op a scalar pointer needs a scalar offset; splat the pointer first}}
  %q = tile.addptr %p, %o : !tile.ptr<f32>, tensor<64xi32>
  tile.return
}

// -----

tile.func private @addptr_shape(%p: tensor<64x!tile.ptr<f32>>, %o: tensor<32xi32>) {
  // expected-error @+1 {{'tile.addptr' op offset shape [32] must match the pointer shape [64]}}
  %q = tile.addptr %p, %o : tensor<64x!tile.ptr<f32>>, tensor<32xi32>
  tile.return
}

// -----

tile.func private @addptr_float_offset(%p: !tile.ptr<f32>, %o: f32) {
  // expected-error @+1 {{'tile.addptr' op operand #1 must be}}
  %q = tile.addptr %p, %o : !tile.ptr<f32>, f32
  tile.return
}

// -----

tile.func private @addptr_not_a_pointer(%p: tensor<64xi64>, %o: tensor<64xi32>) {
  // expected-error @+1 {{'tile.addptr' op operand #0 must be tile pointer or statically shaped tensor of tile pointer values, but got 'tensor<64xi64>'}}
  %q = tile.addptr %p, %o : tensor<64xi64>, tensor<64xi32>
  tile.return
}

// -----

tile.func private @bitcast_shape(%p: tensor<64x!tile.ptr<f32>>) {
  // expected-error @+1 {{'tile.bitcast' op requires the same shape for all operands and results}}
  %q = tile.bitcast %p : tensor<64x!tile.ptr<f32>> -> tensor<32x!tile.ptr<i32>>
  tile.return
}

// -----

tile.func private @bitcast_not_pointer(%x: f32) {
  // expected-error @+1 {{'tile.bitcast' op operand #0 must be tile pointer or statically shaped tensor of tile pointer values, but got 'f32'}}
  %q = tile.bitcast %x : f32 -> !tile.ptr<i32>
  tile.return
}

// -----

tile.func private @int_to_ptr_i32(%a: i32) {
  // expected-error @+1 {{'tile.int_to_ptr' op operand #0 must be 64-bit signless integer or tensor of 64-bit signless integer values, but got 'i32'}}
  %p = tile.int_to_ptr %a : i32 -> !tile.ptr<f32>
  tile.return
}

// -----

tile.func private @ptr_to_int_i32(%p: !tile.ptr<f32>) {
  // expected-error @+1 {{'tile.ptr_to_int' op result #0 must be 64-bit signless integer or tensor of 64-bit signless integer values, but got 'i32'}}
  %a = tile.ptr_to_int %p : !tile.ptr<f32> -> i32
  tile.return
}

// -----

//===----------------------------------------------------------------------===//
// Loads and stores
//===----------------------------------------------------------------------===//

tile.func private @load_other_without_mask(%p: tensor<128x!tile.ptr<f32>>, %z: tensor<128xf32>) {
  // expected-error @+1 {{'tile.load' op 'other' is only meaningful with a mask}}
  %v = "tile.load"(%p, %z) <{operandSegmentSizes = array<i32: 1, 0, 1>}> : (tensor<128x!tile.ptr<f32>>, tensor<128xf32>) -> tensor<128xf32>
  tile.return
}

// -----

tile.func private @load_mask_shape(%p: tensor<128x!tile.ptr<f32>>, %m: tensor<64xi1>) {
  // expected-error @+1 {{'tile.load' op failed to verify that mask is an i1 tile shaped like ptr}}
  %v = "tile.load"(%p, %m) <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<128x!tile.ptr<f32>>, tensor<64xi1>) -> tensor<128xf32>
  tile.return
}

// -----

tile.func private @load_mask_shape_custom(%p: tensor<128x!tile.ptr<f32>>, %m: tensor<64xi1>) {
  // The custom form types the mask from the pointer.
  // expected-note @-2 {{prior use here}}
  // expected-error @+1 {{use of value '%m' expects different type than prior uses: 'tensor<128xi1>' vs 'tensor<64xi1>'}}
  %v = tile.load %p, %m : tensor<128x!tile.ptr<f32>>
  tile.return
}

// -----

tile.func private @load_mask_scalar_for_tile(%p: tensor<128x!tile.ptr<f32>>, %m: i1) {
  // expected-error @+1 {{'tile.load' op failed to verify that mask is an i1 tile shaped like ptr}}
  %v = "tile.load"(%p, %m) <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<128x!tile.ptr<f32>>, i1) -> tensor<128xf32>
  tile.return
}

// -----

tile.func private @load_other_type(%p: tensor<128x!tile.ptr<f32>>, %m: tensor<128xi1>, %z: tensor<128xf16>) {
  // expected-error @+1 {{'tile.load' op failed to verify that other is shaped like the result}}
  %v = "tile.load"(%p, %m, %z) <{operandSegmentSizes = array<i32: 1, 1, 1>}> : (tensor<128x!tile.ptr<f32>>, tensor<128xi1>, tensor<128xf16>) -> tensor<128xf32>
  tile.return
}

// -----

tile.func private @load_result_type(%p: tensor<128x!tile.ptr<f32>>) {
  // expected-error @+1 {{'tile.load' op failed to verify that result is the pointee of ptr}}
  %v = "tile.load"(%p) <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (tensor<128x!tile.ptr<f32>>) -> tensor<128xf16>
  tile.return
}

// -----

tile.func private @load_from_values(%x: tensor<128xf32>) {
  // expected-error @+1 {{custom op 'tile.load' 'ptr' must be tile pointer or statically shaped tensor of tile pointer values, but got 'tensor<128xf32>'}}
  %v = tile.load %x : tensor<128xf32>
  tile.return
}

// -----

tile.func private @load_bad_cache(%p: !tile.ptr<f32>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'cache' [none, ca, cg, cs, cv, wb, wt]}}
  %v = tile.load %p cache = l2 : !tile.ptr<f32>
  tile.return
}

// -----

tile.func private @store_value_type(%p: tensor<128x!tile.ptr<f32>>, %v: tensor<128xf16>) {
  // expected-error @+1 {{'tile.store' op failed to verify that value is the pointee of ptr}}
  "tile.store"(%p, %v) : (tensor<128x!tile.ptr<f32>>, tensor<128xf16>) -> ()
  tile.return
}

// -----

tile.func private @store_mask_shape(%p: tensor<128x!tile.ptr<f32>>, %v: tensor<128xf32>, %m: tensor<128x1xi1>) {
  // expected-error @+1 {{'tile.store' op failed to verify that mask is an i1 tile shaped like ptr}}
  "tile.store"(%p, %v, %m) : (tensor<128x!tile.ptr<f32>>, tensor<128xf32>, tensor<128x1xi1>) -> ()
  tile.return
}

// -----

tile.func private @store_mask_not_bool(%p: tensor<128x!tile.ptr<f32>>, %v: tensor<128xf32>, %m: tensor<128xi8>) {
  // expected-error @+1 {{'tile.store' op operand #2 must be}}
  "tile.store"(%p, %v, %m) : (tensor<128x!tile.ptr<f32>>, tensor<128xf32>, tensor<128xi8>) -> ()
  tile.return
}

// -----

//===----------------------------------------------------------------------===//
// Tensor descriptors
//===----------------------------------------------------------------------===//

tile.func @desc_element(%a: !tile.ptr<f32>, %m: i32, %k: i32, %s: i64) {
  // expected-error @+1 {{'tile.make_tensor_descriptor' op base points to 'f32' but the block holds 'f16'}}
  %d = tile.make_tensor_descriptor %a, [%m, %k], [%s, %s] : !tile.ptr<f32> -> !tile.tensordesc<tensor<64x32xf16>>
  tile.return
}

// -----

tile.func @desc_rank_shape(%a: !tile.ptr<f16>, %m: i32, %s: i64) {
  // expected-error @+1 {{'tile.make_tensor_descriptor' op a rank-2 block needs 2 sizes and 2 strides, got 1 and 2}}
  %d = tile.make_tensor_descriptor %a, [%m], [%s, %s] : !tile.ptr<f16> -> !tile.tensordesc<tensor<64x32xf16>>
  tile.return
}

// -----

tile.func @desc_rank_strides(%a: !tile.ptr<f16>, %m: i32, %s: i64) {
  // expected-error @+1 {{'tile.make_tensor_descriptor' op a rank-2 block needs 2 sizes and 2 strides, got 2 and 3}}
  %d = tile.make_tensor_descriptor %a, [%m, %m], [%s, %s, %s] : !tile.ptr<f16> -> !tile.tensordesc<tensor<64x32xf16>>
  tile.return
}

// -----

tile.func private @desc_base_tile(%a: tensor<4x!tile.ptr<f16>>, %m: i32, %s: i64) {
  // expected-error @+1 {{'tile.make_tensor_descriptor' op operand #0 must be tile pointer, but got 'tensor<4x!tile.ptr<f16>>'}}
  %d = tile.make_tensor_descriptor %a, [%m], [%s] : tensor<4x!tile.ptr<f16>> -> !tile.tensordesc<tensor<64xf16>>
  tile.return
}

// -----

tile.func @desc_load_offsets(%d: !tile.tensordesc<tensor<64x32xf16>>, %i: i32) {
  // expected-error @+1 {{'tile.descriptor_load' op a rank-2 descriptor needs 2 offsets, got 1}}
  %b = tile.descriptor_load %d[%i] : !tile.tensordesc<tensor<64x32xf16>>
  tile.return
}

// -----

tile.func @desc_load_result(%d: !tile.tensordesc<tensor<64x32xf16>>, %i: i32) {
  // expected-error @+1 {{'tile.descriptor_load' op failed to verify that result is the block of the descriptor}}
  %b = "tile.descriptor_load"(%d, %i, %i) : (!tile.tensordesc<tensor<64x32xf16>>, i32, i32) -> tensor<32x64xf16>
  tile.return
}

// -----

tile.func @desc_load_not_desc(%p: !tile.ptr<f16>, %i: i32) {
  // expected-error @+1 {{custom op 'tile.descriptor_load' 'desc' must be tile tensor descriptor, but got '!tile.ptr<f16>'}}
  %b = tile.descriptor_load %p[%i] : !tile.ptr<f16>
  tile.return
}

// -----

tile.func private @desc_store_offsets(%d: !tile.tensordesc<tensor<64x32xf16>>, %i: i32, %v: tensor<64x32xf16>) {
  // expected-error @+1 {{'tile.descriptor_store' op a rank-2 descriptor needs 2 offsets, got 3}}
  tile.descriptor_store %d[%i, %i, %i], %v : !tile.tensordesc<tensor<64x32xf16>>
  tile.return
}

// -----

tile.func private @desc_store_value(%d: !tile.tensordesc<tensor<64x32xf16>>, %i: i32, %v: tensor<64x32xf32>) {
  // expected-error @+1 {{'tile.descriptor_store' op failed to verify that value is the block of the descriptor}}
  "tile.descriptor_store"(%d, %i, %i, %v) : (!tile.tensordesc<tensor<64x32xf16>>, i32, i32, tensor<64x32xf32>) -> ()
  tile.return
}

// -----

//===----------------------------------------------------------------------===//
// dot
//===----------------------------------------------------------------------===//

tile.func private @dot_rank1(%a: tensor<32xf16>, %b: tensor<32xf16>, %c: tensor<32xf32>) {
  // expected-error @+1 {{'tile.dot' op operands and accumulator must all have rank 2 (or 3 with a batch dimension), got ranks 1, 1 and 1}}
  %d = tile.dot %a, %b, %c : tensor<32xf16> * tensor<32xf16> -> tensor<32xf32>
  tile.return
}

// -----

tile.func private @dot_rank_mismatch(%a: tensor<2x16x32xf16>, %b: tensor<32x16xf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{'tile.dot' op operands and accumulator must all have rank 2 (or 3 with a batch dimension), got ranks 3, 2 and 2}}
  %d = tile.dot %a, %b, %c : tensor<2x16x32xf16> * tensor<32x16xf16> -> tensor<16x16xf32>
  tile.return
}

// -----

tile.func private @dot_rank4(%a: tensor<2x2x16x16xf16>, %c: tensor<2x2x16x16xf32>) {
  // expected-error @+1 {{'tile.dot' op operands and accumulator must all have rank 2 (or 3 with a batch dimension), got ranks 4, 4 and 4}}
  %d = tile.dot %a, %a, %c : tensor<2x2x16x16xf16> * tensor<2x2x16x16xf16> -> tensor<2x2x16x16xf32>
  tile.return
}

// -----

tile.func private @dot_k(%a: tensor<64x32xf16>, %b: tensor<16x64xf16>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.dot' op K of a [64, 32] (32) must equal K of b [16, 64] (16)}}
  %d = tile.dot %a, %b, %c : tensor<64x32xf16> * tensor<16x64xf16> -> tensor<64x64xf32>
  tile.return
}

// -----

tile.func private @dot_acc_shape(%a: tensor<64x32xf16>, %b: tensor<32x16xf16>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.dot' op accumulator shape [64, 64] must be [M, N] = [64, 16]}}
  %d = tile.dot %a, %b, %c : tensor<64x32xf16> * tensor<32x16xf16> -> tensor<64x64xf32>
  tile.return
}

// -----

tile.func private @dot_batch(%a: tensor<4x16x32xf16>, %b: tensor<2x32x8xf16>, %c: tensor<4x16x8xf32>) {
  // expected-error @+1 {{'tile.dot' op batch dimensions differ: 4, 2, 4}}
  %d = tile.dot %a, %b, %c : tensor<4x16x32xf16> * tensor<2x32x8xf16> -> tensor<4x16x8xf32>
  tile.return
}

// -----

tile.func private @dot_mixed_operands(%a: tensor<16x16xf16>, %b: tensor<16x16xbf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{'tile.dot' op a and b must have one element type (or be two fp8 types), got 'f16' and 'bf16'}}
  %d = tile.dot %a, %b, %c : tensor<16x16xf16> * tensor<16x16xbf16> -> tensor<16x16xf32>
  tile.return
}

// -----

tile.func private @dot_f16_to_i32(%a: tensor<16x16xf16>, %c: tensor<16x16xi32>) {
  // expected-error @+1 {{'tile.dot' op unsupported operand/accumulator types 'f16' -> 'i32' (supported: f16->f32|f16, bf16->f32, f32->f32, f64->f64, f8->f32|f16, i8->i32)}}
  %d = tile.dot %a, %a, %c : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xi32>
  tile.return
}

// -----

tile.func private @dot_bf16_to_bf16(%a: tensor<16x16xbf16>) {
  // expected-error @+1 {{'tile.dot' op unsupported operand/accumulator types 'bf16' -> 'bf16'}}
  %d = tile.dot %a, %a, %a : tensor<16x16xbf16> * tensor<16x16xbf16> -> tensor<16x16xbf16>
  tile.return
}

// -----

tile.func private @dot_f32_to_f16(%a: tensor<16x16xf32>, %c: tensor<16x16xf16>) {
  // expected-error @+1 {{'tile.dot' op unsupported operand/accumulator types 'f32' -> 'f16'}}
  %d = tile.dot %a, %a, %c : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf16>
  tile.return
}

// -----

tile.func private @dot_f64_to_f32(%a: tensor<16x16xf64>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{'tile.dot' op unsupported operand/accumulator types 'f64' -> 'f32'}}
  %d = tile.dot %a, %a, %c : tensor<16x16xf64> * tensor<16x16xf64> -> tensor<16x16xf32>
  tile.return
}

// -----

tile.func private @dot_f8_to_bf16(%a: tensor<16x16xf8E5M2>, %c: tensor<16x16xbf16>) {
  // expected-error @+1 {{'tile.dot' op unsupported operand/accumulator types 'f8E5M2' -> 'bf16'}}
  %d = tile.dot %a, %a, %c : tensor<16x16xf8E5M2> * tensor<16x16xf8E5M2> -> tensor<16x16xbf16>
  tile.return
}

// -----

tile.func private @dot_i8_to_f32(%a: tensor<16x16xi8>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{'tile.dot' op unsupported operand/accumulator types 'i8' -> 'f32'}}
  %d = tile.dot %a, %a, %c : tensor<16x16xi8> * tensor<16x16xi8> -> tensor<16x16xf32>
  tile.return
}

// -----

tile.func private @dot_i32(%a: tensor<16x16xi32>) {
  // expected-error @+1 {{'tile.dot' op unsupported operand/accumulator types 'i32' -> 'i32'}}
  %d = tile.dot %a, %a, %a : tensor<16x16xi32> * tensor<16x16xi32> -> tensor<16x16xi32>
  tile.return
}

// -----

tile.func private @dot_precision_f16(%a: tensor<16x16xf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{'tile.dot' op input_precision applies to f32 operands only}}
  %d = tile.dot %a, %a, %c input_precision = ieee : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
  tile.return
}

// -----

tile.func private @dot_acc_result(%a: tensor<16x16xf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{'tile.dot' op failed to verify that all of {acc, result} have same type}}
  %d = "tile.dot"(%a, %a, %c) : (tensor<16x16xf16>, tensor<16x16xf16>, tensor<16x16xf32>) -> tensor<16x16xf16>
  tile.return
}

// -----

tile.func private @dot_bad_precision(%a: tensor<16x16xf32>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'inputPrecision' [tf32, tf32x3, ieee]}}
  %d = tile.dot %a, %a, %a input_precision = bf16x3 : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32>
  tile.return
}

// -----

//===----------------------------------------------------------------------===//
// reduce and scan
//===----------------------------------------------------------------------===//

tile.func private @reduce_axis(%x: tensor<32x64xf32>) {
  // expected-error @+1 {{'tile.reduce' op axis 2 is out of range for an operand of rank 2}}
  %r = tile.reduce %x axis = 2 : tensor<32x64xf32> {
  ^bb0(%a: f32, %b: f32):
    tile.yield %a : f32
  }
  tile.return
}

// -----

tile.func private @reduce_negative_axis(%x: tensor<32xf32>) {
  // expected-error @+1 {{'tile.reduce' op axis -1 is out of range for an operand of rank 1}}
  %r = tile.reduce %x axis = -1 : tensor<32xf32> {
  ^bb0(%a: f32, %b: f32):
    tile.yield %a : f32
  }
  tile.return
}

// -----

tile.func private @reduce_scalar(%x: f32) {
  // expected-error @+1 {{'tile.reduce' op operands must be tiles, got 'f32'}}
  %r = tile.reduce %x axis = 0 : f32 {
  ^bb0(%a: f32, %b: f32):
    tile.yield %a : f32
  }
  tile.return
}

// -----

tile.func private @reduce_unranked(%x: tensor<*xf32>) {
  // expected-error @+1 {{'tile.reduce' op operands must be tiles, got 'tensor<*xf32>'}}
  %r = tile.reduce %x axis = 0 : tensor<*xf32> {
  ^bb0(%a: f32, %b: f32):
    tile.yield %a : f32
  }
  tile.return
}

// -----

tile.func private @reduce_no_operands() {
  // expected-error @+1 {{'tile.reduce' op expected 1 or more operands, but found 0}}
  "tile.reduce"() <{axis = 0 : i32}> ({
    "tile.yield"() : () -> ()
  }) : () -> ()
  tile.return
}

// -----

tile.func private @reduce_shapes_differ(%x: tensor<32xf32>, %i: tensor<64xi32>) {
  // expected-error @+1 {{'tile.reduce' op requires the same shape for all operands}}
  %r:2 = tile.reduce %x, %i axis = 0 : tensor<32xf32>, tensor<64xi32> {
  ^bb0(%a: f32, %ai: i32, %b: f32, %bi: i32):
    tile.yield %a, %ai : f32, i32
  }
  tile.return
}

// -----

tile.func private @reduce_arg_count(%x: tensor<32xf32>) {
  // expected-error @+1 {{'tile.reduce' op combining region must take 2 scalar arguments ('f32', 'f32'): the accumulated and the incoming element of each operand}}
  %r = tile.reduce %x axis = 0 : tensor<32xf32> {
  ^bb0(%a: f32):
    tile.yield %a : f32
  }
  tile.return
}

// -----

tile.func private @reduce_arg_type(%x: tensor<32xf32>) {
  // expected-error @+1 {{'tile.reduce' op combining region must take 2 scalar arguments ('f32', 'f32')}}
  %r = tile.reduce %x axis = 0 : tensor<32xf32> {
  ^bb0(%a: f16, %b: f16):
    tile.yield %a : f16
  }
  tile.return
}

// -----

tile.func private @reduce_arg_order(%x: tensor<32xf32>, %i: tensor<32xi32>) {
  // The arguments are all accumulated values first, then all incoming ones.
  // expected-error @+1 {{'tile.reduce' op combining region must take 4 scalar arguments ('f32', 'i32', 'f32', 'i32')}}
  %r:2 = tile.reduce %x, %i axis = 0 : tensor<32xf32>, tensor<32xi32> {
  ^bb0(%a: f32, %b: f32, %ai: i32, %bi: i32):
    tile.yield %a, %ai : f32, i32
  }
  tile.return
}

// -----

tile.func private @reduce_yield_type(%x: tensor<32xf32>) {
  %r = tile.reduce %x axis = 0 : tensor<32xf32> {
  ^bb0(%a: f32, %b: f32):
    %t = arith.truncf %a : f32 to f16
    // expected-error @+1 {{'tile.yield' op must yield 1 value(s) of the operand element types}}
    tile.yield %t : f16
  }
  tile.return
}

// -----

tile.func private @reduce_yield_count(%x: tensor<32xf32>) {
  %r = tile.reduce %x axis = 0 : tensor<32xf32> {
  ^bb0(%a: f32, %b: f32):
    // expected-error @+1 {{'tile.yield' op must yield 1 value(s) of the operand element types}}
    tile.yield %a, %b : f32, f32
  }
  tile.return
}

// -----

tile.func private @reduce_terminator(%x: tensor<32xf32>) {
  // expected-error @+1 {{'tile.reduce' op combining region must end in tile.yield}}
  %r = tile.reduce %x axis = 0 : tensor<32xf32> {
  ^bb0(%a: f32, %b: f32):
    "test.terminator"(%a) : (f32) -> ()
  }
  tile.return
}

// -----

tile.func private @reduce_result_type(%x: tensor<32x64xf32>) {
  // expected-error @+2 {{'tile.reduce' op inferred type(s) 'tensor<32xf32>' are incompatible with return type(s) of operation 'tensor<64xf32>'}}
  // expected-error @+1 {{'tile.reduce' op failed to infer returned types}}
  %r = "tile.reduce"(%x) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    "tile.yield"(%a) : (f32) -> ()
  }) : (tensor<32x64xf32>) -> tensor<64xf32>
  tile.return
}

// -----

tile.func private @scan_axis(%x: tensor<32xf32>) {
  // expected-error @+1 {{'tile.scan' op axis 1 is out of range for an operand of rank 1}}
  %r = tile.scan %x axis = 1 : tensor<32xf32> {
  ^bb0(%a: f32, %b: f32):
    tile.yield %a : f32
  }
  tile.return
}

// -----

tile.func private @scan_scalar(%x: i32) {
  // expected-error @+1 {{'tile.scan' op operands must be tiles, got 'i32'}}
  %r = tile.scan %x axis = 0 : i32 {
  ^bb0(%a: i32, %b: i32):
    tile.yield %a : i32
  }
  tile.return
}

// -----

tile.func private @scan_no_operands() {
  // expected-error @+1 {{'tile.scan' op expected 1 or more operands, but found 0}}
  "tile.scan"() <{axis = 0 : i32}> ({
    "tile.yield"() : () -> ()
  }) : () -> ()
  tile.return
}

// -----

tile.func private @scan_args(%x: tensor<32xi32>) {
  // expected-error @+1 {{'tile.scan' op combining region must take 2 scalar arguments ('i32', 'i32'): the accumulated and the incoming element of each operand}}
  %r = tile.scan %x axis = 0 reverse : tensor<32xi32> {
  ^bb0(%a: i32, %b: i32, %c: i32):
    tile.yield %a : i32
  }
  tile.return
}

// -----

tile.func private @scan_yield(%x: tensor<32xi32>) {
  %r = tile.scan %x axis = 0 : tensor<32xi32> {
  ^bb0(%a: i32, %b: i32):
    %w = arith.extsi %a : i32 to i64
    // expected-error @+1 {{'tile.yield' op must yield 1 value(s) of the operand element types}}
    tile.yield %w : i64
  }
  tile.return
}

// -----

tile.func private @scan_result_type(%x: tensor<32xf32>) {
  // expected-error @+1 {{'tile.scan' op requires the same shape for all operands and results}}
  %r = "tile.scan"(%x) <{axis = 0 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    "tile.yield"(%a) : (f32) -> ()
  }) : (tensor<32xf32>) -> tensor<16xf32>
  tile.return
}

// -----

tile.func private @yield_outside(%x: f32) {
  // expected-error @+1 {{'tile.yield' op expects parent op to be one of 'tile.reduce, tile.scan'}}
  tile.yield %x : f32
}

// -----

tile.func private @yield_tile(%x: tensor<32xf32>) {
  %r = tile.reduce %x axis = 0 : tensor<32xf32> {
  ^bb0(%a: f32, %b: f32):
    // expected-error @+1 {{'tile.yield' op operand #0 must be variadic of}}
    tile.yield %x : tensor<32xf32>
  }
  tile.return
}

// -----

//===----------------------------------------------------------------------===//
// Atomics
//===----------------------------------------------------------------------===//

tile.func private @fadd_on_ints(%p: tensor<64x!tile.ptr<i32>>, %v: tensor<64xi32>) {
  // expected-error @+1 {{'tile.atomic_rmw' op fadd needs float elements, got 'i32'; use add}}
  %o = tile.atomic_rmw fadd, relaxed, gpu, %p, %v : tensor<64x!tile.ptr<i32>>
  tile.return
}

// -----

tile.func private @add_on_floats(%p: tensor<64x!tile.ptr<f32>>, %v: tensor<64xf32>) {
  // expected-error @+1 {{'tile.atomic_rmw' op add needs integer elements, got 'f32'; use fadd}}
  %o = tile.atomic_rmw add, relaxed, gpu, %p, %v : tensor<64x!tile.ptr<f32>>
  tile.return
}

// -----

tile.func private @umax_on_floats(%p: !tile.ptr<f16>, %v: f16) {
  // expected-error @+1 {{'tile.atomic_rmw' op umax needs integer elements, got 'f16'}}
  %o = tile.atomic_rmw umax, relaxed, gpu, %p, %v : !tile.ptr<f16>
  tile.return
}

// -----

tile.func private @umin_on_floats(%p: !tile.ptr<f32>, %v: f32) {
  // expected-error @+1 {{'tile.atomic_rmw' op umin needs integer elements, got 'f32'}}
  %o = tile.atomic_rmw umin, relaxed, gpu, %p, %v : !tile.ptr<f32>
  tile.return
}

// -----

tile.func private @and_on_floats(%p: !tile.ptr<f32>, %v: f32) {
  // expected-error @+1 {{'tile.atomic_rmw' op and needs integer elements, got 'f32'}}
  %o = tile.atomic_rmw and, relaxed, gpu, %p, %v : !tile.ptr<f32>
  tile.return
}

// -----

tile.func private @or_on_floats(%p: !tile.ptr<f64>, %v: f64) {
  // expected-error @+1 {{'tile.atomic_rmw' op or needs integer elements, got 'f64'}}
  %o = tile.atomic_rmw or, relaxed, gpu, %p, %v : !tile.ptr<f64>
  tile.return
}

// -----

tile.func private @xor_on_floats(%p: !tile.ptr<bf16>, %v: bf16) {
  // expected-error @+1 {{'tile.atomic_rmw' op xor needs integer elements, got 'bf16'}}
  %o = tile.atomic_rmw xor, relaxed, gpu, %p, %v : !tile.ptr<bf16>
  tile.return
}

// -----

tile.func private @rmw_i8(%p: tensor<64x!tile.ptr<i8>>, %v: tensor<64xi8>) {
  // expected-error @+1 {{'tile.atomic_rmw' op atomics need 16-, 32- or 64-bit elements, got 'i8'}}
  %o = tile.atomic_rmw add, relaxed, gpu, %p, %v : tensor<64x!tile.ptr<i8>>
  tile.return
}

// -----

tile.func private @rmw_f8(%p: !tile.ptr<f8E4M3FN>, %v: f8E4M3FN) {
  // expected-error @+1 {{'tile.atomic_rmw' op atomics need 16-, 32- or 64-bit elements, got 'f8E4M3FN'}}
  %o = tile.atomic_rmw xchg, relaxed, gpu, %p, %v : !tile.ptr<f8E4M3FN>
  tile.return
}

// -----

tile.func private @rmw_i1(%p: !tile.ptr<i1>, %v: i1) {
  // expected-error @+1 {{'tile.atomic_rmw' op atomics need 16-, 32- or 64-bit elements, got 'i1'}}
  %o = tile.atomic_rmw max, relaxed, gpu, %p, %v : !tile.ptr<i1>
  tile.return
}

// -----

tile.func private @rmw_value_type(%p: tensor<64x!tile.ptr<f32>>, %v: tensor<64xf16>) {
  // expected-error @+1 {{'tile.atomic_rmw' op failed to verify that value is the pointee of ptr}}
  %o = "tile.atomic_rmw"(%p, %v) <{rmwOp = 1 : i32, sem = 0 : i32, scope = 0 : i32}> : (tensor<64x!tile.ptr<f32>>, tensor<64xf16>) -> tensor<64xf16>
  tile.return
}

// -----

tile.func private @rmw_mask(%p: tensor<64x!tile.ptr<f32>>, %v: tensor<64xf32>, %m: tensor<32xi1>) {
  // expected-error @+1 {{'tile.atomic_rmw' op failed to verify that mask is an i1 tile shaped like ptr}}
  %o = "tile.atomic_rmw"(%p, %v, %m) <{rmwOp = 1 : i32, sem = 0 : i32, scope = 0 : i32}> : (tensor<64x!tile.ptr<f32>>, tensor<64xf32>, tensor<32xi1>) -> tensor<64xf32>
  tile.return
}

// -----

tile.func private @rmw_bad_kind(%p: !tile.ptr<f32>, %v: f32) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'rmwOp' [add, fadd, max, umax, min, umin, and, or, xor, xchg]}}
  %o = tile.atomic_rmw fmul, relaxed, gpu, %p, %v : !tile.ptr<f32>
  tile.return
}

// -----

tile.func private @rmw_bad_semantic(%p: !tile.ptr<f32>, %v: f32) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'sem' [relaxed, acquire, release, acq_rel]}}
  %o = tile.atomic_rmw fadd, seq_cst, gpu, %p, %v : !tile.ptr<f32>
  tile.return
}

// -----

tile.func private @cas_i8(%p: !tile.ptr<i8>, %c: i8) {
  // expected-error @+1 {{'tile.atomic_cas' op atomics need 16-, 32- or 64-bit elements, got 'i8'}}
  %o = tile.atomic_cas acq_rel, gpu, %p, %c, %c : !tile.ptr<i8>
  tile.return
}

// -----

tile.func private @cas_tile_i1(%p: tensor<8x!tile.ptr<i1>>, %c: tensor<8xi1>) {
  // expected-error @+1 {{'tile.atomic_cas' op atomics need 16-, 32- or 64-bit elements, got 'i1'}}
  %o = tile.atomic_cas acq_rel, gpu, %p, %c, %c : tensor<8x!tile.ptr<i1>>
  tile.return
}

// -----

tile.func private @cas_cmp_type(%p: !tile.ptr<i32>, %c: i64, %v: i32) {
  // expected-error @+1 {{'tile.atomic_cas' op failed to verify that cmp is the pointee of ptr}}
  %o = "tile.atomic_cas"(%p, %c, %v) <{sem = 3 : i32, scope = 0 : i32}> : (!tile.ptr<i32>, i64, i32) -> i32
  tile.return
}

// -----

tile.func private @cas_bad_scope(%p: !tile.ptr<i32>, %c: i32) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'scope' [gpu, cta, sys]}}
  %o = tile.atomic_cas acq_rel, block, %p, %c, %c : !tile.ptr<i32>
  tile.return
}

// -----

//===----------------------------------------------------------------------===//
// Math, external calls, debugging
//===----------------------------------------------------------------------===//

tile.func private @clamp_ints(%x: tensor<64xi32>) {
  // expected-error @+1 {{'tile.clamp' op operand #0 must be}}
  %y = tile.clamp %x, %x, %x : tensor<64xi32>
  tile.return
}

// -----

tile.func private @clamp_types(%x: tensor<64xf32>, %lo: tensor<64xf16>) {
  // expected-error @+1 {{'tile.clamp' op requires the same type for all operands and results}}
  %y = "tile.clamp"(%x, %lo, %x) : (tensor<64xf32>, tensor<64xf16>, tensor<64xf32>) -> tensor<64xf32>
  tile.return
}

// -----

tile.func private @clamp_bad_nan(%x: f32) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'propagateNan' [none, all]}}
  %y = tile.clamp %x, %x, %x propagate_nan = some : f32
  tile.return
}

// -----

tile.func private @sqrt_ints(%x: i32) {
  // expected-error @+1 {{'tile.precise_sqrt' op operand #0 must be}}
  %y = tile.precise_sqrt %x : i32
  tile.return
}

// -----

tile.func private @divf_ints(%x: tensor<4xi64>) {
  // expected-error @+1 {{'tile.precise_divf' op operand #0 must be}}
  %y = tile.precise_divf %x, %x : tensor<4xi64>
  tile.return
}

// -----

tile.func private @extern_shape(%x: tensor<64xf32>) {
  // expected-error @+1 {{'tile.extern_elementwise' op all non-scalar operands/results must have the same shape and base type}}
  %y = tile.extern_elementwise "__nv_erff"(%x) lib "libdevice" pure : (tensor<64xf32>) -> tensor<32xf32>
  tile.return
}

// -----

tile.func private @asm_constraints(%x: tensor<64xf32>) {
  // expected-error @+1 {{'tile.inline_asm_elementwise' op constraints "=r,r,r" bind 3 operands, but the assembly has 1 result(s) and 1 argument(s)}}
  %y = tile.inline_asm_elementwise "mov.b32 $0, $1;"(%x) constraints "=r,r,r" pure : (tensor<64xf32>) -> tensor<64xf32>
  tile.return
}

// -----

tile.func private @asm_pack(%x: tensor<64xf32>) {
  // expected-error @+1 {{'tile.inline_asm_elementwise' op packs 2 elements of 'f32' into 64 bits; a packed operand fits one 32-bit register}}
  %y = tile.inline_asm_elementwise "mov.b64 $0, $1;"(%x) constraints "=l,l" pure pack 2 : (tensor<64xf32>) -> tensor<64xf32>
  tile.return
}

// -----

tile.func private @asm_no_results(%x: f32) {
  // expected-error @+1 {{'tile.inline_asm_elementwise' op expected 1 or more results}}
  tile.inline_asm_elementwise "trap;"(%x) constraints "r" : (f32) -> ()
  tile.return
}

// -----

tile.func private @asm_shape(%x: tensor<64xf32>) {
  // expected-error @+1 {{'tile.inline_asm_elementwise' op all non-scalar operands/results must have the same shape and base type}}
  %y = tile.inline_asm_elementwise "mov.b32 $0, $1;"(%x) constraints "=r,r" pure : (tensor<64xf32>) -> tensor<32xf32>
  tile.return
}

// -----

tile.func private @extern_missing_lib(%x: f32) {
  // expected-error @+1 {{expected 'lib'}}
  %y = tile.extern_elementwise "__nv_erff"(%x) pure : (f32) -> f32
  tile.return
}

// -----

tile.func private @print_index(%i: index) {
  // expected-error @+1 {{'tile.print' op operand #0 must be variadic of}}
  tile.print "i = " (%i : index)
  tile.return
}

// -----

tile.func private @print_unsigned_flags(%i: i32, %f: f32) {
  // expected-error @+1 {{'tile.print' op unsigned_args has 1 flags for 2 operands}}
  tile.print "i = " (%i, %f : i32, f32) {unsigned_args = array<i1: true>}
  tile.return
}

// -----

tile.func private @print_unsigned_float(%f: f32) {
  // expected-error @+1 {{'tile.print' op unsigned_args marks an operand of 'f32', which is not an integer}}
  tile.print "f = " (%f : f32) {unsigned_args = array<i1: true>}
  tile.return
}

// -----

tile.func private @assert_not_bool(%x: tensor<64xi32>) {
  // expected-error @+1 {{'tile.assert' op operand #0 must be 1-bit signless integer or statically shaped tensor of 1-bit signless integer values, but got 'tensor<64xi32>'}}
  tile.assert %x, "nonzero" : tensor<64xi32>
  tile.return
}

// -----

tile.func private @assume_on_a_tile(%ok: tensor<64xi1>) {
  // expected-error @+1 {{'tile.assume' op operand #0 must be 1-bit signless integer, but got 'tensor<64xi1>'}}
  "tile.assume"(%ok) : (tensor<64xi1>) -> ()
  tile.return
}

// -----

tile.func private @empty_hint(%x: tensor<64xi32>) {
  // expected-error @+1 {{'tile.hint' op needs multiple_of, max_contiguous or max_constancy}}
  %h = tile.hint %x : tensor<64xi32>
  tile.return
}

// -----

tile.func private @hint_runs_do_not_divide(%x: tensor<64xi32>) {
  // expected-error @+1 {{'tile.hint' op max_contiguous must divide the last dimension (64), got 48}}
  %h = tile.hint %x {max_contiguous = 48 : i64} : tensor<64xi32>
  tile.return
}

// -----

tile.func private @hint_runs_of_a_scalar(%s: i32) {
  // expected-error @+1 {{'tile.hint' op max_constancy describes the last dimension of a tile, not of 'i32'}}
  %h = tile.hint %s {max_constancy = 4 : i64} : i32
  tile.return
}

// -----

tile.func private @hint_negative_multiple(%s: i32) {
  // expected-error @+1 {{'tile.hint' op multiple_of must be positive, got -4}}
  %h = tile.hint %s {multiple_of = -4 : i64} : i32
  tile.return
}

// -----

tile.func private @hint_on_floats(%x: tensor<64xf32>) {
  // expected-error @+1 {{'tile.hint' op operand #0 must be}}
  %h = tile.hint %x {multiple_of = 4 : i64} : tensor<64xf32>
  tile.return
}

// -----

//===----------------------------------------------------------------------===//
// Parser errors: located, never a crash
//===----------------------------------------------------------------------===//

tile.func @program_id_axis() {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'axis' [x, y, z]}}
  %p = tile.program_id w
  tile.return
}

// -----

tile.func @program_id_typed() {
  // The result is always i32 and is not spelled.
  // expected-error @+1 {{expected operation name in quotes}}
  %p = tile.program_id x : i32
  tile.return
}

// -----

tile.func private @splat_wrong_source(%x: f32) {
  // expected-note @-1 {{prior use here}}
  // expected-error @+1 {{use of value '%x' expects different type than prior uses: 'i32' vs 'f32'}}
  %t = tile.splat %x : i32 -> tensor<4xi32>
  tile.return
}

// -----

tile.func private @make_range_float() {
  // expected-error @+1 {{floating point value not valid for specified type}}
  %r = tile.make_range 0.0 to 4.0 : tensor<4xf32>
  tile.return
}

// -----

// expected-error @+2 {{expected non-function type}}
// expected-error @+1 {{failed to parse Tile_PtrType parameter 'pointeeType' which is to be a `::mlir::Type`}}
tile.func private @ptr_missing_pointee(%p: !tile.ptr<>)

// -----

// expected-error @+2 {{expected integer value}}
// expected-error @+1 {{failed to parse Tile_PtrType parameter 'addressSpace' which is to be a `unsigned`}}
tile.func private @ptr_bad_space(%p: !tile.ptr<f32, global>)

// -----

// expected-error @+2 {{invalid kind of type specified: expected builtin.tensor, but found 'f16'}}
// expected-error @+1 {{failed to parse Tile_TensorDescType parameter 'blockType' which is to be a `::mlir::RankedTensorType`}}
tile.func private @desc_not_tensor(%d: !tile.tensordesc<f16>)

// -----

// expected-error @+1 {{pointee of !tile.ptr must be i1, i8, i16, i32, i64, f8E4M3FN, f8E5M2, f16, bf16, f32 or f64, got 'i4'}}
tile.func @ptr_to_i4(%p: !tile.ptr<i4>) {
  tile.return
}

// -----

// expected-error @+1 {{'tile.func' op a public tile.func is a kernel and returns nothing; make @public_with_result private to use it as a device function}}
tile.func @public_with_result(%x: i32) -> i32 {
  tile.return %x : i32
}

// -----

tile.func @load_with_store_policy(%p: !tile.ptr<f32>) {
  // expected-error @+1 {{'tile.load' op cache = wb is a store policy; loads take ca, cg, cs or cv}}
  %x = tile.load %p cache = wb : !tile.ptr<f32>
  tile.return
}

// -----

tile.func @nan_padding_on_ints(%p: !tile.ptr<i32>, %n: i32, %s: i64) {
  // expected-error @+1 {{'tile.make_tensor_descriptor' op padding = nan needs float elements, got 'i32'}}
  %d = tile.make_tensor_descriptor %p, [%n], [%s] padding = nan : !tile.ptr<i32> -> !tile.tensordesc<tensor<64xi32>>
  tile.return
}

// -----

tile.func private @negative_imprecise(%a: tensor<16x16xf16>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  // expected-error @+1 {{'tile.dot' op max_num_imprecise_acc must not be negative}}
  %d = tile.dot %a, %a, %c max_num_imprecise_acc = -1 : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
  tile.return %d : tensor<16x16xf32>
}

// -----

tile.func private @gather_axis(%x: tensor<16x32xf32>, %i: tensor<16x8xi32>) {
  // expected-error @+1 {{'tile.gather' op axis 2 is out of range [0, 2)}}
  %g = tile.gather %x[%i] axis = 2 : tensor<16x32xf32>, tensor<16x8xi32> -> tensor<16x8xf32>
  tile.return
}

// -----

tile.func private @gather_rank(%x: tensor<16x32xf32>, %i: tensor<16xi32>) {
  // expected-error @+1 {{'tile.gather' op indices must have the rank of the source, 2, got [16]}}
  %g = tile.gather %x[%i] axis = 1 : tensor<16x32xf32>, tensor<16xi32> -> tensor<16xf32>
  tile.return
}

// -----

tile.func private @gather_other_axes(%x: tensor<16x32xf32>, %i: tensor<8x8xi32>) {
  // expected-error @+1 {{'tile.gather' op indices [8, 8] must match the source [16, 32] on every axis but 1}}
  %g = tile.gather %x[%i] axis = 1 : tensor<16x32xf32>, tensor<8x8xi32> -> tensor<8x8xf32>
  tile.return
}

// -----

tile.func private @gather_result_shape(%x: tensor<16x32xf32>, %i: tensor<16x8xi32>) {
  // expected-error @+1 {{'tile.gather' op result shape must be the indices' [16, 8], got [16, 32]}}
  %g = tile.gather %x[%i] axis = 1 : tensor<16x32xf32>, tensor<16x8xi32> -> tensor<16x32xf32>
  tile.return
}

// -----

tile.func private @gather_result_type(%x: tensor<16x32xf32>, %i: tensor<16x8xi32>) {
  // expected-error @+1 {{'tile.gather' op result element type must be the source's}}
  %g = tile.gather %x[%i] axis = 1 : tensor<16x32xf32>, tensor<16x8xi32> -> tensor<16x8xf16>
  tile.return
}

// -----

tile.func private @histogram_rank(%x: tensor<4x16xi32>) {
  // expected-error @+1 {{'tile.histogram' op operand must be a 1-D tile, got [4, 16]}}
  %h = tile.histogram %x : tensor<4x16xi32> -> tensor<8xi32>
  tile.return
}

// -----

tile.func private @histogram_mask(%x: tensor<64xi32>, %m: tensor<32xi1>) {
  // expected-error @+1 {{'tile.histogram' op mask must have the operand's shape [64]}}
  %h = tile.histogram %x, mask %m : tensor<64xi32>, tensor<32xi1> -> tensor<8xi32>
  tile.return
}

// -----

tile.func private @histogram_result(%x: tensor<64xi32>) {
  // expected-error @+1 {{'tile.histogram' op result must be a 1-D tile of i32}}
  %h = tile.histogram %x : tensor<64xi32> -> tensor<8xi64>
  tile.return
}
