#include "lowering/cpu/CpuTarget.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/TargetParser/Host.h"

#include <algorithm>
#include <vector>

using tessera::cpu::CpuTarget;

CpuTarget CpuTarget::host() {
  CpuTarget target;
  target.triple = llvm::sys::getProcessTriple();
  target.cpu = llvm::sys::getHostCPUName().str();
  std::vector<std::string> names;
  for (const auto &feature : llvm::sys::getHostCPUFeatures())
    names.push_back((feature.second ? "+" : "-") + feature.first().str());
  std::sort(names.begin(), names.end(),
            [](const std::string &a, const std::string &b) { return a.substr(1) < b.substr(1); });
  for (const std::string &name : names) {
    if (!target.features.empty())
      target.features += ',';
    target.features += name;
  }
  target.vectorBits = vectorBitsFor(target.features);
  return target;
}

unsigned CpuTarget::vectorBitsFor(llvm::StringRef features) {
  llvm::SmallVector<llvm::StringRef> list;
  features.split(list, ',');
  if (llvm::is_contained(list, "+avx512f"))
    return 512;
  if (llvm::is_contained(list, "+avx") || llvm::is_contained(list, "+avx2"))
    return 256;
  return 128;
}

std::string CpuTarget::str() const {
  return "triple=" + triple + ", cpu=" + cpu + ", features=" + features +
         ", vector-bits=" + std::to_string(vectorBits);
}
