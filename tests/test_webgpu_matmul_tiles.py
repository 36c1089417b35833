"""The register tiles of webgpu's direct matmul kernel (matmul_direct.wgsl) and how one is
chosen (``matmul.DIRECT_TILES``, ``matmul.direct_tile``).  Every tile accumulates with fma in
k order, so each gives the tiled kernel's bits; the choice only moves time.  (No NumPy
needed: this runs in the browser too, on SwiftShader's tiles.)"""

from __future__ import annotations

import math
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import webtensor as wt
from _gpu import webgpu_or_skip
from webtensor.backends.webgpu import matmul as mm
from webtensor.backends.webgpu.backend import adapter_class

GPU, CPU, B = webgpu_or_skip()

# this adapter's tiles, GPUs' 4x4, and one off the tables (columns not a power of two)
TILES = sorted(set(mm.DIRECT_TILES[B.adapter_class]) | {(4, 4), (8, 12)})

CASES = [
    ("k", (128, 96), (96, 256), False),  # row-major A: vec4 along k
    ("r", (96, 128), (96, 256), True),  # transposed A: vec4 along rows
    ("k", (70, 36), (36, 68), False),  # rows past M; N = 68: columns past N in wide tiles
    ("k", (300, 36), (36, 68), False),  # several row tiles, the last one partial
    ("r", (36, 300), (36, 68), True),
    ("k", (3, 66, 20), (20, 40), False),  # a batch against one matrix
    ("r", (2, 20, 64), (2, 20, 32), True),  # batched, transposed A
    (None, (64, 30), (30, 64), False),  # K not a multiple of 4: the tiled kernel
    (None, (64, 32), (64, 32), "b"),  # transposed B: the tiled kernel
]


def _operands(dt, sa, sb, transpose):
    n_a, n_b = math.prod(sa), math.prod(sb)
    scale = 0.37 if dt.kind == "f" else 1
    a = wt.reshape(wt.astype(wt.arange(n_a, device=GPU) % 17, dt) * scale, sa)
    b = wt.reshape(wt.astype(wt.arange(n_b, device=GPU) % 13, dt) * scale, sb)
    if transpose is True:
        a = wt.matrix_transpose(a)
    elif transpose == "b":
        b = wt.matrix_transpose(b)
    return a, b


# the layouts the direct kernel takes, with every tile (int32 and uint32 share its u32 code),
# and the two it refuses, once
_GRID = ([(case, dt, tile) for case in CASES if case[0] for dt in (wt.float32, wt.int32)
          for tile in TILES]
         + [(case, dt, (16, 4)) for case in CASES if not case[0]
            for dt in (wt.float32, wt.uint32)])


@pytest.mark.parametrize("case,dt,tile", _GRID)
def test_direct_kernel_has_the_tiled_kernels_bits(case, dt, tile, monkeypatch):
    """Operands laid out for vec4 loads skip the workgroup tiles; the result is the tiled
    kernel's, bit for bit, whatever the register tile."""
    monkeypatch.setattr(mm, "direct_tile", lambda *args: tile)
    mode, sa, sb, transpose = case
    a, b = _operands(dt, sa, sb, transpose)
    chosen = []
    real = mm._direct_mode
    monkeypatch.setattr(mm, "_direct_mode", lambda *args: chosen.append(real(*args))
                        or chosen[-1])
    direct = (a @ b).tobytes()
    assert chosen == [mode]
    monkeypatch.setattr(mm, "_direct_mode", lambda *args: None)
    assert direct == (a @ b).tobytes()


@pytest.mark.parametrize("shape", [((128, 96), (96, 256)), ((70, 36), (36, 68))])
@pytest.mark.parametrize("tile", TILES)
def test_direct_kernel_stores_a_fused_epilogue_for_every_output(shape, tile, monkeypatch):
    """A jitted matmul with an epilogue (bias, relu, a second result) stores both results
    through the direct kernel, columns past N included, as eager ops compute them."""
    asked = []
    monkeypatch.setattr(mm, "direct_tile", lambda *args: asked.append(args) or tile)
    a, b = _operands(wt.float32, *shape, False)
    bias = wt.astype(wt.arange(shape[1][1], device=GPU) % 5, wt.float32) - 2

    def f(a, b, bias):
        y = a @ b + bias
        return wt.maximum(y, 2.0) * 3, y
    got = wt.jit(f)(a, b, bias)
    assert asked  # the direct kernel ran it
    want = f(a, b, bias)
    assert "matmul with a fused epilogue" in wt.make_graph(f)(a, b, bias).fused()
    for g, w in zip(got, want):
        assert g.tobytes() == w.tobytes()


def _estimate(tiles, threads, batch, m, n, tile):
    """The time ``direct_tile`` estimates, written out again."""
    rows, cols = tile
    groups = batch * -(-m // (16 * rows)) * -(-n // (16 * cols))
    return -(-groups // threads) * min(16 * rows, m) * min(16 * cols, n) / tiles[tile]


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(sorted(mm.DIRECT_TILES)), st.integers(1, 64), st.integers(1, 8),
       st.integers(1, 4096), st.integers(1, 4096), st.integers(1, 4096))
def test_the_chosen_tile_has_the_least_estimated_time(cls, threads, batch, m, n, k):
    """Products under TILED_WORK keep the class's first tile (compile time); larger ones take
    the tile with the least estimated time."""
    tiles = mm.DIRECT_TILES[cls]
    tile = mm.direct_tile(cls, threads, batch, m, n, k)
    assert tile in tiles
    if batch * m * n * k < mm.TILED_WORK:
        assert tile == next(iter(tiles))
    else:
        best = _estimate(tiles, threads, batch, m, n, tile)
        assert all(best <= _estimate(tiles, threads, batch, m, n, t) for t in tiles)


def test_tiles_follow_the_size_and_the_threads():
    """The measured choices (matmul.DIRECT_TILES, 2 vCPUs): larger tiles for larger products,
    as long as they keep every thread busy; more threads take smaller tiles; small products
    keep the first tile; GPUs always 4x4."""
    assert mm.direct_tile("llvmpipe", 2, 1, 1024, 1024, 1024) == (16, 16)
    assert mm.direct_tile("llvmpipe", 2, 1, 128, 256, 784) == (16, 8)  # 2 workgroups, not 1
    assert mm.direct_tile("llvmpipe", 2, 1, 784, 256, 128) == (16, 16)
    assert mm.direct_tile("llvmpipe", 16, 1, 512, 512, 512) == (16, 4)
    assert mm.direct_tile("llvmpipe", 2, 1, 128, 128, 128) == (16, 4)  # under TILED_WORK
    assert mm.direct_tile("software", 2, 1, 1024, 1024, 1024) == (16, 16)
    for size in (64, 1024, 4096):
        assert mm.direct_tile("gpu", 8, 3, size, size, size) == (4, 4)


@pytest.mark.parametrize("info,cls", [
    ({"adapter_type": "CPU", "vendor": "llvmpipe", "device": "llvmpipe (LLVM 15.0.6, 256 bits)"},
     "llvmpipe"),
    ({"adapter_type": "CPU", "vendor": "google", "architecture": "swiftshader"}, "software"),
    ({"adapter_type": "cpu", "vendor": "Microsoft", "description": "Basic Render Driver"},
     "software"),
    ({"adapter_type": "DiscreteGPU", "vendor": "nvidia"}, "gpu"),
    ({"vendor": "apple", "architecture": "metal-3"}, "gpu"),
])
def test_adapter_class(info, cls):
    assert adapter_class(info) == cls


def test_the_backend_uses_the_tile_of_its_adapter_and_threads(monkeypatch):
    """matmul asks ``direct_tile`` with the backend's adapter class and the driver's threads
    (a browser's navigator.hardwareConcurrency, os.cpu_count() natively)."""
    asked = []
    real = mm.direct_tile
    monkeypatch.setattr(mm, "direct_tile", lambda *args: asked.append(args) or real(*args))
    a, b = _operands(wt.float32, (3, 64, 32), (32, 96), False)
    (a @ b).tobytes()
    assert asked == [(B.adapter_class, B.driver.threads, 3, 64, 96, 32)]
    try:
        import js  # Pyodide in a browser: the page's or worker's navigator
        host_threads = js.globalThis.navigator.hardwareConcurrency
    except ImportError:
        host_threads = os.cpu_count()
    assert B.driver.threads == host_threads


@pytest.mark.parametrize("tile", [(4, 4), (16, 4), (16, 8), (16, 16), (32, 32)])
def test_large_tiles_call_the_epilogue_from_one_loop(tile):
    """A fused epilogue is called once per register on small tiles (GPUs' 4x4: no read-back)
    and from one loop over the stored tile on larger ones: unrolled, a 32x32 tile took
    lavapipe 79 s to compile."""
    kernel = mm.direct_kernel("float32", "k", 24, ("fn epilogue(i: u32, v: f32) {}", 0, 0),
                              tile)
    main = kernel.wgsl[kernel.wgsl.index("fn main"):]
    outputs = tile[0] * tile[1]
    assert main.count("epilogue(") == (outputs if outputs <= mm.UNROLLED_EPILOGUE else 1)
