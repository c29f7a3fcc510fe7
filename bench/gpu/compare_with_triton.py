"""Registers, spills, SASS, barriers and compile time of one kernel as Tessera and Triton compile it.

Needs no GPU: both compilers build the same source (bench/gpu/kernels.py by
default, loaded as run.py loads it) for a named NVIDIA target, the same
ptxas (/usr/local/cuda) assembles both PTX files, and Triton's nvdisasm counts
their SASS instructions and BAR.SYNCs. Triton is a reference beside the
project, never a dependency: without it this script says so and exits 2.

    python3 bench/gpu/compare_with_triton.py layernorm_persistent \\
        "*fp16:16, *fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, fp32, 1024, 4" \\
        --warps 8 --stages 3

The signature is `tessera compile`'s (Triton's AOT form): pointers and
scalars with an optional `:16` divisibility, then the constexprs' values.
`--rows ROWS,WARPS ...` compares several ROWS/num_warps configs of a row
kernel at once (the last constexpr replaced by ROWS); `--keep DIR` leaves
both compilers' PTX, cubin and SASS there (tessera.sass, triton.ptx, ...).
The compile time is each compiler's from the kernel's source to the
assembled kernel (ptxas included),
with both on-disk caches bypassed (TESSERA_CACHE=0, TRITON_ALWAYS_COMPILE=1);
the first config's includes what a process pays once (a cold start).
"""

import argparse
import ast
import os
import re
import subprocess
import sys
import tempfile
import time

# Each compile runs whole: neither compiler answers from its on-disk cache.
os.environ["TESSERA_CACHE"] = "0"
os.environ["TRITON_ALWAYS_COMPILE"] = "1"

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import KERNELS, load_kernels, tessera_kernels  # noqa: E402

PTXAS = "/usr/local/cuda/bin/ptxas"
# The PTX ISA that PTXAS (CUDA 13) reads: Triton's bundled ptxas may be newer.
PTX_VERSION = ".version 9.0"


def signature_entries(signature):
    """The comma-separated entries, commas inside <> and [] kept."""
    return [entry.strip() for entry in re.split(r",(?![^<\[]*[>\]])", signature)]


def jit_function(kernel):
    """The @jit function under @autotune and @heuristics wrappers, if any
    (each wraps a kernel object in `fn`; the @jit function wraps a plain one)."""
    while hasattr(getattr(kernel, "fn", None), "arg_names"):
        kernel = kernel.fn
    return kernel


def triton_ptx(kernels, name, signature, warps, stages, capability):
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    import triton

    fn = jit_function(getattr(kernels, name))
    types, constexprs, attrs = {}, {}, {}
    for index, (arg, entry) in enumerate(zip(fn.arg_names, signature_entries(signature))):
        kind, _, divisibility = entry.partition(":")
        if re.fullmatch(r"-?[0-9.e+-]+|True|False", kind):
            constexprs[arg] = ast.literal_eval(kind)  # a number or a bool
            types[arg] = "constexpr"
            continue
        types[arg] = kind
        if divisibility == "16":
            attrs[(index,)] = [["tt.divisibility", 16]]
    source = ASTSource(fn=fn, signature=types, constexprs=constexprs, attrs=attrs)
    compiled = triton.compile(source, target=GPUTarget("cuda", capability, 32),
                              options={"num_warps": warps, "num_stages": stages})
    return re.sub(r"\.version \d+\.\d+", PTX_VERSION, compiled.asm["ptx"])


def tessera_ptx(kernels, name, signature, warps, stages, target):
    from tessera import _C
    from tessera.compile import parse_signature

    fn = jit_function(getattr(kernels, name))
    values, plan = parse_signature(signature, fn.arg_names, fn.constexprs)
    compiled = fn.compile_for(values, plan, "interpreter")
    kernel = _C.compile_gpu(compiled.module, compiled.module.kernel_name, target,
                            num_warps=warps, num_stages=stages)
    return kernel.assembly


def measure(ptx, arch, directory, label, tools):
    """(registers, spill bytes stored, SASS instructions, BAR.SYNCs)."""
    ptx_path = os.path.join(directory, f"{label}.ptx")
    cubin_path = os.path.join(directory, f"{label}.cubin")
    with open(ptx_path, "w") as out:
        out.write(ptx)
    assembled = subprocess.run([PTXAS, "-v", f"-arch={arch}", ptx_path, "-o", cubin_path],
                               capture_output=True, text=True)
    if assembled.returncode:
        raise RuntimeError(f"ptxas on {label}'s PTX: {assembled.stderr.strip()}")
    registers = int(re.search(r"Used (\d+) registers", assembled.stderr).group(1))
    spills = int(re.search(r"(\d+) bytes spill stores", assembled.stderr).group(1))
    sass = subprocess.run([os.path.join(tools, "nvdisasm"), "-c", cubin_path],
                          capture_output=True, text=True, check=True).stdout
    with open(os.path.join(directory, f"{label}.sass"), "w") as out:
        out.write(sass)
    instructions = [line for line in sass.splitlines() if re.match(r"\s+/\*[0-9a-f]{4}\*/", line)]
    barriers = sum("BAR.SYNC" in line for line in instructions)
    return registers, spills, len(instructions), barriers


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("kernel", help="a @jit kernel of --file")
    parser.add_argument("signature", help="tessera compile's --signature")
    parser.add_argument("--file", default=KERNELS,
                        help="kernels in Triton's language with jit/tl/autotune/Config injected, "
                             "as run.py loads them (default bench/gpu/kernels.py)")
    parser.add_argument("--target", default="sm_90a", choices=["sm_90a", "sm_80"])
    parser.add_argument("--warps", type=int, default=4)
    parser.add_argument("--stages", type=int, default=3)
    parser.add_argument("--rows", nargs="+", metavar="ROWS,WARPS",
                        help="compare these configs instead: the signature's last constexpr "
                             "replaced by ROWS, num_warps by WARPS")
    parser.add_argument("--keep", metavar="DIR",
                        help="leave each compiler's PTX, cubin and SASS in DIR "
                             "(tessera.ptx, triton.sass, ...; the last config's)")
    args = parser.parse_args()
    # Fused multiply-adds, as Tessera's default (and Triton 3.9's, which warns when unset).
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    try:
        import triton
        import triton.language
    except ImportError:
        print("Triton is not installed (pip install triton): nothing to compare with",
              file=sys.stderr)
        return 2
    from triton.tools.tensor_descriptor import TensorDescriptor

    tools = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin")
    theirs = load_kernels("triton", triton.jit, triton.language, triton.autotune, triton.Config,
                          TensorDescriptor, args.file)
    ours = tessera_kernels(args.file)
    capability = 90 if args.target.startswith("sm_90") else 80
    configs = [(args.signature, args.warps)]
    if args.rows:
        head = args.signature.rsplit(",", 1)[0]
        configs = [(f"{head}, {rows}", int(warps))
                   for rows, warps in (config.split(",") for config in args.rows)]
    print(f"{args.kernel} for {args.target}, num_stages={args.stages}: "
          "registers / spill bytes / SASS instructions / BAR.SYNCs / compile ms")
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        directory = args.keep or scratch
        for signature, warps in configs:
            row = [f"[{signature}] warps={warps}"]
            for label, ptx in (
                    ("tessera", lambda: tessera_ptx(ours, args.kernel, signature, warps,
                                                    args.stages, f"cuda:{args.target}")),
                    ("triton", lambda: triton_ptx(theirs, args.kernel, signature, warps,
                                                  args.stages, capability))):
                try:
                    start = time.perf_counter()
                    text = ptx()
                    milliseconds = (time.perf_counter() - start) * 1e3
                    registers, spills, instructions, barriers = measure(
                        text, args.target, directory, label, tools)
                    row.append(f"{label} {registers} / {spills} / {instructions} / {barriers} / "
                               f"{milliseconds:.0f}")
                except Exception as error:  # one compiler's failure leaves the other's row
                    row.append(f"{label} failed: {str(error).splitlines()[0][:120]}")
            print("  " + "  |  ".join(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
