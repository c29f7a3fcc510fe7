// The CUDA driver library (libcuda), opened at run time with dlopen so that
// Tessera builds and runs on machines without it.
#ifndef TESSERA_RUNTIME_CUDA_CUDADRIVER_H
#define TESSERA_RUNTIME_CUDA_CUDADRIVER_H

#include "runtime/cuda/CudaDriverApi.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace tessera::runtime::cuda {

class CudaDriver {
public:
  /// The process's driver: $TESSERA_LIBCUDA if set, else libcuda.so.1,
  /// opened and initialized (cuInit) on first use. The error says why it
  /// cannot be used: no library, a symbol missing, cuInit failing (no device).
  static llvm::Expected<const CudaDriver &> get();

  /// Opens and initializes `library` on its own (not the shared instance).
  static llvm::Expected<std::unique_ptr<CudaDriver>> open(llvm::StringRef library);

  ~CudaDriver();
  CudaDriver(const CudaDriver &) = delete;
  CudaDriver &operator=(const CudaDriver &) = delete;

  const driver::Functions &api() const { return functions_; }
  /// The library it was opened from.
  llvm::StringRef library() const { return library_; }
  /// cuDriverGetVersion: 1000 * major + 10 * minor (13000 for CUDA 13.0).
  int version() const { return version_; }

  /// "CUDA_ERROR_OUT_OF_MEMORY (out of memory)".
  std::string describe(driver::CUresult result) const;
  /// Success for CUDA_SUCCESS, else "<context>: <call> failed: <describe>".
  llvm::Error check(driver::CUresult result, llvm::StringRef call,
                    const llvm::Twine &context) const;

private:
  CudaDriver() = default;
  void *handle_ = nullptr;
  std::string library_;
  int version_ = 0;
  driver::Functions functions_{};
};

} // namespace tessera::runtime::cuda

#endif // TESSERA_RUNTIME_CUDA_CUDADRIVER_H
