"""``webtensor.symbolic``: PyTensor-style symbolic tensors, compiled functions and gradients.

``import webtensor.symbolic as at`` gives the names of ``pytensor.tensor`` (types and their
constructors, math, shapes, indexing), plus ``function``, ``grad`` and ``shared`` as
``pytensor.function``, ``pytensor.grad`` and ``pytensor.shared``, and ``pp``/``debugprint``.
A graph is built from :class:`TensorVariable` s; ``function`` compiles it through ``wt.jit``
(one traced program per device and argument shapes, fused on WebGPU) and ``grad`` through
webtensor's reverse-mode autodiff.  See docs/symbolic.md.
"""

from __future__ import annotations

from . import (
    basic,
    elemwise,
    extra_ops,
    gradient,
    math,
    printing,
    subtensor,
    type,
    variable,
)
from . import (
    function as _function_module,
)
from . import (
    shape as _shape_module,
)
from .basic import (
    NotScalarConstantError,
    alloc,
    arange,
    as_tensor,
    as_tensor_variable,
    cast,
    concatenate,
    constant,
    expand_dims,
    eye,
    fill,
    flatten,
    get_scalar_constant_value,
    identity_like,
    join,
    mgrid,
    ogrid,
    ones,
    ones_like,
    second,
    shape_padaxis,
    shape_padleft,
    shape_padright,
    squeeze,
    stack,
    stacklists,
    swapaxes,
    tensor_copy,
    transpose,
    zeros,
    zeros_like,
)
from .config import config
from .elemwise import DimShuffle, Elemwise
from .extra_ops import (
    argsort,
    choose,
    compress,
    cumprod,
    cumsum,
    diagonal,
    flatnonzero,
    nonzero,
    nonzero_values,
    repeat,
    roll,
    sort,
    tile,
    trace,
)
from .function import Function, MissingInputError, UnusedInputError, function, shared
from .gradient import DisconnectedInputError, grad
from .graph import Apply, Op, Variable
from .math import *  # noqa: F403 - the elementwise, reduction and product functions
from .math import __all__ as _math_all
from .printing import debugprint, dprint, pp
from .shape import reshape, shape, specify_shape
from .subtensor import inc_subtensor, set_subtensor, take
from .type import CONSTRUCTORS, TensorType, tensor
from .variable import TensorConstant, TensorSharedVariable, TensorVariable, _tensor_py_operators

globals().update(CONSTRUCTORS)

__all__ = sorted(
    ["Apply", "DimShuffle", "DisconnectedInputError", "Elemwise", "Function",
     "MissingInputError", "NotScalarConstantError", "Op", "TensorConstant",
     "TensorSharedVariable", "TensorType", "TensorVariable", "UnusedInputError", "Variable",
     "_tensor_py_operators", "alloc", "arange", "argsort", "as_tensor", "as_tensor_variable",
     "cast", "choose", "compress", "concatenate", "config", "constant", "cumprod", "cumsum",
     "debugprint", "diagonal", "dprint", "expand_dims", "eye", "fill", "flatnonzero",
     "flatten", "function", "get_scalar_constant_value", "grad", "identity_like",
     "inc_subtensor", "join", "mgrid", "nonzero", "nonzero_values", "ogrid", "ones",
     "ones_like", "pp", "repeat", "reshape", "roll", "second", "set_subtensor", "shape",
     "shape_padaxis", "shape_padleft", "shape_padright", "shared", "sort", "specify_shape",
     "squeeze", "stack", "stacklists", "swapaxes", "take", "tensor", "tensor_copy", "tile",
     "trace", "transpose", "zeros", "zeros_like", *_math_all, *CONSTRUCTORS])

del _function_module, _shape_module
