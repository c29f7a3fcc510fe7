"""Tessera: a Triton-style tile kernel compiler.

    import tessera
    import tessera.language as tl

    @tessera.jit
    def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offsets < n
        tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask) + tl.load(y_ptr + offsets, mask), mask)

    add[(tessera.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)

See docs/python-guide.md.
"""

from . import _C
from .errors import ArgumentError, CompilationError, LaunchError
from . import language
from .language import constexpr, cdiv
from .arrays import DeviceError, array, asarray, empty, zeros
from .language import (float16, bfloat16, float32, float64, int8, int16, int32, int64, uint8,
                       uint16, uint32, uint64)
from .jit import JITFunction, jit, next_power_of_2, cpu_available, default_backend
from .tensor_descriptor import TensorDescriptor

__version__ = "0.1.0"

__all__ = [
    "jit", "JITFunction", "language", "constexpr", "cdiv", "next_power_of_2",
    "CompilationError", "LaunchError", "ArgumentError", "cpu_available", "default_backend",
    "array", "asarray", "empty", "zeros", "DeviceError", "TensorDescriptor",
]
