"""Device time of GPU work for the benchmark and its ahead-of-time tuner:
CUDA graphs of several calls, each after an L2 flush, replayed and timed with
events, so that neither the host's launch cost (a launch from Python costs
more than a small GEMM runs) nor inputs left in L2 count."""

import statistics

import torch

# Calls per captured graph, and the buffer whose zeroing flushes L2 (larger
# than the 50-60 MB of an H100/H200) before each call.
GRAPH_CALLS = 10
FLUSH_BYTES = 128 << 20


def capture(body):
    """A CUDA graph of body()'s launches (run once on a side stream first, as
    capture requires)."""
    graph, stream = torch.cuda.CUDAGraph(), torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        body()
    torch.cuda.current_stream().wait_stream(stream)
    with torch.cuda.graph(graph):
        body()
    return graph


def replay_ms(graph, reps):
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        graph.replay()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def time_ms(fn, warmup, reps):
    """Device time of one fn(), in ms, free of the host's launch cost and of
    inputs left in L2: GRAPH_CALLS calls, each after an L2 flush, replayed as
    one CUDA graph, less the same graph of flushes alone; the median of
    `reps` replays. The same for every column, so ratios compare kernels."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    flush = torch.empty(FLUSH_BYTES, dtype=torch.uint8, device="cuda")

    def calls():
        for _ in range(GRAPH_CALLS):
            flush.zero_()
            fn()

    def flushes():
        for _ in range(GRAPH_CALLS):
            flush.zero_()
    with_calls, alone = capture(calls), capture(flushes)
    replay_ms(with_calls, warmup)
    ms = (replay_ms(with_calls, reps) - replay_ms(alone, reps)) / GRAPH_CALLS
    if ms <= 0:
        raise RuntimeError("the kernel's time is lost in the timing noise of the L2 flush")
    return ms
