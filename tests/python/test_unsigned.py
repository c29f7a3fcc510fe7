"""Unsigned integer types (tl.uint8, tl.uint16, tl.uint32, tl.uint64) with
Triton's semantics, each kernel checked against NumPy on fresh random data
(ragged sizes: masked loads and stores) on the interpreter and the CPU
backend: arithmetic that wraps modulo 2**bits, unsigned division, logical
shifts and unsigned comparisons; C's usual arithmetic conversions between
mixed types; Python literals, local integers and int arguments next to
unsigned tensors; conversions and bitcasts; reductions and scans; stores and
atomics through unsigned pointers; unsigned values carried by loops and
branches; and the errors Triton raises for / and % between different
signedness, negative literals and literals out of an unsigned type's range.
Every expectation here was confirmed on Triton's interpreter."""

import numpy as np
import pytest

import tessera
import tessera.language as tl

UNSIGNED = [np.uint8, np.uint16, np.uint32, np.uint64]
BLOCK = 64


def bits_of(dtype):
    return np.iinfo(dtype).bits


def random_unsigned(rng, dtype, size):
    """Values over the whole range of `dtype`, the edges and the values around
    2**(bits-1) (negative as signed integers) among the first ones."""
    bits = bits_of(dtype)
    x = rng.integers(0, 2**bits, size, dtype=dtype, endpoint=False)
    edges = [2**bits - 1, 2**(bits - 1), 2**(bits - 1) - 1, 2**(bits - 1) + 1, 0, 1, 3]
    x.flat[:len(edges)] = edges
    return x


def programs(n):
    return (n + BLOCK - 1) // BLOCK


# ---------------------------------------------------------------------------
# Arithmetic and comparisons within one unsigned type
# ---------------------------------------------------------------------------


@tessera.jit
def unsigned_elementwise(x_ptr, y_ptr, out_ptr, cmp_ptr, n, LO: tl.constexpr, HI: tl.constexpr,
                         MAX: tl.constexpr, BITS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    row = tl.num_programs(0) * BLOCK
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask, other=1)  # no division by zero in masked lanes
    s = y & (BITS - 1)                             # a shift count below the width
    tl.store(out_ptr + offs, x + y, mask=mask)
    tl.store(out_ptr + row + offs, x - y, mask=mask)
    tl.store(out_ptr + 2 * row + offs, x * y, mask=mask)
    tl.store(out_ptr + 3 * row + offs, x // y, mask=mask)
    tl.store(out_ptr + 4 * row + offs, x % y, mask=mask)
    tl.store(out_ptr + 5 * row + offs, x >> s, mask=mask)
    tl.store(out_ptr + 6 * row + offs, x << s, mask=mask)
    tl.store(out_ptr + 7 * row + offs, x & y, mask=mask)
    tl.store(out_ptr + 8 * row + offs, x | y, mask=mask)
    tl.store(out_ptr + 9 * row + offs, x ^ y, mask=mask)
    tl.store(out_ptr + 10 * row + offs, ~x, mask=mask)
    tl.store(out_ptr + 11 * row + offs, -x, mask=mask)
    tl.store(out_ptr + 12 * row + offs, tl.abs(x), mask=mask)
    tl.store(out_ptr + 13 * row + offs, tl.maximum(x, y), mask=mask)
    tl.store(out_ptr + 14 * row + offs, tl.minimum(x, y), mask=mask)
    tl.store(out_ptr + 15 * row + offs, tl.clamp(x, LO, HI), mask=mask)
    tl.store(out_ptr + 16 * row + offs, tl.where(x > y, x, y) >> 1, mask=mask)
    tl.store(out_ptr + 17 * row + offs, x + MAX, mask=mask)   # the literal is of x's type: x - 1
    tl.store(out_ptr + 18 * row + offs, x >> (BITS - 1), mask=mask)
    tl.store(cmp_ptr + offs, (x < y).to(tl.int8), mask=mask)
    tl.store(cmp_ptr + row + offs, (x <= y).to(tl.int8), mask=mask)
    tl.store(cmp_ptr + 2 * row + offs, (x > y).to(tl.int8), mask=mask)
    tl.store(cmp_ptr + 3 * row + offs, (x >= y).to(tl.int8), mask=mask)
    tl.store(cmp_ptr + 4 * row + offs, (x == y).to(tl.int8), mask=mask)
    tl.store(cmp_ptr + 5 * row + offs, (x != y).to(tl.int8), mask=mask)
    tl.store(cmp_ptr + 6 * row + offs, (x > LO).to(tl.int8), mask=mask)


@pytest.mark.parametrize("dtype", UNSIGNED)
def test_arithmetic_and_comparisons_wrap_and_treat_values_as_unsigned(backend, rng, dtype):
    """+ - * wrap modulo 2**bits, // and % divide unsigned values (0xFFFFFFFF // 3
    included), >> shifts in zeros, -x is 2**bits - x, abs(x) is x; comparisons,
    maximum, minimum and clamp order the values as unsigned (2**(bits-1) > 1),
    and tl.where keeps the type (its >> shifts in zeros)."""
    check_unsigned_elementwise(rng, dtype, np.asarray, np.zeros, np.asarray)


def check_unsigned_elementwise(rng, dtype, put, zeros, get):
    """Runs unsigned_elementwise on arrays made by `put` and `zeros` (of a
    device: test_gpu_devices.py) and checks what `get` reads back."""
    n, bits = 173, bits_of(dtype)
    x = random_unsigned(rng, dtype, n)
    y = random_unsigned(rng, dtype, n)
    y[:8] = [3, 3, 1, 2**bits - 1, 7, 2**(bits - 1), 5, 2**(bits - 1) + 1]
    y[20:30] = x[20:30]                            # some equal pairs
    y[y == 0] = 1
    lo, hi = 2**(bits - 1) - 5, 2**(bits - 1) + 100
    cols = programs(n) * BLOCK
    out = zeros((19, cols), dtype)
    cmp = put(np.full((7, cols), 9, dtype=np.int8))
    unsigned_elementwise[(programs(n),)](put(x), put(y), out, cmp, n, LO=lo, HI=hi,
                                          MAX=2**bits - 1, BITS=bits, BLOCK=BLOCK)
    out, cmp = get(out), get(cmp)
    s = y & dtype(bits - 1)
    expected = [x + y, x - y, x * y, x // y, x % y, x >> s, x << s, x & y, x | y, x ^ y, ~x, -x, x,
                np.maximum(x, y), np.minimum(x, y), np.clip(x, dtype(lo), dtype(hi)),
                np.maximum(x, y) >> dtype(1), x - dtype(1), x >> dtype(bits - 1)]
    for row, want in enumerate(expected):
        np.testing.assert_array_equal(out[row, :n], want.astype(dtype), err_msg=f"row {row}")
    assert out[0, 0] == (2**bits - 1 + 3) % 2**bits and out[3, 0] == (2**bits - 1) // 3
    np.testing.assert_array_equal(out[:, n:], 0)   # masked lanes are not stored
    compared = [x < y, x <= y, x > y, x >= y, x == y, x != y, x > lo]
    for row, want in enumerate(compared):
        np.testing.assert_array_equal(cmp[row, :n], want.astype(np.int8), err_msg=f"comparison {row}")
    np.testing.assert_array_equal(cmp[:, n:], 9)


# ---------------------------------------------------------------------------
# Mixed types: C's usual arithmetic conversions (Triton's integer_promote_impl)
# ---------------------------------------------------------------------------


@tessera.jit
def mixed_types(u8_ptr, i8_ptr, u16_ptr, i32_ptr, u32_ptr, i64_ptr, u64_ptr, f32_ptr, f16_ptr,
                out_ptr, flt_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    row = tl.num_programs(0) * BLOCK
    a = tl.load(u8_ptr + offs, mask=mask)
    c = tl.load(i8_ptr + offs, mask=mask)
    w = tl.load(u16_ptr + offs, mask=mask)
    b = tl.load(i32_ptr + offs, mask=mask)
    d = tl.load(u32_ptr + offs, mask=mask)
    e = tl.load(i64_ptr + offs, mask=mask)
    g = tl.load(u64_ptr + offs, mask=mask)
    f = tl.load(f32_ptr + offs, mask=mask)
    h = tl.load(f16_ptr + offs, mask=mask)
    # out_ptr is int64: each store converts its value by the value's own type.
    tl.store(out_ptr + offs, a + b, mask=mask)                  # int32
    tl.store(out_ptr + row + offs, (a + b) >> 1, mask=mask)     # int32: arithmetic shift
    tl.store(out_ptr + 2 * row + offs, c + a, mask=mask)        # uint8: wraps at 256
    tl.store(out_ptr + 3 * row + offs, (c + a) >> 1, mask=mask)
    tl.store(out_ptr + 4 * row + offs, c + w, mask=mask)        # uint16
    tl.store(out_ptr + 5 * row + offs, d + e, mask=mask)        # int64
    tl.store(out_ptr + 6 * row + offs, (d + e) >> 1, mask=mask)
    tl.store(out_ptr + 7 * row + offs, b + d, mask=mask)        # uint32: wraps at 2**32
    tl.store(out_ptr + 8 * row + offs, (b + d) >> 1, mask=mask)
    tl.store(out_ptr + 9 * row + offs, (b < d).to(tl.int32), mask=mask)  # unsigned comparison
    tl.store(out_ptr + 10 * row + offs, c + d, mask=mask)       # uint32: int8 sign-extended
    tl.store(out_ptr + 11 * row + offs, b + g, mask=mask)       # uint64 (stored as its bits)
    tl.store(out_ptr + 12 * row + offs, tl.maximum(b, d), mask=mask)  # uint32
    tl.store(out_ptr + 13 * row + offs, w - b, mask=mask)       # int32
    tl.store(out_ptr + 14 * row + offs, (e + g) >> 1, mask=mask)  # uint64: logical shift
    tl.store(flt_ptr + offs, w * f, mask=mask)                  # float32 of the unsigned value
    tl.store(flt_ptr + row + offs, h + a, mask=mask)            # float16, rounded as such


def test_mixed_types_follow_the_usual_arithmetic_conversions(backend, rng):
    """uint8 + int32 is int32, int8 + uint8 is uint8, uint32 + int64 is int64,
    int32 + uint32 is uint32 (a negative int32 compares as a huge uint32),
    int32 + uint64 and int64 + uint64 are uint64, uint16 - int32 is int32,
    uint16 * float32 is float32 of the unsigned
    value and float16 + uint8 is float16."""
    n = 150
    a = random_unsigned(rng, np.uint8, n)
    c = rng.integers(-128, 128, n).astype(np.int8)
    w = random_unsigned(rng, np.uint16, n)
    b = rng.integers(-1000, 1000, n).astype(np.int32)
    b[:4] = (-1, -2**31, 2**31 - 1, -300)
    d = random_unsigned(rng, np.uint32, n)
    e = rng.integers(-2**40, 2**40, n).astype(np.int64)
    g = random_unsigned(rng, np.uint64, n)
    f = rng.standard_normal(n).astype(np.float32)
    h = (rng.integers(-800, 800, n) / 8).astype(np.float16)   # sums with a need up to 12 bits
    cols = programs(n) * BLOCK
    out = np.zeros((15, cols), dtype=np.int64)
    flt = np.zeros((2, cols), dtype=np.float32)
    mixed_types[(programs(n),)](a, c, w, b, d, e, g, f, h, out, flt, n, BLOCK=BLOCK)
    i64, u64 = np.int64, np.uint64
    ab = a.astype(np.int32) + b                 # int32, wraps (b includes 2**31 - 1)
    ca = (c.astype(i64) + a) % 256
    bd = (b.astype(i64) + d) % 2**32
    expected = [ab, ab >> 1, ca, ca >> 1, (c.astype(i64) + w) % 2**16, d + e, (d + e) >> 1,
                bd, bd >> 1, (b.astype(i64) % 2**32 < d).astype(i64), (c.astype(i64) + d) % 2**32,
                (b.astype(i64).astype(u64) + g).view(i64), np.maximum(b.view(np.uint32), d),
                w.astype(np.int32) - b, ((e.view(u64) + g) >> u64(1)).view(i64)]
    for row, want in enumerate(expected):
        np.testing.assert_array_equal(out[row, :n], want.astype(i64), err_msg=f"row {row}")
    np.testing.assert_array_equal(flt[0, :n], w.astype(np.float32) * f)
    np.testing.assert_array_equal(flt[1, :n], (h + a.astype(np.float16)).astype(np.float32))
    np.testing.assert_array_equal(out[:, n:], 0)
    np.testing.assert_array_equal(flt[:, n:], 0)


@tessera.jit
def shifts_by_unsigned(i8_ptr, u8_ptr, i32_ptr, u32_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    row = tl.num_programs(0) * BLOCK
    c = tl.load(i8_ptr + offs, mask=mask)
    a = tl.load(u8_ptr + offs, mask=mask) & 7
    b = tl.load(i32_ptr + offs, mask=mask)
    d = tl.load(u32_ptr + offs, mask=mask) & 31
    tl.store(out_ptr + offs, c >> a, mask=mask)            # uint8, shifted as int8
    tl.store(out_ptr + row + offs, b >> d, mask=mask)      # uint32, shifted as int32
    tl.store(out_ptr + 2 * row + offs, d >> b.to(tl.uint32) % 32, mask=mask)   # logical


def test_a_signed_tensor_shifts_right_arithmetically(backend, rng):
    """As in Triton, >> takes its kind from the left tensor's own sign: int8 >>
    uint8 is a uint8 shifted in copies of the sign bit, not zeros."""
    n = 100
    c = rng.integers(-128, 128, n).astype(np.int8)
    a = random_unsigned(rng, np.uint8, n)
    b = rng.integers(-2**31, 2**31, n).astype(np.int32)
    d = random_unsigned(rng, np.uint32, n)
    cols = programs(n) * BLOCK
    out = np.zeros((3, cols), dtype=np.int64)
    shifts_by_unsigned[(programs(n),)](c, a, b, d, out, n, BLOCK=BLOCK)
    a7, d31 = (a & 7).astype(np.int64), (d & 31).astype(np.int64)
    np.testing.assert_array_equal(out[0, :n], (c.astype(np.int64) >> a7) % 256)
    np.testing.assert_array_equal(out[1, :n], (b.astype(np.int64) >> d31) % 2**32)
    np.testing.assert_array_equal(out[2, :n], d31 >> (b.view(np.uint32) % 32))


# ---------------------------------------------------------------------------
# Python literals and local integers
# ---------------------------------------------------------------------------


@tessera.jit
def uint32_literals(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    row = tl.num_programs(0) * BLOCK
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + 0xFFFFFFFF, mask=mask)              # x - 1, wrapped
    tl.store(out_ptr + row + offs, (x * 2654435761) >> 16, mask=mask)  # Knuth's hash
    tl.store(out_ptr + 2 * row + offs, 0xFFFFFFFF - x, mask=mask)
    tl.store(out_ptr + 3 * row + offs, tl.full([BLOCK], 0xFFFFFFFF, tl.uint32) >> (x & 31), mask=mask)
    tl.store(out_ptr + 4 * row + offs, tl.where(x > 0x80000000, x, 0x80000000) >> 1, mask=mask)
    tl.store(out_ptr + 5 * row + offs, x % 1000000007, mask=mask)
    tl.store(out_ptr + 6 * row + offs, x // 0x80000001, mask=mask)
    tl.store(out_ptr + 7 * row + offs, x >> 31, mask=mask)
    tl.store(out_ptr + 8 * row + offs, (x < 0x80000000).to(tl.uint32), mask=mask)
    lit = 4000000000
    tl.store(out_ptr + 9 * row + offs, (x * 0 + lit + lit) >> 31, mask=mask)  # 8e9 wraps: 1
    tl.store(out_ptr + 10 * row + offs, x + lit, mask=mask)


def test_literals_take_the_unsigned_tensors_type(backend, rng):
    """A Python integer next to a uint32 tensor is a uint32 (x + 0xFFFFFFFF is
    x - 1; x * 2654435761 is Knuth's multiplicative hash) and a literal in
    [2**31, 2**32) makes a uint32 tl.full; so does one assigned to a local."""
    n = 100
    x = random_unsigned(rng, np.uint32, n)
    x[10] = 0x80000001
    cols = programs(n) * BLOCK
    out = np.zeros((11, cols), dtype=np.uint32)
    uint32_literals[(programs(n),)](x, out, n, BLOCK=BLOCK)
    u32 = np.uint32
    expected = [x - u32(1), (x * u32(2654435761)) >> u32(16), ~x, u32(0xFFFFFFFF) >> (x & u32(31)),
                np.maximum(x, u32(0x80000000)) >> u32(1), x % u32(1000000007), x // u32(0x80000001),
                x >> u32(31), x < u32(0x80000000), np.ones(n), x + u32(4000000000)]
    for row, want in enumerate(expected):
        np.testing.assert_array_equal(out[row, :n], want.astype(u32), err_msg=f"row {row}")
    np.testing.assert_array_equal(out[:, n:], 0)


# ---------------------------------------------------------------------------
# Conversions and bitcasts
# ---------------------------------------------------------------------------


@tessera.jit
def unsigned_conversions(u32_ptr, f32_ptr, u8_ptr, i8_ptr, u64_ptr, f64_ptr, f32_out, u32_out,
                         i32_out, u8_out, f64_out, u64_out, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    row = tl.num_programs(0) * BLOCK
    u = tl.load(u32_ptr + offs, mask=mask)
    f = tl.load(f32_ptr + offs, mask=mask)
    a = tl.load(u8_ptr + offs, mask=mask)
    c = tl.load(i8_ptr + offs, mask=mask)
    g = tl.load(u64_ptr + offs, mask=mask)
    d = tl.load(f64_ptr + offs, mask=mask)
    tl.store(f32_out + offs, u.to(tl.float32), mask=mask)            # uitofp: 4e9 stays positive
    tl.store(f32_out + row + offs, u.to(tl.float32, bitcast=True), mask=mask)
    tl.store(u32_out + offs, f.to(tl.uint32), mask=mask)             # fptoui up to 2**32
    tl.store(u32_out + row + offs, c.to(tl.uint32), mask=mask)       # sign-extends: -1 is 0xFFFFFFFF
    bits = (-f).to(tl.uint32, bitcast=True)
    tl.store(u32_out + 2 * row + offs, bits >> 23 & 0xFF, mask=mask)  # the exponent
    tl.store(u32_out + 3 * row + offs, bits >> 23, mask=mask)         # sign and exponent
    tl.store(i32_out + offs, a.to(tl.int32), mask=mask)              # zero-extends
    tl.store(i32_out + row + offs, c.to(tl.uint8).to(tl.int32), mask=mask)
    tl.store(u8_out + offs, u.to(tl.uint8), mask=mask)               # truncates
    tl.store(f64_out + offs, g.to(tl.float64), mask=mask)
    tl.store(u64_out + offs, d.to(tl.uint64), mask=mask)
    tl.store(u64_out + row + offs, u.to(tl.uint64), mask=mask)       # zero-extends
    tl.store(u64_out + 2 * row + offs, c.to(tl.uint64), mask=mask)   # sign-extends


def test_conversions_and_bitcasts(backend, rng):
    n = 140
    u = random_unsigned(rng, np.uint32, n)
    u[7:10] = (4000000000, 0xFFFFFF00, 0x80000080)
    exponent = (u >> np.uint32(23)) & np.uint32(0xFF)
    u[exponent == 0xFF] ^= np.uint32(1 << 23)      # no NaN bit patterns for the bitcast
    f = np.where(np.arange(n) % 2 == 0,
                 rng.integers(0, 2**32, n) & 0xFFFFFF00,  # exact in float32, up to 2**32 - 256
                 rng.uniform(0, 1e6, n)).astype(np.float32)
    f[:3] = (3e9, 2.0**31, 4294967040.0)
    a = random_unsigned(rng, np.uint8, n)
    c = rng.integers(-128, 128, n).astype(np.int8)
    c[:2] = (-1, -128)
    g = random_unsigned(rng, np.uint64, n)
    d = np.where(np.arange(n) % 2 == 0,
                 (rng.integers(0, 2**64, n, dtype=np.uint64) & np.uint64(~0x7FF & (2**64 - 1))),
                 rng.uniform(0, 1e9, n)).astype(np.float64)
    d[:2] = (2.0**63, 1.5 * 2.0**63)
    cols = programs(n) * BLOCK
    f32_out, u32_out = np.zeros((2, cols), np.float32), np.zeros((4, cols), np.uint32)
    i32_out, u8_out = np.zeros((2, cols), np.int32), np.zeros((1, cols), np.uint8)
    f64_out, u64_out = np.zeros((1, cols), np.float64), np.zeros((3, cols), np.uint64)
    unsigned_conversions[(programs(n),)](u, f, a, c, g, d, f32_out, u32_out, i32_out, u8_out,
                                         f64_out, u64_out, n, BLOCK=BLOCK)
    np.testing.assert_array_equal(f32_out[0, :n], u.astype(np.float32))
    assert f32_out[0, 7] == np.float32(4e9)
    np.testing.assert_array_equal(f32_out[1, :n].view(np.uint32), u)
    np.testing.assert_array_equal(u32_out[0, :n], f.astype(np.uint32))
    np.testing.assert_array_equal(u32_out[1, :n], c.astype(np.int64) % 2**32)
    neg_bits = (-f).view(np.uint32)
    np.testing.assert_array_equal(u32_out[2, :n], (neg_bits >> np.uint32(23)) & np.uint32(0xFF))
    np.testing.assert_array_equal(u32_out[3, :n], neg_bits >> np.uint32(23))
    assert u32_out[3, 0] == 256 + 127 + 31     # -3e9: sign bit and exponent, shifted in zeros
    np.testing.assert_array_equal(i32_out[0, :n], a.astype(np.int32))
    np.testing.assert_array_equal(i32_out[1, :n], c.view(np.uint8).astype(np.int32))
    np.testing.assert_array_equal(u8_out[0, :n], u.astype(np.uint8))
    np.testing.assert_array_equal(f64_out[0, :n], g.astype(np.float64))
    np.testing.assert_array_equal(u64_out[0, :n], d.astype(np.uint64))
    np.testing.assert_array_equal(u64_out[1, :n], u.astype(np.uint64))
    np.testing.assert_array_equal(u64_out[2, :n], c.astype(np.int64).view(np.uint64))
    for out in (f32_out, u32_out, i32_out, u8_out, f64_out, u64_out):
        np.testing.assert_array_equal(out[:, n:], 0)


# ---------------------------------------------------------------------------
# Reductions and scans
# ---------------------------------------------------------------------------


@tessera.jit
def unsigned_reductions(x_ptr, ext_ptr, idx_ptr, sum_ptr, cum_ptr, n, HI: tl.constexpr,
                        SUB: tl.constexpr, TOP: tl.constexpr, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + r * n + offs, mask=mask, other=0)    # neutral for max and sum
    y = tl.load(x_ptr + r * n + offs, mask=mask, other=HI)   # neutral for min
    tl.store(ext_ptr + 2 * r, tl.max(x, 0))
    tl.store(ext_ptr + 2 * r + 1, tl.min(y, 0))
    tl.store(idx_ptr + 2 * r, tl.argmax(x, 0))
    tl.store(idx_ptr + 2 * r + 1, tl.argmin(y, 0))
    s = tl.sum(x, 0)                                          # uint32 for uint8 and uint16
    tl.store(sum_ptr + 3 * r, s)                              # sum_ptr is int64
    tl.store(sum_ptr + 3 * r + 1, s - SUB)                    # wraps
    tl.store(sum_ptr + 3 * r + 2, (s | TOP) >> 1)             # shifts in a zero
    tl.store(cum_ptr + r * n + offs, tl.cumsum(x, 0), mask=mask)


@pytest.mark.parametrize("dtype", UNSIGNED)
def test_reductions_order_and_sum_unsigned_values(backend, rng, dtype):
    """max, min, argmax and argmin of a masked row order values at or above
    2**(bits-1) as unsigned; tl.sum and tl.cumsum of uint8 and uint16 are
    uint32, of uint32 and uint64 their own type, and wrap."""
    check_unsigned_reductions(rng, dtype, np.asarray, np.zeros, np.asarray)


def check_unsigned_reductions(rng, dtype, put, zeros, get):
    """Runs unsigned_reductions on arrays made by `put` and `zeros` (of a
    device: test_gpu_devices.py) and checks what `get` reads back."""
    rows, n, block, bits = 3, 100, 128, bits_of(dtype)
    acc = np.uint32 if bits <= 32 else np.uint64
    acc_bits = bits_of(acc)
    sub = min(2**bits * 128, 2**(acc_bits - 1))
    x = random_unsigned(rng, dtype, (rows, n))
    x[1] = rng.integers(0, 2**(bits - 1), n).astype(dtype)      # a row below the sign bit ...
    x[1, 50] = 2**(bits - 1)                                    # ... but for one value
    x[2, 40] = 0                                                # one 0 with an edge row
    ext, sums, cum = zeros(2 * rows, dtype), zeros(3 * rows, np.int64), zeros((rows, n), acc)
    idx = put(np.full(2 * rows, -1, dtype=np.int32))
    unsigned_reductions[(rows,)](put(x), ext, idx, sums, cum, n, HI=2**bits - 1, SUB=sub,
                                 TOP=2**(acc_bits - 1), BLOCK=block)
    ext, idx, sums, cum = get(ext), get(idx), get(sums), get(cum)
    np.testing.assert_array_equal(ext[0::2], x.max(axis=1))
    np.testing.assert_array_equal(ext[1::2], x.min(axis=1))
    np.testing.assert_array_equal(idx[0::2], x.argmax(axis=1))
    np.testing.assert_array_equal(idx[1::2], x.argmin(axis=1))
    assert idx[2] == 50
    total = x.astype(np.uint64).sum(axis=1, dtype=np.uint64)   # wraps at 2**64
    if acc_bits == 32:
        total %= np.uint64(2**32)
    wrapped = (total - np.uint64(sub)) & np.uint64(2**acc_bits - 1)
    got = sums.view(np.uint64).reshape(rows, 3)
    np.testing.assert_array_equal(got[:, 0], total)
    np.testing.assert_array_equal(got[:, 1], wrapped)
    np.testing.assert_array_equal(got[:, 2], (total | np.uint64(2**(acc_bits - 1))) >> np.uint64(1))
    np.testing.assert_array_equal(cum, np.cumsum(x.astype(acc), axis=1, dtype=acc))


# ---------------------------------------------------------------------------
# Pointers, stores and atomics
# ---------------------------------------------------------------------------


@tessera.jit
def unsigned_stores_and_atomics(u16_ptr, u32_ptr, u64_ptr, i32_out, i64_out, f32_out, f64_out,
                                max_ptr, min_ptr, add_ptr, old_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    row = tl.num_programs(0) * BLOCK
    a = tl.load(u16_ptr + offs, mask=mask)
    b = tl.load(u32_ptr + offs, mask=mask)
    g = tl.load(u64_ptr + offs, mask=mask)
    tl.store(i32_out + offs, a, mask=mask)          # each store converts by value: zero-extends
    tl.store(i64_out + offs, b, mask=mask)
    tl.store(f32_out + offs, b, mask=mask)          # 4e9, not -2.9e8
    tl.store(f32_out + row + offs, a, mask=mask)
    tl.store(f64_out + offs, g, mask=mask)
    tl.store(old_ptr + offs, tl.atomic_max(max_ptr + offs, b, mask=mask), mask=mask)
    tl.store(old_ptr + row + offs, tl.atomic_min(min_ptr + offs, b, mask=mask), mask=mask)
    tl.store(old_ptr + 2 * row + offs, tl.atomic_add(add_ptr + offs, b, mask=mask), mask=mask)


def test_stores_convert_by_value_and_atomics_compare_unsigned(backend, rng):
    check_unsigned_stores_and_atomics(rng, np.asarray, np.zeros, np.asarray)


def check_unsigned_stores_and_atomics(rng, put, zeros, get):
    """Runs unsigned_stores_and_atomics on arrays made by `put` and `zeros`
    (of a device: test_gpu_devices.py) and checks what `get` reads back."""
    n = 120
    a = random_unsigned(rng, np.uint16, n)
    b = random_unsigned(rng, np.uint32, n)
    b[10] = 4000000000
    g = random_unsigned(rng, np.uint64, n)
    cols = programs(n) * BLOCK
    i32_out, i64_out = zeros(cols, np.int32), zeros(cols, np.int64)
    f32_out, f64_out = zeros((2, cols), np.float32), zeros(cols, np.float64)
    maxes, mins, adds = (random_unsigned(rng, np.uint32, cols) for _ in range(3))
    maxes[:8], mins[:8] = 2, 0xFFFFFFFE                         # against the edges of b
    before = [maxes.copy(), mins.copy(), adds.copy()]
    maxes, mins, adds = put(maxes), put(mins), put(adds)
    old = zeros((3, cols), np.uint32)
    unsigned_stores_and_atomics[(programs(n),)](put(a), put(b), put(g), i32_out, i64_out, f32_out,
                                                f64_out, maxes, mins, adds, old, n, BLOCK=BLOCK)
    i32_out, i64_out, f32_out, f64_out, old = (get(o) for o in (i32_out, i64_out, f32_out,
                                                                f64_out, old))
    maxes, mins, adds = get(maxes), get(mins), get(adds)
    np.testing.assert_array_equal(i32_out[:n], a.astype(np.int32))
    np.testing.assert_array_equal(i64_out[:n], b.astype(np.int64))
    np.testing.assert_array_equal(f32_out[0, :n], b.astype(np.float32))
    assert f32_out[0, 10] == np.float32(4e9)
    np.testing.assert_array_equal(f32_out[1, :n], a.astype(np.float32))
    np.testing.assert_array_equal(f64_out[:n], g.astype(np.float64))
    np.testing.assert_array_equal(maxes[:n], np.maximum(before[0][:n], b))
    np.testing.assert_array_equal(mins[:n], np.minimum(before[1][:n], b))
    np.testing.assert_array_equal(adds[:n], before[2][:n] + b)   # wraps at 2**32
    for row in range(3):
        np.testing.assert_array_equal(old[row, :n], before[row][:n])
    for after, then in zip((maxes, mins, adds), before):
        np.testing.assert_array_equal(after[n:], then[n:])
    for out in (i32_out, i64_out, f32_out, f64_out, old):
        np.testing.assert_array_equal(out[..., n:], 0)


# ---------------------------------------------------------------------------
# Loops, branches and arguments
# ---------------------------------------------------------------------------


@tessera.jit
def fnv_hash(x_ptr, out_ptr, n, rounds, flag, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    row = tl.num_programs(0) * BLOCK
    h = tl.full([BLOCK], 2166136261, tl.uint32)
    for i in range(rounds):
        x = tl.load(x_ptr + i * n + offs, mask=mask, other=0)
        h = h * 16777619 ^ x
    tl.store(out_ptr + offs, h, mask=mask)
    tl.store(out_ptr + row + offs, h >> 28, mask=mask)     # still uint32 after the loop
    if flag > 0:
        v = h * 3
    else:
        v = h + 0x80000000
    tl.store(out_ptr + 2 * row + offs, v >> 31, mask=mask)  # and after the branch
    tl.store(out_ptr + 3 * row + offs, v // 5, mask=mask)


@pytest.mark.parametrize("flag", [5, -2])
def test_loop_and_branch_carry_unsigned_values(backend, rng, flag):
    n, rounds = 77, 5
    x = random_unsigned(rng, np.uint32, (rounds, n))
    cols = programs(n) * BLOCK
    out = np.zeros((4, cols), dtype=np.uint32)
    fnv_hash[(programs(n),)](x, out, n, rounds, flag, BLOCK=BLOCK)
    u32 = np.uint32
    h = np.full(n, 2166136261, dtype=u32)
    for i in range(rounds):
        h = (h * u32(16777619)) ^ x[i]
    v = h * u32(3) if flag > 0 else h + u32(0x80000000)
    for row, want in enumerate([h, h >> u32(28), v >> u32(31), v // u32(5)]):
        np.testing.assert_array_equal(out[row, :n], want, err_msg=f"row {row}")
    np.testing.assert_array_equal(out[:, n:], 0)


@tessera.jit
def uint64_argument(x_ptr, out_ptr, cmp_ptr, big, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    row = tl.num_programs(0) * BLOCK
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + big, mask=mask)
    tl.store(out_ptr + row + offs, x ^ big, mask=mask)
    tl.store(out_ptr + 2 * row + offs, x // big, mask=mask)
    tl.store(out_ptr + 3 * row + offs, x % big, mask=mask)
    tl.store(out_ptr + 4 * row + offs, (x * 0 + big) >> 60, mask=mask)
    tl.store(cmp_ptr + offs, (x < big).to(tl.int8), mask=mask)


def test_python_int_argument_above_int64_is_uint64(backend, rng):
    """A Python int in [2**63, 2**64) is passed as a uint64 (as Triton does)."""
    n = 70
    big = int(rng.integers(2**63, 2**64, dtype=np.uint64))
    x = random_unsigned(rng, np.uint64, n)
    x[10] = big
    cols = programs(n) * BLOCK
    out = np.zeros((5, cols), dtype=np.uint64)
    cmp = np.zeros(cols, dtype=np.int8)
    uint64_argument[(programs(n),)](x, out, cmp, big, n, BLOCK=BLOCK)
    B = np.uint64(big)
    expected = [x + B, x ^ B, x // B, x % B, np.full(n, big >> 60, np.uint64)]
    for row, want in enumerate(expected):
        np.testing.assert_array_equal(out[row, :n], want, err_msg=f"row {row}")
    np.testing.assert_array_equal(cmp[:n], (x < B).astype(np.int8))
    np.testing.assert_array_equal(out[:, n:], 0)
    np.testing.assert_array_equal(cmp[n:], 0)


# ---------------------------------------------------------------------------
# Errors (as Triton raises them)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("op", ["/", "//", "%"])
@pytest.mark.parametrize("types", [(np.uint32, np.int32), (np.int64, np.uint8)])
def test_division_between_different_signedness_is_an_error(kernel_error, op, types):
    body = ["x = tl.load(x_ptr + tl.arange(0, 16))",
            "y = tl.load(y_ptr + tl.arange(0, 16))",
            f"tl.store(out_ptr + tl.arange(0, 16), x {op} y)"]
    text = kernel_error("x_ptr, y_ptr, out_ptr", body, np.ones(16, types[0]), np.ones(16, types[1]),
                        np.zeros(16, np.float32))
    assert "signedness" in text, text


@pytest.mark.parametrize("dtype,expression", [
    (np.uint32, "x + -1"), (np.uint8, "x * -3"), (np.uint64, "x > -1"), (np.uint16, "tl.maximum(x, -7)"),
])
def test_negative_literal_with_an_unsigned_tensor_is_an_error(kernel_error, dtype, expression):
    body = ["x = tl.load(x_ptr + tl.arange(0, 16))",
            f"tl.store(x_ptr + tl.arange(0, 16), {expression})"]
    text = kernel_error("x_ptr", body, np.ones(16, dtype))
    assert "negative" in text, text


@pytest.mark.parametrize("dtype,expression", [
    (np.uint8, "x + 256"), (np.uint16, "x ^ 65536"), (np.uint32, "x + 0x100000000"),
    (np.uint32, "x < 2**40"),
])
def test_literal_above_the_unsigned_types_range_is_an_error(kernel_error, dtype, expression):
    body = ["x = tl.load(x_ptr + tl.arange(0, 16))",
            f"tl.store(x_ptr + tl.arange(0, 16), {expression})"]
    text = kernel_error("x_ptr", body, np.ones(16, dtype))
    assert "out of range" in text, text


def test_dot_of_unsigned_operands_is_an_error(kernel_error):
    body = ["x = tl.load(x_ptr + tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :])",
            "tl.store(x_ptr + tl.arange(0, 16), tl.sum(tl.dot(x, x), axis=1))"]
    text = kernel_error("x_ptr", body, np.ones(256, np.uint8))
    assert "dot of uint8 operands is not supported" in text, text


@tessera.jit
def print_unsigned(x_ptr, y_ptr):
    tl.device_print("words ", tl.load(x_ptr + tl.arange(0, 2)), tl.load(y_ptr + tl.arange(0, 2)))


def test_device_print_shows_unsigned_values(backend, capfd):
    print_unsigned[(1,)](np.array([4000000000, 7], np.uint32),
                         np.array([2**64 - 5, 2**63], np.uint64))
    out = capfd.readouterr().out
    assert "4000000000" in out and "-294967296" not in out, out
    assert str(2**64 - 5) in out and str(2**63) in out and "-5" not in out, out


# ---------------------------------------------------------------------------
# Local integers (Triton makes them typed scalars, not literals)
# ---------------------------------------------------------------------------


@tessera.jit
def local_integers(u8_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    row = tl.num_programs(0) * BLOCK
    a = tl.load(u8_ptr + offs, mask=mask)
    lit = 4000000000   # Triton: a uint32 scalar
    five = 5           # Triton: an int32 scalar, which promotes uint8 to int32
    tl.store(out_ptr + offs, offs + lit, mask=mask)                    # uint32
    tl.store(out_ptr + row + offs, (offs + lit) * 2 >> 31, mask=mask)  # wraps at 2**32
    tl.store(out_ptr + 2 * row + offs, (offs * 0 + lit) >> 31, mask=mask)
    tl.store(out_ptr + 3 * row + offs, a + five, mask=mask)            # int32: 255 + 5 is 260
    tl.store(out_ptr + 4 * row + offs, a - five, mask=mask)            # int32: 3 - 5 is -2


def test_local_integers_are_typed_scalars(backend, rng):
    """As in Triton, an integer assigned to a local is a scalar of the literal's
    type: 4000000000 a uint32, so int32 + it is uint32; 5 an int32, so uint8 +
    it is int32 (no wrap at 256)."""
    n = 90
    a = random_unsigned(rng, np.uint8, n)
    cols = programs(n) * BLOCK
    out = np.zeros((5, cols), dtype=np.int64)
    local_integers[(programs(n),)](a, out, n, BLOCK=BLOCK)
    offs = np.arange(n, dtype=np.int64)
    expected = [offs + 4000000000, ((offs + 4000000000) * 2 % 2**32) >> 31, np.ones(n),
                a.astype(np.int64) + 5, a.astype(np.int64) - 5]
    for row, want in enumerate(expected):
        np.testing.assert_array_equal(out[row, :n], want, err_msg=f"row {row}")
    np.testing.assert_array_equal(out[:, n:], 0)
