"""Host functions: computations that read a tensor's values on the host (the decompositions of
``wt.linalg``, the transforms of ``wt.fft``) as one traceable primitive.

``call(name, ins, outs, **params)`` runs the registered function at once when nothing is being
traced, so eager results are exactly what the function computes.  While a program is traced
(``wt.jit``, ``wt.grad``, ``wt.vmap``...) it records one ``host`` node instead: the results are
abstract tensors whose shapes and dtypes the caller states up front (``outs``), and the program
runs the same function on the concrete tensors when it executes (NumPy on the NumPy backend;
elsewhere the pure-Python kernels, after reading the values back, as eager mode does).

This module only knows how to compute.  Derivative and batching rules live with the compiler
(``compile/host.py``, ``compile/host_rules.py``), which looks functions up here by name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from .. import _tracing


class HostFunction(NamedTuple):
    name: str
    run: Callable  # run(*tensors, **params) -> a Tensor or a tuple of Tensors
    # params naming an axis of the inputs: a leading batch axis (wt.vmap) moves them by one
    axis_params: tuple = ()


HOST: dict[str, HostFunction] = {}


def host_function(name: str, axis_params=()):
    """Register ``run`` as the host function ``name`` (a decorator)."""
    def register(run):
        HOST[name] = HostFunction(name, run, tuple(axis_params))
        return run
    return register


def call(name: str, ins, outs, **params) -> list:
    """The results of the host function ``name`` on the tensors ``ins`` with ``params``.

    ``outs``: one ``(shape, dtype)`` per result, what a trace records before any value exists.
    """
    trace = _tracing.active()
    if trace is None:
        res = HOST[name].run(*ins, **params)
        return list(res) if isinstance(res, tuple) else [res]
    return trace.host(name, tuple(ins), tuple(outs), params)
