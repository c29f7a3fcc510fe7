"""Tessera's benchmark kernels on a GPU machine that cannot build Tessera.

A lent GPU box often has another OS and Python than the build machine, and no
LLVM/MLIR. There the bench still runs Tessera's code: `run.py --export DIR`
compiles, on the build machine, every launch the bench will make into DIR (one
cubin per kernel, specialization and tuning config, plus manifest.json), and
`run.py --aot DIR` on the GPU machine launches those cubins through the CUDA
driver (ctypes on libcuda, on PyTorch's stream) where it would call the JIT.

The specialization of a launch is computed from its arguments by the JIT's own
rules (`signature_of`), at export from `TensorSpec`s and at run time from the
tensors, so a launch finds exactly the cubin the JIT would have compiled, and
one that was not exported fails naming the signature it needed.
"""

import ctypes
import json
import os
import time

import torch

from timing import time_ms

MANIFEST = "manifest.json"
# Tessera's own launch options that change the code (part of a cubin's key),
# with the JIT's defaults: TMA copies and stores, and a producer warpgroup for
# a TMA-copied loop. An export's own option beside them: `driver_jit` writes
# the kernel's PTX (and a NUL) instead of its cubin, which cuModuleLoadData
# hands to the driver's JIT, as Tessera does where no ptxas is found.
COMPILER_FLAGS = {"tma": True, "warp_specialize": False, "driver_jit": False}
_DTYPE_NAMES = {torch.float16: "fp16", torch.bfloat16: "bf16", torch.float32: "fp32",
                torch.float64: "fp64", torch.int32: "i32", torch.int64: "i64", torch.int8: "i8",
                torch.uint8: "u8", torch.int16: "i16", torch.bool: "i1",
                torch.float8_e4m3fn: "fp8e4nv", torch.float8_e5m2: "fp8e5"}


class TensorSpec:
    """What a launch needs to know of a tensor at export: shape, strides,
    dtype and (as the allocator gives) a 256-byte aligned address."""

    def __init__(self, shape, dtype, strides=None):
        self.shape, self.dtype = tuple(shape), dtype
        if strides is None:
            strides, step = [], 1
            for extent in reversed(self.shape):
                strides.insert(0, step)
                step *= extent
        self._strides = tuple(strides)

    def stride(self, dim=None):
        return self._strides if dim is None else self._strides[dim]

    def t(self):
        return TensorSpec(self.shape[::-1], self.dtype, self._strides[::-1])

    def data_ptr(self):
        return 0


class HostDescriptor:
    """A host tensor descriptor where no TensorDescriptor class is at hand
    (the GPU machine imports neither Tessera nor, necessarily, Triton)."""

    def __init__(self, base, shape, strides, block_shape, padding="zero"):
        self.base, self.shape, self.strides = base, list(shape), list(strides)
        self.block_shape, self.padding = list(block_shape), padding


def flags_of(options):
    """Every COMPILER_FLAGS entry of launch `options`, as a bool."""
    return {flag: bool(options.get(flag, default)) for flag, default in COMPILER_FLAGS.items()}


def flag_words(entry):
    """' tma', ' no-tma', ' driver-jit', ' warp_specialize' for a manifest
    entry: whose kernel copies or stores with TMA (it takes tensor maps), that
    was asked for cp.async, that is exported as PTX, that has a producer
    warpgroup."""
    words = " tma" if entry.get("tensor_maps") else ""
    words += " no-tma" if not entry.get("tma", True) else ""
    words += " driver-jit" if entry.get("driver_jit") else ""
    return words + (" warp_specialize" if entry.get("warp_specialize") else "")


def is_descriptor(value):
    return all(hasattr(value, field) for field in ("base", "shape", "strides", "block_shape"))


def signature_entry(value):
    """The Triton AOT signature entry the JIT specializes `value` to. A host
    descriptor is Triton's tensordesc<dtype[block]>, with Tessera's :16 (:8)
    where its whole shape divides by 16 (8): the JIT keys on each entry and
    stride apart, the cubin on that and outer strides of 16 bytes."""
    if is_descriptor(value):
        block = ", ".join(str(b) for b in value.block_shape)
        divides = min(16 if d % 16 == 0 else 8 if d % 8 == 0 else 0 for d in value.shape)
        nan = ", nan" if getattr(value, "padding", "zero") == "nan" else ""
        return f"tensordesc<{_DTYPE_NAMES[value.base.dtype]}[{block}]{nan}>" + (
            f":{divides}" if divides else "")
    if isinstance(value, (torch.Tensor, TensorSpec)):
        return f"*{_DTYPE_NAMES[value.dtype]}" + (":16" if value.data_ptr() % 16 == 0 else "")
    if isinstance(value, bool):
        return "i1"
    if isinstance(value, int):
        ty = "i32" if -2**31 <= value < 2**31 else "i64"
        if value == 1:
            return f"{ty}:1"
        return f"{ty}:16" if value % 16 == 0 else f"{ty}:8" if value % 8 == 0 else ty
    if isinstance(value, float):
        return "fp32"
    raise TypeError(f"no signature entry for {type(value).__name__}")


def signature_of(arg_names, constexprs, values):
    return ", ".join(repr(values[name]) if name in constexprs else signature_entry(values[name])
                     for name in arg_names)


def runtime_signature(arg_names, constexprs, values):
    """The entries of the arguments a launch passes (constexprs left out)."""
    return ", ".join(signature_entry(values[n]) for n in arg_names if n not in constexprs)


def bind(arg_names, args, kwargs):
    values = dict(zip(arg_names, args))
    values.update(kwargs)
    return values


class Recorder:
    """Stands in for the kernels module at export: `rec.KERNEL[grid](...)`
    records the launch, for each tuning config of an autotuned kernel."""

    COMPILER = "tessera"

    def __init__(self, kernels):
        self.kernels, self.launches = kernels, []

    def __getattr__(self, name):
        wrapper = getattr(self.kernels, name)
        if not hasattr(wrapper, "__getitem__"):  # not a kernel: TensorDescriptor
            return wrapper
        recorder = self

        class Launch:
            def __getitem__(self, grid):
                def record(*args, **kwargs):
                    options = {k: kwargs.pop(k) for k in ("num_warps", "num_stages",
                                                          *COMPILER_FLAGS) if k in kwargs}
                    tuned = getattr(wrapper, "configs", [])
                    if tuned:  # as the autotuner would: only the configs it keeps
                        tuned = wrapper.prune_configs(bind(wrapper.arg_names, args, kwargs))
                    configs = [(c.kwargs, c.num_warps, c.num_stages) for c in tuned]
                    if not configs:
                        configs = [({}, options.get("num_warps", 4), options.get("num_stages", 2))]
                    recorder.launches.append((name, args, kwargs, configs,
                                              flags_of(options)))
                return record
        return Launch()


def compile_launches(kernels, launches, target):
    """Yields (entry, compiled GpuKernel or the exception) for each distinct
    specialization and config of the recorded launches."""
    from tessera import _C
    from tessera.compile import _unwrap_kernel, parse_signature
    seen = set()
    for name, args, kwargs, configs, flags in launches:
        fn = _unwrap_kernel(getattr(kernels, name))
        for constexprs, warps, stages in configs:
            values = bind(fn.arg_names, args, {**kwargs, **constexprs})
            signature = signature_of(fn.arg_names, fn.constexprs, values)
            key = (name, signature, warps, stages, tuple(flags.items()))
            if key in seen:
                continue
            seen.add(key)
            entry = dict(kernel=name, signature=signature,
                         runtime_signature=runtime_signature(fn.arg_names, fn.constexprs, values),
                         num_warps=warps, num_stages=stages, **flags,
                         constexprs={k: v for k, v in values.items() if k in fn.constexprs})
            start = time.perf_counter()
            try:
                planned_values, plan = parse_signature(signature, fn.arg_names, fn.constexprs)
                compiled = fn.compile_for(planned_values, plan, "interpreter")
                compiler_flags = {k: v for k, v in flags.items() if k != "driver_jit"}
                kernel = _C.compile_gpu(compiled.module, compiled.module.kernel_name, target, warps,
                                        stages, **compiler_flags)
            except Exception as error:  # reported by the caller; the others still compile
                yield entry, error
                continue
            if kernel.ptx_for_driver_jit:
                yield entry, RuntimeError(f"cannot write a cubin: {kernel.usage['report']}")
                continue
            entry.update(params=[p[0] for p in plan if p is not None], function=kernel.kernel_name,
                         block_threads=kernel.block_threads, shared_bytes=kernel.shared_bytes,
                         tensor_maps=kernel.tensor_maps,
                         registers=kernel.usage["registers"], spills=kernel.usage["spills"],
                         serialized_wgmma=bool(kernel.usage["serialized_wgmma"]),
                         dots=[without_place(dot) for dot in kernel.dots],
                         pipelines=[without_place(loop) for loop in kernel.pipelines],
                         compile_ms=round((time.perf_counter() - start) * 1e3))
            yield entry, kernel


def without_place(note):
    """A compiled kernel's note ("file:line:col: what") without its place in
    the source, which the manifest would tie to a file of this machine."""
    return note.split(": ", 1)[-1]


def dot_words(entry):
    """'dot=INSTRUCTION ' per dot of an exported kernel (what its tl.dot runs
    on); empty for a kernel without dots or exported before they were kept."""
    return "".join(f"dot={dot} " for dot in entry.get("dots", []))


def export(directory, kernels, launches, target, log=print):
    """Compiles each recorded launch for `target` into `directory`; returns
    the number of kernels that failed to compile."""
    from tessera.compile import _unwrap_kernel
    os.makedirs(directory, exist_ok=True)
    entries, failed = [], 0
    for entry, kernel in compile_launches(kernels, launches, target):
        what = (f"{entry['kernel']} [{entry['signature']}] warps={entry['num_warps']} "
                f"stages={entry['num_stages']}{flag_words(entry)}")
        if isinstance(kernel, Exception):
            log(f"  FAILED {what}: {str(kernel).splitlines()[0]}")
            failed += 1
            continue
        suffix = "ptx" if entry["driver_jit"] else "cubin"
        entry["file"] = f"{entry['kernel']}-{len(entries)}.{suffix}"
        with open(os.path.join(directory, entry["file"]), "wb") as out:
            out.write(kernel.assembly.encode() + b"\0" if entry["driver_jit"] else kernel.binary)
        entries.append(entry)
        log(f"  {entry['file']:<16} {what} regs={entry['registers']} spills={entry['spills']} "
            f"{dot_words(entry)}{'WGMMA SERIALIZED ' if entry['serialized_wgmma'] else ''}"
            f"({entry['compile_ms'] / 1e3:.1f} s)")
    signatures, tune_keys = {}, {}
    for name, *_ in launches:
        wrapper = getattr(kernels, name)
        fn = _unwrap_kernel(wrapper)
        signatures[name] = (list(fn.arg_names), sorted(fn.constexprs))
        tune_keys[name] = list(getattr(wrapper, "keys", []))
    with open(os.path.join(directory, MANIFEST), "w") as out:
        json.dump(dict(target=target, kernels=signatures, tune_keys=tune_keys, entries=entries),
                  out, indent=1)
    return failed


class CudaDriver:
    """The few driver calls a cubin launch needs, on PyTorch's context."""

    def __init__(self):
        self.lib = ctypes.CDLL("libcuda.so.1")
        torch.cuda.init()
        torch.zeros(1, device="cuda")  # makes PyTorch's primary context current here

    def check(self, result, call):
        if result != 0:
            text = ctypes.c_char_p()
            self.lib.cuGetErrorString(result, ctypes.byref(text))
            raise RuntimeError(f"{call} failed: {text.value.decode() if text.value else result}")

    def load(self, path, function, shared_bytes):
        module, handle = ctypes.c_void_p(), ctypes.c_void_p()
        with open(path, "rb") as f:
            image = f.read()
        self.check(self.lib.cuModuleLoadData(ctypes.byref(module), image), f"cuModuleLoadData({path})")
        self.check(self.lib.cuModuleGetFunction(ctypes.byref(handle), module, function.encode()),
                   f"cuModuleGetFunction({function})")
        max_dynamic_shared = 8  # CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
        self.check(self.lib.cuFuncSetAttribute(handle, max_dynamic_shared, ctypes.c_int(shared_bytes)),
                   f"cuFuncSetAttribute({function}, {shared_bytes} bytes of shared memory)")
        return handle

    def encode_tensor_map(self, recipe, params):
        """The 128-byte CUtensorMap of `recipe` (a GpuKernel.tensor_maps
        entry) for a launch of `params`, as the CUDA runtime's
        tensorMapEncoding encodes it (runtime/cuda/CudaTensorMaps.cpp): this
        machine has no Tessera build to call."""
        data_types = {"bf16": 9, "f16": 6, "f32": 7, "f64": 8}
        unsigned = {1: 0, 2: 1, 4: 2, 8: 4}
        data_type = data_types.get(recipe["element"], unsigned[recipe["element_bytes"]])
        rank = len(recipe["shape"])
        # A parameter's number, or ["constant", value] compiled into the kernel.
        value = lambda entry: entry[1] if isinstance(entry, list) else params[entry][1]
        dims = [value(p) for p in reversed(recipe["shape"])]
        strides = [value(p) * recipe["element_bytes"] for p in reversed(recipe["strides"])]
        if value(recipe["base"]) % 16 or any(s % 16 for s in strides) or min(dims) < 1:
            raise ValueError(f"TMA cannot describe base {value(recipe['base']):#x}, shape {dims} "
                             f"and byte strides {strides} (innermost first)")
        storage = ctypes.create_string_buffer(128 + 64)
        aligned = (ctypes.addressof(storage) + 63) // 64 * 64
        swizzle = {0: 0, 32: 1, 64: 2, 128: 3}[recipe["swizzle"]]
        array = lambda ctype, values: (ctype * len(values))(*values)
        self.check(self.lib.cuTensorMapEncodeTiled(
            ctypes.c_void_p(aligned), data_type, ctypes.c_uint(rank),
            ctypes.c_void_p(value(recipe["base"])), array(ctypes.c_uint64, dims),
            array(ctypes.c_uint64, strides or [0]), array(ctypes.c_uint32, recipe["box"]),
            array(ctypes.c_uint32, [1] * rank), 0, swizzle, 3, 1 if recipe["nan_padding"] else 0),
            "cuTensorMapEncodeTiled")
        return ctypes.string_at(aligned, 128)

    def launch(self, handle, grid, block_threads, shared_bytes, params, tensor_maps=()):
        slots = []
        for kind, value in params:
            if kind == "ptr":
                slots.append(ctypes.c_void_p(value))
            elif kind == "i64":
                slots.append(ctypes.c_int64(value))
            elif kind in ("i32", "i1"):
                slots.append(ctypes.c_int32(value))
            elif kind == "f32":
                slots.append(ctypes.c_float(value))
            else:
                raise TypeError(f"AOT launch: parameter kind {kind} is not supported")
        slots += [ctypes.create_string_buffer(self.encode_tensor_map(recipe, params), 128)
                  for recipe in tensor_maps]
        pointers = (ctypes.c_void_p * max(len(slots), 1))(
            *[ctypes.cast(ctypes.byref(slot), ctypes.c_void_p) for slot in slots])
        grid = list(grid) + [1] * (3 - len(grid))
        stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
        self.check(self.lib.cuLaunchKernel(handle, *[ctypes.c_uint(g) for g in grid],
                                           ctypes.c_uint(block_threads), ctypes.c_uint(1),
                                           ctypes.c_uint(1), ctypes.c_uint(shared_bytes), stream,
                                           pointers, None), "cuLaunchKernel")


def launch_params(arg_names, constexprs, kinds, values):
    """The (kind, value) of each kernel parameter a launch passes, from the
    kinds of the cubin's parameters (`kinds`, constexprs left out) and the
    arguments by name: a host descriptor as the JIT passes one, its base
    pointer, shape (i32) and outer strides (i64)."""
    params, kinds = [], iter(kinds)
    for name in arg_names:
        if name in constexprs:
            continue
        value, kind = values[name], next(kinds)
        if kind == "desc":
            params.append(("ptr", value.base.data_ptr()))
            params.extend(("i32", int(d)) for d in value.shape)
            params.extend(("i64", int(s)) for s in value.strides[:-1])
        else:
            params.append((kind, value.data_ptr() if isinstance(value, torch.Tensor) else value))
    return params


class AotKernels:
    """The kernels module's stand-in on the GPU machine: `aot.KERNEL[grid](...)`
    launches the exported cubin of the launch's specialization; of several
    tuning configs, the fastest on the first launch of each signature and
    value of the autotuner's key."""

    TensorDescriptor = HostDescriptor
    COMPILER = "tessera"

    def __init__(self, directory):
        with open(os.path.join(directory, MANIFEST)) as f:
            manifest = json.load(f)
        self.directory, self.driver = directory, CudaDriver()
        self.arg_names = manifest["kernels"]
        self.tune_keys = manifest.get("tune_keys", {})
        self.entries, self.loaded, self.chosen = manifest["entries"], {}, {}
        # Per tuned launch signature, each candidate config and its time.
        self.timings = {}

    def __getattr__(self, name):
        if name not in self.__dict__.get("arg_names", {}):
            raise AttributeError(name)
        arg_names, constexprs = self.arg_names[name]
        aot = self

        class Launch:
            def __getitem__(self, grid):
                def launch(*args, **kwargs):
                    warps = kwargs.pop("num_warps", None)
                    stages = kwargs.pop("num_stages", None)
                    flags = flags_of({k: kwargs.pop(k) for k in COMPILER_FLAGS if k in kwargs})
                    values = bind(arg_names, args, kwargs)
                    return aot.run(name, arg_names, constexprs, values, grid, warps, stages, flags)
                return launch
        return Launch()

    def choices(self):
        """Per launch signature: the cubin the tuning picked, then every
        candidate config's time, fastest first."""
        lines = []
        for key, entry in self.chosen.items():
            lines.append(
                f"{key[0]} [{key[1]}] {key[3] or ''}: {entry['file']} {entry['constexprs']} "
                f"warps={entry['num_warps']} stages={entry['num_stages']}"
                f"{flag_words(entry)} "
                f"regs={entry['registers']} spills={entry['spills']} {dot_words(entry)}"
                f"{'WGMMA SERIALIZED' if entry.get('serialized_wgmma') else ''}".rstrip())
            lines += [f"    loop: {loop}" for loop in entry.get("pipelines", [])]
            for candidate, ms in sorted(self.timings.get(key, []), key=lambda timed: timed[1]):
                config = "x".join(str(v) for v in candidate["constexprs"].values())
                lines.append(f"    {ms:8.4f} ms  {config} warps={candidate['num_warps']} "
                             f"stages={candidate['num_stages']} ({candidate['file']})")
        return lines

    def run(self, name, arg_names, constexprs, values, grid, warps, stages=None, flags=None):
        flags = flags or flags_of({})
        given = {k: values[k] for k in constexprs if k in values}
        runtime = runtime_signature(arg_names, constexprs, values)
        # As the autotuner: one pick per value of its key (M, N, K), too.
        tuned_on = tuple(values[k] for k in self.tune_keys.get(name, []) if k in values)
        key = (name, runtime, tuple(sorted(given.items())), tuned_on, warps, stages,
               tuple(flags.items()))
        if key not in self.chosen:
            candidates = [e for e in self.entries if e["kernel"] == name
                          and all(e.get(flag, False) == on for flag, on in flags.items())
                          and all(e["constexprs"].get(k) == v for k, v in given.items())
                          and (warps is None or e["num_warps"] == warps)
                          and (stages is None or e["num_stages"] == stages)
                          and e["runtime_signature"] == runtime]
            if not candidates:
                raise LookupError(f"{name}: no exported cubin for [{runtime}] with {given} "
                                  f"(run.py --export with the same shapes)")
            if len(candidates) == 1:
                self.chosen[key] = candidates[0]
            else:
                self.timings[key] = [(e, self._time(e, values, grid)) for e in candidates]
                self.chosen[key] = min(self.timings[key], key=lambda timed: timed[1])[0]
        self._launch(self.chosen[key], values, grid)

    def _launch(self, entry, values, grid):
        if entry["file"] not in self.loaded:
            self.loaded[entry["file"]] = self.driver.load(
                os.path.join(self.directory, entry["file"]), entry["function"], entry["shared_bytes"])
        arg_names, constexprs = self.arg_names[entry["kernel"]]
        if callable(grid):
            grid = grid({**values, **entry["constexprs"]})
        self.driver.launch(self.loaded[entry["file"]], grid, entry["block_threads"],
                           entry["shared_bytes"],
                           launch_params(arg_names, constexprs, entry["params"], values),
                           entry.get("tensor_maps", ()))

    def _time(self, entry, values, grid):
        """Milliseconds per launch, timed as the benchmark times its rows
        (timing.time_ms): launched from Python, small GEMMs would all take
        the host's launch time, and the pick would be noise."""
        return time_ms(lambda: self._launch(entry, values, grid), warmup=10, reps=10)
