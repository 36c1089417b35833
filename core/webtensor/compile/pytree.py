"""Pytrees: nested tuples, lists, dicts and None around leaves, flattened to a leaf list and a
hashable structure (so a jitted function's cache can key on the structure of its arguments).

Dict keys are sorted, as JAX sorts them, so ``{"b": x, "a": y}`` and ``{"a": y, "b": x}`` are
the same structure.  Named tuples keep their type.
"""

from __future__ import annotations


class TreeDef:
    """The structure of a pytree; leaves are marked by ``*``."""

    __slots__ = ("kind", "meta", "children", "_hash")

    def __init__(self, kind: str, meta=None, children=()):
        self.kind = kind  # "leaf" | "none" | "tuple" | "list" | "dict" | "namedtuple"
        self.meta = meta  # dict keys / namedtuple type
        self.children = tuple(children)
        self._hash = hash((kind, meta, self.children))

    @property
    def num_leaves(self) -> int:
        if self.kind == "leaf":
            return 1
        return sum(c.num_leaves for c in self.children)

    def __eq__(self, other) -> bool:
        return (isinstance(other, TreeDef) and self._hash == other._hash
                and self.kind == other.kind and self.meta == other.meta
                and self.children == other.children)

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        if self.kind == "leaf":
            return "*"
        if self.kind == "none":
            return "None"
        inner = ", ".join(map(repr, self.children))
        if self.kind == "tuple":
            return f"({inner}{',' if len(self.children) == 1 else ''})"
        if self.kind == "list":
            return f"[{inner}]"
        if self.kind == "dict":
            return "{" + ", ".join(f"{k!r}: {c!r}" for k, c in zip(self.meta, self.children)) + "}"
        return f"{self.meta.__name__}({inner})"


LEAF = TreeDef("leaf")
NONE = TreeDef("none")


def flatten(tree) -> tuple[list, TreeDef]:
    leaves: list = []
    return leaves, _flatten(tree, leaves)


def _flatten(tree, leaves: list) -> TreeDef:
    cls = tree.__class__
    if tree is None:
        return NONE
    if cls is tuple:
        return TreeDef("tuple", None, [_flatten(c, leaves) for c in tree])
    if cls is list:
        return TreeDef("list", None, [_flatten(c, leaves) for c in tree])
    if cls is dict:
        try:
            keys = tuple(sorted(tree))
        except TypeError:
            raise TypeError(f"a dict in a pytree needs sortable keys, got {list(tree)!r}") from None
        return TreeDef("dict", keys, [_flatten(tree[k], leaves) for k in keys])
    if isinstance(tree, tuple) and hasattr(cls, "_fields"):
        return TreeDef("namedtuple", cls, [_flatten(c, leaves) for c in tree])
    leaves.append(tree)
    return LEAF


def unflatten(treedef: TreeDef, leaves) -> object:
    it = iter(leaves)
    out = _build(treedef, it)
    return out


def _build(td: TreeDef, it):
    kind = td.kind
    if kind == "leaf":
        return next(it)
    if kind == "none":
        return None
    children = [_build(c, it) for c in td.children]
    if kind == "tuple":
        return tuple(children)
    if kind == "list":
        return children
    if kind == "dict":
        return dict(zip(td.meta, children))
    return td.meta(*children)


def tree_map(fn, tree):
    leaves, td = flatten(tree)
    return unflatten(td, [fn(x) for x in leaves])
