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
    # only the standard's dtypes (float16/bfloat16 are webtensor's extensions), in wt's order
    assert list(info.dtypes().values()) == [dt for dt in wt.all_dtypes
                                            if dt not in (wt.float16, wt.bfloat16)]
    assert set(info.dtypes(kind="real floating").values()) == {wt.float32, wt.float64}
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


_KINDS = ("bool", "signed integer", "unsigned integer", "integral", "real floating",
          "complex floating", "numeric")


@pytest.mark.parametrize("kind", [None, *_KINDS, ("bool", "real floating"),
                                  ("signed integer", "complex floating")], ids=str)
def test_info_dtypes_match_the_reference_implementation(kind):
    xp = _strict()
    expected = list(xp.__array_namespace_info__().dtypes(kind=kind))
    for dev in wt.devices():
        got = wt.__array_namespace_info__().dtypes(device=dev, kind=kind)
        assert sorted(got) == sorted(expected)
        assert all(got[name] is wt.dtype(name) for name in got)


def test_info_dtypes_errors():
    info = wt.__array_namespace_info__()
    with pytest.raises(TypeError, match=r"dtypes: kind must be a kind name or a tuple of them, "
                                        r"got wt.int32"):
        info.dtypes(kind=wt.int32)
    with pytest.raises(ValueError, match=r"dtypes: unknown kind 'integer'"):
        info.dtypes(kind=("bool", "integer"))
    with pytest.raises(ValueError, match=r"unknown device 'tpu'"):
        info.dtypes(device="tpu")


def test_capabilities_max_dimensions_is_the_rank_limit():
    caps = wt.__array_namespace_info__().capabilities()
    assert caps["max dimensions"] == 64
    assert caps == _strict().__array_namespace_info__().capabilities()
    assert wt.ones((1,) * 64).ndim == 64
    with pytest.raises(ValueError, match=r"65 dimensions; webtensor supports at most 64"):
        wt.ones((1,) * 65)


def test_isdtype_has_the_standards_signature_and_answers():
    xp = _strict()
    assert list(inspect.signature(wt.isdtype).parameters) == \
        list(inspect.signature(xp.isdtype).parameters) == ["dtype", "kind"]
    kinds = [*_KINDS, ("bool", "integral"), ("real floating", "complex floating")]
    for name in xp.__array_namespace_info__().dtypes():
        for kind in kinds:
            assert wt.isdtype(dtype=wt.dtype(name), kind=kind) == \
                xp.isdtype(getattr(xp, name), kind), (name, kind)
        for other in ("int8", "float64"):
            assert wt.isdtype(wt.dtype(name), kind=wt.dtype(other)) == (name == other)
