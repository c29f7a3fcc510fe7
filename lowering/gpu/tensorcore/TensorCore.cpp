#include "lowering/gpu/tensorcore/TensorCore.h"

#include "lowering/gpu/tensorcore/AmdMatrixCores.h"
#include "lowering/gpu/tensorcore/CooperativeMatrix.h"
#include "lowering/gpu/tensorcore/NvidiaMma.h"
#include "lowering/gpu/tensorcore/Wgmma.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Matchers.h"

namespace tessera::gpu {

TensorCoreDot::~TensorCoreDot() = default;

WarpGrid chooseWarpGrid(int64_t tilesM, int64_t tilesN, unsigned numWarps,
                        bool rowsWithinWarps) {
  WarpGrid grid;
  if (rowsWithinWarps) {
    grid.warpsM = std::min<int64_t>(numWarps, tilesM);
    grid.warpsN = std::min<int64_t>(numWarps / grid.warpsM, tilesN);
    return grid;
  }
  while (grid.warpsM * grid.warpsN < numWarps) {
    int64_t perWarpM = tilesM / grid.warpsM, perWarpN = tilesN / grid.warpsN;
    if (perWarpM >= perWarpN && perWarpM > 1)
      grid.warpsM *= 2;
    else if (perWarpN > 1)
      grid.warpsN *= 2;
    else
      break;
  }
  return grid;
}

namespace {

/// The constant `value` computes, folding its defining ops bottom-up.
std::optional<mlir::Attribute> foldToConstant(mlir::Value value) {
  mlir::Attribute constant;
  if (mlir::matchPattern(value, mlir::m_Constant(&constant)))
    return constant;
  mlir::Operation *op = value.getDefiningOp();
  if (!op)
    return std::nullopt;
  llvm::SmallVector<mlir::Attribute> operands;
  for (mlir::Value operand : op->getOperands()) {
    std::optional<mlir::Attribute> folded = foldToConstant(operand);
    if (!folded)
      return std::nullopt;
    operands.push_back(*folded);
  }
  llvm::SmallVector<mlir::OpFoldResult> results;
  if (mlir::failed(op->fold(operands, results)) || results.size() != op->getNumResults())
    return std::nullopt;
  mlir::OpFoldResult result = results[mlir::cast<mlir::OpResult>(value).getResultNumber()];
  if (auto attribute = mlir::dyn_cast<mlir::Attribute>(result))
    return attribute;
  return foldToConstant(mlir::cast<mlir::Value>(result));
}

} // namespace

std::optional<int64_t> foldedIndex(mlir::MLIRContext *context, IndexOf indexOf, int64_t row,
                                   int64_t col) {
  mlir::Block scratch;
  mlir::OpBuilder builder(context);
  builder.setInsertionPointToStart(&scratch);
  mlir::Location loc = mlir::UnknownLoc::get(context);
  auto at = [&](int64_t value) -> mlir::Value {
    return mlir::arith::ConstantIndexOp::create(builder, loc, value);
  };
  std::optional<mlir::Attribute> folded = foldToConstant(indexOf(builder, loc, at(row), at(col)));
  auto integer = folded ? mlir::dyn_cast<mlir::IntegerAttr>(*folded) : mlir::IntegerAttr();
  if (!integer)
    return std::nullopt;
  return integer.getInt();
}

void emitAsyncProxyFence(mlir::OpBuilder &builder, mlir::Location loc) {
  mlir::NVVM::FenceProxyOp::create(
      builder, loc, mlir::NVVM::ProxyKind::async_shared,
      mlir::NVVM::SharedSpaceAttr::get(builder.getContext(), mlir::NVVM::SharedSpace::shared_cta));
}

namespace {

bool isChained(tile::DotOp op) {
  auto inBlock = [&](mlir::Operation *other) { return other->getBlock() == op->getBlock(); };
  llvm::SetVector<mlir::Operation *> slice;
  mlir::ForwardSliceOptions forward;
  forward.filter = inBlock;
  mlir::getForwardSlice(op.getOperation(), &slice, forward);
  mlir::BackwardSliceOptions backward;
  backward.filter = inBlock;
  backward.omitBlockArguments = true;
  (void)mlir::getBackwardSlice(op.getOperation(), &slice, backward);
  return llvm::any_of(slice, [&](mlir::Operation *other) {
    return other != op.getOperation() && mlir::isa<tile::DotOp>(other);
  });
}

} // namespace

DotProblem dotProblemOf(tile::DotOp op) {
  auto aType = cast<mlir::RankedTensorType>(op.getA().getType());
  auto bType = cast<mlir::RankedTensorType>(op.getB().getType());
  DotProblem problem;
  problem.m = aType.getShape()[aType.getRank() - 2];
  problem.k = aType.getShape().back();
  problem.n = bType.getShape().back();
  problem.aElement = aType.getElementType();
  problem.bElement = bType.getElementType();
  problem.accElement = op.getType().getElementType();
  problem.precision = op.getInputPrecision();
  problem.bTransposed = static_cast<bool>(op.getB().getDefiningOp<tile::TransOp>());
  problem.chained = isChained(op);
  problem.maxImpreciseAcc = op.getMaxNumImpreciseAcc();
  return problem;
}

std::unique_ptr<TensorCoreDot> selectTensorCoreDot(const GpuTarget &target,
                                                   const DotProblem &problem, unsigned numWarps) {
  switch (target.vendor) {
  case GpuVendor::Nvidia:
    // wgmma where the chip (sm_90a), whole warpgroups and the shape allow it.
    if (std::unique_ptr<TensorCoreDot> wgmma = selectWgmmaDot(target, problem, numWarps))
      return wgmma;
    return selectMmaSyncDot(target, problem, numWarps);
  case GpuVendor::Amd:
    return selectAmdMatrixDot(target, problem, numWarps);
  case GpuVendor::Vulkan:
    return selectCooperativeMatrixDot(target, problem, numWarps);
  }
  llvm_unreachable("unknown GPU vendor");
}

} // namespace tessera::gpu
