// `tessera compile FILE.py:KERNEL --signature "..." [--target cpu] [--emit KIND] [-o OUT]`.
//
// A kernel written in Python is compiled by the Python front end, so that the
// file a Python user launches is exactly what this command compiles: the
// command runs `python -m tessera.compile ARGS...` (python/tessera/compile.py)
// in place of itself, with the tessera package importable. The Python is
// $TESSERA_PYTHON, else the one this build was configured with; the package
// is the build tree's (build/python, next to this binary's bin/) when there,
// else the one that Python imports (pip install).
#include "tools/tessera/Commands.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>

#ifndef TESSERA_PYTHON_EXECUTABLE
#define TESSERA_PYTHON_EXECUTABLE "python3"
#endif
#ifndef TESSERA_PYTHON_PACKAGE_PARENT
#define TESSERA_PYTHON_PACKAGE_PARENT ""
#endif

namespace {

/// build/python when this binary is build/bin/tessera (or the configured one).
std::string packageParent(const char *argv0) {
  std::string self = llvm::sys::fs::getMainExecutable(argv0, reinterpret_cast<void *>(&packageParent));
  if (!self.empty()) {
    llvm::SmallString<256> dir(llvm::sys::path::parent_path(llvm::sys::path::parent_path(self)));
    llvm::sys::path::append(dir, "python");
    llvm::SmallString<256> init(dir);
    llvm::sys::path::append(init, "tessera", "compile.py");
    if (llvm::sys::fs::exists(init))
      return std::string(dir);
  }
  llvm::SmallString<256> configured(TESSERA_PYTHON_PACKAGE_PARENT);
  llvm::SmallString<256> init(configured);
  llvm::sys::path::append(init, "tessera", "compile.py");
  if (!configured.empty() && llvm::sys::fs::exists(init))
    return std::string(configured);
  return "";
}

} // namespace

int tessera::cli::runCompile(llvm::ArrayRef<llvm::StringRef> args) {
  std::string python = TESSERA_PYTHON_EXECUTABLE;
  if (const char *env = std::getenv("TESSERA_PYTHON"); env && *env)
    python = env;
  auto found = llvm::sys::findProgramByName(python);
  if (!found) {
    llvm::errs() << "tessera compile: error: Python interpreter '" << python
                 << "' not found (set TESSERA_PYTHON to a Python with tessera's requirements)\n";
    return 1;
  }
  std::string parent = packageParent("tessera");
  if (!parent.empty()) {
    std::string path = parent;
    if (const char *old = std::getenv("PYTHONPATH"); old && *old)
      path += std::string(":") + old;
    ::setenv("PYTHONPATH", path.c_str(), 1);
  }
  std::vector<std::string> storage = {*found, "-m", "tessera.compile"};
  for (llvm::StringRef arg : args)
    storage.push_back(arg.str());
  std::vector<char *> argv;
  for (std::string &s : storage)
    argv.push_back(s.data());
  argv.push_back(nullptr);
  llvm::outs().flush();
  llvm::errs().flush();
  ::execv(argv[0], argv.data());
  llvm::errs() << "tessera compile: error: cannot run '" << *found << "': " << std::strerror(errno)
               << "\n";
  return 1;
}
