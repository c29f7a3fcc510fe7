# User mistake: tl.dot of tiles whose inner dimensions differ.
# EXPECT-ERROR: CompilationError
# EXPECT: dot_shape_mismatch.py:15:9: error: dot: K of a [16, 16] is 16 but K of b [32, 16] is 32

import numpy as np
import tessera
import tessera.language as tl


@tessera.jit
def kernel(a_ptr, b_ptr, c_ptr):
    r = tl.arange(0, 16)
    a = tl.load(a_ptr + r[:, None] * 16 + r[None, :])
    b = tl.load(b_ptr + tl.arange(0, 32)[:, None] * 16 + r[None, :])
    c = tl.dot(a, b)
    tl.store(c_ptr + r[:, None] * 16 + r[None, :], c)


def launch():
    kernel[(1,)](np.zeros(256, np.float32), np.zeros(512, np.float32), np.zeros(256, np.float32))
