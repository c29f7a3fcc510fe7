"""tessera.language (imported as ``tl``): Triton's names for what the tile IR
supports. These functions are meant to be called inside a ``@tessera.jit``
kernel; the code generator (tessera.jit) makes the builder and the current
source position available to them through ``_state``.

Every operation goes through tessera._C.Builder, the same C++ KernelBuilder the
C++ EDSL uses, which applies Triton's typing rules (promotion, broadcasting,
pointer arithmetic) and reports misuse as a CompilationError at the kernel's
file:line:col.
"""

import builtins
import functools
import math as _math
import sys as _sys
import threading
import types as _types

from .errors import CompilationError
from .libdevice_functions import FUNCTIONS as _LIBDEVICE_FUNCTIONS

__all__ = [
    # types
    "dtype", "pointer_type", "constexpr", "tensor", "tensor_descriptor", "block_ptr",
    "int1", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float8e4nv", "float8e5",
    "float16", "bfloat16", "float32", "float64", "pi32_t",
    # program
    "program_id", "num_programs",
    # creation
    "arange", "zeros", "zeros_like", "full",
    # memory
    "load", "store", "atomic_add", "atomic_max", "atomic_min", "atomic_and", "atomic_or",
    "atomic_xor", "atomic_xchg", "atomic_cas", "atomic_load", "atomic_store",
    "make_tensor_descriptor", "load_tensor_descriptor",
    "store_tensor_descriptor", "make_block_ptr", "advance",
    # math
    "dot", "sum", "max", "min", "argmax", "argmin", "cumsum", "cumprod", "xor_sum", "reduce_or",
    "reduce", "associative_scan", "where", "exp", "exp2", "log", "log2", "sqrt", "rsqrt",
    "sigmoid", "abs", "sin", "cos", "erf", "floor", "ceil", "maximum", "minimum", "clamp",
    "PropagateNan", "add", "sub", "mul", "fma", "cdiv", "fdiv", "div_rn", "softmax", "umulhi",
    "swizzle2d", "extern_elementwise", "inline_asm_elementwise", "extra",
    # sorting and reversing (ordering.py)
    "sort", "topk", "bitonic_merge", "flip",
    # random numbers (random.py)
    "randint", "randint4x", "rand", "rand4x", "randn", "randn4x", "philox", "philox_impl",
    "uint_to_uniform_float", "pair_uniform_to_normal",
    # shapes
    "cast", "to_tensor", "broadcast_to", "broadcast", "reshape", "view", "trans", "permute",
    "expand_dims", "squeeze", "unsqueeze", "ravel", "join", "split", "interleave", "cat",
    "gather", "histogram", "item",
    # hints and debugging
    "multiple_of", "max_contiguous", "max_constancy", "assume", "debug_barrier", "device_print", "static_print",
    "static_assert", "device_assert", "expect_zero", "static_range", "range", "condition",
]

# ---------------------------------------------------------------------------
# Builder state: set by the code generator while it compiles a kernel.
# ---------------------------------------------------------------------------


class _State(threading.local):
    builder = None
    loc = ("<unknown>", 0, 0)


_state = _State()


def _builder(what="this function"):
    if _state.builder is None:
        raise RuntimeError(f"{what} can only be called inside a @tessera.jit kernel")
    return _state.builder


def _loc():
    return _state.loc


def _error(message):
    file, line, col = _state.loc
    raise CompilationError(message, file, line, col)


def builtin(fn):
    """Marks a function the code generator may call with tensors."""
    fn._tessera_builtin = True
    return fn


# ---------------------------------------------------------------------------
# Types
# ---------------------------------------------------------------------------


class dtype:
    """A scalar element type (Triton's ``tl.dtype``)."""

    def __init__(self, name, ir, kind, bits, signed=True):
        self.name = name        # Triton's spelling: fp32, int32, ...
        self.ir = ir            # the MLIR element type: f32, i32, ...
        self.kind = kind        # "int", "float" or "ptr"
        self.primitive_bitwidth = bits
        self.signed = signed

    def is_floating(self):
        return self.kind == "float"

    def is_int(self):
        return self.kind == "int"

    def is_bool(self):
        return self.kind == "int" and self.primitive_bitwidth == 1

    def is_int_signed(self):
        return self.kind == "int" and self.signed

    def is_int_unsigned(self):
        return self.kind == "int" and not self.signed

    def is_ptr(self):
        return False

    # A float type's stored mantissa bits and exponent bias.
    _FLOAT_FORMATS = {"f16": (10, 15), "bf16": (7, 127), "f32": (23, 127), "f64": (52, 1023),
                      "f8E4M3FN": (3, 7), "f8E5M2": (2, 15)}

    def _float_format(self, what):
        if self.kind != "float":
            _error(f"{self.name} is not a floating-point type: it has no {what}")
        return self._FLOAT_FORMATS[self.ir]

    @property
    def fp_mantissa_width(self):
        """The bits of a float type's stored mantissa (fp32: 23)."""
        return self._float_format("mantissa width")[0]

    @property
    def exponent_bias(self):
        """A float type's exponent bias (fp32: 127, float8e4nv: 7)."""
        return self._float_format("exponent bias")[1]

    @property
    def itemsize(self):
        """Bytes per element (int1: 0, as Triton's)."""
        return self.primitive_bitwidth // 8

    @property
    def int_bitwidth(self):
        if self.kind != "int":
            _error(f"{self.name} is not an integer type: it has no int_bitwidth")
        return self.primitive_bitwidth

    def get_int_max_value(self):
        bits = self.int_bitwidth
        return 2**bits - 1 if not self.signed else 2**(bits - 1) - 1

    def get_int_min_value(self):
        bits = self.int_bitwidth
        return 0 if not self.signed else -2**(bits - 1)

    def is_fp8(self):
        return self.ir in ("f8E4M3FN", "f8E5M2")

    def is_fp8e4nv(self):
        return self.ir == "f8E4M3FN"

    def is_fp8e5(self):
        return self.ir == "f8E5M2"

    def is_standard_floating(self):
        return self.ir in ("f16", "bf16", "f32", "f64")

    def is_block(self):
        return False

    def is_fp16(self):
        return self is float16

    def is_bf16(self):
        return self is bfloat16

    def is_fp32(self):
        return self is float32

    def is_fp64(self):
        return self is float64

    @property
    def scalar(self):
        return self

    def ir_type(self, builder):
        return builder.type(self.ir)

    def __repr__(self):
        return f"tl.{_PUBLIC_NAMES.get(self.name, self.name)}"

    def __str__(self):
        return self.name

    def __eq__(self, other):
        return isinstance(other, dtype) and type(other) is type(self) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def _key(self):
        return (self.name,)


for _name in ("int1", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"):
    setattr(dtype, f"is_{_name}", lambda self, name=_name: self.name == name)


class pointer_type(dtype):
    """A pointer to elements of ``element_ty`` (Triton's ``tl.pointer_type``)."""

    def __init__(self, element_ty):
        super().__init__("*" + element_ty.name, None, "ptr", 64, False)
        self.element_ty = element_ty

    def is_ptr(self):
        return True

    def ir_type(self, builder):
        return builder.ptr_type(self.element_ty.ir_type(builder))

    def __repr__(self):
        return f"pointer<{self.element_ty!r}>"

    def _key(self):
        return ("ptr", self.element_ty._key())


class _tensor_descriptor_type(dtype):
    def __init__(self, element_ty, block_shape):
        super().__init__("tensordesc", None, "desc", 64, False)
        self.element_ty = element_ty
        self.block_shape = list(block_shape)

    def _key(self):
        return ("desc", self.element_ty._key(), tuple(self.block_shape))


# As in Triton, a boolean is unsigned: True (1) is greater than False (0) in
# comparisons, maximum and minimum, which the signless i1 leaves to the sign.
int1 = dtype("int1", "i1", "int", 1, signed=False)
int8 = dtype("int8", "i8", "int", 8)
int16 = dtype("int16", "i16", "int", 16)
int32 = dtype("int32", "i32", "int", 32)
int64 = dtype("int64", "i64", "int", 64)
# Unsigned integers live in the signless IR integer of their width: loads,
# stores, + - * and bitwise ops keep the bits; the ops whose result depends on
# the sign (division, remainder, >>, comparisons, max/min, conversions) are
# picked by the dtype (docs/python-guide.md, "Unsigned integers").
uint8 = dtype("uint8", "i8", "int", 8, signed=False)
uint16 = dtype("uint16", "i16", "int", 16, signed=False)
uint32 = dtype("uint32", "i32", "int", 32, signed=False)
uint64 = dtype("uint64", "i64", "int", 64, signed=False)
_UNSIGNED = {8: uint8, 16: uint16, 32: uint32, 64: uint64}
float8e4nv = dtype("fp8e4nv", "f8E4M3FN", "float", 8)
float8e5 = dtype("fp8e5", "f8E5M2", "float", 8)
float16 = dtype("fp16", "f16", "float", 16)
bfloat16 = dtype("bf16", "bf16", "float", 16)
float32 = dtype("fp32", "f32", "float", 32)
float64 = dtype("fp64", "f64", "float", 64)
pi32_t = pointer_type(int32)

_PUBLIC_NAMES = {"fp16": "float16", "bf16": "bfloat16", "fp32": "float32", "fp64": "float64",
                 "fp8e4nv": "float8e4nv", "fp8e5": "float8e5"}
_BY_IR = {t.ir: t for t in (int1, int8, int16, int32, int64, float8e4nv, float8e5, float16,
                            bfloat16, float32, float64)}
_BY_NAME = {t.name: t for t in (int1, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
                                float8e4nv, float8e5, float16, bfloat16, float32, float64)}
_BY_NAME.update({"i1": int1, "i8": int8, "i16": int16, "i32": int32, "i64": int64, "u8": uint8,
                 "u16": uint16, "u32": uint32, "u64": uint64,
                 "f16": float16, "f32": float32, "f64": float64, "float16": float16,
                 "bfloat16": bfloat16, "float32": float32, "float64": float64})


def _dtype_of_ir(t):
    """The dtype of a _C.Type element type."""
    if t.is_pointer:
        return pointer_type(_dtype_of_ir(t.pointee))
    if t.is_tensor_desc:
        return _tensor_descriptor_type(_dtype_of_ir(t.block_element), t.block_shape)
    name = str(t)
    if name not in _BY_IR:
        raise TypeError(f"no tessera dtype for IR type {name}")
    return _BY_IR[name]


class constexpr:
    """A compile-time constant. As a parameter annotation (``BLOCK: tl.constexpr``)
    it makes the parameter a specialization constant; as a value it wraps one."""

    def __init__(self, value):
        self.value = value.value if isinstance(value, constexpr) else value

    def __repr__(self):
        return f"constexpr[{self.value!r}]"

    def __index__(self):
        return self.value.__index__()

    def __bool__(self):
        return bool(self.value)

    def __eq__(self, other):
        return self.value == _unwrap(other)

    def __hash__(self):
        return hash(self.value)

    def __int__(self):
        return int(self.value)

    def __float__(self):
        return float(self.value)


def _unwrap(value):
    return value.value if isinstance(value, constexpr) else value


def _toward_zero(a, b):
    """a // b as C and Triton's integer tensors divide: rounded toward zero."""
    quotient = builtins.abs(a) // builtins.abs(b)
    return -quotient if (a < 0) != (b < 0) else quotient


class _LocalInt(int):
    """A Python integer assigned to a kernel's local variable (`n = 7`).
    Triton makes such a local a scalar tensor typed as a literal (int32,
    uint32, int64 or uint64, the first that holds it): its `//` and `%` round
    toward zero, it has `.to()` and `.dtype`, and next to a tensor it keeps
    its type (`int8_tensor + n` is int32). Tessera keeps it a number, which
    may still size a tl.arange, with those semantics; arithmetic on it stays
    a local integer."""

    def __floordiv__(self, other):
        if not isinstance(other, int) or isinstance(other, bool):
            return int.__floordiv__(self, other)
        return _LocalInt(_toward_zero(int(self), int(other)))

    def __rfloordiv__(self, other):
        if not isinstance(other, int) or isinstance(other, bool):
            return int.__rfloordiv__(self, other)
        return _LocalInt(_toward_zero(int(other), int(self)))

    def __mod__(self, other):
        if not isinstance(other, int) or isinstance(other, bool):
            return int.__mod__(self, other)
        return _LocalInt(int(self) - int(other) * _toward_zero(int(self), int(other)))

    def __rmod__(self, other):
        if not isinstance(other, int) or isinstance(other, bool):
            return int.__rmod__(self, other)
        return _LocalInt(int(other) - int(self) * _toward_zero(int(other), int(self)))

    def __neg__(self):
        return _LocalInt(-int(self))

    @property
    def dtype(self):
        return _literal_dtype(int(self))

    def _tensor(self):
        return _to_tensor(int(self))

    def to(self, dtype, fp_downcast_rounding=None, bitcast=False):
        return cast(self._tensor(), dtype, fp_downcast_rounding, bitcast)

    cast = to


def _same_arithmetic(number_type, name):
    method = getattr(number_type, name)

    def arithmetic(self, other):
        result = method(self, other)
        # int + float is float's to compute: the local stays a local.
        if result is NotImplemented and isinstance(other, float) and number_type is int:
            result = getattr(float, name)(float(self), other)
        return _local(result)
    return arithmetic


for _name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__lshift__",
              "__rlshift__", "__rshift__", "__rrshift__", "__and__", "__rand__", "__or__",
              "__ror__", "__xor__", "__rxor__", "__truediv__", "__rtruediv__"):
    setattr(_LocalInt, _name, _same_arithmetic(int, _name))


def _float_literal_dtype(value):
    """The dtype Triton gives a float local: float32, or float64 for a finite,
    non-zero magnitude float32 cannot hold (a float32 subnormal included)."""
    magnitude = builtins.abs(value)
    if magnitude in (0.0, float("inf")) or value != value or \
            2.0**-126 <= magnitude <= (2 - 2.0**-23) * 2.0**127:
        return float32
    return float64


class _LocalFloat(float):
    """A Python float assigned to a kernel's local variable (`scale = 0.5`).
    Triton makes such a local a float32 scalar tensor (float64 where float32
    cannot hold it): next to an fp16 tile it computes in float32
    (`fp16_tile * scale` is float32, `fp16_tile * 0.5` is fp16), and it has
    `.to()` and `.dtype`. Tessera keeps it a number with those semantics;
    arithmetic on it stays a local float."""

    @property
    def dtype(self):
        return _float_literal_dtype(float(self))

    def _tensor(self):
        b = _builder()
        return tensor(b.literal_float(float(self), self.dtype.ir_type(b), _loc()), self.dtype)

    def to(self, dtype, fp_downcast_rounding=None, bitcast=False):
        return cast(self._tensor(), dtype, fp_downcast_rounding, bitcast)

    cast = to

    def __neg__(self):
        return _LocalFloat(-float(self))


for _name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
              "__rtruediv__", "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__pow__",
              "__rpow__"):
    setattr(_LocalFloat, _name, _same_arithmetic(float, _name))


def _local(value):
    """`value` as an assignment to a local keeps it: plain integers and floats
    (in tuples too) become _LocalInt and _LocalFloat."""
    if type(value) in (tuple, list):
        return type(value)(_local(v) for v in value)
    if type(value) is int:
        return _LocalInt(value)
    if type(value) is float:
        return _LocalFloat(value)
    return value


def _is_scalar_const(value):
    return isinstance(value, (bool, int, float)) and not isinstance(value, tensor)


# Triton's TRITON_MAX_TENSOR_NUMEL: a tile of more elements is refused there
# too, and one of 2^20 already takes the CPU backend a minute to compile.
MAX_TENSOR_NUMEL = TRITON_MAX_TENSOR_NUMEL = 1 << 20


class tensor:
    """A value of the kernel: a scalar or a tile (block) of elements."""

    def __init__(self, handle, dtype_=None):
        self.handle = handle
        self.shape = [int(d) for d in handle.shape]
        self.dtype = dtype_ if dtype_ is not None else _dtype_of_ir(handle.element_type)
        if self.numel > MAX_TENSOR_NUMEL:
            _error(f"a tile of shape {self.shape} holds {self.numel} elements, more than the "
                   f"{MAX_TENSOR_NUMEL} a tile may hold (Triton's limit too)")

    # -- introspection -------------------------------------------------------
    @property
    def type(self):
        return self

    @property
    def element_ty(self):
        return self.dtype

    @property
    def scalar(self):
        return self.dtype

    @property
    def numel(self):
        n = 1
        for d in self.shape:
            n *= d
        return n

    @property
    def ndim(self):
        return len(self.shape)

    def is_block(self):
        return bool(self.shape)

    def __repr__(self):
        shape = "[" + ", ".join(map(str, self.shape)) + "]" if self.shape else ""
        return f"tensor<{self.dtype!r}{shape}>"

    def __bool__(self):
        _error("a tensor cannot be used as a Python bool here; use `&`, `|`, tl.where, "
               "or an `if` statement on a scalar")

    def __iter__(self):
        _error("iterating over a tensor is not supported")

    def __len__(self):
        if not self.shape:
            _error("len() of a scalar")
        return self.shape[0]

    __hash__ = object.__hash__

    # -- arithmetic ------------------------------------------------------------
    def __add__(self, other):
        return _binary("add", self, other)

    def __radd__(self, other):
        return _binary("add", other, self)

    def __sub__(self, other):
        return _binary("sub", self, other)

    def __rsub__(self, other):
        return _binary("sub", other, self)

    def __mul__(self, other):
        return _binary("mul", self, other)

    def __rmul__(self, other):
        return _binary("mul", other, self)

    def __truediv__(self, other):
        return _binary("truediv", self, other)

    def __rtruediv__(self, other):
        return _binary("truediv", other, self)

    def __floordiv__(self, other):
        return _floordiv(self, other)

    def __rfloordiv__(self, other):
        return _floordiv(other, self)

    def __mod__(self, other):
        return _binary("mod", self, other)

    def __rmod__(self, other):
        return _binary("mod", other, self)

    def __and__(self, other):
        return _binary("and", self, other)

    def __rand__(self, other):
        return _binary("and", other, self)

    def __or__(self, other):
        return _binary("or", self, other)

    def __ror__(self, other):
        return _binary("or", other, self)

    def __xor__(self, other):
        return _binary("xor", self, other)

    def __rxor__(self, other):
        return _binary("xor", other, self)

    def __lshift__(self, other):
        return _binary("shl", self, other)

    def __rlshift__(self, other):
        return _binary("shl", other, self)

    # As in Triton, the tensor's own sign picks the shift, whatever the
    # operands promote to: int32 >> uint32 shifts in copies of the sign bit.
    def __rshift__(self, other):
        return _binary("shr", self, other, unsigned_op=self.dtype.is_int_unsigned())

    def __rrshift__(self, other):
        return _binary("shr", other, self, unsigned_op=self.dtype.is_int_unsigned())

    def __neg__(self):
        return _unary("neg", self)

    def __pos__(self):
        return self

    def __invert__(self):
        return _unary("not", self)

    def __abs__(self):
        return _unary("abs", self)

    def __lt__(self, other):
        return _compare("lt", self, other)

    def __le__(self, other):
        return _compare("le", self, other)

    def __gt__(self, other):
        return _compare("gt", self, other)

    def __ge__(self, other):
        return _compare("ge", self, other)

    def __eq__(self, other):
        return _compare("eq", self, other)

    def __ne__(self, other):
        return _compare("ne", self, other)

    def logical_and(self, other):
        return _binary("and", _to_bool(self), _to_bool(_to_tensor(other)))

    def logical_or(self, other):
        return _binary("or", _to_bool(self), _to_bool(_to_tensor(other)))

    def logical_not(self):
        return _compare("eq", _to_bool(self), False)

    # -- indexing: x[None, :], x[:, None] ----------------------------------------
    def __getitem__(self, index):
        if not isinstance(index, tuple):
            index = (index,)
        result = self
        axis = 0
        for item in index:
            item = _unwrap(item)
            if item is None:
                result = tensor(_builder().expand_dims(result.handle, axis, _loc()), result.dtype)
                axis += 1
            elif isinstance(item, slice) and item == slice(None, None, None):
                axis += 1
            else:
                _error(f"unsupported tensor index {item!r}: only None (a new axis) and ':' "
                       "are supported")
        if axis != len(result.shape):
            _error(f"index with {axis} entries for a tensor of rank {len(result.shape)}")
        return result

    # -- methods ---------------------------------------------------------------
    def to(self, dtype, fp_downcast_rounding=None, bitcast=False):
        return cast(self, dtype, fp_downcast_rounding, bitcast)

    cast = to

    @property
    def T(self):
        return trans(self)

    def sum(self, axis=None, keep_dims=False, dtype=None):
        return sum(self, axis, keep_dims=keep_dims, dtype=dtype)

    def max(self, axis=None, return_indices=False, keep_dims=False):
        return max(self, axis, return_indices=return_indices, keep_dims=keep_dims)

    def min(self, axis=None, return_indices=False, keep_dims=False):
        return min(self, axis, return_indices=return_indices, keep_dims=keep_dims)

    def argmax(self, axis, keep_dims=False):
        return argmax(self, axis, keep_dims=keep_dims)

    def argmin(self, axis, keep_dims=False):
        return argmin(self, axis, keep_dims=keep_dims)

    def cumsum(self, axis=0, reverse=False, dtype=None):
        return cumsum(self, axis, reverse, dtype)

    def cumprod(self, axis=0, reverse=False, dtype=None):
        return cumprod(self, axis, reverse, dtype)

    def reshape(self, *shape, can_reorder=False):
        return reshape(self, *shape, can_reorder=can_reorder)

    def view(self, *shape):
        return reshape(self, *shape, can_reorder=True)

    def trans(self, *dims):
        return trans(self, *dims)

    def permute(self, *dims):
        return permute(self, *dims)

    def split(self):
        return split(self)

    def expand_dims(self, axis):
        return expand_dims(self, axis)

    def gather(self, index, axis):
        return gather(self, index, axis)

    def histogram(self, num_bins, mask=None):
        return histogram(self, num_bins, mask)

    def broadcast_to(self, *shape):
        return broadcast_to(self, *shape)

    def item(self):
        return item(self)

    def ravel(self):
        return ravel(self)

    def exp(self):
        return exp(self)

    def exp2(self):
        return exp2(self)

    def log(self):
        return log(self)

    def log2(self):
        return log2(self)

    def sqrt(self):
        return sqrt(self)

    def rsqrt(self):
        return rsqrt(self)

    def sigmoid(self):
        return sigmoid(self)

    def abs(self):
        return abs(self)

    def store(self, *args, **kwargs):  # tensor descriptors only
        _error("store() is a method of tensor descriptors; use tl.store(pointer, value)")


for _name in list(vars(tensor)):
    _member = getattr(tensor, _name)
    if callable(_member) and not _name.startswith("__"):
        _member._tessera_builtin = True


class tensor_descriptor:
    """A tensor descriptor (``tl.make_tensor_descriptor``, or a host
    ``TensorDescriptor`` passed to a kernel): its handle, shape (int32
    scalars), strides (int64 scalars) and block shape. ``.load(offsets)`` /
    ``.store(offsets, value)`` move one block: out-of-bounds elements read as
    the padding (zero, or NaN with ``padding_option="nan"``) and are not
    written. ``.atomic_add(offsets, value)`` and its min/max/and/or/xor
    siblings update one block in place, skipping out-of-bounds elements.
    ``.gather(rows, column)`` / ``.scatter(value, rows, column)`` move the
    rows of a 2-D descriptor whose block is one row."""

    def __init__(self, handle, element_ty, block_shape, shape, strides):
        self.handle = handle
        self.dtype = element_ty
        self.block_shape = list(block_shape)
        self.shape = tuple(shape)
        self.strides = tuple(strides)

    def __repr__(self):
        return f"tensor_descriptor<{self.dtype!r}, {self.block_shape}>"

    @builtin
    def load(self, offsets):
        offsets = [_to_tensor(o) for o in _as_list(offsets)]
        h = _builder().descriptor_load(self.handle, [o.handle for o in offsets], _loc())
        return tensor(h, self.dtype)

    @builtin
    def store(self, offsets, value):
        offsets = [_to_tensor(o) for o in _as_list(offsets)]
        value = _as_pointee(_to_tensor(value, self.dtype), self.dtype)
        _builder().descriptor_store(self.handle, [o.handle for o in offsets], value.handle, _loc())

    def _update(self, kind, offsets, value):
        offsets = [_to_tensor(o) for o in _as_list(offsets)]
        value = _as_pointee(_to_tensor(value, self.dtype), self.dtype)
        _builder().descriptor_atomic(kind, self.handle, [o.handle for o in offsets], value.handle,
                                     _loc(), unsigned=self.dtype.is_int_unsigned())

    @builtin
    def gather(self, rows, column):
        """The tile [len(rows), block columns]: row rows[i] of the tensor from
        `column` on, out-of-bounds elements read as the padding."""
        h = _builder().descriptor_gather(self.handle, _to_tensor(rows).handle,
                                         _to_tensor(column).handle, _loc())
        return tensor(h, self.dtype)

    @builtin
    def scatter(self, value, rows, column):
        """Writes row i of `value` to row rows[i] of the tensor from `column`
        on, skipping out-of-bounds elements."""
        value = _as_pointee(_to_tensor(value, self.dtype), self.dtype)
        _builder().descriptor_scatter(self.handle, value.handle,
                                      _to_tensor(rows).handle, _to_tensor(column).handle, _loc())

    @builtin
    def atomic_add(self, offsets, value):
        self._update("add", offsets, value)

    @builtin
    def atomic_min(self, offsets, value):
        self._update("min", offsets, value)

    @builtin
    def atomic_max(self, offsets, value):
        self._update("max", offsets, value)

    @builtin
    def atomic_and(self, offsets, value):
        self._update("and", offsets, value)

    @builtin
    def atomic_or(self, offsets, value):
        self._update("or", offsets, value)

    @builtin
    def atomic_xor(self, offsets, value):
        self._update("xor", offsets, value)


class block_ptr:
    """A block pointer (``tl.make_block_ptr``): a compile-time object holding the
    base pointer, the shape, strides and offsets of the parent tensor (scalar
    tensors) and the constant block shape and order. ``tl.advance`` returns a
    new one; ``tl.load``/``tl.store`` expand it into a tile of pointers
    base + sum_i (offsets[i] + arange(0, block_shape[i])) * strides[i], masked
    by 0 <= index < shape on the dimensions named in ``boundary_check``.
    A block pointer assigned in a dynamic loop or ``if`` is carried as its
    base, shape, strides and offsets."""

    def __init__(self, base, shape, strides, offsets, block_shape, order):
        self.base = base                    # scalar pointer tensor
        self.shape = list(shape)            # int64 scalar tensors
        self.strides = list(strides)        # int64 scalar tensors
        self.offsets = list(offsets)        # int32 scalar tensors
        self.block_shape = list(block_shape)
        self.order = list(order)
        self.dtype = pointer_type(base.dtype.element_ty)

    @property
    def element_ty(self):
        return self.dtype.element_ty

    def __repr__(self):
        return f"block_ptr<{self.element_ty!r}, {self.block_shape}>"

    # -- carrying through scf regions (used by tessera.jit) --------------------
    def _flatten(self):
        return [self.base] + self.shape + self.strides + self.offsets

    def _unflatten(self, handles):
        handles = list(handles)
        r = len(self.block_shape)
        parts = self._flatten()
        values = [tensor(h, p.dtype) for h, p in zip(handles, parts)]
        return block_ptr(values[0], values[1:1 + r], values[1 + r:1 + 2 * r], values[1 + 2 * r:],
                         self.block_shape, self.order)

    def _same_layout(self, other):
        return (isinstance(other, block_ptr) and self.block_shape == other.block_shape
                and self.order == other.order and self.element_ty == other.element_ty)

    def __bool__(self):
        _error("a block pointer cannot be used as a Python bool")

    def _arith(self, *args):
        _error("arithmetic on a block pointer is not supported; move it with tl.advance(ptr, offsets)")

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _arith


# ---------------------------------------------------------------------------
# Conversions between Python values and tensors
# ---------------------------------------------------------------------------


def _peer_type(peer):
    """The IR element type a literal should adopt next to `peer` (a tensor or dtype)."""
    b = _builder()
    if isinstance(peer, tensor):
        peer = peer.dtype
    if isinstance(peer, dtype) and peer.kind in ("int", "float"):
        return peer.ir_type(b)
    return None


def _peer_dtype(peer):
    return peer.dtype if isinstance(peer, tensor) else peer


def _as_signless(value, bits):
    """The signed integer of `bits` bits with the bits of the unsigned `value`."""
    return value - (1 << bits) if value >= 1 << (bits - 1) else value


def _to_tensor(value, peer=None):
    """`value` as a tensor; Python numbers become constants typed as Triton types
    literals (adopting the element type of `peer` when it fits)."""
    value = _unwrap(value)
    if isinstance(value, tensor):
        return value
    b = _builder()
    if isinstance(value, bool):
        return tensor(b.constant_int(int(value), b.type("i1"), _loc()), int1)
    if isinstance(value, int):
        p, peer_dtype = _peer_type(peer), _peer_dtype(peer)
        # A boolean does not lend its type to a literal (`flag + 1` is int32).
        if p is not None and peer_dtype.is_int_unsigned() and peer_dtype is not int1:
            bits = peer_dtype.primitive_bitwidth
            return tensor(b.constant_int(_as_signless(value % (1 << bits), bits), p, _loc()),
                          peer_dtype)
        if p is None and not -2**31 <= value < 2**31:
            return _wide_literal(value)
        return tensor(b.literal_int(value, p, _loc()))
    if isinstance(value, float):
        return tensor(b.literal_float(value, _peer_type(peer), _loc()))
    if isinstance(value, tensor_descriptor):
        _error("a tensor descriptor cannot be used as a value here")
    if isinstance(value, block_ptr):
        _error("a block pointer cannot be used as a value here; read it with tl.load(ptr)")
    _error(f"expected a tensor or a number, got {_describe(value)}")


def _literal_dtype(value):
    """The dtype Triton gives the integer literal `value`: int32, uint32,
    int64 or uint64, the first that holds it."""
    for dtype_, low, high in ((int32, -2**31, 2**31), (uint32, 0, 2**32), (int64, -2**63, 2**63),
                              (uint64, 0, 2**64)):
        if low <= value < high:
            return dtype_
    _error(f"integer constant {value} does not fit in 64 bits")


def _wide_literal(value):
    """An integer literal outside int32, typed as Triton types it."""
    dtype_ = _literal_dtype(value)
    b = _builder()
    bits = dtype_.primitive_bitwidth
    return tensor(b.constant_int(_as_signless(value, bits), dtype_.ir_type(b), _loc()), dtype_)


def _check_fits(value, peer):
    """A Python integer operand next to an integer tensor takes the tensor's
    type: as in Triton, one outside its range (a negative one next to an
    unsigned tensor included) is an error, not a value wrapped silently."""
    d = peer.dtype
    if d.kind != "int" or d.primitive_bitwidth == 1:
        return
    bits = d.primitive_bitwidth
    if d.is_int_unsigned() and value < 0:
        _error(f"cannot combine the negative constant {value} with a tensor of {d.name}, an "
               "unsigned type; cast one of them")
    low, high = (0, 2**bits) if d.is_int_unsigned() else (-2**(bits - 1), 2**(bits - 1))
    if not low <= value < high:
        _error(f"integer constant {value} is out of range for {d.name}, the type of "
               "the tensor it is used with; cast one of them")


def _describe(value):
    value = _unwrap(value)
    if isinstance(value, (tensor, block_ptr)):
        return repr(value)
    if value is None:
        return "None"
    if isinstance(value, dtype):
        return f"the dtype {value!r}"
    if isinstance(value, (tuple, list)):
        return f"a {type(value).__name__} {value!r}"
    return f"{type(value).__name__} {value!r}"


def _widen_unsigned(t):
    """An unsigned tensor as the signed type that holds its values (uint8 and
    uint16 in int32, uint32 in int64), for ops that read integers as signed
    offsets or indices; uint64 stays as it is."""
    if isinstance(t, tensor) and t.dtype.is_int_unsigned() and t.dtype is not uint64:
        return _cast(t, int32 if t.dtype.primitive_bitwidth < 32 else int64)
    return t


def _integer_promotion(a, b):
    """The integer type `a` and `b` meet in: C's usual arithmetic conversions,
    as Triton applies them (the wider wins; at equal width, the unsigned)."""
    if a.signed == b.signed:
        return a if a.primitive_bitwidth > b.primitive_bitwidth else b
    unsigned, signed = (a, b) if b.signed else (b, a)
    return unsigned if unsigned.primitive_bitwidth >= signed.primitive_bitwidth else signed


def _with_unsigned_promoted(tensors):
    """`tensors` converted to the one type they meet in where one of them is
    unsigned (the builder's own promotion reads integers as signed): integers
    by _integer_promotion, else the builder's float type."""
    dtypes = [t.dtype for t in tensors]
    if not builtins.any(d.is_int_unsigned() for d in dtypes) or \
            builtins.any(d.is_ptr() for d in dtypes):
        return tensors
    if all(d.is_int() for d in dtypes):
        common = functools.reduce(_integer_promotion, dtypes)
    else:
        common = _dtype_of_ir(_builder().promoted_type([t.handle for t in tensors]))
    return tuple(_cast(t, common) for t in tensors)


def _operands(*values, division=False):
    """`values` as tensors of one type where one is unsigned: Python numbers
    adopt the type of the first tensor among them, or, where none is, of the
    last value. For `division`, integer tensors must agree on their sign, as
    Triton requires of `/`, `//` and `%`."""
    values = [_unwrap(v) for v in values]
    values = [v._tensor() if isinstance(v, (_LocalInt, _LocalFloat)) else v for v in values]
    tensors = [v for v in values if isinstance(v, tensor)]
    peer = tensors[0] if tensors else None
    if peer is None:
        peer = values[-1] = _to_tensor(values[-1])
    for v in values:
        if isinstance(v, int) and not isinstance(v, bool):
            _check_fits(v, peer)
    operands = tuple(_to_tensor(v, peer) for v in values)
    if division and len({t.dtype.signed for t in operands if t.dtype.is_int()}) > 1:
        names = " and ".join(t.dtype.name for t in operands)
        _error(f"cannot use /, // or % with {names} because they have different signedness "
               "(as in Triton: the result would hardly be useful); cast them to one signedness")
    return _with_unsigned_promoted(operands)


def _division_operands(a, b):
    """`a` and `b` as Triton's `/` and `%` take them: where every float among
    them is narrower than 32 bits (f16, bf16, fp8), both in float32."""
    floats = [t.dtype for t in (a, b) if t.dtype.is_floating()]
    if floats and all(d.primitive_bitwidth < 32 for d in floats):
        return _cast(a, float32), _cast(b, float32)
    return a, b


def _is_unsigned(*tensors):
    return all(t.dtype.is_int_unsigned() for t in tensors)


def _binary(op, lhs, rhs, unsigned_op=None):
    """`lhs op rhs`; the op's unsigned form where the operands meet in an
    unsigned type, or where `unsigned_op` says so (the result keeps the type
    the operands meet in)."""
    a, b = _operands(lhs, rhs, division=op in ("div", "truediv", "div_rn", "mod"))
    if op in ("truediv", "div_rn") and _is_unsigned(a, b):
        a, b = _cast(a, float32), _cast(b, float32)
    if op in ("truediv", "mod"):
        a, b = _division_operands(a, b)
    if a.dtype.is_ptr() or b.dtype.is_ptr():
        # The offset is signed in the IR; an unsigned one is widened to keep its value.
        a, b = _widen_unsigned(a), _widen_unsigned(b)
        h = _builder().binary(op, a.handle, b.handle, _loc())
        return tensor(h, a.dtype if a.dtype.is_ptr() else b.dtype)
    unsigned = _is_unsigned(a, b)
    h = _builder().binary(op, a.handle, b.handle, _loc(),
                          unsigned=unsigned if unsigned_op is None else unsigned_op)
    return tensor(h, a.dtype if unsigned else None)


def _compare(op, lhs, rhs):
    a, b = _operands(lhs, rhs)
    return tensor(_builder().compare(op, a.handle, b.handle, _loc(), unsigned=_is_unsigned(a, b)))


def _unary(op, x):
    x = _to_tensor(x)
    if x.dtype.is_int_unsigned():
        if op == "abs":
            return x
        if op not in ("neg", "not"):
            _error(f"{op} needs a floating-point operand, got {x.dtype.name}; convert it with "
                   ".to(tl.float32) first")
        return tensor(_builder().unary(op, x.handle, _loc()), x.dtype)
    return tensor(_builder().unary(op, x.handle, _loc()))


def _floordiv(lhs, rhs):
    a, b = _operands(lhs, rhs, division=True)
    if a.dtype.is_floating() or b.dtype.is_floating():
        return _unary("floor", _binary("truediv", a, b))
    # Like Triton: integer `//` rounds toward zero (C semantics).
    return _binary("div", a, b)


def _to_bool(x):
    x = _to_tensor(x)
    if x.dtype is int1:
        return x
    return _compare("ne", x, 0)


def _as_dtype(value, what="dtype"):
    value = _unwrap(value)
    if isinstance(value, dtype):
        return value
    if isinstance(value, str) and value in _BY_NAME:
        return _BY_NAME[value]
    # torch.float32, numpy.float32 and friends
    name = getattr(value, "__name__", None) or str(value).replace("torch.", "")
    aliases = {"float32": float32, "float16": float16, "bfloat16": bfloat16, "float64": float64,
               "int8": int8, "int16": int16, "int32": int32, "int64": int64, "uint8": uint8,
               "uint16": uint16, "uint32": uint32, "uint64": uint64,
               "bool": int1, "half": float16, "float": float32, "double": float64}
    if name in aliases:
        return aliases[name]
    _error(f"{what} must be a tl dtype such as tl.float32, got {_describe(value)}")


def _cast(x, dtype_, bitcast=False):
    dtype_ = _as_dtype(dtype_)
    x = _to_tensor(x)
    b = _builder()
    if x.dtype == dtype_:
        return x
    h = b.cast(x.handle, dtype_.ir_type(b), _loc(), bool(bitcast), x.dtype.is_int_unsigned(),
               dtype_.is_int_unsigned())
    return tensor(h, dtype_)


@builtin
def cast(input, dtype, fp_downcast_rounding=None, bitcast=False):
    """`input` converted to `dtype` (Triton's ``tl.cast``, also ``x.to``): values
    rounded to nearest even, or the same bits with ``bitcast=True``."""
    rounding = _unwrap(fp_downcast_rounding)
    if rounding not in (None, "rtne"):
        if rounding == "rtz":
            _error("fp_downcast_rounding='rtz' is not supported: conversions round to "
                   "nearest even ('rtne')")
        _error(f"fp_downcast_rounding must be 'rtne' or 'rtz', got {_describe(rounding)}")
    return _cast(input, dtype, _unwrap(bitcast))


@builtin
def to_tensor(x):
    """`x` as a tensor: a Python number becomes a constant typed as a literal."""
    return _to_tensor(x)


def _as_list(value):
    value = _unwrap(value)
    if isinstance(value, (list, tuple)):
        return [_unwrap(v) for v in value]
    return [value]


def _const_int(value, what):
    value = _unwrap(value)
    if isinstance(value, bool) or not isinstance(value, int):
        _error(f"{what} must be a compile-time integer (a literal or a tl.constexpr), "
               f"got {_describe(value)}")
    return value


def _shape(args, what):
    if len(args) == 1 and isinstance(_unwrap(args[0]), (list, tuple)):
        args = _unwrap(args[0])
    return [_const_int(d, f"{what} dimensions") for d in args]


def _axis(axis, what="axis"):
    axis = _unwrap(axis)
    if axis is None:
        return None
    return _const_int(axis, what)


# ---------------------------------------------------------------------------
# Programs
# ---------------------------------------------------------------------------


@builtin
def program_id(axis=0):
    """The index of this program along `axis` (0, 1 or 2) of the grid."""
    return tensor(_builder().program_id(_const_int(axis, "program_id axis"), _loc()))


@builtin
def num_programs(axis=0):
    """The number of programs along `axis` of the grid."""
    return tensor(_builder().num_programs(_const_int(axis, "num_programs axis"), _loc()))


# ---------------------------------------------------------------------------
# Making tiles
# ---------------------------------------------------------------------------


@builtin
def arange(start, end):
    """The int32 tile [start, end); its length must be a power of two."""
    return tensor(_builder().arange(_const_int(start, "arange start"),
                                    _const_int(end, "arange end"), _loc()))


@builtin
def zeros(shape, dtype):
    """A tile of `shape` filled with zeros of `dtype`."""
    b = _builder()
    dtype = _as_dtype(dtype)
    return tensor(b.zeros(_shape([shape], "zeros"), dtype.ir_type(b), _loc()), dtype)


@builtin
def zeros_like(input):
    input = _to_tensor(input)
    return zeros(input.shape, input.dtype)


@builtin
def full(shape, value, dtype):
    """A tile of `shape` filled with `value` converted to `dtype`."""
    dtype = _as_dtype(dtype)
    shape = _shape([shape], "full")
    scalar = _cast(_to_tensor(value, dtype), dtype)
    if scalar.shape:
        _error(f"full needs a scalar value, got {scalar!r}")
    if not shape:
        return scalar
    return tensor(_builder().full(shape, scalar.handle, _loc()), dtype)


# ---------------------------------------------------------------------------
# Memory
# ---------------------------------------------------------------------------


def _pointer(pointer, what):
    pointer = _unwrap(pointer)
    if isinstance(pointer, tensor_descriptor):
        _error(f"{what} takes a pointer; call .{what}(offsets) on a tensor descriptor")
    if isinstance(pointer, block_ptr):
        _error(f"{what} does not take a block pointer (only tl.load and tl.store do)")
    if not isinstance(pointer, tensor):
        _error(f"{what} needs a pointer or a tile of pointers, got {_describe(pointer)}")
    return pointer


def _mask(mask):
    mask = _unwrap(mask)
    if mask is None:
        return None
    return _to_tensor(mask)


@builtin
def load(pointer, mask=None, other=None, boundary_check=(), padding_option="", cache_modifier="",
         eviction_policy="", volatile=False):
    """Loads the elements `pointer` points to; masked-off lanes give `other`
    (undefined without it). On a block pointer: the block, masked on the
    dimensions in `boundary_check`, padded per `padding_option` ("zero", "nan",
    or "" for undefined)."""
    if isinstance(_unwrap(pointer), block_ptr):
        if _unwrap(mask) is not None or _unwrap(other) is not None:
            _error("`mask` and `other` cannot be given when loading through a block pointer; "
                   "use boundary_check and padding_option")
        ptrs, bmask = _block_ptr_tiles(_unwrap(pointer), boundary_check, "load")
        pad = _unwrap(padding_option)
        pad = "" if pad is None else pad
        if pad not in ("", "zero", "nan"):
            _error(f"padding_option must be '', 'zero' or 'nan', got {pad!r}")
        elem = _unwrap(pointer).element_ty
        if pad == "nan" and not elem.is_floating():
            _error(f"padding_option 'nan' needs a floating-point block pointer, got {elem!r}")
        if bmask is None or pad == "":
            other = None
        else:
            other = 0 if pad == "zero" else float("nan")
        return load(ptrs, mask=bmask, other=other, cache_modifier=cache_modifier,
                    eviction_policy=eviction_policy, volatile=volatile)
    pointer = _pointer(pointer, "load")
    if _unwrap(boundary_check) or _unwrap(padding_option):
        _error("boundary_check and padding_option apply to block pointers (tl.make_block_ptr); "
               "use a mask with a pointer tile")
    mask = _mask(mask)
    other = _unwrap(other)
    pointee = pointer.dtype.element_ty if pointer.dtype.is_ptr() else None
    if other is not None:
        other = _as_pointee(_to_tensor(other, pointee), pointee)
    h = _builder().load(pointer.handle, mask.handle if mask is not None else None,
                        other.handle if other is not None else None,
                        _modifier(cache_modifier), _eviction(eviction_policy), bool(_unwrap(volatile)),
                        _loc())
    return tensor(h, pointee if pointee is not None and pointee.is_int_unsigned() else None)


@builtin
def store(pointer, value, mask=None, boundary_check=(), cache_modifier="", eviction_policy=""):
    """Stores `value` (converted to the pointee type, broadcast to the pointer's
    shape) where `mask` is true. On a block pointer: the block, skipping the
    elements outside the dimensions in `boundary_check`."""
    if isinstance(_unwrap(pointer), block_ptr):
        if _unwrap(mask) is not None:
            _error("`mask` cannot be given when storing through a block pointer; use boundary_check")
        bp = _unwrap(pointer)
        v = _unwrap(value)
        if isinstance(v, tensor) and v.shape and v.shape != bp.block_shape:
            _error(f"the value stored through a block pointer of block shape {bp.block_shape} "
                   f"has shape {v.shape}")
        ptrs, bmask = _block_ptr_tiles(bp, boundary_check, "store")
        return store(ptrs, value, mask=bmask, cache_modifier=cache_modifier,
                     eviction_policy=eviction_policy)
    pointer = _pointer(pointer, "store")
    if _unwrap(boundary_check):
        _error("boundary_check applies to block pointers (tl.make_block_ptr); use a mask with a "
               "pointer tile")
    pointee = pointer.dtype.element_ty if pointer.dtype.is_ptr() else None
    value = _as_pointee(_to_tensor(value, pointee), pointee)
    mask = _mask(mask)
    _builder().store(pointer.handle, value.handle, mask.handle if mask is not None else None,
                     _modifier(cache_modifier), _eviction(eviction_policy), _loc())


def _as_pointee(value, pointee):
    """`value` converted to the type a load, store or atomic reads or writes
    where either side is unsigned (the builder's own conversion reads and
    writes integers as signed): zero-extended, or by uitofp and fptoui."""
    if isinstance(pointee, dtype) and pointee.kind in ("int", "float") and \
            value.dtype != pointee and (value.dtype.is_int_unsigned() or pointee.is_int_unsigned()):
        return _cast(value, pointee)
    return value


def _modifier(value):
    value = _unwrap(value) or ""
    return value.lstrip(".")


def _eviction(value):
    value = _unwrap(value) or ""
    return value.lstrip(".")


def _sem(sem):
    sem = _unwrap(sem)
    return "acq_rel" if sem is None else sem


def _scope(scope):
    scope = _unwrap(scope)
    return "gpu" if scope is None else scope


def _atomic(kind, pointer, val, mask, sem, scope):
    pointer = _pointer(pointer, f"atomic_{kind}")
    pointee = pointer.dtype.element_ty if pointer.dtype.is_ptr() else None
    val = _as_pointee(_to_tensor(val, pointee), pointee)
    mask = _mask(mask)
    unsigned = pointee is not None and pointee.is_int_unsigned()
    h = _builder().atomic(kind, pointer.handle, val.handle, mask.handle if mask is not None else None,
                          _sem(sem), _scope(scope), _loc(), unsigned=unsigned)
    return tensor(h, pointee if unsigned else None)


@builtin
def atomic_add(pointer, val, mask=None, sem=None, scope=None):
    """Atomically adds `val`; returns the old values."""
    return _atomic("add", pointer, val, mask, sem, scope)


@builtin
def atomic_max(pointer, val, mask=None, sem=None, scope=None):
    return _atomic("max", pointer, val, mask, sem, scope)


@builtin
def atomic_min(pointer, val, mask=None, sem=None, scope=None):
    return _atomic("min", pointer, val, mask, sem, scope)


@builtin
def atomic_and(pointer, val, mask=None, sem=None, scope=None):
    return _atomic("and", pointer, val, mask, sem, scope)


@builtin
def atomic_or(pointer, val, mask=None, sem=None, scope=None):
    return _atomic("or", pointer, val, mask, sem, scope)


@builtin
def atomic_xor(pointer, val, mask=None, sem=None, scope=None):
    return _atomic("xor", pointer, val, mask, sem, scope)


@builtin
def atomic_xchg(pointer, val, mask=None, sem=None, scope=None):
    return _atomic("xchg", pointer, val, mask, sem, scope)


def _atomic_access_sem(sem, default, allowed, what):
    sem = _unwrap(sem)
    sem = default if sem is None else sem
    if sem not in allowed:
        _error(f"{what}: sem must be {' or '.join(map(repr, allowed))}, got {sem!r}")
    return sem


@builtin
def atomic_load(pointer, mask=None, sem=None, scope=None):
    """Triton's ``tl.atomic_load``: the values at `pointer`, read atomically
    with `sem` ("acquire", the default, or "relaxed"); masked-off lanes give
    unspecified values. Done as a read-modify-write that leaves memory as it
    was (an or of 0; for floats an add of -0.0, which keeps every value,
    -0.0 included): the memory must be writable."""
    pointer = _pointer(pointer, "atomic_load")
    sem = _atomic_access_sem(sem, "acquire", ("acquire", "relaxed"), "atomic_load")
    pointee = pointer.dtype.element_ty
    if pointee.primitive_bitwidth not in (32, 64) or pointee.is_ptr():
        _error(f"atomic_load reads 32- or 64-bit integers and floats, not {pointee!r}")
    if pointee.is_floating():
        return _atomic("add", pointer, -0.0, mask, sem, scope)
    return _atomic("or", pointer, 0, mask, sem, scope)


@builtin
def atomic_store(pointer, val, mask=None, sem=None, scope=None):
    """Triton's ``tl.atomic_store``: `val` written atomically with `sem`
    ("release", the default, or "relaxed"), as an atomic exchange whose old
    values are dropped."""
    sem = _atomic_access_sem(sem, "release", ("release", "relaxed"), "atomic_store")
    _atomic("xchg", pointer, val, mask, sem, scope)


@builtin
def atomic_cas(pointer, cmp, val, sem=None, scope=None):
    """Where the element equals `cmp`, replaces it with `val`; returns the old values."""
    pointer = _pointer(pointer, "atomic_cas")
    pointee = pointer.dtype.element_ty if pointer.dtype.is_ptr() else None
    cmp = _as_pointee(_to_tensor(cmp, pointee), pointee)
    val = _as_pointee(_to_tensor(val, pointee), pointee)
    h = _builder().atomic_cas(pointer.handle, cmp.handle, val.handle, _sem(sem), _scope(scope),
                              _loc())
    return tensor(h, pointee if pointee is not None and pointee.is_int_unsigned() else None)


@builtin
def make_tensor_descriptor(base, shape, strides, block_shape, padding_option="zero"):
    """Triton's tensor-descriptor API: ``desc.load([i, j])``, ``desc.store([i, j], x)``;
    elements outside `shape` read as zero, or as NaN with ``padding_option="nan"``."""
    base = _pointer(base, "make_tensor_descriptor")
    block = _shape([block_shape], "block_shape")
    padding = _unwrap(padding_option)
    if padding not in ("zero", "nan"):
        _error(f"make_tensor_descriptor: padding_option must be 'zero' or 'nan', got {padding!r}")
    if padding == "nan" and not base.dtype.element_ty.is_floating():
        _error(f"make_tensor_descriptor: padding_option 'nan' needs floating-point elements, got "
               f"{base.dtype.element_ty!r}")
    shape = _scalar_ints(shape, "tensor descriptor shapes", int32)
    strides = _scalar_ints(strides, "tensor descriptor strides", int64)
    h = _builder().make_tensor_descriptor(base.handle, [s.handle for s in shape],
                                          [s.handle for s in strides], block, padding == "nan",
                                          _loc())
    return tensor_descriptor(h, base.dtype.element_ty, block, shape, strides)


@builtin
def load_tensor_descriptor(desc, offsets):
    """``desc.load(offsets)``."""
    return _descriptor(desc, "load_tensor_descriptor").load(offsets)


@builtin
def store_tensor_descriptor(desc, offsets, value):
    """``desc.store(offsets, value)``."""
    return _descriptor(desc, "store_tensor_descriptor").store(offsets, value)


def _descriptor(value, what):
    value = _unwrap(value)
    if not isinstance(value, tensor_descriptor):
        _error(f"{what} needs a tensor descriptor, got {_describe(value)}")
    return value


def _scalar_ints(values, what, dtype_):
    out = []
    for v in _as_list(values):
        # A Python int becomes a constant of `dtype_` itself, which later
        # passes see as a constant (a stride of 1 makes rows contiguous).
        t = _to_tensor(v, dtype_ if isinstance(_unwrap(v), int) else None)
        if t.shape or not t.dtype.is_int() or t.dtype is int1:
            _error(f"{what} must be integer scalars, got {_describe(v)}")
        out.append(_cast(t, dtype_))
    return out


@builtin
def make_block_ptr(base, shape, strides, offsets, block_shape, order):
    """Triton's block pointer: the block of `block_shape` (constants) at `offsets`
    in the tensor of `shape` and `strides` starting at `base`; `order` (a
    constant permutation of the dimensions) is validated and otherwise a hint."""
    base_ = _unwrap(base)
    if not isinstance(base_, tensor) or base_.shape or not base_.dtype.is_ptr():
        _error(f"make_block_ptr needs a scalar pointer as base, got {_describe(base_)}")
    block = _shape([block_shape], "make_block_ptr block_shape")
    order_ = _shape([order], "make_block_ptr order")
    rank = len(block)
    if rank == 0:
        _error("make_block_ptr needs a block_shape of at least one dimension")
    for what, values in (("shape", shape), ("strides", strides), ("offsets", offsets),
                         ("order", order)):
        n = len(_as_list(values))
        if n != rank:
            _error(f"make_block_ptr: {what} has {n} entries but block_shape has {rank} "
                   f"({block}); shape, strides, offsets, block_shape and order must have the "
                   "same rank")
    for d in block:
        if d <= 0 or d & (d - 1):
            _error(f"make_block_ptr: block_shape dimensions must be powers of two, got {block}")
    if sorted(order_) != list(builtins.range(rank)):
        _error(f"make_block_ptr: order must be a permutation of 0..{rank - 1}, got {order_}")
    shape_ = _scalar_ints(shape, "make_block_ptr shape entries", int64)
    strides_ = _scalar_ints(strides, "make_block_ptr strides", int64)
    offsets_ = _scalar_ints(offsets, "make_block_ptr offsets", int32)
    return block_ptr(base_, shape_, strides_, offsets_, block, order_)


@builtin
def advance(base, offsets):
    """A new block pointer moved by `offsets` (one per dimension)."""
    bp = _unwrap(base)
    if not isinstance(bp, block_ptr):
        _error(f"advance needs a block pointer (tl.make_block_ptr), got {_describe(bp)}")
    n = len(_as_list(offsets))
    if n != len(bp.block_shape):
        _error(f"advance: {n} offsets for a block pointer of rank {len(bp.block_shape)}")
    deltas = _scalar_ints(offsets, "advance offsets", int32)
    new = [_binary("add", o, d) for o, d in zip(bp.offsets, deltas)]
    return block_ptr(bp.base, bp.shape, bp.strides, new, bp.block_shape, bp.order)


def _block_ptr_tiles(bp, boundary_check, what):
    """The tile of pointers of block pointer `bp` and the mask of its checked
    dimensions (None when none is checked)."""
    rank = len(bp.block_shape)
    checks = _unwrap(boundary_check)
    checks = [] if checks is None else _as_list(checks)
    dims = []
    for d in checks:
        d = _const_int(d, f"{what} boundary_check entries")
        if not 0 <= d < rank:
            _error(f"{what}: boundary_check dimension {d} is out of range for a block pointer of "
                   f"rank {rank}")
        if d not in dims:
            dims.append(d)
    offset = None
    mask = None
    for i, size in enumerate(bp.block_shape):
        idx = _binary("add", bp.offsets[i], arange(0, size))
        if rank > 1:
            idx = reshape(idx, [size if j == i else 1 for j in builtins.range(rank)])
        term = _binary("mul", idx, bp.strides[i])
        offset = term if offset is None else _binary("add", offset, term)
        if i in dims:
            inside = _binary("and", _compare("ge", idx, 0), _compare("lt", idx, bp.shape[i]))
            mask = inside if mask is None else _binary("and", mask, inside)
    offset = broadcast_to(offset, bp.block_shape)
    if mask is not None:
        mask = broadcast_to(mask, bp.block_shape)
    return _binary("add", bp.base, offset), mask


# ---------------------------------------------------------------------------
# Math
# ---------------------------------------------------------------------------


@builtin
def dot(input, other, acc=None, input_precision=None, allow_tf32=None, max_num_imprecise_acc=None,
        out_dtype=float32):
    """input @ other (+ acc): [M, K] x [K, N] -> [M, N], accumulating in f32
    (i32 for int8, f64 for f64)."""
    a, b = _to_tensor(input), _to_tensor(other)
    for t in (a, b):
        if t.dtype.is_int_unsigned():
            _error(f"dot of {t.dtype.name} operands is not supported: integer dots multiply "
                   "int8 (as in Triton); convert the operands")
    precision = _unwrap(input_precision)
    if precision is None:
        allow = _unwrap(allow_tf32)
        precision = "ieee" if allow is False else "tf32"
    precision = {"tf32x3": "tf32x3", "tf32": "tf32", "ieee": "ieee"}.get(precision)
    if precision is None:
        _error(f"input_precision must be 'tf32', 'tf32x3' or 'ieee', got {input_precision!r}")
    if a.dtype is not float32:  # the precision applies to f32 inputs only (tf32: the default)
        precision = "tf32"
    # None: no bound, as Triton's default on sm_90 (2**30); fp8 operands only.
    imprecise = _unwrap(max_num_imprecise_acc)
    if imprecise is None:
        imprecise = 0
    if isinstance(imprecise, bool) or not isinstance(imprecise, int) or imprecise < 0:
        _error(f"max_num_imprecise_acc must be a non-negative int, got {max_num_imprecise_acc!r}")
    acc = _unwrap(acc)
    out_dtype = _as_dtype(out_dtype, "out_dtype")
    if acc is None and out_dtype is not float32 and a.dtype.is_floating() and a.dtype is not float64:
        shape = a.shape[:-1] + [b.shape[-1]] if len(a.shape) >= 2 and len(b.shape) >= 2 else None
        if shape:
            acc = zeros(shape, out_dtype)
    acc = _to_tensor(acc) if acc is not None else None
    h = _builder().dot(a.handle, b.handle, acc.handle if acc is not None else None, precision,
                       imprecise, _loc())
    return tensor(h)


def _reduce(kind, input, axis, keep_dims):
    x = _to_tensor(input)
    unsigned = _is_unsigned(x)
    h = _builder().reduce(kind, x.handle, _axis(axis), bool(_unwrap(keep_dims)), _loc(),
                          unsigned=unsigned)
    return tensor(h, x.dtype if unsigned and kind in ("sum", "max", "min") else None)


def _extremum_operand(input):
    """`input` as Triton's max and min (without indices) reduce it: floats
    narrower than 32 bits in float32, narrower integers in int32."""
    x = _to_tensor(input)
    if x.dtype.primitive_bitwidth < 32 and not x.dtype.is_ptr():
        return _cast(x, float32 if x.dtype.is_floating() else int32)
    return x


def _accumulation_operand(input, dtype):
    """`input` in the type Triton's sum, cumsum and cumprod accumulate in:
    `dtype` when given, else int32 for signed integers narrower than 32 bits
    and uint32 for unsigned ones, booleans included (so that sums of bytes
    and counts of booleans do not wrap)."""
    x = _to_tensor(input)
    if _unwrap(dtype) is not None:
        return _cast(x, dtype)
    if x.dtype.is_int() and x.dtype.primitive_bitwidth < 32:
        return _cast(x, uint32 if x.dtype.is_int_unsigned() else int32)
    return x


@builtin
def sum(input, axis=None, keep_dims=False, dtype=None):
    """The sum along `axis` (all elements when None), in `dtype` when given;
    small integers sum in int32."""
    return _reduce("sum", _accumulation_operand(input, dtype), axis, keep_dims)


@builtin
def max(input, axis=None, return_indices=False, return_indices_tie_break_left=True, keep_dims=False):
    """The maximum along `axis` (float32 for narrower floats, int32 for narrower
    integers, as Triton); with return_indices, (values of the input's type,
    int32 indices)."""
    if _unwrap(return_indices):
        return (_reduce("max", input, axis, keep_dims), _reduce("argmax", input, axis, keep_dims))
    return _reduce("max", _extremum_operand(input), axis, keep_dims)


@builtin
def min(input, axis=None, return_indices=False, return_indices_tie_break_left=True, keep_dims=False):
    """The minimum along `axis`, in the types `max` takes; with return_indices,
    (values of the input's type, int32 indices)."""
    if _unwrap(return_indices):
        return (_reduce("min", input, axis, keep_dims), _reduce("argmin", input, axis, keep_dims))
    return _reduce("min", _extremum_operand(input), axis, keep_dims)


@builtin
def argmax(input, axis, tie_break_left=True, keep_dims=False):
    """The int32 index of the first maximum along `axis`."""
    return _reduce("argmax", input, axis, keep_dims)


@builtin
def argmin(input, axis, tie_break_left=True, keep_dims=False):
    """The int32 index of the first minimum along `axis`."""
    return _reduce("argmin", input, axis, keep_dims)


@builtin
def cumsum(input, axis=0, reverse=False, dtype=None):
    """The inclusive prefix sum along `axis`, in `dtype` when given (integers
    narrower than 32 bits in int32, or uint32, otherwise, as Triton)."""
    x = _accumulation_operand(input, dtype)
    return tensor(_builder().cumsum(x.handle, _const_int(axis, "cumsum axis"),
                                    bool(_unwrap(reverse)), _loc()), x.dtype)


def _combining(what, input, combine_fn, build):
    """The tiles of `input` (one, or a tuple of tiles of one shape) combined by
    `combine_fn` through `build(handles, combine)`: one tile, or a tuple."""
    several = isinstance(_unwrap(input), (tuple, list))
    inputs = [_to_tensor(x) for x in (_unwrap(input) if several else [input])]
    if not callable(combine_fn):
        _error(f"{what} needs a combine function (a @jit function), got {_describe(combine_fn)}")

    def combine(handles):
        n = len(inputs)
        values = [tensor(h, x.dtype) for h, x in zip(handles, inputs + inputs)]
        result = _unwrap(combine_fn(*values[:n], *values[n:]))
        results = list(result) if isinstance(result, (tuple, list)) else [result]
        # Numbers take their tile's type; the builder checks the count.
        return [_to_tensor(r, inputs[i] if i < n else None).handle for i, r in enumerate(results)]

    outs = [tensor(h, x.dtype) for h, x in zip(build([x.handle for x in inputs], combine), inputs)]
    return tuple(outs) if several else outs[0]


@builtin
def reduce(input, axis, combine_fn, keep_dims=False):
    """`input` (a tile, or a tuple of tiles of one shape) reduced along `axis`
    (all elements when None) by `combine_fn`, a @jit function of two sides'
    scalars (all of one side, then all of the other) that returns one scalar
    per tile. It must be associative and commutative."""
    axis = _unwrap(axis)
    axis = None if axis is None else _const_int(axis, "reduce axis")
    return _combining("reduce", input, combine_fn, lambda handles, combine: _builder().reduce_with(
        handles, axis, bool(_unwrap(keep_dims)), combine, _loc()))


@builtin
def associative_scan(input, axis, combine_fn, reverse=False):
    """The inclusive scan of `input` (a tile, or a tuple of tiles of one shape)
    along `axis` by `combine_fn` (the running scalars, then the next
    element's; associative), from the end with `reverse`."""
    axis = _const_int(axis, "associative_scan axis")
    return _combining("associative_scan", input, combine_fn,
                      lambda handles, combine: _builder().scan_with(
                          handles, axis, bool(_unwrap(reverse)), combine, _loc()))


@builtin
def cumprod(input, axis=0, reverse=False, dtype=None):
    """The inclusive prefix product along `axis`, in `dtype` when given
    (integers narrower than 32 bits in int32 otherwise, as Triton)."""
    x = _accumulation_operand(input, dtype)
    return associative_scan(x, axis, lambda a, b: _binary("mul", a, b), reverse)


@builtin
def xor_sum(input, axis=None, keep_dims=False):
    """The bitwise xor of the integers along `axis` (all when None)."""
    x = _to_tensor(input)
    if not x.dtype.is_int():
        _error(f"xor_sum needs integer elements, got {x!r}")
    return reduce(x, axis, lambda a, b: _binary("xor", a, b), keep_dims)


@builtin
def reduce_or(input, axis, keep_dims=False):
    """The bitwise or of the integers along `axis`."""
    x = _to_tensor(input)
    if not x.dtype.is_int():
        _error(f"reduce_or needs integer elements, got {x!r}")
    return reduce(x, axis, lambda a, b: _binary("or", a, b), keep_dims)


@builtin
def where(condition, x, y):
    """`x` where `condition` is true, else `y` (broadcast together)."""
    cond = _to_tensor(condition)
    x, y = _operands(x, y)
    if cond.dtype is not int1:
        cond = _to_bool(cond)
    h = _builder().where(cond.handle, x.handle, y.handle, _loc())
    return tensor(h, x.dtype if x.dtype.is_ptr() or _is_unsigned(x, y) else None)


def _make_unary(op, doc):
    def fn(x):
        return _unary(op, x)
    fn.__name__ = op
    fn.__qualname__ = op
    fn.__doc__ = doc
    return builtin(fn)


exp = _make_unary("exp", "e ** x")
exp2 = _make_unary("exp2", "2 ** x")
log = _make_unary("log", "The natural logarithm.")
log2 = _make_unary("log2", "The base-2 logarithm.")
sqrt = _make_unary("sqrt", "The square root.")
sqrt_rn = sqrt
rsqrt = _make_unary("rsqrt", "1 / sqrt(x)")
sigmoid = _make_unary("sigmoid", "1 / (1 + exp(-x))")
abs = _make_unary("abs", "|x|")
sin = _make_unary("sin", "The sine.")
cos = _make_unary("cos", "The cosine.")
erf = _make_unary("erf", "The error function.")
floor = _make_unary("floor", "Rounds down.")
ceil = _make_unary("ceil", "Rounds up.")


class PropagateNan:
    """What `maximum`, `minimum` and `clamp` make of a NaN operand (Triton's
    ``tl.PropagateNan``): NONE lets a number win, ALL makes the result NaN."""
    NONE = "none"
    ALL = "all"


def _propagates_nan(propagate_nan):
    value = _unwrap(propagate_nan)
    if value is None or value == PropagateNan.NONE:
        return False
    if value == PropagateNan.ALL:
        return True
    _error(f"propagate_nan must be tl.PropagateNan.NONE or tl.PropagateNan.ALL, "
           f"got {_describe(value)}")


def _extremum(op, x, y, propagate_nan):
    return _binary(op + "_nan" if _propagates_nan(propagate_nan) else op, x, y)


@builtin
def maximum(x, y, propagate_nan=PropagateNan.NONE):
    """The elementwise maximum: a NaN loses to a number, unless `propagate_nan`
    is tl.PropagateNan.ALL."""
    return _extremum("maximum", x, y, propagate_nan)


@builtin
def minimum(x, y, propagate_nan=PropagateNan.NONE):
    """The elementwise minimum: a NaN loses to a number, unless `propagate_nan`
    is tl.PropagateNan.ALL."""
    return _extremum("minimum", x, y, propagate_nan)


@builtin
def clamp(x, min, max, propagate_nan=PropagateNan.NONE):
    """`x` kept within [min, max]; with tl.PropagateNan.ALL a NaN `x` stays NaN."""
    x, lo, hi = _operands(x, min, max)
    unsigned = _is_unsigned(x, lo, hi)
    return tensor(_builder().clamp(x.handle, lo.handle, hi.handle, _propagates_nan(propagate_nan),
                                   _loc(), unsigned=unsigned), x.dtype if unsigned else None)


@builtin
def add(x, y, sanitize_overflow=True):
    """x + y (Triton's ``tl.add``). Integer overflow wraps; Triton checks it
    only in its debug mode, which Tessera does not have."""
    return _binary("add", x, y)


@builtin
def sub(x, y, sanitize_overflow=True):
    """x - y (Triton's ``tl.sub``)."""
    return _binary("sub", x, y)


@builtin
def mul(x, y, sanitize_overflow=True):
    """x * y (Triton's ``tl.mul``)."""
    return _binary("mul", x, y)


@builtin
def fma(x, y, z):
    """x * y + z, rounded once."""
    x, y, z = _operands(x, y, z)
    return tensor(_builder().fma(x.handle, y.handle, z.handle, _loc()))


def _dtype_name(d):
    d = _unwrap(d)
    if isinstance(d, dtype):
        return d.name
    if isinstance(d, str) and d in _BY_NAME:
        return _BY_NAME[d].name
    _error(f"{d!r} is not a dtype")


def _call_extern(library, path, args, signatures, pure, what):
    """`args` broadcast together and passed to the function `signatures`
    ({argument dtypes: (symbol, result dtype)}) gives for their dtypes, or,
    where those are not a key, for the dtype they promote to together."""
    if not args:
        _error(f"{what} needs at least one argument")
    values = [_to_tensor(a) for a in args]
    table = {tuple(_dtype_name(d) for d in key): (symbol, _dtype_name(result))
             for key, (symbol, result) in signatures.items()}
    given = tuple(v.dtype.name for v in values)
    key = given
    # libdevice spells unsigned arguments (umulhi's) as the signed types of
    # their widths; an integer result is then unsigned too.
    signless = tuple(_dtype_of_ir(v.handle.element_type).name for v in values)
    spelled_signed = key not in table and _is_unsigned(*values) and signless in table
    if spelled_signed:
        key = signless
    if key not in table:
        values = [_widen_unsigned(v) for v in values]
        common = _dtype_of_ir(_builder().promoted_type([v.handle for v in values]))
        values = [v.to(common) for v in values]
        key = (common.name,) * len(values)
    if key not in table:
        accepted = " or ".join("(" + ", ".join(k) + ")" for k in sorted(table))
        _error(f"{what} takes {accepted}; got ({', '.join(given)})")
    symbol, result = table[key]
    result = _BY_NAME[result]
    if spelled_signed and result.is_int():
        result = _UNSIGNED[result.primitive_bitwidth]
    b = _builder()
    return tensor(b.extern_elementwise(symbol, library, path or "", [v.handle for v in values],
                                       result.ir_type(b), bool(pure), _loc()), result)


@builtin
def extern_elementwise(lib_name, lib_path, args, arg_type_symbol_dict, is_pure):
    """Triton's ``tl.extern_elementwise``: applies a function of the device
    library `lib_name` (at `lib_path`, "" where the target finds it) to the
    elements of `args`, broadcast together. `arg_type_symbol_dict` maps tuples
    of argument dtypes to ``(symbol, result dtype)``; arguments whose dtypes
    are no key are promoted as a binary operator's operands first. NVIDIA
    targets link libdevice, AMD targets ocml and ockl; elsewhere only the
    libdevice functions that a math op computes run (docs/python-guide.md)."""
    return _call_extern(_unwrap(lib_name), _unwrap(lib_path), list(_unwrap(args)),
                        _unwrap(arg_type_symbol_dict), _unwrap(is_pure), "extern_elementwise")


@builtin
def umulhi(x, y):
    """Triton's ``tl.umulhi``: the high half of the unsigned product of two
    int32 (or int64) values. libdevice's __nv_umulhi on NVIDIA GPUs, its
    arithmetic elsewhere."""
    return _call_extern("libdevice", "", [x, y], _LIBDEVICE_FUNCTIONS["umulhi"], True, "umulhi")


@builtin
def inline_asm_elementwise(asm, constraints, args, dtype, is_pure, pack):
    """Triton's ``tl.inline_asm_elementwise``: `asm` (LLVM's inline assembly
    syntax, ``$0`` the first result, then the arguments; `constraints` such as
    ``"=r,r"`` bind them in that order) runs on every `pack` elements of
    `args`, broadcast together (each operand a vector of `pack` elements when
    pack > 1, within 32 bits). `dtype` is the result's dtype, or a sequence
    of them for several results (a tuple is returned). The assembly is the
    GPU's own: NVIDIA targets take PTX, AMD targets GCN; the CPU, Vulkan and
    the interpreter cannot run it."""
    dtypes = _unwrap(dtype)
    several = isinstance(dtypes, (tuple, list))
    dtypes = [_BY_NAME[_dtype_name(d)] for d in (dtypes if several else [dtypes])]
    args = _unwrap(args)
    values = [_to_tensor(_unwrap(a)) for a in (args if isinstance(args, (tuple, list)) else [args])]
    b = _builder()
    handles = b.inline_asm_elementwise(str(_unwrap(asm)), str(_unwrap(constraints)),
                                       [v.handle for v in values],
                                       [d.ir_type(b) for d in dtypes], bool(_unwrap(is_pure)),
                                       int(_unwrap(pack)), _loc())
    results = tuple(tensor(h, d) for h, d in zip(handles, dtypes))
    return results if several else results[0]


@builtin
def fdiv(x, y, ieee_rounding=False):
    """x / y; with ieee_rounding, rounded as IEEE 754 requires (div_rn)."""
    return _binary("div_rn" if _unwrap(ieee_rounding) else "truediv", x, y)


@builtin
def div_rn(x, y):
    """x / y rounded as IEEE 754 requires. `/` on float32 is within 2 ulp on
    NVIDIA GPUs (PTX div.full.f32, as Triton's) and exact elsewhere."""
    return _binary("div_rn", x, y)


@builtin
def swizzle2d(i, j, size_i, size_j, size_g):
    """Triton's swizzle2d: the element (i, j) of a [size_i, size_j] grid,
    numbered row-major, renumbered so that groups of `size_g` rows are walked
    column by column (the last group may have fewer rows): the grouped
    program order of a GEMM. Returns (new_i, new_j)."""
    i, j = _to_tensor(i), _to_tensor(j)
    linear = _binary("add", _binary("mul", i, size_j), j)
    group_size = _binary("mul", size_g, size_j)
    first_row = _binary("mul", _floordiv(linear, group_size), size_g)
    rows = minimum(_binary("sub", size_i, first_row), size_g)
    within = _binary("mod", linear, group_size)
    return (_binary("add", first_row, _binary("mod", within, rows)), _floordiv(within, rows))


@builtin
def cdiv(x, div):
    """ceil(x / div) for integers; computed at compile time for constants."""
    x, div = _unwrap(x), _unwrap(div)
    if not isinstance(x, tensor) and not isinstance(div, tensor):
        return (x + div - 1) // div
    return _floordiv(_binary("sub", _binary("add", x, div), 1), div)


@builtin
def softmax(x, ieee_rounding=False):
    x = _to_tensor(x)
    axis = len(x.shape) - 1
    z = x - max(x, axis, keep_dims=True)
    num = exp(z)
    return num / sum(num, axis, keep_dims=True)


# ---------------------------------------------------------------------------
# Shapes
# ---------------------------------------------------------------------------


@builtin
def broadcast_to(input, *shape):
    """`input` broadcast to `shape`."""
    x = _to_tensor(input)
    return tensor(_builder().broadcast_to(x.handle, _shape(shape, "broadcast_to"), _loc()), x.dtype)


@builtin
def broadcast(input, other):
    """Both operands broadcast to their common shape."""
    a, b = _to_tensor(input), _to_tensor(other)
    shape = _broadcast_shapes(a.shape, b.shape)
    return broadcast_to(a, shape), broadcast_to(b, shape)


def _broadcast_shapes(a, b):
    rank = builtins.max(len(a), len(b))
    a = [1] * (rank - len(a)) + list(a)
    b = [1] * (rank - len(b)) + list(b)
    out = []
    for x, y in zip(a, b):
        if x != y and x != 1 and y != 1:
            _error(f"shapes {a} and {b} cannot be broadcast")
        out.append(y if x == 1 else x)
    return out


@builtin
def reshape(input, *shape, can_reorder=False):
    """`input` with a new shape of as many elements."""
    x = _to_tensor(input)
    return tensor(_builder().reshape(x.handle, _shape(shape, "reshape"), _loc()), x.dtype)


@builtin
def view(input, *shape):
    return reshape(input, *shape, can_reorder=True)


@builtin
def ravel(x, can_reorder=False):
    x = _to_tensor(x)
    return reshape(x, [x.numel])


@builtin
def trans(input, *dims):
    """Transposes a 2-D tile; with dims, the same as permute."""
    x = _to_tensor(input)
    dims = _shape(dims, "trans") if dims else []
    if not dims:
        return tensor(_builder().trans(x.handle, _loc()), x.dtype)
    return permute(x, dims)


@builtin
def permute(input, *dims):
    """The dimensions of `input` reordered: result dim i is input dim dims[i]."""
    x = _to_tensor(input)
    return tensor(_builder().permute(x.handle, _shape(dims, "permute"), _loc()), x.dtype)


@builtin
def join(a, b):
    """`a` and `b` (broadcast to one shape, of one dtype) stacked along a new
    minor dimension of size 2; two scalars give a tile of 2."""
    a, b = _to_tensor(a), _to_tensor(b, a)
    if a.dtype != b.dtype:
        _error(f"join needs two values of one dtype, got {a.dtype!r} and {b.dtype!r}")
    return tensor(_builder().join(a.handle, b.handle, _loc()), a.dtype)


@builtin
def split(a):
    """The two halves of a tile whose last dimension is 2 (scalars from a tile
    of 2): the inverse of `join`."""
    a = _to_tensor(a)
    lhs, rhs = _builder().split(a.handle, _loc())
    return tensor(lhs, a.dtype), tensor(rhs, a.dtype)


@builtin
def interleave(a, b):
    """The elements of `a` and `b` alternating along their last dimension:
    ``join(a, b).reshape(a.shape[:-1] + [2 * a.shape[-1]])``."""
    joined = join(a, b)
    if len(joined.shape) == 1:
        return joined
    return reshape(joined, joined.shape[:-2] + [2 * joined.shape[-2]])


@builtin
def cat(input, other, can_reorder=False, dim=0):
    """`input` then `other` (tiles of one shape and dtype) along `dim`, in
    order (Triton's `can_reorder` only allows a reordering, so it is ignored)."""
    a, b = _to_tensor(input), _to_tensor(other)
    if a.dtype != b.dtype:
        _error(f"cat needs two tiles of one dtype, got {a.dtype!r} and {b.dtype!r}")
    return tensor(_builder().cat(a.handle, b.handle, _const_int(dim, "cat dim"), _loc()), a.dtype)


@builtin
def expand_dims(input, axis):
    """`input` with a new size-1 dimension at `axis` (or at each of a sequence of axes)."""
    x = _to_tensor(input)
    axes = _as_list(axis)
    rank = len(x.shape) + len(axes)
    normalized = []
    for a in axes:
        a = _const_int(a, "expand_dims axis")
        if not -rank <= a < rank:
            _error(f"expand_dims: axis {a} is out of range for a result of rank {rank} "
                   f"(-{rank} <= axis < {rank})")
        normalized.append(a % rank)
    if len(set(normalized)) != len(normalized):
        _error(f"expand_dims: duplicate axes {sorted(normalized)} (after counting negative "
               "ones from the end)")
    for a in sorted(normalized):
        x = tensor(_builder().expand_dims(x.handle, a, _loc()), x.dtype)
    return x


@builtin
def squeeze(x, dim):
    """`x` without its dimension `dim`, which must have length 1."""
    x = _to_tensor(x)
    rank = len(x.shape)
    axis = _const_int(dim, "squeeze dim")
    if not -rank <= axis < rank:
        _error(f"squeeze: dim {axis} is out of range for a tensor of rank {rank}")
    axis %= rank
    if x.shape[axis] != 1:
        _error(f"squeeze: dimension {axis} of a tensor of shape {x.shape} has length "
               f"{x.shape[axis]}, not 1")
    return reshape(x, x.shape[:axis] + x.shape[axis + 1:])


@builtin
def unsqueeze(x, dim):
    """`x` with a new dimension of length 1 at `dim`: the inverse of squeeze."""
    return expand_dims(x, dim)


@builtin
def gather(src, index, axis):
    """``src[.., index[.., i, ..], ..]`` along `axis`: `index` (integers) has
    the rank of `src` and its extents on every other axis, and gives the
    result its shape. An index outside the axis picks an unspecified element
    of the same slice (the interpreter reports it)."""
    src, index = _to_tensor(src), _widen_unsigned(_to_tensor(index))
    h = _builder().gather(src.handle, index.handle, _const_int(axis, "gather axis"), _loc())
    return tensor(h, src.dtype)


@builtin
def item(input):
    """The one element of a single-element tile, as a scalar (Triton's
    ``tl.item`` and ``x.item()``)."""
    x = _to_tensor(input)
    if not x.shape:
        return x
    if x.numel != 1:
        _error(f"item needs a tile of one element, got one of shape {x.shape}")
    # A reduction of one element combines nothing: it gives the element.
    return tensor(_builder().reduce("max", x.handle, None, False, _loc()), x.dtype)


@builtin
def histogram(input, num_bins, mask=None):
    """int32 counts of the values 0 .. num_bins-1 (a power of two) in the 1-D
    integer tensor `input`, leaving out values outside the bins and elements
    where `mask` is false."""
    x = _widen_unsigned(_to_tensor(input))
    bins = _const_int(num_bins, "histogram num_bins")
    mask = None if _unwrap(mask) is None else _to_bool(_to_tensor(mask)).handle
    return tensor(_builder().histogram(x.handle, bins, mask, _loc()), int32)


# ---------------------------------------------------------------------------
# Hints (tile.hint on integers and pointers, read by the contiguity analysis)
# and debugging
# ---------------------------------------------------------------------------


def _hint(name, input, values):
    x = _unwrap(input)
    if not isinstance(x, tensor):
        _error(f"{name} needs a tensor, got {_describe(x)}")
    values = _as_list(values)
    for v in values:
        if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
            _error(f"{name}: values must be positive compile-time integers, got {_describe(v)}")
    if len(values) != 1 and len(values) != builtins.max(len(x.shape), 1):
        _error(f"{name}: {len(values)} values for a tensor of rank {len(x.shape)}")
    if name == "multiple_of":
        for v in values:
            if v & (v - 1):
                _error(f"multiple_of: values must be powers of two, got {v}")
    # The compiler keeps facts along the last dimension; on floats there are
    # none to keep. A scalar has no runs, only divisibility.
    if not (x.dtype.is_int() or x.dtype.is_ptr()) or x.dtype is int1:
        return x
    if not x.shape and name != "multiple_of":
        return x
    value = values[-1]
    if name != "multiple_of":
        value = _math.gcd(value, x.shape[-1])
    facts = {"multiple_of": None, "max_contiguous": None, "max_constancy": None}
    facts[name] = value
    return tensor(_builder().hint(x.handle, facts["multiple_of"], facts["max_contiguous"],
                                  facts["max_constancy"], _loc()), x.dtype)


@builtin
def multiple_of(input, values):
    """Promises that `input` holds multiples of `values`: along the last
    dimension, the first value of each aligned run (or of the whole row) is a
    multiple. A false promise is undefined behaviour."""
    return _hint("multiple_of", input, values)


@builtin
def max_contiguous(input, values):
    """Promises that `input` holds aligned runs of `values` consecutive integers
    (or addresses) along its last dimension."""
    return _hint("max_contiguous", input, values)


@builtin
def max_constancy(input, values):
    """Promises that `input` holds aligned runs of `values` equal values along
    its last dimension."""
    return _hint("max_constancy", input, values)


@builtin
def assume(cond):
    """A promise that the boolean scalar `cond` holds, for the compiler's analyses.

    `tl.assume(pid_n >= 0)` lets the compiler prove that
    `(pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N` holds runs of consecutive
    values without checking each run at run time. A false assumption is
    undefined behaviour (the interpreter reports it).
    """
    cond = _unwrap(cond)
    if isinstance(cond, tensor):
        if cond.dtype is not int1 or cond.shape:
            _error(f"assume needs a boolean scalar condition, got {cond!r}")
        _builder().assume(cond.handle, _loc())
    elif not cond:
        _error("assume on a constant that is false")


@builtin
def debug_barrier():
    """Synchronizes the threads of a program: each waits until all arrive, and
    the global and shared memory accesses made before are visible after it
    (nothing to do on the CPU, where a program is one thread)."""
    _builder().debug_barrier(_loc())


@builtin
def device_print(prefix, *args, hex=False):
    """Prints `args` from every program, one line per element."""
    prefix = _unwrap(prefix)
    if not isinstance(prefix, str):
        _error(f"device_print needs a string prefix, got {_describe(prefix)}")
    values = [_to_tensor(a) for a in args]
    _builder().print(prefix, [v.handle for v in values], bool(_unwrap(hex)), _loc(),
                     unsigned=[v.dtype.is_int_unsigned() for v in values])


@builtin
def device_assert(cond, msg=""):
    """Stops the launch with `msg` where `cond` is false."""
    cond = _unwrap(cond)
    if not isinstance(cond, tensor):
        if not cond:
            _error(f"device_assert on a constant that is false: {msg}")
        return
    _builder().assert_true(_to_bool(cond).handle, str(_unwrap(msg)), _loc())


@builtin
def expect_zero(x, mask):
    """`x`: Triton marks values expected to have underflowed to zero where
    `mask` holds, for its floating-point sanitizer, which Tessera has not."""
    return x


@builtin
def condition(arg1, disable_licm=False):
    """``while tl.condition(c):``, the loop condition `c` (Triton's hint not to
    hoist code out of the loop has nothing to act on here)."""
    return arg1


@builtin
def static_print(*values, sep=" ", end="\n"):
    print(*(_unwrap(v) for v in values), sep=sep, end=end)


@builtin
def static_assert(cond, msg=""):
    """Fails compilation when the compile-time condition `cond` is false."""
    cond = _unwrap(cond)
    if isinstance(cond, tensor):
        _error("static_assert needs a compile-time condition; use tl.device_assert for tensors")
    if not cond:
        msg = _unwrap(msg)
        _error("static_assert failed" + (f": {msg}" if msg else ""))


class range:
    """``for i in tl.range(lo, hi, step)``: a loop in the IR (scf.for).
    ``flatten=True`` marks the loop nest it starts for flattening into one
    loop on GPU targets (tile-flatten-loops: a persistent kernel's tile loop
    and its K loop, so that the pipeline runs across tiles);
    ``warp_specialize=True`` gives the loop (the flattened one) a producer
    warpgroup where its blocks are copied by TMA (on sm_90a, unless the
    launch says tma=False), as the launch option warp_specialize does for
    every such loop; ``num_stages=S`` (S >= 2) asks, on GPU targets, that the
    loop's loads not feeding a dot be issued an iteration ahead (their
    operand dots are pipelined through shared memory by the launch's
    num_stages anyway): a persistent row loop's next row is on its way while
    this one is computed.
    The other pipelining options are accepted and ignored."""

    def __init__(self, arg1, arg2=None, step=None, num_stages=None, loop_unroll_factor=None,
                 disallow_acc_multi_buffer=False, flatten=False, warp_specialize=False):
        if arg2 is None:
            self.start, self.end = 0, arg1
        else:
            self.start, self.end = arg1, arg2
        self.step = 1 if step is None else step
        self.flatten = bool(_unwrap(flatten))
        self.warp_specialize = bool(_unwrap(warp_specialize))
        num_stages = _unwrap(num_stages)
        if num_stages is not None and (not isinstance(num_stages, int) or num_stages < 0):
            _error(f"tl.range's num_stages must be a non-negative integer, got {num_stages!r}")
        self.num_stages = num_stages or 0


class static_range:
    """``for i in tl.static_range(lo, hi, step)``: unrolled at compile time;
    the bounds must be compile-time integers."""

    def __init__(self, arg1, arg2=None, step=None):
        if arg2 is None:
            self.start, self.end = 0, arg1
        else:
            self.start, self.end = arg1, arg2
        self.step = 1 if step is None else step


# tl.math.*: the same functions under Triton's math namespace.
class _Namespace:
    def __init__(self, **items):
        self.__dict__.update(items)


math = _Namespace(exp=exp, exp2=exp2, log=log, log2=log2, sqrt=sqrt, sqrt_rn=sqrt, rsqrt=rsqrt,
                  sigmoid=sigmoid, abs=abs, sin=sin, cos=cos, erf=erf, floor=floor, ceil=ceil,
                  fma=fma, max=maximum, min=minimum, cdiv=cdiv, div_rn=div_rn, fdiv=fdiv,
                  umulhi=umulhi)


# Triton's random numbers and sorting networks, written with the builtins above.
from .ordering import bitonic_merge, flip, sort, topk  # noqa: E402
from .random import (pair_uniform_to_normal, philox, philox_impl, rand, rand4x,  # noqa: E402
                     randint, randint4x, randn, randn4x, uint_to_uniform_float)

# tl.extra.libdevice and tl.extra.cuda.libdevice (Triton's spellings of one
# module), importable as modules too: `from tessera.language.extra import
# libdevice`. Imported last: libdevice builds on _call_extern.
from . import libdevice as _libdevice  # noqa: E402


def _register_extra(package):
    """Makes `package`.extra, .extra.libdevice, .extra.cuda and
    .extra.cuda.libdevice importable; returns the `extra` module."""
    extra_module = _types.ModuleType(package + ".extra", "Triton's tl.extra: libdevice")
    cuda = _types.ModuleType(package + ".extra.cuda", "Triton's tl.extra.cuda: libdevice")
    extra_module.libdevice = cuda.libdevice = _libdevice
    extra_module.cuda = cuda
    for name, module in ((".extra", extra_module), (".extra.cuda", cuda),
                         (".extra.libdevice", _libdevice), (".extra.cuda.libdevice", _libdevice)):
        _sys.modules[package + name] = module
    return extra_module


extra = _register_extra(__name__)
