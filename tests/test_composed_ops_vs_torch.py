"""The ops written in Python over the core (closeness, diagonals, addmm-style, pointwise
compositions, unique/bincount/median, Tensor protocols) against PyTorch, argument by argument."""

from __future__ import annotations

import numpy as np
import pytest

import ferrotorch as torch
from torch_oracle import assert_close, needs_torch, pt, to_ft, to_pt

pytestmark = needs_torch


def _both(x: np.ndarray):
    return torch.from_numpy(x.copy()), pt.from_numpy(x.copy())


def _same(ours, theirs, what=""):
    if isinstance(theirs, tuple):
        assert isinstance(ours, tuple) and len(ours) == len(theirs), what
        for a, b in zip(ours, theirs):
            _same(a, b, what)
    elif isinstance(theirs, pt.Tensor):
        assert_close(ours, theirs, rtol=1e-12, atol=0, what=what)
    else:
        assert ours == theirs, what


RNG = np.random.default_rng(7)
INTS = RNG.integers(0, 4, size=(5, 6))
FLOATS_NAN = np.array([[1.0, np.nan, 3.0, np.nan], [4.0, 2.0, 3.0, 1.0], [0.5, 0.5, -1.0, 2.0]])

UNIQUE_CASES = [
    (INTS, {}),
    (INTS, {"return_inverse": True, "return_counts": True}),
    (INTS, {"sorted": False, "return_counts": True}),
    (INTS, {"dim": 0, "return_inverse": True, "return_counts": True}),
    (INTS, {"dim": 1, "return_inverse": True}),
    (INTS, {"dim": -1, "return_counts": True}),
    (np.array([[1, 2], [1, 2], [0, 5]]), {"dim": 0, "return_inverse": True, "return_counts": True}),
    (np.array([2.0, np.nan, 1.0, np.nan, 2.0]), {"return_inverse": True, "return_counts": True}),
    (np.array([True, False, True]), {"return_counts": True}),
    (np.zeros((0,), dtype=np.int64), {"return_inverse": True, "return_counts": True}),
    (np.array(3.0), {"return_inverse": True}),
    (np.zeros((0, 3)), {"dim": 0, "return_inverse": True, "return_counts": True}),
]


@pytest.mark.parametrize("x,kw", UNIQUE_CASES, ids=[f"unique{i}" for i in range(len(UNIQUE_CASES))])
def test_unique(x, kw):
    a, b = _both(np.asarray(x))
    _same(torch.unique(a, **kw), pt.unique(b, **kw), f"unique {kw}")
    _same(a.unique(**kw), b.unique(**kw), f"Tensor.unique {kw}")


@pytest.mark.parametrize("x,kw", [
    (np.array([1, 1, 2, 2, 3, 1, 1, 2]), {}),
    (np.array([1, 1, 2, 2, 3, 1, 1, 2]), {"return_inverse": True, "return_counts": True}),
    (np.array([[1, 1, 2], [1, 1, 2], [0, 1, 2]]), {"dim": 0, "return_inverse": True, "return_counts": True}),
    (np.array([[1, 1, 2], [1, 1, 2], [0, 1, 2]]), {"dim": 1, "return_counts": True}),
])
def test_unique_consecutive(x, kw):
    a, b = _both(x)
    _same(torch.unique_consecutive(a, **kw), pt.unique_consecutive(b, **kw), f"unique_consecutive {kw}")


def test_unique_errors():
    a, b = _both(np.zeros((3, 0)))
    with pytest.raises(RuntimeError) as theirs:
        pt.unique(b, dim=0)
    with pytest.raises(type(theirs.value), match="0 sized dimensions"):
        torch.unique(a, dim=0)


@pytest.mark.parametrize("x,kw", [
    (FLOATS_NAN, {}),
    (FLOATS_NAN, {"dim": 1}),
    (FLOATS_NAN, {"dim": 0, "keepdim": True}),
    (FLOATS_NAN[1:], {}),
    (FLOATS_NAN[1:], {"dim": -1}),
    (INTS, {"dim": 0}),
    (INTS, {}),
    (np.arange(12.0).reshape(3, 4).T, {"dim": 1}),
])
def test_median(x, kw):
    a, b = _both(np.asarray(x))
    _same(torch.median(a, **kw), pt.median(b, **kw), f"median {kw}")
    _same(a.median(**kw), b.median(**kw), f"Tensor.median {kw}")


@pytest.mark.parametrize("kw", [{}, {"minlength": 7}, {"weights": "float32"}, {"weights": "float64"}, {"weights": "int64"}])
def test_bincount(kw):
    x = RNG.integers(0, 5, size=20)
    a, b = _both(x)
    kw = dict(kw)
    if "weights" in kw:
        w = RNG.standard_normal(20).astype(kw["weights"]) if kw["weights"] != "int64" else RNG.integers(0, 3, 20)
        kw_ft, kw_pt = {"weights": torch.from_numpy(w.copy())}, {"weights": pt.from_numpy(w.copy())}
    else:
        kw_ft = kw_pt = kw
    assert_close(torch.bincount(a, **kw_ft), pt.bincount(b, **kw_pt), rtol=1e-6, what=f"bincount {kw}")


@pytest.mark.parametrize("rtol,atol,equal_nan", [(1e-5, 1e-8, False), (0.1, 0.0, False), (0.0, 0.05, True)])
def test_closeness(rtol, atol, equal_nan):
    x = np.array([1.0, 2.0, np.nan, np.inf, -np.inf, 0.0])
    y = np.array([1.0 + 1e-7, 2.1, np.nan, np.inf, np.inf, 0.04])
    (a, b), (c, d) = _both(x), _both(y)
    _same(torch.isclose(a, c, rtol, atol, equal_nan), pt.isclose(b, d, rtol, atol, equal_nan))
    assert torch.allclose(a, c, rtol, atol, equal_nan) == pt.allclose(b, d, rtol, atol, equal_nan)
    assert torch.equal(a, a.clone()) == pt.equal(b, b.clone())
    assert torch.equal(a[:2], a[:3]) == pt.equal(b[:2], b[:3])


M = RNG.standard_normal((4, 4))


@pytest.mark.parametrize("name,args,kw", [
    ("diag", (M,), {}),
    ("diag", (M,), {"diagonal": 1}),
    ("diag", (M,), {"diagonal": -2}),
    ("diag", (M[0],), {"diagonal": 2}),
    ("diag", (M[0],), {"diagonal": -1}),
    ("diag_embed", (M,), {}),
    ("diag_embed", (M,), {"offset": 1}),
    ("diag_embed", (M,), {"offset": -1, "dim1": 0, "dim2": 2}),
    ("diag_embed", (M,), {"dim1": -1, "dim2": 0}),
    ("diag_embed", (np.array([[1.0, np.inf], [np.nan, -2.0]]),), {"offset": 1}),
    ("trace", (M,), {}),
    ("trace", (M[:3],), {}),
    ("diff", (M,), {}),
    ("diff", (M,), {"n": 2, "dim": 0}),
    ("diff", (M[0],), {"prepend": M[1, :2], "append": M[2, :1]}),
    ("addmm", (M, M, M.T), {"beta": 0.5, "alpha": 2.0}),
    ("baddbmm", (M[None], M[None], M[None]), {"beta": 0.0, "alpha": -1.0}),
    ("addmv", (M[0], M, M[1]), {"alpha": 3.0}),
    ("addcmul", (M, M.T, M), {"value": 0.25}),
    ("addcdiv", (M, M.T, M + 10), {"value": -2.0}),
    ("logit", (1 / (1 + np.exp(-M)),), {}),
    ("logit", (1 / (1 + np.exp(-M)),), {"eps": 0.3}),
])
def test_composed_op(name, args, kw):
    ours = getattr(torch, name)(*[torch.from_numpy(np.ascontiguousarray(a)) for a in args], **{k: torch.from_numpy(v.copy()) if isinstance(v, np.ndarray) else v for k, v in kw.items()})
    theirs = getattr(pt, name)(*[pt.from_numpy(np.ascontiguousarray(a)) for a in args], **{k: pt.from_numpy(v.copy()) if isinstance(v, np.ndarray) else v for k, v in kw.items()})
    assert_close(ours, theirs, rtol=1e-12, atol=1e-12, what=f"{name} {kw}")


def test_inplace_forms():
    for name, extra in [("addcmul_", {"value": 0.5}), ("addcdiv_", {"value": 2.0}), ("addmm_", {"beta": 0.5, "alpha": 2.0})]:
        a, b = _both(M)
        getattr(a, name)(to_ft(pt.from_numpy(M.T.copy())), to_ft(pt.from_numpy(M + 10)), **extra)
        getattr(b, name)(pt.from_numpy(M.T.copy()), pt.from_numpy(M + 10), **extra)
        assert_close(a, b, rtol=1e-12, atol=1e-12, what=name)


def test_gradients_flow_through_compositions():
    x = torch.tensor(M, requires_grad=True)
    y = to_pt(x, requires_grad=True)
    for f in (lambda t, m: m.addcdiv(t, t, t * t + 1, value=0.5).sum(), lambda t, m: m.diag_embed(t, 1).sum() * 2, lambda t, m: m.diff(t, 2, 0).pow(2).sum()):
        (gx,) = torch.autograd.grad(f(x, torch), x)
        (gy,) = pt.autograd.grad(f(y, pt), y)
        assert_close(gx, gy, rtol=1e-12, atol=1e-12)


def test_tensor_protocols():
    a, b = torch.tensor(3.14159), pt.tensor(3.14159)
    assert f"{a:.2f}" == f"{b:.2f}"
    with pytest.raises(TypeError):
        round(pt.tensor([1.26, -2.5]), 1)
    with pytest.raises(TypeError):
        round(torch.tensor([1.26, -2.5]), 1)
    assert (2 in torch.tensor([1, 2])) == (2 in pt.tensor([1, 2]))
    assert (5 in torch.tensor([1, 2])) == (5 in pt.tensor([1, 2]))
    assert_close(torch.ones(3).where(torch.tensor([True, False, True]), torch.zeros(3)), pt.ones(3).where(pt.tensor([True, False, True]), pt.zeros(3)))
    assert_close(torch.tensor([-2.0, 0.0, 3.0]).sgn(), pt.tensor([-2.0, 0.0, 3.0]).sgn())
