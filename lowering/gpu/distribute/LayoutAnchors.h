// The layouts that ops impose rather than inherit (anchors of the layout
// assignment, docs/gpu-backends.md "Layouts"): memory accesses, dots,
// tensor descriptors, and the default layout a tile gets when nothing asks
// for another.
#ifndef TESSERA_LOWERING_GPU_DISTRIBUTE_LAYOUTANCHORS_H
#define TESSERA_LOWERING_GPU_DISTRIBUTE_LAYOUTANCHORS_H

#include "ir/TileDialect.h"
#include "ir/analysis/Contiguity.h"
#include "lowering/gpu/GpuTarget.h"
#include "lowering/gpu/LinearLayout.h"

#include "mlir/IR/BuiltinTypes.h"

namespace tessera::gpu {

class LayoutAnchors {
public:
  LayoutAnchors(const GpuTarget &target, unsigned numWarps)
      : target(target), numWarps(numWarps) {}

  const GpuTarget &getTarget() const { return target; }

  /// The default layout of `type` with 128-bit vectors along the last
  /// dimension (narrower where the tile has fewer elements per thread):
  /// what a tile gets when no op asks for another.
  LinearLayout fallback(mlir::RankedTensorType type) const;
  /// Loads and stores through `ptrTile`: the default layout of its shape with
  /// as many contiguous elements per thread as the contiguity analysis proves
  /// along the last dimension (whole rows or aligned pieces of them; up to
  /// 128 bits), one otherwise. Atomics
  /// (`vectorize` false) take one element per thread.
  LinearLayout memoryAccess(mlir::Value ptrTile, bool vectorize);
  /// Whether a store through `ptrTile` writes a value of `layout` as it is:
  /// `layout` is the default one at a narrower vector than memoryAccess's,
  /// within the pointers' contiguous runs, of at least 32 bits a thread. Each
  /// lane then stores one word or more and a warp's stores are contiguous,
  /// cheaper than converting through shared memory to wider stores (a
  /// narrowing cast: four f32 a thread loaded, four fp8 stored).
  bool storesAsItIs(mlir::Value ptrTile, const LinearLayout &layout);
  /// The layout of `load`, whose memory accesses take `access`: where its
  /// one user is the B of a dot whose instruction keeps an 8-bit B K-major
  /// (wgmma and ldmatrix read 8-bit operands only so; MFMA's placement
  /// stores B by columns) while the load's rows
  /// run along N, each thread takes 4 consecutive rows of its columns, which
  /// shared memory then takes 4 bytes per store (DotPlan::sharedRuns) rather
  /// than one. `access` otherwise.
  LinearLayout operandLoad(tile::LoadOp load, const LinearLayout &access) const;
  /// The block of a tensor descriptor: the default layout, vectors of 128
  /// bits along the last dimension (whose stride descriptors expect to be 1).
  LinearLayout descriptorBlock(mlir::RankedTensorType block) const;
  /// The result (and accumulator) of `dot`: the accumulator layout of the
  /// target's matrix instruction for it, repeated in registers per batch for
  /// batched dots; the fallback layout where no instruction fits.
  mlir::FailureOr<LinearLayout> dotResult(tile::DotOp dot) const;

private:
  /// A tile of `shape`'s elements over the program's threads (0 where it has
  /// fewer elements than threads).
  int64_t elementsPerThread(llvm::ArrayRef<int64_t> shape) const;
  /// At most `maxVector` elements per thread along the last dimension, and
  /// no more than the tile's elements over the program's threads.
  LinearLayout defaultWithVectors(llvm::ArrayRef<int64_t> shape, mlir::Type element,
                                  int64_t maxVector = INT64_MAX) const;

  GpuTarget target;
  unsigned numWarps;
  tile::ContiguityAnalysis contiguity{tile::LoopCarriedStrides::Inductive};
};

/// Bits of one element of a tile: pointers are 64-bit addresses, i1 a byte.
unsigned elementBits(mlir::Type element);

} // namespace tessera::gpu

#endif // TESSERA_LOWERING_GPU_DISTRIBUTE_LAYOUTANCHORS_H
