"""The elementwise kernel family: copy, assign, fill, iota, cast, unary, binary and where.

Each primitive is one map kernel (``shaders/map.wgsl`` around an expression from ``exprs.py``)
over views collapsed to their fewest dims; the packed parameters and workgroup count of a
dispatch depend only on (op, dtypes, layout), so they are planned once and cached per device.
``supports`` answers what runs here for a dtype; ``run`` returns False for anything else (the
device routes it to the CPU).
"""

from __future__ import annotations

from ... import dtypes as _d
from ... import ops as _ops
from . import exprs, kernels
from .allocator import is_constant
from .kernels import RAW, STORAGE_OF, Params

PRIMITIVES = ("copy", "assign", "fill", "iota", "cast", "unary", "binary", "where")
_PLANS_MAX = 4096  # cached elementwise dispatch plans (dropped all at once when full)

# iota natively: the element index is ``i``; parameters from slot 4 (see ``_iota``).
_IOTA_U32 = "prm(4u) + i * prm(6u)"
_IOTA_WRAP = {
    **dict.fromkeys(("u8", "u16", "u32"), _IOTA_U32),
    **dict.fromkeys(("i8", "i16", "i32"), f"bitcast<i32>({_IOTA_U32})"),
    **dict.fromkeys(("i64", "u64"), "add_u64(vec2<u32>(prm(4u), prm(5u)), "
                                    "mul_u64(vec2<u32>(i, 0u), vec2<u32>(prm(6u), prm(7u))))"),
}
_IOTA_FLOAT = dict.fromkeys(("f32", "f16", "bf16"),
                            "i32_to_f32(bitcast<i32>(prm(4u) + i * prm(5u)))")


# -- what runs here -----------------------------------------------------------------------------

def supports(prim: str, op, dt, out_dt=None) -> bool:
    """A kernel exists for ``prim`` (``op``) on input dtype ``dt`` (``out_dt``: a cast's
    target).  Layout and size conditions are ``run``'s."""
    t = STORAGE_OF.get(dt)
    if prim in ("copy", "assign", "fill"):
        return True  # raw bits: every element size
    if prim == "where":
        return dt.itemsize in RAW
    if prim == "iota":
        return t in _IOTA_WRAP or t in _IOTA_FLOAT
    if prim == "cast":
        return exprs.cast(t, STORAGE_OF.get(out_dt)) is not None
    lookup = exprs.unary if prim == "unary" else exprs.binary
    return lookup(op, t) is not None


def capability(prim: str, dt) -> str:
    """The capabilities() entry of ``prim`` for dtype ``dt``."""
    t = STORAGE_OF.get(dt)
    if prim == "iota":
        return ("native" if t in _IOTA_WRAP else
                "partial (integer values below 2**24)" if t in _IOTA_FLOAT else "cpu")
    if prim == "cast":
        if t is None:
            return "cpu"
        targets = [u for u in STORAGE_OF if u is not dt]
        native = sum(supports("cast", None, dt, u) for u in targets)
        return "native" if native == len(targets) else \
            f"partial ({native}/{len(targets)} targets)"
    if prim in ("unary", "binary"):
        ops = _ops.UNARY if prim == "unary" else _ops.BINARY
        applicable = [op.name for op in ops if dt.kind in op.kinds
                      and not (op.result == "float" and dt.kind in "biu")]
        if not applicable:
            return "n/a"
        native = sum(supports(prim, name, dt) for name in applicable)
        if native == len(applicable):
            return "native"
        return "cpu" if native == 0 else f"partial ({native}/{len(applicable)} ops)"
    return "native" if supports(prim, None, dt) else "cpu"


# -- the primitives ----------------------------------------------------------------------------

def run(dev, prim: str, *args) -> bool:
    return _RUN[prim](dev, *args)


def _copy(dev, out, x) -> bool:
    if out.size == 0:
        return True
    if not dev.fresh(out):
        dev.assign(out, x)
        return True
    eb = x.dtype.itemsize
    if not dev.fits(out, x):
        return False
    if eb <= 8:  # (8-byte elements as vec2<u32>: four per invocation where contiguous)
        _map(dev, "a", out, [x], [RAW[eb]], RAW[eb])
        return True
    x = dev.unaliased(out, [x])[0]
    words = eb // 4
    shape, (st,) = kernels.collapse(x.shape, [x.strides])
    slots = 4 + 2 * len(shape) + 1
    kernel = kernels.copy_wide_kernel(words, kernels.is_contiguous_1d(shape, st), slots)
    threads = out.size * words
    dev.launch(kernel, [x._data, out._data], Params(out.size, threads, shape, [(x.offset, st)]),
               kernels.groups_for(threads))
    return True


def _assign(dev, target, x) -> bool:
    n = target.size
    if n == 0:
        return True
    if not dev.fits(target, x):
        return False
    x = dev.unaliased(target, [x])[0]
    eb = target.dtype.itemsize
    shape, (sx, st) = kernels.collapse(target.shape, [x.strides, target.strides])
    contiguous_src = kernels.is_contiguous_1d(shape, sx)
    if eb >= 4:
        contiguous_dst = kernels.is_contiguous_1d(shape, st)
        if not contiguous_dst and st and _inverse_view(shape, st, target.offset) is None:
            # a target that overlaps itself (a zero stride...): GPU threads would race for
            # the shared elements (and tear 8-byte ones), the CPU writes them in order
            return False
        words = eb // 4
        src, dst = x.offset * words, target.offset * words  # in words
        if contiguous_src and contiguous_dst and not (src | dst | n * words) & 3 \
                and not (x._data.size | target._data.size) & 15:
            # one contiguous run of whole vec4s into another (concat's pieces): vec4 copies
            params = Params(n, n * words // 4)
            params.add(src // 4, dst // 4)
            dev.launch(kernels.copy_vec4_kernel(), [x._data, target._data], params,
                       kernels.map_groups(n * words // 4))
            return True
        slots = 4 + len(shape) + 2 * (len(shape) + 1)
        kernel = kernels.assign_kernel(words, contiguous_src, contiguous_dst, slots)
        params = Params(n, n * words, shape, [(x.offset, sx), (target.offset, st)])
        dev.launch(kernel, [x._data, target._data], params, kernels.groups_for(n * words))
        return True
    inverse = _inverse_view(shape, st, target.offset)
    if inverse is None:
        return False
    first, span, dims = inverse
    per = 4 // eb
    first_word = first // per
    threads = (first + span - 1) // per - first_word + 1
    params = Params(n, threads, shape, [(x.offset, sx)])
    params.add(first, span, first_word, len(dims))
    for d in dims:
        params.add(*d)
    kernel = kernels.assign_packed_kernel(RAW[eb], contiguous_src, len(params.words))
    dev.launch(kernel, [x._data, target._data], params, kernels.groups_for(threads))
    return True


def _fill(dev, out, value) -> bool:
    if out.size == 0:
        return True
    if not dev.native_ok(out):
        return False
    pattern = dev.cpu_bytes(out.dtype, [value])
    if len(pattern) < 4:
        pattern = pattern * (4 // len(pattern))
    words = [int.from_bytes(pattern[i:i + 4], "little") for i in range(0, len(pattern), 4)]
    total = -(-out.size * out.dtype.itemsize // 4)
    vectors = -(-total // 4)
    params = Params(out.size, vectors)
    params.add(*(words * (4 // len(words))), total)
    dev.launch(kernels.fill_vec4_kernel(), [out._data], params, kernels.map_groups(vectors))
    return True


def _iota(dev, out, start, step) -> bool:
    storage = STORAGE_OF.get(out.dtype)
    ints = all(isinstance(v, int) and not isinstance(v, bool) for v in (start, step))
    if ints and storage in _IOTA_WRAP and dev.native_ok(out):
        # integers: start + i * step modulo 2**64, the low bits kept (as on the CPU)
        if out.size:
            params = Params(out.size, -(-out.size // kernels.STORAGE[storage].per_word))
            params.add(start & 0xFFFFFFFF, (start >> 32) & 0xFFFFFFFF, step & 0xFFFFFFFF,
                       (step >> 32) & 0xFFFFFFFF)
            _map_index(dev, _IOTA_WRAP[storage], out, storage, params)
        return True
    if storage in _IOTA_FLOAT and _exact_in_f32(start, step, out.size) and dev.native_ok(out):
        # floats: the CPU rounds start + i * step (float64) once; when every value is an
        # integer below 2**24 float32 computes it exactly, so rounding once agrees
        if out.size:
            params = Params(out.size, -(-out.size // kernels.STORAGE[storage].per_word))
            params.add(int(start) & 0xFFFFFFFF, int(step) & 0xFFFFFFFF)
            _map_index(dev, _IOTA_FLOAT[storage], out, storage, params)
        return True
    return False


def _cast(dev, out, x) -> bool:
    if x.dtype is out.dtype:
        dev.copy(out, x)
        return True
    if not supports("cast", None, x.dtype, out.dtype) or not dev.native_ok(out, x):
        return False
    if out.size:
        src, dst = STORAGE_OF[x.dtype], STORAGE_OF[out.dtype]
        _map(dev, exprs.cast(src, dst), out, [x], [src], dst)
    return True


def _unary(dev, op, out, x) -> bool:
    t, dst = STORAGE_OF.get(x.dtype), STORAGE_OF.get(out.dtype)
    expr = exprs.unary(op, t)
    if expr is not None and dst is not None and dev.native_ok(out, x):
        if out.size:
            _map(dev, expr, out, [x], [t], dst)
        return True
    if op not in _ops.ELEMENTWISE:
        raise ValueError(f"unary: unknown op {op!r}")
    return False


def _binary(dev, op, out, a, b) -> bool:
    t, dst = STORAGE_OF.get(a.dtype), STORAGE_OF.get(out.dtype)
    expr = exprs.binary(op, t)
    if expr is not None and dst is not None and b.dtype is a.dtype \
            and dev.native_ok(out, a, b):
        if out.size:
            _map(dev, expr, out, [a, b], [t, t], dst)
        return True
    if op not in _ops.ELEMENTWISE:
        raise ValueError(f"binary: unknown op {op!r}")
    return False


def _where(dev, out, cond, a, b) -> bool:
    eb = out.dtype.itemsize
    if not (eb in RAW and cond.dtype is _d.bool and dev.native_ok(out, cond, a, b)):
        return False
    if out.size:
        _map(dev, exprs.WHERE, out, [cond, a, b], ["bool", RAW[eb], RAW[eb]], RAW[eb])
    return True


_RUN = {"copy": _copy, "assign": _assign, "fill": _fill, "iota": _iota, "cast": _cast,
        "unary": _unary, "binary": _binary, "where": _where}


# -- map kernels: out = expr(inputs) --------------------------------------------------------------

def _map(dev, expr: str, out, inputs, storages, out_storage: str) -> None:
    """``out = expr(inputs)`` elementwise; ``out`` fresh, inputs any views of its shape.
    Constants (scalar operands kept on the host) go in the parameters, not in a buffer."""
    out_data = out._data
    buffers = []
    values = b""
    key = ["map", expr, out_storage, out.shape, *storages]
    for t in inputs:
        data = t._data
        if data is out_data:
            return _map(dev, expr, out, dev.unaliased(out, inputs), storages, out_storage)
        if is_constant(t):
            values += data.host
            key.append(None)  # where a buffer operand has its strides and offset
        else:
            buffers.append(data)
            key += (t.strides, t.offset)
    buffers.append(out_data)
    # Everything below depends only on the key: the kernel, the packed parameters and the
    # workgroup count are built once per (op, dtypes, layout).
    key = tuple(key)
    plans = dev.plans
    found = plans.get(key)
    if found is None:
        found = _map_plan(expr, out, inputs, storages, out_storage)
        if len(plans) >= _PLANS_MAX:
            plans.clear()
        plans[key] = found
    params = found[1]
    if values:  # the constants' words, where the plan left room for them
        if values == found[4]:  # the same constants as last time (x * 2.0 in a loop)
            params = found[5]
        else:
            at = found[3]
            params = found[5] = params[:at] + values + params[at + len(values):]
            found[4] = values
    dev.launch(found[0], buffers, params, found[2])


def _map_plan(expr: str, out, inputs, storages, out_storage: str) -> list:
    """[kernel, packed parameters, workgroups, byte offset of the constants' words, the last
    constants' words, the parameters with them] of ``_map``'s dispatch."""
    n = out.size
    shape, strides = kernels.collapse(out.shape, [t.strides for t in inputs])
    constant = [is_constant(t) for t in inputs]
    modes = tuple((s, kernels.PARAM if c else kernels.index_mode(shape, st))
                  for s, st, c in zip(storages, strides, constant))
    slots = 4 + len(shape) + len(inputs) * (len(shape) + 1)
    values_at = 4 * slots
    slots += sum(kernels.STORAGE[s].words for s, c in zip(storages, constant) if c)
    operands = [(t.offset, st) for t, st in zip(inputs, strides)]
    kinds = _vec4_kinds(n, shape, strides, inputs, storages, out_storage, constant)
    if kinds is not None:
        threads = n // kernels.LANES
        kernel = kernels.map_vec4_kernel(
            expr, out_storage, tuple((s, m, k) for (s, m), k in zip(modes, kinds)), slots,
            len(shape))
        packed = Params(n, threads, shape, operands).pack(kernel)
        return [kernel, packed, kernels.vec4_groups(threads), values_at, None, packed]
    threads = -(-n // kernels.STORAGE[out_storage].per_word)
    kernel = kernels.map_kernel(expr, out_storage, modes, slots, ndim=len(shape))
    packed = Params(n, threads, shape, operands).pack(kernel)
    return [kernel, packed, kernels.map_groups(threads), values_at, None, packed]


def _vec4_kinds(n: int, shape, strides, inputs, storages, out_storage: str, constant):
    """Each input's ``kernels.vec4_kind`` when the map can run four elements per invocation."""
    if n % kernels.LANES or not shape or out_storage not in kernels.VEC4_STORAGES:
        return None
    if any(s not in kernels.VEC4_STORAGES for s in storages):
        return None
    kinds = [kernels.PARAM if c else kernels.vec4_kind(shape, st, t.offset)
             for t, st, c in zip(inputs, strides, constant)]
    return None if None in kinds else kinds


def _map_index(dev, expr: str, out, out_storage: str, params: Params) -> None:
    """``out[i] = expr(i)`` for a fresh ``out`` (``expr`` reads its parameters itself)."""
    threads = params.words[2]
    kernel = kernels.map_kernel(expr, out_storage, (), len(params.words), index_arg=True)
    dev.launch(kernel, [out._data], params, kernels.map_groups(threads))


def _exact_in_f32(start, step, n: int) -> bool:
    """Every value of ``start + i * step`` (i < n) is an integer of magnitude < 2**24."""
    values = (start, step)
    if any(isinstance(v, bool) or not isinstance(v, (int, float)) for v in values):
        return False
    if any(isinstance(v, float) and not v.is_integer() for v in values):
        return False
    first, last = int(start), int(start) + int(step) * max(n - 1, 0)
    return max(abs(first), abs(last)) < 1 << 24


def _inverse_view(shape, strides, offset):
    """For a packed-target assignment: (first element, span, dims) where dims are
    (|stride|, size, flipped, C-order multiplier) sorted by |stride|, or None when the view's
    dims are not nested (each |stride| larger than the extent of the smaller ones)."""
    cmul = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        cmul[d] = cmul[d + 1] * shape[d + 1]
    first = offset + sum((n - 1) * s for n, s in zip(shape, strides) if s < 0)
    dims = sorted(((abs(s), n, int(s < 0), m) for n, s, m in zip(shape, strides, cmul)),
                  reverse=True)
    extent = 0
    for step, n, _flip, _m in reversed(dims):
        if step == 0 or step <= extent:
            return None
        extent += (n - 1) * step
    return first, extent + 1, dims
