"""The accuracy contract of matmul (docs/numerics.md), checked on every device.

Devices may sum the products in any order (tiles, SIMD lanes, BLAS), so results can differ
between devices; what every device guarantees is an error bound in terms of sum |a||b|:

    |computed - exact| <= k * u_acc * sum_l |a_il| |b_lj|  +  u_out * |exact|  +  k * tiny

with ``k`` the inner dimension, ``u_acc`` the unit roundoff of the accumulator (float32 for
float16/bfloat16/float32, float64 for float64), ``u_out`` that of the result's dtype and ``tiny``
the accumulator's smallest subnormal.  The sign of a zero result is not specified.  The oracle
is exact rational arithmetic (Fractions), so this runs without NumPy, under Pyodide too.
"""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

import webtensor as wt
from _oracle import bf16_round_py, f16_round_py, f32_round_py

# dtype -> (u_acc, u_out, tiny, round a Python float into the dtype)
REAL = {
    wt.float16: (2.0 ** -24, 2.0 ** -11, 2.0 ** -149, f16_round_py),
    wt.bfloat16: (2.0 ** -24, 2.0 ** -8, 2.0 ** -149, bf16_round_py),
    wt.float32: (2.0 ** -24, 2.0 ** -24, 2.0 ** -149, f32_round_py),
    wt.float64: (2.0 ** -53, 2.0 ** -53, 2.0 ** -1074, float),
}
COMPLEX = {wt.complex64: wt.float32, wt.complex128: wt.float64}



@pytest.fixture(autouse=True, params=["exact", "fast"])
def precision(request):
    """The contract holds in both precision modes (wt.set_precision)."""
    with wt.set_precision(request.param):
        yield request.param


def _values(rng, n, rnd, scale_exp):
    """Values spread over many binades, with exact cancellations planted (x, -x pairs)."""
    out = []
    for _ in range(n):
        if out and rng.random() < 0.2:
            out.append(-out[rng.randrange(len(out))])
        else:
            out.append(rnd(rng.uniform(-1, 1) * 2.0 ** rng.randint(-scale_exp, scale_exp)))
    return out


def _check(a_rows, b_cols, got, u_acc, u_out, tiny, where):
    k = len(a_rows[0])
    for i, row in enumerate(a_rows):
        for j, col in enumerate(b_cols):
            exact = sum(Fraction(x) * Fraction(y) for x, y in zip(row, col))
            magnitude = sum(abs(Fraction(x) * Fraction(y)) for x, y in zip(row, col))
            bound = (k * Fraction(u_acc) * magnitude + Fraction(u_out) * abs(exact)
                     + k * Fraction(tiny))
            error = abs(Fraction(got[i][j]) - exact)
            assert error <= bound, (f"{where}[{i},{j}]: got {got[i][j]!r}, exact "
                                    f"{float(exact)!r}, error {float(error):.3g} > bound "
                                    f"{float(bound):.3g}")


SHAPES = [(1, 3, 1), (4, 16, 3), (3, 64, 5), (17, 33, 9), (2, 300, 2)]


@pytest.mark.parametrize("dt", list(REAL), ids=lambda d: d.name)
@pytest.mark.parametrize("m,k,n", SHAPES)
def test_real_matmul_within_the_bound(dev, dt, m, k, n):
    u_acc, u_out, tiny, rnd = REAL[dt]
    rng = random.Random(f"{dt.name}-{m}-{k}-{n}")
    span = {wt.float16: 6, wt.bfloat16: 30}.get(dt, 40)
    a = [_values(rng, k, rnd, span) for _ in range(m)]
    b_cols = [_values(rng, k, rnd, span) for _ in range(n)]
    b = [[b_cols[j][l] for j in range(n)] for l in range(k)]
    got = (wt.asarray(a, dtype=dt, device=dev) @ wt.asarray(b, dtype=dt, device=dev)).tolist()
    _check(a, b_cols, got, u_acc, u_out, tiny, f"{dt.name} {m}x{k}x{n}")


def test_the_reported_cancellation_is_within_the_bound(dev):
    # [[1, 1e12, -1e12]] @ ones: 1.0 or 0.0 are both within k*u*sum|a||b| = 3 * 2**-24 * 2e12
    a = [[1.0, 1e12, -1e12]]
    got = (wt.asarray(a, dtype=wt.float32, device=dev)
           @ wt.ones((3, 1), dtype=wt.float32, device=dev)).tolist()
    a32 = [[f32_round_py(v) for v in a[0]]]
    _check(a32, [[1.0, 1.0, 1.0]], got, *REAL[wt.float32][:3], "cancellation")


@pytest.mark.parametrize("dt", list(COMPLEX), ids=lambda d: d.name)
def test_complex_matmul_within_the_bound(dev, dt):
    # per component: a complex product adds two real products, so the real bound with
    # sum |a||b| over the real and imaginary parts (and k -> 2k) holds
    real = COMPLEX[dt]
    u_acc, u_out, tiny, rnd = REAL[real]
    rng = random.Random(dt.name)
    m, k, n = 3, 24, 4
    a = [[complex(*_values(rng, 2, rnd, 20)) for _ in range(k)] for _ in range(m)]
    b = [[complex(*_values(rng, 2, rnd, 20)) for _ in range(n)] for _ in range(k)]
    got = (wt.asarray(a, dtype=dt, device=dev) @ wt.asarray(b, dtype=dt, device=dev)).tolist()
    re_rows = [[v for x in row for v in (x.real, -x.imag)] for row in a]
    im_rows = [[v for x in row for v in (x.real, x.imag)] for row in a]
    re_cols = [[v for l in range(k) for v in (b[l][j].real, b[l][j].imag)] for j in range(n)]
    im_cols = [[v for l in range(k) for v in (b[l][j].imag, b[l][j].real)] for j in range(n)]
    _check(re_rows, re_cols, [[z.real for z in row] for row in got], u_acc, u_out, tiny,
           f"{dt.name} real part")
    _check(im_rows, im_cols, [[z.imag for z in row] for row in got], u_acc, u_out, tiny,
           f"{dt.name} imaginary part")
