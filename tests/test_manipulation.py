"""Manipulation functions (webtensor.api.manipulation) against NumPy, on both CPU backends.

Data movement is bit-exact, so most tests build tensors from random *storage* bytes (over strided
views with negative steps and offsets, see ``_oracle.tensor_from_storage``), apply the same
operation to the NumPy storage array and compare bits.  Views are checked to share the buffer
(``_data is``) exactly where NumPy's share memory.  Name propagation and error messages are
checked without NumPy, so they also run under Pyodide.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

import webtensor as wt
from _oracle import (
    layouts,
    ref_cast,
    shapes,
    to_storage,
)
from _views import (
    ON_EVERY_BACKEND,
    VIEW_DTYPES,
    _np,
    check,
    dtypes,
    make,
    random_storage,
    t,
    view_settings,
    view_tensors,
)

DTYPES = VIEW_DTYPES
SETTINGS = view_settings(60)
pytestmark = ON_EVERY_BACKEND


# -- helpers ----------------------------------------------------------------------------------------

def tensors(device, min_dims=0, max_dims=3, min_side=0, max_side=3, dtype=None):
    """(tensor, storage ndarray, layout) over a possibly strided view."""
    return view_tensors(device, min_dims, max_dims, min_side, max_side, dtype)


def numpy_view(storage, layout):
    """The NumPy twin of ``tensor_from_storage``: the same strides over a private buffer."""
    np = _np()
    if layout is None:
        flat = storage.reshape(-1).copy()
        return flat.reshape(storage.shape), flat
    steps, pad = layout
    big = tuple(abs(s) * n for s, n in zip(steps, storage.shape))
    flat = np.zeros(pad + math.prod(big), storage.dtype)
    view = flat[pad:].reshape(big)[tuple(slice(None, None, s) for s in steps)]
    view[...] = storage
    return view, flat


def shares(a, b) -> bool:
    return a._data is b._data


# -- reshape / ravel ---------------------------------------------------------------------------------

def _reshape_targets(shape):
    size = math.prod(shape)
    out = [(size,), (-1,), tuple(reversed(shape)), shape + (1,), (1,) + shape]
    for i in range(len(shape) - 1):
        out.append(shape[:i] + (shape[i] * shape[i + 1],) + shape[i + 2:])
    for i, n in enumerate(shape):
        for f in (2, 3):
            if n % f == 0 and n:
                out.append(shape[:i] + (f, n // f) + shape[i + 1:])
    return out


@SETTINGS
@given(data=st.data())
def test_reshape_matches_numpy_and_views_like_numpy(backend, data):
    np = _np()
    x, storage, layout = data.draw(tensors(backend, max_dims=4))
    target = data.draw(st.sampled_from(_reshape_targets(x.shape)))
    got = wt.reshape(x, target)
    view, flat = numpy_view(storage, layout)
    expected = np.reshape(view, target)
    check(got, expected)
    if x.size:
        assert shares(got, x) == np.shares_memory(expected, flat)
    if shares(got, x):
        assert wt.reshape(x, target, copy=False).shape == got.shape
    else:
        with pytest.raises(ValueError, match=r"wt.reshape: cannot reshape a view .* copy=False"):
            wt.reshape(x, target, copy=False)
    copied = wt.reshape(x, target, copy=True)
    check(copied, expected)
    assert not shares(copied, x)


def test_reshape_view_sees_writes_and_errors(backend):
    x = t([[1, 2, 3], [4, 5, 6]], backend)
    r = wt.reshape(x, (3, 2))
    assert shares(r, x) and r.tolist() == [[1, 2], [3, 4], [5, 6]]
    x[0, 1] = 20
    assert r.tolist() == [[1, 20], [3, 4], [5, 6]]
    assert wt.reshape(x, 6).shape == (6,)
    assert wt.ravel(x.T).tolist() == [1, 4, 20, 5, 3, 6]
    assert not shares(wt.ravel(x.T), x)
    with pytest.raises(ValueError, match=r"wt.reshape: cannot reshape 6 elements into shape "
                                         r"\(4,\)"):
        wt.reshape(x, (4,))
    with pytest.raises(ValueError, match=r"only one dimension can be -1"):
        wt.reshape(x, (-1, -1))
    with pytest.raises(ValueError, match=r"cannot reshape 6 elements into shape \(4, -1\)"):
        wt.reshape(x, (4, -1))
    with pytest.raises(TypeError, match=r"wt.reshape: expected an integer, got 2.0"):
        wt.reshape(x, (2.0, 3))


# -- permutations -------------------------------------------------------------------------------------

@SETTINGS
@given(data=st.data())
def test_permutations_match_numpy(backend, data):
    np = _np()
    x, storage, _ = data.draw(tensors(backend, max_dims=4))
    nd = x.ndim
    perm = tuple(data.draw(st.permutations(range(nd))))
    check(wt.permute_dims(x, perm), np.transpose(storage, perm))
    check(wt.transpose(x), np.transpose(storage))
    assert shares(wt.permute_dims(x, perm), x)
    if nd:
        a, b = data.draw(st.integers(-nd, nd - 1)), data.draw(st.integers(-nd, nd - 1))
        check(wt.swapaxes(x, a, b), np.swapaxes(storage, a, b))
        k = data.draw(st.integers(1, nd))
        src = data.draw(st.permutations(range(nd)))[:k]
        dst = data.draw(st.permutations(range(-nd, 0)))[:k]
        check(wt.moveaxis(x, src, dst), np.moveaxis(storage, src, dst))
        check(wt.moveaxis(x, src[0], dst[0]), np.moveaxis(storage, src[0], dst[0]))


def test_permute_errors_and_names(backend):
    x = t([[1, 2, 3]], backend, names=("x", "y"))
    p = wt.permute_dims(x, ("y", "x"))
    assert p.names == ("y", "x") and p.shape == (3, 1) and shares(p, x)
    assert wt.transpose(x).names == ("y", "x")
    assert wt.swapaxes(x, "x", -1).names == ("y", "x")
    assert wt.moveaxis(x, "x", -1).names == ("y", "x")
    with pytest.raises(ValueError, match=r"wt.permute_dims: axes \(0, 0\) are not a "
                                         r"permutation of the 2 axes"):
        wt.permute_dims(x, (0, 0))
    with pytest.raises(ValueError, match=r"wt.permute_dims: axis 2 is out of bounds"):
        wt.permute_dims(x, (0, 2))
    with pytest.raises(ValueError, match=r"no axis named 'z'"):
        wt.permute_dims(x, ("z", "x"))
    with pytest.raises(TypeError, match=r"axes must be a tuple"):
        wt.permute_dims(x, 0)
    with pytest.raises(ValueError, match=r"wt.moveaxis: source \(0,\) and destination "
                                         r"\(0, 1\) must have the same number"):
        wt.moveaxis(x, (0,), (0, 1))
    with pytest.raises(ValueError, match=r"wt.moveaxis: repeated axis in source"):
        wt.moveaxis(x, (0, 0), (0, 1))


# -- broadcasting -----------------------------------------------------------------------------------

@SETTINGS
@given(data=st.data())
def test_broadcast_matches_numpy(backend, data):
    np = _np()
    from _oracle import broadcast_pairs

    s1, s2 = data.draw(broadcast_pairs())
    dt = data.draw(dtypes)
    a1, a2 = random_storage(s1, dt, 1), random_storage(s2, dt, 2)
    x1 = make(a1, dt, backend, data.draw(st.none() | layouts(len(s1))) if s1 else None)
    x2 = make(a2, dt, backend)
    shape = np.broadcast_shapes(s1, s2)
    assert wt.broadcast_shapes(s1, s2) == shape
    got = wt.broadcast_to(x1, shape)
    check(got, np.broadcast_to(a1, shape))
    assert shares(got, x1)
    b1, b2 = wt.broadcast_arrays(x1, x2)
    e1, e2 = np.broadcast_arrays(a1, a2)
    check(b1, e1)
    check(b2, e2)
    assert shares(b1, x1) and shares(b2, x2)


def test_broadcast_errors_and_names(backend):
    x = t([1, 2, 3], backend, names=("x",))
    b = wt.broadcast_to(x, (2, 3))
    assert b.names == (None, "x") and b.tolist() == [[1, 2, 3]] * 2
    y = t([[1], [2]], backend, names=("r", None))
    bx, by = wt.broadcast_arrays(x, y)
    assert bx.names == by.names == ("r", "x") and by.tolist() == [[1, 1, 1], [2, 2, 2]]
    assert wt.broadcast_shapes() == ()
    assert wt.broadcast_shapes((2, 1), (3,), ()) == (2, 3)
    with pytest.raises(ValueError, match=r"wt.broadcast_to: cannot broadcast shape \(3,\) to "
                                         r"\(2, 4\)"):
        wt.broadcast_to(x, (2, 4))
    with pytest.raises(ValueError, match=r"cannot broadcast shape \(3,\) to \(\)"):
        wt.broadcast_to(x, ())
    with pytest.raises(ValueError, match=r"wt.broadcast_shapes: shapes \(2,\), \(3,\) cannot "
                                         r"be broadcast"):
        wt.broadcast_shapes((2,), (3,))
    with pytest.raises(ValueError, match=r"wt.broadcast_arrays: axis names clash"):
        wt.broadcast_arrays(x, t([1, 2, 3], backend, names=("y",)))
    with pytest.raises(ValueError, match=r"wt.broadcast_arrays: shapes .* cannot be broadcast"):
        wt.broadcast_arrays(x, t([1, 2], backend))


# -- expand_dims / squeeze / flip ----------------------------------------------------------------

@SETTINGS
@given(data=st.data())
def test_expand_squeeze_flip_match_numpy(backend, data):
    np = _np()
    x, storage, _ = data.draw(tensors(backend, max_dims=3))
    nd = x.ndim
    k = data.draw(st.integers(1, 2))
    axes = tuple(data.draw(st.permutations(range(nd + k))))[:k]
    axes = tuple(a - (nd + k) if data.draw(st.booleans()) else a for a in axes)
    got = wt.expand_dims(x, axes)
    check(got, np.expand_dims(storage, axes))
    assert shares(got, x)
    one = data.draw(st.integers(-nd - 1, nd))
    check(wt.expand_dims(x, one), np.expand_dims(storage, one))
    check(wt.squeeze(x), np.squeeze(storage))
    ones = [i for i, n in enumerate(x.shape) if n == 1]
    if ones:
        sub = tuple(data.draw(st.permutations(ones)))[:data.draw(st.integers(1, len(ones)))]
        check(wt.squeeze(x, sub), np.squeeze(storage, sub))
        assert shares(wt.squeeze(x, sub), x)
    check(wt.flip(x), np.flip(storage))
    assert shares(wt.flip(x), x)
    if nd:
        ax = data.draw(st.integers(-nd, nd - 1))
        check(wt.flip(x, axis=ax), np.flip(storage, ax))
        check(wt.flip(x, axis=tuple(range(nd))[::2]), np.flip(storage, tuple(range(nd))[::2]))


def test_expand_squeeze_flip_names_and_errors(backend):
    x = t([[1, 2, 3]], backend, names=("a", "b"))
    e = wt.expand_dims(x, (0, -1))
    assert e.shape == (1, 1, 3, 1) and e.names == (None, "a", "b", None)
    s = wt.squeeze(x, "a")
    assert s.names == ("b",) and s.tolist() == [1, 2, 3] and shares(s, x)
    assert wt.squeeze(x).names == ("b",)
    f = wt.flip(x, axis="b")
    assert f.tolist() == [[3, 2, 1]] and f.names == ("a", "b") and shares(f, x)
    x[0, 0] = 10
    assert f.tolist() == [[3, 2, 10]]
    with pytest.raises(ValueError, match=r"wt.squeeze: cannot squeeze axis 1 \('b'\) of size 3"):
        wt.squeeze(x, 1)
    with pytest.raises(ValueError, match=r"wt.squeeze: cannot squeeze axis 0 of size 2"):
        wt.squeeze(t([1, 2], backend), 0)
    with pytest.raises(ValueError, match=r"wt.squeeze: axis 2 is out of bounds"):
        wt.squeeze(x, 2)
    with pytest.raises(ValueError, match=r"wt.expand_dims: repeated axis in \(0, -4\)"):
        wt.expand_dims(x, (0, -4))
    with pytest.raises(ValueError, match=r"wt.expand_dims: axis 3 is out of bounds for a tensor "
                                         r"of 3 dimensions"):
        wt.expand_dims(x, 3)
    with pytest.raises(TypeError, match=r"wt.expand_dims: axis 'a' is a name"):
        wt.expand_dims(x, "a")
    with pytest.raises(ValueError, match=r"wt.flip: repeated axis"):
        wt.flip(x, axis=(0, 0))


# -- roll --------------------------------------------------------------------------------------------

@SETTINGS
@given(data=st.data())
def test_roll_matches_numpy(backend, data):
    np = _np()
    x, storage, _ = data.draw(tensors(backend, max_dims=3))
    shift = data.draw(st.integers(-7, 7))
    check(wt.roll(x, shift), np.roll(storage, shift))
    if x.ndim:
        axes = tuple(data.draw(st.lists(st.integers(-x.ndim, x.ndim - 1), min_size=1,
                                        max_size=3)))
        shifts = tuple(data.draw(st.integers(-5, 5)) for _ in axes)
        check(wt.roll(x, shifts, axis=axes), np.roll(storage, shifts, axis=axes))
        check(wt.roll(x, shift, axis=axes), np.roll(storage, shift, axis=axes))
    got = wt.roll(x, 0)
    assert not shares(got, x)


def test_roll_names_and_errors(backend):
    x = t([[1, 2, 3], [4, 5, 6]], backend, names=("r", "c"))
    r = wt.roll(x, 1, axis="c")
    assert r.tolist() == [[3, 1, 2], [6, 4, 5]] and r.names == ("r", "c")
    assert wt.roll(x, -1).tolist() == [[2, 3, 4], [5, 6, 1]]
    with pytest.raises(ValueError, match=r"wt.roll: shift \(1, 2\) and axis \(0, 1, 0\) must "
                                         r"have the same length"):
        wt.roll(x, (1, 2), axis=(0, 1, 0))
    with pytest.raises(TypeError, match=r"wt.roll: shift must be an integer, got 1.5"):
        wt.roll(x, 1.5, axis=0)


# -- concat / stack / unstack ----------------------------------------------------------------------

@SETTINGS
@given(data=st.data())
def test_concat_and_stack_match_numpy(backend, data):
    np = _np()
    shape = data.draw(shapes(1, 3))
    nd = len(shape)
    axis = data.draw(st.integers(-nd, nd - 1))
    parts, stores, dts = [], [], []
    for i in range(data.draw(st.integers(1, 3))):
        s = list(shape)
        s[axis] = data.draw(st.integers(0, 3))
        dt = data.draw(dtypes)
        a = random_storage(tuple(s), dt, i)
        parts.append(make(a, dt, backend, data.draw(st.none() | layouts(nd))))
        stores.append((a, dt))
        dts.append(dt)
    out_dt = wt.result_type(*dts)
    from _oracle import compute_values

    refs = [to_storage(ref_cast(compute_values(a, dt), out_dt), out_dt) for a, dt in stores]
    check(wt.concat(parts, axis=axis), np.concatenate(refs, axis=axis), out_dt)
    check(wt.concat(parts, axis=None), np.concatenate([r.reshape(-1) for r in refs]), out_dt)
    same = [p for p in parts if p.shape == parts[0].shape]
    sdt = wt.result_type(*[p.dtype for p in same])
    same_refs = [to_storage(ref_cast(compute_values(a, dt), sdt), sdt)
                 for p, (a, dt) in zip(parts, stores) if p.shape == parts[0].shape]
    sax = data.draw(st.integers(-nd - 1, nd))
    check(wt.stack(same, axis=sax), np.stack(same_refs, axis=sax), sdt)
    pieces = wt.unstack(parts[0], axis=axis)
    expected = [np.take(stores[0][0], i, axis=axis) for i in range(parts[0].shape[axis])]
    assert len(pieces) == len(expected)
    for p, e in zip(pieces, expected):
        check(p, e)
        assert shares(p, parts[0])


def test_concat_promotion_weak_names(backend):
    a = t([1, 2], backend, dtype=wt.int8)
    b = t([300], backend, dtype=wt.int16)
    c = wt.concat([a, b])
    assert c.dtype is wt.int16 and c.tolist() == [1, 2, 300] and not c.weak
    w = wt.concat([a, [5, 6]])  # a weak list defers to int8
    assert w.dtype is wt.int8 and w.tolist() == [1, 2, 5, 6]
    f = wt.concat([a, t([0.5], backend, dtype=wt.float32)])
    assert f.dtype is wt.float32 and f.tolist() == [1.0, 2.0, 0.5]
    assert wt.concat([t([1], backend), t([2], backend)]).weak
    n1 = t([[1, 2]], backend, names=("r", "c"))
    n2 = t([[3, 4]], backend, names=(None, "c"))
    j = wt.concat([n1, n2], axis="r")
    assert j.names == ("r", "c") and j.tolist() == [[1, 2], [3, 4]]
    s = wt.stack([n1, n2], axis=1)
    assert s.names == ("r", None, "c") and s.shape == (1, 2, 2)
    assert wt.unstack(n1, axis="c")[1].names == ("r",)
    assert wt.concat([n1, n2], axis=None).names is None
    with pytest.raises(ValueError, match=r"wt.concat: axis names clash"):
        wt.concat([n1, t([[3, 4]], backend, names=("q", "c"))])


def test_join_errors(backend):
    a = t([[1, 2]], backend)
    with pytest.raises(ValueError, match=r"wt.concat: tensor 1 has shape \(1, 3\) but tensor 0 "
                                         r"has shape \(1, 2\); all dimensions except axis 0"):
        wt.concat([a, t([[1, 2, 3]], backend)])
    with pytest.raises(ValueError, match=r"wt.concat: tensor 1 has 1 dimensions"):
        wt.concat([a, t([1, 2], backend)])
    with pytest.raises(ValueError, match=r"wt.concat: zero-dimensional tensors cannot be "
                                         r"concatenated"):
        wt.concat([t(1, backend), t(2, backend)])
    with pytest.raises(ValueError, match=r"wt.concat: need at least one tensor"):
        wt.concat([])
    with pytest.raises(TypeError, match=r"wt.concat: expected a sequence"):
        wt.concat(a)
    with pytest.raises(ValueError, match=r"wt.concat: got the scalar 3"):
        wt.concat([a, 3])
    with pytest.raises(ValueError, match=r"wt.concat: axis 2 is out of bounds"):
        wt.concat([a, a], axis=2)
    with pytest.raises(ValueError, match=r"wt.stack: tensor 1 has shape \(2,\) but tensor 0 "
                                         r"has shape \(1, 2\)"):
        wt.stack([a, t([1, 2], backend)])
    with pytest.raises(ValueError, match=r"wt.unstack: cannot unstack a 0-d tensor"):
        wt.unstack(t(1, backend))
    with pytest.raises(wt.TypePromotionError), wt.set_promotion_mode("strict"):
        wt.concat([t([1], backend, dtype=wt.int8), t([1], backend, dtype=wt.int16)])


# -- split / array_split ------------------------------------------------------------------------

@SETTINGS
@given(data=st.data())
def test_split_matches_numpy(backend, data):
    np = _np()
    x, storage, _ = data.draw(tensors(backend, min_dims=1, max_dims=3, max_side=6))
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    n = x.shape[axis]
    sections = data.draw(st.integers(1, 4))
    got = wt.array_split(x, sections, axis=axis)
    expected = np.array_split(storage, sections, axis=axis)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        check(g, e)
        assert shares(g, x)
    points = data.draw(st.lists(st.integers(-n - 2, n + 2), max_size=4))
    for g, e in zip(wt.split(x, points, axis=axis), np.split(storage, points, axis=axis),
                    strict=True):
        check(g, e)
    if n % sections == 0:
        for g, e in zip(wt.split(x, sections, axis=axis),
                        np.split(storage, sections, axis=axis), strict=True):
            check(g, e)


def test_split_errors(backend):
    x = t([1, 2, 3, 4, 5], backend, names=("x",))
    assert [p.tolist() for p in wt.array_split(x, 3)] == [[1, 2], [3, 4], [5]]
    assert [p.tolist() for p in wt.split(x, t([1, 3], backend), axis="x")] == \
        [[1], [2, 3], [4, 5]]
    assert wt.split(x, [2])[0].names == ("x",)
    with pytest.raises(ValueError, match=r"wt.split: an axis of length 5 does not split into 2 "
                                         r"equal sections; use wt.array_split"):
        wt.split(x, 2)
    with pytest.raises(ValueError, match=r"wt.array_split: the number of sections must be "
                                         r"larger than 0, got 0"):
        wt.array_split(x, 0)
    with pytest.raises(TypeError, match=r"wt.split: the number of sections must be an integer, "
                                        r"got 2.0"):
        wt.split(x, 2.0)
    with pytest.raises(ValueError, match=r"wt.split: cannot split a 0-d tensor"):
        wt.split(t(1, backend), 1)


# -- tile / repeat ----------------------------------------------------------------------------------

@SETTINGS
@given(data=st.data())
def test_tile_repeat_match_numpy(backend, data):
    np = _np()
    x, storage, _ = data.draw(tensors(backend, max_dims=3))
    reps = tuple(data.draw(st.lists(st.integers(0, 3), max_size=4)))
    check(wt.tile(x, reps), np.tile(storage, reps))
    r = data.draw(st.integers(0, 3))
    check(wt.repeat(x, r), np.repeat(storage, r))
    if x.ndim:
        ax = data.draw(st.integers(-x.ndim, x.ndim - 1))
        check(wt.repeat(x, r, axis=ax), np.repeat(storage, r, axis=ax))
        counts = data.draw(st.lists(st.integers(0, 3), min_size=x.shape[ax],
                                    max_size=x.shape[ax]))
        check(wt.repeat(x, counts, axis=ax), np.repeat(storage, counts, axis=ax))
        check(wt.repeat(x, t(counts, backend, dtype=wt.int64), axis=ax),
              np.repeat(storage, counts, axis=ax))
        check(wt.repeat(x, [r], axis=ax), np.repeat(storage, [r], axis=ax))


def test_tile_repeat_names_and_errors(backend):
    x = t([[1, 2]], backend, names=("r", "c"))
    assert wt.tile(x, (2, 1, 2)).names == (None, "r", "c")
    assert wt.tile(x, 2).tolist() == [[1, 2, 1, 2]]
    assert wt.repeat(x, 2, axis="c").tolist() == [[1, 1, 2, 2]]
    assert wt.repeat(x, 2, axis="c").names == ("r", "c")
    assert wt.repeat(x, [1, 3], axis=1).tolist() == [[1, 2, 2, 2]]
    assert wt.repeat(x, 2).names is None
    with pytest.raises(ValueError, match=r"wt.tile: repetitions must be >= 0, got \(-1,\)"):
        wt.tile(x, -1)
    with pytest.raises(ValueError, match=r"wt.repeat: got 3 repeat counts for an axis of "
                                         r"length 2"):
        wt.repeat(x, [1, 2, 3], axis=1)
    with pytest.raises(ValueError, match=r"wt.repeat: repeat counts must be >= 0, got -1"):
        wt.repeat(x, -1)
    with pytest.raises(TypeError, match=r"wt.repeat: repeats must have an integer dtype, got "
                                        r"float32"):
        wt.repeat(x, t([1.0, 2.0], backend, dtype=wt.float32), axis=1)
    with pytest.raises(TypeError, match=r"wt.repeat: repeats must be an integer, got 1.5"):
        wt.repeat(x, 1.5)


# -- pad ---------------------------------------------------------------------------------------------

@SETTINGS
@given(data=st.data())
def test_pad_matches_numpy(backend, data):
    np = _np()
    x, storage, _ = data.draw(tensors(backend, max_dims=3))
    mode = data.draw(st.sampled_from(["constant", "edge", "reflect", "symmetric"]))
    nd = x.ndim
    form = data.draw(st.integers(0, 2)) if nd else 0
    if form == 0:
        width = data.draw(st.integers(0, 5))
    elif form == 1:
        width = (data.draw(st.integers(0, 5)), data.draw(st.integers(0, 5)))
    else:
        width = tuple((data.draw(st.integers(0, 5)), data.draw(st.integers(0, 5)))
                      for _ in range(nd))
    pairs = np.broadcast_to(np.asarray(width, dtype=np.int64).reshape(-1, 2)
                            if form else np.asarray([[width, width]]), (nd, 2))
    empty_padded = any(x.shape[i] == 0 and pairs[i].any() for i in range(nd))
    if mode != "constant" and empty_padded:
        with pytest.raises(ValueError, match=r"wt.pad: cannot pad the empty axis"):
            wt.pad(x, width, mode)
        return
    if mode == "constant":
        got = wt.pad(x, width, constant_values=1)
        one = 0x3F80 if x.dtype is wt.bfloat16 else 1  # (the storage of bfloat16 1.0)
        expected = np.pad(storage, width, constant_values=one)
    else:
        got = wt.pad(x, width, mode)
        expected = np.pad(storage, width, mode)
    check(got, expected)
    assert not shares(got, x)


def test_pad_constant_values_per_axis(backend):
    np = _np()
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    x = t(a, backend)
    cv = ((1, 2), (3, 4))
    check(wt.pad(x, ((1, 2), (2, 1)), constant_values=cv),
          np.pad(a, ((1, 2), (2, 1)), constant_values=cv))
    check(wt.pad(x, 1, constant_values=(7, 8)), np.pad(a, 1, constant_values=(7, 8)))


def test_pad_names_and_errors(backend):
    x = t([1, 2, 3], backend, names=("x",))
    p = wt.pad(x, (1, 2), "reflect")
    assert p.tolist() == [2, 1, 2, 3, 2, 1] and p.names == ("x",)
    assert wt.pad(x, 1).tolist() == [0, 1, 2, 3, 0]
    assert wt.pad(x, 1, "edge").dtype is x.dtype
    with pytest.raises(ValueError, match=r"wt.pad: unsupported mode 'wrap'; use one of "
                                         r"'constant', 'edge'"):
        wt.pad(x, 1, "wrap")
    with pytest.raises(ValueError, match=r"wt.pad: pad_width must be >= 0, got -1"):
        wt.pad(x, -1)
    with pytest.raises(TypeError, match=r"wt.pad: pad_width must be an integer, got 1.5"):
        wt.pad(x, 1.5)
    with pytest.raises(ValueError, match=r"wt.pad: pad_width has 2 entries for a 1-D tensor"):
        wt.pad(x, ((1, 1), (1, 1)))
    with pytest.raises(ValueError, match=r"wt.pad: pad_width entries must be \(before, after\) "
                                         r"pairs, got \(1, 2, 3\)"):
        wt.pad(x, ((1, 2, 3),))
    with pytest.raises(ValueError, match=r"wt.pad: cannot pad the empty axis 0 with mode "
                                         r"'edge'"):
        wt.pad(t([], backend), 1, "edge")
    with pytest.raises(TypeError, match=r"wt.pad: constant_values must be numbers, got 'a'"):
        wt.pad(x, 1, constant_values="a")


# -- rename --------------------------------------------------------------------------------------

def test_rename_and_reshape_names(backend):
    x = t([[1, 2], [3, 4]], backend)
    n = wt.rename(x, ("a", None))
    assert n.names == ("a", None) and shares(n, x) and x.names is None
    assert wt.rename(n, None).names is None
    assert wt.rename(n, (None, None)).names is None
    assert wt.reshape(n, (2, 2)).names == ("a", None)
    assert wt.reshape(n, (4,)).names is None
    with pytest.raises(ValueError, match=r"wt.rename: got 1 axis names \('a',\) for a 2-D "
                                         r"tensor"):
        wt.rename(x, ("a",))
    with pytest.raises(ValueError, match=r"wt.rename: duplicate axis names"):
        wt.rename(x, ("a", "a"))
    with pytest.raises(TypeError, match=r"wt.rename: axis names must be strings or None"):
        wt.rename(x, ("a", 1))


def test_weak_flag_survives_views(backend):
    x = t([[1, 2], [3, 4]], backend)
    assert x.weak
    for v in (wt.reshape(x, 4), wt.transpose(x), wt.flip(x), wt.expand_dims(x, 0),
              wt.squeeze(wt.expand_dims(x, 0)), wt.broadcast_to(x, (3, 2, 2)),
              wt.tile(x, 2), wt.repeat(x, 2), wt.roll(x, 1), wt.pad(x, 1)):
        assert v.weak and v.dtype is x.dtype


# -- assign_into: the in-place operators' write path --------------------------------------------

@SETTINGS
@given(data=st.data())
def test_inplace_operators_write_through_views(backend, data):
    np = _np()
    dt = data.draw(st.sampled_from([wt.int8, wt.uint16, wt.int64, wt.float32, wt.complex64]))
    x, storage, layout = data.draw(tensors(backend, max_dims=3, dtype=dt))
    from _oracle import compute_values

    ref = compute_values(storage, dt).copy()
    x += 1
    with np.errstate(over="ignore"):
        ref += np.asarray(1).astype(ref.dtype)
    check(x, to_storage(ref, dt))


def test_inplace_dtype_rules(backend):
    x = t([1, 2, 3], backend, dtype=wt.int32)
    y = x[1:]
    data = x._data
    x += t([1, 1, 1], backend, dtype=wt.int64)  # same_kind: int64 -> int32 is allowed
    assert x.dtype is wt.int32 and x.tolist() == [2, 3, 4] and x._data is data
    assert y.tolist() == [3, 4]
    y *= 2
    assert x.tolist() == [2, 6, 8]
    with pytest.raises(TypeError, match=r"wt.multiply \(in place\): cannot store a float32 "
                                        r"result into a tensor of dtype int32: float32 -> int32 "
                                        r"is not a 'same_kind' cast.*wt.astype"):
        x *= 1.5
    assert x.tolist() == [2, 6, 8]
    with pytest.raises(ValueError, match=r"wt.add \(in place\): cannot broadcast a value of "
                                         r"shape \(2, 3\) into the target shape \(3,\)"):
        x += t([[1, 2, 3], [4, 5, 6]], backend, dtype=wt.int32)
    assert x.tolist() == [2, 6, 8]
    b = wt.broadcast_to(x, (2, 3))
    with pytest.raises(ValueError, match=r"wt.add \(in place\): the target is a read-only broadcast view"):
        b += 1
    assert x.tolist() == [2, 6, 8]
    f = t([1.5, 2.5], backend, dtype=wt.float16)
    f += t([1, 2], backend, dtype=wt.int64)
    assert f.dtype is wt.float16 and f.tolist() == [2.5, 4.5]
    u = t([1, 2], backend, dtype=wt.uint8)
    with pytest.raises(TypeError, match=r"cannot store a int16 result into a tensor of dtype "
                                        r"uint8"):
        u -= t([1, 1], backend, dtype=wt.int8)
