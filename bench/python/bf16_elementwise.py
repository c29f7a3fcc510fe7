"""bf16 elementwise arithmetic on the CPU backend against PyTorch's CPU kernels.

    PYTHONPATH=build/python python3 bench/python/bf16_elementwise.py [--n 16777216] [--reps 7]

One fused kernel (`z = x * y + x`, then `where(z > 0, z, 0.5 * z)`, each bf16
operation rounded, as PyTorch's are) over n bf16 elements, and the same
expression in PyTorch, run in turns in this process; checks that both give
the same bits and prints the best time of each, the bytes each moves per
second (two inputs, one output) and the ratio. See docs/cpu-backend.md, "bf16".
"""

import argparse

import torch

import tessera
import tessera.language as tl
from best_time import best_seconds


@tessera.jit
def leaky_fma(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    z = x * y + x
    tl.store(out_ptr + offs, tl.where(z > 0, z, 0.5 * z), mask=mask)


def torch_leaky_fma(x, y):
    z = x * y + x
    return torch.where(z > 0, z, 0.5 * z)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=1 << 24)
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--block", type=int, default=4096)
    args = parser.parse_args()
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(args.n, generator=generator).to(torch.bfloat16)
    y = torch.randn(args.n, generator=generator).to(torch.bfloat16)
    out = torch.empty_like(x)
    grid = (tessera.cdiv(args.n, args.block),)
    launch = lambda: leaky_fma[grid](x, y, out, args.n, BLOCK=args.block)
    launch()  # compiles
    expected = torch_leaky_fma(x, y)
    if not torch.equal(out.view(torch.int16), expected.view(torch.int16)):
        raise SystemExit("Tessera's result differs from PyTorch's")
    tessera_s = best_seconds(launch, args.reps)
    torch_s = best_seconds(lambda: torch_leaky_fma(x, y), args.reps)
    gigabytes = 3 * args.n * x.element_size() / 1e9
    print(f"bf16 x * y + x, where; n = {args.n}, {torch.get_num_threads()} PyTorch threads")
    print(f"  Tessera  {tessera_s * 1e3:8.2f} ms  {gigabytes / tessera_s:6.2f} GB/s")
    print(f"  PyTorch  {torch_s * 1e3:8.2f} ms  {gigabytes / torch_s:6.2f} GB/s")
    print(f"  Tessera / PyTorch speed: {torch_s / tessera_s:.2f}x")


if __name__ == "__main__":
    main()
