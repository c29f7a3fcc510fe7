// The on-disk kernel cache: hits skip compilation, corrupted or mismatched
// entries are detected, removed and rebuilt, every key field matters.
#include "TestKernels.h"

#include "runtime/Runtime.h"
#include "runtime/cache/KernelCache.h"
#include "runtime/cpu/CacheKey.h"
#include "tests/unit/runtime/cache/CacheTestUtils.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <vector>

using namespace tessera;
using namespace tessera::runtime;
using namespace tessera::testing;
using tessera::runtime::cache_testing::filesIn;

namespace {

std::string readFile(const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, false, false);
  return buffer ? (*buffer)->getBuffer().str() : std::string();
}

void writeFile(const std::string &path, llvm::StringRef bytes) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  ASSERT_FALSE(ec) << ec.message();
  os << bytes;
}

/// `bytes` with the bits `mask` of byte `at` flipped.
[[gnu::noinline]] std::string flip(std::string bytes, size_t at, char mask) {
  if (at < bytes.size())
    bytes[at] = char(bytes[at] ^ mask);
  return bytes;
}

/// vadd on a few elements; checks the result.
void checkVectorAdd(CpuDevice &device, const Kernel &kernel) {
  const int n = 300;
  std::vector<float> x(n), y(n), out(n, 0.0f);
  for (int i = 0; i < n; ++i) {
    x[i] = float(i);
    y[i] = 0.5f * float(i);
  }
  ASSERT_NO_ERR(device.launch(kernel, {2}, {x.data(), y.data(), out.data(), n}));
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(out[i], 1.5f * float(i));
}

struct CacheFixture : ::testing::Test {
  std::unique_ptr<mlir::MLIRContext> context = makeContext();
  mlir::OwningOpRef<mlir::ModuleOp> module = parse(*context, kVectorAdd);
  TempDir dir;
};

} // namespace

TEST_F(CacheFixture, SecondCompileHitsTheDiskCache) {
  {
    CpuDevice device(deviceOptions(2, dir.str()));
    ASSERT_OK_AND_ASSIGN(kernel, device.compile(*module, "vadd"));
    EXPECT_EQ(kernel.origin(), KernelOrigin::Compiled);
    CacheStats stats = device.cacheStats();
    EXPECT_EQ(stats.misses, 1u);
    EXPECT_EQ(stats.stores, 1u);
    EXPECT_EQ(stats.diskHits, 0u);
    checkVectorAdd(device, kernel);

    // The same device again: its in-memory cache answers, same code.
    ASSERT_OK_AND_ASSIGN(again, device.compile(*module, "vadd"));
    EXPECT_EQ(again.origin(), KernelOrigin::MemoryCache);
    EXPECT_EQ(again.entry(), kernel.entry());
    EXPECT_EQ(device.cacheStats().memoryHits, 1u);
    EXPECT_EQ(device.cacheStats().misses, 1u);
  }
  std::vector<std::string> files = filesIn(dir.str());
  ASSERT_EQ(files.size(), 1u) << "one entry, no temporary files left";
  EXPECT_TRUE(llvm::StringRef(files[0]).ends_with(".tkobj"));

  // A new device (a new process, as far as the cache can tell) loads the object.
  CpuDevice device(deviceOptions(2, dir.str()));
  ASSERT_OK_AND_ASSIGN(kernel, device.compile(*module, "vadd"));
  EXPECT_EQ(kernel.origin(), KernelOrigin::DiskCache);
  CacheStats stats = device.cacheStats();
  EXPECT_EQ(stats.diskHits, 1u);
  EXPECT_EQ(stats.misses, 0u);
  EXPECT_EQ(stats.stores, 0u);
  EXPECT_EQ(kernel.signature().str(), "(ptr<f32>, ptr<f32>, ptr<f32>, i32)");
  checkVectorAdd(device, kernel);
}

TEST_F(CacheFixture, CorruptedEntriesAreDetectedRemovedAndRebuilt) {
  std::string entry;
  std::string original;
  {
    CpuDevice device(deviceOptions(1, dir.str()));
    ASSERT_OK_AND_ASSIGN(kernel, device.compile(*module, "vadd"));
    std::vector<std::string> files = filesIn(dir.str());
    ASSERT_EQ(files.size(), 1u);
    entry = files[0];
    original = readFile(entry);
    ASSERT_GT(original.size(), 200u);
  }
  struct Corruption {
    const char *what;
    std::function<std::string(std::string)> apply;
  };
  std::vector<Corruption> corruptions = {
      {"empty", [](std::string) { return std::string(); }},
      {"truncated header", [](std::string s) { return s.substr(0, 10); }},
      {"truncated payload", [](std::string s) { return s.substr(0, s.size() / 2); }},
      {"one byte short", [](std::string s) { return s.substr(0, s.size() - 1); }},
      {"trailing garbage", [](std::string s) { return s + "garbage"; }},
      {"flipped payload byte", [](std::string s) { size_t at = s.size() - 100; return flip(std::move(s), at, 0x40); }},
      {"flipped last byte", [](std::string s) { size_t at = s.size() - 1; return flip(std::move(s), at, 0x01); }},
      {"flipped magic", [](std::string s) { return flip(std::move(s), 0, 0x01); }},
      {"flipped format version", [](std::string s) { return flip(std::move(s), 8, 0x01); }},
      {"flipped checksum", [](std::string s) { return flip(std::move(s), 24, 0x01); }},
      {"flipped key byte", [](std::string s) { return flip(std::move(s), 40, 0x01); }},
  };
  for (const Corruption &corruption : corruptions) {
    SCOPED_TRACE(corruption.what);
    writeFile(entry, corruption.apply(original));
    CpuDevice device(deviceOptions(1, dir.str()));
    ASSERT_OK_AND_ASSIGN(kernel, device.compile(*module, "vadd"));
    EXPECT_EQ(kernel.origin(), KernelOrigin::Compiled);
    CacheStats stats = device.cacheStats();
    EXPECT_EQ(stats.rejected, 1u);
    EXPECT_EQ(stats.diskHits, 0u);
    EXPECT_EQ(stats.misses, 1u);
    EXPECT_EQ(stats.stores, 1u);
    checkVectorAdd(device, kernel);
    // Rebuilt: the entry is whole again and the next device hits it.
    EXPECT_EQ(readFile(entry), original);
    CpuDevice next(deviceOptions(1, dir.str()));
    ASSERT_OK_AND_ASSIGN(cached, next.compile(*module, "vadd"));
    EXPECT_EQ(cached.origin(), KernelOrigin::DiskCache);
  }
}

TEST_F(CacheFixture, AnEntryUnderTheWrongKeyIsRejected) {
  runtime::cpu::CompilerOptions options;
  runtime::cpu::CacheKey a = runtime::cpu::CacheKey::make("module A", "llvm", "k", options);
  runtime::cpu::CacheKey b = a;
  b.tesseraVersion = "0.0.0-other";
  KernelCache cache(dir.str());
  ASSERT_NO_ERR(cache.store(a.canonicalText(), "payload of A"));
  ASSERT_NE(cache.pathFor(a.canonicalText()), cache.pathFor(b.canonicalText()));
  // The file of A where B's would be (a digest collision, a hand-copied file).
  writeFile(cache.pathFor(b.canonicalText()), readFile(cache.pathFor(a.canonicalText())));
  EXPECT_EQ(cache.lookup(b.canonicalText()), nullptr);
  EXPECT_EQ(cache.stats().rejected, 1u);
  EXPECT_FALSE(llvm::sys::fs::exists(cache.pathFor(b.canonicalText()))) << "removed";
  auto hit = cache.lookup(a.canonicalText());
  ASSERT_NE(hit, nullptr);
  EXPECT_EQ(hit->getBuffer(), "payload of A");
  EXPECT_EQ(cache.stats().diskHits, 1u);
}

TEST_F(CacheFixture, EveryKeyFieldChangesTheEntry) {
  runtime::cpu::CompilerOptions options;
  runtime::cpu::CacheKey base = runtime::cpu::CacheKey::make("module text", "llvm", "k", options, "(i32)");
  KernelCache cache(dir.str());
  ASSERT_NO_ERR(cache.store(base.canonicalText(), "object"));
  std::vector<std::function<void(runtime::cpu::CacheKey &)>> changes = {
      [](runtime::cpu::CacheKey &k) { k.kernel = "k2"; },
      [](runtime::cpu::CacheKey &k) { k.stage = "tile"; },
      [](runtime::cpu::CacheKey &k) {
        k = runtime::cpu::CacheKey::make("module text ", k.stage, k.kernel, runtime::cpu::CompilerOptions(), k.extra);
      },
      [](runtime::cpu::CacheKey &k) { k.triple = "aarch64-unknown-linux-gnu"; },
      [](runtime::cpu::CacheKey &k) { k.cpu = "x86-64"; },
      [](runtime::cpu::CacheKey &k) { k.features += ",-avx2"; },
      [](runtime::cpu::CacheKey &k) { k.vectorBits = 64; },
      [](runtime::cpu::CacheKey &k) { k.optLevel = 2; },
      [](runtime::cpu::CacheKey &k) { k.tesseraVersion = "9.9.9"; },
      [](runtime::cpu::CacheKey &k) { k.llvmVersion = "23.0.0"; },
      [](runtime::cpu::CacheKey &k) { k.extra = "(i64)"; },
  };
  for (size_t i = 0; i < changes.size(); ++i) {
    runtime::cpu::CacheKey key = base;
    changes[i](key);
    EXPECT_NE(key.digest(), base.digest()) << "change " << i;
    EXPECT_EQ(cache.lookup(key.canonicalText()), nullptr) << "change " << i;
  }
  EXPECT_EQ(cache.stats().rejected, 0u);
  EXPECT_NE(cache.lookup(base.canonicalText()), nullptr);
  EXPECT_EQ(base.tesseraVersion, runtime::tesseraVersion());
  EXPECT_EQ(base.llvmVersion, runtime::llvmVersion());
}

TEST_F(CacheFixture, ADifferentTargetMisses) {
  {
    CpuDevice device(deviceOptions(1, dir.str()));
    ASSERT_OK_AND_ASSIGN(kernel, device.compile(*module, "vadd"));
  }
  CpuDeviceOptions options = deviceOptions(1, dir.str());
  TargetDescription generic = TargetDescription::host();
  generic.cpu = "x86-64";
  generic.features = "";
  generic.vectorBits = 128;
  options.target = generic;
  CpuDevice device(options);
  ASSERT_OK_AND_ASSIGN(kernel, device.compile(*module, "vadd"));
  EXPECT_EQ(kernel.origin(), KernelOrigin::Compiled);
  EXPECT_EQ(device.cacheStats().misses, 1u);
  checkVectorAdd(device, kernel);
  EXPECT_EQ(filesIn(dir.str()).size(), 2u);
}

TEST_F(CacheFixture, AChangedModuleMisses) {
  {
    CpuDevice device(deviceOptions(1, dir.str()));
    ASSERT_OK_AND_ASSIGN(kernel, device.compile(*module, "vadd"));
  }
  std::string text = kVectorAdd;
  text.replace(text.find("llvm.fadd"), 9, "llvm.fsub");
  auto changed = parse(*context, text);
  ASSERT_TRUE(changed);
  CpuDevice device(deviceOptions(1, dir.str()));
  ASSERT_OK_AND_ASSIGN(kernel, device.compile(*changed, "vadd"));
  EXPECT_EQ(kernel.origin(), KernelOrigin::Compiled);
}

TEST_F(CacheFixture, DisabledCacheWritesNothing) {
  CpuDeviceOptions options = deviceOptions(1, dir.str());
  options.diskCache = false;
  CpuDevice device(options);
  ASSERT_OK_AND_ASSIGN(kernel, device.compile(*module, "vadd"));
  EXPECT_TRUE(filesIn(dir.str()).empty());
  EXPECT_EQ(device.cacheStats().misses, 1u);
}

TEST(KernelCacheLocation, EnvironmentDecidesTheDefaultDirectory) {
  auto saved = [](const char *name) -> std::optional<std::string> {
    const char *value = std::getenv(name);
    return value ? std::optional<std::string>(value) : std::nullopt;
  };
  auto restore = [](const char *name, const std::optional<std::string> &value) {
    if (value)
      setenv(name, value->c_str(), 1);
    else
      unsetenv(name);
  };
  auto tessera = saved("TESSERA_CACHE_DIR"), xdg = saved("XDG_CACHE_HOME"), home = saved("HOME");
  setenv("TESSERA_CACHE_DIR", "/tmp/tc", 1);
  setenv("XDG_CACHE_HOME", "/tmp/xdg", 1);
  setenv("HOME", "/tmp/home", 1);
  EXPECT_EQ(KernelCache::defaultDirectory("cpu"), "/tmp/tc/cpu");
  unsetenv("TESSERA_CACHE_DIR");
  EXPECT_EQ(KernelCache::defaultDirectory("cpu"), "/tmp/xdg/tessera/cpu");
  unsetenv("XDG_CACHE_HOME");
  EXPECT_EQ(KernelCache::defaultDirectory("cpu"), "/tmp/home/.cache/tessera/cpu");
  restore("TESSERA_CACHE_DIR", tessera);
  restore("XDG_CACHE_HOME", xdg);
  restore("HOME", home);
}
