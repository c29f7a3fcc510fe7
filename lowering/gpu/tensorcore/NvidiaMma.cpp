#include "lowering/gpu/tensorcore/NvidiaMma.h"
#include "lowering/gpu/InlinePtx.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include "llvm/Support/MathExtras.h"

#include <array>

using namespace mlir;

namespace tessera::gpu {
namespace {

constexpr int64_t kChunkBytes = 16;
/// 32 banks of 4 bytes: the chunks one shared-memory wavefront can serve.
constexpr int64_t kBankLineChunks = 8;
constexpr int64_t kTileM = 16, kTileN = 8;
/// Every mma.sync used here reads two 16-byte chunks of K per row.
constexpr int64_t kChunksPerStep = 2;
constexpr unsigned kWarpSize = 32;

Value constantIndex(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

// The helpers fold when their operands are constants, so that a dot's
// compile-time parts (the k step, the instruction tile) leave no arithmetic.
Value add(OpBuilder &b, Location loc, Value x, Value y) {
  return b.createOrFold<arith::AddIOp>(loc, x, y);
}
Value add(OpBuilder &b, Location loc, Value x, int64_t y) {
  return y == 0 ? x : add(b, loc, x, constantIndex(b, loc, y));
}
Value mul(OpBuilder &b, Location loc, Value x, int64_t y) {
  return y == 1 ? x : b.createOrFold<arith::MulIOp>(loc, x, constantIndex(b, loc, y));
}
Value shiftRight(OpBuilder &b, Location loc, Value x, int64_t bits) {
  return bits == 0 ? x : b.createOrFold<arith::ShRUIOp>(loc, x, constantIndex(b, loc, bits));
}
Value bitAnd(OpBuilder &b, Location loc, Value x, int64_t mask) {
  return b.createOrFold<arith::AndIOp>(loc, x, constantIndex(b, loc, mask));
}
Value bitXor(OpBuilder &b, Location loc, Value x, Value y) {
  return b.createOrFold<arith::XOrIOp>(loc, x, y);
}

int64_t log2(int64_t value) { return llvm::Log2_64(static_cast<uint64_t>(value)); }

bool allPowersOfTwo(std::initializer_list<int64_t> values) {
  return llvm::all_of(values, [](int64_t v) { return v > 0 && llvm::isPowerOf2_64(v); });
}

struct Instruction {
  std::string name;
  int64_t k;
  /// A's type, and B's where it differs (two fp8 types).
  NVVM::MMATypes ptxType, bPtxType;
  /// Emitted as inline PTX, as the NVVM op does not take its types (fp8).
  bool inlinePtx = false;
};

std::optional<Instruction> instructionFor(const GpuTarget &target, const DotProblem &problem) {
  Type a = problem.aElement, acc = problem.accElement;
  // fp8 has s8's fragments (four bytes of K a register) and f32's
  // accumulator, and may mix e4m3 and e5m2.
  std::optional<NVVM::MMATypes> aFp8 = float8NvvmType<NVVM::MMATypes>(a),
                                bFp8 = float8NvvmType<NVVM::MMATypes>(problem.bElement);
  if (aFp8 && bFp8 && acc.isF32()) {
    if (!target.hasFp8())
      return std::nullopt;
    std::string name = ("mma.sync.m16n8k32." + NVVM::stringifyMMATypes(*aFp8)).str();
    if (*bFp8 != *aFp8)
      name += ("." + NVVM::stringifyMMATypes(*bFp8)).str();
    return Instruction{name, 32, *aFp8, *bFp8, /*inlinePtx=*/true};
  }
  if (a != problem.bElement)
    return std::nullopt;
  if (a.isF16() && (acc.isF32() || acc.isF16()))
    return Instruction{"mma.sync.m16n8k16.f16", 16, NVVM::MMATypes::f16, NVVM::MMATypes::f16};
  if (a.isBF16() && acc.isF32())
    return Instruction{"mma.sync.m16n8k16.bf16", 16, NVVM::MMATypes::bf16, NVVM::MMATypes::bf16};
  // tf32 keeps 10 mantissa bits: only the precision the user asked for.
  // tf32x3 is three tf32 products of split operands (MmaSyncDot::emit); ieee
  // goes to the FMA path.
  if (a.isF32() && acc.isF32() && problem.precision == tile::InputPrecision::TF32)
    return Instruction{"mma.sync.m16n8k8.tf32", 8, NVVM::MMATypes::tf32, NVVM::MMATypes::tf32};
  if (a.isF32() && acc.isF32() && problem.precision == tile::InputPrecision::TF32x3)
    return Instruction{"mma.sync.m16n8k8.tf32x3", 8, NVVM::MMATypes::tf32, NVVM::MMATypes::tf32};
  if (a.isInteger(8) && acc.isInteger(32))
    return Instruction{"mma.sync.m16n8k32.s8", 32, NVVM::MMATypes::s8, NVVM::MMATypes::s8};
  return std::nullopt;
}

class MmaSyncDot final : public TensorCoreDot {
public:
  MmaSyncDot(const MmaSyncPlan &plan, const Instruction &instruction, const DotProblem &problem)
      : plan(plan), instruction(instruction), problem(problem) {
    unsigned bytes = problem.aElement.getIntOrFloatBitWidth() / 8;
    a = SwizzledMatrix::get(problem.m, problem.k, bytes);
    b = plan.bKContiguous ? SwizzledMatrix::get(problem.n, problem.k, bytes)
                          : SwizzledMatrix::get(problem.k, problem.n, bytes);
  }

  llvm::StringRef name() const override { return plan.name; }

  LinearLayout accumulatorLayout() const override {
    LinearLayout layout = m16n8AccumulatorFragment(problem.m, problem.n);
    appendRepeats(layout.registers, plan.tilesN, {0, kTileN});
    appendRepeats(layout.registers, plan.tilesM, {kTileM, 0});
    appendRepeats(layout.warps, plan.warpsN, {0, warpTileN()});
    appendRepeats(layout.warps, plan.warpsM, {warpTileM(), 0});
    return layout;
  }

  int64_t sharedElements(DotOperand operand) const override {
    const SwizzledMatrix &matrix = operand == DotOperand::A ? a : b;
    return matrix.rows * matrix.cols;
  }

  int64_t contiguousColumns(DotOperand operand) const override {
    // Swizzling moves whole 16-byte chunks; B stored [N, K] is transposed.
    if (operand == DotOperand::A)
      return a.chunkElements;
    return plan.bKContiguous ? 1 : b.chunkElements;
  }
  int64_t contiguousRows(DotOperand operand) const override {
    return operand == DotOperand::B && plan.bKContiguous ? b.chunkElements : 1;
  }

  Value sharedIndex(OpBuilder &builder, Location loc, DotOperand operand, Value row,
                    Value col) const override {
    if (operand == DotOperand::A)
      return a.index(builder, loc, row, col);
    return plan.bKContiguous ? b.index(builder, loc, col, row) : b.index(builder, loc, row, col);
  }

  SmallVector<Value> emit(OpBuilder &builder, Location loc, Value lane, Value warp,
                          const SharedOperand &aShared, const SharedOperand &bShared,
                          ValueRange acc, Value accumulatorScratch) const override;

  std::optional<LinearLayout> registerALayout() const override;
  SmallVector<Value> emitWithRegisterA(OpBuilder &builder, Location loc, Value lane, Value warp,
                                       ValueRange a, const SharedOperand &bShared,
                                       ValueRange acc) const override;

  // Constants would let the restart fold into a select of every accumulator
  // register on every iteration, not only the epilogue's.
  SmallVector<Value> emitRestart(OpBuilder &builder, Location loc,
                                 ValueRange fresh) const override {
    return opaqueCopies(builder, loc, fresh);
  }

private:
  using AFragment = std::array<Value, 4>;
  using BFragment = std::array<Value, 2>;

  int64_t warpTileM() const { return problem.m / plan.warpsM; }
  int64_t warpTileN() const { return problem.n / plan.warpsN; }

  /// The per-lane values every fragment address is built from.
  struct LaneCoordinates {
    Value rowBaseA, rowOrChunkBaseB;
    /// lane % 16, lane / 16, lane % 8, (lane / 8) % 2, lane / 4, lane % 4.
    Value low16, high, low8, bit3, group, inGroup;
  };
  LaneCoordinates laneCoordinates(OpBuilder &builder, Location loc, Value lane,
                                  Value warp) const;
  /// The matrices whose lanes address row `row + rows` (`rows` a constant)
  /// and chunk `chunk`.
  SmallVector<Value> loadMatrices(OpBuilder &builder, Location loc, const SharedOperand &shared,
                                  const SwizzledMatrix &matrix, Value row, int64_t rows,
                                  Value chunk, int64_t count, bool transpose) const;
  AFragment loadA(OpBuilder &builder, Location loc, const SharedOperand &shared,
                  const LaneCoordinates &lane,
                  int64_t step, int64_t tm) const;
  /// tf32 B stored [K, N], which ldmatrix cannot transpose: fragment
  /// registers b0, b1 of column tn are (k, n) = (threadInGroup (+ 4), groupID)
  /// of the step, one 32-bit shared load each.
  BFragment loadTf32BByWords(OpBuilder &builder, Location loc, const SharedOperand &shared,
                             const LaneCoordinates &lane, int64_t step, int64_t tn) const;
  /// The fragments of instruction columns tn and, when `pair`, tn + 1.
  SmallVector<BFragment, 2> loadB(OpBuilder &builder, Location loc, const SharedOperand &shared,
                                  const LaneCoordinates &lane, int64_t step, int64_t tn,
                                  bool pair) const;
  void multiply(OpBuilder &builder, Location loc, const AFragment &aFragment,
                const BFragment &bFragment, MutableArrayRef<Value> c) const;
  /// The A fragments of one k step, one per instruction row tm.
  using AFragmentsOfStep = llvm::function_ref<SmallVector<AFragment>(int64_t step)>;
  /// Every step's instructions on `acc`, B read from `bShared`.
  SmallVector<Value> multiplySteps(OpBuilder &builder, Location loc, const LaneCoordinates &lane,
                                   const SharedOperand &bShared, ValueRange acc,
                                   AFragmentsOfStep aFragmentsOf) const;

  /// A fragment of f32 words as the sum of two tf32 fragments: `big`, each
  /// word rounded to tf32 (cvt.rna), and `small`, what that rounding left
  /// (exact in f32; the instruction keeps its top 10 mantissa bits).
  template <size_t N> struct SplitFragment {
    std::array<Value, N> big, small;
  };
  template <size_t N>
  SplitFragment<N> splitTf32(OpBuilder &builder, Location loc,
                             const std::array<Value, N> &words) const;

  MmaSyncPlan plan;
  Instruction instruction;
  DotProblem problem;
  SwizzledMatrix a, b;
};

MmaSyncDot::LaneCoordinates MmaSyncDot::laneCoordinates(OpBuilder &builder, Location loc,
                                                        Value lane, Value warp) const {
  Value laneIndex = arith::IndexCastUIOp::create(builder, loc, builder.getIndexType(), lane);
  Value warpIndex = arith::IndexCastUIOp::create(builder, loc, builder.getIndexType(), warp);
  Value warpRow = shiftRight(builder, loc, warpIndex, log2(plan.warpsN));
  Value warpCol = bitAnd(builder, loc, warpIndex, plan.warpsN - 1);
  LaneCoordinates coords;
  coords.rowBaseA = mul(builder, loc, warpRow, warpTileM());
  // B's rows are N when it is stored [N, K]; otherwise its chunks are (one
  // chunk of a 16-bit row is one n8 instruction tile).
  coords.rowOrChunkBaseB = plan.bKContiguous
                               ? mul(builder, loc, warpCol, warpTileN())
                               : mul(builder, loc, warpCol, warpTileN() / b.chunkElements);
  coords.low16 = bitAnd(builder, loc, laneIndex, 15);
  coords.high = shiftRight(builder, loc, laneIndex, 4);
  coords.low8 = bitAnd(builder, loc, laneIndex, 7);
  coords.bit3 = bitAnd(builder, loc, shiftRight(builder, loc, laneIndex, 3), 1);
  coords.group = shiftRight(builder, loc, laneIndex, 2);
  coords.inGroup = bitAnd(builder, loc, laneIndex, 3);
  return coords;
}

// ldmatrix .x`count`: lanes 8j..8j+7 give the row addresses of 8x8 matrix j
// (eight rows of one 16-byte chunk) and every lane receives 32 bits of each
// matrix: row lane / 4, bytes 4 * (lane % 4) .. +3 (with .trans, the same of
// the transposed 16-bit matrix). For A and for a K-contiguous B, that word is
// exactly the lane's fragment register for all of f16, bf16, tf32 and s8: each
// register holds row groupID and the k bytes 4 * threadInGroup .. +3 of one
// 16-byte half of the instruction's K.
SmallVector<Value> MmaSyncDot::loadMatrices(OpBuilder &builder, Location loc,
                                            const SharedOperand &shared,
                                            const SwizzledMatrix &matrix, Value row, int64_t rows,
                                            Value chunk, int64_t count, bool transpose) const {
  // The buffer's own type: fp8 A and B may differ.
  Type element = cast<MemRefType>(shared.buffer.getType()).getElementType();
  int64_t perRegister = 32 / element.getIntOrFloatBitWidth();
  auto type = VectorType::get({count, perRegister}, element);
  // Whole swizzle periods of rows move every chunk by the same number of
  // elements: added last, they become the ldmatrix's immediate offset, and
  // the instruction tiles of a step share one address.
  int64_t periods = rows / matrix.periodRows();
  Value swizzled = matrix.chunkStart(
      builder, loc, add(builder, loc, row, rows - periods * matrix.periodRows()), chunk);
  Value start = add(builder, loc, arith::AddIOp::create(builder, loc, shared.start, swizzled),
                    periods * matrix.periodRows() * matrix.cols);
  Value loaded = nvgpu::LdMatrixOp::create(builder, loc, type, shared.buffer, ValueRange{start},
                                           transpose, static_cast<uint32_t>(count));
  // mma.sync takes f16 pairs as vector<2xf16> and every other type as i32.
  SmallVector<Value> registers;
  for (int64_t j = 0; j < count; ++j) {
    Value pair = vector::ExtractOp::create(builder, loc, loaded, ArrayRef<int64_t>{j});
    if (!element.isF16()) {
      auto word = VectorType::get({1}, builder.getI32Type());
      Value cast = vector::BitCastOp::create(builder, loc, word, pair);
      pair = vector::ExtractOp::create(builder, loc, cast, ArrayRef<int64_t>{0});
    }
    registers.push_back(pair);
  }
  return registers;
}

MmaSyncDot::AFragment MmaSyncDot::loadA(OpBuilder &builder, Location loc,
                                        const SharedOperand &shared,
                                        const LaneCoordinates &lane, int64_t step,
                                        int64_t tm) const {
  // Matrix j covers rows 8 * (j % 2) and chunk j / 2 of the step: registers
  // a0a1 (rows 0-7, low k), a2a3 (rows 8-15), a4a5, a6a7 (high k) in order.
  Value row = add(builder, loc, lane.rowBaseA, lane.low16);
  Value chunk = add(builder, loc, lane.high, step * kChunksPerStep);
  SmallVector<Value> regs =
      loadMatrices(builder, loc, shared, a, row, tm * kTileM, chunk, 4, /*transpose=*/false);
  return {regs[0], regs[1], regs[2], regs[3]};
}

SmallVector<MmaSyncDot::BFragment, 2> MmaSyncDot::loadB(OpBuilder &builder, Location loc,
                                                        const SharedOperand &shared,
                                                        const LaneCoordinates &lane,
                                                        int64_t step, int64_t tn,
                                                        bool pair) const {
  int64_t count = pair ? 4 : 2;
  if (!plan.bKContiguous && problem.bElement.getIntOrFloatBitWidth() == 32) {
    SmallVector<BFragment, 2> fragments{loadTf32BByWords(builder, loc, shared, lane, step, tn)};
    if (pair)
      fragments.push_back(loadTf32BByWords(builder, loc, shared, lane, step, tn + 1));
    return fragments;
  }
  Value row, chunk;
  int64_t rows;
  if (plan.bKContiguous) {
    // Stored [N, K]: matrix j is n rows 8 * (j / 2) and chunk j % 2 of the step.
    row = add(builder, loc, lane.rowOrChunkBaseB, lane.low8);
    rows = tn * kTileN;
    if (pair)
      row = add(builder, loc, row, mul(builder, loc, lane.high, kTileN));
    chunk = add(builder, loc, lane.bit3, step * kChunksPerStep);
  } else {
    // Stored [K, N] and transposed by ldmatrix: matrix j is k rows 8 * (j % 2)
    // of the step and n chunk (instruction column) j / 2.
    row = lane.low16;
    rows = step * instruction.k;
    chunk = add(builder, loc, lane.rowOrChunkBaseB, tn);
    if (pair)
      chunk = add(builder, loc, chunk, lane.high);
  }
  SmallVector<Value> regs = loadMatrices(builder, loc, shared, b, row, rows, chunk, count,
                                         /*transpose=*/!plan.bKContiguous);
  SmallVector<BFragment, 2> fragments;
  for (int64_t i = 0; i < count; i += 2)
    fragments.push_back({regs[i], regs[i + 1]});
  return fragments;
}

MmaSyncDot::BFragment MmaSyncDot::loadTf32BByWords(OpBuilder &builder, Location loc,
                                                   const SharedOperand &shared,
                                                   const LaneCoordinates &lane, int64_t step,
                                                   int64_t tn) const {
  Value col = add(builder, loc, mul(builder, loc, lane.rowOrChunkBaseB, b.chunkElements),
                  add(builder, loc, lane.group, tn * kTileN));
  BFragment fragment;
  for (int64_t half = 0; half < 2; ++half) {
    Value row = add(builder, loc, lane.inGroup, step * instruction.k + half * 4);
    Value index =
        arith::AddIOp::create(builder, loc, shared.start, b.index(builder, loc, row, col));
    Value word = memref::LoadOp::create(builder, loc, shared.buffer, ValueRange{index});
    fragment[half] = arith::BitcastOp::create(builder, loc, builder.getI32Type(), word);
  }
  return fragment;
}

void MmaSyncDot::multiply(OpBuilder &builder, Location loc, const AFragment &aFragment,
                          const BFragment &bFragment, MutableArrayRef<Value> c) const {
  if (instruction.inlinePtx) {
    // D = A B + C of four f32 registers, C tied to D; a pure computation,
    // which LLVM may schedule like one.
    std::string assembly = ("mma.sync.aligned.m16n8k32.row.col.f32." +
                            NVVM::stringifyMMATypes(instruction.ptxType) + "." +
                            NVVM::stringifyMMATypes(instruction.bPtxType) +
                            ".f32 {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, "
                            "{$10, $11, $12, $13};")
                               .str();
    SmallVector<Value> operands(aFragment.begin(), aFragment.end());
    operands.append(bFragment.begin(), bFragment.end());
    operands.append(c.begin(), c.end());
    SmallVector<Value> d =
        inlineAssembly(builder, loc, SmallVector<Type>(4, builder.getF32Type()), operands,
                       assembly, "=f,=f,=f,=f,r,r,r,r,r,r,0,1,2,3", /*sideEffects=*/false);
    llvm::copy(d, c.begin());
    return;
  }
  Type accType = problem.accElement;
  // An f16 accumulator travels as two f16x2 registers, every other as four scalars.
  bool packed = accType.isF16();
  auto pairType = VectorType::get({2}, accType);
  SmallVector<Value> cOperands;
  SmallVector<Type> fields;
  if (packed) {
    for (int i = 0; i < 2; ++i)
      cOperands.push_back(vector::FromElementsOp::create(builder, loc, pairType,
                                                         ValueRange{c[2 * i], c[2 * i + 1]}));
    fields.assign(2, pairType);
  } else {
    cOperands.assign(c.begin(), c.end());
    fields.assign(4, accType);
  }
  auto resultType = LLVM::LLVMStructType::getLiteral(builder.getContext(), fields);
  std::optional<NVVM::MMAIntOverflow> overflow;
  // Integer sums wrap, as i32 addition does on every other backend.
  if (instruction.ptxType == NVVM::MMATypes::s8)
    overflow = NVVM::MMAIntOverflow::wrapped;
  Value d = NVVM::MmaOp::create(
      builder, loc, resultType, aFragment, bFragment, cOperands, {kTileM, kTileN, instruction.k},
      /*b1Op=*/std::nullopt, overflow,
      std::array<NVVM::MMATypes, 2>{instruction.ptxType, instruction.bPtxType},
      std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row, NVVM::MMALayout::col});
  for (int64_t field = 0; field < static_cast<int64_t>(fields.size()); ++field) {
    Value value = LLVM::ExtractValueOp::create(builder, loc, d, field);
    if (!packed) {
      c[field] = value;
      continue;
    }
    for (int64_t half = 0; half < 2; ++half)
      c[2 * field + half] = vector::ExtractOp::create(builder, loc, value, ArrayRef<int64_t>{half});
  }
}

template <size_t N>
MmaSyncDot::SplitFragment<N> MmaSyncDot::splitTf32(OpBuilder &builder, Location loc,
                                                   const std::array<Value, N> &words) const {
  SplitFragment<N> split;
  for (size_t i = 0; i < N; ++i) {
    Value value = arith::BitcastOp::create(builder, loc, builder.getF32Type(), words[i]);
    split.big[i] = NVVM::ConvertFloatToTF32Op::create(builder, loc, builder.getI32Type(), value,
                                                      NVVM::FPRoundingMode::RNA);
    Value big = arith::BitcastOp::create(builder, loc, builder.getF32Type(), split.big[i]);
    Value rest = arith::SubFOp::create(builder, loc, value, big);
    split.small[i] = arith::BitcastOp::create(builder, loc, builder.getI32Type(), rest);
  }
  return split;
}

// The K loop is unrolled: a dot's K is a tile dimension (a few steps), and
// straight-line code lets ptxas overlap the ldmatrix of step s + 1 with the
// mma.sync of step s and fold every step's address into an immediate offset;
// a loop would also have to carry all accumulator registers as iter_args.
SmallVector<Value> MmaSyncDot::multiplySteps(OpBuilder &builder, Location loc,
                                             const LaneCoordinates &lane,
                                             const SharedOperand &bShared, ValueRange acc,
                                             AFragmentsOfStep aFragmentsOf) const {
  SmallVector<Value> registers(acc.begin(), acc.end());
  for (int64_t step = 0; step < problem.k / instruction.k; ++step) {
    SmallVector<AFragment> aFragments = aFragmentsOf(step);
    SmallVector<BFragment> bFragments;
    bool pairs = plan.tilesN >= 2;
    for (int64_t tn = 0; tn < plan.tilesN; tn += pairs ? 2 : 1)
      llvm::append_range(bFragments, loadB(builder, loc, bShared, lane, step, tn, pairs));
    // tf32x3: a * b = big(a) * big(b) + big(a) * small(b) + small(a) * big(b),
    // less small(a) * small(b) (below f32's precision); the small products are
    // summed first, as they are the smallest.
    bool x3 = problem.precision == tile::InputPrecision::TF32x3;
    SmallVector<SplitFragment<4>> aSplit;
    SmallVector<SplitFragment<2>> bSplit;
    if (x3) {
      aSplit = llvm::map_to_vector(
          aFragments, [&](const AFragment &f) { return splitTf32(builder, loc, f); });
      bSplit = llvm::map_to_vector(
          bFragments, [&](const BFragment &f) { return splitTf32(builder, loc, f); });
    }
    for (int64_t tm = 0; tm < plan.tilesM; ++tm)
      for (int64_t tn = 0; tn < plan.tilesN; ++tn) {
        auto c = MutableArrayRef<Value>(registers).slice(4 * (tn + plan.tilesN * tm), 4);
        if (!x3) {
          multiply(builder, loc, aFragments[tm], bFragments[tn], c);
          continue;
        }
        multiply(builder, loc, aSplit[tm].big, bSplit[tn].small, c);
        multiply(builder, loc, aSplit[tm].small, bSplit[tn].big, c);
        multiply(builder, loc, aSplit[tm].big, bSplit[tn].big, c);
      }
  }
  return registers;
}

SmallVector<Value> MmaSyncDot::emit(OpBuilder &builder, Location loc, Value lane, Value warp,
                                    const SharedOperand &aShared,
                                    const SharedOperand &bShared, ValueRange acc,
                                    Value /*accumulatorScratch*/) const {
  LaneCoordinates coords = laneCoordinates(builder, loc, lane, warp);
  return multiplySteps(builder, loc, coords, bShared, acc, [&](int64_t step) {
    SmallVector<AFragment> fragments;
    for (int64_t tm = 0; tm < plan.tilesM; ++tm)
      fragments.push_back(loadA(builder, loc, aShared, coords, step, tm));
    return fragments;
  });
}

// A in the accumulator layout of an [M, K] dot with this dot's warps along
// M, as FlashAttention-2 keeps P in registers.
std::optional<LinearLayout> MmaSyncDot::registerALayout() const {
  if (instruction.ptxType != NVVM::MMATypes::f16 && instruction.ptxType != NVVM::MMATypes::bf16)
    return std::nullopt;
  LinearLayout layout = sixteenBitRegisterALayout(problem.m, problem.k, plan.tilesM, kTileM);
  // The warps along N each need all of their rows' A.
  appendRepeats(layout.warps, plan.warpsN, {0, 0});
  appendRepeats(layout.warps, plan.warpsM, {warpTileM(), 0});
  return layout;
}

SmallVector<Value> MmaSyncDot::emitWithRegisterA(OpBuilder &builder, Location loc, Value lane,
                                                 Value warp, ValueRange a,
                                                 const SharedOperand &bShared,
                                                 ValueRange acc) const {
  // mma.sync takes the pairs as loadMatrices returns them.
  LaneCoordinates coords = laneCoordinates(builder, loc, lane, warp);
  return multiplySteps(builder, loc, coords, bShared, acc, [&](int64_t step) {
    SmallVector<AFragment> fragments;
    for (int64_t tm = 0; tm < plan.tilesM; ++tm) {
      SmallVector<Value, 4> words =
          registerAFragment(builder, loc, a, problem.k, step, tm, /*f16Pairs=*/true);
      fragments.push_back({words[0], words[1], words[2], words[3]});
    }
    return fragments;
  });
}

} // namespace

LinearLayout m16n8AccumulatorFragment(int64_t m, int64_t n) {
  LinearLayout layout;
  layout.shape = {m, n};
  layout.registers = {{0, 1}, {8, 0}};
  layout.lanes = {{0, 2}, {0, 4}, {1, 0}, {2, 0}, {4, 0}};
  return layout;
}

void appendRepeats(llvm::SmallVector<Basis> &bases, int64_t count, const Basis &step) {
  for (int64_t times = 1; times < count; times *= 2)
    bases.push_back(llvm::map_to_vector<4>(step, [&](int64_t v) { return v * times; }));
}

LinearLayout sixteenBitRegisterALayout(int64_t m, int64_t k, int64_t tilesM, int64_t tileRows) {
  LinearLayout layout = m16n8AccumulatorFragment(m, k);
  appendRepeats(layout.registers, k / kTileN, {0, kTileN});
  appendRepeats(layout.registers, tilesM, {tileRows, 0});
  return layout;
}

SmallVector<Value, 4> registerAFragment(OpBuilder &builder, Location loc, ValueRange a, int64_t k,
                                        int64_t step, int64_t tm, bool f16Pairs) {
  Type element = a.front().getType();
  auto pairType = VectorType::get({2}, element);
  auto wordType = VectorType::get({1}, builder.getI32Type());
  int64_t first = tm * k / 2 + step * 8;
  SmallVector<Value, 4> words;
  for (int64_t r = 0; r < 4; ++r) {
    Value pair = vector::FromElementsOp::create(builder, loc, pairType, a.slice(first + 2 * r, 2));
    if (!(f16Pairs && element.isF16()))
      pair = vector::ExtractOp::create(
          builder, loc, vector::BitCastOp::create(builder, loc, wordType, pair), int64_t(0));
    words.push_back(pair);
  }
  return words;
}

SwizzledMatrix SwizzledMatrix::get(int64_t rows, int64_t cols, unsigned elementBytes) {
  SwizzledMatrix matrix;
  matrix.rows = rows;
  matrix.cols = cols;
  matrix.chunkElements = kChunkBytes / elementBytes;
  int64_t chunksPerRow = std::max<int64_t>(1, cols / matrix.chunkElements);
  matrix.rowsPerPhase = std::max<int64_t>(1, kBankLineChunks / chunksPerRow);
  matrix.phases = std::min(chunksPerRow, kBankLineChunks);
  return matrix;
}

Value SwizzledMatrix::chunkStart(OpBuilder &builder, Location loc, Value row, Value chunk) const {
  Value phase = bitAnd(builder, loc, shiftRight(builder, loc, row, log2(rowsPerPhase)), phases - 1);
  // The XOR reaches only the chunk's low bits; written on them alone, a
  // chunk a whole period further on folds into a constant offset.
  Value period = bitAnd(builder, loc, chunk, ~(phases - 1));
  Value inPeriod = bitAnd(builder, loc, chunk, phases - 1);
  Value swizzled = add(builder, loc, period, bitXor(builder, loc, inPeriod, phase));
  return add(builder, loc, mul(builder, loc, row, cols), mul(builder, loc, swizzled, chunkElements));
}

Value SwizzledMatrix::index(OpBuilder &builder, Location loc, Value row, Value col) const {
  Value chunk = shiftRight(builder, loc, col, log2(chunkElements));
  Value inChunk = bitAnd(builder, loc, col, chunkElements - 1);
  return add(builder, loc, chunkStart(builder, loc, row, chunk), inChunk);
}

std::optional<MmaSyncPlan> planMmaSync(const GpuTarget &target, const DotProblem &problem,
                                       unsigned numWarps) {
  if (!target.hasMmaSync() || target.warpSize != kWarpSize)
    return std::nullopt;
  std::optional<Instruction> instruction = instructionFor(target, problem);
  if (!instruction)
    return std::nullopt;
  if (!allPowersOfTwo({problem.m, problem.n, problem.k, static_cast<int64_t>(numWarps)}))
    return std::nullopt;
  if (problem.m < kTileM || problem.n < kTileN || problem.k < instruction->k)
    return std::nullopt;
  int64_t elementBytes = problem.aElement.getIntOrFloatBitWidth() / 8;
  if ((problem.m * problem.k + problem.k * problem.n) * elementBytes > target.maxSharedMemoryBytes)
    return std::nullopt;
  MmaSyncPlan plan{instruction->name, instruction->k};
  // A warp's wm x wn block reads (wm + wn) / 16 ldmatrix.x4 per k16 step for
  // its wm * wn / 128 instructions: a square-ish grid reads the least shared
  // memory (at 128x256 on 8 warps, half what warps all along M read, which
  // left shared memory rather than the tensor cores the bound).
  WarpGrid grid =
      chooseWarpGrid(problem.m / kTileM, problem.n / kTileN, numWarps, problem.chained);
  if (grid.warpsM * grid.warpsN != numWarps)
    return std::nullopt;
  plan.warpsM = grid.warpsM;
  plan.warpsN = grid.warpsN;
  plan.tilesM = problem.m / plan.warpsM / kTileM;
  plan.tilesN = problem.n / plan.warpsN / kTileN;
  // B is stored as memory holds it, so that its copies are 16-byte runs:
  // [N, K] where it arrives transposed, else [K, N], read with ldmatrix.trans
  // (16-bit) or by 32-bit words (tf32). ldmatrix cannot gather bytes along K
  // from [K, N]: s8 and fp8 are always stored [N, K].
  plan.bKContiguous = elementBytes == 1 || problem.bTransposed;
  return plan;
}

std::unique_ptr<TensorCoreDot> selectMmaSyncDot(const GpuTarget &target,
                                                const DotProblem &problem, unsigned numWarps) {
  std::optional<MmaSyncPlan> plan = planMmaSync(target, problem, numWarps);
  if (!plan)
    return nullptr;
  return std::make_unique<MmaSyncDot>(*plan, *instructionFor(target, problem), problem);
}

} // namespace tessera::gpu
