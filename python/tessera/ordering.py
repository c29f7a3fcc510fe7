"""Triton's ``tl.sort``, ``tl.topk``, ``tl.bitonic_merge`` and ``tl.flip``:
tiles reordered along a power-of-two dimension by networks of exchanges, written
with the builtins of tessera.language, so that every backend runs them.

An exchange pairs the elements whose indices differ in one bit `j`: the tile
is viewed as ``[..., n >> (j + 1), 2, 1 << j]``, and each element's partner,
the other element of its pair, is its bits xored with the xor of the pair (an
`xor_sum` over the axis of 2). Sorting is Batcher's bitonic network, m (m + 1)
/ 2 compare-exchange steps for n = 2^m; `topk` sorts runs of k, then halves
the tile with the better of the elements k apart in pairs of runs sorted in
opposite directions (the k best of both, in bitonic order) and merges.
Elements are compared as integer keys, made once before the network and
undone after it, which are equal only where the bits are: every step permutes
the bits, whichever element of a tie moves. A float's key is its bits with the
magnitude of negatives inverted (so that the integers order as the numbers do,
-0.0 just below +0.0), less the count of negative NaNs, which wraps those above
the positive ones: a NaN of either sign sorts last (first when descending), as
in NumPy and PyTorch, and `topk` ranks NaNs above infinity.
"""

from .language import (_error, _to_tensor, _unwrap, arange, bfloat16, builtin, float16, float32,
                       float64, float8e4nv, float8e5, int8, int16, int32, int64, max, min,
                       reshape, where, xor_sum)

_SAME_WIDTH_INTEGER = {float16: int16, bfloat16: int16, float32: int32, float64: int64,
                       float8e4nv: int8, float8e5: int8}


def _bits(x, what):
    """`x` as integers of its width, and the way back."""
    if x.dtype.is_ptr():
        _error(f"{what} does not take pointers, got {x!r}")
    if x.dtype.is_bool():
        return x.to(int8), lambda b: b != 0
    integer = _SAME_WIDTH_INTEGER.get(x.dtype)
    if integer is None:
        return x, lambda b: b
    dtype = x.dtype
    return x.to(integer, bitcast=True), lambda b: b.to(dtype, bitcast=True)


# Negative NaNs per float type: every pattern of a maximal exponent and a
# nonzero fraction, except e4m3's, which has one NaN of each sign.
_NEGATIVE_NANS = {float16: 2**10 - 1, bfloat16: 2**7 - 1, float32: 2**23 - 1,
                  float64: 2**52 - 1, float8e5: 2**2 - 1, float8e4nv: 1}


def _float_keys(x):
    dtype, width = x.dtype, x.dtype.primitive_bitwidth
    nans, magnitude = _NEGATIVE_NANS[dtype], (1 << (width - 1)) - 1

    def flip_negatives(bits):
        return bits ^ ((bits >> (width - 1)) & magnitude)

    return (flip_negatives(x.to(_SAME_WIDTH_INTEGER[dtype], bitcast=True)) - nans,
            lambda keys: flip_negatives(keys + nans).to(dtype, bitcast=True))


def _sort_keys(x):
    """Integers that order as `x` does (booleans as 0 and 1, floats as above),
    at least 32 bits wide (narrower ones would be unpacked at every step), and
    the way back."""
    if x.dtype.is_bool():
        keys, back = _bits(x, "sort")
    elif x.dtype in _NEGATIVE_NANS:
        keys, back = _float_keys(x)
    else:
        keys, back = x, lambda sorted_keys: sorted_keys
    if keys.dtype.primitive_bitwidth >= 32:
        return keys, back
    narrow = keys.dtype
    return keys.to(int32), lambda sorted_keys: back(sorted_keys.to(narrow))


def _log2(n, what):
    if n < 1 or n & (n - 1):
        _error(f"{what}: the dimension must be a power of two, got {n}")
    return n.bit_length() - 1


def _dimension(x, dim, what, last_only):
    rank = len(x.shape)
    if rank == 0:
        _error(f"{what} needs a tile, got a scalar")
    dim = _unwrap(dim)
    dim = rank - 1 if dim is None else dim
    if not isinstance(dim, int) or not -rank <= dim < rank:
        _error(f"{what}: dim must be None or in [-{rank}, {rank}), got {dim!r}")
    dim %= rank
    if last_only and dim != rank - 1:
        _error(f"{what} works along the last dimension only, got dim={dim} of {rank}")
    return dim


class _Pairs:
    """`x` viewed so that the elements whose index along `dim` differs in bit
    `j` pair up along one axis of 2."""

    def __init__(self, x, dim, j):
        self.shape, n = list(x.shape), x.shape[dim]
        self.view = self.shape[:dim] + [n >> (j + 1), 2, 1 << j] + self.shape[dim + 1:]
        self.axis, self.rank, self.j = dim + 1, len(self.view), j
        self.x = reshape(x, self.view)

    def along(self, values, axis):
        """A 1-D tile placed on `axis` of the view, broadcastable against it."""
        shape = [1] * self.rank
        shape[axis] = values.shape[0]
        return reshape(values, shape)

    def index_bit(self, s):
        """Bit `s` (>= j) of each element's index, 0 or 1."""
        if s == self.j:
            return self.along(arange(0, 2), self.axis)
        higher = self.along(arange(0, self.view[self.axis - 1]), self.axis - 1)
        return (higher >> (s - self.j - 1)) & 1

    def partner(self, what):
        bits, back = _bits(self.x, what)
        return back(bits ^ xor_sum(bits, self.axis, keep_dims=True))

    def result(self, values):
        return reshape(values, self.shape)


def _compare_exchange(x, j, s, m, descending):
    """One step of merging the bitonic runs of 2^s of the last dimension (n =
    2^m), on index bit `j`: the runs in alternating order by index bit s, in
    `descending` order in the last stage (s = m)."""
    pairs = _Pairs(x, len(x.shape) - 1, j)
    other = pairs.partner("sort")
    # Ascending, the left element takes its partner where it is greater and
    # the right one where it is not: equal keys are equal bits, so taking the
    # partner's then changes nothing.
    flip = pairs.index_bit(j) == 1
    if s < m:
        flip = flip != (pairs.index_bit(s) == 1)
    elif descending:
        flip = ~flip
    return pairs.result(where((pairs.x > other) != flip, other, pairs.x))


def _merge(x, s, m, descending):
    """Merges the bitonic runs of 2^s of the last dimension (n = 2^m)."""
    for j in reversed(range(s)):
        x = _compare_exchange(x, j, s, m, descending)
    return x


@builtin
def sort(x, dim=None, descending=False):
    """`x` sorted along its last dimension (a power of two long)."""
    x = _to_tensor(x)
    m = _log2(x.shape[_dimension(x, dim, "sort", True)], "sort")
    descending = bool(_unwrap(descending))
    x, back = _sort_keys(x)
    for s in range(1, m + 1):
        x = _merge(x, s, m, descending)
    return back(x)


@builtin
def bitonic_merge(x, dim=None, descending=False):
    """A bitonic last dimension (rising then falling, or the reverse, up to a
    rotation) sorted: the last stage of `sort`."""
    x = _to_tensor(x)
    m = _log2(x.shape[_dimension(x, dim, "bitonic_merge", True)], "bitonic_merge")
    x, back = _sort_keys(x)
    return back(_merge(x, m, m, bool(_unwrap(descending))))


@builtin
def topk(x, k, dim=None, descending=True):
    """The k largest elements along the last dimension, largest first (the k
    smallest, smallest first, when not `descending`); k a power of two no
    larger than the dimension."""
    x = _to_tensor(x)
    n = x.shape[_dimension(x, dim, "topk", True)]
    m, k = _log2(n, "topk"), _unwrap(k)
    if not isinstance(k, int) or k < 1 or k > n or k & (k - 1):
        _error(f"topk: k must be a power of two from 1 to {n}, got {k!r}")
    q, descending = _log2(k, "topk"), bool(_unwrap(descending))
    x, back = _sort_keys(x)
    for s in range(1, q + 1):
        x = _merge(x, s, m, descending)
    best = max if descending else min
    while x.shape[-1] > k:
        # Runs of k in opposite directions, pairwise: the better of each two
        # keys k apart holds the k best of both runs, bitonic.
        pairs = _Pairs(x, len(x.shape) - 1, q)
        x = reshape(best(pairs.x, pairs.axis), list(x.shape[:-1]) + [x.shape[-1] // 2])
        x = _merge(x, q, _log2(x.shape[-1], "topk"), descending)
    return back(x)


@builtin
def flip(x, dim=None):
    """`x` reversed along `dim` (the last by default), a power of two long."""
    x = _to_tensor(x)
    dim = _dimension(x, dim, "flip", False)
    for j in range(_log2(x.shape[dim], "flip")):
        pairs = _Pairs(x, dim, j)
        x = pairs.result(pairs.partner("flip"))
    return x
