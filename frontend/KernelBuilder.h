// The builder API both front doors call: the C++ EDSL (lang/) while tracing a
// C++ callable, and the Python AST visitor while walking a decorated function.
// It owns the module being built, applies Triton's typing rules (broadcasting,
// type promotion, pointer arithmetic) and reports misuse as a KernelError at
// the user's source location, before any invalid IR is created.
#ifndef TESSERA_FRONTEND_KERNELBUILDER_H
#define TESSERA_FRONTEND_KERNELBUILDER_H

#include "frontend/KernelError.h"
#include "frontend/SourceLocation.h"
#include "ir/TileDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OwningOpRef.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace tessera::frontend {

/// One argument of a kernel: its type and what the caller promises about it.
struct KernelArg {
  mlir::Type type;
  /// The integer (or, for a pointer, its address in bytes) is a multiple of
  /// this power of two; 0 promises nothing.
  unsigned divisibility = 0;
  /// The integer argument is always 1 (`tile.equal_to_1`): strides of 1 let
  /// backends prove rows contiguous. The runtime refuses other values.
  bool equalToOne = false;
};

enum class BinaryOp {
  Add, Sub, Mul,
  Div,     ///< C semantics: integers truncate toward zero, floats divide.
  TrueDiv, ///< Python's `/`: integers are converted to f32 first.
  /// Division rounded as IEEE 754 requires (`tile.precise_divf`), where `/`
  /// may be approximate (on NVIDIA GPUs); integers are converted to f32.
  PreciseDiv,
  Mod, And, Or, Xor, Shl, Shr,
  /// A NaN operand loses to a number (Triton's default, PropagateNan.NONE).
  Maximum, Minimum,
  /// A NaN operand gives NaN (PropagateNan.ALL); on integers as above.
  MaximumPropagatingNan, MinimumPropagatingNan
};
enum class CompareOp { Eq, Ne, Lt, Le, Gt, Ge };
enum class UnaryOp {
  Neg, Not, Exp, Exp2, Log, Log2, Sqrt, Rsqrt, Sin, Cos, Abs, Sigmoid, Erf, Floor, Ceil
};
enum class ReduceKind { Sum, Max, Min, ArgMax, ArgMin };
/// How integer operands are read where the IR's signless integers leave it
/// to the op: division, remainder, right shift, max/min, ordering
/// comparisons, reductions and atomics. The front ends know the sign.
enum class Signedness { Signed, Unsigned };
enum class AtomicKind { Add, Max, Min, And, Or, Xor, Xchg };

/// Hints of a load or store; they never change the result.
struct MemoryHints {
  tile::CacheModifier cache = tile::CacheModifier::None;
  tile::EvictionPolicy evict = tile::EvictionPolicy::Normal;
  bool isVolatile = false; ///< Loads only.
};

/// How `cast` converts.
struct CastOptions {
  /// Reinterpret the bits (same width) instead of converting the value.
  bool bitcast = false;
  /// The source integers are unsigned: zero-extend, convert with uitofp.
  bool sourceUnsigned = false;
  /// The result integers are unsigned: floats convert with fptoui.
  bool targetUnsigned = false;
};

/// What a loop asks of the GPU pipeline, as Triton's `tl.range` options:
/// `flatten` (tile-flatten-loops, with the loop nested in it),
/// `warpSpecialize` (a producer warpgroup where TMA copies its blocks) and
/// `numStages` (its loads issued an iteration ahead, tile-gpu-prefetch-loads;
/// 0 where the loop does not say).
struct LoopHints {
  bool flatten = false;
  bool warpSpecialize = false;
  unsigned numStages = 0;
};

/// Builds one kernel. Values are `mlir::Value`s: scalars (i1, integers,
/// floats, `!tile.ptr`) or tiles (statically shaped tensors of those).
class KernelBuilder {
public:
  /// Loads the tile, arith, math and scf dialects into `context`.
  explicit KernelBuilder(mlir::MLIRContext &context);
  ~KernelBuilder();
  KernelBuilder(const KernelBuilder &) = delete;
  KernelBuilder &operator=(const KernelBuilder &) = delete;

  mlir::MLIRContext &context() { return *builder_.getContext(); }
  mlir::OpBuilder &opBuilder() { return builder_; }

  //===--- Kernels --------------------------------------------------------===//

  /// Starts the kernel `tile.func @name`; returns its arguments.
  std::vector<mlir::Value> beginKernel(const std::string &name,
                                       const std::vector<KernelArg> &args,
                                       const SourceLocation &loc);
  /// Ends the kernel and verifies the module. A verifier diagnostic becomes
  /// a KernelError at the location of the op it is about.
  mlir::OwningOpRef<mlir::ModuleOp> finish(const SourceLocation &loc);

  [[noreturn]] void fail(const SourceLocation &loc, const std::string &message) const;

  //===--- Types and constants --------------------------------------------===//

  mlir::Type pointerType(mlir::Type pointee) const;
  static mlir::Type elementType(mlir::Value value);
  /// The shape of a tile; empty for a scalar.
  static std::vector<int64_t> shapeOf(mlir::Value value);
  /// `elem` for an empty shape, else a tile of that shape.
  static mlir::Type withShape(mlir::Type elem, llvm::ArrayRef<int64_t> shape);
  static std::string str(mlir::Type type);
  static std::string str(llvm::ArrayRef<int64_t> shape);

  mlir::Value constant(int64_t value, mlir::Type type, const SourceLocation &loc);
  mlir::Value constant(double value, mlir::Type type, const SourceLocation &loc);
  /// A literal written next to a value of element type `peer` (null: none),
  /// typed as Triton types Python literals: an integer takes an integer or
  /// float peer type (else i32, or i64 when it does not fit), a float takes a
  /// float peer type (else f32).
  mlir::Value literal(int64_t value, mlir::Type peer, const SourceLocation &loc);
  mlir::Value literal(double value, mlir::Type peer, const SourceLocation &loc);

  //===--- Making tiles ---------------------------------------------------===//

  mlir::Value programId(int axis, const SourceLocation &loc);
  mlir::Value numPrograms(int axis, const SourceLocation &loc);
  /// The i32 tile [start, end); its length must be a power of two.
  mlir::Value arange(int64_t start, int64_t end, const SourceLocation &loc);
  mlir::Value splat(mlir::Value scalar, llvm::ArrayRef<int64_t> shape, const SourceLocation &loc);
  mlir::Value full(llvm::ArrayRef<int64_t> shape, mlir::Value scalar, const SourceLocation &loc);
  mlir::Value zeros(llvm::ArrayRef<int64_t> shape, mlir::Type elem, const SourceLocation &loc);

  //===--- Elementwise ----------------------------------------------------===//

  mlir::Value binary(BinaryOp op, mlir::Value lhs, mlir::Value rhs, const SourceLocation &loc,
                     Signedness sign = Signedness::Signed);
  mlir::Value compare(CompareOp op, mlir::Value lhs, mlir::Value rhs, const SourceLocation &loc,
                      Signedness sign = Signedness::Signed);
  mlir::Value unary(UnaryOp op, mlir::Value value, const SourceLocation &loc);
  mlir::Value where(mlir::Value cond, mlir::Value lhs, mlir::Value rhs, const SourceLocation &loc);
  mlir::Value fma(mlir::Value a, mlir::Value b, mlir::Value c, const SourceLocation &loc);
  /// `x` kept within [lo, hi] (broadcast to one shape and promoted to one
  /// type): `tile.clamp` on floats, where with `propagateNan` a NaN `x`
  /// stays NaN; max then min on integers.
  mlir::Value clamp(mlir::Value x, mlir::Value lo, mlir::Value hi, bool propagateNan,
                    const SourceLocation &loc, Signedness sign = Signedness::Signed);
  /// The element type `values` convert to together: Triton's promotion of
  /// two operands, applied from the first to the last.
  mlir::Type promotedType(llvm::ArrayRef<mlir::Value> values) const;
  /// The function `symbol` of the device library `library` (at `path`, or ""
  /// where the target finds it) on the elements of `args`, broadcast to one
  /// shape. The arguments must have the element types the function takes
  /// (the caller picks the function by them); its result is of `result`.
  /// Without `pure`, the call is kept even where its result is not used.
  mlir::Value externElementwise(llvm::StringRef symbol, llvm::StringRef library,
                                llvm::StringRef path, llvm::ArrayRef<mlir::Value> args,
                                mlir::Type result, bool pure, const SourceLocation &loc);
  /// `assembly` (LLVM's inline assembly syntax; `constraints` bind the results,
  /// then `args`) run on every `pack` elements of `args`, broadcast to one
  /// shape; one result per type of `results`.
  std::vector<mlir::Value> inlineAsmElementwise(llvm::StringRef assembly,
                                                llvm::StringRef constraints,
                                                llvm::ArrayRef<mlir::Value> args,
                                                llvm::ArrayRef<mlir::Type> results, bool pure,
                                                int pack, const SourceLocation &loc);
  /// Converts the elements of `value` to `elem` (a scalar or pointer type).
  mlir::Value cast(mlir::Value value, mlir::Type elem, const SourceLocation &loc,
                   CastOptions options = {});

  //===--- Shapes ---------------------------------------------------------===//

  mlir::Value expandDims(mlir::Value value, int axis, const SourceLocation &loc);
  mlir::Value broadcastTo(mlir::Value value, llvm::ArrayRef<int64_t> shape,
                          const SourceLocation &loc);
  mlir::Value reshape(mlir::Value value, llvm::ArrayRef<int64_t> shape, const SourceLocation &loc);
  mlir::Value permute(mlir::Value value, llvm::ArrayRef<int> order, const SourceLocation &loc);
  /// Transposes a 2-D tile.
  mlir::Value trans(mlir::Value value, const SourceLocation &loc);
  /// `lhs` and `rhs` (broadcast to one shape) stacked along a new minor
  /// dimension of size 2; two scalars give a tile of 2.
  mlir::Value join(mlir::Value lhs, mlir::Value rhs, const SourceLocation &loc);
  /// The two halves of a tile whose minor dimension is 2 (scalars from a
  /// tile of 2): the inverse of join.
  std::pair<mlir::Value, mlir::Value> split(mlir::Value value, const SourceLocation &loc);
  /// Two tiles of one shape and element type, one after the other along `axis`.
  mlir::Value cat(mlir::Value lhs, mlir::Value rhs, int axis, const SourceLocation &loc);
  /// The elements of `src` at `indices` along `axis`: `indices` (integers)
  /// has the rank of `src` and its extents on every other axis, and gives
  /// the result its shape.
  mlir::Value gather(mlir::Value src, mlir::Value indices, int axis, const SourceLocation &loc);
  /// How many elements of the 1-D integer tile `src` (where `mask`, which may
  /// be null, holds) equal each of 0 .. numBins-1 (a power of two): an i32
  /// tile of numBins. Other values are not counted.
  mlir::Value histogram(mlir::Value src, int64_t numBins, mlir::Value mask,
                        const SourceLocation &loc);

  //===--- Memory ---------------------------------------------------------===//

  /// `mask` and `other` may be null; `other` needs a mask.
  mlir::Value load(mlir::Value ptr, mlir::Value mask, mlir::Value other, const MemoryHints &hints,
                   const SourceLocation &loc);
  void store(mlir::Value ptr, mlir::Value value, mlir::Value mask, const MemoryHints &hints,
             const SourceLocation &loc);
  /// Returns the old values. `mask` may be null.
  mlir::Value atomic(AtomicKind kind, mlir::Value ptr, mlir::Value value, mlir::Value mask,
                     tile::MemSemantic sem, tile::MemScope scope, const SourceLocation &loc,
                     Signedness sign = Signedness::Signed);
  mlir::Value atomicCas(mlir::Value ptr, mlir::Value cmp, mlir::Value value, tile::MemSemantic sem,
                        tile::MemScope scope, const SourceLocation &loc);
  mlir::Value makeTensorDescriptor(mlir::Value base, llvm::ArrayRef<mlir::Value> shape,
                                   llvm::ArrayRef<mlir::Value> strides,
                                   llvm::ArrayRef<int64_t> blockShape, tile::PaddingOption padding,
                                   const SourceLocation &loc);
  mlir::Value descriptorLoad(mlir::Value desc, llvm::ArrayRef<mlir::Value> offsets,
                             const SourceLocation &loc);
  /// Atomic `kind` of `value` into the in-bounds elements of the block at
  /// `offsets`: relaxed, as Triton's TMA reductions are.
  void descriptorAtomic(AtomicKind kind, mlir::Value desc, llvm::ArrayRef<mlir::Value> offsets,
                        mlir::Value value, const SourceLocation &loc,
                        Signedness sign = Signedness::Signed);
  /// Rows `rows` (a 1-D integer tile) of a 2-D descriptor whose block is one
  /// row, from `column` on: a [len(rows), block columns] tile with the
  /// padding outside the shape (gather), or written where inside (scatter).
  mlir::Value descriptorGather(mlir::Value desc, mlir::Value rows, mlir::Value column,
                               const SourceLocation &loc);
  void descriptorScatter(mlir::Value desc, mlir::Value value, mlir::Value rows, mlir::Value column,
                         const SourceLocation &loc);
  /// The pointer tile base + sum_d indices[d] * strides[d] of the descriptor
  /// `make` makes, over `shape` (the i32 index tiles broadcast to it), and the
  /// mask of the indices inside the descriptor's shape.
  std::pair<mlir::Value, mlir::Value> descriptorPointers(tile::MakeTensorDescOp make,
                                                         llvm::ArrayRef<mlir::Value> indices,
                                                         llvm::ArrayRef<int64_t> shape,
                                                         const SourceLocation &loc);
  void descriptorStore(mlir::Value desc, llvm::ArrayRef<mlir::Value> offsets, mlir::Value value,
                       const SourceLocation &loc);

  //===--- Matrix products, reductions, scans -----------------------------===//

  /// a * b + acc; a null `acc` is zeros of f32 (i32 for i8, f64 for f64).
  /// `maxNumImpreciseAcc` (fp8 operands only; 0: no bound, else at most K)
  /// bounds how many fp8 products a backend may add at reduced precision.
  mlir::Value dot(mlir::Value a, mlir::Value b, mlir::Value acc, tile::InputPrecision precision,
                  const SourceLocation &loc, unsigned maxNumImpreciseAcc = 0);
  /// Without an axis the whole tile reduces to a scalar. ArgMax/ArgMin give
  /// i32 indices (the first one among equal values). Sums (and cumsum) are in
  /// the element type given: the front ends choose it (Triton's int32 for
  /// small integers unless a dtype is asked for).
  mlir::Value reduce(ReduceKind kind, mlir::Value value, std::optional<int> axis, bool keepDims,
                     const SourceLocation &loc, Signedness sign = Signedness::Signed);
  mlir::Value cumsum(mlir::Value value, int axis, bool reverse, const SourceLocation &loc);
  /// Reductions and inclusive scans of tiles of one shape, combined by
  /// `combine`: it gets N scalars of one side, then N of the other, and
  /// returns N of the operands' element types (Triton's tl.reduce and
  /// tl.associative_scan). Without an axis a reduction takes all elements.
  using Combine = std::function<std::vector<mlir::Value>(llvm::ArrayRef<mlir::Value>)>;
  std::vector<mlir::Value> reduceWith(llvm::ArrayRef<mlir::Value> values, std::optional<int> axis,
                                      bool keepDims, const Combine &combine,
                                      const SourceLocation &loc);
  std::vector<mlir::Value> scanWith(llvm::ArrayRef<mlir::Value> values, int axis, bool reverse,
                                    const Combine &combine, const SourceLocation &loc);

  //===--- Debugging ------------------------------------------------------===//

  /// `unsignedValues` (empty, or a flag per value) marks the integers to
  /// print as unsigned.
  void print(const std::string &prefix, llvm::ArrayRef<mlir::Value> values, bool hex,
             const SourceLocation &loc, llvm::ArrayRef<bool> unsignedValues = {});
  void assertTrue(mlir::Value cond, const std::string &message, const SourceLocation &loc);
  /// A promise that the boolean scalar `cond` holds (tile.assume).
  void assume(mlir::Value cond, const SourceLocation &loc);
  /// `value` with facts about its last dimension the compiler cannot prove
  /// (tile.hint; Triton's multiple_of / max_contiguous / max_constancy).
  mlir::Value hint(mlir::Value value, std::optional<int64_t> multipleOf,
                   std::optional<int64_t> maxContiguous, std::optional<int64_t> maxConstancy,
                   const SourceLocation &loc);
  /// Synchronizes the threads of the program (tile.debug_barrier).
  void debugBarrier(const SourceLocation &loc);

  //===--- Structured control flow ----------------------------------------===//

  /// Builds the body of a loop from the induction variable and the carried values.
  using LoopBody =
      std::function<std::vector<mlir::Value>(mlir::Value, llvm::ArrayRef<mlir::Value>)>;
  using Branch = std::function<std::vector<mlir::Value>()>;
  using Region = std::function<std::vector<mlir::Value>(llvm::ArrayRef<mlir::Value>)>;

  /// `for iv in range(lo, hi, step)` carrying `inits`; returns the final
  /// values.
  std::vector<mlir::Value> forLoop(mlir::Value lo, mlir::Value hi, mlir::Value step,
                                   llvm::ArrayRef<mlir::Value> inits, const LoopBody &body,
                                   const SourceLocation &loc, LoopHints hints = {});
  /// An empty `elseBranch` means no else; then the branch yields nothing.
  std::vector<mlir::Value> ifThenElse(mlir::Value cond, const Branch &thenBranch,
                                      const Branch &elseBranch, const SourceLocation &loc);
  /// `cond` returns one value, the scalar boolean that keeps the loop going.
  std::vector<mlir::Value> whileLoop(llvm::ArrayRef<mlir::Value> inits, const Region &cond,
                                     const Region &body, const SourceLocation &loc);

private:
  mlir::Location at(const SourceLocation &loc) const { return loc.toMLIR(builder_.getContext()); }
  mlir::Value requirePointer(mlir::Value ptr, const char *what, const SourceLocation &loc);
  mlir::Value maskFor(mlir::Value mask, llvm::ArrayRef<int64_t> shape, const char *what,
                      const SourceLocation &loc);
  mlir::Value valueFor(mlir::Value value, mlir::Type elem, llvm::ArrayRef<int64_t> shape,
                       const char *what, const std::string &target, const SourceLocation &loc);
  std::vector<mlir::Value> broadcastAll(llvm::ArrayRef<mlir::Value> values,
                                        const SourceLocation &loc);
  mlir::Value pointerArithmetic(BinaryOp op, mlir::Value lhs, mlir::Value rhs,
                                const SourceLocation &loc);
  mlir::Value indexTile(llvm::ArrayRef<int64_t> shape, int axis, const SourceLocation &loc);
  /// The larger (`maximum`) or smaller of two integers of one type, compared
  /// as `isUnsigned` says; booleans by `or` and `and` (SPIR-V has no i1 max).
  mlir::Value integerExtremum(bool maximum, mlir::Value a, mlir::Value b, bool isUnsigned,
                              mlir::Location where);

  mlir::OpBuilder builder_;
  mlir::OwningOpRef<mlir::ModuleOp> module_;
  tile::FuncOp kernel_;
  /// Errors MLIR reports (verifier, type inference) while this builder lives,
  /// kept to be rethrown as KernelErrors instead of printed.
  std::vector<std::pair<mlir::Location, std::string>> diagnostics_;
  std::optional<mlir::ScopedDiagnosticHandler> handler_;
};

} // namespace tessera::frontend

#endif // TESSERA_FRONTEND_KERNELBUILDER_H
