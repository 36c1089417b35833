"""Indexing (webtensor.api.indexing): ``__getitem__``/``__setitem__`` and take/take_along_axis.

Random index expressions (ints, slices with any steps, ``...``, ``None``, integer arrays given as
lists / NumPy arrays / tensors, bool masks of any dimensionality and their combinations) are
applied to tensors over strided views and to the NumPy storage arrays; results must match bit
for bit, basic indexing must return views of the same buffer, and writes must land where NumPy's
land.  Names, weak flags and every error are checked without NumPy where possible.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

import webtensor as wt
from _views import (
    ON_EVERY_BACKEND,
    VIEW_DTYPES,
    _np,
    check,
    make,
    random_storage,
    t,
    view_settings,
    view_tensors,
)

DTYPES = VIEW_DTYPES
SETTINGS = view_settings(80)
pytestmark = ON_EVERY_BACKEND


# -- helpers (shared ones live in _views.py) ---------------------------------------------------------

def tensors(device, min_dims=0, max_dims=3, min_side=0, max_side=4, dtype=None):
    """(tensor, storage) over a possibly strided view."""
    return view_tensors(device, min_dims, max_dims, min_side, max_side, dtype).map(
        lambda r: r[:2])


# -- index strategies ------------------------------------------------------------------------------

def _slices(n):
    bound = st.none() | st.integers(-n - 2, n + 2)
    step = st.none() | st.sampled_from([1, 2, 3, -1, -2, -3])
    return st.builds(slice, bound, bound, step)


@st.composite
def basic_index(draw, shape):
    """A tuple of ints, slices, None and at most one Ellipsis (numpy-compatible)."""

    def entry(n):
        if n and draw(st.integers(0, 2)) == 0:
            return draw(st.integers(-n, n - 1))
        return draw(_slices(n))

    lead = draw(st.integers(0, len(shape)))
    entries = [entry(n) for n in shape[:lead]]
    if draw(st.booleans()):
        trail = draw(st.integers(0, len(shape) - lead))
        entries += [Ellipsis] + [entry(n) for n in shape[len(shape) - trail:]]
    for _ in range(draw(st.integers(0, 2))):
        entries.insert(draw(st.integers(0, len(entries))), None)
    return tuple(entries)


@st.composite
def int_array(draw, n, bshape, device):
    """Indices in [-n, n) broadcastable to ``bshape``, as a list, ndarray or tensor."""
    np = _np()
    keep = draw(st.integers(0, len(bshape)))
    shape = tuple(1 if draw(st.integers(0, 3)) == 0 else s for s in bshape[len(bshape) - keep:])
    values = draw(st.lists(st.integers(-n, n - 1), min_size=math.prod(shape),
                           max_size=math.prod(shape)))
    arr = np.array(values, dtype=np.int64).reshape(shape)
    form = draw(st.sampled_from(["list", "numpy", "tensor", "tensor8"]))
    if form == "list" and arr.size:  # (tolist() of an empty array loses its shape)
        return arr.tolist(), arr
    if form == "tensor8" and n <= 127:
        return wt.asarray(arr.astype(np.int8), device=device), arr
    if form in ("tensor", "tensor8"):
        return wt.asarray(arr, device=device), arr
    return arr, arr


@st.composite
def advanced_index(draw, shape, device):
    """(index for webtensor, the same index for NumPy): ints, slices, None, ... and either
    broadcastable integer arrays or one bool mask (of 0 to 2 dimensions)."""
    np = _np()
    nd = len(shape)
    entries, ref = [], []
    dim = 0
    bshape = tuple(draw(st.lists(st.integers(0, 3), max_size=2)))
    use_mask = draw(st.booleans())
    mask_done = False
    while dim < nd and draw(st.integers(0, 4)):
        n = shape[dim]
        kind = draw(st.sampled_from(["int", "slice", "array", "none", "mask"]))
        if kind == "int" and n:
            i = draw(st.integers(-n, n - 1))
            entries.append(i), ref.append(i)
            dim += 1
        elif kind == "none":
            entries.append(None), ref.append(None)
        elif kind == "mask" and use_mask and not mask_done:
            k = draw(st.integers(0, min(2, nd - dim)))
            mshape = shape[dim:dim + k]
            m = np.array(draw(st.lists(st.booleans(), min_size=math.prod(mshape),
                                       max_size=math.prod(mshape))), dtype=bool)
            m = m.reshape(mshape)
            form = draw(st.sampled_from(["numpy", "tensor", "list"] if m.size else
                                        ["numpy", "tensor"]))  # ([] would be an int list)
            if k == 0:
                entries.append(bool(m)), ref.append(bool(m))
            else:
                entries.append(m.tolist() if form == "list" else
                               wt.asarray(m, device=device) if form == "tensor" else m)
                ref.append(m)
            mask_done = True
            dim += k
        elif kind == "array" and not use_mask and n:
            idx, arr = draw(int_array(n, bshape, device))
            entries.append(idx), ref.append(arr)
            dim += 1
        else:
            sl = draw(_slices(n))
            entries.append(sl), ref.append(sl)
            dim += 1
    if draw(st.booleans()):
        pos = draw(st.integers(0, len(entries)))
        entries.insert(pos, Ellipsis), ref.insert(pos, Ellipsis)
    return tuple(entries), tuple(ref)


# -- __getitem__ ---------------------------------------------------------------------------------

@SETTINGS
@given(data=st.data())
def test_basic_indexing_matches_numpy_and_returns_views(backend, data):
    x, storage = data.draw(tensors(backend, max_dims=4))
    key = data.draw(basic_index(x.shape))
    got = x[key]
    check(got, storage[key])
    assert got._data is x._data and got.weak == x.weak
    if len(key) == 1:
        check(x[key[0]], storage[key[0]])


@SETTINGS
@given(data=st.data())
def test_advanced_indexing_matches_numpy(backend, data):
    x, storage = data.draw(tensors(backend, max_dims=4))
    key, ref = data.draw(advanced_index(x.shape, backend))
    try:
        expected = storage[ref]
    except IndexError:  # index arrays that do not broadcast together
        with pytest.raises((IndexError, ValueError)):
            x[key]
        return
    check(x[key], expected)


def test_indexing_examples(backend):
    x = t([[1, 2, 3], [4, 5, 6]], backend)
    assert x[1].tolist() == [4, 5, 6]
    assert x[-1, -1].tolist() == 6 and x[-1, -1].shape == ()
    assert x[:, ::-2].tolist() == [[3, 1], [6, 4]]
    assert x[..., 1].tolist() == [2, 5]
    assert x[None, 1, None].shape == (1, 1, 3)
    assert x[[1, 0], [2, 0]].tolist() == [6, 1]
    assert x[x > 2].tolist() == [3, 4, 5, 6]
    assert x[[True, False]].tolist() == [[1, 2, 3]]
    assert x[True].shape == (1, 2, 3) and x[False].shape == (0, 2, 3)
    assert x[:, [[0], [2]]].shape == (2, 2, 1)
    assert x[()].tolist() == x.tolist() and x[()]._data is x._data
    s = t(7, backend)
    assert s[()].tolist() == 7 and s[...].shape == () and s[None].shape == (1,)
    assert s[True].tolist() == [7] and s[False].shape == (0,)
    assert x[t(1, backend)].tolist() == [4, 5, 6]  # a 0-d integer tensor is an integer
    assert x[t([1], backend, dtype=wt.uint8)].tolist() == [[4, 5, 6]]
    assert x[[]].shape == (0, 3)


def test_numpy_rule_for_separated_advanced_indices(backend):
    np = _np()
    a = np.arange(120).reshape(2, 3, 4, 5)
    x = t(a, backend)
    i = [0, 1, 2]
    for key in [(slice(None), i, None, i), (slice(None), 0, slice(None), i),
                (slice(None), i, Ellipsis, i, slice(None)), (slice(None), i, 0, i),
                (slice(None), True, i), (slice(None), i, slice(None), True),
                (0, Ellipsis, i), (slice(None), None, i, i), ([0, 1, 0], slice(None), i)]:
        check(x[key], a[key])


def test_views_share_memory(backend):
    x = t([[1, 2, 3, 4], [5, 6, 7, 8]], backend)
    v = x[:, ::-2]
    assert v._data is x._data
    x[0, 3] = 40
    assert v.tolist() == [[40, 2], [8, 6]]
    v[1, 1] = 60
    assert x.tolist() == [[1, 2, 3, 40], [5, 60, 7, 8]]
    row = x[1]
    row[...] = 0
    assert x.tolist() == [[1, 2, 3, 40], [0, 0, 0, 0]]
    fancy = x[[0]]
    assert fancy._data is not x._data
    x[0, 0] = 100
    assert fancy.tolist() == [[1, 2, 3, 40]]


def test_names_and_weak_through_indexing(backend):
    x = t([[1, 2, 3], [4, 5, 6]], backend, names=("x", "y"))
    assert x.weak
    assert x[0].names == ("y",) and x[0].weak
    assert x[:, 1].names == ("x",)
    assert x[0, 0].names is None
    assert x[None].names == (None, "x", "y")
    assert x[::-1].names == ("x", "y")
    assert x[[0, 1]].names == (None, "y") and x[[0, 1]].weak
    assert x[:, [0, 1]].names == ("x", None)
    s = t([1, 2], backend, dtype=wt.float32)
    assert not s[0].weak and s[0].dtype is wt.float32


def test_named_access(backend):
    x = t([[1, 2, 3], [4, 5, 6], [7, 8, 9], [10, 11, 12]], backend, names=("x", "y"))
    a = x[{"x": slice(1, 3)}]
    assert a.tolist() == [[4, 5, 6], [7, 8, 9]] and a.names == ("x", "y")
    assert a._data is x._data
    assert x[{"x": slice(1, 3), "y": slice(0, 2)}].tolist() == [[4, 5], [7, 8]]
    b = x[{"x": 1, "y": slice(0, 2)}]
    assert b.tolist() == [4, 5] and b.names == ("y",)
    assert x[{"y": 2}].tolist() == [3, 6, 9, 12]
    assert x[{1: -1, "x": [0, 3]}].tolist() == [3, 12]
    assert x[{"y": [True, False, True]}].tolist() == [[1, 3], [4, 6], [7, 9], [10, 12]]
    x[{"y": 0}] = 0
    assert x[:, 0].tolist() == [0, 0, 0, 0]
    with pytest.raises(IndexError, match=r"no axis named 'z'; the tensor's names are "
                                         r"\('x', 'y'\)"):
        x[{"z": 0}]
    with pytest.raises(IndexError, match=r"axis 0 is indexed twice \(by 'x' and 0\)"):
        x[{"x": 0, 0: 1}]
    with pytest.raises(TypeError, match=r"a named index must be an integer, a slice, an "
                                        r"integer array or a 1-D bool mask, got None"):
        x[{"x": None}]
    with pytest.raises(IndexError, match=r"index 4 is out of bounds for axis 0 with size 4"):
        x[{"x": 4}]


def test_getitem_errors(backend):
    x = t([[1, 2, 3], [4, 5, 6]], backend)
    G = r"wt.Tensor.__getitem__: "
    with pytest.raises(IndexError, match=G + r"index 3 is out of bounds for axis 1 with size 3; "
                                             r"valid indices are -3 to 2"):
        x[0, 3]
    with pytest.raises(IndexError, match=G + r"index -3 is out of bounds for axis 0 with size 2"):
        x[-3]
    with pytest.raises(IndexError, match=G + r"index 5 is out of bounds for axis 1 with size 3"):
        x[:, [0, 5]]
    with pytest.raises(IndexError, match=G + r"index -4 is out of bounds for axis 1"):
        x[:, t([-4], backend)]
    with pytest.raises(IndexError, match=r"index 0 is out of bounds for axis 0 with size 0"):
        t([], backend)[0]
    with pytest.raises(IndexError, match=G + r"too many indices for a tensor of shape \(2, 3\): "
                                             r"it has 2 dimensions but 3 were indexed"):
        x[0, 0, 0]
    with pytest.raises(IndexError, match=r"it has 0 dimensions but 1 were indexed"):
        t(1, backend)[0]
    with pytest.raises(IndexError, match=G + r"an index can only have a single ellipsis"):
        x[..., ...]
    with pytest.raises(IndexError, match=G + r"the bool mask of shape \(3,\) does not match the "
                                             r"indexed tensor's shape \(2,\) along axes \(0,\)"):
        x[[True, False, True]]
    with pytest.raises(IndexError, match=r"mask of shape \(2, 2\) does not match .* shape "
                                         r"\(2, 3\) along axes \(0, 1\)"):
        x[t([[True, False], [True, True]], backend)]
    with pytest.raises(TypeError, match=G + r"invalid index 1.5 of type float; indices must be "
                                            r"integers, slices, \.\.\., None, bool masks or "
                                            r"integer arrays .*; convert it with int\(i\)"):
        x[1.5]
    with pytest.raises(TypeError, match=G + r"invalid index 'a' of type str"):
        x["a"]
    with pytest.raises(TypeError, match=G + r"invalid index a float32 tensor; .* cast it with "
                                            r"x.astype\(wt.int64\)"):
        x[t([0.0], backend, dtype=wt.float32)]
    with pytest.raises(TypeError, match=G + r"invalid index 1.0 of type float"):
        x[[1.0, 2.0]]
    with pytest.raises(TypeError, match=G + r"slice bounds must be integers or None, got 1.5"):
        x[1.5:]
    with pytest.raises(ValueError, match=G + r"slice step cannot be zero"):
        x[::0]
    with pytest.raises(IndexError, match=G + r"an index list must be rectangular"):
        x[[[0, 1], [0]]]
    with pytest.raises(ValueError, match=r"shapes \(2,\), \(3,\) cannot be broadcast"):
        x[[0, 1], [0, 1, 2]]


# -- __setitem__ -----------------------------------------------------------------------------

@st.composite
def _value_for(draw, shape, dt):
    """A value storage array broadcastable to ``shape``."""
    keep = draw(st.integers(0, len(shape)))
    vshape = tuple(1 if draw(st.integers(0, 3)) == 0 else s for s in shape[len(shape) - keep:])
    if shape and draw(st.integers(0, 5)) == 0:  # NumPy drops leading 1s (not into 0-d)
        vshape = (1,) + vshape
    return random_storage(vshape, dt, draw(st.integers(0, 2 ** 32 - 1)))


@SETTINGS
@given(data=st.data())
def test_setitem_matches_numpy(backend, data):
    x, storage = data.draw(tensors(backend, max_dims=3))
    if data.draw(st.booleans()):
        key = ref = data.draw(basic_index(x.shape))
    else:
        key, ref = data.draw(advanced_index(x.shape, backend))
    expected = storage.copy()
    try:
        target_shape = expected[ref].shape
    except IndexError:
        return
    value = data.draw(_value_for(target_shape, x.dtype))
    try:
        expected[ref] = value
    except TypeError:
        # NumPy alone refuses a >1-D value for a boolean-mask assignment even when it would
        # broadcast (leading size-1 dims); webtensor applies ordinary broadcasting there.
        return
    before = x._data
    x[key] = make(value, x.dtype, backend)
    check(x, expected)
    assert x._data is before


def test_setitem_duplicates_last_wins(backend):
    x = t([0, 0, 0], backend, dtype=wt.int32)
    x[[0, 0, 2, 0]] = t([1, 2, 3, 4], backend, dtype=wt.int32)
    assert x.tolist() == [4, 0, 3]
    y = t([[0, 0], [0, 0]], backend, dtype=wt.int32)
    y[[1, 1], [0, 0]] = t([5, 6], backend, dtype=wt.int32)
    assert y.tolist() == [[0, 0], [6, 0]]


def test_setitem_values_and_conversion(backend):
    x = t([1, 2, 3, 4], backend, dtype=wt.int8)
    x[0] = 100
    x[1:3] = [7, 8]  # a weak list defers to int8
    x[x > 50] = -1
    assert x.tolist() == [-1, 7, 8, 4]
    x[:] = t([1, 2, 3, 4], backend, dtype=wt.int64)  # same_kind narrowing is allowed
    assert x.tolist() == [1, 2, 3, 4] and x.dtype is wt.int8
    x[1:] = x[:-1]  # overlapping source and target
    assert x.tolist() == [1, 1, 2, 3]
    x[[0, 1]] = x[2:]
    assert x.tolist() == [2, 3, 2, 3]
    f = t([0.0, 0.0], backend, dtype=wt.bfloat16)
    f[0] = 1.00390625  # rounds to bfloat16 (nearest even -> 1.0)
    f[1] = t(3, backend, dtype=wt.int32)
    assert f.tolist() == [1.0, 3.0]
    c = t([0, 0], backend, dtype=wt.complex64)
    c[...] = 1 + 2j
    assert c.tolist() == [1 + 2j, 1 + 2j]
    b = t([True, False], backend)
    b[0] = False
    assert b.tolist() == [False, False]
    z = t([1, 2], backend, dtype=wt.int32)
    z[...] = t([[5, 6]], backend, dtype=wt.int32)  # leading 1 dims are dropped (as NumPy)
    assert z.tolist() == [5, 6]


def test_setitem_errors_leave_target_untouched(backend):
    x = t([1, 2, 3], backend, dtype=wt.int32)
    S = r"wt.Tensor.__setitem__: "
    with pytest.raises(TypeError, match=S + r"cannot store the Python float 1.5 \(it promotes "
                                            r"to float32 with int32\) into a tensor of dtype "
                                            r"int32: float32 -> int32 is not a 'same_kind' cast"
                                            r".*wt.astype"):
        x[0] = 1.5
    with pytest.raises(TypeError, match=S + r"cannot store a complex64 value into a tensor of "
                                            r"dtype int32"):
        x[[0, 1]] = t([1j, 2j], backend, dtype=wt.complex64)
    with pytest.raises(ValueError, match=S + r"cannot broadcast a value of shape \(2,\) into "
                                             r"the target shape \(3,\)"):
        x[:] = [1, 2]
    with pytest.raises(ValueError, match=S + r"cannot broadcast a value of shape \(3,\) into "
                                             r"the target shape \(2,\)"):
        x[[0, 1]] = [1, 2, 3]
    with pytest.raises(IndexError, match=S + r"index 3 is out of bounds for axis 0 with size 3"):
        x[[0, 3]] = 5
    with pytest.raises(OverflowError, match=r"Python int 300 is out of range for int8"):
        t([1], backend, dtype=wt.int8)[0] = 300
    with pytest.raises(TypeError, match=S + r"invalid index 0.5 of type float"):
        x[0.5] = 1
    with pytest.raises(TypeError, match=S + r"cannot use object as a value"):
        x[0] = object()
    u = t([1, 2], backend, dtype=wt.uint8)
    with pytest.raises(TypeError, match=r"cannot store a int8 value \(it promotes to int16 with "
                                        r"uint8\) into a tensor of dtype uint8"):
        u[0] = t(1, backend, dtype=wt.int8)
    b = wt.broadcast_to(x, (2, 3))
    with pytest.raises(ValueError, match=S + r"the target is a read-only broadcast view"):
        b[:, 0] = 7
    with pytest.raises(ValueError, match=S + r"the target is a read-only broadcast view"):
        b[[0], [1]] = 7
    assert x.tolist() == [1, 2, 3] and u.tolist() == [1, 2]


# -- take / take_along_axis ------------------------------------------------------------------

@SETTINGS
@given(data=st.data())
def test_take_matches_numpy(backend, data):
    np = _np()
    x, storage = data.draw(tensors(backend, min_dims=1, max_dims=3))
    if x.ndim == 1 or data.draw(st.booleans()):
        axis = None
        n = x.size
    else:
        axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
        n = x.shape[axis]
    if n == 0:
        return
    bshape = tuple(data.draw(st.lists(st.integers(0, 3), max_size=2)))
    idx, arr = data.draw(int_array(n, bshape, backend))
    check(wt.take(x, idx, axis=axis), np.take(storage, arr, axis=axis))


@SETTINGS
@given(data=st.data())
def test_take_along_axis_matches_numpy(backend, data):
    np = _np()
    x, storage = data.draw(tensors(backend, min_dims=1, max_dims=3))
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    n = x.shape[axis]
    ishape = [1 if data.draw(st.integers(0, 3)) == 0 else s for s in x.shape]
    ishape[axis] = data.draw(st.integers(0, 3)) if n else 0
    count = math.prod(ishape)
    values = data.draw(st.lists(st.integers(-n, n - 1), min_size=count, max_size=count)) \
        if n else []
    arr = np.array(values, dtype=np.int64).reshape(ishape)
    got = wt.take_along_axis(x, t(arr, backend), axis=axis)
    check(got, np.take_along_axis(storage, arr, axis=axis))


@pytest.mark.parametrize("dt", [wt.int32, wt.int64, wt.uint16], ids=str)
def test_long_index_arrays_are_checked_by_their_bounds(backend, dt):
    """Index tensors longer than the host check (their minimum and maximum are reduced on
    their device instead): negatives wrap, and one value out of range, anywhere, is an
    IndexError naming the first offender, as for short ones."""
    from webtensor.api.indexing import _HOST_CHECK

    n = _HOST_CHECK + 904
    x = wt.arange(n, device=backend) * 3
    values = [(k * 7919) % n - (n // 2 if dt.kind == "i" else 0) for k in range(n)]
    idx = t(values, backend, dtype=dt)
    want = [3 * (v % n) for v in values]
    assert wt.take(x, idx).tolist() == want
    assert x[wt.reshape(idx, (5, -1))].tolist() == [want[k:k + n // 5] for k in range(0, n, n // 5)]
    bad = list(values)
    bad[4000], bad[4500] = n, n + 1
    with pytest.raises(IndexError, match=rf"wt.take: index {n} is out of bounds for axis 0 "
                                         rf"with size {n}"):
        wt.take(x, t(bad, backend, dtype=dt))
    assert x.tolist()[:3] == [0, 3, 6]  # nothing changed


@pytest.mark.parametrize("idt", ["int8", "uint16", "int32", "int64", "uint32"])
def test_index_arrays_of_every_int_dtype_take_the_same_elements(backend, idt):
    """Index values that int32 holds reach the gather (and a traced take's gradient, the
    scatter) as int32, others as int64; either way the elements are int64 indices' ones:
    checked and wrapped eagerly, wrapped then clamped when traced (as JAX)."""
    dt = getattr(wt, idt)
    routed = getattr(backend.backend, "routed", None)  # webgpu: calls sent to the CPU
    before = dict(routed or {})
    xs = [10.0 + k for k in range(8)]
    x = wt.asarray(xs, device=backend)
    signed = dt in (wt.int8, wt.int32, wt.int64)
    values = [0, 7, 3, 3] + ([-1, -8] if signed else [])
    idx = wt.asarray(values, dtype=dt, device=backend)
    assert wt.take(x, idx).tolist() == [xs[v] for v in values]
    wild = values + ([9, -20] if signed else [9])  # traced: clamped into [0, 8)
    f = wt.jit(lambda x, i: wt.take(x, i))
    got = f(x, wt.asarray(wild, dtype=dt, device=backend)).tolist()
    assert got == [xs[min(max(v + 8 if v < 0 else v, 0), 7)] for v in wild]
    graph = wt.make_graph(lambda x, i: wt.take(x, i))(x, idx)
    index_dtypes = {r.dtype for n in graph.nodes for r in n.results if r.dtype.kind in "iu"}
    # int32 ones go to the gather as they are (it wraps and clamps), narrower ones cast
    assert index_dtypes == {"int8": {wt.int32}, "uint16": {wt.int32}, "int32": set()}.get(
        idt, {wt.int64})
    grad = wt.grad(lambda x, i: wt.sum(wt.take(x, i) * 2.0))
    counts = [2.0 * sum(1 for v in values if v % 8 == k) for k in range(8)]
    assert wt.jit(grad)(x, idx).tolist() == grad(x, idx).tolist() == counts
    # two index arrays: each is wrapped and clamped before they combine into one flat index
    x2 = wt.reshape(x, (2, 4))
    i, j = (wt.asarray(v, dtype=dt, device=backend) for v in ([1, 0, 5], [3, 9, 2]))
    got = wt.jit(lambda x2, i, j: x2[i, j])(x2, i, j).tolist()
    assert got == [xs[4 * min(a, 1) + min(b, 3)] for a, b in zip([1, 0, 5], [3, 9, 2])]
    if routed is not None:
        assert {k: n for k, n in routed.items() if k[0] in ("gather", "scatter")
                and n > before.get(k, 0)} == {}


def test_take_examples_names_errors(backend):
    x = t([[1, 2, 3], [4, 5, 6]], backend, names=("r", "c"))
    assert wt.take(x, [2, 0], axis="c").tolist() == [[3, 1], [6, 4]]
    assert wt.take(x, [2, 0], axis="c").names == ("r", None)
    assert wt.take(x, [5, -1]).tolist() == [6, 6]
    assert wt.take(x, 1, axis=0).tolist() == [4, 5, 6]
    assert wt.take(x, [], axis=1).shape == (2, 0)
    i = t([[0, 2], [1, 1]], backend)
    a = wt.take_along_axis(x, i, axis="c")
    assert a.tolist() == [[1, 3], [5, 5]] and a.names == ("r", "c")
    assert wt.take_along_axis(x, t([[-1]], backend), axis=0).tolist() == [[4, 5, 6]]
    assert wt.take_along_axis(t([3, 1, 2], backend), t([1, 2], backend), axis=None).tolist() \
        == [1, 2]
    with pytest.raises(IndexError, match=r"wt.take: index 3 is out of bounds for axis 1 with "
                                         r"size 3"):
        wt.take(x, [3], axis=1)
    with pytest.raises(TypeError, match=r"wt.take: indices must have an integer dtype, got "
                                        r"float32"):
        wt.take(x, t([1.0], backend, dtype=wt.float32), axis=0)
    with pytest.raises(TypeError, match=r"wt.take: indices must be integers, got 1.5"):
        wt.take(x, 1.5)
    with pytest.raises(TypeError, match=r"wt.take_along_axis: indices must have an integer "
                                        r"dtype, got bool"):
        wt.take_along_axis(x, t([[True]], backend), axis=0)
    with pytest.raises(ValueError, match=r"wt.take_along_axis: indices have 1 dimensions "
                                         r"\(shape \(1,\)\) but x has 2"):
        wt.take_along_axis(x, t([0], backend), axis=0)
    with pytest.raises(IndexError, match=r"wt.take_along_axis: index 2 is out of bounds for "
                                         r"axis 0 with size 2"):
        wt.take_along_axis(x, t([[2]], backend), axis=0)
    with pytest.raises(ValueError, match=r"wt.take_along_axis: shapes .* cannot be broadcast"):
        wt.take_along_axis(x, t([[0], [0], [0]], backend), axis=1)
    with pytest.raises(ValueError, match=r"wt.take_along_axis: with axis=None the indices must "
                                         r"be 1-D"):
        wt.take_along_axis(x, i, axis=None)
