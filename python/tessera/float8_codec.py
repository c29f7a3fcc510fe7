"""fp8 values on the host, for tessera arrays of ``tl.float8e4nv`` and
``tl.float8e5`` (NumPy has no fp8 type): ``encode`` rounds floats to fp8
bytes as every Tessera backend converts (to nearest even, saturating at the
largest finite value, NaN kept: docs/float8.md), ``decode`` gives the float32
values of the bytes. Written from the formats' definitions, independently of
the compiler's integer-arithmetic conversion."""

import functools

import numpy as np

from . import language as tl

# mantissa bits, exponent bias, the largest finite magnitude's code, and
# whether the codes above it are infinity then NaNs (e5m2) or NaN (e4m3).
_FORMATS = {tl.float8e4nv: (3, 7, 0x7E, False), tl.float8e5: (2, 15, 0x7B, True)}

TYPES = tuple(_FORMATS)


@functools.lru_cache(maxsize=None)
def _magnitudes(dtype):
    """The float64 value of each code 0..127 (the sign bit clear)."""
    mantissa_bits, bias, largest, has_infinity = _FORMATS[dtype]
    codes = np.arange(128)
    exponent, mantissa = codes >> mantissa_bits, codes & ((1 << mantissa_bits) - 1)
    fraction = mantissa / float(1 << mantissa_bits)
    values = np.where(exponent == 0, fraction * 2.0 ** (1 - bias),
                      (1 + fraction) * np.exp2(exponent - bias))
    values[largest + 1:] = np.nan
    if has_infinity:
        values[largest + 1] = np.inf
    return values


def decode(codes, dtype):
    """The float32 values of fp8 ``codes`` (uint8) of ``dtype``."""
    codes = np.asarray(codes, dtype=np.uint8)
    magnitude = _magnitudes(dtype)[codes & 0x7F]
    return np.where(codes & 0x80, -magnitude, magnitude).astype(np.float32)


def encode(values, dtype):
    """``values`` rounded to fp8 codes (uint8) of ``dtype``: to nearest even,
    a magnitude beyond the largest finite one (infinity too) saturating to
    it, NaN to 0x7f with the value's sign."""
    values = np.asarray(values, dtype=np.float64)
    largest = _FORMATS[dtype][2]
    finite = _magnitudes(dtype)[:largest + 1]
    magnitude = np.minimum(np.abs(values), finite[-1])
    upper = np.clip(np.searchsorted(finite, magnitude), 0, largest)
    lower = np.maximum(upper - 1, 0)
    below, above = magnitude - finite[lower], finite[upper] - magnitude
    # Ties go to the even code (an even mantissa: codes step through it).
    pick_upper = (above < below) | ((above == below) & (upper % 2 == 0))
    codes = np.where(pick_upper, upper, lower)
    codes = np.where(np.isnan(values), 0x7F, codes)
    return (codes | np.where(np.signbit(values), 0x80, 0)).astype(np.uint8)
