#include "tests/unit/lowering/gpu/compile/GpuCompileTestUtils.h"
#include "tests/unit/lowering/gpu/compile/GpuTestKernels.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

#include <cctype>
#include <cstdlib>
#include <cstring>

namespace tessera::gpu::testing {

GpuTarget parseTarget(llvm::StringRef spec) {
  llvm::Expected<GpuTarget> target = GpuTarget::parse(spec);
  if (!target) {
    llvm::errs() << "bad target in a test: " << llvm::toString(target.takeError()) << "\n";
    std::abort();
  }
  return *target;
}

llvm::Expected<CompiledGpuKernel> compileCatalogued(llvm::StringRef name, const GpuTarget &target,
                                                    unsigned numWarps) {
  const KernelCase &kernel = kernelCase(name);
  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module = kernel.build(context);
  if (!module)
    return llvm::createStringError("test kernel '" + name.str() + "' does not parse or trace");
  GpuCompileOptions options;
  options.lowering.numWarps = numWarps;
  return compileTileForGpu(*module, kernel.kernel, target, options);
}

bool isElf(const std::vector<uint8_t> &binary) {
  return binary.size() > 4 && std::memcmp(binary.data(), "\x7f" "ELF", 4) == 0;
}

bool isSpirv(const std::vector<uint8_t> &binary) {
  if (binary.size() < 20 || binary.size() % 4 != 0)
    return false;
  uint32_t magic;
  std::memcpy(&magic, binary.data(), 4);
  return magic == 0x07230203u;
}

std::string sanitize(llvm::StringRef text) {
  std::string name;
  for (char c : text)
    name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return name;
}

} // namespace tessera::gpu::testing
