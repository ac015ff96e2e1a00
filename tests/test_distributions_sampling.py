"""Sampling from torch.distributions: sample statistics against PyTorch's analytic moments,
CDFs and PMFs (fixed seeds; bounds of about six standard errors), reparameterized gradients
against finite differences, and float64 gradchecks of log_prob/cdf/icdf/entropy."""

from __future__ import annotations

import math
from typing import Any, List, Optional, Tuple

import numpy as np
import pytest
from distribution_cases import CASES

import ferrotorch as torch
from torch_oracle import needs_torch, pt, to_pt

pytestmark = [needs_torch, pytest.mark.filterwarnings("ignore:Singular sample detected")]

N = 20000


def _np(t: Any) -> np.ndarray:
    return np.asarray(t.detach().double().numpy())


def _by_stat(*kinds: str) -> List[Any]:
    return [c for c in CASES if c.stat in kinds]


@pytest.mark.parametrize("case", _by_stat("moments"), ids=lambda c: c.id)
def test_sample_mean_and_variance_match_torch_moments(case: Any) -> None:
    torch.manual_seed(1234)
    x = _np(case.ours().sample((N,)))
    b = case.theirs()
    mean, var = b.mean.double().numpy(), b.variance.double().numpy()
    se = np.sqrt(var / N)
    assert np.all(np.abs(x.mean(0) - mean) <= 6 * se + 1e-9), f"{case.id}: mean {x.mean(0)} vs {mean}"
    centered = x - x.mean(0)
    se_var = np.sqrt(np.maximum((centered**4).mean(0) - x.var(0) ** 2, 0) / N)
    assert np.all(np.abs(x.var(0) - var) <= 6 * se_var + 1e-9), f"{case.id}: variance {x.var(0)} vs {var}"
    if len(b.event_shape) == 1 and hasattr(b, "covariance_matrix"):
        flat = x.reshape(N, -1, b.event_shape[0])
        cov = np.einsum("nbi,nbj->bij", flat - flat.mean(0), flat - flat.mean(0)) / N
        ref = np.broadcast_to(b.covariance_matrix.double().numpy(), tuple(b.batch_shape) + (b.event_shape[0],) * 2)
        scale = np.sqrt(np.einsum("...ii->...i", ref)[..., :, None] * np.einsum("...ii->...i", ref)[..., None, :])
        assert np.all(np.abs(cov - ref.reshape(cov.shape)) <= 0.1 * scale.reshape(cov.shape)), f"{case.id}: covariance"


def _torch_has_cdf(case: Any) -> bool:
    try:
        case.theirs().cdf(case.value_in(pt))
        return True
    except NotImplementedError:
        return False


@pytest.mark.parametrize(
    "case", [c for c in CASES if c.stat in ("moments", "cdf") and _torch_has_cdf(c)], ids=lambda c: c.id
)
def test_samples_pushed_through_torch_cdf_are_uniform(case: Any) -> None:
    """The probability integral transform with PyTorch's CDF as the independent oracle."""
    torch.manual_seed(99)
    b = case.theirs()
    u = b.cdf(to_pt(case.ours().sample((N,)))).double().numpy()
    se_mean = math.sqrt(1 / 12 / N)
    assert np.all(np.abs(u.mean(0) - 0.5) <= 6 * se_mean), f"{case.id}: mean of u {u.mean(0)}"
    for level in (0.1, 0.25, 0.5, 0.9):
        frac = (u <= level).mean(0)
        assert np.all(np.abs(frac - level) <= 6 * math.sqrt(level * (1 - level) / N)), f"{case.id}: P(u <= {level})"


@pytest.mark.parametrize("case", _by_stat("pmf"), ids=lambda c: c.id)
def test_sample_frequencies_match_torch_pmf(case: Any) -> None:
    torch.manual_seed(7)
    a, b = case.ours(), case.theirs()
    x = _np(a.sample((N,)))
    mean = b.mean.double().numpy()
    se = np.sqrt(b.variance.double().numpy() / N)
    defined = np.isfinite(mean)  # Categorical has no mean
    assert np.all((np.abs(x.mean(0) - mean) <= 6 * se + 1e-9) | ~defined), f"{case.id}: mean {x.mean(0)} vs {mean}"
    try:
        support = b.enumerate_support(expand=True)
        values = [support[i] for i in range(support.shape[0])]
    except NotImplementedError:  # countable supports: check the first few values
        if b.event_shape != ():
            return
        values = [pt.full(tuple(b.batch_shape), float(k), dtype=b.mean.dtype) for k in range(4)]
    ev = len(b.event_shape)
    for v in values:
        p = b.log_prob(v).exp().double().numpy()
        hits = x == v.double().numpy()
        for _ in range(ev):
            hits = hits.all(-1)
        freq = hits.mean(0)
        assert np.all(np.abs(freq - p) <= 6 * np.sqrt(p * (1 - p) / N) + 1e-3), f"{case.id}: value {v} freq {freq} vs {p}"


def test_samples_are_reproducible_with_manual_seed():
    m = torch.distributions.MultivariateNormal(torch.zeros(3), torch.eye(3))
    torch.manual_seed(5)
    a = m.sample((4,))
    torch.manual_seed(5)
    assert m.sample((4,)).tolist() == a.tolist()


# ---- reparameterized gradients and gradchecks ----


def _symmetrized_if_symmetric(t: Any, x: Any) -> Any:
    """``(t + t.mT) / 2`` when the literal ``x`` is a symmetric matrix (so that perturbing one
    entry of the leaf keeps the parameter symmetric), else ``t``."""
    arr = np.asarray(x, dtype=float)
    if arr.ndim >= 2 and arr.shape[-1] == arr.shape[-2] and np.allclose(arr, np.swapaxes(arr, -1, -2)):
        return (t + t.mT) / 2
    return t


class _Leaves:
    """A tensor factory for Case.build that records the floating parameters it makes as leaves
    (symmetric matrices are symmetrized so that perturbing one entry keeps them symmetric) and
    can shift one entry of one of them for finite differences."""

    def __init__(self, case: Any, shift: Optional[Tuple[int, int, float]] = None, values: Optional[list] = None):
        self.case, self.shift, self.leaves, self.given, self.calls = case, shift, [], values, 0

    def __call__(self, x: Any, dtype: Optional[str] = None) -> Any:
        t = torch.tensor(x, dtype=getattr(torch, dtype or self.case.dtype))
        self.calls += 1
        if not t.dtype.is_floating_point or self.calls - 1 in self.case.constant_params:
            return t
        k = len(self.leaves)
        if self.given is not None:
            t = self.given[k]
        elif self.shift is not None and self.shift[0] == k:
            flat = t.reshape(-1).tolist()
            flat[self.shift[1]] += self.shift[2]
            t = torch.tensor(flat, dtype=t.dtype).reshape(t.shape)
        else:
            t = t.detach().requires_grad_(True)
        self.leaves.append(t)
        return _symmetrized_if_symmetric(t, x)

    def build(self) -> Any:
        return self.case.build(torch.distributions, self)


def _rsample_value(case: Any, leaves: _Leaves, seed: int = 3) -> Any:
    dist = leaves.build()
    torch.manual_seed(seed)
    x = dist.rsample((5,))
    weights = torch.linspace(0.5, 1.5, x.numel(), dtype=x.dtype).reshape(x.shape)
    return (x * weights).sum()


def _has_tensor_params(case: Any) -> bool:
    probe = _Leaves(case)
    probe.build()
    return bool(probe.leaves)


DIFFERENTIABLE_CASES = [c for c in CASES if c.dtype == "float64" and _has_tensor_params(c)]
RSAMPLE_CASES = [
    c
    for c in DIFFERENTIABLE_CASES
    if c.make(pt).has_rsample and "StraightThrough" not in c.id and "implicit" not in c.tags
]


@pytest.mark.parametrize("case", RSAMPLE_CASES, ids=lambda c: c.id)
def test_rsample_gradient_matches_finite_differences(case: Any) -> None:
    base = _Leaves(case)
    out = _rsample_value(case, base)
    grads = torch.autograd.grad(out, base.leaves, allow_unused=True)
    h = 1e-6
    for k, (leaf, g) in enumerate(zip(base.leaves, grads)):
        g_flat = [0.0] * leaf.numel() if g is None else g.reshape(-1).tolist()
        for j in range(leaf.numel()):
            plus = _rsample_value(case, _Leaves(case, (k, j, h))).item()
            minus = _rsample_value(case, _Leaves(case, (k, j, -h))).item()
            fd = (plus - minus) / (2 * h)
            assert abs(fd - g_flat[j]) <= 1e-4 * max(1.0, abs(fd)), f"{case.id}: param {k}[{j}] fd {fd} vs {g_flat[j]}"


def test_normal_rsample_gradients_are_one_and_the_noise():
    loc = torch.tensor([0.5, -1.0], requires_grad=True)
    scale = torch.tensor([2.0, 0.5], requires_grad=True)
    x = torch.distributions.Normal(loc, scale).rsample((3,))
    gl, gs = torch.autograd.grad(x.sum(), [loc, scale])
    assert gl.tolist() == [3.0, 3.0]
    eps = ((x - loc) / scale).detach().sum(0)
    np.testing.assert_allclose(gs.numpy(), eps.numpy(), rtol=1e-5, atol=1e-6)


def test_straight_through_rsample_passes_probs_gradient():
    probs = torch.tensor([0.2, 0.3, 0.5], dtype=torch.float64, requires_grad=True)
    m = torch.distributions.OneHotCategoricalStraightThrough(probs=probs)
    x = m.rsample((4,))
    assert set(x.detach().sum(-1).tolist()) == {1.0}
    (g,) = torch.autograd.grad((x * torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)).sum(), [probs])
    # probs are normalised inside; the gradient is that of 4 * (w . probs / probs.sum())
    w = np.array([1.0, 2.0, 3.0])
    p = np.array([0.2, 0.3, 0.5])
    np.testing.assert_allclose(g.numpy(), 4 * (w - (w * p).sum()) / p.sum(), rtol=1e-10)


def test_sample_has_no_gradient_but_rsample_does():
    loc = torch.tensor([0.0, 1.0], requires_grad=True)
    m = torch.distributions.Normal(loc, 1.0)
    assert not m.sample().requires_grad and m.rsample().requires_grad


def _torch_differentiates(case: Any, method: str) -> bool:
    """Whether PyTorch implements ``method`` for the case and can differentiate it in all
    parameters (it has no gradient of the incomplete gamma function in its first argument)."""
    calls = [0]

    def T(x: Any, dtype: Optional[str] = None) -> Any:
        t = pt.tensor(x, dtype=getattr(pt, dtype or case.dtype))
        calls[0] += 1
        return t.requires_grad_(True) if t.is_floating_point() and calls[0] - 1 not in case.constant_params else t

    try:
        b = case.build(pt.distributions, T)
        if method == "entropy":
            out = b.entropy()
        else:
            out = getattr(b, method)(case.quantiles_in(pt) if method == "icdf" else case.value_in(pt))
        out.sum().backward()
        return True
    except (NotImplementedError, RuntimeError):
        return False


GRADCHECKS = [
    pytest.param(c, m, id=f"{c.id}-{m}")
    for c in DIFFERENTIABLE_CASES
    for m in ("log_prob", "cdf", "icdf", "entropy")
    if _torch_differentiates(c, m)
]


@pytest.mark.parametrize("case, method", GRADCHECKS)
def test_gradcheck_float64(case: Any, method: str) -> None:
    probe = _Leaves(case)
    probe.build()
    arg = () if method == "entropy" else (case.quantiles_in(torch) if method == "icdf" else case.value_in(torch),)

    def fn(*leaves: Any) -> Any:
        return getattr(_Leaves(case, values=list(leaves)).build(), method)(*arg)

    inputs = tuple(leaf.detach().requires_grad_(True) for leaf in probe.leaves)
    assert torch.autograd.gradcheck(fn, inputs, eps=1e-6, atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize("method", ["log_prob", "cdf", "icdf", "entropy", "rsample"])
def test_generalized_pareto_float64_gradcheck(method: str) -> None:
    """Float64 gradients of GeneralizedPareto, including the xi = 0 and xi < 0 branches."""
    params = [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in ([0.0, 1.0, -1.0], [1.0, 0.5, 2.0], [0.3, 0.0, -0.2])]
    arg = {"log_prob": [0.5, 1.2, 2.0], "cdf": [0.5, 1.2, 2.0], "icdf": [0.1, 0.5, 0.9]}.get(method)

    def fn(*ps: Any) -> Any:
        m = torch.distributions.GeneralizedPareto(*ps)
        if method == "rsample":
            torch.manual_seed(0)
            return m.rsample((4,))
        return getattr(m, method)(*([torch.tensor(arg, dtype=torch.float64)] if arg else []))

    # xi = 0 is a branch point: perturb only loc and scale there, all three elsewhere.
    assert torch.autograd.gradcheck(lambda a, b: fn(a, b, params[2].detach()), tuple(params[:2]), eps=1e-6, atol=1e-5)
    xi = torch.tensor([0.3, 0.1, -0.2], dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda c: fn(params[0].detach(), params[1].detach(), c), (xi,), eps=1e-6, atol=1e-5)


def test_von_mises_samples_match_circular_moments():
    """E[cos(x - loc)] = I1(k) / I0(k) = 1 - circular variance, and samples lie in [-pi, pi)."""
    torch.manual_seed(11)
    loc, kappa = [0.5, -2.0, 3.0], [0.5, 2.0, 8.0]
    m = torch.distributions.VonMises(torch.tensor(loc, dtype=torch.float64), torch.tensor(kappa, dtype=torch.float64))
    x = _np(m.sample((N,)))
    assert x.min() >= -math.pi and x.max() < math.pi
    ref = pt.distributions.VonMises(pt.tensor(loc, dtype=pt.float64), pt.tensor(kappa, dtype=pt.float64))
    resultant = 1 - ref.variance.numpy()
    c = np.cos(x - np.array(loc))
    assert np.all(np.abs(c.mean(0) - resultant) <= 6 * c.std(0) / math.sqrt(N))
    s = np.sin(x - np.array(loc))
    assert np.all(np.abs(s.mean(0)) <= 6 * s.std(0) / math.sqrt(N))
    assert m.sample().dtype == torch.float64
    assert torch.distributions.VonMises(torch.tensor(0.0), torch.tensor(1.0)).sample((3,)).dtype == torch.float32


IMPLICIT_CASES = [c for c in DIFFERENTIABLE_CASES if "implicit" in c.tags]


@pytest.mark.parametrize("case", IMPLICIT_CASES, ids=lambda c: c.id)
def test_implicit_rsample_gradient_is_unbiased_for_the_mean(case: Any) -> None:
    """For rejection-sampled laws the pathwise gradient is implicit, so finite differences of
    samples do not apply: check E[d rsample / d theta] against d E[x] / d theta (PyTorch's
    analytic mean, differentiated by PyTorch), averaging over chunks of samples."""
    torch.manual_seed(21)
    probe = _Leaves(case)
    dist = probe.build()
    shape = tuple(dist.batch_shape) + tuple(dist.event_shape)
    # Entries with an infinite variance (StudentT with df <= 2) have no usable Monte Carlo estimate.
    usable = np.isfinite(np.broadcast_to(case.theirs().variance.double().numpy(), shape))
    weights = np.where(usable, np.linspace(0.5, 1.5, int(np.prod(shape))).reshape(shape), 0.0)
    w = torch.tensor(weights, dtype=torch.float64)
    chunks = []
    for _ in range(20):
        objective = (dist.rsample((1000,)) * w).sum() / 1000
        g = torch.autograd.grad(objective, probe.leaves, allow_unused=True, retain_graph=True)
        chunks.append(np.concatenate([np.zeros(p.numel()) if gi is None else _np(gi).ravel() for gi, p in zip(g, probe.leaves)]))
    est, se = np.mean(chunks, 0), np.std(chunks, 0, ddof=1) / math.sqrt(len(chunks))

    theirs = [to_pt(p.detach()).requires_grad_(True) for p in probe.leaves]
    it = iter(theirs)

    def T(x: Any, dtype: Optional[str] = None) -> Any:
        t = pt.tensor(x, dtype=getattr(pt, dtype or case.dtype))
        return _symmetrized_if_symmetric(next(it), x) if t.is_floating_point() else t

    mean = case.build(pt.distributions, T).mean
    objective = (pt.where(pt.from_numpy(usable), mean, 0.0) * pt.from_numpy(weights)).sum()
    grads = pt.autograd.grad(objective, theirs, allow_unused=True)
    exact = np.concatenate([np.zeros(p.numel()) if g is None else g.numpy().ravel() for g, p in zip(grads, theirs)])
    assert np.all(np.abs(est - exact) <= 6 * se + 1e-3 * np.abs(exact) + 1e-9), f"{case.id}: {est} vs {exact}"


@pytest.mark.parametrize("concentration", [0.3, 1.0, 4.5])
def test_gamma_rsample_gradient_is_the_implicit_derivative(concentration: float) -> None:
    """Per sample, dx/dalpha = -(dF/dalpha)(x) / p(x) with F PyTorch's regularized incomplete
    gamma function, and dx/drate = -x / rate."""
    torch.manual_seed(5)
    alpha = torch.full((200,), concentration, dtype=torch.float64, requires_grad=True)
    rate = torch.full((200,), 2.0, dtype=torch.float64, requires_grad=True)
    x = torch.distributions.Gamma(alpha, rate).rsample()
    ga, gr = torch.autograd.grad(x.sum(), [alpha, rate])
    xs = pt.from_numpy(_np(x)) * 2.0  # the standard-gamma draw
    h = 1e-6
    a = pt.full((200,), concentration, dtype=pt.float64)
    dF = (pt.special.gammainc(a + h, xs) - pt.special.gammainc(a - h, xs)) / (2 * h)
    density = pt.distributions.Gamma(a, 1.0).log_prob(xs).exp()
    expected = (-dF / density / 2.0).numpy()
    np.testing.assert_allclose(_np(ga), expected, rtol=1e-4, atol=1e-8)
    np.testing.assert_allclose(_np(gr), -_np(x) / 2.0, rtol=1e-10)


def test_gamma_cdf_gradients():
    """Gamma.cdf differentiates in rate and value; in concentration it raises as PyTorch does."""
    conc = torch.tensor([0.5, 2.0, 5.0], dtype=torch.float64)
    rate = torch.tensor([1.0, 0.5, 3.0], dtype=torch.float64, requires_grad=True)
    value = torch.tensor([0.3, 2.0, 1.5], dtype=torch.float64, requires_grad=True)
    fn = lambda r, v: torch.distributions.Gamma(conc, r).cdf(v)  # noqa: E731
    assert torch.autograd.gradcheck(fn, (rate, value), eps=1e-6, atol=1e-6)
    for lib in (torch, pt):
        c = lib.tensor([0.5, 2.0], dtype=lib.float64, requires_grad=True)
        out = lib.distributions.Gamma(c, 1.0).cdf(lib.tensor([0.3, 2.0], dtype=lib.float64))
        with pytest.raises(NotImplementedError, match="the derivative for 'igamma: input' is not implemented"):
            out.sum().backward()
