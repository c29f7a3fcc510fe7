// tessera-nvgpu-float8-ldmatrix (Passes.td): nvgpu.ldmatrix of fp8 elements
// as nvvm.ldmatrix, which convert-nvgpu-to-nvvm mistypes.
#include "lowering/gpu/nvidia/Passes.h"

#include "ir/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace tessera::gpu {
#define GEN_PASS_DEF_TESSERANVGPUFLOAT8LDMATRIX
#include "lowering/gpu/nvidia/Passes.h.inc"
} // namespace tessera::gpu

using namespace mlir;

namespace {

LogicalResult lowerLdMatrix(nvgpu::LdMatrixOp load) {
  auto memref = cast<MemRefType>(load.getSrcMemref().getType());
  if (memref.getRank() != 1 || !memref.getLayout().isIdentity())
    return load.emitOpError("of fp8 elements reads only 1-D buffers of the identity layout");
  OpBuilder b(load);
  Location loc = load.getLoc();
  MLIRContext *context = b.getContext();
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, load.getSrcMemref());
  Value address = arith::AddIOp::create(b, loc, base, load.getIndices().front());
  Value wide = arith::IndexCastUIOp::create(b, loc, b.getI64Type(), address);
  auto shared =
      LLVM::LLVMPointerType::get(context, static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared));
  Value pointer = LLVM::IntToPtrOp::create(b, loc, shared, wide);

  int64_t count = load.getNumTiles();
  Type word = b.getI32Type();
  Type wordsType =
      count == 1 ? word
                 : LLVM::LLVMStructType::getLiteral(context, SmallVector<Type>(count, word));
  // nvgpu.ldmatrix transposes 16-bit elements only: these come as stored.
  Value words = NVVM::LdMatrixOp::create(b, loc, wordsType, pointer, count, NVVM::MMALayout::row,
                                         NVVM::LdStMatrixShapeAttr::get(context, 8, 8),
                                         NVVM::LdStMatrixEltType::B16);

  auto result = cast<VectorType>(load.getType());
  auto row = VectorType::get({result.getDimSize(1)}, result.getElementType());
  auto oneWord = VectorType::get({1}, word);
  Value matrices = arith::ConstantOp::create(b, loc, result, b.getZeroAttr(result));
  for (int64_t j = 0; j < count; ++j) {
    Value value = count == 1 ? words : LLVM::ExtractValueOp::create(b, loc, words, j).getResult();
    Value packed = vector::FromElementsOp::create(b, loc, oneWord, value);
    Value bytes = vector::BitCastOp::create(b, loc, row, packed);
    matrices = vector::InsertOp::create(b, loc, bytes, matrices, ArrayRef<int64_t>{j});
  }
  load.replaceAllUsesWith(matrices);
  load.erase();
  return success();
}

struct Float8LdMatrix
    : tessera::gpu::impl::TesseraNvgpuFloat8LdMatrixBase<Float8LdMatrix> {
  void runOnOperation() override {
    SmallVector<nvgpu::LdMatrixOp> loads;
    getOperation().walk([&](nvgpu::LdMatrixOp load) {
      Type element = cast<VectorType>(load.getType()).getElementType();
      if (tessera::tile::isFloat8(element))
        loads.push_back(load);
    });
    for (nvgpu::LdMatrixOp load : loads)
      if (failed(lowerLdMatrix(load)))
        return signalPassFailure();
  }
};

} // namespace
