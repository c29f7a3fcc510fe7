"""Launch overhead of an empty @tessera.jit kernel on a warm cache, from Python.

    PYTHONPATH=build/python python3 bench/python/launch_overhead.py [--launches 10000] [--backend cpu]

Compiles once, warms up, then times each of N launches of an empty kernel
(one program, a pointer and an int argument, as Triton's own launch-latency
measurements use) with time.perf_counter_ns and prints the median and
percentiles in microseconds. See docs/python-guide.md for the figures.
"""

import argparse
import os
import statistics
import time

import numpy as np

import tessera
import tessera.language as tl


@tessera.jit
def empty_kernel(x_ptr, n, BLOCK: tl.constexpr):
    pass


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--launches", type=int, default=10000)
    parser.add_argument("--backend", choices=["cpu", "interpreter"], default=None)
    args = parser.parse_args()
    if args.backend:
        os.environ["TESSERA_INTERPRET"] = "1" if args.backend == "interpreter" else "0"
    x = np.zeros(1024, np.float32)
    launch = empty_kernel[(1,)]
    for _ in range(200):  # compile and warm up
        launch(x, 1024, BLOCK=128)
    times = []
    clock = time.perf_counter_ns
    for _ in range(args.launches):
        t0 = clock()
        launch(x, 1024, BLOCK=128)
        times.append(clock() - t0)
    times.sort()
    us = lambda ns: ns / 1e3
    print(f"backend={tessera.default_backend()} launches={args.launches} "
          f"median={us(statistics.median(times)):.2f}us p10={us(times[len(times) // 10]):.2f}us "
          f"p90={us(times[9 * len(times) // 10]):.2f}us")


if __name__ == "__main__":
    main()
