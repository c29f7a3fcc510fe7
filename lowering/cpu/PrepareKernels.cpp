// tile-cpu-prepare-kernels: inlines device functions and turns each kernel
// into a func.func that takes the program ids and grid size as arguments.
#include "lowering/cpu/Passes.h"

#include "ir/TileDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/Inliner.h"
#include "mlir/Transforms/InliningUtils.h"

namespace tessera::cpu {
#define GEN_PASS_DEF_TILECPUPREPAREKERNELS
#include "lowering/cpu/Passes.h.inc"
} // namespace tessera::cpu

using namespace mlir;
namespace tile = tessera::tile;

namespace {

/// Inlines every tile.call whose callee has a body; calls of callees inlined
/// into other callees are handled by repeating until nothing changes.
LogicalResult inlineCalls(ModuleOp module) {
  SymbolTable symbols(module);
  InlinerInterface interface(module.getContext());
  InlinerConfig config;
  for (unsigned round = 0; round < 64; ++round) {
    SmallVector<tile::CallOp> calls;
    module.walk([&](tile::CallOp call) { calls.push_back(call); });
    if (calls.empty())
      return success();
    for (tile::CallOp call : calls) {
      auto callee = symbols.lookup<tile::FuncOp>(call.getCallee());
      if (!callee || callee.isExternal())
        return call.emitError("'tile.call' of a function without a body is not supported by "
                              "the CPU backend");
      if (callee->isAncestor(call))
        return call.emitError("recursive 'tile.call' is not supported by the CPU backend");
      if (failed(inlineCall(interface, config.getCloneCallback(), call,
                            cast<CallableOpInterface>(callee.getOperation()),
                            &callee.getBody(), /*shouldCloneInlinedRegion=*/true)))
        return call.emitError("could not inline the call");
      call.erase();
    }
  }
  return module.emitError("device functions call each other too deeply to inline");
}

struct PrepareKernels
    : tessera::cpu::impl::TileCpuPrepareKernelsBase<PrepareKernels> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(inlineCalls(module)))
      return signalPassFailure();

    SmallVector<tile::FuncOp> funcs(module.getOps<tile::FuncOp>());
    for (tile::FuncOp func : funcs) {
      if (!func.isKernel()) {
        func.erase(); // device functions are inlined
        continue;
      }
      if (func.isExternal()) {
        func.emitError("a kernel without a body cannot be lowered");
        return signalPassFailure();
      }
      OpBuilder b(func);
      MLIRContext *ctx = &getContext();
      SmallVector<Type> inputs(func.getArgumentTypes());
      unsigned numArgs = inputs.size();
      inputs.append(tessera::cpu::kNumGridArgs, b.getI32Type());
      auto type = FunctionType::get(ctx, inputs, {});
      auto newFunc = func::FuncOp::create(b, func.getLoc(), func.getSymName(), type);
      newFunc->setAttr(tessera::cpu::kKernelAttr, UnitAttr::get(ctx));
      if (auto argAttrs = func.getArgAttrsAttr()) {
        SmallVector<Attribute> attrs(argAttrs.begin(), argAttrs.end());
        attrs.append(tessera::cpu::kNumGridArgs, DictionaryAttr::get(ctx));
        newFunc.setAllArgAttrs(attrs);
      }
      newFunc.getBody().takeBody(func.getBody());
      Block &entry = newFunc.getBody().front();
      SmallVector<Value> grid;
      static const char *names[] = {"pid_x", "pid_y", "pid_z", "num_x", "num_y", "num_z"};
      for (unsigned i = 0; i < tessera::cpu::kNumGridArgs; ++i)
        grid.push_back(entry.addArgument(
            b.getI32Type(), NameLoc::get(StringAttr::get(ctx, names[i]), func.getLoc())));
      (void)numArgs;
      newFunc.walk([&](Operation *op) {
        if (auto pid = dyn_cast<tile::ProgramIdOp>(op)) {
          pid.replaceAllUsesWith(grid[static_cast<unsigned>(pid.getAxis())]);
          pid.erase();
        } else if (auto num = dyn_cast<tile::NumProgramsOp>(op)) {
          num.replaceAllUsesWith(grid[3 + static_cast<unsigned>(num.getAxis())]);
          num.erase();
        } else if (auto ret = dyn_cast<tile::ReturnOp>(op)) {
          OpBuilder rb(ret);
          func::ReturnOp::create(rb, ret.getLoc());
          ret.erase();
        }
      });
      func.erase();
    }
  }
};

} // namespace
