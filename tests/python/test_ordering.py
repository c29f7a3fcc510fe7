"""tl.sort, tl.topk, tl.bitonic_merge and tl.flip (python/tessera/ordering.py)
against NumPy on fresh random tiles: every dtype family, ties, NaNs, both
directions, several rows."""

import numpy as np
import pytest

import tessera
import tessera.language as tl


@tessera.jit
def ordered(x_ptr, bitonic_ptr, up_ptr, down_ptr, top_ptr, bottom_ptr, merged_ptr,
            R: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rows = tl.arange(0, R)[:, None]
    offs = rows * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offs)
    tl.store(up_ptr + offs, tl.sort(x))
    tl.store(down_ptr + offs, tl.sort(x, dim=1, descending=True))
    top = rows * K + tl.arange(0, K)[None, :]
    tl.store(top_ptr + top, tl.topk(x, K))
    tl.store(bottom_ptr + top, tl.topk(x, K, descending=False))
    tl.store(merged_ptr + offs, tl.bitonic_merge(tl.load(bitonic_ptr + offs)))


def random_rows(rng, shape, dtype):
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    if np.issubdtype(dtype, np.unsignedinteger):
        # Ties, and values with the top bit set (negative if read as signed).
        pool = rng.integers(0, np.iinfo(dtype).max, 8, endpoint=True, dtype=dtype)
        return rng.choice(pool, shape)
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return rng.integers(max(info.min, -5), min(info.max, 5), shape, endpoint=True).astype(dtype)
    return (rng.standard_normal(shape) * 100).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64, np.int32, np.int8,
                                   np.uint8, np.uint16, np.uint32, np.uint64, np.int64, np.bool_])
@pytest.mark.parametrize("rows, n, k", [(1, 1, 1), (4, 16, 4), (2, 128, 8), (2, 64, 64)])
def test_sort_and_topk_match_numpy(backend, rng, dtype, rows, n, k):
    x = random_rows(rng, (rows, n), dtype)  # integers: many ties
    outs = [np.zeros((rows, n), dtype) for _ in range(2)]
    tops = [np.zeros((rows, k), dtype) for _ in range(2)]
    merged = np.zeros((rows, n), dtype)
    ascending = np.sort(x, axis=1)
    # Each row rising, then falling from a point drawn at random.
    peak = int(rng.integers(0, n + 1))
    bitonic = np.concatenate([np.sort(x[:, :peak], axis=1), np.sort(x[:, peak:], axis=1)[:, ::-1]],
                             axis=1)
    ordered[(1,)](x, bitonic, *outs, *tops, merged, R=rows, N=n, K=k)
    np.testing.assert_array_equal(outs[0], ascending)
    np.testing.assert_array_equal(outs[1], ascending[:, ::-1])
    np.testing.assert_array_equal(tops[0], ascending[:, ::-1][:, :k])
    np.testing.assert_array_equal(tops[1], ascending[:, :k])
    np.testing.assert_array_equal(merged, ascending)


@tessera.jit
def sort_rows(x_ptr, out_ptr, N: tl.constexpr, DESCENDING: tl.constexpr):
    offs = tl.program_id(0) * N + tl.arange(0, N)
    tl.store(out_ptr + offs, tl.sort(tl.load(x_ptr + offs), descending=DESCENDING))


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
def test_nans_rank_above_every_number_and_every_bit_is_kept(backend, rng, dtype):
    """A NaN of either sign counts as larger than every number: sorted last,
    as np.sort puts them (first when descending), in topk's largest; the
    infinities and zeros in their places; the output a permutation of the
    input's bits."""
    rows, n, k = 4, 64, 8
    x = rng.standard_normal((rows, n)).astype(dtype)
    x[0, rng.choice(n, 5, replace=False)] = np.nan
    x[1, :6] = [np.inf, -np.inf, np.nan, -0.0, 0.0, -np.nan]
    x[2, rng.choice(n, 12, replace=False)] = -np.nan
    outs = [np.zeros_like(x) for _ in range(2)]
    tops = [np.zeros((rows, k), dtype) for _ in range(2)]
    merged = np.zeros_like(x)
    halves = np.sort(x[:, :n // 2], axis=1), np.sort(x[:, n // 2:], axis=1)[:, ::-1]
    bitonic = np.concatenate(halves, axis=1)
    ordered[(1,)](x, bitonic, *outs, *tops, merged, R=rows, N=n, K=k)
    ascending = np.sort(x, axis=1)
    for got, expected in zip(outs + tops + [merged],
                             [ascending, ascending[:, ::-1], ascending[:, ::-1][:, :k],
                              ascending[:, :k], ascending]):
        np.testing.assert_array_equal(got, expected)
    bits = np.dtype(f"i{x.itemsize}")
    for got in outs:
        np.testing.assert_array_equal(np.sort(got.view(bits), axis=1),
                                      np.sort(x.view(bits), axis=1))


@tessera.jit
def flips(x_ptr, rows_ptr, cols_ptr, R: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, R)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offs)
    tl.store(rows_ptr + offs, tl.flip(x, 0))
    tl.store(cols_ptr + offs, tl.flip(x))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.int8, np.bool_, np.int64,
                                   np.uint32])
@pytest.mark.parametrize("rows, n", [(1, 1), (8, 4), (2, 256)])
def test_flip(backend, rng, dtype, rows, n):
    x = random_rows(rng, (rows, n), dtype)
    along_rows, along_columns = np.zeros_like(x), np.zeros_like(x)
    flips[(1,)](x, along_rows, along_columns, R=rows, N=n)
    np.testing.assert_array_equal(along_rows, x[::-1])
    np.testing.assert_array_equal(along_columns, x[:, ::-1])


@pytest.mark.parametrize("call, message", [
    ("tl.sort(x, dim=0)", "sort works along the last dimension only, got dim=0 of 2"),
    ("tl.sort(x, dim=2)", "sort: dim must be None or in [-2, 2), got 2"),
    ("tl.topk(x, 3)", "topk: k must be a power of two from 1 to 8, got 3"),
    ("tl.topk(x, 16)", "topk: k must be a power of two from 1 to 8, got 16"),
    ("tl.flip(tl.sum(x))", "flip needs a tile, got a scalar"),
    ("tl.sort(x_ptr + tl.arange(0, 8))", "sort does not take pointers"),
])
def test_errors_name_the_call(kernel_error, call, message):
    body = ["x = tl.load(x_ptr + tl.arange(0, 4)[:, None] * 8 + tl.arange(0, 8)[None, :])",
            f"tl.store(x_ptr, tl.sum(tl.sum({call})))"]
    assert message in kernel_error("x_ptr", body, np.zeros(32, np.float32))


@pytest.mark.parametrize("name", ["bfloat16", "float8_e4m3fn", "float8_e5m2"])
def test_sort_of_the_floats_numpy_lacks(backend, rng, name):
    """bf16 and both fp8 types (PyTorch tensors), NaN included: their keys
    count their own negative NaNs (e4m3 has one)."""
    torch = pytest.importorskip("torch")
    dtype = getattr(torch, name)
    gen = torch.Generator().manual_seed(int(rng.integers(2**31)))
    x = (torch.randn(4, 64, generator=gen) * 8).to(dtype)
    x[0, :3] = torch.tensor([float("nan"), -0.0, float("-nan")]).to(dtype)
    out = torch.empty_like(x)
    sort_rows[(4,)](x, out, N=64, DESCENDING=False)
    # NaN as +inf and back: torch.sort orders NaNs last too.
    expected = torch.sort(x.float().nan_to_num(float("inf")), dim=1).values
    assert torch.equal(out.float().nan_to_num(float("inf")), expected)
    bits = torch.int16 if dtype == torch.bfloat16 else torch.int8
    assert torch.equal(torch.sort(out.view(bits), dim=1).values,
                       torch.sort(x.view(bits), dim=1).values)
