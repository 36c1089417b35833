"""Process-wide settings with context-local overrides.

A setter changes the process-wide value, which every thread and task sees.  Used in a ``with``
statement, the same call becomes a context-local override instead (a ``contextvars`` value), so
threads and asyncio tasks never leak a temporary setting into each other::

    wt.set_promotion_mode("safe")            # everywhere, from now on
    with wt.set_promotion_mode("numpy"):     # only this block, only this thread/task
        ...
"""

from __future__ import annotations

import contextvars

_UNSET = object()


class Setting:
    """One named value: a process-wide default plus an optional context-local override."""

    __slots__ = ("name", "_global", "_local")

    def __init__(self, name: str, default):
        self.name = name
        self._global = default
        self._local = contextvars.ContextVar(f"webtensor.{name}", default=_UNSET)

    def get(self):
        value = self._local.get()
        return self._global if value is _UNSET else value

    def set(self, value) -> _Scoped:
        """Set the value where it currently lives; the result may be used as a context manager."""
        if self._local.get() is not _UNSET:
            # Inside a `with` override: change only that override, never the global value.
            token = self._local.set(value)
            return _Scoped(self, value, undo=lambda: self._local.reset(token))
        previous = self._global
        self._global = value
        return _Scoped(self, value, undo=lambda: self._set_global(previous))

    def scoped(self, value) -> _Scoped:
        """A context manager that overrides the value locally; nothing changes until entered."""
        return _Scoped(self, value, undo=None)

    def _set_global(self, value) -> None:
        self._global = value


class _Scoped:
    """Returned by setters: ignorable, or entered to turn the change into a local override."""

    __slots__ = ("_setting", "_value", "_undo", "_token")

    def __init__(self, setting: Setting, value, undo):
        self._setting = setting
        self._value = value
        self._undo = undo
        self._token = None

    def __enter__(self):
        if self._undo is not None:
            # The setter already changed the value in place; move that change into this context.
            self._undo()
            self._undo = None
        self._token = self._setting._local.set(self._value)
        return self._value

    def __exit__(self, *exc_info) -> None:
        self._setting._local.reset(self._token)

    def __repr__(self) -> str:
        return f"<webtensor setting {self._setting.name}={self._value!r}>"
