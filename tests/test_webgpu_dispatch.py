"""The webgpu device's dispatch path: batching, the uniform arena, caches, buffer lifetimes.

Skipped as a whole (reason printed) when wgpu or a WebGPU adapter is missing.

What must hold:

* Every dispatch of a batch sees its own parameters (one uniform arena per batch, written once
  at submit, each dispatch at its own dynamic offset), also when the arena fills before the
  batch does and when a batch spans several submits.
* The caches (elementwise dispatch plans, pipelines, bind groups) are keyed by everything the
  dispatch depends on: views that differ only in offset, strides or dtype get their own, and a
  buffer destroyed and replaced (possibly at the same address) never reaches a stale bind group.
* A loop of identical ops creates no new pipelines or bind groups after the first iteration.
* GPU buffers go back to the pool when their tensors are collected, reference cycles included.
* Misuse of the driver names the call and the mismatch.
"""

from __future__ import annotations

import gc
import struct

import pytest

import webtensor as wt
from _gpu import webgpu_or_skip  # noqa: E402
from webtensor.api import _common

GPU, CPU, B = webgpu_or_skip()


D = B.driver

# out0[P.x] = in0[P.y] * P.z + P.w, with a 512-byte uniform block (two arena slots).
_AXPB = """
@group(0) @binding(0) var<uniform> P: array<vec4<u32>, 32>;
@group(0) @binding(1) var<storage, read> in0: array<u32>;
@group(0) @binding(2) var<storage, read_write> out0: array<u32>;

@compute @workgroup_size(1)
fn main() {
    let p = P[0];
    out0[p.x] = in0[p.y] * p.z + p.w + P[31].w;
}
"""


def _uniforms(dst: int, src: int, mul: int, add: int, tail: int = 0) -> bytes:
    words = [dst, src, mul, add] + [0] * 123 + [tail]
    return struct.pack("<128I", *words)


def _pair(values, dtype, shape=None):
    """The same data on the webgpu device and on the CPU device (the oracle)."""
    cpu = wt.asarray(values, dtype=dtype, device="cpu")
    if shape is not None:
        cpu = wt.reshape(cpu, shape)
    return cpu.to_device(GPU), cpu


def _same(got, want) -> None:
    assert got.device == GPU and want.device == CPU
    assert (got.shape, got.dtype) == (want.shape, want.dtype)
    assert got.tolist() == want.tolist()


class _Index:
    def __getitem__(self, key):
        return key


np_s = _Index()  # np.s_ without NumPy (the suite also runs in Pyodide)


_NATIVE_ONLY = pytest.mark.skipif(D.name != "wgpu-native",
                                  reason="inspects the native driver's caches and batching")


# -- the driver: batches and the uniform arena ---------------------------------------------------

@pytest.mark.parametrize("count", [1, 5, D.max_batch // 2 + 3, D.max_batch + 7])
def test_each_dispatch_reads_its_own_uniforms(count):
    """``count`` dispatches with distinct parameters: 512-byte blocks fill the arena after
    max_batch / 2 dispatches, so the larger counts span several submits."""
    pipeline = D.create_pipeline(_AXPB, "main", 1, 1, 512)
    src = D.create_buffer(4 * count)
    dst = D.create_buffer(4 * count)
    try:
        values = list(range(3, 3 + count))
        D.write_buffer(src, 0, struct.pack(f"<{count}I", *values))
        before = D.stats()
        for i in range(count):
            # element i of dst gets src[count - 1 - i] * (i + 2) + 7 * i + 1
            D.dispatch(pipeline, [src, dst], _uniforms(i, count - 1 - i, i + 2, 7 * i, 1), 1)
        assert D.stats()["dispatches"] - before["dispatches"] == count  # counted before flush
        got = struct.unpack(f"<{count}I", D.read_buffer(dst, 0, 4 * count))
        want = tuple(values[count - 1 - i] * (i + 2) + 7 * i + 1 for i in range(count))
        assert got == want
        if D.name == "wgpu-native":  # its arena holds max_batch / 2 blocks of 512 bytes
            submits = D.stats()["submits"] - before["submits"]
            assert submits == -(-count // (D.max_batch // 2))
    finally:
        D.destroy_buffer(src)
        D.destroy_buffer(dst)


@pytest.mark.parametrize("rounds", [4, D.max_batch + 5])
def test_writes_into_buffers_the_open_batch_uses_keep_program_order(rounds):
    """dispatch reading src, then a write of src, then the next dispatch...: each dispatch sees
    the value written before it.  Such writes are recorded in the open batch, as a copy between
    two passes (a submit per write made ``maximum(x, 0.0)`` in a loop five times slower on
    wgpu-native), so batches are still submitted only every max_batch commands."""
    pipeline = D.create_pipeline(_AXPB, "main", 1, 1, 512)
    src, out = D.create_buffer(4), D.create_buffer(4 * rounds)
    try:
        D.write_buffer(src, 0, struct.pack("<I", 5))
        D.flush()
        before = D.stats()["submits"]
        for i in range(rounds):
            D.dispatch(pipeline, [src, out], _uniforms(i, 0, 10, i), 1)  # out[i] = src * 10 + i
            D.write_buffer(src, 0, struct.pack("<I", 100 + i))
        # a write counts towards max_batch on wgpu-native (the browser batches by dispatches)
        assert D.stats()["submits"] - before <= 2 * rounds // D.max_batch
        got = struct.unpack(f"<{rounds}I", D.read_buffer(out, 0, 4 * rounds))
        assert got == tuple((5 if i == 0 else 100 + i - 1) * 10 + i for i in range(rounds))
        assert struct.unpack("<I", D.read_buffer(src, 0, 4)) == (100 + rounds - 1,)
    finally:
        D.destroy_buffer(src)
        D.destroy_buffer(out)


@_NATIVE_ONLY
def test_destroying_a_buffer_drops_its_bind_groups():
    """Bind groups are cached by buffer identity; destroying a buffer drops its groups (they
    would pin it), and a new buffer gets a fresh group with the right contents."""
    pipeline = D.create_pipeline(_AXPB, "main", 1, 1, 512)
    out = D.create_buffer(4)
    cached = D.stats()["bind_groups_cached"]
    for value in range(6):
        src = D.create_buffer(4)
        D.write_buffer(src, 0, struct.pack("<I", value))
        D.dispatch(pipeline, [src, out], _uniforms(0, 0, 10, 1), 1)
        D.destroy_buffer(src)  # while the dispatch is still recorded: freed after the submit
        assert struct.unpack("<I", D.read_buffer(out, 0, 4)) == (value * 10 + 1,)
        assert D.stats()["bind_groups_cached"] == cached
    D.destroy_buffer(out)


@_NATIVE_ONLY
def test_small_writes_land_and_bad_writes_still_raise():
    """Small writes skip wgpu-py's wrapper (every new scalar operand makes one); a write out of
    bounds, empty or not in whole words still goes through it and raises, changing nothing."""
    from wgpu import GPUValidationError

    buf = D.create_buffer(16)
    try:
        D.write_buffer(buf, 0, struct.pack("<4I", 1, 2, 3, 4))
        D.write_buffer(buf, 8, struct.pack("<I", 30))
        for offset, data in ((16, bytes(4)), (12, bytes(8)), (4, bytes(2)), (2, bytes(4)),
                             (0, b"")):
            with pytest.raises((ValueError, GPUValidationError)):
                D.write_buffer(buf, offset, data)
        assert struct.unpack("<4I", D.read_buffer(buf, 0, 16)) == (1, 2, 30, 4)
    finally:
        D.destroy_buffer(buf)


def test_dispatch_misuse_names_the_mismatch():
    pipeline = D.create_pipeline(_AXPB, "main", 1, 1, 512)
    a, b = D.create_buffer(4), D.create_buffer(4)
    with pytest.raises(ValueError, match=r"dispatch: 1 buffers for a kernel with 1 inputs and "
                                         r"1 outputs"):
        D.dispatch(pipeline, [a], _uniforms(0, 0, 1, 0), 1)
    with pytest.raises(ValueError, match="dispatch: 256 uniform bytes, the kernel declares 512"):
        D.dispatch(pipeline, [a, b], bytes(256), 1)
    D.destroy_buffer(a)
    D.destroy_buffer(b)


@_NATIVE_ONLY
def test_bind_group_the_device_refuses_raises_and_leaves_the_driver_usable():
    """Bind groups are built with cffi directly; the device's validation error still surfaces
    as wgpu's exception at the dispatch that needed it, and nothing broken is cached."""
    import wgpu

    pipeline = D.create_pipeline(_AXPB, "main", 1, 1, 512)
    src, out = D.create_buffer(4), D.create_buffer(4)
    bad = D.create_buffer(16, usage="uniform")  # no STORAGE usage: cannot be bound as storage
    cached = D.stats()["bind_groups_cached"]
    with pytest.raises(wgpu.GPUValidationError, match="STORAGE"):
        D.dispatch(pipeline, [bad, out], _uniforms(0, 0, 1, 0), 1)
    assert D.stats()["bind_groups_cached"] == cached
    D.write_buffer(src, 0, struct.pack("<I", 20))
    D.dispatch(pipeline, [src, out], _uniforms(0, 0, 3, 2, tail=1), 1)
    assert struct.unpack("<I", D.read_buffer(out, 0, 4)) == (63,)
    for buf in (src, out, bad):
        D.destroy_buffer(buf)


# -- the backend: plans keyed by everything that matters -----------------------------------------

@pytest.mark.parametrize("scalars_before", [0, 5000])
def test_one_batch_of_views_differing_only_in_layout(scalars_before):
    """Same op, dtype and shape, different offsets and strides, all in one open batch: each
    dispatch needs its own parameters (and, for the contiguity, its own kernel).

    The loop's Python scalars are device operands cached by the first use, so the loop uploads
    nothing; also after many distinct Python scalars (the cache once stopped caching at 4096
    entries, and then every ``a * 2.0`` uploaded a new 0-d tensor into a pooled buffer the open
    batch still used, which had to submit the batch first)."""
    _common._SCALARS.clear()  # the loop's scalars must not be cached before the others
    one = wt.ones((), device=CPU)
    for i in range(scalars_before):
        one * (i + 0.25)
    x, ref = _pair([i * 0.5 - 7.0 for i in range(40)], wt.float32)
    grid, grid_ref = wt.reshape(x, (5, 8)), wt.reshape(ref, (5, 8))
    wt.maximum(x, 0.0) * 2.0 * -0.0  # the first use of each scalar uploads it
    D.flush()
    before = D.stats()["submits"]
    writes_before = D.stats()["writes"]
    flat, rows = (x, ref), (grid, grid_ref)
    cases = [(flat, np_s[i:i + 6]) for i in range(6)]
    cases += [(flat, np_s[i:i + 26:5]) for i in range(3)]
    cases += [(flat, np_s[33 - i:27 - i:-1]) for i in range(3)]
    cases += [(rows, np_s[:, i]) for i in range(3)]
    results = []
    for (ours, oracle), sub in cases:
        a, b = ours[sub], oracle[sub]
        results.append((a * 2.0 + a, b * 2.0 + b))
        # zero scalars too: they were never cached, so each one uploaded a fresh 0-d tensor
        results.append((wt.maximum(a, 0.0) * -0.0, wt.maximum(b, 0.0) * -0.0))
    assert D.stats()["submits"] == before  # still one open batch
    assert D.stats()["writes"] == writes_before  # every scalar came from the cache
    for got, want in results:
        _same(got, want)


@pytest.mark.parametrize("dtype", [wt.float32, wt.int32, wt.uint32, wt.bool])
def test_same_layout_in_every_dtype(dtype):
    raw = [(i * 7 + 3) % 50 for i in range(12)]
    other = [(i * 11 + 1) % 50 for i in range(12)]
    if dtype is wt.bool:
        raw, other = [v % 3 == 0 for v in raw], [v % 2 == 0 for v in other]
    a, a_ref = _pair(raw, dtype, (3, 4))
    b, b_ref = _pair(other, dtype, (3, 4))
    for sub in (np_s[:, :], np_s[1:, ::2], np_s[::-1, 1:3], np_s[2, :]):
        if dtype is wt.bool:
            _same(a[sub] ^ b[sub], a_ref[sub] ^ b_ref[sub])
        else:
            _same(a[sub] + b[sub], a_ref[sub] + b_ref[sub])
            _same(a[sub] * 3, a_ref[sub] * 3)


@pytest.mark.parametrize("shape", [(), (0,), (1,), (7,), (3, 0, 2), (2, 3, 5)])
def test_edge_shapes(shape):
    n = 1
    for d in shape:
        n *= d
    x, ref = _pair([i - 4 for i in range(n)], wt.int32, shape)
    _same(x - 1, ref - 1)
    _same(-x, -ref)
    _same(x.astype(wt.float32) / 2.0, ref.astype(wt.float32) / 2.0)


@_NATIVE_ONLY
def test_a_loop_of_identical_ops_reuses_every_cached_object():
    x = wt.ones((64,), device=GPU)
    for _ in range(3):  # warm up: the plan, pipeline and a cycle of pooled buffers
        x = x + 1.0
    x.tolist()
    before = D.stats()
    for _ in range(100):
        x = x + 1.0
    assert x.tolist() == [104.0] * 64
    after = D.stats()
    assert after["dispatches"] - before["dispatches"] == 100
    assert after["pipelines"] == before["pipelines"]
    assert after["bind_groups"] - before["bind_groups"] <= 2  # a cycle of two pooled outputs
    assert after["buffers_created"] == before["buffers_created"]


def test_collected_tensors_return_their_buffers():
    x = wt.ones((300,), device=GPU)
    gc.collect()
    base = B.memory_stats()
    ys = [x + x for _ in range(20)]  # (scalar operands would add cached 0-d tensors)
    assert B.memory_stats()["live_buffers"] == base["live_buffers"] + 20
    del ys
    assert B.memory_stats()["live_buffers"] == base["live_buffers"]

    class Holder:
        pass

    holder = Holder()
    holder.me, holder.t = holder, x + x  # only the cycle collector frees it
    del holder
    gc.collect()
    stats = B.memory_stats()
    assert (stats["live_buffers"], stats["live_bytes"]) == (base["live_buffers"],
                                                           base["live_bytes"])
    # the pooled buffers, the one freed by the cycle collector included, still work
    for i in range(25):
        assert (x + float(i)).tolist() == [1.0 + i] * 300
