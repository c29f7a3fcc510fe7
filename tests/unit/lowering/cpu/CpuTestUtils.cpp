#include "CpuTestUtils.h"

#include "ir/TileDialect.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/TargetSelect.h"

#include <cmath>
#include <cstring>

namespace tessera::cpu::testing {

int assertFailures = 0;
std::string lastAssertMessage;

} // namespace tessera::cpu::testing

/// The runtime hook of tile.assert, exported from the test binary for the JIT.
extern "C" __attribute__((visibility("default"))) void __tessera_assert_fail(const char *msg, const char *file, int line) {
  using namespace tessera::cpu::testing;
  ++assertFailures;
  lastAssertMessage = std::string(msg) + " at " + file + ":" + std::to_string(line);
}

namespace tessera::cpu::testing {

CpuTest::CpuTest() {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  mlir::registerBuiltinDialectTranslation(context);
  mlir::registerLLVMDialectTranslation(context);
}

CpuTarget avx2Target() {
  CpuTarget target;
  target.triple = "x86_64-unknown-linux-gnu";
  target.cpu = "haswell";
  target.features = "+avx,+avx2,+fma,+f16c,+sse4.2,+popcnt,+bmi,+bmi2";
  target.vectorBits = 256;
  return target;
}

std::string CpuTest::compile(mlir::ModuleOp module, llvm::StringRef kernel,
                             CompiledKernel &compiled, const CpuTarget &target) {
  std::string errors;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &diag) {
    errors += diag.str() + "\n";
    return mlir::success();
  });
  auto func = module.lookupSymbol<tile::FuncOp>(kernel);
  if (!func)
    return "no kernel named " + kernel.str();
  compiled.argumentTypes.assign(func.getArgumentTypes().begin(), func.getArgumentTypes().end());
  mlir::OwningOpRef<mlir::ModuleOp> clone(module.clone());
  if (mlir::failed(lowerTileToLLVM(*clone, target)))
    return "lowering failed: " + errors;
  static auto transformer = mlir::makeOptimizingTransformer(3, 0, nullptr);
  mlir::ExecutionEngineOptions options;
  options.transformer = transformer;
  options.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Aggressive;
  auto engine = mlir::ExecutionEngine::create(*clone, options);
  if (!engine)
    return "JIT failed: " + llvm::toString(engine.takeError()) + errors;
  compiled.engine = std::move(*engine);
  auto entry = compiled.engine->lookup((kernel + "__grid_entry").str());
  if (!entry)
    return "no grid entry: " + llvm::toString(entry.takeError());
  compiled.entry = reinterpret_cast<CompiledKernel::Entry>(*entry);
  return "";
}

void CpuTest::launch(const CompiledKernel &kernel, llvm::ArrayRef<KernelArgument> args,
                     GridSize grid) {
  ASSERT_EQ(args.size(), kernel.argumentTypes.size());
  // One 8-byte slot per argument, holding the value in its C type.
  std::vector<uint64_t> slots(args.size(), 0);
  std::vector<void *> pointers(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    mlir::Type type = kernel.argumentTypes[i];
    void *slot = &slots[i];
    const KernelArgument &arg = args[i];
    if (isa<tile::PointerType>(type)) {
      std::memcpy(slot, &arg.data, sizeof(void *));
    } else if (type.isInteger(1)) {
      uint8_t v = arg.intValue != 0;
      std::memcpy(slot, &v, 1);
    } else if (type.isInteger(64)) {
      int64_t v = arg.intValue;
      std::memcpy(slot, &v, 8);
    } else if (type.isInteger()) {
      int32_t v = static_cast<int32_t>(arg.intValue);
      std::memcpy(slot, &v, 4);
    } else if (type.isF64()) {
      std::memcpy(slot, &arg.floatValue, 8);
    } else if (type.isF32()) {
      float v = static_cast<float>(arg.floatValue);
      std::memcpy(slot, &v, 4);
    } else {
      uint16_t v = interp::testing::toHalf(arg.floatValue);
      std::memcpy(slot, &v, 2);
    }
    pointers[i] = slot;
  }
  for (unsigned z = 0; z < grid.z; ++z)
    for (unsigned y = 0; y < grid.y; ++y)
      for (unsigned x = 0; x < grid.x; ++x)
        kernel.entry(pointers.data(), x, y, z, grid.x, grid.y, grid.z);
}

namespace {
double elementAt(const uint8_t *data, mlir::Type type, size_t i) {
  if (type.isF32()) {
    float v;
    std::memcpy(&v, data + 4 * i, 4);
    return v;
  }
  if (type.isF64()) {
    double v;
    std::memcpy(&v, data + 8 * i, 8);
    return v;
  }
  if (type.isF16()) {
    uint16_t v;
    std::memcpy(&v, data + 2 * i, 2);
    return interp::testing::fromHalf(v);
  }
  unsigned bytes = std::max(1u, type.getIntOrFloatBitWidth() / 8);
  int64_t v = 0;
  std::memcpy(&v, data + bytes * i, bytes);
  if (bytes < 8 && (v >> (8 * bytes - 1)) & 1)
    v |= ~((int64_t{1} << (8 * bytes)) - 1);
  return static_cast<double>(v);
}
} // namespace

void CpuTest::expectSameAsInterpreter(mlir::ModuleOp module, llvm::StringRef kernel,
                                      llvm::ArrayRef<KernelArgument> args, GridSize grid,
                                      double rtol, double atol, const CpuTarget &target) {
  CompiledKernel compiled;
  ASSERT_EQ(compile(module, kernel, compiled, target), "");
  // The interpreter runs on copies of the buffers.
  std::vector<std::vector<uint8_t>> copies;
  copies.reserve(args.size());
  std::vector<KernelArgument> interpArgs(args.begin(), args.end());
  for (KernelArgument &arg : interpArgs)
    if (arg.kind == KernelArgument::Kind::Buffer) {
      copies.emplace_back(static_cast<uint8_t *>(arg.data),
                          static_cast<uint8_t *>(arg.data) + arg.bytes);
      arg.data = copies.back().data();
    }
  if (llvm::Error error = interp::runKernel(module, kernel, interpArgs, grid))
    FAIL() << "interpreter: " << llvm::toString(std::move(error));
  launch(compiled, args, grid);
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].kind != KernelArgument::Kind::Buffer)
      continue;
    mlir::Type element = cast<tile::PointerType>(compiled.argumentTypes[i]).getPointeeType();
    unsigned bytes = std::max(1u, element.getIntOrFloatBitWidth() / 8);
    size_t n = args[i].bytes / bytes;
    std::vector<double> cpu(n), ref(n);
    for (size_t j = 0; j < n; ++j) {
      cpu[j] = elementAt(static_cast<uint8_t *>(args[i].data), element, j);
      ref[j] = elementAt(static_cast<uint8_t *>(interpArgs[i].data), element, j);
      if (std::isnan(cpu[j]) && std::isnan(ref[j]))
        cpu[j] = ref[j] = 0; // NaN where the interpreter has NaN
    }
    SCOPED_TRACE("buffer argument #" + std::to_string(i));
    interp::testing::expectClose(cpu, ref, rtol, atol);
  }
}

} // namespace tessera::cpu::testing
