"""Distribution: the abstract base class of all probability distributions."""

from __future__ import annotations

import warnings
from typing import Any, Dict, Optional, Sequence

import ferrotorch as torch

from . import constraints
from .utils import lazy_property

__all__ = ["Distribution"]

_Shape = Sequence[int]


def _as_size(shape: Any) -> torch.Size:
    return shape if isinstance(shape, torch.Size) else torch.Size(tuple(shape))


class Distribution:
    """Abstract base class for probability distributions.

    Args:
        batch_shape: the shape over which parameters are batched.
        event_shape: the shape of a single sample (without batching).
        validate_args: whether to check parameters and values; ``None`` uses the
            default set by :meth:`set_default_validate_args` (on unless Python runs with ``-O``).
    """

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        """Turns argument validation on or off for distributions built afterwards."""
        if value not in [True, False]:
            raise ValueError
        Distribution._validate_args = value

    def __init__(
        self,
        batch_shape: _Shape = torch.Size(),
        event_shape: _Shape = torch.Size(),
        validate_args: Optional[bool] = None,
    ) -> None:
        self._batch_shape = _as_size(batch_shape)
        self._event_shape = _as_size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            self._check_parameters()
        super().__init__()

    def _check_parameters(self) -> None:
        try:
            arg_constraints = self.arg_constraints
        except NotImplementedError:
            arg_constraints = {}
            warnings.warn(
                f"{self.__class__} does not define `arg_constraints`. "
                "Please set `arg_constraints = {}` or initialize the distribution "
                "with `validate_args=False` to turn off validation.",
                stacklevel=3,
            )
        for param, constraint in arg_constraints.items():
            if constraints.is_dependent(constraint):
                continue
            if param not in self.__dict__ and isinstance(getattr(type(self), param), lazy_property):
                continue  # a parameter computed from another one was checked through that one
            value = getattr(self, param)
            if not bool(constraint.check(value).all()):
                raise ValueError(
                    f"Expected parameter {param} "
                    f"({type(value).__name__} of shape {tuple(value.shape)}) "
                    f"of distribution {self!r} "
                    f"to satisfy the constraint {constraint!r}, "
                    f"but found invalid values:\n{_format_value(value)}"
                )

    def expand(self, batch_shape: _Shape, _instance: Any = None) -> "Distribution":
        """A new distribution whose parameters are expanded (not copied) to ``batch_shape``."""
        raise NotImplementedError

    @property
    def batch_shape(self) -> torch.Size:
        """The shape over which parameters are batched."""
        return self._batch_shape

    @property
    def event_shape(self) -> torch.Size:
        """The shape of a single sample (without batching)."""
        return self._event_shape

    @property
    def arg_constraints(self) -> Dict[str, constraints.Constraint]:
        """The constraint each tensor parameter must satisfy, by parameter name."""
        raise NotImplementedError

    @property
    def support(self) -> Optional[constraints.Constraint]:
        """The constraint describing the values this distribution can take."""
        raise NotImplementedError

    @property
    def mean(self) -> torch.Tensor:
        """The mean of the distribution."""
        raise NotImplementedError

    @property
    def mode(self) -> torch.Tensor:
        """The mode of the distribution."""
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self) -> torch.Tensor:
        """The variance of the distribution."""
        raise NotImplementedError

    @property
    def stddev(self) -> torch.Tensor:
        """The standard deviation of the distribution."""
        return self.variance.sqrt()

    def sample(self, sample_shape: _Shape = torch.Size()) -> torch.Tensor:
        """A sample of shape ``sample_shape + batch_shape + event_shape`` (no gradient)."""
        with torch.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape: _Shape = torch.Size()) -> torch.Tensor:
        """A reparameterized sample: gradients flow back to the parameters."""
        raise NotImplementedError

    def sample_n(self, n: int) -> torch.Tensor:
        """Deprecated: ``sample((n,))``."""
        warnings.warn("`sample_n(n)` will be deprecated. Use `sample((n,))` instead.", FutureWarning, stacklevel=2)
        return self.sample(torch.Size((n,)))

    def log_prob(self, value: torch.Tensor) -> torch.Tensor:
        """The log of the probability density/mass function at ``value``."""
        raise NotImplementedError

    def cdf(self, value: torch.Tensor) -> torch.Tensor:
        """The cumulative distribution function at ``value``."""
        raise NotImplementedError

    def icdf(self, value: torch.Tensor) -> torch.Tensor:
        """The inverse cumulative distribution function at ``value``."""
        raise NotImplementedError

    def enumerate_support(self, expand: bool = True) -> torch.Tensor:
        """All values of a discrete distribution along dim 0: shape
        ``(cardinality,) + batch_shape + event_shape`` (batch dims of size 1 unless ``expand``)."""
        raise NotImplementedError

    def entropy(self) -> torch.Tensor:
        """The entropy, batched over ``batch_shape``."""
        raise NotImplementedError

    def perplexity(self) -> torch.Tensor:
        """``exp(entropy)``, batched over ``batch_shape``."""
        return torch.exp(self.entropy())

    def _extended_shape(self, sample_shape: _Shape = torch.Size()) -> torch.Size:
        """``sample_shape + batch_shape + event_shape``."""
        return torch.Size(tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape))

    def _validate_sample(self, value: torch.Tensor) -> None:
        """Checks that ``value`` has a compatible shape and lies in the support."""
        if not isinstance(value, torch.Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_dim_start = len(value.size()) - len(self._event_shape)
        if tuple(value.size()[event_dim_start:]) != tuple(self._event_shape):
            raise ValueError(
                f"The right-most size of value must match event_shape: {value.size()} vs {self._event_shape}."
            )
        actual_shape = value.size()
        expected_shape = self._batch_shape + self._event_shape
        for i, j in zip(reversed(actual_shape), reversed(expected_shape)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(
                    f"Value is not broadcastable with batch_shape+event_shape: {actual_shape} vs {expected_shape}."
                )
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(
                f"{self.__class__} does not define `support` to enable "
                "sample validation. Please initialize the distribution with "
                "`validate_args=False` to turn off validation.",
                stacklevel=2,
            )
            return
        if support is None:
            raise AssertionError("support is unexpectedly None")
        if not bool(support.check(value).all()):
            raise ValueError(
                "Expected value argument "
                f"({type(value).__name__} of shape {tuple(value.shape)}) "
                f"to be within the support ({support!r}) "
                f"of the distribution {self!r}, "
                f"but found invalid values:\n{_format_value(value)}"
            )

    def _get_checked_instance(self, cls: type, _instance: Any = None) -> Any:
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(
                f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom __init__ method "
                "must also define a custom .expand() method."
            )
        return self.__new__(type(self)) if _instance is None else _instance

    def __repr__(self) -> str:
        try:
            names = [k for k in self.arg_constraints if k in self.__dict__]
        except NotImplementedError:
            names = []
        parts = [f"{p}: {_format_value(v) if v.numel() == 1 else v.size()}" for p, v in ((p, self.__dict__[p]) for p in names)]
        return self.__class__.__name__ + "(" + ", ".join(parts) + ")"

    def _expanded(
        self, cls: type, batch_shape: _Shape, _instance: Any, params: Sequence[str], copy: Sequence[str] = ()
    ) -> Any:
        """The shared body of ``expand``: parameters stored on the instance are expanded to
        ``batch_shape`` plus their own trailing (event) dims; ``copy`` attributes are shared."""
        new = self._get_checked_instance(cls, _instance)
        batch_shape = _as_size(batch_shape)
        nb = len(self._batch_shape)
        for name in params:
            if name in self.__dict__:
                value = self.__dict__[name]
                expanded = value.expand(tuple(batch_shape) + tuple(value.shape[nb:]))
                setattr(new, name, expanded)
                if self.__dict__.get("_param") is value:
                    new._param = expanded
        for name in copy:
            setattr(new, name, getattr(self, name))
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new


def _format_value(value: Any) -> str:
    """Formats a parameter as PyTorch's f-strings do: a 0-d tensor as its Python number."""
    if isinstance(value, torch.Tensor) and value.dim() == 0:
        return str(value.item())
    return str(value)
