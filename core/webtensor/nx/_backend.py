"""Nx's backends are webtensor's devices: ``default_backend`` is ``wt.default_device``,
``backend_copy``/``backend_transfer`` move tensors (and containers of them) between devices,
``backend_deallocate`` frees a tensor's memory now.  Templates (``nx.template``) and
deallocated tensors live on placeholder devices whose every operation raises."""

from __future__ import annotations

from ..api import creation as _c
from ..device import Device, default_device, set_default_device
from ..tensor import Tensor
from ._core import device_of, fail, is_number, number, to_tensor

__all__ = ["default_backend", "global_default_backend", "backend_copy", "backend_transfer",
           "backend_deallocate", "to_template"]


class _NoData:
    """A backend standing for "no data here": any use raises ``RuntimeError(message)``."""

    name = "none"

    def __init__(self, message: str):
        self._message = message

    def __getattr__(self, attr):
        raise RuntimeError(self._message)


class _Placeholder(Device):
    """A device holding no data; ``no_data`` says why (``repr`` shows it)."""

    __slots__ = ("no_data",)

    def __init__(self, name: str, no_data: str, message: str):
        super().__init__(name, lambda: _NoData(message))
        self.no_data = no_data


TEMPLATE = _Placeholder("Nx.TemplateBackend", "Nx.TemplateBackend: no data",
                        "cannot perform operations on a Nx.TemplateBackend tensor")
DEALLOCATED = _Placeholder(
    "deallocated", "deallocated by nx.backend_deallocate",
    "cannot read or compute with a tensor after nx.backend_deallocate (or "
    "nx.backend_transfer) freed its memory; keep the tensor the transfer returned")


def data_state(t: Tensor):
    """``"Nx.TemplateBackend"``/``"deallocated"`` for tensors without data, else None."""
    if t.device is TEMPLATE:
        return "Nx.TemplateBackend"
    if t.device is DEALLOCATED:
        return "(deallocated)"
    return None


def make_template(shape, dt, names) -> Tensor:
    return Tensor._wrap(None, tuple(shape), dt, TEMPLATE, names=names)


def default_backend(backend=None):
    """The default backend (``wt.default_device()``); with an argument, sets it for the whole
    process and returns the previous one (use ``with wt.set_default_device(...)`` for a
    block)."""
    previous = default_device()
    if backend is not None:
        set_default_device(device_of(backend, "default_backend"))
    return previous


def global_default_backend(backend):
    """Sets the default backend for the whole process; returns the previous one."""
    return default_backend(backend)


def _map(tree, fn, name: str):
    """``fn`` applied to every tensor of a container (tuples, lists, dicts); numbers become
    tensors first."""
    if isinstance(tree, Tensor):
        return fn(tree)
    if is_number(tree):
        return fn(to_tensor(number(tree, name), name))
    if isinstance(tree, tuple):
        return tuple(_map(x, fn, name) for x in tree)
    if isinstance(tree, list):
        return [_map(x, fn, name) for x in tree]
    if isinstance(tree, dict):
        return {k: _map(v, fn, name) for k, v in tree.items()}
    fail(name, f"expected a tensor, a number or a container (tuple, list, dict) of them, got "
               f"{type(tree).__name__}", TypeError)


def _check_data(t: Tensor, fn: str) -> None:
    if t.device is TEMPLATE or t.device is DEALLOCATED:
        raise RuntimeError(f"nx.{fn}: the tensor has no data ({data_state(t)})")


def backend_copy(tensor_or_container, backend=None):
    """A copy of every tensor on ``backend`` (a device; default: where each tensor is)."""
    fn = "backend_copy"

    def copy(t):
        _check_data(t, fn)
        dev = t.device if backend is None else device_of(backend, fn)
        return _c.asarray(t, device=dev, copy=True)
    return _map(tensor_or_container, copy, fn)


def backend_transfer(tensor_or_container, backend=None):
    """Every tensor moved to ``backend``: copied there, and the original's memory freed (a
    tensor already there is returned as it is)."""
    fn = "backend_transfer"

    def transfer(t):
        _check_data(t, fn)
        dev = t.device if backend is None else device_of(backend, fn)
        if dev is t.device:
            return t
        out = _c.asarray(t, device=dev, copy=True)
        _deallocate(t)
        return out
    return _map(tensor_or_container, transfer, fn)


def _deallocate(t: Tensor) -> str:
    if t.device is DEALLOCATED:
        return "already_deallocated"
    t._data = None
    t.device = DEALLOCATED
    return "ok"


def backend_deallocate(tensor_or_container):
    """Frees the memory of every tensor now (views of the same buffer keep it alive);
    ``"ok"``, or ``"already_deallocated"``."""
    if isinstance(tensor_or_container, Tensor):
        return _deallocate(tensor_or_container)
    results = []
    _map(tensor_or_container, lambda t: results.append(_deallocate(t)) or t,
         "backend_deallocate")
    return "ok" if "ok" in results or not results else "already_deallocated"


def to_template(tensor_or_container):
    """The tensors (and numbers) of a container as templates: shape, type and names only."""
    return _map(tensor_or_container, lambda t: make_template(t.shape, t.dtype, t.names),
                "to_template")
