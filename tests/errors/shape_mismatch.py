# User mistake: an elementwise op on tiles that do not broadcast.
# EXPECT-ERROR: CompilationError
# EXPECT: shape_mismatch.py:13:9: error: shapes [64] and [32] cannot be broadcast

import numpy as np
import tessera
import tessera.language as tl


@tessera.jit
def kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 64))
    y = x + tl.arange(0, 32)
    tl.store(x_ptr + tl.arange(0, 64), y)


def launch():
    kernel[(1,)](np.zeros(64, np.float32))
