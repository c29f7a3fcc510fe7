// `tessera`: the user's command-line entry point. Each subcommand lives in
// its own file; this one only dispatches.
#include "tools/tessera/Commands.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>

namespace {

struct Command {
  llvm::StringRef name;
  llvm::StringRef help;
  std::function<int(llvm::ArrayRef<llvm::StringRef>)> run;
};

const Command kCommands[] = {
    {"demo", "compile and run the example kernels on the best device present",
     tessera::cli::runDemo},
    {"compile", "compile a Python @jit kernel (FILE.py:KERNEL) to tile IR, LLVM IR, assembly or an object",
     tessera::cli::runCompile},
    {"bench", "time a kernel against the library a user would use instead",
     tessera::cli::runBench},
    {"cache", "show, verify or clear the on-disk kernel caches", tessera::cli::runCache},
};

void printUsage(llvm::raw_ostream &os) {
  os << "usage: tessera <command> [options]\n\ncommands:\n";
  for (const Command &command : kCommands)
    os << "  " << command.name << "\t" << command.help << "\n";
  os << "\n  tessera --version\n";
}

} // namespace

int main(int argc, char **argv) {
  llvm::SmallVector<llvm::StringRef> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
    printUsage(args.empty() ? llvm::errs() : llvm::outs());
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "--version") {
    llvm::outs() << "tessera " << TESSERA_VERSION << "\n";
    return 0;
  }
  for (const Command &command : kCommands)
    if (command.name == args[0])
      return command.run(llvm::ArrayRef(args).drop_front());
  llvm::errs() << "tessera: unknown command '" << args[0] << "'\n\n";
  printUsage(llvm::errs());
  return 2;
}
