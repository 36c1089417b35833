"""Devices: where a tensor's buffer lives and which backend computes on it."""

from __future__ import annotations

import os

from ._settings import Setting


class Device:
    """A compute device (``wt.Device("cpu")``); compare with ``==`` or by name."""

    __slots__ = ("name", "_backend_factory", "_backend")

    def __init__(self, name: str, backend_factory):
        self.name = name
        self._backend_factory = backend_factory
        self._backend = None

    @property
    def backend(self):
        if self._backend is None:
            self._backend = self._backend_factory()
        return self._backend

    def __repr__(self) -> str:
        return f"Device({self.name!r})"

    def __str__(self) -> str:
        return self.name

    def __eq__(self, other) -> bool:
        if isinstance(other, Device):
            return self is other
        if isinstance(other, str):
            return other == self.name
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.name)


def _cpu_backend():
    choice = os.environ.get("WEBTENSOR_CPU", "auto").lower()
    if choice not in ("auto", "numpy", "python"):
        raise ValueError(f"WEBTENSOR_CPU={choice!r} is not understood; use 'numpy' or 'python'")
    if choice != "python":
        try:
            from .backends.cpu_numpy import NumpyBackend
        except ImportError:
            if choice == "numpy":
                raise ImportError("WEBTENSOR_CPU=numpy but NumPy is not installed; "
                                  "pip install numpy or use WEBTENSOR_CPU=python") from None
        else:
            return NumpyBackend()
    from .backends.cpu_python import PythonBackend

    return PythonBackend()


cpu = Device("cpu", _cpu_backend)
_DEVICES = {"cpu": cpu}
_default_device = Setting("default_device", cpu)


def devices() -> list[Device]:
    """Every device webtensor can use here."""
    return list(_DEVICES.values())


def as_device(device, fn: str = "device") -> Device:
    if device is None:
        return _default_device.get()
    if isinstance(device, Device):
        return device
    if isinstance(device, str) and device in _DEVICES:
        return _DEVICES[device]
    raise ValueError(f"wt.{fn}: unknown device {device!r}; available: "
                     f"{', '.join(map(repr, _DEVICES))}")


def default_device() -> Device:
    return _default_device.get()


def set_default_device(device):
    """Set the default device (process-wide; local to the block when used with ``with``)."""
    return _default_device.set(as_device(device, "set_default_device"))
