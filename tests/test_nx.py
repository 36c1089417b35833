"""webtensor.nx beyond the documented examples: defn/jit/grad, serialization and .npy files,
backends as devices, Nx's dynamic indices, the nx promotion mode on operands, options and the
errors naming nx functions.

Oracles: NumPy (files it writes, its arithmetic), JAX for gradients where it installs, Nx's
documented rules (merge, merge_number) evaluated independently, and round trips.
"""

from __future__ import annotations

import io
import math
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import webtensor as wt
import webtensor.nx as nx

np = pytest.importorskip("numpy")

pytestmark = pytest.mark.filterwarnings("ignore:webgpu. float64 work runs on the CPU")



@pytest.fixture(autouse=True)
def _default_device(request):
    dev = request.getfixturevalue("dev") if "dev" in request.fixturenames else None
    if dev is None:
        yield
        return
    with wt.set_default_device(dev):
        yield


# -- defn / jit / grad ----------------------------------------------------------------------------

def test_defn_compiles_once_per_shape_type_and_names(dev):
    calls = []

    @nx.defn
    def softmax(t, *, axis=0):
        calls.append(1)
        e = nx.exp(t)
        return nx.divide(e, nx.sum(e, axes=[axis], keep_axes=True))

    x = nx.tensor([[1.0, 2.0], [3.0, 4.0]], names=["a", "b"])
    got = softmax(x)
    want = np.exp(np.asarray(x.tolist()))
    want = want / want.sum(axis=0, keepdims=True)
    assert np.allclose(got.tolist(), want, rtol=1e-6)
    assert got.names == ("a", "b") and got.device is dev
    softmax(nx.tensor([[5.0, 2.0], [3.0, 1.0]], names=["a", "b"]))  # same signature
    assert len(calls) == 1
    softmax(x, axis=1)  # keyword options are static
    softmax(nx.tensor([[1.0, 2.0], [3.0, 4.0]]))  # other names
    softmax(nx.tensor([[1.0, 2.0], [3.0, 4.0]], type="f64"))  # other type
    softmax(nx.tensor([[1.0, 2.0, 3.0]], names=["a", "b"]))  # other shape
    assert len(calls) == 5
    assert np.allclose(softmax(x, axis=1).tolist(),
                       np.exp(x.tolist()) / np.exp(x.tolist()).sum(axis=1, keepdims=True))


def test_defn_numbers_become_nx_tensors_and_operators_merge_as_nx(dev):
    @nx.defn
    def f(a, b):
        return a + b

    i, x = f(2, 3), f(2, 0.5)
    assert nx.type(i) == ("s", 64) and i.item() == 5
    assert nx.type(x) == ("f", 32) and x.item() == 2.5
    # a number argument is an s64 tensor (as in Nx), a number inside merges by value
    assert nx.type(f(nx.tensor([0, 1, 2], type="u8"), -1)) == ("s", 64)

    @nx.defn
    def minus_one(a):
        return a + -1

    u = minus_one(nx.tensor([0, 1, 2], type="u8"))  # Nx's merge_number: u8 with -1 is s16
    assert nx.type(u) == ("s", 16) and u.tolist() == [-1, 0, 1]
    assert nx.jit(lambda a: nx.multiply(a, 2))(nx.tensor([1, 2])).tolist() == [2, 4]
    assert nx.jit(lambda a: nx.multiply(a, 2), nx.tensor([3])).tolist() == [6]


def test_reading_values_inside_defn_raises(dev):
    @nx.defn
    def number(t):
        return nx.to_number(t)

    with pytest.raises(wt.ConcretizationError, match=r"nx\.to_number: cannot read the values "
                                                     r"of a tensor inside defn/jit"):
        number(nx.tensor(1.0))

    @nx.defn
    def branch(t):
        return t if nx.greater(t, 0) else nx.negate(t)

    with pytest.raises(wt.ConcretizationError, match=r"wt\.where|nx\.select|wt\.cond"):
        branch(nx.tensor(1.0))
    with pytest.raises(TypeError, match=r"nx\.defn: expected a function"):
        nx.defn(3)


def test_grad_and_value_and_grad(dev):
    g = nx.grad(nx.tensor(3.0), lambda t: nx.multiply(t, t))
    assert g.item() == 6.0 and nx.type(g) == ("f", 32)
    value, grads = nx.value_and_grad((nx.tensor(2.0), nx.tensor(3.0)),
                                     lambda ab: nx.multiply(ab[0], ab[1]))
    assert value.item() == 6.0 and [t.item() for t in grads] == [3.0, 2.0]
    assert math.isclose(nx.grad(2.0, nx.sin).item(), math.cos(2.0), rel_tol=1e-6)
    df = nx.grad(lambda t: nx.sum(nx.sigmoid(t)))
    t = nx.tensor([-1.0, 0.0, 2.0])
    s = 1 / (1 + np.exp(-np.asarray(t.tolist())))
    assert np.allclose(df(t).tolist(), s * (1 - s), rtol=1e-6)


def test_grad_matches_jax_for_a_small_network(dev):
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    rnd = np.random.default_rng(1)
    w = rnd.normal(size=(3, 4)).astype(np.float32)
    x = rnd.normal(size=(5, 3)).astype(np.float32)

    def loss_nx(weights):
        h = nx.tanh(nx.dot(nx.tensor(x.tolist()), weights))
        return nx.mean(nx.multiply(nx.erf(h), nx.cbrt(nx.add(h, 2.0))))

    def loss_jax(weights):
        h = jnp.tanh(jnp.asarray(x) @ weights)
        return jnp.mean(jax.scipy.special.erf(h) * jnp.cbrt(h + 2.0))

    got = nx.grad(nx.tensor(w.tolist()), loss_nx)
    want = jax.grad(loss_jax)(jnp.asarray(w))
    assert np.allclose(got.tolist(), np.asarray(want), rtol=1e-4, atol=1e-6)


# -- serialization and files ----------------------------------------------------------------------

@pytest.mark.parametrize("compressed", [0, 9])
def test_serialize_round_trips_containers_types_and_names(dev, compressed):
    tree = {"w": nx.tensor([1.5, -2.25], type="bf16", names=["x"]),
            "n": (nx.tensor(3), [nx.iota((2, 3), type="u16"), nx.tensor([complex(1, -1)])]),
            7: nx.tensor([[True, False]]), "e": nx.iota((0, 2), type="f64")}
    data = nx.serialize(tree, compressed=compressed)
    assert data[:4] == b"WTNX" and data[4] == 1 and data[5] == (1 if compressed else 0)
    back = nx.deserialize(data)
    assert set(back) == {"w", "n", 7, "e"} and isinstance(back["n"], tuple)
    pairs = [(tree["w"], back["w"]), (tree["n"][0], back["n"][0]),
             (tree["n"][1][0], back["n"][1][0]), (tree["n"][1][1], back["n"][1][1]),
             (nx.tensor([[1, 0]], type="u8"), back[7]), (tree["e"], back["e"])]
    for want, got in pairs:
        assert (got.shape, got.dtype, got.names) == (want.shape, want.dtype, want.names)
        assert got.tobytes() == want.tobytes() and got.device is dev
    assert nx.deserialize(nx.serialize(5)).tolist() == 5


def test_serialize_errors(dev):
    with pytest.raises(ValueError, match=r"nx\.deserialize: the data does not start"):
        nx.deserialize(b"nope")
    future = b"WTNX" + bytes([9, 0])
    with pytest.raises(ValueError, match=r"format version 9; this webtensor reads versions up "
                                         r"to 1"):
        nx.deserialize(future)
    with pytest.raises(ValueError, match=r"ends too early"):
        nx.deserialize(nx.serialize(nx.tensor([1, 2]))[:-3])
    with pytest.raises(TypeError, match=r"nx\.serialize: cannot serialize str"):
        nx.serialize({"a": "text"})
    with pytest.raises(ValueError, match=r"nx\.serialize: compressed must be a level"):
        nx.serialize(nx.tensor(1), compressed=12)


@pytest.mark.parametrize(("array", "order"), [
    (np.arange(6, dtype="<f4").reshape(2, 3), "C"),
    (np.arange(6, dtype=">i4").reshape(2, 3), "F"),
    (np.array([True, False, True]), "C"),
    (np.array([[1 + 2j, -3j]], dtype=np.complex128), "F"),
    (np.array(7, dtype=np.uint16), "C"),
])
def test_load_npy_reads_what_numpy_writes(dev, array, order):
    buf = io.BytesIO()
    np.save(buf, np.asarray(array, order=order))
    t = nx.load_npy(buf.getvalue())
    want = array.astype(np.uint8) if array.dtype == bool else array
    assert t.shape == want.shape and t.device is dev
    assert np.array_equal(np.asarray(t.tolist()), want)
    if array.dtype != bool:
        assert t.dtype.nx == {"f": "f", "i": "s", "u": "u", "c": "c"}[want.dtype.kind] + \
            str(want.dtype.itemsize * 8)


def test_load_numpy_archive(dev, tmp_path):
    path = tmp_path / "arrays.npz"
    np.savez_compressed(path, a=np.arange(4, dtype=np.int16), b=np.eye(2))
    loaded = dict(nx.load_numpy_archive(str(path)))
    assert loaded["a"].tolist() == [0, 1, 2, 3] and nx.type(loaded["a"]) == ("s", 16)
    assert loaded["b"].tolist() == [[1.0, 0.0], [0.0, 1.0]]


def test_binaries(dev):
    t = nx.tensor([1.0, -2.0, 3.5], type="f16")
    assert nx.to_binary(t) == struct.pack("<3e", 1.0, -2.0, 3.5)
    assert nx.to_binary(t, limit=1) == struct.pack("<e", 1.0)
    back = nx.from_binary(nx.to_binary(t), "f16")
    assert back.tolist() == [1.0, -2.0, 3.5] and back.device is dev
    assert nx.to_flat_list(nx.tensor(["infinity", 2.0, "nan"])) == ["infinity", 2.0, "nan"]
    assert nx.to_number(nx.tensor("neg_infinity")) == "neg_infinity"


# -- backends ---------------------------------------------------------------------------------

def test_backend_copy_transfer_deallocate(dev):
    cpu = wt.device("cpu") if callable(getattr(wt, "device", None)) else "cpu"
    t = nx.tensor([[1, 2], [3, 4]], names=["x", "y"], backend=dev)
    copy = nx.backend_copy({"t": t, "n": (t, 2)}, cpu)
    assert copy["t"].device.name == "cpu" and copy["t"].tolist() == t.tolist()
    assert copy["t"].names == ("x", "y") and copy["n"][1].tolist() == 2
    moved = nx.backend_transfer(t, "cpu")
    assert moved.tolist() == [[1, 2], [3, 4]]
    if dev.name != "cpu" or dev.backend is not moved.device.backend:
        assert nx.backend_deallocate(t) == "already_deallocated"
        with pytest.raises(RuntimeError, match=r"after nx\.backend_deallocate"):
            nx.add(t, 1)
    assert nx.backend_deallocate(moved) == "ok"
    assert nx.backend_deallocate(moved) == "already_deallocated"
    assert nx.backend_transfer(copy["t"]) is copy["t"]  # already there: nothing moves


def test_default_backend_is_the_default_device(dev):
    before = nx.default_backend()
    assert before is dev
    previous = nx.default_backend("cpu")
    try:
        assert previous is dev and nx.default_backend().name == "cpu"
        assert nx.tensor([1]).device.name == "cpu"
    finally:
        nx.default_backend(previous)
    assert nx.default_backend() is dev


def test_templates(dev):
    tpl = nx.template((2, 3), "f32", names=["rows", None])
    assert nx.shape(tpl) == (2, 3) and nx.type(tpl) == ("f", 32)
    assert nx.names(tpl) == ["rows", None]
    assert "Nx.TemplateBackend" in nx.inspect(tpl)
    assert repr(tpl).startswith("Tensor(<Nx.TemplateBackend: no data>,")
    with pytest.raises(RuntimeError, match="cannot perform operations on a Nx.TemplateBackend"):
        nx.add(tpl, 1)
    with pytest.raises(RuntimeError, match="Nx.TemplateBackend"):
        nx.to_binary(tpl)


# -- indices ------------------------------------------------------------------------------------

def test_dynamic_indices_clamp_in_named_access_on_every_device_and_in_jit(dev):
    t = nx.tensor([[1, 2, 3], [4, 5, 6]], names=["x", "y"])
    for i, want in ((-5, [1, 2, 3]), (-1, [1, 2, 3]), (1, [4, 5, 6]), (7, [4, 5, 6])):
        assert t[{"x": nx.tensor(i)}].tolist() == want
    assert t[{0: nx.tensor(9), 1: nx.tensor(-2)}].tolist() == 4
    assert t[-1].tolist() == [4, 5, 6]  # a plain index counts from the end, as in NumPy
    jitted = wt.jit(lambda a, i: a[{"y": i}])
    assert jitted(t, nx.tensor(-3)).tolist() == [1, 4]
    assert jitted(t, nx.tensor(10)).tolist() == [3, 6]
    with pytest.raises(IndexError, match="index 2 is out of bounds for axis 0"):
        t[2]


def test_slices_and_gathers_clamp_dynamic_starts(dev):
    t = nx.iota((4, 5))
    assert nx.slice(t, [nx.tensor(3), nx.tensor(-2)], [2, 2]).tolist() == [[10, 11], [15, 16]]
    assert nx.slice(t, [1, 1], [3, 4], strides=[2, 3]).tolist() == [[6, 9], [16, 19]]
    assert nx.slice_along_axis(t, nx.tensor(9), 2, axis=1).tolist() == \
        [[3, 4], [8, 9], [13, 14], [18, 19]]
    put = nx.put_slice(nx.tensor([[0, 0, 0]]), [0, nx.tensor(5)], nx.tensor([[1.5, 2.5]]))
    assert nx.type(put) == ("f", 32) and put.tolist() == [[0.0, 1.5, 2.5]]
    assert nx.take(t, nx.tensor([[-1, 9]]), axis=1).tolist() == \
        [[[0, 4]], [[5, 9]], [[10, 14]], [[15, 19]]]
    assert nx.gather(t, nx.tensor([[3, 4], [-1, 9]])).tolist() == [19, 4]
    added = nx.indexed_add(nx.tensor([1, 2, 3]), nx.tensor([[0], [0], [5], [-1]]),
                           nx.tensor([10, 20, 99, 99]))
    assert added.tolist() == [31, 2, 3]  # out-of-range updates are dropped


# -- the nx promotion mode on operands ------------------------------------------------------------

def nx_merge(a, b):
    """Nx.Type.merge, from its documentation: same kind -> larger size; else the kind of
    higher rank (c > f > bf > s > u) wins, except unsigned with signed: signed of
    max(min(2 * unsigned, 64), signed)."""
    rank = {"u": 0, "s": 1, "bf": 2, "f": 3, "c": 4}
    if a[0] == b[0]:
        return (a[0], max(a[1], b[1]))
    lo, hi = sorted((a, b), key=lambda t: rank[t[0]])
    if lo[0] == "u" and hi[0] == "s":
        return ("s", max(min(2 * lo[1], 64), hi[1]))
    return hi


TYPES = [("u", 8), ("u", 16), ("u", 32), ("u", 64), ("s", 8), ("s", 16), ("s", 32), ("s", 64),
         ("bf", 16), ("f", 16), ("f", 32), ("f", 64), ("c", 64), ("c", 128)]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(TYPES), min_size=2, max_size=5))
def test_nx_mode_joins_types_as_nx_merge_in_any_order(types):
    want = types[0]
    for t in types[1:]:
        want = nx_merge(want, t)
    dts = [nx.tensor([0], type=t).dtype for t in types]
    with wt.promotion_mode("nx"):
        got = wt.result_type(*dts)
        assert wt.result_type(*reversed(dts)) is got
    assert nx.type(wt.empty((), dtype=got)) == want


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(TYPES[:8]), st.lists(st.integers(-2 ** 40, 2 ** 40), min_size=1,
                                            max_size=3))
def test_nx_mode_sizes_python_ints_by_value(t, values):
    """Every value fits the result, which is the narrowest Nx's rules allow."""
    dt = nx.tensor([0], type=t).dtype
    with wt.promotion_mode("nx"):
        got = wt.result_type(dt, *values)
        assert wt.result_type(*values[::-1], dt) is got
    info = wt.iinfo(got)
    assert all(info.min <= v <= info.max for v in values)
    kind = "s" if t[0] == "s" or min(values) < 0 else "u"
    assert got.kind == ("i" if kind == "s" else "u")
    if kind == t[0] == "u":  # unsigned stays unsigned, widened just enough
        need = max(max(values).bit_length(), 1)
        assert got.itemsize * 8 == max(t[1], next(b for b in (8, 16, 32, 64) if b >= need))


# -- options, types and errors --------------------------------------------------------------------

def test_nx_semantics_that_differ_from_numpy(dev):
    assert nx.round(nx.tensor([-2.5, -0.5, 0.5, 1.5, 2.5])).tolist() == [-3.0, -1.0, 1.0,
                                                                         2.0, 3.0]
    assert nx.remainder(nx.tensor([-7, 7]), nx.tensor([3, -3])).tolist() == [-1, 1]
    assert nx.quotient(nx.tensor([-7, 7]), nx.tensor([2, -2])).tolist() == [-3, -3]
    assert nx.type(nx.equal(nx.tensor([1.0]), 1)) == ("u", 8)
    assert nx.type(nx.sum(nx.tensor([1], type="u16"))) == ("u", 64)
    assert nx.type(nx.divide(nx.tensor([1]), 2)) == ("f", 32)
    assert nx.type(nx.phase(nx.tensor([-1, 2]))) == ("f", 32)
    assert nx.phase(nx.tensor([-1, 2])).tolist()[0] == pytest.approx(math.pi)
    assert nx.count_leading_zeros(nx.tensor([1, -1, 0], type="u16")).tolist() == [15, 0, 16]
    assert nx.population_count(nx.tensor([-1, 3], type="s8")).tolist() == [8, 2]
    c = nx.complex(nx.tensor([1.0, "infinity"]), nx.tensor(["nan", 2.0]))
    assert nx.type(c) == ("c", 64)
    assert math.isinf(c.tolist()[1].real) and math.isnan(c.tolist()[0].imag)
    assert nx.argmax(nx.tensor([1, 3, 3]), tie_break="high").item() == 2
    assert nx.argmin(nx.tensor([[2, 1, 1]]), axis=1, tie_break="high").tolist() == [2]
    m = nx.map(nx.tensor([[1, 2], [3, 4]], names=["r", None]), lambda v: nx.multiply(v, v),
               type="f32")
    assert m.tolist() == [[1.0, 4.0], [9.0, 16.0]] and m.names == ("r", None)
    r = nx.reduce(nx.tensor([[1, 5, 2], [4, 0, 9]]), 0, lambda a, b: nx.max(a, b), axes=[1])
    assert r.tolist() == [5, 9]
    assert nx.pad(nx.tensor([1, 2, 3]), 0, [(-1, 2, 1)]).tolist() == [0, 2, 0, 3, 0, 0]


def test_to_batched(dev):
    batches = list(nx.to_batched(nx.iota((5, 2)), 3))
    assert [b.tolist() for b in batches] == [[[0, 1], [2, 3], [4, 5]], [[6, 7], [8, 9],
                                                                      [0, 1]]]
    assert len(list(nx.to_batched(nx.iota((5, 2)), 3, leftover="discard"))) == 1
    with pytest.raises(ValueError, match="nx.to_batched: cannot batch beyond original"):
        next(iter(nx.to_batched(nx.iota((2,)), 3)))
    with pytest.raises(ValueError, match="nx.to_batched: leftover must be"):
        nx.to_batched(nx.iota((4,)), 2, leftover="keep")


def test_errors_name_the_nx_function():
    with pytest.raises(TypeError, match=r"nx\.tensor: invalid numerical type: 's3'"):
        nx.tensor([1], type="s3")
    with pytest.raises(ValueError, match=r"nx\.sum: given axis \(3\) invalid for shape with "
                                         r"rank 1"):
        nx.sum(nx.tensor([1]), axes=[3])
    with pytest.raises(ValueError, match=r"nx\.sum: key 'z' not found in tensor with names"):
        nx.sum(nx.tensor([1], names=["x"]), axes=["z"])
    with pytest.raises(ValueError, match=r"nx\.argmax: tie_break must be one of"):
        nx.argmax(nx.tensor([1]), tie_break="middle")
    with pytest.raises(TypeError, match=r"nx\.erf: erf is not supported for complex types"):
        nx.erf(nx.tensor([complex(1, 1)]))
    with pytest.raises(ValueError, match=r"nx\.add: axis names clash"):
        nx.add(nx.tensor([1], names=["a"]), nx.tensor([1], names=["b"]))
    with pytest.raises(ValueError, match=r"nx\.pad: invalid padding configuration"):
        nx.pad(nx.tensor([1, 2]), 0, [(1, 1, 0), (0, 0, 0)])
    with pytest.raises(TypeError, match=r"nx\.tensor: cannot build a s64 tensor from the float"):
        nx.tensor([1.5], type="s64")


def test_random_with_keys_is_reproducible(dev):
    key = wt.random.key(3)
    a = nx.random_uniform((4,), key=key)
    b = nx.random_uniform((4,), key=key)
    assert a.tolist() == b.tolist() and all(0.0 <= v < 1.0 for v in a.tolist())
    ints = nx.random_uniform((50,), -3, 3, type="s8", key=key)
    assert nx.type(ints) == ("s", 8) and set(ints.tolist()) <= set(range(-3, 3))
    perm = nx.shuffle(nx.iota((10,)), key=key)
    assert sorted(perm.tolist()) == list(range(10))
    assert nx.random_normal((3,), type="f64", key=key).dtype is wt.float64


def test_inspect_formats_numbers_as_elixir(dev):
    text = nx.inspect(nx.tensor([1e-7, 1.5e20, -0.0, "nan", "neg_infinity"], type="f64"))
    assert "[1.0e-7, 1.5e20, -0.0, NaN, -Inf]" in text
    assert nx.inspect(nx.tensor(complex(1, -2))).splitlines()[2].strip() == "1.0-2.0i"
    long = nx.inspect(nx.iota((100,)), limit=3)
    assert "[0, 1, 2, ...]" in long


def test_core_functions_from_nx_exist_on_every_device(dev):
    x = wt.asarray([0.5, -1.0], device=dev)
    assert wt.erf(x).device is dev and wt.complex(x, x).dtype is wt.complex64
    assert math.isclose(wt.erf_inv(wt.erf(x)).tolist()[0], 0.5, rel_tol=1e-6)
    assert wt.count_leading_zeros(wt.asarray([1], dtype=wt.uint8, device=dev)).tolist() == [7]
    with pytest.raises(TypeError, match=r"wt\.complex: not supported for int64"):
        wt.complex(wt.asarray([1], dtype=wt.int64, device=dev), 1)


def test_sigils(dev):
    v = nx.sigil_V("1 2_000 -3")
    assert v.tolist() == [1, 2000, -3] and nx.type(v) == ("s", 64)
    m = nx.sigil_M("1.5 2\n3 4", "f64")
    assert m.tolist() == [[1.5, 2.0], [3.0, 4.0]] and nx.type(m) == ("f", 64)
    with pytest.raises(ValueError, match=r"nx\.sigil_V: expected a number in the sigil"):
        nx.sigil_V("1 two")


DOCS = __import__("pathlib").Path(__file__).parent.parent / "docs"


@pytest.mark.skipif(not (DOCS / "nx.md").exists(), reason="docs/ is not part of this tree")
def test_every_public_function_is_documented():
    page = (DOCS / "nx.md").read_text()
    missing = [name for name in nx.__all__ if f"`{name}`" not in page]
    assert not missing, missing
