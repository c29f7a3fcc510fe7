# User mistake: a tl.static_assert that fails for the given constexpr.
# EXPECT-ERROR: CompilationError
# EXPECT: static_assert_fails.py:12:5: error: static_assert failed: BLOCK must be a multiple of 16, got 8

import numpy as np
import tessera
import tessera.language as tl


@tessera.jit
def kernel(x_ptr, BLOCK: tl.constexpr):
    tl.static_assert(BLOCK % 16 == 0, f"BLOCK must be a multiple of 16, got {BLOCK}")
    tl.store(x_ptr + tl.arange(0, BLOCK), 0.0)


def launch():
    kernel[(1,)](np.zeros(64, np.float32), BLOCK=8)
