#include "lowering/gpu/distribute/ExchangePieces.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <optional>

namespace tessera::gpu {

namespace {

/// The basis that alone moves along a coordinate bit in a layout. Its kind
/// is also the cost of splitting there: none for a register, waiting threads
/// for a warp, and for a lane, threads of a warp that diverge.
struct BitHolder {
  enum Kind : unsigned { Register = 0, Warp = 1, Lane = 2 } kind;
  unsigned index;
};

/// The basis of `layout` that moves along coordinate bit `bit` of dimension
/// `dim` by exactly that bit, where no other basis moves along the bit.
std::optional<BitHolder> soleHolderOf(const LinearLayout &layout, unsigned dim, int64_t bit) {
  Basis unit(layout.rank(), 0);
  unit[dim] = int64_t(1) << bit;
  std::optional<BitHolder> found;
  auto scan = [&](llvm::ArrayRef<Basis> bases, BitHolder::Kind kind) {
    for (auto [index, basis] : llvm::enumerate(bases)) {
      if (((basis[dim] >> bit) & 1) == 0)
        continue;
      if (found || basis != unit)
        return false;
      found = BitHolder{kind, unsigned(index)};
    }
    return true;
  };
  if (!scan(layout.registers, BitHolder::Register) || !scan(layout.warps, BitHolder::Warp) ||
      !scan(layout.lanes, BitHolder::Lane))
    return std::nullopt;
  return found;
}

/// The layout of the half of the tile whose coordinate bit `bit` of `dim`
/// is fixed. A register basis holding the bit goes; a thread basis holding
/// it stops moving (the threads that differ in it hold the same coordinates,
/// each of its own half). The coordinate bit is squeezed out of the others.
LinearLayout halfOf(const LinearLayout &layout, BitHolder holder, unsigned dim, int64_t bit) {
  LinearLayout half = layout;
  half.shape[dim] /= 2;
  Basis none(layout.rank(), 0);
  switch (holder.kind) {
  case BitHolder::Register:
    half.registers.erase(half.registers.begin() + holder.index);
    break;
  case BitHolder::Warp:
    half.warps[holder.index] = none;
    break;
  case BitHolder::Lane:
    half.lanes[holder.index] = none;
    break;
  }
  int64_t below = (int64_t(1) << bit) - 1;
  for (llvm::SmallVector<Basis> *bases : {&half.registers, &half.lanes, &half.warps})
    for (Basis &basis : *bases)
      basis[dim] = (basis[dim] & below) | ((basis[dim] >> (bit + 1)) << bit);
  return half;
}

/// The registers of one half of a piece whose register bit `reg` holds the
/// split: register r of the half is the piece's register with bit `reg`
/// (`side`) inserted into r.
llvm::SmallVector<unsigned> halfOfRegisters(llvm::ArrayRef<unsigned> piece, unsigned reg,
                                            unsigned side) {
  llvm::SmallVector<unsigned> half;
  unsigned below = (1u << reg) - 1;
  for (unsigned r = 0; r < piece.size() / 2; ++r)
    half.push_back(piece[((r & ~below) << 1) | (side << reg) | (r & below)]);
  return half;
}

/// Replaces each piece of one layout by its two halves, side 0 then side 1.
void halve(llvm::SmallVector<llvm::SmallVector<unsigned>> &registers,
           llvm::SmallVector<llvm::SmallVector<ThreadBit>> &threads, BitHolder holder) {
  llvm::SmallVector<llvm::SmallVector<unsigned>> halvesRegisters;
  llvm::SmallVector<llvm::SmallVector<ThreadBit>> halvesThreads;
  for (auto [pieceRegisters, pieceThreads] : llvm::zip_equal(registers, threads))
    for (unsigned side : {0u, 1u}) {
      llvm::SmallVector<ThreadBit> &bits = halvesThreads.emplace_back(pieceThreads);
      if (holder.kind == BitHolder::Register) {
        halvesRegisters.push_back(halfOfRegisters(pieceRegisters, holder.index, side));
        continue;
      }
      halvesRegisters.push_back(pieceRegisters);
      bits.push_back({holder.kind == BitHolder::Warp, holder.index, side == 1});
    }
  registers = std::move(halvesRegisters);
  threads = std::move(halvesThreads);
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
                                  llvm::function_ref<bool(int64_t elements)> fits,
                                  PieceSplits splits) {
  ExchangePieces pieces{from, to, {allRegisters(from)}, {allRegisters(to)}, {{}}, {{}}};
  struct Split {
    unsigned dim;
    int64_t bit;
    BitHolder from, to;
    unsigned cost() const { return from.kind + to.kind; }
  };
  while (!fits(pieces.elements())) {
    std::optional<Split> best;
    for (unsigned dim = 0; dim < pieces.from.rank(); ++dim)
      for (int64_t bit = int64_t(llvm::Log2_64(pieces.from.shape[dim])) - 1; bit >= 0; --bit) {
        std::optional<BitHolder> fromHolder = soleHolderOf(pieces.from, dim, bit);
        std::optional<BitHolder> toHolder = soleHolderOf(pieces.to, dim, bit);
        if (!fromHolder || !toHolder)
          continue;
        Split split{dim, bit, *fromHolder, *toHolder};
        if (split.cost() > 0 && splits == PieceSplits::Registers)
          continue;
        if (!best || split.cost() < best->cost())
          best = split;
      }
    if (!best)
      break;
    pieces.from = halfOf(pieces.from, best->from, best->dim, best->bit);
    pieces.to = halfOf(pieces.to, best->to, best->dim, best->bit);
    halve(pieces.fromRegisters, pieces.fromThreads, best->from);
    halve(pieces.toRegisters, pieces.toThreads, best->to);
  }
  return pieces;
}

} // namespace tessera::gpu
