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


_TEST_KERNEL = """
@group(0) @binding(0) var<uniform> P: array<vec4<u32>, 16>;
@group(0) @binding(1) var<storage, read> in0: array<{elem}>;
@group(0) @binding(2) var<storage, read_write> out0: array<u32>;
{params}
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {{
    let i = gid.x;
    if (i >= prm(1u)) {{
        return;
    }}
{body}
}}
"""


def run_wgsl(body: str, x, items: int, out_words: int) -> list[int]:
    """Run WGSL ``body`` (statements for invocation ``i`` < ``items``, reading ``in0``: the
    float32 or uint32 webgpu tensor ``x``, writing ``out_words`` u32 words of ``out0``) with the
    library functions it calls; returns ``out0``'s words.  For tests of internal helpers."""
    import webtensor as wt
    from webtensor.backends.webgpu import kernels
    from webtensor.tensor import empty

    elem = {"float32": "f32", "uint32": "u32"}[x.dtype.name]
    text = _TEST_KERNEL.format(elem=elem, params=kernels.source("params"),
                               body="\n".join("    " + line for line in body.strip().split("\n")))
    kernel = kernels.Kernel(kernels.with_libraries(text), 1, 1, 256)
    out = empty((out_words,), wt.uint32, x.device)
    x.device.backend.launch(kernel, [x._data, out._data], kernels.Params(items, items),
                            -(-items // 64))
    return out.tolist()
