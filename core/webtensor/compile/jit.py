"""``wt.jit`` and ``wt.make_graph``: trace a Python function once per signature, run the graph.

The signature a compiled program is cached under holds everything tracing read: the structure
of the arguments (tuples, lists, dicts, None), per tensor its shape, dtype, weak flag, axis names
and device, per Python scalar its type (the value itself is a runtime input, as in JAX), the
static arguments' values, and the settings the API consults (promotion mode, default dtypes,
default device).  Change any of them and the function is traced again.
"""

from __future__ import annotations

import functools
import inspect

from .. import _tracing
from .. import dtypes as _d
from .. import precision as _precision
from .. import promotion as _p
from ..device import Device, default_device
from ..tensor import Tensor, from_values
from . import pytree
from .execute import Executable
from .ir import Graph
from .passes import optimize
from .trace import Trace

_SCALAR_TYPES = (bool, int, float, complex)


def _scalar_dtype(value) -> tuple[_d.DType, bool]:
    """A Python scalar argument becomes a 0-d tensor of the default dtype of its kind, weak
    (bool is never weak), as JAX traces Python scalars."""
    cls = value.__class__
    if cls is bool:
        return _d.bool, False
    if cls is int:
        return _d.default_int_dtype(), True
    if cls is float:
        return _d.default_float_dtype(), True
    return _d.default_complex_dtype(), True


def _settings_key() -> tuple:
    return (_p.MODE.get(), _precision.get_precision(), _d.default_int_dtype(),
            _d.default_float_dtype(),
            _d.default_complex_dtype(), _d.default_any_setting.get(), default_device())


_NOT_FAST = object()


class _Static:
    """A static argument in the argument tree: its value is part of the signature."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        return isinstance(other, _Static) and type(self.value) is type(other.value) \
            and self.value == other.value

    def __hash__(self):
        return hash((type(self.value), self.value))

    def __repr__(self):
        return f"static({self.value!r})"


class Jitted:
    """A function compiled per signature (``wt.jit(f)``); call it like ``f``."""

    def __init__(self, fun, static_argnums=(), static_argnames=()):
        if not callable(fun):
            raise TypeError(f"wt.jit: expected a function, got {fun!r} ({type(fun).__name__})")
        functools.update_wrapper(self, fun)
        self.fun = fun
        self._params = _parameters(fun)
        self.static_argnums, self.static_argnames = _statics(fun, self._params, static_argnums,
                                                             static_argnames)
        self._cache: dict = {}
        self._fast: dict = {}  # (flat tensor signature, settings) -> entry, for tensor-only calls
        self.trace_count = 0  # how many times the function was traced (tests, teaching)

    def __repr__(self) -> str:
        return f"<wt.jit of {getattr(self.fun, '__qualname__', self.fun)!r}>"

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return functools.partial(self, obj)

    # -- calling ---------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        if _tracing.active() is not None:  # inside another traced function: inline
            return self.fun(*args, **kwargs)
        if not kwargs and not self.static_argnums:
            # The common call, tensors only: a flat signature, no pytree walk.
            try:
                sig = tuple([(a.shape, a.dtype, a.weak, a.names, a.device) if a.__class__
                             is Tensor else _NOT_FAST for a in args])
            except AttributeError:
                sig = None
            if sig is not None and _NOT_FAST not in sig:
                entry = self._fast.get((sig, _settings_key()))
                if entry is not None:
                    executable, out_tree = entry
                    return pytree.unflatten(out_tree, executable(list(args)))
        key, leaves, dyn = self._signature(args, kwargs)
        entry = self._cache.get(key)
        if entry is None:
            entry = self._cache[key] = self._compile(key, args, kwargs, leaves, dyn)
        executable, out_tree = entry
        if len(dyn) == len(leaves) == len(args) and not kwargs and all(
                x.__class__ is Tensor for x in leaves):
            self._fast[(key[1], key[2])] = entry
        outs = executable(_runtime_inputs(leaves, dyn, executable.device))
        return pytree.unflatten(out_tree, outs)

    def trace(self, *args, **kwargs) -> Graph:
        """The program ``f(*args, **kwargs)`` traces to (what ``wt.make_graph`` shows)."""
        key, leaves, dyn = self._signature(args, kwargs)
        graph, _ = self._trace(args, kwargs, leaves, dyn, key)
        return graph

    # -- signature -------------------------------------------------------------------------
    def _signature(self, args, kwargs):
        name = _name(self.fun)
        statics = []
        tree_args = list(args)
        for i in self.static_argnums:
            if i < len(args):
                tree_args[i] = _Static(_hashable(args[i], name, f"argument {i}"))
        tree_kwargs = dict(kwargs)
        for k in self.static_argnames:
            if k in kwargs:
                tree_kwargs[k] = _Static(_hashable(kwargs[k], name, f"argument {k!r}"))
        leaves, treedef = pytree.flatten((tuple(tree_args), tree_kwargs))
        sig = []
        dyn = []
        for i, leaf in enumerate(leaves):
            cls = leaf.__class__
            if cls is Tensor:
                sig.append((leaf.shape, leaf.dtype, leaf.weak, leaf.names, leaf.device))
                dyn.append(i)
            elif cls in _SCALAR_TYPES:
                sig.append(cls)
                dyn.append(i)
            elif cls is _Static:
                statics.append(leaf)
                sig.append(leaf)
            elif _is_key(leaf):
                sig.append(_Static(leaf))
            elif hasattr(leaf, "__array_interface__") or hasattr(leaf, "__array__"):
                from ..api.creation import asarray

                t = leaves[i] = asarray(leaf)
                sig.append((t.shape, t.dtype, t.weak, t.names, t.device))
                dyn.append(i)
            else:
                raise TypeError(
                    f"wt.jit({name}): an argument leaf is a {cls.__name__} ({leaf!r:.60}), "
                    f"which is not a tensor or a Python number; pass it as a static argument "
                    f"(wt.jit({name}, static_argnums=...)) or close over it")
        key = (treedef, tuple(sig), _settings_key())
        return key, leaves, dyn

    # -- tracing -----------------------------------------------------------------------------
    def _trace(self, args, kwargs, leaves, dyn, key):
        name = _name(self.fun)
        trace = Trace(name=name)
        traced = list(leaves)
        avals = []
        device = next((x.device for x in leaves if x.__class__ is Tensor), None) \
            or default_device()
        for i in dyn:
            leaf = leaves[i]
            if leaf.__class__ is Tensor:
                t = trace.new_input(leaf.shape, leaf.dtype, leaf.device, leaf.weak, leaf.names)
            else:
                dtype, weak = _scalar_dtype(leaf)
                t = trace.new_input((), dtype, device, weak)
            traced[i] = t
            avals.append((t.weak, t.names))
        for i, leaf in enumerate(traced):
            if leaf.__class__ is _Static:
                traced[i] = leaf.value
        t_args, t_kwargs = pytree.unflatten(key[0], traced)
        with trace:
            result = self.fun(*t_args, **t_kwargs)
            out_leaves, out_tree = pytree.flatten(result)
            outs = [_as_output(x, name, k, device) for k, x in enumerate(out_leaves)]
        self.trace_count += 1
        graph = trace.graph(outs)
        graph.in_avals = avals
        # a Python number argument is a value, not a buffer: writes to it stay inside
        scalars = {k for k, i in enumerate(dyn) if leaves[i].__class__ is not Tensor}
        graph.mutated = [(t, f) for t, f in graph.mutated
                         if not (isinstance(t, int) and t in scalars)]
        return graph, out_tree

    def _compile(self, key, args, kwargs, leaves, dyn):
        graph, out_tree = self._trace(args, kwargs, leaves, dyn, key)
        graph = optimize(graph)
        return Executable(graph, _graph_device(graph, _name(self.fun))), out_tree


def _runtime_inputs(leaves, dyn, device) -> list[Tensor]:
    out = []
    for i in dyn:
        leaf = leaves[i]
        if leaf.__class__ is Tensor:
            out.append(leaf)
        else:
            out.append(_scalar_input(leaf, device))
    return out


def _scalar_input(value, device) -> Tensor:
    """A Python-number argument as a 0-d tensor, uploaded once per value (a learning rate
    passed on every call must not cost an upload, which on a GPU also ends the batch)."""
    dtype, weak = _scalar_dtype(value)
    zero = value == 0 and value.__class__ is not bool  # 0.0 and -0.0 are different inputs
    key = (value.__class__, value, dtype, device)
    found = None if zero or value != value else _SCALAR_INPUTS.get(key)
    if found is None:
        found = from_values([value], (), dtype, device, weak=weak)
        if not zero and value == value:
            if len(_SCALAR_INPUTS) >= 1024:
                _SCALAR_INPUTS.clear()
            _SCALAR_INPUTS[key] = found
    return found


_SCALAR_INPUTS: dict = {}  # programs never write their inputs in place (they write back)


def _as_output(x, name: str, k: int, device) -> Tensor:
    if x.__class__ is Tensor:
        return x
    if x.__class__ in _SCALAR_TYPES:
        from ..api.creation import asarray

        return asarray(x, device=device)
    raise TypeError(f"wt.jit({name}): output leaf {k} is a {type(x).__name__} ({x!r:.60}); a "
                    f"jitted function returns tensors, Python numbers and containers of them")


def _graph_device(graph: Graph, name: str) -> Device:
    devices = {v.device for v in graph.inputs} | {n.device for n in graph.nodes}
    devices |= {v.value.device for v in graph.outputs}
    if len(devices) > 1:
        names = ", ".join(sorted(d.name for d in devices))
        raise ValueError(f"wt.jit({name}): the traced program computes on several devices "
                         f"({names}); move every tensor to one device before calling it")
    return devices.pop() if devices else default_device()


def _name(fun) -> str:
    return getattr(fun, "__name__", None) or type(fun).__name__


def _is_key(leaf) -> bool:
    from ..random import Key

    return leaf.__class__ is Key


def _hashable(value, name: str, what: str):
    try:
        hash(value)
    except TypeError:
        raise TypeError(f"wt.jit({name}): static {what} must be hashable (it is part of the "
                        f"cache key), got a {type(value).__name__}; pass a tuple instead of a "
                        f"list, or make it a traced argument") from None
    return value


def _parameters(fun):
    try:
        return inspect.signature(fun).parameters
    except (TypeError, ValueError):
        return None


def _statics(fun, params, argnums, argnames):
    """Normalize static_argnums/static_argnames, each naming the other's parameters too."""
    name = _name(fun)
    if isinstance(argnums, int):
        argnums = (argnums,)
    if isinstance(argnames, str):
        argnames = (argnames,)
    try:
        argnums = tuple(argnums)
        argnames = tuple(argnames)
    except TypeError:
        raise TypeError(f"wt.jit({name}): static_argnums must be an int or a tuple of ints "
                        f"and static_argnames a str or a tuple of str") from None
    positional = []
    if params is not None:
        positional = [p.name for p in params.values()
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    nums = set()
    for i in argnums:
        if isinstance(i, bool) or not isinstance(i, int):
            raise TypeError(f"wt.jit({name}): static_argnums entries must be ints, got {i!r}")
        if positional and not -len(positional) <= i < len(positional) and params is not None \
                and not any(p.kind == p.VAR_POSITIONAL for p in params.values()):
            raise ValueError(f"wt.jit({name}): static_argnums={i} is out of range for a "
                             f"function of {len(positional)} positional parameters")
        nums.add(i % len(positional) if i < 0 and positional else i)
    names = set()
    for k in argnames:
        if not isinstance(k, str):
            raise TypeError(f"wt.jit({name}): static_argnames entries must be str, got {k!r}")
        names.add(k)
    for i in list(nums):
        if i < len(positional):
            names.add(positional[i])
    for k in list(names):
        if k in positional:
            nums.add(positional.index(k))
    return tuple(sorted(nums)), tuple(sorted(names))


def jit(fun=None, *, static_argnums=(), static_argnames=()):
    """Compile ``fun``: trace it on abstract tensors once per signature, then run the traced
    program (fused into few kernels on WebGPU).

    ``static_argnums``/``static_argnames`` name arguments whose *values* are part of the
    signature (ints used as sizes, flags, strings); every other argument is a pytree of tensors
    and Python numbers.  Usable as ``@wt.jit``, ``@wt.jit(static_argnums=1)`` or
    ``wt.jit(f, static_argnames="n")``.
    """
    if fun is None:
        return functools.partial(jit, static_argnums=static_argnums,
                                 static_argnames=static_argnames)
    return Jitted(fun, static_argnums, static_argnames)


def make_graph(fun, *, static_argnums=(), static_argnames=()):
    """``wt.make_graph(f)(*args)``: the program ``f`` traces to, as a :class:`Graph` whose
    ``str()`` is a readable listing (like ``jax.make_jaxpr``)."""
    jitted = fun if isinstance(fun, Jitted) else Jitted(fun, static_argnums, static_argnames)

    @functools.wraps(jitted.fun)
    def traced(*args, **kwargs):
        return optimize(jitted.trace(*args, **kwargs))
    return traced
