"""`tessera compile ... --target cuda:*|hip:*|vulkan*` (python/tessera/compile.py over
tessera._C.compile_gpu/emit_gpu, lowering/gpu/Compile.h), run as a user would, and the
Python API underneath. Needs ptxas (CUDA toolkit), the ROCm device libraries and
spirv-val, as the C++ GpuCompileTests do; no GPU."""

import os
import re
import shutil
import subprocess
import sys
import textwrap

import pytest

import tessera
from tessera import _C
from tessera.errors import CompilationError

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLI = os.environ.get("TESSERA_CLI") or os.path.join(ROOT, "build", "bin", "tessera")

KERNELS = textwrap.dedent('''
    import tessera.compat.triton as triton
    import tessera.compat.triton.language as tl


    @triton.jit
    def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
        pid = tl.program_id(axis=0)
        offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        mask = offsets < n_elements
        x = tl.load(x_ptr + offsets, mask=mask)
        y = tl.load(y_ptr + offsets, mask=mask)
        tl.store(output_ptr + offsets, x + y, mask=mask)


    @triton.jit
    def matmul_nt(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bn, stride_cm,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        # The benchmark's GEMM (bench/gpu/kernels.py) with B the transpose of
        # an [N, K] weight, as a PyTorch Linear multiplies.
        pid_m = tl.program_id(0)
        pid_n = tl.program_id(1)
        tl.assume(pid_m >= 0)
        tl.assume(pid_n >= 0)
        tl.assume(stride_am > 0)
        tl.assume(stride_bn > 0)
        rm = (pid_m * BM + tl.arange(0, BM)) % M
        rn = (pid_n * BN + tl.arange(0, BN)) % N
        rk = tl.arange(0, BK)
        a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :]
        b_ptrs = b_ptr + rk[:, None] + rn[None, :] * stride_bn
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BK)):
            a = tl.load(a_ptrs, mask=rk[None, :] < K - k * BK, other=0.0)
            b = tl.load(b_ptrs, mask=rk[:, None] < K - k * BK, other=0.0)
            acc = tl.dot(a, b, acc)
            a_ptrs += BK
            b_ptrs += BK
        cm = pid_m * BM + tl.arange(0, BM)
        cn = pid_n * BN + tl.arange(0, BN)
        tl.store(c_ptr + cm[:, None] * stride_cm + cn[None, :], acc.to(tl.float16),
                 mask=(cm[:, None] < M) & (cn[None, :] < N))


    @triton.jit
    def matmul(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
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
        tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc,
                 mask=(rm[:, None] < M) & (rn[None, :] < N))


    @triton.jit
    def matmul_plus_equals(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                           BK: tl.constexpr):
        # `matmul` as many users write it: acc += tl.dot(a, b).
        rm = tl.program_id(0) * BM + tl.arange(0, BM)
        rn = tl.program_id(1) * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, K, BK):
            a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :],
                        mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
            b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :],
                        mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
            acc += tl.dot(a, b)
        tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc,
                 mask=(rm[:, None] < M) & (rn[None, :] < N))


    @triton.jit
    def row_loop(x_ptr, y_ptr, n_rows, BLOCK: tl.constexpr, STAGES: tl.constexpr):
        cols = tl.arange(0, BLOCK)
        for row in tl.range(tl.program_id(0), n_rows, tl.num_programs(0), num_stages=STAGES):
            x = tl.load(x_ptr + row * BLOCK + cols)
            tl.store(y_ptr + row * BLOCK + cols, x / tl.sum(x, axis=0))


    @triton.jit
    def descriptor_tile(a_desc, b_desc, c_desc, K, BM: tl.constexpr, BN: tl.constexpr,
                        BK: tl.constexpr):
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, K, BK):
            a = a_desc.load([tl.program_id(0) * BM, k])
            b = b_desc.load([k, tl.program_id(1) * BN])
            acc = tl.dot(a, b, acc)
        c_desc.store([tl.program_id(0) * BM, tl.program_id(1) * BN], acc)


    @triton.jit
    def matmul_descriptors(a_desc, b_desc, c_desc, K, BM: tl.constexpr, BN: tl.constexpr,
                           BK: tl.constexpr):
        descriptor_tile(a_desc, b_desc, c_desc, K, BM, BN, BK)


    @triton.jit
    def matmul_descriptors_loop_asks(a_desc, b_desc, c_desc, K, BM: tl.constexpr,
                                     BN: tl.constexpr, BK: tl.constexpr):
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in tl.range(0, K, BK, warp_specialize=True):
            acc = tl.dot(a_desc.load([tl.program_id(0) * BM, k]),
                         b_desc.load([k, tl.program_id(1) * BN]), acc)
        c_desc.store([tl.program_id(0) * BM, tl.program_id(1) * BN], acc)


    @triton.jit
    def matmul_device_descriptors(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr,
                                  BN: tl.constexpr, BK: tl.constexpr):
        a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
        b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[BK, BN])
        c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
        descriptor_tile(a_desc, b_desc, c_desc, K, BM, BN, BK)


    @triton.jit
    def printing(x_ptr, BLOCK: tl.constexpr):
        x = tl.load(x_ptr + tl.arange(0, BLOCK))
        tl.device_print("x = ", x)


    @triton.jit
    def matmul_fp8(a_ptr, b_ptr, c_ptr, K, IMPRECISE: tl.constexpr):
        # A [128, K] and B [K, 128] of e4m3, row-major, into bf16.
        rm = tl.arange(0, 128)
        rk = tl.arange(0, 128)
        acc = tl.zeros((128, 128), dtype=tl.float32)
        for k in range(0, K, 128):
            a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
            b = tl.load(b_ptr + (k + rk)[:, None] * 128 + rm[None, :])
            acc = tl.dot(a, b, acc, max_num_imprecise_acc=IMPRECISE)
        tl.store(c_ptr + rm[:, None] * 128 + rm[None, :], acc.to(tl.bfloat16))


    @triton.jit
    def quantize(x_ptr, q_ptr, back_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        q = tl.load(x_ptr + offs, mask=offs < n).to(tl.float8e4nv)
        tl.store(q_ptr + offs, q, mask=offs < n)
        tl.store(back_ptr + offs, q.to(tl.float32), mask=offs < n)


    @triton.jit
    def dot_fp8_into_f16(a_ptr, b_ptr, c_ptr):
        r = tl.arange(0, 64)
        a = tl.load(a_ptr + r[:, None] * 64 + r[None, :])
        b = tl.load(b_ptr + r[:, None] * 64 + r[None, :])
        c = tl.dot(a, b, tl.zeros((64, 64), dtype=tl.float16), out_dtype=tl.float16)
        tl.store(c_ptr + r[:, None] * 64 + r[None, :], c)


    @triton.jit
    def dot_fp8_small(a_ptr, b_ptr, c_ptr):
        r = tl.arange(0, 16)
        a = tl.load(a_ptr + r[:, None] * 16 + r[None, :])
        b = tl.load(b_ptr + r[:, None] * 16 + r[None, :])
        c = tl.dot(a, b)
        tl.store(c_ptr + r[:, None] * 16 + r[None, :], c)


    @triton.jit
    def tile_into_f16(a_ptr, b_ptr, c_ptr, rm, rn, M, N, K, BK: tl.constexpr):
        rk = tl.arange(0, BK)
        acc = tl.zeros((rm.shape[0], rn.shape[0]), dtype=tl.float16)
        for k in range(0, K, BK):
            a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :],
                        mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
            b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :],
                        mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
            acc = tl.dot(a, b, acc, out_dtype=tl.float16)
        tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc,
                 mask=(rm[:, None] < M) & (rn[None, :] < N))


    @triton.jit
    def matmul_into_f16(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                        BK: tl.constexpr):
        tile_into_f16(a_ptr, b_ptr, c_ptr, tl.program_id(0) * BM + tl.arange(0, BM),
                      tl.program_id(1) * BN + tl.arange(0, BN), M, N, K, BK)


    @triton.jit
    def persistent_matmul_into_f16(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr,
                                   BN: tl.constexpr, BK: tl.constexpr, PROGRAMS: tl.constexpr):
        tiles_n = tl.cdiv(N, BN)
        for tile in tl.range(tl.program_id(0), tl.cdiv(M, BM) * tiles_n, PROGRAMS, flatten=True):
            tile_into_f16(a_ptr, b_ptr, c_ptr, (tile // tiles_n) * BM + tl.arange(0, BM),
                          (tile % tiles_n) * BN + tl.arange(0, BN), M, N, K, BK)


    @triton.jit
    def weight_only_int8(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                         BK: tl.constexpr, STORES: tl.constexpr):
        rm = tl.program_id(0) * BM + tl.arange(0, BM)
        rn = tl.program_id(1) * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, K, BK):
            a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :],
                        mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
            b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :],
                        mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0)
            acc = tl.dot(a, b.to(tl.float16), acc)
            if STORES == "partial sums":
                tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc,
                         mask=(rm[:, None] < M) & (rn[None, :] < N))
            if STORES == "weights":
                tl.store(b_ptr + (k + rk)[:, None] * N + rn[None, :], b + 1,
                         mask=((k + rk)[:, None] < K) & (rn[None, :] < N))
        tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc,
                 mask=(rm[:, None] < M) & (rn[None, :] < N))


    # Triton's persistent tutorial (09), pointer form, as it is written: the
    # tile's offsets are computed once per tile and carried through its K
    # blocks.
    @triton.jit
    def tutorial_persistent(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                                 BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
                                 GROUP_SIZE_M: tl.constexpr, NUM_SMS: tl.constexpr):
        start_pid = tl.program_id(axis=0)
        num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
        num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
        k_tiles = tl.cdiv(K, BLOCK_SIZE_K)
        num_tiles = num_pid_m * num_pid_n
        num_pid_in_group = GROUP_SIZE_M * num_pid_n
        for tile_id in tl.range(start_pid, num_tiles, NUM_SMS, flatten=True):
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
            accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
            for ki in range(k_tiles):
                offs_k = ki * BLOCK_SIZE_K + tl.arange(0, BLOCK_SIZE_K)
                a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
                b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
                a = tl.load(a_ptrs, mask=offs_k[None, :] < K - ki * BLOCK_SIZE_K, other=0.0)
                b = tl.load(b_ptrs, mask=offs_k[:, None] < K - ki * BLOCK_SIZE_K, other=0.0)
                accumulator = tl.dot(a, b, accumulator)
            offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
            offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
            c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
            c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
            tl.store(c_ptrs, accumulator.to(tl.float16), mask=c_mask)


    @triton.jit
    def float8_integers(q_ptr, i_ptr, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        q = (offs - BLOCK // 2).to(tl.float8e4nv)
        tl.store(q_ptr + offs, q)
        tl.store(i_ptr + offs, (q * q).to(tl.int32))

    @triton.jit
    def pointer_casts(x_ptr, bits_ptr, bytes_ptr, words_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        even = mask & (offs % 2 == 0)
        # The float elements as int32 (same size), the 2nd byte of each, and
        # pairs of them as 64-bit words.
        bits = tl.load(x_ptr.to(tl.pointer_type(tl.int32)) + offs, mask=mask)
        tl.store(bits_ptr + offs, bits, mask=mask)
        tl.store(bytes_ptr + offs, tl.load(x_ptr.to(tl.pointer_type(tl.uint8)) + 4 * offs + 1,
                                           mask=mask), mask=mask)
        words = tl.load(x_ptr.to(tl.pointer_type(tl.int64)) + offs // 2, mask=even)
        tl.store(words_ptr + offs // 2, words, mask=even)

    @triton.jit
    def bf16_math(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs, mask=offs < n, other=1.0)
        tl.store(y_ptr + offs, tl.exp(x) + tl.log(x) + tl.sin(x), mask=offs < n)

    @triton.jit
    def tanh_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs, mask=offs < n)
        tl.store(y_ptr + offs, tl.extra.cuda.libdevice.tanh(x) + tl.exp(x), mask=offs < n)
''')

ADD_SIG = "*fp32:16, *fp32:16, *fp32:16, i32, 1024"
MATMUL_SIG = "*fp16:16, *fp16:16, *fp32:16, i32, i32, i32, 64, 64, 32"
MATMUL_DESCRIPTORS_SIG = ("tensordesc<fp16[64, 32]>, tensordesc<fp16[32, 64]>, tensordesc<fp32[64, 64]>, "
                          "i32, 64, 64, 32")
PRINT_SIG = "*fp32:16, 128"
AXPY_SIG = "*fp32:16, *fp32:16, *fp32:16, fp32, i32, 1024"
FP8_SIG = "*fp8e4nv:16, *fp8e4nv:16, *bf16:16, i32:16, {}"
POINTER_CASTS_SIG = "*fp32:16, *i32:16, *u8:16, *i64:16, i32, 128"


def print_line():
    return KERNELS.splitlines().index('    tl.device_print("x = ", x)') + 1


@pytest.fixture
def kernels(tmp_path):
    path = tmp_path / "kernels.py"
    path.write_text(KERNELS)
    return path


def run(*args, cwd=None):
    env = dict(os.environ)
    env.setdefault("TESSERA_PYTHON", sys.executable)
    return subprocess.run([CLI, "compile", *map(str, args)], capture_output=True, cwd=cwd, env=env,
                          timeout=300)


cli = pytest.mark.skipif(not os.path.exists(CLI), reason=f"no tessera CLI at {CLI}")


def spirv_val(path):
    tool = shutil.which("spirv-val")
    if tool is None:
        pytest.fail("spirv-val is not on PATH (Debian: spirv-tools)")
    return subprocess.run([tool, "--target-env", "vulkan1.3", str(path)], capture_output=True, text=True)


# --- the command line ----------------------------------------------------------

@cli
def test_ptx_has_the_entry_point(kernels):
    r = run(f"{kernels}:add_kernel", "-s", ADD_SIG, "--target", "cuda:sm_90a", "--emit", "ptx")
    assert r.returncode == 0, r.stderr.decode()
    ptx = r.stdout.decode()
    assert ".entry add_kernel(" in ptx
    assert ".target sm_90a" in ptx
    assert ".maxntid 128, 1, 1" in ptx


@cli
def test_cubin_is_an_elf_file(kernels, tmp_path):
    out = tmp_path / "add.cubin"
    r = run(f"{kernels}:add_kernel", "-s", ADD_SIG, "--target", "cuda:sm_80", "--emit", "cubin", "-o", out)
    assert r.returncode == 0, r.stderr.decode()
    assert out.read_bytes()[:4] == b"\x7fELF"
    # Without -o: KERNEL.cubin in the working directory.
    r = run(f"{kernels}:add_kernel", "-s", ADD_SIG, "--target", "cuda:sm_80", "--emit", "cubin", cwd=tmp_path)
    assert r.returncode == 0, r.stderr.decode()
    assert (tmp_path / "add_kernel.cubin").read_bytes()[:4] == b"\x7fELF"


@cli
def test_gemm_ptx_uses_tensor_cores(kernels):
    r = run(f"{kernels}:matmul", "-s", MATMUL_SIG, "--target", "cuda:sm_80", "--emit", "ptx")
    assert r.returncode == 0, r.stderr.decode()
    assert "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" in r.stdout.decode()
    assert "ldmatrix" in r.stdout.decode()
    r = run(f"{kernels}:matmul", "-s", MATMUL_SIG, "--target", "cuda:sm_90a", "--emit", "ptx")
    assert r.returncode == 0, r.stderr.decode()
    assert "wgmma.mma_async" in r.stdout.decode()


@cli
def test_host_descriptor_gemm_uses_tensor_cores_and_cp_async(kernels):
    """Triton's tensordesc<...> signature entries: descriptors passed by the
    host reach the tensor cores through pipelined cp.async copies."""
    r = run(f"{kernels}:matmul_descriptors", "-s", MATMUL_DESCRIPTORS_SIG, "--target", "cuda:sm_80",
            "--emit", "ptx", "--num-stages", "3")
    assert r.returncode == 0, r.stderr.decode()
    ptx = r.stdout.decode()
    assert "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" in ptx
    assert "ldmatrix" in ptx and "cp.async.cg.shared.global" in ptx
    r = run(f"{kernels}:matmul_descriptors", "-s", MATMUL_DESCRIPTORS_SIG, "--target", "cuda:sm_90a",
            "--emit", "ptx", "--num-stages", "3")
    assert r.returncode == 0, r.stderr.decode()
    assert "wgmma.mma_async" in r.stdout.decode()


@cli
def test_a_pipelined_gemm_advances_one_offset_for_all_its_copies(kernels):
    """The NT GEMM's 12 copies per K step on sm_90a (128x256x64, 8 warps)
    address `base + lane + k * 128 bytes`: each base stays put and one offset
    moves (PtxEmitter.cpp, FullLoopStrengthReduction), where LLVM's pruned
    search kept one 64-bit pointer per copy, each advanced every step, plus
    the lane's offset added to each (133 SASS instructions per step, 99 now)."""
    r = run(f"{kernels}:matmul_nt", "-s", "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, "
            "i32:16, i32:16, i32:16, i32:16, 128, 256, 64", "--target", "cuda:sm_90a",
            "--num-warps", "8", "--num-stages", "3", "--emit", "ptx")
    assert r.returncode == 0, r.stderr.decode()
    ptx = r.stdout.decode()
    assert ptx.count("cp.async.cg.shared.global") == 36  # 3 stages of 12 copies (2 ahead, 1 in the loop)
    steps = re.findall(r"add\.s64\s+%rd\d+, %rd\d+, 128;", ptx)
    assert len(steps) == 1, steps


@cli
def test_tma_copies_host_descriptor_blocks_and_lists_the_tensor_maps(kernels):
    """--tma on sm_90a: the A and B blocks are copied by cp.async.bulk.tensor
    on mbarriers, C's block is stored by it (its shape known to be multiples
    of 8, so that rows end on 16-byte chunks), the kernel takes a 128-byte
    tensor map for each after its parameters, and --verbose says what a
    launch must encode."""
    signature = MATMUL_DESCRIPTORS_SIG.replace("fp32[64, 64]>", "fp32[64, 64]>:8")
    r = run(f"{kernels}:matmul_descriptors", "-s", signature, "--target",
            "cuda:sm_90a", "--emit", "ptx", "--num-stages", "3", "--tma", "--verbose")
    assert r.returncode == 0, r.stderr.decode()
    ptx = r.stdout.decode()
    assert "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes" in ptx
    assert "mbarrier.try_wait.parity.shared::cta.b64" in ptx
    assert "cp.async.cg.shared.global" not in ptx
    assert "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group" in ptx
    assert ptx.count(".param .align 64 .b8") == 3
    report = r.stderr.decode()
    assert ("tensor map 0: base param 0, shape [param 1, param 2], strides [param 3, 1] "
            "(elements, outermost first), f16, box [32, 64] (innermost first), 64-byte swizzle, "
            "zero fill") in report, report
    assert "tensor map 1: base param 4, shape [param 5, param 6], strides [param 7, 1]" in report
    assert ("tensor map 2: base param 8, shape [param 9, param 10], strides [param 11, 1] "
            "(elements, outermost first), f32, box [32, 64] (innermost first), 128-byte swizzle"
            ) in report, report
    r = run(f"{kernels}:matmul_descriptors", "-s", signature, "--target",
            "cuda:sm_90a", "--emit", "cubin", "--num-stages", "3", "--tma", "-o", "/dev/null")
    assert r.returncode == 0, r.stderr.decode()
    assert r.stderr.decode() == ("note: matmul_descriptors takes 3 TMA tensor map(s) after its "
                                 "parameters, encoded by the launch (--verbose lists them)\n")
    # Where TMA is not there, the option changes nothing.
    r = run(f"{kernels}:matmul_descriptors", "-s", MATMUL_DESCRIPTORS_SIG, "--target", "cuda:sm_80",
            "--emit", "ptx", "--num-stages", "3", "--tma")
    assert r.returncode == 0, r.stderr.decode()
    assert "cp.async.bulk.tensor" not in r.stdout.decode()
    assert "cp.async.cg.shared.global" in r.stdout.decode()


@cli
def test_tma_stores_only_rows_that_end_on_16_byte_chunks(kernels):
    """TMA writes whole 16-byte chunks of a row: where C's last extent may end
    inside one (a shape not known to be a multiple of 4 f32), its block is
    stored element-wise, so that nothing past the shape is overwritten."""
    r = run(f"{kernels}:matmul_descriptors", "-s", MATMUL_DESCRIPTORS_SIG, "--target",
            "cuda:sm_90a", "--emit", "ptx", "--num-stages", "3", "--tma")
    assert r.returncode == 0, r.stderr.decode()
    ptx = r.stdout.decode()
    assert "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes" in ptx
    assert "bulk_group" not in ptx
    assert "st.global" in ptx


@cli
def test_warp_specialize_gives_the_tma_loop_a_producer_warp(kernels):
    """--warp-specialize with --tma on sm_90a: the program has a warpgroup
    more (8 x 32 threads for --num-warps 4), whose first warp waits on the
    stages' `empty` mbarriers, issues every TMA copy and exits; the 4 warps
    that compute release each stage with an mbarrier arrival, and their
    barriers are named barrier 1 of 128 threads. ptxas assembles it without
    spills."""
    r = run(f"{kernels}:matmul_descriptors", "-s", MATMUL_DESCRIPTORS_SIG, "--target",
            "cuda:sm_90a", "--emit", "ptx", "--num-stages", "3", "--tma", "--warp-specialize",
            "--verbose")
    assert r.returncode == 0, r.stderr.decode()
    ptx = r.stdout.decode()
    assert ".maxntid 256, 1, 1" in ptx
    assert "exit;" in ptx
    assert "mbarrier.arrive.shared::cta.b64" in ptx
    assert re.search(r"bar\.sync\s+1, 128;", ptx), "no named barrier of the consumers"
    report = r.stderr.decode()
    assert "256 threads per program" in report, report
    assert "0 bytes spill stores" in report, report
    # TMA is the default: --tma only says so. With --no-tma there is nothing
    # for a producer warpgroup to issue.
    r = run(f"{kernels}:matmul_descriptors", "-s", MATMUL_DESCRIPTORS_SIG, "--target",
            "cuda:sm_90a", "--emit", "ptx", "--num-stages", "3", "--warp-specialize")
    assert r.returncode == 0, r.stderr.decode()
    assert r.stdout.decode() == ptx
    r = run(f"{kernels}:matmul_descriptors", "-s", MATMUL_DESCRIPTORS_SIG, "--target",
            "cuda:sm_90a", "--emit", "ptx", "--no-tma", "--warp-specialize")
    assert r.returncode == 2
    assert "--warp-specialize needs TMA" in r.stderr.decode()


@cli
def test_a_loop_asks_for_warp_specialization_as_in_triton(kernels):
    """tl.range(..., warp_specialize=True) gives that loop a producer
    warpgroup where TMA copies its blocks (the default), without
    --warp-specialize; with --no-tma it asks for nothing."""
    def ptx(*options):
        r = run(f"{kernels}:matmul_descriptors_loop_asks", "-s", MATMUL_DESCRIPTORS_SIG, "--target",
                "cuda:sm_90a", "--emit", "ptx", "--num-stages", "3", *options)
        assert r.returncode == 0, r.stderr.decode()
        return r.stdout.decode()
    assert ".maxntid 256, 1, 1" in ptx()
    assert ".maxntid 128, 1, 1" in ptx("--no-tma")


@cli
def test_num_stages_pipelines_the_k_loop_with_cp_async(kernels):
    def ptx(stages):
        r = run(f"{kernels}:matmul", "-s", MATMUL_SIG, "--target", "cuda:sm_80", "--emit", "ptx",
                "--num-stages", stages)
        assert r.returncode == 0, r.stderr.decode()
        return r.stdout.decode()

    pipelined = ptx(3)
    assert "cp.async.cg.shared.global" in pipelined
    # Two iterations in flight: wait until at most one group is pending.
    assert "cp.async.wait_group \t1;" in pipelined
    assert "cp.async" not in ptx(1)


@cli
@pytest.mark.parametrize("target,instruction", [("hip:gfx942", "v_mfma"), ("hip:gfx1100", "v_wmma")])
def test_amdgcn_and_hsaco(kernels, tmp_path, target, instruction):
    r = run(f"{kernels}:matmul", "-s", MATMUL_SIG, "--target", target, "--emit", "amdgcn")
    assert r.returncode == 0, r.stderr.decode()
    assembly = r.stdout.decode()
    assert ".amdhsa_kernel matmul" in assembly
    assert instruction in assembly
    out = tmp_path / "matmul.hsaco"
    r = run(f"{kernels}:matmul", "-s", MATMUL_SIG, "--target", target, "--emit", "hsaco", "-o", out)
    assert r.returncode == 0, r.stderr.decode()
    assert out.read_bytes()[:4] == b"\x7fELF"


@cli
def test_spirv_validates(kernels, tmp_path):
    r = run(f"{kernels}:add_kernel", "-s", ADD_SIG, "--target", "vulkan:1.3:subgroup=8", "--emit", "spirv")
    assert r.returncode == 0, r.stderr.decode()
    assert "spirv.module" in r.stdout.decode()
    r = run(f"{kernels}:add_kernel", "-s", ADD_SIG, "--target", "vulkan:1.3:subgroup=8", "--emit", "spv",
            cwd=tmp_path)
    assert r.returncode == 0, r.stderr.decode()
    binary = tmp_path / "add_kernel.spv"
    assert binary.read_bytes()[:4] == (0x07230203).to_bytes(4, "little")
    check = spirv_val(binary)
    assert check.returncode == 0, check.stdout + check.stderr


@cli
@pytest.mark.parametrize("target", ["cuda:sm_90a", "cuda:sm_80"])
def test_pointer_casts_view_the_same_bytes_on_nvidia(kernels, target):
    """ptr.to(tl.pointer_type(U)): loads and stores of U at the same byte
    addresses (tgpu.reinterpret_pointer): element i of the floats is byte
    4 i, and word i // 2 is byte 8 (i // 2)."""
    r = run(f"{kernels}:pointer_casts", "-s", POINTER_CASTS_SIG, "--target", target, "--emit", "ptx")
    assert r.returncode == 0, r.stderr.decode()
    ptx = r.stdout.decode()
    assert re.search(r"ld\.global(\.nc)?\.b8\s+%rs\d+, \[%rd\d+\+1\];", ptx), ptx
    assert re.search(r"mul\.wide\.s32\s+%rd\d+, %r\d+, 8;", ptx), ptx
    r = run(f"{kernels}:pointer_casts", "-s", POINTER_CASTS_SIG, "--target", target, "--emit", "cubin",
            "-o", kernels.parent / "casts.cubin")
    assert r.returncode == 0, r.stderr.decode()


@cli
def test_pointer_casts_assemble_for_amd_and_are_refused_on_vulkan(kernels):
    r = run(f"{kernels}:pointer_casts", "-s", POINTER_CASTS_SIG, "--target", "hip:gfx942", "--emit",
            "hsaco", "-o", kernels.parent / "casts.hsaco")
    assert r.returncode == 0, r.stderr.decode()
    r = run(f"{kernels}:pointer_casts", "-s", POINTER_CASTS_SIG, "--target", "vulkan:1.3",
            "--emit", "spirv")
    assert r.returncode != 0
    assert "a pointer bitcast between element types (Vulkan's storage buffers are arrays of one " \
           "type)" in r.stderr.decode()


@cli
@pytest.mark.parametrize("target", ["hip:gfx942", "hip:gfx1100"])
def test_bf16_math_is_computed_in_f32_on_amd(kernels, target):
    """ocml has no bf16 functions: exp, log and sin of a bf16 tile are
    computed in f32 and rounded once (it was an LLVM translation error)."""
    r = run(f"{kernels}:bf16_math", "-s", "*bf16:16, *bf16:16, i32, 128", "--target", target,
            "--emit", "amdgcn")
    assert r.returncode == 0, r.stderr.decode()
    assert "v_exp_f32" in r.stdout.decode()


@cli
def test_layouts_and_distributed_form_follow_num_warps(kernels):
    r = run(f"{kernels}:add_kernel", "-s", ADD_SIG, "--target", "hip:gfx942", "--emit", "tgpu",
            "--num-warps", "8")
    assert r.returncode == 0, r.stderr.decode()
    assert "#tgpu.layout<" in r.stdout.decode()
    assert "tgpu.num_warps = 8 : i32" in r.stdout.decode()
    r = run(f"{kernels}:add_kernel", "-s", ADD_SIG, "--target", "hip:gfx942", "--emit", "gpu",
            "--num-warps", "2", "--num-stages", "3")
    assert r.returncode == 0, r.stderr.decode()
    gpu = r.stdout.decode()
    assert "gpu.func @add_kernel(" in gpu
    assert "known_block_size = array<i32: 128, 1, 1>" in gpu  # 2 waves of 64


@cli
@pytest.mark.parametrize("target,expected,dot", [
    ("cuda:sm_80", ["registers", "spill stores", "static shared memory", "ptxas info"],
     "mma.sync.m16n8k16.f16"),
    ("hip:gfx90a", ["VGPRs", "SGPRs", "LDS", "spills"], "mfma.32x32x8.f16"),
    ("vulkan:1.3:subgroup=8", ["workgroup memory", "binding 0: f16[]", "push +0: i32"], "fma"),
])
def test_verbose_prints_resource_usage(kernels, target, expected, dot):
    """--verbose: the resource usage, what the kernel's tl.dot runs on (a
    matrix instruction, or the FMA loop) and how its K loop is pipelined, at
    their lines and columns."""
    emit = {"cuda": "ptx", "hip": "amdgcn", "vulkan": "spirv"}[target.split(":")[0]]
    r = run(f"{kernels}:matmul", "-s", MATMUL_SIG, "--target", target, "--emit", emit, "--verbose")
    assert r.returncode == 0, r.stderr.decode()
    report = r.stderr.decode()
    assert report.startswith(f"matmul for {target}")
    for text in expected:
        assert text in report, report
    lines = KERNELS.splitlines()
    start = next(i for i, text in enumerate(lines) if "def matmul(" in text)
    line = lines.index("        acc = tl.dot(a, b, acc)", start) + 1
    assert f"\ndot at {kernels}:{line}:15: {dot}\n" in report, report
    loop = lines.index("    for k in range(0, K, BK):", start) + 1
    assert f"\nloop at {kernels}:{loop}:5: " in report, report
    assert r.stdout  # the output itself still goes to stdout


@cli
@pytest.mark.parametrize("target,instruction", [("cuda:sm_80", "mma.sync.m16n8k16.f16"),
                                                ("cuda:sm_90a", "wgmma.m64n64k16.f16")])
def test_verbose_says_which_dot_takes_a_in_registers(target, instruction):
    """The tutorial attention's P @ V takes P, the first dot's result
    converted, in registers (mma.sync as FlashAttention-2 does, wgmma's
    register form); --verbose says so for that dot alone."""
    source = os.path.join(os.path.dirname(__file__), "test_compat_triton.py")
    strides = ",".join(["i32:16", "i32:16", "1"] * 4)
    signature = f"*fp16:16,*fp16:16,*fp16:16,fp32,*fp16:16,{strides},i32,64,128,64,0"
    r = run(f"{source}:_attn_fwd", "-s", signature, "--target", target, "--emit", "ptx",
            "--num-warps", "8", "--num-stages", "2", "--verbose")
    assert r.returncode == 0, r.stderr.decode()
    dots = [line for line in r.stderr.decode().splitlines() if line.startswith("dot at ")]
    assert len(dots) == 2, dots
    assert dots[0].endswith(f": {instruction}"), dots
    assert dots[1].endswith(f": {instruction}, A in registers"), dots


@cli
def test_an_older_chips_code_assembles_for_a_newer_chip(kernels):
    """cuda:sm_80:cubin=sm_90a: sm_80's PTX (mma.sync, no wgmma), which ptxas
    assembles for sm_90a, so that an H100 can run what an A100 would."""
    target = "cuda:sm_80:cubin=sm_90a"
    r = run(f"{kernels}:matmul", "-s", MATMUL_SIG, "--target", target, "--emit", "ptx", "--verbose")
    assert r.returncode == 0, r.stderr.decode()
    ptx, report = r.stdout.decode(), r.stderr.decode()
    assert ".target sm_80" in ptx and "mma.sync.aligned.m16n8k16" in ptx and "wgmma" not in ptx
    assert report.startswith(f"matmul for {target}")
    assert "for 'sm_90a'" in report, report
    r = run(f"{kernels}:matmul", "-s", MATMUL_SIG, "--target", "cuda:sm_90a:cubin=sm_100",
            "--emit", "cubin")
    assert r.returncode == 2
    assert ("bad GPU target 'cuda:sm_90a:cubin=sm_100': code for sm_90a cannot be assembled "
            "for sm_100") in r.stderr.decode()


@cli
def test_errors_name_the_source_line_and_the_target(kernels):
    r = run(f"{kernels}:printing", "-s", PRINT_SIG, "--target", "vulkan:1.3:subgroup=8", "--emit", "spv")
    assert r.returncode == 1
    first = r.stderr.decode().splitlines()[0]
    assert first.startswith(f"{kernels}:{print_line()}:")
    assert "cannot compile kernel 'printing' for vulkan:1.3:subgroup=8" in first
    assert "tile.print" in r.stderr.decode()
    assert r.stdout == b""


@cli
@pytest.mark.parametrize("args,message", [
    (["--target", "hip:gfx942", "--emit", "ptx"],
     "tessera compile: error: --emit ptx: not an output of hip:gfx942 (it emits tile, tgpu, gpu, amdgcn, hsaco)"),
    (["--emit", "cubin"],
     "tessera compile: error: --emit cubin: a GPU output, for --target cuda:sm_80|sm_86|sm_87|sm_89|sm_90|sm_90a|sm_100|sm_103|sm_120|sm_121[:cubin=CHIP], "
     "hip:gfx90a|gfx942|gfx1100, vulkan[:1.2|1.3][:subgroup=N] (for cpu: tile, mlir, llvm, asm, obj)"),
    (["--target", "cuda:sm_90a", "--emit", "obj"],
     "tessera compile: error: --emit obj: not an output of cuda:sm_90a (it emits tile, tgpu, gpu, ptx, cubin)"),
    (["--target", "cuda:sm_90a", "--num-warps", "3"],
     "tessera compile: error: --num-warps 3: a power of two is needed (1, 2, 4, 8, ...)"),
    (["--target", "vulkan", "--num-stages", "0"],
     "tessera compile: error: --num-stages 0: at least 1 is needed"),
    (["--num-warps", "8"], "tessera compile: error: --num-warps and --num-stages apply to GPU targets, not cpu"),
    (["--target", "vulkan", "--tma"],
     "tessera compile: error: --maxnreg, --no-fp-fusion and --tma apply to NVIDIA targets (cuda:...), "
     "not vulkan:1.3:subgroup=32:shared=32768"),
])
def test_usage_errors(kernels, args, message):
    r = run(f"{kernels}:add_kernel", "-s", ADD_SIG, *args)
    assert r.returncode == 2, r.stderr.decode()
    assert r.stderr.decode().strip() == message
    assert r.stdout == b""


@cli
def test_an_unknown_target_lists_the_accepted_ones(kernels):
    r = run(f"{kernels}:add_kernel", "-s", ADD_SIG, "--target", "cuda:sm_70")
    assert r.returncode == 2
    message = r.stderr.decode().strip()
    assert message.startswith("tessera compile: error: bad GPU target 'cuda:sm_70'")
    assert "cuda:sm_80|sm_86|sm_87|sm_89|sm_90|sm_90a|sm_100|sm_103|sm_120|sm_121" in message
    assert message.endswith("for the host CPU: --target cpu")


# --- the Python API ------------------------------------------------------------

def traced(kernels, name, signature):
    from tessera.compile import load_kernel
    return traced_kernel(load_kernel(f"{kernels}:{name}"), signature)


def traced_kernel(fn, signature):
    from tessera.compile import parse_signature
    values, plan = parse_signature(signature, fn.arg_names, fn.constexprs)
    return fn.compile_for(values, plan, "interpreter").module


def test_compile_gpu_returns_binary_assembly_and_usage(kernels):
    module = traced(kernels, "matmul", MATMUL_SIG)
    kernel = _C.compile_gpu(module, "matmul", "cuda:sm_80", num_warps=4, num_stages=2)
    assert kernel.kernel_name == "matmul"
    assert kernel.target == "cuda:sm_80"
    assert kernel.binary[:4] == b"\x7fELF"
    assert "mma.sync.aligned" in kernel.assembly
    assert kernel.block_threads == 128
    assert kernel.shared_bytes > 0  # the dot's operand buffers
    usage = kernel.usage
    assert set(usage) == {"registers", "scalar_registers", "smem", "spills", "spill_stores",
                          "spill_loads", "stack", "serialized_wgmma", "report"}
    assert usage["registers"] > 0
    assert usage["spills"] == 0
    assert "ptxas" in usage["report"]
    assert kernel.abi is None


def test_one_process_compiles_for_nvidia_and_amd_alike(kernels):
    """A context that compiled for one vendor gives the other vendor's passes
    its dialect interfaces: each pipeline takes only its own, so an AMD
    kernel after an NVIDIA one is the same code (it was a fatal LLVM error,
    "no libcall available for ftanh", that ended the process)."""
    script = textwrap.dedent(f"""
        import hashlib, sys
        sys.path.insert(0, {str(os.path.dirname(__file__))!r})
        from test_compile_gpu import traced
        from tessera import _C
        module = traced({str(kernels)!r}, "tanh_kernel", "*fp32:16, *fp32:16, i32, 64")
        for target in sys.argv[1:]:
            kernel = _C.compile_gpu(module, "tanh_kernel", target, num_warps=2, num_stages=2)
            print(target, hashlib.md5(kernel.assembly.encode()).hexdigest(), flush=True)
    """)

    def assemblies(*targets):
        r = subprocess.run([sys.executable, "-c", script, *targets], capture_output=True,
                           text=True, timeout=300)
        assert r.returncode == 0, r.stdout + r.stderr
        return [line.split() for line in r.stdout.splitlines()]

    mixed = assemblies("cuda:sm_90a", "hip:gfx942", "cuda:sm_90a", "hip:gfx942")
    assert mixed[0] == mixed[2] and mixed[1] == mixed[3], mixed
    assert assemblies("hip:gfx942") == [mixed[1]] and assemblies("cuda:sm_90a") == [mixed[0]]


@pytest.mark.parametrize("target", ["cuda:sm_80", "cuda:sm_90a"])
def test_acc_plus_equals_dot_compiles_as_a_dot_into_acc(kernels, target):
    """tile-combine-dot-add: `acc += tl.dot(a, b)` gives the code of
    `acc = tl.dot(a, b, acc)`. Before, a second 128x128 fp32 tile held each
    product and was added to acc every step: 255 registers and spills."""
    signature = "*fp16:16, *fp16:16, *fp32:16, i32:16, i32:16, i32:16, 128, 128, 64"
    built = {name: _C.compile_gpu(traced(kernels, name, signature), name, target, num_warps=4,
                                  num_stages=2)
             for name in ("matmul", "matmul_plus_equals")}
    assert built["matmul_plus_equals"].usage["spills"] == 0
    assert (built["matmul_plus_equals"].assembly.replace("matmul_plus_equals", "matmul")
            == built["matmul"].assembly)


@cli
@pytest.mark.parametrize("target,stages,carried", [
    ("vulkan:1.3", 2, True), ("vulkan:1.3", 3, True), ("vulkan:1.3", 1, False),
    ("vulkan:1.3", 0, False), ("cuda:sm_90a", 2, False), ("cuda:sm_80", 3, False)])
def test_tl_range_num_stages_prefetches_the_rows(kernels, target, stages, carried):
    """tl.range(..., num_stages=S) with S >= 2 marks the scf.for. Without
    cp.async, tile-gpu-prefetch-loads carries the next iteration's row into
    it; with it, the row is left in its iteration for the distribution to
    copy ahead into shared memory (test_tl_range_rows_read_back)."""
    r = run(f"{kernels}:row_loop", "-s", f"*fp32:16, *fp32:16, i32, 256, {stages}",
            "--target", target, "--emit", "tgpu")
    assert r.returncode == 0, r.stderr.decode()
    ir = r.stdout.decode()
    assert ("iter_args" in ir) == carried, ir
    assert (f"tile.num_stages = {stages}" in ir) == (stages > 0), ir


@cli
@pytest.mark.parametrize("stages", [2, 3, 4])
def test_tl_range_rows_read_back(kernels, stages):
    """On sm_80 and later the row of a loop without a dot that asks for S
    stages goes through a ring of S - 1 stages of shared memory, copied by
    cp.async S - 1 iterations ahead: what --verbose reports."""
    r = run(f"{kernels}:row_loop", "-s", f"*fp32:16, *fp32:16, i32, 256, {stages}",
            "--target", "cuda:sm_80", "--emit", "ptx", "--verbose")
    assert r.returncode == 0, r.stderr.decode()
    ahead = "1 iteration" if stages == 2 else f"{stages - 1} iterations"
    assert (f"{stages - 1} stages (num_stages {stages}), copies {ahead} ahead by cp.async "
            "(1 load read back into registers)") in r.stderr.decode()
    assert "cp.async.commit_group" in r.stdout.decode()


def test_tensor_maps_of_a_tma_kernel(kernels):
    """compile_gpu (TMA by default on sm_90a): the recipes of the tensor maps
    a launch encodes (parameter numbers of each descriptor's base, shape and
    outer strides); C's rows end on 16-byte chunks (its shape multiples of
    8), so it is stored through one. tma=False takes none."""
    module = traced(kernels, "matmul_descriptors",
                    MATMUL_DESCRIPTORS_SIG.replace("fp32[64, 64]>", "fp32[64, 64]>:8"))
    kernel = _C.compile_gpu(module, "matmul_descriptors", "cuda:sm_90a", num_warps=4, num_stages=3)
    assert kernel.tensor_maps == [
        dict(base=0, shape=[1, 2], strides=[3], element="f16", element_bytes=2, box=[32, 64],
             swizzle=64, nan_padding=False),
        dict(base=4, shape=[5, 6], strides=[7], element="f16", element_bytes=2, box=[64, 32],
             swizzle=128, nan_padding=False),
        dict(base=8, shape=[9, 10], strides=[11], element="f32", element_bytes=4, box=[32, 64],
             swizzle=128, nan_padding=False),
    ]
    assert kernel.usage["spills"] == 0
    untouched = _C.compile_gpu(module, "matmul_descriptors", "cuda:sm_90a", num_warps=4,
                               num_stages=3, tma=False)
    assert untouched.tensor_maps == []


def test_descriptors_made_in_the_kernel_from_arguments_get_tensor_maps(kernels):
    """Triton's device-side form, tl.make_tensor_descriptor(a_ptr, [M, K], [K, 1],
    ...): made of arguments alone, its maps are encoded at launch like a host
    descriptor's (the i32 strides sign-extended); none is built in the kernel.
    A and B are loaded through theirs, C's fp32 block stored through its own."""
    module = traced(kernels, "matmul_device_descriptors",
                    "*fp16:16, *fp16:16, *fp32:16, i32, i32:16, i32:16, 64, 64, 32")
    kernel = _C.compile_gpu(module, "matmul_device_descriptors", "cuda:sm_90a", num_warps=4,
                            num_stages=3, tma=True)
    assert [(m["base"], m["shape"], m["strides"]) for m in kernel.tensor_maps] == [
        (0, [3, 5], [5]), (1, [5, 4], [4]), (2, [3, 4], [4])]
    assert "cp.async.bulk.tensor.2d.shared::cluster.global" in kernel.assembly
    assert "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group" in kernel.assembly


def test_vulkan_kernels_carry_their_abi(kernels):
    module = traced(kernels, "add_kernel", ADD_SIG)
    kernel = _C.compile_gpu(module, "add_kernel", "vulkan:1.3:subgroup=8", num_warps=4, num_stages=2)
    abi = kernel.abi
    assert abi["params"] == [
        {"kind": "storage_buffer", "type": "f32", "bytes": 4, "binding": 0},
        {"kind": "storage_buffer", "type": "f32", "bytes": 4, "binding": 1},
        {"kind": "storage_buffer", "type": "f32", "bytes": 4, "binding": 2},
        {"kind": "push_constant", "type": "i32", "bytes": 4, "offset": 0},
    ]
    assert abi["push_constant_bytes"] == 4
    assert abi["workgroup_size"] == (32, 1, 1)
    assert "Shader" in abi["capabilities"]
    assert kernel.binary[:4] == (0x07230203).to_bytes(4, "little")


def test_emit_gpu_gives_text_or_bytes(kernels):
    module = traced(kernels, "add_kernel", ADD_SIG)
    assert isinstance(_C.emit_gpu(module, "add_kernel", "hip:gfx1100", "amdgcn"), str)
    assert _C.emit_gpu(module, "add_kernel", "hip:gfx1100", "hsaco")[:4] == b"\x7fELF"
    assert "gpu.module @add_kernel" in _C.emit_gpu(module, "add_kernel", "cuda:sm_80", "gpu")
    with pytest.raises(ValueError, match="'spv' is not an output of cuda:sm_80"):
        _C.emit_gpu(module, "add_kernel", "cuda:sm_80", "spv")
    with pytest.raises(ValueError, match="bad GPU target 'rocm'"):
        _C.emit_gpu(module, "add_kernel", "rocm", "gpu")
    with pytest.raises(ValueError, match="num_warps must be a power of two, got 6"):
        _C.compile_gpu(module, "add_kernel", "cuda:sm_80", num_warps=6)


@cli
def test_fp_fusion_and_register_cap_flags():
    axpy = f"{os.path.join(os.path.dirname(__file__), 'test_launch.py')}:axpy"
    fused = run(axpy, "-s", AXPY_SIG, "--target", "cuda:sm_90a", "--emit", "ptx")
    assert fused.returncode == 0, fused.stderr
    separate = run(axpy, "-s", AXPY_SIG, "--target", "cuda:sm_90a", "--emit", "ptx",
                   "--maxnreg", "32", "--no-fp-fusion")
    assert separate.returncode == 0, separate.stderr
    assert b"fma.rn.f32" in fused.stdout and b".maxnreg" not in fused.stdout
    assert b"fma.rn.f32" not in separate.stdout and b"mul.rn.f32" in separate.stdout
    assert b".maxnreg 32" in separate.stdout
    for args, message in [(["--target", "vulkan", "--maxnreg", "32"], "apply to NVIDIA targets"),
                          (["--no-fp-fusion"], "apply to NVIDIA targets (cuda:...), not cpu"),
                          (["--target", "cuda:sm_80", "--maxnreg", "0"], "1 to 255")]:
        r = run(axpy, "-s", AXPY_SIG, *args)
        assert r.returncode == 2 and message in r.stderr.decode(), r.stderr


def test_fp_fusion_and_register_cap_reach_the_ptx():
    # Triton's enable_fp_fusion (default on) and maxnreg, as the JIT passes them.
    from test_launch import axpy
    module = traced_kernel(axpy, AXPY_SIG)
    fused = _C.emit_gpu(module, "axpy", "cuda:sm_90a", "ptx")
    assert "fma.rn.f32" in fused and "mul.rn.f32" not in fused
    separate = _C.emit_gpu(module, "axpy", "cuda:sm_90a", "ptx", fp_fusion=False)
    assert "fma.rn.f32" not in separate
    assert "mul.rn.f32" in separate and "add.rn.f32" in separate
    capped = _C.compile_gpu(module, "axpy", "cuda:sm_90a", max_registers=32)
    assert ".maxnreg 32" in capped.assembly and capped.usage["registers"] <= 32


def test_compile_errors_are_compilation_errors_at_the_op(kernels):
    module = traced(kernels, "printing", PRINT_SIG)
    with pytest.raises(CompilationError) as info:
        _C.compile_gpu(module, "printing", "vulkan:1.3:subgroup=8")
    error = info.value
    assert error.file == str(kernels)
    assert error.line == print_line()
    assert "vulkan:1.3:subgroup=8" in error.message
    # A kernel that is not in the module: located at nothing better than the
    # module's kernel.
    with pytest.raises(CompilationError, match="no such kernel in the module"):
        _C.compile_gpu(module, "missing", "cuda:sm_80")


def fp8_dot_line():
    return KERNELS.splitlines().index(
        "        acc = tl.dot(a, b, acc, max_num_imprecise_acc=IMPRECISE)") + 1


@cli
@pytest.mark.parametrize("imprecise,dot", [
    (0, "wgmma.m64n128k32.e4m3"),
    (128, "wgmma.m64n128k32.e4m3"),  # a bound of K bounds nothing
    (64, "wgmma.m64n128k32.e4m3.promote64"),
])
def test_fp8_dot_runs_on_wgmma_promoting_as_max_num_imprecise_acc_asks(kernels, imprecise, dot):
    """fp8 (e4m3) operands on sm_90a: wgmma's .e4m3 form, and with
    max_num_imprecise_acc below K its sums promoted to f32 every that many
    products (runs of wgmmas added with add.f32)."""
    r = run(f"{kernels}:matmul_fp8", "-s", FP8_SIG.format(imprecise), "--target", "cuda:sm_90a",
            "--emit", "ptx", "--num-warps", "8", "--verbose")
    assert r.returncode == 0, r.stderr.decode()
    assert f"\ndot at {kernels}:{fp8_dot_line()}:15: {dot}\n" in r.stderr.decode()
    ptx = r.stdout.decode()
    assert "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3" in ptx
    assert ("add.f32" in ptx) == dot.endswith("promote64")


@cli
def test_fp8_dot_errors_name_the_dot(kernels):
    r = run(f"{kernels}:matmul_fp8", "-s", FP8_SIG.format(256), "--target", "cuda:sm_90a",
            "--emit", "ptx", "--num-warps", "8")
    assert r.returncode == 1
    error = r.stderr.decode()
    assert error.startswith(f"{kernels}:{fp8_dot_line()}:"), error
    assert "dot: max_num_imprecise_acc (256) must be at most K (128)" in error, error


@cli
def test_fp8_dot_widens_to_f16_before_ada(kernels):
    """sm_80 has no fp8 matrix instruction: the operands become f16 (exactly)
    and the f16 mma.sync multiplies them, as Triton does there."""
    r = run(f"{kernels}:matmul_fp8", "-s", FP8_SIG.format(0), "--target", "cuda:sm_80",
            "--emit", "ptx", "--num-warps", "8")
    assert r.returncode == 0, r.stderr.decode()
    ptx = r.stdout.decode()
    assert "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" in ptx, ptx
    assert "e4m3" not in ptx


@cli
@pytest.mark.parametrize("target,dot", [
    ("cuda:sm_80", "mma.sync.m16n8k16.f16"),
    ("cuda:sm_89", "mma.sync.m16n8k16.f16"),
    ("cuda:sm_90a", "wgmma.m64n64k32.e5m2.f16acc"),
])
def test_fp8_dot_into_f16(kernels, target, dot):
    """An f16 accumulator: wgmma's fp8 form on sm_90a; elsewhere the operands
    widen to f16 (mma.sync's fp8 form into f16 needs PTX ISA 8.7)."""
    r = run(f"{kernels}:dot_fp8_into_f16", "-s", "*fp8e5:16, *fp8e5:16, *fp16:16", "--target",
            target, "--emit", "ptx", "--verbose")
    assert r.returncode == 0, r.stderr.decode()
    assert f": {dot}\n" in r.stderr.decode(), r.stderr.decode()


@cli
@pytest.mark.parametrize("target", ["cuda:sm_80", "cuda:sm_89", "cuda:sm_90a"])
def test_fp8_dot_too_small_for_fp8_instructions_widens(kernels, target):
    """16 x 16 x 16 is below mma.sync's k32 of fp8 and wgmma's 64 rows: the
    dot multiplies the operands widened to f16, on every chip."""
    r = run(f"{kernels}:dot_fp8_small", "-s", "*fp8e4nv:16, *fp8e4nv:16, *fp32:16", "--target",
            target, "--emit", "ptx", "--num-warps", "1", "--verbose")
    assert r.returncode == 0, r.stderr.decode()
    assert ": mma.sync.m16n8k16.f16\n" in r.stderr.decode(), r.stderr.decode()


@cli
@pytest.mark.parametrize("kernel,grid", [("matmul_into_f16", ""),
                                         ("persistent_matmul_into_f16", ", 132")])
@pytest.mark.parametrize("operand,instruction", [
    ("fp16", "wgmma.mma_async.sync.aligned.m64n128k16.f16.f16.f16"),
    ("fp8e4nv", "wgmma.mma_async.sync.aligned.m64n128k32.f16.e4m3.e4m3"),
])
def test_f16_accumulators_run_on_wgmma_overlapped_with_the_next_dot(kernels, kernel, grid,
                                                                    operand, instruction):
    """A pipelined GEMM into f16 on sm_90a, one tile a program or persistent
    (the tile loop flattened with the K loop, the accumulator restarted in
    the epilogue's branch): wgmma with f16x2 accumulator registers, each dot
    left running while the next is issued (wait_group 1) and the pairs
    unpacked only after the last wait, so that ptxas does not serialize the
    wgmmas (C7514)."""
    signature = f"*{operand}:16, *{operand}:16, *fp16:16, i32, i32, i32:16, 128, 128, 64{grid}"
    r = run(f"{kernels}:{kernel}", "-s", signature, "--target", "cuda:sm_90a",
            "--num-stages", "3", "--emit", "ptx", "--verbose")
    assert r.returncode == 0, r.stderr.decode()
    ptx, report = r.stdout.decode(), r.stderr.decode()
    assert instruction in ptx
    assert ptx.count("wgmma.wait_group.sync.aligned 1;") == 1
    assert "C7514" not in report and ", 0 bytes spill stores" in report, report


@cli
def test_swapped_tf32_dot_loads_its_fragments_one_commit_group_at_a_time(kernels):
    """An fp32 GEMM with B given as [K, N] runs swapped on sm_90a, B's
    fragments in registers. At 128x128x64 on 4 warps each of the dot's 8 K
    steps is its own commit group, whose fragments are loaded after the wait
    for the group before the running one (7 such waits, 8 fences): two
    steps' fragments live, not two dots', and ptxas neither spills (it did,
    with the whole K tile's loaded first and the dot left running into the
    next iteration) nor serializes the wgmmas."""
    signature = "*fp32:16, *fp32:16, *fp32:16, i32, i32, i32:16, 128, 128, 64"
    r = run(f"{kernels}:matmul", "-s", signature, "--target", "cuda:sm_90a", "--num-warps", "4",
            "--num-stages", "4", "--emit", "ptx", "--verbose")
    assert r.returncode == 0, r.stderr.decode()
    ptx, report = r.stdout.decode(), r.stderr.decode()
    assert ": wgmma.m64n128k8.tf32.swapped\n" in report, report
    assert len(re.findall(r"wgmma\.wait_group\.sync\.aligned\s+1;", ptx)) == 8
    assert ptx.count("wgmma.fence.sync.aligned;") == 8
    assert "C7514" not in report and ", 0 bytes spill stores" in report, report


@cli
@pytest.mark.parametrize("target", ["cuda:sm_80", "cuda:sm_90a"])
def test_a_load_widened_before_the_dot_is_copied_ahead_and_read_back(kernels, target):
    """A weight-only int8 GEMM: B's load reaches the dot through its widening
    to f16, yet it is copied two iterations ahead by 16-byte cp.async and read
    back from shared memory in its iteration (ld.shared.v4), as A is copied;
    no global load is left in the loop, and no conversion instruction: the
    bytes are widened by permutes (tessera-nvvm-byte-to-float). A loop that also stores into
    another argument (partial sums into C) still reads B back; one that
    stores into B's keeps B's load in its iteration: copied ahead, it would
    pass the stores of earlier iterations."""
    def compile(stores):
        # Shapes divisible by 16: every 16-byte run is wholly in or out of
        # its mask, one cp.async with no element-wise fallback.
        signature = ("*fp16:16, *i8:16, *fp32:16, i32:16, i32:16, i32:16, 128, 128, 64, "
                     f"'{stores}'")
        r = run(f"{kernels}:weight_only_int8", "-s", signature, "--target", target,
                "--num-warps", "4", "--num-stages", "3", "--emit", "ptx", "--verbose")
        assert r.returncode == 0, r.stderr.decode()
        return r.stdout.decode(), r.stderr.decode()
    ptx, report = compile("none")
    assert "copies 2 iterations ahead by cp.async (1 load read back into registers)" in report
    assert "ld.global" not in ptx
    # A's 8 and B's 4 16-byte copies for each of the prologue's two
    # iterations and the loop's one; B's 64 bytes read back as 4 vectors.
    assert ptx.count("cp.async.cg.shared.global") == 36
    assert "ld.shared.v4.b32" in ptx
    # Widened without I2F (a quarter of the issue rate): each two bytes
    # permuted into halves 0x64XX (0x64646464 = 1684300900), less the bias
    # by one f16x2 subtraction; 64 bytes a thread an iteration.
    assert "cvt.rn.f16.s" not in ptx
    assert ptx.count(", 1684300900, ") == 32
    assert len(re.findall(r"(add|sub)(\.rn)?\.f16x2", ptx)) == 32
    assert "0 bytes spill stores" in report, report
    _, report = compile("partial sums")
    assert "(1 load read back into registers)" in report, report
    ptx, report = compile("weights")
    assert "by cp.async\n" in report and "read back" not in report, report
    assert "ld.global.v4" in ptx
    # Seven stages of A and int8 B besides the dot's f16 B (32 KB) exceed
    # sm_90a's shared memory at 128x256; seven of A alone do not: the loop
    # keeps its stages and reads nothing back (it was a compile error).
    if target == "cuda:sm_90a":
        signature = "*fp16:16, *i8:16, *fp32:16, i32:16, i32:16, i32:16, 128, 256, 64, 'none'"
        r = run(f"{kernels}:weight_only_int8", "-s", signature, "--target", target,
                "--num-warps", "8", "--num-stages", "7", "--emit", "ptx", "--verbose")
        assert r.returncode == 0, r.stderr.decode()
        assert "7 stages (num_stages 7), copies 6 iterations ahead by cp.async\n" in \
            r.stderr.decode(), r.stderr.decode()


@cli
@pytest.mark.parametrize("target", ["cuda:sm_80", "cuda:sm_90a"])
def test_the_persistent_tutorial_copies_its_blocks_16_bytes_at_a_time(kernels, target):
    """Triton's persistent tutorial flattens its tile loop and carries the
    tile's offsets through the K blocks. The carried offsets start from the
    first tile's (never read), so the contiguity analysis keeps their runs:
    both operands go in by 16-byte cp.async (B's went element by element
    when the carried offsets started from zeros)."""
    signature = ("*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, 1, "
                 "i32:16, 1, 128, 256, 64, 8, 132")
    r = run(f"{kernels}:tutorial_persistent", "-s", signature, "--target", target,
            "--num-warps", "8", "--num-stages", "3", "--emit", "ptx", "--verbose")
    assert r.returncode == 0, r.stderr.decode()
    ptx = r.stdout.decode()
    assert "ld.global" not in ptx
    assert re.search(r"cp\.async\.cg\.shared\.global \[[^]]*\], \[[^]]*\], 16", ptx)
    assert ", 0 bytes spill stores" in r.stderr.decode(), r.stderr.decode()


@cli
@pytest.mark.parametrize("target", ["cuda:sm_80", "cuda:sm_89", "cuda:sm_90a", "hip:gfx942",
                                    "vulkan"])
def test_fp8_from_and_to_integers(kernels, target):
    """Integers to fp8 and back, and fp8 arithmetic between: canonicalization
    folds truncf(sitofp) into an sitofp to fp8, which each target converts."""
    emit = {"cuda": "ptx", "hip": "amdgcn", "vulkan": "spirv"}[target.split(":")[0]]
    r = run(f"{kernels}:float8_integers", "-s", "*fp8e4nv:16, *i32:16, 128", "--target", target,
            "--emit", emit)
    assert r.returncode == 0, r.stderr.decode()


QUANTIZE_SIG = "*fp32:16, *fp8e4nv:16, *fp32:16, i32, 1024"


@cli
def test_fp8_conversions_use_the_cvt_of_sm_89_and_integer_arithmetic_before_it(kernels):
    """x.to(tl.float8e4nv) and back: cvt.rn.satfinite.e4m3x2.f32 and
    cvt.rn.f16x2.e4m3x2 from sm_89 on; on sm_80 integer arithmetic on the
    bits (tile-expand-float8-conversions), with the same rounding."""
    r = run(f"{kernels}:quantize", "-s", QUANTIZE_SIG, "--target", "cuda:sm_89", "--emit", "ptx")
    assert r.returncode == 0, r.stderr.decode()
    ptx = r.stdout.decode()
    assert "cvt.rn.satfinite.e4m3x2.f32" in ptx and "cvt.rn.f16x2.e4m3x2" in ptx, ptx
    r = run(f"{kernels}:quantize", "-s", QUANTIZE_SIG, "--target", "cuda:sm_80", "--emit", "ptx")
    assert r.returncode == 0, r.stderr.decode()
    ptx = r.stdout.decode()
    assert "e4m3" not in ptx and "cvt.rn.f32.u32" in ptx, ptx


@cli
@pytest.mark.parametrize("target,instruction", [
    ("cuda:sm_90a", "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e5m2"),
    ("cuda:sm_89", "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32"),
])
def test_fp8_dot_of_e4m3_and_e5m2_operands(kernels, target, instruction):
    """An e4m3 A times an e5m2 B (FP8 training's gradient GEMMs): one
    instruction names both types."""
    r = run(f"{kernels}:matmul_fp8", "-s", "*fp8e4nv:16, *fp8e5:16, *bf16:16, i32:16, 0",
            "--target", target, "--emit", "ptx", "--num-warps", "8")
    assert r.returncode == 0, r.stderr.decode()
    assert instruction in r.stdout.decode()


@cli
def test_without_ptxas_the_ptx_is_left_to_the_driver(kernels, tmp_path):
    """A machine with a driver but no CUDA toolkit: the kernel compiles to PTX
    alone, which the driver's JIT compiles at load (the JIT's launches take
    it); --verbose says so; a cubin cannot be written."""
    env = dict(os.environ, PATH=os.path.dirname(sys.executable) + ":/usr/bin:/bin",
               CUDA_HOME=str(tmp_path / "no-cuda"), TESSERA_CACHE="0")
    env.pop("TESSERA_PTXAS", None)
    if shutil.which("ptxas", path=env["PATH"]):
        pytest.skip("ptxas is on the system PATH")
    args = [CLI, "compile", f"{kernels}:add_kernel", "-s", ADD_SIG, "--target", "cuda:sm_90a"]
    r = subprocess.run(args + ["--emit", "ptx", "--verbose"], capture_output=True, env=env)
    assert r.returncode == 0, r.stderr.decode()
    assert ".entry add_kernel" in r.stdout.decode()
    assert "the driver's JIT compiles this PTX when it is loaded" in r.stderr.decode()
    assert "unknown registers" in r.stderr.decode()
    r = subprocess.run(args + ["--emit", "cubin", "-o", str(tmp_path / "k.cubin")],
                       capture_output=True, env=env)
    assert r.returncode == 1
    assert "cannot write a cubin: no ptxas" in r.stderr.decode()
    assert not (tmp_path / "k.cubin").exists()
