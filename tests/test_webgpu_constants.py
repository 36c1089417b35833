"""Scalar operands on webgpu: constants kept on the host.

``x * 2.5`` turns 2.5 into an internal 0-d tensor (``Backend.constant``).  On webgpu its bytes
stay on the host: elementwise kernels read it from their parameters, so a new Python scalar
every call costs no buffer, no upload and no new bind group.  Any other kernel that binds it
gets it uploaded on first use, and anything that writes it drops the host copy.  The CPU device
is the oracle (no NumPy needed: this runs in the browser too).  (Results of scalar operands in
every op and dtype are checked against NumPy by test_elementwise.py.)
"""

from __future__ import annotations

import struct

import pytest

import webtensor as wt
from _gpu import webgpu_or_skip
from webtensor.tensor import constant

GPU, CPU, B = webgpu_or_skip()


def _stats():
    return wt.memory_stats("webgpu")


def _bytes(t) -> bytes:
    return t.to_device("cpu").tobytes()


@pytest.mark.parametrize("n", [64, 30])  # the vec4 kernels and the one-element ones
def test_new_python_scalars_need_no_buffer_and_no_upload(n):
    data = [-3.0 + 6.0 * i / (n - 1) for i in range(n)]
    x = wt.asarray(data, dtype=wt.float32, device=GPU)
    ref = wt.asarray(data, dtype=wt.float32, device=CPU)
    (x * 0.5 + 1.0).tolist()  # warm: kernels, a cycle of pooled outputs
    before = _stats()
    scales = [n + i / 1000 for i in range(40)]  # new to the scalar cache
    results = [x * s for s in scales]
    after = _stats()
    assert after["writes"] == before["writes"], "new scalars were uploaded"
    assert after["buffers_created"] - before["buffers_created"] <= len(results)  # outputs only
    for s, got in zip(scales, results):
        assert _bytes(got) == _bytes(ref * s), s


@pytest.mark.parametrize("dtype, value", [
    (wt.float32, -2.75), (wt.int32, -7), (wt.uint8, 200), (wt.int16, -300), (wt.bool, True),
    (wt.float16, 1.5), (wt.bfloat16, -0.375), (wt.int64, -(2**40) - 3), (wt.uint64, 2**63 + 5),
    (wt.complex64, 1.5 - 2j)])
def test_a_constant_reads_back_and_binds_as_a_buffer(dtype, value):
    c = constant(value, dtype, GPU)
    want = wt.asarray(value, dtype=dtype, device=CPU)
    reads = _stats()["reads"]
    assert _bytes(c) == want.tobytes()
    assert _bytes(wt.broadcast_to(c, (3, 2))) == wt.broadcast_to(want, (3, 2)).tobytes()
    assert _stats()["reads"] == reads, "a constant's value is on the host"
    assert c._data.handle is None
    # A kernel other than an elementwise map binds its buffer: uploaded on first use.
    got = wt.concat([wt.reshape(c, (1,)), wt.reshape(c, (1,))])
    assert c._data.handle is not None
    assert _bytes(got) == want.tobytes() * 2


def test_writing_a_constant_drops_its_host_copy():
    x = wt.asarray([1.0, 2.0], dtype=wt.float32, device=GPU)
    by_kernel = constant(2.5, wt.float32, GPU)
    by_kernel[...] = 7.0  # an assign kernel writes it
    assert by_kernel._data.host is None
    assert by_kernel.tolist() == 7.0 and (x * by_kernel).tolist() == [7.0, 14.0]

    by_host = constant(2.5, wt.float32, GPU)
    B.write(by_host._data, 0, struct.pack("<f", -1.0))  # a host write
    assert by_host._data.host is None
    assert by_host.tolist() == -1.0 and (x * by_host).tolist() == [-1.0, -2.0]
    assert (x * 2.5).tolist() == [2.5, 5.0]  # the cached operand 2.5 is untouched


def test_constants_in_every_operand_position():
    cond = wt.asarray([True, False, True, False], device=GPU)
    x = wt.asarray([1.0, 2.0, 3.0, 4.0], dtype=wt.float32, device=GPU)
    assert wt.where(cond, 1.5, x).tolist() == [1.5, 2.0, 1.5, 4.0]
    assert wt.where(cond, x, -1.5).tolist() == [1.0, -1.5, 3.0, -1.5]
    assert wt.where(cond, 1.5, -1.5).tolist() == [1.5, -1.5, 1.5, -1.5]
    assert (2.0 - x).tolist() == [1.0, 0.0, -1.0, -2.0]
    assert wt.clip(x, 1.5, 3.5).tolist() == [1.5, 2.0, 3.0, 3.5]
