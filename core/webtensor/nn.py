"""``wt.nn``: activation functions and friends with ``jax.nn``'s names, defaults and
numerically stable forms (and gradients: no NaN for large inputs).

Everything is a composition of webtensor functions, so it runs on every device, under
``wt.jit`` (fused into few kernels) and under ``wt.grad``/``wt.vmap``.
"""

from __future__ import annotations

import math

from . import dtypes as _d
from .api import creation as _c
from .api import elementwise as ew
from .api import manipulation as _m
from .api import statistical as _st
from .api._common import as_tensor
from .compile import stop_gradient

__all__ = ["relu", "relu6", "gelu", "silu", "swish", "sigmoid", "log_sigmoid", "softplus",
           "tanh", "softmax", "log_softmax", "logsumexp", "one_hot", "standardize",
           "leaky_relu", "elu"]


def _float(x, fn: str):
    x = as_tensor(x, f"nn.{fn}")
    if x.dtype.kind not in "f":
        from .api._common import float_dtype_for
        from .tensor import cast

        if x.dtype.kind == "c":
            raise TypeError(f"wt.nn.{fn}: not defined for complex tensors ({x.dtype.name})")
        x = cast(x, float_dtype_for(x.dtype))
    return x


def relu(x):
    """``max(x, 0)``; its derivative at 0 is 0 (as in JAX)."""
    x = _float(x, "relu")
    return ew.where(ew.greater(x, 0), x, _c.zeros_like(x))


def relu6(x):
    """``min(max(x, 0), 6)``; derivative 0 at both kinks."""
    x = _float(x, "relu6")
    inside = ew.logical_and(ew.greater(x, 0), ew.less(x, 6))
    return ew.where(inside, x, ew.where(ew.greater_equal(x, 6), _c.full_like(x, 6),
                                        _c.zeros_like(x)))


def leaky_relu(x, negative_slope=1e-2):
    x = _float(x, "leaky_relu")
    return ew.where(ew.greater_equal(x, 0), x, x * negative_slope)


def elu(x, alpha=1.0):
    x = _float(x, "elu")
    safe = ew.where(ew.greater(x, 0), _c.zeros_like(x), x)  # no overflow in the unused side
    return ew.where(ew.greater(x, 0), x, ew.expm1(safe) * alpha)


def sigmoid(x):
    """The logistic function ``1 / (1 + exp(-x))``, exact in both tails."""
    x = _float(x, "sigmoid")
    positive = ew.greater_equal(x, 0)
    # each side only sees arguments where exp cannot overflow (so no inf * 0 in its gradient)
    neg = ew.where(positive, _c.zeros_like(x), x)
    pos = ew.where(positive, x, _c.zeros_like(x))
    e_pos = ew.exp(ew.negative(pos))
    e_neg = ew.exp(neg)
    return ew.where(positive, ew.reciprocal(e_pos + 1), ew.divide(e_neg, e_neg + 1))


def log_sigmoid(x):
    """``log(sigmoid(x)) = -softplus(-x)``."""
    return ew.negative(softplus(ew.negative(_float(x, "log_sigmoid"))))


def softplus(x):
    """``log(1 + exp(x))``, stable for large |x|."""
    x = _float(x, "softplus")
    return ew.logaddexp(x, _c.zeros_like(x))


def silu(x):
    """``x * sigmoid(x)`` (also called swish)."""
    x = _float(x, "silu")
    return x * sigmoid(x)


swish = silu


def gelu(x, approximate: bool = True):
    """The Gaussian error linear unit; ``approximate=True`` (JAX's default) uses the tanh
    form, ``False`` the exact ``x * Phi(x)``."""
    x = _float(x, "gelu")
    if not isinstance(approximate, bool):
        raise TypeError(f"wt.nn.gelu: approximate must be True or False, got {approximate!r}")
    if approximate:
        inner = (x + x * x * x * 0.044715) * math.sqrt(2 / math.pi)
        return x * (ew.tanh(inner) + 1) * 0.5
    erf = _erf()
    return x * (erf(x * (1 / math.sqrt(2))) + 1) * 0.5


def _erf():
    import webtensor

    fn = getattr(webtensor, "erf", None)
    if fn is None:
        raise NotImplementedError("wt.nn.gelu(approximate=False) needs wt.erf, which this build "
                                  "does not have; use approximate=True")
    return fn


tanh = ew.tanh


def _axes(x, axis, fn):
    from .api._common import axes_tuple

    return axes_tuple(x, axis, f"nn.{fn}")


def logsumexp(x, axis=None, keepdims: bool = False, b=None, return_sign: bool = False):
    """``log(sum(b * exp(x)))`` over ``axis``, computed with the maximum factored out (no
    overflow; gradients are softmax weights)."""
    x = _float(x, "logsumexp")
    axes = _axes(x, axis, "logsumexp")
    m = stop_gradient(_st.max(x, axis=axes, keepdims=True)) if x.size else \
        _c.zeros_like(_st.sum(x, axis=axes, keepdims=True))
    m = ew.where(ew.isfinite(m), m, _c.zeros_like(m))
    e = ew.exp(x - m)
    if b is not None:
        e = e * b
    s = _st.sum(e, axis=axes, keepdims=True)
    sign = ew.sign(s)
    out = ew.log(ew.abs(s)) + m
    if not keepdims:
        out = _m.squeeze(out, axis=axes) if axes else out
        sign = _m.squeeze(sign, axis=axes) if axes else sign
    return (out, sign) if return_sign else out


def softmax(x, axis=-1):
    """``exp(x) / sum(exp(x))`` along ``axis``, shifted by the maximum."""
    x = _float(x, "softmax")
    axes = _axes(x, axis, "softmax")
    shifted = x - stop_gradient(_st.max(x, axis=axes, keepdims=True))
    e = ew.exp(shifted)
    return e / _st.sum(e, axis=axes, keepdims=True)


def log_softmax(x, axis=-1):
    """``x - logsumexp(x)`` along ``axis``: finite even for very large logits."""
    x = _float(x, "log_softmax")
    axes = _axes(x, axis, "log_softmax")
    shifted = x - stop_gradient(_st.max(x, axis=axes, keepdims=True))
    return shifted - ew.log(_st.sum(ew.exp(shifted), axis=axes, keepdims=True))


def one_hot(x, num_classes: int, *, dtype=None, axis=-1):
    """A new axis of length ``num_classes`` with 1 where it equals ``x`` (JAX's default dtype:
    the default float)."""
    x = as_tensor(x, "nn.one_hot")
    if isinstance(num_classes, bool) or not isinstance(num_classes, int) or num_classes < 0:
        raise TypeError(f"wt.nn.one_hot: num_classes must be a non-negative int, got "
                        f"{num_classes!r}")
    if x.dtype.kind not in "iub":
        raise TypeError(f"wt.nn.one_hot: x must hold integer class indices, got {x.dtype.name}")
    dtype = _d.default_float_dtype() if dtype is None else _d.dtype(dtype)
    classes = _c.arange(num_classes, dtype=x.dtype if x.dtype.kind != "b" else _d.int32,
                        device=x.device)
    hot = ew.equal(_m.expand_dims(x, axis=-1), classes)
    out = hot.astype(dtype)
    if axis != -1 and axis != out.ndim - 1:
        out = _m.moveaxis(out, -1, axis)
    return out


def standardize(x, axis=-1, mean=None, variance=None, epsilon=1e-5):
    """``(x - mean) / sqrt(variance + epsilon)``, statistics over ``axis`` unless given."""
    x = _float(x, "standardize")
    axes = _axes(x, axis, "standardize")
    if mean is None:
        mean = _st.mean(x, axis=axes, keepdims=True)
    if variance is None:
        variance = _st.mean(ew.square(x - mean), axis=axes, keepdims=True)
    return (x - mean) / ew.sqrt(variance + epsilon)
