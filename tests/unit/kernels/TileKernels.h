// Tile IR kernels that both the interpreter's tests and the CPU backend's
// tests run: one copy, so that the backends are checked on the same programs.
#ifndef TESSERA_TESTS_UNIT_KERNELS_TILEKERNELS_H
#define TESSERA_TESTS_UNIT_KERNELS_TILEKERNELS_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace tessera::test_kernels {

/// `source` with every `what` replaced by `by`: the kernels below name their
/// variable parts (DT, REVERSE, PADDING, LOADMASK, ...) in capitals.
inline std::string withReplaced(llvm::StringRef source, llvm::StringRef what,
                                llvm::StringRef by) {
  std::string text = source.str();
  for (size_t at = text.find(what.str()); at != std::string::npos;
       at = text.find(what.str(), at + by.size()))
    text.replace(at, what.size(), by.str());
  return text;
}

// For each x: steps of the Collatz sequence to reach 1 (scf.while, scf.if),
// and x * x through a device function.
constexpr llvm::StringLiteral kCollatz = R"mlir(
tile.func private @square(%x: tensor<16xi32>) -> tensor<16xi32> {
  %y = arith.muli %x, %x : tensor<16xi32>
  tile.return %y : tensor<16xi32>
}
tile.func private @steps(%x: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %n:2 = scf.while (%v = %x, %count = %c0) : (i32, i32) -> (i32, i32) {
    %more = arith.cmpi ne, %v, %c1 : i32
    scf.condition(%more) %v, %count : i32, i32
  } do {
  ^bb0(%v: i32, %count: i32):
    %parity = arith.remui %v, %c2 : i32
    %odd = arith.cmpi eq, %parity, %c1 : i32
    %next = scf.if %odd -> (i32) {
      %t = arith.muli %v, %c3 : i32
      %u = arith.addi %t, %c1 : i32
      scf.yield %u : i32
    } else {
      %h = arith.divui %v, %c2 : i32
      scf.yield %h : i32
    }
    %inc = arith.addi %count, %c1 : i32
    scf.yield %next, %inc : i32, i32
  }
  tile.return %n#1 : i32
}
tile.func @collatz(%in: !tile.ptr<i32>, %steps: !tile.ptr<i32>, %squares: !tile.ptr<i32>) {
  %r = tile.make_range 0 to 16 : tensor<16xi32>
  %ib = tile.splat %in : !tile.ptr<i32> -> tensor<16x!tile.ptr<i32>>
  %ip = tile.addptr %ib, %r : tensor<16x!tile.ptr<i32>>, tensor<16xi32>
  %x = tile.load %ip : tensor<16x!tile.ptr<i32>>
  %sq = tile.call @square(%x) : (tensor<16xi32>) -> tensor<16xi32>
  %qb = tile.splat %squares : !tile.ptr<i32> -> tensor<16x!tile.ptr<i32>>
  %qp = tile.addptr %qb, %r : tensor<16x!tile.ptr<i32>>, tensor<16xi32>
  tile.store %qp, %sq : tensor<16x!tile.ptr<i32>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c16 step %c1 {
    %i32 = arith.index_cast %i : index to i32
    %p = tile.addptr %in, %i32 : !tile.ptr<i32>, i32
    %v = tile.load %p : !tile.ptr<i32>
    %s = tile.call @steps(%v) : (i32) -> i32
    %sp = tile.addptr %steps, %i32 : !tile.ptr<i32>, i32
    tile.store %sp, %s : !tile.ptr<i32>
  }
  tile.return
}
)mlir";

// Copies 128 elements per program; MASK is replaced by a mask or by nothing.
constexpr llvm::StringLiteral kCopy = R"mlir(
tile.func @copy(%src: !tile.ptr<f32>, %dst: !tile.ptr<f32>, %n: i32) {
  %pid = tile.program_id x
  %c128 = arith.constant 128 : i32
  %start = arith.muli %pid, %c128 : i32
  %r = tile.make_range 0 to 128 : tensor<128xi32>
  %starts = tile.splat %start : i32 -> tensor<128xi32>
  %offs = arith.addi %starts, %r : tensor<128xi32>
  %bound = tile.splat %n : i32 -> tensor<128xi32>
  %mask = arith.cmpi slt, %offs, %bound : tensor<128xi32>
  %sb = tile.splat %src : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %sp = tile.addptr %sb, %offs : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %db = tile.splat %dst : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %dp = tile.addptr %db, %offs : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %v = tile.load %sp LOADMASK : tensor<128x!tile.ptr<f32>>
  tile.store %dp, %v STOREMASK : tensor<128x!tile.ptr<f32>>
  tile.return
}
)mlir";

constexpr llvm::StringLiteral kAssert = R"mlir(
tile.func @check(%n: i32) {
  %r = tile.make_range 0 to 16 : tensor<16xi32>
  %bound = tile.splat %n : i32 -> tensor<16xi32>
  %ok = arith.cmpi slt, %r, %bound : tensor<16xi32>
  tile.assert %ok, "index out of range" : tensor<16xi1>
  tile.return
}
)mlir";

/// libdevice functions on 64 lanes: row k of `out` (`iout`) is float
/// (integer) function k. x in (-1, 1), y > 0.
constexpr llvm::StringLiteral kLibdevice = R"mlir(
tile.func private @put_f32(%out: !tile.ptr<f32>, %row: i32, %v: tensor<64xf32>) {
  %r = tile.make_range 0 to 64 : tensor<64xi32>
  %c64 = arith.constant 64 : i32
  %start = arith.muli %row, %c64 : i32
  %base = tile.addptr %out, %start : !tile.ptr<f32>, i32
  %bs = tile.splat %base : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %p = tile.addptr %bs, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  tile.store %p, %v : tensor<64x!tile.ptr<f32>>
  tile.return
}
tile.func private @put_i32(%out: !tile.ptr<i32>, %row: i32, %v: tensor<64xi32>) {
  %r = tile.make_range 0 to 64 : tensor<64xi32>
  %c64 = arith.constant 64 : i32
  %start = arith.muli %row, %c64 : i32
  %base = tile.addptr %out, %start : !tile.ptr<i32>, i32
  %bs = tile.splat %base : !tile.ptr<i32> -> tensor<64x!tile.ptr<i32>>
  %p = tile.addptr %bs, %r : tensor<64x!tile.ptr<i32>>, tensor<64xi32>
  tile.store %p, %v : tensor<64x!tile.ptr<i32>>
  tile.return
}
tile.func @libdevice(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %n: !tile.ptr<i32>,
                     %out: !tile.ptr<f32>, %iout: !tile.ptr<i32>) {
  %r = tile.make_range 0 to 64 : tensor<64xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %a = tile.load %xp : tensor<64x!tile.ptr<f32>>
  %ys = tile.splat %y : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %yp = tile.addptr %ys, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %b = tile.load %yp : tensor<64x!tile.ptr<f32>>
  %ns = tile.splat %n : !tile.ptr<i32> -> tensor<64x!tile.ptr<i32>>
  %np = tile.addptr %ns, %r : tensor<64x!tile.ptr<i32>>, tensor<64xi32>
  %i = tile.load %np : tensor<64x!tile.ptr<i32>>
  %f0 = tile.extern_elementwise "__nv_tanhf"(%a) lib "libdevice" pure : (tensor<64xf32>) -> tensor<64xf32>
  %f1 = tile.extern_elementwise "__nv_atan2f"(%a, %b) lib "libdevice" pure : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  %f2 = tile.extern_elementwise "__nv_powf"(%b, %a) lib "libdevice" pure : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  %f3 = tile.extern_elementwise "__nv_log1pf"(%b) lib "libdevice" pure : (tensor<64xf32>) -> tensor<64xf32>
  %f4 = tile.extern_elementwise "__nv_acosf"(%a) lib "libdevice" pure : (tensor<64xf32>) -> tensor<64xf32>
  %f5 = tile.extern_elementwise "__nv_sinhf"(%a) lib "libdevice" pure : (tensor<64xf32>) -> tensor<64xf32>
  %f6 = tile.extern_elementwise "__nv_fmodf"(%b, %a) lib "libdevice" pure : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  %f7 = tile.extern_elementwise "__nv_expm1f"(%a) lib "libdevice" pure : (tensor<64xf32>) -> tensor<64xf32>
  %f8 = tile.extern_elementwise "__nv_fmaf"(%a, %b, %a) lib "libdevice" pure : (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  %f9 = tile.extern_elementwise "__nv_cbrtf"(%a) lib "libdevice" pure : (tensor<64xf32>) -> tensor<64xf32>
  %i0 = tile.extern_elementwise "__nv_popc"(%i) lib "libdevice" pure : (tensor<64xi32>) -> tensor<64xi32>
  %i1 = tile.extern_elementwise "__nv_umulhi"(%i, %i) lib "libdevice" pure : (tensor<64xi32>, tensor<64xi32>) -> tensor<64xi32>
  %i2 = tile.extern_elementwise "__nv_clz"(%i) lib "libdevice" pure : (tensor<64xi32>) -> tensor<64xi32>
  %i3 = tile.extern_elementwise "__nv_min"(%i, %r) lib "libdevice" pure : (tensor<64xi32>, tensor<64xi32>) -> tensor<64xi32>
  %ratio = arith.divf %a, %a : tensor<64xf32>
  %i4 = tile.extern_elementwise "__nv_isnanf"(%ratio) lib "libdevice" pure : (tensor<64xf32>) -> tensor<64xi32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c4 = arith.constant 4 : i32
  %c5 = arith.constant 5 : i32
  %c6 = arith.constant 6 : i32
  %c7 = arith.constant 7 : i32
  %c8 = arith.constant 8 : i32
  %c9 = arith.constant 9 : i32
  tile.call @put_f32(%out, %c0, %f0) : (!tile.ptr<f32>, i32, tensor<64xf32>) -> ()
  tile.call @put_f32(%out, %c1, %f1) : (!tile.ptr<f32>, i32, tensor<64xf32>) -> ()
  tile.call @put_f32(%out, %c2, %f2) : (!tile.ptr<f32>, i32, tensor<64xf32>) -> ()
  tile.call @put_f32(%out, %c3, %f3) : (!tile.ptr<f32>, i32, tensor<64xf32>) -> ()
  tile.call @put_f32(%out, %c4, %f4) : (!tile.ptr<f32>, i32, tensor<64xf32>) -> ()
  tile.call @put_f32(%out, %c5, %f5) : (!tile.ptr<f32>, i32, tensor<64xf32>) -> ()
  tile.call @put_f32(%out, %c6, %f6) : (!tile.ptr<f32>, i32, tensor<64xf32>) -> ()
  tile.call @put_f32(%out, %c7, %f7) : (!tile.ptr<f32>, i32, tensor<64xf32>) -> ()
  tile.call @put_f32(%out, %c8, %f8) : (!tile.ptr<f32>, i32, tensor<64xf32>) -> ()
  tile.call @put_f32(%out, %c9, %f9) : (!tile.ptr<f32>, i32, tensor<64xf32>) -> ()
  tile.call @put_i32(%iout, %c0, %i0) : (!tile.ptr<i32>, i32, tensor<64xi32>) -> ()
  tile.call @put_i32(%iout, %c1, %i1) : (!tile.ptr<i32>, i32, tensor<64xi32>) -> ()
  tile.call @put_i32(%iout, %c2, %i2) : (!tile.ptr<i32>, i32, tensor<64xi32>) -> ()
  tile.call @put_i32(%iout, %c3, %i3) : (!tile.ptr<i32>, i32, tensor<64xi32>) -> ()
  tile.call @put_i32(%iout, %c4, %i4) : (!tile.ptr<i32>, i32, tensor<64xi32>) -> ()
  tile.return
}
)mlir";

/// A call of FUNCTION (f32 -> f32) from LIBRARY whose result is stored.
constexpr llvm::StringLiteral kExternCall = R"mlir(
tile.func @ext(%x: f32, %out: !tile.ptr<f32>) {
  %y = tile.extern_elementwise "FUNCTION"(%x) lib "LIBRARY" pure : (f32) -> f32
  tile.store %out, %y : !tile.ptr<f32>
  tile.return
}
)mlir";

/// A call of a library no backend links, whose result is not used.
constexpr llvm::StringLiteral kUnsupported = R"mlir(
tile.func @ext(%x: f32) {
  %y = tile.extern_elementwise "my_erff"(%x) lib "mylib" pure : (f32) -> f32
  tile.return
}
)mlir";

constexpr llvm::StringLiteral kStrayPointer = R"mlir(
tile.func @stray(%p: !tile.ptr<f32>) {
  %addr = arith.constant 16 : i64
  %q = tile.int_to_ptr %addr : i64 -> !tile.ptr<f32>
  %v = tile.load %q : !tile.ptr<f32>
  tile.return
}
)mlir";

constexpr llvm::StringLiteral kPrint = R"mlir(
tile.func @show(%s: i32) {
  %r = tile.make_range 0 to 3 : tensor<3xi32>
  %f = arith.sitofp %r : tensor<3xi32> to tensor<3xf32>
  %pid = tile.program_id x
  tile.print "x = " (%f : tensor<3xf32>)
  tile.print "s: " hex (%s : i32)
  tile.print "pair " (%pid, %s : i32, i32)
  tile.return
}
)mlir";

constexpr llvm::StringLiteral kVectorAdd = R"mlir(
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
)mlir";

// Integer ops keep their bit width: i32 wraps, unsigned and signed views
// differ, and division rounds toward zero while floordivsi rounds down.
constexpr llvm::StringLiteral kIntegerOps = R"mlir(
tile.func @ints(%a: !tile.ptr<i32>, %b: !tile.ptr<i32>, %out: !tile.ptr<i32>) {
  %r = tile.make_range 0 to 64 : tensor<64xi32>
  %ab = tile.splat %a : !tile.ptr<i32> -> tensor<64x!tile.ptr<i32>>
  %ap = tile.addptr %ab, %r : tensor<64x!tile.ptr<i32>>, tensor<64xi32>
  %bb = tile.splat %b : !tile.ptr<i32> -> tensor<64x!tile.ptr<i32>>
  %bp = tile.addptr %bb, %r : tensor<64x!tile.ptr<i32>>, tensor<64xi32>
  %x = tile.load %ap : tensor<64x!tile.ptr<i32>>
  %y = tile.load %bp : tensor<64x!tile.ptr<i32>>
  %mul = arith.muli %x, %y : tensor<64xi32>
  %div = arith.divsi %x, %y : tensor<64xi32>
  %fdiv = arith.floordivsi %x, %y : tensor<64xi32>
  %rem = arith.remsi %x, %y : tensor<64xi32>
  %ult = arith.cmpi ult, %x, %y : tensor<64xi32>
  %ultw = arith.extui %ult : tensor<64xi1> to tensor<64xi32>
  %shr = arith.shrui %x, %ultw : tensor<64xi32>
  %sum0 = arith.addi %mul, %div : tensor<64xi32>
  %sum1 = arith.xori %sum0, %fdiv : tensor<64xi32>
  %sum2 = arith.subi %sum1, %rem : tensor<64xi32>
  %sum3 = arith.addi %sum2, %shr : tensor<64xi32>
  %c64 = arith.constant 64 : i32
  %r2 = tile.splat %c64 : i32 -> tensor<64xi32>
  %r3 = arith.addi %r, %r2 : tensor<64xi32>
  %ob = tile.splat %out : !tile.ptr<i32> -> tensor<64x!tile.ptr<i32>>
  %op = tile.addptr %ob, %r : tensor<64x!tile.ptr<i32>>, tensor<64xi32>
  %op2 = tile.addptr %ob, %r3 : tensor<64x!tile.ptr<i32>>, tensor<64xi32>
  tile.store %op, %sum3 : tensor<64x!tile.ptr<i32>>
  tile.store %op2, %ultw : tensor<64x!tile.ptr<i32>>
  tile.return
}
)mlir";

// f16 arithmetic rounds every result to half precision.
constexpr llvm::StringLiteral kHalfOps = R"mlir(
tile.func @halves(%a: !tile.ptr<f16>, %out: !tile.ptr<f16>, %wide: !tile.ptr<f32>) {
  %r = tile.make_range 0 to 32 : tensor<32xi32>
  %ab = tile.splat %a : !tile.ptr<f16> -> tensor<32x!tile.ptr<f16>>
  %ap = tile.addptr %ab, %r : tensor<32x!tile.ptr<f16>>, tensor<32xi32>
  %x = tile.load %ap : tensor<32x!tile.ptr<f16>>
  %sq = arith.mulf %x, %x : tensor<32xf16>
  %e = math.exp %sq : tensor<32xf16>
  %ob = tile.splat %out : !tile.ptr<f16> -> tensor<32x!tile.ptr<f16>>
  %op = tile.addptr %ob, %r : tensor<32x!tile.ptr<f16>>, tensor<32xi32>
  tile.store %op, %e : tensor<32x!tile.ptr<f16>>
  %w = arith.extf %e : tensor<32xf16> to tensor<32xf32>
  %wb = tile.splat %wide : !tile.ptr<f32> -> tensor<32x!tile.ptr<f32>>
  %wp = tile.addptr %wb, %r : tensor<32x!tile.ptr<f32>>, tensor<32xi32>
  tile.store %wp, %w : tensor<32x!tile.ptr<f32>>
  tile.return
}
)mlir";

// C[M, N] = A[M, K] * B[K, N], row-major, 16x16 output tiles, K steps of 8.
// DT is the input element type.
constexpr llvm::StringLiteral kMatmul = R"mlir(
tile.func @matmul(%a: !tile.ptr<DT>, %b: !tile.ptr<DT>, %c: !tile.ptr<f32>,
                  %M: i32, %N: i32, %K: i32) {
  %pm = tile.program_id x
  %pn = tile.program_id y
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  %c16 = arith.constant 16 : i32
  %m0 = arith.muli %pm, %c16 : i32
  %n0 = arith.muli %pn, %c16 : i32
  %r16 = tile.make_range 0 to 16 : tensor<16xi32>
  %r8 = tile.make_range 0 to 8 : tensor<8xi32>
  %m0s = tile.splat %m0 : i32 -> tensor<16xi32>
  %rm = arith.addi %m0s, %r16 : tensor<16xi32>
  %n0s = tile.splat %n0 : i32 -> tensor<16xi32>
  %rn = arith.addi %n0s, %r16 : tensor<16xi32>
  %rmc = tile.expand_dims %rm, axis = 1 : tensor<16xi32> -> tensor<16x1xi32>
  %rnr = tile.expand_dims %rn, axis = 0 : tensor<16xi32> -> tensor<1x16xi32>
  %Mc = tile.splat %M : i32 -> tensor<16x1xi32>
  %Nr = tile.splat %N : i32 -> tensor<1x16xi32>
  %Kc = tile.splat %K : i32 -> tensor<16x1xi32>
  %mok = arith.cmpi slt, %rmc, %Mc : tensor<16x1xi32>
  %nok = arith.cmpi slt, %rnr, %Nr : tensor<1x16xi32>
  %arow = arith.muli %rmc, %Kc : tensor<16x1xi32>
  %zeroA = arith.constant dense<0.0> : tensor<16x8xDT>
  %zeroB = arith.constant dense<0.0> : tensor<8x16xDT>
  %init = arith.constant dense<0.0> : tensor<16x16xf32>
  %abase = tile.splat %a : !tile.ptr<DT> -> tensor<16x8x!tile.ptr<DT>>
  %bbase = tile.splat %b : !tile.ptr<DT> -> tensor<8x16x!tile.ptr<DT>>
  %acc = scf.for %k = %c0 to %K step %c8 iter_args(%sum = %init) -> (tensor<16x16xf32>) : i32 {
    %ks = tile.splat %k : i32 -> tensor<8xi32>
    %rk = arith.addi %ks, %r8 : tensor<8xi32>
    %rkr = tile.expand_dims %rk, axis = 0 : tensor<8xi32> -> tensor<1x8xi32>
    %rkc = tile.expand_dims %rk, axis = 1 : tensor<8xi32> -> tensor<8x1xi32>
    %Kr = tile.splat %K : i32 -> tensor<1x8xi32>
    %K8 = tile.splat %K : i32 -> tensor<8x1xi32>
    %kokr = arith.cmpi slt, %rkr, %Kr : tensor<1x8xi32>
    %kokc = arith.cmpi slt, %rkc, %K8 : tensor<8x1xi32>
    %arowb = tile.broadcast %arow : tensor<16x1xi32> -> tensor<16x8xi32>
    %rkb = tile.broadcast %rkr : tensor<1x8xi32> -> tensor<16x8xi32>
    %aoff = arith.addi %arowb, %rkb : tensor<16x8xi32>
    %mokb = tile.broadcast %mok : tensor<16x1xi1> -> tensor<16x8xi1>
    %kokb = tile.broadcast %kokr : tensor<1x8xi1> -> tensor<16x8xi1>
    %amask = arith.andi %mokb, %kokb : tensor<16x8xi1>
    %ap = tile.addptr %abase, %aoff : tensor<16x8x!tile.ptr<DT>>, tensor<16x8xi32>
    %at = tile.load %ap, %amask, %zeroA : tensor<16x8x!tile.ptr<DT>>
    %N8 = tile.splat %N : i32 -> tensor<8x1xi32>
    %brow = arith.muli %rkc, %N8 : tensor<8x1xi32>
    %browb = tile.broadcast %brow : tensor<8x1xi32> -> tensor<8x16xi32>
    %rnb = tile.broadcast %rnr : tensor<1x16xi32> -> tensor<8x16xi32>
    %boff = arith.addi %browb, %rnb : tensor<8x16xi32>
    %kokcb = tile.broadcast %kokc : tensor<8x1xi1> -> tensor<8x16xi1>
    %nokb = tile.broadcast %nok : tensor<1x16xi1> -> tensor<8x16xi1>
    %bmask = arith.andi %kokcb, %nokb : tensor<8x16xi1>
    %bp = tile.addptr %bbase, %boff : tensor<8x16x!tile.ptr<DT>>, tensor<8x16xi32>
    %bt = tile.load %bp, %bmask, %zeroB : tensor<8x16x!tile.ptr<DT>>
    %next = tile.dot %at, %bt, %sum : tensor<16x8xDT> * tensor<8x16xDT> -> tensor<16x16xf32>
    scf.yield %next : tensor<16x16xf32>
  }
  %Nc = tile.splat %N : i32 -> tensor<16x1xi32>
  %crow = arith.muli %rmc, %Nc : tensor<16x1xi32>
  %crowb = tile.broadcast %crow : tensor<16x1xi32> -> tensor<16x16xi32>
  %rnb2 = tile.broadcast %rnr : tensor<1x16xi32> -> tensor<16x16xi32>
  %coff = arith.addi %crowb, %rnb2 : tensor<16x16xi32>
  %mokc = tile.broadcast %mok : tensor<16x1xi1> -> tensor<16x16xi1>
  %nokc = tile.broadcast %nok : tensor<1x16xi1> -> tensor<16x16xi1>
  %cmask = arith.andi %mokc, %nokc : tensor<16x16xi1>
  %cbase = tile.splat %c : !tile.ptr<f32> -> tensor<16x16x!tile.ptr<f32>>
  %cp = tile.addptr %cbase, %coff : tensor<16x16x!tile.ptr<f32>>, tensor<16x16xi32>
  tile.store %cp, %acc, %cmask : tensor<16x16x!tile.ptr<f32>>
  tile.return
}
)mlir";

// C = A @ (B * s) with an int8 B widened to f32 and scaled per column in
// the K loop, as the Python front end writes (16x128x16 tiles):
//   a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :], mask=..., other=0.0)
//   b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :], mask=..., other=0)
//   s = tl.load(s_ptr + rn, mask=rn < N, other=0.0)
//   acc = tl.dot(a, b.to(tl.float32) * s[None, :], acc)
// On 2 warps the load of s has registers that repeat others of their thread
// (a zero register basis): a ring read back holds each distinct one once.
constexpr llvm::StringLiteral kMatmulOfScaledColumns = R"mlir(
tile.func @scaled_columns(%arg0: !tile.ptr<f32>, %arg1: !tile.ptr<i8>, %arg2: !tile.ptr<f32>, %arg3: !tile.ptr<f32>, %arg4: i32, %arg5: i32, %arg6: i32) {
  %0 = tile.program_id x
  %c16_i32 = arith.constant 16 : i32
  %1 = arith.muli %0, %c16_i32 : i32
  %2 = tile.make_range 0 to 16 : tensor<16xi32>
  %3 = tile.splat %1 : i32 -> tensor<16xi32>
  %4 = arith.addi %3, %2 : tensor<16xi32>
  %5 = tile.program_id y
  %c128_i32 = arith.constant 128 : i32
  %6 = arith.muli %5, %c128_i32 : i32
  %7 = tile.make_range 0 to 128 : tensor<128xi32>
  %8 = tile.splat %6 : i32 -> tensor<128xi32>
  %9 = arith.addi %8, %7 : tensor<128xi32>
  %10 = tile.make_range 0 to 16 : tensor<16xi32>
  %cst = arith.constant dense<0.000000e+00> : tensor<16x128xf32>
  %c0_i32 = arith.constant 0 : i32
  %c16_i32_0 = arith.constant 16 : i32
  %11 = scf.for %arg7 = %c0_i32 to %arg6 step %c16_i32_0 iter_args(%arg8 = %cst) -> (tensor<16x128xf32>)  : i32 {
    %30 = tile.expand_dims %4, axis = 1 : tensor<16xi32> -> tensor<16x1xi32>
    %31 = tile.splat %arg6 : i32 -> tensor<16x1xi32>
    %32 = arith.muli %30, %31 : tensor<16x1xi32>
    %33 = tile.splat %arg0 : !tile.ptr<f32> -> tensor<16x1x!tile.ptr<f32>>
    %34 = tile.addptr %33, %32 : tensor<16x1x!tile.ptr<f32>>, tensor<16x1xi32>
    %35 = tile.splat %arg7 : i32 -> tensor<16xi32>
    %36 = arith.addi %35, %10 : tensor<16xi32>
    %37 = tile.expand_dims %36, axis = 0 : tensor<16xi32> -> tensor<1x16xi32>
    %38 = tile.broadcast %34 : tensor<16x1x!tile.ptr<f32>> -> tensor<16x16x!tile.ptr<f32>>
    %39 = tile.broadcast %37 : tensor<1x16xi32> -> tensor<16x16xi32>
    %40 = tile.addptr %38, %39 : tensor<16x16x!tile.ptr<f32>>, tensor<16x16xi32>
    %41 = tile.expand_dims %4, axis = 1 : tensor<16xi32> -> tensor<16x1xi32>
    %42 = tile.splat %arg4 : i32 -> tensor<16x1xi32>
    %43 = arith.cmpi slt, %41, %42 : tensor<16x1xi32>
    %44 = tile.splat %arg7 : i32 -> tensor<16xi32>
    %45 = arith.addi %44, %10 : tensor<16xi32>
    %46 = tile.expand_dims %45, axis = 0 : tensor<16xi32> -> tensor<1x16xi32>
    %47 = tile.splat %arg6 : i32 -> tensor<1x16xi32>
    %48 = arith.cmpi slt, %46, %47 : tensor<1x16xi32>
    %49 = tile.broadcast %43 : tensor<16x1xi1> -> tensor<16x16xi1>
    %50 = tile.broadcast %48 : tensor<1x16xi1> -> tensor<16x16xi1>
    %51 = arith.andi %49, %50 : tensor<16x16xi1>
    %cst_1 = arith.constant 0.000000e+00 : f32
    %52 = tile.splat %cst_1 : f32 -> tensor<16x16xf32>
    %53 = tile.load %40, %51, %52 : tensor<16x16x!tile.ptr<f32>>
    %54 = tile.splat %arg7 : i32 -> tensor<16xi32>
    %55 = arith.addi %54, %10 : tensor<16xi32>
    %56 = tile.expand_dims %55, axis = 1 : tensor<16xi32> -> tensor<16x1xi32>
    %57 = tile.splat %arg5 : i32 -> tensor<16x1xi32>
    %58 = arith.muli %56, %57 : tensor<16x1xi32>
    %59 = tile.splat %arg1 : !tile.ptr<i8> -> tensor<16x1x!tile.ptr<i8>>
    %60 = tile.addptr %59, %58 : tensor<16x1x!tile.ptr<i8>>, tensor<16x1xi32>
    %61 = tile.expand_dims %9, axis = 0 : tensor<128xi32> -> tensor<1x128xi32>
    %62 = tile.broadcast %60 : tensor<16x1x!tile.ptr<i8>> -> tensor<16x128x!tile.ptr<i8>>
    %63 = tile.broadcast %61 : tensor<1x128xi32> -> tensor<16x128xi32>
    %64 = tile.addptr %62, %63 : tensor<16x128x!tile.ptr<i8>>, tensor<16x128xi32>
    %65 = tile.splat %arg7 : i32 -> tensor<16xi32>
    %66 = arith.addi %65, %10 : tensor<16xi32>
    %67 = tile.expand_dims %66, axis = 1 : tensor<16xi32> -> tensor<16x1xi32>
    %68 = tile.splat %arg6 : i32 -> tensor<16x1xi32>
    %69 = arith.cmpi slt, %67, %68 : tensor<16x1xi32>
    %70 = tile.expand_dims %9, axis = 0 : tensor<128xi32> -> tensor<1x128xi32>
    %71 = tile.splat %arg5 : i32 -> tensor<1x128xi32>
    %72 = arith.cmpi slt, %70, %71 : tensor<1x128xi32>
    %73 = tile.broadcast %69 : tensor<16x1xi1> -> tensor<16x128xi1>
    %74 = tile.broadcast %72 : tensor<1x128xi1> -> tensor<16x128xi1>
    %75 = arith.andi %73, %74 : tensor<16x128xi1>
    %c0_i8 = arith.constant 0 : i8
    %76 = tile.splat %c0_i8 : i8 -> tensor<16x128xi8>
    %77 = tile.load %64, %75, %76 : tensor<16x128x!tile.ptr<i8>>
    %78 = tile.splat %arg2 : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
    %79 = tile.addptr %78, %9 : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
    %80 = tile.splat %arg5 : i32 -> tensor<128xi32>
    %81 = arith.cmpi slt, %9, %80 : tensor<128xi32>
    %cst_2 = arith.constant 0.000000e+00 : f32
    %82 = tile.splat %cst_2 : f32 -> tensor<128xf32>
    %83 = tile.load %79, %81, %82 : tensor<128x!tile.ptr<f32>>
    %84 = arith.sitofp %77 : tensor<16x128xi8> to tensor<16x128xf32>
    %85 = tile.expand_dims %83, axis = 0 : tensor<128xf32> -> tensor<1x128xf32>
    %86 = tile.broadcast %85 : tensor<1x128xf32> -> tensor<16x128xf32>
    %87 = arith.mulf %84, %86 : tensor<16x128xf32>
    %88 = tile.dot %53, %87, %arg8 : tensor<16x16xf32> * tensor<16x128xf32> -> tensor<16x128xf32>
    scf.yield %88 : tensor<16x128xf32>
  }
  %12 = tile.expand_dims %4, axis = 1 : tensor<16xi32> -> tensor<16x1xi32>
  %13 = tile.splat %arg5 : i32 -> tensor<16x1xi32>
  %14 = arith.muli %12, %13 : tensor<16x1xi32>
  %15 = tile.splat %arg3 : !tile.ptr<f32> -> tensor<16x1x!tile.ptr<f32>>
  %16 = tile.addptr %15, %14 : tensor<16x1x!tile.ptr<f32>>, tensor<16x1xi32>
  %17 = tile.expand_dims %9, axis = 0 : tensor<128xi32> -> tensor<1x128xi32>
  %18 = tile.broadcast %16 : tensor<16x1x!tile.ptr<f32>> -> tensor<16x128x!tile.ptr<f32>>
  %19 = tile.broadcast %17 : tensor<1x128xi32> -> tensor<16x128xi32>
  %20 = tile.addptr %18, %19 : tensor<16x128x!tile.ptr<f32>>, tensor<16x128xi32>
  %21 = tile.expand_dims %4, axis = 1 : tensor<16xi32> -> tensor<16x1xi32>
  %22 = tile.splat %arg4 : i32 -> tensor<16x1xi32>
  %23 = arith.cmpi slt, %21, %22 : tensor<16x1xi32>
  %24 = tile.expand_dims %9, axis = 0 : tensor<128xi32> -> tensor<1x128xi32>
  %25 = tile.splat %arg5 : i32 -> tensor<1x128xi32>
  %26 = arith.cmpi slt, %24, %25 : tensor<1x128xi32>
  %27 = tile.broadcast %23 : tensor<16x1xi1> -> tensor<16x128xi1>
  %28 = tile.broadcast %26 : tensor<1x128xi1> -> tensor<16x128xi1>
  %29 = arith.andi %27, %28 : tensor<16x128xi1>
  tile.store %20, %11, %29 : tensor<16x128x!tile.ptr<f32>>
  tile.return
}
)mlir";

// kMatmul with an int8 B widened to f32 before the dot (a weight-only
// quantized GEMM): B's load reaches the dot through the conversion, so a
// software-pipelined loop reads it back from shared memory
// (SoftwarePipeline.cpp, StagedLoad::readBack).
constexpr llvm::StringLiteral kMatmulOfWidenedB = R"mlir(
tile.func @matmul_widened_b(%a: !tile.ptr<f32>, %b: !tile.ptr<i8>, %c: !tile.ptr<f32>,
                           %M: i32, %N: i32, %K: i32) {
  %pm = tile.program_id x
  %pn = tile.program_id y
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  %c16 = arith.constant 16 : i32
  %m0 = arith.muli %pm, %c16 : i32
  %n0 = arith.muli %pn, %c16 : i32
  %r16 = tile.make_range 0 to 16 : tensor<16xi32>
  %r8 = tile.make_range 0 to 8 : tensor<8xi32>
  %m0s = tile.splat %m0 : i32 -> tensor<16xi32>
  %rm = arith.addi %m0s, %r16 : tensor<16xi32>
  %n0s = tile.splat %n0 : i32 -> tensor<16xi32>
  %rn = arith.addi %n0s, %r16 : tensor<16xi32>
  %rmc = tile.expand_dims %rm, axis = 1 : tensor<16xi32> -> tensor<16x1xi32>
  %rnr = tile.expand_dims %rn, axis = 0 : tensor<16xi32> -> tensor<1x16xi32>
  %Mc = tile.splat %M : i32 -> tensor<16x1xi32>
  %Nr = tile.splat %N : i32 -> tensor<1x16xi32>
  %Kc = tile.splat %K : i32 -> tensor<16x1xi32>
  %mok = arith.cmpi slt, %rmc, %Mc : tensor<16x1xi32>
  %nok = arith.cmpi slt, %rnr, %Nr : tensor<1x16xi32>
  %arow = arith.muli %rmc, %Kc : tensor<16x1xi32>
  %zeroA = arith.constant dense<0.0> : tensor<16x8xf32>
  %zeroB = arith.constant dense<0> : tensor<8x16xi8>
  %init = arith.constant dense<0.0> : tensor<16x16xf32>
  %abase = tile.splat %a : !tile.ptr<f32> -> tensor<16x8x!tile.ptr<f32>>
  %bbase = tile.splat %b : !tile.ptr<i8> -> tensor<8x16x!tile.ptr<i8>>
  %acc = scf.for %k = %c0 to %K step %c8 iter_args(%sum = %init) -> (tensor<16x16xf32>) : i32 {
    %ks = tile.splat %k : i32 -> tensor<8xi32>
    %rk = arith.addi %ks, %r8 : tensor<8xi32>
    %rkr = tile.expand_dims %rk, axis = 0 : tensor<8xi32> -> tensor<1x8xi32>
    %rkc = tile.expand_dims %rk, axis = 1 : tensor<8xi32> -> tensor<8x1xi32>
    %Kr = tile.splat %K : i32 -> tensor<1x8xi32>
    %K8 = tile.splat %K : i32 -> tensor<8x1xi32>
    %kokr = arith.cmpi slt, %rkr, %Kr : tensor<1x8xi32>
    %kokc = arith.cmpi slt, %rkc, %K8 : tensor<8x1xi32>
    %arowb = tile.broadcast %arow : tensor<16x1xi32> -> tensor<16x8xi32>
    %rkb = tile.broadcast %rkr : tensor<1x8xi32> -> tensor<16x8xi32>
    %aoff = arith.addi %arowb, %rkb : tensor<16x8xi32>
    %mokb = tile.broadcast %mok : tensor<16x1xi1> -> tensor<16x8xi1>
    %kokb = tile.broadcast %kokr : tensor<1x8xi1> -> tensor<16x8xi1>
    %amask = arith.andi %mokb, %kokb : tensor<16x8xi1>
    %ap = tile.addptr %abase, %aoff : tensor<16x8x!tile.ptr<f32>>, tensor<16x8xi32>
    %at = tile.load %ap, %amask, %zeroA : tensor<16x8x!tile.ptr<f32>>
    %N8 = tile.splat %N : i32 -> tensor<8x1xi32>
    %brow = arith.muli %rkc, %N8 : tensor<8x1xi32>
    %browb = tile.broadcast %brow : tensor<8x1xi32> -> tensor<8x16xi32>
    %rnb = tile.broadcast %rnr : tensor<1x16xi32> -> tensor<8x16xi32>
    %boff = arith.addi %browb, %rnb : tensor<8x16xi32>
    %kokcb = tile.broadcast %kokc : tensor<8x1xi1> -> tensor<8x16xi1>
    %nokb = tile.broadcast %nok : tensor<1x16xi1> -> tensor<8x16xi1>
    %bmask = arith.andi %kokcb, %nokb : tensor<8x16xi1>
    %bp = tile.addptr %bbase, %boff : tensor<8x16x!tile.ptr<i8>>, tensor<8x16xi32>
    %bq = tile.load %bp, %bmask, %zeroB : tensor<8x16x!tile.ptr<i8>>
    %bt = arith.sitofp %bq : tensor<8x16xi8> to tensor<8x16xf32>
    %next = tile.dot %at, %bt, %sum : tensor<16x8xf32> * tensor<8x16xf32> -> tensor<16x16xf32>
    scf.yield %next : tensor<16x16xf32>
  }
  %Nc = tile.splat %N : i32 -> tensor<16x1xi32>
  %crow = arith.muli %rmc, %Nc : tensor<16x1xi32>
  %crowb = tile.broadcast %crow : tensor<16x1xi32> -> tensor<16x16xi32>
  %rnb2 = tile.broadcast %rnr : tensor<1x16xi32> -> tensor<16x16xi32>
  %coff = arith.addi %crowb, %rnb2 : tensor<16x16xi32>
  %mokc = tile.broadcast %mok : tensor<16x1xi1> -> tensor<16x16xi1>
  %nokc = tile.broadcast %nok : tensor<1x16xi1> -> tensor<16x16xi1>
  %cmask = arith.andi %mokc, %nokc : tensor<16x16xi1>
  %cbase = tile.splat %c : !tile.ptr<f32> -> tensor<16x16x!tile.ptr<f32>>
  %cp = tile.addptr %cbase, %coff : tensor<16x16x!tile.ptr<f32>>, tensor<16x16xi32>
  tile.store %cp, %acc, %cmask : tensor<16x16x!tile.ptr<f32>>
  tile.return
}
)mlir";

// C = A * B^T for row-major A [M, K] and B [N, K] (a PyTorch Linear's
// weight): B's [16, 8] block is loaded along K and transposed for the dot.
constexpr llvm::StringLiteral kMatmulTransposedB = R"mlir(
tile.func @matmul_nt(%a: !tile.ptr<DT>, %b: !tile.ptr<DT>, %c: !tile.ptr<f32>,
                     %M: i32, %N: i32, %K: i32) {
  %pm = tile.program_id x
  %pn = tile.program_id y
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  %c16 = arith.constant 16 : i32
  %m0 = arith.muli %pm, %c16 : i32
  %n0 = arith.muli %pn, %c16 : i32
  %r16 = tile.make_range 0 to 16 : tensor<16xi32>
  %r8 = tile.make_range 0 to 8 : tensor<8xi32>
  %m0s = tile.splat %m0 : i32 -> tensor<16xi32>
  %rm = arith.addi %m0s, %r16 : tensor<16xi32>
  %n0s = tile.splat %n0 : i32 -> tensor<16xi32>
  %rn = arith.addi %n0s, %r16 : tensor<16xi32>
  %rmc = tile.expand_dims %rm, axis = 1 : tensor<16xi32> -> tensor<16x1xi32>
  %rnc = tile.expand_dims %rn, axis = 1 : tensor<16xi32> -> tensor<16x1xi32>
  %rnr = tile.expand_dims %rn, axis = 0 : tensor<16xi32> -> tensor<1x16xi32>
  %Mc = tile.splat %M : i32 -> tensor<16x1xi32>
  %Nc = tile.splat %N : i32 -> tensor<16x1xi32>
  %Kc = tile.splat %K : i32 -> tensor<16x1xi32>
  %mok = arith.cmpi slt, %rmc, %Mc : tensor<16x1xi32>
  %nok = arith.cmpi slt, %rnc, %Nc : tensor<16x1xi32>
  %arow = arith.muli %rmc, %Kc : tensor<16x1xi32>
  %brow = arith.muli %rnc, %Kc : tensor<16x1xi32>
  %zero = arith.constant dense<0.0> : tensor<16x8xDT>
  %init = arith.constant dense<0.0> : tensor<16x16xf32>
  %abase = tile.splat %a : !tile.ptr<DT> -> tensor<16x8x!tile.ptr<DT>>
  %bbase = tile.splat %b : !tile.ptr<DT> -> tensor<16x8x!tile.ptr<DT>>
  %acc = scf.for %k = %c0 to %K step %c8 iter_args(%sum = %init) -> (tensor<16x16xf32>) : i32 {
    %ks = tile.splat %k : i32 -> tensor<8xi32>
    %rk = arith.addi %ks, %r8 : tensor<8xi32>
    %rkr = tile.expand_dims %rk, axis = 0 : tensor<8xi32> -> tensor<1x8xi32>
    %Kr = tile.splat %K : i32 -> tensor<1x8xi32>
    %kok = arith.cmpi slt, %rkr, %Kr : tensor<1x8xi32>
    %kokb = tile.broadcast %kok : tensor<1x8xi1> -> tensor<16x8xi1>
    %rkb = tile.broadcast %rkr : tensor<1x8xi32> -> tensor<16x8xi32>
    %arowb = tile.broadcast %arow : tensor<16x1xi32> -> tensor<16x8xi32>
    %aoff = arith.addi %arowb, %rkb : tensor<16x8xi32>
    %mokb = tile.broadcast %mok : tensor<16x1xi1> -> tensor<16x8xi1>
    %amask = arith.andi %mokb, %kokb : tensor<16x8xi1>
    %ap = tile.addptr %abase, %aoff : tensor<16x8x!tile.ptr<DT>>, tensor<16x8xi32>
    %at = tile.load %ap, %amask, %zero : tensor<16x8x!tile.ptr<DT>>
    %browb = tile.broadcast %brow : tensor<16x1xi32> -> tensor<16x8xi32>
    %boff = arith.addi %browb, %rkb : tensor<16x8xi32>
    %nokb = tile.broadcast %nok : tensor<16x1xi1> -> tensor<16x8xi1>
    %bmask = arith.andi %nokb, %kokb : tensor<16x8xi1>
    %bp = tile.addptr %bbase, %boff : tensor<16x8x!tile.ptr<DT>>, tensor<16x8xi32>
    %bnk = tile.load %bp, %bmask, %zero : tensor<16x8x!tile.ptr<DT>>
    %bt = tile.trans %bnk, order = [1, 0] : tensor<16x8xDT> -> tensor<8x16xDT>
    %next = tile.dot %at, %bt, %sum : tensor<16x8xDT> * tensor<8x16xDT> -> tensor<16x16xf32>
    scf.yield %next : tensor<16x16xf32>
  }
  %Nr = tile.splat %N : i32 -> tensor<16x1xi32>
  %crow = arith.muli %rmc, %Nr : tensor<16x1xi32>
  %crowb = tile.broadcast %crow : tensor<16x1xi32> -> tensor<16x16xi32>
  %rnb = tile.broadcast %rnr : tensor<1x16xi32> -> tensor<16x16xi32>
  %coff = arith.addi %crowb, %rnb : tensor<16x16xi32>
  %Nrow = tile.splat %N : i32 -> tensor<1x16xi32>
  %nokr = arith.cmpi slt, %rnr, %Nrow : tensor<1x16xi32>
  %mokc = tile.broadcast %mok : tensor<16x1xi1> -> tensor<16x16xi1>
  %nokc = tile.broadcast %nokr : tensor<1x16xi1> -> tensor<16x16xi1>
  %cmask = arith.andi %mokc, %nokc : tensor<16x16xi1>
  %cbase = tile.splat %c : !tile.ptr<f32> -> tensor<16x16x!tile.ptr<f32>>
  %cp = tile.addptr %cbase, %coff : tensor<16x16x!tile.ptr<f32>>, tensor<16x16xi32>
  tile.store %cp, %acc, %cmask : tensor<16x16x!tile.ptr<f32>>
  tile.return
}
)mlir";

constexpr llvm::StringLiteral kDotI8 = R"mlir(
tile.func @dot_i8(%a: !tile.ptr<i8>, %b: !tile.ptr<i8>, %c: !tile.ptr<i32>) {
  %ra = tile.make_range 0 to 512 : tensor<512xi32>
  %ab = tile.splat %a : !tile.ptr<i8> -> tensor<512x!tile.ptr<i8>>
  %ap = tile.addptr %ab, %ra : tensor<512x!tile.ptr<i8>>, tensor<512xi32>
  %af = tile.load %ap : tensor<512x!tile.ptr<i8>>
  %at = tile.reshape %af : tensor<512xi8> -> tensor<16x32xi8>
  %bb = tile.splat %b : !tile.ptr<i8> -> tensor<512x!tile.ptr<i8>>
  %bp = tile.addptr %bb, %ra : tensor<512x!tile.ptr<i8>>, tensor<512xi32>
  %bf = tile.load %bp : tensor<512x!tile.ptr<i8>>
  %bt = tile.reshape %bf : tensor<512xi8> -> tensor<32x16xi8>
  %zero = arith.constant dense<7> : tensor<16x16xi32>
  %ct = tile.dot %at, %bt, %zero : tensor<16x32xi8> * tensor<32x16xi8> -> tensor<16x16xi32>
  %cf = tile.reshape %ct : tensor<16x16xi32> -> tensor<256xi32>
  %rc = tile.make_range 0 to 256 : tensor<256xi32>
  %cb = tile.splat %c : !tile.ptr<i32> -> tensor<256x!tile.ptr<i32>>
  %cp = tile.addptr %cb, %rc : tensor<256x!tile.ptr<i32>>, tensor<256xi32>
  tile.store %cp, %cf : tensor<256x!tile.ptr<i32>>
  tile.return
}
)mlir";

// C[64, 64] = A[64, 64] * B[64, 64] + 1 of fp8 inputs (DT: f8E4M3FN or
// f8E5M2), row-major, accumulated in f32: one warpgroup's wgmma tile, B
// loaded as rows of N.
constexpr llvm::StringLiteral kDotF8 = R"mlir(
tile.func @dot_f8(%a: !tile.ptr<DT>, %b: !tile.ptr<DT>, %c: !tile.ptr<f32>) {
  %r = tile.make_range 0 to 64 : tensor<64xi32>
  %rows = tile.expand_dims %r, axis = 1 : tensor<64xi32> -> tensor<64x1xi32>
  %c64 = arith.constant dense<64> : tensor<64x1xi32>
  %rowOffsets = arith.muli %rows, %c64 : tensor<64x1xi32>
  %rowsb = tile.broadcast %rowOffsets : tensor<64x1xi32> -> tensor<64x64xi32>
  %cols = tile.expand_dims %r, axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
  %colsb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<64x64xi32>
  %offsets = arith.addi %rowsb, %colsb : tensor<64x64xi32>
  %ab = tile.splat %a : !tile.ptr<DT> -> tensor<64x64x!tile.ptr<DT>>
  %ap = tile.addptr %ab, %offsets : tensor<64x64x!tile.ptr<DT>>, tensor<64x64xi32>
  %at = tile.load %ap : tensor<64x64x!tile.ptr<DT>>
  %bb = tile.splat %b : !tile.ptr<DT> -> tensor<64x64x!tile.ptr<DT>>
  %bp = tile.addptr %bb, %offsets : tensor<64x64x!tile.ptr<DT>>, tensor<64x64xi32>
  %bt = tile.load %bp : tensor<64x64x!tile.ptr<DT>>
  %one = arith.constant dense<1.0> : tensor<64x64xf32>
  %ct = tile.dot %at, %bt, %one : tensor<64x64xDT> * tensor<64x64xDT> -> tensor<64x64xf32>
  %cb = tile.splat %c : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %cp = tile.addptr %cb, %offsets : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %cp, %ct : tensor<64x64x!tile.ptr<f32>>
  tile.return
}
)mlir";

// x and y rounded to the fp8 type DT (saturating), then x8 * y8 + x8
// computed in DT: fp8 conversions and arithmetic, on a ragged tail.
constexpr llvm::StringLiteral kFloat8Arithmetic = R"mlir(
tile.func @float8_ops(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %rounded: !tile.ptr<DT>,
                      %result: !tile.ptr<DT>, %wide: !tile.ptr<f32>, %n: i32) {
  %pid = tile.program_id x
  %c128 = arith.constant 128 : i32
  %start = arith.muli %pid, %c128 : i32
  %r = tile.make_range 0 to 128 : tensor<128xi32>
  %sb = tile.splat %start : i32 -> tensor<128xi32>
  %offs = arith.addi %sb, %r : tensor<128xi32>
  %nb = tile.splat %n : i32 -> tensor<128xi32>
  %mask = arith.cmpi slt, %offs, %nb : tensor<128xi32>
  %xb = tile.splat %x : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %xp = tile.addptr %xb, %offs : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %xv = tile.load %xp, %mask : tensor<128x!tile.ptr<f32>>
  %yb = tile.splat %y : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %yp = tile.addptr %yb, %offs : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %yv = tile.load %yp, %mask : tensor<128x!tile.ptr<f32>>
  %x8 = arith.truncf %xv : tensor<128xf32> to tensor<128xDT>
  %y8 = arith.truncf %yv : tensor<128xf32> to tensor<128xDT>
  %product = arith.mulf %x8, %y8 : tensor<128xDT>
  %sum = arith.addf %product, %x8 : tensor<128xDT>
  %rb = tile.splat %rounded : !tile.ptr<DT> -> tensor<128x!tile.ptr<DT>>
  %rp = tile.addptr %rb, %offs : tensor<128x!tile.ptr<DT>>, tensor<128xi32>
  tile.store %rp, %x8, %mask : tensor<128x!tile.ptr<DT>>
  %sp = tile.splat %result : !tile.ptr<DT> -> tensor<128x!tile.ptr<DT>>
  %spp = tile.addptr %sp, %offs : tensor<128x!tile.ptr<DT>>, tensor<128xi32>
  tile.store %spp, %sum, %mask : tensor<128x!tile.ptr<DT>>
  %w = arith.extf %sum : tensor<128xDT> to tensor<128xf32>
  %wb = tile.splat %wide : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %wp = tile.addptr %wb, %offs : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  tile.store %wp, %w, %mask : tensor<128x!tile.ptr<f32>>
  tile.return
}
)mlir";

// Each program counts 64 values into `bins` with atomic adds.
constexpr llvm::StringLiteral kHistogram = R"mlir(
tile.func @histogram(%values: !tile.ptr<i32>, %bins: !tile.ptr<i32>, %n: i32) {
  %pid = tile.program_id x
  %c64 = arith.constant 64 : i32
  %start = arith.muli %pid, %c64 : i32
  %r = tile.make_range 0 to 64 : tensor<64xi32>
  %starts = tile.splat %start : i32 -> tensor<64xi32>
  %offs = arith.addi %starts, %r : tensor<64xi32>
  %bound = tile.splat %n : i32 -> tensor<64xi32>
  %mask = arith.cmpi slt, %offs, %bound : tensor<64xi32>
  %vb = tile.splat %values : !tile.ptr<i32> -> tensor<64x!tile.ptr<i32>>
  %vp = tile.addptr %vb, %offs : tensor<64x!tile.ptr<i32>>, tensor<64xi32>
  %v = tile.load %vp, %mask : tensor<64x!tile.ptr<i32>>
  %bb = tile.splat %bins : !tile.ptr<i32> -> tensor<64x!tile.ptr<i32>>
  %bp = tile.addptr %bb, %v : tensor<64x!tile.ptr<i32>>, tensor<64xi32>
  %one = arith.constant dense<1> : tensor<64xi32>
  %old = tile.atomic_rmw add, relaxed, gpu, %bp, %one, %mask : tensor<64x!tile.ptr<i32>>
  tile.return
}
)mlir";

// Scalar atomics: max, xchg and compare-and-swap return the old value.
constexpr llvm::StringLiteral kScalarAtomics = R"mlir(
tile.func @atomics(%cell: !tile.ptr<i32>, %fcell: !tile.ptr<f32>, %olds: !tile.ptr<i32>) {
  %pid = tile.program_id x
  %ten = arith.constant 10 : i32
  %v = arith.subi %pid, %ten : i32
  %old = tile.atomic_rmw max, acq_rel, gpu, %cell, %v : !tile.ptr<i32>
  %op = tile.addptr %olds, %pid : !tile.ptr<i32>, i32
  tile.store %op, %old : !tile.ptr<i32>
  %vf = arith.sitofp %pid : i32 to f32
  %oldf = tile.atomic_rmw fadd, relaxed, gpu, %fcell, %vf : !tile.ptr<f32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %cellb = tile.addptr %cell, %c1 : !tile.ptr<i32>, i32
  %was = tile.atomic_cas acq_rel, gpu, %cellb, %c0, %pid : !tile.ptr<i32>
  tile.return
}
)mlir";

// Scales a [M, N] f32 matrix by 2 in 16x16 blocks through tensor descriptors:
// the edge blocks read zeros past the shape and drop their stores there.
constexpr llvm::StringLiteral kDescriptorScale = R"mlir(
tile.func @scale(%in: !tile.ptr<f32>, %out: !tile.ptr<f32>, %M: i32, %N: i32) {
  %pm = tile.program_id x
  %pn = tile.program_id y
  %c16 = arith.constant 16 : i32
  %row = arith.muli %pm, %c16 : i32
  %col = arith.muli %pn, %c16 : i32
  %one = arith.constant 1 : i64
  %ld = arith.extsi %N : i32 to i64
  %din = tile.make_tensor_descriptor %in, [%M, %N], [%ld, %one]
           : !tile.ptr<f32> -> !tile.tensordesc<tensor<16x16xf32>>
  %dout = tile.make_tensor_descriptor %out, [%M, %N], [%ld, %one]
           : !tile.ptr<f32> -> !tile.tensordesc<tensor<16x16xf32>>
  %blk = tile.descriptor_load %din[%row, %col] : !tile.tensordesc<tensor<16x16xf32>>
  %two = arith.constant dense<2.0> : tensor<16x16xf32>
  %scaled = arith.mulf %blk, %two : tensor<16x16xf32>
  tile.descriptor_store %dout[%row, %col], %scaled : !tile.tensordesc<tensor<16x16xf32>>
  tile.return
}
)mlir";

// Copies the 8x8 block at (row, col) of a [M, N] i32 or f32 tensor, padding
// included, into `block` through plain pointers.
constexpr llvm::StringLiteral kDescriptorPadding = R"mlir(
tile.func @pad(%in: !tile.ptr<f32>, %block: !tile.ptr<f32>, %M: i32, %N: i32,
               %row: i32, %col: i32) {
  %one = arith.constant 1 : i64
  %ld = arith.extsi %N : i32 to i64
  %d = tile.make_tensor_descriptor %in, [%M, %N], [%ld, %one] PADDING
         : !tile.ptr<f32> -> !tile.tensordesc<tensor<8x8xf32>>
  %blk = tile.descriptor_load %d[%row, %col] : !tile.tensordesc<tensor<8x8xf32>>
  %flat = tile.reshape %blk : tensor<8x8xf32> -> tensor<64xf32>
  %r = tile.make_range 0 to 64 : tensor<64xi32>
  %bb = tile.splat %block : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %bp = tile.addptr %bb, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  tile.store %bp, %flat : tensor<64x!tile.ptr<f32>>
  tile.return
}
)mlir";

// Pointers survive a round trip through i64 addresses.
constexpr llvm::StringLiteral kPointerRoundTrip = R"mlir(
tile.func @roundtrip(%p: !tile.ptr<i32>) {
  %c3 = arith.constant 3 : i32
  %q = tile.addptr %p, %c3 : !tile.ptr<i32>, i32
  %addr = tile.ptr_to_int %q : !tile.ptr<i32> -> i64
  %back = tile.int_to_ptr %addr : i64 -> !tile.ptr<i32>
  %v = arith.constant 42 : i32
  tile.store %back, %v : !tile.ptr<i32>
  tile.return
}
)mlir";

// Rows centered on their mean, two rows a block, each program taking every
// `programs`-th block in a loop that asks for STAGES stages (Triton's
// tl.range(..., num_stages=STAGES): a persistent row kernel); rows of
// `ncols` <= 128 elements, the last block ragged where `nrows` is odd.
constexpr llvm::StringLiteral kPersistentCenteredRows = R"mlir(
tile.func @centered_rows(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %nrows: i32, %ncols: i32) {
  %pid = tile.program_id x
  %programs = tile.num_programs x
  %c2 = arith.constant 2 : i32
  %first = arith.muli %pid, %c2 : i32
  %step = arith.muli %programs, %c2 : i32
  %pair = tile.make_range 0 to 2 : tensor<2xi32>
  %cols = tile.make_range 0 to 128 : tensor<128xi32>
  %colsr = tile.expand_dims %cols, axis = 0 : tensor<128xi32> -> tensor<1x128xi32>
  %cols2 = tile.broadcast %colsr : tensor<1x128xi32> -> tensor<2x128xi32>
  %width = tile.splat %ncols : i32 -> tensor<2x128xi32>
  %incols = arith.cmpi slt, %cols2, %width : tensor<2x128xi32>
  %zero = arith.constant dense<0.0> : tensor<2x128xf32>
  %nf = arith.sitofp %ncols : i32 to f32
  %n2 = tile.splat %nf : f32 -> tensor<2xf32>
  %xb = tile.splat %x : !tile.ptr<f32> -> tensor<2x128x!tile.ptr<f32>>
  %yb = tile.splat %y : !tile.ptr<f32> -> tensor<2x128x!tile.ptr<f32>>
  scf.for %block = %first to %nrows step %step : i32 {
    %b = tile.splat %block : i32 -> tensor<2xi32>
    %rows = arith.addi %b, %pair : tensor<2xi32>
    %rowsc = tile.expand_dims %rows, axis = 1 : tensor<2xi32> -> tensor<2x1xi32>
    %rows2 = tile.broadcast %rowsc : tensor<2x1xi32> -> tensor<2x128xi32>
    %height = tile.splat %nrows : i32 -> tensor<2x128xi32>
    %inrows = arith.cmpi slt, %rows2, %height : tensor<2x128xi32>
    %mask = arith.andi %inrows, %incols : tensor<2x128xi1>
    %starts = arith.muli %rows2, %width : tensor<2x128xi32>
    %offs = arith.addi %starts, %cols2 : tensor<2x128xi32>
    %p = tile.addptr %xb, %offs : tensor<2x128x!tile.ptr<f32>>, tensor<2x128xi32>
    %v = tile.load %p, %mask, %zero : tensor<2x128x!tile.ptr<f32>>
    %sum = tile.reduce %v axis = 1 : tensor<2x128xf32> {
    ^bb0(%l: f32, %r: f32):
      %s = arith.addf %l, %r : f32
      tile.yield %s : f32
    }
    %mean = arith.divf %sum, %n2 : tensor<2xf32>
    %meanc = tile.expand_dims %mean, axis = 1 : tensor<2xf32> -> tensor<2x1xf32>
    %means = tile.broadcast %meanc : tensor<2x1xf32> -> tensor<2x128xf32>
    %centered = arith.subf %v, %means : tensor<2x128xf32>
    %q = tile.addptr %yb, %offs : tensor<2x128x!tile.ptr<f32>>, tensor<2x128xi32>
    tile.store %q, %centered, %mask : tensor<2x128x!tile.ptr<f32>>
  } {tile.num_stages = STAGES : i32}
  tile.return
}
)mlir";

// Each program sums its row of `ncols` elements 64 at a time in a loop that
// asks for STAGES stages, the partial sums carried; the last chunk ragged.
constexpr llvm::StringLiteral kChunkedRowSums = R"mlir(
tile.func @row_sums(%x: !tile.ptr<f32>, %sums: !tile.ptr<f32>, %ncols: i32) {
  %row = tile.program_id x
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %start = arith.muli %row, %ncols : i32
  %xrow = tile.addptr %x, %start : !tile.ptr<f32>, i32
  %xb = tile.splat %xrow : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %lanes = tile.make_range 0 to 64 : tensor<64xi32>
  %width = tile.splat %ncols : i32 -> tensor<64xi32>
  %zero = arith.constant dense<0.0> : tensor<64xf32>
  %total = scf.for %chunk = %c0 to %ncols step %c64 iter_args(%acc = %zero)
      -> (tensor<64xf32>) : i32 {
    %first = tile.splat %chunk : i32 -> tensor<64xi32>
    %cols = arith.addi %first, %lanes : tensor<64xi32>
    %mask = arith.cmpi slt, %cols, %width : tensor<64xi32>
    %p = tile.addptr %xb, %cols : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
    %v = tile.load %p, %mask, %zero : tensor<64x!tile.ptr<f32>>
    %next = arith.addf %acc, %v : tensor<64xf32>
    scf.yield %next : tensor<64xf32>
  } {tile.num_stages = STAGES : i32}
  %sum = tile.reduce %total axis = 0 : tensor<64xf32> {
  ^bb0(%l: f32, %r: f32):
    %s = arith.addf %l, %r : f32
    tile.yield %s : f32
  }
  %out = tile.addptr %sums, %row : !tile.ptr<f32>, i32
  tile.store %out, %sum : !tile.ptr<f32>
  tile.return
}
)mlir";

// Each program copies every `programs`-th row of 64 elements of x, gathered
// through 64 indices a row, in a loop that asks for STAGES stages:
// y[row, c] = x[idx[row, c]].
constexpr llvm::StringLiteral kGatheredRows = R"mlir(
tile.func @gathered_rows(%idx: !tile.ptr<i32>, %x: !tile.ptr<f32>, %y: !tile.ptr<f32>,
                         %nrows: i32) {
  %pid = tile.program_id x
  %programs = tile.num_programs x
  %c64 = arith.constant 64 : i32
  %cols = tile.make_range 0 to 64 : tensor<64xi32>
  %ib = tile.splat %idx : !tile.ptr<i32> -> tensor<64x!tile.ptr<i32>>
  %xb = tile.splat %x : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %yb = tile.splat %y : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  scf.for %row = %pid to %nrows step %programs : i32 {
    %start = arith.muli %row, %c64 : i32
    %starts = tile.splat %start : i32 -> tensor<64xi32>
    %offs = arith.addi %starts, %cols : tensor<64xi32>
    %ip = tile.addptr %ib, %offs : tensor<64x!tile.ptr<i32>>, tensor<64xi32>
    %i = tile.load %ip : tensor<64x!tile.ptr<i32>>
    %p = tile.addptr %xb, %i : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
    %v = tile.load %p : tensor<64x!tile.ptr<f32>>
    %q = tile.addptr %yb, %offs : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
    tile.store %q, %v : tensor<64x!tile.ptr<f32>>
  } {tile.num_stages = STAGES : i32}
  tile.return
}
)mlir";

// y[r] = x[r] + w[r] over `nrows` rows of 64, one program, in a loop that
// asks for STAGES stages: x's row through a pointer tile the loop advances,
// w's and y's through offsets from the induction variable.
constexpr llvm::StringLiteral kWalkedRows = R"mlir(
tile.func @walked_rows(%x: !tile.ptr<f32>, %w: !tile.ptr<f32>, %y: !tile.ptr<f32>,
                       %nrows: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %cols = tile.make_range 0 to 64 : tensor<64xi32>
  %stride = tile.splat %c64 : i32 -> tensor<64xi32>
  %xb = tile.splat %x : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %first = tile.addptr %xb, %cols : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %wb = tile.splat %w : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %yb = tile.splat %y : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %last = scf.for %i = %c0 to %nrows step %c1 iter_args(%p = %first)
      -> (tensor<64x!tile.ptr<f32>>) : i32 {
    %v = tile.load %p : tensor<64x!tile.ptr<f32>>
    %start = arith.muli %i, %c64 : i32
    %starts = tile.splat %start : i32 -> tensor<64xi32>
    %offs = arith.addi %starts, %cols : tensor<64xi32>
    %wp = tile.addptr %wb, %offs : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
    %wv = tile.load %wp : tensor<64x!tile.ptr<f32>>
    %sum = arith.addf %v, %wv : tensor<64xf32>
    %q = tile.addptr %yb, %offs : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
    tile.store %q, %sum : tensor<64x!tile.ptr<f32>>
    %next = tile.addptr %p, %stride : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
    scf.yield %next : tensor<64x!tile.ptr<f32>>
  } {tile.num_stages = STAGES : i32}
  tile.return
}
)mlir";

// One program per row; a row of `ncols` <= 128 elements, `stride` apart.
constexpr llvm::StringLiteral kSoftmax = R"mlir(
tile.func @softmax(%in: !tile.ptr<f32>, %out: !tile.ptr<f32>, %stride: i32, %ncols: i32) {
  %row = tile.program_id x
  %start = arith.muli %row, %stride : i32
  %inrow = tile.addptr %in, %start : !tile.ptr<f32>, i32
  %outrow = tile.addptr %out, %start : !tile.ptr<f32>, i32
  %cols = tile.make_range 0 to 128 : tensor<128xi32>
  %bound = tile.splat %ncols : i32 -> tensor<128xi32>
  %mask = arith.cmpi slt, %cols, %bound : tensor<128xi32>
  %pb = tile.splat %inrow : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %p = tile.addptr %pb, %cols : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %ninf = arith.constant dense<0xFF800000> : tensor<128xf32>
  %x = tile.load %p, %mask, %ninf : tensor<128x!tile.ptr<f32>>
  %max = tile.reduce %x axis = 0 : tensor<128xf32> {
  ^bb0(%a: f32, %b: f32):
    %m = arith.maximumf %a, %b : f32
    tile.yield %m : f32
  }
  %maxs = tile.splat %max : f32 -> tensor<128xf32>
  %shifted = arith.subf %x, %maxs : tensor<128xf32>
  %e = math.exp %shifted : tensor<128xf32>
  %sum = tile.reduce %e axis = 0 : tensor<128xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tile.yield %s : f32
  }
  %sums = tile.splat %sum : f32 -> tensor<128xf32>
  %y = arith.divf %e, %sums : tensor<128xf32>
  %qb = tile.splat %outrow : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %q = tile.addptr %qb, %cols : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  tile.store %q, %y, %mask : tensor<128x!tile.ptr<f32>>
  tile.return
}
)mlir";

// y = (x - mean) / sqrt(var + eps) * w + b over rows of `n` <= 128 elements.
constexpr llvm::StringLiteral kLayerNorm = R"mlir(
tile.func @layernorm(%x: !tile.ptr<f32>, %w: !tile.ptr<f32>, %b: !tile.ptr<f32>,
                     %y: !tile.ptr<f32>, %n: i32, %eps: f32) {
  %row = tile.program_id x
  %start = arith.muli %row, %n : i32
  %cols = tile.make_range 0 to 128 : tensor<128xi32>
  %bound = tile.splat %n : i32 -> tensor<128xi32>
  %mask = arith.cmpi slt, %cols, %bound : tensor<128xi32>
  %zero = arith.constant dense<0.0> : tensor<128xf32>
  %xrow = tile.addptr %x, %start : !tile.ptr<f32>, i32
  %xb = tile.splat %xrow : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %xp = tile.addptr %xb, %cols : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %xv = tile.load %xp, %mask, %zero : tensor<128x!tile.ptr<f32>>
  %sum = tile.reduce %xv axis = 0 : tensor<128xf32> {
  ^bb0(%l: f32, %r: f32):
    %s = arith.addf %l, %r : f32
    tile.yield %s : f32
  }
  %nf = arith.sitofp %n : i32 to f32
  %mean = arith.divf %sum, %nf : f32
  %means = tile.splat %mean : f32 -> tensor<128xf32>
  %centered = arith.subf %xv, %means : tensor<128xf32>
  %diff = arith.select %mask, %centered, %zero : tensor<128xi1>, tensor<128xf32>
  %sq = arith.mulf %diff, %diff : tensor<128xf32>
  %sqsum = tile.reduce %sq axis = 0 : tensor<128xf32> {
  ^bb0(%l: f32, %r: f32):
    %s = arith.addf %l, %r : f32
    tile.yield %s : f32
  }
  %var = arith.divf %sqsum, %nf : f32
  %vareps = arith.addf %var, %eps : f32
  %rstd = math.rsqrt %vareps : f32
  %rstds = tile.splat %rstd : f32 -> tensor<128xf32>
  %normed = arith.mulf %diff, %rstds : tensor<128xf32>
  %wb = tile.splat %w : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %wp = tile.addptr %wb, %cols : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %wv = tile.load %wp, %mask : tensor<128x!tile.ptr<f32>>
  %bb = tile.splat %b : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %bp = tile.addptr %bb, %cols : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %bv = tile.load %bp, %mask : tensor<128x!tile.ptr<f32>>
  %out = math.fma %normed, %wv, %bv : tensor<128xf32>
  %yrow = tile.addptr %y, %start : !tile.ptr<f32>, i32
  %yb = tile.splat %yrow : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %yp = tile.addptr %yb, %cols : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  tile.store %yp, %out, %mask : tensor<128x!tile.ptr<f32>>
  tile.return
}
)mlir";

// Per row: the maximum and the smallest index holding it.
constexpr llvm::StringLiteral kArgmax = R"mlir(
tile.func @argmax(%x: !tile.ptr<f32>, %max: !tile.ptr<f32>, %idx: !tile.ptr<i32>, %n: i32) {
  %row = tile.program_id x
  %start = arith.muli %row, %n : i32
  %cols = tile.make_range 0 to 64 : tensor<64xi32>
  %bound = tile.splat %n : i32 -> tensor<64xi32>
  %mask = arith.cmpi slt, %cols, %bound : tensor<64xi32>
  %ninf = arith.constant dense<0xFF800000> : tensor<64xf32>
  %xrow = tile.addptr %x, %start : !tile.ptr<f32>, i32
  %xb = tile.splat %xrow : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %xp = tile.addptr %xb, %cols : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %xv = tile.load %xp, %mask, %ninf : tensor<64x!tile.ptr<f32>>
  %m, %i = tile.reduce %xv, %cols axis = 0 : tensor<64xf32>, tensor<64xi32> {
  ^bb0(%a: f32, %ai: i32, %b: f32, %bi: i32):
    %gt = arith.cmpf ogt, %a, %b : f32
    %eq = arith.cmpf oeq, %a, %b : f32
    %lower = arith.cmpi slt, %ai, %bi : i32
    %tie = arith.andi %eq, %lower : i1
    %keep = arith.ori %gt, %tie : i1
    %v = arith.select %keep, %a, %b : f32
    %vi = arith.select %keep, %ai, %bi : i32
    tile.yield %v, %vi : f32, i32
  }
  %mp = tile.addptr %max, %row : !tile.ptr<f32>, i32
  tile.store %mp, %m : !tile.ptr<f32>
  %ip = tile.addptr %idx, %row : !tile.ptr<i32>, i32
  tile.store %ip, %i : !tile.ptr<i32>
  tile.return
}
)mlir";

// Inclusive cumulative sums of a 2-D tile along axis 1, forward or REVERSE.
constexpr llvm::StringLiteral kCumsum = R"mlir(
tile.func @cumsum(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %n: i32) {
  %r = tile.make_range 0 to 32 : tensor<32xi32>
  %bound = tile.splat %n : i32 -> tensor<32xi32>
  %mask1 = arith.cmpi slt, %r, %bound : tensor<32xi32>
  %maskr = tile.expand_dims %mask1, axis = 0 : tensor<32xi1> -> tensor<1x32xi1>
  %mask = tile.broadcast %maskr : tensor<1x32xi1> -> tensor<4x32xi1>
  %cols = tile.expand_dims %r, axis = 0 : tensor<32xi32> -> tensor<1x32xi32>
  %colsb = tile.broadcast %cols : tensor<1x32xi32> -> tensor<4x32xi32>
  %r4 = tile.make_range 0 to 4 : tensor<4xi32>
  %rows = tile.expand_dims %r4, axis = 1 : tensor<4xi32> -> tensor<4x1xi32>
  %ns = tile.splat %n : i32 -> tensor<4x1xi32>
  %rowoff = arith.muli %rows, %ns : tensor<4x1xi32>
  %rowoffb = tile.broadcast %rowoff : tensor<4x1xi32> -> tensor<4x32xi32>
  %offs = arith.addi %rowoffb, %colsb : tensor<4x32xi32>
  %zero = arith.constant dense<0.0> : tensor<4x32xf32>
  %xb = tile.splat %x : !tile.ptr<f32> -> tensor<4x32x!tile.ptr<f32>>
  %xp = tile.addptr %xb, %offs : tensor<4x32x!tile.ptr<f32>>, tensor<4x32xi32>
  %xv = tile.load %xp, %mask, %zero : tensor<4x32x!tile.ptr<f32>>
  %c = tile.scan %xv axis = 1 REVERSE : tensor<4x32xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tile.yield %s : f32
  }
  %yb = tile.splat %y : !tile.ptr<f32> -> tensor<4x32x!tile.ptr<f32>>
  %yp = tile.addptr %yb, %offs : tensor<4x32x!tile.ptr<f32>>, tensor<4x32xi32>
  tile.store %yp, %c, %mask : tensor<4x32x!tile.ptr<f32>>
  tile.return
}
)mlir";

} // namespace tessera::test_kernels

#endif // TESSERA_TESTS_UNIT_KERNELS_TILEKERNELS_H
