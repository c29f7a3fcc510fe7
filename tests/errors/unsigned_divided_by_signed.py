# User mistake: dividing an unsigned tensor by a signed one (Triton refuses it too).
# EXPECT-ERROR: CompilationError
# EXPECT: unsigned_divided_by_signed.py:14:30: error: cannot use /, // or % with uint32 and int32 because they have different signedness (as in Triton: the result would hardly be useful); cast them to one signedness

import numpy as np
import tessera
import tessera.language as tl


@tessera.jit
def kernel(words_ptr, out_ptr):
    offs = tl.arange(0, 16)
    words = tl.load(words_ptr + offs)
    tl.store(out_ptr + offs, words // (offs + 1))


def launch():
    kernel[(1,)](np.arange(16, dtype=np.uint32), np.zeros(16, np.uint32))
