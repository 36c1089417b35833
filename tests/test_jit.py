"""wt.jit: traced programs equal eager execution bit for bit, on every device.

Eager execution is the reference semantics of every compiled program, so the oracle here is the
same function run eagerly on the same device: results must have identical bytes, shape, dtype,
weak flag and axis names.  (The eager results themselves are checked against NumPy by the rest
of the suite.)  Every op of the op-record table under jit (tests/_op_records.py) is
test_conformance.py's job; here: programs of several ops, pytrees, retracing, control flow and
the errors.  Pure Python: runs under Pyodide too.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import webtensor as wt
from _oracle import special_values
from webtensor import ops

PROPERTY = settings(max_examples=25, deadline=None)


def same(a, b, context=""):
    """Identical results: structure, then per tensor shape, dtype, weak, names and bytes."""
    if isinstance(a, (tuple, list)):
        assert type(a) is type(b) and len(a) == len(b), (context, a, b)
        for x, y in zip(a, b):
            same(x, y, context)
        return
    if isinstance(a, dict):
        assert a.keys() == b.keys(), context
        for k in a:
            same(a[k], b[k], context)
        return
    if a is None:
        assert b is None, context
        return
    assert isinstance(a, wt.Tensor) and isinstance(b, wt.Tensor), (context, a, b)
    assert (a.shape, a.dtype, a.weak, a.names) == (b.shape, b.dtype, b.weak, b.names), \
        (context, a, b)
    assert a.tobytes() == b.tobytes(), (context, a, b)


def check(fn, *args, **kwargs):
    """``wt.jit(fn)`` equals ``fn`` (or raises the same error type)."""
    try:
        expected = fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - the jitted call must fail the same way
        with pytest.raises(type(e)):
            wt.jit(fn)(*args, **kwargs)
        return None
    got = wt.jit(fn)(*args, **kwargs)
    same(got, expected, getattr(fn, "__name__", ""))
    return got


def values_of(dt, n=12):
    vals = special_values(dt)
    return (vals * (n // len(vals) + 1))[:n] if vals else []


# -- programs of several ops ------------------------------------------------------------------------

def test_chain_with_casts_where_and_literals(dev):
    def chain(x):
        y = wt.exp(wt.sqrt(wt.abs(wt.sin(x * 1.5 + 0.5) ** 2 - 0.25)))
        return wt.where(y > 1.2, y, -y).astype(wt.float16), (x * 2).astype(wt.int8)
    x = wt.linspace(-3, 3, 24, device=dev).reshape(4, 6)
    check(chain, x)
    check(chain, x.T)


@st.composite
def elementwise_programs(draw):
    """A random DAG of elementwise ops over a few inputs of one dtype."""
    dt = draw(st.sampled_from([wt.float32, wt.int32, wt.uint8, wt.int16, wt.float16,
                               wt.bfloat16, wt.bool, wt.int64, wt.complex64]))
    ops_ok = [op for op in ops.ELEMENTWISE.values() if dt.kind in op.kinds
              and (op.result != "float" or dt.kind in "fc")
              and op.result not in ("real", "complex")]
    steps = []
    for _ in range(draw(st.integers(1, 8))):
        op = draw(st.sampled_from(ops_ok))
        steps.append((op.name, op.arity, draw(st.integers(0, 100)), draw(st.integers(0, 100))))
    shape = draw(st.sampled_from([(), (5,), (2, 3), (3, 1), (0, 2)]))
    return dt, steps, shape


def run_program(dt, steps, values):
    pool = list(values)
    for name, arity, i, j in steps:
        a = pool[i % len(pool)]
        if arity == 1:
            r = getattr(wt, name)(a)
        else:
            r = getattr(wt, name)(a, pool[j % len(pool)])
        if r.dtype is not dt:  # comparisons give bool: back to the program's dtype
            r = r.astype(dt)
        pool.append(r)
    return pool[-1], pool[len(values)]


@PROPERTY
@given(prog=elementwise_programs(), seed=st.integers(0, 50))
def test_random_elementwise_programs_equal_eager(dev, prog, seed):
    dt, steps, shape = prog
    n = math.prod(shape)
    vals = values_of(dt, max(n, 1) + 7)
    ins = [wt.asarray(vals[k:k + n] if n else [], dtype=dt, device=dev).reshape(shape)
           for k in (seed % 5, 1, 2)]
    check(lambda a, b, c: run_program(dt, steps, [a, b, c]), *ins)


# -- everything else ------------------------------------------------------------------------------

def test_reductions_scans_and_statistics(dev):
    x = wt.reshape(wt.arange(24, dtype=wt.float32, device=dev) * 0.37 - 3, (2, 3, 4))
    i = wt.reshape(wt.arange(24, dtype=wt.int16, device=dev) - 7, (4, 6))
    for f in (lambda a: wt.sum(a), lambda a: wt.sum(a, axis=(0, 2), keepdims=True),
              lambda a: wt.prod(a, axis=1), lambda a: wt.max(a, axis=-1),
              lambda a: wt.min(a), lambda a: wt.mean(a, axis=0), lambda a: wt.var(a, axis=1),
              lambda a: wt.std(a, correction=1), lambda a: wt.argmax(a, axis=1),
              lambda a: wt.argmin(a), lambda a: wt.cumulative_sum(a, axis=2),
              lambda a: wt.cumulative_prod(a, axis=0), lambda a: wt.any(a > 1, axis=0),
              lambda a: wt.all(a > -4), lambda a: wt.logsumexp(a, axis=1)
              if hasattr(wt, "logsumexp") else wt.sum(a)):
        check(f, x)
        check(f, i)


def test_matmul_linalg_and_sorting(dev):
    a = wt.reshape(wt.arange(12, dtype=wt.float32, device=dev) * 0.5 - 2, (3, 4))
    b = wt.reshape(wt.arange(20, dtype=wt.float32, device=dev) % 7, (4, 5))
    check(lambda x, y: x @ y, a, b)
    check(lambda x, y: wt.matmul(x.T, x) + wt.tensordot(x, y, axes=1).sum(), a, b)
    check(lambda x: wt.linalg.vector_norm(x, axis=1), a)
    check(lambda x: (wt.sort(x, axis=0, descending=True), wt.argsort(x, axis=1, stable=True)), b)
    check(lambda x: wt.vecdot(x, x), a)


def test_manipulation_and_indexing(dev):
    x = wt.reshape(wt.arange(24, dtype=wt.int32, device=dev), (2, 3, 4))
    idx = wt.asarray([2, 0, -1], device=dev)
    for f in (lambda a: wt.concat([a, a * 2], axis=1), lambda a: wt.stack([a, a], axis=-1),
              lambda a: wt.flip(a, axis=1), lambda a: wt.roll(a, 2, axis=2),
              lambda a: wt.pad(a, ((0, 0), (1, 2), (0, 1))), lambda a: wt.tile(a, (1, 2, 1)),
              lambda a: wt.moveaxis(a, 0, -1) + 1, lambda a: a[:, ::-2, 1:3],
              lambda a: a[..., None, 0], lambda a: wt.take(a, idx, axis=2),
              lambda a: a[idx[:2], :, idx[1:]], lambda a: wt.split(a, 2, axis=2),
              lambda a: wt.broadcast_to(a[:, :1], (2, 3, 4)) * 3,
              lambda a: wt.take_along_axis(a, wt.argsort(a, axis=2), axis=2),
              lambda a: wt.repeat(a, 2, axis=0), lambda a: wt.expand_dims(a, axis=1).mT):
        check(f, x)


def test_creation_inside_and_captured_constants(dev):
    captured = wt.asarray([1.0, -2.0, 3.0], device=dev)

    def f(x):
        z = wt.zeros((3,), device=dev) + wt.ones_like(x) * 2
        r = wt.arange(3, dtype=wt.float32, device=dev)
        e = wt.eye(3, device=dev) @ wt.linspace(0, 1, 3, device=dev)
        return z + r + e + captured + wt.full((3,), 0.5, device=dev) + wt.asarray([7, 8, 9],
                                                                                 device=dev)
    check(f, wt.asarray([0.5, 0.25, 0.125], device=dev))


def test_setitem_and_in_place_operators(dev):
    x = wt.reshape(wt.arange(20, dtype=wt.float32, device=dev), (4, 5))

    def g(x, v, i):
        y = wt.zeros((4, 5), dtype=x.dtype, device=dev)
        y[1:3, ::2] = x[:2, :3]
        y[i] = v
        y[:, -1] += 7
        y *= 2
        return y
    check(g, x, 3.5, 2)
    check(g, x, wt.asarray([1.0, 2.0, 3.0, 4.0, 5.0], device=dev), -1)


def test_writes_to_arguments_and_captured_tensors_match_eager(dev):
    def f(x, y):
        x[0] = 10.0
        captured[1] += y.sum()
        return x * 2

    a, b = (wt.asarray([1.0, 2.0, 3.0], device=dev) for _ in range(2))
    captured = wt.asarray([0.0, 0.0], device=dev)
    y = wt.asarray([1.0, 1.0], device=dev)
    out_eager = f(a, y)
    eager_captured = captured.tolist()
    captured = wt.asarray([0.0, 0.0], device=dev)
    jf = wt.jit(f)
    same(jf(b, y), out_eager)
    assert b.tolist() == a.tolist() == [10.0, 2.0, 3.0]
    assert captured.tolist() == eager_captured == [0.0, 2.0]
    jf(b, y)  # the cached program writes again, reading the current values
    assert captured.tolist() == [0.0, 4.0] and jf.trace_count == 1


def test_random_with_an_explicit_key(dev):
    def f(key):
        k1, k2 = wt.random.split(key)
        return wt.random.normal(k1, (3, 4), device=dev), wt.random.uniform(k2, (5,), device=dev)
    key = wt.random.key(3)
    check(f, key)


# -- pytrees, signatures and retracing -----------------------------------------------------------

def test_pytrees_in_and_out(dev):
    def f(params, batch, scale=1.0):
        w, b = params["w"], params["b"]
        out = [batch["x"] @ w + b, None, (scale * 2,)]
        return {"out": out, "n": batch["x"].shape[0]}
    params = {"w": wt.ones((3, 2), device=dev), "b": wt.zeros((2,), device=dev)}
    batch = {"x": wt.reshape(wt.arange(6, dtype=wt.float32, device=dev), (2, 3))}
    got = wt.jit(f)(params, batch, scale=3.0)
    want = f(params, batch, scale=3.0)
    same(got["out"][0], want["out"][0])
    assert got["out"][1] is None
    same(got["out"][2][0], wt.asarray(6.0, device=dev))  # a Python result becomes a tensor
    assert got["n"].tolist() == 2


def test_retracing_only_when_the_signature_changes(dev):
    f = wt.jit(lambda x, s: x * s)
    x = wt.ones((3,), device=dev)
    f(x, 2.0)
    f(x, 3.0)  # another value, same type: no retrace
    f(wt.zeros((3,), device=dev), 4.0)
    assert f.trace_count == 1
    f(x, 2)  # int instead of float
    assert f.trace_count == 2
    f(x, wt.asarray(2.0, device=dev))  # strong instead of weak
    assert f.trace_count == 3
    f(wt.ones((4,), device=dev), 2.0)  # shape
    assert f.trace_count == 4
    f(x.astype(wt.float16), 2.0)  # dtype
    assert f.trace_count == 5
    with wt.promotion_mode("numpy"):
        f(x, 2.0)
    assert f.trace_count == 6
    with wt.set_default_float_dtype(wt.float64):
        f(x, 2.0)
    assert f.trace_count == 7
    f(x, 2.0)
    assert f.trace_count == 7


def test_static_arguments(dev):
    def f(x, n, *, mode="add"):
        for _ in range(n):
            x = x + 1 if mode == "add" else x * 2
        return x
    jf = wt.jit(f, static_argnums=1, static_argnames="mode")
    x = wt.ones((2,), device=dev)
    same(jf(x, 3), f(x, 3))
    same(jf(x, 3, mode="mul"), f(x, 3, mode="mul"))
    jf(x, 3)
    assert jf.trace_count == 2
    jf(x, 4)
    assert jf.trace_count == 3
    # decorator forms
    g = wt.jit(static_argnums=(1,))(f)
    same(g(x, 2), f(x, 2))

    @wt.jit
    def inner(a):
        return a * 3

    @wt.jit
    def outer(a):
        return inner(a) + inner(a + 1)
    same(outer(x), x * 3 + (x + 1) * 3)


def test_argument_errors():
    f = wt.jit(lambda x, name: x)
    with pytest.raises(TypeError, match=r"wt.jit\(<lambda>\): an argument leaf is a str .*"
                                        r"static_argnums"):
        f(wt.ones(2), "hello")
    with pytest.raises(TypeError, match=r"static argument 1 must be hashable"):
        wt.jit(lambda x, s: x, static_argnums=1)(wt.ones(2), [1, 2])
    with pytest.raises(TypeError, match=r"wt.jit: expected a function"):
        wt.jit(3)
    with pytest.raises(ValueError, match=r"static_argnums=5 is out of range"):
        wt.jit(lambda x: x, static_argnums=5)
    with pytest.raises(TypeError, match=r"output leaf 0 is a str"):
        wt.jit(lambda x: "no")(wt.ones(2))


# -- errors that teach ----------------------------------------------------------------------------

def test_concretization_errors_name_the_call_and_the_fix():
    x = wt.asarray([1.0, -2.0, 3.0])
    cases = [
        (lambda a: a if a.sum() > 0 else -a, r"bool\(\) of Traced<bool\[\]>.*wt.where"),
        (lambda a: a * int(a[0]), r"int\(\) of Traced<float32\[\]>"),
        (lambda a: a * float(a[0]), r"float\(\) of Traced<float32\[\]>"),
        (lambda a: a * a[0].item(), r"\.item\(\) of Traced<float32\[\]>"),
        (lambda a: a.tolist(), r"\.tolist\(\) of Traced<float32\[3\]>"),
        (lambda a: wt.nonzero(a > 0), r"wt.nonzero's result shape depends on the values"),
        (lambda a: a[a > 0], r"boolean mask"),
        (lambda a: wt.unique_values(a), r"wt.unique_values's result shape"),
        (lambda a: a + wt.random.randn(3), r"process-wide generator .* pass a key"),
    ]
    for fn, pattern in cases:
        with pytest.raises(wt.ConcretizationError, match=pattern):
            wt.jit(fn)(x)
    assert issubclass(wt.ConcretizationError, TypeError)


def test_traced_tensors_print_as_traced():
    seen = []

    def f(a):
        seen.append((repr(a), str(a * 2)))
        return a
    wt.jit(f)(wt.ones((3, 4)))
    assert seen[0][0] == "Traced<float32[3,4]>" and seen[0][1] == "Traced<float32[3,4]>"
    wt.jit(lambda a: seen.append(repr(a)) or a)(2.0)
    assert seen[-1] == "Traced<float32[], weak>"


def test_make_graph_listing():
    def f(x, s):
        return wt.sum(wt.sin(x) * s, axis=0)
    g = wt.make_graph(f)(wt.ones((3, 4)), 2.0)
    text = str(g)
    assert text.splitlines()[0] == "{ lambda a:f32[3,4] b:~f32[] ;"
    assert "unary.sin a" in text and "reduce.sum[axes=(0,)]" in text
    assert "b[broadcast 3x4]" in text
    assert text.rstrip().endswith("in (e,) }")
    named = wt.make_graph(lambda x: x + 1)(wt.asarray([[1, 2]], names=("rows", "cols")))
    assert "i32[rows:1,cols:2]" in str(named)


# -- control flow -----------------------------------------------------------------------------------

def test_cond_eager_and_jitted(dev):
    x = wt.asarray([1.0, 2.0, 3.0], device=dev)

    def f(x, t):
        return wt.cond(x.sum() > t, lambda a, b: (a * 2, b), lambda a, b: (a - 1, b + 1), x, t)
    for t in (0.0, 10.0):
        same(wt.jit(f)(x, t), f(x, t))
    assert f(x, 0.0)[0].tolist() == [2.0, 4.0, 6.0]
    assert f(x, 10.0)[0].tolist() == [0.0, 1.0, 2.0]
    with pytest.raises(TypeError, match=r"wt.cond: true_fun and false_fun must agree in shape "
                                        r"and dtype.*float32\[3\].*int32\[3\]"):
        wt.cond(True, lambda a: a, lambda a: a.astype(wt.int32), x)
    with pytest.raises(TypeError, match=r"same structure"):
        wt.cond(True, lambda a: (a, a), lambda a: a, x)
    with pytest.raises(TypeError, match=r"pred must be a scalar"):
        wt.cond(x > 0, lambda a: a, lambda a: a, x)


def test_loops_nested_with_pytree_carries(dev):
    x = wt.asarray([1.0, 2.0, 3.0], device=dev)

    def f(x, n):
        def body(i, carry):
            acc, hist = carry
            acc = wt.cond(i % 2 == 0, lambda a: a + x, lambda a: a * 0.5, acc)
            return acc, {"count": hist["count"] + 1, "last": acc[0]}
        init = (wt.zeros_like(x), {"count": 0, "last": 0.0})
        acc, hist = wt.fori_loop(0, 5, body, init)
        total, ys = wt.scan(lambda c, xi: (c + xi, c * xi), 0.0, acc)
        k, v = wt.while_loop(lambda s: s[0] < n, lambda s: (s[0] + 1, s[1] * 1.5), (0, acc))
        return acc, hist, total, ys, k, v
    same(wt.jit(f)(x, 4), f(x, 4))
    acc = f(x, 4)[0]
    # reference with plain Python
    ref = [0.0, 0.0, 0.0]
    for i in range(5):
        ref = [r + v for r, v in zip(ref, [1.0, 2.0, 3.0])] if i % 2 == 0 else [r * 0.5 for r in
                                                                                ref]
    assert acc.tolist() == ref


def test_zero_trip_loops_and_reverse_scan(dev):
    x = wt.asarray([1.0, 2.0, 3.0], device=dev)

    def f(x):
        a = wt.fori_loop(3, 3, lambda i, v: v + 1, x)
        b = wt.while_loop(lambda v: v.sum() < 0, lambda v: v + 1, x)
        c, ys = wt.scan(lambda c, xi: (c + xi, c), 0.0, x[:0])
        d, zs = wt.scan(lambda c, xi: (c * 10 + xi, c), 0.0, x, reverse=True)
        return a, b, c, ys, d, zs
    same(wt.jit(f)(x), f(x))
    a, b, c, ys, d, zs = f(x)
    assert a.tolist() == b.tolist() == [1.0, 2.0, 3.0] and c.tolist() == 0.0
    assert ys.shape == (0,) and d.tolist() == 321.0 and zs.tolist() == [32.0, 3.0, 0.0]


def test_fori_loop_with_traced_bounds_and_index(dev):
    x = wt.zeros((4,), device=dev)

    def f(x, n):
        def body(i, v):
            v = v * 1
            v[i] = i * 10.0
            return v
        return wt.fori_loop(0, n, body, x)
    got = wt.jit(f)(x, 3)
    assert got.tolist() == [0.0, 10.0, 20.0, 0.0]
    same(got, f(x, 3))


def test_loop_errors():
    x = wt.ones(3)
    with pytest.raises(TypeError, match=r"wt.while_loop: init_val and body_fun's result must "
                                        r"agree in shape and dtype"):
        wt.while_loop(lambda v: v.sum() < 10, lambda v: v[:2], x)
    with pytest.raises(TypeError, match=r"cond_fun must return one scalar"):
        wt.while_loop(lambda v: v < 10, lambda v: v, x)
    with pytest.raises(TypeError, match=r"wt.scan: f must return a pair"):
        wt.scan(lambda c, x: c, 0.0, x)
    with pytest.raises(ValueError, match=r"leading axes of xs .* disagree"):
        wt.scan(lambda c, a: (c, a), 0.0, (x, wt.ones(4)))
    with pytest.raises(ValueError, match=r"pass length="):
        wt.scan(lambda c, a: (c, c), 0.0, None)
    with pytest.raises(wt.ConcretizationError, match=r"return the new value"):
        def f(v):
            def body(i, c):
                v[0] = c  # writes the enclosing function's tensor
                return c
            return wt.fori_loop(0, 2, body, v.sum())
        wt.jit(f)(x)


def test_constants_are_computed_once_and_outputs_stay_fresh(dev):
    f = wt.jit(lambda x: (x + wt.arange(3, dtype=x.dtype, device=dev), wt.arange(3, device=dev)))
    x = wt.zeros((3,), device=dev)
    a, r1 = f(x)
    r1[0] = 7  # writing into one call's output must not change the next call's
    b, r2 = f(x)
    assert r2.tolist() == [0, 1, 2] and b.tolist() == a.tolist() == [0.0, 1.0, 2.0]
    assert f.trace_count == 1


def test_python_number_arguments_are_values(dev):
    def f(x, s):
        s += 1  # rebinds s to a new tensor: the caller's number cannot change
        t = wt.asarray(s, device=dev) * 1
        t[...] = 5  # a write into a tensor made from the number
        return x * s + t
    jf = wt.jit(f)
    x = wt.ones((2,), device=dev)
    assert jf(x, 2.0).tolist() == [8.0, 8.0]
    assert jf(x, 2.0).tolist() == [8.0, 8.0]  # the cached upload of 2.0 is still 2.0
    assert jf(x, 3.0).tolist() == [9.0, 9.0] and jf.trace_count == 1
