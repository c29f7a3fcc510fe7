# User mistake: a load mask whose shape differs from the pointer tile's.
# EXPECT-ERROR: CompilationError
# EXPECT: mask_shape_mismatch.py:14:9: error: mask of shape [32] does not match pointer tile [64]

import numpy as np
import tessera
import tessera.language as tl


@tessera.jit
def kernel(x_ptr, n):
    offsets = tl.arange(0, 64)
    mask = tl.arange(0, 32) < n
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(x_ptr + offsets, x + 1)


def launch():
    kernel[(1,)](np.zeros(64, np.float32), 64)
