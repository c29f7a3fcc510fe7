#include "lowering/gpu/tensorcore/Wgmma.h"
#include "lowering/gpu/tensorcore/NvidiaMma.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

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

struct Instruction {
  llvm::StringLiteral suffix;
  int64_t k;
  NVVM::WGMMATypes operandType, accumulatorType;
};

std::optional<Instruction> instructionFor(const DotProblem &problem) {
  Type a = problem.aElement, acc = problem.accElement;
  if (a != problem.bElement)
    return std::nullopt;
  if (a.isF16() && acc.isF32())
    return Instruction{"f16", 16, NVVM::WGMMATypes::f16, NVVM::WGMMATypes::f32};
  if (a.isBF16() && acc.isF32())
    return Instruction{"bf16", 16, NVVM::WGMMATypes::bf16, NVVM::WGMMATypes::f32};
  // As on mma.sync: tf32 only where the user asked for tf32 products.
  if (a.isF32() && acc.isF32() && problem.precision == tile::InputPrecision::TF32)
    return Instruction{"tf32", 8, NVVM::WGMMATypes::tf32, NVVM::WGMMATypes::f32};
  if (a.isInteger(8) && acc.isInteger(32))
    return Instruction{"s8", 32, NVVM::WGMMATypes::s8, NVVM::WGMMATypes::s32};
  return std::nullopt;
}

/// One operand in shared memory: `rows` K-major rows (M for A, N for B) cut
/// into column blocks of `swizzleBytes` bytes.
struct SwizzledOperand {
  int64_t rows = 0, k = 0, elementBytes = 0, swizzleBytes = 0;

  int64_t blockBytes() const { return rows * swizzleBytes; }
  int64_t stepsPerBlock() const { return swizzleBytes / kStepBytes; }

  /// Byte offset of the first element of instruction step `step` in row
  /// `row` before swizzling: where the descriptor of that step starts.
  int64_t stepOffset(int64_t row, int64_t step) const {
    return (step / stepsPerBlock()) * blockBytes() + row * swizzleBytes +
           (step % stepsPerBlock()) * kStepBytes;
  }

  /// Index of element (row, kIndex) in the buffer.
  Value index(OpBuilder &b, Location loc, Value row, Value kIndex) const {
    int64_t blockElements = swizzleBytes / elementBytes;
    Value block = shiftRight(b, loc, kIndex, log2(blockElements));
    Value inBlock = bitAnd(b, loc, kIndex, blockElements - 1);
    Value linear = add(b, loc, add(b, loc, mul(b, loc, block, blockBytes()),
                                   mul(b, loc, row, swizzleBytes)),
                       mul(b, loc, inBlock, elementBytes));
    // The hardware's XOR: chunk bits [4, 4 + log2(S / 16)) with the bits from 7 up.
    Value phase = bitAnd(b, loc, shiftRight(b, loc, linear, kLineBits),
                         (swizzleBytes >> kChunkBits) - 1);
    Value swizzled =
        b.createOrFold<arith::XOrIOp>(loc, linear, shiftLeft(b, loc, phase, kChunkBits));
    return shiftRight(b, loc, swizzled, log2(elementBytes));
  }
};

class WgmmaDot final : public TensorCoreDot {
public:
  WgmmaDot(WgmmaPlan plan, const Instruction &instruction, const DotProblem &problem)
      : plan(std::move(plan)), instruction(instruction), problem(problem) {
    int64_t bytes = problem.aElement.getIntOrFloatBitWidth() / 8;
    a = {problem.m, problem.k, bytes, this->plan.swizzleBytes};
    b = {problem.n, problem.k, bytes, this->plan.swizzleBytes};
  }

  llvm::StringRef name() const override { return plan.name; }

  LinearLayout accumulatorLayout() const override {
    // d_i of one instruction: the m16n8 fragment repeated over its n8 blocks.
    LinearLayout layout = m16n8AccumulatorFragment(problem.m, problem.n);
    appendRepeats(layout.registers, plan.instructionN / 8, {0, 8});
    appendRepeats(layout.registers, plan.tilesN, {0, plan.instructionN});
    appendRepeats(layout.registers, plan.tilesM, {kTileM, 0});
    // Warp w % 4 of a warpgroup owns rows 16 * (w % 4) of each instruction tile.
    layout.warps = {{16, 0}, {32, 0}};
    appendRepeats(layout.warps, plan.warpgroupsN, {0, warpgroupTileN()});
    appendRepeats(layout.warps, plan.warpgroupsM, {warpgroupTileM(), 0});
    return layout;
  }

  int64_t sharedElements(DotOperand operand) const override {
    const SwizzledOperand &stored = operand == DotOperand::A ? a : b;
    return stored.rows * stored.k;
  }

  int64_t sharedAlignment() const override { return kWgmmaSharedAlignment; }
  int64_t contiguousColumns(DotOperand operand) const override {
    // The swizzle permutes 16-byte chunks of K; B is stored transposed.
    return operand == DotOperand::A ? 16 / a.elementBytes : 1;
  }
  int64_t contiguousRows(DotOperand operand) const override {
    return operand == DotOperand::B ? 16 / b.elementBytes : 1;
  }

  Value sharedIndex(OpBuilder &builder, Location loc, DotOperand operand, Value row,
                    Value col) const override {
    // B [K, N] is stored K-major: its row is the operand's column.
    if (operand == DotOperand::A)
      return a.index(builder, loc, row, col);
    return b.index(builder, loc, col, row);
  }

  SmallVector<Value> emit(OpBuilder &builder, Location loc, Value lane, Value warp,
                          const SharedOperand &aShared, const SharedOperand &bShared,
                          ValueRange acc) const override;

private:
  int64_t warpgroupTileM() const { return problem.m / plan.warpgroupsM; }
  int64_t warpgroupTileN() const { return problem.n / plan.warpgroupsN; }
  int64_t registersPerTile() const { return plan.instructionN / 2; }

  /// The descriptor of `shared` starting `rowBytes` bytes in (a runtime
  /// value): start address, the unused leading byte offset, the stride
  /// between 8-row core matrices and the swizzle mode.
  Value descriptor(OpBuilder &builder, Location loc, const SharedOperand &shared,
                   Value rowBytes) const;
  Value packTile(OpBuilder &builder, Location loc, ValueRange registers) const;

  WgmmaPlan plan;
  Instruction instruction;
  DotProblem problem;
  SwizzledOperand a, b;
};

Value WgmmaDot::descriptor(OpBuilder &builder, Location loc, const SharedOperand &shared,
                          Value rowBytes) const {
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, shared.buffer);
  Value firstByte = mul(builder, loc, shared.start, problem.aElement.getIntOrFloatBitWidth() / 8);
  Value start = add(builder, loc, add(builder, loc, base, firstByte), rowBytes);
  Value field = bitAnd(builder, loc, shiftRight(builder, loc, start, kDescriptorUnitBits),
                       kStartAddressMask);
  Type i64 = builder.getI64Type();
  Value address = arith::IndexCastUIOp::create(builder, loc, i64, field);
  uint64_t leadingByteOffset = 1; // ignored by the swizzled K-major layouts
  uint64_t strideByteOffset = (kCoreMatrixRows * plan.swizzleBytes) >> kDescriptorUnitBits;
  uint64_t fixed = leadingByteOffset << 16 | strideByteOffset << 32 |
                   static_cast<uint64_t>(plan.swizzle()) << 62;
  return arith::OrIOp::create(builder, loc, address,
                              constant(builder, loc, i64, static_cast<int64_t>(fixed)));
}

Value WgmmaDot::packTile(OpBuilder &builder, Location loc, ValueRange registers) const {
  SmallVector<Type> fields(registers.size(), problem.accElement);
  auto type = LLVM::LLVMStructType::getLiteral(builder.getContext(), fields);
  Value packed = LLVM::PoisonOp::create(builder, loc, type);
  for (auto [field, value] : llvm::enumerate(registers))
    packed = LLVM::InsertValueOp::create(builder, loc, packed, value, field);
  return packed;
}

// The K loop is unrolled, as for mma.sync: K is a tile dimension, and
// straight-line code issues every wgmma of the dot back to back under one
// commit group, each step's descriptors a constant add away from the first.
SmallVector<Value> WgmmaDot::emit(OpBuilder &builder, Location loc, Value /*lane*/, Value warp,
                                  const SharedOperand &aShared, const SharedOperand &bShared,
                                  ValueRange acc) const {
  // The pass stored the operands with ordinary (generic-proxy) stores; wgmma
  // reads through the async proxy. Each thread orders its own stores before
  // the async proxy, then the barrier orders every thread's fence before the
  // first wgmma.
  NVVM::FenceProxyOp::create(
      builder, loc, NVVM::ProxyKind::async_shared,
      NVVM::SharedSpaceAttr::get(builder.getContext(), NVVM::SharedSpace::shared_cta));
  mlir::gpu::BarrierOp::create(builder, loc);

  Value warpIndex = arith::IndexCastUIOp::create(builder, loc, builder.getIndexType(), warp);
  Value warpgroup = shiftRight(builder, loc, warpIndex, log2(kWarpsPerWarpgroup));
  Value warpgroupRow = shiftRight(builder, loc, warpgroup, log2(plan.warpgroupsN));
  Value warpgroupCol = bitAnd(builder, loc, warpgroup, plan.warpgroupsN - 1);
  Value aFirst = descriptor(builder, loc, aShared,
                            mul(builder, loc, warpgroupRow, warpgroupTileM() * a.swizzleBytes));
  Value bFirst = descriptor(builder, loc, bShared,
                            mul(builder, loc, warpgroupCol, warpgroupTileN() * b.swizzleBytes));

  int64_t tiles = plan.tilesM * plan.tilesN;
  SmallVector<Value> tileValues;
  for (int64_t tile = 0; tile < tiles; ++tile)
    tileValues.push_back(
        packTile(builder, loc, acc.slice(tile * registersPerTile(), registersPerTile())));
  // The accumulator registers were written by ordinary instructions.
  NVVM::WgmmaFenceAlignedOp::create(builder, loc);

  auto shape = NVVM::MMAShapeAttr::get(builder.getContext(), kTileM, plan.instructionN,
                                       instruction.k);
  for (int64_t step = 0; step < problem.k / instruction.k; ++step)
    for (int64_t tm = 0; tm < plan.tilesM; ++tm)
      for (int64_t tn = 0; tn < plan.tilesN; ++tn) {
        Value aDescriptor =
            add(builder, loc, aFirst, a.stepOffset(tm * kTileM, step) >> kDescriptorUnitBits);
        Value bDescriptor = add(builder, loc, bFirst,
                                b.stepOffset(tn * plan.instructionN, step) >> kDescriptorUnitBits);
        Value &tile = tileValues[tn + plan.tilesN * tm];
        // Row-major A and column-major B: both K-major, no transpose.
        tile = NVVM::WgmmaMmaAsyncOp::create(
            builder, loc, tile.getType(), tile, aDescriptor, bDescriptor, shape,
            instruction.operandType, instruction.operandType, instruction.accumulatorType,
            NVVM::WGMMAScaleOut::one, NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one,
            NVVM::MMALayout::row, NVVM::MMALayout::col, /*satfinite=*/nullptr);
      }
  NVVM::WgmmaGroupSyncAlignedOp::create(builder, loc);
  NVVM::WgmmaWaitGroupSyncOp::create(builder, loc, 0);

  SmallVector<Value> result;
  for (Value tile : tileValues)
    for (int64_t field = 0; field < registersPerTile(); ++field)
      result.push_back(LLVM::ExtractValueOp::create(builder, loc, tile, field));
  return result;
}

} // namespace

WgmmaSwizzle WgmmaPlan::swizzle() const {
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

std::optional<WgmmaPlan> planWgmma(const GpuTarget &target, const DotProblem &problem,
                                   unsigned numWarps) {
  if (!target.hasWgmma() || target.warpSize != kWarpSize || numWarps % kWarpsPerWarpgroup != 0)
    return std::nullopt;
  std::optional<Instruction> instruction = instructionFor(problem);
  if (!instruction)
    return std::nullopt;
  if (!allPowersOfTwo({problem.m, problem.n, problem.k, static_cast<int64_t>(numWarps)}))
    return std::nullopt;
  if (problem.m < kTileM || problem.n < kMinTileN || problem.k < instruction->k)
    return std::nullopt;
  int64_t elementBytes = problem.aElement.getIntOrFloatBitWidth() / 8;
  if ((problem.m + problem.n) * problem.k * elementBytes > target.maxSharedMemoryBytes)
    return std::nullopt;

  WgmmaPlan plan;
  int64_t warpgroups = numWarps / kWarpsPerWarpgroup;
  plan.warpgroupsM = std::min<int64_t>(warpgroups, problem.m / kTileM);
  plan.warpgroupsN = warpgroups / plan.warpgroupsM;
  int64_t warpgroupTileN = problem.n / plan.warpgroupsN;
  if (warpgroupTileN < kMinTileN)
    return std::nullopt;
  plan.instructionN = std::min(warpgroupTileN, kMaxTileN);
  plan.instructionK = instruction->k;
  plan.tilesM = problem.m / plan.warpgroupsM / kTileM;
  plan.tilesN = warpgroupTileN / plan.instructionN;
  plan.swizzleBytes = std::min(kMaxSwizzleBytes, problem.k * elementBytes);
  plan.name = ("wgmma.m64n" + llvm::Twine(plan.instructionN) + "k" + llvm::Twine(instruction->k) +
               "." + instruction->suffix)
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
