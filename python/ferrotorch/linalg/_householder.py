"""``householder_product``: the Q of a QR factorization stored as Householder reflectors
(LAPACK's orgqr), applied one reflector at a time with differentiable tensor ops."""

from __future__ import annotations

from .. import _core
from .._core import Tensor
from ._norms import _check_float, _type_name


def householder_product(A: Tensor, tau: Tensor) -> Tensor:
    """The first n columns of ``H_1 H_2 ... H_k`` with ``H_i = I - tau_i v_i v_i^H``, where
    v_i is column i of A below the diagonal with a 1 on it (A is ``[..., m, n]``, m >= n,
    tau is ``[..., k]``, k <= n).

    >>> import ferrotorch as torch
    >>> torch.linalg.householder_product(torch.zeros(3, 2), torch.zeros(2))
    tensor([[1., 0.],
            [0., 1.],
            [0., 0.]])
    """
    op = "torch.linalg.householder_product"
    if A.ndim < 2:
        raise RuntimeError(f"{op}: input must have at least 2 dimensions.")
    _check_float("linalg.householder_product", A)
    m, n = A.shape[-2], A.shape[-1]
    if m < n:
        raise RuntimeError(f"{op}: input.shape[-2] must be greater than or equal to input.shape[-1]")
    if tau.ndim and n < tau.shape[-1]:
        raise RuntimeError(f"{op}: input.shape[-1] must be greater than or equal to tau.shape[-1]")
    if tau.ndim != A.ndim - 1 or tuple(tau.shape[:-1]) != tuple(A.shape[:-2]):
        raise RuntimeError(f"{op}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got {list(tau.shape[:-1])}")
    if tau.dtype != A.dtype:
        raise RuntimeError(f"{op}: tau dtype {_type_name(tau.dtype)} does not match input dtype {_type_name(A.dtype)}")
    k = tau.shape[-1]
    batch = tuple(A.shape[:-2])
    # Reflector i is column i with zeros above the diagonal and a one on it.
    below = _core.ones(m, n, dtype=A.dtype).tril(-1)
    V = A * below + _core.eye(m, n, dtype=A.dtype)
    Q = _core.eye(m, n, dtype=A.dtype).expand(*batch, m, n)
    # Q = H_1 (H_2 (... (H_k I))): apply the last reflector first.
    for i in reversed(range(k)):
        v = V[..., :, i : i + 1]
        t = tau[..., i : i + 1].unsqueeze(-1)
        Q = Q - (v * t) @ (v.mH @ Q)
    return Q
