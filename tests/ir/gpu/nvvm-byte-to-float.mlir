// RUN: tessera-opt %s --pass-pipeline='builtin.module(gpu.module(tessera-nvvm-byte-to-float))' | FileCheck %s
// RUN: tessera-opt %s --pass-pipeline='builtin.module(gpu.module(tessera-nvvm-byte-to-float{bf16-subtraction=1}))' | FileCheck %s --check-prefix=SUB

// Neighbouring bytes of one word: their 32-bit lane, its bytes offset by 128
// once (xor 0x80808080 = -2139062144), bytes 0 and 1 into halves 0x64XX by
// one prmt (selector 0x4140 = 16704, the exponent bytes 0x64646464 =
// 1684300900), less 1152 two at a time; bytes 6 and 7 from the second lane
// (0x4342 = 17218).
// CHECK-LABEL: gpu.func @halves
// CHECK: %[[LANES:.*]] = vector.bitcast %arg0 : vector<8xi8> to vector<2xi32>
// CHECK: %[[HIGH:.*]] = vector.extract %[[LANES]][1] : i32 from vector<2xi32>
// CHECK: %[[FLIP:.*]] = arith.constant -2139062144 : i32
// CHECK: %[[HIGH_OFFSET:.*]] = arith.xori %[[HIGH]], %[[FLIP]] : i32
// CHECK: %[[LOW:.*]] = vector.extract %[[LANES]][0] : i32 from vector<2xi32>
// CHECK: %[[LOW_OFFSET:.*]] = arith.xori %[[LOW]], %{{.*}} : i32
// CHECK-DAG: %[[EXPONENT:.*]] = arith.constant 1684300900 : i32
// CHECK-DAG: %[[FIRST_PAIR:.*]] = arith.constant 16704 : i32
// CHECK: %[[PAIR:.*]] = nvvm.prmt <default> %[[FIRST_PAIR]], %[[LOW_OFFSET]], %[[EXPONENT]] : i32
// CHECK: %[[BIASED:.*]] = llvm.bitcast %[[PAIR]] : i32 to vector<2xf16>
// CHECK: %[[BIAS:.*]] = arith.constant dense<1.152000e+03> : vector<2xf16>
// CHECK: %[[VALUES:.*]] = arith.subf %[[BIASED]], %[[BIAS]] : vector<2xf16>
// CHECK: %[[A:.*]] = vector.extract %[[VALUES]][0] : f16 from vector<2xf16>
// CHECK: %[[B:.*]] = vector.extract %[[VALUES]][1] : f16 from vector<2xf16>
// CHECK: %[[LAST_PAIR:.*]] = arith.constant 17218 : i32
// CHECK: nvvm.prmt <default> %[[LAST_PAIR]], %[[HIGH_OFFSET]], %{{.*}} : i32
// CHECK-NOT: arith.sitofp
// CHECK: gpu.return %[[A]], %[[B]]

// Unsigned bytes are not offset: byte 2 alone, twice (0x4242 = 16962),
// less 1024. bf16 as f32 (0x4B0000XX: 0x4B000000 = 1258291200, selector
// 0x7440 for byte 0 = 29760) less 2^23, a byte not from a vector
// zero-extended, byte 5 from the second lane (0x7441 = 29761); then the
// high halves of the two (0x7632 = 30258). f32 of a signed byte: less
// 2^23 + 128. An i16 is left as it is.
// CHECK-LABEL: gpu.func @mixed
// CHECK: %[[LANES:.*]] = vector.bitcast %arg0 : vector<8xi8> to vector<2xi32>
// CHECK: %[[LOW:.*]] = vector.extract %[[LANES]][0]
// CHECK: %[[HIGH:.*]] = vector.extract %[[LANES]][1]
// CHECK: %[[HIGH_OFFSET:.*]] = arith.xori %[[HIGH]]
// CHECK: %[[TWICE:.*]] = arith.constant 16962 : i32
// CHECK: nvvm.prmt <default> %[[TWICE]], %[[LOW]], %{{.*}} : i32
// CHECK: arith.constant dense<1.024000e+03> : vector<2xf16>
// CHECK: %[[LOOSE:.*]] = arith.extui %arg1 : i8 to i32
// CHECK-DAG: %[[SINGLE:.*]] = arith.constant 1258291200 : i32
// CHECK-DAG: %[[BYTE0:.*]] = arith.constant 29760 : i32
// CHECK: %[[BITS0:.*]] = nvvm.prmt <default> %[[BYTE0]], %[[LOOSE]], %[[SINGLE]] : i32
// CHECK: %[[F0:.*]] = arith.bitcast %[[BITS0]] : i32 to f32
// CHECK: %[[UNITS:.*]] = arith.constant 0x4B000000 : f32
// CHECK: %[[V0:.*]] = arith.subf %[[F0]], %[[UNITS]] : f32
// CHECK: %[[W0:.*]] = arith.bitcast %[[V0]] : f32 to i32
// CHECK: %[[BYTE5:.*]] = arith.constant 29761 : i32
// CHECK: nvvm.prmt <default> %[[BYTE5]], %[[HIGH]], %{{.*}} : i32
// CHECK: %[[W1:.*]] = arith.bitcast %{{.*}} : f32 to i32
// CHECK: %[[HIGH_HALVES:.*]] = arith.constant 30258 : i32
// CHECK: %[[PACKED:.*]] = nvvm.prmt <default> %[[HIGH_HALVES]], %[[W0]], %[[W1]] : i32
// CHECK: llvm.bitcast %[[PACKED]] : i32 to vector<2xbf16>
// CHECK: nvvm.prmt <default> %{{.*}}, %[[HIGH_OFFSET]], %{{.*}} : i32
// CHECK: arith.constant 0x4B000080 : f32
// CHECK: arith.sitofp %arg2 : i16 to f16
// Signed bytes to bf16: through f32 by default; with bf16-subtraction
// (sm_90), the bytes unoffset into bf16 halves 0x43XX (0x43434343 =
// 1128481603, bytes 0 and 3: 0x4340 = 17216), masked to 128 + the low 7
// bits (0x437F437F = 1132413823) and to 128 or 256 (0x43804380 =
// 1132479360), the second subtracted from the first two at a time.
// CHECK-LABEL: gpu.func @signed_bf16
// CHECK: arith.constant 0x4B000080 : f32
// SUB-LABEL: gpu.func @signed_bf16
// SUB: %[[LANES:.*]] = vector.bitcast %arg0 : vector<4xi8> to vector<1xi32>
// SUB: %[[WORD:.*]] = vector.extract %[[LANES]][0] : i32 from vector<1xi32>
// SUB-NOT: arith.xori
// SUB-DAG: %[[EXPONENT:.*]] = arith.constant 1128481603 : i32
// SUB-DAG: %[[BYTES_0_3:.*]] = arith.constant 17216 : i32
// SUB: %[[PAIR:.*]] = nvvm.prmt <default> %[[BYTES_0_3]], %[[WORD]], %[[EXPONENT]] : i32
// SUB: %[[LOW_BITS:.*]] = arith.constant 1132413823 : i32
// SUB: %[[MAGNITUDE:.*]] = arith.andi %[[PAIR]], %[[LOW_BITS]] : i32
// SUB: %[[MAGNITUDES:.*]] = llvm.bitcast %[[MAGNITUDE]] : i32 to vector<2xbf16>
// SUB: %[[SIGN_BITS:.*]] = arith.constant 1132479360 : i32
// SUB: %[[SIGN:.*]] = arith.andi %[[PAIR]], %[[SIGN_BITS]] : i32
// SUB: %[[SIGNS:.*]] = llvm.bitcast %[[SIGN]] : i32 to vector<2xbf16>
// SUB: %[[VALUES:.*]] = arith.subf %[[MAGNITUDES]], %[[SIGNS]] : vector<2xbf16>
// SUB: %[[A:.*]] = vector.extract %[[VALUES]][0] : bf16 from vector<2xbf16>
// SUB: %[[B:.*]] = vector.extract %[[VALUES]][1] : bf16 from vector<2xbf16>
// SUB: gpu.return %[[A]], %[[B]]
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
    gpu.func @halves(%bytes: vector<8xi8>) -> (f16, f16, f16, f16) {
      %0 = vector.extract %bytes[0] : i8 from vector<8xi8>
      %1 = vector.extract %bytes[1] : i8 from vector<8xi8>
      %2 = vector.extract %bytes[6] : i8 from vector<8xi8>
      %3 = vector.extract %bytes[7] : i8 from vector<8xi8>
      %a = arith.sitofp %0 : i8 to f16
      %b = arith.sitofp %1 : i8 to f16
      %c = arith.sitofp %2 : i8 to f16
      %d = arith.sitofp %3 : i8 to f16
      gpu.return %a, %b, %c, %d : f16, f16, f16, f16
    }
    gpu.func @mixed(%bytes: vector<8xi8>, %loose: i8, %wide: i16) -> (f16, bf16, bf16, f32, f16) {
      %0 = vector.extract %bytes[2] : i8 from vector<8xi8>
      %1 = vector.extract %bytes[5] : i8 from vector<8xi8>
      %a = arith.uitofp %0 : i8 to f16
      %b = arith.uitofp %loose : i8 to bf16
      %c = arith.uitofp %1 : i8 to bf16
      %d = arith.sitofp %1 : i8 to f32
      %e = arith.sitofp %wide : i16 to f16
      gpu.return %a, %b, %c, %d, %e : f16, bf16, bf16, f32, f16
    }
    gpu.func @signed_bf16(%bytes: vector<4xi8>) -> (bf16, bf16) {
      %0 = vector.extract %bytes[0] : i8 from vector<4xi8>
      %1 = vector.extract %bytes[3] : i8 from vector<4xi8>
      %a = arith.sitofp %0 : i8 to bf16
      %b = arith.sitofp %1 : i8 to bf16
      gpu.return %a, %b : bf16, bf16
    }
  }
}
