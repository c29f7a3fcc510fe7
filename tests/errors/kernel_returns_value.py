# User mistake: a kernel that returns a value instead of storing it.
# EXPECT-ERROR: CompilationError
# EXPECT: kernel_returns_value.py:13:5: error: a kernel cannot return a value; store results through pointers

import numpy as np
import tessera
import tessera.language as tl


@tessera.jit
def kernel(x_ptr):
    x = tl.load(x_ptr)
    return x * 2


def launch():
    kernel[(1,)](np.zeros(4, np.float32))
