// A layout conversion through shared memory in pieces. Where the whole tile
// does not fit in the shared memory left (a software-pipelined loop's stages
// hold most of it while a persistent GEMM's epilogue converts its
// accumulator), the tile goes through one buffer a piece at a time: store a
// piece, barrier, load it, barrier. A piece is half the tile, split along a
// coordinate bit that one register bit alone holds in both layouts, so that
// every thread stores and loads whole registers of each piece; halving
// again gives quarters, and so on.
#ifndef TESSERA_LOWERING_GPU_DISTRIBUTE_EXCHANGEPIECES_H
#define TESSERA_LOWERING_GPU_DISTRIBUTE_EXCHANGEPIECES_H

#include "lowering/gpu/LinearLayout.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

namespace tessera::gpu {

/// Pieces of a conversion from `from` to `to`, each the same part of the tile
/// at another offset: the layouts of one piece (over the piece's shape), and
/// for each piece the register of the whole tile that holds each register of
/// the piece, in either layout.
struct ExchangePieces {
  LinearLayout from, to;
  llvm::SmallVector<llvm::SmallVector<unsigned>> fromRegisters, toRegisters;

  unsigned count() const { return fromRegisters.size(); }
  /// Elements of one piece.
  int64_t elements() const;
};

/// The fewest pieces whose element count `fits` accepts: halves along the
/// leading dimensions first (the last one keeps vector runs), each highest
/// bit first. Where no more halving is possible, the smallest pieces there
/// are (the whole tile when the layouts share no such register bit).
ExchangePieces planExchangePieces(const LinearLayout &from, const LinearLayout &to,
                                  llvm::function_ref<bool(int64_t elements)> fits);

} // namespace tessera::gpu

#endif // TESSERA_LOWERING_GPU_DISTRIBUTE_EXCHANGEPIECES_H
