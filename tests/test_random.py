"""wt.random: Philox known answers, the stream layout, cross-backend identity, statistics and
errors."""

import math
import os
import random as pyrandom
import subprocess
import sys
import threading

import pytest

import webtensor as wt
from webtensor import random as wtr
from webtensor.backends import _philox
from webtensor.device import Device

M32 = 0xFFFFFFFF


# -- Philox-4x32-10 known answers (Random123's kat_vectors) ------------------------------------

KATS = [
    # counter words (c0..c3), key words (k0, k1), expected output words
    ((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    ((M32, M32, M32, M32), (M32, M32), (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
     (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)),
]


def _counter(words):
    return words[0] | words[1] << 32 | words[2] << 64 | words[3] << 96


@pytest.mark.parametrize("ctr, key, expected", KATS)
def test_philox_known_answers(ctr, key, expected):
    assert _philox.philox_block(key, ctr) == expected
    assert _philox.philox_words_python(key, _counter(ctr), 4) == list(expected)


@pytest.mark.parametrize("ctr, key, expected", KATS)
def test_philox_known_answers_numpy(ctr, key, expected):
    pytest.importorskip("numpy")
    assert _philox.philox_words_numpy(key, _counter(ctr), 4).tolist() == list(expected)


def test_python_and_numpy_philox_agree_everywhere():
    np = pytest.importorskip("numpy")
    rng = pyrandom.Random(5)
    counters = [0, 1, 2**32 - 1, 2**64 - 3, 2**96 - 1, 2**128 - 2, 2**128 - 1]
    for _ in range(150):
        key = (rng.getrandbits(32), rng.getrandbits(32))
        counter = rng.choice(counters + [rng.getrandbits(128)])
        n = rng.randrange(0, 41)
        words = _philox.philox_words_numpy(key, counter, n)
        assert words.dtype == np.uint32
        assert words.tolist() == _philox.philox_words_python(key, counter, n), (key, counter, n)


def test_stream_layout_word_i_is_lane_i_mod_4_of_block_counter_plus_i_div_4():
    key = (0x12345678, 0x9ABCDEF0)
    counter = 2**64 - 2  # crosses the carry from the low into the high 64 bits
    words = _philox.philox_words_python(key, counter, 23)
    for i, w in enumerate(words):
        c = (counter + i // 4) % 2**128
        block = _philox.philox_block(key, (c & M32, c >> 32 & M32, c >> 64 & M32, c >> 96))
        assert w == block[i % 4]
    # counter 2**128 - 1 wraps to 0
    wrapped = _philox.philox_words_python(key, 2**128 - 1, 8)
    assert wrapped[4:] == _philox.philox_words_python(key, 0, 4)


def test_philox_rejects_bad_keys():
    with pytest.raises(ValueError, match=r"key words must be ints in \[0, 2\*\*32\)"):
        _philox.philox_words_python((2**32, 0), 0, 4)
    with pytest.raises(TypeError, match="key must be a pair"):
        _philox.split(7)


# -- keys ---------------------------------------------------------------------------------------

def test_key_from_seed_follows_jax_layout():
    assert wtr.key(0).words == (0, 0)
    assert wtr.key(42).words == (0, 42)
    assert wtr.key(2**32 + 5).words == (1, 5)
    assert wtr.key(-1).words == (M32, M32)
    assert wtr.key(-1) == wtr.key(2**64 - 1)
    assert wtr.key(-(2**63)).words == (0x80000000, 0)
    assert wtr.PRNGKey(3) == wtr.key(3)


def test_huge_seeds_are_hashed_distinctly():
    seeds = [2**64, 2**64 + 1, 2**65, -(2**64), -(2**63) - 1, 10**40, -(10**40), 2**128]
    keys = [wtr.key(s) for s in seeds]
    assert len(set(keys)) == len(keys)
    assert all(k != wtr.key(s & (2**64 - 1)) for k, s in zip(keys, seeds))
    assert wtr.key(10**40) == wtr.key(10**40)  # deterministic


def test_key_accepts_index_like_seeds():
    np = pytest.importorskip("numpy")
    assert wtr.key(np.int64(7)) == wtr.key(7)
    assert wtr.key(wt.asarray(7)) == wtr.key(7)


def test_split_and_fold_in_are_pure_deterministic_and_distinct():
    k = wtr.key(0)
    a, b = wtr.split(k)
    assert (a, b) == wtr.split(k)
    assert wtr.split(k, 3)[:2] == (a, b)  # prefix of the split domain
    assert len({k, a, b}) == 3
    assert wtr.split(k, 0) == ()
    folds = [wtr.fold_in(k, d) for d in range(100)]
    assert len(set(folds)) == 100
    assert wtr.fold_in(k, -1) == wtr.fold_in(k, 2**64 - 1)
    assert wtr.fold_in(k, 0) not in (a, b)


def test_split_keys_do_not_reuse_the_parents_words():
    # split uses the other half of the counter space, so a parent's first draws are not its
    # children's keys (JAX's threefry has that overlap).
    k = wtr.key(11)
    words = set(wtr.bits(k, (4096,)).tolist())
    for child in wtr.split(k, 64):
        assert not set(child.words) & words


def test_key_forms_are_interchangeable():
    k = wtr.key(9)
    raw = wtr.key_data(k)
    assert raw.dtype == wt.uint32 and raw.shape == (2,)
    assert wtr.wrap_key_data(raw) == k
    ref = wtr.uniform(k, (4,)).tolist()
    assert wtr.uniform(raw, (4,)).tolist() == ref
    assert wtr.uniform(tuple(k), (4,)).tolist() == ref
    assert wtr.uniform(list(k), (4,)).tolist() == ref
    assert hash(k) == hash(wtr.Key(*k.words))
    assert repr(k) == f"wt.random.Key({k[0]}, {k[1]})"


def test_key_is_picklable():
    import pickle

    k = wtr.key(123)
    assert pickle.loads(pickle.dumps(k)) == k


# -- how words become values (the exact, device-independent arithmetic) -----------------------

def test_bits_are_the_philox_stream():
    k = wtr.key(2024)
    words = _philox.philox_words_python(k.words, 0, 24)
    assert wtr.bits(k, (4, 3)).tolist() == [words[i:i + 3] for i in range(0, 12, 3)]
    assert wtr.bits(k, (5,), wt.uint8).tolist() == [w >> 24 for w in words[:5]]
    assert wtr.bits(k, (5,), wt.uint16).tolist() == [w >> 16 for w in words[:5]]
    assert wtr.bits(k, (6,), wt.uint64).tolist() == [
        words[2 * i] << 32 | words[2 * i + 1] for i in range(6)]
    assert wtr.bits(k).shape == () and wtr.bits(k).item() == words[0]


def test_uniform_values_are_exact_functions_of_the_words():
    k = wtr.key(77)
    words = _philox.philox_words_python(k.words, 0, 64)
    assert wtr.uniform(k, (32,), wt.float32).tolist() == [(w >> 8) * 2.0**-24 for w in words[:32]]
    f64 = [((words[2 * i] >> 5) * 2.0**26 + (words[2 * i + 1] >> 6)) * 2.0**-53
           for i in range(32)]
    assert wtr.uniform(k, (32,), wt.float64).tolist() == f64
    assert wtr.uniform(k, (32,), wt.float16).tolist() == [(w >> 21) * 2.0**-11 for w in words[:32]]
    assert wtr.uniform(k, (32,), wt.bfloat16).tolist() == [(w >> 24) * 2.0**-8 for w in words[:32]]


def test_uniform_default_dtype_follows_default_float():
    k = wtr.key(0)
    assert wtr.uniform(k, (2,)).dtype == wt.float32
    assert not wtr.uniform(k, (2,)).weak
    wt.set_default_float_dtype(wt.float64)
    assert wtr.uniform(k, (2,)).dtype == wt.float64
    assert wtr.normal(k, (2,)).dtype == wt.float64


def test_draws_are_prefix_consistent():
    k = wtr.key(3)
    for fn in (lambda s: wtr.uniform(k, s), lambda s: wtr.uniform(k, s, wt.float64),
               lambda s: wtr.randint(k, s, -9, 9), lambda s: wtr.normal(k, s),
               lambda s: wtr.bits(k, s, wt.uint64), lambda s: wtr.bernoulli(k, 0.4, s)):
        assert fn((10,)).tolist()[:6] == fn((6,)).tolist()
        assert fn((2, 5)).tolist() == [fn((10,)).tolist()[:5], fn((10,)).tolist()[5:]]


def test_uniform_bounds_are_half_open():
    k = wtr.key(1)
    for dt in (wt.float16, wt.bfloat16, wt.float32, wt.float64):
        u = wtr.uniform(k, (20000,), dt).tolist()
        assert min(u) >= 0.0 and max(u) < 1.0
        v = wtr.uniform(k, (20000,), dt, minval=-3, maxval=5.5).tolist()
        assert min(v) >= -3 and max(v) < 5.5, dt
    # Rounding of minval + u * span can hit maxval in low precision: clamped below it.
    x = wtr.uniform(k, (5000,), wt.bfloat16, minval=1.0, maxval=1.0078125).tolist()
    assert set(x) == {1.0}


def test_uniform_with_tensor_bounds_broadcasts():
    k = wtr.key(2)
    lo = wt.asarray([0.0, 10.0, -5.0], dtype=wt.float32)
    hi = wt.asarray([1.0, 20.0, -4.0], dtype=wt.float32)
    x = wtr.uniform(k, (1000, 3), minval=lo, maxval=hi)
    cols = list(zip(*x.tolist()))
    for col, a, b in zip(cols, (0, 10, -5), (1, 20, -4)):
        assert a <= min(col) and max(col) < b
    with pytest.raises(ValueError, match=r"uniform: parameters of shapes \(3,\), \(3,\) do not "
                                         r"broadcast to the requested shape \(2,\)"):
        wtr.uniform(k, (2,), minval=lo, maxval=hi)
    with pytest.raises(ValueError, match=r"normal: parameters of shapes \(3,\) do not broadcast "
                                         r"to the requested shape \(3, 1\)"):
        wtr.normal(k, (3, 1), mean=lo)


def test_normal_matches_box_muller_on_the_host():
    k = wtr.key(8)
    n = 9
    words = _philox.philox_words_python(k.words, 0, 4 * ((n + 1) // 2))
    expected = []
    for j in range((n + 1) // 2):
        w = words[4 * j:4 * j + 4]
        u1 = ((w[0] >> 5) * 2.0**26 + (w[1] >> 6)) * 2.0**-53
        u2 = ((w[2] >> 5) * 2.0**26 + (w[3] >> 6)) * 2.0**-53
        r = math.sqrt(math.log(1.0 - u1) * -2.0)
        expected += [r * math.cos(u2 * 2 * math.pi), r * math.sin(u2 * 2 * math.pi)]
    got = wtr.normal(k, (n,), wt.float64).tolist()
    assert got == pytest.approx(expected[:n], rel=1e-14, abs=1e-15)
    # float32: 24-bit uniforms, two words per pair, computed in float64 and rounded once.
    words = _philox.philox_words_python(k.words, 0, 2 * ((n + 1) // 2))
    expected = []
    for j in range((n + 1) // 2):
        u1, u2 = (words[2 * j] >> 8) * 2.0**-24, (words[2 * j + 1] >> 8) * 2.0**-24
        r = math.sqrt(math.log(1.0 - u1) * -2.0)
        expected += [r * math.cos(u2 * 2 * math.pi), r * math.sin(u2 * 2 * math.pi)]
    f32 = wt.asarray(expected[:n], dtype=wt.float32).tolist()
    assert wtr.normal(k, (n,), wt.float32).tolist() == pytest.approx(f32, rel=2e-7)


def test_normal_mean_and_stddev():
    k = wtr.key(4)
    x = wtr.normal(k, (4,), wt.float64, mean=10.0, stddev=0.5).tolist()
    z = wtr.normal(k, (4,), wt.float64).tolist()
    assert x == pytest.approx([10 + 0.5 * v for v in z], rel=1e-15)
    mean = wt.asarray([0.0, 100.0], dtype=wt.float32)
    y = wtr.normal(k, (3, 2), mean=mean).tolist()
    assert all(abs(r[0]) < 10 and abs(r[1] - 100) < 10 for r in y)


def test_randint_values_are_64_bit_remainders():
    k = wtr.key(12)
    words = _philox.philox_words_python(k.words, 0, 40)
    xs = [words[2 * i] << 32 | words[2 * i + 1] for i in range(20)]
    assert wtr.randint(k, (20,), -7, 1000).tolist() == [-7 + x % 1007 for x in xs]
    assert wtr.randint(k, (20,), -(2**63), 2**63, wt.int64).tolist() == [x - 2**63 for x in xs]
    assert wtr.randint(k, (20,), 0, 2**64, wt.uint64).tolist() == xs
    assert wtr.randint(k, (20,), 5, 6, wt.int8).tolist() == [5] * 20


def test_randint_with_tensor_bounds():
    k = wtr.key(13)
    lo = wt.asarray([0, 100, -50, 7], dtype=wt.int32)
    hi = wt.asarray([2, 103, -49, 7], dtype=wt.int32)  # last: empty range -> minval
    rows = wtr.randint(k, (500, 4), lo, hi).tolist()
    cols = [set(c) for c in zip(*rows)]
    assert cols == [{0, 1}, {100, 101, 102}, {-50}, {7}]
    assert wtr.randint(k, (3,), 0, wt.asarray(5), wt.int64).dtype == wt.int64


def test_bernoulli_is_an_exact_threshold_on_the_words():
    k = wtr.key(14)
    words = _philox.philox_words_python(k.words, 0, 50)
    for p in (0.0, 0.3, 0.5, 2**-32, 1 - 2**-40, 1.0):
        t = math.ceil(p * 2**32)
        assert wtr.bernoulli(k, p, (50,)).tolist() == [w < t for w in words], p
    p = wt.asarray([0.0, 0.25, 0.5, 1.0] * 5, dtype=wt.float32)
    expected = [w < math.ceil(q * 2**32) for w, q in zip(words, p.tolist())]
    assert wtr.bernoulli(k, p).tolist() == expected
    assert wtr.bernoulli(k).shape == () and wtr.bernoulli(k).dtype == wt.bool


def test_permutation_and_shuffle():
    k = wtr.key(15)
    perm = wtr.permutation(k, 1000)
    assert perm.dtype == wt.default_int_dtype()
    assert sorted(perm.tolist()) == list(range(1000))
    assert perm.tolist() != list(range(1000))
    assert perm.tolist() != wtr.permutation(wtr.key(16), 1000).tolist()
    x = wt.asarray([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]])
    rows = wtr.permutation(k, x).tolist()
    assert sorted(rows) == x.tolist()
    cols = wtr.permutation(k, x, axis=1).tolist()
    assert [sorted(r) for r in cols] == x.tolist()
    order = [r.index(v) for r, v in zip(cols, (1, 5, 9))]
    assert len(set(order)) == 1  # the same column order in every row
    indep = wtr.permutation(k, x, axis=-1, independent=True).tolist()
    assert [sorted(r) for r in indep] == x.tolist()
    assert wtr.shuffle(k, x, axis=1).tolist() == cols
    assert wtr.permutation(k, 0).tolist() == []
    assert wtr.permutation(k, wt.asarray([5.5])).tolist() == [5.5]


def test_permutation_of_three_is_roughly_uniform():
    counts = {}
    root = wtr.key(99)
    for i in range(600):
        p = tuple(wtr.permutation(wtr.fold_in(root, i), 3).tolist())
        counts[p] = counts.get(p, 0) + 1
    assert len(counts) == 6
    assert all(60 <= c <= 140 for c in counts.values()), counts


def test_choice():
    k = wtr.key(17)
    x = wtr.choice(k, 10, (2000,))
    assert set(x.tolist()) == set(range(10))
    y = wtr.choice(k, 10, (10,), replace=False).tolist()
    assert sorted(y) == list(range(10))
    z = wtr.choice(k, 5, (3000,), p=[0.1, 0.0, 0.4, 0.5, 0.0]).tolist()
    assert set(z) == {0, 2, 3}
    assert abs(z.count(3) / 3000 - 0.5) < 0.05
    w = wtr.choice(k, 5, (3,), replace=False, p=[0.2, 0.0, 0.4, 0.4, 0.0]).tolist()
    assert sorted(w) == [0, 2, 3]
    a = wt.asarray([[1, 2, 3], [4, 5, 6]])
    c = wtr.choice(k, a, (2, 2), axis=1)
    assert c.shape == (2, 2, 2)
    assert all(v in (1, 2, 3) for v in sum(c.tolist()[0], []))
    assert wtr.choice(k, a, (4,)).shape == (4, 3)


# -- statistics (fixed seeds, generous bounds) ------------------------------------------------

def _moments(xs):
    n = len(xs)
    mean = math.fsum(xs) / n
    var = math.fsum((x - mean) ** 2 for x in xs) / n
    sd = math.sqrt(var)
    skew = math.fsum(((x - mean) / sd) ** 3 for x in xs) / n
    kurt = math.fsum(((x - mean) / sd) ** 4 for x in xs) / n
    return mean, var, skew, kurt


@pytest.mark.parametrize("dtype", [wt.float32, wt.float64, wt.float16, wt.bfloat16])
def test_uniform_moments_and_histogram(dtype):
    n = 100_000
    xs = wtr.uniform(wtr.key(21), (n,), dtype).tolist()
    mean, var, _, _ = _moments(xs)
    assert abs(mean - 0.5) < 0.006
    assert abs(var - 1 / 12) < 0.003
    bins = [0] * 10
    for x in xs:
        bins[int(x * 10)] += 1
    assert all(abs(b - n / 10) < 0.05 * n / 10 for b in bins), bins


@pytest.mark.parametrize("dtype", [wt.float32, wt.float64])
def test_normal_moments(dtype):
    n = 100_000
    xs = wtr.normal(wtr.key(22), (n,), dtype).tolist()
    mean, var, skew, kurt = _moments(xs)
    assert abs(mean) < 0.015
    assert abs(var - 1) < 0.025
    assert abs(skew) < 0.05
    assert abs(kurt - 3) < 0.1
    within = sum(1 for x in xs if abs(x) < 1) / n
    assert abs(within - 0.6827) < 0.008
    assert max(abs(x) for x in xs) > 3.5


def test_randint_covers_the_range_evenly():
    n = 100_000
    xs = wtr.randint(wtr.key(23), (n,), -3, 7).tolist()
    counts = [xs.count(v) for v in range(-3, 7)]
    assert sum(counts) == n
    assert all(abs(c - n / 10) < 600 for c in counts), counts
    b = wtr.randint(wtr.key(24), (20_000,), -128, 128, wt.int8).tolist()
    assert set(b) == set(range(-128, 128))
    u = wtr.randint(wtr.key(25), (2000,), 0, 2**64, wt.uint64).tolist()
    assert max(u) > 2**63 and min(u) < 2**62


def test_bernoulli_frequency():
    xs = wtr.bernoulli(wtr.key(26), 0.3, (100_000,)).tolist()
    assert abs(sum(xs) / len(xs) - 0.3) < 0.006


def test_split_streams_are_uncorrelated():
    a, b = wtr.split(wtr.key(27))
    n = 50_000
    x = wtr.uniform(a, (n,), wt.float64).tolist()
    y = wtr.uniform(b, (n,), wt.float64).tolist()
    z = wtr.uniform(wtr.fold_in(a, 1), (n,), wt.float64).tolist()
    for u, v in ((x, y), (x, z), (y, z)):
        mu, mv = sum(u) / n, sum(v) / n
        cov = math.fsum((p - mu) * (q - mv) for p, q in zip(u, v)) / n
        assert abs(cov / (1 / 12)) < 0.03


# -- the stateful convenience -------------------------------------------------------------------

def test_seed_makes_the_global_stream_reproducible():
    wtr.seed(0)
    a = wtr.rand(3).tolist()
    b = wtr.randn(2, 2).tolist()
    wtr.seed(0)
    assert wtr.rand(3).tolist() == a
    assert wtr.randn((2, 2)).tolist() == b
    assert a == wtr.uniform(wtr.fold_in(wtr.key(0), 0), (3,)).tolist()
    assert wtr.rand(3).tolist() != a  # the stream advances
    wtr.seed(5)
    r = wtr.random((2, 3))
    assert r.shape == (2, 3) and r.dtype == wt.float32
    i = wtr.integers(10, shape=(50,))
    assert set(i.tolist()) <= set(range(10)) and i.dtype == wt.default_int_dtype()
    assert set(wtr.integers(-2, 2, (200,)).tolist()) == {-2, -1, 0, 1}
    assert wtr.rand().shape == ()


@pytest.mark.skipif(sys.platform == "emscripten", reason="Pyodide has no threads")
def test_next_key_is_thread_safe():
    wtr.seed(1)
    keys = []
    lock = threading.Lock()

    def work():
        mine = [wtr.next_key() for _ in range(200)]
        with lock:
            keys.extend(mine)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(keys)) == 1600
    wtr.seed(1)
    assert set(keys) == {wtr.next_key() for _ in range(1600)}


# -- the same key gives the same values on every backend -----------------------------------------

def _draws(dev):
    k = wtr.key(31337)
    return {
        "bits": wtr.bits(k, (7, 5), device=dev),
        "bits64": wtr.bits(k, (9,), wt.uint64, device=dev),
        "bits8": wtr.bits(k, (9,), wt.uint8, device=dev),
        "u32": wtr.uniform(k, (101,), device=dev),
        "u64": wtr.uniform(k, (33,), wt.float64, device=dev),
        "u16": wtr.uniform(k, (33,), wt.float16, minval=-2, maxval=2, device=dev),
        "ubf16": wtr.uniform(k, (33,), wt.bfloat16, device=dev),
        "n32": wtr.normal(k, (201,), device=dev),
        "n16": wtr.normal(k, (31,), wt.float16, device=dev),
        "ri": wtr.randint(k, (50,), -1000, 10**6, device=dev),
        "ri64": wtr.randint(k, (50,), -(2**62), 2**62, wt.int64, device=dev),
        "bern": wtr.bernoulli(k, 0.7, (40,), device=dev),
        "perm": wtr.permutation(k, 64, device=dev),
        "choice": wtr.choice(k, 10, (20,), device=dev),
    }


def _other_devices():
    devices = []
    try:
        from webtensor.backends.cpu_numpy import NumpyBackend
    except ImportError:
        pass
    else:
        class HostWords(NumpyBackend):
            """NumPy backend without the primitive: words come from the host fallback."""

            def random_bits(self, out, key, counter):
                raise NotImplementedError

        devices.append(pytest.param(Device("cpu", HostWords), id="numpy-host-words"))
    try:
        from webtensor.backends.cpu_python import PythonBackend
    except ImportError:
        devices.append(pytest.param(None, id="python",
                                    marks=pytest.mark.skip("no pure-Python backend yet")))
    else:
        devices.append(pytest.param(Device("cpu", PythonBackend), id="python"))
    from _oracle import DEVICES

    if "webgpu" in DEVICES:
        devices.append(pytest.param(DEVICES["webgpu"], id="webgpu"))
    return devices


@pytest.mark.parametrize("other", _other_devices())
def test_same_key_same_bytes_on_another_backend(other):
    ours = _draws(wt.default_device())
    theirs = _draws(other)
    for name in ours:
        assert theirs[name].dtype == ours[name].dtype
        assert theirs[name].tobytes() == ours[name].tobytes(), name
    n64 = wtr.normal(wtr.key(5), (20,), wt.float64, device=other).tolist()
    assert n64 == pytest.approx(wtr.normal(wtr.key(5), (20,), wt.float64).tolist(), rel=1e-14)


@pytest.mark.skipif(sys.platform == "emscripten", reason="Pyodide cannot start processes")
def test_same_values_in_a_pure_python_process():
    try:
        import webtensor.backends.cpu_python  # noqa: F401
    except ImportError:
        pytest.skip("no pure-Python backend yet")
    code = ("import hashlib, webtensor as wt; from webtensor import random as r; "
            "k = r.key(-5); print(wt.default_device().backend.name, hashlib.sha256("
            "r.uniform(k, (64,)).tobytes() + r.normal(k, (64,)).tobytes() + "
            "r.randint(k, (64,), 0, 99).tobytes() + r.permutation(k, 32).tobytes()"
            ").hexdigest())")
    env = dict(os.environ, WEBTENSOR_CPU="python")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.split()
    k = wtr.key(-5)
    import hashlib

    here = hashlib.sha256(wtr.uniform(k, (64,)).tobytes() + wtr.normal(k, (64,)).tobytes()
                          + wtr.randint(k, (64,), 0, 99).tobytes()
                          + wtr.permutation(k, 32).tobytes()).hexdigest()
    assert out[0] != wt.default_device().backend.name or out[0] == "python"
    assert out[1] == here


# -- errors that teach ------------------------------------------------------------------------------

def test_error_messages():
    k = wtr.key(0)
    with pytest.raises(TypeError, match=r"wt.random.key: seed must be an int, got 1.5 \(float\)"):
        wtr.key(1.5)
    with pytest.raises(TypeError, match="seed must be an int, got True"):
        wtr.key(True)
    with pytest.raises(TypeError, match=r"got the int 42; make a key with wt.random.key\(42\)"):
        wtr.uniform(42, (2,))
    with pytest.raises(TypeError, match="expected a key from wt.random.key"):
        wtr.normal("seed", (2,))
    with pytest.raises(TypeError, match="a key tensor must be integer with shape \\(2,\\)"):
        wtr.uniform(wt.asarray([1, 2, 3]), (2,))
    with pytest.raises(ValueError, match=r"Key: key words must be ints in \[0, 2\*\*32\)"):
        wtr.Key(2**32, 0)
    with pytest.raises(TypeError, match="uniform: dtype must be a real floating dtype"):
        wtr.uniform(k, (2,), wt.int32)
    with pytest.raises(TypeError, match="normal: dtype must be a real floating dtype .* "
                                        "got complex64"):
        wtr.normal(k, (2,), wt.complex64)
    with pytest.raises(ValueError, match="uniform: minval must be < maxval, got minval=1, "
                                         "maxval=0"):
        wtr.uniform(k, (2,), minval=1, maxval=0)
    with pytest.raises(ValueError, match="uniform: maxval must be finite"):
        wtr.uniform(k, (2,), maxval=math.inf)
    with pytest.raises(TypeError, match="uniform: minval must be a real number or a tensor"):
        wtr.uniform(k, (2,), minval="0")
    with pytest.raises(ValueError, match=r"randint: need 0 <= minval < maxval <= 256 for uint8, "
                                         r"got minval=0, maxval=300"):
        wtr.randint(k, (2,), 0, 300, wt.uint8)
    with pytest.raises(ValueError, match="randint: need .* got minval=5, maxval=5"):
        wtr.randint(k, (2,), 5, 5)
    with pytest.raises(TypeError, match="randint: dtype must be an integer dtype, got float32"):
        wtr.randint(k, (2,), 0, 5, wt.float32)
    with pytest.raises(TypeError, match="randint: minval must be an int, got 0.5"):
        wtr.randint(k, (2,), 0.5, 5)
    with pytest.raises(TypeError, match="randint: maxval must be an integer tensor, got float32"):
        wtr.randint(k, (2,), 0, wt.asarray([1.0, 2.0], dtype=wt.float32))
    with pytest.raises(ValueError, match=r"bernoulli: p must be in \[0, 1\], got 1.5"):
        wtr.bernoulli(k, 1.5)
    with pytest.raises(TypeError, match="bernoulli: p must be a probability"):
        wtr.bernoulli(k, "half")
    with pytest.raises(TypeError, match="bits: dtype must be an unsigned integer dtype"):
        wtr.bits(k, (2,), wt.int32)
    with pytest.raises(ValueError, match="split: num must be >= 0, got -1"):
        wtr.split(k, -1)
    with pytest.raises(ValueError, match=r"fold_in: data 18446744073709551616 is outside"):
        wtr.fold_in(k, 2**64)
    with pytest.raises(TypeError, match="fold_in: data must be an int, got 1.5"):
        wtr.fold_in(k, 1.5)
    with pytest.raises(ValueError, match="permutation: x must have at least one dimension"):
        wtr.permutation(k, wt.asarray(3))
    with pytest.raises(ValueError, match="permutation: n must be >= 0, got -2"):
        wtr.permutation(k, -2)
    with pytest.raises(TypeError, match="shuffle: x must be a tensor, got int"):
        wtr.shuffle(k, 5)
    with pytest.raises(ValueError, match="choice: cannot take 6 samples without replacement "
                                         "from 5 entries"):
        wtr.choice(k, 5, (6,), replace=False)
    with pytest.raises(ValueError, match="choice: p must be 1-D with 5 entries"):
        wtr.choice(k, 5, (2,), p=[0.5, 0.5])
    with pytest.raises(ValueError, match="choice: p must hold finite probabilities"):
        wtr.choice(k, 2, (2,), p=[0.5, -0.5])
    with pytest.raises(ValueError, match="random.uniform: negative dimension -1"):
        wtr.uniform(k, (2, -1))
    with pytest.raises(ValueError, match="random.permutation: axis 2 is out of bounds"):
        wtr.permutation(k, wt.asarray([[1, 2]]), axis=2)
