#include "WarpgroupSimulator.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <bit>
#include <limits>
#include <optional>

using namespace mlir;

namespace tessera::gpu::testing {
namespace {

constexpr unsigned kThreadsPerWarp = 32;

/// One thread's copy of a value: integers and indices as their bits (zero
/// above the type's width), floats, vectors and structs as their elements (a
/// struct of vectors as all their elements, field after field).
struct ThreadValue {
  uint64_t bits = 0;
  llvm::SmallVector<double, 4> elements;
};
using ThreadValues = std::vector<ThreadValue>;

unsigned widthOf(Type type) { return type.isIndex() ? 64 : type.getIntOrFloatBitWidth(); }
/// Elements of one struct field of type `field`: a vector's, else one.
int64_t elementsOf(Type field) {
  auto vector = dyn_cast<VectorType>(field);
  return vector ? vector.getNumElements() : 1;
}
/// Elements of a whole value of `type`.
int64_t elementsOfValue(Type type) {
  if (auto structType = dyn_cast<LLVM::LLVMStructType>(type)) {
    int64_t count = 0;
    for (Type field : structType.getBody())
      count += elementsOf(field);
    return count;
  }
  return elementsOf(type);
}
/// The f16 nearest `value` (ties to even), as an f16 accumulator holds it.
double roundToHalf(double value) {
  llvm::APFloat half(value);
  bool lost = false;
  half.convert(llvm::APFloat::IEEEhalf(), llvm::APFloat::rmNearestTiesToEven, &lost);
  return half.convertToDouble();
}
/// The bits of `value` in the 16-bit float type `type` (f16 or bf16), and back.
uint64_t bitsOf16(double value, Type type) {
  llvm::APFloat converted(value);
  bool lost = false;
  converted.convert(type.isBF16() ? llvm::APFloat::BFloat() : llvm::APFloat::IEEEhalf(),
                    llvm::APFloat::rmNearestTiesToEven, &lost);
  return converted.bitcastToAPInt().getZExtValue();
}
double valueOf16(uint64_t bits, bool bf16) {
  llvm::APFloat value(bf16 ? llvm::APFloat::BFloat() : llvm::APFloat::IEEEhalf(),
                      llvm::APInt(16, bits & 0xffff));
  return value.convertToDouble();
}
bool isInteger(Type type) { return type.isIndex() || isa<IntegerType>(type); }

uint64_t truncate(uint64_t bits, unsigned width) {
  return width >= 64 ? bits : bits & ((uint64_t(1) << width) - 1);
}
int64_t signExtend(uint64_t bits, unsigned width) {
  if (width >= 64)
    return static_cast<int64_t>(bits);
  uint64_t sign = uint64_t(1) << (width - 1);
  return static_cast<int64_t>((bits ^ sign) - sign);
}

llvm::Error failure(Operation *op, const llvm::Twine &message) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << op->getName() << ": " << message;
  return llvm::createStringError(llvm::inconvertibleErrorCode(), text);
}

/// PTX ISA, "Matrix Descriptor Format".
struct Descriptor {
  uint64_t startAddress, leadingByteOffset, strideByteOffset, baseOffset, swizzleMode;

  static Descriptor decode(uint64_t bits) {
    auto field = [&](unsigned low, unsigned width) {
      return (bits >> low) & ((uint64_t(1) << width) - 1);
    };
    return {field(0, 14) << 4, field(16, 14) << 4, field(32, 14) << 4, field(49, 3),
            field(62, 2)};
  }
  /// Bytes of one swizzled row: modes 1, 2, 3 are the 128, 64 and 32-byte swizzles.
  uint64_t swizzleBytes() const { return swizzleMode == 0 ? 0 : 256 >> swizzleMode; }
};

/// `wgmma.mma_async` with A in registers, as the inline PTX
/// `{ .reg .pred p; setp.ne.b32 p, S, 0; wgmma.mma_async.sync.aligned.m64nNkK
/// .f32.tf32.tf32 {$0, ...}, {$a, $b, $c, $d}, $desc, p, 1, 1; }` (the
/// 16-bit forms `.f32.f16.f16` and `.f32.bf16.bf16` end `p, 1, 1, T;`, T
/// whether B is N-major): the inline asm's input operands that carry the
/// accumulator (tied to the outputs, in order), the four A registers and the
/// B descriptor.
struct RegisterAWgmma {
  int64_t n = 0, k = 0;
  bool accumulate = true;
  /// 16-bit A and B (f16, or bf16 where `bf16`), B N-major where `bNMajor`.
  bool sixteenBit = false, bf16 = false, bNMajor = false;
  llvm::SmallVector<unsigned> acc, a;
  unsigned descriptor = 0;

  static std::optional<RegisterAWgmma> parse(LLVM::InlineAsmOp asmOp) {
    llvm::StringRef text = asmOp.getAsmString();
    RegisterAWgmma parsed;
    size_t setp = text.find("setp.ne.b32 p, ");
    if (setp == llvm::StringRef::npos)
      return std::nullopt;
    text = text.drop_front(setp + llvm::StringRef("setp.ne.b32 p, ").size());
    parsed.accumulate = text.consume_front("1, 0;");
    if (!parsed.accumulate && !text.consume_front("0, 0;"))
      return std::nullopt;
    text = text.ltrim();
    if (!text.consume_front("wgmma.mma_async.sync.aligned.m64n") ||
        text.consumeInteger(10, parsed.n) || !text.consume_front("k") ||
        text.consumeInteger(10, parsed.k))
      return std::nullopt;
    parsed.bf16 = text.consume_front(".f32.bf16.bf16 ");
    parsed.sixteenBit = parsed.bf16 || text.consume_front(".f32.f16.f16 ");
    if (!parsed.sixteenBit && !text.consume_front(".f32.tf32.tf32 "))
      return std::nullopt;
    unsigned outputs = parsed.n / 2;
    auto operandList = [&](llvm::SmallVector<unsigned> &into) {
      if (!text.consume_front("{"))
        return false;
      do {
        text = text.ltrim();
        unsigned index = 0;
        if (!text.consume_front("$") || text.consumeInteger(10, index))
          return false;
        into.push_back(index);
      } while (text.consume_front(","));
      return text.consume_front("}");
    };
    llvm::SmallVector<unsigned> d, a;
    if (!operandList(d) || !text.consume_front(", ") || !operandList(a) ||
        !text.consume_front(", $") || text.consumeInteger(10, parsed.descriptor) ||
        !text.consume_front(", p, 1, 1"))
      return std::nullopt;
    if (parsed.sixteenBit) {
      parsed.bNMajor = text.consume_front(", 1");
      if (!parsed.bNMajor && !text.consume_front(", 0"))
        return std::nullopt;
    }
    if (!text.consume_front(";"))
      return std::nullopt;
    // Outputs are $0 .. $(outputs - 1), inputs the numbers after them.
    llvm::SmallVector<llvm::StringRef> constraints;
    llvm::StringRef(asmOp.getConstraints()).split(constraints, ',');
    if (d.size() != outputs || a.size() != 4 || parsed.descriptor < outputs ||
        constraints.size() != outputs + asmOp.getOperands().size())
      return std::nullopt;
    for (unsigned i = 0; i < outputs; ++i) {
      if (d[i] != i || constraints[i] != "=f" ||
          constraints[outputs + i] != std::to_string(i))
        return std::nullopt;
      parsed.acc.push_back(i);
    }
    for (unsigned index : a) {
      if (index < outputs || constraints[index] != "r")
        return std::nullopt;
      parsed.a.push_back(index - outputs);
    }
    if (constraints[parsed.descriptor] != "l")
      return std::nullopt;
    parsed.descriptor -= outputs;
    return parsed;
  }
};

/// The swizzled shared-memory address: the 16-byte chunk bits of the address
/// XORed with the bits just above a 128-byte line (1, 2 or 3 of them).
uint64_t swizzle(uint64_t address, uint64_t swizzleBytes) {
  uint64_t chunkBits = (swizzleBytes / 16 - 1) << 4;
  return address ^ ((address >> 3) & chunkBits);
}

class Simulator {
public:
  Simulator(func::FuncOp function, const WarpgroupInputs &inputs)
      : function(function), inputs(inputs) {}

  llvm::Expected<WarpgroupOutputs> run() {
    Block &body = function.getBody().front();
    size_t accCount = inputs.acc.empty() ? 0 : inputs.acc.front().size();
    size_t aCount = inputs.aRegisters.empty() ? 0 : inputs.aRegisters.front().size();
    if (inputs.acc.size() != kWarpgroupThreads ||
        (aCount && inputs.aRegisters.size() != kWarpgroupThreads) ||
        body.getNumArguments() != 4 + accCount + aCount)
      return failure(function, "expected (lane, warp, aShared, bShared, acc..., a...) "
                               "arguments and an accumulator per thread");
    for (unsigned t = 0; t < kWarpgroupThreads; ++t) {
      set(body.getArgument(0), t, t % kThreadsPerWarp);
      set(body.getArgument(1), t, 4 * inputs.warpgroup + t / kThreadsPerWarp);
      for (unsigned r = 0; r < accCount; ++r)
        setNumber(body.getArgument(4 + r), t, inputs.acc[t][r]);
      for (unsigned r = 0; r < aCount; ++r)
        setNumber(body.getArgument(4 + accCount + r), t, inputs.aRegisters[t][r]);
    }
    for (Operation &op : body) {
      if (llvm::Error error = checkOperandsComplete(op))
        return std::move(error);
      if (llvm::Error error = step(op))
        return std::move(error);
      for (Value result : op.getResults())
        definedAt[result] = time;
      ++time;
    }
    return outputs;
  }

private:
  ThreadValues &resultOf(Value value) {
    ThreadValues &threads = values[value];
    threads.resize(kWarpgroupThreads);
    return threads;
  }
  void set(Value value, unsigned thread, uint64_t bits) {
    resultOf(value)[thread].bits = truncate(bits, widthOf(value.getType()));
  }
  const ThreadValue &get(Value value, unsigned thread) { return resultOf(value)[thread]; }
  double number(Value value, unsigned thread) {
    const ThreadValue &v = get(value, thread);
    if (isInteger(value.getType()))
      return static_cast<double>(signExtend(v.bits, widthOf(value.getType())));
    return v.elements.front();
  }
  void setNumber(Value value, unsigned thread, double number) {
    if (isInteger(value.getType()))
      set(value, thread, static_cast<uint64_t>(static_cast<int64_t>(number)));
    else
      resultOf(value)[thread].elements = {number};
  }

  /// `wgmma.wait_group.sync.aligned N; // wait K` as inline PTX: its group
  /// count, or -1 for any other inline assembly.
  static int64_t tiedWaitGroup(LLVM::InlineAsmOp asmOp) {
    llvm::StringRef text = asmOp.getAsmString();
    int64_t pending = -1;
    if (!text.consume_front("wgmma.wait_group.sync.aligned "))
      return -1;
    auto [count, numbered] = text.split(';');
    if (!numbered.ltrim().starts_with("// wait ") || count.getAsInteger(10, pending))
      return -1;
    return pending;
  }

  /// Only another wgmma may use a wgmma result that no wait_group covers;
  /// extractvalue and a tied wait pass its registers on (still in flight).
  llvm::Error checkOperandsComplete(Operation &op) {
    for (OpOperand &operand : op.getOpOperands()) {
      auto group = wgmmaGroup.find(operand.get());
      if (group == wgmmaGroup.end() || (group->second >= 0 && group->second < completedGroups))
        continue;
      auto wgmma = dyn_cast<NVVM::WgmmaMmaAsyncOp>(op);
      if (wgmma && operand.get() == wgmma.getInouts())
        continue;
      auto asmOp = dyn_cast<LLVM::InlineAsmOp>(op);
      if (isa<LLVM::ExtractValueOp>(op) || (asmOp && tiedWaitGroup(asmOp) >= 0))
        continue;
      if (std::optional<RegisterAWgmma> wgmma = asmOp ? RegisterAWgmma::parse(asmOp) : std::nullopt;
          wgmma && llvm::is_contained(wgmma->acc, operand.getOperandNumber()))
        continue;
      return failure(&op, "reads a wgmma accumulator before a commit_group and a wait_group "
                          "cover its wgmma");
    }
    return llvm::Error::success();
  }

  llvm::Error step(Operation &op) {
    return llvm::TypeSwitch<Operation *, llvm::Error>(&op)
        .Case<arith::ConstantOp>([&](arith::ConstantOp c) { return constant(c); })
        .Case<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtUIOp>([&](Operation *cast) {
          Value from = cast->getOperand(0);
          for (unsigned t = 0; t < kWarpgroupThreads; ++t) {
            uint64_t bits = get(from, t).bits;
            if (isa<arith::IndexCastOp>(cast))
              bits = static_cast<uint64_t>(signExtend(bits, widthOf(from.getType())));
            set(cast->getResult(0), t, bits);
          }
          return llvm::Error::success();
        })
        .Case<arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::AndIOp, arith::OrIOp,
              arith::XOrIOp, arith::ShLIOp, arith::ShRUIOp, arith::DivUIOp, arith::RemUIOp>(
            [&](Operation *binary) { return integerBinary(binary); })
        .Case<arith::AddFOp>([&](arith::AddFOp sum) -> llvm::Error {
          if (!sum.getType().isF32())
            return failure(sum, "only f32 additions are modelled");
          for (unsigned t = 0; t < kWarpgroupThreads; ++t)
            setNumber(sum.getResult(), t,
                      static_cast<float>(number(sum.getLhs(), t)) +
                          static_cast<float>(number(sum.getRhs(), t)));
          return llvm::Error::success();
        })
        .Case<memref::ExtractAlignedPointerAsIndexOp>(
            [&](memref::ExtractAlignedPointerAsIndexOp extract) -> llvm::Error {
              Block &body = function.getBody().front();
              Value source = extract.getSource();
              if (source != body.getArgument(2) && source != body.getArgument(3))
                return failure(extract, "only the two shared buffers have addresses");
              uint64_t address =
                  source == body.getArgument(2) ? inputs.aAddress : inputs.bAddress;
              for (unsigned t = 0; t < kWarpgroupThreads; ++t)
                set(extract.getResult(), t, address);
              return llvm::Error::success();
            })
        .Case<LLVM::PoisonOp, LLVM::UndefOp>([&](Operation *undefined) -> llvm::Error {
          // NaN shows any field (or float) that is read without having been
          // written.
          Type type = undefined->getResult(0).getType();
          if (!isa<LLVM::LLVMStructType>(type) && !type.isF32())
            return failure(undefined, "only undefined structs and f32 are modelled");
          for (ThreadValue &v : resultOf(undefined->getResult(0)))
            v.elements.assign(elementsOfValue(type), std::numeric_limits<double>::quiet_NaN());
          return llvm::Error::success();
        })
        .Case<memref::LoadOp>([&](memref::LoadOp load) { return sharedLoad(load); })
        .Case<arith::BitcastOp>([&](arith::BitcastOp cast) -> llvm::Error {
          if (!cast.getIn().getType().isF32() || !cast.getType().isInteger(32))
            return failure(cast, "only f32 to i32 is modelled");
          for (unsigned t = 0; t < kWarpgroupThreads; ++t)
            set(cast.getResult(), t,
                std::bit_cast<uint32_t>(static_cast<float>(number(cast.getIn(), t))));
          return llvm::Error::success();
        })
        // Fields are scalars or vectors, all of one type.
        .Case<LLVM::InsertValueOp>([&](LLVM::InsertValueOp insert) {
          int64_t width = elementsOf(insert.getValue().getType());
          int64_t first = insert.getPosition()[0] * width;
          for (unsigned t = 0; t < kWarpgroupThreads; ++t) {
            ThreadValue v = get(insert.getContainer(), t);
            const ThreadValue &field = get(insert.getValue(), t);
            for (int64_t i = 0; i < width; ++i)
              v.elements[first + i] = width == 1 ? number(insert.getValue(), t)
                                                 : field.elements[i];
            resultOf(insert.getResult())[t] = v;
          }
          return llvm::Error::success();
        })
        .Case<LLVM::ExtractValueOp>([&](LLVM::ExtractValueOp extract) {
          int64_t width = elementsOf(extract.getType());
          int64_t first = extract.getPosition()[0] * width;
          for (unsigned t = 0; t < kWarpgroupThreads; ++t) {
            const ThreadValue &container = get(extract.getContainer(), t);
            if (width == 1) {
              setNumber(extract.getResult(), t, container.elements[first]);
              continue;
            }
            resultOf(extract.getResult())[t].elements.assign(
                container.elements.begin() + first, container.elements.begin() + first + width);
          }
          if (auto group = wgmmaGroup.find(extract.getContainer()); group != wgmmaGroup.end())
            wgmmaGroup[extract.getResult()] = group->second;
          return llvm::Error::success();
        })
        .Case<vector::FromElementsOp>([&](vector::FromElementsOp pack) {
          for (unsigned t = 0; t < kWarpgroupThreads; ++t) {
            ThreadValue &v = resultOf(pack.getResult())[t];
            v.elements.clear();
            for (Value element : pack.getElements())
              v.elements.push_back(number(element, t));
          }
          return llvm::Error::success();
        })
        // Two 16-bit floats into one 32-bit word (a register-A fragment),
        // held as the word's value.
        .Case<vector::BitCastOp>([&](vector::BitCastOp cast) -> llvm::Error {
          VectorType from = cast.getSourceVectorType(), to = cast.getResultVectorType();
          if (from.getNumElements() != 2 || from.getElementTypeBitWidth() != 16 ||
              !isa<FloatType>(from.getElementType()) || to.getNumElements() != 1 ||
              !to.getElementType().isInteger(32))
            return failure(cast, "only two 16-bit floats into one i32 are modelled");
          for (unsigned t = 0; t < kWarpgroupThreads; ++t) {
            const ThreadValue &pair = get(cast.getSource(), t);
            uint64_t word = bitsOf16(pair.elements[0], from.getElementType()) |
                            bitsOf16(pair.elements[1], from.getElementType()) << 16;
            resultOf(cast.getResult())[t].elements = {static_cast<double>(word)};
          }
          return llvm::Error::success();
        })
        .Case<vector::ExtractOp>([&](vector::ExtractOp extract) -> llvm::Error {
          std::optional<int64_t> position =
              extract.hasDynamicPosition()
                  ? std::nullopt
                  : std::optional<int64_t>(extract.getStaticPosition().front());
          if (!position || extract.getStaticPosition().size() != 1)
            return failure(extract, "only one constant position is modelled");
          for (unsigned t = 0; t < kWarpgroupThreads; ++t)
            setNumber(extract.getResult(), t, get(extract.getSource(), t).elements[*position]);
          return llvm::Error::success();
        })
        .Case<LLVM::InlineAsmOp>([&](LLVM::InlineAsmOp asmOp) {
          if (std::optional<RegisterAWgmma> wgmma = RegisterAWgmma::parse(asmOp))
            return registerAMmaAsync(asmOp, *wgmma);
          return tiedWait(asmOp);
        })
        .Case<NVVM::FenceProxyOp>([&](NVVM::FenceProxyOp fence) {
          if (fence.getKind() == NVVM::ProxyKind::async_shared ||
              fence.getKind() == NVVM::ProxyKind::async)
            sharedFenced = true;
          return llvm::Error::success();
        })
        // The threads run in lock step, and shared memory is filled before.
        .Case<mlir::gpu::BarrierOp>([&](auto) { return llvm::Error::success(); })
        .Case<NVVM::WgmmaFenceAlignedOp>([&](auto) {
          lastRegisterFence = time;
          return llvm::Error::success();
        })
        .Case<NVVM::WgmmaMmaAsyncOp>([&](NVVM::WgmmaMmaAsyncOp wgmma) { return mmaAsync(wgmma); })
        .Case<NVVM::WgmmaGroupSyncAlignedOp>([&](auto) {
          for (auto &[value, group] : wgmmaGroup)
            if (group < 0)
              group = committedGroups;
          ++committedGroups;
          return llvm::Error::success();
        })
        .Case<NVVM::WgmmaWaitGroupSyncOp>([&](NVVM::WgmmaWaitGroupSyncOp wait) {
          int64_t stillPending = static_cast<int64_t>(wait.getGroup());
          completedGroups = std::max(completedGroups, committedGroups - stillPending);
          return llvm::Error::success();
        })
        .Case<func::ReturnOp>([&](func::ReturnOp ret) { return finish(ret); })
        .Default([&](Operation *other) { return failure(other, "not modelled by the simulator"); });
  }

  /// A wait_group whose outputs are its inputs (`=f,...,0,1,...`): the
  /// registers come out as they went in, in flight where the wait leaves
  /// their group running.
  llvm::Error tiedWait(LLVM::InlineAsmOp asmOp) {
    int64_t pending = tiedWaitGroup(asmOp);
    if (pending < 0 || !asmOp.getHasSideEffects())
      return failure(asmOp, "only wgmma.wait_group with side effects is modelled as inline PTX");
    size_t count = asmOp.getOperands().size();
    SmallVector<llvm::StringRef> constraints;
    llvm::StringRef(asmOp.getConstraints()).split(constraints, ',');
    auto structType = dyn_cast<LLVM::LLVMStructType>(asmOp.getRes().getType());
    bool tied = structType && structType.getBody().size() == count &&
                constraints.size() == 2 * count;
    for (size_t i = 0; tied && i < count; ++i)
      tied = (constraints[i] == "=f" || constraints[i] == "=r") &&
             constraints[count + i] == std::to_string(i);
    if (!tied)
      return failure(asmOp, "the wait does not tie each output to its input");
    completedGroups = std::max(completedGroups, committedGroups - pending);
    int64_t running = std::numeric_limits<int64_t>::max();
    for (Value operand : asmOp.getOperands())
      if (auto group = wgmmaGroup.find(operand);
          group != wgmmaGroup.end() && (group->second < 0 || group->second >= completedGroups))
        running = std::min(running, group->second);
    for (unsigned t = 0; t < kWarpgroupThreads; ++t) {
      ThreadValue &v = resultOf(asmOp.getRes())[t];
      v.elements.clear();
      for (Value operand : asmOp.getOperands()) {
        if (isa<VectorType>(operand.getType()))
          llvm::append_range(v.elements, get(operand, t).elements);
        else
          v.elements.push_back(number(operand, t));
      }
    }
    if (running != std::numeric_limits<int64_t>::max())
      wgmmaGroup[asmOp.getRes()] = running;
    return llvm::Error::success();
  }

  llvm::Error constant(arith::ConstantOp c) {
    for (unsigned t = 0; t < kWarpgroupThreads; ++t) {
      if (auto integer = dyn_cast<IntegerAttr>(c.getValue()))
        set(c.getResult(), t, integer.getValue().getZExtValue());
      else if (auto real = dyn_cast<FloatAttr>(c.getValue()))
        setNumber(c.getResult(), t, real.getValueAsDouble());
      else
        return failure(c, "only scalar constants are modelled");
    }
    return llvm::Error::success();
  }

  llvm::Error integerBinary(Operation *op) {
    Value lhs = op->getOperand(0), rhs = op->getOperand(1);
    for (unsigned t = 0; t < kWarpgroupThreads; ++t) {
      uint64_t x = get(lhs, t).bits, y = get(rhs, t).bits;
      if (isa<arith::DivUIOp, arith::RemUIOp>(op) && y == 0)
        return failure(op, "division by zero");
      uint64_t r = llvm::TypeSwitch<Operation *, uint64_t>(op)
                       .Case<arith::AddIOp>([&](auto) { return x + y; })
                       .Case<arith::SubIOp>([&](auto) { return x - y; })
                       .Case<arith::MulIOp>([&](auto) { return x * y; })
                       .Case<arith::AndIOp>([&](auto) { return x & y; })
                       .Case<arith::OrIOp>([&](auto) { return x | y; })
                       .Case<arith::XOrIOp>([&](auto) { return x ^ y; })
                       .Case<arith::ShLIOp>([&](auto) { return y >= 64 ? 0 : x << y; })
                       .Case<arith::ShRUIOp>([&](auto) { return y >= 64 ? 0 : x >> y; })
                       .Case<arith::DivUIOp>([&](auto) { return x / y; })
                       .Case<arith::RemUIOp>([&](auto) { return x % y; });
      set(op->getResult(0), t, r);
    }
    return llvm::Error::success();
  }

  /// The element at shared-memory byte address `address`.
  llvm::Expected<double> sharedElement(Operation *op, uint64_t address) {
    uint64_t bytes = inputs.elementBytes;
    for (auto [start, buffer] : {std::pair{inputs.aAddress, &inputs.aShared},
                                 std::pair{inputs.bAddress, &inputs.bShared}}) {
      if (address < start || address >= start + buffer->size() * bytes)
        continue;
      if ((address - start) % bytes != 0)
        return failure(op, llvm::formatv("reads address {0}, inside an element", address));
      return (*buffer)[(address - start) / bytes];
    }
    return failure(op, llvm::formatv("reads address {0}, outside both shared buffers", address));
  }

  /// The `rows` x `k` operand the descriptor describes, as rows of k (PTX
  /// ISA, canonical layouts with 32/64/128-byte swizzle, in bytes). K-major:
  /// row r at start + (r / 8) * SBO + (r % 8) * swizzle width, K contiguous
  /// within it. MN-major (transposed): K index kk at start + (kk / 8) * SBO +
  /// (kk % 8) * swizzle width, holding one swizzle width of rows; the next
  /// rows LBO further. Then the address is swizzled.
  llvm::Expected<std::vector<double>> readOperand(Operation *op, uint64_t bits, int64_t rows,
                                                  int64_t k, bool mnMajor) {
    Descriptor descriptor = Descriptor::decode(bits);
    if (descriptor.swizzleMode == 0)
      return failure(op, "only the swizzled layouts are modelled");
    if (descriptor.baseOffset != 0)
      return failure(op, "a non-zero matrix base offset is not modelled");
    uint64_t lineBytes = descriptor.swizzleBytes();
    uint64_t bytes = inputs.elementBytes;
    if (!mnMajor && static_cast<uint64_t>(k) * bytes > lineBytes)
      return failure(op, "the instruction's K is wider than a swizzled row");
    std::vector<double> matrix(rows * k);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t kk = 0; kk < k; ++kk) {
        uint64_t line = mnMajor ? kk : r, along = (mnMajor ? r : kk) * bytes;
        uint64_t address = descriptor.startAddress + (line / 8) * descriptor.strideByteOffset +
                           (line % 8) * lineBytes + (along / lineBytes) * descriptor.leadingByteOffset +
                           along % lineBytes;
        if (!mnMajor && along >= lineBytes)
          return failure(op, "a K-major row is read past its swizzled line");
        llvm::Expected<double> element = sharedElement(op, swizzle(address, lineBytes));
        if (!element)
          return element.takeError();
        matrix[r * k + kk] = *element;
      }
    return matrix;
  }

  /// An ordinary load of an element of one of the two buffers, by index.
  llvm::Error sharedLoad(memref::LoadOp load) {
    Block &body = function.getBody().front();
    Value source = load.getMemRef();
    if ((source != body.getArgument(2) && source != body.getArgument(3)) ||
        load.getIndices().size() != 1)
      return failure(load, "only loads of the two shared buffers are modelled");
    const std::vector<double> &buffer =
        source == body.getArgument(2) ? inputs.aShared : inputs.bShared;
    for (unsigned t = 0; t < kWarpgroupThreads; ++t) {
      uint64_t index = get(load.getIndices()[0], t).bits;
      if (index >= buffer.size())
        return failure(load, llvm::formatv("thread {0} loads element {1} of {2}", t, index,
                                           buffer.size()));
      setNumber(load.getResult(), t, buffer[index]);
    }
    return llvm::Error::success();
  }

  llvm::Expected<uint64_t> uniformDescriptor(Operation *wgmma, Value descriptor) {
    uint64_t bits = get(descriptor, 0).bits;
    for (unsigned t = 1; t < kWarpgroupThreads; ++t)
      if (get(descriptor, t).bits != bits)
        return failure(wgmma, llvm::formatv("thread {0} gives another descriptor than thread 0", t));
    return bits;
  }

  /// Whether `value`, which a wgmma reads as a register, was written before
  /// the last wgmma.fence (or is a wgmma result, which the fence need not
  /// cover).
  bool fencedForWgmma(Value value) {
    return wgmmaGroup.count(value) ||
           (lastRegisterFence >= 0 && definedAt[value] <= lastRegisterFence);
  }

  /// D = A B (+ D where `accumulate`) for an m64nNkK instruction: `a` its
  /// rows of K, `bColumns` B's columns of K, `accIn(t, i)` register i of
  /// thread t, placed with the ISA's D fragment; the registers of `result`.
  void multiplyAccumulate(const std::vector<double> &a, const std::vector<double> &bColumns,
                          int64_t n, int64_t k, bool accumulate,
                          llvm::function_ref<double(unsigned, unsigned)> accIn, Value result,
                          bool halfAccumulator = false) {
    constexpr int64_t m = 64;
    unsigned fields = n / 2;
    std::vector<double> d(m * n, 0);
    for (unsigned t = 0; t < kWarpgroupThreads; ++t)
      for (unsigned i = 0; i < fields; ++i) {
        auto [row, col] = fragmentD(t, i);
        d[row * n + col] = accumulate ? accIn(t, i) : 0;
      }
    for (int64_t row = 0; row < m; ++row)
      for (int64_t col = 0; col < n; ++col)
        for (int64_t kk = 0; kk < k; ++kk)
          d[row * n + col] += a[row * k + kk] * bColumns[col * k + kk];
    ThreadValues &values = resultOf(result);
    for (unsigned t = 0; t < kWarpgroupThreads; ++t) {
      values[t].elements.resize(fields);
      for (unsigned i = 0; i < fields; ++i) {
        auto [row, col] = fragmentD(t, i);
        values[t].elements[i] = halfAccumulator ? roundToHalf(d[row * n + col]) : d[row * n + col];
      }
    }
    wgmmaGroup[result] = -1;
  }

  // PTX ISA, "Register Fragments" for wgmma .m64nNk8 A (.tf32): thread t of
  // the warpgroup (warp w = t / 32, lane l) holds a_i at row
  // 16w + l / 4 + 8 * (i % 2), column l % 4 + 4 * (i / 2).
  static std::pair<int64_t, int64_t> fragmentA(unsigned thread, unsigned i) {
    unsigned warp = thread / kThreadsPerWarp, lane = thread % kThreadsPerWarp;
    return {16 * warp + lane / 4 + 8 * (i % 2), lane % 4 + 4 * (i / 2)};
  }

  // PTX ISA, "Register Fragments" for wgmma .m64nNk16 A (.f16, .bf16):
  // thread t holds a_i, two elements, at row 16w + l / 4 + 8 * (i % 2),
  // columns 8 * (i / 2) + 2 * (l % 4) and the next (the low half first).
  static std::pair<int64_t, int64_t> fragmentA16(unsigned thread, unsigned i) {
    unsigned warp = thread / kThreadsPerWarp, lane = thread % kThreadsPerWarp;
    return {16 * warp + lane / 4 + 8 * (i % 2), 8 * (i / 2) + 2 * (lane % 4)};
  }

  llvm::Error registerAMmaAsync(LLVM::InlineAsmOp asmOp, const RegisterAWgmma &wgmma) {
    ++outputs.wgmmaCount;
    if (!asmOp.getHasSideEffects())
      return failure(asmOp, "a wgmma without side effects may be moved or dropped");
    if (!sharedFenced)
      return failure(asmOp, "reads shared memory written by ordinary stores without a "
                            "fence.proxy.async before it");
    bool tf32 = !wgmma.sixteenBit && wgmma.k == 8 && inputs.elementBytes == 4;
    bool halves = wgmma.sixteenBit && wgmma.k == 16 && inputs.elementBytes == 2;
    if (!tf32 && !halves)
      return failure(asmOp, "only tf32 (k8) and 16-bit (k16) are modelled with A in registers");
    auto operand = [&](unsigned index) { return asmOp.getOperands()[index]; };
    for (unsigned index : wgmma.acc)
      if (!fencedForWgmma(operand(index)))
        return failure(asmOp, "uses accumulator registers written after the last wgmma.fence");
    for (unsigned index : wgmma.a)
      if (!fencedForWgmma(operand(index)))
        return failure(asmOp, "uses A registers written after the last wgmma.fence");
    llvm::Expected<uint64_t> bBits = uniformDescriptor(asmOp, operand(wgmma.descriptor));
    if (!bBits)
      return bBits.takeError();
    llvm::Expected<std::vector<double>> bColumns =
        readOperand(asmOp, *bBits, wgmma.n, wgmma.k, /*mnMajor=*/wgmma.bNMajor);
    if (!bColumns)
      return bColumns.takeError();
    std::vector<double> a(64 * wgmma.k, std::numeric_limits<double>::quiet_NaN());
    for (unsigned t = 0; t < kWarpgroupThreads; ++t)
      for (unsigned i = 0; i < wgmma.a.size(); ++i) {
        uint64_t bits = get(operand(wgmma.a[i]), t).bits;
        if (halves) {
          auto [row, col] = fragmentA16(t, i);
          a[row * wgmma.k + col] = valueOf16(bits, wgmma.bf16);
          a[row * wgmma.k + col + 1] = valueOf16(bits >> 16, wgmma.bf16);
          continue;
        }
        auto [row, col] = fragmentA(t, i);
        a[row * wgmma.k + col] = std::bit_cast<float>(static_cast<uint32_t>(bits));
      }
    multiplyAccumulate(
        a, *bColumns, wgmma.n, wgmma.k, wgmma.accumulate,
        [&](unsigned t, unsigned i) { return number(operand(wgmma.acc[i]), t); },
        asmOp.getRes());
    return llvm::Error::success();
  }

  // PTX ISA, "Register Fragments" for wgmma .m64nN D (f32 and s32): thread t
  // of the warpgroup (warp w = t / 32, lane l) holds d_i at row
  // 16w + l / 4 + 8 * ((i / 2) % 2), column 8 * (i / 4) + 2 * (l % 4) + i % 2.
  static std::pair<int64_t, int64_t> fragmentD(unsigned thread, unsigned i) {
    unsigned warp = thread / kThreadsPerWarp, lane = thread % kThreadsPerWarp;
    return {16 * warp + lane / 4 + 8 * ((i / 2) % 2), 8 * (i / 4) + 2 * (lane % 4) + i % 2};
  }

  llvm::Error mmaAsync(NVVM::WgmmaMmaAsyncOp wgmma) {
    ++outputs.wgmmaCount;
    if (!sharedFenced)
      return failure(wgmma, "reads shared memory written by ordinary stores without a "
                            "fence.proxy.async before it");
    Value inouts = wgmma.getInouts();
    if (!fencedForWgmma(inouts))
      return failure(wgmma, "uses accumulator registers written after the last wgmma.fence");
    NVVM::WGMMATypes type = wgmma.getTypeA();
    bool bMnMajor = wgmma.getLayoutB() == NVVM::MMALayout::row;
    if (wgmma.getLayoutA() != NVVM::MMALayout::row)
      return failure(wgmma, "a transposed A is not modelled");
    if (bMnMajor && type != NVVM::WGMMATypes::f16 && type != NVVM::WGMMATypes::bf16)
      return failure(wgmma, "only 16-bit types may be transposed (PTX ISA)");
    unsigned bytes = type == NVVM::WGMMATypes::f16 || type == NVVM::WGMMATypes::bf16 ? 2
                     : type == NVVM::WGMMATypes::tf32                                ? 4
                     : type == NVVM::WGMMATypes::s8 || type == NVVM::WGMMATypes::e4m3 ||
                             type == NVVM::WGMMATypes::e5m2
                         ? 1
                         : 0;
    auto isFp8 = [](NVVM::WGMMATypes t) {
      return t == NVVM::WGMMATypes::e4m3 || t == NVVM::WGMMATypes::e5m2;
    };
    bool sameOrFp8Pair = wgmma.getTypeB() == type || (isFp8(type) && isFp8(wgmma.getTypeB()));
    if (bytes != inputs.elementBytes || !sameOrFp8Pair)
      return failure(wgmma, "operand types are not modelled or do not match the buffers");
    int64_t m = wgmma.getShape().getM(), n = wgmma.getShape().getN(), k = wgmma.getShape().getK();
    if (m != 64 || k * bytes != 32)
      return failure(wgmma, "shape is not m64 with 32 bytes of K");
    // PTX ISA: N / 2 f32 or s32 registers, or N / 4 f16x2 registers that
    // hold d_i and d_{i+1} of the same fragment.
    bool half = wgmma.getTypeD() == NVVM::WGMMATypes::f16;
    ArrayRef<Type> fields = cast<LLVM::LLVMStructType>(inouts.getType()).getBody();
    Type register32 = half ? Type(VectorType::get({2}, Float16Type::get(wgmma.getContext())))
                           : fields.front();
    if (static_cast<int64_t>(fields.size()) != n / (half ? 4 : 2) ||
        !llvm::all_equal(fields) || fields.front() != register32)
      return failure(wgmma, half ? "the accumulator struct is not N / 4 f16x2 registers"
                                 : "the accumulator struct is not N / 2 registers");

    llvm::Expected<uint64_t> aBits = uniformDescriptor(wgmma, wgmma.getDescriptorA());
    if (!aBits)
      return aBits.takeError();
    llvm::Expected<uint64_t> bBits = uniformDescriptor(wgmma, wgmma.getDescriptorB());
    if (!bBits)
      return bBits.takeError();
    llvm::Expected<std::vector<double>> a = readOperand(wgmma, *aBits, m, k, /*mnMajor=*/false);
    if (!a)
      return a.takeError();
    // B [K, N] read as its N columns of K either way.
    llvm::Expected<std::vector<double>> bColumns = readOperand(wgmma, *bBits, n, k, bMnMajor);
    if (!bColumns)
      return bColumns.takeError();

    if (wgmma.getScaleA() == NVVM::WGMMAScaleIn::neg)
      for (double &element : *a)
        element = -element;
    if (wgmma.getScaleB() == NVVM::WGMMAScaleIn::neg)
      for (double &element : *bColumns)
        element = -element;
    multiplyAccumulate(
        *a, *bColumns, n, k, wgmma.getScaleD() == NVVM::WGMMAScaleOut::one,
        [&](unsigned t, unsigned i) { return get(inouts, t).elements[i]; }, wgmma.getResult(),
        half);
    return llvm::Error::success();
  }

  llvm::Error finish(func::ReturnOp ret) {
    for (auto &[value, group] : wgmmaGroup)
      if (group < 0 || group >= completedGroups)
        return failure(ret, "returns while a wgmma is still in flight");
    outputs.acc.assign(kWarpgroupThreads, {});
    for (Value operand : ret.getOperands())
      for (unsigned t = 0; t < kWarpgroupThreads; ++t)
        outputs.acc[t].push_back(number(operand, t));
    return llvm::Error::success();
  }

  func::FuncOp function;
  const WarpgroupInputs &inputs;
  llvm::DenseMap<Value, ThreadValues> values;
  llvm::DenseMap<Value, int64_t> definedAt;
  /// The commit group of every wgmma result: -1 before its commit_group.
  llvm::DenseMap<Value, int64_t> wgmmaGroup;
  int64_t committedGroups = 0, completedGroups = 0;
  int64_t time = 0, lastRegisterFence = -1;
  bool sharedFenced = false;
  WarpgroupOutputs outputs;
};

} // namespace

llvm::Expected<WarpgroupOutputs> simulateWarpgroup(func::FuncOp function,
                                                   const WarpgroupInputs &inputs) {
  return Simulator(function, inputs).run();
}

} // namespace tessera::gpu::testing
