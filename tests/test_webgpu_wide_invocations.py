"""Short vec4 kernels run two work items per invocation where the adapter asks
(``WebGPUBackend.wide_invocations``: CPU adapters, which pay to start every invocation).

Both layouts run on the adapter at hand, whatever it is: each test builds its pipelines with
``WIDE_INVOCATIONS`` true and false and compares the bits with the CPU device, over sizes
that end inside the first item, between the two, and on workgroup edges (an odd number of
workgroups leaves the last invocation's second item out of range).  No NumPy, so the file
also runs in the browser.
"""

from __future__ import annotations

import random
from contextlib import contextmanager

import pytest

from _gpu import webgpu_or_skip

GPU, CPU, B = webgpu_or_skip()

import webtensor as wt  # noqa: E402
from webtensor.backends.webgpu import kernels  # noqa: E402

_GROUP = kernels.VEC4_WORKGROUP * kernels.LANES  # elements per workgroup, one item each
SIZES = [4, 8, 1020, _GROUP, _GROUP + 4, 3 * _GROUP + 8, 5 * _GROUP - 4, 1 << 16]


@contextmanager
def _wide_invocations(wide: bool):
    """The backend with ``wide_invocations`` set to ``wide``; pipelines built meanwhile are
    kept apart (each carries its adapter constant), and the backend's own come back."""
    with B.lock:
        saved = B._pipelines, B.wide_invocations
        B._pipelines, B.wide_invocations = {}, wide
    try:
        yield wide
    finally:
        with B.lock:
            B._pipelines, B.wide_invocations = saved


@pytest.fixture(params=[True, False], ids=["wide", "narrow"])
def layout(request):
    with _wide_invocations(request.param):
        yield request.param


def _floats(n: int, seed: int) -> list[float]:
    rng = random.Random(seed)
    return [rng.uniform(-4.0, 4.0) for _ in range(n)]


def _on_both(make, *columns, dtype=wt.float32):
    """``make`` of the columns as ``dtype`` tensors on the GPU and on the CPU: the bits."""
    got = make(*(wt.asarray(c, dtype=dtype, device=GPU) for c in columns))
    want = make(*(wt.asarray(c, dtype=dtype, device=CPU) for c in columns))
    assert got.device == GPU and got.shape == want.shape and got.dtype == want.dtype
    return got.tobytes(), want.tobytes()


OPS = {
    "add": (lambda x, y: x + y, wt.float32),
    "scalar": (lambda x, y: x * 0.75 - 2.0, wt.float32),
    "divide": (lambda x, y: x / y, wt.float32),
    "where": (lambda x, y: wt.where(x > y, x, y), wt.float32),
    "int8": (lambda x, y: x + y, wt.int8),  # four lanes in one word
    "float16": (lambda x, y: x * y, wt.float16),  # two words
    "int64": (lambda x, y: x * y, wt.int64),  # two vec4s
    "jit": (wt.jit(lambda x, y: wt.sqrt(wt.abs(x * y)) / (y + 0.5)), wt.float32),
}


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("op", sorted(OPS))
def test_both_layouts_match_the_cpu(layout, op, n):
    make, dtype = OPS[op]
    x, y = _floats(n, 1), _floats(n, 2)
    if not dtype.is_floating:
        x, y = [int(v * 30) for v in x], [int(v * 30) for v in y]
    got, want = _on_both(make, x, y, dtype=dtype)
    assert got == want, f"{op} of {n} elements, wide_invocations={layout}"


@pytest.mark.parametrize("n", [1020, 3 * _GROUP + 8])
def test_transcendentals_give_the_same_bits_in_both_layouts(n):
    """exp and tanh are within ULPs of the CPU, not its bits: the two layouts agree bit for bit."""
    assert kernels.inlined_size("tanh_f32(exp_f32(a))") <= kernels.WIDE_MAX_CHARS  # wide
    chain = wt.jit(lambda x: wt.tanh(wt.exp(x * 0.5) - 1.25))
    x = wt.asarray(_floats(n, 3), dtype=wt.float32, device=GPU)
    results = []
    for wide in (False, True):
        with _wide_invocations(wide):
            results.append(chain(x).tobytes())
    assert results[0] == results[1]


def test_long_kernels_stay_narrow():
    """The bound on inlined library code: an exact sin (Payne-Hanek included) compiles once
    per lane already; division and exp are short enough to double."""
    assert kernels.inlined_size("sin_f32(a)") > kernels.WIDE_MAX_CHARS
    assert kernels.inlined_size("exp_f32(a) + div_f32(a, b)") <= kernels.WIDE_MAX_CHARS
    assert kernels.inlined_size("a + b") == 0
    short = kernels.vec4_kernel("fn op(a: f32) -> f32 {\n    return exp_f32(a);\n}", "", 1, 1, 8)
    long = kernels.vec4_kernel("fn op(a: f32) -> f32 {\n    return sin_f32(a);\n}", "", 1, 1, 8)
    assert short.widens and "WIDE_INVOCATIONS" in short.wgsl
    assert not long.widens and "WIDE_INVOCATIONS" not in long.wgsl
    # the deferred pair of a kernel follows it
    assert long.deferred is not None and not any(k.widens for k in long.deferred)


def test_launch_halves_the_workgroups_of_wide_kernels_only(layout, monkeypatch):
    seen = []
    monkeypatch.setattr(B, "_dispatch", lambda kernel, handles, uniforms, groups:
                        seen.append((kernel.widens, groups)))
    short = kernels.vec4_kernel("fn op(a: f32) -> f32 {\n    return a;\n}", "", 1, 1, 8)
    plain = kernels.fill_kernel(4)
    out = B.allocate(64)
    for kernel in (short, plain):
        B.launch(kernel, [out] * (kernel.n_in + kernel.n_out), b"\0" * kernel.uniform_size, 5)
    assert seen == [(True, 3 if layout else 5), (False, 5)]
