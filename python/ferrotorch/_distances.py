"""Second moments and distances: ``cov``, ``corrcoef``, ``cdist``, ``dist``, ``renorm``.

All are compositions of differentiable core ops. p-norms are taken so that their gradient at
a zero norm is 0, as PyTorch's norm backward defines it, instead of the NaN a plain
``pow(1/p)`` would give there."""

from __future__ import annotations

import math
import warnings
from typing import Any, Optional

from . import _core
from ._op_entry import op_entry
from ._statistics_util import kind, wrap_dim

Tensor = _core.Tensor


def _p_value(p: Any) -> float:
    return float(p.item()) if isinstance(p, Tensor) else float(p)


def _root(s: Tensor, p: float) -> Tensor:
    """``s ** (1/p)`` for s >= 0, with gradient 0 where s == 0 (value 0, or inf for p < 0: a
    sum of |x|^p that is 0 there means every |x| is infinite)."""
    zero = s == 0
    safe = s.masked_fill(zero, 1)
    r = safe.sqrt() if p == 2 else safe.pow(1.0 / p)
    return r.masked_fill(zero, math.inf if p < 0 else 0)


def _pnorm(x: Tensor, p: float, dim: Any, keepdim: bool = False) -> Tensor:
    """The p-norm of real ``x`` over ``dim`` (an int, a tuple, or None for all elements)."""
    dims = tuple(range(x.ndim)) if dim is None else dim
    if p == 0:
        # Counts non-zeros (NaN among them, as PyTorch's x != 0); the zero term keeps the result
        # attached to the graph with gradient 0 (x * 0 is NaN at NaN and inf, hence zeroed).
        return (x != 0).to(x.dtype).sum(dims, keepdim) + (x * 0).nan_to_num(0.0, 0.0, 0.0).sum(dims, keepdim)
    if p == math.inf:
        return x.abs().amax(dims, keepdim)
    if p == -math.inf:
        return x.abs().amin(dims, keepdim)
    if p == 1:
        return x.abs().sum(dims, keepdim)
    if p == 2:
        return _root((x * x).sum(dims, keepdim), 2)
    return _root(x.abs().pow(p).sum(dims, keepdim), p)


def _check_weights(w: Optional[Tensor], name: str, observations: int, integral: bool) -> None:
    if w is None:
        return
    if w.ndim > 1:
        raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got {name} with {w.ndim} dimensions")
    if integral and (w.is_floating_point() or w.is_complex() or w.dtype == _core.bool):
        raise RuntimeError(f"cov(): expected {name} to have integral dtype but got {name} with {kind(w.dtype)} dtype")
    if not integral and not w.is_floating_point():
        raise RuntimeError(f"cov(): expected {name} to have floating point dtype but got {name} with {kind(w.dtype)} dtype")
    if w.numel() != observations:
        raise RuntimeError(f"cov(): expected {name} to have the same numel as there are observations in the input but got {w.numel()} != {observations}")
    if observations and bool((w < 0).any().item()):
        raise RuntimeError(f"cov(): {name} cannot be negative")


@op_entry("cov")
def cov(input: Tensor, *, correction: int = 1, fweights: Optional[Tensor] = None, aweights: Optional[Tensor] = None) -> Tensor:
    """Covariance matrix of the variables in the rows of ``input`` (observations in columns;
    a 1-D input is one variable, giving a 0-d result). ``fweights`` (integer repeat counts)
    and ``aweights`` (float importance weights) weight the observations.

    >>> torch.cov(torch.tensor([[0., 1., 2.], [2., 1., 0.]]))
    tensor([[ 1., -1.],
            [-1.,  1.]])
    """
    if input.ndim > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with {input.ndim} dimensions")
    if input.dtype == _core.bool:
        raise NotImplementedError("cov(): bool dtype is not supported for input")
    x = input.reshape(1, -1) if input.ndim < 2 else input
    n = x.shape[1]
    _check_weights(fweights, "fweights", n, True)
    _check_weights(aweights, "aweights", n, False)
    given_dtype = x.dtype
    if x.is_floating_point() or x.is_complex():
        dtype = x.dtype if aweights is None else _core.promote_types(x.dtype, aweights.dtype)
        x = x.to(dtype)
    # An integer input stays integer, as in PyTorch: its (weighted) sum is taken in int64,
    # wrapping on overflow, and only the mean (a true division) and what follows are floating.
    w = fweights
    if aweights is not None:
        w = aweights if w is None else w * aweights
    if w is None:
        # PyTorch divides the sum, in the input's dtype (a half sum is rounded), by the count.
        avg = x.sum(1) / n
        norm: Any = n - correction
        too_few = norm <= 0
    else:
        w_sum = w.sum()
        if bool((w_sum == 0).item()):
            raise RuntimeError("cov(): weights sum to zero, can't be normalized")
        avg = (x * w).sum(1) / w_sum
        if aweights is None:
            norm = w_sum - correction
        elif correction == 0:
            norm = w_sum
        elif fweights is None and n == 1 and correction == 1:
            # PyTorch's corner case: one observation's aweights-corrected count is 0 exactly.
            norm = _core.zeros((), dtype=_core.int64)
        else:
            norm = w_sum - correction * (w * aweights).sum() / w_sum
        too_few = bool((norm <= 0).item())
    if too_few:
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of observations.", UserWarning, stacklevel=3)
        norm = norm.clamp_min(0) if isinstance(norm, Tensor) else 0
    if n == 1 and (fweights is None) != (aweights is None):
        # PyTorch's corner case: one observation with one kind of weights is its own average,
        # so it is centred to 0 exactly (not inf - inf), in the input's dtype (float32 for an
        # integer input); its product with the weighted copy then needs equal dtypes.
        zero_dtype = given_dtype if given_dtype.is_floating_point or given_dtype.is_complex else _core.float32
        xm = _core.zeros(tuple(x.shape), dtype=zero_dtype)
        if (xm * w).dtype != zero_dtype:
            raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {kind(zero_dtype)} != {kind((xm * w).dtype)}")
    else:
        xm = x - avg.unsqueeze(1)
    other = (xm if w is None else xm * w).t()
    c = xm.matmul(other.conj() if other.is_complex() else other)
    if c.is_complex() and 1 in tuple(xm.shape):
        # A vector times its own conjugate is real; PyTorch drops the rounding's imaginary part.
        c = _core.complex(c.real, _core.zeros_like(c.real))
    return (c / norm).squeeze()


@op_entry("corrcoef")
def corrcoef(input: Tensor) -> Tensor:
    """Pearson correlation coefficients of the variables in the rows of ``input``, clipped to
    [-1, 1] (NaN for a variable with zero variance).

    >>> torch.corrcoef(torch.tensor([[0., 1., 2.], [2., 1., 0.]]))
    tensor([[ 1., -1.],
            [-1.,  1.]])
    """
    if input.ndim > 2:
        raise RuntimeError(f"corrcoef(): expected input to have two or fewer dimensions but got an input with {input.ndim} dimensions")
    c = cov(input)
    if c.ndim == 0:
        return c / c
    d = c.diagonal()
    std = (d.real if d.is_complex() else d).sqrt()
    c = c / std.unsqueeze(1)
    c = c / std.unsqueeze(0)
    if c.is_complex():  # clip the real and imaginary parts each to [-1, 1]
        return _core.complex(c.real.clamp(-1, 1), c.imag.clamp(-1, 1))
    return c.clamp(-1, 1)


_COMPUTE_MODES = ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist")


@op_entry("cdist")
def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode: str = "use_mm_for_euclid_dist_if_necessary") -> Tensor:
    """p-norm distances between each row of ``x1`` (..., P, M) and each row of ``x2``
    (..., R, M): a (..., P, R) tensor, batch dimensions broadcast. For p = 2 the matrix-product
    form |a|^2 - 2 a.b + |b|^2 is used when ``compute_mode`` asks for it (by default when P or R
    exceeds 25), as in PyTorch.

    >>> torch.cdist(torch.tensor([[0., 0.]]), torch.tensor([[3., 4.]]))
    tensor([[5.]])
    """
    if compute_mode not in _COMPUTE_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    for name, t in (("X1", x1), ("X2", x2)):
        if t.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: {t.ndim}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"cdist: X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}")
    for name, t in (("X1", x1), ("X2", x2)):
        if not t.is_floating_point():
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: {kind(t.dtype)}")
    p = _p_value(p)
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    batch = tuple(_core.broadcast_shapes(tuple(x1.shape[:-2]), tuple(x2.shape[:-2])))
    rows1, rows2, m = x1.shape[-2], x2.shape[-2], x1.shape[-1]
    if rows1 == 0 or rows2 == 0 or m == 0 or 0 in batch:
        # PyTorch's kernel (and its dtype checks) never runs for an empty result or rows.
        return _core.zeros(batch + (rows1, rows2), dtype=x1.dtype, device=x1.device)
    use_mm = p == 2 and (compute_mode == "use_mm_for_euclid_dist" or (compute_mode == "use_mm_for_euclid_dist_if_necessary" and (rows1 > 25 or rows2 > 25)))
    if use_mm and x1.dtype != x2.dtype:
        # The matrix-product form (which takes half types) fails only at its matmul.
        raise RuntimeError(f"cdist: expected m1 and m2 to have the same dtype, but got: {kind(x1.dtype)} != {kind(x2.dtype)}")
    if not use_mm:
        # PyTorch's direct kernel is chosen by x1's dtype (no half types), then reads x2 as it.
        if x1.dtype in (_core.float16, _core.bfloat16):
            raise NotImplementedError(f"\"cdist\" not implemented for '{kind(x1.dtype)}'")
        if x1.dtype != x2.dtype:
            raise RuntimeError(f"cdist: expected scalar type {kind(x1.dtype)} but found {kind(x2.dtype)}")
    a = x1.expand(batch + (rows1, m))
    b = x2.expand(batch + (rows2, m))
    if use_mm:
        # PyTorch's arrangement: one product of [-2a, |a|^2, 1] and [b, 1, |b|^2], so a half
        # input is rounded once, after the (float32-accumulated) matmul.
        na = a.pow(2).sum(-1, keepdim=True)
        nb = b.pow(2).sum(-1, keepdim=True)
        left = _core.cat([a * -2, na, _core.ones_like(na)], -1)
        right = _core.cat([b, _core.ones_like(nb), nb], -1)
        sq = left.matmul(right.transpose(-1, -2))
        return _root(sq.clamp_min(0), 2)
    diff = a.unsqueeze(-2) - b.unsqueeze(-3)
    if p == math.inf:
        # PyTorch's kernel keeps a running max from 0 that a NaN never replaces: NaNs are skipped.
        d = diff.abs()
        return d.masked_fill(d.isnan(), 0).amax(-1)
    if p == 0:
        # PyTorch's pairwise kernels count min(ceil(|d|), 1): a NaN difference makes a NaN distance.
        return _pnorm(diff, p, -1).masked_fill(diff.isnan().any(-1), math.nan)
    return _pnorm(diff, p, -1)


@op_entry("dist")
def dist(input: Tensor, other: Tensor, p: Any = 2) -> Tensor:
    """The p-norm of ``input - other`` (broadcast), as a 0-d tensor.

    >>> torch.dist(torch.tensor([0., 0.]), torch.tensor([3., 4.]))
    tensor(5.)
    """
    diff = input - other
    if not (diff.is_floating_point() or diff.is_complex()):
        raise NotImplementedError(f"norm(): input dtype should be either floating point or complex. Got {kind(diff.dtype)} instead.")
    p = _p_value(p)
    if diff.is_complex():
        diff = diff.abs()
    if diff.numel() == 0 and (p < 0 or p == math.inf):
        shown = int(p) if math.isfinite(p) and p == int(p) else p
        raise RuntimeError(f"linalg.vector_norm cannot compute the {shown} norm on an empty tensor because the operation does not have an identity")
    if diff.numel() == 1 and p != 0:
        # The norm of one element is its magnitude, with no power that could overflow or
        # underflow (PyTorch: dist(3, inf, p=-1) is inf).
        return diff.abs().sum()
    if diff.dtype in (_core.float16, _core.bfloat16):
        # PyTorch accumulates reduced-precision norms in float32 (no overflow of |d|^p) and rounds once.
        return _pnorm(diff.float(), p, None).to(diff.dtype)
    return _pnorm(diff, p, None)


def _renorm_factor(input: Tensor, p: Any, dim: int, maxnorm: float) -> Tensor:
    if input.ndim < 2:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.ndim} dimensions")
    p = _p_value(p)
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if not maxnorm >= 0:  # NaN too
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm:g}")
    d = wrap_dim(dim, input.ndim)
    if not (input.is_floating_point() or input.is_complex()):
        raise NotImplementedError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got {kind(input.dtype)}")
    others = tuple(i for i in range(input.ndim) if i != d)
    if p == math.inf:
        for o in others:
            if input.shape[o] == 0:  # a max over nothing has no value
                raise RuntimeError(f"linalg.vector_norm cannot compute the inf norm on the dimension {o}because this dimension is empty and the operation does not have an identity")
    # PyTorch takes linalg.vector_norm (a one-element slice's 2-norm is its modulus, with no
    # overflowing square), half types accumulated and scaled in float32.
    x = input.float() if input.dtype in (_core.float16, _core.bfloat16) else input
    norm = x.norm(p, list(others), True)
    if norm.is_complex():
        norm = norm.real
    # Sub-tensors over the limit are scaled to it (the 1e-7 as PyTorch's); others are kept.
    scale = maxnorm / (norm + 1e-7)
    factor = _core._where3(norm > maxnorm, scale, _core.ones_like(scale))
    return factor.to(input.dtype) if x is not input else factor


@op_entry("renorm")
def renorm(input: Tensor, p: Any, dim: int, maxnorm: float) -> Tensor:
    """Each sub-tensor along ``dim`` (``input.select(dim, i)``) whose p-norm exceeds ``maxnorm``
    scaled down to norm ``maxnorm``; the others unchanged.

    >>> torch.renorm(torch.tensor([[3., 4.], [0.3, 0.4]]), 2, 0, 1)
    tensor([[0.6000, 0.8000],
            [0.3000, 0.4000]])
    """
    return input * _renorm_factor(input, p, dim, maxnorm)


def renorm_(self: Tensor, p: Any, dim: int, maxnorm: float) -> Tensor:
    """In-place ``renorm``; returns ``self``. (Its gradient treats the scale factors as
    constants, which PyTorch's does not.)"""
    return self.mul_(_renorm_factor(self.detach(), p, dim, maxnorm))


__all__ = ("cov", "corrcoef", "cdist", "dist", "renorm")
METHODS = (cov, corrcoef, dist, renorm, renorm_)
