"""``torch.func.hessian``: second derivatives as the forward-mode Jacobian of the reverse-mode
Jacobian."""

from __future__ import annotations

from typing import Any, Callable

from ._levels import Argnums
from .jacfwd import jacfwd
from .jacrev import jacrev


def hessian(func: Callable[..., Any], argnums: Argnums = 0) -> Callable[..., Any]:
    """The Hessian of ``func`` with respect to the argument(s) named by ``argnums``:
    ``jacfwd(jacrev(func, argnums), argnums)``. For a scalar function of an input of shape
    ``I`` the result has shape ``I + I``.

    >>> import ferrotorch as torch
    >>> torch.func.hessian(lambda x: (x ** 3).sum())(torch.tensor([1.0, 2.0]))
    tensor([[ 6.,  0.],
            [ 0., 12.]])
    """
    return jacfwd(jacrev(func, argnums), argnums)
