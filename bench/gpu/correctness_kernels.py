"""The kernels correctness.py checks on a GPU, written in Triton's language.

As kernels.py: correctness.py loads this file with ``jit``/``tl`` bound to
Tessera's (``tessera.compat.triton``) to export their cubins, and the machine
with the GPU needs neither compiler. Each kernel exercises one part of the
GPU lowering: the K loop with tensor cores (mma.sync, wgmma; fp16, bf16, tf32,
fp32, int8) and masked ragged edges, chained dots (attention's shape),
reductions and scans across lanes and warps, libdevice and fast math,
atomics, layout conversions (trans), tensor descriptors (made in the kernel
and on the host), loads only broadcast, and a loop without a dot that asks
for stages (a persistent layernorm, its rows read back from shared memory).
"""

# Injected by correctness.py: jit, tl.


@jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm,
           stride_cn, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
           PRECISION: tl.constexpr, ACC: tl.constexpr):
    """C = A @ B accumulated in ACC: "fp32" (products at PRECISION), "i32"
    (int8 operands) or "fp16" (wgmma's f16x2 registers on sm_90a)."""
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    if ACC == "i32":
        acc = tl.zeros((BM, BN), dtype=tl.int32)
    elif ACC == "fp16":
        acc = tl.zeros((BM, BN), dtype=tl.float16)
    else:
        acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        kk = k * BK + rk
        a = tl.load(a_ptr + rm[:, None] * stride_am + kk[None, :] * stride_ak,
                    mask=(rm[:, None] < M) & (kk[None, :] < K), other=0)
        b = tl.load(b_ptr + kk[:, None] * stride_bk + rn[None, :] * stride_bn,
                    mask=(kk[:, None] < K) & (rn[None, :] < N), other=0)
        if ACC == "i32":
            acc = tl.dot(a, b, acc)
        elif ACC == "fp16":
            acc = tl.dot(a, b, acc, out_dtype=tl.float16)
        else:
            acc = tl.dot(a, b, acc, input_precision=PRECISION)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn,
             acc.to(c_ptr.dtype.element_ty), mask=(rm[:, None] < M) & (rn[None, :] < N))


@jit
def tutorial_matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                    stride_cm, stride_cn, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                    GROUP_M: tl.constexpr):
    """C = A @ B as Triton's tutorial wrote it before tl.assume: programs in
    grouped order, rows and columns wrapped with % M and % N. Nothing proves
    pid_n * BN non-negative, so B's runs are consecutive only where their
    endpoints are, which each copy checks."""
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BM)
    num_pid_n = tl.cdiv(N, BN)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_am = (pid_m * BM + tl.arange(0, BM)) % M
    offs_bn = (pid_n * BN + tl.arange(0, BN)) % N
    offs_k = tl.arange(0, BK)
    a_ptrs = a_ptr + offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BK, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BK, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK * stride_ak
        b_ptrs += BK * stride_bk
    offs_cm = pid_m * BM + tl.arange(0, BM)
    offs_cn = pid_n * BN + tl.arange(0, BN)
    tl.store(c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :],
             acc.to(c_ptr.dtype.element_ty), mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


@jit
def wrapped_columns(x_ptr, out_ptr, first_block, n, BLOCK: tl.constexpr):
    """out[p * BLOCK + i] = x[n + ((first_block + p) * BLOCK + i) % n]: from a
    negative first block, C's remainders of the negative columns wrap where
    the column is a multiple of n, right after a run's first element (x holds
    2n elements, so every offset is inside it)."""
    cols = (first_block + tl.program_id(0)) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + n + cols % n)
    tl.store(out_ptr + tl.program_id(0) * BLOCK + tl.arange(0, BLOCK), x)


@jit
def wrapped_columns_sum(x_ptr, out_ptr, first_block, n, rows, BLOCK: tl.constexpr):
    """out[p * BLOCK + i] = the sum over r < rows of x[r, n + ((first_block + p)
    * BLOCK + i) % n] for x [rows, 2n]: wrapped_columns's offsets read in a
    loop, where the kernel runs in two versions, one for a non-negative
    dividend and one for any (tile-gpu-version-signed-remainders). From a
    negative first block the programs take both."""
    cols = (first_block + tl.program_id(0)) * BLOCK + tl.arange(0, BLOCK)
    offsets = n + cols % n
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for r in range(rows):
        acc += tl.load(x_ptr + r * 2 * n + offsets)
    tl.store(out_ptr + tl.program_id(0) * BLOCK + tl.arange(0, BLOCK), acc)


@jit
def persistent_layernorm(x_ptr, y_ptr, w_ptr, b_ptr, n_rows, n_cols, eps, BLOCK: tl.constexpr,
                         ROWS: tl.constexpr, STAGES: tl.constexpr):
    """layernorm over blocks of ROWS rows, each program taking every
    num_programs-th block in a loop that asks for STAGES stages: on sm_80
    and later its rows are copied STAGES - 1 blocks ahead by cp.async into
    shared memory and read back (docs/gpu-backends.md, "Loads of a loop
    without a dot read back")."""
    cols = tl.arange(0, BLOCK)
    col_mask = cols < n_cols
    w = tl.load(w_ptr + cols, mask=col_mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=col_mask, other=0.0).to(tl.float32)
    for first in tl.range(tl.program_id(0) * ROWS, n_rows, tl.num_programs(0) * ROWS,
                          num_stages=STAGES):
        rows = first + tl.arange(0, ROWS)
        mask = (rows[:, None] < n_rows) & col_mask[None, :]
        offsets = rows[:, None] * n_cols + cols[None, :]
        x = tl.load(x_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
        mean = tl.sum(x, axis=1) / n_cols
        centered = tl.where(mask, x - mean[:, None], 0.0)
        rstd = 1.0 / tl.sqrt(tl.sum(centered * centered, axis=1) / n_cols + eps)
        y = centered * rstd[:, None] * w[None, :] + b[None, :]
        tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


@jit
def weight_only_matmul(a_ptr, b_ptr, scale_ptr, c_ptr, M, N, K, BM: tl.constexpr,
                       BN: tl.constexpr, BK: tl.constexpr):
    """C = A @ (B * scale): a row-major 16-bit A, a row-major int8 or fp8 B
    widened to A's type in the loop and scaled per column (a weight-only
    quantized GEMM), fp32 accumulation. B's load reaches the dot only through
    the widening: software-pipelined loops read it back from shared memory."""
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    scale = tl.load(scale_ptr + rn, mask=rn < N, other=0)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        kk = k * BK + rk
        a = tl.load(a_ptr + rm[:, None] * K + kk[None, :],
                    mask=(rm[:, None] < M) & (kk[None, :] < K), other=0)
        b = tl.load(b_ptr + kk[:, None] * N + rn[None, :],
                    mask=(kk[:, None] < K) & (rn[None, :] < N), other=0)
        acc = tl.dot(a, b.to(a.dtype) * scale[None, :], acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


@jit
def int4_weight_matmul(a_ptr, b_ptr, scale_ptr, c_ptr, M, N, K, BM: tl.constexpr,
                       BN: tl.constexpr, BK: tl.constexpr):
    """C = A @ (B * scale) with B int4, two values of consecutive rows of K
    per byte ([K // 2, N], the low nibble first): unpacked with shifts,
    interleaved back into rows with join, permute and reshape, widened to
    A's type in the loop; the scale applied to the sum."""
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    rh = tl.arange(0, BK // 2)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        kk = k * BK + rk
        kh = k * (BK // 2) + rh
        a = tl.load(a_ptr + rm[:, None] * K + kk[None, :],
                    mask=(rm[:, None] < M) & (kk[None, :] < K), other=0)
        packed = tl.load(b_ptr + kh[:, None] * N + rn[None, :],
                         mask=(kh[:, None] < K // 2) & (rn[None, :] < N), other=0)
        low = (packed << 4) >> 4
        high = packed >> 4
        b = tl.join(low, high).permute(0, 2, 1).reshape(BK, BN)
        acc = tl.dot(a, b.to(a.dtype), acc)
    scale = tl.load(scale_ptr + rn, mask=rn < N, other=0).to(tl.float32)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc * scale[None, :],
             mask=(rm[:, None] < M) & (rn[None, :] < N))


@jit
def matmul_persistent(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                      stride_cm, stride_cn, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """The K loop flattened into a walk over output tiles (program p takes
    tiles p, p + programs, ...): the pipelined loop divides by the K-block
    count for its addresses, and the accumulator restarts after each tile's
    last K block, which stores it."""
    tiles_n = tl.cdiv(N, BN)
    k_tiles = tl.cdiv(K, BK)
    programs = tl.num_programs(0)
    my_tiles = (tl.cdiv(M, BM) * tiles_n - tl.program_id(0) + programs - 1) // programs
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for step in range(0, my_tiles * k_tiles):
        tile = tl.program_id(0) + (step // k_tiles) * programs
        rm = (tile // tiles_n) * BM + tl.arange(0, BM)
        rn = (tile % tiles_n) * BN + tl.arange(0, BN)
        kk = (step % k_tiles) * BK + tl.arange(0, BK)
        a = tl.load(a_ptr + rm[:, None] * stride_am + kk[None, :] * stride_ak,
                    mask=(rm[:, None] < M) & (kk[None, :] < K), other=0)
        b = tl.load(b_ptr + kk[:, None] * stride_bk + rn[None, :] * stride_bn,
                    mask=(kk[:, None] < K) & (rn[None, :] < N), other=0)
        acc = tl.dot(a, b, acc)
        if step % k_tiles == k_tiles - 1:
            tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn,
                     acc.to(c_ptr.dtype.element_ty), mask=(rm[:, None] < M) & (rn[None, :] < N))
            acc = tl.zeros((BM, BN), dtype=tl.float32)


@jit
def chained_dots(a_ptr, b_ptr, c_ptr, out_ptr, M, BM: tl.constexpr, D: tl.constexpr):
    """out = (A @ B).to(fp16) @ C for BM rows of A per program: two chained
    dots as attention's S = Q K^T and P V, the first with no accumulator."""
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.arange(0, D)
    a = tl.load(a_ptr + rows[:, None] * D + cols[None, :], mask=rows[:, None] < M, other=0.0)
    b = tl.load(b_ptr + cols[:, None] * D + cols[None, :])
    c = tl.load(c_ptr + cols[:, None] * D + cols[None, :])
    s = tl.dot(a, b)
    out = tl.dot(s.to(tl.float16), c)
    tl.store(out_ptr + rows[:, None] * D + cols[None, :], out, mask=rows[:, None] < M)


@jit
def reduce(x_ptr, out_ptr, M, N, OP: tl.constexpr, AXIS: tl.constexpr, BM: tl.constexpr,
           BN: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    if OP == "max" or OP == "argmax":
        x = tl.load(x_ptr + rm[:, None] * N + rn[None, :], mask=mask, other=-float("inf"))
    else:
        x = tl.load(x_ptr + rm[:, None] * N + rn[None, :], mask=mask, other=0.0)
    if OP == "sum":
        r = tl.sum(x, axis=AXIS)
    elif OP == "max":
        r = tl.max(x, axis=AXIS)
    elif OP == "argmax":
        r = tl.argmax(x, axis=AXIS)
    elif OP == "cumsum":
        r = tl.cumsum(x, axis=AXIS)
    if OP == "cumsum":
        tl.store(out_ptr + rm[:, None] * N + rn[None, :], r, mask=mask)
    elif AXIS == 0:
        tl.store(out_ptr + rn, r, mask=rn < N)
    else:
        tl.store(out_ptr + rm, r, mask=rm < M)


@jit
def unary(x_ptr, out_ptr, n, OP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    if OP == "exp":
        y = tl.exp(x)
    elif OP == "exp2":
        y = tl.exp2(x)
    elif OP == "log":
        y = tl.log(x)
    elif OP == "sqrt":
        y = tl.sqrt(x)
    elif OP == "rsqrt":
        y = tl.rsqrt(x)
    elif OP == "sin":
        y = tl.sin(x)
    elif OP == "erf":
        y = tl.erf(x)
    elif OP == "sigmoid":
        y = tl.sigmoid(x)
    elif OP == "div":
        y = 1.0 / x
    elif OP == "div_rn":
        y = tl.div_rn(1.0, x)
    tl.store(out_ptr + offs, y, mask=mask)


@jit
def float8_round_trip(x_ptr, q_ptr, doubled_ptr, back_ptr, n, BLOCK: tl.constexpr):
    """x rounded to q's fp8 type, q + q in that type, and q widened back to
    fp32."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    q = tl.load(x_ptr + offs, mask=mask).to(q_ptr.dtype.element_ty)
    tl.store(q_ptr + offs, q, mask=mask)
    tl.store(doubled_ptr + offs, q + q, mask=mask)
    tl.store(back_ptr + offs, q.to(tl.float32), mask=mask)


@jit
def libdevice_call(x_ptr, out_ptr, n, OP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.5)
    if OP == "exp":
        y = tl.extra.cuda.libdevice.exp(x)  # __nv_expf, not tl.exp's ex2.approx
    elif OP == "tanh":
        y = tl.extra.cuda.libdevice.tanh(x)
    elif OP == "lgamma":
        y = tl.extra.cuda.libdevice.lgamma(x)
    elif OP == "erfinv":
        y = tl.extra.cuda.libdevice.erfinv(x)
    elif OP == "cyl_bessel_i0":
        y = tl.extra.cuda.libdevice.cyl_bessel_i0(x)
    elif OP == "atan2":
        y = tl.extra.cuda.libdevice.atan2(x, 1.0 - x)
    tl.store(out_ptr + offs, y, mask=mask)


@jit
def inline_asm(x_ptr, out_ptr, h_ptr, hout_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = tl.inline_asm_elementwise("tanh.approx.f32 $0, $1;", "=r,r", [x], dtype=tl.float32,
                                  is_pure=True, pack=1)
    tl.store(out_ptr + offs, y, mask=mask)
    h = tl.load(h_ptr + offs, mask=mask, other=0.0)
    squares = tl.inline_asm_elementwise("mul.rn.f16x2 $0, $1, $1;", "=r,r", [h],
                                        dtype=tl.float16, is_pure=True, pack=2)
    tl.store(hout_ptr + offs, squares, mask=mask)


@jit
def integer_ops(x_ptr, y_ptr, div_ptr, mod_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    y = tl.load(y_ptr + offs, mask=mask, other=1)
    tl.store(div_ptr + offs, x // y, mask=mask)
    tl.store(mod_ptr + offs, x % y, mask=mask)


@jit
def seeded_dropout(x_ptr, out_ptr, n, p, seed, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    keep = tl.rand(seed, offs) > p
    tl.store(out_ptr + offs, tl.where(keep, x / (1 - p), 0.0), mask=mask)


@jit
def sort_rows(x_ptr, sorted_ptr, top_ptr, N: tl.constexpr, K: tl.constexpr):
    x = tl.load(x_ptr + tl.program_id(0) * N + tl.arange(0, N))
    tl.store(sorted_ptr + tl.program_id(0) * N + tl.arange(0, N), tl.sort(x, descending=True))
    tl.store(top_ptr + tl.program_id(0) * K + tl.arange(0, K), tl.topk(x, K))


@jit
def gather_and_count(src_ptr, index_ptr, picked_ptr, n, counts_ptr, R: tl.constexpr,
                     C: tl.constexpr, K: tl.constexpr, BINS: tl.constexpr):
    rows = tl.arange(0, R)[:, None]
    src = tl.load(src_ptr + rows * C + tl.arange(0, C)[None, :])
    picks = rows * K + tl.arange(0, K)[None, :]
    indices = tl.load(index_ptr + picks)
    tl.store(picked_ptr + picks, tl.gather(src, indices, 1))
    flat = tl.arange(0, R * K)
    values = tl.load(index_ptr + flat)
    tl.store(counts_ptr + tl.arange(0, BINS), tl.histogram(values, BINS, mask=flat < n))


@jit
def histogram(x_ptr, hist_ptr, sum_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.atomic_add(hist_ptr + x, 1, mask=mask)
    tl.atomic_add(sum_ptr, tl.sum(x.to(tl.float32), axis=0))


@jit
def transpose(x_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :], mask=(rm[:, None] < M) & (rn[None, :] < N))
    tl.store(out_ptr + rn[:, None] * M + rm[None, :], tl.trans(x),
             mask=(rn[:, None] < N) & (rm[None, :] < M))


@jit
def descriptor_copy(x_ptr, out_ptr, M, N, out_stride, BM: tl.constexpr, BN: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    src = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    dst = tl.make_tensor_descriptor(out_ptr, shape=[N, M], strides=[out_stride, 1],
                                    block_shape=[BN, BM])
    block = src.load([pm * BM, pn * BN])
    dst.store([pn * BN, pm * BM], tl.trans(block) * 2)


@jit
def attention_descriptors(q_desc, k_desc, v_desc, o_desc, N_CTX, scale, BM: tl.constexpr,
                          BN: tl.constexpr, D: tl.constexpr):
    """softmax(Q K^T * scale) V for BM rows of Q per program, the K and V
    blocks of its loop read through host descriptors (the flash-attention
    form of Triton's tutorial 06): two dots per step, K's block transposed.
    Keys past N_CTX are padded with zeros by the descriptor and masked."""
    start_m = tl.program_id(0) * BM
    q = q_desc.load([start_m, 0])
    m_i = tl.zeros([BM], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BM], dtype=tl.float32)
    acc = tl.zeros([BM, D], dtype=tl.float32)
    for start_n in range(0, N_CTX, BN):
        k = k_desc.load([start_n, 0])
        keys = start_n + tl.arange(0, BN)
        qk = tl.where(keys[None, :] < N_CTX, tl.dot(q, k.T) * scale, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.exp2(qk - m_new[:, None])
        alpha = tl.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = v_desc.load([start_n, 0])
        acc = tl.dot(p.to(tl.float16), v, acc * alpha[:, None])
        m_i = m_new
    o_desc.store([start_m, 0], acc / l_i[:, None])


@jit
def device_descriptor_matmul(a_ptr, b_ptr, c_ptr, M, N, K, lda, ldb, ldc, BM: tl.constexpr,
                             BN: tl.constexpr, BK: tl.constexpr):
    """C = A @ B on descriptors made in the kernel from its arguments
    (Triton's device-side form), rows `lda`, `ldb`, `ldc` elements apart."""
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[lda, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[ldb, 1], block_shape=[BK, BN])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[ldc, 1], block_shape=[BM, BN])
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        acc = tl.dot(a_desc.load([tl.program_id(0) * BM, k]),
                     b_desc.load([k, tl.program_id(1) * BN]), acc)
    c_desc.store([tl.program_id(0) * BM, tl.program_id(1) * BN], acc)


@jit
def descriptor_matmul(a_desc, b_desc, c_desc, K, B_ROWS_ARE_N: tl.constexpr, BM: tl.constexpr,
                      BN: tl.constexpr, BK: tl.constexpr):
    """C = A @ B on host tensor descriptors; B is [K, N], or with
    B_ROWS_ARE_N the [N, K] tensor it transposes."""
    descriptor_matmul_tile(a_desc, b_desc, c_desc, K, tl.program_id(0), tl.program_id(1),
                           B_ROWS_ARE_N, BM, BN, BK)


@jit
def descriptor_matmul_persistent(a_desc, b_desc, c_desc, M, N, K, B_ROWS_ARE_N: tl.constexpr,
                                 BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                                 PROGRAMS: tl.constexpr):
    """descriptor_matmul in the persistent form of Triton's tutorial 09:
    PROGRAMS programs walk the output tiles, the tile loop flattened with
    the K loop (tl.range(..., flatten=True))."""
    tiles_n = tl.cdiv(N, BN)
    for tile in tl.range(tl.program_id(0), tl.cdiv(M, BM) * tiles_n, PROGRAMS, flatten=True):
        descriptor_matmul_tile(a_desc, b_desc, c_desc, K, tile // tiles_n, tile % tiles_n,
                               B_ROWS_ARE_N, BM, BN, BK)


@jit
def descriptor_matmul_persistent_halves(a_desc, b_desc, c_desc, M, N, K,
                                        B_ROWS_ARE_N: tl.constexpr, BM: tl.constexpr,
                                        BN: tl.constexpr, BK: tl.constexpr,
                                        PROGRAMS: tl.constexpr):
    """descriptor_matmul_persistent storing each tile as two halves of BN // 2
    columns (Triton's EPILOGUE_SUBTILE), c_desc's block [BM, BN // 2]: two
    TMA stores in the flattened loop's body."""
    tiles_n = tl.cdiv(N, BN)
    for tile in tl.range(tl.program_id(0), tl.cdiv(M, BM) * tiles_n, PROGRAMS, flatten=True):
        pid_m = tile // tiles_n
        pid_n = tile % tiles_n
        acc = descriptor_product(a_desc, b_desc, K, pid_m, pid_n, B_ROWS_ARE_N, BM, BN, BK)
        left, right = tl.split(tl.permute(tl.reshape(acc, (BM, 2, BN // 2)), (0, 2, 1)))
        c_desc.store([pid_m * BM, pid_n * BN], left.to(c_desc.dtype))
        c_desc.store([pid_m * BM, pid_n * BN + BN // 2], right.to(c_desc.dtype))


@jit
def descriptor_product(a_desc, b_desc, K, pid_m, pid_n, B_ROWS_ARE_N: tl.constexpr,
                       BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """Output tile (pid_m, pid_n) of the descriptor GEMMs, in fp32."""
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = a_desc.load([pid_m * BM, k])
        if B_ROWS_ARE_N:
            b = b_desc.load([pid_n * BN, k]).T
        else:
            b = b_desc.load([k, pid_n * BN])
        acc = tl.dot(a, b, acc)
    return acc


@jit
def descriptor_matmul_tile(a_desc, b_desc, c_desc, K, pid_m, pid_n, B_ROWS_ARE_N: tl.constexpr,
                           BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """Output tile (pid_m, pid_n) of the descriptor GEMMs, stored."""
    acc = descriptor_product(a_desc, b_desc, K, pid_m, pid_n, B_ROWS_ARE_N, BM, BN, BK)
    c_desc.store([pid_m * BM, pid_n * BN], acc.to(c_desc.dtype))
