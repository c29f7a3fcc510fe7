"""Boolean arrays (NumPy `bool`, PyTorch `torch.bool`) are `tl.int1`
pointers, as Triton's `*i1`: a byte per element, loaded as `byte != 0` (bytes
other than 0 and 1 included), stored as 0 or 1, a number stored through one
converted as `value != 0`; `x.to(z.dtype.element_ty)` into a bool array is
that comparison, not a truncation. Booleans are unsigned as in Triton: True
is greater than False, and sums and prefix sums of booleans are uint32.
Every expectation here was confirmed on Triton's interpreter."""

import numpy as np
import pytest

import tessera
import tessera.language as tl

BLOCK = 64


@tessera.jit
def bool_ops(flags_ptr, x_ptr, out_ptr, ints_ptr, n, BLOCK: tl.constexpr):
    tl.static_assert(flags_ptr.dtype.element_ty == tl.int1)
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    row = tl.num_programs(0) * BLOCK
    flags = tl.load(flags_ptr + offs, mask=mask, other=True)
    tl.static_assert(flags.dtype == tl.int1)
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(out_ptr + offs, ~flags | (x > 0.5), mask=mask)
    tl.store(out_ptr + row + offs, x, mask=mask)                                  # x != 0
    tl.store(out_ptr + 2 * row + offs, x.to(out_ptr.dtype.element_ty), mask=mask)  # x != 0
    tl.store(out_ptr + 3 * row + offs, tl.where(flags, x < 0, flags), mask=mask)
    tl.store(ints_ptr + offs, flags + 1, mask=mask)                               # int32
    count = tl.sum(tl.where(mask, flags, False), axis=0)
    tl.static_assert(count.dtype == tl.uint32)
    tl.atomic_add(ints_ptr + row, count)


def random_flag_bytes(rng, n):
    """Bytes read as booleans: zeros, ones and other non-zero bytes (true,
    as C++ and NumPy read a bool they did not write)."""
    raw = rng.integers(0, 256, n).astype(np.uint8)
    raw[rng.random(n) < 0.4] = 0
    raw[:3] = [0, 1, 2][:n]
    return raw


def check_bool_ops(rng, n, put, get):
    """Runs bool_ops on arrays `put` makes from NumPy ones (on a device:
    test_gpu_devices.py) and checks what `get` reads back."""
    raw = random_flag_bytes(rng, n)
    x = rng.standard_normal(n).astype(np.float32)
    x[::5] = 0.0
    programs = (n + BLOCK - 1) // BLOCK
    row = programs * BLOCK
    out = put(np.full(4 * row, True))
    ints = put(np.zeros(row + 1, np.int32))
    bool_ops[(programs,)](put(raw.view(np.bool_)), put(x), out, ints, n, BLOCK=BLOCK)
    out, ints = get(out).view(np.uint8), get(ints)
    flags = raw != 0
    expected = [~flags | (x > 0.5), x != 0, x != 0, np.where(flags, x < 0, flags)]
    for i, want in enumerate(expected):
        np.testing.assert_array_equal(out[i * row:i * row + n], want.astype(np.uint8),
                                      err_msg=f"result {i}")
        np.testing.assert_array_equal(out[i * row + n:(i + 1) * row], 1)  # untouched
    np.testing.assert_array_equal(ints[:n], flags + 1)
    assert ints[row] == np.count_nonzero(flags)


@pytest.mark.parametrize("n", [1, 61, 200])
def test_numpy_bool_arrays(backend, rng, n):
    check_bool_ops(rng, n, lambda a: a, lambda a: a)


def test_torch_bool_tensors(backend, rng):
    torch = pytest.importorskip("torch")
    check_bool_ops(rng, 150, torch.from_numpy, lambda t: t.numpy())


@tessera.jit
def count_below(x_ptr, flags_ptr, counts_ptr, n, LIMIT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    flags = tl.load(x_ptr + offs, mask=offs < n, other=LIMIT) < LIMIT
    tl.store(flags_ptr + offs, flags, mask=offs < n)
    tl.store(counts_ptr + offs, tl.cumsum(flags, axis=0), mask=offs < n)
    # uint32, as Triton's: none below LIMIT gives 0 - 1 = 2**32 - 1.
    tl.store(counts_ptr + BLOCK, tl.sum(flags, axis=0) - 1)


def test_counts_of_booleans_are_uint32(backend, rng):
    n = 50
    x = rng.integers(0, 100, n).astype(np.int32)
    flags = np.zeros(n, np.bool_)
    counts = np.zeros(BLOCK + 1, np.uint32)
    count_below[(1,)](x, flags, counts, n, LIMIT=40, BLOCK=BLOCK)
    np.testing.assert_array_equal(flags, x < 40)
    np.testing.assert_array_equal(counts[:n], np.cumsum(x < 40))
    assert counts[BLOCK] == np.uint32(np.count_nonzero(x < 40) - 1)
    count_below[(1,)](x, flags, counts, n, LIMIT=0, BLOCK=BLOCK)
    assert counts[BLOCK] == 2**32 - 1


@tessera.jit
def bool_comparisons(x_ptr, y_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x, y = tl.load(x_ptr + offs), tl.load(y_ptr + offs)
    tl.store(out_ptr + offs, x > y)
    tl.store(out_ptr + N + offs, x <= y)
    tl.store(out_ptr + 2 * N + offs, tl.maximum(x, y))
    tl.store(out_ptr + 3 * N + offs, tl.minimum(x, y))
    tl.store(out_ptr + 4 * N + offs, tl.where(x >= y, x, y) == tl.maximum(x, y))


def test_booleans_compare_as_unsigned(backend, rng):
    x, y = rng.random(32) < 0.5, rng.random(32) < 0.5
    out = np.zeros(5 * 32, np.bool_)
    bool_comparisons[(1,)](x, y, out, N=32)
    expected = [x > y, x <= y, x | y, x & y, np.ones(32, np.bool_)]
    np.testing.assert_array_equal(out.reshape(5, 32), expected)


@tessera.jit
def bool_floordiv(flags_ptr):
    offs = tl.arange(0, 8)
    tl.store(flags_ptr + offs, tl.load(flags_ptr + offs) // 2)


def test_dividing_booleans_by_signed_integers_is_refused(backend):
    with pytest.raises(tessera.CompilationError, match="int1 and int32 because they have "
                                                        "different signedness"):
        bool_floordiv[(1,)](np.zeros(8, np.bool_))


@tessera.jit
def bool_atomic(flags_ptr):
    tl.atomic_or(flags_ptr + tl.arange(0, 8), tl.arange(0, 8) > 3)


def test_atomics_on_bool_arrays_are_refused(backend):
    with pytest.raises(tessera.CompilationError, match="atomics need 16-, 32- or 64-bit elements"):
        bool_atomic[(1,)](np.zeros(8, np.bool_))
