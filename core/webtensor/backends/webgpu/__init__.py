"""The WebGPU device: WGSL kernels run through a GPU driver (native wgpu-py now, the browser's
``navigator.gpu`` later).  ``backend.py`` maps primitives to kernels, ``kernels.py`` fills the
templates of ``shaders/``, ``driver.py`` is the driver interface, ``native.py`` implements it."""

import sys

from .probe import Probe, probe


def backend_factory():
    """The backend of the ``webgpu`` Device (raises RuntimeError when no adapter exists)."""
    found = probe()
    if not found.available:
        raise RuntimeError(f"the webgpu device is not available: {found.reason}")
    from .backend import WebGPUBackend

    if sys.platform == "emscripten":
        from .browser import BrowserDriver

        return WebGPUBackend(BrowserDriver(found.adapter))
    return WebGPUBackend()
