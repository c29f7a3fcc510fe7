#include "tests/unit/lowering/gpu/compile/GpuTestKernels.h"

#include "examples/Examples.h"
#include "ir/TileDialect.h"
#include "lang/Tessera.h"
#include "tests/unit/kernels/TileKernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Parser/Parser.h"

#include <cstdlib>
#include <type_traits>
#include <vector>

using namespace mlir;

namespace tessera::gpu::testing {
namespace {

using namespace tessera::lang;

template <class T>
auto gemmKernel(int64_t BM, int64_t BN, int64_t BK, tile::InputPrecision precision) {
  using Acc = DotAccumulator<T>;
  constexpr auto zero = [] {
    if constexpr (std::is_integral_v<T>)
      return 0;
    else
      return 0.0;
  }();
  return [=](Ptr<T> a, Ptr<T> b, Ptr<Acc> c, Int M, Int N, Int K) {
    Tile<int32_t> rm = program_id(0) * BM + arange(0, BM);
    Tile<int32_t> rn = program_id(1) * BN + arange(0, BN);
    Tile<int32_t> rk = arange(0, BK);
    Tile<Acc> acc = for_range(0, K, BK, zeros<Acc>({BM, BN}), [&](Int k, Tile<Acc> acc) {
      Tile<int32_t> ks = k + rk;
      Tile<T> aTile = load(a + rm.expand(1) * K + ks.expand(0),
                           (rm.expand(1) < M) & (ks.expand(0) < K), zero);
      Tile<T> bTile = load(b + ks.expand(1) * N + rn.expand(0),
                           (ks.expand(1) < K) & (rn.expand(0) < N), zero);
      return dot(aTile, bTile, acc, precision);
    });
    store(c + rm.expand(1) * N + rn.expand(0), acc, (rm.expand(1) < M) & (rn.expand(0) < N));
  };
}

void loadTileDialects(MLIRContext &context) {
  context.loadDialect<tile::TileDialect, arith::ArithDialect, scf::SCFDialect, math::MathDialect,
                      cf::ControlFlowDialect>();
}

/// Parses one of the TileKernels.h kernels with `placeholders` replaced
/// (every occurrence of each first by the second). Locations name the
/// kernel's constant: "TileKernels.h:kMatmul:LINE:COL".
std::function<OwningOpRef<ModuleOp>(MLIRContext &)>
tileKernel(llvm::StringRef constantName, llvm::StringRef source,
           std::vector<std::pair<std::string, std::string>> placeholders = {}) {
  std::string text = source.str();
  for (const auto &[what, by] : placeholders)
    text = tessera::test_kernels::withReplaced(text, what, by);
  std::string sourceName = "TileKernels.h:" + constantName.str();
  return [text, sourceName](MLIRContext &context) {
    loadTileDialects(context);
    return parseSourceString<ModuleOp>(text, &context, sourceName);
  };
}

std::vector<KernelCase> buildCatalogue() {
  using examples::MatmulConfig;
  using examples::MatmulInputs;
  auto example = [](auto trace) {
    return [trace](MLIRContext &context) {
      loadTileDialects(context);
      return trace(context);
    };
  };
  auto gemm = [](GemmInputs inputs) {
    return [inputs](MLIRContext &context) {
      loadTileDialects(context);
      return traceGemm(context, inputs);
    };
  };
  using namespace tessera::test_kernels;
  return {
      {"example_vector_add", "vector_add",
       example([](MLIRContext &c) { return examples::traceVectorAdd(c, 1024); })},
      {"example_softmax", "softmax",
       example([](MLIRContext &c) { return examples::traceSoftmax(c, 1024); })},
      {"example_layernorm", "layer_norm",
       example([](MLIRContext &c) { return examples::traceLayerNorm(c, 1024); })},
      {"example_matmul_f32", "matmul", example([](MLIRContext &c) {
         return examples::traceMatmul(c, MatmulConfig{.inputs = MatmulInputs::F32});
       })},
      {"example_matmul_f16", "matmul", example([](MLIRContext &c) {
         return examples::traceMatmul(c, MatmulConfig{.inputs = MatmulInputs::F16});
       })},
      {"example_matmul_f16_descriptors", "matmul", example([](MLIRContext &c) {
         return examples::traceMatmul(
             c, MatmulConfig{.inputs = MatmulInputs::F16, .unitInnerStrides = true});
       })},
      // tessera demo's: f32 64x64x64 blocks, whose two stages fill gfx942's
      // 64 KiB of LDS; the epilogue's conversion must reuse them.
      {"example_matmul_f32_demo", "matmul", example([](MLIRContext &c) {
         return examples::traceMatmul(c, MatmulConfig{.blockK = 64, .unitInnerStrides = true});
       })},
      {"gemm_f16", "gemm", gemm(GemmInputs::F16)},
      {"gemm_bf16", "gemm", gemm(GemmInputs::BF16)},
      {"gemm_f32_tf32", "gemm", gemm(GemmInputs::F32Tf32)},
      {"gemm_f32_ieee", "gemm", gemm(GemmInputs::F32Ieee)},
      {"gemm_i8", "gemm", gemm(GemmInputs::I8)},
      {"tile_collatz", "collatz", tileKernel("kCollatz", kCollatz)},
      {"tile_copy", "copy",
       tileKernel("kCopy", kCopy, {{"LOADMASK", ""}, {"STOREMASK", ""}})},
      {"tile_copy_masked", "copy",
       tileKernel("kCopy", kCopy, {{"LOADMASK", ", %mask"}, {"STOREMASK", ", %mask"}})},
      {"tile_assert", "check", tileKernel("kAssert", kAssert)},
      {"tile_extern_elementwise", "ext", tileKernel("kUnsupported", kUnsupported)},
      {"tile_libdevice", "libdevice", tileKernel("kLibdevice", kLibdevice)},
      {"tile_libdevice_without_math_op", "ext",
       tileKernel("kExternCall", kExternCall,
                  {{"FUNCTION", "__nv_lgammaf"}, {"LIBRARY", "libdevice"}})},
      {"tile_extern_other_library", "ext",
       tileKernel("kExternCall", kExternCall, {{"FUNCTION", "my_erff"}, {"LIBRARY", "mylib"}})},
      {"tile_stray_pointer", "stray", tileKernel("kStrayPointer", kStrayPointer)},
      {"tile_print", "show", tileKernel("kPrint", kPrint)},
      {"tile_vector_add", "add", tileKernel("kVectorAdd", kVectorAdd)},
      {"tile_integer_ops", "ints", tileKernel("kIntegerOps", kIntegerOps)},
      {"tile_half_ops", "halves", tileKernel("kHalfOps", kHalfOps)},
      {"tile_matmul_f32", "matmul", tileKernel("kMatmul", kMatmul, {{"DT", "f32"}})},
      {"tile_matmul_f16", "matmul", tileKernel("kMatmul", kMatmul, {{"DT", "f16"}})},
      {"tile_matmul_bf16", "matmul", tileKernel("kMatmul", kMatmul, {{"DT", "bf16"}})},
      {"tile_dot_i8", "dot_i8", tileKernel("kDotI8", kDotI8)},
      {"tile_dot_e4m3", "dot_f8", tileKernel("kDotF8", kDotF8, {{"DT", "f8E4M3FN"}})},
      {"tile_dot_e5m2", "dot_f8", tileKernel("kDotF8", kDotF8, {{"DT", "f8E5M2"}})},
      {"tile_histogram", "histogram", tileKernel("kHistogram", kHistogram)},
      {"tile_scalar_atomics", "atomics", tileKernel("kScalarAtomics", kScalarAtomics)},
      {"tile_descriptor_scale", "scale", tileKernel("kDescriptorScale", kDescriptorScale)},
      {"tile_descriptor_padding_zero", "pad",
       tileKernel("kDescriptorPadding", kDescriptorPadding, {{"PADDING", ""}})},
      {"tile_descriptor_padding_nan", "pad",
       tileKernel("kDescriptorPadding", kDescriptorPadding, {{"PADDING", "padding = nan"}})},
      {"tile_pointer_round_trip", "roundtrip",
       tileKernel("kPointerRoundTrip", kPointerRoundTrip)},
      {"tile_softmax", "softmax", tileKernel("kSoftmax", kSoftmax)},
      {"tile_layernorm", "layernorm", tileKernel("kLayerNorm", kLayerNorm)},
      {"tile_argmax", "argmax", tileKernel("kArgmax", kArgmax)},
      {"tile_cumsum", "cumsum", tileKernel("kCumsum", kCumsum, {{"REVERSE", ""}})},
      {"tile_cumsum_reverse", "cumsum", tileKernel("kCumsum", kCumsum, {{"REVERSE", "reverse"}})},
  };
}

} // namespace

OwningOpRef<ModuleOp> traceGemm(MLIRContext &context, GemmInputs inputs, int64_t blockM,
                                int64_t blockN, int64_t blockK) {
  using tile::InputPrecision;
  switch (inputs) {
  case GemmInputs::F16:
    return trace(context, "gemm", gemmKernel<f16>(blockM, blockN, blockK, InputPrecision::TF32));
  case GemmInputs::BF16:
    return trace(context, "gemm", gemmKernel<bf16>(blockM, blockN, blockK, InputPrecision::TF32));
  case GemmInputs::F32Tf32:
    return trace(context, "gemm",
                 gemmKernel<float>(blockM, blockN, blockK, InputPrecision::TF32));
  case GemmInputs::F32Ieee:
    return trace(context, "gemm",
                 gemmKernel<float>(blockM, blockN, blockK, InputPrecision::IEEE));
  case GemmInputs::I8:
    return trace(context, "gemm",
                 gemmKernel<int8_t>(blockM, blockN, blockK, InputPrecision::TF32));
  }
  return nullptr;
}

llvm::ArrayRef<KernelCase> allKernels() {
  static const std::vector<KernelCase> catalogue = buildCatalogue();
  return catalogue;
}

const KernelCase &kernelCase(llvm::StringRef name) {
  for (const KernelCase &c : allKernels())
    if (c.name == name)
      return c;
  llvm::errs() << "no test kernel '" << name << "'\n";
  std::abort();
}

} // namespace tessera::gpu::testing
