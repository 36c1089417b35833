"""Helpers for the statistical / searching / sorting / set / utility tests.

* ``cases(...)`` - a hypothesis strategy of ``Case`` (dtype, NumPy storage array, layout): any
  shape incl. 0-d and size-0, drawn as contiguous or strided (negative steps too) views.
* ``make(case, dev)`` builds the tensor; ``vals(case)`` gives the values NumPy computes with
  (bfloat16 as float32).
* ``check_exact`` / ``check_close`` compare a tensor with a NumPy reference.
* ``np`` (None under Pyodide), ``SETTINGS``.  The ``dev`` fixture (every device) is in
  conftest.py, ``needs_numpy`` in _oracle.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import settings
from hypothesis import strategies as st

import webtensor as wt
from _oracle import (
    assert_same_values,
    compute_values,
    dtype_values,
    layouts,
    ref_cast,
    shapes,
    size_of,
    storage_array,
    tensor_from_storage,
    tensor_storage,
    to_storage,
)

try:
    import numpy as np
except ImportError:  # Pyodide without NumPy: the NumPy-free tests still run
    np = None

SETTINGS = settings(max_examples=40, deadline=None)


INTS = tuple(wt.all_int_dtypes)
FLOATS = tuple(wt.all_float_dtypes)
COMPLEX = tuple(wt.all_complex_dtypes)
REAL = (wt.bool,) + INTS + FLOATS
ALL = REAL + COMPLEX

# A relative tolerance per float dtype for results whose summation order may differ.
EPS = {wt.float16: 2.0 ** -10, wt.bfloat16: 2.0 ** -7, wt.float32: 2.0 ** -23,
       wt.float64: 2.0 ** -52, wt.complex64: 2.0 ** -23, wt.complex128: 2.0 ** -52}


@dataclass
class Case:
    dt: object
    storage: object  # NumPy array of webtensor's storage (bfloat16 as uint16 bits)
    layout: object

    @property
    def shape(self):
        return tuple(self.storage.shape)

    def __repr__(self):
        return (f"Case({self.dt.name}, shape={self.shape}, layout={self.layout}, "
                f"values={compute_values(self.storage, self.dt).reshape(-1).tolist()})")


@st.composite
def cases(draw, dtypes=ALL, *, min_dims=0, max_dims=3, min_side=0, max_side=3, finite=False,
          bound=None, values=None):
    dt = draw(st.sampled_from(dtypes))
    shape = draw(shapes(min_dims, max_dims, min_side, max_side))
    strat = values(dt) if values is not None else dtype_values(dt, finite=finite, bound=bound)
    flat = draw(st.lists(strat, min_size=size_of(shape), max_size=size_of(shape)))
    layout = draw(st.none() | layouts(len(shape)))
    return Case(dt, storage_array(flat, dt, shape), layout)


def make(case: Case, dev):
    if case.shape:
        return tensor_from_storage(case.storage, case.dt, dev, layout=case.layout)
    # 0-d: build a 1-element tensor (tensor_from_storage goes through np.ascontiguousarray,
    # which makes 0-d arrays 1-d) and view it without axes.
    layout = None if case.layout is None else ((1,), case.layout[1])
    t = tensor_from_storage(case.storage.reshape(1), case.dt, dev, layout=layout)
    return t._view((), (), t.offset)


def vals(case: Case):
    return compute_values(case.storage, case.dt)


def axis_choices(ndim: int):
    """None, a single (possibly negative) axis or a tuple of distinct axes."""
    if ndim == 0:
        return st.sampled_from([None, ()])
    single = st.integers(-ndim, ndim - 1)
    several = st.lists(st.integers(0, ndim - 1), unique=True, max_size=ndim).map(tuple)
    return st.one_of(st.none(), single, several)


def bounded(dt, limit=100):
    """Finite values of ``dt`` within ``[-limit, limit]`` (ints too)."""
    if dt.kind == "b":
        return st.booleans()
    if dt.kind in "iu":
        info = wt.iinfo(dt)
        return st.integers(max(info.min, -limit), min(info.max, limit))
    return dtype_values(dt, finite=True, bound=limit)


def check_exact(got, expected, *, zero_sign=True, context=""):
    """``got`` (tensor) has exactly the values of ``expected`` (NumPy array in got's dtype's
    compute form), shape included; any NaN matches any NaN."""
    import numpy as np

    dt = got.dtype
    expected = np.asarray(expected)
    assert got.shape == expected.shape, f"{context}: shape {got.shape} != {expected.shape}"
    exp_storage = to_storage(ref_cast(expected, dt), dt).reshape(expected.shape)
    assert_same_values(tensor_storage(got), exp_storage, dt, zero_sign=zero_sign,
                       context=context)


def check_close(got, expected, *, rtol, scale=None, atol=0.0, context=""):
    """Floats within ``rtol * scale`` (scale defaults to |expected|), NaN where NaN, infinities
    equal."""
    import numpy as np

    got_v = np.asarray(compute_values(tensor_storage(got), got.dtype)).astype(np.complex128)
    exp_v = np.asarray(expected).astype(np.complex128)
    assert got_v.shape == exp_v.shape, f"{context}: shape {got_v.shape} != {exp_v.shape}"
    scale = np.abs(exp_v) if scale is None else np.broadcast_to(np.asarray(scale), exp_v.shape)
    with np.errstate(all="ignore"):
        nan_g, nan_e = np.isnan(got_v), np.isnan(exp_v)
        inf_e = np.isinf(exp_v) & ~nan_e
        err = np.abs(got_v - exp_v)
        tiny = wt.finfo(got.dtype.real_dtype).smallest_normal
        ok = np.where(nan_e, nan_g,
                      np.where(inf_e, got_v == exp_v, err <= rtol * scale + 4 * tiny + atol))
    if not np.all(ok):
        bad = np.argwhere(~ok)[:5]
        rows = [f"  at {tuple(int(k) for k in i)}: got {got_v[tuple(i)]} expected "
                f"{exp_v[tuple(i)]}" for i in bad]
        raise AssertionError(f"{context}: {int((~ok).sum())} elements differ (rtol {rtol})\n"
                             + "\n".join(rows))
