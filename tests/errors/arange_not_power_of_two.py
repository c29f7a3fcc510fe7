# User mistake: tl.arange of a length that is not a power of two.
# EXPECT-ERROR: CompilationError
# EXPECT: arange_not_power_of_two.py:12:15: error: arange length must be a power of two, got 100

import numpy as np
import tessera
import tessera.language as tl


@tessera.jit
def kernel(x_ptr):
    offsets = tl.arange(0, 100)
    tl.store(x_ptr + offsets, 0.0)


def launch():
    kernel[(1,)](np.zeros(128, np.float32))
