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


def replay_ms(graph):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    graph.replay()
    end.record()
    end.synchronize()
    return start.elapsed_time(end)


def time_each_ms(fns, warmup, reps):
    """Device time of one call of each of `fns` (name -> callable), in ms,
    free of the host's launch cost and of inputs left in L2: GRAPH_CALLS
    calls, each after an L2 flush, captured as one CUDA graph, less the same
    graph of flushes alone; the median of `reps` replays. The graphs replay
    in turns (one replay of each per round), so that a GPU whose clocks drift
    as it heats or idles favours none of them: ratios compare kernels."""
    for fn in fns.values():
        for _ in range(warmup):
            fn()
    torch.cuda.synchronize()
    flush = torch.empty(FLUSH_BYTES, dtype=torch.uint8, device="cuda")

    def calls(fn):
        def body():
            for _ in range(GRAPH_CALLS):
                flush.zero_()
                fn()
        return body
    graphs = {name: capture(calls(fn)) for name, fn in fns.items()}
    graphs[None] = capture(calls(lambda: None))  # the flushes alone
    for graph in graphs.values():
        for _ in range(warmup):
            replay_ms(graph)
    samples = {name: [] for name in graphs}
    for _ in range(reps):
        for name, graph in graphs.items():
            samples[name].append(replay_ms(graph))
    alone = statistics.median(samples.pop(None))
    result = {}
    for name, times in samples.items():
        ms = (statistics.median(times) - alone) / GRAPH_CALLS
        if ms <= 0:
            raise RuntimeError(f"{name}: the kernel's time is lost in the timing noise of the L2 "
                               "flush")
        result[name] = ms
    return result


def time_ms(fn, warmup, reps):
    """time_each_ms of fn alone."""
    return time_each_ms({"kernel": fn}, warmup, reps)["kernel"]
