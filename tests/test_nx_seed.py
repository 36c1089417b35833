"""Every ``iex>`` example of the Nx v0.4 documentation (the seed), run on every device.

Oracle: the seed's own printed results (tests/nx_seed_cases.py).  A printed tensor is checked
three ways: the header (Nx type, axis names and sizes) must be the seed's exactly; the layout
of the values (brackets and commas, one slot per number) must be the same; and the numbers
must be equal: integers exactly, floats to the precision the seed prints them with (the
float64 text of a float32 value is that value exactly, so f32/f16/bf16 results are compared
within 4 ULP of their own type, which allows a transcendental function its rounding on the
GPU), NaN and infinities as such.
"""

from __future__ import annotations

import math
import re
import struct

import pytest

import webtensor as wt
import webtensor.nx as nx
from nx_seed_cases import CASES

_EPS = {"f16": 2.0 ** -10, "bf16": 2.0 ** -7, "f32": 2.0 ** -23, "f64": 2.0 ** -52,
        "c64": 2.0 ** -23, "c128": 2.0 ** -52}
_NUMBER = re.compile(r"-?Inf|NaN|-?\d+(?:\.\d+)?(?:e-?\d+)?")



def _parse_number(text: str):
    if text in ("Inf", "-Inf"):
        return math.inf if text == "Inf" else -math.inf
    if text == "NaN":
        return math.nan
    return float(text) if any(c in text for c in ".e") else int(text)


def _parse_values(body: str) -> list:
    """The numbers of an Nx value text in order; complex ``a+bi`` as complex."""
    out = []
    for token in re.findall(r"[^\s\[\],]+", body):
        m = re.fullmatch(rf"({_NUMBER.pattern})([+-](?:Inf|NaN|\d+(?:\.\d+)?(?:e-?\d+)?))i",
                         token)
        if m:
            out.append(complex(_parse_number(m.group(1)), _parse_number(m.group(2))))
        else:
            out.append(_parse_number(token))
    return out


def _skeleton(body: str) -> str:
    """The layout of a value text: brackets and commas, each number a '#'."""
    flat = re.sub(r"\s+", "", body)
    return re.sub(r"[^\[\],]+", "#", flat)


def _close(got, want, type_name: str, scale: float = 0.0) -> bool:
    """``got`` within 4 ULP of ``want`` (of the seed's type); near zero within 4 ULP of
    ``scale * eps``, ``scale`` being the tensor's largest magnitude (sums that cancel, as in
    an inverse FFT, leave an error of that size)."""
    if isinstance(want, complex) or isinstance(got, complex):
        got, want = complex(got), complex(want)
        return _close(got.real, want.real, type_name, scale) and \
            _close(got.imag, want.imag, type_name, scale)
    if isinstance(want, int) and not type_name.startswith(("f", "bf", "c")):
        return got == want
    if math.isnan(want):
        return math.isnan(got)
    if math.isinf(want):
        return got == want
    eps = _EPS.get(type_name, 0.0)
    return abs(got - want) <= 4 * eps * max(abs(want), scale * eps, 2.0 ** -126)


def _check_tensor(value, expected: str, dev, context: str) -> None:
    assert isinstance(value, wt.Tensor), f"{context}: expected a tensor, got {value!r}"
    lines = [line.strip() for line in expected.strip().splitlines()]
    complete = lines[-1] == ">"
    assert lines[0] == "#Nx.Tensor<"
    want_header = lines[1]
    body = " ".join(lines[2:-1] if complete else lines[2:])
    got_text = nx.inspect(value)
    got_lines = [line.strip() for line in got_text.splitlines()]
    assert got_lines[1] == want_header, f"{context}: header {got_lines[1]!r} != {want_header!r}"
    got_body = " ".join(got_lines[2:-1])
    if body == "Nx.TemplateBackend":
        assert got_body == body, f"{context}: {got_text}"
        return
    if complete:
        assert _skeleton(got_body) == _skeleton(body), \
            f"{context}: layout differs\n got {got_text}\nwant {expected}"
    want = _parse_values(body)
    got = value.tolist() if value.shape else [value.item()]
    flat = _flatten(got)
    if complete:
        assert len(flat) == len(want), f"{context}: {len(flat)} values, the seed has {len(want)}"
    type_name = want_header.split("[")[0]
    scale = max((abs(w) for w in want if not (isinstance(w, float) and not math.isfinite(w))),
                default=0.0)
    bad = [(i, g, w) for i, (g, w) in enumerate(zip(flat, want))
           if not _close(g, w, type_name, scale)]
    assert not bad, f"{context}: values differ at {bad[:5]}\n got {got_text}\nwant {expected}"
    assert value.device is dev or value.device.name == "Nx.TemplateBackend", \
        f"{context}: computed on {value.device}, not {dev}"


def _flatten(x) -> list:
    if isinstance(x, list):
        return [v for item in x for v in _flatten(item)]
    return [x]


# Nx's ArgumentError is a ValueError (values, shapes), TypeError (types) or IndexError here; its
# RuntimeError stays one for templates, and is a ValueError for a bad option value (fft length)
_ERRORS = {"ArgumentError": (ValueError, TypeError, IndexError),
           "RuntimeError": (RuntimeError, ValueError)}


def _run(code: str, ns: dict):
    """Runs a statement; returns the value it shows (an expression's, or an assignment's)."""
    m = re.fullmatch(r"(\w+) = (.+)", code)
    if m and "=" not in m.group(1):
        ns[m.group(1)] = eval(m.group(2), ns)
        return ns[m.group(1)]
    try:
        return eval(compile(code, "<seed>", "eval"), ns)
    except SyntaxError:
        exec(code, ns)
        return None


def _params():
    return [pytest.param(steps, id=f"line{line}") for line, steps in CASES]


@pytest.mark.parametrize("steps", _params())
def test_seed_example(dev, steps):
    run_steps(steps, dev)


def run_steps(steps, dev) -> None:
    """Runs the statements of one example in order on ``dev``, checking each shown value."""
    ns = {"nx": nx, "wt": wt, "struct": struct, "math": math}
    with wt.set_default_device(dev):
        for code, expected in steps:
            context = f"{code!r} on {dev}"
            if expected.startswith("** ("):
                kind, message = re.fullmatch(r"\*\* \((\w+)\) ?(.*)", expected,
                                             re.S).groups()
                with pytest.raises(_ERRORS[kind]) as info:
                    _run(code, ns)
                assert message in str(info.value), f"{context}: {info.value}"
                continue
            value = _run(code, ns)
            if not expected:
                continue
            if expected.startswith("="):
                want = eval(expected[1:], ns)
                assert value == want, f"{context}: {value!r} != {want!r}"
            else:
                _check_tensor(value, expected, dev, context)


# The seed's iex lines not run here: the sigil imports (Python has nothing to import) and the
# default_backend pair, which names Elixir backend modules (test_nx.py covers it with devices).
SKIPPED = ['import Nx, only: :sigils'] * 4 + [
    "Nx.default_backend({Lib.CustomBackend, device: :cuda})", "Nx.default_backend()"]


def test_every_seed_example_is_here():
    """The seed has 530 iex statements: each is a case here or listed in SKIPPED."""
    statements = sum(len(steps) for _, steps in CASES)
    assert statements + len(SKIPPED) == 530
