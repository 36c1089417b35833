"""Reliability: settings that stay local under threads, tasks and nesting; read-only broadcast
views; Python ints that do not fit; the buffer protocol; copies and pickles; shape and rank
limits.  Each check runs on every device (both CPU backends and webgpu)."""

from __future__ import annotations

import asyncio
import copy
import pickle
import sys
import threading

import pytest

import webtensor as wt

# -- settings ---------------------------------------------------------------------------------------

SETTERS = [
    (wt.set_promotion_mode, wt.get_promotion_mode, ["numpy", "safe", "all", "strict"],
     "standard"),
    (wt.set_default_float_dtype, lambda: wt.default_float_dtype().name,
     ["float64", "float16", "bfloat16"], "float32"),
    (wt.set_default_int_dtype, lambda: wt.default_int_dtype().name, ["int64", "int16", "int8"],
     "int32"),
]


@pytest.mark.skipif(sys.platform == "emscripten", reason="no threads in WebAssembly")
@pytest.mark.parametrize("setter,getter,values,default", SETTERS)
def test_with_setter_stays_in_its_thread(setter, getter, values, default):
    seen = []

    def work(value):
        for _ in range(150):
            with setter(value):
                if getter() != value:
                    seen.append(("inside", value, getter()))
            if getter() != default:
                seen.append(("outside", value, getter()))

    threads = [threading.Thread(target=work, args=(values[k % len(values)],))
               for k in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen == [] and getter() == default


def _can_run_an_event_loop() -> bool:
    """asyncio.run in Pyodide waits through JSPI, which Node has only behind a flag."""
    if sys.platform != "emscripten":
        return True
    from pyodide.ffi import can_run_sync

    return bool(can_run_sync())


@pytest.mark.skipif(not _can_run_an_event_loop(),
                    reason="asyncio.run needs JSPI in Pyodide (absent in this JavaScript runtime)")
@pytest.mark.parametrize("setter,getter,values,default", SETTERS)
def test_with_setter_stays_in_its_task(setter, getter, values, default):
    async def task(value):
        with setter(value):
            await asyncio.sleep(0)
            first = getter()
            await asyncio.sleep(0)
            return first, getter()

    async def main():
        return await asyncio.gather(*(task(v) for v in values))
    results = asyncio.run(main())
    assert results == [(v, v) for v in values] and getter() == default


def test_nested_and_reused_context_managers():
    cm = wt.promotion_mode("strict")
    with cm:
        with cm:
            assert wt.get_promotion_mode() == "strict"
        assert wt.get_promotion_mode() == "strict"
        with wt.promotion_mode("numpy"):
            assert wt.get_promotion_mode() == "numpy"
        assert wt.get_promotion_mode() == "strict"
    assert wt.get_promotion_mode() == "standard"
    with cm:  # the same object again, after use
        assert wt.get_promotion_mode() == "strict"
    assert wt.get_promotion_mode() == "standard"


def test_plain_and_stored_setter_calls():
    wt.set_promotion_mode("safe")  # a plain call changes the process-wide value
    assert wt.get_promotion_mode() == "safe"
    wt.set_promotion_mode("standard")
    stored = wt.set_default_float_dtype(wt.float64)  # stored first, entered later
    assert wt.default_float_dtype() is wt.float64  # (a plain call until entered)
    with stored:
        assert wt.default_float_dtype() is wt.float64
    assert wt.default_float_dtype() is wt.float32  # entering moved it into the block
    with wt.set_promotion_mode("numpy"):
        wt.set_promotion_mode("all")  # inside a with: changes only that block's value
        assert wt.get_promotion_mode() == "all"
    assert wt.get_promotion_mode() == "standard"


# -- writes through broadcast views ----------------------------------------------------------------

def test_broadcast_views_are_read_only(dev):
    base = wt.asarray([1, 2, 3], device=dev)
    v = wt.broadcast_to(base, (2, 3))
    a, b = wt.broadcast_arrays(base, wt.ones((2, 1), dtype=wt.int32, device=dev))
    writes = [lambda: v.__setitem__(1, wt.asarray([7, 8, 9], device=dev)),
              lambda: v.__setitem__((0, 0), 9), lambda: v.__setitem__(..., 5),
              lambda: a.__setitem__(0, 5), lambda: v[1].__setitem__(slice(None), 4),
              lambda: v.T.__setitem__(0, 1), lambda: v[1].__iadd__(1)]
    for write in writes:
        with pytest.raises(ValueError, match=r"read-only broadcast view.*"
                                             r"wt.asarray\(x, copy=True\)"):
            write()
    assert base.tolist() == [1, 2, 3]
    assert b.tolist() == [[1, 1, 1], [1, 1, 1]]
    c = wt.asarray(v, copy=True)  # a copy is an ordinary tensor
    c[1] = wt.asarray([7, 8, 9], device=dev)
    assert c.tolist() == [[1, 2, 3], [7, 8, 9]] and base.tolist() == [1, 2, 3]
    # reading through them is unchanged, and so is broadcasting in arithmetic
    assert (v + 1).tolist() == [[2, 3, 4], [2, 3, 4]]
    size_one = wt.broadcast_to(base[:1], (1,))  # no stretched dim: still writable
    size_one[0] = 5
    assert base.tolist() == [5, 2, 3]


# -- Python ints that do not fit -------------------------------------------------------------------

@pytest.mark.parametrize("make,fn", [
    (lambda d: wt.asarray([300, -129, 2**31], dtype=wt.int8, device=d), "asarray"),
    (lambda d: wt.asarray(2**31, dtype=wt.int32, device=d), "asarray"),
    (lambda d: wt.asarray([2**64], dtype=wt.uint64, device=d), "asarray"),
    (lambda d: wt.asarray([-1], dtype=wt.uint8, device=d), "asarray"),
    (lambda d: wt.full((1,), 2**31, dtype=wt.int32, device=d), "full"),
    (lambda d: wt.full_like(wt.ones(2, dtype=wt.int8, device=d), 300), "full_like"),
    (lambda d: wt.full((2,), 2**70, dtype=wt.int64, device=d), "full"),
])
@pytest.mark.parametrize("mode", ["standard", "numpy", "all"])
def test_out_of_range_ints_raise_in_creation(dev, make, fn, mode):
    with wt.promotion_mode(mode), pytest.raises(OverflowError,
                                                match=rf"wt.{fn}: Python int -?\d+ is out of "
                                                      rf"range for u?int\d+ \(.*\); (pass a|no integer)"):
        make(dev)
    assert wt.asarray([127, -128], dtype=wt.int8, device=dev).tolist() == [127, -128]
    assert wt.full((1,), 2**32 - 1, dtype=wt.uint32, device=dev).tolist() == [2**32 - 1]


# -- the buffer protocol (item 6) ---------------------------------------------------------------

np = pytest.importorskip("numpy") if sys.platform != "emscripten" else None

BUFFER_CASES = [
    ("int16", lambda: np.array([1, -2, 3], dtype=np.int16)),
    ("2-D int64", lambda: np.arange(6, dtype=np.int64).reshape(2, 3)),
    ("strided", lambda: np.arange(12, dtype=np.float32)[::3]),
    ("big endian", lambda: np.arange(4, dtype=">i4")),
    ("big endian complex", lambda: np.array([1 + 2j, -3j], dtype=">c8")),
    ("uint8 3-D", lambda: np.arange(24, dtype=np.uint8).reshape(2, 3, 4)),
    ("float64 Fortran", lambda: np.asfortranarray(np.arange(6.0).reshape(2, 3))),
    ("bool", lambda: np.array([True, False, True])),
]


@pytest.mark.skipif(np is None, reason="NumPy makes the buffers")
@pytest.mark.parametrize("case,make", BUFFER_CASES, ids=[c for c, _ in BUFFER_CASES])
def test_buffers_keep_format_shape_and_strides(dev, case, make):
    a = make()
    t = wt.asarray(memoryview(a), device=dev)
    want = a.astype(a.dtype.newbyteorder("=")) if a.dtype.byteorder == ">" else a
    assert t.dtype.name == want.dtype.name and t.shape == want.shape
    assert t.tolist() == want.tolist()
    # a dtype converts the values (never reinterprets the bytes)
    if a.dtype.kind != "c":
        f = wt.asarray(memoryview(a), dtype=wt.float32, device=dev)
        assert f.tolist() == want.astype(np.float32).tolist()


def test_python_buffers_and_sequences_of_arrays(dev):
    import array

    assert wt.asarray(array.array("d", [1.5, -2.5]), device=dev).tolist() == [1.5, -2.5]
    assert wt.asarray(array.array("h", [7, -8]), device=dev).dtype == wt.int16
    assert wt.asarray(bytearray(b"\x01\xff"), device=dev).tolist() == [1, 255]
    if np is not None:
        pair = wt.asarray((np.arange(2), np.arange(2)), device=dev)
        assert pair.shape == (2, 2) and pair.tolist() == [[0, 1], [0, 1]]
    with pytest.raises(TypeError, match=r"wt\.asarray: a buffer of element format"):
        wt.asarray(memoryview(b"abcd").cast("c"), device=dev)
    with pytest.raises(ValueError, match=r"wt\.asarray: copy=False"):
        wt.asarray(bytearray(4), copy=False, device=dev)


# -- copies and pickles (item 7) --------------------------------------------------------------

@pytest.mark.parametrize("dt", wt.all_dtypes, ids=lambda d: d.name)
def test_copy_deepcopy_and_pickle_are_independent_and_exact(dev, dt):
    t = wt.asarray([[0, 1, 2], [3, 4, 5]], device=dev).astype(dt)
    for clone in (copy.copy(t), copy.deepcopy(t), pickle.loads(pickle.dumps(t))):
        assert clone is not t
        # (a pickle names its device; "cpu" opens on the default CPU backend)
        assert (clone.dtype, clone.shape, clone.device.name) == (t.dtype, t.shape, t.device.name)
        assert clone.tobytes() == t.tobytes()
        clone[0, 0] = clone[1, 1]  # writing the clone never changes the original
        assert t[0, 0].item() == 0 and t.tobytes() == wt.asarray(
            [[0, 1, 2], [3, 4, 5]], device=dev).astype(dt).tobytes()
    # a container deep copy keeps shared tensors shared
    box = copy.deepcopy({"a": t, "b": t})
    assert box["a"] is box["b"]


def test_weak_flag_survives_a_pickle(dev):
    weak = wt.asarray(2.0, device=dev)
    assert weak.weak and pickle.loads(pickle.dumps(weak)).weak
    assert not pickle.loads(pickle.dumps(wt.asarray(2.0, dtype=wt.float32, device=dev))).weak


def test_a_pickle_from_a_missing_device_opens_on_the_cpu(monkeypatch):
    t = wt.asarray([1.0, 2.0])
    fn, args = t.__reduce__()
    elsewhere = list(args)
    elsewhere[3] = "no-such-device"
    with pytest.warns(RuntimeWarning, match="unpickled on the cpu device"):
        back = fn(*elsewhere)
    assert back.device.name == "cpu" and back.tolist() == [1.0, 2.0]


# -- ranks and sizes: one limit and one error per condition, on every device (item 8) -----------

def test_every_rank_up_to_the_limit_works(dev):
    limit = 64  # as NumPy 2
    x = wt.ones((1,) * (limit - 1) + (3,), device=dev)
    assert x.ndim == limit
    assert wt.sum(x).item() == 3.0
    assert wt.sort(-x, axis=-1).shape == x.shape
    assert wt.argsort(x, axis=0).shape == x.shape
    assert wt.permute_dims(x, tuple(reversed(range(limit)))).shape == (3,) + (1,) * (limit - 1)
    assert (x + x)[(0,) * (limit - 1)].tolist() == [2.0, 2.0, 2.0]
    assert wt.reshape(x, (3,)).tolist() == [1.0, 1.0, 1.0]


@pytest.mark.parametrize("make", [
    lambda d: wt.ones((1,) * 65, device=d),
    lambda d: wt.reshape(wt.ones(1, device=d), (1,) * 65),
    lambda d: wt.expand_dims(wt.ones((1,) * 64, device=d), 0),
    lambda d: wt.ones((1,) * 64, device=d)[None],
], ids=["ones", "reshape", "expand_dims", "index"])
def test_one_rank_too_many_is_a_value_error(dev, make):
    with pytest.raises(ValueError, match="at most 64"):
        make(dev)


@pytest.mark.parametrize("make", [
    lambda d: wt.zeros(2 ** 100, device=d),
    lambda d: wt.ones((2 ** 40, 2 ** 40), device=d),
    lambda d: wt.full((2 ** 31, 2 ** 31, 4), 1.0, device=d),
    lambda d: wt.empty(2 ** 62, device=d),
    lambda d: wt.eye(2 ** 40, device=d),
    lambda d: wt.arange(0.0, 2.0 ** 70, device=d),
    lambda d: wt.linspace(0, 1, 2 ** 70, device=d),
    lambda d: wt.broadcast_to(wt.ones(1, device=d), (2 ** 70,)),
    lambda d: wt.fft.fft(wt.ones(4, device=d), n=2 ** 63),
], ids=["zeros", "ones", "full", "empty", "eye", "arange", "linspace", "broadcast_to", "fft"])
def test_sizes_no_device_can_hold_are_a_memory_error_with_a_message(dev, make):
    with pytest.raises(MemoryError) as info:
        make(dev)
    assert str(info.value).startswith("wt.") and "use a smaller" in str(info.value)


def test_huge_steps_and_offsets_slice_like_python(dev):
    x = wt.arange(5, device=dev)
    assert x[::2 ** 70].tolist() == [0]
    assert x[::-2 ** 70].tolist() == [4]
    assert x[2 ** 70:].tolist() == []
    assert x[-2 ** 70:2].tolist() == [0, 1]
