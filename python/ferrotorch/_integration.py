"""Integration and differences of sampled functions: ``trapezoid`` / ``trapz``,
``cumulative_trapezoid`` and ``gradient`` (second-order accurate central differences, with
first- or second-order one-sided differences at the edges; uniform or coordinate spacing).

All are sums of shifted slices, so they are differentiable in their tensor arguments."""

from __future__ import annotations

import numbers
from typing import Any, List, Optional, Sequence, Tuple

from . import _core
from ._op_entry import op_entry
from ._statistics_util import wrap_dim

Tensor = _core.Tensor


def _check_y(y: Tensor, op: str) -> None:
    if y.dtype == _core.bool:
        raise NotImplementedError(f"{op}: received a bool input for `y`, but bool is not supported")


def _cumsum(t: Tensor, d: int) -> Tensor:
    """Running sum along d; float32, half and complex64 types accumulate in (complex) float64
    and round each prefix, as PyTorch's CPU cumsum does (so overflowing partial sums behave alike)."""
    if t.dtype in (_core.float32, _core.float16, _core.bfloat16):
        return t.double().cumsum(d).to(t.dtype)
    if t.dtype == _core.complex64:
        return t.to(_core.complex128).cumsum(d).to(t.dtype)
    return t.cumsum(d)


def _check_xy(y: Tensor, x: Tensor, op: str) -> None:
    if y.dtype == _core.bool or x.dtype == _core.bool:
        raise NotImplementedError(f"{op}: received a bool input for `x` or `y`, but bool is not supported")


def _check_dx(dx: Any, op: str) -> float:
    if isinstance(dx, Tensor):
        if dx.ndim != 0:
            raise TypeError(f"{op}(): argument 'dx' must be Number, not Tensor")
        dx = dx.item()
    if isinstance(dx, (bool, complex)) or not isinstance(dx, numbers.Real):
        raise RuntimeError(f"{op}: Currently, we only support dx as a real number.")
    return dx


def _dim_of(y: Tensor, dim: int) -> int:
    if y.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    if not -y.ndim <= dim < y.ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-y.ndim}, {y.ndim - 1}], but got {dim})")
    return dim % y.ndim


def _x_steps(y: Tensor, x: Tensor, d: int, op: str) -> Tensor:
    """The spacing between samples along ``d`` from the sample coordinates ``x``."""
    if x.dtype == _core.bool:
        raise NotImplementedError(f"{op}: received a bool input for `x`, but bool is not supported")
    if x.ndim == 1:
        if x.shape[0] != y.shape[d]:
            raise RuntimeError(f"{op}: There must be one `x` value for each sample point")
        shape = [1] * y.ndim
        shape[d] = max(x.shape[0] - 1, 0)
        return x.diff().reshape(shape)
    # PyTorch pads a lower-rank x with leading 1s to y's rank, then differences it along
    # y's wrapped dim counted from the front (a 0-d x gives no intervals).
    if x.ndim < y.ndim:
        x = x.reshape([1] * (y.ndim - x.ndim) + list(x.shape))
    return x.diff(dim=d)


def _both_given(x: Any, dx: Any, op: str) -> None:
    if x is not None and dx is not None:
        raise TypeError(f"{op}() received an invalid combination of arguments - got both x and dx; pass the sample points `x` or the spacing `dx`, not both")


@op_entry("trapezoid")
def trapezoid(y: Tensor, x: Optional[Tensor] = None, *, dx: Any = None, dim: int = -1) -> Tensor:
    """The trapezoidal rule along ``dim``: with sample points ``x`` (1-D, or broadcastable to
    ``y``) or a constant spacing ``dx`` (default 1).

    >>> torch.trapezoid(torch.tensor([1., 2., 4.]))
    tensor(4.5000)
    """
    _both_given(x, dx, "trapezoid")
    if x is not None:
        d = _dim_of(y, dim)
        if y.shape[d] == 0:  # no intervals: zeros in y's dtype, before any other check (PyTorch's order)
            return (y.sum(d) * 0).to(y.dtype)
        _check_xy(y, x, "trapezoid")
        step = _x_steps(y, x, d, "trapezoid")
        left, right = y.narrow(d, 0, y.shape[d] - 1), y.narrow(d, 1, y.shape[d] - 1)
        return ((left + right) * step).sum(d) / 2
    d = _dim_of(y, dim)
    # No intervals: zeros in y's dtype before the dtype and dx checks (bool y included), once
    # the arguments parse (dx a number).
    if y.shape[d] == 0 and (dx is None or isinstance(dx, (numbers.Number, Tensor))):
        return _core.zeros(tuple(y.shape[:d]) + tuple(y.shape[d + 1:]), dtype=y.dtype, device=y.device)
    _check_y(y, "trapezoid")
    h = _check_dx(1 if dx is None else dx, "trapezoid")
    # The interior samples weigh h and the two ends h/2.
    return (y.sum(d) - (y.select(d, 0) + y.select(d, -1)) * 0.5) * h


@op_entry("trapz")
def trapz(y: Tensor, x: Optional[Tensor] = None, *, dx: Any = None, dim: int = -1) -> Tensor:
    """Alias of ``trapezoid``."""
    return trapezoid(y, x, dx=dx, dim=dim)


@op_entry("cumulative_trapezoid")
def cumulative_trapezoid(y: Tensor, x: Optional[Tensor] = None, *, dx: Any = None, dim: int = -1) -> Tensor:
    """Running trapezoidal integral along ``dim`` (one element shorter than ``y`` there).

    >>> torch.cumulative_trapezoid(torch.tensor([1., 2., 4.]))
    tensor([1.5000, 4.5000])
    """
    _both_given(x, dx, "cumulative_trapezoid")
    # PyTorch's orders: with x, the dim (a 0-d y takes -1 and 0), the dtypes, a 1-d x's length
    # (which reads y's size at the dim); with dx, the dtype, dx, then the dim. Slicing a 0-d y
    # fails after these.
    if x is not None:
        wrap_dim(dim, y.ndim)
        _check_xy(y, x, "cumulative_trapezoid")
        if x.ndim == 1 and y.ndim == 0:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    else:
        _check_y(y, "cumulative_trapezoid")
        h = _check_dx(1 if dx is None else dx, "cumulative_trapezoid")
    if y.ndim == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    d = _dim_of(y, dim)
    m = max(y.shape[d] - 1, 0)
    left, right = y.narrow(d, 0, m), y.narrow(d, min(1, y.shape[d]), m)
    if x is not None:
        step = _x_steps(y, x, d, "cumulative_trapezoid")
        return _cumsum((left + right) * step, d) / 2
    return _cumsum((left + right) * (h / 2), d)


def _dims(input: Tensor, dim: Any) -> List[int]:
    if dim is None:
        return list(range(input.ndim))
    dims = [dim] if isinstance(dim, int) else list(dim)
    n = input.ndim
    out = []
    for d in dims:
        if n == 0:
            raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
        if not -n <= d < (n if n else 1):
            raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {d})")
        out.append(d % n)
    if len(set(out)) != len(out):
        raise RuntimeError("torch.gradient expected each dim to appear only once")
    return out


def _spacings(input: Tensor, spacing: Any, dims: List[int], dim_given: bool) -> List[Any]:
    """One spacing per differentiated dim: a number (uniform step) or a 1-D coordinate tensor."""
    if isinstance(spacing, Tensor) and spacing.ndim == 0:
        spacing = spacing.item()
    if isinstance(spacing, numbers.Number):
        return [spacing] * len(dims)
    spacing = list(spacing)
    if len(spacing) != len(dims):
        if dim_given:
            raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim arguments to have the same length, but got a spacing argument of length {len(spacing)} and a dim argument of length {len(dims)}.")
        raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar, or a list of length equal to 'self.dim() = {input.ndim}', since dim argument was not given, but got a list of length {len(spacing)}")
    for s in spacing:
        if isinstance(s, Tensor) and s.ndim != 1:
            raise RuntimeError(f"torch.gradient expected each element of spacing to have one dimension, but got an element with {s.ndim} dimensions!")
    return spacing


def _grad_uniform(f: Tensor, d: int, h: Any, edge_order: int) -> Tensor:
    n = f.shape[d]

    def s(start: int, length: int) -> Tensor:
        return f.narrow(d, start % n, length)

    # (difference / h) / 2 in that order, as PyTorch: dividing by 2 h instead differs where
    # difference / h overflows or 2 h rounds (subnormal h), and a complex (inf, -inf) / 2 is
    # NaN (Smith's division meets -inf * 0).
    center = (s(2, n - 2) - s(0, n - 2)) / h / 2 if n > 2 else None
    if edge_order == 1:
        first = (s(1, 1) - s(0, 1)) / h
        last = (s(-1, 1) - s(-2, 1)) / h
    else:
        first = (-1.5 * s(0, 1) + 2 * s(1, 1) - 0.5 * s(2, 1)) / h
        last = (0.5 * s(-3, 1) - 2 * s(-2, 1) + 1.5 * s(-1, 1)) / h
    parts = [first] + ([center] if center is not None else []) + [last]
    return _core.cat(parts, d)


def _grad_coords(f: Tensor, d: int, coords: Tensor, edge_order: int) -> Tensor:
    n = f.shape[d]
    shape = [1] * f.ndim

    def along(t: Tensor) -> Tensor:
        shape[d] = t.shape[0]
        return t.reshape(shape)

    def s(start: int, length: int) -> Tensor:
        return f.narrow(d, start % n, length)

    h = coords.diff()
    parts = []
    # Edges: one-sided differences (first or second order) over the outer spacings.
    if edge_order == 1:
        first = (s(1, 1) - s(0, 1)) / h[0]
        last = (s(-1, 1) - s(-2, 1)) / h[-1]
    else:
        a, b = h[0], h[1]
        first = -(2 * a + b) / (a * (a + b)) * s(0, 1) + (a + b) / (a * b) * s(1, 1) - a / (b * (a + b)) * s(2, 1)
        a, b = h[-2], h[-1]
        last = b / (a * (a + b)) * s(-3, 1) - (a + b) / (a * b) * s(-2, 1) + (2 * b + a) / (b * (a + b)) * s(-1, 1)
    parts.append(first)
    if n > 2:
        # Interior: the second-order difference for unequal steps h1 (behind) and h2 (ahead).
        h1, h2 = along(h[:-1]), along(h[1:])
        center = -h2 / (h1 * (h1 + h2)) * s(0, n - 2) + (h2 - h1) / (h1 * h2) * s(1, n - 2) + h1 / (h2 * (h1 + h2)) * s(2, n - 2)
        parts.append(center)
    parts.append(last)
    return _core.cat(parts, d)


@op_entry("gradient")
def gradient(input: Tensor, *, spacing: Any = 1, dim: Any = None, edge_order: int = 1) -> Tuple[Tensor, ...]:
    """Estimates the derivative of the sampled function ``input`` along each dim (all by
    default): central differences inside, one-sided at the edges (``edge_order`` 1 or 2).
    ``spacing`` is a number (uniform step), one number per dim, or one 1-D tensor of sample
    coordinates per dim. Returns a tuple with one tensor per dim.

    >>> torch.gradient(torch.tensor([1., 2., 4., 8.]))
    (tensor([1.0000, 1.5000, 3.0000, 4.0000]),)
    """
    if input.dtype == _core.uint8:
        raise NotImplementedError("torch.gradient does not support uint8 input.")
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    dims = _dims(input, dim)
    steps: Sequence[Any] = _spacings(input, spacing, dims, dim is not None)
    for d in dims:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
    if input.dtype == _core.bool:
        raise NotImplementedError("Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` operator instead.")
    out = []
    for d, h in zip(dims, steps):
        if isinstance(h, Tensor):
            out.append(_grad_coords(input, d, h, edge_order))
        else:
            out.append(_grad_uniform(input, d, h, edge_order))
    return tuple(out)


__all__ = ("trapezoid", "trapz", "cumulative_trapezoid", "gradient")
METHODS: tuple = ()
