#include "DotKernels.h"

#include "llvm/Support/FormatVariadic.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

#include <random>

using namespace mlir;

namespace tessera::gpu::testing {

const char *dotTypesName(DotTypes types) {
  static const char *names[] = {"f16", "f16acc16", "bf16",      "f32",      "s8",
                                "e4m3", "e5m2",    "e4m3xe5m2", "e4m3acc16"};
  return names[static_cast<int>(types)];
}

DotProblem dotProblem(MLIRContext &context, DotTypes types, int64_t m, int64_t n, int64_t k) {
  Builder b(&context);
  DotProblem problem{m, n, k};
  switch (types) {
  case DotTypes::F16:
    problem.aElement = problem.bElement = b.getF16Type();
    problem.accElement = b.getF32Type();
    break;
  case DotTypes::F16AccF16:
    problem.aElement = problem.bElement = problem.accElement = b.getF16Type();
    break;
  case DotTypes::BF16:
    problem.aElement = problem.bElement = b.getBF16Type();
    problem.accElement = b.getF32Type();
    break;
  case DotTypes::F32:
    problem.aElement = problem.bElement = problem.accElement = b.getF32Type();
    break;
  case DotTypes::S8:
    problem.aElement = problem.bElement = b.getI8Type();
    problem.accElement = b.getI32Type();
    break;
  case DotTypes::F8E4M3:
    problem.aElement = problem.bElement = b.getType<Float8E4M3FNType>();
    problem.accElement = b.getF32Type();
    break;
  case DotTypes::F8E5M2:
    problem.aElement = problem.bElement = b.getType<Float8E5M2Type>();
    problem.accElement = b.getF32Type();
    break;
  case DotTypes::F8E4M3xE5M2:
    problem.aElement = b.getType<Float8E4M3FNType>();
    problem.bElement = b.getType<Float8E5M2Type>();
    problem.accElement = b.getF32Type();
    break;
  case DotTypes::F8E4M3AccF16:
    problem.aElement = problem.bElement = b.getType<Float8E4M3FNType>();
    problem.accElement = b.getF16Type();
    break;
  }
  return problem;
}
namespace {

constexpr unsigned kWarpSize = 32;

Value constantIndex(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

MemRefType sharedBufferType(MLIRContext *context, int64_t elements, Type element) {
  auto workgroup = mlir::gpu::AddressSpaceAttr::get(context, mlir::gpu::AddressSpace::Workgroup);
  return MemRefType::get({elements}, element, MemRefLayoutAttrInterface{}, workgroup);
}

/// The tile coordinates the bases contribute for hardware index `index`:
/// the XOR of the bases of its set bits.
std::pair<Value, Value> contribution(OpBuilder &b, Location loc, ArrayRef<Basis> bases,
                                     Value index) {
  Value row = constantIndex(b, loc, 0), col = constantIndex(b, loc, 0);
  for (auto [bit, basis] : llvm::enumerate(bases)) {
    Value shifted = arith::ShRUIOp::create(b, loc, index, constantIndex(b, loc, bit));
    Value set = arith::AndIOp::create(b, loc, shifted, constantIndex(b, loc, 1));
    row = arith::XOrIOp::create(
        b, loc, row, arith::MulIOp::create(b, loc, set, constantIndex(b, loc, basis[0])));
    col = arith::XOrIOp::create(
        b, loc, col, arith::MulIOp::create(b, loc, set, constantIndex(b, loc, basis[1])));
  }
  return {row, col};
}

/// for i = tid; i < rows * cols; i += threads: shared[sharedIndex(i / cols,
/// i % cols)] = global[i].
void copyToShared(OpBuilder &b, Location loc, const TensorCoreDot &dot, DotOperand operand,
                  Value global, Value shared, int64_t rows, int64_t cols, Value tid,
                  int64_t threads) {
  auto loop = scf::ForOp::create(b, loc, tid, constantIndex(b, loc, rows * cols),
                                 constantIndex(b, loc, threads));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value i = loop.getInductionVar();
  Value row = arith::DivUIOp::create(b, loc, i, constantIndex(b, loc, cols));
  Value col = arith::RemUIOp::create(b, loc, i, constantIndex(b, loc, cols));
  Value element = memref::LoadOp::create(b, loc, global, ValueRange{i});
  Value at = dot.sharedIndex(b, loc, operand, row, col);
  memref::StoreOp::create(b, loc, element, shared, ValueRange{at});
}

} // namespace

void loadDotKernelDialects(MLIRContext &context) {
  context.loadDialect<arith::ArithDialect, func::FuncDialect, mlir::gpu::GPUDialect,
                      LLVM::LLVMDialect, memref::MemRefDialect, NVVM::NVVMDialect,
                      nvgpu::NVGPUDialect, scf::SCFDialect, vector::VectorDialect>();
}

OwningOpRef<ModuleOp> buildDotKernel(MLIRContext &context, const TensorCoreDot &dot,
                                     const DotProblem &problem, unsigned numWarps) {
  loadDotKernelDialects(context);
  Location loc = UnknownLoc::get(&context);
  OpBuilder b(&context);
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  (*module)->setAttr(mlir::gpu::GPUDialect::getContainerModuleAttrName(), b.getUnitAttr());
  b.setInsertionPointToStart(module->getBody());
  auto gpuModule = mlir::gpu::GPUModuleOp::create(b, loc, "mma_dot");
  b.setInsertionPointToStart(gpuModule.getBody());

  auto global = [&](Type element) { return MemRefType::get({ShapedType::kDynamic}, element); };
  auto kernelType = b.getFunctionType(
      {global(problem.aElement), global(problem.bElement), global(problem.accElement)}, {});
  SmallVector<Type> workgroup = {
      sharedBufferType(&context, dot.sharedElements(DotOperand::A), problem.aElement),
      sharedBufferType(&context, dot.sharedElements(DotOperand::B), problem.bElement)};
  auto kernel = mlir::gpu::GPUFuncOp::create(b, loc, "mma_dot", kernelType, workgroup);
  int64_t threads = numWarps * kWarpSize;
  kernel->setAttr(mlir::gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  kernel.setKnownBlockSizeAttr(
      b.getDenseI32ArrayAttr({static_cast<int32_t>(threads), 1, 1}));
  kernel->setAttr("tessera.num_warps", b.getI32IntegerAttr(numWarps));
  kernel->setAttr("tessera.shared_memory_bytes", b.getI32IntegerAttr(0));
  // ldmatrix reads whole 16-byte rows.
  for (unsigned i = 0; i < workgroup.size(); ++i)
    kernel.setWorkgroupAttributionAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                                       b.getI64IntegerAttr(16));

  Block &body = kernel.getBody().front();
  b.setInsertionPointToStart(&body);
  Value a = body.getArgument(0), bGlobal = body.getArgument(1), c = body.getArgument(2);
  Value aShared = kernel.getWorkgroupAttributions()[0];
  Value bShared = kernel.getWorkgroupAttributions()[1];
  Value tid = mlir::gpu::ThreadIdOp::create(b, loc, mlir::gpu::Dimension::x);
  copyToShared(b, loc, dot, DotOperand::A, a, aShared, problem.m, problem.k, tid, threads);
  copyToShared(b, loc, dot, DotOperand::B, bGlobal, bShared, problem.k, problem.n, tid, threads);
  mlir::gpu::BarrierOp::create(b, loc);

  Value laneIndex = arith::RemUIOp::create(b, loc, tid, constantIndex(b, loc, kWarpSize));
  Value warpIndex = arith::DivUIOp::create(b, loc, tid, constantIndex(b, loc, kWarpSize));
  LinearLayout layout = dot.accumulatorLayout();
  auto [laneRow, laneCol] = contribution(b, loc, layout.lanes, laneIndex);
  auto [warpRow, warpCol] = contribution(b, loc, layout.warps, warpIndex);
  SmallVector<Value> offsets, acc;
  for (unsigned reg = 0; reg < layout.numRegisters(); ++reg) {
    Basis at = layout.registerOffset(reg);
    Value row = arith::XOrIOp::create(b, loc, arith::XOrIOp::create(b, loc, laneRow, warpRow),
                                      constantIndex(b, loc, at[0]));
    Value col = arith::XOrIOp::create(b, loc, arith::XOrIOp::create(b, loc, laneCol, warpCol),
                                      constantIndex(b, loc, at[1]));
    Value offset = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, row, constantIndex(b, loc, problem.n)), col);
    offsets.push_back(offset);
    acc.push_back(memref::LoadOp::create(b, loc, c, ValueRange{offset}));
  }
  Value lane = arith::IndexCastUIOp::create(b, loc, b.getI32Type(), laneIndex);
  Value warp = arith::IndexCastUIOp::create(b, loc, b.getI32Type(), warpIndex);
  Value start = constantIndex(b, loc, 0);
  SmallVector<Value> result =
      dot.emit(b, loc, lane, warp, {aShared, start}, {bShared, start}, acc, {});
  for (auto [value, offset] : llvm::zip_equal(result, offsets))
    memref::StoreOp::create(b, loc, value, c, ValueRange{offset});
  mlir::gpu::ReturnOp::create(b, loc);
  return module;
}

func::FuncOp buildWarpFunction(ModuleOp into, const TensorCoreDot &dot,
                               const DotProblem &problem, bool fromZeros, bool registerA) {
  MLIRContext *context = into.getContext();
  Location loc = UnknownLoc::get(context);
  OpBuilder b(context);
  b.setInsertionPointToEnd(into.getBody());
  unsigned registers = dot.accumulatorLayout().numRegisters();
  SmallVector<Type> inputs = {
      b.getI32Type(), b.getI32Type(),
      sharedBufferType(context, dot.sharedElements(DotOperand::A), problem.aElement),
      sharedBufferType(context, dot.sharedElements(DotOperand::B), problem.bElement)};
  int64_t scratchElements = dot.accumulatorScratchElements();
  if (scratchElements)
    inputs.push_back(sharedBufferType(context, scratchElements, problem.accElement));
  SmallVector<Type> accTypes(registers, problem.accElement);
  llvm::append_range(inputs, accTypes);
  unsigned aRegisters = registerA ? dot.registerALayout()->numRegisters() : 0;
  inputs.append(aRegisters, problem.aElement);
  auto function = func::FuncOp::create(b, loc, "warp", b.getFunctionType(inputs, accTypes));
  Block *body = function.addEntryBlock();
  b.setInsertionPointToStart(body);
  Value start = arith::ConstantIndexOp::create(b, loc, 0);
  unsigned firstAcc = scratchElements ? 5 : 4;
  SmallVector<Value> acc(body->getArguments().slice(firstAcc, registers));
  if (fromZeros) {
    Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(problem.accElement));
    acc.assign(acc.size(), zero);
  }
  SmallVector<Value> result =
      registerA
          ? dot.emitWithRegisterA(b, loc, body->getArgument(0), body->getArgument(1),
                                  body->getArguments().drop_front(firstAcc + registers),
                                  {body->getArgument(3), start}, acc)
          : dot.emit(b, loc, body->getArgument(0), body->getArgument(1),
                     {body->getArgument(2), start}, {body->getArgument(3), start}, acc,
                     scratchElements ? body->getArgument(4) : Value());
  func::ReturnOp::create(b, loc, result);
  return function;
}

int64_t foldedSharedIndex(MLIRContext *context, const TensorCoreDot &dot, DotOperand operand,
                          int64_t row, int64_t col) {
  return foldedIndex(
             context,
             [&](OpBuilder &b, Location loc, Value r, Value c) {
               return dot.sharedIndex(b, loc, operand, r, c);
             },
             row, col)
      .value_or(-1);
}

std::string sharedIndexBijectionError(MLIRContext *context, const TensorCoreDot &dot,
                                      DotOperand operand, int64_t rows, int64_t cols) {
  int64_t size = dot.sharedElements(operand);
  if (size != rows * cols)
    return llvm::formatv("the buffer has {0} elements for {1}", size, rows * cols).str();
  std::vector<bool> used(size, false);
  for (int64_t row = 0; row < rows; ++row)
    for (int64_t col = 0; col < cols; ++col) {
      int64_t index = foldedSharedIndex(context, dot, operand, row, col);
      auto at = llvm::formatv("({0}, {1})", row, col).str();
      if (index < 0)
        return at + " did not fold into the buffer";
      if (index >= size)
        return at + " lands at " + std::to_string(index) + ", past the buffer";
      if (used[index])
        return at + " collides at " + std::to_string(index);
      used[index] = true;
    }
  return "";
}

namespace {

template <typename Distribution>
DotOperands drawDotOperands(int64_t m, int64_t n, int64_t k, Distribution value, unsigned seed) {
  std::mt19937 random(seed);
  DotOperands operands{std::vector<double>(m * k), std::vector<double>(k * n),
                       std::vector<double>(m * n)};
  for (std::vector<double> *values : {&operands.a, &operands.b, &operands.acc})
    for (double &x : *values)
      x = value(random);
  return operands;
}

} // namespace

DotOperands randomDotOperands(int64_t m, int64_t n, int64_t k, int range, unsigned seed) {
  return drawDotOperands(m, n, k, std::uniform_int_distribution<int>(-range, range), seed);
}

DotOperands randomF32DotOperands(int64_t m, int64_t n, int64_t k, unsigned seed) {
  return drawDotOperands(m, n, k, std::uniform_real_distribution<float>(-1, 1), seed);
}

double referenceDot(const DotOperands &x, int64_t n, int64_t k, int64_t row, int64_t col,
                    bool accumulate) {
  double sum = accumulate ? x.acc[row * n + col] : 0.0;
  for (int64_t kk = 0; kk < k; ++kk)
    sum += x.a[row * k + kk] * x.b[kk * n + col];
  return sum;
}

} // namespace tessera::gpu::testing
