"""Complex special values (infinite, NaN and signed-zero parts): C99 Annex G and the Array API's
special cases, the same on every device.

Three checks: a table of Annex G / Array API facts (written from the standards, not from any
library); every device against NumPy (whose elementary functions follow Annex G, with its
choices where Annex G leaves a sign open) on a grid of special inputs; and every device against
every other one for the functions where NumPy itself departs from the Array API (expm1, pow).
"""

from __future__ import annotations

import math

import pytest

import webtensor as wt
from _oracle import BACKENDS

INF, NAN = math.inf, math.nan
PI_2 = math.pi / 2
PARTS = [0.0, -0.0, 1.5, -2.5, INF, -INF, NAN]
GRID = [complex(a, b) for a in PARTS for b in PARTS]
UNARY = ["exp", "expm1", "log", "log1p", "log2", "log10", "sqrt", "sin", "cos", "tan", "sinh",
         "cosh", "tanh", "asin", "acos", "atan", "asinh", "acosh", "atanh", "sign", "square",
         "reciprocal"]
NUMPY_NAMES = {"asin": "arcsin", "acos": "arccos", "atan": "arctan", "asinh": "arcsinh",
               "acosh": "arccosh", "atanh": "arctanh"}



def same(got: complex, want: complex, rel: float = 0.0, zero_signs: bool = True) -> bool:
    """Parts equal, the sign of zeros and infinities included; any NaN matches any NaN;
    finite values within ``rel`` of ``|want|`` (normwise: a part far smaller than the other
    carries no relative accuracy)."""
    finite = all(math.isfinite(v) for v in (got.real, got.imag, want.real, want.imag))
    if finite and rel and abs(want) and abs(got - want) <= rel * abs(want):
        return True
    for g, w in ((got.real, want.real), (got.imag, want.imag)):
        if not zero_signs and g == 0 and w == 0:
            continue
        if math.isnan(g) or math.isnan(w):
            if not (math.isnan(g) and math.isnan(w)):
                return False
        elif math.isinf(w) or w == 0 or rel == 0:
            if g != w or math.copysign(1, g) != math.copysign(1, w):
                return False
        elif abs(g - w) > rel * abs(w):
            return False
    return True


def run(name, values, dt, dev, *more):
    args = [wt.asarray(values, dtype=dt, device=dev)]
    args += [wt.asarray(m, dtype=dt, device=dev) for m in more]
    return [complex(v) for v in getattr(wt, name)(*args).tolist()]


# (function, input(s), expected) from C99 Annex G (G.6) and the Array API's special cases.
# A "?" sign in the standard (left open) is not in this table.
FACTS = [
    ("exp", INF + 0j, complex(INF, 0.0)),
    ("exp", complex(-INF, 1.5), complex(0.0 * math.cos(1.5), 0.0 * math.sin(1.5))),
    ("exp", complex(INF, 1.5), complex(INF * math.cos(1.5), INF * math.sin(1.5))),
    ("exp", complex(1.5, INF), complex(NAN, NAN)),
    ("exp", complex(NAN, 0.0), complex(NAN, 0.0)),
    ("exp", complex(NAN, -0.0), complex(NAN, -0.0)),
    ("exp", complex(NAN, 1.5), complex(NAN, NAN)),
    ("expm1", INF + 0j, complex(INF, 0.0)),
    ("expm1", complex(-INF, 0.0), complex(-1.0, 0.0)),
    ("expm1", complex(NAN, 0.0), complex(NAN, 0.0)),
    ("expm1", complex(1.5, INF), complex(NAN, NAN)),
    ("log", complex(-0.0, 0.0), complex(-INF, math.pi)),
    ("log", complex(0.0, 0.0), complex(-INF, 0.0)),
    ("log", complex(-INF, 1.5), complex(INF, math.pi)),
    ("log", complex(INF, 1.5), complex(INF, 0.0)),
    ("log", complex(-INF, INF), complex(INF, 3 * math.pi / 4)),
    ("log", complex(NAN, INF), complex(INF, NAN)),
    ("sqrt", complex(1.5, INF), complex(INF, INF)),
    ("sqrt", complex(NAN, INF), complex(INF, INF)),
    ("sqrt", complex(-INF, 1.5), complex(0.0, INF)),
    ("sqrt", complex(INF, 1.5), complex(INF, 0.0)),
    ("sqrt", complex(-0.0, 0.0), complex(0.0, 0.0)),
    ("sinh", complex(0.0, 0.0), complex(0.0, 0.0)),
    ("sinh", complex(INF, 0.0), complex(INF, 0.0)),
    ("sinh", complex(INF, 1.5), complex(INF * math.cos(1.5), INF * math.sin(1.5))),
    ("sinh", complex(NAN, 0.0), complex(NAN, 0.0)),
    ("sinh", complex(1.5, INF), complex(NAN, NAN)),
    ("cosh", complex(0.0, 0.0), complex(1.0, 0.0)),
    ("cosh", complex(INF, 0.0), complex(INF, 0.0)),
    ("cosh", complex(INF, 1.5), complex(INF * math.cos(1.5), INF * math.sin(1.5))),
    ("cosh", complex(INF, NAN), complex(INF, NAN)),
    ("cosh", complex(1.5, NAN), complex(NAN, NAN)),
    ("tanh", complex(0.0, 0.0), complex(0.0, 0.0)),
    ("tanh", complex(INF, 1.5), complex(1.0, math.copysign(0.0, math.sin(3.0)))),
    ("tanh", complex(INF, INF), complex(1.0, 0.0)),
    ("tanh", complex(NAN, 0.0), complex(NAN, 0.0)),
    ("tanh", complex(1.5, NAN), complex(NAN, NAN)),
    ("asinh", complex(0.0, 0.0), complex(0.0, 0.0)),
    ("asinh", complex(1.5, INF), complex(INF, PI_2)),
    ("asinh", complex(INF, 1.5), complex(INF, 0.0)),
    ("asinh", complex(INF, INF), complex(INF, math.pi / 4)),
    ("asinh", complex(NAN, 0.0), complex(NAN, 0.0)),
    ("acosh", complex(0.0, 0.0), complex(0.0, PI_2)),
    ("acosh", complex(1.5, INF), complex(INF, PI_2)),
    ("acosh", complex(-INF, 1.5), complex(INF, math.pi)),
    ("acosh", complex(INF, 1.5), complex(INF, 0.0)),
    ("acosh", complex(-INF, INF), complex(INF, 3 * math.pi / 4)),
    ("atanh", complex(0.0, 0.0), complex(0.0, 0.0)),
    ("atanh", complex(1.0, 0.0), complex(INF, 0.0)),
    ("atanh", complex(1.5, INF), complex(0.0, PI_2)),
    ("atanh", complex(INF, 1.5), complex(0.0, PI_2)),
    ("atanh", complex(NAN, INF), complex(0.0, PI_2)),
    ("sign", complex(0.0, -0.0), complex(0.0, 0.0)),
    ("sign", complex(NAN, 1.0), complex(NAN, NAN)),
    ("sign", complex(1.0, NAN), complex(NAN, NAN)),
    ("pow", (complex(INF, 0.0), complex(-1.0, 0.0)), complex(0.0, 0.0)),
    ("pow", (1j, complex(-2147484672.0, 0.0)), complex(1.0, 0.0)),
    ("pow", (1j, complex(4e9, 0.0)), complex(1.0, 0.0)),
    ("pow", (complex(-1.0, 0.0), complex(12345.0, 0.0)), complex(-1.0, 0.0)),
    ("pow", (complex(2.0, 0.0), complex(-3.0, 0.0)), complex(0.125, 0.0)),
    ("pow", (complex(NAN, NAN), complex(0.0, 0.0)), complex(1.0, 0.0)),
    ("pow", (complex(0.0, 0.0), complex(2.0, 0.0)), complex(0.0, 0.0)),
]


@pytest.mark.parametrize("dt", [wt.complex64, wt.complex128], ids=lambda d: d.name)
@pytest.mark.parametrize("name,arg,want", FACTS,
                         ids=[f"{n}{i}" for i, (n, _, _) in enumerate(FACTS)])
def test_standard_special_values(dev, dt, name, arg, want):
    args = arg if isinstance(arg, tuple) else (arg,)
    (got,) = run(name, [args[0]], dt, dev, *[[a] for a in args[1:]])
    rel = 1e-6 if dt is wt.complex64 else 1e-14
    # (the sign of a zero part of a power is that of the arithmetic: not in the standards)
    assert same(got, want, rel, zero_signs=name != "pow"), f"{name}{args} = {got!r}, want {want!r}"


@pytest.mark.skipif(not any(p.id == "numpy" for p in BACKENDS), reason="needs NumPy")
@pytest.mark.parametrize("dt", [wt.complex64, wt.complex128], ids=lambda d: d.name)
@pytest.mark.parametrize("name", [n for n in UNARY if n not in ("expm1", "sign", "reciprocal")])
def test_special_inputs_match_numpy(dev, dt, name):
    # not here: expm1 (NumPy departs from the Array API), sign (NumPy keeps a NaN's bits),
    # reciprocal (NumPy's differs from its own 1 / z in the sign of zero parts; ours is 1 / z)
    np = pytest.importorskip("numpy")
    with np.errstate(all="ignore"):
        want = getattr(np, NUMPY_NAMES.get(name, name))(np.array(GRID, dtype=dt.name)).tolist()
    got = run(name, GRID, dt, dev)
    rel = 2e-6 if dt is wt.complex64 else 1e-14
    bad = [(z, g, w) for z, g, w in zip(GRID, got, want)
           if not (math.isfinite(z.real) and math.isfinite(z.imag)) and not same(g, w, rel)]
    assert not bad, f"{name}: {len(bad)} differ, e.g. " + "; ".join(
        f"{z!r} -> {g!r}, NumPy {w!r}" for z, g, w in bad[:4])


@pytest.mark.parametrize("dt", [wt.complex64, wt.complex128], ids=lambda d: d.name)
@pytest.mark.parametrize("name", ["expm1", "sign", "reciprocal", "pow", "divide", "multiply"])
def test_every_device_agrees_on_special_inputs(dev, dt, name):
    reference = BACKENDS[0].values[0]
    if name in ("pow", "divide", "multiply"):
        xs = [x for x in GRID for _ in GRID]
        ys = [y for _ in GRID for y in GRID] if name != "pow" else \
            [y for _ in GRID for y in GRID[:-7]] + [complex(n, 0.0) for n in (-3, -1, 2, 5, 101,
                                                                            -2 ** 31, 4e9)]
        ys = (ys * 2)[:len(xs)]
        got, want = run(name, xs, dt, dev, ys), run(name, xs, dt, reference, ys)
    else:
        xs = GRID
        got, want = run(name, xs, dt, dev), run(name, xs, dt, reference)
    rel = 1e-5 if dt is wt.complex64 else 1e-13
    special = [i for i, x in enumerate(xs) if not (math.isfinite(x.real) and math.isfinite(x.imag))
               or name == "pow"]
    # The sign of a zero part of a power is that of the arithmetic (not in the standards), and
    # GPU compilers need not keep the sign of a zero through arithmetic (WGSL allows it; seen
    # on an H200): there, pow's zero parts are compared without their signs.
    gpu = getattr(dev.backend, "software", True) is False
    zero_signs = not (name == "pow" and gpu)
    bad = [(xs[i], got[i], want[i]) for i in special
           if not same(got[i], want[i], rel, zero_signs=zero_signs)]
    assert not bad, f"{name}: {len(bad)} differ from {reference}, e.g. " + "; ".join(
        f"{x!r} -> {g!r} vs {w!r}" for x, g, w in bad[:4])
