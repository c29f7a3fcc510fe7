// RUN: tessera-opt %s -split-input-file -tile-gpu-widen-float8-dots="target=cuda:sm_90a num-warps=4" | FileCheck %s --check-prefix=SM90
// RUN: tessera-opt %s -split-input-file -tile-gpu-widen-float8-dots="target=cuda:sm_90a num-warps=2" | FileCheck %s --check-prefix=TWO
// RUN: tessera-opt %s -split-input-file -tile-gpu-widen-float8-dots="target=cuda:sm_80 num-warps=4" | FileCheck %s --check-prefix=SM80
// RUN: tessera-opt %s -split-input-file -tile-gpu-widen-float8-dots="target=hip:gfx942 num-warps=4" | FileCheck %s --check-prefix=SM80
// RUN: not tessera-opt %s -split-input-file -tile-gpu-widen-float8-dots="target=cuda:sm_1" 2>&1 | FileCheck %s --check-prefix=BAD

// An fp8 dot stays where an fp8 instruction takes it: wgmma into f32 or f16
// on sm_90a with whole warpgroups, mma.sync's k32 form (f32 only) on two
// warps. Everything else widens to f16, max_num_imprecise_acc dropped.
// SM90-LABEL: tile.func private @gemm
// SM90-NOT: arith.extf
// SM90: tile.dot %{{.*}} max_num_imprecise_acc = 32 : tensor<64x64xf8E4M3FN> * tensor<64x64xf8E5M2> -> tensor<64x64xf32>
// SM90-NOT: arith.extf
// SM90: tile.dot %{{.*}} : tensor<64x64xf8E4M3FN> * tensor<64x64xf8E5M2> -> tensor<64x64xf16>
// TWO-LABEL: tile.func private @gemm
// TWO: tile.dot %{{.*}} max_num_imprecise_acc = 32 : tensor<64x64xf8E4M3FN> * tensor<64x64xf8E5M2> -> tensor<64x64xf32>
// TWO: arith.extf %{{.*}} : tensor<64x64xf8E4M3FN> to tensor<64x64xf16>
// TWO: arith.extf %{{.*}} : tensor<64x64xf8E5M2> to tensor<64x64xf16>
// TWO: tile.dot %{{.*}} : tensor<64x64xf16> * tensor<64x64xf16> -> tensor<64x64xf16>
// SM80-LABEL: tile.func private @gemm
// SM80: arith.extf %{{.*}} : tensor<64x64xf8E4M3FN> to tensor<64x64xf16>
// SM80: arith.extf %{{.*}} : tensor<64x64xf8E5M2> to tensor<64x64xf16>
// SM80: tile.dot %{{.*}} : tensor<64x64xf16> * tensor<64x64xf16> -> tensor<64x64xf32>
// SM80-NOT: max_num_imprecise_acc
// SM80: tile.dot %{{.*}} : tensor<64x64xf16> * tensor<64x64xf16> -> tensor<64x64xf16>
// BAD: tile-gpu-widen-float8-dots needs target=<spec>
tile.func private @gemm(%a: tensor<64x64xf8E4M3FN>, %b: tensor<64x64xf8E5M2>,
                        %acc: tensor<64x64xf32>, %acc16: tensor<64x64xf16>)
    -> (tensor<64x64xf32>, tensor<64x64xf16>) {
  %c = tile.dot %a, %b, %acc max_num_imprecise_acc = 32
      : tensor<64x64xf8E4M3FN> * tensor<64x64xf8E5M2> -> tensor<64x64xf32>
  %d = tile.dot %a, %b, %acc16
      : tensor<64x64xf8E4M3FN> * tensor<64x64xf8E5M2> -> tensor<64x64xf16>
  tile.return %c, %d : tensor<64x64xf32>, tensor<64x64xf16>
}

// -----

// 16 of K is below every fp8 instruction's 32: widened on sm_90a too.
// Other dots stay.
// SM90-LABEL: tile.func private @small
// SM90: arith.extf %{{.*}} : tensor<16x16xf8E4M3FN> to tensor<16x16xf16>
// SM90: tile.dot %{{.*}} : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
// SM90: tile.dot %{{.*}} : tensor<16x16xi8> * tensor<16x16xi8> -> tensor<16x16xi32>
tile.func private @small(%a: tensor<16x16xf8E4M3FN>, %acc: tensor<16x16xf32>,
                         %i: tensor<16x16xi8>, %iacc: tensor<16x16xi32>)
    -> (tensor<16x16xf32>, tensor<16x16xi32>) {
  %c = tile.dot %a, %a, %acc : tensor<16x16xf8E4M3FN> * tensor<16x16xf8E4M3FN> -> tensor<16x16xf32>
  %d = tile.dot %i, %i, %iacc : tensor<16x16xi8> * tensor<16x16xi8> -> tensor<16x16xi32>
  tile.return %c, %d : tensor<16x16xf32>, tensor<16x16xi32>
}
