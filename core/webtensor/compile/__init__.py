"""Programs, not just ops: the graph IR, tracing, ``wt.jit`` and control flow.

Layering: this package sits above ``api/`` (it runs user code that calls the API under a trace)
and below the front ends (``wt.nx.defn``, ``wt.symbolic``).  ``_tracing`` (the bottom of the
package order) holds the one switch the lower layers consult.
"""

from .._tracing import ConcretizationError
from . import host as _host  # noqa: F401 - registers the host node's runner and rules
from .ad import grad, hessian, jacfwd, jacrev, stop_gradient, value_and_grad, vjp
from .batching import vmap
from .control import cond, fori_loop, scan, switch, while_loop
from .forward import jvp
from .jit import Jitted, jit, make_graph

__all__ = ["ConcretizationError", "Jitted", "cond", "fori_loop", "grad", "hessian", "jacfwd", "jacrev", "jit", "jvp", "make_graph",
           "scan", "stop_gradient", "switch", "value_and_grad", "vjp", "vmap", "while_loop"]
