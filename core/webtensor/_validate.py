"""Arguments checked at the API boundary: one small set of validators, and a table of the
keyword arguments every public function shares, checked by one wrapper.

Every public function of ``wt``, ``wt.linalg``, ``wt.fft`` and ``wt.random`` is wrapped by
:func:`checked`: keyword arguments whose name is in :data:`KEYWORDS` (``keepdims``, ``dtype``,
``copy``, ``device``, ...) are validated before the function runs, so a bad value is a
TypeError/ValueError naming the function, the argument, the value and what is accepted - never
a crash deep inside, never silently accepted.  Positional arguments are checked by the
functions themselves with the same validators (``integer``, ``count``...).
"""

from __future__ import annotations

import functools
import inspect
import math
import operator

from . import dtypes as _d

_MAX_COUNT = 1 << 62  # no count of elements can be larger (the largest tensor is 2**62 bytes)


def _show(value) -> str:
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{text} ({type(value).__name__})"


def integer(value, fn: str, name: str) -> int:
    """A Python int (anything with ``__index__``, bools refused): sizes, counts, offsets."""
    if isinstance(value, (bool, float, complex, str, bytes)):
        raise TypeError(f"{fn}: {name} must be an integer, got {_show(value)}")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{fn}: {name} must be an integer, got {_show(value)}") from None


def count(value, fn: str, name: str) -> int:
    """A non-negative integer that sizes an allocation (checked before anything is made)."""
    n = integer(value, fn, name)
    if n < 0:
        raise ValueError(f"{fn}: {name} must be >= 0, got {n}")
    if n > _MAX_COUNT:
        raise MemoryError(f"{fn}: {name}={n} would need more memory than any device has (the "
                          f"largest tensor holds at most 2**62 bytes); use a smaller {name}")
    return n


def flag(value, fn: str, name: str) -> bool:
    """``True`` or ``False`` (NumPy's bool too): not any truthy object."""
    if value is True or value is False:
        return value
    if type(value).__name__ == "bool_" and type(value).__module__ == "numpy":
        return bool(value)
    raise TypeError(f"{fn}: {name} must be True or False, got {_show(value)}")


def copy_flag(value, fn: str, name: str = "copy"):
    """The Array API's ``copy``: True (always), False (never) or None (when needed)."""
    if value is None or value is True or value is False:
        return value
    raise TypeError(f"{fn}: {name} must be True (always copy), False (never copy) or None "
                    f"(copy when needed), got {_show(value)}")


def real_number(value, fn: str, name: str) -> float:
    """A finite real Python number (or 0-d real tensor / NumPy scalar)."""
    if isinstance(value, (bool, str, bytes, complex)):
        raise TypeError(f"{fn}: {name} must be a real number, got {_show(value)}")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise TypeError(f"{fn}: {name} must be a real number, got {_show(value)}") from None
    if not math.isfinite(number):
        raise ValueError(f"{fn}: {name} must be finite, got {number}")
    return number


def option(value, fn: str, name: str, choices) -> str:
    """One of the strings ``choices``."""
    if not isinstance(value, str):
        raise TypeError(f"{fn}: {name} must be one of {', '.join(map(repr, choices))}, got "
                        f"{_show(value)}")
    if value not in choices:
        raise ValueError(f"{fn}: {name}={value!r} is not understood; use one of "
                         f"{', '.join(map(repr, choices))}")
    return value


def dtype_arg(value, fn: str, name: str = "dtype"):
    """A data type *specifier* (a DType, a name, a Python or NumPy type): not a value that
    has a dtype (a tensor, an array, a NumPy scalar such as ``np.float32(1)``)."""
    if value is None or value.__class__ is _d.DType:
        return value
    if isinstance(value, (type, str)):
        pass
    elif type(value).__module__.startswith("numpy") and hasattr(value, "fields") and \
            hasattr(value, "char"):
        pass  # a NumPy dtype object
    elif hasattr(value, "dtype") or isinstance(value, (int, float, complex)):
        raise TypeError(f"{fn}: {name}={value!r:.60} is not a data type but a value; pass a "
                        f"dtype (wt.float32, 'int64', float...), or a value's: {name}=x.dtype")
    try:
        return _d.dtype(value)
    except TypeError as e:
        accepted = str(e).partition("Accepted: ")[2] or "a wt dtype such as wt.float32"
        raise TypeError(f"{fn}: {name}={value!r} is not a data type; accepted: {accepted}") \
            from None


def device_arg(value, fn: str, name: str = "device"):
    if value is None:
        return None
    from .device import Device, as_device

    if not isinstance(value, (str, Device)):
        raise TypeError(f"{fn}: {name} must be a device name ('cpu', 'webgpu') or a "
                        f"wt.Device, got {_show(value)}")
    return as_device(value, fn[3:] if fn.startswith("wt.") else fn)


# parameter name -> validator(value, fn, name): the arguments public functions share, checked
# by name wherever they appear (positionally or by keyword)
KEYWORDS = {
    **dict.fromkeys(("keepdims", "endpoint", "stable", "descending", "upper", "full_matrices",
                     "equal_nan", "return_index", "return_inverse", "return_counts", "invert",
                     "returned", "density", "include_initial", "independent", "replace"), flag),
    "copy": copy_flag, "dtype": dtype_arg, "device": device_arg, "correction": real_number,
}

# errors whose message is renamed to the function the user called
_RENAMED = (TypeError, ValueError, IndexError, MemoryError, OverflowError)


def _rename(error: BaseException, fn: str) -> None:
    """Make ``error``'s message name ``fn`` (the public function called) in place of the
    internal function that raised it, keeping its type and traceback."""
    if not error.args or not isinstance(error.args[0], str):
        return
    message = error.args[0]
    if message.startswith((fn + ":", fn + "(")):
        return
    head, sep, rest = message.partition(": ")
    if sep and head.startswith(("wt.", "tf.", "nx.")) and " " not in head:
        message = f"{fn}: {rest}"  # wt.asarray: ... raised inside wt.zeros_like
    else:
        message = f"{fn}: {message}"
    error.args = (message, *error.args[1:])


def checked(function, qualname: str, fn: str | None = None):
    """``function`` with the :data:`KEYWORDS` it receives validated first, and the errors it
    raises naming it (``fn``, by default ``wt.<qualname>``) rather than the internal function
    that noticed."""
    fn = fn or f"wt.{qualname}"
    try:
        parameters = list(inspect.signature(function).parameters.values())
    except (TypeError, ValueError):
        parameters = []
    positional = tuple((i, p.name, KEYWORDS[p.name]) for i, p in enumerate(parameters)
                       if p.name in KEYWORDS and p.kind in (p.POSITIONAL_ONLY,
                                                            p.POSITIONAL_OR_KEYWORD))
    from . import dtype_support as _support

    # functions refusing some dtypes: the active casting mode may cast their inputs first
    allowed = _support.builtin_allowed(qualname) if fn.startswith("wt.") else None
    casting = _support._casting

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        for key, value in kwargs.items():
            check = KEYWORDS.get(key)
            if check is not None and value is not None:
                check(value, fn, key)
        for i, key, check in positional:
            if i < len(args) and args[i] is not None:
                check(args[i], fn, key)
        if allowed is not None and casting.get():
            args, kwargs = _support.apply_casting(args, kwargs, allowed)
        try:
            return function(*args, **kwargs)
        except _RENAMED as error:
            _rename(error, fn)
            raise
    wrapper.__wt_checked__ = True
    wrapper.__wt_name__ = fn
    return wrapper
