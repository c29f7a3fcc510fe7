// Fused row softmax: one program loads a row once, and computes and stores
// its softmax without going back to memory.
#include "examples/Examples.h"
#include "lang/Tessera.h"

#include <limits>

using namespace tessera::lang;

mlir::OwningOpRef<mlir::ModuleOp> tessera::examples::traceSoftmax(mlir::MLIRContext &context,
                                                                  int64_t BLOCK) {
  return trace(context, "softmax",
               [BLOCK](Ptr<float> out, Ptr<float> in, Int outRowStride, Int inRowStride, Int nCols) {
                 Int row = program_id(0);
                 Tile<int32_t> cols = arange(0, BLOCK); // [BLOCK] i32
                 Mask mask = cols < nCols;              // [BLOCK] i1
                 // Masked-off lanes read -inf: they add exp(-inf) = 0 to the sum.
                 Tile<float> x = load(in + row * inRowStride + cols, mask,
                                      -std::numeric_limits<float>::infinity()); // [BLOCK] f32
                 Tile<float> shifted = x - max(x, 0);   // [BLOCK] f32, max is a scalar
                 Tile<float> numerator = exp(shifted);  // [BLOCK] f32
                 Float denominator = sum(numerator, 0); // f32
                 store(out + row * outRowStride + cols, numerator / denominator, mask);
               });
}
