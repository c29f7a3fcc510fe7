# User mistake: pointer arithmetic with a float offset.
# EXPECT-ERROR: CompilationError
# EXPECT: pointer_plus_float.py:12:9: error: cannot add f32 to a pointer

import numpy as np
import tessera
import tessera.language as tl


@tessera.jit
def kernel(x_ptr):
    p = x_ptr + 1.5
    tl.store(p, 1.0)


def launch():
    kernel[(1,)](np.zeros(4, np.float32))
