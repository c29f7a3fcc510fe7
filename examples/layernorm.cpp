// Layer normalization of each row, in three passes over the row, BLOCK
// columns at a time: the mean, the variance, then the normalized output.
#include "examples/Examples.h"
#include "lang/Tessera.h"

using namespace tessera::lang;

mlir::OwningOpRef<mlir::ModuleOp> tessera::examples::traceLayerNorm(mlir::MLIRContext &context,
                                                                    int64_t BLOCK) {
  return trace(context, "layer_norm", [BLOCK](Ptr<float> x, Ptr<float> y, Ptr<float> w,
                                              Ptr<float> b, Ptr<float> mean, Ptr<float> rstd,
                                              Int rowStride, Int n, Float eps) {
    Int row = program_id(0);
    Ptr<float> xRow = x + row * rowStride, yRow = y + row * rowStride;

    Tile<float> partialSums = for_range(0, n, BLOCK, zeros<float>({BLOCK}), [&](Int off, Tile<float> acc) {
      Tile<int32_t> cols = off + arange(0, BLOCK);    // [BLOCK] i32
      return acc + load(xRow + cols, cols < n, 0.0f); // [BLOCK] f32
    });
    Float mu = sum(partialSums, 0) / n.to<float>();   // f32

    Tile<float> partialVars = for_range(0, n, BLOCK, zeros<float>({BLOCK}), [&](Int off, Tile<float> acc) {
      Tile<int32_t> cols = off + arange(0, BLOCK);                        // [BLOCK] i32
      Tile<float> xs = load(xRow + cols, cols < n, 0.0f);                  // [BLOCK] f32
      Tile<float> centered = where(cols < n, xs - mu, 0.0f);              // [BLOCK] f32
      return acc + centered * centered;
    });
    Float r = rsqrt(sum(partialVars, 0) / n.to<float>() + eps);         // f32
    store(mean + row, mu);
    store(rstd + row, r);

    for_range(0, n, BLOCK, [&](Int off) {
      Tile<int32_t> cols = off + arange(0, BLOCK);         // [BLOCK] i32
      Mask mask = cols < n;                                // [BLOCK] i1
      Tile<float> xs = load(xRow + cols, mask, 0.0f);      // [BLOCK] f32
      Tile<float> ws = load(w + cols, mask);               // [BLOCK] f32
      Tile<float> bs = load(b + cols, mask);               // [BLOCK] f32
      store(yRow + cols, (xs - mu) * r * ws + bs, mask);
    });
  });
}
