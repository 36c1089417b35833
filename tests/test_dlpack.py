"""DLPack both ways (``Tensor.__dlpack__``, ``__dlpack_device__``, ``wt.from_dlpack``).

Oracles: NumPy 2 (``np.from_dlpack`` reading our capsules, NumPy arrays as producers) and JAX
(another real consumer and producer, and the one that carries bfloat16).  Zero copy is checked
by writing on one side and reading on the other; lifetimes by counting the exports still alive
and by reading imported memory after its producer is gone.
"""

from __future__ import annotations

import gc

import pytest

import webtensor as wt
from _oracle import DEVICES
from webtensor import _dlpack

np = pytest.importorskip("numpy")

NUMPY_DTYPES = [dt for dt in wt.all_dtypes if dt is not wt.bfloat16]  # NumPy has no bfloat16



def _numpy_device():
    if "numpy" not in DEVICES:
        pytest.skip("the NumPy cpu backend is not available")
    return DEVICES["numpy"]


def _values(dt):
    if dt is wt.bool:
        return [[True, False, True], [False, False, True]]
    if dt.kind == "c":
        return [[1 + 2j, -3j, 0.5], [4, 5 - 1j, -6]]
    if dt.kind == "u":
        return [[1, 2, 3], [4, 5, 250]]
    return [[1, -2, 3], [4, 5, -6]]


def _live():
    gc.collect()
    return len(_dlpack._LIVE)


# -- export ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("dt", NUMPY_DTYPES, ids=str)
def test_numpy_reads_every_dtype(dev, dt):
    x = wt.asarray(_values(dt), dtype=dt, device=dev)
    if dev.name == "webgpu":
        got = np.from_dlpack(x, copy=True)
    else:
        got = np.from_dlpack(x)
    assert got.dtype == np.dtype(dt.name) and got.tolist() == x.tolist()


def test_export_shares_memory_on_the_numpy_backend():
    dev = _numpy_device()
    x = wt.asarray([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], device=dev)
    a = np.from_dlpack(x)
    x[0, 0] = 100.0
    assert a[0, 0] == 100.0
    a[1, 2] = -7.0
    assert x[1, 2].item() == -7.0
    # views keep their strides and offset (negative strides too)
    for view in (x[:, ::-2], x.T, x[1:, 1:], x[::-1, ::-1]):
        b = np.from_dlpack(view)
        assert b.tolist() == view.tolist()
        assert np.shares_memory(b, a)


def test_export_flags_and_capsule_versions():
    dev = _numpy_device()
    x = wt.asarray([1, 2, 3], dtype=wt.int16, device=dev)
    assert "dltensor_versioned" in repr(x.__dlpack__(max_version=(1, 0)))
    assert '"dltensor"' in repr(x.__dlpack__())  # old consumers: the unversioned capsule
    assert '"dltensor"' in repr(x.__dlpack__(max_version=(0, 8)))
    # a broadcast view is read-only: a versioned consumer is told so, an old one gets a copy
    b = wt.broadcast_to(x, (2, 3))
    shared = np.from_dlpack(b)
    assert not shared.flags.writeable and shared.tolist() == [[1, 2, 3]] * 2
    with pytest.raises(BufferError, match=r"copy=False is impossible: an old \(unversioned\) "
                                          r"consumer cannot be told the memory is read-only"):
        b.__dlpack__(copy=False)
    # copy=True always copies
    c = np.from_dlpack(x, copy=True)
    x[0] = 9
    assert c.tolist() == [1, 2, 3]


def test_python_backend_exports_a_copy():
    if "python" not in DEVICES:
        pytest.skip("the pure-Python backend is not available")
    x = wt.asarray([[1, 2], [3, 4]], dtype=wt.uint16, device=DEVICES["python"])
    a = np.from_dlpack(x)
    assert a.tolist() == [[1, 2], [3, 4]] and a.dtype == np.uint16
    x[0, 0] = 7
    assert a[0, 0] == 1  # a copy
    assert np.from_dlpack(x[:, ::-1]).tolist() == [[2, 7], [4, 3]]
    with pytest.raises(BufferError, match=r"Tensor.__dlpack__: copy=False is impossible: the "
                                          r"pure-Python cpu backend keeps values as Python "
                                          r"objects; use copy=None"):
        np.from_dlpack(x, copy=False)


def test_webgpu_tensors_must_move_to_the_cpu_first():
    if "webgpu" not in DEVICES:
        pytest.skip("no WebGPU adapter here")
    g = wt.asarray([1.5, -2.5], device=DEVICES["webgpu"])
    assert g.__dlpack_device__() == (15, 0)  # kDLWebGPU
    with pytest.raises(BufferError, match=r"this tensor is on the webgpu device, whose buffers "
                                          r"no DLPack consumer can read; move it to the cpu "
                                          r"first \(x.to_device\('cpu'\)\), or let the consumer "
                                          r"take a copy \(copy=True"):
        np.from_dlpack(g)
    assert np.from_dlpack(g, copy=True).tolist() == [1.5, -2.5]
    assert np.from_dlpack(g, device="cpu").tolist() == [1.5, -2.5]  # dl_device=(1, 0)
    assert np.from_dlpack(g.to_device("cpu")).tolist() == [1.5, -2.5]
    with pytest.raises(BufferError, match=r"copy=False is impossible: the webgpu device's memory "
                                          r"cannot be read in place"):
        g.__dlpack__(dl_device=(1, 0), copy=False)
    with pytest.raises(BufferError, match=r"cannot export to DLPack device \(15, 0\)"):
        g.__dlpack__(dl_device=(15, 0))


def test_export_argument_errors(dev):
    x = wt.asarray([1.0], device=dev)
    with pytest.raises(BufferError, match=r"stream=1 is not supported"):
        x.__dlpack__(stream=1)
    with pytest.raises(BufferError, match=r"cannot export to DLPack device \(2, 0\)"):
        x.__dlpack__(dl_device=(2, 0))
    with pytest.raises(TypeError, match=r"dl_device must be a \(device type, device id\) tuple"):
        x.__dlpack__(dl_device="cpu")
    with pytest.raises(TypeError, match=r"copy must be True, False or None, got 'yes'"):
        x.__dlpack__(copy="yes")
    with pytest.raises(TypeError, match=r"max_version must be a \(major, minor\) tuple"):
        x.__dlpack__(max_version=1)


def test_jax_reads_our_tensors_bfloat16_included():
    jnp = pytest.importorskip("jax.numpy")
    dev = _numpy_device()
    for dt in (wt.bfloat16, wt.float32, wt.int32, wt.bool, wt.complex64):
        x = wt.asarray(_values(dt), dtype=dt, device=dev)
        got = jnp.from_dlpack(x)
        assert str(got.dtype) == dt.name
        assert np.asarray(got).astype(np.complex128).tolist() == \
            np.asarray(x.tolist(), dtype=np.complex128).tolist()


# -- import ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("dt", NUMPY_DTYPES, ids=str)
def test_from_numpy_every_dtype_on_every_device(dev, dt):
    arr = np.asarray(_values(dt), dtype=dt.name)
    t = wt.from_dlpack(arr, device=dev)
    assert t.dtype is dt and t.device is dev and t.tolist() == arr.tolist()


def test_import_shares_memory_on_the_numpy_backend():
    dev = _numpy_device()
    arr = np.arange(12, dtype=np.int16).reshape(3, 4)
    t = wt.from_dlpack(arr, device=dev)
    assert t.device is dev
    arr[0, 0] = 99
    assert t[0, 0].item() == 99
    t[2, 3] = -1
    assert arr[2, 3] == -1
    # strided, reversed and offset views of the producer's memory
    for view in (arr[::2, ::-1], arr.T, arr[1:, 2:], arr[::-1]):
        s = wt.from_dlpack(view, device=dev)
        assert s.tolist() == view.tolist()
        view[...] = view + 1
        assert s.tolist() == view.tolist()
    # copy=True gives independent memory
    c = wt.from_dlpack(arr, copy=True, device=dev)
    arr[1, 1] = 1000
    assert c[1, 1].item() != 1000


def test_import_read_only_memory_gives_a_read_only_tensor():
    dev = _numpy_device()
    arr = np.arange(3.0)
    arr.flags.writeable = False
    t = wt.from_dlpack(arr, device=dev)
    assert t.tolist() == [0.0, 1.0, 2.0]
    with pytest.raises(ValueError, match=r"the target is read-only: its memory belongs to the "
                                         r"library that shared it through DLPack"):
        t[0] = 5.0
    assert (t + 1).tolist() == [1.0, 2.0, 3.0]  # reading is fine
    u = wt.asarray(t, copy=True)
    u[0] = 5.0
    assert u.tolist() == [5.0, 1.0, 2.0]


def test_import_copies_where_sharing_is_impossible(dev):
    arr = np.arange(6.0).reshape(2, 3)[:, ::-1]
    if dev.name == "cpu" and dev.backend.name == "numpy":
        t = wt.from_dlpack(arr, device=dev, copy=False)
        arr[0, 0] = 50.0
        assert t[0, 0].item() == 50.0
        return
    t = wt.from_dlpack(arr, device=dev)
    assert t.tolist() == arr.tolist()
    arr[0, 0] = 50.0
    assert t[0, 0].item() == 2.0
    with pytest.raises(BufferError, match=r"wt.from_dlpack: copy=False is impossible"):
        wt.from_dlpack(arr, device=dev, copy=False)


def test_imported_memory_outlives_its_producer():
    dev = _numpy_device()
    arr = np.arange(1000, dtype=np.float64) * 3
    t = wt.from_dlpack(arr, device=dev)[::7]
    expected = (np.arange(1000) * 3)[::7].tolist()
    del arr
    gc.collect()
    _ = [np.ones(1000) for _ in range(50)]  # reuse freed memory, if any had been freed
    assert t.tolist() == expected


def test_deleters_run_exactly_once():
    dev = _numpy_device()
    before = _live()
    x = wt.asarray([1, 2, 3], device=dev)
    capsule = x.__dlpack__(max_version=(1, 0))
    assert _live() == before + 1
    del capsule  # never consumed: it frees itself
    assert _live() == before
    # our own capsule, imported: freed when the last view of the imported tensor dies
    y = wt.from_dlpack(_Producer(x), device=dev)
    view = y[1:]
    assert _live() == before + 1
    del y
    assert _live() == before + 1 and view.tolist() == [2, 3]
    del view
    assert _live() == before
    # a copy releases the producer at once
    z = wt.from_dlpack(_Producer(x), copy=True, device=dev)
    assert _live() == before and z.tolist() == [1, 2, 3]


class _Producer:
    """A producer that only speaks the old protocol: ``__dlpack__()`` with no arguments."""

    def __init__(self, t):
        self.t = t

    def __dlpack__(self):
        return self.t.__dlpack__()

    def __dlpack_device__(self):
        return self.t.__dlpack_device__()


def test_old_protocol_producers(dev):
    src = wt.asarray([[1.5, 2.5], [3.5, 4.5]], device=_numpy_device())
    got = wt.from_dlpack(_Producer(src.T), device=dev)
    assert got.tolist() == [[1.5, 3.5], [2.5, 4.5]] and got.device is dev


def test_from_jax_bfloat16_included(dev):
    jnp = pytest.importorskip("jax.numpy")
    for dt in (wt.bfloat16, wt.float16, wt.int8, wt.uint32, wt.complex64):  # JAX: no x64
        j = jnp.asarray(_values(dt), dtype=dt.name)
        t = wt.from_dlpack(j, device=dev)
        assert t.dtype is dt and t.device is dev
        assert t.tolist() == np.asarray(j.astype(jnp.float32) if dt is wt.bfloat16
                                        else j).tolist()


def test_round_trip_numpy_wt_numpy_shares_one_buffer():
    dev = _numpy_device()
    arr = np.linspace(0, 1, 5, dtype=np.float32)
    back = np.from_dlpack(wt.from_dlpack(arr, device=dev))
    assert np.shares_memory(arr, back)
    back[0] = 42
    assert arr[0] == 42


def test_import_errors():
    class NotDLPack:
        pass

    with pytest.raises(TypeError, match=r"wt.from_dlpack: NotDLPack does not support DLPack"):
        wt.from_dlpack(NotDLPack())

    class Twice:
        """Hands out one capsule twice: the second time it is already used."""

        def __init__(self):
            self.capsule = wt.asarray([1.0], device="cpu").__dlpack__(max_version=(1, 0))

        def __dlpack__(self, **kwargs):
            return self.capsule

    producer = Twice()
    assert wt.from_dlpack(producer).tolist() == [1.0]
    with pytest.raises(BufferError, match=r"the capsule is named b'used_dltensor_versioned', not "
                                          r"'dltensor' or 'dltensor_versioned' \(already "
                                          r"consumed\?\)"):
        wt.from_dlpack(producer)

    class NotACapsule:
        def __dlpack__(self, **kwargs):
            return 42

    with pytest.raises(BufferError, match=r"__dlpack__ returned int, not a DLPack capsule"):
        wt.from_dlpack(NotACapsule())
