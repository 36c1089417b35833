"""Data for the playground's promotion explorer: tables, explanations and differences.

Everything is read from the mode objects in ``promotion.py`` (the same ones ``wt.result_type``
uses), so the explorer cannot disagree with the library: ``table`` is ``PromotionMode.table()``
laid out as rows, and ``explain`` re-runs the mode's own join on the two operands and narrates
the data it used - the lattice edges walked for ``standard``/``all``, plus the refusal rule for
``safe`` and ``strict``, NumPy's promotion order and scalar rule for ``numpy``, and Nx's merge
rules for ``nx``.  Every
function returns plain JSON-able lists, dicts and strings.
"""

from __future__ import annotations

from . import dtypes as _d
from . import promotion as _p
from .dtypes import DType
from .promotion import MODES, LatticeMode, PromotionMode, TypePromotionError, WeakType

__all__ = ["modes", "table", "explain", "diff"]

ERROR = "error"


def _label(node) -> str:
    """A node's table label: ``i8``, ``f32``, ``i*``, ``i32*`` (the golden tables' notation)."""
    return node.short if node.__class__ is DType else node.name


def _mode(mode, fn: str) -> PromotionMode:
    found = MODES.get(mode) if isinstance(mode, str) else None
    if found is None:
        raise ValueError(f"webtensor._explorer.{fn}: unknown promotion mode {mode!r}; choose "
                         f"one of {', '.join(map(repr, MODES))}")
    return found


def _nodes(mode: PromotionMode) -> dict:
    return {_label(n): n for n in mode.types()}


def _node(mode: PromotionMode, operand, fn: str):
    """A table label (``"i8"``, ``"i32*"``), a dtype name (``"int8"``) or a DType -> its node."""
    nodes = _nodes(mode)
    if isinstance(operand, DType):
        return operand
    if isinstance(operand, str):
        if operand in nodes:
            return nodes[operand]
        try:
            return _d.dtype(operand)
        except (TypeError, ValueError):
            pass
    raise ValueError(f"webtensor._explorer.{fn}: {operand!r} is not an operand of mode "
                     f"{mode.name!r}; use one of its labels ({' '.join(nodes)}) or a dtype "
                     f"name such as 'int8'")


def _name(node) -> str:
    """How an explanation names a node: dtype names in full, weak types by label."""
    return node.name if node.__class__ is DType else f"{node.name} (weak {node.kind!r})"


def modes() -> list[str]:
    """The promotion modes, in the order the docs list them."""
    return list(MODES)


def _cell_kind(mode: PromotionMode, cell: str) -> str:
    if cell == ERROR:
        return ERROR
    node = _nodes(mode).get(cell)
    if node is None:  # a materialized result is always a dtype
        node = _d.dtype(cell)
    return node.kind


def table(mode: str) -> dict:
    """The mode's full table: ``labels`` (dtypes, then its weak Python-scalar types) for rows and
    columns, ``cells[i][j]`` the result label of ``labels[i]`` with ``labels[j]`` (or "error"),
    ``kinds[i][j]`` that result's kind letter (b, u, i, f, c) or "error"."""
    m = _mode(mode, "table")
    labels = [_label(n) for n in m.types()]
    pairs = m.table()
    cells = [[pairs[a, b] for b in labels] for a in labels]
    kinds = [[_cell_kind(m, c) for c in row] for row in cells]
    return {"mode": m.name, "labels": labels, "cells": cells, "kinds": kinds}


def _result_label(m: PromotionMode, node) -> str:
    """The table's rendering of a joined node (the rule of ``PromotionMode.table``)."""
    if node.__class__ is WeakType and m.weak_results:
        return node.name
    return m.materialize(node)[0].short


def _lattice_steps(m: LatticeMode, a, b, joined) -> list[str]:
    steps = [f"{m.name}: {m.description}."]
    for node in (a, b) if a is not b else (a,):
        path = m.lattice.path(node, joined)
        if len(path) == 1:
            steps.append(f"{_name(node)} is the join itself")
        else:
            steps.append(" -> ".join(_name(n) for n in path))
    steps.append(f"join (least upper bound) of {_name(a)} and {_name(b)} is {_name(joined)}")
    return steps


def _materialize_step(m: PromotionMode, node) -> list[str]:
    if node.__class__ is not WeakType:
        return []
    dt, weak = m.materialize(node)
    if m.weak_results:
        source = "its own size" if node.dtype is not None else "the default dtype of its kind"
        return [f"the result is weak: {node.name} becomes {dt.name} ({source}) with weak=True"]
    who = "NumPy" if m.name == "numpy" else "Nx"
    return [f"{who} results are never weak: {node.name} becomes {dt.name}"]


def _safe_steps(m, a, b, joined) -> list[str]:
    target = m.materialize(joined)[0]
    owners = [n for n in (a, b) if m.materialize(n)[0] is target]
    steps = [f"SAFE rule: the result {target.name} must be the dtype of an operand: "
             + ("yes" if owners else "no, it is wider than both")]
    for node in (a, b) if a is not b else (a,):
        if node.__class__ is DType and node is not target:
            exact = target in _p.EXACT_CASTS[node]
            steps.append(f"SAFE rule: {node.name} must convert to {target.name} without losing "
                         f"a value: {'yes' if exact else 'no'}")
    return steps


def _strict_steps(a, b) -> list[str]:
    strong = {n for n in (a, b) if n.__class__ is DType}
    weak = [n for n in (a, b) if n.__class__ is WeakType]
    if len(strong) > 1:
        return ["strict rule: two different dtypes never combine implicitly"]
    if not strong:
        return ["strict rule: Python scalars alone combine as in the lattice"]
    (dt,) = strong
    steps = []
    for node in weak:
        rank, own = _p._KIND_RANK[node.kind], _p._KIND_RANK[dt.kind]
        ok = dt.kind != "b" and rank <= own
        steps.append(f"strict rule: a weak {node.kind!r} scalar may join {dt.name} only when "
                     f"{dt.name} is not bool and of the same or a higher kind: "
                     f"{'yes' if ok else 'no'}")
    if not weak:
        steps.append(f"strict rule: identical dtypes ({dt.name}) combine")
    return steps


def _numpy_steps(m, a, b, joined) -> list[str]:
    strong = [n for n in dict.fromkeys((a, b)) if n.__class__ is DType]
    weak = [n for n in (a, b) if n.__class__ is WeakType]
    steps = [f"{m.name}: {m.description}."]
    if not strong:
        top = max(weak, key=lambda n: _p._KIND_RANK[n.kind])
        return steps + [f"only Python scalars: the highest kind is {top.kind!r}, NumPy's "
                        f"default for it is {top.dtype.name}"]
    order = " ".join(dt.short for dt in _p.NUMPY_ORDER)
    skipped = []
    for candidate in _p.NUMPY_ORDER:
        if all(candidate in _d.SAFE_CASTS[s] for s in strong):
            break
        skipped.append(candidate.short)
    names = " and ".join(s.name for s in strong) + (" cast" if len(strong) > 1 else " casts")
    steps.append(f"promotion order: {order}")
    steps.append(f"first dtype that {names} to safely: {candidate.name}"
                 + (f" (skipped {' '.join(skipped)})" if skipped else ""))
    for node in weak:
        rank, own = _p._KIND_RANK[node.kind], _p._KIND_RANK[candidate.kind]
        if rank <= own:
            steps.append(f"a Python scalar of kind {node.kind!r} defers to {candidate.name}")
        else:
            upcast = _p.NUMPY_SCALAR_UPCAST[node.kind, candidate.kind]
            what = (f"the complex dtype of {candidate.name}'s precision" if upcast == "complex_of"
                    else upcast.name)
            steps.append(f"a Python scalar of the higher kind {node.kind!r} with "
                         f"{candidate.name} gives {what}: {joined.name}")
    return steps


def _nx_type(node) -> str:
    kind, bits = _p.NX_TYPES[node]
    return f"{{:{kind}, {bits}}}" if node is not _d.bool else "bool (as {:u, 1})"


def _nx_steps(m, a, b, joined) -> list[str]:
    steps = [f"{m.name}: {m.description}."]
    strong = [n for n in dict.fromkeys((a, b)) if n.__class__ is DType]
    numbers = [n for n in (a, b) if n.__class__ is not DType]
    if not strong:
        kind = "a float makes f32" if m.float_node in numbers else "ints give s64"
        return steps + [f"two Python numbers: Nx infers the type of their sum ({kind})"]
    if len(strong) == 2:
        ka, kb = (_p.NX_TYPES[n] for n in strong)
        if ka[0] == kb[0]:
            why = "same kind: the larger size"
        elif (min(ka, kb, key=lambda t: _p.NX_RANK[t[0]])[0],
              max(ka, kb, key=lambda t: _p.NX_RANK[t[0]])[0]) in _p.NX_MERGE_RULES:
            why = "unsigned with signed: signed, twice the unsigned size (at most 64)"
        else:
            why = "kinds rank c > f > bf > s > u: the higher one wins with its own size"
        steps.append(f"Nx.Type.merge({_nx_type(strong[0])}, {_nx_type(strong[1])}): {why}")
    for node in numbers:
        if node is m.float_node:
            steps.append(f"merge_number with a Python float: an integer type becomes f32, a "
                         f"floating one stays: {joined.name}")
            continue
        unsigned, signed = m.int_bits[node]
        need = (f"needs {unsigned} bits unsigned, {signed} signed" if unsigned is not None
                else f"is negative: signed, {signed} bits")
        steps.append(f"merge_number with the Python int {node.name[:-1]} ({need}): an integer "
                     f"type widens just enough, a float one stays: {joined.name}")
    return steps


def explain(a, b, mode: str) -> dict:
    """Why ``a`` with ``b`` gives its table cell in ``mode``.

    ``a``/``b`` are table labels of the mode (``"i8"``, ``"f*"``, ``"i32*"``) or dtype names.
    Returns ``{"result": label or None, "error": message or None, "steps": [str]}``: the lattice
    path and join, then the rule the mode applies on top (or NumPy's order and scalar rule).
    """
    m = _mode(mode, "explain")
    na, nb = _node(m, a, "explain"), _node(m, b, "explain")
    try:
        joined = m.join([na, nb])
        error = None
    except TypePromotionError as e:
        joined, error = None, str(e)
    if isinstance(m, LatticeMode):
        # The refusing modes still compute the lattice join first, then check it.
        lattice_join = m.lattice.join(na, nb)
        steps = _lattice_steps(m, na, nb, lattice_join)
        if m.name == "safe":
            steps += _safe_steps(m, na, nb, lattice_join)
        elif m.name == "strict":
            steps += _strict_steps(na, nb)
    elif m.name == "nx":
        steps = _nx_steps(m, na, nb, joined)
    else:
        steps = _numpy_steps(m, na, nb, joined)
    if error is not None:
        steps.append("refused: " + error)
        return {"result": None, "error": error, "steps": steps}
    steps += _materialize_step(m, joined)
    result = _result_label(m, joined)
    steps.append(f"result: {result}")
    return {"result": result, "error": None, "steps": steps}


def diff(mode_a: str, mode_b: str) -> list[list[int]]:
    """``[[i, j], ...]`` indices into ``table(mode_a)`` of the cells whose result differs in
    ``mode_b``; only row/column labels present in both modes are compared (the TF modes' weak
    types ``i32*`` ... and JAX's ``i*`` ... are different operands)."""
    ta, tb = table(mode_a), table(mode_b)
    where_b = {label: k for k, label in enumerate(tb["labels"])}
    out = []
    for i, row in enumerate(ta["labels"]):
        for j, col in enumerate(ta["labels"]):
            if row not in where_b or col not in where_b:
                continue
            if ta["cells"][i][j] != tb["cells"][where_b[row]][where_b[col]]:
                out.append([i, j])
    return out
