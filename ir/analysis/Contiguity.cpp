#include "ir/analysis/Contiguity.h"

#include "ir/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include <numeric>

using namespace mlir;

namespace tessera::tile {

namespace {

/// The divisibility of 0 (and the cap of every other).
constexpr int64_t kMaxDivisibility = int64_t(1) << 30;

int64_t divisibilityOf(int64_t value) {
  if (value == 0)
    return kMaxDivisibility;
  return std::min(kMaxDivisibility, value & -value);
}

/// Divisibility of the first value of each group of `group` elements of a
/// value with `pieces`: inside a run only multiples of the group stay.
int64_t groupDivisibility(const ContiguityAnalysis::Pieces &pieces, int64_t group) {
  return pieces.run > 1 ? std::gcd(pieces.divisibility, group) : pieces.divisibility;
}

/// The last dimension of a tile (0 for scalars and rank-0 tiles).
unsigned lastDimOf(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && type.getRank() > 0 ? type.getRank() - 1 : 0;
}

/// What is known of each element on its own (from the pieces along any
/// dimension): the divisibility every value has, 1 inside a run.
ContiguityAnalysis::Pieces elementwise(const ContiguityAnalysis::Pieces &pieces) {
  ContiguityAnalysis::Pieces element;
  element.divisibility = groupDivisibility(pieces, 1);
  element.nonNegative = pieces.nonNegative;
  return element;
}

/// What holds of a value that is one or the other (a branch's result).
ContiguityAnalysis::Pieces either(const ContiguityAnalysis::Pieces &a,
                                  const ContiguityAnalysis::Pieces &b) {
  ContiguityAnalysis::Pieces pieces;
  pieces.run = std::gcd(a.run, b.run);
  pieces.constancy = std::gcd(a.constancy, b.constancy);
  int64_t group = std::max(pieces.run, pieces.constancy);
  pieces.divisibility = std::gcd(groupDivisibility(a, group), groupDivisibility(b, group));
  pieces.nonNegative = a.nonNegative && b.nonNegative;
  pieces.checkEndpoints = pieces.run > 1 && (a.checkEndpoints || b.checkEndpoints);
  return pieces;
}

} // namespace

std::optional<int64_t> ContiguityAnalysis::constantValue(Value value) {
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant)))
    return constant.getSExtValue();
  DenseIntElementsAttr dense;
  if (matchPattern(value, m_Constant(&dense)) && dense.isSplat())
    return dense.getSplatValue<APInt>().getSExtValue();
  if (auto splat = value.getDefiningOp<SplatOp>())
    return constantValue(splat.getSrc());
  if (auto cast = value.getDefiningOp<arith::ExtSIOp>())
    return constantValue(cast.getIn());
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    auto func = dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp());
    if (func && arg.getOwner()->isEntryBlock() && func.getArgAttr(arg.getArgNumber(), "tile.equal_to_1"))
      return 1;
  }
  return std::nullopt;
}

bool ContiguityAnalysis::isContiguous(Value ptrTile) {
  auto type = dyn_cast<RankedTensorType>(ptrTile.getType());
  if (!type || !isa<PointerType>(type.getElementType()) || type.getRank() == 0)
    return false;
  if (type.getShape().back() < 2)
    return false;
  std::optional<int64_t> stride = lastDimStride(ptrTile);
  return stride && *stride == 1;
}

ContiguityAnalysis::ContiguousRuns ContiguityAnalysis::contiguousRuns(Value ptrTile) {
  auto type = dyn_cast<RankedTensorType>(ptrTile.getType());
  if (!type || !isa<PointerType>(type.getElementType()) || type.getRank() == 0)
    return {};
  if (isContiguous(ptrTile))
    return {type.getShape().back(), false};
  Pieces pieces = piecesOf(ptrTile);
  if (pieces.run < 2)
    return {};
  return {pieces.run, pieces.checkEndpoints};
}

ContiguityAnalysis::Pieces ContiguityAnalysis::piecesOf(Value value) {
  return piecesAlong(value, lastDimOf(value));
}

ContiguityAnalysis::Pieces ContiguityAnalysis::piecesAlong(Value value, unsigned dim) {
  for (;;) {
    assumptionFailed = false;
    Pieces pieces = cachedPieces(value, dim);
    if (!assumptionFailed)
      return pieces;
    piecesCache.clear();
  }
}

ContiguityAnalysis::Pieces ContiguityAnalysis::cachedPieces(Value value, unsigned dim) {
  auto it = piecesCache.find({value, dim});
  if (it != piecesCache.end())
    return it->second;
  piecesCache[{value, dim}] = Pieces(); // cycles stay unknown
  inProgress.insert({value, dim});
  Pieces pieces = computePieces(value, dim);
  inProgress.erase({value, dim});
  piecesCache[{value, dim}] = pieces;
  return pieces;
}

bool ContiguityAnalysis::assumedNonNegative(Value value) {
  Block *block = value.getParentBlock();
  for (Operation *user : value.getUsers()) {
    auto compare = dyn_cast<arith::CmpIOp>(user);
    if (!compare)
      continue;
    bool onLeft = compare.getLhs() == value;
    std::optional<int64_t> bound = constantValue(onLeft ? compare.getRhs() : compare.getLhs());
    // value >= bound, value > bound, or the same written bound <= value.
    using arith::CmpIPredicate;
    CmpIPredicate predicate = compare.getPredicate();
    bool atLeast = predicate == (onLeft ? CmpIPredicate::sge : CmpIPredicate::sle);
    bool above = predicate == (onLeft ? CmpIPredicate::sgt : CmpIPredicate::slt);
    bool promisesNonNegative = bound && ((atLeast && *bound >= 0) || (above && *bound >= -1));
    if (promisesNonNegative && llvm::any_of(compare->getUsers(), [&](Operation *use) {
          return isa<AssumeOp>(use) && use->getBlock() == block;
        }))
      return true;
  }
  return false;
}

ContiguityAnalysis::Pieces ContiguityAnalysis::scalarPieces(Value value) {
  Pieces pieces = provenScalarPieces(value);
  pieces.nonNegative = pieces.nonNegative || assumedNonNegative(value);
  return pieces;
}

ContiguityAnalysis::Pieces ContiguityAnalysis::provenScalarPieces(Value value) {
  Pieces pieces;
  if (std::optional<int64_t> constant = constantValue(value)) {
    pieces.divisibility = divisibilityOf(*constant);
    pieces.nonNegative = *constant >= 0;
    return pieces;
  }
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    Operation *owner = arg.getOwner()->getParentOp();
    if (auto func = dyn_cast<FunctionOpInterface>(owner)) {
      if (auto attr = func.getArgAttrOfType<IntegerAttr>(arg.getArgNumber(), "tile.divisibility"))
        pieces.divisibility = divisibilityOf(attr.getInt());
      return pieces;
    }
    if (auto loop = dyn_cast<scf::ForOp>(owner); loop && arg.getArgNumber() == 0) {
      Pieces lower = scalarPieces(loop.getLowerBound()), step = scalarPieces(loop.getStep());
      pieces.divisibility = std::gcd(lower.divisibility, step.divisibility);
      pieces.nonNegative = lower.nonNegative && step.nonNegative;
    }
    return pieces;
  }
  Operation *def = value.getDefiningOp();
  if (isa_and_nonnull<ProgramIdOp, NumProgramsOp>(def)) {
    pieces.nonNegative = true;
    return pieces;
  }
  if (isa_and_nonnull<arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp, arith::IndexCastOp>(def))
    return scalarPieces(def->getOperand(0));
  if (auto hint = dyn_cast_or_null<HintOp>(def))
    return withPromises(scalarPieces(hint.getSrc()), hint);
  if (!def || def->getNumOperands() != 2)
    return pieces;
  Pieces lhs = scalarPieces(def->getOperand(0)), rhs = scalarPieces(def->getOperand(1));
  if (isa<arith::AddIOp, arith::MulIOp>(def)) {
    pieces.divisibility = isa<arith::AddIOp>(def)
                              ? std::gcd(lhs.divisibility, rhs.divisibility)
                              : std::min(kMaxDivisibility, lhs.divisibility * rhs.divisibility);
    pieces.nonNegative = lhs.nonNegative && rhs.nonNegative;
  } else if (isa<arith::SubIOp>(def)) {
    pieces.divisibility = std::gcd(lhs.divisibility, rhs.divisibility);
  } else if (isa<arith::DivSIOp>(def)) {
    pieces.nonNegative = lhs.nonNegative && rhs.nonNegative;
  } else if (isa<arith::RemSIOp>(def)) {
    pieces.nonNegative = lhs.nonNegative; // the remainder has the dividend's sign
  } else if (isa<arith::MinSIOp, arith::MaxSIOp>(def)) {
    // The result is one of the operands.
    pieces.divisibility = std::gcd(lhs.divisibility, rhs.divisibility);
    pieces.nonNegative = isa<arith::MinSIOp>(def) ? lhs.nonNegative && rhs.nonNegative
                                                  : lhs.nonNegative || rhs.nonNegative;
  }
  return pieces;
}

ContiguityAnalysis::Pieces ContiguityAnalysis::computePieces(Value value, unsigned dim) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type)
    return scalarPieces(value);
  Pieces unknown;
  if (type.getRank() == 0)
    return unknown;
  int64_t extent = type.getShape()[dim];
  bool lastDim = dim + 1 == type.getRank();
  Operation *def = value.getDefiningOp();

  if (!def) {
    // A loop-carried tile keeps the groups of its initial value when the
    // value it yields does, assuming it does (as loopCarriedStride), and
    // the divisibility both have: where the yielded value has less, the
    // assumption is weakened to what both have and tried again (a persistent
    // loop's offsets start at 0 and move to multiples of the block).
    auto arg = dyn_cast<BlockArgument>(value);
    auto loop = arg ? dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp()) : scf::ForOp();
    if (loops != LoopCarriedStrides::Inductive || !loop || arg.getArgNumber() == 0 ||
        refutedPieces.contains({value, dim}))
      return unknown;
    unsigned index = arg.getArgNumber() - 1;
    Pieces initial = cachedPieces(loop.getInitArgs()[index], dim);
    Pieces hypothesis;
    hypothesis.run = initial.run;
    hypothesis.constancy = initial.constancy;
    hypothesis.checkEndpoints = initial.checkEndpoints;
    hypothesis.divisibility = initial.divisibility;
    if (auto weakened = weakenedDivisibility.find({value, dim});
        weakened != weakenedDivisibility.end())
      hypothesis.divisibility = std::gcd(hypothesis.divisibility, weakened->second);
    piecesCache[{value, dim}] = hypothesis;
    // A query that started at the yielded value itself (a tile moved to the
    // next tile under `if`, read before the loop's argument) is still being
    // computed: its cache entry says nothing yet, so compute it under the
    // assumption.
    Value next = loop.getBody()->getTerminator()->getOperand(index);
    Pieces yielded =
        inProgress.contains({next, dim}) ? computePieces(next, dim) : cachedPieces(next, dim);
    if (yielded.run % hypothesis.run == 0 && yielded.constancy % hypothesis.constancy == 0 &&
        (!yielded.checkEndpoints || hypothesis.checkEndpoints)) {
      int64_t group = std::max(hypothesis.run, hypothesis.constancy);
      int64_t kept = groupDivisibility(yielded, group);
      if (kept % hypothesis.divisibility == 0)
        return hypothesis;
      weakenedDivisibility[{value, dim}] = std::gcd(hypothesis.divisibility, kept);
    } else {
      refutedPieces.insert({value, dim});
    }
    assumptionFailed = true;
    return unknown;
  }
  if (auto loop = dyn_cast<scf::ForOp>(def))
    return cachedPieces(loop.getRegionIterArgs()[cast<OpResult>(value).getResultNumber()], dim);
  // Offsets a persistent loop moves to its next tile under `if`, else keeps.
  if (auto branch = dyn_cast<scf::IfOp>(def); branch && branch.elseBlock()) {
    unsigned index = cast<OpResult>(value).getResultNumber();
    return either(cachedPieces(branch.thenYield().getOperand(index), dim),
                  cachedPieces(branch.elseYield().getOperand(index), dim));
  }

  if (auto range = dyn_cast<MakeRangeOp>(def)) {
    Pieces pieces;
    pieces.run = extent;
    pieces.divisibility = divisibilityOf(static_cast<int32_t>(range.getStart()));
    pieces.nonNegative = static_cast<int32_t>(range.getStart()) >= 0;
    return pieces;
  }
  auto uniform = [&](const Pieces &scalar) {
    Pieces pieces = scalar;
    pieces.run = 1;
    pieces.constancy = extent;
    return pieces;
  };
  if (auto splat = dyn_cast<SplatOp>(def))
    return uniform(scalarPieces(splat.getSrc()));
  if (std::optional<int64_t> constant = constantValue(value)) {
    Pieces scalar;
    scalar.divisibility = divisibilityOf(*constant);
    scalar.nonNegative = *constant >= 0;
    return uniform(scalar);
  }
  if (auto bcast = dyn_cast<BroadcastOp>(def)) {
    Pieces src = cachedPieces(bcast.getSrc(), dim);
    if (cast<RankedTensorType>(bcast.getSrc().getType()).getShape()[dim] == 1 && extent > 1)
      return uniform(elementwise(src));
    return src;
  }
  if (auto expand = dyn_cast<ExpandDimsOp>(def)) {
    auto srcType = cast<RankedTensorType>(expand.getSrc().getType());
    unsigned axis = expand.getAxis();
    if (axis != dim)
      return cachedPieces(expand.getSrc(), dim < axis ? dim : dim - 1);
    // Along the new dimension each element stands alone.
    if (srcType.getRank() == 0)
      return unknown;
    return elementwise(cachedPieces(expand.getSrc(), srcType.getRank() - 1));
  }
  if (auto trans = dyn_cast<TransOp>(def))
    return cachedPieces(trans.getSrc(), trans.getOrder()[dim]);
  if (isa<arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp>(def))
    return cachedPieces(def->getOperand(0), dim);
  if (auto hint = dyn_cast<HintOp>(def)) {
    // A hint speaks of the last dimension.
    Pieces src = cachedPieces(hint.getSrc(), dim);
    return lastDim ? withPromises(src, hint) : src;
  }
  if (isa<AddPtrOp, arith::AddIOp, arith::SubIOp>(def)) {
    Pieces lhs = cachedPieces(def->getOperand(0), dim),
           rhs = cachedPieces(def->getOperand(1), dim);
    bool subtract = isa<arith::SubIOp>(def);
    Pieces pieces;
    if (lhs.run > 1 && rhs.run == 1) {
      pieces.run = std::gcd(lhs.run, rhs.constancy);
      pieces.checkEndpoints = lhs.checkEndpoints;
    } else if (!subtract && rhs.run > 1 && lhs.run == 1) {
      pieces.run = std::gcd(rhs.run, lhs.constancy);
      pieces.checkEndpoints = rhs.checkEndpoints;
    }
    pieces.constancy = std::gcd(lhs.constancy, rhs.constancy);
    int64_t group = std::max(pieces.run, pieces.constancy);
    pieces.divisibility =
        std::gcd(groupDivisibility(lhs, group), groupDivisibility(rhs, group));
    pieces.nonNegative = !subtract && lhs.nonNegative && rhs.nonNegative;
    return pieces;
  }
  if (auto mul = dyn_cast<arith::MulIOp>(def)) {
    if (constantValue(mul.getRhs()) == 1)
      return cachedPieces(mul.getLhs(), dim);
    if (constantValue(mul.getLhs()) == 1)
      return cachedPieces(mul.getRhs(), dim);
    Pieces lhs = cachedPieces(mul.getLhs(), dim), rhs = cachedPieces(mul.getRhs(), dim);
    Pieces pieces;
    pieces.constancy = std::gcd(lhs.constancy, rhs.constancy);
    pieces.divisibility =
        std::min(kMaxDivisibility, groupDivisibility(lhs, pieces.constancy) *
                                       groupDivisibility(rhs, pieces.constancy));
    pieces.nonNegative = lhs.nonNegative && rhs.nonNegative;
    return pieces;
  }
  if (auto compare = dyn_cast<arith::CmpIOp>(def))
    return comparisonPieces(compare, dim);
  if (isa<arith::AndIOp, arith::OrIOp>(def) && type.getElementType().isInteger(1)) {
    Pieces lhs = cachedPieces(def->getOperand(0), dim),
           rhs = cachedPieces(def->getOperand(1), dim);
    Pieces pieces;
    pieces.constancy = std::gcd(lhs.constancy, rhs.constancy);
    return pieces;
  }
  if (isa<arith::RemSIOp, arith::RemUIOp>(def)) {
    // Groups of g consecutive values starting at multiples of g stay
    // consecutive modulo an n that is a multiple of g and the same across
    // the group, for non-negative values (remsi) or as unsigned (remui). A
    // negative group of a remsi wraps once at most: checked at run time.
    Pieces lhs = cachedPieces(def->getOperand(0), dim),
           rhs = cachedPieces(def->getOperand(1), dim);
    bool signedRem = isa<arith::RemSIOp>(def);
    int64_t modulus = groupDivisibility(rhs, 1);
    Pieces pieces;
    if (lhs.run > 1 && !lhs.checkEndpoints) {
      pieces.run = std::gcd(std::gcd(lhs.run, lhs.divisibility), std::gcd(modulus, rhs.constancy));
      pieces.checkEndpoints = signedRem && !lhs.nonNegative && pieces.run > 1;
    }
    pieces.constancy = std::gcd(lhs.constancy, rhs.constancy);
    pieces.divisibility = std::gcd(lhs.divisibility, modulus);
    pieces.nonNegative = !signedRem || lhs.nonNegative;
    return pieces;
  }
  return unknown;
}

ContiguityAnalysis::Pieces ContiguityAnalysis::withPromises(Pieces pieces, HintOp hint) {
  if (std::optional<uint64_t> run = hint.getMaxContiguous(); run && int64_t(*run) > pieces.run) {
    pieces.run = int64_t(*run);
    pieces.checkEndpoints = false;
  }
  if (std::optional<uint64_t> constancy = hint.getMaxConstancy())
    pieces.constancy = std::max(pieces.constancy, int64_t(*constancy));
  if (std::optional<uint64_t> multiple = hint.getMultipleOf())
    pieces.divisibility = std::max(pieces.divisibility, divisibilityOf(int64_t(*multiple)));
  return pieces;
}

ContiguityAnalysis::Pieces ContiguityAnalysis::comparisonPieces(arith::CmpIOp compare,
                                                                unsigned dim) {
  Pieces lhs = cachedPieces(compare.getLhs(), dim), rhs = cachedPieces(compare.getRhs(), dim);
  Pieces pieces;
  pieces.constancy = std::gcd(lhs.constancy, rhs.constancy);
  // Consecutive values x against a bound n that is constant over a group:
  // `x < n` and `x >= n` change between n - 1 and n, which is a group
  // boundary when groups start at multiples of g and n is one.
  using arith::CmpIPredicate;
  CmpIPredicate predicate = compare.getPredicate();
  bool runOnLeft = lhs.run > 1 && !lhs.checkEndpoints;
  bool runOnRight = rhs.run > 1 && !rhs.checkEndpoints;
  bool flipsBeforeBound = runOnLeft ? (predicate == CmpIPredicate::slt ||
                                       predicate == CmpIPredicate::sge ||
                                       predicate == CmpIPredicate::ult ||
                                       predicate == CmpIPredicate::uge)
                                    : (predicate == CmpIPredicate::sgt ||
                                       predicate == CmpIPredicate::sle ||
                                       predicate == CmpIPredicate::ugt ||
                                       predicate == CmpIPredicate::ule);
  if (runOnLeft != runOnRight && flipsBeforeBound) {
    const Pieces &values = runOnLeft ? lhs : rhs;
    const Pieces &bound = runOnLeft ? rhs : lhs;
    int64_t group = std::gcd(std::gcd(values.run, values.divisibility),
                             std::gcd(groupDivisibility(bound, 1), bound.constancy));
    pieces.constancy = std::max(pieces.constancy, group);
  }
  return pieces;
}

int64_t ContiguityAnalysis::runStartAlignment(Value pointer, int64_t run, int64_t elementBytes) {
  return alignmentAlong(pointer, run, elementBytes, lastDimOf(pointer));
}

int64_t ContiguityAnalysis::alignmentAlong(Value pointer, int64_t run, int64_t elementBytes,
                                           unsigned dim) {
  if (auto hypothesis = alignmentHypotheses.find({pointer, dim, run});
      hypothesis != alignmentHypotheses.end())
    return hypothesis->second;
  Operation *def = pointer.getDefiningOp();
  if (auto arg = dyn_cast<BlockArgument>(pointer)) {
    if (auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp()))
      return loopCarriedAlignment(loop, arg, run, elementBytes, dim);
    return provenScalarPieces(pointer).divisibility; // a kernel argument's tile.divisibility
  }
  if (auto loop = dyn_cast_or_null<scf::ForOp>(def))
    return loopCarriedAlignment(
        loop, loop.getRegionIterArgs()[cast<OpResult>(pointer).getResultNumber()], run,
        elementBytes, dim);
  if (auto splat = dyn_cast_or_null<SplatOp>(def))
    return alignmentAlong(splat.getSrc(), run, elementBytes, 0);
  if (auto bcast = dyn_cast_or_null<BroadcastOp>(def)) {
    // Broadcast along `dim`: a group repeats one element.
    bool repeated = cast<RankedTensorType>(bcast.getSrc().getType()).getShape()[dim] == 1;
    return alignmentAlong(bcast.getSrc(), repeated ? 1 : run, elementBytes, dim);
  }
  if (auto expand = dyn_cast_or_null<ExpandDimsOp>(def)) {
    auto srcType = cast<RankedTensorType>(expand.getSrc().getType());
    unsigned axis = expand.getAxis();
    if (axis != dim)
      return alignmentAlong(expand.getSrc(), run, elementBytes, dim < axis ? dim : dim - 1);
    return srcType.getRank() == 0
               ? 1
               : alignmentAlong(expand.getSrc(), 1, elementBytes, srcType.getRank() - 1);
  }
  if (auto trans = dyn_cast_or_null<TransOp>(def))
    return alignmentAlong(trans.getSrc(), run, elementBytes, trans.getOrder()[dim]);
  if (auto addptr = dyn_cast_or_null<AddPtrOp>(def)) {
    int64_t offsets = groupDivisibility(piecesAlong(addptr.getOffset(), dim), run);
    return std::gcd(alignmentAlong(addptr.getPtr(), run, elementBytes, dim),
                    std::min(kMaxDivisibility, offsets * elementBytes));
  }
  return 1;
}

int64_t ContiguityAnalysis::loopCarriedAlignment(scf::ForOp loop, BlockArgument arg, int64_t run,
                                                 int64_t elementBytes, unsigned dim) {
  if (loops != LoopCarriedStrides::Inductive || arg.getOwner() != loop.getBody() ||
      arg.getArgNumber() == 0)
    return 1;
  unsigned index = arg.getArgNumber() - 1;
  Value yielded = loop.getBody()->getTerminator()->getOperand(index);
  // Induction: if the argument's run starts are multiples of the hypothesis
  // and so are the yielded value's, every iteration's are. A hypothesis that
  // fails gives way to the (smaller) power of two that the step proves; the
  // powers of two only shrink, so this ends.
  int64_t hypothesis = alignmentAlong(loop.getInitArgs()[index], run, elementBytes, dim);
  for (;;) {
    alignmentHypotheses[{arg, dim, run}] = hypothesis;
    int64_t next = std::gcd(hypothesis, alignmentAlong(yielded, run, elementBytes, dim));
    if (next == hypothesis)
      break;
    hypothesis = next;
  }
  alignmentHypotheses.erase({arg, dim, run});
  return hypothesis;
}

std::optional<int64_t> ContiguityAnalysis::lastDimStride(Value value) {
  return strideAlong(value, lastDimOf(value));
}

std::optional<int64_t> ContiguityAnalysis::strideAlong(Value value, unsigned dim) {
  for (;;) {
    assumptionFailed = false;
    std::optional<int64_t> stride = strideOf(value, dim);
    if (!assumptionFailed)
      return stride;
    cache.clear();
  }
}

std::optional<int64_t> ContiguityAnalysis::strideOf(Value value, unsigned dim) {
  auto it = cache.find({value, dim});
  if (it != cache.end())
    return it->second;
  cache[{value, dim}] = std::nullopt; // cycles (loop-carried values) stay unknown
  std::optional<int64_t> result = compute(value, dim);
  cache[{value, dim}] = result;
  return result;
}

std::optional<int64_t> ContiguityAnalysis::compute(Value value, unsigned dim) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type)
    return 0; // a scalar is the same for every element
  if (type.getRank() == 0 || type.getShape()[dim] == 1)
    return 0;
  Operation *def = value.getDefiningOp();
  if (!def)
    return loopCarriedStride(value, dim);
  if (auto loop = dyn_cast<scf::ForOp>(def))
    return loops == LoopCarriedStrides::Inductive
               ? strideOf(loop.getRegionIterArgs()[cast<OpResult>(value).getResultNumber()], dim)
               : std::nullopt;
  if (isa<MakeRangeOp>(def))
    return 1;
  if (isa<SplatOp>(def))
    return 0;
  DenseElementsAttr dense;
  if (matchPattern(value, m_Constant(&dense)))
    return dense.isSplat() ? std::optional<int64_t>(0) : std::nullopt;
  if (auto bcast = dyn_cast<BroadcastOp>(def)) {
    auto srcType = cast<RankedTensorType>(bcast.getSrc().getType());
    if (srcType.getShape()[dim] == 1)
      return 0;
    return strideOf(bcast.getSrc(), dim);
  }
  if (auto expand = dyn_cast<ExpandDimsOp>(def)) {
    // The new dimension has size 1 (handled above); the others shift.
    unsigned axis = expand.getAxis();
    return strideOf(expand.getSrc(), dim < axis ? dim : dim - 1);
  }
  if (auto trans = dyn_cast<TransOp>(def))
    return strideOf(trans.getSrc(), trans.getOrder()[dim]);
  auto both = [&](Value lhs, Value rhs) {
    return std::pair(strideOf(lhs, dim), strideOf(rhs, dim));
  };
  if (auto addptr = dyn_cast<AddPtrOp>(def)) {
    auto [p, o] = both(addptr.getPtr(), addptr.getOffset());
    if (p && o)
      return *p + *o;
    return std::nullopt;
  }
  if (auto add = dyn_cast<arith::AddIOp>(def)) {
    auto [l, r] = both(add.getLhs(), add.getRhs());
    if (l && r)
      return *l + *r;
    return std::nullopt;
  }
  if (auto sub = dyn_cast<arith::SubIOp>(def)) {
    auto [l, r] = both(sub.getLhs(), sub.getRhs());
    if (l && r)
      return *l - *r;
    return std::nullopt;
  }
  if (auto mul = dyn_cast<arith::MulIOp>(def)) {
    auto [l, r] = both(mul.getLhs(), mul.getRhs());
    if (!l || !r)
      return std::nullopt;
    if (*l == 0 && *r == 0)
      return 0;
    if (*r == 0)
      if (auto c = constantValue(mul.getRhs()))
        return *l * *c;
    if (*l == 0)
      if (auto c = constantValue(mul.getLhs()))
        return *r * *c;
    return std::nullopt;
  }
  if (isa<arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp>(def))
    return strideOf(def->getOperand(0), dim);
  if (auto hint = dyn_cast<HintOp>(def)) {
    if (std::optional<int64_t> stride = strideOf(hint.getSrc(), dim))
      return stride;
    // A whole row promised consecutive (or equal) has stride 1 (or 0).
    int64_t extent = type.getShape().back();
    if (dim + 1 != type.getRank())
      return std::nullopt;
    if (hint.getMaxContiguous() == uint64_t(extent))
      return 1;
    if (hint.getMaxConstancy() == uint64_t(extent))
      return 0;
    return std::nullopt;
  }
  return std::nullopt;
}

std::optional<int64_t> ContiguityAnalysis::loopCarriedStride(Value value, unsigned dim) {
  auto arg = dyn_cast<BlockArgument>(value);
  if (loops != LoopCarriedStrides::Inductive || !arg || refuted.contains({value, dim}))
    return std::nullopt;
  auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
  if (!loop || arg.getOwner() != loop.getBody() || arg.getArgNumber() == 0)
    return std::nullopt;
  unsigned index = arg.getArgNumber() - 1;
  std::optional<int64_t> initial = strideOf(loop.getInitArgs()[index], dim);
  if (!initial)
    return std::nullopt;
  cache[{value, dim}] = initial; // the induction hypothesis
  if (strideOf(loop.getBody()->getTerminator()->getOperand(index), dim) == initial)
    return initial;
  refuted.insert({value, dim});
  assumptionFailed = true;
  return std::nullopt;
}

} // namespace tessera::tile
