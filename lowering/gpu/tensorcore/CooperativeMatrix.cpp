#include "lowering/gpu/tensorcore/CooperativeMatrix.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include "llvm/Support/MathExtras.h"

#include <cassert>

using namespace mlir;

namespace tessera::gpu {
namespace {

constexpr int64_t kSize = kCooperativeMatrixSize;

Value indexConstant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

Value multiplyAdd(OpBuilder &b, Location loc, Value x, int64_t factor, Value y) {
  return arith::AddIOp::create(b, loc,
                               arith::MulIOp::create(b, loc, x, indexConstant(b, loc, factor)), y);
}

Value addConstant(OpBuilder &b, Location loc, Value x, int64_t constant) {
  return arith::AddIOp::create(b, loc, x, indexConstant(b, loc, constant));
}

class CooperativeMatrixDot final : public TensorCoreDot {
public:
  CooperativeMatrixDot(const DotProblem &problem, unsigned numWarps, unsigned warpSize)
      : problem(problem), numWarps(numWarps), warpSize(warpSize),
        grid(chooseWarpGrid(problem.m / kSize, problem.n / kSize, numWarps)) {}

  llvm::StringRef name() const override { return "coopmat.16x16x16.f16"; }

  LinearLayout accumulatorLayout() const override {
    // Bit j of the flat row-major element index: lanes take the lowest bits,
    // warps the next, registers the rest.
    auto flatBit = [&](int64_t bit) {
      int64_t step = int64_t(1) << bit;
      return step < problem.n ? Basis{0, step} : Basis{step / problem.n, 0};
    };
    LinearLayout layout;
    layout.shape = {problem.m, problem.n};
    int64_t bit = 0;
    for (unsigned lanes = 1; lanes < warpSize; lanes *= 2)
      layout.lanes.push_back(flatBit(bit++));
    for (unsigned warps = 1; warps < numWarps; warps *= 2)
      layout.warps.push_back(flatBit(bit++));
    for (; (int64_t(1) << bit) < problem.m * problem.n; ++bit)
      layout.registers.push_back(flatBit(bit));
    return layout;
  }

  int64_t sharedElements(DotOperand operand) const override {
    return problem.k * (operand == DotOperand::A ? problem.m : problem.n);
  }
  int64_t contiguousColumns(DotOperand operand) const override {
    return operand == DotOperand::A ? problem.k : problem.n;
  }
  int64_t contiguousRows(DotOperand) const override { return 1; }
  Value sharedIndex(OpBuilder &b, Location loc, DotOperand operand, Value row,
                    Value col) const override {
    // Row-major, as the accumulator's buffer.
    return multiplyAdd(b, loc, row, operand == DotOperand::A ? problem.k : problem.n, col);
  }

  int64_t accumulatorScratchElements() const override { return problem.m * problem.n; }

  SmallVector<Value> emit(OpBuilder &b, Location loc, Value lane, Value warp,
                          const SharedOperand &aShared, const SharedOperand &bShared,
                          ValueRange acc, Value accumulatorScratch) const override;

private:
  int64_t threads() const { return int64_t(numWarps) * warpSize; }
  /// Multiplies the subgroup's pieces over all of K in the scratch buffer.
  void multiplyPieces(OpBuilder &b, Location loc, Value warpIndex, const SharedOperand &aShared,
                      const SharedOperand &bShared, Value scratch) const;

  DotProblem problem;
  unsigned numWarps, warpSize;
  WarpGrid grid;
};

void CooperativeMatrixDot::multiplyPieces(OpBuilder &b, Location loc, Value warpIndex,
                                          const SharedOperand &aShared,
                                          const SharedOperand &bShared, Value scratch) const {
  int64_t blockM = problem.m / grid.warpsM, blockN = problem.n / grid.warpsN;
  int64_t tilesM = blockM / kSize, tilesN = blockN / kSize;
  Value blockRow = arith::MulIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, warpIndex, indexConstant(b, loc, grid.warpsN)),
      indexConstant(b, loc, blockM));
  Value blockCol = arith::MulIOp::create(
      b, loc, arith::RemUIOp::create(b, loc, warpIndex, indexConstant(b, loc, grid.warpsN)),
      indexConstant(b, loc, blockN));
  auto matrixType = [&](Type element, StringRef use) {
    return mlir::gpu::MMAMatrixType::get({kSize, kSize}, element, use);
  };
  auto leadDimension = [&](int64_t extent) { return b.getIndexAttr(extent); };
  // Where a piece starts: an operand's by sharedIndex; the accumulator's
  // buffer is row-major [M, N] too.
  auto operandAt = [&](DotOperand operand, const SharedOperand &shared, Value row, Value col) {
    return arith::AddIOp::create(b, loc, shared.start, sharedIndex(b, loc, operand, row, col));
  };
  auto accumulatorAt = [&](int64_t tm, int64_t tn) {
    return multiplyAdd(b, loc, addConstant(b, loc, blockRow, tm * kSize), problem.n,
                       addConstant(b, loc, blockCol, tn * kSize));
  };
  auto accType = matrixType(problem.accElement, "COp");
  SmallVector<Value> pieces;
  for (int64_t tm = 0; tm < tilesM; ++tm)
    for (int64_t tn = 0; tn < tilesN; ++tn)
      pieces.push_back(mlir::gpu::SubgroupMmaLoadMatrixOp::create(
          b, loc, accType, scratch, ValueRange{accumulatorAt(tm, tn)}, leadDimension(problem.n),
          UnitAttr()));
  for (int64_t k = 0; k < problem.k; k += kSize) {
    Value kIndex = indexConstant(b, loc, k);
    SmallVector<Value> aPieces, bPieces;
    for (int64_t tm = 0; tm < tilesM; ++tm)
      aPieces.push_back(mlir::gpu::SubgroupMmaLoadMatrixOp::create(
          b, loc, matrixType(problem.aElement, "AOp"), aShared.buffer,
          ValueRange{operandAt(DotOperand::A, aShared, addConstant(b, loc, blockRow, tm * kSize),
                               kIndex)},
          leadDimension(problem.k), UnitAttr()));
    for (int64_t tn = 0; tn < tilesN; ++tn)
      bPieces.push_back(mlir::gpu::SubgroupMmaLoadMatrixOp::create(
          b, loc, matrixType(problem.bElement, "BOp"), bShared.buffer,
          ValueRange{operandAt(DotOperand::B, bShared, kIndex,
                               addConstant(b, loc, blockCol, tn * kSize))},
          leadDimension(problem.n), UnitAttr()));
    for (int64_t tm = 0; tm < tilesM; ++tm)
      for (int64_t tn = 0; tn < tilesN; ++tn) {
        Value &piece = pieces[tm * tilesN + tn];
        piece = mlir::gpu::SubgroupMmaComputeOp::create(b, loc, accType, aPieces[tm], bPieces[tn],
                                                        piece, UnitAttr(), UnitAttr());
      }
  }
  for (int64_t tm = 0; tm < tilesM; ++tm)
    for (int64_t tn = 0; tn < tilesN; ++tn)
      mlir::gpu::SubgroupMmaStoreMatrixOp::create(b, loc, pieces[tm * tilesN + tn], scratch,
                                                  ValueRange{accumulatorAt(tm, tn)},
                                                  leadDimension(problem.n), UnitAttr());
}

SmallVector<Value> CooperativeMatrixDot::emit(OpBuilder &b, Location loc, Value lane, Value warp,
                                              const SharedOperand &aShared,
                                              const SharedOperand &bShared, ValueRange acc,
                                              Value accumulatorScratch) const {
  assert(accumulatorScratch && "the cooperative-matrix dot needs its accumulator buffer");
  int64_t registers = problem.m * problem.n / threads();
  assert(static_cast<int64_t>(acc.size()) == registers &&
         "the accumulator must hold accumulatorLayout().numRegisters() scalars");
  Value warpIndex = arith::IndexCastUIOp::create(b, loc, b.getIndexType(), warp);
  Value thread = multiplyAdd(b, loc, warpIndex, warpSize,
                             arith::IndexCastUIOp::create(b, loc, b.getIndexType(), lane));
  auto flatIndex = [&](int64_t reg) {
    return arith::AddIOp::create(b, loc, thread, indexConstant(b, loc, reg * threads()));
  };
  for (int64_t reg = 0; reg < registers; ++reg)
    memref::StoreOp::create(b, loc, acc[reg], accumulatorScratch, ValueRange{flatIndex(reg)});
  mlir::gpu::BarrierOp::create(b, loc);

  if (grid.warpsM * grid.warpsN == numWarps) {
    multiplyPieces(b, loc, warpIndex, aShared, bShared, accumulatorScratch);
  } else {
    Value busy = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, warpIndex,
                                       indexConstant(b, loc, grid.warpsM * grid.warpsN));
    auto guard = scf::IfOp::create(b, loc, busy, /*withElseRegion=*/false);
    OpBuilder inside = guard.getThenBodyBuilder();
    multiplyPieces(inside, loc, warpIndex, aShared, bShared, accumulatorScratch);
  }
  mlir::gpu::BarrierOp::create(b, loc);

  SmallVector<Value> result;
  for (int64_t reg = 0; reg < registers; ++reg)
    result.push_back(
        memref::LoadOp::create(b, loc, accumulatorScratch, ValueRange{flatIndex(reg)}));
  return result;
}

} // namespace

std::unique_ptr<TensorCoreDot> selectCooperativeMatrixDot(const GpuTarget &target,
                                                          const DotProblem &problem,
                                                          unsigned numWarps) {
  if (target.vendor != GpuVendor::Vulkan || !target.cooperativeMatrix)
    return nullptr;
  if (!problem.aElement || !problem.aElement.isF16() || problem.aElement != problem.bElement ||
      !problem.accElement || !problem.accElement.isF32())
    return nullptr;
  auto fits = [](int64_t extent) { return extent % kSize == 0 && llvm::isPowerOf2_64(extent); };
  if (!fits(problem.m) || !fits(problem.n) || !fits(problem.k) || numWarps == 0 ||
      !llvm::isPowerOf2_32(numWarps) || problem.m * problem.n < int64_t(numWarps) * target.warpSize)
    return nullptr;
  int64_t bytes = (problem.m + problem.n) * problem.k * 2 + problem.m * problem.n * 4;
  if (bytes > target.maxSharedMemoryBytes)
    return nullptr;
  return std::make_unique<CooperativeMatrixDot>(problem, numWarps, target.warpSize);
}

} // namespace tessera::gpu
