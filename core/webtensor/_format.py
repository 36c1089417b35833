"""Text formatting of tensors: ``repr`` and ``str``, laid out like NumPy, in pure Python.

``Tensor.__repr__``/``__str__`` come here.  Values are read through the backend's one read path
(``to_values``); a big tensor (more than ``threshold`` elements) is summarized with ``...`` and
only its edges are read.  The layout (alignment, wrapping at ``linewidth``, blank lines between
blocks) is NumPy's ``array2string`` algorithm; NumPy itself is never called, so this works in
Pyodide without it.

Floats print with the *shortest* digits that round-trip at the tensor's own precision (a float32
``sqrt(2)`` is ``1.4142135``, not ``1.4142135381698608``), in NumPy's style (``1.``, ``2.5``,
``1.0e-05``); ``set_printoptions(precision=8)`` caps the fractional digits as NumPy's default
does.  Complex values print as ``1.+2.j``, bools as ``True``/``False``.
"""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction
from itertools import product

from ._settings import Setting

__all__ = ["tensor_repr", "tensor_str", "set_printoptions", "get_printoptions", "format_float"]

_DEFAULTS = {"threshold": 1000, "edgeitems": 3, "linewidth": 75, "precision": None}
_options = Setting("printoptions", dict(_DEFAULTS))


def get_printoptions() -> dict:
    """The current print options (a copy): threshold, edgeitems, linewidth, precision."""
    return dict(_options.get())


def set_printoptions(*, threshold=None, edgeitems=None, linewidth=None, precision=...,
                     reset: bool = False):
    """Change how tensors print (process-wide, or only inside a ``with`` block).

    * ``threshold`` - tensors with more elements are summarized with ``...`` (default 1000).
    * ``edgeitems`` - items kept at each end of a summarized axis (default 3, at least 1).
    * ``linewidth`` - characters per line before wrapping (default 75).
    * ``precision`` - ``None`` (default): the shortest round-tripping digits; an int caps the
      fractional digits like NumPy's ``precision`` (NumPy's default is 8).
    * ``reset=True`` - start from the defaults.
    """
    new = dict(_DEFAULTS) if reset else dict(_options.get())
    for name, value, low in (("threshold", threshold, 0), ("edgeitems", edgeitems, 1),
                             ("linewidth", linewidth, 1)):
        if value is None:
            continue
        if not isinstance(value, int) or isinstance(value, bool) or value < low:
            raise ValueError(f"wt.set_printoptions: {name} must be an int >= {low}, got "
                             f"{value!r}")
        new[name] = value
    if precision is not ...:
        if precision is not None and (not isinstance(precision, int) or
                                      isinstance(precision, bool) or precision < 0):
            raise ValueError(f"wt.set_printoptions: precision must be None (shortest "
                             f"round-trip) or an int >= 0, got {precision!r}")
        new["precision"] = precision
    return _options.set(new)


# -- binary formats and rounding -----------------------------------------------------------------

# name -> (significand bits, min normal exponent, max exponent, max significant decimal digits,
#          arrays switch to scientific at this magnitude, and scalars (0-d str) at this one).
# NOTE: the cutoffs are NumPy 2.3+'s: 10**min(8, finfo.precision) for arrays, and for scalars
# 1e3 (float16), 1e6 (float32), 1e16 (float64); bfloat16 (finfo.precision 2) follows the rule.
_BINARY = {
    "float16": (11, -14, 15, 5, 1e3, 1e3),
    "bfloat16": (8, -126, 127, 4, 1e2, 1e2),
    "float32": (24, -126, 127, 9, 1e6, 1e6),
    "float64": (53, -1022, 1023, 17, 1e8, 1e16),
}


def _round_to(x: float, fmt) -> tuple[float, bool]:
    """``x`` rounded to nearest-even in ``fmt`` -> (value, whether ``x`` was an exact tie)."""
    mant, emin, emax = fmt[:3]
    if x == 0.0 or mant == 53 or not math.isfinite(x):
        return x, False
    m, e = math.frexp(x)  # |x| = |m| * 2**e, 0.5 <= |m| < 1: the leading bit is 2**(e - 1)
    keep = mant - max(0, emin - (e - 1))  # fewer significant bits for subnormals
    if keep < 0:
        return math.copysign(0.0, x), False
    scaled = math.ldexp(m, keep)  # exact
    tie = abs(scaled - math.trunc(scaled)) == 0.5
    y = math.ldexp(round(scaled), e - keep)  # round() on a float rounds half to even
    if abs(y) >= math.ldexp(1.0, emax + 1):
        return math.copysign(math.inf, x), tie
    return (y if y != 0.0 else math.copysign(0.0, x)), tie


def _round_exact(q: Fraction, fmt) -> float:
    """A decimal (as an exact Fraction) rounded once to ``fmt`` (no double rounding)."""
    if q == 0:
        return 0.0
    mant, emin, emax = fmt[:3]
    a = abs(q)
    lead = a.numerator.bit_length() - a.denominator.bit_length()
    if a < Fraction(2) ** lead:
        lead -= 1
    lead = max(lead, emin)
    unit = Fraction(2) ** (lead - mant + 1)
    y = round(a / unit) * unit  # Fraction.__round__ rounds half to even
    value = math.inf if y >= Fraction(2) ** (emax + 1) else float(y)
    return -value if q < 0 else value


def _round_trips(s: str, v: float, fmt) -> bool:
    y, tie = _round_to(float(s), fmt)
    if tie:  # float(s) fell exactly on a midpoint: decide on the exact decimal instead
        y = _round_exact(Fraction(s), fmt)
    return y == v


def _shortest(v: float, fmt) -> str:
    """The shortest decimal (Python 'e' notation) that reads back as ``v`` in ``fmt``."""
    if fmt[0] == 53:
        return repr(v)
    for p in range(fmt[3] + 2):
        s = f"{v:.{p}e}"
        if _round_trips(s, v, fmt):
            return s
    return repr(v)  # unreachable for values of the format


def _digits(s: str) -> tuple[str, int]:
    """A decimal string -> (significant digits without trailing zeros, decimal exponent E) so
    that ``|value| = d0.d1d2... * 10**E``; zero is ('0', 0)."""
    _, digits, exp = Decimal(s).as_tuple()
    ds = "".join(map(str, digits)).lstrip("0")
    if not ds:
        return "0", 0
    stripped = ds.rstrip("0")
    return stripped, exp + len(ds) - 1


def _sig_digits(v: float, fmt, precision, scientific: bool) -> tuple[str, int]:
    """Digits of ``|v|``: shortest round-trip, capped at ``precision`` fractional digits."""
    ds, e = _digits(_shortest(abs(v), fmt))
    if precision is None:
        return ds, e
    if scientific:
        if len(ds) - 1 > precision:
            return _digits(f"{abs(v):.{precision}e}")
    elif len(ds) - 1 - e > precision:
        return _digits(f"{abs(v):.{precision}f}")
    return ds, e


def _positional(ds: str, e: int) -> tuple[str, str]:
    """(integer part, fractional part) of ``d0.d1... * 10**e``."""
    if ds == "0":
        return "0", ""
    if e >= 0:
        if len(ds) <= e + 1:
            return ds + "0" * (e + 1 - len(ds)), ""
        return ds[:e + 1], ds[e + 1:]
    return "0", "0" * (-e - 1) + ds


def format_float(v: float, dtype_name: str = "float64") -> str:
    """One float as NumPy's ``str`` of a scalar prints it (``str`` of 0-d tensors): the
    shortest digits at the dtype's precision, positional for ``1e-4 <= |v| <`` a per-dtype
    cutoff, else scientific: ``1.0``, ``1.4142135``, ``1e-05``, ``1.234567e+06``, ``nan``."""
    if not math.isfinite(v):
        return repr(v)
    fmt = _BINARY.get(dtype_name, _BINARY["float64"])
    ds, e = _digits(_shortest(abs(v), fmt))
    sign = "-" if math.copysign(1.0, v) < 0 else ""
    if v == 0 or 1e-4 <= abs(v) < fmt[5]:
        ip, fp = _positional(ds, e)
        return f"{sign}{ip}.{fp or '0'}"
    mantissa = ds[0] + ("." + ds[1:] if len(ds) > 1 else "")
    return f"{sign}{mantissa}e{'-' if e < 0 else '+'}{abs(e):02d}"


# -- element formatters (NumPy's FloatingFormat / IntegerFormat / BoolFormat) -------------------

class _FloatFormat:
    """Formats all values of one float column set so that decimal points align."""

    def __init__(self, values: list, fmt, precision, plus: bool = False):
        self.fmt, self.plus = fmt, plus
        finite = [v for v in values if math.isfinite(v)]
        nonzero = [abs(v) for v in finite if v != 0.0]
        self.exp = False
        if nonzero:
            hi, lo = max(nonzero), min(nonzero)
            # NOTE: NumPy compares in the array's dtype, so the thresholds are rounded to it.
            self.exp = (hi >= _round_to(fmt[4], fmt)[0] or lo < _round_to(1e-4, fmt)[0]
                        or _round_to(hi / lo, fmt)[0] > 1000.0)
        self.parts = {}
        self.pad_left = self.pad_right = 0
        self.frac = 0
        self.exp_size = 2
        if finite:
            rows = []
            for v in finite:
                key = (v, math.copysign(1.0, v))
                if key not in self.parts:
                    self.parts[key] = _sig_digits(v, fmt, precision, self.exp)
                rows.append((v, self.parts[key]))
            if self.exp:
                self.frac = max(len(ds) - 1 for _, (ds, _) in rows)
                self.exp_size = max(2, max(len(str(abs(e))) for _, (_, e) in rows))
                # NumPy pads shorter values with the exact value's further digits (its
                # min_digits), not with zeros: float32 0.3543026 prints as 3.5430259e-01.
                for key, (ds, _) in list(self.parts.items()):
                    if len(ds) - 1 < self.frac:
                        self.parts[key] = _digits(f"{abs(key[0]):.{self.frac}e}")
                self.pad_left = max(len(self._sign(v)) + 1 for v, _ in rows)
                self.pad_right = self.exp_size + 2 + self.frac
            else:
                split = [(self._sign(v) + ip, fp) for v, (ds, e) in rows
                         for ip, fp in [_positional(ds, e)]]
                self.pad_left = max(len(ip) for ip, _ in split)
                self.pad_right = max(len(fp) for _, fp in split)
        if len(finite) != len(values):
            neginf = plus or any(v == -math.inf for v in values)
            offset = self.pad_right + 1
            self.pad_left = max(self.pad_left, 3 - offset, 3 + neginf - offset)

    def _sign(self, v: float) -> str:
        if math.copysign(1.0, v) < 0:
            return "-"
        return "+" if self.plus else ""

    def __call__(self, v: float) -> str:
        if not math.isfinite(v):
            if v != v:
                ret = ("+" if self.plus else "") + "nan"
            else:
                ret = ("-" if v < 0 else "+" if self.plus else "") + "inf"
            return ret.rjust(self.pad_left + self.pad_right + 1)
        key = (v, math.copysign(1.0, v))
        ds, e = self.parts[key]
        sign = self._sign(v)
        if self.exp:
            mantissa = (sign + ds[0]).rjust(self.pad_left) + "." + ds[1:].ljust(self.frac, "0")
            return f"{mantissa}e{'-' if e < 0 else '+'}{str(abs(e)).zfill(self.exp_size)}"
        ip, fp = _positional(ds, e)
        return (sign + ip).rjust(self.pad_left) + "." + fp.ljust(self.pad_right)


def _formatter(values: list, dtype, precision, zero_d: bool):
    """A function value -> string for the elements ``values`` of a tensor of ``dtype``."""
    kind = dtype.kind
    if kind == "b":
        true = "True" if zero_d else " True"
        return lambda v: true if v else "False"
    if kind in "iu":
        width = max((len(str(v)) for v in values), default=0)
        return lambda v: str(v).rjust(width)
    if kind == "f":
        return _FloatFormat(values, _BINARY[dtype.name], precision)
    fmt = _BINARY[dtype.real_dtype.name]
    real = _FloatFormat([c.real for c in values], fmt, precision)
    imag = _FloatFormat([c.imag for c in values], fmt, precision, plus=True)

    def complex_format(c):
        i = imag(c.imag)
        sp = len(i.rstrip())
        return real(c.real) + i[:sp] + "j" + i[sp:]

    return complex_format


# -- reading the values to show --------------------------------------------------------------------

def _compact(t, summarize: bool, edge: int):
    """(compact shape, flat C-order values): with ``summarize``, each axis longer than
    ``2 * edge`` keeps only its first and last ``edge`` items; only those are read."""
    backend = t.device.backend
    shape = t.shape
    if not summarize or all(n <= 2 * edge for n in shape):
        return shape, backend.to_values(t)
    segments = []  # per axis: (source start, length, start in the compact axis)
    for n in shape:
        segments.append([(0, edge, 0), (n - edge, edge, edge)] if n > 2 * edge else [(0, n, 0)])
    cshape = tuple(sum(seg[1] for seg in segs) for segs in segments)
    cstrides = []
    step = 1
    for n in reversed(cshape):
        cstrides.append(step)
        step *= n
    cstrides.reverse()
    flat = [None] * step
    for combo in product(*segments):
        bshape = tuple(seg[1] for seg in combo)
        offset = t.offset + sum(seg[0] * s for seg, s in zip(combo, t.strides))
        values = backend.to_values(t._view(bshape, t.strides, offset))
        positions = [sum(seg[2] * s for seg, s in zip(combo, cstrides))]
        for n, s in zip(bshape, cstrides):
            positions = [p + k * s for p in positions for k in range(n)]
        for p, v in zip(positions, values):
            flat[p] = v
    return cshape, flat


# -- layout (NumPy's _formatArray) ----------------------------------------------------------------

def _extend_line(s: str, line: str, word: str, width: int, prefix: str):
    if len(line) + len(word) > width and len(line) > len(prefix):
        s += line.rstrip() + "\n"
        line = prefix
    return s, line + word


def _layout(words: list, cshape, shape, width: int, prefix: str, sep: str, edge: int,
            summary: bool) -> str:
    """Nested brackets over the flat strings ``words`` (C order over ``cshape``)."""
    ndim = len(shape)
    cstrides = [1] * ndim
    for i in range(ndim - 2, -1, -1):
        cstrides[i] = cstrides[i + 1] * cshape[i + 1]

    def recurse(axis: int, base: int, hanging: str, curr_width: int) -> str:
        if axis == ndim:
            return words[base]
        next_hanging = hanging + " "
        next_width = curr_width - 1
        n, cn, stride = shape[axis], cshape[axis], cstrides[axis]
        show = summary and 2 * edge < n
        lead, trail = (edge, edge) if show else (0, cn)

        def item(i):  # i < 0 counts from the end of the compact axis
            return recurse(axis + 1, base + (i % cn) * stride, next_hanging, next_width)

        if axis == ndim - 1:
            elem_width = curr_width - max(len(sep.rstrip()), 1)
            s, line = "", hanging
            for i in range(lead):
                s, line = _extend_line(s, line, item(i), elem_width, hanging)
                line += sep
            if show:
                s, line = _extend_line(s, line, "...", elem_width, hanging)
                line += sep
            for i in range(trail, 1, -1):
                s, line = _extend_line(s, line, item(-i), elem_width, hanging)
                line += sep
            s, line = _extend_line(s, line, item(-1), elem_width, hanging)
            s += line
        else:
            s = ""
            line_sep = sep.rstrip() + "\n" * (ndim - axis - 1)
            for i in range(lead):
                s += hanging + item(i) + line_sep
            if show:
                s += hanging + "..." + line_sep
            for i in range(trail, 1, -1):
                s += hanging + item(-i) + line_sep
            s += hanging + item(-1)
        return "[" + s[len(hanging):] + "]"

    return recurse(0, 0, prefix, width)


def _array_text(t, sep: str, prefix: str, width: int) -> str:
    options = _options.get()
    if t.size == 0:
        return "[]"
    summary = t.size > options["threshold"]
    edge = options["edgeitems"]
    cshape, values = _compact(t, summary, edge)
    fmt = _formatter(values, t.dtype, options["precision"], zero_d=not t.shape)
    words = [fmt(v) for v in values]
    if not t.shape:
        return words[0]
    return _layout(words, cshape, t.shape, width, " " * (len(prefix) + 1), sep, edge, summary)


def _no_data(t):
    """Why a tensor has no values to show (a device standing for "no data", such as
    ``webtensor.nx``'s templates), else None."""
    return getattr(t.device, "no_data", None)


def tensor_str(t) -> str:
    """The values alone, like NumPy's ``str(array)``; a 0-d tensor prints as its scalar."""
    if _no_data(t) is not None:
        return f"<{_no_data(t)}>"
    if not t.shape:
        value = t.device.backend.to_values(t)[0]
        kind = t.dtype.kind
        if kind == "f":
            return format_float(value, t.dtype.name)
        if kind == "c":
            name = t.dtype.real_dtype.name
            re, im = value.real, value.imag
            # Like Python's and NumPy's complex repr: integral parts drop their ".0".
            real = format_float(re, name).removesuffix(".0")
            imag = format_float(im, name).removesuffix(".0")
            if re == 0 and math.copysign(1.0, re) > 0:
                return imag + "j"
            return f"({real}{imag if imag[0] == '-' else '+' + imag}j)"
        return str(value)
    return _array_text(t, " ", "", _options.get()["linewidth"])


def tensor_repr(t) -> str:
    """``Tensor([...], shape=..., dtype=..., device=...[, weak=True][, names=...])``."""
    prefix = "Tensor("
    width = _options.get()["linewidth"]
    values = f"<{_no_data(t)}>" if _no_data(t) is not None else \
        _array_text(t, ", ", prefix, width - 1)
    text = prefix + values + ","
    parts = [f"shape={t.shape}", f"dtype={t.dtype.name}", f"device={t.device.name}"]
    if t.weak:
        parts.append("weak=True")
    if t.names is not None:
        parts.append(f"names={t.names}")
    meta = ", ".join(parts) + ")"
    last = len(text) - (text.rfind("\n") + 1)
    spacer = " " if last + len(meta) + 1 <= width else "\n" + " " * len(prefix)
    return text + spacer + meta
