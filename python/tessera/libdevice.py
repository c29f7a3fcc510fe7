"""NVIDIA's libdevice under Triton's names: ``tl.extra.libdevice.tanh(x)``,
also ``tl.extra.cuda.libdevice``.

Every function of the CUDA toolkit's libdevice.10.bc that takes and returns
scalars (libdevice_functions.py, generated from it by
scripts/generate_libdevice_functions.py); the fp32 and fp64 versions of a
function share its name (``tanh`` calls ``__nv_tanhf`` or ``__nv_tanh``).
Arguments are broadcast together; where their dtypes are not one the
function takes, they are promoted as a binary operator's operands first.
NVIDIA targets call libdevice itself; the CPU, AMD and Vulkan backends
compute the functions that a math op computes and report the others
(docs/python-guide.md, "libdevice").
"""

from . import language as _language
from .libdevice_functions import FUNCTIONS


def _signature_text(signatures):
    return "; ".join(f"({', '.join(args)}) -> {result} as {symbol}"
                     for args, (symbol, result) in sorted(signatures.items()))


def _function(name, signatures):
    def call(*args):
        return _language._call_extern("libdevice", "", args, signatures, True,
                                      f"libdevice.{name}")

    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"libdevice's {name}: {_signature_text(signatures)}."
    call._tessera_builtin = True
    return call


for _name, _signatures in FUNCTIONS.items():
    globals()[_name] = _function(_name, _signatures)

__all__ = sorted(FUNCTIONS)
