"""``python -m tessera.compile FILE.py:KERNEL``: the front end of ``tessera compile``.

Ahead-of-time compilation of a kernel from the same Python file a user
launches, for one signature given in Triton's AOT syntax::

    tessera compile kernels.py:add_kernel --signature "*fp32:16, *fp32:16, *fp32:16, i32, 1024" \\
        --target cpu --emit obj -o add_kernel.o

``--signature``: one entry per kernel parameter, in order: ``*fp32`` a pointer
to fp32 elements (``fp16 bf16 fp32 fp64 i1 i8 i16 i32 i64 u8``), ``i32`` /
``i64`` / ``fp32`` a scalar, ``:16`` after either a divisibility-by-16
promise (``i32:1`` promises the value 1), and a bare literal (``1024``,
``0.5``, ``True``, ``'leaky_relu'``) a compile-time constant: required for
``tl.constexpr`` parameters, allowed for any other (it is then folded in).

``--emit``: ``tile`` (tile IR), ``mlir`` (the LLVM-dialect module after the
CPU lowering), ``llvm`` (optimized LLVM IR), ``asm`` (host assembly), ``obj``
(an ELF relocatable object exporting ``KERNEL__grid_entry``, see
docs/runtime.md). Text goes to stdout unless ``-o`` is given; ``obj`` goes to
``KERNEL.o`` unless ``-o`` is given.

Exit codes: 0 success, 1 the kernel does not compile (or the file or kernel
is missing), 2 a bad command line (signature, target, emit kind).
"""

import argparse
import ast
import importlib.util
import os
import sys

__all__ = ["main", "parse_signature", "compile_kernel", "UsageError", "FailedError"]

TARGETS_BUILT = ("cpu",)
TARGETS_PLANNED = {"cuda": "cuda:sm_90", "hip": "hip:gfx942", "vulkan": "vulkan"}
EMITS = ("tile", "mlir", "llvm", "asm", "obj")
EMITS_PLANNED = ("ptx", "cubin", "hsaco", "spirv")

_SCALARS = {"i1": "i1", "i8": "i8", "i16": "i16", "i32": "i32", "i64": "i64",
            "fp16": "f16", "bf16": "bf16", "fp32": "f32", "fp64": "f64"}


class UsageError(Exception):
    """A bad command line: exit code 2."""


class FailedError(Exception):
    """A file or kernel that cannot be found or compiled: exit code 1."""


def _pointee(name):
    from . import language as tl
    table = {"fp16": tl.float16, "bf16": tl.bfloat16, "fp32": tl.float32, "fp64": tl.float64,
             "i1": tl.int1, "i8": tl.int8, "i16": tl.int16, "i32": tl.int32, "i64": tl.int64,
             "u8": tl.uint8, "fp8e4nv": tl.float8e4nv, "fp8e5": tl.float8e5}
    return table.get(name)


def _split(text):
    """Splits at top-level commas (a string literal may hold one)."""
    parts, depth, quote, current = [], 0, None, ""
    for ch in text:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "([":
            depth += 1
        elif ch in ")]":
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
        ty, _, hint = entry.partition(":") if not entry[0] in "'\"" else (entry, "", "")
        ty, hint = ty.strip(), hint.strip()
        is_type = ty.startswith("*") or ty in _SCALARS or ty == "u8"
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
            if hint == "16":
                div = 16
            elif hint == "1" and not ty.startswith("*"):
                one = True
            else:
                raise UsageError(f"--signature: bad hint ':{hint}' in '{entry}' for parameter '{name}' "
                                 "(':16' for divisibility by 16, ':1' for an integer equal to 1)")
        if ty.startswith("*"):
            pointee = _pointee(ty[1:].strip())
            if pointee is None:
                raise UsageError(f"--signature: unknown element type '{ty[1:]}' in '{entry}' for "
                                 f"parameter '{name}' (fp16, bf16, fp32, fp64, i1, i8, i16, i32, i64, u8)")
            plan.append(("ptr", div, pointee))
        elif ty in ("i32", "i64"):
            plan.append((ty, div, one))
            values[name] = 1 if one else None
        else:
            if div or one:
                raise UsageError(f"--signature: ':{hint}' applies to integers and pointers, not '{ty}' "
                                 f"(parameter '{name}')")
            plan.append((_SCALARS.get(ty, "i8"), 0, False))
        values.setdefault(name, None)
    return values, plan


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


def check_target(target, emit):
    kind = target.split(":")[0]
    if kind not in TARGETS_BUILT:
        if kind in TARGETS_PLANNED:
            raise UsageError(f"target '{target}': the {kind} backend is not built yet in this version of "
                             f"Tessera (built: {', '.join(TARGETS_BUILT)})")
        raise UsageError(f"unknown target '{target}' (targets: cpu, cuda:sm_90, hip:gfx942, vulkan)")
    if emit in EMITS_PLANNED:
        raise UsageError(f"--emit {emit}: needs a GPU/Vulkan backend, which is not built yet (for cpu: "
                         f"{', '.join(EMITS)})")
    if emit not in EMITS:
        raise UsageError(f"unknown --emit '{emit}' (for cpu: {', '.join(EMITS)})")


def compile_kernel(spec, signature, target="cpu", emit="tile"):
    """bytes or str: the requested output for the kernel named by `spec`."""
    from . import _C
    from .errors import CompilationError
    check_target(target, emit)
    jit_fn = load_kernel(spec)
    try:
        values, plan = parse_signature(signature, jit_fn.arg_names, jit_fn.constexprs)
    except CompilationError as e:  # reading the kernel's source failed
        raise FailedError(str(e)) from None
    compiled = jit_fn.compile_for(values, plan, "interpreter")
    if emit == "tile":
        return compiled.asm["tile"]
    if not _C.cpu_available():
        raise FailedError("this build of tessera has no CPU lowering (lowering/cpu): only --emit tile")
    what = {"mlir": "llvmir-dialect"}.get(emit, emit)
    out = _C.emit_cpu(compiled.module, what)
    return out if emit == "obj" else out.decode()


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="tessera compile", description="Compile a @jit kernel of a Python file ahead of time.")
    parser.add_argument("kernel", metavar="FILE.py:KERNEL")
    parser.add_argument("--signature", "-s", required=True,
                        help='Triton AOT signature, e.g. "*fp32:16, *fp32:16, i32, 1024"')
    parser.add_argument("--target", default="cpu", help="cpu (cuda:sm_90, hip:gfx942, vulkan: not built yet)")
    parser.add_argument("--emit", default="tile", help=f"{'|'.join(EMITS)}")
    parser.add_argument("-o", "--output", help="output file (default: stdout; KERNEL.o for obj)")
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:
        return int(e.code or 0)
    from .errors import CompilationError, LaunchError
    try:
        out = compile_kernel(args.kernel, args.signature, args.target, args.emit)
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
    if output is None and args.emit == "obj":
        output = args.kernel.rpartition(":")[2] + ".o"
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
