// The TMA tensor maps a kernel takes after its signature's parameters
// (gpu::TensorMapParam): encoded for each launch, with cuTensorMapEncodeTiled,
// from the host descriptor's base, extents and strides in the same launch,
// unless the kernel's previous launch encoded the same (TensorMapCache).
#ifndef TESSERA_RUNTIME_CUDA_CUDATENSORMAPS_H
#define TESSERA_RUNTIME_CUDA_CUDATENSORMAPS_H

#include "lowering/gpu/KernelBinary.h"
#include "runtime/Runtime.h"
#include "runtime/cuda/CudaDriver.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

namespace tessera::runtime::cuda {

/// CUtensorMap: 128 opaque bytes, aligned as cuda.h aligns them.
struct alignas(64) TensorMap {
  unsigned char bytes[128];
};

/// The arguments of cuTensorMapEncodeTiled for one tensor map, dimensions
/// innermost first.
struct TensorMapEncoding {
  static constexpr unsigned kMaxRank = 5;
  int dataType = 0; ///< CUtensorMapDataType
  unsigned rank = 0;
  void *address = nullptr;
  unsigned long long dims[kMaxRank] = {};
  /// Bytes between consecutive indices of dimensions 1 .. rank-1.
  unsigned long long strides[kMaxRank - 1] = {};
  unsigned box[kMaxRank] = {};
  unsigned elementStrides[kMaxRank] = {};
  int swizzle = 0; ///< CUtensorMapSwizzle
  int oobFill = 0; ///< CUtensorMapFloatOOBfill

  bool operator==(const TensorMapEncoding &other) const;
};

/// The maps of a kernel's last launch, with the encodings they were made
/// from: a map depends on nothing else, so a launch on the same tensors (a
/// loop over one layer's weights) passes them again instead of encoding
/// them again. Launches from several threads may share it.
class TensorMapCache {
public:
  /// Whether map `index` was last encoded from `encoding`; if so `map` is
  /// that map.
  bool find(size_t index, const TensorMapEncoding &encoding, TensorMap &map) const;
  void remember(size_t index, const TensorMapEncoding &encoding, const TensorMap &map);

private:
  struct Entry {
    TensorMapEncoding encoding;
    TensorMap map;
  };
  mutable std::mutex mutex_;
  std::vector<std::optional<Entry>> last_;
};

/// The encoding of `param` for a launch of a kernel of `signature` whose
/// packed arguments are `slots` (packArgument's). An error, prefixed by
/// `where`, names the argument whose value TMA cannot describe (an extent
/// below 1, a base or stride that is not a multiple of 16 bytes).
llvm::Expected<TensorMapEncoding> tensorMapEncoding(const gpu::TensorMapParam &param,
                                                    const KernelSignature &signature,
                                                    llvm::ArrayRef<uint64_t> slots,
                                                    const llvm::Twine &where);

/// Encodes every tensor map of `params` into `maps` (resized to fit),
/// taking from `cache` those the last launch encoded alike and remembering
/// the others there.
llvm::Error encodeTensorMaps(const CudaDriver &driver,
                             llvm::ArrayRef<gpu::TensorMapParam> params,
                             const KernelSignature &signature, llvm::ArrayRef<uint64_t> slots,
                             llvm::SmallVectorImpl<TensorMap> &maps, TensorMapCache &cache,
                             const llvm::Twine &where);

} // namespace tessera::runtime::cuda

#endif // TESSERA_RUNTIME_CUDA_CUDATENSORMAPS_H
