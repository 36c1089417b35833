"""The examples of PyTensor's "Basic Tensor Functionality" page (the seed of
webtensor.symbolic), run as written under ``import webtensor.symbolic as at``, with the page's
results, or PyTensor's where the two disagree (listed in docs/symbolic.md).  Compiled parts
run on every device; pure Python apart from the one example that starts from NumPy.
"""

from __future__ import annotations

import itertools
import warnings

import pytest

import webtensor as wt
import webtensor.symbolic as at
from webtensor.symbolic.type import TensorType


@pytest.fixture(autouse=True)
def _on(dev):
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="webgpu: float64")
        with wt.set_default_device(dev):
            yield


# -- Creation ---------------------------------------------------------------------------------------

def test_a_typed_constructor_is_the_type_of_its_variables():
    x = at.fmatrix()
    assert isinstance(x, at.TensorVariable)
    assert isinstance(at.fmatrix, TensorType) and x.type == at.fmatrix


def test_four_ways_to_make_an_int32_scalar_named_myvar():
    made = [at.scalar("myvar", dtype="int32"), at.iscalar("myvar"),
            at.tensor(dtype="int32", shape=(), name="myvar"),
            TensorType(dtype="int32", shape=())("myvar")]
    for x in made:
        assert (x.name, x.type.dtype, x.type.ndim, x.type.shape) == ("myvar", "int32", 0, ())


def test_untyped_constructors_use_floatx():
    for name, ndim in [("scalar", 0), ("vector", 1), ("row", 2), ("col", 2), ("matrix", 2),
                       *[(f"tensor{n}", n) for n in range(3, 8)]]:
        x = getattr(at, name)()
        assert x.type.dtype == at.config.floatX == "float64" and x.ndim == ndim
    with at.config.change_flags(floatX="float32"):
        assert at.matrix().dtype == "float32"


PREFIX_DTYPES = {"b": "int8", "w": "int16", "i": "int32", "l": "int64", "d": "float64",
                 "f": "float32", "c": "complex64", "z": "complex128"}
# the page's table: family -> (ndim, shape as printed, broadcastable)
FAMILY_TABLE = {
    "scalar": (0, "()", ()), "vector": (1, "(?,)", (False,)),
    "row": (2, "(1,?)", (True, False)), "col": (2, "(?,1)", (False, True)),
    "matrix": (2, "(?,?)", (False, False)),
    **{f"tensor{n}": (n, "(" + ",".join("?" * n) + ")", (False,) * n) for n in range(3, 8)},
}


@pytest.mark.parametrize("prefix", sorted(PREFIX_DTYPES))
def test_the_fully_typed_constructor_table(prefix):
    for family, (ndim, shape, bcast) in FAMILY_TABLE.items():
        x = getattr(at, prefix + family)()
        assert x.type.dtype == PREFIX_DTYPES[prefix] and x.type.ndim == ndim
        assert x.type.broadcastable == bcast
        printed = "(" + ",".join("?" if s is None else str(s) for s in x.type.shape) + ")"
        assert printed.replace(",)", ")") == shape.replace(",)", ")")


def test_optional_names_and_plural_constructors():
    assert at.dmatrix().name is None
    assert at.dmatrix("x").name == "x" and at.dmatrix("xyz").name == "xyz"
    x, y, z = at.dmatrices(3)
    assert [v.name for v in (x, y, z)] == [None] * 3 and x is not y
    x, y, z = at.dmatrices("x", "y", "z")
    assert [v.name for v in (x, y, z)] == ["x", "y", "z"]
    for family in ("scalars", "vectors", "rows", "cols", "matrices"):
        for prefix in ("i", "l", "f", "d"):
            made = getattr(at, prefix + family)(2)
            assert [v.type.dtype for v in made] == [PREFIX_DTYPES[prefix]] * 2


def test_custom_tensor_types():
    dtensor8 = TensorType(dtype="float64", shape=(None,) * 8)
    x = dtensor8()
    z = dtensor8("z")
    assert x.ndim == z.ndim == 8 and z.name == "z"
    my_dmatrix = TensorType("float64", shape=(None,) * 2)
    x = my_dmatrix()
    assert my_dmatrix == at.dmatrix
    middle_broadcaster = TensorType("complex64", shape=(None, 1, None))
    assert middle_broadcaster.broadcastable == (False, True, False)
    assert str(middle_broadcaster) == "Tensor3(complex64, shape=(?, 1, ?))"
    assert (at.row().broadcastable, at.col().broadcastable) == ((True, False), (False, True))


# -- Converting from Python objects -------------------------------------------------------------

def test_shared_from_a_numpy_array():
    np = pytest.importorskip("numpy")
    x = at.shared(np.random.standard_normal((3, 4)))
    assert x.ndim == 2 and x.dtype == "float64"
    assert x.get_value().shape == (3, 4) and x.get_value().device == wt.default_device()


def test_python_numbers_and_lists_become_constants():
    assert at.as_tensor_variable(1).type == at.bscalar  # small ints: int8
    assert at.as_tensor_variable(300).type.dtype == "int16"
    assert at.as_tensor_variable(1.5).type == at.fscalar  # float32 holds it exactly
    assert at.as_tensor_variable(0.1).type == at.dscalar  # it does not
    with at.config.change_flags(floatX="float32"):
        assert at.as_tensor_variable(0.1).type == at.fscalar
    v = at.as_tensor_variable([[1, 2, 3]])  # lists go through NumPy's rules: int64
    assert v.type.dtype == "int64" and v.type.shape == (1, 3)
    assert at.as_tensor_variable([1.0, 2.0], ndim=3).type.shape == (1, 1, 2)
    x = at.dmatrix("x")
    assert isinstance((x + 1).owner.inputs[1].owner.inputs[0], at.TensorConstant)
    values = [1.0, 2.0]
    c = at.as_tensor_variable(values)
    values[0] = 99.0  # the constant holds a copy
    assert c.eval().tolist() == [1.0, 2.0]


# -- TensorVariable methods --------------------------------------------------------------------

DIMSHUFFLES = [  # pattern, input shape, result shape (the page's list)
    (("x",), (), (1,)), ((0, 1), (2, 3), (2, 3)), ((1, 0), (2, 3), (3, 2)),
    (("x", 0), (4,), (1, 4)), ((0, "x"), (4,), (4, 1)), ((2, 0, 1), (2, 3, 4), (4, 2, 3)),
    ((0, "x", 1), (2, 3), (2, 1, 3)), ((1, "x", 0), (2, 3), (3, 1, 2)), ((1,), (1, 5), (5,)),
]


@pytest.mark.parametrize("pattern,shape,result", DIMSHUFFLES)
def test_dimshuffle_patterns(pattern, shape, result):
    x = at.tensor("x", shape=(None,) * len(shape) if pattern != (1,) else (1, None))
    values = wt.reshape(wt.arange(_size(shape), dtype=wt.float64), shape)
    y = x.dimshuffle(*pattern)
    assert y.type.ndim == len(result)
    got = y.eval({x: values})
    assert got.shape == result
    assert x.dimshuffle(pattern).eval({x: values}).tolist() == got.tolist()


def _flat(t) -> list:
    return wt.reshape(t, (t.size,)).tolist()


def _size(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def test_flatten_reshape_transpose_and_ravel():
    x = at.tensor4("x")
    v = wt.zeros((2, 3, 4, 5), dtype=wt.float64)
    assert at.flatten(x, ndim=2).eval({x: v}).shape == (2, 60)
    assert x.flatten().eval({x: v}).shape == (120,) and x.ravel().ndim == 1
    assert x.reshape((6, -1)).eval({x: v}).shape == (6, 20)
    with pytest.raises(TypeError):
        x.reshape(6, 20)  # the shape goes in a tuple (unlike NumPy)
    z = at.zmatrix("z")
    y = 3 + .2j * z.T
    assert y.type == at.zmatrix
    got = y.eval({z: wt.asarray([[1 + 1j, 2.0]], dtype=wt.complex128)})
    assert got.shape == (2, 1) and got.tolist() == [[3 + 0.2j - 0.2], [3 + 0.4j]]


def test_methods_equivalent_to_numpy():
    x = at.dmatrix("x")
    v = wt.asarray([[3.0, -1.0, 2.0], [0.5, 4.0, -2.0]], dtype=wt.float64)
    got = at.function([x], [x.sum(axis=0), x.max(), x.argmax(axis=1), x.any(), x.std(),
                             x.diagonal(), x.astype("int32"), x.clip(0.0, 2.5), x.trace(),
                             x.sort(axis=1), x.argsort(), x.repeat(2, axis=1), x.copy(),
                             x.ptp(axis=1), x.norm(1), x.zeros_like(), x.round(),
                             x.take([2, 0], axis=1), x.squeeze(), x.conj()])(v)
    eager = [wt.sum(v, axis=0), wt.max(v), wt.argmax(v, axis=1), wt.any(v), wt.std(v),
             wt.diagonal(v), wt.astype(v, wt.int32), wt.clip(v, 0.0, 2.5), wt.trace(v),
             wt.sort(v, axis=1), wt.argsort(v), wt.repeat(v, 2, axis=1), v,
             wt.max(v, axis=1) - wt.min(v, axis=1), wt.sum(wt.abs(v)), wt.zeros_like(v),
             wt.round(v), wt.take(v, wt.asarray([2, 0]), axis=1), v, v]
    for g, e in zip(got, eager):
        assert g.shape == e.shape and _flat(g) == pytest.approx(_flat(e), rel=1e-12)


# -- Shaping and shuffling ------------------------------------------------------------------------

def test_shape_padding_examples():
    tensor = at.tensor3()
    ops = [str(at.shape_padleft(tensor).owner.op), str(at.shape_padaxis(tensor, axis=1).owner.op),
           str(at.shape_padaxis(tensor, axis=3).owner.op),
           str(at.shape_padaxis(tensor, axis=-1).owner.op)]
    # the page prints InplaceDimShuffle{x,0,1,2} ...; PyTensor now names them ExpandDims
    assert ops == ["ExpandDims{axis=0}", "ExpandDims{axis=1}", "ExpandDims{axis=3}",
                   "ExpandDims{axis=3}"]
    assert at.shape_padright(tensor, 2).type.shape == (None, None, None, 1, 1)
    assert at.shape(tensor).type == at.lvector.clone(shape=(3,))
    s = at.specify_shape(tensor, (2, None, 4))
    assert s.type.shape == (2, None, 4)


def test_tile_and_roll():
    x = at.dmatrix("x")
    v = wt.asarray([[1.0, 2.0], [3.0, 4.0]], dtype=wt.float64)
    assert at.tile(x, (1, 2)).eval({x: v}).tolist() == [[1, 2, 1, 2], [3, 4, 3, 4]]
    assert at.roll(x, 1, axis=0).eval({x: v}).tolist() == [[3, 4], [1, 2]]
    assert at.roll(x, 1).eval({x: v}).tolist() == [[4, 1], [2, 3]]


# -- Creating tensors ---------------------------------------------------------------------------

def test_creation_functions():
    x = at.imatrix("x")
    v = wt.asarray([[1, 2, 3], [4, 5, 6]], dtype=wt.int32)
    assert at.zeros_like(x).eval({x: v}).tolist() == [[0] * 3] * 2
    assert at.zeros_like(x, dtype="float32").dtype == "float32"
    assert at.ones_like(x).eval({x: v}).dtype == wt.int32
    assert at.zeros((2, 3)).dtype == at.ones((2,)).dtype == "float64"
    assert at.ones((2,), dtype="int8").eval().tolist() == [1, 1]
    assert at.fill(x, 7.5).eval({x: v}).tolist() == [[7.5] * 3] * 2
    assert at.alloc(2.0, 2, 3).eval().tolist() == [[2.0] * 3] * 2
    assert at.eye(2, 3, 1).eval().tolist() == [[0, 1, 0], [0, 0, 1]]
    assert at.eye(2).dtype == "float64"
    assert at.identity_like(x).eval({x: v}).tolist() == [[1, 0, 0], [0, 1, 0]]


def test_stack_examples():
    a, b, c = at.scalar(), at.scalar(), at.scalar()
    x = at.stack([a, b, c])
    assert x.ndim == 1  # x is a vector of length 3
    a, b, c = at.tensor4(), at.tensor4(), at.tensor4()
    x = at.stack([a, b, c])
    assert x.ndim == 5
    zeros = wt.zeros((2, 2, 2, 2), dtype=wt.float64)
    rval = x.eval(dict((t, zeros) for t in [a, b, c]))  # noqa: C402 - as the page has it
    assert rval.shape == (3, 2, 2, 2, 2)
    x = at.stack([a, b, c], axis=3)
    assert x.ndim == 5
    assert x.eval(dict((t, zeros) for t in [a, b, c])).shape == (2, 2, 2, 3, 2)  # noqa: C402
    x = at.stack([a, b, c], axis=-2)
    assert x.ndim == 5
    assert x.eval(dict((t, zeros) for t in [a, b, c])).shape == (2, 2, 2, 3, 2)  # noqa: C402


def test_the_deprecated_varargs_stack():
    x0, x1, x2 = at.scalar(), at.scalar(), at.scalar()
    with pytest.warns(DeprecationWarning, match=r"stack\(\*tensors\) is deprecated"):
        x = at.stack(x0, x1, x2)
    assert x.ndim == 1  # x is a vector of length 3
    assert x.eval({x0: 1.0, x1: 2.0, x2: 3.0}).tolist() == [1.0, 2.0, 3.0]


def test_the_concatenate_example():
    x0, x1, x2 = at.fmatrix(), at.ftensor3(), at.fvector()
    # the page's example joins a matrix with a 3-d tensor; PyTensor refuses it, and so do we
    with pytest.raises(TypeError, match="Only tensors with the same number of dimensions"):
        at.concatenate([x0, x1, at.shape_padright(x2)], axis=1)
    x = at.concatenate([x0, at.shape_padright(x2)], axis=1)
    assert x.ndim == 2
    got = x.eval({x0: wt.ones((2, 3), dtype=wt.float32),
                  x2: wt.asarray([5.0, 6.0], dtype=wt.float32)})
    assert got.tolist() == [[1, 1, 1, 5], [1, 1, 1, 6]]


def test_stacklists_examples():
    a, b, c, d = at.scalars("abcd")
    X = at.stacklists([[a, b], [c, d]])
    f = at.function([a, b, c, d], X)
    got = f(1, 2, 3, 4)
    assert got.tolist() == [[1.0, 2.0], [3.0, 4.0]] and got.dtype == wt.float64
    a, b, c, d = at.matrices("abcd")
    X = at.stacklists([[a, b], [c, d]])
    f = at.function([a, b, c, d], X)
    x = wt.ones((4, 4), dtype=wt.float32)
    assert f(x, x, x, x).shape == (2, 2, 4, 4)


def test_choose():
    a = at.ivector("a")
    c0, c1 = at.dvector("c0"), at.dvector("c1")
    f = at.function([a, c0, c1], [at.choose(a, [c0, c1]), at.choose(a, [c0, c1], mode="clip"),
                                  at.choose(a, [c0, c1], mode="wrap")])
    args = (wt.asarray([0, 1, 3], dtype=wt.int32), wt.asarray([1.0, 2.0, 3.0]),
            wt.asarray([10.0, 20.0, 30.0]))
    args = tuple(wt.astype(t, t.dtype if t.dtype == wt.int32 else wt.float64) for t in args)
    _, clipped, wrapped = f(*args)
    assert clipped.tolist() == [1.0, 20.0, 30.0] and wrapped.tolist() == [1.0, 20.0, 30.0]


# -- Reductions ---------------------------------------------------------------------------------------

def test_sum_and_prod_default_dtypes():
    for dtype, want in [("int8", "int64"), ("int32", "int64"), ("uint16", "uint64"),
                        ("int64", "int64"), ("float32", "float32"), ("bool", "int64")]:
        x = at.vector(dtype=dtype)
        assert x.sum().dtype == x.prod().dtype == want
    x = at.bvector("x")
    v = wt.asarray([100, 100, 100], dtype=wt.int8)
    assert x.sum().eval({x: v}).item() == 300  # no int8 overflow
    assert x.mean().dtype == "float64" and at.fvector().mean().dtype == "float32"
    assert x.sum(dtype="int16").eval({x: v}).dtype == wt.int16


def test_reductions_over_axes_and_keepdims():
    x = at.dtensor3("x")
    v = wt.reshape(wt.arange(24, dtype=wt.float64), (2, 3, 4))
    assert at.max(x, axis=[0, 2]).eval({x: v}).tolist() == [15.0, 19.0, 23.0]
    assert at.sum(x, axis=1, keepdims=True).eval({x: v}).shape == (2, 1, 4)
    m, i = at.max_and_argmax(x, axis=2)
    assert i.eval({x: v}).tolist() == [[3] * 3] * 2 and m.ndim == 2
    assert at.argmax(x).eval({x: v}).item() == 23  # over the flattened tensor
    assert at.var(x).eval({x: v}).item() == pytest.approx(47.916666666666664)
    assert at.all(x > -1).eval({x: v}).item() is True and at.any(x > 30).dtype == "bool"


# -- Indexing -----------------------------------------------------------------------------------------

def test_set_and_inc_subtensor_examples():
    r = at.ivector()
    new_r = at.set_subtensor(r[10:], 5)
    values = wt.arange(12, dtype=wt.int32)
    assert new_r.eval({r: values}).tolist() == list(range(10)) + [5, 5]
    new_r = at.inc_subtensor(r[10:], 5)
    assert new_r.eval({r: values}).tolist() == list(range(10)) + [15, 16]
    assert at.inc_subtensor(r[[0, 1, 0]], 5).eval({r: values})[:3].tolist() == [10, 6, 2]
    once = at.inc_subtensor(r[[0, 1, 0]], 5, ignore_duplicates=True)
    assert once.eval({r: values})[:3].tolist() == [5, 6, 2]


# -- Operators and elemwise ---------------------------------------------------------------------------

def test_operator_result_types():
    a, b = at.itensor3(), at.itensor3()
    assert (a + 3).type == at.itensor3  # at.add(a, 3) -> itensor3
    assert (3 - a).type == at.itensor3
    assert (a * 3.5).type == at.dtensor3  # int32 * float32 -> float64 (NumPy's rule)
    assert (2.2 / a).type == at.dtensor3 and (2.2 // a).type == at.dtensor3
    assert (2.2 ** a).type == at.dtensor3 and (b % a).type == at.itensor3
    for e in (a & b, a ^ 1, a | b, ~a):
        assert e.type == at.itensor3
    for name, fn in [("and_", at.and_), ("bitwise_and", at.bitwise_and), ("xor", at.xor),
                     ("bitwise_xor", at.bitwise_xor), ("or_", at.or_), ("bitwise_or", at.or_),
                     ("invert", at.invert), ("bitwise_not", at.bitwise_not)]:
        assert callable(fn), name


def test_operator_values():
    a, b = at.itensor3("a"), at.itensor3("b")
    va = wt.reshape(wt.arange(1, 9, dtype=wt.int32), (2, 2, 2))
    vb = wt.full((2, 2, 2), 3, dtype=wt.int32)
    got = at.function([a, b], [a + 3, 3 - a, b % a, a & b, a ^ 1, a | b, ~a, a // 3, a ** 2])(
        va, vb)
    want = [va + 3, 3 - va, vb % va, va & vb, va ^ 1, va | vb, ~va, va // 3, va ** 2]
    for g, w in zip(got, want):
        assert g.dtype == wt.int32 and g.tolist() == w.tolist()


def test_cast_real_imag():
    x = at.matrix()
    x_as_int = at.cast(x, "int32")
    assert x_as_int.type == at.imatrix
    assert at.cast(x, "float64") is x
    with pytest.raises(TypeError, match="ambiguous: consider at.real, at.imag"):
        at.cast(at.zmatrix(), "float64")
    z = at.zvector("z")
    v = wt.asarray([1 + 2j, -3j], dtype=wt.complex128)
    assert at.real(z).eval({z: v}).tolist() == [1.0, 0.0]
    assert at.imag(z).eval({z: v}).tolist() == [2.0, -3.0]
    d = at.dvector("d")
    assert at.real(d) is not d and at.imag(d).eval({d: [1.5, 2.0]}).tolist() == [0.0, 0.0]


def test_comparisons_are_bool():
    x, y = at.dmatrices("x", "y")
    z = at.le(x, y)
    assert z.dtype == "bool"  # the page says int8; PyTensor now has a bool dtype
    vx = wt.asarray([[1.0, 5.0]], dtype=wt.float64)
    vy = wt.asarray([[2.0, 4.0]], dtype=wt.float64)
    f = at.function([x, y], [at.lt(x, y), at.gt(x, y), z, at.ge(x, y), at.eq(x, y),
                             at.neq(x, y), x < y, x >= y])
    assert [t.tolist() for t in f(vx, vy)] == [
        [[True, False]], [[False, True]], [[True, False]], [[False, True]], [[False, False]],
        [[True, True]], [[True, False]], [[False, True]]]
    v = at.dvector("v")
    inf, nan = float("inf"), float("nan")
    got = at.function([v], [at.isnan(v), at.isinf(v), at.isclose(v, v + 1e-9),
                            at.allclose(v, v)])([1.0, nan, inf])
    assert [t.tolist() for t in got] == [[False, True, False], [False, False, True],
                                         [True, False, True], False]


def test_switch_example():
    a, b = at.dmatrices("a", "b")
    x, y = at.dmatrices("x", "y")
    z = at.switch(at.lt(a, b), x, y)
    f = at.function([a, b, x, y], z)
    got = f([[1.0, 5.0]], [[2.0, 4.0]], [[10.0, 20.0]], [[-1.0, -2.0]])
    assert got.tolist() == [[10.0, -2.0]]
    assert at.where(at.lt(a, b), x, y).owner.op == z.owner.op


def test_clip_and_bitwise_and_examples():
    x = at.dvector("x")
    assert at.clip(x, 0.0, 1.0).eval({x: [-1.0, 0.5, 3.0]}).tolist() == [0.0, 0.5, 1.0]
    x, y = at.imatrices("x", "y")
    z = x & y
    got = z.eval({x: wt.asarray([[6, 3]], dtype=wt.int32), y: wt.asarray([[3, 3]],
                                                                       dtype=wt.int32)})
    assert got.tolist() == [[2, 3]]


def test_mathematical_functions():
    a = at.dvector("a")
    v = [0.25, 2.0]
    fns = {"abs": abs, "exp": at.exp, "neg": at.neg, "reciprocal": at.reciprocal,
           "log": at.log, "log2": at.log2, "log10": at.log10, "sgn": at.sgn, "ceil": at.ceil,
           "floor": at.floor, "sqr": at.sqr, "sqrt": at.sqrt, "cos": at.cos, "sin": at.sin,
           "tan": at.tan, "cosh": at.cosh, "sinh": at.sinh, "tanh": at.tanh}
    got = at.function([a], [fn(a) for fn in fns.values()] + [at.maximum(a, 1.0),
                                                             at.minimum(a, 1.0)])(v)
    import math
    want = {"abs": abs, "exp": math.exp, "neg": lambda t: -t, "reciprocal": lambda t: 1 / t,
            "log": math.log, "log2": math.log2, "log10": math.log10, "sgn": lambda t: 1.0,
            "ceil": math.ceil, "floor": math.floor, "sqr": lambda t: t * t, "sqrt": math.sqrt,
            "cos": math.cos, "sin": math.sin, "tan": math.tan, "cosh": math.cosh,
            "sinh": math.sinh, "tanh": math.tanh}
    for (name, fn), g in zip(want.items(), got):
        assert g.tolist() == pytest.approx([fn(t) for t in v], rel=1e-12), name
    assert got[-2].tolist() == [1.0, 2.0] and got[-1].tolist() == [0.25, 1.0]
    h = at.dvector("h")
    ties = [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5]
    # PyTensor rounds half to even by default now (the page: half away from zero)
    assert at.round(h).eval({h: ties}).tolist() == [-2.0, -2.0, -0.0, 0.0, 2.0, 2.0]
    away = at.round(h, mode="half_away_from_zero").eval({h: ties})
    assert away.tolist() == [-3.0, -2.0, -1.0, 1.0, 2.0, 3.0]
    assert at.iround(h, mode="half_away_from_zero").eval({h: ties}).dtype == wt.int64
    with pytest.raises(NotImplementedError, match="no gamma function"):
        at.gamma(h)


# -- Linear algebra ---------------------------------------------------------------------------------

def _values(shape, seed):
    n = _size(shape)
    flat = [((k * 37 + seed * 11) % 17) / 7.0 - 1.0 for k in range(n)]
    return wt.reshape(wt.asarray(flat, dtype=wt.float64), shape)


def test_tensordot_example_against_the_loop():
    a, b = at.dtensor3("a"), at.dtensor4("b")
    va, vb = _values((2, 3, 4), 1), _values((5, 6, 4, 3), 2)
    c = at.tensordot(a, b, [[1, 2], [3, 2]]).eval({a: va, b: vb})
    assert c.shape == (2, 5, 6)
    A, B = va.tolist(), vb.tolist()
    cloop = [[[0.0] * 6 for _ in range(5)] for _ in range(2)]
    for i, j, k in itertools.product(range(2), range(5), range(6)):
        for m, n in itertools.product(range(3), range(4)):
            cloop[i][j][k] += A[i][m][n] * B[j][k][n][m]
    for got_row, want_row in zip(c.tolist(), cloop):
        for g, w in zip(got_row, want_row):
            assert g == pytest.approx(w, rel=1e-12, abs=1e-12)
    d = at.tensordot(a, b, 0)
    assert d.eval({a: va, b: vb}).shape == (2, 3, 4, 5, 6, 4, 3)


def test_dot_outer_and_batched_dot():
    X, Y = at.dmatrices("X", "Y")
    x = at.dvector("x")
    vX = wt.asarray([[1.0, 2.0], [3.0, 4.0]], dtype=wt.float64)
    vx = wt.asarray([1.0, -1.0], dtype=wt.float64)
    f = at.function([X, Y, x], [at.dot(X, Y), at.dot(X, x), at.dot(x, x), at.outer(x, x)])
    mm, mv, vv, out = f(vX, vX, vx)
    assert mm.tolist() == [[7.0, 10.0], [15.0, 22.0]] and mv.tolist() == [-1.0, -1.0]
    assert vv.item() == 2.0 and out.tolist() == [[1.0, -1.0], [-1.0, 1.0]]
    first = at.tensor3("first")
    second = at.tensor3("second")
    result = at.batched_dot(first, second)
    got = result.eval({first: _values((3, 2, 4), 1), second: _values((3, 4, 5), 2)})
    assert got.shape == (3, 2, 5)
    bt = at.batched_tensordot(first, second, [[2], [1]])
    got_bt = bt.eval({first: _values((3, 2, 4), 1), second: _values((3, 4, 5), 2)})
    assert _flat(got_bt) == pytest.approx(_flat(got), rel=1e-12)


def test_mgrid_and_ogrid_examples():
    a = at.mgrid[0:5, 0:3]
    assert a[0].eval().tolist() == [[0, 0, 0], [1, 1, 1], [2, 2, 2], [3, 3, 3], [4, 4, 4]]
    assert a[1].eval().tolist() == [[0, 1, 2]] * 5
    b = at.ogrid[0:5, 0:3]
    assert b[0].eval().tolist() == [[0], [1], [2], [3], [4]]
    assert b[1].eval().tolist() == [[0, 1, 2]]


# -- Gradients -------------------------------------------------------------------------------------

def test_grad_of_a_scalar_cost():
    x = at.dvector("x")
    w = at.dvector("w")
    cost = at.sum(at.tanh(x * w) ** 2)
    gx, gw = at.grad(cost, [x, w])
    assert gx.type == x.type and gw.type == w.type
    f = at.function([x, w], [gx, gw])
    vx, vw = [0.5, -1.0], [2.0, 0.25]
    got_x, got_w = f(vx, vw)
    import math
    for k in range(2):
        t = math.tanh(vx[k] * vw[k])
        d = 2 * t * (1 - t * t)
        assert got_x.tolist()[k] == pytest.approx(d * vw[k], rel=1e-12)
        assert got_w.tolist()[k] == pytest.approx(d * vx[k], rel=1e-12)
