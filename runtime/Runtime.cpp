#include "runtime/Runtime.h"

#include "ir/TileDialect.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OperationSupport.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#if defined(TESSERA_HAVE_CPU_LOWERING) && TESSERA_HAVE_CPU_LOWERING
#include "lowering/cpu/Pipeline.h"
#endif

#include <atomic>
#include <charconv>
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

using namespace tessera::runtime;

namespace {
llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

unsigned bitWidth(ArgKind kind) {
  switch (kind) {
  case ArgKind::Pointer: return 64;
  case ArgKind::I1: return 1;
  case ArgKind::I8: case ArgKind::F8E4M3FN: case ArgKind::F8E5M2: return 8;
  case ArgKind::I16: case ArgKind::F16: case ArgKind::BF16: return 16;
  case ArgKind::I32: case ArgKind::F32: return 32;
  case ArgKind::I64: case ArgKind::F64: return 64;
  }
  return 64;
}

std::string typeString(mlir::Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

/// Collects the error diagnostics emitted while it lives.
struct DiagnosticCollector {
  std::string text;
  llvm::raw_string_ostream os{text};
  mlir::ScopedDiagnosticHandler handler;
  explicit DiagnosticCollector(mlir::MLIRContext *context)
      : handler(context, [this](mlir::Diagnostic &diag) {
          if (diag.getSeverity() == mlir::DiagnosticSeverity::Error)
            os << "\n  " << diag.getLocation() << ": " << diag;
          return mlir::success();
        }) {}
};
} // namespace

//===----------------------------------------------------------------------===//
// Signatures
//===----------------------------------------------------------------------===//

llvm::StringRef tessera::runtime::toString(ArgKind kind) {
  switch (kind) {
  case ArgKind::Pointer: return "ptr";
  case ArgKind::I1: return "i1";
  case ArgKind::I8: return "i8";
  case ArgKind::I16: return "i16";
  case ArgKind::I32: return "i32";
  case ArgKind::I64: return "i64";
  case ArgKind::F8E4M3FN: return "f8E4M3FN";
  case ArgKind::F8E5M2: return "f8E5M2";
  case ArgKind::F16: return "f16";
  case ArgKind::BF16: return "bf16";
  case ArgKind::F32: return "f32";
  case ArgKind::F64: return "f64";
  }
  return "?";
}

bool tessera::runtime::isInteger(ArgKind kind) {
  return kind == ArgKind::I1 || kind == ArgKind::I8 || kind == ArgKind::I16 ||
         kind == ArgKind::I32 || kind == ArgKind::I64;
}

bool tessera::runtime::isFloat(ArgKind kind) {
  return kind != ArgKind::Pointer && !isInteger(kind);
}

std::string KernelSignature::str() const {
  std::string text = "(";
  for (size_t i = 0; i < params.size(); ++i) {
    if (i)
      text += ", ";
    text += toString(params[i].kind);
    if (params[i].kind == ArgKind::Pointer && !params[i].pointee.empty())
      text += "<" + params[i].pointee + ">";
  }
  return text + ")";
}

llvm::Expected<KernelSignature::Param> KernelSignature::paramFor(mlir::Type type) {
  Param param;
  if (auto ptr = llvm::dyn_cast<tessera::tile::PointerType>(type)) {
    param.kind = ArgKind::Pointer;
    param.pointee = typeString(ptr.getPointeeType());
    return param;
  }
  if (llvm::isa<mlir::LLVM::LLVMPointerType>(type)) {
    param.kind = ArgKind::Pointer;
    return param;
  }
  if (auto integer = llvm::dyn_cast<mlir::IntegerType>(type)) {
    switch (integer.getWidth()) {
    case 1: param.kind = ArgKind::I1; return param;
    case 8: param.kind = ArgKind::I8; return param;
    case 16: param.kind = ArgKind::I16; return param;
    case 32: param.kind = ArgKind::I32; return param;
    case 64: param.kind = ArgKind::I64; return param;
    default: break;
    }
  } else if (type.isF16()) {
    param.kind = ArgKind::F16;
    return param;
  } else if (type.isBF16()) {
    param.kind = ArgKind::BF16;
    return param;
  } else if (type.isF32()) {
    param.kind = ArgKind::F32;
    return param;
  } else if (type.isF64()) {
    param.kind = ArgKind::F64;
    return param;
  } else if (llvm::isa<mlir::Float8E4M3FNType>(type)) {
    param.kind = ArgKind::F8E4M3FN;
    return param;
  } else if (llvm::isa<mlir::Float8E5M2Type>(type)) {
    param.kind = ArgKind::F8E5M2;
    return param;
  }
  return makeError("a kernel argument of type " + typeString(type) +
                   " cannot be passed (pointers, i1/i8/i16/i32/i64, f8/f16/bf16/f32/f64)");
}

llvm::Expected<KernelSignature> KernelSignature::fromModule(mlir::ModuleOp module,
                                                            llvm::StringRef kernel) {
  auto fromTypes = [&](llvm::ArrayRef<mlir::Type> types) -> llvm::Expected<KernelSignature> {
    KernelSignature signature;
    for (auto [index, type] : llvm::enumerate(types)) {
      auto param = paramFor(type);
      if (!param)
        return makeError("kernel '" + kernel + "': argument " + llvm::Twine(index) + ": " +
                         llvm::toString(param.takeError()));
      signature.params.push_back(std::move(*param));
    }
    return signature;
  };

  if (auto func = module.lookupSymbol<tessera::tile::FuncOp>(kernel)) {
    if (!func.isKernel())
      return makeError("'" + kernel + "' is not a kernel (a public tile.func without results)");
    llvm::Expected<KernelSignature> signature = fromTypes(func.getArgumentTypes());
    if (!signature)
      return signature.takeError();
    for (auto [index, param] : llvm::enumerate(signature->params)) {
      param.equalToOne = func.getArgAttr(index, tessera::tile::TileDialect::kEqualToOneAttr) != nullptr;
      if (auto divisibility = func.getArgAttrOfType<mlir::IntegerAttr>(
              index, tessera::tile::TileDialect::kDivisibilityAttr))
        param.divisibility = static_cast<unsigned>(divisibility.getInt());
    }
    return signature;
  }
  std::string entry = cpu::gridEntryName(kernel);
  for (llvm::StringRef name : {llvm::StringRef(entry), kernel}) {
    mlir::Operation *op = module.lookupSymbol(name);
    if (!op)
      continue;
    auto attr = op->getAttrOfType<mlir::ArrayAttr>("tessera.kernel_arg_types");
    if (!attr)
      continue;
    llvm::SmallVector<mlir::Type> types;
    for (mlir::Attribute element : attr) {
      auto typeAttr = llvm::dyn_cast<mlir::TypeAttr>(element);
      if (!typeAttr)
        return makeError("kernel '" + kernel +
                         "': tessera.kernel_arg_types must be an array of types");
      types.push_back(typeAttr.getValue());
    }
    return fromTypes(types);
  }
  return makeError("kernel '" + kernel + "': cannot tell its signature: the module has no "
                   "tile.func @" + kernel + " and no tessera.kernel_arg_types attribute on @" +
                   entry + "; pass CompileOptions::signature (KernelSignature::fromModule of "
                   "the tile module, before lowering)");
}

//===----------------------------------------------------------------------===//
// Arguments and buffers
//===----------------------------------------------------------------------===//

std::string Argument::describe() const {
  switch (category_) {
  case Category::Pointer:
    return pointer_ ? "a pointer" : "a null pointer";
  case Category::Integer:
    if (isBool_)
      return integer_ ? "bool true" : "bool false";
    if (tooLarge_)
      return "integer " + std::to_string(static_cast<uint64_t>(integer_));
    return "integer " + std::to_string(integer_);
  case Category::Float:
  {
    char text[64];
    auto result = std::to_chars(text, text + sizeof(text), float_); // Shortest round trip.
    return "float " + std::string(text, result.ptr);
  }
  case Category::Bits:
    return llvm::formatv("{0} bits {1:x}", toString(bitsKind_), uint64_t(integer_)).str();
  }
  return "?";
}

llvm::Expected<Buffer> Buffer::allocate(CpuDevice &, size_t bytes) {
  size_t rounded = (std::max<size_t>(bytes, 1) + kAlignment - 1) / kAlignment * kAlignment;
  if (rounded < bytes)
    return makeError("cannot allocate a buffer of " + llvm::Twine(bytes) + " bytes");
  void *data = std::aligned_alloc(kAlignment, rounded);
  if (!data)
    return makeError("out of memory allocating a buffer of " + llvm::Twine(bytes) + " bytes");
  std::memset(data, 0, rounded);
  Buffer buffer;
  buffer.data_ = data;
  buffer.size_ = bytes;
  return buffer;
}

Buffer::Buffer(Buffer &&other) noexcept : data_(other.data_), size_(other.size_) {
  other.data_ = nullptr;
  other.size_ = 0;
}

Buffer &Buffer::operator=(Buffer &&other) noexcept {
  if (this != &other) {
    std::free(data_);
    data_ = other.data_;
    size_ = other.size_;
    other.data_ = nullptr;
    other.size_ = 0;
  }
  return *this;
}

Buffer::~Buffer() { std::free(data_); }

llvm::Error Buffer::copyFromHost(const void *src, size_t bytes, size_t offset) {
  if (offset > size_ || bytes > size_ - offset)
    return makeError("copyFromHost: " + llvm::Twine(bytes) + " bytes at offset " +
                     llvm::Twine(offset) + " do not fit a buffer of " + llvm::Twine(size_) +
                     " bytes");
  if (bytes)
    std::memcpy(static_cast<char *>(data_) + offset, src, bytes);
  return llvm::Error::success();
}

llvm::Error Buffer::copyToHost(void *dst, size_t bytes, size_t offset) const {
  if (offset > size_ || bytes > size_ - offset)
    return makeError("copyToHost: " + llvm::Twine(bytes) + " bytes at offset " +
                     llvm::Twine(offset) + " are outside a buffer of " + llvm::Twine(size_) +
                     " bytes");
  if (bytes)
    std::memcpy(dst, static_cast<const char *>(data_) + offset, bytes);
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Kernels and device state
//===----------------------------------------------------------------------===//

namespace tessera::runtime::detail {
struct CompiledKernel {
  std::string name;
  KernelSignature signature;
  cpu::GridEntryFn entry = nullptr;
  std::string object;
  /// Keeps the code mapped for as long as a handle lives.
  std::shared_ptr<cpu::JitEngine> jit;
};

struct DeviceState {
  CpuDeviceOptions options;
  TargetDescription target;
  cpu::ThreadPool pool;
  KernelCache cache;
  std::mutex jitMutex;
  std::shared_ptr<cpu::JitEngine> jit; ///< Created by the first compile.
  std::mutex memoMutex;
  llvm::StringMap<std::shared_ptr<const CompiledKernel>> memo; ///< Key digest -> kernel.

  static unsigned threadsFor(unsigned requested) {
    if (requested)
      return requested;
    if (const char *env = std::getenv("TESSERA_NUM_THREADS")) {
      unsigned value = 0;
      if (!llvm::StringRef(env).getAsInteger(10, value) && value > 0)
        return value;
    }
    return 0;
  }

  explicit DeviceState(CpuDeviceOptions opts)
      : options(std::move(opts)), target(options.target ? *options.target
                                                        : TargetDescription::host()),
        pool(threadsFor(options.threads)),
        cache(options.cacheDirectory.empty() ? KernelCache::defaultDirectory("cpu")
                                              : options.cacheDirectory,
              options.diskCache && KernelCache::enabledByEnvironment()) {}

  cpu::CompilerOptions compilerOptions() const {
    cpu::CompilerOptions compiler;
    compiler.target = target;
    compiler.optLevel = options.optLevel;
    return compiler;
  }
};
} // namespace tessera::runtime::detail

llvm::StringRef Kernel::name() const { return impl_->name; }
const KernelSignature &Kernel::signature() const { return impl_->signature; }
cpu::GridEntryFn Kernel::entry() const { return impl_->entry; }
llvm::StringRef Kernel::objectFile() const { return impl_->object; }

llvm::Error Kernel::saveObjectFile(llvm::StringRef path) const {
  std::error_code ec;
  llvm::ToolOutputFile out(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return makeError("cannot write '" + path + "': " + ec.message());
  out.os() << impl_->object;
  out.os().flush();
  if (out.os().has_error())
    return makeError("cannot write '" + path + "': " + out.os().error().message());
  out.keep();
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// The assert hook
//===----------------------------------------------------------------------===//

namespace {
struct LaunchState {
  llvm::StringRef kernel;
  std::atomic<bool> failed{false};
  std::mutex mutex;
  std::string firstFailure;
  uint64_t failures = 0;
};

/// What the program running on this thread is; `env` is where a failed
/// assert jumps back to (the kernel's frames hold nothing to unwind).
struct ProgramContext {
  LaunchState *launch = nullptr;
  int32_t x = 0, y = 0, z = 0;
  std::jmp_buf env;
};

thread_local ProgramContext *currentProgram = nullptr;
} // namespace

extern "C" void __tessera_assert_fail(const char *message, const char *file, int line) {
  ProgramContext *program = currentProgram;
  std::string where = llvm::formatv("{0}:{1}: device assertion failed: {2}",
                                    file ? file : "<unknown>", line,
                                    message ? message : "").str();
  if (!program) {
    // Called outside a launch (an ahead-of-time object run by hand): nobody
    // can receive the error.
    std::fprintf(stderr, "%s\n", where.c_str());
    std::abort();
  }
  LaunchState &launch = *program->launch;
  {
    std::lock_guard<std::mutex> lock(launch.mutex);
    if (launch.failures++ == 0)
      launch.firstFailure = llvm::formatv("kernel '{0}', program ({1}, {2}, {3}): {4}",
                                          launch.kernel, program->x, program->y, program->z,
                                          where)
                                .str();
  }
  launch.failed.store(true, std::memory_order_relaxed);
  std::longjmp(program->env, 1);
}

namespace {
struct LaunchPlan {
  cpu::GridEntryFn entry;
  void **args;
  int32_t nx, ny, nz;
  LaunchState *state;
};

[[gnu::noinline]] void runPrograms(const LaunchPlan &plan, ProgramContext &context,
                                   uint64_t begin, uint64_t end) {
  uint64_t nx = uint64_t(plan.nx), nxy = nx * uint64_t(plan.ny);
  for (uint64_t i = begin; i < end; ++i) {
    if (plan.state->failed.load(std::memory_order_relaxed))
      return;
    context.x = int32_t(i % nx);
    context.y = int32_t((i / nx) % uint64_t(plan.ny));
    context.z = int32_t(i / nxy);
    plan.entry(plan.args, context.x, context.y, context.z, plan.nx, plan.ny, plan.nz);
  }
}

void runRange(const LaunchPlan &plan, uint64_t begin, uint64_t end) {
  ProgramContext context;
  context.launch = plan.state;
  ProgramContext *saved = currentProgram;
  currentProgram = &context;
  if (setjmp(context.env) == 0)
    runPrograms(plan, context, begin, end);
  currentProgram = saved;
}

} // namespace

llvm::Error tessera::runtime::packArgument(llvm::StringRef kernel, size_t index,
                                           const KernelSignature::Param &param,
                                           const Argument &arg, uint64_t &slot) {
  std::string paramName = toString(param.kind).str();
  if (param.kind == ArgKind::Pointer && !param.pointee.empty())
    paramName += "<" + param.pointee + ">";
  auto mismatch = [&](const llvm::Twine &why) {
    return makeError("kernel '" + kernel + "': argument " + llvm::Twine(index) + " is " +
                     paramName + ", got " + arg.describe() + why);
  };
  slot = 0;
  switch (arg.category()) {
  case Argument::Category::Pointer: {
    if (param.kind != ArgKind::Pointer)
      return mismatch("");
    void *pointer = arg.pointer();
    if (param.divisibility && reinterpret_cast<uintptr_t>(pointer) % param.divisibility)
      return mismatch(" (the kernel was specialized for addresses divisible by " +
                      llvm::Twine(param.divisibility) + ")");
    std::memcpy(&slot, &pointer, sizeof(pointer));
    return llvm::Error::success();
  }
  case Argument::Category::Bits:
    if (arg.bitsKind() != param.kind)
      return mismatch("");
    slot = uint64_t(arg.integer()) &
           (bitWidth(param.kind) == 64 ? ~uint64_t(0) : (uint64_t(1) << bitWidth(param.kind)) - 1);
    return llvm::Error::success();
  case Argument::Category::Integer: {
    if (!isInteger(param.kind))
      return mismatch(param.kind == ArgKind::Pointer ? "" : " (pass a floating-point value)");
    unsigned width = bitWidth(param.kind);
    int64_t value = arg.integer();
    bool fits;
    if (arg.tooLarge())
      fits = false;
    else if (width == 64)
      fits = true;
    else if (width == 1)
      fits = value == 0 || value == 1;
    else
      fits = value >= -(int64_t(1) << (width - 1)) && value < (int64_t(1) << width);
    if (!fits)
      return mismatch(" (out of range)");
    if (param.equalToOne && value != 1)
      return mismatch(" (the kernel was specialized for the value 1: tile.equal_to_1)");
    if (param.divisibility && value % param.divisibility)
      return mismatch(" (the kernel was specialized for multiples of " +
                      llvm::Twine(param.divisibility) + ")");
    slot = uint64_t(value) & (width == 64 ? ~uint64_t(0) : (uint64_t(1) << width) - 1);
    return llvm::Error::success();
  }
  case Argument::Category::Float: {
    if (!isFloat(param.kind))
      return mismatch(param.kind == ArgKind::Pointer ? "" : " (pass an integer value)");
    double value = arg.floating();
    if (param.kind == ArgKind::F64) {
      std::memcpy(&slot, &value, sizeof(value));
    } else if (param.kind == ArgKind::F32) {
      float f = static_cast<float>(value);
      std::memcpy(&slot, &f, sizeof(f));
    } else {
      const llvm::fltSemantics &semantics =
          param.kind == ArgKind::F16        ? llvm::APFloat::IEEEhalf()
          : param.kind == ArgKind::BF16     ? llvm::APFloat::BFloat()
          : param.kind == ArgKind::F8E4M3FN ? llvm::APFloat::Float8E4M3FN()
                                            : llvm::APFloat::Float8E5M2();
      llvm::APFloat converted(value);
      bool losesInfo = false;
      converted.convert(semantics, llvm::APFloat::rmNearestTiesToEven, &losesInfo);
      slot = converted.bitcastToAPInt().getZExtValue();
    }
    return llvm::Error::success();
  }
  }
  return mismatch("");
}

//===----------------------------------------------------------------------===//
// CpuDevice
//===----------------------------------------------------------------------===//

CpuDevice::CpuDevice(unsigned threads)
    : CpuDevice([&] {
        CpuDeviceOptions options;
        options.threads = threads;
        return options;
      }()) {}

CpuDevice::CpuDevice(CpuDeviceOptions options)
    : state_(std::make_unique<detail::DeviceState>(std::move(options))) {}

CpuDevice::~CpuDevice() = default;

unsigned CpuDevice::numThreads() const { return state_->pool.size(); }
const TargetDescription &CpuDevice::target() const { return state_->target; }
CacheStats CpuDevice::cacheStats() const { return state_->cache.stats(); }
KernelCache &CpuDevice::cache() { return state_->cache; }
cpu::ThreadPool &CpuDevice::threadPool() { return state_->pool; }

llvm::Expected<Kernel> CpuDevice::compileWith(
    const cpu::CacheKey &key, llvm::StringRef kernel, const KernelSignature &signature,
    llvm::function_ref<llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>()> build) {
  std::string keyText = key.canonicalText();
  std::string digest = sha256Hex(keyText);
  {
    std::lock_guard<std::mutex> lock(state_->memoMutex);
    auto it = state_->memo.find(digest);
    if (it != state_->memo.end()) {
      state_->cache.noteMemoryHit();
      return Kernel(it->second, KernelOrigin::MemoryCache);
    }
  }

  std::shared_ptr<cpu::JitEngine> jit;
  {
    std::lock_guard<std::mutex> lock(state_->jitMutex);
    if (!state_->jit) {
      cpu::JitEngine::Symbol assertFail{"__tessera_assert_fail",
                                        reinterpret_cast<void *>(&__tessera_assert_fail)};
      auto created = cpu::JitEngine::create({assertFail});
      if (!created)
        return makeError("kernel '" + kernel + "': cannot create the JIT: " +
                         llvm::toString(created.takeError()));
      state_->jit = std::move(*created);
    }
    jit = state_->jit;
  }

  auto kernelImpl = std::make_shared<detail::CompiledKernel>();
  kernelImpl->name = kernel.str();
  kernelImpl->signature = signature;
  kernelImpl->jit = jit;
  std::string entryName = cpu::gridEntryName(kernel);

  KernelOrigin origin = KernelOrigin::DiskCache;
  std::unique_ptr<llvm::MemoryBuffer> object = state_->cache.lookup(keyText);
  if (object) {
    kernelImpl->object = object->getBuffer().str();
    auto address = jit->load(std::move(object), entryName);
    if (address) {
      kernelImpl->entry = reinterpret_cast<cpu::GridEntryFn>(*address);
    } else {
      // A well-formed entry the JIT cannot link (should not happen): drop it
      // and rebuild rather than fail.
      llvm::consumeError(address.takeError());
      state_->cache.reject(keyText);
    }
  }
  if (!kernelImpl->entry) {
    origin = KernelOrigin::Compiled;
    state_->cache.noteMiss();
    auto built = build();
    if (!built)
      return makeError("kernel '" + kernel + "': " + llvm::toString(built.takeError()));
    kernelImpl->object = (*built)->getBuffer().str();
    if (llvm::Error err = state_->cache.store(keyText, kernelImpl->object))
      llvm::consumeError(std::move(err)); // Counted in the stats; the compile still succeeds.
    auto address = jit->load(std::move(*built), entryName);
    if (!address)
      return makeError("kernel '" + kernel + "': cannot link its code: " +
                       llvm::toString(address.takeError()));
    kernelImpl->entry = reinterpret_cast<cpu::GridEntryFn>(*address);
  }

  std::shared_ptr<const detail::CompiledKernel> result = std::move(kernelImpl);
  {
    std::lock_guard<std::mutex> lock(state_->memoMutex);
    state_->memo.try_emplace(digest, result);
  }
  return Kernel(result, origin);
}

static llvm::Error checkGridEntry(mlir::ModuleOp module, llvm::StringRef kernel) {
  std::string entry = cpu::gridEntryName(kernel);
  auto func = module.lookupSymbol<mlir::LLVM::LLVMFuncOp>(entry);
  if (!func || func.isExternal())
    return makeError("kernel '" + kernel + "': the module defines no llvm.func @" + entry +
                     " (is it lowered to the LLVM dialect for the CPU?)");
  mlir::LLVM::LLVMFunctionType type = func.getFunctionType();
  bool ok = type.getNumParams() == 7 && llvm::isa<mlir::LLVM::LLVMVoidType>(type.getReturnType()) &&
            llvm::isa<mlir::LLVM::LLVMPointerType>(type.getParamType(0));
  for (unsigned i = 1; ok && i < 7; ++i)
    ok = type.getParamType(i).isInteger(32);
  if (!ok)
    return makeError("kernel '" + kernel + "': @" + entry +
                     " must be (!llvm.ptr, i32, i32, i32, i32, i32, i32) -> void, is " +
                     typeString(type));
  return llvm::Error::success();
}

llvm::Expected<Kernel> CpuDevice::compile(mlir::ModuleOp lowered, llvm::StringRef kernel,
                                          const CompileOptions &options) {
  if (llvm::Error err = checkGridEntry(lowered, kernel))
    return std::move(err);
  KernelSignature signature;
  if (options.signature) {
    signature = *options.signature;
  } else {
    auto found = KernelSignature::fromModule(lowered, kernel);
    if (!found)
      return found.takeError();
    signature = std::move(*found);
  }
  cpu::CompilerOptions compiler = state_->compilerOptions();
  cpu::CacheKey key = cpu::CacheKey::make(keyedModuleText(lowered), "llvm", kernel, compiler,
                                          signature.str());
  return compileWith(key, kernel, signature,
                     [&]() { return cpu::compileToObject(lowered, compiler); });
}

llvm::Expected<Kernel> CpuDevice::compileTile(mlir::ModuleOp tileModule, llvm::StringRef kernel,
                                              const CompileOptions &options) {
  auto func = tileModule.lookupSymbol<tessera::tile::FuncOp>(kernel);
  if (!func)
    return makeError("kernel '" + kernel + "': the module has no tile.func @" + kernel);
  KernelSignature signature;
  if (options.signature) {
    signature = *options.signature;
  } else {
    auto found = KernelSignature::fromModule(tileModule, kernel);
    if (!found)
      return found.takeError();
    signature = std::move(*found);
  }
  cpu::CompilerOptions compiler = state_->compilerOptions();
  std::string extra = signature.str() + (options.lowering ? " lowering=custom" : "");
  cpu::CacheKey key =
      cpu::CacheKey::make(keyedModuleText(tileModule), "tile", kernel, compiler, extra);
  auto build = [&]() -> llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> {
    mlir::OwningOpRef<mlir::ModuleOp> clone = tileModule.clone();
    mlir::LogicalResult lowered = mlir::failure();
    std::string diagnostics;
    {
      DiagnosticCollector collector(tileModule->getContext());
      lowered = options.lowering ? options.lowering(*clone, state_->target)
                                 : lowerTileForCpu(*clone, state_->target);
      diagnostics = collector.text;
    }
    if (mlir::failed(lowered))
      return makeError("lowering to the LLVM dialect failed" + diagnostics);
    if (llvm::Error err = checkGridEntry(*clone, kernel))
      return std::move(err);
    return cpu::compileToObject(*clone, compiler);
  };
  return compileWith(key, kernel, signature, build);
}

llvm::Error CpuDevice::launch(const Kernel &kernel, Grid grid, llvm::ArrayRef<Argument> args) {
  if (!kernel)
    return makeError("launch of an empty Kernel handle (compile one first)");
  const detail::CompiledKernel &compiled = *kernel.impl_;
  const KernelSignature &signature = compiled.signature;
  if (args.size() != signature.params.size())
    return makeError("kernel '" + compiled.name + "' takes " +
                     llvm::Twine(signature.params.size()) + " arguments " + signature.str() +
                     ", got " + llvm::Twine(args.size()));
  constexpr uint32_t kMaxDim = 0x7fffffff;
  if (grid.x > kMaxDim || grid.y > kMaxDim || grid.z > kMaxDim)
    return makeError(llvm::formatv("kernel '{0}': grid ({1}, {2}, {3}) has a dimension above "
                                   "2^31 - 1",
                                   compiled.name, grid.x, grid.y, grid.z)
                         .str());

  llvm::SmallVector<uint64_t, 16> slots(args.size());
  llvm::SmallVector<void *, 16> pointers(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    if (llvm::Error err = packArgument(compiled.name, i, signature.params[i], args[i], slots[i]))
      return err;
    pointers[i] = &slots[i]; // Little-endian: the low bytes are the value of any width.
  }
  uint64_t programs = grid.size();
  if (programs == 0)
    return llvm::Error::success();

  LaunchState state;
  state.kernel = compiled.name;
  LaunchPlan plan{compiled.entry, pointers.data(), int32_t(grid.x), int32_t(grid.y),
                  int32_t(grid.z), &state};
  state_->pool.parallelFor(
      programs, [&](uint64_t begin, uint64_t end) { runRange(plan, begin, end); },
      state_->options.schedule);
  if (state.failed.load()) {
    std::lock_guard<std::mutex> lock(state.mutex);
    std::string message = state.firstFailure;
    if (state.failures > 1)
      message += " (" + std::to_string(state.failures - 1) + " more programs failed too)";
    return makeError(message);
  }
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Lowering
//===----------------------------------------------------------------------===//

bool tessera::runtime::hasCpuLowering() {
#if defined(TESSERA_HAVE_CPU_LOWERING) && TESSERA_HAVE_CPU_LOWERING
  return true;
#else
  return false;
#endif
}

mlir::LogicalResult tessera::runtime::lowerTileForCpu(mlir::ModuleOp module,
                                                      const TargetDescription &target) {
#if defined(TESSERA_HAVE_CPU_LOWERING) && TESSERA_HAVE_CPU_LOWERING
  return tessera::cpu::lowerTileToLLVM(module, target);
#else
  (void)target;
  return mlir::emitError(module.getLoc())
         << "this build of Tessera has no CPU lowering (lowering/cpu); lower the module "
            "yourself and call CpuDevice::compile, or pass CompileOptions::lowering";
#endif
}
