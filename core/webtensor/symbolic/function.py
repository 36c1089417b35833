"""``function``: compile a symbolic graph into a callable, and ``shared`` variables.

A :class:`Function` checks each argument against its input's type (dtype, rank, static sizes,
as PyTensor's ``TensorType.filter``), then runs one ``wt.jit`` program that evaluates the
outputs and the ``updates`` together; the new values of the updated shared variables replace
the old ones after the call.  The program is traced once per device and argument shapes and
then reused, fused into few kernels on WebGPU.

Where a call runs: on ``device`` when the function was compiled with one; otherwise on the
device of the first argument that is a webtensor tensor, else of the first shared variable,
else on ``wt.default_device()``.  Arguments and shared values are moved there (a shared
value moved once stays there), and the outputs are webtensor tensors on that device.
"""

from __future__ import annotations

import warnings

import webtensor as wt

from .. import _tracing
from .basic import as_tensor_variable
from .evaluate import Evaluator
from .graph import Variable, toposort
from .type import TensorType
from .values import FilterError, describe, filter_value, host_tensor, python_dtype
from .variable import TensorConstant, TensorSharedVariable, TensorVariable


class MissingInputError(ValueError):
    """The outputs need a variable that is neither an input, shared, nor given."""


class UnusedInputError(ValueError):
    """An input of ``function`` is not needed to compute the outputs."""


def _pairs(mapping, what: str) -> list:
    if mapping is None:
        return []
    if isinstance(mapping, dict):
        return list(mapping.items())
    try:
        pairs = [tuple(p) for p in mapping]
    except TypeError:
        raise TypeError(f"function: {what} must be a dict or a list of (variable, expression) "
                        f"pairs, got {mapping!r}") from None
    for p in pairs:
        if len(p) != 2:
            raise TypeError(f"function: each entry of {what} must be a (variable, expression) "
                            f"pair, got {p!r}")
    return pairs


def _roots(variables, replace) -> list:
    """The variables without owner that ``variables`` need (through ``replace``)."""
    seen = set()
    found = {}
    stack = list(variables)
    while stack:
        v = stack.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        rep = replace.get(id(v))
        if rep is not None:
            stack.append(rep)
        elif v.owner is not None:
            stack.extend(v.owner.inputs)
        else:
            found[id(v)] = v
    return list(found.values())


def _consumer(var, outputs):
    """The first node of the graph of ``outputs`` that reads ``var`` (for error messages)."""
    for node in toposort(outputs):
        if any(i is var for i in node.inputs):
            return node
    return None


class Function:
    """A compiled function: ``f(*values)`` (or by input name) returns the outputs."""

    def __init__(self, inputs, outputs=None, updates=None, givens=None,
                 no_default_updates=False, name=None, allow_input_downcast=None,
                 on_unused_input=None, device=None, trust_input=False):
        fn = "function"
        if isinstance(inputs, Variable) or not isinstance(inputs, (list, tuple)):
            raise TypeError("function: the inputs must be given in a list, even when there is "
                            "a single input: function([x], ...)")
        seen = set()
        for k, v in enumerate(inputs):
            if not isinstance(v, TensorVariable):
                raise TypeError(f"function: input {k} must be a symbolic variable, got {v!r}")
            if isinstance(v, TensorSharedVariable):
                raise TypeError(f"function: cannot use the shared variable {v} as explicit input "
                                f"{k}; its value is already known. Substitute a non-shared "
                                f"variable through givens= instead")
            if isinstance(v, TensorConstant):
                raise TypeError(f"function: input {k} is a constant ({v}); inputs must be "
                                f"variables such as at.matrix('x')")
            if v.owner is not None:
                raise TypeError(f"function: input {k} ({v}) is computed by {v.owner.op}; inputs "
                                f"must be graph inputs (made with at.matrix('x'), ...), or "
                                f"replace it with givens=")
            if id(v) in seen:
                raise ValueError(f"function: the variable {v} is used twice in the inputs")
            seen.add(id(v))
        self.inputs = list(inputs)
        self.single = outputs is not None and not isinstance(outputs, (list, tuple))
        outs = [] if outputs is None else [outputs] if self.single else list(outputs)
        self.outputs = [as_tensor_variable(o) for o in outs]
        # updates
        self.update_targets, self.update_values = [], []
        for target, value in _pairs(updates, "updates"):
            self._add_update(target, value)
        # givens
        self.replace = {}
        for key, value in _pairs(givens, "givens"):
            if not isinstance(key, TensorVariable):
                raise TypeError(f"function: givens keys must be symbolic variables, got {key!r}")
            if any(key is v for v in self.inputs):
                raise ValueError(f"function: givens replaces {key}, which is an input of the "
                                 f"function; that would have no effect. Make a new input y "
                                 f"and pass givens={{{key}: g(y)}} instead")
            value = as_tensor_variable(value)
            if value.type.dtype != key.type.dtype or value.type.ndim != key.type.ndim:
                raise TypeError(f"function: givens replaces {key} ({key.type}) by {value} "
                                f"({value.type}); the replacement must have the same dtype "
                                f"and rank")
            self.replace[id(key)] = value
        needed = self.outputs + self.update_values
        if not no_default_updates:
            for v in _roots(needed, self.replace):
                if isinstance(v, TensorSharedVariable) and v.default_update is not None and \
                        not any(t is v for t in self.update_targets):
                    self._add_update(v, v.default_update)
            needed = self.outputs + self.update_values
        roots = _roots(needed, self.replace)
        in_ids = {id(v) for v in self.inputs}
        for v in roots:
            if id(v) in in_ids or isinstance(v, (TensorConstant, TensorSharedVariable)):
                continue
            consumer = _consumer(v, needed)
            used = f", used to compute {consumer}" if consumer is not None else ""
            raise MissingInputError(
                f"function: the graph needs the input {v} ({v.type}){used}, which is neither "
                f"among the inputs nor given a value; add it to the inputs or to givens")
        root_ids = {id(v) for v in roots}
        unused = [(k, v) for k, v in enumerate(self.inputs) if id(v) not in root_ids]
        policy = "raise" if on_unused_input is None else on_unused_input
        if unused and policy != "ignore":
            k, v = unused[0]
            msg = (f"function was asked to compute its outputs from input {k} ({v}), which is "
                   f"not part of the graph computing them. Pass on_unused_input='warn' or "
                   f"'ignore' to allow it")
            if policy == "raise":
                raise UnusedInputError(msg)
            if policy != "warn":
                raise ValueError(f"function: on_unused_input must be 'raise', 'warn' or "
                                 f"'ignore', got {on_unused_input!r}")
            warnings.warn(msg, stacklevel=3)
        shared = [v for v in roots if isinstance(v, TensorSharedVariable)]
        for t in self.update_targets:
            if not any(s is t for s in shared):
                shared.append(t)
        self.shared = shared
        self.name = name
        self.device = device
        self.allow_input_downcast = allow_input_downcast
        self.trust_input = trust_input
        self._jitted = wt.jit(self._program)
        self._jitted_no_args = wt.jit(self._program_on, static_argnums=0)
        self._fn = f"function {name!r}" if name else fn

    def _add_update(self, target, value):
        if not isinstance(target, TensorSharedVariable):
            raise TypeError(f"function: update target must be a shared variable (at.shared), "
                            f"got {target!r}")
        if any(t is target for t in self.update_targets):
            raise ValueError(f"function: the shared variable {target} has two updates")
        value = as_tensor_variable(value)
        ok = value.type.dtype == target.type.dtype and value.type.ndim == target.type.ndim and \
            all(t is None or s is None or t == s
                for t, s in zip(target.type.shape, value.type.shape))
        if ok and not target.type.is_super(value.type):
            from .shape import specify_shape

            value = specify_shape(value, target.type.shape)  # checked when the function runs
        if not ok:
            raise TypeError(
                f"An update must have the same type as the original shared variable "
                f"(shared_var={target}, shared_var.type={target.type}, update_val={value}, "
                f"update_val.type={value.type}); cast the update with at.cast or .astype")
        self.update_targets.append(target)
        self.update_values.append(value)

    # -- the traced program ------------------------------------------------------------------
    def _evaluate(self, device, args):
        ev = Evaluator(device, replace=self.replace)
        for var, t in zip(self.inputs + self.shared, args):
            ev.bind(var, t)
        buffers = {id(t._data) for t in args}
        results = []
        for o in self.outputs + self.update_values:
            t = ev.value(o)
            # an argument, a constant or a view of one: return a copy, never the buffer itself
            if id(t._data) in buffers or not _tracing.is_traced(t):
                t = wt.astype(t, t.dtype, copy=True)
            results.append(t)
        return tuple(results)

    def _program(self, *args):
        return self._evaluate(args[0].device, args)

    def _program_on(self, device):
        return self._evaluate(device, ())

    # -- calling ------------------------------------------------------------------------------
    def _device_for(self, args):
        if self.device is not None:
            return self.device
        for a in args:
            if isinstance(a, wt.Tensor):
                return a.device
        if self.shared:
            return self.shared[0]._value.device
        return wt.default_device()

    def _filter(self, k, value, device):
        var = self.inputs[k]
        tt = var.type
        if value.__class__ is wt.Tensor and value.device == device and \
                value.dtype.name == tt.dtype and not value.weak and len(value.shape) == tt.ndim \
                and all(s is None or s == n for s, n in zip(tt.shape, value.shape)):
            return value
        try:
            return filter_value(tt, value, False, self.allow_input_downcast, device)
        except FilterError as e:
            raise TypeError(f"{self._fn}: bad input argument {k} ({var}): expected {tt}, got "
                            f"{describe(value)}: {e}") from None

    def __call__(self, *args, **kwargs):
        n = len(self.inputs)
        if len(args) > n:
            raise TypeError(f"{self._fn}: takes {n} argument{'s' if n != 1 else ''} "
                            f"({', '.join(str(v) for v in self.inputs)}), got {len(args)}")
        values = list(args) + [None] * (n - len(args))
        given = [True] * len(args) + [False] * (n - len(args))
        for key, value in kwargs.items():
            k = next((i for i, v in enumerate(self.inputs) if v.name == key), None)
            if k is None:
                raise TypeError(f"{self._fn}: no input is named {key!r}; the inputs are "
                                f"{', '.join(str(v) for v in self.inputs)}")
            if given[k]:
                raise TypeError(f"{self._fn}: input {key!r} was given twice")
            values[k], given[k] = value, True
        missing = [str(v) for v, g in zip(self.inputs, given) if not g]
        if missing:
            raise TypeError(f"{self._fn}: missing input: {', '.join(missing)}")
        device = self._device_for(values)
        tensors = [self._filter(k, v, device) for k, v in enumerate(values)]
        tensors += [s.value_on(device) for s in self.shared]
        if tensors:
            outs = self._jitted(*tensors)
        else:
            outs = self._jitted_no_args(device)
        k = len(self.outputs)
        for target, new in zip(self.update_targets, outs[k:]):
            target._value = new
        result = list(outs[:k])
        return result[0] if self.single else result

    @property
    def trace_count(self) -> int:
        """How many programs were traced (one per device and argument shapes)."""
        return self._jitted.trace_count + self._jitted_no_args.trace_count

    def __repr__(self) -> str:
        ins = ", ".join(str(v) for v in self.inputs)
        return f"<webtensor.symbolic.Function({ins}) -> {len(self.outputs)} output(s)>"


def _named_device(name):
    found = [d for d in wt.devices() if d.name == str(name)]
    if not found:
        raise ValueError(f"function: no device named {name!r}; available: "
                         f"{', '.join(d.name for d in wt.devices())}")
    return found[0]


def function(inputs, outputs=None, mode=None, updates=None, givens=None,
             no_default_updates=False, accept_inplace=False, name=None, rebuild_strict=True,
             allow_input_downcast=None, profile=None, on_unused_input=None, trust_input=False,
             *, device=None) -> Function:
    """Compile ``outputs`` as a function of ``inputs`` (PyTensor's ``pytensor.function``).

    ``updates``: (shared variable, new value) pairs applied after each call, all computed from
    the values before the call.  ``givens``: (variable, replacement) pairs substituted in the
    graph.  ``device``: where every call runs (default: follow the arguments, see the module
    docs).  ``mode``, ``profile`` and ``accept_inplace`` are accepted and ignored.
    """
    if isinstance(device, str):
        device = _named_device(device)
    return Function(inputs, outputs, updates, givens, no_default_updates, name,
                    allow_input_downcast, on_unused_input, device, trust_input)


def eval_variable(var, inputs_to_values, kwargs):
    """``var.eval({x: value, ...})`` (keys may be names): compiled once per set of inputs."""
    mapping = dict(inputs_to_values or {})
    if kwargs:
        raise TypeError(f"eval: unexpected keyword arguments {', '.join(kwargs)}")
    keys, values = [], []
    roots = None
    for key, value in mapping.items():
        if isinstance(key, str):
            if roots is None:
                roots = _roots([var], {})
            found = [v for v in roots if v.name == key]
            if not found:
                raise ValueError(f"eval: no input of {var} is named {key!r}")
            key = found[0]
        keys.append(key)
        values.append(value)
    cache = var.tag.__dict__.setdefault("_eval_cache", {})
    sig = tuple(id(k) for k in keys)
    f = cache.get(sig)
    if f is None:
        f = cache[sig] = function(keys, var, on_unused_input="ignore")
    return f(*values)


def shared(value, name=None, strict=False, allow_downcast=None, borrow=False, *, shape=None,
           device=None) -> TensorSharedVariable:
    """A variable whose value persists between calls of compiled functions (updated with
    ``function(..., updates=...)``): ``W = at.shared(np.zeros((3, 4)), name='W')``.

    The value is copied (unless ``borrow=True`` and it is already a webtensor tensor) and kept
    on ``device`` (default: its own device for a tensor, else ``wt.default_device()``); its
    type has the value's dtype and unknown sizes (``shape=`` fixes some).
    """
    if isinstance(value, Variable):
        raise TypeError(f"shared: the value must be data, not the symbolic variable {value}")
    if isinstance(value, wt.Tensor):
        t = value if borrow else wt.asarray(value, copy=True)
    else:
        if isinstance(value, (bool, int, float, complex, list, tuple)):
            dtype = python_dtype(value, "shared")
        else:
            dtype = None
        t = host_tensor(value, dtype, "shared")
    if device is not None:
        device = _named_device(device) if isinstance(device, str) else device
        if t.device != device:
            t = t.to_device(device)
    elif not isinstance(value, wt.Tensor):
        target = wt.default_device()
        if t.device != target:
            t = t.to_device(target)
    static = (None,) * t.ndim if shape is None else shape
    tt = TensorType(t.dtype.name, static)
    for want, got in zip(tt.shape, t.shape):
        if want is not None and want != got:
            raise ValueError(f"shared: shape={shape} does not match the value's shape {t.shape}")
    if len(tt.shape) != t.ndim:
        raise ValueError(f"shared: shape={shape} has {len(tt.shape)} entries for a {t.ndim}-d "
                         f"value")
    return TensorSharedVariable(tt, t, name, strict, allow_downcast)
