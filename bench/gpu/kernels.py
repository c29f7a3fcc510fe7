"""The GPU benchmark kernels, written once in Triton's language.

run.py loads this file twice: once with ``jit``/``tl``/``autotune``/``Config``
bound to Tessera's (``tessera.compat.triton``) and once to Triton's, so both
compilers see the same source. Nothing here imports either; the names below
are injected into the module before it runs.
"""

# Injected by run.py: jit, tl, autotune, Config (and TensorDescriptor, which
# only run.py's launches use).

MATMUL_CONFIGS = [
    Config({"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=3, num_warps=8),
    Config({"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=4, num_warps=8),
    Config({"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 32, "GROUP_M": 8}, num_stages=5, num_warps=8),
    Config({"BLOCK_M": 256, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=3, num_warps=8),
    Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=2, num_warps=8),
    Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=4, num_warps=4),
    Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32, "GROUP_M": 8}, num_stages=4, num_warps=4),
    Config({"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 32, "GROUP_M": 8}, num_stages=4, num_warps=4),
    Config({"BLOCK_M": 128, "BLOCK_N": 64, "BLOCK_K": 32, "GROUP_M": 8}, num_stages=4, num_warps=4),
    Config({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32, "GROUP_M": 8}, num_stages=5, num_warps=2),
]


@jit
def vector_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)  # [BLOCK] i32
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)  # [BLOCK]
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


# GELU's libdevice tanh costs about 27 instructions an element: 8 bf16
# elements a thread (BLOCK 1024 on 4 warps) keep too few bytes in flight
# between them for an H200's bandwidth. Both compilers tune BLOCK and
# num_warps among the same configs, each thread 8 to 32 elements.
GELU_CONFIGS = [Config({"BLOCK": block}, num_warps=warps)
                for block in (1024, 2048, 4096) for warps in (4, 8) if block // (32 * warps) >= 8]


@autotune(configs=GELU_CONFIGS, key=["n"])
@jit
def gelu_tanh(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """GELU in its tanh form, as PyTorch's gelu(approximate="tanh"), computed
    in fp32 with libdevice's tanh: the elementwise kernel Triton users write."""
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    stored = tl.load(x_ptr + offsets, mask=mask)
    x = stored.to(tl.float32)
    inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)  # sqrt(2 / pi)
    y = 0.5 * x * (1.0 + tl.extra.cuda.libdevice.tanh(inner))
    tl.store(out_ptr + offsets, y.to(stored.dtype), mask=mask)


# Row kernels take ROWS rows per program: a row of 1024 halves is 2 KB, and
# 8192 programs that each load one row and reduce it keep too few bytes in
# flight to stream at the device's bandwidth. Both compilers tune ROWS and
# num_warps among the same configs.
ROW_CONFIGS = [Config({"ROWS": rows}, num_warps=warps) for rows in (1, 2, 4, 8) for warps in (4, 8)]
ROW_CONFIGS += [Config({"ROWS": rows}, num_warps=16) for rows in (1, 2)]


def keep_row_configs(configs, named, **kwargs):
    """The configs that give each thread 8 to 64 elements of the [ROWS, BLOCK]
    tile, else the one that gives it the most (Triton passes the caller's
    BLOCK in kwargs, Tessera in named)."""
    block = {**named, **kwargs}["BLOCK"]
    per_thread = lambda c: c.kwargs["ROWS"] * block // (32 * c.num_warps)
    return [c for c in configs if 8 <= per_thread(c) <= 64] or [max(configs, key=per_thread)]


@autotune(configs=ROW_CONFIGS, key=["n_cols"], prune_configs_by={"early_config_prune": keep_row_configs})
@jit
def softmax(out_ptr, in_ptr, in_row_stride, out_row_stride, n_rows, n_cols, BLOCK: tl.constexpr,
            ROWS: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)  # [ROWS]
    cols = tl.arange(0, BLOCK)  # [BLOCK]
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)  # [ROWS, BLOCK]
    x = tl.load(in_ptr + rows[:, None] * in_row_stride + cols[None, :], mask=mask,
                other=-float("inf")).to(tl.float32)
    x = x - tl.max(x, axis=1)[:, None]
    num = tl.exp(x)
    y = num / tl.sum(num, axis=1)[:, None]
    tl.store(out_ptr + rows[:, None] * out_row_stride + cols[None, :],
             y.to(out_ptr.dtype.element_ty), mask=mask)


@jit
def centered_rows(x, mask, n_cols, eps):
    """The rows of x less their means (zero where masked) and each row's
    1 / standard deviation: layernorm before its weight and bias."""
    mean = tl.sum(x, axis=1) / n_cols  # [ROWS]
    centered = tl.where(mask, x - mean[:, None], 0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(centered * centered, axis=1) / n_cols + eps)
    return centered, rstd


@autotune(configs=ROW_CONFIGS, key=["n_cols"], prune_configs_by={"early_config_prune": keep_row_configs})
@jit
def layernorm(x_ptr, y_ptr, w_ptr, b_ptr, row_stride, n_rows, n_cols, eps, BLOCK: tl.constexpr,
              ROWS: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)  # [ROWS]
    cols = tl.arange(0, BLOCK)  # [BLOCK]
    col_mask = cols < n_cols
    mask = (rows[:, None] < n_rows) & col_mask[None, :]  # [ROWS, BLOCK]
    offsets = rows[:, None] * row_stride + cols[None, :]
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    centered, rstd = centered_rows(x, mask, n_cols, eps)
    w = tl.load(w_ptr + cols, mask=col_mask).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=col_mask).to(tl.float32)
    y = centered * rstd[:, None] * w[None, :] + b[None, :]
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


@autotune(configs=ROW_CONFIGS, key=["n_cols"], prune_configs_by={"early_config_prune": keep_row_configs})
@jit
def layernorm_persistent(x_ptr, y_ptr, w_ptr, b_ptr, row_stride, n_rows, n_cols, eps,
                         BLOCK: tl.constexpr, ROWS: tl.constexpr):
    """layernorm on a few programs per SM: the weight and bias read once per
    program, then its blocks of ROWS rows, each block's load issued while the
    one before is computed (num_stages=2: both compilers pipeline it)."""
    cols = tl.arange(0, BLOCK)
    col_mask = cols < n_cols
    w = tl.load(w_ptr + cols, mask=col_mask).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=col_mask).to(tl.float32)
    for first in tl.range(tl.program_id(0) * ROWS, n_rows, tl.num_programs(0) * ROWS,
                          num_stages=2):
        rows = first + tl.arange(0, ROWS)
        mask = (rows[:, None] < n_rows) & col_mask[None, :]
        offsets = rows[:, None] * row_stride + cols[None, :]
        x = tl.load(x_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
        centered, rstd = centered_rows(x, mask, n_cols, eps)
        y = centered * rstd[:, None] * w[None, :] + b[None, :]
        tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


# Flash attention's configs: Triton's tutorial tunes over the same kind.
ATTENTION_CONFIGS = [
    Config({"BLOCK_M": 128, "BLOCK_N": 64}, num_stages=2, num_warps=8),
    Config({"BLOCK_M": 128, "BLOCK_N": 128}, num_stages=2, num_warps=8),
    Config({"BLOCK_M": 128, "BLOCK_N": 64}, num_stages=3, num_warps=4),
    Config({"BLOCK_M": 64, "BLOCK_N": 64}, num_stages=3, num_warps=4),
]


@autotune(configs=ATTENTION_CONFIGS, key=["N_CTX", "HEAD_DIM", "CAUSAL"])
@jit
def attention(q_ptr, k_ptr, v_ptr, o_ptr, sm_scale, N_CTX, HEAD_DIM: tl.constexpr,
              CAUSAL: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """Flash attention's forward pass on contiguous [heads, N_CTX, HEAD_DIM]
    tensors, a program per block of queries of a head: an online softmax over
    blocks of keys, as Triton's fused-attention tutorial (pointer form)."""
    start_m = tl.program_id(0)
    head = tl.program_id(1).to(tl.int64) * N_CTX * HEAD_DIM
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(q_ptr + head + offs_m[:, None] * HEAD_DIM + offs_d[None, :],
                mask=offs_m[:, None] < N_CTX, other=0.0)
    kt_ptrs = k_ptr + head + offs_n[None, :] * HEAD_DIM + offs_d[:, None]  # [HEAD_DIM, BLOCK_N]
    v_ptrs = v_ptr + head + offs_n[:, None] * HEAD_DIM + offs_d[None, :]  # [BLOCK_N, HEAD_DIM]
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504  # exp2 of x / ln 2 is exp of x
    if CAUSAL:
        hi = tl.minimum((start_m + 1) * BLOCK_M, N_CTX)
    else:
        hi = N_CTX
    for start_n in range(0, hi, BLOCK_N):
        cols = start_n + offs_n
        kt = tl.load(kt_ptrs + start_n * HEAD_DIM, mask=cols[None, :] < N_CTX, other=0.0)
        qk = tl.dot(q, kt)
        valid = cols[None, :] < N_CTX
        if CAUSAL:
            valid = valid & (offs_m[:, None] >= cols[None, :])
        qk = tl.where(valid, qk * qk_scale, -1.0e6)
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_ptrs + start_n * HEAD_DIM, mask=cols[:, None] < N_CTX, other=0.0)
        acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])
        m_i = m_ij
    out = acc / l_i[:, None]
    tl.store(o_ptr + head + offs_m[:, None] * HEAD_DIM + offs_d[None, :],
             out.to(o_ptr.dtype.element_ty), mask=offs_m[:, None] < N_CTX)


@jit
def grouped_tile(tile, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, GROUP_M: tl.constexpr):
    """Row and column block of output tile `tile` in grouped order: GROUP_M
    row-blocks share their B columns in L2."""
    blocks_m = tl.cdiv(M, BLOCK_M)
    blocks_n = tl.cdiv(N, BLOCK_N)
    per_group = GROUP_M * blocks_n
    first_m = (tile // per_group) * GROUP_M
    group_rows = min(blocks_m - first_m, GROUP_M)
    pid_m = first_m + ((tile % per_group) % group_rows)
    pid_n = (tile % per_group) // group_rows
    return pid_m, pid_n


@jit
def assume_positive_strides(stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn):
    tl.assume(stride_am > 0)
    tl.assume(stride_ak > 0)
    tl.assume(stride_bk > 0)
    tl.assume(stride_bn > 0)
    tl.assume(stride_cm > 0)
    tl.assume(stride_cn > 0)


@jit
def store_tile(c_ptr, acc, M, N, stride_cm, stride_cn, pid_m, pid_n, BLOCK_M: tl.constexpr,
               BLOCK_N: tl.constexpr):
    cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + cm[:, None] * stride_cm + cn[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=(cm[:, None] < M) & (cn[None, :] < N))


@jit
def matmul_tile(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                stride_cm, stride_cn, pid_m, pid_n, BLOCK_M: tl.constexpr,
                BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """The output tile (pid_m, pid_n) of C = A @ B, rows and columns wrapped
    with `% M` and `% N` as in Triton's tutorial."""
    rm = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M  # [BLOCK_M]
    rn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N  # [BLOCK_N]
    rk = tl.arange(0, BLOCK_K)  # [BLOCK_K]
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak  # [BLOCK_M, BLOCK_K]
    b_ptrs = b_ptr + rk[:, None] * stride_bk + rn[None, :] * stride_bn  # [BLOCK_K, BLOCK_N]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=rk[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=rk[:, None] < K - k * BLOCK_K, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    store_tile(c_ptr, acc, M, N, stride_cm, stride_cn, pid_m, pid_n, BLOCK_M, BLOCK_N)


@autotune(configs=MATMUL_CONFIGS, key=["M", "N", "K"])
@jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
           stride_cm, stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
           BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    """C = A @ B, one program per output tile."""
    pid_m, pid_n = grouped_tile(tl.program_id(0), M, N, BLOCK_M, BLOCK_N, GROUP_M)
    # As in Triton's tutorial: facts the compilers cannot prove. With them
    # `% M` and `% N` provably keep runs of consecutive offsets.
    tl.assume(pid_m >= 0)
    tl.assume(pid_n >= 0)
    assume_positive_strides(stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn)
    matmul_tile(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                stride_cm, stride_cn, pid_m, pid_n, BLOCK_M, BLOCK_N, BLOCK_K)


@autotune(configs=MATMUL_CONFIGS, key=["M", "N", "K"])
@jit
def matmul_unassumed(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                     stride_cm, stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                     BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    """`matmul` as Triton's tutorial wrote it before tl.assume: nothing
    proves pid_n non-negative, so `% N` keeps B's runs consecutive only where
    their endpoints are. Triton trusts them; Tessera tests the sign once and
    runs a version whose runs are proved (tile-gpu-version-signed-remainders)."""
    pid_m, pid_n = grouped_tile(tl.program_id(0), M, N, BLOCK_M, BLOCK_N, GROUP_M)
    matmul_tile(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                stride_cm, stride_cn, pid_m, pid_n, BLOCK_M, BLOCK_N, BLOCK_K)


@autotune(configs=MATMUL_CONFIGS, key=["M", "N", "K"])
@jit
def matmul_weight_only(a_ptr, b_ptr, scale_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk,
                       stride_bn, stride_cm, stride_cn, BLOCK_M: tl.constexpr,
                       BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    """C = A @ (B * scale) with B int8 and one scale per column: the
    weight-only quantized GEMM of LLM inference as Triton users write it, B
    widened to A's type in the K loop, the scale applied once to the sum."""
    pid_m, pid_n = grouped_tile(tl.program_id(0), M, N, BLOCK_M, BLOCK_N, GROUP_M)
    tl.assume(pid_m >= 0)
    tl.assume(pid_n >= 0)
    assume_positive_strides(stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn)
    rm = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    rn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    rk = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak
    b_ptrs = b_ptr + rk[:, None] * stride_bk + rn[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=rk[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=rk[:, None] < K - k * BLOCK_K, other=0)
        acc = tl.dot(a, b.to(a.dtype), acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    scale = tl.load(scale_ptr + rn).to(tl.float32)
    store_tile(c_ptr, acc * scale[None, :], M, N, stride_cm, stride_cn, pid_m, pid_n, BLOCK_M,
               BLOCK_N)


@jit
def persistent_step(a_ptr, b_ptr, c_ptr, acc, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                    stride_cm, stride_cn, pid_m, pid_n, rm, rn, ki, k_tiles,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """K block `ki` of the tile at rows `rm` and columns `rn` of a persistent
    GEMM: the accumulator after it, restarted where it was the tile's last
    block (which stores the tile)."""
    rk = ki * BLOCK_K + tl.arange(0, BLOCK_K)
    # As in Triton's tutorial, one sum of offsets (in 32 bits) per pointer.
    a = tl.load(a_ptr + (rm[:, None] * stride_am + rk[None, :] * stride_ak),
                mask=rk[None, :] < K, other=0.0)
    b = tl.load(b_ptr + (rk[:, None] * stride_bk + rn[None, :] * stride_bn),
                mask=rk[:, None] < K, other=0.0)
    acc = tl.dot(a, b, acc)
    if ki == k_tiles - 1:
        store_tile(c_ptr, acc, M, N, stride_cm, stride_cn, pid_m, pid_n, BLOCK_M, BLOCK_N)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    return acc


@autotune(configs=MATMUL_CONFIGS, key=["M", "N", "K"])
@jit
def matmul_persistent(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                      stride_cm, stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                      BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    """C = A @ B (K > 0) as Triton's persistent tutorial: a grid of about one
    program per SM, each walking the tiles in matmul's order, so that no
    program starts after the first wave and the last tiles spread over every
    SM. The K loop is flattened into the walk, so that the compilers'
    pipelining runs across tiles: the next tile's first blocks load while
    this one's epilogue stores."""
    assume_positive_strides(stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn)
    k_tiles = tl.cdiv(K, BLOCK_K)
    tiles = tl.cdiv(M, BLOCK_M) * tl.cdiv(N, BLOCK_N)
    first = tl.program_id(0)
    programs = tl.num_programs(0)
    my_tiles = (tiles - first + programs - 1) // programs
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for step in range(0, my_tiles * k_tiles):
        ki = step % k_tiles
        pid_m, pid_n = grouped_tile(first + (step // k_tiles) * programs, M, N, BLOCK_M, BLOCK_N,
                                    GROUP_M)
        tl.assume(pid_m >= 0)
        tl.assume(pid_n >= 0)
        rm = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
        rn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
        acc = persistent_step(a_ptr, b_ptr, c_ptr, acc, M, N, K, stride_am, stride_ak, stride_bk,
                              stride_bn, stride_cm, stride_cn, pid_m, pid_n, rm, rn, ki, k_tiles,
                              BLOCK_M, BLOCK_N, BLOCK_K)


@autotune(configs=MATMUL_CONFIGS, key=["M", "N", "K"])
@jit
def matmul_persistent_carried(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk,
                              stride_bn, stride_cm, stride_cn, BLOCK_M: tl.constexpr,
                              BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                              GROUP_M: tl.constexpr):
    """matmul_persistent in the form of Triton's tutorial: the rows and columns
    of a tile are found once, under `if ki == 0`, and carried through its K
    blocks, instead of dividing the step in every one."""
    assume_positive_strides(stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn)
    k_tiles = tl.cdiv(K, BLOCK_K)
    tiles = tl.cdiv(M, BLOCK_M) * tl.cdiv(N, BLOCK_N)
    programs = tl.num_programs(0)
    my_tiles = (tiles - tl.program_id(0) + programs - 1) // programs
    tile = tl.program_id(0) - programs
    ki = -1
    pid_m = 0
    pid_n = 0
    rm = tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _ in range(0, my_tiles * k_tiles):
        ki = tl.where(ki == k_tiles - 1, 0, ki + 1)
        if ki == 0:
            tile += programs
            pid_m, pid_n = grouped_tile(tile, M, N, BLOCK_M, BLOCK_N, GROUP_M)
            # Rows and columns past the edge read row or column 0 (their
            # results are not stored); the promises say what `where` hides.
            rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
            rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
            rm = tl.max_contiguous(tl.multiple_of(tl.where(rm < M, rm, 0), BLOCK_M), BLOCK_M)
            rn = tl.max_contiguous(tl.multiple_of(tl.where(rn < N, rn, 0), BLOCK_N), BLOCK_N)
        acc = persistent_step(a_ptr, b_ptr, c_ptr, acc, M, N, K, stride_am, stride_ak, stride_bk,
                              stride_bn, stride_cm, stride_cn, pid_m, pid_n, rm, rn, ki, k_tiles,
                              BLOCK_M, BLOCK_N, BLOCK_K)


@jit
def matmul_descriptors(a_desc, b_desc, c_desc, M, N, K, B_ROWS_ARE_N: tl.constexpr,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                       GROUP_M: tl.constexpr):
    """C = A @ B on tensor descriptors made on the host, the form Triton's
    Hopper users write (its tutorial 09): both copy their blocks with TMA on
    sm_90a (Tessera with cp.async where launched with tma=False). B is
    [K, N], or with B_ROWS_ARE_N the [N, K] weight of a PyTorch Linear."""
    pid_m, pid_n = grouped_tile(tl.program_id(0), M, N, BLOCK_M, BLOCK_N, GROUP_M)
    descriptor_tile(a_desc, b_desc, c_desc, K, pid_m, pid_n, B_ROWS_ARE_N, BLOCK_M, BLOCK_N,
                    BLOCK_K)


@jit
def descriptor_tile(a_desc, b_desc, c_desc, K, pid_m, pid_n, B_ROWS_ARE_N: tl.constexpr,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """Output tile (pid_m, pid_n) of the descriptor GEMMs."""
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = a_desc.load([pid_m * BLOCK_M, k])
        if B_ROWS_ARE_N:
            b = b_desc.load([pid_n * BLOCK_N, k]).T
        else:
            b = b_desc.load([k, pid_n * BLOCK_N])
        acc = tl.dot(a, b, acc)
    c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc.to(c_desc.dtype))


@jit
def matmul_descriptors_persistent(a_desc, b_desc, c_desc, M, N, K, B_ROWS_ARE_N: tl.constexpr,
                                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                                  BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
                                  NUM_SMS: tl.constexpr):
    """The descriptor GEMM in the persistent form of Triton's tutorial 09
    (its TMA kernel): NUM_SMS programs walk the output tiles, the tile loop
    flattened with the K loop, so that the next tile's copies overlap this
    tile's last dots and its epilogue."""
    tiles = tl.cdiv(M, BLOCK_M) * tl.cdiv(N, BLOCK_N)
    for tile in tl.range(tl.program_id(0), tiles, NUM_SMS, flatten=True):
        pid_m, pid_n = grouped_tile(tile, M, N, BLOCK_M, BLOCK_N, GROUP_M)
        descriptor_tile(a_desc, b_desc, c_desc, K, pid_m, pid_n, B_ROWS_ARE_N, BLOCK_M, BLOCK_N,
                        BLOCK_K)
