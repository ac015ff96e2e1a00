"""torch.special and the special-function ops behind it, against PyTorch: one table of unary
functions and one of binary ones drive the value checks (float32, float64, integer and bool
inputs; contiguous, transposed, sliced, broadcast, 0-d and zero-size layouts; edge values),
the gradient checks against PyTorch's gradients, and float64 gradcheck/gradgradcheck.
Where PyTorch's own kernels are only approximate (trigamma, bessel_j0/j1, ndtr's lower tail),
an mpmath table holds ferrotorch to full float64 precision."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import pytest

import ferrotorch as torch
from torch_oracle import assert_close, needs_torch, pt, to_pt

INF, NAN = math.inf, math.nan


@dataclass
class Case:
    name: str
    ours: Callable[[Any], Any]
    theirs: Callable[[Any], Any]
    edges: tuple  # values where PyTorch's conventions show (poles, signed zeros, inf, nan)
    domain: tuple  # (lo, hi) for random points and gradchecks
    tol64: tuple = (1e-12, 1e-14)  # (rtol, atol) against PyTorch in float64
    tol32: tuple = (2e-5, 1e-6)
    grad: bool = True
    grad_rtol: float = 1e-10  # against PyTorch's gradient (looser where it uses trigamma)


S = torch.special


def ps():
    return pt.special if pt is not None else None


UNARY = [
    Case("gammaln", S.gammaln, lambda t: ps().gammaln(t), (0.0, -0.0, -1.0, -2.5, 1.0, 2.0, 0.5, 1e-300, 171.7, 1e300, INF, -INF, NAN), (0.1, 8.0)),
    Case("lgamma", torch.lgamma, lambda t: pt.lgamma(t), (-3.0, -0.5, 3.0), (-3.9, 5.0)),
    Case("digamma", S.digamma, lambda t: ps().digamma(t), (0.0, -0.0, -1.0, -2.0, -2.5, 1.0, 1.4616321449683622, 1e17, 1e-300, INF, -INF, NAN), (0.1, 8.0), tol32=(2e-5, 2e-5), grad_rtol=1e-8),
    Case("psi", S.psi, lambda t: ps().psi(t), (-0.5, 10.0), (-2.9, 6.0), tol32=(2e-5, 2e-5), grad_rtol=1e-8),
    # PyTorch's trigamma keeps only four asymptotic terms (about 1e-9 relative); mpmath checks ours.
    Case("polygamma1", lambda t: S.polygamma(1, t), lambda t: ps().polygamma(1, t), (0.0, -0.0, 0.5, 1.0, -2.5, 1e10, INF, NAN), (0.2, 8.0), tol64=(1e-8, 1e-12)),
    Case("polygamma2", lambda t: torch.polygamma(2, t), lambda t: pt.polygamma(2, t), (0.0, -1.0, -1.5, 1.0, 30.0, INF, NAN), (0.2, 8.0)),
    Case("polygamma3", lambda t: t.polygamma(3), lambda t: t.polygamma(3), (0.0, -1.5, 0.25, 1.0, 30.0, NAN), (0.3, 8.0)),
    Case("polygamma0", lambda t: S.polygamma(0, t), lambda t: ps().polygamma(0, t), (0.0, -2.0, 1.0), (0.2, 8.0), tol32=(2e-5, 2e-5), grad_rtol=1e-8),
    Case("erfc", S.erfc, lambda t: ps().erfc(t), (0.0, -0.0, 1.0, -1.0, 5.0, 26.0, 27.0, -6.0, INF, -INF, NAN), (-3.0, 3.0)),
    Case("erfcx", S.erfcx, lambda t: ps().erfcx(t), (0.0, 1.0, -1.0, 10.0, 26.0, 49.0, 51.0, 6e7, -6.0, -26.0, -27.0, 1e300, INF, -INF, NAN), (-3.0, 8.0), tol64=(1e-12, 0.0)),
    Case("i0", S.i0, lambda t: ps().i0(t), (0.0, -0.0, 1.0, -1.0, 8.0, 24.0, 26.0, -30.0, 700.0, 800.0, INF, -INF, NAN), (-6.0, 6.0), tol32=(2e-5, 0.0)),
    Case("i0e", S.i0e, lambda t: ps().i0e(t), (0.0, 1.0, -1.0, 8.0, 26.0, -30.0, 1e4, 1e300, INF, -INF, NAN), (-6.0, 6.0)),
    Case("i1", S.i1, lambda t: ps().i1(t), (0.0, -0.0, 1.0, -1.0, 8.0, 26.0, -30.0, 700.0, INF, -INF, NAN), (-6.0, 6.0), tol32=(2e-5, 0.0)),
    Case("i1e", S.i1e, lambda t: ps().i1e(t), (0.0, -0.0, 1.0, -1.0, 8.0, 26.0, -30.0, 1e4, INF, -INF, NAN), (-6.0, 6.0)),
    # PyTorch's ndtr is (1 + erf(x/sqrt 2)) / 2: its lower tail has only absolute precision.
    Case("ndtr", S.ndtr, lambda t: ps().ndtr(t), (0.0, 1.0, -1.0, -5.0, 6.0, 40.0, -40.0, INF, -INF, NAN), (-4.0, 4.0), tol64=(1e-12, 2e-16), tol32=(2e-5, 1e-7)),
    Case("ndtri", S.ndtri, lambda t: ps().ndtri(t), (0.0, 1.0, 0.5, 0.25, 0.75, 1e-300, 5e-324, 1 - 1e-16, 0.975, -0.5, 1.5, INF, NAN), (0.02, 0.98)),
    Case("log_ndtr", S.log_ndtr, lambda t: ps().log_ndtr(t), (0.0, -1.0, -1.0001, 1.0, -30.0, -1e5, 10.0, 40.0, INF, -INF, NAN), (-6.0, 4.0), tol64=(1e-12, 1e-300), tol32=(2e-5, 1e-30)),
    Case("sinc", S.sinc, lambda t: ps().sinc(t), (0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 1e-20, 123.25, INF, -INF, NAN), (-3.0, 3.0), tol32=(2e-5, 1e-6)),
    Case("entr", S.entr, lambda t: ps().entr(t), (0.0, -0.0, -1.0, 1.0, 1e-300, 0.5, 1e300, INF, -INF, NAN), (0.05, 4.0)),
    # PyTorch's float64 bessel_j0/j1 are good to about 2e-7 absolute; mpmath checks ours.
    Case("bessel_j0", S.bessel_j0, lambda t: ps().bessel_j0(t), (0.0, 1.0, -1.0, 2.404825557695773, 24.9, 25.1, -60.0, 1e6, INF, -INF, NAN), (-10.0, 10.0), tol64=(0.0, 5e-7), tol32=(0.0, 5e-5)),
    Case("bessel_j1", S.bessel_j1, lambda t: ps().bessel_j1(t), (0.0, -0.0, 1.0, -1.0, 3.8317059702075125, 24.9, 25.1, -60.0, 1e6, INF, -INF, NAN), (-10.0, 10.0), tol64=(0.0, 5e-7), tol32=(0.0, 5e-5)),
    Case("mvlgamma2", lambda t: torch.mvlgamma(t, 2), lambda t: pt.mvlgamma(t, 2), (0.5, 0.6, 1.0, 10.0, -1.0, INF, NAN), (1.0, 6.0)),
    Case("multigammaln3", lambda t: S.multigammaln(t, 3), lambda t: ps().multigammaln(t, 3), (1.0, 1.5, 4.0, INF), (1.5, 6.0)),
    Case("erf", S.erf, lambda t: ps().erf(t), (0.0, 1.0, -3.0, INF, NAN), (-2.0, 2.0)),
    Case("erfinv", S.erfinv, lambda t: ps().erfinv(t), (0.0, 0.5, -0.999, 1.0, -1.0, NAN), (-0.9, 0.9), tol64=(1e-10, 1e-14)),
    Case("expit", S.expit, lambda t: ps().expit(t), (0.0, 30.0, -30.0, INF, NAN), (-4.0, 4.0)),
    Case("logit", S.logit, lambda t: ps().logit(t), (0.0, 0.5, 1.0, NAN), (0.05, 0.95)),
    Case("exp2", S.exp2, lambda t: ps().exp2(t), (0.0, 3.0, -3.0, INF, NAN), (-3.0, 3.0)),
    Case("expm1", S.expm1, lambda t: ps().expm1(t), (0.0, 1e-10, -1.0, NAN), (-2.0, 2.0)),
    Case("log1p", S.log1p, lambda t: ps().log1p(t), (0.0, 1e-10, -1.0, NAN), (-0.5, 2.0)),
]

IDS = [c.name for c in UNARY]


def grid(case: Case, n: int = 24, seed: int = 0) -> list:
    rng = np.random.default_rng(seed)
    lo, hi = case.domain
    return list(case.edges) + rng.uniform(lo, hi, n).tolist()


def layouts(values: list, dtype: Any) -> list:
    """(description, ferrotorch tensor, PyTorch tensor) over several layouts of `values`."""
    pad = values + [0.5] * (-len(values) % 4)
    base = torch.tensor(pad, dtype=dtype)
    ptb = to_pt(base)
    k = len(pad) // 4
    return [
        ("contiguous", base, ptb),
        ("transposed", base.reshape(4, k).t(), ptb.reshape(4, k).t()),
        ("sliced", base[1::3], ptb[1::3]),
        ("broadcast", base[:3].reshape(3, 1).expand(3, 4), ptb[:3].reshape(3, 1).expand(3, 4)),
        ("0-d", base[2], ptb[2]),
        ("zero-size", base[:0].reshape(0, 3), ptb[:0].reshape(0, 3)),
    ]


@needs_torch
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", UNARY, ids=IDS)
def test_unary_values_match_pytorch(case: Case, dtype: str) -> None:
    rtol, atol = case.tol64 if dtype == "float64" else case.tol32
    values = grid(case)
    if dtype == "float32":
        values = [v for v in values if not (isinstance(v, float) and v != 0 and abs(v) < 1e-37 and math.isfinite(v))]
    for what, ours_in, theirs_in in layouts(values, getattr(torch, dtype)):
        ours, theirs = case.ours(ours_in), case.theirs(theirs_in)
        assert_close(ours, theirs, rtol=rtol, atol=atol, what=f"{case.name} {dtype} {what}")


@needs_torch
@pytest.mark.parametrize("dtype", ["int64", "int32", "bool", "uint8"])
@pytest.mark.parametrize("case", [c for c in UNARY if c.name not in ("logit", "erfinv")], ids=[c.name for c in UNARY if c.name not in ("logit", "erfinv")])
def test_integer_and_bool_inputs_promote_to_float(case: Case, dtype: str) -> None:
    raw = [0, 1, 2, 5, 3, 1] if dtype != "bool" else [True, False, True]
    ours_in = torch.tensor(raw, dtype=getattr(torch, dtype))
    if dtype == "bool" and case.name in ("mvlgamma2", "multigammaln3"):
        # PyTorch rejects bool for the multivariate log-gamma only.
        raises_like(lambda: case.ours(ours_in), lambda: case.theirs(to_pt(ours_in)), "boolean")
        return
    ours, theirs = case.ours(ours_in), case.theirs(to_pt(ours_in))
    assert_close(ours, theirs, rtol=2e-5, atol=1e-6, what=f"{case.name} {dtype}")


@needs_torch
@pytest.mark.parametrize("case", [c for c in UNARY if c.grad], ids=[c.name for c in UNARY if c.grad])
def test_unary_gradients_match_pytorch(case: Case) -> None:
    # logit's gradient at 0 and 1 (+-inf in PyTorch) is NaN here: it is composed, not one op.
    values = [v for v in grid(case, n=10, seed=3) if math.isfinite(v) and not (case.name == "logit" and v in (0.0, 1.0))]
    x = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    xp = to_pt(x, requires_grad=True)
    g = torch.linspace(-1.0, 2.0, len(values), dtype=torch.float64)
    (case.ours(x) * g).sum().backward()
    (case.theirs(xp) * to_pt(g)).sum().backward()
    atol = case.tol64[1]
    assert_close(x.grad, xp.grad, rtol=case.grad_rtol, atol=max(atol, 1e-12) if atol else 0.0, what=f"{case.name} grad")


@pytest.mark.parametrize("case", [c for c in UNARY if c.grad], ids=[c.name for c in UNARY if c.grad])
def test_unary_gradcheck(case: Case) -> None:
    rng = np.random.default_rng(5)
    lo, hi = case.domain
    x = torch.tensor(rng.uniform(lo, hi, (2, 3)).tolist(), dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(case.ours, (x,))
    assert torch.autograd.gradgradcheck(case.ours, (x,))


@needs_torch
def test_grad_fn_names_match_pytorch() -> None:
    x = torch.tensor([0.3, 0.6], requires_grad=True)
    xp = to_pt(x, requires_grad=True)
    fns = ["lgamma", "digamma", "erfc", "i0", "sinc"]
    for name in fns:
        assert getattr(torch, name)(x).grad_fn.name() == type(getattr(pt, name)(xp).grad_fn).__name__
    for name in ["erfcx", "i0e", "i1", "i1e", "ndtri", "log_ndtr", "entr", "bessel_j0", "bessel_j1"]:
        ours = getattr(S, name)(x).grad_fn.name()
        assert ours == type(getattr(pt.special, name)(xp).grad_fn).__name__, name
    assert torch.polygamma(2, x).grad_fn.name() == "PolygammaBackward0"
    assert S.zeta(x + 2, x).grad_fn.name() == "SpecialZetaBackward0"
    assert S.gammainc(x, x).grad_fn.name() == "IgammaBackward0"


@needs_torch
@pytest.mark.parametrize(
    "name,x,want",
    [
        ("i1", 0.0, 0.5),  # removable singularities take their limits, as PyTorch
        ("i1e", 0.0, 0.5),
        ("bessel_j1", 0.0, 0.5),
        ("sinc", 0.0, 0.0),
        ("entr", 0.0, INF),
        ("entr", -1.0, NAN),
        ("digamma", 0.0, INF),
    ],
)
def test_gradients_at_singular_points(name: str, x: float, want: float) -> None:
    t = torch.tensor([x], dtype=torch.float64, requires_grad=True)
    getattr(S, name)(t).sum().backward()
    tp = pt.tensor([x], dtype=pt.float64, requires_grad=True)
    getattr(pt.special, name)(tp).sum().backward()
    assert_close(t.grad, tp.grad, what=name)
    np.testing.assert_equal(t.grad.item(), want)


# ---- two-argument functions ----


@dataclass
class Case2:
    name: str
    ours: Callable[[Any, Any], Any]
    theirs: Callable[[Any, Any], Any]
    pairs: tuple  # (x, y) edge pairs
    domain: tuple  # ((lo, hi), (lo, hi))
    grads: tuple  # which arguments PyTorch differentiates
    scalars: bool  # whether a Python number may stand for either argument
    rtol64: float = 1e-12


BINARY = [
    Case2("xlogy", S.xlogy, lambda a, b: ps().xlogy(a, b), ((0.0, 0.0), (0.0, -1.0), (0.0, NAN), (1.0, 0.0), (2.0, INF), (-1.0, 3.0), (NAN, 1.0)), ((-2.0, 2.0), (0.1, 3.0)), (0, 1), True),
    Case2("xlog1py", S.xlog1py, lambda a, b: ps().xlog1py(a, b), ((0.0, -1.0), (0.0, -2.0), (0.0, NAN), (1.0, -1.0), (2.0, INF), (-1.0, 1e-10), (NAN, 1.0)), ((-2.0, 2.0), (-0.9, 3.0)), (0, 1), True),
    Case2("zeta", S.zeta, lambda a, b: ps().zeta(a, b), ((1.0, 1.0), (0.5, 1.0), (2.0, 0.0), (2.0, -1.0), (2.0, -1.5), (2.5, -1.5), (3.0, 1e-5), (100.0, 1.0), (1.0001, 1.0), (50.0, 0.5), (2.0, INF), (NAN, 1.0), (2.0, NAN)), ((1.5, 6.0), (0.2, 5.0)), (1,), True),
    Case2("gammainc", S.gammainc, lambda a, b: ps().gammainc(a, b), ((0.0, 0.0), (0.0, 1.0), (1.0, 0.0), (1.0, INF), (-1.0, 1.0), (1.0, -1.0), (INF, 1.0), (INF, INF), (2.0, NAN), (0.01, 1e-5), (50.0, 49.0), (500.0, 520.0), (3.0, 100.0), (NAN, 0.0), (NAN, INF), (INF, NAN), (0.0, NAN)), ((0.2, 6.0), (0.1, 8.0)), (1,), False, 2e-9),
    Case2("gammaincc", S.gammaincc, lambda a, b: ps().gammaincc(a, b), ((0.0, 0.0), (0.0, 1.0), (1.0, 0.0), (1.0, INF), (-1.0, 1.0), (INF, 1.0), (2.0, NAN), (0.01, 1e-5), (50.0, 49.0), (500.0, 520.0), (3.0, 100.0), (NAN, 0.0), (NAN, INF), (INF, NAN), (0.0, NAN)), ((0.2, 6.0), (0.1, 8.0)), (1,), False, 2e-9),
    Case2("igamma", torch.igamma, lambda a, b: pt.igamma(a, b), ((1.0, 2.0),), ((0.2, 6.0), (0.1, 8.0)), (1,), False, 2e-9),
    Case2("igammac", torch.igammac, lambda a, b: pt.igammac(a, b), ((1.0, 2.0),), ((0.2, 6.0), (0.1, 8.0)), (1,), False, 2e-9),
]

IDS2 = [c.name for c in BINARY]


def pair_values(case: Case2, n: int = 16, seed: int = 0) -> tuple:
    rng = np.random.default_rng(seed)
    (al, ah), (bl, bh) = case.domain
    xs = [p[0] for p in case.pairs] + rng.uniform(al, ah, n).tolist()
    ys = [p[1] for p in case.pairs] + rng.uniform(bl, bh, n).tolist()
    return xs, ys


@needs_torch
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", BINARY, ids=IDS2)
def test_binary_values_match_pytorch(case: Case2, dtype: str) -> None:
    rtol, atol = (case.rtol64, 1e-300) if dtype == "float64" else (2e-5, 1e-7)
    dt = getattr(torch, dtype)
    xs, ys = pair_values(case)
    a, b = torch.tensor(xs, dtype=dt), torch.tensor(ys, dtype=dt)
    checks = [
        ("elementwise", a, b),
        ("broadcast", a[:4].reshape(4, 1), b[4:9].reshape(1, 5)),
        ("0-d and 1-d", a[5], b),
        ("transposed", a[:12].reshape(3, 4).t(), b[:12].reshape(4, 3)),
        ("sliced", a[0 : len(xs) - 1 : 2], b[1 : len(xs) : 2]),
        ("zero-size", a[:0].reshape(0, 2), b[:2]),
    ]
    for what, x, y in checks:
        assert_close(case.ours(x, y), case.theirs(to_pt(x), to_pt(y)), rtol=rtol, atol=atol, what=f"{case.name} {dtype} {what}")


@needs_torch
@pytest.mark.parametrize("case", [c for c in BINARY if c.scalars], ids=[c.name for c in BINARY if c.scalars])
def test_binary_python_numbers_and_promotion(case: Case2) -> None:
    f64 = torch.tensor([0.5, 1.5, 3.0], dtype=torch.float64)
    ints = torch.tensor([1, 2, 3])
    for x, y in [(2.0, f64), (f64, 2.5), (3, ints), (ints, 2), (ints, ints), (f64.float(), f64[0]), (ints, f64.float())]:
        px = to_pt(x) if isinstance(x, torch.Tensor) else x
        py = to_pt(y) if isinstance(y, torch.Tensor) else y
        assert_close(case.ours(x, y), case.theirs(px, py), rtol=1e-6, atol=1e-7, what=f"{case.name} {type(x)} {type(y)}")


@needs_torch
@pytest.mark.parametrize("case", BINARY, ids=IDS2)
def test_binary_gradients_match_pytorch(case: Case2) -> None:
    xs, ys = pair_values(case, n=8, seed=4)
    keep = [i for i in range(len(xs)) if math.isfinite(xs[i]) and math.isfinite(ys[i]) and (case.name.startswith("xlog") or (xs[i] > 0 and ys[i] > 0))]
    x = torch.tensor([xs[i] for i in keep], dtype=torch.float64)  # same length as y
    y = torch.tensor([ys[i] for i in keep], dtype=torch.float64)
    for arg in case.grads:
        a = x.clone().requires_grad_(arg == 0)
        b = y.clone().requires_grad_(arg == 1)
        pa, pb = to_pt(a, arg == 0), to_pt(b, arg == 1)
        case.ours(a, b).sum().backward()
        case.theirs(pa, pb).sum().backward()
        ours, theirs = (a.grad, pa.grad) if arg == 0 else (b.grad, pb.grad)
        assert_close(ours, theirs, rtol=1e-9, atol=1e-12, what=f"{case.name} d/d{'xy'[arg]}")


@pytest.mark.parametrize("case", BINARY, ids=IDS2)
def test_binary_gradcheck(case: Case2) -> None:
    rng = np.random.default_rng(9)
    (al, ah), (bl, bh) = case.domain
    x = torch.tensor(rng.uniform(al, ah, (2, 3)).tolist(), dtype=torch.float64, requires_grad=0 in case.grads)
    y = torch.tensor(rng.uniform(bl, bh, (2, 3)).tolist(), dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(case.ours, (x, y))
    # Broadcasting: the gradient is summed back to the smaller operand.
    y1 = torch.tensor(rng.uniform(bl, bh, (1, 3)).tolist(), dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(case.ours, (x, y1))
    assert torch.autograd.gradgradcheck(case.ours, (x, y))


@needs_torch
def test_xlogy_grad_at_zero_matches_pytorch() -> None:
    # PyTorch masks d/dx where x == 0 and y <= 0; a zero upstream gradient stays zero at y == 0.
    x = torch.tensor([0.0, 0.0, 0.0, 1.0, 2.0], dtype=torch.float64, requires_grad=True)
    y = torch.tensor([0.0, -1.0, 2.0, 0.0, 3.0], dtype=torch.float64, requires_grad=True)
    g = torch.tensor([1.0, 1.0, 1.0, 0.0, 1.0], dtype=torch.float64)
    xp, yp = to_pt(x, True), to_pt(y, True)
    (torch.xlogy(x, y) * g).sum().backward()
    (pt.xlogy(xp, yp) * to_pt(g)).sum().backward()
    assert_close(x.grad, xp.grad, what="xlogy d/dx")
    assert_close(y.grad, yp.grad, what="xlogy d/dy")


# ---- methods, in-place forms, namespace ----


@needs_torch
@pytest.mark.parametrize(
    "call",
    [
        lambda t: t.lgamma_(),
        lambda t: t.digamma_(),
        lambda t: t.polygamma_(2),
        lambda t: t.erfc_(),
        lambda t: t.i0_(),
        lambda t: t.sinc_(),
        lambda t: t.mvlgamma_(2),
        lambda t: t.igamma_(t * 0.5 + 1),
        lambda t: t.igammac_(t * 0.5 + 1),
    ],
    ids=["lgamma_", "digamma_", "polygamma_", "erfc_", "i0_", "sinc_", "mvlgamma_", "igamma_", "igammac_"],
)
def test_inplace_forms(call: Callable[[Any], Any]) -> None:
    t = torch.tensor([[1.5, 2.5, 3.0], [4.0, 0.75, 6.0]], dtype=torch.float64)
    tp = to_pt(t)
    view = t[:, 1:]
    before = view.data_ptr()
    out = call(view)
    call(tp[:, 1:])
    assert out is view and view.data_ptr() == before
    assert_close(t, tp, rtol=1e-12, atol=1e-14, what="in place through a view")


@needs_torch
def test_methods_and_functions_agree() -> None:
    x = torch.tensor([0.4, 1.3, 2.2], dtype=torch.float64)
    for name in ["lgamma", "digamma", "erfc", "i0", "sinc"]:
        assert_close(getattr(x, name)(), getattr(torch, name)(x), rtol=0, atol=0, what=name)
    assert_close(x.polygamma(1), torch.polygamma(1, x), rtol=0, atol=0)
    assert_close((x + 2).mvlgamma(3), torch.mvlgamma(x + 2, 3), rtol=0, atol=0)
    assert S.psi is S.digamma


@needs_torch
def test_namespace_covers_pytorch_names() -> None:
    names = {
        "bessel_j0", "bessel_j1", "digamma", "entr", "erf", "erfc", "erfcx", "erfinv", "exp2", "expit", "expm1", "gammainc",
        "gammaincc", "gammaln", "i0", "i0e", "i1", "i1e", "log1p", "log_ndtr", "log_softmax", "logit", "logsumexp",
        "multigammaln", "ndtr", "ndtri", "polygamma", "psi", "round", "sinc", "softmax", "xlog1py", "xlogy", "zeta",
    }
    assert names <= set(dir(pt.special))
    assert names <= set(S.__all__)
    for n in names:
        assert callable(getattr(S, n)), n


@needs_torch
def test_reduction_style_members_match_pytorch() -> None:
    x = torch.tensor([[0.1, 2.0, -1.0], [3.0, 0.5, 0.25]])
    xp = to_pt(x)
    assert_close(S.logsumexp(x, 1), pt.special.logsumexp(xp, 1))
    assert_close(S.logsumexp(x, (0, 1), keepdim=True), pt.special.logsumexp(xp, (0, 1), keepdim=True))
    assert_close(S.softmax(x, 0), pt.special.softmax(xp, 0))
    assert_close(S.log_softmax(x, 1, dtype=torch.float64), pt.special.log_softmax(xp, 1, dtype=pt.float64))
    assert_close(S.round(x * 3.3), pt.special.round(xp * 3.3))
    assert_close(S.logit(x.clamp(0.1, 0.9) * 0.5, eps=0.2), pt.special.logit(xp.clamp(0.1, 0.9) * 0.5, eps=0.2))


# ---- errors ----


def raises_like(ours: Callable[[], Any], theirs: Callable[[], Any], contains: str = "") -> None:
    with pytest.raises(Exception) as want:
        theirs()
    with pytest.raises(type(want.value)) as got:
        ours()
    assert type(got.value) is type(want.value), f"{type(got.value)} vs {type(want.value)}"
    if contains:
        assert contains in str(got.value), str(got.value)


@needs_torch
def test_error_classes_match_pytorch() -> None:
    x, xp = torch.tensor([1.0, 2.0]), pt.tensor([1.0, 2.0])
    raises_like(lambda: torch.polygamma(-1, x), lambda: pt.polygamma(-1, xp), "polygamma")
    raises_like(lambda: x.polygamma(-2), lambda: xp.polygamma(-2), "negative n")
    raises_like(lambda: torch.mvlgamma(x, 0), lambda: pt.mvlgamma(xp, 0), "p has to be")
    ints, ints_p = torch.tensor([1, 2]), pt.tensor([1, 2])
    raises_like(lambda: S.gammainc(ints, ints), lambda: pt.special.gammainc(ints_p, ints_p), "igamma")
    raises_like(lambda: S.gammainc(x, 2.0), lambda: pt.special.gammainc(xp, 2.0))
    raises_like(lambda: S.zeta(2.0, 3.0), lambda: pt.special.zeta(2.0, 3.0), "zeta")
    raises_like(lambda: S.erfcx(1.0), lambda: pt.special.erfcx(1.0))
    raises_like(lambda: S.round(ints), lambda: pt.special.round(ints_p), "round")
    raises_like(lambda: ints.lgamma_(), lambda: ints_p.lgamma_())
    raises_like(lambda: S.xlog1py(torch.ones(3), torch.ones(2)), lambda: pt.special.xlog1py(pt.ones(3), pt.ones(2)), "3")
    raises_like(lambda: S.zeta(torch.ones(2, 3), torch.ones(4)), lambda: pt.special.zeta(pt.ones(2, 3), pt.ones(4)), "4")


@needs_torch
@pytest.mark.parametrize("name", ["zeta", "gammainc", "gammaincc"])
def test_missing_first_argument_derivative_raises_on_backward(name: str) -> None:
    x = torch.tensor([2.0, 3.0], requires_grad=True)
    xp = pt.tensor([2.0, 3.0], requires_grad=True)
    q, qp = torch.tensor([1.0, 2.0]), pt.tensor([1.0, 2.0])
    ours, theirs = getattr(S, name)(x, q).sum(), getattr(pt.special, name)(xp, qp).sum()
    raises_like(ours.backward, theirs.backward, "not implemented")


# ---- full float64 precision, against mpmath ----

mpmath = pytest.importorskip("mpmath")
mpmath.mp.dps = 40


def exact_ndtri(p: Any) -> Any:
    with mpmath.workdps(400):  # 2p - 1 keeps the digits of p only at this precision
        return mpmath.sqrt(2) * mpmath.erfinv(2 * mpmath.mpf(p) - 1)

PRECISE = [
    ("gammaln", S.gammaln, lambda x: mpmath.log(abs(mpmath.gamma(x))), [0.1, 0.7, 1.5, 3.3, 12.5, 150.0, -0.5, -3.7]),
    ("digamma", S.digamma, mpmath.digamma, [1e-5, 0.3, 2.0, 9.99, 10.01, 55.0, -0.25, -7.6]),
    ("trigamma", lambda t: S.polygamma(1, t), lambda x: mpmath.polygamma(1, x), [1e-3, 0.3, 0.5, 0.6, 2.0, 6.5, 40.0, -0.25, -2.6]),
    ("polygamma4", lambda t: S.polygamma(4, t), lambda x: mpmath.polygamma(4, x), [0.2, 1.0, 3.5, 20.0]),
    ("erfcx", S.erfcx, lambda x: mpmath.exp(x * x) * mpmath.erfc(x), [-20.0, -5.0, -0.5, 0.1, 3.0, 25.9, 26.1, 80.0, 1e4]),
    ("i0e", S.i0e, lambda x: mpmath.exp(-abs(x)) * mpmath.besseli(0, x), [0.1, 2.0, 24.9, 25.1, 60.0, 1e3]),
    ("i1e", S.i1e, lambda x: mpmath.exp(-abs(x)) * mpmath.besseli(1, x), [0.1, -2.0, 24.9, 25.1, 60.0, 1e3]),
    ("bessel_j0", S.bessel_j0, lambda x: mpmath.besselj(0, x), [0.5, 3.0, 7.0, 18.0, 30.0, 100.0]),
    ("bessel_j1", S.bessel_j1, lambda x: mpmath.besselj(1, x), [0.5, -3.0, 7.0, 18.0, 30.0, 100.0]),
    ("ndtr", S.ndtr, lambda x: mpmath.ncdf(x), [-30.0, -8.0, -1.0, 0.3, 4.0]),
    ("ndtri", S.ndtri, lambda p: exact_ndtri(p), [1e-250, 1e-10, 0.01, 0.3, 0.7, 0.999]),
    ("log_ndtr", S.log_ndtr, lambda x: mpmath.log(mpmath.ncdf(x)), [-300.0, -20.0, -1.5, 0.0, 3.0]),
]


@pytest.mark.parametrize("name,ours,exact,points", PRECISE, ids=[p[0] for p in PRECISE])
def test_float64_precision_against_mpmath(name: str, ours: Callable, exact: Callable, points: list) -> None:
    got = ours(torch.tensor(points, dtype=torch.float64)).tolist()
    for x, g in zip(points, got):
        want = float(exact(mpmath.mpf(x)))
        assert math.isclose(g, want, rel_tol=1e-13, abs_tol=1e-300), f"{name}({x}) = {g}, exact {want}"


@pytest.mark.parametrize(
    "s,q", [(2.0, 1.0), (1.5, 0.3), (3.0, 20.0), (1.01, 2.0), (7.5, 0.05), (4.0, -2.5), (60.0, 1.5)]
)
def test_zeta_against_mpmath(s: float, q: float) -> None:
    got = S.zeta(torch.tensor([s], dtype=torch.float64), torch.tensor([q], dtype=torch.float64)).item()
    assert math.isclose(got, float(mpmath.zeta(s, q)), rel_tol=1e-13)


# PyTorch's large-shape expansion is good to about 5e-10 there; these hold to 1e-12.
@pytest.mark.parametrize("a,x", [(0.5, 0.1), (2.0, 3.0), (10.0, 9.0), (30.0, 45.0), (0.01, 1e-3), (50.0, 49.0), (200.0, 180.0), (500.0, 520.0), (1e4, 1e4 + 50), (10.0, 1e-16)])
def test_incomplete_gamma_against_mpmath(a: float, x: float) -> None:
    at, xt = torch.tensor([a], dtype=torch.float64), torch.tensor([x], dtype=torch.float64)
    p = float(mpmath.gammainc(a, 0, x, regularized=True))
    q = float(mpmath.gammainc(a, x, mpmath.inf, regularized=True))
    assert math.isclose(S.gammainc(at, xt).item(), p, rel_tol=1e-12)
    assert math.isclose(S.gammaincc(at, xt).item(), q, rel_tol=1e-12)
