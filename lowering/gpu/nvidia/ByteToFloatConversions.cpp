// tessera-nvvm-byte-to-float (Passes.td): 8-bit integers to f16, bf16 and f32
// as byte permutes into a float's significand and one subtraction.
#include "lowering/gpu/nvidia/Passes.h"

#include "lowering/gpu/nvidia/NeighbourPairs.h"

#include "llvm/ADT/DenseMap.h"

namespace tessera::gpu {
#define GEN_PASS_DEF_TESSERANVVMBYTETOFLOAT
#include "lowering/gpu/nvidia/Passes.h.inc"
} // namespace tessera::gpu

using namespace mlir;

namespace {

/// The float type an `arith.sitofp` or `arith.uitofp` of an i8 scalar gives,
/// where it is one this pass converts.
Type byteConversionResult(Operation *op) {
  if (!isa<arith::SIToFPOp, arith::UIToFPOp>(op) || !op->getOperand(0).getType().isInteger(8))
    return {};
  Type to = op->getResult(0).getType();
  return to.isF16() || to.isBF16() || to.isF32() ? to : Type();
}

/// A byte as the word that holds it and its place (0 to 3) there.
struct PlacedByte {
  Value word;
  unsigned index;
};

// prmt's byte pool: the first operand's bytes are 0 to 3, the second's 4 to 7.
constexpr unsigned kSecondWord = 4;

/// A prmt selector, one byte index a nibble, the result's low byte first.
uint32_t selector(std::initializer_list<unsigned> bytes) {
  uint32_t nibbles = 0, shift = 0;
  for (unsigned byte : bytes) {
    nibbles |= byte << shift;
    shift += 4;
  }
  return nibbles;
}

class ByteToFloat {
public:
  ByteToFloat(OpBuilder &b, bool bf16Subtraction) : b(b), bf16Subtraction(bf16Subtraction) {}

  /// `first` and, where given, `second` (conversions of one kind, `second`'s
  /// operand available at `first`) replaced at `first`.
  void lower(Operation *first, Operation *second) {
    b.setInsertionPoint(first);
    loc = first->getLoc();
    isSigned = isa<arith::SIToFPOp>(first);
    Type to = first->getResult(0).getType();
    bool bfloatHalvesOfSigned = to.isBF16() && isSigned && bf16Subtraction;
    offsetsBytes = isSigned && !bfloatHalvesOfSigned;
    PlacedByte x = place(first->getOperand(0));
    PlacedByte y = second ? place(second->getOperand(0)) : x;
    SmallVector<Value, 2> results;
    if (to.isF16())
      results = halves(x, y);
    else if (bfloatHalvesOfSigned)
      results = bfloatHalves(x, y);
    else if (to.isBF16())
      results = bfloatPair(x, y);
    else
      results = {single(x)};
    first->getResult(0).replaceAllUsesWith(results[0]);
    first->erase();
    if (second) {
      second->getResult(0).replaceAllUsesWith(results[1]);
      second->erase();
    }
  }

private:
  Value constant32(uint32_t value) {
    return arith::ConstantIntOp::create(b, loc, b.getI32Type(), value);
  }

  Value permute(Value low, Value high, uint32_t bytes) {
    return NVVM::PermuteOp::create(b, loc, b.getI32Type(), low, high, constant32(bytes),
                                   NVVM::PermuteMode::DEFAULT);
  }

  /// The word `byte` was extracted from, as the 32-bit lane of its vector
  /// (bitcast once, right after the vector is made), else the byte
  /// zero-extended; where `offsetsBytes`, every byte of it offset by 128
  /// (its sign bit flipped), which makes a signed byte's value plus 128 an
  /// unsigned one.
  PlacedByte place(Value byte) {
    Value word;
    unsigned index = 0;
    auto extract = byte.getDefiningOp<vector::ExtractOp>();
    auto vector = extract ? dyn_cast<VectorType>(extract.getSource().getType()) : VectorType();
    if (vector && vector.getRank() == 1 && !vector.isScalable() &&
        vector.getNumElements() % 4 == 0 && !extract.hasDynamicPosition()) {
      int64_t position = extract.getStaticPosition()[0];
      index = position % 4;
      word = wordOf(extract.getSource(), position / 4);
    } else {
      word = arith::ExtUIOp::create(b, loc, b.getI32Type(), byte);
    }
    if (!offsetsBytes)
      return {word, index};
    Value &flipped = signFlipped[word];
    if (!flipped) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointAfterValue(word);
      flipped = arith::XOrIOp::create(b, loc, word, constant32(0x80808080u));
    }
    return {flipped, index};
  }

  Value wordOf(Value bytes, int64_t index) {
    Value &word = words[{bytes, index}];
    if (word)
      return word;
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointAfterValue(bytes);
    Value &lanes = wordLanes[bytes];
    if (!lanes) {
      int64_t count = cast<VectorType>(bytes.getType()).getNumElements() / 4;
      lanes = vector::BitCastOp::create(b, loc, VectorType::get({count}, b.getI32Type()), bytes);
    }
    b.setInsertionPointAfterValue(lanes);
    word = vector::ExtractOp::create(b, loc, lanes, ArrayRef<int64_t>{index});
    return word;
  }

  /// The bytes x and y as the low bytes of two halves of a word, whose high
  /// bytes are those of `exponents`.
  Value bytePair(PlacedByte x, PlacedByte y, uint32_t exponents) {
    if (x.word == y.word)
      return permute(x.word, constant32(exponents),
                     selector({x.index, kSecondWord, y.index, kSecondWord}));
    Value gathered = permute(x.word, y.word, selector({x.index, kSecondWord + y.index}));
    return permute(gathered, constant32(exponents), selector({0, kSecondWord, 1, kSecondWord}));
  }

  SmallVector<Value, 2> split(Value pair) {
    return {vector::ExtractOp::create(b, loc, pair, ArrayRef<int64_t>{0}),
            vector::ExtractOp::create(b, loc, pair, ArrayRef<int64_t>{1})};
  }

  /// x and y as f16: each byte the low byte of a half 0x64XX (1024 + the
  /// byte: f16 has 10 significand bits), less 1024 (1152 where the byte was
  /// offset by 128), two at once.
  SmallVector<Value, 2> halves(PlacedByte x, PlacedByte y) {
    auto pairType = VectorType::get({2}, b.getF16Type());
    Value biased = LLVM::BitcastOp::create(b, loc, pairType, bytePair(x, y, 0x64646464u));
    double bias = isSigned ? 1152.0 : 1024.0;
    Value offset = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(pairType, ArrayRef<Attribute>{b.getF16FloatAttr(bias)}));
    return split(arith::SubFOp::create(b, loc, biased, offset));
  }

  /// Signed x and y as bf16, two at once: each byte the low byte of a bf16
  /// 0x43XX, which with the byte's sign bit cleared is 128 + its low 7 bits
  /// and with those bits cleared 128, or 256 where the sign bit is set; the
  /// first less the second is the byte's value.
  SmallVector<Value, 2> bfloatHalves(PlacedByte x, PlacedByte y) {
    Value pair = bytePair(x, y, 0x43434343u);
    auto pairType = VectorType::get({2}, b.getBF16Type());
    auto masked = [&](uint32_t mask) {
      Value bits = arith::AndIOp::create(b, loc, pair, constant32(mask));
      return LLVM::BitcastOp::create(b, loc, pairType, bits);
    };
    Value magnitudes = masked(0x437F437Fu);
    Value signs = masked(0x43804380u);
    return split(arith::SubFOp::create(b, loc, magnitudes, signs));
  }

  /// x as f32: the byte the low byte of the float 0x4B0000XX (2^23 + the
  /// byte), less 2^23 (2^23 + 128 where it was offset).
  Value single(PlacedByte x) {
    Value bits = permute(x.word, constant32(0x4B000000u),
                         selector({x.index, kSecondWord, kSecondWord, kSecondWord + 3}));
    Value biased = arith::BitcastOp::create(b, loc, b.getF32Type(), bits);
    double bias = isSigned ? 8388736.0 : 8388608.0;
    Value offset = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(bias));
    return arith::SubFOp::create(b, loc, biased, offset);
  }

  /// x and y as bf16: each as f32, then the high halves of the two, which
  /// is exact (an 8-bit integer needs no more of bf16's 8 significand bits).
  SmallVector<Value, 2> bfloatPair(PlacedByte x, PlacedByte y) {
    auto bitsOf = [&](Value value) {
      return arith::BitcastOp::create(b, loc, b.getI32Type(), value);
    };
    Value low = bitsOf(single(x));
    Value high = x.word == y.word && x.index == y.index ? low : bitsOf(single(y));
    Value pair = permute(low, high, selector({2, 3, kSecondWord + 2, kSecondWord + 3}));
    return split(LLVM::BitcastOp::create(b, loc, VectorType::get({2}, b.getBF16Type()), pair));
  }

  OpBuilder &b;
  bool bf16Subtraction;
  Location loc = b.getUnknownLoc();
  bool isSigned = false, offsetsBytes = false;
  llvm::DenseMap<Value, Value> wordLanes, signFlipped;
  llvm::DenseMap<std::pair<Value, int64_t>, Value> words;
};

struct ByteToFloatConversions
    : tessera::gpu::impl::TesseraNvvmByteToFloatBase<ByteToFloatConversions> {
  using Base::Base;

  void runOnOperation() override {
    OpBuilder b(&getContext());
    ByteToFloat converter(b, bf16Subtraction);
    // f16 and bf16 results come two to a word.
    tessera::gpu::lowerInNeighbourPairs(
        getOperation(),
        [](Operation *op) -> Type {
          Type to = byteConversionResult(op);
          return to && to.getIntOrFloatBitWidth() == 16 ? to : Type();
        },
        [&](Operation *first, Operation *second) { converter.lower(first, second); });
    SmallVector<Operation *> singles;
    getOperation()->walk([&](Operation *op) {
      if (byteConversionResult(op))
        singles.push_back(op);
    });
    for (Operation *op : singles)
      converter.lower(op, nullptr);
  }
};

} // namespace
