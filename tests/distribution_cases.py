"""The table of distribution cases the tests run against PyTorch: each case builds the
same distribution in ferrotorch and in PyTorch from one recipe ``build(dists, T)``, where
``dists`` is the library's ``distributions`` module and ``T`` makes a tensor of the case's
dtype in that library. ``value`` is scored by log_prob/cdf, ``quantiles`` by icdf."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, List, Optional, Tuple

import ferrotorch as torch
from torch_oracle import pt

Q3 = [0.1, 0.5, 0.9]


def _quantiles_like(value: Any) -> Any:
    """Probabilities with the nested shape of ``value`` (so they broadcast the same way)."""
    levels = iter([0.1, 0.5, 0.9, 0.3, 0.75, 0.05] * 10)

    def fill(v: Any) -> Any:
        return [fill(x) for x in v] if isinstance(v, list) else next(levels)

    return fill(value)


@dataclass
class Case:
    id: str
    build: Callable[[Any, Callable], Any]
    value: Any
    dtype: str = "float64"
    value_dtype: Optional[str] = None
    quantiles: Any = None
    # Statistical sample checks: "moments", "cdf" (probability integral transform), "pmf" or None.
    stat: Optional[str] = "moments"
    tags: List[str] = field(default_factory=list)
    # Positions (in order of T calls) of tensors that are not differentiable parameters (counts).
    constant_params: Tuple[int, ...] = ()

    def tensors(self, lib: Any) -> Callable:
        def T(x: Any, dtype: Optional[str] = None) -> Any:
            return lib.tensor(x, dtype=getattr(lib, dtype or self.dtype))

        return T

    def make(self, lib: Any) -> Any:
        return self.build(lib.distributions, self.tensors(lib))

    def ours(self) -> Any:
        return self.make(torch)

    def theirs(self) -> Any:
        return self.make(pt)

    def value_in(self, lib: Any) -> Any:
        return self.tensors(lib)(self.value, self.value_dtype)

    def quantiles_in(self, lib: Any) -> Any:
        return self.tensors(lib)(self.quantiles if self.quantiles is not None else _quantiles_like(self.value))


def _loc_scale(name: str, positive_values: bool = False, stat: str = "moments") -> List[Case]:
    """Scalar-number, batched float64 and broadcast float32 cases for a (loc, scale) family."""
    v = [0.4, 1.3, 2.5] if positive_values else [-0.7, 0.3, 2.5]
    return [
        Case(f"{name}-numbers", lambda d, T: getattr(d, name)(0.5, 2.0), v, stat=stat),
        Case(f"{name}-batched", lambda d, T: getattr(d, name)(T([0.0, 1.0, -0.5]), T([1.0, 0.5, 3.0])), v, stat=stat),
        Case(
            f"{name}-broadcast-f32",
            lambda d, T: getattr(d, name)(T([[0.0], [0.25]]), T([1.0, 2.0, 0.7])),
            v,
            dtype="float32",
            stat=stat,
        ),
    ]


def _tr(d: Any) -> Any:
    return d.transforms


CASES: List[Case] = [
    *_loc_scale("Normal"),
    *_loc_scale("Laplace"),
    *_loc_scale("Cauchy", stat="cdf"),
    *_loc_scale("Gumbel"),
    *_loc_scale("LogNormal", positive_values=True, stat="cdf"),
    Case("HalfNormal-batched", lambda d, T: d.HalfNormal(T([1.0, 0.5, 3.0])), [0.2, 1.0, 4.0]),
    Case("HalfNormal-number-f32", lambda d, T: d.HalfNormal(2.0), [0.2, 1.0, 4.0], dtype="float32"),
    Case("HalfCauchy-batched", lambda d, T: d.HalfCauchy(T([1.0, 0.5, 3.0])), [0.2, 1.0, 4.0], stat="cdf"),
    Case("HalfCauchy-number-f32", lambda d, T: d.HalfCauchy(2.0), [0.2, 1.0, 4.0], dtype="float32", stat="cdf"),
    Case("Pareto-batched", lambda d, T: d.Pareto(T([1.0, 0.5, 2.0]), T([3.0, 5.0, 2.5])), [1.5, 0.75, 4.0], stat="cdf"),
    Case("Pareto-broadcast-f32", lambda d, T: d.Pareto(T([[1.0], [2.0]]), T([3.0, 5.0])), [2.5, 3.0], dtype="float32", stat="cdf"),
    Case("ContinuousBernoulli-probs", lambda d, T: d.ContinuousBernoulli(probs=T([0.2, 0.5, 0.9])), [0.1, 0.5, 0.8]),
    Case(
        "ContinuousBernoulli-logits-f32",
        lambda d, T: d.ContinuousBernoulli(logits=T([-1.0, 0.001, 2.0])),
        [0.1, 0.5, 0.8],
        dtype="float32",
    ),
    Case("LogisticNormal", lambda d, T: d.LogisticNormal(T([[0.0, 1.0], [0.5, -0.5]]), T([1.0, 0.5])), [0.2, 0.3, 0.5], stat=None),
    Case("Uniform-batched", lambda d, T: d.Uniform(T([0.0, -1.0, 2.0]), T([1.0, 1.0, 5.0])), [0.5, 0.0, 2.5]),
    Case("Uniform-numbers", lambda d, T: d.Uniform(-1.0, 3.0), [0.5, -0.5, 2.5]),
    Case(
        "Uniform-broadcast-f32",
        lambda d, T: d.Uniform(T([[0.0], [0.5]]), T([1.0, 2.0, 3.0])),
        [0.75, 0.9, 0.6],
        dtype="float32",
    ),
    Case("Exponential-batched", lambda d, T: d.Exponential(T([0.5, 1.0, 3.0])), [0.1, 1.0, 2.5]),
    Case("Exponential-number-f32", lambda d, T: d.Exponential(1.5), [[0.1], [2.0]], dtype="float32"),
    Case("Bernoulli-probs", lambda d, T: d.Bernoulli(probs=T([0.2, 0.5, 0.9])), [1.0, 0.0, 1.0], stat="pmf"),
    Case("Bernoulli-logits-f32", lambda d, T: d.Bernoulli(logits=T([[-1.0, 0.0, 2.0]])), [[0.0, 1.0, 1.0]], dtype="float32", stat="pmf"),
    Case("Bernoulli-number", lambda d, T: d.Bernoulli(0.3), [0.0, 1.0], stat="pmf"),
    Case("Geometric-probs", lambda d, T: d.Geometric(probs=T([0.2, 0.5, 0.9])), [0.0, 3.0, 1.0], stat="pmf"),
    Case("Geometric-logits-f32", lambda d, T: d.Geometric(logits=T([-1.0, 0.0, 2.0])), [2.0, 0.0, 1.0], dtype="float32", stat="pmf"),
    Case(
        "Categorical-probs",
        lambda d, T: d.Categorical(probs=T([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]])),
        [[2, 0], [1, 1]],
        value_dtype="int64",
        stat="pmf",
    ),
    Case(
        "Categorical-logits-f32",
        lambda d, T: d.Categorical(logits=T([[[1.0, 0.0, -1.0, 2.0]], [[0.5, 0.5, 0.0, 0.0]]])),
        [3, 1],
        dtype="float32",
        value_dtype="int64",
        stat="pmf",
    ),
    Case("Categorical-unbatched", lambda d, T: d.Categorical(probs=T([2.0, 1.0, 1.0])), [0, 2, 1], value_dtype="int64", stat="pmf"),
    Case(
        "OneHotCategorical-probs",
        lambda d, T: d.OneHotCategorical(probs=T([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]])),
        [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]],
        stat="pmf",
    ),
    Case(
        "OneHotCategorical-logits-f32",
        lambda d, T: d.OneHotCategorical(logits=T([1.0, 0.0, -1.0])),
        [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]],
        dtype="float32",
        stat="pmf",
    ),
    Case(
        "OneHotCategoricalStraightThrough",
        lambda d, T: d.OneHotCategoricalStraightThrough(probs=T([[0.1, 0.9], [0.6, 0.4]])),
        [[0.0, 1.0], [0.0, 1.0]],
        stat="pmf",
    ),
    Case(
        "MultivariateNormal-cov",
        lambda d, T: d.MultivariateNormal(T([0.0, 1.0, -1.0]), T([[2.0, 0.5, 0.1], [0.5, 1.0, 0.2], [0.1, 0.2, 0.5]])),
        [[0.3, -1.0, 0.0], [1.0, 1.0, 1.0]],
    ),
    Case(
        "MultivariateNormal-precision",
        lambda d, T: d.MultivariateNormal(T([[0.0, 1.0], [2.0, -1.0]]), precision_matrix=T([[2.0, 0.5], [0.5, 1.0]])),
        [0.3, -1.0],
    ),
    Case(
        "MultivariateNormal-scale_tril-f32",
        lambda d, T: d.MultivariateNormal(
            T([0.0, 1.0]), scale_tril=T([[[1.0, 0.0], [0.5, 2.0]], [[0.3, 0.0], [-0.2, 0.7]]])
        ),
        [[0.3, -1.0], [1.0, 1.0]],
        dtype="float32",
    ),
    Case(
        "LowRankMultivariateNormal",
        lambda d, T: d.LowRankMultivariateNormal(
            T([[0.0, 1.0, -1.0], [0.5, 0.5, 0.5]]), T([[1.0, 0.5], [0.0, 2.0], [-1.0, 0.3]]), T([0.5, 1.0, 2.0])
        ),
        [0.3, -1.0, 0.0],
    ),
    Case(
        "LowRankMultivariateNormal-f32",
        lambda d, T: d.LowRankMultivariateNormal(T([0.0, 1.0]), T([[[1.0], [0.5]], [[0.2], [-1.0]]]), T([[0.5, 1.0]])),
        [[0.3, -1.0]],
        dtype="float32",
    ),
    Case("VonMises", lambda d, T: d.VonMises(T([0.0, 1.0, -2.0]), T([0.5, 2.0, 5.0])), [0.3, -1.0, 3.0], stat=None),
    Case("VonMises-f32", lambda d, T: d.VonMises(T([[0.5], [1.0]]), T([0.1, 4.0])), [0.3, -1.0], dtype="float32", stat=None),
    Case(
        "GeneralizedPareto",
        lambda d, T: d.GeneralizedPareto(T([0.0, 1.0, -1.0]), T([1.0, 0.5, 2.0]), T([0.3, 0.0, -0.2])),
        [0.5, 1.2, 2.0],
        dtype="float32",  # PyTorch's GeneralizedPareto fails in float64 (isclose against a float32 zero)
        stat="cdf",
    ),
    Case(
        "GeneralizedPareto-numbers-f32",
        lambda d, T: d.GeneralizedPareto(0.0, 2.0, 0.2),
        [0.5, 1.2, 2.0],
        dtype="float32",
        stat="cdf",
    ),
    # The gamma family: samplers are rejection-based, so rsample gradients are implicit ("implicit" tag).
    Case("Gamma-batched", lambda d, T: d.Gamma(T([0.5, 2.0, 5.0]), T([1.0, 0.5, 3.0])), [0.3, 2.0, 1.5], tags=["implicit"]),
    Case("Gamma-numbers-f32", lambda d, T: d.Gamma(2.0, 3.0), [0.3, 2.0, 1.5], dtype="float32", tags=["implicit"]),
    Case(
        "Gamma-broadcast-f32",
        lambda d, T: d.Gamma(T([[0.7], [3.0]]), T([1.0, 2.0])),
        [0.3, 2.0],
        dtype="float32",
        tags=["implicit"],
    ),
    Case("Chi2", lambda d, T: d.Chi2(T([1.0, 3.0, 10.0])), [0.5, 2.0, 8.0], tags=["implicit"]),
    Case("Beta-batched", lambda d, T: d.Beta(T([0.5, 2.0, 5.0]), T([0.5, 3.0, 1.0])), [0.2, 0.5, 0.9], tags=["implicit"]),
    Case("Beta-numbers-f32", lambda d, T: d.Beta(2.0, 3.0), [0.2, 0.5, 0.9], dtype="float32", tags=["implicit"]),
    Case(
        "Dirichlet-batched",
        lambda d, T: d.Dirichlet(T([[0.5, 1.0, 2.0], [3.0, 1.0, 0.3]])),
        [0.2, 0.3, 0.5],
        tags=["implicit"],
    ),
    Case("Dirichlet-f32", lambda d, T: d.Dirichlet(T([2.0, 4.0])), [[0.25, 0.75], [0.5, 0.5]], dtype="float32", tags=["implicit"]),
    Case(
        "StudentT-heavy",
        lambda d, T: d.StudentT(T([0.8, 1.5, 5.0]), T([0.0, 1.0, -1.0]), T([1.0, 2.0, 0.5])),
        [0.5, -2.0, 3.0],
        stat=None,
        tags=["implicit"],
    ),
    Case("StudentT", lambda d, T: d.StudentT(T([6.0, 10.0]), T([0.5, -1.0]), T([2.0, 0.5])), [0.5, -2.0], tags=["implicit"]),
    Case("StudentT-number-f32", lambda d, T: d.StudentT(7.0), [0.5, -2.0], dtype="float32", tags=["implicit"]),
    Case("Poisson", lambda d, T: d.Poisson(T([0.5, 3.0, 20.0])), [0.0, 2.0, 18.0], stat="pmf"),
    Case("Poisson-number-f32", lambda d, T: d.Poisson(4.0), [0.0, 2.0, 7.0], dtype="float32", stat="pmf"),
    Case(
        "Binomial-probs",
        lambda d, T: d.Binomial(T([5.0, 5.0, 5.0]), T([0.2, 0.5, 0.9])),
        [0.0, 2.0, 5.0],
        stat="pmf",
        constant_params=(0,),
    ),
    Case("Binomial-logits-f32", lambda d, T: d.Binomial(10, logits=T([-1.0, 0.0, 2.0])), [3.0, 5.0, 9.0], dtype="float32", stat="pmf"),
    Case(
        "Binomial-inhomogeneous",
        lambda d, T: d.Binomial(T([3.0, 10.0]), T([0.3, 0.6])),
        [1.0, 7.0],
        stat="pmf",
        constant_params=(0,),
    ),
    Case(
        "Multinomial",
        lambda d, T: d.Multinomial(4, T([[0.2, 0.3, 0.5], [0.5, 0.25, 0.25]])),
        [[1.0, 1.0, 2.0], [4.0, 0.0, 0.0]],
        stat="pmf",
    ),
    Case("Multinomial-logits-f32", lambda d, T: d.Multinomial(3, logits=T([0.0, 1.0])), [[1.0, 2.0]], dtype="float32", stat="pmf"),
    Case(
        "NegativeBinomial",
        lambda d, T: d.NegativeBinomial(T([2.0, 5.0, 0.5]), T([0.3, 0.5, 0.8])),
        [0.0, 3.0, 1.0],
        stat="pmf",
    ),
    Case(
        "NegativeBinomial-logits-f32",
        lambda d, T: d.NegativeBinomial(T([3.0]), logits=T([-0.5, 0.5])),
        [2.0, 0.0],
        dtype="float32",
        stat="pmf",
    ),
    Case("Weibull", lambda d, T: d.Weibull(T([1.0, 2.0, 0.5]), T([0.8, 1.5, 3.0])), [0.3, 2.0, 0.5], stat="cdf"),
    Case("Weibull-numbers-f32", lambda d, T: d.Weibull(2.0, 1.5), [0.3, 2.0, 0.5], dtype="float32", stat="cdf"),
    Case("Kumaraswamy", lambda d, T: d.Kumaraswamy(T([0.5, 2.0, 5.0]), T([0.5, 3.0, 1.0])), [0.2, 0.5, 0.9], stat="cdf"),
    Case(
        "FisherSnedecor",
        lambda d, T: d.FisherSnedecor(T([5.0, 10.0, 1.5]), T([30.0, 40.0, 3.0])),
        [0.5, 1.2, 2.0],
        stat=None,
        tags=["implicit"],
    ),
    Case("FisherSnedecor-f32", lambda d, T: d.FisherSnedecor(T([5.0, 10.0]), T([30.0, 40.0])), [0.5, 1.2], dtype="float32", tags=["implicit"]),
    Case("InverseGamma", lambda d, T: d.InverseGamma(T([6.0, 8.0, 1.5]), T([1.0, 2.0, 0.5])), [0.3, 0.2, 1.0], stat=None, tags=["implicit"]),
    Case("InverseGamma-f32", lambda d, T: d.InverseGamma(T([6.0, 8.0]), T([1.0, 2.0])), [0.3, 0.2], dtype="float32", tags=["implicit"]),
    Case(
        "LKJCholesky",
        lambda d, T: d.LKJCholesky(3, T([0.5, 2.0])),
        [[1.0, 0.0, 0.0], [0.6, 0.8, 0.0], [0.0, 0.6, 0.8]],
        stat=None,
    ),
    Case(
        "LKJCholesky-number-f32",
        lambda d, T: d.LKJCholesky(2, 1.5),
        [[1.0, 0.0], [-0.28, 0.96]],
        dtype="float32",
        stat=None,
    ),
    Case(
        "Wishart-cov",
        lambda d, T: d.Wishart(T([4.0, 6.0]), covariance_matrix=T([[2.0, 0.5], [0.5, 1.0]])),
        [[1.5, 0.2], [0.2, 0.8]],
        tags=["implicit"],
    ),
    Case(
        "Wishart-scale_tril-f32",
        lambda d, T: d.Wishart(T(5.0), scale_tril=T([[1.0, 0.0, 0.0], [0.5, 2.0, 0.0], [0.1, -0.3, 0.7]])),
        [[2.0, 0.5, 0.1], [0.5, 3.0, 0.2], [0.1, 0.2, 1.0]],
        dtype="float32",
        tags=["implicit"],
    ),
    Case(
        "Wishart-precision",
        lambda d, T: d.Wishart(T(3.5), precision_matrix=T([[2.0, 0.5], [0.5, 1.0]])),
        [[1.5, 0.2], [0.2, 0.8]],
        stat=None,
        tags=["implicit"],
    ),
    Case(
        "Independent-Normal",
        lambda d, T: d.Independent(d.Normal(T([[0.0, 1.0, 2.0], [1.0, 0.0, -1.0]]), T([1.0, 2.0, 0.5])), 1),
        [0.5, 0.5, 0.5],
    ),
    Case(
        "Independent-Bernoulli-f32",
        lambda d, T: d.Independent(d.Bernoulli(probs=T([[0.2, 0.7], [0.5, 0.5]])), 2),
        [[1.0, 0.0], [0.0, 1.0]],
        dtype="float32",
        stat="pmf",
    ),
    Case(
        "Independent-0",
        lambda d, T: d.Independent(d.Exponential(T([1.0, 2.0])), 0),
        [0.5, 0.25],
    ),
    Case(
        "Transformed-affine-exp",
        lambda d, T: d.TransformedDistribution(
            d.Normal(T([0.0, 0.5]), T([1.0, 0.3])),
            [_tr(d).AffineTransform(T(1.0), T(-2.0)), _tr(d).ExpTransform()],
        ),
        [0.5, 2.0],
        stat="cdf",
    ),
    Case(
        "Transformed-sigmoid-f32",
        lambda d, T: d.TransformedDistribution(d.Normal(T([0.0, 1.0]), T([1.0, 0.5])), _tr(d).SigmoidTransform()),
        [0.3, 0.8],
        dtype="float32",
        stat="cdf",
    ),
    Case(
        "Transformed-tanh",
        lambda d, T: d.TransformedDistribution(d.Laplace(T([0.0, 1.0]), T([1.0, 0.5])), [_tr(d).TanhTransform()]),
        [0.3, -0.8],
        stat="cdf",
    ),
    Case(
        "Transformed-power",
        lambda d, T: d.TransformedDistribution(d.Exponential(T([1.0, 2.0])), [_tr(d).PowerTransform(T(0.5))]),
        [0.3, 1.5],
        stat="cdf",
    ),
    Case(
        "Transformed-stickbreaking",
        lambda d, T: d.TransformedDistribution(
            d.Independent(d.Normal(T([[0.0, 1.0], [0.5, -0.5]]), T([1.0, 0.5])), 1), [_tr(d).StickBreakingTransform()]
        ),
        [0.2, 0.3, 0.5],
        stat=None,
    ),
    Case(
        "Transformed-independent-affine",
        lambda d, T: d.TransformedDistribution(
            d.Normal(T([0.0, 1.0]), T([1.0, 2.0])), [_tr(d).AffineTransform(T([1.0, 2.0]), T([2.0, -0.5]), event_dim=1)]
        ),
        [0.5, 1.5],
        stat=None,
    ),
    Case(
        "RelaxedBernoulli",
        lambda d, T: d.RelaxedBernoulli(T([0.5, 2.0]), probs=T([0.3, 0.8])),
        [0.2, 0.9],
        stat=None,
    ),
    Case(
        "RelaxedBernoulli-logits-f32",
        lambda d, T: d.RelaxedBernoulli(T(0.7), logits=T([[-1.0], [2.0]])),
        [0.4, 0.6],
        dtype="float32",
        stat=None,
    ),
    Case(
        "RelaxedOneHotCategorical",
        lambda d, T: d.RelaxedOneHotCategorical(T(0.5), probs=T([[0.2, 0.3, 0.5], [0.6, 0.2, 0.2]])),
        [0.1, 0.3, 0.6],
        stat=None,
    ),
    Case(
        "MixtureSameFamily-Normal",
        lambda d, T: d.MixtureSameFamily(
            d.Categorical(probs=T([0.3, 0.7])), d.Normal(T([[-1.0, 2.0], [0.0, 0.5]]), T([[1.0, 0.5], [2.0, 0.3]]))
        ),
        [0.1, 1.5],
        stat="cdf",
    ),
    Case(
        "MixtureSameFamily-Independent-f32",
        lambda d, T: d.MixtureSameFamily(
            d.Categorical(logits=T([0.0, 1.0, -1.0])),
            d.Independent(d.Normal(T([[0.0, 0.0], [1.0, 2.0], [-1.0, 0.5]]), T([[1.0, 1.0], [0.5, 0.5], [2.0, 1.0]])), 1),
        ),
        [[0.1, 1.5], [1.0, 2.0]],
        dtype="float32",
    ),
]

BY_ID = {c.id: c for c in CASES}
