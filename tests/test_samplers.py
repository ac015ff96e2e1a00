"""The samplers behind torch.distributions: `_standard_gamma` (and its reparameterized
gradient `_standard_gamma_grad`), `poisson`, `binomial` and `_sample_dirichlet`.

Streams cannot match PyTorch's, so the distributions are checked statistically with fixed
seeds (200k draws; bounds of six standard errors of the sample mean and variance, and
Kolmogorov-Smirnov / pmf checks against the exact laws); edge values, dtypes, layouts and
errors are compared with PyTorch directly; the gamma gradient is compared with PyTorch's
values and, to full precision, with the implicit derivative of the gamma CDF (mpmath)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import ferrotorch as torch
from torch_oracle import assert_close, needs_torch, pt, to_pt

N = 200_000


def gen(seed: int) -> Any:
    return torch.Generator().manual_seed(seed)


def check_moments(x: np.ndarray, mean: float, var: float, excess_kurtosis: float, what: str) -> None:
    n = x.size
    m, v = float(x.mean()), float(x.var())
    assert abs(m - mean) < 6 * math.sqrt(var / n), f"{what}: mean {m}, expected {mean}"
    rel_se = math.sqrt((excess_kurtosis + 2) / n)
    assert abs(v / var - 1) < 6 * rel_se, f"{what}: variance {v}, expected {var}"


# ---- gamma ----


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("alpha", [0.05, 0.4, 1.0, 2.5, 30.0, 1e4])
def test_standard_gamma_moments(alpha: float, dtype: str) -> None:
    a = torch.full((N,), alpha, dtype=getattr(torch, dtype))
    x = torch._standard_gamma(a, generator=gen(11)).double().numpy()
    assert x.dtype == np.float64 and (x > 0).all()
    check_moments(x, alpha, alpha, 6 / alpha, f"gamma({alpha})")


@pytest.mark.parametrize("alpha", [0.3, 1.0, 4.5])
def test_standard_gamma_follows_the_gamma_law(alpha: float) -> None:
    stats = pytest.importorskip("scipy.stats")
    x = torch._standard_gamma(torch.full((N,), alpha, dtype=torch.float64), generator=gen(5)).numpy()
    assert stats.kstest(x, stats.gamma(alpha).cdf).pvalue > 1e-3


def test_standard_gamma_rows_with_different_shapes() -> None:
    alphas = torch.tensor([0.5, 2.0, 9.0], dtype=torch.float64)
    x = torch._standard_gamma(alphas.expand(N, 3), generator=gen(3)).numpy()
    assert x.shape == (N, 3)
    for j, a in enumerate([0.5, 2.0, 9.0]):
        check_moments(x[:, j], a, a, 6 / a, f"column {j}")


@needs_torch
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_standard_gamma_edges_match_pytorch(dtype: str) -> None:
    # alpha <= 0 and NaN give the smallest normal number, inf gives inf; tiny shapes are
    # clamped up to the smallest normal number.
    vals = [0.0, -1.0, math.nan, math.inf, 1e-30]
    ours = torch._standard_gamma(torch.tensor(vals, dtype=getattr(torch, dtype)), generator=gen(1))
    theirs = pt._standard_gamma(pt.tensor(vals, dtype=getattr(pt, dtype)))
    assert_close(ours, theirs, rtol=0, atol=0)


@needs_torch
def test_sampler_layouts_and_shapes() -> None:
    a = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    for t in [a, a.t(), a[:, ::2], a[0], a[0, 0], a[:0]]:
        for f in (torch._standard_gamma, torch.poisson, torch._sample_dirichlet):
            out = f(t)
            assert out.shape == t.shape and out.dtype == t.dtype
            assert out.is_contiguous()


def test_generators_make_streams_reproducible() -> None:
    a = torch.full((1000,), 1.7)
    first = torch._standard_gamma(a, generator=gen(42))
    again = torch._standard_gamma(a, generator=gen(42))
    other = torch._standard_gamma(a, generator=gen(43))
    assert torch.equal(first, again) and not torch.equal(first, other)
    torch.manual_seed(7)
    d1 = (torch.poisson(a), torch.binomial(a * 10, a * 0.2), torch._sample_dirichlet(a.reshape(10, 100)))
    torch.manual_seed(7)
    d2 = (torch.poisson(a), torch.binomial(a * 10, a * 0.2), torch._sample_dirichlet(a.reshape(10, 100)))
    for u, v in zip(d1, d2):
        assert torch.equal(u, v)


# ---- gamma gradient ----


@needs_torch
def test_standard_gamma_grad_matches_pytorch() -> None:
    # PyTorch's kernel is an approximation (relative error up to about 1e-3): compare loosely
    # here and to full precision against the exact derivative below.
    rng = np.random.default_rng(0)
    alpha = np.concatenate([rng.uniform(0.01, 3.0, 200), rng.uniform(3.0, 500.0, 100)])
    x = np.array([np.random.default_rng(i).gamma(a) for i, a in enumerate(alpha)])
    x = np.maximum(x, 1e-12)
    for dtype, tol in [("float64", 2e-3), ("float32", 2e-3)]:
        a_ft = torch.tensor(alpha.tolist(), dtype=getattr(torch, dtype))
        x_ft = torch.tensor(x.tolist(), dtype=getattr(torch, dtype))
        ours = torch._standard_gamma_grad(a_ft, x_ft)
        theirs = pt._standard_gamma_grad(to_pt(a_ft), to_pt(x_ft))
        assert_close(ours, theirs, rtol=tol, atol=1e-6, what=dtype)


@needs_torch
@pytest.mark.filterwarnings("ignore:An output with one or more elements was resized")  # PyTorch's own, on broadcasting
def test_standard_gamma_grad_edges_and_broadcast_match_pytorch() -> None:
    a = [1.0, 1.0, 0.5, 2.0, math.nan, 1.0, math.inf, 0.0, -1.0]
    x = [0.0, math.inf, 1e-320, 1e-3, 1.0, math.nan, 5.0, 1.0, 1.0]
    ours = torch._standard_gamma_grad(torch.tensor(a, dtype=torch.float64), torch.tensor(x, dtype=torch.float64))
    theirs = pt._standard_gamma_grad(pt.tensor(a, dtype=pt.float64), pt.tensor(x, dtype=pt.float64))
    assert_close(ours, theirs, rtol=1e-2, atol=1e-320)
    # Where PyTorch's small-x series underflows to 0, the derivative is still representable.
    tiny = torch._standard_gamma_grad(torch.tensor([2.0], dtype=torch.float64), torch.tensor([1e-300], dtype=torch.float64)).item()
    assert math.isclose(tiny, 1e-300 / 2 * (-math.log(1e-300) + 0.9227843350984671), rel_tol=1e-12)
    ours = torch._standard_gamma_grad(torch.tensor([1.0, 2.0]), torch.tensor([[1.0], [2.0]]))
    assert_close(ours, pt._standard_gamma_grad(pt.tensor([1.0, 2.0]), pt.tensor([[1.0], [2.0]])), rtol=2e-3)


mpmath = pytest.importorskip("mpmath")


def exact_gamma_grad(a: float, x: float) -> float:
    """-dP(a, x)/da / (dP/dx), with P the regularized lower incomplete gamma function."""
    with mpmath.workdps(40):
        a_, x_ = mpmath.mpf(a), mpmath.mpf(x)
        upper = x_ > a_
        p = (lambda s: mpmath.gammainc(s, x_, mpmath.inf, regularized=True)) if upper else (lambda s: mpmath.gammainc(s, 0, x_, regularized=True))
        dp = mpmath.diff(p, a_)
        pdf = mpmath.exp((a_ - 1) * mpmath.log(x_) - x_ - mpmath.loggamma(a_))
        return float((dp if upper else -dp) / pdf)


@pytest.mark.parametrize("alpha", [0.01, 0.1, 0.5, 0.9, 1.0, 1.5, 3.7, 8.0, 20.0, 100.0, 1000.0])
def test_standard_gamma_grad_is_the_exact_implicit_derivative(alpha: float) -> None:
    stats = pytest.importorskip("scipy.stats")
    xs = [float(stats.gamma(alpha).ppf(q)) for q in (0.001, 0.1, 0.5, 0.9, 0.999)]
    got = torch._standard_gamma_grad(torch.full((5,), alpha, dtype=torch.float64), torch.tensor(xs, dtype=torch.float64)).tolist()
    for x, g in zip(xs, got):
        want = exact_gamma_grad(alpha, x)
        assert math.isclose(g, want, rel_tol=1e-10), f"alpha={alpha} x={x}: {g} vs {want}"


def test_standard_gamma_backward_is_the_reparameterized_gradient() -> None:
    a = torch.tensor([0.3, 1.0, 2.5, 40.0], dtype=torch.float64, requires_grad=True)
    x = torch._standard_gamma(a, generator=gen(2))
    assert x.grad_fn.name() == "StandardGammaBackward0"
    w = torch.tensor([1.0, -2.0, 0.5, 3.0], dtype=torch.float64)
    (x * w).sum().backward()
    want = w * torch._standard_gamma_grad(a.detach(), x.detach())
    assert_close(a.grad, want, rtol=0, atol=0)


def test_reparameterized_gradient_of_the_mean() -> None:
    # d/dalpha E[x] = 1: the pathwise gradient averaged over many draws.
    a = torch.full((N,), 2.2, dtype=torch.float64, requires_grad=True)
    torch._standard_gamma(a, generator=gen(9)).sum().backward()
    g = a.grad.numpy()
    assert abs(g.mean() - 1.0) < 6 * g.std() / math.sqrt(N)


# ---- poisson ----


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("rate", [0.05, 1.0, 9.9, 10.0, 37.5, 1e4])
def test_poisson_moments(rate: float, dtype: str) -> None:
    k = torch.poisson(torch.full((N,), rate, dtype=getattr(torch, dtype)), generator=gen(4)).double().numpy()
    assert (k == np.floor(k)).all() and (k >= 0).all()
    check_moments(k, rate, rate, 1 / rate, f"poisson({rate})")


@pytest.mark.parametrize("rate", [3.0, 25.0])
def test_poisson_pmf(rate: float) -> None:
    k = torch.poisson(torch.full((N,), rate, dtype=torch.float64), generator=gen(8)).numpy()
    for v in range(int(rate) - 3, int(rate) + 4):
        p = math.exp(v * math.log(rate) - rate - math.lgamma(v + 1))
        assert abs((k == v).mean() - p) < 6 * math.sqrt(p * (1 - p) / N), v


@needs_torch
def test_poisson_edges_grad_and_errors_match_pytorch() -> None:
    assert torch.poisson(torch.tensor([0.0, 0.0])).tolist() == [0.0, 0.0]
    r = torch.tensor([1.0, 4.0], requires_grad=True)
    torch.poisson(r).sum().backward()
    assert r.grad.tolist() == [0.0, 0.0]
    for bad in ([-1.0], [math.nan]):
        with pytest.raises(RuntimeError, match="invalid Poisson rate"):
            torch.poisson(torch.tensor(bad))
        with pytest.raises(RuntimeError):
            pt.poisson(pt.tensor(bad))
    with pytest.raises(NotImplementedError, match="Long"):
        torch.poisson(torch.tensor([1, 2]))
    with pytest.raises(NotImplementedError):
        pt.poisson(pt.tensor([1, 2]))


# ---- binomial ----


@pytest.mark.parametrize(
    "count,prob", [(1.0, 0.3), (10.0, 0.3), (60.0, 0.1), (1000.0, 0.02), (500.0, 0.45), (80.0, 0.9), (1e6, 0.5), (1e9, 1e-8)]
)
def test_binomial_moments(count: float, prob: float) -> None:
    k = torch.binomial(torch.full((N,), count, dtype=torch.float64), torch.full((N,), prob, dtype=torch.float64), generator=gen(6)).numpy()
    assert (k >= 0).all() and (k <= count).all() and (k == np.floor(k)).all()
    v = count * prob * (1 - prob)
    check_moments(k, count * prob, v, (1 - 6 * prob * (1 - prob)) / v, f"binomial({count}, {prob})")


@pytest.mark.parametrize("count,prob", [(20.0, 0.25), (200.0, 0.3)])
def test_binomial_pmf(count: float, prob: float) -> None:
    k = torch.binomial(torch.full((N,), count), torch.full((N,), prob), generator=gen(12)).numpy()
    mode = int((count + 1) * prob)
    for v in range(mode - 3, mode + 4):
        p = math.comb(int(count), v) * prob**v * (1 - prob) ** (count - v)
        assert abs((k == v).mean() - p) < 6 * math.sqrt(p * (1 - p) / N), v


@needs_torch
def test_binomial_edges_broadcast_and_errors_match_pytorch() -> None:
    c = torch.tensor([10.0, 10.0, 0.0, -1.0, 7.0], dtype=torch.float64)
    p = torch.tensor([0.0, 1.0, 0.5, 0.5, math.nan], dtype=torch.float64)
    assert_close(torch.binomial(c, p), pt.binomial(to_pt(c), to_pt(p)), rtol=0, atol=0)
    out = torch.binomial(torch.tensor([[5.0], [50.0]]), torch.tensor([0.2, 0.5, 0.7]))
    assert out.shape == (2, 3) and out.dtype == torch.float32
    assert (out[0] <= 5).all()
    with pytest.raises(ValueError, match="count, got: Long"):
        torch.binomial(torch.tensor([1, 2]), torch.tensor([1, 2]))
    with pytest.raises(ValueError):
        pt.binomial(pt.tensor([1, 2]), pt.tensor([1, 2]))
    with pytest.raises(RuntimeError, match="expected Double"):
        torch.binomial(torch.tensor([1.0, 2.0], dtype=torch.float64), torch.tensor([0.5, 0.5]))
    with pytest.raises(RuntimeError):
        pt.binomial(pt.tensor([1.0, 2.0], dtype=pt.float64), pt.tensor([0.5, 0.5]))
    with pytest.raises(RuntimeError, match="3"):
        torch.binomial(torch.ones(3), torch.ones(2) * 0.5)
    n = torch.tensor([5.0, 6.0], requires_grad=True)
    s = torch.binomial(n, torch.tensor([0.5, 0.5]))
    with pytest.raises(RuntimeError, match="not implemented"):
        s.sum().backward()


# ---- dirichlet ----


@pytest.mark.parametrize("alpha", [[1.0, 2.0, 3.0], [0.1, 0.1], [5.0, 0.5, 20.0, 1.0]])
def test_dirichlet_moments(alpha: list) -> None:
    a = torch.tensor(alpha, dtype=torch.float64).expand(N, len(alpha))
    x = torch._sample_dirichlet(a, generator=gen(10)).numpy()
    np.testing.assert_allclose(x.sum(1), 1.0, rtol=1e-12)
    a0 = sum(alpha)
    for j, aj in enumerate(alpha):
        m = aj / a0
        v = aj * (a0 - aj) / (a0 * a0 * (a0 + 1))
        # the Beta(aj, a0 - aj) marginal's excess kurtosis
        b = a0 - aj
        k = 6 * ((aj - b) ** 2 * (a0 + 1) - aj * b * (a0 + 2)) / (aj * b * (a0 + 2) * (a0 + 3))
        check_moments(x[:, j], m, v, k, f"dirichlet{alpha}[{j}]")


def test_dirichlet_marginal_is_beta() -> None:
    stats = pytest.importorskip("scipy.stats")
    x = torch._sample_dirichlet(torch.tensor([2.0, 0.7, 1.3], dtype=torch.float64).expand(N, 3), generator=gen(13)).numpy()
    assert stats.kstest(x[:, 1], stats.beta(0.7, 3.3).cdf).pvalue > 1e-3


@needs_torch
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_dirichlet_edges_match_pytorch(dtype: str) -> None:
    dt, pdt = getattr(torch, dtype), getattr(pt, dtype)
    # Zero shapes give equal parts; results are clamped to [smallest normal, largest below 1].
    assert_close(torch._sample_dirichlet(torch.tensor([0.0, 0.0], dtype=dt)), pt._sample_dirichlet(pt.tensor([0.0, 0.0], dtype=pdt)), rtol=0, atol=0)
    assert_close(torch._sample_dirichlet(torch.tensor(2.0, dtype=dt)), pt._sample_dirichlet(pt.tensor(2.0, dtype=pdt)), rtol=0, atol=0)
    assert_close(torch._sample_dirichlet(torch.tensor([3.0], dtype=dt)), pt._sample_dirichlet(pt.tensor([3.0], dtype=pdt)), rtol=0, atol=0)
    x = torch._sample_dirichlet(torch.full((2000, 3), 1e-3, dtype=dt), generator=gen(3))
    tiny, below_one = torch.finfo(dt).tiny, 1 - torch.finfo(dt).eps / 2
    assert x.min().item() >= tiny and x.max().item() <= below_one


@needs_torch
def test_dirichlet_errors_match_pytorch() -> None:
    with pytest.raises(NotImplementedError):
        pt._sample_dirichlet(pt.tensor([1, 2]))
    with pytest.raises(NotImplementedError, match="dirichlet"):
        torch._sample_dirichlet(torch.tensor([1, 2]))
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    y = torch._sample_dirichlet(a)
    with pytest.raises(RuntimeError, match="_sample_dirichlet is not implemented"):
        y[0].backward()
    with pytest.raises(NotImplementedError, match="Long"):
        torch._standard_gamma(torch.tensor([1, 2]))
    with pytest.raises(NotImplementedError, match="Half"):
        torch._standard_gamma(torch.tensor([1.0], dtype=torch.float16))
    with pytest.raises(NotImplementedError):
        pt._standard_gamma(pt.tensor([1.0], dtype=pt.float16))
