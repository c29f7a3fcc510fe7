# User mistake: a launch keyword that names no parameter (a misspelt constexpr).
# EXPECT-ERROR: ArgumentError
# EXPECT: unknown_keyword.py:11:1: error: kernel 'kernel' got an unexpected keyword argument 'BLOCK' (parameters: x_ptr, n, BLOCK_SIZE: constexpr)

import numpy as np
import tessera
import tessera.language as tl


@tessera.jit
def kernel(x_ptr, n, BLOCK_SIZE: tl.constexpr):
    offsets = tl.arange(0, BLOCK_SIZE)
    tl.store(x_ptr + offsets, 0.0, mask=offsets < n)


def launch():
    kernel[(1,)](np.zeros(16, np.float32), 16, BLOCK=16)
