// Tiled matrix product: each program computes one [BM, BN] block of c,
// stepping through K in blocks of BK with an f32 accumulator.
#include "examples/Examples.h"
#include "lang/Tessera.h"

using namespace tessera::lang;

namespace {

template <class T> auto matmulKernel(tessera::examples::MatmulConfig config) {
  return [config](Ptr<T> a, Ptr<T> b, Ptr<T> c, Int M, Int N, Int K, Int strideAM, Int strideAK,
                  Int strideBK, Int strideBN, Int strideCM, Int strideCN) {
    const int64_t BM = config.blockM, BN = config.blockN, BK = config.blockK;
    // Grouped ("super-grouped") program order, as Triton's GROUP_M: the
    // runtime runs programs with axis 0 fastest; renumber them so that
    // consecutive programs walk `groupM` row blocks down one column block
    // before moving right, reusing one B panel and `groupM` A panels from
    // cache instead of streaming a new A panel per program.
    Int pidM = program_id(0), pidN = program_id(1);
    if (config.groupM > 1) {
      Int numM = num_programs(0), numN = num_programs(1);
      Int pid = pidM + pidN * numM;
      Int perGroup = numN * int32_t(config.groupM);
      Int firstM = (pid / perGroup) * int32_t(config.groupM);
      Int groupSize = minimum(numM - firstM, Int(int32_t(config.groupM)));
      pidM = firstM + (pid % perGroup) % groupSize;
      pidN = (pid % perGroup) / groupSize;
    }

    if (config.unitInnerStrides) {
      // Row-major a, b, c: tensor descriptors give each block row as one
      // contiguous masked access, with no pointer or mask tiles to compute.
      auto da = make_tensor_descriptor(a, {M, K}, {strideAM, strideAK}, {BM, BK});
      auto db = make_tensor_descriptor(b, {K, N}, {strideBK, strideBN}, {BK, BN});
      auto dc = make_tensor_descriptor(c, {M, N}, {strideCM, strideCN}, {BM, BN});
      Int m0 = pidM * BM, n0 = pidN * BN;
      Tile<float> acc = for_range(0, K, BK, zeros<float>({BM, BN}), [&](Int k, Tile<float> acc) {
        Tile<T> aTile = da.load({m0, k}); // [BM, BK]
        Tile<T> bTile = db.load({k, n0}); // [BK, BN]
        return dot(aTile, bTile, acc);    // [BM, BN] f32
      });
      dc.store({m0, n0}, acc.to<T>());
      return;
    }

    Tile<int32_t> rm = pidM * BM + arange(0, BM); // [BM] i32
    Tile<int32_t> rn = pidN * BN + arange(0, BN); // [BN] i32
    Tile<int32_t> rk = arange(0, BK);             // [BK] i32

    Tile<float> acc = for_range(0, K, BK, zeros<float>({BM, BN}), [&](Int k, Tile<float> acc) {
      Tile<int32_t> ks = k + rk;                                                     // [BK] i32
      Tile<Ptr<T>> aPtrs = a + rm.expand(1) * strideAM + ks.expand(0) * strideAK;    // [BM, BK]
      Tile<Ptr<T>> bPtrs = b + ks.expand(1) * strideBK + rn.expand(0) * strideBN;    // [BK, BN]
      Tile<T> aTile = load(aPtrs, (rm.expand(1) < M) & (ks.expand(0) < K), 0.0);     // [BM, BK]
      Tile<T> bTile = load(bPtrs, (ks.expand(1) < K) & (rn.expand(0) < N), 0.0);     // [BK, BN]
      return dot(aTile, bTile, acc);                                                 // [BM, BN] f32
    });

    Tile<Ptr<T>> cPtrs = c + rm.expand(1) * strideCM + rn.expand(0) * strideCN; // [BM, BN]
    store(cPtrs, acc.to<T>(), (rm.expand(1) < M) & (rn.expand(0) < N));
  };
}

} // namespace

mlir::OwningOpRef<mlir::ModuleOp> tessera::examples::traceMatmul(mlir::MLIRContext &context,
                                                                 MatmulConfig config) {
  // Argument positions of stride_ak, stride_bn and stride_cn.
  std::vector<size_t> unitStrides;
  if (config.unitInnerStrides)
    unitStrides = {7, 9, 11};
  if (config.inputs == MatmulInputs::F16)
    return trace(context, "matmul", matmulKernel<f16>(config), {}, unitStrides);
  return trace(context, "matmul", matmulKernel<float>(config), {}, unitStrides);
}
