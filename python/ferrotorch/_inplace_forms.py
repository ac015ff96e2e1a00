"""In-place Tensor methods written over their out-of-place ops (comparisons, logical and
bitwise ops, arithmetic aliases, cumulative ops, ``fill_diagonal_``, random fills), and the
``torch.<name>_`` function forms PyTorch exposes for in-place Tensor methods."""

from __future__ import annotations

import math
from typing import Any, Callable, Tuple

from . import _core
from ._result_writing import assign_inplace, scalar_name, source_of

Tensor = _core.Tensor


def _binary_inplace(name: str, op: str) -> Callable[..., Tensor]:
    def method(self: Tensor, other: Any, **kwargs: Any) -> Tensor:
        return assign_inplace(self, getattr(source_of(self), op)(other, **kwargs), name)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"In-place ``{op}``: writes ``self.{op}(other)`` into self (cast to self's dtype)."
    return method


def _unary_inplace(name: str, op: str) -> Callable[..., Tensor]:
    def method(self: Tensor) -> Tensor:
        return assign_inplace(self, getattr(source_of(self), op)(), name)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"In-place ``{op}``."
    return method


_BINARY = (
    ("eq_", "eq"), ("ne_", "ne"), ("lt_", "lt"), ("le_", "le"), ("gt_", "gt"), ("ge_", "ge"),
    ("greater_", "gt"), ("greater_equal_", "ge"), ("less_", "lt"), ("less_equal_", "le"),
    ("not_equal_", "ne"), ("logical_and_", "logical_and"), ("logical_or_", "logical_or"),
    ("logical_xor_", "logical_xor"), ("bitwise_left_shift_", "bitwise_left_shift"),
    ("bitwise_right_shift_", "bitwise_right_shift"), ("divide_", "div"), ("multiply_", "mul"),
    ("subtract_", "sub"), ("true_divide_", "true_divide"),
)
BINARY_METHODS = tuple(_binary_inplace(n, op) for n, op in _BINARY)
UNARY_METHODS = (_unary_inplace("logical_not_", "logical_not"), _unary_inplace("bitwise_not_", "bitwise_not"))


def _cumulative_inplace(name: str, op: str) -> Callable[..., Tensor]:
    def method(self: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
        if dtype is not None and dtype != self.dtype:
            raise RuntimeError(
                f"{name}: Bad in-place call: input tensor dtype {scalar_name(self.dtype)} and output tensor dtype {scalar_name(dtype)} should match"
            )
        if self.dtype == _core.bool:
            raise NotImplementedError(f"\"{op}_out_cpu\" not implemented for 'Bool'")
        return assign_inplace(self, getattr(source_of(self), op)(dim).to(self.dtype), name)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"In-place ``{op}`` along ``dim`` (``dtype``, if given, must be self's)."
    return method


cumsum_ = _cumulative_inplace("cumsum_", "cumsum")
cumprod_ = _cumulative_inplace("cumprod_", "cumprod")


def fill_diagonal_(self: Tensor, fill_value: Any, wrap: bool = False) -> Tensor:
    """Fills the main diagonal (all indices equal) with ``fill_value``; a tall 2-D matrix with
    ``wrap`` restarts the diagonal every ``columns + 1`` rows, as PyTorch."""
    if self.dim() < 2:
        raise RuntimeError("fill_diagonal_: dimensions must larger than 1")
    shape = tuple(self.shape)
    if self.dim() > 2 and len(set(shape)) != 1:
        raise RuntimeError(f"fill_diagonal_: all dimensions of input must be of equal length, got {list(shape)}")
    if self.numel() == 0:
        return self
    if self.dim() == 2:
        n, m = shape
        if wrap and n > m:
            # The flat positions of the diagonal step by m + 1 through the whole matrix.
            flat = _core.arange(0, n * m, m + 1)
            index: Tuple[Tensor, ...] = (flat.div(m, rounding_mode="floor"), flat.remainder(m))
        else:
            k = _core.arange(min(n, m))
            index = (k, k)
    else:
        k = _core.arange(shape[0])
        index = (k,) * self.dim()
    value = fill_value if isinstance(fill_value, Tensor) else _core.full((), fill_value, dtype=self.dtype)
    return self.index_put_(index, value.to(self.dtype))


def _uniform64(self: Tensor, generator: Any) -> Tensor:
    """Uniform [0, 1) samples of self's shape in float64 from ferrotorch's generator."""
    u = _core.empty(tuple(self.shape), dtype=_core.float64)
    return u.uniform_(generator=generator) if generator is not None else u.uniform_()


def _require_float(self: Tensor, what: str) -> None:
    if not self.dtype.is_floating_point:
        raise RuntimeError(f"{what} dtype must be a floating point but you specified {scalar_name(self.dtype)}")


def cauchy_(self: Tensor, median: float = 0, sigma: float = 1, *, generator: Any = None) -> Tensor:
    """Fills self with Cauchy(median, sigma) samples: median + sigma * tan(pi * (u - 1/2))."""
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma}")
    _require_float(self, "Cauchy distribution is a continuous probability distribution.")
    u = _uniform64(self, generator)
    return assign_inplace(self, (median + sigma * (math.pi * (u - 0.5)).tan()).to(self.dtype), "cauchy_")


def geometric_(self: Tensor, p: float, *, generator: Any = None) -> Tensor:
    """Fills self with Geometric(p) samples: the number of trials up to and including the
    first success, so values 1, 2, ... (any real dtype)."""
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p}")
    u = _uniform64(self, generator)
    # Inverse transform: ceil(log(1 - u) / log(1 - p)) with 1 - u in (0, 1].
    k = ((-u).log1p() / math.log1p(-p)).ceil().clamp_min(1)
    return assign_inplace(self, k.to(self.dtype), "geometric_")


def log_normal_(self: Tensor, mean: float = 1, std: float = 2, *, generator: Any = None) -> Tensor:
    """Fills self with exp(N(mean, std^2)) samples."""
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std}")
    if not self.dtype.is_floating_point:
        raise NotImplementedError(f"\"log_normal_cpu\" not implemented for '{scalar_name(self.dtype)}'")
    z = _core.empty(tuple(self.shape), dtype=_core.float64)
    z = z.normal_(mean, std, generator=generator) if generator is not None else z.normal_(mean, std)
    return assign_inplace(self, z.exp().to(self.dtype), "log_normal_")


def _torch_form(name: str) -> Callable[..., Any]:
    def form(input: Tensor, *args: Any, **kwargs: Any) -> Any:
        return getattr(input, name)(*args, **kwargs)

    form.__name__ = form.__qualname__ = name
    form.__doc__ = f"``torch.{name}(input, ...)``: calls ``input.{name}(...)``."
    return form


# The in-place ops PyTorch also exposes as torch.<name>_ functions.
TORCH_INPLACE_NAMES = (
    "abs_", "acos_", "arccos_", "asin_", "arcsin_", "atan_", "arctan_", "ceil_", "clamp_",
    "clamp_max_", "clamp_min_", "clip_", "cos_", "cosh_", "erf_", "erfc_", "exp_", "exp2_",
    "expm1_", "fix_", "floor_", "frac_", "i0_", "log_", "log10_", "log1p_", "log2_", "neg_",
    "negative_", "nan_to_num_", "reciprocal_", "round_", "rsqrt_", "sigmoid_", "sin_", "sinc_",
    "sinh_", "sqrt_", "square_", "tan_", "tanh_", "trunc_", "xlogy_", "zero_", "fill_", "conj_physical_", "detach_",
)
TORCH_FORMS = tuple(_torch_form(n) for n in TORCH_INPLACE_NAMES)

METHOD_ONLY = BINARY_METHODS + UNARY_METHODS + (cumsum_, cumprod_, fill_diagonal_, cauchy_, geometric_, log_normal_)
