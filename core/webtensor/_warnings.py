"""Warnings that point at the user's code: the line that called into webtensor, not the
internal line that noticed the problem (a stack level counted from outside the package)."""

from __future__ import annotations

import sys
import warnings


def _inside(frame) -> bool:
    name = frame.f_globals.get("__name__", "")
    return name == "webtensor" or name.startswith("webtensor.")


_given: set[str] = set()  # keys of the once-per-session warnings already given


def warn_once(key: str, message: str, category=RuntimeWarning) -> None:
    """``warn``, but only the first time ``key`` comes up in this session (see ``new_session``)."""
    if key in _given:
        return
    _given.add(key)
    warn(message, category)


def new_session() -> None:
    """Forget which once-per-session warnings were given: a host that runs one script after
    another in the same interpreter (the playground) calls this before each script."""
    _given.clear()


def warn(message: str, category=RuntimeWarning) -> None:
    """``warnings.warn`` attributed to the innermost frame outside webtensor."""
    frame = sys._getframe(1)
    level = 2  # stacklevel 1 is this function; 2 its caller
    while frame is not None and _inside(frame):
        frame = frame.f_back
        level += 1
    warnings.warn(message, category, stacklevel=level)
