"""``triton.testing`` over Tessera: ``do_bench``."""

import statistics
import sys
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


def synchronize():
    """Waits for PyTorch's CUDA work, where PyTorch has started CUDA: kernels
    on its CUDA tensors are launched asynchronously on its current stream,
    and a timer around the launch alone would time the launch, not the
    kernel. Launches on Tessera's own arrays and on the CPU return when the
    kernel has run."""
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_available() and torch.cuda.is_initialized():
        torch.cuda.synchronize()


def timed_ms(fn):
    """Milliseconds from calling `fn` until the work it launched is done."""
    synchronize()
    start = time.perf_counter()
    fn()
    synchronize()
    return (time.perf_counter() - start) * 1e3


def do_bench(fn, warmup=25, rep=100, grad_to_none=None, quantiles=None, return_mode="mean"):
    """Triton's ``do_bench``: runs ``fn`` for about ``warmup`` ms, then times it
    repeatedly for about ``rep`` ms, and returns milliseconds: the
    ``quantiles`` asked for (a list), else the ``return_mode`` statistic of the
    runs ("min", "max", "mean", "median" or "all" for the list of times).

    Each run is timed with ``time.perf_counter`` from the call until its work
    is done (``synchronize``: kernels on PyTorch CUDA tensors run
    asynchronously), so a GPU run's time includes its launch; Triton's, timed
    with CUDA events, does not. Triton flushes the L2 cache between runs; this
    does not."""
    if return_mode not in ("min", "max", "mean", "median", "all"):
        raise ValueError(f"do_bench: return_mode must be one of min, max, mean, median, all; "
                         f"got {return_mode!r}")
    timed_ms(fn)  # compiles on first use
    # Estimate one run's time from up to 5 runs (Triton does the same).
    spent_ms, runs = 0.0, 0
    while runs < 5 and spent_ms <= rep:
        spent_ms += timed_ms(fn)
        runs += 1
    estimate_ms = max(spent_ms / runs, 1e-6)
    n_warmup = max(1, int(warmup / estimate_ms))
    n_repeat = max(1, int(rep / estimate_ms))
    for _ in range(n_warmup):
        fn()
    times = []
    for _ in range(n_repeat):
        if grad_to_none is not None:
            for x in grad_to_none:
                x.grad = None
        times.append(timed_ms(fn))
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
