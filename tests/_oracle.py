"""Shared test helpers: devices for both CPU backends, dtype/shape/value strategies, tensors over
arbitrary strided views, and NumPy reference oracles with exact and ULP comparisons.

Import it from any test module (``tests/`` is on ``sys.path`` under pytest's default import mode)::

    from _oracle import backend_fixture  # noqa: F401  (registers the fixture `backend`)

    def test_something(backend):          # runs once per available CPU backend
        x = wt.asarray([1, 2, 3], device=backend)

What is here
------------
Devices
    ``DEVICES`` maps ``"numpy"`` / ``"python"`` to a :class:`webtensor.device.Device` for each CPU
    backend that imports here: the NumPy backend when NumPy is installed, the pure-Python backend
    when ``webtensor.backends.cpu_python.PythonBackend`` exists.  The default ``wt.device.cpu`` is
    reused when its backend is of that kind, otherwise a separate ``Device("cpu", Backend)`` is
    made (so both backends are tested whatever ``WEBTENSOR_CPU`` says).  ``"webgpu"`` is added
    when a WebGPU adapter exists (lavapipe in CI), so the op suite runs on it too; otherwise the
    reason is printed.  ``BACKENDS`` is the list
    of ``pytest.param(device, id=name)`` and ``backend`` a session-scoped fixture over it (session
    scope keeps hypothesis' function-scoped-fixture health check quiet), defined here as
    ``backend_fixture`` so that test parameters named ``backend`` shadow no import; the ``dev``
    fixture (module scope) is in conftest.py.  ``REFERENCE`` is the device the others are
    compared with (the NumPy CPU backend, else the pure-Python one), ``OTHER_DEVICES`` the rest;
    ``needs_numpy`` marks tests that need the NumPy oracle.  Create tensors on one
    with ``wt.asarray(..., device=backend)``, or bit-exactly with :func:`tensor_from_storage`.

Strategies (pure Python, so they work under Pyodide without NumPy)
    ``dtype_values(dt, finite=False, bound=None)`` - Python scalars exactly representable in
    ``dt``, weighted towards the edge cases (NaN of both signs, +-inf, -0.0, subnormals, integer
    extremes, 0 as divisor, shift counts around the bit width); ``special_values(dt)`` is the
    deterministic list of those edge cases; ``shapes()`` and ``broadcast_pairs()`` give shapes
    including 0-d and size-0; ``layouts(ndim)`` per-axis steps (negative too) and an offset for
    :func:`tensor_from_storage`.

NumPy oracles (import NumPy lazily; call them only after ``pytest.importorskip("numpy")``)
    ``storage_array(values, dt)`` - a NumPy array holding exactly webtensor's bytes for ``dt``
    (bfloat16 as its uint16 bits); ``compute_values(storage, dt)`` - values NumPy can compute with
    (bfloat16 -> float32); ``ref_cast`` - webtensor's cast rules written independently of the
    backends (float -> int truncates, NaN -> 0, saturates; int -> int wraps; complex -> real drops
    the imaginary part; anything -> bfloat16 goes through float32 and rounds to nearest even);
    ``bf16_round`` / ``bf16_bits``; ``tensor_storage(t)`` reads a tensor's bytes back;
    ``assert_same_values(got, expected, dt, ulp=0)`` compares storage arrays: bitwise for exact
    results, with any NaN matching any NaN (IEEE leaves payload and sign of a computed NaN to the
    hardware), within ``ulp`` units in the last place otherwise (distance in the ordered integer
    image of the float format, so subnormals and the 0/inf boundaries count properly).

Pure-Python helpers: ``bf16_round_py``, ``f16_round_py``, ``f32_round_py`` (scalar rounding with
struct), ``same_float(a, b)`` (bitwise incl. the sign of zero; NaN == NaN), ``in_new_thread``.

Device comparisons (pure Python, so they run in the browser too)
    ``sample_values(dt, n, seed)`` - the special values then deterministic pseudo-random ones;
    :class:`View` - a strided view over a buffer of Python values (or raw bytes) that
    ``on(device)`` makes bit for bit on any device, and ``views()`` its hypothesis strategy;
    ``run_primitive`` calls a backend primitive into a fresh ``out``; :class:`Tol` states a
    tolerance (``EXACT``: any NaN matches any NaN; ``BITS``: NaN payloads too; ULP, normwise
    complex and relative bounds); ``assert_agree(got, want, tol)`` compares two tensors on any
    devices (``mismatches`` on raw bytes; ``ordered_bits`` is the ULP distance's integer image);
    ``both(prim, ...)`` runs a primitive on two devices and compares.  The op-record
    conformance table built on them is ``tests/_op_records.py`` (docs/testing.md).
"""

from __future__ import annotations

import math
import struct

import pytest
from hypothesis import strategies as st

import webtensor as wt
from webtensor.device import Device

try:  # NumPy is optional: under Pyodide the suite runs on the pure-Python backend only.
    import numpy as _np
except ImportError:  # pragma: no cover - exercised under Pyodide
    _np = None

HAS_NUMPY = _np is not None


# -- devices ----------------------------------------------------------------------------------------

def _device_of(backend_cls) -> Device:
    from webtensor import device as _device_mod

    default = _device_mod.cpu
    if isinstance(default.backend, backend_cls):
        return default
    return Device("cpu", backend_cls)


def _available_devices() -> dict[str, Device]:
    found = {}
    try:
        from webtensor.backends.cpu_numpy import NumpyBackend
    except ImportError:
        NumpyBackend = None
    if NumpyBackend is not None:
        found["numpy"] = _device_of(NumpyBackend)
    try:
        from webtensor.backends.cpu_python import PythonBackend
    except ImportError:
        PythonBackend = None
    if PythonBackend is not None:
        found["python"] = _device_of(PythonBackend)
    gpu = _webgpu_device()
    if gpu is not None:
        found["webgpu"] = gpu
    return found


def _webgpu_device() -> Device | None:
    """The webgpu device when an adapter exists (lavapipe in CI), else None with the reason
    printed once, so the suite says why it ran on the CPU only."""
    import os

    if os.environ.get("WEBTENSOR_TEST_WEBGPU") == "0":
        print("\nwebgpu tests skipped: WEBTENSOR_TEST_WEBGPU=0")
        return None
    try:
        from webtensor.backends.webgpu import probe
    except ImportError as e:  # pragma: no cover - no wgpu installed
        print(f"\nwebgpu tests skipped: {e}")
        return None
    found = probe()
    if not found.available:
        print(f"\nwebgpu tests skipped: {found.reason}")
        return None
    from webtensor import device as _device_mod

    return _device_mod.as_device("webgpu")


DEVICES: dict[str, Device] = _available_devices()
BACKENDS = [pytest.param(dev, id=name) for name, dev in DEVICES.items()]
# The device others are compared with: the NumPy CPU backend where NumPy imports, else the
# pure-Python one (Pyodide).  OTHER_DEVICES: the rest, in DEVICES' order.
REFERENCE_NAME = "numpy" if "numpy" in DEVICES else "python"
REFERENCE: Device = DEVICES[REFERENCE_NAME]
OTHER_DEVICES = [dev for name, dev in DEVICES.items() if name != REFERENCE_NAME]

needs_numpy = pytest.mark.skipif(not HAS_NUMPY, reason="the NumPy reference needs NumPy")


def in_new_thread(fn):
    """``fn()`` run in a fresh thread (which sees the process-wide settings, not this thread's
    context-local ones); skips where there are no threads or they inherit the context."""
    import sys
    import threading

    if sys.platform == "emscripten":
        pytest.skip("no threads under Pyodide")
    if getattr(sys.flags, "thread_inherit_context", 0):
        pytest.skip("threads inherit the context in this interpreter")
    out = []
    t = threading.Thread(target=lambda: out.append(fn()))
    t.start()
    t.join()
    return out[0]


def param_id(value) -> str:
    """A parametrized value's test id: its repr, but a bare ``object()`` (a value no API
    accepts) without its address, so pytest-xdist's workers collect the same ids."""
    return "object()" if type(value) is object else repr(value)


def assert_refuses_non_dtype(fn, bad) -> None:
    """``fn(bad, int8)`` and ``fn(int8, bad)`` raise TypeError naming ``fn``, ``bad`` and what
    is expected (for the functions of two dtypes: can_cast, promote_types)."""
    for args in ((bad, wt.int8), (wt.int8, bad)):
        with pytest.raises(TypeError) as info:
            fn(*args)
        msg = str(info.value)
        assert msg.startswith(f"wt.{fn.__name__}:") and repr(bad) in msg
        assert "a dtype or a tensor" in msg


def device_name(device: Device) -> str:
    """The key of ``device`` in DEVICES (numpy, python, webgpu)."""
    return next(name for name, dev in DEVICES.items() if dev is device)


@pytest.fixture(scope="session", params=BACKENDS, name="backend")
def backend_fixture(request) -> Device:
    """A CPU device per available backend (NumPy, pure Python); the fixture is ``backend``."""
    return request.param


def backend_name(device: Device) -> str:
    return device.backend.name


# -- dtype facts ------------------------------------------------------------------------------------

INT_DTYPES = tuple(wt.all_int_dtypes)
FLOAT_DTYPES = tuple(wt.all_float_dtypes)
COMPLEX_DTYPES = tuple(wt.all_complex_dtypes)
ALL_DTYPES = tuple(wt.all_dtypes)

# (explicit mantissa bits, exponent bits, storage bits) of the binary float formats.
FLOAT_FORMAT = {wt.float16: (10, 5, 16), wt.bfloat16: (7, 8, 16), wt.float32: (23, 8, 32),
                wt.float64: (52, 11, 64)}


def float_part(dt):
    """The real float dtype of a float or complex dtype."""
    return dt.real_dtype


def _pack_f32(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


def _unpack_f32(bits: int) -> float:
    return struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))[0]


def f32_round_py(x: float) -> float:
    """``x`` rounded to float32 (nearest even); overflow gives +-inf."""
    if math.isnan(x) or math.isinf(x):
        return x
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        # struct refuses values beyond float32's max; IEEE rounding gives inf from the midpoint
        # between max and 2**128 on (a tie rounds to even, and max's last bit is odd).
        big = 2.0 ** 128 - 2.0 ** 103  # max + half an ulp
        if abs(x) >= big:
            return math.copysign(math.inf, x)
        return math.copysign(3.4028234663852886e38, x)


def f16_round_py(x: float) -> float:
    """``x`` rounded to float16 (nearest even); overflow gives +-inf."""
    if math.isnan(x) or math.isinf(x):
        return x
    try:
        return struct.unpack("<e", struct.pack("<e", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x) if abs(x) >= 65520.0 else math.copysign(65504.0, x)


def bf16_bits_py(x: float) -> int:
    """bfloat16 bits of ``x``: first rounded to float32, then to bfloat16 (nearest even)."""
    bits = _pack_f32(f32_round_py(x))
    if (bits & 0x7FFFFFFF) > 0x7F800000:
        return (bits >> 16) | 0x0040
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF


def bf16_from_bits_py(bits: int) -> float:
    return _unpack_f32(bits << 16)


def bf16_round_py(x: float) -> float:
    return bf16_from_bits_py(bf16_bits_py(x))


ROUND_PY = {wt.float16: f16_round_py, wt.bfloat16: bf16_round_py, wt.float32: f32_round_py,
            wt.float64: float}


def same_float(a: float, b: float) -> bool:
    """Bitwise equal as doubles, except that any NaN equals any NaN (the sign of 0 counts)."""
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)


def finfo_py(dt):
    return wt.finfo(dt)


# -- value strategies (pure Python) -----------------------------------------------------------------

def _int_specials(dt) -> list[int]:
    info = wt.iinfo(dt)
    bits = dt.bits
    vals = {0, 1, 2, 3, 7, bits - 1, bits, bits + 1, info.max, info.max - 1, info.max // 2,
            info.max // 2 + 1}
    if dt.kind == "i":
        vals |= {-1, -2, -3, -7, info.min, info.min + 1, -(bits - 1)}
    if dt.bits == 64:
        # Values whose int -> float32 conversion double-rounds when it goes through float64.
        vals |= {2 ** 60 + 2 ** 36 + 1, 2 ** 53 + 1}
        if dt.kind == "i":
            vals |= {-(2 ** 60 + 2 ** 36 + 1)}
        else:
            vals |= {2 ** 63 + 2 ** 39 + 1}
    if dt.bits == 32:
        vals |= {2 ** 24 + 2 ** 16 + 1, 2 ** 24 + 1}  # int -> bfloat16 / float32 rounding
    return sorted(v for v in vals if info.min <= v <= info.max)


def _float_specials(dt) -> list[float]:
    fi = wt.finfo(dt)
    rnd = ROUND_PY[dt]
    raw = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 3.0, -3.0, 0.75, 0.1, -0.3,
           2.0, 10.0, -7.0, 100.5, 1e4, -1e4, math.pi, -math.e, 1e30, fi.eps, 1.0 + fi.eps,
           fi.smallest_normal, -fi.smallest_normal, fi.smallest_subnormal,
           -fi.smallest_subnormal, 3 * fi.smallest_subnormal, fi.max, -fi.max,
           math.inf, -math.inf, math.nan, -math.nan]
    out, seen = [], set()
    for v in raw:
        r = rnd(v)
        key = struct.pack("<d", r) if not math.isnan(r) else ("nan", math.copysign(1, r))
        if key not in seen:
            seen.add(key)
            out.append(r)
    return out


def special_values(dt, *, finite: bool = False) -> list:
    """A deterministic list of edge-case values of ``dt`` (Python scalars, exact in ``dt``)."""
    if dt.kind == "b":
        return [False, True]
    if dt.kind in "iu":
        return _int_specials(dt)
    if dt.kind == "f":
        vals = _float_specials(dt)
        return [v for v in vals if math.isfinite(v)] if finite else vals
    part = dt.real_dtype
    rnd = ROUND_PY[part]
    reals = [0.0, -0.0, 1.0, -1.5, 2.5, rnd(0.3)]
    if not finite:
        reals += [math.inf, -math.inf, math.nan]
    return [complex(a, b) for a in reals for b in reals]


def _float_strategy(dt, finite: bool, bound):
    if dt is wt.bfloat16:
        strat = st.integers(0, 0xFFFF).map(bf16_from_bits_py)
        if finite or bound is not None:
            strat = strat.filter(math.isfinite)
        if bound is not None:
            strat = strat.filter(lambda v: abs(v) <= bound)
        return strat
    width = FLOAT_FORMAT[dt][2]
    if bound is not None:
        return st.floats(-bound, bound, width=width)
    return st.floats(width=width, allow_nan=not finite, allow_infinity=not finite)


def dtype_values(dt, *, finite: bool = False, bound=None):
    """A strategy of Python scalars exactly representable in ``dt``.

    ``finite`` drops NaN and infinities; ``bound`` keeps floats (complex parts) within
    ``[-bound, bound]``.  Edge cases come up often: a third of the draws are special values.
    """
    if dt.kind == "b":
        return st.booleans()
    if dt.kind in "iu":
        info = wt.iinfo(dt)
        return st.one_of(st.sampled_from(_int_specials(dt)), st.integers(info.min, info.max))
    if dt.kind == "f":
        specials = [v for v in _float_specials(dt)
                    if (not finite and bound is None) or math.isfinite(v)]
        if bound is not None:
            specials = [v for v in specials if abs(v) <= bound]
        return st.one_of(st.sampled_from(specials), _float_strategy(dt, finite, bound),
                         _float_strategy(dt, finite, bound))
    part = dt.real_dtype
    comp = dtype_values(part, finite=finite, bound=bound)
    return st.builds(complex, comp, comp)


# -- shapes and layouts -----------------------------------------------------------------------------

def shapes(min_dims=0, max_dims=3, min_side=0, max_side=3):
    """Shapes including 0-d and size-0 ones."""
    return st.lists(st.integers(min_side, max_side), min_size=min_dims,
                    max_size=max_dims).map(tuple)


@st.composite
def broadcast_pairs(draw, max_dims=3, max_side=3):
    """Two shapes that broadcast together: leading axes dropped and some sides set to 1."""
    base = draw(shapes(0, max_dims, 0, max_side))
    out = []
    for _ in range(2):
        keep = draw(st.integers(0, len(base)))
        shape = list(base[len(base) - keep:])
        for i in range(len(shape)):
            if draw(st.integers(0, 3)) == 0:
                shape[i] = 1
        out.append(tuple(shape))
    return tuple(out)


def layouts(ndim: int):
    """(steps per axis, offset) for :func:`tensor_from_storage`: steps in +-1, +-2."""
    return st.tuples(st.tuples(*[st.sampled_from((1, 2, -1, -2)) for _ in range(ndim)]),
                     st.sampled_from((0, 3)))


def size_of(shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


# -- NumPy oracles ----------------------------------------------------------------------------------

def _numpy():
    if _np is None:  # pragma: no cover
        pytest.skip("needs NumPy")
    return _np


def np_compute_dtype(dt):
    """The NumPy dtype values of ``dt`` are computed in (bfloat16 -> float32)."""
    np = _numpy()
    return np.dtype(np.float32) if dt is wt.bfloat16 else np.dtype(dt.name)


def np_storage_dtype(dt):
    """The NumPy dtype of webtensor's bytes for ``dt`` (bfloat16 -> uint16)."""
    np = _numpy()
    return np.dtype(np.uint16) if dt is wt.bfloat16 else np.dtype(dt.name)


def bf16_bits(x):
    """float32-convertible array -> bfloat16 bits (uint16), rounding to nearest even, NaN quiet.

    Written independently of ``cpu_numpy.f32_to_bf16`` so the NumPy backend is checked too."""
    np = _numpy()
    x = np.asarray(x, dtype=np.float32)
    bits = x.view(np.uint32).astype(np.uint64)
    nan = (bits & 0x7FFFFFFF) > 0x7F800000
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    out = np.where(nan, (bits >> 16) | 0x40, rounded)
    return (out & 0xFFFF).astype(np.uint16)


def bf16_to_f32(bits):
    np = _numpy()
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)


def bf16_round(x):
    """float32 values rounded to the nearest bfloat16 (as float32)."""
    return bf16_to_f32(bf16_bits(x))


def storage_array(values, dt, shape=None):
    """Python scalars (exact in ``dt``) -> NumPy array of webtensor's storage for ``dt``."""
    np = _numpy()
    if dt is wt.bfloat16:
        arr = bf16_bits(np.array(values, dtype=np.float64).astype(np.float32))
    elif dt.kind in "iu":
        arr = np.array([int(v) for v in values], dtype=object).astype(np.dtype(dt.name))
    else:
        arr = np.array(values, dtype=np.dtype(dt.name))
    arr = arr.reshape(-1)
    if shape is not None:
        arr = arr.reshape(shape)
    return arr


def compute_values(storage, dt):
    """Storage array -> values NumPy computes with (bfloat16 bits -> float32)."""
    np = _numpy()
    return bf16_to_f32(storage) if dt is wt.bfloat16 else np.asarray(storage)


def ref_cast(values, dst):
    """Computable values (any NumPy dtype) -> computable values of ``dst`` with webtensor's rules.

    bool: != 0.  int <- float/complex: truncate the real part, NaN -> 0, saturate.  int <- int:
    two's complement wrap.  real float <- complex: the real part.  bfloat16: via float32, then
    nearest even (returned as exact float32 values).  Others: NumPy's astype (nearest even).
    """
    np = _numpy()
    values = np.asarray(values)
    src = values.dtype.kind
    if dst.kind == "b":
        return values != 0
    if dst.kind in "iu":
        target = np.dtype(dst.name)
        if src in "fc":
            info = wt.iinfo(dst)
            v = np.real(values).astype(np.float64)
            with np.errstate(invalid="ignore"):
                t = np.trunc(v)
            out = np.zeros(v.shape, dtype=target)
            ok = ~np.isnan(t)
            hi = ok & (t >= float(info.max))
            lo = ok & (t <= float(info.min))
            mid = ok & ~hi & ~lo
            out[mid] = t[mid].astype(target)
            out[hi] = info.max
            out[lo] = info.min
            return out
        return values.astype(target, casting="unsafe")
    if src == "c" and dst.kind == "f":
        values = np.real(values)
    if dst is wt.bfloat16:
        with np.errstate(over="ignore"):
            return bf16_round(values.astype(np.float32))
    with np.errstate(over="ignore", invalid="ignore"):
        return values.astype(np.dtype(dst.name))


def to_storage(values, dt):
    """Computable values already of ``dt`` -> storage array (bfloat16 -> bits)."""
    np = _numpy()
    if dt is wt.bfloat16:
        return bf16_bits(values)
    return np.asarray(values).astype(np.dtype(dt.name), copy=False)


def tensor_from_storage(storage, dt, device, *, layout=None, weak=False, names=None):
    """A tensor with exactly the bytes of ``storage`` (NumPy array of the storage dtype).

    ``layout=(steps, offset)`` builds a strided view instead of a contiguous tensor: the values
    are scattered into a larger buffer filled with garbage (0xA5 bytes), every ``steps[i]``-th
    element along axis ``i`` (negative steps walk backwards), starting ``offset`` elements in.
    """
    np = _numpy()
    from webtensor.tensor import Tensor

    storage = np.asarray(storage, dtype=np_storage_dtype(dt), order="C")
    shape = tuple(storage.shape)
    if layout is None:
        data = device.backend.from_bytes(dt, storage.tobytes())
        return Tensor._wrap(data, shape, dt, device, weak=weak, names=names)
    steps, pad = layout
    steps = tuple(steps)[:len(shape)]
    big = tuple(abs(s) * n for s, n in zip(steps, shape))
    flat = np.frombuffer(b"\xa5" * ((pad + size_of(big)) * storage.itemsize),
                         dtype=storage.dtype).copy()
    view = flat[pad:].reshape(big)
    if steps:  # (indexing a 0-d array with () would give a scalar, not a view)
        view = view[tuple(slice(None, None, s) for s in steps)]
    view[...] = storage
    itemsize = storage.itemsize
    if storage.size:
        offset = (view.__array_interface__["data"][0] - flat.__array_interface__["data"][0])
        offset //= itemsize
    else:
        offset = pad
    strides = tuple(s // itemsize for s in view.strides)
    data = device.backend.from_bytes(dt, flat.tobytes())
    return Tensor._wrap(data, shape, dt, device, strides=strides, offset=offset, weak=weak,
                        names=names)


def tensor_storage(t):
    """A tensor's bytes as a NumPy storage array of its shape (via ``tobytes``)."""
    np = _numpy()
    return np.frombuffer(t.tobytes(), dtype=np_storage_dtype(t.dtype)).reshape(t.shape)


# -- comparison -------------------------------------------------------------------------------------

def _ordered(bits, nbits):
    """Float bit patterns (as unsigned ints in int64/object) -> ordered integers; +-0 -> 0."""
    np = _numpy()
    bits = bits.astype(np.uint64)
    sign = (bits >> np.uint64(nbits - 1)) & np.uint64(1)
    mag = (bits & np.uint64((1 << (nbits - 1)) - 1)).astype(np.int64)
    return np.where(sign == 1, -mag, mag)


def float_bits(storage, dt):
    np = _numpy()
    uint = {16: np.uint16, 32: np.uint32, 64: np.uint64}[FLOAT_FORMAT[dt][2]]
    return np.asarray(storage, order="C").view(uint)


def ulp_distance(a, b, dt):
    """Elementwise distance in units in the last place between two storage arrays of float
    dtype ``dt`` (NaN positions are the caller's business)."""
    nbits = FLOAT_FORMAT[dt][2]
    return abs(_ordered(float_bits(a, dt), nbits) - _ordered(float_bits(b, dt), nbits))


def ulps32(a, b):
    """ULP distance between float32 arrays (NumPy); NaN matches NaN, inf only itself."""
    np = _numpy()
    a = np.ascontiguousarray(a, dtype=np.float32)
    b = np.ascontiguousarray(b, dtype=np.float32)
    dist = np.abs(_ordered(a.view(np.uint32).astype(np.uint64), 32)
                  - _ordered(b.view(np.uint32).astype(np.uint64), 32))
    return np.where(np.isnan(a) & np.isnan(b), 0, dist)


def ulps_apart32(a: float, b: float) -> int:
    """Distance in float32 steps between two Python floats (pure Python: runs anywhere)."""
    return abs(ordered_bits(_pack_f32(a), 32) - ordered_bits(_pack_f32(b), 32))


def _nan_mask(storage, dt):
    return compute_values(storage, dt) != compute_values(storage, dt)


def mismatch_mask(got, expected, dt, *, ulp=0, zero_sign=True):
    """Boolean mask of elements where storage arrays differ beyond the allowed tolerance.

    Exact (``ulp=0``): identical bits, any NaN matching any NaN; ``zero_sign=False`` lets +0 and
    -0 match.  ``ulp>0``: within that many ULP; infinities must match exactly (inf is one ULP
    from max, so it is checked separately), zeros of either sign match.
    """
    np = _numpy()
    got = np.asarray(got)
    expected = np.asarray(expected)
    if got.shape != expected.shape:
        raise AssertionError(f"shape {got.shape} != expected {expected.shape}")
    if dt.kind in "biu":
        return got != expected
    if dt.kind == "c":
        part = dt.real_dtype
        pdt = np.dtype(part.name)
        g = np.ascontiguousarray(got).reshape(-1).view(pdt).reshape(got.shape + (2,))
        e = np.ascontiguousarray(expected).reshape(-1).view(pdt).reshape(expected.shape + (2,))
        m = mismatch_mask(g, e, part, ulp=ulp, zero_sign=zero_sign)
        return m.any(axis=-1)
    gn, en = _nan_mask(got, dt), _nan_mask(expected, dt)
    both_nan = gn & en
    if ulp == 0:
        gb, eb = float_bits(got, dt), float_bits(expected, dt)
        diff = gb != eb
        if not zero_sign:
            gv, ev = compute_values(got, dt), compute_values(expected, dt)
            diff &= ~((gv == 0) & (ev == 0))
        return np.where(both_nan, False, diff | (gn != en))
    gv, ev = compute_values(got, dt), compute_values(expected, dt)
    inf_bad = (np.isinf(gv) | np.isinf(ev)) & (gv != ev)
    dist = ulp_distance(got, expected, dt)
    return np.where(both_nan, False, (gn != en) | inf_bad | (dist > ulp))


def describe(storage, dt):
    """Values of a storage array as a list of Python scalars, for failure messages."""
    np = _numpy()
    return np.asarray(compute_values(storage, dt)).reshape(-1).tolist()


def assert_same_values(got, expected, dt, *, ulp=0, zero_sign=True, context="", inputs=()):
    """Assert two storage arrays of dtype ``dt`` agree (see :func:`mismatch_mask`)."""
    np = _numpy()
    bad = mismatch_mask(got, expected, dt, ulp=ulp, zero_sign=zero_sign)
    if np.any(bad):
        idx = np.argwhere(np.asarray(bad).reshape(np.shape(bad)))[:5]
        lines = [f"{context}: {int(np.sum(bad))} of {np.size(bad)} elements differ "
                 f"(dtype {dt.name}, tolerance {ulp} ulp)"]
        gv = np.asarray(compute_values(got, dt))
        ev = np.asarray(compute_values(expected, dt))
        for i in idx:
            i = tuple(int(k) for k in i)
            ins = ", ".join(repr(np.broadcast_to(np.asarray(a), np.shape(bad))[i].item())
                            for a in inputs)
            lines.append(f"  at {i}: inputs ({ins}) got {gv[i]!r} expected {ev[i]!r}")
        raise AssertionError("\n".join(lines))


def assert_complex_close(got, expected, dt, *, eps_factor=8, context="", inputs=()):
    """Complex results of multi-step formulas (multiply, divide, sqrt, transcendental): where the
    expected value is finite, ``|got - expected| <= eps_factor * eps * max(|expected|, tiny)``
    (a normwise error, which libraries guarantee; componentwise ULP is not); where it has a
    non-finite part, ``got`` must too (C99 Annex G special cases are not compared)."""
    np = _numpy()
    got = np.asarray(got).astype(np.complex128)
    expected = np.asarray(expected).astype(np.complex128)
    fi = wt.finfo(dt)
    finite = np.isfinite(expected)
    with np.errstate(all="ignore"):
        err = np.abs(got - expected)
        scale = np.maximum(np.abs(expected), fi.smallest_normal)
        bad = np.where(finite, ~(err <= eps_factor * fi.eps * scale), np.isfinite(got))
    if np.any(bad):
        i = np.argwhere(bad)[:5]
        rows = []
        for j in i:
            j = tuple(int(k) for k in j)
            ins = ", ".join(repr(np.broadcast_to(np.asarray(a), bad.shape)[j].item())
                            for a in inputs)
            rows.append(f"  at {j}: inputs ({ins}) got {got[j]!r} expected {expected[j]!r}")
        raise AssertionError(f"{context}: {int(bad.sum())} of {bad.size} complex elements "
                             f"differ beyond {eps_factor} eps\n" + "\n".join(rows))


# -- inputs that exist on every device (pure Python) ------------------------------------------------

def sample_values(dt, n: int, seed: int = 0) -> list:
    """``special_values(dt)`` then ``n`` pseudo-random values exact in ``dt`` (deterministic):
    integers half anywhere in range, half near zero (wrapped into range); floats 70 %
    log-uniform magnitudes in e^(+-30), 30 % uniform in [-4, 4]; complex pairs of those."""
    import random

    rnd = random.Random(seed * 7919 + sum(dt.name.encode()))
    vals = list(special_values(dt))
    if dt.kind == "b":
        return vals + [rnd.random() < 0.5 for _ in range(n)]
    if dt.kind in "iu":
        info = wt.iinfo(dt)
        span = info.max - info.min + 1
        return vals + [rnd.randint(info.min, info.max) if rnd.random() < 0.5 else
                       (rnd.randint(-40, 40) - info.min) % span + info.min for _ in range(n)]
    part = dt.real_dtype
    rnd_part = ROUND_PY[part]
    reals = [rnd_part(math.copysign(math.exp(rnd.uniform(-30, 30)), rnd.random() - 0.5)
                      if rnd.random() < 0.7 else rnd.uniform(-4, 4)) for _ in range(n)]
    if dt.kind == "f":
        return vals + reals
    return vals + [complex(r, reals[-i - 1]) for i, r in enumerate(reals)]


class View:
    """A strided view over a buffer of canonical Python values (or raw bytes), the same on every
    device: ``on(device)`` makes the tensor there, bit for bit.

    ``strides`` are in elements and may be 0 (broadcast) or negative; ``offset`` is where the
    view starts in the buffer.
    """

    __slots__ = ("dt", "shape", "strides", "offset", "buffer", "raw", "weak")

    def __init__(self, dt, shape, strides=None, offset=0, buffer=(), *, raw=None, weak=False):
        from webtensor import shape as _s

        self.dt, self.shape = dt, tuple(shape)
        self.strides = _s.contiguous_strides(self.shape) if strides is None else tuple(strides)
        self.offset, self.buffer, self.raw, self.weak = offset, list(buffer), raw, weak

    @classmethod
    def of(cls, dt, values, shape=None, *, weak=False) -> View:
        """A contiguous view of ``values`` (shape defaults to 1-D)."""
        return cls(dt, (len(values),) if shape is None else shape, None, 0, values, weak=weak)

    def bytes(self) -> bytes:
        from webtensor.backends import _pycodec

        return self.raw if self.raw is not None else _pycodec.to_bytes(self.buffer, self.dt)

    def on(self, device):
        from webtensor.tensor import Tensor

        data = device.backend.from_bytes(self.dt, self.bytes())
        return Tensor._wrap(data, self.shape, self.dt, device, strides=self.strides,
                            offset=self.offset, weak=self.weak)

    @property
    def values(self) -> list:
        """The view's elements in C order (Python scalars)."""
        from webtensor import shape as _s

        buf = self.buffer
        if self.raw is not None:
            from webtensor.backends.cpu_python import PythonBackend

            buf = PythonBackend().from_bytes(self.dt, self.raw)
        return [buf[o] for o in _s.flat_offsets(self.shape, self.strides, self.offset)]

    def element_bytes(self) -> bytes:
        """The bytes of the view's elements in C order (what ``on(device).tobytes()`` gives on
        a device that keeps every bit)."""
        from webtensor import shape as _s

        raw, size = self.bytes(), self.dt.itemsize
        return b"".join(raw[o * size:(o + 1) * size]
                        for o in _s.flat_offsets(self.shape, self.strides, self.offset))

    def storage(self):
        """The view's elements as a NumPy storage array (see :func:`storage_array`)."""
        np = _numpy()
        flat = np.frombuffer(self.bytes(), dtype=np_storage_dtype(self.dt))
        from webtensor import shape as _s

        idx = list(_s.flat_offsets(self.shape, self.strides, self.offset))
        return flat[idx].reshape(self.shape) if idx else flat[:0].reshape(self.shape)

    def __repr__(self) -> str:
        return (f"View({self.dt.name}, shape={self.shape}, strides={self.strides}, "
                f"offset={self.offset}, values={self.values!r}{', weak' if self.weak else ''})")


def view_layout(shape, steps, pad: int):
    """(strides, offset, buffer size) of a view with per-axis ``steps`` (0: broadcast, negative:
    walking backwards) starting ``pad`` elements into its buffer."""
    from webtensor import shape as _s

    big = tuple(abs(s) * n if s else 1 for s, n in zip(steps, shape))
    base = _s.contiguous_strides(big)
    strides = tuple(s * b for s, b in zip(steps, base))
    offset = pad
    if _s.size_of(shape):
        offset += sum((n - 1) * -st_ for n, st_ in zip(shape, strides) if st_ < 0)
    return strides, offset, pad + _s.size_of(big)


@st.composite
def views(draw, dt, shape=None, *, max_dims=3, max_side=4, min_side=0, finite=False,
          bound=None, contiguous=False, values=None):
    """A :class:`View` of ``dt``: a drawn (or given) shape, per-axis steps in 1, 2, -1, -2 and 0
    (a broadcast axis) with an offset (unless ``contiguous``), values from ``values`` or
    :func:`dtype_values`."""
    if shape is None:
        shape = tuple(draw(st.lists(st.integers(min_side, max_side), max_size=max_dims)))
    if contiguous:
        steps, pad = (1,) * len(shape), 0
    else:
        steps = tuple(draw(st.sampled_from((1, 1, 2, -1, -2, 0))) for _ in shape)
        pad = draw(st.sampled_from((0, 0, 1, 3)))
    strides, offset, size = view_layout(shape, steps, pad)
    strat = values if values is not None else dtype_values(dt, finite=finite, bound=bound)
    buf = draw(st.lists(strat, min_size=size, max_size=size))
    return View(dt, tuple(shape), strides, offset, buf)


# -- running primitives and comparing devices (pure Python) -----------------------------------------

# Primitives that take the op name before ``out``: ``unary(op, out, x)``.
OP_FIRST = frozenset({"unary", "binary", "reduce", "arg_reduce", "scan"})


def run_primitive(device, prim: str, out_shape, out_dt, *args, **kwargs):
    """Backend primitive ``prim`` on ``device`` into a fresh ``out`` (placed after the op name
    for the op-first primitives); :class:`View` arguments become tensors there.  An empty
    ``out`` is not computed (the frontend never asks for one)."""
    from webtensor.tensor import empty

    args = [a.on(device) if isinstance(a, View) else a for a in args]
    out = empty(tuple(out_shape), out_dt, device)
    if not out.size:
        return out
    fn = getattr(device.backend, prim)
    if prim in OP_FIRST:
        fn(args[0], out, *args[1:], **kwargs)
    else:
        fn(out, *args, **kwargs)
    return out


class Tol:
    """How far two devices' (or a device's and an oracle's) results may be apart.

    Exact by default: identical bytes, except that any NaN matches any NaN (IEEE leaves a
    computed NaN's sign and payload open).  ``nan_bits``: a NaN must keep its bits too (data
    movement, exact arithmetic), or ``"unless both inputs are NaN"`` with the string
    ``"inputs"`` (which NaN an op on two NaNs returns is up to the hardware).  ``ulp``: float
    parts within that many units in the last place (infinities exact, zeros of either sign
    match); ``ulp_at_inputs``: measured in float32 ULP of ``max(|want|, |inputs|)`` (results
    that cancel).  ``complex_eps``: complex elements normwise, ``|got - want| <= complex_eps *
    eps * max(|want|, tiny)`` where ``want`` is finite; where it is not, ``got`` must be NaN or
    infinite like it (C99 Annex G special cases).  ``rel_eps``: floats within ``rel_eps * eps *
    max|want|`` (accumulations whose order differs between devices).  ``zero_sign=False``: +0
    and -0 match.
    """

    __slots__ = ("ulp", "complex_eps", "rel_eps", "nan_bits", "zero_sign", "ulp_at_inputs")

    def __init__(self, ulp=0, *, complex_eps=0, rel_eps=0, nan_bits=False, zero_sign=True,
                 ulp_at_inputs=False):
        self.ulp, self.complex_eps, self.rel_eps = ulp, complex_eps, rel_eps
        self.nan_bits, self.zero_sign, self.ulp_at_inputs = nan_bits, zero_sign, ulp_at_inputs

    def __repr__(self) -> str:
        parts = [f"{k}={getattr(self, k)!r}" for k in self.__slots__
                 if getattr(self, k) != Tol.DEFAULTS[k]]
        return f"Tol({', '.join(parts)})"


Tol.DEFAULTS = {"ulp": 0, "complex_eps": 0, "rel_eps": 0, "nan_bits": False, "zero_sign": True,
                "ulp_at_inputs": False}
EXACT = Tol()  # identical bytes, any NaN matching any NaN
BITS = Tol(nan_bits=True)  # identical bytes


def _words(raw: bytes, size: int) -> list:
    return memoryview(raw).cast({1: "B", 2: "H", 4: "I", 8: "Q"}[size]).tolist()


def _float_of_bits(bits: int, dt) -> float:
    if dt is wt.bfloat16:
        return _unpack_f32(bits << 16)
    code = {wt.float16: "<He", wt.float32: "<If", wt.float64: "<Qd"}[dt]
    return struct.unpack(code[2], struct.pack(code[:2], bits))[0]


def ordered_bits(bits: int, width: int) -> int:
    """A float's bit pattern as an integer that orders like the values (+-0 -> 0), so that the
    distance of two finite floats in ULP is the difference of their images."""
    sign = 1 << (width - 1)
    return -(bits & (sign - 1)) if bits & sign else bits


def _ulp32_at(x: float) -> float:
    """The float32 ULP at magnitude ``x``."""
    x = abs(x)
    if not math.isfinite(x):
        return math.inf
    e = math.frexp(x)[1] if x else -125
    return 2.0 ** (max(e, -125) - 24)


def _complex_close(g: complex, w: complex, bound: float, tiny: float) -> bool:
    def nan(z):
        return z.real != z.real or z.imag != z.imag

    def inf(z):
        return math.isinf(z.real) or math.isinf(z.imag)

    if not (nan(w) or inf(w)):
        return not (nan(g) or inf(g)) and abs(g - w) <= bound * max(abs(w), tiny)
    return (nan(g) and nan(w)) or (inf(g) and inf(w))


def mismatches(got: bytes, want: bytes, dt, tol: Tol = EXACT, *, inputs=None) -> list:
    """Indices of the elements where two buffers of ``dt`` disagree beyond ``tol`` (pure
    Python).  ``inputs``: per element, the input values (for ``nan_bits="inputs"`` and
    ``ulp_at_inputs``)."""
    if dt.kind not in "fc":
        g, w = _words(got, dt.itemsize), _words(want, dt.itemsize)
        return [i for i, (a, b) in enumerate(zip(g, w)) if a != b]
    part = dt.real_dtype
    mant, exp_bits, width = FLOAT_FORMAT[part]
    g, w = _words(got, width // 8), _words(want, width // 8)
    nparts = 2 if dt.kind == "c" else 1
    fi = wt.finfo(part)
    exp_mask = ((1 << exp_bits) - 1) << mant
    man_mask = (1 << mant) - 1
    sign = 1 << (width - 1)

    def is_nan(b):
        return b & exp_mask == exp_mask and b & man_mask

    def is_inf(b):
        return b & exp_mask == exp_mask and not b & man_mask

    def both_inputs_nan(e):
        vals = inputs[e]
        return all(v != v for v in vals)

    if nparts == 2 and (tol.complex_eps or tol.rel_eps):
        def value(words, e):
            return complex(_float_of_bits(words[2 * e], part), _float_of_bits(words[2 * e + 1],
                                                                               part))
        n = len(w) // 2
        if tol.rel_eps:
            mags = [abs(value(w, e)) for e in range(n)]
            scale = max([m for m in mags if math.isfinite(m)] + [1.0])
        bad = []
        for e in range(n):
            if g[2 * e] == w[2 * e] and g[2 * e + 1] == w[2 * e + 1]:
                continue
            gv, wv = value(g, e), value(w, e)
            if tol.complex_eps:
                ok = _complex_close(gv, wv, tol.complex_eps * fi.eps, fi.smallest_normal)
            else:
                ok = (_complex_close(gv, wv, 0.0, 0.0) if not math.isfinite(abs(wv))
                      else abs(gv - wv) <= tol.rel_eps * fi.eps * scale)
            if not ok:
                bad.append(e)
        return bad
    if tol.rel_eps:
        vals = [_float_of_bits(b, part) for b in w]
        scale = max([abs(v) for v in vals if math.isfinite(v)] + [1.0])
    bad = []
    for i, (a, b) in enumerate(zip(g, w)):
        if a == b:
            continue
        e = i // nparts
        if bad and bad[-1] == e:
            continue
        na, nb = is_nan(a), is_nan(b)
        if na or nb:
            ok = na and nb and (not tol.nan_bits or (tol.nan_bits == "inputs"
                                                     and both_inputs_nan(e)))
        elif not tol.zero_sign and not (a & ~sign) and not (b & ~sign):
            ok = True
        elif is_inf(a) or is_inf(b):
            ok = False
        elif tol.ulp_at_inputs:
            fa, fb = _float_of_bits(a, part), _float_of_bits(b, part)
            mag = max([abs(fb)] + [abs(v) for v in inputs[e] if math.isfinite(v)])
            ok = abs(fa - fb) / _ulp32_at(mag) <= tol.ulp
        elif tol.ulp:
            ok = abs(ordered_bits(a, width) - ordered_bits(b, width)) <= tol.ulp
        elif tol.rel_eps:
            fa, fb = _float_of_bits(a, part), _float_of_bits(b, part)
            ok = abs(fa - fb) <= tol.rel_eps * fi.eps * scale
        else:
            ok = False
        if not ok:
            bad.append(e)
    return bad


def assert_agree(got, want, tol: Tol = EXACT, context: str = "", *, inputs=None) -> None:
    """Two tensors (any devices) have the same shape and dtype and agree within ``tol``
    (see :class:`Tol`); the message shows the first differing elements."""
    assert got.shape == want.shape and got.dtype is want.dtype, (
        f"{context}: got {got.dtype.name}{list(got.shape)}, want {want.dtype.name}"
        f"{list(want.shape)}")
    gb, wb = got.tobytes(), want.tobytes()
    if gb == wb:
        return
    bad = mismatches(gb, wb, got.dtype, tol, inputs=inputs)
    if bad:
        gv, wv = got._backend.to_values(got), want._backend.to_values(want)
        rows = [f"  [{e}] got {gv[e]!r} want {wv[e]!r}"
                + (f" inputs {inputs[e]!r}" if inputs is not None else "") for e in bad[:5]]
        raise AssertionError(f"{context}: {len(bad)} of {len(gv)} elements differ ({tol!r} on "
                             f"{got.device.name} vs {want.device.name})\n" + "\n".join(rows))


def both(prim: str, out_shape, out_dt, *args, tol: Tol = EXACT, context: str = "",
         devices=None, **kwargs):
    """Primitive ``prim`` on two devices (default: the reference CPU device and the first
    other device; :class:`View` arguments become tensors on each) and the results compared
    with :func:`assert_agree`.  Returns ``(reference result, other result)``."""
    ref, dev = devices if devices is not None else (REFERENCE, OTHER_DEVICES[0])
    outs = [run_primitive(d, prim, out_shape, out_dt, *args, **kwargs) for d in (ref, dev)]
    assert_agree(outs[1], outs[0], tol, context or prim)
    return outs[0], outs[1]


def routed_calls(device) -> int:
    """How many primitive calls ``device`` has routed to the CPU so far (0 off webgpu)."""
    return sum(getattr(device.backend, "routed", {}).values())
