# User mistake: array arguments on different devices in one launch.
# EXPECT-ERROR: ArgumentError
# EXPECT: mixed_devices.py:24:1: error: kernel 'kernel': array arguments live on different devices ('x_ptr' is on cpu, 'y_ptr' is on cuda:0); copy them to one device

import numpy as np
import tessera
import tessera.language as tl


class CudaTensor:
    """Stands in for a CUDA tensor (a DLPack producer on device type 2)."""

    def __init__(self, a):
        self.a = a

    def __dlpack__(self, **kwargs):
        return self.a.__dlpack__()

    def __dlpack_device__(self):
        return (2, 0)


@tessera.jit
def kernel(x_ptr, y_ptr):
    tl.store(y_ptr, tl.load(x_ptr))


def launch():
    kernel[(1,)](tessera.asarray(np.zeros(4, np.float32)), CudaTensor(np.zeros(4, np.float32)))
