"""Utility functions (all, any, diff, isclose, allclose, array_equal) against NumPy, on both CPU
backends."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

import webtensor as wt
from _oracle import bf16_round, needs_numpy
from _stats_helpers import (
    ALL,
    FLOATS,
    INTS,
    SETTINGS,
    axis_choices,
    bounded,
    cases,
    check_exact,
    make,
    np,
    vals,
)


@needs_numpy
@SETTINGS
@given(case=cases(ALL), data=st.data())
def test_all_any(dev, case, data):
    axis = data.draw(axis_choices(len(case.shape)))
    keepdims = data.draw(st.booleans())
    x = make(case, dev)
    for name in ("all", "any"):
        got = getattr(wt, name)(x, axis=axis, keepdims=keepdims)
        assert got.dtype == wt.bool
        check_exact(got, getattr(np, name)(vals(case), axis=axis, keepdims=keepdims),
                    context=name)


def test_all_any_names_and_empty(dev):
    x = wt.asarray([[0, 1], [2, 3]], device=dev, names=("r", "c"))
    assert wt.all(x, axis="c").tolist() == [False, True]
    assert wt.any(x, axis="r").names == ("c",)
    assert wt.all(wt.zeros((0,), device=dev)).item() is True
    assert wt.any(wt.zeros((0,), device=dev)).item() is False
    assert wt.all(wt.asarray([math.nan], device=dev)).item() is True


# -- diff -------------------------------------------------------------------------------------------

@needs_numpy
@SETTINGS
@given(case=cases(ALL, min_dims=1, values=lambda dt: bounded(dt, 1000)), data=st.data())
def test_diff(dev, case, data):
    ndim = len(case.shape)
    axis = data.draw(st.integers(-ndim, ndim - 1))
    n = data.draw(st.integers(0, 3))
    x = make(case, dev)
    v = vals(case)
    got = wt.diff(x, axis=axis, n=n)
    assert got.dtype == case.dt
    if case.dt is wt.bfloat16:  # computed in float32, rounded each step
        ref = v
        for _ in range(min(n, v.shape[axis])):
            ref = bf16_round(np.diff(ref, axis=axis))
    else:
        ref = np.diff(v, axis=axis, n=n)
    check_exact(got, ref, zero_sign=False, context=f"diff n={n}")


@needs_numpy
@SETTINGS
@given(case=cases(INTS + FLOATS[2:], min_dims=1, values=lambda dt: bounded(dt, 100)),
       data=st.data())
def test_diff_prepend_append(dev, case, data):
    ndim = len(case.shape)
    axis = data.draw(st.integers(-ndim, ndim - 1))
    pre = data.draw(st.integers(0, 5))
    x = make(case, dev)
    v = vals(case)
    edge = v.take([0], axis=axis) if v.shape[axis] else None
    kwargs = {"prepend": pre}
    ref_kwargs = {"prepend": np.asarray(pre, dtype=v.dtype)}
    if edge is not None:
        kwargs["append"] = wt.asarray(edge, device=dev)
        ref_kwargs["append"] = edge
    got = wt.diff(x, axis=axis, **kwargs)
    check_exact(got, np.diff(v, axis=axis, **ref_kwargs), context="diff prepend/append")


def test_diff_bool_and_names(dev):
    b = wt.asarray([True, False, False, True], device=dev)
    assert wt.diff(b).tolist() == [True, False, True] and wt.diff(b).dtype == wt.bool
    u = wt.asarray([1, 0], dtype=wt.uint8, device=dev)
    assert wt.diff(u).tolist() == [255]
    x = wt.asarray([[1, 4], [2, 8]], device=dev, names=("r", "c"))
    assert wt.diff(x, axis="c").tolist() == [[3], [6]]
    assert wt.diff(x, axis="r").names == ("r", "c")
    assert wt.diff(x, n=5).shape == (2, 0)


# -- closeness --------------------------------------------------------------------------------------

def _near(dt):
    """Values that are often close to each other: a small set plus tiny perturbations."""
    if dt.kind in "iub":
        return bounded(dt, 3)
    base = st.sampled_from([0.0, 1.0, 1.0 + 1e-6, 1.0 + 1e-4, 1e-9, math.inf, -math.inf,
                            math.nan, 100.0, 100.001])
    if dt.kind == "c":
        return st.builds(complex, base, st.sampled_from([0.0, 1e-9, 1.0]))
    return base


@needs_numpy
@SETTINGS
@given(case=cases(ALL, values=_near), data=st.data())
def test_isclose(dev, case, data):
    other = data.draw(cases((case.dt,), values=_near, min_dims=len(case.shape),
                            max_dims=len(case.shape)).filter(lambda c: True))
    shape = np.broadcast_shapes
    a, b = vals(case), vals(other)
    try:
        shape(a.shape, b.shape)
    except ValueError:
        return
    equal_nan = data.draw(st.booleans())
    rtol = data.draw(st.sampled_from([1e-5, 1e-3, 0.0]))
    got = wt.isclose(make(case, dev), make(other, dev), rtol=rtol, equal_nan=equal_nan)
    compute = case.dt if case.dt.kind in "fc" else wt.float32
    cast = np.float32 if compute is wt.bfloat16 else np.dtype(compute.name)
    ra, rb = a.astype(cast), b.astype(cast)
    if compute is wt.bfloat16:  # each op rounds to bfloat16
        with np.errstate(all="ignore"):
            tol = bf16_round(bf16_round(np.abs(rb) * np.float32(bf16_round(rtol))) + np.float32(
                bf16_round(1e-8)))
            diff = bf16_round(np.abs(bf16_round(ra - rb)))
            ref = (diff <= tol) & np.isfinite(rb) | (ra == rb)
            if equal_nan:
                ref |= np.isnan(ra) & np.isnan(rb)
    else:
        ref = np.isclose(ra, rb, rtol=rtol, equal_nan=equal_nan)
    check_exact(got, ref, context="isclose")
    assert wt.allclose(make(case, dev), make(other, dev), rtol=rtol, equal_nan=equal_nan) == \
        bool(np.all(ref))


def test_isclose_scalars_and_array_equal(dev):
    x = wt.asarray([1.0, math.nan, math.inf], device=dev)
    assert wt.isclose(x, 1.0).tolist() == [True, False, False]
    assert wt.isclose(x, x, equal_nan=True).tolist() == [True, True, True]
    assert wt.isclose(1.0, x).tolist() == [True, False, False]
    assert wt.allclose(x, x, equal_nan=True) is True
    assert wt.allclose(x, x) is False
    i = wt.asarray([1, 2], dtype=wt.int64, device=dev)
    assert wt.isclose(i, wt.asarray([1, 3], device=dev)).tolist() == [True, False]
    assert wt.array_equal(i, wt.asarray([1, 2], device=dev)) is True
    assert wt.array_equal(i, wt.asarray([1, 2, 3], device=dev)) is False
    assert wt.array_equal(x, x) is False
    assert wt.array_equal(x, x, equal_nan=True) is True
    assert wt.array_equal(wt.asarray(2.0, device=dev), 2.0) is True


def test_errors(dev):
    x = wt.asarray([[1, 2], [3, 4]], device=dev)
    with pytest.raises(ValueError, match=r"wt.all: axis 2 is out of bounds"):
        wt.all(x, axis=2)
    with pytest.raises(ValueError, match=r"wt.any: no axis named 'z'"):
        wt.any(x, axis="z")
    with pytest.raises(ValueError, match=r"wt.diff: n must be a non-negative int, got -1"):
        wt.diff(x, n=-1)
    with pytest.raises(ValueError, match=r"wt.diff: needs a tensor with at least one dim"):
        wt.diff(wt.asarray(1, device=dev))
    with pytest.raises(ValueError, match=r"wt.diff: prepend/append of shape \(3,\) does not"):
        wt.diff(x, axis=0, prepend=wt.asarray([1, 2, 3], device=dev))
    with pytest.raises(ValueError, match=r"wt.diff: axis -3 is out of bounds"):
        wt.diff(x, axis=-3)
    with pytest.raises(ValueError, match=r"wt.isclose: shapes \(2, 2\), \(3,\) cannot be"):
        wt.isclose(x, wt.asarray([1, 2, 3], device=dev))
