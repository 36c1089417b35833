"""Searching (argmax, argmin, nonzero, where/1, argwhere, count_nonzero, searchsorted), sorting
(sort, argsort) and set functions (unique_*, unique) against NumPy, on both CPU backends."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

import webtensor as wt
from _oracle import needs_numpy, storage_array
from _stats_helpers import (
    ALL,
    COMPLEX,
    FLOATS,
    INTS,
    REAL,
    SETTINGS,
    Case,
    axis_choices,
    bounded,
    cases,
    check_exact,
    make,
    np,
    vals,
)


def ints(t):
    return np.asarray(t.tolist(), dtype=np.int64).reshape(t.shape)


def _small(dt):
    """Few distinct values (so ties and duplicates are common), NaN and -0.0 included."""
    if dt.kind == "b":
        return st.booleans()
    if dt.kind in "iu":
        info = wt.iinfo(dt)
        return st.sampled_from(sorted({0, 1, 2, info.max, info.min, info.max - 1}))
    if dt.kind == "f":
        return st.sampled_from([0.0, -0.0, 1.0, -2.5, math.inf, -math.inf, math.nan])
    return st.builds(complex, st.sampled_from([0.0, 1.0, -2.5]), st.sampled_from([0.0, 1.0]))


# -- argmax, argmin ---------------------------------------------------------------------------------

@needs_numpy
@SETTINGS
@given(case=cases(REAL, values=_small), data=st.data())
def test_argmax_argmin(dev, case, data):
    ndim = len(case.shape)
    axis = data.draw(st.none() | st.integers(-ndim, ndim - 1)) if ndim else None
    keepdims = data.draw(st.booleans())
    x = make(case, dev)
    v = vals(case)
    for name in ("argmax", "argmin"):
        length = v.size if axis is None else v.shape[axis]
        if length == 0:
            with pytest.raises(ValueError, match=f"wt.{name}: attempt to get {name} of an empty"):
                getattr(wt, name)(x, axis=axis, keepdims=keepdims)
            continue
        got = getattr(wt, name)(x, axis=axis, keepdims=keepdims)
        assert got.dtype == wt.int64
        check_exact(got, getattr(np, name)(v, axis=axis, keepdims=keepdims), context=name)


def test_argmax_nan_and_names(dev):
    x = wt.asarray([[1.0, math.nan, math.nan], [3.0, 2.0, 3.0]], device=dev, names=("r", "c"))
    assert wt.argmax(x, axis="c").tolist() == [1, 0]
    assert wt.argmin(x, axis=1).tolist() == [1, 1]
    assert wt.argmax(x, axis="c").names == ("r",)
    assert wt.argmax(x, axis=0, keepdims=True).names == ("r", "c")
    assert wt.argmax(x, keepdims=True).shape == (1, 1)


# -- nonzero, argwhere, count_nonzero -----------------------------------------------------------------

@needs_numpy
@SETTINGS
@given(case=cases(ALL, values=_small), data=st.data())
def test_nonzero_family(dev, case, data):
    x = make(case, dev)
    v = vals(case)
    if case.shape:
        got = wt.nonzero(x)
        ref = np.nonzero(v)
        assert len(got) == len(ref)
        for g, r in zip(got, ref):
            assert g.dtype == wt.int64
            check_exact(g, r, context="nonzero")
        for g, r in zip(wt.where(x), ref):
            check_exact(g, r, context="where(x)")
    check_exact(wt.argwhere(x), np.argwhere(v), context="argwhere")
    axis = data.draw(axis_choices(len(case.shape)))
    keepdims = data.draw(st.booleans())
    got = wt.count_nonzero(x, axis=axis, keepdims=keepdims)
    assert got.dtype == wt.int64
    check_exact(got, np.count_nonzero(v, axis=axis, keepdims=keepdims), context="count")


# -- searchsorted -----------------------------------------------------------------------------------

@needs_numpy
@SETTINGS
@given(dt=st.sampled_from(REAL), data=st.data())
def test_searchsorted(dev, dt, data):
    n = data.draw(st.integers(0, 9))
    raw = data.draw(st.lists(_small(dt), min_size=n, max_size=n))
    haystack = np.sort(vals(Case(dt, storage_array(raw, dt, (n,)), None)))
    sorted_case = Case(dt, storage_array(haystack.tolist(), dt, (n,)), None)
    needles = data.draw(cases((dt,), values=_small))
    side = data.draw(st.sampled_from(["left", "right"]))
    got = wt.searchsorted(make(sorted_case, dev), make(needles, dev), side=side)
    check_exact(got, np.searchsorted(haystack, vals(needles), side=side), context=side)
    perm = data.draw(st.permutations(range(n)))
    shuffled = Case(dt, storage_array([haystack.tolist()[i] for i in perm], dt, (n,)), None)
    sorter = np.argsort(vals(shuffled), kind="stable")
    got = wt.searchsorted(make(shuffled, dev), make(needles, dev), side=side,
                          sorter=wt.asarray(sorter, device=dev))
    check_exact(got, np.searchsorted(vals(shuffled), vals(needles), side=side, sorter=sorter))


@needs_numpy
@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_every_length(dev, side):
    """Haystacks of every length up to 70 and some longer (each halving schedule), with runs
    of equal values, infinities and NaN, against needles equal to, between and beyond them."""
    import numpy as np

    rng = np.random.default_rng(3)
    needles = np.array([-np.inf, -3, -2.5, 0, 0.5, 1, 7, 20, np.inf, np.nan], np.float32)
    for n in [*range(71), 127, 128, 129, 1000]:
        hay = np.sort(rng.integers(-3, 8, n).astype(np.float32))
        if n > 4:
            hay[-1], hay[0] = np.nan, -np.inf
        if n > 8:  # NaN runs: a NaN needle goes before the first (left), after the last
            hay[-2] = np.nan
        hay = np.sort(hay)
        got = wt.searchsorted(wt.asarray(hay, device=dev), wt.asarray(needles, device=dev),
                              side=side)
        assert got.tolist() == np.searchsorted(hay, needles, side=side).tolist(), (n, hay)


def test_searchsorted_scalars(dev):
    x = wt.asarray([1.0, 2.0, 2.0, 3.0], device=dev)
    assert wt.searchsorted(x, 2.0).item() == 1
    assert wt.searchsorted(x, 2.0, side="right").shape == ()
    assert wt.searchsorted(x, wt.asarray([[0.0, 9.0]], device=dev)).tolist() == [[0, 4]]


# -- sort, argsort ----------------------------------------------------------------------------------

def _stable_order(v, axis, descending):
    """NumPy's stable argsort; descending: NaN first, ties in their original order."""
    if not descending:
        return np.argsort(v, axis=axis, kind="stable")
    n = v.shape[axis]
    return n - 1 - np.flip(np.argsort(np.flip(v, axis), axis=axis, kind="stable"), axis)


@needs_numpy
@SETTINGS
@given(case=cases(REAL, min_dims=1, values=_small), data=st.data())
def test_sort_argsort(dev, case, data):
    ndim = len(case.shape)
    axis = data.draw(st.integers(-ndim, ndim - 1))
    descending = data.draw(st.booleans())
    x = make(case, dev)
    v = vals(case)
    # stable descending, NaN first: the ascending order of the reversed data
    order = _stable_order(v, axis, descending)
    got = wt.argsort(x, axis=axis, descending=descending)
    assert got.dtype == wt.int64
    check_exact(got, order, context="argsort")
    check_exact(wt.sort(x, axis=axis, descending=descending), np.take_along_axis(v, order, axis),
                context="sort")


@needs_numpy
@pytest.mark.parametrize("dt", [wt.float32, wt.int32, wt.uint32, wt.int16, wt.bool], ids=str)
@pytest.mark.parametrize("shape, axis", [((2, 3000), 1), ((1030, 64), 1), ((2100, 2), 0)])
def test_sort_argsort_long_rows_and_many_rows(dev, dt, shape, axis):
    """Sizes that take the webgpu device's radix sort (long rows; many short ones): NumPy's
    stable order in both directions, with ties, NaNs and both zeros."""
    rng = np.random.default_rng(shape[0])
    if dt.kind == "f":
        pool = np.array([np.nan, -0.0, 0.0, np.inf, -np.inf, 1.5, -2.0, 3.0], np.float32)
        v = pool[rng.integers(0, pool.size, shape)]
    elif dt.kind == "b":
        v = rng.random(shape) < 0.5
    else:
        info = wt.iinfo(dt)
        pool = np.array([info.min, info.max, 0, 1, 7], dtype=dt.name)
        v = pool[rng.integers(0, pool.size, shape)]
    x = wt.asarray(v, device=dev)
    for descending in (False, True):
        order = _stable_order(v, axis, descending)
        check_exact(wt.argsort(x, axis=axis, descending=descending), order, context="argsort")
        check_exact(wt.sort(x, axis=axis, descending=descending),
                    np.take_along_axis(v, order, axis), context="sort")


@needs_numpy
@SETTINGS
@given(case=cases(COMPLEX + FLOATS, min_dims=1, finite=True))
def test_sort_complex_and_flattened(dev, case):
    x = make(case, dev)
    v = vals(case)
    check_exact(wt.sort(x), np.sort(v, kind="stable"), zero_sign=False, context="sort")
    check_exact(wt.argsort(x, axis=None), np.argsort(v, axis=None, kind="stable"),
                context="argsort axis=None")


def test_sort_nan_names(dev):
    x = wt.asarray([[3.0, math.nan, 1.0, 2.0]], device=dev, names=("a", "b"))
    assert wt.sort(x, axis="b").tolist()[0][:3] == [1.0, 2.0, 3.0]
    assert wt.sort(x, axis="b").names == ("a", "b")
    assert math.isnan(wt.sort(x, descending=True).tolist()[0][0])
    assert wt.argsort(x, descending=True).tolist() == [[1, 0, 3, 2]]
    assert wt.sort(x, stable=False).shape == (1, 4)


# -- sets -------------------------------------------------------------------------------------------

@needs_numpy
@SETTINGS
@given(case=cases(ALL, values=_small, max_side=4))
def test_unique_array_api(dev, case):
    x = make(case, dev)
    v = vals(case)
    ref = np.unique_all(v)
    got = wt.unique_all(x)
    check_exact(got.values, ref.values, zero_sign=False, context="values")
    check_exact(got.indices, ref.indices, context="indices")
    check_exact(got.inverse_indices, ref.inverse_indices.reshape(v.shape), context="inverse")
    check_exact(got.counts, ref.counts, context="counts")
    counts = wt.unique_counts(x)
    check_exact(counts.values, ref.values, zero_sign=False)
    check_exact(counts.counts, ref.counts)
    inverse = wt.unique_inverse(x)
    check_exact(inverse.inverse_indices, ref.inverse_indices.reshape(v.shape))
    check_exact(wt.unique_values(x), ref.values, zero_sign=False)


@needs_numpy
@SETTINGS
@given(case=cases(ALL, values=_small, max_side=4), equal_nan=st.booleans())
def test_unique_numpy_style(dev, case, equal_nan):
    x = make(case, dev)
    v = vals(case)
    got = wt.unique(x, return_index=True, return_inverse=True, return_counts=True,
                    equal_nan=equal_nan)
    ref = np.unique(v, return_index=True, return_inverse=True, return_counts=True,
                    equal_nan=equal_nan)
    check_exact(got[0], ref[0], zero_sign=False, context="values")
    for g, r, what in zip(got[1:], ref[1:], ("index", "inverse", "counts")):
        check_exact(g, r, context=what)
    check_exact(wt.unique(x, equal_nan=equal_nan), ref[0], zero_sign=False)


@needs_numpy
@SETTINGS
@given(case=cases(INTS + (wt.float32,), min_dims=1, values=lambda dt: bounded(dt, 2)),
       data=st.data())
def test_unique_axis(dev, case, data):
    ndim = len(case.shape)
    axis = data.draw(st.integers(-ndim, ndim - 1))
    v = vals(case)
    if 0 in v.shape and v.shape[axis] != 0:
        return  # NumPy cannot reshape zero-size slices here
    got = wt.unique(make(case, dev), axis=axis, return_index=True, return_inverse=True,
                    return_counts=True)
    ref = np.unique(v, axis=axis, return_index=True, return_inverse=True, return_counts=True)
    check_exact(got[0], ref[0], context="values")
    for g, r, what in zip(got[1:], ref[1:], ("index", "inverse", "counts")):
        check_exact(g, r.reshape(-1), context=what)


def test_unique_semantics(dev):
    x = wt.asarray([2.0, math.nan, -0.0, 0.0, math.nan, 2.0], device=dev)
    vals_ = wt.unique_values(x).tolist()
    assert vals_[:2] == [0.0, 2.0] and math.copysign(1, vals_[0]) == -1  # first occurrence
    assert len(vals_) == 4 and all(math.isnan(v) for v in vals_[2:])
    assert len(wt.unique(x).tolist()) == 3
    assert len(wt.unique(x, equal_nan=False).tolist()) == 4
    res = wt.unique_all(wt.asarray([[3, 1], [1, 3]], dtype=wt.int8, device=dev))
    assert res.values.dtype == wt.int8 and res.values.tolist() == [1, 3]
    assert res.inverse_indices.shape == (2, 2) and res.counts.tolist() == [2, 2]
    empty = wt.unique_all(wt.zeros((0, 2), device=dev))
    assert empty.values.shape == (0,) and empty.inverse_indices.shape == (0, 2)
    assert wt.unique(wt.asarray([[1, 2], [1, 2]], device=dev), axis=1).shape == (2, 2)


@needs_numpy
@SETTINGS
@given(case=cases(ALL, values=_small), data=st.data())
def test_isin(dev, case, data):
    other = data.draw(cases((case.dt,), values=_small))
    invert = data.draw(st.booleans())
    got = wt.isin(make(case, dev), make(other, dev), invert=invert)
    assert got.dtype == wt.bool
    check_exact(got, np.isin(vals(case), vals(other), invert=invert), context="isin")


def test_isin_scalars_and_promotion(dev):
    x = wt.asarray([1.0, math.nan, 3.0, 2.5], device=dev)
    assert wt.isin(x, [3, 1]).tolist() == [True, False, True, False]
    assert wt.isin(x, x).tolist() == [True, False, True, True]
    assert wt.isin(2.5, x).item() is True and wt.isin(x, 9.0, invert=True).tolist() == [True] * 4
    i = wt.asarray([[1, 2], [3, 4]], dtype=wt.int8, device=dev)
    assert wt.isin(i, wt.asarray([4, 1], dtype=wt.int64, device=dev)).tolist() == [
        [True, False], [False, True]]
    z = wt.asarray([1 + 1j, 2j], device=dev)
    assert wt.isin(z, wt.asarray([2j, 5.0], device=dev)).tolist() == [False, True]
    assert wt.isin(wt.zeros((2, 0), device=dev), x).shape == (2, 0)


# -- errors -----------------------------------------------------------------------------------------

def test_errors(dev):
    x = wt.asarray([[1.0, 2.0], [3.0, 4.0]], device=dev)
    with pytest.raises(ValueError, match=r"wt.argmax: attempt to get argmax of an empty"):
        wt.argmax(wt.zeros((2, 0), device=dev), axis=1)
    with pytest.raises(TypeError, match=r"wt.argmin: axis must be a single int"):
        wt.argmin(x, axis=(0, 1))
    with pytest.raises(ValueError, match=r"wt.argmax: axis 5 is out of bounds"):
        wt.argmax(x, axis=5)
    with pytest.raises(TypeError, match=r"wt.argmax: not supported for complex64"):
        wt.argmax(wt.asarray([1j], device=dev))
    with pytest.raises(ValueError, match=r"wt.nonzero: a 0-d tensor has no axes"):
        wt.nonzero(wt.asarray(1.0, device=dev))
    with pytest.raises(ValueError, match=r"wt.count_nonzero: repeated axis"):
        wt.count_nonzero(x, axis=(1, 1))
    with pytest.raises(ValueError, match=r"wt.searchsorted: side='middle' is not understood; use one of 'left', 'right'"):
        wt.searchsorted(wt.asarray([1.0], device=dev), 1.0, side="middle")
    with pytest.raises(ValueError, match=r"wt.searchsorted: x1 must be 1-D"):
        wt.searchsorted(x, 1.0)
    with pytest.raises(ValueError, match=r"wt.searchsorted: sorter must be 1-D with x1's"):
        wt.searchsorted(wt.asarray([1.0, 2.0], device=dev), 1.0,
                        sorter=wt.asarray([0], device=dev))
    with pytest.raises(TypeError, match=r"wt.searchsorted: not supported for float32"):
        wt.searchsorted(wt.asarray([1.0, 2.0], device=dev), 1.0,
                        sorter=wt.asarray([0.0, 1.0], device=dev))
    with pytest.raises(TypeError, match=r"wt.searchsorted: not supported for complex"):
        wt.searchsorted(wt.asarray([1j], device=dev), 1.0)
    with pytest.raises(ValueError, match=r"wt.sort: cannot sort a 0-d tensor"):
        wt.sort(wt.asarray(1.0, device=dev))
    with pytest.raises(ValueError, match=r"wt.argsort: axis 2 is out of bounds"):
        wt.argsort(x, axis=2)
    with pytest.raises(TypeError, match=r"wt.sort: descending must be True or False"):
        wt.sort(x, descending="yes")
    with pytest.raises(ValueError, match=r"wt.unique: axis=0 is out of bounds for a 0-d"):
        wt.unique(wt.asarray(1.0, device=dev), axis=0)
    with pytest.raises(ValueError, match=r"wt.unique: axis 3 is out of bounds"):
        wt.unique(x, axis=3)
