// tessera-opt: mlir-opt for tile IR, with the dialects and passes that tile
// code is written and lowered with.
#include "ir/TileDialect.h"
#include "ir/transforms/Passes.h"
#include "lowering/cpu/Pipeline.h"
#include "lowering/gpu/Passes.h"
#include "lowering/gpu/amd/AmdPipeline.h"
#include "lowering/gpu/distribute/Passes.h"
#include "lowering/gpu/distribute/Pipeline.h"
#include "lowering/gpu/nvidia/NvidiaPipeline.h"
#include "lowering/gpu/spirv/SpirvPipeline.h"
#include "lowering/gpu/ir/TileGpuDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::registerTransformsPasses();
  tessera::tile::registerTesseraTilePasses();
  tessera::cpu::registerCpuLoweringPasses();
  tessera::gpu::registerTesseraGpuPasses();
  tessera::gpu::registerGpuLayoutPasses();
  tessera::gpu::registerGpuDistributionPasses();
  tessera::gpu::amd::registerAmdLoweringPasses();
  tessera::gpu::vulkan::registerSpirvLoweringPasses();
  mlir::DialectRegistry registry;
  tessera::gpu::amd::registerAmdLoweringDependencies(registry);
  tessera::gpu::registerNvidiaLowering(registry);
  registry.insert<tessera::tile::TileDialect, tessera::gpu::TileGpuDialect, mlir::arith::ArithDialect, mlir::math::MathDialect,
                  mlir::scf::SCFDialect, mlir::func::FuncDialect, mlir::LLVM::LLVMDialect,
                  mlir::vector::VectorDialect, mlir::cf::ControlFlowDialect, mlir::ub::UBDialect>();
  tessera::gpu::vulkan::registerSpirvLoweringDialects(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Tessera tile IR optimizer driver\n", registry));
}
