"""tl.gather and tl.histogram against NumPy on fresh random tiles (every axis,
index and value dtype, masks, values outside the bins), and their errors."""

import numpy as np
import pytest

import tessera
import tessera.language as tl


@tessera.jit
def gather_2d(src_ptr, index_ptr, out_ptr, R: tl.constexpr, C: tl.constexpr,
              IR: tl.constexpr, IC: tl.constexpr, AXIS: tl.constexpr):
    src = tl.load(src_ptr + tl.arange(0, R)[:, None] * C + tl.arange(0, C)[None, :])
    offs = tl.arange(0, IR)[:, None] * IC + tl.arange(0, IC)[None, :]
    tl.store(out_ptr + offs, tl.gather(src, tl.load(index_ptr + offs), AXIS))


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int64, np.int8, np.bool_])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64, np.int16, np.uint8])
@pytest.mark.parametrize("shape, index_shape, axis", [((16, 32), (16, 8), 1), ((16, 32), (64, 32), 0),
                                                     ((1, 4), (1, 4), 1), ((8, 8), (8, 8), 0)])
def test_gather_matches_take_along_axis(backend, rng, dtype, index_dtype, shape, index_shape,
                                        axis):
    src = (rng.standard_normal(shape) * 50).astype(dtype)
    index = rng.integers(0, shape[axis], index_shape).astype(index_dtype)
    out = np.zeros(index_shape, dtype)
    gather_2d[(1,)](src, index, out, R=shape[0], C=shape[1], IR=index_shape[0],
                    IC=index_shape[1], AXIS=axis)
    np.testing.assert_array_equal(out, np.take_along_axis(src, index.astype(np.int64), axis))


@tessera.jit
def gather_3d_method(src_ptr, index_ptr, out_ptr, A: tl.constexpr, B: tl.constexpr,
                     C: tl.constexpr, K: tl.constexpr):
    a = tl.arange(0, A)[:, None, None]
    c = tl.arange(0, C)[None, None, :]
    src = tl.load(src_ptr + a * B * C + tl.arange(0, B)[None, :, None] * C + c)
    offs = a * K * C + tl.arange(0, K)[None, :, None] * C + c
    tl.store(out_ptr + offs, src.gather(tl.load(index_ptr + offs), axis=-2))


def test_gather_middle_axis_of_three_as_method(backend, rng):
    src = rng.standard_normal((4, 16, 8)).astype(np.float32)
    index = rng.integers(0, 16, (4, 32, 8)).astype(np.int32)
    out = np.zeros((4, 32, 8), np.float32)
    gather_3d_method[(1,)](src, index, out, A=4, B=16, C=8, K=32)
    np.testing.assert_array_equal(out, np.take_along_axis(src, index, 1))


@tessera.jit
def masked_histogram(x_ptr, out_ptr, n, N: tl.constexpr, BINS: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    tl.store(out_ptr + tl.arange(0, BINS), tl.histogram(x, BINS, mask=offs < n))


def histogram_reference(x, bins):
    x = x.astype(np.int64)
    return np.bincount(x[(x >= 0) & (x < bins)], minlength=bins).astype(np.int32)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.int8, np.int16, np.uint8])
@pytest.mark.parametrize("n_valid, n, bins", [(1024, 1024, 64), (1000, 1024, 256), (3, 4, 8),
                                              (100, 128, 1)])
def test_histogram_counts_in_range_unmasked_values(backend, rng, dtype, n_valid, n, bins):
    info = np.iinfo(dtype)
    # Values below 0 and at or above the bins are left out.
    x = rng.integers(max(info.min, -bins // 2 - 3), min(info.max, bins + bins // 2 + 3), n,
                     endpoint=True).astype(dtype)
    out = np.full(bins, -1, np.int32)
    masked_histogram[(1,)](x, out, n_valid, N=n, BINS=bins)
    np.testing.assert_array_equal(out, histogram_reference(x[:n_valid], bins))


@tessera.jit
def histogram_all(x_ptr, out_ptr, N: tl.constexpr, BINS: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.store(out_ptr + tl.arange(0, BINS), x.histogram(BINS))


def test_histogram_of_one_repeated_value_and_bins_beyond_int8(backend):
    x = np.full(512, 7, np.int8)
    x[::2] = -1  # 255 if read unsigned: outside the bins all the same
    out = np.zeros(256, np.int32)
    histogram_all[(1,)](x, out, N=512, BINS=256)
    expected = np.zeros(256, np.int32)
    expected[7] = 256
    np.testing.assert_array_equal(out, expected)


@tessera.jit
def squeezed(x_ptr, out_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N)[None, :])
    y = tl.unsqueeze(tl.squeeze(x, 0), 1)
    total = tl.sum(tl.squeeze(y, -1))
    i = 0
    while tl.condition(i < 3):
        total = tl.expect_zero(total, total == 0) + 1
        i += 1
    tl.store(out_ptr, total)


def test_squeeze_unsqueeze_and_while_condition(backend, rng):
    x = rng.integers(-9, 9, 16).astype(np.int32)
    out = np.zeros(1, np.int32)
    squeezed[(1,)](x, out, N=16)
    assert out[0] == x.sum() + 3


def test_gather_errors_name_the_line(kernel_error):
    setup = ["x = tl.load(p + tl.arange(0, 16)[:, None] * 8 + tl.arange(0, 8)[None, :])"]
    assert "gather indices must have the rank of the source [16, 8], got [16]" in kernel_error(
        "p", setup + ["tl.gather(x, tl.arange(0, 16), 0)"], np.zeros(128, np.float32))
    assert "must match the source [16, 8] on every axis but 1" in kernel_error(
        "p", setup + ["tl.gather(x, tl.zeros((8, 4), tl.int32), 1)"], np.zeros(128, np.float32))
    assert "gather indices must be integers" in kernel_error(
        "p", setup + ["tl.gather(x, x, 1)"], np.zeros(128, np.float32))
    assert "gather: axis 2 is out of range for a tile of rank 2" in kernel_error(
        "p", setup + ["tl.gather(x, tl.zeros((16, 8), tl.int32), 2)"], np.zeros(128, np.float32))


def test_histogram_and_squeeze_errors_name_the_line(kernel_error):
    assert "histogram needs a 1-D tile of integers" in kernel_error(
        "p", ["tl.histogram(tl.load(p + tl.arange(0, 16)), 8)"], np.zeros(16, np.float32))
    assert "number of bins must be a power of two, got 12" in kernel_error(
        "p", ["tl.histogram(tl.load(p + tl.arange(0, 16)), 12)"], np.zeros(16, np.int32))
    assert "squeeze: dimension 1 of a tensor of shape [4, 2] has length 2, not 1" in kernel_error(
        "p", ["tl.squeeze(tl.zeros((4, 2), tl.int32), 1)"], np.zeros(1, np.int32))


@tessera.jit
def gather_one_index(src_ptr, index_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(out_ptr + offs, tl.gather(tl.load(src_ptr + offs), tl.load(index_ptr + offs), 0))


def test_interpreter_reports_an_index_outside_the_axis(monkeypatch):
    monkeypatch.setenv("TESSERA_INTERPRET", "1")
    index = np.zeros(8, np.int32)
    index[5] = 8
    with pytest.raises(Exception, match=r"gather index 8 is outside \[0, 8\) of axis 0"):
        gather_one_index[(1,)](np.zeros(8, np.float32), index, np.zeros(8, np.float32), N=8)


def test_compiled_code_stays_in_the_slice_for_indices_outside_it(rng, monkeypatch):
    if not tessera.cpu_available():
        pytest.skip("this build of tessera has no CPU lowering")
    monkeypatch.setenv("TESSERA_INTERPRET", "0")
    src = rng.standard_normal(16).astype(np.float32)
    index = np.array([-1, 16, 17, 1 << 20, -16, 3, 40, -100] * 2, np.int32)
    out = np.zeros(16, np.float32)
    gather_one_index[(1,)](src, index, out, N=16)
    assert np.isin(out, src).all()
