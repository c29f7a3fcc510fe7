#include "lowering/gpu/Diagnostics.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace tessera::gpu {

std::string describeLocation(Location loc) {
  if (auto file = loc->findInstanceOf<FileLineColLoc>())
    return (file.getFilename().getValue() + ":" + llvm::Twine(file.getLine()) + ":" +
            llvm::Twine(file.getColumn()))
        .str();
  if (isa<UnknownLoc>(loc))
    return "";
  std::string text;
  llvm::raw_string_ostream(text) << loc;
  return text;
}

DiagnosticCollector::DiagnosticCollector(MLIRContext *context)
    : handler(context, [this](Diagnostic &diagnostic) {
        if (diagnostic.getSeverity() != DiagnosticSeverity::Error)
          return success();
        append("", diagnostic, "error");
        for (Diagnostic &note : diagnostic.getNotes())
          if (!llvm::StringRef(note.str()).starts_with("see current operation"))
            append("  ", note, "note");
        return success();
      }) {}

std::string DiagnosticCollector::take() {
  return text.empty() ? std::string("\n  no diagnostic was emitted") : std::move(text);
}

void DiagnosticCollector::append(llvm::StringRef indent, Diagnostic &diagnostic,
                                 llvm::StringRef severity) {
  llvm::raw_string_ostream os(text);
  os << "\n  " << indent;
  if (std::string where = describeLocation(diagnostic.getLocation()); !where.empty())
    os << where << ": ";
  std::string message = diagnostic.str();
  os << severity << ": " << llvm::StringRef(message).take_until([](char c) { return c == '\n'; });
}

} // namespace tessera::gpu
