"""Whether a program is being traced, and what a traced buffer is (the bottom of the compiler).

``wt.jit`` and friends (``webtensor.compile``) run user code with a *trace* active in this
thread/task: ``Device.backend`` then answers with the trace's recording backend instead of the
device's own, so every API function runs unchanged and its primitives become graph nodes.  This
module is low in the import order (``device.py`` and ``tensor.py`` use it) and knows nothing of
the graph itself.
"""

from __future__ import annotations

from contextvars import ContextVar

ACTIVE: ContextVar = ContextVar("webtensor_trace", default=None)


def active():
    """The trace recording in this thread/task, or None (eager execution)."""
    return ACTIVE.get()


class suspended:
    """``with suspended():`` runs eager code inside a trace (reading a captured tensor through
    its own backend, which may use other devices' backends internally)."""

    __slots__ = ("_token",)

    def __enter__(self):
        self._token = ACTIVE.set(None)

    def __exit__(self, *exc) -> None:
        ACTIVE.reset(self._token)


class TracedBuffer:
    """Base class of the buffers a trace hands out instead of device memory."""

    __slots__ = ()


def is_traced(t) -> bool:
    """``t`` is a tensor whose values exist only when the traced program runs."""
    return isinstance(t._data, TracedBuffer)


class ConcretizationError(TypeError):
    """A traced tensor's value was needed while tracing (``if x > 0:``, ``float(x)``,
    ``wt.nonzero(x)`` inside ``wt.jit``): its value is unknown until the program runs."""


def traced_repr(t) -> str:
    """``Traced<float32[3,4]>``: what printing a traced tensor shows (its value is unknown)."""
    dims = ",".join(str(n) for n in t.shape)
    extra = ", weak" if t.weak else ""
    if t.names is not None:
        extra += f", names={t.names}"
    return f"Traced<{t.dtype.name}[{dims}]{extra}>"
