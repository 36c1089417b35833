"""The wt.fft extension against numpy.fft, on both CPU backends and (on the NumPy backend) with
both kernels: numpy.fft and the pure-Python radix-2/Bluestein FFT.  Error messages and small
exact cases run without NumPy (Pyodide)."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import webtensor as wt
import webtensor.fft as F
from _oracle import DEVICES, bf16_round

SETTINGS = settings(max_examples=30, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])

KERNELS = [pytest.param((dev, kernel), id=f"{name}-{kernel}")
           for name, dev in DEVICES.items()
           for kernel in (("numpy.fft", "pure-python") if name == "numpy" else ("pure-python",))]


@pytest.fixture(scope="module", params=KERNELS)
def fdev(request):
    device, kernel = request.param
    saved = F._USE_NUMPY
    F._USE_NUMPY = kernel == "numpy.fft"
    yield device
    F._USE_NUMPY = saved


def _np():
    return pytest.importorskip("numpy")


def rand(shape, dt, seed):
    np = _np()
    rng = np.random.default_rng(seed)
    if dt.kind == "c":
        part = dt.real_dtype
        return rand(shape, part, seed) + 1j * rand(shape, part, seed + 1)
    if dt.kind in "iu":
        return rng.integers(-5 if dt.kind == "i" else 0, 6, shape).astype(dt.name)
    vals = rng.uniform(-2, 2, shape)
    if dt is wt.bfloat16:
        return bf16_round(vals.astype(np.float32))
    return vals.astype(dt.name)


def tens(arr, dt, device):
    t = wt.asarray(arr, device=device)
    return t if t.dtype is dt else wt.astype(t, dt)


def close(got, ref, dt, n):
    np = _np()
    vals = np.array(got.tolist(), dtype=np.complex128).reshape(got.shape)
    assert vals.shape == np.shape(ref), (vals.shape, np.shape(ref))
    eps = wt.finfo(dt).eps
    scale = max(1.0, float(np.abs(ref).max(initial=0)))
    tol = 8 * eps * max(1, math.log2(max(n, 2))) * scale * 4
    assert np.allclose(vals, ref, rtol=0, atol=tol), (vals, ref)


DTS = [wt.complex64, wt.complex128, wt.float32, wt.float64, wt.float16, wt.int16]


@SETTINGS
@given(n=st.integers(1, 20), m=st.none() | st.integers(1, 24), batch=st.integers(0, 3),
       dt=st.sampled_from(DTS), norm=st.sampled_from(["backward", "ortho", "forward"]),
       axis=st.sampled_from([-1, 0]), seed=st.integers(0, 2 ** 31))
def test_c2c_match_numpy(fdev, n, m, batch, dt, norm, axis, seed):
    np = _np()
    shape = (n, batch) if axis == 0 else (batch, n)
    a = rand(shape, dt, seed)
    x = tens(a, dt, fdev)
    cdt = wt.complex128 if dt in (wt.float64, wt.complex128) else wt.complex64
    for fn, ref_fn in ((F.fft, np.fft.fft), (F.ifft, np.fft.ifft)):
        got = fn(x, n=m, axis=axis, norm=norm)
        assert got.dtype is cdt
        close(got, ref_fn(a.astype(np.complex128), n=m, axis=axis, norm=norm), cdt, m or n)


@SETTINGS
@given(n=st.integers(1, 20), m=st.none() | st.integers(1, 24), batch=st.integers(0, 3),
       dt=st.sampled_from([wt.float32, wt.float64, wt.bfloat16, wt.int32]),
       norm=st.sampled_from(["backward", "ortho", "forward"]), seed=st.integers(0, 2 ** 31))
def test_real_transforms_match_numpy(fdev, n, m, batch, dt, norm, seed):
    np = _np()
    a = rand((batch, n), dt, seed)
    x = tens(a, dt, fdev)
    rdt = wt.float64 if dt is wt.float64 else wt.float32
    cdt = wt.complex128 if dt is wt.float64 else wt.complex64
    a64 = np.asarray(a, dtype=np.float64)
    got = F.rfft(x, n=m, norm=norm)
    assert got.dtype is cdt
    close(got, np.fft.rfft(a64, n=m, norm=norm), cdt, m or n)
    got = F.ihfft(x, n=m, norm=norm)
    assert got.dtype is cdt
    close(got, np.fft.ihfft(a64, n=m, norm=norm), cdt, m or n)
    spec = rand((batch, n), cdt, seed + 5)
    if n > 1 or m is not None:
        sx = tens(spec, cdt, fdev)
        got = F.irfft(sx, n=m, norm=norm)
        assert got.dtype is rdt
        close(got, np.fft.irfft(spec.astype(np.complex128), n=m, norm=norm), rdt, m or n)
        got = F.hfft(sx, n=m, norm=norm)
        assert got.dtype is rdt
        close(got, np.fft.hfft(spec.astype(np.complex128), n=m, norm=norm), rdt, m or n)


@pytest.mark.parametrize("s,axes", [(None, None), (None, (0, 2)), ((3, -1), (0, 2)),
                                    ((2, 4), None), (None, (-1,)), ((5,), (1,)), (None, ())])
def test_nd_transforms_match_numpy(fdev, s, axes):
    np = _np()
    a = rand((4, 5, 6), wt.float64, 3)
    c = rand((4, 5, 6), wt.complex128, 4)
    x, z = tens(a, wt.float64, fdev), tens(c, wt.complex128, fdev)
    ax = axes
    ns = None
    if s is not None:  # NumPy's spelling: explicit sizes and axes
        ax = list(range(3))[-len(s):] if axes is None else list(axes)
        ns = tuple(a.shape[i] if v == -1 else v for v, i in zip(s, ax))
    for fn, ref_fn, src, ref_src in ((F.fftn, np.fft.fftn, z, c), (F.ifftn, np.fft.ifftn, z, c),
                                     (F.rfftn, np.fft.rfftn, x, a)):
        if axes == () and fn is not F.fftn:
            continue
        got = fn(src, s=s, axes=axes)
        ref = ref_fn(ref_src, s=ns, axes=ax) if axes != () else ref_src
        close(got, ref, wt.complex128, 120)
    if axes != ():
        spec = np.fft.rfftn(a, s=ns, axes=ax)
        back = F.irfftn(tens(spec, wt.complex128, fdev), s=ns, axes=axes)
        close(back, np.fft.irfftn(spec, s=ns, axes=ax), wt.float64, 120)


def test_freqs_and_shifts(fdev):
    np = _np()
    for n in (1, 4, 5):
        for d in (1.0, 0.25):
            got = F.fftfreq(n, d=d, device=fdev)
            assert got.dtype is wt.float32 and got.device is fdev
            assert np.allclose(got.tolist(), np.fft.fftfreq(n, d=d))
            got = F.rfftfreq(n, d=d, dtype=wt.float64, device=fdev)
            assert got.dtype is wt.float64
            assert np.allclose(got.tolist(), np.fft.rfftfreq(n, d=d))
    a = np.arange(30).reshape(5, 6)
    x = wt.asarray(a, device=fdev)
    for axes in (None, 0, (1,), (0, 1)):
        assert F.fftshift(x, axes=axes).tolist() == np.fft.fftshift(a, axes=axes).tolist()
        assert F.ifftshift(x, axes=axes).tolist() == np.fft.ifftshift(a, axes=axes).tolist()
    assert F.fftshift(x, axes=()).tolist() == a.tolist()
    assert F.fftshift(x, axes=()) is not x


def test_small_exact(fdev):
    got = F.fft(wt.asarray([1.0, 0.0, 0.0, 0.0], device=fdev))
    assert got.dtype is wt.complex64 and got.tolist() == [1, 1, 1, 1]
    got = F.fft(wt.asarray([1.0, 1.0, 1.0], device=fdev))
    vals = got.tolist()
    assert abs(vals[0] - 3) < 1e-6 and abs(vals[1]) < 1e-6 and abs(vals[2]) < 1e-6
    back = F.ifft(F.fft(wt.asarray([1.0, 2.0, 3.0, 4.0, 5.0], device=fdev)))
    assert all(abs(v - w) < 1e-5 for v, w in zip(back.tolist(), [1, 2, 3, 4, 5]))
    assert F.irfft(F.rfft(wt.asarray([1.0, -2.0, 3.0], device=fdev)), n=3).dtype is wt.float32
    assert F.fftfreq(4, device=fdev).tolist() == [0.0, 0.25, -0.5, -0.25]
    assert F.fft(wt.ones((0, 3), device=fdev)).shape == (0, 3)


def test_errors(fdev):
    x = wt.ones(4, device=fdev)
    with pytest.raises(ValueError, match=r"wt.fft.fft: norm must be 'backward', 'ortho' or "
                                         r"'forward', got 'none'"):
        F.fft(x, norm="none")
    with pytest.raises(ValueError, match=r"wt.fft.fft: invalid number of data points n=0; it "
                                         r"must be >= 1"):
        F.fft(x, n=0)
    with pytest.raises(TypeError, match=r"wt.fft.ifft: n must be an int, got 2.0"):
        F.ifft(x, n=2.0)
    with pytest.raises(ValueError, match=r"wt.fft.fft: needs at least 1 dimension"):
        F.fft(wt.asarray(1.0, device=fdev))
    with pytest.raises(ValueError, match=r"wt.fft.fft: invalid number of data points n=0 \(axis "
                                         r"0 is empty\)"):
        F.fft(wt.ones(0, device=fdev))
    with pytest.raises(ValueError, match=r"wt.fft.irfft: invalid number of data points n=0 "
                                         r"\(from an input of length 1 along axis 0\)"):
        F.irfft(wt.ones(1, device=fdev))
    with pytest.raises(TypeError, match=r"wt.fft.rfft: not supported for complex64"):
        F.rfft(wt.ones(4, dtype=wt.complex64, device=fdev))
    with pytest.raises(ValueError, match=r"wt.fft.fft: axis 1 is out of bounds"):
        F.fft(x, axis=1)
    m = wt.ones((2, 3), device=fdev)
    with pytest.raises(ValueError, match=r"wt.fft.fftn: s has 1 entries but there are 2 axes"):
        F.fftn(m, s=(2,), axes=(0, 1))
    with pytest.raises(ValueError, match=r"wt.fft.fftn: repeated axis in \(0, 0\)"):
        F.fftn(m, axes=(0, -2))
    with pytest.raises(ValueError, match=r"wt.fft.fftn: s has more entries than the tensor"):
        F.fftn(m, s=(2, 2, 2))
    with pytest.raises(TypeError, match=r"wt.fft.fftn: axes must be a sequence of ints"):
        F.fftn(m, axes=0)
    with pytest.raises(ValueError, match=r"wt.fft.rfftn: invalid number of data points s=0"):
        F.rfftn(m, s=(0, 2))
    with pytest.raises(ValueError, match=r"wt.fft.fftfreq: invalid number of data points n=0"):
        F.fftfreq(0)
    with pytest.raises(TypeError, match=r"wt.fft.rfftfreq: dtype must be a real floating-point "
                                        r"dtype, got int32"):
        F.rfftfreq(4, dtype=wt.int32)


def test_namespace():
    for name in F.__all__:
        assert callable(getattr(F, name)), name
    assert len(F.__all__) == 14
