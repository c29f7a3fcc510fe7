// tile.extern_elementwise: each register calls the function of the target's
// device library, declared as an llvm.func in the kernel's gpu.module and
// linked when the module becomes a binary (libdevice, or a bitcode library
// the call names by path, on NVIDIA; ocml and ockl on AMD). Vulkan links no
// library: there, as on AMD, the libdevice functions that a math op
// computes have become that op before distribution (tile-libdevice-to-math),
// and any other call is an error.
#include "lowering/gpu/DistributedFormAttrs.h"
#include "lowering/gpu/distribute/KernelLowering.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;

namespace tessera::gpu {

namespace {

/// The device libraries `vendor`'s binaries are linked with, and the prefix
/// of their functions' names.
struct DeviceLibrary {
  llvm::StringLiteral name, prefix;
};

llvm::ArrayRef<DeviceLibrary> deviceLibraries(GpuVendor vendor) {
  static constexpr DeviceLibrary kNvidia[] = {{"libdevice", "__nv_"}};
  static constexpr DeviceLibrary kAmd[] = {{"ocml", "__ocml_"}, {"ockl", "__ockl_"}};
  switch (vendor) {
  case GpuVendor::Nvidia:
    return kNvidia;
  case GpuVendor::Amd:
    return kAmd;
  case GpuVendor::Vulkan:
    return {};
  }
  llvm_unreachable("unknown GPU vendor");
}

LogicalResult checkLibrary(KernelLowering &k, tile::ExternElementwiseOp call) {
  llvm::ArrayRef<DeviceLibrary> libraries = deviceLibraries(k.target.vendor);
  auto fromLinkedLibrary = [&](const DeviceLibrary &library) {
    return call.getSymbol().starts_with(library.prefix);
  };
  // NVIDIA also links a bitcode file the call names by path.
  bool linked = call.getLibpath().empty() ? llvm::any_of(libraries, fromLinkedLibrary)
                                          : k.target.vendor == GpuVendor::Nvidia;
  if (linked)
    return success();
  InFlightDiagnostic error = call.emitOpError()
                             << "calls '" << call.getSymbol() << "' of library '"
                             << call.getLibname() << "'";
  if (!call.getLibpath().empty())
    error << " at " << call.getLibpath();
  error << ", which target " << k.target.str();
  if (libraries.empty())
    return error << " cannot link: it links no device library, and only the libdevice "
                    "functions that a math op computes (docs/language-reference/"
                    "tile-dialect.md, tile.extern_elementwise) run there";
  error << " does not link; it links";
  for (auto [index, library] : llvm::enumerate(libraries))
    error << (index ? " and " : " ") << library.name << " (" << library.prefix << "*)";
  if (k.target.vendor == GpuVendor::Nvidia)
    return error << ", and bitcode libraries given by path";
  return error << ", and computes the libdevice functions that a math op computes";
}

mlir::gpu::GPUModuleOp moduleOf(OpBuilder &builder) {
  return builder.getInsertionBlock()->getParentOp()->getParentOfType<mlir::gpu::GPUModuleOp>();
}

} // namespace

LogicalResult declareDeviceFunction(KernelLowering &k, tile::ExternElementwiseOp call,
                                    OpBuilder &builder) {
  if (failed(checkLibrary(k, call)))
    return failure();
  SmallVector<Type> operands = llvm::map_to_vector(
      call.getSrcs().getTypes(), [](Type type) { return getElementTypeOrSelf(type); });
  auto type = LLVM::LLVMFunctionType::get(getElementTypeOrSelf(call.getType()), operands);
  mlir::gpu::GPUModuleOp module = moduleOf(builder);
  if (auto declared = module.lookupSymbol<LLVM::LLVMFuncOp>(call.getSymbol())) {
    if (declared.getFunctionType() != type)
      return call.emitOpError() << "calls '" << call.getSymbol() << "' as " << type
                                << " where another call in the kernel calls it as "
                                << declared.getFunctionType();
    auto library = declared->getAttrOfType<StringAttr>(kBitcodeLibrary);
    if ((library ? library.getValue() : "") != call.getLibpath())
      return call.emitOpError() << "calls '" << call.getSymbol() << "' from "
                                << (call.getLibpath().empty() ? "the target's device library"
                                                              : call.getLibpath())
                                << " where another call in the kernel calls it from "
                                << (library ? library.getValue()
                                            : "the target's device library");
    return success();
  }
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(module.getBody());
  auto function = LLVM::LLVMFuncOp::create(builder, call.getLoc(), call.getSymbol(), type);
  if (!call.getLibpath().empty())
    function->setAttr(kBitcodeLibrary, builder.getStringAttr(call.getLibpath()));
  return success();
}

Value callDeviceFunction(tile::ExternElementwiseOp call, OpBuilder &builder,
                         ValueRange operands) {
  // By name: declareDeviceFunction has declared it with these types, and a
  // lookup in the module per register would cost a walk of its symbols.
  return LLVM::CallOp::create(builder, call.getLoc(),
                              TypeRange{getElementTypeOrSelf(call.getType())},
                              call.getSymbol(), operands)
      .getResult();
}

} // namespace tessera::gpu
