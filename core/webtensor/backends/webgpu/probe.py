"""Is a WebGPU device available here?  Probed once, lazily (requesting an adapter takes seconds
on software Vulkan, so importing webtensor never does it)."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from functools import lru_cache


@dataclass(frozen=True)
class Probe:
    adapter: object | None  # the wgpu adapter, None when unavailable
    reason: str  # why unavailable ("" when available)
    hardware: bool  # a real GPU (adapter_type not "CPU")
    description: str

    @property
    def available(self) -> bool:
        return self.adapter is not None


@lru_cache(maxsize=1)
def probe() -> Probe:
    if sys.platform == "emscripten":  # Pyodide: the browser's navigator.gpu (browser.py)
        from .browser import open_device

        opened, reason = open_device()
        if opened is None:
            return Probe(None, reason, False, "")
        return Probe(opened, "", not opened.fallback, opened.description)
    try:
        from .native import adapter_description, request_adapter
    except ImportError as e:  # pragma: no cover
        return Probe(None, f"cannot import the native driver ({e})", False, "")
    try:
        import wgpu  # noqa: F401
    except ImportError:
        return Probe(None, "wgpu is not installed (pip install wgpu; from a checkout: pip install "
                     "-e '.[gpu]')", False, "")
    try:
        adapter = request_adapter()
    except Exception as e:  # wgpu-native raises when no Vulkan/Metal/D3D12 driver loads
        return Probe(None, f"wgpu could not request an adapter ({e})", False, "")
    if adapter is None:
        return Probe(None, "wgpu found no WebGPU adapter (on Linux without a GPU, install "
                     "mesa-vulkan-drivers for lavapipe)", False, "")
    info = adapter_description(adapter)
    hardware = info["adapter_type"].upper() != "CPU"
    description = f"{info['device'] or info['description']} ({info['adapter_type']}, " \
                  f"{info['backend_type']})"
    return Probe(adapter, "", hardware, description)
