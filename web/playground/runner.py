"""The Python half of the playground: runs the editor's code inside the Pyodide worker.

``worker.js`` loads this file as the module ``_playground`` and calls ``install_show_hook(emit)``
and ``setup`` once, then ``run`` per click and ``explorer`` for the promotion panel.  Text goes out
through stdout/stderr (Pyodide streams them), tensors through ``emit("tensor", payload)`` (a JS
function in the browser, any callable natively), so this module also runs, and is tested, on
CPython.

A run is a script: a fresh namespace each time, stdout/stderr streamed by Pyodide, every
``wt.show`` and the value of a last expression that is a Tensor sent as a heatmap payload, and an
exception reported with the user's line number so the editor can highlight it.
"""

from __future__ import annotations

import ast
import contextlib
import inspect
import io
import itertools
import json
import linecache
import os
import sys
import time
import traceback
import warnings

FILENAME = "<playground>"

# Exceptions whose traceback frames inside the user's code say nothing more than the message.
_NO_TRACEBACK = (SyntaxError,)


def setup() -> dict:
    """Import webtensor, make the WebGPU device the default when one is available (the
    playground exists to show it) and say which device runs the code."""
    import webtensor as wt

    info = {"device": "cpu", "adapter": "", "reason": "", "version": wt.__version__}
    if "webgpu" in [d.name for d in wt.devices()]:
        wt.set_default_device("webgpu")
        return {**info, "device": "webgpu", "adapter": _adapter_name(wt)}
    try:
        from webtensor.backends.webgpu import probe

        info["reason"] = probe().reason
    except Exception as e:  # a broken driver must not stop the CPU fallback
        info["reason"] = f"probing WebGPU failed: {e}"
    return info


def _adapter_name(wt) -> str:
    """A human name for the adapter, from the probe or else the device info; "" if neither."""
    try:
        from webtensor.backends.webgpu import probe

        description = probe().description
        if description:
            return description
    except Exception:
        pass
    try:
        adapter = wt.device_info("webgpu").get("adapter") or {}
    except Exception:
        return ""
    if isinstance(adapter, str):
        return adapter
    parts = [adapter.get(k) for k in ("device", "description", "vendor", "architecture")]
    return next((p for p in parts if p), "")


def split_source(source: str):
    """Compile ``source`` as a script whose last statement, when it is an expression, is
    evaluated separately so its value can be shown (like a notebook cell).

    Returns ``(body_code, last_expression_code_or_None)``; raises SyntaxError with
    ``filename == FILENAME`` for invalid code.  Top-level ``await`` is allowed (the async
    twins such as ``await x.tolist_async()`` need it where synchronous reads cannot wait).
    """
    tree = ast.parse(source, FILENAME, "exec")
    flags = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
        last = compile(last, FILENAME, "eval", flags=flags)
    return compile(tree, FILENAME, "exec", flags=flags), last


async def _evaluate(code, namespace):
    result = eval(code, namespace)
    if inspect.iscoroutine(result):  # the code used top-level await
        result = await result
    return result


def error_report(exc: BaseException) -> dict:
    """The exception as the page shows it: type, message, traceback text limited to the user's
    frames and below, and the user's line number (the innermost frame in their code)."""
    line = None
    if isinstance(exc, SyntaxError) and exc.filename == FILENAME:
        line = exc.lineno
    frames = traceback.extract_tb(exc.__traceback__)
    first_user = next((i for i, f in enumerate(frames) if f.filename == FILENAME), None)
    user_lines = [f.lineno for f in frames if f.filename == FILENAME]
    if line is None and user_lines:
        line = user_lines[-1]
    if isinstance(exc, _NO_TRACEBACK) or first_user is None:
        text = "".join(traceback.format_exception_only(type(exc), exc))
    else:
        tb = exc.__traceback__
        for _ in range(first_user):  # drop this module's own frames
            tb = tb.tb_next
        exc = exc.with_traceback(tb)
        chained = exc.__cause__ is not None or (
            exc.__context__ is not None and not exc.__suppress_context__)
        # A chain is shown whole; otherwise webtensor's internals are folded away: its errors
        # name the operation, and the user's frames are where a fix goes.
        text = ("".join(traceback.format_exception(exc)) if chained
                else _fold_library_frames(exc))
    return {"type": type(exc).__name__, "message": str(exc), "traceback": text, "line": line}


def _library_dir() -> str:
    import webtensor

    return os.path.dirname(os.path.abspath(webtensor.__file__)) + os.sep


def _fold_library_frames(exc: BaseException) -> str:
    """The traceback of ``exc`` with each run of frames inside webtensor as one line."""
    library = _library_dir()
    lines = ["Traceback (most recent call last):\n"]
    frames = traceback.extract_tb(exc.__traceback__)
    for inside, run in itertools.groupby(
            frames, key=lambda f: os.path.abspath(f.filename).startswith(library)):
        run = list(run)
        if inside:
            lines.append(f"  [{len(run)} frame{'s' if len(run) > 1 else ''} inside webtensor]\n")
        else:
            lines.extend(traceback.StackSummary.from_list(run).format())
    lines.extend(traceback.format_exception_only(exc))
    return "".join(lines)


def _show_value(value) -> None:
    """The REPL rule: a Tensor is drawn, anything else but None is printed (through stdout, so
    it stays in order with the script's own output)."""
    if value is None:
        return
    import webtensor as wt

    if isinstance(value, wt.Tensor):
        wt.show(value)
    else:
        print(repr(value))


async def run(source: str) -> dict:
    """Run ``source`` as the playground's script; returns ``{"ok", "error", "seconds"}``."""
    linecache.cache[FILENAME] = (len(source), None, source.splitlines(True), FILENAME)
    namespace = {"__name__": "__main__", "__file__": FILENAME}
    _new_session()
    before = _pipelines()
    t0 = time.perf_counter()
    try:
        body, last = split_source(source)
        await _evaluate(body, namespace)
        if last is not None:
            _show_value(await _evaluate(last, namespace))
    except (Exception, KeyboardInterrupt) as e:  # SystemExit ends the script, quietly
        error = error_report(e)
    except SystemExit as e:
        error = None if e.code in (None, 0) else error_report(e)
    else:
        error = None
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
    return {"ok": error is None, "error": error, "seconds": time.perf_counter() - t0,
            "pipelines": _pipelines() - before}


async def warm_up(source: str) -> dict:
    """``run`` ``source`` once with its output, figures and warnings discarded, before the
    user's first Run: creating the compute pipelines is most of a first run on a software
    adapter (the default example: 1.3 s against 0.13 s for later runs), and the real run then
    finds them compiled.  Its errors are dropped (the real run reports them).  Returns
    ``{"seconds", "pipelines"}``."""
    import webtensor as wt
    from webtensor import _heatmap

    sink = io.StringIO()
    with _heatmap.set_show_hook(lambda payload: None), contextlib.redirect_stdout(sink), \
            contextlib.redirect_stderr(sink), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = await run(source)
        with contextlib.suppress(Exception):  # its work submitted and done before the Run
            await wt.sync_async()
    return {"seconds": report["seconds"], "pipelines": report["pipelines"]}


def _pipelines() -> int:
    """Compute pipelines the default device has created so far (0 on the CPU)."""
    try:
        import webtensor as wt

        return int(wt.memory_stats().get("pipelines", 0))
    except Exception:  # noqa: BLE001 - a statistic, never worth failing a run for
        return 0


def _new_session() -> None:
    """Each run is a script of its own: its once-per-session warnings are given again."""
    try:
        from webtensor import _warnings
    except ImportError:
        return
    _warnings.new_session()


def install_show_hook(emit) -> bool:
    """Route ``wt.show`` to the page; False when this webtensor has no heatmap module."""
    try:
        from webtensor import _heatmap
    except ImportError:
        return False
    _heatmap.set_show_hook(lambda payload: emit("tensor", payload))
    return True


def explorer(request_json: str) -> str:
    """One call of the promotion explorer (``{"op": name, "args": [...]}``), answered as JSON so
    the page receives plain data in a single crossing."""
    request = json.loads(request_json)
    op, args = request["op"], request.get("args", [])
    if op not in ("modes", "table", "explain", "diff"):
        raise ValueError(f"explorer: unknown operation {op!r}; use modes, table, explain or diff")
    from webtensor import _explorer

    return json.dumps(getattr(_explorer, op)(*args))
