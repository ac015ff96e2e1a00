"""Random sampling: reproducibility, distributions, generators, errors."""

import math

import pytest

import ferrotorch as torch


def stats(t):
    v = t.double().reshape(-1).tolist()
    m = sum(v) / len(v)
    return m, math.sqrt(sum((x - m) ** 2 for x in v) / len(v))


def test_manual_seed_makes_runs_reproducible():
    torch.manual_seed(123)
    a = torch.randn(5), torch.rand(3), torch.randint(0, 10, (4,)), torch.randperm(6)
    torch.manual_seed(123)
    b = torch.randn(5), torch.rand(3), torch.randint(0, 10, (4,)), torch.randperm(6)
    assert all(x.tolist() == y.tolist() for x, y in zip(a, b))
    assert torch.initial_seed() == 123


def test_generators_are_independent_of_the_default():
    g = torch.Generator().manual_seed(7)
    x = torch.rand(4, generator=g)
    torch.manual_seed(0)
    torch.rand(10)
    g2 = torch.Generator().manual_seed(7)
    assert torch.rand(4, generator=g2).tolist() == x.tolist()
    state = g.get_state()
    y = torch.rand(3, generator=g)
    g.set_state(state)
    assert torch.rand(3, generator=g).tolist() == y.tolist()


def test_rng_state_round_trip():
    s = torch.get_rng_state()
    a = torch.randn(3)
    torch.set_rng_state(s)
    assert torch.randn(3).tolist() == a.tolist()


def test_distributions():
    torch.manual_seed(0)
    m, s = stats(torch.randn(100000))
    assert abs(m) < 0.02 and abs(s - 1) < 0.02
    u = torch.rand(100000)
    m, s = stats(u)
    assert abs(m - 0.5) < 0.01 and abs(s - math.sqrt(1 / 12)) < 0.01
    assert 0 <= min(u.tolist()) and max(u.tolist()) < 1
    r = torch.randint(3, 7, (1000,))
    assert r.dtype == torch.int64 and set(r.tolist()) == {3, 4, 5, 6}
    n = torch.normal(2.0, 3.0, size=(50000,))
    m, s = stats(n)
    assert abs(m - 2) < 0.06 and abs(s - 3) < 0.06
    p = torch.randperm(50)
    assert sorted(p.tolist()) == list(range(50))


def test_shapes_dtypes_and_flags():
    assert torch.rand(2, 3).shape == (2, 3) and torch.rand((2, 3)).shape == (2, 3)
    assert torch.randn(2, dtype=torch.float64).dtype == torch.float64
    assert torch.rand(2, requires_grad=True).requires_grad
    assert torch.randint(5, (2, 2)).shape == (2, 2)
    x = torch.zeros(2, 3, dtype=torch.float64)
    assert torch.rand_like(x).dtype == torch.float64 and torch.randn_like(x).shape == (2, 3)
    assert torch.randint_like(x, 10).shape == (2, 3)
    assert torch.rand(0).shape == (0,)


def test_inplace_samplers():
    torch.manual_seed(1)
    w = torch.empty(1000)
    assert w.uniform_(-2, 3) is w
    vals = w.tolist()
    assert min(vals) >= -2 and max(vals) < 3
    v = w._version
    w.normal_(5, 0.1)
    assert w._version > v
    m, s = stats(w)
    assert abs(m - 5) < 0.02 and abs(s - 0.1) < 0.02
    b = torch.empty(1000).bernoulli_(0.3)
    assert set(b.tolist()) <= {0.0, 1.0} and 0.2 < sum(b.tolist()) / 1000 < 0.4
    assert set(torch.zeros(100, dtype=torch.int64).random_(0, 3).tolist()) <= {0, 1, 2}


def test_bernoulli_and_multinomial():
    torch.manual_seed(2)
    p = torch.tensor([0.0, 1.0, 0.5])
    draws = torch.bernoulli(p.expand(2000, 3))
    cols = list(zip(*draws.tolist()))
    assert sum(cols[0]) == 0 and sum(cols[1]) == 2000 and 800 < sum(cols[2]) < 1200
    w = torch.tensor([[0.0, 1.0, 3.0], [1.0, 1.0, 0.0]])
    s = torch.multinomial(w, 2)
    assert s.shape == (2, 2) and sorted(s[0].tolist() if hasattr(torch.Tensor, "__getitem__") else s.select(0, 0).tolist()) == [1, 2]
    many = torch.multinomial(torch.tensor([1.0, 3.0]), 4000, replacement=True).tolist()
    assert 0.7 < sum(many) / 4000 < 0.8


@pytest.mark.parametrize(
    "fn,pattern",
    [
        (lambda: torch.randint(5, 5, (2,)), r"random_ expects 'from' to be less than 'to'"),
        (lambda: torch.rand(-1), r"negative dimension"),
        (lambda: torch.rand(2, dtype=torch.int64), r"rand.*not implemented for 'int64'"),
        (lambda: torch.multinomial(torch.tensor([1.0, 0.0]), 2), r"cannot sample n_sample > prob_dist.size\(-1\)"),
        (lambda: torch.bernoulli(torch.tensor([1.5])), r"bernoulli: all elements of the probability tensor must be in \[0, 1\]"),
        (lambda: torch.empty(2).normal_(0, -1), r"normal expects std >= 0.0"),
    ],
)
def test_errors(fn, pattern):
    with pytest.raises(RuntimeError, match=pattern):
        fn()
