// tessera._C's store of autotuning records (runtime::tuningRecordCache()):
// what tessera.compat.triton's autotune keeps between processes with
// `cache_results`. The key text and the JSON payload are the autotuner's; the
// store checks entries as it checks kernels (a broken one is removed and
// reported as absent).
#include "python/src/Bindings.h"

#include "runtime/cache/KernelCache.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>

namespace py = pybind11;

void tessera::python::bindTuningRecords(py::module_ &m) {
  m.def(
      "tuning_record",
      [](const std::string &key) -> std::optional<py::bytes> {
        std::unique_ptr<llvm::MemoryBuffer> payload = runtime::tuningRecordCache().lookup(key);
        if (!payload)
          return std::nullopt;
        return py::bytes(payload->getBufferStart(), payload->getBufferSize());
      },
      py::arg("key"),
      "The payload stored for `key`, or None (absent, caching off, or broken and removed)");
  m.def(
      "store_tuning_record",
      [](const std::string &key, const py::bytes &payload) {
        if (llvm::Error error = runtime::tuningRecordCache().store(key, std::string(payload)))
          return llvm::toString(std::move(error));
        return std::string();
      },
      py::arg("key"), py::arg("payload"),
      "Stores `payload` for `key` atomically; \"\" on success, else why it was not written");
  m.def(
      "reject_tuning_record",
      [](const std::string &key) { runtime::tuningRecordCache().reject(key); }, py::arg("key"),
      "Removes the record of `key`, whose payload its reader could not use");
  m.def(
      "tuning_record_directory",
      [] {
        runtime::KernelCache &cache = runtime::tuningRecordCache();
        return cache.enabled() ? std::optional<std::string>(cache.directory()) : std::nullopt;
      },
      "Where autotuning records are kept, or None where $TESSERA_CACHE turns caching off");
  m.def("tessera_version", [] { return runtime::tesseraVersion().str(); },
        "This build's version: the project version and a hash of its code generator");
}
