#include "lowering/gpu/distribute/ExchangePieces.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <optional>
#include <tuple>

namespace tessera::gpu {

namespace {

/// The register bit of `layout` whose basis alone moves along coordinate
/// bit `bit` of dimension `dim`, and moves along nothing else.
std::optional<unsigned> soleRegisterBitAlong(const LinearLayout &layout, unsigned dim,
                                             int64_t bit) {
  Basis unit(layout.rank(), 0);
  unit[dim] = int64_t(1) << bit;
  auto movesAlong = [&](const Basis &basis) { return ((basis[dim] >> bit) & 1) != 0; };
  if (llvm::any_of(layout.lanes, movesAlong) || llvm::any_of(layout.warps, movesAlong))
    return std::nullopt;
  std::optional<unsigned> found;
  for (auto [index, basis] : llvm::enumerate(layout.registers))
    if (movesAlong(basis)) {
      if (found || basis != unit)
        return std::nullopt;
      found = index;
    }
  return found;
}

/// The layout of the half of the tile whose coordinate bit `bit` of `dim`
/// is fixed, held by the registers whose bit `reg` is: that register basis
/// goes, and the coordinate bit is squeezed out of the others.
LinearLayout halfOf(const LinearLayout &layout, unsigned reg, unsigned dim, int64_t bit) {
  LinearLayout half = layout;
  half.shape[dim] /= 2;
  half.registers.erase(half.registers.begin() + reg);
  int64_t below = (int64_t(1) << bit) - 1;
  for (llvm::SmallVector<Basis> *bases : {&half.registers, &half.lanes, &half.warps})
    for (Basis &basis : *bases)
      basis[dim] = (basis[dim] & below) | ((basis[dim] >> (bit + 1)) << bit);
  return half;
}

/// The registers of both halves of each piece: register r of a half is the
/// piece's register with bit `reg` (0 in the first half, 1 in the second)
/// inserted into r.
llvm::SmallVector<llvm::SmallVector<unsigned>>
halveRegisters(llvm::ArrayRef<llvm::SmallVector<unsigned>> pieces, unsigned reg) {
  llvm::SmallVector<llvm::SmallVector<unsigned>> halves;
  unsigned below = (1u << reg) - 1;
  for (const llvm::SmallVector<unsigned> &piece : pieces)
    for (unsigned side : {0u, 1u}) {
      llvm::SmallVector<unsigned> &half = halves.emplace_back();
      for (unsigned r = 0; r < piece.size() / 2; ++r)
        half.push_back(piece[((r & ~below) << 1) | (side << reg) | (r & below)]);
    }
  return halves;
}

llvm::SmallVector<unsigned> allRegisters(const LinearLayout &layout) {
  llvm::SmallVector<unsigned> registers;
  for (unsigned reg = 0; reg < layout.numRegisters(); ++reg)
    registers.push_back(reg);
  return registers;
}

} // namespace

int64_t ExchangePieces::elements() const {
  int64_t count = 1;
  for (int64_t extent : from.shape)
    count *= extent;
  return count;
}

ExchangePieces planExchangePieces(const LinearLayout &from, const LinearLayout &to,
                                  llvm::function_ref<bool(int64_t elements)> fits) {
  ExchangePieces pieces{from, to, {allRegisters(from)}, {allRegisters(to)}};
  while (!fits(pieces.elements())) {
    std::optional<std::tuple<unsigned, int64_t, unsigned, unsigned>> split;
    for (unsigned dim = 0; dim < pieces.from.rank() && !split; ++dim)
      for (int64_t bit = int64_t(llvm::Log2_64(pieces.from.shape[dim])) - 1; bit >= 0 && !split;
           --bit) {
        std::optional<unsigned> fromBit = soleRegisterBitAlong(pieces.from, dim, bit);
        std::optional<unsigned> toBit = soleRegisterBitAlong(pieces.to, dim, bit);
        if (fromBit && toBit)
          split = {dim, bit, *fromBit, *toBit};
      }
    if (!split)
      break;
    auto [dim, bit, fromBit, toBit] = *split;
    pieces.from = halfOf(pieces.from, fromBit, dim, bit);
    pieces.to = halfOf(pieces.to, toBit, dim, bit);
    pieces.fromRegisters = halveRegisters(pieces.fromRegisters, fromBit);
    pieces.toRegisters = halveRegisters(pieces.toRegisters, toBit);
  }
  return pieces;
}

} // namespace tessera::gpu
