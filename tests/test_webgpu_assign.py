"""Assignment into views on webgpu (``x[a:b] = y``, concat's pieces) against NumPy: contiguous
runs of whole vec4s go through one vec4 copy kernel, everything else through the strided
assign kernel; both must write exactly the view and nothing around it."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import webtensor as wt
from webtensor.backends.webgpu import kernels

np = pytest.importorskip("numpy")

from _gpu import webgpu_or_skip  # noqa: E402

GPU, CPU, B = webgpu_or_skip()

DTYPES = [np.float32, np.int32, np.int64, np.uint64, np.complex64]


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
    rng = np.random.default_rng(size * 7 + start)
    base = rng.standard_normal(size).astype(dtype)
    view = slice(start, stop) if step == 1 else slice(start, stop, step) if step > 0 \
        else slice(stop - 1, start - 1 if start else None, -1)
    values = (rng.standard_normal(base[view].shape) * 10).astype(dtype)
    x = wt.asarray(base, device=GPU)
    x[view] = wt.asarray(values, device=GPU)
    want = base.copy()
    want[view] = values
    assert np.asarray(x.to_device("cpu")).tobytes() == want.tobytes()


@pytest.mark.parametrize("dtype", DTYPES)
def test_concat_of_aligned_pieces_runs_vec4_copies(monkeypatch, dtype):
    parts = [np.arange(n, dtype=dtype) * (k + 1) for k, n in enumerate((64, 128, 8))]
    tensors = [wt.asarray(p, device=GPU) for p in parts]
    launched = _launched(monkeypatch)
    got = wt.concat(tensors)
    assert np.asarray(got.to_device("cpu")).tobytes() == np.concatenate(parts).tobytes()
    assert launched == [kernels.copy_vec4_kernel()] * 3


def test_unaligned_and_strided_pieces_take_the_assign_kernel(monkeypatch):
    parts = [np.arange(n, dtype=np.float32) for n in (3, 5)]  # the second starts at word 3
    launched = _launched(monkeypatch)
    got = wt.concat([wt.asarray(p, device=GPU) for p in parts])
    assert got.tolist() == np.concatenate(parts).tolist()
    assert kernels.copy_vec4_kernel() not in launched
    rows = np.arange(32, dtype=np.float32).reshape(4, 8)
    got = wt.concat([wt.asarray(rows, device=GPU)] * 2, axis=1)  # each piece: strided rows
    assert got.tolist() == np.concatenate([rows] * 2, axis=1).tolist()
