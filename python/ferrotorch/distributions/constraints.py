"""Constraints: the regions where distribution parameters and samples are valid.

A constraint's ``check(value)`` returns a bool tensor of ``sample_shape + batch_shape``
(the rightmost ``event_dim`` dims are reduced). The public objects follow
``torch.distributions.constraints``.

>>> import ferrotorch as torch
>>> from ferrotorch.distributions import constraints
>>> constraints.positive.check(torch.tensor([1.0, -1.0]))
tensor([ True, False])
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

import ferrotorch as torch

__all__ = [
    "Constraint",
    "boolean",
    "cat",
    "corr_cholesky",
    "dependent",
    "dependent_property",
    "greater_than",
    "greater_than_eq",
    "independent",
    "integer_interval",
    "interval",
    "half_open_interval",
    "is_dependent",
    "less_than",
    "lower_cholesky",
    "lower_triangular",
    "MixtureSameFamilyConstraint",
    "multinomial",
    "nonnegative",
    "nonnegative_integer",
    "one_hot",
    "positive",
    "positive_semidefinite",
    "positive_definite",
    "positive_integer",
    "real",
    "real_vector",
    "simplex",
    "square",
    "stack",
    "symmetric",
    "unit_interval",
]


class Constraint:
    """Base class: a region over which a variable is valid.

    ``is_discrete`` says whether the region is discrete; ``event_dim`` is the number of
    rightmost dims that together form one event (``check`` reduces over them).
    """

    is_discrete = False
    event_dim = 0

    def check(self, value: torch.Tensor) -> torch.Tensor:
        """A bool tensor saying, per event, whether ``value`` satisfies the constraint."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return self.__class__.__name__[1:] + "()"


class _Dependent(Constraint):
    """Placeholder for a variable whose support depends on other variables (not checkable)."""

    def __init__(self, *, is_discrete: Any = NotImplemented, event_dim: Any = NotImplemented) -> None:
        self._is_discrete = is_discrete
        self._event_dim = event_dim
        super().__init__()

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        if self._is_discrete is NotImplemented:
            raise NotImplementedError(".is_discrete cannot be determined statically")
        return self._is_discrete

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        if self._event_dim is NotImplemented:
            raise NotImplementedError(".event_dim cannot be determined statically")
        return self._event_dim

    def __call__(self, *, is_discrete: Any = NotImplemented, event_dim: Any = NotImplemented) -> "_Dependent":
        """``constraints.dependent(is_discrete=True, event_dim=1)`` fixes the static attributes."""
        if is_discrete is NotImplemented:
            is_discrete = self._is_discrete
        if event_dim is NotImplemented:
            event_dim = self._event_dim
        return _Dependent(is_discrete=is_discrete, event_dim=event_dim)

    def check(self, x: torch.Tensor) -> torch.Tensor:
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint: Any) -> bool:
    """True if ``constraint`` is a dependent (uncheckable) constraint."""
    return isinstance(constraint, _Dependent)


class _DependentProperty(property, _Dependent):
    """A property on instances that is a dependent constraint on the class (``Uniform.support``)."""

    def __init__(
        self,
        fn: Optional[Callable[..., Any]] = None,
        *,
        is_discrete: Any = NotImplemented,
        event_dim: Any = NotImplemented,
    ) -> None:
        property.__init__(self, fn)
        self._is_discrete = is_discrete
        self._event_dim = event_dim

    def __call__(self, fn: Callable[..., Any]) -> "_DependentProperty":  # type: ignore[override]
        return _DependentProperty(fn, is_discrete=self._is_discrete, event_dim=self._event_dim)


def _all_last(result: torch.Tensor, ndims: int) -> torch.Tensor:
    """Reduce the last ``ndims`` dims of a bool tensor with ``all``."""
    if ndims == 0:
        return result
    return result.reshape(tuple(result.shape[: result.dim() - ndims]) + (-1,)).all(-1)


class _IndependentConstraint(Constraint):
    """Treats ``reinterpreted_batch_ndims`` batch dims of a constraint as event dims."""

    def __init__(self, base_constraint: Constraint, reinterpreted_batch_ndims: int) -> None:
        if not isinstance(base_constraint, Constraint):
            raise AssertionError(f"base_constraint must be a Constraint, got {type(base_constraint).__name__}")
        if not isinstance(reinterpreted_batch_ndims, int) or reinterpreted_batch_ndims < 0:
            raise AssertionError(f"reinterpreted_batch_ndims must be an int >= 0, got {reinterpreted_batch_ndims!r}")
        self.base_constraint = base_constraint
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        super().__init__()

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        return self.base_constraint.is_discrete

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        return self.base_constraint.event_dim + self.reinterpreted_batch_ndims

    def check(self, value: torch.Tensor) -> torch.Tensor:
        result = self.base_constraint.check(value)
        if result.dim() < self.reinterpreted_batch_ndims:
            raise ValueError(f"Expected value.dim() >= {self.event_dim} but got {value.dim()}")
        return _all_last(result, self.reinterpreted_batch_ndims)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__[1:]}({self.base_constraint!r}, {self.reinterpreted_batch_ndims})"


class MixtureSameFamilyConstraint(Constraint):
    """The component constraint of a MixtureSameFamily, checked with the mixture dim added back."""

    def __init__(self, base_constraint: Constraint) -> None:
        if not isinstance(base_constraint, Constraint):
            raise AssertionError(f"base_constraint must be a Constraint, got {type(base_constraint).__name__}")
        self.base_constraint = base_constraint
        super().__init__()

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        return self.base_constraint.is_discrete

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        return self.base_constraint.event_dim

    def check(self, value: torch.Tensor) -> torch.Tensor:
        if value.dim() < self.event_dim:
            raise ValueError(f"Expected value.dim() >= {self.event_dim} but got {value.dim()}")
        result = self.base_constraint.check(value.unsqueeze(-1 - self.event_dim))
        keep = value.dim() - self.event_dim
        return result.reshape(tuple(result.shape[:keep]) + (-1,)).all(-1)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}({self.base_constraint!r})"


class _Boolean(Constraint):
    """The two values ``{0, 1}``."""

    is_discrete = True

    def check(self, value: torch.Tensor) -> torch.Tensor:
        return (value == 0) | (value == 1)


class _OneHot(Constraint):
    """One-hot vectors in the last dim."""

    is_discrete = True
    event_dim = 1

    def check(self, value: torch.Tensor) -> torch.Tensor:
        is_boolean = (value == 0) | (value == 1)
        return is_boolean.all(-1) & value.sum(-1).eq(1)


def _format_bound(value: Any) -> str:
    """A bound as PyTorch's f-strings print it: a 0-d tensor as its Python number."""
    if isinstance(value, torch.Tensor) and value.dim() == 0:
        return str(value.item())
    return str(value)


class _Bounds(Constraint):
    """Shared repr for the interval-like constraints."""

    _bounds: Sequence[str] = ()

    def __repr__(self) -> str:
        args = ", ".join(f"{b}={_format_bound(getattr(self, b))}" for b in self._bounds)
        return f"{self.__class__.__name__[1:]}({args})"


class _IntegerInterval(_Bounds):
    """Integers in ``[lower_bound, upper_bound]``."""

    is_discrete = True
    _bounds = ("lower_bound", "upper_bound")

    def __init__(self, lower_bound: Any, upper_bound: Any) -> None:
        self.lower_bound, self.upper_bound = lower_bound, upper_bound

    def check(self, value: torch.Tensor) -> torch.Tensor:
        return (value % 1 == 0) & (value >= self.lower_bound) & (value <= self.upper_bound)


class _IntegerLessThan(_Bounds):
    """Integers in ``(-inf, upper_bound]``."""

    is_discrete = True
    _bounds = ("upper_bound",)

    def __init__(self, upper_bound: Any) -> None:
        self.upper_bound = upper_bound

    def check(self, value: torch.Tensor) -> torch.Tensor:
        return (value % 1 == 0) & (value <= self.upper_bound)


class _IntegerGreaterThan(_Bounds):
    """Integers in ``[lower_bound, inf)``."""

    is_discrete = True
    _bounds = ("lower_bound",)

    def __init__(self, lower_bound: Any) -> None:
        self.lower_bound = lower_bound

    def check(self, value: torch.Tensor) -> torch.Tensor:
        return (value % 1 == 0) & (value >= self.lower_bound)


class _Real(Constraint):
    """The extended real line (anything but NaN)."""

    def check(self, value: torch.Tensor) -> torch.Tensor:
        return value == value


class _GreaterThan(_Bounds):
    """The half line ``(lower_bound, inf]``."""

    _bounds = ("lower_bound",)

    def __init__(self, lower_bound: Any) -> None:
        self.lower_bound = lower_bound

    def check(self, value: torch.Tensor) -> torch.Tensor:
        return value > self.lower_bound


class _GreaterThanEq(_Bounds):
    """The half line ``[lower_bound, inf)``."""

    _bounds = ("lower_bound",)

    def __init__(self, lower_bound: Any) -> None:
        self.lower_bound = lower_bound

    def check(self, value: torch.Tensor) -> torch.Tensor:
        return value >= self.lower_bound


class _LessThan(_Bounds):
    """The half line ``[-inf, upper_bound)``."""

    _bounds = ("upper_bound",)

    def __init__(self, upper_bound: Any) -> None:
        self.upper_bound = upper_bound

    def check(self, value: torch.Tensor) -> torch.Tensor:
        return value < self.upper_bound


class _Interval(_Bounds):
    """The closed interval ``[lower_bound, upper_bound]``."""

    _bounds = ("lower_bound", "upper_bound")

    def __init__(self, lower_bound: Any, upper_bound: Any) -> None:
        self.lower_bound, self.upper_bound = lower_bound, upper_bound

    def check(self, value: torch.Tensor) -> torch.Tensor:
        return (value >= self.lower_bound) & (value <= self.upper_bound)


class _HalfOpenInterval(_Bounds):
    """The interval ``[lower_bound, upper_bound)``."""

    _bounds = ("lower_bound", "upper_bound")

    def __init__(self, lower_bound: Any, upper_bound: Any) -> None:
        self.lower_bound, self.upper_bound = lower_bound, upper_bound

    def check(self, value: torch.Tensor) -> torch.Tensor:
        return (value >= self.lower_bound) & (value < self.upper_bound)


class _Simplex(Constraint):
    """Nonnegative vectors summing to one in the last dim."""

    event_dim = 1

    def check(self, value: torch.Tensor) -> torch.Tensor:
        return (value >= 0).all(-1) & ((value.sum(-1) - 1).abs() < 1e-6)


class _Multinomial(Constraint):
    """Nonnegative integer counts whose sum is at most ``upper_bound`` (PyTorch's weak check)."""

    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound: Any) -> None:
        self.upper_bound = upper_bound

    def check(self, x: torch.Tensor) -> torch.Tensor:
        return (x >= 0).all(-1) & (x.sum(-1) <= self.upper_bound)


def _is_lower_triangular(value: torch.Tensor) -> torch.Tensor:
    return _all_last(value.tril() == value, 2)


class _LowerTriangular(Constraint):
    """Lower-triangular square matrices."""

    event_dim = 2

    def check(self, value: torch.Tensor) -> torch.Tensor:
        return _is_lower_triangular(value)


class _LowerCholesky(Constraint):
    """Lower-triangular matrices with a positive diagonal."""

    event_dim = 2

    def check(self, value: torch.Tensor) -> torch.Tensor:
        positive_diagonal = (value.diagonal(dim1=-2, dim2=-1) > 0).all(-1)
        return _is_lower_triangular(value) & positive_diagonal


class _CorrCholesky(Constraint):
    """Lower Cholesky factors of correlation matrices (rows of unit length)."""

    event_dim = 2

    def check(self, value: torch.Tensor) -> torch.Tensor:
        tol = torch.finfo(value.dtype).eps * value.size(-1) * 10
        row_norm = value.detach().square().sum(-1).sqrt()
        unit_rows = (row_norm - 1.0).abs().le(tol).all(-1)
        return _LowerCholesky().check(value) & unit_rows


class _Square(Constraint):
    """Square matrices."""

    event_dim = 2

    def check(self, value: torch.Tensor) -> torch.Tensor:
        is_square = value.shape[-2] == value.shape[-1]
        return torch.full(tuple(value.shape[:-2]), is_square, dtype=torch.bool)


class _Symmetric(_Square):
    """Symmetric square matrices."""

    def check(self, value: torch.Tensor) -> torch.Tensor:
        square = super().check(value)
        if not bool(square.all()):
            return square
        return _all_last(torch.isclose(value, value.mT, atol=1e-6), 2)


class _PositiveSemidefinite(_Symmetric):
    """Symmetric positive-semidefinite matrices."""

    def check(self, value: torch.Tensor) -> torch.Tensor:
        sym = super().check(value)
        if not bool(sym.all()):
            return sym
        return torch.linalg.eigvalsh(value).ge(0).all(-1)


class _PositiveDefinite(_Symmetric):
    """Symmetric positive-definite matrices (those with a Cholesky factor)."""

    def check(self, value: torch.Tensor) -> torch.Tensor:
        sym = super().check(value)
        if not bool(sym.all()):
            return sym
        return torch.linalg.cholesky_ex(value).info.eq(0)


class _Cat(Constraint):
    """Applies constraints ``cseq`` to consecutive slices (of ``lengths``) along ``dim``."""

    def __init__(self, cseq: Sequence[Constraint], dim: int = 0, lengths: Optional[Sequence[int]] = None) -> None:
        if not all(isinstance(c, Constraint) for c in cseq):
            raise AssertionError("All elements of cseq must be Constraint instances")
        self.cseq = list(cseq)
        self.lengths = list(lengths) if lengths is not None else [1] * len(self.cseq)
        if len(self.lengths) != len(self.cseq):
            raise AssertionError(f"lengths ({len(self.lengths)}) must match cseq ({len(self.cseq)})")
        self.dim = dim

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        return max(c.event_dim for c in self.cseq)

    def check(self, value: torch.Tensor) -> torch.Tensor:
        checks, start = [], 0
        for constraint, length in zip(self.cseq, self.lengths):
            checks.append(constraint.check(value.narrow(self.dim, start, length)))
            start += length
        return torch.cat(checks, self.dim)


class _Stack(Constraint):
    """Applies constraint ``cseq[i]`` to ``value.select(dim, i)``."""

    def __init__(self, cseq: Sequence[Constraint], dim: int = 0) -> None:
        if not all(isinstance(c, Constraint) for c in cseq):
            raise AssertionError("All elements of cseq must be Constraint instances")
        self.cseq = list(cseq)
        self.dim = dim

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        dim = max(c.event_dim for c in self.cseq)
        return dim + 1 if self.dim + dim < 0 else dim

    def check(self, value: torch.Tensor) -> torch.Tensor:
        parts = [value.select(self.dim, i) for i in range(value.size(self.dim))]
        return torch.stack([c.check(v) for v, c in zip(parts, self.cseq)], self.dim)


dependent = _Dependent()
dependent_property = _DependentProperty
independent = _IndependentConstraint
boolean = _Boolean()
one_hot = _OneHot()
nonnegative_integer = _IntegerGreaterThan(0)
positive_integer = _IntegerGreaterThan(1)
integer_interval = _IntegerInterval
real = _Real()
real_vector = independent(real, 1)
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
greater_than = _GreaterThan
greater_than_eq = _GreaterThanEq
less_than = _LessThan
multinomial = _Multinomial
unit_interval = _Interval(0.0, 1.0)
interval = _Interval
half_open_interval = _HalfOpenInterval
simplex = _Simplex()
lower_triangular = _LowerTriangular()
lower_cholesky = _LowerCholesky()
corr_cholesky = _CorrCholesky()
square = _Square()
symmetric = _Symmetric()
positive_semidefinite = _PositiveSemidefinite()
positive_definite = _PositiveDefinite()
cat = _Cat
stack = _Stack
