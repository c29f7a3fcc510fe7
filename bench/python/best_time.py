"""The best wall-clock time of several runs: the measure bench/python's
scripts report, since a 2-core machine's noise only ever adds time."""

import time


def best_seconds(run, reps):
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)
