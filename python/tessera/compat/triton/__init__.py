"""Triton's Python API over Tessera.

A kernel file written for Triton runs on Tessera's backends after changing
only its imports::

    import tessera.compat.triton as triton
    import tessera.compat.triton.language as tl

Provided: ``jit``, ``language`` (the same module as ``tessera.language``),
``autotune``, ``Config``, ``heuristics``, ``cdiv``, ``next_power_of_2``,
``testing.do_bench``, ``testing.perf_report``, ``testing.Benchmark``,
``testing.assert_close``, ``CompilationError``, ``set_allocator``,
``tools.tensor_descriptor.TensorDescriptor``. See docs/python-guide.md for
what of Triton is and is not supported.
"""

import sys

import tessera
from tessera import language
from tessera.errors import CompilationError, LaunchError
from tessera.jit import JITFunction, cdiv, next_power_of_2

# `import tessera.compat.triton.language as tl` gives tessera.language itself,
# so that kernels written either way share one set of builtins.
sys.modules[__name__ + ".language"] = language
language._register_extra(__name__ + ".language")

from . import testing, tools  # noqa: E402
from .autotuner import Autotuner, Config, Heuristics, autotune, heuristics  # noqa: E402

__all__ = ["jit", "language", "autotune", "Config", "heuristics", "cdiv", "next_power_of_2",
           "testing", "tools", "CompilationError", "JITFunction", "Autotuner", "Heuristics",
           "OutOfResources", "set_allocator"]


class OutOfResources(LaunchError):
    """Kept for code that catches ``triton.OutOfResources``; Tessera does not raise it."""


def jit(fn=None, *, version=None, repr=None, launch_metadata=None, do_not_specialize=None,
        do_not_specialize_on_alignment=None, debug=None, noinline=None):
    """``triton.jit``: ``tessera.jit`` with Triton's keyword arguments (those
    without a meaning on Tessera are accepted and ignored)."""
    def wrap(f):
        return tessera.jit(f, do_not_specialize=do_not_specialize, debug=debug, noinline=noinline)
    return wrap(fn) if fn is not None else wrap


def set_allocator(allocator):
    """``triton.set_allocator``: Triton allocates the global scratch memory of
    device-side tensor descriptors (TMA) through it. Tessera's descriptors
    need no scratch memory, so the allocator is accepted and never called."""
    if allocator is not None and not callable(allocator):
        raise TypeError(f"set_allocator needs a callable (size, alignment, stream) -> buffer, got "
                        f"{type(allocator).__name__}")
