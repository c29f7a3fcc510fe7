#include "runtime/cuda/CudaTensorMaps.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace tessera::runtime::cuda;

namespace {

// cuda.h's CUtensorMap* enum values.
enum DataType {
  kUint8 = 0, kUint16 = 1, kUint32 = 2, kUint64 = 4, kFloat16 = 6, kFloat32 = 7,
  kFloat64 = 8, kBfloat16 = 9,
};
constexpr int kInterleaveNone = 0;
constexpr int kL2Promotion256B = 3;
constexpr int kOobFillNone = 0, kOobFillNan = 1;
constexpr uint64_t kGlobalAlignment = 16;
constexpr uint64_t kMaxStrideBytes = uint64_t(1) << 40;
constexpr uint64_t kMaxExtent = uint64_t(1) << 32;

/// Float types by name (their out-of-bounds fill may be NaN); any other
/// element is copied as unsigned bits of its size.
std::optional<int> dataTypeOf(const tessera::gpu::TensorMapParam &param) {
  if (param.element == "bf16") return kBfloat16;
  if (param.element == "f16") return kFloat16;
  if (param.element == "f32") return kFloat32;
  if (param.element == "f64") return kFloat64;
  if (param.nanPadding)
    return std::nullopt;
  switch (param.elementBytes) {
  case 1: return kUint8;
  case 2: return kUint16;
  case 4: return kUint32;
  case 8: return kUint64;
  }
  return std::nullopt;
}

int swizzleOf(unsigned bytes) {
  switch (bytes) {
  case 32: return 1;
  case 64: return 2;
  case 128: return 3;
  }
  return 0;
}

/// "argument 3", or "a constant" for one compiled in.
std::string describe(tessera::gpu::TensorMapValue value) {
  return value.argument < 0 ? "a constant" : "argument " + std::to_string(value.argument);
}

} // namespace

llvm::Expected<TensorMapEncoding>
tessera::runtime::cuda::tensorMapEncoding(const gpu::TensorMapParam &param,
                                          const KernelSignature &signature,
                                          llvm::ArrayRef<uint64_t> slots,
                                          const llvm::Twine &where) {
  auto fail = [&](const llvm::Twine &why) {
    return llvm::createStringError(where + ": " + why);
  };
  unsigned rank = param.shape.size();
  std::optional<int> dataType = dataTypeOf(param);
  if (rank == 0 || rank > TensorMapEncoding::kMaxRank || param.box.size() != rank ||
      param.outerStrides.size() + 1 != rank || !dataType)
    return fail("the kernel's tensor map for argument " + llvm::Twine(param.base) +
                " is malformed (rank " + llvm::Twine(rank) + ", element " + param.element + ")");
  auto slot = [&](unsigned argument) -> llvm::Expected<uint64_t> {
    if (argument >= slots.size() || argument >= signature.params.size())
      return fail("the kernel's tensor map reads argument " + llvm::Twine(argument) +
                  " of a launch with " + llvm::Twine(slots.size()));
    return slots[argument];
  };
  // Slots hold values zero-extended: an i32 is sign-extended back.
  auto integer = [&](gpu::TensorMapValue tensorMapValue) -> llvm::Expected<int64_t> {
    if (tensorMapValue.argument < 0)
      return tensorMapValue.constant;
    unsigned argument = unsigned(tensorMapValue.argument);
    llvm::Expected<uint64_t> value = slot(argument);
    if (!value)
      return value.takeError();
    switch (signature.params[argument].kind) {
    case ArgKind::I32: return static_cast<int64_t>(static_cast<int32_t>(*value));
    case ArgKind::I64: return static_cast<int64_t>(*value);
    default:
      return fail("the kernel's tensor map reads argument " + llvm::Twine(argument) + " (" +
                  toString(signature.params[argument].kind) + ") as an integer");
    }
  };

  TensorMapEncoding encoding;
  encoding.dataType = *dataType;
  encoding.rank = rank;
  llvm::Expected<uint64_t> base = slot(param.base);
  if (!base)
    return base.takeError();
  if (*base % kGlobalAlignment != 0)
    return fail(llvm::formatv("argument {0} (a tensor descriptor's base) is not a multiple of "
                              "16 bytes, as TMA needs",
                              param.base)
                    .str());
  encoding.address = reinterpret_cast<void *>(static_cast<uintptr_t>(*base));
  for (unsigned dim = 0; dim < rank; ++dim) {
    unsigned outer = rank - 1 - dim; // the descriptor lists dimensions outermost first
    llvm::Expected<int64_t> extent = integer(param.shape[outer]);
    if (!extent)
      return extent.takeError();
    int64_t value = *extent;
    if (value < 1 || uint64_t(value) > kMaxExtent)
      return fail(llvm::formatv("{0} (extent {1} of a tensor descriptor) is {2}; TMA "
                                "describes extents of at least 1",
                                describe(param.shape[outer]), outer, value)
                      .str());
    encoding.dims[dim] = uint64_t(value);
    encoding.box[dim] = param.box[dim];
    encoding.elementStrides[dim] = 1;
    if (dim == 0)
      continue;
    llvm::Expected<int64_t> stride = integer(param.outerStrides[outer]);
    if (!stride)
      return stride.takeError();
    int64_t elements = *stride;
    uint64_t bytes = uint64_t(elements) * param.elementBytes;
    if (elements < 1 || bytes % kGlobalAlignment != 0 || bytes >= kMaxStrideBytes)
      return fail(llvm::formatv("{0} (stride {1} of a tensor descriptor) is {2} "
                                "elements; TMA takes positive multiples of 16 bytes below 2^40",
                                describe(param.outerStrides[outer]), outer, elements)
                      .str());
    encoding.strides[dim - 1] = bytes;
  }
  encoding.swizzle = swizzleOf(param.swizzleBytes);
  encoding.oobFill = param.nanPadding ? kOobFillNan : kOobFillNone;
  return encoding;
}

bool TensorMapEncoding::operator==(const TensorMapEncoding &other) const {
  return dataType == other.dataType && rank == other.rank && address == other.address &&
         std::equal(dims, dims + rank, other.dims) &&
         std::equal(strides, strides + rank - 1, other.strides) &&
         std::equal(box, box + rank, other.box) &&
         std::equal(elementStrides, elementStrides + rank, other.elementStrides) &&
         swizzle == other.swizzle && oobFill == other.oobFill;
}

bool TensorMapCache::find(size_t index, const TensorMapEncoding &encoding, TensorMap &map) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (index >= last_.size() || !last_[index] || !(last_[index]->encoding == encoding))
    return false;
  map = last_[index]->map;
  return true;
}

void TensorMapCache::remember(size_t index, const TensorMapEncoding &encoding,
                              const TensorMap &map) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (index >= last_.size())
    last_.resize(index + 1);
  last_[index] = Entry{encoding, map};
}

llvm::Error tessera::runtime::cuda::encodeTensorMaps(const CudaDriver &driver,
                                                     llvm::ArrayRef<gpu::TensorMapParam> params,
                                                     const KernelSignature &signature,
                                                     llvm::ArrayRef<uint64_t> slots,
                                                     llvm::SmallVectorImpl<TensorMap> &maps,
                                                     TensorMapCache &cache,
                                                     const llvm::Twine &where) {
  maps.resize(params.size());
  if (params.empty())
    return llvm::Error::success();
  const driver::Functions &api = driver.api();
  if (!api.tensorMapEncodeTiled)
    return llvm::createStringError(where + ": the kernel copies with TMA, and this CUDA driver "
                                           "lacks cuTensorMapEncodeTiled (CUDA 12 or newer)");
  for (auto [index, param, map] : llvm::enumerate(params, maps)) {
    llvm::Expected<TensorMapEncoding> e = tensorMapEncoding(param, signature, slots, where);
    if (!e)
      return e.takeError();
    if (cache.find(index, *e, map))
      continue;
    if (llvm::Error err = driver.check(
            api.tensorMapEncodeTiled(map.bytes, e->dataType, e->rank, e->address, e->dims,
                                     e->strides, e->box, e->elementStrides, kInterleaveNone,
                                     e->swizzle, kL2Promotion256B, e->oobFill),
            "cuTensorMapEncodeTiled", where))
      return err;
    cache.remember(index, *e, map);
  }
  return llvm::Error::success();
}
