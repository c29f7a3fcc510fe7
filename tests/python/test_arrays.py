"""tessera device arrays: asarray / empty / zeros / .numpy(), as kernel
arguments, and the errors for unknown and mixed devices (GPU arrays:
test_gpu_devices.py)."""

import numpy as np
import pytest

import tessera
import tessera.language as tl


@tessera.jit
def axpy(x_ptr, y_ptr, out_ptr, a, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, a * tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask),
             mask=mask)


@pytest.mark.parametrize("n", [1, 1000])
def test_arrays_as_kernel_arguments(backend, rng, n):
    xn = rng.standard_normal(n).astype(np.float32)
    yn = rng.standard_normal(n).astype(np.float32)
    x = tessera.asarray(xn, device="cpu")
    y = tessera.asarray(yn)  # cpu by default
    out = tessera.empty((n,), tessera.float32, device="cpu")
    axpy[(tessera.cdiv(n, 256),)](x, y, out, 2.0, n, BLOCK=256)
    result = out.numpy()
    assert isinstance(result, np.ndarray) and result.dtype == np.float32 and result.shape == (n,)
    np.testing.assert_allclose(result, 2.0 * xn + yn, rtol=1e-6, atol=1e-6)
    # Mixing tessera arrays and NumPy arrays (both host memory) is fine.
    out2 = np.empty(n, np.float32)
    axpy[(tessera.cdiv(n, 256),)](x, yn, out2, 2.0, n, BLOCK=256)
    np.testing.assert_array_equal(out2, result)


def test_array_properties():
    a = tessera.asarray(np.arange(12, dtype=np.int32).reshape(3, 4))
    assert a.shape == (3, 4) and a.dtype == np.int32 and a.device == "cpu" and a.ndim == 2
    assert a.numel() == 12 and a.stride() == (4, 1) and a.stride(0) == 4 and len(a) == 3
    assert a.data_ptr() % 64 == 0  # aligned: pointer arguments get divisibility 16
    copy = a.numpy()
    copy[0, 0] = 100
    assert a.numpy()[0, 0] == 0  # .numpy() copies
    np.testing.assert_array_equal(np.asarray(a), np.arange(12).reshape(3, 4))
    assert "device='cpu'" in repr(a)
    b = tessera.asarray([1.5, 2.5], dtype=tessera.float16)
    assert b.dtype == np.float16
    z = tessera.zeros((2, 3), "float64")
    assert z.dtype == np.float64 and not z.numpy().any()
    e = tessera.empty(5, np.uint8, device="cpu:0")
    assert e.shape == (5,) and e.device == "cpu"
    for dtype in (tessera.uint16, tessera.uint32, tessera.uint64):
        words = tessera.asarray([0, 2**dtype.primitive_bitwidth - 1], dtype=dtype)
        assert words.dtype == np.dtype(f"uint{dtype.primitive_bitwidth}")
        assert words.numpy()[1] == 2**dtype.primitive_bitwidth - 1


def test_array_specializes_divisibility():
    x = tessera.asarray(np.zeros(64, np.float32))
    y = tessera.empty((64,), tessera.float32)
    ir = axpy.ir(x, y, y, 1.0, 64, BLOCK=64)
    assert "tile.divisibility = 16" in ir


# GPU arrays ("vulkan", "cuda", "hip") and the errors for devices that are
# absent: tests/python/test_gpu_devices.py.


@pytest.mark.parametrize("dtype,cases", [
    (tl.float8e4nv, [(1.0, 0x38), (1.0625, 0x38), (1.1875, 0x3A), (448.0, 0x7E), (464.0, 0x7E),
                     (np.inf, 0x7E), (-1e9, 0xFE), (2.0 ** -9, 0x01), (2.0 ** -10, 0x00),
                     (3 * 2.0 ** -10, 0x02), (-0.0, 0x80), (np.nan, 0x7F)]),
    (tl.float8e5, [(1.0, 0x3C), (1.375, 0x3E), (57344.0, 0x7B), (61440.0, 0x7B), (np.inf, 0x7B),
                   (2.0 ** -16, 0x01), (2.0 ** -17, 0x00), (3 * 2.0 ** -17, 0x02), (2.0 ** -14, 0x04)]),
])
def test_float8_codes_round_to_nearest_even_and_saturate(dtype, cases):
    """The host's fp8 codec (tessera.float8_codec) by hand: ties to even,
    subnormals, saturation, NaN; decoding gives the values back."""
    values = np.array([v for v, _ in cases])
    codes = tessera.float8_codec.encode(values, dtype)
    assert codes.tolist() == [c for _, c in cases]
    decoded = tessera.float8_codec.decode(codes, dtype)
    assert np.isnan(decoded[np.isnan(values)]).all()
    finite = ~np.isnan(values)
    np.testing.assert_array_equal(tessera.float8_codec.encode(decoded[finite], dtype), codes[finite])


def test_float8_codes_match_pytorch():
    torch = pytest.importorskip("torch")
    gen = np.random.default_rng(3)
    x = gen.uniform(1, 2, 20000) * np.exp2(gen.integers(-22, 20, 20000)) * gen.choice([-1, 1], 20000)
    for dtype, torch_type, largest in [(tl.float8e4nv, torch.float8_e4m3fn, 448.0),
                                       (tl.float8e5, torch.float8_e5m2, 57344.0)]:
        expected = torch.from_numpy(x).float().clamp(-largest, largest).to(torch_type)
        np.testing.assert_array_equal(tessera.float8_codec.encode(x.astype(np.float32), dtype),
                                      expected.view(torch.uint8).numpy())
        every = np.arange(256, dtype=np.uint8)
        np.testing.assert_array_equal(tessera.float8_codec.decode(every, dtype),
                                      torch.from_numpy(every).view(torch_type).float().numpy())


@tessera.jit
def float8_scale(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, (x.to(tl.float32) * 3.0).to(out_ptr.dtype.element_ty), mask=mask)


@pytest.mark.parametrize("dtype", [tl.float8e4nv, tl.float8e5])
def test_float8_arrays(backend, rng, dtype):
    """fp8 arrays: values rounded as kernels round, passed as fp8 pointers,
    read back as float32; their codes are not shared with NumPy or DLPack."""
    n = 777
    values = rng.standard_normal(n) * 100
    x = tessera.asarray(values, dtype=dtype)
    out = tessera.empty((n,), dtype)
    assert x.dtype is dtype and out.dtype is dtype and x.itemsize == 1 and x.nbytes == n
    float8_scale[(tessera.cdiv(n, 256),)](x, out, n, BLOCK=256)
    rounded = x.numpy()
    assert rounded.dtype == np.float32
    np.testing.assert_array_equal(rounded, tessera.float8_codec.decode(
        tessera.float8_codec.encode(values, dtype), dtype))
    np.testing.assert_array_equal(out.numpy(), tessera.float8_codec.decode(
        tessera.float8_codec.encode(rounded.astype(np.float64) * 3.0, dtype), dtype))
    assert f"dtype={dtype!r}" in repr(x)
    np.testing.assert_array_equal(tessera.asarray(x).numpy(), rounded)
    assert not tessera.zeros((3,), dtype).numpy().any()
    with pytest.raises(AttributeError, match="NumPy has no type for"):
        x.__array_interface__
    with pytest.raises(BufferError, match="NumPy has no type for"):
        x.__dlpack__()


def test_unknown_device():
    with pytest.raises(tessera.DeviceError, match="unknown device 'tpu'; Tessera's devices are cpu, cuda, hip, vulkan"):
        tessera.asarray(np.zeros(4), device="tpu")
    with pytest.raises(tessera.DeviceError, match="there is one cpu device"):
        tessera.empty((4,), device="cpu:1")


def test_unsupported_dtype():
    with pytest.raises(TypeError, match="complex64"):
        tessera.asarray(np.zeros(4, np.complex64))


def test_bfloat16_tensors_go_to_kernels_directly():
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError, match="bfloat16 are not supported yet .* through DLPack"):
        tessera.asarray(torch.zeros(4, dtype=torch.bfloat16))


class _DeviceTensor:
    """A DLPack producer that says it lives on another device."""

    def __init__(self, array, device_type):
        self.array, self.device_type = array, device_type

    def __dlpack__(self, **kwargs):
        return self.array.__dlpack__()

    def __dlpack_device__(self):
        return (self.device_type, 0)


def test_mixed_devices_is_an_error(backend):
    x = tessera.asarray(np.zeros(16, np.float32))
    y = _DeviceTensor(np.zeros(16, np.float32), 2)
    with pytest.raises(tessera.ArgumentError) as info:
        axpy[(1,)](x, y, x, 1.0, 16, BLOCK=16)
    assert info.value.message == ("kernel 'axpy': array arguments live on different devices ('x_ptr' is on "
                                  "cpu, 'y_ptr' is on cuda:0); copy them to one device")


def test_arguments_on_a_device_tessera_cannot_run_on(backend):
    y = _DeviceTensor(np.zeros(16, np.float32), 4)  # kDLOpenCL
    with pytest.raises(tessera.ArgumentError) as info:
        axpy[(1,)](y, y, y, 1.0, 16, BLOCK=16)
    assert info.value.message == ("kernel 'axpy': argument 'x_ptr' is on DLPack device type 4:0, which "
                                  "Tessera cannot run kernels on")
