"""Process-wide settings with context-local overrides.

A setter changes the process-wide value, which every thread and task sees.  Used in a ``with``
statement, the same call becomes a context-local override instead (a ``contextvars`` value), so
threads and asyncio tasks never leak a temporary setting into each other::

    wt.set_promotion_mode("safe")            # everywhere, from now on
    with wt.set_promotion_mode("numpy"):     # only this block, only this thread/task
        ...

How a setter knows it is inside ``with``: it looks at the caller's next bytecode instruction
(the one that enters the block) before changing anything, so no other thread ever sees the
temporary value.  Where that cannot be told (the setter's result stored first and entered
later), the change is made process-wide at once and moved into the block when it is entered,
but only if nothing else changed the value meanwhile.  Every ``with`` restores exactly what it
found, in its own context, so the same object can be entered again, nested, or from several
threads and tasks at once.
"""

from __future__ import annotations

import contextvars
import dis
import sys
import threading

_UNSET = object()
_LOCK = threading.Lock()  # process-wide values: read-compare-write as one step
# Per context (thread / asyncio task): the values to restore, innermost last.
_RESTORE: contextvars.ContextVar[tuple] = contextvars.ContextVar("webtensor_restore",
                                                                 default=())


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
        """Set the value where it currently lives; the result may be used as a context manager
        (then only that block, in this thread or task, sees it)."""
        if _entered_by_with():
            return _Scoped(self, value, undo=None)
        before = self._local.get()
        if before is not _UNSET:
            # Inside a `with` override: change only that override, never the global value.
            self._local.set(value)
            return _Scoped(self, value, undo=None, restore=before)
        with _LOCK:
            previous = self._global
            self._global = value
        return _Scoped(self, value, undo=previous)

    def scoped(self, value) -> _Scoped:
        """A context manager that overrides the value locally; nothing changes until entered."""
        return _Scoped(self, value, undo=None)

    def _set_global(self, value) -> None:
        with _LOCK:
            self._global = value

    def _undo_global(self, value, previous) -> None:
        """Put ``previous`` back unless the process-wide value has moved on since ``value``."""
        with _LOCK:
            if self._global is value:
                self._global = previous


class _Scoped:
    """Returned by setters: ignorable, or entered to make the value local to the block."""

    __slots__ = ("_setting", "_value", "_undo", "_restore")

    def __init__(self, setting: Setting, value, undo, restore=_UNSET):
        self._setting = setting
        self._value = value
        self._undo = undo  # the value before a process-wide change this object made, or None
        # the block's value before a change this object made inside it (entered later)
        self._restore = restore

    def __enter__(self):
        setting = self._setting
        if self._undo is not None:
            # Stored and entered later: the setter already changed the process-wide value.
            setting._undo_global(self._value, self._undo)
            self._undo = None
        before = setting._local.get() if self._restore is _UNSET else self._restore
        self._restore = _UNSET
        _RESTORE.set(_RESTORE.get() + ((setting, before),))
        setting._local.set(self._value)
        return self._value

    def __exit__(self, *exc_info) -> None:
        stack = _RESTORE.get()
        for i in range(len(stack) - 1, -1, -1):  # this block's entry: the innermost of ours
            setting, before = stack[i]
            if setting is self._setting:
                _RESTORE.set(stack[:i] + stack[i + 1:])
                setting._local.set(before)
                return

    def __repr__(self) -> str:
        return f"<webtensor setting {self._setting.name}={self._value!r}>"


# -- is the setter's result about to be entered? ----------------------------------------------

_ENTERS = frozenset({"BEFORE_WITH", "SETUP_WITH", "BEFORE_ASYNC_WITH", "SETUP_ASYNC_WITH",
                     "LOAD_SPECIAL"})
_seen: dict = {}  # (code, instruction offset) -> bool


def _entered_by_with() -> bool:
    """Whether the code that called into webtensor goes on to enter the result (``with
    wt.set_...(x):``), read from its bytecode: the instruction after the call."""
    frame = sys._getframe(2)
    while frame is not None and frame.f_globals.get("__name__", "").startswith("webtensor"):
        frame = frame.f_back
    if frame is None:
        return False
    key = (frame.f_code, frame.f_lasti)
    found = _seen.get(key)
    if found is None:
        found = _seen[key] = _next_enters(frame.f_code, frame.f_lasti)
        if len(_seen) > 4096:
            _seen.clear()
    return found


def _next_enters(code, lasti: int) -> bool:
    # lasti is inside the call instruction (possibly on its inline caches): the next real
    # instruction after it is what the caller does with the result
    for ins in dis.get_instructions(code):
        if ins.offset <= lasti or ins.opname in ("CACHE", "NOP", "EXTENDED_ARG"):
            continue
        if ins.opname == "COPY":  # 3.14: COPY 1, then LOAD_SPECIAL __exit__
            continue
        return ins.opname in _ENTERS
    return False
