// tessera._C's GPU compiler (lowering/gpu/Compile.h): compile_gpu returns a
// GpuKernel (binary, assembly, launch facts, resource usage, the Vulkan ABI),
// emit_gpu one stage of `tessera compile --emit`. A kernel that does not
// compile raises tessera.errors.CompilationError at the source location of
// the first diagnostic (the kernel's definition when none has one); a bad
// target, stage or option raises ValueError.
#include "python/src/Bindings.h"

#include "ir/TileDialect.h"
#include "lowering/gpu/Compile.h"

#include "llvm/Support/Regex.h"

#include <pybind11/stl.h>

#include <algorithm>
#include <optional>

namespace py = pybind11;

namespace tessera::python {
namespace {

struct SourceLocation {
  std::string file;
  unsigned line = 0, column = 0;
};

/// The first "file:line:col" of a compiler error (diagnostic lines start
/// with one, possibly quoted as MLIR prints locations).
std::optional<SourceLocation> firstLocation(llvm::StringRef error) {
  llvm::Regex located("\"?([^ \t\"]+)\"?:([0-9]+):([0-9]+)");
  llvm::SmallVector<llvm::StringRef, 4> match;
  while (!error.empty()) {
    auto [line, rest] = error.split('\n');
    error = rest;
    if (!located.match(line, &match))
      continue;
    SourceLocation loc;
    loc.file = match[1].str();
    if (match[2].getAsInteger(10, loc.line) || match[3].getAsInteger(10, loc.column))
      continue;
    return loc;
  }
  return std::nullopt;
}

/// Where `kernel` is defined, for errors that name no op.
SourceLocation kernelDefinition(PyModule &m, llvm::StringRef kernel) {
  for (auto func : m.module->getOps<tile::FuncOp>())
    if (func.getSymName() == kernel)
      if (auto file = func.getLoc()->findInstanceOf<mlir::FileLineColLoc>())
        return {file.getFilename().str(), file.getLine(), file.getColumn()};
  return {"<unknown>", 0, 0};
}

[[noreturn]] void raiseCompilationError(PyModule &m, llvm::StringRef kernel, llvm::Error error) {
  std::string text = llvm::toString(std::move(error));
  SourceLocation loc = firstLocation(text).value_or(kernelDefinition(m, kernel));
  py::object cls = py::module_::import("tessera.errors").attr("CompilationError");
  py::object exception = cls(text, loc.file, loc.line, loc.column);
  PyErr_SetObject(cls.ptr(), exception.ptr());
  throw py::error_already_set();
}

gpu::GpuTarget parseTarget(const std::string &spec) {
  llvm::Expected<gpu::GpuTarget> target = gpu::GpuTarget::parse(spec);
  if (!target)
    throw py::value_error(llvm::toString(target.takeError()));
  return *target;
}

py::dict usageOf(const gpu::ResourceUsage &usage) {
  py::dict dict;
  dict["registers"] = usage.registers;
  dict["scalar_registers"] = usage.scalarRegisters;
  dict["smem"] = usage.sharedMemoryBytes;
  dict["spill_stores"] = usage.spillStoreBytes;
  dict["spill_loads"] = usage.spillLoadBytes;
  dict["spills"] = usage.spillStoreBytes < 0 && usage.spillLoadBytes < 0
                       ? -1
                       : std::max(usage.spillStoreBytes, 0) + std::max(usage.spillLoadBytes, 0);
  dict["stack"] = usage.stackFrameBytes;
  dict["serialized_wgmma"] = usage.serializedWgmma;
  dict["report"] = usage.report;
  return dict;
}

py::object vulkanAbiOf(const gpu::CompiledGpuKernel &kernel) {
  if (!kernel.vulkan)
    return py::none();
  const gpu::vulkan::VulkanKernel &vk = *kernel.vulkan;
  py::list params;
  for (const gpu::vulkan::VulkanKernelParam &param : vk.abi.params) {
    py::dict entry;
    entry["kind"] = param.isBuffer() ? "storage_buffer" : "push_constant";
    entry["type"] = param.type;
    entry["bytes"] = param.bytes;
    if (param.isBuffer())
      entry["binding"] = param.binding;
    else
      entry["offset"] = param.offset;
    params.append(entry);
  }
  py::dict abi;
  abi["params"] = params;
  abi["push_constant_bytes"] = vk.abi.pushConstantBytes;
  abi["workgroup_size"] = py::make_tuple(vk.workgroupSize[0], vk.workgroupSize[1],
                                         vk.workgroupSize[2]);
  abi["spirv_version"] = py::make_tuple(vk.spirvVersion >> 16, (vk.spirvVersion >> 8) & 0xff);
  abi["capabilities"] = vk.capabilities;
  abi["extensions"] = vk.extensions;
  abi["summary"] = vk.abi.str();
  return abi;
}

/// An argument's number, or ("constant", value), per entry.
py::list tensorMapValuesOf(const std::vector<gpu::TensorMapValue> &entries) {
  py::list list;
  for (const gpu::TensorMapValue &entry : entries)
    list.append(entry.argument < 0 ? py::object(py::make_tuple("constant", entry.constant))
                                   : py::object(py::int_(entry.argument)));
  return list;
}

py::list tensorMapsOf(const gpu::CompiledGpuKernel &k) {
  py::list maps;
  for (const gpu::TensorMapParam &param : k.binary.tensorMaps) {
    py::dict map;
    map["base"] = param.base;
    map["shape"] = tensorMapValuesOf(param.shape);
    map["strides"] = tensorMapValuesOf(param.outerStrides);
    map["element"] = param.element;
    map["element_bytes"] = param.elementBytes;
    map["box"] = param.box;
    map["swizzle"] = param.swizzleBytes;
    map["nan_padding"] = param.nanPadding;
    maps.append(map);
  }
  return maps;
}

runtime::CachedGpuKernel compileGpu(PyModule &m, const std::string &kernel,
                                    const std::string &spec, unsigned numWarps,
                                    unsigned numStages, bool fpFusion, unsigned maxRegisters,
                                    bool tma, bool warpSpecialize) {
  gpu::GpuTarget target = parseTarget(spec);
  llvm::Expected<runtime::CachedGpuKernel> compiled = runtime::compileTileForGpuCached(
      *m.module, kernel, target,
      gpuCompileOptions(numWarps, numStages, fpFusion, maxRegisters, tma, warpSpecialize),
      runtime::gpuKernelCache());
  if (!compiled)
    raiseCompilationError(m, kernel, compiled.takeError());
  return std::move(*compiled);
}

py::object emitGpu(PyModule &m, const std::string &kernel, const std::string &spec,
                   const std::string &stageName, unsigned numWarps, unsigned numStages,
                   bool fpFusion, unsigned maxRegisters, bool tma, bool warpSpecialize) {
  gpu::GpuTarget target = parseTarget(spec);
  llvm::Expected<gpu::GpuStage> stage = gpu::parseGpuStage(stageName, target);
  if (!stage)
    throw py::value_error(llvm::toString(stage.takeError()));
  llvm::Expected<std::string> out =
      gpu::emitTileForGpu(*m.module, kernel, target, *stage,
                          gpuCompileOptions(numWarps, numStages, fpFusion, maxRegisters, tma,
                                            warpSpecialize));
  if (!out)
    raiseCompilationError(m, kernel, out.takeError());
  if (*stage == gpu::GpuStage::Binary)
    return py::bytes(*out);
  return py::str(*out);
}

} // namespace

const char *originName(runtime::GpuKernelOrigin origin) {
  return origin == runtime::GpuKernelOrigin::DiskCache ? "disk" : "compiled";
}

gpu::GpuCompileOptions gpuCompileOptions(unsigned numWarps, unsigned numStages, bool fpFusion,
                                         unsigned maxRegisters, bool tma, bool warpSpecialize) {
  if (numWarps == 0 || (numWarps & (numWarps - 1)) != 0)
    throw py::value_error("num_warps must be a power of two, got " + std::to_string(numWarps));
  if (numStages == 0)
    throw py::value_error("num_stages must be at least 1");
  if (warpSpecialize && !tma)
    throw py::value_error(
        "warp_specialize=True needs TMA (not tma=False): the producer warpgroup copies with it");
  gpu::GpuCompileOptions options;
  options.lowering.numWarps = numWarps;
  options.lowering.numStages = numStages;
  options.nvidia.fpFusion = fpFusion;
  options.nvidia.maxRegisters = maxRegisters;
  options.lowering.tensorMaps = tma;
  options.lowering.warpSpecialize = warpSpecialize;
  return options;
}

void bindGpuCompiler(py::module_ &m) {
  using runtime::CachedGpuKernel;
  py::class_<CachedGpuKernel>(m, "GpuKernel", "A kernel compiled for one GPU target")
      .def_property_readonly("binary",
                             [](const CachedGpuKernel &k) {
                               const std::vector<uint8_t> &bytes = k.kernel.binary.binary;
                               return py::bytes(reinterpret_cast<const char *>(bytes.data()),
                                                bytes.size());
                             },
                             "cubin, HSACO code object or SPIR-V words; the PTX where "
                             "ptx_for_driver_jit")
      .def_property_readonly(
          "ptx_for_driver_jit",
          [](const CachedGpuKernel &k) { return k.kernel.binary.ptxForDriverJit; },
          "NVIDIA: no ptxas was found, so binary is the PTX the driver's JIT compiles at load")
      .def_property_readonly(
          "assembly", [](const CachedGpuKernel &k) { return k.kernel.binary.assembly; },
          "PTX, AMDGCN assembly or the spirv.module")
      .def_property_readonly("kernel_name",
                             [](const CachedGpuKernel &k) { return k.kernel.binary.kernelName; })
      .def_property_readonly("target",
                             [](const CachedGpuKernel &k) { return k.kernel.binary.target.str(); })
      .def_property_readonly(
          "block_threads", [](const CachedGpuKernel &k) { return k.kernel.binary.blockThreads; },
          "threads per program (num_warps * warp size, 4 warps more with a producer warpgroup)")
      .def_property_readonly(
          "shared_bytes",
          [](const CachedGpuKernel &k) { return k.kernel.binary.dynamicSharedMemoryBytes; },
          "dynamic shared memory each launch must give, in bytes")
      .def_property_readonly(
          "dots", [](const CachedGpuKernel &k) { return k.kernel.dots; },
          "what each tl.dot runs on, in program order: 'file:line:col: "
          "instruction' (e.g. wgmma.m64n256k16.bf16, mma.sync.m16n8k16.f16, fma)")
      .def_property_readonly(
          "pipelines", [](const CachedGpuKernel &k) { return k.kernel.pipelines; },
          "how each software-pipelined loop was lowered, in program order: "
          "'file:line:col: N stages (num_stages S), copies ...', or why not")
      .def_property_readonly(
          "tensor_maps", [](const CachedGpuKernel &k) { return tensorMapsOf(k.kernel); },
          "NVIDIA: the TMA tensor maps a launch passes after the kernel's "
          "parameters, one dict each: base, shape, strides (parameter "
          "numbers, or ('constant', value)), element, element_bytes, box "
          "(innermost first), swizzle (bytes), nan_padding")
      .def_property_readonly(
          "usage", [](const CachedGpuKernel &k) { return usageOf(k.kernel.binary.usage); },
          "registers, scalar_registers, smem (static), spills, spill_stores, spill_loads, stack "
          "(bytes; -1 when unknown) and report (the tool's own lines)")
      .def_property_readonly(
          "abi", [](const CachedGpuKernel &k) { return vulkanAbiOf(k.kernel); },
          "Vulkan only (else None): storage-buffer bindings and "
          "push-constant offsets of the arguments, workgroup size, SPIR-V "
          "version, capabilities and extensions")
      .def_property_readonly(
          "origin", [](const CachedGpuKernel &k) { return originName(k.origin); },
          "'disk' where the on-disk kernel cache had it, else 'compiled'");

  m.def(
      "gpu_cache_stats",
      [] {
        runtime::KernelCache &cache = runtime::gpuKernelCache();
        runtime::CacheStats stats = cache.stats();
        py::dict out;
        out["directory"] = cache.directory();
        out["enabled"] = cache.enabled();
        out["disk_hits"] = stats.diskHits;
        out["misses"] = stats.misses;
        out["stores"] = stats.stores;
        out["rejected"] = stats.rejected;
        out["write_errors"] = stats.writeErrors;
        out["evicted"] = stats.evicted;
        return out;
      },
      "The on-disk GPU kernel cache of this process: directory, enabled, disk_hits, misses "
      "(compiles), stores, rejected (corrupt entries removed), write_errors, evicted (least "
      "recently used entries removed beyond the size limit)");
  m.def("compile_gpu", &compileGpu, py::arg("module"), py::arg("kernel"), py::arg("target"),
        py::arg("num_warps") = 4, py::arg("num_stages") = 2, py::arg("fp_fusion") = true,
        py::arg("max_registers") = 0, py::arg("tma") = true, py::arg("warp_specialize") = false,
        "Compiles `kernel` of a tile module for a GPU target ('cuda:sm_90a', 'hip:gfx942', "
        "'vulkan:1.3:subgroup=8')");
  m.def("emit_gpu", &emitGpu, py::arg("module"), py::arg("kernel"), py::arg("target"),
        py::arg("stage"), py::arg("num_warps") = 4, py::arg("num_stages") = 2,
        py::arg("fp_fusion") = true, py::arg("max_registers") = 0, py::arg("tma") = true,
        py::arg("warp_specialize") = false,
        "One stage of the GPU compilation: 'tgpu', 'gpu', 'ptx'|'amdgcn'|'spirv' (str) or "
        "'cubin'|'hsaco'|'spv' (bytes)");
  m.def(
      "gpu_target", [](const std::string &spec) { return parseTarget(spec).str(); },
      py::arg("spec"), "The canonical spelling of a GPU target; ValueError when it is not one");
  m.def(
      "gpu_targets", [] { return gpu::GpuTarget::accepted().str(); },
      "The GPU targets gpu_target accepts, as its errors list them");
  m.def(
      "gpu_stages",
      [](const std::string &spec) {
        std::vector<std::string> names;
        for (llvm::StringRef name : gpu::gpuStageNames(parseTarget(spec)))
          names.push_back(name.str());
        return names;
      },
      py::arg("target"), "The stages emit_gpu offers for a GPU target");
}

} // namespace tessera::python
