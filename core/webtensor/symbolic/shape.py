"""Shapes as graph values: ``x.shape`` (an int64 vector), ``reshape``, ``specify_shape``.

A compiled function is traced once per combination of argument shapes, so every shape is a
known tuple while the program is built: ops that need sizes (reshape, alloc, arange) read them
then (``Evaluator.static``), and only sizes computed from input *values* are refused.
"""

from __future__ import annotations

import math

import webtensor as wt

from .basic import as_tensor_variable, static_ints
from .graph import Apply, Op, Variable
from .type import TensorType


class Shape(Op):
    """The shape of a tensor, as an int64 vector."""

    def make_node(self, x):
        x = as_tensor_variable(x)
        return Apply(self, [x], [TensorType("int64", (x.type.ndim,))])

    def perform(self, ev, node, inputs):
        return [wt.asarray(list(inputs[0].shape), dtype=wt.int64, device=ev.device)]


def shape(x):
    """The shape of ``x`` (an ``lvector``)."""
    return Shape()(x)


def shape_tuple(x) -> tuple:
    """Per axis the static size, or the symbolic ``x.shape[i]``."""
    x = as_tensor_variable(x)
    return tuple(s if s is not None else x.shape[i] for i, s in enumerate(x.type.shape))


class Reshape(Op):
    """``x`` reshaped to the shape held by an integer vector (one entry may be -1)."""

    __props__ = ("ndim",)

    def __init__(self, ndim):
        self.ndim = ndim

    def __str__(self):
        return f"Reshape{{{self.ndim}}}"

    def make_node(self, x, shp):
        x = as_tensor_variable(x)
        entries = static_ints(shp, "reshape", "the new shape")
        if len(entries) != self.ndim:
            raise ValueError(f"reshape: the shape has {len(entries)} entries, but ndim is "
                             f"{self.ndim}")
        if sum(1 for e in entries if e == -1) > 1:
            raise ValueError(f"reshape: at most one entry of the shape {entries} may be -1")
        for e in entries:
            if e is not None and e < -1:
                raise ValueError(f"reshape: invalid size {e} in the shape {entries}")
        out = [None if e == -1 else e for e in entries]
        if None not in x.type.shape:
            total = math.prod(x.type.shape)
            known = [e for e in entries if e is not None and e != -1]
            if None not in entries:
                rest = math.prod(known)
                if -1 in entries:
                    if rest == 0 or total % rest:
                        raise ValueError(f"Reshape: Input shape {x.type.shape} is incompatible "
                                         f"with new shape {tuple(entries)} ({x})")
                    out[entries.index(-1)] = total // rest
                elif rest != total:
                    raise ValueError(f"Reshape: Input shape {x.type.shape} is incompatible with "
                                     f"new shape {tuple(entries)} ({x})")
        return Apply(self, [x, shp], [TensorType(x.type.dtype, out)])

    def perform(self, ev, node, inputs):
        shp = tuple(ev.static(node.inputs[1]))
        return [wt.reshape(inputs[0], shp)]

    def pp(self, node, args):
        return f"{self}({', '.join(args)})"


def reshape(x, newshape, *, ndim=None):
    """``x`` with shape ``newshape`` (a tuple of ints and integer scalars, or an integer
    vector such as ``y.shape``); one entry may be -1."""
    from .basic import as_tensor_variable as _as
    from .basic import stack

    x = _as(x)
    if isinstance(newshape, Variable):
        shp = newshape
        if shp.type.ndim == 0:
            shp = stack([shp])
    else:
        if isinstance(newshape, int) and not isinstance(newshape, bool):
            newshape = (newshape,)
        parts = list(newshape)
        if any(isinstance(p, Variable) for p in parts):
            shp = stack([_as(p) if isinstance(p, Variable) else _as(int(p)) for p in parts])
        else:
            for p in parts:
                if isinstance(p, bool) or not isinstance(p, int):
                    raise TypeError(f"reshape: sizes must be ints or integer scalars, got {p!r}")
            from .basic import constant

            shp = constant(list(parts), dtype="int64")
    if shp.type.ndim != 1 or shp.type.dtype not in ("int8", "int16", "int32", "int64",
                                                    "uint8", "uint16", "uint32", "uint64"):
        raise TypeError(f"reshape: the new shape must be an integer vector, got {shp} "
                        f"({shp.type})")
    n = shp.type.shape[0]
    if ndim is None:
        if n is None:
            raise ValueError(f"reshape: the length of the new shape {shp} is not known; pass "
                             f"ndim=")
        ndim = n
    return Reshape(ndim)(x, shp)


class SpecifyShape(Op):
    """``x`` with (part of) its shape declared; checked when the function runs."""

    __props__ = ("shape",)

    def __init__(self, shape):
        self.shape = tuple(shape)

    def __str__(self):
        return "SpecifyShape"

    def make_node(self, x):
        x = as_tensor_variable(x)
        if len(self.shape) != x.type.ndim:
            raise ValueError(f"specify_shape: {x} ({x.type}) has {x.type.ndim} dimensions, but "
                             f"the specified shape {self.shape} has {len(self.shape)}")
        out = []
        for d, (have, want) in enumerate(zip(x.type.shape, self.shape)):
            if have is not None and want is not None and have != want:
                raise ValueError(f"specify_shape: {x} has static size {have} in axis {d}, which "
                                 f"contradicts the specified size {want} ({x.type} vs "
                                 f"{self.shape})")
            out.append(want if want is not None else have)
        return Apply(self, [x], [TensorType(x.type.dtype, out)])

    def perform(self, ev, node, inputs):
        (t,) = inputs
        for d, (got, want) in enumerate(zip(t.shape, self.shape)):
            if want is not None and got != want:
                raise AssertionError(f"SpecifyShape: dim {d} of input {node.inputs[0]} has "
                                     f"shape {got}, expected {want}")
        return [t]

    def pp(self, node, args):
        return f"SpecifyShape({args[0]}, {', '.join(str(s) for s in self.shape)})"


def specify_shape(x, shape):
    """``x`` declared to have ``shape`` (ints, or None for sizes left unknown)."""
    from .basic import static_value

    x = as_tensor_variable(x)
    if shape is None or shape is Ellipsis:
        return x
    if isinstance(shape, int) and not isinstance(shape, bool):
        shape = (shape,)
    if isinstance(shape, Variable):
        shape = static_ints(shape, "specify_shape", "the shape")
    entries = []
    for s in shape:
        if isinstance(s, Variable):
            s = static_value(s)
        if s is not None and (isinstance(s, bool) or not isinstance(s, int) or s < 0):
            raise TypeError(f"specify_shape: shape entries must be sizes >= 0 or None, got {s!r}")
        entries.append(s)
    return SpecifyShape(entries)(x)
