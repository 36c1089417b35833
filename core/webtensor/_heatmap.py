"""Heatmaps of tensors: data for the playground, PNG for notebooks, ANSI for terminals.

Every view starts from :func:`payload` (the playground's contract) or its engine ``_prepare``:

1. the tensor becomes display values on its own device: complex -> magnitude, bool -> 0/1,
   integers and narrow floats -> float32, float64 stays float64 until the end;
2. the finite min / max and "is every value finite" are reduced there too and read back in one
   transfer;
3. each 2-D slice is downsampled by block means (pad with zeros, reshape into blocks, weight each
   block by ``1 / elements in it``, sum) so only the cells cross to the host, as float32.

The PNG writer (zlib + struct) and the ANSI writer then colour the cells with the same lookup
table the playground receives, so a notebook, a terminal and the browser show the same picture.
Nothing here needs NumPy: it runs in Pyodide on the pure-Python CPU backend.
"""

from __future__ import annotations

import base64
import html
import math
import os
import struct
import sys
import zlib
from array import array

from ._settings import Setting

__all__ = ["payload", "to_png", "to_heatmap", "show", "set_show_hook", "color_index",
           "SEQUENTIAL_LUT", "DIVERGING_LUT", "NAN_RGB", "POSINF_RGB", "NEGINF_RGB"]

# -- colour tables (data) -----------------------------------------------------------------------

# Viridis sampled at 9 evenly spaced points (perceptually uniform, readable in grey and by most
# colour-blind viewers); linear interpolation between neighbours stays close to the full map.
_SEQUENTIAL_ANCHORS = (
    (68, 1, 84), (71, 44, 122), (59, 81, 139), (44, 113, 142), (33, 144, 141),
    (39, 173, 129), (92, 200, 99), (170, 220, 50), (253, 231, 37),
)
# ColorBrewer RdBu ends (blue = negative, red = positive) around a light grey centre rather than
# white, so that white stays free to mean +inf.
_DIVERGING_ANCHORS = (
    (5, 48, 97), (33, 102, 172), (67, 147, 195), (146, 197, 222), (221, 221, 221),
    (244, 165, 130), (214, 96, 77), (178, 24, 43), (103, 0, 31),
)
NAN_RGB = (255, 0, 255)  # magenta: in neither table
POSINF_RGB = (255, 255, 255)
NEGINF_RGB = (0, 0, 0)

LUT_SIZE = 256


def _interpolate(anchors, n: int = LUT_SIZE) -> bytes:
    """``n`` RGB triples linearly interpolated between evenly spaced ``anchors``."""
    out = bytearray()
    last = len(anchors) - 1
    for i in range(n):
        pos = i * last / (n - 1)
        k = min(int(pos), last - 1)
        frac = pos - k
        lo, hi = anchors[k], anchors[k + 1]
        out += bytes(int(a + (b - a) * frac + 0.5) for a, b in zip(lo, hi))
    return bytes(out)


SEQUENTIAL_LUT = _interpolate(_SEQUENTIAL_ANCHORS)
DIVERGING_LUT = _interpolate(_DIVERGING_ANCHORS)

DEFAULT_MAX_CELLS = 65536
# Character ramp for terminals without colour (dark -> bright), and the non-finite marks.
_RAMP = " .:-=o*#%@"
_PLAIN_NAN, _PLAIN_POSINF, _PLAIN_NEGINF = "?", "^", "v"


def color_index(v: float, vmin, vmax, diverging: bool) -> int:
    """The contract's LUT index of a finite cell value ``v`` (0..255)."""
    if diverging:
        m = max(abs(vmin), abs(vmax))
        lo, hi = -m, m
    else:
        lo, hi = vmin, vmax
    if hi == lo:
        u = 0.5
    elif math.isinf(hi - lo):  # a range wider than the float64 maximum: halve everything
        u = (v / 2 - lo / 2) / (hi / 2 - lo / 2)
    else:
        u = (v - lo) / (hi - lo)
    # Clamping u first is the same as clamping the index, and keeps floor() away from inf.
    return math.floor(min(max(u, 0.0), 1.0) * 255 + 0.5)


def _lut_indices(values, info: dict) -> list:
    """The LUT index of each cell value, or "nan" / "+inf" / "-inf" for non-finite ones.

    The contract's formula inlined (a PNG colours up to 65536 cells in pure Python); the same
    arithmetic as ``color_index``, which handles the rare ranges it leaves out.
    """
    vmin, vmax, diverging = info["vmin"], info["vmax"], info["diverging"]
    lo, hi = vmin, vmax
    if diverging:
        m = max(abs(vmin), abs(vmax))
        lo, hi = -m, m
    span = None if vmin is None else hi - lo
    fast = span is not None and span != 0 and not math.isinf(span)
    out = []
    for v in values:
        if v - v == 0.0:  # finite: inf - inf and nan - nan are nan
            if fast:
                u = (v - lo) / span
                out.append(0 if u <= 0.0 else 255 if u >= 1.0 else int(u * 255 + 0.5))
            else:
                out.append(color_index(v, vmin, vmax, diverging))
        else:
            out.append("nan" if v != v else "+inf" if v > 0 else "-inf")
    return out


def _palette(info: dict) -> dict:
    """LUT index (or non-finite mark) -> RGB bytes."""
    lut = info["lut"]
    colours = {i: lut[3 * i:3 * i + 3] for i in range(LUT_SIZE)}
    colours.update({"nan": bytes(NAN_RGB), "+inf": bytes(POSINF_RGB),
                    "-inf": bytes(NEGINF_RGB)})
    return colours


# -- the engine ---------------------------------------------------------------------------------

_show_hook = Setting("show_hook", None)


def _as_tensor(t, fn: str):
    import webtensor as wt

    if isinstance(t, wt.Tensor):
        return t
    try:
        return wt.asarray(t)
    except (TypeError, ValueError) as e:
        raise TypeError(f"{fn}: expects a tensor or array-like data, got "
                        f"{type(t).__name__} ({e})") from None


def _check_positive_int(value, name: str, fn: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ValueError(f"{fn}: {name} must be an int >= 1, got {value!r}")
    return value


MAX_ASPECT = 100  # up to this ratio of the sides, cells are square (the picture keeps its shape)


def _budget_steps(h0: int, w0: int, budget: int) -> tuple[int, int]:
    """Block sizes (sy, sx) so that ceil(h0/sy) * ceil(w0/sx) <= budget.

    Slices up to ``MAX_ASPECT``:1 get the smallest square blocks that fit, so the grid keeps the
    tensor's proportions (a 2000 x 2000 slice becomes 250 x 250 cells, not a strip).  Longer
    ones (a 3 x 10**6 signal) would collapse their short side under square blocks: there the
    blocks of least area win, then the squarest, so the 3 rows stay.
    """
    if h0 * w0 <= budget:
        return 1, 1
    if max(h0, w0) <= MAX_ASPECT * min(h0, w0):
        s = max(1, math.isqrt(h0 * w0 // budget))
        while -(-h0 // s) * -(-w0 // s) > budget:
            s += 1
        return s, s
    # Only the smallest step of each distinct ceil(h0 / sy) matters: O(sqrt(h0)) candidates.
    root = math.isqrt(h0) + 1
    candidates = set(range(1, min(root, h0) + 1))
    candidates.update(-(-h0 // q) for q in range(1, root + 1))
    best = None
    for sy in candidates:
        rows = -(-h0 // sy)
        per_row = budget // rows
        if per_row == 0:
            continue
        sx = -(-w0 // per_row)  # the smallest step giving at most per_row columns
        key = (sy * sx, max(sy, sx), sy)
        if best is None or key < best[0]:
            best = key, (sy, sx)
    return best[1]


def _block_means(x, sy: int, sx: int):
    """(S, H0, W0) -> (S, ceil(H0/sy), ceil(W0/sx)) means of sy x sx blocks, on x's device."""
    import webtensor as wt

    if sy == 1 and sx == 1:
        return x
    s, h0, w0 = x.shape
    hq, wq = -(-h0 // sy), -(-w0 // sx)
    pad_h, pad_w = hq * sy - h0, wq * sx - w0
    if pad_h or pad_w:  # zeros add nothing to a block's sum; the weights count real elements
        x = wt.pad(x, ((0, 0), (0, pad_h), (0, pad_w)))
    blocks = wt.reshape(x, (s, hq, sy, wq, sx))
    # NOTE: each element is scaled by 1/count *before* summing, so a block of values near the
    # dtype's maximum cannot overflow to inf on its way to a finite mean.
    row_w = [1.0 / min(sy, h0 - i * sy) for i in range(hq)]
    col_w = [1.0 / min(sx, w0 - j * sx) for j in range(wq)]
    wy = wt.reshape(wt.asarray(row_w, dtype=x.dtype, device=x.device), (hq, 1, 1, 1))
    wx = wt.reshape(wt.asarray(col_w, dtype=x.dtype, device=x.device), (wq, 1))
    return wt.sum(blocks * (wy * wx), axis=(2, 4))


def _display_values(t):
    """The values a heatmap shows, as a real float tensor on t's device."""
    import webtensor as wt

    kind = t.dtype.kind
    if kind == "c":
        return wt.abs(t)
    if t.dtype in (wt.float32, wt.float64):
        return t
    return wt.astype(t, wt.float32)


def _stats_of(d):
    import webtensor as wt

    finite = wt.isfinite(d)
    low = wt.min(wt.where(finite, d, math.inf))
    high = wt.max(wt.where(finite, d, -math.inf))
    everything = wt.astype(wt.all(finite), d.dtype)
    return wt.stack([low, high, everything])


_programs: dict = {}


def _program(fn, **static):
    """``fn`` compiled with ``wt.jit`` (one program per shape: fused kernels, no per-op cost)."""
    found = _programs.get(fn)
    if found is None:
        import webtensor as wt

        found = _programs[fn] = wt.jit(fn, static_argnames=tuple(static))
    return found


def _stats(d) -> tuple:
    """(finite min or None, finite max or None, every value finite), read back in one transfer."""
    vmin, vmax, all_finite = _program(_stats_of)(d).tolist()
    if vmin > vmax:  # nothing finite: the reductions kept their +inf / -inf starting points
        return None, None, bool(all_finite)
    return vmin, vmax, bool(all_finite)


def _is_image(t, vmin, vmax, all_finite: bool) -> bool:
    import webtensor as wt

    if t.ndim != 3 or t.shape[-1] not in (3, 4) or t.size == 0:
        return False
    if t.dtype is wt.uint8:
        return True
    # Float data is an image only when every value is a finite intensity in [0, 1].
    return t.dtype.kind == "f" and all_finite and vmin >= 0.0 and vmax <= 1.0


def _prepare(t, *, budget: int | None = None, bounds: tuple | None = None,
             max_slices: int | None = None) -> dict:
    """Everything a view needs: kind, geometry, the float32 cell tensor, range and colours.

    ``budget`` caps the cells of all slices together (the payload); ``bounds`` = (rows, cols)
    caps each slice instead (a terminal).  ``max_slices`` keeps only the leading slices.
    """
    import webtensor as wt

    with wt.promotion_mode("standard"):  # only same-dtype ops and Python scalars below
        fast = _device_summary(t, budget, bounds, max_slices)
        if fast is not None:
            return fast
        d = _display_values(t)
        empty = t.size == 0
        vmin, vmax, all_finite = (None, None, True) if empty else _stats(d)
        if empty:
            kind = "empty"
        elif t.ndim == 0:
            kind = "scalar"
        elif _is_image(t, vmin, vmax, all_finite):
            kind = "image"
        elif t.ndim == 1:
            kind = "line"
        else:
            kind = "heatmap"
        diverging = kind != "image" and vmin is not None and vmin < 0.0 < vmax
        info = {"kind": kind, "vmin": vmin, "vmax": vmax, "diverging": diverging,
                "lut": DIVERGING_LUT if diverging else SEQUENTIAL_LUT,
                "slices": [], "shown_slices": 1, "channels": 0}
        if kind == "empty":
            info.update(grid=[0, 0], step=[1, 1], cells=None)
            return info
        if kind == "image":
            h0, w0, channels = t.shape
            stack = wt.permute_dims(d, (2, 0, 1))
            info["channels"] = channels
        else:
            if kind == "heatmap":
                h0, w0 = t.shape[-2:]
                info["slices"] = list(t.shape[:-2])
            else:  # line, scalar
                h0, w0 = 1, (t.shape[0] if t.ndim else 1)
            stack = wt.reshape(d, (-1, h0, w0))
            if max_slices is not None and stack.shape[0] > max_slices:
                stack = stack[:max_slices]
            info["shown_slices"] = stack.shape[0]
        if bounds is not None:
            sy, sx = -(-h0 // bounds[0]), -(-w0 // bounds[1])
        else:
            per_slice = max(1, budget // (1 if kind == "image" else stack.shape[0]))
            sy, sx = _budget_steps(h0, w0, per_slice)
        cells = _program(_block_means, sy=sy, sx=sx)(stack, sy=sy, sx=sx)
        if kind == "image":
            cells = wt.permute_dims(cells, (1, 2, 0))
            if t.dtype.kind == "f":
                cells = cells * 255.0
        info["grid"] = [-(-h0 // sy), -(-w0 // sx)]
        info["step"] = [sy, sx]
        info["cells"] = wt.astype(cells, wt.float32)
        return info


def _device_summary(t, budget, bounds, max_slices):
    """``_prepare``'s result from one device pass (``Backend.summarize_blocks``), or None where
    the device has no such pass or the tensor is complex, float64 or a picture."""
    import webtensor as wt

    if t.size == 0 or t.dtype.kind == "c" or t.dtype is wt.float64:
        return None
    if t.ndim >= 2:
        h0, w0 = t.shape[-2:]
    else:
        h0, w0 = 1, (t.shape[0] if t.ndim else 1)
    stack = wt.reshape(t, (-1, h0, w0))
    if max_slices is not None and stack.shape[0] > max_slices:
        stack = stack[:max_slices]
    if bounds is not None:
        sy, sx = -(-h0 // bounds[0]), -(-w0 // bounds[1])
    else:
        sy, sx = _budget_steps(h0, w0, max(1, budget // stack.shape[0]))
    found = t.device.backend.summarize_blocks(stack, sy, sx)
    if found is None:
        return None
    vmin, vmax, all_finite, cells = found
    if _is_image(t, vmin, vmax, all_finite):
        return None  # pictures are laid out by channel: the general path
    kind = "scalar" if t.ndim == 0 else "line" if t.ndim == 1 else "heatmap"
    diverging = vmin is not None and vmin < 0.0 < vmax
    return {"kind": kind, "vmin": vmin, "vmax": vmax, "diverging": diverging,
            "lut": DIVERGING_LUT if diverging else SEQUENTIAL_LUT,
            "slices": list(t.shape[:-2]) if kind == "heatmap" else [],
            "shown_slices": stack.shape[0], "channels": 0,
            "grid": [-(-h0 // sy), -(-w0 // sx)], "step": [sy, sx], "cells": cells}


def _cell_values(cells) -> array:
    """The float32 cells as a flat Python array (one read from the device)."""
    values = array("f", cells.tobytes())
    if sys.byteorder == "big":  # the byte layout is little-endian on every device
        values.byteswap()
    return values


# -- the playground's payload -------------------------------------------------------------------

def payload(t, *, title: str | None = None, max_cells: int = DEFAULT_MAX_CELLS) -> dict:
    """Everything the playground needs to draw ``t`` (see the module docstring for the flow).

    Geometry per kind: ``scalar`` has grid [1, 1], ``line`` [1, W], ``empty`` [0, 0] with no
    values; ``heatmap`` slices are the leading axes of a 3-D+ tensor.
    ``max_cells`` caps the cells of all slices together (``len(values)`` is at most
    ``max_cells`` floats per channel), except that every slice keeps at least one cell.
    ``vmin``/``vmax`` are the finite min and max of the (magnitude of the) data itself.
    """
    fn = "webtensor._heatmap.payload"
    if title is not None and not isinstance(title, str):
        raise TypeError(f"{fn}: title must be a str or None, got {type(title).__name__}")
    _check_positive_int(max_cells, "max_cells", fn)
    t = _as_tensor(t, fn)
    info = _prepare(t, budget=max_cells)
    cells = info["cells"]
    return {
        "title": title,
        "text": repr(t),
        "shape": list(t.shape),
        "dtype": t.dtype.name,
        "weak": bool(t.weak),
        "device": t.device.name,
        "names": None if t.names is None else list(t.names),
        "kind": info["kind"],
        "slices": info["slices"],
        "grid": info["grid"],
        "step": info["step"],
        "values": b"" if cells is None else cells.tobytes(),
        "vmin": info["vmin"],
        "vmax": info["vmax"],
        "diverging": info["diverging"],
        "lut": info["lut"],
        "nan_rgb": list(NAN_RGB),
        "posinf_rgb": list(POSINF_RGB),
        "neginf_rgb": list(NEGINF_RGB),
    }


# -- PNG ------------------------------------------------------------------------------------------

PNG_MAX_SLICES = 16  # a 3-D+ tensor shows its leading slices as a montage
_PNG_TARGET = 320  # upscale small grids to about this many pixels on the longer side
_PNG_MAX_SCALE = 32
_PNG_LINE_HEIGHT = 24
_PNG_GAP_RGB = (96, 96, 96)  # between montage tiles; not a LUT or non-finite colour


def _png_chunk(tag: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))


def _encode_png(width: int, height: int, rows: list, channels: int) -> bytes:
    """A PNG of 8-bit RGB (channels=3) or RGBA (4) rows, each row ``width * channels`` bytes."""
    color_type = {3: 2, 4: 6}[channels]
    header = struct.pack(">IIBBBBB", width, height, 8, color_type, 0, 0, 0)
    raw = b"".join(b"\x00" + row for row in rows)  # filter type 0 (none) on every row
    return (b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", header)
            + _png_chunk(b"IDAT", zlib.compress(raw, 6)) + _png_chunk(b"IEND", b""))


def _tile_rows(values, offset: int, info: dict) -> list:
    """One slice's cells as rows of pixel bytes (one pixel per cell)."""
    h, w = info["grid"]
    channels = info["channels"]
    rows = []
    if channels:
        for i in range(h):
            start = offset + i * w * channels
            rows.append(bytes(min(max(int(v + 0.5), 0), 255)
                              for v in values[start:start + w * channels]))
        return rows
    palette = _palette(info)
    indices = _lut_indices(values[offset:offset + h * w], info)
    return [b"".join(palette[k] for k in indices[i * w:(i + 1) * w]) for i in range(h)]


def _png_of(info: dict) -> tuple[bytes, int, int]:
    """(PNG bytes, width, height) of prepared cells: a montage when there are several slices."""
    h, w = info["grid"]
    channels = info["channels"] or 3
    values = _cell_values(info["cells"])
    n = info["shown_slices"]
    cols = math.ceil(math.sqrt(n))
    tile_rows = math.ceil(n / cols)
    cells_w, cells_h = cols * w + (cols - 1), tile_rows * h + (tile_rows - 1)
    scale = max(1, min(_PNG_MAX_SCALE, _PNG_TARGET // max(cells_w, cells_h)))
    scale_y = max(scale, _PNG_LINE_HEIGHT) if info["kind"] == "line" else scale
    gap = bytes(_PNG_GAP_RGB) + (b"\xff" if channels == 4 else b"")
    per_slice = h * w * (info["channels"] or 1)
    tiles = [_tile_rows(values, k * per_slice, info) for k in range(n)]
    blank_tile_row = gap * w
    rows = []
    for tr in range(tile_rows):
        if tr:
            rows.append(gap * cells_w)
        for i in range(h):
            parts = []
            for tc in range(cols):
                k = tr * cols + tc
                parts.append(tiles[k][i] if k < n else blank_tile_row)
            rows.append(gap.join(parts))
    # Nearest-neighbour upscaling: repeat each pixel `scale` times, each row `scale_y` times.
    pixel = channels
    scaled = []
    for row in rows:
        if scale > 1:
            row = b"".join(row[p:p + pixel] * scale for p in range(0, len(row), pixel))
        scaled.extend([row] * scale_y)
    width, height = cells_w * scale, cells_h * scale_y
    return _encode_png(width, height, scaled, channels), width, height


def to_png(t) -> bytes:
    """A PNG heatmap of ``t`` (an RGB(A) picture for image tensors), upscaled when small.

    A 3-D+ tensor shows its first 16 slices side by side; NaN, +inf and -inf cells get
    ``NAN_RGB``, ``POSINF_RGB`` and ``NEGINF_RGB``.
    """
    t = _as_tensor(t, "webtensor._heatmap.to_png")
    if t.size == 0:
        raise ValueError(f"webtensor._heatmap.to_png: the tensor of shape {t.shape} has no "
                         f"elements to draw; check the shape, or use repr(t) for empty tensors")
    info = _prepare(t, budget=DEFAULT_MAX_CELLS, max_slices=PNG_MAX_SLICES)
    return _png_of(info)[0]


def _fmt(v) -> str:
    return "-" if v is None else format(v, ".6g")


def _caption(t, info: dict) -> str:
    parts = [f"shape={t.shape}", f"dtype={t.dtype.name}", f"weak={bool(t.weak)}",
             f"device={t.device.name}", f"names={t.names}"]
    notes = []
    if info["kind"] not in ("empty", "image"):
        notes.append(f"range [{_fmt(info['vmin'])}, {_fmt(info['vmax'])}]"
                     + (" (diverging, centred on 0)" if info["diverging"] else ""))
    if info["step"] != [1, 1]:
        notes.append(f"{info['step'][0]}x{info['step'][1]} block means")
    total = math.prod(info["slices"]) if info["slices"] else 1
    if info["shown_slices"] < total:
        notes.append(f"first {info['shown_slices']} of {total} slices")
    return " ".join(parts) + ("; " + "; ".join(notes) if notes else "")


def _html(t, title: str | None = None) -> str:
    info = _prepare(t, budget=DEFAULT_MAX_CELLS, max_slices=PNG_MAX_SLICES)
    out = ['<div class="webtensor-tensor">']
    if title is not None:
        out.append(f"<div><b>{html.escape(title)}</b></div>")
    if info["kind"] != "empty":
        png, width, height = _png_of(info)
        src = "data:image/png;base64," + base64.b64encode(png).decode("ascii")
        out.append(f'<img src="{src}" width="{width}" height="{height}" '
                   f'alt="heatmap of a {t.dtype.name} tensor of shape {t.shape}" '
                   f'style="image-rendering: pixelated">')
    out.append(f'<div style="font-family: monospace; font-size: 0.85em">'
               f"{html.escape(_caption(t, info))}</div>")
    out.append(f"<details><summary>values</summary><pre>{html.escape(repr(t))}</pre>"
               f"</details></div>")
    return "\n".join(out)


def repr_html(t) -> str:
    """``Tensor._repr_html_``: an inline PNG heatmap plus a caption (no JavaScript needed)."""
    return _html(t)


# -- terminal -------------------------------------------------------------------------------------

def _background(rgb) -> str:
    return "\x1b[48;2;{};{};{}m".format(*rgb)


def _ansi_cell(rgb, previous):
    """Two spaces on a 24-bit background; the escape only when the colour changes."""
    return ("  " if rgb == previous else _background(rgb) + "  "), rgb


_PLAIN_MARKS = {"nan": _PLAIN_NAN, "+inf": _PLAIN_POSINF, "-inf": _PLAIN_NEGINF}


def _plain_cell(index) -> str:
    """Two characters: the ramp character of a LUT index, or the non-finite mark."""
    if index in _PLAIN_MARKS:
        return _PLAIN_MARKS[index] * 2
    return _RAMP[index * len(_RAMP) // LUT_SIZE] * 2


def _slice_label(k: int, slices: list) -> str:
    index = []
    for size in reversed(slices):
        index.append(k % size)
        k //= size
    return "[" + ", ".join(map(str, reversed(index))) + ", :, :]"


def to_heatmap(t, *, ansi: bool = True, title: str | None = None, max_width: int = 80,
               max_height: int = 40, max_slices: int = 8) -> str:
    """A terminal heatmap: cells as 24-bit colour background blocks (two columns per cell).

    ``ansi=False`` draws with the characters ``" .:-=o*#%@"`` instead (``?`` NaN, ``^`` +inf,
    ``v`` -inf).  Cells are block means so each slice fits ``max_width`` columns and
    ``max_height`` rows; a 3-D+ tensor shows its first ``max_slices`` slices.
    """
    fn = "wt.to_heatmap"
    for name, value in (("max_width", max_width), ("max_height", max_height),
                        ("max_slices", max_slices)):
        _check_positive_int(value, name, fn)
    if max_width < 2:
        raise ValueError(f"{fn}: max_width must be at least 2 (one cell is two columns), "
                         f"got {max_width}")
    t = _as_tensor(t, fn)
    info = _prepare(t, bounds=(max_height, max_width // 2), max_slices=max_slices)
    lines = [title] if title is not None else []
    lines.append("Tensor " + _caption(t, info))
    if info["kind"] == "empty":
        return "\n".join(lines + ["(no elements)"])
    values = _cell_values(info["cells"])
    h, w = info["grid"]
    channels = info["channels"]
    if not channels:
        values = _lut_indices(values, info)
        palette = _palette(info)
    reset = "\x1b[0m" if ansi else ""
    per_slice = h * w * (channels or 1)
    for k in range(info["shown_slices"]):
        if info["slices"]:
            lines.append(_slice_label(k, info["slices"]))
        for i in range(h):
            line, previous = [], None
            for j in range(w):  # values: LUT indices, or channel intensities for images
                at = k * per_slice + (i * w + j) * (channels or 1)
                if channels:  # an image: its own colours (alpha blended over black)
                    alpha = values[at + 3] / 255.0 if channels == 4 else 1.0
                    rgb = tuple(min(max(int(values[at + c] * alpha + 0.5), 0), 255)
                                for c in range(3))
                    if ansi:
                        cell, previous = _ansi_cell(rgb, previous)
                    else:
                        luma = (0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2]) / 255.0
                        cell = _RAMP[min(int(luma * len(_RAMP)), len(_RAMP) - 1)] * 2
                elif ansi:
                    cell, previous = _ansi_cell(palette[values[at]], previous)
                else:
                    cell = _plain_cell(values[at])
                line.append(cell)
            lines.append("".join(line) + reset)
    total = math.prod(info["slices"]) if info["slices"] else 1
    if info["shown_slices"] < total:
        lines.append(f"... {total - info['shown_slices']} more slices")
    if not channels:
        lines.append(_legend(info, ansi))
    return "\n".join(lines)


def _legend(info: dict, ansi: bool) -> str:
    """The scale: low end, 16 swatches (or the character ramp), high end."""
    lo, hi = info["vmin"], info["vmax"]
    if lo is None:
        return "no finite values"
    if info["diverging"]:
        m = max(abs(lo), abs(hi))
        lo, hi = -m, m
    if ansi:
        lut = info["lut"]
        swatches = "".join(_background(lut[3 * i:3 * i + 3]) + " "
                           for i in (round(k * 255 / 15) for k in range(16))) + "\x1b[0m"
    else:
        swatches = _RAMP
    return f"{_fmt(lo)} {swatches} {_fmt(hi)}"


# -- show -----------------------------------------------------------------------------------------

def set_show_hook(fn):
    """Route ``wt.show`` to ``fn(payload_dict)`` (None: the default display).

    Process-wide; ``with wt.set_show_hook(fn):`` sets it for that block (this thread/task) only.
    """
    if fn is not None and not callable(fn):
        raise TypeError(f"wt.set_show_hook: expects a callable taking the payload dict, or None "
                        f"to restore the default display; got {type(fn).__name__}")
    return _show_hook.set(fn)


def get_show_hook():
    """The function ``wt.show`` currently hands payloads to (None: the default display)."""
    return _show_hook.get()


def _ipython_shell():
    module = sys.modules.get("IPython")  # only when already imported: never import it here
    getter = getattr(module, "get_ipython", None)
    return getter() if getter is not None else None


def show(t, title: str | None = None, *, figure: str | None = None) -> None:
    """Display ``t`` as a heatmap: through the hook if one is set, in IPython/Jupyter as HTML,
    otherwise printed as an ANSI heatmap (plain characters when ``NO_COLOR`` is set).

    ``figure`` names a figure to draw again in place (a live loss curve, a picture redrawn as
    training goes): the playground and Jupyter replace the figure shown under that name.
    """
    if title is not None and not isinstance(title, str):
        raise TypeError(f"wt.show: title must be a str or None, got {type(title).__name__}")
    if figure is not None and not isinstance(figure, str):
        raise TypeError(f"wt.show: figure must be a str naming the figure to update, or None, "
                        f"got {type(figure).__name__}")
    t = _as_tensor(t, "wt.show")
    hook = _show_hook.get()
    if hook is not None:
        data = payload(t, title=title)
        if figure is not None:
            data["figure"] = figure
        hook(data)
        return
    if _ipython_shell() is not None:
        from IPython.display import HTML, display

        html = HTML(_html(t, title))
        if figure is None:
            display(html)
        elif figure in _displayed:
            from IPython.display import update_display

            update_display(html, display_id=f"webtensor-{figure}")
        else:
            _displayed.add(figure)
            display(html, display_id=f"webtensor-{figure}")
        return
    print(to_heatmap(t, title=title, ansi=not os.environ.get("NO_COLOR")))


_displayed: set = set()  # figure names already shown in this IPython session
