"""Seeded dropout on the CPU backend against PyTorch's CPU dropout.

    PYTHONPATH=build/python python3 bench/python/dropout.py [--n 16777216] [--reps 7]

Triton's tutorial 04 kernel (`tl.rand(seed, offsets) > p` keeps an element,
scaled by 1 / (1 - p)): Philox4x32-10 per element, no mask stored, against
`torch.nn.functional.dropout` (which draws from its own generator), run in
turns in this process on n float32 elements. The kernel is
tests/python/test_tutorials.py's; its mask is checked against the seed's (the
NumPy Philox of tests/python/random_reference.py) and PyTorch's against its kept
fraction; then the script prints the best time of each, the bytes moved per
second (one input, one output) and the ratio. See docs/python-guide.md,
"Random numbers".
"""

import argparse
import os
import sys

import numpy as np
import torch

import tessera
from best_time import best_seconds

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "tests", "python"))
from random_reference import dropout_reference  # noqa: E402
from test_tutorials import _seeded_dropout as seeded_dropout  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=1 << 24)
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--block", type=int, default=1024)
    parser.add_argument("--p", type=float, default=0.3)
    args = parser.parse_args()
    seed = 1234
    x = torch.randn(args.n, generator=torch.Generator().manual_seed(0)) + 4  # no zeros
    out = torch.empty_like(x)
    grid = (tessera.cdiv(args.n, args.block),)
    launch = lambda: seeded_dropout[grid](x, out, args.n, args.p, seed, BLOCK_SIZE=args.block)
    launch()  # compiles
    checked = min(args.n, 1 << 16)  # the reference runs on Python integers
    keep, _ = dropout_reference(x[:checked].numpy(), args.p, seed)
    if not np.array_equal(out[:checked].numpy() != 0, keep):
        raise SystemExit("Tessera's mask differs from the seed's")
    dropped = lambda t: (t == 0).float().mean().item()
    torch_run = lambda: torch.nn.functional.dropout(x, args.p, training=True)
    print(f"dropout p = {args.p}, n = {args.n}, {torch.get_num_threads()} PyTorch threads; "
          f"dropped: Tessera {dropped(out):.4f}, PyTorch {dropped(torch_run()):.4f}")
    tessera_s = best_seconds(launch, args.reps)
    torch_s = best_seconds(torch_run, args.reps)
    gigabytes = 2 * args.n * x.element_size() / 1e9
    print(f"  Tessera  {tessera_s * 1e3:8.2f} ms  {gigabytes / tessera_s:6.2f} GB/s")
    print(f"  PyTorch  {torch_s * 1e3:8.2f} ms  {gigabytes / torch_s:6.2f} GB/s")
    print(f"  Tessera / PyTorch speed: {torch_s / tessera_s:.2f}x")


if __name__ == "__main__":
    main()
