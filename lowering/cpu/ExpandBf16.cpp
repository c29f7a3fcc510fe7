// tile-cpu-expand-bf16: f32 <-> bf16 conversions as integer arithmetic, so
// that no kernel depends on a runtime library's __truncsfbf2.
#include "lowering/cpu/Passes.h"

#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace tessera::cpu {
#define GEN_PASS_DEF_TILECPUEXPANDBF16
#include "lowering/cpu/Passes.h.inc"
} // namespace tessera::cpu

using namespace mlir;

namespace {

struct ExpandBf16 : tessera::cpu::impl::TileCpuExpandBf16Base<ExpandBf16> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    arith::populateExpandBFloat16Patterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
