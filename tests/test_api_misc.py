"""astype, the NumPy-style tensor methods, `python -m webtensor`, and backend selection."""

import os
import re
import subprocess
import sys

import pytest

import webtensor as wt
from webtensor.__main__ import main as cli_main
from webtensor.promotion import MODES

# -- astype ---------------------------------------------------------------------------------------

def test_astype_converts_with_the_cast_rules():
    x = wt.asarray([1.7, -2.5, 300.0, float("nan")], dtype=wt.float32)
    # Truncation toward zero, saturation, NaN -> 0: webtensor's cast rule on every device.
    assert wt.astype(x, wt.int8).tolist() == [1, -2, 127, 0]
    assert wt.astype(x, wt.uint8).tolist() == [1, 0, 255, 0]
    assert wt.astype(wt.asarray([0, 2, 0]), wt.bool).tolist() == [False, True, False]
    assert x.astype("f16").dtype is wt.float16


def test_astype_result_is_strong_and_copies_unless_told_not_to():
    weak = wt.asarray([1, 2])
    assert weak.weak
    strong = wt.astype(weak, wt.int32)
    assert strong.dtype is wt.int32 and not strong.weak
    s = wt.asarray([1, 2], dtype=wt.int32)
    assert wt.astype(s, wt.int32, copy=False) is s
    copied = wt.astype(s, wt.int32)
    assert copied is not s and copied._data is not s._data
    copied[0] = 5
    assert s.tolist() == [1, 2]


def test_astype_casting_rule_is_enforced_with_a_clear_error():
    x = wt.asarray([1.5], dtype=wt.float32)
    assert wt.astype(x, wt.float64, casting="safe").dtype is wt.float64
    with pytest.raises(TypeError, match=r"wt.astype: cannot cast float32 to int32 with "
                                        r"casting='safe'.*casting='unsafe'"):
        wt.astype(x, wt.int32, casting="safe")
    with pytest.raises(ValueError, match="casting must be one of"):
        wt.astype(x, wt.int32, casting="sometimes")
    with pytest.raises(TypeError, match="dtype='int33' is not a data type"):
        wt.astype(x, "int33")


# -- methods ----------------------------------------------------------------------------------------

def test_methods_forward_to_the_functions():
    x = wt.reshape(wt.arange(6, dtype=wt.int32), (2, 3))
    assert x.sum(0).tolist() == wt.sum(x, axis=0).tolist() == [3, 5, 7]
    assert x.max(axis=1, keepdims=True).shape == (2, 1)
    assert x.reshape(3, 2).tolist() == x.reshape((3, 2)).tolist() == [[0, 1], [2, 3], [4, 5]]
    assert x.transpose().shape == (3, 2) and x.transpose(1, 0).shape == (3, 2)
    assert x.permute((1, 0)).tolist() == wt.permute_dims(x, (1, 0)).tolist()
    assert x.flip(0).tolist() == [[3, 4, 5], [0, 1, 2]]
    assert x.take([0, 2], 1).tolist() == [[0, 2], [3, 5]]
    assert x.repeat(2, 0).shape == (4, 3)
    assert x.flatten().tolist() == list(range(6)) and x.ravel().shape == (6,)
    assert x.astype(wt.float32).dtype is wt.float32
    assert (x.dot(x.T)).tolist() == wt.matmul(x, x.T).tolist()
    c = wt.asarray([1 + 2j, 3 - 4j], dtype=wt.complex64)
    assert c.real.tolist() == [1.0, 3.0] and c.imag.tolist() == [2.0, -4.0]
    y = x.copy()
    y[0, 0] = 9
    assert x[0, 0].item() == 0


# -- python -m webtensor ------------------------------------------------------------------------------

def test_cli_compares_two_modes(capsys):
    cli_main(["promotion", "all", "safe"])
    out = capsys.readouterr().out
    all_table, safe_table = MODES["all"].table(), MODES["safe"].table()
    differ = sum(all_table[k] != safe_table[k] for k in all_table)
    assert out.startswith(f"{differ} cells differ between 'all' and 'safe'")
    assert "i8 + u8" in out and "safe: error" in out


def test_cli_prints_a_full_table_and_the_tour(capsys):
    cli_main(["promotion", "numpy"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("promotion mode 'numpy'")
    assert len(lines) == 2 + len(MODES["numpy"].types())
    cli_main([])
    out = capsys.readouterr().out
    assert re.search(r"int32 \+ float32 in +'safe': TypePromotionError", out)
    assert re.search(r"int32 \+ float32 in +'numpy': float64", out)
    with pytest.raises(SystemExit):
        cli_main(["promotion", "jax"])


# -- backend selection -----------------------------------------------------------------------------

@pytest.mark.skipif(sys.platform == "emscripten", reason="Pyodide cannot start processes")
def test_bad_cpu_backend_choice_is_a_clear_error():
    env = dict(os.environ, WEBTENSOR_CPU="fortran", WEBTENSOR_DEVICE="cpu")
    proc = subprocess.run([sys.executable, "-c", "import webtensor as wt; wt.asarray([1])"],
                          env=env, capture_output=True, text=True)
    assert proc.returncode != 0
    assert "WEBTENSOR_CPU='fortran' is not understood; use 'numpy' or 'python'" in proc.stderr
