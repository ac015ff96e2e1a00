"""kl_divergence against PyTorch for every registered pair ferrotorch has, register_kl
dispatch (most specific pair, ambiguity warning) and the errors for unregistered pairs."""

from __future__ import annotations

from typing import Any, Callable

import pytest

import ferrotorch as torch
from torch_oracle import assert_close, needs_torch, pt

pytestmark = needs_torch


def _pair(p: Callable, q: Callable, dtype: str = "float64") -> Callable:
    def build(lib: Any) -> Any:
        def T(x: Any) -> Any:
            return lib.tensor(x, dtype=getattr(lib, dtype))

        d = lib.distributions
        return p(d, T), q(d, T)

    build.dtype = dtype  # type: ignore[attr-defined]
    return build


def normal(d: Any, T: Any) -> Any:
    return d.Normal(T([0.0, 1.0, -0.5]), T([1.0, 0.5, 2.0]))


def normal2(d: Any, T: Any) -> Any:
    return d.Normal(T([[0.3], [-1.0]]), T([0.7, 1.5, 1.0]))


def uniform(d: Any, T: Any) -> Any:
    return d.Uniform(T([0.0, -1.0, 0.5]), T([1.0, 2.0, 0.75]))


def uniform_wide(d: Any, T: Any) -> Any:
    return d.Uniform(T([-0.5, -1.0, 0.6]), T([1.5, 2.0, 3.0]))


def exponential(d: Any, T: Any) -> Any:
    return d.Exponential(T([0.5, 1.0, 3.0]))


def laplace(d: Any, T: Any) -> Any:
    return d.Laplace(T([0.0, 1.0, -0.5]), T([1.0, 0.5, 2.0]))


def gumbel(d: Any, T: Any) -> Any:
    return d.Gumbel(T([0.2, -1.0, 0.5]), T([1.5, 0.5, 1.0]))


def cauchy(d: Any, T: Any) -> Any:
    return d.Cauchy(T([0.2, -1.0, 0.5]), T([1.5, 0.5, 1.0]))


def cbern(d: Any, T: Any) -> Any:
    return d.ContinuousBernoulli(probs=T([0.2, 0.5, 0.9]))


def pareto(d: Any, T: Any) -> Any:
    return d.Pareto(T([1.0, 0.5, 2.0]), T([3.0, 1.5, 2.5]))


def lowrank(d: Any, T: Any) -> Any:
    return d.LowRankMultivariateNormal(T([0.0, 1.0, -1.0]), T([[1.0, 0.5], [0.0, 2.0], [-1.0, 0.3]]), T([0.5, 1.0, 2.0]))


def lowrank2(d: Any, T: Any) -> Any:
    return d.LowRankMultivariateNormal(T([[0.5, 0.0, 0.0], [1.0, 1.0, 1.0]]), T([[0.3], [1.0], [-0.5]]), T([[1.0, 2.0, 0.5]]))


def mvn3(d: Any, T: Any) -> Any:
    return d.MultivariateNormal(T([0.2, 0.0, 1.0]), T([[2.0, 0.3, 0.0], [0.3, 1.0, 0.1], [0.0, 0.1, 0.7]]))


def gamma(d: Any, T: Any) -> Any:
    return d.Gamma(T([0.5, 2.0, 5.0]), T([1.0, 0.5, 3.0]))


def beta(d: Any, T: Any) -> Any:
    return d.Beta(T([0.5, 2.0, 5.0]), T([0.5, 3.0, 1.0]))


def poisson(d: Any, T: Any) -> Any:
    return d.Poisson(T([0.5, 3.0, 20.0]))


PAIRS = {
    "Normal-Normal": _pair(normal, normal2),
    "Normal-Normal-f32": _pair(normal, normal2, "float32"),
    "Bernoulli-Bernoulli": _pair(
        lambda d, T: d.Bernoulli(probs=T([0.0, 0.3, 1.0, 0.5])), lambda d, T: d.Bernoulli(logits=T([0.5, -1.0, 2.0, 0.0]))
    ),
    "Bernoulli-Bernoulli-edges": _pair(
        lambda d, T: d.Bernoulli(probs=T([0.5, 0.5, 0.0, 1.0])), lambda d, T: d.Bernoulli(probs=T([0.0, 1.0, 0.0, 1.0]))
    ),
    "Categorical-Categorical": _pair(
        lambda d, T: d.Categorical(probs=T([[0.2, 0.3, 0.5], [0.0, 0.5, 0.5]])),
        lambda d, T: d.Categorical(logits=T([1.0, 0.0, -1.0])),
    ),
    "Categorical-zero-in-q": _pair(
        lambda d, T: d.Categorical(probs=T([0.2, 0.8])), lambda d, T: d.Categorical(probs=T([0.0, 1.0]))
    ),
    "OneHotCategorical-OneHotCategorical": _pair(
        lambda d, T: d.OneHotCategorical(probs=T([[0.2, 0.3, 0.5]])),
        lambda d, T: d.OneHotCategorical(probs=T([[0.4, 0.4, 0.2], [0.1, 0.1, 0.8]])),
    ),
    "Uniform-Uniform": _pair(uniform, uniform_wide),
    "Uniform-Uniform-not-covering": _pair(uniform_wide, uniform),
    "Exponential-Exponential": _pair(exponential, lambda d, T: d.Exponential(T([1.0]))),
    "Laplace-Laplace": _pair(laplace, lambda d, T: d.Laplace(T(0.5), T(1.5))),
    "MultivariateNormal-MultivariateNormal": _pair(
        lambda d, T: d.MultivariateNormal(T([0.0, 1.0]), T([[2.0, 0.3], [0.3, 0.5]])),
        lambda d, T: d.MultivariateNormal(
            T([[1.0, 0.0], [0.0, 0.0]]), scale_tril=T([[[1.0, 0.0], [0.5, 2.0]], [[0.3, 0.0], [-0.2, 0.7]]])
        ),
    ),
    "MultivariateNormal-precision-f32": _pair(
        lambda d, T: d.MultivariateNormal(T([0.0, 1.0, 0.5]), precision_matrix=T([[2.0, 0.3, 0.0], [0.3, 1.0, 0.1], [0.0, 0.1, 0.7]])),
        lambda d, T: d.MultivariateNormal(T([0.5, 0.0, 0.0]), T([[1.0, 0.2, 0.0], [0.2, 1.0, 0.0], [0.0, 0.0, 2.0]])),
        "float32",
    ),
    "Independent-Independent": _pair(
        lambda d, T: d.Independent(normal2(d, T), 1), lambda d, T: d.Independent(d.Normal(T([1.0, 0.0, 0.0]), T(2.0)), 1)
    ),
    "HalfNormal-HalfNormal": _pair(lambda d, T: d.HalfNormal(T([1.0, 2.0])), lambda d, T: d.HalfNormal(T([0.5, 3.0]))),
    "Geometric-Geometric": _pair(lambda d, T: d.Geometric(probs=T([0.3, 0.5])), lambda d, T: d.Geometric(logits=T([0.0, 1.0]))),
    "Cauchy-Cauchy": _pair(cauchy, lambda d, T: d.Cauchy(T(0.0), T(1.0))),
    "LogNormal-LogNormal (transformed)": _pair(
        lambda d, T: d.LogNormal(T([0.0, 1.0]), T([1.0, 0.5])), lambda d, T: d.LogNormal(T([0.5, 0.0]), T([2.0, 1.0]))
    ),
    "Uniform-Normal": _pair(uniform, normal),
    "Uniform-Exponential": _pair(uniform, exponential),
    "Uniform-Gumbel": _pair(uniform, gumbel),
    "Exponential-Normal": _pair(exponential, normal),
    "Exponential-Gumbel": _pair(exponential, gumbel),
    "Exponential-Uniform (inf)": _pair(exponential, uniform),
    "Laplace-Normal": _pair(laplace, normal),
    "Laplace-Uniform (inf)": _pair(laplace, uniform),
    "Normal-Laplace": _pair(normal, laplace),
    "Normal-Gumbel": _pair(normal, gumbel),
    "Normal-Exponential (inf)": _pair(normal, exponential),
    "Gumbel-Normal": _pair(gumbel, normal),
    "Gumbel-Uniform (inf)": _pair(gumbel, uniform),
    "ContinuousBernoulli-ContinuousBernoulli": _pair(cbern, lambda d, T: d.ContinuousBernoulli(logits=T([0.5, -1.0, 0.0]))),
    "Pareto-Pareto": _pair(pareto, lambda d, T: d.Pareto(T([0.5, 2.0, 1.0]), T([2.0, 2.5, 1.0]))),
    "Pareto-Exponential": _pair(pareto, exponential),
    "Pareto-Normal": _pair(pareto, normal),
    "Pareto-Uniform (inf)": _pair(pareto, uniform),
    "ContinuousBernoulli-Exponential": _pair(cbern, exponential),
    "ContinuousBernoulli-Normal": _pair(cbern, normal),
    "ContinuousBernoulli-Uniform": _pair(cbern, uniform_wide),
    "ContinuousBernoulli-Pareto (inf)": _pair(cbern, pareto),
    "Uniform-ContinuousBernoulli": _pair(lambda d, T: d.Uniform(T([0.1, 0.0, 0.2]), T([0.9, 0.5, 1.0])), cbern),
    "Uniform-Pareto": _pair(lambda d, T: d.Uniform(T([1.1, 0.0, 2.0]), T([1.9, 0.5, 3.0])), pareto),
    "Normal-Pareto (inf)": _pair(normal, pareto),
    "Exponential-ContinuousBernoulli (inf)": _pair(exponential, cbern),
    "Gumbel-Pareto (inf)": _pair(gumbel, pareto),
    "Laplace-ContinuousBernoulli (inf)": _pair(laplace, cbern),
    "LowRankMultivariateNormal-LowRankMultivariateNormal": _pair(lowrank, lowrank2),
    "LowRankMultivariateNormal-MultivariateNormal": _pair(lowrank, mvn3),
    "MultivariateNormal-LowRankMultivariateNormal": _pair(mvn3, lowrank2),
    "Gamma-Gamma": _pair(gamma, lambda d, T: d.Gamma(T([1.0, 1.0, 2.0]), T([2.0, 0.5, 1.0]))),
    "Gamma-Gamma-f32": _pair(gamma, lambda d, T: d.Gamma(T(1.5), T(2.0)), "float32"),
    "Chi2-Gamma (subclass)": _pair(lambda d, T: d.Chi2(T([1.0, 3.0, 10.0])), gamma),
    "Beta-Beta": _pair(beta, lambda d, T: d.Beta(T([1.0, 1.0, 2.0]), T([2.0, 0.5, 1.0]))),
    "Dirichlet-Dirichlet": _pair(
        lambda d, T: d.Dirichlet(T([[0.5, 1.0, 2.0], [3.0, 1.0, 0.3]])), lambda d, T: d.Dirichlet(T([1.0, 2.0, 1.0]))
    ),
    "Poisson-Poisson": _pair(poisson, lambda d, T: d.Poisson(T([1.0, 1.0, 25.0]))),
    "Binomial-Binomial": _pair(
        lambda d, T: d.Binomial(T([5.0, 8.0, 3.0]), T([0.2, 0.5, 0.9])),
        lambda d, T: d.Binomial(T([5.0, 5.0, 3.0]), logits=T([0.0, 1.0, -1.0])),
    ),
    "Gumbel-Gumbel": _pair(gumbel, lambda d, T: d.Gumbel(T([0.0, 1.0, 0.5]), T([1.0, 2.0, 0.3]))),
    "Bernoulli-Poisson": _pair(lambda d, T: d.Bernoulli(probs=T([0.2, 0.5, 0.9])), poisson),
    "Beta-Exponential": _pair(beta, exponential),
    "Beta-Gamma": _pair(beta, gamma),
    "Beta-Normal": _pair(beta, normal),
    "Beta-Uniform": _pair(beta, uniform_wide),
    "Beta-ContinuousBernoulli": _pair(beta, cbern),
    "Beta-Pareto (inf)": _pair(beta, pareto),
    "Exponential-Gamma": _pair(exponential, gamma),
    "Gamma-Exponential": _pair(gamma, exponential),
    "Gamma-Gumbel": _pair(gamma, gumbel),
    "Gamma-Normal": _pair(gamma, normal),
    "Gamma-Uniform (inf)": _pair(gamma, uniform),
    "Pareto-Gamma": _pair(pareto, gamma),
    "Poisson-Binomial (inf)": _pair(poisson, lambda d, T: d.Binomial(T(10.0), T(0.5))),
    "Uniform-Beta": _pair(lambda d, T: d.Uniform(T([0.1, 0.0, 0.2]), T([0.9, 0.5, 1.0])), beta),
    "Uniform-Gamma": _pair(uniform, gamma),
    "Normal-Gamma (inf)": _pair(normal, gamma),
    "Wishart-Wishart (Bregman)": _pair(
        lambda d, T: d.Wishart(T([4.0, 6.0]), covariance_matrix=T([[2.0, 0.5], [0.5, 1.0]])),
        lambda d, T: d.Wishart(T(5.0), scale_tril=T([[1.0, 0.0], [0.3, 0.8]])),
    ),
    "Bernoulli-Bernoulli (expfamily dispatch on subclass)": _pair(
        lambda d, T: d.Bernoulli(probs=T([0.3])), lambda d, T: d.Bernoulli(probs=T([0.6]))
    ),
}


@pytest.mark.parametrize("name", list(PAIRS))
def test_kl_divergence_matches_torch(name: str) -> None:
    build = PAIRS[name]
    (p, q), (pp, qq) = build(torch), build(pt)
    tol = dict(rtol=1e-6, atol=1e-9) if build.dtype == "float64" else dict(rtol=1e-5, atol=1e-5)
    assert_close(torch.distributions.kl_divergence(p, q), pt.distributions.kl_divergence(pp, qq), what=name, **tol)


@pytest.mark.parametrize("name", ["Normal-Normal", "MultivariateNormal-MultivariateNormal", "Laplace-Normal", "Uniform-Normal"])
def test_kl_divergence_gradients_match_torch(name: str) -> None:
    build = PAIRS[name]
    p, q = build(torch)
    pp, qq = build(pt)
    ours = [t for t in _tensor_params(p) + _tensor_params(q)]
    theirs = [t for t in _tensor_params(pp) + _tensor_params(qq)]
    for t in ours + theirs:
        t.requires_grad_(True)
    (p, q), (pp, qq) = _rebuild(name, ours, torch), _rebuild(name, theirs, pt)
    g = torch.autograd.grad(torch.distributions.kl_divergence(p, q).sum(), ours)
    h = pt.autograd.grad(pt.distributions.kl_divergence(pp, qq).sum(), theirs)
    for a, b in zip(g, h):
        assert_close(a, b, rtol=1e-6, atol=1e-9, what=name)


def _tensor_params(dist: Any) -> list:
    names = {"Normal": ("loc", "scale"), "Laplace": ("loc", "scale"), "Uniform": ("low", "high")}
    if type(dist).__name__ == "MultivariateNormal":
        return [dist.loc.detach().clone(), dist._unbroadcasted_scale_tril.detach().clone()]
    return [getattr(dist, n).detach().clone() for n in names[type(dist).__name__]]


def _rebuild(name: str, params: list, lib: Any) -> tuple:
    d = lib.distributions
    kinds = name.split("-")
    out, i = [], 0
    for kind in kinds[:2]:
        if kind == "MultivariateNormal":
            out.append(d.MultivariateNormal(params[i], scale_tril=params[i + 1]))
        else:
            out.append(getattr(d, kind)(params[i], params[i + 1]))
        i += 2
    return tuple(out)


@pytest.mark.parametrize(
    "build",
    [
        lambda d: (d.Cauchy(0.0, 1.0), d.Normal(0.0, 1.0)),
        lambda d: (d.Normal(0.0, 1.0), d.Cauchy(0.0, 1.0)),
        lambda d: (d.Categorical(probs=pt.ones(2) if d is pt.distributions else torch.ones(2)), d.Normal(0.0, 1.0)),
    ],
)
def test_unregistered_pair_raises_not_implemented(build: Callable) -> None:
    p, q = build(pt.distributions)
    with pytest.raises(NotImplementedError) as theirs:
        pt.distributions.kl_divergence(p, q)
    p, q = build(torch.distributions)
    with pytest.raises(NotImplementedError) as ours:
        torch.distributions.kl_divergence(p, q)
    assert str(ours.value) == str(theirs.value)


def test_cross_exponential_families_raise_not_implemented():
    d = torch.distributions
    with pytest.raises(NotImplementedError, match="different exponential families"):
        d.kl_divergence(d.Bernoulli(0.5), d.Exponential(1.0))


def test_kl_mvn_event_shape_mismatch_raises_value_error():
    d = torch.distributions
    p = d.MultivariateNormal(torch.zeros(2), torch.eye(2))
    q = d.MultivariateNormal(torch.zeros(3), torch.eye(3))
    with pytest.raises(ValueError, match="different event shapes"):
        d.kl_divergence(p, q)


def test_register_kl_dispatches_to_the_most_specific_pair():
    d = torch.distributions

    class MyNormal(d.Normal):
        pass

    assert float(d.kl_divergence(MyNormal(0.0, 1.0), d.Normal(1.0, 1.0))) == pytest.approx(0.5)

    @d.register_kl(MyNormal, d.Normal)
    def _kl_mine(p: Any, q: Any) -> Any:
        return torch.tensor(42.0)

    try:
        assert float(d.kl_divergence(MyNormal(0.0, 1.0), d.Normal(1.0, 1.0))) == 42.0
        assert float(d.kl_divergence(d.Normal(0.0, 1.0), d.Normal(1.0, 1.0))) == pytest.approx(0.5)

        @d.register_kl(d.Normal, MyNormal)
        def _kl_other(p: Any, q: Any) -> Any:
            return torch.tensor(7.0)

        with pytest.warns(RuntimeWarning, match="Ambiguous kl_divergence"):
            d.kl_divergence(MyNormal(0.0, 1.0), MyNormal(1.0, 1.0))
    finally:
        for key in [(MyNormal, d.Normal), (d.Normal, MyNormal)]:
            d.kl._KL_REGISTRY.pop(key, None)
        d.kl._KL_MEMOIZE.clear()


def test_register_kl_rejects_non_distribution_types():
    with pytest.raises(TypeError, match="Expected type_p to be a Distribution subclass"):
        torch.distributions.register_kl(int, torch.distributions.Normal)
    with pytest.raises(TypeError, match="Expected type_q to be a Distribution subclass"):
        torch.distributions.register_kl(torch.distributions.Normal, "Normal")


def test_registered_pairs_are_torchs_among_shared_distributions():
    ours = {(a.__name__, b.__name__) for a, b in torch.distributions.kl._KL_REGISTRY}
    theirs = {(a.__name__, b.__name__) for a, b in pt.distributions.kl._KL_REGISTRY}
    shared = set(torch.distributions.__all__)
    assert sorted(p for p in theirs - ours if p[0] in shared and p[1] in shared) == []
    assert sorted(p for p in ours - theirs if p[0] in shared and p[1] in shared) == []


def test_binomial_kl_with_larger_q_count_is_not_implemented():
    d = torch.distributions
    p = d.Binomial(torch.tensor([3.0]), torch.tensor([0.5]))
    q = d.Binomial(torch.tensor([5.0]), torch.tensor([0.5]))
    with pytest.raises(NotImplementedError, match="q.total_count > p.total_count"):
        d.kl_divergence(p, q)
