"""Launching: grids, launch options, argument kinds (NumPy, DLPack/torch,
scalars), the specialization key and its cache, backend selection."""

import re

import numpy as np
import pytest

import tessera
import tessera.language as tl


@tessera.jit
def fill_kernel(out_ptr, n, value, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, value, mask=offs < n)


@pytest.mark.parametrize("grid", [(4,), (4, 1), (4, 1, 1), 4, lambda meta: (tessera.cdiv(100, meta["BLOCK"]),)])
def test_grid_forms(backend, grid):
    out = np.zeros(100, dtype=np.float32)
    fill_kernel[grid](out, 100, 2.5, BLOCK=32, num_warps=4, num_stages=3)
    np.testing.assert_array_equal(out, 2.5)


def test_grid_callable_sees_all_arguments(backend):
    seen = {}

    def grid(meta):
        seen.update(meta)
        return (1,)

    out = np.zeros(8, dtype=np.float32)
    fill_kernel[grid](out, 8, 1.0, BLOCK=8)
    assert seen["n"] == 8 and seen["BLOCK"] == 8 and seen["value"] == 1.0


def test_empty_grid_runs_nothing(backend):
    out = np.zeros(8, dtype=np.float32)
    fill_kernel[(0,)](out, 8, 1.0, BLOCK=8)
    assert not out.any()


def test_specialization_attributes():
    aligned = np.zeros(64, dtype=np.float32)
    assert aligned.ctypes.data % 16 == 0
    ir = fill_kernel.ir(aligned, 64, 1.0, BLOCK=16)
    # aligned pointer and an int divisible by 16: tile.divisibility = 16
    assert re.search(r"%arg0: !tile.ptr<f32> \{tile.divisibility = 16 : i32\}", ir), ir
    assert re.search(r"%arg1: i32 \{tile.divisibility = 16 : i32\}", ir), ir
    assert re.search(r"%arg2: f32[,)]", ir), ir
    ir = fill_kernel.ir(aligned[1:], 63, 1.0, BLOCK=16)
    assert re.search(r"%arg0: !tile.ptr<f32>,", ir) and re.search(r"%arg1: i32,", ir), ir
    # a multiple of 8 but not of 16 (K = 1000): tile.divisibility = 8, unlike Triton
    ir = fill_kernel.ir(aligned, 1000, 1.0, BLOCK=16)
    assert re.search(r"%arg1: i32 \{tile.divisibility = 8 : i32\}", ir), ir


def test_int_equal_to_one_is_a_constant():
    @tessera.jit
    def strided(x_ptr, stride, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK) * stride
        tl.store(x_ptr + offs, 1.0)

    x = np.zeros(64, dtype=np.float32)
    ir_one = strided.ir(x, 1, BLOCK=16)
    ir_two = strided.ir(x, 2, BLOCK=16)
    # stride == 1 is a compile-time constant: the argument is not used.
    assert "%arg1" in ir_two.split(") {", 1)[1]
    assert "%arg1" not in ir_one.split(") {", 1)[1]
    assert "arith.constant 1 : i32" in ir_one
    assert re.search(r"%arg1: i32 \{tile.equal_to_1\}", ir_one), ir_one
    assert "tile.equal_to_1" not in ir_two


def test_cache(monkeypatch):
    monkeypatch.setenv("TESSERA_INTERPRET", "1")

    @tessera.jit
    def k(out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(out_ptr + offs, n, mask=offs < n)

    a = np.zeros(64, dtype=np.int32)
    first = k[(1,)](a, 20, BLOCK=64)
    assert k[(1,)](a, 21, BLOCK=64) is first             # same key: 20 and 21 are not multiples of 8
    assert k[(1,)](a, 32, BLOCK=64) is not first         # 32 is: another specialization
    assert k[(1,)](a, 24, BLOCK=64) is not first         # 24 is a multiple of 8: another one
    assert k[(1,)](a, 20, BLOCK=32) is not first         # another constexpr
    assert k[(1,)](a.astype(np.int64), 20, BLOCK=64) is not first  # another dtype
    assert len(k.cache) == 5
    assert a[:20].tolist() == [20] * 20


GLOBAL_SCALE = 2


@tessera.jit
def uses_global(out_ptr):
    tl.store(out_ptr, GLOBAL_SCALE * 10)


def test_changed_global_recompiles(monkeypatch):
    global GLOBAL_SCALE
    monkeypatch.setenv("TESSERA_INTERPRET", "1")
    out = np.zeros(1, dtype=np.int32)
    uses_global[(1,)](out)
    assert out[0] == 20
    monkeypatch.setattr(__import__(__name__), "GLOBAL_SCALE", 3)
    uses_global[(1,)](out)
    assert out[0] == 30


def test_interpret_env_selects_the_interpreter(monkeypatch):
    monkeypatch.setenv("TESSERA_INTERPRET", "1")
    out = np.zeros(8, dtype=np.float32)
    compiled = fill_kernel[(1,)](out, 8, 3.0, BLOCK=8)
    assert compiled.backend == "interpreter"
    monkeypatch.setenv("TESSERA_INTERPRET", "0")
    compiled = fill_kernel[(1,)](out, 8, 3.0, BLOCK=8)
    assert compiled.backend == ("cpu" if tessera.cpu_available() else "interpreter")


def test_scalar_argument_kinds(backend):
    @tessera.jit
    def scalars(out_ptr, i, big, f, b):
        tl.store(out_ptr, i.to(tl.float64))
        tl.store(out_ptr + 1, big.to(tl.float64))
        tl.store(out_ptr + 2, f)
        tl.store(out_ptr + 3, b.to(tl.float64))

    out = np.zeros(4, dtype=np.float64)
    scalars[(1,)](out, -7, 2**40, 0.25, True)
    np.testing.assert_array_equal(out, [-7, 2**40, 0.25, 1])
    assert "i64" in scalars.ir(out, -7, 2**40, 0.25, True)
    # NumPy scalars count as Python numbers
    scalars[(1,)](out, np.int32(5), np.int64(2**40), np.float32(0.5), False)
    np.testing.assert_array_equal(out, [5, 2**40, 0.5, 0])


def test_none_argument_is_a_constant(backend):
    @tessera.jit
    def maybe_bias(x_ptr, bias_ptr, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs)
        if bias_ptr is not None:
            x += tl.load(bias_ptr + offs)
        tl.store(x_ptr + offs, x)

    x = np.ones(8, dtype=np.float32)
    maybe_bias[(1,)](x, None, BLOCK=8)
    np.testing.assert_array_equal(x, 1)
    maybe_bias[(1,)](x, np.full(8, 2, np.float32), BLOCK=8)
    np.testing.assert_array_equal(x, 3)


# ---------------------------------------------------------------------------
# DLPack / PyTorch
# ---------------------------------------------------------------------------


@tessera.jit
def axpy(x_ptr, y_ptr, out_ptr, a, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, a * x + y, mask=mask)


@pytest.mark.parametrize("dtype_name", ["float32", "float16", "bfloat16", "float64"])
def test_torch_tensors(backend, dtype_name):
    torch = pytest.importorskip("torch")
    dtype = getattr(torch, dtype_name)
    n = 1001
    x = torch.randn(n, dtype=dtype)
    y = torch.randn(n, dtype=dtype)
    out = torch.empty_like(x)
    axpy[(tessera.cdiv(n, 128),)](x, y, out, 2.0, n, BLOCK=128)
    ref = (2.0 * x.double() + y.double())
    tol = {"float32": 1e-6, "float16": 2e-3, "bfloat16": 2e-2, "float64": 1e-12}[dtype_name]
    torch.testing.assert_close(out.double(), ref, rtol=tol, atol=tol * 4)


@tessera.jit
def float8_round_trip(x_ptr, q_ptr, sum_ptr, back_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    q = tl.load(x_ptr + offs, mask=mask).to(q_ptr.dtype.element_ty)
    tl.store(q_ptr + offs, q, mask=mask)
    tl.store(sum_ptr + offs, q + q, mask=mask)
    tl.store(back_ptr + offs, q.to(tl.float32), mask=mask)


@tessera.jit
def matmul_into_f32(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                    BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :],
                    mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :],
                    mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@tessera.jit
def float8_integers(q_ptr, i_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    q = (offs - BLOCK // 2).to(q_ptr.dtype.element_ty)
    tl.store(q_ptr + offs, q)
    tl.store(i_ptr + offs, (q * q).to(tl.int32))


@tessera.jit
def float8_row_max(x_ptr, max_ptr, where_ptr, N: tl.constexpr):
    row = tl.program_id(0)
    values = tl.load(x_ptr + row * N + tl.arange(0, N))
    tl.store(max_ptr + row, tl.max(values, axis=0))
    tl.store(where_ptr + row, tl.argmax(values, axis=0))


@pytest.mark.parametrize("dtype_name,largest", [("float8_e4m3fn", 448.0), ("float8_e5m2", 57344.0)])
def test_torch_float8_tensors(backend, dtype_name, largest):
    """fp8 tensors in and out: conversions round to nearest even and
    saturate (PyTorch's own cast makes NaN of e4m3's overflow, so the
    reference clamps first), arithmetic rounds once, dots are exact here."""
    torch = pytest.importorskip("torch")
    dtype = getattr(torch, dtype_name)
    gen = torch.Generator().manual_seed(5)
    n = 3001
    x = torch.randn(n, generator=gen) * torch.exp2(torch.randint(-22, 20, (n,), generator=gen).float())
    x[:3] = torch.tensor([float("inf"), float("-inf"), 2.0 * largest])
    q, doubled, back = torch.empty(n, dtype=dtype), torch.empty(n, dtype=dtype), torch.empty(n)
    float8_round_trip[(tessera.cdiv(n, 256),)](x, q, doubled, back, n, BLOCK=256)
    expected = x.clamp(-largest, largest).to(dtype)
    assert torch.equal(q.view(torch.uint8), expected.view(torch.uint8))
    assert torch.equal(back, expected.float())
    expected_sum = (2 * expected.float()).clamp(-largest, largest).to(dtype)
    assert torch.equal(doubled.view(torch.uint8), expected_sum.view(torch.uint8))

    M, N, K = 45, 70, 100
    a = torch.randint(-8, 9, (M, K), generator=gen).float().to(dtype)
    b = torch.randint(-8, 9, (K, N), generator=gen).float().to(dtype)
    c = torch.empty(M, N)
    matmul_into_f32[(tessera.cdiv(M, 32), tessera.cdiv(N, 32))](a, b, c, M, N, K, BM=32, BN=32,
                                                                 BK=32)
    assert torch.equal(c, a.float() @ b.float())

    # Integers round to fp8 like floats; fp8 to integers truncates.
    q, squares = torch.empty(1024, dtype=dtype), torch.empty(1024, dtype=torch.int32)
    float8_integers[(1,)](q, squares, BLOCK=1024)
    expected_q = (torch.arange(1024) - 512).float().clamp(-largest, largest).to(dtype)
    assert torch.equal(q.view(torch.uint8), expected_q.view(torch.uint8))
    expected_squares = (expected_q.float() ** 2).clamp(-largest, largest).to(dtype).float()
    assert torch.equal(squares, expected_squares.to(torch.int32))

    # Reductions combine fp8 values (comparisons in f32, the result in fp8).
    rows = torch.randperm(8 * 64, generator=gen).reshape(8, 64).float().sub(256).to(dtype)
    row_max, where = torch.empty(8, dtype=dtype), torch.empty(8, dtype=torch.int32)
    float8_row_max[(8,)](rows, row_max, where, N=64)
    assert torch.equal(row_max.float(), rows.float().max(dim=1).values)
    assert torch.equal(rows.float().gather(1, where.long()[:, None])[:, 0], row_max.float())


@tessera.jit
def bfloat16_elementwise(x_ptr, y_ptr, q_ptr, mul_add_ptr, exp_ptr, larger_ptr, back_ptr,
                         wide_ptr, narrow_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask, other=1.0)
    q = x.to(tl.bfloat16)
    tl.store(q_ptr + offs, q, mask=mask)
    tl.store(mul_add_ptr + offs, q * y + y, mask=mask)
    tl.store(exp_ptr + offs, tl.exp(y), mask=mask)
    tl.store(larger_ptr + offs, tl.where(q > y, q, y), mask=mask)
    tl.store(back_ptr + offs, q.to(tl.float32), mask=mask)
    tl.store(wide_ptr + offs, q.to(tl.float64), mask=mask)
    tl.store(narrow_ptr + offs, x.to(tl.float64).to(tl.bfloat16), mask=mask)


@tessera.jit
def bfloat16_integers(q_ptr, i_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    q = (offs * 37 - BLOCK * 16).to(tl.bfloat16)
    tl.store(q_ptr + offs, q)
    tl.store(i_ptr + offs, (q * 0.75).to(tl.int32))


@tessera.jit
def bfloat16_rows(x_ptr, max_ptr, where_ptr, sum_ptr, prefix_ptr, count_ptr, N: tl.constexpr):
    row = tl.program_id(0)
    values = tl.load(x_ptr + row * N + tl.arange(0, N))
    tl.store(max_ptr + row, tl.max(values, axis=0))
    tl.store(where_ptr + row, tl.argmax(values, axis=0))
    tl.store(sum_ptr + row, tl.sum(values, axis=0))
    tl.store(prefix_ptr + row * N + tl.arange(0, N), tl.cumsum(values, axis=0))
    tl.atomic_add(count_ptr + tl.arange(0, N) % 4, tl.full((N,), 0.5, tl.bfloat16))


def test_torch_bfloat16_tensors(backend):
    """bf16 in and out (the CPU moves it in i16 lanes and computes in f32):
    conversions round to nearest even (ties, subnormals, overflow to
    infinity; NaN stays NaN), each operation rounds once as PyTorch's do,
    f64 goes through f32, dots, reductions, scans and atomics of small
    integers are exact."""
    torch = pytest.importorskip("torch")
    bits = lambda t: t.view(torch.int16)
    gen = torch.Generator().manual_seed(11)
    n = 2001
    scale = torch.exp2(torch.randint(-140, 127, (n,), generator=gen).float())
    x = torch.randn(n, generator=gen) * scale
    specials = torch.tensor([1 + 2**-8, 1 + 3 * 2**-8, -(1 + 2**-8), 3.3961e38, 3.3895e38,
                             2**-133, 3 * 2**-134, float("inf"), float("-inf"), float("nan"),
                             0.0, -0.0])
    x[:len(specials)] = specials
    y = (torch.randn(n, generator=gen) * 4).to(torch.bfloat16)
    q, mul_add, exp, larger, narrow = [torch.empty(n, dtype=torch.bfloat16) for _ in range(5)]
    back, wide = torch.empty(n), torch.empty(n, dtype=torch.float64)
    bfloat16_elementwise[(tessera.cdiv(n, 256),)](x, y, q, mul_add, exp, larger, back, wide,
                                                  narrow, n, BLOCK=256)
    expected = x.to(torch.bfloat16)
    nan = expected.isnan()
    assert torch.equal(q.isnan(), nan) and torch.equal(narrow.isnan(), nan)
    assert torch.equal(bits(q)[~nan], bits(expected)[~nan])
    assert torch.equal(bits(narrow)[~nan], bits(expected)[~nan])
    assert torch.equal(back[~nan], expected.float()[~nan])
    assert torch.equal(wide[~nan], expected.double()[~nan])
    expected_mul_add = expected * y + y
    finite = expected_mul_add.isfinite()
    assert torch.equal(mul_add.isfinite(), finite)
    assert torch.equal(mul_add.isnan(), expected_mul_add.isnan())
    assert torch.equal(bits(mul_add)[finite], bits(expected_mul_add)[finite])
    torch.testing.assert_close(exp.float(), torch.exp(y).float(), rtol=2**-8, atol=0)
    assert torch.equal(larger, torch.where(expected > y, expected, y))

    q, truncated = torch.empty(1024, dtype=torch.bfloat16), torch.empty(1024, dtype=torch.int32)
    bfloat16_integers[(1,)](q, truncated, BLOCK=1024)
    expected_q = (torch.arange(1024) * 37 - 1024 * 16).to(torch.bfloat16)
    assert torch.equal(bits(q), bits(expected_q))
    assert torch.equal(truncated, (expected_q * 0.75).to(torch.int32))

    M, N, K = 45, 70, 100
    a = torch.randint(-8, 9, (M, K), generator=gen).to(torch.bfloat16)
    b = torch.randint(-8, 9, (K, N), generator=gen).to(torch.bfloat16)
    c = torch.empty(M, N)
    matmul_into_f32[(tessera.cdiv(M, 32), tessera.cdiv(N, 32))](a, b, c, M, N, K, BM=32, BN=32,
                                                                 BK=32)
    assert torch.equal(c, a.float() @ b.float())

    rows = torch.randint(-4, 5, (8, 64), generator=gen).to(torch.bfloat16)
    row_max, where = torch.empty(8, dtype=torch.bfloat16), torch.empty(8, dtype=torch.int32)
    sums, prefix = torch.empty(8, dtype=torch.bfloat16), torch.empty(8, 64, dtype=torch.bfloat16)
    counts = torch.zeros(4, dtype=torch.bfloat16)
    bfloat16_rows[(8,)](rows, row_max, where, sums, prefix, counts, N=64)
    assert torch.equal(row_max, rows.max(dim=1).values)
    assert torch.equal(rows.gather(1, where.long()[:, None])[:, 0], row_max)
    assert torch.equal(sums.float(), rows.float().sum(dim=1))
    assert torch.equal(prefix.float(), rows.float().cumsum(dim=1))
    assert torch.equal(counts.float(), torch.full((4,), 8 * 16 * 0.5))


@tessera.jit
def bfloat16_atomics(sum_ptr, max_ptr, min_ptr, x_ptr, old_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(old_ptr + offs, tl.atomic_add(sum_ptr + offs, x, mask=mask), mask=mask)
    tl.atomic_max(max_ptr + offs, x, mask=mask)
    tl.atomic_min(min_ptr + offs, x, mask=mask)


def test_torch_bfloat16_atomics(backend, rng):
    """Float atomics of bf16 round once, to nearest even, as PyTorch's bf16
    add does (the CPU runs them as compare-and-swap loops on 16 bits, with its
    own rounding); max and min skip a NaN operand, as torch.fmax does."""
    torch = pytest.importorskip("torch")
    bits = lambda t: t.view(torch.int16)
    n = 1000
    gen = torch.Generator().manual_seed(int(rng.integers(2**31)))
    scale = torch.exp2(torch.randint(-20, 20, (n,), generator=gen).float())
    start = (torch.randn(n, generator=gen) * scale).to(torch.bfloat16)
    x = (torch.randn(n, generator=gen) * scale.flip(0)).to(torch.bfloat16)
    x[:4] = torch.tensor([float("nan"), float("inf"), -0.0, 3.3895e38])
    start[3] = 3.3895e38
    sums, maxima, minima = start.clone(), start.clone(), start.clone()
    old = torch.empty(n, dtype=torch.bfloat16)
    bfloat16_atomics[(tessera.cdiv(n, 128),)](sums, maxima, minima, x, old, n, BLOCK=128)
    assert torch.equal(bits(old), bits(start))
    expected = start + x
    assert torch.isnan(sums[0]) and torch.equal(bits(sums[1:]), bits(expected[1:]))
    assert torch.equal(maxima, torch.fmax(start, x)) and torch.equal(minima, torch.fmin(start, x))


def test_torch_strided_view(backend):
    torch = pytest.importorskip("torch")

    @tessera.jit
    def column_sum(x_ptr, out_ptr, M, N, stride_m, stride_n, BM: tl.constexpr, BN: tl.constexpr):
        rm = tl.arange(0, BM)
        rn = tl.arange(0, BN)
        mask = (rm[:, None] < M) & (rn[None, :] < N)
        x = tl.load(x_ptr + rm[:, None] * stride_m + rn[None, :] * stride_n, mask=mask, other=0.0)
        tl.store(out_ptr + rn, tl.sum(x, axis=0), mask=rn < N)

    base = torch.randn(30, 20)
    x = base.t()[:, 2:]  # [20, 28], column-major view with an offset
    out = torch.zeros(28)
    column_sum[(1,)](x, out, x.shape[0], x.shape[1], x.stride(0), x.stride(1), BM=32, BN=32)
    torch.testing.assert_close(out, x.sum(dim=0), rtol=1e-5, atol=1e-5)


def test_dlpack_protocol_object(backend):
    # Any object with __dlpack__ works; here NumPy's own capsule through a wrapper.
    class Wrapper:
        def __init__(self, array):
            self.array = array

        def __dlpack__(self, stream=None):
            return self.array.__dlpack__()

        def __dlpack_device__(self):
            return self.array.__dlpack_device__()

    x = np.arange(16, dtype=np.float32)
    out = np.zeros(16, dtype=np.float32)
    axpy[(1,)](Wrapper(x), Wrapper(x), Wrapper(out), 3.0, 16, BLOCK=16)
    np.testing.assert_array_equal(out, 4 * x)
