// Which thread holds which element of a tile, as a linear map over GF(2) in
// the manner of Triton's linear layouts. A hardware index is (register r,
// lane l, warp w); each set bit i of r contributes `registers[i]`, of l
// `lanes[i]`, of w `warps[i]`, and the tile coordinates are the XOR of the
// contributions. Tile dimensions are powers of two, so blocked layouts, the
// slices a reduction leaves, MMA operand/result fragments and swizzled shared
// memory are all of this form. A zero basis vector means duplication: two
// hardware indices holding the same element (a tile smaller than the CTA, or
// a reduced dimension).
//
// Conventions shared by every user of this header:
//  * registers are numbered 0 .. numRegisters()-1 and a distributed tile value
//    is the list of its per-thread scalars in that order;
//  * lanes are the thread's index within its warp (0 .. warpSize-1);
//  * warps are threadIdx.x / warpSize;
//  * coordinates are in the tile's dimension order (row-major shapes: dim 0 is
//    the row).
#ifndef TESSERA_LOWERING_GPU_LINEARLAYOUT_H
#define TESSERA_LOWERING_GPU_LINEARLAYOUT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>
#include <string>

namespace tessera::gpu {

using Basis = llvm::SmallVector<int64_t, 4>;

/// Every entry of `basis` is 0: a basis that moves nowhere (copies).
bool isZero(const Basis &basis);
/// XORs into `coords` the bases whose bits are set in `index` (bit i:
/// bases[i]), as a hardware index contributes its bases' moves.
void xorBasesOf(Basis &coords, llvm::ArrayRef<Basis> bases, unsigned index);

struct LinearLayout {
  llvm::SmallVector<int64_t, 4> shape;
  llvm::SmallVector<Basis> registers;
  llvm::SmallVector<Basis> lanes;
  llvm::SmallVector<Basis> warps;

  unsigned rank() const { return shape.size(); }
  unsigned numRegisters() const { return 1u << registers.size(); }
  unsigned numLanes() const { return 1u << lanes.size(); }
  unsigned numWarps() const { return 1u << warps.size(); }

  /// The tile coordinates held by register `reg` of lane `lane` of warp `warp`.
  Basis coordinates(unsigned reg, unsigned lane, unsigned warp) const;
  /// The part of the coordinates contributed by the register index alone
  /// (coordinates(reg, 0, 0)): a compile-time constant per register.
  Basis registerOffset(unsigned reg) const { return coordinates(reg, 0, 0); }
  /// The bits of dimension `dim` that some lane or warp basis moves along.
  int64_t threadBits(unsigned dim) const;

  /// Every basis vector has rank() entries, each entry is below the shape's
  /// extent and every extent is a power of two; the non-zero bases together
  /// cover every element of the tile.
  bool isValid() const;
  /// A register whose bases only duplicate earlier registers (a zero basis
  /// bit set) holds a copy; stores and atomics skip it.
  bool isDuplicateRegister(unsigned reg) const;
  /// The register that `reg` copies (its zero-basis bits cleared); `reg`
  /// itself where it is no copy.
  unsigned firstCopy(unsigned reg) const;
  /// How many consecutive registers, starting at any multiple of the count,
  /// hold consecutive elements of the last dimension in order, in every
  /// thread: the largest 2^v with register bit i moving by exactly 2^i along
  /// the last dimension for every i < v, and every other basis moving by a
  /// multiple of 2^v there (it XORs into the run's first element). Such a run
  /// is one vector access where the addresses of a row are contiguous.
  unsigned contiguousRegisters() const;
  /// The same along any dimension, with the run's registers 2^firstBit
  /// apart: register bits firstBit .. firstBit + log2(length) - 1 move by
  /// 1, 2, 4, ... along `dim` alone, every other basis by a multiple of
  /// `length` there. {1, 0} where no register moves by 1 along `dim` alone.
  struct RegisterRun {
    unsigned length = 1;
    unsigned firstBit = 0;
  };
  RegisterRun registerRunAlong(unsigned dim) const;

  /// Triton's BlockedEncoding: each thread holds `sizePerThread` contiguous
  /// elements, lanes then warps tile the rest with dimension `order[0]`
  /// fastest, and the pattern repeats in registers where the tile is larger
  /// than the CTA. `threadsPerWarp` and `warpsPerCta` multiply to the warp size
  /// and warp count.
  static LinearLayout blocked(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<int64_t> sizePerThread,
                              llvm::ArrayRef<int64_t> threadsPerWarp,
                              llvm::ArrayRef<int64_t> warpsPerCta, llvm::ArrayRef<unsigned> order);
  /// The layout every tile of `shape` gets unless an op asks for another:
  /// row-major, `vectorElements` contiguous elements per thread along the last
  /// dimension (fewer when the tile is small), lanes and warps spread for
  /// coalescing. Tiles whose shapes differ only in dimensions of extent 1 get
  /// the same distribution, so expand_dims and reshapes that add or remove
  /// unit dimensions move no data. `rowsPerThread` > 1 gives each thread that
  /// many consecutive rows (the second-to-last dimension) of its columns.
  static LinearLayout defaultFor(llvm::ArrayRef<int64_t> shape, unsigned warpSize,
                                 unsigned numWarps, unsigned vectorElements,
                                 unsigned rowsPerThread = 1);
  /// The layout of a reduction's result along `dim`: the dimension is
  /// dropped from every basis. Lane and warp bases that only moved along it
  /// become zero (those threads hold copies of the result); register bases
  /// that only moved along it are removed, so register r of this layout maps
  /// to the result register made of r's bits at the kept positions
  /// (`reducedRegister`).
  LinearLayout reduced(unsigned dim) const;
  /// The result register of reduced(dim) that register `reg` contributes to.
  unsigned reducedRegister(unsigned dim, unsigned reg) const;

  // Shape transforms. Each gives the layout of the transformed tile in which
  // every thread holds exactly the elements it held before (at the transformed
  // coordinates), in the same registers unless said otherwise: the transform
  // is a renaming, no data moves.

  /// The tile with a dimension of extent 1 inserted at `axis` (expand_dims).
  /// reduced(axis) is its inverse.
  LinearLayout expandDims(unsigned axis) const;
  /// The tile of `newShape` holding the same elements in row-major order
  /// (reshape): each basis is re-expressed through its row-major flat index.
  /// Both shapes are powers of two in every dimension with one element count.
  LinearLayout reshaped(llvm::ArrayRef<int64_t> newShape) const;
  /// The tile whose dimension i is dimension order[i] of this one (trans).
  LinearLayout transposed(llvm::ArrayRef<int32_t> order) const;
  /// The layout of the operand of a trans by `order` whose result has this
  /// layout: transposed by the inverse permutation.
  LinearLayout untransposed(llvm::ArrayRef<int32_t> order) const;
  /// The layout the operand of a broadcast to this layout's shape must have
  /// for the broadcast to be a renaming: `sourceShape` has extent 1 where it
  /// is broadcast, and those coordinates are zeroed in every basis (registers
  /// along them become duplicates, lanes and warps copies).
  LinearLayout broadcastSource(llvm::ArrayRef<int64_t> sourceShape) const;
  /// The layout of join(lhs, rhs) of two tiles of this layout: a new last
  /// dimension of extent 2 held in register bit 0, so result register 2r is
  /// lhs register r and 2r + 1 is rhs register r.
  LinearLayout joined() const;
  /// The inverse of joined(): the layout of the halves of split(x) when x
  /// has this layout and its last dimension (extent 2) is held by register
  /// bit `b` alone (lhs takes the registers with bit b clear, rhs those with
  /// it set, in order). std::nullopt when no register bit holds exactly the
  /// last dimension, or another basis also moves along it.
  std::optional<LinearLayout> splitHalves() const;
  /// The register bit that holds the last dimension for splitHalves().
  std::optional<unsigned> lastDimRegisterBit() const;
  /// The layout of cat(lhs, rhs, axis) of two tiles of this layout: the new
  /// half of `axis` is the highest register bit, so registers below
  /// numRegisters() come from lhs and the others from rhs.
  LinearLayout concatenated(unsigned axis) const;
  /// The layout of a [batch, ...shape] tile in which every thread holds all
  /// batches: batch b of register r is register b * numRegisters() + r.
  LinearLayout withLeadingBatch(int64_t batch) const;

  /// When converting from `source` to this layout moves no element between
  /// threads (the lane and warp bases are identical and every register of
  /// this layout is found among the registers of `source`): for each register
  /// of this layout, the register of `source` that holds the same element in
  /// the same thread. std::nullopt when the conversion needs data exchange.
  std::optional<llvm::SmallVector<unsigned>>
  registerRenamingFrom(const LinearLayout &source) const;

  /// "shape=[64, 32] reg=[[0,1],[0,2]] lane=[...] warp=[...]".
  std::string str() const;
  bool operator==(const LinearLayout &) const = default;
};

} // namespace tessera::gpu

#endif // TESSERA_LOWERING_GPU_LINEARLAYOUT_H
