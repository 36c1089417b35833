// Load webtensor into Pyodide, in the main thread or in a module worker (never touches `window`).
//
//   import { loadWebtensor } from "./webtensor.mjs";
//   const pyodide = await loadWebtensor({ onProgress: (stage, detail) => console.log(stage, detail) });
//   await pyodide.runPythonAsync("import webtensor as wt; print(wt.ones(3) * 2)");
//
// A convenience, not a requirement: the wheel carries its WebGPU executor, so plain
// `loadPyodide()` + `loadPackage(<wheel URL>)` + `import webtensor` works too. This adds progress
// stages and opens the device while loading. Steps: import Pyodide from `indexURL` (default:
// ./pyodide/ next to this file, as build_wasm.py stages it), `loadPackage("webtensor")` (the
// site's pyodide-lock.json lists the wheel), `import webtensor` and `await wt.init_async()`
// (no adapter: webtensor computes on the cpu device). Enter Python with `runPythonAsync` so that
// reads such as `print(x)` can wait for the GPU (JSPI); from plain `runPython` use the async
// twins (`await x.tolist_async()`).

const STAGES = ["pyodide", "webtensor", "webgpu", "ready"];

/**
 * @param {object} [options]
 * @param {string|URL} [options.indexURL] where pyodide.mjs and pyodide-lock.json live
 * @param {(stage: string, detail: string) => void} [options.onProgress] called at each stage:
 *   "pyodide" (runtime loading), "webtensor" (package installing), "webgpu" (device opening),
 *   "ready"
 * @param {(line: string) => void} [options.stdout] Python's standard output, line by line
 * @param {(line: string) => void} [options.stderr] Python's standard error, line by line
 * @param {boolean} [options.webgpu=true] open the WebGPU device while loading
 * @returns {Promise<object>} the Pyodide instance, with `webtensor` imported
 */
export async function loadWebtensor({ indexURL, onProgress, stdout, stderr, webgpu = true } = {}) {
  const progress = (stage, detail) => {
    if (onProgress) onProgress(stage, detail);
  };
  const base = new URL(indexURL ?? "./pyodide/", import.meta.url).href.replace(/\/?$/, "/");

  progress(STAGES[0], `loading Pyodide from ${base}`);
  let pyodideModule;
  try {
    pyodideModule = await import(new URL("pyodide.mjs", base).href);
  } catch (err) {
    throw new Error(
      `webtensor: could not load Pyodide from ${base} (${err.message}). indexURL must be the ` +
        `folder holding pyodide.mjs, pyodide.asm.wasm and pyodide-lock.json; build it with ` +
        `\`python build_wasm.py\` and serve build/site/.`,
    );
  }
  const config = { indexURL: base };
  if (stdout) config.stdout = stdout;
  if (stderr) config.stderr = stderr;
  const pyodide = await pyodideModule.loadPyodide(config);

  progress(STAGES[1], "installing the webtensor wheel");
  const failures = [];
  await pyodide.loadPackage("webtensor", {
    messageCallback: (msg) => progress(STAGES[1], msg),
    errorCallback: (msg) => failures.push(msg),
  });
  if (failures.length) {
    throw new Error(`webtensor: loadPackage("webtensor") failed: ${failures.join("; ")}`);
  }

  progress(STAGES[2], webgpu ? "opening the WebGPU device" : "skipped (webgpu: false)");
  // init_async() records why WebGPU is unavailable instead of raising; webtensor then picks
  // the cpu device and says so once.
  await pyodide.runPythonAsync(
    webgpu
      ? "import webtensor\nawait webtensor.init_async()"
      : "import webtensor\nfrom webtensor.backends.webgpu import browser\n" +
          "browser.decline('loadWebtensor() was called with webgpu: false')",
  );
  progress(STAGES[3], "webtensor imported");
  return pyodide;
}
