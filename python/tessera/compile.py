"""``python -m tessera.compile FILE.py:KERNEL``: the front end of ``tessera compile``.

Ahead-of-time compilation of a kernel from the same Python file a user
launches, for one signature given in Triton's AOT syntax::

    tessera compile kernels.py:add_kernel --signature "*fp32:16, *fp32:16, *fp32:16, i32, 1024" \\
        --target cpu --emit obj -o add_kernel.o

``--signature``: one entry per kernel parameter, in order: ``*fp32`` a pointer
to fp32 elements (``fp16 bf16 fp32 fp64 i1 i8 i16 i32 i64 u8``), ``i32`` /
``i64`` / ``fp32`` a scalar, ``:16`` after either a divisibility-by-16
promise (``i32:8``: by 8, as the JIT specializes integers; ``i32:1``
promises the value 1), and a bare literal (``1024``,
``0.5``, ``True``, ``'leaky_relu'``) a compile-time constant: required for
``tl.constexpr`` parameters, allowed for any other (it is then folded in).

``--target``: ``cpu`` (the default) or a GPU: ``cuda:sm_80`` ... ``cuda:sm_121``,
``hip:gfx90a|gfx942|gfx1100``, ``vulkan[:1.2|1.3][:subgroup=N]``.

``--emit`` for ``cpu``: ``tile`` (tile IR), ``mlir`` (the LLVM-dialect module
after the CPU lowering), ``llvm`` (optimized LLVM IR), ``asm`` (host
assembly), ``obj`` (an ELF relocatable object exporting
``KERNEL__grid_entry``, see docs/runtime.md). For GPUs (docs/gpu-backends.md):
``tile``, ``tgpu`` (tile IR with a layout on every tile), ``gpu`` (the
per-thread ``gpu.module``), then ``ptx``/``cubin`` (NVIDIA), ``amdgcn``/``hsaco``
(AMD) or ``spirv``/``spv`` (Vulkan: the ``spirv.module`` / SPIR-V words).
``--num-warps N`` (default 4) and ``--num-stages S`` (default 2) set the
program's warps and the pipelining depth; on NVIDIA ``--no-fp-fusion`` rounds
each product and sum (Triton's ``enable_fp_fusion=False``), ``--maxnreg N``
caps the registers per thread; the pipelined blocks of host tensor
descriptors are loaded, and such blocks stored, with TMA on sm_90a unless
``--no-tma`` asks for ``cp.async`` (the kernel then takes a 128-byte
tensor map per descriptor after its parameters, which ``--verbose`` lists:
docs/gpu-nvidia.md, "Tensor maps"), and with it ``--warp-specialize`` gives
such a pipelined loop a producer warpgroup of its own (4 warps more per program:
docs/gpu-nvidia.md, "Warp specialization"); ``--verbose`` prints the kernel's
resource usage to stderr (registers, spills and shared memory from ``ptxas
-v`` on NVIDIA, VGPRs, SGPRs, LDS and spills on AMD, workgroup memory and the
argument bindings on Vulkan).

Text goes to stdout unless ``-o`` is given; ``obj``, ``cubin``, ``hsaco`` and
``spv`` go to ``KERNEL.o``/``.cubin``/``.hsaco``/``.spv`` unless ``-o`` is given.

Exit codes: 0 success, 1 the kernel does not compile (or the file or kernel
is missing), 2 a bad command line (signature, target, emit kind, options).
"""

import argparse
import ast
import importlib.util
import os
import re
import sys

__all__ = ["main", "parse_signature", "compile_kernel", "UsageError", "FailedError"]

EMITS = ("tile", "mlir", "llvm", "asm", "obj")
# Binary outputs and the file they go to without -o.
BINARY_SUFFIXES = {"obj": ".o", "cubin": ".cubin", "hsaco": ".hsaco", "spv": ".spv"}

_SCALARS = {"i1": "i1", "i8": "i8", "i16": "i16", "i32": "i32", "i64": "i64", "u8": "u8",
            "u16": "u16", "u32": "u32", "u64": "u64", "fp16": "f16", "bf16": "bf16", "fp32": "f32",
            "fp64": "f64"}


class UsageError(Exception):
    """A bad command line: exit code 2."""


class FailedError(Exception):
    """A file or kernel that cannot be found or compiled: exit code 1."""


def _pointee(name):
    from . import language as tl
    table = {"fp16": tl.float16, "bf16": tl.bfloat16, "fp32": tl.float32, "fp64": tl.float64,
             "i1": tl.int1, "i8": tl.int8, "i16": tl.int16, "i32": tl.int32, "i64": tl.int64,
             "u8": tl.uint8, "u16": tl.uint16, "u32": tl.uint32, "u64": tl.uint64,
             "fp8e4nv": tl.float8e4nv, "fp8e5": tl.float8e5}
    return table.get(name)


def _split(text):
    """Splits at top-level commas (a string literal may hold one, and so
    may a tensordesc<...>)."""
    parts, depth, quote, current = [], 0, None, ""
    for ch in text:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "([<":
            depth += 1
        elif ch in ")]>":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(current.strip())
            current = ""
            continue
        current += ch
    parts.append(current.strip())
    return parts


def parse_signature(text, params, constexprs):
    """(values, plan) for JITFunction.compile_for from a Triton AOT signature."""
    entries = _split(text) if text.strip() else []
    if len(entries) != len(params):
        raise UsageError(f"--signature has {len(entries)} entr{'y' if len(entries) == 1 else 'ies'} but the "
                         f"kernel has {len(params)} parameters ({', '.join(params)})")
    values, plan = {}, []
    for name, entry in zip(params, entries):
        if not entry:
            raise UsageError(f"--signature: empty entry for parameter '{name}'")
        if entry.startswith("tensordesc"):
            plan.append(_descriptor_plan(entry, name))
            values[name] = None
            continue
        ty, _, hint = entry.partition(":") if not entry[0] in "'\"" else (entry, "", "")
        ty, hint = ty.strip(), hint.strip()
        is_type = ty.startswith("*") or ty in _SCALARS
        if name in constexprs or not is_type:
            if is_type:
                raise UsageError(f"--signature: parameter '{name}' is a tl.constexpr; give its value "
                                 f"(e.g. 1024), not the type '{entry}'")
            try:
                values[name] = ast.literal_eval(entry)
            except (ValueError, SyntaxError):
                raise UsageError(f"--signature: '{entry}' for parameter '{name}' is neither a type "
                                 "(*fp32, i32, fp32, ... with an optional :16) nor a literal") from None
            plan.append(None)
            continue
        div, one = 0, False
        if hint:
            if hint == "16" or hint == "8" and not ty.startswith("*"):
                div = int(hint)
            elif hint == "1" and not ty.startswith("*"):
                one = True
            else:
                raise UsageError(f"--signature: bad hint ':{hint}' in '{entry}' for parameter '{name}' "
                                 "(':16' for divisibility by 16, ':8' by 8 for an integer, ':1' for an "
                                 "integer equal to 1)")
        if ty.startswith("*"):
            pointee = _pointee(ty[1:].strip())
            if pointee is None:
                raise UsageError(f"--signature: unknown element type '{ty[1:]}' in '{entry}' for "
                                 f"parameter '{name}' (fp16, bf16, fp32, fp64, i1, i8, i16, i32, i64, u8, u16, "
                                 "u32, u64, fp8e4nv, fp8e5)")
            plan.append(("ptr", div, pointee))
        elif ty in ("i32", "i64", "u32", "u64"):
            plan.append((ty, div, one))
            values[name] = 1 if one else None
        else:
            if div or one:
                raise UsageError(f"--signature: ':{hint}' applies to integers and pointers, not '{ty}' "
                                 f"(parameter '{name}')")
            plan.append((_SCALARS[ty], 0, False))
        values.setdefault(name, None)
    return values, plan


def _descriptor_plan(entry, name):
    """The plan of a host TensorDescriptor parameter from Triton's signature
    entry ``tensordesc<fp16[64, 32]>``, and Tessera's ``tensordesc<...>:16``
    (or ``:8``) for one whose every shape entry is a multiple of 16 (8) and
    ``tensordesc<fp16[64, 32], nan>`` for one padded with NaN. Its outer
    strides are the multiples of 16 bytes every TensorDescriptor has."""
    match = re.fullmatch(r"tensordesc<\s*(\w+)\s*\[([\d,\s]+)\]\s*(?:,\s*(zero|nan)\s*)?>"
                         r"\s*(?::\s*(16|8))?", entry)
    pointee = _pointee(match.group(1)) if match else None
    if pointee is None:
        raise UsageError(f"--signature: '{entry}' for parameter '{name}' is not a tensor descriptor "
                         "type such as tensordesc<fp16[64, 32]> (with :16 or :8 for a shape of "
                         "multiples of 16 or 8, and tensordesc<fp16[64, 32], nan> for NaN "
                         "padding)")
    block = tuple(int(b) for b in match.group(2).split(",") if b.strip())
    padding = match.group(3) or "zero"
    if padding == "nan" and not pointee.is_floating():
        raise UsageError(f"--signature: '{entry}' for parameter '{name}': NaN padding needs "
                         "floating-point elements")
    shape_div = int(match.group(4) or 0)
    return ("desc", pointee, block, padding, (shape_div,) * len(block), (0,) * (len(block) - 1))


def load_kernel(spec):
    """The JITFunction `KERNEL` of `FILE.py:KERNEL`."""
    from .jit import JITFunction
    path, sep, name = spec.rpartition(":")
    if not sep or not path or not name:
        raise UsageError(f"expected FILE.py:KERNEL, got '{spec}'")
    if not os.path.isfile(path):
        raise FailedError(f"file '{path}' not found")
    path = os.path.abspath(path)
    module_name = "_tessera_compile_" + os.path.splitext(os.path.basename(path))[0]
    sys.path.insert(0, os.path.dirname(path))
    try:
        spec_ = importlib.util.spec_from_file_location(module_name, path)
        module = importlib.util.module_from_spec(spec_)
        sys.modules[module_name] = module
        spec_.loader.exec_module(module)
    except SyntaxError as e:
        raise FailedError(f"{e.filename}:{e.lineno}:{e.offset or 0}: error: {e.msg}") from None
    except Exception as e:  # the file's own top level failed
        raise FailedError(f"importing '{path}' failed: {type(e).__name__}: {e}") from None
    obj = getattr(module, name, None)
    kernels = sorted(k for k, v in vars(module).items() if isinstance(_unwrap_kernel(v), JITFunction))
    if obj is None:
        listing = f" (kernels there: {', '.join(kernels)})" if kernels else " (it defines no @jit kernels)"
        raise FailedError(f"no kernel '{name}' in '{path}'{listing}")
    jit_fn = _unwrap_kernel(obj)
    if not isinstance(jit_fn, JITFunction):
        raise FailedError(f"'{name}' in '{path}' is not a @jit kernel but {type(obj).__name__}")
    return jit_fn


def _unwrap_kernel(obj):
    # @triton.autotune / @triton.heuristics wrappers hold the JITFunction in .fn.
    for _ in range(8):
        if hasattr(obj, "fn") and hasattr(obj, "arg_names") and not hasattr(obj, "cache_key_fn"):
            inner = obj.fn
            if inner is obj or not hasattr(inner, "arg_names"):
                break
            obj = inner
        else:
            break
    return obj


def gpu_target(target):
    """The canonical GPU target spec, or None for the CPU."""
    from . import _C
    if target == "cpu":
        return None
    try:
        return _C.gpu_target(target)
    except ValueError as e:
        raise UsageError(f"{e}; for the host CPU: --target cpu") from None


def check_target(target, emit, num_warps=None, num_stages=None, fp_fusion=True, maxnreg=None,
                 tma=None, warp_specialize=False):
    """The canonical GPU target (None for cpu) after checking the options fit
    it. `tma` None is the default: TMA on NVIDIA targets (those without it,
    before sm_90a, ignore it)."""
    from . import _C
    gpu = gpu_target(target)
    nvidia = (gpu or "").startswith("cuda")
    if warp_specialize and not (nvidia if tma is None else tma):
        raise UsageError("--warp-specialize needs TMA (an NVIDIA target, without --no-tma): the "
                         "producer warpgroup copies with it")
    if (maxnreg is not None or not fp_fusion or tma) and not nvidia:
        raise UsageError("--maxnreg, --no-fp-fusion and --tma apply to NVIDIA targets "
                         f"(cuda:...), not {gpu or target}")
    if maxnreg is not None and not 1 <= maxnreg <= 255:
        raise UsageError(f"--maxnreg {maxnreg}: 1 to 255 registers per thread")
    if gpu is None:
        if num_warps is not None or num_stages is not None:
            raise UsageError("--num-warps and --num-stages apply to GPU targets, not cpu")
        if emit in _all_gpu_stages():
            raise UsageError(f"--emit {emit}: a GPU output, for --target {_C.gpu_targets()} (for cpu: "
                             f"{', '.join(EMITS)})")
        if emit not in EMITS:
            raise UsageError(f"unknown --emit '{emit}' (for cpu: {', '.join(EMITS)})")
        return None
    emits = ["tile"] + _C.gpu_stages(gpu)
    if emit not in emits:
        raise UsageError(f"--emit {emit}: not an output of {gpu} (it emits {', '.join(emits)})")
    if num_warps is not None and (num_warps <= 0 or num_warps & (num_warps - 1)):
        raise UsageError(f"--num-warps {num_warps}: a power of two is needed (1, 2, 4, 8, ...)")
    if num_stages is not None and num_stages < 1:
        raise UsageError(f"--num-stages {num_stages}: at least 1 is needed")
    return gpu


def _all_gpu_stages():
    from . import _C
    return {stage for spec in ("cuda:sm_90a", "hip:gfx942", "vulkan") for stage in _C.gpu_stages(spec)}


def tensor_map_line(index, tensor_map):
    """What a launch must pass as tensor map `index` (after the kernel's
    parameters): cuTensorMapEncodeTiled's arguments, by parameter number."""
    m = tensor_map
    value = lambda entry: f"param {entry}" if isinstance(entry, int) else str(entry[1])
    outer = ", ".join(value(e) for e in m["shape"])
    strides = ", ".join(value(e) for e in m["strides"]) + ", 1"
    return (f"tensor map {index}: base param {m['base']}, shape [{outer}], strides [{strides}] "
            f"(elements, outermost first), {m['element']}, box {m['box']} (innermost first), "
            f"{m['swizzle']}-byte swizzle, {'NaN' if m['nan_padding'] else 'zero'} fill")


def usage_report(kernel):
    """Human-readable resource usage of a compiled tessera._C.GpuKernel."""
    from . import _C
    usage = kernel.usage
    target = kernel.target

    def known(value, unit=""):
        return "unknown" if value < 0 else f"{value}{unit}"

    lines = [f"{kernel.kernel_name} for {target}: {kernel.block_threads} threads per program, "
             f"{kernel.shared_bytes} bytes of dynamic shared memory per launch"]
    if kernel.origin == "disk":
        lines.append(f"loaded from the kernel cache ({_C.gpu_cache_stats()['directory']})")
    lines += [f"dot at {dot}" for dot in kernel.dots]
    lines += [f"loop at {loop}" for loop in kernel.pipelines]
    if target.startswith("cuda:"):
        lines.append(f"ptxas: {known(usage['registers'])} registers, {known(usage['smem'], ' bytes')} "
                     f"static shared memory, {known(usage['spill_stores'], ' bytes')} spill stores, "
                     f"{known(usage['spill_loads'], ' bytes')} spill loads, "
                     f"{known(usage['stack'], ' bytes')} stack frame")
        lines += [line for line in usage["report"].splitlines() if line.strip()]
        lines += [tensor_map_line(i, m) for i, m in enumerate(kernel.tensor_maps)]
    elif target.startswith("hip:"):
        lines.append(f"{known(usage['registers'])} VGPRs, {known(usage['scalar_registers'])} SGPRs, "
                     f"LDS {known(usage['smem'], ' bytes')}, spills {known(usage['spills'], ' bytes')}, "
                     f"private segment {known(usage['stack'], ' bytes')}")
    else:
        abi = kernel.abi
        lines.append(f"workgroup memory {known(usage['smem'], ' bytes')}, workgroup size "
                     f"{'x'.join(str(d) for d in abi['workgroup_size'])}, SPIR-V "
                     f"{'.'.join(str(v) for v in abi['spirv_version'])}")
        lines.append(f"arguments: {abi['summary'] or 'none'} "
                     f"({abi['push_constant_bytes']} bytes of push constants)")
        lines.append(f"capabilities: {', '.join(abi['capabilities'])}")
    return "\n".join(lines) + "\n"


def compile_kernel(spec, signature, target="cpu", emit="tile", num_warps=None, num_stages=None,
                   verbose=False, fp_fusion=True, maxnreg=None, tma=None, warp_specialize=False):
    """bytes or str: the requested output for the kernel named by `spec`.

    With `verbose`, a GPU kernel's resource usage is printed to stderr. On
    NVIDIA, `fp_fusion` lets `a * b + c` become one fma (Triton's
    enable_fp_fusion), `maxnreg` caps the registers per thread, `tma`
    (default on) loads pipelined host-descriptor blocks and stores such
    blocks with TMA (sm_90a; False: cp.async), and `warp_specialize` gives
    such a loop a producer warpgroup."""
    from . import _C
    from .errors import CompilationError
    gpu = check_target(target, emit, num_warps, num_stages, fp_fusion, maxnreg, tma,
                       warp_specialize)
    jit_fn = load_kernel(spec)
    try:
        values, plan = parse_signature(signature, jit_fn.arg_names, jit_fn.constexprs)
    except CompilationError as e:  # reading the kernel's source failed
        raise FailedError(str(e)) from None
    compiled = jit_fn.compile_for(values, plan, "interpreter")
    if gpu is not None:
        return _compile_gpu(compiled, gpu, emit, verbose, num_warps=num_warps or 4,
                            num_stages=num_stages or 2, fp_fusion=fp_fusion,
                            max_registers=maxnreg or 0, tma=tma is not False,
                            warp_specialize=warp_specialize)
    if emit == "tile":
        return compiled.asm["tile"]
    if not _C.cpu_available():
        raise FailedError("this build of tessera has no CPU lowering (lowering/cpu): only --emit tile")
    what = {"mlir": "llvmir-dialect"}.get(emit, emit)
    out = _C.emit_cpu(compiled.module, what)
    return out if emit == "obj" else out.decode()


def _compile_gpu(compiled, target, emit, verbose, **options):
    """`options`: compile_gpu's num_warps, num_stages, fp_fusion, max_registers, tma,
    warp_specialize."""
    from . import _C
    name = compiled.module.kernel_name
    out = None
    if emit == "tile":
        out = compiled.asm["tile"]
    elif emit in ("tgpu", "gpu"):
        out = _C.emit_gpu(compiled.module, name, target, emit, **options)
    if out is not None and not verbose:
        return out
    # One compilation gives the assembly, the binary and the usage.
    kernel = _C.compile_gpu(compiled.module, name, target, **options)
    if verbose:
        sys.stderr.write(usage_report(kernel))
    elif kernel.tensor_maps:
        # A launcher of the cubin must pass them: say so even unasked.
        sys.stderr.write(f"note: {name} takes {len(kernel.tensor_maps)} TMA tensor map(s) after "
                         "its parameters, encoded by the launch (--verbose lists them)\n")
    if out is not None:
        return out
    if emit in BINARY_SUFFIXES and kernel.ptx_for_driver_jit:
        raise FailedError(f"cannot write a cubin: {kernel.usage['report']}")
    return kernel.binary if emit in BINARY_SUFFIXES else kernel.assembly


def main(argv=None):
    from . import _C
    parser = argparse.ArgumentParser(
        prog="tessera compile", description="Compile a @jit kernel of a Python file ahead of time.")
    parser.add_argument("kernel", metavar="FILE.py:KERNEL")
    parser.add_argument("--signature", "-s", required=True,
                        help='Triton AOT signature, e.g. "*fp32:16, *fp32:16, i32, 1024"')
    parser.add_argument("--target", default="cpu", help=f"cpu, {_C.gpu_targets()}")
    parser.add_argument("--emit", default="tile",
                        help=f"cpu: {'|'.join(EMITS)}; GPUs: tile|tgpu|gpu, then ptx|cubin (cuda), "
                             "amdgcn|hsaco (hip), spirv|spv (vulkan)")
    parser.add_argument("--num-warps", type=int, help="GPU: warps per program (default 4)")
    parser.add_argument("--num-stages", type=int, help="GPU: software-pipelining depth (default 2)")
    parser.add_argument("--no-fp-fusion", dest="fp_fusion", action="store_false",
                        help="NVIDIA: round each product and sum (no fma for a * b + c)")
    parser.add_argument("--maxnreg", type=int, help="NVIDIA: registers per thread at most")
    parser.add_argument("--tma", action=argparse.BooleanOptionalAction,
                        help="NVIDIA sm_90a (default on): load pipelined host-descriptor blocks, "
                             "and store such blocks, with TMA (tensor maps follow the "
                             "parameters; --verbose lists them); --no-tma: cp.async")
    parser.add_argument("--warp-specialize", action="store_true",
                        help="NVIDIA sm_90a, with TMA: a producer warpgroup copies a pipelined "
                             "loop's blocks while --num-warps warps compute")
    parser.add_argument("--verbose", "-v", action="store_true",
                        help="GPU: print registers, spills and shared memory to stderr")
    parser.add_argument("-o", "--output",
                        help="output file (default: stdout; KERNEL.o, .cubin, .hsaco or .spv for binaries)")
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:
        return int(e.code or 0)
    from .errors import CompilationError, LaunchError
    try:
        out = compile_kernel(args.kernel, args.signature, args.target, args.emit, args.num_warps,
                             args.num_stages, args.verbose, args.fp_fusion, args.maxnreg, args.tma,
                             args.warp_specialize)
    except UsageError as e:
        print(f"tessera compile: error: {e}", file=sys.stderr)
        return 2
    except FailedError as e:
        print(f"tessera compile: error: {e}", file=sys.stderr)
        return 1
    except (CompilationError, LaunchError) as e:
        print(str(e), file=sys.stderr)
        return 1
    output = args.output
    if output is None and args.emit in BINARY_SUFFIXES:
        output = args.kernel.rpartition(":")[2] + BINARY_SUFFIXES[args.emit]
    if output is None or output == "-":
        if isinstance(out, bytes):
            sys.stdout.buffer.write(out)
        else:
            sys.stdout.write(out)
        return 0
    try:
        with open(output, "wb" if isinstance(out, bytes) else "w") as f:
            f.write(out)
    except OSError as e:
        print(f"tessera compile: error: cannot write '{output}': {e.strerror}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
