"""``triton.testing`` over Tessera: ``do_bench``."""

import statistics
import time

__all__ = ["do_bench"]


def _quantiles(times, quantiles):
    ordered = sorted(times)
    out = []
    for q in quantiles:
        # Linear interpolation, as torch.quantile does.
        pos = q * (len(ordered) - 1)
        lo = int(pos)
        hi = min(lo + 1, len(ordered) - 1)
        out.append(ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo))
    return out


def do_bench(fn, warmup=25, rep=100, grad_to_none=None, quantiles=None, return_mode="mean"):
    """Triton's ``do_bench``: runs ``fn`` for about ``warmup`` ms, then times it
    repeatedly for about ``rep`` ms, and returns milliseconds: the
    ``quantiles`` asked for (a list), else the ``return_mode`` statistic of the
    runs ("min", "max", "mean", "median" or "all" for the list of times).

    Kernels run synchronously on the CPU backend and the interpreter, so each
    run is timed with ``time.perf_counter`` around the call (Triton flushes
    the L2 cache between runs; on the CPU that is not done)."""
    if return_mode not in ("min", "max", "mean", "median", "all"):
        raise ValueError(f"do_bench: return_mode must be one of min, max, mean, median, all; "
                         f"got {return_mode!r}")
    start = time.perf_counter()
    fn()  # compiles on first use
    estimate_ms = (time.perf_counter() - start) * 1e3
    # Estimate one run's time from up to 5 runs (Triton does the same).
    start = time.perf_counter()
    runs = 0
    while runs < 5:
        fn()
        runs += 1
        if (time.perf_counter() - start) * 1e3 > rep:
            break
    estimate_ms = max((time.perf_counter() - start) * 1e3 / runs, 1e-6)
    n_warmup = max(1, int(warmup / estimate_ms))
    n_repeat = max(1, int(rep / estimate_ms))
    for _ in range(n_warmup):
        fn()
    times = []
    for _ in range(n_repeat):
        if grad_to_none is not None:
            for x in grad_to_none:
                x.grad = None
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    if quantiles is not None:
        ret = _quantiles(times, quantiles)
        return ret[0] if len(ret) == 1 else ret
    if return_mode == "all":
        return times
    if return_mode == "min":
        return min(times)
    if return_mode == "max":
        return max(times)
    if return_mode == "median":
        return statistics.median(times)
    return statistics.fmean(times)
