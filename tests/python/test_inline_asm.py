"""tl.inline_asm_elementwise: built as Triton builds it (broadcast arguments,
one or several result dtypes, pack), compiled to PTX that keeps the assembly,
and refused with the op's location where no GPU assembly can run (the CPU
backend, the interpreter). Needs ptxas for the PTX checks; no GPU."""

import os
import shutil

import numpy as np
import pytest

import tessera
import tessera.language as tl
from tessera import _C
from tessera.compile import _unwrap_kernel, parse_signature
from tessera.errors import LaunchError

HAS_PTXAS = shutil.which("ptxas") is not None or os.path.exists("/usr/local/cuda/bin/ptxas")


@tessera.jit
def fast_tanh(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.inline_asm_elementwise("tanh.approx.f32 $0, $1;", "=r,r", [x], dtype=tl.float32,
                                  is_pure=True, pack=1)
    tl.store(out_ptr + offs, y, mask=mask)


@tessera.jit
def halves(x_ptr, out_ptr, bits_ptr, scale, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    # A scalar argument broadcast to the tile; two results; two halves per
    # operand register.
    y, bits = tl.inline_asm_elementwise("mul.rn.f16x2 $0, $2, $3; mov.b32 $1, $0;", "=r,=r,r,r",
                                        [x, scale], dtype=(tl.float16, tl.int16), is_pure=True,
                                        pack=2)
    tl.store(out_ptr + offs, y)
    tl.store(bits_ptr + offs, bits)


def ptx(kernel, signature):
    fn = _unwrap_kernel(kernel)
    values, plan = parse_signature(signature, fn.arg_names, fn.constexprs)
    module = fn.compile_for(values, plan, "interpreter").module
    return _C.compile_gpu(module, module.kernel_name, "cuda:sm_90a", num_warps=4,
                          num_stages=2).assembly


@pytest.mark.skipif(not HAS_PTXAS, reason="no ptxas")
def test_the_assembly_reaches_the_ptx():
    assert "tanh.approx.f32" in ptx(fast_tanh, "*fp32:16, *fp32:16, i32, 256")


@pytest.mark.skipif(not HAS_PTXAS, reason="no ptxas")
def test_packed_results_and_broadcast_arguments():
    assert "mul.rn.f16x2" in ptx(halves, "*fp16:16, *fp16:16, *i16:16, fp16, 64")


def test_gpu_assembly_is_refused_where_it_cannot_run(backend):
    x = np.zeros(16, np.float32)
    expected = ("runs GPU assembly, which the CPU backend cannot run" if backend == "cpu" else
                "unsupported operation 'tile.inline_asm_elementwise' in the interpreter")
    with pytest.raises(LaunchError, match=expected) as error:
        fast_tanh[(1,)](x, np.zeros_like(x), 16, BLOCK=16)
    assert "test_inline_asm.py" in str(error.value)
