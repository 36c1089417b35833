"""``webtensor.nx``: Elixir's Nx (v0.4) in Python, so Nx code ports line by line.

    import webtensor.nx as nx

    t = nx.tensor([[1, 2], [3, 4]], names=["x", "y"])
    nx.sum(t, axes=["x"])          # Nx.sum(t, axes: [:x])
    print(nx.inspect(t))           # #Nx.Tensor< s64[x: 2][y: 2] ... >

The spelling: Nx's names without ``?`` (``compatible?`` is ``compatible``), shapes as tuples,
keyword options as keyword arguments with Nx's names, atoms as strings (``:high`` is
``"high"``), ``nil`` as None, types as ``"s64"`` or ``("s", 64)``.  Every result is a
``wt.Tensor`` (types merge as Nx merges them: ``wt.promotion_mode("nx")``) that lives on a
webtensor device, so ``nx`` runs on the CPU and on WebGPU alike.  Each function is a
composition of webtensor's core; see ``docs/nx.md`` for the full list and every deviation.
"""

from .. import _validate
from . import (
    _aggregates,
    _backend,
    _conversion,
    _creation,
    _defn,
    _elementwise,
    _indexed,
    _shape,
    _window,
)
from ._inspect import inspect

__all__: list[str] = ["inspect"]
for _module in (_creation, _elementwise, _aggregates, _shape, _indexed, _window, _conversion,
                _backend, _defn):
    for _name in _module.__all__:
        _fn = getattr(_module, _name)
        if _module is not _defn:  # errors raised inside name the nx function called
            _fn = _validate.checked(_fn, "nx." + _name, "nx." + _name)
        globals()[_name] = _fn
    __all__ += _module.__all__
del _module, _name, _fn
