"""Triton's random numbers (python/tessera/random.py): Philox4x32-10 against
the known answers of its authors' Random123 library and against the NumPy
implementation of random_reference.py, on fresh seeds and ragged offsets."""

import numpy as np
import pytest

import tessera
import tessera.language as tl
from random_reference import MASK32, as_signed, philox_reference, uniform_reference


@tessera.jit
def philox_words(counter_ptr, key_ptr, out_ptr, ROUNDS: tl.constexpr):
    four = tl.arange(0, 4)
    c0 = tl.load(counter_ptr + four * 4)
    c1 = tl.load(counter_ptr + four * 4 + 1)
    c2 = tl.load(counter_ptr + four * 4 + 2)
    c3 = tl.load(counter_ptr + four * 4 + 3)
    k0 = tl.load(key_ptr + four * 2)
    k1 = tl.load(key_ptr + four * 2 + 1)
    words = tl.philox_impl(c0, c1, c2, c3, k0, k1, ROUNDS)
    for i in tl.static_range(4):
        tl.store(out_ptr + four * 4 + i, words[i])


# Random123's known answers for Philox4x32-10 (kat_vectors): counter, key,
# the four words.
KNOWN_ANSWERS = [
    ([0, 0, 0, 0], [0, 0], [0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]),
    ([MASK32] * 4, [MASK32] * 2, [0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD]),
    ([0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344], [0xA4093822, 0x299F31D0],
     [0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1]),
]


@pytest.mark.parametrize("rounds", [10, 7])
def test_philox_known_answers(backend, rounds):
    counters = [c for c, _, _ in KNOWN_ANSWERS] + [[1, 2, 3, 4]]
    keys = [k for _, k, _ in KNOWN_ANSWERS] + [[5, 6]]
    out = np.zeros(16, np.int32)
    philox_words[(1,)](as_signed(counters), as_signed(keys), out, ROUNDS=rounds)
    expected = philox_reference(np.array(counters, dtype=object).T,
                                np.array(keys, dtype=object).T, rounds=rounds)
    np.testing.assert_array_equal(out.reshape(4, 4), as_signed(np.array(expected).T).reshape(4, 4))
    if rounds == 10:
        known = [words for _, _, words in KNOWN_ANSWERS]
        np.testing.assert_array_equal(out[:12], as_signed(known))


@tessera.jit
def draw(offset_ptr, words_ptr, uniform_ptr, normal_ptr, n, seed, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    offset = tl.load(offset_ptr + offs, mask=mask)
    words = tl.randint4x(seed, offset)
    for i in tl.static_range(4):
        tl.store(words_ptr + 4 * offs + i, words[i], mask=mask)
    tl.store(words_ptr + 4 * n + offs, tl.randint(seed, offset), mask=mask)
    # The words are uint32, as in Triton: % of one is in [0, 1000).
    tl.store(words_ptr + 5 * n + offs, tl.randint(seed, offset) % 1000, mask=mask)
    uniform = tl.rand4x(seed, offset)
    tl.store(uniform_ptr + offs, tl.rand(seed, offset), mask=mask)
    tl.store(uniform_ptr + n + offs, uniform[3], mask=mask)
    normal = tl.randn4x(seed, offset)
    tl.store(normal_ptr + offs, tl.randn(seed, offset), mask=mask)
    tl.store(normal_ptr + n + offs, normal[1], mask=mask)


@pytest.mark.parametrize("offset_dtype", [np.int32, np.int64])
def test_draws_match_the_reference(backend, rng, offset_dtype):
    n = 1000
    info = np.iinfo(offset_dtype)
    offsets = rng.integers(info.min, info.max, n, dtype=offset_dtype, endpoint=True)
    offsets[:3] = [0, -1, info.max]
    for seed in (int(rng.integers(-2**63, 2**63)), int(rng.integers(-2**31, 2**31)), 0):
        words = np.zeros(6 * n, np.int32)
        uniform, normal = np.zeros(2 * n, np.float32), np.zeros(2 * n, np.float32)
        draw[(tessera.cdiv(n, 128),)](offsets, words, uniform, normal, n, seed, BLOCK=128)
        wide = offsets.astype(object)
        # An int32 offset's high word is 0, as in Triton, whatever its sign.
        high = (wide >> 32) & MASK32 if offset_dtype == np.int64 else 0
        expected = philox_reference([wide & MASK32, high, 0, 0],
                                    [seed & MASK32, (seed >> 32) & MASK32])
        expected = np.stack([as_signed(w) for w in expected], axis=1)
        np.testing.assert_array_equal(words[:4 * n].reshape(n, 4), expected, err_msg=f"seed {seed}")
        np.testing.assert_array_equal(words[4 * n:5 * n], expected[:, 0])
        np.testing.assert_array_equal(words[5 * n:], expected[:, 0].view(np.uint32) % 1000)
        np.testing.assert_array_equal(uniform[:n], uniform_reference(expected[:, 0]))
        np.testing.assert_array_equal(uniform[n:], uniform_reference(expected[:, 3]))
        assert 0 <= uniform.min() and uniform.max() < 1
        u1, u2 = (np.maximum(1e-7, uniform_reference(expected[:, i]).astype(np.float64))
                  for i in range(2))
        radius, angle = np.sqrt(-2 * np.log(u1)), 2 * np.pi * u2
        # randn is the cosine of Box-Muller's pair, randn4x's second tile the sine.
        np.testing.assert_allclose(normal[:n], radius * np.cos(angle), rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(normal[n:], radius * np.sin(angle), rtol=1e-4, atol=1e-4)


@tessera.jit
def philox_64(counter_ptr, out_ptr, seed, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    c = tl.load(counter_ptr + offs)
    words = tl.philox(seed, c, c + 1, c * 3, c ^ 5)
    for i in tl.static_range(4):
        tl.store(out_ptr + 4 * offs + i, words[i])


def test_philox_on_64_bit_words(backend, rng):
    counter = rng.integers(-2**63, 2**63, 64, dtype=np.int64)
    seed = int(rng.integers(-2**63, 2**63))
    out = np.zeros(256, np.int64)
    philox_64[(1,)](counter, out, seed, BLOCK=64)
    c = counter.astype(object)
    mask = (1 << 64) - 1
    expected = philox_reference([c & mask, (c + 1) & mask, (c * 3) & mask, (c ^ 5) & mask],
                                [seed & mask, 0], bits=64)
    expected = np.stack([as_signed(w, bits=64) for w in expected], axis=1)
    np.testing.assert_array_equal(out.reshape(64, 4), expected)


@tessera.jit
def uniform_statistics(out_ptr, seed, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.rand(seed, offs))
    tl.store(out_ptr + tl.num_programs(0) * BLOCK + offs, tl.randn(seed, offs))


def test_distributions(backend, rng):
    n = 1 << 16
    out = np.zeros(2 * n, np.float32)
    uniform_statistics[(n // 1024,)](out, int(rng.integers(2**31)), BLOCK=1024)
    uniform, normal = out[:n], out[n:]
    assert abs(uniform.mean() - 0.5) < 0.01 and abs(uniform.var() - 1 / 12) < 0.005
    counts = np.histogram(uniform, bins=16, range=(0, 1))[0]
    assert counts.min() > 0.9 * n / 16 and counts.max() < 1.1 * n / 16
    assert abs(normal.mean()) < 0.02 and abs(normal.std() - 1) < 0.02


@pytest.mark.parametrize("call, message", [
    ("tl.rand(seed, offs, n_rounds=-1)", "n_rounds must be a non-negative integer constant"),
    ("tl.randint(seed, offs.to(tl.float32))", "randint4x: counters and seed must be integers"),
    ("tl.rand(1.5, offs)", "philox: counters and seed must be integers"),
    ("tl.uint_to_uniform_float(offs.to(tl.int16))", "uint_to_uniform_float takes 32 or 64-bit integer words"),
    ("tl.philox_impl(offs, offs, offs, offs, offs, offs.to(tl.int64))[0]",
     "counters and key must all be 32-bit or all 64-bit integers"),
])
def test_errors_name_the_call(kernel_error, call, message):
    body = ["offs = tl.arange(0, BLOCK)", f"tl.store(out_ptr + offs, {call})"]
    assert message in kernel_error("out_ptr, seed, BLOCK: tl.constexpr", body,
                                   np.zeros(16, np.float32), 3, BLOCK=16)
