// KernelBuilder: the module, the kernel signature, constants, verification.
#include "frontend/KernelBuilder.h"
#include "frontend/Typing.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Verifier.h"

using namespace mlir;

namespace tessera::frontend {

std::optional<SourceLocation> SourceLocation::fromMLIR(Location loc) {
  if (auto fileLoc = dyn_cast<FileLineColLoc>(loc))
    return SourceLocation{fileLoc.getFilename().str(), fileLoc.getLine(), fileLoc.getColumn()};
  if (auto named = dyn_cast<NameLoc>(loc))
    return fromMLIR(named.getChildLoc());
  if (auto callSite = dyn_cast<CallSiteLoc>(loc))
    return fromMLIR(callSite.getCallee());
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (auto found = fromMLIR(inner))
        return found;
  return std::nullopt;
}

KernelBuilder::KernelBuilder(MLIRContext &context) : builder_(&context) {
  context.loadDialect<tile::TileDialect, arith::ArithDialect, math::MathDialect,
                      scf::SCFDialect>();
  module_ = ModuleOp::create(builder_.getUnknownLoc());
  handler_.emplace(&context, [this](Diagnostic &diag) {
    if (diag.getSeverity() != DiagnosticSeverity::Error)
      return failure(); // Let warnings and remarks reach the usual handlers.
    diagnostics_.emplace_back(diag.getLocation(), diag.str());
    return success();
  });
}

KernelBuilder::~KernelBuilder() = default;

void KernelBuilder::fail(const SourceLocation &loc, const std::string &message) const {
  throw KernelError(loc, message);
}

std::vector<Value> KernelBuilder::beginKernel(const std::string &name,
                                              const std::vector<KernelArg> &args,
                                              const SourceLocation &loc) {
  if (kernel_)
    fail(loc, "kernel @" + kernel_.getSymName().str() + " is already being built");
  SmallVector<Type> types;
  for (const KernelArg &arg : args)
    types.push_back(arg.type);
  builder_.setInsertionPointToEnd(module_->getBody());
  kernel_ = tile::FuncOp::create(builder_, at(loc), name, builder_.getFunctionType(types, {}));
  for (auto [index, arg] : llvm::enumerate(args)) {
    if (arg.equalToOne) {
      if (!isa<IntegerType>(arg.type))
        fail(loc, "only integer arguments can be specialized as equal to 1, argument #" +
                      std::to_string(index) + " is " + str(arg.type));
      kernel_.setArgAttr(index, tile::TileDialect::kEqualToOneAttr, builder_.getUnitAttr());
    }
    if (arg.divisibility == 0)
      continue;
    if (!llvm::isPowerOf2_32(arg.divisibility))
      fail(loc, "divisibility of argument #" + std::to_string(index) + " must be a power of two, got " +
                    std::to_string(arg.divisibility));
    if (!isa<IntegerType, tile::PointerType>(arg.type))
      fail(loc, "divisibility applies to integer and pointer arguments, argument #" +
                    std::to_string(index) + " is " + str(arg.type));
    kernel_.setArgAttr(index, tile::TileDialect::kDivisibilityAttr,
                       builder_.getI32IntegerAttr(arg.divisibility));
  }
  Block *entry = kernel_.addEntryBlock();
  builder_.setInsertionPointToEnd(entry);
  return {entry->args_begin(), entry->args_end()};
}

OwningOpRef<ModuleOp> KernelBuilder::finish(const SourceLocation &loc) {
  if (!kernel_)
    fail(loc, "no kernel was started");
  builder_.setInsertionPointToEnd(&kernel_.getBody().front());
  tile::ReturnOp::create(builder_, at(loc));
  diagnostics_.clear();
  if (failed(verify(*module_))) {
    if (diagnostics_.empty())
      fail(loc, "the traced kernel is not valid tile IR");
    auto &[where, message] = diagnostics_.front();
    fail(SourceLocation::fromMLIR(where).value_or(loc), message);
  }
  kernel_ = nullptr;
  return std::move(module_);
}

//===----------------------------------------------------------------------===//
// Types and constants
//===----------------------------------------------------------------------===//

Type KernelBuilder::pointerType(Type pointee) const { return tile::PointerType::get(pointee); }

Type KernelBuilder::elementType(Value value) { return getElementTypeOrSelf(value.getType()); }

std::vector<int64_t> KernelBuilder::shapeOf(Value value) {
  if (auto tile = dyn_cast<RankedTensorType>(value.getType()))
    return {tile.getShape().begin(), tile.getShape().end()};
  return {};
}

Type KernelBuilder::withShape(Type elem, ArrayRef<int64_t> shape) {
  if (shape.empty())
    return elem;
  return RankedTensorType::get(shape, elem);
}

std::string KernelBuilder::str(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

std::string KernelBuilder::str(ArrayRef<int64_t> shape) {
  std::string text = "[";
  for (auto [index, dim] : llvm::enumerate(shape))
    text += (index ? ", " : "") + std::to_string(dim);
  return text + "]";
}

// A constant of `type` (scalar or tile) whose every element is `element`.
static Value splatConstant(OpBuilder &builder, Location loc, Type type, TypedAttr element) {
  if (auto tile = dyn_cast<RankedTensorType>(type))
    return arith::ConstantOp::create(builder, loc, tile, DenseElementsAttr::get(tile, element));
  return arith::ConstantOp::create(builder, loc, type, element);
}

Value KernelBuilder::constant(int64_t value, Type type, const SourceLocation &loc) {
  Type elem = getElementTypeOrSelf(type);
  if (typing::isFloat(elem))
    return constant(static_cast<double>(value), type, loc);
  if (!typing::isInteger(elem))
    fail(loc, "cannot make a constant of type " + str(type));
  return splatConstant(builder_, at(loc), type, builder_.getIntegerAttr(elem, value));
}

Value KernelBuilder::constant(double value, Type type, const SourceLocation &loc) {
  Type elem = getElementTypeOrSelf(type);
  if (!typing::isFloat(elem))
    fail(loc, "cannot make a floating-point constant of type " + str(type));
  return splatConstant(builder_, at(loc), type, builder_.getFloatAttr(elem, value));
}

Value KernelBuilder::literal(int64_t value, Type elem, const SourceLocation &loc) {
  bool adopt = elem && (typing::isFloat(elem) || (typing::isInteger(elem) && !typing::isBool(elem)));
  if (adopt)
    return constant(value, elem, loc);
  bool fitsI32 = value >= INT32_MIN && value <= INT32_MAX;
  return constant(value, fitsI32 ? builder_.getI32Type() : builder_.getI64Type(), loc);
}

Value KernelBuilder::literal(double value, Type elem, const SourceLocation &loc) {
  return constant(value, elem && typing::isFloat(elem) ? elem : builder_.getF32Type(), loc);
}

//===----------------------------------------------------------------------===//
// Making tiles
//===----------------------------------------------------------------------===//

static tile::ProgramAxis programAxis(const KernelBuilder &kb, int axis, const SourceLocation &loc) {
  if (axis < 0 || axis > 2)
    kb.fail(loc, "program axis must be 0, 1 or 2, got " + std::to_string(axis));
  return static_cast<tile::ProgramAxis>(axis);
}

Value KernelBuilder::programId(int axis, const SourceLocation &loc) {
  return tile::ProgramIdOp::create(builder_, at(loc), programAxis(*this, axis, loc));
}

Value KernelBuilder::numPrograms(int axis, const SourceLocation &loc) {
  return tile::NumProgramsOp::create(builder_, at(loc), programAxis(*this, axis, loc));
}

Value KernelBuilder::arange(int64_t start, int64_t end, const SourceLocation &loc) {
  if (start < 0 || end > INT32_MAX)
    fail(loc, "arange bounds must lie in [0, 2^31), got [" + std::to_string(start) + ", " +
                  std::to_string(end) + ")");
  if (end <= start)
    fail(loc, "arange end (" + std::to_string(end) + ") must be greater than start (" +
                  std::to_string(start) + ")");
  // Tiles map onto threads, lanes and vector registers in powers of two.
  if (!llvm::isPowerOf2_64(end - start))
    fail(loc, "arange length must be a power of two, got " + std::to_string(end - start));
  auto type = RankedTensorType::get({end - start}, builder_.getI32Type());
  return tile::MakeRangeOp::create(builder_, at(loc), type, start, end);
}

Value KernelBuilder::splat(Value scalar, ArrayRef<int64_t> shape, const SourceLocation &loc) {
  if (isa<RankedTensorType>(scalar.getType()))
    fail(loc, "splat needs a scalar, got " + str(scalar.getType()));
  if (shape.empty())
    return scalar;
  for (int64_t dim : shape)
    if (dim <= 0)
      fail(loc, "tile dimensions must be positive, got " + str(shape));
  return tile::SplatOp::create(builder_, at(loc), RankedTensorType::get(shape, scalar.getType()),
                               scalar);
}

Value KernelBuilder::full(ArrayRef<int64_t> shape, Value scalar, const SourceLocation &loc) {
  return splat(scalar, shape, loc);
}

Value KernelBuilder::zeros(ArrayRef<int64_t> shape, Type elem, const SourceLocation &loc) {
  for (int64_t dim : shape)
    if (dim <= 0)
      fail(loc, "tile dimensions must be positive, got " + str(shape));
  return constant(int64_t{0}, withShape(elem, shape), loc);
}

} // namespace tessera::frontend
