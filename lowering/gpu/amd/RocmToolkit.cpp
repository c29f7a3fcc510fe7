#include "lowering/gpu/amd/RocmToolkit.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/xxhash.h"

#include <mutex>
#include <unistd.h>

namespace fs = llvm::sys::fs;
namespace path = llvm::sys::path;

namespace tessera::gpu::amd {

namespace {

llvm::Error checkSources(const RocmToolkitSources &sources) {
  for (const char *library : {"ocml.bc", "ockl.bc"}) {
    llvm::SmallString<256> file(sources.deviceLibraries);
    path::append(file, "bitcode", library);
    if (!fs::exists(file))
      return llvm::createStringError(
          "the AMD device library " + file +
          " is missing: install Debian's rocm-device-libs, or point the compile options at a "
          "ROCm installation");
  }
  llvm::SmallString<256> linker(sources.llvmRoot);
  path::append(linker, "bin", "ld.lld");
  if (!fs::can_execute(linker))
    return llvm::createStringError("the linker " + linker +
                                   " is missing: install lld-22 (HSACO code objects are "
                                   "linked with ld.lld)");
  return llvm::Error::success();
}

/// A staged directory whose two links resolve to the sources.
bool isStaged(llvm::StringRef dir, const RocmToolkitSources &sources) {
  auto resolvesTo = [&](llvm::StringRef link, llvm::StringRef target) {
    llvm::SmallString<256> linkPath(dir), resolved, expected;
    path::append(linkPath, link);
    return !fs::real_path(linkPath, resolved) && !fs::real_path(target, expected) &&
           resolved == expected;
  };
  return resolvesTo("amdgcn", sources.deviceLibraries) && resolvesTo("llvm", sources.llvmRoot);
}

/// The per-user parent directory, created with owner-only permissions. A
/// directory of that name owned by someone else is refused.
llvm::Expected<std::string> userParentDirectory() {
  llvm::SmallString<256> parent;
  if (path::cache_directory(parent)) {
    path::append(parent, "tessera");
  } else {
    path::system_temp_directory(/*ErasedOnReboot=*/true, parent);
    path::append(parent, "tessera-" + llvm::Twine(getuid()));
  }
  if (std::error_code error = fs::create_directories(parent, /*IgnoreExisting=*/true,
                                                     fs::perms::owner_all))
    return llvm::createStringError("cannot create " + parent + ": " + error.message());
  fs::file_status status;
  if (std::error_code error = fs::status(parent, status))
    return llvm::createStringError("cannot inspect " + parent + ": " + error.message());
  if (status.getUser() != getuid())
    return llvm::createStringError(parent + " belongs to another user; refusing to stage the "
                                            "ROCm toolkit links there");
  return parent.str().str();
}

llvm::Expected<std::string> stage(const RocmToolkitSources &sources) {
  if (llvm::Error error = checkSources(sources))
    return std::move(error);
  llvm::Expected<std::string> parent = userParentDirectory();
  if (!parent)
    return parent.takeError();
  uint64_t hash = llvm::xxh3_64bits(sources.deviceLibraries + "\n" + sources.llvmRoot);
  llvm::SmallString<256> staged(*parent);
  path::append(staged, "rocm-toolkit-" + llvm::utohexstr(hash, /*LowerCase=*/true));
  if (isStaged(staged, sources))
    return staged.str().str();

  llvm::SmallString<256> building;
  if (std::error_code error = fs::createUniqueDirectory(staged + "-", building))
    return llvm::createStringError("cannot create a directory next to " + staged + ": " +
                                   error.message());
  llvm::SmallString<256> amdgcnLink(building), llvmLink(building);
  path::append(amdgcnLink, "amdgcn");
  path::append(llvmLink, "llvm");
  std::error_code error = fs::create_link(sources.deviceLibraries, amdgcnLink);
  if (!error)
    error = fs::create_link(sources.llvmRoot, llvmLink);
  if (!error)
    error = fs::rename(building, staged);
  if (error) {
    // Another process may have renamed its copy into place first.
    (void)fs::remove(amdgcnLink);
    (void)fs::remove(llvmLink);
    (void)fs::remove(building);
  }
  if (isStaged(staged, sources))
    return staged.str().str();
  return llvm::createStringError("cannot stage the ROCm toolkit links in " + staged +
                                 (error ? ": " + error.message() : std::string()) +
                                 " (remove it if it is stale)");
}

} // namespace

llvm::Expected<std::string> stageRocmToolkit(const RocmToolkitSources &requested) {
  RocmToolkitSources sources = requested;
  if (sources.llvmRoot.empty())
    sources.llvmRoot = TESSERA_LLVM_ROOT;

  // One staging per configuration and process; later calls are a map lookup.
  static std::mutex mutex;
  static llvm::StringMap<std::string> staged;
  std::lock_guard<std::mutex> lock(mutex);
  std::string key = sources.deviceLibraries + "\n" + sources.llvmRoot;
  if (auto it = staged.find(key); it != staged.end())
    return it->second;
  llvm::Expected<std::string> dir = stage(sources);
  if (dir)
    staged[key] = *dir;
  return dir;
}

} // namespace tessera::gpu::amd
