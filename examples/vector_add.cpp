// The "hello world" of tile kernels: each program adds one block of two vectors.
#include "examples/Examples.h"
#include "lang/Tessera.h"

using namespace tessera::lang;

mlir::OwningOpRef<mlir::ModuleOp> tessera::examples::traceVectorAdd(mlir::MLIRContext &context,
                                                                    int64_t BLOCK) {
  return trace(context, "vector_add", [BLOCK](Ptr<float> x, Ptr<float> y, Ptr<float> out, Int n) {
    Int pid = program_id(0);
    Tile<int32_t> offsets = pid * BLOCK + arange(0, BLOCK); // [BLOCK] i32
    Mask mask = offsets < n;                                // [BLOCK] i1
    Tile<float> xs = load(x + offsets, mask);               // [BLOCK] f32
    Tile<float> ys = load(y + offsets, mask);               // [BLOCK] f32
    store(out + offsets, xs + ys, mask);
  });
}
