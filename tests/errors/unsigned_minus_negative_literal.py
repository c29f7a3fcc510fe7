# User mistake: a negative literal next to an unsigned tensor (Triton refuses it too).
# EXPECT-ERROR: CompilationError
# EXPECT: unsigned_minus_negative_literal.py:13:28: error: cannot combine the negative constant -1 with a tensor of uint16, an unsigned type; cast one of them

import numpy as np
import tessera
import tessera.language as tl


@tessera.jit
def kernel(x_ptr):
    offs = tl.arange(0, 16)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs) * -1)


def launch():
    kernel[(1,)](np.arange(16, dtype=np.uint16))
