#include "lowering/gpu/nvidia/Ptxas.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

using namespace tessera::gpu;

namespace {

/// The first integer before `suffix` in `line` ("8 bytes stack frame").
std::optional<int> countBefore(llvm::StringRef line, llvm::StringRef suffix) {
  size_t at = line.find(suffix);
  if (at == llvm::StringRef::npos)
    return std::nullopt;
  llvm::StringRef digits = line.take_front(at).rtrim();
  digits = digits.drop_front(digits.find_last_not_of("0123456789") + 1);
  int value = 0;
  if (digits.getAsInteger(10, value))
    return std::nullopt;
  return value;
}

/// "8 bytes smem" or, in older ptxas, "8+0 bytes smem" (static + reserved).
std::optional<int> sharedMemory(llvm::StringRef line) {
  static const llvm::Regex pattern("([0-9]+)(\\+([0-9]+))? bytes smem");
  llvm::SmallVector<llvm::StringRef, 4> groups;
  if (!pattern.match(line, &groups))
    return std::nullopt;
  int total = 0, extra = 0;
  if (groups[1].getAsInteger(10, total))
    return std::nullopt;
  if (!groups[3].empty() && !groups[3].getAsInteger(10, extra))
    total += extra;
  return total;
}

/// The text between the first pair of single quotes.
llvm::StringRef quoted(llvm::StringRef line) {
  size_t open = line.find('\'');
  if (open == llvm::StringRef::npos)
    return {};
  llvm::StringRef rest = line.drop_front(open + 1);
  return rest.take_front(rest.find('\''));
}

struct TempFile {
  llvm::SmallString<128> path;
  std::optional<llvm::FileRemover> remover;
};

llvm::Error makeTemp(llvm::StringRef prefix, llvm::StringRef suffix, TempFile &file) {
  if (std::error_code ec = llvm::sys::fs::createTemporaryFile(prefix, suffix, file.path))
    return llvm::createStringError("cannot create a temporary ." + suffix + " file for ptxas: " +
                                   ec.message());
  file.remover.emplace(file.path);
  return llvm::Error::success();
}

} // namespace

ResourceUsage tessera::gpu::parsePtxasReport(llvm::StringRef text, llvm::StringRef kernelName) {
  ResourceUsage usage;
  usage.report = text.str();
  bool inKernel = false;          // after "Compiling entry function 'kernelName'"
  bool inKernelProperties = false; // after "Function properties for kernelName"
  llvm::SmallVector<llvm::StringRef> lines;
  text.split(lines, '\n');
  for (llvm::StringRef line : lines) {
    if (line.contains("Compiling entry function")) {
      inKernel = quoted(line) == kernelName;
      inKernelProperties = false;
      continue;
    }
    if (size_t at = line.find("Function properties for "); at != llvm::StringRef::npos) {
      inKernelProperties =
          line.drop_front(at + llvm::StringRef("Function properties for ").size()).trim() ==
          kernelName;
      continue;
    }
    if (inKernelProperties && line.contains("bytes stack frame")) {
      usage.stackFrameBytes = countBefore(line, "bytes stack frame").value_or(-1);
      usage.spillStoreBytes = countBefore(line, "bytes spill stores").value_or(-1);
      usage.spillLoadBytes = countBefore(line, "bytes spill loads").value_or(-1);
      inKernelProperties = false;
      continue;
    }
    if (line.contains("wgmma.mma_async instructions are serialized") &&
        quoted(line) == kernelName) {
      size_t reason = line.find("Potential Performance Loss: ");
      usage.serializedWgmma =
          (reason == llvm::StringRef::npos ? line : line.drop_front(reason)).trim().str();
      continue;
    }
    if (inKernel && line.contains("Used ") && line.contains(" registers")) {
      usage.registers = countBefore(line, " registers").value_or(-1);
      usage.sharedMemoryBytes = sharedMemory(line).value_or(0);
    }
  }
  return usage;
}

llvm::Expected<PtxasOutput> tessera::gpu::assembleWithPtxas(llvm::StringRef ptxas,
                                                            llvm::StringRef ptx,
                                                            llvm::StringRef kernelName,
                                                            const PtxasOptions &options) {
  std::string prefix = ("tessera-" + kernelName).str();
  TempFile ptxFile, cubinFile, logFile;
  for (auto [file, suffix] : {std::pair{&ptxFile, "ptx"}, {&cubinFile, "cubin"}, {&logFile, "log"}})
    if (llvm::Error err = makeTemp(prefix, suffix, *file))
      return std::move(err);
  {
    std::error_code ec;
    llvm::raw_fd_ostream out(ptxFile.path, ec);
    if (ec)
      return llvm::createStringError("cannot write the PTX of kernel '" + kernelName + "' to " +
                                     ptxFile.path + ": " + ec.message());
    out << ptx;
  }

  std::string arch = "-arch=" + options.chip;
  std::string optLevel = "-O" + std::to_string(options.optLevel);
  llvm::SmallVector<llvm::StringRef, 8> args = {
      ptxas, arch, optLevel, "-v", ptxFile.path.str(), "-o", cubinFile.path.str()};
  // stdout and stderr go to one file, so the report keeps ptxas's line order.
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, logFile.path.str(),
                                                logFile.path.str()};
  std::string launchError;
  int status = llvm::sys::ExecuteAndWait(ptxas, args, /*Env=*/std::nullopt, redirects,
                                         /*SecondsToWait=*/0, /*MemoryLimit=*/0, &launchError);
  std::string log;
  if (auto buffer = llvm::MemoryBuffer::getFile(logFile.path))
    log = (*buffer)->getBuffer().str();
  if (status != 0) {
    std::string why = launchError.empty() ? "exit status " + std::to_string(status) : launchError;
    return llvm::createStringError("ptxas " + arch + " failed on kernel '" + kernelName + "' (" +
                                   why + "):\n" + llvm::StringRef(log).rtrim());
  }

  auto cubin = llvm::MemoryBuffer::getFile(cubinFile.path, /*IsText=*/false,
                                           /*RequiresNullTerminator=*/false);
  if (!cubin)
    return llvm::createStringError("ptxas wrote no cubin for kernel '" + kernelName +
                                   "': " + cubin.getError().message());
  PtxasOutput output;
  output.cubin.assign((*cubin)->getBufferStart(), (*cubin)->getBufferEnd());
  output.usage = parsePtxasReport(log, kernelName);
  if (output.usage.registers < 0)
    return llvm::createStringError("ptxas -v reported no register count for kernel '" +
                                   kernelName + "'; its output was:\n" + log);
  return output;
}
