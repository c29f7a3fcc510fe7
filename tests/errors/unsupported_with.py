# User mistake: a Python construct kernels do not support ('with').
# EXPECT-ERROR: CompilationError
# EXPECT: unsupported_with.py:12:5: error: unsupported construct: 'with' statements are not supported in a @tessera.jit kernel

import numpy as np
import tessera
import tessera.language as tl


@tessera.jit
def kernel(x_ptr):
    with open("log.txt") as f:
        tl.store(x_ptr, 1.0)


def launch():
    kernel[(1,)](np.zeros(4, np.float32))
