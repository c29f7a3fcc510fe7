"""Tessera device arrays: ``tessera.asarray``, ``tessera.empty``, ``tessera.zeros``.

    x = tessera.asarray(np.arange(1024, dtype=np.float32), device="cpu")
    out = tessera.empty((1024,), tessera.float32, device="cpu")
    kernel[grid](x, out, 1024, BLOCK=256)
    result = out.numpy()          # a NumPy copy

An array lives on one device. "cpu" arrays hold 64-byte aligned host memory
(so pointer arguments get the divisibility-by-16 specialization) and run on
the CPU backend or the interpreter. "vulkan", "cuda" and "hip" arrays hold
device memory of that GPU ("cuda:1": the second CUDA device); kernels whose
arrays live there run there. A device that cannot be opened raises
``tessera.DeviceError`` saying why ("no CUDA device: ..."). A launch whose
array arguments live on different devices is refused
(``tessera.ArgumentError``).
"""

import numpy as np

from . import _C
from . import float8_codec
from . import language as tl

__all__ = ["array", "asarray", "empty", "zeros", "DeviceError", "device_info", "is_available",
           "KNOWN_DEVICES", "BUILT_DEVICES", "GPU_DEVICES"]

# Devices Tessera knows about, and those this build can put memory on
# (whether a GPU device is present is known only when it is opened).
KNOWN_DEVICES = ("cpu", "cuda", "hip", "vulkan")
BUILT_DEVICES = ("cpu", "vulkan", "cuda", "hip")
GPU_DEVICES = ("vulkan", "cuda", "hip")

_ALIGNMENT = 64

_TL_TO_NUMPY = {tl.float16: np.float16, tl.float32: np.float32, tl.float64: np.float64,
                tl.int8: np.int8, tl.int16: np.int16, tl.int32: np.int32, tl.int64: np.int64,
                tl.uint8: np.uint8, tl.uint16: np.uint16, tl.uint32: np.uint32, tl.uint64: np.uint64,
                tl.int1: np.bool_}


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
    if kind == "cpu" and index != 0:
        raise DeviceError(f"device '{text}': there is one {kind} device, 'cpu:0'")
    if index < 0:
        raise DeviceError(f"bad device '{text}': the index after ':' must not be negative")
    return kind, index


def device_info(device):
    """A description of a GPU device ("vulkan", "cuda:1", ...) such as
    "llvmpipe (LLVM 15.0.6, 256 bits) (vulkan:1.3:subgroup=8:shared=32768)";
    raises DeviceError saying why when it cannot be opened."""
    kind, index = _parse_device(device)
    if kind == "cpu":
        return "cpu"
    available, text = _C.device_status(kind, index)
    if not available:
        raise DeviceError(f"no {_DEVICE_NAMES[kind]} device: {text}")
    return text


def is_available(device):
    """Whether the device can be opened (always true for "cpu")."""
    try:
        device_info(device)
    except DeviceError:
        return False
    return True


_DEVICE_NAMES = {"vulkan": "Vulkan", "cuda": "CUDA", "hip": "HIP"}


def _numpy_dtype(dtype):
    """The NumPy type that stores elements of ``dtype``: bytes for fp8."""
    if dtype is None:
        return None
    if dtype in float8_codec.TYPES:
        return np.dtype(np.uint8)
    if isinstance(dtype, tl.dtype):
        if dtype not in _TL_TO_NUMPY:
            raise TypeError(f"tessera arrays of {dtype!r} are not supported yet (NumPy has no such type)")
        return np.dtype(_TL_TO_NUMPY[dtype])
    result = np.dtype(dtype)
    if (result.kind, result.itemsize) not in {("f", 2), ("f", 4), ("f", 8), ("i", 1), ("i", 2),
                                              ("i", 4), ("i", 8), ("u", 1), ("u", 2), ("u", 4),
                                              ("u", 8), ("b", 1)}:
        raise TypeError(f"tessera arrays of dtype {result} are not supported (kernels take float16/32/64, "
                        "int8/16/32/64, uint8/16/32/64 and bool)")
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
    like a NumPy array; ``.numpy()`` copies it back to a NumPy array.

    A CPU array holds an aligned NumPy array (``_data``); a GPU array holds a
    ``_C.DeviceBuffer`` (``_buffer``) with its shape and dtype. An fp8 array
    (``_float8``: ``tl.float8e4nv`` or ``tl.float8e5``) stores its codes as
    uint8; its ``dtype`` is the fp8 type and ``.numpy()`` gives float32
    values."""

    __slots__ = ("_data", "_buffer", "_shape", "_dtype", "_float8", "device_type", "device_index")

    def __init__(self, data, device_type, device_index=0, buffer=None, shape=None, dtype=None,
                 float8_type=None):
        self._data = data
        self._buffer = buffer
        self._shape = data.shape if data is not None else tuple(shape)
        self._dtype = data.dtype if data is not None else np.dtype(dtype)
        self._float8 = float8_type
        self.device_type = device_type
        self.device_index = device_index

    @property
    def device(self):
        return self.device_type if self.device_index == 0 else f"{self.device_type}:{self.device_index}"

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._float8 or self._dtype)
    ndim = property(lambda self: len(self._shape))
    size = property(lambda self: int(np.prod(self._shape, dtype=np.int64)))
    itemsize = property(lambda self: self._dtype.itemsize)
    nbytes = property(lambda self: self.size * self.itemsize)

    @property
    def strides(self):
        if self._data is not None:
            return self._data.strides
        strides, step = [], self.itemsize
        for d in reversed(self._shape):
            strides.insert(0, step)
            step *= d
        return tuple(strides)

    def numel(self):
        return self.size

    def stride(self, dim=None):
        """Strides in elements, like torch's ``Tensor.stride``."""
        strides = tuple(s // self.itemsize for s in self.strides)
        return strides if dim is None else strides[dim]

    def data_ptr(self):
        """The address of the first element: host memory on the CPU, a
        device address on CUDA and HIP. Vulkan buffers have no address."""
        if self._data is not None:
            return self._data.ctypes.data
        if self.device_type == "vulkan":
            raise TypeError("a Vulkan array has no address: its buffer is bound to the kernel")
        return self._buffer.address

    def numpy(self):
        """A NumPy copy of the array's contents (of an fp8 array: its values
        as float32, which hold them exactly)."""
        stored = self._stored()
        if self._float8:
            return float8_codec.decode(stored, self._float8)
        return stored.copy() if stored is self._data else stored

    def _stored(self):
        """The stored elements (an fp8 array's codes) on the host: a CPU
        array's own memory, a copy of a GPU array's."""
        if self._data is not None:
            return self._data
        stored = np.empty(self._shape, self._dtype)
        self._buffer.copy_to_host(stored.ctypes.data, stored.nbytes)
        return stored

    def __len__(self):
        if not self._shape:
            raise TypeError("len() of a 0-d array")
        return self._shape[0]

    def __repr__(self):
        values = self._data if self._data is not None and not self._float8 else self.numpy()
        kind = f", dtype={self._float8!r}" if self._float8 else ""
        return (f"tessera.array({np.array2string(values, separator=', ')}{kind}, "
                f"device='{self.device}')")

    # A CPU array is host memory: NumPy and DLPack consumers can read it in
    # place. A GPU array is not: copy it with .numpy().
    @property
    def __array_interface__(self):
        self._check_shared("its memory cannot be shared", AttributeError)
        return self._data.__array_interface__

    def __dlpack__(self, **kwargs):
        self._check_shared("it cannot be exported through DLPack", BufferError)
        return self._data.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        self._check_shared("it cannot be exported through DLPack", BufferError)
        return self._data.__dlpack_device__()

    def _check_shared(self, consequence, error):
        if self._data is None:
            raise error(f"a {self.device} array is not host memory: {consequence}; use .numpy()")
        if self._float8:
            raise error(f"an array of {self._float8!r} holds codes NumPy has no type for: "
                        f"{consequence}; use .numpy() (float32 values)")


def _host_values(obj, dtype=None):
    """`obj`'s values on the host; Python numbers read as `dtype` (a NumPy
    dtype) when given, so that 2**64 - 1 stays exact as uint64."""
    if isinstance(obj, array):
        return obj._data if obj._data is not None and not obj._float8 else obj.numpy()
    if "bfloat16" in str(getattr(obj, "dtype", "")):
        raise TypeError("tessera arrays of bfloat16 are not supported yet (NumPy has no such "
                        "type): pass the tensor to the kernel itself, through DLPack")
    if dtype is not None and not hasattr(obj, "dtype"):
        return np.asarray(obj, dtype=dtype)
    return np.asarray(obj)


def _float8_type(dtype):
    return dtype if dtype in float8_codec.TYPES else None


def _gpu_array(kind, index, shape, dtype, float8_type=None):
    """Zero-filled device memory of ``shape`` x ``dtype`` on a GPU device."""
    device_info(f"{kind}:{index}")
    shape = tuple(int(d) for d in (shape if isinstance(shape, (tuple, list)) else (shape,)))
    if any(d < 0 for d in shape):
        raise ValueError(f"negative dimension in shape {shape}")
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    return array(None, kind, index, _C.device_allocate(kind, index, nbytes), shape, dtype,
                 float8_type)


def asarray(obj, dtype=None, device="cpu"):
    """A tessera array on ``device`` holding a copy of ``obj`` (a NumPy array,
    anything NumPy can convert, or another tessera array on any device). With
    an fp8 ``dtype`` (``tl.float8e4nv``, ``tl.float8e5``) the values are
    rounded to it as kernels round (to nearest even, saturating)."""
    kind, index = _parse_device(device)
    if dtype is None and isinstance(obj, array):
        dtype = obj._float8
    float8_type = _float8_type(dtype)
    if float8_type and isinstance(obj, array) and obj._float8 is float8_type:
        source = obj._stored()  # codes already rounded to this type
    elif float8_type:
        source = float8_codec.encode(_host_values(obj), float8_type)
    else:
        source = _host_values(obj, _numpy_dtype(dtype))
    dt = _numpy_dtype(dtype) or _numpy_dtype(source.dtype)
    if kind == "cpu":
        data = _aligned_empty(source.shape, dt)
        data[...] = source
        return array(data, kind, index, float8_type=float8_type)
    host = np.ascontiguousarray(source, dtype=dt)
    result = _gpu_array(kind, index, host.shape, dt, float8_type)
    result._buffer.copy_from_host(host.ctypes.data, host.nbytes)
    return result


def empty(shape, dtype=tl.float32, device="cpu"):
    """An uninitialized tessera array (``dtype``: a ``tl`` dtype, a NumPy dtype
    or its name). GPU memory starts zero-filled."""
    kind, index = _parse_device(device)
    if kind != "cpu":
        return _gpu_array(kind, index, shape, _numpy_dtype(dtype), _float8_type(dtype))
    return array(_aligned_empty(shape, _numpy_dtype(dtype)), kind, index,
                 float8_type=_float8_type(dtype))


def zeros(shape, dtype=tl.float32, device="cpu"):
    """A tessera array of zeros."""
    result = empty(shape, dtype, device)
    if result._data is not None:
        result._data[...] = 0
    return result
