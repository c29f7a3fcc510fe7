"""tl.histogram and tl.gather on the CPU backend against PyTorch and NumPy.

    PYTHONPATH=build/python python3 bench/python/histogram.py [--n 16777216] [--bins 256]

Histogram: each program counts BLOCK int32 values into `bins` bins with
tl.histogram and adds its counts to the global ones with one tl.atomic_add of
the bins, against `torch.bincount` and `np.bincount` on the same values.
Gather: each program picks K of the C columns of each of its rows with
tl.gather (np.take_along_axis), against `torch.gather`. Results are checked
against the peers, then the best time of each is printed with the ratio.
See docs/python-guide.md, "tessera.language".
"""

import argparse

import numpy as np
import torch

import tessera
import tessera.language as tl
from best_time import best_seconds


@tessera.jit
def block_histogram(x_ptr, counts_ptr, n, BLOCK: tl.constexpr, BINS: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    tl.atomic_add(counts_ptr + tl.arange(0, BINS), tl.histogram(x, BINS, mask=offs < n))


@tessera.jit
def row_gather(src_ptr, index_ptr, out_ptr, rows, ROWS: tl.constexpr, C: tl.constexpr,
               K: tl.constexpr):
    r = tl.program_id(0) * ROWS + tl.arange(0, ROWS)[:, None]
    src = tl.load(src_ptr + r * C + tl.arange(0, C)[None, :], mask=r < rows, other=0.0)
    picks = r * K + tl.arange(0, K)[None, :]
    index = tl.load(index_ptr + picks, mask=r < rows, other=0)
    tl.store(out_ptr + picks, tl.gather(src, index, 1), mask=r < rows)


def report(name, tessera_s, peers, gigabytes):
    print(f"  Tessera  {tessera_s * 1e3:8.2f} ms  {gigabytes / tessera_s:6.2f} GB/s")
    for peer, seconds in peers:
        print(f"  {peer:<8} {seconds * 1e3:8.2f} ms  {gigabytes / seconds:6.2f} GB/s  "
              f"(Tessera / {peer}: {seconds / tessera_s:.2f}x)")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=1 << 24)
    parser.add_argument("--bins", type=int, default=256)
    parser.add_argument("--block", type=int, default=32768)
    parser.add_argument("--rows", type=int, default=1 << 16)
    parser.add_argument("--columns", type=int, default=64)
    parser.add_argument("--picks", type=int, default=32)
    parser.add_argument("--reps", type=int, default=7)
    args = parser.parse_args()
    rng = np.random.default_rng(0)

    x = torch.from_numpy(rng.integers(0, args.bins, args.n, dtype=np.int32))
    counts = torch.zeros(args.bins, dtype=torch.int32)
    grid = (tessera.cdiv(args.n, args.block),)

    def histogram():
        counts.zero_()
        block_histogram[grid](x, counts, args.n, BLOCK=args.block, BINS=args.bins)

    histogram()  # compiles
    if not torch.equal(counts.long(), torch.bincount(x, minlength=args.bins)):
        raise SystemExit("Tessera's histogram differs from torch.bincount")
    print(f"histogram: {args.n} int32 values in {args.bins} bins, "
          f"{torch.get_num_threads()} PyTorch threads")
    report("histogram", best_seconds(histogram, args.reps),
           [("PyTorch", best_seconds(lambda: torch.bincount(x, minlength=args.bins), args.reps)),
            ("NumPy", best_seconds(lambda: np.bincount(x.numpy(), minlength=args.bins),
                                   args.reps))],
           args.n * 4 / 1e9)

    rows, C, K = args.rows, args.columns, args.picks
    src = torch.from_numpy(rng.standard_normal((rows, C), dtype=np.float32))
    index = torch.from_numpy(rng.integers(0, C, (rows, K), dtype=np.int32))
    index64 = index.long()  # torch.gather takes int64 indices
    out = torch.empty(rows, K)
    rows_per_program = max(1, 4096 // C)
    gather_grid = (tessera.cdiv(rows, rows_per_program),)
    gather = lambda: row_gather[gather_grid](src, index, out, rows, ROWS=rows_per_program, C=C,
                                             K=K)
    gather()
    if not torch.equal(out, torch.gather(src, 1, index64)):
        raise SystemExit("Tessera's gather differs from torch.gather")
    print(f"gather: {K} of {C} float32 columns of {rows} rows")
    report("gather", best_seconds(gather, args.reps),
           [("PyTorch", best_seconds(lambda: torch.gather(src, 1, index64), args.reps))],
           (rows * C * 4 + 2 * rows * K * 4) / 1e9)


if __name__ == "__main__":
    main()
