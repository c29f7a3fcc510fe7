// RUN: tessera-opt %s --tessera-gpu-to-nvvm=chip=sm_90a | FileCheck %s --check-prefix=SM90
// RUN: tessera-opt %s --tessera-gpu-to-nvvm=chip=sm_80 | FileCheck %s --check-prefix=SM80

// The NVIDIA pipeline widens signed bytes to bf16 by a bf16 subtraction
// where the chip has one (sm_90 and later), through f32 on sm_80.
// SM90-LABEL: llvm.func @widen
// SM90: nvvm.prmt
// SM90: llvm.fsub %{{.*}}, %{{.*}} : vector<2xbf16>
// SM90-NOT: llvm.sitofp
// SM80-LABEL: llvm.func @widen
// SM80-NOT: vector<2xbf16>
// SM80: llvm.fsub %{{.*}}, %{{.*}} : f32
// SM80-NOT: llvm.sitofp
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @widen(%bytes: vector<4xi8>) -> (bf16, bf16) {
      %0 = vector.extract %bytes[0] : i8 from vector<4xi8>
      %1 = vector.extract %bytes[1] : i8 from vector<4xi8>
      %a = arith.sitofp %0 : i8 to bf16
      %b = arith.sitofp %1 : i8 to bf16
      gpu.return %a, %b : bf16, bf16
    }
  }
}
