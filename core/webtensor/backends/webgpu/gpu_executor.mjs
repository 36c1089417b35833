// The WebGPU side of webtensor's browser driver (browser.py, next to this file).
//
// Shipped in the wheel as package data: under Pyodide, `import webtensor` reads this file and
// evaluates it through Pyodide's JS interop (browser.py's `module_as_script` turns the top-level
// `export`s into the fields of one object), so no page has to load it. It must stay a plain
// ES module without `import`s; it is also importable as one.
//
// Python records a batch of commands and hands it over in ONE call, `run(cmds, uniforms,
// uploads)`, so the ~2 us cost of a Python->JS crossing is paid per batch, not per operation:
//
//   cmds      Uint32 words: [op, operands...]* (opcodes below; buffers and pipelines are small
//             integer ids that Python allocates, this module maps them to GPU objects)
//   uniforms  bytes: each dispatch's parameters at a 256-byte aligned offset (the uniform arena)
//   uploads   bytes: the data of the batch's small buffer writes, back to back
//
// Both byte streams arrive as zero-copy views of the WebAssembly heap (PyProxy.getBuffer), used
// before this call returns and released. Dispatches go into one compute pass; a write to a
// buffer the open pass uses is copied from a staging buffer between two passes of the open
// encoder (a queue write would overtake the pass).

export const OP = { CREATE: 1, DESTROY: 2, WRITE: 3, DISPATCH: 4 };
const USAGE_UNIFORM = 1;
// A dispatch's x count saying the counts are in a buffer (browser.py's INDIRECT_GRID).
const INDIRECT_GRID = 0xffffffff;

/** Open a device with exactly the requested limits (clamped to the adapter's) and features. */
export async function openDevice(wantedLimits, wantedFeatures, arenaSize) {
  const gpu = globalThis.navigator?.gpu;
  if (!gpu) {
    return {
      error:
        "navigator.gpu is undefined: this browser has no WebGPU (Chromium on Linux needs " +
        "--enable-unsafe-webgpu; Firefox and Safari need a recent version)",
    };
  }
  const adapter = await gpu.requestAdapter({ powerPreference: "high-performance" });
  if (!adapter) {
    return { error: "navigator.gpu.requestAdapter() found no WebGPU adapter" };
  }
  const requiredLimits = {};
  for (const [key, value] of Object.entries(wantedLimits)) {
    const have = adapter.limits[key];
    if (have === undefined) continue;
    // "max" limits may not exceed the adapter's, "min" (alignment) ones may not go below.
    requiredLimits[key] = key.startsWith("min") ? Math.max(value, have) : Math.min(value, have);
  }
  // subgroups: webtensor's kernels also need WGSL's subgroup_id built-in
  const usable = (f) => adapter.features.has(f) &&
    (f !== "subgroups" || gpu.wgslLanguageFeatures?.has("subgroup_id"));
  const requiredFeatures = wantedFeatures.filter(usable);
  const device = await adapter.requestDevice({ requiredLimits, requiredFeatures });
  const limits = {};
  for (const key of Object.keys(requiredLimits)) limits[key] = device.limits[key];
  const info = adapter.info ?? {};
  return {
    executor: new GpuExecutor(device, arenaSize),
    limits,
    features: requiredFeatures,
    info: {
      vendor: info.vendor ?? "",
      architecture: info.architecture ?? "",
      device: info.device ?? "",
      description: info.description ?? "",
      fallback: Boolean(info.isFallbackAdapter ?? adapter.isFallbackAdapter),
    },
  };
}

function formatCompileMessages(messages, wgsl) {
  const lines = wgsl.split("\n");
  return messages
    .filter((m) => m.type === "error")
    .map((m) => {
      const src = m.lineNum > 0 ? `\n    ${lines[m.lineNum - 1] ?? ""}` : "";
      return `line ${m.lineNum}:${m.linePos}: ${m.message}${src}`;
    })
    .join("\n");
}

export class GpuExecutor {
  constructor(device, arenaSize) {
    this.device = device;
    this.queue = device.queue;
    this.buffers = new Map(); // id -> GPUBuffer
    this.pipelines = new Map(); // id -> { pipeline, layoutKey, bgl, uniformSize, error }
    this.layouts = new Map(); // "nIn,nOut,uniformSize" -> { bgl, layout }
    this.bindGroups = new Map(); // "layoutKey|ids" -> GPUBindGroup
    this.groupsByBuffer = new Map(); // buffer id -> Set of bind group keys
    this.pendingChecks = []; // compile checks not yet awaited (reported at the next read)
    this.errors = []; // uncaptured device errors, reported at the next read
    this.lost = null;
    this.staging = null; // a reusable MAP_READ buffer
    this.mapped = new Map(); // Uint8Array handed to Python -> its mapped staging buffer
    this.counters = { submits: 0, bind_groups: 0 };
    this.arenaSize = arenaSize;
    this.arena = device.createBuffer({
      size: arenaSize,
      usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST,
    });
    this.offsets = new Uint32Array(1);
    device.addEventListener("uncapturederror", (e) => this.errors.push(e.error.message));
    device.lost.then((info) => {
      this.lost = `the WebGPU device was lost (${info.reason}): ${info.message}`;
    });
  }

  // -- pipelines ------------------------------------------------------------------------------
  _layout(nIn, nOut, uniformSize) {
    const key = `${nIn},${nOut},${uniformSize}`;
    let found = this.layouts.get(key);
    if (!found) {
      const entries = [
        {
          binding: 0,
          visibility: GPUShaderStage.COMPUTE,
          buffer: { type: "uniform", hasDynamicOffset: true, minBindingSize: uniformSize },
        },
      ];
      for (let i = 0; i < nIn + nOut; i++) {
        entries.push({
          binding: i + 1,
          visibility: GPUShaderStage.COMPUTE,
          buffer: { type: i < nIn ? "read-only-storage" : "storage" },
        });
      }
      const bgl = this.device.createBindGroupLayout({ entries });
      const layout = this.device.createPipelineLayout({ bindGroupLayouts: [bgl] });
      found = { key, bgl, layout };
      this.layouts.set(key, found);
    }
    return found;
  }

  /** Compile a kernel as pipeline `id`; its check (a Promise of an error text or null) is
   * returned by `check(id)` and also awaited by the next read. */
  createPipeline(id, wgsl, entry, nIn, nOut, uniformSize) {
    const { key, bgl, layout } = this._layout(nIn, nOut, uniformSize);
    this.device.pushErrorScope("validation");
    const module = this.device.createShaderModule({ code: wgsl });
    const pipeline = this.device.createComputePipeline({
      layout,
      compute: { module, entryPoint: entry },
    });
    const scope = this.device.popErrorScope();
    const record = { pipeline, layoutKey: key, bgl, uniformSize, error: null };
    record.check = Promise.all([module.getCompilationInfo(), scope]).then(([info, err]) => {
      const compile = formatCompileMessages(info.messages, wgsl);
      if (compile || err) {
        record.error = compile || err.message;
        return `the WGSL kernel (entry point "${entry}") failed to compile:\n${record.error}`;
      }
      return null;
    });
    this.pipelines.set(id, record);
    this.pendingChecks.push(record.check);
  }

  check(id) {
    return this.pipelines.get(id).check;
  }

  /** Drop a pipeline whose failed check Python has already reported. */
  forgetPipeline(id) {
    const record = this.pipelines.get(id);
    this.pendingChecks = this.pendingChecks.filter((check) => check !== record?.check);
    this.pipelines.delete(id);
  }

  // -- batches --------------------------------------------------------------------------------
  _bindGroup(record, ids) {
    const key = `${record.layoutKey}|${ids.join(",")}`;
    let group = this.bindGroups.get(key);
    if (!group) {
      const entries = [
        { binding: 0, resource: { buffer: this.arena, offset: 0, size: record.uniformSize } },
      ];
      ids.forEach((id, i) => {
        entries.push({ binding: i + 1, resource: { buffer: this.buffers.get(id) } });
        let keys = this.groupsByBuffer.get(id);
        if (!keys) this.groupsByBuffer.set(id, (keys = new Set()));
        keys.add(key);
      });
      group = this.device.createBindGroup({ layout: record.bgl, entries });
      this.bindGroups.set(key, group);
      this.counters.bind_groups++;
    }
    return group;
  }

  _destroy(id) {
    for (const key of this.groupsByBuffer.get(id) ?? []) this.bindGroups.delete(key);
    this.groupsByBuffer.delete(id);
    this.buffers.get(id)?.destroy();
    this.buffers.delete(id);
  }

  /** Execute one recorded batch (see the header). Each argument may be null when empty. */
  run(cmdsProxy, uniformsProxy, uploadsProxy) {
    const views = [];
    const view = (proxy, type) => {
      if (proxy == null) return null;
      const pybuf = proxy.getBuffer(type);
      views.push(pybuf);
      return pybuf.data;
    };
    try {
      this._execute(view(cmdsProxy, "u32"), view(uniformsProxy, "u8"), view(uploadsProxy, "u8"));
    } finally {
      for (const pybuf of views) pybuf.release();
    }
  }

  _execute(cmds, uniforms, uploads) {
    if (cmds == null) return;
    const device = this.device;
    let encoder = null;
    let pass = null;
    let segmentStart = 0; // the uniforms offset the open pass's arena starts at
    let segmentEnd = 0;
    const used = new Set(); // buffers the open pass binds
    const doomed = []; // buffers destroyed while the open pass uses them
    const staged = []; // staging buffers of writes recorded in the open encoder
    const submit = () => {
      if (!encoder) return;
      pass.end();
      if (uniforms) {
        const end = Math.min((segmentEnd + 3) & ~3, uniforms.length);
        this.queue.writeBuffer(this.arena, 0, uniforms, segmentStart, end - segmentStart);
      }
      this.queue.submit([encoder.finish()]);
      this.counters.submits++;
      encoder = pass = null;
      used.clear();
      for (const id of doomed.splice(0)) this._destroy(id);
      for (const buffer of staged.splice(0)) buffer.destroy();
    };
    const n = cmds.length;
    let i = 0;
    while (i < n) {
      const op = cmds[i];
      if (op === OP.DISPATCH) {
        const record = this.pipelines.get(cmds[i + 1]);
        const uniformOffset = cmds[i + 2];
        const nBuffers = cmds[i + 6];
        const ids = Array.from(cmds.subarray(i + 7, i + 7 + nBuffers));
        if (!encoder) {
          encoder = device.createCommandEncoder();
          pass = encoder.beginComputePass();
          segmentStart = uniformOffset;
        }
        segmentEnd = uniformOffset + record.uniformSize;
        pass.setPipeline(record.pipeline);
        this.offsets[0] = uniformOffset - segmentStart;
        pass.setBindGroup(0, this._bindGroup(record, ids), this.offsets, 0, 1);
        if (cmds[i + 3] === INDIRECT_GRID) {
          pass.dispatchWorkgroupsIndirect(this.buffers.get(cmds[i + 4]), cmds[i + 5]);
        } else {
          pass.dispatchWorkgroups(cmds[i + 3], cmds[i + 4], cmds[i + 5]);
        }
        for (const id of ids) used.add(id);
        i += 7 + nBuffers;
      } else if (op === OP.WRITE) {
        const id = cmds[i + 1];
        const target = this.buffers.get(id);
        const [offset, start, size] = [cmds[i + 2], cmds[i + 3], cmds[i + 4]];
        if (used.has(id)) {
          // A queue write would overtake the open pass's dispatches, and a submit costs more
          // than a copy: stage the data and copy it between two passes of the open encoder.
          const staging = device.createBuffer({ size, usage: GPUBufferUsage.COPY_SRC,
                                                mappedAtCreation: true });
          new Uint8Array(staging.getMappedRange()).set(uploads.subarray(start, start + size));
          staging.unmap();
          pass.end();
          encoder.copyBufferToBuffer(staging, 0, target, offset, size);
          pass = encoder.beginComputePass();
          staged.push(staging);
        } else {
          this.queue.writeBuffer(target, offset, uploads, start, size);
        }
        i += 5;
      } else if (op === OP.CREATE) {
        const usage =
          cmds[i + 3] === USAGE_UNIFORM
            ? GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST
            : GPUBufferUsage.STORAGE | GPUBufferUsage.INDIRECT | GPUBufferUsage.COPY_SRC |
              GPUBufferUsage.COPY_DST;
        this.buffers.set(cmds[i + 1], device.createBuffer({ size: cmds[i + 2], usage }));
        i += 4;
      } else if (op === OP.DESTROY) {
        const id = cmds[i + 1];
        if (used.has(id)) doomed.push(id);
        else this._destroy(id);
        i += 2;
      } else {
        throw new Error(`gpu_executor: unknown opcode ${op} at word ${i} of the batch`);
      }
    }
    submit();
  }

  /** A large write straight from the Python object's memory (zero-copy), after `run`. */
  write(id, offset, dataProxy) {
    const pybuf = dataProxy.getBuffer("u8");
    try {
      this.queue.writeBuffer(this.buffers.get(id), offset, pybuf.data);
    } finally {
      pybuf.release();
    }
  }

  // -- reads ----------------------------------------------------------------------------------
  _takeStaging(size) {
    const staging = this.staging;
    if (staging && staging.size >= size) {
      this.staging = null;
      return staging;
    }
    const rounded = Math.max(4096, 2 ** Math.ceil(Math.log2(size)));
    return this.device.createBuffer({
      size: rounded,
      usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
    });
  }

  async _raisePending() {
    const checks = this.pendingChecks.splice(0);
    const failed = (await Promise.all(checks)).filter(Boolean);
    const errors = this.errors.splice(0);
    if (failed.length) throw new Error(failed[0]);
    if (this.lost) throw new Error(this.lost);
    if (errors.length) throw new Error(`WebGPU validation error: ${errors[0]}`);
  }

  /** Run the batch, then resolve to a Uint8Array over `size` mapped bytes of buffer `id` from
   * `offset`. Python copies it once, then calls `endRead` with it. */
  async read(cmdsProxy, uniformsProxy, uploadsProxy, id, offset, size) {
    this.run(cmdsProxy, uniformsProxy, uploadsProxy); // uses the proxies before any await
    if (size === 0) {
      await this._raisePending();
      return new Uint8Array(0);
    }
    const staging = this._takeStaging(size);
    const encoder = this.device.createCommandEncoder();
    encoder.copyBufferToBuffer(this.buffers.get(id), offset, staging, 0, size);
    this.queue.submit([encoder.finish()]);
    try {
      await staging.mapAsync(GPUMapMode.READ, 0, size);
      await this._raisePending();
    } catch (err) {
      if (staging.mapState === "mapped") staging.unmap();
      throw err;
    }
    const bytes = new Uint8Array(staging.getMappedRange(0, size));
    this.mapped.set(bytes, staging);
    return bytes;
  }

  endRead(bytes) {
    const staging = this.mapped.get(bytes);
    this.mapped.delete(bytes);
    staging.unmap();
    if (staging.size <= 16 << 20 && (!this.staging || this.staging.size < staging.size)) {
      this.staging?.destroy();
      this.staging = staging;
    } else {
      staging.destroy();
    }
  }

  /** Run the batch and wait until the GPU has finished everything submitted. */
  async sync(cmdsProxy, uniformsProxy, uploadsProxy) {
    this.run(cmdsProxy, uniformsProxy, uploadsProxy);
    await this.queue.onSubmittedWorkDone();
    await this._raisePending();
  }

  stats() {
    return { ...this.counters, live_buffers_js: this.buffers.size };
  }
}
