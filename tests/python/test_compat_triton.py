"""tessera.compat.triton: kernels written the way Triton's tutorials write
them, importing only `triton` and `triton.language` (here from
tessera.compat.triton), checked against NumPy on the interpreter and the CPU
backend; autotune, heuristics and do_bench."""

import os
import subprocess
import sys

import numpy as np
import pytest

import tessera
import tessera.compat.triton as triton
import tessera.compat.triton.language as tl
from tessera.arrays import is_available

# ---------------------------------------------------------------------------
# The kernels: Triton tutorial code, unchanged but for the imports above.
# ---------------------------------------------------------------------------


@triton.jit
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
    grid = lambda meta: (triton.cdiv(n_elements, meta['BLOCK_SIZE']), )
    add_kernel[grid](x, y, output, n_elements, BLOCK_SIZE=1024)
    return output


@triton.jit
def softmax_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_rows, n_cols,
                   BLOCK_SIZE: tl.constexpr, num_stages: tl.constexpr):
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row_idx in tl.range(row_start, n_rows, row_step, num_stages=num_stages):
        row_start_ptr = input_ptr + row_idx * input_row_stride
        col_offsets = tl.arange(0, BLOCK_SIZE)
        input_ptrs = row_start_ptr + col_offsets
        mask = col_offsets < n_cols
        row = tl.load(input_ptrs, mask=mask, other=-float('inf'))
        row_minus_max = row - tl.max(row, axis=0)
        numerator = tl.exp(row_minus_max)
        denominator = tl.sum(numerator, axis=0)
        softmax_output = numerator / denominator
        output_row_start_ptr = output_ptr + row_idx * output_row_stride
        output_ptrs = output_row_start_ptr + col_offsets
        tl.store(output_ptrs, softmax_output, mask=mask)


def softmax(x):
    n_rows, n_cols = x.shape
    BLOCK_SIZE = triton.next_power_of_2(n_cols)
    num_warps = 8
    num_stages = 2
    y = np.empty_like(x)
    num_programs = min(4, n_rows)
    softmax_kernel[(num_programs, 1, 1)](y, x, x.strides[0] // x.itemsize, y.strides[0] // y.itemsize,
                                         n_rows, n_cols, BLOCK_SIZE=BLOCK_SIZE, num_stages=num_stages,
                                         num_warps=num_warps)
    return y


def get_autotune_config():
    return [
        triton.Config({'BLOCK_SIZE_M': 32, 'BLOCK_SIZE_N': 32, 'BLOCK_SIZE_K': 16, 'GROUP_SIZE_M': 4},
                      num_stages=3, num_warps=4),
        triton.Config({'BLOCK_SIZE_M': 16, 'BLOCK_SIZE_N': 32, 'BLOCK_SIZE_K': 32, 'GROUP_SIZE_M': 8},
                      num_stages=4, num_warps=4),
        triton.Config({'BLOCK_SIZE_M': 64, 'BLOCK_SIZE_N': 16, 'BLOCK_SIZE_K': 16, 'GROUP_SIZE_M': 2},
                      num_stages=5, num_warps=2),
    ]


@triton.autotune(
    configs=get_autotune_config(),
    key=['M', 'N', 'K'],
)
@triton.jit
def matmul_kernel(
        a_ptr, b_ptr, c_ptr,
        M, N, K,
        stride_am, stride_ak,
        stride_bk, stride_bn,
        stride_cm, stride_cn,
        BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
        GROUP_SIZE_M: tl.constexpr,
        ACTIVATION: tl.constexpr
):
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
    tl.assume(stride_am > 0)
    tl.assume(stride_ak > 0)
    tl.assume(stride_bn > 0)
    tl.assume(stride_bk > 0)
    tl.assume(stride_cm > 0)
    tl.assume(stride_cn > 0)

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
    c = accumulator.to(tl.float16)

    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


@triton.jit
def leaky_relu(x):
    return tl.where(x >= 0, x, 0.01 * x)


def matmul(a, b, activation=""):
    assert a.shape[1] == b.shape[0], "Incompatible dimensions"
    M, K = a.shape
    K, N = b.shape
    c = np.empty((M, N), dtype=np.float16)
    grid = lambda META: (triton.cdiv(M, META['BLOCK_SIZE_M']) * triton.cdiv(N, META['BLOCK_SIZE_N']), )
    s = lambda arr, i: arr.strides[i] // arr.itemsize
    matmul_kernel[grid](
        a, b, c,
        M, N, K,
        s(a, 0), s(a, 1),
        s(b, 0), s(b, 1),
        s(c, 0), s(c, 1),
        ACTIVATION=activation
    )
    return c


@triton.jit
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


def layer_norm(x, weight, bias, eps=1e-5):
    y = np.empty_like(x)
    x_arg = x.reshape(-1, x.shape[-1])
    M, N = x_arg.shape
    mean = np.empty((M, ), dtype=np.float32)
    rstd = np.empty((M, ), dtype=np.float32)
    MAX_FUSED_SIZE = 65536 // x.itemsize
    BLOCK_SIZE = min(MAX_FUSED_SIZE, triton.next_power_of_2(N))
    BLOCK_SIZE = min(BLOCK_SIZE, 256)  # small blocks: several iterations per row
    num_warps = min(max(BLOCK_SIZE // 256, 1), 8)
    _layer_norm_fwd_fused[(M, )](x_arg, y, weight, bias, mean, rstd, x_arg.strides[0] // x.itemsize, N, eps,
                                 BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps, num_ctas=1)
    return y, mean, rstd


# Fused attention forward (flash attention: online softmax over key blocks),
# in the style of Triton's 06-fused-attention tutorial (pointer version).
@triton.jit
def _attn_fwd_inner(acc, l_i, m_i, q, K_block_ptr, V_block_ptr, stride_kn, stride_vn, offs_m, offs_n,
                    start, end, N_CTX, qk_scale, CAUSAL: tl.constexpr, BLOCK_N: tl.constexpr):
    for start_n in range(start, end, BLOCK_N):
        cols = start_n + offs_n
        k = tl.load(K_block_ptr + start_n * stride_kn, mask=cols[None, :] < N_CTX, other=0.0)
        qk = tl.dot(q, k)
        valid = cols[None, :] < N_CTX
        if CAUSAL:
            valid = valid & (offs_m[:, None] >= cols[None, :])
        qk = tl.where(valid, qk * qk_scale, -1.0e6)
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        qk = qk - m_ij[:, None]
        p = tl.math.exp2(qk)
        l_ij = tl.sum(p, 1)
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + l_ij
        acc = acc * alpha[:, None]
        v = tl.load(V_block_ptr + start_n * stride_vn, mask=cols[:, None] < N_CTX, other=0.0)
        acc = tl.dot(p.to(v.dtype), v, acc)
        m_i = m_ij
    return acc, l_i, m_i


@triton.jit
def _attn_fwd(Q, K, V, sm_scale, Out,
              stride_qz, stride_qm, stride_qk,
              stride_kz, stride_kn, stride_kk,
              stride_vz, stride_vn, stride_vk,
              stride_oz, stride_om, stride_ok,
              N_CTX,
              HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
              CAUSAL: tl.constexpr):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q_ptrs = Q + off_hz * stride_qz + offs_m[:, None] * stride_qm + offs_d[None, :] * stride_qk
    k_ptrs = K + off_hz * stride_kz + offs_n[None, :] * stride_kn + offs_d[:, None] * stride_kk
    v_ptrs = V + off_hz * stride_vz + offs_n[:, None] * stride_vn + offs_d[None, :] * stride_vk
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504  # 1/log(2)
    q = tl.load(q_ptrs, mask=offs_m[:, None] < N_CTX, other=0.0)
    if CAUSAL:
        hi = tl.minimum((start_m + 1) * BLOCK_M, N_CTX)
    else:
        hi = N_CTX
    acc, l_i, m_i = _attn_fwd_inner(acc, l_i, m_i, q, k_ptrs, v_ptrs, stride_kn, stride_vn, offs_m,
                                    offs_n, 0, hi, N_CTX, qk_scale, CAUSAL, BLOCK_N)
    acc = acc / l_i[:, None]
    o_ptrs = Out + off_hz * stride_oz + offs_m[:, None] * stride_om + offs_d[None, :] * stride_ok
    tl.store(o_ptrs, acc.to(Out.dtype.element_ty), mask=offs_m[:, None] < N_CTX)


def attention(q, k, v, causal, sm_scale):
    Z, N_CTX, HEAD_DIM = q.shape
    o = np.empty_like(q)
    BLOCK_M, BLOCK_N = 16, 16
    st = lambda a: [s // a.itemsize for s in a.strides]
    grid = (triton.cdiv(N_CTX, BLOCK_M), Z, 1)
    _attn_fwd[grid](q, k, v, sm_scale, o, *st(q), *st(k), *st(v), *st(o), N_CTX,
                    HEAD_DIM=HEAD_DIM, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, CAUSAL=causal,
                    num_warps=4, num_stages=2)
    return o


# ---------------------------------------------------------------------------
# Tests
# ---------------------------------------------------------------------------


def test_same_language_module():
    import tessera.language
    assert tl is tessera.language
    assert triton.language is tessera.language


@pytest.mark.parametrize("n", [1, 1000, 98432 // 16])
def test_vector_add(backend, rng, n):
    x = rng.random(n, dtype=np.float32)
    y = rng.random(n, dtype=np.float32)
    np.testing.assert_array_equal(add(x, y), x + y)


@pytest.mark.parametrize("shape", [(1, 3), (17, 781), (64, 128)])
def test_fused_softmax(backend, rng, shape):
    x = rng.standard_normal(shape).astype(np.float32)
    x64 = x.astype(np.float64)
    z = np.exp(x64 - x64.max(axis=1, keepdims=True))
    np.testing.assert_allclose(softmax(x), z / z.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("M,N,K", [(64, 64, 64), (77, 45, 61)])
def test_matmul_autotuned(backend, rng, M, N, K):
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(matmul(a, b).astype(np.float64), ref, rtol=2e-3, atol=2e-2)
    # Tuned once for this key; the best config is remembered.
    best = matmul_kernel.best_config
    assert best in get_autotune_config()
    keys = [key for key in matmul_kernel.cache if key[:3] == (M, N, K) and key[-1] == backend]
    assert len(keys) == 1
    assert set(matmul_kernel.configs_timings) == set(get_autotune_config())
    ref = np.where(ref >= 0, ref, 0.01 * ref)
    np.testing.assert_allclose(matmul(a, b, "leaky_relu").astype(np.float64), ref, rtol=2e-3, atol=2e-2)


@pytest.mark.parametrize("M,N", [(1, 8), (5, 300), (4, 1151)])
def test_layer_norm(backend, rng, M, N):
    x = (rng.standard_normal((M, N)) * 3 + 1).astype(np.float32)
    w = rng.random(N).astype(np.float32)
    b = rng.random(N).astype(np.float32)
    y, mean, rstd = layer_norm(x, w, b)
    x64 = x.astype(np.float64)
    mu = x64.mean(axis=1, keepdims=True)
    var = ((x64 - mu) ** 2).mean(axis=1, keepdims=True)
    ref = (x64 - mu) / np.sqrt(var + 1e-5) * w + b
    np.testing.assert_allclose(y, ref, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(mean, mu[:, 0], rtol=1e-5, atol=1e-5)


def attention_reference(q, k, v, causal, sm_scale):
    q, k, v = (t.astype(np.float64) for t in (q, k, v))
    s = q @ k.transpose(0, 2, 1) * sm_scale
    if causal:
        n = q.shape[1]
        s = np.where(np.tril(np.ones((n, n), dtype=bool)), s, -np.inf)
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    return (p / p.sum(axis=-1, keepdims=True)) @ v


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("Z,N_CTX,HEAD_DIM", [(1, 16, 16), (3, 45, 32)])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_fused_attention(backend, rng, Z, N_CTX, HEAD_DIM, causal, dtype):
    q, k, v = (rng.standard_normal((Z, N_CTX, HEAD_DIM)).astype(dtype) for _ in range(3))
    sm_scale = 1.0 / np.sqrt(HEAD_DIM)
    out = attention(q, k, v, causal, sm_scale)
    tol = 1e-4 if dtype == np.float32 else 1e-2
    np.testing.assert_allclose(out.astype(np.float64), attention_reference(q, k, v, causal, sm_scale),
                               rtol=tol, atol=tol)


# -- autotune, heuristics, Config, do_bench ------------------------------------


def test_autotune_times_each_config_once_per_key(backend, rng, monkeypatch):
    calls = []

    @triton.autotune(configs=[triton.Config({"BLOCK": 16}), triton.Config({"BLOCK": 64}, num_warps=8),
                              triton.Config({"BLOCK": 256}, pre_hook=lambda args: calls.append(args["BLOCK"]))],
                     key=["n"])
    @triton.jit
    def copy_kernel(src, dst, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(dst + offs, tl.load(src + offs, mask=offs < n), mask=offs < n)

    timed = []
    original = copy_kernel._bench
    monkeypatch.setattr(copy_kernel, "_bench", lambda c, *a: timed.append(c) or original(c, *a))
    for n in (100, 100, 300, 100):
        x = rng.random(n, dtype=np.float32)
        y = np.zeros_like(x)
        copy_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, y, n)
        np.testing.assert_array_equal(y, x)
    assert len(timed) == 6  # 3 configs x 2 distinct keys
    assert len(copy_kernel.cache) == 2
    assert all(t >= 0 for t in copy_kernel.configs_timings.values())
    assert copy_kernel.best_config in copy_kernel.configs
    assert 256 in calls  # the config's pre_hook ran when it was timed


def test_autotune_reset_to_zero_and_conflicts(backend, rng):
    @triton.autotune(configs=[triton.Config({"BLOCK": 32}), triton.Config({"BLOCK": 128})],
                     key=["n"], reset_to_zero=["out"])
    @triton.jit
    def sum_kernel(x, out, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.atomic_add(out, tl.sum(tl.load(x + offs, mask=offs < n, other=0.0), axis=0))

    x = rng.random(1000, dtype=np.float32)
    out = np.zeros(1, dtype=np.float32)
    sum_kernel[lambda meta: (triton.cdiv(1000, meta["BLOCK"]),)](x, out, 1000)
    np.testing.assert_allclose(out[0], x.astype(np.float64).sum(), rtol=1e-4)
    with pytest.raises(ValueError, match="Conflicting meta-parameters: BLOCK"):
        sum_kernel[(1,)](x, out, 1000, BLOCK=64)


def test_autotune_early_config_prune(backend, rng):
    seen = []

    def keep_small(configs, named, **kwargs):
        seen.append(named["n"])
        return [c for c in configs if c.kwargs["BLOCK"] <= named["n"]]

    @triton.autotune(configs=[triton.Config({"BLOCK": 32}), triton.Config({"BLOCK": 128})],
                     key=["n"], prune_configs_by={"early_config_prune": keep_small})
    @triton.jit
    def copy_kernel(src, dst, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(dst + offs, tl.load(src + offs, mask=offs < n), mask=offs < n)

    x = rng.random(100, dtype=np.float32)
    y = np.zeros_like(x)
    copy_kernel[lambda meta: (triton.cdiv(100, meta["BLOCK"]),)](x, y, 100)
    np.testing.assert_array_equal(y, x)
    assert seen == [100] and list(copy_kernel.configs_timings) == [copy_kernel.configs[0]]
    with pytest.raises(ValueError, match="early_config_prune kept none of its 2 configs"):
        copy_kernel[(1,)](x, y, 20)


def test_autotune_bad_key():
    with pytest.raises(ValueError, match="autotune key 'm' is not a parameter"):
        @triton.autotune(configs=[triton.Config({})], key=["m"])
        @triton.jit
        def k(x, n):
            pass


CLI = os.environ.get("TESSERA_CLI") or os.path.join(os.path.dirname(__file__), "..", "..", "build",
                                                    "bin", "tessera")
TUNED_KERNEL = """
import numpy as np
import tessera.compat.triton as triton
import tessera.compat.triton.language as tl


@triton.jit
def helper(x):
    return x * 2


@triton.autotune(configs=[triton.Config({"BLOCK": 32}), triton.Config({"BLOCK": 128})],
                 key=["n"]CACHE)
@triton.jit
def double(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, helper(tl.load(x_ptr + offs, mask=offs < n)), mask=offs < n)


x = np.arange(1000, dtype=np.float32)
out = np.zeros_like(x)
double[lambda meta: (triton.cdiv(1000, meta["BLOCK"]),)](x, out, 1000)
assert (out == 2 * x).all()
print("timed" if double.bench_time > 0 else "from the record")
"""


def run_tuned(tmp_path, cache_results=True, **environment):
    """Runs TUNED_KERNEL in a fresh process with its caches in tmp_path: whether
    it timed its configs or took them from a tuning record."""
    path = tmp_path / "tuned.py"
    if not path.exists():
        path.write_text(TUNED_KERNEL.replace("CACHE", ", cache_results=True" if cache_results else ""))
    env = {**os.environ, "TESSERA_CACHE_DIR": str(tmp_path / "cache"), "TESSERA_INTERPRET": "0",
           "PYTHONPATH": os.pathsep.join(sys.path), **environment}
    result = subprocess.run([sys.executable, str(path)], env=env, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_autotune_cache_results_keeps_timings_across_processes(tmp_path):
    """A tuning record lets a later process skip the timing; a broken record
    (flipped bytes) is removed and the configs timed again; a change to a
    @jit function the kernel calls files the timings under a new record."""
    assert run_tuned(tmp_path) == "timed"
    assert run_tuned(tmp_path) == "from the record"
    (record,) = (tmp_path / "cache" / "tuning").glob("*.tkobj")
    data = bytearray(record.read_bytes())
    data[-3] ^= 0xFF
    record.write_bytes(bytes(data))
    assert run_tuned(tmp_path) == "timed"
    assert run_tuned(tmp_path) == "from the record"
    source = tmp_path / "tuned.py"
    source.write_text(source.read_text().replace("return x * 2", "return x + x"))
    assert run_tuned(tmp_path) == "timed"
    env = {**os.environ, "TESSERA_CACHE_DIR": str(tmp_path / "cache")}
    listed = subprocess.run([CLI, "cache", "list", "--kind", "tuning"], capture_output=True,
                            text=True, env=env, timeout=60)
    assert listed.returncode == 0 and ": 2 entries" in listed.stdout, listed.stdout
    assert listed.stdout.count("double") == 2, listed.stdout


def test_autotune_caches_results_where_the_environment_asks(tmp_path):
    assert run_tuned(tmp_path, cache_results=False) == "timed"
    assert run_tuned(tmp_path, cache_results=False) == "timed"
    assert run_tuned(tmp_path, cache_results=False, TRITON_CACHE_AUTOTUNING="1") == "timed"
    assert run_tuned(tmp_path, cache_results=False,
                     TESSERA_CACHE_AUTOTUNING="1") == "from the record"
    assert run_tuned(tmp_path, cache_results=False, TESSERA_CACHE_AUTOTUNING="1",
                     TESSERA_CACHE="0") == "timed"


def test_source_digest_follows_the_code_not_its_layout(tmp_path):
    """What a tuning record is filed under: the kernel's code, the @jit
    functions it calls and the global constants it reads, not comments."""
    import importlib.util

    def digest(name, text):
        path = tmp_path / f"{name}.py"
        path.write_text(text)
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module.kernel.fn.source_digest()

    base = TUNED_KERNEL.split("\n\n\nx = ")[0].replace("CACHE", "")
    base = base.replace("double(", "kernel(") + "\nSCALE = 2\n"
    base = base.replace("return x * 2", "return x * SCALE")
    first = digest("first", base)
    assert digest("commented", base.replace("def helper(x):", "def helper(x):  # doubles\n")) == first
    assert digest("constant", base.replace("SCALE = 2", "SCALE = 3")) != first
    assert digest("helper", base.replace("x * SCALE", "SCALE * x")) != first


@triton.jit
def masked_copy(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(dst + offs, tl.load(src + offs, mask=offs < n), mask=offs < n)


def test_autotune_prints_its_progress_where_asked(backend, rng, monkeypatch, capsys):
    monkeypatch.setenv("TRITON_PRINT_AUTOTUNING", "1")
    copy_kernel = triton.autotune(configs=[triton.Config({"BLOCK": 16}),
                                           triton.Config({"BLOCK": 64})], key=["n"])(masked_copy)
    x = rng.random(100, dtype=np.float32)
    copy_kernel[lambda meta: (triton.cdiv(100, meta["BLOCK"]),)](x, np.zeros_like(x), 100)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("tessera autotune: masked_copy [1/2] BLOCK: 16"), lines
    assert lines[1].startswith("tessera autotune: masked_copy [2/2] BLOCK: 64"), lines
    assert "2 configs timed in" in lines[2] and f"best {copy_kernel.best_config}" in lines[2]


def test_autotune_record_that_does_not_decode_is_retimed(backend, rng, monkeypatch, tmp_path):
    """A record whose bytes are whole but whose timings do not fit the
    configs (another writer, a hand edit) is never trusted."""
    monkeypatch.setenv("TESSERA_CACHE_DIR", str(tmp_path))
    copy_kernel = triton.autotune(configs=[triton.Config({"BLOCK": 16}),
                                           triton.Config({"BLOCK": 64})],
                                  key=["n"], cache_results=True)(masked_copy)
    x = rng.random(100, dtype=np.float32)
    y = np.zeros_like(x)
    launch = copy_kernel[lambda meta: (triton.cdiv(100, meta["BLOCK"]),)]
    launch(x, y, 100)
    record = copy_kernel._record_key(copy_kernel._key(copy_kernel.nargs), copy_kernel.configs,
                                     copy_kernel.nargs)
    for payload in (b"not json", b'{"format": 1, "timings": [["BLOCK: 16", 1.0]]}',
                    b'{"format": 1, "timings": [["BLOCK: 16, num_warps: 4, num_ctas: 1, '
                    b'num_stages: 3, maxnreg: None", -1.0], ["BLOCK: 64, num_warps: 4, '
                    b'num_ctas: 1, num_stages: 3, maxnreg: None", 2.0]]}'):
        assert tessera._C.store_tuning_record(record, payload) == ""
        copy_kernel.cache.clear()
        copy_kernel.bench_time = 0.0
        y[:] = 0
        launch(x, y, 100)
        np.testing.assert_array_equal(y, x)
        assert copy_kernel.bench_time > 0, payload
        assert tessera._C.tuning_record(record) != payload   # rewritten whole


def test_heuristics(backend, rng):
    @triton.heuristics(values={"BLOCK": lambda args: triton.next_power_of_2(args["n"]),
                               "EVEN": lambda args: args["n"] % 2 == 0})
    @triton.jit
    def scale_kernel(x, y, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        v = tl.load(x + offs, mask=offs < n)
        tl.store(y + offs, v * (2.0 if EVEN else 3.0), mask=offs < n)

    for n in (10, 33):
        x = rng.random(n, dtype=np.float32)
        y = np.empty_like(x)
        scale_kernel[(1,)](x, y, n)
        np.testing.assert_allclose(y, x * (2.0 if n % 2 == 0 else 3.0))


def test_autotune_over_heuristics(backend, rng):
    @triton.autotune(configs=[triton.Config({"BLOCK": 64}), triton.Config({"BLOCK": 128})], key=["n"])
    @triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
    @triton.jit
    def neg_kernel(x, y, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        if EVEN:
            tl.store(y + offs, -tl.load(x + offs))
        else:
            tl.store(y + offs, -tl.load(x + offs, mask=offs < n), mask=offs < n)

    for n in (256, 200):
        x = rng.random(n, dtype=np.float32)
        y = np.empty_like(x)
        neg_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, y, n)
        np.testing.assert_array_equal(y, -x)


def test_config():
    c = triton.Config({"BLOCK": 64}, num_warps=8, num_stages=2)
    assert c.kwargs == {"BLOCK": 64} and c.num_warps == 8 and c.num_stages == 2 and c.pre_hook is None
    assert c.all_kwargs()["BLOCK"] == 64 and c.all_kwargs()["num_warps"] == 8
    assert "BLOCK: 64" in str(c)


def test_cdiv_next_power_of_2():
    assert triton.cdiv(10, 4) == 3 and triton.cdiv(8, 4) == 2
    assert [triton.next_power_of_2(n) for n in (1, 2, 3, 17, 1024)] == [1, 2, 4, 32, 1024]


def test_do_bench(rng):
    x = rng.random(4096, dtype=np.float32)
    y = rng.random(4096, dtype=np.float32)
    ms = triton.testing.do_bench(lambda: add(x, y), warmup=2, rep=10)
    assert isinstance(ms, float) and ms > 0
    q = triton.testing.do_bench(lambda: add(x, y), warmup=1, rep=5, quantiles=[0.5, 0.2, 0.8])
    assert len(q) == 3 and q[1] <= q[0] <= q[2]
    assert triton.testing.do_bench(lambda: None, rep=1, return_mode="min") >= 0
    assert isinstance(triton.testing.do_bench(lambda: None, rep=1, return_mode="all"), list)
    with pytest.raises(ValueError, match="return_mode"):
        triton.testing.do_bench(lambda: None, return_mode="average")


@triton.testing.perf_report([
    triton.testing.Benchmark(
        x_names=["size"], x_vals=[2**12, 2**14], x_log=True, line_arg="provider",
        line_vals=["tessera", "numpy"], line_names=["Tessera", "NumPy"],
        styles=[("blue", "-"), ("green", "--")], ylabel="GB/s", plot_name="vector-add",
        args={"seed": 3}),
    triton.testing.Benchmark(
        x_names=["M", "N"], x_vals=[(2, 3), (4, 5)], line_arg="scale", line_vals=[1, 10],
        line_names=["x1", "x10"], plot_name="products", args={}),
])
def swept(provider=None, size=None, seed=None, M=None, N=None, scale=None):
    """The tutorials' benchmark: a (GB/s, min, max) triple per provider and
    size; the second sweep returns plain numbers."""
    if provider is None:
        return M * N * scale
    rng = np.random.default_rng(seed)
    x, y = rng.random(size, dtype=np.float32), rng.random(size, dtype=np.float32)
    run = (lambda: add(x, y)) if provider == "tessera" else (lambda: x + y)
    ms, low, high = triton.testing.do_bench(run, warmup=1, rep=3, quantiles=[0.5, 0.2, 0.8])
    gbps = lambda t: 3 * x.nbytes * 1e-6 / t
    return gbps(ms), gbps(high), gbps(low)


def test_perf_report_prints_saves_and_plots_its_sweeps(tmp_path, capsys):
    """Triton's perf_report/Benchmark, as its tutorials end: every provider at
    every size; the table printed, saved as CSV, plotted as SVG (no
    matplotlib needed) and returned."""
    import xml.dom.minidom

    tables = swept.run(print_data=True, save_path=str(tmp_path), return_df=True)
    printed = capsys.readouterr()
    assert "vector-add:" in printed.out and "Tessera (GB/s)" in printed.out
    assert "vector-add: 2/2 (size=16384)" in printed.err  # progress
    assert list(tables[0]["size"]) == [4096, 16384]
    assert all(v > 0 for v in tables[0]["Tessera (GB/s)"])
    assert list(tables[1]["x10"]) == [60, 200] and list(tables[1]["N"]) == [3, 5]
    rows = (tmp_path / "products.csv").read_text().splitlines()
    assert rows == ["M,N,x1,x10", "2,3,6,60", "4,5,20,200"]
    svg = xml.dom.minidom.parse(str(tmp_path / "vector-add.svg"))
    assert len(svg.getElementsByTagName("polyline")) == 2  # a line per provider
    assert len(svg.getElementsByTagName("polygon")) == 2   # and its min-max band
    assert 'src="products.svg"' in (tmp_path / "results.html").read_text()
    with pytest.raises(ValueError, match="does not give one value to each of"):
        triton.testing.perf_report(triton.testing.Benchmark(
            ["M", "N"], [(1, 2, 3)], "p", [1], ["one"], "bad", {}))(lambda **kw: 1.0).run()


def test_assert_close():
    triton.testing.assert_close(np.array([1.0, 2.0]), [1.005, 2.0])  # Triton's atol: 1e-2
    triton.testing.assert_close(tessera.asarray(np.float32([1, 2])), np.float32([1, 2]))
    with pytest.raises(AssertionError, match="bad sum"):
        triton.testing.assert_close(np.array([1.0]), np.array([1.5]), err_msg="bad sum")
    triton.testing.assert_close(np.array([100.0]), np.array([101.0]), atol=0,
                                rtol=lambda dtype: 0.02 if dtype == np.float64 else 0)


def test_assert_close_takes_pytorch_tensors():
    torch = pytest.importorskip("torch")
    triton.testing.assert_close(torch.tensor([1.0, 2.5], dtype=torch.bfloat16),
                                torch.tensor([1.0, 2.5]))


def test_timing_waits_for_pytorch_cuda_work(monkeypatch):
    # Kernels on PyTorch CUDA tensors are launched asynchronously: a timer
    # must wait for the GPU, which torch.cuda.synchronize does. A stand-in
    # torch records the calls (this machine may have no GPU).
    from tessera.compat.triton import testing as tt

    events = []

    class FakeCuda:
        is_available = staticmethod(lambda: True)
        is_initialized = staticmethod(lambda: True)
        synchronize = staticmethod(lambda: events.append("sync"))

    monkeypatch.setitem(sys.modules, "torch", type("FakeTorch", (), {"cuda": FakeCuda}))
    assert tt.timed_ms(lambda: events.append("run")) >= 0
    assert events == ["sync", "run", "sync"]


def test_autotune_on_a_gpu_times_with_do_bench(monkeypatch):
    from tessera.compat.triton import autotuner

    class CudaTensor:
        """What the JIT reads of a PyTorch CUDA tensor: DLPack device type 2 (kDLCUDA)."""

        def __dlpack_device__(self):
            return (2, 0)

    assert autotuner._on_gpu({"x": CudaTensor(), "n": 3})
    assert not autotuner._on_gpu({"x": np.zeros(3), "n": 3, "flag": True})
    assert not autotuner._on_gpu({"x": tessera.asarray(np.zeros(3))})
    if is_available("vulkan"):
        assert autotuner._on_gpu({"x": tessera.asarray(np.zeros(3), device="vulkan")})

    benched = []
    monkeypatch.setattr(autotuner, "do_bench",
                        lambda fn, warmup, rep, return_mode: benched.append((warmup, rep)) or 1.0)
    monkeypatch.setattr(autotuner, "_on_gpu", lambda named: True)

    @triton.autotune(configs=[triton.Config({"BLOCK": 16}), triton.Config({"BLOCK": 32})], key=["n"])
    @triton.jit
    def fill(dst, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(dst + offs, offs.to(tl.float32), mask=offs < n)

    out = np.zeros(40, dtype=np.float32)
    fill[lambda meta: (triton.cdiv(40, meta["BLOCK"]),)](out, 40)
    np.testing.assert_array_equal(out, np.arange(40, dtype=np.float32))
    assert benched == [(25, 100), (25, 100)]
