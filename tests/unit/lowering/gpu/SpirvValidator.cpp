#include "tests/unit/lowering/gpu/SpirvValidator.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

namespace tessera::gpu::testing {

std::optional<std::string> spirvValidator() {
  if (const char *chosen = std::getenv("TESSERA_SPIRV_VAL"))
    return std::string(chosen);
  if (llvm::sys::fs::can_execute(TESSERA_FETCHED_SPIRV_VAL))
    return std::string(TESSERA_FETCHED_SPIRV_VAL);
  if (llvm::ErrorOr<std::string> onPath = llvm::sys::findProgramByName("spirv-val"))
    return *onPath;
  return std::nullopt;
}

std::string validateSpirv(llvm::ArrayRef<uint8_t> binary, llvm::StringRef environment) {
  std::optional<std::string> tool = spirvValidator();
  if (!tool)
    return "spirv-val is not on PATH (Debian: spirv-tools)";
  llvm::SmallString<128> binaryPath, outputPath;
  if (llvm::sys::fs::createTemporaryFile("tessera-kernel", "spv", binaryPath) ||
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

} // namespace tessera::gpu::testing
