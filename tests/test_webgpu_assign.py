"""Assignment into views on webgpu (``x[a:b] = y``, concat's pieces) against the CPU device:
contiguous runs of whole vec4s go through one vec4 copy kernel, everything else through the
strided assign kernel; both must write exactly the view and nothing around it.  Copies into
fresh tensors of 8-byte elements go through the elementwise map kernels.  (No NumPy needed:
this runs in the browser too.)"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import webtensor as wt
from _gpu import webgpu_or_skip
from webtensor.backends.webgpu import kernels

GPU, CPU, B = webgpu_or_skip()

DTYPES = [wt.float32, wt.int32, wt.int64, wt.uint64, wt.complex64]


def _values(dtype, n: int, rng: random.Random) -> list:
    if dtype.kind == "c":
        return [complex(rng.uniform(-9, 9), rng.uniform(-9, 9)) for _ in range(n)]
    if dtype.kind == "f":
        return [rng.uniform(-9, 9) for _ in range(n)]
    low = 0 if dtype.kind == "u" else -(1 << (8 * dtype.itemsize - 1))
    return [rng.randrange(low, low + (1 << (8 * dtype.itemsize))) for _ in range(n)]


def _launched(monkeypatch) -> list:
    kernels_run = []
    launch = B.launch

    def spy(kernel, *args, **kwargs):
        kernels_run.append(kernel)
        return launch(kernel, *args, **kwargs)

    monkeypatch.setattr(B, "launch", spy)
    return kernels_run


@settings(max_examples=40, deadline=None)
@given(dtype=st.sampled_from(DTYPES), size=st.integers(1, 300), data=st.data())
def test_slice_assignment_writes_exactly_the_view(dtype, size, data):
    start = data.draw(st.integers(0, size - 1), label="start")
    stop = data.draw(st.integers(start + 1, size), label="stop")
    step = data.draw(st.sampled_from([1, 1, 2, -1]), label="step")
    view = slice(start, stop) if step == 1 else slice(start, stop, step) if step > 0 \
        else slice(stop - 1, start - 1 if start else None, -1)
    rng = random.Random(size * 7 + start)
    base = _values(dtype, size, rng)
    values = _values(dtype, len(range(size)[view]), rng)
    x, want = (wt.asarray(base, dtype=dtype, device=d) for d in (GPU, CPU))
    x[view] = wt.asarray(values, dtype=dtype, device=GPU)
    want[view] = wt.asarray(values, dtype=dtype, device=CPU)
    assert x.to_device("cpu").tobytes() == want.tobytes()


@pytest.mark.parametrize("dtype", DTYPES)
def test_concat_of_aligned_pieces_runs_vec4_copies(monkeypatch, dtype):
    rng = random.Random(0)
    parts = [_values(dtype, n, rng) for n in (64, 128, 8)]
    tensors = [wt.asarray(p, dtype=dtype, device=GPU) for p in parts]
    launched = _launched(monkeypatch)
    got = wt.concat(tensors)
    want = wt.concat([wt.asarray(p, dtype=dtype, device=CPU) for p in parts])
    assert got.to_device("cpu").tobytes() == want.tobytes()
    assert launched == [kernels.copy_vec4_kernel()] * 3


def test_unaligned_and_strided_pieces_take_the_assign_kernel(monkeypatch):
    parts = [[float(i) for i in range(n)] for n in (3, 5)]  # the second starts at word 3
    launched = _launched(monkeypatch)
    got = wt.concat([wt.asarray(p, dtype=wt.float32, device=GPU) for p in parts])
    assert got.tolist() == parts[0] + parts[1]
    assert kernels.copy_vec4_kernel() not in launched
    rows = [[float(8 * r + c) for c in range(8)] for r in range(4)]
    got = wt.concat([wt.asarray(rows, dtype=wt.float32, device=GPU)] * 2, axis=1)
    assert got.tolist() == [row + row for row in rows]  # each piece: strided rows


WIDE = [wt.int64, wt.uint64, wt.complex64]


@pytest.mark.parametrize("dtype", WIDE, ids=str)
@pytest.mark.parametrize("view", ["whole", "offset", "step", "reversed", "transposed"])
def test_copies_of_8_byte_elements_run_map_kernels(monkeypatch, dtype, view):
    """A copy of an 8-byte view into a fresh tensor gives the CPU's bytes (NaN payloads of
    complex64 parts included) through the map kernels: contiguous runs of whole vec4s four
    elements per invocation, other views one element (two words) per invocation."""
    raw = bytearray(wt.asarray(_values(dtype, 4 * 96, random.Random(5)), dtype=dtype,
                               device=CPU).tobytes())
    if dtype is wt.complex64:  # NaN payloads in the parts (a signalling one): bits, not values
        raw[8:12] = (0x7F800001).to_bytes(4, "little")
        raw[20:24] = (0xFFC01234).to_bytes(4, "little")
    pick = {"whole": lambda t: t, "offset": lambda t: t[4:], "step": lambda t: t[1::3],
            "reversed": lambda t: t[::-1], "transposed": lambda t: t.reshape(16, 24).T}[view]
    whole = wt.frombuffer(bytes(raw), dtype=dtype)
    src = {GPU: pick(whole.to_device(GPU)), CPU: pick(whole)}
    launched = _launched(monkeypatch)
    got = wt.asarray(src[GPU], copy=True)
    want = wt.asarray(src[CPU], copy=True)
    assert got.to_device("cpu").tobytes() == want.tobytes()
    assert launched and all("fn op(" in k.wgsl for k in launched), "not a map kernel"
    vec4 = any("array<vec4<u32>>" in k.wgsl for k in launched)
    assert vec4 == (view in ("whole", "offset"))


@pytest.mark.parametrize("dtype", [wt.float32, wt.int64, wt.complex64], ids=str)
@pytest.mark.parametrize("shape, strides", [((4,), (0,)), ((3, 4), (1, 1)), ((2, 3), (0, 1))])
def test_a_target_that_overlaps_itself_is_written_in_order(dtype, shape, strides):
    """Writing into a view whose elements share memory (a zero stride, overlapping rows): the
    last write in C order wins, as on the CPU.  GPU threads would race for the shared elements
    (and tear 8-byte ones: seen with int64 on an H200), so such targets go to the CPU."""
    rng = random.Random(3)
    size = 1
    for n in shape:
        size *= n
    src = _values(dtype, size, rng)
    results = []
    for dev in (GPU, CPU):
        buf = wt.asarray(_values(dtype, 16, random.Random(4)), dtype=dtype, device=dev)
        values = wt.reshape(wt.asarray(src, dtype=dtype, device=dev), shape)
        before = B.routed.copy()
        dev.backend.assign(buf._view(shape, strides, 2), values)
        if dev is GPU:
            assert sum(B.routed.values()) > sum(before.values()), "not routed to the CPU"
        results.append(buf.to_device("cpu").tobytes())
    assert results[0] == results[1]
