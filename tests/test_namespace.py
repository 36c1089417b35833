"""webtensor is a complete Array API 2024.12 namespace: every name the standard defines exists.

The list of names comes from array-api-strict (the reference implementation of the standard),
so a function missing here fails the test.
"""

import inspect

import pytest

import webtensor as wt


def _strict():
    return pytest.importorskip("array_api_strict")


def _public(names):
    vendor = {"ArrayAPIStrictFlags", "get_array_api_strict_flags", "set_array_api_strict_flags",
              "reset_array_api_strict_flags", "Device"}
    return sorted(n for n in names if not n.startswith("_") and n not in vendor)


def test_every_main_namespace_name_exists():
    xp = _strict()
    missing = [n for n in _public(xp.__all__) if not hasattr(wt, n)]
    assert missing == []


def test_every_linalg_extension_name_exists():
    xp = _strict()
    missing = [n for n in _public(xp.linalg.__all__) if not hasattr(wt.linalg, n)]
    assert missing == []


def test_version_and_inspection():
    assert wt.__array_api_version__ == "2024.12"
    info = wt.__array_namespace_info__()
    assert set(info.default_dtypes()) == {"real floating", "complex floating", "integral",
                                          "indexing"}
    assert info.default_dtypes()["integral"] is wt.default_int_dtype()
    assert list(info.dtypes().values()) == list(wt.all_dtypes)
    assert set(info.dtypes(kind="real floating").values()) == set(wt.all_float_dtypes)
    assert info.default_device() in info.devices()
    with pytest.raises(ValueError, match="unknown kind 'floats'"):
        info.dtypes(kind="floats")
    x = wt.asarray([1, 2])
    assert x.__array_namespace__() is wt
    with pytest.raises(ValueError, match="api_version"):
        x.__array_namespace__(api_version="1999.01")


def test_functions_have_docstrings():
    xp = _strict()
    undocumented = [n for n in _public(xp.__all__)
                    if inspect.isfunction(getattr(wt, n, None)) and not getattr(wt, n).__doc__]
    assert undocumented == []


def test_constants():
    import math

    assert (wt.e, wt.pi, wt.inf) == (math.e, math.pi, math.inf)
    assert math.isnan(wt.nan) and wt.newaxis is None
