"""bench/gpu/run.py --compile-only: the GPU benchmark's Tessera kernels keep
compiling for the targets the benchmark runs on, without a GPU. The script
itself needs PyTorch; the NVIDIA target needs ptxas (CUDA toolkit)."""

import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUN = os.path.join(ROOT, "bench", "gpu", "run.py")


def has_ptxas():
    cuda = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH") or "/usr/local/cuda"
    return os.path.exists(os.path.join(cuda, "bin", "ptxas")) or shutil.which("ptxas")


@pytest.mark.skipif(not has_ptxas(), reason="ptxas (CUDA toolkit) not found")
def test_every_benchmark_kernel_compiles_for_hopper():
    pytest.importorskip("torch")
    import tessera
    env = dict(os.environ)
    package_parent = os.path.dirname(os.path.dirname(os.path.abspath(tessera.__file__)))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_parent, env.get("PYTHONPATH")]))
    result = subprocess.run([sys.executable, RUN, "--compile-only", "cuda:sm_90a"],
                            capture_output=True, text=True, timeout=600, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    rows = [line for line in result.stdout.splitlines()
            if line.split() and line.split()[0] in ("vector_add", "softmax", "layernorm", "matmul")]
    assert len(rows) >= 10, result.stdout
    assert not any("FAILED" in row for row in rows), result.stdout
    # The GEMM configs with four or eight warps run on warpgroup MMA, the row
    # kernels move 16 bytes per global access.
    assert any(row.startswith("matmul") and "wgmma.mma_async" in row for row in rows), result.stdout
    assert all("ld.global.v4" in row for row in rows if row.startswith(("softmax", "vector_add"))), \
        result.stdout
