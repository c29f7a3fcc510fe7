"""Tessera on an NVIDIA GPU against cuBLAS, PyTorch and Triton, in one call.

    python3 bench/gpu/run.py                  # everything, prints one table
    python3 bench/gpu/run.py --suite gemm --sizes 4096 --dtypes bf16
    python3 bench/gpu/run.py --quick --json results.json
    python3 bench/gpu/run.py --compile-only cuda:sm_90a   # no GPU needed

Every kernel is first checked against PyTorch on the same inputs (a wrong
result is reported as WRONG and makes the exit status 1), then timed on the
device alone, all implementations of a row side by side (time_each_ms:
launches captured in CUDA graphs, L2 flushed before each call, the graphs
replayed in turns, so that the host's launch cost, warm caches and drifting
clocks favour no one). The Tessera and Triton kernels come from the same
source, bench/gpu/kernels.py (--gemm-kernels adds the persistent GEMMs).
GEMM is reported in TFLOP/s against
torch.matmul (cuBLAS) and Triton; the weight-only int8 GEMM (gemm-w8) against
cuBLAS on the weight dequantized once, PyTorch dequantizing it in each call and
Triton; flash attention (attention, attention-c causal) in TFLOP/s against
PyTorch's scaled_dot_product_attention and Triton; softmax, layernorm and
vector add in GB/s
against Triton, PyTorch and a device-to-device copy of one input (its own
bytes, read once and written once). Needs PyTorch with CUDA; Triton is
optional (its columns are left empty without it).

--compile-only TARGET needs no GPU: it compiles Tessera's version of every
benchmark kernel (each GEMM tuning config, the row kernels at the widths the
table uses) for TARGET and prints, per kernel, the instructions that carry
the work (wgmma / mma.sync / 128-bit loads), registers, spills, shared memory
and compile time, so a machine without a device shows what a device would run.

A GPU machine that cannot build Tessera (another OS or Python, no LLVM 22)
runs Tessera's kernels from cubins compiled here (bench/gpu/aot.py):

    python3 bench/gpu/run.py --quick --export build/gpu-aot   # here, no GPU needed
    python3 bench/gpu/run.py --quick --aot build/gpu-aot      # there, same row options
"""

import argparse
import importlib.util
import json
import math
import os
import sys
import time

import torch

from timing import time_each_ms

KERNELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kernels.py")
DTYPES = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32,
          "fp8": torch.float8_e4m3fn}


def gemm_result_dtype(dtype):
    """C's type for A and B of `dtype`: theirs, bf16 for fp8 (as fp8 GEMMs
    are used: the f32 accumulator rounded to bf16)."""
    return torch.bfloat16 if dtype == torch.float8_e4m3fn else dtype


def load_kernels(name, jit, language, autotune, config, descriptor, path=KERNELS):
    """kernels.py (or `path`) as a module whose jit/tl/autotune/Config and
    host TensorDescriptor are the given ones."""
    stem = os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(f"bench_{stem}_{name}", path)
    module = importlib.util.module_from_spec(spec)
    module.jit, module.tl, module.autotune, module.Config = jit, language, autotune, config
    module.TensorDescriptor = descriptor
    module.COMPILER = name
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def compilers(aot_directory=None):
    found = {}
    try:
        if aot_directory:
            from aot import AotKernels
            found["tessera"] = AotKernels(aot_directory)
        else:
            found["tessera"] = tessera_kernels()
    except Exception as error:  # reported in the table, the peers still run
        found["tessera"] = error
    try:
        import triton
        import triton.language
        from triton.tools.tensor_descriptor import TensorDescriptor
        found["triton"] = load_kernels("triton", triton.jit, triton.language, triton.autotune,
                                       triton.Config, TensorDescriptor)
    except Exception as error:
        found["triton"] = error
    return found


def error_summary(error, width=None):
    """"TypeName: first line of the message", the line cut at `width`."""
    first_line = (str(error).splitlines() or [""])[0]
    return f"{type(error).__name__}: {first_line[:width]}"


class Row:
    """One line of the table: each implementation is checked as it is added,
    and those that passed are timed together (time_all)."""

    def __init__(self, kernel, shape, dtype, unit, work):
        self.kernel, self.shape, self.dtype, self.unit, self.work = kernel, shape, dtype, unit, work
        self.rates, self.notes, self.checked = {}, {}, {}
        # Bytes or operations per call where an implementation's differ from
        # the row's (the device copy's).
        self.work_of = {}

    def note(self, name, error):
        self.notes[name] = error_summary(error, 70)

    def check(self, name, fn, reference, atol, rtol):
        """fn() against reference; False only for a wrong result (NaN is
        wrong)."""
        try:
            result = fn()
            torch.cuda.synchronize()
            good = torch.allclose(result.float(), reference.float(), atol=atol, rtol=rtol)
            error = (result.float() - reference.float()).abs().max().item()
            # Poisoned before it is freed: an implementation that writes
            # nothing into memory the allocator hands it next fails its check.
            result.fill_(float("nan"))
            if not good:
                self.notes[name] = f"WRONG (max abs error {error:.3g})"
                return False
            self.checked[name] = fn
        except Exception as error:
            self.note(name, error)
        return True

    def time_all(self, args):
        """Times the checked implementations side by side; one that fails
        there is timed alone to say which."""
        per_second = 1e12 if self.unit == "TFLOP/s" else 1e9
        try:
            times = time_each_ms(self.checked, args.warmup, args.reps)
        except Exception:
            times = {}
            for name, fn in self.checked.items():
                try:
                    times[name] = time_each_ms({name: fn}, args.warmup, args.reps)[name]
                except Exception as error:
                    self.note(name, error)
        for name, ms in times.items():
            self.rates[name] = self.work_of.get(name, self.work) / (ms * 1e-3) / per_second


PERSISTENT_GEMMS = {"matmul_persistent": "-p", "matmul_persistent_carried": "-pc"}
# The GEMM on host tensor descriptors runs one config in both compilers (its
# block shapes are the descriptors'): the largest of MATMUL_CONFIGS, which
# both pick for `matmul` at 4096^3 on an H100, with 128 bytes of K per row
# (BLOCK_K 64 of a 16-bit type, 32 of fp32, whose 64 would leave room for two
# stages only).
DESCRIPTOR_GEMM = dict(BLOCK_M=128, BLOCK_N=256, GROUP_M=8, num_warps=8, num_stages=3)
DESCRIPTOR_K_BYTES = 128


def descriptor_gemm_config(dtype):
    """DESCRIPTOR_GEMM for operands of `dtype`, its BLOCK_K included."""
    return dict(DESCRIPTOR_GEMM, BLOCK_K=DESCRIPTOR_K_BYTES // dtype.itemsize)


# The GEMMs on host descriptors: a plain row launches the kernel with
# Tessera's tma=False (cp.async copies), a "_tma" row with its default (TMA
# copies, as Triton makes of descriptors anyway), a "_ws" row with
# warp_specialize too (a producer warpgroup copies while the 8 warps compute;
# Triton runs the same source as for "_tma"); the persistent ones run one
# program per SM.
DESCRIPTOR_GEMMS = {"matmul_descriptors": "-d", "matmul_descriptors_tma": "-dt",
                    "matmul_descriptors_ws": "-dw",
                    "matmul_descriptors_persistent": "-dp",
                    "matmul_descriptors_persistent_tma": "-dpt",
                    "matmul_descriptors_persistent_ws": "-dpw"}
# `matmul` without its tl.assume (Triton's tutorial before 3.2): rows -u.
UNASSUMED_GEMMS = {"matmul_unassumed": "-u"}
GEMM_ROW_SUFFIXES = {**PERSISTENT_GEMMS, **DESCRIPTOR_GEMMS, **UNASSUMED_GEMMS}


def launch_descriptor_gemm(module, a, b, c, kernel, programs):
    """C = A @ B by kernels.py's descriptor GEMM `kernel` (DESCRIPTOR_GEMMS),
    on descriptors of `module`'s TensorDescriptor class; an NT B (a transposed
    [N, K] tensor) is described as the [N, K] tensor it is. A persistent one
    runs `programs` programs; a plain one has Tessera copy the blocks with
    cp.async (tma=False), a "_tma" one with TMA (its default; Triton's too), a
    "_ws" one from a producer warpgroup."""
    (M, K), N = a.shape, b.shape[1]
    cfg = descriptor_gemm_config(a.dtype)
    rows_are_n = b.stride(0) == 1 and b.stride(1) != 1
    describe = lambda x, block: module.TensorDescriptor(x, list(x.shape), list(x.stride()), block)
    b_desc = (describe(b.t(), [cfg["BLOCK_N"], cfg["BLOCK_K"]]) if rows_are_n
              else describe(b, [cfg["BLOCK_K"], cfg["BLOCK_N"]]))
    tiles = triton_cdiv(M, cfg["BLOCK_M"]) * triton_cdiv(N, cfg["BLOCK_N"])
    options = dict(cfg)
    if module.COMPILER == "tessera":
        options["tma"] = kernel.endswith(("_tma", "_ws"))
        options["warp_specialize"] = kernel.endswith("_ws")
    name = kernel.removesuffix("_tma").removesuffix("_ws")
    if name == "matmul_descriptors_persistent":
        options["NUM_SMS"] = programs
        tiles = min(tiles, programs)
    getattr(module, name)[(tiles,)](describe(a, [cfg["BLOCK_M"], cfg["BLOCK_K"]]), b_desc,
                                    describe(c, [cfg["BLOCK_M"], cfg["BLOCK_N"]]), M, N, K,
                                    B_ROWS_ARE_N=rows_are_n, **options)


def launch_gemm(module, a, b, c, kernel="matmul", programs=None):
    """C = A @ B with `kernel`: "matmul" (a program per output tile), a
    persistent GEMM (PERSISTENT_GEMMS: at most `programs` programs, one per
    SM, walking the tiles) or DESCRIPTOR_GEMMS (host descriptors)."""
    if kernel in DESCRIPTOR_GEMMS:
        return launch_descriptor_gemm(module, a, b, c, kernel, programs)
    (M, K), N = a.shape, b.shape[1]
    tiles = lambda meta: triton_cdiv(M, meta["BLOCK_M"]) * triton_cdiv(N, meta["BLOCK_N"])
    if kernel in PERSISTENT_GEMMS:
        grid = lambda meta: (min(programs, tiles(meta)),)
    else:
        grid = lambda meta: (tiles(meta),)
    getattr(module, kernel)[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0),
                                  b.stride(1), c.stride(0), c.stride(1))


def launch_weight_only(module, a, b, scale, c):
    """C = A @ (B * scale), B int8 [K, N] with a scale per column."""
    (M, K), N = a.shape, b.shape[1]
    grid = lambda meta: (triton_cdiv(M, meta["BLOCK_M"]) * triton_cdiv(N, meta["BLOCK_N"]),)
    module.matmul_weight_only[grid](a, b, scale, c, M, N, K, a.stride(0), a.stride(1),
                                    b.stride(0), b.stride(1), c.stride(0), c.stride(1))


# Programs per SM of the persistent row kernel: enough resident blocks of
# rows in flight beside each one's prefetched next block.
ROW_PROGRAMS_PER_SM = 4


def launch_rows(module, kernel, x, y, w, bias, sms):
    """`kernel` over the rows of x: softmax, layernorm (a program per block
    of rows) or layernorm-p (layernorm_persistent on ROW_PROGRAMS_PER_SM
    programs per SM of the `sms`)."""
    rows, cols = x.shape
    block = 1 << (cols - 1).bit_length()
    grid = lambda meta: (triton_cdiv(rows, meta["ROWS"]),)
    if kernel == "softmax":
        module.softmax[grid](y, x, x.stride(0), y.stride(0), rows, cols, BLOCK=block)
    elif kernel == "layernorm":
        module.layernorm[grid](x, y, w, bias, x.stride(0), rows, cols, 1e-5, BLOCK=block)
    else:
        persistent = lambda meta: (min(grid(meta)[0], ROW_PROGRAMS_PER_SM * sms),)
        module.layernorm_persistent[persistent](x, y, w, bias, x.stride(0), rows, cols, 1e-5,
                                                BLOCK=block)


def launch_attention(module, q, k, v, out, causal):
    """Flash attention over [heads, n_ctx, head_dim] tensors, scaled by
    1 / sqrt(head_dim)."""
    heads, n_ctx, head_dim = q.shape
    grid = lambda meta: (triton_cdiv(n_ctx, meta["BLOCK_M"]), heads)
    module.attention[grid](q, k, v, out, 1.0 / math.sqrt(head_dim), n_ctx, HEAD_DIM=head_dim,
                           CAUSAL=causal)


def launch_add(module, x, y, out):
    n = x.shape[0]
    module.vector_add[(triton_cdiv(n, 1024),)](x, y, out, n, BLOCK=1024, num_warps=4)


def launch_gelu(module, x, out):
    n = x.shape[0]
    module.gelu_tanh[lambda meta: (triton_cdiv(n, meta["BLOCK"]),)](x, out, n)


def gemm_operands(make, size, dtype, layout):
    """A [size, size] and B [size, size]; for "nt" B is the transpose of a
    row-major [N, K] matrix, as a PyTorch Linear's weight."""
    a = make((size, size), dtype)
    b = make((size, size), dtype) if layout == "nn" else make((size, size), dtype).t()
    return a, b


def add_kernels(row, kernels, run, reference, **tol):
    """Checks each compiler's run(module) into row; False if one was wrong."""
    ok = True
    for name, module in kernels.items():
        if isinstance(module, Exception):
            row.notes[name] = f"unavailable: {str(module).splitlines()[0][:60]}"
            continue
        ok &= row.check(name, lambda module=module: run(module), reference, **tol)
    return ok


def add_copy(row, src, dst):
    """A device-to-device copy of src's bytes, the bandwidth the kernels of a
    row that reads src and writes as much are held to."""
    row.check("copy", lambda: dst.copy_(src), src, atol=0, rtol=0)
    row.work_of["copy"] = 2.0 * src.numel() * src.element_size()


def gemm_row_name(layout, kernel):
    return f"gemm-{layout}" + GEMM_ROW_SUFFIXES.get(kernel, "")


def vendor_gemm(a, b):
    """cuBLAS's A @ B as a PyTorch user gets it: torch.matmul, or for fp8
    torch._scaled_mm with unit scales and a bf16 result (cuBLASLt, which
    takes fp8 B only column-major: the NT layout)."""
    if a.dtype != torch.float8_e4m3fn:
        return torch.matmul(a, b)
    if b.stride(0) != 1:
        raise ValueError("cuBLAS has no fp8 GEMM with B row-major (NN); its rows are NT only")
    one = torch.ones((), device=a.device)
    # Fast accumulation, as Tessera's and Triton's tl.dot on sm_90 by default
    # (max_num_imprecise_acc 2^30): the same work, timed like for like.
    return torch._scaled_mm(a, b, one, one, out_dtype=torch.bfloat16, use_fast_accum=True)


def bench_gemm(kernels, args, size, dtype, layout, kernel):
    # An fp32 GEMM is tf32 products in Tessera and Triton (tl.dot's default):
    # cuBLAS gets them too, as PyTorch users ask with allow_tf32.
    torch.backends.cuda.matmul.allow_tf32 = dtype == torch.float32
    a, b = gemm_operands(lambda shape, dt: torch.randn(*shape, device="cuda").to(dt), size, dtype,
                         layout)
    result = gemm_result_dtype(dtype)
    # fp8 operands are exact in bf16; the reference sums them in fp32.
    reference = torch.matmul(a.to(result), b.to(result)) if result != dtype else torch.matmul(a, b)
    programs = torch.cuda.get_device_properties(a.device).multi_processor_count
    row = Row(gemm_row_name(layout, kernel), f"{size}x{size}x{size}", args.dtype_name[dtype],
              "TFLOP/s", 2.0 * size ** 3)
    tol = dict(atol=1e-2 * math.sqrt(size), rtol=2e-2)
    if dtype == torch.float8_e4m3fn:
        # wgmma adds fp8 products at less than f32's precision: on an H200 at
        # 4096 both Tessera and Triton were off by up to 2 (bf16 results of
        # magnitude ~64) where the 0.64 above allows less; a wrong tile is off
        # by the magnitude itself.
        tol = dict(atol=5e-2 * math.sqrt(size), rtol=2e-2)
    ok = row.check("cuBLAS", lambda: vendor_gemm(a, b), reference, **tol)

    def run(module):
        c = torch.empty(size, size, device="cuda", dtype=result)
        launch_gemm(module, a, b, c, kernel, programs)
        return c
    ok &= add_kernels(row, kernels, run, reference, **tol)
    row.time_all(args)
    row.ratios = [("tessera", "cuBLAS"), ("tessera", "triton")]
    return row, ok


def bench_weight_only(kernels, args, m, n, k, dtype):
    """The weight-only int8 GEMM against cuBLAS on the weight dequantized once
    (what it would be without quantization), PyTorch dequantizing it in each
    call (what a PyTorch user without a kernel runs) and Triton."""
    a = torch.randn(m, k, device="cuda").to(dtype)
    b = torch.randint(-127, 128, (k, n), device="cuda", dtype=torch.int8)
    scale = (torch.rand(n, device="cuda") * 0.01 + 0.001).to(dtype)
    weight = b.to(dtype) * scale
    reference = (torch.matmul(a.float(), b.float()) * scale.float()).to(dtype)
    row = Row("gemm-w8", f"{m}x{n}x{k}", args.dtype_name[dtype], "TFLOP/s", 2.0 * m * n * k)
    tol = dict(atol=1e-2 * math.sqrt(k), rtol=2e-2)
    ok = row.check("cuBLAS", lambda: torch.matmul(a, weight), reference, **tol)
    ok &= row.check("torch", lambda: torch.matmul(a, b.to(dtype) * scale), reference, **tol)

    def run(module):
        c = torch.empty(m, n, device="cuda", dtype=dtype)
        launch_weight_only(module, a, b, scale, c)
        return c
    ok &= add_kernels(row, kernels, run, reference, **tol)
    row.time_all(args)
    row.ratios = [("tessera", "cuBLAS"), ("tessera", "torch"), ("tessera", "triton")]
    return row, ok


def bench_rows(kernels, args, kernel, rows, cols, dtype):
    x = torch.randn(rows, cols, device="cuda", dtype=dtype)
    w = torch.rand(cols, device="cuda", dtype=dtype)
    bias = torch.rand(cols, device="cuda", dtype=dtype)
    moved = 2.0 * x.numel() * x.element_size()
    sms = torch.cuda.get_device_properties(x.device).multi_processor_count
    if kernel == "softmax":
        reference = torch.softmax(x.float(), dim=1).to(dtype)
        torch_fn = lambda: torch.softmax(x, dim=1)
    else:
        reference = torch.nn.functional.layer_norm(x.float(), (cols,), w.float(), bias.float(),
                                                   1e-5).to(dtype)
        moved += 2.0 * cols * x.element_size()
        torch_fn = lambda: torch.nn.functional.layer_norm(x, (cols,), w, bias, 1e-5)
    row = Row(kernel, f"{rows}x{cols}", args.dtype_name[dtype], "GB/s", moved)
    tol = dict(atol=2e-2, rtol=2e-2)
    ok = row.check("torch", torch_fn, reference, **tol)
    add_copy(row, x, torch.empty_like(x))

    def run(module):
        y = torch.empty_like(x)
        launch_rows(module, kernel, x, y, w, bias, sms)
        return y
    ok &= add_kernels(row, kernels, run, reference, **tol)
    row.time_all(args)
    row.ratios = [("tessera", "copy"), ("tessera", "triton"), ("triton", "copy")]
    return row, ok


def bench_attention(kernels, args, heads, n_ctx, head_dim, causal, dtype):
    """Flash attention's forward pass against PyTorch's scaled_dot_product_attention
    (its flash or cuDNN kernel on an H100) and Triton, in TFLOP/s: the two
    matrix products, 4 * heads * n_ctx^2 * head_dim, half of it causal."""
    q, k, v = (torch.randn(heads, n_ctx, head_dim, device="cuda", dtype=dtype) for _ in range(3))
    sdpa = torch.nn.functional.scaled_dot_product_attention
    reference = sdpa(q.float(), k.float(), v.float(), is_causal=causal).to(dtype)
    flops = 4.0 * heads * n_ctx * n_ctx * head_dim * (0.5 if causal else 1.0)
    row = Row("attention" + ("-c" if causal else ""), f"{heads}x{n_ctx}x{head_dim}",
              args.dtype_name[dtype], "TFLOP/s", flops)
    tol = dict(atol=2e-2, rtol=2e-2)
    ok = row.check("torch", lambda: sdpa(q, k, v, is_causal=causal), reference, **tol)

    def run(module):
        out = torch.empty_like(q)
        launch_attention(module, q, k, v, out, causal)
        return out
    ok &= add_kernels(row, kernels, run, reference, **tol)
    row.time_all(args)
    row.ratios = [("tessera", "torch"), ("tessera", "triton")]
    return row, ok


def bench_add(kernels, args, n, dtype):
    x = torch.randn(n, device="cuda", dtype=dtype)
    y = torch.randn(n, device="cuda", dtype=dtype)
    reference = x + y
    row = Row("vector_add", f"{n}", args.dtype_name[dtype], "GB/s", 3.0 * n * x.element_size())
    add_copy(row, x, torch.empty_like(x))

    def run(module):
        out = torch.empty_like(x)
        launch_add(module, x, y, out)
        return out
    ok = add_kernels(row, kernels, run, reference, atol=1e-2, rtol=1e-2)
    row.time_all(args)
    row.ratios = [("tessera", "copy"), ("triton", "copy")]
    return row, ok


def bench_gelu(kernels, args, n, dtype):
    x = torch.randn(n, device="cuda", dtype=dtype)
    reference = torch.nn.functional.gelu(x.float(), approximate="tanh").to(dtype)
    row = Row("gelu", f"{n}", args.dtype_name[dtype], "GB/s", 2.0 * n * x.element_size())
    tol = dict(atol=1e-5 if dtype == torch.float32 else 1e-2, rtol=1e-5 if dtype == torch.float32 else 1e-2)
    ok = row.check("torch", lambda: torch.nn.functional.gelu(x, approximate="tanh"), reference,
                   **tol)
    add_copy(row, x, torch.empty_like(x))

    def run(module):
        out = torch.empty_like(x)
        launch_gelu(module, x, out)
        return out
    ok &= add_kernels(row, kernels, run, reference, **tol)
    row.time_all(args)
    row.ratios = [("tessera", "copy"), ("tessera", "torch"), ("tessera", "triton")]
    return row, ok


def plan(args):
    """The rows to measure, as (kind, shape arguments...)."""
    rows = []
    if args.suite in ("all", "gemm"):
        for dtype in args.dtypes.split(","):
            for size in [int(s) for s in args.sizes.split(",")]:
                for layout in args.layouts.split(","):
                    for kernel in args.gemm_kernels.split(","):
                        rows.append(("gemm", size, DTYPES[dtype], layout, kernel))
    if args.suite in ("all", "weight-only"):
        # A square GEMM, and a batch of 128 rows through a large weight (where
        # reading the weight bounds the time).
        shapes = [(4096, 4096, 4096)] + ([] if args.quick else [(128, 8192, 8192)])
        for dtype in (torch.float16,) if args.quick else (torch.float16, torch.bfloat16):
            for m, n, k in shapes:
                rows.append(("weight_only", m, n, k, dtype))
    for kernel in ("softmax", "layernorm", "layernorm-p"):
        if args.suite in ("all", kernel.removesuffix("-p")):
            for cols in (1024, 4096) if args.quick else (1024, 2048, 4096, 8192):
                for dtype in (torch.float16, torch.float32):
                    rows.append((kernel, 8192, cols, dtype))
    if args.suite in ("all", "attention"):
        # 32 heads (a batch of 4 of 8 heads) of 4096 positions.
        for head_dim in (128,) if args.quick else (64, 128):
            for causal in (False, True):
                rows.append(("attention", 32, 4096, head_dim, causal, torch.float16))
    if args.suite in ("all", "add"):
        for n in (1 << 24, 1 << 28) if not args.quick else (1 << 24,):
            rows.append(("add", n, torch.float32))
    if args.suite in ("all", "gelu"):
        for dtype in (torch.float32, torch.bfloat16):
            rows.append(("gelu", 1 << 24, dtype))
    return rows


def run_row(kernels, args, item):
    kind, *shape = item
    if kind == "gemm":
        return bench_gemm(kernels, args, *shape)
    if kind == "add":
        return bench_add(kernels, args, *shape)
    if kind == "gelu":
        return bench_gelu(kernels, args, *shape)
    if kind == "weight_only":
        return bench_weight_only(kernels, args, *shape)
    if kind == "attention":
        return bench_attention(kernels, args, *shape)
    return bench_rows(kernels, args, kind, *shape)


# The SM count export assumes (an H100's or H200's): persistent kernels take it
# as their program count, a launch value that is not compiled in.
EXPORT_SMS = 132


def export_row(recorder, item):
    """Records the Tessera launches run_row would make, on TensorSpecs."""
    from aot import TensorSpec
    kind, *shape = item
    if kind == "gemm":
        size, dtype, layout, kernel = shape
        a, b = gemm_operands(TensorSpec, size, dtype, layout)
        launch_gemm(recorder, a, b, TensorSpec((size, size), gemm_result_dtype(dtype)), kernel,
                    programs=EXPORT_SMS)
    elif kind == "add":
        n, dtype = shape
        launch_add(recorder, *[TensorSpec((n,), dtype)] * 3)
    elif kind == "gelu":
        n, dtype = shape
        launch_gelu(recorder, *[TensorSpec((n,), dtype)] * 2)
    elif kind == "attention":
        heads, n_ctx, head_dim, causal, dtype = shape
        qkv = TensorSpec((heads, n_ctx, head_dim), dtype)
        launch_attention(recorder, qkv, qkv, qkv, qkv, causal)
    elif kind == "weight_only":
        m, n, k, dtype = shape
        launch_weight_only(recorder, TensorSpec((m, k), dtype), TensorSpec((k, n), torch.int8),
                           TensorSpec((n,), dtype), TensorSpec((m, n), dtype))
    else:
        rows, cols, dtype = shape
        x = TensorSpec((rows, cols), dtype)
        launch_rows(recorder, kind, x, x, TensorSpec((cols,), dtype), TensorSpec((cols,), dtype),
                    EXPORT_SMS)


def triton_cdiv(a, b):
    return (a + b - 1) // b


def autotuned_choices(module):
    """Per autotuned kernel of a loaded kernels module and tuning key (the key
    arguments' values and dtypes): the config its autotuner kept, to set
    beside the cubins Tessera's tuning picked."""
    lines = []
    for name in sorted(vars(module)):
        cache = getattr(getattr(module, name), "cache", None)
        if isinstance(cache, dict):
            lines += [f"{name} {key}: {config}" for key, config in sorted(cache.items(), key=str)]
    return lines


def print_table(rows):
    names = []
    for row in rows:
        for name in list(row.rates) + list(row.notes):
            if name not in names:
                names.append(name)
    header = f"{'kernel':<11} {'shape':<16} {'dtype':<5} {'unit':<8}" + "".join(
        f"{name:>10}" for name in names) + "  ratios"
    print(header)
    print("-" * len(header))
    for row in rows:
        cells = "".join(f"{row.rates[name]:>10.1f}" if name in row.rates else f"{'-':>10}"
                        for name in names)
        ratios = []
        for num, den in row.ratios:
            if num in row.rates and den in row.rates and row.rates[den] > 0:
                ratios.append(f"{num}/{den}={row.rates[num] / row.rates[den]:.2f}x")
        print(f"{row.kernel:<11} {row.shape:<16} {row.dtype:<5} {row.unit:<8}{cells}  "
              + " ".join(ratios))
    notes = [(row, name, note) for row in rows for name, note in row.notes.items()]
    if notes:
        print("\nnotes:")
        for row, name, note in notes:
            print(f"  {row.kernel} {row.shape} {row.dtype} {name}: {note}")


WORK_INSTRUCTIONS = ("wgmma.mma_async", "mma.sync", "cp.async.cg", "cp.async.ca", "ld.global.v4",
                     "st.global.v4", "st.shared.v4", "stmatrix",
                     "v_mfma", "v_wmma", "global_load_dwordx4")


def tessera_kernels(path=KERNELS):
    import tessera.compat.triton as tt
    from tessera import TensorDescriptor
    return load_kernels("tessera", tt.jit, tt.language, tt.autotune, tt.Config, TensorDescriptor,
                        path)


def recorded_launches(kernels, args):
    """Tessera's launches for the rows plan(args) measures, without a GPU."""
    from aot import Recorder
    recorder = Recorder(kernels)
    for item in plan(args):
        export_row(recorder, item)
    return recorder.launches


def compile_only(args):
    from aot import compile_launches
    kernels = tessera_kernels()
    print(f"Tessera's benchmark kernels compiled for {args.compile_only} (no GPU needed)")
    header = (f"{'kernel':<11} {'specialization':<44} {'warps':>5} {'stages':>6} {'regs':>5} "
              f"{'spills':>7} {'shared':>7} {'ms':>6}  instructions")
    print(header)
    print("-" * len(header))
    ok = True
    for entry, kernel in compile_launches(kernels, recorded_launches(kernels, args), args.compile_only):
        what = (f"{entry['kernel']:<11} {entry['runtime_signature'].replace(':16', '').replace(' ', '')[:44]:<44} "
                f"{entry['num_warps']:>5} {entry['num_stages']:>6}")
        constexprs = "x".join(str(v) for v in entry["constexprs"].values())
        if isinstance(kernel, Exception):
            print(f"{what}  FAILED ({constexprs}): {str(kernel).splitlines()[0]}")
            ok = False
            continue
        found = [f"{i}x{kernel.assembly.count(i)}" for i in WORK_INSTRUCTIONS if i in kernel.assembly]
        serialized = " WGMMA SERIALIZED by ptxas" if entry["serialized_wgmma"] else ""
        print(f"{what} {entry['registers']:>5} {entry['spills']:>7} {kernel.shared_bytes:>7} "
              f"{entry['compile_ms']:>6}  {constexprs}: {' '.join(found)}{serialized}")
    return 0 if ok else 1


def export(args):
    import aot
    kernels = tessera_kernels()
    launches = recorded_launches(kernels, args)
    print(f"exporting Tessera's benchmark kernels for {args.target} to {args.export}")
    failed = aot.export(args.export, kernels, launches, args.target)
    print(f"{'no' if not failed else failed} kernel{'s' if failed != 1 else ''} failed to compile; "
          f"run there: python3 bench/gpu/run.py --aot {args.export} (same --suite/--sizes/...)")
    return 1 if failed else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--suite", default="all",
                        choices=["all", "gemm", "weight-only", "softmax", "layernorm",
                                 "attention", "add", "gelu"])
    parser.add_argument("--sizes", default="1024,2048,4096,8192", help="GEMM sizes (M=N=K)")
    parser.add_argument("--dtypes", default="bf16,fp16",
                        help="GEMM dtypes: fp16, bf16, fp32 (tf32 products), fp8 (e4m3 with a "
                             "bf16 result; cuBLAS through torch._scaled_mm, NT only)")
    parser.add_argument("--gemm-kernels", default="matmul",
                        help="GEMM kernels of kernels.py: matmul (a program per tile), "
                             "matmul_unassumed (the same without tl.assume, as Triton's "
                             "tutorial before 3.2; rows gemm-nn-u, gemm-nt-u), "
                             "matmul_persistent (a program per SM; rows gemm-nn-p, gemm-nt-p), "
                             "matmul_persistent_carried (the same in the form of Triton's "
                             "tutorial; rows gemm-nn-pc, gemm-nt-pc), matmul_descriptors (host "
                             "tensor descriptors, TMA in Triton, cp.async in Tessera (tma=False); "
                             "rows gemm-nn-d, gemm-nt-d), matmul_descriptors_tma (the same, TMA in "
                             "Tessera too; rows gemm-nn-dt, gemm-nt-dt), matmul_descriptors_ws "
                             "(and a producer warpgroup in Tessera; rows -dw), "
                             "matmul_descriptors_persistent[_tma|_ws] (tutorial 09's persistent "
                             "TMA form; rows -dp, -dpt, -dpw)")
    parser.add_argument("--layouts", default="nn,nt",
                        help="GEMM operand layouts: nn (B row-major [K, N]), nt (B the transpose of "
                             "a row-major [N, K], as a PyTorch Linear's weight)")
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--reps", type=int, default=50)
    parser.add_argument("--quick", action="store_true", help="fewer shapes and repetitions")
    parser.add_argument("--json", help="also write the results here")
    parser.add_argument("--compile-only", metavar="TARGET",
                        help="compile Tessera's kernels for TARGET (e.g. cuda:sm_90a) and report "
                             "registers, spills and instructions; no GPU needed")
    parser.add_argument("--export", metavar="DIR",
                        help="compile Tessera's launches of these rows for --target into DIR (no "
                             "GPU needed), for --aot on a machine that cannot build Tessera")
    parser.add_argument("--target", default="cuda:sm_90a", help="--export's target")
    parser.add_argument("--aot", metavar="DIR",
                        help="run Tessera's kernels from the cubins --export wrote to DIR instead of "
                             "compiling them here")
    args = parser.parse_args()
    if args.quick:
        args.sizes, args.reps, args.warmup = "1000,4096", 20, 5
    if args.compile_only:
        return compile_only(args)
    if args.export:
        return export(args)
    if not torch.cuda.is_available():
        print("bench/gpu/run.py: no CUDA device visible to PyTorch; nothing to measure.")
        return 2
    args.dtype_name = {v: k for k, v in DTYPES.items()}
    print(f"device: {torch.cuda.get_device_name()}  torch {torch.__version__}")
    kernels = compilers(args.aot)
    rows, ok = [], True
    items = plan(args)
    for done, item in enumerate(items, 1):
        row, good = run_row(kernels, args, item)
        rows.append(row)
        ok &= good
        rates = " ".join(f"{name} {rate:.1f}" for name, rate in row.rates.items())
        print(f"[{done}/{len(items)}] {row.kernel} {row.shape} {row.dtype}: {rates} {row.unit}",
              file=sys.stderr, flush=True)
    print_table(rows)
    if hasattr(kernels.get("tessera"), "choices"):
        print("\nTessera's cubins, as tuned here:\n  " + "\n  ".join(kernels["tessera"].choices()))
    triton_module = kernels.get("triton")
    if triton_module is not None and not isinstance(triton_module, Exception):
        print("\nTriton's autotuner kept:\n  " + "\n  ".join(autotuned_choices(triton_module)))
    if args.json:
        with open(args.json, "w") as out:
            json.dump([dict(kernel=r.kernel, shape=r.shape, dtype=r.dtype, unit=r.unit,
                            rates=r.rates, notes=r.notes) for r in rows], out, indent=1)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
