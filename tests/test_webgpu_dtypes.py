"""Native WebGPU kernels of the packed and wide dtypes against the CPU device.

Skipped as a whole (reason printed) when wgpu or a WebGPU adapter is missing.  Every
elementwise op, cast, ``where``, ``fill`` and ``iota`` on every dtype against the CPU device,
with the native path asserted, is the op-record table's job (tests/_op_records.py, run by
test_conformance.py).  Here, for the dtypes this backend packs or widens (int8/uint8, int16/
uint16, float16, bfloat16: several per 32-bit word; int64/uint64, complex64: two words):

* Every op has a kernel; 64-bit division, products and shifts on values spread over all bits.
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

import webtensor as wt
from _gpu import webgpu_or_skip  # noqa: E402
from webtensor import _warnings, ops

GPU, CPU, B = webgpu_or_skip()

np = pytest.importorskip("numpy")

from _oracle import (  # noqa: E402
    EXACT,
    View,
    assert_same_values,
    bf16_bits,
    routed_calls,
    run_primitive,
    same_float,
    sample_values,
    tensor_storage,
)
from _oracle import both as _both  # noqa: E402
from webtensor.backends.webgpu import elementwise as _elementwise  # noqa: E402
from webtensor.backends.webgpu import exprs as _exprs  # noqa: E402
from webtensor.backends.webgpu.backend import NATIVE  # noqa: E402
from webtensor.tensor import empty  # noqa: E402

PACKED = (wt.int8, wt.uint8, wt.int16, wt.uint16, wt.float16, wt.bfloat16)
WIDE = (wt.int64, wt.uint64, wt.complex64)
NEW = PACKED + WIDE  # the dtypes this module's kernels made native
NATIVE_DTYPES = tuple(NATIVE)


# -- helpers ----------------------------------------------------------------------------------------

def pair(dt, values, shape=None, strides=None, offset=0) -> View:
    """``values`` viewed with ``shape``/``strides``/``offset`` (a tensor on either device)."""
    return View(dt, (len(values),) if shape is None else shape, strides, offset, values)


run = run_primitive


def both(prim: str, out_shape, out_dt, *args, tol=EXACT, context: str = "",
         native: bool = True):
    """``prim`` on both devices (View arguments): equal results, and no routing to the CPU
    when ``native``.  Returns the GPU result."""
    before = routed_calls(GPU)
    _, got = _both(prim, out_shape, out_dt, *args, tol=tol, context=context or prim,
                   devices=(CPU, GPU))
    if native:
        assert routed_calls(GPU) == before, (f"{context}: routed to the CPU "
                                            f"({B.routed.most_common(3)})")
    return got


def applicable(op, dt) -> bool:
    """The op reaches a backend with this dtype (float-rule ops on ints are cast first)."""
    return dt.kind in op.kinds and not (op.result == "float" and dt.kind in "biu")


def out_dtype(op, dt):
    return {"bool": wt.bool, "real": dt.real_dtype,
            "complex": dt.complex_dtype}.get(op.result, dt)


def native_expected(name, dt) -> bool:
    table = _exprs.unary if ops.ELEMENTWISE[name].arity == 1 else _exprs.binary
    return table(name, NATIVE[dt]) is not None


# -- every op has a kernel; 64-bit integer arithmetic ------------------------------------------------

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
        both("binary", a.shape, out_dt, name, a, b, context=f"{name}[{dt}] wide")
    counts = pair(dt, [rnd.choice((0, 1, 31, 32, 33, 63, 64, 65, 100)) for _ in xs])
    for name in ("bitwise_left_shift", "bitwise_right_shift"):
        both("binary", a.shape, dt, name, a, counts, context=f"{name}[{dt}] counts")
    small = pair(dt, [rnd.randint(-5 if dt.kind == "i" else 0, 70) for _ in xs])
    both("binary", a.shape, dt, "pow", a, small, context=f"pow[{dt}]")


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


def view_pair(dt, layout: str, seed: int) -> View:
    shape, strides, offset, size = LAYOUTS[layout]
    return pair(dt, sample_values(dt, size, seed)[-size:], shape, strides, offset)


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("dt", NEW, ids=str)
def test_views_and_offsets(dt, layout):
    x = view_pair(dt, layout, seed=4)
    y = view_pair(dt, layout, seed=5)
    shape = x.shape
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
    x = pair(dt, sample_values(dt, n, seed=7)[-n:])
    y = pair(dt, sample_values(dt, n, seed=8)[-n:])
    both("binary", (n,), dt, "subtract", x, y, context=f"subtract n={n}[{dt}]")
    both("binary", (n,), wt.bool, "not_equal", x, y, context=f"not_equal n={n}[{dt}]")
    both("cast", (n,), wt.uint8 if dt is not wt.uint8 else wt.int16, x,
         context=f"cast n={n}[{dt}]")
    # a view starting one element into the buffer: every packed word straddles two of the input
    off = pair(dt, sample_values(dt, n + 1, seed=9)[-(n + 1):], (n,), (1,), 1)
    both("unary", (n,), dt, "positive", off, context=f"positive offset n={n}[{dt}]")


def test_operators_through_the_api_on_views():
    """The frontend path (broadcasting, slicing, in-place ops) on packed and wide dtypes."""
    for dt in NEW:
        data = sample_values(dt, 40, seed=10)[-36:]
        outs = []
        for device in (CPU, GPU):
            x = wt.asarray(data, dtype=dt, device=device).reshape((6, 6))
            before = routed_calls(GPU)
            r = [x[1::2, ::-1] + x[0, :], x[:, 2:3] == x[1:4:2, 1],
                 wt.where(x[::2] != x[1::2], x[::2], x[1::2])]
            if device is GPU:
                assert routed_calls(GPU) == before, dt
            outs.append(r)
        (total, eq, picked), (total_gpu, eq_gpu, picked_gpu) = outs
        assert (eq.tobytes(), picked.tobytes()) == (eq_gpu.tobytes(), picked_gpu.tobytes()), dt
        if dt.kind == "f":  # inf + -inf: a computed NaN, whose payload is the adapter's
            pairs = zip(total.reshape((-1,)).tolist(), total_gpu.reshape((-1,)).tolist())
            assert all(same_float(a, b) for a, b in pairs), dt
        else:
            assert total.tobytes() == total_gpu.tobytes(), dt


# -- casts ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("src", NATIVE_DTYPES, ids=str)
def test_casts_between_native_dtypes(src):
    x = pair(src, sample_values(src, 150, seed=11))
    for dst in NATIVE_DTYPES:
        if dst is not src and (src in NEW or dst in NEW):
            both("cast", x.shape, dst, x, context=f"cast {src} -> {dst}")


def test_float16_to_float32_exhaustive():
    bits = np.arange(1 << 16, dtype=np.uint16)
    for dt in (wt.float16, wt.bfloat16):
        x = View(dt, bits.shape, raw=bits.tobytes())
        got = both("cast", (bits.size,), wt.float32, x, context=f"{dt} -> float32")
        back = both("cast", (bits.size,), dt, View(wt.float32, got.shape, raw=got.tobytes()),
                    context=f"{dt} round trip")
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
    x32 = View(wt.float32, values.shape, raw=values.tobytes()).on(GPU)
    got16 = run(GPU, "cast", x32.shape, wt.float16, x32)
    with np.errstate(over="ignore"):
        want16 = values.astype(np.float16).view(np.uint16)
    assert_same_values(tensor_storage(got16).view(np.float16), want16.view(np.float16),
                       wt.float16, context="float32 -> float16")
    gotb = run(GPU, "cast", x32.shape, wt.bfloat16, x32)
    assert_same_values(tensor_storage(gotb), bf16_bits(values), wt.bfloat16,
                       context="float32 -> bfloat16")


def test_nan_results_stay_quiet():
    for dt in (wt.float16, wt.bfloat16):
        x = pair(dt, [math.nan, -math.nan, math.inf, -math.inf])
        zero = pair(dt, [0.0, 0.0, 0.0, -0.0])
        got = run(GPU, "binary", (4,), dt, "multiply", x, zero)  # all NaN
        bits = tensor_storage(got).view(np.uint16).astype(np.uint32)
        quiet = 0x0200 if dt is wt.float16 else 0x0040
        exp = 0x7C00 if dt is wt.float16 else 0x7F80
        assert ((bits & exp) == exp).all() and ((bits & quiet) != 0).all(), bits


def test_iota_float32_kernel_only_where_exact():
    """float iota runs natively only where float32 arithmetic gives every element exactly (the
    table's iota cases assert which calls are routed)."""
    assert _elementwise._exact_in_f32(0, 1, 1 << 24)
    assert not _elementwise._exact_in_f32(0, 1, 1 + (1 << 24))
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
