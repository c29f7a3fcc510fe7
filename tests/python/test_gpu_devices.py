"""Kernels launched on GPU devices: Triton's tutorial kernels (test_tutorials.py)
and a broad sample of tessera.language (test_language.py's kernels), run on
"vulkan" (Mesa's lavapipe in CI), "cuda" and "hip" tessera arrays and PyTorch
CUDA tensors, checked against NumPy on fresh random inputs with ragged sizes.

Placements other than Vulkan carry the ``gpu`` marker: ``pytest -m gpu
tests/python`` on a machine with a GPU runs them; elsewhere they skip saying
why ("no CUDA device: ...").
"""

import re

import numpy as np
import pytest

import tessera
import tessera.language as tl
from tessera.arrays import device_info

from test_bool_pointers import bool_comparisons, check_bool_ops
from test_combine_functions import combining_kernel, reference as combine_reference
from test_compat_triton import _attn_fwd, attention_reference
from test_language import (FLOAT_BINARY, INT_BINARY, REDUCE, SHAPE_OPS, UNARY, binary_kernel,
                           cast_kernel, check_atomic_loads_and_stores, check_early_returns,
                           check_pointer_casts, check_xor_atomics, dot_kernel, extrema,
                           float_atomic_kernel, grid_kernel, hinted_wrapped_copy, histogram_kernel,
                           print_kernel, reduce_kernel, reduce_ragged_kernel,
                           reverse_through_memory, shape_kernel, unary_kernel)
from random_reference import dropout_reference
from test_gather_histogram import gather_2d, gather_3d_method, histogram_reference, masked_histogram
from test_ordering import flips, ordered, random_rows
from test_tensor_descriptors import matmul_through_device_descriptors
from test_unsigned import (check_unsigned_elementwise, check_unsigned_reductions,
                           check_unsigned_stores_and_atomics)
from test_tutorials import (_layer_norm_fwd_fused, _seeded_dropout, add_kernel,
                            matmul_descriptor_persistent, matmul_kernel, matmul_kernel_persistent,
                            rows_of_16_bytes, softmax_kernel, softmax_reference)


class Placement:
    """Where a test's arrays live: tessera arrays on one GPU device."""

    def __init__(self, device):
        self.device = device

    def put(self, x):
        return tessera.asarray(x, device=self.device)

    def empty(self, shape, dtype):
        return tessera.empty(shape, np.dtype(dtype), device=self.device)

    def get(self, a):
        return a.numpy()


class TorchCuda(Placement):
    """PyTorch CUDA tensors (DLPack device type 2), launched through the CUDA runtime."""

    def __init__(self, torch):
        super().__init__("cuda")
        self.torch = torch

    def put(self, x):
        return self.torch.from_numpy(np.ascontiguousarray(x)).cuda()

    def empty(self, shape, dtype):
        return self.put(np.zeros(shape, dtype))

    def get(self, a):
        self.torch.cuda.synchronize()
        return a.cpu().numpy()


PLACEMENTS = [
    pytest.param("vulkan", id="vulkan"),
    pytest.param("cuda", id="cuda", marks=pytest.mark.gpu),
    pytest.param("torch-cuda", id="torch-cuda", marks=pytest.mark.gpu),
    pytest.param("hip", id="hip", marks=pytest.mark.gpu),
]


@pytest.fixture(params=PLACEMENTS)
def place(request):
    if request.param == "torch-cuda":
        torch = pytest.importorskip("torch")
        if torch.version.cuda is None or not torch.cuda.is_available():
            pytest.skip("PyTorch has no CUDA device")
        return TorchCuda(torch)
    try:
        print(device_info(request.param))
    except tessera.DeviceError as e:
        pytest.skip(str(e))
    return Placement(request.param)


@pytest.fixture
def vulkan():
    try:
        device_info("vulkan")
    except tessera.DeviceError as e:
        pytest.skip(str(e))
    return Placement("vulkan")


# ---------------------------------------------------------------------------
# The tutorials
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 255, 256, 1000, 4097])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32])
def test_vector_add(place, rng, n, dtype):
    x = (rng.standard_normal(n) * 100).astype(dtype)
    y = (rng.standard_normal(n) * 100).astype(dtype)
    out = place.empty((n,), dtype)
    add_kernel[(tessera.cdiv(n, 256),)](place.put(x), place.put(y), out, n, BLOCK_SIZE=256)
    np.testing.assert_array_equal(place.get(out), x + y)


@pytest.mark.parametrize("shape", [(1, 1), (7, 33), (16, 128), (37, 781)])
def test_softmax(place, rng, shape):
    x = (rng.standard_normal(shape) * 4).astype(np.float32)
    n_rows, n_cols = shape
    y = place.empty(shape, np.float32)
    softmax_kernel[(min(4, n_rows), 1, 1)](y, place.put(x), n_cols, n_cols, n_rows, n_cols,
                                           BLOCK_SIZE=tessera.next_power_of_2(n_cols),
                                           num_warps=4, num_stages=2)
    # GPU exp is within a few ulp (Vulkan allows 3 + 2|x|): a little looser than the CPU's 1e-5.
    np.testing.assert_allclose(place.get(y), softmax_reference(x), rtol=5e-5, atol=1e-7)


@pytest.mark.parametrize("n", [1, 5000])
def test_seeded_dropout(place, rng, n):
    # Philox's 32-bit products (umulhi: mul.hi.u32, OpUMulExtended) and the
    # seed's 64-bit halves, bit for bit.
    x = rng.standard_normal(n).astype(np.float32) + 2
    p, seed = 0.3, int(rng.integers(-2**40, 2**40))
    out = place.empty((n,), np.float32)
    _seeded_dropout[(tessera.cdiv(n, 1024),)](place.put(x), out, n, p, seed, BLOCK_SIZE=1024)
    keep, expected = dropout_reference(x, p, seed)
    got = place.get(out)
    np.testing.assert_array_equal(got != 0, keep)
    np.testing.assert_allclose(got, expected, rtol=1e-6)


@tessera.jit
def normalized_rows(x, mask, w, b, n_cols, eps):
    """Each row of x (zero where masked off) normalized, times w plus b."""
    mean = tl.sum(x, axis=1) / n_cols
    centered = tl.where(mask, x - mean[:, None], 0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(centered * centered, axis=1) / n_cols + eps)
    return centered * rstd[:, None] * w[None, :] + b[None, :]


@tessera.jit
def rows_layernorm_kernel(x_ptr, y_ptr, w_ptr, b_ptr, n_rows, n_cols, eps, BLOCK: tl.constexpr,
                          ROWS: tl.constexpr):
    # Several rows per program, the weights loaded once as [BLOCK] and
    # broadcast over them: the loads read them in the rows' own layout.
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK)
    col_mask = cols < n_cols
    mask = (rows[:, None] < n_rows) & col_mask[None, :]
    offsets = rows[:, None] * n_cols + cols[None, :]
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    w = tl.load(w_ptr + cols, mask=col_mask)
    b = tl.load(b_ptr + cols, mask=col_mask)
    tl.store(y_ptr + offsets, normalized_rows(x, mask, w, b, n_cols, eps), mask=mask)


def check_rows_layernorm(place, rng, launch):
    """launch(x, y, w, b, n_rows, n_cols) normalizes 37 rows of 200 fp32
    columns (eps 1e-5) into y; checked against NumPy in fp64."""
    n_rows, n_cols = 37, 200
    x = rng.standard_normal((n_rows, n_cols)).astype(np.float32)
    w, b = rng.random(n_cols).astype(np.float32), rng.random(n_cols).astype(np.float32)
    y = place.empty((n_rows, n_cols), np.float32)
    launch(place.put(x), y, place.put(w), place.put(b), n_rows, n_cols)
    x64 = x.astype(np.float64)
    expected = (x64 - x64.mean(1, keepdims=True)) / np.sqrt(x64.var(1, keepdims=True) + 1e-5) * w + b
    np.testing.assert_allclose(place.get(y), expected, rtol=1e-4, atol=1e-4)


# (4, 8): 4 rows of 256 columns on 8 warps of 8 lanes (lavapipe's) put every
# warp along the columns, and each row's 8 warp partials are combined by a
# butterfly over lanes (combineAcrossLanes).
@pytest.mark.parametrize("rows_per_program,num_warps", [(1, 4), (2, 4), (4, 4), (8, 2), (4, 8)])
def test_rows_layernorm_with_broadcast_weights(place, rng, rows_per_program, num_warps):
    def launch(x, y, w, b, n_rows, n_cols):
        rows_layernorm_kernel[(tessera.cdiv(n_rows, rows_per_program),)](
            x, y, w, b, n_rows, n_cols, 1e-5, BLOCK=256, ROWS=rows_per_program,
            num_warps=num_warps)
    check_rows_layernorm(place, rng, launch)


@tessera.jit
def persistent_rows_layernorm_kernel(x_ptr, y_ptr, w_ptr, b_ptr, n_rows, n_cols, eps,
                                     BLOCK: tl.constexpr, ROWS: tl.constexpr,
                                     STAGES: tl.constexpr):
    # The weights once per program, then a loop over its blocks of rows whose
    # loads tl.range(num_stages=STAGES) issues ahead: on NVIDIA copied by
    # cp.async into shared memory and read back, elsewhere prefetched into
    # registers (tile-gpu-prefetch-loads); the last block is ragged.
    cols = tl.arange(0, BLOCK)
    col_mask = cols < n_cols
    w = tl.load(w_ptr + cols, mask=col_mask)
    b = tl.load(b_ptr + cols, mask=col_mask)
    for first in tl.range(tl.program_id(0) * ROWS, n_rows, tl.num_programs(0) * ROWS,
                          num_stages=STAGES):
        rows = first + tl.arange(0, ROWS)
        mask = (rows[:, None] < n_rows) & col_mask[None, :]
        offsets = rows[:, None] * n_cols + cols[None, :]
        x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
        tl.store(y_ptr + offsets, normalized_rows(x, mask, w, b, n_cols, eps), mask=mask)


@pytest.mark.parametrize("programs,rows_per_block,stages", [(3, 2, 2), (4, 4, 3), (1, 1, 2),
                                                            (64, 2, 2), (3, 2, 0)])
def test_persistent_rows_with_prefetched_loads(place, rng, programs, rows_per_block, stages):
    def launch(x, y, w, b, n_rows, n_cols):
        persistent_rows_layernorm_kernel[(programs,)](
            x, y, w, b, n_rows, n_cols, 1e-5, BLOCK=256, ROWS=rows_per_block, STAGES=stages,
            num_warps=4)
    check_rows_layernorm(place, rng, launch)


@tessera.jit
def blocks_ending_at_the_i32_limit(x_ptr, y_ptr, first, last, BLOCK: tl.constexpr):
    # After the last block, start + BLOCK wraps past 2**31 - 1 to a negative
    # value: the block it would prefetch does not exist and must not be read.
    cols = tl.arange(0, BLOCK)
    for start in tl.range(first, last, BLOCK, num_stages=2):
        offsets = (start - first) + cols
        tl.store(y_ptr + offsets, tl.load(x_ptr + offsets) * 2.0)


def test_prefetch_stops_where_the_induction_variable_would_wrap(place, rng):
    block, blocks, last = 64, 4, 2**31 - 1
    x = rng.standard_normal(block * blocks).astype(np.float32)
    y = place.empty(x.shape, np.float32)
    blocks_ending_at_the_i32_limit[(1,)](place.put(x), y, last - block * blocks + 1, last,
                                         BLOCK=block)
    np.testing.assert_array_equal(place.get(y), x * 2)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_fused_attention_stores_q_once(place, rng, causal, dtype):
    """Flash attention with its key loop pipelined: q, loaded before the loop,
    is stored to shared memory once before it for every iteration's q @ k
    (PipelinedLoop's invariant operands); 45 keys leave the last block
    ragged."""
    Z, N_CTX, HEAD_DIM, BLOCK = 2, 45, 32, 16
    q, k, v = (rng.standard_normal((Z, N_CTX, HEAD_DIM)).astype(dtype) for _ in range(3))
    sm_scale = 1.0 / np.sqrt(HEAD_DIM)
    out = place.empty(q.shape, dtype)
    strides = [N_CTX * HEAD_DIM, HEAD_DIM, 1] * 4
    _attn_fwd[(tessera.cdiv(N_CTX, BLOCK), Z, 1)](
        place.put(q), place.put(k), place.put(v), sm_scale, out, *strides, N_CTX,
        HEAD_DIM=HEAD_DIM, BLOCK_M=BLOCK, BLOCK_N=BLOCK, CAUSAL=causal, num_warps=4, num_stages=2)
    tol = 1e-4 if dtype == np.float32 else 1e-2
    np.testing.assert_allclose(place.get(out).astype(np.float64),
                               attention_reference(q, k, v, causal, sm_scale), rtol=tol, atol=tol)


def run_matmul(place, a, b, activation="", out_dtype=None, b_columns_contiguous=False):
    """C = A @ B; with b_columns_contiguous, B is passed as the [N, K] array
    B.T with strides (1, K), as x @ W.t() passes a Linear's weight W."""
    (M, K), (_, N) = a.shape, b.shape
    c = place.empty((M, N), out_dtype or a.dtype)
    grid = lambda META: (tessera.cdiv(M, META["BLOCK_SIZE_M"]) * tessera.cdiv(N, META["BLOCK_SIZE_N"]),)
    if b_columns_contiguous:
        b_arg, stride_bk, stride_bn = place.put(np.ascontiguousarray(b.T)), 1, K
    else:
        b_arg, stride_bk, stride_bn = place.put(b), N, 1
    matmul_kernel[grid](place.put(a), b_arg, c, M, N, K, K, 1, stride_bk, stride_bn, N, 1,
                        BLOCK_SIZE_M=32, BLOCK_SIZE_N=32, BLOCK_SIZE_K=16, GROUP_SIZE_M=4,
                        ACTIVATION=activation)
    return place.get(c)


@pytest.mark.parametrize("M,N,K", [(32, 32, 16), (77, 45, 61), (130, 97, 33)])
def test_matmul_f32(place, rng, M, N, K):
    a = rng.standard_normal((M, K)).astype(np.float32)
    b = rng.standard_normal((K, N)).astype(np.float32)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(run_matmul(place, a, b), ref, rtol=1e-4, atol=1e-4 * np.sqrt(K))


@pytest.mark.parametrize("M,N,K", [(64, 64, 32), (77, 45, 61)])
def test_matmul_f16_b_columns_contiguous(place, rng, M, N, K):
    # tile-gpu-transpose-column-loads: B's block is loaded as rows of B.T.
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    out = run_matmul(place, a, b, b_columns_contiguous=True)
    np.testing.assert_allclose(out.astype(np.float64), ref, rtol=2e-3, atol=2e-2)


def test_matmul_f16_leaky_relu(place, rng):
    a = rng.standard_normal((70, 40)).astype(np.float16)
    b = rng.standard_normal((40, 50)).astype(np.float16)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    out = run_matmul(place, a, b, activation="leaky_relu")
    assert out.dtype == np.float16
    np.testing.assert_allclose(out.astype(np.float64), np.where(ref >= 0, ref, 0.01 * ref),
                               rtol=2e-3, atol=2e-2)


@pytest.mark.parametrize("M,N,K,programs,dtype,block,stages", [
    (77, 45, 61, 3, np.float32, (32, 32, 16), 2),
    (130, 97, 33, 4, np.float16, (32, 32, 16), 2),
    (64, 64, 100, 2, np.float16, (32, 32, 32), 3)])
def test_matmul_persistent(place, rng, M, N, K, programs, dtype, block, stages):
    # Each program walks several ragged tiles, its K loop flattened into the
    # walk and software-pipelined across tiles: the next step's addresses
    # divide by the K-block count and come out of the branch that moves to
    # the next tile, and the accumulator restarts after each tile.
    a = rng.standard_normal((M, K)).astype(dtype)
    b = rng.standard_normal((K, N)).astype(dtype)
    c = place.empty((M, N), dtype)
    matmul_kernel_persistent[(programs,)](
        place.put(a), place.put(b), c, M, N, K, K, 1, N, 1, N, 1, BLOCK_SIZE_M=block[0],
        BLOCK_SIZE_N=block[1], BLOCK_SIZE_K=block[2], GROUP_SIZE_M=2, NUM_SMS=programs,
        num_stages=stages)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    tol = dict(rtol=1e-4, atol=1e-4 * np.sqrt(K)) if dtype == np.float32 else dict(rtol=2e-3, atol=3e-2)
    np.testing.assert_allclose(place.get(c).astype(np.float64), ref, **tol)


@pytest.mark.parametrize("op", ["sum", "argmax", "scan", "first_nonzero", "cumprod"])
def test_combine_functions(place, rng, op):
    # tl.reduce / tl.associative_scan with @jit combine functions: the GPU
    # lowerings inline the region in their per-thread, shuffle and
    # shared-memory steps; first_nonzero does not commute.
    rows, cols, R, C = 6, 13, 8, 16
    x = np.zeros((R, C), dtype=np.float32)
    values = {"cumprod": rng.uniform(0.5, 1.5, (rows, cols)),
              "first_nonzero": rng.integers(-2, 3, (rows, cols)) * (rng.random((rows, cols)) < 0.3),
              "argmax": rng.integers(0, 4, (rows, cols))}
    x[:rows, :cols] = values.get(op, rng.standard_normal((rows, cols)))
    dtype = np.int32 if op == "argmax" else np.float32
    out = place.empty((R * C,), dtype)
    combining_kernel[(1,)](place.put(x), out, rows, cols, OP=op, AXIS=1, R=R, C=C)
    got = place.get(out)
    expected = np.asarray(combine_reference(op, x[:rows, :cols].astype(np.float64), 1))
    got = got[:rows] if op in ("sum", "argmax") else got.reshape(R, C)[:rows, :cols]
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


@tessera.jit
def row_sums_persistent(x_ptr, out_ptr, R, C, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr,
                        PROGRAMS: tl.constexpr):
    # The tile loop flattened with its column loop (tile-flatten-loops): row
    # blocks carried across steps, the sum restarted after each block's store.
    for tile in tl.range(tl.program_id(0), tl.cdiv(R, BLOCK_R), PROGRAMS, flatten=True):
        rows = tile * BLOCK_R + tl.arange(0, BLOCK_R)
        acc = tl.zeros((BLOCK_R,), dtype=tl.float32)
        for c in range(0, C, BLOCK_C):
            cols = c + tl.arange(0, BLOCK_C)
            x = tl.load(x_ptr + rows[:, None] * C + cols[None, :],
                        mask=(rows[:, None] < R) & (cols[None, :] < C), other=0.0)
            acc += tl.sum(x, axis=1)
        tl.store(out_ptr + rows, acc + 1.0, mask=rows < R)


@pytest.mark.parametrize("R,C,programs", [(37, 45, 2), (64, 16, 3), (9, 0, 2), (0, 20, 2)])
def test_flattened_persistent_loop(place, rng, R, C, programs):
    # Ragged row blocks and column tails, more row blocks than programs, and
    # no column at all: the epilogue of every row block runs on the zeros.
    x = rng.standard_normal((R, C)).astype(np.float32)
    out = place.empty((max(R, 1),), np.float32)
    row_sums_persistent[(programs,)](place.put(x.reshape(-1) if x.size else np.zeros(1, np.float32)),
                                     out, R, C, BLOCK_R=8, BLOCK_C=16, PROGRAMS=programs)
    np.testing.assert_allclose(place.get(out)[:R], x.sum(axis=1) + 1.0, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("subtile", [False, True])
@pytest.mark.parametrize("M,N,K,programs,block,stages", [
    (77, 45, 61, 3, (32, 32, 16), 2), (130, 97, 72, 4, (64, 64, 32), 3)])
def test_matmul_descriptor_persistent(place, rng, M, N, K, programs, block, stages, subtile):
    # Host tensor descriptors (Triton's TMA form of tutorial 09): B as B.T,
    # ragged tiles cut at the descriptors' shapes inside padded rows, and the
    # epilogue split into two halves through reshape, permute and split.
    a = rng.standard_normal((M, K)).astype(np.float16)
    bt = rng.standard_normal((N, K)).astype(np.float16)
    c = place.put(padded_with(PADDING_SENTINEL, np.zeros((M, N), dtype=np.float16)))
    matmul_descriptor_persistent(place.put(rows_of_16_bytes(a)), place.put(rows_of_16_bytes(bt)), c,
                                 M, N, K, programs, block, subtile, num_stages=stages)
    out = place.get(c)
    ref = a.astype(np.float64) @ bt.astype(np.float64).T
    np.testing.assert_allclose(out[:, :N].astype(np.float64), ref, rtol=2e-3, atol=2e-2)
    np.testing.assert_array_equal(out[:, N:], PADDING_SENTINEL)


# What a row's padding holds before a store: a store past the shape changes it.
PADDING_SENTINEL = 7.0


def padded_with(value, x):
    """rows_of_16_bytes(x) with `value` in the padding."""
    padded = rows_of_16_bytes(x)
    padded[:, x.shape[1]:] = value
    return padded


@pytest.mark.parametrize("M,N,K,block,stages", [
    (130, 97, 72, (64, 64, 32), 3), (200, 264, 150, (128, 128, 64), 4)])
def test_matmul_descriptor_persistent_with_tma(place, rng, M, N, K, block, stages):
    # The same kernel with its descriptor blocks copied by TMA (sm_90): the
    # boxes reach past M, N and K, where TMA fills zeros. C is stored by TMA
    # where its rows end on 16-byte chunks (264 fp16), element-wise where
    # they do not (97): TMA would write the rest of the last chunk.
    chip = re.search(r"sm_(\d+)", device_info("cuda")) if place.device == "cuda" else None
    if not chip or int(chip.group(1)) < 90:
        pytest.skip("TMA copies need an NVIDIA GPU of sm_90 or newer")
    a = rng.standard_normal((M, K)).astype(np.float16)
    bt = rng.standard_normal((N, K)).astype(np.float16)
    c = place.put(padded_with(PADDING_SENTINEL, np.zeros((M, N), dtype=np.float16)))
    matmul_descriptor_persistent(place.put(rows_of_16_bytes(a)), place.put(rows_of_16_bytes(bt)), c,
                                 M, N, K, 4, block, False, num_stages=stages, num_warps=4, tma=True)
    out = place.get(c)
    ref = a.astype(np.float64) @ bt.astype(np.float64).T
    np.testing.assert_allclose(out[:, :N].astype(np.float64), ref, rtol=2e-3, atol=2e-2)
    np.testing.assert_array_equal(out[:, N:], PADDING_SENTINEL)


@pytest.mark.parametrize("M,N,K,block", [(150, 136, 200, (64, 64, 32)),
                                         (300, 264, 312, (128, 128, 64))])
def test_matmul_device_descriptors_with_tma(place, rng, M, N, K, block):
    # Descriptors made in the kernel from its arguments, copied by TMA.
    chip = re.search(r"sm_(\d+)", device_info("cuda")) if place.device == "cuda" else None
    if not chip or int(chip.group(1)) < 90:
        pytest.skip("TMA copies need an NVIDIA GPU of sm_90 or newer")
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    c = place.empty((M, N), np.float32)
    matmul_through_device_descriptors(place.put(a), place.put(b), c, block, num_warps=4,
                                      num_stages=3, tma=True)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(place.get(c), ref, rtol=2e-3, atol=2e-2)


@pytest.mark.parametrize("M,N,block", [(1, 8, None), (5, 300, None), (9, 300, 64), (4, 1151, 256)])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_layer_norm(place, rng, M, N, block, dtype):
    x = (rng.standard_normal((M, N)) * 3 + 1).astype(dtype)
    w = rng.random(N).astype(dtype)
    b = rng.random(N).astype(dtype)
    y, mean, rstd = place.empty((M, N), dtype), place.empty((M,), np.float32), place.empty((M,), np.float32)
    block = block or min(1024, tessera.next_power_of_2(N))
    _layer_norm_fwd_fused[(M,)](place.put(x), y, place.put(w), place.put(b), mean, rstd, N, N, 1e-5,
                                BLOCK_SIZE=block, num_warps=8)
    x64 = x.astype(np.float64)
    mu = x64.mean(axis=1, keepdims=True)
    var = ((x64 - mu) ** 2).mean(axis=1, keepdims=True)
    ref = (x64 - mu) / np.sqrt(var + 1e-5) * w.astype(np.float64) + b.astype(np.float64)
    tol = 1e-4 if dtype == np.float32 else 1e-2
    np.testing.assert_allclose(place.get(y).astype(np.float64), ref, rtol=tol, atol=tol)
    np.testing.assert_allclose(place.get(mean), mu[:, 0], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(place.get(rstd), 1 / np.sqrt(var[:, 0] + 1e-5), rtol=1e-4)


# ---------------------------------------------------------------------------
# tessera.language on the device
# ---------------------------------------------------------------------------

# Vulkan's precision rules: sin and cos to 2^-11 absolute on [-pi, pi]; exp,
# exp2 and log, log2 to a few ulp. Other ops are correctly rounded.
UNARY_ATOL = {"sin": 5e-4, "cos": 5e-4}


@pytest.mark.parametrize("op", sorted(UNARY))
@pytest.mark.parametrize("n", [13, 100])
def test_unary(place, rng, op, n):
    ref, positive = UNARY[op]
    x = rng.uniform(-3, 3, n)
    if positive:
        x = np.abs(x) + 0.01
    x = x.astype(np.float32)
    out = place.empty((n,), np.float32)
    unary_kernel[(tessera.cdiv(n, 32),)](place.put(x), out, n, OP=op, BLOCK=32)
    np.testing.assert_allclose(place.get(out), ref(x.astype(np.float64)), rtol=2e-6,
                               atol=UNARY_ATOL.get(op, 1e-6))


def test_launch_options_are_part_of_the_cache_key(place):
    # num_warps, num_stages, enable_fp_fusion and maxnreg each select another
    # compiled kernel (the last two change only NVIDIA's code).
    x, out = place.put(np.ones(32, np.float32)), place.empty((32,), np.float32)
    default = unary_kernel.warmup(x, out, 32, OP="exp", BLOCK=32)
    assert unary_kernel.warmup(x, out, 32, OP="exp", BLOCK=32, enable_fp_fusion=True) is default
    others = [unary_kernel.warmup(x, out, 32, OP="exp", BLOCK=32, **option)
              for option in ({"enable_fp_fusion": False}, {"maxnreg": 64}, {"num_warps": 2})]
    assert all(other is not default for other in others)
    assert len({id(other) for other in others}) == 3


@pytest.mark.parametrize("op", sorted(INT_BINARY))
def test_binary_int(place, rng, op):
    n = 100
    x = rng.integers(-1000, 1000, n).astype(np.int32)
    y = rng.integers(-50, 50, n).astype(np.int32)
    y[:3] = x[:3]
    y[y == 0] = 7
    ref = INT_BINARY[op](x, y)
    out = place.empty((n,), ref.dtype if ref.dtype != np.bool_ else np.int8)
    binary_kernel[(tessera.cdiv(n, 32),)](place.put(x), place.put(y), out, n, OP=op, BLOCK=32)
    np.testing.assert_array_equal(place.get(out), ref.astype(out.dtype))


@pytest.mark.parametrize("op", sorted(FLOAT_BINARY))
def test_binary_float(place, rng, op):
    n = 77
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    y[:3] = x[:3]
    ref = FLOAT_BINARY[op](x, y)
    out = place.empty((n,), np.float32 if ref.dtype != np.bool_ else np.int8)
    binary_kernel[(tessera.cdiv(n, 32),)](place.put(x), place.put(y), out, n, OP=op, BLOCK=32)
    # `/` is within 2 ulp on NVIDIA (div.full.f32) and 2.5 on Vulkan, whose
    # division is never correctly rounded, div_rn's neither (NVIDIA's and
    # AMD's is); the remainder x - y * floor(x / y) inherits that error in
    # absolute terms.
    correctly_rounded = place.device.startswith(("cuda", "hip"))
    divisions = ("/", "//", "%") if correctly_rounded else ("/", "//", "%", "div_rn", "fdiv_ieee")
    rtol = 4e-7 if op in divisions else 0
    atol = 1e-6 if op == "%" else 0
    np.testing.assert_allclose(place.get(out), ref.astype(out.dtype), rtol=rtol, atol=atol)


@pytest.mark.parametrize("src,dst", [(np.float32, np.float16), (np.float16, np.float32),
                                     (np.float32, np.int32), (np.int32, np.float32),
                                     (np.uint8, np.int32)])
def test_to(place, rng, src, dst):
    n = 37
    if np.issubdtype(src, np.integer):
        x = rng.integers(0 if src == np.uint8 else -10**6, 255 if src == np.uint8 else 10**6, n).astype(src)
    else:
        x = (rng.standard_normal(n) * 50).astype(src)
    out = place.empty((n,), dst)
    names = {np.float16: tl.float16, np.float32: tl.float32, np.int32: tl.int32}
    cast_kernel[(1,)](place.put(x), out, n, DTYPE=names[dst], BITCAST=False, BLOCK=64)
    ref = np.trunc(x).astype(dst) if np.issubdtype(dst, np.integer) else x.astype(dst)
    np.testing.assert_array_equal(place.get(out), ref)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.uint32, np.uint64])
def test_unsigned_arithmetic(place, rng, dtype):
    """Unsigned division, logical shifts, comparisons, wrapping arithmetic and
    reductions (test_unsigned.py's kernels) on the device."""
    check_unsigned_elementwise(rng, dtype, place.put, place.empty, place.get)
    check_unsigned_reductions(rng, dtype, place.put, place.empty, place.get)


def test_bool_arrays(place, rng):
    """Booleans loaded as `byte != 0` and stored as 0 or 1 (test_bool_pointers.py)
    on the device."""
    check_bool_ops(rng, 200, place.put, place.get)
    x, y = rng.random(32) < 0.5, rng.random(32) < 0.5
    out = place.empty((5 * 32,), np.bool_)
    bool_comparisons[(1,)](place.put(x), place.put(y), out, N=32)
    np.testing.assert_array_equal(place.get(out).reshape(5, 32),
                                  [x > y, x <= y, x | y, x & y, np.ones(32, np.bool_)])


def test_pointer_casts(place, rng):
    """Pointers cast to other element types (tgpu.reinterpret_pointer) on
    NVIDIA and AMD GPUs; Vulkan's typed storage buffers refuse them."""
    if getattr(place, "device", None) == "vulkan":
        with pytest.raises(tessera.CompilationError, match="Vulkan's storage buffers"):
            check_pointer_casts(rng, place.put, place.get)
        return
    check_pointer_casts(rng, place.put, place.get)


def test_early_returns(place, rng):
    """Returns from dynamic branches (scf.if holding the rest of the kernel)
    on the device."""
    check_early_returns(rng, place.put, place.get)


def test_atomic_loads_and_stores(place, rng):
    check_atomic_loads_and_stores(rng, place.put, place.get)


def test_unsigned_stores_and_atomics(place, rng):
    """Unsigned values stored through wider pointers by value, and atomic
    max/min comparing unsigned (umax/umin), on the device."""
    check_unsigned_stores_and_atomics(rng, place.put, place.empty, place.get)


@tessera.jit
def narrowing_copy(x_ptr, out_ptr, rows, cols, DTYPE: tl.constexpr, BM: tl.constexpr,
                   BN: tl.constexpr):
    r = tl.program_id(0) * BM + tl.arange(0, BM)
    c = tl.arange(0, BN)
    mask = (r[:, None] < rows) & (c[None, :] < cols)
    x = tl.load(x_ptr + r[:, None] * cols + c[None, :], mask=mask)
    tl.store(out_ptr + r[:, None] * cols + c[None, :], x.to(DTYPE), mask=mask)


@pytest.mark.parametrize("src,dst,block", [
    (np.float32, np.float16, (16, 64)), (np.float32, np.float16, (1, 2048)),
    (np.int32, np.int8, (8, 128)), (np.float64, np.float32, (4, 256)),
    (np.float16, np.float32, (16, 64))])
def test_narrowing_and_widening_stores(place, rng, src, dst, block):
    """A tile stored as another type than it was loaded: a narrowing store
    keeps the loaded layout (4 f32 a thread, stored as 4 halves: no trip
    through shared memory, LayoutAnchors::storesAsItIs); a widening one is
    converted to the store's. Ragged rows and columns."""
    BM, BN = block
    rows, cols = 3 * BM - 1, BN - 3
    if np.issubdtype(src, np.integer):
        x = rng.integers(-128, 128, (rows, cols)).astype(src)
    else:
        x = (rng.standard_normal((rows, cols)) * 50).astype(src)
    out = place.empty((rows, cols), dst)
    names = {np.float16: tl.float16, np.float32: tl.float32, np.int8: tl.int8}
    narrowing_copy[(3,)](place.put(x), out, rows, cols, DTYPE=names[dst], BM=BM, BN=BN)
    np.testing.assert_array_equal(place.get(out), x.astype(dst))


@tessera.jit
def transpose_blocks(x_ptr, out_ptr, rows, cols, BM: tl.constexpr, BN: tl.constexpr):
    """out = x.T, a program per [BM, BN] block of x."""
    r = tl.program_id(0) * BM + tl.arange(0, BM)
    c = tl.program_id(1) * BN + tl.arange(0, BN)
    x = tl.load(x_ptr + r[:, None] * cols + c[None, :],
                mask=(r[:, None] < rows) & (c[None, :] < cols))
    tl.store(out_ptr + c[:, None] * rows + r[None, :], tl.trans(x),
             mask=(c[:, None] < cols) & (r[None, :] < rows))


@pytest.mark.parametrize("dtype,BN", [(np.float32, 128), (np.float16, 256)])
def test_transpose_larger_than_shared_memory(place, rng, dtype, BN):
    """Blocks of 64 KiB transposed: where shared memory holds less (32 KiB on
    lavapipe) the conversion between the load's layout and the store's goes
    through in pieces (lowering/gpu/distribute/ExchangePieces.h). Ragged
    edges masked, the rows and columns multiples of 16, so that both layouts
    move vectors."""
    rows, cols = 128 + 48, 2 * BN - 32
    x = rng.standard_normal((rows, cols)).astype(dtype)
    out = place.empty((cols, rows), dtype)
    transpose_blocks[(2, 2)](place.put(x), out, rows, cols, BM=128, BN=BN, num_warps=16)
    np.testing.assert_array_equal(place.get(out), x.T)


@pytest.mark.parametrize("op,axis", [(op, axis) for op in sorted(REDUCE) + ["cumsum"]
                                      for axis in (0, 1, None) if not (op == "cumsum" and axis is None)])
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_reduce(place, rng, op, axis, dtype):
    M, N = 16, 32
    x = (rng.standard_normal((M, N)) * 100).astype(dtype)
    x[3, 5] = x[3, 7]
    if op == "cumsum":
        ref = np.cumsum(x, axis=axis)
        out = place.empty(x.shape, dtype)
    else:
        ref = np.asarray(REDUCE[op](x, axis=axis) if axis is not None else REDUCE[op](x))
        out = place.empty(ref.shape or (1,), np.int32 if op.startswith("arg") else dtype)
    reduce_kernel[(1,)](place.put(x), out, M, N, OP=op, AXIS=axis, BM=16, BN=32)
    np.testing.assert_allclose(place.get(out).reshape(ref.shape), ref.astype(out.dtype), rtol=1e-5,
                               atol=1e-3)


@pytest.mark.parametrize("op", sorted(REDUCE))
@pytest.mark.parametrize("shape", [(64, 64), (64, 16), (61, 13)])
def test_column_reductions_over_eight_warps(place, rng, op, shape):
    """Down columns of a tile spread over 8 warps, each thread holding several
    columns: the warps' partials are combined spread over the threads (in
    several rounds, or in fewer threads than the program has); the ragged
    shape masks the sum."""
    if op != "sum" and shape == (61, 13):
        pytest.skip("masked-off elements (0) would take part in max, min and their indices")
    M, N = shape
    x = (rng.standard_normal((M, N)) * 100).astype(np.float32)
    x[3, 5] = x[9, 5]  # a tie: the first index wins
    ref = REDUCE[op](x, axis=0)
    out = place.empty((N,), np.int32 if op.startswith("arg") else np.float32)
    reduce_kernel[(1,)](place.put(x), out, M, N, OP=op, AXIS=0, BM=64, BN=tessera.next_power_of_2(N),
                        num_warps=8)
    np.testing.assert_allclose(place.get(out), ref.astype(out.dtype), rtol=1e-5, atol=1e-3)


@pytest.mark.parametrize("n", [1, 13, 64, 100])
def test_reduce_ragged(place, rng, n):
    x = rng.standard_normal(n).astype(np.float32)
    s, m = place.empty((1,), np.float32), place.empty((2,), np.float32)
    reduce_ragged_kernel[(1,)](place.put(x), s, m, n, BLOCK=128)
    np.testing.assert_allclose(place.get(s)[0], x.astype(np.float64).sum(), rtol=1e-5, atol=1e-5)
    assert list(place.get(m)) == [x.max(), np.argmax(x)]


@pytest.mark.parametrize("op", sorted(SHAPE_OPS))
def test_shapes(place, rng, op):
    x = rng.standard_normal((4, 8)).astype(np.float32)
    ref = SHAPE_OPS[op](x).ravel()
    out = place.put(np.full(64, np.nan, dtype=np.float32))
    shape_kernel[(1,)](place.put(x), out, OP=op, SIZE=ref.size)
    np.testing.assert_allclose(place.get(out)[: ref.size], ref, rtol=1e-6, atol=1e-6)


def test_hints_keep_values(place, rng):
    x = rng.standard_normal(64).astype(np.float32)
    out = place.empty((4 * 32,), np.float32)
    hinted_wrapped_copy[(4,)](place.put(x), out, 64, BLOCK=32)
    np.testing.assert_array_equal(place.get(out), x[np.arange(128) % 64])


def test_debug_barrier_orders_memory_between_threads(place, rng):
    x = rng.standard_normal(4 * 64).astype(np.float32)
    scratch = place.put(np.zeros_like(x))
    out = place.empty(x.shape, np.float32)
    reverse_through_memory[(4,)](place.put(x), scratch, out, BLOCK=64, num_warps=2)
    np.testing.assert_array_equal(place.get(out), x.reshape(4, 64)[:, ::-1].reshape(-1))


def test_grid_and_program_ids(place):
    nx, ny, nz, B = 3, 2, 4, 8
    out = place.empty((nx * ny * nz * B,), np.int32)
    grid_kernel[(nx, ny, nz)](out, BLOCK=B)
    pid = np.repeat(np.arange(nx * ny * nz), B)
    np.testing.assert_array_equal(place.get(out), 7 + pid * 1000 + 324)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int8])
@pytest.mark.parametrize("trans_b", [False, True])
def test_dot(place, rng, dtype, trans_b):
    M, N, K = 16, 32, 16
    if dtype == np.int8:
        a, b = rng.integers(-20, 20, (M, K)).astype(dtype), rng.integers(-20, 20, (K, N)).astype(dtype)
        out_dtype = np.int32
    else:
        a, b = rng.standard_normal((M, K)).astype(dtype), rng.standard_normal((K, N)).astype(dtype)
        out_dtype = np.float32
    acc = dtype != np.int8
    c = place.empty((M, N), out_dtype)
    dot_kernel[(1,)](place.put(a), place.put(np.ascontiguousarray(b.T) if trans_b else b), c,
                     M=M, N=N, K=K, TRANS_B=trans_b, ACC=acc)
    ref = a.astype(np.float64) @ b.astype(np.float64) + (1.0 if acc else 0.0)
    np.testing.assert_allclose(place.get(c), ref.astype(out_dtype), rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("n", [1, 13, 64, 1000])
def test_atomics(place, rng, n):
    x = rng.integers(0, 10, n).astype(np.int32)
    hist, mx = place.put(np.zeros(10, np.int32)), place.put(np.full(1, -1, np.int32))
    histogram_kernel[(tessera.cdiv(n, 16),)](place.put(x), hist, mx, n, BLOCK=16)
    np.testing.assert_array_equal(place.get(hist), np.bincount(x, minlength=10))
    assert place.get(mx)[0] == x.max()
    values = rng.random(n).astype(np.float32)
    total = place.put(np.zeros(1, np.float32))
    float_atomic_kernel[(tessera.cdiv(n, 64),)](place.put(values), total, n, BLOCK=64)
    np.testing.assert_allclose(place.get(total)[0], values.astype(np.float64).sum(), rtol=1e-5)


def test_xor_atomics(place, rng):
    """atomic_xor (spirv.AtomicXor on Vulkan) on four contended words."""
    check_xor_atomics(rng, place.put, place.get)


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.float16])
def test_sort_topk_and_flip(place, rng, dtype):
    """Each exchange pairs elements one bit apart in their index: within a
    thread's registers, across lanes, and across warps."""
    rows, n, k = 2, 128, 8
    x = random_rows(rng, (rows, n), dtype)
    x[0, :3] = x[0, 3]  # ties
    ascending = np.sort(x, axis=1)
    bitonic = np.concatenate([ascending[:, ::2], ascending[:, 1::2][:, ::-1]], axis=1)
    outs = [place.empty((rows, n), dtype) for _ in range(2)]
    tops = [place.empty((rows, k), dtype) for _ in range(2)]
    merged = place.empty((rows, n), dtype)
    ordered[(1,)](place.put(x), place.put(bitonic), *outs, *tops, merged, R=rows, N=n, K=k)
    for got, expected in zip(outs + tops + [merged],
                             [ascending, ascending[:, ::-1], ascending[:, ::-1][:, :k],
                              ascending[:, :k], ascending]):
        np.testing.assert_array_equal(place.get(got), expected)
    flipped_rows, flipped_columns = place.empty((rows, n), dtype), place.empty((rows, n), dtype)
    flips[(1,)](place.put(x), flipped_rows, flipped_columns, R=rows, N=n)
    np.testing.assert_array_equal(place.get(flipped_rows), x[::-1])
    np.testing.assert_array_equal(place.get(flipped_columns), x[:, ::-1])


@pytest.mark.parametrize("propagate", ["NONE", "ALL"])
def test_maximum_minimum_clamp_with_nans(place, rng, propagate):
    """arith.maximumf/minimumf and tile.clamp where NaNs propagate,
    maxnumf/minnumf where the number wins."""
    block = 128
    x = rng.standard_normal(block).astype(np.float32)
    y = rng.standard_normal(block).astype(np.float32)
    x[:4], y[2:6] = np.nan, np.nan
    out = place.empty(3 * block, np.float32)
    extrema[(1,)](place.put(x), place.put(y), out, BLOCK=block,
                  PROPAGATE=getattr(tl.PropagateNan, propagate))
    if propagate == "ALL":
        expected = [np.maximum(x, y), np.minimum(x, y), np.clip(x, -0.5, 0.5)]
    else:
        expected = [np.fmax(x, y), np.fmin(x, y), np.fmin(np.fmax(x, -0.5), 0.5)]
    np.testing.assert_array_equal(place.get(out).reshape(3, block), expected)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int64])
def test_gather(place, rng, dtype):
    """The source goes through shared memory; the result takes the indices'
    layout, along either axis and the middle one of three."""
    src = (rng.standard_normal((16, 32)) * 50).astype(dtype)
    for index_shape, axis in [((16, 8), 1), ((64, 32), 0)]:
        index = rng.integers(0, src.shape[axis], index_shape).astype(np.int32)
        out = place.empty(index_shape, dtype)
        gather_2d[(1,)](place.put(src), place.put(index), out, R=16, C=32, IR=index_shape[0],
                        IC=index_shape[1], AXIS=axis)
        np.testing.assert_array_equal(place.get(out), np.take_along_axis(src, index, axis))
    src3 = rng.standard_normal((4, 16, 8)).astype(np.float32)
    index3 = rng.integers(0, 16, (4, 32, 8)).astype(np.int32)
    out3 = place.empty((4, 32, 8), np.float32)
    gather_3d_method[(1,)](place.put(src3), place.put(index3), out3, A=4, B=16, C=8, K=32)
    np.testing.assert_array_equal(place.get(out3), np.take_along_axis(src3, index3, 1))


@pytest.mark.parametrize("dtype", [np.int32, np.int8, np.int64])
@pytest.mark.parametrize("n_valid, n, bins", [(1000, 1024, 64), (1024, 1024, 256), (3, 4, 8)])
def test_histogram(place, rng, dtype, n_valid, n, bins):
    """Workgroup atomics, each element counted once however the layout copies it."""
    x = rng.integers(-3, min(np.iinfo(dtype).max, bins + 3), n, endpoint=True).astype(dtype)
    out = place.empty(bins, np.int32)
    masked_histogram[(1,)](place.put(x), out, n_valid, N=n, BINS=bins)
    np.testing.assert_array_equal(place.get(out), histogram_reference(x[:n_valid], bins))


# ---------------------------------------------------------------------------
# Launch options, the cache, device code
# ---------------------------------------------------------------------------


def test_num_warps_are_honoured_and_cached(place, rng):
    n = 1000
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    dx, dy, out = place.put(x), place.put(y), place.empty((n,), np.float32)
    seen = {}
    for num_warps in (1, 2, 4, 8):
        compiled = add_kernel[(tessera.cdiv(n, 256),)](dx, dy, out, n, BLOCK_SIZE=256,
                                                      num_warps=num_warps)
        np.testing.assert_array_equal(place.get(out), x + y)
        assert compiled.backend == place.device
        assert compiled.device_kernel.num_warps == num_warps
        seen[num_warps] = compiled
    warp = seen[1].device_kernel.block_threads
    assert [seen[w].device_kernel.block_threads for w in (1, 2, 4, 8)] == [warp, 2 * warp, 4 * warp, 8 * warp]
    again = add_kernel[(tessera.cdiv(n, 256),)](dx, dy, out, n, BLOCK_SIZE=256, num_warps=2)
    assert again is seen[2]  # one compile per specialization and num_warps


def test_device_code_is_reported(vulkan):
    x = vulkan.put(np.ones(8, np.float32))
    compiled = add_kernel[(1,)](x, x, x, 8, BLOCK_SIZE=8)
    assert "spirv.module" in compiled.asm["spirv"] and compiled.asm["spv"][:4] == b"\x03\x02\x23\x07"
    assert compiled.device_kernel.target.startswith("vulkan:")


# ---------------------------------------------------------------------------
# Arrays and errors
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int8, np.int32, np.int64, np.uint8])
def test_arrays_round_trip(vulkan, rng, dtype):
    x = (rng.standard_normal((3, 5)) * 50).astype(dtype)
    a = tessera.asarray(x, device="vulkan")
    assert a.device == "vulkan" and a.shape == (3, 5) and a.dtype == dtype and a.stride() == (5, 1)
    np.testing.assert_array_equal(a.numpy(), x)
    np.testing.assert_array_equal(tessera.asarray(a, device="cpu").numpy(), x)
    assert not tessera.zeros((4, 2), dtype, device="vulkan").numpy().any()
    assert "device='vulkan'" in repr(a)
    with pytest.raises(TypeError, match="a Vulkan array has no address"):
        a.data_ptr()


@pytest.mark.parametrize("dtype", [tl.float8e4nv, tl.float8e5])
def test_float8_arrays_on_gpus(place, rng, dtype):
    """fp8 device arrays (NumPy has no fp8): rounded on the way in, float32
    values on the way out, fp8 arithmetic on the device in between."""
    if isinstance(place, TorchCuda):
        pytest.skip("PyTorch passes its own float8 tensors (test_launch.py)")
    values = rng.standard_normal(300) * 100
    x = tessera.asarray(values, dtype=dtype, device=place.device)
    out = tessera.zeros((300,), dtype, device=place.device)
    doubled[(2,)](x, out, 300, BLOCK=256)
    codec = tessera.float8_codec
    rounded = codec.decode(codec.encode(values, dtype), dtype)
    np.testing.assert_array_equal(x.numpy(), rounded)
    np.testing.assert_array_equal(tessera.asarray(x, device="cpu").numpy(), rounded)
    expected = codec.decode(codec.encode(2.0 * rounded.astype(np.float64), dtype), dtype)
    np.testing.assert_array_equal(out.numpy(), expected)


@tessera.jit
def doubled(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + x, mask=mask)


def test_mixing_devices_is_an_error(vulkan):
    x = tessera.asarray(np.zeros(16, np.float32), device="vulkan")
    with pytest.raises(tessera.ArgumentError) as info:
        add_kernel[(1,)](x, np.zeros(16, np.float32), x, 16, BLOCK_SIZE=16)
    assert info.value.message == ("kernel 'add_kernel': array arguments live on different devices "
                                  "('x_ptr' is on vulkan:0, 'y_ptr' is on cpu); copy them to one device")


def test_unsupported_op_on_vulkan_is_a_compilation_error(vulkan):
    x = tessera.asarray(np.ones(2, np.float32), device="vulkan")
    with pytest.raises(tessera.CompilationError, match="printing and asserting on Vulkan"):
        print_kernel[(1,)](x)


@pytest.mark.parametrize("device,name", [("cuda", "CUDA"), ("hip", "HIP")])
def test_absent_device_says_why(device, name):
    try:
        device_info(device)
        pytest.skip(f"this machine has a {name} device")
    except tessera.DeviceError:
        pass
    for make in (lambda: tessera.empty((4,), tessera.float32, device=device),
                 lambda: tessera.asarray(np.zeros(4, np.float32), device=device)):
        with pytest.raises(tessera.DeviceError, match=f"^no {name} device: .+"):
            make()
