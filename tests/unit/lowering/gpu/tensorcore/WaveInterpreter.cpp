#include "tests/unit/lowering/gpu/tensorcore/WaveInterpreter.h"

#include "tests/unit/lowering/gpu/tensorcore/AmdIsaModel.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <gtest/gtest.h>

using namespace mlir;

namespace tessera::gpu::testing {

void WaveInterpreter::bindUniform(Value value, double scalar) {
  values[value] = Lanes(numLanes, {scalar});
}

WaveInterpreter::Lanes WaveInterpreter::perLane(Value a, Value b,
                                                double (*apply)(int64_t, int64_t)) {
  const Lanes &x = values[a], &y = values[b];
  Lanes out(numLanes);
  for (unsigned lane = 0; lane < numLanes; ++lane)
    out[lane] = {apply(static_cast<int64_t>(x[lane][0]), static_cast<int64_t>(y[lane][0]))};
  return out;
}

bool WaveInterpreter::run(Block &block) {
  for (Operation &op : block) {
    if (op.hasTrait<OpTrait::IsTerminator>())
      return true;
    if (!step(op))
      return false;
  }
  return true;
}

bool WaveInterpreter::step(Operation &op) {
  auto binary = [&](double (*apply)(int64_t, int64_t)) {
    values[op.getResult(0)] = perLane(op.getOperand(0), op.getOperand(1), apply);
    return true;
  };
  if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
    double scalar = 0;
    if (auto integer = dyn_cast<IntegerAttr>(constant.getValue()))
      scalar = static_cast<double>(integer.getInt());
    else if (auto real = dyn_cast<FloatAttr>(constant.getValue()))
      scalar = real.getValueAsDouble();
    else {
      ADD_FAILURE() << "unexpected constant";
      return false;
    }
    bindUniform(constant.getResult(), scalar);
    return true;
  }
  if (isa<arith::AddIOp>(op))
    return binary([](int64_t a, int64_t b) { return double(a + b); });
  if (isa<arith::SubIOp>(op))
    return binary([](int64_t a, int64_t b) { return double(a - b); });
  if (isa<arith::MulIOp>(op))
    return binary([](int64_t a, int64_t b) { return double(a * b); });
  if (isa<arith::DivUIOp>(op))
    return binary([](int64_t a, int64_t b) { return double(a / b); });
  if (isa<arith::RemUIOp>(op))
    return binary([](int64_t a, int64_t b) { return double(a % b); });
  if (isa<arith::XOrIOp>(op))
    return binary([](int64_t a, int64_t b) { return double(a ^ b); });
  if (isa<arith::AndIOp>(op))
    return binary([](int64_t a, int64_t b) { return double(a & b); });
  if (isa<arith::ShLIOp>(op))
    return binary([](int64_t a, int64_t b) { return double(a << b); });
  if (isa<arith::ShRUIOp>(op))
    return binary([](int64_t a, int64_t b) { return double(a >> b); });
  if (isa<arith::IndexCastUIOp, arith::IndexCastOp>(op)) {
    values[op.getResult(0)] = values[op.getOperand(0)];
    return true;
  }
  if (auto build = dyn_cast<vector::FromElementsOp>(op)) {
    Lanes out(numLanes);
    for (Value element : build.getElements())
      for (unsigned lane = 0; lane < numLanes; ++lane)
        out[lane].push_back(values[element][lane][0]);
    values[build.getResult()] = std::move(out);
    return true;
  }
  if (auto extract = dyn_cast<vector::ExtractOp>(op)) {
    int64_t position = extract.getStaticPosition()[0];
    Lanes out(numLanes);
    for (unsigned lane = 0; lane < numLanes; ++lane)
      out[lane] = {values[extract.getSource()][lane][position]};
    values[extract.getResult()] = std::move(out);
    return true;
  }
  if (auto shuffle = dyn_cast<vector::ShuffleOp>(op)) {
    Lanes out(numLanes);
    for (unsigned lane = 0; lane < numLanes; ++lane) {
      llvm::SmallVector<double, 32> both(values[shuffle.getV1()][lane].begin(),
                                         values[shuffle.getV1()][lane].end());
      both.append(values[shuffle.getV2()][lane]);
      for (int64_t index : shuffle.getMask())
        out[lane].push_back(both[index]);
    }
    values[shuffle.getResult()] = std::move(out);
    return true;
  }
  if (isa<vector::LoadOp, memref::LoadOp>(op)) {
    Value base = op.getOperand(0), index = op.getOperand(1);
    auto vectorType = dyn_cast<VectorType>(op.getResult(0).getType());
    int64_t width = vectorType ? vectorType.getNumElements() : 1;
    const std::vector<double> *memory = memories.lookup(base);
    if (!memory) {
      ADD_FAILURE() << "load from an unbound buffer";
      return false;
    }
    Lanes out(numLanes);
    for (unsigned lane = 0; lane < numLanes; ++lane) {
      auto first = static_cast<size_t>(values[index][lane][0]);
      if (first + width > memory->size()) {
        ADD_FAILURE() << "lane " << lane << " reads past the buffer";
        return false;
      }
      for (int64_t i = 0; i < width; ++i)
        out[lane].push_back((*memory)[first + i]);
    }
    values[op.getResult(0)] = std::move(out);
    return true;
  }
  if (auto loop = dyn_cast<scf::ForOp>(op)) {
    auto uniform = [&](Value v) { return static_cast<int64_t>(values[v][0][0]); };
    Block &body = *loop.getBody();
    llvm::SmallVector<Lanes> carried;
    for (Value init : loop.getInitArgs())
      carried.push_back(values[init]);
    for (int64_t iv = uniform(loop.getLowerBound()); iv < uniform(loop.getUpperBound());
         iv += uniform(loop.getStep())) {
      bindUniform(loop.getInductionVar(), static_cast<double>(iv));
      for (auto [arg, value] : llvm::zip(loop.getRegionIterArgs(), carried))
        values[arg] = value;
      if (!run(body))
        return false;
      for (auto [slot, yielded] : llvm::zip(carried, body.getTerminator()->getOperands()))
        slot = values[yielded];
    }
    for (auto [result, value] : llvm::zip(loop.getResults(), carried))
      values[result] = value;
    return true;
  }
  if (isa<amdgpu::MFMAOp, amdgpu::WMMAOp>(op))
    return matrixMultiply(op);
  ADD_FAILURE() << "the wave interpreter does not know " << op.getName().getStringRef().str();
  return false;
}

bool WaveInterpreter::matrixMultiply(Operation &op) {
  AmdMatrixInstruction in;
  Value a = op.getOperand(0), b = op.getOperand(1), c = op.getOperand(2);
  auto aType = dyn_cast<VectorType>(a.getType());
  in.kPerLane = aType ? aType.getNumElements() : 1;
  if (auto mfma = dyn_cast<amdgpu::MFMAOp>(op)) {
    in.family = AmdMatrixFamily::Mfma;
    in.m = mfma.getM(), in.n = mfma.getN(), in.k = mfma.getK();
    if (mfma.getBlocks() != 1) {
      ADD_FAILURE() << "multi-block MFMA is not modelled";
      return false;
    }
  } else {
    auto wmma = cast<amdgpu::WMMAOp>(op);
    in.family = AmdMatrixFamily::Wmma;
    in.m = wmma.getM(), in.n = wmma.getN(), in.k = wmma.getK();
    // RDNA3 reads A and B from lanes 0-15 only but requires lanes 16-31 to
    // hold the same fragments.
    for (Value operand : {a, b})
      for (unsigned lane = 0; lane < 16; ++lane)
        if (values[operand][lane] != values[operand][lane + 16]) {
          ADD_FAILURE() << "WMMA operand differs between lanes " << lane << " and " << lane + 16;
          return false;
        }
  }
  const Lanes &aLanes = values[a], &bLanes = values[b];
  Lanes out = values[c];
  for (int64_t i = 0; i < in.m; ++i)
    for (int64_t j = 0; j < in.n; ++j) {
      double sum = 0;
      for (int64_t k = 0; k < in.k; ++k) {
        Slot aSlot = operandSlot(in, i, k), bSlot = operandSlot(in, j, k);
        sum += aLanes[aSlot.lane][aSlot.item] * bLanes[bSlot.lane][bSlot.item];
      }
      Slot d = resultSlot(in, i, j);
      out[d.lane][d.item] += sum;
    }
  values[op.getResult(0)] = std::move(out);
  return true;
}

} // namespace tessera::gpu::testing
