"""Triton's random numbers: ``tl.randint``, ``tl.rand``, ``tl.randn``, their
``4x`` forms and ``tl.philox``, counter-based, so that a kernel draws the
same numbers for a (seed, offset) on every backend and the same bits as
Triton's for integers and uniform floats.

The generator is Philox4x32 (Salmon et al., "Parallel random numbers: as
easy as 1, 2, 3", SC 2011), 10 rounds unless ``n_rounds`` says otherwise: the
offset's low and high 32 bits are the first two words of the counter, the
seed's two halves the key. The words are uint32 (uint64 for Philox4x64),
as in Triton.
"""

from .language import (_UNSIGNED, _error, _to_tensor, _unwrap, builtin, cos, float32, int32,
                       int64, log, maximum, sin, sqrt, uint32, uint64, umulhi, where)

N_ROUNDS_DEFAULT = 10

# Philox's multipliers and Weyl increments of the key (the golden ratio and
# sqrt(3) - 1 in fixed point), for 32- and 64-bit words.
_CONSTANTS = {
    32: dict(round_a=0xD2511F53, round_b=0xCD9E8D57, key_a=0x9E3779B9, key_b=0xBB67AE85),
    64: dict(round_a=0xD2E7470EE14C6C93, round_b=0xCA5A826395121157,
             key_a=0x9E3779B97F4A7C15, key_b=0xBB67AE8584CAA73B),
}


def _rounds(n_rounds):
    n = _unwrap(n_rounds)
    if not isinstance(n, int) or isinstance(n, bool) or n < 0:
        _error(f"n_rounds must be a non-negative integer constant, got {n!r}")
    return n


def _words(values, name):
    words = [_to_tensor(v) for v in values]
    if any(not w.dtype.is_int() or w.dtype.is_bool() for w in words):
        _error(f"{name}: counters and seed must be integers, got "
               f"{', '.join(str(w.dtype) for w in words)}")
    return words


@builtin
def philox_impl(c0, c1, c2, c3, k0, k1, n_rounds=N_ROUNDS_DEFAULT):
    """`n_rounds` rounds of Philox on the counter (c0, c1, c2, c3) under the
    key (k0, k1): words of 32 or 64 bits (signed ones are taken as their bits),
    and four uint32 or uint64 words out."""
    words = _words((c0, c1, c2, c3, k0, k1), "philox_impl")
    bits = words[0].dtype.primitive_bitwidth
    if bits not in _CONSTANTS or any(w.dtype.primitive_bitwidth != bits for w in words):
        _error("philox_impl: counters and key must all be 32-bit or all 64-bit integers, got "
               f"{', '.join(str(w.dtype) for w in words)}")
    c0, c1, c2, c3, k0, k1 = (w.to(_UNSIGNED[bits], bitcast=True) for w in words)
    constants = {name: _to_tensor(value, c0) for name, value in _CONSTANTS[bits].items()}
    round_a, round_b = constants["round_a"], constants["round_b"]
    for _ in range(_rounds(n_rounds)):
        c0, c1, c2, c3 = (umulhi(round_b, c2) ^ c1 ^ k0, round_b * c2,
                          umulhi(round_a, c0) ^ c3 ^ k1, round_a * c0)
        k0, k1 = k0 + constants["key_a"], k1 + constants["key_b"]
    return c0, c1, c2, c3


@builtin
def philox(seed, c0, c1, c2, c3, n_rounds=N_ROUNDS_DEFAULT):
    """Philox on the counter (c0, c1, c2, c3), keyed by `seed`: with 32-bit
    counters the key is the seed's low and high 32 bits, with 64-bit ones the
    seed and 0."""
    seed, c0, c1, c2, c3 = _words((seed, c0, c1, c2, c3), "philox")
    seed = seed.to(uint64)
    if c0.dtype.primitive_bitwidth <= 32:
        word = uint32
        seed_lo, seed_hi = seed.to(uint32), (seed >> 32).to(uint32)
    else:
        word = uint64
        seed_lo, seed_hi = seed, seed * 0
    counter = [c.to(word, bitcast=c.dtype.primitive_bitwidth == word.primitive_bitwidth)
               for c in (c0, c1, c2, c3)]
    return philox_impl(*counter, seed_lo, seed_hi, n_rounds)


@builtin
def randint4x(seed, offset, n_rounds=N_ROUNDS_DEFAULT):
    """Four blocks of random 32-bit words (uint32) for the offsets `offset`,
    a block of integers, under the scalar `seed`."""
    (offset,) = _words((offset,), "randint4x")
    low = offset.to(uint32)
    zero = low * 0
    high = (offset >> 32).to(uint32) if offset.dtype.primitive_bitwidth > 32 else zero
    return philox(seed, low, high, zero, zero, n_rounds)


@builtin
def randint(seed, offset, n_rounds=N_ROUNDS_DEFAULT):
    """One block of random 32-bit words (uint32): the first of randint4x's."""
    return randint4x(seed, offset, n_rounds)[0]


@builtin
def uint_to_uniform_float(x):
    """Random words as float32 in [0, 1): the word's bits read as a signed
    integer, a negative one flipped to its complement, scaled by the largest
    factor that keeps the largest word below 1."""
    x = _to_tensor(x)
    if x.dtype.is_int() and x.dtype.primitive_bitwidth == 32:
        x, scale = x.to(int32, bitcast=True), 4.6566127342e-10
    elif x.dtype.is_int() and x.dtype.primitive_bitwidth == 64:
        x, scale = x.to(int64, bitcast=True), 1.0842020432385337e-19
    else:
        _error(f"uint_to_uniform_float takes 32 or 64-bit integer words, got {x.dtype}")
    x = where(x < 0, ~x, x)
    return x.to(float32) * scale


@builtin
def rand(seed, offset, n_rounds=N_ROUNDS_DEFAULT):
    """A block of float32 uniform in [0, 1)."""
    return uint_to_uniform_float(randint(seed, offset, n_rounds))


@builtin
def rand4x(seed, offset, n_rounds=N_ROUNDS_DEFAULT):
    """Four blocks of float32 uniform in [0, 1)."""
    return tuple(uint_to_uniform_float(w) for w in randint4x(seed, offset, n_rounds))


@builtin
def pair_uniform_to_normal(u1, u2):
    """Box-Muller: two uniform blocks to two independent standard normal ones
    (u1 kept at 1e-7 or above, so that its log is finite)."""
    u1 = maximum(1.0e-7, _to_tensor(u1))
    theta = 6.283185307179586 * _to_tensor(u2)
    radius = sqrt(-2.0 * log(u1))
    return radius * cos(theta), radius * sin(theta)


@builtin
def randn(seed, offset, n_rounds=N_ROUNDS_DEFAULT):
    """A block of float32 drawn from the standard normal distribution."""
    i1, i2, _, _ = randint4x(seed, offset, n_rounds)
    return pair_uniform_to_normal(uint_to_uniform_float(i1), uint_to_uniform_float(i2))[0]


@builtin
def randn4x(seed, offset, n_rounds=N_ROUNDS_DEFAULT):
    """Four blocks of float32 drawn from the standard normal distribution."""
    u1, u2, u3, u4 = rand4x(seed, offset, n_rounds)
    return pair_uniform_to_normal(u1, u2) + pair_uniform_to_normal(u3, u4)
