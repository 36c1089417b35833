"""webtensor.symbolic's own behaviour, on every device: where a compiled function runs, how
arguments are checked, updates, givens, eval, gradients, tracing and caching, and the errors
(type, message) for what cannot be built or compiled.  Pure Python (no NumPy): the oracle is
eager webtensor on the same device; tests/test_symbolic_pytensor.py compares with PyTensor.
"""

from __future__ import annotations

import math
import warnings

import pytest

import webtensor as wt
import webtensor.symbolic as at


@pytest.fixture(autouse=True)
def _quiet_float64():
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="webgpu: float64")
        yield


def T(values, dtype, dev):  # noqa: N802 - short for the tables below
    return wt.asarray(values, dtype=getattr(wt, dtype), device=dev)


def close(a, b, tol=1e-12):
    a = a.tolist() if isinstance(a, wt.Tensor) else a
    b = b.tolist() if isinstance(b, wt.Tensor) else b
    if isinstance(a, list):
        return len(a) == len(b) and all(close(x, y, tol) for x, y in zip(a, b))
    return math.isclose(a, b, rel_tol=tol, abs_tol=tol)


# -- where a function runs ----------------------------------------------------------------------

def test_a_call_follows_its_arguments_device(dev):
    x = at.dvector("x")
    f = at.function([x], [x * 2, (x ** 2).sum()])
    a = T([1.0, 2.0, 3.0], "float64", dev)
    out, total = f(a)
    assert out.device == dev and total.device == dev
    assert out.tolist() == [2.0, 4.0, 6.0] and total.item() == 14.0
    assert out.dtype == wt.float64 and total.shape == ()


def test_device_option_moves_arguments_and_shared_values(dev):
    x = at.fvector("x")
    acc = at.shared(wt.zeros(3, dtype=wt.float32, device=wt.device.cpu), name="acc")
    f = at.function([x], acc + x, updates=[(acc, acc + x)], device=dev)
    out = f([1.0, 2.0, 3.0])  # a Python list, converted on the device
    assert out.device == dev and out.tolist() == [1.0, 2.0, 3.0]
    assert acc.get_value().device == dev  # moved once, and kept there
    assert f([1.0, 1.0, 1.0]).tolist() == [2.0, 3.0, 4.0]
    assert acc.get_value().tolist() == [2.0, 3.0, 4.0]


def test_without_tensor_arguments_shared_values_pick_the_device(dev):
    counter = at.shared(T([0], "int64", dev)[0], name="n")
    step = at.function([], counter, updates=[(counter, counter + 1)])
    assert [step().item() for _ in range(3)] == [0, 1, 2]
    assert counter.get_value().device == dev and counter.get_value().item() == 3
    const = at.function([], at.arange(4) * 2, device=dev)()
    assert const.device == dev and const.tolist() == [0, 2, 4, 6]


def test_updates_are_simultaneous_and_change_weights_in_place(dev):
    a = at.shared(T([1.0, 2.0], "float64", dev), name="a")
    b = at.shared(T([10.0, 20.0], "float64", dev), name="b")
    swap = at.function([], [], updates={a: b, b: a})
    assert swap() == []
    assert a.get_value().tolist() == [10.0, 20.0] and b.get_value().tolist() == [1.0, 2.0]
    # a training step: the weights move against the gradient, every call
    w = at.shared(T([0.0, 0.0], "float64", dev), name="w")
    x, y = at.dmatrix("x"), at.dvector("y")
    cost = ((at.dot(x, w) - y) ** 2).mean()
    train = at.function([x, y], cost, updates=[(w, w - 0.2 * at.grad(cost, w))])
    X = T([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], "float64", dev)
    Y = T([1.0, -1.0, 0.0], "float64", dev)
    costs = [train(X, Y).item() for _ in range(60)]
    assert costs[0] == pytest.approx(2 / 3) and costs[-1] < 1e-6
    assert close(w.get_value(), [1.0, -1.0], 1e-3)


def test_outputs_never_alias_arguments_constants_or_shared_values(dev):
    x = at.dvector("x")
    c = at.as_tensor_variable([1.0, 2.0])
    s = at.shared(T([5.0, 6.0], "float64", dev), name="s")
    f = at.function([x], [x, x[::-1], c, c[1], s], device=dev)
    a = T([3.0, 4.0], "float64", dev)
    outs = f(a)
    for out in outs[:2] + outs[4:]:
        out[0] = -1.0
    outs[2][0] = -1.0
    assert a.tolist() == [3.0, 4.0] and c.data.tolist() == [1.0, 2.0]
    assert s.get_value().tolist() == [5.0, 6.0]
    assert [t.tolist() for t in f(a)[:4]] == [[3.0, 4.0], [4.0, 3.0], [1.0, 2.0], 2.0]


def test_an_update_may_have_a_less_specific_static_shape(dev):
    s = at.shared(T([0.0, 0.0], "float64", dev), shape=(2,))
    x = at.dvector("x")
    step = at.function([x], [], updates=[(s, s * 0 + x)])  # x has shape (?,): checked per call
    step([1.0, 2.0])
    assert s.get_value().tolist() == [1.0, 2.0]
    with pytest.raises(ValueError, match="do not match"):
        step([1.0, 2.0, 3.0])


def test_shared_values_get_set_and_borrow(dev):
    v = T([1.0, 2.0], "float32", dev)
    s = at.shared(v, name="s")
    assert str(s.type) == "Vector(float32, shape=(?,))" and s.name == "s"
    v[0] = 5.0  # shared() copied the value
    assert s.get_value().tolist() == [1.0, 2.0]
    got = s.get_value()
    got[1] = 7.0  # get_value() returns a copy too
    assert s.get_value().tolist() == [1.0, 2.0]
    assert s.get_value(borrow=True) is s.get_value(borrow=True)
    s.set_value([3, 4])  # Python ints fit float32 exactly
    assert s.get_value().tolist() == [3.0, 4.0] and s.get_value().dtype == wt.float32
    with pytest.raises(TypeError, match=r"set_value of shared variable s: wrong number of dim"):
        s.set_value([[1.0]])
    with pytest.raises(TypeError, match="cannot store a value of dtype float64"):
        s.set_value(T([1.0, 2.0], "float64", dev))
    assert str(at.shared(2.5).type) == "Scalar(float64, shape=())"
    assert str(at.shared(3).type) == "Scalar(int64, shape=())"
    fixed = at.shared(T([1.0, 2.0], "float32", dev), shape=(2,))
    assert str(fixed.type) == "Vector(float32, shape=(2,))"


def test_givens_default_updates_and_keyword_arguments(dev):
    x, scale = at.dvector("x"), at.dscalar("scale")
    w = at.shared(T([1.0, 2.0], "float64", dev), name="w")
    f = at.function([x], (x * w * scale).sum(), givens={scale: x.sum()})
    assert f(T([1.0, 1.0], "float64", dev)).item() == 6.0
    g = at.function([x], (x * w).sum(), givens=[(w, x + 1)])
    assert g(x=T([1.0, 2.0], "float64", dev)).item() == 1 * 2 + 2 * 3
    counter = at.shared(T([0], "int64", dev)[0], name="count")
    counter.default_update = counter + 1
    h = at.function([x], x.sum() + counter)
    assert [h(T([1.0], "float64", dev)).item() for _ in range(3)] == [1.0, 2.0, 3.0]
    quiet = at.function([x], x.sum() + counter, no_default_updates=True)
    quiet(T([1.0], "float64", dev))
    assert counter.get_value().item() == 3


def test_eval_by_variable_or_name_is_compiled_once(dev):
    x, y = at.dmatrix("x"), at.dscalar("y")
    z = (x * y).sum(axis=1)
    xs = T([[1.0, 2.0], [3.0, 4.0]], "float64", dev)
    assert z.eval({x: xs, y: 2.0}).tolist() == [6.0, 14.0]
    assert z.eval({"x": xs, "y": 0.5}).tolist() == [1.5, 3.5]
    assert len(z.tag._eval_cache) == 1
    assert at.as_tensor_variable([[1, 2], [3, 4]]).sum(axis=0).eval().tolist() == [4, 6]


def test_one_trace_per_device_and_shape(dev):
    x = at.fmatrix("x")
    f = at.function([x], at.exp(x).sum(axis=0))
    for _ in range(3):
        f(T([[0.0, 1.0]], "float32", dev))
    assert f.trace_count == 1
    f(T([[0.0, 1.0], [2.0, 3.0]], "float32", dev))
    assert f.trace_count == 2
    f([[0.0, 1.0]])  # a list goes to the default device: traced for it unless it is dev
    assert f.trace_count in (2, 3)


def test_python_numbers_and_lists_as_arguments(dev):
    i, x = at.iscalar("i"), at.dvector("x")
    f = at.function([i, x], x * i, device=dev)
    assert f(3, [1.0, 2.0]).tolist() == [3.0, 6.0]
    assert f(True, [1.5]).tolist() == [1.5]
    s = at.fscalar("s")
    g = at.function([s], s * 2, device=dev)
    assert g(0.5).item() == 1.0 and g(0.5).dtype == wt.float32
    with pytest.raises(TypeError, match="cannot store accurately the value 0.1"):
        g(0.1)  # as PyTensor: only floatX (float64 here) takes any Python float
    with at.config.change_flags(floatX="float32"):
        assert g(0.1).dtype == wt.float32


# -- argument checks ----------------------------------------------------------------------------

BAD_ARGUMENTS = [
    # input type, value, the reason the message gives
    ("dmatrix", [1.0, 2.0], r"wrong number of dimensions: expected 2, got 1 with shape \(2,\)"),
    ("fvector", ("float64", [1.0]), r"cannot store a value of dtype float64 without risking"),
    ("ivector", ("int64", [1]), r"cannot store a value of dtype int64"),
    ("ivector", [1.5], r"cannot store accurately the value 1.5"),
    ("bvector", [300], r"cannot store accurately the value 300"),
    ("dvector", ("complex128", [1.0]), r"cannot store a value of dtype complex128"),
    ("row", [[1.0], [2.0]], r"the type's shape \(1, None\) is not compatible with the data's "
                            r"\(2, 1\)"),
    ("dscalar", at.dscalar("v"), r"found a symbolic Variable"),
]


@pytest.mark.parametrize("kind,value,reason", BAD_ARGUMENTS)
def test_bad_arguments_name_the_input_and_both_types(kind, value, reason, dev):
    x = getattr(at, kind)("inp")
    f = at.function([x], x, device=dev)
    if isinstance(value, tuple):
        value = T(value[1], value[0], dev)
    with pytest.raises(TypeError, match=reason) as info:
        f(value)
    msg = str(info.value)
    assert "bad input argument 0 (inp)" in msg and f"expected {x.type}" in msg
    assert "got a " in msg  # the value's kind, dtype and shape


def test_safe_upcasts_and_allow_input_downcast(dev):
    x = at.dvector("x")
    f = at.function([x], x * 2)
    assert f(T([1.0, 2.0], "float32", dev)).dtype == wt.float64  # float32 -> float64 is safe
    assert f(T([1, 2], "int64", dev)).tolist() == [2.0, 4.0]
    b = at.bvector("b")
    g = at.function([b], b * 1, allow_input_downcast=True)
    assert g(T([1, 2], "int64", dev)).dtype == wt.int8


def test_argument_count_and_names(dev):
    x, y = at.dscalar("x"), at.dscalar("y")
    f = at.function([x, y], x - y, device=dev)
    assert f(y=1.0, x=3.0).item() == 2.0
    with pytest.raises(TypeError, match="missing input: y"):
        f(1.0)
    with pytest.raises(TypeError, match=r"takes 2 arguments \(x, y\), got 3"):
        f(1.0, 2.0, 3.0)
    with pytest.raises(TypeError, match="no input is named 'z'"):
        f(1.0, z=2.0)
    with pytest.raises(TypeError, match="input 'x' was given twice"):
        f(1.0, 2.0, x=3.0)


def test_runtime_broadcasting_is_refused_as_in_pytensor(dev):
    v, w = at.dvector("v"), at.dvector("w")
    f = at.function([v, w], v + w, device=dev)
    with pytest.raises(ValueError, match=r"runtime broadcasting is not allowed: input 0 \(v, "
                                         r"of type Vector\(float64, shape=\(\?,\)\)\) has "
                                         r"length 1 in axis 0"):
        f([1.0], [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match=r"input shapes \[\(2,\), \(3,\)\] do not match"):
        f([1.0, 2.0], [1.0, 2.0, 3.0])
    c = at.dcol("c")  # a declared broadcastable axis broadcasts
    g = at.function([c, w], c + w, device=dev)
    assert g([[1.0], [10.0]], [1.0, 2.0]).tolist() == [[2.0, 3.0], [11.0, 12.0]]


def test_specify_shape_is_checked_when_the_function_runs(dev):
    x = at.dmatrix("x")
    f = at.function([x], at.specify_shape(x, (2, None)).sum(), device=dev)
    assert f([[1.0], [2.0]]).item() == 3.0
    with pytest.raises(AssertionError, match=r"SpecifyShape: dim 0 of input x has shape 3, "
                                             r"expected 2"):
        f([[1.0], [2.0], [3.0]])


# -- function() and grad() refusals ------------------------------------------------------------

def test_function_build_errors():
    x, y = at.dvector("x"), at.dvector("y")
    s = at.shared(wt.zeros(2, dtype=wt.float64), name="s")
    cases = [
        (lambda: at.function(x, x), TypeError, "must be given in a list"),
        (lambda: at.function([s], s * 2), TypeError, "cannot use the shared variable s"),
        (lambda: at.function([x * 2], x), TypeError, "inputs must be graph inputs"),
        (lambda: at.function([x, x], x), ValueError, "used twice"),
        (lambda: at.function([x], x + y), at.MissingInputError,
         r"needs the input y \(Vector\(float64, shape=\(\?,\)\)\), used to compute Add\(x, y\)"),
        (lambda: at.function([x, y], x), at.UnusedInputError, "input 1 \\(y\\)"),
        (lambda: at.function([x], x, updates=[(x, x + 1)]), TypeError,
         "update target must be a shared variable"),
        (lambda: at.function([x], x, updates=[(s, x.sum())]), TypeError,
         r"An update must have the same type.*update_val.type=Scalar\(float64"),
        (lambda: at.function([x], x, updates=[(s, at.cast(x, "float32"))]), TypeError,
         "same type as the original shared variable"),
        (lambda: at.function([x], x, givens={x: y}), ValueError, "which is an input"),
        (lambda: at.function([x], x * s, givens={s: at.fmatrix()}), TypeError,
         "same dtype and rank"),
    ]
    for build, exc, message in cases:
        with pytest.raises(exc, match=message):
            build()
    with pytest.warns(UserWarning, match="input 1 \\(y\\)"):
        at.function([x, y], x, on_unused_input="warn")
    assert at.function([x, y], x, on_unused_input="ignore") is not None


def test_grad_errors_and_options():
    x, y = at.dvector("x"), at.dvector("y")
    cost = (x ** 2).sum()
    cost.name = "c"
    assert at.grad(cost, x).name == "(dc/dx)"
    assert at.grad(cost, x, add_names=False).name is None
    with pytest.raises(TypeError, match="Cost must be a scalar"):
        at.grad(x * 2, x)
    with pytest.raises(at.DisconnectedInputError, match="does not depend on y"):
        at.grad(cost, [x, y])
    with pytest.warns(UserWarning, match="does not depend on y"):
        gx, gy = at.grad(cost, [x, y], disconnected_inputs="warn")
    assert gy.owner.op.scalar_op.name == "Second"  # zeros_like(y)
    assert at.grad(cost, [x, y], disconnected_inputs="ignore", return_disconnected="none")[1] \
        is None
    with pytest.raises(TypeError, match="floating-point variables"):
        at.grad(at.cast(x, "int32").sum() * 1.0, at.ivector())
    with pytest.raises(TypeError, match="floating-point cost"):
        at.grad(at.cast(x, "int32").sum(), x)
    with pytest.raises(NotImplementedError, match="known_grads"):
        at.grad(cost, x, known_grads={x: x})


def test_grad_values_against_finite_differences(dev):
    x = at.dvector("x")
    w = at.shared(T([0.5, -1.0, 2.0], "float64", dev), name="w")
    cost = at.log(1 + at.exp(x * w)).sum() + (x[1:] * x[:-1]).sum() + at.sqrt(x ** 2 + 1).max()
    f = at.function([x], [cost, *at.grad(cost, [x, w])])
    point = [0.3, -0.7, 1.1]
    _, gx, gw = f(T(point, "float64", dev))
    eps = 1e-6

    def at_(p):
        return f(T(p, "float64", dev))[0].item()
    numeric = [(at_(point[:k] + [point[k] + eps] + point[k + 1:]) -
                at_(point[:k] + [point[k] - eps] + point[k + 1:])) / (2 * eps) for k in range(3)]
    assert close(gx, numeric, 1e-6)
    assert gw.device == dev and gw.shape == (3,)


# -- what cannot be compiled is refused with the reason ----------------------------------------

def test_value_dependent_shapes_are_refused_with_the_reason(dev):
    n = at.lscalar("n")
    x = at.dvector("x")
    f = at.function([n], at.zeros((n, 2)))
    with pytest.raises(ValueError, match="depends on the value of the input n"):
        f(3)
    g = at.function([x, n], x[:n])
    with pytest.raises(ValueError, match="depends on the value of the input n"):
        g([1.0, 2.0, 3.0], 2)
    with pytest.raises(IndexError, match="boolean mask indexing with a symbolic mask"):
        x[x > 0]
    with pytest.raises(NotImplementedError, match="at.nonzero: the result's shape depends"):
        at.nonzero(x)
    with pytest.raises(NotImplementedError, match="at.nonzero: the result's shape depends"):
        at.where(x > 0)
    with pytest.raises(NotImplementedError, match="webtensor has no error function yet"):
        at.erf(x)
    # sizes that follow from the argument shapes are fine
    h = at.function([x], at.zeros((x.shape[0] * 2,)) + at.arange(x.shape[0] * 2), device=dev)
    assert h([5.0, 6.0]).tolist() == [0.0, 1.0, 2.0, 3.0]
    m = at.function([x], x[: x.shape[0] - 1], device=dev)
    assert m([1.0, 2.0, 3.0]).tolist() == [1.0, 2.0]


def test_constant_boolean_masks_and_symbolic_indices(dev):
    x = at.dvector("x")
    i = at.lscalar("i")
    f = at.function([x, i], [x[[True, False, True]], x[i], x[-1]], device=dev)
    a, b, c = f([1.0, 2.0, 3.0], 1)
    assert a.tolist() == [1.0, 3.0] and b.item() == 2.0 and c.item() == 3.0
    assert f([1.0, 2.0, 3.0], -1)[1].item() == 3.0  # negative indices wrap


def test_variables_are_not_values():
    x = at.dvector("x")
    with pytest.raises(TypeError, match="has no truth value"):
        bool(x > 0)
    with pytest.raises(TypeError, match=r"len\(\) of a symbolic variable"):
        len(x)
    with pytest.raises(TypeError, match="cannot iterate over x"):
        iter(x)
    assert [str(v.type) for v in at.tensor(shape=(2, None))] == ["Vector(float64, shape=(?,))"] * 2
    with pytest.raises(TypeError, match="symbolic variables are immutable"):
        x[0] = 1
    assert (x == x) is True and (x == at.dvector("x")) is False  # identity, as in PyTensor
    assert {x: 1}[x] == 1


# -- printing ---------------------------------------------------------------------------------------

def test_printing_variables_types_and_graphs():
    x, y = at.dmatrix(), at.dmatrix("y")
    z = x + y
    assert str(x) == repr(x) == "<Matrix(float64, shape=(?, ?))>"
    assert str(z) == "Add.0" and str(z.owner) == "Add(<Matrix(float64, shape=(?, ?))>, y)"
    assert repr(at.as_tensor_variable(3)) == "TensorConstant(TensorType(int8, shape=()), data=3)"
    assert str(at.as_tensor_variable(0.1)) == "0.1"
    assert str(at.as_tensor_variable(1.5)) == "1.5"
    assert at.pp(z.sum()) == "sum((<Matrix(float64, shape=(?, ?))> + y), axis=None)"
    text = at.debugprint([z.sum(), y.mean(axis=0)], file="str")
    assert text.splitlines()[0] == "Sum{axes=None} [id A]"
    assert text.count("y [id D]") == 2  # one id per variable, wherever it appears
    named = (y * 2).sum()
    named.name = "total"
    assert at.debugprint(named, file="str").splitlines()[0] == "Sum{axes=None} [id A] 'total'"
    f = at.function([y], named)
    assert at.debugprint(f, file="str").splitlines()[0] == "Sum{axes=None} [id A] 'total'"


# -- the documentation and the playground example run --------------------------------------------

def _python_blocks(text: str) -> list[str]:
    blocks, inside, lines = [], False, []
    for line in text.splitlines():
        if line.startswith("```python"):
            inside, lines = True, []
        elif line.startswith("```") and inside:
            inside = False
            blocks.append("\n".join(lines))
        elif inside:
            lines.append(line)
    return blocks


def test_the_docs_examples_run(capsys):
    from pathlib import Path

    page = Path(__file__).resolve().parents[1] / "docs" / "symbolic.md"
    if not page.exists():
        pytest.skip("docs/ is not part of this tree")
    blocks = _python_blocks(page.read_text(encoding="utf-8"))
    assert len(blocks) == 2
    for code in blocks:
        scope: dict = {}
        with at.config.change_flags(floatX="float64"):
            exec(compile(code, "docs/symbolic.md", "exec"), scope)  # noqa: S102
    assert scope["accuracy"] > 0.9 and scope["train"].trace_count == 1


def test_the_playground_example_runs(capsys):
    from pathlib import Path

    from webtensor import _heatmap

    example = Path(__file__).resolve().parents[1] / "web" / "playground" / "examples" / \
        "09_symbolic_logistic.py"
    if not example.exists():
        pytest.skip("web/ is not part of this tree")
    shown = []
    previous = _heatmap.get_show_hook()
    _heatmap.set_show_hook(lambda *args, **kwargs: shown.append(args))
    try:
        with at.config.change_flags(floatX="float64"), wt.set_default_device(wt.device.cpu):
            scope: dict = {}
            exec(compile(example.read_text(encoding="utf-8"), str(example), "exec"), scope)  # noqa: S102
    finally:
        _heatmap.set_show_hook(previous)
    assert at.config.floatX == "float64"
    assert scope["accuracy"].item() > 0.9 and len(shown) >= 10
    assert "training accuracy" in capsys.readouterr().out
