"""Householder QR in LAPACK's compact form: ``torch.geqrf`` (the factorization: R on and
above the diagonal, the reflectors' vectors below it, and their scales ``tau``),
``torch.orgqr`` (the explicit Q, = ``linalg.householder_product``) and ``torch.ormqr``
(multiplying a matrix by that Q without the caller forming it).

``geqrf`` follows LAPACK's reflector convention (``xLARFG``): for a column x = (alpha, x2),
beta = -sign(Re alpha) * ||x||, tau = (beta - alpha) / beta, v = (1, x2 / (alpha - beta)),
and tau = 0 (no reflection) when x2 = 0 and alpha is real. As in PyTorch it has no gradient."""

from __future__ import annotations

from collections import namedtuple
from typing import Any, Tuple

from . import _core
from ._grad_mode import no_grad

Tensor = _core.Tensor

# torch.return_types.geqrf: (a, tau)
_GeqrfResult = namedtuple("geqrf", ["a", "tau"])
_GeqrfResult.__module__ = "torch.return_types"


def _check_matrix(name: str, t: Any, arg: str = "input") -> None:
    if not isinstance(t, Tensor):
        raise TypeError(f"{name}(): argument '{arg}' (position 1) must be Tensor, not {type(t).__name__}")
    if t.ndim < 2:
        raise RuntimeError(f"torch.{name}: {arg} must have at least 2 dimensions.")
    if not (t.dtype.is_floating_point or t.dtype.is_complex):
        from ._type_info import scalar_type_name

        raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{scalar_type_name(t.dtype)}'")


def geqrf(input: Tensor, *, out: Any = None) -> Any:
    """QR of ``input`` (``(*, m, n)``) as LAPACK's ``geqrf`` stores it: returns ``(a, tau)``."""
    _check_matrix("geqrf", input)
    m, n = input.shape[-2], input.shape[-1]
    k = min(m, n)
    with no_grad():
        a = input.detach().clone().contiguous()
        taus = []
        complex_ = a.dtype.is_complex
        for j in range(k):
            x = a[..., j:, j]  # (*, m - j)
            alpha = x[..., 0]
            tail = x[..., 1:]
            xnorm = tail.abs().pow(2).sum(-1) if tail.shape[-1] else _core.zeros_like(alpha.abs())
            re = alpha.real if complex_ else alpha
            norm = (alpha.abs().pow(2) + xnorm).sqrt()
            # LAPACK's SIGN(norm, Re alpha): +norm for Re alpha >= 0, so beta = -norm there.
            beta = _core._where3(re >= 0, -norm, norm)
            trivial = xnorm == 0
            if complex_:
                trivial = trivial & (alpha.imag == 0)
            safe_beta = _core._where3(trivial, _core.ones_like(beta), beta)
            tau = (safe_beta - alpha) / safe_beta
            tau = _core._where3(trivial, _core.zeros_like(tau), tau)
            denom = alpha - safe_beta
            denom = _core._where3(trivial, _core.ones_like(denom), denom)
            v_tail = tail / denom.unsqueeze(-1)
            v_tail = _core._where3(trivial.unsqueeze(-1), tail, v_tail)
            new_diag = _core._where3(trivial, re if not complex_ else alpha.real, beta)
            if complex_:
                new_diag = _core._where3(trivial, alpha, new_diag.to(alpha.dtype))
            a[..., j, j] = new_diag
            if tail.shape[-1]:
                a[..., j + 1 :, j] = v_tail
            if j + 1 < n:
                # Apply H^H = I - conj(tau) v v^H to the trailing columns.
                v = _core.cat([_core.ones_like(alpha).unsqueeze(-1), v_tail], -1).unsqueeze(-1)  # (*, m-j, 1)
                trailing = a[..., j:, j + 1 :]
                w = (v.conj() if complex_ else v).transpose(-2, -1) @ trailing  # (*, 1, n-j-1)
                t_h = (tau.conj() if complex_ else tau).unsqueeze(-1).unsqueeze(-1)
                a[..., j:, j + 1 :] = trailing - t_h * (v @ w)
            taus.append(tau)
        tau_all = _core.stack(taus, -1) if taus else _core.zeros(tuple(input.shape[:-2]) + (0,), dtype=input.dtype)
    if out is not None:
        out[0].resize_(a.shape).copy_(a)
        out[1].resize_(tau_all.shape).copy_(tau_all)
        return _GeqrfResult(out[0], out[1])
    return _GeqrfResult(a, tau_all)


def orgqr(input: Tensor, tau: Tensor) -> Tensor:
    """The first n columns of Q = H_1 ... H_k from ``geqrf``'s output (``linalg.householder_product``)."""
    from .linalg import householder_product

    return householder_product(input, tau)


def ormqr(input: Tensor, tau: Tensor, other: Tensor, left: bool = True, transpose: bool = False, *, out: Any = None) -> Tensor:
    """``Q @ other`` (``left``) or ``other @ Q``, with Q^H instead of Q when ``transpose``, where Q
    (m x m) is the product of the Householder reflectors in ``(input, tau)``."""
    from .linalg import householder_product

    _check_matrix("ormqr", input)
    if other.ndim < 2:
        raise RuntimeError("torch.ormqr: other must have at least 2 dimensions.")
    m = input.shape[-2]
    k = tau.shape[-1]
    if left and other.shape[-2] != m:
        raise RuntimeError(
            f"torch.ormqr: other.shape[-2] must be equal to input.shape[-2] (got {other.shape[-2]} and {m})"
        )
    if not left and other.shape[-1] != m:
        raise RuntimeError(
            f"torch.ormqr: other.shape[-1] must be equal to input.shape[-2] (got {other.shape[-1]} and {m})"
        )
    if k > (m if left else other.shape[-1]):
        raise RuntimeError(f"torch.ormqr: tau.shape[-1] must be less than or equal to input.shape[-2] (got {k} and {m})")
    if input.dtype != other.dtype or input.dtype != tau.dtype:
        raise RuntimeError(
            f"torch.ormqr: Expected input, tau and other to have the same dtype, but got {input.dtype}, {tau.dtype} and {other.dtype}"
        )
    # The full m x m Q: the reflectors padded with zero columns (and zero scales) to m of them.
    n = input.shape[-1]
    vecs = input.narrow(-1, 0, min(n, m))
    if vecs.shape[-1] < m:
        pad = _core.zeros(tuple(input.shape[:-1]) + (m - vecs.shape[-1],), dtype=input.dtype, device=input.device)
        vecs = _core.cat([vecs, pad], -1)
    taus = tau
    if k < m:
        taus = _core.cat([tau, _core.zeros(tuple(tau.shape[:-1]) + (m - k,), dtype=tau.dtype, device=tau.device)], -1)
    q = householder_product(vecs, taus)
    if transpose:
        q = q.mH if q.dtype.is_complex else q.transpose(-2, -1)
    result = q @ other if left else other @ q
    if out is not None:
        out.resize_(result.shape).copy_(result)
        return out
    return result


def _geqrf_method(self: Tensor) -> Any:
    return geqrf(self)


def _orgqr_method(self: Tensor, input2: Tensor) -> Tensor:
    return orgqr(self, input2)


def _ormqr_method(self: Tensor, input2: Tensor, input3: Tensor, left: bool = True, transpose: bool = False) -> Tensor:
    return ormqr(self, input2, input3, left, transpose)


_geqrf_method.__name__ = "geqrf"
_orgqr_method.__name__ = "orgqr"
_ormqr_method.__name__ = "ormqr"

__all__: Tuple[str, ...] = ("geqrf", "orgqr", "ormqr")
METHODS: Tuple[Any, ...] = (_geqrf_method, _orgqr_method, _ormqr_method)
