// A module worker running one scenario of scenarios.mjs (the loader must not need `window`).
import { runScenario } from "./scenarios.mjs";

self.onmessage = async (event) => {
  const { name, config } = event.data;
  self.postMessage(await runScenario(name, config));
};
