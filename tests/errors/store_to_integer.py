# User mistake: tl.store through a value that is not a pointer.
# EXPECT-ERROR: CompilationError
# EXPECT: store_to_integer.py:12:5: error: store needs a pointer or a tile of pointers, got i32

import numpy as np
import tessera
import tessera.language as tl


@tessera.jit
def kernel(x_ptr, n):
    tl.store(n, 1.0)


def launch():
    kernel[(1,)](np.zeros(16, np.float32), 16)
