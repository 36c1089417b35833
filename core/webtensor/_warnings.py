"""Warnings that point at the user's code: the line that called into webtensor, not the
internal line that noticed the problem (a stack level counted from outside the package)."""

from __future__ import annotations

import sys
import warnings


def _inside(frame) -> bool:
    name = frame.f_globals.get("__name__", "")
    return name == "webtensor" or name.startswith("webtensor.")


def warn(message: str, category=RuntimeWarning) -> None:
    """``warnings.warn`` attributed to the innermost frame outside webtensor."""
    frame = sys._getframe(1)
    level = 2  # stacklevel 1 is this function; 2 its caller
    while frame is not None and _inside(frame):
        frame = frame.f_back
        level += 1
    warnings.warn(message, category, stacklevel=level)
