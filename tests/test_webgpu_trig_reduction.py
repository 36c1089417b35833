"""float32 sin/cos/tan on the webgpu device at their hardest arguments: the float32 values
nearest each multiple of pi/2 (where argument reduction cancels the most), across both
reductions (Cody-Waite below 400, Payne-Hanek above), against the correctly rounded result."""

from __future__ import annotations

import math
import struct

import pytest

import webtensor as wt
from _gpu import webgpu_or_skip
from _op_records import WEBGPU_F32_ULP as ULP_BOUND  # the float32 transcendental bound
from _oracle import ulps_apart32

GPU, CPU, B = webgpu_or_skip()


def _f32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]


def _bits(x: float) -> int:
    return struct.unpack("<i", struct.pack("<f", x))[0]


def _neighbours(x: float, k: int):
    """``x`` and the ``k`` float32 values on each side of it (positive finite x)."""
    b = _bits(_f32(x))
    return [struct.unpack("<f", struct.pack("<i", b + d))[0] for d in range(-k, k + 1)]


def _hard_arguments():
    args = set()
    for k in list(range(1, 260)) + [300, 509, 1000, 4095, 65536, 1 << 20]:
        for x in _neighbours(k * math.pi / 2, 3):
            if x > 0:
                args.update((x, -x))
    args.update(_f32(v) for v in (0.78539816, 0.7853982, 399.99997, 400.0, 400.00003))
    return sorted(args)


@pytest.mark.parametrize("name", ["sin", "cos", "tan"])
def test_hardest_arguments_within_the_bound(name):
    xs = _hard_arguments()
    got = getattr(wt, name)(wt.asarray(xs, dtype=wt.float32, device=GPU)).tolist()
    exact = getattr(math, name)
    bad = [(x, g, _f32(exact(x))) for x, g in zip(xs, got)
           if ulps_apart32(g, _f32(exact(x))) > ULP_BOUND]
    assert not bad, f"{name}: {len(bad)} of {len(xs)} beyond {ULP_BOUND} ULP, e.g. " + \
        ", ".join(f"{name}({x!r}) = {g!r}, exact {w!r}" for x, g, w in bad[:4])


_N = 3 * 1024 + 12  # three whole workgroups of a vec4 kernel and a part of a fourth


def _with_far_arguments(where: str, n: int) -> list[float]:
    """Arguments below 400 (Cody-Waite), with Payne-Hanek ones (and inf, NaN) ``where``."""
    xs = [_f32((k % 797) * 0.4917 - 190.0) for k in range(n)]
    far = {"none": [], "all": range(n), "one": [1030], "last": [n - 1],
           "scattered": range(5, n, 613)}[where]
    for k in far:
        xs[k] = _f32(401.0 + 1.0e6 * k) if k % 3 else _f32(3.0e38 / (k + 1))
    if where == "scattered":
        xs[6], xs[7], xs[n - 2] = math.inf, math.nan, -math.inf
    return xs


_PROGRAMS = {
    "sin": wt.sin,
    "tan (jit, fused)": wt.jit(lambda a: wt.tan(a) * 0.5 + 1.0),
    "cos and sin of two inputs (jit)": wt.jit(lambda a, b: wt.cos(a * 3.0) - wt.sin(b)),
}


@pytest.mark.parametrize("where", ["none", "all", "one", "last", "scattered"])
@pytest.mark.parametrize("program", list(_PROGRAMS))
@pytest.mark.parametrize("n", [_N, _N + 1], ids=["vec4", "scalar"])
def test_deferred_pair_gives_the_single_kernels_bits(monkeypatch, program, where, n):
    """The deferred pair (flag far arguments, then recompute their invocations) that CPU
    adapters run for big launches: bit for bit what the single kernel computes, wherever the
    far arguments are, for kernels of four elements per invocation and for those of one
    element per work item, several per invocation.  Forced on any adapter, small launches."""
    import webtensor.backends.webgpu.backend as webgpu_backend

    xs = _with_far_arguments(where, n)
    args = [wt.asarray(xs, dtype=wt.float32, device=GPU)]
    fn = _PROGRAMS[program]
    if "two inputs" in program:
        args.append(wt.asarray(xs[::-1], dtype=wt.float32, device=GPU))
    fn(*args)  # (jit: trace first)
    monkeypatch.setattr(webgpu_backend, "DEFER_MIN_GROUPS", 10 ** 9)
    before = B.driver.stats()["dispatches"]
    single = fn(*args).tolist()
    kernels = B.driver.stats()["dispatches"] - before
    monkeypatch.setattr(webgpu_backend, "DEFER_MIN_GROUPS", 1)
    monkeypatch.setattr(B, "software", True)
    before = B.driver.stats()["dispatches"]
    paired = fn(*args).tolist()
    # every kernel of these programs reaches sin/cos/tan: each is reset, flag, redo
    assert B.driver.stats()["dispatches"] - before == 3 * kernels
    assert [_bits(v) for v in paired] == [_bits(v) for v in single]
    if program == "sin":  # and the far ones are right, not just equal
        bad = [(x, g) for x, g in zip(xs, paired) if math.isfinite(x)
               and ulps_apart32(g, _f32(math.sin(x))) > ULP_BOUND]
        assert not bad, bad[:4]
