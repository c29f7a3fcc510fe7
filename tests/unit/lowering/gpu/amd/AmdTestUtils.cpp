#include "AmdTestUtils.h"

#include "lowering/gpu/amd/AmdPipeline.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

namespace tessera::gpu::amd::testing {

std::unique_ptr<mlir::MLIRContext> makeAmdContext() {
  mlir::DialectRegistry registry;
  registerAmdLoweringDependencies(registry);
  return std::make_unique<mlir::MLIRContext>(registry);
}

mlir::OwningOpRef<mlir::ModuleOp> parseKernel(mlir::MLIRContext &context, llvm::StringRef text) {
  return mlir::parseSourceString<mlir::ModuleOp>(text, &context);
}

std::string runLlvmTool(llvm::StringRef tool, llvm::ArrayRef<std::string> arguments,
                        llvm::ArrayRef<uint8_t> codeObject) {
  llvm::SmallString<128> input, output;
  if (llvm::sys::fs::createTemporaryFile("tessera-amd-test", "hsaco", input) ||
      llvm::sys::fs::createTemporaryFile("tessera-amd-test", "txt", output))
    return "error: cannot create temporary files";
  llvm::FileRemover removeInput(input), removeOutput(output);
  {
    std::error_code error;
    llvm::raw_fd_ostream file(input, error);
    if (error)
      return "error: " + error.message();
    file.write(reinterpret_cast<const char *>(codeObject.data()), codeObject.size());
  }
  llvm::SmallString<128> program(TESSERA_LLVM_TOOLS_DIR);
  llvm::sys::path::append(program, tool);
  std::vector<llvm::StringRef> argv{program};
  for (const std::string &argument : arguments)
    argv.push_back(argument);
  argv.push_back(input);
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, llvm::StringRef(output),
                                                std::nullopt};
  std::string message;
  int status = llvm::sys::ExecuteAndWait(program, argv, std::nullopt, redirects,
                                         /*SecondsToWait=*/60, /*MemoryLimit=*/0, &message);
  if (status != 0)
    return "error: " + program.str().str() + " exited with " + std::to_string(status) + " " +
           message;
  auto text = llvm::MemoryBuffer::getFile(output);
  if (!text)
    return "error: " + text.getError().message();
  return (*text)->getBuffer().str();
}

} // namespace tessera::gpu::amd::testing
