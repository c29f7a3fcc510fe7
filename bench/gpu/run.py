"""Tessera on an NVIDIA GPU against cuBLAS, PyTorch and Triton, in one call.

    python3 bench/gpu/run.py                  # everything, prints one table
    python3 bench/gpu/run.py --suite gemm --sizes 4096 --dtypes bf16
    python3 bench/gpu/run.py --quick --json results.json
    python3 bench/gpu/run.py --compile-only cuda:sm_90a   # no GPU needed

Every kernel is first checked against PyTorch on the same inputs (a wrong
result is reported as WRONG and makes the exit status 1), then timed with
CUDA events: the median of --reps launches after --warmup launches. The
Tessera and Triton kernels come from the same source, bench/gpu/kernels.py.
GEMM is reported in TFLOP/s against torch.matmul (cuBLAS) and Triton;
softmax and layernorm in GB/s against Triton and PyTorch; vector add in GB/s
against a device-to-device copy of the same number of bytes. Needs PyTorch
with CUDA; Triton is optional (its columns are left empty without it).

--compile-only TARGET needs no GPU: it compiles Tessera's version of every
benchmark kernel (each GEMM tuning config, the row kernels at the widths the
table uses) for TARGET and prints, per kernel, the instructions that carry
the work (wgmma / mma.sync / 128-bit loads), registers, spills, shared memory
and compile time, so a machine without a device shows what a device would run.
"""

import argparse
import importlib.util
import json
import math
import os
import statistics
import sys

import time

import torch

KERNELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kernels.py")
DTYPES = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32}


def load_kernels(name, jit, language, autotune, config):
    """kernels.py as a module whose jit/tl/autotune/Config are the given ones."""
    spec = importlib.util.spec_from_file_location(f"bench_kernels_{name}", KERNELS)
    module = importlib.util.module_from_spec(spec)
    module.jit, module.tl, module.autotune, module.Config = jit, language, autotune, config
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def compilers():
    found = {}
    try:
        import tessera.compat.triton as tt
        found["tessera"] = load_kernels("tessera", tt.jit, tt.language, tt.autotune, tt.Config)
    except Exception as error:  # reported in the table, the peers still run
        found["tessera"] = error
    try:
        import triton
        import triton.language
        found["triton"] = load_kernels("triton", triton.jit, triton.language, triton.autotune,
                                       triton.Config)
    except Exception as error:
        found["triton"] = error
    return found


def time_ms(fn, warmup, reps):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


class Row:
    def __init__(self, kernel, shape, dtype, unit):
        self.kernel, self.shape, self.dtype, self.unit = kernel, shape, dtype, unit
        self.rates, self.notes = {}, {}


def measure(row, name, fn, reference, work, args, atol, rtol):
    """Checks fn() against reference, then times it; records rate or why not."""
    try:
        result = fn()
        torch.cuda.synchronize()
        if not torch.allclose(result.float(), reference.float(), atol=atol, rtol=rtol):
            error = (result.float() - reference.float()).abs().max().item()
            row.notes[name] = f"WRONG (max abs error {error:.3g})"
            return False
        ms = time_ms(fn, args.warmup, args.reps)
        row.rates[name] = work / (ms * 1e-3) / (1e12 if row.unit == "TFLOP/s" else 1e9)
    except Exception as error:
        row.notes[name] = f"{type(error).__name__}: {str(error).splitlines()[0][:70]}"
    return True


def bench_gemm(kernels, args, size, dtype):
    a = torch.randn(size, size, device="cuda", dtype=dtype)
    b = torch.randn(size, size, device="cuda", dtype=dtype)
    reference = torch.matmul(a, b)
    row = Row("gemm", f"{size}x{size}x{size}", args.dtype_name[dtype], "TFLOP/s")
    flops = 2.0 * size ** 3
    tol = dict(atol=1e-2 * math.sqrt(size), rtol=2e-2)
    ok = measure(row, "cuBLAS", lambda: torch.matmul(a, b), reference, flops, args, **tol)
    for name, module in kernels.items():
        if isinstance(module, Exception):
            row.notes[name] = f"unavailable: {str(module).splitlines()[0][:60]}"
            continue

        def run(module=module):
            c = torch.empty(size, size, device="cuda", dtype=dtype)
            grid = lambda meta: (triton_cdiv(size, meta["BLOCK_M"]) * triton_cdiv(size, meta["BLOCK_N"]),)
            module.matmul[grid](a, b, c, size, size, size, a.stride(0), a.stride(1), b.stride(0),
                                b.stride(1), c.stride(0), c.stride(1))
            return c
        ok &= measure(row, name, run, reference, flops, args, **tol)
    row.ratios = [("tessera", "cuBLAS"), ("tessera", "triton")]
    return row, ok


def bench_rows(kernels, args, kernel, rows, cols, dtype):
    x = torch.randn(rows, cols, device="cuda", dtype=dtype)
    block = 1 << (cols - 1).bit_length()
    row = Row(kernel, f"{rows}x{cols}", args.dtype_name[dtype], "GB/s")
    if kernel == "softmax":
        reference = torch.softmax(x.float(), dim=1).to(dtype)
        moved = 2.0 * x.numel() * x.element_size()
        torch_fn = lambda: torch.softmax(x, dim=1)
    else:
        w = torch.rand(cols, device="cuda", dtype=dtype)
        bias = torch.rand(cols, device="cuda", dtype=dtype)
        reference = torch.nn.functional.layer_norm(x.float(), (cols,), w.float(), bias.float(),
                                                   1e-5).to(dtype)
        moved = 2.0 * x.numel() * x.element_size() + 2.0 * cols * x.element_size()
        torch_fn = lambda: torch.nn.functional.layer_norm(x, (cols,), w, bias, 1e-5)
    tol = dict(atol=2e-2, rtol=2e-2)
    ok = measure(row, "torch", torch_fn, reference, moved, args, **tol)
    warps = 4 if block <= 2048 else 8 if block <= 8192 else 16
    for name, module in kernels.items():
        if isinstance(module, Exception):
            row.notes[name] = f"unavailable: {str(module).splitlines()[0][:60]}"
            continue

        def run(module=module):
            y = torch.empty_like(x)
            if kernel == "softmax":
                module.softmax[(rows,)](y, x, x.stride(0), y.stride(0), cols, BLOCK=block,
                                        num_warps=warps)
            else:
                module.layernorm[(rows,)](x, y, w, bias, x.stride(0), cols, 1e-5, BLOCK=block,
                                          num_warps=warps)
            return y
        ok &= measure(row, name, run, reference, moved, args, **tol)
    row.ratios = [("tessera", "triton"), ("tessera", "torch")]
    return row, ok


def bench_add(kernels, args, n, dtype):
    x = torch.randn(n, device="cuda", dtype=dtype)
    y = torch.randn(n, device="cuda", dtype=dtype)
    reference = x + y
    row = Row("vector_add", f"{n}", args.dtype_name[dtype], "GB/s")
    copy_dst = torch.empty_like(x)
    copy_src = torch.cat([x, y])[: n]
    copy_bytes = 2.0 * n * x.element_size()
    try:  # the device copy moves 2n elements; reported at its own GB/s
        ms = time_ms(lambda: copy_dst.copy_(copy_src), args.warmup, args.reps)
        row.rates["copy"] = copy_bytes / (ms * 1e-3) / 1e9
    except Exception as error:
        row.notes["copy"] = str(error)[:70]
    moved = 3.0 * n * x.element_size()
    ok = True
    for name, module in kernels.items():
        if isinstance(module, Exception):
            row.notes[name] = f"unavailable: {str(module).splitlines()[0][:60]}"
            continue

        def run(module=module):
            out = torch.empty_like(x)
            module.vector_add[(triton_cdiv(n, 1024),)](x, y, out, n, BLOCK=1024, num_warps=4)
            return out
        ok &= measure(row, name, run, reference, moved, args, atol=1e-2, rtol=1e-2)
    row.ratios = [("tessera", "copy"), ("triton", "copy")]
    return row, ok


def triton_cdiv(a, b):
    return (a + b - 1) // b


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


# (kernel, signature, constexpr names, num_warps, num_stages) for --compile-only;
# the signatures are those run.py's launches specialize to (unit strides,
# 16-byte aligned pointers and 16-divisible sizes).
def compile_cases(kernels):
    cases = [("vector_add", "*fp32:16, *fp32:16, *fp32:16, i32:16, 1024", 4, 2)]
    for cols in (1024, 4096, 8192):
        warps = 4 if cols <= 2048 else 8
        cases.append(("softmax", f"*fp16:16, *fp16:16, i32:16, i32:16, i32:16, {cols}", warps, 2))
        cases.append(("layernorm", f"*fp16:16, *fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, fp32, "
                                   f"{cols}", warps, 2))
    for config in kernels.MATMUL_CONFIGS:
        meta = config.kwargs
        cases.append(("matmul", "*bf16:16, *bf16:16, *bf16:16, i32:16, i32:16, i32:16, i32:16, 1, "
                                f"i32:16, 1, i32:16, 1, {meta['BLOCK_M']}, {meta['BLOCK_N']}, "
                                f"{meta['BLOCK_K']}, {meta['GROUP_M']}", config.num_warps,
                      config.num_stages))
    return cases


WORK_INSTRUCTIONS = ("wgmma.mma_async", "mma.sync", "cp.async.cg", "cp.async.ca", "ld.global.v4",
                     "st.global.v4", "st.shared.v4",
                     "v_mfma", "v_wmma", "global_load_dwordx4")


def compile_only(target):
    from tessera import _C
    from tessera.compile import _unwrap_kernel, parse_signature
    import tessera.compat.triton as tt
    kernels = load_kernels("tessera", tt.jit, tt.language, tt.autotune, tt.Config)
    print(f"Tessera's benchmark kernels compiled for {target} (no GPU needed)")
    header = (f"{'kernel':<11} {'config':<34} {'warps':>5} {'stages':>6} {'regs':>5} {'spills':>7} "
              f"{'shared':>7} {'ms':>6}  instructions")
    print(header)
    print("-" * len(header))
    ok = True
    for name, signature, warps, stages in compile_cases(kernels):
        fn = _unwrap_kernel(getattr(kernels, name))
        constexprs = signature.split(", ")[len(fn.arg_names) - len(fn.constexprs):]
        config = "x".join(constexprs) if name == "matmul" else constexprs[-1]
        try:
            values, plan = parse_signature(signature, fn.arg_names, fn.constexprs)
            start = time.perf_counter()
            compiled = fn.compile_for(values, plan, "interpreter")
            kernel = _C.compile_gpu(compiled.module, compiled.module.kernel_name, target, warps, stages)
            ms = (time.perf_counter() - start) * 1e3
        except Exception as error:  # reported in the table; the other kernels still compile
            print(f"{name:<11} {config:<34} {warps:>5} {stages:>6}  FAILED: {str(error).splitlines()[0]}")
            ok = False
            continue
        usage = kernel.usage
        spills = usage.get("spill_stores", usage.get("spills", -1))
        found = [f"{i}x{kernel.assembly.count(i)}" for i in WORK_INSTRUCTIONS if i in kernel.assembly]
        print(f"{name:<11} {config:<34} {warps:>5} {stages:>6} {usage['registers']:>5} {spills:>7} "
              f"{kernel.shared_bytes:>7} {ms:>6.0f}  {' '.join(found)}")
    return 0 if ok else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--suite", default="all", choices=["all", "gemm", "softmax", "layernorm", "add"])
    parser.add_argument("--sizes", default="1024,2048,4096,8192", help="GEMM sizes (M=N=K)")
    parser.add_argument("--dtypes", default="bf16,fp16", help="GEMM dtypes: fp16, bf16, fp32")
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--reps", type=int, default=50)
    parser.add_argument("--quick", action="store_true", help="fewer shapes and repetitions")
    parser.add_argument("--json", help="also write the results here")
    parser.add_argument("--compile-only", metavar="TARGET",
                        help="compile Tessera's kernels for TARGET (e.g. cuda:sm_90a) and report "
                             "registers, spills and instructions; no GPU needed")
    args = parser.parse_args()
    if args.compile_only:
        return compile_only(args.compile_only)
    if not torch.cuda.is_available():
        print("bench/gpu/run.py: no CUDA device visible to PyTorch; nothing to measure.")
        return 2
    if args.quick:
        args.sizes, args.reps, args.warmup = "1024,4096", 20, 5
    args.dtype_name = {v: k for k, v in DTYPES.items()}
    print(f"device: {torch.cuda.get_device_name()}  torch {torch.__version__}")
    kernels = compilers()
    rows, ok = [], True
    if args.suite in ("all", "gemm"):
        for dtype in args.dtypes.split(","):
            for size in [int(s) for s in args.sizes.split(",")]:
                row, good = bench_gemm(kernels, args, size, DTYPES[dtype])
                rows.append(row)
                ok &= good
    for kernel in ("softmax", "layernorm"):
        if args.suite in ("all", kernel):
            for cols in (1024, 4096) if args.quick else (1024, 2048, 4096, 8192):
                for dtype in (torch.float16, torch.float32):
                    row, good = bench_rows(kernels, args, kernel, 8192, cols, dtype)
                    rows.append(row)
                    ok &= good
    if args.suite in ("all", "add"):
        for n in (1 << 24, 1 << 28) if not args.quick else (1 << 24,):
            row, good = bench_add(kernels, args, n, torch.float32)
            rows.append(row)
            ok &= good
    print_table(rows)
    if args.json:
        with open(args.json, "w") as out:
            json.dump([dict(kernel=r.kernel, shape=r.shape, dtype=r.dtype, unit=r.unit,
                            rates=r.rates, notes=r.notes) for r in rows], out, indent=1)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
