// A layout conversion through shared memory in pieces. Where the whole tile
// does not fit in the shared memory left (a software-pipelined loop's stages
// hold most of it while a persistent GEMM's epilogue converts its
// accumulator, or a device has little of it), the tile goes through one
// buffer a piece at a time: store a piece, barrier, load it, barrier. A piece
// is half the tile, split along a coordinate bit that one basis alone holds
// in each layout; halving again gives quarters, and so on. Where a register
// bit holds it in both layouts, every thread stores and loads whole
// registers of each piece. Where a warp or lane bit holds it in a layout,
// that layout's piece is held by the threads whose bit matches it, and only
// they store it (or load it) while the others wait at the barrier.
#ifndef TESSERA_LOWERING_GPU_DISTRIBUTE_EXCHANGEPIECES_H
#define TESSERA_LOWERING_GPU_DISTRIBUTE_EXCHANGEPIECES_H

#include "lowering/gpu/LinearLayout.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

namespace tessera::gpu {

/// The coordinate bits a conversion may be split along.
enum class PieceSplits {
  /// Only bits a register bit holds in both layouts.
  Registers,
  /// Those first; where none is left, bits that one register, warp or
  /// lane bit holds in each layout, the cheapest first (a warp bit costs
  /// less than a lane bit).
  RegistersThenThreads,
};

/// Bit `bit` of the thread's warp index (or of its lane) is `value`.
struct ThreadBit {
  bool warp;
  unsigned bit;
  bool value;

  bool operator==(const ThreadBit &) const = default;
};

/// Pieces of a conversion from `from` to `to`, each the same part of the tile
/// at another offset: the layouts of one piece (over the piece's shape), and
/// for each piece the register of the whole tile that holds each register of
/// the piece, in either layout, and the thread bits of the threads that hold
/// part of the piece in either layout (none: every thread).
struct ExchangePieces {
  LinearLayout from, to;
  llvm::SmallVector<llvm::SmallVector<unsigned>> fromRegisters, toRegisters;
  llvm::SmallVector<llvm::SmallVector<ThreadBit>> fromThreads, toThreads;

  unsigned count() const { return fromRegisters.size(); }
  /// Elements of one piece.
  int64_t elements() const;
};

/// The fewest pieces whose element count `fits` accepts: halves along the
/// leading dimensions first (the last one keeps vector runs), each highest
/// bit first, among the bits `splits` allows, register bits before warp bits
/// before lane bits. Where no more halving is possible, the smallest pieces
/// there are (the whole tile when the layouts share no such bit).
ExchangePieces planExchangePieces(const LinearLayout &from, const LinearLayout &to,
                                  llvm::function_ref<bool(int64_t elements)> fits,
                                  PieceSplits splits);

} // namespace tessera::gpu

#endif // TESSERA_LOWERING_GPU_DISTRIBUTE_EXCHANGEPIECES_H
