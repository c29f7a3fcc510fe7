// tessera-nvvm-byte-to-float run on the host: its output for every byte value,
// with each nvvm.prmt replaced by a call to a model of PTX's prmt, lowered to
// LLVM and JIT-compiled, against APFloat's conversion of the integer.
#include "lowering/gpu/nvidia/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/Support/TargetSelect.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

/// PTX's prmt.b32 in its default mode (PTX ISA, "prmt"): byte i of the
/// result is the byte of {hi, lo} that nibble i of the selector names, or
/// that byte's sign bit replicated where the nibble's high bit is set.
extern "C" __attribute__((visibility("default"))) uint32_t
tessera_test_prmt(uint32_t lo, uint32_t hi, uint32_t selector) {
  uint64_t pool = uint64_t(hi) << 32 | lo;
  uint32_t result = 0;
  for (int i = 0; i < 4; ++i) {
    uint32_t nibble = selector >> (4 * i) & 0xF;
    uint32_t byte = pool >> (8 * (nibble & 7)) & 0xFF;
    if (nibble & 8)
      byte = byte & 0x80 ? 0xFF : 0;
    result |= byte << (8 * i);
  }
  return result;
}

namespace {

using namespace mlir;

struct Conversion {
  const char *op;      // arith.sitofp or arith.uitofp
  const char *type;    // f16, bf16 or f32
  const llvm::fltSemantics &semantics;
};

/// A function converting the 16 bytes at its first argument, in `order`,
/// into 16 values at its second; each byte straight from the loaded vector,
/// or (`loose`) passed through an addition first. The last byte converts
/// with `lastOp`, so that a conversion is left without a partner where it
/// differs from `op`.
std::string convertingFunction(const Conversion &conversion, const char *lastOp,
                               const std::vector<int> &order, bool loose) {
  std::string text =
      "llvm.func @tessera_test_prmt(i32, i32, i32) -> i32\n"
      "func.func @convert(%src: !llvm.ptr, %dst: !llvm.ptr) {\n"
      "  %bytes = llvm.load %src {alignment = 1 : i64} : !llvm.ptr -> vector<16xi8>\n"
      "  %zero = arith.constant 0 : i8\n";
  for (int index : order) {
    std::string i = std::to_string(index);
    text += "  %e" + i + " = vector.extract %bytes[" + i + "] : i8 from vector<16xi8>\n";
    std::string byte = "%e" + i;
    if (loose) {
      text += "  %l" + i + " = arith.addi %e" + i + ", %zero : i8\n";
      byte = "%l" + i;
    }
    const char *op = index == 15 ? lastOp : conversion.op;
    text += "  %v" + i + " = " + op + " " + byte + " : i8 to " + conversion.type + "\n";
  }
  text += "  %values = vector.from_elements ";
  for (int i = 0; i < 16; ++i)
    text += (i ? ", %v" : "%v") + std::to_string(i);
  text += std::string(" : vector<16x") + conversion.type + ">\n";
  text += std::string("  llvm.store %values, %dst {alignment = 1 : i64} : vector<16x") +
          conversion.type +
          ">, !llvm.ptr\n  return\n}\n";
  return text;
}

class ByteToFloatTest : public ::testing::Test {
protected:
  ByteToFloatTest() {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    context.loadDialect<func::FuncDialect, arith::ArithDialect, vector::VectorDialect,
                        LLVM::LLVMDialect, NVVM::NVVMDialect>();
    registerBuiltinDialectTranslation(context);
    registerLLVMDialectTranslation(context);
  }

  /// The pass's output for `text`, its prmts calls to the model, compiled
  /// for the host; "" or what failed.
  std::string compile(const std::string &text, bool bf16Subtraction,
                      std::unique_ptr<ExecutionEngine> &engine, int &permutes) {
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
    if (!module)
      return "does not parse:\n" + text;
    PassManager convert(&context);
    tessera::gpu::TesseraNvvmByteToFloatOptions options;
    options.bf16Subtraction = bf16Subtraction;
    convert.addPass(tessera::gpu::createTesseraNvvmByteToFloat(options));
    if (failed(convert.run(*module)))
      return "the pass failed";
    permutes = 0;
    bool leftOver = false;
    module->walk([&](Operation *op) {
      if (auto permute = dyn_cast<NVVM::PermuteOp>(op)) {
        OpBuilder b(permute);
        auto call = LLVM::CallOp::create(
            b, permute.getLoc(), TypeRange{b.getI32Type()}, "tessera_test_prmt",
            ValueRange{permute.getLo(), permute.getHi(), permute.getSelector()});
        permute.replaceAllUsesWith(call.getResult());
        permute.erase();
        ++permutes;
      } else if (isa<arith::SIToFPOp, arith::UIToFPOp>(op)) {
        leftOver = true;
      }
    });
    if (leftOver)
      return "a conversion of a byte is left";
    PassManager lower(&context);
    // The host has no bf16 arithmetic (nor libgcc's __truncsfbf2): a bf16
    // subtraction as f32 and MLIR's own round-to-nearest-even into bf16.
    arith::ArithEmulateUnsupportedFloatsOptions emulate;
    emulate.sourceTypeStrs = {"bf16"};
    lower.addPass(arith::createArithEmulateUnsupportedFloats(emulate));
    arith::ArithExpandOpsPassOptions expand;
    expand.includeBf16 = true;
    lower.addPass(arith::createArithExpandOpsPass(expand));
    lower.addPass(createConvertVectorToLLVMPass());
    lower.addPass(createArithToLLVMConversionPass());
    lower.addPass(createConvertFuncToLLVMPass());
    lower.addPass(createReconcileUnrealizedCastsPass());
    if (failed(lower.run(*module)))
      return "lowering to LLVM failed";
    ExecutionEngineOptions engineOptions;
    engineOptions.transformer = transformer;
    auto created = ExecutionEngine::create(*module, engineOptions);
    if (!created)
      return "JIT failed: " + llvm::toString(created.takeError());
    engine = std::move(*created);
    return "";
  }

  /// Every byte value through `conversion` in 16-byte groups, each element
  /// compared bit for bit with APFloat's exact conversion.
  void expectExact(const Conversion &conversion, const char *lastOp, std::vector<int> order,
                   bool loose, bool bf16Subtraction = false) {
    std::unique_ptr<ExecutionEngine> engine;
    int permutes = 0;
    std::string text = convertingFunction(conversion, lastOp, order, loose);
    std::string failure = compile(text, bf16Subtraction, engine, permutes);
    ASSERT_EQ(failure, "");
    EXPECT_GT(permutes, 0);
    auto symbol = engine->lookup("convert");
    ASSERT_TRUE(bool(symbol)) << llvm::toString(symbol.takeError());
    auto convert = reinterpret_cast<void (*)(const void *, void *)>(*symbol);
    unsigned width = llvm::APFloat::getSizeInBits(conversion.semantics);
    for (int group = 0; group < 16; ++group) {
      uint8_t bytes[16];
      for (int i = 0; i < 16; ++i)
        bytes[i] = uint8_t(group * 16 + i);
      uint8_t out[64] = {};
      convert(bytes, out);
      for (int i = 0; i < 16; ++i) {
        bool isSigned = std::string(i == 15 ? lastOp : conversion.op) == "arith.sitofp";
        llvm::APFloat expected(conversion.semantics);
        expected.convertFromAPInt(llvm::APInt(8, bytes[i]), isSigned,
                                  llvm::APFloat::rmNearestTiesToEven);
        uint32_t got = 0;
        std::memcpy(&got, out + i * width / 8, width / 8);
        EXPECT_EQ(got, expected.bitcastToAPInt().getZExtValue())
            << conversion.op << " to " << conversion.type << " of byte " << int(bytes[i])
            << " (element " << i << (loose ? ", loose" : "")
            << (bf16Subtraction ? ", bf16 subtraction" : "") << ")";
      }
    }
  }

  MLIRContext context;
  std::function<llvm::Error(llvm::Module *)> transformer =
      makeOptimizingTransformer(2, 0, nullptr);
};

const Conversion kConversions[] = {
    {"arith.sitofp", "f16", llvm::APFloat::IEEEhalf()},
    {"arith.uitofp", "f16", llvm::APFloat::IEEEhalf()},
    {"arith.sitofp", "bf16", llvm::APFloat::BFloat()},
    {"arith.uitofp", "bf16", llvm::APFloat::BFloat()},
    {"arith.sitofp", "f32", llvm::APFloat::IEEEsingle()},
    {"arith.uitofp", "f32", llvm::APFloat::IEEEsingle()},
};

std::vector<int> inOrder() {
  std::vector<int> order(16);
  for (int i = 0; i < 16; ++i)
    order[i] = i;
  return order;
}

TEST_F(ByteToFloatTest, BytesOfOneWordConvertInPairs) {
  for (const Conversion &conversion : kConversions)
    expectExact(conversion, conversion.op, inOrder(), false);
}

// Each pair's two bytes in different words; pairs within a word with the
// later byte first.
const std::vector<int> kAcrossWords = {0, 5, 10, 15, 4, 9, 14, 3, 8, 13, 2, 7, 12, 1, 6, 11};

std::vector<int> reversed() {
  std::vector<int> order = inOrder();
  std::reverse(order.begin(), order.end());
  return order;
}

TEST_F(ByteToFloatTest, PairsAcrossWordsAndInReverse) {
  for (const Conversion &conversion : kConversions) {
    expectExact(conversion, conversion.op, kAcrossWords, false);
    expectExact(conversion, conversion.op, reversed(), false);
  }
}

TEST_F(ByteToFloatTest, SignedBytesToBf16BySubtractingPairs) {
  const Conversion &toBf16 = kConversions[2];
  ASSERT_EQ(std::string(toBf16.op) + " " + toBf16.type, "arith.sitofp bf16");
  for (const std::vector<int> &order : {inOrder(), kAcrossWords, reversed()})
    expectExact(toBf16, toBf16.op, order, false, true);
  expectExact(toBf16, toBf16.op, inOrder(), true, true);
  // The last byte unsigned: through f32 beside the pairs.
  expectExact(toBf16, "arith.uitofp", inOrder(), false, true);
}

TEST_F(ByteToFloatTest, BytesNotFromAVectorAndConversionsWithoutAPartner) {
  for (const Conversion &conversion : kConversions) {
    const char *other =
        std::string(conversion.op) == "arith.sitofp" ? "arith.uitofp" : "arith.sitofp";
    expectExact(conversion, conversion.op, inOrder(), true);
    expectExact(conversion, other, inOrder(), false);
  }
}

} // namespace
