"""Type promotion: six modes, each written as data and resolved by one small algorithm.

* ``standard`` (default) - JAX's lattice with every 64-bit type present.  Python scalars are weak
  (``i*``, ``f*``, ``c*``) and defer to the other operand's dtype; a weak result materializes to the
  current default dtype of its kind.
* ``all`` - TensorFlow's ALL mode: the same shape of lattice with *sized* weak types
  (``i32*``, ``i64*``, ``f32*``, ``f64*``, ``c128*``).
* ``safe`` - TensorFlow's SAFE mode: ALL's results, but a promotion that widens bits or may lose
  precision is refused.  The rule (which reproduces TF's 51 refused pairs exactly): the result
  must be the dtype of one of the operands, and every other operand must be weak or convert to it
  without losing a value.
* ``numpy`` - NumPy 2 / NEP 50 (Ivy's "precise" mode): the result is the first dtype in a fixed
  order to which every operand casts safely; Python scalars defer within their kind and give
  NumPy's 64-bit defaults otherwise.  There are no weak results.
* ``strict`` - JAX's strict mode: identical dtypes only, or a Python scalar joining a dtype of the
  same or a higher kind.
* ``nx`` - Nx's type merging (``Nx.Type.merge`` / ``merge_number``, Nx v0.4): kinds rank
  c > f > bf > s > u, the higher kind wins with its own size, an unsigned type joining a signed
  one doubles; a Python int widens an integer type just enough to hold its *value* (so
  ``u8 + -1`` is ``s16``), a Python float makes an integer type f32.  No weak results.

Multi-argument results never depend on argument order, in any mode: the lattice modes take the
least upper bound of all operands (associative and commutative), SAFE and strict apply their rule
to the whole set of operands, and NumPy's rule looks at all operands at once.
"""

from __future__ import annotations

from . import dtypes as _d
from ._settings import Setting
from .dtypes import DType

__all__ = [
    "TypePromotionError", "WeakType", "PromotionMode", "MODES",
    "result_type", "promote_types", "set_promotion_mode", "get_promotion_mode", "promotion_mode",
]


class TypePromotionError(TypeError):
    """Raised when the active promotion mode refuses to combine dtypes implicitly."""


class WeakType:
    """A node for a value whose dtype was inferred, not given (a Python scalar, a weak tensor).

    ``dtype`` is the dtype it becomes when it is the result (None: the default of its kind).
    """

    __slots__ = ("name", "kind", "dtype")

    def __init__(self, name: str, kind: str, dtype: DType | None = None):
        self.name, self.kind, self.dtype = name, kind, dtype

    def __repr__(self) -> str:
        return self.name


def _label(node) -> str:
    """The seeds' notation: ``i32``, ``u8``, ``f*``, ``i32*``."""
    return node.short if node.__class__ is DType else node.name


# ---------------------------------------------------------------------------------------------
# The lattices.  Each maps a node to the nodes directly above it; the join of two nodes is their
# least upper bound.  The strong part is shared by JAX and TensorFlow; they differ in how the
# weak types are threaded in.

_STRONG_EDGES = {
    _d.uint8: [_d.uint16, _d.int16],
    _d.uint16: [_d.uint32, _d.int32],
    _d.uint32: [_d.uint64, _d.int64],
    _d.int8: [_d.int16],
    _d.int16: [_d.int32],
    _d.int32: [_d.int64],
    _d.bfloat16: [_d.float32],
    _d.float16: [_d.float32],
    _d.float32: [_d.float64, _d.complex64],
    _d.float64: [_d.complex128],
    _d.complex64: [_d.complex128],
    _d.complex128: [],
}

I_WEAK, F_WEAK, C_WEAK = WeakType("i*", "i"), WeakType("f*", "f"), WeakType("c*", "c")
JAX_EDGES = {
    **_STRONG_EDGES,
    _d.bool: [I_WEAK],
    I_WEAK: [_d.uint8, _d.int8],
    _d.uint64: [F_WEAK],
    _d.int64: [F_WEAK],
    F_WEAK: [_d.bfloat16, _d.float16, C_WEAK],
    C_WEAK: [_d.complex64],
}

I32_WEAK = WeakType("i32*", "i", _d.int32)
I64_WEAK = WeakType("i64*", "i", _d.int64)
F32_WEAK = WeakType("f32*", "f", _d.float32)
F64_WEAK = WeakType("f64*", "f", _d.float64)
C128_WEAK = WeakType("c128*", "c", _d.complex128)
TF_EDGES = {
    **_STRONG_EDGES,
    _d.bool: [I32_WEAK],
    I32_WEAK: [I64_WEAK],
    I64_WEAK: [_d.uint8, _d.int8, F32_WEAK],
    F32_WEAK: [F64_WEAK],
    _d.uint64: [F64_WEAK],
    _d.int64: [F64_WEAK],
    F64_WEAK: [_d.bfloat16, _d.float16, C128_WEAK],
    C128_WEAK: [_d.complex64],
}

# NumPy's promotion order: the result is the first of these every operand casts to safely.
NUMPY_ORDER = (
    _d.bool, _d.uint8, _d.int8, _d.uint16, _d.int16, _d.uint32, _d.int32, _d.uint64,
    _d.int64, _d.float16, _d.bfloat16, _d.float32, _d.float64, _d.complex64, _d.complex128,
)
NP_I_WEAK = WeakType("i*", "i", _d.int64)
NP_F_WEAK = WeakType("f*", "f", _d.float64)
NP_C_WEAK = WeakType("c*", "c", _d.complex128)
# A Python scalar of a higher kind than the array's dtype: what NumPy gives, keyed by
# (scalar kind, dtype kind).  "complex_of" keeps the float's precision (float32 + 1j -> complex64).
NUMPY_SCALAR_UPCAST = {
    ("i", "b"): _d.int64,
    ("f", "b"): _d.float64, ("f", "u"): _d.float64, ("f", "i"): _d.float64,
    ("c", "b"): _d.complex128, ("c", "u"): _d.complex128, ("c", "i"): _d.complex128,
    ("c", "f"): "complex_of",
}

# Kind ranks used by strict mode and NumPy's scalar rule (signed and unsigned ints are one kind).
_KIND_RANK = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}

# Value-preserving conversions (SAFE mode): NumPy's safe casts minus int64/uint64 -> float64.
EXACT_CASTS = _d._closure({**_d._SAFE_EDGES, _d.int64: (), _d.uint64: ()})


class Lattice:
    """A join-semilattice given by covering edges; ``join`` is the least upper bound."""

    def __init__(self, edges: dict):
        self.edges = edges
        self.above = _d._closure(edges)  # node -> every node >= it (itself included)
        for a in edges:  # fail at import time if the data is not a lattice
            for b in edges:
                self.join(a, b)

    def join(self, a, b):
        if b in self.above[a]:
            return b
        if a in self.above[b]:
            return a
        common = self.above[a] & self.above[b]
        least = [c for c in common if common <= self.above[c]]
        if len(least) != 1:
            raise ValueError(f"not a lattice: {a!r} and {b!r} have no unique least upper bound")
        return least[0]

    def path(self, start, end) -> list:
        """One chain of covering edges from ``start`` up to ``end`` (for explanations)."""
        if start is end:
            return [start]
        for nxt in self.edges[start]:
            if end in self.above[nxt]:
                return [start] + self.path(nxt, end)
        raise ValueError(f"{end!r} is not above {start!r}")


# ---------------------------------------------------------------------------------------------
# Modes.


class PromotionMode:
    """A promotion mode: how operands become nodes, how nodes combine, how results materialize."""

    name: str
    description: str
    weak_results: bool = True
    #: True when a Python int's node depends on its value, not only on its type (nx)
    value_dependent: bool = False

    def __init__(self):
        self._cache: dict = {}

    # Operands -> nodes ---------------------------------------------------------------------------
    def scalar_node(self, value):
        raise NotImplementedError

    def weak_node(self, dt: DType):
        raise NotImplementedError

    # Nodes -> result -----------------------------------------------------------------------------
    def join(self, nodes: list):
        raise NotImplementedError

    def materialize(self, node) -> tuple[DType, bool]:
        if node.__class__ is DType:
            return node, False
        if node.dtype is not None:
            return node.dtype, self.weak_results
        return _DEFAULT_OF_KIND[node.kind](), self.weak_results

    def __repr__(self) -> str:
        return f"<promotion mode {self.name!r}>"

    # Introspection (docs, the playground's explorer) --------------------------------------------
    def types(self) -> list:
        """The row/column labels of this mode's table: the 15 dtypes then its weak types."""
        return list(_d.all_dtypes) + list(self.weak_types)

    def table(self) -> dict[tuple[str, str], str]:
        """Every pair as ``{("i8", "u32"): "i64", ...}``; ``"error"`` where refused."""
        out = {}
        for a in self.types():
            for b in self.types():
                try:
                    node = self.join([a, b])
                except TypePromotionError:
                    out[_label(a), _label(b)] = "error"
                    continue
                if node.__class__ is WeakType and self.weak_results:
                    out[_label(a), _label(b)] = node.name
                else:
                    out[_label(a), _label(b)] = self.materialize(node)[0].short
        return out


class LatticeMode(PromotionMode):
    """Standard, all: the join in a lattice.  Subclasses may refuse some joins."""

    def __init__(self, name, description, edges, scalar_nodes, weak_nodes):
        super().__init__()
        self.name, self.description = name, description
        self.lattice = Lattice(edges)
        self._scalar_nodes = scalar_nodes  # python type -> node
        self._weak_nodes = weak_nodes  # (kind, small?) -> node
        self.weak_types = [n for n in edges if n.__class__ is WeakType]

    def scalar_node(self, value):
        return self._scalar_nodes[type(value)]

    def weak_node(self, dt):
        if dt.kind == "b":
            return dt
        return self._weak_nodes[dt.kind, dt.itemsize <= 4]

    def join(self, nodes):
        result = nodes[0]
        for node in nodes[1:]:
            result = self.lattice.join(result, node)
        self.check(nodes, result)
        return result

    def check(self, nodes, result) -> None:
        """Refuse a promotion (raise TypePromotionError); the lattice modes refuse nothing."""

    def refuse(self, nodes, why: str) -> None:
        operands = []
        for node in nodes:
            dt, _ = self.materialize(node)
            text = f"({dt.name}, weak={node.__class__ is WeakType})"
            if text not in operands:
                operands.append(text)
        listed = " and ".join([", ".join(operands[:-1]), operands[-1]]) if len(operands) > 1 \
            else operands[0]
        raise TypePromotionError(
            f"In promotion mode {self.name!r}, implicit dtype promotion between {listed} is "
            f"disallowed: {why}. Cast explicitly (e.g. wt.astype(x, dtype)) or relax the rules "
            f"with wt.set_promotion_mode({self.relaxed!r})."
        )


def _jax_weak_nodes(i, f, c):
    return {("i", True): i, ("i", False): i, ("u", True): i, ("u", False): i,
            ("f", True): f, ("f", False): f, ("c", True): c, ("c", False): c}


class SafeMode(LatticeMode):
    relaxed = "all"

    def check(self, nodes, result):
        target = self.materialize(result)[0]
        owners = [n for n in nodes if self.materialize(n)[0] is target]
        if not owners:
            self.refuse(nodes, f"the result {target.name} is wider than every operand")
        for node in nodes:
            if node.__class__ is DType and node is not target and target not in EXACT_CASTS[node]:
                self.refuse(nodes, f"{node.name} does not convert to {target.name} exactly")


class StrictMode(LatticeMode):
    relaxed = "standard"

    def check(self, nodes, result):
        strong = {n for n in nodes if n.__class__ is DType}
        if len(strong) > 1:
            self.refuse(nodes, "strict mode only combines identical dtypes")
        if strong:
            (dt,) = strong
            for node in nodes:
                if node.__class__ is WeakType and (
                    dt.kind == "b" or _KIND_RANK[node.kind] > _KIND_RANK[dt.kind]
                ):
                    self.refuse(nodes, f"a weak {node.kind!r}-kind value may not promote "
                                       f"{dt.name} in strict mode")


class NumpyMode(PromotionMode):
    """NEP 50.  Not a lattice (NumPy's table is not associative), yet order-independent."""

    name = "numpy"
    description = "NumPy 2 (NEP 50) rules; Ivy's precise mode"
    weak_results = False
    weak_types = [NP_I_WEAK, NP_F_WEAK, NP_C_WEAK]
    _scalar_nodes = {int: NP_I_WEAK, float: NP_F_WEAK, complex: NP_C_WEAK}
    _weak_nodes = {"i": NP_I_WEAK, "u": NP_I_WEAK, "f": NP_F_WEAK, "c": NP_C_WEAK}

    def scalar_node(self, value):
        return self._scalar_nodes[type(value)]

    def weak_node(self, dt):
        return dt if dt.kind == "b" else self._weak_nodes[dt.kind]

    def join(self, nodes):
        strong = {n for n in nodes if n.__class__ is DType}
        weak = [n for n in nodes if n.__class__ is WeakType]
        top_weak = max(weak, key=lambda n: _KIND_RANK[n.kind]) if weak else None
        if not strong:
            return top_weak
        result = next(c for c in NUMPY_ORDER if all(c in _d.SAFE_CASTS[s] for s in strong))
        if top_weak is None or _KIND_RANK[top_weak.kind] <= _KIND_RANK[result.kind]:
            return result
        upcast = NUMPY_SCALAR_UPCAST[top_weak.kind, result.kind]
        return result.complex_dtype if upcast == "complex_of" else upcast


# Nx's types as (kind, bits); bool, which Nx does not have, joins as a one-bit unsigned int.
NX_TYPES = {
    _d.bool: ("u", 1), _d.uint8: ("u", 8), _d.uint16: ("u", 16), _d.uint32: ("u", 32),
    _d.uint64: ("u", 64), _d.int8: ("s", 8), _d.int16: ("s", 16), _d.int32: ("s", 32),
    _d.int64: ("s", 64), _d.bfloat16: ("bf", 16), _d.float16: ("f", 16),
    _d.float32: ("f", 32), _d.float64: ("f", 64), _d.complex64: ("c", 64),
    _d.complex128: ("c", 128),
}
NX_DTYPES = {t: dt for dt, t in NX_TYPES.items()}
# Nx.Type.merge: the kind of higher rank wins, keeping its own size ...
NX_RANK = {"u": 0, "s": 1, "bf": 2, "f": 3, "c": 4}
# ... except these (lower kind, higher kind) pairs: (lower bits, higher bits) -> result
NX_MERGE_RULES = {("u", "s"): lambda low, high: ("s", max(min(2 * low, 64), high))}


def nx_merge(a: tuple, b: tuple) -> tuple:
    """Nx.Type.merge of two (kind, bits) types."""
    if a[0] == b[0]:
        return a[0], max(a[1], b[1])
    low, high = sorted((a, b), key=lambda t: NX_RANK[t[0]])
    rule = NX_MERGE_RULES.get((low[0], high[0]))
    return rule(low[1], high[1]) if rule else high


def _nx_bits(value: int, signed: bool) -> int:
    """The narrowest Nx size (8, 16, 32, 64) holding ``value`` (Nx's signed_/unsigned_size)."""
    for bits in (8, 16, 32, 64):
        if (-(1 << (bits - 1)) <= value < (1 << (bits - 1))) if signed else value < (1 << bits):
            return bits
    return 64  # past 64 bits: the range check of the result raises OverflowError


class NxMode(PromotionMode):
    """Nx v0.4's ``Nx.Type.merge`` (tensor types) and ``merge_number`` (a tensor and a number).

    A Python int is a weak node that remembers the sizes its value needs, unsigned (None for a
    negative value) and signed; a Python float is the weak ``1.0*`` (f32 alone); a complex is a
    strong c64 (Nx's ``Complex`` is not a number to merge_number).  Several numbers with a type
    combine in one order, non-negative ints, negative ints, then floats, so that the result does
    not depend on the order of the operands (Nx itself only ever merges one number at a time).
    """

    name = "nx"
    description = "Nx's type merging: value-sized Python ints, u + s doubles, no weak results"
    weak_results = False
    value_dependent = True

    def __init__(self):
        super().__init__()
        self._ints: dict = {}  # (unsigned bits | None, signed bits) -> node
        self.int_bits: dict = {}  # node -> (unsigned bits | None, signed bits)
        self.float_node = WeakType("1.0*", "f", _d.float32)
        # the weak types the tables show: one Python value per kind of answer
        self.weak_types = [self.scalar_node(v) for v in (1, 200, 300, -1, -200)]
        self.weak_types.append(self.float_node)

    def scalar_node(self, value):
        if isinstance(value, float):
            return self.float_node
        if isinstance(value, complex):
            return _d.complex64
        key = (None if value < 0 else _nx_bits(value, False), _nx_bits(value, True))
        node = self._ints.get(key)
        if node is None:
            node = self._ints[key] = WeakType(f"{value}*", "i", _d.int64)
            self.int_bits[node] = key
        return node

    def weak_node(self, dt):
        return dt  # Nx has no weak tensors

    def join(self, nodes):
        strong = [NX_TYPES[n] for n in nodes if n.__class__ is DType]
        ints = [self.int_bits[n] for n in nodes if n in self.int_bits]
        if not strong:  # numbers only: Nx infers the type of their sum (s64, or f32)
            return self.float_node if self.float_node in nodes else nodes[0]
        kind, bits = strong[0]
        for t in strong[1:]:
            kind, bits = nx_merge((kind, bits), t)
        if kind in ("u", "s") and ints:
            unsigned = [u for u, _ in ints if u is not None]
            signed = [s for u, s in ints if u is None]
            if kind == "u":
                bits = max([bits, 8 if unsigned else bits] + unsigned)
                if signed:  # merge_number: a negative number makes u<n> s<2n> first
                    kind, bits = "s", max([min(2 * bits, 64)] + signed)
            else:
                bits = max([bits] + [s for _, s in ints])
        if kind in ("u", "s") and self.float_node in nodes:
            kind, bits = "f", 32
        return NX_DTYPES[kind, bits]


_DEFAULT_OF_KIND = {"i": _d.default_int_dtype, "u": _d.default_int_dtype,
                    "f": _d.default_float_dtype, "c": _d.default_complex_dtype}

_JAX_SCALARS = {int: I_WEAK, float: F_WEAK, complex: C_WEAK}
_TF_SCALARS = {int: I32_WEAK, float: F32_WEAK, complex: C128_WEAK}
_TF_WEAK = {("i", True): I32_WEAK, ("i", False): I64_WEAK, ("u", True): I32_WEAK,
            ("u", False): I64_WEAK, ("f", True): F32_WEAK, ("f", False): F64_WEAK,
            ("c", True): C128_WEAK, ("c", False): C128_WEAK}

MODES: dict[str, PromotionMode] = {
    "standard": LatticeMode(
        "standard", "JAX's lattice with all 64-bit types; weak results use the default dtypes",
        JAX_EDGES, _JAX_SCALARS, _jax_weak_nodes(I_WEAK, F_WEAK, C_WEAK)),
    "all": LatticeMode(
        "all", "TensorFlow's ALL mode: JAX-like lattice with sized weak types",
        TF_EDGES, _TF_SCALARS, _TF_WEAK),
    "safe": SafeMode(
        "safe", "TensorFlow's SAFE mode: ALL's results, refusing bit-widening and lossy promotions",
        TF_EDGES, _TF_SCALARS, _TF_WEAK),
    "numpy": NumpyMode(),
    "strict": StrictMode(
        "strict", "JAX's strict mode: identical dtypes, or a Python scalar of the same or lower kind",
        JAX_EDGES, _JAX_SCALARS, _jax_weak_nodes(I_WEAK, F_WEAK, C_WEAK)),
    "nx": NxMode(),
}
# TensorFlow sizes Python ints as int32 in its modes.
_PYINT_LIMIT = {"all": _d.int32, "safe": _d.int32}


# ---------------------------------------------------------------------------------------------
# The active mode.

def _parse_mode(mode, fn: str) -> PromotionMode:
    if isinstance(mode, PromotionMode):
        return mode
    found = MODES.get(mode) if isinstance(mode, str) else None
    if found is None:
        raise ValueError(f"wt.{fn}: unknown promotion mode {mode!r}; choose one of "
                         f"{', '.join(map(repr, MODES))}")
    return found


MODE = Setting("promotion_mode", MODES["standard"])


def get_promotion_mode() -> str:
    """The name of the active promotion mode."""
    return MODE.get().name


def set_promotion_mode(mode: str):
    """Switch the promotion mode process-wide; ``with wt.set_promotion_mode(m):`` is local."""
    return MODE.set(_parse_mode(mode, "set_promotion_mode"))


def promotion_mode(mode: str):
    """``with wt.promotion_mode("safe"): ...`` - a mode for this block, this thread/task only."""
    return MODE.scoped(_parse_mode(mode, "promotion_mode"))


# ---------------------------------------------------------------------------------------------
# result_type


def _classify(mode: PromotionMode, x, fn: str):
    """An operand -> its node, plus the value when it is a Python int (for range checks)."""
    cls = x.__class__
    if cls is DType:
        return x, None
    if cls is bool:
        return _d.bool, None
    if cls is int:
        limit = _PYINT_LIMIT.get(mode.name)
        if limit is not None:
            _check_int_range(x, limit, fn, f" (Python ints are {limit.name} in mode {mode.name!r})")
        return mode.scalar_node(x), x
    if cls is float or cls is complex:
        return mode.scalar_node(x), None
    if isinstance(x, (str, type)):  # "int8", int, numpy.int8 (whose .dtype is a descriptor)
        try:
            return _d.dtype(x), None
        except TypeError:
            pass
    else:
        inner = getattr(x, "dtype", None)
        if inner is not None:  # tensors, NumPy arrays and scalars (np.float64 is strong)
            dt = _d.dtype(inner)
            return (mode.weak_node(dt) if getattr(x, "weak", False) is True else dt), None
        found = _d._from_foreign(x)  # NumPy dtype objects, which have no .dtype
        if found is not None:
            return found, None
    for base in (bool, int, float, complex):  # subclasses of the scalar types (IntEnum, ...)
        if isinstance(x, base):
            return _classify(mode, base(x), fn)
    raise TypeError(f"wt.{fn}: cannot determine a dtype for {x!r} ({cls.__name__}); pass dtypes, "
                    f"tensors, arrays or Python scalars (bool, int, float, complex)")


def _check_int_range(value: int, dt: DType, fn: str, why: str = "") -> None:
    info = _d.iinfo(dt)
    if not info.min <= value <= info.max:
        raise OverflowError(
            f"wt.{fn}: Python int {value} is out of range for {dt.name} "
            f"({info.min} to {info.max}){why}. Give it an explicit, wide enough dtype, e.g. "
            f"wt.asarray({value}, dtype=wt.int64), or cast the other operand."
        )


class WeakOperand:
    """Stands for "a weak tensor of this dtype", so ops can hit the cache with weak operands."""

    __slots__ = ("dtype",)
    weak = True

    def __init__(self, dtype: DType):
        self.dtype = dtype

    def __repr__(self) -> str:
        return f"<weak {self.dtype.name}>"


WEAK_OPERANDS = {dt: WeakOperand(dt) for dt in _d.all_dtypes}
_CACHEABLE = (DType, WeakOperand)


_SCALAR_CLASSES = (bool, int, float, complex)
# Cache-key stand-ins for Python scalars.  Not the type objects themselves: those are valid
# dtype specs (result_type(int8, int)) and would collide in the direct lookup below.
_SCALAR_MARKS = {cls: object() for cls in _SCALAR_CLASSES}
_INT_RANGES = {dt: (_d.iinfo(dt).min, _d.iinfo(dt).max) for dt in _d.all_int_dtypes}


def resolve(args: tuple, fn: str) -> tuple[DType, bool]:
    """(dtype, weak) of combining ``args`` in the active mode; the engine behind every op.

    The join is cached per mode under a key where each Python scalar stands as a marker of its
    type (the node depends only on the type); Python ints are then range-checked.
    """
    mode = MODE.get()
    try:
        node = mode._cache.get(args)  # pure dtype keys: the common case, one lookup
    except TypeError:  # unhashable operands (NumPy arrays)
        node = None
    if node is not None:
        return mode.materialize(node)
    key, ints = [], None
    for x in args:
        cls = x.__class__
        if cls in _CACHEABLE or cls in _SCALAR_CLASSES:
            if cls is int and mode.value_dependent:  # nx: the node depends on the value
                key.append(mode.scalar_node(x))
            else:
                key.append(x if cls in _CACHEABLE else _SCALAR_MARKS[cls])
            if cls is int:
                ints = [x] if ints is None else ints + [x]
        else:
            key = None
            break
    if key is not None:
        key = tuple(key)
        node = mode._cache.get(key)
        if node is None:
            if ints is not None:  # the TF modes check Python ints before promoting
                for value in ints:
                    _classify(mode, value, fn)
            node = _join(mode, args, fn)
            mode._cache[key] = node
    else:
        node = _join(mode, args, fn)
        # int subclasses too (IntEnum), as _classify treats them; not tensors, which have .dtype
        ints = [int(x) for x in args if isinstance(x, int) and x.__class__ is not bool
                and getattr(x, "dtype", None) is None]
    dt, weak = mode.materialize(node)
    if ints:
        for value in ints:
            _check_int(mode, value, dt, fn)
    return dt, weak


def resolve_pair(a, b, fn: str) -> tuple[DType, bool]:
    """``resolve((a, b), fn)`` for the hot path of binary ops: a Python scalar is looked up at
    once under its type's marker, as ``resolve`` caches it (then ints are range-checked)."""
    mode = MODE.get()
    cache = mode._cache
    node = cache.get((a, b))  # two dtypes: the common case
    if node is not None:
        return mode.materialize(node)
    ca, cb = a.__class__, b.__class__
    if not ((ca is int or cb is int) and mode.value_dependent):
        node = cache.get((_SCALAR_MARKS.get(ca, a), _SCALAR_MARKS.get(cb, b)))
    if node is None:
        return resolve((a, b), fn)
    dt, weak = mode.materialize(node)
    if ca is int:
        _check_int(mode, a, dt, fn)
    if cb is int:
        _check_int(mode, b, dt, fn)
    return dt, weak


def _check_int(mode: PromotionMode, value: int, dt: DType, fn: str) -> None:
    """A Python int within the mode's range for Python ints and, for an integer result, the
    result dtype's."""
    limit = _PYINT_LIMIT.get(mode.name)
    if limit is not None:
        low, high = _INT_RANGES[limit]
        if not low <= value <= high:
            _classify(mode, value, fn)  # raises the mode's OverflowError
    if dt.kind in "iu":
        low, high = _INT_RANGES[dt]
        if not low <= value <= high:
            _check_int_range(value, dt, fn)


def _join(mode: PromotionMode, args: tuple, fn: str):
    if not args:
        raise ValueError(f"wt.{fn}: at least one dtype, tensor or scalar is required")
    return mode.join([_classify(mode, x, fn)[0] for x in args])


def result_type(*arrays_and_dtypes, return_weak_type_flag: bool = False):
    """The dtype that combining the operands gives in the active promotion mode.

    Operands are dtypes, tensors/arrays (a weak tensor counts as weak) and Python scalars
    (``int``, ``float``, ``complex`` are weak; ``bool`` is strong).  Order never matters.
    With ``return_weak_type_flag=True`` the result is ``(dtype, weak)``.
    """
    dt, weak = resolve(arrays_and_dtypes, "result_type")
    return (dt, weak) if return_weak_type_flag else dt


def promote_types(type1, type2) -> DType:
    """The promoted dtype of two dtypes (not scalars) in the active mode."""
    a = _d._dtype_of_arg(type1, "promote_types")
    b = _d._dtype_of_arg(type2, "promote_types")
    return resolve((a, b), "promote_types")[0]
