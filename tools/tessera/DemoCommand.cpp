// `tessera demo`: takes example kernels through everything that exists of the
// compiler today and says plainly what does not exist yet.
//
// Today that is the tile IR pipeline (parse, verify, inline, canonicalize,
// CSE). No backend lowers tile IR yet, so no kernel runs and no result is
// checked; the demo says so instead of pretending.
#include "tools/tessera/Commands.h"

#include "ir/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace mlir;

namespace {

struct DemoKernel {
  llvm::StringRef name;
  llvm::StringRef what;
  llvm::StringRef source;
};

// A masked vector add whose address arithmetic goes through a device
// function, so that inlining and canonicalization have work to do.
constexpr llvm::StringLiteral kVectorAdd = R"mlir(
tile.func private @block_offsets(%pid: i32) -> tensor<1024xi32> {
  %block = arith.constant 1024 : i32
  %start = arith.muli %pid, %block : i32
  %starts = tile.splat %start : i32 -> tensor<1024xi32>
  %range = tile.make_range 0 to 1024 : tensor<1024xi32>
  %offs = arith.addi %starts, %range : tensor<1024xi32>
  tile.return %offs : tensor<1024xi32>
}
tile.func @vector_add(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                      %y: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                      %out: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                      %n: i32) {
  %pid = tile.program_id x
  %offs = tile.call @block_offsets(%pid) : (i32) -> tensor<1024xi32>
  %bound = tile.splat %n : i32 -> tensor<1024xi32>
  %mask = arith.cmpi slt, %offs, %bound : tensor<1024xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %ys = tile.splat %y : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %yp = tile.addptr %ys, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %a = tile.load %xp, %mask : tensor<1024x!tile.ptr<f32>>
  %b = tile.load %yp, %mask : tensor<1024x!tile.ptr<f32>>
  %sum = arith.addf %a, %b : tensor<1024xf32>
  %os = tile.splat %out : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %op = tile.addptr %os, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  tile.store %op, %sum, %mask : tensor<1024x!tile.ptr<f32>>
  tile.return
}
)mlir";

// One row of a softmax per program: max, exp, sum, divide, with the masked
// lanes reading -inf so that they vanish from both reductions.
constexpr llvm::StringLiteral kSoftmax = R"mlir(
tile.func @softmax(%in: !tile.ptr<f32>, %out: !tile.ptr<f32>, %cols: i32) {
  %row = tile.program_id x
  %start = arith.muli %row, %cols : i32
  %range = tile.make_range 0 to 256 : tensor<256xi32>
  %bound = tile.splat %cols : i32 -> tensor<256xi32>
  %mask = arith.cmpi slt, %range, %bound : tensor<256xi32>
  %base = tile.addptr %in, %start : !tile.ptr<f32>, i32
  %bases = tile.splat %base : !tile.ptr<f32> -> tensor<256x!tile.ptr<f32>>
  %ptrs = tile.addptr %bases, %range : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  %ninf = arith.constant dense<0xFF800000> : tensor<256xf32>
  %x = tile.load %ptrs, %mask, %ninf : tensor<256x!tile.ptr<f32>>
  %max = tile.reduce %x axis = 0 : tensor<256xf32> {
  ^bb0(%l: f32, %r: f32):
    %m = arith.maximumf %l, %r : f32
    tile.yield %m : f32
  }
  %maxs = tile.splat %max : f32 -> tensor<256xf32>
  %shifted = arith.subf %x, %maxs : tensor<256xf32>
  %e = math.exp %shifted : tensor<256xf32>
  %sum = tile.reduce %e axis = 0 : tensor<256xf32> {
  ^bb0(%l: f32, %r: f32):
    %s = arith.addf %l, %r : f32
    tile.yield %s : f32
  }
  %sums = tile.splat %sum : f32 -> tensor<256xf32>
  %y = arith.divf %e, %sums : tensor<256xf32>
  %obase = tile.addptr %out, %start : !tile.ptr<f32>, i32
  %obases = tile.splat %obase : !tile.ptr<f32> -> tensor<256x!tile.ptr<f32>>
  %optrs = tile.addptr %obases, %range : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  tile.store %optrs, %y, %mask : tensor<256x!tile.ptr<f32>>
  tile.return
}
)mlir";

const DemoKernel kKernels[] = {
    {"vector_add", "masked 1-D add, BLOCK=1024", kVectorAdd},
    {"softmax", "fused row softmax, BLOCK=256", kSoftmax},
};

size_t countOps(ModuleOp module) {
  size_t count = 0;
  module.walk([&](Operation *op) { count += op != module.getOperation(); });
  return count;
}

} // namespace

int tessera::cli::runDemo(llvm::ArrayRef<llvm::StringRef> args) {
  bool printIR = false;
  for (llvm::StringRef arg : args) {
    if (arg == "--print-ir") {
      printIR = true;
    } else {
      llvm::errs() << "tessera demo: unknown option '" << arg
                   << "' (usage: tessera demo [--print-ir])\n";
      return 2;
    }
  }

  MLIRContext context;
  context.loadDialect<tessera::tile::TileDialect, arith::ArithDialect, math::MathDialect,
                      scf::SCFDialect>();

  llvm::outs() << "Tessera demo: example kernels through the compiler as it stands\n\n";
  for (const DemoKernel &kernel : kKernels) {
    auto start = std::chrono::steady_clock::now();
    llvm::SourceMgr sourceMgr;
    sourceMgr.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBuffer(kernel.source, kernel.name),
                                 llvm::SMLoc());
    OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
    if (!module) {
      llvm::errs() << "tessera demo: kernel " << kernel.name << " failed to parse\n";
      return 1;
    }
    size_t opsBefore = countOps(*module);
    PassManager pm(&context);
    pm.addPass(createInlinerPass());
    pm.addPass(createSymbolDCEPass());
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
    if (failed(pm.run(*module))) {
      llvm::errs() << "tessera demo: the tile pipeline failed on " << kernel.name << "\n";
      return 1;
    }
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                    .count();
    llvm::outs() << "kernel   " << kernel.name << " (" << kernel.what << ")\n"
                 << "compile  tile IR: parse, verify, inline, canonicalize, cse: " << opsBefore
                 << " -> " << countOps(*module) << " ops in " << llvm::format("%.2f", ms)
                 << " ms\n"
                 << "run      not run: no backend lowers tile IR yet\n\n";
    if (printIR)
      module->print(llvm::outs());
  }
  llvm::outs() << "What is not there yet: the CPU backend (tile IR -> vector -> LLVM, JIT) that\n"
                  "will run these kernels and check them against a float64 reference, and\n"
                  "the GPU backends (PTX, AMDGCN, SPIR-V). Until then no kernel is executed.\n";
  return 0;
}
