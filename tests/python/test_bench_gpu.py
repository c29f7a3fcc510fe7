"""bench/gpu/run.py --compile-only: the GPU benchmark's Tessera kernels keep
compiling for the targets the benchmark runs on, without a GPU. The script
itself needs PyTorch; the NVIDIA target needs ptxas (CUDA toolkit)."""

import importlib
import os
import shutil
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUN = os.path.join(ROOT, "bench", "gpu", "run.py")


def bench_module(name):
    """bench/gpu/NAME.py, imported with its directory on the path (as run.py
    imports its neighbours)."""
    sys.path.insert(0, os.path.dirname(RUN))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.pop(0)


def has_ptxas():
    cuda = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH") or "/usr/local/cuda"
    return os.path.exists(os.path.join(cuda, "bin", "ptxas")) or shutil.which("ptxas")


@pytest.mark.skipif(not has_ptxas(), reason="ptxas (CUDA toolkit) not found")
def test_every_benchmark_kernel_compiles_for_hopper():
    pytest.importorskip("torch")
    result = subprocess.run([sys.executable, RUN, "--compile-only", "cuda:sm_90a"],
                            capture_output=True, text=True, timeout=600, env=bench_env())
    assert result.returncode == 0, result.stdout + result.stderr
    rows = [line for line in result.stdout.splitlines()
            if line.split() and line.split()[0] in ("vector_add", "softmax", "layernorm", "matmul",
                                                    "gelu_tanh", "matmul_weight_only",
                                                    "layernorm_persistent", "attention")]
    assert len(rows) >= 10, result.stdout
    assert not any("FAILED" in row for row in rows), result.stdout
    # The GEMM configs with four or eight warps run on warpgroup MMA and write
    # their bf16 results to shared memory with stmatrix; the row kernels move
    # 16 bytes per global access.
    gemms = [row for row in rows if row.startswith("matmul") and "wgmma.mma_async" in row]
    assert gemms, result.stdout
    attention = [row for row in rows if row.startswith("attention")]
    assert attention and all("wgmma.mma_async" in row and "cp.async.cg" in row
                             for row in attention), result.stdout
    assert all("stmatrix" in row for row in gemms), result.stdout
    assert all("ld.global.v4" in row for row in rows
               if row.startswith(("softmax", "vector_add", "gelu_tanh", "layernorm"))), result.stdout
    # The weight-only GEMM's int8 B goes through cp.async too (read back from
    # shared memory), not through global loads in the loop.
    weight_only = [row for row in rows if row.startswith("matmul_weight_only")]
    assert weight_only and all("cp.async.cg" in row and "ld.global.v4" not in row
                               for row in weight_only), result.stdout


@pytest.mark.skipif(not has_ptxas(), reason="ptxas (CUDA toolkit) not found")
def test_fp8_gemm_rows_compile_to_fp8_tensor_core_instructions():
    """`--dtypes fp8`: every GEMM config compiles with fp8 operands and a bf16
    result, in both layouts: on fp8 wgmma with 4 or 8 warps, on fp8 mma.sync
    with the 2-warp config."""
    pytest.importorskip("torch")
    result = subprocess.run([sys.executable, RUN, "--compile-only", "cuda:sm_90a", "--suite",
                             "gemm", "--sizes", "512", "--dtypes", "fp8", "--layouts", "nn,nt"],
                            capture_output=True, text=True, timeout=600, env=bench_env())
    assert result.returncode == 0, result.stdout + result.stderr
    rows = [line for line in result.stdout.splitlines() if line.startswith("matmul")]
    assert len(rows) == 20, result.stdout
    assert all("*fp8e4nv,*fp8e4nv,*bf16" in row for row in rows), result.stdout
    warps = lambda row: int(row.split()[2])
    assert all(("wgmma.mma_async" in row) == (warps(row) >= 4) for row in rows), result.stdout
    assert all("mma.sync" in row for row in rows if warps(row) < 4), result.stdout


def bench_env():
    import tessera
    env = dict(os.environ)
    package_parent = os.path.dirname(os.path.dirname(os.path.abspath(tessera.__file__)))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_parent, env.get("PYTHONPATH")]))
    return env


def test_aot_signatures_follow_the_jit_specialization():
    """aot.signature_entry restates the JIT's specialization rules (the GPU
    machine cannot import tessera); the JIT itself is the reference."""
    torch = pytest.importorskip("torch")
    import tessera
    import tessera.language as tl
    aot = bench_module("aot")

    @tessera.jit
    def kernel(p, q, a, b, c, d, e, flag, x, BLOCK: tl.constexpr):
        pass

    storage = torch.zeros(64, dtype=torch.bfloat16)
    values = dict(p=storage, q=storage[1:], a=1, b=4096, c=1000, d=2**40, e=1001, flag=True, x=0.5,
                  BLOCK=8)
    _, plan, *_ = kernel.specialize(values)
    jit = []
    for entry in plan:
        if entry is None:
            continue
        kind, divisible = entry[0], entry[1]
        if kind == "ptr":
            jit.append(("*bf16", divisible))
        elif kind in ("i32", "i64"):
            jit.append((f"{kind}:1" if entry[2] else kind, divisible))
        else:
            jit.append(({"f32": "fp32"}.get(kind, kind), divisible))
    expected = [f"{name}:{divisible}" if divisible else name for name, divisible in jit]
    names = ["p", "q", "a", "b", "c", "d", "e", "flag", "x"]
    assert [aot.signature_entry(values[n]) for n in names] == expected
    assert expected == ["*bf16:16", "*bf16", "i32:1", "i32:16", "i32:8", "i64:16", "i32", "i1",
                        "fp32"]
    # NT: B given as the transpose of a [N, K] tensor has strides (1, K).
    b = aot.TensorSpec((64, 32), torch.float16).t()
    assert b.shape == (32, 64) and b.stride() == (1, 32)


@pytest.mark.skipif(not has_ptxas(), reason="ptxas (CUDA toolkit) not found")
def test_aot_export_writes_cubins_and_a_manifest(tmp_path):
    pytest.importorskip("torch")
    out = tmp_path / "aot"
    result = subprocess.run([sys.executable, RUN, "--quick", "--suite", "add", "--export", str(out)],
                            capture_output=True, text=True, timeout=600, env=bench_env())
    assert result.returncode == 0, result.stdout + result.stderr
    import json
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["target"] == "cuda:sm_90a"
    assert manifest["tune_keys"] == {"vector_add": []}
    (entry,) = manifest["entries"]
    assert entry["kernel"] == "vector_add" and entry["spills"] == 0
    assert entry["runtime_signature"].startswith("*fp32:16, *fp32:16, *fp32:16, i32")
    assert (out / entry["file"]).read_bytes()[:4] == b"\x7fELF"


@pytest.mark.skipif(not has_ptxas(), reason="ptxas (CUDA toolkit) not found")
def test_aot_export_of_a_driver_jit_launch_writes_ptx(tmp_path):
    """A launch with the export's `driver_jit` option is exported as its PTX
    and a NUL (what cuModuleLoadData hands the driver's JIT, as Tessera does
    where no ptxas is found), beside the same launch's cubin."""
    torch = pytest.importorskip("torch")
    aot = bench_module("aot")
    recorder = aot.Recorder(bench_module("run").tessera_kernels())
    x = aot.TensorSpec((1000,), torch.float32)
    for driver_jit in (False, True):
        recorder.vector_add[(1,)](x, x, x, 1000, BLOCK=1024, num_warps=4, driver_jit=driver_jit)
    assert aot.export(str(tmp_path), recorder.kernels, recorder.launches, "cuda:sm_90a",
                      log=lambda line: None) == 0
    import json
    entries = json.loads((tmp_path / "manifest.json").read_text())["entries"]
    by_flag = {entry["driver_jit"]: entry for entry in entries}
    assert set(by_flag) == {False, True} and len(entries) == 2
    assert by_flag[False]["file"].endswith(".cubin")
    assert (tmp_path / by_flag[False]["file"]).read_bytes()[:4] == b"\x7fELF"
    ptx = (tmp_path / by_flag[True]["file"]).read_bytes()
    assert by_flag[True]["file"].endswith(".ptx")
    assert ptx.endswith(b"}\n\0") and ptx.count(b"\0") == 1
    assert b".entry vector_add" in ptx and b".target sm_90a" in ptx
    assert aot.flag_words(by_flag[True]) == " driver-jit"

def compile_large_gemm_tile(kernel, target):
    """The benchmark GEMM `kernel` (bf16, unit inner strides) compiled for
    `target` at its largest config: 128x256x64, 8 warps, 3 stages."""
    pytest.importorskip("torch")
    from tessera import _C
    from tessera.compile import _unwrap_kernel, parse_signature
    fn = _unwrap_kernel(getattr(bench_module("run").tessera_kernels(), kernel))
    signature = ("*bf16:16, *bf16:16, *bf16:16, i32:16, i32:16, i32:16, i32:16, i32:1, i32:16, "
                 "i32:1, i32:16, i32:1, 128, 256, 64, 8")
    values, plan = parse_signature(signature, fn.arg_names, fn.constexprs)
    compiled = fn.compile_for(values, plan, "interpreter")
    return _C.compile_gpu(compiled.module, compiled.module.kernel_name, target, 8, 3)


@pytest.mark.skipif(not has_ptxas(), reason="ptxas (CUDA toolkit) not found")
@pytest.mark.parametrize("kernel", ["matmul_persistent", "matmul_persistent_carried"])
def test_persistent_gemm_is_pipelined_across_tiles_on_hopper(kernel):
    """The benchmark's persistent GEMM at its 128x256x64 config on sm_90a:
    copies ahead with cp.async, the wgmma left running in the loop and waited
    for in the epilogue's branch, which stores through stmatrix, without
    spills and without ptxas serializing the wgmmas."""
    kernel = compile_large_gemm_tile(kernel, "cuda:sm_90a")
    ptx = kernel.assembly
    assert ptx.count("cp.async.cg.shared.global") == 36  # 12 per stage, 2 ahead + 1 in the loop
    assert ptx.count("wgmma.wait_group.sync.aligned 1;") == 1
    assert ptx.count("wgmma.wait_group.sync.aligned 0;") == 2  # the epilogue, after the loop
    assert ptx.count("stmatrix.sync.aligned") == 16
    # Four stages of A and B (the running wgmma holds one), and the epilogue's
    # conversion beside them in halves of 64 padded rows.
    assert kernel.shared_bytes == 4 * (128 * 64 + 64 * 256) * 2 + 64 * (256 + 8) * 2
    assert kernel.usage["spills"] == 0 and not kernel.usage["serialized_wgmma"]


@pytest.mark.skipif(not has_ptxas(), reason="ptxas (CUDA toolkit) not found")
@pytest.mark.parametrize("kernel", ["matmul_persistent", "matmul_persistent_carried"])
def test_persistent_gemm_restarts_its_accumulator_in_the_epilogue_on_ampere(kernel):
    """The same at 128x256x64 on sm_80 (mma.sync): the accumulator restarts
    in the branch that stores the tile, not through a select of its 128
    registers in every K block (which left the flattened form spilling 432
    bytes), and neither form spills."""
    binary = compile_large_gemm_tile(kernel, "cuda:sm_80")
    ptx = binary.assembly
    assert ptx.count("mma.sync.aligned.m16n8k16") == 128
    assert ptx.count("selp.f32") == 0
    assert binary.usage["spills"] == 0


@pytest.mark.parametrize("rows_per_program", [1, 4])
def test_row_kernels_match_torch_on_ragged_rows(rows_per_program):
    """The benchmark's softmax and layernorm sources (layernorm also in its
    persistent form), ROWS rows per program (37 rows: the last program's rows
    are masked), on Tessera's CPU backend
    against PyTorch; on a GPU run.py checks them again before timing."""
    torch = pytest.importorskip("torch")
    run = bench_module("run")
    kernels = run.tessera_kernels()
    generator = torch.Generator().manual_seed(rows_per_program)
    rows, cols, block = 37, 200, 256
    for dtype in (torch.float32, torch.float16):
        x = (torch.randn(rows, cols, generator=generator) * 3).to(dtype)
        w, b = (torch.rand(cols, generator=generator).to(dtype) for _ in range(2))
        grid = (run.triton_cdiv(rows, rows_per_program),)
        y = torch.full_like(x, float("nan"))
        kernels.softmax.fn[grid](y, x, x.stride(0), y.stride(0), rows, cols, BLOCK=block,
                                 ROWS=rows_per_program)
        torch.testing.assert_close(y.float(), torch.softmax(x.float(), 1), atol=2e-3, rtol=2e-3)
        y = torch.full_like(x, float("nan"))
        kernels.layernorm.fn[grid](x, y, w, b, x.stride(0), rows, cols, 1e-5, BLOCK=block,
                                   ROWS=rows_per_program)
        expected = torch.nn.functional.layer_norm(x.float(), (cols,), w.float(), b.float(), 1e-5)
        torch.testing.assert_close(y.float(), expected, atol=1e-2, rtol=1e-2)
        # The persistent form on 3 programs: blocks of rows walked in turn.
        y = torch.full_like(x, float("nan"))
        kernels.layernorm_persistent.fn[(3,)](x, y, w, b, x.stride(0), rows, cols, 1e-5,
                                              BLOCK=block, ROWS=rows_per_program)
        torch.testing.assert_close(y.float(), expected, atol=1e-2, rtol=1e-2)


def test_autotuned_choices_name_each_kept_config():
    """run.py prints the config each compiler's autotuner kept per key: here
    Tessera's own autotuner on the CPU, tuning the benchmark's layernorm over
    its row configs for two widths."""
    torch = pytest.importorskip("torch")
    run = bench_module("run")
    kernels = run.tessera_kernels()
    assert run.autotuned_choices(kernels) == []
    for cols in (100, 200):
        x = torch.randn(16, cols)
        w, b, y = torch.ones(cols), torch.zeros(cols), torch.empty(16, cols)
        run.launch_rows(kernels, "layernorm", x, y, w, b, sms=1)
    lines = run.autotuned_choices(kernels)
    assert len(lines) == 2, lines
    for line, cols in zip(sorted(lines, key=lambda l: int(l.split("(")[1].split(",")[0])),
                          (100, 200)):
        assert line.startswith(f"layernorm ({cols}, "), line
        assert "ROWS: " in line and "num_warps: " in line, line


@pytest.mark.parametrize("causal", [False, True])
def test_attention_kernel_matches_torch_on_a_ragged_length(causal):
    """The benchmark's flash attention on Tessera's CPU backend against
    PyTorch's scaled_dot_product_attention: 45 positions leave the last block
    of queries and of keys ragged."""
    torch = pytest.importorskip("torch")
    run = bench_module("run")
    kernels = run.tessera_kernels()
    generator = torch.Generator().manual_seed(int(causal))
    heads, n_ctx, head_dim, block = 3, 45, 32, 16
    for dtype, tol in ((torch.float32, 1e-4), (torch.float16, 1e-2)):
        q, k, v = (torch.randn(heads, n_ctx, head_dim, generator=generator).to(dtype)
                   for _ in range(3))
        out = torch.full_like(q, float("nan"))
        grid = (run.triton_cdiv(n_ctx, block), heads)
        kernels.attention.fn[grid](q, k, v, out, 1.0 / head_dim ** 0.5, n_ctx, HEAD_DIM=head_dim,
                                   CAUSAL=causal, BLOCK_M=block, BLOCK_N=block)
        expected = torch.nn.functional.scaled_dot_product_attention(q.float(), k.float(), v.float(),
                                                                    is_causal=causal)
        torch.testing.assert_close(out.float(), expected, atol=tol, rtol=tol)


def test_gelu_kernel_matches_torch_on_a_ragged_size():
    """The benchmark's GELU (libdevice's tanh) on Tessera's CPU backend, where
    the call is math.tanh, against PyTorch's tanh form, launched as run.py
    launches it (tuned over its blocks); 3000 is no multiple of any block."""
    torch = pytest.importorskip("torch")
    run = bench_module("run")
    kernels = run.tessera_kernels()
    generator = torch.Generator().manual_seed(0)
    for dtype, tol in ((torch.float32, 1e-6), (torch.bfloat16, 1e-2)):
        x = (torch.randn(3000, generator=generator) * 4).to(dtype)
        out = torch.full_like(x, float("nan"))
        run.launch_gelu(kernels, x, out)
        expected = torch.nn.functional.gelu(x.float(), approximate="tanh")
        torch.testing.assert_close(out.float(), expected, atol=tol, rtol=tol)


@pytest.mark.parametrize("kernel", ["matmul", "matmul_unassumed", "matmul_persistent",
                                    "matmul_persistent_carried"])
def test_gemm_kernels_match_torch_on_ragged_shapes(kernel):
    """The benchmark's GEMM sources on Tessera's CPU backend against PyTorch:
    150x136 has ragged tiles of 32x32, and the persistent kernel's 4
    programs walk 25 tiles (7, 6, 6 and 6 each)."""
    torch = pytest.importorskip("torch")
    run = bench_module("run")
    kernels = run.tessera_kernels()
    generator = torch.Generator().manual_seed(len(kernel))
    M, N, K = 150, 136, 200
    a = torch.randn(M, K, generator=generator).to(torch.bfloat16)
    b = torch.randn(K, N, generator=generator).to(torch.bfloat16)
    c = torch.full((M, N), float("nan"), dtype=torch.bfloat16)
    meta = dict(BLOCK_M=32, BLOCK_N=32, BLOCK_K=32, GROUP_M=2)
    tiles = run.triton_cdiv(M, 32) * run.triton_cdiv(N, 32)
    grid = (tiles,) if kernel in ("matmul", "matmul_unassumed") else (4,)
    getattr(kernels, kernel).fn[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0),
                                      b.stride(1), c.stride(0), c.stride(1), **meta)
    torch.testing.assert_close(c.float(), a.float() @ b.float(), atol=0.1, rtol=2e-2)


def test_weight_only_gemm_matches_torch_on_a_ragged_shape():
    """The benchmark's weight-only int8 GEMM on Tessera's CPU backend, as
    run.py launches it, against PyTorch on the dequantized weight."""
    torch = pytest.importorskip("torch")
    run = bench_module("run")
    kernels = run.tessera_kernels()
    generator = torch.Generator().manual_seed(8)
    M, N, K = 150, 136, 200
    a = torch.randn(M, K, generator=generator).to(torch.float16)
    b = torch.randint(-127, 128, (K, N), generator=generator, dtype=torch.int8)
    scale = (torch.rand(N, generator=generator) * 0.01 + 0.001).to(torch.float16)
    c = torch.full((M, N), float("nan"), dtype=torch.float16)
    tiles = run.triton_cdiv(M, 32) * run.triton_cdiv(N, 32)
    kernels.matmul_weight_only.fn[(tiles,)](a, b, scale, c, M, N, K, a.stride(0), a.stride(1),
                                            b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                                            BLOCK_M=32, BLOCK_N=32, BLOCK_K=32, GROUP_M=2)
    expected = (a.float() @ b.float()) * scale.float()
    torch.testing.assert_close(c.float(), expected, atol=0.05, rtol=2e-2)


@pytest.mark.parametrize("layout", ["nn", "nt"])
@pytest.mark.parametrize("kernel", ["matmul_descriptors", "matmul_descriptors_persistent_tma"])
def test_descriptor_gemm_matches_torch_on_ragged_shapes(layout, kernel, monkeypatch):
    """The benchmark's GEMMs on host tensor descriptors (run.py's launch) on
    Tessera's CPU backend, with 32x64x32 blocks instead of the benchmark's
    128x256x64, which take a minute to compile for the CPU: 150x136 leaves
    ragged tiles on both edges, K = 200 a ragged last block; NT describes B
    as the [N, K] tensor it transposes. The persistent one walks the 25
    tiles with 3 programs (its `tma` matters only on NVIDIA)."""
    torch = pytest.importorskip("torch")
    run = bench_module("run")
    monkeypatch.setattr(run, "DESCRIPTOR_GEMM", dict(BLOCK_M=32, BLOCK_N=64, GROUP_M=2,
                                                     num_warps=4, num_stages=2))
    monkeypatch.setattr(run, "DESCRIPTOR_K_BYTES", 64)  # BLOCK_K 32 of bf16
    generator = torch.Generator().manual_seed(7)
    M, N, K = 150, 136, 200
    a = torch.randn(M, K, generator=generator).to(torch.bfloat16)
    b = torch.randn(K, N, generator=generator).to(torch.bfloat16)
    if layout == "nt":
        b = b.t().contiguous().t()
    c = torch.full((M, N), float("nan"), dtype=torch.bfloat16)
    run.launch_gemm(run.tessera_kernels(), a, b, c, kernel, programs=3)
    torch.testing.assert_close(c.float(), a.float() @ b.float(), atol=0.1, rtol=2e-2)


def test_aot_passes_host_descriptors_as_the_jit_does():
    """A host descriptor's AOT signature entry is Triton's tensordesc<...>,
    which Tessera compiles as a descriptor parameter (base, shape, outer
    strides), the launch passing exactly those values. The signature promises
    nothing of the strides beyond what every TensorDescriptor's are, multiples
    of 16 bytes, which the compile knows of every descriptor."""
    torch = pytest.importorskip("torch")
    from tessera.compile import parse_signature
    aot = bench_module("aot")
    spec = aot.TensorSpec((300, 200), torch.bfloat16)
    desc = aot.HostDescriptor(spec, spec.shape, spec.stride(), [128, 64])
    assert aot.signature_entry(desc) == "tensordesc<bf16[128, 64]>"
    _, plan = parse_signature(aot.signature_entry(desc), ["d"], set())
    [(kind, element, block, padding, shape_divisibility, stride_divisibility)] = plan
    assert (kind, element.name, block, padding) == ("desc", "bf16", (128, 64), "zero")
    assert shape_divisibility == (0, 0) and stride_divisibility == (0,)
    nan_padded = aot.HostDescriptor(spec, spec.shape, spec.stride(), [128, 64], padding="nan")
    assert aot.signature_entry(nan_padded) == "tensordesc<bf16[128, 64], nan>"
    _, [entry] = parse_signature(aot.signature_entry(nan_padded), ["d"], set())
    assert entry[3] == "nan"
    square = aot.HostDescriptor(spec, [304, 4096], [4096, 1], [128, 64])
    assert aot.signature_entry(square) == "tensordesc<bf16[128, 64]>:16"
    _, [entry] = parse_signature(aot.signature_entry(square), ["d"], set())
    assert entry[4] == (16, 16)
    base = torch.zeros(300, 208, dtype=torch.bfloat16)
    view = aot.HostDescriptor(base, [300, 200], [208, 1], [128, 64])
    assert aot.launch_params(["d", "n", "BLOCK"], {"BLOCK"}, ["desc", "i32"],
                             dict(d=view, n=7, BLOCK=64)) == [
        ("ptr", base.data_ptr()), ("i32", 300), ("i32", 200), ("i64", 208), ("i32", 7)]


def test_correctness_script_loads_where_tessera_is_not_built():
    """The lent GPU machines have PyTorch but no Tessera: correctness.py and
    the references it imports must load there (as `--aot` runs them)."""
    pytest.importorskip("torch")
    code = ("import sys; sys.modules['tessera'] = None; "
            f"sys.path.insert(0, {os.path.dirname(RUN)!r}); "
            "import correctness; assert correctness.cases()")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("name", [
    "matmul fp16 nt 150x136x200 tile 64x64x32 ieee warps=4 stages=3",
    "matmul bf16 nn 150x136x200 tile 64x64x32 ieee warps=8 stages=3",
    "matmul fp32 nt 150x136x200 tile 64x64x32 tf32 warps=4 stages=3",
    "matmul fp32 nn 150x136x200 tile 64x64x32 tf32x3 warps=4 stages=3",
    "matmul i8 nn 150x136x200 tile 64x64x64 ieee warps=4 stages=3",
    "reduce argmax axis=1 29x100 warps=4",
    "reduce cumsum axis=0 29x100 warps=1",
    "unary exp n=1000", "unary div_rn n=1000", "integer // and % n=1000",
    "seeded dropout (tl.rand) n=5000", "sort and topk i32 5x1024 k=16 warps=8",
    "atomic_add histogram and float sum n=5000", "trans fp16 100x70",
    "tensor descriptor 96x64 block 32x16", "tensor descriptor 101x72 block 32x32 tma",
    "descriptor matmul bf16 nt 150x137x203 tile 64x64x32 warps=4 stages=3",
    "matmul fp32 nn 150x136x200 tile 64x32x32 tf32 warps=4 stages=3",
    "descriptor matmul fp32 nn 150x137x203 tile 64x64x32 warps=4 stages=3",
    "matmul bf16 nn 150x136x200 tile 64x64x32 ieee warps=4 stages=3 -> bf16",
    "persistent matmul bf16 nn 150x136x200 tile 32x32x32 programs=5 warps=2 stages=3 -> bf16",
    "chained dots fp16 150x64 blocks of 64 rows warps=4", "unary exp2 n=1000",
    "descriptor matmul bf16 nn 150x137x203 tile 64x64x32 warps=4 stages=3 tma",
    "device descriptor matmul bf16 nn 150x137x203 tile 64x64x32 tma",
    "attention fp16 200x300x64 tile 64x64 warps=4 stages=3",
    "descriptor matmul bf16 nn 150x137x192 tile 64x64x32 warps=4 stages=3 tma nan padding",
    "tutorial matmul fp16 150x136x200 tile 64x64x32 group 8 warps=4 stages=3",
    "columns -384.. modulo 48", "columns -1536.. modulo 48 summed over 5 rows in a loop"])
def test_device_correctness_cases_on_cpu(name):
    """bench/gpu/correctness.py's cases (what a lent GPU machine checks from
    exported cubins) on Tessera's CPU backend: the harness, the inputs and
    the NumPy references are right before a GPU run relies on them. A
    sample; `correctness.py --cpu` runs them all (about 4 minutes)."""
    pytest.importorskip("torch")
    correctness = bench_module("correctness")
    [(seed, case)] = [(i, c) for i, c in enumerate(correctness.cases()) if c.name == name]
    on = correctness.OnDevice(seed, device="cpu")
    case.launch(correctness.tessera_kernels(correctness.KERNELS), on)
    good, detail = on.verdict()
    assert good, detail


def test_untried_cases_run_apart_and_a_hang_is_reported(monkeypatch):
    """On a GPU, the TMA, fp8, f16-accumulator (wgmma) and driver-JIT cases
    run one per child process (`--case N`)
    with a time limit: a kernel whose mbarrier never completes is reported
    HUNG and the cases after it still run; the child's verdict line is the
    case's."""
    pytest.importorskip("torch")
    import subprocess
    correctness = bench_module("correctness")
    untried = [(i, c) for i, c in enumerate(correctness.cases()) if c.untried]
    assert untried and all(" tma" in c.name
                           or c.name.startswith(("matmul fp8", "float8", "weight-only matmul",
                                                 "int4-weight matmul"))
                           or " into f16 " in c.name or "the driver's JIT" in c.name
                           for _, c in untried)
    assert all(c.untried for c in correctness.cases() if " tma" in c.name)
    seed, case = untried[0]
    commands = []

    def hangs(command, **kwargs):
        commands.append(command)
        raise subprocess.TimeoutExpired(command, kwargs["timeout"])
    monkeypatch.setattr(correctness.subprocess, "run", hangs)
    assert correctness.run_case_apart("dir", seed, case, 7) == (
        False, "HUNG: no result in 7 s (killed)")
    assert commands[0][-4:] == ["--aot", "dir", "--case", str(seed)]

    def answers(command, **kwargs):
        return subprocess.CompletedProcess(command, 0, f"ok    {case.name}: max abs error 0\n", "")
    monkeypatch.setattr(correctness.subprocess, "run", answers)
    assert correctness.run_case_apart("dir", seed, case, 7) == (True, "max abs error 0")

    def crashes(command, **kwargs):
        return subprocess.CompletedProcess(command, -6, "", "CUDA error: an illegal instruction")
    monkeypatch.setattr(correctness.subprocess, "run", crashes)
    good, detail = correctness.run_case_apart("dir", seed, case, 7)
    assert not good and "illegal instruction" in detail


def test_aot_export_of_the_tma_descriptor_gemm_lists_its_tensor_maps(tmp_path):
    """Rows gemm-nn-dt: the descriptor GEMM exported with `tma`, its manifest
    entry carrying the recipes of the tensor maps its launch encodes: A's and
    B's boxes, and the four 128x64 boxes of C that its store writes."""
    pytest.importorskip("torch")
    out = tmp_path / "aot"
    result = subprocess.run([sys.executable, RUN, "--suite", "gemm", "--sizes", "512", "--dtypes",
                             "bf16", "--layouts", "nn", "--gemm-kernels", "matmul_descriptors_tma",
                             "--export", str(out)],
                            capture_output=True, text=True, timeout=600, env=bench_env())
    assert result.returncode == 0, result.stdout + result.stderr
    import json
    (entry,) = json.loads((out / "manifest.json").read_text())["entries"]
    assert entry["kernel"] == "matmul_descriptors" and entry["tma"] and entry["spills"] == 0
    assert [(m["base"], m["box"], m["swizzle"]) for m in entry["tensor_maps"]] == [
        (0, [64, 128], 128), (4, [64, 64], 128), (8, [64, 128], 128)]


class FakeTensorMap:
    """tests/unit/runtime/cuda/FakeCudaDriver.h's FakeCudaTensorMap."""

    @staticmethod
    def structure():
        import ctypes

        class Fields(ctypes.Structure):
            _fields_ = [("dataType", ctypes.c_int), ("rank", ctypes.c_uint),
                        ("address", ctypes.c_void_p), ("dims", ctypes.c_ulonglong * 5),
                        ("strides", ctypes.c_ulonglong * 4), ("box", ctypes.c_uint * 5),
                        ("elementStrides", ctypes.c_uint * 5), ("interleave", ctypes.c_int),
                        ("swizzle", ctypes.c_int), ("l2Promotion", ctypes.c_int),
                        ("oobFill", ctypes.c_int), ("count", ctypes.c_uint)]
        return Fields


FAKE_CUDA = os.path.join(ROOT, "build", "lib", "libTesseraFakeCuda.so")


@pytest.mark.skipif(not os.path.exists(FAKE_CUDA), reason="the fake CUDA driver is built with the tests")
def test_aot_encodes_tensor_maps_as_the_runtime_does():
    """aot.py restates the runtime's tensor-map encoding for machines without
    a Tessera build: against the fake driver, the arguments of
    cuTensorMapEncodeTiled are those CudaFakeDriverTest checks of the C++
    runtime (innermost first, strides in bytes, 128-byte swizzle)."""
    pytest.importorskip("torch")
    import ctypes
    aot = bench_module("aot")
    driver = object.__new__(aot.CudaDriver)
    driver.lib = ctypes.CDLL(FAKE_CUDA)
    recipe = dict(base=0, shape=[1, 2], strides=[3], element="bf16", element_bytes=2,
                  box=[64, 128], swizzle=128, nan_padding=True)
    params = [("ptr", 0x10000), ("i32", 100), ("i32", 200), ("i64", 208)]
    encoded = driver.encode_tensor_map(recipe, params)
    assert len(encoded) == 128 and int.from_bytes(encoded[:8], "little") == 0x10000
    driver.lib.tesseraFakeCudaLastTensorMap.restype = ctypes.POINTER(FakeTensorMap.structure())
    seen = driver.lib.tesseraFakeCudaLastTensorMap().contents
    assert (seen.dataType, seen.rank, seen.address) == (9, 2, 0x10000)
    assert list(seen.dims[:2]) == [200, 100] and seen.strides[0] == 416
    assert list(seen.box[:2]) == [64, 128] and list(seen.elementStrides[:2]) == [1, 1]
    assert (seen.interleave, seen.swizzle, seen.l2Promotion, seen.oobFill) == (0, 3, 3, 1)
    constant_width = dict(recipe, shape=[1, ["constant", 64]], strides=[["constant", 64]])
    driver.encode_tensor_map(constant_width, params)
    seen = driver.lib.tesseraFakeCudaLastTensorMap().contents
    assert list(seen.dims[:2]) == [64, 100] and seen.strides[0] == 128
    with pytest.raises(ValueError, match="TMA cannot describe"):
        driver.encode_tensor_map(recipe, [("ptr", 0x10000), ("i32", 100), ("i32", 200), ("i64", 201)])


@pytest.mark.skipif(not has_ptxas(), reason="ptxas (CUDA toolkit) not found")
def test_compare_with_triton_reports_both_compilers():
    """compare_with_triton.py: where Triton is installed beside the project,
    both compilers' registers, spills, SASS, barriers and compile time for each config;
    without it (CI), exit 2 saying so."""
    result = subprocess.run(
        [sys.executable, os.path.join(os.path.dirname(RUN), "compare_with_triton.py"),
         "layernorm", "*fp16:16, *fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, fp32, "
         "1024, 1", "--rows", "2,4", "4,8", "--target", "sm_80"],
        capture_output=True, text=True, timeout=600, env=bench_env())
    try:
        import triton  # noqa: F401
    except ImportError:
        assert result.returncode == 2 and "Triton is not installed" in result.stderr
        return
    assert result.returncode == 0, result.stdout + result.stderr
    rows = [line for line in result.stdout.splitlines() if "warps=" in line]
    assert len(rows) == 2, result.stdout
    for row in rows:
        for compiler in ("tessera", "triton"):
            assert re.search(compiler + r" \d+ / \d+ / \d+ / \d+ / \d+", row), row


@pytest.mark.skipif(not has_ptxas(), reason="ptxas (CUDA toolkit) not found")
def test_the_gemm_without_tl_assume_runs_in_two_versions():
    """tile-gpu-version-signed-remainders: without matmul's tl.assume nothing
    proves pid_n non-negative, so B's 16-byte runs of `% N` hold only where
    their endpoints are consecutive. matmul_unassumed then runs in two
    versions on the sign of pid_n * BLOCK_N: twice matmul's wgmmas, each
    version with its own final wait (numbered apart, or LLVM merges them and
    ptxas serializes every wgmma), and no spills."""
    pytest.importorskip("torch")
    from tessera import _C
    from tessera.compile import parse_signature
    kernels = bench_module("run").tessera_kernels()
    signature = ("*bf16:16, *bf16:16, *bf16:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, 1, "
                 "i32:16, 1, 128, 256, 64, 8")
    built = {}
    for name in ("matmul", "matmul_unassumed"):
        fn = getattr(kernels, name).fn
        values, plan = parse_signature(signature, fn.arg_names, fn.constexprs)
        module = fn.compile_for(values, plan, "interpreter").module
        built[name] = _C.compile_gpu(module, name, "cuda:sm_90a", num_warps=8, num_stages=3)
    wgmmas = {name: kernel.assembly.count("wgmma.mma_async") for name, kernel in built.items()}
    assert wgmmas["matmul"] > 0 and wgmmas["matmul_unassumed"] == 2 * wgmmas["matmul"]
    versioned = built["matmul_unassumed"]
    assert not versioned.usage["serialized_wgmma"]
    assert versioned.usage["spills"] == 0
    final_waits = re.findall(r"wgmma\.wait_group\.sync\.aligned 0; // wait (\d+)",
                             versioned.assembly)
    assert len(final_waits) == 2 and len(set(final_waits)) == 2
