"""wt.jit on the webgpu device: fused kernels equal eager execution bit for bit, dispatch counts,
the binding limit, shared pipelines, control flow.  Runs natively (lavapipe) and in the browser
suite (Chromium's WebGPU); eager results are checked against NumPy elsewhere."""

from __future__ import annotations

import pytest

import webtensor as wt
from _gpu import (
    reduce_plan_fixture,  # noqa: F401 - registers `reduce_plan`
    webgpu_or_skip,
)
from webtensor.compile.fuse import Group, partition

GPU, CPU, BACKEND = webgpu_or_skip()


@pytest.fixture(scope="module")
def gpu():
    return GPU, BACKEND


def _dispatches(backend) -> int:
    return backend.driver.stats()["dispatches"]


def test_eight_op_chain_is_one_dispatch(gpu):
    device, backend = gpu

    @wt.jit
    def chain(x):
        return wt.exp(wt.sqrt(wt.abs(wt.sin(x * 1.5 + 0.5) ** 2 - 0.25)))
    x = wt.linspace(-3, 3, 4096, dtype=wt.float32, device=device)
    chain(x).tolist()
    before = _dispatches(backend)
    got = chain(x)
    assert _dispatches(backend) - before == 1
    eager = wt.exp(wt.sqrt(wt.abs(wt.sin(x * 1.5 + 0.5) ** 2 - 0.25)))
    assert got.tobytes() == eager.tobytes()


def test_twenty_inputs_respect_the_binding_limit(gpu):
    device, backend = gpu

    def f(*xs):
        total = xs[0]
        for x in xs[1:]:
            total = total + x * 1.5
        return total
    args = [wt.full((37,), float(k), device=device) for k in range(20)]
    got = wt.jit(f)(*args)
    assert got.tobytes() == f(*args).tobytes()
    from webtensor.compile import webgpu_codegen

    g = wt.make_graph(f)(*args)
    units = partition(g, webgpu_codegen.fusable, webgpu_codegen.max_bindings(backend))
    groups = [u for u in units if isinstance(u, Group)]
    assert groups and all(len(webgpu_codegen.plan(u).inputs) + len(u.results) <= 8
                          for u in groups)


def test_literals_share_a_pipeline(gpu):
    device, backend = gpu
    x = wt.arange(10, dtype=wt.float32, device=device)
    wt.jit(lambda a: (a * 0.5 + 1) * 3)(x).tolist()
    pipelines = backend.driver.stats()["pipelines"]
    out = wt.jit(lambda a: (a * 0.25 + 7) * -2)(x)
    assert backend.driver.stats()["pipelines"] == pipelines
    assert out.tolist() == [(v * 0.25 + 7) * -2 for v in range(10)]


@pytest.mark.parametrize("dt", [wt.int8, wt.uint8, wt.int16, wt.uint16, wt.float16,
                                wt.bfloat16, wt.bool, wt.int64, wt.complex64])
def test_narrow_dtypes_are_renarrowed_after_every_node(gpu, dt):
    device, _ = gpu
    n = 4096
    if dt is wt.bool:
        a = wt.arange(n, device=device) % 3 == 0
        b = wt.arange(n, device=device) % 5 == 0
        f = lambda a, b: wt.logical_xor(a | b, a & ~b) == b  # noqa: E731
    elif dt.kind in "iu":
        a = wt.astype(wt.arange(n, device=device) * 37, dt)
        b = wt.astype(wt.arange(n, device=device) * 91 + 5, dt)
        f = lambda a, b: ((a + b) >> 1) * 3 - a  # noqa: E731
    else:
        a = wt.astype(wt.linspace(-50, 50, n, device=device), dt)
        b = wt.astype(wt.linspace(3, -7, n, device=device), dt)
        f = lambda a, b: a * b + a - b * 0.1  # noqa: E731
    got = wt.jit(f)(a, b)
    assert got.dtype is f(a, b).dtype and got.tobytes() == f(a, b).tobytes()


def test_strided_and_broadcast_inputs(gpu):
    device, _ = gpu
    x = wt.reshape(wt.arange(60, dtype=wt.float32, device=device), (3, 4, 5))
    row = wt.arange(5, dtype=wt.float32, device=device)

    def f(x, r):
        y = x[::-1, 1:3, ::2] * r[::2] + 1
        return wt.where(y > 20, y, -y), y.astype(wt.int16)
    got, want = wt.jit(f)(x, row), f(x, row)
    for a, b in zip(got, want):
        assert a.tobytes() == b.tobytes()


def test_fused_listing(gpu):
    device, _ = gpu

    def f(x, y):
        a = wt.sin(x) * 2 + y
        return wt.exp(a) - 1, wt.sum(a, axis=0) * 3
    text = wt.make_graph(f)(wt.ones((3, 4), device=device), wt.ones((4,), device=device)).fused()
    # the chain is the sum's prologue (storing exp(a) - 1 on the way), "* 3" its epilogue
    assert text.splitlines()[0] == "f on webgpu: 1 kernel for 7 nodes"
    assert "kernel 1: reduction with a fused prologue and epilogue (6 ops)" in text
    assert "reduce.sum" in text


# (function, dispatches under jit): single-pass reductions (rows of at most 16K elements)
_REDUCTION_PROGRAMS = {
    "sum of a product": (lambda x, y: wt.sum(x * y), 1),
    "mean squared error per column": (lambda x, y: wt.mean((x - y) ** 2, axis=0), 1),
    "row norms": (lambda x, y: wt.sqrt(wt.sum(x * x, axis=1)), 1),
    "sum over a permuted view": (lambda x, y: wt.sum(wt.permute_dims(x * 2 - y, (1, 0)),
                                                     axis=1) + 1, 1),
    "softmax": (lambda x, y: wt.exp(x - wt.max(x, axis=1, keepdims=True))
                / wt.sum(wt.exp(x - wt.max(x, axis=1, keepdims=True)), axis=1, keepdims=True),
                3),
    "log-sum-exp and its input": (lambda x, y: (wt.log(wt.sum(wt.exp(x * y), axis=0)),
                                                wt.exp(x * y) + 1), 1),
    "integer max of a cast": (lambda x, y: wt.max((x * 100).astype(wt.int32) + 3, axis=0) * 2,
                              1),
}


@pytest.mark.parametrize("name", list(_REDUCTION_PROGRAMS))
def test_reductions_fuse_their_prologue_and_epilogue(gpu, name, reduce_plan):
    device, backend = gpu
    f, dispatches = _REDUCTION_PROGRAMS[name]
    x = wt.reshape(wt.linspace(-3, 2, 300 * 50, dtype=wt.float32, device=device), (300, 50))
    y = wt.reshape(wt.cos(wt.linspace(0, 40, 300 * 50, dtype=wt.float32, device=device)),
                   (300, 50))
    jitted = wt.jit(f)
    jitted(x, y)
    before = _dispatches(backend)
    got = jitted(x, y)
    assert _dispatches(backend) - before == dispatches
    want = f(x, y)
    for a, b in zip(got if isinstance(got, tuple) else (got,),
                    want if isinstance(want, tuple) else (want,)):
        assert a.dtype is b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


@pytest.mark.parametrize("dt", [wt.float32, wt.int32, wt.uint32, wt.int8, wt.uint8, wt.int16,
                                wt.uint16, wt.float16, wt.bfloat16, wt.int64, wt.uint64,
                                wt.bool])
@pytest.mark.parametrize("op", ["sum", "prod", "max", "min"])
def test_fused_reductions_equal_eager_for_every_dtype(gpu, dt, op, reduce_plan):
    device, _ = gpu
    n = 4 * 6 * 70
    base = wt.reshape(wt.arange(n, device=device) % 23 - 11, (4, 6, 70))
    a, b = wt.astype(base, dt), wt.astype(base * 7 % 5 + 1, dt)
    if dt is wt.bool:
        def body(a, b):
            return (a ^ b) | a
    elif dt.kind == "u":
        def body(a, b):
            return a * b + 3
    else:
        def body(a, b):
            return a * b - a
    reduce = getattr(wt, op)
    if op == "prod" and dt.kind == "f":
        inner = body  # products of many values overflow: keep them near 1

        def body(a, b):
            return inner(a, b) * 0.01 + 1

    def f(a, b):
        r = reduce(wt.permute_dims(body(a, b), (2, 0, 1)), axis=(0, 2))
        v = body(b, a)
        return r, reduce(v), v[:, ::2]  # v: stored by the prologue where it takes whole words
    got, want = wt.jit(f)(a, b), f(a, b)
    for g, w in zip(got, want):
        assert g.dtype is w.dtype and g.tobytes() == w.tobytes()
    fused = wt.make_graph(f)(a, b).fused().count("fused prologue")
    assert fused == (2 if dt.itemsize >= 4 else 1)


def test_a_prologue_value_read_through_a_slice_is_not_stored_partially(gpu):
    device, backend = gpu
    x = wt.linspace(-1, 1, 64, dtype=wt.float32, device=device)

    def f(x):
        v = x * 3 + 1
        return wt.sum(v[::2]), v  # the sum sees half of v; v itself must be whole
    got, want = wt.jit(f)(x), f(x)
    for g, w in zip(got, want):
        assert g.tobytes() == w.tobytes()
    text = wt.make_graph(f)(x).fused()
    assert "fused prologue" not in text


def test_a_packed_value_is_not_stored_by_a_prologue(gpu):
    device, _ = gpu
    x = wt.reshape(wt.arange(200, dtype=wt.int16, device=device), (10, 20))

    def f(x):
        v = x * 3 - 7  # int16: two per word, invocations of a reduction cannot share words
        return wt.sum(v, axis=1), v
    got, want = wt.jit(f)(x), f(x)
    for g, w in zip(got, want):
        assert g.tobytes() == w.tobytes()
    assert "fused prologue" not in wt.make_graph(f)(x).fused()


def test_an_epilogue_never_reads_what_its_prologue_stores(gpu):
    device, _ = gpu
    x = wt.reshape(wt.linspace(-1, 2, 3, dtype=wt.float32, device=device), (1, 3))

    def softmax_over_a_unit_axis(x):
        e = wt.exp(x)
        return e / wt.reshape(wt.sum(e, axis=0), (1, 3))  # reads the sum through a reshape
    got, want = wt.jit(softmax_over_a_unit_axis)(x), softmax_over_a_unit_axis(x)
    assert got.tobytes() == want.tobytes()
    text = wt.make_graph(softmax_over_a_unit_axis)(x).fused()
    assert "fused prologue and epilogue" not in text and "fused prologue" in text


def test_long_rows_take_several_passes_with_the_prologue_in_the_first(gpu):
    device, backend = gpu
    x = wt.linspace(-5, 5, 300_001, dtype=wt.float32, device=device)

    def f(x):
        return wt.sum(wt.sin(x) * x) / 7, wt.max(wt.abs(x - 0.5)) + 1
    got, want = wt.jit(f)(x), f(x)
    for g, w in zip(got, want):
        assert g.tobytes() == w.tobytes()


@pytest.mark.parametrize("dt", [wt.float32, wt.int32, wt.uint32])
@pytest.mark.parametrize("m,k,n", [(128, 96, 256), (5, 7, 3), (70, 33, 66)])
def test_matmuls_store_their_epilogue(gpu, dt, m, k, n):
    device, backend = gpu
    a = wt.astype(wt.reshape(wt.arange(m * k, device=device) % 13 - 6, (m, k)), dt)
    b = wt.astype(wt.reshape(wt.arange(k * n, device=device) % 7 - 3, (n, k)), dt)
    bias = wt.astype(wt.arange(n, device=device) % 5, dt)

    def f(a, b, bias):
        y = a @ wt.matrix_transpose(b) + bias  # a transposed operand, a broadcast bias
        return wt.maximum(y, 2) * 3, y  # two results: both stored by the one kernel
    jitted = wt.jit(f)
    jitted(a, b, bias)
    before = _dispatches(backend)
    got = jitted(a, b, bias)
    assert _dispatches(backend) - before == 1
    for g, w in zip(got, f(a, b, bias)):
        assert g.dtype is w.dtype and g.tobytes() == w.tobytes()
    assert "matmul with a fused epilogue (3 ops)" in wt.make_graph(f)(a, b, bias).fused()


def test_a_training_step_fuses_around_its_matmuls_and_reductions(gpu):
    device, backend = gpu
    x = wt.reshape(wt.sin(wt.arange(64 * 20, dtype=wt.float32, device=device)), (64, 20))
    params = (wt.reshape(wt.cos(wt.arange(20 * 32, dtype=wt.float32, device=device)), (20, 32))
              * 0.1, wt.zeros(32, device=device),
              wt.reshape(wt.sin(wt.arange(32 * 4, dtype=wt.float32, device=device)), (32, 4))
              * 0.1, wt.zeros(4, device=device))
    labels = wt.nn.one_hot(wt.arange(64, device=device) % 4, 4)

    def loss(p, x, y):
        h = wt.nn.relu(x @ p[0] + p[1])
        return -wt.sum(wt.nn.log_softmax(h @ p[2] + p[3]) * y) / x.shape[0]
    step = wt.value_and_grad(loss)
    got, want = wt.jit(step)(params, x, labels), step(params, x, labels)
    assert got[0].tobytes() == want[0].tobytes()
    for g, w in zip(got[1], want[1]):
        assert g.tobytes() == w.tobytes()
    text = wt.make_graph(step)(params, x, labels).fused()
    assert text.count("matmul with a fused epilogue") >= 2
    assert "reduction with a fused prologue and epilogue" in text


def test_control_flow_on_the_gpu(gpu):
    device, _ = gpu
    x = wt.asarray([1.0, 2.0, 3.0], device=device)

    def f(x, n):
        acc = wt.fori_loop(0, 4, lambda i, a: wt.cond(i % 2 == 0, lambda v: v + x,
                                                       lambda v: v * 0.5, a), wt.zeros_like(x))
        total, ys = wt.scan(lambda c, xi: (c + xi, c * xi), 0.0, acc)
        k, v = wt.while_loop(lambda s: s[0] < n, lambda s: (s[0] + 1, s[1] * 1.5), (0, acc))
        return acc, total, ys, k, v
    got, want = wt.jit(f)(x, 3), f(x, 3)
    for a, b in zip(got, want):
        assert a.tobytes() == b.tobytes()
    assert got[0].tolist() == [0.75, 1.5, 2.25]


def test_random_programs_fuse_bit_exactly(gpu):
    device, _ = gpu
    dtypes = [wt.float32, wt.int32, wt.uint8, wt.float16, wt.int64, wt.complex64]
    for k, dt in enumerate(dtypes):
        n = 257
        a = wt.astype(wt.arange(n, device=device) * (k + 3) - 100, dt)
        b = wt.astype(wt.arange(n, device=device) % 7 + 1, dt)

        def f(a, b):
            c = a * b + a
            d = wt.where(wt.astype(c, wt.float32) > 0, c - b, b - a)
            return d * d, wt.astype(d, wt.float32) / 3
        for x, y in zip(wt.jit(f)(a, b), f(a, b)):
            assert x.tobytes() == y.tobytes(), dt


# Views of an (8, 24) tensor as operands of a (6, 12) result, and whether they let eager map
# kernels run four elements per invocation (kernels.vec4_kind): aligned whole vec4s, or one
# element shared by all four.  (wt.jit makes such arguments dense before its kernels run.)
VEC4_VIEWS = {
    "contiguous": (lambda x: wt.reshape(x[:3], (6, 12)), True),
    "offset by a vec4": (lambda x: x[1:7, 4:16], True),
    "row broadcast": (lambda x: x[2, :12], True),
    "column broadcast": (lambda x: x[:6, 5:6], True),
    "one element": (lambda x: x[3, 7], True),
    "offset by one": (lambda x: x[:6, 1:13], False),
    "step two": (lambda x: x[:6, ::2], False),
    "transposed": (lambda x: wt.reshape(x, (16, 12))[:12, :6].T, False),
}


@pytest.mark.parametrize("dt", [wt.float32, wt.int32, wt.uint32])
@pytest.mark.parametrize("name", VEC4_VIEWS)
def test_vec4_kernels_equal_the_scalar_ones_for_every_operand_layout(gpu, monkeypatch, name,
                                                                      dt):
    """Eager map kernels and fused kernels: the vec4 kernel where the layout allows it, with
    the bits of the scalar kernel (and of the CPU for integers)."""
    from webtensor.backends.webgpu import kernels

    device, backend = gpu
    view, vectorized = VEC4_VIEWS[name]
    seen = []  # the text of each kernel launched for the (6, 12) result
    launch = backend.launch

    def spy(kernel, buffers, params, groups):
        n = params.words[1] if hasattr(params, "words") else int.from_bytes(params[4:8], "little")
        if n == 72:
            seen.append(kernel.wgsl)
        launch(kernel, buffers, params, groups)
    monkeypatch.setattr(backend, "launch", spy)

    def f(v, y):
        return wt.sin(v * y + 3) / 2 if dt is wt.float32 else (v * y + 3) // 2

    def run(dev):
        base = wt.astype(wt.reshape(wt.arange(8 * 24, device=dev) - 90, (8, 24)), dt)
        y = wt.astype(wt.arange(72, device=dev) % 7 + 1, dt).reshape(6, 12)
        v = view(base)
        seen.clear()
        eager = f(v, y).tobytes()
        kernel_texts[:] = seen
        return [eager, wt.jit(f)(v, y).tobytes()]
    kernel_texts = []
    backend.plans.clear()  # eager dispatch plans are cached per layout: start and end clean
    got = run(device)
    # the first kernel reads the view; the later ones read its dense results
    vec4 = ["array<vec4<u32>>" in text for text in kernel_texts]
    assert vec4 and vec4[0] == vectorized and all(vec4[1:]), name
    backend.plans.clear()
    monkeypatch.setattr(kernels, "vec4_kind", lambda *a: None)
    try:
        assert got == run(device), name
    finally:
        backend.plans.clear()
    if dt is not wt.float32:
        assert got == run("cpu"), name


def test_every_buffer_holds_whole_vec4s():
    """vec4 kernels read any element through the vec4 around it, so no allocation may end
    inside one (big buffers too, which are not bucketed)."""
    from webtensor.backends.webgpu.allocator import bucket

    for nbytes in (1, 4, 255, 4097, (16 << 20) - 4, (16 << 20) + 4, (64 << 20) + 8, 3 << 26):
        assert bucket(nbytes) >= nbytes and bucket(nbytes) % 16 == 0, nbytes
