#include "runtime/hip/HipArguments.h"

#include "llvm/ADT/APFloat.h"

#include <cstring>

namespace tessera::runtime::hip {

namespace {

unsigned bitWidth(ArgKind kind) {
  switch (kind) {
  case ArgKind::I1:
    return 1;
  case ArgKind::I8:
  case ArgKind::F8E4M3FN:
  case ArgKind::F8E5M2:
    return 8;
  case ArgKind::I16:
  case ArgKind::F16:
  case ArgKind::BF16:
    return 16;
  case ArgKind::I32:
  case ArgKind::F32:
    return 32;
  case ArgKind::Pointer:
  case ArgKind::I64:
  case ArgKind::F64:
    return 64;
  }
  return 64;
}

uint64_t lowBits(uint64_t value, unsigned width) {
  return width == 64 ? value : value & ((uint64_t(1) << width) - 1);
}

std::string parameterName(const KernelSignature::Param &param) {
  std::string name = toString(param.kind).str();
  if (param.kind == ArgKind::Pointer && !param.pointee.empty())
    name += "<" + param.pointee + ">";
  return name;
}

llvm::Expected<uint64_t> packOne(llvm::StringRef kernel, size_t index,
                                 const KernelSignature::Param &param, const Argument &arg) {
  auto mismatch = [&](const llvm::Twine &why) {
    return llvm::createStringError("kernel '" + kernel + "': argument " + llvm::Twine(index) +
                                   " is " + parameterName(param) + ", got " + arg.describe() +
                                   why);
  };
  unsigned width = bitWidth(param.kind);
  switch (arg.category()) {
  case Argument::Category::Pointer: {
    if (param.kind != ArgKind::Pointer)
      return mismatch("");
    auto address = reinterpret_cast<uintptr_t>(arg.pointer());
    if (param.divisibility && address % param.divisibility)
      return mismatch(" (the kernel was specialized for addresses divisible by " +
                      llvm::Twine(param.divisibility) + ")");
    return uint64_t(address);
  }
  case Argument::Category::Bits:
    if (arg.bitsKind() != param.kind)
      return mismatch("");
    return lowBits(uint64_t(arg.integer()), width);
  case Argument::Category::Integer: {
    if (!isInteger(param.kind))
      return mismatch(param.kind == ArgKind::Pointer ? "" : " (pass a floating-point value)");
    int64_t value = arg.integer();
    bool fits = !arg.tooLarge() &&
                (width == 64 || (width == 1 ? (value == 0 || value == 1)
                                            : value >= -(int64_t(1) << (width - 1)) &&
                                                  value < (int64_t(1) << width)));
    if (!fits)
      return mismatch(" (out of range)");
    if (param.equalToOne && value != 1)
      return mismatch(" (the kernel was specialized for the value 1: tile.equal_to_1)");
    if (param.divisibility && value % param.divisibility)
      return mismatch(" (the kernel was specialized for multiples of " +
                      llvm::Twine(param.divisibility) + ")");
    return lowBits(uint64_t(value), width);
  }
  case Argument::Category::Float: {
    if (!isFloat(param.kind))
      return mismatch(param.kind == ArgKind::Pointer ? "" : " (pass an integer value)");
    const llvm::fltSemantics &semantics =
        param.kind == ArgKind::F64        ? llvm::APFloat::IEEEdouble()
        : param.kind == ArgKind::F32      ? llvm::APFloat::IEEEsingle()
        : param.kind == ArgKind::F16      ? llvm::APFloat::IEEEhalf()
        : param.kind == ArgKind::BF16     ? llvm::APFloat::BFloat()
        : param.kind == ArgKind::F8E4M3FN ? llvm::APFloat::Float8E4M3FN()
                                          : llvm::APFloat::Float8E5M2();
    llvm::APFloat converted(arg.floating());
    bool losesInfo = false;
    converted.convert(semantics, llvm::APFloat::rmNearestTiesToEven, &losesInfo);
    return converted.bitcastToAPInt().getZExtValue();
  }
  }
  return mismatch("");
}

} // namespace

unsigned abiSize(ArgKind kind) {
  // i1 travels as i32 in the distributed form's kernel signature.
  return kind == ArgKind::I1 ? 4 : bitWidth(kind) / 8;
}

llvm::Error checkArgumentLayout(llvm::StringRef kernel, const KernelSignature &signature,
                                llvm::ArrayRef<gpu::amd::KernelArgumentLayout> layout) {
  if (layout.size() != signature.params.size())
    return llvm::createStringError("kernel '" + kernel + "': the code object takes " +
                                   llvm::Twine(layout.size()) + " arguments, the signature " +
                                   signature.str() + " has " +
                                   llvm::Twine(signature.params.size()));
  for (size_t index = 0; index < layout.size(); ++index) {
    const KernelSignature::Param &param = signature.params[index];
    if (layout[index].size != abiSize(param.kind))
      return llvm::createStringError(
          "kernel '" + kernel + "': argument " + llvm::Twine(index) + " is " +
          parameterName(param) + " (" + llvm::Twine(abiSize(param.kind)) +
          " bytes) in the signature but " + llvm::Twine(layout[index].size) +
          " bytes in the code object");
  }
  return llvm::Error::success();
}

llvm::Expected<std::vector<uint64_t>> packArguments(llvm::StringRef kernel,
                                                    const KernelSignature &signature,
                                                    llvm::ArrayRef<Argument> args) {
  if (args.size() != signature.params.size())
    return llvm::createStringError("kernel '" + kernel + "' takes " +
                                   llvm::Twine(signature.params.size()) + " arguments " +
                                   signature.str() + ", got " + llvm::Twine(args.size()));
  std::vector<uint64_t> slots(args.size());
  for (size_t index = 0; index < args.size(); ++index) {
    llvm::Expected<uint64_t> slot = packOne(kernel, index, signature.params[index], args[index]);
    if (!slot)
      return slot.takeError();
    slots[index] = *slot;
  }
  return slots;
}

} // namespace tessera::runtime::hip
