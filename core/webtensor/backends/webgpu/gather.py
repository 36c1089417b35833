"""Native gather and scatter for the WebGPU backend (``WebGPUBackend.gather``/``scatter``).

Gather (``shaders/gather.wgsl``) moves raw bits, so every dtype runs natively: one invocation per
output word (1- and 2-byte elements packed four or two to a word, 8- and 16-byte ones spread
over several words).

Scatter must equal the CPU device bit for bit whatever order invocations run in, so no pass
does a racy read-modify-write:

* ``set`` (last update wins, any dtype): the update pass takes ``atomicMax`` of ``i + 1`` into a
  "winners" buffer (one u32 per element of ``out``); then one invocation per element (or per
  word of packed dtypes) copies its winning update.
* ``add``/``min``/``max`` on int32/uint32 and ``or``/``and`` on bool are integer atomics straight
  into ``out`` (wrapping adds commute).
* float32 ``min``/``max`` take ``atomicMax``/``Min`` of order-preserving integer keys (NaN gets
  the extreme key, as the CPU's ``_float_keys``) into a keys buffer, then touched elements
  combine with their current value and decode (NaN results are the canonical quiet NaN).
* float32 ``add`` is routed: the CPU sums each target's updates in order in float64.
"""

from __future__ import annotations

from functools import lru_cache
from string import Template

from ... import dtypes as _d
from ...tensor import Tensor
from . import kernels
from .kernels import Kernel, Params
from .matmul import header

_MASK = {1: "0xffu", 2: "0xffffu"}
NAN_KEY = {"max": "2147483647", "min": "(-2147483647 - 1)"}
# Keys buffer start value: never the key of a non-NaN float, nor the NaN key of that op.
_UNTOUCHED = {"max": -(1 << 31), "min": (1 << 31) - 1}


def _render(template: str, inputs, outputs, slots: int, **fields) -> Kernel:
    head, uniform = header(inputs, outputs, slots)
    text = Template(kernels.source(template)).substitute(header=head, wg=kernels.WORKGROUP,
                                                         **fields)
    return Kernel(kernels._with_libraries(text), len(inputs), len(outputs), uniform)


def _indent(lines) -> str:
    return "\n".join("    " + line for line in lines)


def _threads(itemsize: int, n: int) -> int:
    """Invocations for ``n`` elements: one per output word."""
    return n * (itemsize // 4) if itemsize >= 4 else -(-n // (4 // itemsize))


# -- gather ---------------------------------------------------------------------------------------

@lru_cache(maxsize=64)
def gather_kernel(itemsize: int, slots: int) -> Kernel:
    if itemsize >= 4:
        w = itemsize // 4
        body = [f"let e = t / {w}u;",
                f"out0[t] = in1[source_index(e) * {w}u + t % {w}u];"]
    else:
        per, bits = 4 // itemsize, 8 * itemsize
        body = ["var word = 0u;",
                f"for (var j = 0u; j < {per}u; j = j + 1u) {{",
                f"    let e = t * {per}u + j;",
                "    if (e < prm(1u)) {",
                "        let s = source_index(e);",
                f"        let v = (in1[s / {per}u] >> ((s % {per}u) * {bits}u)) & {_MASK[itemsize]};",
                f"        word = word | (v << (j * {bits}u));",
                "    }",
                "}",
                "out0[t] = word;"]
    return _render("gather", ["u32", "u32"], ["u32"], slots, words=max(1, itemsize // 4),
                   body=_indent(body))


def _check_shapes(fn: str, big_shape, small_shape, axis: int, big: str, small: str) -> None:
    if len(big_shape) != len(small_shape):
        raise ValueError(f"{fn}: {small} shape {small_shape} and {big} shape {big_shape} need "
                         f"the same number of dimensions")
    for d, (nb, ns) in enumerate(zip(big_shape, small_shape)):
        if d != axis and ns > nb and not (fn == "gather" and nb == 1):
            raise ValueError(f"{fn}: {big} has {nb} elements along axis {d}, the {small} need "
                             f"{ns}")


def gather(backend, out, x, axis: int, indices) -> None:
    """``out = take_along_axis(x, indices, axis)``; ``out`` fresh, ``indices`` int64 with
    ``out``'s shape, ``x`` any view (size-1 dims broadcast, longer ones are cut)."""
    if tuple(indices.shape) != tuple(out.shape):
        raise ValueError(f"gather: indices shape {indices.shape} != out shape {out.shape}")
    _check_shapes("gather", x.shape, out.shape, axis, "x", "indices")
    if out.size == 0:
        return
    x_strides = [0 if d == axis or (nx == 1 and no != 1) else s
                 for d, (nx, no, s) in enumerate(zip(x.shape, out.shape, x.strides))]
    shape, (si, sx) = kernels.collapse(out.shape, [indices.strides, x_strides])
    params = Params(out.size, _threads(out.dtype.itemsize, out.size), shape,
                    [(indices.offset, si), (x.offset, sx)])
    params.add(x.strides[axis], x.shape[axis])
    kernel = gather_kernel(out.dtype.itemsize, len(params.words))
    threads = params.words[2]
    backend._dispatch(kernel, [indices._data, x._data, out._data], params, threads)


# -- scatter --------------------------------------------------------------------------------------

def _update_body(kind: str, op: str) -> tuple[list[str], str]:
    """The update pass for ``kind`` ("winner", "i32", "u32", "bool", "key") and ``op``:
    WGSL lines and the atomic's type."""
    load = "in1[strided_index(i, 1u)]"
    if kind == "winner":
        return ["atomicMax(&out0[target_position(i)], i + 1u);"], "u32"
    if kind in ("i32", "u32"):
        fn = {"add": "atomicAdd", "max": "atomicMax", "min": "atomicMin"}[op]
        value = load if kind == "u32" else f"bitcast<i32>({load})"
        return [f"{fn}(&out0[target_element(i)], {value});"], kind
    if kind == "bool":
        # or (add, max) sets the target byte where the update is true; and (min) clears it
        # where the update is false.  Other bytes of the word are untouched.
        test, call = (("!= 0u", "atomicOr(&out0[e >> 2u], 1u << ((e & 3u) * 8u));")
                      if op in ("add", "max") else
                      ("== 0u", "atomicAnd(&out0[e >> 2u], ~(0xffu << ((e & 3u) * 8u)));"))
        return ["let s = strided_index(i, 1u);",
                f"if (((in1[s >> 2u] >> ((s & 3u) * 8u)) & 0xffu) {test}) {{",
                "    let e = target_element(i);",
                f"    {call}",
                "}"], "u32"
    fn = "atomicMax" if op == "max" else "atomicMin"
    return [f"let v = bitcast<f32>({load});",
            f"let k = select(f32_key(v), {NAN_KEY[op]}, is_nan_f32(v));",
            f"{fn}(&out0[target_position(i)], k);"], "i32"


@lru_cache(maxsize=64)
def scatter_update_kernel(kind: str, op: str, slots: int) -> Kernel:
    body, atomic = _update_body(kind, op)
    inputs = ["u32"] if kind == "winner" else ["u32", "u32"]
    what = f"This one: {kind} {op}."
    return _render("scatter", inputs, [f"atomic<{atomic}>"], slots, what=what, atomic=atomic,
                   body=_indent(body))


@lru_cache(maxsize=64)
def scatter_apply_kernel(kind: str, itemsize: int, op: str, slots: int) -> Kernel:
    """The pass over out: ``kind`` "set" (copy winners; ``itemsize`` bytes) or "key"."""
    if kind == "key":
        combine = "max" if op == "max" else "min"
        nan = NAN_KEY[op]
        body = ["let k = bitcast<i32>(in0[t]);",
                f"if (k != {_UNTOUCHED[op]}) {{",
                "    let e = strided_index(t, 0u);",
                "    let current = bitcast<f32>(out0[e]);",
                f"    let r = {combine}(k, select(f32_key(current), {nan}, is_nan_f32(current)));",
                f"    out0[e] = select(bitcast<u32>(f32_from_key(r)), 0x7fc00000u, r == {nan});",
                "}"]
        inputs = ["u32"]
    elif itemsize >= 4:
        w = itemsize // 4
        body = [f"let p = t / {w}u;",
                f"let part = t % {w}u;",
                "let w = in0[p];",
                "if (w != 0u) {",
                f"    out0[strided_index(p, 0u) * {w}u + part] = "
                f"in1[(extra(0u) + w - 1u) * {w}u + part];",
                "}"]
        inputs = ["u32", "u32"]
    else:
        per, bits, mask = 4 // itemsize, 8 * itemsize, _MASK[itemsize]
        # out is contiguous here: buffer element e is position e - offset; each invocation
        # owns one whole word of out's buffer.
        body = ["let word_index = extra(2u) + t;",
                "var word = out0[word_index];",
                f"for (var j = 0u; j < {per}u; j = j + 1u) {{",
                f"    let e = word_index * {per}u + j;",
                "    let p = e - extra(1u);",
                "    if (e >= extra(1u) && p < prm(1u)) {",
                "        let w = in0[p];",
                "        if (w != 0u) {",
                "            let s = extra(0u) + w - 1u;",
                f"            let v = (in1[s / {per}u] >> ((s % {per}u) * {bits}u)) & {mask};",
                f"            word = (word & ~({mask} << (j * {bits}u))) | (v << (j * {bits}u));",
                "        }",
                "    }",
                "}",
                "out0[word_index] = word;"]
        inputs = ["u32", "u32"]
    what = f"This one: {kind} ({itemsize}-byte elements)."
    return _render("scatter_apply", inputs, ["u32"], slots, what=what, body=_indent(body))


def scatter_kind(op: str, dtype) -> str | None:
    """How ``scatter(op)`` on ``dtype`` runs natively, or None (routed to the CPU)."""
    if op not in ("set", "add", "min", "max"):
        return None
    if op == "set":
        return "winner" if dtype.itemsize in (1, 2, 4, 8, 16) else None
    if dtype in (_d.int32, _d.uint32):
        return "i32" if dtype is _d.int32 else "u32"
    if dtype is _d.bool:
        return "bool"
    if dtype is _d.float32 and op in ("max", "min"):
        return "key"
    return None


def scatter(backend, op: str, out, axis: int, indices, updates) -> None:
    """In place on the view ``out``: scatter ``updates`` (``indices``' shape, ``out``'s
    dtype) along ``axis`` at ``indices`` (int64) with ``op``; ``scatter_kind`` must allow it."""
    if tuple(updates.shape) != tuple(indices.shape):
        raise ValueError(f"scatter: updates shape {updates.shape} != indices shape "
                         f"{indices.shape}")
    _check_shapes("scatter", out.shape, indices.shape, axis, "out", "indices")
    if indices.size == 0 or out.size == 0:
        return
    kind = scatter_kind(op, out.dtype)
    updates = backend._unaliased(out, [updates])[0]
    out_strides = [0 if d == axis else s for d, s in enumerate(out.strides)]
    c_strides = [0] * out.ndim
    step = 1
    for d in range(out.ndim - 1, -1, -1):
        c_strides[d] = 0 if d == axis else step
        step *= out.shape[d]
    c_axis = _c_stride(out.shape, axis)
    shape, (si, su, so, sc) = kernels.collapse(indices.shape, [indices.strides, updates.strides,
                                                                out_strides, c_strides])
    params = Params(indices.size, indices.size, shape,
                    [(indices.offset, si), (updates.offset, su), (out.offset, so), (0, sc)])
    params.add(out.strides[axis], c_axis, out.shape[axis])
    update = scatter_update_kernel(kind, op, len(params.words))
    if kind in ("i32", "u32", "bool"):
        backend._dispatch(update, [indices._data, updates._data, out._data], params,
                          indices.size)
        return
    untouched = 0 if kind == "winner" else _UNTOUCHED[op]
    work = _work_buffer(backend, out.device, out.size, untouched)
    inputs = [indices._data] if kind == "winner" else [indices._data, updates._data]
    backend._dispatch(update, [*inputs, work._data], params, indices.size)
    _apply(backend, kind, op, out, updates, work)


def _c_stride(shape, axis: int) -> int:
    n = 1
    for size in shape[axis + 1:]:
        n *= size
    return n


def _work_buffer(backend, device, n: int, value: int) -> Tensor:
    """A fresh int32 tensor of ``n`` words, each ``value`` (the winners/keys buffer)."""
    t = Tensor._wrap(backend.alloc(_d.int32, n), (n,), _d.int32, device)
    backend.fill(t, value)
    return t


def _apply(backend, kind: str, op: str, out, updates, work) -> None:
    eb = out.dtype.itemsize
    if kind == "key":
        shape, (so,) = kernels.collapse(out.shape, [out.strides])
        params = Params(out.size, out.size, shape, [(out.offset, so)])
        kernel = scatter_apply_kernel("key", 4, op, len(params.words))
        backend._dispatch(kernel, [work._data, out._data], params, out.size)
        return
    if not updates.is_contiguous:
        updates = backend._materialize(updates)
    if eb >= 4:
        shape, (so,) = kernels.collapse(out.shape, [out.strides])
        threads = out.size * (eb // 4)
        params = Params(out.size, threads, shape, [(out.offset, so)])
        params.add(updates.offset)
    else:
        per = 4 // eb
        first_word = out.offset // per
        threads = (out.offset + out.size - 1) // per - first_word + 1
        params = Params(out.size, threads, (), [(out.offset, ())])
        params.add(updates.offset, out.offset, first_word)
    kernel = scatter_apply_kernel("set", eb, op, len(params.words))
    backend._dispatch(kernel, [work._data, updates._data, out._data], params, threads)
