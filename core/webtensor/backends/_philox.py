"""Philox-4x32-10, the counter-based generator behind ``wt.random`` (and ``random_bits``).

Salmon, Moraes, Dror, Shaw, "Parallel random numbers: as easy as 1, 2, 3" (SC'11), the
Random123 library.  A block is a function of a 64-bit key ``(k0, k1)`` and a 128-bit counter;
it yields four uint32 words.  Nothing is sequential, so every device (NumPy, pure Python, a WGSL
shader) produces the same words for the same ``(key, counter)``.

The stream layout every backend follows (``Backend.random_bits(out, key, counter)``): output word
``i`` is word ``i % 4`` of the block whose counter is ``counter + i // 4`` (mod 2**128), split
into four little-endian uint32 words ``(c0, c1, c2, c3)`` with ``c0`` the lowest.

Two implementations give identical words: :func:`philox_words_python` (no NumPy, for Pyodide)
and :func:`philox_words_numpy` (vectorized; NumPy is imported lazily).  Key derivation
(:func:`split`, :func:`fold_in`, :func:`seed_key`) is pure Python on ``(k0, k1)`` pairs.
"""

from __future__ import annotations

__all__ = [
    "M0", "M1", "W0", "W1", "ROUNDS", "philox_block", "philox_words_python", "philox_words_numpy",
    "philox_words", "seed_key", "split", "fold_in", "SPLIT_DOMAIN", "FOLD_DOMAIN",
]

M0 = 0xD2511F53  # multiplier of counter word 0
M1 = 0xCD9E8D57  # multiplier of counter word 2
W0 = 0x9E3779B9  # key schedule (golden ratio)
W1 = 0xBB67AE85  # key schedule (sqrt(3) - 1)
ROUNDS = 10

_M32 = 0xFFFFFFFF
_M64 = (1 << 64) - 1
_M128 = (1 << 128) - 1

# NOTE: the 128-bit counter space is split in two halves of 64 bits: the low half counts blocks,
# the high half names a *domain*.  Domain 0 is the data stream (random_bits from counter 0 up);
# key derivation uses other domains, so split/fold_in never reuse words a distribution consumed
# (JAX's threefry split and random_bits share counters, so a key's first bits equal its split).
SPLIT_DOMAIN = 1 << 64
FOLD_DOMAIN = 2 << 64
_SEED_DOMAIN = 3 << 64


def _check_key(key, fn: str) -> tuple[int, int]:
    try:
        k0, k1 = key
    except (TypeError, ValueError):
        raise TypeError(f"{fn}: key must be a pair (k0, k1) of uint32 ints, got {key!r}") from None
    if not (isinstance(k0, int) and isinstance(k1, int) and 0 <= k0 <= _M32 and 0 <= k1 <= _M32):
        raise ValueError(f"{fn}: key words must be ints in [0, 2**32), got {key!r}")
    return int(k0), int(k1)


def philox_block(key: tuple[int, int], ctr: tuple[int, int, int, int]) -> tuple[int, ...]:
    """One Philox-4x32-10 block: four uint32 counter words under a two-word key."""
    k0, k1 = key
    c0, c1, c2, c3 = ctr
    for _ in range(ROUNDS):
        p0 = M0 * c0
        p1 = M1 * c2
        c0, c1, c2, c3 = ((p1 >> 32) ^ c1 ^ k0, p1 & _M32, (p0 >> 32) ^ c3 ^ k1, p0 & _M32)
        k0 = (k0 + W0) & _M32
        k1 = (k1 + W1) & _M32
    return c0, c1, c2, c3


def philox_words_python(key: tuple[int, int], counter: int, n: int) -> list[int]:
    """``n`` uint32 words (Python ints) of the stream of ``key`` starting at block ``counter``."""
    k0, k1 = _check_key(key, "philox_words_python")
    if n <= 0:
        return []
    out: list[int] = []
    append = out.extend
    blocks = (n + 3) // 4
    # The round loop is inlined: this is the pure-Python backend's hot path.
    keys = []
    a, b = k0, k1
    for _ in range(ROUNDS):
        keys.append((a, b))
        a = (a + W0) & _M32
        b = (b + W1) & _M32
    for j in range(blocks):
        c = (counter + j) & _M128
        c0 = c & _M32
        c1 = (c >> 32) & _M32
        c2 = (c >> 64) & _M32
        c3 = c >> 96
        for ka, kb in keys:
            p0 = M0 * c0
            p1 = M1 * c2
            c0, c1, c2, c3 = ((p1 >> 32) ^ c1 ^ ka, p1 & _M32, (p0 >> 32) ^ c3 ^ kb, p0 & _M32)
        append((c0, c1, c2, c3))
    if len(out) > n:
        del out[n:]
    return out


def philox_words_numpy(key: tuple[int, int], counter: int, n: int):
    """The same words as :func:`philox_words_python`, as a NumPy ``uint32`` array."""
    import numpy as np

    k0, k1 = _check_key(key, "philox_words_numpy")
    if n <= 0:
        return np.zeros(0, np.uint32)
    blocks = (n + 3) // 4
    counter &= _M128
    # Block counters counter + j, j < blocks, as four u32 lanes with explicit carries.
    j = np.arange(blocks, dtype=np.uint64)
    low = np.uint64(counter & _M64) + j  # wraps mod 2**64
    carry = (low < j).astype(np.uint64)  # j <= low unless the low 64 bits wrapped
    high = np.uint64((counter >> 64) & _M64) + carry
    m32 = np.uint64(_M32)
    s32 = np.uint64(32)
    c0 = low & m32
    c1 = low >> s32
    c2 = high & m32
    c3 = high >> s32
    mul0 = np.uint64(M0)
    mul1 = np.uint64(M1)
    ka, kb = k0, k1
    for _ in range(ROUNDS):
        p0 = c0 * mul0  # < 2**64: exact in uint64
        p1 = c2 * mul1
        c0 = (p1 >> s32) ^ c1 ^ np.uint64(ka)
        c1 = p1 & m32
        c2 = (p0 >> s32) ^ c3 ^ np.uint64(kb)
        c3 = p0 & m32
        ka = (ka + W0) & _M32
        kb = (kb + W1) & _M32
    out = np.empty((blocks, 4), np.uint32)
    out[:, 0] = c0
    out[:, 1] = c1
    out[:, 2] = c2
    out[:, 3] = c3
    return out.reshape(-1)[:n].copy() if 4 * blocks != n else out.reshape(-1)


def philox_words(key: tuple[int, int], counter: int, n: int) -> list[int]:
    """Words as a Python list, vectorized through NumPy when it imports (for key derivation)."""
    if n > 64:
        try:
            return philox_words_numpy(key, counter, n).tolist()
        except ImportError:
            pass
    return philox_words_python(key, counter, n)


# -- key derivation (pure functions on (k0, k1) pairs) ---------------------------------------------

def seed_key(seed: int) -> tuple[int, int]:
    """The key of an integer seed.

    A seed in ``[-2**63, 2**64)`` is taken as 64 bits (two's complement for negatives) and split
    like JAX's ``PRNGKey``: ``(high 32 bits, low 32 bits)``, so ``seed_key(0) == (0, 0)`` and
    ``seed_key(-1) == seed_key(2**64 - 1)``.  Larger seeds are hashed: each further 64-bit chunk
    is folded in with Philox, then the sign.
    """
    s = seed & _M64
    key = (s >> 32, s & _M32)
    rest = seed >> 64
    if rest in (0, -1) and -(1 << 63) <= seed < (1 << 64):
        return key
    while rest not in (0, -1):
        key = _derive(key, _SEED_DOMAIN + (rest & _M64))
        rest >>= 64
    return _derive(key, _SEED_DOMAIN + (rest & 1) + 2)  # +2: never a chunk already folded


def _derive(key, counter: int) -> tuple[int, int]:
    w = philox_block(key, (counter & _M32, (counter >> 32) & _M32, (counter >> 64) & _M32,
                           (counter >> 96) & _M32))
    return w[0], w[1]


def split(key: tuple[int, int], num: int = 2) -> list[tuple[int, int]]:
    """``num`` new keys: consecutive word pairs of the split domain of ``key``'s stream."""
    key = _check_key(key, "split")
    words = philox_words(key, SPLIT_DOMAIN, 2 * num)
    return [(words[2 * i], words[2 * i + 1]) for i in range(num)]


def fold_in(key: tuple[int, int], data: int) -> tuple[int, int]:
    """A new key from ``key`` and a 64-bit integer ``data`` (taken mod 2**64)."""
    key = _check_key(key, "fold_in")
    return _derive(key, FOLD_DOMAIN + (data & _M64))
