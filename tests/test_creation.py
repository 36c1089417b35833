"""Creation functions arange, linspace, eye, meshgrid, tril, triu, diag, from_dlpack against
NumPy, on both CPU backends.

Values are compared with NumPy's; dtypes against webtensor's documented rule, not NumPy's 64-bit
defaults: without ``dtype``, ``arange`` gives the default int dtype (int32) for all-int bounds and
the default float dtype (float32) otherwise, ``linspace`` the default float (complex) dtype; the
``numpy`` promotion mode gives int64/float64 as NumPy does.  Error types and messages and small
exact cases run without NumPy (Pyodide).
"""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import webtensor as wt
from _oracle import backend_fixture, bf16_round  # noqa: F401 - registers `backend`

SETTINGS = settings(max_examples=50, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])



def _np():
    return pytest.importorskip("numpy")


def values(t):
    np = _np()
    vals = t.tolist()
    if t.dtype.kind in "fc":
        return np.array(vals, dtype=np.complex128 if t.dtype.kind == "c" else np.float64) \
            .reshape(t.shape)
    return np.array(vals, dtype=object if t.dtype.kind in "iu" else bool).reshape(t.shape)


def rounded(ref, dt):
    """float64 reference values rounded once to ``dt`` (bfloat16 via float32, as webtensor)."""
    np = _np()
    if dt is wt.bfloat16:
        return bf16_round(np.asarray(ref, dtype=np.float32)).astype(np.float64)
    if dt.kind == "c":
        return np.asarray(ref).astype(dt.name).astype(np.complex128)
    return np.asarray(ref).astype(dt.name).astype(np.float64)


# -- arange ------------------------------------------------------------------------------------------

@SETTINGS
@given(start=st.integers(-50, 50), stop=st.integers(-50, 50) | st.none(),
       step=st.integers(-7, 7).filter(bool))
def test_arange_ints_match_numpy(backend, start, stop, step):
    np = _np()
    got = wt.arange(start, stop, step, device=backend)
    ref = np.arange(start, stop, step) if stop is not None else np.arange(0, start, step)
    assert got.dtype is wt.int32 and got.device is backend
    assert got.tolist() == ref.tolist()


@SETTINGS
@given(start=st.floats(-20, 20), stop=st.floats(-20, 20),
       step=st.floats(-3, 3).filter(lambda s: abs(s) > 1e-2),
       dt=st.sampled_from([None, wt.float32, wt.float64, wt.float16, wt.bfloat16]))
def test_arange_floats_match_numpy(backend, start, stop, step, dt):
    np = _np()
    got = wt.arange(start, stop, step, dtype=dt, device=backend)
    ref = np.arange(start, stop, step, dtype=np.float64)
    assert got.dtype is (wt.float32 if dt is None else dt)
    assert got.shape == ref.shape  # length: ceil((stop - start) / step)
    exact = rounded(start + np.arange(ref.size) * step, got.dtype)
    assert np.array_equal(values(got), exact)  # start + i * step, rounded once
    # NumPy steps by (start + step) - start, whose rounding error grows with the index
    eps = wt.finfo(got.dtype).eps
    tol = 2 * eps * (abs(start) + abs(step)) * (ref.size + 1)
    assert np.allclose(values(got), ref, rtol=eps, atol=tol)


@pytest.mark.parametrize("dt", [wt.int8, wt.uint8, wt.int16, wt.uint32, wt.int64, wt.uint64,
                                wt.float16, wt.bfloat16, wt.float64])
def test_arange_explicit_dtypes(backend, dt):
    got = wt.arange(2, 11, 3, dtype=dt, device=backend)
    assert got.dtype is dt and got.tolist() == [2, 5, 8]
    assert wt.arange(5.0, dtype=dt, device=backend).tolist() == [0, 1, 2, 3, 4]


def test_arange_small_and_dtype_rules(backend):
    assert wt.arange(4, device=backend).tolist() == [0, 1, 2, 3]
    assert wt.arange(1, 2, 0.25, device=backend).tolist() == [1.0, 1.25, 1.5, 1.75]
    assert wt.arange(1, 2, 0.25, device=backend).dtype is wt.float32
    assert wt.arange(3.0, device=backend).dtype is wt.float32
    assert wt.arange(10, 0, -3, device=backend).tolist() == [10, 7, 4, 1]
    assert wt.arange(5, 1, device=backend).shape == (0,)
    assert wt.arange(0, device=backend).shape == (0,)
    assert not wt.arange(3, device=backend).weak
    assert wt.arange(wt.asarray(3, device=backend), device=backend).tolist() == [0, 1, 2]
    assert wt.arange(0, 1, 0.1, device=backend).shape == (10,)
    wt.set_default_int_dtype(wt.int64)
    assert wt.arange(3, device=backend).dtype is wt.int64
    with wt.promotion_mode("numpy"):
        assert wt.arange(3, device=backend).dtype is wt.int64
        assert wt.arange(3.0, device=backend).dtype is wt.float64
    big = 2 ** 40
    assert wt.arange(big, big + 2, dtype=wt.int64, device=backend).tolist() == [big, big + 1]


def test_arange_errors(backend):
    with pytest.raises(ValueError, match=r"wt.arange: step must not be zero"):
        wt.arange(0, 5, 0)
    with pytest.raises(TypeError, match=r"wt.arange: start must be real, got the complex 1j"):
        wt.arange(1j)
    with pytest.raises(TypeError, match=r"wt.arange: stop must be an int or a float, got 'a'"):
        wt.arange(0, "a")
    with pytest.raises(TypeError, match=r"wt.arange: start must be an int or a float, got True"):
        wt.arange(True)
    with pytest.raises(TypeError, match=r"wt.arange: dtype bool is not supported"):
        wt.arange(3, dtype=wt.bool)
    with pytest.raises(TypeError, match=r"wt.arange: dtype complex64 is not supported"):
        wt.arange(3, dtype=wt.complex64)
    with pytest.raises(TypeError, match=r"wt.arange: integer dtype int32 with non-integer bounds "
                                        r"\(start=0, stop=2.5, step=1\)"):
        wt.arange(0, 2.5, dtype=wt.int32)
    with pytest.raises(ValueError, match=r"wt.arange: \(stop - start\) / step is inf"):
        wt.arange(0, math.inf, 1.0)
    with pytest.raises(ValueError, match=r"wt.arange: \(stop - start\) / step is nan"):
        wt.arange(0, math.nan, 1.0)
    with pytest.raises(OverflowError, match=r"wt.arange: value 299 does not fit int8 "
                                            r"\[-128, 127\]; pass a wider dtype"):
        wt.arange(0, 300, dtype=wt.int8)
    with pytest.raises(TypeError, match=r"wt.arange: start must be a scalar, got a tensor of "
                                        r"shape \(2,\)"):
        wt.arange(wt.asarray([1, 2], device=backend))


# -- linspace ----------------------------------------------------------------------------------------

@SETTINGS
@given(start=st.floats(-1e3, 1e3), stop=st.floats(-1e3, 1e3), num=st.integers(0, 20),
       endpoint=st.booleans(),
       dt=st.sampled_from([None, wt.float32, wt.float64, wt.float16, wt.bfloat16]))
def test_linspace_matches_numpy(backend, start, stop, num, endpoint, dt):
    np = _np()
    got = wt.linspace(start, stop, num, dtype=dt, endpoint=endpoint, device=backend)
    ref = np.linspace(start, stop, num, endpoint=endpoint)  # float64, then rounded once
    assert got.dtype is (wt.float32 if dt is None else dt)
    assert got.shape == (num,)
    assert np.array_equal(values(got), rounded(ref, got.dtype))


@SETTINGS
@given(start=st.complex_numbers(max_magnitude=100), stop=st.complex_numbers(max_magnitude=100),
       num=st.integers(0, 8), endpoint=st.booleans())
def test_linspace_complex_matches_numpy(backend, start, stop, num, endpoint):
    np = _np()
    got = wt.linspace(start, stop, num, endpoint=endpoint, device=backend)
    ref = np.linspace(start, stop, num, endpoint=endpoint)
    assert got.dtype is wt.complex64
    assert np.allclose(values(got), rounded(ref, wt.complex64), rtol=1e-6, atol=1e-5)
    got128 = wt.linspace(start, stop, num, endpoint=endpoint, dtype=wt.complex128,
                         device=backend)
    assert np.allclose(values(got128), ref, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dt", [wt.int32, wt.int8, wt.uint8, wt.int64])
def test_linspace_integer_dtype_floors(backend, dt):
    np = _np()
    lo = 0 if dt.kind == "u" else -5
    got = wt.linspace(lo, 7, 9, dtype=dt, device=backend)
    ref = np.linspace(lo, 7, 9, dtype=np.dtype(dt.name))
    assert got.dtype is dt and got.tolist() == ref.tolist()


def test_linspace_small_and_rules(backend):
    assert wt.linspace(0, 1, 5, device=backend).tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert wt.linspace(0, 1, 4, endpoint=False, device=backend).tolist() == [0.0, 0.25, 0.5,
                                                                             0.75]
    assert wt.linspace(2, 3, 1, device=backend).tolist() == [2.0]
    assert wt.linspace(2, 3, 0, device=backend).shape == (0,)
    assert wt.linspace(3, 3, 3, device=backend).tolist() == [3.0, 3.0, 3.0]
    assert wt.linspace(-1, 2, 4, dtype=wt.int32, device=backend).tolist() == [-1, 0, 1, 2]
    assert wt.linspace(0, 1j, 3, device=backend).tolist() == [0j, 0.5j, 1j]
    assert wt.linspace(0, 0.1, 3, device=backend).tolist()[-1] == wt.asarray(
        0.1, dtype=wt.float32).item()  # the endpoint is exactly stop
    with wt.promotion_mode("numpy"):
        assert wt.linspace(0, 1, 3, device=backend).dtype is wt.float64
        assert wt.linspace(0, 1j, 3, device=backend).dtype is wt.complex128
    assert wt.linspace(wt.asarray(1.0, device=backend), 2, 2, device=backend).tolist() == \
        [1.0, 2.0]


def test_linspace_errors():
    with pytest.raises(ValueError, match=r"wt.linspace: num must be >= 0, got -1"):
        wt.linspace(0, 1, -1)
    with pytest.raises(TypeError, match=r"wt.linspace: num must be an integer, got 2.5"):
        wt.linspace(0, 1, 2.5)
    with pytest.raises(TypeError, match=r"wt.linspace: num must be an integer, got True"):
        wt.linspace(0, 1, True)
    with pytest.raises(TypeError, match=r"wt.linspace: complex bounds need a complex dtype, got "
                                        r"float32"):
        wt.linspace(0, 1j, 3, dtype=wt.float32)
    with pytest.raises(TypeError, match=r"wt.linspace: dtype bool is not supported"):
        wt.linspace(0, 1, 3, dtype=wt.bool)
    with pytest.raises(TypeError, match=r"wt.linspace: stop must be an int or a float, got None"):
        wt.linspace(0, None, 3)


# -- eye / diag ----------------------------------------------------------------------------------------

@SETTINGS
@given(n=st.integers(0, 5), m=st.integers(0, 5) | st.none(), k=st.integers(-6, 6),
       dt=st.sampled_from([None, wt.bool, wt.int8, wt.uint16, wt.float16, wt.bfloat16,
                           wt.float64, wt.complex64]))
def test_eye_matches_numpy(backend, n, m, k, dt):
    np = _np()
    got = wt.eye(n, m, k=k, dtype=dt, device=backend)
    ref = np.eye(n, m, k=k)
    assert got.dtype is (wt.float32 if dt is None else dt)
    assert got.shape == ref.shape
    assert np.array_equal(values(got).astype(np.complex128), ref)


def test_eye_small_and_errors(backend):
    assert wt.eye(2, device=backend).tolist() == [[1.0, 0.0], [0.0, 1.0]]
    assert wt.eye(2, 3, k=1, dtype=wt.int32, device=backend).tolist() == [[0, 1, 0], [0, 0, 1]]
    assert wt.eye(3, k=-2, dtype=wt.bool, device=backend).tolist() == [
        [False, False, False], [False, False, False], [True, False, False]]
    with pytest.raises(ValueError, match=r"wt.eye: negative dimensions \(-1, 2\) are not "
                                         r"allowed"):
        wt.eye(-1, 2)
    with pytest.raises(TypeError, match=r"wt.eye: expected an integer, got 2.0"):
        wt.eye(2.0)
    with pytest.raises(TypeError, match=r"wt.eye: expected an integer, got the bool True"):
        wt.eye(2, k=True)


@SETTINGS
@given(n=st.integers(0, 4), m=st.integers(0, 4), k=st.integers(-5, 5), one_d=st.booleans())
def test_diag_matches_numpy(backend, n, m, k, one_d):
    np = _np()
    arr = np.arange(n if one_d else n * m, dtype=np.int16)
    if not one_d:
        arr = arr.reshape(n, m)
    x = wt.asarray(arr, device=backend)
    got = wt.diag(x, k)
    ref = np.diag(arr, k)
    assert got.dtype is wt.int16 and got.shape == ref.shape
    assert got.tolist() == ref.tolist()
    if not one_d:
        assert got._data is x._data  # the diagonal of a matrix is a view


def test_diag_small_and_errors(backend):
    v = wt.asarray([1, 2], device=backend)
    assert wt.diag(v).tolist() == [[1, 0], [0, 2]]
    assert wt.diag(v, k=-1).tolist() == [[0, 0, 0], [1, 0, 0], [0, 2, 0]]
    assert wt.diag(v).weak and wt.diag(v).dtype is wt.int32
    assert wt.diag(wt.asarray([[1, 2], [3, 4]], device=backend)).tolist() == [1, 4]
    with pytest.raises(ValueError, match=r"wt.diag: expects a 1-D or 2-D input, got shape "
                                         r"\(1, 1, 1\)"):
        wt.diag(wt.ones((1, 1, 1), device=backend))
    with pytest.raises(ValueError, match=r"wt.diag: expects a 1-D or 2-D input, got shape \(\)"):
        wt.diag(wt.asarray(1, device=backend))


# -- meshgrid ------------------------------------------------------------------------------------------

@SETTINGS
@given(sizes=st.lists(st.integers(0, 4), min_size=0, max_size=4),
       indexing=st.sampled_from(["xy", "ij"]),
       dts=st.lists(st.sampled_from([wt.int32, wt.float32, wt.uint8, wt.complex64, wt.bool]),
                    min_size=4, max_size=4))
def test_meshgrid_matches_numpy(backend, sizes, indexing, dts):
    np = _np()
    arrs = [np.arange(n).astype(dt.name if dt is not wt.bool else bool) % 2
            if dt is wt.bool else np.arange(n).astype(dt.name)
            for n, dt in zip(sizes, dts)]
    tens = [wt.asarray(a, device=backend) for a in arrs]
    got = wt.meshgrid(*tens, indexing=indexing)
    ref = np.meshgrid(*arrs, indexing=indexing)
    assert isinstance(got, list) and len(got) == len(ref)
    for g, r, t in zip(got, ref, tens):
        assert g.dtype is t.dtype and g.shape == r.shape
        assert g.tolist() == r.tolist()
        assert g._data is not t._data  # fresh copies, as NumPy's copy=True


def test_meshgrid_small_and_errors(backend):
    x = wt.asarray([1, 2, 3], device=backend)
    y = wt.asarray([4.0, 5.0], device=backend)
    gx, gy = wt.meshgrid(x, y)
    assert gx.tolist() == [[1, 2, 3], [1, 2, 3]]
    assert gy.tolist() == [[4.0, 4.0, 4.0], [5.0, 5.0, 5.0]]
    gx, gy = wt.meshgrid(x, y, indexing="ij")
    assert gx.shape == (3, 2) and gy.tolist() == [[4.0, 5.0]] * 3
    assert wt.meshgrid() == []
    (only,) = wt.meshgrid(x)
    assert only.tolist() == [1, 2, 3] and only._data is not x._data
    with pytest.raises(ValueError, match=r"wt.meshgrid: indexing='yx' is not understood; "
                                         r"use one of 'xy', 'ij'"):
        wt.meshgrid(x, indexing="yx")
    with pytest.raises(ValueError, match=r"wt.meshgrid: every input must be 1-D, argument 1 has "
                                         r"shape \(1, 2\)"):
        wt.meshgrid(x, wt.ones((1, 2), device=backend))


# -- tril / triu -------------------------------------------------------------------------------------

@SETTINGS
@given(shape=st.lists(st.integers(0, 4), min_size=2, max_size=4).map(tuple),
       k=st.integers(-5, 5),
       dt=st.sampled_from([wt.bool, wt.int8, wt.uint64, wt.float16, wt.bfloat16, wt.float32,
                           wt.complex128]))
def test_tril_triu_match_numpy(backend, shape, k, dt):
    np = _np()
    arr = (np.arange(math.prod(shape)) % 7 + 1).reshape(shape)
    if dt is wt.bool:
        arr = arr % 2 == 1
    x = wt.astype(wt.asarray(arr, device=backend), dt)
    for fn, ref_fn in ((wt.tril, np.tril), (wt.triu, np.triu)):
        got = fn(x, k=k)
        ref = ref_fn(arr, k=k)
        assert got.dtype is dt and got.shape == ref.shape
        assert np.array_equal(values(got).astype(np.complex128 if dt.kind in "fc" else
                                                 ref.dtype), ref)


def test_tril_triu_small_names_weak_and_errors(backend):
    m = wt.asarray([[1, 2, 3], [4, 5, 6]], device=backend)
    assert wt.tril(m).tolist() == [[1, 0, 0], [4, 5, 0]]
    assert wt.triu(m).tolist() == [[1, 2, 3], [0, 5, 6]]
    assert wt.triu(m, k=1).tolist() == [[0, 2, 3], [0, 0, 6]]
    assert wt.tril(m, k=-1).tolist() == [[0, 0, 0], [4, 0, 0]]
    assert wt.tril(m).weak and wt.tril(m).dtype is wt.int32
    named = wt.ones((2, 2), device=backend, names=("r", "c"))
    assert wt.triu(named).names == ("r", "c")
    view = wt.matrix_transpose(wt.asarray([[1, 2], [3, 4]], device=backend))
    assert wt.tril(view).tolist() == [[1, 0], [2, 4]]
    with pytest.raises(ValueError, match=r"wt.tril: needs at least 2 dimensions, got shape "
                                         r"\(3,\)"):
        wt.tril(wt.ones(3, device=backend))
    with pytest.raises(ValueError, match=r"wt.triu: needs at least 2 dimensions"):
        wt.triu(wt.asarray(1, device=backend))
    with pytest.raises(TypeError, match=r"wt.triu: expected an integer, got 0.5"):
        wt.triu(m, k=0.5)


# -- from_dlpack -------------------------------------------------------------------------------------

def test_from_dlpack(backend):
    np = _np()
    arr = np.arange(6, dtype=np.float32).reshape(2, 3)
    got = wt.from_dlpack(arr, device=backend)
    assert got.dtype is wt.float32 and got.tolist() == arr.tolist() and got.device is backend
    t = wt.asarray([1, 2], device=backend)
    assert wt.from_dlpack(t) is t
    assert wt.from_dlpack(t, copy=True)._data is not t._data
    if backend.backend.name == "numpy":  # shared memory (tests/test_dlpack.py has the rest)
        assert wt.from_dlpack(arr, copy=False, device=backend).tolist() == arr.tolist()
    else:
        with pytest.raises(BufferError, match=r"wt.from_dlpack: copy=False is impossible"):
            wt.from_dlpack(arr, copy=False, device=backend)


def test_from_dlpack_errors():
    with pytest.raises(TypeError, match=r"wt.from_dlpack: list does not support DLPack \(no "
                                        r"__dlpack__\); use wt.asarray"):
        wt.from_dlpack([1, 2])

    class Broken:
        def __dlpack__(self, *a, **k):
            raise BufferError("nope")

        def __dlpack_device__(self):
            return (1, 0)

    with pytest.raises(BufferError, match=r"wt.from_dlpack: Broken cannot export its data to "
                                          r"the cpu \(nope\)"):
        wt.from_dlpack(Broken())


def test_namespace_has_creation_functions():
    for name in ("arange", "linspace", "eye", "meshgrid", "tril", "triu", "from_dlpack", "diag"):
        assert callable(getattr(wt, name)), name
