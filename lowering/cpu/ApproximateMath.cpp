// tile-cpu-approximate-math: vectorized polynomial approximations of math
// functions, so that math on tiles stays in vector registers.
#include "lowering/cpu/Passes.h"

#include "mlir/Dialect/Math/Transforms/Approximation.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace tessera::cpu {
#define GEN_PASS_DEF_TILECPUAPPROXIMATEMATH
#include "lowering/cpu/Passes.h.inc"
} // namespace tessera::cpu

using namespace mlir;

namespace {

struct ApproximateMath : tessera::cpu::impl::TileCpuApproximateMathBase<ApproximateMath> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
