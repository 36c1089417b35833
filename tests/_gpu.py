"""The webgpu device for the webgpu test files, or a module-level skip saying why not.

    from _gpu import webgpu_or_skip

    GPU, CPU, B = webgpu_or_skip()   # the device, the CPU reference device, the GPU backend

    from _gpu import reduce_plan_fixture  # noqa: F401 - registers the `reduce_plan` fixture
"""

from __future__ import annotations

import pytest


def webgpu_or_skip():
    """``(webgpu device, cpu device, webgpu backend)``; skips the calling module when no
    adapter exists (or wgpu is missing), with the probe's reason."""
    try:
        from webtensor.backends.webgpu import probe
    except ImportError as e:  # pragma: no cover - only without the webgpu package
        pytest.skip(f"webgpu device unavailable: {e}", allow_module_level=True)
    found = probe()
    if not found.available:
        pytest.skip(f"webgpu device unavailable: {found.reason}", allow_module_level=True)
    from webtensor import device

    gpu = device.as_device("webgpu")
    return gpu, device.cpu, gpu.backend


@pytest.fixture(params=["gpu", "software"], name="reduce_plan")
def reduce_plan_fixture(request, monkeypatch):
    """Run the test with either adapter class's reduction plan (``REDUCE_PLANS`` of the webgpu
    reduce module: lanes combined by a workgroup tree, or one invocation per chunk), whatever
    class this adapter is, so both plans are tested on every adapter."""
    from webtensor.backends.webgpu import reduce

    plans = reduce.REDUCE_PLANS
    monkeypatch.setattr(reduce, "REDUCE_PLANS", dict.fromkeys(plans, plans[request.param]))
    return request.param
