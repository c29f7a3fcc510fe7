// The GPU devices of tessera._C: Vulkan, CUDA and HIP devices opened on first
// use, device buffers (what a tessera.array on a GPU holds), kernels compiled
// with compileTileForGpu for a device's own target, and launches. The Python
// side is python/tessera/arrays.py (arrays) and jit.py (launches).
//
//   ok, text = _C.device_status("vulkan", 0)     # text: description or why not
//   buf = _C.device_allocate("vulkan", 0, nbytes)
//   buf.copy_from_host(address, nbytes)
//   k = _C.device_compile(module, "add", "vulkan", 0, num_warps, num_stages,
//                         fp_fusion=True, max_registers=0)
//   _C.device_launch(k, [grid_x, grid_y, grid_z], [("buf", buf), ("int", n)], stream=0)
#include "python/src/Bindings.h"

#include "lowering/gpu/Compile.h"
#include "runtime/Runtime.h"
#include "runtime/cuda/CudaDevice.h"
#include "runtime/hip/HipDevice.h"
#ifdef TESSERA_HAVE_VULKAN_RUNTIME
#include "runtime/vulkan/VulkanDevice.h"
#endif

#include "mlir/IR/Location.h"

#include <pybind11/stl.h>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace py = pybind11;

namespace tessera::python {
namespace {

[[noreturn]] void raiseError(const char *errorClass, const std::string &message) {
  py::object cls = py::module_::import("tessera.errors").attr(errorClass);
  PyErr_SetObject(cls.ptr(), py::str(message).ptr());
  throw py::error_already_set();
}

/// A kernel that does not compile for a device: tessera.CompilationError at
/// the kernel's definition, the message holding each failing op's location.
[[noreturn]] void raiseCompilationError(PyModule &m, llvm::StringRef kernel,
                                        const std::string &message) {
  std::string file = "<unknown>";
  unsigned line = 0, column = 0;
  if (auto func = m.module->lookupSymbol(kernel))
    if (auto loc = func->getLoc()->findInstanceOf<mlir::FileLineColLoc>()) {
      file = loc.getFilename().str();
      line = loc.getLine();
      column = loc.getColumn();
    }
  py::object cls = py::module_::import("tessera.errors").attr("CompilationError");
  PyErr_SetObject(cls.ptr(), cls(message, file, line, column).ptr());
  throw py::error_already_set();
}

enum class DeviceKind { Vulkan, Cuda, Hip };

DeviceKind parseKind(const std::string &name) {
  if (name == "vulkan")
    return DeviceKind::Vulkan;
  if (name == "cuda")
    return DeviceKind::Cuda;
  if (name == "hip")
    return DeviceKind::Hip;
  throw py::value_error("unknown GPU device kind '" + name + "' (vulkan, cuda, hip)");
}

/// One opened device of any kind. Exactly one of the runtime pointers is set.
struct Device {
  DeviceKind kind;
  int index = 0;
  gpu::GpuTarget target;
  std::string description;
#ifdef TESSERA_HAVE_VULKAN_RUNTIME
  std::unique_ptr<runtime::vulkan::VulkanDevice> vulkan;
#endif
  std::unique_ptr<runtime::cuda::CudaDevice> cuda;
  std::unique_ptr<runtime::hip::HipDevice> hip;
};

/// A device, or why it cannot be opened.
struct DeviceSlot {
  std::unique_ptr<Device> device;
  std::string unavailable;
};

llvm::Expected<std::unique_ptr<Device>> openDevice(DeviceKind kind, int index) {
  auto device = std::make_unique<Device>();
  device->kind = kind;
  device->index = index;
  switch (kind) {
  case DeviceKind::Vulkan: {
#ifdef TESSERA_HAVE_VULKAN_RUNTIME
    // Index 0 is the preferred device ($TESSERA_VULKAN_DEVICE, else the
    // first discrete GPU, ...); others pick from the device list.
    runtime::vulkan::VulkanDeviceOptions options;
    if (index != 0)
      options.select = std::to_string(index);
    auto vulkan = runtime::vulkan::VulkanDevice::open(options);
    if (!vulkan)
      return vulkan.takeError();
    device->target = (*vulkan)->target();
    device->description = (*vulkan)->info().name;
    device->vulkan = std::move(*vulkan);
    break;
#else
    return llvm::createStringError("this build of tessera has no Vulkan runtime (the Vulkan "
                                   "headers were missing when it was built)");
#endif
  }
  case DeviceKind::Cuda: {
    std::string why;
    if (!runtime::cuda::CudaDevice::isAvailable(index, &why))
      return llvm::createStringError(why);
    auto cuda = runtime::cuda::CudaDevice::open(index);
    if (!cuda)
      return cuda.takeError();
    auto target = (*cuda)->info().compileTarget();
    if (!target)
      return target.takeError();
    device->target = *target;
    device->description = (*cuda)->info().name;
    device->cuda = std::move(*cuda);
    break;
  }
  case DeviceKind::Hip: {
    auto hip = runtime::hip::HipDevice::open(index);
    if (!hip)
      return hip.takeError();
    device->target = (*hip)->target();
    device->description = (*hip)->name().str();
    device->hip = std::move(*hip);
    break;
  }
  }
  device->description += " (" + device->target.str() + ")";
  return device;
}

/// The device (kind, index), opened once per process; a failure is kept too,
/// so that asking again gives the same reason without retrying the driver.
DeviceSlot &slotFor(DeviceKind kind, int index) {
  // Never destroyed: buffers and kernels Python still holds refer to them,
  // and the drivers clean up at exit themselves.
  static auto *slots = new std::map<std::pair<DeviceKind, int>, DeviceSlot>();
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  auto [it, inserted] = slots->try_emplace({kind, index});
  if (inserted) {
    auto device = openDevice(kind, index);
    if (device)
      it->second.device = std::move(*device);
    else
      it->second.unavailable = llvm::toString(device.takeError());
  }
  return it->second;
}

const char *kindName(DeviceKind kind) {
  switch (kind) {
  case DeviceKind::Vulkan:
    return "Vulkan";
  case DeviceKind::Cuda:
    return "CUDA";
  case DeviceKind::Hip:
    return "HIP";
  }
  return "GPU";
}

Device &deviceFor(const std::string &kind, int index) {
  DeviceKind parsed = parseKind(kind);
  DeviceSlot &slot = slotFor(parsed, index);
  if (!slot.device) {
    py::object cls = py::module_::import("tessera.arrays").attr("DeviceError");
    PyErr_SetObject(cls.ptr(), py::str("no " + std::string(kindName(parsed)) +
                                       " device: " + slot.unavailable)
                                   .ptr());
    throw py::error_already_set();
  }
  return *slot.device;
}

py::tuple deviceStatus(const std::string &kind, int index) {
  DeviceSlot &slot = slotFor(parseKind(kind), index);
  if (slot.device)
    return py::make_tuple(true, slot.device->description);
  return py::make_tuple(false, slot.unavailable);
}

//===----------------------------------------------------------------------===//
// Buffers
//===----------------------------------------------------------------------===//

/// Device memory of one tessera.array. Zero-filled when allocated.
class DeviceBuffer {
public:
  DeviceBuffer(Device &device, size_t bytes) : device_(&device), bytes_(bytes) {
    llvm::Error error = llvm::Error::success();
    switch (device.kind) {
    case DeviceKind::Vulkan:
#ifdef TESSERA_HAVE_VULKAN_RUNTIME
      // Vulkan has no empty buffers: an empty array still binds one.
      error = assign(device.vulkan->allocate(std::max<size_t>(bytes, 4)), vulkan_);
#endif
      break;
    case DeviceKind::Cuda:
      error = assign(device.cuda->allocate(std::max<size_t>(bytes, 1)), cuda_);
      break;
    case DeviceKind::Hip:
      error = assign(runtime::hip::HipBuffer::allocate(*device.hip, std::max<size_t>(bytes, 1)),
                     hip_);
      break;
    }
    if (error)
      raiseError("LaunchError", "cannot allocate " + std::to_string(bytes) + " bytes on " +
                               device.description + ": " + llvm::toString(std::move(error)));
  }

  Device &device() const { return *device_; }
  size_t size() const { return bytes_; }
  /// The device address (CUDA, HIP); 0 on Vulkan, whose buffers are bound.
  uint64_t address() const {
    if (cuda_)
      return cuda_->devicePointer();
    if (hip_)
      return reinterpret_cast<uintptr_t>(hip_->data());
    return 0;
  }
#ifdef TESSERA_HAVE_VULKAN_RUNTIME
  const runtime::vulkan::VulkanBuffer *vulkan() const { return vulkan_ ? &*vulkan_ : nullptr; }
#endif

  void copyFromHost(uint64_t host, size_t bytes, size_t offset) {
    copy("copy to", bytes, offset, [&]() -> llvm::Error {
      const void *source = reinterpret_cast<const void *>(static_cast<uintptr_t>(host));
#ifdef TESSERA_HAVE_VULKAN_RUNTIME
      if (vulkan_)
        return vulkan_->copyFromHost(source, bytes, offset);
#endif
      return cuda_ ? cuda_->copyFromHost(source, bytes, offset)
                   : hip_->copyFromHost(source, bytes, offset);
    });
  }

  void copyToHost(uint64_t host, size_t bytes, size_t offset) const {
    copy("copy from", bytes, offset, [&]() -> llvm::Error {
      void *destination = reinterpret_cast<void *>(static_cast<uintptr_t>(host));
#ifdef TESSERA_HAVE_VULKAN_RUNTIME
      if (vulkan_)
        return vulkan_->copyToHost(destination, bytes, offset);
#endif
      return cuda_ ? cuda_->copyToHost(destination, bytes, offset)
                   : hip_->copyToHost(destination, bytes, offset);
    });
  }

private:
  template <typename T> static llvm::Error assign(llvm::Expected<T> value, std::optional<T> &to) {
    if (!value)
      return value.takeError();
    to.emplace(std::move(*value));
    return llvm::Error::success();
  }

  void copy(const char *what, size_t bytes, size_t offset,
            llvm::function_ref<llvm::Error()> body) const {
    if (offset > bytes_ || bytes > bytes_ - offset)
      throw py::value_error(std::string("cannot ") + what + " bytes [" + std::to_string(offset) +
                            ", " + std::to_string(offset + bytes) + ") of a buffer of " +
                            std::to_string(bytes_) + " bytes");
    if (bytes == 0)
      return;
    std::string error;
    {
      py::gil_scoped_release release;
      if (llvm::Error err = body())
        error = llvm::toString(std::move(err));
    }
    if (!error.empty())
      raiseError("LaunchError", error);
  }

  Device *device_;
  size_t bytes_;
#ifdef TESSERA_HAVE_VULKAN_RUNTIME
  std::optional<runtime::vulkan::VulkanBuffer> vulkan_;
#endif
  std::optional<runtime::cuda::CudaBuffer> cuda_;
  std::optional<runtime::hip::HipBuffer> hip_;
};

//===----------------------------------------------------------------------===//
// Kernels and launches
//===----------------------------------------------------------------------===//

struct DeviceKernel {
  Device *device = nullptr;
  std::string name;
  unsigned numWarps = 0;
  gpu::CompiledGpuKernel compiled;
  runtime::GpuKernelOrigin origin = runtime::GpuKernelOrigin::Compiled;
  runtime::KernelSignature signature;
  /// Loaded on the first launch.
  std::optional<runtime::cuda::CudaKernel> cuda;
  std::optional<runtime::hip::HipKernel> hip;
};

std::shared_ptr<DeviceKernel> compileForDevice(PyModule &m, const std::string &kernel,
                                               const std::string &kind, int index,
                                               unsigned numWarps, unsigned numStages,
                                               bool fpFusion, unsigned maxRegisters, bool tma,
                                               bool warpSpecialize) {
  Device &device = deviceFor(kind, index);
  gpu::GpuCompileOptions options =
      gpuCompileOptions(numWarps, numStages, fpFusion, maxRegisters, tma, warpSpecialize);
#ifdef TESSERA_HAVE_VULKAN_RUNTIME
  if (device.vulkan)
    options.vulkan = device.vulkan->info().features;
#endif
  auto signature = runtime::KernelSignature::fromModule(*m.module, kernel);
  if (!signature)
    raiseError("LaunchError", llvm::toString(signature.takeError()));
  // The GIL stays held: the module's MLIR context is not shared across threads.
  auto compiled = runtime::compileTileForGpuCached(*m.module, kernel, device.target, options,
                                                   runtime::gpuKernelCache());
  if (!compiled)
    raiseCompilationError(m, kernel, "kernel '" + kernel + "' does not compile for " +
                                         device.description + ":\n" +
                                         llvm::toString(compiled.takeError()));
  if (device.kind == DeviceKind::Vulkan && !compiled->kernel.vulkan)
    raiseError("LaunchError", "kernel '" + kernel + "' was compiled without its Vulkan binding "
                                  "layout");
  auto result = std::make_shared<DeviceKernel>();
  result->device = &device;
  result->name = kernel;
  result->numWarps = numWarps;
  result->compiled = std::move(compiled->kernel);
  result->origin = compiled->origin;
  result->signature = std::move(*signature);
  return result;
}

struct ArgumentList {
#ifdef TESSERA_HAVE_VULKAN_RUNTIME
  std::vector<runtime::vulkan::VulkanArgument> vulkan;
#endif
  std::vector<runtime::Argument> pointers;
  /// The Python objects the arguments came from, alive until the launch ends.
  std::vector<py::object> keep;
};

/// ("buf", DeviceBuffer) | ("ptr", device address, bytes) | ("int", v) | ("float", v).
ArgumentList parseArguments(const DeviceKernel &kernel, const py::list &args) {
  ArgumentList list;
  bool isVulkan = kernel.device->kind == DeviceKind::Vulkan;
  for (size_t i = 0; i < args.size(); ++i) {
    auto tuple = py::reinterpret_borrow<py::tuple>(args[i]);
    auto kind = tuple[0].cast<std::string>();
    std::optional<runtime::Argument> scalar;
    if (kind == "int") {
      scalar.emplace(tuple[1].cast<int64_t>());
    } else if (kind == "float") {
      scalar.emplace(tuple[1].cast<double>());
    } else if (kind == "buf") {
      auto &buffer = tuple[1].cast<DeviceBuffer &>();
      if (&buffer.device() != kernel.device)
        raiseError("LaunchError", "kernel '" + kernel.name + "': argument " + std::to_string(i) +
                                 " lives on " + buffer.device().description + ", the kernel on " +
                                 kernel.device->description);
      list.keep.push_back(tuple[1]);
#ifdef TESSERA_HAVE_VULKAN_RUNTIME
      if (isVulkan) {
        list.vulkan.emplace_back(*buffer.vulkan());
        continue;
      }
#endif
      list.pointers.emplace_back(reinterpret_cast<void *>(static_cast<uintptr_t>(buffer.address())));
      continue;
    } else if (kind == "ptr") {
      if (isVulkan)
        raiseError("LaunchError", "kernel '" + kernel.name + "': argument " + std::to_string(i) +
                                 " is a device address; Vulkan kernels take tessera arrays on "
                                 "the Vulkan device");
      list.pointers.emplace_back(
          reinterpret_cast<void *>(static_cast<uintptr_t>(tuple[1].cast<uint64_t>())));
      continue;
    } else {
      throw py::value_error("unknown argument kind '" + kind + "'");
    }
#ifdef TESSERA_HAVE_VULKAN_RUNTIME
    if (isVulkan) {
      list.vulkan.emplace_back(*scalar);
      continue;
    }
#endif
    list.pointers.push_back(*scalar);
  }
  return list;
}

/// Loads the kernel's binary on its CUDA or HIP device on the first launch.
llvm::Error ensureLoaded(DeviceKernel &kernel) {
  Device &device = *kernel.device;
  if (device.cuda && !kernel.cuda) {
    auto loaded = device.cuda->load(kernel.compiled.binary, kernel.signature);
    if (!loaded)
      return loaded.takeError();
    kernel.cuda = *loaded;
  }
  if (device.hip && !kernel.hip) {
    auto loaded = device.hip->load(kernel.compiled.binary, kernel.signature);
    if (!loaded)
      return loaded.takeError();
    kernel.hip = *loaded;
  }
  return llvm::Error::success();
}

llvm::Error launchOn(const DeviceKernel &kernel, runtime::Grid grid, ArgumentList &args,
                     uint64_t stream) {
  Device &device = *kernel.device;
  switch (device.kind) {
  case DeviceKind::Vulkan:
#ifdef TESSERA_HAVE_VULKAN_RUNTIME
    return device.vulkan->launch(*kernel.compiled.vulkan, grid, args.vulkan);
#else
    return llvm::createStringError("no Vulkan runtime in this build");
#endif
  case DeviceKind::Cuda: {
    // On the caller's stream (PyTorch's current one) a launch is
    // asynchronous, as PyTorch's own; on the default stream it is waited
    // for, so a fault is reported by the launch that caused it.
    runtime::cuda::LaunchOptions options;
    options.stream = reinterpret_cast<void *>(static_cast<uintptr_t>(stream));
    options.synchronize = stream == 0;
    return device.cuda->launch(*kernel.cuda, grid, args.pointers, options);
  }
  case DeviceKind::Hip:
    if (llvm::Error err = device.hip->launch(*kernel.hip, grid, args.pointers))
      return err;
    return device.hip->synchronize();
  }
  return llvm::Error::success();
}

void launchKernel(DeviceKernel &kernel, const std::vector<int64_t> &grid, const py::list &args,
                  uint64_t stream) {
  if (grid.size() != 3)
    throw py::value_error("a device launch takes a 3-D grid");
  for (int64_t dim : grid)
    if (dim < 0 || dim > 0x7fffffff)
      throw py::value_error("grid dimension out of range: " + std::to_string(dim));
  ArgumentList list = parseArguments(kernel, args);
  if (llvm::Error err = ensureLoaded(kernel))
    raiseError("LaunchError", llvm::toString(std::move(err)));
  runtime::Grid g{uint32_t(grid[0]), uint32_t(grid[1]), uint32_t(grid[2])};
  std::string error;
  {
    py::gil_scoped_release release;
    if (llvm::Error err = launchOn(kernel, g, list, stream))
      error = llvm::toString(std::move(err));
  }
  if (!error.empty())
    raiseError("LaunchError", error);
}

/// The readable assembly under the name Triton's `.asm` uses for it.
py::dict assemblyOf(const DeviceKernel &kernel) {
  py::dict asm_;
  const gpu::KernelBinary &binary = kernel.compiled.binary;
  switch (kernel.device->kind) {
  case DeviceKind::Vulkan:
    asm_["spirv"] = binary.assembly;
    asm_["spv"] = py::bytes(reinterpret_cast<const char *>(binary.binary.data()),
                            binary.binary.size());
    break;
  case DeviceKind::Cuda:
    asm_["ptx"] = binary.assembly;
    asm_["cubin"] = py::bytes(reinterpret_cast<const char *>(binary.binary.data()),
                              binary.binary.size());
    break;
  case DeviceKind::Hip:
    asm_["amdgcn"] = binary.assembly;
    asm_["hsaco"] = py::bytes(reinterpret_cast<const char *>(binary.binary.data()),
                              binary.binary.size());
    break;
  }
  return asm_;
}

} // namespace

void bindDevices(py::module_ &m) {
  py::class_<DeviceBuffer, std::shared_ptr<DeviceBuffer>>(
      m, "DeviceBuffer", "Memory on a GPU device (what a tessera.array on a GPU holds)")
      .def_property_readonly("size", &DeviceBuffer::size)
      .def_property_readonly("address", &DeviceBuffer::address,
                             "The device address (CUDA, HIP); 0 on Vulkan")
      .def_property_readonly("device",
                             [](const DeviceBuffer &b) { return b.device().description; })
      .def("copy_from_host", &DeviceBuffer::copyFromHost, py::arg("address"), py::arg("nbytes"),
           py::arg("offset") = 0)
      .def("copy_to_host", &DeviceBuffer::copyToHost, py::arg("address"), py::arg("nbytes"),
           py::arg("offset") = 0);

  py::class_<DeviceKernel, std::shared_ptr<DeviceKernel>>(m, "DeviceKernel",
                                                          "A kernel compiled for a GPU device")
      .def_readonly("name", &DeviceKernel::name)
      .def_readonly("num_warps", &DeviceKernel::numWarps)
      .def_property_readonly("target",
                             [](const DeviceKernel &k) { return k.device->target.str(); })
      .def_property_readonly("device", [](const DeviceKernel &k) { return k.device->description; })
      .def_property_readonly("block_threads",
                             [](const DeviceKernel &k) { return k.compiled.binary.blockThreads; })
      .def_property_readonly("asm", &assemblyOf)
      .def_property_readonly(
          "origin", [](const DeviceKernel &k) { return originName(k.origin); },
          "'disk' where the on-disk kernel cache had it, else 'compiled'");

  m.def("device_status", &deviceStatus, py::arg("kind"), py::arg("index") = 0,
        "(True, description) for a GPU device that opens, else (False, why not)");
  m.def(
      "device_allocate",
      [](const std::string &kind, int index, size_t nbytes) {
        return std::make_shared<DeviceBuffer>(deviceFor(kind, index), nbytes);
      },
      py::arg("kind"), py::arg("index"), py::arg("nbytes"));
  m.def("device_compile", &compileForDevice, py::arg("module"), py::arg("kernel"), py::arg("kind"),
        py::arg("index"), py::arg("num_warps"), py::arg("num_stages"), py::arg("fp_fusion") = true,
        py::arg("max_registers") = 0, py::arg("tma") = true, py::arg("warp_specialize") = false);
  m.def("device_launch", &launchKernel, py::arg("kernel"), py::arg("grid"), py::arg("args"),
        py::arg("stream") = 0,
        "args: ('buf', DeviceBuffer), ('ptr', device address, bytes), ('int', v) or "
        "('float', v) per kernel argument");
}

} // namespace tessera::python
