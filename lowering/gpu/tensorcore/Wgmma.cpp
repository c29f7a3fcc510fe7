#include "lowering/gpu/tensorcore/Wgmma.h"
#include "lowering/gpu/InlinePtx.h"
#include "lowering/gpu/tensorcore/NvidiaMma.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace tessera::gpu {
namespace {

constexpr unsigned kWarpSize = 32;
constexpr int64_t kWarpsPerWarpgroup = 4;
constexpr int64_t kTileM = 64;
constexpr int64_t kMinTileN = 8, kMaxTileN = 256;
/// Bytes of K one instruction reads per row, for every type.
constexpr int64_t kStepBytes = 32;
constexpr int64_t kMaxSwizzleBytes = 128;
/// A descriptor's addresses and offsets drop their low four bits.
constexpr int64_t kDescriptorUnitBits = 4;
/// The start-address field: bits 0-13 of (address >> 4), all of the 256 KiB
/// shared window.
constexpr int64_t kStartAddressMask = (1 << 14) - 1;
/// Registers of one thread's A fragment of an m64nNk8 tf32 instruction.
constexpr int64_t kFragmentRegisters = 4;
/// The swapped dot's instruction row i of a 64-row tile holds the dot's
/// column n whose bit kSwappedRowBits[b] is row bit b (higher bits stay): a
/// bit permutation, so the layout stays linear, that puts every warp-wide
/// fragment load on 32 distinct banks. A fragment register reads rows
/// g + 8 (r % 2) + 16 (w % 4) of lines q + 4 (r / 2) (lane 4g + q); in B's
/// 128-byte swizzled lines n's bits 0-1 pick the word of a chunk and bits 2-4
/// the chunk, XORed with the line's low bits. g's bits 0-1 take the word, its
/// bit 2 chunk bit 2 (q leaves it alone), and the bits a load holds fixed
/// (r % 2, w's low bit) chunk bits 0-1, which q's four lines XOR onto four
/// chunks. Unpermuted, g's bit 2 and q shared chunk bits: two lanes per bank.
constexpr int64_t kSwappedRowBits[] = {0, 1, 4, 2, 3, 5};
int64_t swappedColumn(int64_t row) {
  int64_t column = row & ~int64_t(63);
  for (auto [bit, to] : llvm::enumerate(kSwappedRowBits))
    column |= ((row >> bit) & 1) << to;
  return column;
}
/// Core matrices are eight rows: the stride-byte-offset steps between them.
constexpr int64_t kCoreMatrixRows = 8;
/// The swizzle permutes 16-byte chunks within 128-byte lines.
constexpr int64_t kChunkBits = 4, kLineBits = 7;

int64_t log2(int64_t value) { return llvm::Log2_64(static_cast<uint64_t>(value)); }

bool allPowersOfTwo(std::initializer_list<int64_t> values) {
  return llvm::all_of(values, [](int64_t v) { return v > 0 && llvm::isPowerOf2_64(v); });
}

// The helpers fold when their operands are constants, so sharedIndex of
// constant coordinates is a constant and the per-step descriptor offsets
// cost one add each.
Value constant(OpBuilder &b, Location loc, Type type, int64_t value) {
  return arith::ConstantOp::create(b, loc, type, b.getIntegerAttr(type, value));
}
Value add(OpBuilder &b, Location loc, Value x, int64_t y) {
  return y == 0 ? x : b.createOrFold<arith::AddIOp>(loc, x, constant(b, loc, x.getType(), y));
}
Value add(OpBuilder &b, Location loc, Value x, Value y) {
  return b.createOrFold<arith::AddIOp>(loc, x, y);
}
Value mul(OpBuilder &b, Location loc, Value x, int64_t y) {
  return y == 1 ? x : b.createOrFold<arith::MulIOp>(loc, x, constant(b, loc, x.getType(), y));
}
Value shiftLeft(OpBuilder &b, Location loc, Value x, int64_t bits) {
  return bits == 0 ? x : b.createOrFold<arith::ShLIOp>(loc, x, constant(b, loc, x.getType(), bits));
}
Value shiftRight(OpBuilder &b, Location loc, Value x, int64_t bits) {
  return bits == 0 ? x
                   : b.createOrFold<arith::ShRUIOp>(loc, x, constant(b, loc, x.getType(), bits));
}
Value bitAnd(OpBuilder &b, Location loc, Value x, int64_t mask) {
  return b.createOrFold<arith::AndIOp>(loc, x, constant(b, loc, x.getType(), mask));
}

constexpr llvm::StringLiteral kWaitGroup = "wgmma.wait_group.sync.aligned";

/// How many waits passing registers through the function being built
/// already holds (0 in a block not yet placed in it: a loop's body).
unsigned waitsSoFar(OpBuilder &builder) {
  Operation *func = builder.getInsertionBlock()->getParentOp();
  while (func && !isa<FunctionOpInterface>(func))
    func = func->getParentOp();
  unsigned waits = 0;
  if (func)
    func->walk([&](LLVM::InlineAsmOp op) { waits += op.getAsmString().starts_with(kWaitGroup); });
  return waits;
}

/// `wgmma.wait_group.sync.aligned pending` that passes the accumulator
/// registers `acc` through (inline assembly with each tied to a result), so
/// that whatever reads them afterwards is ordered after the wait. After a
/// bare nvvm.wgmma.wait.group, which does not name the registers, LLVM may
/// schedule an epilogue's conversions of the accumulator above the wait, and
/// ptxas then serializes every wgmma of the kernel (its warning C7514).
/// Each such wait carries, in a PTX comment, how many the kernel held when
/// it was made: LLVM merges identical inline assembly that ends two
/// branches into one after their join, and where one wait retires the
/// wgmmas of two loops (the two versions of
/// tile-gpu-version-signed-remainders), ptxas serializes every wgmma of the
/// kernel too (C7515).
SmallVector<Value> waitForWgmma(OpBuilder &builder, Location loc, unsigned pending,
                                ValueRange acc) {
  if (acc.empty()) {
    NVVM::WgmmaWaitGroupSyncOp::create(builder, loc, pending);
    return {};
  }
  std::string constraints;
  llvm::raw_string_ostream out(constraints);
  for (Value value : acc)
    out << (value.getType().isF32() ? "=f," : "=r,");
  for (size_t tied = 0; tied < acc.size(); ++tied)
    out << (tied ? "," : "") << tied;
  std::string wait = (kWaitGroup + " " + llvm::Twine(pending) + "; // wait " +
                      llvm::Twine(waitsSoFar(builder)) + "\n")
                         .str();
  return inlinePtx(builder, loc, acc.getTypes(), acc, wait, constraints);
}

/// The pass stored the operands with ordinary (generic-proxy) stores; wgmma
/// reads through the async proxy. Each thread orders its own stores before
/// the async proxy, then the barrier orders every thread's fence before the
/// first wgmma (unless the caller did both).
void orderOperandStores(OpBuilder &builder, Location loc, const SharedOperand &aShared,
                        const SharedOperand &bShared) {
  if (aShared.ready && bShared.ready)
    return;
  emitAsyncProxyFence(builder, loc);
  mlir::gpu::BarrierOp::create(builder, loc);
}

/// Whether the dot starts from zeros (attention's S = Q K^T): it then
/// ignores its accumulator in the first step (scale-d = 0) and hands no
/// registers in: zeros would be moved into each tile's registers just before
/// its wgmma, ordinary writes between wgmmas around which ptxas injects waits
/// (C7519).
bool startsFromZeros(ValueRange acc) {
  return llvm::all_of(acc, [](Value value) {
    return matchPattern(value, m_AnyZeroFloat()) || matchPattern(value, m_Zero());
  });
}

/// `whileRunning` after the dot's commit group, then the wait that leaves at
/// most `pending` groups running.
FailureOr<SmallVector<Value>> runWhileIssuedThenWait(OpBuilder &builder, Location loc,
                                                     ValueRange result, unsigned pending,
                                                     const WhileDotRuns &whileRunning) {
  if (whileRunning && failed(whileRunning(builder)))
    return failure();
  return waitForWgmma(builder, loc, pending, result);
}

struct Instruction {
  int64_t k;
  NVVM::WGMMATypes aType, bType, accumulatorType;

  /// The operand types as PTX names them, A's then B's where they differ:
  /// "bf16", "e4m3.e5m2".
  std::string suffix() const {
    std::string suffix = NVVM::stringifyWGMMATypes(aType).str();
    if (bType != aType) {
      suffix += '.';
      suffix += NVVM::stringifyWGMMATypes(bType);
    }
    return suffix;
  }
};

std::optional<Instruction> instructionFor(const DotProblem &problem) {
  Type a = problem.aElement, acc = problem.accElement;
  // fp8 operands may mix e4m3 and e5m2 (the instruction names both).
  std::optional<NVVM::WGMMATypes> aFp8 = float8NvvmType<NVVM::WGMMATypes>(a),
                                  bFp8 = float8NvvmType<NVVM::WGMMATypes>(problem.bElement);
  // f16 accumulators take f16 and fp8 products, as f16x2 registers.
  std::optional<NVVM::WGMMATypes> accumulator;
  if (acc.isF32())
    accumulator = NVVM::WGMMATypes::f32;
  else if (acc.isF16())
    accumulator = NVVM::WGMMATypes::f16;
  if (aFp8 && bFp8 && accumulator)
    return Instruction{32, *aFp8, *bFp8, *accumulator};
  if (a != problem.bElement)
    return std::nullopt;
  auto same = [](int64_t k, NVVM::WGMMATypes type, NVVM::WGMMATypes accumulator) {
    return Instruction{k, type, type, accumulator};
  };
  if (a.isF16() && accumulator)
    return same(16, NVVM::WGMMATypes::f16, *accumulator);
  if (a.isBF16() && acc.isF32())
    return same(16, NVVM::WGMMATypes::bf16, NVVM::WGMMATypes::f32);
  // As on mma.sync: tf32 only where the user asked for tf32 products.
  if (a.isF32() && acc.isF32() && problem.precision == tile::InputPrecision::TF32)
    return same(8, NVVM::WGMMATypes::tf32, NVVM::WGMMATypes::f32);
  if (a.isInteger(8) && acc.isInteger(32))
    return same(32, NVVM::WGMMATypes::s8, NVVM::WGMMATypes::s32);
  return std::nullopt;
}

/// One operand in shared memory: `lines` lines of its contiguous dimension
/// (K for a K-major operand, M or N for an MN-major one), each `along`
/// elements long, cut into panels of `swizzleBytes` bytes. Panel j holds all
/// lines, swizzleBytes each, at byte j * lines * swizzleBytes.
struct SwizzledOperand {
  int64_t lines = 0, along = 0, elementBytes = 0, swizzleBytes = 0;

  int64_t panelBytes() const { return lines * swizzleBytes; }

  /// Byte offset of element (line, alongIndex) before swizzling: where a
  /// descriptor reading the sub-matrix that starts there points.
  int64_t byteOffset(int64_t line, int64_t alongIndex) const {
    int64_t alongBytes = alongIndex * elementBytes;
    return (alongBytes / swizzleBytes) * panelBytes() + line * swizzleBytes +
           alongBytes % swizzleBytes;
  }

  /// The buffer as panels (the last one partial where `along` does not
  /// fill it).
  SwizzledPanels panels(bool linesAreRows) const {
    return {lines, static_cast<int64_t>(llvm::divideCeil(along * elementBytes, swizzleBytes)),
            swizzleBytes, elementBytes, linesAreRows};
  }

  /// Index of element (line, alongIndex) in the buffer.
  Value index(OpBuilder &b, Location loc, Value line, Value alongIndex) const {
    return swizzledPanelIndex(b, loc, panels(/*linesAreRows=*/true), line, alongIndex);
  }

  /// The descriptor's fixed fields (PTX ISA, "Matrix Descriptor Format"):
  /// the stride byte offset steps between groups of 8 lines; the leading one
  /// between panels, which only an MN-major instruction tile spans several of
  /// (a K-major one reads 32 bytes of K, inside one panel, and ignores it).
  /// The leading offset is in the low word, beside the start address; the
  /// stride and the swizzle mode make the high word.
  uint32_t leadingField(bool mnMajor) const {
    uint32_t leading = mnMajor ? panelBytes() >> kDescriptorUnitBits : 1;
    return leading << 16;
  }
  uint32_t highWord() const {
    uint32_t stride = (kCoreMatrixRows * swizzleBytes) >> kDescriptorUnitBits;
    uint32_t mode = static_cast<uint32_t>(swizzleMode(swizzleBytes));
    return stride | mode << 30;
  }
};

/// The matrix descriptors of one operand in shared memory, which differ
/// only in their start address: the low word of the first, in 32 bits, and
/// the constant high word. A step adds to the low word alone, in 32 bits: no
/// carry leaves the start-address field, whose 14 bits hold every address
/// of the 256 KiB shared window.
struct OperandDescriptors {
  OperandDescriptors(OpBuilder &builder, Location loc, Value firstLow, uint32_t high)
      : firstLow(firstLow), high(high), first(withHighWord(builder, loc, firstLow)) {}
  /// The i64 descriptor of the matrix `bytes` after the first.
  Value at(OpBuilder &builder, Location loc, int64_t bytes) const {
    int64_t units = bytes >> kDescriptorUnitBits;
    return units == 0 ? first : withHighWord(builder, loc, add(builder, loc, firstLow, units));
  }

private:
  Value withHighWord(OpBuilder &builder, Location loc, Value low) const {
    Type i64 = builder.getI64Type();
    return builder.createOrFold<arith::OrIOp>(
        loc, builder.createOrFold<arith::ExtUIOp>(loc, i64, low),
        constant(builder, loc, i64, static_cast<int64_t>(uint64_t(high) << 32)));
  }

  Value firstLow;
  uint32_t high;
  Value first;
};

class WgmmaDot final : public TensorCoreDot {
public:
  WgmmaDot(WgmmaPlan plan, const Instruction &instruction, const DotProblem &problem)
      : plan(std::move(plan)), instruction(instruction), problem(problem) {
    int64_t bytes = problem.aElement.getIntOrFloatBitWidth() / 8;
    a = {problem.m, problem.k, bytes, this->plan.swizzleBytes};
    if (this->plan.bNMajor)
      b = {problem.k, problem.n, bytes, this->plan.bSwizzleBytes};
    else
      b = {problem.n, problem.k, bytes, this->plan.bSwizzleBytes};
  }

  llvm::StringRef name() const override { return plan.name; }

  LinearLayout accumulatorLayout() const override {
    // d_i of one instruction: the m16n8 fragment repeated over its n8 blocks.
    LinearLayout layout = m16n8AccumulatorFragment(gridM(), gridN());
    appendRepeats(layout.registers, plan.instructionN / 8, {0, 8});
    appendRepeats(layout.registers, plan.tilesN, {0, plan.instructionN});
    appendRepeats(layout.registers, plan.tilesM, {kTileM, 0});
    // Warp w % 4 of a warpgroup owns rows 16 * (w % 4) of each instruction tile.
    layout.warps = {{16, 0}, {32, 0}};
    appendRepeats(layout.warps, plan.warpgroupsN, {0, warpgroupTileN()});
    appendRepeats(layout.warps, plan.warpgroupsM, {warpgroupTileM(), 0});
    if (!plan.swapped)
      return layout;
    for (llvm::SmallVector<Basis> *bases : {&layout.registers, &layout.lanes, &layout.warps})
      for (Basis &basis : *bases)
        basis[0] = swappedColumn(basis[0]);
    return layout.transposed({1, 0});
  }

  int64_t sharedElements(DotOperand operand) const override {
    const SwizzledOperand &stored = operand == DotOperand::A ? a : b;
    return stored.lines * stored.along;
  }

  int64_t sharedAlignment() const override { return kWgmmaSharedAlignment; }
  // The swizzle permutes 16-byte chunks of each line; a K-major B's lines
  // are B's columns.
  int64_t contiguousColumns(DotOperand operand) const override {
    return operand == DotOperand::A || plan.bNMajor ? 16 / a.elementBytes : 1;
  }
  int64_t contiguousRows(DotOperand operand) const override {
    return operand == DotOperand::B && !plan.bNMajor ? 16 / b.elementBytes : 1;
  }

  std::optional<SwizzledPanels> swizzledPanels(DotOperand operand) const override {
    const SwizzledOperand &stored = operand == DotOperand::A ? a : b;
    if (stored.along * stored.elementBytes % stored.swizzleBytes != 0)
      return std::nullopt;
    return stored.panels(/*linesAreRows=*/operand == DotOperand::A || plan.bNMajor);
  }

  Value sharedIndex(OpBuilder &builder, Location loc, DotOperand operand, Value row,
                    Value col) const override {
    if (operand == DotOperand::A || plan.bNMajor)
      return (operand == DotOperand::A ? a : b).index(builder, loc, row, col);
    return b.index(builder, loc, col, row);
  }

  SmallVector<Value> emit(OpBuilder &builder, Location loc, Value lane, Value warp,
                          const SharedOperand &aShared, const SharedOperand &bShared,
                          ValueRange acc, Value /*accumulatorScratch*/) const override {
    if (plan.swapped)
      return *issueSwapped(builder, loc, lane, warp, aShared, bShared, acc, /*pending=*/0, {});
    return *issue(builder, loc, warp, aShared, bShared, acc, /*pending=*/0, {});
  }
  std::optional<LinearLayout> registerALayout() const override;
  SmallVector<Value> emitWithRegisterA(OpBuilder &builder, Location loc, Value lane, Value warp,
                                       ValueRange a, const SharedOperand &bShared,
                                       ValueRange acc) const override;
  bool isAsynchronous() const override { return true; }
  bool readsThroughAsyncProxy() const override { return true; }
  FailureOr<SmallVector<Value>> emitOverlapped(OpBuilder &builder, Location loc, Value lane,
                                               Value warp, const SharedOperand &aShared,
                                               const SharedOperand &bShared, ValueRange acc,
                                               Value /*accumulatorScratch*/,
                                               const WhileDotRuns &whileRunning) const override {
    if (plan.swapped)
      return issueSwapped(builder, loc, lane, warp, aShared, bShared, acc, /*pending=*/1,
                          whileRunning);
    return issue(builder, loc, warp, aShared, bShared, acc, /*pending=*/1, whileRunning);
  }
  // A running f16 dot's registers travel as f16 scalars between its issue
  // and this wait: unpacked after the issue's wait and packed again here,
  // pairs that LLVM folds away (no instruction reads them in flight, which
  // ptxas would report as C7514).
  SmallVector<Value> emitWaitForAll(OpBuilder &builder, Location loc,
                                    ValueRange acc) const override {
    SmallVector<Value> fields = packFields(builder, loc, acc);
    return unpackFields(builder, loc, waitForWgmma(builder, loc, /*pending=*/0, fields));
  }
  // ptxas serializes every wgmma of a kernel where an ordinary instruction
  // reads an accumulator register between a wgmma and its wait (C7514).
  SmallVector<Value> emitRestart(OpBuilder &builder, Location loc,
                                 ValueRange fresh) const override {
    return opaqueCopies(builder, loc, fresh);
  }

private:
  /// The instruction problem's M and N: the dot's, or its transpose's.
  int64_t gridM() const { return plan.swapped ? problem.n : problem.m; }
  int64_t gridN() const { return plan.swapped ? problem.m : problem.n; }
  int64_t warpgroupTileM() const { return gridM() / plan.warpgroupsM; }
  int64_t warpgroupTileN() const { return gridN() / plan.warpgroupsN; }
  int64_t registersPerTile() const { return plan.instructionN / 2; }
  /// Whether the accumulator registers are f16x2 pairs of neighbouring
  /// columns (the layout's first register basis) rather than scalars.
  bool packedAccumulator() const { return problem.accElement.isF16(); }
  /// One struct field of the instruction: a scalar, or a pair of them.
  Type fieldType() const {
    return packedAccumulator() ? Type(VectorType::get({2}, problem.accElement))
                               : problem.accElement;
  }
  int64_t fieldsPerTile() const {
    return packedAccumulator() ? registersPerTile() / 2 : registersPerTile();
  }
  /// Scalars as struct fields and back.
  SmallVector<Value> packFields(OpBuilder &builder, Location loc, ValueRange registers) const;
  SmallVector<Value> unpackFields(OpBuilder &builder, Location loc, ValueRange fields) const;

  /// Where this thread's warpgroup sits in the grid.
  struct WarpgroupPlace {
    Value warp, row, col;
  };
  WarpgroupPlace warpgroupPlace(OpBuilder &builder, Location loc, Value warp) const;

  /// The descriptors of `stored`, placed at `shared`, the first starting
  /// `offsetBytes` bytes in (a runtime value).
  OperandDescriptors descriptors(OpBuilder &builder, Location loc, const SharedOperand &shared,
                                 const SwizzledOperand &stored, bool mnMajor,
                                 Value offsetBytes) const;
  /// Byte offset of B's sub-matrix at (k, n) before swizzling.
  int64_t bOffset(int64_t k, int64_t n) const {
    return plan.bNMajor ? b.byteOffset(k, n) : b.byteOffset(n, k);
  }
  /// The struct of one instruction tile's accumulator registers.
  LLVM::LLVMStructType tileType(MLIRContext *context) const;
  Value packTile(OpBuilder &builder, Location loc, ValueRange registers) const;
  /// The dot's wgmma instructions, as one commit group, `whileRunning`, and
  /// a wait until at most `pending` groups are unfinished.
  FailureOr<SmallVector<Value>> issue(OpBuilder &builder, Location loc, Value warp,
                                      const SharedOperand &aShared, const SharedOperand &bShared,
                                      ValueRange acc, unsigned pending,
                                      const WhileDotRuns &whileRunning) const;
  /// The same for the swapped dot (Wgmma.h).
  FailureOr<SmallVector<Value>> issueSwapped(OpBuilder &builder, Location loc, Value lane,
                                             Value warp, const SharedOperand &aShared,
                                             const SharedOperand &bShared, ValueRange acc,
                                             unsigned pending,
                                             const WhileDotRuns &whileRunning) const;
  /// K steps of the swapped dot under one commit group (Wgmma.h).
  int64_t swappedStepsPerGroup() const;
  /// The element indices of this thread's fragment registers of step 0,
  /// tile 0 in B's panels.
  SmallVector<Value> swappedFragmentBases(OpBuilder &builder, Location loc, Value lane,
                                          const WarpgroupPlace &place,
                                          const SharedOperand &bShared) const;
  /// The swapped dot's A fragments of this thread for K steps
  /// [first, last), from B's panels.
  SmallVector<Value> loadSwappedFragments(OpBuilder &builder, Location loc, ValueRange bases,
                                          const SharedOperand &bShared, int64_t first,
                                          int64_t last) const;
  /// The accumulator's registers per instruction tile (tn + tilesN * tm),
  /// for inline-PTX wgmmas; undefined where the dot starts `fromZeros`.
  SmallVector<SmallVector<Value>> accumulatorTiles(OpBuilder &builder, Location loc,
                                                   ValueRange acc, bool fromZeros) const;
  /// One wgmma with A in registers.
  SmallVector<Value> registerAWgmma(OpBuilder &builder, Location loc, ValueRange tile,
                                    ValueRange fragments, Value bDescriptor,
                                    bool accumulate) const;

  WgmmaPlan plan;
  Instruction instruction;
  DotProblem problem;
  SwizzledOperand a, b;
};

OperandDescriptors WgmmaDot::descriptors(OpBuilder &builder, Location loc,
                                         const SharedOperand &shared, const SwizzledOperand &stored,
                                         bool mnMajor, Value offsetBytes) const {
  // The start address field is bits 4..17 of the shared address, which
  // 32-bit arithmetic gives: in 64 bits each of a loop's descriptors costs
  // a carry and a funnel shift more.
  Type i32 = builder.getI32Type();
  auto toI32 = [&](Value index) -> Value {
    return builder.createOrFold<arith::IndexCastUIOp>(loc, i32, index);
  };
  Value base = toI32(memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, shared.buffer));
  Value firstByte = mul(builder, loc, toI32(shared.start), stored.elementBytes);
  Value start = add(builder, loc, add(builder, loc, base, firstByte), toI32(offsetBytes));
  Value field =
      bitAnd(builder, loc, shiftRight(builder, loc, start, kDescriptorUnitBits), kStartAddressMask);
  Value low = builder.createOrFold<arith::OrIOp>(
      loc, field, constant(builder, loc, i32, stored.leadingField(mnMajor)));
  return OperandDescriptors(builder, loc, low, stored.highWord());
}

LLVM::LLVMStructType WgmmaDot::tileType(MLIRContext *context) const {
  SmallVector<Type> fields(fieldsPerTile(), fieldType());
  return LLVM::LLVMStructType::getLiteral(context, fields);
}

SmallVector<Value> WgmmaDot::packFields(OpBuilder &builder, Location loc,
                                        ValueRange registers) const {
  if (!packedAccumulator())
    return SmallVector<Value>(registers);
  SmallVector<Value> fields;
  for (size_t i = 0; i < registers.size(); i += 2)
    fields.push_back(vector::FromElementsOp::create(builder, loc, fieldType(),
                                                    registers.slice(i, 2)));
  return fields;
}

SmallVector<Value> WgmmaDot::unpackFields(OpBuilder &builder, Location loc,
                                          ValueRange fields) const {
  if (!packedAccumulator())
    return SmallVector<Value>(fields);
  SmallVector<Value> registers;
  for (Value field : fields)
    for (int64_t half = 0; half < 2; ++half)
      registers.push_back(vector::ExtractOp::create(builder, loc, field, half));
  return registers;
}

Value WgmmaDot::packTile(OpBuilder &builder, Location loc, ValueRange registers) const {
  Value packed = LLVM::PoisonOp::create(builder, loc, tileType(builder.getContext()));
  for (auto [field, value] : llvm::enumerate(packFields(builder, loc, registers)))
    packed = LLVM::InsertValueOp::create(builder, loc, packed, value, field);
  return packed;
}

// The K loop is unrolled, as for mma.sync: K is a tile dimension, and
// straight-line code issues every wgmma of the dot back to back under one
// commit group, each step's descriptors a constant add away from the first.
FailureOr<SmallVector<Value>> WgmmaDot::issue(OpBuilder &builder, Location loc, Value warp,
                                              const SharedOperand &aShared,
                                              const SharedOperand &bShared, ValueRange acc,
                                              unsigned pending,
                                              const WhileDotRuns &whileRunning) const {
  orderOperandStores(builder, loc, aShared, bShared);
  WarpgroupPlace place = warpgroupPlace(builder, loc, warp);
  OperandDescriptors aDescriptors =
      descriptors(builder, loc, aShared, a, /*mnMajor=*/false,
                  mul(builder, loc, place.row, a.byteOffset(warpgroupTileM(), 0)));
  OperandDescriptors bDescriptors =
      descriptors(builder, loc, bShared, b, plan.bNMajor,
                  mul(builder, loc, place.col, bOffset(0, warpgroupTileN())));

  bool fromZeros = startsFromZeros(acc);
  int64_t tiles = plan.tilesM * plan.tilesN;
  auto shape = NVVM::MMAShapeAttr::get(builder.getContext(), kTileM, plan.instructionN,
                                       instruction.k);
  // Steps [first, last) of K into `tileValues` under one commit group, the
  // first from zeros where `zeroFirst`; their registers.
  auto issueSteps = [&](SmallVector<Value> &tileValues, int64_t first, int64_t last,
                        bool zeroFirst) {
    // The accumulator registers were written by ordinary instructions.
    NVVM::WgmmaFenceAlignedOp::create(builder, loc);
    for (int64_t step = first; step < last; ++step)
      for (int64_t tm = 0; tm < plan.tilesM; ++tm)
        for (int64_t tn = 0; tn < plan.tilesN; ++tn) {
          int64_t k = step * instruction.k;
          Value aDescriptor = aDescriptors.at(builder, loc, a.byteOffset(tm * kTileM, k));
          Value bDescriptor = bDescriptors.at(builder, loc, bOffset(k, tn * plan.instructionN));
          Value &tile = tileValues[tn + plan.tilesN * tm];
          // A row-major (K-major); B column-major (K-major) or, transposed,
          // row-major (N-major).
          tile = NVVM::WgmmaMmaAsyncOp::create(
              builder, loc, tile.getType(), tile, aDescriptor, bDescriptor, shape,
              instruction.aType, instruction.bType, instruction.accumulatorType,
              zeroFirst && step == first ? NVVM::WGMMAScaleOut::zero : NVVM::WGMMAScaleOut::one,
              NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one, NVVM::MMALayout::row,
              plan.bNMajor ? NVVM::MMALayout::row : NVVM::MMALayout::col,
              /*satfinite=*/nullptr);
        }
    NVVM::WgmmaGroupSyncAlignedOp::create(builder, loc);
    SmallVector<Value> fields;
    for (Value tile : tileValues)
      for (int64_t field = 0; field < fieldsPerTile(); ++field)
        fields.push_back(LLVM::ExtractValueOp::create(builder, loc, tile, field));
    return fields;
  };
  auto fromPoison = [&] {
    return SmallVector<Value>(
        tiles, LLVM::PoisonOp::create(builder, loc, tileType(builder.getContext())));
  };
  int64_t steps = problem.k / instruction.k;

  if (!plan.promoteEverySteps) {
    SmallVector<Value> tileValues = fromPoison();
    if (!fromZeros)
      for (int64_t tile = 0; tile < tiles; ++tile)
        tileValues[tile] =
            packTile(builder, loc, acc.slice(tile * registersPerTile(), registersPerTile()));
    SmallVector<Value> fields = issueSteps(tileValues, 0, steps, fromZeros);
    // Pairs unpack only after the wait: ordinary instructions that read a
    // running wgmma's registers serialize them all.
    FailureOr<SmallVector<Value>> waited =
        runWhileIssuedThenWait(builder, loc, fields, pending, whileRunning);
    if (failed(waited))
      return failure();
    return unpackFields(builder, loc, *waited);
  }

  // Promoted fp8 sums: each run of steps from zeros, then, once it is done,
  // added to the sum in f32. The wait passes the sum through too, so that
  // its adds cannot be scheduled above the wait while the wgmmas of an
  // earlier dot that computes it may still run.
  SmallVector<Value> sum(fromZeros ? ValueRange() : acc);
  for (int64_t first = 0; first < steps; first += plan.promoteEverySteps) {
    int64_t last = std::min(steps, first + plan.promoteEverySteps);
    SmallVector<Value> fresh = fromPoison();
    SmallVector<Value> waited = issueSteps(fresh, first, last, /*zeroFirst=*/true);
    waited.append(sum.begin(), sum.end());
    if (last == steps) {
      FailureOr<SmallVector<Value>> done =
          runWhileIssuedThenWait(builder, loc, waited, /*pending=*/0, whileRunning);
      if (failed(done))
        return failure();
      waited = std::move(*done);
    } else {
      waited = waitForWgmma(builder, loc, /*pending=*/0, waited);
    }
    size_t count = waited.size() - sum.size();
    SmallVector<Value> partial(waited.begin(), waited.begin() + count);
    if (sum.empty()) {
      sum = std::move(partial);
      continue;
    }
    for (auto [total, part, previous] :
         llvm::zip_equal(sum, partial, ArrayRef(waited).drop_front(count)))
      total = arith::AddFOp::create(builder, loc, previous, part);
  }
  return sum;
}

WgmmaDot::WarpgroupPlace WgmmaDot::warpgroupPlace(OpBuilder &builder, Location loc,
                                                  Value warp) const {
  Value warpIndex = arith::IndexCastUIOp::create(builder, loc, builder.getIndexType(), warp);
  Value warpgroup = shiftRight(builder, loc, warpIndex, log2(kWarpsPerWarpgroup));
  return {warpIndex, shiftRight(builder, loc, warpgroup, log2(plan.warpgroupsN)),
          bitAnd(builder, loc, warpgroup, plan.warpgroupsN - 1)};
}

// Fragment (step, tile, r) sits 8 * step lines and 64 * tile columns of B
// from fragment (0, 0, r): whole 1024-byte swizzle repeats and whole panels
// of the 128-byte swizzle, which leave the XOR's bits alone. So four indices
// per thread, the rest constants apart that ptxas folds into the loads.
SmallVector<Value> WgmmaDot::swappedFragmentBases(OpBuilder &builder, Location loc, Value lane,
                                                  const WarpgroupPlace &place,
                                                  const SharedOperand &bShared) const {
  Value laneIndex = arith::IndexCastUIOp::create(builder, loc, builder.getIndexType(), lane);
  Value group = shiftRight(builder, loc, laneIndex, 2);
  Value inGroup = bitAnd(builder, loc, laneIndex, 3);
  Value warpInGroup = bitAnd(builder, loc, place.warp, kWarpsPerWarpgroup - 1);
  // swappedColumn of the lane's row in its tile, 16 (w % 4) + g.
  Value row = add(builder, loc, mul(builder, loc, warpInGroup, 16), group);
  Value column = mul(builder, loc, place.row, warpgroupTileM());
  for (auto [bit, to] : llvm::enumerate(kSwappedRowBits))
    column = builder.createOrFold<arith::OrIOp>(
        loc, column,
        shiftLeft(builder, loc, bitAnd(builder, loc, shiftRight(builder, loc, row, bit), 1), to));
  SmallVector<Value> bases;
  for (int64_t r = 0; r < kFragmentRegisters; ++r) {
    Value k = add(builder, loc, inGroup, 4 * (r / 2));
    Value n = builder.createOrFold<arith::OrIOp>(
        loc, column, constant(builder, loc, column.getType(), swappedColumn(8 * (r % 2))));
    bases.push_back(add(builder, loc, bShared.start, b.index(builder, loc, k, n)));
  }
  return bases;
}

SmallVector<Value> WgmmaDot::loadSwappedFragments(OpBuilder &builder, Location loc,
                                                  ValueRange bases, const SharedOperand &bShared,
                                                  int64_t first, int64_t last) const {
  SmallVector<Value> fragments;
  for (int64_t step = first; step < last; ++step)
    for (int64_t tm = 0; tm < plan.tilesM; ++tm)
      for (int64_t r = 0; r < kFragmentRegisters; ++r) {
        int64_t offset = b.byteOffset(step * instruction.k, tm * kTileM) / b.elementBytes;
        Value element = memref::LoadOp::create(builder, loc, bShared.buffer,
                                               add(builder, loc, bases[r], offset));
        fragments.push_back(
            arith::BitcastOp::create(builder, loc, builder.getI32Type(), element));
      }
  return fragments;
}

// A thread holds the fragments of a commit group from their loads until the
// wait that covers the group: with the whole K tile's fragments loaded up
// front and the dot left running into the next K iteration, two tiles'
// worth (128 registers at BLOCK_K 64 on a 128-wide N) on top of the
// accumulator. In groups, each group's loads wait only for the group before
// the one running, so two groups' fragments are live, and the loads run
// while the tensor cores work. A group holds at least 64 x 256 x 8 products
// (about 256 cycles of one SM's tf32 rate), so that the running group covers
// the wait, the loads and the fence before the next one.
int64_t WgmmaDot::swappedStepsPerGroup() const {
  constexpr int64_t kGroupColumns = 256;
  int64_t stepColumns = plan.tilesM * plan.tilesN * plan.instructionN;
  return std::min(problem.k / instruction.k, std::max<int64_t>(1, kGroupColumns / stepColumns));
}

SmallVector<SmallVector<Value>> WgmmaDot::accumulatorTiles(OpBuilder &builder, Location loc,
                                                           ValueRange acc, bool fromZeros) const {
  Value nothing;
  if (fromZeros)
    nothing = LLVM::PoisonOp::create(builder, loc, problem.accElement);
  SmallVector<SmallVector<Value>> tiles;
  for (int64_t tile = 0; tile < plan.tilesM * plan.tilesN; ++tile) {
    if (fromZeros)
      tiles.emplace_back(registersPerTile(), nothing);
    else
      tiles.push_back(llvm::to_vector(acc.slice(tile * registersPerTile(), registersPerTile())));
  }
  return tiles;
}

SmallVector<Value> WgmmaDot::registerAWgmma(OpBuilder &builder, Location loc, ValueRange tile,
                                            ValueRange fragments, Value bDescriptor,
                                            bool accumulate) const {
  size_t count = tile.size();
  std::string assembly;
  llvm::raw_string_ostream code(assembly);
  code << "{\n.reg .pred p;\nsetp.ne.b32 p, " << (accumulate ? 1 : 0) << ", 0;\n"
       << "wgmma.mma_async.sync.aligned.m64n" << plan.instructionN << "k" << instruction.k
       << ".f32." << NVVM::stringifyWGMMATypes(instruction.aType) << "."
       << NVVM::stringifyWGMMATypes(instruction.bType) << " {";
  SmallVector<std::string> constraints;
  for (size_t i = 0; i < count; ++i) {
    code << (i ? ", " : "") << "$" << i;
    constraints.push_back("=f");
  }
  for (size_t i = 0; i < count; ++i)
    constraints.push_back(std::to_string(i));
  code << "}, {";
  for (size_t i = 0; i < fragments.size(); ++i) {
    code << (i ? ", " : "") << "$" << 2 * count + i;
    constraints.push_back("r");
  }
  code << "}, $" << 2 * count + fragments.size() << ", p, 1, 1";
  // The 16-bit forms say whether B is transposed (N-major); tf32's has no
  // such operand.
  if (instruction.aType == NVVM::WGMMATypes::f16 || instruction.aType == NVVM::WGMMATypes::bf16)
    code << ", " << (plan.bNMajor ? 1 : 0);
  code << ";\n}";
  constraints.push_back("l");
  SmallVector<Value> operands = llvm::to_vector(tile);
  llvm::append_range(operands, fragments);
  operands.push_back(bDescriptor);
  return inlinePtx(builder, loc, tile.getTypes(), operands, assembly,
                   llvm::join(constraints, ","));
}

// The instruction's B descriptors step through A's K-major rows as the
// unswapped dot's A descriptors do, one warpgroup column tile (the dot's M)
// apart.
FailureOr<SmallVector<Value>> WgmmaDot::issueSwapped(OpBuilder &builder, Location loc,
                                                     Value lane, Value warp,
                                                     const SharedOperand &aShared,
                                                     const SharedOperand &bShared,
                                                     ValueRange acc, unsigned pending,
                                                     const WhileDotRuns &whileRunning) const {
  orderOperandStores(builder, loc, aShared, bShared);
  WarpgroupPlace place = warpgroupPlace(builder, loc, warp);
  OperandDescriptors bDescriptors =
      descriptors(builder, loc, aShared, a, /*mnMajor=*/false,
                  mul(builder, loc, place.col, a.byteOffset(warpgroupTileN(), 0)));
  SmallVector<Value> bases = swappedFragmentBases(builder, loc, lane, place, bShared);

  bool fromZeros = startsFromZeros(acc);
  SmallVector<SmallVector<Value>> tiles = accumulatorTiles(builder, loc, acc, fromZeros);

  int64_t steps = problem.k / instruction.k;
  for (int64_t first = 0; first < steps; first += swappedStepsPerGroup()) {
    int64_t last = std::min(steps, first + swappedStepsPerGroup());
    // The group before the running one is done: its fragment registers are
    // free again.
    if (first > 0)
      NVVM::WgmmaWaitGroupSyncOp::create(builder, loc, 1);
    SmallVector<Value> fragments =
        loadSwappedFragments(builder, loc, bases, bShared, first, last);
    // wgmma.fence must follow every ordinary write of the registers a wgmma
    // reads, the fragments included.
    NVVM::WgmmaFenceAlignedOp::create(builder, loc);
    for (int64_t step = first; step < last; ++step)
      for (int64_t tm = 0; tm < plan.tilesM; ++tm)
        for (int64_t tn = 0; tn < plan.tilesN; ++tn) {
          int64_t k = step * instruction.k;
          Value bDescriptor =
              bDescriptors.at(builder, loc, a.byteOffset(tn * plan.instructionN, k));
          ValueRange stepFragments = ValueRange(fragments).slice(
              ((step - first) * plan.tilesM + tm) * kFragmentRegisters, kFragmentRegisters);
          SmallVector<Value> &tile = tiles[tn + plan.tilesN * tm];
          tile = registerAWgmma(builder, loc, tile, stepFragments, bDescriptor,
                                /*accumulate=*/!(fromZeros && step == 0));
        }
    NVVM::WgmmaGroupSyncAlignedOp::create(builder, loc);
  }

  SmallVector<Value> result;
  for (const SmallVector<Value> &tile : tiles)
    llvm::append_range(result, tile);
  return runWhileIssuedThenWait(builder, loc, result, pending, whileRunning);
}

// m64nNk16's 16-bit A fragment of each warp is mma.sync's: the registers
// of a dot's [M, K] result in the accumulator layout of an instruction as
// wide as K, rows of each warpgroup's warps as this dot's.
std::optional<LinearLayout> WgmmaDot::registerALayout() const {
  bool sixteenBit =
      instruction.aType == NVVM::WGMMATypes::f16 || instruction.aType == NVVM::WGMMATypes::bf16;
  if (!sixteenBit || plan.swapped || plan.promoteEverySteps ||
      instruction.accumulatorType != NVVM::WGMMATypes::f32)
    return std::nullopt;
  LinearLayout layout = sixteenBitRegisterALayout(problem.m, problem.k, plan.tilesM, kTileM);
  layout.warps = {{16, 0}, {32, 0}};
  // The warpgroups along N each need all of their rows' A.
  appendRepeats(layout.warps, plan.warpgroupsN, {0, 0});
  appendRepeats(layout.warps, plan.warpgroupsM, {warpgroupTileM(), 0});
  return layout;
}

SmallVector<Value> WgmmaDot::emitWithRegisterA(OpBuilder &builder, Location loc, Value /*lane*/,
                                               Value warp, ValueRange a,
                                               const SharedOperand &bShared,
                                               ValueRange acc) const {
  int64_t steps = problem.k / instruction.k;
  SmallVector<SmallVector<Value, 4>> fragments;
  for (int64_t step = 0; step < steps; ++step)
    for (int64_t tm = 0; tm < plan.tilesM; ++tm)
      fragments.push_back(
          registerAFragment(builder, loc, a, problem.k, step, tm, /*f16Pairs=*/false));

  SharedOperand inRegisters{Value(), Value(), /*ready=*/true};
  orderOperandStores(builder, loc, inRegisters, bShared);
  WarpgroupPlace place = warpgroupPlace(builder, loc, warp);
  OperandDescriptors bDescriptors =
      descriptors(builder, loc, bShared, b, plan.bNMajor,
                  mul(builder, loc, place.col, bOffset(0, warpgroupTileN())));
  bool fromZeros = startsFromZeros(acc);
  SmallVector<SmallVector<Value>> tiles = accumulatorTiles(builder, loc, acc, fromZeros);
  // wgmma.fence follows every ordinary write of the registers a wgmma reads:
  // the accumulator's and the fragments' packing.
  NVVM::WgmmaFenceAlignedOp::create(builder, loc);
  for (int64_t step = 0; step < steps; ++step)
    for (int64_t tm = 0; tm < plan.tilesM; ++tm)
      for (int64_t tn = 0; tn < plan.tilesN; ++tn) {
        int64_t k = step * instruction.k;
        Value bDescriptor = bDescriptors.at(builder, loc, bOffset(k, tn * plan.instructionN));
        SmallVector<Value> &tile = tiles[tn + plan.tilesN * tm];
        tile = registerAWgmma(builder, loc, tile, fragments[step * plan.tilesM + tm], bDescriptor,
                              /*accumulate=*/!(fromZeros && step == 0));
      }
  NVVM::WgmmaGroupSyncAlignedOp::create(builder, loc);
  SmallVector<Value> result;
  for (const SmallVector<Value> &tile : tiles)
    llvm::append_range(result, tile);
  return waitForWgmma(builder, loc, /*pending=*/0, result);
}

} // namespace

Value swizzledPanelIndex(OpBuilder &b, Location loc, const SwizzledPanels &panels, Value line,
                         Value alongIndex) {
  Value panel = shiftRight(b, loc, alongIndex, log2(panels.panelElements()));
  Value inPanel = bitAnd(b, loc, alongIndex, panels.panelElements() - 1);
  Value linear = add(b, loc, add(b, loc, mul(b, loc, panel, panels.panelBytes()),
                                 mul(b, loc, line, panels.swizzleBytes)),
                     mul(b, loc, inPanel, panels.elementBytes));
  // The hardware's XOR: chunk bits [4, 4 + log2(S / 16)) with the bits from 7 up.
  Value phase = bitAnd(b, loc, shiftRight(b, loc, linear, kLineBits),
                       (panels.swizzleBytes >> kChunkBits) - 1);
  Value swizzled =
      b.createOrFold<arith::XOrIOp>(loc, linear, shiftLeft(b, loc, phase, kChunkBits));
  return shiftRight(b, loc, swizzled, log2(panels.elementBytes));
}

WgmmaSwizzle swizzleMode(int64_t swizzleBytes) {
  switch (swizzleBytes) {
  case 128:
    return WgmmaSwizzle::Bytes128;
  case 64:
    return WgmmaSwizzle::Bytes64;
  case 32:
    return WgmmaSwizzle::Bytes32;
  }
  llvm_unreachable("wgmma swizzle widths are 32, 64 or 128 bytes");
}

namespace {

/// Fills `plan`'s warpgroup grid and instruction N for an instruction
/// problem of `m` x `n` (the dot's, or its transpose's); false where M gives
/// no warpgroup a 64-row tile or N gives one fewer than 8 columns.
bool planWarpgroupGrid(WgmmaPlan &plan, int64_t m, int64_t n, unsigned numWarps) {
  if (m < kTileM)
    return false;
  int64_t warpgroups = numWarps / kWarpsPerWarpgroup;
  plan.warpgroupsM = std::min<int64_t>(warpgroups, m / kTileM);
  plan.warpgroupsN = warpgroups / plan.warpgroupsM;
  int64_t warpgroupTileN = n / plan.warpgroupsN;
  if (warpgroupTileN < kMinTileN)
    return false;
  plan.instructionN = std::min(warpgroupTileN, kMaxTileN);
  plan.tilesM = m / plan.warpgroupsM / kTileM;
  plan.tilesN = warpgroupTileN / plan.instructionN;
  return true;
}

} // namespace

std::optional<WgmmaPlan> planWgmma(const GpuTarget &target, const DotProblem &problem,
                                   unsigned numWarps) {
  if (!target.hasWgmma() || target.warpSize != kWarpSize || numWarps % kWarpsPerWarpgroup != 0)
    return std::nullopt;
  std::optional<Instruction> instruction = instructionFor(problem);
  if (!instruction)
    return std::nullopt;
  if (!allPowersOfTwo({problem.m, problem.n, problem.k, static_cast<int64_t>(numWarps)}))
    return std::nullopt;
  if (problem.k < instruction->k)
    return std::nullopt;
  int64_t elementBytes = problem.aElement.getIntOrFloatBitWidth() / 8;
  if ((problem.m + problem.n) * problem.k * elementBytes > target.maxSharedMemoryBytes)
    return std::nullopt;

  WgmmaPlan plan;
  plan.instructionK = instruction->k;
  plan.swizzleBytes = std::min(kMaxSwizzleBytes, problem.k * elementBytes);
  // A tf32 B with its rows of N contiguous runs swapped (Wgmma.h), N-major
  // in panels as wide as the swizzle: the instruction's M of at least 64
  // makes N at least 256 bytes.
  plan.swapped = instruction->aType == NVVM::WGMMATypes::tf32 && !problem.bTransposed &&
                 !problem.chained &&
                 planWarpgroupGrid(plan, problem.n, problem.m, numWarps);
  if (plan.swapped) {
    plan.bNMajor = true;
    plan.bSwizzleBytes = kMaxSwizzleBytes;
  } else {
    if (!planWarpgroupGrid(plan, problem.m, problem.n, numWarps))
      return std::nullopt;
    // B N-major where its rows of N are what memory holds contiguous (it does
    // not reach the dot through tile.trans) and the instruction can read it
    // so: 16-bit types only, and an instruction tile of at least one 32-byte
    // panel.
    int64_t instructionNBytes = plan.instructionN * elementBytes;
    plan.bNMajor = elementBytes == 2 && !problem.bTransposed && instructionNBytes >= kStepBytes;
    plan.bSwizzleBytes = plan.bNMajor ? std::min(kMaxSwizzleBytes, instructionNBytes)
                                      : plan.swizzleBytes;
  }
  // An f16 sum has no more precise one to be promoted to.
  bool fp8IntoF32 = tile::isFloat8(problem.aElement) && problem.accElement.isF32();
  if (fp8IntoF32 && problem.maxImpreciseAcc > 0 && problem.maxImpreciseAcc < problem.k)
    plan.promoteEverySteps = std::max<int64_t>(1, problem.maxImpreciseAcc / instruction->k);
  std::string promoted =
      plan.promoteEverySteps
          ? (".promote" + llvm::Twine(plan.promoteEverySteps * instruction->k)).str()
          : "";
  plan.name = ("wgmma.m64n" + llvm::Twine(plan.instructionN) + "k" + llvm::Twine(instruction->k) +
               "." + instruction->suffix() + (plan.swapped ? ".swapped" : "") + promoted +
               (instruction->accumulatorType == NVVM::WGMMATypes::f16 ? ".f16acc" : ""))
                  .str();
  return plan;
}

std::unique_ptr<TensorCoreDot> selectWgmmaDot(const GpuTarget &target, const DotProblem &problem,
                                              unsigned numWarps) {
  std::optional<WgmmaPlan> plan = planWgmma(target, problem, numWarps);
  if (!plan)
    return nullptr;
  return std::make_unique<WgmmaDot>(std::move(*plan), *instructionFor(problem), problem);
}

} // namespace tessera::gpu
