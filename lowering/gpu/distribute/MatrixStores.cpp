#include "lowering/gpu/distribute/MatrixStores.h"
#include "lowering/gpu/distribute/SharedMemory.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace tessera::gpu {

namespace {

/// stmatrix's matrices are 8x8: 8 rows of 8 16-bit columns (16 bytes).
constexpr unsigned kMatrixSide = 8;
constexpr unsigned kSharedAddressSpace = 3;

/// `basis` moves exactly `columns` along the last dimension and nowhere else.
bool movesColumns(const Basis &basis, int64_t columns) {
  for (auto [dim, step] : llvm::enumerate(basis))
    if (step != (dim + 1 == basis.size() ? columns : 0))
      return false;
  return true;
}

/// Lane bits 2 to 4 pick the row of a matrix: no column move, and the eight
/// rows they reach are distinct.
bool lanesPickRows(llvm::ArrayRef<Basis> rowLanes) {
  for (const Basis &lane : rowLanes)
    if (lane.back() != 0)
      return false;
  for (unsigned subset = 1; subset < kMatrixSide; ++subset) {
    Basis reached(rowLanes.front().size(), 0);
    xorBasesOf(reached, rowLanes, subset);
    if (isZero(reached))
      return false;
  }
  return true;
}

/// The 16-bit pair (low, high) as one vector<2x...>. Where both halves are
/// truncations of the same wider type, the pair is one vector truncation,
/// which NVPTX emits as one cvt.rn.bf16x2.f32 (or f16x2): packing two
/// truncated scalars costs two conversions and a move instead.
Value packPair(OpBuilder &builder, Location loc, VectorType pairType, Value low, Value high) {
  auto lowTrunc = low.getDefiningOp<arith::TruncFOp>();
  auto highTrunc = high.getDefiningOp<arith::TruncFOp>();
  if (lowTrunc && highTrunc && lowTrunc.getIn().getType() == highTrunc.getIn().getType() &&
      lowTrunc->getAttrDictionary() == highTrunc->getAttrDictionary()) {
    auto wideType = VectorType::get({2}, lowTrunc.getIn().getType());
    Value wide = vector::FromElementsOp::create(builder, loc, wideType,
                                                ValueRange{lowTrunc.getIn(), highTrunc.getIn()});
    Operation *truncation = builder.clone(*lowTrunc);
    truncation->setOperand(0, wide);
    truncation->getResult(0).setType(pairType);
    return truncation->getResult(0);
  }
  return vector::FromElementsOp::create(builder, loc, pairType, ValueRange{low, high});
}

} // namespace

std::optional<MatrixStores> planMatrixStores(const LinearLayout &layout) {
  if (layout.rank() < 2 || layout.lanes.size() != 5 || layout.registers.empty())
    return std::nullopt;
  if (!movesColumns(layout.registers[0], 1) || !movesColumns(layout.lanes[0], 2) ||
      !movesColumns(layout.lanes[1], 4) || !lanesPickRows(ArrayRef(layout.lanes).drop_front(2)))
    return std::nullopt;
  // A column move of a multiple of 8 XORed into the run's first column adds.
  auto movesWholeMatrices = [](const Basis &basis) { return basis.back() % kMatrixSide == 0; };
  if (!llvm::all_of(ArrayRef(layout.registers).drop_front(), movesWholeMatrices) ||
      !llvm::all_of(layout.warps, movesWholeMatrices))
    return std::nullopt;

  // Register bits on zero bases only name copies, which are never stored.
  SmallVector<unsigned> matrixBits, instructionBits;
  for (unsigned bit = 1; bit < layout.registers.size(); ++bit) {
    if (isZero(layout.registers[bit]))
      continue;
    (matrixBits.size() < 2 ? matrixBits : instructionBits).push_back(bit);
  }

  MatrixStores stores;
  stores.matrices = 1u << matrixBits.size();
  Basis none(layout.rank(), 0);
  stores.rowStarts.shape = layout.shape;
  stores.rowStarts.lanes.assign(layout.lanes.begin() + 2, layout.lanes.end());
  for (unsigned index = 0; index < 2; ++index)
    stores.rowStarts.lanes.push_back(index < matrixBits.size() ? layout.registers[matrixBits[index]]
                                                               : none);
  stores.rowStarts.warps = layout.warps;
  for (unsigned bit : instructionBits)
    stores.rowStarts.registers.push_back(layout.registers[bit]);

  for (unsigned instruction = 0; instruction < (1u << instructionBits.size()); ++instruction) {
    unsigned first = 0;
    for (auto [index, bit] : llvm::enumerate(instructionBits))
      if (instruction & (1u << index))
        first |= 1u << bit;
    SmallVector<unsigned, 4> fragments;
    for (unsigned matrix = 0; matrix < stores.matrices; ++matrix) {
      unsigned reg = first;
      for (auto [index, bit] : llvm::enumerate(matrixBits))
        if (matrix & (1u << index))
          reg |= 1u << bit;
      fragments.push_back(reg);
    }
    stores.fragments.push_back(std::move(fragments));
  }
  return stores;
}

void storeTileWithMatrixStores(OpBuilder &builder, Location loc, Value buffer,
                               const MatrixStores &stores, ValueRange registers,
                               function_ref<Value(OpBuilder &, Location, unsigned)> rowStart,
                               function_ref<bool(unsigned)> issued) {
  MLIRContext *context = builder.getContext();
  Type i64 = builder.getI64Type();
  auto pairType = VectorType::get({2}, registers.front().getType());
  auto wordType = VectorType::get({1}, builder.getI32Type());
  auto pointerType = LLVM::LLVMPointerType::get(context, kSharedAddressSpace);
  constexpr auto noWrap = arith::IntegerOverflowFlags::nsw | arith::IntegerOverflowFlags::nuw;
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, buffer);
  Value elementBytes = indexConstant(builder, loc, 2);
  for (auto [instruction, fragments] : llvm::enumerate(stores.fragments)) {
    if (issued && !issued(instruction))
      continue;
    Value index = rowStart(builder, loc, instruction);
    Value address = arith::AddIOp::create(
        builder, loc, base, arith::MulIOp::create(builder, loc, index, elementBytes, noWrap),
        noWrap);
    Value wide = arith::IndexCastOp::create(builder, loc, i64, address);
    Value pointer = LLVM::IntToPtrOp::create(builder, loc, pointerType, wide);
    SmallVector<Value, 4> words;
    for (unsigned low : fragments) {
      Value pair = packPair(builder, loc, pairType, registers[low], registers[low + 1]);
      Value word = vector::BitCastOp::create(builder, loc, wordType, pair);
      words.push_back(vector::ExtractOp::create(builder, loc, word, ArrayRef<int64_t>{0}));
    }
    NVVM::StMatrixOp::create(builder, loc, pointer, words, NVVM::MMALayout::row,
                             NVVM::LdStMatrixShapeAttr::get(context, kMatrixSide, kMatrixSide),
                             NVVM::LdStMatrixEltType::B16);
  }
}

} // namespace tessera::gpu
