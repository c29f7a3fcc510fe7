// The runtime API for C++ callers: compile a lowered module for a device,
// allocate device memory, launch a kernel over a grid. Errors are
// llvm::Error / llvm::Expected whose messages name the kernel and, for a bad
// argument, which argument and why. docs/runtime.md describes it.
//
//   tessera::runtime::CpuDevice device;                        // all cores
//   auto kernel = device.compile(loweredModule, "vector_add",
//                                {KernelSignature::fromModule(tileModule, "vector_add")});
//   auto x = Buffer::allocate(device, n * sizeof(float));      // 64-byte aligned
//   ...
//   if (llvm::Error err = device.launch(*kernel, {blocks}, {*x, *y, *out, n})) ...
#ifndef TESSERA_RUNTIME_RUNTIME_H
#define TESSERA_RUNTIME_RUNTIME_H

#include "runtime/cache/KernelCache.h"
#include "runtime/cpu/CacheKey.h"
#include "runtime/cpu/CpuCompiler.h"
#include "runtime/cpu/ThreadPool.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace tessera::runtime {

using cpu::Schedule;
using cpu::TargetDescription;

//===----------------------------------------------------------------------===//
// Kernel signatures
//===----------------------------------------------------------------------===//

/// The type of one kernel argument, as the kernel ABI passes it.
enum class ArgKind : uint8_t {
  Pointer, ///< `void *` slot holding the data address.
  I1,      ///< uint8_t (0 or 1).
  I8,
  I16,
  I32,
  I64,
  F8E4M3FN, ///< uint8_t bits.
  F8E5M2,   ///< uint8_t bits.
  F16,      ///< uint16_t bits.
  BF16,     ///< uint16_t bits.
  F32,
  F64,
};

/// "ptr", "i32", "f16", ...
llvm::StringRef toString(ArgKind kind);
bool isInteger(ArgKind kind);
bool isFloat(ArgKind kind);

struct KernelSignature {
  struct Param {
    ArgKind kind = ArgKind::I32;
    /// The element type a pointer points to ("f32"), when known; else empty.
    std::string pointee;
    /// What the kernel was specialized for (`tile.equal_to_1`,
    /// `tile.divisibility`): a launch passing anything else is refused, since
    /// the code relies on it.
    bool equalToOne = false;
    unsigned divisibility = 0;
  };
  std::vector<Param> params;

  /// `(ptr<f32>, ptr<f32>, i32)`.
  std::string str() const;

  /// The signature of kernel `kernel` of `module`, from (in this order) a
  /// `tile.func @kernel`, or a `tessera.kernel_arg_types` array of types
  /// (tile or LLVM/builtin) on `llvm.func @kernel__grid_entry` or
  /// `llvm.func @kernel`. Record it from the tile module before lowering.
  static llvm::Expected<KernelSignature> fromModule(mlir::ModuleOp module,
                                                    llvm::StringRef kernel);
  /// The kind of one tile/builtin/LLVM type; an error names the type.
  static llvm::Expected<Param> paramFor(mlir::Type type);
};

//===----------------------------------------------------------------------===//
// Devices, buffers, kernels, arguments
//===----------------------------------------------------------------------===//

class CpuDevice;

/// Device memory. On the CPU: a zero-initialized host allocation aligned to
/// 64 bytes. Move-only; freed with the Buffer.
class Buffer {
public:
  static constexpr size_t kAlignment = 64;

  static llvm::Expected<Buffer> allocate(CpuDevice &device, size_t bytes);

  Buffer() = default;
  Buffer(Buffer &&other) noexcept;
  Buffer &operator=(Buffer &&other) noexcept;
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;
  ~Buffer();

  void *data() { return data_; }
  const void *data() const { return data_; }
  template <typename T> T *as() { return static_cast<T *>(data_); }
  template <typename T> const T *as() const { return static_cast<const T *>(data_); }
  size_t size() const { return size_; }

  /// Copies `bytes` bytes from `src` to offset `offset` of the buffer.
  llvm::Error copyFromHost(const void *src, size_t bytes, size_t offset = 0);
  /// Copies `bytes` bytes from offset `offset` of the buffer to `dst`.
  llvm::Error copyToHost(void *dst, size_t bytes, size_t offset = 0) const;

private:
  void *data_ = nullptr;
  size_t size_ = 0;
};

/// One launch argument. Implicit from a Buffer, a pointer, any integer or
/// floating-point value, so that `launch(k, grid, {x, y, out, n})` reads well.
/// Checked at launch against the kernel's signature: pointers go to pointer
/// parameters; integers to integer parameters whose width holds them (signed
/// or unsigned range); floats to float parameters (converted, rounding to
/// nearest even for f16/bf16/f8). `bits()` passes raw bits of exactly one kind.
class Argument {
public:
  enum class Category : uint8_t { Pointer, Integer, Float, Bits };

  Argument(const Buffer &buffer)
      : category_(Category::Pointer), pointer_(const_cast<void *>(buffer.data())) {}
  Argument(std::nullptr_t) : category_(Category::Pointer) {}
  template <typename T>
  Argument(T *pointer)
      : category_(Category::Pointer), pointer_(const_cast<void *>(static_cast<const void *>(pointer))) {}
  Argument(bool value) : category_(Category::Integer), integer_(value), isBool_(true) {}
  template <typename T>
    requires(std::is_integral_v<T> && !std::is_same_v<T, bool>)
  Argument(T value) : category_(Category::Integer), integer_(static_cast<int64_t>(value)) {
    if constexpr (std::is_unsigned_v<T> && sizeof(T) >= sizeof(int64_t))
      tooLarge_ = value > static_cast<T>(INT64_MAX);
  }
  template <typename T>
    requires std::is_floating_point_v<T>
  Argument(T value) : category_(Category::Float), float_(static_cast<double>(value)) {}

  /// The raw bits of a value of `kind` (f16, bf16, f8 ...: the low bits).
  static Argument bits(ArgKind kind, uint64_t bits) {
    Argument arg(nullptr);
    arg.category_ = Category::Bits;
    arg.bitsKind_ = kind;
    arg.integer_ = static_cast<int64_t>(bits);
    return arg;
  }

  Category category() const { return category_; }
  void *pointer() const { return pointer_; }
  int64_t integer() const { return integer_; }
  double floating() const { return float_; }
  ArgKind bitsKind() const { return bitsKind_; }
  /// An unsigned 64-bit value above INT64_MAX (rejected at launch).
  bool tooLarge() const { return tooLarge_; }
  /// "a pointer", "integer 5", "float 2.5", "f16 bits 0x3c00".
  std::string describe() const;

private:
  Category category_;
  void *pointer_ = nullptr;
  int64_t integer_ = 0;
  double float_ = 0;
  ArgKind bitsKind_ = ArgKind::I32;
  bool isBool_ = false;
  bool tooLarge_ = false;
};

/// Checks `arg` against parameter `index` of kernel `kernel` and writes the
/// value the kernel ABI passes to `slot`, zero-extended (on a little-endian
/// host its low bytes are the value of any width). Every device's launch
/// uses it, so all reject the same arguments with the same messages.
llvm::Error packArgument(llvm::StringRef kernel, size_t index, const KernelSignature::Param &param,
                         const Argument &arg, uint64_t &slot);

/// Number of programs along each axis; program ids run x fastest.
struct Grid {
  uint32_t x = 1, y = 1, z = 1;
  uint64_t size() const { return uint64_t(x) * y * z; }
};

namespace detail {
struct CompiledKernel;
struct DeviceState;
} // namespace detail

enum class KernelOrigin {
  Compiled,    ///< This compile ran LLVM's optimizer and code generator.
  DiskCache,   ///< Loaded from the on-disk cache.
  MemoryCache, ///< Already compiled by this device.
};

/// A compiled kernel. Cheap to copy; its code stays valid while any copy (or
/// its device) lives. It can be launched on any CpuDevice.
class Kernel {
public:
  Kernel() = default;
  explicit operator bool() const { return impl_ != nullptr; }

  llvm::StringRef name() const;
  const KernelSignature &signature() const;
  cpu::GridEntryFn entry() const;
  /// How this handle was obtained (the first compile; a later compile of the
  /// same module returns a handle whose origin is MemoryCache).
  KernelOrigin origin() const { return origin_; }
  /// The relocatable object the code was linked from (ahead-of-time use).
  llvm::StringRef objectFile() const;
  llvm::Error saveObjectFile(llvm::StringRef path) const;

private:
  friend class CpuDevice;
  Kernel(std::shared_ptr<const detail::CompiledKernel> impl, KernelOrigin origin)
      : impl_(std::move(impl)), origin_(origin) {}
  std::shared_ptr<const detail::CompiledKernel> impl_;
  KernelOrigin origin_ = KernelOrigin::Compiled;
};

struct CpuDeviceOptions {
  /// Threads of the pool, the launching thread included. 0: $TESSERA_NUM_THREADS
  /// if set, else the number of hardware threads.
  unsigned threads = 0;
  /// The CPU code is generated for; default the host.
  std::optional<TargetDescription> target;
  unsigned optLevel = 3;
  /// The on-disk cache; also off when $TESSERA_CACHE is "0" or "off".
  bool diskCache = true;
  /// Default: KernelCache::defaultDirectory("cpu").
  std::string cacheDirectory;
  /// How the grid is split over the pool.
  Schedule schedule = Schedule::Dynamic;
};

/// Rewrites a tile module (in place) into the LLVM dialect for a target.
using LoweringFn = std::function<mlir::LogicalResult(mlir::ModuleOp, const TargetDescription &)>;

struct CompileOptions {
  /// The kernel's parameters. When absent, KernelSignature::fromModule.
  std::optional<KernelSignature> signature;
  /// compileTile only: the lowering to run instead of lowering/cpu's
  /// lowerTileToLLVM (tests; experiments).
  LoweringFn lowering;
};

/// The CPU as a device: a thread pool, an ORC JIT holding the compiled code,
/// an in-memory kernel cache in front of the on-disk one. Thread-safe:
/// compiles and launches may come from several threads (launches on one
/// device run one at a time, each over the whole pool). Devices are
/// independent; no state is shared between them but the disk cache's files.
class CpuDevice {
public:
  explicit CpuDevice(unsigned threads = 0);
  explicit CpuDevice(CpuDeviceOptions options);
  ~CpuDevice();
  CpuDevice(const CpuDevice &) = delete;
  CpuDevice &operator=(const CpuDevice &) = delete;

  unsigned numThreads() const;
  const TargetDescription &target() const;

  /// Compiles kernel `kernel` of `lowered`, a module in the LLVM dialect that
  /// defines `llvm.func @<kernel>__grid_entry` (the kernel ABI). Answers from
  /// the in-memory cache, else from the disk cache, else compiles and stores.
  llvm::Expected<Kernel> compile(mlir::ModuleOp lowered, llvm::StringRef kernel,
                                 const CompileOptions &options = {});

  /// Compiles kernel `kernel` of a tile module: records its signature from
  /// the `tile.func`, then (on a cache miss) lowers a clone of the module
  /// with `options.lowering` or lowering/cpu's lowerTileToLLVM and compiles
  /// it. Keyed on the tile IR text, so a hit skips lowering too.
  llvm::Expected<Kernel> compileTile(mlir::ModuleOp tileModule, llvm::StringRef kernel,
                                     const CompileOptions &options = {});

  /// Runs `kernel` once per program of `grid` on the pool. Checks the
  /// arguments against the signature first. A failed `tl.device_assert`
  /// (`__tessera_assert_fail`) ends its program, no new programs start, and
  /// the first failure is returned (the other programs' effects may remain).
  /// An empty grid runs nothing.
  llvm::Error launch(const Kernel &kernel, Grid grid, llvm::ArrayRef<Argument> args);

  CacheStats cacheStats() const;
  KernelCache &cache();
  cpu::ThreadPool &threadPool();

private:
  llvm::Expected<Kernel> compileWith(const cpu::CacheKey &key, llvm::StringRef kernel,
                                     const KernelSignature &signature,
                                     llvm::function_ref<llvm::Expected<std::unique_ptr<
                                         llvm::MemoryBuffer>>()> build);
  std::unique_ptr<detail::DeviceState> state_;
};

/// The lowering the runtime uses in compileTile when none is given: lowering/cpu's
/// lowerTileToLLVM when this build has it, else an error saying so.
mlir::LogicalResult lowerTileForCpu(mlir::ModuleOp module, const TargetDescription &target);
/// Whether this build links lowering/cpu.
bool hasCpuLowering();

} // namespace tessera::runtime

#endif // TESSERA_RUNTIME_RUNTIME_H
