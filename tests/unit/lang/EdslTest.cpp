// The EDSL surface: static handle types, operators, Const<N> parameters,
// control flow, atomics, descriptors, and source locations on every op.
#include "lang/Tessera.h"
#include "tests/unit/lang/LangTestUtils.h"

#include "ir/TileDialect.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Verifier.h"

using namespace tessera::lang;
using tessera::testing::countOps;

namespace {

// Compile-time promotion mirrors the builder's (the handles check it again
// when tracing).
static_assert(std::is_same_v<BinaryResult<Tile<int32_t>, Float>, Tile<float>>);
static_assert(std::is_same_v<BinaryResult<Tile<f16>, double>, Tile<f16>>);
static_assert(std::is_same_v<BinaryResult<Tile<f16>, Tile<bf16>>, Tile<float>>);
// bf16 meets integers and fp8 in float (Triton's rule), a literal in bf16.
static_assert(std::is_same_v<BinaryResult<Tile<bf16>, Tile<int32_t>>, Tile<float>>);
static_assert(std::is_same_v<BinaryResult<Tile<int64_t>, Tile<bf16>>, Tile<float>>);
static_assert(std::is_same_v<BinaryResult<Tile<bf16>, Tile<f8e4m3>>, Tile<float>>);
static_assert(std::is_same_v<BinaryResult<Tile<bf16>, int>, Tile<bf16>>);
static_assert(std::is_same_v<BinaryResult<Tile<bf16>, Tile<double>>, Tile<double>>);
static_assert(std::is_same_v<BinaryResult<Int, Int64>, Int64>);
static_assert(std::is_same_v<BinaryResult<Ptr<float>, Tile<int32_t>>, Tile<Ptr<float>>>);
static_assert(std::is_same_v<BinaryResult<int, Tile<int8_t>>, Tile<int8_t>>);
static_assert(std::is_same_v<CompareResult<Tile<float>, float>, Tile<bool>>);
// Two fp8 types meet in float, as f16 and bf16 do; fp8 dots accumulate in it.
static_assert(std::is_same_v<BinaryResult<Tile<f8e4m3>, Tile<f8e5m2>>, Tile<float>>);
static_assert(std::is_same_v<BinaryResult<Tile<f8e5m2>, double>, Tile<f8e5m2>>);
static_assert(DotOperands<f8e4m3, f8e5m2> && !DotOperands<f16, bf16>);
static_assert(std::is_same_v<DotAccumulator<f8e4m3>, float>);

TEST(EdslTest, ConstParametersAreNotKernelArguments) {
  TracedKernel traced = trace("copy", [](Ptr<float> in, Ptr<float> out, Int n, Const<128> BLOCK) {
    Tile<int32_t> offsets = program_id(0) * BLOCK + arange(0, BLOCK);
    store(out + offsets, load(in + offsets, offsets < n), offsets < n);
  });
  auto kernel = llvm::cast<tessera::tile::FuncOp>(traced.module->getBody()->front());
  EXPECT_EQ(kernel.getNumArguments(), 3u);
  EXPECT_NE(traced.str().find("tile.make_range 0 to 128"), std::string::npos) << traced.str();
}

TEST(EdslTest, DivisibilityHintsAreRecorded) {
  TracedKernel traced =
      trace("hinted", [](Ptr<float> x, Int n) { store(x, 1.0f); }, {16, 8});
  auto kernel = llvm::cast<tessera::tile::FuncOp>(traced.module->getBody()->front());
  EXPECT_EQ(kernel.getArgAttrOfType<mlir::IntegerAttr>(1, "tile.divisibility").getInt(), 8);
}

TEST(EdslTest, OperatorsCarryTheUserLine) {
  unsigned line = 0;
  TracedKernel traced = trace("lines", [&](Ptr<float> x) {
    Tile<float> a = load(x + arange(0, 16));
    line = __LINE__ + 1;
    Tile<float> b = a * 2.0f + -a;
    store(x + arange(0, 16), b);
  });
  int checked = 0;
  traced.module->walk([&](mlir::Operation *op) {
    if (!llvm::isa<mlir::arith::MulFOp, mlir::arith::AddFOp, mlir::arith::NegFOp>(op))
      return;
    auto loc = llvm::cast<mlir::FileLineColLoc>(op->getLoc());
    EXPECT_EQ(loc.getFilename().str(), __FILE__);
    EXPECT_EQ(loc.getLine(), line) << op->getName().getStringRef().str();
    ++checked;
  });
  EXPECT_EQ(checked, 3);
}

TEST(EdslTest, ControlFlowCarriesTypedHandles) {
  TracedKernel traced = trace("flow", [](Ptr<int32_t> out, Int n) {
    Int total = for_range(0, n, 1, Int(0), [&](Int i, Int acc) { return acc + i; });
    Int clamped = if_then_else(
        total > 100, [&] { return Int(100); }, [&] { return total; });
    auto [count, value] = while_loop(
        std::tuple{Int(0), clamped}, [&](Int c, Int v) { return v > 1; },
        [&](Int c, Int v) { return std::tuple{c + 1, v / 2}; });
    if_then(count > 0, [&] { store(out, count); });
    store(out + 1, value);
    auto [steps, half] = for_range(0, n, 2, std::tuple{Int(0), Float(1.0f)},
                                   [&](Int i, Int steps, Float half) {
                                     return std::tuple{steps + 1, half * 0.5f};
                                   });
    store(out + 2, steps + half.to<int32_t>());
  });
  EXPECT_TRUE(mlir::succeeded(mlir::verify(*traced.module)));
  EXPECT_EQ(countOps(*traced.module, "scf.for"), 2);
  EXPECT_EQ(countOps(*traced.module, "scf.if"), 2);
  EXPECT_EQ(countOps(*traced.module, "scf.while"), 1);
}

TEST(EdslTest, FlattenedRangeMarksItsLoop) {
  TracedKernel traced = trace("persistent", [](Ptr<float> out, Int tiles, Int k) {
    for_range_flattened(program_id(0), tiles, 4, [&](Int tile) {
      Float total = for_range(0, k, 16, Float(0.0f), [&](Int i, Float acc) {
        return acc + i.to<float>();
      });
      store(out + tile, total);
    });
  });
  EXPECT_TRUE(mlir::succeeded(mlir::verify(*traced.module)));
  int marked = 0;
  traced.module->walk([&](mlir::scf::ForOp loop) {
    marked += loop->hasAttr(tessera::tile::TileDialect::kFlattenAttr);
  });
  EXPECT_EQ(marked, 1) << traced.str();
}

TEST(EdslTest, ReductionsShapesAndMath) {
  TracedKernel traced = trace("misc", [](Ptr<float> x, Ptr<int32_t> idx) {
    Tile<int32_t> r = arange(0, 8), c = arange(0, 32);
    Tile<float> m = load(x + r.expand(1) * 32 + c.expand(0)); // [8, 32]
    Tile<int32_t> best = argmax(m, 1);                        // [8]
    Tile<float> rowMax = max(m, 1, /*keep_dims=*/true);       // [8, 1]
    Tile<float> p = sigmoid(m - rowMax) + erf(m) * maximum(m, 0.0f) + div_rn(m, rowMax);
    Tile<float> t = trans(p);                                 // [32, 8]
    Tile<float> flat = reshape(t, {256});
    Float total = sum(flat);
    Tile<float> running = cumsum(broadcast_to(expand_dims(c.to<float>(), 0), {8, 32}), 1);
    store(idx + r, best);
    Tile<int32_t> columns = max_contiguous(multiple_of(c, 32), 32);
    store(x + r.expand(1) * 32 + columns.expand(0), where(m > total, running, fma(m, 2.0f, 1.0f)));
    device_assert(total >= 0.0f, "negative total");
    device_print("total = ", {total});
    debug_barrier();
  });
  EXPECT_TRUE(mlir::succeeded(mlir::verify(*traced.module)));
  EXPECT_EQ(countOps(*traced.module, "tile.debug_barrier"), 1);
  EXPECT_EQ(countOps(*traced.module, "tile.hint"), 2);
  EXPECT_EQ(countOps(*traced.module, "tile.reduce"), 3);
  EXPECT_EQ(countOps(*traced.module, "tile.scan"), 1);
  EXPECT_EQ(countOps(*traced.module, "tile.trans"), 1);
  EXPECT_EQ(countOps(*traced.module, "math.fma"), 1);
  EXPECT_EQ(countOps(*traced.module, "tile.precise_divf"), 1);
}

// fp8 element types: quantizing casts, arithmetic in the fp8 type, and a dot
// of an e4m3 A with an e5m2 B bounding its imprecise sums.
TEST(EdslTest, Float8TilesAndDots) {
  TracedKernel traced = trace("fp8", [](Ptr<float> x, Ptr<f8e4m3> q, Ptr<f8e5m2> w,
                                        Ptr<float> out) {
    Tile<int32_t> r = arange(0, 16), c = arange(0, 32);
    Tile<int32_t> offsets = r.expand(1) * 32 + c.expand(0);
    Tile<f8e4m3> a = load(x + offsets).to<f8e4m3>(); // [16, 32]
    store(q + offsets, a + a);
    Tile<f8e5m2> b = load(w + c.expand(1) * 16 + r.expand(0)); // [32, 16]
    Tile<float> acc = dot(a, b, zeros<float>({16, 16}), 16u);
    store(out + r.expand(1) * 16 + r.expand(0), acc + dot(a, b));
  });
  EXPECT_TRUE(mlir::succeeded(mlir::verify(*traced.module))) << traced.str();
  std::string ir = traced.str();
  EXPECT_NE(ir.find("arith.truncf"), std::string::npos) << ir;
  EXPECT_NE(ir.find("to tensor<16x32xf8E4M3FN>"), std::string::npos) << ir;
  EXPECT_NE(ir.find("arith.addf"), std::string::npos) << ir;
  EXPECT_NE(ir.find("max_num_imprecise_acc = 16 : tensor<16x32xf8E4M3FN> * tensor<32x16xf8E5M2>"),
            std::string::npos)
      << ir;
  EXPECT_EQ(countOps(*traced.module, "tile.dot"), 2);
}

TEST(EdslTest, ReductionsAndScansWithCombineFunctions) {
  TracedKernel traced = trace("combine", [](Ptr<float> x) {
    Tile<int32_t> r = arange(0, 8), c = arange(0, 16);
    Tile<float> m = load(x + r.expand(1) * 16 + c.expand(0)); // [8, 16]
    Tile<float> largest = reduce(m, 1, [](Float a, Float b) { return maximum(a, b); });
    Tile<float> products = associative_scan(m, 0, [](Float a, Float b) { return a * b; },
                                            /*reverse=*/true);
    EXPECT_EQ(largest.shape(), (std::vector<int64_t>{8}));
    EXPECT_EQ(products.shape(), (std::vector<int64_t>{8, 16}));
    store(x + r, largest);
    store(x + r.expand(1) * 16 + c.expand(0), products);
  });
  EXPECT_TRUE(mlir::succeeded(mlir::verify(*traced.module)));
  EXPECT_EQ(countOps(*traced.module, "tile.reduce"), 1);
  EXPECT_EQ(countOps(*traced.module, "tile.scan"), 1);
  EXPECT_EQ(countOps(*traced.module, "arith.maxnumf"), 1);
}

TEST(EdslTest, SumsOfSmallIntegersAre32Bit) {
  TracedKernel traced = trace("sums", [](Ptr<int8_t> x, Ptr<uint8_t> bytes, Ptr<int32_t> out) {
    Tile<int32_t> r = arange(0, 8), c = arange(0, 8);
    Tile<int8_t> s = load(x + r.expand(1) * 8 + c.expand(0));      // [8, 8]
    Tile<uint8_t> u = load(bytes + r.expand(1) * 8 + c.expand(0)); // [8, 8]
    // int32_t + uint32_t is uint32_t, as in C.
    Tile<uint32_t> rowSums = sum(s, 1) + sum(u, 1);
    Tile<int32_t> running = cumsum(s, 1);
    store(out + r, rowSums);
    store(out + 8 + r.expand(1) * 8 + c.expand(0), running);
  });
  EXPECT_TRUE(mlir::succeeded(mlir::verify(*traced.module)));
  // Signed bytes sign-extended, unsigned ones zero-extended (200 counts as
  // 200), before each reduction and the scan.
  EXPECT_EQ(countOps(*traced.module, "arith.extsi"), 2);
  EXPECT_EQ(countOps(*traced.module, "arith.extui"), 1);
  traced.module->walk([](tessera::tile::ReduceOp op) {
    EXPECT_TRUE(mlir::getElementTypeOrSelf(op.getSrcs().front()).isInteger(32));
  });
  traced.module->walk([](tessera::tile::ScanOp op) {
    EXPECT_TRUE(mlir::getElementTypeOrSelf(op.getSrcs().front()).isInteger(32));
  });
}

TEST(EdslTest, JoinSplitInterleaveAndCat) {
  TracedKernel traced = trace("pairs", [](Ptr<float> x) {
    Tile<int32_t> r = arange(0, 8);
    Tile<float> v = load(x + r);                            // [8]
    Tile<float> pairs = join(v, v * 2.0f);                  // [8, 2]
    auto [lo, hi] = split(pairs);                           // [8] each
    Tile<float> woven = interleave(lo, hi);                 // [16]
    Tile<float> stacked = cat(woven, woven, 0);             // [32]
    EXPECT_EQ(pairs.shape(), (std::vector<int64_t>{8, 2}));
    EXPECT_EQ(woven.shape(), (std::vector<int64_t>{16}));
    EXPECT_EQ(stacked.shape(), (std::vector<int64_t>{32}));
    store(x + arange(0, 32), stacked);
  });
  EXPECT_TRUE(mlir::succeeded(mlir::verify(*traced.module)));
  EXPECT_EQ(countOps(*traced.module, "tile.join"), 2);
  EXPECT_EQ(countOps(*traced.module, "tile.split"), 1);
  EXPECT_EQ(countOps(*traced.module, "tile.cat"), 1);
}

TEST(EdslTest, GatherAndHistogram) {
  TracedKernel traced = trace("indexed", [](Ptr<float> x, Ptr<uint8_t> bytes, Ptr<int32_t> out) {
    Tile<int32_t> r = arange(0, 16), c = arange(0, 8);
    Tile<float> rows = load(x + r.expand(1) * 8 + c.expand(0));         // [16, 8]
    Tile<uint8_t> picks = load(bytes + r.expand(1) * 4 + arange(0, 4).expand(0));
    Tile<float> picked = gather(rows, picks, 1);                        // [16, 4]
    EXPECT_EQ(picked.shape(), (std::vector<int64_t>{16, 4}));
    store(x + r.expand(1) * 4 + arange(0, 4).expand(0), picked);
    Tile<uint8_t> flat = load(bytes + arange(0, 64));
    store(out + arange(0, 32), histogram(flat, 32, arange(0, 64) < 60));
  });
  EXPECT_TRUE(mlir::succeeded(mlir::verify(*traced.module)));
  EXPECT_EQ(countOps(*traced.module, "tile.gather"), 1);
  EXPECT_EQ(countOps(*traced.module, "tile.histogram"), 1);
  // Unsigned bytes are zero-extended to int32 first: the IR reads integers as
  // signed, and 200 is a bin, not -56.
  EXPECT_EQ(countOps(*traced.module, "arith.extui"), 2);
  traced.module->walk([](tessera::tile::HistogramOp op) {
    EXPECT_TRUE(op.getMask());
    EXPECT_TRUE(op.getSrc().getType().getElementType().isInteger(32));
  });
}

TEST(EdslTest, ClampIsOneOpOnFloatsAndMaxMinOnIntegers) {
  TracedKernel traced = trace("clamped", [](Ptr<float> x, Ptr<int32_t> n) {
    Tile<int32_t> r = arange(0, 16);
    store(x + r, clamp(load(x + r), -1.0f, 1.0f, PropagateNan::All));
    store(n + r, clamp(load(n + r), 0, 9));
  });
  EXPECT_TRUE(mlir::succeeded(mlir::verify(*traced.module)));
  EXPECT_EQ(countOps(*traced.module, "tile.clamp"), 1);
  traced.module->walk([](tessera::tile::ClampOp op) {
    EXPECT_EQ(op.getPropagateNan(), PropagateNan::All);
  });
  EXPECT_EQ(countOps(*traced.module, "arith.maxsi"), 1);
  EXPECT_EQ(countOps(*traced.module, "arith.minsi"), 1);
}

TEST(EdslTest, LibraryFunctionsAndInlineAssembly) {
  TracedKernel traced = trace("calls", [](Ptr<float> x, Ptr<int32_t> n, Float scale) {
    Tile<int32_t> r = arange(0, 16);
    Tile<float> v = load(x + r);
    Tile<float> angle = extern_elementwise<float>("__nv_atan2f", "libdevice")(v, scale);
    store(n + r, extern_elementwise<int32_t>("__nv_isnanf", "libdevice")(angle));
    Tile<float> fast = inline_asm_elementwise<float>("tanh.approx.f32 $0, $1;", "=r,r")(angle);
    store(x + r, extern_elementwise<float>("__nv_fmaf", "libdevice")(v, fast, scale));
  });
  EXPECT_TRUE(mlir::succeeded(mlir::verify(*traced.module)));
  EXPECT_EQ(countOps(*traced.module, "tile.extern_elementwise"), 3);
  EXPECT_EQ(countOps(*traced.module, "tile.inline_asm_elementwise"), 1);
  std::string text;
  llvm::raw_string_ostream os(text);
  traced.module->print(os);
  // The scalar argument is broadcast to the tile's shape.
  EXPECT_NE(text.find("tile.extern_elementwise \"__nv_atan2f\"(%"), std::string::npos) << text;
  EXPECT_NE(text.find("lib \"libdevice\" pure : (tensor<16xf32>, tensor<16xf32>) -> "
                      "tensor<16xf32>"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("-> tensor<16xi32>"), std::string::npos) << text;
  EXPECT_NE(text.find("constraints \"=r,r\" pure : (tensor<16xf32>) -> tensor<16xf32>"),
            std::string::npos)
      << text;
}

TEST(EdslTest, AtomicsAndTensorDescriptors) {
  TracedKernel traced = trace("memory", [](Ptr<f16> a, Ptr<float> counters, Ptr<int32_t> lock,
                                           Int m, Int k) {
    auto desc = make_tensor_descriptor(a, {m, k}, {k, 1}, {64, 32});
    Tile<f16> block = desc.load({program_id(0) * 64, 0}); // [64, 32] f16
    desc.store({program_id(0) * 64, 32}, block);
    desc.atomic_add({0, 0}, block);
    auto rowsOf = make_tensor_descriptor(a, {m, k}, {k, 1}, {1, 32}, PaddingOption::NaN);
    Tile<f16> picked = rowsOf.gather(arange(0, 16) * 2, 0); // [16, 32]
    rowsOf.scatter(picked, arange(0, 16), 32);
    Tile<float> old = atomic_add(counters + arange(0, 64), 1.0f);
    atomic_max(counters, sum(old));
    atomic_cas(lock, 0, 1);
    atomic_xchg(lock, 0, {}, MemSemantic::Release);
  });
  EXPECT_TRUE(mlir::succeeded(mlir::verify(*traced.module)));
  EXPECT_EQ(countOps(*traced.module, "tile.make_tensor_descriptor"), 2);
  EXPECT_EQ(countOps(*traced.module, "tile.descriptor_load"), 1);
  // The block atomic, gather and scatter go through pointers.
  EXPECT_EQ(countOps(*traced.module, "tile.atomic_rmw"), 4);
  EXPECT_EQ(countOps(*traced.module, "tile.load"), 1);
  EXPECT_EQ(countOps(*traced.module, "tile.store"), 1);
  EXPECT_EQ(countOps(*traced.module, "tile.atomic_cas"), 1);
}

} // namespace
