#include "lowering/gpu/tensorcore/AmdMatrixCores.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinTypes.h"

#include "llvm/Support/MathExtras.h"

#include <cassert>
#include <numeric>

using namespace mlir;

namespace tessera::gpu {
namespace {

using Family = AmdMatrixFamily;

// The instructions per operand type, the one with the larger tile first (it
// reuses each operand fragment over more outputs). Tile shapes and operand
// fragments are those of AMD's CDNA3 ISA guide (section "Matrix Arithmetic
// Instructions") and the RDNA3 ISA guide (section "Wave Matrix Multiply
// Accumulate"); k = kPerLane * kGroups where kGroups = 64 / m on wave64 MFMA
// and 1 on wave32 WMMA.
constexpr AmdMatrixInstruction kMfmaF16[] = {
    {Family::Mfma, "mfma.32x32x8.f16", 32, 32, 8, 4},
    {Family::Mfma, "mfma.16x16x16.f16", 16, 16, 16, 4}};
// On gfx90a these are the `_1k` variants (4 bf16 per lane); the older 2-per-lane
// ones are not used.
constexpr AmdMatrixInstruction kMfmaBF16[] = {
    {Family::Mfma, "mfma.32x32x8.bf16", 32, 32, 8, 4},
    {Family::Mfma, "mfma.16x16x16.bf16", 16, 16, 16, 4}};
constexpr AmdMatrixInstruction kMfmaI8Gfx90a[] = {
    {Family::Mfma, "mfma.32x32x8.i8", 32, 32, 8, 4},
    {Family::Mfma, "mfma.16x16x16.i8", 16, 16, 16, 4}};
// gfx942 dropped the 4-byte i8 forms for 8-byte ones of twice the depth.
constexpr AmdMatrixInstruction kMfmaI8Gfx942[] = {
    {Family::Mfma, "mfma.32x32x16.i8", 32, 32, 16, 8},
    {Family::Mfma, "mfma.16x16x32.i8", 16, 16, 32, 8}};
// Full fp32 products: they meet every `input_precision` (tf32, tf32x3, ieee).
constexpr AmdMatrixInstruction kMfmaF32[] = {
    {Family::Mfma, "mfma.32x32x2.f32", 32, 32, 2, 1},
    {Family::Mfma, "mfma.16x16x4.f32", 16, 16, 4, 1}};
constexpr AmdMatrixInstruction kWmmaF16[] = {
    {Family::Wmma, "wmma.16x16x16.f16", 16, 16, 16, 16}};
constexpr AmdMatrixInstruction kWmmaBF16[] = {
    {Family::Wmma, "wmma.16x16x16.bf16", 16, 16, 16, 16}};
constexpr AmdMatrixInstruction kWmmaI8[] = {{Family::Wmma, "wmma.16x16x16.i8", 16, 16, 16, 16}};

// LDS is 32 banks of 4 bytes; a wave's access is served 128 bytes at a time.
constexpr int64_t kBankRowBytes = 128;
// The widest LDS access (ds_read_b128); wider fragments are several of them.
constexpr int64_t kMaxAccessBytes = 16;

enum class OperandKind { F16, BF16, I8, F32 };

std::optional<OperandKind> operandKind(const DotProblem &problem) {
  Type a = problem.aElement, acc = problem.accElement;
  if (!a || a != problem.bElement || !acc)
    return std::nullopt;
  if (a.isF16() && acc.isF32())
    return OperandKind::F16;
  if (a.isBF16() && acc.isF32())
    return OperandKind::BF16;
  if (a.isInteger(8) && acc.isInteger(32))
    return OperandKind::I8;
  if (a.isF32() && acc.isF32())
    return OperandKind::F32;
  return std::nullopt;
}

llvm::ArrayRef<AmdMatrixInstruction> instructionsFor(const GpuTarget &target, OperandKind kind) {
  if (target.vendor != GpuVendor::Amd)
    return {};
  if (target.hasMfma() && target.warpSize == 64) {
    switch (kind) {
    case OperandKind::F16:
      return kMfmaF16;
    case OperandKind::BF16:
      return kMfmaBF16;
    case OperandKind::I8:
      return target.chip == "gfx942" ? llvm::ArrayRef(kMfmaI8Gfx942)
                                     : llvm::ArrayRef(kMfmaI8Gfx90a);
    case OperandKind::F32:
      return kMfmaF32;
    }
  }
  if (target.hasWmma() && target.warpSize == 32) {
    switch (kind) {
    case OperandKind::F16:
      return kWmmaF16;
    case OperandKind::BF16:
      return kWmmaBF16;
    case OperandKind::I8:
      return kWmmaI8;
    case OperandKind::F32:
      return {};
    }
  }
  return {};
}

bool divides(const AmdMatrixInstruction &in, const DotProblem &problem) {
  return problem.m % in.m == 0 && problem.n % in.n == 0 && problem.k % in.k == 0;
}

// An XOR swizzle of `swizzleUnit`-wide units within each K-long line. The
// lanes served in one LDS cycle (128 bytes of fragments, in lane order) read
// lines l, l+1, ... and, when the instruction tile has fewer lines than
// that, `unitsPerCycle` consecutive access units of each line: those form
// one swizzle unit, so they stay together. Lines shorter than a bank row
// share it, `perPhase` of them with the same phase; the phases then spread
// the lines of a cycle over distinct banks.
void chooseSwizzle(AmdDotPlan &plan, int64_t k, int64_t elementBytes) {
  const AmdMatrixInstruction &in = plan.instruction;
  int64_t accessBytes = std::min(in.kPerLane * elementBytes, kMaxAccessBytes);
  int64_t lanesPerCycle = kBankRowBytes / accessBytes;
  int64_t unitsPerCycle = std::max<int64_t>(1, lanesPerCycle / in.m);
  int64_t unitBytes = accessBytes * unitsPerCycle;
  plan.swizzleUnit = unitBytes / elementBytes;
  plan.perPhase = std::max<int64_t>(1, kBankRowBytes / (k * elementBytes));
  plan.maxPhase = std::min(k / plan.swizzleUnit, kBankRowBytes / unitBytes);
}

Value indexConstant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

Value addConstant(OpBuilder &b, Location loc, Value value, int64_t constant) {
  if (constant == 0)
    return value;
  return arith::AddIOp::create(b, loc, value, indexConstant(b, loc, constant));
}

class AmdMatrixDot final : public TensorCoreDot {
public:
  AmdMatrixDot(const AmdDotPlan &plan, const DotProblem &problem, unsigned numWarps,
               unsigned warpSize)
      : plan(plan), problem(problem), numWarps(numWarps), warpSize(warpSize) {}

  llvm::StringRef name() const override { return plan.instruction.name; }

  LinearLayout accumulatorLayout() const override;

  int64_t sharedElements(DotOperand operand) const override {
    return (operand == DotOperand::A ? problem.m : problem.n) * problem.k;
  }

  int64_t contiguousColumns(DotOperand operand) const override {
    // The swizzle permutes units of k within a line; B's lines are columns.
    return operand == DotOperand::A ? plan.swizzleUnit : 1;
  }
  int64_t contiguousRows(DotOperand operand) const override {
    return operand == DotOperand::B ? plan.swizzleUnit : 1;
  }

  Value sharedIndex(OpBuilder &b, Location loc, DotOperand operand, Value row,
                    Value col) const override {
    // A is stored by rows (lines of k), B by columns.
    return operand == DotOperand::A ? elementOffset(b, loc, row, col)
                                    : elementOffset(b, loc, col, row);
  }

  SmallVector<Value> emit(OpBuilder &b, Location loc, Value lane, Value warp,
                          const SharedOperand &aShared, const SharedOperand &bShared,
                          ValueRange acc, Value accumulatorScratch) const override;

private:
  int64_t instructionRegisters() const {
    return plan.instruction.m * plan.instruction.n / warpSize;
  }
  int64_t waveM() const { return problem.m / plan.warpsM; }
  int64_t waveN() const { return problem.n / plan.warpsN; }
  int64_t tilesM() const { return waveM() / plan.instruction.m; }
  int64_t tilesN() const { return waveN() / plan.instruction.n; }

  /// Where element k of line `line` (a row of A, a column of B) lives: the
  /// one formula of the LDS layout.
  Value elementOffset(OpBuilder &b, Location loc, Value line, Value k) const {
    Value unitSize = indexConstant(b, loc, plan.swizzleUnit);
    Value phase = arith::RemUIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, line, indexConstant(b, loc, plan.perPhase)),
        indexConstant(b, loc, plan.maxPhase));
    Value unit = arith::XOrIOp::create(b, loc, arith::DivUIOp::create(b, loc, k, unitSize), phase);
    Value lineStart = arith::MulIOp::create(b, loc, line, indexConstant(b, loc, problem.k));
    Value unitStart = arith::MulIOp::create(b, loc, unit, unitSize);
    return arith::AddIOp::create(b, loc, arith::AddIOp::create(b, loc, lineStart, unitStart),
                                 arith::RemUIOp::create(b, loc, k, unitSize));
  }

  /// The operand fragment of one lane for one instruction: `kPerLane`
  /// elements of `line` from `firstK` on, one vector load per 16 bytes.
  Value loadFragment(OpBuilder &b, Location loc, const SharedOperand &shared, Value line,
                     Value firstK) const;
  Value multiply(OpBuilder &b, Location loc, Value a, Value bFragment, Value acc) const;

  AmdDotPlan plan;
  DotProblem problem;
  unsigned numWarps, warpSize;
};

LinearLayout AmdMatrixDot::accumulatorLayout() const {
  const AmdMatrixInstruction &in = plan.instruction;
  auto rows = [](int64_t step) { return Basis{step, 0}; };
  auto cols = [](int64_t step) { return Basis{0, step}; };
  LinearLayout layout;
  layout.shape = {problem.m, problem.n};
  // One instruction tile: lanes run along the columns in both families.
  for (int64_t step = 1; step < in.n; step *= 2)
    layout.lanes.push_back(cols(step));
  if (in.family == Family::Mfma) {
    // The remaining lane bits pick a block of 4 rows; registers walk the 4
    // rows of their block, then jump over the blocks the lanes cover.
    int64_t laneBlocks = warpSize / in.n;
    for (int64_t step = 4; step < 4 * laneBlocks; step *= 2)
      layout.lanes.push_back(rows(step));
    layout.registers = {rows(1), rows(2)};
    for (int64_t step = 4 * laneBlocks; step < in.m; step *= 2)
      layout.registers.push_back(rows(step));
  } else {
    // RDNA3: the upper half-wave holds the odd rows, register i rows 2i, 2i+1.
    layout.lanes.push_back(rows(1));
    for (int64_t step = 2; step < in.m; step *= 2)
      layout.registers.push_back(rows(step));
  }
  // Instruction tiles of a wave (column-tile index fastest), then the waves.
  for (int64_t step = in.n; step < waveN(); step *= 2)
    layout.registers.push_back(cols(step));
  for (int64_t step = in.m; step < waveM(); step *= 2)
    layout.registers.push_back(rows(step));
  for (int64_t step = waveN(); step < problem.n; step *= 2)
    layout.warps.push_back(cols(step));
  for (int64_t step = waveM(); step < problem.m; step *= 2)
    layout.warps.push_back(rows(step));
  for (int64_t waves = plan.warpsM * plan.warpsN; waves < numWarps; waves *= 2)
    layout.warps.push_back(Basis{0, 0});
  return layout;
}

Value AmdMatrixDot::loadFragment(OpBuilder &b, Location loc, const SharedOperand &shared,
                                 Value line, Value firstK) const {
  const AmdMatrixInstruction &in = plan.instruction;
  auto indexOf = [&](Value k) {
    return arith::AddIOp::create(b, loc, shared.start, elementOffset(b, loc, line, k));
  };
  if (in.kPerLane == 1)
    return memref::LoadOp::create(b, loc, shared.buffer, ValueRange{indexOf(firstK)});
  Type element = cast<MemRefType>(shared.buffer.getType()).getElementType();
  int64_t elementBytes = element.getIntOrFloatBitWidth() / 8;
  int64_t accessElements = std::min(in.kPerLane, kMaxAccessBytes / elementBytes);
  auto accessType = VectorType::get({accessElements}, element);
  auto loadFrom = [&](int64_t offset) -> Value {
    Value index = indexOf(addConstant(b, loc, firstK, offset));
    return vector::LoadOp::create(b, loc, accessType, shared.buffer, ValueRange{index},
                                  /*nontemporal=*/false,
                                  llvm::MaybeAlign(accessElements * elementBytes));
  };
  // Only WMMA fragments (32 bytes) take two loads: concatenate them in k order.
  Value fragment = loadFrom(0);
  for (int64_t offset = accessElements; offset < in.kPerLane; offset += accessElements) {
    SmallVector<int64_t> order(offset + accessElements);
    std::iota(order.begin(), order.end(), 0);
    fragment = vector::ShuffleOp::create(b, loc, fragment, loadFrom(offset),
                                         b.getDenseI64ArrayAttr(order));
  }
  return fragment;
}

Value AmdMatrixDot::multiply(OpBuilder &b, Location loc, Value a, Value bFragment,
                             Value acc) const {
  const AmdMatrixInstruction &in = plan.instruction;
  auto m = static_cast<uint32_t>(in.m), n = static_cast<uint32_t>(in.n),
       k = static_cast<uint32_t>(in.k);
  if (in.family == Family::Mfma)
    return amdgpu::MFMAOp::create(b, loc, acc.getType(), m, n, k, /*blocks=*/1u, a, bFragment,
                                  acc);
  return amdgpu::WMMAOp::create(b, loc, acc.getType(), m, n, k, a, bFragment, acc);
}

SmallVector<Value> AmdMatrixDot::emit(OpBuilder &b, Location loc, Value lane, Value warp,
                                      const SharedOperand &aShared,
                                      const SharedOperand &bShared, ValueRange acc,
                                      Value /*accumulatorScratch*/) const {
  const AmdMatrixInstruction &in = plan.instruction;
  int64_t registers = instructionRegisters();
  assert(static_cast<int64_t>(acc.size()) == registers * tilesM() * tilesN() &&
         "the accumulator must hold accumulatorLayout().numRegisters() scalars");

  Value laneIndex = arith::IndexCastUIOp::create(b, loc, b.getIndexType(), lane);
  Value warpIndex = arith::IndexCastUIOp::create(b, loc, b.getIndexType(), warp);
  Value waveCol = arith::RemUIOp::create(b, loc, warpIndex, indexConstant(b, loc, plan.warpsN));
  Value waveRow = arith::RemUIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, warpIndex, indexConstant(b, loc, plan.warpsN)),
      indexConstant(b, loc, plan.warpsM));
  // The lane's line inside an instruction tile (row of A, column of B) and
  // its first k there.
  Value laneLine = arith::RemUIOp::create(b, loc, laneIndex, indexConstant(b, loc, in.m));
  int64_t kGroups = in.k / in.kPerLane;
  Value laneKGroup = arith::RemUIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, laneIndex, indexConstant(b, loc, in.m)),
      indexConstant(b, loc, kGroups));
  Value laneK = arith::MulIOp::create(b, loc, laneKGroup, indexConstant(b, loc, in.kPerLane));
  Value aLine = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, waveRow, indexConstant(b, loc, waveM())), laneLine);
  Value bLine = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, waveCol, indexConstant(b, loc, waveN())), laneLine);

  auto accType = VectorType::get({registers}, problem.accElement);
  SmallVector<Value> accumulators;
  for (int64_t tile = 0; tile < tilesM() * tilesN(); ++tile)
    accumulators.push_back(vector::FromElementsOp::create(
        b, loc, accType, acc.slice(tile * registers, registers)));

  auto body = [&](OpBuilder &nested, Location nestedLoc, Value stepK, ValueRange carried) {
    Value firstK = arith::AddIOp::create(nested, nestedLoc, stepK, laneK);
    SmallVector<Value> aFragments, bFragments;
    for (int64_t tm = 0; tm < tilesM(); ++tm)
      aFragments.push_back(loadFragment(nested, nestedLoc, aShared,
                                        addConstant(nested, nestedLoc, aLine, tm * in.m), firstK));
    for (int64_t tn = 0; tn < tilesN(); ++tn)
      bFragments.push_back(loadFragment(nested, nestedLoc, bShared,
                                        addConstant(nested, nestedLoc, bLine, tn * in.n), firstK));
    SmallVector<Value> updated;
    for (int64_t tm = 0; tm < tilesM(); ++tm)
      for (int64_t tn = 0; tn < tilesN(); ++tn)
        updated.push_back(multiply(nested, nestedLoc, aFragments[tm], bFragments[tn],
                                   carried[tm * tilesN() + tn]));
    scf::YieldOp::create(nested, nestedLoc, updated);
  };
  auto loop = scf::ForOp::create(b, loc, indexConstant(b, loc, 0), indexConstant(b, loc, problem.k),
                                 indexConstant(b, loc, in.k), accumulators, body);

  SmallVector<Value> result;
  for (Value tile : loop.getResults())
    for (int64_t r = 0; r < registers; ++r)
      result.push_back(vector::ExtractOp::create(b, loc, tile, ArrayRef<int64_t>{r}));
  return result;
}

} // namespace

std::optional<AmdDotPlan> planAmdMatrixDot(const GpuTarget &target, const DotProblem &problem,
                                           unsigned numWarps) {
  std::optional<OperandKind> kind = operandKind(problem);
  if (!kind || numWarps == 0 || !llvm::isPowerOf2_32(numWarps) ||
      !llvm::isPowerOf2_64(problem.m) || !llvm::isPowerOf2_64(problem.n) ||
      !llvm::isPowerOf2_64(problem.k))
    return std::nullopt;
  llvm::ArrayRef<AmdMatrixInstruction> candidates = instructionsFor(target, *kind);
  // The largest instruction that still gives every wave a tile; failing
  // that, the largest that fits at all (the extra waves compute copies).
  const AmdMatrixInstruction *chosen = nullptr;
  for (const AmdMatrixInstruction &in : candidates)
    if (divides(in, problem) && (problem.m / in.m) * (problem.n / in.n) >= numWarps) {
      chosen = &in;
      break;
    }
  for (const AmdMatrixInstruction &in : candidates)
    if (!chosen && divides(in, problem))
      chosen = &in;
  if (!chosen)
    return std::nullopt;

  int64_t elementBytes = problem.aElement.getIntOrFloatBitWidth() / 8;
  if ((problem.m + problem.n) * problem.k * elementBytes > target.maxSharedMemoryBytes)
    return std::nullopt;
  AmdDotPlan plan;
  plan.instruction = *chosen;
  WarpGrid grid = chooseWarpGrid(problem.m / chosen->m, problem.n / chosen->n, numWarps,
                                 problem.chained);
  plan.warpsM = grid.warpsM;
  plan.warpsN = grid.warpsN;
  chooseSwizzle(plan, problem.k, elementBytes);
  return plan;
}

std::unique_ptr<TensorCoreDot> selectAmdMatrixDot(const GpuTarget &target,
                                                  const DotProblem &problem, unsigned numWarps) {
  std::optional<AmdDotPlan> plan = planAmdMatrixDot(target, problem, numWarps);
  if (!plan)
    return nullptr;
  return std::make_unique<AmdMatrixDot>(*plan, problem, numWarps, target.warpSize);
}

} // namespace tessera::gpu
