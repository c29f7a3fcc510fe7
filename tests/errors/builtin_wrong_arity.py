# User mistake: a tl builtin called with too many arguments.
# EXPECT-ERROR: CompilationError
# EXPECT: builtin_wrong_arity.py:13:40: error: exp() takes 1 positional argument but 2 were given

import numpy as np
import tessera
import tessera.language as tl


@tessera.jit
def kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    tl.store(x_ptr + tl.arange(0, 16), tl.exp(x, 2))


def launch():
    kernel[(1,)](np.zeros(16, np.float32))
