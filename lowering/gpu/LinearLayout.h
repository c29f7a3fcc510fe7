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
#include <string>

namespace tessera::gpu {

using Basis = llvm::SmallVector<int64_t, 4>;

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

  /// Every basis vector has rank() entries, each entry is below the shape's
  /// extent and every extent is a power of two; the non-zero bases together
  /// cover every element of the tile.
  bool isValid() const;
  /// A register whose bases only duplicate earlier registers (a zero basis
  /// bit set) holds a copy; stores and atomics skip it.
  bool isDuplicateRegister(unsigned reg) const;

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
  /// unit dimensions move no data.
  static LinearLayout defaultFor(llvm::ArrayRef<int64_t> shape, unsigned warpSize,
                                 unsigned numWarps, unsigned vectorElements);
  /// The layout of a reduction's result along `dim`: the dimension is
  /// dropped from every basis. Lane and warp bases that only moved along it
  /// become zero (those threads hold copies of the result); register bases
  /// that only moved along it are removed, so register r of this layout maps
  /// to the result register made of r's bits at the kept positions
  /// (`reducedRegister`).
  LinearLayout reduced(unsigned dim) const;
  /// The result register of reduced(dim) that register `reg` contributes to.
  unsigned reducedRegister(unsigned dim, unsigned reg) const;

  /// "shape=[64, 32] reg=[[0,1],[0,2]] lane=[...] warp=[...]".
  std::string str() const;
  bool operator==(const LinearLayout &) const = default;
};

} // namespace tessera::gpu

#endif // TESSERA_LOWERING_GPU_LINEARLAYOUT_H
