// spirv-val for the tests that validate generated SPIR-V.
#ifndef TESSERA_TESTS_UNIT_LOWERING_GPU_SPIRVVALIDATOR_H
#define TESSERA_TESTS_UNIT_LOWERING_GPU_SPIRVVALIDATOR_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace tessera::gpu::testing {

/// The validator: $TESSERA_SPIRV_VAL, else the build tree's from
/// scripts/fetch-spirv-tools.sh (which knows cooperative matrices), else the
/// spirv-val on PATH; nullopt when there is none.
std::optional<std::string> spirvValidator();

/// "" when the validator accepts `binary` for `environment` ("vulkan1.2",
/// "vulkan1.3"), else why not: its output, or that there is no validator.
std::string validateSpirv(llvm::ArrayRef<uint8_t> binary, llvm::StringRef environment);

/// Whether validateSpirv's answer says the validator predates
/// SPV_KHR_cooperative_matrix (SPIRV-Tools before v2023.4, Debian 12's
/// v2023.1 among them), rather than that the module is invalid.
bool validatorLacksCooperativeMatrix(llvm::StringRef validation);

} // namespace tessera::gpu::testing

#endif // TESSERA_TESTS_UNIT_LOWERING_GPU_SPIRVVALIDATOR_H
