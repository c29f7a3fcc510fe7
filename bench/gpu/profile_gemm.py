"""Launches only Tessera's exported GEMM, for a profiler on the GPU machine.

    ncu --set detailed --nvtx --nvtx-include "tessera-profiled/" -c 1 \\
        python3 bench/gpu/profile_gemm.py --aot build/gpu-aot --size 4096 --layout nn

--kernel picks one of run.py's GEMMs (a persistent one gets a program per SM).

The cubin is the one `run.py --aot` would pick for the shape, autotuned among
the exported configs first; only the launch after the tuning runs inside the
NVTX range "tessera-profiled", so the profiler can pick it out.
"""

import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from aot import AotKernels  # noqa: E402
from run import GEMM_ROW_SUFFIXES, gemm_operands, launch_gemm  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--aot", required=True, help="directory written by run.py --export")
    parser.add_argument("--size", type=int, default=4096)
    parser.add_argument("--dtype", default="bf16", choices=["bf16", "fp16", "fp32"],
                        help="fp32: operands and C in fp32, products in tf32")
    parser.add_argument("--layout", default="nn", choices=["nn", "nt"])
    parser.add_argument("--kernel", default="matmul", choices=["matmul", *GEMM_ROW_SUFFIXES])
    args = parser.parse_args()
    programs = torch.cuda.get_device_properties(0).multi_processor_count
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}[args.dtype]
    a, b = gemm_operands(lambda shape, dt: torch.randn(*shape, device="cuda", dtype=dt),
                         args.size, dtype, args.layout)
    c = torch.empty((args.size, args.size), device="cuda", dtype=dtype)
    kernels = AotKernels(args.aot)
    # Tunes first: one launch per exported config, then the pick.
    launch_gemm(kernels, a, b, c, args.kernel, programs)
    torch.cuda.synchronize()
    with torch.cuda.nvtx.range("tessera-profiled"):
        launch_gemm(kernels, a, b, c, args.kernel, programs)
        torch.cuda.synchronize()
    error = (c.float() - torch.matmul(a, b).float()).abs().max().item()
    print(*kernels.choices(), f"max |error| = {error:.3g}", sep="\n")


if __name__ == "__main__":
    main()
