"""The op-record conformance table (tests/_op_records.py) on every device.

``test_grid[device-record-dtype]``, for each record, each dtype it accepts and each device
(numpy-cpu, python-cpu, webgpu where an adapter exists), on the record's deterministic cases:

* the results equal the NumPy oracle within the record's tolerance, and the inputs are left
  as they were (skipped without NumPy: Pyodide, the browser);
* they equal the reference device's (the NumPy CPU backend; the pure-Python one without
  NumPy) within the record's device tolerance, and on webgpu a native call is not routed to
  the CPU (pure Python: runs in the browser too);
* ``wt.jit`` of the call gives the eager result exactly (bytes, shape, dtype, weak flag and
  axis names; or the same error), natively and in Pyodide (the browser runs the grid eagerly).

``test_random_cases[device-record(-dtype)]``: hypothesis-drawn cases (random shapes, views
with negative and zero strides, weak and mixed-dtype operands) on each device other than the
reference and on the reference itself: both against the oracle, and against each other.
"""

from __future__ import annotations

import sys

import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

import webtensor as wt
from _op_records import RECORDS, Case
from _oracle import (
    DEVICES,
    HAS_NUMPY,
    REFERENCE,
    REFERENCE_NAME,
    View,
    assert_agree,
    device_name,
    routed_calls,
)
from webtensor import shape as _s

# float64 and complex128 work on the webgpu device runs on the CPU, with a warning once.
pytestmark = pytest.mark.filterwarnings("ignore:webgpu. float64 work runs on the CPU")

# In the browser the grid runs eagerly: jit against eager is a property of the compiler, checked
# natively on every device (and in Pyodide on the CPU), and compiling every op's program again
# on a software adapter inside WebAssembly would triple the browser stage.
IN_BROWSER = sys.platform == "emscripten" and "webgpu" in DEVICES


def _params():
    return [pytest.param(rec, dt, id=f"{rec.name}-{dt.name}") for rec in RECORDS
            for dt in rec.dtypes]


def call(record, case: Case, device, args=None):
    """``record.fn`` on ``case`` materialized on ``device`` (or on ``args``, its tensors made
    there already): the results as a tuple."""
    args = case.tensors(device) if args is None else args
    kwargs = dict(case.kwargs)
    if record.creates:
        kwargs["device"] = device
    out = record.fn(*args, **kwargs)
    return out if isinstance(out, tuple) else (out,)


def _inputs_per_element(case: Case, shape):
    """Per output element, the input values it was computed from (broadcast, C order)."""
    n = _s.size_of(shape)
    cols = []
    for a in case.args:
        if not isinstance(a, View):
            cols.append([a] * n)
            continue
        vals = a.values
        lead = len(shape) - len(a.shape)
        strides = _s.contiguous_strides(a.shape)
        bstrides = tuple(0 if d < lead or a.shape[d - lead] == 1 else strides[d - lead]
                         for d in range(len(shape)))
        cols.append([vals[i] for i in _s.flat_offsets(shape, bstrides, 0)])
    return list(zip(*cols))


def _native_expected(record, case: Case, device) -> bool:
    """On webgpu, a call on one native dtype whose kernel exists must not be routed."""
    if device_name(device) != "webgpu" or not case.native:
        return False
    dts = {a.dt for a in case.args if isinstance(a, View)} or {case.kwargs.get("dtype")}
    return len(dts) == 1 and record.native(dts.pop())


def run_on(record, case: Case, device, context: str, *, inputs_kept=True):
    """The case on ``device`` (results tuple); on webgpu a native call must not be routed to
    the CPU; with ``inputs_kept``, the call must leave its input tensors as they were."""
    args = case.tensors(device)
    tensors = [t for t in args if isinstance(t, wt.Tensor)] if inputs_kept else []
    # (webgpu keeps every bit: the views' own bytes spare a read back before the call)
    before = ([t.tobytes() for t in tensors] if device.name == "cpu" else
              [a.element_bytes() for a in case.args if isinstance(a, View) and inputs_kept])
    native = _native_expected(record, case, device)
    routed = routed_calls(device)
    got = call(record, case, device, args)
    if native:
        assert routed_calls(device) == routed, (
            f"{context}: routed to the CPU ({device.backend.routed.most_common(3)})")
    for g in got:
        assert g.device is device, context
    assert [t.tobytes() for t in tensors] == before, f"{context}: an input was modified"
    return got if device.name == "cpu" else tuple(_host_copy(g) for g in got)


def _host_copy(t):
    """``t`` read back once into a tensor on the reference CPU device (the checks read it more
    than once; each read of a GPU tensor is a round trip)."""
    from webtensor.tensor import Tensor

    return Tensor._wrap(REFERENCE.backend.from_bytes(t.dtype, t.tobytes()), t.shape, t.dtype,
                        REFERENCE, weak=t.weak, names=t.names)


def check_agreement(record, case: Case, device, context: str, got=None, want=None) -> None:
    """The device's results equal the reference device's within ``record.agree``."""
    tol = record.agree(case, device_name(device))
    if tol is None:  # this pair is not compared on these inputs (the record says why)
        return
    got = run_on(record, case, device, context, inputs_kept=False) if got is None else got
    want = call(record, case, REFERENCE) if want is None else want
    for k, (g, w) in enumerate(zip(got, want)):
        needs_inputs = tol.nan_bits == "inputs" or tol.ulp_at_inputs
        inputs = _inputs_per_element(case, w.shape) if needs_inputs else None
        assert_agree(g, w, tol, f"{context} output {k}" if len(got) > 1 else context,
                     inputs=inputs)


def check_oracle(record, case: Case, device, context: str, got=None):
    """The results equal the NumPy oracle (returns them)."""
    got = run_on(record, case, device, context) if got is None else got
    try:
        record.oracle(case, got if len(got) > 1 else got[0], device)
    except AssertionError as e:
        raise AssertionError(f"{context}: {e}") from None
    return got


def same(a, b, context: str) -> None:
    """Identical results: shape, dtype, weak flag, axis names and bytes."""
    assert isinstance(a, wt.Tensor) and isinstance(b, wt.Tensor), (context, a, b)
    assert (a.shape, a.dtype, a.weak, a.names) == (b.shape, b.dtype, b.weak, b.names), \
        (context, a, b)
    assert a.tobytes() == b.tobytes(), (context, a, b)


def check_jit(record, case: Case, device, context: str, eager=None) -> None:
    """``wt.jit`` of the call equals the eager call (``eager``: its results, if run already),
    or raises the same error type."""
    args = case.tensors(device)
    kwargs = dict(case.kwargs)
    if record.creates:
        kwargs["device"] = device
    slots = [i for i, a in enumerate(args) if isinstance(a, wt.Tensor)]

    def program(*tensors):
        full = list(args)
        for i, t in zip(slots, tensors):
            full[i] = t
        return record.fn(*full, **kwargs)

    tensors = [args[i] for i in slots]
    if eager is None:
        try:
            eager = program(*tensors)
        except Exception as e:  # noqa: BLE001 - the jitted call must fail the same way
            with pytest.raises(type(e)):
                wt.jit(program)(*tensors)
            return
        eager = eager if isinstance(eager, tuple) else (eager,)
    got = wt.jit(program)(*tensors)
    got = got if isinstance(got, tuple) else (got,)
    assert len(got) == len(eager), context
    for g, e in zip(got, eager):
        same(g, e, context)


# -- the grid on every device -----------------------------------------------------------------------

@pytest.mark.parametrize("record,dt", _params())
def test_grid(dev, record, dt):
    """Each grid case on ``dev``: against the NumPy oracle, against the reference device, and
    under ``wt.jit`` against itself."""
    name = device_name(dev)
    compared = dev is not REFERENCE and not record.elsewhere(dt, name)
    for case in record.grid(dt):
        context = f"{record.name}[{dt}] {case.label} on {name}"
        oracle = HAS_NUMPY and record.oracle and case.oracle
        compare = compared and record.agree(case, name) is not None
        got = None
        if oracle or compare:
            got = run_on(record, case, dev, context, inputs_kept=oracle)
            if oracle:
                check_oracle(record, case, dev, context, got)
            if compare:
                check_agreement(record, case, dev, f"{context} vs {REFERENCE_NAME}", got)
        if case.jit and not IN_BROWSER:
            check_jit(record, case, dev, f"jit {context}", eager=got)


# -- random cases -------------------------------------------------------------------------------

_SCALE = max(1, settings.default.max_examples // 100)  # the "thorough" profile: tenfold


def _random_params():
    """(device, record, dtype): per dtype for the records that draw one dtype at a time (on
    webgpu, whose software adapter is slow, the dtype is drawn too), else per record."""
    out = []
    for name in DEVICES:
        if name == REFERENCE_NAME:
            continue
        for rec in RECORDS:
            if rec.draw is None:
                continue
            if rec.per_dtype and name != "webgpu":
                out += [pytest.param(name, rec, dt, id=f"{name}-{rec.name}-{dt.name}")
                        for dt in rec.dtypes]
            else:
                out.append(pytest.param(name, rec, None, id=f"{name}-{rec.name}"))
    return out


@pytest.mark.parametrize("device,record,dt", _random_params())
def test_random_cases(device, record, dt):
    """Drawn cases on ``device`` and on the reference device: both against the NumPy oracle,
    and against each other."""
    dev = DEVICES[device]
    examples = record.webgpu_examples if device == "webgpu" else record.examples

    @settings(max_examples=examples * _SCALE, deadline=None,
              phases=[Phase.explicit, Phase.reuse, Phase.generate])
    @given(data=st.data())
    def run(data):
        dtype = dt
        if dtype is None and record.per_dtype:
            dtype = data.draw(st.sampled_from(record.dtypes), label="dtype")
        case = data.draw(record.draw(dtype, device), label="case")
        if case.raises is not None:
            error, pattern = case.raises
            for d in (dev, REFERENCE):
                with pytest.raises(error, match=pattern):
                    call(record, case, d)
            return
        context = f"{record.name} {case!r} on {device}"
        got = run_on(record, case, dev, context)
        ref_context = f"{record.name} {case!r} on {REFERENCE_NAME}"
        want = run_on(record, case, REFERENCE, ref_context)
        if HAS_NUMPY and record.oracle:
            check_oracle(record, case, dev, context, got)
            check_oracle(record, case, REFERENCE, ref_context, want)
        first = next((a.dt for a in case.args if isinstance(a, View)), dtype)
        if not record.elsewhere(first, device):
            check_agreement(record, case, dev, context, got, want)

    run()


def test_every_public_op_family_has_records():
    """The table covers the op table and every primitive family."""
    from webtensor import ops

    names = {r.name for r in RECORDS}
    assert set(ops.ELEMENTWISE) <= names
    assert {f"reduce_{op}" for op in ops.REDUCTIONS} <= names
    assert {f"scan_{op}" for op in ops.SCANS} <= names
    assert set(ops.ARG_REDUCTIONS) <= names
    assert {f"scatter_{op}" for op in ops.SCATTER_MODES} <= names
    assert {"matmul", "gather", "sort", "argsort", "cast", "where", "copy", "assign", "fill",
            "iota"} <= names
