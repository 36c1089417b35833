"""Devices: where a tensor's buffer lives and which backend computes on it."""

from __future__ import annotations

import os
import sys
import threading

from ._settings import Setting
from ._tracing import ACTIVE


class Device:
    """A compute device (``wt.Device("cpu")``); compare with ``==`` or by name."""

    __slots__ = ("name", "_backend_factory", "_backend")

    def __init__(self, name: str, backend_factory):
        self.name = name
        self._backend_factory = backend_factory
        self._backend = None

    @property
    def backend(self):
        """The backend that computes on this device; while a program is being traced
        (``wt.jit``), the trace's recording backend instead."""
        trace = ACTIVE.get()
        if trace is not None:
            return trace.backend_for(self)
        found = self._backend
        return found if found is not None else self._start()

    def _real_backend(self):
        """The device's own backend, even while tracing."""
        found = self._backend
        return found if found is not None else self._start()

    def _start(self):
        """Make the backend once, even when several threads ask at the same moment."""
        with _STARTING:
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


# Held while a backend is made or an adapter probed (re-entrant: making the webgpu backend
# probes); every later access reads the finished object without it.
_STARTING = threading.RLock()

cpu = Device("cpu", _cpu_backend)
_DEVICES = {"cpu": cpu}
# None until first asked for: choosing it may probe for a WebGPU adapter (seconds on lavapipe).
_default_device = Setting("default_device", None)
_webgpu_probed = False


def _webgpu():
    """The ``webgpu`` Device when wgpu finds an adapter (probed once, lazily), else None."""
    global _webgpu_probed
    if not _webgpu_probed:
        with _STARTING:  # one thread probes; the others wait for its answer
            if not _webgpu_probed:
                from .backends.webgpu import backend_factory, probe

                if probe().available:
                    _DEVICES["webgpu"] = Device("webgpu", backend_factory)
                    _webgpu_probed = True
                elif _webgpu_pending():
                    probe.cache_clear()  # not an answer yet: `await wt.init_async()` may open it
                else:
                    _webgpu_probed = True
    return _DEVICES.get("webgpu")


def _webgpu_pending() -> bool:
    """In a browser whose WebGPU device could open but has not (no code could wait for it)."""
    if sys.platform != "emscripten":
        return False
    from .backends.webgpu import browser

    return browser.pending()


def _initial_default() -> Device:
    """``WEBTENSOR_DEVICE`` (cpu | webgpu), else webgpu on a hardware adapter, else cpu:
    software adapters (lavapipe, SwiftShader) are slower than NumPy, so only used when asked.
    In Pyodide any adapter wins (the cpu device is pure Python there); without one, cpu with a
    one-time notice."""
    choice = os.environ.get("WEBTENSOR_DEVICE", "auto").lower()
    if choice == "cpu":
        return cpu
    if choice not in ("auto", "webgpu"):
        raise ValueError(f"WEBTENSOR_DEVICE={choice!r} is not understood; use 'cpu' or 'webgpu'")
    gpu = _webgpu()
    from .backends.webgpu import probe

    if choice == "webgpu":
        if gpu is None:
            raise RuntimeError(f"WEBTENSOR_DEVICE=webgpu but the webgpu device is not "
                               f"available: {probe().reason}")
        return gpu
    if sys.platform == "emscripten":
        if gpu is None:
            _notify_cpu_fallback(probe().reason, pending=_webgpu_pending())
        return gpu or cpu
    return gpu if gpu is not None and probe().hardware else cpu


_cpu_fallback_noticed = False


def _notify_cpu_fallback(reason: str, pending: bool = False) -> None:
    global _cpu_fallback_noticed
    if not _cpu_fallback_noticed:
        _cpu_fallback_noticed = True
        if pending:
            print(f"webtensor: the WebGPU device is not open yet ({reason}); computing on the "
                  f"cpu device until then", file=sys.stderr)
        else:
            print(f"webtensor: no WebGPU here ({reason}); computing on the cpu device "
                  f"instead", file=sys.stderr)


def devices() -> list[Device]:
    """Every device webtensor can use here."""
    _webgpu()
    return list(_DEVICES.values())


def as_device(device, fn: str = "device") -> Device:
    if device is None:
        return default_device()
    if isinstance(device, Device):
        return device
    if isinstance(device, str) and device in _DEVICES:
        return _DEVICES[device]
    if device == "webgpu":
        found = _webgpu()
        if found is not None:
            return found
        from .backends.webgpu import probe

        state = "not open yet" if _webgpu_pending() else "not available here"
        raise ValueError(f"wt.{fn}: the webgpu device is {state}: {probe().reason}")
    raise ValueError(f"wt.{fn}: unknown device {device!r}; available: "
                     f"{', '.join(map(repr, _DEVICES))}")


def default_device() -> Device:
    found = _default_device.get()
    if found is None:
        found = _initial_default()
        if not _webgpu_pending():  # a browser's cpu stand-in is not kept: init_async may follow
            _default_device._set_global(found)
    return found


async def init_async() -> Device:
    """Open the WebGPU device ahead of its first use and return the default device.

    In a browser, opening the device must be awaited.  Code entered with JSPI (a notebook cell,
    ``pyodide.runPythonAsync``) opens it on first use by itself; code that cannot wait
    (``pyodide.runPython``, browsers without JSPI) runs ``await wt.init_async()`` once first.
    Natively it only picks the default device (probing for an adapter once)."""
    global _cpu_fallback_noticed
    if sys.platform == "emscripten":
        from .backends.webgpu import browser

        await browser.initialize()
        _cpu_fallback_noticed = False  # a notice now tells the outcome, not "not open yet"
    return default_device()


def set_default_device(device):
    """Set the default device (process-wide; local to the block when used with ``with``)."""
    return _default_device.set(as_device(device, "set_default_device"))


def device_info(device=None) -> dict:
    """What ``device`` (default: the default device) is and where each primitive and dtype
    runs on it: natively, or routed to the CPU."""
    dev = as_device(device, "device_info")
    info = getattr(dev.backend, "device_info", None)
    if info is not None:
        return info()
    from .backends.webgpu import probe

    found = _webgpu() and probe()
    return {"device": dev.name, "backend": dev.backend.name,
            "dtypes": dev._real_backend().dtype_support(),
            "webgpu": {"available": bool(found), "adapter": found.description if found else "",
                       "reason": "" if found else probe().reason}}


def _drivers(device, fn: str):
    """The GPU drivers of ``device`` (default: every device already in use)."""
    targets = [as_device(device, fn)] if device is not None else list(_DEVICES.values())
    for dev in targets:
        driver = getattr(dev._backend, "driver", None)  # only devices already in use
        if driver is not None:
            yield driver


def sync(device=None) -> None:
    """Wait until the work queued on ``device`` (default: every device in use) has run, and
    raise any GPU error it hit.  Time GPU code with it: ``t0 = time.perf_counter(); y = f(x);
    wt.sync(); print(time.perf_counter() - t0)``.  In a browser it needs JSPI, like every
    blocking read; elsewhere use ``await wt.sync_async()``."""
    for driver in _drivers(device, "sync"):
        driver.wait_idle()


async def sync_async(device=None) -> None:
    """Wait until the work queued on ``device`` (default: every device in use) has run, and
    raise any GPU error it hit: ``await wt.sync_async()`` (browsers cannot block)."""
    for driver in _drivers(device, "sync_async"):
        await driver.wait_idle_async()


def memory_stats(device=None) -> dict:
    """Buffers alive on ``device`` (default: the default device) and their bytes; empty for
    devices whose memory the Python garbage collector manages (cpu)."""
    dev = as_device(device, "memory_stats")
    stats = getattr(dev.backend, "memory_stats", None)
    return stats() if stats is not None else {}
