"""Tessera device arrays: ``tessera.asarray``, ``tessera.empty``, ``tessera.zeros``.

    x = tessera.asarray(np.arange(1024, dtype=np.float32), device="cpu")
    out = tessera.empty((1024,), tessera.float32, device="cpu")
    kernel[grid](x, out, 1024, BLOCK=256)
    result = out.numpy()          # a NumPy copy

An array lives on one device. "cpu" arrays hold 64-byte aligned host memory
(so pointer arguments get the divisibility-by-16 specialization) and run on
the CPU backend or the interpreter. "cuda", "hip" and "vulkan" are the
devices of backends not built yet: asking for them raises
``tessera.DeviceError``. A launch whose array arguments live on different
devices is refused (``tessera.ArgumentError``).
"""

import numpy as np

from . import language as tl

__all__ = ["array", "asarray", "empty", "zeros", "DeviceError", "KNOWN_DEVICES", "BUILT_DEVICES"]

# Devices Tessera knows about, and those this build can put memory on.
KNOWN_DEVICES = ("cpu", "cuda", "hip", "vulkan")
BUILT_DEVICES = ("cpu",)

_ALIGNMENT = 64

_TL_TO_NUMPY = {tl.float16: np.float16, tl.float32: np.float32, tl.float64: np.float64,
                tl.int8: np.int8, tl.int16: np.int16, tl.int32: np.int32, tl.int64: np.int64,
                tl.uint8: np.uint8, tl.int1: np.bool_}


class DeviceError(ValueError):
    """A device that does not exist, or whose backend this build does not have."""


def _parse_device(device):
    """'cpu', 'cpu:0', 'cuda', 'cuda:1', ... -> ('cpu', 0)."""
    if isinstance(device, array):
        return device.device_type, device.device_index
    text = str(device if device is not None else "cpu")
    kind, _, index = text.partition(":")
    if kind not in KNOWN_DEVICES:
        raise DeviceError(f"unknown device '{text}'; Tessera's devices are "
                          f"{', '.join(KNOWN_DEVICES)}")
    try:
        index = int(index) if index else 0
    except ValueError:
        raise DeviceError(f"bad device '{text}': the index after ':' must be an integer") from None
    if kind not in BUILT_DEVICES:
        raise DeviceError(f"device '{kind}': the {kind} backend is not built yet in this version of "
                          f"Tessera (available: {', '.join(BUILT_DEVICES)})")
    if index != 0:
        raise DeviceError(f"device '{text}': there is one {kind} device, 'cpu:0'")
    return kind, index


def _numpy_dtype(dtype):
    if dtype is None:
        return None
    if isinstance(dtype, tl.dtype):
        if dtype not in _TL_TO_NUMPY:
            raise TypeError(f"tessera arrays of {dtype!r} are not supported yet (NumPy has no such type)")
        return np.dtype(_TL_TO_NUMPY[dtype])
    result = np.dtype(dtype)
    if (result.kind, result.itemsize) not in {("f", 2), ("f", 4), ("f", 8), ("i", 1), ("i", 2),
                                              ("i", 4), ("i", 8), ("u", 1), ("b", 1)}:
        raise TypeError(f"tessera arrays of dtype {result} are not supported (kernels take float16/32/64, "
                        "int8/16/32/64, uint8 and bool)")
    return result


def _aligned_empty(shape, dtype):
    shape = tuple(int(d) for d in (shape if isinstance(shape, (tuple, list)) else (shape,)))
    if any(d < 0 for d in shape):
        raise ValueError(f"negative dimension in shape {shape}")
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    raw = np.empty(nbytes + _ALIGNMENT, dtype=np.uint8)
    start = (-raw.ctypes.data) % _ALIGNMENT
    return raw[start:start + nbytes].view(dtype).reshape(shape)


class array:
    """A dense, row-major array on one Tessera device. Pass it to a kernel
    like a NumPy array; ``.numpy()`` copies it back to a NumPy array."""

    __slots__ = ("_data", "device_type", "device_index")

    def __init__(self, data, device_type, device_index=0):
        self._data = data
        self.device_type = device_type
        self.device_index = device_index

    @property
    def device(self):
        return self.device_type if self.device_index == 0 else f"{self.device_type}:{self.device_index}"

    shape = property(lambda self: self._data.shape)
    dtype = property(lambda self: self._data.dtype)
    ndim = property(lambda self: self._data.ndim)
    size = property(lambda self: self._data.size)
    itemsize = property(lambda self: self._data.itemsize)
    nbytes = property(lambda self: self._data.nbytes)
    strides = property(lambda self: self._data.strides)

    def numel(self):
        return self._data.size

    def stride(self, dim=None):
        """Strides in elements, like torch's ``Tensor.stride``."""
        strides = tuple(s // self.itemsize for s in self._data.strides)
        return strides if dim is None else strides[dim]

    def data_ptr(self):
        return self._data.ctypes.data

    def numpy(self):
        """A NumPy copy of the array's contents."""
        return self._data.copy()

    def __len__(self):
        return len(self._data)

    def __repr__(self):
        return f"tessera.array({np.array2string(self._data, separator=', ')}, device='{self.device}')"

    # A CPU array is host memory: NumPy and DLPack consumers can read it in place.
    @property
    def __array_interface__(self):
        return self._data.__array_interface__

    def __dlpack__(self, **kwargs):
        return self._data.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._data.__dlpack_device__()


def asarray(obj, dtype=None, device="cpu"):
    """A tessera array on ``device`` holding a copy of ``obj`` (a NumPy array,
    anything NumPy can convert, or another tessera array)."""
    kind, index = _parse_device(device)
    source = obj._data if isinstance(obj, array) else np.asarray(obj)
    dt = _numpy_dtype(dtype) or _numpy_dtype(source.dtype)
    data = _aligned_empty(source.shape, dt)
    data[...] = source
    return array(data, kind, index)


def empty(shape, dtype=tl.float32, device="cpu"):
    """An uninitialized tessera array (``dtype``: a ``tl`` dtype, a NumPy dtype or its name)."""
    kind, index = _parse_device(device)
    return array(_aligned_empty(shape, _numpy_dtype(dtype)), kind, index)


def zeros(shape, dtype=tl.float32, device="cpu"):
    """A tessera array of zeros."""
    result = empty(shape, dtype, device)
    result._data[...] = 0
    return result
