# User mistake: a launch argument of a type kernels cannot take.
# EXPECT-ERROR: ArgumentError
# EXPECT: unsupported_argument_type.py:11:1: error: kernel 'kernel': argument 'n' is str 'four'; pass a NumPy array, a tensor with __dlpack__ (e.g. a CPU torch tensor), an int, a float, a bool, or a tuple of those

import numpy as np
import tessera
import tessera.language as tl


@tessera.jit
def kernel(x_ptr, n):
    tl.store(x_ptr, 1.0)


def launch():
    kernel[(1,)](np.zeros(4, np.float32), "four")
