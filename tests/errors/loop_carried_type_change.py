# User mistake: a loop that changes a carried variable's dtype.
# EXPECT-ERROR: CompilationError
# EXPECT: loop_carried_type_change.py:13:5: error: loop-carried variable 'acc' is tensor<tl.float32[16]> before the loop but tensor<tl.float16[16]> at the end of its body; a loop must keep each variable's type and shape

import numpy as np
import tessera
import tessera.language as tl


@tessera.jit
def kernel(x_ptr, n):
    acc = tl.zeros([16], dtype=tl.float32)
    for i in range(n):
        acc = acc.to(tl.float16)
    tl.store(x_ptr + tl.arange(0, 16), acc)


def launch():
    kernel[(1,)](np.zeros(16, np.float32), 4)
