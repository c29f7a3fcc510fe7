"""NumPy references for tessera.language's random numbers: Philox4xW on
Python integers, the uniform floats Triton makes of its words, and the mask
and output of Triton's seeded dropout (tutorial 04). No Tessera import, so
that bench/gpu/correctness.py can check a GPU's results where Tessera is not
built."""

import numpy as np

MASK32 = 0xFFFFFFFF


def philox_reference(counter, key, bits=32, rounds=10):
    """Philox4xW on Python integers: `counter` four arrays, `key` two."""
    mask = (1 << bits) - 1
    if bits == 32:
        mul_a, mul_b, weyl_a, weyl_b = 0xD2511F53, 0xCD9E8D57, 0x9E3779B9, 0xBB67AE85
    else:
        mul_a, mul_b = 0xD2E7470EE14C6C93, 0xCA5A826395121157
        weyl_a, weyl_b = 0x9E3779B97F4A7C15, 0xBB67AE8584CAA73B
    c = [np.array(w, dtype=object) & mask for w in counter]
    k = [np.array(w, dtype=object) & mask for w in key]
    for _ in range(rounds):
        product_a, product_b = mul_a * c[0], mul_b * c[2]
        c = [(product_b >> bits) ^ c[1] ^ k[0], product_b & mask,
             (product_a >> bits) ^ c[3] ^ k[1], product_a & mask]
        k = [(k[0] + weyl_a) & mask, (k[1] + weyl_b) & mask]
    return c


def as_signed(words, bits=32):
    """Unsigned words as the signed integers of the same bits (a flat array)."""
    return np.array([w - (1 << bits) if w >= 1 << (bits - 1) else w for w in np.ravel(words)],
                    dtype=np.int32 if bits == 32 else np.int64)


def uniform_reference(words):
    x = as_signed(words)
    x = np.where(x < 0, ~x, x)
    return x.astype(np.float32) * np.float32(4.6566127342e-10)


def dropout_reference(x, p, seed):
    """The kept elements of float32 `x` (offsets 0..n-1 under `seed`) and the
    dropout's output: kept ones divided by 1 - p, the others 0."""
    words = philox_reference([np.arange(x.size, dtype=object), 0, 0, 0],
                             [seed & MASK32, (seed >> 32) & MASK32])
    keep = uniform_reference(words[0]) > np.float32(p)
    return keep, np.where(keep, x / (np.float32(1) - np.float32(p)), np.float32(0))
