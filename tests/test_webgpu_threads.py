"""The webgpu device used from many threads at once: no crash, no poisoned device, every result
right, and a race-free start.  Each scenario runs in a subprocess, so a crash (the segfaults
this used to cause) fails the test instead of killing pytest."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from _gpu import webgpu_or_skip

webgpu_or_skip()
if sys.platform == "emscripten":
    pytest.skip("Pyodide has no threads or subprocesses", allow_module_level=True)


def run(code: str, timeout: int = 120) -> str:
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=timeout)
    assert done.returncode == 0, f"exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done.stdout


def test_many_threads_compute_and_read_at_once():
    out = run("""
        import threading
        import webtensor as wt

        wt.ones(1, device="webgpu").tolist()
        errors, results = [], []

        def work(k):
            try:
                for i in range(150):
                    x = wt.asarray([1.0, float(k), float(i)], device="webgpu")
                    y = (x + 1) * 2
                    s = wt.sum(y @ wt.ones((3, 2), device="webgpu"))
                    got = y.tolist()
                    assert got == [4.0, 2.0 * (k + 1), 2.0 * (i + 1)], got
                    assert s.item() == 2 * sum(got)
                results.append(k)
            except Exception as e:  # reported below
                errors.append(repr(e))

        threads = [threading.Thread(target=work, args=(k,)) for k in range(10)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors, errors[:3]
        assert sorted(results) == list(range(10))
        # the device still works for the main thread afterwards
        print((wt.arange(4, device="webgpu") * 3).tolist())
    """)
    assert out.strip() == "[0, 3, 6, 9]"


def test_jitted_programs_from_many_threads():
    out = run("""
        import threading
        import webtensor as wt

        f = wt.jit(lambda a, b: wt.exp(a * 0.5) + b.sum())
        a = wt.linspace(-1, 1, 64, device="webgpu")
        want = f(a, a).tolist()
        bad = []

        def work():
            for _ in range(100):
                if f(a, a).tolist() != want:
                    bad.append(1)

        threads = [threading.Thread(target=work) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        print(len(bad), f.trace_count)
    """)
    assert out.split() == ["0", "1"]


def test_the_device_starts_once_when_threads_race_for_it():
    out = run("""
        import threading
        import webtensor as wt

        barrier = threading.Barrier(6)
        got, errors = [], []

        def first_use():
            barrier.wait()
            try:
                got.append(wt.ones(2, device="webgpu").tolist())
            except Exception as e:
                errors.append(repr(e))

        threads = [threading.Thread(target=first_use) for _ in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        from webtensor import device
        backends = {id(d._backend) for d in wt.devices() if d.name == "webgpu"}
        print(errors, got.count([1.0, 1.0]), len(backends))
    """)
    assert out.strip() == "[] 6 1"
