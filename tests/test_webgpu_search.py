"""Native WebGPU searching (``backends/webgpu/search.py``): ``searchsorted`` and ``nonzero``
(with boolean-mask indexing, built on it) against the CPU device.

Skipped as a whole (reason printed) when wgpu or a WebGPU adapter is missing.  No NumPy: runs
in the browser too.  What must hold, for every dtype with a native comparison:

* the positions equal the CPU device's (its generic binary search) for both sides, haystacks
  of every length up to 70 and some longer, with runs of ties, the dtype's special values
  (NaN last, +-0, subnormals, integer extremes), needles equal to, between and beyond them,
  and value counts that do not fill the kernel's four values per invocation;
* any view works: strided, reversed and offset haystacks, transposed, broadcast and 0-d
  needles, a ``sorter``;
* the native path ran (``search_sorted`` answered, nothing was routed); float64 still routes
  to the CPU and stays correct; complex is refused as before.
* ``nonzero``, ``argwhere``, ``x[mask]`` and ``x[mask] = v`` give the CPU's positions for
  masks of every length around the sixteen bools an invocation counts, of every density, as
  views (offset, strided, transposed) and with stale true bytes past the mask's end in its
  buffer; the compaction ran natively; inside ``wt.jit`` a mask still needs its values.
"""

from __future__ import annotations

import math
import random
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import webtensor as wt
from _gpu import webgpu_or_skip
from _oracle import dtype_values, special_values

GPU, CPU, B = webgpu_or_skip()

NATIVE = (wt.float32, wt.float16, wt.bfloat16, wt.int8, wt.int16, wt.int32, wt.int64,
          wt.uint8, wt.uint16, wt.uint32, wt.uint64, wt.bool)


def _sorted(values, dt):
    return wt.sort(wt.asarray(values, dtype=dt, device=CPU))


def _needles(hay: list, dt) -> list:
    """Every haystack value, and for numbers the values just around them."""
    out = list(hay) + special_values(dt)
    if dt.kind in "iu":
        info = wt.iinfo(dt)
        out += [v + d for v in hay for d in (-1, 1) if info.min <= v + d <= info.max]
    return out


def _check(hay_cpu, needles_cpu, side: str, **kw):
    want = wt.searchsorted(hay_cpu, needles_cpu, side=side).tolist()
    hay, needles = (wt.asarray(t, device=GPU) for t in (hay_cpu, needles_cpu))
    got = wt.searchsorted(hay, needles, side=side, **kw)
    assert got.dtype == wt.int64 and got.shape == needles.shape
    assert got.tolist() == want, (side, hay_cpu.tolist(), needles_cpu.tolist())


@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("dt", NATIVE, ids=str)
def test_matches_cpu_with_special_values_and_ties(dt, side):
    rng = random.Random(7)
    specials = special_values(dt)
    for n in [1, 2, 3, 5, 8, 13, 31, 64, 65, 300]:
        hay = _sorted([rng.choice(specials) for _ in range(n)], dt)
        needles = _needles(hay.tolist(), dt)
        needles = needles[: 1 + len(needles) // 4 * 4]  # one past a multiple of four
        _check(hay, wt.asarray(needles, dtype=dt, device=CPU), side)


@pytest.mark.parametrize("side", ["left", "right"])
def test_every_haystack_length(side):
    """Each halving schedule (lengths 1-70, around powers of two, 1000), NaN runs included."""
    rng = random.Random(3)
    needles = wt.asarray([-math.inf, -3, -2.5, 0, 0.5, 1, 7, 20, math.inf, math.nan],
                         dtype=wt.float32, device=CPU)
    for n in [*range(1, 71), 127, 128, 129, 255, 256, 257, 1000]:
        raw = [float(rng.randint(-3, 7)) for _ in range(n)]
        if n > 4:
            raw[0], raw[1] = -math.inf, math.nan
        if n > 8:
            raw[2] = math.nan
        _check(_sorted(raw, wt.float32), needles, side)


@settings(max_examples=40)
@given(data=st.data(), dt=st.sampled_from(NATIVE), side=st.sampled_from(["left", "right"]))
def test_property_matches_cpu(data, dt, side):
    n = data.draw(st.integers(1, 40))
    hay = _sorted(data.draw(st.lists(dtype_values(dt), min_size=n, max_size=n)), dt)
    m = data.draw(st.integers(1, 30))
    needles = data.draw(st.lists(st.sampled_from(hay.tolist()) | dtype_values(dt),
                                 min_size=m, max_size=m))
    _check(hay, wt.asarray(needles, dtype=dt, device=CPU), side)


def test_views_sorter_and_scalars():
    hay = _sorted([float(v) for v in range(-20, 40, 3)], wt.float32)
    g_hay = wt.asarray(hay, device=GPU)
    grid = wt.asarray([[float(v) / 2 for v in range(-50, 90, 7)]] * 3, device=GPU)
    cases = [
        (g_hay[::2], grid),  # strided haystack
        (g_hay[3:], grid.T),  # offset haystack, transposed needles
        (wt.flip(wt.flip(g_hay)), grid[1]),  # reversed twice
        (g_hay, wt.broadcast_to(grid[0, :1], (4, 5))),  # broadcast needle (stride 0)
        (g_hay, grid[0, 3]),  # 0-d needle
    ]
    for a, v in cases:
        for side in ("left", "right"):
            want = wt.searchsorted(wt.asarray(a, device=CPU), wt.asarray(v, device=CPU),
                                   side=side)
            got = wt.searchsorted(a, v, side=side)
            assert got.shape == v.shape and got.tolist() == want.tolist()
    shuffled = wt.asarray([5.0, -1.0, 3.0, math.nan, 0.0], device=GPU)
    needles = wt.asarray([-2.0, 0.0, 3.0, 4.0, math.nan], device=GPU)
    got = wt.searchsorted(shuffled, needles, sorter=wt.argsort(shuffled))
    assert got.tolist() == [0, 1, 2, 3, 4]


def test_native_path_runs_and_float64_routes(monkeypatch):
    answers = []
    real = type(B).search_sorted

    def spy(self, *args):
        answers.append(real(self, *args))
        return answers[-1]

    monkeypatch.setattr(type(B), "search_sorted", spy)
    routed = sum(B.routed.values())
    for dt in NATIVE:
        hay = wt.asarray([0, 1, 1], dtype=dt, device=GPU)
        assert wt.searchsorted(hay, wt.asarray([1, 0], dtype=dt, device=GPU)).tolist() in (
            [1, 0], [0, 0])
    assert len(answers) == len(NATIVE) and all(a is not None for a in answers)
    assert sum(B.routed.values()) == routed
    hay = wt.asarray([0.5, 1.0, 2.0], dtype=wt.float64, device=GPU)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # float64 work runs on the CPU
        got = wt.searchsorted(hay, wt.asarray([1.0, 3.0], dtype=wt.float64, device=GPU))
    assert got.tolist() == [1, 3] and answers[-1] is None
    assert sum(B.routed.values()) > routed
    with pytest.raises(TypeError, match="searchsorted"):
        wt.searchsorted(wt.asarray([1 + 1j], device=GPU), wt.asarray([1j], device=GPU))


def test_jit_records_the_generic_search():
    """Inside ``wt.jit`` the backend's fast path is not asked (it would compute on traced
    values): the program records the generic search's primitives and agrees with eager."""
    hay = wt.asarray([0.0, 1.0, 1.0, 2.0, math.nan], device=GPU)
    needles = wt.asarray([[1.0, math.nan], [-1.0, 1.5]], device=GPU)
    for side in ("left", "right"):
        program = wt.jit(lambda a, v, side=side: wt.searchsorted(a, v, side=side) + 1)
        want = (wt.searchsorted(hay, needles, side=side) + 1).tolist()
        assert program(hay, needles).tolist() == want


def _mask_bits(n: int, density: float, seed: int) -> list:
    rng = random.Random(seed)
    return [rng.random() < density for _ in range(n)]


@pytest.mark.parametrize("density", [0.0, 0.03, 0.5, 1.0])
def test_nonzero_matches_cpu(density):
    for n in [1, 2, 3, 4, 5, 15, 16, 17, 31, 33, 255, 4095, 4096, 4097, 70001]:
        bits = _mask_bits(n, density, n)
        want = wt.nonzero(wt.asarray(bits, device=CPU))[0].tolist()
        got = wt.nonzero(wt.asarray(bits, device=GPU))
        assert len(got) == 1 and got[0].dtype == wt.int64
        assert got[0].tolist() == want, (n, density)


def test_nonzero_views_stale_bytes_and_masking():
    # stale true bytes: the pool hands back buffers that held an all-true mask
    for n in (5, 17, 4097):
        full = wt.ones((n + 11,), dtype=wt.bool, device=GPU)
        assert wt.nonzero(full[:n])[0].tolist() == list(range(n))
        assert wt.nonzero(full[3:n])[0].tolist() == list(range(n - 3))
        del full
        bits = _mask_bits(n, 0.5, 1)
        assert wt.nonzero(wt.asarray(bits, device=GPU))[0].tolist() == \
            [i for i, b in enumerate(bits) if b]
    grid = [[(i * 7 + j * 3) % 5 == 0 for j in range(37)] for i in range(23)]
    g, c = wt.asarray(grid, device=GPU), wt.asarray(grid, device=CPU)
    for view in (lambda t: t, lambda t: t.T, lambda t: t[1::2, ::-3], lambda t: t[4:, 5:]):
        got = [t.tolist() for t in wt.nonzero(view(g))]
        assert got == [t.tolist() for t in wt.nonzero(view(c))]
        assert wt.argwhere(view(g)).tolist() == wt.argwhere(view(c)).tolist()
    x_cpu = wt.reshape(wt.arange(23 * 37, dtype=wt.float32, device=CPU), (23, 37))
    x = wt.asarray(x_cpu, device=GPU)
    assert x[g].tolist() == x_cpu[c].tolist()
    assert x[x > 400.0].tolist() == x_cpu[x_cpu > 400.0].tolist()
    assert x[g[:, 0]].tolist() == x_cpu[c[:, 0]].tolist()
    x[g] = -1.0
    x_cpu[c] = -1.0
    assert x.tolist() == x_cpu.tolist()


def test_nonzero_native_path_and_jit(monkeypatch):
    answers = []
    real = type(B).flat_nonzero

    def spy(self, mask):
        answers.append(real(self, mask))
        return answers[-1]

    monkeypatch.setattr(type(B), "flat_nonzero", spy)
    routed = sum(B.routed.values())
    x = wt.asarray([0.0, 2.0, -1.0, 3.0], device=GPU)
    assert x[x > 0.0].tolist() == [2.0, 3.0]
    assert wt.nonzero(x)[0].tolist() == [1, 2, 3]
    assert len(answers) == 2 and all(a is not None for a in answers)
    assert sum(B.routed.values()) == routed
    with pytest.raises(wt.ConcretizationError):
        wt.jit(lambda t: t[t > 0.0])(x)
    with pytest.raises(wt.ConcretizationError):
        wt.jit(lambda t: wt.nonzero(t)[0])(x)
