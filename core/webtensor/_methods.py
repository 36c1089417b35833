"""NumPy-style methods on Tensor (``x.sum(axis=0)``, ``x.reshape(2, 3)``), as a table.

Each method forwards to the top-level function of the same purpose with ``self`` first.  The
function is looked up at call time, so the table does not depend on import order.
"""

from __future__ import annotations

import webtensor

from . import _dlpack as _dlpack_module
from .tensor import Tensor

# method name -> top-level function name
_FORWARD = {
    "astype": "astype", "sum": "sum", "prod": "prod", "mean": "mean", "var": "var",
    "std": "std", "max": "max", "min": "min", "argmax": "argmax", "argmin": "argmin",
    "any": "any", "all": "all", "cumsum": "cumsum", "cumprod": "cumprod", "clip": "clip",
    "round": "round", "conj": "conj", "sort": "sort", "argsort": "argsort",
    "nonzero": "nonzero", "take": "take", "repeat": "repeat", "diagonal": "diagonal",
    "trace": "trace", "squeeze": "squeeze", "flip": "flip", "swapaxes": "swapaxes",
    "expand_dims": "expand_dims", "broadcast_to": "broadcast_to", "dot": "matmul",
    "rename": "rename", "to_heatmap": "to_heatmap", "show": "show",
}
# Positional method arguments that the function takes by keyword (None: stays positional),
# so NumPy-style calls work: x.flip(0), x.take(idx, 1), x.repeat(2, 0).
_AS_KEYWORDS = {"flip": ("axis",), "take": (None, "axis"), "repeat": (None, "axis")}
# Methods that take a shape or axes either as one tuple or spread out: x.reshape(2, 3).
_SPREAD = {"reshape": "reshape", "transpose": "transpose", "permute": "permute_dims"}


def _forward(fn_name: str):
    keywords = _AS_KEYWORDS.get(fn_name, ())

    def method(self, *args, **kwargs):
        if keywords:
            positional = []
            for i, value in enumerate(args):
                name = keywords[i] if i < len(keywords) else None
                if name is None:
                    positional.append(value)
                else:
                    kwargs[name] = value
            args = positional
        return getattr(webtensor, fn_name)(self, *args, **kwargs)

    method.__name__ = fn_name
    method.__doc__ = f"Same as ``wt.{fn_name}(x, ...)``."
    return method


def _spread(fn_name: str):
    def method(self, *shape, **kwargs):
        if len(shape) == 1 and (isinstance(shape[0], (tuple, list)) or shape[0] is None):
            shape = shape[0]
        if fn_name == "transpose" and shape == ():
            shape = None
        return getattr(webtensor, fn_name)(self, shape, **kwargs)

    method.__name__ = fn_name
    method.__doc__ = f"Same as ``wt.{fn_name}(x, shape_or_axes)``; also accepts them spread out."
    return method


def _flatten(self) -> Tensor:
    """A 1-D copy-or-view of the elements in C order (``reshape(x, (-1,))``)."""
    return webtensor.reshape(self, (-1,))


def _copy(self) -> Tensor:
    """A new tensor with its own buffer (never an alias), on the same device."""
    return webtensor.asarray(self, copy=True)


def _deepcopy(self, memo) -> Tensor:
    memo[id(self)] = out = _copy(self)
    return out


def _to_device(self, device, /, *, stream=None) -> Tensor:
    return webtensor.asarray(self, device=device, copy=None)


def _transpose_2d(self) -> Tensor:
    if self.ndim != 2:
        raise ValueError(f"Tensor.T: expects a 2-D tensor, got {self.ndim}-D shape "
                         f"{self.shape}; use .mT for stacks of matrices or wt.permute_dims")
    return webtensor.permute_dims(self, (1, 0))


def _dlpack(self, *, stream=None, max_version=None, dl_device=None, copy=None):
    """DLPack export (``np.from_dlpack(x)``, ``torch.from_dlpack(x)``...): the memory of a
    tensor on the NumPy cpu backend is shared; other tensors are exported as a copy where
    the consumer allows one (a webgpu tensor only with ``copy=True`` or ``dl_device=(1, 0)``:
    move it with ``x.to_device("cpu")`` first)."""
    return _dlpack_module.export(self, stream=stream, max_version=max_version,
                                 dl_device=dl_device, copy=copy)


def _dlpack_device(self) -> tuple[int, int]:
    """(kDLCPU, 0) for cpu tensors, (kDLWebGPU, 0) for webgpu ones."""
    return _dlpack_module.device_of(self)


def _array_namespace(self, api_version=None):
    if api_version not in (None, "2024.12", "2023.12", "2022.12", "2021.12"):
        raise ValueError(f"Tensor.__array_namespace__: unsupported api_version "
                         f"{api_version!r}; webtensor implements '2024.12'")
    return webtensor


def _repr_html(self) -> str:
    from ._heatmap import repr_html

    return repr_html(self)


def install() -> None:
    for method, fn_name in _FORWARD.items():
        setattr(Tensor, method, _forward(fn_name))
    for method, fn_name in _SPREAD.items():
        setattr(Tensor, method, _spread(fn_name))
    Tensor.flatten = Tensor.ravel = _flatten
    Tensor.copy = Tensor.__copy__ = _copy
    Tensor.__deepcopy__ = _deepcopy
    Tensor.to_device = _to_device
    Tensor.__array_namespace__ = _array_namespace
    Tensor.__dlpack__ = _dlpack
    Tensor.__dlpack_device__ = _dlpack_device
    Tensor.T = property(_transpose_2d, doc="The transpose of a 2-D tensor.")
    Tensor.mT = property(lambda self: webtensor.matrix_transpose(self),
                         doc="The transpose of the last two dims (stacks of matrices).")
    Tensor._repr_html_ = _repr_html  # Jupyter / JupyterLite: an inline PNG heatmap
    Tensor.real = property(lambda self: webtensor.real(self), doc="The real part.")
    Tensor.imag = property(lambda self: webtensor.imag(self), doc="The imaginary part.")
