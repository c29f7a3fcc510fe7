#include "runtime/cache/GpuKernelCodec.h"

#include "llvm/Support/Base64.h"
#include "llvm/Support/JSON.h"

using namespace tessera;
using namespace tessera::runtime;
using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

namespace {

/// Bumped whenever a field is added, removed or changes meaning.
constexpr int64_t kPayloadFormat = 1;

} // namespace

namespace tessera::gpu {

// The converters llvm::json finds by argument-dependent lookup (a
// std::vector of such values converts element by element).

Value toJSON(const TensorMapValue &value) {
  return Object{{"argument", value.argument}, {"constant", value.constant}};
}

Value toJSON(const TensorMapParam &map) {
  return Object{{"base", map.base},
                {"shape", map.shape},
                {"outer_strides", map.outerStrides},
                {"element", map.element},
                {"element_bytes", map.elementBytes},
                {"box", map.box},
                {"swizzle_bytes", map.swizzleBytes},
                {"nan_padding", map.nanPadding}};
}

Value toJSON(const ResourceUsage &usage) {
  return Object{{"registers", usage.registers},
                {"scalar_registers", usage.scalarRegisters},
                {"shared_memory_bytes", usage.sharedMemoryBytes},
                {"spill_store_bytes", usage.spillStoreBytes},
                {"spill_load_bytes", usage.spillLoadBytes},
                {"stack_frame_bytes", usage.stackFrameBytes},
                {"serialized_wgmma", usage.serializedWgmma},
                {"report", usage.report}};
}

bool fromJSON(const Value &json, TensorMapValue &value, llvm::json::Path path) {
  llvm::json::ObjectMapper o(json, path);
  return o && o.map("argument", value.argument) && o.map("constant", value.constant);
}

bool fromJSON(const Value &json, TensorMapParam &map, llvm::json::Path path) {
  llvm::json::ObjectMapper o(json, path);
  return o && o.map("base", map.base) && o.map("shape", map.shape) &&
         o.map("outer_strides", map.outerStrides) && o.map("element", map.element) &&
         o.map("element_bytes", map.elementBytes) && o.map("box", map.box) &&
         o.map("swizzle_bytes", map.swizzleBytes) && o.map("nan_padding", map.nanPadding);
}

bool fromJSON(const Value &json, ResourceUsage &usage, llvm::json::Path path) {
  llvm::json::ObjectMapper o(json, path);
  return o && o.map("registers", usage.registers) &&
         o.map("scalar_registers", usage.scalarRegisters) &&
         o.map("shared_memory_bytes", usage.sharedMemoryBytes) &&
         o.map("spill_store_bytes", usage.spillStoreBytes) &&
         o.map("spill_load_bytes", usage.spillLoadBytes) &&
         o.map("stack_frame_bytes", usage.stackFrameBytes) &&
         o.map("serialized_wgmma", usage.serializedWgmma) && o.map("report", usage.report);
}

namespace vulkan {

Value toJSON(const VulkanKernelParam &param) {
  return Object{{"buffer", param.isBuffer()},
                {"type", param.type},
                {"bytes", param.bytes},
                {"binding", param.binding},
                {"offset", param.offset}};
}

Value toJSON(const VulkanKernel &shader) {
  return Object{{"params", shader.abi.params},
                {"push_constant_bytes", shader.abi.pushConstantBytes},
                {"workgroup_size", Array{shader.workgroupSize[0], shader.workgroupSize[1],
                                         shader.workgroupSize[2]}},
                {"spirv_version", shader.spirvVersion},
                {"capabilities", shader.capabilities},
                {"extensions", shader.extensions}};
}

bool fromJSON(const Value &json, VulkanKernelParam &param, llvm::json::Path path) {
  llvm::json::ObjectMapper o(json, path);
  bool buffer = false;
  if (!(o && o.map("buffer", buffer) && o.map("type", param.type) &&
        o.map("bytes", param.bytes) && o.map("binding", param.binding) &&
        o.map("offset", param.offset)))
    return false;
  param.kind = buffer ? VulkanKernelParam::Kind::StorageBuffer
                      : VulkanKernelParam::Kind::PushConstant;
  return true;
}

bool fromJSON(const Value &json, VulkanKernel &shader, llvm::json::Path path) {
  llvm::json::ObjectMapper o(json, path);
  std::vector<unsigned> workgroup;
  if (!(o && o.map("params", shader.abi.params) &&
        o.map("push_constant_bytes", shader.abi.pushConstantBytes) &&
        o.map("workgroup_size", workgroup) && o.map("spirv_version", shader.spirvVersion) &&
        o.map("capabilities", shader.capabilities) && o.map("extensions", shader.extensions)))
    return false;
  if (workgroup.size() != 3) {
    path.field("workgroup_size").report("expected 3 extents");
    return false;
  }
  std::copy(workgroup.begin(), workgroup.end(), shader.workgroupSize.begin());
  return true;
}

} // namespace vulkan
} // namespace tessera::gpu

std::string tessera::runtime::encodeGpuKernel(const gpu::CompiledGpuKernel &kernel) {
  const gpu::KernelBinary &binary = kernel.binary;
  Object payload{{"format", kPayloadFormat},
                 {"kernel_name", binary.kernelName},
                 {"binary", llvm::encodeBase64(binary.binary)},
                 {"ptx_for_driver_jit", binary.ptxForDriverJit},
                 {"assembly", binary.assembly},
                 {"block_threads", binary.blockThreads},
                 {"dynamic_shared_memory_bytes", binary.dynamicSharedMemoryBytes},
                 {"tensor_maps", binary.tensorMaps},
                 {"usage", binary.usage},
                 {"dots", kernel.dots},
                 {"pipelines", kernel.pipelines},
                 {"vulkan", kernel.vulkan ? Value(*kernel.vulkan) : Value(nullptr)}};
  std::string text;
  llvm::raw_string_ostream os(text);
  os << Value(std::move(payload));
  return text;
}

llvm::Expected<gpu::CompiledGpuKernel>
tessera::runtime::decodeGpuKernel(llvm::StringRef payload, const gpu::GpuTarget &target) {
  llvm::Expected<Value> json = llvm::json::parse(payload);
  if (!json)
    return json.takeError();
  llvm::json::Path::Root root("payload");
  llvm::json::ObjectMapper o(*json, root);
  int64_t format = 0;
  if (!o || !o.map("format", format))
    return root.getError();
  if (format != kPayloadFormat)
    return llvm::createStringError("payload format " + std::to_string(format) + ", expected " +
                                   std::to_string(kPayloadFormat));

  gpu::CompiledGpuKernel kernel;
  gpu::KernelBinary &binary = kernel.binary;
  binary.target = target;
  std::string base64;
  std::optional<gpu::vulkan::VulkanKernel> shader;
  if (!(o.map("kernel_name", binary.kernelName) && o.map("binary", base64) &&
        o.map("ptx_for_driver_jit", binary.ptxForDriverJit) &&
        o.map("assembly", binary.assembly) && o.map("block_threads", binary.blockThreads) &&
        o.map("dynamic_shared_memory_bytes", binary.dynamicSharedMemoryBytes) &&
        o.map("tensor_maps", binary.tensorMaps) && o.map("usage", binary.usage) &&
        o.map("dots", kernel.dots) && o.map("pipelines", kernel.pipelines) &&
        o.map("vulkan", shader)))
    return root.getError();
  std::vector<char> bytes;
  if (llvm::Error err = llvm::decodeBase64(base64, bytes))
    return err;
  binary.binary.assign(bytes.begin(), bytes.end());
  if (shader) {
    shader->binary = binary;
    kernel.vulkan = std::move(shader);
  }
  return kernel;
}
