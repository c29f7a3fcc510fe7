"""tessera.language ops, each checked against NumPy on fresh random data
(ragged sizes included) on the interpreter and the CPU backend; and the
Python constructs @tessera.jit compiles (control flow, tuples, inlined calls)."""

import math

import numpy as np
import pytest

import tessera
import tessera.language as tl

SIZES = [1, 13, 64, 100]

# ---------------------------------------------------------------------------
# Elementwise math
# ---------------------------------------------------------------------------


@tessera.jit
def unary_kernel(x_ptr, out_ptr, n, OP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    if OP == "exp":
        y = tl.exp(x)
    elif OP == "exp2":
        y = tl.exp2(x)
    elif OP == "log":
        y = tl.log(x)
    elif OP == "log2":
        y = tl.log2(x)
    elif OP == "sqrt":
        y = tl.sqrt(x)
    elif OP == "rsqrt":
        y = tl.rsqrt(x)
    elif OP == "sigmoid":
        y = tl.sigmoid(x)
    elif OP == "abs":
        y = tl.abs(x)
    elif OP == "neg":
        y = -x
    elif OP == "sin":
        y = tl.sin(x)
    elif OP == "cos":
        y = tl.cos(x)
    elif OP == "floor":
        y = tl.floor(x)
    elif OP == "ceil":
        y = tl.ceil(x)
    elif OP == "erf":
        y = tl.erf(x)
    else:
        tl.static_assert(False, f"unknown op {OP}")
    tl.store(out_ptr + offs, y, mask=mask)


UNARY = {
    "exp": (np.exp, False), "exp2": (np.exp2, False), "log": (np.log, True),
    "log2": (np.log2, True), "sqrt": (np.sqrt, True), "rsqrt": (lambda x: 1 / np.sqrt(x), True),
    "sigmoid": (lambda x: 1 / (1 + np.exp(-x)), False), "abs": (np.abs, False),
    "neg": (np.negative, False), "sin": (np.sin, False), "cos": (np.cos, False),
    "floor": (np.floor, False), "ceil": (np.ceil, False), "erf": (np.vectorize(math.erf), False),
}


@pytest.mark.parametrize("op", sorted(UNARY))
@pytest.mark.parametrize("n", [13, 100])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_unary(backend, rng, op, n, dtype):
    ref, positive = UNARY[op]
    x = rng.standard_normal(n) * 3
    if positive:
        x = np.abs(x) + 0.01
    x = x.astype(dtype)
    out = np.empty_like(x)
    unary_kernel[(tessera.cdiv(n, 32),)](x, out, n, OP=op, BLOCK=32)
    np.testing.assert_allclose(out, ref(x.astype(np.float64)), rtol=1e-5 if dtype == np.float32 else 1e-12,
                               atol=1e-6)


@tessera.jit
def binary_kernel(x_ptr, y_ptr, out_ptr, n, OP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1)
    y = tl.load(y_ptr + offs, mask=mask, other=1)
    if OP == "+":
        z = x + y
    elif OP == "-":
        z = x - y
    elif OP == "*":
        z = x * y
    elif OP == "/":
        z = x / y
    elif OP == "//":
        z = x // y
    elif OP == "%":
        z = x % y
    elif OP == "div_rn":
        z = tl.div_rn(x, y)
    elif OP == "fdiv_ieee":
        z = tl.fdiv(x, y, ieee_rounding=True)
    elif OP == "&":
        z = x & y
    elif OP == "|":
        z = x | y
    elif OP == "^":
        z = x ^ y
    elif OP == "<<":
        z = x << (y & 7)
    elif OP == ">>":
        z = x >> (y & 7)
    elif OP == "maximum":
        z = tl.maximum(x, y)
    elif OP == "minimum":
        z = tl.minimum(x, y)
    elif OP == "<":
        z = x < y
    elif OP == "<=":
        z = x <= y
    elif OP == ">":
        z = x > y
    elif OP == ">=":
        z = x >= y
    elif OP == "==":
        z = x == y
    elif OP == "!=":
        z = x != y
    elif OP == "where":
        z = tl.where(x > y, x, y * 2)
    elif OP == "min":
        z = min(x, y, 3)
    elif OP == "max":
        z = max(x, y)
    tl.store(out_ptr + offs, z, mask=mask)


def _trunc_div(x, y):
    q = np.abs(x) // np.abs(y)
    return np.where((x < 0) != (y < 0), -q, q)


INT_BINARY = {
    "+": np.add, "-": np.subtract, "*": np.multiply, "//": _trunc_div,
    "%": lambda x, y: x - _trunc_div(x, y) * y, "&": np.bitwise_and, "|": np.bitwise_or,
    "^": np.bitwise_xor, "<<": lambda x, y: x << (y & 7), ">>": lambda x, y: x >> (y & 7),
    "maximum": np.maximum, "minimum": np.minimum, "<": np.less, "<=": np.less_equal,
    ">": np.greater, ">=": np.greater_equal, "==": np.equal, "!=": np.not_equal,
    "where": lambda x, y: np.where(x > y, x, y * 2), "min": lambda x, y: np.minimum(np.minimum(x, y), 3),
    "max": np.maximum,
}
FLOAT_BINARY = {
    "+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide, "div_rn": np.divide,
    "fdiv_ieee": np.divide, "//": lambda x, y: np.floor(x / y), "%": np.fmod, "maximum": np.maximum,
    "minimum": np.minimum, "<": np.less, ">=": np.greater_equal, "==": np.equal,
    "!=": np.not_equal, "where": lambda x, y: np.where(x > y, x, y * 2),
    "min": lambda x, y: np.minimum(np.minimum(x, y), 3), "max": np.maximum,
}


@pytest.mark.parametrize("op", sorted(INT_BINARY))
def test_binary_int(backend, rng, op):
    n = 100
    x = rng.integers(-1000, 1000, n).astype(np.int32)
    y = rng.integers(-50, 50, n).astype(np.int32)
    y[:3] = x[:3]  # some equal elements
    y[y == 0] = 7  # no division by zero, x[:3] included
    ref = INT_BINARY[op](x, y)
    out = np.empty(n, dtype=ref.dtype if ref.dtype != np.bool_ else np.int8)
    binary_kernel[(tessera.cdiv(n, 32),)](x, y, out, n, OP=op, BLOCK=32)
    np.testing.assert_array_equal(out, ref.astype(out.dtype))


@pytest.mark.parametrize("op", sorted(FLOAT_BINARY))
def test_binary_float(backend, rng, op):
    n = 77
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    y[:3] = x[:3]
    ref = FLOAT_BINARY[op](x, y)
    out = np.empty(n, dtype=np.float32 if ref.dtype != np.bool_ else np.int8)
    binary_kernel[(tessera.cdiv(n, 32),)](x, y, out, n, OP=op, BLOCK=32)
    np.testing.assert_allclose(out, ref.astype(out.dtype), rtol=1e-6)


@pytest.mark.parametrize("op", ["div_rn", "fdiv_ieee", "/"])
def test_correctly_rounded_division_is_its_own_op(rng, op):
    # `/` may be approximate on NVIDIA GPUs (div.full.f32, as Triton's);
    # tl.div_rn and fdiv(ieee_rounding=True) are tile.precise_divf everywhere.
    x = rng.standard_normal(32).astype(np.float32)
    out = np.empty_like(x)
    tile_ir = binary_kernel.ir(x, x, out, 32, OP=op, BLOCK=32)
    assert ("tile.precise_divf" in tile_ir) == (op != "/")
    assert ("arith.divf" in tile_ir) == (op == "/")


@tessera.jit
def mixed_kernel(x_ptr, i_ptr, out_ptr, s, n, BLOCK: tl.constexpr):
    # Python literals and scalar arguments next to tiles: Triton's promotion rules.
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)          # f16
    i = tl.load(i_ptr + offs, mask=mask)          # i32
    y = x * 2 + 1                                 # stays f16
    z = i * s + x.to(tl.float32)                  # f32 from i32 * f32 + f32
    w = tl.fma(z, 0.5, y.to(tl.float32))
    tl.store(out_ptr + offs, w + (i / 2), mask=mask)   # i / 2: true division to f32


def test_promotion(backend, rng):
    n = 50
    x = rng.standard_normal(n).astype(np.float16)
    i = rng.integers(-100, 100, n).astype(np.int32)
    out = np.empty(n, dtype=np.float32)
    mixed_kernel[(1,)](x, i, out, 1.5, n, BLOCK=64)
    y = (x * np.float16(2) + np.float16(1)).astype(np.float32)
    z = i.astype(np.float32) * np.float32(1.5) + x.astype(np.float32)
    ref = z * 0.5 + y + i / 2
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------------------
# Conversions
# ---------------------------------------------------------------------------


@tessera.jit
def cast_kernel(x_ptr, out_ptr, n, DTYPE: tl.constexpr, BITCAST: tl.constexpr, BLOCK: tl.constexpr,
                METHOD: tl.constexpr = "to"):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    if METHOD == "to":
        y = x.to(DTYPE, bitcast=BITCAST)
    else:  # Triton's tensor.cast, of which .to is the alias
        y = x.cast(DTYPE, bitcast=BITCAST)
    tl.store(out_ptr + offs, y, mask=mask)


@pytest.mark.parametrize("src,dst", [
    (np.float32, np.float16), (np.float16, np.float64), (np.float32, np.int32),
    (np.int32, np.float32), (np.int64, np.int8), (np.int8, np.int64), (np.uint8, np.float32),
    (np.uint8, np.int32), (np.float64, np.float32)])
def test_to(backend, rng, src, dst):
    n = 37
    if np.issubdtype(src, np.integer):
        info = np.iinfo(src)
        x = rng.integers(max(info.min, -10**6), min(info.max, 10**6), n, endpoint=True).astype(src)
    else:
        x = (rng.standard_normal(n) * 50).astype(src)
    out = np.empty(n, dtype=dst)
    names = {np.float16: tl.float16, np.float32: tl.float32, np.float64: tl.float64,
             np.int8: tl.int8, np.int32: tl.int32, np.int64: tl.int64}
    if np.issubdtype(dst, np.integer) and np.issubdtype(src, np.floating):
        ref = np.trunc(x).astype(dst)
    else:
        ref = x.astype(dst)
    for method in ("to", "cast"):
        out[:] = 0
        cast_kernel[(1,)](x, out, n, DTYPE=names[dst], BITCAST=False, BLOCK=64, METHOD=method)
        np.testing.assert_array_equal(out, ref)


@tessera.jit
def mantissa_and_pointer_cast(x_ptr, out_ptr, bits_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    # Rounds away the low mantissa bits, as Triton's tests use the width.
    keep: tl.constexpr = x.dtype.fp_mantissa_width - 10
    tl.store(out_ptr + offs, tl.full([BLOCK], keep, tl.int32))
    tl.store(bits_ptr + offs, tl.load(x_ptr.to(tl.pi32_t) + offs))


def test_mantissa_width_and_pointer_alias(backend, rng):
    """dtype.fp_mantissa_width (fp32: 23) and tl.pi32_t, Triton's int32 pointer type."""
    assert [t.fp_mantissa_width for t in (tl.float16, tl.bfloat16, tl.float32, tl.float64,
                                          tl.float8e4nv, tl.float8e5)] == [10, 7, 23, 52, 3, 2]
    x = rng.standard_normal(16).astype(np.float32)
    out, bits = np.zeros(16, np.int32), np.zeros(16, np.int32)
    mantissa_and_pointer_cast[(1,)](x, out, bits, BLOCK=16)
    np.testing.assert_array_equal(out, 13)
    np.testing.assert_array_equal(bits, x.view(np.int32))
    with pytest.raises(tessera.CompilationError, match="int32 is not a floating-point type"):
        tl.int32.fp_mantissa_width


@tessera.jit
def pointer_casts(x_ptr, bits_ptr, bytes_ptr, words_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    even = mask & (offs % 2 == 0)
    bits = tl.load(x_ptr.to(tl.pointer_type(tl.int32)) + offs, mask=mask)  # same size
    tl.store(bits_ptr + offs, bits, mask=mask)
    second_byte = tl.load(x_ptr.to(tl.pointer_type(tl.uint8)) + 4 * offs + 1, mask=mask)
    tl.store(bytes_ptr + offs, second_byte, mask=mask)
    words = tl.load(x_ptr.to(tl.pointer_type(tl.int64)) + offs // 2, mask=even)  # pairs
    tl.store(words_ptr + offs // 2, words, mask=even)
    tl.store(x_ptr.to(tl.pointer_type(tl.int16)) + 2 * offs + 1, offs.to(tl.int16), mask=mask)


def check_pointer_casts(rng, put, get):
    """Runs pointer_casts on arrays `put` makes (on a device:
    test_gpu_devices.py) and checks what `get` reads back: each cast pointer
    reads and writes the bytes at its address as its own elements."""
    n, block = 90, 64
    x = rng.standard_normal(n + n % 2).astype(np.float32)
    programs = (n + block - 1) // block
    bits, bytes_, words = (put(np.zeros(n, t)) for t in (np.int32, np.uint8, np.int64))
    x_arg = put(x.copy())
    pointer_casts[(programs,)](x_arg, bits, bytes_, words, n, BLOCK=block)
    np.testing.assert_array_equal(get(bits), x[:n].view(np.int32))
    np.testing.assert_array_equal(get(bytes_), x[:n].view(np.uint8)[1::4])
    np.testing.assert_array_equal(get(words)[:n // 2], x[:n].view(np.int64))
    halves = x.copy().view(np.int16)
    halves[1:2 * n:2] = np.arange(n)  # the high half of each float
    np.testing.assert_array_equal(get(x_arg).view(np.int16), halves)


def test_pointer_casts_address_the_same_bytes(backend, rng):
    check_pointer_casts(rng, lambda a: a, lambda a: a)


def test_dtype_attributes_match_triton():
    """exponent_bias, itemsize, int_bitwidth, the integer limits and the is_*
    predicates, with the values Triton 3.9's dtypes give (booleans unsigned)."""
    floats = (tl.float16, tl.bfloat16, tl.float32, tl.float64, tl.float8e4nv, tl.float8e5)
    assert [t.exponent_bias for t in floats] == [15, 127, 127, 1023, 7, 15]
    assert [t.itemsize for t in floats] == [2, 2, 4, 8, 1, 1]
    assert [t.is_fp8() for t in floats] == [False] * 4 + [True] * 2
    assert [t.is_standard_floating() for t in floats] == [True] * 4 + [False] * 2
    assert tl.float8e4nv.is_fp8e4nv() and tl.float8e5.is_fp8e5() and not tl.float8e5.is_fp8e4nv()
    ints = (tl.int1, tl.int8, tl.int16, tl.int32, tl.int64, tl.uint8, tl.uint16, tl.uint32,
            tl.uint64)
    assert [t.int_bitwidth for t in ints] == [1, 8, 16, 32, 64, 8, 16, 32, 64]
    assert [t.itemsize for t in ints] == [0, 1, 2, 4, 8, 1, 2, 4, 8]
    assert [t.get_int_max_value() for t in ints] == [1, 127, 2**15 - 1, 2**31 - 1, 2**63 - 1, 255,
                                                     2**16 - 1, 2**32 - 1, 2**64 - 1]
    assert [t.get_int_min_value() for t in ints] == [0, -128, -2**15, -2**31, -2**63, 0, 0, 0, 0]
    assert tl.uint16.is_uint16() and not tl.int16.is_uint16() and tl.int1.is_int1()
    assert not tl.float32.is_block()
    with pytest.raises(tessera.CompilationError, match="int32 is not a floating-point type"):
        tl.int32.exponent_bias
    with pytest.raises(tessera.CompilationError, match="fp32 is not an integer type"):
        tl.float32.int_bitwidth


def test_bitcast(backend, rng):
    x = rng.standard_normal(20).astype(np.float32)
    out = np.empty(20, dtype=np.int32)
    cast_kernel[(1,)](x, out, 20, DTYPE=tl.int32, BITCAST=True, BLOCK=32)
    np.testing.assert_array_equal(out, x.view(np.int32))


@tessera.jit
def functional_forms(x_ptr, y_ptr, out_ptr, bits_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.add(x, y), mask=mask)
    tl.store(out_ptr + n + offs, tl.sub(x, 2), mask=mask)
    tl.store(out_ptr + 2 * n + offs, tl.mul(3, y, sanitize_overflow=False), mask=mask)
    tl.store(out_ptr + 3 * n + offs, tl.cast(x, tl.float16, fp_downcast_rounding="rtne"),
             mask=mask)
    tl.store(out_ptr + 4 * n + offs, tl.to_tensor(1.5) + x * 0, mask=mask)
    tl.store(bits_ptr + offs, tl.cast(x, tl.int32, bitcast=True), mask=mask)
    rows = tl.cast(x, tl.int32, bitcast=True).reshape(BLOCK // 8, 8) & 0xFF
    tl.store(bits_ptr + BLOCK + tl.arange(0, BLOCK // 8), tl.reduce_or(rows, 1))


def test_functional_forms(backend, rng):
    """tl.add, tl.sub, tl.mul, tl.cast, tl.to_tensor, tl.reduce_or: Triton's
    functions for operators and conversions."""
    n, block = 50, 64
    x = np.zeros(block, np.float32)
    x[:n] = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(block).astype(np.float32)
    out = np.zeros(5 * n, np.float32)
    bits = np.zeros(block + block // 8, np.int32)
    functional_forms[(1,)](x, y, out, bits, n, BLOCK=block)
    x, y = x[:n], y[:n]
    np.testing.assert_array_equal(out.reshape(5, n), [x + y, x - 2, 3 * y,
                                                      x.astype(np.float16).astype(np.float32),
                                                      np.full(n, 1.5, np.float32)])
    words = np.zeros(block, np.float32)
    words[:n] = x
    np.testing.assert_array_equal(bits[:n], x.view(np.int32))
    np.testing.assert_array_equal(bits[block:],
                                  np.bitwise_or.reduce(words.view(np.int32).reshape(-1, 8) & 0xFF,
                                                       axis=1))


@tessera.jit
def extrema(x_ptr, y_ptr, out_ptr, BLOCK: tl.constexpr, PROPAGATE: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    tl.store(out_ptr + offs, tl.maximum(x, y, propagate_nan=PROPAGATE))
    tl.store(out_ptr + BLOCK + offs, tl.minimum(x, y, PROPAGATE))
    tl.store(out_ptr + 2 * BLOCK + offs, tl.clamp(x, -0.5, 0.5, propagate_nan=PROPAGATE))


@pytest.mark.parametrize("propagate", ["NONE", "ALL"])
def test_propagate_nan(backend, rng, propagate):
    """tl.PropagateNan.ALL: a NaN operand makes a NaN result; NONE (the
    default): the number wins, as fmax and fmin do."""
    block = 32
    x = rng.standard_normal(block).astype(np.float32)
    y = rng.standard_normal(block).astype(np.float32)
    x[:4], y[2:6] = np.nan, np.nan
    out = np.zeros(3 * block, np.float32)
    extrema[(1,)](x, y, out, BLOCK=block, PROPAGATE=getattr(tl.PropagateNan, propagate))
    if propagate == "ALL":
        expected = [np.maximum(x, y), np.minimum(x, y), np.clip(x, -0.5, 0.5)]
    else:
        expected = [np.fmax(x, y), np.fmin(x, y), np.fmin(np.fmax(x, -0.5), 0.5)]
    np.testing.assert_array_equal(out.reshape(3, block), expected)


@pytest.mark.parametrize("call, message", [
    ("x.to(tl.float16, fp_downcast_rounding='rtz')", "fp_downcast_rounding='rtz' is not supported"),
    ("tl.cast(x, tl.float16, fp_downcast_rounding='up')",
     "fp_downcast_rounding must be 'rtne' or 'rtz', got str 'up'"),
    ("tl.maximum(x, x, propagate_nan=True)",
     "propagate_nan must be tl.PropagateNan.NONE or tl.PropagateNan.ALL, got bool True"),
    ("tl.reduce_or(x, 0)", "reduce_or needs integer elements"),
])
def test_conversion_and_nan_options_are_checked(kernel_error, call, message):
    body = ["x = tl.load(x_ptr + tl.arange(0, 8))", f"tl.store(x_ptr + tl.arange(0, 8), {call})"]
    assert message in kernel_error("x_ptr", body, np.zeros(8, np.float32))


# ---------------------------------------------------------------------------
# Reductions and scans
# ---------------------------------------------------------------------------


@tessera.jit
def reduce_kernel(x_ptr, out_ptr, M, N, OP: tl.constexpr, AXIS: tl.constexpr,
                  BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :], mask=mask, other=0)
    if OP == "sum":
        r = tl.sum(x, axis=AXIS)
    elif OP == "max":
        r = tl.max(x, axis=AXIS)
    elif OP == "min":
        r = tl.min(x, axis=AXIS)
    elif OP == "argmax":
        r = tl.argmax(x, axis=AXIS)
    elif OP == "argmin":
        r = tl.argmin(x, axis=AXIS)
    elif OP == "cumsum":
        r = tl.cumsum(x, axis=AXIS)
    elif OP == "method_sum":
        r = x.sum(AXIS)
    if AXIS is None:
        tl.store(out_ptr, r)
    elif OP == "cumsum":
        tl.store(out_ptr + rm[:, None] * N + rn[None, :], r, mask=mask)
    elif AXIS == 0:
        tl.store(out_ptr + rn, r, mask=rn < N)
    else:
        tl.store(out_ptr + rm, r, mask=rm < M)


REDUCE = {"sum": np.sum, "max": np.max, "min": np.min, "argmax": np.argmax, "argmin": np.argmin,
          "method_sum": np.sum}


@pytest.mark.parametrize("op,axis", [(op, axis) for op in sorted(REDUCE) + ["cumsum"]
                                      for axis in (0, 1, None) if not (op == "cumsum" and axis is None)])
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_reduce(backend, rng, op, axis, dtype):
    M, N = 16, 32  # the full tile: masked-off elements would take part in max/min
    x = (rng.standard_normal((M, N)) * 100).astype(dtype)
    x[3, 5] = x[3, 7]  # ties: the first index wins
    if op == "cumsum":
        ref = np.cumsum(x, axis=axis)
        out = np.empty_like(x)
    else:
        ref = REDUCE[op](x, axis=axis) if axis is not None else REDUCE[op](x)
        ref = np.asarray(ref)
        out = np.empty(ref.shape if ref.shape else (1,),
                       dtype=np.int32 if op.startswith("arg") else dtype)
    reduce_kernel[(1,)](x, out, M, N, OP=op, AXIS=axis, BM=16, BN=32)
    np.testing.assert_allclose(out.reshape(ref.shape), ref.astype(out.dtype), rtol=1e-5, atol=1e-3)


@tessera.jit
def reduce_ragged_kernel(x_ptr, sum_ptr, max_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=-float("inf"))
    m, idx = tl.max(x, axis=0, return_indices=True)
    s = tl.sum(tl.where(offs < n, x, 0.0), axis=0)
    tl.store(sum_ptr, s)
    tl.store(max_ptr, m)
    tl.store(max_ptr + 1, idx.to(tl.float32))


@pytest.mark.parametrize("n", SIZES)
def test_reduce_ragged(backend, rng, n):
    x = rng.standard_normal(n).astype(np.float32)
    s = np.empty(1, np.float32)
    m = np.empty(2, np.float32)
    reduce_ragged_kernel[(1,)](x, s, m, n, BLOCK=128)
    np.testing.assert_allclose(s[0], x.astype(np.float64).sum(), rtol=1e-5, atol=1e-5)
    assert m[0] == x.max() and m[1] == np.argmax(x)


@tessera.jit
def widened_extremes_kernel(h_ptr, b_ptr, out_ptr, BLOCK: tl.constexpr):
    # Triton's max and min without indices reduce halves in float32 and
    # narrow integers in int32: what follows computes in those types.
    offs = tl.arange(0, BLOCK)
    h = tl.load(h_ptr + offs)
    tl.static_assert(tl.max(h, axis=0).dtype == tl.float32)
    tl.static_assert(h.min(axis=0).dtype == tl.float32)
    tl.static_assert(tl.max(h, axis=0, return_indices=True)[0].dtype == tl.float16)
    tl.store(out_ptr + offs, h - tl.max(h, axis=0))
    b = tl.load(b_ptr + offs)
    tl.static_assert(tl.min(b, axis=0).dtype == tl.int32)
    tl.store(out_ptr + BLOCK + offs, (tl.min(b, axis=0) * 1000 + b).to(tl.float32))


def test_max_and_min_widen_narrow_types(backend, rng):
    h = rng.uniform(-1000, 1000, 64).astype(np.float16)
    h[0] = 2048  # h - 2048 needs more bits than a half holds
    b = rng.integers(-128, 128, 64).astype(np.int8)
    out = np.empty(128, np.float32)
    widened_extremes_kernel[(1,)](h, b, out, BLOCK=64)
    np.testing.assert_array_equal(out[:64], h.astype(np.float32) - 2048)
    np.testing.assert_array_equal(out[64:], int(b.min()) * 1000 + b.astype(np.float32))


@tessera.jit
def narrow_division_kernel(h_ptr, out_ptr, BLOCK: tl.constexpr):
    # Triton's `/` and `%` of halves compute and return float32.
    offs = tl.arange(0, BLOCK)
    h = tl.load(h_ptr + offs)
    tl.static_assert((h / 3).dtype == tl.float32)
    tl.static_assert((h % 3.0).dtype == tl.float32)
    tl.static_assert((1.0 / h.to(tl.bfloat16)).dtype == tl.float32)
    tl.static_assert((h * 3).dtype == tl.float16)
    tl.static_assert((h.to(tl.bfloat16) + offs).dtype == tl.float32)  # bf16 meets ints in f32
    tl.store(out_ptr + offs, h / 3)
    tl.store(out_ptr + BLOCK + offs, h % 3.0)


def test_division_of_halves_is_float32(backend, rng):
    h = rng.uniform(-1000, 1000, 64).astype(np.float16)
    out = np.empty(128, np.float32)
    narrow_division_kernel[(1,)](h, out, BLOCK=64)
    wide = h.astype(np.float32)
    np.testing.assert_allclose(out[:64], wide / np.float32(3), rtol=1e-6)
    np.testing.assert_allclose(out[64:], np.fmod(wide, np.float32(3)), rtol=1e-6, atol=1e-5)


@tessera.jit
def narrow_scans_kernel(b_ptr, out_ptr, BLOCK: tl.constexpr):
    # Triton's sums and scans of narrow integers run in int32, or in the
    # dtype asked for.
    offs = tl.arange(0, BLOCK)
    b = tl.load(b_ptr + offs)
    tl.static_assert(tl.sum(b, 0).dtype == tl.int32)
    tl.static_assert(tl.sum(b, 0, dtype=tl.int16).dtype == tl.int16)
    tl.static_assert(tl.cumprod(b, 0).dtype == tl.int32)
    tl.static_assert(b.cumsum(0).dtype == tl.int32)
    tl.static_assert(tl.cumsum(b, 0, dtype=tl.float32).dtype == tl.float32)
    tl.static_assert(tl.cumsum(b, 0, dtype=tl.int16).dtype == tl.int16)
    tl.store(out_ptr + offs, b.cumprod(0))
    tl.store(out_ptr + BLOCK + offs, tl.cumsum(b, 0, dtype=tl.int16).to(tl.int32))


def test_scans_of_narrow_integers_widen(backend, rng):
    b = rng.integers(-3, 4, 16).astype(np.int8)
    b[b == 0] = 2
    out = np.empty(32, np.int32)
    narrow_scans_kernel[(1,)](b, out, BLOCK=16)
    np.testing.assert_array_equal(out[:16], np.cumprod(b.astype(np.int64)).astype(np.int32))
    np.testing.assert_array_equal(out[16:], np.cumsum(b.astype(np.int16)))


# ---------------------------------------------------------------------------
# Shapes
# ---------------------------------------------------------------------------


@tessera.jit
def shape_kernel(x_ptr, out_ptr, OP: tl.constexpr, SIZE: tl.constexpr):
    # x: [4, 8] row-major
    r = tl.arange(0, 4)
    c = tl.arange(0, 8)
    x = tl.load(x_ptr + r[:, None] * 8 + c[None, :])               # [4, 8]
    if OP == "trans":
        y = tl.trans(x)                                              # [8, 4]
    elif OP == "T":
        y = x.T
    elif OP == "permute":
        y = tl.permute(tl.reshape(x, (2, 2, 8)), (2, 0, 1))          # [8, 2, 2]
    elif OP == "reshape":
        y = tl.reshape(x, [8, 4])
    elif OP == "broadcast_to":
        y = tl.broadcast_to(tl.expand_dims(tl.sum(x, axis=1), 0), (2, 4))
    elif OP == "expand_dims":
        y = tl.expand_dims(x, 1) + tl.zeros([4, 2, 8], dtype=tl.float32)
    elif OP == "ravel":
        y = tl.ravel(x)
    elif OP == "join":
        y = tl.join(x, x * 2)                                        # [4, 8, 2]
    elif OP == "split":
        a, b = tl.reshape(x, (4, 4, 2)).split()                      # [4, 4] each
        y = a - b * 3
    elif OP == "interleave":
        y = tl.interleave(x, -x)                                     # [4, 16]
    elif OP == "cat":
        y = tl.cat(x, x * 3, dim=1)                                  # [4, 16]
    elif OP == "cat0":
        y = tl.cat(x, -x)                                            # [8, 8]
    elif OP == "join_scalars":
        lo, hi = tl.split(tl.join(tl.min(x), tl.max(x)))             # scalars
        y = tl.join(hi, lo)                                          # [2]
    tl.store(out_ptr + tl.arange(0, SIZE), tl.reshape(y, [SIZE]))


SHAPE_OPS = {
    "trans": lambda x: x.T, "T": lambda x: x.T,
    "permute": lambda x: x.reshape(2, 2, 8).transpose(2, 0, 1), "reshape": lambda x: x.reshape(8, 4),
    "broadcast_to": lambda x: np.broadcast_to(x.astype(np.float64).sum(axis=1)[None, :], (2, 4)),
    "expand_dims": lambda x: np.broadcast_to(x[:, None, :], (4, 2, 8)), "ravel": lambda x: x.ravel(),
    "join": lambda x: np.stack([x, x * 2], axis=-1),
    "split": lambda x: x.reshape(4, 4, 2)[..., 0] - x.reshape(4, 4, 2)[..., 1] * 3,
    "interleave": lambda x: np.stack([x, -x], axis=-1).reshape(4, 16),
    "cat": lambda x: np.concatenate([x, x * 3], axis=1), "cat0": lambda x: np.concatenate([x, -x]),
    "join_scalars": lambda x: np.array([x.max(), x.min()]),
}


@pytest.mark.parametrize("op", sorted(SHAPE_OPS))
def test_shapes(backend, rng, op):
    x = rng.standard_normal((4, 8)).astype(np.float32)
    ref = SHAPE_OPS[op](x).ravel()
    out = np.full(64, np.nan, dtype=np.float32)
    shape_kernel[(1,)](x, out, OP=op, SIZE=ref.size)
    # broadcast_to sums 8 floats: f32 rounding, in any order, against float64.
    np.testing.assert_allclose(out[: ref.size], ref, rtol=1e-6, atol=1e-6)


@tessera.jit
def long_shuffles(x_ptr, t_ptr, sums_ptr, R: tl.constexpr, C: tl.constexpr):
    rows, cols = tl.arange(0, R), tl.arange(0, C)
    x = tl.load(x_ptr + rows[:, None] * C + cols[None, :])
    tl.store(t_ptr + cols[:, None] * R + rows[None, :], tl.trans(x))
    # A permuted 4-D view summed over three axes, as Triton's chained reductions.
    parts = tl.permute(tl.reshape(x, (4, R // 4, C // 8, 8)), (2, 1, 0, 3))
    tl.store(sums_ptr + tl.arange(0, 8), tl.sum(tl.sum(tl.sum(parts, 0), 0), 0))


def test_long_transposes_and_permutes(backend, rng):
    """Shuffles of tiles many vector registers long (the CPU backend gathers
    each result chunk from the source chunks its lanes name) against NumPy."""
    R, C = 32, 64
    x = rng.integers(-1000, 1000, (R, C)).astype(np.int32)
    t, sums = np.zeros((C, R), np.int32), np.zeros(8, np.int32)
    long_shuffles[(1,)](x, t, sums, R=R, C=C)
    np.testing.assert_array_equal(t, x.T)
    np.testing.assert_array_equal(sums, x.reshape(4, R // 4, C // 8, 8).sum(axis=(0, 1, 2)))


@tessera.jit
def large_tile_copy(x_ptr, out_ptr, M, N, ROWS: tl.constexpr, COLS: tl.constexpr):
    offs = tl.arange(0, ROWS)[:, None] * N + tl.arange(0, COLS)[None, :]
    mask = (tl.arange(0, ROWS)[:, None] < M) & (tl.arange(0, COLS)[None, :] < N)
    doubled = tl.load(x_ptr + offs, mask=mask, other=0.0) * 2
    out = tl.make_tensor_descriptor(out_ptr, [M, N], [N, 1], [ROWS, COLS])
    out.store([0, 0], doubled + out.load([0, 0]))


def test_tiles_larger_than_llvm_vector_intrinsics_allow(backend, rng):
    """A [64, 128] f32 tile is 2^18 bits: the CPU backend assembles its rows
    with shuffles, as LLVM's vector.insert intrinsic stops at 2^17 bits."""
    M, N = 61, 128
    x = rng.standard_normal((M, N)).astype(np.float32)
    out = rng.standard_normal((M, N)).astype(np.float32)
    expected = x * 2 + out
    large_tile_copy[(1,)](x, out, M, N, ROWS=64, COLS=128)
    np.testing.assert_array_equal(out, expected)


@tessera.jit
def single_elements(x_ptr, words_ptr, out_ptr):
    one = tl.load(x_ptr + tl.arange(0, 1))                                  # [1] f32
    square = tl.load(words_ptr + tl.arange(0, 1)[:, None] + tl.arange(0, 1)[None, :])  # [1, 1]
    tl.store(out_ptr, one.item() * 2 + tl.item(square).to(tl.float32))


def test_item_of_single_element_tiles(backend, kernel_error):
    """tl.item / x.item(): the element of a one-element tile as a scalar (a
    uint32 keeps its type: 4e9, not a negative number)."""
    out = np.zeros(1, np.float32)
    single_elements[(1,)](np.array([1.5], np.float32), np.array([4000000000], np.uint32), out)
    assert out[0] == np.float32(3 + 4e9)
    text = kernel_error("x_ptr", ["tl.store(x_ptr, tl.arange(0, 2).item())"],
                        np.zeros(2, np.int32))
    assert "item needs a tile of one element, got one of shape [2]" in text, text


# ---------------------------------------------------------------------------
# Creation, programs, hints
# ---------------------------------------------------------------------------


@tessera.jit
def grid_kernel(out_ptr, BLOCK: tl.constexpr):
    x = tl.program_id(0)
    y = tl.program_id(1)
    z = tl.program_id(2)
    nx = tl.num_programs(0)
    ny = tl.num_programs(1)
    nz = tl.num_programs(2)
    pid = (z * ny + y) * nx + x
    base = tl.multiple_of(pid * BLOCK, BLOCK)
    offs = tl.max_contiguous(base + tl.arange(0, BLOCK), BLOCK)
    v = tl.full([BLOCK], 7, dtype=tl.int32) + tl.zeros([BLOCK], dtype=tl.int32) + pid * 1000 \
        + (nx * 100 + ny * 10 + nz)
    tl.store(out_ptr + offs, v)


def test_grid_and_creation(backend):
    nx, ny, nz, B = 3, 2, 4, 8
    out = np.zeros(nx * ny * nz * B, dtype=np.int32)
    grid_kernel[(nx, ny, nz)](out, BLOCK=B)
    pid = np.repeat(np.arange(nx * ny * nz), B)
    np.testing.assert_array_equal(out, 7 + pid * 1000 + 324)


@tessera.jit
def cdiv_kernel(out_ptr, n, d):
    tl.store(out_ptr, tl.cdiv(n, d))
    tl.store(out_ptr + 1, tl.cdiv(n, 4))


def test_cdiv(backend):
    out = np.zeros(2, dtype=np.int32)
    cdiv_kernel[(1,)](out, 37, 5)
    np.testing.assert_array_equal(out, [8, 10])


# ---------------------------------------------------------------------------
# dot
# ---------------------------------------------------------------------------


@tessera.jit
def dot_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
               TRANS_B: tl.constexpr, ACC: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    if TRANS_B:
        b = tl.trans(tl.load(b_ptr + rn[:, None] * K + rk[None, :]))
    else:
        b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    if ACC:
        c = tl.dot(a, b, tl.full((M, N), 1.0, tl.float32), input_precision="ieee")
    else:
        c = tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], c)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int8, np.float64])
@pytest.mark.parametrize("trans_b", [False, True])
def test_dot(backend, rng, dtype, trans_b):
    M, N, K = 16, 32, 16
    if dtype == np.int8:
        a = rng.integers(-20, 20, (M, K)).astype(dtype)
        b = rng.integers(-20, 20, (K, N)).astype(dtype)
        out_dtype = np.int32
    else:
        a = rng.standard_normal((M, K)).astype(dtype)
        b = rng.standard_normal((K, N)).astype(dtype)
        out_dtype = np.float64 if dtype == np.float64 else np.float32
    acc = dtype in (np.float32, np.float16)
    c = np.empty((M, N), dtype=out_dtype)
    b_arg = np.ascontiguousarray(b.T) if trans_b else b
    dot_kernel[(1,)](a, b_arg, c, M=M, N=N, K=K, TRANS_B=trans_b, ACC=acc)
    ref = a.astype(np.float64) @ b.astype(np.float64) + (1.0 if acc else 0.0)
    np.testing.assert_allclose(c, ref.astype(out_dtype), rtol=1e-4, atol=1e-3)


@tessera.jit
def accumulating_gemm_kernel(a_ptr, b_ptr, bias_ptr, c_ptr, M, N, K, BM: tl.constexpr,
                             BN: tl.constexpr, BK: tl.constexpr):
    """`acc += tl.dot(a, b)` over a K loop, the addition folded into the dot
    (tile-combine-dot-add), with a bias added after the loop."""
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=c_ptr.dtype.element_ty)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :],
                    mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0)
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :],
                    mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0)
        acc += tl.dot(a, b)
    acc = tl.load(bias_ptr + rn, mask=rn < N, other=0)[None, :] + acc
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.int8])
@pytest.mark.parametrize("shape", [(32, 32, 48), (37, 21, 45)])
def test_accumulating_dot_in_a_k_loop(backend, rng, dtype, shape):
    M, N, K = shape
    if dtype == np.int8:
        a, b = (rng.integers(-20, 20, s).astype(dtype) for s in ((M, K), (K, N)))
        bias, out = rng.integers(-50, 50, N).astype(np.int32), np.int32
    else:
        a, b = (rng.standard_normal(s).astype(dtype) for s in ((M, K), (K, N)))
        bias, out = rng.standard_normal(N).astype(np.float32), np.float32
    c = np.empty((M, N), dtype=out)
    accumulating_gemm_kernel[(tessera.cdiv(M, 16), tessera.cdiv(N, 16))](
        a, b, bias, c, M, N, K, BM=16, BN=16, BK=16)
    ref = a.astype(np.float64) @ b.astype(np.float64) + bias
    np.testing.assert_allclose(c, ref.astype(out), rtol=1e-3, atol=1e-2)


# ---------------------------------------------------------------------------
# Atomics
# ---------------------------------------------------------------------------


@tessera.jit
def histogram_kernel(x_ptr, hist_ptr, max_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.atomic_add(hist_ptr + x, 1, mask=mask)
    tl.atomic_max(max_ptr + tl.zeros([BLOCK], dtype=tl.int32), x, mask=mask)


@pytest.mark.parametrize("n", SIZES)
def test_atomic_add_max(backend, rng, n):
    x = rng.integers(0, 10, n).astype(np.int32)
    hist = np.zeros(10, dtype=np.int32)
    mx = np.full(1, -1, dtype=np.int32)
    histogram_kernel[(tessera.cdiv(n, 16),)](x, hist, mx, n, BLOCK=16)
    np.testing.assert_array_equal(hist, np.bincount(x, minlength=10))
    assert mx[0] == x.max()


@tessera.jit
def float_atomic_kernel(x_ptr, sum_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.atomic_add(sum_ptr, tl.sum(x, axis=0))


@tessera.jit
def xor_atomic_kernel(x_ptr, acc_ptr, old_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    old = tl.atomic_xor(acc_ptr + offs % 4, x, mask=offs < n)  # four contended words
    tl.store(old_ptr + offs, old, mask=offs < n)


def check_xor_atomics(rng, put, get):
    """Runs xor_atomic_kernel on arrays `put` makes (on a device:
    test_gpu_devices.py): each word ends as the xor of its lanes' values,
    and every lane saw some earlier state of its word."""
    n = 300
    x = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
    acc, old = put(np.zeros(4, np.int32)), put(np.zeros(n, np.int32))
    xor_atomic_kernel[(tessera.cdiv(n, 64),)](put(x), acc, old, n, BLOCK=64)
    final = get(acc)
    np.testing.assert_array_equal(final, [np.bitwise_xor.reduce(x[w::4]) for w in range(4)])
    # Whatever the order, the states a word was in before its lanes' xors and
    # the final one are the states after them and the initial 0.
    olds = get(old)
    for w in range(4):
        before = sorted(olds[w::4].tolist() + [int(final[w])])
        after = sorted((olds[w::4] ^ x[w::4]).tolist() + [0])
        assert before == after, f"word {w}"


def test_atomic_xor(backend, rng):
    check_xor_atomics(rng, lambda a: a, lambda a: a)


def test_atomic_add_float(backend, rng):
    n = 1000
    x = rng.random(n).astype(np.float32)
    s = np.zeros(1, dtype=np.float32)
    float_atomic_kernel[(tessera.cdiv(n, 64),)](x, s, n, BLOCK=64)
    np.testing.assert_allclose(s[0], x.astype(np.float64).sum(), rtol=1e-5)


@tessera.jit
def cas_kernel(lock_ptr, order_ptr):
    # Every program takes a ticket: the old value of a compare-and-swap loop.
    pid = tl.program_id(0)
    old = tl.atomic_cas(lock_ptr, 0, 0)
    done = False
    while not done:
        prev = tl.atomic_cas(lock_ptr, old, old + 1)
        done = prev == old
        old = prev
    tl.store(order_ptr + pid, old)


def test_atomic_cas(backend):
    lock = np.zeros(1, dtype=np.int32)
    order = np.full(8, -1, dtype=np.int32)
    cas_kernel[(8,)](lock, order)
    assert lock[0] == 8
    np.testing.assert_array_equal(np.sort(order), np.arange(8))


@tessera.jit
def atomic_loads_and_stores(x_ptr, y_ptr, flags_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    tl.atomic_store(y_ptr + offs, tl.atomic_load(x_ptr + offs, mask=mask) * 2, mask=mask)
    tl.atomic_store(flags_ptr + offs, offs, mask=mask, sem="relaxed")
    tl.store(out_ptr + offs, tl.atomic_load(flags_ptr + offs, mask=mask, sem="relaxed") + 1,
             mask=mask)


def test_atomic_load_and_store(backend, rng, kernel_error):
    """Triton 3's tl.atomic_load / tl.atomic_store: values read and written
    atomically; the memory read is left as it was (-0.0 too)."""
    check_atomic_loads_and_stores(rng, np.asarray, np.asarray)
    text = kernel_error("x_ptr", ["tl.atomic_store(x_ptr, 1, sem='acquire')"],
                        np.zeros(1, np.int32))
    assert "atomic_store: sem must be 'release' or 'relaxed', got 'acquire'" in text, text


def check_atomic_loads_and_stores(rng, put, get):
    """Runs atomic_loads_and_stores on arrays `put` makes (on a device:
    test_gpu_devices.py) and checks what `get` reads back."""
    n = 45
    x = rng.standard_normal(64).astype(np.float32)
    x[0] = -0.0
    y, flags, out = (put(np.zeros(64, t)) for t in (np.float32, np.int32, np.int32))
    x_arg = put(x.copy())
    atomic_loads_and_stores[(1,)](x_arg, y, flags, out, n, BLOCK=64)
    y, out = get(y), get(out)
    np.testing.assert_array_equal(y[:n], x[:n] * 2)
    np.testing.assert_array_equal(y[n:], 0)
    np.testing.assert_array_equal(out[:n], np.arange(n) + 1)
    assert get(x_arg).tobytes() == x.tobytes()


# ---------------------------------------------------------------------------
# Python constructs
# ---------------------------------------------------------------------------

SCALE = 3          # a global constant
OFFSET = tl.constexpr(10)


@tessera.jit
def local_integers(out_ptr, A: tl.constexpr, B: tl.constexpr):
    a = A  # a local: Triton's int32 scalar tensor
    b = B
    q = a // b
    r = a % b
    c: tl.constexpr = A  # a constexpr: Python's arithmetic
    a += 1
    offs = tl.arange(0, 8)
    tl.store(out_ptr + offs,
             tl.where(offs == 0, q, tl.where(offs == 1, r, tl.where(offs == 2, c // B,
             tl.where(offs == 3, c % B, tl.where(offs == 4, a // b, a.to(tl.float32)))))))


def test_integers_assigned_to_locals_divide_as_triton_tensors(backend, rng):
    """As in Triton, where an integer assigned to a local is an int32 tensor:
    its // and % round toward zero (C), while constexpr ones keep Python's;
    .to() works on it."""
    for _ in range(3):
        a, b = (int(v) for v in rng.integers(-50, 50, 2))
        b = b or 3
        out = np.zeros(8, np.float32)
        local_integers[(1,)](out, A=a, B=b)
        toward_zero = int(np.fix(a / b))
        np.testing.assert_array_equal(
            out[:6], [toward_zero, a - b * toward_zero, a // b, a % b, int(np.fix((a + 1) / b)),
                      a + 1])


@tessera.jit
def local_floats(x_ptr, out_ptr, wide_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)  # fp16
    third = 1.0 / 3.0  # a local: Triton's float32 scalar tensor
    huge = 1e50        # float64: float32 cannot hold it
    n = 3
    tl.static_assert((x * third).dtype == tl.float32)
    tl.static_assert((x * 0.5).dtype == tl.float16)  # a literal adopts the tile's type
    tl.static_assert(third.dtype == tl.float32 and huge.dtype == tl.float64)
    tl.static_assert((n / 2).dtype == tl.float32 and (x + n).dtype == tl.float16)
    tl.store(out_ptr + offs, x * third)
    tl.store(out_ptr + N + offs, (x * 0.5).to(tl.float32))
    tl.store(wide_ptr + offs, huge * x, mask=offs < 2)
    tl.store(wide_ptr + 2, (n / 2).to(tl.float64))


@tessera.jit
def descending_loops(out_ptr, n, lo, BLOCK: tl.constexpr):
    lanes = tl.arange(0, BLOCK)
    order = tl.zeros([BLOCK], tl.int32)
    count = 0
    for i in range(n - 1, lo, -2):  # dynamic bounds, a constant negative step
        order = tl.where(lanes == count, i, order)
        count += 1
    tl.store(out_ptr + lanes, order)
    tl.store(out_ptr + BLOCK, count)
    order = tl.zeros([BLOCK], tl.int32) - 100
    for j in tl.range(n, 0, -3, num_stages=2):
        order = tl.where(lanes == (n - j) // 3, j, order)
    tl.store(out_ptr + BLOCK + 1 + lanes, order)


def test_loops_with_negative_steps_count_down(backend, rng):
    """range(start, end, -s) as in Python (and Triton): start, start - s, ...
    while above end; none when start <= end."""
    for _ in range(4):
        n, lo = (int(v) for v in rng.integers(-3, 20, 2))
        out = np.zeros(33, np.int32)
        descending_loops[(1,)](out, n, lo, BLOCK=16)
        down = list(range(n - 1, lo, -2))
        np.testing.assert_array_equal(out[:len(down)], down, err_msg=f"n={n} lo={lo}")
        assert out[16] == len(down)
        by_three = list(range(n, 0, -3))
        np.testing.assert_array_equal(out[17:17 + len(by_three)], by_three)
        np.testing.assert_array_equal(out[17 + len(by_three):], -100)


def test_a_zero_range_step_is_an_error(kernel_error):
    text = kernel_error("x_ptr, n", ["for i in range(0, n, 0): tl.store(x_ptr + i, 1.0)"],
                        np.zeros(4, np.float32), 4)
    assert "range step must not be zero" in text


def test_floats_assigned_to_locals_compute_as_triton_tensors(backend, rng):
    """As in Triton, where a float assigned to a local is a float32 tensor
    (float64 beyond float32's range): an fp16 tile times it is computed in
    float32, while a float literal takes the tile's type."""
    x = (rng.standard_normal(16) * 100).astype(np.float16)
    out, wide = np.zeros(32, np.float32), np.zeros(3, np.float64)
    local_floats[(1,)](x, out, wide, N=16)
    np.testing.assert_array_equal(out[:16], x.astype(np.float32) * np.float32(1.0 / 3.0))
    np.testing.assert_array_equal(out[16:], (x * np.float16(0.5)).astype(np.float32))
    np.testing.assert_array_equal(wide, [1e50 * float(x[0]), 1e50 * float(x[1]), 1.5])


@tessera.jit
def scale_and_shift(x, factor):
    return x * factor + OFFSET, factor


@tessera.jit
def clamp_positive(x):
    return tl.where(x > 0, x, 0)


@tessera.jit
def constructs_kernel(x_ptr, out_ptr, n, flag, BLOCK: tl.constexpr, UNROLL: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    # tuple unpacking and an inlined @jit call returning a tuple
    y, f = scale_and_shift(x, SCALE)
    a, b = 1, 2
    a, b = b, a
    # augmented assignment and a loop-carried tile
    acc = tl.zeros([BLOCK], dtype=tl.int32)
    for i in range(0, n):
        acc += i
    # a loop unrolled at compile time
    for j in tl.static_range(UNROLL):
        acc = acc + j * f
    # if/else on a scalar tensor, yielding values assigned in both branches
    if flag > 0:
        z = y + a
        w = 1
    else:
        z = y - b
        w = 2
    # an if without else changing a value defined before
    t = z
    if n > 10:
        t = t * 2
    # while with carried values
    k = 0
    s = 0
    while k < n:
        s += k
        k += 1
    # chained comparison, boolean operators, ternary, min/max of constants
    inside = (0 <= offs < n) and flag >= 0
    q = clamp_positive(t) if UNROLL > 1 else t
    out = q + acc + s * w + min(UNROLL, 2) + max(a, b)
    tl.store(out_ptr + offs, out, mask=inside)


@pytest.mark.parametrize("n,flag", [(5, 1), (20, 0), (64, 1)])
def test_constructs(backend, rng, n, flag):
    x = rng.integers(-100, 100, n).astype(np.int32)
    out = np.zeros(n, dtype=np.int32)
    unroll = 3
    constructs_kernel[(1,)](x, out, n, flag, BLOCK=64, UNROLL=unroll)
    y = x * 3 + 10
    a, b = 2, 1
    z, w = (y + a, 1) if flag > 0 else (y - b, 2)
    t = z * 2 if n > 10 else z
    acc = sum(range(n)) + sum(j * 3 for j in range(unroll))
    s = sum(range(n))
    ref = np.maximum(t, 0) + acc + s * w + 2 + 2
    np.testing.assert_array_equal(out, ref)


@tessera.jit
def pick_by_sums(x, y):
    if tl.sum(x, 0) > 0:
        return x * 2, 1
    elif tl.sum(y, 0) > 0:
        return y + 1.0, 2
    return x - y, 3


@tessera.jit
def early_returns(x_ptr, y_ptr, out_ptr, which_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if pid * BLOCK >= n:          # programs past the end store nothing
        return
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = tl.load(y_ptr + offs, mask=mask, other=0.0)
    r, which = pick_by_sums(x, y)  # returns from dynamic branches, with values
    tl.store(which_ptr + pid, which)
    if pid % 3 == 1:
        if tl.max(x, 0) > 1.0:    # a nested early return; the rest runs on the other paths
            return
        r = -r
    else:
        for i in range(2):
            r += 1.0
    tl.store(out_ptr + offs, r, mask=mask)


def test_early_returns_from_dynamic_branches(backend, rng):
    """`return` inside a dynamic if (Triton's early exit), in the kernel and
    in an inlined function returning values: the statements after the if run
    on the paths that did not return."""
    check_early_returns(rng, np.asarray, np.asarray)


def check_early_returns(rng, put, get):
    """Runs early_returns on arrays `put` makes (on a device:
    test_gpu_devices.py) and checks what `get` reads back."""
    n, block = 150, 16
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    programs = 12                               # 2 past the end of the data
    out = put(np.full(programs * block, 99, np.float32))
    which = put(np.full(programs, -1, np.int32))
    early_returns[(programs,)](put(x), put(y), out, which, n, BLOCK=block)
    out, which = get(out), get(which)
    for pid in range(programs):
        rows = slice(pid * block, min(n, pid * block + block))
        if pid * block >= n:
            assert which[pid] == -1 and (out[pid * block:pid * block + block] == 99).all()
            continue
        xs, ys = x[rows], y[rows]
        r, w = (xs * 2, 1) if xs.sum() > 0 else (ys + 1, 2) if ys.sum() > 0 else (xs - ys, 3)
        assert which[pid] == w, pid
        if pid % 3 == 1:
            if xs.max() > 1:
                assert (out[rows] == 99).all(), pid
                continue
            r = -r
        else:
            r = r + 2
        np.testing.assert_allclose(out[rows], r, rtol=1e-6, err_msg=f"program {pid}")


@tessera.jit
def first_index_above(x_ptr, limit, N: tl.constexpr):
    for i in tl.static_range(N):
        if tl.load(x_ptr + i) > limit:
            return i
    return -1


@tessera.jit
def returns_in_unrolled_loops(x_ptr, out_ptr, limit, N: tl.constexpr):
    tl.store(out_ptr + 2, first_index_above(x_ptr, limit, N))
    total = 0.0
    for i in tl.static_range(N):
        v = tl.load(x_ptr + i)
        if v > limit:  # the later iterations and the stores after the loop run on the other path
            tl.store(out_ptr, i)
            tl.store(out_ptr + 1, total)
            return
        total += v
    tl.store(out_ptr, -1)
    tl.store(out_ptr + 1, total)


def test_returns_in_dynamic_branches_of_unrolled_loops(backend, rng):
    """As Triton unrolls tl.static_range, a return in a dynamic if of its body
    ends the program (or the inlined function) on that path only."""
    x = rng.uniform(0, 4, 6).astype(np.float32)
    for limit in (-1.0, float(x[3]) - 1e-3, float(x.max()), 5.0):
        out = np.zeros(3, np.float32)
        returns_in_unrolled_loops[(1,)](x, out, limit, N=6)
        above = [i for i in range(6) if x[i] > np.float32(limit)]
        first = above[0] if above else -1
        stop = first if above else 6
        np.testing.assert_allclose(out, [first, x[:stop].sum(dtype=np.float32), first],
                                   rtol=1e-6, err_msg=f"limit {limit}")


@tessera.jit
def weighted_sum_of_tuples(pairs, out_ptr, sizes, weights, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.float32)
    for i in tl.static_range(len(pairs)):
        ptr, n = pairs[i]
        acc += tl.load(ptr + offs, mask=offs < n, other=0.0) * weights[i]
    total, UNUSED = sizes
    tl.store(out_ptr + offs, acc, mask=offs < total)


def test_tuple_arguments(backend, rng):
    """Tuples (nested, of arrays, ints and floats, with tl.constexpr items)
    as kernel arguments, as Triton takes them: each item is an argument of
    its own, a tl.constexpr item a compile-time constant."""
    x = rng.standard_normal(50).astype(np.float32)
    y = rng.standard_normal(37).astype(np.float32)
    out = np.zeros(50, np.float32)
    weighted_sum_of_tuples[(1,)](((x, 50), (y, 37)), out, (50, tl.constexpr(3)), (2.0, -0.5),
                                 BLOCK=64)
    np.testing.assert_allclose(out, 2 * x + np.concatenate([-0.5 * y, np.zeros(13)]),
                               rtol=1e-6)
    with pytest.raises(tessera.ArgumentError, match=r"argument 'pairs\[1\]\[0\]' is str"):
        weighted_sum_of_tuples[(1,)](((x, 50), ("y", 37)), out, (50, 3), (2.0, -0.5), BLOCK=64)


@tessera.jit
def print_kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 2))
    tl.device_print("x", x)
    tl.static_assert(2 > 1, "never fires")


def test_device_print(backend, capfd):
    x = np.array([1.5, -2.0], dtype=np.float32)
    print_kernel[(1,)](x)
    out = capfd.readouterr().out
    assert "1.5" in out and "-2.0" in out, out


@tessera.jit
def uint8_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)           # uint8
    tl.store(out_ptr + offs, x.to(tl.float32) / 255 + (x // 16), mask=mask)
    # fma and clamp take uint8 operands as their values too, not as int8's.
    tl.store(out_ptr + BLOCK + offs, tl.fma(x, 0.5, 1.0), mask=mask)
    tl.store(out_ptr + 2 * BLOCK + offs, tl.clamp(x, 10, 200).to(tl.float32), mask=mask)


def test_uint8(backend, rng):
    x = rng.integers(0, 256, 40).astype(np.uint8)
    out = np.zeros((3, 64), dtype=np.float32)
    uint8_kernel[(1,)](x, out, 40, BLOCK=64)
    np.testing.assert_allclose(out[0, :40], x / 255 + (x // 16), rtol=1e-6)
    np.testing.assert_array_equal(out[1, :40], x * 0.5 + 1)
    np.testing.assert_array_equal(out[2, :40], np.clip(x, 10, 200))


@tessera.jit
def uint8_stores(x_ptr, f32_ptr, i32_ptr, i16_ptr, sum_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)           # uint8, converted by each store
    tl.store(f32_ptr + offs, x, mask=mask)
    tl.store(i32_ptr + offs, x, mask=mask)
    tl.store(i16_ptr + offs, x, mask=mask)
    tl.atomic_add(sum_ptr + offs, x, mask=mask)


def test_uint8_values_stored_and_added_through_wider_pointers(backend, rng):
    """A store or an atomic converts a uint8 value to the pointer's type by its
    value (245 -> 245.0), as .to() does, not by its bits as int8's (-11)."""
    x = rng.integers(0, 256, 45).astype(np.uint8)
    x[:3] = (255, 128, 245)
    f32, i32, i16 = np.zeros(64, np.float32), np.zeros(64, np.int32), np.zeros(64, np.int16)
    sums = rng.integers(-1000, 1000, 64).astype(np.int32)
    before = sums.copy()
    uint8_stores[(1,)](x, f32, i32, i16, sums, 45, BLOCK=64)
    np.testing.assert_array_equal(f32[:45], x.astype(np.float32))
    np.testing.assert_array_equal(i32[:45], x.astype(np.int32))
    np.testing.assert_array_equal(i16[:45], x.astype(np.int16))
    np.testing.assert_array_equal(sums[:45], before[:45] + x)
    np.testing.assert_array_equal(sums[45:], before[45:])


@tessera.jit
def wrapped_copy(x_ptr, out_ptr, n, first_block, BLOCK: tl.constexpr):
    block = first_block + tl.program_id(0)
    tl.assume(block >= 0)
    cols = (block * BLOCK + tl.arange(0, BLOCK)) % n
    tl.store(out_ptr + tl.program_id(0) * BLOCK + tl.arange(0, BLOCK), tl.load(x_ptr + cols))


@pytest.mark.parametrize("n", [64, 100])
def test_assume_keeps_wrapped_offsets_exact(backend, rng, n):
    x = rng.standard_normal(n).astype(np.float32)
    out = np.zeros(4 * 32, dtype=np.float32)
    wrapped_copy[(4,)](x, out, n, 3, BLOCK=32)
    expected = x[(np.arange(3 * 32, 7 * 32)) % n]
    np.testing.assert_array_equal(out, expected)


@tessera.jit
def hinted_wrapped_copy(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """Triton's idiom: offsets wrapped with % n, promised to hold aligned runs
    (true when n is a multiple of BLOCK)."""
    cols = (tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)) % n
    cols = tl.max_contiguous(tl.multiple_of(cols, BLOCK), BLOCK)
    tl.store(out_ptr + tl.program_id(0) * BLOCK + tl.arange(0, BLOCK), tl.load(x_ptr + cols))


def test_hints_keep_values(backend, rng):
    x = rng.standard_normal(64).astype(np.float32)
    out = np.zeros(4 * 32, dtype=np.float32)
    hinted_wrapped_copy[(4,)](x, out, 64, BLOCK=32)
    np.testing.assert_array_equal(out, x[np.arange(128) % 64])


@pytest.mark.parametrize("hint,value,message", [
    ("max_contiguous", 0, "values must be positive compile-time integers"),
    ("multiple_of", 12, "values must be powers of two"),
    ("max_constancy", (4, 4, 4), "3 values for a tensor of rank 1"),
])
def test_bad_hints_are_compilation_errors(hint, value, message):
    @tessera.jit
    def bad_hint(out_ptr, HINT: tl.constexpr, VALUE: tl.constexpr):
        offs = tl.arange(0, 16)
        if HINT == "max_contiguous":
            offs = tl.max_contiguous(offs, VALUE)
        elif HINT == "multiple_of":
            offs = tl.multiple_of(offs, VALUE)
        else:
            offs = tl.max_constancy(offs, VALUE)
        tl.store(out_ptr + offs, offs)

    with pytest.raises(tessera.CompilationError, match=message):
        bad_hint[(1,)](np.zeros(16, dtype=np.int32), HINT=hint, VALUE=value)


@tessera.jit
def reverse_through_memory(x_ptr, scratch_ptr, out_ptr, BLOCK: tl.constexpr):
    """Each element passes through global memory to another thread of the
    program: correct only when the barrier orders the stores before the loads."""
    base = tl.program_id(0) * BLOCK
    offs = base + tl.arange(0, BLOCK)
    tl.store(scratch_ptr + offs, tl.load(x_ptr + offs))
    tl.debug_barrier()
    tl.store(out_ptr + offs, tl.load(scratch_ptr + base + BLOCK - 1 - tl.arange(0, BLOCK)))


def test_debug_barrier_orders_memory_between_threads(backend, rng):
    x = rng.standard_normal(4 * 64).astype(np.float32)
    scratch = np.zeros_like(x)
    out = np.zeros_like(x)
    reverse_through_memory[(4,)](x, scratch, out, BLOCK=64)
    np.testing.assert_array_equal(out, x.reshape(4, 64)[:, ::-1].reshape(-1))


def test_interpreter_reports_a_false_assumption(monkeypatch):
    monkeypatch.setenv("TESSERA_INTERPRET", "1")
    x = np.zeros(64, dtype=np.float32)
    out = np.zeros(32, dtype=np.float32)
    with pytest.raises(tessera.LaunchError, match="an assumption \\(tl.assume\\) does not hold"):
        wrapped_copy[(1,)](x, out, 64, -5, BLOCK=32)


@tessera.jit
def swizzle_kernel(out_i_ptr, out_j_ptr, SIZE_I: tl.constexpr, SIZE_J: tl.constexpr,
                   SIZE_G: tl.constexpr):
    i = tl.arange(0, SIZE_I)[:, None] + tl.zeros([SIZE_I, SIZE_J], dtype=tl.int32)
    j = tl.arange(0, SIZE_J)[None, :] + tl.zeros([SIZE_I, SIZE_J], dtype=tl.int32)
    new_i, new_j = tl.swizzle2d(i, j, SIZE_I, SIZE_J, SIZE_G)
    offsets = tl.arange(0, SIZE_I)[:, None] * SIZE_J + tl.arange(0, SIZE_J)[None, :]
    tl.store(out_i_ptr + offsets, new_i)
    tl.store(out_j_ptr + offsets, new_j)


def test_swizzle2d(backend):
    """Groups of 3 rows of an 8x4 grid walked column by column; the last
    group has 2 rows. Every cell appears once."""
    size_i, size_j, size_g = 8, 4, 3
    new_i = np.zeros((size_i, size_j), dtype=np.int32)
    new_j = np.zeros((size_i, size_j), dtype=np.int32)
    swizzle_kernel[(1,)](new_i, new_j, SIZE_I=size_i, SIZE_J=size_j, SIZE_G=size_g)
    expected = []
    for first in range(0, size_i, size_g):
        rows = min(size_g, size_i - first)
        expected += [(first + r, c) for c in range(size_j) for r in range(rows)]
    got = list(zip(new_i.ravel().tolist(), new_j.ravel().tolist()))
    assert got == expected
