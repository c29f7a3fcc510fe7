// Loading cubins into a device's module cache and launching their kernels.
#include "runtime/cuda/CudaDevice.h"
#include "runtime/cuda/CudaState.h"
#include "runtime/cuda/CudaTensorMaps.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/xxhash.h"

using namespace tessera::runtime;
using namespace tessera::runtime::cuda;
using namespace tessera::runtime::cuda::driver;
using tessera::runtime::cuda::detail::DeviceState;
using tessera::runtime::cuda::detail::LoadedKernel;

llvm::StringRef CudaKernel::name() const { return impl_->name; }
unsigned CudaKernel::blockThreads() const { return impl_->blockThreads; }
unsigned CudaKernel::dynamicSharedMemoryBytes() const { return impl_->dynamicSharedMemoryBytes; }
int CudaKernel::registers() const { return impl_->registers; }

namespace {

std::string cacheKey(const tessera::gpu::KernelBinary &binary) {
  llvm::XXH128_hash_t hash = llvm::xxh3_128bits(binary.binary);
  return llvm::formatv("{0:x-16}{1:x-16}:{2}", hash.high64, hash.low64, binary.kernelName).str();
}

/// Bytes the parameter takes in the kernel's PTX parameter list; i1 is
/// either i1 (one byte) or, in the distributed GPU form, i32.
bool parameterSizeMatches(ArgKind kind, size_t size) {
  switch (kind) {
  case ArgKind::Pointer: case ArgKind::I64: case ArgKind::F64: return size == 8;
  case ArgKind::I32: case ArgKind::F32: return size == 4;
  case ArgKind::I16: case ArgKind::F16: case ArgKind::BF16: return size == 2;
  case ArgKind::I8: case ArgKind::F8E4M3FN: case ArgKind::F8E5M2: return size == 1;
  case ArgKind::I1: return size == 1 || size == 4;
  }
  return false;
}

/// Compares the kernel's parameter list (cuFuncGetParamInfo, CUDA 12.4+)
/// with the signature the launches will be checked against, followed by
/// the kernel's tensor maps.
llvm::Error checkParameters(const CudaDriver &driver, const LoadedKernel &kernel,
                            const KernelSignature &signature, const llvm::Twine &where) {
  const Functions &api = driver.api();
  if (!api.funcGetParamInfo)
    return llvm::Error::success();
  size_t count = signature.params.size() + kernel.tensorMaps.size();
  for (size_t i = 0; i <= count; ++i) {
    size_t offset = 0, size = 0;
    CUresult result = api.funcGetParamInfo(kernel.function, i, &offset, &size);
    if (i == count) {
      if (result == CUDA_SUCCESS)
        return llvm::createStringError(where + ": the kernel takes more than the " +
                                       llvm::Twine(count) + " parameters of its signature " +
                                       signature.str());
      return llvm::Error::success();
    }
    if (result == CUDA_ERROR_INVALID_VALUE)
      return llvm::createStringError(where + ": the kernel takes " + llvm::Twine(i) +
                                     " parameters, its signature " + signature.str() + " lists " +
                                     llvm::Twine(count));
    if (llvm::Error err = driver.check(result, "cuFuncGetParamInfo", where))
      return err;
    if (i >= signature.params.size()) {
      if (size != sizeof(TensorMap))
        return llvm::createStringError(
            llvm::formatv("{0}: parameter {1} takes {2} bytes in the cubin, but a tensor map "
                          "takes {3}",
                          where.str(), i, size, sizeof(TensorMap))
                .str());
      continue;
    }
    if (!parameterSizeMatches(signature.params[i].kind, size))
      return llvm::createStringError(
          llvm::formatv("{0}: parameter {1} takes {2} bytes in the cubin, but the signature "
                        "says {3}",
                        where.str(), i, size, toString(signature.params[i].kind))
              .str());
  }
  return llvm::Error::success();
}

/// Loads the module and checks that this device can launch its kernel.
llvm::Expected<std::shared_ptr<LoadedKernel>>
loadKernel(const DeviceState &state, const tessera::gpu::KernelBinary &binary,
           const std::string &where) {
  const CudaDriver &driver = state.driver;
  const Functions &api = driver.api();
  auto kernel = std::make_shared<LoadedKernel>();
  kernel->device = &state;
  kernel->name = binary.kernelName;
  kernel->blockThreads = binary.blockThreads;
  kernel->dynamicSharedMemoryBytes = binary.dynamicSharedMemoryBytes;
  kernel->tensorMaps = binary.tensorMaps;

  llvm::Error err = state.inContext(where, [&]() -> llvm::Error {
    if (llvm::Error err = driver.check(api.moduleLoadData(&kernel->module, binary.binary.data()),
                                       "cuModuleLoadData", where)) {
      if (!binary.ptxForDriverJit)
        return err;
      return llvm::createStringError(
          llvm::toString(std::move(err)) +
          "; the kernel was compiled to PTX alone (no ptxas was found), which this driver's JIT "
          "refused: install the CUDA toolkit (ptxas) or set TESSERA_PTXAS, or update the driver");
    }
    auto configure = [&]() -> llvm::Error {
      if (llvm::Error err = driver.check(api.moduleGetFunction(&kernel->function, kernel->module,
                                                               kernel->name.c_str()),
                                         "cuModuleGetFunction", where))
        return err;
      int maxThreads = 0, staticShared = 0;
      for (auto [attribute, slot] :
           {std::pair{CU_FUNC_ATTRIBUTE_NUM_REGS, &kernel->registers},
            {CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &maxThreads},
            {CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, &staticShared}})
        if (llvm::Error err = driver.check(api.funcGetAttribute(slot, attribute, kernel->function),
                                           "cuFuncGetAttribute", where))
          return err;
      if (unsigned(maxThreads) < kernel->blockThreads)
        return llvm::createStringError(llvm::formatv(
            "{0}: the kernel launches {1} threads per block, but with {2} registers per thread "
            "the device runs at most {3}; use fewer warps or cap the registers "
            "(NvidiaCompileOptions::maxRegisters)",
            where, kernel->blockThreads, kernel->registers, maxThreads));
      uint64_t shared = uint64_t(staticShared) + kernel->dynamicSharedMemoryBytes;
      if (shared > state.info.maxSharedMemoryPerBlock)
        return llvm::createStringError(llvm::formatv(
            "{0}: the kernel needs {1} bytes of shared memory ({2} static, {3} dynamic), the "
            "device gives a block at most {4}",
            where, shared, staticShared, kernel->dynamicSharedMemoryBytes,
            state.info.maxSharedMemoryPerBlock));
      if (kernel->dynamicSharedMemoryBytes > kDefaultDynamicSharedMemoryLimit)
        return driver.check(api.funcSetAttribute(kernel->function,
                                                 CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                                 int(kernel->dynamicSharedMemoryBytes)),
                            "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)", where);
      return llvm::Error::success();
    };
    if (llvm::Error err = configure()) {
      api.moduleUnload(kernel->module);
      return err;
    }
    return llvm::Error::success();
  });
  if (err)
    return std::move(err);
  return kernel;
}

} // namespace

llvm::Expected<CudaKernel> CudaDevice::load(const gpu::KernelBinary &binary,
                                            KernelSignature signature) {
  std::string where = llvm::formatv("kernel '{0}' ({1}) on {2}", binary.kernelName,
                                    binary.target.str(), state_->describe())
                          .str();
  if (binary.target.vendor != gpu::GpuVendor::Nvidia)
    return llvm::createStringError(where + ": not an NVIDIA binary");
  if (binary.binary.empty() || binary.kernelName.empty() || binary.blockThreads == 0)
    return llvm::createStringError(where + ": the KernelBinary lacks its cubin, entry name or "
                                           "block size (compile it with compileForNvidia)");

  std::shared_ptr<LoadedKernel> kernel;
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    std::string key = cacheKey(binary);
    auto found = state_->kernels.find(key);
    if (found != state_->kernels.end()) {
      kernel = found->second;
    } else {
      llvm::Expected<std::shared_ptr<LoadedKernel>> loaded = loadKernel(*state_, binary, where);
      if (!loaded)
        return loaded.takeError();
      kernel = *loaded;
      state_->kernels[key] = kernel;
    }
  }
  if (llvm::Error err = checkParameters(state_->driver, *kernel, signature, where))
    return std::move(err);
  return CudaKernel(std::move(kernel), std::make_shared<const KernelSignature>(std::move(signature)));
}

llvm::Error CudaDevice::launch(const CudaKernel &kernel, Grid grid, llvm::ArrayRef<Argument> args,
                               const LaunchOptions &options) {
  if (!kernel)
    return llvm::createStringError("launch of an empty CudaKernel handle (load one first)");
  const LoadedKernel &loaded = *kernel.impl_;
  const KernelSignature &signature = kernel.signature();
  std::string where = "kernel '" + loaded.name + "'";
  if (loaded.device != state_.get())
    return llvm::createStringError(where + " was loaded on another device than " +
                                   state_->describe());
  if (args.size() != signature.params.size())
    return llvm::createStringError(llvm::formatv("{0} takes {1} arguments {2}, got {3}", where,
                                                 signature.params.size(), signature.str(),
                                                 args.size())
                                       .str());
  const unsigned *maxGrid = state_->info.maxGrid;
  if (grid.x > maxGrid[0] || grid.y > maxGrid[1] || grid.z > maxGrid[2])
    return llvm::createStringError(llvm::formatv("{0}: grid ({1}, {2}, {3}) exceeds the device's "
                                                 "({4}, {5}, {6})",
                                                 where, grid.x, grid.y, grid.z, maxGrid[0],
                                                 maxGrid[1], maxGrid[2])
                                       .str());

  llvm::SmallVector<uint64_t, 16> slots(args.size());
  llvm::SmallVector<void *, 16> params(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    if (llvm::Error err = packArgument(loaded.name, i, signature.params[i], args[i], slots[i]))
      return err;
    // cuLaunchKernel copies as many bytes as the parameter has, from the
    // start of its slot: the low bytes on a little-endian host.
    params[i] = &slots[i];
  }
  if (grid.size() == 0)
    return llvm::Error::success();
  // After the empty-grid return: a launch over nothing may describe an
  // empty tensor, which no tensor map can.
  const CudaDriver &driver = state_->driver;
  llvm::SmallVector<TensorMap, 2> tensorMaps;
  if (llvm::Error err = encodeTensorMaps(driver, loaded.tensorMaps, signature, slots, tensorMaps,
                                         loaded.tensorMapCache, where))
    return err;
  for (TensorMap &map : tensorMaps)
    params.push_back(map.bytes);

  auto stream = static_cast<CUstream>(options.stream);
  return state_->inContext(where, [&]() -> llvm::Error {
    if (llvm::Error err = driver.check(
            driver.api().launchKernel(loaded.function, grid.x, grid.y, grid.z, loaded.blockThreads,
                                      1, 1, loaded.dynamicSharedMemoryBytes, stream,
                                      params.data(), nullptr),
            "cuLaunchKernel", where))
      return err;
    if (!options.synchronize)
      return llvm::Error::success();
    return driver.check(driver.api().streamSynchronize(stream), "cuStreamSynchronize",
                        where + " (running)");
  });
}

llvm::Error CudaDevice::launch(const gpu::KernelBinary &binary, const KernelSignature &signature,
                               Grid grid, llvm::ArrayRef<Argument> args,
                               const LaunchOptions &options) {
  llvm::Expected<CudaKernel> kernel = load(binary, signature);
  if (!kernel)
    return kernel.takeError();
  return launch(*kernel, grid, args, options);
}
