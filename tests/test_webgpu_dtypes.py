"""Native WebGPU kernels of the packed and wide dtypes against the CPU device.

Skipped as a whole (reason printed) when wgpu or a WebGPU adapter is missing.

What must hold, for every dtype the webgpu backend computes natively (``backend.NATIVE``: bool,
int8..int64, uint8..uint64, float16, bfloat16, float32, complex64):

* Every elementwise op the op table gives the dtype, every cast between native dtypes, ``where``,
  ``fill`` and ``iota`` equal the CPU device bit for bit (any NaN matches any NaN), except
  ``ops.TRANSCENDENTAL`` float results (within ``TRANSCENDENTAL_ULP`` ULP, the bound the CPU
  documents) and complex64 ``abs`` (a float32 hypot against the CPU's float64 formula: 1 ULP).
  complex64's multi-step formulas (``COMPLEX_FORMULAS``: sqrt, sign, pow, the transcendental
  family) are checked normwise in test_webgpu_complex.py, not here.
* The native path ran: ``backend.routed`` does not grow.
* Packed storage: inputs that are strided or broadcast views, views starting mid-word, and sizes
  that are not a multiple of the packing (1, 3, 5, 4097).
* float16/bfloat16 conversions round once to nearest even: checked exhaustively for float16 ->
  float32 and for every float32 halfway point between neighbouring float16 values (+-1 ULP).
* float64/complex128 work is routed to the CPU with one warning per process.
"""

from __future__ import annotations

import math
import random
import warnings

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import webtensor as wt
from _gpu import webgpu_or_skip  # noqa: E402
from webtensor import _warnings, ops

GPU, CPU, B = webgpu_or_skip()

np = pytest.importorskip("numpy")

from _oracle import (  # noqa: E402
    assert_same_values,
    bf16_bits,
    broadcast_pairs,
    dtype_values,
    layouts,
    size_of,
    special_values,
    storage_array,
    tensor_from_storage,
    tensor_storage,
)
from webtensor.backends.webgpu import elementwise as _elementwise  # noqa: E402
from webtensor.backends.webgpu import exprs as _exprs  # noqa: E402
from webtensor.backends.webgpu.backend import NATIVE  # noqa: E402
from webtensor.tensor import Tensor, empty  # noqa: E402

TRANSCENDENTAL_ULP = 2

PACKED = (wt.int8, wt.uint8, wt.int16, wt.uint16, wt.float16, wt.bfloat16)
WIDE = (wt.int64, wt.uint64, wt.complex64)
NEW = PACKED + WIDE  # the dtypes this module's kernels made native
NATIVE_DTYPES = tuple(NATIVE)


# -- helpers ----------------------------------------------------------------------------------------

def values_of(dt, n: int, seed: int) -> list:
    """Edge cases (``special_values``) then ``n`` pseudo-random values exact in ``dt``."""
    rnd = random.Random(seed * 7919 + sum(dt.name.encode()))
    vals = list(special_values(dt))
    if dt.kind == "b":
        return vals + [rnd.random() < 0.5 for _ in range(n)]
    if dt.kind in "iu":
        info = wt.iinfo(dt)
        small = [rnd.randint(max(info.min, -40), min(info.max, 40)) for _ in range(n // 2)]
        return vals + small + [rnd.randint(info.min, info.max) for _ in range(n - n // 2)]
    part = dt.real_dtype if dt.kind == "c" else dt
    raw = [math.copysign(math.exp(rnd.uniform(-20, 20)), rnd.random() - 0.5)
           if rnd.random() < 0.6 else rnd.uniform(-6, 6) for _ in range(n)]
    reals = [float(v) for v in _round(part, raw)]
    if dt.kind == "f":
        return vals + reals
    return vals + [complex(r, reals[-i - 1]) for i, r in enumerate(reals)]


def _round(dt, values):
    """Python floats rounded to ``dt`` the way the CPU device stores them."""
    t = wt.asarray(values, dtype=wt.float64, device=CPU).astype(dt)
    return t.tolist()


def pair(dt, values, shape=None, strides=None, offset=0):
    """The same values on both devices, viewed with ``shape``/``strides``/``offset``."""
    shape = (len(values),) if shape is None else tuple(shape)
    return pair_raw(dt, storage_array(values, dt).tobytes(), shape, strides, offset)


def pair_raw(dt, raw: bytes, shape, strides=None, offset=0):
    out = []
    for device in (CPU, GPU):
        buf = device.backend.from_bytes(dt, raw)
        out.append(Tensor._wrap(buf, shape, dt, device, strides=strides, offset=offset))
    return tuple(out)


def run(device, prim: str, out_shape, out_dt, *args) -> Tensor:
    """Primitive ``prim`` with a fresh ``out`` (placed after the op name for op-first ones)."""
    out = empty(tuple(out_shape), out_dt, device)
    fn = getattr(device.backend, prim)
    if prim in ("unary", "binary"):
        fn(args[0], out, *args[1:])
    else:
        fn(out, *args)
    return out


def routed() -> int:
    return sum(B.routed.values())


def both(prim: str, out_shape, out_dt, *args, ulp: int = 0, context: str = "",
         native: bool = True):
    """``prim`` on both devices (tensor arguments as (cpu, gpu) pairs): equal results, and no
    routing to the CPU when ``native``."""
    pick = [[a[k] if isinstance(a, tuple) and a and isinstance(a[0], Tensor) else a
             for a in args] for k in (0, 1)]
    want = run(CPU, prim, out_shape, out_dt, *pick[0])
    before = routed()
    got = run(GPU, prim, out_shape, out_dt, *pick[1])
    if native:
        assert routed() == before, f"{context}: routed to the CPU ({B.routed.most_common(3)})"
    assert got.device == GPU and got.shape == want.shape and got.dtype is want.dtype
    inputs = [np.asarray(a[0].tolist()) for a in args
              if isinstance(a, tuple) and a and isinstance(a[0], Tensor)]
    assert_same_values(tensor_storage(got), tensor_storage(want), out_dt, ulp=ulp,
                       context=context or prim, inputs=inputs)
    return got


def applicable(op, dt) -> bool:
    """The op reaches a backend with this dtype (float-rule ops on ints are cast first)."""
    return dt.kind in op.kinds and not (op.result == "float" and dt.kind in "biu")


def out_dtype(op, dt):
    return {"bool": wt.bool, "real": dt.real_dtype,
            "complex": dt.complex_dtype}.get(op.result, dt)


def tolerance(name, dt) -> int:
    if dt.kind in "fc" and name in ops.TRANSCENDENTAL:
        return TRANSCENDENTAL_ULP
    return 1 if dt is wt.complex64 and name == "abs" else 0


def native_expected(name, dt) -> bool:
    table = _exprs.unary if ops.ELEMENTWISE[name].arity == 1 else _exprs.binary
    return table(name, NATIVE[dt]) is not None


def grid(dt, n_random: int, seed: int):
    """x and y covering every pair of edge values, then random pairs."""
    sp = special_values(dt)
    rest = values_of(dt, n_random, seed)[len(sp):]
    return [a for a in sp for _ in sp] + rest, [b for _ in sp for b in sp] + rest[::-1]


# -- every op x dtype -------------------------------------------------------------------------------

# complex64 results of multi-step formulas: componentwise ULP is not what they guarantee
COMPLEX_FORMULAS = frozenset(ops.TRANSCENDENTAL | {"sqrt", "sign"})
UNARY_CASES = [(op.name, dt) for dt in NEW for op in ops.UNARY if applicable(op, dt)
               and not (dt is wt.complex64 and op.name in COMPLEX_FORMULAS)]
BINARY_CASES = [(op.name, dt) for dt in NEW for op in ops.BINARY if applicable(op, dt)
                and not (dt is wt.complex64 and op.name in COMPLEX_FORMULAS)]


@pytest.mark.parametrize("name,dt", UNARY_CASES, ids=[f"{n}-{d}" for n, d in UNARY_CASES])
def test_unary(name, dt):
    x = pair(dt, values_of(dt, 120, seed=1))
    both("unary", x[0].shape, out_dtype(ops.ELEMENTWISE[name], dt), name, x,
         ulp=tolerance(name, dt), native=native_expected(name, dt), context=f"{name}[{dt}]")


@pytest.mark.parametrize("name,dt", BINARY_CASES, ids=[f"{n}-{d}" for n, d in BINARY_CASES])
def test_binary(name, dt):
    xs, ys = grid(dt, 120, seed=2)
    a, b = pair(dt, xs), pair(dt, ys)
    both("binary", a[0].shape, out_dtype(ops.ELEMENTWISE[name], dt), name, a, b,
         ulp=tolerance(name, dt), native=native_expected(name, dt), context=f"{name}[{dt}]")


def test_native_claims_cover_the_ops_of_every_new_dtype():
    """Every op the op table gives a new dtype has a kernel (complex64's formulas included)."""
    for op in ops.UNARY + ops.BINARY:
        for dt in NEW:
            if applicable(op, dt):
                assert native_expected(op.name, dt), (op.name, dt)


@pytest.mark.parametrize("dt", (wt.int64, wt.uint64), ids=str)
def test_int64_division_and_products_on_wide_values(dt):
    """Long division, wrapping products and shifts on values spread over all 64 bits."""
    rnd = random.Random(3)
    info = wt.iinfo(dt)
    xs = [rnd.randint(info.min, info.max) for _ in range(400)]
    ys = [rnd.randint(info.min, info.max) >> rnd.randint(0, 62) for _ in range(400)]
    ys[:6] = [0, 1, -1 if dt.kind == "i" else 2, info.max, info.min, 3]
    xs[:6] = [info.min, info.min, info.min, info.min, info.max, -7 if dt.kind == "i" else 7]
    # divisors and dividends near 2**64
    ys[6:9] = [info.max - 1, (info.max >> 1) + 2, info.max - 12345]
    xs[6:9] = [info.max, info.max - 3, info.max]
    a, b = pair(dt, xs), pair(dt, ys)
    for name in ("floor_divide", "remainder", "multiply", "add", "subtract", "maximum",
                 "less", "greater_equal"):
        out_dt = out_dtype(ops.ELEMENTWISE[name], dt)
        both("binary", a[0].shape, out_dt, name, a, b, context=f"{name}[{dt}] wide")
    counts = pair(dt, [rnd.choice((0, 1, 31, 32, 33, 63, 64, 65, 100)) for _ in xs])
    for name in ("bitwise_left_shift", "bitwise_right_shift"):
        both("binary", a[0].shape, dt, name, a, counts, context=f"{name}[{dt}] counts")
    small = pair(dt, [rnd.randint(-5 if dt.kind == "i" else 0, 70) for _ in xs])
    both("binary", a[0].shape, dt, "pow", a, small, context=f"pow[{dt}]")


PROPERTY = settings(max_examples=40, deadline=None, derandomize=True, database=None,
                    phases=[Phase.explicit, Phase.generate],
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@PROPERTY
@given(data=st.data(), case=st.sampled_from(BINARY_CASES), shapes=broadcast_pairs())
def test_binary_property_on_strided_broadcast_views(data, case, shapes):
    """Any binary op on two broadcast strided views (negative steps, offsets) equals the CPU."""
    name, dt = case
    op = ops.ELEMENTWISE[name]
    views = []
    for k, shape in enumerate(shapes):
        values = data.draw(st.lists(dtype_values(dt), min_size=size_of(shape),
                                    max_size=size_of(shape)), label=f"x{k}")
        layout = data.draw(st.one_of(st.none(), layouts(len(shape))), label=f"layout{k}")
        storage = storage_array(values, dt, shape)
        views.append(tuple(tensor_from_storage(storage, dt, dev, layout=layout)
                           for dev in (CPU, GPU)))
    out_shape = wt.broadcast_shapes(*shapes)
    args = [tuple(t._view(out_shape, _broadcast_strides(t, out_shape), t.offset) for t in v)
            for v in views]
    both("binary", out_shape, out_dtype(op, dt), name, *args, ulp=tolerance(name, dt),
         native=native_expected(name, dt), context=f"{name}[{dt}] {shapes}")


def _broadcast_strides(t, shape):
    lead = len(shape) - t.ndim
    return tuple(0 if d < lead or t.shape[d - lead] == 1 else t.strides[d - lead]
                 for d in range(len(shape)))


# -- packing: views, offsets into words, odd sizes ---------------------------------------------------

# (shape, strides, offset, buffer elements): views over one buffer, starting mid-word.
LAYOUTS = {
    "offset-1": ((7,), (1,), 1, 9),
    "offset-3": ((2, 5), (5, 1), 3, 13),
    "step-3": ((5,), (3,), 2, 17),
    "reversed": ((3, 3), (-3, -1), 8, 9),
    "transposed": ((3, 4), (1, 3), 0, 12),
    "broadcast-row": ((4, 5), (0, 1), 1, 6),
    "broadcast-scalar": ((3, 3), (0, 0), 2, 3),
    "0-d": ((), (), 1, 2),
    "size-0": ((0, 3), (3, 1), 1, 2),
}


def view_pair(dt, layout: str, seed: int):
    shape, strides, offset, size = LAYOUTS[layout]
    return pair(dt, values_of(dt, size, seed)[-size:], shape, strides, offset)


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("dt", NEW, ids=str)
def test_views_and_offsets(dt, layout):
    x = view_pair(dt, layout, seed=4)
    y = view_pair(dt, layout, seed=5)
    shape = x[0].shape
    unary = "negative" if dt.kind != "u" else "bitwise_invert"
    both("unary", shape, dt, unary, x, context=f"{unary} {layout}[{dt}]")
    both("unary", shape, wt.bool, "logical_not", x, context=f"logical_not {layout}[{dt}]")
    both("binary", shape, dt, "add", x, y, context=f"add {layout}[{dt}]")
    both("binary", shape, wt.bool, "equal", x, y, context=f"equal {layout}[{dt}]")
    for dst in (wt.float32, wt.int8, wt.uint16, wt.int64, wt.bfloat16):
        if dst is not dt:
            both("cast", shape, dst, x, context=f"cast {layout}[{dt} -> {dst}]")
    cond = view_pair(wt.bool, layout, seed=6)
    both("where", shape, dt, cond, x, y, context=f"where {layout}[{dt}]")


@pytest.mark.parametrize("n", [1, 3, 5, 4097])
@pytest.mark.parametrize("dt", NEW, ids=str)
def test_sizes_not_a_multiple_of_the_packing(dt, n):
    x = pair(dt, values_of(dt, n, seed=7)[-n:])
    y = pair(dt, values_of(dt, n, seed=8)[-n:])
    both("binary", (n,), dt, "subtract", x, y, context=f"subtract n={n}[{dt}]")
    both("binary", (n,), wt.bool, "not_equal", x, y, context=f"not_equal n={n}[{dt}]")
    both("cast", (n,), wt.uint8 if dt is not wt.uint8 else wt.int16, x,
         context=f"cast n={n}[{dt}]")
    # a view starting one element into the buffer: every packed word straddles two of the input
    off = pair(dt, values_of(dt, n + 1, seed=9)[-(n + 1):], (n,), (1,), 1)
    both("unary", (n,), dt, "positive", off, context=f"positive offset n={n}[{dt}]")


def test_operators_through_the_api_on_views():
    """The frontend path (broadcasting, slicing, in-place ops) on packed and wide dtypes."""
    for dt in NEW:
        data = values_of(dt, 40, seed=10)[-36:]
        outs = []
        for device in (CPU, GPU):
            x = wt.asarray(data, dtype=dt, device=device).reshape((6, 6))
            before = routed()
            r = [(x[1::2, ::-1] + x[0, :]).tobytes(), (x[:, 2:3] == x[1:4:2, 1]).tobytes(),
                 wt.where(x[::2] != x[1::2], x[::2], x[1::2]).tobytes()]
            if device is GPU:
                assert routed() == before, dt
            outs.append(r)
        assert outs[0] == outs[1], dt


# -- casts ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("src", NATIVE_DTYPES, ids=str)
def test_casts_between_native_dtypes(src):
    x = pair(src, values_of(src, 150, seed=11))
    for dst in NATIVE_DTYPES:
        if dst is not src and (src in NEW or dst in NEW):
            both("cast", x[0].shape, dst, x, context=f"cast {src} -> {dst}")


def test_float16_to_float32_exhaustive():
    bits = np.arange(1 << 16, dtype=np.uint16)
    for dt in (wt.float16, wt.bfloat16):
        x = pair_raw(dt, bits.tobytes(), bits.shape)
        got = both("cast", (bits.size,), wt.float32, x, context=f"{dt} -> float32")
        back = both("cast", (bits.size,), dt, (run(CPU, "cast", got.shape, wt.float32, x[0]),
                                               got), context=f"{dt} round trip")
        g = tensor_storage(back).view(np.uint16)
        nan = (bits & 0x7FFF) > (0x7C00 if dt is wt.float16 else 0x7F80)
        assert (g[~nan] == bits[~nan]).all(), dt


def test_float32_to_16_bit_rounds_to_nearest_even():
    """Every halfway point between neighbouring float16 (and a sample of bfloat16) values,
    +-1 float32 ULP, plus overflow and subnormal boundaries, against NumPy's float16 cast and
    an independent bfloat16 rounding."""
    halves = np.arange(0, 0x7C00, dtype=np.uint32)
    lo = halves.astype(np.uint16).view(np.float16).astype(np.float64)
    hi = (halves + 1).astype(np.uint16).view(np.float16).astype(np.float64)
    mid = ((lo + hi) / 2).astype(np.float32)  # exact: halfway points need 12 bits
    near = mid.view(np.uint32)
    around = np.concatenate([near, near + 1, near - 1]).view(np.float32)
    edges = np.array([65504, 65519.996, 65520, 65536, 1e9, 2.0 ** -24, 2.0 ** -25,
                      2.0 ** -25 * 1.0000001, 2.0 ** -26, 1e-30, 2.0 ** -14], dtype=np.float32)
    rnd = np.random.default_rng(12).integers(0, 1 << 32, 50000, dtype=np.uint64)
    values = np.concatenate([around, edges, rnd.astype(np.uint32).view(np.float32)])
    values = np.concatenate([values, -values])
    x32 = pair(wt.float32, values.tolist())
    got16 = run(GPU, "cast", x32[1].shape, wt.float16, x32[1])
    with np.errstate(over="ignore"):
        want16 = values.astype(np.float16).view(np.uint16)
    assert_same_values(tensor_storage(got16).view(np.float16), want16.view(np.float16),
                       wt.float16, context="float32 -> float16")
    gotb = run(GPU, "cast", x32[1].shape, wt.bfloat16, x32[1])
    assert_same_values(tensor_storage(gotb), bf16_bits(values), wt.bfloat16,
                       context="float32 -> bfloat16")


def test_nan_results_stay_quiet():
    for dt in (wt.float16, wt.bfloat16):
        x = pair(dt, [math.nan, -math.nan, math.inf, -math.inf])
        zero = pair(dt, [0.0, 0.0, 0.0, -0.0])
        got = run(GPU, "binary", (4,), dt, "multiply", x[1], zero[1])  # all NaN
        bits = tensor_storage(got).view(np.uint16).astype(np.uint32)
        quiet = 0x0200 if dt is wt.float16 else 0x0040
        exp = 0x7C00 if dt is wt.float16 else 0x7F80
        assert ((bits & exp) == exp).all() and ((bits & quiet) != 0).all(), bits


# -- where, fill, iota ------------------------------------------------------------------------------

@pytest.mark.parametrize("dt", tuple(wt.all_dtypes), ids=str)
def test_where_every_element_size(dt):
    vals = values_of(dt, 40, seed=13)
    n = len(vals)
    cond = pair(wt.bool, [i % 3 == 0 for i in range(n)])
    both("where", (n,), dt, cond, pair(dt, vals), pair(dt, vals[::-1]), context=f"where[{dt}]")
    # a broadcast condition column and a mid-word view of the packed condition
    c = pair(wt.bool, [True, False, True, True], (3, 5), (1, 0), 1)
    a, b = pair(dt, vals[:15], (3, 5)), pair(dt, vals[-5:], (3, 5), (0, 1), 0)
    both("where", (3, 5), dt, c, a, b, context=f"where broadcast[{dt}]")


@pytest.mark.parametrize("dt", NEW, ids=str)
def test_fill(dt):
    for value in values_of(dt, 0, seed=0)[:10]:
        for n in (1, 3, 5, 4097):
            both("fill", (n,), dt, value, context=f"fill {value!r} n={n}[{dt}]")


IOTA_INT = [(0, 1), (5, -3), (2 ** 31 - 3, 1000), (-(2 ** 40) + 7, 2 ** 33 + 5),
            (2 ** 63 + 11, -(2 ** 62)), (-1, 255)]


@pytest.mark.parametrize("dt", [d for d in NATIVE_DTYPES if d.kind in "iu"], ids=str)
def test_iota_integers_wrap(dt):
    for start, step in IOTA_INT:
        for n in (1, 5, 4097):
            both("iota", (n,), dt, start, step, context=f"iota {start}, {step} n={n}[{dt}]")


@pytest.mark.parametrize("dt", (wt.float32, wt.float16, wt.bfloat16), ids=str)
def test_iota_floats(dt):
    for start, step in ((0, 1), (-5, 3), (100.0, -7.0), (2 ** 23, 1), (-3000, 257)):
        both("iota", (4097,), dt, start, step, context=f"iota {start}, {step} [{dt}]")
    # values the float32 kernel could not compute exactly: routed, and still equal
    for start, step in ((0.5, 0.1), (2 ** 24, 3), (1e30, 1.0)):
        both("iota", (67,), dt, start, step, native=False, context=f"iota {start} [{dt}]")
    assert _elementwise._exact_in_f32(0, 1, 1 << 24) and not _elementwise._exact_in_f32(0, 1, 1 + (1 << 24))
    assert not _elementwise._exact_in_f32(True, 1, 3) and not _elementwise._exact_in_f32(0, 0.5, 3)


# -- float64: routed with one warning ----------------------------------------------------------------

def test_float64_work_warns_once(monkeypatch):
    monkeypatch.setattr(_warnings, "_given", set())
    x = wt.asarray([1.5, -2.0, 3.25], dtype=wt.float64, device=GPU)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _ = wt.asarray([1.0], dtype=wt.float32, device=GPU) + 1.0  # native: no warning
        assert not caught
        y = x * 2.0 + x
        z = wt.sin(x).astype(wt.complex128)
    assert y.tolist() == [4.5, -6.0, 9.75] and z.dtype is wt.complex128
    msgs = [str(w.message) for w in caught]
    assert len(msgs) == 1, msgs
    assert msgs[0].startswith("webgpu: float64 work runs on the CPU") and "float32" in msgs[0]
    assert caught[0].category is RuntimeWarning


def test_internal_float64_intermediates_do_not_warn(monkeypatch):
    # random normals and linspace compute in float64 on purpose and round once to float32
    monkeypatch.setattr(_warnings, "_given", set())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        n = wt.random.normal(wt.random.key(3), (9,), device=GPU)
        s = wt.linspace(0.0, 1.0, 7, device=GPU)
        assert not caught, [str(w.message) for w in caught]
        assert n.dtype is wt.float32 and s.dtype is wt.float32
        _ = wt.ones(2, dtype=wt.float64, device=GPU) + 1.0  # the user's own float64 still warns
    assert len(caught) == 1 and "float64 work runs on the CPU" in str(caught[0].message)


def test_complex128_work_warns_too(monkeypatch):
    monkeypatch.setattr(_warnings, "_given", set())
    x = wt.asarray([1 + 2j], dtype=wt.complex128, device=GPU)
    with pytest.warns(RuntimeWarning, match="webgpu: float64 work runs on the CPU"):
        assert (x * x).tolist() == [(-3 + 4j)]


# -- capabilities and errors ------------------------------------------------------------------------

def test_capabilities_tell_the_truth():
    caps = B.capabilities()
    info = B.device_info()
    for dt in NEW:
        assert info["dtypes"][dt.name] == "native"
        assert caps["cast"][dt.name] == "native"
        assert caps["where"][dt.name] == "native"
        assert caps["fill"][dt.name] == "native"
        assert caps["unary"][dt.name] == caps["binary"][dt.name] == "native", dt
    for dt in (wt.int8, wt.uint16, wt.int64, wt.uint64):
        assert caps["iota"][dt.name] == "native"
    assert caps["iota"]["float16"].startswith("partial")
    for dt in (wt.float64, wt.complex128):
        assert info["dtypes"][dt.name] == "cpu"
        assert caps["unary"][dt.name] == caps["binary"][dt.name] == "cpu"
        assert caps["cast"][dt.name] == "cpu"


def test_unknown_op_names_the_op():
    x = wt.asarray([1, 2], dtype=wt.int8, device=GPU)
    with pytest.raises(ValueError, match="unary: unknown op 'frobnicate'"):
        B.unary("frobnicate", empty((2,), wt.int8, GPU), x)
    with pytest.raises(ValueError, match="binary: unknown op 'frobnicate'"):
        B.binary("frobnicate", empty((2,), wt.int8, GPU), x, x)
