"""The window kernel family: ``window_reduce`` (sum, prod, max, min over sliding windows) as one
WGSL kernel, ``shaders/window.wgsl``.

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
"""

from __future__ import annotations

from functools import lru_cache

from ..base import WINDOW_OPS, check_window
from . import exprs, kernels
from .kernels import STORAGE, STORAGE_OF, Kernel, Params

PRIMITIVES = ("window_reduce",)
_PLANS_MAX = 4096  # as the elementwise family: the device's plans dropped all at once

# The storages that compute in a wider type and round when stored: the fold rounds after each
# step (the integer storages need nothing: add/multiply wrap alike, max/min stay in range).
_ROUND = {"f16": "f16_bits_to_f32(f32_to_f16_bits({v}))",
          "bf16": "bf16_bits_to_f32(f32_to_bf16_bits({v}))"}


def _storage_body(storage: str) -> str:
    """The main function's body: output word(s) ``t`` from ``window_value``."""
    s = STORAGE[storage]
    if s.words > 1:
        parts = "xyzw"[:s.words]
        lines = [f"let r = {s.store.format(v='window_value(t)')};",
                 *(f"out0[{s.words}u * t + {k}u] = r.{c};" for k, c in enumerate(parts))]
    elif s.per_word == 1:
        lines = [f"out0[t] = {s.store.format(v='window_value(t)')};"]
    else:
        lines = ["var word = 0u;",
                 f"for (var j = 0u; j < {s.per_word}u; j = j + 1u) {{",
                 f"    let i = t * {s.per_word}u + j;",
                 "    if (i < prm(1u)) {",
                 f"        word = word | ({s.store.format(v='window_value(i)')} << "
                 f"(j * {s.bits}u));",
                 "    }",
                 "}",
                 "out0[t] = word;"]
    return "\n".join("    " + line for line in lines)


def _loops(outer: int) -> str:
    """Nested loops over ``outer`` window dims around the innermost one (offsets ``o1``...)."""
    lines, pad = [], "    "
    for d in range(1, outer + 1):
        lines += [f"{pad}for (var k{d} = 0u; k{d} < prm(base + {2 * d}u); k{d} = k{d} + 1u) {{",
                  f"{pad}    let o{d} = o{d - 1} + i32(k{d}) * prm_i(base + {2 * d + 1}u);"]
        pad += "    "
    lines += [f"{pad}var off = o{outer} + i32(j0) * step;",
              f"{pad}for (var j = j0; j < inner; j = j + 1u) {{",
              f"{pad}    acc = op(acc, load_x(u32(off)));",
              f"{pad}    off += step;",
              f"{pad}}}",
              f"{pad}j0 = 0u;"]
    for _ in range(outer):
        pad = pad[:-4]
        lines.append(f"{pad}}}")
    return "\n".join(lines)


@lru_cache(maxsize=128)
def window_kernel(storage: str, expr: str, outer: int, slots: int) -> Kernel:
    """The kernel folding with ``expr`` on ``storage`` over windows of ``outer`` + 1 dims."""
    fold = _ROUND.get(storage, "{v}").format(v=f"({expr})")
    s = STORAGE[storage]
    return kernels.render("window", 1, 1, slots, elem=s.wgsl_type, fold=fold,
                          load=s.load.format(buf="in0", idx="idx"), loops=_loops(outer),
                          body=_storage_body(storage))


def _expr(op: str, dt) -> tuple[str | None, str | None]:
    storage = STORAGE_OF.get(dt)
    return storage, exprs.binary(WINDOW_OPS[op], storage) if op in WINDOW_OPS else None


def _plan(storage: str, expr: str, out, x, window, strides, dilations) -> tuple:
    """(kernel, packed parameters, workgroups) of one window reduction."""
    origin_steps = [st * s for st, s in zip(x.strides, strides)]
    shape, (origins,) = kernels.collapse(out.shape, [origin_steps])
    wshape, (wsteps,) = kernels.collapse(window, [[st * d for st, d in zip(x.strides,
                                                                           dilations)]])
    if not wshape:  # a window of one element: a strided copy
        wshape, wsteps = (1,), (0,)
    threads = -(-out.size // STORAGE[storage].per_word)
    params = Params(out.size, threads, shape, [(x.offset, origins)])
    params.add(wshape[-1], wsteps[-1])
    for n, step in zip(wshape[:-1], wsteps[:-1]):
        params.add(n, step)
    kernel = window_kernel(storage, expr, len(wshape) - 1, len(params.words))
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
    plans = dev.plans
    found = plans.get(key)
    if found is None:
        found = _plan(storage, expr, out, x, window, strides, dilations)
        if len(plans) >= _PLANS_MAX:
            plans.clear()
        plans[key] = found
    dev.launch(found[0], [x._data, out._data], found[1], found[2])
    return True


# -- the family's interface (backend.FAMILIES) ----------------------------------------------------

def supports(prim: str, op: str, dt) -> bool:
    """A kernel exists for ``op`` on dtype ``dt`` (layout and size are ``run``'s)."""
    return _expr(op, dt)[1] is not None


def capability(prim: str, dt) -> str:
    applicable = ("sum", "prod") if dt.kind == "c" else tuple(WINDOW_OPS)
    native = sum(supports(prim, op, dt) for op in applicable)
    if native == len(applicable):
        return "native"
    return "cpu" if native == 0 else f"partial ({native}/{len(applicable)} ops)"


def run(dev, prim: str, *args) -> bool:
    return window_reduce(dev, *args)


__all__ = ["PRIMITIVES", "supports", "capability", "run", "window_kernel"]
