// RUN: not tessera-opt %s -tile-gpu-assign-layouts 2>&1 | FileCheck %s --check-prefix=NO-TARGET
// RUN: not tessera-opt %s -tile-gpu-assign-layouts="target=cuda:sm_80 num-warps=3" 2>&1 | FileCheck %s --check-prefix=WARPS

// NO-TARGET: error: tile-gpu-assign-layouts needs target=<spec>:
// WARPS: error: num-warps=3 is not a power of two
tile.func @k(%p: !tile.ptr<f32>) {
  tile.return
}
