"""``nx.inspect``: Nx's ``#Nx.Tensor<...>`` rendering of a tensor.

The header is the Nx type and the shape with axis names (``s64[x: 2][y: 3]``); the values are
nested lists, one innermost list per line.  Numbers print as Elixir does: integers as they are,
floats by the shortest text that reads back as the same float64 (a float32 ``1.2`` is
``1.2000000476837158``), with ``.0`` on whole numbers, ``Inf``/``-Inf``/``NaN`` for non-finite
values and ``1.0+2.0i`` for complex ones.
"""

from __future__ import annotations

import math

from .._tracing import is_traced
from ..tensor import Tensor, nest
from ._core import type_tuple


def type_string(dt) -> str:
    kind, bits = type_tuple(dt)
    return f"{kind}{bits}"


def header(t: Tensor) -> str:
    names = t.names or (None,) * t.ndim
    dims = "".join(f"[{n}: {s}]" if n is not None else f"[{s}]" for n, s in zip(names, t.shape))
    return type_string(t.dtype) + dims


def format_float(x: float) -> str:
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Inf" if x > 0 else "-Inf"
    text = repr(float(x))
    if "e" in text:  # Elixir: 1.0e-7, 1.5e20
        mantissa, exponent = text.split("e")
        if "." not in mantissa:
            mantissa += ".0"
        return f"{mantissa}e{int(exponent)}"
    return text


def format_number(x) -> str:
    if isinstance(x, bool):
        return "1" if x else "0"
    if isinstance(x, int):
        return str(x)
    if isinstance(x, complex):
        re, im = format_float(x.real), format_float(x.imag)
        if not im.startswith("-"):
            im = "+" + im
        return f"{re}{im}i"
    return format_float(x)


def _lines(value, depth: int, indent: str) -> list[str]:
    pad = indent * depth
    if not isinstance(value, list):
        return [pad + format_number(value)]
    if not value or not isinstance(value[0], list):
        return [pad + "[" + ", ".join(format_number(v) for v in value) + "]"]
    out = [pad + "["]
    for i, row in enumerate(value):
        inner = _lines(row, depth + 1, indent)
        if i < len(value) - 1:
            inner[-1] += ","
        out.extend(inner)
    out.append(pad + "]")
    return out


def inspect(t: Tensor, *, limit=None) -> str:
    """Nx's inspection of ``t``; ``limit`` (an int) shows at most that many values."""
    from ._backend import data_state

    head = header(t)
    state = data_state(t)
    if state is not None:  # a template, or a deallocated tensor
        body = [f"  {state}"]
    elif is_traced(t):
        body = ["  Nx.Defn.Expr"]
    else:
        flat = t._backend.to_values(t)
        if limit is not None and len(flat) > limit:
            text = ", ".join(format_number(v) for v in flat[:limit])
            body = [f"  [{text}, ...]"]
        else:
            value = flat[0] if not t.shape else nest(flat, t.shape)
            body = _lines(value, 1, "  ")
    return "\n".join(["#Nx.Tensor<", "  " + head, *body, ">"])
