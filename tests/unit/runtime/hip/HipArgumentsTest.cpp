// Argument checking and packing for HIP launches; needs no device.
#include "runtime/hip/HipArguments.h"

#include <gtest/gtest.h>

using namespace tessera::runtime;
using namespace tessera::runtime::hip;

namespace {

KernelSignature::Param param(ArgKind kind) {
  KernelSignature::Param p;
  p.kind = kind;
  return p;
}

KernelSignature vectorAddSignature() {
  KernelSignature signature;
  signature.params = {param(ArgKind::Pointer), param(ArgKind::Pointer), param(ArgKind::I32),
                      param(ArgKind::F16), param(ArgKind::I1)};
  return signature;
}

TEST(HipArgumentsTest, PacksEachKindIntoTheLowBytesOfItsSlot) {
  float data[4];
  llvm::Expected<std::vector<uint64_t>> slots =
      packArguments("k", vectorAddSignature(), {data, nullptr, -3, 1.0, true});
  ASSERT_TRUE(static_cast<bool>(slots)) << llvm::toString(slots.takeError());
  ASSERT_EQ(slots->size(), 5u);
  EXPECT_EQ((*slots)[0], reinterpret_cast<uintptr_t>(data));
  EXPECT_EQ((*slots)[1], 0u);
  EXPECT_EQ((*slots)[2], 0xfffffffdu) << "-3 as 32 bits";
  EXPECT_EQ((*slots)[3], 0x3c00u) << "1.0 as f16";
  EXPECT_EQ((*slots)[4], 1u);
}

TEST(HipArgumentsTest, RefusesWhatTheSignatureDoesNotTake) {
  float data[4];
  auto error = [&](llvm::ArrayRef<Argument> args) {
    llvm::Expected<std::vector<uint64_t>> slots = packArguments("k", vectorAddSignature(), args);
    return slots ? std::string() : llvm::toString(slots.takeError());
  };
  EXPECT_NE(error({data, data}).find("kernel 'k' takes 5 arguments"), std::string::npos);
  EXPECT_NE(error({data, 2.5, 1, 1.0, true}).find("argument 1 is ptr, got float 2.5"),
            std::string::npos);
  EXPECT_NE(error({data, data, int64_t(1) << 40, 1.0, true}).find("(out of range)"),
            std::string::npos);
  EXPECT_NE(error({data, data, 1.5, 1.0, true}).find("(pass an integer value)"),
            std::string::npos);
  EXPECT_NE(error({data, data, 1, 1.0, 2}).find("argument 4 is i1"), std::string::npos);
}

TEST(HipArgumentsTest, HonoursTheSpecializations) {
  KernelSignature signature;
  signature.params = {param(ArgKind::I32), param(ArgKind::I32)};
  signature.params[0].equalToOne = true;
  signature.params[1].divisibility = 16;
  EXPECT_TRUE(static_cast<bool>(packArguments("k", signature, {1, 32})));
  llvm::Expected<std::vector<uint64_t>> slots = packArguments("k", signature, {2, 32});
  ASSERT_FALSE(static_cast<bool>(slots));
  EXPECT_NE(llvm::toString(slots.takeError()).find("tile.equal_to_1"), std::string::npos);
  slots = packArguments("k", signature, {1, 40});
  ASSERT_FALSE(static_cast<bool>(slots));
  EXPECT_NE(llvm::toString(slots.takeError()).find("multiples of 16"), std::string::npos);
}

TEST(HipArgumentsTest, LayoutMustMatchTheSignature) {
  using tessera::gpu::amd::KernelArgumentLayout;
  std::vector<KernelArgumentLayout> layout{{"global_buffer", 0, 8},
                                           {"global_buffer", 8, 8},
                                           {"by_value", 16, 4},
                                           {"by_value", 20, 2},
                                           {"by_value", 24, 4}};
  llvm::Error ok = checkArgumentLayout("k", vectorAddSignature(), layout);
  EXPECT_FALSE(static_cast<bool>(ok)) << llvm::toString(std::move(ok));

  layout[2].size = 8;
  llvm::Error wrongSize = checkArgumentLayout("k", vectorAddSignature(), layout);
  ASSERT_TRUE(static_cast<bool>(wrongSize));
  EXPECT_NE(llvm::toString(std::move(wrongSize))
                .find("argument 2 is i32 (4 bytes) in the signature but 8 bytes"),
            std::string::npos);

  layout.pop_back();
  llvm::Error wrongCount = checkArgumentLayout("k", vectorAddSignature(), layout);
  ASSERT_TRUE(static_cast<bool>(wrongCount));
  EXPECT_NE(llvm::toString(std::move(wrongCount)).find("the code object takes 4 arguments"),
            std::string::npos);
}

} // namespace
