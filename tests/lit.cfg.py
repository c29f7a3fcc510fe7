# lit configuration for Tessera's IR tests (tests/ir/**.mlir).
import os

import lit.formats

config.name = "Tessera"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.test_source_root = os.path.join(config.tessera_src_root, "tests")
config.test_exec_root = os.path.join(config.tessera_obj_root, "tests")
config.excludes = ["unit", "python", "errors", "CMakeLists.txt", "lit.cfg.py"]

# Tessera's tools first, then FileCheck and not from LLVM 22.
config.environment["PATH"] = os.pathsep.join(
    [config.tessera_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", "")]
)
