"""The playground's Python runner (web/playground/runner.py), run natively on the CPU device.

The browser side (the worker, the page, the canvas) is tested by tests/playground/run.mjs in
Chromium; here: how a script is split and run, what an error report says, the REPL rule for a
last expression, the show hook and the explorer's JSON answers.
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

import webtensor as wt
from webtensor import _explorer, _heatmap

WEBTENSOR_DIR = str(Path(wt.__file__).resolve().parent)
RUNNER_PATH = Path(__file__).resolve().parents[2] / "web" / "playground" / "runner.py"


@pytest.fixture(scope="module")
def runner():
    spec = importlib.util.spec_from_file_location("_playground_runner", RUNNER_PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def shown(runner):
    """Payloads sent through the show hook during the test (the hook is restored after)."""
    sent = []
    previous = _heatmap.get_show_hook()
    assert runner.install_show_hook(lambda kind, data: sent.append((kind, data)))
    yield sent
    _heatmap.set_show_hook(previous)


def drive(coroutine):
    """Runs a coroutine that only ever yields bare None (asyncio.sleep(0)) to completion, without
    an event loop: asyncio.run is unavailable under Pyodide, where these tests also run."""
    try:
        while True:
            assert coroutine.send(None) is None
    except StopIteration as stop:
        return stop.value


def run(runner, source):
    with wt.set_default_device("cpu"):
        return drive(runner.run(source))


def test_prints_stream_in_order_and_values_are_echoed(runner, capsys):
    report = run(runner, "print('a', end='')\nprint('b')\nx = 2\nx * 21")
    assert report["ok"] is True and report["error"] is None
    assert report["seconds"] >= 0
    assert capsys.readouterr().out == "ab\n42\n"


@pytest.mark.parametrize(("source", "out"), [
    ("x = 1", ""), ("print(1)\n", "1\n"), ("", ""), ("# only a comment", ""), ("None", ""),
    ("'text'", "'text'\n"), ("[1, 2]", "[1, 2]\n"),
])
def test_only_values_other_than_none_are_echoed(runner, capsys, source, out):
    assert run(runner, source)["ok"]
    assert capsys.readouterr().out == out


def test_each_run_gets_a_fresh_namespace(runner):
    assert run(runner, "leaked = 1")["ok"]
    report = run(runner, "leaked")
    assert report["error"]["type"] == "NameError"
    assert report["error"]["line"] == 1


@pytest.mark.parametrize("shape", [(), (0,), (5,), (3, 4), (2, 3, 4)])
def test_a_last_tensor_expression_is_shown(runner, shown, capsys, shape):
    n = 1
    for s in shape:
        n *= s
    source = f"import webtensor as wt\nwt.reshape(wt.arange({n}, dtype=wt.float32), {shape!r})"
    assert run(runner, source)["ok"]
    assert capsys.readouterr().out == ""
    [(kind, payload)] = shown
    assert kind == "tensor"
    assert payload["shape"] == list(shape)
    assert payload["dtype"] == "float32"
    assert payload["device"] == "cpu"


def test_show_calls_reach_the_hook_with_titles(runner, shown):
    source = ("import webtensor as wt\nt = wt.ones((2, 2))\nwt.show(t, title='first')\n"
              "wt.show(t * 2)\nt")
    assert run(runner, source)["ok"]
    assert [p["title"] for _, p in shown] == ["first", None, None]


def test_syntax_error_reports_the_line(runner):
    report = run(runner, "x = 1\ny = (x +\nprint(y)\n")
    error = report["error"]
    assert report["ok"] is False
    assert error["type"] == "SyntaxError"
    assert error["line"] in (2, 3)  # CPython versions place an unclosed '(' differently
    assert "SyntaxError" in error["traceback"]
    assert "runner.py" not in error["traceback"]


def test_exception_reports_the_innermost_user_line(runner, capsys):
    source = "\n".join([
        "import webtensor as wt",
        "def grow(t):",
        "    return t + wt.ones(4)",
        "print('before')",
        "grow(wt.ones(3))",
        "print('after')",
    ])
    report = run(runner, source)
    error = report["error"]
    assert error["type"] == "ValueError"
    assert error["line"] == 3
    assert "wt.add" in error["message"]
    tb = error["traceback"]
    assert tb.startswith("Traceback (most recent call last):")
    assert 'File "<playground>", line 5, in <module>' in tb
    assert 'File "<playground>", line 3, in grow' in tb
    assert "    return t + wt.ones(4)" in tb  # source lines are shown (linecache)
    assert "runner.py" not in tb  # the runner's own frames are dropped
    # webtensor's own frames fold into one line between the user's frames and the message.
    assert WEBTENSOR_DIR not in tb
    lines = tb.splitlines()
    fold = next(i for i, x in enumerate(lines) if re.fullmatch(r"  \[\d+ frames? inside webtensor\]", x))
    assert lines[fold - 1] == "    return t + wt.ones(4)" or lines[fold - 1].strip(" ~^") == ""
    assert lines[fold + 1].startswith("ValueError: wt.add")
    assert capsys.readouterr().out == "before\n"


def test_tracebacks_without_webtensor_frames_have_no_fold(runner):
    tb = run(runner, "def f():\n    raise KeyError('k')\nf()")["error"]["traceback"]
    assert "inside webtensor" not in tb
    assert tb.splitlines()[-1] == "KeyError: 'k'"
    assert 'File "<playground>", line 2, in f' in tb


def test_chained_exceptions_keep_the_whole_chain(runner):
    source = "\n".join([
        "import webtensor as wt",
        "try:",
        "    wt.ones(3) + wt.ones(4)",
        "except ValueError as e:",
        "    raise RuntimeError('shapes again') from e",
    ])
    error = run(runner, source)["error"]
    assert (error["type"], error["line"]) == ("RuntimeError", 5)
    tb = error["traceback"]
    assert "direct cause of the following exception" in tb
    assert tb.index("ValueError: wt.add") < tb.index("RuntimeError: shapes again")
    assert "runner.py" not in tb


def test_error_in_the_last_expression(runner):
    error = run(runner, "x = 1\n\n1 / 0")["error"]
    assert (error["type"], error["line"]) == ("ZeroDivisionError", 3)


def test_top_level_await(runner, capsys):
    report = run(runner, "import asyncio\nawait asyncio.sleep(0)\nawait asyncio.sleep(0, 'done')")
    assert report["ok"], report["error"]
    assert capsys.readouterr().out == "'done'\n"


@pytest.mark.parametrize(("code", "ok"), [(None, True), (0, True), (3, False), ("bye", False)])
def test_sys_exit(runner, code, ok):
    report = run(runner, f"import sys\nsys.exit({code!r})")
    assert report["ok"] is ok
    if not ok:
        assert report["error"]["type"] == "SystemExit"
        assert report["error"]["line"] == 2


@pytest.mark.parametrize("mode", _explorer.modes())
def test_explorer_answers_the_module_as_json(runner, mode):
    request = json.dumps({"op": "table", "args": [mode]})
    assert json.loads(runner.explorer(request)) == _explorer.table(mode)


def test_explorer_explain_and_diff(runner):
    ask = lambda op, *args: json.loads(runner.explorer(json.dumps({"op": op, "args": args})))  # noqa: E731
    assert ask("modes") == _explorer.modes()
    assert ask("explain", "i8", "u32", "safe") == _explorer.explain("i8", "u32", "safe")
    assert ask("diff", "all", "safe") == _explorer.diff("all", "safe")


@pytest.mark.parametrize("op", ["eval", "__init__", "_mode"])
def test_explorer_refuses_other_operations(runner, op):
    with pytest.raises(ValueError, match=f"explorer: unknown operation '{op}'; use modes"):
        runner.explorer(json.dumps({"op": op, "args": []}))


def test_setup_without_webgpu_stays_on_the_cpu(runner, monkeypatch):
    monkeypatch.setattr(wt, "devices", lambda: [wt.Device("cpu", None)])
    with wt.set_default_device("cpu"):
        info = runner.setup()
        assert wt.default_device() == "cpu"
    assert info["device"] == "cpu"
    assert info["adapter"] == ""
    assert info["version"] == wt.__version__
    assert isinstance(info["reason"], str)


def test_warm_up_runs_the_example_without_a_trace(runner, shown, capsys):
    """The warm-up before the first Run discards what the script prints or shows, ignores
    its errors (the real Run reports them), and does not leave warnings filters behind."""
    import warnings

    filters = list(warnings.filters)
    source = "import webtensor as wt\nprint('hello')\nwt.show(wt.ones((2, 2)))\nwt.ones(3) * 2"
    with wt.set_default_device("cpu"):
        report = drive(runner.warm_up(source))
        assert drive(runner.warm_up("print('x')\nraise ValueError('late')"))["pipelines"] == 0
    assert capsys.readouterr() == ("", "") and shown == []
    assert report["seconds"] >= 0 and report["pipelines"] == 0  # the CPU compiles nothing
    assert warnings.filters == filters
    assert run(runner, source)["ok"] and capsys.readouterr().out == "hello\n"


def test_after_a_warm_up_the_run_compiles_nothing():
    """On a GPU device the warm-up creates the example's pipelines and the Run then finds every
    one of them compiled."""
    import asyncio
    import sys

    from webtensor.backends.webgpu import probe

    if sys.platform == "emscripten" or not probe().available:
        pytest.skip("needs a native webgpu adapter (the browser's warm-up is tested by "
                    "tests/playground/run.mjs)")
    spec = importlib.util.spec_from_file_location("_playground_runner_gpu", RUNNER_PATH)
    runner = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(runner)
    source = ("import webtensor as wt\n"
              "f = wt.jit(lambda x: wt.tanh(wt.expm1(wt.log1p(wt.abs(x)))) * wt.atan(x) - 0.5)\n"
              "x = wt.linspace(-3, 3, 999)\n"
              "print(float(wt.max(f(x) @ wt.ones((999, 7)))))")
    with wt.set_default_device("webgpu"):
        warmed = asyncio.run(runner.warm_up(source))
        report = asyncio.run(runner.run(source))
    assert report["ok"], report["error"]
    assert warmed["pipelines"] > 0 and report["pipelines"] == 0
