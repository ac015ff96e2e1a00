"""torch.distributions against PyTorch: properties, densities, CDFs, entropies, shapes,
expand, enumerate_support and sampling dtypes for every case in distribution_cases."""

from __future__ import annotations

from typing import Any, Callable

import pytest
from distribution_cases import CASES

import ferrotorch as torch
from torch_oracle import assert_close, needs_torch, pt

pytestmark = [needs_torch, pytest.mark.filterwarnings("ignore:Singular sample detected")]

IDS = [c.id for c in CASES]


def _tol(case: Any) -> dict:
    return dict(rtol=1e-5, atol=1e-6) if case.dtype == "float64" else dict(rtol=2e-5, atol=2e-6)


def _same_outcome(ours: Callable[[], Any], theirs: Callable[[], Any], what: str, **tol: Any) -> None:
    """Both raise the same exception class, or both return close tensors."""
    try:
        expected = theirs()
    except (NotImplementedError, ValueError) as e:
        with pytest.raises(type(e)):
            ours()
        return
    assert_close(ours(), expected, what=what, **tol)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_shapes_flags_and_support_match_torch(case: Any) -> None:
    a, b = case.ours(), case.theirs()
    assert tuple(a.batch_shape) == tuple(b.batch_shape) and isinstance(a.batch_shape, torch.Size)
    assert tuple(a.event_shape) == tuple(b.event_shape) and isinstance(a.event_shape, torch.Size)
    assert a.has_rsample == b.has_rsample
    assert a.has_enumerate_support == b.has_enumerate_support
    assert repr(a.support) == repr(b.support)
    assert a.support.event_dim == b.support.event_dim and a.support.is_discrete == b.support.is_discrete
    assert repr(a) == repr(b)


@pytest.mark.parametrize("case", CASES, ids=IDS)
@pytest.mark.parametrize("prop", ["mean", "mode", "variance", "stddev"])
def test_moments_match_torch(case: Any, prop: str) -> None:
    a, b = case.ours(), case.theirs()
    _same_outcome(lambda: getattr(a, prop), lambda: getattr(b, prop), f"{case.id}.{prop}", **_tol(case))


@pytest.mark.parametrize("case", CASES, ids=IDS)
@pytest.mark.parametrize("method", ["log_prob", "cdf", "icdf", "entropy", "perplexity"])
def test_methods_match_torch(case: Any, method: str) -> None:
    a, b = case.ours(), case.theirs()
    if method in ("entropy", "perplexity"):
        args_a: tuple = ()
        args_b: tuple = ()
    elif method == "icdf":
        args_a, args_b = (case.quantiles_in(torch),), (case.quantiles_in(pt),)
    else:
        args_a, args_b = (case.value_in(torch),), (case.value_in(pt),)
    _same_outcome(
        lambda: getattr(a, method)(*args_a), lambda: getattr(b, method)(*args_b), f"{case.id}.{method}", **_tol(case)
    )


@pytest.mark.parametrize("case", [c for c in CASES if c.make(pt).has_enumerate_support], ids=lambda c: c.id)
@pytest.mark.parametrize("expand", [True, False])
def test_enumerate_support_matches_torch(case: Any, expand: bool) -> None:
    a, b = case.ours(), case.theirs()
    try:
        expected = b.enumerate_support(expand=expand)
    except NotImplementedError as e:  # Binomial with unequal total counts
        with pytest.raises(NotImplementedError, match="Inhomogeneous total count"):
            a.enumerate_support(expand=expand)
        assert "Inhomogeneous" in str(e)
        return
    values = a.enumerate_support(expand=expand)
    assert_close(values, expected, what=case.id)
    assert_close(a.log_prob(values), b.log_prob(b.enumerate_support(expand=expand)), what=case.id, **_tol(case))


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_expand_matches_torch(case: Any) -> None:
    a, b = case.ours(), case.theirs()
    shape = (2, 1) + tuple(b.batch_shape)
    ea, eb = a.expand(shape), b.expand(shape)
    assert type(ea) is type(a)
    assert tuple(ea.batch_shape) == tuple(eb.batch_shape) == shape
    assert tuple(ea.event_shape) == tuple(eb.event_shape)
    assert ea._validate_args == a._validate_args
    assert_close(ea.log_prob(case.value_in(torch)), eb.log_prob(case.value_in(pt)), what=case.id, **_tol(case))
    assert tuple(ea.sample().shape) == tuple(eb.sample().shape)
    # expand to the same batch shape is allowed; to an incompatible one is an error
    assert tuple(a.expand(b.batch_shape).batch_shape) == tuple(b.batch_shape)


@pytest.mark.parametrize("case", CASES, ids=IDS)
@pytest.mark.parametrize("sample_shape", [(), (4,), (2, 3)], ids=["scalar", "n", "2d"])
def test_sample_shapes_and_dtypes_match_torch(case: Any, sample_shape: tuple) -> None:
    a, b = case.ours(), case.theirs()
    x = a.sample(sample_shape)
    try:
        y = b.sample(sample_shape)
        expected = tuple(y.shape), str(y.dtype)
    except RuntimeError:  # PyTorch's MixtureSameFamily cannot sample an unbatched mixture of a batch
        expected = tuple(b._extended_shape(sample_shape)), str(b.mean.dtype)
    assert (tuple(x.shape), str(x.dtype)) == expected
    assert not x.requires_grad
    assert bool(a.support.check(x).all()), f"{case.id}: a sample left the support"
    if b.has_rsample:
        r = a.rsample(sample_shape)
        assert tuple(r.shape) == tuple(b.rsample(sample_shape).shape) and r.dtype == x.dtype
    else:
        with pytest.raises(NotImplementedError):
            a.rsample(sample_shape)


def test_sample_accepts_size_and_list():
    m = torch.distributions.Normal(torch.zeros(2), torch.ones(2))
    assert m.sample(torch.Size([3])).shape == (3, 2)
    assert m.sample([3, 1]).shape == (3, 1, 2)
    with pytest.warns(FutureWarning):
        assert m.sample_n(5).shape == (5, 2)


def test_perplexity_is_exp_entropy():
    m = torch.distributions.Categorical(probs=torch.tensor([0.25, 0.25, 0.5]))
    assert abs(m.perplexity().item() - pt.distributions.Categorical(probs=pt.tensor([0.25, 0.25, 0.5])).perplexity().item()) < 1e-6


def test_lazy_probs_and_logits_round_trip():
    logits = torch.tensor([[0.5, -1.0, 2.0]], dtype=torch.float64)
    c = torch.distributions.Categorical(logits=logits)
    ref = pt.distributions.Categorical(logits=pt.tensor([[0.5, -1.0, 2.0]], dtype=pt.float64))
    assert "probs" not in c.__dict__
    assert_close(c.probs, ref.probs)
    assert "probs" in c.__dict__  # cached after first use
    assert_close(c.logits, ref.logits)
    b = torch.distributions.Bernoulli(probs=torch.tensor([0.0, 0.3, 1.0]))
    assert_close(b.logits, pt.distributions.Bernoulli(probs=pt.tensor([0.0, 0.3, 1.0])).logits)
    assert b.param_shape == (3,)


def test_distribution_module_layout():
    d = torch.distributions
    for name in pt.distributions.__all__:
        if hasattr(d, name):
            assert callable(getattr(d, name)) or name in ("constraints",)
    for name in ["distribution", "constraints", "utils", "kl", "transforms", "transformed_distribution", "normal"]:
        __import__(f"ferrotorch.distributions.{name}")
    assert d.Distribution is d.distribution.Distribution
    assert d.kl.kl_divergence is d.kl_divergence


# ---- argument validation ----

INVALID = {
    "Normal scale < 0": lambda t: t.distributions.Normal(t.tensor([0.0, 1.0]), t.tensor([1.0, -1.0])),
    "Normal scale 0 (numbers)": lambda t: t.distributions.Normal(0.0, 0.0),
    "Normal nan loc": lambda t: t.distributions.Normal(t.tensor([float("nan")]), 1.0),
    "Uniform low >= high": lambda t: t.distributions.Uniform(t.tensor([1.0, 2.0]), t.tensor([0.0, 3.0])),
    "Exponential rate 0": lambda t: t.distributions.Exponential(t.tensor([0.0, 1.0])),
    "Laplace scale": lambda t: t.distributions.Laplace(0.0, -2.0),
    "Cauchy scale": lambda t: t.distributions.Cauchy(t.zeros(2), t.tensor([1.0, -1.0])),
    "Gumbel scale": lambda t: t.distributions.Gumbel(t.zeros(2), t.tensor([1.0, -1.0])),
    "HalfNormal scale": lambda t: t.distributions.HalfNormal(t.tensor([-1.0])),
    "LogNormal scale": lambda t: t.distributions.LogNormal(0.0, -1.0),
    "Bernoulli probs > 1": lambda t: t.distributions.Bernoulli(t.tensor([0.5, 1.5])),
    "Bernoulli both": lambda t: t.distributions.Bernoulli(t.tensor([0.5]), t.tensor([0.0])),
    "Bernoulli neither": lambda t: t.distributions.Bernoulli(),
    "Geometric probs 0": lambda t: t.distributions.Geometric(t.tensor([0.0, 0.5])),
    "Categorical 0-d probs": lambda t: t.distributions.Categorical(t.tensor(0.5)),
    "Categorical 0-d logits": lambda t: t.distributions.Categorical(logits=t.tensor(0.5)),
    "Categorical negative probs": lambda t: t.distributions.Categorical(t.tensor([-0.5, 1.0])),
    "OneHotCategorical both": lambda t: t.distributions.OneHotCategorical(t.ones(2), t.ones(2)),
    "MVN not PD": lambda t: t.distributions.MultivariateNormal(t.zeros(2), t.tensor([[1.0, 2.0], [2.0, 1.0]])),
    "MVN not symmetric": lambda t: t.distributions.MultivariateNormal(t.zeros(2), t.tensor([[1.0, 0.5], [0.0, 1.0]])),
    "MVN scale_tril not lower": lambda t: t.distributions.MultivariateNormal(t.zeros(2), scale_tril=t.tensor([[1.0, 2.0], [2.0, 1.0]])),
    "MVN no matrix": lambda t: t.distributions.MultivariateNormal(t.zeros(2)),
    "MVN two matrices": lambda t: t.distributions.MultivariateNormal(t.zeros(2), t.eye(2), scale_tril=t.eye(2)),
    "MVN 0-d loc": lambda t: t.distributions.MultivariateNormal(t.tensor(0.0), t.eye(2)),
    "MVN 1-d cov": lambda t: t.distributions.MultivariateNormal(t.zeros(2), t.ones(2)),
    "MVN 1-d precision": lambda t: t.distributions.MultivariateNormal(t.zeros(2), precision_matrix=t.ones(2)),
    "Independent too many dims": lambda t: t.distributions.Independent(t.distributions.Normal(t.zeros(2), 1.0), 2),
    "Mixture not categorical": lambda t: t.distributions.MixtureSameFamily(
        t.distributions.Normal(0.0, 1.0), t.distributions.Normal(t.zeros(2), 1.0)
    ),
    "Mixture component count": lambda t: t.distributions.MixtureSameFamily(
        t.distributions.Categorical(t.ones(3)), t.distributions.Normal(t.zeros(2), t.ones(2))
    ),
    "Mixture batch": lambda t: t.distributions.MixtureSameFamily(
        t.distributions.Categorical(t.ones(3, 2)), t.distributions.Normal(t.zeros(4, 2), t.ones(4, 2))
    ),
    "RelaxedBernoulli probs": lambda t: t.distributions.RelaxedBernoulli(t.tensor(0.5), t.tensor([1.5])),
    "Normal log_prob nan": lambda t: t.distributions.Normal(0.0, 1.0).log_prob(t.tensor([float("nan")])),
    "Exponential log_prob negative": lambda t: t.distributions.Exponential(t.tensor([1.0, 2.0])).log_prob(t.tensor([-1.0, 1.0])),
    "Exponential cdf negative": lambda t: t.distributions.Exponential(2.0).cdf(t.tensor(-1.0)),
    "Uniform log_prob outside": lambda t: t.distributions.Uniform(0.0, 1.0).log_prob(t.tensor([2.0])),
    "Bernoulli log_prob 0.5": lambda t: t.distributions.Bernoulli(t.tensor([0.3])).log_prob(t.tensor([0.5])),
    "Categorical log_prob out of range": lambda t: t.distributions.Categorical(t.tensor([0.5, 0.5])).log_prob(t.tensor(2)),
    "OneHot log_prob not one-hot": lambda t: t.distributions.OneHotCategorical(t.ones(3)).log_prob(t.tensor([1.0, 1.0, 0.0])),
    "log_prob event shape": lambda t: t.distributions.MultivariateNormal(t.zeros(2), t.eye(2)).log_prob(t.zeros(3)),
    "log_prob batch shape": lambda t: t.distributions.Normal(t.zeros(2), 1.0).log_prob(t.zeros(3)),
    "log_prob not a tensor": lambda t: t.distributions.Normal(0.0, 1.0).log_prob(0.5),
    "LogNormal log_prob negative": lambda t: t.distributions.LogNormal(0.0, 1.0).log_prob(t.tensor([-1.0])),
    "Geometric log_prob fraction": lambda t: t.distributions.Geometric(t.tensor([0.5])).log_prob(t.tensor([0.5])),
    "Independent log_prob outside": lambda t: t.distributions.Independent(
        t.distributions.Exponential(t.ones(2)), 1
    ).log_prob(t.tensor([1.0, -1.0])),
    "MixtureSameFamily log_prob outside": lambda t: t.distributions.MixtureSameFamily(
        t.distributions.Categorical(t.ones(2)), t.distributions.Exponential(t.ones(2))
    ).log_prob(t.tensor([-1.0])),
    "broadcast_all bad input": lambda t: t.distributions.Normal("a", 1.0),
}


def _raised(f: Callable) -> tuple:
    try:
        f()
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return type(e).__name__, str(e)
    return None, None


@pytest.mark.parametrize("name", list(INVALID))
def test_validation_errors_match_torch(name: str) -> None:
    theirs = _raised(lambda: INVALID[name](pt))
    ours = _raised(lambda: INVALID[name](torch))
    assert theirs[0] is not None, "the table entry must be invalid for PyTorch too"
    assert ours == theirs


def test_validate_args_false_skips_checks():
    d = torch.distributions
    d.Normal(0.0, -1.0, validate_args=False)
    assert d.Exponential(1.0, validate_args=False).log_prob(torch.tensor(-1.0)).item() == pytest.approx(1.0)
    m = d.Normal(0.0, 1.0, validate_args=True)
    assert m.expand((2,))._validate_args is True


def test_set_default_validate_args():
    d = torch.distributions
    try:
        d.Distribution.set_default_validate_args(False)
        d.Normal(0.0, -1.0)
        with pytest.raises(ValueError, match="Expected parameter scale"):
            d.Normal(0.0, -1.0, validate_args=True)
    finally:
        d.Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError, match="Expected parameter scale"):
        d.Normal(0.0, -1.0)
    with pytest.raises(ValueError):
        d.Distribution.set_default_validate_args("yes")
