"""Tensor descriptors: tl.make_tensor_descriptor in a kernel and host
TensorDescriptors passed to one (Triton's triton.tools.tensor_descriptor),
checked against NumPy on the interpreter and the CPU backend with ragged
shapes, non-unit strides, NaN padding, block atomics and row gathers and
scatters."""

import numpy as np
import pytest

import tessera
import tessera.compat.triton as triton
import tessera.language as tl
from tessera import TensorDescriptor
from tessera.compat.triton.tools.tensor_descriptor import TensorDescriptor as TritonPathDescriptor

# ---------------------------------------------------------------------------
# Descriptors made in the kernel
# ---------------------------------------------------------------------------


@tessera.jit
def transpose_through_descriptors(x_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    src = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    dst = tl.make_tensor_descriptor(out_ptr, shape=[N, M], strides=[M, 1], block_shape=[BN, BM])
    block = src.load([pm * BM, pn * BN])
    dst.store([pn * BN, pm * BM], tl.trans(block) * 2)


def test_tensor_descriptor(backend, rng):
    M, N = 37, 21
    x = rng.standard_normal((M, N)).astype(np.float32)
    out = np.zeros((N, M), dtype=np.float32)
    transpose_through_descriptors[(tessera.cdiv(M, 16), tessera.cdiv(N, 8))](x, out, M, N, BM=16, BN=8)
    np.testing.assert_array_equal(out, x.T * 2)


@tessera.jit
def scale_strided(x_ptr, out_ptr, M, N, sxm, sxn, som, son, BM: tl.constexpr, BN: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    src = tl.make_tensor_descriptor(x_ptr, [M, N], [sxm, sxn], [BM, BN])
    dst = tl.make_tensor_descriptor(out_ptr, [M, N], [som, son], [BM, BN])
    dst.store([pm * BM, pn * BN], src.load([pm * BM, pn * BN]) * 3)


@pytest.mark.parametrize("column_step", [1, 3])
def test_innermost_strides_other_than_one(backend, rng, column_step):
    """A descriptor whose innermost stride is not 1 (known only at launch)
    reads and writes every `column_step`-th element, not a contiguous row."""
    M, N = 19, 13
    x = rng.standard_normal((M, N * column_step)).astype(np.float32)
    out = np.full((M, N * 2), -1.0, dtype=np.float32)
    scale_strided[(tessera.cdiv(M, 8), tessera.cdiv(N, 8))](
        x, out, M, N, N * column_step, column_step, N * 2, 2, BM=8, BN=8)
    np.testing.assert_array_equal(out[:, ::2], x[:, ::column_step] * 3)
    np.testing.assert_array_equal(out[:, 1::2], -1.0)


@tessera.jit
def padded_block(x_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr, PADDING: tl.constexpr):
    src = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [BM, BN], padding_option=PADDING)
    offs = tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :]
    tl.store(out_ptr + offs, src.load([M - BM // 2, N - BN // 2]))


@pytest.mark.parametrize("padding, fill", [("zero", 0.0), ("nan", np.nan)])
def test_padding_option(backend, rng, padding, fill):
    M, N = 12, 10
    x = rng.standard_normal((M, N)).astype(np.float32)
    out = np.zeros((8, 8), dtype=np.float32)
    padded_block[(1,)](x, out, M, N, BM=8, BN=8, PADDING=padding)
    expected = np.full((8, 8), fill, dtype=np.float32)
    expected[:4, :4] = x[M - 4:, N - 4:]
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("dtype_name", ["bfloat16", "float8_e5m2"])
def test_nan_padding_of_narrow_floats(backend, dtype_name):
    """The CPU moves bf16 and fp8 as integers: the NaN padding is their NaN's
    bits."""
    torch = pytest.importorskip("torch")
    dtype = getattr(torch, dtype_name)
    M, N = 12, 10
    x = torch.arange(M * N, dtype=torch.float32).reshape(M, N).div(8).to(dtype)
    out = torch.zeros(8, 8, dtype=dtype)
    padded_block[(1,)](x, out, M, N, BM=8, BN=8, PADDING="nan")
    assert torch.equal(out[:4, :4], x[M - 4:, N - 4:])
    assert out[4:, :].float().isnan().all() and out[:, 4:].float().isnan().all()


def test_padding_option_errors():
    x = np.zeros((8, 8), dtype=np.float32)
    with pytest.raises(tessera.CompilationError, match="padding_option must be 'zero' or 'nan'"):
        padded_block[(1,)](x, x, 8, 8, BM=8, BN=8, PADDING="inf")
    ints = np.zeros((8, 8), dtype=np.int32)
    with pytest.raises(tessera.CompilationError, match="'nan' needs floating-point elements"):
        padded_block[(1,)](ints, ints, 8, 8, BM=8, BN=8, PADDING="nan")


@tessera.jit
def block_updates(x_ptr, values_ptr, M, N, row, col, OP: tl.constexpr, BM: tl.constexpr,
                  BN: tl.constexpr):
    desc = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [BM, BN])
    values = tl.load(values_ptr + tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :])
    if OP == "add":
        desc.atomic_add([row, col], values)
    elif OP == "min":
        desc.atomic_min([row, col], values)
    elif OP == "max":
        desc.atomic_max([row, col], values)
    elif OP == "and":
        desc.atomic_and([row, col], values)
    elif OP == "or":
        desc.atomic_or([row, col], values)
    else:
        desc.atomic_xor([row, col], values)


@pytest.mark.parametrize("op, combine", [("add", np.add), ("min", np.minimum), ("max", np.maximum),
                                         ("and", np.bitwise_and), ("or", np.bitwise_or),
                                         ("xor", np.bitwise_xor)])
def test_block_atomics(backend, rng, op, combine):
    """Every program updates the same block, which hangs over the bottom-right
    corner: in-bounds elements take all updates, nothing else is written."""
    M, N, programs = 11, 9, 4
    x = rng.integers(-50, 50, (M, N), dtype=np.int32)
    values = rng.integers(-50, 50, (8, 8), dtype=np.int32)
    expected = x.copy()
    for _ in range(programs):
        expected[5:, 3:] = combine(expected[5:, 3:], values[:M - 5, :N - 3])
    block_updates[(programs,)](x, values, M, N, 5, 3, OP=op, BM=8, BN=8)
    np.testing.assert_array_equal(x, expected)


def test_block_atomic_add_on_floats(backend, rng):
    M, N = 6, 7
    x = rng.standard_normal((M, N)).astype(np.float32)
    values = rng.standard_normal((8, 8)).astype(np.float32)
    expected = x + values[:M, :N]
    block_updates[(1,)](x, values, M, N, 0, 0, OP="add", BM=8, BN=8)
    np.testing.assert_allclose(x, expected, rtol=1e-6)


@tessera.jit
def descriptor_functions(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    src = tl.make_tensor_descriptor(x_ptr, [n], [1], [BLOCK])
    dst = tl.make_tensor_descriptor(out_ptr, [n], [1], [BLOCK])
    start = tl.program_id(0) * BLOCK
    tl.store_tensor_descriptor(dst, [start], tl.load_tensor_descriptor(src, [start]) + src.shape[0])


def test_load_and_store_tensor_descriptor(backend, rng):
    n = 45
    x = rng.integers(0, 100, n, dtype=np.int32)
    out = np.zeros(n, dtype=np.int32)
    descriptor_functions[(tessera.cdiv(n, 16),)](x, out, n, BLOCK=16)
    np.testing.assert_array_equal(out, x + n)


# ---------------------------------------------------------------------------
# Host descriptors passed to a kernel
# ---------------------------------------------------------------------------


@tessera.jit
def transpose_host_descriptors(src, dst, BM: tl.constexpr, BN: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    block = src.load([pm * BM, pn * BN])
    dst.store([pn * BN, pm * BM], tl.trans(block) + (src.shape[0] - dst.strides[0] // 2))


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int8])
def test_host_descriptors(backend, rng, dtype):
    """Ragged shapes inside padded rows: blocks are cut at the descriptor's
    shape, not at the row's end, and the padding columns stay untouched."""
    M, N, row, out_row = 37, 21, 48, 64
    storage = (rng.standard_normal((M, row)) * 8).astype(dtype)
    out = np.zeros((N, out_row), dtype=dtype)
    src = TensorDescriptor(storage, [M, N], [row, 1], [16, 8])
    dst = TensorDescriptor.from_tensor(out[:, :M], [8, 16])
    assert dst.shape == [N, M] and dst.strides == [out_row, 1]
    transpose_host_descriptors[(tessera.cdiv(M, 16), tessera.cdiv(N, 8))](src, dst, BM=16, BN=8)
    expected = storage[:, :N].T + dtype(M - out_row // 2)
    np.testing.assert_array_equal(out[:, :M], expected)
    np.testing.assert_array_equal(out[:, M:], 0)


@tessera.jit
def matmul_host_descriptors(a_desc, b_desc, c_desc, K, BM: tl.constexpr, BN: tl.constexpr,
                            BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        acc = tl.dot(a_desc.load([pid_m * BM, k]), b_desc.load([k, pid_n * BN]), acc)
    c_desc.store([pid_m * BM, pid_n * BN], acc)


@pytest.mark.parametrize("options", [{}, {"tma": True}])
def test_matmul_on_host_descriptors(backend, rng, options):
    """Triton's host-descriptor GEMM form (tutorial 09) on ragged M, N, K:
    the zero padding of blocks past K keeps the products exact. The launch
    option `tma` (TMA copies on NVIDIA sm_90) changes nothing elsewhere."""
    M, N, K = 45, 36, 52
    a = rng.standard_normal((M, K)).astype(np.float32)
    b = rng.standard_normal((K, N)).astype(np.float32)
    c = np.zeros((M, N), dtype=np.float32)
    BM, BN, BK = 16, 16, 16
    matmul_host_descriptors[(tessera.cdiv(M, BM), tessera.cdiv(N, BN))](
        TensorDescriptor.from_tensor(a, [BM, BK]), TensorDescriptor.from_tensor(b, [BK, BN]),
        TensorDescriptor.from_tensor(c, [BM, BN]), K, BM=BM, BN=BN, BK=BK, **options)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)


@tessera.jit
def matmul_device_descriptors(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                              BK: tl.constexpr):
    """Triton's device-side descriptor form: made in the kernel from its
    arguments, which on NVIDIA with `tma` gives each a tensor map encoded at
    launch (docs/gpu-nvidia.md, "Tensor maps (TMA)")."""
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[BK, BN])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        acc = tl.dot(a_desc.load([tl.program_id(0) * BM, k]),
                     b_desc.load([k, tl.program_id(1) * BN]), acc)
    c_desc.store([tl.program_id(0) * BM, tl.program_id(1) * BN], acc)


def matmul_through_device_descriptors(a, b, c, block, **options):
    """C = A @ B for [M, K] and [K, N] arrays whose row lengths are multiples
    of 16 bytes, as a descriptor's outer strides must be."""
    (M, K), N = a.shape, b.shape[1]
    BM, BN, BK = block
    matmul_device_descriptors[(tessera.cdiv(M, BM), tessera.cdiv(N, BN))](
        a, b, c, M, N, K, BM=BM, BN=BN, BK=BK, **options)


def test_matmul_on_device_descriptors(backend, rng):
    M, N, K = 45, 40, 56
    a = rng.standard_normal((M, K)).astype(np.float32)
    b = rng.standard_normal((K, N)).astype(np.float32)
    c = np.zeros((M, N), dtype=np.float32)
    matmul_through_device_descriptors(a, b, c, (16, 16, 16), tma=True)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)


def set_block_shapes(nargs):
    """The pre_hook of Triton's tutorial 09: each config sets its blocks."""
    nargs["src"].block_shape = [nargs["BM"], nargs["BN"]]
    nargs["dst"].block_shape = [nargs["BN"], nargs["BM"]]


@triton.autotune(configs=[triton.Config({"BM": 8, "BN": 16}, pre_hook=set_block_shapes),
                          triton.Config({"BM": 32, "BN": 8}, pre_hook=set_block_shapes)],
                 key=["M"])
@triton.jit
def tuned_transpose(src, dst, M, BM: tl.constexpr, BN: tl.constexpr):
    block = src.load([tl.program_id(0) * BM, tl.program_id(1) * BN])
    dst.store([tl.program_id(1) * BN, tl.program_id(0) * BM], tl.trans(block))


def test_autotuner_pre_hook_sets_block_shapes(backend, rng):
    M, N = 40, 24
    x = rng.standard_normal((M, N)).astype(np.float32)
    out = np.zeros((N, M), dtype=np.float32)
    src = TritonPathDescriptor.from_tensor(x, [1, 1])
    dst = TritonPathDescriptor.from_tensor(out, [1, 1])
    grid = lambda meta: (triton.cdiv(M, meta["BM"]), triton.cdiv(N, meta["BN"]))
    tuned_transpose[grid](src, dst, M)
    np.testing.assert_array_equal(out, x.T)


def test_torch_tensor_base(backend):
    torch = pytest.importorskip("torch")
    x = torch.randn(20, 24)
    out = torch.zeros(24, 32)
    src = TensorDescriptor.from_tensor(x, [16, 8])
    dst = TensorDescriptor.from_tensor(out[:, :20], [8, 16])
    transpose_host_descriptors[(2, 3)](src, dst, BM=16, BN=8)
    torch.testing.assert_close(out[:, :20], x.T + (20 - 32 // 2), rtol=0, atol=0)


def test_a_descriptor_specializes_on_its_strides_divisibility():
    x = np.zeros((16, 32), dtype=np.float32)
    text = transpose_host_descriptors.ir(TensorDescriptor(x, [16, 16], [32, 1], [16, 8]),
                                         TensorDescriptor(x, [8, 16], [32, 1], [8, 16]),
                                         BM=16, BN=8)
    assert "tile.make_tensor_descriptor" in text
    assert "i64 {tile.divisibility = 16 : i32}" in text


def test_a_descriptors_strides_are_known_multiples_of_16_bytes():
    """Strides of 36 and 12 floats specialize on nothing, but every
    TensorDescriptor's are multiples of 16 bytes: 4 floats, which the GPU
    lowering needs to prove a row 16-byte aligned (for TMA on sm_90)."""
    x = np.zeros((16, 36), dtype=np.float32)
    out = np.zeros((36, 12), dtype=np.float32)
    text = transpose_host_descriptors.ir(TensorDescriptor(x, [16, 36], [36, 1], [16, 8]),
                                         TensorDescriptor(out, [36, 12], [12, 1], [8, 16]),
                                         BM=16, BN=8)
    assert text.count("i64 {tile.divisibility = 4 : i32}") == 2, text


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("kwargs, message", [
    (dict(shape=[4, 4, 4, 4, 4, 4], strides=[1] * 6, block_shape=[1] * 6), "rank must be 1 to 5"),
    (dict(shape=[8, 8], strides=[8], block_shape=[8, 8]), r"strides \[8\] has 1 entries"),
    (dict(shape=[8, 8], strides=[8, 1], block_shape=[8]), r"block_shape \[8\] has 1 entries"),
    (dict(shape=[8, 0], strides=[8, 1], block_shape=[8, 8]), "shape entries must be positive"),
    (dict(shape=[8, 8], strides=[8, 1], block_shape=[8, 6]), "powers of two, got \\[8, 6\\]"),
    (dict(shape=[8, 8], strides=[1, 8], block_shape=[8, 8]), "must be contiguous"),
    (dict(shape=[8, 6], strides=[6, 1], block_shape=[8, 8]), r"strides\[0\] = 6 elements of 4 bytes"),
    (dict(shape=[8, 8], strides=[8, 1], block_shape=[8, 8], padding="inf"), "padding must be"),
    (dict(shape=[8, 8], strides=[8, 1], block_shape=[8, 8], round_f32_to_tf32=True),
     "round_f32_to_tf32"),
])
def test_descriptor_rules(kwargs, message):
    with pytest.raises(ValueError, match=message):
        TensorDescriptor(np.zeros(64, dtype=np.float32), **kwargs)


def test_nan_padding_needs_floats():
    with pytest.raises(ValueError, match="padding 'nan' needs a floating-point base"):
        TensorDescriptor.from_tensor(np.zeros((8, 8), dtype=np.int32), [8, 8], padding="nan")


def test_launch_checks_the_descriptor_against_its_base():
    x = np.zeros((16, 16), dtype=np.float32)
    out = np.zeros((16, 16), dtype=np.float32)
    dst = TensorDescriptor.from_tensor(out, [8, 16])
    too_long = TensorDescriptor(x, [17, 16], [16, 1], [16, 8])
    with pytest.raises(tessera.ArgumentError, match=r"argument 'src' \(a TensorDescriptor\): shape "
                       r"\[17, 16\] with strides \[16, 1\] reaches 1088 bytes past the base, which "
                       r"holds 1024"):
        transpose_host_descriptors[(1,)](too_long, dst, BM=16, BN=8)
    storage = np.zeros(16 * 16 + 4, dtype=np.float32)
    start = next(i for i in range(4) if (storage.ctypes.data + 4 * i) % 16 == 4)
    misaligned = TensorDescriptor(storage[start:start + 256].reshape(16, 16), [16, 16], [16, 1],
                                  [16, 8])
    with pytest.raises(tessera.ArgumentError, match="the base must be 16-byte aligned"):
        transpose_host_descriptors[(1,)](misaligned, dst, BM=16, BN=8)
    too_long.block_shape = [16, 3]
    with pytest.raises(tessera.ArgumentError, match="block_shape entries must be powers of two"):
        transpose_host_descriptors[(1,)](too_long, dst, BM=16, BN=8)


def test_descriptor_functions_need_descriptors():
    @tessera.jit
    def not_a_descriptor(x_ptr):
        tl.load_tensor_descriptor(x_ptr, [0])

    with pytest.raises(tessera.CompilationError,
                       match="load_tensor_descriptor needs a tensor descriptor, got"):
        not_a_descriptor[(1,)](np.zeros(4, dtype=np.float32))


def test_block_atomic_needs_the_block_shape():
    @tessera.jit
    def wrong_block(x_ptr):
        desc = tl.make_tensor_descriptor(x_ptr, [8], [1], [8])
        desc.atomic_add([0], tl.zeros([4], dtype=tl.float32))

    with pytest.raises(tessera.CompilationError,
                       match=r"value of shape \[4\] does not match the descriptor block \[8\]"):
        wrong_block[(1,)](np.zeros(8, dtype=np.float32))


def test_set_allocator_is_accepted():
    triton.set_allocator(lambda size, alignment, stream: None)
    triton.set_allocator(None)
    with pytest.raises(TypeError, match="set_allocator needs a callable"):
        triton.set_allocator(3)


@tessera.jit
def gather_rows(x_ptr, rows_ptr, out_ptr, M, N, column, R: tl.constexpr, BN: tl.constexpr,
                PADDING: tl.constexpr):
    desc = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [1, BN], padding_option=PADDING)
    rows = tl.load(rows_ptr + tl.arange(0, R))
    block = desc.gather(rows, column)
    tl.store(out_ptr + tl.arange(0, R)[:, None] * BN + tl.arange(0, BN)[None, :], block)


@pytest.mark.parametrize("padding, fill", [("zero", 0.0), ("nan", np.nan)])
def test_gather(backend, rng, padding, fill):
    """Rows picked by index, from a column that leaves the last ones past N;
    rows -1 and M are outside the shape and read as the padding."""
    M, N, R, BN, column = 13, 20, 8, 8, 15
    x = rng.standard_normal((M, N)).astype(np.float32)
    rows = np.array([3, 0, 12, -1, 7, 13, 3, 5], dtype=np.int32)
    out = np.zeros((R, BN), dtype=np.float32)
    gather_rows[(1,)](x, rows, out, M, N, column, R=R, BN=BN, PADDING=padding)
    expected = np.full((R, BN), fill, dtype=np.float32)
    for i, r in enumerate(rows):
        if 0 <= r < M:
            expected[i, :N - column] = x[r, column:]
    np.testing.assert_array_equal(out, expected)


@tessera.jit
def scatter_rows(x_ptr, rows_ptr, values_ptr, M, N, column, R: tl.constexpr, BN: tl.constexpr):
    desc = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [1, BN])
    rows = tl.load(rows_ptr + tl.arange(0, R))
    desc.scatter(tl.load(values_ptr + tl.arange(0, R)[:, None] * BN + tl.arange(0, BN)[None, :]),
                 rows, column)


def test_scatter(backend, rng):
    M, N, R, BN, column = 13, 20, 8, 8, 15
    x = rng.standard_normal((M, N)).astype(np.float32)
    values = rng.standard_normal((R, BN)).astype(np.float32)
    rows = np.array([2, 9, -1, 12, 13, 0, 5, 7], dtype=np.int32)
    expected = x.copy()
    for i, r in enumerate(rows):
        if 0 <= r < M:
            expected[r, column:] = values[i, :N - column]
    scatter_rows[(1,)](x, rows, values, M, N, column, R=R, BN=BN)
    np.testing.assert_array_equal(x, expected)


def test_gather_needs_a_one_row_block():
    @tessera.jit
    def two_rows(x_ptr):
        desc = tl.make_tensor_descriptor(x_ptr, [8, 8], [8, 1], [2, 8])
        desc.gather(tl.arange(0, 8), 0)

    with pytest.raises(tessera.CompilationError,
                       match=r"descriptor gather needs a 2-D descriptor whose block is one row, "
                             r"got block shape \[2, 8\]"):
        two_rows[(1,)](np.zeros((8, 8), dtype=np.float32))
