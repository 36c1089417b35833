"""What a native user sees around the webgpu device: warnings pointing at their own line,
wt.sync for timing, and a quiet start (no stray messages on stderr)."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings

import pytest

import webtensor as wt
from _gpu import webgpu_or_skip
from webtensor import _warnings

GPU, CPU, BACKEND = webgpu_or_skip()


def test_float64_warning_points_at_the_callers_line(monkeypatch):
    monkeypatch.setattr(_warnings, "_given", set())
    x = wt.asarray([1.0, 2.0], dtype=wt.float64, device=GPU)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        y = x + 1  # the line the warning must name
        line = sys._getframe().f_lineno - 1
    assert y.tolist() == [2.0, 3.0]
    (w,) = [w for w in caught if "float64" in str(w.message)]
    assert w.filename == __file__ and w.lineno == line
    # and from inside a jitted program: the caller's line, not the executor's
    monkeypatch.setattr(_warnings, "_given", set())
    f = wt.jit(lambda a: a * 2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        f(x)
        line = sys._getframe().f_lineno - 1
    (w,) = [w for w in caught if "float64" in str(w.message)]
    assert w.filename == __file__ and w.lineno == line


def test_binding_limit_warning_points_at_the_callers_line(monkeypatch):
    x = wt.ones((200,), device=GPU)
    monkeypatch.setattr(_warnings, "_given", set())
    monkeypatch.setattr(BACKEND, "max_binding", 256)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        y = x + x
        line = sys._getframe().f_lineno - 1
    (w,) = [w for w in caught if "binding limit" in str(w.message)]
    assert w.filename == __file__ and w.lineno == line
    assert y.tolist() == [2.0] * 200


def test_sync_waits_for_queued_work():
    x = wt.ones((64, 64), device=GPU)
    y = x @ x
    before = BACKEND.driver.stats()["submits"]
    wt.sync()
    assert BACKEND.driver.stats()["submits"] > before  # the open batch was submitted
    wt.sync(GPU)
    wt.sync("cpu")  # nothing queued there: returns at once
    assert y[0, 0].item() == 64.0
    with pytest.raises(ValueError, match="wt.sync: unknown device 'tpu'"):
        wt.sync("tpu")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the message is libwayland's")
def test_opening_the_device_prints_nothing():
    """Without XDG_RUNTIME_DIR (CI, servers) the Vulkan driver's Wayland probe used to print
    'error: XDG_RUNTIME_DIR is invalid or not set' twice; real output still goes through."""
    env = {k: v for k, v in os.environ.items() if k != "XDG_RUNTIME_DIR"}
    code = ("import sys, webtensor as wt\n"
            "x = wt.ones(3, device='webgpu')\n"
            "print((x + 1).tolist())\n"
            "print('still here', file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[2.0, 2.0, 2.0]"
    assert done.stderr == "still here\n"
