#include "lowering/gpu/nvidia/PtxEmitter.h"

#include "lowering/gpu/DistributedFormAttrs.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Target/LLVM/ModuleToObject.h"
#include "mlir/Target/LLVM/NVVM/Utils.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
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
    // A declared function comes from the bitcode file its tile.extern_elementwise
    // named, else from libdevice when its name is one of libdevice's.
    llvm::StringMap<std::string> namedLibrary;
    getOperation().walk([&](LLVM::LLVMFuncOp function) {
      if (auto path = function->getAttrOfType<StringAttr>(tessera::gpu::kBitcodeLibrary))
        namedLibrary[function.getName()] = path.str();
    });
    SmallVector<llvm::Function *> libdeviceCalls;
    llvm::MapVector<StringRef, SmallVector<llvm::Function *>> callsByLibrary;
    for (llvm::Function &function : module.functions()) {
      if (!function.isDeclaration())
        continue;
      if (auto named = namedLibrary.find(function.getName()); named != namedLibrary.end())
        callsByLibrary[named->second].push_back(&function);
      else if (function.getName().starts_with("__nv_"))
        libdeviceCalls.push_back(&function);
    }

    SmallVector<std::unique_ptr<llvm::Module>> libraries;
    if (!libdeviceCalls.empty()) {
      llvm::Expected<std::string> path = toolkit.libdevice();
      if (!path) {
        getOperation().emitError() << "the kernel calls " << names(libdeviceCalls)
                                   << ", which come from libdevice: "
                                   << llvm::toString(path.takeError());
        return std::nullopt;
      }
      if (failed(load(module, *path, "libdevice (" + *path + ")", libdeviceCalls, libraries)))
        return std::nullopt;
    }
    for (auto &[path, calls] : callsByLibrary)
      if (failed(load(module, path, "the bitcode library " + path.str(), calls, libraries)))
        return std::nullopt;
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
  static std::string names(llvm::ArrayRef<llvm::Function *> functions) {
    return llvm::join(llvm::map_range(functions,
                                      [](llvm::Function *function) {
                                        return function->getName();
                                      }),
                      ", ");
  }

  /// Loads the bitcode at `path` (`what`, for messages) into `libraries`,
  /// after checking that it defines every function of `calls` with the types
  /// the kernel calls it with: a misspelt name or a call of an f32 function
  /// on f64 would otherwise surface as ptxas failing on an undefined or
  /// mistyped `.func`.
  LogicalResult load(llvm::Module &module, llvm::StringRef path, const std::string &what,
                     llvm::ArrayRef<llvm::Function *> calls,
                     SmallVector<std::unique_ptr<llvm::Module>> &libraries) {
    std::unique_ptr<llvm::Module> library = loadBitcodeFile(module.getContext(), path);
    if (!library)
      return getOperation().emitError()
             << "the kernel calls " << names(calls) << " from " << what
             << ", which cannot be read as LLVM bitcode";
    for (llvm::Function *call : calls) {
      llvm::Function *definition = library->getFunction(call->getName());
      if (!definition || definition->isDeclaration())
        return getOperation().emitError()
               << "the kernel calls " << call->getName() << ", which " << what
               << " does not define";
      if (definition->getFunctionType() != call->getFunctionType()) {
        std::string called, defined;
        llvm::raw_string_ostream(called) << *call->getFunctionType();
        llvm::raw_string_ostream(defined) << *definition->getFunctionType();
        return getOperation().emitError()
               << "the kernel calls " << call->getName() << " as " << called << ", but "
               << what << " defines it as " << defined;
      }
    }
    libraries.push_back(std::move(library));
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

/// Loop strength reduction for NVPTX with the whole search: while a
/// pipelined loop's copies address `base_i + lane + k * step`, LSR's
/// narrowing heuristic for large searches (filtering formulae with the same
/// scaled register) keeps one 64-bit induction variable per copy and adds
/// the lane's offset to each in every iteration (ptxas: two moves and an
/// IMAD.WIDE per cp.async, on the 128x256x64 NT GEMM's B copies 133 SASS
/// instructions per K step). Without it LSR finds the form Triton's loops
/// have: each copy's base loop-invariant, one uniform offset advanced per
/// step (99 instructions). The heuristic helps x86's scaled addressing, and
/// the option is process-wide: it is set only while PTX is emitted, one
/// emission at a time, and restored after.
class FullLoopStrengthReduction {
public:
  FullLoopStrengthReduction() : lock(mutex()) {
    auto options = llvm::cl::getRegisteredOptions();
    auto found = options.find("lsr-filter-same-scaled-reg");
    if (found == options.end())
      return;
    filter = static_cast<llvm::cl::opt<bool> *>(found->second);
    saved = *filter;
    filter->setValue(false);
  }
  ~FullLoopStrengthReduction() {
    if (filter)
      filter->setValue(saved);
  }

private:
  static std::mutex &mutex() {
    static std::mutex emitting;
    return emitting;
  }
  std::lock_guard<std::mutex> lock;
  llvm::cl::opt<bool> *filter = nullptr;
  bool saved = true;
};

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
  std::optional<SmallVector<char, 0>> ptx;
  {
    FullLoopStrengthReduction lsr;
    ptx = emitter.run();
  }
  if (!ptx)
    return failure();
  return std::string(ptx->begin(), ptx->end());
}
