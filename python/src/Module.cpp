// tessera._C: the extension module. Binds the KernelBuilder (Builder.cpp),
// finished modules, the IR interpreter, the CPU runtime, and reads DLPack
// capsules. C++ KernelErrors become tessera.errors.CompilationError, launch
// failures tessera.errors.LaunchError.
#include "python/src/Bindings.h"

#include "frontend/KernelError.h"
#include "ir/TileDialect.h"
#include "runtime/Runtime.h"
#include "runtime/interpreter/Interpreter.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Triple.h"

#include <pybind11/stl.h>

#include <cstdio>
#include <mutex>

namespace py = pybind11;

namespace tessera::python {
namespace {

[[noreturn]] void raiseLaunchError(const std::string &message) {
  py::object cls = py::module_::import("tessera.errors").attr("LaunchError");
  PyErr_SetObject(cls.ptr(), py::str(message).ptr());
  throw py::error_already_set();
}

std::string printModule(PyModule &m, bool debugInfo) {
  std::string text;
  llvm::raw_string_ostream os(text);
  mlir::OpPrintingFlags flags;
  if (debugInfo)
    flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
  m.module->print(os, flags);
  return text;
}

std::string kernelName(PyModule &m) {
  for (auto func : m.module->getOps<tile::FuncOp>())
    if (func.isKernel())
      return func.getSymName().str();
  return "";
}

/// One launch argument as Python hands it over: ("ptr", address, bytes),
/// ("int", value) or ("float", value).
struct ArgSpec {
  std::string kind;
  uint64_t address = 0;
  uint64_t bytes = 0;
  int64_t integer = 0;
  double floating = 0;
};

std::vector<ArgSpec> parseArgs(const py::list &args) {
  std::vector<ArgSpec> specs;
  for (py::handle item : args) {
    auto tuple = py::reinterpret_borrow<py::tuple>(item);
    ArgSpec spec;
    spec.kind = tuple[0].cast<std::string>();
    if (spec.kind == "ptr") {
      spec.address = tuple[1].cast<uint64_t>();
      spec.bytes = tuple[2].cast<uint64_t>();
    } else if (spec.kind == "int") {
      spec.integer = tuple[1].cast<int64_t>();
    } else if (spec.kind == "float") {
      spec.floating = tuple[1].cast<double>();
    } else {
      throw py::value_error("unknown argument kind '" + spec.kind + "'");
    }
    specs.push_back(spec);
  }
  return specs;
}

struct Grid3 {
  unsigned x, y, z;
};

Grid3 parseGrid(const std::vector<int64_t> &grid) {
  if (grid.empty() || grid.size() > 3)
    throw py::value_error("a grid has 1 to 3 dimensions, got " + std::to_string(grid.size()));
  int64_t dims[3] = {1, 1, 1};
  for (size_t i = 0; i < grid.size(); ++i) {
    if (grid[i] < 0 || grid[i] > 0x7fffffff)
      throw py::value_error("grid dimension " + std::to_string(i) + " is out of range: " +
                            std::to_string(grid[i]));
    dims[i] = grid[i];
  }
  return {unsigned(dims[0]), unsigned(dims[1]), unsigned(dims[2])};
}

void runInterpreter(PyModule &m, const std::string &kernel, const py::list &args,
                    const std::vector<int64_t> &grid) {
  std::vector<interp::KernelArgument> kernelArgs;
  for (const ArgSpec &spec : parseArgs(args)) {
    if (spec.kind == "ptr")
      kernelArgs.push_back(interp::KernelArgument::buffer(
          reinterpret_cast<void *>(static_cast<uintptr_t>(spec.address)), spec.bytes));
    else if (spec.kind == "int")
      kernelArgs.push_back(interp::KernelArgument::integer(spec.integer));
    else
      kernelArgs.push_back(interp::KernelArgument::floating(spec.floating));
  }
  Grid3 g = parseGrid(grid);
  if (uint64_t(g.x) * g.y * g.z == 0)
    return;
  std::string error;
  {
    py::gil_scoped_release release;
    if (llvm::Error err = interp::runKernel(*m.module, kernel, kernelArgs, {g.x, g.y, g.z}))
      error = llvm::toString(std::move(err));
    std::fflush(stdout);
    llvm::outs().flush();
  }
  if (!error.empty())
    raiseLaunchError(error);
}

//===----------------------------------------------------------------------===//
// CPU backend
//===----------------------------------------------------------------------===//

runtime::CpuDevice &cpuDevice() {
  // Never destroyed: its thread pool must not be torn down while the
  // interpreter exits.
  static runtime::CpuDevice *device = new runtime::CpuDevice();
  return *device;
}

struct PyCpuKernel {
  runtime::Kernel kernel;
  std::string origin;
};

PyCpuKernel compileCpu(PyModule &m, const std::string &kernel) {
  if (!runtime::hasCpuLowering())
    raiseLaunchError("this build of tessera has no CPU lowering (lowering/cpu); "
                     "use the interpreter (TESSERA_INTERPRET=1)");
  auto compiled = cpuDevice().compileTile(*m.module, kernel);
  if (!compiled)
    raiseLaunchError(llvm::toString(compiled.takeError()));
  const char *origin = compiled->origin() == runtime::KernelOrigin::Compiled    ? "compiled"
                       : compiled->origin() == runtime::KernelOrigin::DiskCache ? "disk"
                                                                                : "memory";
  return {*compiled, origin};
}

void launchCpu(const PyCpuKernel &k, const std::vector<int64_t> &grid, const py::list &args) {
  std::vector<runtime::Argument> kernelArgs;
  for (const ArgSpec &spec : parseArgs(args)) {
    if (spec.kind == "ptr")
      kernelArgs.emplace_back(reinterpret_cast<void *>(static_cast<uintptr_t>(spec.address)));
    else if (spec.kind == "int")
      kernelArgs.emplace_back(spec.integer);
    else
      kernelArgs.emplace_back(spec.floating);
  }
  Grid3 g = parseGrid(grid);
  std::string error;
  {
    py::gil_scoped_release release;
    if (llvm::Error err = cpuDevice().launch(k.kernel, {g.x, g.y, g.z}, kernelArgs))
      error = llvm::toString(std::move(err));
    std::fflush(stdout);
  }
  if (!error.empty())
    raiseLaunchError(error);
}

/// Ahead-of-time output for the host CPU (`tessera compile --emit ...`):
/// "llvmir-dialect" (the lowered MLIR module), "llvm" (optimized LLVM IR),
/// "asm" (host assembly) or "obj" (a relocatable object file, as bytes).
/// The tile module is cloned; it stays usable.
py::bytes emitCpu(PyModule &m, const std::string &what) {
  if (!runtime::hasCpuLowering())
    raiseLaunchError("this build of tessera has no CPU lowering (lowering/cpu)");
  runtime::cpu::CompilerOptions options;
  mlir::OwningOpRef<mlir::ModuleOp> clone = m.module->clone();
  std::string diagnostics;
  {
    llvm::raw_string_ostream dos(diagnostics);
    mlir::ScopedDiagnosticHandler handler(m.context.get(), [&](mlir::Diagnostic &diag) {
      if (diag.getSeverity() == mlir::DiagnosticSeverity::Error)
        dos << "\n  " << diag.getLocation() << ": " << diag;
      return mlir::success();
    });
    if (mlir::failed(runtime::lowerTileForCpu(*clone, options.target)))
      raiseLaunchError("lowering to the LLVM dialect failed" + diagnostics);
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  if (what == "llvmir-dialect") {
    clone->print(os);
    return py::bytes(text);
  }
  if (what == "llvm" || what == "obj") {
    auto object = runtime::cpu::compileToObject(*clone, options, &text);
    if (!object)
      raiseLaunchError(llvm::toString(object.takeError()));
    if (what == "llvm")
      return py::bytes(text);
    return py::bytes((*object)->getBufferStart(), (*object)->getBufferSize());
  }
  if (what != "asm")
    throw py::value_error("unknown output kind '" + what + "'");
  llvm::LLVMContext context;
  auto llvmModule = runtime::cpu::translateAndOptimize(*clone, context, options);
  if (!llvmModule)
    raiseLaunchError(llvm::toString(llvmModule.takeError()));
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::Triple triple(options.target.triple);
  std::string error;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    raiseLaunchError("no LLVM target for '" + options.target.triple + "': " + error);
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, options.target.cpu, options.target.features, llvm::TargetOptions(),
      llvm::Reloc::PIC_, llvm::CodeModel::Small, llvm::CodeGenOptLevel::Aggressive));
  if (!machine)
    raiseLaunchError("cannot create a target machine for " + options.target.str());
  llvm::SmallVector<char, 0> bytes;
  llvm::raw_svector_ostream asmOs(bytes);
  llvm::legacy::PassManager codegen;
  if (machine->addPassesToEmitFile(codegen, asmOs, nullptr, llvm::CodeGenFileType::AssemblyFile))
    raiseLaunchError("the target cannot emit assembly");
  codegen.run(**llvmModule);
  return py::bytes(bytes.data(), bytes.size());
}

//===----------------------------------------------------------------------===//
// DLPack
//===----------------------------------------------------------------------===//

// The DLPack ABI (dlpack.h, v0.8 / v1.0), declared here to need no header.
struct DLDevice {
  int32_t device_type;
  int32_t device_id;
};
struct DLDataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};
struct DLTensor {
  void *data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t *shape;
  int64_t *strides;
  uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void *manager_ctx;
  void (*deleter)(DLManagedTensor *);
};
struct DLPackVersion {
  uint32_t major;
  uint32_t minor;
};
struct DLManagedTensorVersioned {
  DLPackVersion version;
  void *manager_ctx;
  void (*deleter)(DLManagedTensorVersioned *);
  uint64_t flags;
  DLTensor dl_tensor;
};

/// (address, shape, strides in elements, (code, bits, lanes), (device type, id))
/// of a DLPack capsule, which stays owned by the caller (not consumed).
py::tuple dlpackInfo(const py::capsule &capsule) {
  const char *name = capsule.name();
  const DLTensor *tensor = nullptr;
  if (name && std::string(name) == "dltensor")
    tensor = &static_cast<DLManagedTensor *>(capsule.get_pointer())->dl_tensor;
  else if (name && std::string(name) == "dltensor_versioned")
    tensor = &static_cast<DLManagedTensorVersioned *>(capsule.get_pointer())->dl_tensor;
  else
    throw py::type_error("not an unconsumed DLPack capsule (name '" +
                         std::string(name ? name : "") + "')");
  std::vector<int64_t> shape(tensor->shape, tensor->shape + tensor->ndim);
  std::vector<int64_t> strides;
  if (tensor->strides) {
    strides.assign(tensor->strides, tensor->strides + tensor->ndim);
  } else { // Compact row-major.
    strides.resize(tensor->ndim);
    int64_t stride = 1;
    for (int i = tensor->ndim - 1; i >= 0; --i) {
      strides[i] = stride;
      stride *= shape[i];
    }
  }
  uint64_t address = reinterpret_cast<uintptr_t>(tensor->data) + tensor->byte_offset;
  return py::make_tuple(address, shape, strides,
                        py::make_tuple(tensor->dtype.code, tensor->dtype.bits, tensor->dtype.lanes),
                        py::make_tuple(tensor->device.device_type, tensor->device.device_id));
}

} // namespace
} // namespace tessera::python

PYBIND11_MODULE(_C, m) {
  using namespace tessera::python;
  m.doc() = "Tessera's C++ core: the kernel builder, the IR interpreter and the CPU runtime";

  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p)
        std::rethrow_exception(p);
    } catch (const tessera::frontend::KernelError &e) {
      py::object cls = py::module_::import("tessera.errors").attr("CompilationError");
      const auto &loc = e.location();
      py::object error = cls(e.message(), loc.file, loc.line, loc.column);
      PyErr_SetObject(cls.ptr(), error.ptr());
    }
  });

  bindBuilder(m);
  bindGpuCompiler(m);
  bindDevices(m);
  bindTuningRecords(m);

  py::class_<PyModule, std::shared_ptr<PyModule>>(m, "Module", "A finished, verified tile module.")
      .def("__str__", [](PyModule &mod) { return printModule(mod, false); })
      .def("str", &printModule, py::arg("debug_info") = false)
      .def_property_readonly("kernel_name", &kernelName)
      .def("run_interpreter", &runInterpreter, py::arg("kernel"), py::arg("args"), py::arg("grid"),
           "Runs the kernel on the tile IR interpreter. args: ('ptr', address, bytes), "
           "('int', value) or ('float', value) per kernel argument.");

  py::class_<PyCpuKernel>(m, "CpuKernel", "A kernel compiled for the CPU")
      .def_readonly("origin", &PyCpuKernel::origin)
      .def_property_readonly("name", [](const PyCpuKernel &k) { return k.kernel.name().str(); })
      .def_property_readonly("signature", [](const PyCpuKernel &k) {
        return k.kernel.signature().str();
      });

  m.def("cpu_available", &tessera::runtime::hasCpuLowering,
        "Whether this build can compile tile IR for the CPU (lowering/cpu is linked)");
  m.def("cpu_threads", []() { return cpuDevice().numThreads(); });
  m.def("compile_cpu", &compileCpu, py::arg("module"), py::arg("kernel"));
  m.def("launch_cpu", &launchCpu, py::arg("kernel"), py::arg("grid"), py::arg("args"));
  m.def("emit_cpu", &emitCpu, py::arg("module"), py::arg("what"),
        "Ahead-of-time CPU output of a tile module: 'llvmir-dialect', 'llvm', 'asm' or 'obj'");
  m.def("dlpack_info", &dlpackInfo, py::arg("capsule"));
}
