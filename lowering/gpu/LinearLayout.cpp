#include "lowering/gpu/LinearLayout.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

using tessera::gpu::Basis;
using tessera::gpu::isZero;
using tessera::gpu::LinearLayout;
using tessera::gpu::xorBasesOf;

bool tessera::gpu::isZero(const Basis &basis) {
  return llvm::all_of(basis, [](int64_t v) { return v == 0; });
}

namespace {

void xorInto(Basis &into, const Basis &basis) {
  for (auto [a, b] : llvm::zip(into, basis))
    a ^= b;
}

} // namespace

void tessera::gpu::xorBasesOf(Basis &coords, llvm::ArrayRef<Basis> bases, unsigned index) {
  for (unsigned bit = 0; bit < bases.size(); ++bit)
    if (index & (1u << bit))
      xorInto(coords, bases[bit]);
}

namespace {

Basis along(unsigned rank, unsigned dim, int64_t value) {
  Basis basis(rank, 0);
  basis[dim] = value;
  return basis;
}

int64_t log2Exact(int64_t value) { return llvm::Log2_64(static_cast<uint64_t>(value)); }

} // namespace

int64_t LinearLayout::threadBits(unsigned dim) const {
  int64_t bits = 0;
  for (llvm::ArrayRef<Basis> bases : {llvm::ArrayRef(lanes), llvm::ArrayRef(warps)})
    for (const Basis &basis : bases)
      bits |= basis[dim];
  return bits;
}

Basis LinearLayout::coordinates(unsigned reg, unsigned lane, unsigned warp) const {
  Basis coords(rank(), 0);
  xorBasesOf(coords, registers, reg);
  xorBasesOf(coords, lanes, lane);
  xorBasesOf(coords, warps, warp);
  return coords;
}

bool LinearLayout::isValid() const {
  for (int64_t extent : shape)
    if (extent <= 0 || !llvm::isPowerOf2_64(extent))
      return false;
  int64_t elements = 1;
  for (int64_t extent : shape)
    elements *= extent;
  // The non-zero bases must be distinct powers of two along one dimension
  // each, together one bit per bit of every extent: then the map is onto.
  llvm::SmallVector<llvm::SmallVector<bool>> seen;
  for (int64_t extent : shape)
    seen.emplace_back(log2Exact(extent), false);
  int64_t covered = 1;
  for (auto bases : {llvm::ArrayRef(registers), llvm::ArrayRef(lanes), llvm::ArrayRef(warps)}) {
    for (const Basis &basis : bases) {
      if (basis.size() != rank())
        return false;
      if (isZero(basis))
        continue;
      unsigned nonZero = 0;
      for (unsigned dim = 0; dim < rank(); ++dim) {
        int64_t v = basis[dim];
        if (v == 0)
          continue;
        if (v < 0 || v >= shape[dim])
          return false;
        ++nonZero;
        if (llvm::isPowerOf2_64(v)) {
          unsigned bit = log2Exact(v);
          if (seen[dim][bit])
            return false;
          seen[dim][bit] = true;
        }
      }
      if (nonZero == 0)
        return false;
      covered *= 2;
    }
  }
  if (covered != elements)
    return false;
  // Swizzled bases (not a power of two, or across dimensions) are allowed as
  // long as the map stays onto; check by enumerating when the tile is small.
  if (elements > (1 << 16))
    return true;
  llvm::SmallVector<bool> hit(elements, false);
  for (unsigned w = 0; w < numWarps(); ++w)
    for (unsigned l = 0; l < numLanes(); ++l)
      for (unsigned r = 0; r < numRegisters(); ++r) {
        Basis c = coordinates(r, l, w);
        int64_t flat = 0;
        for (unsigned dim = 0; dim < rank(); ++dim)
          flat = flat * shape[dim] + c[dim];
        hit[flat] = true;
      }
  return llvm::all_of(hit, [](bool b) { return b; });
}

bool LinearLayout::isDuplicateRegister(unsigned reg) const {
  for (unsigned bit = 0; bit < registers.size(); ++bit)
    if ((reg & (1u << bit)) && isZero(registers[bit]))
      return true;
  return false;
}

unsigned LinearLayout::firstCopy(unsigned reg) const {
  for (unsigned bit = 0; bit < registers.size(); ++bit)
    if (isZero(registers[bit]))
      reg &= ~(1u << bit);
  return reg;
}

unsigned LinearLayout::contiguousRegisters() const {
  if (shape.empty())
    return 1;
  RegisterRun run = registerRunAlong(rank() - 1);
  return run.firstBit == 0 ? run.length : 1;
}

LinearLayout::RegisterRun LinearLayout::registerRunAlong(unsigned dim) const {
  auto movesAlongDimOnly = [&](const Basis &basis, int64_t by) {
    for (unsigned d = 0; d < basis.size(); ++d)
      if (basis[d] != (d == dim ? by : 0))
        return false;
    return true;
  };
  RegisterRun run;
  auto unit = llvm::find_if(registers, [&](const Basis &b) { return movesAlongDimOnly(b, 1); });
  if (unit == registers.end())
    return run;
  run.firstBit = unit - registers.begin();
  for (unsigned bit = run.firstBit;
       bit < registers.size() && movesAlongDimOnly(registers[bit], run.length); ++bit)
    run.length *= 2;
  // The other bases XOR into a run's first coordinate: a run holds its
  // elements in order only where they keep that coordinate a multiple of it.
  auto keepsRunsAligned = [&](const Basis &basis) { return basis[dim] % run.length == 0; };
  auto alignedOutsideRun = [&] {
    for (unsigned bit = 0; bit < registers.size(); ++bit)
      if ((bit < run.firstBit || bit >= run.firstBit + llvm::Log2_32(run.length)) &&
          !keepsRunsAligned(registers[bit]))
        return false;
    return llvm::all_of(lanes, keepsRunsAligned) && llvm::all_of(warps, keepsRunsAligned);
  };
  while (run.length > 1 && !alignedOutsideRun())
    run.length /= 2;
  if (run.length == 1)
    run.firstBit = 0;
  return run;
}

LinearLayout LinearLayout::blocked(llvm::ArrayRef<int64_t> shape,
                                   llvm::ArrayRef<int64_t> sizePerThread,
                                   llvm::ArrayRef<int64_t> threadsPerWarp,
                                   llvm::ArrayRef<int64_t> warpsPerCta,
                                   llvm::ArrayRef<unsigned> order) {
  LinearLayout layout;
  layout.shape.assign(shape.begin(), shape.end());
  unsigned rank = shape.size();
  llvm::SmallVector<int64_t> covered(rank, 1);
  // Each level doubles the covered extent along a dimension; a doubling past
  // the tile's extent wraps onto elements already held (a zero basis).
  auto extend = [&](llvm::SmallVector<Basis> &bases, unsigned dim, int64_t count) {
    for (int64_t i = 1; i < count; i *= 2) {
      int64_t step = covered[dim];
      bases.push_back(step < shape[dim] ? along(rank, dim, step) : Basis(rank, 0));
      covered[dim] *= 2;
    }
  };
  for (unsigned dim : order)
    extend(layout.registers, dim, sizePerThread[dim]);
  for (unsigned dim : order)
    extend(layout.lanes, dim, threadsPerWarp[dim]);
  for (unsigned dim : order)
    extend(layout.warps, dim, warpsPerCta[dim]);
  for (unsigned dim : order)
    while (covered[dim] < shape[dim])
      extend(layout.registers, dim, 2);
  return layout;
}

LinearLayout LinearLayout::defaultFor(llvm::ArrayRef<int64_t> shape, unsigned warpSize,
                                      unsigned numWarps, unsigned vectorElements,
                                      unsigned rowsPerThread) {
  unsigned rank = shape.size();
  // Lay the tile out as if its unit dimensions were not there, so that shapes
  // differing only by them share a distribution.
  llvm::SmallVector<unsigned> dims;
  for (unsigned dim = 0; dim < rank; ++dim)
    if (shape[dim] > 1)
      dims.push_back(dim);
  llvm::SmallVector<int64_t> sizePerThread(rank, 1), threadsPerWarp(rank, 1),
      warpsPerCta(rank, 1);
  llvm::SmallVector<unsigned> order;
  for (unsigned dim : llvm::reverse(dims))
    order.push_back(dim);
  for (unsigned dim = 0; dim < rank; ++dim)
    if (shape[dim] == 1)
      order.push_back(dim);
  if (!dims.empty())
    sizePerThread[dims.back()] = std::min<int64_t>(vectorElements, shape[dims.back()]);
  if (rowsPerThread > 1 && rank >= 2 && shape[rank - 2] > 1 && shape[rank - 1] > 1)
    sizePerThread[rank - 2] = std::min<int64_t>(rowsPerThread, shape[rank - 2]);
  int64_t lanesLeft = warpSize;
  for (unsigned dim : llvm::reverse(dims)) {
    int64_t room = shape[dim] / sizePerThread[dim];
    threadsPerWarp[dim] = std::min(lanesLeft, room);
    lanesLeft /= threadsPerWarp[dim];
  }
  // Warps go along the outer dimensions first, so that a row reduction
  // stays within a warp; but where the rows cannot take them all, along the
  // last dimension first (as Triton's blocked layouts): split over both, the
  // reduction would cross warps all the same, and every warp along the rows
  // would hold a row-wide operand's values again (a layernorm's weight).
  auto spreadWarps = [&](auto &&dimsInOrder) {
    int64_t left = numWarps;
    unsigned spread = 0;
    for (unsigned dim : dimsInOrder) {
      int64_t room = shape[dim] / (sizePerThread[dim] * threadsPerWarp[dim]);
      warpsPerCta[dim] = std::min(left, std::max<int64_t>(room, 1));
      left /= warpsPerCta[dim];
      spread += warpsPerCta[dim] > 1;
    }
    return std::make_pair(left, spread);
  };
  auto [warpsLeft, dimsWithWarps] = spreadWarps(dims);
  if (dimsWithWarps > 1)
    warpsLeft = spreadWarps(llvm::reverse(dims)).first;
  LinearLayout layout =
      blocked(shape, sizePerThread, threadsPerWarp, warpsPerCta, order);
  // Threads left over once the tile is covered hold copies.
  for (int64_t i = 1; i < lanesLeft; i *= 2)
    layout.lanes.push_back(Basis(rank, 0));
  for (int64_t i = 1; i < warpsLeft; i *= 2)
    layout.warps.push_back(Basis(rank, 0));
  return layout;
}

LinearLayout LinearLayout::reduced(unsigned dim) const {
  LinearLayout result;
  result.shape.assign(shape.begin(), shape.end());
  result.shape.erase(result.shape.begin() + dim);
  auto drop = [&](const Basis &basis) {
    Basis out(basis);
    out.erase(out.begin() + dim);
    return out;
  };
  for (const Basis &basis : registers) {
    Basis out = drop(basis);
    if (!isZero(out) || isZero(basis))
      result.registers.push_back(out);
  }
  for (const Basis &basis : lanes)
    result.lanes.push_back(drop(basis));
  for (const Basis &basis : warps)
    result.warps.push_back(drop(basis));
  return result;
}

unsigned LinearLayout::reducedRegister(unsigned dim, unsigned reg) const {
  unsigned result = 0, next = 0;
  for (unsigned bit = 0; bit < registers.size(); ++bit) {
    const Basis &basis = registers[bit];
    bool onlyAlongDim = !isZero(basis) && llvm::all_of(llvm::enumerate(basis), [&](auto entry) {
      return entry.index() == dim || entry.value() == 0;
    });
    if (onlyAlongDim)
      continue;
    if (reg & (1u << bit))
      result |= 1u << next;
    ++next;
  }
  return result;
}

namespace {

Basis withCoordinateInserted(const Basis &basis, unsigned axis) {
  Basis out(basis);
  out.insert(out.begin() + axis, 0);
  return out;
}

llvm::SmallVector<Basis> mapBases(llvm::ArrayRef<Basis> bases,
                                  llvm::function_ref<Basis(const Basis &)> fn) {
  llvm::SmallVector<Basis> out;
  for (const Basis &basis : bases)
    out.push_back(fn(basis));
  return out;
}

LinearLayout mapAllBases(const LinearLayout &layout, llvm::ArrayRef<int64_t> newShape,
                         llvm::function_ref<Basis(const Basis &)> fn) {
  LinearLayout result;
  result.shape.assign(newShape.begin(), newShape.end());
  result.registers = mapBases(layout.registers, fn);
  result.lanes = mapBases(layout.lanes, fn);
  result.warps = mapBases(layout.warps, fn);
  return result;
}

int64_t rowMajorIndex(const Basis &coords, llvm::ArrayRef<int64_t> shape) {
  int64_t flat = 0;
  for (auto [coord, extent] : llvm::zip(coords, shape))
    flat = flat * extent + coord;
  return flat;
}

} // namespace

LinearLayout LinearLayout::expandDims(unsigned axis) const {
  llvm::SmallVector<int64_t, 4> newShape(shape);
  newShape.insert(newShape.begin() + axis, 1);
  return mapAllBases(*this, newShape,
                     [&](const Basis &basis) { return withCoordinateInserted(basis, axis); });
}

LinearLayout LinearLayout::reshaped(llvm::ArrayRef<int64_t> newShape) const {
  // Extents are powers of two, so a row-major flat index is the concatenation
  // of the coordinates' bits and XOR commutes with the change of shape.
  return mapAllBases(*this, newShape, [&](const Basis &basis) {
    int64_t flat = rowMajorIndex(basis, shape);
    Basis out(newShape.size(), 0);
    for (unsigned dim = newShape.size(); dim-- > 0;) {
      out[dim] = flat % newShape[dim];
      flat /= newShape[dim];
    }
    return out;
  });
}

LinearLayout LinearLayout::untransposed(llvm::ArrayRef<int32_t> order) const {
  llvm::SmallVector<int32_t, 4> inverse(order.size());
  for (auto [index, dim] : llvm::enumerate(order))
    inverse[dim] = int32_t(index);
  return transposed(inverse);
}

LinearLayout LinearLayout::transposed(llvm::ArrayRef<int32_t> order) const {
  llvm::SmallVector<int64_t, 4> newShape;
  for (int32_t dim : order)
    newShape.push_back(shape[dim]);
  return mapAllBases(*this, newShape, [&](const Basis &basis) {
    Basis out;
    for (int32_t dim : order)
      out.push_back(basis[dim]);
    return out;
  });
}

LinearLayout LinearLayout::broadcastSource(llvm::ArrayRef<int64_t> sourceShape) const {
  return mapAllBases(*this, sourceShape, [&](const Basis &basis) {
    Basis out(basis);
    for (unsigned dim = 0; dim < rank(); ++dim)
      if (sourceShape[dim] == 1)
        out[dim] = 0;
    return out;
  });
}

LinearLayout LinearLayout::joined() const {
  llvm::SmallVector<int64_t, 4> newShape(shape);
  newShape.push_back(2);
  LinearLayout result = mapAllBases(*this, newShape, [&](const Basis &basis) {
    return withCoordinateInserted(basis, rank());
  });
  result.registers.insert(result.registers.begin(), along(rank() + 1, rank(), 1));
  return result;
}

std::optional<unsigned> LinearLayout::lastDimRegisterBit() const {
  unsigned last = rank() - 1;
  if (shape[last] != 2)
    return std::nullopt;
  std::optional<unsigned> found;
  for (auto [bit, basis] : llvm::enumerate(registers)) {
    if (basis[last] == 0)
      continue;
    if (found || basis != along(rank(), last, 1))
      return std::nullopt;
    found = bit;
  }
  for (auto bases : {llvm::ArrayRef(lanes), llvm::ArrayRef(warps)})
    for (const Basis &basis : bases)
      if (basis[last] != 0)
        return std::nullopt;
  return found;
}

std::optional<LinearLayout> LinearLayout::splitHalves() const {
  std::optional<unsigned> bit = lastDimRegisterBit();
  if (!bit)
    return std::nullopt;
  LinearLayout withoutBit = *this;
  withoutBit.registers.erase(withoutBit.registers.begin() + *bit);
  return withoutBit.reduced(rank() - 1);
}

LinearLayout LinearLayout::concatenated(unsigned axis) const {
  LinearLayout result = *this;
  result.registers.push_back(along(rank(), axis, shape[axis]));
  result.shape[axis] *= 2;
  return result;
}

LinearLayout LinearLayout::withLeadingBatch(int64_t batch) const {
  LinearLayout result = expandDims(0);
  result.shape[0] = batch;
  for (int64_t step = 1; step < batch; step *= 2)
    result.registers.push_back(along(result.rank(), 0, step));
  return result;
}

std::optional<llvm::SmallVector<unsigned>>
LinearLayout::registerRenamingFrom(const LinearLayout &source) const {
  if (shape != source.shape || lanes != source.lanes || warps != source.warps)
    return std::nullopt;
  llvm::DenseMap<int64_t, unsigned> sourceRegisterOf;
  for (unsigned reg = 0; reg < source.numRegisters(); ++reg)
    sourceRegisterOf.try_emplace(rowMajorIndex(source.registerOffset(reg), shape), reg);
  llvm::SmallVector<unsigned> renaming;
  for (unsigned reg = 0; reg < numRegisters(); ++reg) {
    auto it = sourceRegisterOf.find(rowMajorIndex(registerOffset(reg), shape));
    if (it == sourceRegisterOf.end())
      return std::nullopt;
    renaming.push_back(it->second);
  }
  return renaming;
}

std::string LinearLayout::str() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  auto list = [&](llvm::StringRef name, llvm::ArrayRef<Basis> bases) {
    os << ' ' << name << "=[";
    llvm::interleaveComma(bases, os, [&](const Basis &basis) {
      os << '[';
      llvm::interleaveComma(basis, os);
      os << ']';
    });
    os << ']';
  };
  os << "shape=[";
  llvm::interleaveComma(shape, os);
  os << ']';
  list("reg", registers);
  list("lane", lanes);
  list("warp", warps);
  return text;
}
