# User mistake: tl.arange with a runtime bound (the parameter is not tl.constexpr).
# EXPECT-ERROR: CompilationError
# EXPECT: arange_needs_constexpr.py:12:15: error: arange end must be a compile-time integer (a literal or a tl.constexpr), got tensor<tl.int32>

import numpy as np
import tessera
import tessera.language as tl


@tessera.jit
def kernel(x_ptr, BLOCK):
    offsets = tl.arange(0, BLOCK)
    tl.store(x_ptr + offsets, 0.0)


def launch():
    kernel[(1,)](np.zeros(16, np.float32), 16)
