"""Ivy's data-type API: which dtypes each device supports, native dtypes, which dtypes each
function supports (declared with decorators for your own functions, read from the op tables for
webtensor's), the casting modes that stand in for an unsupported dtype, and the promotion
helpers.

Where it sits: above ``dtypes``/``promotion``/``device``/``ops`` and the API modules.  The
devices report their dtypes (``Backend.dtype_support``, also in ``wt.device_info()``); the public
functions refuse dtypes by ``ops.function_kinds``; this module reads the same two sources, so
what it says a function or device supports is what really runs.

Names as in Ivy: ``valid_dtypes``... (module attributes of ``wt``, for the default device,
computed when read), ``valid_dtypes_for(device)`` per device, ``with_supported_dtypes``,
``function_supported_dtypes``, ``promote_types_of_inputs``; Ivy's four ``*_data_types`` casting
switches are also ``wt.casting_mode(...)``.  See ``docs/dtypes.md``.
"""

from __future__ import annotations

import functools

from . import dtypes as _d
from . import ops as _ops
from . import promotion as _p
from ._settings import Setting
from .device import Device, as_device
from .tensor import Tensor

__all__ = [
    "valid_dtypes_for", "invalid_dtypes_for", "native_dtype", "as_native_dtype",
    "with_supported_dtypes", "with_unsupported_dtypes", "function_supported_dtypes",
    "function_unsupported_dtypes", "casting_mode", "get_casting_mode", "upcast_data_types",
    "downcast_data_types", "crosscast_data_types", "cast_data_types", "promote_types_of_inputs",
    "type_promote_arrays", "precise_mode",
]

# Ivy's dtype categories: ``valid_<kind>_dtypes`` and the ``kind=`` of valid_dtypes_for.
CATEGORIES = {
    "valid": _d.all_dtypes, "numeric": _d.all_numeric_dtypes, "int": _d.all_int_dtypes,
    "float": _d.all_float_dtypes, "uint": _d.all_uint_dtypes, "complex": _d.all_complex_dtypes,
}
# A device's dtype statuses (``Backend.dtype_support``) that count as supported.
_VALID_STATUSES = ("native", "cpu")

# ``wt.valid_dtypes``... : attribute name -> (valid?, category), read for the default device.
DEFAULT_DEVICE_TUPLES = {
    f"{'' if valid else 'in'}valid_{'' if kind == 'valid' else kind + '_'}dtypes": (valid, kind)
    for valid in (True, False) for kind in CATEGORIES
}


def _category(kind, fn: str) -> tuple:
    if not isinstance(kind, str) or kind not in CATEGORIES:
        error = ValueError if isinstance(kind, str) else TypeError
        raise error(f"wt.{fn}: kind={kind!r} is not a dtype category; use one of "
                    f"{', '.join(map(repr, CATEGORIES))}")
    return CATEGORIES[kind]


def _statuses(device: Device) -> dict:
    return device._real_backend().dtype_support()


def valid_dtypes_for(device=None, kind: str = "valid", *, native: bool = False) -> tuple:
    """The dtypes of category ``kind`` (``"valid"`` (all), ``"numeric"``, ``"int"``,
    ``"float"``, ``"uint"``, ``"complex"``) that ``device`` (default: the default device)
    supports, as ``wt.device_info(device)["dtypes"]`` reports them.  Every device webtensor has
    supports all 15 (the webgpu device routes float64/complex128 to the CPU); ``native=True``
    keeps only the dtypes the device computes itself."""
    fn = "valid_dtypes_for"
    group = _category(kind, fn)
    statuses = _statuses(as_device(device, fn))
    wanted = ("native",) if native else _VALID_STATUSES
    return tuple(dt for dt in group if statuses.get(dt.name) in wanted)


def invalid_dtypes_for(device=None, kind: str = "valid", *, native: bool = False) -> tuple:
    """The dtypes of category ``kind`` that ``device`` does not support (with ``native=True``:
    those it does not compute itself); the complement of ``valid_dtypes_for``."""
    group = _category(kind, "invalid_dtypes_for")
    valid = valid_dtypes_for(device, kind, native=native)
    return tuple(dt for dt in group if dt not in valid)


def default_device_tuple(name: str) -> tuple:
    """``wt.valid_float_dtypes`` and friends, computed now for the default device."""
    valid, kind = DEFAULT_DEVICE_TUPLES[name]
    return (valid_dtypes_for if valid else invalid_dtypes_for)(None, kind)


# -- native dtypes ---------------------------------------------------------------------------------

def as_native_dtype(dtype_in, /, *, device=None):
    """The backend's own object for a dtype on ``device`` (default: the default device):
    NumPy's dtype on the NumPy cpu backend (``ml_dtypes.bfloat16`` when that is installed), the
    webtensor dtype itself on backends that have no dtype objects (pure-Python cpu, webgpu).
    ``wt.dtype(native)`` converts back."""
    dt = _d.dtype(dtype_in)
    return as_device(device, "as_native_dtype")._real_backend().native_dtype(dt)


def native_dtype(x, /):
    """The native dtype of tensor ``x`` on its device (``as_native_dtype(x.dtype)`` there)."""
    if not isinstance(x, Tensor):
        raise TypeError(f"wt.native_dtype: expected a tensor, got {type(x).__name__}; for a "
                        f"dtype use wt.as_native_dtype(dtype, device=...)")
    return x.device._real_backend().native_dtype(x.dtype)


# -- casting modes ---------------------------------------------------------------------------------

_CASTS = ("crosscast", "upcast", "downcast")  # the order Ivy's combined mode tries them in
_MODE_NAMES = {"upcast": ("upcast",), "downcast": ("downcast",), "crosscast": ("crosscast",),
               "cast": _CASTS}
_casting = Setting("casting_mode", ())


def _parse_casting(mode, fn: str) -> tuple:
    if mode is None:
        return ()
    names = (mode,) if isinstance(mode, str) else mode
    if not isinstance(names, (tuple, list)) or not all(isinstance(m, str) for m in names):
        raise TypeError(f"wt.{fn}: mode must be one of {', '.join(map(repr, _MODE_NAMES))}, a "
                        f"tuple of them or None, got {mode!r}")
    chosen = set()
    for m in names:
        if m not in _MODE_NAMES:
            raise ValueError(f"wt.{fn}: unknown casting mode {m!r}; use one of "
                             f"{', '.join(map(repr, _MODE_NAMES))} or None (no casting)")
        chosen.update(_MODE_NAMES[m])
    return tuple(c for c in _CASTS if c in chosen)


def casting_mode(mode):
    """Let a function that does not support an input's dtype run on a nearby supported dtype
    (Ivy's data type casting modes); ``None`` turns casting off (the default).

    ``"upcast"``: the next wider supported dtype of the same group (signed ints, unsigned ints,
    floats, complex) that holds every value; ``"downcast"``: the next narrower supported one;
    ``"crosscast"``: when a function supports no integer dtype, integers go to the default
    float dtype, and when it supports no float dtype, floats go to the default int dtype;
    ``"cast"`` (or a tuple of modes): crosscast, then upcast, then downcast.  Process-wide, or
    local to the block with ``with wt.casting_mode("upcast"):``.  The result keeps the dtype
    the function computed in (nothing is cast back)."""
    return _casting.set(_parse_casting(mode, "casting_mode"))


def get_casting_mode() -> tuple:
    """The active casting modes, in the order they are tried (``()``: no casting)."""
    return _casting.get()


def _switch(name: str, val) -> object:
    if val is not True and val is not False:
        raise TypeError(f"wt.{name}_data_types: val must be True or False, got {val!r}")
    current = set(_casting.get())
    if val:
        current.update(_MODE_NAMES[name])
    else:
        current.difference_update(_MODE_NAMES[name])
    return _casting.set(tuple(c for c in _CASTS if c in current))


def upcast_data_types(val: bool = True):
    """Ivy's switch: turn upcasting on (or off with ``val=False``), keeping the other modes."""
    return _switch("upcast", val)


def downcast_data_types(val: bool = True):
    """Ivy's switch for downcasting (see ``casting_mode``)."""
    return _switch("downcast", val)


def crosscast_data_types(val: bool = True):
    """Ivy's switch for crosscasting (see ``casting_mode``)."""
    return _switch("crosscast", val)


def cast_data_types(val: bool = True):
    """Ivy's switch for all three modes at once (see ``casting_mode``)."""
    return _switch("cast", val)


# the dtype groups casting moves within, narrow to wide
_GROUPS = {
    "i": _d.all_signed_int_dtypes, "u": _d.all_uint_dtypes,
    "f": (_d.float16, _d.bfloat16, _d.float32, _d.float64), "c": _d.all_complex_dtypes,
}
_INTS = _d.all_int_dtypes


def _upcast(dt, allowed):
    group = _GROUPS.get(dt.kind, ())
    # wider and able to hold every value (float16 -> float32: bfloat16 would round)
    return next((t for t in group[group.index(dt) + 1:] if t in allowed
                 and t in _d.SAFE_CASTS[dt]), None) if dt in group else None


def _downcast(dt, allowed):
    group = _GROUPS.get(dt.kind, ())
    return next((t for t in reversed(group[:group.index(dt)]) if t in allowed), None) \
        if dt in group else None


def _crosscast(dt, allowed):
    if dt.kind in "iu" and not any(t in allowed for t in _INTS):
        order = (_d.default_float_dtype(),) + _GROUPS["f"]
    elif dt.kind == "f" and not any(t in allowed for t in _GROUPS["f"]):
        order = (_d.default_int_dtype(),) + _INTS
    else:
        return None
    return next((t for t in order if t in allowed), None)


_CASTERS = {"upcast": _upcast, "downcast": _downcast, "crosscast": _crosscast}


def cast_target(dt, allowed, modes=None):
    """The dtype the active casting modes give an unsupported ``dt`` (None: no casting)."""
    for mode in _casting.get() if modes is None else modes:
        found = _CASTERS[mode](dt, allowed)
        if found is not None:
            return found
    return None


def _map_tensors(args, kwargs, fn):
    """``args``/``kwargs`` with each tensor (also inside a list or tuple) replaced by
    ``fn(tensor)``."""
    def one(v):
        if v.__class__ is Tensor:
            return fn(v)
        if isinstance(v, (list, tuple)) and any(e.__class__ is Tensor for e in v):
            return type(v)(fn(e) if e.__class__ is Tensor else e for e in v)
        return v
    return tuple(one(a) for a in args), {k: one(v) for k, v in kwargs.items()}


def _tensors(args, kwargs):
    for v in (*args, *kwargs.values()):
        if v.__class__ is Tensor:
            yield v
        elif isinstance(v, (list, tuple)):
            yield from (e for e in v if e.__class__ is Tensor)


def apply_casting(args, kwargs, allowed_of):
    """Cast the tensors whose dtype is not allowed (``allowed_of(device)``: a set of dtypes)
    where the active casting modes find a target; others stay (the function then refuses
    them)."""
    from .api.datatypes import astype

    cache = {}

    def fix(t):
        allowed = cache.get(t.device)
        if allowed is None:
            allowed = cache[t.device] = allowed_of(t.device)
        if t.dtype in allowed:
            return t
        target = cast_target(t.dtype, allowed)
        return t if target is None else astype(t, target)
    return _map_tensors(args, kwargs, fix)


_MAKERS = ("arange", "linspace", "fft.fftfreq", "fft.rfftfreq")  # their table: the dtype made


def builtin_allowed(name: str):
    """For the public function ``name`` (as ``ops.function_kinds`` knows it): the function
    giving the set of dtypes it accepts on a device, or None when it accepts every dtype."""
    kinds = _ops.function_kinds(name)
    if kinds == _ops.ALL_KINDS or name in _MAKERS or name.startswith("random."):
        return None  # every dtype, or a table entry about the dtype a function makes

    def allowed(device):
        return frozenset(dt for dt in valid_dtypes_for(device) if dt.kind in kinds)
    return allowed


def casting_active() -> bool:
    return bool(_casting.get())


# -- support declarations --------------------------------------------------------------------------

# Ivy's dtype classes in declarations.
_CLASSES = {
    "valid": _d.all_dtypes, "numeric": _d.all_numeric_dtypes, "float": _d.all_float_dtypes,
    "integer": _d.all_int_dtypes, "unsigned": _d.all_uint_dtypes,
    "complex": _d.all_complex_dtypes,
}
_DEVICE_NAMES = ("cpu", "webgpu")


def _expand(entries, fn: str, device_name: str) -> frozenset:
    if isinstance(entries, str):
        entries = (entries,)
    if not isinstance(entries, (tuple, list, set, frozenset)):
        raise TypeError(f"wt.{fn}: the dtypes of {device_name!r} must be a tuple of dtype names "
                        f"or classes, got {entries!r}")
    out = set()
    for e in entries:
        if isinstance(e, str) and e in _CLASSES:
            out.update(_CLASSES[e])
            continue
        try:
            out.add(_d.dtype(e))
        except TypeError:
            raise TypeError(f"wt.{fn}: {e!r} (for {device_name!r}) is neither a dtype nor a "
                            f"dtype class; classes: {', '.join(map(repr, _CLASSES))}") from None
    return frozenset(out)


def _declaration(spec, fn: str) -> dict:
    if not isinstance(spec, dict):
        raise TypeError(f"wt.{fn}: expected a dict from device name to dtypes, e.g. "
                        f"{{'webgpu': ('float64', 'complex')}}, got {type(spec).__name__}")
    table = {}
    for name, entries in spec.items():
        key = name.name if isinstance(name, Device) else name
        if key not in _DEVICE_NAMES:
            raise ValueError(f"wt.{fn}: unknown device {name!r}; use "
                             f"{', '.join(map(repr, _DEVICE_NAMES))}")
        table[key] = _expand(entries, fn, key)
    return table


def _declare(spec, supported: bool, fn: str):
    table = _declaration(spec, fn)

    def decorate(function):
        if not callable(function):
            raise TypeError(f"wt.{fn}: decorates a function, got {type(function).__name__}")
        name = getattr(function, "__wt_name__", None) or getattr(function, "__qualname__",
                                                                  repr(function))
        cache: dict = {}  # device -> its allowed dtypes (fixed: declarations and devices are)

        def allowed(device):
            found = cache.get(device)
            if found is None:
                found = cache[device] = _function_allowed(wrapper, device)
            return found

        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            tensors = list(_tensors(args, kwargs))
            if tensors:
                ok = allowed(tensors[0].device)
                if any(t.dtype not in ok for t in tensors):
                    if casting_active():
                        args, kwargs = apply_casting(args, kwargs, allowed)
                        tensors = list(_tensors(args, kwargs))
                    bad = next((t for t in tensors if t.dtype not in allowed(t.device)), None)
                    if bad is not None:
                        _refuse(name, bad.dtype, bad.device, allowed(bad.device))
            return function(*args, **kwargs)

        wrapper.__wt_dtype_support__ = (supported, table)
        return wrapper
    return decorate


def _refuse(name: str, dt, device, allowed) -> None:
    names = ", ".join(d.name for d in _d.all_dtypes if d in allowed) or "none"
    raise TypeError(f"{name}: {dt.name} is not supported on the {device.name} device (supported "
                    f"there: {names}); cast the input with wt.astype, or let webtensor cast it: "
                    f"with wt.casting_mode('upcast' | 'downcast' | 'crosscast' | 'cast'): ...")


def with_supported_dtypes(dtypes: dict, /):
    """Decorator: the function supports only these dtypes on these devices, e.g.
    ``@wt.with_supported_dtypes({"webgpu": ("float32", "integer")})``.  Values are dtypes or
    Ivy's classes ``"valid"``, ``"numeric"``, ``"float"``, ``"integer"``, ``"unsigned"``,
    ``"complex"``; a device not named keeps every dtype.  A call whose tensors have another
    dtype raises TypeError naming the function, the dtype and the device (unless a casting
    mode finds a supported dtype).  ``wt.function_supported_dtypes`` reads the declaration."""
    return _declare(dtypes, True, "with_supported_dtypes")


def with_unsupported_dtypes(dtypes: dict, /):
    """Decorator: the function does not support these dtypes on these devices, e.g.
    ``@wt.with_unsupported_dtypes({"cpu": ("float16", "complex")})`` (see
    ``with_supported_dtypes``)."""
    return _declare(dtypes, False, "with_unsupported_dtypes")


# -- what a function supports ----------------------------------------------------------------------

_PREFIXES = {"webtensor.linalg": "linalg.", "webtensor.fft": "fft.",
             "webtensor.random": "random."}


def _public_name(fn) -> str | None:
    """``"max"``, ``"linalg.cross"``, ``"random.normal"`` for webtensor's public functions."""
    name = getattr(fn, "__wt_name__", None)
    if isinstance(name, str):
        return name[3:] if name.startswith("wt.") else None
    module = getattr(fn, "__module__", "") or ""
    if not module.startswith("webtensor.") or not hasattr(fn, "__name__"):
        return None
    import webtensor

    prefix = _PREFIXES.get(module, "")
    owner = {"linalg.": webtensor.linalg, "fft.": webtensor.fft,
             "random.": webtensor.random}.get(prefix, webtensor)
    found = getattr(owner, fn.__name__, None)
    same = found is fn or getattr(found, "__wrapped__", None) is fn
    return prefix + fn.__name__ if same else None


def _function_allowed(fn, device: Device, _depth: int = 0) -> frozenset:
    valid = frozenset(valid_dtypes_for(device))
    declared = getattr(fn, "__wt_dtype_support__", None)
    if declared is not None:
        supported, table = declared
        listed = table.get(device.name)
        inner = getattr(fn, "__wrapped__", None)
        base = valid
        if inner is not None and _depth < 32 and _describable(inner):
            base = _function_allowed(inner, device, _depth + 1)
        if listed is None:
            return base
        return base & listed if supported else base - listed
    name = _public_name(fn)
    if name is None:
        raise TypeError(f"wt.function_supported_dtypes: {fn!r} is neither one of webtensor's "
                        f"own functions (wt, wt.linalg, wt.fft, wt.random) nor declares its "
                        f"dtypes; decorate it with wt.with_supported_dtypes or "
                        f"wt.with_unsupported_dtypes")
    kinds = _ops.function_kinds(name)
    return frozenset(dt for dt in valid if dt.kind in kinds)


def _describable(fn) -> bool:
    return hasattr(fn, "__wt_dtype_support__") or _public_name(fn) is not None


def _resolve_function(fn, caller: str):
    if isinstance(fn, str):
        import webtensor

        owner, _, attr = fn.rpartition(".")
        target = {"": webtensor, "linalg": webtensor.linalg, "fft": webtensor.fft,
                  "random": webtensor.random}.get(owner)
        found = getattr(target, attr, None) if target is not None else None
        if not callable(found) or _public_name(found) is None:
            raise ValueError(f"wt.{caller}: {fn!r} is not a public webtensor function (names "
                             f"like 'sort', 'linalg.cross', 'fft.rfft')")
        return found
    if not callable(fn):
        raise TypeError(f"wt.{caller}: expected a function or a function name, got "
                        f"{type(fn).__name__}")
    return fn


def function_supported_dtypes(fn, /, *, device=None) -> tuple:
    """The dtypes ``fn`` supports on ``device`` (default: the default device): for webtensor's
    public functions (or their names: ``"sort"``, ``"linalg.cross"``), the dtypes of the kinds
    its op table accepts that the device supports; for a function decorated with
    ``with_supported_dtypes``/``with_unsupported_dtypes``, its declaration (applied to what
    the function it wraps supports, when that is a webtensor function)."""
    fn = _resolve_function(fn, "function_supported_dtypes")
    allowed = _function_allowed(fn, as_device(device, "function_supported_dtypes"))
    return tuple(dt for dt in _d.all_dtypes if dt in allowed)


def function_unsupported_dtypes(fn, /, *, device=None) -> tuple:
    """The dtypes ``fn`` does not support on ``device``: the rest of the 15."""
    supported = function_supported_dtypes(fn, device=device)
    return tuple(dt for dt in _d.all_dtypes if dt not in supported)


# -- promotion helpers (Ivy's names) ---------------------------------------------------------------

def promote_types_of_inputs(x1, x2, /) -> tuple:
    """``x1`` and ``x2`` (tensors or Python scalars) as two tensors of their promoted dtype
    (``wt.result_type`` in the active promotion mode; a scalar joins the tensor's device)."""
    from .api._common import promote
    from .tensor import cast, scalar

    dt, weak, device, args = promote((x1, x2), "promote_types_of_inputs")
    # scalar, not the cached operand: the caller owns (and may write) what it gets back
    return tuple(cast(a, dt, weak=weak) if a.__class__ is Tensor else scalar(a, dt, device, weak)
                 for a in args)


def type_promote_arrays(x1, x2, /) -> tuple:
    """Two tensors (or array-likes) cast to their promoted dtype (``wt.promote_types``)."""
    from .api._common import as_tensor
    from .tensor import cast

    fn = "type_promote_arrays"
    a, b = as_tensor(x1, fn), as_tensor(x2, fn)
    dt = _p.result_type(a, b)
    return cast(a, dt, weak=False), cast(b, dt, weak=False)


def precise_mode(precise: bool = True):
    """Ivy's ``PreciseMode``: ``True`` is the ``numpy`` promotion mode (NumPy 2's table, no
    precision lost: float32 with int32 gives float64), ``False`` the ``standard`` one
    (float32 with int32 gives float32).  Process-wide, or local in a ``with`` block."""
    if precise is not True and precise is not False:
        raise TypeError(f"wt.precise_mode: expected True or False, got {precise!r}")
    return _p.set_promotion_mode("numpy" if precise else "standard")
