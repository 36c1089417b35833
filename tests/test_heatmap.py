"""Heatmaps: the playground payload, PNG, ``_repr_html_``, ANSI and ``wt.show``.

Oracles: NumPy block means / finite min / max of the display values (magnitude for complex, 0/1
for bool), computed block by block with slicing; a pure-Python twin of that oracle so the
checks also run without NumPy (Pyodide); the contract's colour-index formula written here again
for the PNG pixels and the ANSI escapes (the PNG is decoded with zlib and struct); brute force
over every block size for the downsampling choice; the CPU device for the webgpu device.
"""

from __future__ import annotations

import base64
import math
import re
import struct
import sys
import types
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import webtensor as wt
from _oracle import DEVICES, needs_numpy
from _stats_helpers import ALL, cases, make, np, vals
from webtensor import _heatmap as hm

# float64 tensors on the webgpu device are drawn too; their work runs on the CPU, with a warning.
pytestmark = pytest.mark.filterwarnings("ignore:webgpu. float64 work runs on the CPU")

F32_MAX = 3.4028234663852886e38
NEAR_F32_MAX = F32_MAX * (1 - 1e-5)
RTOL = 1e-5
HEADER = b"\x89PNG\r\n\x1a\n"
ESCAPE = re.compile(r"\x1b\[48;2;(\d+);(\d+);(\d+)m")
CPU = DEVICES.get("numpy") or DEVICES["python"]


# -- independent helpers --------------------------------------------------------------------------

def expected_rgb(v: float, p: dict) -> tuple:
    """The contract's colour of a cell value, written from the contract text."""
    if math.isnan(v):
        return tuple(p["nan_rgb"])
    if math.isinf(v):
        return tuple(p["posinf_rgb"] if v > 0 else p["neginf_rgb"])
    if p["diverging"]:
        m = max(abs(p["vmin"]), abs(p["vmax"]))
        lo, hi = -m, m
    else:
        lo, hi = p["vmin"], p["vmax"]
    u = 0.5 if hi == lo else (v - lo) / (hi - lo)
    index = 255 if u >= 1 else 0 if u <= 0 else math.floor(u * 255 + 0.5)  # u may be +-inf
    return tuple(p["lut"][3 * index:3 * index + 3])


def floats(data: bytes) -> list:
    return list(struct.unpack(f"<{len(data) // 4}f", data))


def f32(x: float) -> float:
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def cell_close(got: float, ref: float, scale: float) -> bool:
    """``got`` (float32 cell) against the float64 reference mean ``ref``: NaN where NaN, equal
    infinities, else within RTOL of the block's mean magnitude.  Near float32's maximum the
    float32 arithmetic may round to inf where the exact mean is just finite (and vice versa)."""
    ref32 = f32(ref)
    if math.isnan(ref):
        return math.isnan(got)
    if abs(ref32) >= NEAR_F32_MAX or abs(got) >= NEAR_F32_MAX:
        return (abs(got) >= NEAR_F32_MAX and abs(ref32) >= NEAR_F32_MAX
                and math.copysign(1, got) == math.copysign(1, ref32))
    return abs(got - ref32) <= RTOL * scale + 1e-37


def decode_png(data: bytes):
    """(width, height, channels, rows of bytes); checks the signature, every CRC and IHDR."""
    assert data[:8] == HEADER
    pos, chunks = 8, []
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos:pos + 4])
        tag, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        (crc,) = struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])
        assert crc == zlib.crc32(tag + body), f"bad CRC in {tag!r}"
        chunks.append((tag, body))
        pos += 12 + n
    assert chunks[0][0] == b"IHDR" and chunks[-1] == (b"IEND", b"")
    width, height, depth, color_type, comp, filt, interlace = struct.unpack(">IIBBBBB",
                                                                            chunks[0][1])
    assert (depth, comp, filt, interlace) == (8, 0, 0, 0)
    channels = {2: 3, 6: 4}[color_type]
    raw = zlib.decompress(b"".join(body for tag, body in chunks if tag == b"IDAT"))
    stride = width * channels + 1
    assert len(raw) == height * stride
    rows = []
    for y in range(height):
        assert raw[y * stride] == 0  # filter "none" on every row (all this writer uses)
        rows.append(raw[y * stride + 1:(y + 1) * stride])
    return width, height, channels, rows


def pixel(rows, x: int, y: int, channels: int) -> tuple:
    return tuple(rows[y][x * channels:(x + 1) * channels])


def expected_kind(t, disp_flat, shape) -> str:
    if 0 in shape:
        return "empty"
    if not shape:
        return "scalar"
    if len(shape) == 3 and shape[-1] in (3, 4):
        if t.dtype is wt.uint8:
            return "image"
        if t.dtype.kind == "f" and all(math.isfinite(v) and 0 <= v <= 1 for v in disp_flat):
            return "image"
    return "line" if len(shape) == 1 else "heatmap"


def block_means_py(flat: list, shape3, sy: int, sx: int) -> tuple[list, list]:
    """Pure-Python block means of (S, H0, W0) values in C order, and each block's mean |x|."""
    s, h0, w0 = shape3
    means, scales = [], []
    for k in range(s):
        for i in range(0, h0, sy):
            for j in range(0, w0, sx):
                block = [flat[k * h0 * w0 + r * w0 + c]
                         for r in range(i, min(i + sy, h0)) for c in range(j, min(j + sx, w0))]
                n = len(block)
                means.append(sum(v / n for v in block))  # each /n first: no overflow to inf
                finite = [abs(v) for v in block if math.isfinite(v)]
                scales.append(sum(finite) / n if finite else 0.0)
    return means, scales


def fits(h0, w0, sy, sx, budget) -> bool:
    return math.ceil(h0 / sy) * math.ceil(w0 / sx) <= budget


# -- payload against NumPy ------------------------------------------------------------------------

def check_payload_against_numpy(t, a, max_cells: int):
    """``a``: the NumPy values of ``t`` (bfloat16 as float32)."""
    p = hm.payload(t, max_cells=max_cells)
    shape = tuple(a.shape)
    with np.errstate(all="ignore"):
        # magnitudes at the complex dtype's own precision: complex64's may overflow float32
        disp = (np.abs(a) if a.dtype.kind == "c" else a).astype(np.float64)
    flat = disp.reshape(-1).tolist()
    assert p["shape"] == list(shape) and p["dtype"] == t.dtype.name
    assert p["weak"] is t.weak and p["device"] == t.device.name
    assert p["text"] == repr(t) and p["title"] is None
    kind = expected_kind(t, flat, shape)
    assert p["kind"] == kind
    finite = [v for v in flat if math.isfinite(v)]
    if finite:
        for got, want in ((p["vmin"], min(finite)), (p["vmax"], max(finite))):
            # float32 rounding: relative, or one float32 subnormal step (complex64 magnitudes)
            assert abs(got - want) <= 1e-6 * abs(want) + 1.5e-45, (got, want)
        assert p["diverging"] is (kind != "image" and min(finite) < 0 < max(finite))
    else:
        assert p["vmin"] is None and p["vmax"] is None and p["diverging"] is False
    assert p["lut"] == (hm.DIVERGING_LUT if p["diverging"] else hm.SEQUENTIAL_LUT)
    values = floats(p["values"])
    if kind == "empty":
        assert values == [] and p["grid"] == [0, 0] and p["slices"] == []
        return p
    if kind == "image":
        h0, w0, channels = shape
        stack = np.moveaxis(disp, -1, 0) * (255.0 if t.dtype.kind == "f" else 1.0)
        slices, n_slices = [], 1
    else:
        channels = 1
        h0, w0 = shape[-2:] if len(shape) >= 2 else (1, shape[0] if shape else 1)
        slices = list(shape[:-2]) if len(shape) >= 2 else []
        stack = disp.reshape(-1, h0, w0)
        n_slices = stack.shape[0]
    sy, sx = p["step"]
    assert p["slices"] == slices
    assert p["grid"] == [math.ceil(h0 / sy), math.ceil(w0 / sx)]
    budget = max(1, max_cells // n_slices)
    assert fits(h0, w0, sy, sx, budget)
    if h0 * w0 <= budget:
        assert (sy, sx) == (1, 1)
    elif max(h0, w0) <= hm.MAX_ASPECT * min(h0, w0):
        # square blocks (the picture keeps its proportions), the smallest that fit
        assert sy == sx and not fits(h0, w0, sy - 1, sx - 1, budget)
    else:
        # very long slices: no block size losing less detail (smaller area) would have fitted
        best = min(a * b for a in range(1, h0 + 1) for b in range(1, w0 + 1)
                   if fits(h0, w0, a, b, budget))
        assert sy * sx == best
    means, scales = block_means_py(stack.reshape(-1).tolist(), stack.shape, sy, sx)
    h, w = p["grid"]
    if kind == "image":  # (C, H, W) oracle order -> the payload's (H, W, C)
        means = [means[c * h * w + q] for q in range(h * w) for c in range(channels)]
        scales = [scales[c * h * w + q] for q in range(h * w) for c in range(channels)]
    assert len(values) == len(means) == n_slices * h * w * channels
    bad = [(k, got, ref) for k, (got, ref, s) in enumerate(zip(values, means, scales))
           if not cell_close(got, ref, s)]
    assert not bad, bad[:5]
    return p


@needs_numpy
@settings(max_examples=40, deadline=None)
@given(case=cases(ALL, max_dims=4, max_side=5), max_cells=st.integers(1, 40))
def test_payload_matches_numpy(dev, case, max_cells):
    check_payload_against_numpy(make(case, dev), vals(case), max_cells)


@needs_numpy
@settings(max_examples=8, deadline=None)
@given(case=cases((wt.float32, wt.int16, wt.complex64), min_dims=2, max_dims=2, min_side=9,
                  max_side=30),
       max_cells=st.integers(1, 120))
def test_payload_downsamples_bigger_slices(case, max_cells):
    check_payload_against_numpy(make(case, CPU), vals(case), max_cells)


@pytest.mark.parametrize("shape", [(2000, 2000), (3000, 300), (300, 3000), (500, 500),
                                   (1000, 1000), (1234, 567), (100, 10000), (10000, 100),
                                   (4096, 257), (777, 999), (60, 6000)])
def test_large_slices_keep_their_aspect_ratio(shape):
    """The grid of cells keeps the tensor's proportions within 10% (shapes up to 100:1), for the
    playground payload and the notebook PNG alike."""
    h0, w0 = shape
    sy, sx = hm._budget_steps(h0, w0, hm.DEFAULT_MAX_CELLS)
    rows, cols = -(-h0 // sy), -(-w0 // sx)
    assert rows * cols <= hm.DEFAULT_MAX_CELLS
    assert abs((cols / rows) / (w0 / h0) - 1) <= 0.10, (shape, rows, cols)
    assert rows * cols >= hm.DEFAULT_MAX_CELLS // 4  # and it still uses the budget


def test_large_tensor_png_keeps_its_aspect_ratio():
    t = wt.reshape(wt.arange(1200 * 300, dtype=wt.float32), (1200, 300))
    html = t._repr_html_()
    png = base64.b64decode(re.search(r"base64,([^\"]+)", html).group(1))
    width, height = struct.unpack(">II", png[16:24])
    assert abs((width / height) / (300 / 1200) - 1) <= 0.10, (width, height)


@needs_numpy
@pytest.mark.parametrize("dt", [wt.uint8, wt.float16, wt.float32, wt.float64])
@pytest.mark.parametrize("channels", [3, 4])
def test_images(dev, dt, channels):
    rng = np.random.default_rng(channels)
    shape = (7, 5, channels)
    if dt is wt.uint8:
        a = rng.integers(0, 256, size=shape).astype(np.uint8)
    else:
        a = rng.random(size=shape).astype(dt.name)
    t = wt.asarray(a, device=dev)
    p = check_payload_against_numpy(t, a, 12)
    assert p["kind"] == "image" and p["slices"] == [] and not p["diverging"]
    assert all(0 <= v <= 255 for v in floats(p["values"]))


@pytest.mark.parametrize("values, kind", [
    ([[[0.0, 0.5, 1.5]]], "heatmap"),  # a value above 1: not an intensity
    ([[[0.0, 0.5, float("nan")]]], "heatmap"),
    ([[[0.0, 0.5, -0.25]]], "heatmap"),
    ([[[0.0, 0.5, 1.0]]], "image"),
    ([[[0.0, 0.5, 1.0, 0.0]]], "image"),
    ([[[0.0, 0.5]]], "heatmap"),  # 2 channels
])
def test_float_image_detection(values, kind):
    assert hm.payload(wt.asarray(values, dtype=wt.float32))["kind"] == kind


def test_only_uint8_integers_are_images():
    data = [[[1, 2, 3]]]
    assert hm.payload(wt.asarray(data, dtype=wt.uint8))["kind"] == "image"
    assert hm.payload(wt.asarray(data, dtype=wt.int32))["kind"] == "heatmap"


# -- payload without NumPy ------------------------------------------------------------------------

PY_CASES = [
    # (values, shape, dtype, max_cells)
    ([1.5, -2.0, 3.0, float("inf"), 5.0, 6.0, float("nan"), 8.0, 9.0, 10.0, -11.0, 12.0],
     (3, 4), wt.float32, 4),
    (list(range(30)), (2, 3, 5), wt.int32, 12),
    ([True, False, True, True, False], (5,), wt.bool, 2),
    ([3 + 4j, 0j, -1j, 1 + 0j], (2, 2), wt.complex64, 1),
    ([float("-inf"), float("inf"), 2.0, 1.0], (1, 4), wt.float64, 2),
    ([7.25], (), wt.float32, 1),
]


@pytest.mark.parametrize("values, shape, dt, max_cells", PY_CASES)
def test_payload_pure_python_oracle(dev, values, shape, dt, max_cells):
    t = wt.reshape(wt.asarray(values, dtype=dt, device=dev), shape)
    p = hm.payload(t, max_cells=max_cells)
    disp = [abs(v) if dt.kind == "c" else float(v) for v in values]
    h0, w0 = (shape[-2:] if len(shape) >= 2 else (1, shape[0] if shape else 1))
    sy, sx = p["step"]
    n_slices = math.prod(shape[:-2]) if len(shape) >= 2 else 1
    assert fits(h0, w0, sy, sx, max(1, max_cells // n_slices))
    means, scales = block_means_py(disp, (n_slices, h0, w0), sy, sx)
    got = floats(p["values"])
    assert len(got) == len(means)
    assert all(cell_close(g, m, s) for g, m, s in zip(got, means, scales)), (got, means)
    finite = [v for v in disp if math.isfinite(v)]
    assert p["vmin"] == pytest.approx(min(finite), rel=1e-6)
    assert p["vmax"] == pytest.approx(max(finite), rel=1e-6)
    assert p["kind"] == {0: "scalar", 1: "line"}.get(len(shape), "heatmap")


def test_payload_fields_and_names(dev):
    t = wt.asarray([[1, 2], [3, 4]], device=dev, names=("rows", "cols"))
    p = hm.payload(t, title="counts")
    assert p["title"] == "counts" and p["names"] == ["rows", "cols"]
    assert p["weak"] is True and p["dtype"] == "int32" and p["device"] == dev.name
    assert p["nan_rgb"] == list(hm.NAN_RGB) and len(p["lut"]) == 3 * 256
    assert p["slices"] == [] and p["step"] == [1, 1] and p["grid"] == [2, 2]
    assert floats(p["values"]) == [1.0, 2.0, 3.0, 4.0]
    assert p["vmin"] == 1.0 and p["vmax"] == 4.0 and p["diverging"] is False


@pytest.mark.parametrize("shape", [(0,), (3, 0), (2, 0, 4), (0, 2, 2, 3)])
def test_empty(dev, shape):
    p = hm.payload(wt.zeros(shape, device=dev))
    assert p["kind"] == "empty" and p["values"] == b"" and p["vmin"] is None
    assert p["shape"] == list(shape)


def test_non_finite_only():
    p = hm.payload(wt.asarray([float("nan"), float("inf")]))
    assert p["vmin"] is None and p["vmax"] is None and p["diverging"] is False
    got = floats(p["values"])
    assert math.isnan(got[0]) and got[1] == math.inf


def test_block_means_do_not_overflow():
    big = wt.full((3, 3), 3.0e38, dtype=wt.float32)
    got = floats(hm.payload(big, max_cells=1)["values"])
    assert got[0] == pytest.approx(3.0e38, rel=1e-6)


def test_max_cells_bounds_all_slices():
    t = wt.ones((4, 20, 20))
    p = hm.payload(t, max_cells=100)
    assert p["slices"] == [4] and math.prod(p["grid"]) * 4 <= 100
    # More slices than cells: each slice keeps one cell.
    p = hm.payload(wt.full((8, 3, 3), 2.0), max_cells=4)
    assert p["grid"] == [1, 1] and len(floats(p["values"])) == 8


@pytest.mark.parametrize("shape, max_cells", [((3, 3001), 300), ((1000, 7), 50),
                                               ((40, 40), 100), ((2, 10**4), 10**4)])
def test_block_size_loses_least_detail_on_long_slices(shape, max_cells):
    h0, w0 = shape
    sy, sx = hm.payload(wt.full(shape, 2.0), max_cells=max_cells)["step"]
    assert fits(h0, w0, sy, sx, max_cells)
    smallest = {}
    for a in range(1, h0 + 1):  # for each block height, the narrowest fitting width
        b = next((b for b in range(1, w0 + 1) if fits(h0, w0, a, b, max_cells)), None)
        if b is not None:
            smallest[a] = a * b
    assert sy * sx == min(smallest.values())


def test_array_likes_are_accepted():
    assert hm.payload([[1.0, 2.0]])["shape"] == [1, 2]


@pytest.mark.parametrize("bad", [0, -3, 2.5, True, "9"])
def test_bad_max_cells(bad):
    with pytest.raises(ValueError,
                       match=r"webtensor\._heatmap\.payload: max_cells must be an int >= 1"):
        hm.payload(wt.ones(3), max_cells=bad)


def test_bad_title_and_data():
    with pytest.raises(TypeError, match=r"_heatmap\.payload: title must be a str or None, got int"):
        hm.payload(wt.ones(3), title=3)
    with pytest.raises(TypeError, match=r"_heatmap\.payload: expects a tensor or array-like data"):
        hm.payload(object())


def test_promotion_mode_does_not_matter():
    x = wt.asarray([[1, -2], [3, 4]], dtype=wt.int8)
    want = hm.payload(x)
    for mode in wt.promotion.MODES:
        with wt.promotion_mode(mode):
            assert hm.payload(x) == want


# -- colour tables --------------------------------------------------------------------------------

def luminance(rgb) -> float:
    def linear(c):
        c /= 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = map(linear, rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def entries(lut):
    return [tuple(lut[3 * i:3 * i + 3]) for i in range(256)]


def test_sequential_scale_brightens_monotonically():
    lum = [luminance(c) for c in entries(hm.SEQUENTIAL_LUT)]
    # Neighbours may round to the same 8-bit colour, never to a darker one.
    assert all(b >= a for a, b in zip(lum, lum[1:]))
    assert len(set(entries(hm.SEQUENTIAL_LUT))) > 240 and lum[255] > 10 * lum[0]


def test_diverging_scale_is_light_in_the_middle_and_dark_at_both_ends():
    lum = [luminance(c) for c in entries(hm.DIVERGING_LUT)]
    mid = max(range(256), key=lum.__getitem__)
    assert 120 <= mid <= 135
    assert all(b >= a for a, b in zip(lum[:mid], lum[1:mid + 1]))
    assert all(b <= a for a, b in zip(lum[mid:], lum[mid + 1:]))
    low, high = entries(hm.DIVERGING_LUT)[0], entries(hm.DIVERGING_LUT)[255]
    assert low[2] > low[0] and high[0] > high[2]  # blue for negative, red for positive


def test_non_finite_colours_stand_out():
    colours = set(entries(hm.SEQUENTIAL_LUT)) | set(entries(hm.DIVERGING_LUT))
    marks = {hm.NAN_RGB, hm.POSINF_RGB, hm.NEGINF_RGB}
    assert len(marks) == 3 and not marks & colours


@given(v=st.floats(-10, 10), lo=st.floats(-10, 10), span=st.floats(0, 10),
       diverging=st.booleans())
def test_color_index_is_the_contract_formula(v, lo, span, diverging):
    """Includes tiny spans, where u overflows to inf and the index clamps to 255."""
    p = {"vmin": lo, "vmax": lo + span, "diverging": diverging, "lut": hm.SEQUENTIAL_LUT,
         "nan_rgb": hm.NAN_RGB, "posinf_rgb": hm.POSINF_RGB, "neginf_rgb": hm.NEGINF_RGB}
    i = hm.color_index(v, lo, lo + span, diverging)
    assert tuple(hm.SEQUENTIAL_LUT[3 * i:3 * i + 3]) == expected_rgb(v, p)


def test_color_index_of_a_range_beyond_the_float64_maximum():
    top = 1.7e308
    assert hm.color_index(top, -top, top, True) == 255
    assert hm.color_index(-top, -top, top, True) == 0
    assert hm.color_index(0.0, -top, top, True) == 128


# -- PNG ------------------------------------------------------------------------------------------

def check_png_pixels(t, *, line=False):
    p = hm.payload(t)
    width, height, channels, rows = decode_png(hm.to_png(t))
    h, w = p["grid"]
    n = math.prod(p["slices"]) if p["slices"] else 1
    cols = math.ceil(math.sqrt(n))
    tile_rows = math.ceil(n / cols)
    cells_w, cells_h = cols * w + cols - 1, tile_rows * h + tile_rows - 1
    assert width % cells_w == 0 and height % cells_h == 0
    scale_x, scale_y = width // cells_w, height // cells_h
    assert max(width, height) >= 32  # small tensors are scaled up to be visible
    if line:
        assert scale_y >= 16
    values = floats(p["values"])
    colours = {expected_rgb(v, p) for v in values}
    gap = None
    for cy in range(cells_h):
        tr, cj = divmod(cy, h + 1)
        expected = []
        for cx in range(cells_w):
            tc, ci = divmod(cx, w + 1)
            k = tr * cols + tc
            if ci == w or cj == h or k >= n:  # between tiles: one colour, not a data colour
                if gap is None:
                    gap = pixel(rows, cx * scale_x, cy * scale_y, channels)
                    assert gap not in colours
                expected.append(bytes(gap) * scale_x)
            else:
                expected.append(bytes(expected_rgb(values[(k * h + cj) * w + ci], p)) * scale_x)
        want = b"".join(expected)
        for y in range(cy * scale_y, (cy + 1) * scale_y):
            assert rows[y] == want, (cy, y)
    return p


@pytest.mark.parametrize("values", [
    [[0.0, 1.0, 2.0], [3.0, float("nan"), float("inf")]],
    [[-1.0, 0.5], [2.0, -float("inf")]],
    [[4.0, 4.0]],
])
def test_png_pixels_follow_the_lut(dev, values):
    check_png_pixels(wt.asarray(values, dtype=wt.float32, device=dev))


def test_png_line_and_scalar():
    p = check_png_pixels(wt.arange(10, dtype=wt.float32), line=True)
    assert p["kind"] == "line"
    check_png_pixels(wt.asarray(3.5))


def test_png_montage_of_slices():
    t = wt.reshape(wt.arange(2 * 3 * 4 * 5, dtype=wt.float32), (2, 3, 4, 5))
    check_png_pixels(t)


def test_png_montage_stops_at_sixteen_slices():
    width, height, _, _ = decode_png(hm.to_png(wt.ones((20, 2, 2))))
    several = decode_png(hm.to_png(wt.ones((16, 2, 2))))
    assert (width, height) == several[:2]


@pytest.mark.parametrize("channels", [3, 4])
def test_png_of_an_image(channels):
    data = [[[(17 * (i + j) + 40 * c) % 256 for c in range(channels)] for j in range(5)]
            for i in range(3)]
    t = wt.asarray(data, dtype=wt.uint8)
    width, height, got_channels, rows = decode_png(hm.to_png(t))
    assert got_channels == channels
    scale = width // 5
    assert height == 3 * scale
    for y in range(height):
        for x in range(width):
            assert pixel(rows, x, y, channels) == tuple(data[y // scale][x // scale])


def test_png_of_an_empty_tensor_is_an_error():
    with pytest.raises(ValueError, match=r"_heatmap\.to_png: the tensor of shape \(0, 3\) has no "):
        hm.to_png(wt.zeros((0, 3)))


# -- _repr_html_ ----------------------------------------------------------------------------------

def test_repr_html(dev):
    t = wt.asarray([[1.0, -2.0], [3.0, 4.0]], device=dev, names=("a", "b"))
    page = t._repr_html_()
    src = re.search(r'<img src="data:image/png;base64,([A-Za-z0-9+/=]+)"', page)
    assert src is not None
    assert base64.b64decode(src.group(1)) == hm.to_png(t)
    for part in ("shape=(2, 2)", "dtype=float32", "weak=True", f"device={dev.name}",
                 "names=(&#x27;a&#x27;, &#x27;b&#x27;)", "diverging"):
        assert part in page, part
    assert "<script" not in page


def test_repr_html_of_an_empty_tensor():
    page = wt.zeros((0, 2), dtype=wt.int8)._repr_html_()
    assert "<img" not in page and "shape=(0, 2)" in page and "dtype=int8" in page
    assert "<pre>Tensor([], shape=(0, 2), dtype=int8, device=cpu)</pre>" in page


# -- ANSI -----------------------------------------------------------------------------------------

def ansi_cells(line: str) -> list:
    """The background colour of each 2-column cell of one heatmap row."""
    out, current = [], None
    for piece in re.split(r"(\x1b\[[0-9;]*m)", line):
        m = ESCAPE.fullmatch(piece)
        if m:
            current = tuple(int(g) for g in m.groups())
        elif piece.startswith("\x1b["):
            current = None
        else:
            assert len(piece) % 2 == 0 and set(piece) <= {" "}
            out += [current] * (len(piece) // 2)
    return out


def test_ansi_structure(dev):
    values = [[0.0, 1.0, 2.0, 3.0], [float("nan"), float("inf"), -float("inf"), 0.5]]
    t = wt.asarray(values, dtype=wt.float32, device=dev)
    p = hm.payload(t)
    lines = t.to_heatmap().split("\n")
    assert lines[0].startswith("Tensor shape=(2, 4) dtype=float32")
    body = lines[1:3]
    for row, line in zip(values, body):
        assert line.endswith("\x1b[0m")
        assert ansi_cells(line) == [expected_rgb(v, p) for v in row]
    assert lines[3].startswith("0 ") and lines[3].endswith(" 3")  # the legend: range ends
    assert len(lines) == 4
    assert wt.to_heatmap(t) == t.to_heatmap()


def test_ansi_plain_characters():
    t = wt.asarray([[0.0, 9.0, float("nan")], [float("inf"), -float("inf"), 4.5]])
    lines = t.to_heatmap(ansi=False).split("\n")
    assert "\x1b" not in "\n".join(lines)
    assert lines[1] == "  @@??" and lines[2] == "^^vvoo"
    assert lines[3] == "0  .:-=o*#%@ 9"


def test_ansi_downsamples_to_the_width():
    t = wt.reshape(wt.arange(3 * 100, dtype=wt.float32), (3, 100))
    lines = t.to_heatmap(ansi=False, max_width=20).split("\n")
    assert [len(line) for line in lines[1:4]] == [20, 20, 20]
    assert "block means" in lines[0]


def test_ansi_slices_title_and_limit():
    t = wt.reshape(wt.arange(2 * 3 * 2 * 2, dtype=wt.float32), (2, 3, 2, 2))
    text = wt.to_heatmap(t, ansi=False, title="my tensor", max_slices=4)
    lines = text.split("\n")
    assert lines[0] == "my tensor"
    labels = [line for line in lines if line.endswith(":, :]")]
    assert labels == ["[0, 0, :, :]", "[0, 1, :, :]", "[0, 2, :, :]", "[1, 0, :, :]"]
    assert "... 2 more slices" in text


def test_ansi_image_uses_its_own_colours():
    data = [[[255, 0, 0], [0, 0, 255]]]
    line = wt.asarray(data, dtype=wt.uint8).to_heatmap().split("\n")[1]
    assert ansi_cells(line) == [(255, 0, 0), (0, 0, 255)]


def test_ansi_empty_and_errors():
    assert wt.to_heatmap(wt.zeros((0,))).endswith("(no elements)")
    with pytest.raises(ValueError, match=r"wt\.to_heatmap: max_width must be at least 2"):
        wt.to_heatmap(wt.ones(3), max_width=1)
    with pytest.raises(ValueError, match=r"wt\.to_heatmap: max_slices must be an int >= 1"):
        wt.to_heatmap(wt.ones(3), max_slices=0)


# -- show and its hook ----------------------------------------------------------------------------

@pytest.fixture
def no_ipython(monkeypatch):
    monkeypatch.delitem(sys.modules, "IPython", raising=False)


def test_show_calls_the_hook_with_the_payload(no_ipython):
    seen = []
    t = wt.asarray([[1.0, 2.0]])
    previous = wt.set_show_hook(seen.append)
    try:
        assert wt.show(t, title="x") is None
        t.show("y")
    finally:
        wt.set_show_hook(None)
    assert [s["title"] for s in seen] == ["x", "y"]
    assert seen[0] == hm.payload(t, title="x")
    assert previous is not None  # the setter returns a context manager


def test_show_hook_as_a_context_manager(capsys, no_ipython):
    seen = []
    with wt.set_show_hook(seen.append):
        wt.show(wt.ones(2))
        assert hm.get_show_hook() is not None
    assert hm.get_show_hook() is None and len(seen) == 1
    wt.show(wt.ones(2))
    assert len(seen) == 1 and "Tensor shape=(2,)" in capsys.readouterr().out


def test_show_without_hook_prints_ansi(capsys, monkeypatch, no_ipython):
    monkeypatch.delenv("NO_COLOR", raising=False)
    t = wt.asarray([1.0, 2.0])
    wt.show(t, title="hello")
    assert capsys.readouterr().out == wt.to_heatmap(t, title="hello") + "\n"
    monkeypatch.setenv("NO_COLOR", "1")
    wt.show(t)
    assert capsys.readouterr().out == wt.to_heatmap(t, ansi=False) + "\n"


def test_show_under_ipython_displays_html(monkeypatch):
    shown = []
    ipython = types.ModuleType("IPython")
    ipython.get_ipython = lambda: object()
    display = types.ModuleType("IPython.display")
    display.HTML = lambda text: ("HTML", text)
    display.display = shown.append
    monkeypatch.setitem(sys.modules, "IPython", ipython)
    monkeypatch.setitem(sys.modules, "IPython.display", display)
    t = wt.asarray([[1.0, 2.0]])
    wt.show(t, title="<b>&")
    ((tag, text),) = shown
    assert tag == "HTML" and "&lt;b&gt;&amp;" in text and "data:image/png;base64," in text


def test_show_figure_redraws_in_place(monkeypatch):
    """figure= names a figure: the hook gets the name, IPython updates its display id."""
    got = []
    with wt.set_show_hook(got.append):
        wt.show(wt.ones(2), figure="loss")
        wt.show(wt.zeros(3), figure="loss")
        wt.show(wt.ones(1))
    assert [p.get("figure") for p in got] == ["loss", "loss", None]
    assert got[1]["shape"] == [3]
    calls = []
    ipython = types.ModuleType("IPython")
    ipython.get_ipython = lambda: object()
    display = types.ModuleType("IPython.display")
    display.HTML = lambda text: text
    display.display = lambda obj, display_id=None: calls.append(("display", display_id))
    display.update_display = lambda obj, display_id: calls.append(("update", display_id))
    monkeypatch.setitem(sys.modules, "IPython", ipython)
    monkeypatch.setitem(sys.modules, "IPython.display", display)
    wt.show(wt.ones(2), figure="curve-test")
    wt.show(wt.ones(2), figure="curve-test")
    assert calls == [("display", "webtensor-curve-test"), ("update", "webtensor-curve-test")]
    with pytest.raises(TypeError, match=r"wt.show: figure must be a str"):
        wt.show(wt.ones(2), figure=3)


def test_show_outside_a_shell_ignores_a_dormant_ipython(capsys, monkeypatch):
    ipython = types.ModuleType("IPython")
    ipython.get_ipython = lambda: None  # IPython imported, but not running a shell
    monkeypatch.setitem(sys.modules, "IPython", ipython)
    wt.show(wt.ones(1))
    assert "Tensor shape=(1,)" in capsys.readouterr().out


def test_show_errors():
    with pytest.raises(TypeError, match=r"wt\.set_show_hook: expects a callable"):
        wt.set_show_hook(3)
    with pytest.raises(TypeError, match=r"wt\.show: title must be a str or None"):
        wt.show(wt.ones(1), title=5)


# -- webgpu against the CPU -----------------------------------------------------------------------

@pytest.mark.skipif("webgpu" not in DEVICES, reason="webgpu device unavailable")
@pytest.mark.parametrize("shape, dt", [((37, 23), wt.float32), ((3, 9, 11), wt.int32),
                                       ((50,), wt.bool), ((6, 5, 3), wt.uint8)])
def test_webgpu_payload_equals_cpu(shape, dt):
    n = math.prod(shape)
    values = [((k * 7919) % 211 - 100) / 8 for k in range(n)]
    base = wt.reshape(wt.asarray(values, dtype=wt.float32, device=CPU), shape)
    if dt is wt.bool:
        base = base > 0
    elif dt is wt.uint8:
        base = wt.abs(base) * 4
    cpu = wt.astype(base, dt)
    gpu = cpu.to_device("webgpu")
    want, got = hm.payload(cpu, max_cells=64), hm.payload(gpu, max_cells=64)
    assert got["device"] == "webgpu"
    for key in want:
        if key not in ("device", "text", "values"):
            assert got[key] == want[key], key
    pairs = zip(floats(got["values"]), floats(want["values"]))
    assert all(g == pytest.approx(w, rel=1e-6, abs=1e-6) for g, w in pairs)


def test_every_dtype_draws(dev):
    for dt in ALL:
        t = wt.astype(wt.reshape(wt.arange(6, device=dev), (2, 3)), dt)
        p = hm.payload(t)
        assert p["dtype"] == dt.name and len(floats(p["values"])) == 6
        assert decode_png(hm.to_png(t))[:2] != (0, 0)
        assert isinstance(t.to_heatmap(ansi=False), str)
