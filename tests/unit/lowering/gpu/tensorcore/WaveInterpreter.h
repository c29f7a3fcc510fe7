// Runs the IR a TensorCoreDot emits for one wave on the CPU: every value is
// held per lane, `amdgpu.mfma` / `amdgpu.wmma` multiply the fragments the way
// AmdIsaModel.h says the hardware reads them. Only the ops the AMD emitter
// produces are understood; anything else is a test failure.
#ifndef TESSERA_TESTS_UNIT_LOWERING_GPU_TENSORCORE_WAVEINTERPRETER_H
#define TESSERA_TESTS_UNIT_LOWERING_GPU_TENSORCORE_WAVEINTERPRETER_H

#include "mlir/IR/Block.h"
#include "mlir/IR/Value.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <vector>

namespace tessera::gpu::testing {

class WaveInterpreter {
public:
  /// One value: per lane, its scalar (one element) or vector elements.
  using Lanes = std::vector<llvm::SmallVector<double, 16>>;

  explicit WaveInterpreter(unsigned numLanes) : numLanes(numLanes) {}

  void bind(mlir::Value value, Lanes lanes) { values[value] = std::move(lanes); }
  void bindUniform(mlir::Value value, double scalar);
  /// `memref` (a 1-D buffer argument) reads from `storage`.
  void bindMemory(mlir::Value memref, const std::vector<double> *storage) {
    memories[memref] = storage;
  }

  /// Interprets the ops of `block` up to its terminator; false (with a test
  /// failure recorded) on an op it does not know or a broken WMMA operand.
  bool run(mlir::Block &block);
  const Lanes &valueOf(mlir::Value value) { return values[value]; }

private:
  bool step(mlir::Operation &op);
  bool matrixMultiply(mlir::Operation &op);
  Lanes perLane(mlir::Value a, mlir::Value b, double (*apply)(int64_t, int64_t));

  unsigned numLanes;
  llvm::DenseMap<mlir::Value, Lanes> values;
  llvm::DenseMap<mlir::Value, const std::vector<double> *> memories;
};

} // namespace tessera::gpu::testing

#endif // TESSERA_TESTS_UNIT_LOWERING_GPU_TENSORCORE_WAVEINTERPRETER_H
