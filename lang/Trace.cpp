// The trace in progress on each thread, and the checks every handle makes.
#include "lang/Trace.h"

#include "llvm/Support/raw_ostream.h"

namespace tessera::lang {

namespace {
thread_local frontend::KernelBuilder *current = nullptr;
} // namespace

frontend::KernelBuilder &detail::builder(const std::source_location &loc) {
  if (!current)
    throw KernelError(here(loc), "EDSL operations can only be used inside a kernel being traced");
  return *current;
}

void detail::checkType(mlir::Value value, mlir::Type elem, bool scalar) {
  mlir::Type type = value.getType();
  bool matches = scalar ? type == elem : mlir::getElementTypeOrSelf(type) == elem;
  if (!matches)
    throw KernelError(SourceLocation::fromMLIR(value.getLoc()).value_or(SourceLocation{}),
                      "internal error: a handle of " + frontend::KernelBuilder::str(elem) +
                          (scalar ? "" : " elements") + " was given a value of type " +
                          frontend::KernelBuilder::str(type));
}

detail::TraceScope::TraceScope(frontend::KernelBuilder &kb) : previous_(current) { current = &kb; }

detail::TraceScope::~TraceScope() { current = previous_; }

std::string TracedKernel::str() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.get()->print(os);
  return text;
}

} // namespace tessera::lang
