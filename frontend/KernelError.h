// The one exception both front doors throw for mistakes in a user's kernel.
#ifndef TESSERA_FRONTEND_KERNELERROR_H
#define TESSERA_FRONTEND_KERNELERROR_H

#include "frontend/SourceLocation.h"

#include <stdexcept>
#include <string>

namespace tessera::frontend {

/// A mistake in a kernel, found while tracing it. `what()` reads like a
/// compiler diagnostic, `file:line:col: error: message`, so that it points
/// at the user's line rather than at Tessera's internals.
class KernelError : public std::runtime_error {
public:
  KernelError(SourceLocation location, std::string message)
      : std::runtime_error(location.str() + ": error: " + message),
        location_(std::move(location)), message_(std::move(message)) {}

  const SourceLocation &location() const { return location_; }
  /// The message without the location prefix.
  const std::string &message() const { return message_; }

private:
  SourceLocation location_;
  std::string message_;
};

} // namespace tessera::frontend

#endif // TESSERA_FRONTEND_KERNELERROR_H
