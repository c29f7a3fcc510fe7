#include "runtime/cpu/CacheKey.h"

#include "runtime/cache/KernelCache.h"

#include "llvm/Support/raw_ostream.h"

using namespace tessera::runtime;
using namespace tessera::runtime::cpu;

CacheKey CacheKey::make(llvm::StringRef sourceText, llvm::StringRef stage, llvm::StringRef kernel,
                        const CompilerOptions &options, llvm::StringRef extra) {
  CacheKey key;
  key.kernel = kernel.str();
  key.stage = stage.str();
  key.sourceHash = sha256Hex(sourceText);
  key.triple = options.target.triple;
  key.cpu = options.target.cpu;
  key.features = options.target.features;
  key.vectorBits = options.target.vectorBits;
  key.optLevel = options.optLevel;
  key.tesseraVersion = runtime::tesseraVersion().str();
  key.llvmVersion = runtime::llvmVersion().str();
  key.extra = extra.str();
  return key;
}

std::string CacheKey::canonicalText() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "kernel=" << kernel << "\nstage=" << stage << "\nsource-sha256=" << sourceHash
     << "\ntriple=" << triple << "\ncpu=" << cpu << "\nfeatures=" << features
     << "\nvector-bits=" << vectorBits << "\nopt-level=" << optLevel
     << "\ntessera-version=" << tesseraVersion << "\nllvm-version=" << llvmVersion
     << "\nextra=" << extra << "\n";
  return text;
}

std::string CacheKey::digest() const { return sha256Hex(canonicalText()); }

