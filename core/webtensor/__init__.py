"""webtensor: tensors from Python on any GPU, in the browser and natively.

``import webtensor as wt``.  The core (dtypes, promotion, shapes, the tensor API) is pure Python,
so the same wheel runs in CPython and in Pyodide.
"""

import sys as _sys

from . import _methods, _validate, fft, linalg, random
from . import dtype_support as _dtype_support
from . import dtypes as _dtypes
from ._format import get_printoptions, set_printoptions
from ._heatmap import set_show_hook, show, to_heatmap
from ._info import __array_namespace_info__
from .api import creation as _creation
from .api import datatypes as _datatypes
from .api import elementwise as _elementwise
from .api import indexing as _indexing
from .api import linalg as _linalg_api
from .api import manipulation as _manipulation
from .api import searching as _searching
from .api import sets as _sets
from .api import sorting as _sorting
from .api import statistical as _statistical
from .api import utility as _utility
from .device import (
    Device,
    default_device,
    device_info,
    devices,
    init_async,
    memory_stats,
    set_default_device,
    sync,
    sync_async,
)
from .dtypes import (
    DType,
    all_complex_dtypes,
    all_dtypes,
    all_float_dtypes,
    all_int_dtypes,
    all_numeric_dtypes,
    all_signed_int_dtypes,
    all_uint_dtypes,
    bfloat16,
    can_cast,
    complex64,
    complex128,
    default_complex_dtype,
    default_dtype,
    default_float_dtype,
    default_int_dtype,
    dtype,
    finfo,
    float16,
    float32,
    float64,
    iinfo,
    int8,
    int16,
    int32,
    int64,
    isdtype,
    set_default_complex_dtype,
    set_default_dtype,
    set_default_float_dtype,
    set_default_int_dtype,
    uint8,
    uint16,
    uint32,
    uint64,
)
from .precision import get_precision, set_precision
from .promotion import (
    TypePromotionError,
    get_promotion_mode,
    promote_types,
    promotion_mode,
    result_type,
    set_promotion_mode,
)
from .tensor import Tensor

bool = _dtypes.bool  # noqa: A001 - the Array API names the dtype `bool`

# The seeds' short names: wt.i32, wt.u8, wt.bf16, wt.c128 ...
for _dt in all_dtypes:
    globals()[_dt.short] = _dt
del _dt

# Every API module lists its public functions in __all__; they all live at the top level, with
# their shared keyword arguments (keepdims, dtype, copy, device...) checked on the way in.
_wrapped: dict = {}  # function -> its checked wrapper (an alias such as wt.tensor shares it)
for _module in (_creation, _datatypes, _elementwise, _indexing, _linalg_api, _manipulation,
                _searching, _sets, _sorting, _statistical, _utility):
    for _name in _module.__all__:
        _fn = getattr(_module, _name)
        if _fn not in _wrapped:
            _wrapped[_fn] = _validate.checked(_fn, _name)
        globals()[_name] = _wrapped[_fn]
# Ivy's data-type API (dtype_support): valid dtypes per device, support declarations, casting
for _name in _dtype_support.__all__:
    globals()[_name] = _validate.checked(getattr(_dtype_support, _name), _name)
for _module, _prefix in ((linalg, "linalg."), (fft, "fft."), (random, "random.")):
    for _name in _module.__all__:
        _fn = getattr(_module, _name)
        if callable(_fn) and not isinstance(_fn, type):
            setattr(_module, _name, _validate.checked(_fn, _prefix + _name))
del _module, _name, _prefix, _fn, _wrapped

_methods.install()


def __getattr__(name: str):
    # wt.valid_dtypes, wt.invalid_float_dtypes...: Ivy's tuples, for the default device as it
    # is when read
    if name in _dtype_support.DEFAULT_DEVICE_TUPLES:
        return _dtype_support.default_device_tuple(name)
    raise AttributeError(f"module 'webtensor' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_dtype_support.DEFAULT_DEVICE_TUPLES))

__version__ = "0.1.0"
__array_api_version__ = "2024.12"

# Array API constants.
e = 2.718281828459045
pi = 3.141592653589793
inf = float("inf")
nan = float("nan")
newaxis = None

# Programs (tracing, jit, control flow, autodiff) run the API above; wt.tf and wt.nn are built
# from the namespace above: all are imported last.
from . import nn, tf  # noqa: E402
from .compile import (  # noqa: E402
    ConcretizationError,
    cond,
    fori_loop,
    grad,
    hessian,
    jacfwd,
    jacrev,
    jit,
    jvp,
    make_graph,
    scan,
    stop_gradient,
    switch,
    value_and_grad,
    vjp,
    vmap,
    while_loop,
)

# Under Pyodide the wheel carries the browser's WebGPU executor: load it now, so any page that
# installs the wheel has the GPU (the device itself opens on first use, or `await wt.init_async()`).
if _sys.platform == "emscripten":
    from .backends.webgpu import browser as _browser

    _browser.register_executor()
    del _browser
