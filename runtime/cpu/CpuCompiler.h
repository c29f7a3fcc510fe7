// The CPU code generator's back half: an LLVM-dialect module (the output of
// lowering/cpu) -> optimized LLVM IR -> a relocatable object file for the host
// (or another x86/AArch64 CPU) -> code linked in-process by an ORC JIT.
//
// Every kernel @K of a lowered module has the grid entry point
//   void K__grid_entry(void **args, int32_t x, int32_t y, int32_t z,
//                      int32_t nx, int32_t ny, int32_t nz);
// (docs/runtime.md, "Kernel ABI"). The object file is both what the JIT links
// and what the on-disk cache stores: a cache hit skips optimization and code
// generation entirely.
#ifndef TESSERA_RUNTIME_CPU_CPUCOMPILER_H
#define TESSERA_RUNTIME_CPU_CPUCOMPILER_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "lowering/cpu/CpuTarget.h"

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace tessera::runtime::cpu {

/// The machine code is generated for; part of every cache key.
using TargetDescription = ::tessera::cpu::CpuTarget;

struct CompilerOptions {
  TargetDescription target = TargetDescription::host();
  /// 0-3, as -O0..-O3 (LLVM's new pass manager default pipelines).
  unsigned optLevel = 3;
};

/// The signature of every compiled grid entry point.
using GridEntryFn = void (*)(void **args, int32_t x, int32_t y, int32_t z, int32_t nx,
                             int32_t ny, int32_t nz);

/// `K__grid_entry`.
std::string gridEntryName(llvm::StringRef kernel);

/// Translates an LLVM-dialect module to LLVM IR in `context`, stamps the
/// target (triple, data layout, per-function target-cpu/target-features and
/// prefer-vector-width) and runs the default optimization pipeline of
/// `options.optLevel` with loop and SLP vectorization. Translation diagnostics
/// become the error's message.
llvm::Expected<std::unique_ptr<llvm::Module>>
translateAndOptimize(mlir::ModuleOp module, llvm::LLVMContext &context,
                     const CompilerOptions &options);

/// Translates, optimizes and generates an ELF (or the target's) relocatable
/// object. `optimizedIR`, when given, receives the optimized LLVM IR text.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
compileToObject(mlir::ModuleOp module, const CompilerOptions &options,
                std::string *optimizedIR = nullptr);

/// compileToObject, written to `path` (for ahead-of-time use: link it into a
/// program and call `K__grid_entry`; it needs `__tessera_assert_fail` when a
/// kernel asserts).
llvm::Error emitObjectFile(mlir::ModuleOp module, const CompilerOptions &options,
                           llvm::StringRef path);

/// An ORC LLJIT that links object files, each into its own JITDylib so that
/// kernels of the same name from different modules never clash. Symbols the
/// code may call: the process's (libm, libc) and the runtime symbols given at
/// creation (`__tessera_assert_fail`). Thread-safe. Code stays mapped until
/// the engine is destroyed.
class JitEngine {
public:
  struct Symbol {
    std::string name;
    void *address;
  };

  static llvm::Expected<std::unique_ptr<JitEngine>> create(llvm::ArrayRef<Symbol> runtimeSymbols);
  ~JitEngine();
  JitEngine(const JitEngine &) = delete;
  JitEngine &operator=(const JitEngine &) = delete;

  /// Links `object` into a fresh JITDylib and returns the address of `symbol`
  /// (unmangled) in it.
  llvm::Expected<void *> load(std::unique_ptr<llvm::MemoryBuffer> object, llvm::StringRef symbol);

private:
  struct Impl;
  explicit JitEngine(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

} // namespace tessera::runtime::cpu

#endif // TESSERA_RUNTIME_CPU_CPUCOMPILER_H
