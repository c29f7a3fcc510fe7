"""libdevice (``tl.extra.libdevice``, ``tl.extra.cuda.libdevice``) and
``tl.extern_elementwise``: every function with a math-op counterpart against
NumPy in float64 on the interpreter and the CPU backend, on ragged sizes; the
errors; the table against the toolkit's libdevice; and the calls compiled for
NVIDIA, where libdevice itself is linked."""

import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import tessera
import tessera.language as tl
from tessera import _C
from tessera.compile import _unwrap_kernel, parse_signature
from tessera.errors import CompilationError, LaunchError
from tessera.language.extra import libdevice

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LIBDEVICE = "/usr/local/cuda/nvvm/libdevice/libdevice.10.bc"


@tl.builtin
def call(name, *args):
    """libdevice's function `name` (a constexpr) on `args`."""
    return getattr(libdevice, tl._unwrap(name))(*args)


@tessera.jit
def unary_kernel(x_ptr, out_ptr, n, NAME: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, call(NAME, x), mask=mask)


@tessera.jit
def binary_kernel(x_ptr, y_ptr, out_ptr, n, NAME: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, call(NAME, x, y), mask=mask)


def round_half_away(x):
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


# name: (NumPy reference, the inputs' domain)
UNARY = {
    "acos": (np.arccos, (-0.99, 0.99)), "acosh": (np.arccosh, (1.01, 5)),
    "asin": (np.arcsin, (-0.99, 0.99)), "asinh": (np.arcsinh, (-5, 5)),
    "atan": (np.arctan, (-5, 5)), "atanh": (np.arctanh, (-0.99, 0.99)),
    "cbrt": (np.cbrt, (-8, 8)), "ceil": (np.ceil, (-5, 5)), "cos": (np.cos, (-5, 5)),
    "cosh": (np.cosh, (-5, 5)), "erf": (None, (-3, 3)), "erfc": (None, (-3, 3)),
    "exp": (np.exp, (-5, 5)), "exp2": (np.exp2, (-5, 5)), "expm1": (np.expm1, (-2, 2)),
    "abs": (np.abs, (-5, 5)), "floor": (np.floor, (-5, 5)), "log": (np.log, (0.01, 5)),
    "log10": (np.log10, (0.01, 5)), "log1p": (np.log1p, (-0.9, 5)), "log2": (np.log2, (0.01, 5)),
    "nearbyint": (np.rint, (-5, 5)), "rint": (np.rint, (-5, 5)),
    "round": (round_half_away, (-5, 5)), "rsqrt": (lambda x: 1 / np.sqrt(x), (0.01, 5)),
    "sin": (np.sin, (-5, 5)), "sinh": (np.sinh, (-5, 5)), "sqrt": (np.sqrt, (0, 5)),
    "tan": (np.tan, (-1.4, 1.4)), "tanh": (np.tanh, (-5, 5)), "trunc": (np.trunc, (-5, 5)),
}

BINARY = {
    "atan2": (np.arctan2, (-5, 5), (-5, 5)), "copysign": (np.copysign, (-5, 5), (-5, 5)),
    "max": (np.fmax, (-5, 5), (-5, 5)), "min": (np.fmin, (-5, 5), (-5, 5)),
    "fmod": (np.fmod, (-5, 5), (0.5, 3)), "pow": (np.power, (0.1, 4), (-3, 3)),
}


def reference(name):
    import math

    if name in ("erf", "erfc"):
        return np.vectorize(getattr(math, name))
    return UNARY[name][0]


def tolerance(dtype):
    return (1e-5, 1e-6) if dtype == np.float32 else (1e-12, 1e-13)


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_unary_functions(backend, rng, name, dtype):
    low, high = UNARY[name][1]
    n = 77
    x = rng.uniform(low, high, n).astype(dtype)
    if name in ("rint", "nearbyint", "round"):
        x[:4] = [0.5, 1.5, -2.5, 2.5]  # the ties, where the roundings differ
    out = np.full(n, np.nan, dtype)
    unary_kernel[(tessera.cdiv(n, 32),)](x, out, n, NAME=name, BLOCK=32)
    rtol, atol = tolerance(dtype)
    np.testing.assert_allclose(out, reference(name)(x.astype(np.float64)), rtol=rtol, atol=atol)


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_binary_functions(backend, rng, name, dtype):
    ref, (xlow, xhigh), (ylow, yhigh) = BINARY[name]
    n = 50
    x = rng.uniform(xlow, xhigh, n).astype(dtype)
    y = rng.uniform(ylow, yhigh, n).astype(dtype)
    out = np.full(n, np.nan, dtype)
    binary_kernel[(tessera.cdiv(n, 32),)](x, y, out, n, NAME=name, BLOCK=32)
    rtol, atol = tolerance(dtype)
    np.testing.assert_allclose(out, ref(x.astype(np.float64), y.astype(np.float64)), rtol=rtol,
                               atol=atol)


@tessera.jit
def predicates_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, libdevice.isnan(x), mask=mask)
    tl.store(out_ptr + n + offs, libdevice.isinf(x), mask=mask)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_predicates_answer_one_or_zero(backend, dtype):
    x = np.array([0.0, np.nan, np.inf, -np.inf, -1.5, 3.0, np.nan], dtype)
    out = np.full(2 * len(x), 7, np.int32)
    predicates_kernel[(1,)](x, out, len(x), BLOCK=8)
    np.testing.assert_array_equal(out[:len(x)], np.isnan(x).astype(np.int32))
    np.testing.assert_array_equal(out[len(x):], np.isinf(x).astype(np.int32))


@tessera.jit
def integer_kernel(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, libdevice.popc(a), mask=mask)
    tl.store(out_ptr + n + offs, libdevice.clz(a), mask=mask)
    tl.store(out_ptr + 2 * n + offs, libdevice.abs(a), mask=mask)
    tl.store(out_ptr + 3 * n + offs, libdevice.min(a, b), mask=mask)
    tl.store(out_ptr + 4 * n + offs, libdevice.max(a, b), mask=mask)
    tl.store(out_ptr + 5 * n + offs, libdevice.mulhi(a, b), mask=mask)
    tl.store(out_ptr + 6 * n + offs, libdevice.umulhi(a, b), mask=mask)


def test_integer_functions(backend, rng):
    n = 45
    a = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
    b = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
    a[0], b[0] = -2**31, -1
    out = np.zeros(7 * n, np.int32)
    integer_kernel[(1,)](a, b, out, n, BLOCK=64)
    ua, ub = a.astype(np.uint32).astype(np.uint64), b.astype(np.uint32).astype(np.uint64)
    expected = [
        [bin(v).count("1") for v in ua],
        [32 - int(v).bit_length() for v in ua],
        np.abs(a.astype(np.int64)).astype(np.uint32).astype(np.int32),  # |INT_MIN| wraps
        np.minimum(a, b), np.maximum(a, b),
        ((a.astype(np.int64) * b.astype(np.int64)) >> 32).astype(np.int32),
        ((ua * ub) >> np.uint64(32)).astype(np.uint32).astype(np.int32),
    ]
    for row, values in enumerate(expected):
        np.testing.assert_array_equal(out[row * n:(row + 1) * n], np.asarray(values, np.int32),
                                      err_msg=f"row {row}")


@tessera.jit
def umulhi_kernel(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.math.umulhi(tl.load(a_ptr + offs, mask=mask),
                                            tl.load(b_ptr + offs, mask=mask)), mask=mask)


def test_umulhi_is_the_high_half_of_the_unsigned_product(backend, rng):
    assert tl.umulhi is tl.math.umulhi  # both of Triton's spellings
    a = rng.integers(-2**31, 2**31, 50, dtype=np.int64).astype(np.int32)
    b = rng.integers(-2**31, 2**31, 50, dtype=np.int64).astype(np.int32)
    out = np.zeros(50, np.int32)
    umulhi_kernel[(1,)](a, b, out, 50, BLOCK=64)
    ua, ub = a.astype(np.uint32).astype(np.uint64), b.astype(np.uint32).astype(np.uint64)
    np.testing.assert_array_equal(out, ((ua * ub) >> np.uint64(32)).astype(np.uint32).astype(np.int32))


@tessera.jit
def fma_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    # A Python float next to an fp64 tensor: (fp64, fp32, fp64) is no
    # signature of fma, so all three are promoted to fp64.
    tl.store(out_ptr + offs, libdevice.fma(x, 0.5, x), mask=mask)


def test_arguments_are_promoted_together_when_their_dtypes_are_no_signature(backend, rng):
    x = rng.standard_normal(20)
    out = np.zeros(20)
    fma_kernel[(1,)](x, out, 20, BLOCK=32)
    np.testing.assert_allclose(out, 1.5 * x, rtol=1e-15)


EXPM1 = {(tl.float32,): ("__nv_expm1f", tl.float32), (tl.float64,): ("__nv_expm1", tl.float64)}


@tessera.jit
def extern_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.extern_elementwise("libdevice", "", [x], EXPM1, is_pure=True),
             mask=mask)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_extern_elementwise_picks_the_symbol_for_the_dtypes(backend, rng, dtype):
    x = rng.uniform(-1, 1, 30).astype(dtype)
    out = np.zeros_like(x)
    extern_kernel[(1,)](x, out, 30, BLOCK=32)
    np.testing.assert_allclose(out, np.expm1(x.astype(np.float64)), rtol=tolerance(dtype)[0],
                               atol=tolerance(dtype)[1])


def test_a_dtype_no_signature_takes_is_an_error_at_the_call(backend):
    x = np.zeros(16, np.float16)
    with pytest.raises(CompilationError, match=r"libdevice\.tanh takes \(fp32\) or \(fp64\); "
                                               r"got \(fp16\)") as error:
        unary_kernel[(1,)](x, np.zeros_like(x), 16, NAME="tanh", BLOCK=16)
    assert "test_libdevice.py" in str(error.value)


def test_a_function_without_a_math_op_is_an_error_off_nvidia(backend):
    x = np.full(16, 0.5, np.float32)
    # The interpreter computes lgamma; the CPU backend links no libdevice.
    if backend == "interpreter":
        out = np.zeros_like(x)
        unary_kernel[(1,)](x, out, 16, NAME="lgamma", BLOCK=16)
        np.testing.assert_allclose(out, np.full(16, 0.5723649429247001), rtol=1e-6)
        return
    with pytest.raises(LaunchError, match="calls '__nv_lgammaf' of library 'libdevice', which the "
                                          "CPU backend does not link"):
        unary_kernel[(1,)](x, np.zeros_like(x), 16, NAME="lgamma", BLOCK=16)


# Functions no math op computes: the interpreter computes them (the reference
# for NVIDIA's libdevice), the CPU backend reports them (above). mpmath (which
# PyTorch installs) gives them to full precision.
SPECIAL = {
    "erfinv": ("erfinv", (-0.999, 0.999)),
    "erfcinv": (lambda m, y: m.erfinv(1 - m.mpf(y)), (0.001, 1.999)),
    "normcdfinv": (lambda m, p: m.sqrt(2) * m.erfinv(2 * m.mpf(p) - 1), (0.001, 0.999)),
    "erfcx": (lambda m, x: m.exp(m.mpf(x) ** 2) * m.erfc(x), (-2, 5)),
    "j0": (lambda m, x: m.besselj(0, x), (-20, 20)), "j1": (lambda m, x: m.besselj(1, x), (-20, 20)),
    "y0": (lambda m, x: m.bessely(0, x), (0.1, 20)), "y1": (lambda m, x: m.bessely(1, x), (0.1, 20)),
    "cyl_bessel_i0": (lambda m, x: m.besseli(0, x), (-5, 5)),
    "cyl_bessel_i1": (lambda m, x: m.besseli(1, x), (-5, 5)),
    "lgamma": (lambda m, x: m.log(abs(m.gamma(x))), (0.1, 20)),
}


@pytest.mark.parametrize("name", sorted(SPECIAL))
def test_functions_without_a_math_op_on_the_interpreter(monkeypatch, rng, name):
    mpmath = pytest.importorskip("mpmath")
    monkeypatch.setenv("TESSERA_INTERPRET", "1")
    function, (low, high) = SPECIAL[name]
    if isinstance(function, str):
        function = (lambda attribute: lambda m, x: getattr(m, attribute)(x))(function)
    x = rng.uniform(low, high, 40)
    out = np.full_like(x, np.nan)
    unary_kernel[(2,)](x, out, 40, NAME=name, BLOCK=32)
    with mpmath.workdps(40):
        expected = np.array([float(function(mpmath, float(v))) for v in x])
    np.testing.assert_allclose(out, expected, rtol=1e-12, atol=1e-14)


CUBE = {(tl.float32,): ("my_cube", tl.float32)}
CUBE_LIBRARY = []  # the bitcode file, written by the test that uses it


@tessera.jit
def own_library_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.extern_elementwise("mylib", CUBE_LIBRARY[0], [x], CUBE, is_pure=True)
    tl.store(out_ptr + offs, y, mask=mask)


LLVM_AS = shutil.which("llvm-as-22") or shutil.which("llvm-as")


@pytest.mark.skipif(not os.path.exists(LIBDEVICE) or LLVM_AS is None,
                    reason="no CUDA toolkit or no llvm-as")
def test_nvidia_links_a_bitcode_library_named_by_path(tmp_path):
    source = tmp_path / "cube.ll"
    source.write_text("define float @my_cube(float %x) {\n  %s = fmul float %x, %x\n"
                      "  %c = fmul float %s, %x\n  ret float %c\n}\n")
    subprocess.run([LLVM_AS, str(source), "-o", str(tmp_path / "cube.bc")], check=True)
    CUBE_LIBRARY[:] = [str(tmp_path / "cube.bc")]
    fn = _unwrap_kernel(own_library_kernel)
    values, plan = parse_signature("*fp32:16, *fp32:16, i32, 64", fn.arg_names, fn.constexprs)
    module = fn.compile_for(values, plan, "interpreter").module
    kernel = _C.compile_gpu(module, module.kernel_name, "cuda:sm_90a", num_warps=4, num_stages=2)
    assert ".extern" not in kernel.assembly and "mul.f32" in kernel.assembly


def test_module_spellings_are_one_module():
    import tessera.compat.triton.language as ttl
    import tessera.compat.triton.language.extra.cuda.libdevice as compat_cuda
    from tessera.compat.triton.language.extra import libdevice as compat
    import tessera.language.extra.cuda.libdevice as cuda

    assert compat is compat_cuda is cuda is libdevice is tl.extra.libdevice
    assert tl.extra.cuda.libdevice is libdevice and ttl.extra.libdevice is libdevice
    assert "__nv_tanhf" in libdevice.tanh.__doc__


@pytest.mark.skipif(not os.path.exists(LIBDEVICE), reason="no CUDA toolkit libdevice")
def test_the_table_is_the_toolkits_libdevice():
    subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "generate_libdevice_functions.py"),
                    "--check", "--libdevice", LIBDEVICE], check=True)


@pytest.mark.skipif(shutil.which("ptxas") is None and not os.path.exists("/usr/local/cuda/bin/ptxas"),
                    reason="no ptxas")
@pytest.mark.parametrize("target", ["cuda:sm_80", "cuda:sm_90a"])
def test_nvidia_links_libdevice_also_for_functions_without_a_math_op(target):
    fn = _unwrap_kernel(unary_kernel)
    for name in ("tanh", "lgamma", "erfinv", "cyl_bessel_i0"):
        values, plan = parse_signature(f"*fp32:16, *fp32:16, i32, '{name}', 128", fn.arg_names,
                                       fn.constexprs)
        module = fn.compile_for(values, plan, "interpreter").module
        kernel = _C.compile_gpu(module, module.kernel_name, target, num_warps=4, num_stages=2)
        assert ".extern" not in kernel.assembly and "__nv_" not in kernel.assembly, name
        assert kernel.usage["spills"] == 0
