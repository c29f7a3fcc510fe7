#include "WarpSimulator.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/bit.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <array>
#include <map>
#include <set>

using namespace mlir;

namespace tessera::gpu::testing {
namespace {

using Elements = llvm::SmallVector<double, 4>;
using LaneValues = std::array<Elements, kSimulatedWarpSize>;

struct Coord {
  int64_t row, col;
};

// PTX ISA, mma.m16n8k16 with .f16/.bf16: a_i, i = 0..7, two per register.
Coord fragmentA16(unsigned lane, unsigned i) {
  int64_t group = lane / 4, thread = lane % 4;
  bool lowRow = i == 0 || i == 1 || i == 4 || i == 5;
  return {lowRow ? group : group + 8, thread * 2 + (i & 1) + (i >= 4 ? 8 : 0)};
}
Coord fragmentB16(unsigned lane, unsigned i) {
  int64_t group = lane / 4, thread = lane % 4;
  return {thread * 2 + (i & 1) + (i >= 2 ? 8 : 0), group};
}
// mma.m16n8k8 with .tf32: a0..a3 and b0, b1, one per register.
Coord fragmentATf32(unsigned lane, unsigned i) {
  int64_t group = lane / 4, thread = lane % 4;
  return {i == 0 || i == 2 ? group : group + 8, i < 2 ? thread : thread + 4};
}
Coord fragmentBTf32(unsigned lane, unsigned i) {
  int64_t group = lane / 4, thread = lane % 4;
  return {i == 0 ? thread : thread + 4, group};
}
// mma.m16n8k32 with .s8: a0..a15 and b0..b7, four per register.
Coord fragmentAS8(unsigned lane, unsigned i) {
  int64_t group = lane / 4, thread = lane % 4;
  bool lowRow = i < 4 || (i >= 8 && i < 12);
  return {lowRow ? group : group + 8, thread * 4 + (i & 3) + (i >= 8 ? 16 : 0)};
}
Coord fragmentBS8(unsigned lane, unsigned i) {
  int64_t group = lane / 4, thread = lane % 4;
  return {thread * 4 + (i & 3) + (i >= 4 ? 16 : 0), group};
}
// The m16n8 accumulator, for every type: c0..c3.
Coord fragmentC(unsigned lane, unsigned i) {
  int64_t group = lane / 4, thread = lane % 4;
  return {i < 2 ? group : group + 8, thread * 2 + (i & 1)};
}

/// `value` as an f32 whose low 13 mantissa bits are cleared (`roundBit`
/// 0), or first rounded to nearest with ties away from zero (`roundBit`
/// 0x1000, cvt.rna.tf32.f32 for finite values that stay finite).
double toTf32(double value, uint32_t roundBit) {
  uint32_t bits = llvm::bit_cast<uint32_t>(static_cast<float>(value));
  return llvm::bit_cast<float>((bits + roundBit) & 0xFFFFE000u);
}

/// Part `index` of `parts` equal parts of `value`.
Elements slice(const Elements &value, int64_t parts, int64_t index) {
  int64_t size = static_cast<int64_t>(value.size()) / parts;
  return Elements(value.begin() + index * size, value.begin() + (index + 1) * size);
}

llvm::Error failure(Operation *op, const llvm::Twine &message) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << op->getName() << ": " << message;
  return llvm::createStringError(llvm::inconvertibleErrorCode(), text);
}

class Simulator {
public:
  Simulator(func::FuncOp function, const WarpInputs &inputs) : function(function), inputs(inputs) {}

  llvm::Expected<WarpOutputs> run() {
    Block &body = function.getBody().front();
    size_t accCount = inputs.acc.front().size();
    size_t aCount = inputs.aRegisters.empty() ? 0 : inputs.aRegisters.front().size();
    if (body.getNumArguments() != 4 + accCount + aCount ||
        (aCount && inputs.aRegisters.size() != kSimulatedWarpSize))
      return failure(function, "expected (lane, warp, aShared, bShared, acc..., a...) arguments");
    for (unsigned lane = 0; lane < kSimulatedWarpSize; ++lane) {
      values[body.getArgument(0)][lane] = {static_cast<double>(lane)};
      values[body.getArgument(1)][lane] = {static_cast<double>(inputs.warp)};
      for (unsigned r = 0; r < accCount; ++r)
        values[body.getArgument(4 + r)][lane] = {inputs.acc[lane][r]};
      for (unsigned r = 0; r < aCount; ++r)
        values[body.getArgument(4 + accCount + r)][lane] = {inputs.aRegisters[lane][r]};
    }
    buffers[body.getArgument(2)] = &inputs.aShared;
    buffers[body.getArgument(3)] = &inputs.bShared;
    for (Operation &op : body)
      if (llvm::Error error = step(op))
        return std::move(error);
    return outputs;
  }

private:
  llvm::Error step(Operation &op) {
    return llvm::TypeSwitch<Operation *, llvm::Error>(&op)
        .Case<arith::ConstantOp>([&](arith::ConstantOp c) { return constant(c); })
        .Case<arith::IndexCastOp, arith::IndexCastUIOp, arith::BitcastOp, vector::BitCastOp>(
            [&](Operation *cast) {
          values[cast->getResult(0)] = values.lookup(cast->getOperand(0));
          return llvm::Error::success();
        })
        .Case<arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::AndIOp, arith::OrIOp,
              arith::XOrIOp, arith::ShLIOp, arith::ShRUIOp, arith::DivUIOp, arith::RemUIOp>(
            [&](Operation *binary) { return integerBinary(binary); })
        .Case<arith::SubFOp>([&](arith::SubFOp sub) {
          const LaneValues &lhs = values.lookup(sub.getLhs()), &rhs = values.lookup(sub.getRhs());
          LaneValues &result = values[sub.getResult()];
          for (unsigned lane = 0; lane < kSimulatedWarpSize; ++lane)
            result[lane] = {static_cast<float>(lhs[lane].front()) -
                            static_cast<float>(rhs[lane].front())};
          return llvm::Error::success();
        })
        .Case<NVVM::ConvertFloatToTF32Op>([&](NVVM::ConvertFloatToTF32Op convert) -> llvm::Error {
          if (convert.getRnd() != NVVM::FPRoundingMode::RNA)
            return failure(convert, "only .rna is modelled");
          const LaneValues &source = values.lookup(convert.getSrc());
          LaneValues &result = values[convert.getRes()];
          for (unsigned lane = 0; lane < kSimulatedWarpSize; ++lane)
            result[lane] = {toTf32(source[lane].front(), 0x1000)};
          return llvm::Error::success();
        })
        .Case<nvgpu::LdMatrixOp>([&](nvgpu::LdMatrixOp load) { return ldmatrix(load); })
        .Case<memref::LoadOp>([&](memref::LoadOp load) { return sharedLoad(load); })
        .Case<vector::ExtractOp>([&](vector::ExtractOp extract) { return vectorExtract(extract); })
        .Case<vector::FromElementsOp>([&](vector::FromElementsOp from) {
          LaneValues &result = values[from.getResult()];
          for (Value element : from.getElements())
            for (unsigned lane = 0; lane < kSimulatedWarpSize; ++lane)
              llvm::append_range(result[lane], values.lookup(element)[lane]);
          return llvm::Error::success();
        })
        .Case<NVVM::MmaOp>([&](NVVM::MmaOp mma) { return mmaSync(mma); })
        .Case<LLVM::InlineAsmOp>([&](LLVM::InlineAsmOp asmOp) { return fp8MmaSync(asmOp); })
        .Case<LLVM::ExtractValueOp>([&](LLVM::ExtractValueOp extract) {
          auto type = cast<LLVM::LLVMStructType>(extract.getContainer().getType());
          int64_t fields = type.getBody().size();
          const LaneValues &whole = values.lookup(extract.getContainer());
          LaneValues &result = values[extract.getResult()];
          for (unsigned lane = 0; lane < kSimulatedWarpSize; ++lane)
            result[lane] = slice(whole[lane], fields, extract.getPosition()[0]);
          return llvm::Error::success();
        })
        .Case<func::ReturnOp>([&](func::ReturnOp ret) {
          outputs.acc.assign(kSimulatedWarpSize, {});
          for (Value operand : ret.getOperands())
            for (unsigned lane = 0; lane < kSimulatedWarpSize; ++lane)
              outputs.acc[lane].push_back(values.lookup(operand)[lane].front());
          return llvm::Error::success();
        })
        .Default([&](Operation *other) { return failure(other, "not modelled by the simulator"); });
  }

  llvm::Error constant(arith::ConstantOp c) {
    double value = 0;
    if (auto integer = dyn_cast<IntegerAttr>(c.getValue()))
      value = static_cast<double>(integer.getValue().getSExtValue());
    else if (auto real = dyn_cast<FloatAttr>(c.getValue()))
      value = real.getValueAsDouble();
    else
      return failure(c, "only scalar constants are modelled");
    for (Elements &lane : values[c.getResult()])
      lane = {value};
    return llvm::Error::success();
  }

  llvm::Error integerBinary(Operation *op) {
    const LaneValues &lhs = values.lookup(op->getOperand(0));
    const LaneValues &rhs = values.lookup(op->getOperand(1));
    LaneValues &result = values[op->getResult(0)];
    for (unsigned lane = 0; lane < kSimulatedWarpSize; ++lane) {
      auto x = static_cast<int64_t>(lhs[lane].front()), y = static_cast<int64_t>(rhs[lane].front());
      int64_t r = llvm::TypeSwitch<Operation *, int64_t>(op)
                      .Case<arith::AddIOp>([&](auto) { return x + y; })
                      .Case<arith::SubIOp>([&](auto) { return x - y; })
                      .Case<arith::MulIOp>([&](auto) { return x * y; })
                      .Case<arith::AndIOp>([&](auto) { return x & y; })
                      .Case<arith::OrIOp>([&](auto) { return x | y; })
                      .Case<arith::XOrIOp>([&](auto) { return x ^ y; })
                      .Case<arith::ShLIOp>([&](auto) { return x << y; })
                      .Case<arith::ShRUIOp>([&](auto) { return x >> y; })
                      .Case<arith::DivUIOp>([&](auto) { return x / y; })
                      .Case<arith::RemUIOp>([&](auto) { return x % y; });
      result[lane] = {static_cast<double>(r)};
    }
    return llvm::Error::success();
  }

  // PTX ldmatrix .m8n8 .x1/.x2/.x4 [.trans]: lanes 8j..8j+7 address the rows
  // of matrix j (16 bytes each); lane l receives, of every matrix, the 32-bit
  // word l % 4 of row l / 4, or with .trans the 16-bit elements of column
  // l / 4 in rows 2 * (l % 4) and 2 * (l % 4) + 1.
  llvm::Error ldmatrix(nvgpu::LdMatrixOp load) {
    const std::vector<double> *buffer = buffers.lookup(load.getSrcMemref());
    if (!buffer || load.getIndices().size() != 1)
      return failure(load, "expected one index into a simulated shared buffer");
    ++outputs.ldmatrixCount;
    unsigned bytes = inputs.elementBytes;
    int64_t rowElements = 16 / bytes, wordElements = 4 / bytes;
    int64_t matrices = load.getNumTiles();
    const LaneValues &index = values.lookup(load.getIndices()[0]);
    std::vector<int64_t> rowStart(kSimulatedWarpSize);
    for (unsigned lane = 0; lane < 8 * matrices; ++lane) {
      rowStart[lane] = static_cast<int64_t>(index[lane].front());
      if ((rowStart[lane] * bytes) % 16 != 0 || rowStart[lane] < 0 ||
          rowStart[lane] + rowElements > static_cast<int64_t>(buffer->size()))
        return failure(load, llvm::formatv("lane {0} gives row address {1}, not a whole 16-byte "
                                           "row of the {2}-element buffer",
                                           lane, rowStart[lane], buffer->size()));
    }
    for (int64_t j = 0; j < matrices; ++j) {
      std::set<int64_t> bankPositions;
      for (int64_t r = 0; r < 8; ++r)
        bankPositions.insert((rowStart[8 * j + r] * bytes / 16) % 8);
      if (bankPositions.size() != 8)
        ++outputs.bankConflictedMatrices;
    }
    LaneValues &result = values[load.getResult()];
    for (unsigned lane = 0; lane < kSimulatedWarpSize; ++lane) {
      Elements &out = result[lane];
      for (int64_t j = 0; j < matrices; ++j) {
        if (load.getTranspose()) {
          int64_t column = lane / 4, row = 2 * (lane % 4);
          out.push_back((*buffer)[rowStart[8 * j + row] + column]);
          out.push_back((*buffer)[rowStart[8 * j + row + 1] + column]);
          continue;
        }
        int64_t start = rowStart[8 * j + lane / 4] + (lane % 4) * wordElements;
        for (int64_t e = 0; e < wordElements; ++e)
          out.push_back((*buffer)[start + e]);
      }
    }
    return llvm::Error::success();
  }

  // ld.shared of one element per lane. Shared memory has 32 banks of 4
  // bytes; lanes reading different words of one bank are serialized.
  llvm::Error sharedLoad(memref::LoadOp load) {
    const std::vector<double> *buffer = buffers.lookup(load.getMemRef());
    if (!buffer || load.getIndices().size() != 1)
      return failure(load, "expected one index into a simulated shared buffer");
    ++outputs.sharedLoadCount;
    const LaneValues &index = values.lookup(load.getIndices()[0]);
    std::map<int64_t, std::set<int64_t>> wordsOfBank;
    LaneValues &result = values[load.getResult()];
    for (unsigned lane = 0; lane < kSimulatedWarpSize; ++lane) {
      auto at = static_cast<int64_t>(index[lane].front());
      if (at < 0 || at >= static_cast<int64_t>(buffer->size()))
        return failure(load, llvm::formatv("lane {0} reads element {1} of a {2}-element buffer",
                                           lane, at, buffer->size()));
      int64_t word = at * inputs.elementBytes / 4;
      wordsOfBank[word % 32].insert(word);
      result[lane] = {(*buffer)[at]};
    }
    for (const auto &[bank, words] : wordsOfBank)
      outputs.sharedLoadConflictWays =
          std::max<unsigned>(outputs.sharedLoadConflictWays, static_cast<unsigned>(words.size()));
    return llvm::Error::success();
  }

  llvm::Error vectorExtract(vector::ExtractOp extract) {
    if (!extract.getDynamicPosition().empty())
      return failure(extract, "dynamic positions are not modelled");
    auto type = cast<VectorType>(extract.getSource().getType());
    LaneValues current = values.lookup(extract.getSource());
    ArrayRef<int64_t> position = extract.getStaticPosition();
    for (auto [dim, index] : llvm::enumerate(position))
      for (Elements &lane : current)
        lane = slice(lane, type.getDimSize(dim), index);
    values[extract.getResult()] = current;
    return llvm::Error::success();
  }

  llvm::Error mmaSync(NVVM::MmaOp mma) {
    NVVM::MMAShapeAttr shape = mma.getShape();
    if (shape.getM() != 16 || shape.getN() != 8)
      return failure(mma, "only m16n8 shapes are modelled");
    return multiplyAccumulate(mma, mma.getMultiplicandAPtxType(), shape.getK(),
                              mma.getOperandA(), mma.getOperandB(), mma.getOperandC(),
                              mma.getResult());
  }

  /// fp8 mma.sync, inline PTX (the NVVM op has no fp8 types):
  /// `mma.sync.aligned.m16n8k32.row.col.f32.TA.TB.f32 {d}, {a0..a3}, {b0, b1},
  /// {c}` with A, B and C its ten operands, TA and TB e4m3 or e5m2.
  llvm::Error fp8MmaSync(LLVM::InlineAsmOp asmOp) {
    llvm::StringRef text = asmOp.getAsmString();
    std::optional<NVVM::MMATypes> type;
    for (llvm::StringRef a : {"e4m3", "e5m2"})
      for (llvm::StringRef b : {"e4m3", "e5m2"})
        if (text.starts_with(
                ("mma.sync.aligned.m16n8k32.row.col.f32." + a + "." + b + ".f32 ").str()))
          type = a == "e4m3" ? NVVM::MMATypes::e4m3 : NVVM::MMATypes::e5m2;
    if (!type || asmOp.getOperands().size() != 10)
      return failure(asmOp, "inline assembly other than fp8 mma.sync is not modelled");
    ValueRange operands = asmOp.getOperands();
    return multiplyAccumulate(asmOp, type, 32, operands.take_front(4), operands.slice(4, 2),
                              operands.drop_front(6), asmOp.getResult(0));
  }

  llvm::Error multiplyAccumulate(Operation *mma, std::optional<NVVM::MMATypes> type, int64_t k,
                                 ValueRange aRegisters, ValueRange bRegisters,
                                 ValueRange cRegisters, Value d) {
    ++outputs.mmaCount;
    Coord (*fragmentA)(unsigned, unsigned) = nullptr;
    Coord (*fragmentB)(unsigned, unsigned) = nullptr;
    bool bytes = type == NVVM::MMATypes::s8 || type == NVVM::MMATypes::e4m3 ||
                 type == NVVM::MMATypes::e5m2;
    if ((type == NVVM::MMATypes::f16 || type == NVVM::MMATypes::bf16) && k == 16) {
      fragmentA = fragmentA16;
      fragmentB = fragmentB16;
    } else if (type == NVVM::MMATypes::tf32 && k == 8) {
      fragmentA = fragmentATf32;
      fragmentB = fragmentBTf32;
    } else if (bytes && k == 32) {
      fragmentA = fragmentAS8;
      fragmentB = fragmentBS8;
    } else {
      return failure(mma, "type and shape not modelled");
    }
    // .tf32 reads the top 19 bits of each f32 operand word.
    auto operand = [&](double value) {
      return type == NVVM::MMATypes::tf32 ? toTf32(value, 0) : value;
    };
    std::vector<double> a(16 * k), b(k * 8), c(16 * 8);
    auto gather = [&](ValueRange registers, unsigned lane) {
      Elements all;
      for (Value reg : registers)
        llvm::append_range(all, values.lookup(reg)[lane]);
      return all;
    };
    for (unsigned lane = 0; lane < kSimulatedWarpSize; ++lane) {
      Elements aLane = gather(aRegisters, lane), bLane = gather(bRegisters, lane),
               cLane = gather(cRegisters, lane);
      for (unsigned i = 0; i < aLane.size(); ++i) {
        Coord at = fragmentA(lane, i);
        a[at.row * k + at.col] = operand(aLane[i]);
      }
      for (unsigned i = 0; i < bLane.size(); ++i) {
        Coord at = fragmentB(lane, i);
        b[at.row * 8 + at.col] = operand(bLane[i]);
      }
      for (unsigned i = 0; i < cLane.size(); ++i) {
        Coord at = fragmentC(lane, i);
        c[at.row * 8 + at.col] = cLane[i];
      }
    }
    LaneValues &result = values[d];
    for (unsigned lane = 0; lane < kSimulatedWarpSize; ++lane)
      for (unsigned i = 0; i < 4; ++i) {
        Coord at = fragmentC(lane, i);
        double sum = c[at.row * 8 + at.col];
        for (int64_t kk = 0; kk < k; ++kk)
          sum += a[at.row * k + kk] * b[kk * 8 + at.col];
        result[lane].push_back(sum);
      }
    return llvm::Error::success();
  }

  func::FuncOp function;
  const WarpInputs &inputs;
  llvm::DenseMap<Value, LaneValues> values;
  llvm::DenseMap<Value, const std::vector<double> *> buffers;
  WarpOutputs outputs;
};

} // namespace

llvm::Expected<WarpOutputs> simulateWarp(func::FuncOp function, const WarpInputs &inputs) {
  return Simulator(function, inputs).run();
}

} // namespace tessera::gpu::testing
