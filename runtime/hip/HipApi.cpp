#include "runtime/hip/HipApi.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

#include <dlfcn.h>
#include <mutex>
#include <optional>

namespace tessera::runtime::hip {

namespace {

/// The development link, then the versioned names a runtime-only install
/// has, then ROCm's default prefix (not always on the loader's path).
constexpr const char *kLibraryNames[] = {
    "libamdhip64.so",   "libamdhip64.so.7", "libamdhip64.so.6",
    "/opt/rocm/lib/libamdhip64.so", "/opt/rocm/lib/libamdhip64.so.6",
};

template <typename Fn>
llvm::Error resolve(void *library, const char *symbol, Fn &slot) {
  void *address = dlsym(library, symbol);
  if (!address)
    return llvm::createStringError(
        llvm::Twine("libamdhip64 lacks ") + symbol +
        (llvm::StringRef(symbol) == "hipGetDevicePropertiesR0600" ? " (ROCm 6.0 or newer is needed)"
                                                                   : ""));
  slot = reinterpret_cast<Fn>(address);
  return llvm::Error::success();
}

llvm::Expected<HipApi> load() {
  void *library = nullptr;
  llvm::SmallVector<std::string> failures;
  for (const char *name : kLibraryNames) {
    library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (library)
      break;
    const char *why = dlerror();
    failures.push_back(why ? why : name);
  }
  if (!library)
    return llvm::createStringError("the HIP runtime (libamdhip64) cannot be loaded: " +
                                   llvm::join(failures, "; "));
  HipApi api;
  llvm::Error missing = llvm::Error::success();
  auto bind = [&](const char *symbol, auto &slot) {
    if (!missing)
      missing = resolve(library, symbol, slot);
  };
  bind("hipInit", api.init);
  bind("hipGetDeviceCount", api.getDeviceCount);
  bind("hipSetDevice", api.setDevice);
  bind("hipGetDevicePropertiesR0600", api.getDeviceProperties);
  bind("hipRuntimeGetVersion", api.runtimeGetVersion);
  bind("hipModuleLoadData", api.moduleLoadData);
  bind("hipModuleUnload", api.moduleUnload);
  bind("hipModuleGetFunction", api.moduleGetFunction);
  bind("hipModuleLaunchKernel", api.moduleLaunchKernel);
  bind("hipMalloc", api.malloc);
  bind("hipFree", api.free);
  bind("hipMemcpy", api.memcpy);
  bind("hipMemset", api.memset);
  bind("hipDeviceSynchronize", api.deviceSynchronize);
  bind("hipGetErrorName", api.getErrorName);
  bind("hipGetErrorString", api.getErrorString);
  if (missing)
    return std::move(missing);
  if (llvm::Error error = api.check(api.init(0), "hipInit", "the HIP runtime"))
    return std::move(error);
  return api;
}

} // namespace

llvm::Expected<const HipApi &> HipApi::get() {
  // Loaded once; a failure is remembered too, so that every caller gets the
  // same reason without retrying dlopen.
  static std::once_flag once;
  static std::optional<HipApi> api;
  static std::string failure;
  std::call_once(once, [] {
    llvm::Expected<HipApi> loaded = load();
    if (loaded)
      api = *loaded;
    else
      failure = llvm::toString(loaded.takeError());
  });
  if (!api)
    return llvm::createStringError(failure);
  return *api;
}

std::string HipApi::describe(HipError error) const {
  const char *name = getErrorName ? getErrorName(error) : nullptr;
  const char *text = getErrorString ? getErrorString(error) : nullptr;
  return std::string(name ? name : "hipError " + std::to_string(error)) + " (" +
         (text ? text : "no description") + ")";
}

llvm::Error HipApi::check(HipError error, llvm::StringRef call,
                          const llvm::Twine &context) const {
  if (error == kHipSuccess)
    return llvm::Error::success();
  return llvm::createStringError(context + ": " + call + " failed: " + describe(error));
}

} // namespace tessera::runtime::hip
