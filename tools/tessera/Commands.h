// The subcommands of the `tessera` command-line program.
#ifndef TESSERA_TOOLS_TESSERA_COMMANDS_H
#define TESSERA_TOOLS_TESSERA_COMMANDS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace tessera::cli {

/// `tessera demo [--print-ir]`: the main job end to end on the best device
/// present. Returns the process exit code.
int runDemo(llvm::ArrayRef<llvm::StringRef> args);

/// `tessera bench WORKLOAD ...`: a kernel against its peer, side by side.
int runBench(llvm::ArrayRef<llvm::StringRef> args);

/// `tessera compile FILE.py:KERNEL --signature ... [--target cpu] [--emit
/// tile|mlir|llvm|asm|obj] [-o OUT]`: ahead-of-time compilation of a Python
/// kernel, by the Python front end (python/tessera/compile.py).
int runCompile(llvm::ArrayRef<llvm::StringRef> args);

/// `tessera cache [info|list|verify|clear] [--kind cpu|gpu]`: the on-disk
/// kernel caches (runtime/cache/KernelCache.h).
int runCache(llvm::ArrayRef<llvm::StringRef> args);

} // namespace tessera::cli

#endif // TESSERA_TOOLS_TESSERA_COMMANDS_H
