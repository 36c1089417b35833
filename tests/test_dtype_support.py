"""Ivy's data-type API (``webtensor.dtype_support``, seed 002) on every device.

* Valid dtypes per device agree with what the device reports (``wt.device_info``) and with
  what the device really computes; ``wt.valid_dtypes``... follow the default device.
* ``wt.function_supported_dtypes`` is checked against behaviour: every public function is
  called with inputs of every dtype, and it refuses (TypeError naming it and the dtype)
  exactly the dtypes it says it does not support.
* The decorators, the casting modes (Ivy's examples: ``expm1`` with float16, ``lcm`` with
  floats), the promotion helpers and precise mode, and the default dtypes of creation
  functions.
"""

from __future__ import annotations

import inspect
import math

import pytest

import test_bad_arguments as _bad
import webtensor as wt
from _oracle import DEVICES

CATEGORIES = {"valid": wt.all_dtypes, "numeric": wt.all_numeric_dtypes,
              "int": wt.all_int_dtypes, "float": wt.all_float_dtypes,
              "uint": wt.all_uint_dtypes, "complex": wt.all_complex_dtypes}



# -- valid dtypes per device --------------------------------------------------------------------

@pytest.mark.parametrize("kind", list(CATEGORIES))
def test_valid_dtypes_follow_the_device_report(dev, kind):
    report = wt.device_info(dev)["dtypes"]
    assert set(report) == {dt.name for dt in wt.all_dtypes}
    valid = wt.valid_dtypes_for(dev, kind)
    assert valid == tuple(dt for dt in CATEGORIES[kind] if report[dt.name] in ("native", "cpu"))
    assert wt.invalid_dtypes_for(dev, kind) == tuple(dt for dt in CATEGORIES[kind]
                                                     if dt not in valid)
    native = wt.valid_dtypes_for(dev, kind, native=True)
    assert native == tuple(dt for dt in CATEGORIES[kind] if report[dt.name] == "native")
    assert wt.invalid_dtypes_for(dev, kind, native=True) == tuple(
        dt for dt in CATEGORIES[kind] if dt not in native)


def test_every_valid_dtype_really_computes(dev):
    for dt in wt.valid_dtypes_for(dev):
        x = wt.asarray([1, 0, 1], dtype=dt, device=dev)
        assert (x == x).tolist() == [True, True, True]
        assert wt.astype(x + x if dt is not wt.bool else x, wt.int64).tolist() == (
            [2, 0, 2] if dt is not wt.bool else [1, 0, 1])


def test_webgpu_routes_float64_and_complex128():
    if "webgpu" not in DEVICES:
        pytest.skip("no WebGPU adapter here")
    gpu = DEVICES["webgpu"]
    assert wt.valid_dtypes_for(gpu) == wt.all_dtypes  # routed dtypes are valid
    assert wt.invalid_dtypes_for(gpu, "float", native=True) == (wt.float64,)
    assert wt.invalid_dtypes_for(gpu, "complex", native=True) == (wt.complex128,)


@pytest.mark.parametrize("name", ["valid_dtypes", "valid_numeric_dtypes", "valid_int_dtypes",
                                  "valid_float_dtypes", "valid_uint_dtypes",
                                  "valid_complex_dtypes", "invalid_dtypes",
                                  "invalid_numeric_dtypes", "invalid_int_dtypes",
                                  "invalid_float_dtypes", "invalid_uint_dtypes",
                                  "invalid_complex_dtypes"])
def test_module_tuples_are_for_the_default_device(dev, name):
    valid = name.startswith("valid")
    kind = name.split("_")[1] if name.count("_") == 2 else "valid"
    fn = wt.valid_dtypes_for if valid else wt.invalid_dtypes_for
    with wt.set_default_device(dev):
        assert getattr(wt, name) == fn(dev, kind)
    assert getattr(wt, name) == fn(None, kind)
    assert name in dir(wt)


def test_valid_dtypes_errors():
    with pytest.raises(ValueError, match=r"wt.valid_dtypes_for: kind='floats' is not a dtype "
                                         r"category; use one of 'valid', 'numeric'"):
        wt.valid_dtypes_for("cpu", "floats")
    with pytest.raises(TypeError, match=r"wt.invalid_dtypes_for: kind=3 is not a dtype"):
        wt.invalid_dtypes_for("cpu", 3)
    with pytest.raises(ValueError, match=r"wt.valid_dtypes_for: unknown device 'tpu'"):
        wt.valid_dtypes_for("tpu")
    with pytest.raises(AttributeError, match=r"no attribute 'valid_dtype'"):
        wt.valid_dtype  # noqa: B018


# -- native dtypes ---------------------------------------------------------------------------------

def test_native_dtypes(dev):
    for dt in wt.all_dtypes:
        native = wt.as_native_dtype(dt, device=dev)
        assert wt.native_dtype(wt.zeros(2, dtype=dt, device=dev)) == native
        if dev.backend.name != "numpy":
            assert native is dt  # backends without dtype objects of their own
            continue
        np = pytest.importorskip("numpy")
        if dt is wt.bfloat16:
            ml_dtypes = pytest.importorskip("ml_dtypes")
            assert native == np.dtype(ml_dtypes.bfloat16)
        else:
            assert native == np.dtype(dt.name)
        assert wt.dtype(native) is dt  # and back
    assert wt.as_native_dtype("f32", device=dev) == wt.as_native_dtype(wt.float32, device=dev)


def test_native_dtype_errors():
    with pytest.raises(TypeError, match=r"wt.native_dtype: expected a tensor, got DType; for a "
                                        r"dtype use wt.as_native_dtype"):
        wt.native_dtype(wt.float32)
    with pytest.raises(TypeError, match=r"wt.as_native_dtype: cannot interpret 'float99'"):
        wt.as_native_dtype("float99")


# -- what every public function supports, checked against what it does -----------------------------

_INDEX_PARAMS = {"indices", "sorter"}  # integer-only arguments that are not the data


def _cases():
    for name, fn in _bad.FUNCTIONS:
        if not name.startswith("tf."):
            yield name, fn


CASES = list(_cases())


def _with_dtype(v, dt):
    if isinstance(v, wt.Tensor):
        return wt.astype(v, dt)
    if isinstance(v, list) and v and all(isinstance(e, wt.Tensor) for e in v):
        return [wt.astype(e, dt) for e in v]
    return v


def _extra_call(name, dev, dt):
    """Calls for the functions the bad-argument table cannot build."""
    x = wt.astype(wt.asarray([[2.0, 1.0], [1.0, 3.0]], device=dev), dt)
    k = wt.random.key(0)
    made = {"dtype": dt}
    table = {
        "full_like": ([x, 1], {}), "einsum": (["ij->ji", x], {}),
        "permute_dims": ([x, (1, 0)], {}), "roll": ([x, 1], {}),
        "tile": ([x, (2, 1)], {}), "repeat": ([x, 2], {}), "split": ([x, 2], {}),
        "array_split": ([x, 2], {}), "pad": ([x, 1], {}), "rename": ([x, ("a", "b")], {}),
        "quantile": ([x, 0.5], {}), "percentile": ([x, 50.0], {}),
        "linalg.matrix_power": ([x, 2], {}),
        "fft.fftfreq": ([4], made), "fft.rfftfreq": ([4], made),
        "random.randint": ([k, (2,), 0, 2], made), "random.integers": ([2], made),
        "random.permutation": ([k, x], {}), "random.shuffle": ([k, x], {}),
        "random.choice": ([k, x], {}), "random.bernoulli": ([k, x], {}),
    }
    return table.get(name)


# functions with no dtype-carrying input or output: they support every dtype vacuously
_NO_DTYPE = {"broadcast_shapes", "from_dlpack", "frombuffer", "random.key", "random.PRNGKey",
             "random.key_data", "random.wrap_key_data", "random.split", "random.fold_in",
             "random.seed", "random.next_key"}


def _calls(name, fn, dev):
    """For each dtype: (args, kwargs) of a call whose data (or made values) have that dtype."""
    if _extra_call(name, dev, wt.float32) is not None:
        return {dt: _extra_call(name, dev, dt) for dt in wt.all_dtypes}
    parts = _bad._call_parts(fn, name, dev)
    if parts is None:
        return None
    _, args, kwargs = parts
    params = [p.name for p in inspect.signature(fn).parameters.values()]
    makes = not name.startswith("random.") and any(
        isinstance(v, (wt.Tensor, list)) for v in (*args, *kwargs.values()))
    out = {}
    for dt in wt.all_dtypes:
        if not makes and "dtype" in params:  # creation and random functions: their dtype
            out[dt] = (list(args), {**kwargs, "dtype": dt})
        elif makes:
            a = [v if i < len(params) and params[i] in _INDEX_PARAMS else _with_dtype(v, dt)
                 for i, v in enumerate(args)]
            k = {key: v if key in _INDEX_PARAMS else _with_dtype(v, dt)
                 for key, v in kwargs.items()}
            out[dt] = (a, k)
        else:
            return None
    return out


@pytest.mark.parametrize("name,fn", CASES, ids=[n for n, _ in CASES])
def test_function_supported_dtypes_match_behaviour(name, fn):
    dev = wt.device.cpu
    supported = wt.function_supported_dtypes(fn, device=dev)
    assert wt.function_supported_dtypes(name, device=dev) == supported
    assert wt.function_unsupported_dtypes(fn, device=dev) == tuple(
        dt for dt in wt.all_dtypes if dt not in supported)
    calls = _calls(name, fn, dev)
    if calls is None:
        assert name in _NO_DTYPE, f"{name}: give it a call in _extra_call"
        assert supported == wt.all_dtypes
        return
    for dt, (args, kwargs) in calls.items():
        try:
            fn(*args, **kwargs)
        except TypeError as e:
            assert dt not in supported, f"{name} refused {dt.name}, which it says it supports"
            assert dt.name in str(e) and f"wt.{name}" in str(e), str(e)
        except (ValueError, ArithmeticError):
            assert dt in supported  # a value problem (a singular bool matrix): accepted
        else:
            assert dt in supported, f"{name} accepted {dt.name}, which it says it refuses"


def test_function_supported_dtypes_of_known_functions(dev):
    assert wt.function_supported_dtypes(wt.floor, device=dev) == tuple(
        dt for dt in wt.all_dtypes if dt.kind in "iuf")
    assert wt.function_supported_dtypes("gcd", device=dev) == wt.all_int_dtypes
    assert wt.function_supported_dtypes(wt.fft.rfft, device=dev) == tuple(
        dt for dt in wt.all_dtypes if dt.kind != "c")
    assert wt.function_supported_dtypes("random.normal", device=dev) == wt.all_float_dtypes
    assert wt.function_supported_dtypes(wt.reshape, device=dev) == wt.all_dtypes
    # the undecorated API function is the same function as the public one
    from webtensor.api import elementwise

    assert wt.function_supported_dtypes(elementwise.lcm) == wt.all_int_dtypes


def test_function_supported_dtypes_errors():
    with pytest.raises(TypeError, match=r"wt.function_supported_dtypes: .*print.* is neither one "
                                        r"of webtensor's own functions .* decorate it with "
                                        r"wt.with_supported_dtypes"):
        wt.function_supported_dtypes(print)
    with pytest.raises(ValueError, match=r"'linalg.nope' is not a public webtensor function"):
        wt.function_supported_dtypes("linalg.nope")
    with pytest.raises(TypeError, match=r"expected a function or a function name, got int"):
        wt.function_unsupported_dtypes(3)


def test_refusals_name_function_dtype_and_device(dev):
    x = wt.asarray([1.5], device=dev)
    with pytest.raises(TypeError, match=r"wt.gcd: not supported for float32 on any device; it "
                                        r"accepts signed integer, unsigned integer dtypes"):
        wt.gcd(x, x)
    with pytest.raises(TypeError, match=r"wt.max: not supported for complex64 on any device"):
        wt.max(wt.asarray([1j], device=dev))


# -- the decorators --------------------------------------------------------------------------------

def test_with_unsupported_dtypes(dev):
    @wt.with_unsupported_dtypes({"cpu": ("float16", "complex"), "webgpu": ("unsigned",)})
    def expm1(x):
        return wt.expm1(x)

    on_cpu = dev.name == "cpu"
    refused = ({wt.float16, wt.complex64, wt.complex128} if on_cpu else set(wt.all_uint_dtypes))
    # a function of your own: its declaration is all there is (its body is not analysed)
    assert set(wt.function_unsupported_dtypes(expm1, device=dev)) == refused
    assert wt.function_supported_dtypes(expm1, device=dev) == tuple(
        dt for dt in wt.all_dtypes if dt not in refused)
    # declaring on a webtensor function narrows what that function supports (no bool)
    narrowed = wt.with_unsupported_dtypes({"cpu": ("float16", "complex"),
                                           "webgpu": ("unsigned",)})(wt.expm1)
    assert set(wt.function_unsupported_dtypes(narrowed, device=dev)) == refused | {wt.bool}
    assert expm1.__name__ == "expm1" and expm1.__wrapped__.__name__ == "expm1"
    bad = wt.float16 if on_cpu else wt.uint8
    x = wt.asarray([1, 2], dtype=bad, device=dev)
    with pytest.raises(TypeError, match=rf"expm1: {bad.name} is not supported on the {dev.name} "
                                        rf"device \(supported there: .*\); cast the input with "
                                        rf"wt.astype, or let webtensor cast it"):
        expm1(x)
    y = wt.asarray([0.5], dtype=wt.float32, device=dev)
    assert math.isclose(expm1(y).item(), math.expm1(0.5), rel_tol=1e-6)


def test_with_supported_dtypes_and_classes(dev):
    @wt.with_supported_dtypes({"cpu": ("float", "int8"), "webgpu": ("float32",)})
    def double(x, scale=2):
        return x * scale

    expected = ({*wt.all_float_dtypes, wt.int8} if dev.name == "cpu" else {wt.float32})
    assert set(wt.function_supported_dtypes(double, device=dev)) == expected
    ok = next(iter(sorted(expected, key=wt.all_dtypes.index)))
    assert double(wt.ones(2, dtype=ok, device=dev)).tolist() == [2, 2]
    with pytest.raises(TypeError, match=r"double: int32 is not supported on the"):
        double(wt.ones(2, dtype=wt.int32, device=dev))
    # tensors inside lists and keyword arguments are checked too
    with pytest.raises(TypeError, match=r"is not supported"):
        double(x=wt.ones(2, dtype=wt.uint16, device=dev))

    @wt.with_supported_dtypes({"cpu": ("valid",)})
    def stack(xs):
        return wt.stack(xs)

    assert stack([wt.ones(1, device=dev)] * 2).shape == (2, 1)
    assert wt.function_supported_dtypes(stack, device=dev) == wt.all_dtypes


@pytest.mark.parametrize("cls,dtypes", [
    ("valid", wt.all_dtypes), ("numeric", wt.all_numeric_dtypes), ("float", wt.all_float_dtypes),
    ("integer", wt.all_int_dtypes), ("unsigned", wt.all_uint_dtypes),
    ("complex", wt.all_complex_dtypes)])
def test_declaration_classes(cls, dtypes):
    @wt.with_supported_dtypes({"cpu": (cls,)})
    def f(x):
        return x

    assert wt.function_supported_dtypes(f, device="cpu") == dtypes

    @wt.with_unsupported_dtypes({"cpu": (cls, "bool")})
    def g(x):
        return x

    assert set(wt.function_unsupported_dtypes(g, device="cpu")) == {*dtypes, wt.bool}


def test_stacked_declarations_intersect():
    @wt.with_unsupported_dtypes({"cpu": ("float64",)})
    @wt.with_supported_dtypes({"cpu": ("float",)})
    def f(x):
        return x

    assert wt.function_supported_dtypes(f, device="cpu") == (wt.float16, wt.bfloat16,
                                                              wt.float32)


def test_declaration_errors():
    with pytest.raises(ValueError, match=r"wt.with_supported_dtypes: unknown device 'gpu'; use "
                                         r"'cpu', 'webgpu'"):
        wt.with_supported_dtypes({"gpu": ("float32",)})
    with pytest.raises(TypeError, match=r"wt.with_unsupported_dtypes: 'floats' \(for 'cpu'\) is "
                                        r"neither a dtype nor a dtype class"):
        wt.with_unsupported_dtypes({"cpu": ("floats",)})
    with pytest.raises(TypeError, match=r"wt.with_supported_dtypes: expected a dict from device "
                                        r"name to dtypes"):
        wt.with_supported_dtypes(("float32",))
    with pytest.raises(TypeError, match=r"the dtypes of 'cpu' must be a tuple"):
        wt.with_supported_dtypes({"cpu": 3})
    with pytest.raises(TypeError, match=r"decorates a function, got int"):
        wt.with_supported_dtypes({"cpu": ("float32",)})(3)


# -- casting modes (the seed's examples) ----------------------------------------------------------

def _expm1_without_float16():
    @wt.with_unsupported_dtypes({"cpu": ("float16", "complex"),
                                 "webgpu": ("float16", "complex")})
    def expm1(x):
        return wt.expm1(x)
    return expm1


@pytest.mark.parametrize("mode,expected", [("upcast", wt.float32), ("downcast", None),
                                           ("cast", wt.float32)])
def test_casting_modes_with_expm1_float16(dev, mode, expected):
    expm1 = _expm1_without_float16()
    x = wt.asarray([1.0], dtype=wt.float16, device=dev)
    with pytest.raises(TypeError, match="float16 is not supported"):
        expm1(x)
    with wt.casting_mode(mode):
        if expected is None:  # no narrower float dtype than float16: the usual error
            with pytest.raises(TypeError, match="float16 is not supported"):
                expm1(x)
            return
        got = expm1(x)
    assert got.dtype is expected  # computed in the cast dtype, not cast back
    assert math.isclose(got.item(), math.expm1(1.0), rel_tol=1e-6)
    with pytest.raises(TypeError, match="float16 is not supported"):  # the block ended
        expm1(x)


def test_ivy_switches_are_process_wide(dev):
    """The seed's sequence: expm1(float16) raises, ivy.upcast_data_types(), then it runs."""
    expm1 = _expm1_without_float16()
    x = wt.asarray([0.5], dtype=wt.float16, device=dev)
    with pytest.raises(TypeError, match="float16 is not supported"):
        expm1(x)
    try:
        wt.upcast_data_types()
        assert expm1(x).dtype is wt.float32
        wt.upcast_data_types(val=False)
        with pytest.raises(TypeError, match="float16 is not supported"):
            expm1(x)
        wt.cast_data_types()
        assert expm1(x).dtype is wt.float32
    finally:
        wt.casting_mode(None)


def test_downcast_and_upcast_pick_the_nearest_supported(dev):
    @wt.with_supported_dtypes({"cpu": ("int16", "int64", "bfloat16", "float32"),
                               "webgpu": ("int16", "int64", "bfloat16", "float32")})
    def ident(x):
        return x

    cases = {"upcast": {wt.int8: wt.int16, wt.int32: wt.int64, wt.float16: wt.float32},
             "downcast": {wt.int32: wt.int16, wt.float64: wt.float32, wt.float16: None}}
    for mode, table in cases.items():
        with wt.casting_mode(mode):
            for src, dst in table.items():
                x = wt.asarray([3], dtype=src, device=dev)
                if dst is None:
                    with pytest.raises(TypeError):
                        ident(x)
                else:
                    assert ident(x).dtype is dst and ident(x).tolist() == [3]
    # nothing wider in the group: no cast
    with wt.casting_mode("upcast"), pytest.raises(TypeError, match="float64 is not supported"):
        ident(wt.asarray([1.0], dtype=wt.float64, device=dev))


def test_crosscast_lcm_with_floats(dev):
    """The seed's example: lcm supports no float dtype; crosscasting sends floats to the default
    integer dtype."""
    x = wt.asarray([4.0, 6.0], dtype=wt.float16, device=dev)
    y = wt.asarray([6.0, 4.0], dtype=wt.float16, device=dev)
    with pytest.raises(TypeError, match=r"wt.lcm: not supported for float16"):
        wt.lcm(x, y)
    with wt.casting_mode("crosscast"):
        got = wt.lcm(x, y)
        assert got.dtype is wt.int32 and got.tolist() == [12, 12]
        with wt.set_default_int_dtype("int64"):
            assert wt.lcm(x, y).dtype is wt.int64
        # supported dtypes are never cast
        assert wt.max(wt.asarray([1, 5], dtype=wt.int8, device=dev)).dtype is wt.int8
        assert wt.gcd(wt.asarray([4], dtype=wt.uint8, device=dev), 6).dtype is wt.uint8
    # upcasting cannot help: still refused
    with wt.casting_mode("upcast"), pytest.raises(TypeError, match=r"wt.lcm: not supported"):
        wt.lcm(x, y)


def test_crosscast_integers_to_float_for_a_float_only_function(dev):
    @wt.with_supported_dtypes({"cpu": ("float",), "webgpu": ("float",)})
    def half(x):
        return x / 2

    x = wt.asarray([3], dtype=wt.int16, device=dev)
    with pytest.raises(TypeError, match="int16 is not supported"):
        half(x)
    with wt.casting_mode("crosscast"):
        assert half(x).dtype is wt.float32 and half(x).tolist() == [1.5]
        with wt.set_default_float_dtype("float64"):
            assert half(x).dtype is wt.float64


def test_casting_mode_switches_and_errors():
    assert wt.get_casting_mode() == ()
    with wt.casting_mode("cast"):
        assert wt.get_casting_mode() == ("crosscast", "upcast", "downcast")
    with wt.casting_mode(("downcast", "upcast")):
        assert wt.get_casting_mode() == ("upcast", "downcast")
    assert wt.get_casting_mode() == ()
    try:
        wt.upcast_data_types()
        assert wt.get_casting_mode() == ("upcast",)
        wt.crosscast_data_types(True)
        assert wt.get_casting_mode() == ("crosscast", "upcast")
        wt.upcast_data_types(val=False)
        assert wt.get_casting_mode() == ("crosscast",)
        wt.cast_data_types()
        assert wt.get_casting_mode() == ("crosscast", "upcast", "downcast")
        wt.downcast_data_types(False)
        assert wt.get_casting_mode() == ("crosscast", "upcast")
    finally:
        wt.casting_mode(None)
    assert wt.get_casting_mode() == ()
    with pytest.raises(ValueError, match=r"wt.casting_mode: unknown casting mode 'up'; use one "
                                         r"of 'upcast', 'downcast', 'crosscast', 'cast'"):
        wt.casting_mode("up")
    with pytest.raises(TypeError, match=r"wt.casting_mode: mode must be one of"):
        wt.casting_mode(3)
    with pytest.raises(TypeError, match=r"wt.upcast_data_types: val must be True or False"):
        wt.upcast_data_types("yes")


# -- promotion helpers and precise mode ------------------------------------------------------------

@pytest.mark.parametrize("mode", ["standard", "numpy", "all"])
def test_promote_types_of_inputs(dev, mode):
    pairs = [(wt.asarray([1, 2], dtype=wt.int8, device=dev), 2.5),
             (wt.asarray([1], dtype=wt.uint8, device=dev), wt.asarray([1], dtype=wt.int8,
                                                                       device=dev)),
             (3, wt.asarray([1.5], dtype=wt.float16, device=dev))]
    with wt.promotion_mode(mode):
        for a, b in pairs:
            x, y = wt.promote_types_of_inputs(a, b)
            expected = wt.result_type(a, b)
            assert x.dtype is y.dtype is expected
            assert x.device is y.device is dev
            assert (x + y).dtype is wt.add(a, b).dtype
            assert x.weak == y.weak == wt.result_type(a, b, return_weak_type_flag=True)[1]
        u, v = wt.type_promote_arrays(pairs[1][0], pairs[1][1])
        assert u.dtype is v.dtype is wt.promote_types(wt.uint8, wt.int8)
        assert u.tolist() == [1] and not u.weak


def test_promote_types_of_inputs_hands_out_tensors_the_caller_owns(dev):
    # A promoted Python scalar is a new tensor, not the cache entry that ``x * 2.5`` reuses:
    # writing into it must not change what 2.5 means to later operations.
    x = wt.asarray([1.0, 2.0], dtype=wt.float32, device=dev)
    assert (x * 2.5).tolist() == [2.5, 5.0]
    _, y = wt.promote_types_of_inputs(x, 2.5)
    y[...] = 7.0
    assert y.tolist() == 7.0
    assert (x * 2.5).tolist() == [2.5, 5.0]


def test_precise_mode_is_the_numpy_promotion_mode():
    # the seed's example: float32 with int32
    with wt.precise_mode(True):
        assert wt.get_promotion_mode() == "numpy"
        assert wt.promote_types("float32", "int32") is wt.float64
    with wt.precise_mode(False):
        assert wt.promote_types("float32", "int32") is wt.float32
    with pytest.raises(TypeError, match=r"wt.precise_mode: expected True or False"):
        wt.precise_mode("yes")


# -- the default dtypes govern creation functions --------------------------------------------------

def test_set_default_dtype_governs_creation(dev):
    with wt.set_default_dtype("int32"):
        for fn in (wt.zeros, wt.ones, wt.empty):
            assert fn(2, device=dev).dtype is wt.int32
        assert wt.eye(2, device=dev).dtype is wt.int32
        assert wt.eye(2, device=dev).tolist() == [[1, 0], [0, 1]]
        assert wt.asarray([], device=dev).dtype is wt.int32
        # a relevant scalar still decides (Ivy's rule): full(1.5) is the float default
        assert wt.full(2, 1.5, device=dev).dtype is wt.float32
        assert wt.full(2, True, device=dev).dtype is wt.bool
        assert wt.default_dtype() is wt.int32
    assert wt.zeros(2, device=dev).dtype is wt.float32
    with wt.set_default_dtype("float16"):
        assert wt.ones((2, 2), device=dev).dtype is wt.float16


def test_default_int_and_float_dtypes_govern_creation(dev):
    with wt.set_default_int_dtype("int64"):
        assert wt.arange(3, device=dev).dtype is wt.int64
        assert wt.full(2, 7, device=dev).dtype is wt.int64
        assert wt.asarray([1, 2], device=dev).dtype is wt.int64
    with wt.set_default_float_dtype("float64"):
        for fn in (wt.zeros, wt.ones, wt.empty):
            assert fn(2, device=dev).dtype is wt.float64
        assert wt.linspace(0, 1, 3, device=dev).dtype is wt.float64
        assert wt.arange(0.5, 2, device=dev).dtype is wt.float64
        assert wt.full(1, 0.5, device=dev).dtype is wt.float64
    wt.set_default_dtype("uint8")  # process-wide (the test fixture restores it)
    assert wt.zeros(1, device=dev).dtype is wt.uint8
    wt.set_default_dtype(None)
    assert wt.zeros(1, device=dev).dtype is wt.float32
