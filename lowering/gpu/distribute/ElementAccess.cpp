#include "lowering/gpu/distribute/ElementAccess.h"

#include "lowering/gpu/InlinePtx.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace tessera::gpu {

namespace {

constexpr unsigned kMaxVectorBits = 128;

/// The address (an index) of element `offset` from `baseAddress`.
Value byteAddressOf(OpBuilder &builder, Location loc, Value baseAddress, int64_t elementBytes,
                    Value offset) {
  Value scale = arith::ConstantIndexOp::create(builder, loc, elementBytes);
  return arith::AddIOp::create(builder, loc, baseAddress,
                               arith::MulIOp::create(builder, loc, offset, scale));
}

/// Vector accesses need the address of their first element to be a
/// multiple of their size. Kernel arguments and offsets promise nothing at
/// compile time, so it is checked where the access is made.
class VectorRuns {
public:
  VectorRuns(OpBuilder &builder, Location loc, Value base, Type element, unsigned width)
      : elementBytes(element.getIntOrFloatBitWidth() / 8), width(width),
        type(VectorType::get({int64_t(width)}, element)),
        address(memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, base)) {}

  VectorType vectorType() const { return type; }
  llvm::MaybeAlign alignment() const { return llvm::MaybeAlign(elementBytes * width); }

  /// i1: the run starting at access `first` may be one vector access.
  Value isWhole(OpBuilder &builder, Location loc, ArrayRef<ElementAccess> accesses,
                unsigned first, const RunAccess &runs) const {
    SmallVector<Value> conditions = {
        runAddressesAllowVector(builder, loc, address, elementBytes, accesses, first, width, runs)};
    // The accesses of a proved-aligned run share their condition.
    unsigned conditioned = runs.provedAligned ? 1 : width;
    for (unsigned i = first; i < first + conditioned; ++i)
      conditions.push_back(accesses[i].condition);
    return allOf(builder, loc, conditions);
  }

  Value addressOf(OpBuilder &builder, Location loc, const ElementAccess &access) const {
    return byteAddressOf(builder, loc, address, elementBytes, access.offset);
  }

private:
  unsigned elementBytes, width;
  VectorType type;
  Value address;
};

/// The 32-bit words (1, 2 or 4) that a run of `type` made of `elements` is.
SmallVector<Value> wordsOf(OpBuilder &b, Location loc, VectorType type, ValueRange elements) {
  unsigned words = type.getNumElements() * type.getElementTypeBitWidth() / 32;
  auto wordsType = VectorType::get({int64_t(words)}, b.getI32Type());
  Value packed = vector::BitCastOp::create(
      b, loc, wordsType, vector::FromElementsOp::create(b, loc, type, elements));
  SmallVector<Value> result;
  for (unsigned word = 0; word < words; ++word)
    result.push_back(vector::ExtractOp::create(b, loc, packed, int64_t(word)));
  return result;
}

/// PTX for `access` ("ld.global.v4.b32 {$0, ...}, [%tessera_global]") under
/// predicate operand `predicate` (none: always), %tessera_global being the
/// global-space form of the generic address operand `address`.
std::string globalAccess(unsigned address, std::optional<unsigned> predicate,
                         llvm::StringRef access) {
  std::string guard = predicate ? "@$" + std::to_string(*predicate) + " " : "";
  return "{ .reg .u64 %tessera_global; cvta.to.global.u64 %tessera_global, $" +
         std::to_string(address) + "; " + guard + access.str() + "; }";
}

/// The run of `type` at `address` (an index, the run's first byte in
/// global memory): one `ld.global`, or where `condition` is given one
/// `@p ld.global` whose registers hold `fill` first, so that where
/// `condition` is false they keep it. Runs of whole 32-bit words, 1, 2 or 4
/// of them.
SmallVector<Value> loadRunInPtx(OpBuilder &b, Location loc, VectorType type, Value address,
                                     Value condition, ArrayRef<Value> fill) {
  unsigned words = type.getNumElements() * type.getElementTypeBitWidth() / 32;
  SmallVector<Value> operands;
  std::string constraints, registers;
  llvm::raw_string_ostream constraintOut(constraints), registerOut(registers);
  for (unsigned word = 0; word < words; ++word) {
    constraintOut << "=r,";
    registerOut << (word ? ", $" : "$") << word;
  }
  std::optional<unsigned> predicate;
  if (condition) {
    predicate = words + operands.size();
    operands.push_back(condition);
    constraintOut << "b,";
  }
  unsigned addressOperand = words + operands.size();
  operands.push_back(arith::IndexCastUIOp::create(b, loc, b.getI64Type(), address));
  constraintOut << "l";
  if (condition) {
    for (unsigned word = 0; word < words; ++word)
      constraintOut << "," << word;
    llvm::append_range(operands, wordsOf(b, loc, type, fill));
  }
  std::string vectorSuffix = words > 1 ? ".v" + std::to_string(words) : "";
  std::string destination = words > 1 ? "{" + registers + "}" : registers;
  SmallVector<Value> loadedWords = inlinePtx(
      b, loc, SmallVector<Type>(words, b.getI32Type()), operands,
      globalAccess(addressOperand, predicate,
                   "ld.global" + vectorSuffix + ".b32 " + destination + ", [%tessera_global]"),
      constraints, SharedMemoryUse::None);
  SmallVector<Value> elements;
  if (type.getElementTypeBitWidth() > 32) {
    Value packed = vector::FromElementsOp::create(
        b, loc, VectorType::get({int64_t(words)}, b.getI32Type()), loadedWords);
    Value wide = vector::BitCastOp::create(b, loc, type, packed);
    for (int64_t i = 0; i < type.getNumElements(); ++i)
      elements.push_back(vector::ExtractOp::create(b, loc, wide, i));
    return elements;
  }
  // Word by word: NVPTX rebuilds a word of bytes taken from a wider vector
  // with a prmt per byte, but sees that those of the word's own are it.
  auto wordType = VectorType::get({1}, b.getI32Type());
  int64_t perWord = type.getNumElements() / words;
  auto wordElementsType = VectorType::get({perWord}, type.getElementType());
  for (Value word : loadedWords) {
    Value wordElements = vector::BitCastOp::create(
        b, loc, wordElementsType, vector::BroadcastOp::create(b, loc, wordType, word));
    for (int64_t i = 0; i < perWord; ++i)
      elements.push_back(vector::ExtractOp::create(b, loc, wordElements, i));
  }
  return elements;
}

/// Whether runs of `type` at `base` may be predicated accesses: whole
/// 32-bit words, 1, 2 or 4, in global memory (a memref in the default space).
bool allowsPredicatedAccess(Value base, VectorType type) {
  int64_t bits = type.getNumElements() * type.getElementTypeBitWidth();
  return !cast<MemRefType>(base.getType()).getMemorySpace() &&
         (bits == 32 || bits == 64 || bits == 128);
}

/// `values` (a run of `type`) written at `address` (an index, the run's
/// first byte in global memory) by one `@p st.global` under `condition`.
/// Runs of whole 32-bit words, 1, 2 or 4 of them.
void storeRunPredicated(OpBuilder &b, Location loc, VectorType type, Value address,
                        Value condition, ValueRange values) {
  SmallVector<Value> words = wordsOf(b, loc, type, values);
  SmallVector<Value> operands = {
      condition, arith::IndexCastUIOp::create(b, loc, b.getI64Type(), address)};
  std::string constraints = "b,l", registers;
  llvm::raw_string_ostream constraintOut(constraints), registerOut(registers);
  for (unsigned word = 0; word < words.size(); ++word) {
    constraintOut << ",r";
    registerOut << (word ? ", $" : "$") << word + 2;
  }
  llvm::append_range(operands, words);
  std::string vectorSuffix = words.size() > 1 ? ".v" + std::to_string(words.size()) : "";
  std::string source = words.size() > 1 ? "{" + registers + "}" : registers;
  inlinePtx(b, loc, TypeRange{}, operands,
            globalAccess(1, 0, "st.global" + vectorSuffix + ".b32 [%tessera_global], " + source),
            constraints, SharedMemoryUse::None);
}

Value loadElement(OpBuilder &builder, Location loc, Value base, ElementAccess access,
                  Value otherwise) {
  if (!access.condition)
    return memref::LoadOp::create(builder, loc, base, access.offset);
  auto ifOp = scf::IfOp::create(
      builder, loc, access.condition,
      [&](OpBuilder &then, Location loc) {
        scf::YieldOp::create(then, loc,
                             ValueRange{memref::LoadOp::create(then, loc, base, access.offset)});
      },
      [&](OpBuilder &orElse, Location loc) { scf::YieldOp::create(orElse, loc, otherwise); });
  return ifOp.getResult(0);
}

void storeElement(OpBuilder &builder, Location loc, Value base, ElementAccess access,
                  Value value) {
  OpBuilder::InsertionGuard insertion(builder);
  if (access.condition) {
    auto ifOp = scf::IfOp::create(builder, loc, access.condition, /*withElseRegion=*/false);
    builder.setInsertionPointToStart(&ifOp.getThenRegion().front());
  }
  memref::StoreOp::create(builder, loc, value, base, access.offset);
}

/// i1: the last access of the run holding access `first` (runs of `width`)
/// is at the run's first offset + width - 1. Tested as a difference: where
/// both offsets move by the same amount in every iteration of a loop (a
/// pointer tile stepped by a scalar), LLVM then sees the difference invariant
/// and tests it once, before the loop.
Value endpointsAreConsecutive(OpBuilder &builder, Location loc, ArrayRef<ElementAccess> accesses,
                              unsigned first, unsigned width) {
  unsigned runFirst = first - first % width;
  Value span = arith::SubIOp::create(builder, loc, accesses[runFirst + width - 1].offset,
                                     accesses[runFirst].offset);
  return arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq, span,
                               arith::ConstantIndexOp::create(builder, loc, width - 1));
}

} // namespace

Value allOf(OpBuilder &builder, Location loc, ArrayRef<Value> conditions) {
  Value all;
  for (Value condition : conditions)
    if (condition)
      all = all ? Value(arith::AndIOp::create(builder, loc, all, condition)) : condition;
  return all;
}

Value runAddressesAllowVector(OpBuilder &builder, Location loc, Value baseAddress,
                              int64_t elementBytes, ArrayRef<ElementAccess> accesses,
                              unsigned first, unsigned width, const RunAccess &runs) {
  SmallVector<Value> conditions = {runs.vectorCondition};
  if (!runs.provedAligned) {
    Value start = byteAddressOf(builder, loc, baseAddress, elementBytes,
                                accessInRun(builder, loc, accesses, runs, first).offset);
    Value lowBits = arith::AndIOp::create(
        builder, loc, start,
        arith::ConstantIndexOp::create(builder, loc, elementBytes * width - 1));
    conditions.push_back(arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq, lowBits,
                                               arith::ConstantIndexOp::create(builder, loc, 0)));
  }
  if (runs.addresses == RunAddresses::WhenEndpointsAreConsecutive)
    conditions.push_back(endpointsAreConsecutive(builder, loc, accesses, first, runs.width));
  return allOf(builder, loc, conditions);
}

ElementAccess accessInRun(OpBuilder &builder, Location loc, ArrayRef<ElementAccess> accesses,
                          const RunAccess &runs, unsigned i) {
  ElementAccess access = accesses[i];
  unsigned runFirst = i - i % runs.width, runLast = runFirst + runs.width - 1;
  auto plus = [&](Value offset, int64_t delta) -> Value {
    return arith::AddIOp::create(builder, loc, offset,
                                 arith::ConstantIndexOp::create(builder, loc, delta));
  };
  if (i == runFirst)
    return access;
  if (runs.addresses == RunAddresses::Consecutive)
    access.offset = plus(accesses[runFirst].offset, int64_t(i - runFirst));
  else if (runs.addresses == RunAddresses::WhenEndpointsAreConsecutive && i != runLast)
    access.offset = plus(accesses[runLast].offset, -int64_t(runLast - i));
  return access;
}

unsigned vectorAccessWidth(const GpuTarget &target, unsigned contiguous, Type element) {
  if (!target.hasVectorAccesses() || !element.isIntOrFloat())
    return 1;
  unsigned bits = element.getIntOrFloatBitWidth();
  if (bits < 8 || bits > 64 || bits % 8 != 0)
    return 1;
  return std::min(contiguous, kMaxVectorBits / bits);
}

unsigned vectorAccessWidth(const GpuTarget &target, const LinearLayout &layout, Type element) {
  return vectorAccessWidth(target, layout.contiguousRegisters(), element);
}

Registers loadElements(OpBuilder &builder, Location loc, Value base, Type element,
                       ArrayRef<ElementAccess> accesses, const RunAccess &runAccess,
                       llvm::function_ref<Value(OpBuilder &, unsigned)> otherwise) {
  unsigned width = runAccess.width;
  // The fallback value is only built where some access is conditional.
  auto fallback = [&](OpBuilder &b, unsigned i) {
    return accesses[i].condition ? otherwise(b, i) : Value();
  };
  Registers regs;
  if (width < 2) {
    for (unsigned i = 0; i < accesses.size(); ++i)
      regs.push_back(loadElement(builder, loc, base, accesses[i], fallback(builder, i)));
    return regs;
  }
  VectorRuns runs(builder, loc, base, element, width);
  auto loadRun = [&](OpBuilder &b, Location loc, unsigned first) {
    Value vector = vector::LoadOp::create(b, loc, runs.vectorType(), base,
                                          ValueRange{accesses[first].offset},
                                          /*nontemporal=*/false, runs.alignment());
    SmallVector<Value> elements;
    for (unsigned i = 0; i < width; ++i)
      elements.push_back(vector::ExtractOp::create(b, loc, vector, int64_t(i)));
    return elements;
  };
  for (unsigned first = 0; first < accesses.size(); first += width) {
    // A proved run is one vector where its (shared) condition holds; any
    // other run checks at run time and falls back to element loads.
    Value whole = runAccess.provedWhole()
                      ? accesses[first].condition
                      : runs.isWhole(builder, loc, accesses, first, runAccess);
    if (!whole) {
      llvm::append_range(regs, loadRun(builder, loc, first));
      continue;
    }
    bool inlineVector = runAccess.predicated && allowsPredicatedAccess(base, runs.vectorType());
    if (runAccess.provedWhole() && inlineVector) {
      SmallVector<Value> fill;
      for (unsigned i = first; i < first + width; ++i)
        fill.push_back(otherwise(builder, i));
      llvm::append_range(regs, loadRunInPtx(builder, loc, runs.vectorType(),
                                            runs.addressOf(builder, loc, accesses[first]), whole,
                                            fill));
      continue;
    }
    auto ifOp = scf::IfOp::create(
        builder, loc, whole,
        [&](OpBuilder &then, Location loc) {
          scf::YieldOp::create(
              then, loc,
              inlineVector ? loadRunInPtx(then, loc, runs.vectorType(),
                                          runs.addressOf(then, loc, accesses[first]),
                                          /*condition=*/Value(), /*fill=*/{})
                           : loadRun(then, loc, first));
        },
        [&](OpBuilder &orElse, Location loc) {
          SmallVector<Value> elements;
          for (unsigned i = first; i < first + width; ++i)
            elements.push_back(
                runAccess.provedWhole()
                    ? otherwise(orElse, i)
                    : loadElement(orElse, loc, base,
                                  accessInRun(orElse, loc, accesses, runAccess, i),
                                  fallback(orElse, i)));
          scf::YieldOp::create(orElse, loc, elements);
        });
    llvm::append_range(regs, ifOp.getResults());
  }
  return regs;
}

void storeElements(OpBuilder &builder, Location loc, Value base, ArrayRef<ElementAccess> accesses,
                   ValueRange values, const RunAccess &runAccess,
                   llvm::function_ref<bool(unsigned)> skip) {
  unsigned width = runAccess.width;
  if (width < 2) {
    for (unsigned i = 0; i < accesses.size(); ++i)
      if (!skip(i))
        storeElement(builder, loc, base, accesses[i], values[i]);
    return;
  }
  Type element = values.front().getType();
  VectorRuns runs(builder, loc, base, element, width);
  for (unsigned first = 0; first < accesses.size(); first += width) {
    // A run holds distinct elements of one row: it is wholly a copy of
    // another run or not at all.
    if (skip(first))
      continue;
    auto storeRun = [&](OpBuilder &b, Location loc) {
      Value vector =
          vector::FromElementsOp::create(b, loc, runs.vectorType(), values.slice(first, width));
      vector::StoreOp::create(b, loc, vector, base, ValueRange{accesses[first].offset},
                              /*nontemporal=*/false, runs.alignment());
    };
    if (runAccess.provedWhole()) {
      Value condition = accesses[first].condition;
      if (condition && runAccess.predicated &&
          allowsPredicatedAccess(base, runs.vectorType())) {
        storeRunPredicated(builder, loc, runs.vectorType(),
                           runs.addressOf(builder, loc, accesses[first]), condition,
                           values.slice(first, width));
        continue;
      }
      OpBuilder::InsertionGuard insertion(builder);
      if (condition) {
        auto ifOp = scf::IfOp::create(builder, loc, condition, /*withElseRegion=*/false);
        builder.setInsertionPointToStart(&ifOp.getThenRegion().front());
      }
      storeRun(builder, loc);
      continue;
    }
    Value whole = runs.isWhole(builder, loc, accesses, first, runAccess);
    scf::IfOp::create(
        builder, loc, whole,
        [&](OpBuilder &then, Location loc) {
          storeRun(then, loc);
          scf::YieldOp::create(then, loc);
        },
        [&](OpBuilder &orElse, Location loc) {
          for (unsigned i = first; i < first + width; ++i)
            storeElement(orElse, loc, base,
                         accessInRun(orElse, loc, accesses, runAccess, i), values[i]);
          scf::YieldOp::create(orElse, loc);
        });
  }
}

SmallVector<Value, 4> transposeByteRows(OpBuilder &builder, Location loc, ArrayRef<Value> rows) {
  auto interleave = [&](Value a, Value b, ArrayRef<int64_t> picks) -> Value {
    return vector::ShuffleOp::create(builder, loc, a, b, picks);
  };
  Value low01 = interleave(rows[0], rows[1], {0, 4, 1, 5});
  Value high01 = interleave(rows[0], rows[1], {2, 6, 3, 7});
  Value low23 = interleave(rows[2], rows[3], {0, 4, 1, 5});
  Value high23 = interleave(rows[2], rows[3], {2, 6, 3, 7});
  return {interleave(low01, low23, {0, 1, 4, 5}), interleave(low01, low23, {2, 3, 6, 7}),
          interleave(high01, high23, {0, 1, 4, 5}), interleave(high01, high23, {2, 3, 6, 7})};
}

} // namespace tessera::gpu
