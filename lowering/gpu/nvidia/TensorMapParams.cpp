#include "lowering/gpu/nvidia/TensorMapParams.h"

#include "lowering/gpu/DistributedFormAttrs.h"
#include "lowering/gpu/nvidia/Passes.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/Support/FormatVariadic.h"

namespace tessera::gpu {
#define GEN_PASS_DEF_TESSERANVVMTENSORMAPPARAMS
#include "lowering/gpu/nvidia/Passes.h.inc"
} // namespace tessera::gpu

using namespace mlir;

namespace tessera::gpu {

namespace {

/// CUtensorMap: 128 bytes, which the TMA unit reads from a 64-byte aligned
/// address.
constexpr int64_t kTensorMapBytes = 128, kTensorMapAlignment = 64;

std::optional<std::vector<unsigned>> unsignedArray(DictionaryAttr recipe, StringRef name) {
  auto array = recipe.getAs<DenseI64ArrayAttr>(name);
  if (!array || llvm::any_of(array.asArrayRef(), [](int64_t v) { return v < 0; }))
    return std::nullopt;
  return std::vector<unsigned>(array.asArrayRef().begin(), array.asArrayRef().end());
}

/// The values of `name` (argument numbers, -1 for a constant) and of
/// `constantName` (those constants).
std::optional<std::vector<TensorMapValue>> valueArray(DictionaryAttr recipe, StringRef name,
                                                      StringRef constantName) {
  auto arguments = recipe.getAs<DenseI64ArrayAttr>(name);
  auto constants = recipe.getAs<DenseI64ArrayAttr>(constantName);
  if (!arguments || !constants || arguments.size() != constants.size())
    return std::nullopt;
  std::vector<TensorMapValue> values;
  for (auto [argument, constant] : llvm::zip(arguments.asArrayRef(), constants.asArrayRef())) {
    if (argument < -1)
      return std::nullopt;
    values.push_back({int(argument), argument < 0 ? constant : 0});
  }
  return values;
}

std::optional<TensorMapParam> paramOf(DictionaryAttr recipe) {
  TensorMapParam param;
  auto base = recipe.getAs<IntegerAttr>("base");
  auto element = recipe.getAs<TypeAttr>("element");
  auto swizzle = recipe.getAs<IntegerAttr>("swizzle");
  auto padding = recipe.getAs<StringAttr>("padding");
  std::optional<std::vector<TensorMapValue>> shape =
      valueArray(recipe, "shape", "constant_shape");
  std::optional<std::vector<TensorMapValue>> strides =
      valueArray(recipe, "strides", "constant_strides");
  std::optional<std::vector<unsigned>> box = unsignedArray(recipe, "box");
  if (!base || !element || !swizzle || !padding || !shape || !strides || !box ||
      !element.getValue().isIntOrFloat() || shape->size() != box->size() ||
      strides->size() + 1 != shape->size() || (padding != "zero" && padding != "nan"))
    return std::nullopt;
  param.base = unsigned(base.getInt());
  param.shape = std::move(*shape);
  param.outerStrides = std::move(*strides);
  param.box = std::move(*box);
  Type type = element.getValue();
  llvm::raw_string_ostream(param.element) << type;
  param.elementBytes = (type.getIntOrFloatBitWidth() + 7) / 8;
  param.swizzleBytes = unsigned(swizzle.getInt());
  param.nanPadding = padding == "nan";
  return param;
}

struct TensorMapParams
    : tessera::gpu::impl::TesseraNvvmTensorMapParamsBase<TensorMapParams> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    Builder builder(context);
    for (auto func : getOperation().getOps<LLVM::LLVMFuncOp>()) {
      auto recipes = func->getAttrOfType<ArrayAttr>(kTensorMapsAttrName);
      if (!recipes)
        continue;
      unsigned arguments = func.getNumArguments();
      if (recipes.size() > arguments) {
        func.emitError() << "lists " << recipes.size() << " tensor maps but has only "
                         << arguments << " arguments";
        return signalPassFailure();
      }
      for (unsigned index = arguments - recipes.size(); index < arguments; ++index) {
        if (!isa<LLVM::LLVMPointerType>(func.getArgument(index).getType())) {
          func.emitError() << "tensor-map argument " << index << " is not a pointer";
          return signalPassFailure();
        }
        func.setArgAttr(index, LLVM::LLVMDialect::getByValAttrName(),
                        TypeAttr::get(LLVM::LLVMArrayType::get(builder.getI8Type(),
                                                               kTensorMapBytes)));
        func.setArgAttr(index, LLVM::LLVMDialect::getAlignAttrName(),
                        builder.getI64IntegerAttr(kTensorMapAlignment));
        func.setArgAttr(index, NVVM::NVVMDialect::getGridConstantAttrName(),
                        builder.getUnitAttr());
      }
    }
  }
};

} // namespace

llvm::Expected<std::vector<TensorMapParam>> tensorMapParamsOf(Operation *kernel) {
  std::vector<TensorMapParam> params;
  Attribute listed = kernel->getAttr(kTensorMapsAttrName);
  if (!listed)
    return params;
  auto recipes = dyn_cast<ArrayAttr>(listed);
  if (!recipes)
    return llvm::createStringError(llvm::Twine(kTensorMapsAttrName) + " is not an array");
  for (auto [index, recipe] : llvm::enumerate(recipes)) {
    auto dictionary = dyn_cast<DictionaryAttr>(recipe);
    std::optional<TensorMapParam> param = dictionary ? paramOf(dictionary) : std::nullopt;
    if (!param)
      return llvm::createStringError(llvm::formatv(
          "{0}: entry {1} is not a tensor-map recipe (base, shape, strides, constant_shape, "
          "constant_strides, element, box, swizzle, padding)",
          kTensorMapsAttrName, index));
    params.push_back(std::move(*param));
  }
  return params;
}

} // namespace tessera::gpu
