"""Tracing is a backend: while a :class:`Trace` is active, ``Device.backend`` answers with a
:class:`TraceBackend` that records each primitive call as a graph node instead of computing.

Everything above the backend contract (promotion, weak types, broadcasting as stride-0 views,
axis names, shape checks) runs unchanged, so a traced program means exactly what the same code
means eagerly.  A traced tensor's buffer is a :class:`Cell` whose ``current`` value each write
replaces: later reads through any view of the buffer see the new version, and the graph stays
in SSA form.

Reading a traced value on the host (``bool(x)``, ``x.item()``, ``wt.nonzero(x)``) is impossible
while tracing; it raises :class:`ConcretizationError` with the reason and the fix.  Tensors that
are not traced (captured from the enclosing scope) enter the graph as constants, read by
reference when the program runs.
"""

from __future__ import annotations

import sys

from .. import _tracing
from .. import shape as _s
from .._tracing import ConcretizationError, TracedBuffer
from ..backends.base import float64_is_internal
from ..tensor import Tensor
from .ir import Graph, Node, Value, View

# primitive -> position of the tensor it writes.  ``scatter`` updates its ``out`` in place and
# ``assign`` writes a view of an existing buffer: both keep the elements they do not touch.
PRIMITIVES = {
    "copy": 0, "assign": 0, "fill": 0, "iota": 0, "cast": 0, "unary": 1, "binary": 1,
    "where": 0, "reduce": 1, "arg_reduce": 1, "scan": 1, "matmul": 0, "gather": 0,
    "scatter": 1, "sort": 0, "argsort": 0, "random_bits": 0, "window_reduce": 1,
    "window_scatter": 1,
}
READ_MODIFY_WRITE = frozenset({"scatter"})


class Cell(TracedBuffer):
    """A traced buffer: which value it holds now."""

    __slots__ = ("trace", "current", "dtype", "size", "device", "shape")

    def __init__(self, trace, dtype, size: int, device, current=None):
        self.trace = trace
        self.dtype = dtype
        self.size = size
        self.device = device
        self.current = current
        self.shape = None if current is None else current.shape

    def __repr__(self) -> str:
        return f"<traced buffer {self.dtype.short}[{self.size}]>"


class Trace:
    """One function being traced into a :class:`Graph` (``parent``: the enclosing trace of a
    control-flow branch or loop body, whose values this one may read as captures)."""

    def __init__(self, parent=None, name: str = "fun"):
        self.parent = parent
        self.name = name
        self.nodes: list[Node] = []
        self.inputs: list[Value] = []
        self.input_cells: list[Cell] = []
        self.backends: dict = {}
        self.const_cells: dict[int, tuple] = {}  # id(buffer) -> (buffer, Cell, first value)
        self.captures: list = []  # sub-traces: (outer tensor view, input Value) read from outside
        self.capture_index: dict = {}
        self._token = None

    # -- activation ------------------------------------------------------------------------
    def __enter__(self):
        self._token = _tracing.ACTIVE.set(self)
        return self

    def __exit__(self, *exc) -> None:
        _tracing.ACTIVE.reset(self._token)

    def backend_for(self, device) -> TraceBackend:
        found = self.backends.get(device)
        if found is None:
            found = self.backends[device] = TraceBackend(self, device)
        return found

    # -- inputs ----------------------------------------------------------------------------
    def new_input(self, shape, dtype, device, weak=False, names=None) -> Tensor:
        """A traced tensor standing for the next argument of the program."""
        value = Value(dtype, shape, device, "input", payload=len(self.inputs))
        self.inputs.append(value)
        cell = Cell(self, dtype, value.size, device, value)
        self.input_cells.append(cell)
        return Tensor._wrap(cell, tuple(shape), dtype, device, weak=weak, names=names)

    # -- reading tensors ---------------------------------------------------------------------
    def view_of(self, t: Tensor) -> View:
        data = t._data
        if data.__class__ is Cell:
            if data.trace is self:
                value = data.current
                if value is None:  # read before any write (wt.empty): unspecified contents
                    value = data.current = Value(t.dtype, (data.size,), data.device, "empty")
                    data.shape = value.shape
            else:
                return self._capture(t)
        else:
            value = self._const_cell(t).current
        return View(value, t.shape, t.strides, t.offset, t.weak, t.names)

    def _const_cell(self, t: Tensor) -> Cell:
        data = t._data
        found = self.const_cells.get(id(data))
        if found is None:
            real = t.device._real_backend()
            size = real.buffer_size(data, t.dtype)
            value = Value(t.dtype, (size,), t.device, "const", payload=data)
            cell = Cell(self, t.dtype, size, t.device, value)
            found = self.const_cells[id(data)] = (data, cell, value)
        return found[1]

    def _capture(self, t: Tensor) -> View:
        """A tensor of an enclosing trace read inside a branch or loop body: it becomes an
        input of this sub-graph, fed by the enclosing graph."""
        key = (id(t._data), t.shape, t.strides, t.offset, t.dtype)
        found = self.capture_index.get(key)
        if found is None:
            value = Value(t.dtype, t.shape, t.device, "input", payload=len(self.inputs))
            self.inputs.append(value)
            self.input_cells.append(None)
            self.captures.append(t)
            found = self.capture_index[key] = value
        return View(found, t.shape, _s.contiguous_strides(t.shape), 0, t.weak, t.names)

    def cell_of(self, t: Tensor) -> Cell:
        """The cell a write into ``t`` updates."""
        data = t._data
        if data.__class__ is Cell:
            if data.trace is self:
                return data
            raise ConcretizationError(
                "a tensor of the enclosing function was written inside a wt.cond branch or a "
                "loop body; return the new value from the branch/body instead of writing it "
                "in place")
        return self._const_cell(t)

    # -- recording ---------------------------------------------------------------------------
    def record(self, prim: str, args: tuple, wpos: int) -> Node:
        vargs = list(args)
        for i, a in enumerate(args):
            if i != wpos and isinstance(a, Tensor):
                vargs[i] = self.view_of(a)
        w = args[wpos]
        cell = self.cell_of(w)
        covers = (w.offset == 0 and w.size == cell.size
                  and _s.is_contiguous(w.shape, w.strides))
        base = None
        if prim in READ_MODIFY_WRITE or not covers:
            base = cell.current
            if base is not None and base.kind == "empty":
                base = None
        if covers:
            shape = w.shape
        else:
            shape = cell.shape if cell.shape is not None else (cell.size,)
        result = Value(w.dtype, shape, w.device, "node")
        vargs[wpos] = View(result, w.shape, w.strides, w.offset, w.weak, w.names)
        node = Node(prim, tuple(vargs), wpos, base, (result,), w.device)
        if float64_is_internal():  # float64 on purpose (linspace...): no warning when it runs
            node.params["internal_float64"] = True
        result.producer = node
        cell.current = result
        if cell.shape is None:
            cell.shape = shape
        self.nodes.append(node)
        return node

    def host(self, name: str, ins: tuple, outs: tuple, params: dict) -> list[Tensor]:
        """Record a call of the host function ``name`` (``api/_host.py``): one ``host`` node
        reading ``ins`` whose results are abstract values of the ``(shape, dtype)`` in
        ``outs``; it runs when the program does (``compile/host.py``)."""
        views = tuple(self.view_of(t) for t in ins)
        device = ins[0].device
        results = tuple(Value(dt, shape, device, "node") for shape, dt in outs)
        node = Node("host", (name,) + views, None, None, results, device,
                    params={"static": dict(params)})
        self.define(node)
        return [self.wrap_value(v) for v in results]

    def define(self, node: Node) -> None:
        """Append a node built elsewhere (control flow) whose results are fresh values."""
        for v in node.results:
            v.producer = node
        self.nodes.append(node)

    def wrap_value(self, value: Value, weak=False, names=None) -> Tensor:
        """A traced tensor holding ``value`` (the result of a control-flow node)."""
        cell = Cell(self, value.dtype, value.size, value.device, value)
        return Tensor._wrap(cell, value.shape, value.dtype, value.device, weak=weak,
                            names=names)

    # -- finishing ---------------------------------------------------------------------------
    def graph(self, outputs: list[Tensor]) -> Graph:
        views = [self.view_of(t) for t in outputs]
        mutated = []
        for i, cell in enumerate(self.input_cells):
            if cell is not None and cell.current is not self.inputs[i]:
                mutated.append((i, cell.current))
        for _data, cell, initial in self.const_cells.values():
            if cell.current is not initial:
                mutated.append((initial, cell.current))
        return Graph(self.inputs, self.nodes, views, mutated, fun_name=self.name)


class TraceBackend:
    """The backend of every device while a trace is active: primitives become nodes."""

    def __init__(self, trace: Trace, device):
        self.trace = trace
        self.device = device
        self.real = device._real_backend()
        self.name = self.real.name

    def __getattr__(self, attr):
        # Optional capabilities of the real backend (device_info, memory stats...) stay
        # visible; anything that would compute is a primitive below.
        return getattr(self.real, attr)

    # Optional fast paths that would compute (or read back) now: none while tracing, so the
    # frontend records its generic form's primitives instead.
    def search_sorted(self, sorted_values, values, right):
        return None

    def scatter_in_range(self, op, out, axis, indices, updates):
        return None

    def flat_nonzero(self, mask):
        return None

    def summarize_blocks(self, x, sy, sx):
        return None

    # -- memory --------------------------------------------------------------------------------
    def alloc(self, dtype, size):
        return Cell(self.trace, dtype, size, self.device)

    def buffer_size(self, data, dtype) -> int:
        return data.size if data.__class__ is Cell else self.real.buffer_size(data, dtype)

    def from_values(self, dtype, values):
        values = values if isinstance(values, list) else list(values)
        if len(values) == 1:
            payload, kind = _canonical(dtype, values[0]), "lit"
        else:
            payload, kind = ("values", values), "const"
        value = Value(dtype, (len(values),), self.device, kind, payload=payload)
        return Cell(self.trace, dtype, len(values), self.device, value)

    def from_bytes(self, dtype, data):
        data = bytes(data)
        n = len(data) // dtype.itemsize
        if n == 1:  # a scalar the API packed itself (index bounds...): a literal
            from ..device import cpu

            real = cpu._real_backend()
            one = Tensor._wrap(real.from_bytes(dtype, data), (1,), dtype, cpu)
            return self.from_values(dtype, real.to_values(one))
        value = Value(dtype, (n,), self.device, "const", payload=("bytes", data))
        return Cell(self.trace, dtype, n, self.device, value)

    def to_values(self, x):
        if x._data.__class__ is not Cell:  # a captured concrete tensor: its values are known
            with _tracing.suspended():
                return self.real.to_values(x)
        raise concretization_error(x)

    def to_bytes(self, x):
        if x._data.__class__ is not Cell:
            with _tracing.suspended():
                return self.real.to_bytes(x)
        raise concretization_error(x)

    async def to_bytes_async(self, x):
        return self.to_bytes(x)


def _recorder(prim: str, wpos: int):
    def method(self, *args):
        self.trace.record(prim, args, wpos)
    method.__name__ = prim
    method.__doc__ = f"Record ``{prim}`` as a graph node."
    return method


for _prim, _wpos in PRIMITIVES.items():
    setattr(TraceBackend, _prim, _recorder(_prim, _wpos))
del _prim, _wpos


def _canonical(dtype, value):
    """``value`` converted to ``dtype`` as the backends store it (wrap, round), as a Python
    scalar: literals are compared and hashed by this value."""
    from ..device import cpu

    real = cpu._real_backend()
    buf = real.from_values(dtype, [value])
    return real.to_values(Tensor._wrap(buf, (1,), dtype, cpu))[0]


# -- errors that teach -------------------------------------------------------------------------

# Frames of the API that read values for a reason the user can act on: function name -> why.
_DATA_DEPENDENT = {
    "nonzero": "wt.nonzero's result shape depends on the values",
    "argwhere": "wt.argwhere's result shape depends on the values",
    "unique_all": "wt.unique_all's result shape depends on the values",
    "unique_counts": "wt.unique_counts's result shape depends on the values",
    "unique_inverse": "wt.unique_inverse's result shape depends on the values",
    "unique_values": "wt.unique_values's result shape depends on the values",
    "_mask_index": "indexing with a boolean mask gives a result whose shape depends on the values",
    "_from_tensor": "indexing with a boolean mask gives a result whose shape depends on the values",
    "repeat": "wt.repeat with a tensor of counts has a shape that depends on the values",
    "_split": "wt.split at tensor positions has shapes that depend on the values",
    "histogram": "wt.histogram reads the data's range or its bin edges",
}
_CONVERSIONS = {
    "__bool__": ("bool()", "a Python `if`, `while`, `and`, `or` or `not` on a traced tensor "
                 "needs its value", "use wt.where(cond, x, y) or wt.cond(pred, f, g, ...) for "
                 "branches, wt.while_loop for loops, or mark the argument static with "
                 "wt.jit(f, static_argnums=...)"),
    "__int__": ("int()", "int() needs the value", "return the tensor from the function and "
                "convert it outside, or mark the argument static"),
    "__index__": ("an index", "using a traced tensor as a Python index or size needs its value",
                  "index with the tensor itself (x[t] gathers), or mark the argument static"),
    "__float__": ("float()", "float() needs the value", "return the tensor and convert it "
                  "outside wt.jit"),
    "__complex__": ("complex()", "complex() needs the value", "return the tensor and convert "
                    "it outside wt.jit"),
    "item": (".item()", ".item() needs the value", "return the tensor and call .item() outside "
             "wt.jit"),
    "tolist": (".tolist()", ".tolist() needs the values", "return the tensor and call "
               ".tolist() outside wt.jit"),
    "numpy": (".numpy()", "converting to NumPy needs the values", "return the tensor and "
              "convert it outside wt.jit"),
    "__array__": ("np.asarray()", "converting to NumPy needs the values", "return the tensor "
                  "and convert it outside wt.jit"),
    "tobytes": (".tobytes()", ".tobytes() needs the values", "return the tensor and read it "
                "outside wt.jit"),
    "tolist_async": (".tolist_async()", "reading needs the values", "return the tensor and "
                     "read it outside wt.jit"),
}


def concretization_error(x: Tensor) -> ConcretizationError:
    """The error for a host read of the traced tensor ``x``, naming the call that needed it."""
    what = f"Traced<{_describe(x)}>"
    frame = sys._getframe(1)
    conversion = data_dependent = None
    while frame is not None:
        name = frame.f_code.co_name
        module = frame.f_globals.get("__name__", "")
        if module.startswith("webtensor"):
            if data_dependent is None and name in _DATA_DEPENDENT:
                data_dependent = name
            if name in _CONVERSIONS and module == "webtensor.tensor":
                conversion = name  # the outermost one: bool() calls item() internally
        frame = frame.f_back
    if data_dependent is not None:
        why = _DATA_DEPENDENT[data_dependent]
        return ConcretizationError(
            f"{why}, which is unknown while tracing ({what}); call it outside wt.jit, or use "
            f"a fixed-shape alternative (wt.where with a fill value, a size= argument where "
            f"one exists)")
    if conversion is not None:
        call, why, fix = _CONVERSIONS[conversion]
        return ConcretizationError(f"{call} of {what} inside a traced function: {why}, which "
                                   f"is unknown until the program runs; {fix}")
    return ConcretizationError(
        f"the value of {what} was needed while tracing, but it is unknown until the program "
        f"runs; return it from the function and read it outside wt.jit, or mark the argument "
        f"static with static_argnums")


def _describe(x: Tensor) -> str:
    dims = ",".join(str(n) for n in x.shape)
    return f"{x.dtype.name}[{dims}]"
