// RUN: tessera-opt %s -split-input-file -tile-cpu-split-vectors="vector-bits=512" -cse | FileCheck %s
// RUN: tessera-opt %s -split-input-file -tile-cpu-split-vectors="vector-bits=256" -cse | FileCheck %s --check-prefix=AVX2

// A chain of elementwise ops on a 64-lane tile becomes the same chain on
// four 16-lane chunks (eight 8-lane ones for 256-bit registers), computed
// chunk after chunk and concatenated once for the return.
// CHECK-LABEL: func.func @chain(
// CHECK-COUNT-4: arith.mulf %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK-NOT: arith.mulf
// CHECK: return %{{.*}} : vector<64xf32>
// AVX2-LABEL: func.func @chain(
// AVX2-COUNT-8: arith.mulf %{{.*}}, %{{.*}} : vector<8xf32>
func.func @chain(%a: vector<64xf32>, %b: vector<64xf32>) -> vector<64xf32> {
  %m = arith.mulf %a, %b : vector<64xf32>
  %s = arith.addf %m, %a : vector<64xf32>
  return %s : vector<64xf32>
}

// -----

// A vector that fits one register is left alone.
// CHECK-LABEL: func.func @short(
// CHECK-NEXT: %[[N:.*]] = arith.negf %{{.*}} : vector<16xf32>
// CHECK-NEXT: return %[[N]]
func.func @short(%a: vector<16xf32>) -> vector<16xf32> {
  %n = arith.negf %a : vector<16xf32>
  return %n : vector<16xf32>
}

// -----

// A transpose of an 8x8 tile loaded and stored whole: a load and a store per
// chunk, and each result chunk gathered from the four source chunks its
// lanes come from, one more per shuffle; no 64-lane shuffle is left.
// CHECK-LABEL: func.func @transpose(
// CHECK-COUNT-4: llvm.load %{{.*}} : !llvm.ptr -> vector<16xf32>
// CHECK: %[[A:.*]] = llvm.shufflevector %{{.*}}, %{{.*}} [0, 8, 16, 24, -1, -1, -1, -1, 1, 9, 17, 25, -1, -1, -1, -1] : vector<16xf32>
// CHECK: %[[B:.*]] = llvm.shufflevector %[[A]], %{{.*}} [0, 1, 2, 3, 16, 24, -1, -1, 8, 9, 10, 11, 17, 25, -1, -1] : vector<16xf32>
// CHECK: %[[C:.*]] = llvm.shufflevector %[[B]], %{{.*}} [0, 1, 2, 3, 4, 5, 16, 24, 8, 9, 10, 11, 12, 13, 17, 25] : vector<16xf32>
// CHECK: llvm.store %[[C]], %{{.*}} : vector<16xf32>, !llvm.ptr
// CHECK-NOT: vector<64xf32>
func.func @transpose(%p: !llvm.ptr, %q: !llvm.ptr) {
  %v = llvm.load %p {alignment = 4 : i64} : !llvm.ptr -> vector<64xf32>
  %t = llvm.shufflevector %v, %v [0, 8, 16, 24, 32, 40, 48, 56, 1, 9, 17, 25, 33, 41, 49, 57, 2, 10, 18, 26, 34, 42, 50, 58, 3, 11, 19, 27, 35, 43, 51, 59, 4, 12, 20, 28, 36, 44, 52, 60, 5, 13, 21, 29, 37, 45, 53, 61, 6, 14, 22, 30, 38, 46, 54, 62, 7, 15, 23, 31, 39, 47, 55, 63] : vector<64xf32>
  llvm.store %t, %q {alignment = 4 : i64} : vector<64xf32>, !llvm.ptr
  return
}

// -----

// Whole chunks of a vector that is not split are selected as they are; any
// other shuffle of it goes chunk by chunk from register-sized extracts.
// CHECK-LABEL: func.func @unsplit_operand(
// CHECK: %[[LOW:.*]] = llvm.shufflevector %[[A:.*]], %[[A]] [0, 1, {{.*}}, 14, 15] : vector<32xf32>
// CHECK-NEXT: llvm.shufflevector %[[LOW]], %[[LOW]] [15, 14, {{.*}}, 1, 0] : vector<16xf32>
// CHECK: %[[SWAPPED:.*]] = llvm.shufflevector %[[A]], %[[A]] [16, 17, {{.*}}, 30, 31, 0, 1, {{.*}}] : vector<32xf32>
// CHECK-NEXT: return %[[SWAPPED]],
func.func @unsplit_operand(%a: vector<32xf32>) -> (vector<32xf32>, vector<32xf32>) {
  %swapped = llvm.shufflevector %a, %a [16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] : vector<32xf32>
  %reversed = llvm.shufflevector %a, %a [31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0] : vector<32xf32>
  return %swapped, %reversed : vector<32xf32>, vector<32xf32>
}
