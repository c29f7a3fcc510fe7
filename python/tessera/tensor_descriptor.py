"""Tensor descriptors made on the host: Triton's
``triton.tools.tensor_descriptor.TensorDescriptor``.

A ``TensorDescriptor`` passed to a kernel arrives there as a
``tl.tensor_descriptor``, as if the kernel had called
``tl.make_tensor_descriptor(base, shape, strides, block_shape)`` itself::

    desc = TensorDescriptor.from_tensor(a, block_shape=[64, 32])
    kernel[grid](desc, ...)        # in the kernel: desc.load([m, k])

The launch passes the base pointer, the shape (int32) and every stride but
the innermost, which is the constant 1; the kernel builds the descriptor from
them, so it runs on every backend. The rules are Triton's, so that a kernel
launched with one runs on both compilers: rank 1 to 5, a contiguous innermost
dimension, the other strides and the base 16-byte aligned, block dimensions
powers of two. ``block_shape`` may be changed after construction (an
autotuner's ``pre_hook`` sets it per config); it is checked again at launch.
"""

from dataclasses import dataclass
from typing import Any, List

__all__ = ["TensorDescriptor"]

_MAX_RANK = 5


@dataclass
class TensorDescriptor:
    base: Any
    shape: List[int]
    strides: List[int]
    block_shape: List[int]
    padding: str = "zero"
    round_f32_to_tf32: bool = False

    def __post_init__(self):
        self.shape = [int(d) for d in self.shape]
        self.strides = [int(s) for s in self.strides]
        self.block_shape = list(self.block_shape)
        self.validate()

    @staticmethod
    def from_tensor(tensor, block_shape, padding="zero", round_f32_to_tf32=False):
        """The descriptor of all of `tensor` (a PyTorch tensor, NumPy array or
        tessera array), moved in blocks of `block_shape`."""
        return TensorDescriptor(tensor, list(tensor.shape), element_strides(tensor), block_shape,
                                padding, round_f32_to_tf32)

    @property
    def itemsize(self):
        return element_size(self.base)

    def validate(self):
        """Raises ValueError naming the first rule this descriptor breaks."""
        rank = len(self.shape)
        if not 1 <= rank <= _MAX_RANK:
            raise ValueError(f"TensorDescriptor: the rank must be 1 to {_MAX_RANK}, got shape "
                             f"{self.shape}")
        for what, values in (("strides", self.strides), ("block_shape", self.block_shape)):
            if len(values) != rank:
                raise ValueError(f"TensorDescriptor: {what} {list(values)} has {len(values)} "
                                 f"entries for a shape of rank {rank} ({self.shape})")
        if any(d <= 0 for d in self.shape):
            raise ValueError(f"TensorDescriptor: shape entries must be positive, got {self.shape}")
        if any(not isinstance(b, int) or b <= 0 or b & (b - 1) for b in self.block_shape):
            raise ValueError("TensorDescriptor: block_shape entries must be powers of two, got "
                             f"{self.block_shape}")
        if self.strides[-1] != 1:
            raise ValueError("TensorDescriptor: the innermost dimension must be contiguous "
                             f"(stride 1), got strides {self.strides}")
        itemsize = self.itemsize
        for dim, stride in enumerate(self.strides[:-1]):
            if stride * itemsize % 16:
                raise ValueError(f"TensorDescriptor: strides must be multiples of 16 bytes; "
                                 f"strides[{dim}] = {stride} elements of {itemsize} bytes is not")
        if self.padding not in ("zero", "nan"):
            raise ValueError(f"TensorDescriptor: padding must be 'zero' or 'nan', got "
                             f"{self.padding!r}")
        if self.padding == "nan" and not is_floating(self.base):
            raise ValueError("TensorDescriptor: padding 'nan' needs a floating-point base")
        if self.round_f32_to_tf32:
            raise ValueError("TensorDescriptor: round_f32_to_tf32 (a TMA rounding mode) is not "
                             "supported by Tessera")

    def extent_bytes(self):
        """Bytes from the base to the end of the descriptor's last element."""
        last = sum((d - 1) * s for d, s in zip(self.shape, self.strides))
        return (last + 1) * self.itemsize


def element_size(array):
    dtype = getattr(array, "dtype", None)
    itemsize = getattr(dtype, "itemsize", None)
    if not isinstance(itemsize, int):
        raise TypeError(f"TensorDescriptor: the base must be an array or tensor with a dtype, got "
                        f"{type(array).__name__}")
    return itemsize


def is_floating(array):
    dtype = array.dtype
    floating = getattr(dtype, "is_floating_point", None)  # PyTorch
    if floating is not None:
        return bool(floating)
    return getattr(dtype, "kind", "") == "f"  # NumPy and tessera arrays


def element_strides(array):
    """The strides of `array` in elements: PyTorch's and tessera's
    ``stride()``, NumPy's byte strides divided by the element size."""
    stride = getattr(array, "stride", None)
    if callable(stride):
        return list(stride())
    itemsize = element_size(array)
    strides = list(getattr(array, "strides", ()))
    if any(s % itemsize for s in strides):
        raise ValueError(f"TensorDescriptor: strides of {strides} bytes are not whole elements of "
                         f"{itemsize} bytes")
    return [s // itemsize for s in strides]
