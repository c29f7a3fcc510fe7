"""Triton's tutorial kernels, written the way the tutorials write them (only the
imports differ), checked against NumPy on fresh random inputs, ragged sizes
included, on the interpreter and on the CPU backend."""

import numpy as np
import pytest

import tessera
import tessera.language as tl
from tessera import TensorDescriptor

from random_reference import dropout_reference

# ---------------------------------------------------------------------------
# 01: vector add
# ---------------------------------------------------------------------------


@tessera.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    output = x + y
    tl.store(output_ptr + offsets, output, mask=mask)


def add(x, y):
    output = np.empty_like(x)
    n_elements = output.size
    grid = lambda meta: (tessera.cdiv(n_elements, meta["BLOCK_SIZE"]),)
    add_kernel[grid](x, y, output, n_elements, BLOCK_SIZE=256)
    return output


@pytest.mark.parametrize("n", [1, 255, 256, 1000, 4097])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64, np.int32])
def test_vector_add(backend, rng, n, dtype):
    x = (rng.standard_normal(n) * 100).astype(dtype)
    y = (rng.standard_normal(n) * 100).astype(dtype)
    np.testing.assert_array_equal(add(x, y), x + y)


# ---------------------------------------------------------------------------
# 02: fused softmax
# ---------------------------------------------------------------------------


@tessera.jit
def softmax_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_rows, n_cols,
                   BLOCK_SIZE: tl.constexpr):
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row_idx in tl.range(row_start, n_rows, row_step, num_stages=2):
        row_start_ptr = input_ptr + row_idx * input_row_stride
        col_offsets = tl.arange(0, BLOCK_SIZE)
        input_ptrs = row_start_ptr + col_offsets
        mask = col_offsets < n_cols
        row = tl.load(input_ptrs, mask=mask, other=-float("inf"))
        row_minus_max = row - tl.max(row, axis=0)
        numerator = tl.exp(row_minus_max)
        denominator = tl.sum(numerator, axis=0)
        softmax_output = numerator / denominator
        output_row_start_ptr = output_ptr + row_idx * output_row_stride
        output_ptrs = output_row_start_ptr + col_offsets
        tl.store(output_ptrs, softmax_output, mask=mask)


def softmax(x, num_programs=4):
    n_rows, n_cols = x.shape
    BLOCK_SIZE = tessera.next_power_of_2(n_cols)
    y = np.empty_like(x)
    softmax_kernel[(min(num_programs, n_rows), 1, 1)](
        y, x, x.strides[0] // x.itemsize, y.strides[0] // y.itemsize, n_rows, n_cols,
        BLOCK_SIZE=BLOCK_SIZE, num_warps=4, num_stages=2)
    return y


def softmax_reference(x):
    x = x.astype(np.float64)
    z = np.exp(x - x.max(axis=1, keepdims=True))
    return z / z.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("shape", [(1, 1), (7, 33), (16, 128), (37, 781)])
def test_softmax(backend, rng, shape):
    x = (rng.standard_normal(shape) * 4).astype(np.float32)
    np.testing.assert_allclose(softmax(x), softmax_reference(x), rtol=1e-5, atol=1e-7)


def test_softmax_strided_view(backend, rng):
    # A view of every other column block: the row stride is not the row length.
    base = rng.standard_normal((9, 200)).astype(np.float32)
    x = base[:, :150]
    np.testing.assert_allclose(softmax(x), softmax_reference(x), rtol=1e-5, atol=1e-7)


# ---------------------------------------------------------------------------
# 03: matrix multiplication with grouped ordering
# ---------------------------------------------------------------------------


@tessera.jit
def leaky_relu(x):
    return tl.where(x >= 0, x, 0.01 * x)


@tessera.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                  BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr,
                  ACTIVATION: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    tl.assume(pid_m >= 0)
    tl.assume(pid_n >= 0)

    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)

    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)
        accumulator = tl.dot(a, b, accumulator)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    if ACTIVATION == "leaky_relu":
        accumulator = leaky_relu(accumulator)
    c = accumulator.to(tl.float16) if c_ptr.dtype.element_ty == tl.float16 else accumulator

    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


def matmul(a, b, activation="", out_dtype=None):
    assert a.shape[1] == b.shape[0], "Incompatible dimensions"
    M, K = a.shape
    K, N = b.shape
    c = np.empty((M, N), dtype=out_dtype or a.dtype)
    grid = lambda META: (tessera.cdiv(M, META["BLOCK_SIZE_M"]) * tessera.cdiv(N, META["BLOCK_SIZE_N"]),)
    s = lambda arr, i: arr.strides[i] // arr.itemsize
    matmul_kernel[grid](a, b, c, M, N, K, s(a, 0), s(a, 1), s(b, 0), s(b, 1), s(c, 0), s(c, 1),
                        BLOCK_SIZE_M=32, BLOCK_SIZE_N=32, BLOCK_SIZE_K=16, GROUP_SIZE_M=4,
                        ACTIVATION=activation)
    return c


@pytest.mark.parametrize("M,N,K", [(32, 32, 16), (77, 45, 61), (130, 97, 33)])
def test_matmul_f32(backend, rng, M, N, K):
    a = rng.standard_normal((M, K)).astype(np.float32)
    b = rng.standard_normal((K, N)).astype(np.float32)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(matmul(a, b), ref, rtol=1e-4, atol=1e-4 * np.sqrt(K))


def test_matmul_f16_leaky_relu(backend, rng):
    M, N, K = 70, 50, 40
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    ref = np.where(ref >= 0, ref, 0.01 * ref)
    out = matmul(a, b, activation="leaky_relu")
    assert out.dtype == np.float16
    np.testing.assert_allclose(out.astype(np.float64), ref, rtol=2e-3, atol=2e-2)


def test_matmul_transposed_input(backend, rng):
    # b given as a transposed view: column-major strides.
    M, N, K = 40, 36, 50
    a = rng.standard_normal((M, K)).astype(np.float32)
    b = rng.standard_normal((N, K)).astype(np.float32).T
    ref = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(matmul(a, b), ref, rtol=1e-4, atol=1e-3)


# ---------------------------------------------------------------------------
# 09: persistent matmul, its K loop flattened into the walk over tiles
# (the tutorial's form before tl.range(flatten=True))
# ---------------------------------------------------------------------------


@tessera.jit
def matmul_kernel_persistent(a_ptr, b_ptr, c_ptr, M, N, K,
                             stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                             BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                             BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr,
                             NUM_SMS: tl.constexpr):
    start_pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    k_tiles = tl.cdiv(K, BLOCK_SIZE_K)
    num_tiles = num_pid_m * num_pid_n
    tiles_per_sm = num_tiles // NUM_SMS
    if start_pid < num_tiles % NUM_SMS:
        tiles_per_sm += 1

    tile_id = start_pid - NUM_SMS
    ki = -1
    offs_k_for_mask = tl.arange(0, BLOCK_SIZE_K)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    pid_m = 0
    pid_n = 0
    offs_am = tl.arange(0, BLOCK_SIZE_M)
    offs_bn = tl.arange(0, BLOCK_SIZE_N)
    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)

    for _ in range(0, k_tiles * tiles_per_sm):
        ki = tl.where(ki == k_tiles - 1, 0, ki + 1)
        if ki == 0:
            tile_id += NUM_SMS
            group_id = tile_id // num_pid_in_group
            first_pid_m = group_id * GROUP_SIZE_M
            group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
            pid_m = first_pid_m + (tile_id % group_size_m)
            pid_n = (tile_id % num_pid_in_group) // group_size_m
            start_m = pid_m * BLOCK_SIZE_M
            start_n = pid_n * BLOCK_SIZE_N
            offs_am = start_m + tl.arange(0, BLOCK_SIZE_M)
            offs_bn = start_n + tl.arange(0, BLOCK_SIZE_N)
            offs_am = tl.where(offs_am < M, offs_am, 0)
            offs_bn = tl.where(offs_bn < N, offs_bn, 0)
            offs_am = tl.max_contiguous(tl.multiple_of(offs_am, BLOCK_SIZE_M), BLOCK_SIZE_M)
            offs_bn = tl.max_contiguous(tl.multiple_of(offs_bn, BLOCK_SIZE_N), BLOCK_SIZE_N)
        offs_k = ki * BLOCK_SIZE_K + tl.arange(0, BLOCK_SIZE_K)
        a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
        b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)

        a = tl.load(a_ptrs, mask=offs_k_for_mask[None, :] < K - ki * BLOCK_SIZE_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k_for_mask[:, None] < K - ki * BLOCK_SIZE_K, other=0.0)
        accumulator = tl.dot(a, b, accumulator)

        if ki == k_tiles - 1:
            offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
            offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
            c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
            c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
            c = accumulator.to(c_ptr.dtype.element_ty)
            tl.store(c_ptrs, c, mask=c_mask)
            accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)


def matmul_persistent(a, b, num_sms=3, block=(32, 32, 16), out=None, **options):
    """C = A @ B by `num_sms` programs; arrays `a`, `b` and `out` (NumPy or
    device arrays) are passed as they are."""
    M, K = a.shape
    N = b.shape[1]
    c = np.empty((M, N), dtype=a.dtype) if out is None else out
    s = lambda arr, i: arr.strides[i] // arr.itemsize
    matmul_kernel_persistent[(num_sms,)](
        a, b, c, M, N, K, s(a, 0), s(a, 1), s(b, 0), s(b, 1), s(c, 0), s(c, 1),
        BLOCK_SIZE_M=block[0], BLOCK_SIZE_N=block[1], BLOCK_SIZE_K=block[2], GROUP_SIZE_M=2,
        NUM_SMS=num_sms, **options)
    return c


@pytest.mark.parametrize("M,N,K,num_sms", [(77, 45, 61, 3), (130, 97, 33, 4), (32, 32, 16, 2)])
def test_matmul_persistent(backend, rng, M, N, K, num_sms):
    a = rng.standard_normal((M, K)).astype(np.float32)
    b = rng.standard_normal((K, N)).astype(np.float32)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(matmul_persistent(a, b, num_sms), ref, rtol=1e-4,
                               atol=1e-4 * np.sqrt(K))


# ---------------------------------------------------------------------------
# 09: persistent matmul over host tensor descriptors (the tutorial's TMA
# form): B given as B.T, tl.range(flatten=True), and the epilogue subtiled
# into two halves through reshape, permute and split
# ---------------------------------------------------------------------------


@tessera.jit
def grouped_tile_of(tile_id, tiles_per_group, tiles_m, GROUP_M: tl.constexpr):
    first_m = (tile_id // tiles_per_group) * GROUP_M
    rows = min(tiles_m - first_m, GROUP_M)
    return first_m + (tile_id % rows), (tile_id % tiles_per_group) // rows


@tessera.jit
def matmul_kernel_descriptor_persistent(a_desc, bt_desc, c_desc, M, N, K, BLOCK_M: tl.constexpr,
                                        BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                                        GROUP_M: tl.constexpr, EPILOGUE_SUBTILE: tl.constexpr,
                                        NUM_SMS: tl.constexpr):
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_per_group = GROUP_M * tl.cdiv(N, BLOCK_N)
    for tile_id in tl.range(tl.program_id(0), tiles_m * tl.cdiv(N, BLOCK_N), NUM_SMS, flatten=True,
                            warp_specialize=False):
        pid_m, pid_n = grouped_tile_of(tile_id, tiles_per_group, tiles_m, GROUP_M)
        accumulator = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(0, K, BLOCK_K):
            a = a_desc.load([pid_m * BLOCK_M, k])
            bt = bt_desc.load([pid_n * BLOCK_N, k])
            accumulator = tl.dot(a, bt.T, accumulator)
        if EPILOGUE_SUBTILE:
            halves = tl.permute(tl.reshape(accumulator, (BLOCK_M, 2, BLOCK_N // 2)), (0, 2, 1))
            left, right = tl.split(halves)
            c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], left.to(c_desc.dtype))
            c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N + BLOCK_N // 2], right.to(c_desc.dtype))
        else:
            c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], accumulator.to(c_desc.dtype))


def rows_of_16_bytes(x):
    """`x` in an array whose rows are padded with zeros to a multiple of 16
    bytes, as a TensorDescriptor's outer strides must be."""
    per_row = 16 // x.itemsize
    padded = np.zeros((x.shape[0], -(-x.shape[1] // per_row) * per_row), dtype=x.dtype)
    padded[:, :x.shape[1]] = x
    return padded


def matmul_descriptor_persistent(a, bt, c, M, N, K, num_sms, block, subtile, **options):
    """C = A @ BT.T by `num_sms` programs: `a` [M, K], `bt` [N, K] and `c`
    [M, N] are held in arrays (NumPy or device) with padded rows."""
    BLOCK_M, BLOCK_N, BLOCK_K = block
    describe = lambda array, rows, cols, block: TensorDescriptor(array, [rows, cols],
                                                                 [array.shape[1], 1], block)
    matmul_kernel_descriptor_persistent[(num_sms,)](
        describe(a, M, K, [BLOCK_M, BLOCK_K]), describe(bt, N, K, [BLOCK_N, BLOCK_K]),
        describe(c, M, N, [BLOCK_M, BLOCK_N // 2 if subtile else BLOCK_N]),
        M, N, K, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, GROUP_M=2,
        EPILOGUE_SUBTILE=subtile, NUM_SMS=num_sms, **options)


@pytest.mark.parametrize("subtile", [False, True])
@pytest.mark.parametrize("M,N,K,num_sms", [(77, 45, 61, 3), (130, 97, 33, 4)])
def test_matmul_descriptor_persistent(backend, rng, M, N, K, num_sms, subtile):
    a = rng.standard_normal((M, K)).astype(np.float16)
    bt = rng.standard_normal((N, K)).astype(np.float16)
    c = rows_of_16_bytes(np.zeros((M, N), dtype=np.float16))
    matmul_descriptor_persistent(rows_of_16_bytes(a), rows_of_16_bytes(bt), c, M, N, K, num_sms,
                                 (32, 32, 16), subtile)
    ref = a.astype(np.float64) @ bt.astype(np.float64).T
    np.testing.assert_allclose(c[:, :N].astype(np.float64), ref, rtol=2e-3, atol=2e-2)
    np.testing.assert_array_equal(c[:, N:], 0)


# ---------------------------------------------------------------------------
# 04: low-memory dropout (the seeded form: a seed instead of a stored mask)
# ---------------------------------------------------------------------------


@tessera.jit
def _seeded_dropout(x_ptr, output_ptr, n_elements, p, seed, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    keep = tl.rand(seed, offsets) > p
    tl.store(output_ptr + offsets, tl.where(keep, x / (1 - p), 0.0), mask=mask)


def seeded_dropout(x, p, seed, out=None):
    out = np.empty_like(x) if out is None else out
    n = x.size
    _seeded_dropout[(tessera.cdiv(n, 1024),)](x, out, n, p, seed, BLOCK_SIZE=1024)
    return out


@pytest.mark.parametrize("n", [1, 1000, 5000])
def test_seeded_dropout(backend, rng, n):
    x = rng.standard_normal(n).astype(np.float32) + 2  # no zeros of its own
    p, seed = 0.3, int(rng.integers(2**31))
    out = seeded_dropout(x, p, seed)
    keep, expected = dropout_reference(x, p, seed)
    np.testing.assert_array_equal(out != 0, keep)
    np.testing.assert_allclose(out, expected, rtol=1e-6)
    np.testing.assert_array_equal(seeded_dropout(x, p, seed), out)
    if n >= 1000:
        assert abs((out == 0).mean() - p) < 0.05
        assert not np.array_equal(seeded_dropout(x, p, seed + 1) != 0, keep)


# ---------------------------------------------------------------------------
# 05: layer norm (forward)
# ---------------------------------------------------------------------------


@tessera.jit
def _layer_norm_fwd_fused(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    Y += row * stride
    X += row * stride
    mean = 0
    _mean = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        a = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        _mean += a
    mean = tl.sum(_mean, axis=0) / N
    _var = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.)
        _var += x * x
    var = tl.sum(_var, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask)
        b = tl.load(B + cols, mask=mask)
        x = tl.load(X + cols, mask=mask, other=0.).to(tl.float32)
        x_hat = (x - mean) * rstd
        y = x_hat * w + b
        tl.store(Y + cols, y, mask=mask)


def layer_norm(x, weight, bias, eps=1e-5, block=None):
    x_arg = x.reshape(-1, x.shape[-1])
    M, N = x_arg.shape
    y = np.empty_like(x_arg)
    mean = np.empty((M,), dtype=np.float32)
    rstd = np.empty((M,), dtype=np.float32)
    BLOCK_SIZE = block or min(1024, tessera.next_power_of_2(N))
    _layer_norm_fwd_fused[(M,)](x_arg, y, weight, bias, mean, rstd, x_arg.strides[0] // x.itemsize,
                                N, eps, BLOCK_SIZE=BLOCK_SIZE, num_warps=8, num_ctas=1)
    return y.reshape(x.shape), mean, rstd


@pytest.mark.parametrize("M,N,block", [(1, 8, None), (5, 300, None), (9, 300, 64), (4, 1151, 256)])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_layer_norm(backend, rng, M, N, block, dtype):
    x = (rng.standard_normal((M, N)) * 3 + 1).astype(dtype)
    w = rng.random(N).astype(dtype)
    b = rng.random(N).astype(dtype)
    y, mean, rstd = layer_norm(x, w, b, block=block)
    x64 = x.astype(np.float64)
    mu = x64.mean(axis=1, keepdims=True)
    var = ((x64 - mu) ** 2).mean(axis=1, keepdims=True)
    ref = (x64 - mu) / np.sqrt(var + 1e-5) * w.astype(np.float64) + b.astype(np.float64)
    tol = 1e-4 if dtype == np.float32 else 1e-2
    np.testing.assert_allclose(y.astype(np.float64), ref, rtol=tol, atol=tol)
    np.testing.assert_allclose(mean, mu[:, 0], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(rstd, 1 / np.sqrt(var[:, 0] + 1e-5), rtol=1e-4)
