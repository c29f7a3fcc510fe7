"""``triton.testing`` over Tessera: ``do_bench``, ``assert_close``, and
``perf_report``/``Benchmark``, the sweeps Triton's tutorials end with (their
tables printed, saved as CSV and plotted as SVG without matplotlib)."""

import csv
import os
import statistics
import sys
import time

import numpy as np

from tessera import svg_plot

__all__ = ["do_bench", "assert_close", "Benchmark", "perf_report"]


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


def _as_numpy(value):
    """`value` (a PyTorch tensor, a Tessera array, a NumPy array, a list or a
    number) as a NumPy array; bfloat16 tensors as float32."""
    if hasattr(value, "detach"):  # a PyTorch tensor
        value = value.detach().cpu()
        if str(value.dtype) in ("torch.bfloat16", "torch.float8_e4m3fn", "torch.float8_e5m2"):
            value = value.float()
        return value.numpy()
    if hasattr(value, "numpy"):  # a Tessera array, on any device
        return value.numpy()
    return np.asarray(value)


def assert_close(x, y, atol=None, rtol=None, err_msg=""):
    """Triton's ``assert_close``: |x - y| <= atol + rtol * |y| everywhere, with
    Triton's defaults (atol 1e-2, rtol 0); either may be a function of x's
    dtype."""
    x, y = _as_numpy(x), _as_numpy(y)
    atol = 1e-2 if atol is None else atol
    rtol = 0.0 if rtol is None else rtol
    atol = atol(x.dtype) if callable(atol) else atol
    rtol = rtol(x.dtype) if callable(rtol) else rtol
    np.testing.assert_allclose(x, y, atol=atol, rtol=rtol, equal_nan=True, err_msg=err_msg)


class Benchmark:
    """One sweep of ``perf_report``: the function is called for every value of
    ``x_vals`` (given to the arguments ``x_names``; a tuple gives one value
    each) and every value of ``line_arg`` in ``line_vals`` (one line each,
    named by ``line_names``), with ``args`` fixed. It returns a number, or
    (value, min, max)."""

    def __init__(self, x_names, x_vals, line_arg, line_vals, line_names, plot_name, args,
                 xlabel="", ylabel="", x_log=False, y_log=False, styles=None):
        if len(line_names) != len(line_vals):
            raise ValueError(f"Benchmark '{plot_name}': {len(line_names)} line_names for "
                             f"{len(line_vals)} line_vals")
        self.x_names, self.x_vals = list(x_names), list(x_vals)
        self.line_arg, self.line_vals, self.line_names = line_arg, list(line_vals), list(line_names)
        self.plot_name, self.args = plot_name, dict(args)
        self.xlabel, self.ylabel, self.x_log, self.y_log = xlabel, ylabel, x_log, y_log
        self.styles = styles


class BenchmarkTable:
    """A sweep's results (what Triton returns as a pandas DataFrame):
    ``columns``, ``rows``, ``table[column]`` (a list), ``to_string()``."""

    def __init__(self, columns, rows):
        self.columns, self.rows = columns, rows

    def __getitem__(self, column):
        return [row[self.columns.index(column)] for row in self.rows]

    def __len__(self):
        return len(self.rows)

    def to_string(self):
        cells = [[str(c) for c in self.columns]] + [[_cell(v) for v in row] for row in self.rows]
        widths = [max(len(r[i]) for r in cells) for i in range(len(self.columns))]
        lines = ["  ".join(c.rjust(w) for c, w in zip(r, widths)) for r in cells]
        return "\n".join(f"{'' if i == 0 else i - 1:>{len(str(len(self.rows)))}}  {line}"
                         for i, line in enumerate(lines))

    def to_pandas(self):
        import pandas
        return pandas.DataFrame(self.rows, columns=self.columns)


def _cell(value):
    if value is None:
        return "NaN"
    if isinstance(value, float):
        return f"{value:.6f}"
    return str(value)


class Mark:
    """What ``perf_report`` makes of a function: ``run`` runs its sweeps."""

    def __init__(self, fn, benchmarks):
        self.fn = fn
        self.benchmarks = benchmarks

    def _sweep(self, bench, **kwargs):
        """The value, min and max of every line at every x: rows of
        x values, then the values, the mins and the maxes in line order."""
        rows = []
        for i, x in enumerate(bench.x_vals, 1):
            values = list(x) if isinstance(x, (list, tuple)) else [x] * len(bench.x_names)
            if len(values) != len(bench.x_names):
                raise ValueError(f"Benchmark '{bench.plot_name}': x value {x!r} does not give "
                                 f"one value to each of {bench.x_names}")
            means, lows, highs = [], [], []
            for line in bench.line_vals:
                result = self.fn(**dict(zip(bench.x_names, values)), **{bench.line_arg: line},
                                 **bench.args, **kwargs)
                mean, low, high = (tuple(result) if isinstance(result, (tuple, list))
                                   else (result, None, None))
                means.append(mean)
                lows.append(low)
                highs.append(high)
            rows.append(values + means + lows + highs)
            print(f"{bench.plot_name or 'benchmark'}: {i}/{len(bench.x_vals)} "
                  f"({', '.join(f'{n}={v}' for n, v in zip(bench.x_names, values))})",
                  file=sys.stderr, flush=True)
        return rows

    def _run(self, bench, save_path, show_plots, print_data, **kwargs):
        rows = self._sweep(bench, **kwargs)
        n_x, n_lines = len(bench.x_names), len(bench.line_vals)
        unit = f" ({bench.ylabel})" if bench.ylabel else ""
        table = BenchmarkTable(bench.x_names + [f"{name}{unit}" for name in bench.line_names],
                               [row[:n_x + n_lines] for row in rows])
        if print_data:
            print(bench.plot_name + ":")
            print(table.to_string())
        if save_path and bench.plot_name:
            self._save(bench, table, rows, save_path)
        if show_plots:
            self._show(bench, table)
        return table

    def _series(self, bench, rows):
        n_x, n_lines = len(bench.x_names), len(bench.line_vals)
        series = []
        for i, name in enumerate(bench.line_names):
            color, style = (bench.styles[i] if bench.styles else (None, "-"))
            series.append(svg_plot.Series(
                name, [(row[0], row[n_x + i]) for row in rows],
                [(row[0], row[n_x + n_lines + i], row[n_x + 2 * n_lines + i]) for row in rows
                 if row[n_x + n_lines + i] is not None and row[n_x + 2 * n_lines + i] is not None],
                color, style))
        return series

    def _save(self, bench, table, rows, save_path):
        os.makedirs(save_path, exist_ok=True)
        with open(os.path.join(save_path, f"{bench.plot_name}.csv"), "w", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(table.columns)
            writer.writerows([[_cell(v) for v in row] for row in table.rows])
        svg = svg_plot.line_plot(self._series(bench, rows), bench.plot_name,
                                 bench.xlabel or bench.x_names[0], bench.ylabel, bench.x_log,
                                 bench.y_log)
        with open(os.path.join(save_path, f"{bench.plot_name}.svg"), "w") as f:
            f.write(svg)

    def _show(self, bench, table):
        try:
            import matplotlib.pyplot as plt
        except ImportError:
            print(f"{bench.plot_name}: show_plots needs matplotlib, which is not installed; "
                  "save_path=DIR writes the plot as an SVG file instead", file=sys.stderr)
            return
        axes = plt.figure().add_subplot()
        for i, name in enumerate(table.columns[len(bench.x_names):]):
            color, style = (bench.styles[i] if bench.styles else (None, "-"))
            axes.plot(table[table.columns[0]], table[name], label=name, color=color, ls=style)
        axes.legend()
        axes.set_xlabel(bench.xlabel or bench.x_names[0])
        axes.set_ylabel(bench.ylabel)
        axes.set_xscale("log" if bench.x_log else "linear")
        axes.set_yscale("log" if bench.y_log else "linear")
        plt.show()

    def run(self, show_plots=False, print_data=False, save_path="", return_df=False, **kwargs):
        """Runs every sweep (progress on stderr): prints its table with
        ``print_data``, writes ``PLOT_NAME.csv``, ``PLOT_NAME.svg`` and a
        ``results.html`` showing the plots into ``save_path``, shows the plot
        with matplotlib with ``show_plots``; returns the tables with
        ``return_df`` (pandas DataFrames where pandas is installed)."""
        single = isinstance(self.benchmarks, Benchmark)
        benchmarks = [self.benchmarks] if single else list(self.benchmarks)
        tables = []
        try:
            for bench in benchmarks:
                tables.append(self._run(bench, save_path, show_plots, print_data, **kwargs))
        finally:
            if save_path:
                os.makedirs(save_path, exist_ok=True)
                with open(os.path.join(save_path, "results.html"), "w") as html:
                    html.write("<html><body>\n")
                    for bench in benchmarks[:len(tables)]:
                        html.write(f'<img src="{bench.plot_name}.svg"/>\n')
                    html.write("</body></html>\n")
        if not return_df:
            return None
        try:
            tables = [t.to_pandas() for t in tables]
        except ImportError:
            pass
        return tables[0] if single else tables


def perf_report(benchmarks):
    """Triton's decorator: ``f = perf_report(Benchmark(...))(f)``; then
    ``f.run(print_data=True, save_path=...)``."""
    return lambda fn: Mark(fn, benchmarks)
