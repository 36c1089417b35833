"""Linear algebra (webtensor.api.linalg and the wt.linalg extension) against NumPy, on both CPU
backends.

Contractions (matmul, tensordot, einsum, vecdot...) are checked across dtypes: integers exactly
(with wraparound, computed independently on Python ints), bool exactly, floats within a normwise
bound ``c * k * eps * (|a| @ |b|)`` of the float64 result.  The decompositions run twice on the
NumPy backend (numpy.linalg fast path and the pure-Python kernels) and once on the pure-Python
backend; they are compared to numpy.linalg in float64 (values) or checked by their defining
properties where the answer is only unique up to sign (eigenvectors, singular vectors).  Error
types and messages, and a few exact small cases, run without NumPy (Pyodide).
"""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import webtensor as wt
import webtensor.linalg as LA
from _oracle import DEVICES, backend_fixture, bf16_round, broadcast_pairs  # noqa: F401

SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])

DTYPES = [wt.bool, wt.int8, wt.uint8, wt.int32, wt.uint32, wt.int64, wt.uint64, wt.float16,
          wt.bfloat16, wt.float32, wt.float64, wt.complex64, wt.complex128]
dtypes = st.sampled_from(DTYPES)


def _np():
    return pytest.importorskip("numpy")



# -- helpers ----------------------------------------------------------------------------------------

def rand(shape, dt, seed, lo=-4.0, hi=4.0):
    """Random values exactly representable in ``dt`` (a NumPy array NumPy computes with)."""
    np = _np()
    rng = np.random.default_rng(seed)
    shape = tuple(shape)
    if dt is wt.bool:
        return rng.integers(0, 2, shape).astype(bool)
    if dt.kind in "iu":
        info = wt.iinfo(dt)
        return rng.integers(info.min, info.max, size=shape, dtype=np.dtype(dt.name),
                            endpoint=True)
    if dt.kind == "c":
        part = dt.real_dtype
        return rand(shape, part, seed, lo, hi) + 1j * rand(shape, part, seed + 1, lo, hi)
    vals = rng.uniform(lo, hi, shape)
    if dt is wt.bfloat16:
        return bf16_round(vals.astype(np.float32))
    return vals.astype(np.dtype(dt.name))


def tens(arr, dt, device):
    t = wt.asarray(arr, device=device)
    return t if t.dtype is dt else wt.astype(t, dt)


def values(t):
    """A tensor's values as float64/complex128/int/bool NumPy arrays."""
    np = _np()
    if t.dtype is wt.bfloat16:  # (np.asarray of a 0-d bfloat16 tensor trips _numpy_interop)
        return np.array(t.tolist(), dtype=np.float64).reshape(t.shape)
    arr = np.asarray(t)
    if t.dtype.kind == "f":
        return arr.astype(np.float64)
    if t.dtype.kind == "c":
        return arr.astype(np.complex128)
    return arr


def hi_prec(arr):
    np = _np()
    return arr.astype(np.complex128 if arr.dtype.kind == "c" else np.float64)


def int_matmul(a, b, dt):
    """Exact integer matmul with two's complement wraparound, on Python ints."""
    np = _np()
    res = np.matmul(a.astype(object), b.astype(object))
    bits = dt.bits
    mod = 1 << bits

    def wrap(v):
        v = int(v) % mod
        return v - mod if dt.kind == "i" and v >= mod // 2 else v

    res = np.asarray(res, dtype=object)
    return np.vectorize(wrap, otypes=[object])(res).astype(np.dtype(dt.name)) \
        if res.size else np.zeros(res.shape, np.dtype(dt.name))


def assert_contraction(got, ref, bound, dt, k):
    """Exact for ints/bool; floats within ``(2k + 4) * eps * bound`` (normwise per element)."""
    np = _np()
    assert got.dtype is dt, (got.dtype, dt)
    g = values(got)
    assert g.shape == np.shape(ref), (g.shape, np.shape(ref))
    if dt.kind in "biu":
        assert np.array_equal(g, ref), (g, ref)
        return
    eps = wt.finfo(dt).eps
    tol = (2 * k + 4) * eps * np.asarray(bound) + 1e-30
    err = np.abs(g - ref)
    assert np.all(err <= tol), (g, ref, err.max())


def ref_matmul(a, b, dt):
    np = _np()
    if dt.kind in "iu":
        return int_matmul(a, b, dt), None
    if dt is wt.bool:
        return np.matmul(a, b), None
    return np.matmul(hi_prec(a), hi_prec(b)), np.matmul(np.abs(hi_prec(a)), np.abs(hi_prec(b)))


# -- matmul ------------------------------------------------------------------------------------------

@st.composite
def matmul_shapes(draw):
    ba, bb = draw(broadcast_pairs(max_dims=2, max_side=3))
    m, k, n = (draw(st.integers(0, 4)) for _ in range(3))
    a_shape = (k,) if draw(st.integers(0, 4)) == 0 else ba + (m, k)
    b_shape = (k,) if draw(st.integers(0, 4)) == 0 else bb + (k, n)
    return a_shape, b_shape


@SETTINGS
@given(shapes=matmul_shapes(), dt=dtypes, seed=st.integers(0, 2 ** 31))
def test_matmul_matches_numpy(backend, shapes, dt, seed):
    np = _np()
    a_shape, b_shape = shapes
    a, b = rand(a_shape, dt, seed), rand(b_shape, dt, seed + 7)
    x, y = tens(a, dt, backend), tens(b, dt, backend)
    got = wt.matmul(x, y)
    ref, bound = ref_matmul(a, b, dt)
    assert got.shape == np.matmul(a, b).shape
    assert_contraction(got, ref, bound, dt, a_shape[-1])
    assert_contraction(x @ y, ref, bound, dt, a_shape[-1])


@pytest.mark.parametrize("dt1,dt2", [(wt.int8, wt.float32), (wt.uint8, wt.int8),
                                     (wt.float16, wt.bfloat16), (wt.float32, wt.complex64),
                                     (wt.bool, wt.int16)])
def test_matmul_promotes(backend, dt1, dt2):
    x = wt.ones((2, 3), dtype=dt1, device=backend)
    y = wt.ones((3, 2), dtype=dt2, device=backend)
    got = wt.matmul(x, y)
    assert got.dtype is wt.result_type(dt1, dt2)
    assert got.tolist() == [[3, 3], [3, 3]]


def test_matmul_small_exact_and_weak(backend):
    x = wt.asarray([[1, 2], [3, 4]], dtype=wt.int32, device=backend)
    assert wt.matmul(x, x).tolist() == [[7, 10], [15, 22]]
    if backend is wt.default_device():  # (lists become tensors on the default device)
        assert (x @ [5, 6]).tolist() == [17, 39]
        assert ([1, 1] @ x).tolist() == [4, 6]
        assert wt.matmul([1, 2, 3], [4, 5, 6]).item() == 32
        assert (x @ wt.asarray([[1], [2]])).dtype is wt.int32  # a weak list defers
    w = wt.asarray([[1.5, 2.0]], device=backend)  # weak float32
    r = w @ wt.asarray([[2.0], [1.0]], device=backend)
    assert r.weak and r.dtype is wt.float32 and r.tolist() == [[5.0]]
    assert not (x @ x).weak
    # bool: OR of ANDs, as NumPy
    b = wt.asarray([[True, False], [False, False]], device=backend)
    assert (b @ b).tolist() == [[True, False], [False, False]]
    assert (b @ b).dtype is wt.bool
    # k == 0 gives zeros, size-0 outputs work
    e = wt.matmul(wt.ones((2, 0), device=backend), wt.ones((0, 3), device=backend))
    assert e.shape == (2, 3) and e.tolist() == [[0.0] * 3] * 2
    assert wt.matmul(wt.ones((0, 2), device=backend), wt.ones((2, 3), device=backend)).shape \
        == (0, 3)


def test_matmul_int_wraparound(backend):
    x = wt.asarray([[100, 100]], dtype=wt.int8, device=backend)
    y = wt.asarray([[1], [1]], dtype=wt.int8, device=backend)
    assert (x @ y).tolist() == [[-56]]
    u = wt.asarray([[2 ** 63, 2 ** 63]], dtype=wt.uint64, device=backend)
    assert (u @ wt.asarray([[1], [1]], dtype=wt.uint64, device=backend)).tolist() == [[0]]


def test_matmul_batch_broadcast_and_strided_views(backend):
    np = _np()
    a = rand((3, 1, 2, 4), wt.float64, 1)
    b = rand((5, 4, 3), wt.float64, 2)
    x = tens(a, wt.float64, backend)
    y = tens(b, wt.float64, backend)
    got = values(wt.matmul(x, y))
    assert np.allclose(got, a @ b)
    # transposed and sliced views as operands
    xt = wt.matrix_transpose(tens(np.swapaxes(a, -1, -2).copy(), wt.float64, backend))
    assert np.allclose(values(wt.matmul(xt, y)), a @ b)
    yy = tens(b, wt.float64, backend)[:, ::-1, :]
    assert np.allclose(values(wt.matmul(x, yy)), a @ b[:, ::-1, :])


def test_matmul_names(backend):
    x = wt.ones((2, 3, 4), device=backend, names=("batch", "rows", None))
    y = wt.ones((4, 5), device=backend, names=(None, "cols"))
    assert wt.matmul(x, y).names == ("batch", "rows", "cols")
    assert wt.matmul(y.mT, x.mT).names == ("batch", "cols", "rows")


def test_matmul_errors(backend):
    x = wt.ones((2, 3), device=backend)
    with pytest.raises(ValueError, match=r"wt.matmul: shapes \(2, 3\) and \(4, 5\) are not "
                                         r"aligned: x1's last dimension \(3\) must equal x2's "
                                         r"second-to-last dimension \(4\)"):
        wt.matmul(x, wt.ones((4, 5), device=backend))
    with pytest.raises(ValueError, match=r"shapes \(2, 3\) and \(4,\) are not aligned.*x2's "
                                         r"only dimension \(4\)"):
        wt.matmul(x, wt.ones((4,), device=backend))
    with pytest.raises(ValueError, match=r"wt.matmul: x1 is 0-d \(shapes \(\) and \(2, 3\)\); "
                                         r".*use wt.multiply"):
        wt.matmul(wt.asarray(2.0, device=backend), x)
    with pytest.raises(ValueError, match=r"wt.matmul: x2 is 0-d"):
        wt.matmul(x, 2)
    with pytest.raises(ValueError, match=r"wt.matmul: shapes \(2, 2, 3\) and \(3, 3, 4\) have "
                                         r"batch dimensions \(2,\) and \(3,\) that cannot be "
                                         r"broadcast"):
        wt.matmul(wt.ones((2, 2, 3), device=backend), wt.ones((3, 3, 4), device=backend))
    with pytest.raises(TypeError, match=r"wt.matmul"):
        wt.matmul(x, object())


def test_matrix_transpose_is_a_view(backend):
    x = wt.asarray([[[1, 2, 3], [4, 5, 6]]], device=backend, names=("b", "r", "c"))
    t = wt.matrix_transpose(x)
    assert t.shape == (1, 3, 2) and t._data is x._data
    assert t.tolist() == [[[1, 4], [2, 5], [3, 6]]]
    assert t.names == ("b", "c", "r")
    assert x.mT.tolist() == t.tolist()
    assert LA.matrix_transpose(x).tolist() == t.tolist()
    with pytest.raises(ValueError, match=r"wt.matrix_transpose: needs at least 2 dimensions, "
                                         r"got shape \(3,\)"):
        wt.matrix_transpose(wt.ones(3, device=backend))


# -- tensordot / vecdot / inner / dot / outer ---------------------------------------------------------

@st.composite
def tensordot_case(draw):
    n = draw(st.integers(0, 2))
    shared = tuple(draw(st.integers(0, 3)) for _ in range(n))
    free_a = tuple(draw(st.integers(0, 3)) for _ in range(draw(st.integers(0, 2))))
    free_b = tuple(draw(st.integers(0, 3)) for _ in range(draw(st.integers(0, 2))))
    if draw(st.booleans()):
        return free_a + shared, shared + free_b, n
    # explicit axes in a shuffled order
    a_dims = list(range(len(free_a) + n))
    perm_a = draw(st.permutations(a_dims))
    a_shape = [0] * len(a_dims)
    src = list(free_a) + list(shared)
    for i, p in enumerate(perm_a):
        a_shape[p] = src[i]
    a_axes = [perm_a[len(free_a) + j] for j in range(n)]
    b_dims = list(range(len(free_b) + n))
    perm_b = draw(st.permutations(b_dims))
    b_shape = [0] * len(b_dims)
    srcb = list(shared) + list(free_b)
    for i, p in enumerate(perm_b):
        b_shape[p] = srcb[i]
    b_axes = [perm_b[j] for j in range(n)]
    neg = draw(st.booleans())
    if neg:
        a_axes = [x - len(a_shape) for x in a_axes]
    return tuple(a_shape), tuple(b_shape), (a_axes, b_axes)


@SETTINGS
@given(case=tensordot_case(), dt=dtypes, seed=st.integers(0, 2 ** 31))
def test_tensordot_matches_numpy(backend, case, dt, seed):
    np = _np()
    a_shape, b_shape, axes = case
    a, b = rand(a_shape, dt, seed), rand(b_shape, dt, seed + 3)
    got = wt.tensordot(tens(a, dt, backend), tens(b, dt, backend), axes=axes)
    if dt.kind in "iu":
        ref = np.tensordot(a.astype(object), b.astype(object), axes=axes)
        mod = 1 << dt.bits
        ref = np.asarray([(int(v) % mod) - (mod if dt.kind == "i" and int(v) % mod >= mod // 2
                                            else 0) for v in np.ravel(ref)], dtype=object)
        ref = ref.astype(np.dtype(dt.name)).reshape(np.tensordot(a, b, axes=axes).shape)
        assert_contraction(got, ref, None, dt, 0)
        return
    if dt is wt.bool:
        ref = np.tensordot(a.astype(np.int64), b.astype(np.int64), axes=axes) != 0
        assert_contraction(got, ref, None, dt, 0)
        return
    ref = np.tensordot(hi_prec(a), hi_prec(b), axes=axes)
    bound = np.tensordot(np.abs(hi_prec(a)), np.abs(hi_prec(b)), axes=axes)
    k = math.prod(a.shape) // max(1, math.prod(ref.shape)) if ref.size else 0
    assert_contraction(got, ref, bound, dt, max(k, 1) * 4)


def test_tensordot_errors(backend):
    a = wt.ones((2, 3), device=backend)
    b = wt.ones((3, 4), device=backend)
    with pytest.raises(ValueError, match=r"wt.tensordot: axes must be >= 0, got -1"):
        wt.tensordot(a, b, axes=-1)
    with pytest.raises(ValueError, match=r"cannot contract 3 axes of shapes \(2, 3\) and "
                                         r"\(3, 4\)"):
        wt.tensordot(a, b, axes=3)
    with pytest.raises(ValueError, match=r"wt.tensordot: shape mismatch for the contraction: "
                                         r"x1 axis 1 has size 3 but x2 axis 1 has size 4"):
        wt.tensordot(a, b, axes=([1], [1]))
    with pytest.raises(ValueError, match=r"got 2 axes for x1 but 1 for x2"):
        wt.tensordot(a, b, axes=([0, 1], [0]))
    with pytest.raises(ValueError, match=r"repeated axis"):
        wt.tensordot(a, b, axes=([1, 1], [0, 0]))
    with pytest.raises(ValueError, match=r"wt.tensordot: axis 5 is out of bounds"):
        wt.tensordot(a, b, axes=([5], [0]))
    with pytest.raises(TypeError, match=r"wt.tensordot: axes must be an int or a pair"):
        wt.tensordot(a, b, axes=True)
    with pytest.raises(TypeError, match=r"wt.tensordot: axes must be an int or a pair"):
        wt.tensordot(a, b, axes=([0], [1], [2]))
    assert wt.tensordot(a, b, axes=1).tolist() == [[3.0] * 4] * 2
    assert wt.tensordot(a, b, axes=0).shape == (2, 3, 3, 4)


@SETTINGS
@given(shapes=broadcast_pairs(max_dims=3, max_side=3), k=st.integers(0, 4),
       dt=st.sampled_from([wt.int16, wt.uint8, wt.float32, wt.float16, wt.complex64,
                           wt.complex128, wt.bool]),
       seed=st.integers(0, 2 ** 31), axis=st.sampled_from([-1, -2]))
def test_vecdot_matches_numpy(backend, shapes, k, dt, seed, axis):
    np = _np()
    sa, sb = shapes
    if axis == -2 and (len(sa) == 0 or len(sb) == 0):
        axis = -1
    sa = sa[:len(sa) + 1 + axis] + (k,) + sa[len(sa) + 1 + axis:]
    sb = sb[:len(sb) + 1 + axis] + (k,) + sb[len(sb) + 1 + axis:]
    a, b = rand(sa, dt, seed), rand(sb, dt, seed + 1)
    got = wt.vecdot(tens(a, dt, backend), tens(b, dt, backend), axis=axis)
    if dt.kind in "iu":
        ref = np.sum(np.conj(a).astype(np.int64) * b.astype(np.int64), axis=axis)
        ref = ref.astype(np.dtype(dt.name))
        assert_contraction(got, ref, None, dt, 0)
        return
    if dt is wt.bool:
        assert_contraction(got, np.any(a & b, axis=axis), None, dt, 0)
        return
    ref = np.sum(np.conj(hi_prec(a)) * hi_prec(b), axis=axis)
    bound = np.sum(np.abs(hi_prec(a)) * np.abs(hi_prec(b)), axis=axis)
    assert_contraction(got, ref, bound, dt, k)


def test_vecdot_conjugates_and_errors(backend):
    x = wt.asarray([1j, 2], device=backend)
    assert wt.vecdot(x, x).item() == 5
    assert LA.vecdot(x, wt.asarray([1, 1j], device=backend)).item() == -1j + 2j
    a = wt.ones((2, 3), device=backend)
    with pytest.raises(ValueError, match=r"wt.vecdot: the vectors along axis -1 have sizes 3 "
                                         r"and 4"):
        wt.vecdot(a, wt.ones((2, 4), device=backend))
    with pytest.raises(ValueError, match=r"wt.vecdot: axis -3 must lie in \[-2, -1\]"):
        wt.vecdot(a, a, axis=-3)
    with pytest.raises(ValueError, match=r"wt.vecdot: axis 2 is out of bounds"):
        wt.vecdot(a, a, axis=2)
    with pytest.raises(ValueError, match=r"wt.vecdot: needs at least 1-D operands"):
        wt.vecdot(wt.asarray(1.0, device=backend), a)
    with pytest.raises(TypeError, match=r"wt.vecdot: axis must be an int"):
        wt.vecdot(a, a, axis=1.0)
    assert wt.vecdot(a, a, axis=0).tolist() == [2.0, 2.0, 2.0]


def test_inner_dot_vdot_outer_kron(backend):
    np = _np()
    dt = wt.float64
    a = rand((2, 3), dt, 1)
    b = rand((4, 3), dt, 2)
    c = rand((3, 5), dt, 3)
    v = rand((3,), dt, 4)
    A, B, C, V = (tens(x, dt, backend) for x in (a, b, c, v))
    assert np.allclose(values(wt.inner(A, B)), np.inner(a, b))
    assert np.allclose(values(wt.inner(V, V)), np.inner(v, v))
    assert np.allclose(values(wt.inner(A, 2.0)), np.inner(a, 2.0))
    assert np.allclose(values(wt.dot(A, C)), np.dot(a, c))
    assert np.allclose(values(wt.dot(A, V)), np.dot(a, v))
    assert np.allclose(values(wt.dot(V, V)), np.dot(v, v))
    d3 = rand((2, 3, 4), dt, 5)
    assert np.allclose(values(wt.dot(A, tens(d3, dt, backend))), np.dot(a, d3))
    zc = rand((2, 2), wt.complex128, 6)
    Z = tens(zc, wt.complex128, backend)
    assert np.allclose(values(wt.vdot(Z, Z)), np.vdot(zc, zc))
    assert np.allclose(values(wt.outer(A, V)), np.outer(a, v))
    assert np.allclose(values(LA.outer(V, V)), np.outer(v, v))
    assert np.allclose(values(wt.kron(A, C)), np.kron(a, c))
    assert np.allclose(values(wt.kron(V, A)), np.kron(v, a))
    ki = wt.kron(wt.asarray([[1, 2]], dtype=wt.int8, device=backend),
                 wt.asarray([[1], [3]], dtype=wt.int8, device=backend))
    assert ki.dtype is wt.int8 and ki.tolist() == [[1, 2], [3, 6]]
    assert wt.outer(wt.asarray([True, False], device=backend),
                    wt.asarray([True], device=backend)).tolist() == [[True], [False]]
    with pytest.raises(ValueError, match=r"wt.linalg.outer: expects two 1-D tensors, got shapes "
                                         r"\(2, 3\) and \(3,\)"):
        LA.outer(A, V)
    with pytest.raises(ValueError, match=r"wt.inner: the last dimensions differ"):
        wt.inner(A, C)
    with pytest.raises(ValueError, match=r"wt.dot: shapes \(2, 3\) and \(4, 3\) are not "
                                         r"aligned"):
        wt.dot(A, B)
    with pytest.raises(ValueError, match=r"wt.vdot: the inputs have 6 and 3 elements"):
        wt.vdot(A, V)


@SETTINGS
@given(shapes=broadcast_pairs(max_dims=2, max_side=3),
       dt=st.sampled_from([wt.int32, wt.float32, wt.float64, wt.complex128]),
       seed=st.integers(0, 2 ** 31), axis=st.sampled_from([-1, 0]))
def test_cross_matches_numpy(backend, shapes, dt, seed, axis):
    np = _np()
    sa, sb = shapes
    if axis == 0:
        n = max(len(sa), len(sb))
        sa = (1,) * (n - len(sa)) + sa
        sb = (1,) * (n - len(sb)) + sb
        sa, sb = (3,) + sa, (3,) + sb
    else:
        sa, sb = sa + (3,), sb + (3,)
    a, b = rand(sa, dt, seed, -50, 50), rand(sb, dt, seed + 1, -50, 50)
    if dt.kind == "i":
        a, b = a // 2 ** 16, b // 2 ** 16  # keep products in range
        a, b = a.astype(np.int32), b.astype(np.int32)
    got = LA.cross(tens(a, dt, backend), tens(b, dt, backend), axis=axis)
    ref = np.cross(hi_prec(a) if dt.kind != "i" else a, hi_prec(b) if dt.kind != "i" else b,
                   axis=axis)
    assert got.dtype is dt and got.shape == ref.shape
    assert np.allclose(values(got), ref, rtol=1e-5, atol=1e-3)


def test_cross_errors(backend):
    a = wt.ones((2, 3), device=backend)
    with pytest.raises(ValueError, match=r"wt.cross: the vectors along axis -1 must have 3 "
                                         r"elements, got 2 and 2"):
        wt.cross(wt.ones(2, device=backend), wt.ones(2, device=backend))
    with pytest.raises(TypeError, match=r"wt.cross: not supported for bool"):
        wt.cross(wt.ones(3, dtype=wt.bool, device=backend), wt.ones(3, dtype=wt.bool,
                                                                       device=backend))
    with pytest.raises(ValueError, match=r"wt.cross: axis -3 must lie in \[-2, -1\]"):
        wt.cross(a, a, axis=-3)
    assert wt.cross(wt.asarray([1, 0, 0], device=backend),
                    wt.asarray([0, 1, 0], device=backend)).tolist() == [0, 0, 1]


# -- einsum ----------------------------------------------------------------------------------------

EINSUM_CASES = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ij,jk", [(2, 3), (3, 4)]),
    ("ij->ji", [(2, 3)]),
    ("ji", [(2, 3)]),
    ("ii->i", [(3, 3)]),
    ("ii", [(3, 3)]),
    ("iij->ji", [(2, 2, 3)]),
    ("ij->", [(2, 3)]),
    ("ij->j", [(2, 3)]),
    ("i,i->", [(4,), (4,)]),
    ("i,j->ij", [(2,), (3,)]),
    ("i,i->i", [(1,), (3,)]),
    ("ij,j", [(2, 1), (3,)]),
    ("...ij,...jk->...ik", [(2, 1, 2, 3), (4, 3, 2)]),
    ("...ij,...jk", [(5, 2, 3), (3, 4)]),
    ("i...->...", [(2, 3, 4)]),
    ("...ii->...i", [(2, 3, 3)]),
    ("bij,bjk,bkl->bil", [(2, 2, 3), (2, 3, 4), (2, 4, 2)]),
    ("ij,jk,kl", [(2, 3), (3, 4), (4, 5)]),
    ("ab,cd->abcd", [(2, 2), (1, 3)]),
    ("iji->j", [(2, 3, 2)]),
    ("Ab,bA->", [(2, 3), (3, 2)]),
    ("bA", [(2, 3)]),
    (",ij->ij", [(), (2, 2)]),
    ("", [()]),
    ("ij,ij->ij", [(2, 3), (2, 3)]),
    ("ijk,jil->kl", [(3, 2, 4), (2, 3, 5)]),
    ("i,ij,j->", [(3,), (3, 4), (4,)]),
    ("ij,kj->ik", [(0, 3), (2, 3)]),
    ("ij,jk->ik", [(2, 0), (0, 3)]),
    (" i j , j k -> i k ", [(2, 3), (3, 4)]),
    ("...,...->...", [(2, 3), (3,)]),
]


@pytest.mark.parametrize("spec,shapes", EINSUM_CASES, ids=[c[0] or "empty" for c in
                                                          EINSUM_CASES])
@pytest.mark.parametrize("dt", [wt.float64, wt.int16, wt.complex64, wt.bool])
def test_einsum_matches_numpy(backend, spec, shapes, dt):
    np = _np()
    arrs = [rand(s, dt, 11 + i) for i, s in enumerate(shapes)]
    if dt.kind in "iu":
        arrs = [(x % 7).astype(x.dtype) for x in arrs]  # no overflow: compare exactly
    got = wt.einsum(spec, *[tens(x, dt, backend) for x in arrs])
    ref = np.einsum(spec, *arrs) if dt.kind != "f" else np.einsum(spec, *map(hi_prec, arrs))
    assert got.dtype is dt
    assert got.shape == np.shape(ref)
    if dt.kind in "biu":
        assert np.array_equal(values(got), ref)
    else:
        assert np.allclose(values(got), ref, rtol=1e-5, atol=1e-5)


@st.composite
def einsum_specs(draw):
    letters = "abcde"
    sizes = {c: draw(st.integers(1, 3)) for c in letters}
    n_ops = draw(st.integers(1, 3))
    terms = []
    for _ in range(n_ops):
        term = draw(st.lists(st.sampled_from(letters), min_size=0, max_size=3))
        terms.append("".join(term))
    used = sorted(set("".join(terms)))
    out = draw(st.lists(st.sampled_from(used), unique=True, max_size=len(used))) if used else []
    spec = ",".join(terms) + "->" + "".join(out)
    shapes = []
    for term in terms:
        shapes.append(tuple(1 if draw(st.integers(0, 5)) == 0 else sizes[c] for c in term))
    # repeated labels in one operand must have equal sizes
    fixed = []
    for term, shape in zip(terms, shapes):
        s = list(shape)
        for i, c in enumerate(term):
            if term.count(c) > 1:
                s[i] = sizes[c]
        fixed.append(tuple(s))
    return spec, fixed


@SETTINGS
@given(case=einsum_specs(), seed=st.integers(0, 2 ** 31),
       dt=st.sampled_from([wt.float32, wt.int64, wt.complex128]))
def test_einsum_random_specs_match_numpy(backend, case, seed, dt):
    np = _np()
    spec, shapes = case
    arrs = [rand(s, dt, seed + i, -2, 2) for i, s in enumerate(shapes)]
    if dt.kind == "i":
        arrs = [(x % 5).astype(np.int64) for x in arrs]
    got = wt.einsum(spec, *[tens(x, dt, backend) for x in arrs])
    ref = np.einsum(spec, *[hi_prec(x) if dt.kind != "i" else x for x in arrs])
    assert got.shape == ref.shape and got.dtype is dt
    assert np.allclose(values(got), ref, rtol=1e-4, atol=1e-4)


def test_einsum_promotes_and_low_precision(backend):
    np = _np()
    a = rand((3, 4), wt.float16, 1)
    b = rand((4, 2), wt.bfloat16, 2)
    got = wt.einsum("ij,jk->ik", tens(a, wt.float16, backend), tens(b, wt.bfloat16, backend))
    assert got.dtype is wt.float32
    assert np.allclose(values(got), hi_prec(a) @ hi_prec(b), rtol=1e-5, atol=1e-5)
    x = wt.einsum("ij,jk", wt.ones((2, 3), dtype=wt.int8, device=backend),
                  wt.ones((3, 2), dtype=wt.float32, device=backend))
    assert x.dtype is wt.float32 and x.tolist() == [[3.0, 3.0], [3.0, 3.0]]


def test_einsum_exact_small(backend):
    m = wt.asarray([[1, 2], [3, 4]], device=backend)
    assert wt.einsum("ii", m).item() == 5
    assert wt.einsum("ij->i", m).tolist() == [3, 7]
    assert wt.einsum("ij,jk->ik", m, m).tolist() == [[7, 10], [15, 22]]
    assert wt.einsum("i,j", wt.asarray([1, 2], device=backend),
                     wt.asarray([3, 4, 5], device=backend)).tolist() == [[3, 4, 5], [6, 8, 10]]


def test_einsum_errors(backend):
    a = wt.ones((2, 3), device=backend)
    with pytest.raises(ValueError, match=r"wt.einsum: subscripts 'ij,jk' describe 2 operands "
                                         r"but 1 were given"):
        wt.einsum("ij,jk", a)
    with pytest.raises(ValueError, match=r"wt.einsum: invalid character '1' in subscripts"):
        wt.einsum("i1", a)
    with pytest.raises(ValueError, match=r"'\.' must be part of an ellipsis"):
        wt.einsum("i.j", a)
    with pytest.raises(ValueError, match=r"more than one ellipsis"):
        wt.einsum("......", a)
    with pytest.raises(ValueError, match=r"wt.einsum: operand with subscripts 'ijk' has 2 "
                                         r"dimensions \(shape \(2, 3\)\) but 3 labels"):
        wt.einsum("ijk", a)
    with pytest.raises(ValueError, match=r"wt.einsum: label 'j' has size 3 in one operand and 4 "
                                         r"in another"):
        wt.einsum("ij,jk", a, wt.ones((4, 2), device=backend))
    with pytest.raises(ValueError, match=r"wt.einsum: output label 'k' does not appear in the "
                                         r"inputs"):
        wt.einsum("ij->k", a)
    with pytest.raises(ValueError, match=r"wt.einsum: output label 'i' appears more than once"):
        wt.einsum("ij->ii", a)
    with pytest.raises(ValueError, match=r"wt.einsum: repeated label 'i' spans dimensions of "
                                         r"sizes 2 and 3"):
        wt.einsum("ii", a)
    with pytest.raises(ValueError, match=r"has no '\.\.\.' to hold them"):
        wt.einsum("...i->i", a)
    with pytest.raises(ValueError, match=r"more than one '->'"):
        wt.einsum("i->j->k", a)
    with pytest.raises(ValueError, match=r"wt.einsum: no operands given"):
        wt.einsum("ij")
    with pytest.raises(TypeError, match=r"wt.einsum: subscripts must be a string"):
        wt.einsum(a, a)
    with pytest.raises(ValueError, match=r"operand 0 has shape \(2, 3\) but its subscripts name "
                                         r"3 dimensions"):
        wt.einsum("ijk...", a)


# -- diagonal / trace ---------------------------------------------------------------------------------

@SETTINGS
@given(shape=st.lists(st.integers(0, 4), min_size=2, max_size=4).map(tuple),
       data=st.data())
def test_diagonal_is_a_strided_view(backend, shape, data):
    np = _np()
    nd = len(shape)
    a1 = data.draw(st.integers(-nd, nd - 1))
    a2 = data.draw(st.integers(-nd, nd - 1).filter(lambda v: v % nd != a1 % nd))
    off = data.draw(st.integers(-5, 5))
    arr = np.arange(math.prod(shape), dtype=np.int32).reshape(shape)
    x = tens(arr, wt.int32, backend)
    got = wt.diagonal(x, off, a1, a2)
    ref = np.diagonal(arr, off, a1, a2)
    assert got.shape == ref.shape and got._data is x._data
    assert np.array_equal(values(got), ref)
    # the last two axes version
    got2 = LA.diagonal(x, offset=off)
    assert np.array_equal(values(got2), np.diagonal(arr, off, -2, -1))


@pytest.mark.parametrize("dt,expected", [(wt.int8, wt.int32), (wt.uint8, wt.uint32),
                                         (wt.int64, wt.int64), (wt.float16, wt.float16),
                                         (wt.complex64, wt.complex64), (wt.bool, wt.int32)])
def test_trace_dtype_rules(backend, dt, expected):
    np = _np()
    arr = rand((2, 3, 3), dt, 5)
    if dt.kind in "iu":
        arr = (arr % 50).astype(arr.dtype)
    x = tens(arr, dt, backend)
    got = LA.trace(x)
    assert got.dtype is expected
    ref = np.trace(hi_prec(arr) if dt.kind in "fc" else arr.astype(np.int64), axis1=-2,
                   axis2=-1)
    assert np.allclose(values(got), ref, rtol=1e-2)
    top = wt.trace(x, 1, 1, 2)
    assert top.dtype is expected
    assert np.allclose(values(top), np.trace(hi_prec(arr) if dt.kind in "fc" else
                                             arr.astype(np.int64), 1, 1, 2), rtol=1e-2)
    assert LA.trace(x, dtype=wt.float64).dtype is wt.float64


def test_diagonal_trace_small_and_errors(backend):
    m = wt.asarray([[1, 2, 3], [4, 5, 6]], device=backend)
    assert wt.diagonal(m).tolist() == [1, 5]
    assert wt.diagonal(m, 1).tolist() == [2, 6]
    assert wt.diagonal(m, -1).tolist() == [4]
    assert wt.diagonal(m, 5).tolist() == []
    assert wt.trace(m).item() == 6
    assert LA.trace(m, offset=1).item() == 8
    named = wt.ones((2, 3, 3), device=backend, names=("b", "r", "c"))
    assert LA.diagonal(named).names == ("b", None)
    with pytest.raises(ValueError, match=r"wt.diagonal: needs at least 2 dimensions, got shape "
                                         r"\(3,\)"):
        wt.diagonal(wt.ones(3, device=backend))
    with pytest.raises(ValueError, match=r"wt.diagonal: axis1 and axis2 must differ, both are 0"):
        wt.diagonal(m, 0, 0, -2)
    with pytest.raises(ValueError, match=r"wt.diagonal: axis 2 is out of bounds"):
        wt.diagonal(m, 0, 0, 2)
    with pytest.raises(TypeError, match=r"wt.linalg.diagonal: expected an integer"):
        LA.diagonal(m, offset=1.5)


# -- decompositions ----------------------------------------------------------------------------------

# (device, decomposition kernel): numpy.linalg exists only on the NumPy backend.
KERNELS = [pytest.param((dev, kernel), id=f"{name}-{kernel}")
           for name, dev in DEVICES.items()
           for kernel in (("numpy.linalg", "pure-python") if name == "numpy" else
                          ("pure-python",))]


@pytest.fixture(params=KERNELS)
def ldev(request, monkeypatch):
    """A device plus the decomposition kernel to use on it."""
    device, kernel = request.param
    monkeypatch.setattr(LA, "_USE_NUMPY", kernel == "numpy.linalg")
    return device


LDTYPES = [wt.float32, wt.float64, wt.complex64, wt.complex128]


def well_conditioned(shape, dt, seed):
    np = _np()
    a = rand(shape, dt, seed, -1, 1)
    n = shape[-1]
    return (a + n * np.eye(n)).astype(a.dtype)


def tol_for(dt):
    return {wt.float16: 5e-2, wt.bfloat16: 2e-1, wt.float32: 2e-4,
            wt.complex64: 2e-4}.get(dt, 1e-10)


def close(got, ref, dt, scale=1.0):
    np = _np()
    g = values(got)
    assert g.shape == np.shape(ref), (g.shape, np.shape(ref))
    assert np.allclose(g, ref, rtol=tol_for(dt), atol=tol_for(dt) * scale), (g, ref)


@pytest.mark.parametrize("dt", LDTYPES)
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (1, 1), (0, 0), (0, 2, 2), (5, 5)])
def test_det_slogdet_inv_solve(ldev, dt, shape):
    np = _np()
    a = well_conditioned(shape, dt, 3)
    ha = hi_prec(a)
    x = tens(a, dt, ldev)
    close(LA.det(x), np.linalg.det(ha), dt, 1 + np.abs(np.linalg.det(ha)).max(initial=0))
    s, ld = LA.slogdet(x)
    rs, rl = np.linalg.slogdet(ha)
    assert s.dtype is dt and ld.dtype is dt.real_dtype
    close(s, rs, dt)
    close(ld, rl, dt)
    inv = LA.inv(x)
    assert inv.dtype is dt and inv.shape == shape
    close(inv, np.linalg.inv(ha), dt)
    b = rand(shape[:-1] + (2,), dt, 4)
    close(LA.solve(x, tens(b, dt, ldev)), np.linalg.solve(ha, hi_prec(b)), dt)
    v = rand(shape[-1:], dt, 5)
    got = LA.solve(x, tens(v, dt, ldev))
    assert got.shape == shape[:-1]
    ref = np.linalg.solve(ha, hi_prec(v)[..., None])[..., 0] if len(shape) > 2 else \
        np.linalg.solve(ha, hi_prec(v))
    close(got, ref, dt)


def test_solve_broadcasts(ldev):
    np = _np()
    a = well_conditioned((3, 1, 2, 2), wt.float64, 1)
    b = rand((4, 2, 3), wt.float64, 2)
    got = LA.solve(tens(a, wt.float64, ldev), tens(b, wt.float64, ldev))
    assert got.shape == (3, 4, 2, 3)
    close(got, np.linalg.solve(a, b), wt.float64)


@pytest.mark.parametrize("dt", [wt.float16, wt.bfloat16, wt.int32, wt.bool])
def test_decompositions_other_dtypes(ldev, dt):
    np = _np()
    if dt is wt.bool:
        a = np.eye(3, dtype=bool)
        a[0, 1] = True
    elif dt.kind == "i":
        a = np.array([[4, 1, 0], [1, 3, 1], [0, 1, 2]], dtype=np.int32)
    else:
        a = well_conditioned((3, 3), dt, 1)
    x = tens(a, dt, ldev)
    out_dt = dt if dt.kind == "f" else wt.float32
    ha = hi_prec(np.asarray(a, dtype=np.float64))
    got = LA.det(x)
    assert got.dtype is out_dt
    close(got, np.linalg.det(ha), out_dt, 10)
    inv = LA.inv(x)
    assert inv.dtype is out_dt
    close(inv, np.linalg.inv(ha), out_dt)
    if dt is not wt.bool:
        w = LA.eigvalsh(x)
        assert w.dtype is out_dt
        close(w, np.linalg.eigvalsh(ha), out_dt, 5)
    with wt.promotion_mode("numpy"):
        if dt.kind in "bi":
            assert LA.det(x).dtype is wt.float64


@pytest.mark.parametrize("dt", LDTYPES)
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (0, 0), (1, 1)])
def test_cholesky(ldev, dt, shape):
    np = _np()
    a = rand(shape, dt, 7, -1, 1)
    spd = (a @ np.conj(np.swapaxes(a, -1, -2)) + shape[-1] * np.eye(shape[-1])).astype(a.dtype)
    x = tens(spd, dt, ldev)
    low = LA.cholesky(x)
    ref = np.linalg.cholesky(hi_prec(spd))
    close(low, ref, dt)
    up = LA.cholesky(x, upper=True)
    close(up, np.conj(np.swapaxes(ref, -1, -2)), dt)


@pytest.mark.parametrize("dt", LDTYPES)
@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (3, 3), (2, 5, 2), (0, 3), (3, 0), (1, 1)])
@pytest.mark.parametrize("mode", ["reduced", "complete"])
def test_qr_matches_lapack(ldev, dt, shape, mode):
    np = _np()
    a = rand(shape, dt, 9)
    q, r = LA.qr(tens(a, dt, ldev), mode=mode)
    rq, rr = np.linalg.qr(hi_prec(a), mode=mode)
    assert q.dtype is dt and r.dtype is dt
    assert q.shape == rq.shape and r.shape == rr.shape
    # Householder with LAPACK's sign choice: the factors themselves match
    close(q, rq, dt, 4)
    close(r, rr, dt, 4)


def hermitian_from_lower(ha):
    """The matrix eigh sees: the lower triangle mirrored, the diagonal's real part."""
    np = _np()
    diag = np.real(np.diagonal(ha, 0, -2, -1))
    low = np.tril(ha, -1)
    return low + np.conj(np.swapaxes(low, -1, -2)) + diag[..., None] * np.eye(ha.shape[-1])


def _check_eigh(w, v, a, dt):
    np = _np()
    ha = hi_prec(a)
    lower = hermitian_from_lower(ha)
    wv, vv = values(w), values(v)
    assert w.dtype is dt.real_dtype and v.dtype is dt
    close(w, np.linalg.eigvalsh(lower), dt, 10)
    n = a.shape[-1]
    tol = tol_for(dt) * 10 * max(1.0, np.abs(ha).max(initial=0))
    assert np.allclose(lower @ vv, vv * wv[..., None, :], atol=tol)
    assert np.allclose(np.conj(np.swapaxes(vv, -1, -2)) @ vv, np.eye(n), atol=tol)


@pytest.mark.parametrize("dt", LDTYPES)
@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 3), (1, 1), (0, 0), (6, 6)])
def test_eigh(ldev, dt, shape):
    np = _np()
    a = rand(shape, dt, 13)
    w, v = LA.eigh(tens(a, dt, ldev))  # reads the lower triangle only
    _check_eigh(w, v, a, dt)
    lower = hermitian_from_lower(hi_prec(a))
    close(LA.eigvalsh(tens(a, dt, ldev)), np.linalg.eigvalsh(lower), dt, 10)


def test_eigh_repeated_eigenvalues(ldev):
    np = _np()
    a = np.diag([2.0, 2.0, 5.0, 2.0])
    q, _ = np.linalg.qr(rand((4, 4), wt.float64, 3))
    a = q @ a @ q.T
    w, v = LA.eigh(tens(a, wt.float64, ldev))
    _check_eigh(w, v, a, wt.float64)


def _check_svd(u, s, vh, a, dt, full):
    np = _np()
    m, n = a.shape[-2:]
    k = min(m, n)
    assert u.shape == a.shape[:-2] + ((m, m) if full else (m, k))
    assert vh.shape == a.shape[:-2] + ((n, n) if full else (k, n))
    assert s.shape == a.shape[:-2] + (k,) and s.dtype is dt.real_dtype
    uu, ss, vv = values(u), values(s), values(vh)
    close(s, np.linalg.svd(hi_prec(a), compute_uv=False), dt, 10)
    tol = tol_for(dt) * 10 * max(1.0, np.abs(hi_prec(a)).max(initial=0))
    rec = (uu[..., :, :k] * ss[..., None, :]) @ vv[..., :k, :]
    assert np.allclose(rec, hi_prec(a), atol=tol)
    assert np.allclose(np.conj(np.swapaxes(uu, -1, -2)) @ uu, np.eye(uu.shape[-1]), atol=tol)
    assert np.allclose(vv @ np.conj(np.swapaxes(vv, -1, -2)), np.eye(vv.shape[-2]), atol=tol)


@pytest.mark.parametrize("dt", LDTYPES)
@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (3, 3), (2, 2, 5), (1, 1), (0, 3), (2, 0)])
@pytest.mark.parametrize("full", [True, False])
def test_svd(ldev, dt, shape, full):
    a = rand(shape, dt, 17)
    u, s, vh = LA.svd(tens(a, dt, ldev), full_matrices=full)
    _check_svd(u, s, vh, a, dt, full)
    np = _np()
    close(LA.svdvals(tens(a, dt, ldev)), np.linalg.svd(hi_prec(a), compute_uv=False), dt, 10)


@pytest.mark.parametrize("full", [True, False])
def test_svd_rank_deficient(ldev, full):
    np = _np()
    a = np.outer([1.0, 2.0, 3.0, 4.0], [1.0, -1.0, 0.5])  # rank 1
    u, s, vh = LA.svd(tens(a, wt.float64, ldev), full_matrices=full)
    _check_svd(u, s, vh, a, wt.float64, full)
    assert int(LA.matrix_rank(tens(a, wt.float64, ldev)).item()) == 1
    close(LA.pinv(tens(a, wt.float64, ldev)), np.linalg.pinv(a), wt.float64)
    z = np.zeros((3, 2))
    u, s, vh = LA.svd(tens(z, wt.float64, ldev), full_matrices=full)
    _check_svd(u, s, vh, z, wt.float64, full)


@pytest.mark.parametrize("dt", LDTYPES)
def test_matrix_rank_pinv(ldev, dt):
    np = _np()
    a = rand((2, 4, 3), dt, 21)
    a[1, :, 2] = a[1, :, 0] * 2  # second matrix has rank 2
    x = tens(a, dt, ldev)
    r = LA.matrix_rank(x)
    assert r.dtype is wt.int32 and r.tolist() == [3, 2]
    assert LA.matrix_rank(x, rtol=0.99).tolist() == [1, 1]
    assert LA.matrix_rank(x, rtol=wt.asarray([0.0, 0.99], device=ldev)).tolist() == [3, 1]
    got = LA.pinv(x)
    assert got.dtype is dt and got.shape == (2, 3, 4)
    ha = hi_prec(a)
    ref = np.linalg.pinv(ha, rcond=max(a.shape[-2:]) * wt.finfo(dt).eps)
    close(got, ref, dt, 10)
    assert LA.matrix_rank(wt.zeros((2, 0, 3), device=ldev)).tolist() == [0, 0]
    assert LA.pinv(wt.zeros((0, 3), device=ldev)).shape == (3, 0)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, -1, -3])
def test_matrix_power(ldev, n):
    np = _np()
    a = well_conditioned((2, 3, 3), wt.float64, 5) / 3
    got = LA.matrix_power(tens(a, wt.float64, ldev), n)
    close(got, np.linalg.matrix_power(a, n), wt.float64, 10)
    if n >= 0:
        i = wt.asarray([[1, 1], [1, 0]], dtype=wt.int64, device=ldev)
        f = LA.matrix_power(i, n)
        assert f.dtype is wt.int64
        assert f.tolist() == np.linalg.matrix_power(np.array([[1, 1], [1, 0]]), n).tolist()
        assert f._data is not i._data


# -- norms -----------------------------------------------------------------------------------------

ORDS = [2, 1, 0, math.inf, -math.inf, 3, 0.5, -1, -2.5]


@pytest.mark.parametrize("dt", [wt.float32, wt.float64, wt.complex64, wt.float16, wt.bfloat16,
                                wt.int16])
@pytest.mark.parametrize("axis,keepdims", [(None, False), (None, True), (-1, False),
                                           ((0, 2), True), (1, False)])
def test_vector_norm(backend, dt, axis, keepdims):
    np = _np()
    a = rand((2, 3, 4), dt, 31)
    a[0, 0, 0] = 0
    x = tens(a, dt, backend)
    expected_dt = wt.float32 if dt.kind == "i" else dt.real_dtype
    rtol = {wt.float16: 2e-3, wt.bfloat16: 1e-2}.get(expected_dt, 1e-5)
    for ord in ORDS:
        got = LA.vector_norm(x, axis=axis, keepdims=keepdims, ord=ord)
        assert got.dtype is expected_dt
        with np.errstate(divide="ignore"):
            ref = np.linalg.vector_norm(hi_prec(a), axis=axis, keepdims=keepdims, ord=ord)
        g = values(got)
        assert g.shape == ref.shape
        assert np.allclose(g, ref, rtol=rtol, atol=1e-6), (ord, g, ref)


def test_vector_norm_edge_cases(backend):
    x = wt.asarray([3.0, -4.0], device=backend)
    assert LA.vector_norm(x).item() == 5.0
    assert LA.vector_norm(wt.asarray(-2.0, device=backend)).item() == 2.0
    assert LA.vector_norm(wt.zeros((0,), device=backend)).item() == 0.0
    assert LA.vector_norm(wt.zeros((2, 0), device=backend), axis=1).tolist() == [0.0, 0.0]
    named = wt.ones((2, 3), device=backend, names=("r", "c"))
    assert LA.vector_norm(named, axis="c").names == ("r",)
    with pytest.raises(ValueError, match=r"wt.linalg.vector_norm: the max norm of an empty "
                                         r"vector is undefined"):
        LA.vector_norm(wt.zeros((0,), device=backend), ord=math.inf)
    with pytest.raises(TypeError, match=r"wt.linalg.vector_norm: ord must be a number"):
        LA.vector_norm(x, ord="fro")
    with pytest.raises(ValueError, match=r"wt.linalg.vector_norm: axis 2 is out of bounds"):
        LA.vector_norm(x, axis=2)


@pytest.mark.parametrize("dt", [wt.float32, wt.float64, wt.complex128, wt.int32])
@pytest.mark.parametrize("keepdims", [False, True])
def test_matrix_norm(ldev, dt, keepdims):
    np = _np()
    a = rand((2, 3, 4), dt, 41)
    x = tens(a, dt, ldev)
    for ord in ("fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf):
        got = LA.matrix_norm(x, ord=ord, keepdims=keepdims)
        ref = np.linalg.matrix_norm(np.asarray(a, dtype=np.float64) if dt.kind == "i"
                                    else hi_prec(a), ord=ord, keepdims=keepdims)
        assert got.dtype is (wt.float32 if dt.kind == "i" else dt.real_dtype)
        g = values(got)
        assert g.shape == ref.shape
        assert np.allclose(g, ref, rtol=1e-5), (ord, g, ref)


def test_matrix_norm_errors_and_empty(backend):
    x = wt.ones((2, 2), device=backend)
    with pytest.raises(ValueError, match=r"wt.linalg.matrix_norm: invalid ord 'max'; use 'fro'"):
        LA.matrix_norm(x, ord="max")
    with pytest.raises(ValueError, match=r"wt.linalg.matrix_norm: invalid ord 3"):
        LA.matrix_norm(x, ord=3)
    with pytest.raises(ValueError, match=r"wt.linalg.matrix_norm: expects a matrix or a stack "
                                         r"of matrices \(at least 2 dimensions\), got shape "
                                         r"\(2,\)"):
        LA.matrix_norm(wt.ones(2, device=backend))
    assert LA.matrix_norm(wt.zeros((0, 3), device=backend)).item() == 0.0
    assert LA.matrix_norm(wt.zeros((0, 3), device=backend), ord="nuc").item() == 0.0
    with pytest.raises(ValueError, match=r"wt.linalg.matrix_norm: the 2-norm of an empty "
                                         r"matrix"):
        LA.matrix_norm(wt.zeros((0, 3), device=backend), ord=2)
    with pytest.raises(ValueError, match=r"wt.linalg.matrix_norm: the 1-norm of a matrix with "
                                         r"shape \(3, 0\) is undefined"):
        LA.matrix_norm(wt.zeros((3, 0), device=backend), ord=1)


# -- NumPy-free checks (run under Pyodide too) -------------------------------------------------------

anydev = ldev  # the same parametrization for the NumPy-free tests


def approx(got, expected, tol=1e-6):
    if isinstance(expected, list):
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            approx(g, e, tol)
    else:
        assert abs(got - expected) <= tol * (1 + abs(expected)), (got, expected)


def test_small_decompositions_exact(anydev):
    a = wt.asarray([[4.0, 7.0], [2.0, 6.0]], device=anydev)
    approx(LA.det(a).item(), 10.0)
    approx(LA.inv(a).tolist(), [[0.6, -0.7], [-0.2, 0.4]])
    approx(LA.solve(a, wt.asarray([1.0, 2.0], device=anydev)).tolist(), [-0.8, 0.6])
    s, ld = LA.slogdet(wt.asarray([[0.0, 1.0], [1.0, 0.0]], device=anydev))
    assert s.item() == -1.0 and ld.item() == 0.0
    s, ld = LA.slogdet(wt.asarray([[1.0, 2.0], [2.0, 4.0]], device=anydev))
    assert s.item() == 0.0 and ld.item() == -math.inf
    assert LA.det(wt.asarray([[1.0, 2.0], [2.0, 4.0]], device=anydev)).item() == 0.0
    approx(LA.cholesky(wt.asarray([[4.0, 2.0], [2.0, 5.0]], device=anydev)).tolist(),
           [[2.0, 0.0], [1.0, 2.0]])
    approx(LA.eigvalsh(wt.asarray([[2.0, 1.0], [1.0, 2.0]], device=anydev)).tolist(),
           [1.0, 3.0])
    approx(LA.svdvals(wt.asarray([[3.0, 0.0], [0.0, -4.0]], device=anydev)).tolist(),
           [4.0, 3.0])
    q, r = LA.qr(wt.asarray([[3.0], [4.0]], device=anydev))
    approx(q.tolist(), [[-0.6], [-0.8]])
    approx(r.tolist(), [[-5.0]])
    approx(LA.det(wt.ones((0, 0), device=anydev)).item(), 1.0)
    assert LA.inv(wt.ones((0, 0), device=anydev)).shape == (0, 0)
    assert LA.det(wt.ones((0, 2, 2), device=anydev)).shape == (0,)
    approx(LA.matrix_norm(a).item(), math.sqrt(16 + 49 + 4 + 36))
    approx(LA.vector_norm(a, ord=1).item(), 19.0)


def test_decomposition_errors(anydev):
    sing = wt.asarray([[1.0, 2.0], [2.0, 4.0]], device=anydev)
    with pytest.raises(LA.LinAlgError, match=r"wt.linalg.inv: the matrix is singular"):
        LA.inv(sing)
    with pytest.raises(ValueError, match=r"wt.linalg.solve: the matrix is singular"):
        LA.solve(sing, wt.ones(2, device=anydev))
    with pytest.raises(LA.LinAlgError, match=r"wt.linalg.cholesky: the matrix is not positive "
                                              r"definite"):
        LA.cholesky(wt.asarray([[1.0, 2.0], [2.0, 1.0]], device=anydev))
    rect = wt.ones((2, 3), device=anydev)
    for fn in (LA.det, LA.slogdet, LA.inv, LA.cholesky, LA.eigh, LA.eigvalsh):
        name = fn.__name__
        with pytest.raises(ValueError, match=rf"wt.linalg.{name}: expects square matrices in "
                                             rf"the last two dimensions, got shape \(2, 3\)"):
            fn(rect)
    for fn in (LA.det, LA.qr, LA.svd, LA.svdvals, LA.pinv, LA.matrix_rank):
        name = fn.__name__
        with pytest.raises(ValueError, match=rf"wt.linalg.{name}: expects a matrix or a stack "
                                             rf"of matrices"):
            fn(wt.ones(3, device=anydev))
    with pytest.raises(ValueError, match=r"wt.linalg.qr: mode must be 'reduced' or 'complete', "
                                         r"got 'r'"):
        LA.qr(rect, mode="r")
    with pytest.raises(ValueError, match=r"wt.linalg.solve: x1 must be a square matrix"):
        LA.solve(rect, wt.ones(2, device=anydev))
    with pytest.raises(ValueError, match=r"wt.linalg.solve: x2 of shape \(3,\) does not match "
                                         r"x1 of shape \(2, 2\)"):
        LA.solve(sing, wt.ones(3, device=anydev))
    with pytest.raises(ValueError, match=r"x2 must be \(M,\) or \(\.\.\., M, K\)"):
        LA.solve(sing, wt.ones((3, 1), device=anydev))
    with pytest.raises(ValueError, match=r"wt.linalg.solve: the batch dimensions"):
        LA.solve(wt.ones((2, 2, 2), device=anydev), wt.ones((3, 2, 1), device=anydev))
    with pytest.raises(TypeError, match=r"wt.linalg.matrix_power: n must be an int, got 1.5"):
        LA.matrix_power(sing, 1.5)
    with pytest.raises(ValueError, match=r"wt.linalg.matrix_power: expects square matrices"):
        LA.matrix_power(rect, 2)
    with pytest.raises(LA.LinAlgError):
        LA.matrix_power(sing, -1)
    assert issubclass(LA.LinAlgError, ValueError)


def test_namespace_lists_the_extension():
    import webtensor.linalg as ns

    for name in ("cholesky", "cross", "det", "diagonal", "eigh", "eigvalsh", "inv", "matmul",
                 "matrix_norm", "matrix_power", "matrix_rank", "matrix_transpose", "outer",
                 "pinv", "qr", "slogdet", "solve", "svd", "svdvals", "tensordot", "trace",
                 "vecdot", "vector_norm"):
        assert callable(getattr(ns, name)), name
        assert name in ns.__all__
    for name in ("matmul", "matrix_transpose", "tensordot", "vecdot", "einsum", "diagonal",
                 "trace", "outer", "inner", "dot", "vdot", "cross", "kron"):
        assert callable(getattr(wt, name)), name


def test_result_tuples(backend):
    a = wt.asarray([[2.0, 0.0], [0.0, 3.0]], device=backend)
    r = LA.eigh(a)
    assert r.eigenvalues.tolist() == [2.0, 3.0] and r.eigenvectors.shape == (2, 2)
    q = LA.qr(a)
    assert q.Q.shape == (2, 2) and q.R.shape == (2, 2)
    s = LA.slogdet(a)
    assert s.sign.item() == 1.0
    u = LA.svd(a)
    assert u.S.tolist() == [3.0, 2.0] and u.U.shape == u.Vh.shape == (2, 2)

