"""``ferrotorch.func``: composable function transforms, as ``torch.func``.

``grad``, ``grad_and_value``, ``vjp``, ``jvp``, ``jacrev``, ``jacfwd`` and ``hessian`` are
built on the reverse-mode tape (forward mode by differentiating twice); ``vmap`` runs the
function once per sample and stacks the results. They compose: ``vmap(grad(f))`` gives
per-sample gradients, ``jacrev(jacrev(f))`` second derivatives. ``functional_call`` turns a
module into a function of its parameters.
"""

from .batch_norm_replacement import replace_all_batch_norm_modules_
from .functional_call import functional_call
from .functionalize import debug_unwrap, functionalize
from .grad import grad, grad_and_value
from .hessian import hessian
from .jacfwd import jacfwd
from .jacrev import jacrev
from .jvp import jvp
from .linearize import linearize
from .rearrange import rearrange
from .stack_module_state import stack_module_state
from .vjp import vjp
from .vmap import vmap

__all__ = [
    "debug_unwrap",
    "functional_call",
    "functionalize",
    "grad",
    "grad_and_value",
    "hessian",
    "jacfwd",
    "jacrev",
    "jvp",
    "linearize",
    "rearrange",
    "replace_all_batch_norm_modules_",
    "stack_module_state",
    "vjp",
    "vmap",
]
