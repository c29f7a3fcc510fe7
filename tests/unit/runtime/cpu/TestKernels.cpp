#include "TestKernels.h"

#include "ir/TileDialect.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"

namespace tessera::testing {

const char *const kVectorAdd = R"mlir(
module {
  llvm.func @vadd__grid_entry(%args: !llvm.ptr, %pid: i32, %py: i32, %pz: i32,
                              %nx: i32, %ny: i32, %nz: i32)
      attributes {tessera.kernel_arg_types = [!tile.ptr<f32>, !tile.ptr<f32>, !tile.ptr<f32>, i32]} {
    %s0 = llvm.getelementptr %args[0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
    %a0 = llvm.load %s0 : !llvm.ptr -> !llvm.ptr
    %x = llvm.load %a0 : !llvm.ptr -> !llvm.ptr
    %s1 = llvm.getelementptr %args[1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
    %a1 = llvm.load %s1 : !llvm.ptr -> !llvm.ptr
    %y = llvm.load %a1 : !llvm.ptr -> !llvm.ptr
    %s2 = llvm.getelementptr %args[2] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
    %a2 = llvm.load %s2 : !llvm.ptr -> !llvm.ptr
    %out = llvm.load %a2 : !llvm.ptr -> !llvm.ptr
    %s3 = llvm.getelementptr %args[3] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
    %a3 = llvm.load %s3 : !llvm.ptr -> !llvm.ptr
    %n = llvm.load %a3 : !llvm.ptr -> i32
    %block = llvm.mlir.constant(256 : i32) : i32
    %one = llvm.mlir.constant(1 : i32) : i32
    %start = llvm.mul %pid, %block : i32
    %end0 = llvm.add %start, %block : i32
    %lt = llvm.icmp "slt" %end0, %n : i32
    %end = llvm.select %lt, %end0, %n : i1, i32
    llvm.br ^loop(%start : i32)
  ^loop(%i: i32):
    %c = llvm.icmp "slt" %i, %end : i32
    llvm.cond_br %c, ^body, ^exit
  ^body:
    %idx = llvm.sext %i : i32 to i64
    %px = llvm.getelementptr %x[%idx] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %vx = llvm.load %px : !llvm.ptr -> f32
    %py2 = llvm.getelementptr %y[%idx] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %vy = llvm.load %py2 : !llvm.ptr -> f32
    %sum = llvm.fadd %vx, %vy : f32
    %po = llvm.getelementptr %out[%idx] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %sum, %po : f32, !llvm.ptr
    %next = llvm.add %i, %one : i32
    llvm.br ^loop(%next : i32)
  ^exit:
    llvm.return
  }
}
)mlir";

const char *const kCountPrograms = R"mlir(
module {
  llvm.func @count__grid_entry(%args: !llvm.ptr, %x: i32, %y: i32, %z: i32,
                               %nx: i32, %ny: i32, %nz: i32) {
    %s0 = llvm.getelementptr %args[0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
    %a0 = llvm.load %s0 : !llvm.ptr -> !llvm.ptr
    %counts = llvm.load %a0 : !llvm.ptr -> !llvm.ptr
    %s1 = llvm.getelementptr %args[1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
    %a1 = llvm.load %s1 : !llvm.ptr -> !llvm.ptr
    %total = llvm.load %a1 : !llvm.ptr -> !llvm.ptr
    %zz = llvm.mul %z, %ny : i32
    %yz = llvm.add %y, %zz : i32
    %yzn = llvm.mul %yz, %nx : i32
    %lin = llvm.add %x, %yzn : i32
    %idx = llvm.sext %lin : i32 to i64
    %p = llvm.getelementptr %counts[%idx] : (!llvm.ptr, i64) -> !llvm.ptr, i32
    %one = llvm.mlir.constant(1 : i32) : i32
    %old = llvm.atomicrmw add %p, %one monotonic : !llvm.ptr, i32
    %one64 = llvm.mlir.constant(1 : i64) : i64
    %old2 = llvm.atomicrmw add %total, %one64 monotonic : !llvm.ptr, i64
    llvm.return
  }
}
)mlir";

const char *const kAssertKernel = R"mlir(
module {
  llvm.mlir.global internal constant @msg("program id below limit\00") {addr_space = 0 : i32}
  llvm.mlir.global internal constant @file("check.py\00") {addr_space = 0 : i32}
  llvm.func @__tessera_assert_fail(!llvm.ptr, !llvm.ptr, i32)
  llvm.func @check__grid_entry(%args: !llvm.ptr, %x: i32, %y: i32, %z: i32,
                               %nx: i32, %ny: i32, %nz: i32)
      attributes {tessera.kernel_arg_types = [!tile.ptr<i32>, i32]} {
    %s0 = llvm.getelementptr %args[0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
    %a0 = llvm.load %s0 : !llvm.ptr -> !llvm.ptr
    %out = llvm.load %a0 : !llvm.ptr -> !llvm.ptr
    %s1 = llvm.getelementptr %args[1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
    %a1 = llvm.load %s1 : !llvm.ptr -> !llvm.ptr
    %limit = llvm.load %a1 : !llvm.ptr -> i32
    %ok = llvm.icmp "slt" %x, %limit : i32
    llvm.cond_br %ok, ^store, ^fail
  ^fail:
    %m = llvm.mlir.addressof @msg : !llvm.ptr
    %f = llvm.mlir.addressof @file : !llvm.ptr
    %line = llvm.mlir.constant(42 : i32) : i32
    llvm.call @__tessera_assert_fail(%m, %f, %line) : (!llvm.ptr, !llvm.ptr, i32) -> ()
    llvm.br ^store
  ^store:
    %idx = llvm.sext %x : i32 to i64
    %p = llvm.getelementptr %out[%idx] : (!llvm.ptr, i64) -> !llvm.ptr, i32
    %hundred = llvm.mlir.constant(100 : i32) : i32
    %v = llvm.add %x, %hundred : i32
    llvm.store %v, %p : i32, !llvm.ptr
    llvm.return
  }
}
)mlir";

const char *const kScalarKinds = R"mlir(
module {
  llvm.func @kinds__grid_entry(%args: !llvm.ptr, %x: i32, %y: i32, %z: i32,
                               %nx: i32, %ny: i32, %nz: i32)
      attributes {tessera.kernel_arg_types = [!llvm.ptr, i64, f32, f64, f16, i1, i8]} {
    %s0 = llvm.getelementptr %args[0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
    %a0 = llvm.load %s0 : !llvm.ptr -> !llvm.ptr
    %out = llvm.load %a0 : !llvm.ptr -> !llvm.ptr
    %s1 = llvm.getelementptr %args[1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
    %a1 = llvm.load %s1 : !llvm.ptr -> !llvm.ptr
    %va = llvm.load %a1 : !llvm.ptr -> i64
    %s2 = llvm.getelementptr %args[2] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
    %a2 = llvm.load %s2 : !llvm.ptr -> !llvm.ptr
    %vb = llvm.load %a2 : !llvm.ptr -> f32
    %s3 = llvm.getelementptr %args[3] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
    %a3 = llvm.load %s3 : !llvm.ptr -> !llvm.ptr
    %vc = llvm.load %a3 : !llvm.ptr -> f64
    %s4 = llvm.getelementptr %args[4] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
    %a4 = llvm.load %s4 : !llvm.ptr -> !llvm.ptr
    %vh = llvm.load %a4 : !llvm.ptr -> f16
    %s5 = llvm.getelementptr %args[5] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
    %a5 = llvm.load %s5 : !llvm.ptr -> !llvm.ptr
    %vflag = llvm.load %a5 : !llvm.ptr -> i8
    %s6 = llvm.getelementptr %args[6] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
    %a6 = llvm.load %s6 : !llvm.ptr -> !llvm.ptr
    %vs = llvm.load %a6 : !llvm.ptr -> i8
    %r0 = llvm.sitofp %va : i64 to f64
    %r1 = llvm.fpext %vb : f32 to f64
    %r3 = llvm.fpext %vh : f16 to f64
    %r4 = llvm.uitofp %vflag : i8 to f64
    %r5 = llvm.sitofp %vs : i8 to f64
    %p1 = llvm.getelementptr %out[1] : (!llvm.ptr) -> !llvm.ptr, f64
    %p2 = llvm.getelementptr %out[2] : (!llvm.ptr) -> !llvm.ptr, f64
    %p3 = llvm.getelementptr %out[3] : (!llvm.ptr) -> !llvm.ptr, f64
    %p4 = llvm.getelementptr %out[4] : (!llvm.ptr) -> !llvm.ptr, f64
    %p5 = llvm.getelementptr %out[5] : (!llvm.ptr) -> !llvm.ptr, f64
    llvm.store %r0, %out : f64, !llvm.ptr
    llvm.store %r1, %p1 : f64, !llvm.ptr
    llvm.store %vc, %p2 : f64, !llvm.ptr
    llvm.store %r3, %p3 : f64, !llvm.ptr
    llvm.store %r4, %p4 : f64, !llvm.ptr
    llvm.store %r5, %p5 : f64, !llvm.ptr
    llvm.return
  }
}
)mlir";

std::unique_ptr<mlir::MLIRContext> makeContext() {
  auto context = std::make_unique<mlir::MLIRContext>();
  context->loadDialect<mlir::LLVM::LLVMDialect, tessera::tile::TileDialect>();
  return context;
}

mlir::OwningOpRef<mlir::ModuleOp> parse(mlir::MLIRContext &context, const std::string &text) {
  return mlir::parseSourceString<mlir::ModuleOp>(text, &context);
}

TempDir::TempDir() {
  std::error_code ec = llvm::sys::fs::createUniqueDirectory("tessera-runtime-test", path);
  EXPECT_FALSE(ec) << ec.message();
}

TempDir::~TempDir() { (void)llvm::sys::fs::remove_directories(path); }

runtime::CpuDeviceOptions deviceOptions(unsigned threads, const std::string &cacheDir) {
  runtime::CpuDeviceOptions options;
  options.threads = threads;
  options.diskCache = !cacheDir.empty();
  options.cacheDirectory = cacheDir;
  return options;
}

} // namespace tessera::testing
