"""Block pointers (tl.make_block_ptr, tl.advance, boundary_check, padding_option),
checked against NumPy on fresh random data with ragged shapes, on every backend."""

import numpy as np
import pytest

import tessera
import tessera.language as tl

with open(__file__) as _f:
    _LINES = _f.read().splitlines()


def line_of(marker):
    hits = [i + 1 for i, text in enumerate(_LINES) if text.rstrip().endswith("# <- " + marker)]
    assert len(hits) == 1, marker
    return hits[0]


# ---------------------------------------------------------------------------
# 2-D copy with boundary_check
# ---------------------------------------------------------------------------


@tessera.jit
def copy_2d_kernel(src, dst, M, N, stride_sm, stride_sn, stride_dm, stride_dn,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    src_ptr = tl.make_block_ptr(base=src, shape=(M, N), strides=(stride_sm, stride_sn),
                                offsets=(pid_m * BLOCK_M, pid_n * BLOCK_N),
                                block_shape=(BLOCK_M, BLOCK_N), order=(1, 0))
    dst_ptr = tl.make_block_ptr(dst, (M, N), (stride_dm, stride_dn),
                                (pid_m * BLOCK_M, pid_n * BLOCK_N), (BLOCK_M, BLOCK_N), (1, 0))
    x = tl.load(src_ptr, boundary_check=(0, 1), padding_option="zero")
    tl.store(dst_ptr, x * 2, boundary_check=(1, 0))


@pytest.mark.parametrize("M,N", [(37, 53), (16, 32), (5, 70)])
def test_copy_2d_boundary_check(backend, rng, M, N):
    src = rng.standard_normal((M, N)).astype(np.float32)
    # The destination is a view into a larger array: elements outside it must stay untouched.
    big = np.full((M + 3, N + 5), -7.0, dtype=np.float32)
    dst = big[1:M + 1, 2:N + 2]
    BM, BN = 16, 32
    grid = (tessera.cdiv(M, BM), tessera.cdiv(N, BN))
    copy_2d_kernel[grid](src, dst, M, N, src.strides[0] // 4, 1, dst.strides[0] // 4, 1,
                         BLOCK_M=BM, BLOCK_N=BN)
    np.testing.assert_array_equal(dst, src * 2)
    outside = np.ones(big.shape, dtype=bool)
    outside[1:M + 1, 2:N + 2] = False
    assert (big[outside] == -7.0).all()


@tessera.jit
def transpose_kernel(src, dst, M, N, BLOCK: tl.constexpr):
    # Reads a block of src [M, N] through a column-major view (strides (1, N)) of its transpose.
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    t_ptr = tl.make_block_ptr(src, (N, M), (1, N), (pid_n * BLOCK, pid_m * BLOCK), (BLOCK, BLOCK),
                              (0, 1))
    d_ptr = tl.make_block_ptr(dst, (N, M), (M, 1), (pid_n * BLOCK, pid_m * BLOCK), (BLOCK, BLOCK),
                              (1, 0))
    tl.store(d_ptr, tl.load(t_ptr, boundary_check=(0, 1)), boundary_check=(0, 1))


def test_transpose_strided(backend, rng):
    M, N = 45, 19
    src = rng.standard_normal((M, N)).astype(np.float32)
    dst = np.zeros((N, M), dtype=np.float32)
    transpose_kernel[(tessera.cdiv(M, 16), tessera.cdiv(N, 16))](src, dst, M, N, BLOCK=16)
    np.testing.assert_array_equal(dst, src.T)


# ---------------------------------------------------------------------------
# Matmul, Triton's block-pointer variant: advance in the K loop
# ---------------------------------------------------------------------------


@tessera.jit
def matmul_block_ptr_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk,
                            stride_bn, stride_cm, stride_cn, BLOCK_M: tl.constexpr,
                            BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a_block_ptr = tl.make_block_ptr(base=a_ptr, shape=(M, K), strides=(stride_am, stride_ak),
                                    offsets=(pid_m * BLOCK_M, 0), block_shape=(BLOCK_M, BLOCK_K),
                                    order=(1, 0))
    b_block_ptr = tl.make_block_ptr(base=b_ptr, shape=(K, N), strides=(stride_bk, stride_bn),
                                    offsets=(0, pid_n * BLOCK_N), block_shape=(BLOCK_K, BLOCK_N),
                                    order=(1, 0))
    accumulator = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_block_ptr, boundary_check=(0, 1), padding_option="zero")
        b = tl.load(b_block_ptr, boundary_check=(0, 1), padding_option="zero")
        accumulator = tl.dot(a, b, accumulator, input_precision="ieee")
        a_block_ptr = tl.advance(a_block_ptr, (0, BLOCK_K))
        b_block_ptr = tl.advance(b_block_ptr, (BLOCK_K, 0))
    c = accumulator.to(c_ptr.dtype.element_ty)
    c_block_ptr = tl.make_block_ptr(base=c_ptr, shape=(M, N), strides=(stride_cm, stride_cn),
                                    offsets=(pid_m * BLOCK_M, pid_n * BLOCK_N),
                                    block_shape=(BLOCK_M, BLOCK_N), order=(1, 0))
    tl.store(c_block_ptr, c, boundary_check=(0, 1))


@pytest.mark.parametrize("M,N,K", [(67, 45, 83), (32, 32, 32), (1, 70, 19)])
def test_matmul_block_ptr(backend, rng, M, N, K):
    a = rng.standard_normal((M, K)).astype(np.float32)
    b = rng.standard_normal((K, N)).astype(np.float32)
    c = np.full((M, N), np.nan, dtype=np.float32)
    BM, BN, BK = 32, 32, 16
    grid = (tessera.cdiv(M, BM), tessera.cdiv(N, BN))
    matmul_block_ptr_kernel[grid](a, b, c, M, N, K, a.strides[0] // 4, 1, b.strides[0] // 4, 1,
                                  c.strides[0] // 4, 1, BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-4,
                               atol=1e-4)


@tessera.jit
def row_sum_while_kernel(x_ptr, out_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # A block pointer carried through a while loop (and through a dynamic if).
    pid = tl.program_id(0)
    p = tl.make_block_ptr(x_ptr, (M, N), (N, 1), (pid * BLOCK_M, 0), (BLOCK_M, BLOCK_N), (1, 0))
    acc = tl.zeros((BLOCK_M,), dtype=tl.float32)
    col = 0
    while col < N:
        acc += tl.sum(tl.load(p, boundary_check=(0, 1), padding_option="zero"), axis=1)
        if col >= 0:
            p = tl.advance(p, [0, BLOCK_N])
        col += BLOCK_N
    o = tl.make_block_ptr(out_ptr, (M,), (1,), (pid * BLOCK_M,), (BLOCK_M,), (0,))
    tl.store(o, acc, boundary_check=(0,))


def test_block_ptr_while_and_if(backend, rng):
    M, N = 29, 77
    x = rng.standard_normal((M, N)).astype(np.float32)
    out = np.zeros(M, dtype=np.float32)
    row_sum_while_kernel[(tessera.cdiv(M, 8),)](x, out, M, N, BLOCK_M=8, BLOCK_N=16)
    np.testing.assert_allclose(out, x.sum(axis=1), rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------------------
# padding_option
# ---------------------------------------------------------------------------


@tessera.jit
def pad_kernel(x_ptr, out_ptr, M, N, off_m, off_n, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
               PADDING: tl.constexpr):
    p = tl.make_block_ptr(x_ptr, (M, N), (N, 1), (off_m, off_n), (BLOCK_M, BLOCK_N), (1, 0))
    x = tl.load(p, boundary_check=(0, 1), padding_option=PADDING)
    o = tl.make_block_ptr(out_ptr, (BLOCK_M, BLOCK_N), (BLOCK_N, 1), (0, 0), (BLOCK_M, BLOCK_N),
                          (1, 0))
    tl.store(o, x)


def _expected_padded(x, off_m, off_n, bm, bn, fill):
    M, N = x.shape
    out = np.full((bm, bn), fill, dtype=x.dtype)
    for i in range(bm):
        for j in range(bn):
            r, c = off_m + i, off_n + j
            if 0 <= r < M and 0 <= c < N:
                out[i, j] = x[r, c]
    return out


@pytest.mark.parametrize("padding,fill", [("nan", np.nan), ("zero", 0.0)])
@pytest.mark.parametrize("off_m,off_n", [(20, 11), (-3, 5), (0, -6)])
def test_padding_option(backend, rng, padding, fill, off_m, off_n):
    M, N = 23, 17
    x = rng.standard_normal((M, N)).astype(np.float32)
    out = np.zeros((8, 16), dtype=np.float32)
    pad_kernel[(1,)](x, out, M, N, off_m, off_n, BLOCK_M=8, BLOCK_N=16, PADDING=padding)
    np.testing.assert_array_equal(out, _expected_padded(x, off_m, off_n, 8, 16, fill))


def test_padding_nan_on_integers_is_an_error():
    x = np.zeros((4, 4), dtype=np.int32)
    with pytest.raises(tessera.CompilationError, match="padding_option 'nan' needs a floating-point"):
        pad_kernel[(1,)](x, x, 4, 4, 0, 0, BLOCK_M=4, BLOCK_N=4, PADDING="nan")


# ---------------------------------------------------------------------------
# User errors
# ---------------------------------------------------------------------------


@tessera.jit
def wrong_rank_kernel(x_ptr, M, N):
    p = tl.make_block_ptr(x_ptr, (M, N), (N, 1), (0,), (16, 16), (1, 0))  # <- rank
    tl.store(p, 1.0)


@tessera.jit
def advance_rank_kernel(x_ptr, M, N):
    p = tl.make_block_ptr(x_ptr, (M, N), (N, 1), (0, 0), (16, 16), (1, 0))
    p = tl.advance(p, (16,))  # <- advance
    tl.store(p, 1.0)


@tessera.jit
def bad_check_kernel(x_ptr, M, N):
    p = tl.make_block_ptr(x_ptr, (M, N), (N, 1), (0, 0), (16, 16), (1, 0))
    x = tl.load(p, boundary_check=(2,))  # <- check
    tl.store(p, x)


@tessera.jit
def mask_with_block_ptr_kernel(x_ptr, M, N):
    p = tl.make_block_ptr(x_ptr, (M, N), (N, 1), (0, 0), (16, 16), (1, 0))
    x = tl.load(p, mask=M > 0)  # <- mask
    tl.store(p, x)


@tessera.jit
def arith_block_ptr_kernel(x_ptr, M, N):
    p = tl.make_block_ptr(x_ptr, (M, N), (N, 1), (0, 0), (16, 16), (1, 0))
    tl.store(p + 16, 1.0)  # <- arith


@pytest.mark.parametrize("kernel,marker,message", [
    (wrong_rank_kernel, "rank",
     "make_block_ptr: offsets has 1 entries but block_shape has 2 ([16, 16]); shape, strides, "
     "offsets, block_shape and order must have the same rank"),
    (advance_rank_kernel, "advance", "advance: 1 offsets for a block pointer of rank 2"),
    (bad_check_kernel, "check",
     "load: boundary_check dimension 2 is out of range for a block pointer of rank 2"),
    (mask_with_block_ptr_kernel, "mask",
     "`mask` and `other` cannot be given when loading through a block pointer; use "
     "boundary_check and padding_option"),
    (arith_block_ptr_kernel, "arith",
     "arithmetic on a block pointer is not supported; move it with tl.advance(ptr, offsets)"),
])
def test_user_errors(kernel, marker, message):
    x = np.zeros((16, 16), dtype=np.float32)
    with pytest.raises(tessera.CompilationError) as info:
        kernel[(1,)](x, 16, 16)
    e = info.value
    assert e.message == message
    assert e.file == __file__
    assert e.line == line_of(marker)
    assert str(e).startswith(f"{__file__}:{e.line}:{e.col}: error: {message}\n")


@tessera.jit
def loop_type_change_kernel(x_ptr, M, N):
    p = tl.make_block_ptr(x_ptr, (M, N), (N, 1), (0, 0), (16, 16), (1, 0))
    for i in range(0, M):  # <- loop
        p = tl.make_block_ptr(x_ptr, (M, N), (N, 1), (0, 0), (16, 8), (1, 0))
    tl.store(p, 1.0)


def test_loop_carried_block_shape_change():
    x = np.zeros((16, 16), dtype=np.float32)
    with pytest.raises(tessera.CompilationError) as info:
        loop_type_change_kernel[(1,)](x, 16, 16)
    assert info.value.line == line_of("loop")
    assert "loop-carried variable 'p'" in info.value.message
