"""Statistical functions against NumPy: sum, prod, max, min, mean, var, std, cumulative_*,
cumsum/cumprod, quantile/percentile/median, average, histogram; on both CPU backends."""

from __future__ import annotations

import math
import warnings

import pytest
from hypothesis import given
from hypothesis import strategies as st

import webtensor as wt
from _oracle import needs_numpy
from _stats_helpers import (
    ALL,
    COMPLEX,
    EPS,
    FLOATS,
    INTS,
    REAL,
    SETTINGS,
    axis_choices,
    bounded,
    cases,
    check_close,
    check_exact,
    make,
    np,
    vals,
)


def np_dtype(dt):
    return np.dtype(np.float32) if dt is wt.bfloat16 else np.dtype(dt.name)


def expected_acc(dt):
    """The Array API accumulation dtype with the default int int32 (standard mode)."""
    if dt is wt.bool:
        return wt.int32
    if dt.kind in "iu" and dt.itemsize < 4:
        return wt.int32 if dt.kind == "i" else wt.uint32
    return dt


def reduced_axes(shape, axis):
    if axis is None:
        return tuple(range(len(shape)))
    return (axis,) if isinstance(axis, int) else axis


def reduced_count(shape, axis):
    return math.prod(shape[a] for a in reduced_axes(shape, axis))


def float_result(dt):
    return dt if dt.kind in "fc" else wt.default_float_dtype()


# -- sum, prod ---------------------------------------------------------------------------------------

@needs_numpy
@SETTINGS
@given(case=cases((wt.bool,) + INTS), data=st.data())
def test_sum_prod_ints_exact(dev, case, data):
    axis = data.draw(axis_choices(len(case.shape)))
    keepdims = data.draw(st.booleans())
    x = make(case, dev)
    acc = expected_acc(case.dt)
    for name in ("sum", "prod"):
        got = getattr(wt, name)(x, axis=axis, keepdims=keepdims)
        assert got.dtype == acc, name
        ref = getattr(np, name)(vals(case).astype(np_dtype(acc)), axis=axis, keepdims=keepdims)
        check_exact(got, ref, context=f"{name} axis={axis}")


@needs_numpy
@SETTINGS
@given(case=cases(FLOATS + COMPLEX, values=lambda dt: bounded(dt, 100)), data=st.data())
def test_sum_floats_close(dev, case, data):
    axis = data.draw(axis_choices(len(case.shape)))
    keepdims = data.draw(st.booleans())
    got = wt.sum(make(case, dev), axis=axis, keepdims=keepdims)
    assert got.dtype == case.dt
    v = vals(case).astype(np.complex128 if case.dt.kind == "c" else np.float64)
    ref = np.sum(v, axis=axis, keepdims=keepdims)
    n = reduced_count(case.shape, axis)
    scale = np.sum(np.abs(v), axis=axis, keepdims=keepdims)
    check_close(got, ref, rtol=EPS[case.dt] * (n + 2), scale=scale, context=f"sum axis={axis}")


@needs_numpy
@SETTINGS
@given(case=cases(FLOATS + COMPLEX, max_side=2, values=lambda dt: bounded(dt, 2)),
       data=st.data())
def test_prod_floats_close(dev, case, data):
    axis = data.draw(axis_choices(len(case.shape)))
    got = wt.prod(make(case, dev), axis=axis)
    v = vals(case).astype(np.complex128 if case.dt.kind == "c" else np.float64)
    ref = np.prod(v, axis=axis)
    n = reduced_count(case.shape, axis)
    scale = np.prod(np.abs(v), axis=axis)
    check_close(got, ref, rtol=EPS[case.dt] * (2 * n + 2), scale=scale, context="prod")


def test_sum_dtype_rules(dev):
    i8 = wt.asarray([100, 100], dtype=wt.int8, device=dev)
    assert wt.sum(i8).dtype == wt.int32 and wt.sum(i8).item() == 200
    assert wt.sum(wt.asarray([200, 200], dtype=wt.uint8, device=dev)).dtype == wt.uint32
    assert wt.sum(wt.asarray([True, True], device=dev)).dtype == wt.int32
    assert wt.sum(wt.asarray([1, 2], dtype=wt.int64, device=dev)).dtype == wt.int64
    assert wt.sum(wt.asarray([1, 2], dtype=wt.uint64, device=dev)).dtype == wt.uint64
    assert wt.prod(wt.asarray([1.5], dtype=wt.float16, device=dev)).dtype == wt.float16
    assert wt.sum(i8, dtype=wt.int8).item() == -56  # explicit dtype: cast first, then wrap
    assert wt.sum(wt.asarray([1.7, 1.7], device=dev), dtype=wt.int32).item() == 2
    wt.set_default_int_dtype(wt.int64)
    assert wt.sum(wt.asarray([1], dtype=wt.int32, device=dev)).dtype == wt.int64
    assert wt.sum(wt.asarray([1], dtype=wt.uint16, device=dev)).dtype == wt.uint64
    wt.set_default_int_dtype(wt.int32)
    with wt.promotion_mode("numpy"):
        assert wt.sum(wt.asarray([1], dtype=wt.int32, device=dev)).dtype == wt.int64


def test_sum_special_values_and_weak(dev):
    nan, inf = math.nan, math.inf
    x = wt.asarray([[1.0, nan], [inf, 1.0], [inf, -inf]], device=dev)
    assert [math.isnan(v) for v in wt.sum(x, axis=1).tolist()] == [True, False, True]
    assert wt.sum(x, axis=1).tolist()[1] == inf
    assert wt.sum(wt.asarray([1, 2, 3], device=dev)).weak  # a weak input stays weak
    assert not wt.sum(wt.asarray([1, 2], dtype=wt.int32, device=dev)).weak
    empty = wt.zeros((0, 3), device=dev)
    assert wt.sum(empty, axis=0).tolist() == [0.0] * 3
    assert wt.prod(empty, axis=0).tolist() == [1.0] * 3
    assert wt.sum(empty, axis=1).shape == (0,)


def test_complex_products_overflow_quietly(dev):
    # a complex64 product beyond even the float64 accumulator's range is inf/NaN in the
    # result, as NumPy gives it, not a NumPy RuntimeWarning
    x = wt.asarray([1e30 + 1e30j] * 12, dtype=wt.complex64, device=dev)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        total = wt.prod(x).tolist()
        steps = wt.cumulative_prod(x).tolist()
    assert not math.isfinite(total.real) or not math.isfinite(total.imag)
    assert steps[1].real == 0 and math.isinf(steps[1].imag)  # (1 + 1j)^2 = 2j, scaled up
    assert all(not (math.isfinite(s.real) and math.isfinite(s.imag)) for s in steps[2:])


def test_named_axes(dev):
    x = wt.asarray([[1, 2, 3], [4, 5, 6]], dtype=wt.int32, device=dev, names=("batch", "feat"))
    s = wt.sum(x, axis="feat")
    assert s.tolist() == [6, 15] and s.names == ("batch",)
    assert wt.sum(x, axis="batch", keepdims=True).names == ("batch", "feat")
    assert wt.sum(x, axis=("batch", "feat")).names is None
    assert wt.max(x, axis="batch").names == ("feat",)
    assert wt.mean(x, axis=-1).names == ("batch",)
    assert wt.cumulative_sum(x, axis="feat").names == ("batch", "feat")
    assert wt.cumulative_sum(x, axis="feat").tolist() == [[1, 3, 6], [4, 9, 15]]
    assert wt.median(x, axis="feat").names == ("batch",)
    assert wt.quantile(x, [0.5, 1.0], axis="batch").names == (None, "feat")
    assert wt.var(x, axis="batch").names == ("feat",)


def test_positional_axis_and_methods(dev):
    x = wt.asarray([[1, 5, 3], [4, 2, 6]], dtype=wt.int32, device=dev)
    assert x.sum(0).tolist() == [5, 7, 9] and wt.prod(x, 1).tolist() == [15, 48]
    assert x.max(1).tolist() == [5, 6] and x.min(0).tolist() == [1, 2, 3]
    assert x.mean(0).tolist() == [2.5, 3.5, 4.5] and x.cumsum(1).tolist()[1] == [4, 6, 12]
    assert x.argmax(1).tolist() == [1, 2] and wt.argmin(x, 0).tolist() == [0, 1, 0]
    assert x.any(0).tolist() == [True] * 3 and wt.count_nonzero(x, 1).tolist() == [3, 3]
    assert x.sort(0).tolist() == [[1, 2, 3], [4, 5, 6]]
    assert wt.argsort(x, 1).tolist() == [[0, 2, 1], [1, 0, 2]]


# -- max, min ---------------------------------------------------------------------------------------

@needs_numpy
@SETTINGS
@given(case=cases(REAL), data=st.data())
def test_max_min_exact(dev, case, data):
    axis = data.draw(axis_choices(len(case.shape)))
    keepdims = data.draw(st.booleans())
    x = make(case, dev)
    for name in ("max", "min"):
        if any(case.shape[a] == 0 for a in reduced_axes(case.shape, axis)):
            with pytest.raises(ValueError, match=f"wt.{name}: zero-size reduction"):
                getattr(wt, name)(x, axis=axis, keepdims=keepdims)
            continue
        got = getattr(wt, name)(x, axis=axis, keepdims=keepdims)
        assert got.dtype == case.dt
        ref = getattr(np, name)(vals(case), axis=axis, keepdims=keepdims)
        check_exact(got, ref, zero_sign=False, context=f"{name} axis={axis}")


def test_max_min_nan_and_initial(dev):
    x = wt.asarray([[1.0, math.nan, 3.0], [1.0, 2.0, 3.0]], device=dev)
    assert math.isnan(wt.max(x, axis=1).tolist()[0]) and wt.max(x, axis=1).tolist()[1] == 3.0
    assert math.isnan(wt.min(x).item())
    e = wt.zeros((2, 0), device=dev)
    assert wt.max(e, axis=1, initial=-5.0).tolist() == [-5.0, -5.0]
    assert wt.min(e, axis=1, initial=7.0, keepdims=True).shape == (2, 1)
    assert wt.max(x, axis=0, initial=2.5).tolist()[2] == 3.0
    assert wt.max(wt.asarray([1, 9], dtype=wt.int8, device=dev), initial=20).item() == 20


# -- mean, var, std ---------------------------------------------------------------------------------

@needs_numpy
@SETTINGS
@given(case=cases(ALL, min_side=1, values=lambda dt: bounded(dt, 100)), data=st.data())
def test_mean_var_std_close(dev, case, data):
    axis = data.draw(axis_choices(len(case.shape)))
    keepdims = data.draw(st.booleans())
    correction = data.draw(st.sampled_from([0, 1, 0.5]))
    x = make(case, dev)
    result = float_result(case.dt)
    v = vals(case).astype(np.complex128 if case.dt.kind == "c" else np.float64)
    n = reduced_count(case.shape, axis)
    eps = EPS[result] * 4 + EPS[wt.float32 if result.itemsize <= 2 else result] * (n + 4)
    mean = wt.mean(x, axis=axis, keepdims=keepdims)
    assert mean.dtype == result
    ref_mean = np.mean(v, axis=axis, keepdims=keepdims)
    check_close(mean, ref_mean, rtol=eps,
                scale=np.mean(np.abs(v), axis=axis, keepdims=keepdims), context="mean")
    if n - correction <= 0:  # the Array API says NaN (NumPy: inf or NaN)
        var = wt.var(x, axis=axis, keepdims=keepdims, correction=correction)
        assert all(math.isnan(v) for v in var.reshape(-1).tolist())
        return
    with np.errstate(all="ignore"):
        ref_var = np.var(v, axis=axis, keepdims=keepdims, ddof=correction)
        spread = np.mean(np.abs(v), axis=axis, keepdims=keepdims) ** 2 + ref_var
    var = wt.var(x, axis=axis, keepdims=keepdims, correction=correction)
    assert var.dtype == result.real_dtype
    # Squares of tiny deviations underflow in the compute dtype (float32 for 16-bit floats).
    atol = 4 * n * wt.finfo(wt.float32 if result.itemsize <= 8 else wt.float64).smallest_normal
    check_close(var, ref_var, rtol=eps * 4, scale=spread, atol=atol, context="var")
    std = wt.std(x, axis=axis, keepdims=keepdims, correction=correction)
    check_close(std, np.sqrt(ref_var), rtol=eps * 4, scale=np.sqrt(spread),
                atol=math.sqrt(atol), context="std")


def test_mean_var_edge_cases(dev):
    e = wt.zeros((0,), device=dev)
    assert math.isnan(wt.mean(e).item())
    one = wt.asarray([2.0], device=dev)
    assert math.isnan(wt.var(one, correction=1).item())  # 0 / 0
    assert math.isnan(wt.var(wt.asarray([1.0, 3.0], device=dev), correction=2).item())
    assert math.isnan(wt.std(wt.asarray([1.0, 3.0], device=dev), correction=3).item())
    assert wt.var(wt.asarray([1.0, 3.0], device=dev), ddof=1).item() == 2.0
    z = wt.asarray([1 + 1j, 1 - 1j], device=dev)
    assert wt.var(z).dtype == wt.float32 and wt.var(z).item() == 1.0
    assert wt.mean(wt.asarray([1, 2], dtype=wt.int8, device=dev)).dtype == wt.float32
    with wt.promotion_mode("numpy"):
        assert wt.mean(wt.asarray([1, 2], dtype=wt.int8, device=dev)).dtype == wt.float64
    bf = wt.asarray([1.0, 2.0, 4.0], dtype=wt.bfloat16, device=dev)
    assert wt.mean(bf).dtype == wt.bfloat16
    assert abs(wt.mean(bf).item() - 7 / 3) < 0.02


# -- cumulative -------------------------------------------------------------------------------------

@needs_numpy
@SETTINGS
@given(case=cases(ALL, min_dims=1, values=lambda dt: bounded(dt, 3)), data=st.data())
def test_cumulative(dev, case, data):
    ndim = len(case.shape)
    axis = data.draw(st.integers(-ndim, ndim - 1))
    include = data.draw(st.booleans())
    x = make(case, dev)
    acc = expected_acc(case.dt)
    v = vals(case).astype(np_dtype(acc))
    for name, ident in (("cumulative_sum", 0), ("cumulative_prod", 1)):
        got = getattr(wt, name)(x, axis=axis, include_initial=include)
        assert got.dtype == acc
        fn = np.cumsum if name == "cumulative_sum" else np.cumprod
        ref = fn(v, axis=axis, dtype=v.dtype)
        if include:
            pad = list(ref.shape)
            pad[axis] = 1
            ref = np.concatenate([np.full(pad, ident, dtype=ref.dtype), ref], axis=axis)
        if acc.kind in "iub":
            check_exact(got, ref, context=name)
        else:
            wide = np.abs(vals(case).astype(np.complex128))
            scale = np.cumsum(wide, axis=axis) if name == "cumulative_sum" else \
                np.cumprod(wide, axis=axis)
            if include:
                scale = np.concatenate([np.ones(pad), scale], axis=axis)
            check_close(got, ref, rtol=EPS[acc] * (2 * case.shape[axis] + 2), scale=scale,
                        context=name)


@needs_numpy
@SETTINGS
@given(case=cases((wt.bool,) + INTS, values=lambda dt: bounded(dt, 5)), data=st.data())
def test_cumsum_cumprod_numpy_style(dev, case, data):
    ndim = len(case.shape)
    axis = data.draw(st.none() | st.integers(-ndim, ndim - 1)) if ndim else None
    x = make(case, dev)
    acc = expected_acc(case.dt)
    v = vals(case).astype(np_dtype(acc))
    check_exact(wt.cumsum(x, axis=axis), np.cumsum(v, axis=axis, dtype=v.dtype))
    check_exact(wt.cumprod(x, axis), np.cumprod(v, axis=axis, dtype=v.dtype))


# -- quantiles --------------------------------------------------------------------------------------

def _with_nan(dt):
    base = bounded(dt, 1000)
    return st.one_of(base, st.just(math.nan)) if dt.kind == "f" else base


@needs_numpy
@SETTINGS
@given(case=cases(INTS + FLOATS, min_side=1, values=_with_nan), data=st.data())
def test_quantile_linear(dev, case, data):
    axis = data.draw(axis_choices(len(case.shape)))
    keepdims = data.draw(st.booleans())
    q = data.draw(st.one_of(st.floats(0, 1), st.lists(st.floats(0, 1), min_size=1,
                                                       max_size=3)))
    method = data.draw(st.sampled_from(["linear", "midpoint"]))
    if axis == ():
        axis = None
    x = make(case, dev)
    got = wt.quantile(x, q, axis=axis, keepdims=keepdims, method=method)
    result = float_result(case.dt)
    assert got.dtype == result
    v = vals(case).astype(np.float64)
    ref = np.quantile(v, q, axis=axis, keepdims=keepdims, method=method)
    scale = np.nanmax(np.abs(v)) if np.any(~np.isnan(v)) else 1.0
    check_close(got, ref, rtol=EPS[result] * 8, scale=scale, context=f"quantile q={q}")


@needs_numpy
@SETTINGS
@given(case=cases(INTS + FLOATS, min_side=1, values=_with_nan), data=st.data())
def test_quantile_discrete_and_median(dev, case, data):
    axis = data.draw(axis_choices(len(case.shape)))
    if axis == ():
        axis = None
    method = data.draw(st.sampled_from(["lower", "higher", "nearest"]))
    q = data.draw(st.floats(0, 1))
    x = make(case, dev)
    got = wt.quantile(x, q, axis=axis, method=method)
    assert got.dtype == case.dt
    check_exact(got, np.quantile(vals(case), q, axis=axis, method=method), zero_sign=False,
                context=f"quantile {method} q={q}")
    med = wt.median(x, axis=axis)
    v = vals(case).astype(np.float64)
    scale = np.nanmax(np.abs(v)) if np.any(~np.isnan(v)) else 1.0
    check_close(med, np.median(v, axis=axis), rtol=EPS[med.dtype] * 8, scale=scale,
                context="median")
    pct = wt.percentile(x, 100 * q, axis=axis, method=method)
    check_exact(pct, np.percentile(vals(case), 100 * q, axis=axis, method=method),
                zero_sign=False, context="percentile")


@needs_numpy
def test_quantile_shapes(dev):
    x = wt.asarray(np.arange(24, dtype=np.float64).reshape(2, 3, 4), device=dev)
    q = wt.asarray([[0.25, 0.5], [0.75, 1.0]], device=dev)
    got = wt.quantile(x, q, axis=(0, 2), keepdims=True)
    ref = np.quantile(np.arange(24.0).reshape(2, 3, 4), [[0.25, 0.5], [0.75, 1.0]],
                      axis=(0, 2), keepdims=True)
    assert got.shape == ref.shape == (2, 2, 1, 3, 1)
    assert np.allclose(np.asarray(got.tolist()), ref)
    assert wt.median(x).item() == 11.5
    assert wt.percentile(x, 50, axis=-1).tolist()[0] == [1.5, 5.5, 9.5]


# -- average ----------------------------------------------------------------------------------------

@needs_numpy
def test_average(dev):
    a = np.arange(6.0).reshape(2, 3)
    x = wt.asarray(a, device=dev)
    assert wt.average(x).item() == 2.5
    got, wsum = wt.average(x, axis=1, weights=[1.0, 2.0, 3.0], returned=True)
    ref, rsum = np.average(a, axis=1, weights=[1.0, 2.0, 3.0], returned=True)
    assert np.allclose(got.tolist(), ref) and wsum.tolist() == rsum.tolist()
    w = np.array([[1.0, 0.0, 2.0], [3.0, 1.0, 1.0]])
    got = wt.average(x, axis=0, weights=wt.asarray(w, device=dev), keepdims=True)
    assert np.allclose(got.tolist(), np.average(a, axis=0, weights=w, keepdims=True))
    avg, count = wt.average(x, axis=0, returned=True)
    assert avg.tolist() == [1.5, 2.5, 3.5] and count.tolist() == [2.0, 2.0, 2.0]


# -- histogram --------------------------------------------------------------------------------------

@needs_numpy
@SETTINGS
@given(case=cases((wt.bool, wt.int8, wt.int32, wt.uint16, wt.int64, wt.float16, wt.float32,
                   wt.float64), max_dims=2, max_side=6,
                  values=lambda dt: bounded(dt, 50)),
       bins=st.integers(1, 7))
def test_histogram_matches_numpy(dev, case, bins):
    if case.dt is wt.bool:
        return  # NumPy refuses bool input for histogram; so do we (tested with the errors)
    try:
        ref_counts, ref_edges = np.histogram(vals(case), bins=bins)
    except ValueError as e:  # a range too narrow for the bins: we refuse it as NumPy does
        assert "Too many bins" in str(e)
        with pytest.raises(ValueError, match="wt.histogram: too many bins for data range"):
            wt.histogram(make(case, dev), bins=bins)
        return
    counts, edges = wt.histogram(make(case, dev), bins=bins)
    assert edges.dtype == (case.dt if case.dt.kind == "f" else wt.float64)
    # Edges are compared without the sign of zero: which of -0.0 and +0.0 NumPy's min/max
    # returns depends on its SIMD loop; webtensor's max prefers +0.0 on every device.
    ours = np.asarray(edges.tolist(), dtype=np.float64) + 0.0
    theirs = ref_edges.astype(np_dtype(edges.dtype)).astype(np.float64) + 0.0
    assert np.array_equal(ours, theirs, equal_nan=True), (ours, theirs)
    assert counts.dtype == wt.int64
    check_exact(counts, ref_counts, context="counts")


@needs_numpy
@SETTINGS
@given(case=cases((wt.bfloat16, wt.float32, wt.int16), max_dims=2, max_side=6,
                  values=lambda dt: st.one_of(bounded(dt, 50), st.just(math.nan))
                  if dt.kind == "f" else bounded(dt, 50)),
       bins=st.integers(1, 6), lo=st.integers(-60, 0), width=st.integers(1, 80))
def test_histogram_range_counts(dev, case, bins, lo, width):
    """With a range (NaN allowed): counts agree with NumPy's count over our own edges."""
    # NumPy's edges, linspace in float64 rounded to the data's dtype: equal neighbours mean the
    # range is too narrow for the bins in that dtype, which NumPy and we refuse
    rounded = wt.asarray(np.linspace(lo, lo + width, bins + 1), dtype=case.dt
                         if case.dt.kind == "f" else wt.float64).tolist()
    if any(a >= b for a, b in zip(rounded, rounded[1:])):
        with pytest.raises(ValueError, match="wt.histogram: too many bins for data range"):
            wt.histogram(make(case, dev), bins=bins, range=(lo, lo + width))
        return
    counts, edges = wt.histogram(make(case, dev), bins=bins, range=(lo, lo + width))
    e = np.asarray(edges.tolist(), dtype=np.float64)
    assert e[0] == lo and e[-1] == lo + width
    ref, _ = np.histogram(vals(case).astype(np.float64), bins=e)
    check_exact(counts, ref, context="counts")


@needs_numpy
def test_histogram_options(dev):
    data = np.array([0.5, 1.5, 1.5, 2.0, 3.0, 9.0])
    x = wt.asarray(data, device=dev)
    counts, edges = wt.histogram(x, bins=[0.0, 1.0, 2.0, 3.0])
    assert counts.tolist() == [1, 2, 2] and edges.tolist() == [0.0, 1.0, 2.0, 3.0]
    w = np.array([1.0, 2.0, 0.5, 1.0, 1.0, 4.0])
    got, _ = wt.histogram(x, bins=3, weights=wt.asarray(w, device=dev))
    assert np.allclose(got.tolist(), np.histogram(data, bins=3, weights=w)[0])
    dens, _ = wt.histogram(x, bins=4, density=True)
    assert np.allclose(dens.tolist(), np.histogram(data, bins=4, density=True)[0])
    same, e = wt.histogram(wt.asarray([2.0, 2.0], device=dev), bins=2)
    assert same.tolist() == [0, 2] and e.tolist() == [1.5, 2.0, 2.5]
    none, e = wt.histogram(wt.zeros((0,), device=dev), bins=2)
    assert none.tolist() == [0, 0] and e.tolist() == [0.0, 0.5, 1.0]
    # the case hypothesis found: float16 [0, 6e-08] cannot hold two bins' distinct edges
    tiny = wt.asarray([0.0, 6e-08], dtype=wt.float16, device=dev)
    with pytest.raises(ValueError, match=r"wt.histogram: too many bins .* 2 finite-sized bins"):
        wt.histogram(tiny, bins=2)
    counts, _ = wt.histogram(tiny, bins=1)
    assert counts.tolist() == [2]


# -- errors -----------------------------------------------------------------------------------------

def test_errors(dev):
    x = wt.asarray([[1.0, 2.0], [3.0, 4.0]], device=dev)
    with pytest.raises(ValueError, match=r"wt.sum: axis 2 is out of bounds .* \[-2, 2\)"):
        wt.sum(x, axis=2)
    with pytest.raises(ValueError, match="wt.mean: repeated axis"):
        wt.mean(x, axis=(0, -2))
    with pytest.raises(ValueError, match="wt.prod: no axis named 'rows'"):
        wt.prod(x, axis="rows")
    with pytest.raises(ValueError, match=r"wt.min: zero-size reduction.*pass initial="):
        wt.min(wt.zeros((0, 2), device=dev), axis=0)
    with pytest.raises(ValueError, match=r"wt.max: zero-size reduction"):
        wt.max(wt.zeros((0,), device=dev))
    z = wt.asarray([1j], device=dev)
    with pytest.raises(TypeError, match="wt.max: not supported for complex64"):
        wt.max(z)
    with pytest.raises(TypeError, match="wt.quantile: not supported for complex64"):
        wt.quantile(z, 0.5)
    with pytest.raises(TypeError, match="wt.median: not supported for bool"):
        wt.median(wt.asarray([True], device=dev))
    with pytest.raises(TypeError, match=r"wt.sum: dtype='int13' is not a data type"):
        wt.sum(x, dtype="int13")
    with pytest.raises(TypeError, match=r"wt.cumsum: dtype=3 is not a data type"):
        wt.cumsum(x, dtype=3)
    with pytest.raises(ValueError, match=r"wt.cumulative_sum: axis is required for a 2-D"):
        wt.cumulative_sum(x)
    with pytest.raises(ValueError, match=r"wt.cumulative_prod: expects a tensor with at least"):
        wt.cumulative_prod(wt.asarray(1.0, device=dev))
    with pytest.raises(TypeError, match=r"wt.var: pass correction= or NumPy's ddof="):
        wt.var(x, correction=1, ddof=1)
    with pytest.raises(TypeError, match=r"wt.std: correction must be a real number"):
        wt.std(x, correction="1")
    with pytest.raises(ValueError, match=r"wt.quantile: q=1.5 is outside \[0, 1\]"):
        wt.quantile(x, 1.5)
    with pytest.raises(ValueError, match=r"wt.percentile: q=-1.0 is outside \[0, 100\]"):
        wt.percentile(x, [50, -1])
    with pytest.raises(ValueError, match=r"wt.quantile: method='cubic' is not supported"):
        wt.quantile(x, 0.5, method="cubic")
    with pytest.raises(ValueError, match=r"wt.median: cannot take a quantile over an empty"):
        wt.median(wt.zeros((0, 3), device=dev), axis=0)


def test_histogram_and_average_errors(dev):
    x = wt.asarray([1.0, 2.0, math.nan], device=dev)
    with pytest.raises(ValueError, match=r"wt.histogram: autodetected range of \[nan, nan\]"):
        wt.histogram(x)
    with pytest.raises(ValueError, match=r"wt.histogram: bins=0 must be a positive"):
        wt.histogram(x, bins=0)
    with pytest.raises(TypeError, match=r"wt.histogram: bins='auto': string bin estimators"):
        wt.histogram(x, bins="auto")
    with pytest.raises(ValueError, match=r"wt.histogram: bins must increase monotonically"):
        wt.histogram(x, bins=[0.0, 2.0, 1.0])
    with pytest.raises(ValueError, match=r"wt.histogram: bins given as an array must be 1-D"):
        wt.histogram(x, bins=[[0.0, 1.0]])
    with pytest.raises(ValueError, match=r"wt.histogram: range=\(2.0, 1.0\) has max < min"):
        wt.histogram(x, range=(2, 1))
    with pytest.raises(ValueError, match=r"wt.histogram: range=\(0.0, inf\) is not finite"):
        wt.histogram(x, range=(0, math.inf))
    with pytest.raises(ValueError, match=r"wt.histogram: weights must have the shape of x"):
        wt.histogram(x, range=(0, 1), weights=[1.0])
    with pytest.raises(TypeError, match=r"wt.histogram: not supported for bool"):
        wt.histogram(wt.asarray([True], device=dev))
    y = wt.ones((2, 3), device=dev)
    with pytest.raises(ZeroDivisionError, match=r"wt.average: the weights sum to zero"):
        wt.average(y, axis=1, weights=[1.0, -1.0, 0.0])
    with pytest.raises(ValueError, match=r"wt.average: 1-D weights of length 2 do not match"):
        wt.average(y, axis=1, weights=[1.0, 2.0])
    with pytest.raises(ValueError, match=r"wt.average: weights of shape \(3,\) differ"):
        wt.average(y, weights=[1.0, 2.0, 3.0])
