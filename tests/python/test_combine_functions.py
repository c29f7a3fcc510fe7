"""tl.reduce and tl.associative_scan with combine functions written as
@jit functions (Triton's API), tl.cumprod and tl.xor_sum, checked against
NumPy on the interpreter and the CPU backend with ragged rows masked to the
combination's identity; test_gpu_devices runs the same kernels on lavapipe."""

import numpy as np
import pytest

import tessera
import tessera.language as tl


@tessera.jit
def add_combine(a, b):
    return a + b


@tessera.jit
def argmax_combine(value_a, index_a, value_b, index_b):
    """The larger value and its index; of equal values the first index, so
    that the order of combination does not show."""
    keep_a = (value_a > value_b) | ((value_a == value_b) & (index_a < index_b))
    return tl.where(keep_a, value_a, value_b), tl.where(keep_a, index_a, index_b)


@tessera.jit
def first_nonzero(a, b):
    """Associative but not commutative: a scan must combine in order."""
    return tl.where(a != 0, a, b)


@tessera.jit
def combining_kernel(x_ptr, out_ptr, rows, cols, OP: tl.constexpr, AXIS: tl.constexpr,
                     R: tl.constexpr, C: tl.constexpr):
    r = tl.arange(0, R)
    c = tl.arange(0, C)
    mask = (r[:, None] < rows) & (c[None, :] < cols)
    offsets = r[:, None] * C + c[None, :]
    fill = -float("inf") if OP == "argmax" else 1.0 if OP == "cumprod" else 0.0
    x = tl.load(x_ptr + offsets, mask=mask, other=fill)
    if OP == "sum":
        y = tl.reduce(x, AXIS, add_combine)
    elif OP == "sum_keep":
        y = tl.reduce(x, AXIS, add_combine, keep_dims=True)
    elif OP == "argmax":
        index = tl.broadcast_to(c[None, :], (R, C)) if AXIS == 1 else tl.broadcast_to(r[:, None],
                                                                                     (R, C))
        _, y = tl.reduce((x, index), AXIS, argmax_combine)
    elif OP == "scan":
        y = tl.associative_scan(x, AXIS, add_combine)
    elif OP == "scan_reverse":
        y = tl.associative_scan(x, AXIS, add_combine, reverse=True)
    elif OP == "first_nonzero":
        y = tl.associative_scan(x, AXIS, first_nonzero)
    elif OP == "cumprod":
        y = tl.cumprod(x, AXIS)
    else:  # "all": every element, in row-major order
        y = tl.reduce(x, None, add_combine)
    size = 1
    for d in y.shape:
        size *= d
    tl.store(out_ptr + tl.arange(0, size), tl.reshape(y, [size]) if y.shape else y)


def reference(op, x, axis):
    if op in ("sum", "sum_keep"):
        return x.sum(axis=axis, keepdims=op == "sum_keep")
    if op == "argmax":
        return x.argmax(axis=axis)
    if op == "scan":
        return np.cumsum(x, axis=axis)
    if op == "scan_reverse":
        return np.flip(np.cumsum(np.flip(x, axis), axis=axis), axis)
    if op == "cumprod":
        return np.cumprod(x, axis=axis)
    if op == "first_nonzero":
        out = np.zeros_like(x)
        moved = np.moveaxis(x, axis, -1)
        result = np.moveaxis(out, axis, -1)
        for index in np.ndindex(moved.shape[:-1]):
            seen = 0.0
            for j, value in enumerate(moved[index]):
                seen = seen if seen != 0 else value
                result[index + (j,)] = seen
        return out
    return x.sum()


@pytest.mark.parametrize("op", ["sum", "sum_keep", "argmax", "scan", "scan_reverse",
                                "first_nonzero", "cumprod"])
@pytest.mark.parametrize("axis", [0, 1])
def test_combine_functions(backend, rng, op, axis):
    rows, cols, R, C = 6, 13, 8, 16
    x = np.zeros((R, C), dtype=np.float32)
    if op == "cumprod":
        x[:rows, :cols] = rng.uniform(0.5, 1.5, (rows, cols))
    elif op == "first_nonzero":
        x[:rows, :cols] = rng.integers(-2, 3, (rows, cols)) * (rng.random((rows, cols)) < 0.3)
    elif op == "argmax":
        x[:rows, :cols] = rng.integers(0, 4, (rows, cols))  # ties: the first index must win
    else:
        x[:rows, :cols] = rng.standard_normal((rows, cols))
    dtype = np.int32 if op == "argmax" else np.float32
    out = np.full(R * C, -7, dtype=dtype)
    combining_kernel[(1,)](x, out, rows, cols, OP=op, AXIS=axis, R=R, C=C)
    # Masked-off elements hold the identity of the combination (0, 1, -inf).
    data = x[:rows, :cols].astype(np.float64)
    expected = np.asarray(reference(op, data, axis))
    if op in ("sum", "sum_keep", "argmax"):
        got = out[:R if axis == 1 else C][:expected.size]
        got = got[:rows] if axis == 1 else got[:cols]
        np.testing.assert_allclose(got.reshape(expected.shape), expected, rtol=1e-5, atol=1e-5)
    else:
        got = out.reshape(R, C)[:rows, :cols]
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


def test_reduce_over_all_elements(backend, rng):
    x = rng.standard_normal((8, 16)).astype(np.float32)
    out = np.zeros(1, dtype=np.float32)
    combining_kernel[(1,)](x, out, 8, 16, OP="all", AXIS=0, R=8, C=16)
    # A float32 sum of signed values errs relative to their magnitudes, not to
    # the sum, which cancellation may bring near zero (seed 2256723569: -0.062).
    np.testing.assert_allclose(out[0], x.astype(np.float64).sum(), rtol=1e-5,
                               atol=1e-6 * np.abs(x).sum())


@tessera.jit
def xor_kernel(x_ptr, out_ptr, N: tl.constexpr):
    tl.store(out_ptr, tl.xor_sum(tl.load(x_ptr + tl.arange(0, N))))


def test_xor_sum(backend, rng):
    x = rng.integers(0, 2**31 - 1, 64, dtype=np.int32)
    out = np.zeros(1, dtype=np.int32)
    xor_kernel[(1,)](x, out, N=64)
    assert out[0] == np.bitwise_xor.reduce(x)


@tessera.jit
def wrong_count(a_value, a_index, b_value, b_index):
    return a_value


@tessera.jit
def misuse_kernel(x_ptr, CASE: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    if CASE == "count":
        tl.reduce((x, x), 0, wrong_count)
    elif CASE == "python":
        tl.reduce(x, 0, max)
    else:
        tl.reduce((x, tl.arange(0, 8)), 0, argmax_combine)


@pytest.mark.parametrize("case, message", [
    ("count", "reduce: the combine function returns 1 values for 2 tiles"),
    ("python", "reduce: the combine function must be a @tessera.jit function"),
    ("shapes", r"reduce needs tiles of one shape, got \[16\] and \[8\]"),
])
def test_combine_errors(case, message):
    with pytest.raises(tessera.CompilationError, match=message):
        misuse_kernel[(1,)](np.zeros(16, dtype=np.float32), CASE=case)

