"""`tessera compile FILE.py:KERNEL` (tools/tessera/CompileCommand.cpp, which
runs python/tessera/compile.py): outputs and error cases, run as a user would."""

import os
import re
import subprocess
import sys
import textwrap

import pytest

import tessera

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLI = os.environ.get("TESSERA_CLI") or os.path.join(ROOT, "build", "bin", "tessera")

pytestmark = pytest.mark.skipif(not os.path.exists(CLI), reason=f"no tessera CLI at {CLI}")

KERNELS = textwrap.dedent('''
    import tessera.compat.triton as triton
    import tessera.compat.triton.language as tl


    @triton.jit
    def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
        pid = tl.program_id(axis=0)
        offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        mask = offsets < n_elements
        x = tl.load(x_ptr + offsets, mask=mask)
        y = tl.load(y_ptr + offsets, mask=mask)
        tl.store(output_ptr + offsets, x + y, mask=mask)


    @triton.autotune(configs=[triton.Config({"BLOCK": 64})], key=["n"])
    @triton.jit
    def scale(x_ptr, n, s, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * s, mask=offs < n)


    @triton.jit
    def accumulate(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs, mask=offs < n)
        tl.atomic_add(out_ptr + offs % 4, x, mask=offs < n)
        tl.atomic_max(out_ptr + 4 + offs % 4, x, mask=offs < n)
        tl.atomic_min(out_ptr + 8 + offs % 4, x, mask=offs < n)


    @triton.jit
    def broken(x_ptr):
        y = tl.arange(0, 3)


    not_a_kernel = 42
''')

SIG = "*fp32:16, *fp32:16, *fp32:16, i32, 1024"


@pytest.fixture
def kernels(tmp_path):
    path = tmp_path / "kernels.py"
    path.write_text(KERNELS)
    return path


def run(*args, cwd=None):
    env = dict(os.environ)
    env.setdefault("TESSERA_PYTHON", sys.executable)
    return subprocess.run([CLI, "compile", *map(str, args)], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=300)


def test_emit_tile(kernels):
    r = run(f"{kernels}:add_kernel", "--signature", SIG, "--emit", "tile")
    assert r.returncode == 0, r.stderr
    assert "tile.func" in r.stdout or "tile." in r.stdout
    assert "add_kernel" in r.stdout
    assert r.stdout.count("tile.divisibility = 16") == 3  # the three :16 pointers
    assert "1024" in r.stdout  # the constexpr BLOCK_SIZE


def test_emit_tile_matches_the_python_launch(kernels):
    # The same file a Python user launches gives the same IR.
    import importlib.util
    import numpy as np
    spec = importlib.util.spec_from_file_location("cli_kernels", kernels)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    a = tessera.asarray(np.zeros(2048, np.float32))
    ir = module.add_kernel.ir(a, a, a, 2047, BLOCK_SIZE=1024)
    r = run(f"{kernels}:add_kernel", "--signature", SIG)
    assert r.returncode == 0, r.stderr
    assert r.stdout == ir


@pytest.mark.skipif(not tessera.cpu_available(), reason="no CPU lowering in this build")
def test_emit_llvm_asm_obj(kernels, tmp_path):
    r = run(f"{kernels}:add_kernel", "--signature", SIG, "--target", "cpu", "--emit", "llvm")
    assert r.returncode == 0, r.stderr
    assert "define" in r.stdout and "add_kernel__grid_entry" in r.stdout
    r = run(f"{kernels}:add_kernel", "--signature", SIG, "--emit", "mlir")
    assert r.returncode == 0, r.stderr
    assert "llvm.func" in r.stdout
    out = tmp_path / "add.s"
    r = run(f"{kernels}:add_kernel", "--signature", SIG, "--emit", "asm", "-o", out)
    assert r.returncode == 0, r.stderr
    text = out.read_text()
    assert "add_kernel__grid_entry" in text and ".text" in text
    out = tmp_path / "add.o"
    r = run(f"{kernels}:add_kernel", "--signature", SIG, "--emit", "obj", "-o", out)
    assert r.returncode == 0, r.stderr
    assert out.read_bytes()[:4] == b"\x7fELF"
    # Default object name: KERNEL.o in the working directory.
    r = run(f"{kernels}:scale", "--signature", "*fp32, i32, fp32, 64", "--emit", "obj", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "scale.o").read_bytes()[:4] == b"\x7fELF"


@pytest.mark.skipif(not tessera.cpu_available(), reason="no CPU lowering in this build")
def test_bf16_object_needs_no_runtime_library(kernels):
    """bf16 reaches LLVM as i16 with its arithmetic in f32: no `bfloat` that
    LLVM would round with __truncsfbf2, which Debian 12's libgcc lacks; float
    atomics of bf16 too (compare-and-swap loops on 16 bits)."""
    for kernel, sig in (("add_kernel", SIG.replace("fp32", "bf16")),
                        ("accumulate", "*bf16:16, *bf16:16, i32, 64")):
        r = run(f"{kernels}:{kernel}", "--signature", sig, "--target", "cpu", "--emit", "llvm")
        assert r.returncode == 0, r.stderr
        assert "bfloat" not in r.stdout and re.search(r"fadd <?(\d+ x )?float>?", r.stdout)
        r = run(f"{kernels}:{kernel}", "--signature", sig, "--target", "cpu", "--emit", "asm")
        assert r.returncode == 0, r.stderr
        calls = re.findall(r"call\w*\s+(\S+)", r.stdout)
        assert calls and all(callee.startswith(kernel) for callee in calls), (kernel, calls)


def test_autotuned_kernel_and_integer_hints(kernels):
    r = run(f"{kernels}:scale", "--signature", "*fp32:16, i32:16, fp32, 128")
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("tile.divisibility = 16") == 2


def test_unsigned_signature(kernels):
    """Triton's u32, u64 and *u32 entries; atomics through *u32 compare unsigned."""
    r = run(f"{kernels}:add_kernel", "--signature", "*u32, *u32, *u32, u32:16, 64",
            "--emit", "tile")
    assert r.returncode == 0, r.stderr
    r = run(f"{kernels}:accumulate", "--signature", "*u32, *u32, u64, 64", "--emit", "tile")
    assert r.returncode == 0, r.stderr
    assert "umax" in r.stdout and "umin" in r.stdout, r.stdout


@pytest.mark.parametrize("args,code,message", [
    (["missing.py:add_kernel", "--signature", SIG], 1, "tessera compile: error: file 'missing.py' not found"),
    (["{k}:nope", "--signature", SIG], 1,
     "tessera compile: error: no kernel 'nope' in '{k}' (kernels there: accumulate, add_kernel, broken, scale)"),
    (["{k}:not_a_kernel", "--signature", SIG], 1,
     "tessera compile: error: 'not_a_kernel' in '{k}' is not a @jit kernel but int"),
    (["{k}", "--signature", SIG], 2, "tessera compile: error: expected FILE.py:KERNEL, got '{k}'"),
    (["{k}:add_kernel", "--signature", "*fp32, *fp32, i32, 1024"], 2,
     "tessera compile: error: --signature has 4 entries but the kernel has 5 parameters "
     "(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE)"),
    (["{k}:add_kernel", "--signature", "*fp33, *fp32, *fp32, i32, 1024"], 2,
     "tessera compile: error: --signature: unknown element type 'fp33' in '*fp33' for parameter 'x_ptr' "
     "(fp16, bf16, fp32, fp64, i1, i8, i16, i32, i64, u8, u16, u32, u64, fp8e4nv, fp8e5)"),
    (["{k}:add_kernel", "--signature", "*fp32, *fp32, *fp32, i32, i32"], 2,
     "tessera compile: error: --signature: parameter 'BLOCK_SIZE' is a tl.constexpr; give its value "
     "(e.g. 1024), not the type 'i32'"),
    (["{k}:add_kernel", "--signature", "*fp32:8, *fp32, *fp32, i32, 1024"], 2,
     "tessera compile: error: --signature: bad hint ':8' in '*fp32:8' for parameter 'x_ptr' "
     "(':16' for divisibility by 16, ':8' by 8 for an integer, ':1' for an integer equal to 1)"),
    (["{k}:add_kernel", "--signature", "tensordesc<fp32>, *fp32, *fp32, i32, 1024"], 2,
     "tessera compile: error: --signature: 'tensordesc<fp32>' for parameter 'x_ptr' is not a tensor "
     "descriptor type such as tensordesc<fp16[64, 32]> (with :16 or :8 for a shape of multiples of "
     "16 or 8, and tensordesc<fp16[64, 32], nan> for NaN padding)"),
    (["{k}:add_kernel", "--signature", "tensordesc<i32[64], nan>, *fp32, *fp32, i32, 1024"], 2,
     "tessera compile: error: --signature: 'tensordesc<i32[64], nan>' for parameter 'x_ptr': NaN "
     "padding needs floating-point elements"),
    (["{k}:add_kernel", "--signature", SIG, "--emit", "ptx"], 2,
     "tessera compile: error: --emit ptx: a GPU output, for --target cuda:sm_80|sm_86|sm_87|sm_89|sm_90|sm_90a|sm_100|sm_103|sm_120|sm_121[:cubin=CHIP], "
     "hip:gfx90a|gfx942|gfx1100, vulkan[:1.2|1.3][:subgroup=N] (for cpu: tile, mlir, llvm, asm, obj)"),
    (["{k}:add_kernel", "--signature", SIG, "--emit", "bitcode"], 2,
     "tessera compile: error: unknown --emit 'bitcode' (for cpu: tile, mlir, llvm, asm, obj)"),
])
def test_errors(kernels, tmp_path, args, code, message):
    args = [a.replace("{k}", str(kernels)) for a in args]
    r = run(*args, cwd=tmp_path)
    assert r.returncode == code, r.stderr
    assert r.stderr.strip() == message.replace("{k}", str(kernels))
    assert r.stdout == ""


def test_kernel_error_names_file_and_line(kernels):
    r = run(f"{kernels}:broken", "--signature", "*fp32")
    assert r.returncode == 1
    line = KERNELS.splitlines().index("    y = tl.arange(0, 3)") + 1
    assert r.stderr.splitlines()[0] == (f"{kernels}:{line}:9: error: arange length must be a power of two, "
                                        "got 3")


def test_usage():
    r = run()
    assert r.returncode == 2
    assert "FILE.py:KERNEL" in r.stderr
    r = subprocess.run([CLI, "--help"], capture_output=True, text=True)
    assert "compile" in r.stdout
