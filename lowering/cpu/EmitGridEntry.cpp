// tile-cpu-emit-grid-entry: the packed-argument entry point of each kernel,
// called by the runtime's thread pool once per program of the grid.
#include "lowering/cpu/Passes.h"

#include "mlir/IR/Builders.h"

namespace tessera::cpu {
#define GEN_PASS_DEF_TILECPUEMITGRIDENTRY
#include "lowering/cpu/Passes.h.inc"
} // namespace tessera::cpu

using namespace mlir;

namespace {

struct EmitGridEntry : tessera::cpu::impl::TileCpuEmitGridEntryBase<EmitGridEntry> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    auto ptrType = LLVM::LLVMPointerType::get(ctx);
    SmallVector<func::FuncOp> kernels;
    for (auto func : module.getOps<func::FuncOp>())
      if (func->hasAttr(tessera::cpu::kKernelAttr))
        kernels.push_back(func);
    for (func::FuncOp kernel : kernels) {
      OpBuilder b(ctx);
      b.setInsertionPointAfter(kernel);
      Location loc = kernel.getLoc();
      ArrayRef<Type> inputs = kernel.getFunctionType().getInputs();
      unsigned numArgs = inputs.size() - tessera::cpu::kNumGridArgs;
      SmallVector<Type> entryInputs{ptrType};
      entryInputs.append(tessera::cpu::kNumGridArgs, b.getI32Type());
      std::string name = (kernel.getSymName() + "__grid_entry").str();
      if (module.lookupSymbol(name)) {
        kernel.emitError() << "a symbol named '" << name << "' already exists";
        return signalPassFailure();
      }
      auto entry = func::FuncOp::create(b, loc, name, FunctionType::get(ctx, entryInputs, {}));
      Block *block = entry.addEntryBlock();
      b.setInsertionPointToStart(block);
      Value packed = block->getArgument(0);
      SmallVector<Value> args;
      for (unsigned i = 0; i < numArgs; ++i) {
        Type type = inputs[i];
        Value slot = LLVM::GEPOp::create(b, loc, ptrType, ptrType, packed,
                                         ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(i)});
        Value where = LLVM::LoadOp::create(b, loc, ptrType, slot);
        if (isa<LLVM::LLVMPointerType>(type)) {
          args.push_back(LLVM::LoadOp::create(b, loc, ptrType, where));
        } else if (type.isInteger(1)) {
          Value byte = LLVM::LoadOp::create(b, loc, b.getI8Type(), where);
          args.push_back(LLVM::TruncOp::create(b, loc, b.getI1Type(), byte));
        } else if (type.isIntOrFloat()) {
          args.push_back(LLVM::LoadOp::create(b, loc, type, where));
        } else {
          kernel.emitError() << "kernel argument #" << i << " of type " << type
                             << " cannot be passed to the CPU grid entry";
          return signalPassFailure();
        }
      }
      for (unsigned i = 0; i < tessera::cpu::kNumGridArgs; ++i)
        args.push_back(block->getArgument(1 + i));
      func::CallOp::create(b, loc, kernel, args);
      func::ReturnOp::create(b, loc);
    }
  }
};

} // namespace
