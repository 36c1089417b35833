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
