// The type promotion explorer: the full result table of one promotion mode (from
// webtensor._explorer, computed in the worker), cells coloured by result kind, errors marked,
// a click explains a cell, and a second mode can be compared (differing cells highlighted).
import { el } from "./dom.js";

const DTYPE_NAMES = {
  b: "bool", i8: "int8", i16: "int16", i32: "int32", i64: "int64", u8: "uint8", u16: "uint16",
  u32: "uint32", u64: "uint64", f16: "float16", bf16: "bfloat16", f32: "float32", f64: "float64",
  c64: "complex64", c128: "complex128",
};

/** "i32*" -> "int32 (weak: a Python scalar)"; the nx mode's "-200*" -> "the Python int -200
 * (typed by its value)"; unknown labels are returned as they are. */
export function describeLabel(label) {
  const number = /^(-?[0-9.]+)\*$/.exec(label);
  if (number) {
    const what = number[1].includes(".") ? "float" : "int";
    return `the Python ${what} ${number[1]} (typed by its value)`;
  }
  const weak = label.endsWith("*");
  const name = DTYPE_NAMES[weak ? label.slice(0, -1) : label] ?? label;
  return weak ? `${name} (weak: a Python scalar)` : name;
}

const KIND_NAMES = { b: "bool", i: "signed int", u: "unsigned int", f: "float", c: "complex" };

/**
 * Mounts the explorer into `root`. `call(op, args)` asks the worker (returns a Promise of the
 * _explorer function's result).
 */
export function mountExplorer(root, call) {
  const modeSelect = el("select", { id: "explorer-mode", "aria-label": "promotion mode" });
  const compareSelect = el("select", { id: "explorer-compare", "aria-label": "compare with" });
  const status = el("span", { class: "explorer-status" });
  const tableBox = el("div", { class: "explorer-table-box" });
  const explain = el("div", { class: "explorer-explain", text: "Click a cell to see why." });
  const legend = el("div", { class: "explorer-legend" });
  for (const [k, name] of Object.entries(KIND_NAMES)) {
    legend.append(el("span", { class: `kind-${k} legend-chip`, text: name }));
  }
  legend.append(el("span", { class: "kind-error legend-chip", text: "error" }));
  legend.append(el("span", { class: "differs legend-chip", text: "differs" }));
  root.append(
    el("div", { class: "explorer-controls" },
      el("label", {}, "mode ", modeSelect),
      el("label", {}, "compare with ", compareSelect),
      status),
    legend, tableBox, explain);

  let current = null; // {mode, table, other: table|null, diff: Set}

  async function refresh() {
    const mode = modeSelect.value;
    const other = compareSelect.value || null;
    status.textContent = "computing…";
    try {
      const [table, otherTable, diff] = await Promise.all([
        call("table", [mode]),
        other ? call("table", [other]) : null,
        other ? call("diff", [mode, other]) : [],
      ]);
      current = { mode, table, other: otherTable, diff: new Set(diff.map(([i, j]) => `${i},${j}`)) };
      drawTable();
      status.textContent = other
        ? `${diff.length} of ${table.labels.length ** 2} cells differ between ${mode} and ${other}`
        : `${table.labels.length}×${table.labels.length} pairs`;
    } catch (e) {
      status.textContent = `error: ${e.message ?? e}`;
    }
  }

  function drawTable() {
    const { table, other, diff } = current;
    const labels = table.labels;
    const head = el("tr", {}, el("th", { class: "corner", text: "a \\ b" }));
    for (const b of labels) head.append(el("th", { scope: "col", text: b, title: describeLabel(b) }));
    const body = el("tbody");
    labels.forEach((a, i) => {
      const row = el("tr", {}, el("th", { scope: "row", text: a, title: describeLabel(a) }));
      labels.forEach((b, j) => {
        const result = table.cells[i][j];
        const kind = table.kinds[i][j];
        const isError = result === "error" || kind === "error";
        const td = el("td", {
          class: `cell kind-${isError ? "error" : kind}`,
          "data-row": a, "data-col": b, "data-i": i, "data-j": j,
          text: isError ? "✕" : result,
        });
        let title = `${describeLabel(a)} + ${describeLabel(b)} → ${isError ? "error" : describeLabel(result)}`;
        if (diff.has(`${i},${j}`)) {
          td.classList.add("differs");
          title += `; in ${compareSelect.value}: ${other.cells[i][j]}`;
        }
        td.title = title;
        row.append(td);
      });
      body.append(row);
    });
    const t = el("table", { class: "explorer-table" }, el("thead", {}, head), body);
    t.addEventListener("click", (e) => {
      const td = e.target.closest("td.cell");
      if (td) explainCell(td);
    });
    tableBox.replaceChildren(t);
  }

  async function explainCell(td) {
    tableBox.querySelectorAll("td.selected").forEach((x) => x.classList.remove("selected"));
    td.classList.add("selected");
    const { row: a, col: b } = td.dataset;
    const modes = [modeSelect.value, compareSelect.value].filter(Boolean);
    explain.replaceChildren(el("p", { text: "explaining…" }));
    try {
      const answers = await Promise.all(modes.map((m) => call("explain", [a, b, m])));
      explain.replaceChildren(...answers.map((x, k) => explanation(a, b, modes[k], x)));
    } catch (e) {
      explain.replaceChildren(el("p", { class: "error", text: String(e.message ?? e) }));
    }
  }

  function explanation(a, b, mode, x) {
    // The heading stays one short line; the error's full text follows unless a step says it.
    const outcome = x.error
      ? el("span", { class: "kind-error outcome", text: "error", title: x.error })
      : el("code", { text: x.result });
    const message = x.error && !x.steps.some((s) => s.includes(x.error))
      ? el("p", { class: "explain-error", text: x.error })
      : null;
    return el("section", { class: "explain-mode" },
      el("h4", {}, `${mode}: `, el("code", { text: `${a} + ${b}` }), " → ", outcome),
      message,
      el("ol", {}, ...x.steps.map((s) => el("li", { text: s }))));
  }

  modeSelect.addEventListener("change", refresh);
  compareSelect.addEventListener("change", refresh);

  return {
    async load() {
      const modes = await call("modes", []);
      modeSelect.replaceChildren(...modes.map((m) => el("option", { value: m, text: m })));
      compareSelect.replaceChildren(el("option", { value: "", text: "(none)" }),
        ...modes.map((m) => el("option", { value: m, text: m })));
      await refresh();
    },
    async setMode(mode, compare = "") {
      modeSelect.value = mode;
      compareSelect.value = compare;
      await refresh();
    },
  };
}
