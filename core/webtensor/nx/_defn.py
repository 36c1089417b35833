"""``nx.defn``, ``nx.jit``, ``nx.grad``, ``nx.value_and_grad`` on webtensor's compiler
(``wt.jit``) and autodiff (``wt.grad``).

A defn function is traced once per signature and then runs as a compiled program: positional
arguments are tensors (Python numbers become Nx's default tensors, s64 or f32, lists become
``nx.tensor``), keyword-only arguments are Nx's static options, and the cache key is the
arguments' shapes, types and names plus the options' values.  Inside, tensors are symbolic
(Nx's ``Nx.Defn.Expr``): reading a value (``nx.to_number``, ``float(t)``, ``if t:``) raises
``wt.ConcretizationError`` naming the fix.  Python operators inside (``t + 1``) merge types as
Nx's do (the ``nx`` promotion mode is active while it runs).
"""

from __future__ import annotations

import functools
import inspect

from ..compile import grad as _grad
from ..compile import jit as _jit
from ..compile import value_and_grad as _value_and_grad
from ..promotion import promotion_mode
from ..tensor import Tensor
from ._core import fail, is_number, number, to_tensor

__all__ = ["defn", "jit", "grad", "value_and_grad"]


def _tensors(tree, fn: str):
    """Numbers and lists -> Nx tensors, inside tuples and dicts too (the argument containers
    defn accepts)."""
    if isinstance(tree, Tensor):
        return to_tensor(tree, fn)
    if is_number(tree):
        return to_tensor(number(tree, fn), fn)
    if isinstance(tree, tuple):
        return tuple(_tensors(x, fn) for x in tree)
    if isinstance(tree, list):
        return to_tensor(tree, fn)
    if isinstance(tree, dict):
        return {k: _tensors(v, fn) for k, v in tree.items()}
    return tree


class Defn:
    """A function compiled on first call per signature (see the module docstring)."""

    def __init__(self, fun):
        if not callable(fun):
            fail("defn", f"expected a function, got {fun!r}", TypeError)
        functools.update_wrapper(self, fun)
        self.fun = fun
        params = inspect.signature(fun).parameters.values()
        static = tuple(p.name for p in params if p.kind is p.KEYWORD_ONLY)
        self._compiled = _jit(fun, static_argnames=static)

    def __call__(self, *args, **options):
        # operators inside merge types as Nx's do (t + 1 on u8 with -1 is s16, ...)
        with promotion_mode("nx"):
            return self._compiled(*(_tensors(a, "defn") for a in args), **options)

    def __repr__(self) -> str:
        return f"<nx.defn {getattr(self.fun, '__qualname__', self.fun)!r}>"


def defn(fun):
    """Decorator: ``@nx.defn def softmax(t): ...`` compiles ``softmax`` (positional arguments
    are tensors, keyword-only arguments static options)."""
    return Defn(fun)


def jit(fun, *args, **options):
    """``nx.jit(fun)``: ``fun`` compiled like a defn; ``nx.jit(fun, *args)`` also calls it."""
    compiled = Defn(fun)
    if args or options:
        return compiled(*args, **options)
    return compiled


def _differentiate(transform, x, fun, fn: str):
    if fun is None and callable(x):  # nx.grad(fun): a function of the same arguments
        f = x
        g = transform(lambda *a: f(*a))
        return lambda *a: g(*(_tensors(v, fn) for v in a))
    if not callable(fun):
        fail(fn, f"expected nx.{fn}(x, fun) with fun a function of x, got {fun!r}", TypeError)
    return transform(fun)(_tensors(x, fn))


def grad(x, fun=None):
    """Nx's ``grad(x, fun)``: the gradient of the scalar ``fun(x)`` at ``x`` (a tensor, a
    number, or a tuple/dict of them: the gradient has the same structure).  ``grad(fun)`` is
    the gradient as a function."""
    return _differentiate(_grad, x, fun, "grad")


def value_and_grad(x, fun=None):
    """Nx's ``value_and_grad(x, fun)``: ``(fun(x), grad(x, fun))``."""
    return _differentiate(_value_and_grad, x, fun, "value_and_grad")
