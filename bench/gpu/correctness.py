"""Tessera's GPU kernels checked on a GPU machine that cannot build Tessera.

The lent GPU machines have PyTorch and a driver but no LLVM 22, so `ctest -L
gpu` and `pytest -m gpu` (docs/gpu-nvidia.md) cannot run there. This script
compiles the kernels of correctness_kernels.py here, for every case below
(ragged sizes, several warps and pipeline depths), and checks them there
against NumPy on random inputs drawn there, with outputs poisoned first:

    python3 bench/gpu/correctness.py --export build/gpu-check      # here, no GPU needed
    python3 bench/gpu/correctness.py --aot build/gpu-check         # there

It prints one line per case and exits 1 if any result is wrong. The cases
marked untried (TMA's, written before any ran on a GPU) each run in a
process of their own with a time limit, reported HUNG where they exceed it.
"""

import argparse
import math
import os
import subprocess
import sys

import numpy as np
import torch

import aot
from run import error_summary, tessera_kernels, triton_cdiv

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "tests", "python"))
from random_reference import dropout_reference  # noqa: E402

KERNELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "correctness_kernels.py")

TORCH = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32,
         "i8": torch.int8, "i32": torch.int32, "fp8e4nv": torch.float8_e4m3fn,
         "fp8e5": torch.float8_e5m2}


class OnDevice:
    """Inputs drawn from a seeded generator on `device`, poisoned outputs, and
    the checks to run once the launches are done."""

    def __init__(self, seed, device="cuda"):
        self.rng = np.random.default_rng(seed)
        self.device = device
        self.checks = []

    def input(self, shape, dtype, low=-1.0, high=1.0):
        if dtype in ("i8", "i32"):
            values = self.rng.integers(int(low), int(high), shape)
        else:
            values = self.rng.uniform(low, high, shape)
        # float64 -> fp8 rounds through fp32 (PyTorch converts to fp8 from fp32).
        return torch.from_numpy(values).float().to(device=self.device, dtype=TORCH[dtype])

    def small_integers(self, shape, dtype, bound):
        """Integers in [-bound, bound] as `dtype` (exact in every float type)."""
        values = self.rng.integers(-bound, bound + 1, shape)
        return torch.from_numpy(values).float().to(device=self.device, dtype=TORCH[dtype])

    def int4_rows(self, rows, columns):
        """Integers in [-8, 7] (a [rows, columns] int64 tensor on the host, for
        the reference) and the same packed two to a byte along the rows, the
        even row in the low nibble ([rows // 2, columns] int8 on the device)."""
        values = torch.from_numpy(self.rng.integers(-8, 8, (rows, columns)))
        packed = ((values[0::2] & 0xF) | ((values[1::2] & 0xF) << 4)).to(torch.uint8)
        return values, packed.view(torch.int8).to(self.device)

    def powers_of_two(self, shape, dtype, low, high):
        """2^e for integers e in [low, high] as `dtype`."""
        values = np.exp2(self.rng.integers(low, high + 1, shape))
        return torch.from_numpy(values).float().to(device=self.device, dtype=TORCH[dtype])

    def wide_input(self, shape, dtype):
        """Values of either sign with magnitudes from 2^-22 to 2^20: both fp8
        types' subnormals, normal ranges and beyond."""
        magnitudes = self.rng.uniform(1.0, 2.0, shape) * np.exp2(self.rng.integers(-22, 20, shape))
        values = np.where(self.rng.integers(0, 2, shape) == 1, magnitudes, -magnitudes)
        return torch.from_numpy(values).float().to(device=self.device, dtype=TORCH[dtype])

    def output(self, shape, dtype):
        poison = -7 if dtype in ("i8", "i32") else float("nan")
        return torch.full(shape, poison, dtype=TORCH[dtype], device=self.device)

    def zeros(self, shape, dtype):
        return torch.zeros(shape, dtype=TORCH[dtype], device=self.device)

    def check(self, result, expected, rtol=0.0, atol=0.0):
        self.checks.append((result, expected, rtol, atol))

    def verdict(self):
        if self.device == "cuda":
            torch.cuda.synchronize()
        worst = 0.0
        for result, expected, rtol, atol in self.checks:
            got = result.double().cpu().numpy()
            want = np.asarray(expected(), dtype=np.float64)
            if got.shape != want.shape:
                return False, f"shape {got.shape} where the reference has {want.shape}"
            misplaced = np.argwhere(np.isfinite(got) != np.isfinite(want))
            if misplaced.size:
                return False, (f"NaN/inf differ from the reference at {len(misplaced)} places, "
                               f"indices {misplaced.min(axis=0).tolist()} to "
                               f"{misplaced.max(axis=0).tolist()}")
            error = np.abs(got - want)
            if not np.all(error <= atol + rtol * np.abs(want)):
                return False, f"max abs error {error.max():.3g} (atol {atol:g}, rtol {rtol:g})"
            worst = max(worst, float(error.max()) if error.size else 0.0)
        return True, f"max abs error {worst:.3g}"


class ForExport:
    """Stands in for OnDevice at export: shapes and types only."""

    def input(self, shape, dtype, low=-1.0, high=1.0):
        return aot.TensorSpec(tuple(shape), TORCH[dtype])

    output = zeros = input

    def wide_input(self, shape, dtype):
        return self.input(shape, dtype)

    def small_integers(self, shape, dtype, bound):
        return self.input(shape, dtype)

    def powers_of_two(self, shape, dtype, low, high):
        return self.input(shape, dtype)

    def int4_rows(self, rows, columns):
        return None, self.input((rows // 2, columns), "i8")

    def check(self, *args, **kwargs):
        pass


class Case:
    """A check of one kernel. An `untried` one (TMA's, fp8's, wgmma's f16
    accumulators: written before any ran on a GPU) runs on a GPU in a process of its own with a time
    limit: a copy that never completes its mbarrier hangs the kernel, an
    instruction the device rejects loses the context, and the cases after it
    must still run."""

    def __init__(self, name, launch, on_cpu=True, untried=False):
        self.name, self.launch, self.on_cpu, self.untried = name, launch, on_cpu, untried


def host(tensor):
    return tensor.double().cpu().numpy()


# A GEMM's tolerance against float64: its products exact (16-bit or fp32
# operands with ieee products) and summed in fp32, or rounded somewhere: tf32
# keeps 10 mantissa bits of each operand (tl.dot's default for fp32), a 16-bit
# result 8 (bf16) or 11 (fp16) significant bits.
EXACT_PRODUCTS = dict(rtol=1e-4, atol=1e-3)
ROUNDED = dict(rtol=1e-2, atol=2e-2)


def matmul_case(dtype, layout, warps, stages, size=(150, 136, 200), block=(64, 64, 32),
                precision="ieee", on_cpu=True, out=None, untried=False, driver_jit=False):
    """C = A @ B, written as `out` (default: the fp32 or i32 accumulator; a
    16-bit `out` goes through the epilogue's stmatrix stores on sm_90). With
    `driver_jit` its PTX is exported instead of its cubin, and the driver's
    JIT compiles it at load, as where Tessera finds no ptxas (the launch
    option exists only for the export: such a case runs on GPUs alone)."""
    M, N, K = size
    BM, BN, BK = block

    bound = 8 if dtype == "i8" else 1

    def run(kernels, on):
        a = on.input((M, K), dtype, -bound, bound)
        if layout == "nt":  # B the transpose of a row-major [N, K]
            b = on.input((N, K), dtype, -bound, bound).t()
        else:
            b = on.input((K, N), dtype, -bound, bound)
        out_type = out or ("i32" if dtype == "i8" else "fp32")
        c = on.output((M, N), out_type)
        kernels.matmul[(triton_cdiv(M, BM), triton_cdiv(N, BN))](
            a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
            c.stride(1), BM=BM, BN=BN, BK=BK, PRECISION=precision,
            ACC="i32" if dtype == "i8" else "fp32", num_warps=warps, num_stages=stages,
            **({"driver_jit": True} if driver_jit else {}))
        # fp8 products are exact in fp32, but wgmma sums them at less than
        # fp32's precision.
        rounded = precision == "tf32" or out or dtype.startswith("fp8")
        tol = ROUNDED if rounded else EXACT_PRODUCTS
        on.check(c, lambda: host(a) @ host(b), **(tol if dtype != "i8" else {}))
    return Case(f"matmul {dtype} {layout} {M}x{N}x{K} tile {BM}x{BN}x{BK} {precision} "
                f"warps={warps} stages={stages}" + (f" -> {out}" if out else "")
                + (" through the driver's JIT (PTX)" if driver_jit else ""), run,
                on_cpu and not driver_jit, untried or driver_jit)


def tutorial_matmul_case(dtype, warps, stages, size, block, group=8, on_cpu=True):
    """Triton's tutorial GEMM without tl.assume (tutorial_matmul), fp32 C."""
    M, N, K = size
    BM, BN, BK = block

    def run(kernels, on):
        a = on.input((M, K), dtype)
        b = on.input((K, N), dtype)
        c = on.output((M, N), "fp32")
        kernels.tutorial_matmul[(triton_cdiv(M, BM) * triton_cdiv(N, BN),)](
            a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
            c.stride(1), BM=BM, BN=BN, BK=BK, GROUP_M=group, num_warps=warps,
            num_stages=stages)
        on.check(c, lambda: host(a) @ host(b), **EXACT_PRODUCTS)
    return Case(f"tutorial matmul {dtype} {M}x{N}x{K} tile {BM}x{BN}x{BK} group {group} "
                f"warps={warps} stages={stages}", run, on_cpu)


def wrapped_columns_case(n=48, first_block=-3, programs=6, block=128):
    """Columns from first_block * block on, modulo n (a multiple of 16):
    the negative ones wrap inside runs of a vector's width."""
    def run(kernels, on):
        x = on.input((2 * n,), "fp32")
        out = on.output((programs * block,), "fp32")
        kernels.wrapped_columns[(programs,)](x, out, first_block, n, BLOCK=block)

        def reference():
            cols = first_block * block + np.arange(programs * block)
            return host(x)[n + np.fmod(cols, n)]
        on.check(out, reference, rtol=0, atol=0)
    return Case(f"columns {first_block * block}.. modulo {n}", run)


def wrapped_columns_sum_case(n=48, first_block=-3, programs=6, block=512, rows=5):
    """wrapped_columns_case's columns summed over `rows` rows in a loop: the
    programs before column 0 run the version that checks each run's
    endpoints, the others the one whose runs are proved (each thread of 4
    warps holds runs of a 512-column block)."""
    def run(kernels, on):
        x = on.input((rows, 2 * n), "fp32")
        out = on.output((programs * block,), "fp32")
        kernels.wrapped_columns_sum[(programs,)](x, out, first_block, n, rows, BLOCK=block)

        def reference():
            cols = first_block * block + np.arange(programs * block)
            return host(x)[:, n + np.fmod(cols, n)].sum(axis=0)
        on.check(out, reference, rtol=1e-6, atol=1e-5)  # fp32 sums of 5 values below 1
    return Case(f"columns {first_block * block}.. modulo {n} summed over {rows} rows in a loop",
                run)


def persistent_layernorm_case(dtype, warps, rows_per_block, stages, programs=7, n_rows=301,
                              n_cols=1000, block=1024):
    """layernorm on `programs` programs that walk blocks of rows in a loop
    asking for `stages` stages (its rows copied ahead into shared memory on
    sm_80 and later): the programs take unequal numbers of blocks, the last
    block is ragged, and so is every row (n_cols < BLOCK)."""
    def run(kernels, on):
        x = on.input((n_rows, n_cols), dtype, -3.0, 3.0)
        w = on.input((n_cols,), dtype)
        b = on.input((n_cols,), dtype)
        y = on.output((n_rows, n_cols), dtype)
        kernels.persistent_layernorm[(programs,)](
            x, y, w, b, n_rows, n_cols, 1e-5, BLOCK=block, ROWS=rows_per_block, STAGES=stages,
            num_warps=warps)

        def reference():
            rows = host(x)
            centered = rows - rows.mean(axis=1, keepdims=True)
            rstd = 1.0 / np.sqrt((centered * centered).mean(axis=1, keepdims=True) + 1e-5)
            return centered * rstd * host(w) + host(b)
        tolerance = 1e-4 if dtype == "fp32" else 1e-2
        on.check(y, reference, rtol=tolerance, atol=tolerance)
    return Case(f"persistent layernorm {dtype} {n_rows}x{n_cols} {rows_per_block} rows a block "
                f"on {programs} programs warps={warps} loop stages={stages}", run)


def f16_accumulator_case(dtype, layout, warps, stages, size, block, untried=False):
    """C = A @ B accumulated in f16. The operands are integers in [-2, 2]
    and K at most 256, so that every partial sum is an integer below 2048:
    exact in f16 whatever order the instruction adds in."""
    M, N, K = size
    BM, BN, BK = block
    assert K <= 256

    def run(kernels, on):
        a = on.small_integers((M, K), dtype, 2)
        if layout == "nt":
            b = on.small_integers((N, K), dtype, 2).t()
        else:
            b = on.small_integers((K, N), dtype, 2)
        c = on.output((M, N), "fp16")
        kernels.matmul[(triton_cdiv(M, BM), triton_cdiv(N, BN))](
            a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
            c.stride(1), BM=BM, BN=BN, BK=BK, PRECISION="ieee", ACC="fp16", num_warps=warps,
            num_stages=stages)
        on.check(c, lambda: host(a) @ host(b))
    return Case(f"matmul {dtype} {layout} {M}x{N}x{K} tile {BM}x{BN}x{BK} into f16 "
                f"warps={warps} stages={stages}", run, untried=untried)


def weight_only_case(dtype, weight, warps, stages, size=(150, 136, 200), block=(64, 64, 64),
                     on_cpu=True, untried=False):
    """C = A @ (B * scale) with B int8 or fp8, widened in the loop. B's values
    are integers in [-8, 8] and the scales powers of two, so that every
    widened and scaled element is exact in `dtype`, and so every product."""
    M, N, K = size
    BM, BN, BK = block

    def run(kernels, on):
        a = on.input((M, K), dtype)
        b = on.small_integers((K, N), weight, 8)
        scale = on.powers_of_two((N,), dtype, -2, 2)
        c = on.output((M, N), "fp32")
        kernels.weight_only_matmul[(triton_cdiv(M, BM), triton_cdiv(N, BN))](
            a, b, scale, c, M, N, K, BM=BM, BN=BN, BK=BK, num_warps=warps, num_stages=stages)
        on.check(c, lambda: host(a) @ (host(b) * host(scale)[None, :]), **EXACT_PRODUCTS)
    return Case(f"weight-only matmul {dtype} x {weight} {M}x{N}x{K} tile {BM}x{BN}x{BK} "
                f"warps={warps} stages={stages}", run, on_cpu, untried)


def int4_weight_case(dtype, warps, stages, size=(150, 136, 192), block=(64, 64, 64),
                     on_cpu=True, untried=False):
    """C = A @ (B * scale) with B int4 packed two to a byte along K (K even),
    unpacked in the loop; B's values in [-8, 7] and the scales powers of two
    keep every product exact."""
    M, N, K = size
    BM, BN, BK = block
    assert K % 2 == 0

    def run(kernels, on):
        a = on.input((M, K), dtype)
        b, packed = on.int4_rows(K, N)
        scale = on.powers_of_two((N,), dtype, -2, 2)
        c = on.output((M, N), "fp32")
        kernels.int4_weight_matmul[(triton_cdiv(M, BM), triton_cdiv(N, BN))](
            a, packed, scale, c, M, N, K, BM=BM, BN=BN, BK=BK, num_warps=warps,
            num_stages=stages)
        on.check(c, lambda: host(a) @ host(b) * host(scale)[None, :], **EXACT_PRODUCTS)
    return Case(f"int4-weight matmul {dtype} {M}x{N}x{K} tile {BM}x{BN}x{BK} warps={warps} "
                f"stages={stages}", run, on_cpu, untried)


def persistent_matmul_case(dtype, layout, warps, stages, size, block, programs, out="fp32",
                           on_cpu=True):
    """C = A @ B by `programs` programs, each walking several output tiles
    with the K loop flattened into the walk."""
    M, N, K = size
    BM, BN, BK = block

    def run(kernels, on):
        a = on.input((M, K), dtype)
        b = on.input((N, K), dtype).t() if layout == "nt" else on.input((K, N), dtype)
        c = on.output((M, N), out)
        kernels.matmul_persistent[(programs,)](
            a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
            c.stride(1), BM=BM, BN=BN, BK=BK, num_warps=warps, num_stages=stages)
        exact = out == "fp32" and dtype != "fp32"
        on.check(c, lambda: host(a) @ host(b), **(EXACT_PRODUCTS if exact else ROUNDED))
    return Case(f"persistent matmul {dtype} {layout} {M}x{N}x{K} tile {BM}x{BN}x{BK} "
                f"programs={programs} warps={warps} stages={stages} -> {out}", run, on_cpu)


def chained_dots_case(warps, rows, block, width, on_cpu=True):
    """(A @ B).to(fp16) @ C, A [rows, width] in blocks of `block` rows (the
    last one masked), B and C [width, width]: the first dot starts from
    zeros (wgmma's scale-d = 0), and the two keep each row within one warp
    on mma.sync (warps along M)."""
    def run(kernels, on):
        a = on.input((rows, width), "fp16")
        b = on.input((width, width), "fp16")
        c = on.input((width, width), "fp16")
        out = on.output((rows, width), "fp32")
        kernels.chained_dots[(triton_cdiv(rows, block),)](a, b, c, out, rows, BM=block, D=width,
                                                          num_warps=warps)
        # The intermediate rounds to fp16 from fp32 sums on the device, from
        # float64 here: one fp16 ulp apart in a few places.
        on.check(out, lambda: (host(a) @ host(b)).astype(np.float16).astype(np.float64) @ host(c),
                 **ROUNDED)
    return Case(f"chained dots fp16 {rows}x{width} blocks of {block} rows warps={warps}", run,
                on_cpu)


def reduce_case(op, axis, warps, shape=(29, 100), block=(32, 128)):
    M, N = shape

    def run(kernels, on):
        x = on.input(shape, "fp32", -10, 10)
        out_shape = shape if op == "cumsum" else (shape[1 - axis],)
        out = on.output(out_shape, "i32" if op == "argmax" else "fp32")
        kernels.reduce[(1,)](x, out, M, N, OP=op, AXIS=axis, BM=block[0], BN=block[1],
                             num_warps=warps)
        numpy_op = {"sum": np.sum, "max": np.max, "argmax": np.argmax,
                    "cumsum": np.cumsum}[op]
        on.check(out, lambda: numpy_op(host(x), axis=axis), rtol=1e-5, atol=1e-3)
    return Case(f"reduce {op} axis={axis} {M}x{N} warps={warps}", run)


def unary_case(op, n=1000, block=256):
    def run(kernels, on):
        low, high = (0.1, 10.0) if op in ("log", "sqrt", "rsqrt", "div", "div_rn") else (-4.0, 4.0)
        x = on.input((n,), "fp32", low, high)
        out = on.output((n,), "fp32")
        kernels.unary[(triton_cdiv(n, block),)](x, out, n, OP=op, BLOCK=block)
        reference = {"exp": np.exp, "exp2": np.exp2, "log": np.log, "sqrt": np.sqrt,
                     "rsqrt": lambda v: 1 / np.sqrt(v), "sin": np.sin,
                     "erf": np.vectorize(math.erf), "sigmoid": lambda v: 1 / (1 + np.exp(-v)),
                     "div": lambda v: 1 / v, "div_rn": lambda v: 1 / v}[op]
        # exp, exp2, / and sigmoid are the fast approximations Triton also
        # uses (ex2.approx, div.full); div_rn must be correctly rounded. sin
        # crosses zero at +-pi, where reducing the argument by a single-precision
        # pi leaves an absolute error of about half an ulp of pi (1.2e-7, the CPU
        # backend's), so only an absolute bound holds there.
        rtol = 1e-7 if op == "div_rn" else 2e-6
        atol = 2.5e-7 if op == "sin" else 1e-7
        on.check(out, lambda: reference(host(x)).astype(np.float32), rtol=rtol, atol=atol)
    return Case(f"unary {op} n={n}", run)


def float8_case(dtype, n=1000, block=256):
    """fp32 rounded to fp8 (cvt of sm_89 and later; integer arithmetic on the
    CPU), doubled in fp8 (in fp32, rounded once) and widened back, bit for bit
    against PyTorch's rounding of the same values clamped to the type's range
    (Tessera saturates there; PyTorch's cast makes e4m3's overflow NaN)."""
    largest = 448.0 if dtype == "fp8e4nv" else 57344.0
    saturated = lambda values: host(values.cpu().clamp(-largest, largest).to(TORCH[dtype]))

    def run(kernels, on):
        x = on.wide_input((n,), "fp32")
        q, doubled = on.output((n,), dtype), on.output((n,), dtype)
        back = on.output((n,), "fp32")
        kernels.float8_round_trip[(triton_cdiv(n, block),)](x, q, doubled, back, n, BLOCK=block)
        on.check(q, lambda: saturated(x))
        on.check(back, lambda: saturated(x))
        on.check(doubled, lambda: saturated(2 * torch.from_numpy(saturated(x)).float()))
    return Case(f"float8 {dtype} round trip n={n}", run, untried=True)


def libdevice_case(op, n=1000, block=128):
    """A libdevice function, called as Triton's tl.extra.cuda.libdevice: NVIDIA
    links libdevice itself, within a few ulp; lgamma, erfinv and the Bessel
    function have no math op, so the CPU backend cannot check them."""
    domain = {"exp": (-10, 10), "tanh": (-4, 4), "lgamma": (0.1, 10), "erfinv": (-0.99, 0.99),
              "cyl_bessel_i0": (-5, 5), "atan2": (-3, 3)}[op]

    def run(kernels, on):
        x = on.input((n,), "fp32", *domain)
        out = on.output((n,), "fp32")
        kernels.libdevice_call[(triton_cdiv(n, block),)](x, out, n, OP=op, BLOCK=block)
        reference = {"exp": np.exp, "tanh": np.tanh,
                     "lgamma": lambda v: torch.lgamma(torch.from_numpy(v)).numpy(),
                     "erfinv": lambda v: torch.special.erfinv(torch.from_numpy(v)).numpy(),
                     "cyl_bessel_i0": lambda v: torch.special.i0(torch.from_numpy(v)).numpy(),
                     "atan2": lambda v: np.arctan2(v, 1.0 - v)}[op]
        # libdevice is within a few ulp; the CPU backend computes atan2 with its
        # polynomial (1e-5). lgamma crosses zero at 1 and 2, where only an
        # absolute bound holds.
        rtol = 2e-6 if getattr(on, "device", "cuda") == "cuda" else 1e-5
        on.check(out, lambda: reference(host(x)), rtol=rtol, atol=2e-6 if op == "lgamma" else 1e-7)
    return Case(f"libdevice {op} n={n}", run,
                on_cpu=op not in ("lgamma", "erfinv", "cyl_bessel_i0"))


def inline_asm_case(n=1000, block=128):
    """PTX through tl.inline_asm_elementwise: tanh.approx.f32 on each f32
    (within 2^-10.7 relative, PTX's bound), mul.rn.f16x2 on pairs of halves."""
    def run(kernels, on):
        x = on.input((n,), "fp32", -4, 4)
        h = on.input((n,), "fp16", -4, 4)
        out, hout = on.output((n,), "fp32"), on.output((n,), "fp16")
        kernels.inline_asm[(triton_cdiv(n, block),)](x, out, h, hout, n, BLOCK=block)
        on.check(out, lambda: np.tanh(host(x)), rtol=1e-3, atol=1e-6)
        on.check(hout, lambda: (host(h) * host(h)).astype(np.float16), rtol=1e-3)
    return Case(f"inline asm tanh.approx.f32, mul.rn.f16x2 n={n}", run, on_cpu=False)


def integer_case(n=1000, block=128):
    def run(kernels, on):
        x = on.input((n,), "i32", -1000, 1000)
        y = on.input((n,), "i32", 1, 50)
        div, mod = on.output((n,), "i32"), on.output((n,), "i32")
        kernels.integer_ops[(triton_cdiv(n, block),)](x, y, div, mod, n, BLOCK=block)
        # Triton's // and % truncate toward zero, as C does.
        on.check(div, lambda: np.trunc(host(x) / host(y)))
        on.check(mod, lambda: np.fmod(host(x), host(y)))
    return Case(f"integer // and % n={n}", run)


def dropout_case(n=5000, block=1024, p=0.3, seed=-123456789):
    """Triton's tutorial 04: Philox's words (mul.hi.u32 on NVIDIA GPUs) from
    a negative seed, whose high word is all ones, bit for bit."""
    def run(kernels, on):
        x = on.input((n,), "fp32", 1.0, 3.0)
        out = on.output((n,), "fp32")
        kernels.seeded_dropout[(triton_cdiv(n, block),)](x, out, n, p, seed, BLOCK=block)

        on.check(out, lambda: dropout_reference(host(x).astype(np.float32), p, seed)[1],
                 rtol=1e-6)
    return Case(f"seeded dropout (tl.rand) n={n}", run)


def sort_case(dtype, rows=5, n=1024, k=16, warps=4):
    """tl.sort and tl.topk: bitonic exchanges within registers, across lanes
    (shuffles) and across warps (shared memory)."""
    def run(kernels, on):
        x = on.input((rows, n), dtype, -100.0, 100.0)
        ordered, top = on.output((rows, n), dtype), on.output((rows, k), dtype)
        kernels.sort_rows[(rows,)](x, ordered, top, N=n, K=k, num_warps=warps)
        on.check(ordered, lambda: -np.sort(-host(x), axis=1))
        on.check(top, lambda: -np.sort(-host(x), axis=1)[:, :k])
    return Case(f"sort and topk {dtype} {rows}x{n} k={k} warps={warps}", run)


def histogram_case(n=5000, block=256):
    def run(kernels, on):
        x = on.input((n,), "i32", 0, 16)
        hist, total = on.zeros((16,), "i32"), on.zeros((1,), "fp32")
        kernels.histogram[(triton_cdiv(n, block),)](x, hist, total, n, BLOCK=block)
        on.check(hist, lambda: np.bincount(host(x).astype(np.int64), minlength=16))
        on.check(total, lambda: [host(x).sum()], rtol=1e-6)
    return Case(f"atomic_add histogram and float sum n={n}", run)


def gather_histogram_case(rows=32, columns=64, picks=32, bins=64, warps=4):
    """tl.gather along rows (the source through shared memory, the result in
    the indices' layout) and tl.histogram of the indices, some masked off
    (workgroup atomics)."""
    n = rows * picks - 37

    def run(kernels, on):
        src = on.input((rows, columns), "fp32", -100.0, 100.0)
        index = on.input((rows, picks), "i32", 0, columns)
        picked, counts = on.output((rows, picks), "fp32"), on.output((bins,), "i32")
        kernels.gather_and_count[(1,)](src, index, picked, n, counts, R=rows, C=columns,
                                       K=picks, BINS=bins, num_warps=warps)
        on.check(picked, lambda: np.take_along_axis(host(src), host(index).astype(np.int64), 1))
        on.check(counts, lambda: np.bincount(host(index).astype(np.int64).ravel()[:n],
                                             minlength=bins))
    return Case(f"gather {rows}x{columns} -> {rows}x{picks}, histogram of {n} in {bins} bins",
                run)


def transpose_case(dtype, shape=(100, 70), block=(32, 64), warps=4):
    M, N = shape

    def run(kernels, on):
        x = on.input(shape, dtype, -100, 100)
        out = on.output((N, M), dtype)
        kernels.transpose[(triton_cdiv(M, block[0]), triton_cdiv(N, block[1]))](
            x, out, M, N, BM=block[0], BN=block[1], num_warps=warps)
        on.check(out, lambda: host(x).T)
    return Case(f"trans {dtype} {M}x{N}", run)


def descriptor_case(shape=(96, 64), block=(32, 16), tma=False):
    """x's blocks written transposed and doubled through descriptors made in
    the kernel, into rows padded to 16 bytes whose padding must stay zero.
    With `tma` the stores are TMA's (the loads, outside a pipelined loop,
    stay element-wise), so that a failure here and not in the TMA GEMMs
    points at the stores; blocks reaching past M and N are clipped there."""
    M, N = shape

    def run(kernels, on):
        x = on.input(shape, "fp32")
        out = on.zeros((N, padded(M, 4)), "fp32")
        kernels.descriptor_copy[(triton_cdiv(M, block[0]), triton_cdiv(N, block[1]))](
            x, out, M, N, out.shape[1], BM=block[0], BN=block[1], tma=tma)

        def expected():
            result = np.zeros((N, padded(M, 4)))
            result[:, :M] = host(x).T * 2
            return result
        on.check(out, expected)
    return Case(f"tensor descriptor {M}x{N} block {block[0]}x{block[1]}"
                f"{' tma' if tma else ''}", run, untried=tma)


def padded(columns, element_bytes):
    """Columns of a row padded to a multiple of 16 bytes, as the outer stride
    of a TensorDescriptor must be."""
    per_row = 16 // element_bytes
    return -(-columns // per_row) * per_row


def descriptor_matmul_case(layout, warps, stages, size=(150, 137, 203), block=(64, 64, 32),
                           tma=False, on_cpu=True, padding="zero", warp_specialize=False,
                           programs=None, dtype="bf16", halves=False):
    """C = A @ B through host TensorDescriptors over rows padded to 16 bytes:
    K = 203 and N = 137 leave runs partly inside the shape (copied with
    cp.async's source size on NVIDIA, or with `tma` filled by TMA, issued
    from a producer warpgroup of its own with `warp_specialize`) and the padding,
    random here, must not be read. A and B padded with NaN need K a multiple
    of the block: the NaN rows and columns then reach only outputs past M and
    N, which the store drops. With `programs`, that many programs walk the
    tiles in the persistent form (its tile loop flattened with the K loop),
    with `halves` storing each tile as two halves of its columns.
    An fp32 `dtype` multiplies in tf32 (tl.dot's default)."""
    flags = {"tma": tma, "warp_specialize": warp_specialize}
    element_bytes = 4 if dtype == "fp32" else 2
    M, N, K = size
    BM, BN, BK = block

    def run(kernels, on):
        describe = lambda x, rows, cols, block, pad="zero": kernels.TensorDescriptor(
            x, [rows, cols], [x.shape[1], 1], block, pad)
        a = on.input((M, padded(K, element_bytes)), dtype)
        if layout == "nt":  # B given as the [N, K] tensor it transposes
            b = on.input((N, padded(K, element_bytes)), dtype)
            b_desc = describe(b, N, K, [BN, BK], padding)
        else:
            b = on.input((K, padded(N, element_bytes)), dtype)
            b_desc = describe(b, K, N, [BK, BN], padding)
        c = on.zeros((M, padded(N, 4)), "fp32")
        descriptors = (describe(a, M, K, [BM, BK], padding), b_desc,
                       describe(c, M, N, [BM, BN // 2 if halves else BN]))
        options = dict(B_ROWS_ARE_N=layout == "nt", BM=BM, BN=BN, BK=BK, num_warps=warps,
                       num_stages=stages, **flags)
        if programs:
            kernel = (kernels.descriptor_matmul_persistent_halves if halves
                      else kernels.descriptor_matmul_persistent)
            kernel[(programs,)](*descriptors, M, N, K, PROGRAMS=programs, **options)
        else:
            kernels.descriptor_matmul[(triton_cdiv(M, BM), triton_cdiv(N, BN))](
                *descriptors, K, **options)

        def expected():
            bk = host(b)[:, :K].T if layout == "nt" else host(b)[:, :N]
            result = np.zeros((M, padded(N, 4)))
            result[:, :N] = host(a)[:, :K] @ bk
            return result
        on.check(c, expected, **(ROUNDED if dtype == "fp32" else EXACT_PRODUCTS))
    return Case(f"{f'persistent ({programs} programs) ' if programs else ''}"
                f"descriptor matmul {dtype} {layout} {M}x{N}x{K} tile {BM}x{BN}x{BK} "
                f"warps={warps} stages={stages}{' tma' if tma else ''}"
                f"{' warp_specialize' if warp_specialize else ''}"
                f"{' nan padding' if padding == 'nan' else ''}{' in halves' if halves else ''}",
                run, on_cpu=on_cpu, untried=tma)


def attention_case(warps, stages, block, tma, rows=200, keys=300, width=64, on_cpu=True):
    """Flash attention's forward loop on host descriptors (Q [rows, width],
    K and V [keys, width] fp16, O fp32): the last block of keys reaches past
    `keys` (zero-filled, masked to -inf), the last block of rows past `rows`.
    scale is log2(e) / sqrt(width), the kernel's exponentials base 2."""
    BM, BN = block
    scale = 1.4426950408889634 / np.sqrt(width)

    def run(kernels, on):
        describe = lambda x, block: kernels.TensorDescriptor(x, list(x.shape), [width, 1], block)
        q = on.input((rows, width), "fp16")
        k = on.input((keys, width), "fp16")
        v = on.input((keys, width), "fp16")
        out = on.output((rows, width), "fp32")
        kernels.attention_descriptors[(triton_cdiv(rows, BM),)](
            describe(q, [BM, width]), describe(k, [BN, width]), describe(v, [BN, width]),
            describe(out, [BM, width]), keys, scale, BM=BM, BN=BN, D=width, num_warps=warps,
            num_stages=stages, tma=tma)

        def expected():
            logits = host(q) @ host(k).T / np.sqrt(width)
            weights = np.exp(logits - logits.max(axis=1, keepdims=True))
            return (weights / weights.sum(axis=1, keepdims=True)) @ host(v)
        on.check(out, expected, rtol=1e-2, atol=1e-2)
    return Case(f"attention fp16 {rows}x{keys}x{width} tile {BM}x{BN} warps={warps} "
                f"stages={stages}{' tma' if tma else ''}", run, on_cpu, untried=tma)


def device_descriptor_matmul_case(size=(150, 137, 203), block=(64, 64, 32)):
    """C = A @ B on descriptors made in the kernel from its arguments (i32
    row strides over rows padded to 16 bytes), copied with TMA on sm_90."""
    M, N, K = size
    BM, BN, BK = block

    def run(kernels, on):
        a = on.input((M, padded(K, 2)), "bf16")
        b = on.input((K, padded(N, 2)), "bf16")
        c = on.zeros((M, padded(N, 4)), "fp32")
        kernels.device_descriptor_matmul[(triton_cdiv(M, BM), triton_cdiv(N, BN))](
            a, b, c, M, N, K, a.shape[1], b.shape[1], c.shape[1], BM=BM, BN=BN, BK=BK,
            num_warps=4, num_stages=3, tma=True)

        def expected():
            result = np.zeros((M, padded(N, 4)))
            result[:, :N] = host(a)[:, :K] @ host(b)[:, :N]
            return result
        on.check(c, expected, **EXACT_PRODUCTS)
    return Case(f"device descriptor matmul bf16 nn {M}x{N}x{K} tile {BM}x{BN}x{BK} tma", run,
                untried=True)


def cases():
    found = []
    for dtype in ("fp16", "bf16"):
        for layout in ("nn", "nt"):
            for warps, stages in ((4, 2), (4, 3), (8, 3)):
                found.append(matmul_case(dtype, layout, warps, stages))
    # Tiles of 128x128 and more take up to a minute each to compile for the
    # CPU backend: correctness.py --cpu leaves them to the GPU.
    found.append(matmul_case("fp16", "nn", 4, 3, block=(128, 128, 64), on_cpu=False))
    found.append(matmul_case("fp16", "nn", 2, 2, block=(32, 32, 16)))  # mma.sync
    # Where no ptxas is found the driver's JIT compiles the PTX (wgmma's sm_90a
    # PTX on an H100/H200; mma.sync's sm_80 PTX in the sm_80 set).
    found.append(matmul_case("bf16", "nn", 4, 3, driver_jit=True))
    found.append(matmul_case("fp32", "nn", 4, 3, precision="tf32"))
    found.append(matmul_case("fp32", "nt", 4, 3, precision="tf32"))
    found.append(matmul_case("fp32", "nn", 4, 2, precision="ieee"))
    # Three tf32 products of split operands on mma.sync, within fp32's tolerance.
    found.append(matmul_case("fp32", "nn", 4, 3, precision="tf32x3"))
    found.append(matmul_case("fp32", "nt", 4, 3, precision="tf32x3"))
    # tf32 NN runs swapped (C^T = B^T A^T, B's fragments in registers): the
    # benchmark's widest tile, the instruction's M of 256 (the dot's N) over
    # two warpgroups; a tile 32 wide in N cannot, and copies B 4 bytes at a
    # time into wgmma's K-major layout.
    found.append(matmul_case("fp32", "nn", 8, 3, size=(300, 600, 300), block=(128, 256, 32),
                             precision="tf32", on_cpu=False))
    found.append(matmul_case("fp32", "nn", 4, 3, block=(64, 32, 32), precision="tf32"))
    found.append(persistent_matmul_case("fp32", "nn", 8, 3, (300, 600, 300), (128, 256, 32), 4,
                                        on_cpu=False))
    # An int8 B given as [K, N] goes K-major into shared memory, each
    # thread's 4 rows of K packed into 32-bit stores: a ragged tile of the
    # 4-warp wgmma, and two warpgroups over 128 columns.
    found.append(matmul_case("i8", "nn", 4, 3, block=(64, 64, 64)))
    found.append(matmul_case("i8", "nn", 8, 3, size=(300, 264, 328), block=(128, 128, 64),
                             on_cpu=False))
    found.append(matmul_case("i8", "nt", 4, 3, block=(64, 64, 64)))
    # fp8 on wgmma (sm_90a; the CPU widens to fp32), first run apart on a GPU:
    # NT as fp8 GEMMs usually are, NN through the packed B stores, a bf16
    # result through the epilogue.
    found.append(matmul_case("fp8e4nv", "nt", 4, 3, block=(64, 64, 64), untried=True))
    found.append(matmul_case("fp8e4nv", "nn", 8, 3, size=(300, 264, 328), block=(128, 128, 64),
                             untried=True))
    found.append(matmul_case("fp8e5", "nn", 4, 3, block=(64, 64, 64), untried=True))
    found.append(matmul_case("fp8e4nv", "nt", 8, 3, size=(300, 600, 300), block=(128, 256, 128),
                             out="bf16", untried=True))
    # f16 accumulators: wgmma's f16x2 registers (f16 and fp8 products, one
    # and two warpgroups), first run apart on a GPU; mma.sync below a
    # warpgroup (fp8 widened to f16 there).
    found.append(f16_accumulator_case("fp16", "nn", 4, 3, (150, 136, 200), (64, 64, 32),
                                      untried=True))
    found.append(f16_accumulator_case("fp16", "nt", 8, 3, (300, 264, 256), (128, 128, 64),
                                      untried=True))
    found.append(f16_accumulator_case("fp8e4nv", "nt", 4, 3, (150, 136, 256), (64, 128, 64),
                                      untried=True))
    found.append(f16_accumulator_case("fp8e5", "nn", 2, 3, (150, 136, 200), (64, 64, 64)))
    # Weight-only quantized GEMMs: B read back from shared memory (cp.async
    # ahead, sm_80 and later), first run apart on a GPU; int8 and fp8 on one
    # warpgroup, int8 on two and on mma.sync.
    found.append(weight_only_case("fp16", "i8", 4, 3, untried=True))
    found.append(weight_only_case("bf16", "fp8e4nv", 4, 3, untried=True))
    found.append(weight_only_case("fp16", "i8", 8, 3, size=(300, 264, 328), block=(128, 128, 64),
                                  on_cpu=False, untried=True))
    found.append(weight_only_case("bf16", "i8", 2, 2, block=(32, 32, 32), untried=True))
    found.append(int4_weight_case("fp16", 4, 3, untried=True))
    for op in ("sum", "max", "argmax", "cumsum"):
        for axis in (0, 1):
            for warps in (1, 4):
                found.append(reduce_case(op, axis, warps))
    for op in ("exp", "exp2", "log", "sqrt", "rsqrt", "sin", "erf", "sigmoid", "div", "div_rn"):
        found.append(unary_case(op))
    for op in ("exp", "tanh", "lgamma", "erfinv", "cyl_bessel_i0", "atan2"):
        found.append(libdevice_case(op))
    found.append(inline_asm_case())
    found += [float8_case("fp8e4nv"), float8_case("fp8e5")]
    found += [integer_case(), dropout_case(), sort_case("fp32"), sort_case("i32", warps=8),
              histogram_case(), gather_histogram_case(), transpose_case("fp32"),
              transpose_case("fp16"), descriptor_case()]
    for layout in ("nn", "nt"):
        found.append(descriptor_matmul_case(layout, 4, 3))
    found.append(descriptor_matmul_case("nn", 8, 3, size=(300, 600, 300), block=(128, 256, 64)))
    # Tiles of 128x128 and more take up to a minute each to compile for the
    # CPU backend: correctness.py --cpu leaves them to the GPU.
    found += [chained_dots_case(4, 150, 64, 64), chained_dots_case(8, 300, 128, 64, on_cpu=False),
              chained_dots_case(2, 70, 32, 32)]
    # 16-bit results: the accumulators leave through stmatrix on sm_90 (one and
    # two warpgroups, the benchmark's 128x256 tile, mma.sync on 2 warps).
    found.append(matmul_case("bf16", "nn", 4, 3, out="bf16"))
    found.append(matmul_case("fp16", "nt", 8, 3, out="fp16"))
    found.append(matmul_case("bf16", "nn", 8, 3, block=(128, 256, 64), on_cpu=False, out="bf16"))
    found.append(matmul_case("bf16", "nn", 2, 2, block=(32, 32, 16), out="bf16"))
    # Flattened persistent loops: 3x3 ragged tiles over fewer programs, the
    # last K block of each tile partly masked; wgmma restarts its
    # accumulator in the epilogue, whose 128x256 bf16 conversion goes
    # through shared memory in halves beside the pipeline's stages.
    found.append(persistent_matmul_case("bf16", "nn", 4, 3, (150, 136, 200), (64, 64, 32), 4))
    found.append(persistent_matmul_case("fp16", "nt", 8, 3, (300, 200, 200), (128, 128, 64), 2,
                                        out="fp16", on_cpu=False))
    found.append(persistent_matmul_case("bf16", "nn", 8, 3, (300, 600, 300), (128, 256, 64), 4,
                                        out="bf16", on_cpu=False))
    found.append(persistent_matmul_case("bf16", "nn", 2, 3, (150, 136, 200), (32, 32, 32), 5,
                                        out="bf16"))  # mma.sync
    # Four stages of 128x256x64 leave no room for wgmma's extra stage: the
    # copies follow the dot, three iterations ahead, around the ring of four
    # several times (11 K blocks, the last partly masked).
    found.append(matmul_case("bf16", "nn", 8, 4, size=(300, 600, 700), block=(128, 256, 64),
                             on_cpu=False, out="bf16"))
    # B's columns wrapped with % N and no tl.assume: runs checked at their
    # endpoints in the cp.async copies (wgmma, then mma.sync).
    found.append(tutorial_matmul_case("bf16", 8, 3, (300, 600, 328), (128, 256, 64),
                                      on_cpu=False))
    found.append(tutorial_matmul_case("fp16", 4, 3, (150, 136, 200), (64, 64, 32)))
    found.append(wrapped_columns_case())
    found.append(wrapped_columns_sum_case())
    # A loop without a dot that asks for stages: rows read back from one and
    # two stages of shared memory, 16-bit and 32-bit elements.
    for dtype, warps, rows_per_block, stages in (("fp16", 4, 2, 2), ("fp16", 8, 4, 3),
                                                 ("fp32", 4, 2, 3), ("fp32", 8, 1, 2)):
        found.append(persistent_layernorm_case(dtype, warps, rows_per_block, stages))
    found.append(matmul_case("fp16", "nt", 8, 4, size=(300, 600, 700), block=(128, 256, 64),
                             on_cpu=False, out="fp16"))
    found.append(persistent_matmul_case("bf16", "nn", 8, 4, (300, 600, 700), (128, 256, 64), 3,
                                        out="bf16", on_cpu=False))
    # TMA stores alone (loads element-wise), clipped at M and N, where rows
    # end on 16-byte chunks (112 f32), and element-wise stores where they may
    # not (101); then TMA copies of the descriptor blocks (sm_90): boxes
    # reaching past M, N and K, one and two warpgroups, B's panels (NN) and
    # B's [N, K] box (NT), and four stages of 128x256x64 whose copies follow
    # the dot; C stored by TMA where its shape is a multiple of 8 (304x600).
    found.append(descriptor_case((112, 72), (32, 32), tma=True))
    found.append(descriptor_case((101, 72), (32, 32), tma=True))
    for layout in ("nn", "nt"):
        found.append(descriptor_matmul_case(layout, 4, 3, tma=True))
    found.append(descriptor_matmul_case("nn", 8, 3, size=(304, 600, 300), block=(128, 256, 64),
                                        tma=True, on_cpu=False))
    found.append(descriptor_matmul_case("nt", 8, 4, size=(304, 600, 700), block=(128, 256, 64),
                                        tma=True, on_cpu=False))
    found.append(device_descriptor_matmul_case())
    # Attention's loop on descriptors: its K (transposed) and V blocks feed
    # two dots; with cp.async, then TMA on one and two warpgroups.
    found.append(attention_case(4, 3, (64, 64), tma=False))
    found.append(attention_case(4, 3, (64, 64), tma=True))
    found.append(attention_case(8, 3, (128, 64), tma=True, on_cpu=False))
    # NaN padding, which TMA fills where the blocks leave A and B (cp.async's
    # masked loads first, then TMA's fill, NT's [N, K] box, and a producer's).
    for layout, flags in (("nn", {}), ("nn", {"tma": True}), ("nt", {"tma": True}),
                          ("nn", {"tma": True, "warp_specialize": True})):
        found.append(descriptor_matmul_case(layout, 4, 3, size=(150, 137, 192), padding="nan",
                                            **flags))
    # A producer warpgroup issuing the TMA copies (one warpgroup and two; NN and
    # NT; more K blocks than stages, and fewer: 203 / 32 and 96 / 64).
    for layout in ("nn", "nt"):
        found.append(descriptor_matmul_case(layout, 4, 3, tma=True, warp_specialize=True))
    found.append(descriptor_matmul_case("nn", 4, 3, size=(150, 137, 96), block=(64, 64, 64),
                                        tma=True, warp_specialize=True))
    found.append(descriptor_matmul_case("nn", 8, 3, size=(304, 600, 700), block=(128, 256, 64),
                                        tma=True, warp_specialize=True, on_cpu=False))
    found.append(descriptor_matmul_case("nt", 8, 4, size=(304, 600, 700), block=(128, 256, 64),
                                        tma=True, warp_specialize=True, on_cpu=False))
    # The persistent form, its tile loop flattened with the K loop: 9 ragged
    # tiles over 2 programs, with cp.async, TMA, and a producer warpgroup running
    # through all of a program's tiles; 9 tiles of 128x256x64 over 4, whose
    # fp32 C (128 KB a tile) goes out by TMA a quarter at a time beside four
    # stages in one stream, whole beside three with a producer.
    for flags in ({}, {"tma": True}, {"tma": True, "warp_specialize": True}):
        found.append(descriptor_matmul_case("nn", 4, 3, programs=2, **flags))
    # tf32 on descriptors: NN swapped, B's panels of fp32 rows of N copied by
    # cp.async, by TMA, by a producer warpgroup, and in the persistent form;
    # NT as before (B's [N, K] box already K-major).
    for flags in ({}, {"tma": True}, {"tma": True, "warp_specialize": True}):
        found.append(descriptor_matmul_case("nn", 4, 3, dtype="fp32", **flags))
    found.append(descriptor_matmul_case("nt", 4, 3, dtype="fp32", tma=True))
    found.append(descriptor_matmul_case("nn", 8, 4, size=(304, 600, 300), block=(128, 256, 32),
                                        tma=True, warp_specialize=True, dtype="fp32",
                                        on_cpu=False))
    found.append(descriptor_matmul_case("nn", 4, 3, programs=2, tma=True, dtype="fp32"))
    found.append(descriptor_matmul_case("nn", 8, 3, size=(304, 600, 700), block=(128, 256, 64),
                                        programs=4, tma=True, on_cpu=False))
    found.append(descriptor_matmul_case("nt", 8, 3, size=(304, 600, 700), block=(128, 256, 64),
                                        programs=4, tma=True, warp_specialize=True,
                                        on_cpu=False))
    # Two TMA stores a tile (its halves), each into a buffer the flattened loop
    # reserves, each waiting for the copies before it where it writes its
    # buffer again: 15 ragged tiles over 4 programs, in one stream and with a
    # producer warpgroup.
    for flags in ({"tma": True}, {"tma": True, "warp_specialize": True}):
        found.append(descriptor_matmul_case("nn", 8, 3, size=(304, 600, 300),
                                            block=(128, 128, 64), programs=4, halves=True,
                                            on_cpu=False, **flags))
    return found


def export(directory, target):
    kernels = tessera_kernels(KERNELS)
    recorder = aot.Recorder(kernels)
    for case in cases():
        case.launch(recorder, ForExport())
    print(f"exporting the correctness kernels for {target} to {directory}")
    return aot.export(directory, kernels, recorder.launches, target)


def run_case(kernels, device, seed, case):
    """(correct, detail) of one case."""
    on = OnDevice(seed, device)
    try:
        case.launch(kernels, on)
        return on.verdict()
    except Exception as error:  # reported; the other cases still run
        return False, error_summary(error)


def run_case_apart(aot_dir, seed, case, limit):
    """(correct, detail) of case `seed` run on the GPU by a child process
    (`--case`), which is killed after `limit` seconds."""
    command = [sys.executable, os.path.abspath(__file__), "--aot", aot_dir, "--case", str(seed)]
    try:
        child = subprocess.run(command, capture_output=True, text=True, timeout=limit)
    except subprocess.TimeoutExpired:
        return False, f"HUNG: no result in {limit} s (killed)"
    lines = child.stdout.strip().splitlines()
    if child.returncode not in (0, 1) or not lines:
        return False, f"its process failed ({child.returncode}): {child.stderr.strip()[-300:]}"
    return lines[-1].startswith("ok"), lines[-1].split(": ", 1)[-1]


def check(kernels, device, where, aot_dir=None, untried_limit=60):
    """Runs every case (those the CPU backend can lower, on the CPU) and
    prints one line each; 1 if any is wrong. A case's inputs are drawn from
    its index in cases(), the same on every device. On a GPU the untried
    cases run apart (run_case_apart)."""
    selected = [(seed, case) for seed, case in enumerate(cases())
                if device == "cuda" or case.on_cpu]
    failed = 0
    for seed, case in selected:
        if device == "cuda" and case.untried:
            good, detail = run_case_apart(aot_dir, seed, case, untried_limit)
        else:
            good, detail = run_case(kernels, device, seed, case)
        failed += not good
        print(f"{'ok   ' if good else 'WRONG'} {case.name}: {detail}")
    print(f"\n{len(selected) - failed} of {len(selected)} cases correct on {where}")
    return 1 if failed else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--export", metavar="DIR", help="compile the cases' kernels into DIR")
    parser.add_argument("--target", default="cuda:sm_90a", help="--export's target")
    parser.add_argument("--aot", metavar="DIR", help="check the cubins in DIR on this GPU")
    parser.add_argument("--cpu", action="store_true",
                        help="run the cases on Tessera's CPU backend instead (needs the build): "
                             "checks the cases and their references without a GPU")
    parser.add_argument("--case", type=int, metavar="N",
                        help="with --aot, run only case N (its index in cases()), as the "
                             "process that runs an untried case apart")
    parser.add_argument("--untried-limit", type=int, default=60, metavar="SECONDS",
                        help="with --aot, how long an untried (TMA) case may take in its own "
                             "process before it is reported HUNG (default 60)")
    args = parser.parse_args()
    if args.export:
        return 1 if export(args.export, args.target) else 0
    if args.cpu:
        return check(tessera_kernels(KERNELS), "cpu", "Tessera's CPU backend")
    if args.aot:
        if not torch.cuda.is_available():
            print("bench/gpu/correctness.py: no CUDA device visible to PyTorch; nothing to check.")
            return 2
        if args.case is not None:
            case = cases()[args.case]
            good, detail = run_case(aot.AotKernels(args.aot), "cuda", args.case, case)
            print(f"{'ok   ' if good else 'WRONG'} {case.name}: {detail}")
            return 0 if good else 1
        return check(aot.AotKernels(args.aot), "cuda", torch.cuda.get_device_name(), args.aot,
                     args.untried_limit)
    parser.print_usage()
    return 2


if __name__ == "__main__":
    sys.exit(main())
