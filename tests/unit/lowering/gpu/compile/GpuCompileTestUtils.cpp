#include "tests/unit/lowering/gpu/compile/GpuCompileTestUtils.h"
#include "tests/unit/lowering/gpu/compile/GpuTestKernels.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
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

std::string validateSpirv(const std::vector<uint8_t> &binary, llvm::StringRef environment) {
  // $TESSERA_SPIRV_VAL, else the one scripts/fetch-spirv-tools.sh put into
  // the build tree, else the system's.
  const char *chosen = std::getenv("TESSERA_SPIRV_VAL");
  if (!chosen && llvm::sys::fs::can_execute(TESSERA_FETCHED_SPIRV_VAL))
    chosen = TESSERA_FETCHED_SPIRV_VAL;
  llvm::ErrorOr<std::string> tool =
      chosen ? llvm::ErrorOr<std::string>(std::string(chosen)) : llvm::sys::findProgramByName("spirv-val");
  if (!tool)
    return "spirv-val is not on PATH (Debian: spirv-tools)";
  llvm::SmallString<128> binaryPath, outputPath;
  if (llvm::sys::fs::createTemporaryFile("tessera-gpu-compile", "spv", binaryPath) ||
      llvm::sys::fs::createTemporaryFile("tessera-spirv-val", "txt", outputPath))
    return "cannot create temporary files for spirv-val";
  llvm::FileRemover removeBinary(binaryPath), removeOutput(outputPath);
  {
    std::error_code ec;
    llvm::raw_fd_ostream out(binaryPath, ec);
    if (ec)
      return "cannot write " + binaryPath.str().str() + ": " + ec.message();
    out.write(reinterpret_cast<const char *>(binary.data()), binary.size());
  }
  llvm::StringRef args[] = {*tool, "--target-env", environment, binaryPath};
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, outputPath.str(), outputPath.str()};
  int rc = llvm::sys::ExecuteAndWait(*tool, args, std::nullopt, redirects);
  if (rc == 0)
    return "";
  auto output = llvm::MemoryBuffer::getFile(outputPath);
  return "spirv-val --target-env " + environment.str() + " failed (" + std::to_string(rc) +
         "): " + (output ? (*output)->getBuffer().str() : std::string("no output"));
}

bool validatorLacksCooperativeMatrix(llvm::StringRef validation) {
  // 6022 is CooperativeMatrixKHR, which older validators do not decode.
  return validation.contains("Invalid capability operand: 6022");
}

std::string sanitize(llvm::StringRef text) {
  std::string name;
  for (char c : text)
    name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return name;
}

} // namespace tessera::gpu::testing
