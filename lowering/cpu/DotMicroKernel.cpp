#include "lowering/cpu/DotMicroKernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

namespace tessera::cpu {

MicroKernelBlocking chooseBlocking(const DotShape &shape, unsigned elementBits,
                                   unsigned vectorBits) {
  int64_t lanes = std::max<int64_t>(1, vectorBits / elementBits);
  MicroKernelBlocking blocking;
  // Two vector registers per row of C: NR = 2 * lanes, or the largest power of
  // two below that divides N.
  blocking.nr = 1;
  for (int64_t nr = 2 * lanes; nr >= 1; nr /= 2)
    if (shape.n % nr == 0) {
      blocking.nr = nr;
      break;
    }
  // Accumulators: MR * NR / lanes registers of the 32 (AVX-512) or 16 (AVX2
  // and narrower) the ISA has, leaving room for the B row and the broadcast.
  int64_t registers = vectorBits >= 512 ? 32 : 16;
  int64_t perRow = std::max<int64_t>(1, blocking.nr / lanes);
  int64_t mr = std::max<int64_t>(1, (registers - perRow - 2) / perRow);
  blocking.mr = std::min<int64_t>({mr, vectorBits >= 512 ? 8 : 6, shape.m});
  return blocking;
}

namespace {

Value i64(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(v));
}

Value convertVector(OpBuilder &b, Location loc, Value v, Type to) {
  auto type = cast<VectorType>(v.getType());
  Type from = type.getElementType();
  if (from == to)
    return v;
  auto result = VectorType::get(type.getShape(), to);
  if (isa<FloatType>(from) && isa<FloatType>(to))
    return from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth()
               ? arith::ExtFOp::create(b, loc, result, v).getResult()
               : arith::TruncFOp::create(b, loc, result, v).getResult();
  if (isa<IntegerType>(from) && isa<IntegerType>(to))
    return from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth()
               ? arith::ExtSIOp::create(b, loc, result, v).getResult()
               : arith::TruncIOp::create(b, loc, result, v).getResult();
  if (isa<IntegerType>(from))
    return arith::SIToFPOp::create(b, loc, result, v);
  return arith::FPToSIOp::create(b, loc, result, v);
}

} // namespace

Value emitDotMicroKernel(OpBuilder &b, Location loc, Value a, Value bMat, Value acc,
                         const DotShape &shape, Operation *allocaPoint, unsigned vectorBits) {
  auto accType = cast<VectorType>(acc.getType());
  Type accElement = accType.getElementType();
  Type ct = accElement;
  if (isa<FloatType>(accElement) && accElement.getIntOrFloatBitWidth() < 32)
    ct = b.getF32Type();
  bool isFloat = isa<FloatType>(ct);
  MLIRContext *ctx = b.getContext();
  auto ptrType = LLVM::LLVMPointerType::get(ctx);
  const int64_t M = shape.m, N = shape.n, K = shape.k, batch = shape.batch;
  unsigned bytes = ct.getIntOrFloatBitWidth() / 8;

  // Stack buffers in the entry block.
  Value bufA, bufB, bufC;
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(allocaPoint);
    auto alloc = [&](int64_t count) {
      Value n = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(count));
      return LLVM::AllocaOp::create(b, loc, ptrType, ct, n, /*alignment=*/64).getResult();
    };
    bufA = alloc(batch * M * K);
    bufB = alloc(batch * K * N);
    bufC = alloc(batch * M * N);
  }
  LLVM::StoreOp::create(b, loc, convertVector(b, loc, a, ct), bufA, bytes);
  LLVM::StoreOp::create(b, loc, convertVector(b, loc, bMat, ct), bufB, bytes);
  LLVM::StoreOp::create(b, loc, convertVector(b, loc, acc, ct), bufC, bytes);

  MicroKernelBlocking blocking = chooseBlocking(shape, ct.getIntOrFloatBitWidth(), vectorBits);
  const int64_t NR = blocking.nr;
  auto rowType = VectorType::get({NR}, ct);
  auto gep = [&](OpBuilder &ob, Value base, Value index) {
    return LLVM::GEPOp::create(ob, loc, ptrType, ct, base, ValueRange{index}).getResult();
  };

  // C[p, i0:i0+mr, :] += A[p, i0:i0+mr, :] * B[p]: loops over column blocks
  // and k, with `mr` rows of accumulators carried through the k-loop.
  auto emitRows = [&](OpBuilder &ob, Value aBase, Value bBase, Value cBase, Value i0,
                      int64_t mr) {
    Value c0 = i64(ob, loc, 0), cN = i64(ob, loc, N), cNR = i64(ob, loc, NR);
    scf::ForOp::create(ob, loc, c0, cN, cNR, ValueRange{},
                       [&](OpBuilder &jb, Location, Value j0, ValueRange) {
      SmallVector<Value> cRows, accs;
      for (int64_t r = 0; r < mr; ++r) {
        Value row = arith::AddIOp::create(jb, loc, i0, i64(jb, loc, r));
        Value off = arith::AddIOp::create(
            jb, loc, arith::MulIOp::create(jb, loc, row, i64(jb, loc, N)), j0);
        cRows.push_back(gep(jb, cBase, off));
        accs.push_back(LLVM::LoadOp::create(jb, loc, rowType, cRows.back(), bytes));
      }
      Value k0 = i64(jb, loc, 0), kK = i64(jb, loc, K), k1 = i64(jb, loc, 1);
      auto kLoop = scf::ForOp::create(
          jb, loc, k0, kK, k1, accs,
          [&](OpBuilder &kb, Location, Value k, ValueRange carried) {
            Value bOff = arith::AddIOp::create(
                kb, loc, arith::MulIOp::create(kb, loc, k, i64(kb, loc, N)), j0);
            Value bRow = LLVM::LoadOp::create(kb, loc, rowType, gep(kb, bBase, bOff), bytes);
            SmallVector<Value> next;
            for (int64_t r = 0; r < mr; ++r) {
              Value row = arith::AddIOp::create(kb, loc, i0, i64(kb, loc, r));
              Value aOff = arith::AddIOp::create(
                  kb, loc, arith::MulIOp::create(kb, loc, row, i64(kb, loc, K)), k);
              Value aVal = LLVM::LoadOp::create(kb, loc, ct, gep(kb, aBase, aOff), bytes);
              Value aSplat = vector::BroadcastOp::create(kb, loc, rowType, aVal);
              if (isFloat)
                next.push_back(math::FmaOp::create(kb, loc, aSplat, bRow, carried[r]));
              else
                next.push_back(arith::AddIOp::create(
                    kb, loc, arith::MulIOp::create(kb, loc, aSplat, bRow), carried[r]));
            }
            scf::YieldOp::create(kb, loc, next);
          });
      for (int64_t r = 0; r < mr; ++r)
        LLVM::StoreOp::create(jb, loc, kLoop.getResult(r), cRows[r], bytes);
      scf::YieldOp::create(jb, loc);
    });
  };

  auto emitBatch = [&](OpBuilder &ob, Value p) {
    Value aBase = gep(ob, bufA, arith::MulIOp::create(ob, loc, p, i64(ob, loc, M * K)));
    Value bBase = gep(ob, bufB, arith::MulIOp::create(ob, loc, p, i64(ob, loc, K * N)));
    Value cBase = gep(ob, bufC, arith::MulIOp::create(ob, loc, p, i64(ob, loc, M * N)));
    int64_t mr = blocking.mr, full = M - M % mr;
    if (full > 0)
      scf::ForOp::create(ob, loc, i64(ob, loc, 0), i64(ob, loc, full), i64(ob, loc, mr),
                         ValueRange{}, [&](OpBuilder &ib, Location, Value i0, ValueRange) {
                           emitRows(ib, aBase, bBase, cBase, i0, mr);
                           scf::YieldOp::create(ib, loc);
                         });
    if (M % mr)
      emitRows(ob, aBase, bBase, cBase, i64(ob, loc, full), M % mr);
  };
  if (batch == 1)
    emitBatch(b, i64(b, loc, 0));
  else
    scf::ForOp::create(b, loc, i64(b, loc, 0), i64(b, loc, batch), i64(b, loc, 1), ValueRange{},
                       [&](OpBuilder &pb, Location, Value p, ValueRange) {
                         emitBatch(pb, p);
                         scf::YieldOp::create(pb, loc);
                       });

  auto fullType = VectorType::get(accType.getShape(), ct);
  Value result = LLVM::LoadOp::create(b, loc, fullType, bufC, bytes);
  return convertVector(b, loc, result, accElement);
}

} // namespace tessera::cpu
