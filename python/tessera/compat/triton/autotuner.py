"""``triton.autotune``, ``triton.Config`` and ``triton.heuristics`` over Tessera.

    @triton.autotune(configs=[triton.Config({"BLOCK": 64}, num_warps=4),
                              triton.Config({"BLOCK": 128}, num_warps=8)],
                     key=["n"])
    @triton.jit
    def kernel(x_ptr, n, BLOCK: tl.constexpr): ...

    kernel[grid](x, n)   # times each config for this key, keeps the best

The first launch for a new key (the values of the ``key`` arguments plus the
dtypes of array arguments) compiles every config, times each on the current
backend and keeps the fastest in memory (``kernel.cache[key]``); later
launches with that key run it directly. On the CPU and the interpreter one
run of each config is timed; on a GPU (PyTorch CUDA tensors or Tessera
arrays on a GPU), as in Triton, ``do_bench`` times each for 25 + 100 ms, from
launch until the GPU is done.

With ``cache_results=True`` (or $TESSERA_CACHE_AUTOTUNING / Triton's
$TRITON_CACHE_AUTOTUNING set to 1) the timings are also kept on disk, as a
tuning record in the cache's ``tuning`` folder (``tessera cache``), and a
later process with the same kernel code, key, configs, device and Tessera
version takes the best config from it without timing anything. A record
that does not read back whole is removed and the configs are timed again.

With $TESSERA_PRINT_AUTOTUNING (or Triton's $TRITON_PRINT_AUTOTUNING) set to
1, each tuning prints its progress, config by config, and what it chose.
"""

import builtins
import json
import math
import os
import platform
import time

from tessera import _C
from tessera.errors import CompilationError, LaunchError
from tessera.jit import array_device, default_backend, device_info

from .testing import do_bench, timed_ms

__all__ = ["Config", "Autotuner", "autotune", "Heuristics", "heuristics"]


class Config:
    """One point of an autotuning space: meta-parameter values (``kwargs``)
    and launch options. ``num_warps``, ``num_stages``, ``num_ctas`` and
    ``maxnreg`` are passed to the launch (the CPU backend ignores them);
    ``pre_hook(args)`` runs before every launch with this config, with the
    launch's arguments by name (the config's kwargs included)."""

    def __init__(self, kwargs, num_warps=4, num_stages=3, num_ctas=1, maxnreg=None, pre_hook=None):
        self.kwargs = dict(kwargs)
        self.num_warps = num_warps
        self.num_stages = num_stages
        self.num_ctas = num_ctas
        self.maxnreg = maxnreg
        self.pre_hook = pre_hook

    def all_kwargs(self):
        options = {"num_warps": self.num_warps, "num_stages": self.num_stages,
                   "num_ctas": self.num_ctas, "maxnreg": self.maxnreg}
        return {**self.kwargs, **{k: v for k, v in options.items() if v is not None}}

    def __str__(self):
        parts = [f"{k}: {v}" for k, v in self.kwargs.items()]
        parts += [f"num_warps: {self.num_warps}", f"num_ctas: {self.num_ctas}",
                  f"num_stages: {self.num_stages}", f"maxnreg: {self.maxnreg}"]
        return ", ".join(parts)

    __repr__ = __str__

    def __eq__(self, other):
        return isinstance(other, Config) and self.all_kwargs() == other.all_kwargs()

    def __hash__(self):
        return hash(tuple(sorted(self.all_kwargs().items())))


def _arg_names(fn):
    names = getattr(fn, "arg_names", None)
    if names is None:
        raise TypeError(f"{fn!r} is not a @triton.jit kernel (apply @triton.jit below "
                        "@triton.autotune / @triton.heuristics)")
    return names


class _KernelWrapper:
    """What autotune and heuristics share: ``kernel[grid](...)`` and the
    attributes of the JIT function they wrap."""

    def __init__(self, fn):
        self.fn = fn
        self.arg_names = _arg_names(fn)
        self.__name__ = getattr(fn, "__name__", "kernel")
        self.__doc__ = getattr(fn, "__doc__", None)

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(*args, grid=grid, **kwargs)

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"'{self.__name__}' is a kernel: launch it with {self.__name__}[grid](...)")

    def _named(self, args, kwargs):
        if len(args) > len(self.arg_names):
            raise TypeError(f"kernel '{self.__name__}' takes {len(self.arg_names)} arguments but "
                            f"{len(args)} were given")
        return {**dict(zip(self.arg_names, args)), **kwargs}

    def warmup(self, *args, **kwargs):
        return self.fn.warmup(*args, **kwargs)


def _on_gpu(named):
    """Whether a launch with these arguments runs on a GPU: an array among
    them lives on one (a PyTorch CUDA tensor, a Tessera array on a GPU)."""
    return builtins.any(array_device(value) not in ("cpu", None) for value in named.values())


def _zero(value):
    if hasattr(value, "zero_"):
        value.zero_()
    else:
        value[...] = 0


def _copy(value):
    return value.clone() if hasattr(value, "clone") else value.copy()


def _restore(value, saved):
    if hasattr(value, "copy_"):
        value.copy_(saved)
    else:
        value[...] = saved


class Autotuner(_KernelWrapper):
    """The object ``@triton.autotune`` makes (see the module doc)."""

    def __init__(self, fn, configs, key, reset_to_zero=None, restore_value=None, pre_hook=None,
                 post_hook=None, prune_configs_by=None, warmup=None, rep=None, do_bench=None,
                 cache_results=False):
        super().__init__(fn)
        self.configs = list(configs) if configs else [Config({})]
        self.keys = list(key or [])
        for name in self.keys:
            if name not in self.arg_names:
                raise ValueError(f"autotune key '{name}' is not a parameter of kernel "
                                 f"'{self.__name__}' ({', '.join(self.arg_names)})")
        self.reset_to_zero = list(reset_to_zero or [])
        self.restore_value = list(restore_value or [])
        self.user_pre_hook = pre_hook
        self.user_post_hook = post_hook
        prune_configs_by = prune_configs_by or {}
        self.perf_model = prune_configs_by.get("perf_model")
        self.configs_top_k = prune_configs_by.get("top_k")
        self.early_config_prune = prune_configs_by.get("early_config_prune")
        self.num_warmups = warmup
        self.num_reps = rep
        self.user_do_bench = do_bench
        self.cache_results = cache_results or builtins.any(
            os.environ.get(name) == "1" for name in ("TESSERA_CACHE_AUTOTUNING",
                                                     "TRITON_CACHE_AUTOTUNING"))
        self.print_progress = builtins.any(
            os.environ.get(name) == "1" for name in ("TESSERA_PRINT_AUTOTUNING",
                                                     "TRITON_PRINT_AUTOTUNING"))
        self.cache = {}
        self.configs_timings = {}
        self.best_config = None
        self.bench_time = 0.0
        self.nargs = None

    def _key(self, named):
        key = [named[k] for k in self.keys if k in named]
        for value in named.values():
            dtype = getattr(value, "dtype", None)
            if dtype is not None and not isinstance(value, (int, float)):
                key.append(str(dtype))
        key.append(default_backend())
        return tuple(key)

    def prune_configs(self, named):
        configs = self.configs
        if self.early_config_prune:
            configs = list(self.early_config_prune(configs, named))
            if not configs:
                raise ValueError(f"kernel '{self.__name__}': early_config_prune kept none of its "
                                 f"{len(self.configs)} configs")
        if self.perf_model and self.configs_top_k:
            top_k = self.configs_top_k
            if isinstance(top_k, float) and top_k <= 1.0:
                top_k = int(len(configs) * top_k)
            top_k = builtins.max(1, top_k)
            estimates = {c: self.perf_model(**named, **c.all_kwargs()) for c in configs}
            configs = sorted(configs, key=lambda c: estimates[c])[:top_k]
        return configs

    def _launch(self, config, args, kwargs, grid):
        conflicts = sorted(set(config.kwargs) & set(kwargs))
        if conflicts:
            raise ValueError(f"Conflicting meta-parameters: {', '.join(conflicts)}. Make sure that you "
                             "don't re-define auto-tuned symbols.")
        full = {**kwargs, **config.all_kwargs()}
        if config.pre_hook is not None:
            config.pre_hook({**self._named(args, kwargs), **config.all_kwargs()})
        return self.fn.run(*args, grid=grid, **full)

    def _bench(self, config, args, kwargs, grid):
        named = self._named(args, kwargs)

        def once():
            for name in self.reset_to_zero:
                _zero(named[name])
            if self.user_pre_hook is not None:
                self.user_pre_hook(named)
            self._launch(config, args, kwargs, grid)
            if self.user_post_hook is not None:
                self.user_post_hook(named, None)

        try:
            once()  # compiles
            if self.user_do_bench is not None:
                result = self.user_do_bench(once)
                return result[0] if isinstance(result, (list, tuple)) else float(result)
            # A GPU raises its clocks over its first milliseconds of work,
            # so one run would favour the configs timed last: on a GPU each
            # config runs for Triton's default 25 + 100 ms.
            if self.num_warmups is not None or self.num_reps is not None or _on_gpu(named):
                return do_bench(once, warmup=self.num_warmups or 25, rep=self.num_reps or 100,
                                return_mode="median")
            return timed_ms(once)
        except (CompilationError, LaunchError) as e:
            return e

    def _time_configs(self, configs, args, kwargs, grid, named):
        """Each config's time (ms) or the error it failed with."""
        saved = {name: _copy(named[name]) for name in self.restore_value}
        start = time.perf_counter()
        timings = {}
        for i, config in enumerate(configs):
            timings[config] = self._bench(config, args, kwargs, grid)
            if self.print_progress:
                t = timings[config]
                result = f"failed: {t}".splitlines()[0] if isinstance(t, Exception) else f"{t:.4f} ms"
                print(f"tessera autotune: {self.__name__} [{i + 1}/{len(configs)}] {config}: {result}",
                      flush=True)
        self.bench_time = time.perf_counter() - start
        for name, value in saved.items():
            _restore(named[name], value)
        return timings

    def _record_key(self, key, configs, named):
        """The text a tuning record is filed under: everything its timings
        depend on."""
        jit_fn = self.fn
        while not hasattr(jit_fn, "source_digest"):
            jit_fn = jit_fn.fn
        timing = (f"do_bench={getattr(self.user_do_bench, '__qualname__', self.user_do_bench)}"
                  if self.user_do_bench else f"warmup={self.num_warmups} rep={self.num_reps}")
        lines = [f"kernel={self.__name__}", f"record=autotune {_RECORD_FORMAT}",
                 f"source-sha256={jit_fn.source_digest()}", f"tessera={_C.tessera_version()}",
                 f"device={_device_description(named)}", f"key={key!r}", f"timing={timing}"]
        return "\n".join(lines + [f"config={c}" for c in configs])

    def run(self, *args, grid, **kwargs):
        named = self._named(args, kwargs)
        self.nargs = named
        key = self._key(named)
        if key not in self.cache:
            configs = self.prune_configs(named)
            record = self._record_key(key, configs, named) if self.cache_results else None
            timings = _read_record(record, configs) if record else None
            from_record = timings is not None
            if from_record:
                self.bench_time = 0.0
            else:
                timings = self._time_configs(configs, args, kwargs, grid, named)
            good = {c: t for c, t in timings.items() if not isinstance(t, Exception)}
            if not good:
                raise next(iter(timings.values()))
            if record and not from_record:
                _write_record(record, timings)
            self.cache[key] = builtins.min(good, key=good.get)
            if self.print_progress:
                how = ("taken from its tuning record" if from_record
                       else f"timed in {self.bench_time:.2f} s")
                print(f"tessera autotune: {self.__name__} key {key}: {len(timings)} configs {how}; "
                      f"best {self.cache[key]} ({good[self.cache[key]]:.4f} ms)", flush=True)
            self.configs_timings = {c: (t if not isinstance(t, Exception) else float("inf"))
                                    for c, t in timings.items()}
        config = self.cache[key]
        self.best_config = config
        for name in self.reset_to_zero:
            _zero(named[name])
        return self._launch(config, args, kwargs, grid)


def _device_description(named):
    """The device the configs are timed on, as a tuning record names it."""
    devices = sorted({array_device(v) for v in named.values()} - {None, "cpu"})
    if devices:
        return device_info(devices[0])
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as info:
            model = next((line.split(":", 1)[1].strip() for line in info
                          if line.startswith("model name")), model)
    except OSError:
        pass
    return f"cpu {model}, {_C.cpu_threads()} threads"


def _read_record(record, configs):
    """The timings a tuning record holds for `configs` (ms; inf for those that
    failed), or None where there is none or it does not read back whole (then
    it is removed)."""
    payload = _C.tuning_record(record)
    if payload is None:
        return None
    by_name = {str(c): c for c in configs}
    try:
        data = json.loads(payload)
        entries = data["timings"] if data.get("format") == _RECORD_FORMAT else None
        timings = {by_name[name]: math.inf if ms is None else float(ms) for name, ms in entries}
        finite = [t for t in timings.values() if math.isfinite(t)]
        if len(timings) != len(configs) or not finite or builtins.min(finite) < 0 or \
                builtins.any(math.isnan(t) for t in timings.values()):
            raise ValueError("the record does not time every config")
    except (TypeError, ValueError, KeyError, AttributeError):
        _C.reject_tuning_record(record)
        return None
    return timings


def _write_record(record, timings):
    """Files `timings` (failed configs as null) under `record`; a record that
    cannot be written only costs the next process a tuning."""
    entries = [[str(c), None if isinstance(t, Exception) else t] for c, t in timings.items()]
    payload = json.dumps({"format": _RECORD_FORMAT, "timings": entries})
    _C.store_tuning_record(record, payload.encode())


_RECORD_FORMAT = 1


def autotune(configs, key, prune_configs_by=None, reset_to_zero=None, restore_value=None,
             pre_hook=None, post_hook=None, warmup=None, rep=None, use_cuda_graph=False,
             do_bench=None, cache_results=False):
    """``triton.autotune``: see the module doc. ``key`` names the arguments
    whose values select a tuning result; ``reset_to_zero`` / ``restore_value``
    name array arguments zeroed before each timed run / restored after tuning;
    ``warmup``/``rep`` (ms) time each config with ``do_bench`` instead of one
    run; ``prune_configs_by`` takes ``perf_model``, ``top_k`` and
    ``early_config_prune``; ``cache_results`` keeps the timings on disk
    (see the module doc). ``use_cuda_graph`` is accepted and ignored."""
    def decorator(fn):
        return Autotuner(fn, configs, key, reset_to_zero=reset_to_zero, restore_value=restore_value,
                         pre_hook=pre_hook, post_hook=post_hook, prune_configs_by=prune_configs_by,
                         warmup=warmup, rep=rep, do_bench=do_bench, cache_results=cache_results)
    return decorator


class Heuristics(_KernelWrapper):
    """The object ``@triton.heuristics`` makes: each value is computed from the
    launch's arguments by name and passed as a keyword argument."""

    def __init__(self, fn, values):
        super().__init__(fn)
        self.values = dict(values)

    def run(self, *args, grid, **kwargs):
        named = self._named(args, kwargs)
        for name, heuristic in self.values.items():
            value = heuristic(named)
            kwargs[name] = value
            named[name] = value
        return self.fn.run(*args, grid=grid, **kwargs)


def heuristics(values):
    """``triton.heuristics({"NAME": lambda args: ...})``."""
    def decorator(fn):
        return Heuristics(fn, values)
    return decorator
