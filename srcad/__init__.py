"""srcad: automatic differentiation for Python/NumPy by source transformation."""

from .api import check_grad, grad, source, value_and_grad
from .offline import codegen
from .errors import SrcadError
from .modes import hessian, hvp, jacobian, jvp, vjp
from .registry import adjoint, d, nondifferentiable, stop_gradient, tangent
from .version import __version__

__all__ = [
    "__version__",
    "SrcadError",
    "adjoint",
    "check_grad",
    "codegen",
    "d",
    "grad",
    "hessian",
    "hvp",
    "jacobian",
    "jvp",
    "nondifferentiable",
    "source",
    "stop_gradient",
    "tangent",
    "value_and_grad",
    "vjp",
]
