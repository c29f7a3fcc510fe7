"""The on-disk GPU kernel cache (runtime/cache/GpuKernelCache.h) as a user meets
it: a second process compiling or launching the same kernel loads it from
$TESSERA_CACHE_DIR/gpu instead of compiling, with the same code; a broken entry
is rebuilt; TESSERA_CACHE=0 writes nothing. Each process is a fresh Python, as a
script run twice is. Needs ptxas (the CUDA toolkit); the launch test needs a
Vulkan device (lavapipe in CI) and skips without one."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tessera
from tessera.arrays import device_info

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLI = os.environ.get("TESSERA_CLI") or os.path.join(ROOT, "build", "bin", "tessera")

KERNEL = textwrap.dedent('''
    import tessera
    import tessera.language as tl


    @tessera.jit
    def scaled_add(x_ptr, y_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr):
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offsets < n
        x = tl.load(x_ptr + offsets, mask=mask)
        y = tl.load(y_ptr + offsets, mask=mask)
        tl.store(out_ptr + offsets, alpha * x + y, mask=mask)
''')

SIGNATURE = "*fp32:16, *fp32:16, *fp32:16, i32, fp32, 256"

# Launches scaled_add on Vulkan and prints where its code came from; exits 1
# on a wrong result.
LAUNCH = textwrap.dedent('''
    import sys
    import numpy as np
    import tessera
    sys.path.insert(0, sys.argv[1])
    from kernel import scaled_add

    rng = np.random.default_rng(int(sys.argv[2]))
    n = 1000
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    out = tessera.empty((n,), np.float32, device="vulkan")
    compiled = scaled_add[(tessera.cdiv(n, 256),)](
        tessera.asarray(x, device="vulkan"), tessera.asarray(y, device="vulkan"), out, n, 0.5,
        BLOCK=256)
    ok = np.allclose(out.numpy(), 0.5 * x + y, rtol=1e-6, atol=1e-6)
    print(compiled.device_kernel.origin)
    sys.exit(0 if ok else 1)
''')


@pytest.fixture
def cache_env(tmp_path):
    """A kernel file and an environment whose kernel cache is tmp_path/cache."""
    (tmp_path / "kernel.py").write_text(KERNEL)
    env = dict(os.environ, TESSERA_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("TESSERA_CACHE", None)
    return tmp_path, env


def compile_ptx(tmp_path, env):
    r = subprocess.run([CLI, "compile", f"{tmp_path / 'kernel.py'}:scaled_add", "-s", SIGNATURE,
                        "--target", "cuda:sm_80", "--emit", "ptx", "--verbose"],
                       capture_output=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr.decode()
    return r.stdout.decode(), r.stderr.decode()


def entries(tmp_path):
    folder = tmp_path / "cache" / "gpu"
    return sorted(folder.glob("*.tkobj")) if folder.exists() else []


def test_a_second_compile_loads_the_kernel_from_the_cache(cache_env):
    tmp_path, env = cache_env
    ptx, report = compile_ptx(tmp_path, env)
    assert "loaded from the kernel cache" not in report
    assert len(entries(tmp_path)) == 1
    again, report = compile_ptx(tmp_path, env)
    assert again == ptx
    assert f"loaded from the kernel cache ({tmp_path / 'cache' / 'gpu'})" in report, report
    assert "registers" in report  # ptxas's usage comes from the entry too


def test_another_num_warps_is_another_entry(cache_env):
    tmp_path, env = cache_env
    compile_ptx(tmp_path, env)
    r = subprocess.run([CLI, "compile", f"{tmp_path / 'kernel.py'}:scaled_add", "-s", SIGNATURE,
                        "--target", "cuda:sm_80", "--emit", "ptx", "--num-warps", "8"],
                       capture_output=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr.decode()
    assert ".maxntid 256, 1, 1" in r.stdout.decode()
    assert len(entries(tmp_path)) == 2


def test_a_broken_entry_is_rebuilt(cache_env):
    tmp_path, env = cache_env
    ptx, _ = compile_ptx(tmp_path, env)
    [entry] = entries(tmp_path)
    whole = entry.read_bytes()
    for broken in (whole[: len(whole) // 2], whole[:-1] + bytes([whole[-1] ^ 1]), b""):
        entry.write_bytes(broken)
        rebuilt, report = compile_ptx(tmp_path, env)
        assert rebuilt == ptx
        assert "loaded from the kernel cache" not in report
        # Rewritten whole (not byte for byte: ptxas's report holds its compile time).
        _, report = compile_ptx(tmp_path, env)
        assert "loaded from the kernel cache" in report


def test_tessera_cache_0_writes_nothing(cache_env):
    tmp_path, env = cache_env
    env["TESSERA_CACHE"] = "0"
    for _ in range(2):
        _, report = compile_ptx(tmp_path, env)
        assert "loaded from the kernel cache" not in report
    assert entries(tmp_path) == []


def test_a_second_process_launches_the_cached_kernel(cache_env):
    try:
        device_info("vulkan")
    except tessera.DeviceError as e:
        pytest.skip(str(e))
    tmp_path, env = cache_env
    (tmp_path / "launch.py").write_text(LAUNCH)
    origins = []
    for seed in (1, 2):
        r = subprocess.run([sys.executable, str(tmp_path / "launch.py"), str(tmp_path), str(seed)],
                           capture_output=True, env=env, timeout=300)
        assert r.returncode == 0, r.stdout.decode() + r.stderr.decode()
        origins.append(r.stdout.decode().split()[-1])
    assert origins == ["compiled", "disk"]
    assert len(entries(tmp_path)) == 1


def cache_command(env, *args):
    r = subprocess.run([CLI, "cache", *args], capture_output=True, env=env, timeout=60)
    return r.returncode, r.stdout.decode(), r.stderr.decode()


def test_tessera_cache_lists_verifies_and_clears(cache_env):
    tmp_path, env = cache_env
    compile_ptx(tmp_path, env)
    gpu = tmp_path / "cache" / "gpu"
    (gpu / "notes.txt").write_text("not the cache's")
    code, out, _ = cache_command(env, "list", "--kind", "gpu")
    assert code == 0
    assert out.startswith(f"gpu: {gpu}: 1 entries"), out
    assert "scaled_add" in out
    [entry] = entries(tmp_path)
    entry.write_bytes(entry.read_bytes()[:-3])
    code, out, _ = cache_command(env, "info")
    assert f"cpu: {tmp_path / 'cache' / 'cpu'}: 0 entries" in out
    assert "1 broken (`tessera cache verify` removes them)" in out, out
    code, out, _ = cache_command(env, "verify", "--kind", "gpu")
    assert code == 0 and "0 entries whole, 1 broken removed" in out, out
    assert entries(tmp_path) == []
    compile_ptx(tmp_path, env)
    code, out, _ = cache_command(env, "clear")
    assert code == 0 and "removed 1 files" in out, out
    assert entries(tmp_path) == []
    assert (gpu / "notes.txt").read_text() == "not the cache's"
    code, _, err = cache_command(env, "wipe")
    assert code == 2 and "unexpected argument 'wipe'" in err
