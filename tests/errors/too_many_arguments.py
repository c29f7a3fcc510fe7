# User mistake: a launch with more arguments than the kernel has parameters.
# EXPECT-ERROR: ArgumentError
# EXPECT: too_many_arguments.py:11:1: error: kernel 'kernel' takes 3 arguments (x_ptr, n, BLOCK: constexpr) but 4 were given

import numpy as np
import tessera
import tessera.language as tl


@tessera.jit
def kernel(x_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    tl.store(x_ptr + offsets, 0.0, mask=offsets < n)


def launch():
    kernel[(1,)](np.zeros(16, np.float32), 16, 16, 4)
