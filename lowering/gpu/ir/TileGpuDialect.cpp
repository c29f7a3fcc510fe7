#include "lowering/gpu/ir/TileGpuDialect.h"

#include "ir/TileEncodingInterface.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using tessera::gpu::Basis;
using tessera::gpu::LayoutAttr;
using tessera::gpu::LinearLayout;

#include "lowering/gpu/ir/TileGpuDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "lowering/gpu/ir/TileGpuAttrs.cpp.inc"

#define GET_OP_CLASSES
#include "lowering/gpu/ir/TileGpuOps.cpp.inc"

namespace {

// Lets tile.reduce infer the layout of its result: the operand's, reduced.
struct LayoutEncodings : tessera::tile::TileEncodingInterface {
  using TileEncodingInterface::TileEncodingInterface;

  FailureOr<Attribute> inferReducedEncoding(Attribute encoding, ArrayRef<int64_t> shape,
                                            unsigned axis) const override {
    auto layout = dyn_cast<LayoutAttr>(encoding);
    if (!layout || layout.getRank() != shape.size())
      return failure();
    return Attribute(LayoutAttr::get(encoding.getContext(),
                                     layout.toLinearLayout(shape).reduced(axis)));
  }
};

// Layouts are long: printed once at the top of the module as #layout, #layout1...
struct LayoutAliases : OpAsmDialectInterface {
  using OpAsmDialectInterface::OpAsmDialectInterface;

  AliasResult getAlias(Attribute attr, raw_ostream &os) const override {
    if (!isa<LayoutAttr>(attr))
      return AliasResult::NoAlias;
    os << "layout";
    return AliasResult::OverridableAlias;
  }
};

} // namespace

void tessera::gpu::TileGpuDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "lowering/gpu/ir/TileGpuAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "lowering/gpu/ir/TileGpuOps.cpp.inc"
      >();
  addInterfaces<LayoutEncodings, LayoutAliases>();
}

//===----------------------------------------------------------------------===//
// #tgpu.layout
//===----------------------------------------------------------------------===//

namespace {

// `[[a, b], [c, d]]`, each inner list `rank` long, flattened into `flat`.
ParseResult parseBases(AsmParser &parser, unsigned rank, SmallVectorImpl<int64_t> &flat) {
  return parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&]() -> ParseResult {
    SMLoc loc = parser.getCurrentLocation();
    size_t before = flat.size();
    if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&]() {
          return parser.parseInteger(flat.emplace_back());
        }))
      return failure();
    if (flat.size() - before != rank)
      return parser.emitError(loc) << "a basis has " << rank << " coordinates, one per dimension";
    return success();
  });
}

void printBases(AsmPrinter &printer, unsigned rank, ArrayRef<int64_t> flat) {
  printer << '[';
  for (size_t i = 0; i < flat.size(); i += rank) {
    if (i)
      printer << ", ";
    printer << '[';
    llvm::interleaveComma(flat.slice(i, rank), printer);
    printer << ']';
  }
  printer << ']';
}

SmallVector<Basis> unflatten(unsigned rank, ArrayRef<int64_t> flat) {
  SmallVector<Basis> bases;
  for (size_t i = 0; rank && i < flat.size(); i += rank)
    bases.emplace_back(flat.slice(i, rank));
  return bases;
}

SmallVector<int64_t> flatten(ArrayRef<Basis> bases) {
  SmallVector<int64_t> flat;
  for (const Basis &basis : bases)
    flat.append(basis.begin(), basis.end());
  return flat;
}

} // namespace

Attribute LayoutAttr::parse(AsmParser &parser, Type) {
  unsigned rank = 0;
  SmallVector<int64_t> registers, lanes, warps;
  if (parser.parseLess() || parser.parseKeyword("rank") || parser.parseEqual() ||
      parser.parseInteger(rank) || parser.parseComma() || parser.parseKeyword("reg") ||
      parser.parseEqual() || parseBases(parser, rank, registers) || parser.parseComma() ||
      parser.parseKeyword("lane") || parser.parseEqual() || parseBases(parser, rank, lanes) ||
      parser.parseComma() || parser.parseKeyword("warp") || parser.parseEqual() ||
      parseBases(parser, rank, warps) || parser.parseGreater())
    return {};
  return parser.getChecked<LayoutAttr>(parser.getContext(), rank, registers, lanes, warps);
}

void LayoutAttr::print(AsmPrinter &printer) const {
  printer << "<rank = " << getRank() << ", reg = ";
  printBases(printer, getRank(), getRegisters());
  printer << ", lane = ";
  printBases(printer, getRank(), getLanes());
  printer << ", warp = ";
  printBases(printer, getRank(), getWarps());
  printer << '>';
}

LogicalResult LayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError, unsigned rank,
                                 ArrayRef<int64_t> registers, ArrayRef<int64_t> lanes,
                                 ArrayRef<int64_t> warps) {
  if (rank == 0)
    return emitError() << "a layout has rank >= 1";
  for (ArrayRef<int64_t> flat : {registers, lanes, warps})
    if (flat.size() % rank != 0)
      return emitError() << "every basis has " << rank << " coordinates";
  for (ArrayRef<int64_t> flat : {registers, lanes, warps})
    if (llvm::any_of(flat, [](int64_t v) { return v < 0; }))
      return emitError() << "basis coordinates are non-negative";
  return success();
}

LogicalResult LayoutAttr::verifyEncoding(ArrayRef<int64_t> shape, Type,
                                         function_ref<InFlightDiagnostic()> emitError) const {
  if (shape.size() != getRank())
    return emitError() << "a rank-" << getRank() << " layout on a rank-" << shape.size()
                       << " tile";
  LinearLayout layout = toLinearLayout(shape);
  if (!layout.isValid())
    return emitError() << "layout " << layout.str()
                       << " does not map onto every element of the tile exactly";
  return success();
}

LayoutAttr LayoutAttr::get(MLIRContext *context, const LinearLayout &layout) {
  return get(context, layout.rank(), flatten(layout.registers), flatten(layout.lanes),
             flatten(layout.warps));
}

LinearLayout LayoutAttr::toLinearLayout(ArrayRef<int64_t> shape) const {
  LinearLayout layout;
  layout.shape.assign(shape.begin(), shape.end());
  layout.registers = unflatten(getRank(), getRegisters());
  layout.lanes = unflatten(getRank(), getLanes());
  layout.warps = unflatten(getRank(), getWarps());
  return layout;
}

std::optional<LinearLayout> tessera::gpu::layoutOf(Type tileType) {
  auto tensor = dyn_cast<RankedTensorType>(tileType);
  if (!tensor)
    return std::nullopt;
  auto attr = dyn_cast_or_null<LayoutAttr>(tensor.getEncoding());
  if (!attr)
    return std::nullopt;
  return attr.toLinearLayout(tensor.getShape());
}

RankedTensorType tessera::gpu::withLayout(RankedTensorType type, const LinearLayout &layout) {
  return RankedTensorType::get(type.getShape(), type.getElementType(),
                               LayoutAttr::get(type.getContext(), layout));
}

//===----------------------------------------------------------------------===//
// tgpu.convert_layout
//===----------------------------------------------------------------------===//

LogicalResult tessera::gpu::ConvertLayoutOp::verify() {
  if (!layoutOf(getSrc().getType()) || !layoutOf(getResult().getType()))
    return emitOpError("converts between tiles that both carry a #tgpu.layout");
  return success();
}

OpFoldResult tessera::gpu::ConvertLayoutOp::fold(FoldAdaptor) {
  if (getSrc().getType() == getResult().getType())
    return getSrc();
  if (auto producer = getSrc().getDefiningOp<ConvertLayoutOp>())
    if (producer.getSrc().getType() == getResult().getType())
      return producer.getSrc();
  return {};
}

//===----------------------------------------------------------------------===//
// tgpu.reinterpret_pointer
//===----------------------------------------------------------------------===//

namespace {
/// A pointer of the distributed form: 1-D, dynamic, contiguous, default
/// memory space.
bool isDistributedPointer(MemRefType type) {
  return type.getRank() == 1 && type.isDynamicDim(0) && type.getLayout().isIdentity() &&
         !type.getMemorySpace();
}
} // namespace

LogicalResult tessera::gpu::ReinterpretPointerOp::verify() {
  auto source = cast<MemRefType>(getSource().getType());
  auto result = cast<MemRefType>(getResult().getType());
  if (!isDistributedPointer(source) || !isDistributedPointer(result))
    return emitOpError("views pointers of the distributed form (memref<?xT>), got ")
           << source << " to " << result;
  if (source.getElementType() == result.getElementType())
    return emitOpError("views elements of ") << source.getElementType() << " as the same type";
  return success();
}
