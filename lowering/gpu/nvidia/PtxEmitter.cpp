#include "lowering/gpu/nvidia/PtxEmitter.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Target/LLVM/ModuleToObject.h"
#include "mlir/Target/LLVM/NVVM/Utils.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Target/TargetMachine.h"

#include <mutex>

using namespace mlir;

namespace {

/// MLIR's serializer for #nvvm.target also links libdevice, but it takes
/// the toolkit from the environment whenever none is given and then insists
/// on finding libdevice there; this one links it exactly when the kernel
/// needs it and says so when it is missing.
class PtxEmitter : public LLVM::ModuleToObject {
public:
  PtxEmitter(mlir::gpu::GPUModuleOp module, NVVM::NVVMTargetAttr target,
             const tessera::gpu::CudaToolkit &toolkit, bool fpFusion)
      : ModuleToObject(*module, target.getTriple(), target.getChip(), target.getFeatures(),
                       target.getO()),
        toolkit(toolkit), fpFusion(fpFusion) {}

protected:
  std::optional<SmallVector<std::unique_ptr<llvm::Module>>>
  loadBitcodeFiles(llvm::Module &module) override {
    SmallVector<std::unique_ptr<llvm::Module>> libraries;
    SmallVector<llvm::Function *> libdeviceCalls;
    for (llvm::Function &function : module.functions())
      if (function.isDeclaration() && function.getName().starts_with("__nv_"))
        libdeviceCalls.push_back(&function);
    if (libdeviceCalls.empty())
      return libraries;

    llvm::Expected<std::string> path = toolkit.libdevice();
    if (!path) {
      getOperation().emitError() << "the kernel calls "
                                 << llvm::join(llvm::map_range(libdeviceCalls,
                                                               [](llvm::Function *function) {
                                                                 return function->getName();
                                                               }),
                                               ", ")
                                 << ", which come from libdevice: "
                                 << llvm::toString(path.takeError());
      return std::nullopt;
    }
    std::unique_ptr<llvm::Module> libdevice = loadBitcodeFile(module.getContext(), *path);
    if (!libdevice)
      return std::nullopt; // loadBitcodeFile has reported why.
    if (failed(checkCalls(libdeviceCalls, *libdevice, *path)))
      return std::nullopt;
    libraries.push_back(std::move(libdevice));
    return libraries;
  }

  FailureOr<SmallVector<char, 0>> moduleToObject(llvm::Module &module) override {
    FailureOr<llvm::TargetMachine *> machine = getOrCreateTargetMachine();
    if (failed(machine))
      return getOperation().emitError() << "this LLVM has no NVPTX target for " << triple << " "
                                        << chip;
    // Fusion lets NVPTX write a * b + c as one fma.rn.f32 (and plain add/mul
    // that ptxas may fuse); without it, add.rn/mul.rn: each rounded.
    (*machine)->Options.AllowFPOpFusion =
        fpFusion ? llvm::FPOpFusion::Fast : llvm::FPOpFusion::Standard;
    FailureOr<SmallString<0>> ptx = translateModuleToISA(
        module, **machine, [&] { return getOperation().emitError(); });
    if (failed(ptx))
      return failure();
    return SmallVector<char, 0>(ptx->begin(), ptx->end());
  }

private:
  /// Every function the kernel calls is in `library` (at `path`), with the
  /// types the kernel calls it with: a misspelt name or a call of an f32
  /// function on f64 would otherwise surface as ptxas failing on an
  /// undefined or mistyped `.func`.
  LogicalResult checkCalls(llvm::ArrayRef<llvm::Function *> calls, llvm::Module &library,
                           llvm::StringRef path) {
    for (llvm::Function *call : calls) {
      llvm::Function *definition = library.getFunction(call->getName());
      if (!definition || definition->isDeclaration())
        return getOperation().emitError()
               << "the kernel calls " << call->getName() << ", which libdevice (" << path
               << ") does not define";
      if (definition->getFunctionType() != call->getFunctionType()) {
        std::string called, defined;
        llvm::raw_string_ostream(called) << *call->getFunctionType();
        llvm::raw_string_ostream(defined) << *definition->getFunctionType();
        return getOperation().emitError()
               << "the kernel calls " << call->getName() << " as " << called
               << ", but libdevice defines it as " << defined;
      }
    }
    return success();
  }

  const tessera::gpu::CudaToolkit &toolkit;
  bool fpFusion;
};

/// NVPTX writes `base + offset * size` (every address a pipelined loop
/// computes for its copies) as one mad.wide.s32 only with this backend
/// option; otherwise as a mul.wide and an add, which ptxas fuses into an
/// IMAD.WIDE on the half-rate FMA pipe instead of the ALU's LEA pair. The
/// option is process-wide, and set once.
void enableMadWide() {
  static std::once_flag once;
  std::call_once(once, [] {
    auto options = llvm::cl::getRegisteredOptions();
    auto found = options.find("nvptx-mad-wide-opt");
    if (found != options.end())
      static_cast<llvm::cl::opt<bool> *>(found->second)->setValue(true);
  });
}

} // namespace

FailureOr<std::string> tessera::gpu::emitPtx(mlir::gpu::GPUModuleOp module,
                                             const CudaToolkit &toolkit, bool fpFusion) {
  auto targets = module.getTargetsAttr();
  NVVM::NVVMTargetAttr target;
  if (targets && targets.size() == 1)
    target = dyn_cast<NVVM::NVVMTargetAttr>(targets[0]);
  if (!target)
    return module.emitError() << "PTX emission needs exactly one #nvvm.target on the gpu.module "
                                 "(run nvvm-attach-target)";

  DialectRegistry registry;
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  module->getContext()->appendDialectRegistry(registry);
  NVVM::SerializeGPUModuleBase::init(); // Registers the NVPTX backend once.
  enableMadWide();

  PtxEmitter emitter(module, target, toolkit, fpFusion);
  std::optional<SmallVector<char, 0>> ptx = emitter.run();
  if (!ptx)
    return failure();
  return std::string(ptx->begin(), ptx->end());
}
