// Sets or clears an environment variable for the lifetime of a test scope.
#ifndef TESSERA_TESTS_UNIT_LOWERING_GPU_NVIDIA_SCOPEDENVIRONMENT_H
#define TESSERA_TESTS_UNIT_LOWERING_GPU_NVIDIA_SCOPEDENVIRONMENT_H

#include <cstdlib>
#include <optional>
#include <string>

namespace tessera::gpu::testing {

class ScopedEnvironment {
public:
  /// Sets `name` to `value`, or unsets it when `value` is empty.
  ScopedEnvironment(std::string name, std::optional<std::string> value) : name_(std::move(name)) {
    if (const char *old = std::getenv(name_.c_str()))
      saved_ = old;
    if (value)
      setenv(name_.c_str(), value->c_str(), 1);
    else
      unsetenv(name_.c_str());
  }
  ~ScopedEnvironment() {
    if (saved_)
      setenv(name_.c_str(), saved_->c_str(), 1);
    else
      unsetenv(name_.c_str());
  }
  ScopedEnvironment(const ScopedEnvironment &) = delete;
  ScopedEnvironment &operator=(const ScopedEnvironment &) = delete;

private:
  std::string name_;
  std::optional<std::string> saved_;
};

} // namespace tessera::gpu::testing

#endif // TESSERA_TESTS_UNIT_LOWERING_GPU_NVIDIA_SCOPEDENVIRONMENT_H
