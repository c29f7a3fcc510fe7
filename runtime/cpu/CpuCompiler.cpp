#include "runtime/cpu/CpuCompiler.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ExecutionEngine/Orc/AbsoluteSymbols.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <vector>

using namespace tessera::runtime::cpu;

namespace {

void initializeNativeTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
  });
}

llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createTargetMachine(const TargetDescription &target, unsigned optLevel) {
  initializeNativeTarget();
  llvm::Triple triple(target.triple);
  std::string error;
  const llvm::Target *llvmTarget = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!llvmTarget)
    return makeError("no LLVM target for triple '" + target.triple + "': " + error);
  llvm::CodeGenOptLevel level = optLevel >= 3   ? llvm::CodeGenOptLevel::Aggressive
                                : optLevel == 2 ? llvm::CodeGenOptLevel::Default
                                : optLevel == 1 ? llvm::CodeGenOptLevel::Less
                                                : llvm::CodeGenOptLevel::None;
  llvm::TargetOptions options;
  std::unique_ptr<llvm::TargetMachine> machine(llvmTarget->createTargetMachine(
      triple, target.cpu, target.features, options, llvm::Reloc::PIC_, llvm::CodeModel::Small,
      level));
  if (!machine)
    return makeError("cannot create a target machine for " + target.str());
  return machine;
}

/// Translation interfaces of every dialect that can appear in lowered code
/// (llvm, builtin, and the intrinsic dialects x86vector & co. lower into).
/// Appending to a context's registry is not thread-safe: done under a lock.
void registerTranslations(mlir::MLIRContext &context) {
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  mlir::DialectRegistry registry;
  mlir::registerAllToLLVMIRTranslations(registry);
  context.appendDialectRegistry(registry);
}

} // namespace

//===----------------------------------------------------------------------===//
// TargetDescription
//===----------------------------------------------------------------------===//

std::string tessera::runtime::cpu::gridEntryName(llvm::StringRef kernel) {
  return (kernel + "__grid_entry").str();
}

//===----------------------------------------------------------------------===//
// Compilation
//===----------------------------------------------------------------------===//

llvm::Expected<std::unique_ptr<llvm::Module>>
tessera::runtime::cpu::translateAndOptimize(mlir::ModuleOp module, llvm::LLVMContext &context,
                                            const CompilerOptions &options) {
  auto machine = createTargetMachine(options.target, options.optLevel);
  if (!machine)
    return machine.takeError();

  mlir::MLIRContext *mlirContext = module->getContext();
  registerTranslations(*mlirContext);
  std::string diagnostics;
  std::unique_ptr<llvm::Module> llvmModule;
  {
    llvm::raw_string_ostream os(diagnostics);
    mlir::ScopedDiagnosticHandler handler(mlirContext, [&](mlir::Diagnostic &diag) {
      if (diag.getSeverity() == mlir::DiagnosticSeverity::Error)
        os << "\n  " << diag.getLocation() << ": " << diag;
      return mlir::success();
    });
    llvmModule = mlir::translateModuleToLLVMIR(module, context, "tessera_kernels");
  }
  if (!llvmModule)
    return makeError("cannot translate the module to LLVM IR (is it fully lowered to the "
                     "LLVM dialect?)" + diagnostics);

  llvm::TargetMachine &tm = **machine;
  llvmModule->setTargetTriple(tm.getTargetTriple());
  llvmModule->setDataLayout(tm.createDataLayout());
  std::string vectorWidth = std::to_string(options.target.vectorBits);
  for (llvm::Function &function : *llvmModule) {
    if (function.isDeclaration())
      continue;
    if (!function.hasFnAttribute("target-cpu"))
      function.addFnAttr("target-cpu", options.target.cpu);
    if (!function.hasFnAttribute("target-features") && !options.target.features.empty())
      function.addFnAttr("target-features", options.target.features);
    // LLVM prefers 256-bit vectors on AVX-512 CPUs unless told otherwise.
    if (!function.hasFnAttribute("prefer-vector-width"))
      function.addFnAttr("prefer-vector-width", vectorWidth);
    function.addFnAttr(llvm::Attribute::NoUnwind);
  }

  if (options.optLevel > 0) {
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    llvm::PipelineTuningOptions tuning;
    tuning.LoopVectorization = options.optLevel >= 2;
    tuning.SLPVectorization = options.optLevel >= 2;
    tuning.LoopUnrolling = true;
    tuning.LoopInterleaving = true;
    llvm::PassBuilder builder(&tm, tuning);
    builder.registerModuleAnalyses(mam);
    builder.registerCGSCCAnalyses(cgam);
    builder.registerFunctionAnalyses(fam);
    builder.registerLoopAnalyses(lam);
    builder.crossRegisterProxies(lam, fam, cgam, mam);
    llvm::OptimizationLevel level = options.optLevel >= 3   ? llvm::OptimizationLevel::O3
                                    : options.optLevel == 2 ? llvm::OptimizationLevel::O2
                                                            : llvm::OptimizationLevel::O1;
    llvm::ModulePassManager passes = builder.buildPerModuleDefaultPipeline(level);
    passes.run(*llvmModule, mam);
  }
  std::string verifierErrors;
  llvm::raw_string_ostream verifierStream(verifierErrors);
  if (llvm::verifyModule(*llvmModule, &verifierStream))
    return makeError("optimized LLVM IR does not verify: " + verifierErrors);
  return llvmModule;
}

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
tessera::runtime::cpu::compileToObject(mlir::ModuleOp module, const CompilerOptions &options,
                                       std::string *optimizedIR) {
  llvm::LLVMContext context;
  auto llvmModule = translateAndOptimize(module, context, options);
  if (!llvmModule)
    return llvmModule.takeError();
  if (optimizedIR) {
    optimizedIR->clear();
    llvm::raw_string_ostream os(*optimizedIR);
    (*llvmModule)->print(os, nullptr);
  }
  auto machine = createTargetMachine(options.target, options.optLevel);
  if (!machine)
    return machine.takeError();
  llvm::SmallVector<char, 0> bytes;
  llvm::raw_svector_ostream os(bytes);
  llvm::legacy::PassManager codegen;
  if ((*machine)->addPassesToEmitFile(codegen, os, nullptr, llvm::CodeGenFileType::ObjectFile))
    return makeError("the target " + options.target.str() + " cannot emit object files");
  codegen.run(**llvmModule);
  return llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(bytes.data(), bytes.size()),
                                              "tessera-kernels.o");
}

llvm::Error tessera::runtime::cpu::emitObjectFile(mlir::ModuleOp module,
                                                  const CompilerOptions &options,
                                                  llvm::StringRef path) {
  auto object = compileToObject(module, options);
  if (!object)
    return object.takeError();
  std::error_code ec;
  llvm::ToolOutputFile out(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return makeError("cannot write object file '" + path + "': " + ec.message());
  out.os() << (*object)->getBuffer();
  out.os().flush();
  if (out.os().has_error())
    return makeError("cannot write object file '" + path + "': " + out.os().error().message());
  out.keep();
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// JitEngine
//===----------------------------------------------------------------------===//

struct JitEngine::Impl {
  std::unique_ptr<llvm::orc::LLJIT> jit;
  llvm::orc::JITDylib *runtimeLib = nullptr;
  std::atomic<uint64_t> nextLib{0};
};

JitEngine::JitEngine(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
JitEngine::~JitEngine() = default; // LLJIT ends its session (and frees the code).

llvm::Expected<std::unique_ptr<JitEngine>>
JitEngine::create(llvm::ArrayRef<Symbol> runtimeSymbols) {
  initializeNativeTarget();
  auto jit = llvm::orc::LLJITBuilder().create();
  if (!jit)
    return jit.takeError();
  auto impl = std::make_unique<Impl>();
  impl->jit = std::move(*jit);
  auto lib = impl->jit->getExecutionSession().createJITDylib("tessera.runtime");
  if (!lib)
    return lib.takeError();
  impl->runtimeLib = &*lib;
  llvm::orc::SymbolMap symbols;
  for (const Symbol &symbol : runtimeSymbols)
    symbols[impl->jit->mangleAndIntern(symbol.name)] = llvm::orc::ExecutorSymbolDef(
        llvm::orc::ExecutorAddr::fromPtr(symbol.address), llvm::JITSymbolFlags::Exported);
  if (llvm::Error err = impl->runtimeLib->define(llvm::orc::absoluteSymbols(std::move(symbols))))
    return std::move(err);
  return std::unique_ptr<JitEngine>(new JitEngine(std::move(impl)));
}

llvm::Expected<void *> JitEngine::load(std::unique_ptr<llvm::MemoryBuffer> object,
                                       llvm::StringRef symbol) {
  llvm::orc::LLJIT &jit = *impl_->jit;
  std::string name = "tessera.kernels." + std::to_string(impl_->nextLib++);
  auto lib = jit.getExecutionSession().createJITDylib(name);
  if (!lib)
    return lib.takeError();
  // Runtime symbols first, then LLJIT's defaults (the process: libm, libc).
  llvm::orc::JITDylibSearchOrder order;
  order.push_back({impl_->runtimeLib, llvm::orc::JITDylibLookupFlags::MatchExportedSymbolsOnly});
  for (auto &entry : jit.defaultLinkOrder())
    order.push_back(entry);
  lib->setLinkOrder(std::move(order));
  if (llvm::Error err = jit.addObjectFile(*lib, std::move(object)))
    return std::move(err);
  auto address = jit.lookup(*lib, symbol);
  if (!address)
    return address.takeError();
  return address->toPtr<void *>();
}
