// Draws one tensor payload (webtensor._heatmap.payload) as a figure: canvas, colour legend,
// shape / dtype / weak / device / axis names, hover read-out, sliders over the leading axes of
// 3-D+ tensors, a line plot for 1-D and pictures for images. The payload carries the colours
// (lut, nan/inf colours) so page and terminal agree; this file only maps values to them.
import { el } from "./dom.js";

const MAX_WIDTH_PX = 520;
const MAX_HEIGHT_PX = 360;

/** Colour-table index of a finite value (the contract's formula). */
export function colorIndex(v, lo, hi) {
  const u = hi === lo ? 0.5 : (v - lo) / (hi - lo);
  return Math.min(255, Math.max(0, Math.floor(u * 255 + 0.5)));
}

/** The [lo, hi] the colour scale spans: symmetric around 0 for diverging data. */
export function scaleRange(p) {
  if (p.vmin == null || p.vmax == null) return [0, 0];
  if (p.diverging) {
    const m = Math.max(Math.abs(p.vmin), Math.abs(p.vmax));
    return [-m, m];
  }
  return [p.vmin, p.vmax];
}

/** RGB of one value: the LUT for finite values, the payload's marker colours otherwise. */
export function colorOf(p, v, lo, hi) {
  if (Number.isNaN(v)) return p.nan_rgb;
  if (v === Infinity) return p.posinf_rgb;
  if (v === -Infinity) return p.neginf_rgb;
  const k = 3 * colorIndex(v, lo, hi);
  return [p.lut[k], p.lut[k + 1], p.lut[k + 2]];
}

export function formatValue(v) {
  if (Number.isNaN(v)) return "nan";
  if (v === Infinity) return "inf";
  if (v === -Infinity) return "-inf";
  if (Number.isInteger(v) && Math.abs(v) < 1e15) return String(v);
  const a = Math.abs(v);
  return a !== 0 && (a < 1e-4 || a >= 1e6) ? v.toExponential(4) : String(+v.toPrecision(6));
}

function floats(bytes) {
  // values arrive as little-endian float32 bytes; copy when unaligned.
  const b = bytes.byteOffset % 4 === 0 ? bytes : bytes.slice();
  return new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4);
}

const prod = (xs) => xs.reduce((a, b) => a * b, 1);

function axisLabel(p, axis) {
  const name = p.names?.[axis];
  return name ? `${name}` : `axis ${axis}`;
}

/** Builds the figure element for a payload. */
export function renderTensor(p) {
  const fig = el("figure", { class: `tensor kind-${p.kind}` });
  fig.payload = p; // kept for tests and debugging: the canvas must agree with it
  if (p.title) fig.append(el("figcaption", { class: "tensor-title", text: p.title }));
  fig.append(infoLine(p));
  const values = p.values ? floats(p.values) : new Float32Array(0);
  if (p.kind === "empty" || (values.length === 0 && p.kind !== "scalar")) {
    fig.append(el("div", { class: "tensor-empty", text: "(no elements)" }));
  } else if (p.kind === "scalar") {
    fig.append(scalarView(p, values));
  } else {
    fig.append(gridView(p, values));
  }
  if (p.text) {
    fig.append(el("details", { class: "tensor-text" }, el("summary", { text: "repr" }),
      el("pre", { text: p.text })));
  }
  return fig;
}

function infoLine(p) {
  const shape = `(${p.shape.join(", ")}${p.shape.length === 1 ? "," : ""})`;
  const parts = [
    el("span", { class: "shape", text: `shape ${shape}` }),
    el("span", { class: "dtype", text: p.dtype }),
  ];
  if (p.weak) parts.push(el("span", { class: "weak", text: "weak", title: "weakly typed" }));
  parts.push(el("span", { class: "device", text: p.device }));
  if (p.names && p.names.some((n) => n)) {
    parts.push(el("span", { class: "names", text: `axes (${p.names.map((n) => n ?? "·").join(", ")})` }));
  }
  const [sy, sx] = p.step ?? [1, 1];
  if (sy > 1 || sx > 1) {
    parts.push(el("span", { class: "step", text: `block means ${sy}×${sx}` }));
  }
  return el("div", { class: "tensor-info" }, ...parts);
}

function scalarView(p, values) {
  const v = values[0];
  const [lo, hi] = scaleRange(p);
  const [r, g, b] = colorOf(p, v, lo, hi);
  const swatch = el("span", { class: "swatch" });
  swatch.style.background = `rgb(${r},${g},${b})`;
  return el("div", { class: "tensor-scalar" }, swatch, el("code", { text: formatValue(v) }));
}

function gridView(p, values) {
  const [H, W] = p.grid;
  const slices = p.slices ?? [];
  const cells = H * W;
  const channels = p.kind === "image" ? Math.round(values.length / (prod(slices) * cells)) : 1;
  const [lo, hi] = scaleRange(p);
  // Whole pixels per cell up to the size limits (crisp); a grid larger than them shrinks by
  // the same factor both ways, so the picture keeps the tensor's proportions.
  const fit = Math.min(32, MAX_WIDTH_PX / W, MAX_HEIGHT_PX / H);
  const scale = fit >= 1 ? Math.floor(fit) : fit;

  const wrap = el("div", { class: "tensor-view" });
  const canvas = el("canvas", { class: "tensor-canvas", width: W, height: H });
  canvas.style.width = `${W * scale}px`;
  canvas.style.height = `${Math.max(H * scale, p.kind === "line" ? 16 : 0)}px`;
  const ctx = canvas.getContext("2d");
  const image = ctx.createImageData(W, H);
  const position = slices.map(() => 0);
  const readout = el("div", { class: "tensor-readout", text: "hover a cell for its index and value" });
  const plot = p.kind === "line" ? el("canvas", { class: "tensor-plot" }) : null;

  function sliceOffset() {
    let s = 0;
    for (let a = 0; a < slices.length; a++) s = s * slices[a] + position[a];
    return s * cells * channels;
  }

  function draw() {
    const base = sliceOffset();
    const px = image.data;
    for (let c = 0; c < cells; c++) {
      let rgb;
      let alpha = 255;
      if (channels === 1) {
        rgb = colorOf(p, values[base + c], lo, hi);
      } else {
        const v = values.subarray(base + c * channels, base + (c + 1) * channels);
        rgb = Array.from(v.subarray(0, 3), (x) => (Number.isFinite(x) ? x : NaN));
        if (rgb.some(Number.isNaN)) rgb = p.nan_rgb;
        if (channels === 4 && Number.isFinite(v[3])) alpha = v[3];
      }
      px[4 * c] = rgb[0];
      px[4 * c + 1] = rgb[1];
      px[4 * c + 2] = rgb[2];
      px[4 * c + 3] = alpha;
    }
    ctx.putImageData(image, 0, 0);
    if (plot) drawLine(plot, p, values.subarray(base, base + cells), lo, hi, W * scale);
  }

  canvas.addEventListener("mousemove", (e) => {
    const r = canvas.getBoundingClientRect();
    const j = Math.min(W - 1, Math.floor(((e.clientX - r.left) / r.width) * W));
    const i = Math.min(H - 1, Math.floor(((e.clientY - r.top) / r.height) * H));
    readout.textContent = describeCell(p, position, i, j, values, sliceOffset(), channels);
  });
  canvas.addEventListener("mouseleave", () => {
    readout.textContent = "hover a cell for its index and value";
  });

  if (slices.length) {
    const sliders = el("div", { class: "tensor-sliders" });
    slices.forEach((n, axis) => {
      const input = el("input", { type: "range", min: 0, max: n - 1, value: 0, step: 1 });
      const label = el("span", { text: `${axisLabel(p, axis)} = 0` });
      input.addEventListener("input", () => {
        position[axis] = Number(input.value);
        label.textContent = `${axisLabel(p, axis)} = ${input.value}`;
        draw();
      });
      sliders.append(el("label", { class: "slider" }, label, input));
    });
    wrap.append(sliders);
  }
  if (plot) wrap.append(plot);
  wrap.append(canvas);
  if (p.kind !== "image") wrap.append(legend(p, values, lo, hi));
  wrap.append(readout);
  draw();
  return wrap;
}

function describeCell(p, position, i, j, values, base, channels) {
  const [sy, sx] = p.step ?? [1, 1];
  const lead = position.map((x, a) => `${axisLabel(p, a)}=${x}`);
  const range = (k, s) => (s > 1 ? `${k * s}:${(k + 1) * s}` : `${k}`);
  const idx = [];
  const nd = p.shape.length;
  if (nd >= 2) {
    idx.push(`${p.names?.[nd - 2] ?? "row"}=${range(i, sy)}`);
  }
  idx.push(`${p.names?.[nd - 1] ?? (nd >= 2 ? "col" : "index")}=${range(j, sx)}`);
  const c = i * p.grid[1] + j;
  let value;
  if (channels === 1) {
    value = formatValue(values[base + c]);
  } else {
    const v = Array.from(values.subarray(base + c * channels, base + (c + 1) * channels));
    value = `(${v.map(formatValue).join(", ")})`;
  }
  const mean = sy > 1 || sx > 1 ? "mean " : "";
  return `[${[...lead, ...idx].join(", ")}]  ${mean}${value}`;
}

function legend(p, values, lo, hi) {
  const box = el("div", { class: "tensor-legend" });
  const bar = el("canvas", { class: "legend-bar", width: 256, height: 1 });
  const ctx = bar.getContext("2d");
  const img = ctx.createImageData(256, 1);
  for (let k = 0; k < 256; k++) {
    img.data.set([p.lut[3 * k], p.lut[3 * k + 1], p.lut[3 * k + 2], 255], 4 * k);
  }
  ctx.putImageData(img, 0, 0);
  if (p.vmin == null) {
    box.append(el("span", { class: "legend-none", text: "no finite values" }));
  } else {
    box.append(el("span", { class: "legend-lo", text: formatValue(lo) }), bar,
      el("span", { class: "legend-hi", text: formatValue(hi) }));
  }
  const present = { nan: false, posinf: false, neginf: false };
  for (const v of values) {
    if (Number.isNaN(v)) present.nan = true;
    else if (v === Infinity) present.posinf = true;
    else if (v === -Infinity) present.neginf = true;
  }
  for (const [key, label] of [["nan", "NaN"], ["posinf", "+inf"], ["neginf", "-inf"]]) {
    if (!present[key]) continue;
    const sw = el("span", { class: `swatch swatch-${key}` });
    const [r, g, b] = p[`${key}_rgb`];
    sw.style.background = `rgb(${r},${g},${b})`;
    box.append(el("span", { class: "legend-special" }, sw, label));
  }
  return box;
}

/** The line plot of a 1-D slice, `width` px wide so each point sits above its strip cell. */
function drawLine(canvas, p, v, lo, hi, width) {
  const height = 140;
  const dpr = globalThis.devicePixelRatio || 1;
  canvas.width = width * dpr;
  canvas.height = height * dpr;
  canvas.style.width = `${width}px`;
  canvas.style.height = `${height}px`;
  const ctx = canvas.getContext("2d");
  ctx.scale(dpr, dpr);
  const pad = 6;
  const [ylo, yhi] = p.vmin == null ? [0, 1] : [p.vmin, p.vmax === p.vmin ? p.vmin + 1 : p.vmax];
  const x = (k) => ((k + 0.5) / v.length) * width;
  const y = (val) => height - pad - ((val - ylo) / (yhi - ylo)) * (height - 2 * pad);
  ctx.strokeStyle = "#8884";
  ctx.strokeRect(0.5, 0.5, width - 1, height - 1);
  if (ylo < 0 && yhi > 0) {
    ctx.beginPath();
    ctx.moveTo(0, y(0));
    ctx.lineTo(width, y(0));
    ctx.stroke();
  }
  const [r, g, b] = p.lut.length >= 3 * 200 ? [p.lut[600], p.lut[601], p.lut[602]] : [40, 120, 200];
  ctx.strokeStyle = `rgb(${r},${g},${b})`;
  ctx.lineWidth = 1.5;
  ctx.beginPath();
  let pen = false;
  for (let k = 0; k < v.length; k++) {
    if (!Number.isFinite(v[k])) {
      // Non-finite points break the line and get a marker in their colour at the edge.
      pen = false;
      const rgb = colorOf(p, v[k], lo, hi);
      const edge = v[k] === -Infinity ? height - pad : v[k] === Infinity ? pad : height / 2;
      ctx.save();
      ctx.fillStyle = `rgb(${rgb[0]},${rgb[1]},${rgb[2]})`;
      ctx.fillRect(x(k) - 2, edge - 2, 4, 4);
      ctx.restore();
      continue;
    }
    if (pen) ctx.lineTo(x(k), y(v[k]));
    else ctx.moveTo(x(k), y(v[k]));
    pen = true;
  }
  ctx.stroke();
  if (v.length <= 64) {
    // Few points: mark each one, so a point between non-finite neighbours is visible too.
    ctx.fillStyle = ctx.strokeStyle;
    for (let k = 0; k < v.length; k++) {
      if (Number.isFinite(v[k])) ctx.fillRect(x(k) - 1.5, y(v[k]) - 1.5, 3, 3);
    }
  }
}
