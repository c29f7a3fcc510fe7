# User mistake: a name the kernel never defines.
# EXPECT-ERROR: CompilationError
# EXPECT: undefined_name.py:13:51: error: name 'n_elements' is not defined

import numpy as np
import tessera
import tessera.language as tl


@tessera.jit
def kernel(x_ptr, n):
    offsets = tl.arange(0, 16)
    tl.store(x_ptr + offsets, 0.0, mask=offsets < n_elements)


def launch():
    kernel[(1,)](np.zeros(16, np.float32), 16)
