"""The window kernel family: ``window_reduce`` (sum, prod, max, min over sliding windows) as one
WGSL kernel, ``shaders/window.wgsl``, and ``window_scatter`` (select and scatter) as two.

One invocation per output word folds its elements' windows: it starts from the window's first
element and applies the elementwise op's own WGSL expression (``exprs.BINARY``: add, multiply,
maximum, minimum) to the next position in row-major order, rounding to the storage after each
step (float16/bfloat16 compute in f32 and round to 16 bits, as their stores do; the integer
storages wrap when stored, which is the same for add and multiply, and max/min stay in range).
That is exactly what folding the window's strided views with ``wt.add``/``wt.multiply``/
``wt.maximum``/``wt.minimum`` computes, kernel by kernel, so results equal the CPU device bit
for bit (NaN and signed zeros included) in one launch instead of one per window position.

The input is any strided view (the padded tensor); its window origins are a strided operand
over the collapsed output shape, the window dims collapse too (a window spanning contiguous
memory is one loop).  float64/complex128 and complex max/min have no kernel: the CPU computes
them.

``window_scatter``: ``window_select.wgsl`` walks each window the same way and writes the
position it selects (the comparison is the elementwise one, ``exprs.BINARY``); then
``window_scatter.wgsl`` gives each output element one invocation, which visits the windows
holding it in C order (each axis's window positions, last first) and adds the source of those
that selected it, in the dtype's arithmetic: no atomics, no sort, the CPU's order.
"""

from __future__ import annotations

from functools import lru_cache

from ...shape import contiguous_strides as _contiguous_strides
from ..base import WINDOW_OPS, WINDOW_SELECT, check_window, check_window_scatter
from . import exprs, kernels
from .kernels import STORAGE, STORAGE_OF, Kernel, Params

PRIMITIVES = ("window_reduce", "window_scatter")
_PLANS_MAX = 4096  # as the elementwise family: the device's plans dropped all at once

# The storages that compute in a wider type and round when stored: the fold rounds after each
# step (the integer storages need nothing: add/multiply wrap alike, max/min stay in range).
_ROUND = {"f16": "f16_bits_to_f32(f32_to_f16_bits({v}))",
          "bf16": "bf16_bits_to_f32(f32_to_bf16_bits({v}))"}


# the additive zero per compute type (window_scatter's start; opq keeps the shader compiler
# from folding 0.0 + x to x, which is -0.0 where the sum is +0.0)
_ZERO = {"f32": "opq(0.0)", "i32": "0", "u32": "0u", "bool": "false",
         "vec2<u32>": "vec2<u32>(0u)", "vec2<f32>": "vec2<f32>(opq(0.0))"}


def _storage_body(storage: str, value: str = "window_value") -> str:
    """The main function's body: output word(s) ``t`` from ``value(i)``."""
    s = STORAGE[storage]
    if s.words > 1:
        parts = "xyzw"[:s.words]
        lines = [f"let r = {s.store.format(v=f'{value}(t)')};",
                 *(f"out0[{s.words}u * t + {k}u] = r.{c};" for k, c in enumerate(parts))]
    elif s.per_word == 1:
        lines = [f"out0[t] = {s.store.format(v=f'{value}(t)')};"]
    else:
        lines = ["var word = 0u;",
                 f"for (var j = 0u; j < {s.per_word}u; j = j + 1u) {{",
                 f"    let i = t * {s.per_word}u + j;",
                 "    if (i < prm(1u)) {",
                 f"        word = word | ({s.store.format(v=f'{value}(i)')} << "
                 f"(j * {s.bits}u));",
                 "    }",
                 "}",
                 "out0[t] = word;"]
    return "\n".join("    " + line for line in lines)


def _loops(outer: int, body) -> str:
    """Nested loops over ``outer`` window dims around the innermost one (offsets ``o1``...),
    ``body`` (lines) at each element ``off`` but a window's first (``j0``)."""
    lines, pad = [], "    "
    for d in range(1, outer + 1):
        lines += [f"{pad}for (var k{d} = 0u; k{d} < prm(base + {2 * d}u); k{d} = k{d} + 1u) {{",
                  f"{pad}    let o{d} = o{d - 1} + i32(k{d}) * prm_i(base + {2 * d + 1}u);"]
        pad += "    "
    lines += [f"{pad}var off = o{outer} + i32(j0) * step;",
              f"{pad}for (var j = j0; j < inner; j = j + 1u) {{",
              *(f"{pad}    {line}" for line in body),
              f"{pad}    off += step;",
              f"{pad}}}",
              f"{pad}j0 = 0u;"]
    for _ in range(outer):
        pad = pad[:-4]
        lines.append(f"{pad}}}")
    return "\n".join(lines)


def _fold(storage: str, expr: str) -> str:
    return _ROUND.get(storage, "{v}").format(v=f"({expr})")


@lru_cache(maxsize=128)
def window_kernel(storage: str, expr: str, outer: int, slots: int) -> Kernel:
    """The kernel folding with ``expr`` on ``storage`` over windows of ``outer`` + 1 dims."""
    s = STORAGE[storage]
    loops = _loops(outer, ["acc = op(acc, load_x(u32(off)));"])
    return kernels.render("window", 1, 1, slots, elem=s.wgsl_type, fold=_fold(storage, expr),
                          load=s.load.format(buf="in0", idx="idx"), loops=loops,
                          body=_storage_body(storage))


@lru_cache(maxsize=128)
def select_kernel(storage: str, compare: str, replace_if: bool, outer: int,
                  slots: int) -> Kernel:
    """The kernel writing each window's selected position (u32)."""
    s = STORAGE[storage]
    loops = _loops(outer, ["let v = load_x(u32(off));",
                           "if (replaces(best, v)) {",
                           "    best = v;",
                           "    sel = k;",
                           "}",
                           "k = k + 1u;"])
    replace = "compare(v, best)" if replace_if else "!compare(best, v)"
    return kernels.render("window_select", 1, 1, slots, elem=s.wgsl_type, compare=compare,
                          replace=replace, load=s.load.format(buf="in0", idx="idx"),
                          loops=loops)


_AXIS = 8  # parameter slots per axis of window_scatter.wgsl


def _paired_loops(outer: int, body) -> str:
    """``_loops`` walking in0 (offset ``off``) and out0 (offset ``yoff``) together: three
    parameter slots per window dim (size, in0 step, out0 step)."""
    lines, pad = ["    {  // (a scope: the kernel has two of these)"], "        "
    for d in range(1, outer + 1):
        b = 3 * d
        lines += [f"{pad}for (var k{d} = 0u; k{d} < prm(base + {b}u); k{d} = k{d} + 1u) {{",
                  f"{pad}    let x{d} = x{d - 1} + i32(k{d}) * prm_i(base + {b + 1}u);",
                  f"{pad}    let y{d} = y{d - 1} + i32(k{d}) * prm_i(base + {b + 2}u);"]
        pad += "    "
    lines += [f"{pad}var off = x{outer} + i32(j0) * xstep;",
              f"{pad}var yoff = y{outer} + i32(j0) * ystep;",
              f"{pad}for (var j = j0; j < inner; j = j + 1u) {{",
              *(f"{pad}    {line}" for line in body),
              f"{pad}    off += xstep;",
              f"{pad}    yoff += ystep;",
              f"{pad}}}",
              f"{pad}j0 = 0u;"]
    for _ in range(outer + 1):
        pad = pad[:-4]
        lines.append(f"{pad}}}")
    return "\n".join(lines)


@lru_cache(maxsize=128)
def select_write_kernel(xs: str, compare: str, replace_if: bool, os_: str, add: str,
                        outer: int, slots: int) -> Kernel:
    """Select and scatter over disjoint windows into an unpacked output, in one kernel."""
    s, o = STORAGE[xs], STORAGE[os_]
    if o.words > 1:
        store = [f"    let r = {o.store.format(v='v')};",
                 *(f"    out0[{o.words}u * idx + {k}u] = r.{c};"
                   for k, c in enumerate("xyzw"[:o.words]))]
    else:
        store = [f"    out0[idx] = {o.store.format(v='v')};"]
    zero = _ZERO[o.wgsl_type]
    return kernels.render(
        "window_select_write", 2, 1, slots, elem=s.wgsl_type, compare=compare,
        replace="compare(v, best)" if replace_if else "!compare(best, v)",
        load=s.load.format(buf="in0", idx="idx"), oelem=o.wgsl_type, fold=_fold(os_, add),
        load_src=o.load.format(buf="in1", idx="idx"), store="\n".join(store), zero=zero,
        select_loops=_paired_loops(outer, ["let v = load_x(u32(off));",
                                           "if (replaces(best, v)) {",
                                           "    best = v;",
                                           "    chosen = yoff;",
                                           "}"]),
        write_loops=_paired_loops(outer, [f"store_out(u32(yoff), select({zero}, value, "
                                          f"yoff == chosen));"]))


def _disjoint(window, strides, dilations) -> bool:
    """No two windows share an element (each stride covers its window's extent)."""
    return all(s >= (w - 1) * d + 1 for w, s, d in zip(window, strides, dilations))


def _covering(shape, window, strides, dilations, windows_shape) -> bool:
    """Disjoint windows that cover every element (nothing left to zero)."""
    return all(w == s and d == 1 and o * s == n
               for n, w, s, d, o in zip(shape, window, strides, dilations, windows_shape))


def _select_write_plan(select, xs, compare, os_, add, out, x, source, window, strides,
                       dilations) -> tuple:
    cs = _contiguous_strides(out.shape)
    steps = [[st * s for st, s in zip(x.strides, strides)],
             [c * s for c, s in zip(cs, strides)], list(source.strides)]
    shape, (xo, yo, so) = kernels.collapse(source.shape, steps)
    wshape, (wx, wy) = kernels.collapse(window, [[st * d for st, d in zip(x.strides,
                                                                          dilations)],
                                                 [c * d for c, d in zip(cs, dilations)]])
    if not wshape:
        wshape, wx, wy = (1,), (0,), (0,)
    params = Params(source.size, source.size, shape, [(x.offset, xo), (0, yo),
                                                      (source.offset, so)])
    params.add(wshape[-1], wx[-1], wy[-1])
    for n, a, b in zip(wshape[:-1], wx[:-1], wy[:-1]):
        params.add(n, a, b)
    kernel = select_write_kernel(xs, compare, WINDOW_SELECT[select][1], os_, add,
                                 len(wshape) - 1, len(params.words))
    return kernel, params.pack(kernel), kernels.groups_for(source.size)


def _scatter_loops(rank: int) -> str:
    """Per axis ``a`` (outermost first) a loop over the windows holding the element, in
    ascending order (so the windows' C order), with the element's position ``q`` in each:
    window index ``lin``, position ``k``, source offset ``s``.  The windows' range along an
    axis is computed once, outside the loops; a dilated axis skips positions between taps."""
    lines, pad = [], "    "
    for a in range(rank):
        b = 4 + _AXIS * a
        lines += [f"    let d{a} = prm_i({b + 2}u);",
                  f"    let st{a} = prm_i({b + 3}u);",
                  f"    var lo{a} = p{a} - prm_i({b + 7}u);  // stride 1: no division",
                  f"    var hi{a} = min(prm_i({b + 4}u) - 1, p{a});",
                  f"    if (st{a} > 1) {{",
                  f"        lo{a} = i32((u32(p{a}) + prm({b + 6}u)) / prm({b + 3}u)) - "
                  f"prm_i({b + 7}u);",
                  f"        hi{a} = min(prm_i({b + 4}u) - 1, p{a} / st{a});",
                  "    }"]
    lin, k, src = "lin", "k", "s"
    for a in range(rank):
        b = 4 + _AXIS * a
        lines += [
            f"{pad}for (var w{a} = max(lo{a}, 0); w{a} <= hi{a}; w{a} = w{a} + 1) {{",
            f"{pad}    var q{a} = p{a} - w{a} * st{a};",
            f"{pad}    if (d{a} > 1) {{",
            f"{pad}        if (q{a} % d{a} != 0) {{",
            f"{pad}            continue;",
            f"{pad}        }}",
            f"{pad}        q{a} = q{a} / d{a};",
            f"{pad}    }}",
            f"{pad}    let lin{a} = {lin} * prm_i({b + 4}u) + w{a};",
            f"{pad}    let k{a} = {k} * prm_i({b + 1}u) + q{a};",
            f"{pad}    let s{a} = {src} + w{a} * prm_i({b + 5}u);"]
        lin, k, src = f"lin{a}", f"k{a}", f"s{a}"
        pad += "    "
    lines += [f"{pad}if (in1[u32({lin})] == u32({k})) {{",
              f"{pad}    acc = op(acc, load_src(u32({src})));",
              f"{pad}}}"]
    for _ in range(rank):
        pad = pad[:-4]
        lines.append(f"{pad}}}")
    return "\n".join(lines)


@lru_cache(maxsize=128)
def scatter_kernel(storage: str, expr: str, rank: int, slots: int) -> Kernel:
    """The kernel adding each element's selected sources (``rank`` axes of size > 1)."""
    s = STORAGE[storage]
    coords = []
    for a in range(rank - 1, -1, -1):
        coords += [f"    let p{a} = i32(rem % prm({4 + _AXIS * a}u));",
                   f"    rem = rem / prm({4 + _AXIS * a}u);"]
    return kernels.render("window_scatter", 2, 1, slots, elem=s.wgsl_type,
                          fold=_fold(storage, expr), zero=_ZERO[s.wgsl_type],
                          load=s.load.format(buf="in0", idx="idx"), coords="\n".join(coords),
                          loops=_scatter_loops(rank), body=_storage_body(storage,
                                                                         "scatter_value"))


def _expr(op: str, dt) -> tuple[str | None, str | None]:
    storage = STORAGE_OF.get(dt)
    return storage, exprs.binary(WINDOW_OPS[op], storage) if op in WINDOW_OPS else None


def _window_params(out_shape, n: int, threads: int, x, window, strides, dilations):
    """The window kernels' parameters (``shaders/window.wgsl``) and their outer window dims."""
    origin_steps = [st * s for st, s in zip(x.strides, strides)]
    shape, (origins,) = kernels.collapse(out_shape, [origin_steps])
    wshape, (wsteps,) = kernels.collapse(window, [[st * d for st, d in zip(x.strides,
                                                                           dilations)]])
    if not wshape:  # a window of one element: a strided copy
        wshape, wsteps = (1,), (0,)
    params = Params(n, threads, shape, [(x.offset, origins)])
    params.add(wshape[-1], wsteps[-1])
    for size, step in zip(wshape[:-1], wsteps[:-1]):
        params.add(size, step)
    return params, len(wshape) - 1


def _planned(dev, key, make) -> tuple:
    plans = dev.plans
    found = plans.get(key)
    if found is None:
        found = make()
        if len(plans) >= _PLANS_MAX:
            plans.clear()
        plans[key] = found
    return found


def _reduce_plan(storage: str, expr: str, out, x, window, strides, dilations) -> tuple:
    """(kernel, packed parameters, workgroups) of one window reduction."""
    threads = -(-out.size // STORAGE[storage].per_word)
    params, outer = _window_params(out.shape, out.size, threads, x, window, strides, dilations)
    kernel = window_kernel(storage, expr, outer, len(params.words))
    return kernel, params.pack(kernel), kernels.groups_for(threads)


def window_reduce(dev, op, out, x, window, strides, dilations) -> bool:
    check_window(op, out, x, window, strides, dilations)
    storage, expr = _expr(op, x.dtype)
    if expr is None or not dev.native_ok(out, x):
        return False
    if out.size == 0:
        return True
    x = dev.unaliased(out, [x])[0]
    key = ("window", op, storage, out.shape, x.shape, x.strides, x.offset, tuple(window),
           tuple(strides), tuple(dilations))
    kernel, params, groups = _planned(dev, key, lambda: _reduce_plan(
        storage, expr, out, x, window, strides, dilations))
    dev.launch(kernel, [x._data, out._data], params, groups)
    return True


def _select_exprs(select: str, x_dt, out_dt):
    """(x's storage, its comparison, out's storage, its addition); None parts: no kernel."""
    xs, os_ = STORAGE_OF.get(x_dt), STORAGE_OF.get(out_dt)
    return (xs, exprs.binary(WINDOW_SELECT[select][0], xs) if select in WINDOW_SELECT else None,
            os_, exprs.binary("add", os_))


def _scatter_plans(select, xs, compare, os_, add, out, x, source, window, strides,
                   dilations) -> tuple:
    windows = source.size
    params, outer = _window_params(source.shape, windows, windows, x, window, strides,
                                   dilations)
    sk = select_kernel(xs, compare, WINDOW_SELECT[select][1], outer, len(params.words))
    first = (sk, params.pack(sk), kernels.groups_for(windows))
    threads = -(-out.size // STORAGE[os_].per_word)
    params = Params(out.size, threads)
    params.words[3] = source.offset
    axes = [a for a, n in enumerate(x.shape) if n > 1]  # a 1-long axis has one window spot
    for a in axes:
        # the first window holding p, ceil((p - (w - 1) d) / s), is (p + bias) / s - m with
        # m = ceil((w - 1) d / s): bias = m s - (w - 1) d + s - 1 keeps the dividend >= 0
        span = (window[a] - 1) * dilations[a]
        m = -(-span // strides[a])
        params.add(x.shape[a], window[a], dilations[a], strides[a], source.shape[a],
                   source.strides[a], m * strides[a] - span + strides[a] - 1, m)
    kernel = scatter_kernel(os_, add, len(axes), len(params.words))
    return first, (kernel, params.pack(kernel), kernels.groups_for(threads))


def window_scatter(dev, select, out, x, source, window, strides, dilations) -> bool:
    check_window_scatter(select, out, x, source, window, strides, dilations)
    xs, compare, os_, add = _select_exprs(select, x.dtype, out.dtype)
    if compare is None or add is None or not dev.native_ok(out, x, source):
        return False
    if out.size == 0:
        return True
    x, source = dev.unaliased(out, [x, source])
    if source.size and _disjoint(window, strides, dilations) and \
            STORAGE[os_].per_word == 1:  # each window writes its own elements: one kernel
        key = ("window_select_write", select, xs, os_, out.shape, x.strides, x.offset,
               source.strides, source.offset, tuple(window), tuple(strides), tuple(dilations))
        kernel, params, groups = _planned(dev, key, lambda: _select_write_plan(
            select, xs, compare, os_, add, out, x, source, window, strides, dilations))
        if not _covering(x.shape, window, strides, dilations, source.shape):
            dev.fill(out, 0)
        dev.launch(kernel, [x._data, source._data, out._data], params, groups)
        return True
    key = ("window_scatter", select, xs, os_, out.shape, x.strides, x.offset, source.strides,
           source.offset, tuple(window), tuple(strides), tuple(dilations))
    first, second = _planned(dev, key, lambda: _scatter_plans(
        select, xs, compare, os_, add, out, x, source, window, strides, dilations))
    chosen = dev.allocate(4 * max(1, source.size))
    if source.size:
        dev.launch(first[0], [x._data, chosen], first[1], first[2])
    dev.launch(second[0], [source._data, chosen, out._data], second[1], second[2])
    return True


# -- the family's interface (backend.FAMILIES) ----------------------------------------------------

def supports(prim: str, op: str, dt) -> bool:
    """A kernel exists for ``op`` on dtype ``dt`` (layout and size are ``run``'s; a scatter's
    source has the input's dtype here)."""
    if prim == "window_scatter":
        _, compare, _, add = _select_exprs(op, dt, dt)
        return compare is not None and add is not None
    return _expr(op, dt)[1] is not None


def capability(prim: str, dt) -> str:
    if prim == "window_scatter":
        if dt.kind == "c":
            return "n/a"  # complex numbers have no order
        applicable = tuple(WINDOW_SELECT)
    else:
        applicable = ("sum", "prod") if dt.kind == "c" else tuple(WINDOW_OPS)
    native = sum(supports(prim, op, dt) for op in applicable)
    if native == len(applicable):
        return "native"
    return "cpu" if native == 0 else f"partial ({native}/{len(applicable)} ops)"


def run(dev, prim: str, *args) -> bool:
    return (window_scatter if prim == "window_scatter" else window_reduce)(dev, *args)


__all__ = ["PRIMITIVES", "supports", "capability", "run", "window_kernel", "select_kernel",
           "scatter_kernel", "select_write_kernel"]
