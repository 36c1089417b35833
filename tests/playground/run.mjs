#!/usr/bin/env node
// Browser tests of the playground: serve the built site on loopback and drive headless Chromium.
//
//   node tests/playground/run.mjs [--site build/site] [--artifacts build/artifacts/playground]
//                                 [--only NAME-SUBSTRING]
//
// Needs the site from `python build_wasm.py` and /usr/bin/chromium (Debian "chromium").
// Each test prints ok/FAIL with its time; screenshots go to --artifacts; exit code 1 on failure.
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import path from "node:path";
import {
  checkSite,
  launchChromium,
  openPlayground,
  repoRoot,
  serveStatic,
  waitReady,
} from "./harness.mjs";

const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : fallback;
};
const site = path.resolve(option("--site", path.join(repoRoot, "build", "site")));
const artifacts = path.resolve(option("--artifacts", path.join(repoRoot, "build", "artifacts", "playground")));
const only = option("--only", "");
mkdirSync(artifacts, { recursive: true });

// ---- helpers ------------------------------------------------------------------------------------

/** Replaces the editor's code, runs it (button or Ctrl+Enter) and returns the worker's report. */
async function runCode(page, code, { keyboard = false, timeout = 120_000 } = {}) {
  if (code != null) await page.evaluate((c) => window.playground.editor.setCode(c), code);
  await page.evaluate(() => (window.playground.lastRun = null));
  if (keyboard) {
    await page.click("#editor .cm-content");
    await page.keyboard.press("Control+Enter");
  } else {
    await page.click("#run");
  }
  await page.waitForFunction(() => window.playground.lastRun != null, null, { timeout });
  return page.evaluate(() => window.playground.lastRun);
}

/** The oracle for one colour: the contract's formula, written independently of heatmap.js. */
function expectedRgb(p, v) {
  if (Number.isNaN(v)) return p.nan_rgb;
  if (v === Infinity) return p.posinf_rgb;
  if (v === -Infinity) return p.neginf_rgb;
  let lo = p.vmin;
  let hi = p.vmax;
  if (p.diverging) {
    hi = Math.max(Math.abs(p.vmin), Math.abs(p.vmax));
    lo = -hi;
  }
  const u = hi === lo ? 0.5 : (v - lo) / (hi - lo);
  const k = Math.min(255, Math.max(0, Math.floor(u * 255 + 0.5)));
  return p.lut.slice(3 * k, 3 * k + 3);
}

/**
 * Reads figure `index` of the output: its payload (values decoded) and the pixels of its canvas,
 * and checks every cell's pixel against the oracle (leading slice 0 for 3-D+).
 */
async function checkFigurePixels(page, index = 0) {
  const fig = await page.evaluate((i) => {
    const f = document.querySelectorAll("#output figure.tensor")[i];
    if (!f) return null;
    const p = f.payload;
    const c = f.querySelector("canvas.tensor-canvas");
    const bytes = p.values;
    const values = Array.from(new Float32Array(bytes.slice().buffer));
    const pixels = c ? Array.from(c.getContext("2d").getImageData(0, 0, c.width, c.height).data) : [];
    return { ...p, values, lut: Array.from(p.lut), pixels, canvas: c ? [c.height, c.width] : null };
  }, index);
  assert.ok(fig, `no tensor figure #${index} in the output`);
  assert.deepEqual(fig.canvas, fig.grid, "the canvas has one pixel per cell");
  const [H, W] = fig.grid;
  const colours = new Set();
  for (let c = 0; c < H * W; c++) {
    const want = expectedRgb(fig, fig.values[c]);
    const got = fig.pixels.slice(4 * c, 4 * c + 3);
    assert.deepEqual(got, want, `cell ${Math.floor(c / W)},${c % W} (value ${fig.values[c]})`);
    colours.add(got.join(","));
  }
  return { fig, colours: colours.size };
}

/** Between tests on a shared page: the output tab, empty output, no error mark. */
async function resetPage(page) {
  await page.click("#tab-output");
  await page.evaluate(() => {
    document.querySelector("#output").replaceChildren();
    window.playground.editor.markError(null);
  });
}

const outputText = (page) => page.textContent("#output");
const shot = (page, name) => page.screenshot({ path: path.join(artifacts, `${name}.png`) });

async function hasBrowserAdapter(page) {
  return page.evaluate(async () => Boolean(await navigator.gpu?.requestAdapter()));
}

// ---- tests --------------------------------------------------------------------------------------
const tests = [];
const test = (name, browserKind, fn) => tests.push({ name, browserKind, fn });

test("default example runs and paints a heatmap", "webgpu", async ({ page }) => {
  const badge = await page.textContent("#device-badge");
  if (await hasBrowserAdapter(page)) {
    assert.match(badge, /^WebGPU: \S/, "the badge names the WebGPU adapter");
  }
  const opened = await page.evaluate(() => window.playground.editor.getCode() === window.playground.examples[0].code);
  assert.ok(opened, "the page opens on the default example");
  const gpu = badge.startsWith("WebGPU");
  if (gpu) {
    // Python ready, the example ran once silently: its pipelines are compiled before Run.
    const warm = await page.evaluate(() => window.playground.warmup);
    assert.ok(warm?.pipelines > 0, `the default example was warmed up: ${JSON.stringify(warm)}`);
    assert.equal(await outputText(page), "", "the warm-up prints nothing");
  }
  const report = await runCode(page, null, { keyboard: true });
  assert.equal(report.ok, true, JSON.stringify(report.error));
  if (gpu) assert.equal(report.pipelines, 0, "the first Run finds every pipeline compiled");
  const { fig, colours } = await checkFigurePixels(page, 0);
  assert.equal(fig.kind, "heatmap");
  assert.ok(colours >= 8, `a Mandelbrot heatmap has many colours, got ${colours}`);
  assert.equal(fig.device, badge.startsWith("WebGPU") ? "webgpu" : "cpu");
  assert.match(await outputText(page), /points stayed bounded/);
  // Hovering a cell reads out its index and the payload's value.
  const box = await page.locator("#output canvas.tensor-canvas").first().boundingBox();
  await page.mouse.move(box.x + box.width * 0.5 + 1, box.y + box.height * 0.5 + 1);
  const readout = await page.textContent("#output .tensor-readout");
  const [H, W] = fig.grid;
  const i = Math.floor(H / 2);
  const j = Math.floor(W / 2);
  assert.match(readout, new RegExp(`row=${i}, col=${j}\\]\\s+${fig.values[i * W + j]}$`));
  const info = await page.textContent("#output .tensor-info");
  assert.match(info, new RegExp(`shape \\(${fig.shape.join(", ")}\\)`));
  assert.match(info, /float32/);
  await shot(page, "default-example");
});

test("every gallery example runs", "webgpu", async ({ page }) => {
  const names = await page.evaluate(() => window.playground.examples.map((e) => e.name));
  assert.ok(names.length >= 7, `the gallery has ${names.length} examples`);
  const times = [];
  for (const name of names.filter((n) => n !== "spiral")) {  // spiral: its own test below
    await page.selectOption("#examples", name);
    const report = await runCode(page, null);
    assert.equal(report.ok, true, `${name}: ${JSON.stringify(report.error)}`);
    assert.equal(await page.locator("#output .out-error").count(), 0, `${name}: an error block`);
    times.push(`${name} ${report.seconds.toFixed(2)}s`);
    await shot(page, `example-${name}`);
  }
  console.log(`    ${times.join(", ")}`);
});

test("learn a spiral: a jitted training step reaches 95% and redraws its figures", "webgpu", async ({ page }) => {
  await page.selectOption("#examples", "spiral");
  const report = await runCode(page, null, { timeout: 180_000 });
  assert.equal(report.ok, true, JSON.stringify(report.error));
  const text = await outputText(page);
  const accuracy = Number(/training accuracy: ([\d.]+)%/.exec(text)?.[1]);
  assert.ok(accuracy >= 95, `training accuracy ${accuracy}% (want >= 95%)`);
  const figures = await page.evaluate(() => [...document.querySelectorAll("#output figure.tensor")]
    .map((f) => ({ name: f.dataset.figure, updates: Number(f.dataset.updates), kind: f.payload.kind,
                   shape: f.payload.shape })));
  // one loss curve and one picture, each drawn again in place as training went on
  assert.deepEqual(figures.map((f) => f.name), ["loss", "regions"]);
  assert.ok(figures.every((f) => f.updates >= 10), JSON.stringify(figures));
  assert.equal(figures[0].kind, "line");
  assert.deepEqual(figures[0].shape, [11]);
  assert.equal(figures[1].kind, "image");
  console.log(`    spiral: ${accuracy}% training accuracy in ${report.seconds.toFixed(1)} s`);
  await shot(page, "example-spiral");
});

test("large tensors keep their proportions on screen", "webgpu", async ({ page }) => {
  const shapes = [[2000, 2000], [3000, 300], [300, 3000], [100, 10000], [500, 500]];
  const code = "import webtensor as wt\n" + shapes.map(([h, w]) =>
    `wt.show(wt.reshape(wt.arange(${h * w}, dtype=wt.float32), (${h}, ${w})))`).join("\n");
  const report = await runCode(page, code);
  assert.equal(report.ok, true, JSON.stringify(report.error));
  const boxes = await page.evaluate(() => [...document.querySelectorAll("#output canvas.tensor-canvas")]
    .map((c) => ({ w: parseFloat(c.style.width), h: parseFloat(c.style.height),
                   grid: c.closest("figure").payload.grid })));
  assert.equal(boxes.length, shapes.length);
  for (const [k, [h, w]] of shapes.entries()) {
    const { w: pw, h: ph, grid } = boxes[k];
    const drawn = pw / ph;
    assert.ok(Math.abs(drawn / (w / h) - 1) <= 0.1,
              `${h}x${w}: drawn ${pw}x${ph} px (grid ${grid}), aspect off by more than 10%`);
    assert.ok(pw <= 520.5 && ph <= 360.5, `${h}x${w}: ${pw}x${ph} px exceeds the figure size`);
  }
  await shot(page, "large-tensors");
});

test("3-D tensors get sliders; images are pictures", "webgpu", async ({ page }) => {
  await page.selectOption("#examples", "heat_diffusion");
  await runCode(page, null);
  const fig = page.locator("#output figure.tensor").first();
  assert.equal(await fig.locator("input[type=range]").count(), 1);
  const { fig: payload } = await checkFigurePixels(page, 0);
  assert.deepEqual(payload.slices, [4]);
  const pixels = () => page.evaluate(() => {
    const c = document.querySelector("#output canvas.tensor-canvas");
    return Array.from(c.getContext("2d").getImageData(0, 0, c.width, c.height).data).join();
  });
  const before = await pixels();
  await fig.locator("input[type=range]").fill("3");
  assert.notEqual(await pixels(), before, "moving the slider redraws another slice");
  assert.match(await fig.locator(".slider").textContent(), /= 3/);

  // (h, w, 3) float data in [0, 1] is a picture: pixels are the channels * 255.
  const report = await runCode(page, [
    "import webtensor as wt",
    "r = wt.reshape(wt.linspace(0.0, 1.0, 12), (3, 4))",
    "wt.stack([r, 1 - r, r * 0 + 0.5], axis=-1)",
  ].join("\n"));
  assert.equal(report.ok, true, JSON.stringify(report.error));
  const image = await page.evaluate(() => {
    const f = document.querySelector("#output figure.tensor");
    const c = f.querySelector("canvas.tensor-canvas");
    return {
      kind: f.payload.kind,
      values: Array.from(new Float32Array(f.payload.values.slice().buffer)),
      pixels: Array.from(c.getContext("2d").getImageData(0, 0, c.width, c.height).data),
    };
  });
  assert.equal(image.kind, "image");
  for (let c = 0; c < 12; c++) {
    const want = image.values.slice(3 * c, 3 * c + 3).map((v) => Math.round(v));
    const got = image.pixels.slice(4 * c, 4 * c + 3);
    got.forEach((g, k) => assert.ok(Math.abs(g - want[k]) <= 1, `pixel ${c}: ${got} vs ${want}`));
  }
  await shot(page, "slices-and-image");
});

test("NaN and infinities get the payload's marker colours", "webgpu", async ({ page }) => {
  const report = await runCode(page, [
    "import webtensor as wt",
    "x = wt.asarray([[1.0, -2.0, float('nan')], [float('inf'), -float('inf'), 0.5]])",
    "wt.show(x, title='specials')",
    "wt.show(wt.asarray([3.0, float('nan'), -1.0, 2.0]), title='line')",
  ].join("\n"));
  assert.equal(report.ok, true, JSON.stringify(report.error));
  const { fig } = await checkFigurePixels(page, 0);
  assert.equal(fig.title, "specials");
  const markers = [fig.nan_rgb, fig.posinf_rgb, fig.neginf_rgb].map(String);
  assert.equal(new Set(markers).size, 3, "NaN, +inf and -inf are distinct");
  const legend = await page.textContent("#output figure.tensor .tensor-legend");
  for (const label of ["NaN", "+inf", "-inf"]) assert.ok(legend.includes(label), label);
  const line = await checkFigurePixels(page, 1);
  assert.equal(line.fig.kind, "line");
  assert.equal(await page.locator("#output figure.kind-line canvas.tensor-plot").count(), 1);
  await shot(page, "specials");
});

test("promotion explorer: int8 x uint32 is int64 in all, an error in safe", "webgpu", async ({ page }) => {
  await page.click("#tab-explorer");
  const cell = page.locator('#explorer td[data-row="i8"][data-col="u32"]');
  await cell.waitFor({ timeout: 60_000 });
  await page.evaluate(() => window.playground.explorer.setMode("all"));
  assert.match(await cell.textContent(), /^(i64|int64)$/);
  assert.match(await cell.getAttribute("title"), /int64/);
  await cell.click();
  await page.waitForFunction(() => document.querySelectorAll("#explorer .explain-mode li").length > 0);
  assert.match(await page.textContent("#explorer .explorer-explain"), /int64/);

  await page.evaluate(() => window.playground.explorer.setMode("safe"));
  assert.match(await cell.getAttribute("class"), /kind-error/);
  await cell.click();
  await page.waitForFunction(() => /error/.test(document.querySelector("#explorer .explain-mode h4")?.textContent));
  // The heading says "error"; the full reason is its tooltip and is shown once in the body.
  const reason = await page.locator("#explorer .explain-mode h4 .outcome").getAttribute("title");
  assert.match(reason, /int8.*uint32|i8.*u32/);
  const body = await page.locator("#explorer .explain-mode").first().evaluate((s) =>
    [...s.children].filter((c) => c.tagName !== "H4").map((c) => c.textContent).join("\n"));
  assert.equal(body.split(reason).length - 1, 1, "the reason appears once below the heading");

  await page.evaluate(() => window.playground.explorer.setMode("safe", "all"));
  assert.match(await cell.getAttribute("class"), /differs/);
  const differing = await page.locator("#explorer td.differs").count();
  assert.ok(differing > 0);
  assert.match(await page.textContent("#explorer .explorer-status"), new RegExp(`^${differing} of`));
  // Same-dtype pairs never differ between modes.
  assert.doesNotMatch(await page.locator('#explorer td[data-row="i8"][data-col="i8"]').getAttribute("class"), /differs/);
  await shot(page, "explorer");
});

test("the promotion table fits its pane at 1280 px (no column cut off)", "webgpu", async ({ browser, siteUrl }) => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    const narrow = await openPlayground(context, siteUrl);
    await narrow.click("#tab-explorer");
    await narrow.locator('#explorer td[data-row="i8"][data-col="u32"]').waitFor({ timeout: 60_000 });
    for (const mode of ["all", "standard", "safe"]) {
      await narrow.evaluate((m) => window.playground.explorer.setMode(m), mode);
      const fit = await narrow.evaluate(() => {
        const box = document.querySelector("#explorer .explorer-table-box").getBoundingClientRect();
        const heads = [...document.querySelectorAll("#explorer thead th")];
        const last = heads[heads.length - 1].getBoundingClientRect();
        return { columns: heads.length, right: last.right, box: box.right };
      });
      assert.ok(fit.columns >= 19, `${mode}: a header row of every dtype plus the corner`);
      assert.ok(fit.right <= fit.box + 0.5, `${mode}: last column ends at ${fit.right} px, the pane at ${fit.box}`);
    }
    await narrow.screenshot({ path: path.join(artifacts, "explorer-1280.png") });
  } finally {
    await context.close();
  }
});

test("a webtensor warning names the user's line", "webgpu", async ({ page }) => {
  const code = "import webtensor as wt\nx = wt.ones(3, dtype=wt.float64)\ny = x + 1\nprint(y.tolist())";
  const report = await runCode(page, code);
  assert.equal(report.ok, true, JSON.stringify(report.error));
  const text = await outputText(page);
  assert.match(text, /<playground>:3: RuntimeWarning: webgpu: float64 work runs on the CPU/);
  assert.doesNotMatch(text, /webtensor\/(api|backends)\//, "no library path in the warning");
});

test("a syntax error shows a traceback and highlights its line", "webgpu", async ({ page }) => {
  const report = await runCode(page, "import webtensor as wt\nx = wt.ones(3)\ny = (x +\nprint(y)\n");
  assert.equal(report.ok, false);
  assert.equal(report.error.type, "SyntaxError");
  const tb = await page.textContent("#output .traceback");
  assert.match(tb, /SyntaxError/);
  const marked = page.locator("#editor .cm-error-line");
  assert.equal(await marked.count(), 1);
  assert.equal(await marked.textContent(), ["import webtensor as wt", "x = wt.ones(3)", "y = (x +", "print(y)"][report.error.line - 1]);
  assert.ok([3, 4].includes(report.error.line), `line ${report.error.line}`);
  await shot(page, "syntax-error");
});

test("an exception shows a traceback and highlights the innermost user line", "webgpu", async ({ page }) => {
  const code = [
    "import webtensor as wt",
    "",
    "def grow(t):",
    "    return t + wt.ones(4)",
    "",
    "print('before')",
    "grow(wt.ones(3))",
    "print('not reached')",
  ].join("\n");
  const report = await runCode(page, code);
  assert.equal(report.ok, false);
  assert.equal(report.error.type, "ValueError");
  assert.equal(report.error.line, 4);
  assert.equal(await page.locator("#editor .cm-error-line").textContent(), "    return t + wt.ones(4)");
  const tb = await page.textContent("#output .traceback");
  assert.match(tb, /File "<playground>", line 7/);
  assert.match(tb, /File "<playground>", line 4, in grow/);
  assert.match(tb, /ValueError: wt\.add/);
  assert.doesNotMatch(tb, /_playground\.py/, "the runner's own frames are hidden");
  assert.match(tb, /\[\d+ frames? inside webtensor\]/, "webtensor's frames fold into one line");
  assert.doesNotMatch(tb, /site-packages/);
  const text = await outputText(page);
  assert.match(text, /before/);
  assert.doesNotMatch(text, /not reached/);
  // Editing the code clears the highlight.
  await page.evaluate(() => window.playground.editor.setCode("print(1)"));
  assert.equal(await page.locator("#editor .cm-error-line").count(), 0);
  await shot(page, "exception");
});

test("Stop ends `while True: pass` and the next run works", "webgpu", async ({ page }) => {
  await page.evaluate(() => window.playground.editor.setCode("print('spinning')\nwhile True:\n    pass\n"));
  await page.click("#run");
  await page.waitForFunction(() => /spinning/.test(document.querySelector("#output").textContent));
  assert.equal(await page.evaluate(() => document.body.dataset.state), "running");
  // The page stays responsive while Python spins.
  assert.equal(await page.evaluate(() => 6 * 7), 42);
  await page.click("#stop");
  assert.match(await outputText(page), /Stopped/);
  assert.equal(await page.textContent("#run-status"), "stopped");
  assert.equal(await page.isDisabled("#stop"), true, "nothing left to stop");
  // Run while the fresh Python loads: the run waits for it, and a second click adds nothing.
  assert.equal(await page.evaluate(() => document.body.dataset.state), "loading");
  await page.evaluate(() => {
    window.playground.editor.setCode("print(6 * 7)");
    window.playground.lastRun = null;
  });
  await page.click("#run");
  await page.click("#run");
  assert.equal(await page.evaluate(() => document.body.dataset.state), "running");
  assert.match(await page.textContent("#run-status"), /waiting for Python to load/);
  await page.waitForFunction(() => window.playground.lastRun != null, null, { timeout: 120_000 });
  assert.equal((await page.evaluate(() => window.playground.lastRun)).ok, true);
  assert.equal(await outputText(page), "42\n");
  assert.equal(await page.evaluate(() => document.body.dataset.state), "ready");
  assert.equal(await page.isDisabled("#stop"), true);
  await shot(page, "after-stop");
});

test("editor: CodeMirror's Python indentation, Tab, undo/redo, search, brackets", "webgpu", async ({ page }) => {
  const code = () => page.evaluate(() => window.playground.editor.getCode());
  const previous = await code();
  await page.evaluate(() => window.playground.editor.setCode(""));
  await page.click("#editor .cm-content");
  await page.keyboard.type("for i in range(3):");
  await page.keyboard.press("Enter");
  await page.keyboard.type("print(i)");
  assert.equal(await code(), "for i in range(3):\n    print(i)", "Enter after ':' indents 4 spaces");
  await page.keyboard.press("Enter");
  await page.keyboard.press("Shift+Tab");
  await page.keyboard.type("x = 1");
  const typed = "for i in range(3):\n    print(i)\nx = 1";
  assert.equal(await code(), typed, "Shift+Tab dedents the new line");
  await page.keyboard.press("Tab");
  assert.equal(await code(), "for i in range(3):\n    print(i)\n    x = 1", "Tab indents the line");
  await page.keyboard.press("Shift+Tab");
  assert.equal(await code(), typed);
  await page.keyboard.press("Control+a");
  await page.keyboard.press("Tab");
  assert.equal(await code(), typed.replace(/^/gm, "    "), "Tab indents every selected line");
  await page.keyboard.press("Control+z");
  assert.equal(await code(), typed, "one undo takes back one indentation");

  // Undo walks back to the empty editor (the grouping of keystrokes is CodeMirror's), redo
  // forward again; Ctrl+Shift+Z and Ctrl+Y both redo.
  let undos = 0;
  while ((await code()) !== "" && undos < 30) {
    await page.keyboard.press("Control+z");
    undos++;
  }
  assert.equal(await code(), "", `${undos} undos reach the empty editor`);
  // setCode (examples, links) is an undo step of its own: one more undo restores the old code.
  await page.keyboard.press("Control+z");
  assert.equal(await code(), previous);
  await page.keyboard.press("Control+Shift+Z"); // a real Shift+Z sends key "Z"
  assert.equal(await code(), "", "Ctrl+Shift+Z redoes");
  for (let i = 0; i < 30 && (await code()) !== typed; i++) await page.keyboard.press("Control+y");
  assert.equal(await code(), typed, "Ctrl+Y redoes up to the latest text");

  // Highlighting, line numbers, the active line, special characters and bracket matching.
  const styled = await page.evaluate(() =>
    new Set([...document.querySelectorAll("#editor .cm-line span")].map((s) => s.className)).size);
  assert.ok(styled >= 2, `highlight classes: ${styled}`);
  assert.equal(await page.locator("#editor .cm-gutterElement").filter({ hasText: /^3$/ }).count(), 1);
  assert.equal(await page.locator("#editor .cm-activeLine").count(), 1);
  await page.evaluate(() => window.playground.editor.view.dispatch({ selection: { anchor: 15 } }));
  assert.deepEqual(await page.locator("#editor .cm-matchingBracket").allTextContents(), ["(", ")"]);
  // Search: Ctrl+F opens CodeMirror's panel, Enter selects the next match, Escape closes it.
  await page.keyboard.press("Control+f");
  const field = page.locator("#editor .cm-search input[name=search]");
  await field.pressSequentially("print"); // the panel reads its query on keyup
  await field.press("Enter");
  const selected = await page.evaluate(() => {
    const { state } = window.playground.editor.view;
    return state.sliceDoc(state.selection.main.from, state.selection.main.to);
  });
  assert.equal(selected, "print");
  await shot(page, "editor-search");
  await field.press("Escape");
  assert.equal(await page.locator("#editor .cm-search").count(), 0);

  // Ctrl+Enter runs (CodeMirror's own Mod-Enter, "insert blank line", must not fire).
  const report = await runCode(page, null, { keyboard: true });
  assert.equal(report.ok, true);
  assert.equal(await outputText(page), "0\n1\n2\n");
  assert.equal(await code(), typed, "Ctrl+Enter leaves the code alone");
  await page.evaluate(() => window.playground.editor.setCode("bad\u200bname = 1"));
  assert.equal(await page.locator("#editor .cm-specialChar").count(), 1, "a zero-width space shows");
});

test("the Notebooks link opens the JupyterLite tour of this site", "webgpu", async ({ page, siteUrl }) => {
  const link = await page.$eval("#notebooks", (a) => ({ href: a.href, target: a.target }));
  const url = new URL(link.href);
  assert.equal(url.origin, siteUrl, "the notebooks are served by this site, not elsewhere");
  assert.equal(url.pathname, "/lite/notebooks/index.html");
  assert.equal(url.searchParams.get("path"), "webtensor-tour.ipynb");
  assert.equal(link.target, "_blank", "the playground stays open");
  assert.equal((await page.request.get(link.href)).status(), 200);
  const contents = await (await page.request.get(`${siteUrl}/lite/api/contents/all.json`)).json();
  assert.ok(contents.content.some((f) => f.name === "webtensor-tour.ipynb"),
    `the site's contents lack the tour: ${contents.content.map((f) => f.name)}`);
});

test("the URL hash reproduces the session", "webgpu", async ({ page, context, siteUrl }) => {
  const code = "import webtensor as wt\nprint('from a link: ü', wt.arange(3).tolist())\n";
  await page.evaluate((c) => window.playground.editor.setCode(c), code);
  // The link carries the code as base64url UTF-8 (written shortly after the last edit).
  const hash = `#code=${Buffer.from(code, "utf8").toString("base64url")}`;
  await page.waitForFunction((h) => location.hash === h, hash);
  const other = await openPlayground(context, siteUrl, { hash });
  try {
    assert.equal(await other.evaluate(() => window.playground.editor.getCode()), code);
    const report = await runCode(other, null);
    assert.equal(report.ok, true);
    assert.match(await outputText(other), /from a link: ü \[0, 1, 2\]/);
  } finally {
    await other.close();
  }
});

test("example links, damaged links, and the example menu follow the code", "webgpu", async ({ page, context, siteUrl }) => {
  const examples = await page.evaluate(() => window.playground.examples);
  const heat = examples.find((e) => e.name === "heat_diffusion");
  // Loading Python is not needed to open a link: these pages are only read.
  const opened = [];
  try {
    const byName = await openPlayground(context, siteUrl, { hash: "#example=heat_diffusion", wait: false });
    opened.push(byName);
    assert.equal(await byName.evaluate(() => window.playground.editor.getCode()), heat.code);
    assert.equal(await byName.inputValue("#examples"), "heat_diffusion");

    const cut = Buffer.from("print('ü')\n", "utf8").toString("base64url").slice(0, -3) + "~";
    for (const [hash, why] of [
      [`#code=${cut}`, /the code in this link is damaged/],
      ["#example=no_such_thing", /there is no example "no_such_thing" \(the gallery has mandelbrot, /],
    ]) {
      const other = await openPlayground(context, siteUrl, { hash, wait: false });
      opened.push(other);
      assert.equal(await other.evaluate(() => window.playground.editor.getCode()), examples[0].code);
      assert.equal(await other.inputValue("#examples"), examples[0].name);
      const note = await other.textContent("#output .out-stderr");
      assert.match(note, why);
      assert.match(note, new RegExp(`showing the ${examples[0].name} example`));
    }
  } finally {
    for (const p of opened) await p.close();
  }
  // Editing an example turns the hash into #code= and the menu into "(your code)"; choosing an
  // example puts it back.
  await page.selectOption("#examples", "matmul");
  assert.equal(await page.evaluate(() => location.hash), "#example=matmul");
  await page.click("#editor .cm-content");
  await page.keyboard.press("Control+End");
  await page.keyboard.type("\n# mine");
  await page.waitForFunction(() => location.hash.startsWith("#code="));
  assert.equal(await page.inputValue("#examples"), "");
  const matmul = examples.find((e) => e.name === "matmul").code;
  for (let i = 0; i < 10 && (await page.evaluate(() => window.playground.editor.getCode())) !== matmul; i++) {
    await page.keyboard.press("Control+z");
  }
  await page.waitForFunction(() => location.hash === "#example=matmul");
  assert.equal(await page.inputValue("#examples"), "matmul");
  // A hash set from outside (a pasted link) opens that code.
  await page.evaluate(() => { location.hash = "#example=random"; });
  await page.waitForFunction((code) => window.playground.editor.getCode() === code,
    examples.find((e) => e.name === "random").code);
  assert.equal(await page.inputValue("#examples"), "random");
});

test("without WebGPU the playground falls back to the CPU and says so", "cpu", async ({ page }) => {
  assert.equal(await hasBrowserAdapter(page), false, "this launch has no WebGPU adapter");
  assert.equal(await page.textContent("#device-badge"), "CPU (no WebGPU)");
  const report = await runCode(page, null);
  assert.equal(report.ok, true, JSON.stringify(report.error));
  const { fig, colours } = await checkFigurePixels(page, 0);
  assert.equal(fig.device, "cpu");
  assert.ok(colours >= 8);
  await shot(page, "cpu-fallback");
});

// ---- runner -------------------------------------------------------------------------------------
checkSite(site);
const server = await serveStatic(site);
const selected = tests.filter((t) => t.name.includes(only));
let failures = 0;
const t0 = performance.now();
console.log(`playground tests: ${selected.length} in Chromium, site ${site} at ${server.url}`);
// One page per browser serves the tests in turn (repeated runs in one session are part of what
// is tested); a failed test's page is replaced so the next test starts clean.
for (const kind of ["webgpu", "cpu"]) {
  const group = selected.filter((t) => t.browserKind === kind);
  if (!group.length) continue;
  const browser = await launchChromium({ webgpu: kind === "webgpu" });
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  let page = null;
  try {
    for (const t of group) {
      const start = performance.now();
      try {
        if (page === null) page = await openPlayground(context, server.url);
        else await resetPage(page);
        await t.fn({ page, context, browser, siteUrl: server.url });
        console.log(`ok    ${t.name} (${((performance.now() - start) / 1000).toFixed(1)} s)`);
      } catch (e) {
        failures++;
        console.log(`FAIL  ${t.name}\n      ${String(e.stack ?? e).split("\n").join("\n      ")}`);
        if (page) {
          await shot(page, `FAILED-${t.name.replace(/\W+/g, "-")}`).catch(() => {});
          console.log(`      page log:\n        ${page.logs.slice(-15).join("\n        ")}`);
          await page.close().catch(() => {});
          page = null;
        }
      }
    }
  } finally {
    await browser.close();
  }
}
await server.close();
const secs = ((performance.now() - t0) / 1000).toFixed(1);
console.log(`${selected.length - failures} passed, ${failures} failed in ${secs} s; screenshots in ${artifacts}`);
process.exit(failures ? 1 : 0);
