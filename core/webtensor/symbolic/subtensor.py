"""Indexing: ``x[...]`` (basic and integer advanced indexing, as NumPy), ``set_subtensor``,
``inc_subtensor`` and ``take``.

An index is kept as a template: static ints and slice bounds stay Python values, symbolic
scalars and index arrays become inputs of the node.  Slice bounds must be known when the
function is traced (a value-dependent bound would give a value-dependent shape); integer
positions and index arrays may be any symbolic integers.  At run time, indices out of range
are clamped and negative ones wrap once (webtensor's rule for traced indices, as JAX); PyTensor
raises IndexError instead.
"""

from __future__ import annotations

import webtensor as wt

from . import _dtypes as _dt
from .basic import as_tensor_variable, static_value
from .graph import Apply, Op, Variable
from .type import TensorType
from .values import is_array_like
from .variable import TensorConstant


class Sym:
    """A placeholder in an index template: the node's input ``k`` (a symbolic scalar)."""

    __slots__ = ("k",)

    def __init__(self, k):
        self.k = k

    def __eq__(self, other):
        return isinstance(other, Sym) and other.k == self.k

    def __hash__(self):
        return hash(("sym", self.k))

    def __repr__(self):
        return f"${self.k}"


class Arr(Sym):
    """A placeholder for an index array (the node's input ``k``)."""

    __slots__ = ()

    def __hash__(self):
        return hash(("arr", self.k))


def _is_int(v) -> bool:
    return (isinstance(v, int) and not isinstance(v, bool)) or (
        hasattr(v, "__index__") and not isinstance(v, (bool, float)) and not
        isinstance(v, Variable) and not hasattr(v, "shape"))


def _consumed(entry) -> int:
    if entry is None or entry is Ellipsis:
        return 0
    if isinstance(entry, Variable) and entry.type.dtype == "bool":
        return entry.type.ndim
    return 1


def parse_key(x, key, fn="indexing"):
    """``key`` as (template, inputs, advanced?)."""
    if not isinstance(key, tuple):
        key = (key,)
    entries = []
    for k in key:
        if isinstance(k, (list, tuple)) or is_array_like(k) or isinstance(k, wt.Tensor):
            k = as_tensor_variable(k)
            if k.type.ndim == 0:
                k = int(k.scalar_value()) if isinstance(k, TensorConstant) else k
        elif isinstance(k, bool):
            raise IndexError(f"{fn}: a bool index ({k}) is not supported; index with ints, "
                             f"slices, None or integer arrays")
        entries.append(k)
    n_ell = sum(1 for e in entries if e is Ellipsis)
    if n_ell > 1:
        raise IndexError(f"{fn}: an index can only have a single ellipsis ('...')")
    used = sum(_consumed(e) for e in entries)
    if used > x.type.ndim:
        raise IndexError(f"{fn}: too many indices for {x} ({x.type}): {used} given for "
                         f"{x.type.ndim} dimensions")
    if n_ell:
        i = entries.index(Ellipsis)
        entries[i:i + 1] = [slice(None)] * (x.type.ndim - used)
    template, inputs, advanced = [], [], False

    def sym(v, cls=Sym):
        inputs.append(v)
        return cls(len(inputs) - 1)

    def bound(b):
        if b is None:
            return None
        v = as_tensor_variable(int(b)) if _is_int(b) else as_tensor_variable(b)
        if v.type.ndim != 0 or v.type.dtype not in _dt.INTEGER:
            raise TypeError(f"{fn}: slice bounds must be integers, got {b} ({v.type})")
        return sym(v)

    dim = 0
    for e in entries:
        if e is None:
            template.append(None)
            continue
        if isinstance(e, slice):
            if e.step == 0:
                raise ValueError(f"{fn}: slice step cannot be zero")
            template.append(slice(bound(e.start), bound(e.stop), bound(e.step)))
        elif _is_int(e):
            n = x.type.shape[dim]
            e = int(e)
            if n is not None and not -n <= e < n:
                raise IndexError(f"{fn}: index {e} is out of bounds for axis {dim} with size "
                                 f"{n} ({x}, {x.type})")
            template.append(sym(as_tensor_variable(e)))
        elif isinstance(e, Variable):
            if e.type.dtype == "bool":
                if not isinstance(e, TensorConstant):
                    raise IndexError(
                        f"{fn}: boolean mask indexing with a symbolic mask ({e}) gives a "
                        f"result whose shape depends on the mask's values, which a compiled "
                        f"webtensor program cannot have; use at.switch(mask, x, 0), or "
                        f"compute the mask outside the function")
                for idx in wt.nonzero(e.data):
                    template.append(sym(as_tensor_variable(wt.astype(idx, wt.int64)), Arr))
                advanced = True
                dim += e.type.ndim
                continue
            if e.type.dtype not in _dt.INTEGER:
                raise IndexError(f"{fn}: index arrays must be integers, got {e} ({e.type})")
            if e.type.ndim == 0:
                template.append(sym(e))
            else:
                template.append(sym(e, Arr))
                advanced = True
        else:
            raise IndexError(f"{fn}: unsupported index {e!r} ({type(e).__name__}); use ints, "
                             f"slices, None, ... and integer arrays")
        dim += 1
    return tuple(template), inputs, advanced


def _static_entry(e, inputs):
    """A template entry's value when it is known before the function runs, else None."""
    if isinstance(e, Sym):
        found = static_value(inputs[e.k])
        return int(found) if isinstance(found, int) else None
    return e


def _slice_len(s: slice, n, inputs):
    bounds = [_static_entry(b, inputs) for b in (s.start, s.stop, s.step)]
    if any(b is None and e is not None for b, e in zip(bounds, (s.start, s.stop, s.step))):
        return None
    if n is None:
        return None
    return len(range(*slice(*bounds).indices(n)))


def _result_shape(x, template, inputs, advanced):
    parts = []  # static sizes, with "ADV" where advanced indices first appear
    adv_shapes = []
    adv_pos = []
    dim = 0
    for pos, e in enumerate(template):
        if e is None:
            parts.append(1)
            continue
        n = x.type.shape[dim]
        dim += 1
        if isinstance(e, slice):
            parts.append(_slice_len(e, n, inputs))
        elif advanced and isinstance(e, Sym):
            adv_pos.append(pos)
            adv_shapes.append(inputs[e.k].type.shape)
            parts.append("ADV")
        # a basic integer index removes the axis
    parts.extend(x.type.shape[dim:])
    if not advanced:
        return tuple(parts)
    bshape = _broadcast_index_shapes(adv_shapes)
    adjacent = adv_pos == list(range(adv_pos[0], adv_pos[0] + len(adv_pos)))
    rest = []
    first = None
    for p in parts:
        if p == "ADV":
            if first is None:
                first = len(rest)
            continue
        rest.append(p)
    if adjacent:
        return tuple(rest[:first]) + bshape + tuple(rest[first:])
    return bshape + tuple(rest)


def _broadcast_index_shapes(shapes) -> tuple:
    nd = max((len(s) for s in shapes), default=0)
    out = []
    for d in range(nd):
        known = None
        all_one = True
        for s in shapes:
            s = (1,) * (nd - len(s)) + tuple(s)
            v = s[d]
            if v != 1:
                all_one = False
            if v not in (None, 1):
                if known is not None and known != v:
                    raise IndexError(f"shape mismatch: indexing arrays could not be broadcast "
                                     f"together with shapes {shapes}")
                known = v
        out.append(known if known is not None else (1 if all_one else None))
    return tuple(out)


def _entry_text(e, args):
    if isinstance(e, Sym):
        return args[e.k]
    return str(e)


def _pp_key(template, args) -> str:
    out = []
    for e in template:
        if e is None:
            out.append("None")
        elif isinstance(e, slice):
            parts = ["" if b is None else _entry_text(b, args) for b in (e.start, e.stop)]
            text = ":".join(parts)
            if e.step is not None:
                text += ":" + _entry_text(e.step, args)
            out.append(text)
        else:
            out.append(_entry_text(e, args))
    return ", ".join(out)


def _label(template) -> str:
    out = []
    for e in template:
        if e is None:
            out.append("newaxis")
        elif isinstance(e, slice):
            words = ["start" if e.start is not None else "", "stop" if e.stop is not None
                     else ""]
            text = ":".join(words)
            if e.step is not None:
                text += ":step"
            out.append(text)
        else:
            out.append("i")
    return ", ".join(out)


def build_key(ev, template, tensors, variables):
    """The concrete key for webtensor (slice bounds read as static ints)."""
    key = []
    for e in template:
        if isinstance(e, slice):
            key.append(slice(*[ev.static(variables[b.k]) if isinstance(b, Sym) else b
                               for b in (e.start, e.stop, e.step)]))
        elif isinstance(e, Sym):
            var = variables[e.k]
            if isinstance(var, TensorConstant) and var.type.ndim == 0:
                key.append(int(var.scalar_value()))  # a basic index: a view, no gather
            else:
                key.append(tensors[e.k])
        else:
            key.append(e)
    return tuple(key)


class Subtensor(Op):
    """``x[key]`` with ints, slices and None (and symbolic integer positions)."""

    __props__ = ("idx_list",)

    def __init__(self, idx_list, advanced=False):
        self.idx_list = tuple(idx_list)
        self.advanced = advanced

    def __str__(self):
        if self.advanced:
            return "AdvancedSubtensor"
        return f"Subtensor{{{_label(self.idx_list)}}}"

    def make_node(self, x, *inputs):
        shape = _result_shape(x, self.idx_list, inputs, self.advanced)
        return Apply(self, [x, *inputs], [TensorType(x.type.dtype, shape)])

    def perform(self, ev, node, inputs):
        key = build_key(ev, self.idx_list, inputs[1:], node.inputs[1:])
        return [inputs[0][key]]

    def pp(self, node, args):
        return f"{args[0]}[{_pp_key(self.idx_list, args[1:])}]"


def getitem(x, key):
    template, inputs, advanced = parse_key(x, key)
    return Subtensor(template, advanced)(x, *inputs)


class IncSubtensor(Op):
    """``x`` with ``x[key]`` replaced by ``y`` (set) or incremented by it."""

    __props__ = ("idx_list", "set_instead_of_inc", "advanced", "ignore_duplicates")

    def __init__(self, idx_list, set_instead_of_inc, advanced, ignore_duplicates):
        self.idx_list = tuple(idx_list)
        self.set_instead_of_inc = set_instead_of_inc
        self.advanced = advanced
        self.ignore_duplicates = ignore_duplicates

    def __str__(self):
        kind = "Set" if self.set_instead_of_inc else "Inc"
        if self.advanced:
            return f"Advanced{kind}Subtensor"
        return f"{kind}Subtensor{{{_label(self.idx_list)}}}"

    def make_node(self, x, y, *inputs):
        return Apply(self, [x, y, *inputs], [x.type])

    def perform(self, ev, node, inputs):
        x, y = inputs[0], inputs[1]
        key = build_key(ev, self.idx_list, inputs[2:], node.inputs[2:])
        if y.dtype != x.dtype:
            y = wt.astype(y, x.dtype)
        out = wt.astype(x, x.dtype, copy=True)
        if self.set_instead_of_inc:
            out[key] = y
            return [out]
        if not self.advanced or self.ignore_duplicates:
            out[key] = wt.add(x[key], y)
            return [out]
        # np.add.at: repeated positions add up.  The positions are read off an index grid.
        from webtensor.api._reduce import scatter

        positions = wt.reshape(wt.arange(x.size, dtype=wt.int64, device=x.device), x.shape)[key]
        n = positions.size
        flat = wt.reshape(out, (x.size,))
        updates = wt.reshape(wt.broadcast_to(y, positions.shape), (n,))
        total = scatter("add", flat, 0, wt.reshape(positions, (n,)), updates)
        return [wt.reshape(total, x.shape)]

    def pp(self, node, args):
        fn = "set_subtensor" if self.set_instead_of_inc else "inc_subtensor"
        return f"{fn}({args[0]}[{_pp_key(self.idx_list, args[2:])}], {args[1]})"


def inc_subtensor(x, y, inplace=False, set_instead_of_inc=False,
                  tolerate_inplace_aliasing=False, ignore_duplicates=False):
    """``x`` (the result of indexing some ``base[key]``) turned into ``base`` with that
    region incremented by ``y`` (``np.add.at``: repeated indices add up, unless
    ``ignore_duplicates``), or set to ``y``."""
    fn = "set_subtensor" if set_instead_of_inc else "inc_subtensor"
    if not isinstance(x, Variable) or x.owner is None or not isinstance(x.owner.op, Subtensor):
        raise TypeError(f"{fn}: x must be the result of a subtensor operation (base[key]), got "
                        f"{x!r}")
    node = x.owner
    base = node.inputs[0]
    op = node.op
    y = as_tensor_variable(y)
    if y.type.ndim > x.type.ndim:
        raise ValueError(f"{fn}: y ({y}, {y.type}) has more dimensions than the region "
                         f"{x} ({x.type})")
    lead = x.type.ndim - y.type.ndim
    for d, ys in enumerate(y.type.shape):
        xs = x.type.shape[lead + d]
        if ys not in (None, 1) and xs is not None and ys != xs:
            raise ValueError(f"{fn}: y ({y}, {y.type}) does not broadcast to the region "
                             f"{x} ({x.type}): size {ys} against {xs} in axis {lead + d}")
    if y.type.dtype != base.type.dtype:
        from .basic import cast

        if y.type.dtype in _dt.COMPLEX and base.type.dtype not in _dt.COMPLEX:
            raise TypeError(f"{fn}: cannot put complex values {y} into {base} "
                            f"({base.type.dtype})")
        y = cast(y, base.type.dtype)
    return IncSubtensor(op.idx_list, set_instead_of_inc, op.advanced, ignore_duplicates)(
        base, y, *node.inputs[1:])


def set_subtensor(x, y, inplace=False, tolerate_inplace_aliasing=False):
    """``base`` with the region ``x = base[key]`` replaced by ``y`` (``r[10:] = 5`` is
    ``set_subtensor(r[10:], 5)``)."""
    return inc_subtensor(x, y, inplace, set_instead_of_inc=True,
                         tolerate_inplace_aliasing=tolerate_inplace_aliasing)


def take(a, indices, axis=None, mode="raise"):
    """Elements of ``a`` at ``indices`` along ``axis`` (of the flattened ``a`` if None);
    ``mode`` 'wrap' and 'clip' first bring the indices into range."""
    from .basic import flatten
    from .math import clip as _clip
    from .math import mod as _mod

    a = as_tensor_variable(a)
    indices = as_tensor_variable(indices)
    if axis is None:
        a = flatten(a)
        axis = 0
    if not -a.type.ndim <= axis < a.type.ndim:
        raise ValueError(f"take: axis {axis} is out of range for {a} ({a.type})")
    axis %= a.type.ndim
    if mode in ("wrap", "clip"):
        n = a.shape[axis]
        indices = _mod(indices, n) if mode == "wrap" else _clip(indices, 0, n - 1)
    elif mode != "raise":
        raise ValueError(f"take: mode must be 'raise', 'wrap' or 'clip', got {mode!r}")
    return a[(slice(None),) * axis + (indices,)]
