"""The statistics family (searching, order statistics, histograms, covariance and distances,
integration and differences, window functions) against PyTorch: values, dtypes, shapes,
exception classes, gradients and float64 gradchecks."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import ferrotorch as torch
from torch_oracle import assert_close, needs_torch, pt

pytestmark = [needs_torch, pytest.mark.filterwarnings("ignore:torch.searchsorted")]

RNG = np.random.default_rng(1234)
NAN = float("nan")


def _same(ours, theirs, rtol=1e-6, atol=1e-7, what=""):
    """Recursive comparison of results: tensors (shape, dtype, values), tuples, named tuples."""
    if isinstance(theirs, (tuple, list)):
        assert isinstance(ours, (tuple, list)) and len(ours) == len(theirs), f"{what}: {type(ours)} vs {type(theirs)}"
        if hasattr(theirs, "_fields") or type(theirs).__module__ == "torch.return_types":
            assert type(ours).__name__ == type(theirs).__name__, what
        for a, b in zip(ours, theirs):
            _same(a, b, rtol, atol, what)
    elif isinstance(theirs, pt.Tensor):
        assert isinstance(ours, torch.Tensor), what
        assert_close(ours, theirs, rtol=rtol, atol=atol, what=what)
    else:
        assert ours == theirs, what


def _layouts(x: np.ndarray):
    """(name, ferrotorch tensor, PyTorch tensor) with equal values: contiguous, transposed
    view and strided slice (the last two non-contiguous) where the shape allows."""
    out = [("contig", torch.from_numpy(x.copy()), pt.from_numpy(x.copy()))]
    if x.ndim >= 2:
        t = np.ascontiguousarray(np.swapaxes(x, -1, -2))
        out.append(("transposed", torch.from_numpy(t.copy()).transpose(-1, -2), pt.from_numpy(t.copy()).transpose(-1, -2)))
    if x.ndim >= 1 and x.shape[-1] > 0:
        wide = np.repeat(x, 2, axis=-1)
        out.append(("sliced", torch.from_numpy(wide.copy())[..., ::2], pt.from_numpy(wide.copy())[..., ::2]))
    return out


def _both(x):
    x = np.asarray(x)
    return torch.from_numpy(x.copy()), pt.from_numpy(x.copy())


def _check_both(fn_ours, fn_theirs, rtol=1e-6, atol=1e-7, what=""):
    """Same result, or the same exception class, from both libraries."""
    try:
        theirs = fn_theirs()
    except Exception as e:  # noqa: BLE001 - the oracle's exception class is the expectation
        with pytest.raises(type(e)):
            fn_ours()
        return
    _same(fn_ours(), theirs, rtol, atol, what)


def _grad_compare(fn, inputs, rtol=1e-6, atol=1e-8, gradcheck=True):
    """Backward of sum(fn(...) * fixed weights) in both libraries: same gradients; and a float64
    gradcheck of ``fn`` in ferrotorch."""
    ours = [torch.from_numpy(a.copy()).requires_grad_(True) for a in inputs]
    theirs = [pt.from_numpy(a.copy()).requires_grad_(True) for a in inputs]
    ro, rt = fn(torch, *ours), fn(pt, *theirs)
    ro = ro if isinstance(ro, tuple) else (ro,)
    rt = rt if isinstance(rt, tuple) else (rt,)
    loss_o, loss_t = 0, 0
    for a, b in zip(ro, rt):
        w = RNG.standard_normal(tuple(b.shape))
        loss_o = loss_o + (a * torch.from_numpy(w.copy())).sum()
        loss_t = loss_t + (b * pt.from_numpy(w.copy())).sum()
    loss_o.backward()
    loss_t.backward()
    for a, b in zip(ours, theirs):
        assert_close(a.grad, b.grad, rtol=rtol, atol=atol, what="grad")
    if gradcheck:
        fresh = [torch.from_numpy(a.copy()).requires_grad_(True) for a in inputs]
        assert torch.autograd.gradcheck(lambda *xs: fn(torch, *xs), tuple(fresh), eps=1e-6, atol=1e-5)


# ----------------------------------------------------------------------------- searching

SORTED_1D = np.array([1, 3, 3, 5, 7, 9])
VALUES = np.array([[0, 3, 6, 9], [10, 1, 5, 3]])
SEARCH_CASES = [
    (SORTED_1D, VALUES, {}),
    (SORTED_1D, VALUES, {"right": True}),
    (SORTED_1D, VALUES, {"side": "right"}),
    (SORTED_1D, VALUES, {"side": "left", "out_int32": True}),
    (SORTED_1D.astype(np.float32), VALUES.astype(np.float32) + 0.5, {}),
    (SORTED_1D.astype(np.float64), VALUES, {"right": True}),
    (SORTED_1D, VALUES.astype(np.float32) - 0.5, {}),
    (np.array([1.0, 2.0, 4.0]), np.array([NAN, 2.0, -np.inf, np.inf]), {}),
    (np.array([1.0, 2.0, 4.0]), np.array([NAN, 2.0]), {"right": True}),
    (np.sort(RNG.integers(0, 10, (2, 6)), -1), RNG.integers(-1, 11, (2, 5)), {}),
    (np.sort(RNG.integers(0, 10, (2, 3, 6)), -1), RNG.integers(-1, 11, (2, 3, 4)), {"right": True}),
    (SORTED_1D, np.array(4), {}),
    (SORTED_1D, np.zeros((0, 3), dtype=np.int64), {}),
    (np.zeros(0), np.array([1.0, 2.0]), {}),
    # Large enough for the sort-merge path.
    (np.sort(RNG.integers(0, 300, 500)), RNG.integers(-5, 305, (3, 400)), {}),
    (np.sort(RNG.integers(0, 300, 500)), RNG.integers(-5, 305, (3, 400)), {"right": True}),
    (np.sort(RNG.standard_normal((4, 300)), -1), np.concatenate([RNG.standard_normal((4, 299)), np.full((4, 1), NAN)], -1), {}),
    (np.sort(RNG.integers(0, 50, (4, 300)), -1), RNG.integers(0, 50, (4, 300)), {"side": "right", "out_int32": True}),
]


@pytest.mark.parametrize("seq,vals,kw", SEARCH_CASES, ids=[f"searchsorted{i}" for i in range(len(SEARCH_CASES))])
def test_searchsorted(seq, vals, kw):
    for name, s, s_pt in _layouts(np.asarray(seq)):
        for vname, v, v_pt in _layouts(np.asarray(vals)):
            _same(torch.searchsorted(s, v, **kw), pt.searchsorted(s_pt, v_pt, **kw), what=f"{name}/{vname} {kw}")


def test_searchsorted_sorter_and_scalars():
    perm = RNG.permutation(6)
    shuffled = SORTED_1D[perm]
    sorter = np.argsort(shuffled, kind="stable")
    for right in (False, True):
        a, b = _both(shuffled)
        sa, sb = _both(sorter)
        va, vb = _both(VALUES)
        _same(torch.searchsorted(a, va, sorter=sa, right=right), pt.searchsorted(b, vb, sorter=sb, right=right))
    a, b = _both(SORTED_1D)
    for v in (4, 3, 3.5, -1, 100):
        for right in (False, True):
            _same(torch.searchsorted(a, v, right=right), pt.searchsorted(b, v, right=right), what=f"scalar {v}")
            _same(torch.bucketize(v, a, right=right), pt.bucketize(v, b, right=right), what=f"bucketize scalar {v}")


BUCKET_CASES = [
    (VALUES, SORTED_1D, {}),
    (VALUES, SORTED_1D, {"right": True}),
    (VALUES, SORTED_1D, {"out_int32": True}),
    (VALUES.astype(np.float64) + 0.5, SORTED_1D.astype(np.float64), {}),
    (np.array(3.0, dtype=np.float32), SORTED_1D.astype(np.float32), {"right": True}),
    (np.zeros((2, 0)), np.array([1.0, 2.0]), {}),
    (RNG.standard_normal((50, 40)), np.linspace(-2, 2, 41), {}),
]


@pytest.mark.parametrize("vals,bounds,kw", BUCKET_CASES, ids=[f"bucketize{i}" for i in range(len(BUCKET_CASES))])
def test_bucketize(vals, bounds, kw):
    b_ft, b_pt = _both(bounds)
    for name, v, v_pt in _layouts(np.asarray(vals)):
        _same(torch.bucketize(v, b_ft, **kw), pt.bucketize(v_pt, b_pt, **kw), what=f"{name} {kw}")


ISIN_CASES = [
    (np.array([[1, 2, 3], [4, 5, 6]]), np.array([2, 6, 9]), {}),
    (np.array([[1, 2, 3], [4, 5, 6]]), np.array([2, 6, 9]), {"invert": True}),
    (np.array([[1, 2, 3], [4, 5, 6]]), np.array([2.0, 6.5]), {}),
    (np.array([1.0, NAN, 2.5]), np.array([NAN, 2.5]), {}),
    (np.array([1.0, 2.0, 3.0], dtype=np.float32), np.array([3, 1]), {"assume_unique": True}),
    (np.array([1, 2, 3]), np.zeros(0, dtype=np.int64), {}),
    (np.zeros((0, 2)), np.array([1.0]), {}),
    (np.array(5), np.array([5, 6]), {}),
    # Large enough for the sorted look-up path.
    (RNG.integers(0, 1000, (40, 50)), RNG.integers(0, 1000, 700), {}),
    (RNG.integers(0, 1000, (40, 50)), RNG.integers(0, 1000, 700), {"invert": True}),
    (np.round(RNG.standard_normal((300, 10)), 1), np.round(RNG.standard_normal(300), 1), {}),
]


@pytest.mark.parametrize("el,test,kw", ISIN_CASES, ids=[f"isin{i}" for i in range(len(ISIN_CASES))])
def test_isin(el, test, kw):
    t_ft, t_pt = _both(test)
    for name, e, e_pt in _layouts(np.asarray(el)):
        _same(torch.isin(e, t_ft, **kw), pt.isin(e_pt, t_pt, **kw), what=f"{name} {kw}")


def test_isin_scalars():
    a, b = _both(np.array([1, 2, 3]))
    for s in (2, 2.5, 7):
        _same(torch.isin(a, s), pt.isin(b, s), what=f"test_element {s}")
        _same(torch.isin(s, a), pt.isin(s, b), what=f"element {s}")
        _same(torch.isin(s, a, invert=True), pt.isin(s, b, invert=True))


# ------------------------------------------------------------------------ order statistics

DISTINCT = RNG.permutation(60).reshape(3, 4, 5)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
@pytest.mark.parametrize("k,dim,keepdim", [(1, -1, False), (3, 0, True), (2, 1, False), (5, 2, True), (4, -2, False)])
def test_kthvalue(dtype, k, dim, keepdim):
    for name, a, b in _layouts(DISTINCT.astype(dtype)):
        _same(torch.kthvalue(a, k, dim, keepdim), pt.kthvalue(b, k, dim, keepdim), what=f"{name}")
        _same(a.kthvalue(k, dim=dim, keepdim=keepdim), b.kthvalue(k, dim=dim, keepdim=keepdim), what=f"method {name}")


def test_kthvalue_special():
    a, b = _both(np.array([3.0, NAN, 2.0, 1.0]))
    for k in (1, 3, 4):
        _same(torch.kthvalue(a, k), pt.kthvalue(b, k), what=f"nan k={k}")
    a, b = _both(np.array(2.5))
    _same(torch.kthvalue(a, 1), pt.kthvalue(b, 1))
    _same(torch.kthvalue(a, 1, 0, True), pt.kthvalue(b, 1, 0, True))
    a, b = _both(np.zeros((0, 3)))
    _same(torch.kthvalue(a, 2, 1), pt.kthvalue(b, 2, 1))
    # Ties: PyTorch's selection may name any of the equal elements; the value must agree and
    # the index must point at it.
    x = RNG.integers(0, 3, (4, 9))
    a, b = _both(x)
    for k in range(1, 10):
        ours, theirs = torch.kthvalue(a, k, 1), pt.kthvalue(b, k, 1)
        _same(ours.values, theirs.values)
        assert (a.gather(1, ours.indices.unsqueeze(1)).squeeze(1) == ours.values).all().item()


MODE_CASES = [
    (RNG.integers(0, 4, (5, 12)), -1, False),
    (RNG.integers(0, 4, (5, 12)), 0, True),
    (RNG.integers(0, 3, (3, 4, 16)), 1, False),
    (RNG.integers(-2, 2, (6, 7)).astype(np.float32), 1, True),
    (RNG.integers(-2, 2, (6, 7)).astype(np.float64), 0, False),
    (RNG.integers(0, 2, (4, 9)).astype(bool), 1, False),
    (np.array(7.0), 0, True),
    (np.zeros((2, 0)), 0, False),
    (np.array([[5, 5, 4, 4, 4, 5]]), 1, False),
]


@pytest.mark.parametrize("x,dim,keepdim", MODE_CASES, ids=[f"mode{i}" for i in range(len(MODE_CASES))])
def test_mode(x, dim, keepdim):
    for name, a, b in _layouts(np.asarray(x)):
        _same(torch.mode(a, dim, keepdim), pt.mode(b, dim, keepdim), what=name)
        _same(a.mode(dim, keepdim), b.mode(dim, keepdim), what=f"method {name}")


def test_mode_long_rows():
    # Rows over 16 elements: PyTorch's index is then not specified; the value is.
    x = RNG.integers(0, 5, (6, 40))
    a, b = _both(x)
    ours, theirs = torch.mode(a, 1), pt.mode(b, 1)
    _same(ours.values, theirs.values)
    assert (a.gather(1, ours.indices.unsqueeze(1)).squeeze(1) == ours.values).all().item()


NANMEDIAN_X = np.array([[1.0, NAN, 3.0, 2.0, 0.5], [NAN, 4.0, NAN, 1.0, NAN], [2.0, 2.0, 1.0, 9.0, -1.0]])
NANMEDIAN_CASES = [
    (NANMEDIAN_X, None, False),
    (NANMEDIAN_X, 1, False),
    (NANMEDIAN_X, 0, True),
    (NANMEDIAN_X.astype(np.float32), -1, True),
    (RNG.permutation(20).reshape(4, 5), 1, False),
    (RNG.permutation(20).reshape(4, 5), None, False),
    (np.array(3.0), None, False),
    (np.array(3.0), 0, True),
    (np.zeros(0), None, False),
    (np.zeros(0, dtype=np.int64), None, False),
    (np.zeros((2, 0)), 0, False),
    (np.array([NAN, NAN]), None, False),
]


@pytest.mark.parametrize("x,dim,keepdim", NANMEDIAN_CASES, ids=[f"nanmedian{i}" for i in range(len(NANMEDIAN_CASES))])
def test_nanmedian(x, dim, keepdim):
    for name, a, b in _layouts(np.asarray(x)):
        if dim is None:
            _same(torch.nanmedian(a), pt.nanmedian(b), what=name)
            _same(a.nanmedian(), b.nanmedian(), what=name)
        else:
            _same(torch.nanmedian(a, dim, keepdim), pt.nanmedian(b, dim, keepdim), what=name)
            _same(a.nanmedian(dim, keepdim=keepdim), b.nanmedian(dim, keepdim=keepdim), what=name)


def test_nanmedian_all_nan_row():
    # PyTorch names some NaN element of an all-NaN slice; ours names one too.
    x = np.array([[NAN] * 6, [1.0, NAN, 2.0, 3.0, NAN, 0.0]])
    a, b = _both(x)
    ours, theirs = torch.nanmedian(a, 1), pt.nanmedian(b, 1)
    _same(ours.values, theirs.values)
    assert ours.indices[1].item() == theirs.indices[1].item()
    assert math.isnan(a[0, ours.indices[0].item()].item())


QX = RNG.standard_normal((4, 7))
QX_NAN = QX.copy()
QX_NAN[1, 2] = NAN
QX_NAN[3, :] = NAN
QUANTILE_CASES = [
    (QX, 0.3, {}),
    (QX, 0.0, {"dim": 1}),
    (QX, 1.0, {"dim": 0, "keepdim": True}),
    (QX, np.array([0.1, 0.5, 0.9]), {"dim": 1}),
    (QX, np.array([0.1, 0.5, 0.9]), {"dim": -2, "keepdim": True}),
    (QX, np.array([0.25, 0.75]), {"keepdim": True}),
    (QX, np.array(0.4), {"dim": 1}),
    (QX_NAN, np.array([0.2, 0.6]), {"dim": 1}),
    (QX_NAN, 0.5, {}),
    (QX.astype(np.float32), np.array([0.3, 0.7], dtype=np.float32), {"dim": 1}),
    (np.array(2.5), 0.5, {"dim": 0, "keepdim": True}),
    (np.array(2.5), np.array([0.2, 0.5]), {}),
    (np.array([0.0, 1.0, 2.0, 3.0]), np.array([0.5 / 3, 1.5 / 3, 2.5 / 3, 0.125, 0.0, 1.0]), {}),
    (RNG.standard_normal((2, 3, 5)), np.array([0.33, 0.66]), {"dim": 1, "keepdim": True}),
]


@pytest.mark.parametrize("fname", ["quantile", "nanquantile"])
@pytest.mark.parametrize("interp", ["linear", "lower", "higher", "midpoint", "nearest"])
@pytest.mark.parametrize("x,q,kw", QUANTILE_CASES, ids=[f"q{i}" for i in range(len(QUANTILE_CASES))])
def test_quantile(fname, interp, x, q, kw):
    for name, a, b in _layouts(np.asarray(x)):
        qa, qb = (_both(q.astype(x.dtype)) if isinstance(q, np.ndarray) else (q, q))
        _same(getattr(torch, fname)(a, qa, interpolation=interp, **kw), getattr(pt, fname)(b, qb, interpolation=interp, **kw), rtol=1e-6, atol=1e-6, what=name)
        _same(getattr(a, fname)(qa, interpolation=interp, **kw), getattr(b, fname)(qb, interpolation=interp, **kw), rtol=1e-6, atol=1e-6, what=f"method {name}")


# ------------------------------------------------------------------------------ histograms

HX = RNG.standard_normal(500)
HISTC_CASES = [
    (HX, {}),
    (HX, {"bins": 7}),
    (HX, {"bins": 10, "min": -1, "max": 1.5}),
    (HX.reshape(20, 25), {"bins": 13}),
    (np.array([2.0, 2.0]), {"bins": 4}),
    (np.array([1.0, NAN, 2.0, 3.0]), {"bins": 4, "min": 0, "max": 2}),
    (np.zeros(0), {"bins": 4}),
    (np.array(1.5), {"bins": 3}),
    (np.array([0.0, 1.0, 2.0, 3.0]), {"bins": 3, "min": 0, "max": 3}),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("x,kw", HISTC_CASES, ids=[f"histc{i}" for i in range(len(HISTC_CASES))])
def test_histc(dtype, x, kw):
    for name, a, b in _layouts(np.asarray(x).astype(dtype)):
        _same(torch.histc(a, **kw), pt.histc(b, **kw), what=name)
        _same(a.histc(**kw), b.histc(**kw), what=f"method {name}")


W = RNG.random(500)
HISTOGRAM_CASES = [
    (HX, 10, {}),
    (HX, 13, {"range": (-1.0, 2.0)}),
    (HX, 13, {"range": (-1.0, 2.0), "weight": W, "density": True}),
    (HX, 5, {"density": True}),
    (HX.reshape(25, 20), 8, {"weight": W.reshape(25, 20)}),
    (HX, np.array([-2.0, -0.5, 0.0, 0.1, 3.0]), {}),
    (HX, np.array([-2.0, -0.5, 0.0, 0.1, 3.0]), {"weight": W, "density": True}),
    (np.array([2.0, 2.0]), 4, {}),
    (np.array([1.0, 2.0, 3.0]), 4, {"range": (2.0, 2.0)}),
    (np.zeros(0), 4, {}),
    (np.array([1.0, NAN, 2.0]), 4, {"range": (0.0, 3.0)}),
    # Samples exactly on the edges (given edges: int bins build them with linspace, whose last
    # bits differ from PyTorch's).
    (np.linspace(0.0, 1.0, 31), np.linspace(0.0, 1.0, 31), {}),
    (np.linspace(-0.7, 1.3, 211), np.linspace(-0.7, 1.3, 71), {"weight": np.arange(211.0)}),
    (np.array(0.25), 3, {}),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("x,bins,kw", HISTOGRAM_CASES, ids=[f"histogram{i}" for i in range(len(HISTOGRAM_CASES))])
def test_histogram(dtype, x, bins, kw):
    kw_ft, kw_pt = dict(kw), dict(kw)
    if "weight" in kw:
        kw_ft["weight"], kw_pt["weight"] = _both(kw["weight"].astype(dtype))
    b_ft, b_pt = _both(bins.astype(dtype)) if isinstance(bins, np.ndarray) else (bins, bins)
    for name, a, b in _layouts(np.asarray(x).astype(dtype)):
        _same(torch.histogram(a, b_ft, **kw_ft), pt.histogram(b, b_pt, **kw_pt), rtol=1e-5, atol=1e-6, what=name)
        _same(a.histogram(b_ft, **kw_ft), b.histogram(b_pt, **kw_pt), rtol=1e-5, atol=1e-6, what=f"method {name}")


POINTS = RNG.standard_normal((200, 3))
HISTOGRAMDD_CASES = [
    (POINTS, [3, 4, 5], {}),
    (POINTS, 3, {"density": True, "range": [-1, 1, -2, 2, 0, 1]}),
    (POINTS[:, :2], [np.array([-3.0, 0.0, 3.0]), np.array([-1.0, 0.0, 0.5, 1.0])], {"weight": RNG.random(200)}),
    (POINTS.reshape(10, 20, 3), 2, {}),
    (np.zeros((0, 2)), 2, {}),
]


@pytest.mark.parametrize("x,bins,kw", HISTOGRAMDD_CASES, ids=[f"histogramdd{i}" for i in range(len(HISTOGRAMDD_CASES))])
def test_histogramdd(x, bins, kw):
    kw_ft, kw_pt = dict(kw), dict(kw)
    if "weight" in kw:
        kw_ft["weight"], kw_pt["weight"] = _both(kw["weight"])
    if isinstance(bins, list) and isinstance(bins[0], np.ndarray):
        b_ft, b_pt = [_both(e)[0] for e in bins], [_both(e)[1] for e in bins]
    else:
        b_ft = b_pt = bins
    a, b = _both(x)
    _same(torch.histogramdd(a, b_ft, **kw_ft), pt.histogramdd(b, b_pt, **kw_pt), rtol=1e-6, atol=1e-7)


# ---------------------------------------------------------------- covariance and distances

CX = RNG.standard_normal((3, 6))
FW = RNG.integers(0, 4, 6)
AW = RNG.random(6)
COV_CASES = [
    (CX, {}),
    (CX, {"correction": 0}),
    (CX, {"correction": 2}),
    (CX, {"fweights": FW}),
    (CX, {"aweights": AW}),
    (CX, {"fweights": FW, "aweights": AW, "correction": 0}),
    (CX, {"fweights": FW, "aweights": AW}),
    (CX.astype(np.float32), {"aweights": AW}),
    (CX[0], {}),
    (RNG.integers(0, 9, (2, 5)), {}),
    (RNG.integers(0, 9, (2, 6)), {"fweights": FW}),
    (np.zeros((0, 3)), {}),
    (np.ones((1, 4)), {}),
    (np.array(3.0), {}),
    (CX + 1j * CX[::-1], {}),
    (CX.astype(np.complex64), {"aweights": AW.astype(np.float32), "fweights": FW}),
]


@pytest.mark.parametrize("x,kw", COV_CASES, ids=[f"cov{i}" for i in range(len(COV_CASES))])
def test_cov_corrcoef(x, kw):
    kw_ft = {k: (_both(v)[0] if isinstance(v, np.ndarray) else v) for k, v in kw.items()}
    kw_pt = {k: (_both(v)[1] if isinstance(v, np.ndarray) else v) for k, v in kw.items()}
    for name, a, b in _layouts(np.asarray(x)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # too few observations warn in both
            _same(torch.cov(a, **kw_ft), pt.cov(b, **kw_pt), rtol=1e-5, atol=1e-6, what=name)
            _same(a.cov(**kw_ft), b.cov(**kw_pt), rtol=1e-5, atol=1e-6, what=f"method {name}")
            if not kw:
                _same(torch.corrcoef(a), pt.corrcoef(b), rtol=1e-5, atol=1e-6, what=f"corrcoef {name}")
                _same(a.corrcoef(), b.corrcoef(), rtol=1e-5, atol=1e-6, what=f"corrcoef method {name}")


def test_cov_warns_and_degenerate():
    a, b = _both(np.zeros((2, 0)))
    with pytest.warns(UserWarning, match="degrees of freedom"):
        ours = torch.cov(a)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _same(ours, pt.cov(b))
        a, b = _both(np.array([[1.0, 1.0, 1.0], [1.0, 2.0, 3.0]]))
        _same(torch.corrcoef(a), pt.corrcoef(b))
        a, b = _both(np.array([1.0]))
        _same(torch.cov(a), pt.cov(b))


CDIST_CASES = [
    ((4, 3), (5, 3)),
    ((2, 30, 4), (1, 5, 4)),
    ((2, 1, 6, 2), (3, 7, 2)),
    ((0, 3), (4, 3)),
    ((3, 0), (2, 0)),
]


@pytest.mark.parametrize("p", [0.0, 0.5, 1.0, 2.0, 3.0, math.inf])
@pytest.mark.parametrize("mode", ["use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist"])
@pytest.mark.parametrize("s1,s2", CDIST_CASES, ids=[f"cdist{i}" for i in range(len(CDIST_CASES))])
def test_cdist(p, mode, s1, s2):
    x1, x2 = RNG.standard_normal(s1), RNG.standard_normal(s2)
    for dtype, tol in ((np.float64, 1e-9), (np.float32, 1e-4)):
        for name, a, b in _layouts(x1.astype(dtype)):
            c, d = _both(x2.astype(dtype))
            _same(torch.cdist(a, c, p, mode), pt.cdist(b, d, p, mode), rtol=tol, atol=tol, what=f"{name} {dtype}")


DIST_CASES = [
    ((3, 4), (3, 4)),
    ((3, 4), (4,)),
    ((3, 1), (1, 5)),
    ((2, 3), ()),
    ((0,), (0,)),
]


@pytest.mark.parametrize("p", [0, 1, 2, 3.5, 0.5, -1, math.inf, -math.inf])
@pytest.mark.parametrize("s1,s2", DIST_CASES, ids=[f"dist{i}" for i in range(len(DIST_CASES))])
def test_dist(p, s1, s2):
    x1, x2 = RNG.standard_normal(s1), RNG.standard_normal(s2)
    for dtype in (np.float64, np.float32):
        for name, a, b in _layouts(x1.astype(dtype)):
            c, d = _both(np.asarray(x2, dtype=dtype))
            _check_both(lambda: torch.dist(a, c, p), lambda: pt.dist(b, d, p), rtol=1e-5, atol=1e-6, what=name)
            _check_both(lambda: a.dist(c, p), lambda: b.dist(d, p), rtol=1e-5, atol=1e-6, what=name)


def test_dist_complex():
    x = RNG.standard_normal((3, 4)) + 1j * RNG.standard_normal((3, 4))
    a, b = _both(x)
    for p in (1, 2, 3, math.inf):
        _same(torch.dist(a, a[0] * 0.5, p), pt.dist(b, b[0] * 0.5, p), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("p", [1, 2, 3.5, math.inf])
@pytest.mark.parametrize("dim", [0, 1, -1, 2])
@pytest.mark.parametrize("maxnorm", [0.0, 1.5, 100.0])
def test_renorm(p, dim, maxnorm):
    x = RNG.standard_normal((3, 4, 5))
    for dtype in (np.float64, np.float32):
        for name, a, b in _layouts(x.astype(dtype)):
            _same(torch.renorm(a, p, dim, maxnorm), pt.renorm(b, p, dim, maxnorm), rtol=1e-5, atol=1e-6, what=name)
            _same(a.renorm(p, dim, maxnorm), b.renorm(p, dim, maxnorm), rtol=1e-5, atol=1e-6, what=name)


def test_renorm_inplace():
    x = RNG.standard_normal((4, 3))
    a, b = _both(x)
    version = a._version
    assert a.renorm_(2, 0, 1.0) is a
    assert a._version > version
    b.renorm_(2, 0, 1.0)
    _same(a, b)


# ------------------------------------------------------------ integration and differences

YF = RNG.standard_normal((3, 5))
YI = RNG.integers(-5, 9, (3, 5))
XS = np.sort(RNG.random(5))
XS0 = np.sort(RNG.random(3))
XB = np.sort(RNG.random((3, 5)), 1)
TRAPZ_CASES = [
    (YF, None, {}),
    (YF, None, {"dx": 0.3, "dim": 0}),
    (YF, None, {"dx": 2}),
    (YF, XS, {}),
    (YF, XS0, {"dim": 0}),
    (YF, XB, {}),
    (YF, XB[:1], {}),
    (YI, None, {}),
    (YI, None, {"dx": 2}),
    (YI, np.array([0, 1, 3, 4, 7]), {}),
    (YF.astype(np.float32), XS, {}),
    (YF.astype(np.float32), None, {"dx": 0.25}),
    (np.zeros((2, 0)), None, {}),
    (np.zeros((2, 0)), np.zeros(0), {}),
    (np.zeros((2, 1)), None, {}),
    (np.zeros((2, 0), dtype=np.int64), None, {"dx": 0.5}),
    (np.zeros((2, 0), dtype=np.int64), np.zeros(0), {}),
    (np.zeros((2, 1), dtype=np.int64), None, {}),
]


@pytest.mark.parametrize("fname", ["trapezoid", "trapz", "cumulative_trapezoid"])
@pytest.mark.parametrize("y,x,kw", TRAPZ_CASES, ids=[f"trapz{i}" for i in range(len(TRAPZ_CASES))])
def test_trapezoid(fname, y, x, kw):
    for name, a, b in _layouts(np.asarray(y)):
        if x is None:
            _same(getattr(torch, fname)(a, **kw), getattr(pt, fname)(b, **kw), rtol=1e-6, atol=1e-6, what=name)
        else:
            for xname, c, d in _layouts(np.asarray(x)):
                _same(getattr(torch, fname)(a, c, **kw), getattr(pt, fname)(b, d, **kw), rtol=1e-6, atol=1e-6, what=f"{name}/{xname}")


GRADIENT_CASES = [
    (YF, {}),
    (YF, {"edge_order": 2}),
    (YF, {"spacing": 2.5, "dim": 1}),
    (YF, {"spacing": [2, 0.5]}),
    (YF, {"spacing": [2, 0.5], "edge_order": 2}),
    (YF, {"spacing": [XS0, XS]}),
    (YF, {"spacing": [XS0, XS], "edge_order": 2}),
    (YF, {"spacing": (np.array([0, 1, 3, 4, 7]),), "dim": -1, "edge_order": 2}),
    (YF, {"spacing": (XS0,), "dim": [0]}),
    (YI, {}),
    (YI, {"spacing": [XS0, XS]}),
    (YF.astype(np.float32), {"edge_order": 2, "spacing": 0.5}),
    (RNG.standard_normal((3, 4, 6)), {"dim": (0, 2), "edge_order": 2}),
    (RNG.standard_normal(2), {}),
    (np.array(1.0), {}),
]


@pytest.mark.parametrize("y,kw", GRADIENT_CASES, ids=[f"gradient{i}" for i in range(len(GRADIENT_CASES))])
def test_gradient(y, kw):
    kw_ft, kw_pt = dict(kw), dict(kw)
    if isinstance(kw.get("spacing"), (list, tuple)) and isinstance(kw["spacing"][0], np.ndarray):
        kw_ft["spacing"] = [_both(s)[0] for s in kw["spacing"]]
        kw_pt["spacing"] = [_both(s)[1] for s in kw["spacing"]]
    for name, a, b in _layouts(np.asarray(y)):
        _same(torch.gradient(a, **kw_ft), pt.gradient(b, **kw_pt), rtol=1e-6, atol=1e-6, what=name)


def test_gradient_tensor_scalar_spacing():
    a, b = _both(YF)
    _same(torch.gradient(a, spacing=torch.tensor(2.0)), pt.gradient(b, spacing=pt.tensor(2.0)))


# -------------------------------------------------------------------------------- windows

WINDOWS = ["hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window"]


@pytest.mark.parametrize("fname", WINDOWS)
@pytest.mark.parametrize("length", [0, 1, 2, 3, 8, 17, 64])
@pytest.mark.parametrize("periodic", [True, False])
def test_windows(fname, length, periodic):
    ours, theirs = getattr(torch, fname), getattr(pt, fname)
    _same(ours(length), theirs(length), rtol=1e-6, atol=1e-6)
    _same(ours(length, periodic), theirs(length, periodic), rtol=1e-6, atol=1e-6)
    _same(ours(length, periodic, dtype=torch.float64), theirs(length, periodic, dtype=pt.float64), rtol=1e-12, atol=1e-12)
    _same(ours(length, periodic, dtype=torch.float16), theirs(length, periodic, dtype=pt.float16), rtol=1e-3, atol=1e-3)
    w = ours(length, periodic, requires_grad=True)
    assert w.requires_grad and w.is_leaf


def test_window_parameters():
    for args in [(5, False, 0.6, 0.3), (6, True, 0.5), (7,)]:
        _same(torch.hamming_window(*args), pt.hamming_window(*args), rtol=1e-6, atol=1e-6)
    _same(torch.hamming_window(5, False, alpha=0.6), pt.hamming_window(5, False, alpha=0.6), rtol=1e-6, atol=1e-6)
    for args in [(5, False, 5.0), (8, True, 0.0), (9, True, 20.0)]:
        _same(torch.kaiser_window(*args), pt.kaiser_window(*args), rtol=1e-6, atol=1e-6)
        _same(torch.kaiser_window(*args, dtype=torch.float64), pt.kaiser_window(*args, dtype=pt.float64), rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------------------- gradients

GX = RNG.standard_normal((4, 6))
GRAD_CASES = [
    ("quantile", lambda m, x: m.quantile(x, 0.37, dim=1), [GX]),
    ("quantile_all", lambda m, x: m.quantile(x, m.tensor([0.1, 0.5, 0.8], dtype=m.float64)), [GX]),
    ("quantile_mid", lambda m, x: m.quantile(x, 0.4, dim=0, keepdim=True, interpolation="midpoint"), [GX]),
    ("nanquantile", lambda m, x: m.nanquantile(x, 0.6, dim=1, interpolation="nearest"), [GX]),
    ("kthvalue", lambda m, x: m.kthvalue(x, 3, 1).values, [GX]),
    ("mode", lambda m, x: m.mode(x, 1).values, [GX]),
    ("nanmedian", lambda m, x: m.nanmedian(x, 1).values, [GX]),
    ("nanmedian_all", lambda m, x: m.nanmedian(x), [GX]),
    ("cov", lambda m, x: m.cov(x), [GX]),
    ("cov_weights", lambda m, x, a: m.cov(x, aweights=a), [GX, RNG.random(6) + 0.5]),
    ("corrcoef", lambda m, x: m.corrcoef(x), [GX]),
    ("cdist2", lambda m, x, y: m.cdist(x, y), [GX, RNG.standard_normal((3, 6))]),
    ("cdist2_mm", lambda m, x, y: m.cdist(x, y, compute_mode="use_mm_for_euclid_dist"), [GX, RNG.standard_normal((3, 6))]),
    ("cdist1", lambda m, x, y: m.cdist(x, y, 1.0), [GX, RNG.standard_normal((3, 6))]),
    ("cdist3", lambda m, x, y: m.cdist(x, y, 3.0), [GX, RNG.standard_normal((3, 6))]),
    ("cdist_inf", lambda m, x, y: m.cdist(x, y, math.inf), [GX, RNG.standard_normal((3, 6))]),
    ("cdist_batched", lambda m, x, y: m.cdist(x, y), [RNG.standard_normal((2, 3, 4)), RNG.standard_normal((1, 5, 4))]),
    ("dist", lambda m, x, y: m.dist(x, y), [GX, RNG.standard_normal(6)]),
    ("dist3", lambda m, x, y: m.dist(x, y, 3), [GX, RNG.standard_normal(6)]),
    ("dist_inf", lambda m, x, y: m.dist(x, y, math.inf), [GX, RNG.standard_normal(6)]),
    ("renorm", lambda m, x: m.renorm(x, 2, 0, 1.5), [GX]),
    ("renorm1", lambda m, x: m.renorm(x, 1, 1, 1.0), [GX]),
    ("trapezoid", lambda m, y: m.trapezoid(y), [GX]),
    ("trapezoid_x", lambda m, y, x: m.trapezoid(y, x), [GX, np.sort(RNG.random(6))]),
    ("trapezoid_dx", lambda m, y: m.trapezoid(y, dx=0.3, dim=0), [GX]),
    ("cumulative_trapezoid", lambda m, y: m.cumulative_trapezoid(y), [GX]),
    ("cumulative_trapezoid_x", lambda m, y, x: m.cumulative_trapezoid(y, x, dim=0), [GX, np.sort(RNG.random(4))]),
    ("gradient", lambda m, y: m.gradient(y), [GX]),
    ("gradient2", lambda m, y: m.gradient(y, spacing=0.5, edge_order=2), [GX]),
    ("gradient_coords", lambda m, y, x: m.gradient(y, spacing=(x,), dim=1, edge_order=2), [GX, np.sort(RNG.random(6)) + np.arange(6)]),
]


@pytest.mark.parametrize("name,fn,inputs", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_gradients(name, fn, inputs):
    _grad_compare(fn, inputs)


def test_mode_gradient_with_ties():
    # The gradient goes to the reported index (a gradcheck would move the tied values apart).
    x = RNG.integers(0, 3, (4, 9)).astype(np.float64)
    _grad_compare(lambda m, t: m.mode(t, 1).values, [x], gradcheck=False)


def test_zero_distance_gradients():
    # PyTorch's norm backward is 0 where the distance is 0 (not NaN).
    z = np.zeros((2, 3))
    _grad_compare(lambda m, x: m.cdist(x, x * 1), [z], gradcheck=False)
    _grad_compare(lambda m, x, y: m.dist(x, y), [z, z.copy()], gradcheck=False)


# ------------------------------------------------------------------------------- errors

ERROR_CASES = [
    ("searchsorted_0d", lambda m: m.searchsorted(m.tensor(1), m.tensor([1]))),
    ("searchsorted_shape", lambda m: m.searchsorted(m.tensor([[1, 3], [2, 4]]), m.tensor([3, 6]))),
    ("searchsorted_side", lambda m: m.searchsorted(m.tensor([1, 3]), m.tensor([3]), side="foo")),
    ("searchsorted_side_right", lambda m: m.searchsorted(m.tensor([1, 3]), m.tensor([3]), side="left", right=True)),
    ("searchsorted_sorter_size", lambda m: m.searchsorted(m.tensor([1, 3]), m.tensor([3]), sorter=m.tensor([0]))),
    ("searchsorted_sorter_dtype", lambda m: m.searchsorted(m.tensor([1, 3]), m.tensor([3]), sorter=m.tensor([0.0, 1.0]))),
    ("searchsorted_bool", lambda m: m.searchsorted(m.tensor([False, True]), m.tensor([True]))),
    ("searchsorted_scalar_nd", lambda m: m.searchsorted(m.tensor([[1, 3]]), 2)),
    ("bucketize_2d", lambda m: m.bucketize(m.tensor([3]), m.tensor([[1, 2]]))),
    ("isin_numbers", lambda m: m.isin(2, 3)),
    ("isin_bool", lambda m: m.isin(m.tensor([True]), m.tensor([1]))),
    ("kthvalue_k", lambda m: m.kthvalue(m.tensor([1.0, 2.0]), 3)),
    ("kthvalue_k0", lambda m: m.kthvalue(m.tensor([1.0, 2.0]), 0)),
    ("kthvalue_bool", lambda m: m.kthvalue(m.tensor([True, False]), 1)),
    ("kthvalue_empty", lambda m: m.kthvalue(m.zeros(0), 1)),
    ("kthvalue_dim", lambda m: m.kthvalue(m.zeros(2, 2), 1, 2)),
    ("mode_empty", lambda m: m.mode(m.zeros(0))),
    ("mode_dim", lambda m: m.mode(m.zeros(2), 1)),
    ("nanmedian_bool", lambda m: m.nanmedian(m.tensor([True]))),
    ("nanmedian_empty_dim", lambda m: m.nanmedian(m.zeros(2, 0), 1)),
    ("quantile_int", lambda m: m.quantile(m.tensor([1, 2]), 0.5)),
    ("quantile_q_range", lambda m: m.quantile(m.tensor([1.0, 2.0]), 1.5)),
    ("quantile_q_tensor_range", lambda m: m.quantile(m.tensor([1.0, 2.0]), m.tensor([-0.5]))),
    ("quantile_q_2d", lambda m: m.quantile(m.tensor([1.0, 2.0]), m.tensor([[0.5]]))),
    ("quantile_q_dtype", lambda m: m.quantile(m.tensor([1.0, 2.0]), m.tensor([0.5], dtype=m.float64))),
    ("quantile_empty", lambda m: m.quantile(m.zeros(0), 0.5)),
    ("quantile_interp", lambda m: m.quantile(m.tensor([1.0, 2.0]), 0.5, interpolation="cubic")),
    ("quantile_dim_tuple", lambda m: m.quantile(m.zeros(2, 2), 0.5, dim=(0, 1))),
    ("nanquantile_int", lambda m: m.nanquantile(m.tensor([1, 2]), 0.5)),
    ("histc_int", lambda m: m.histc(m.tensor([1, 2]), 4)),
    ("histc_bins", lambda m: m.histc(m.tensor([1.0, 2.0]), 0)),
    ("histc_minmax", lambda m: m.histc(m.tensor([1.0, 2.0]), 4, 3, 1)),
    ("histc_nan", lambda m: m.histc(m.tensor([1.0, NAN]), 4)),
    ("histc_inf", lambda m: m.histc(m.tensor([1.0, math.inf]), 4)),
    ("histogram_int", lambda m: m.histogram(m.tensor([1, 2]), 4)),
    ("histogram_range", lambda m: m.histogram(m.tensor([1.0, 2.0]), 4, range=(3.0, 1.0))),
    ("histogram_inf", lambda m: m.histogram(m.tensor([1.0, 2.0]), 4, range=(0.0, math.inf))),
    ("histogram_bins_2d", lambda m: m.histogram(m.tensor([1.0, 2.0]), m.tensor([[0.0, 1.0]]))),
    ("histogram_bins_dtype", lambda m: m.histogram(m.tensor([1.0, 2.0]), m.tensor([0.0, 1.0], dtype=m.float64))),
    ("histogram_tensor_bins_range", lambda m: m.histogram(m.tensor([1.0, 2.0]), m.tensor([0.0, 2.0]), range=(0.0, 1.0))),
    ("histogram_weight_shape", lambda m: m.histogram(m.tensor([1.0, 2.0]), 4, weight=m.tensor([1.0]))),
    ("histogram_weight_dtype", lambda m: m.histogram(m.tensor([1.0, 2.0]), 4, weight=m.tensor([1.0, 2.0], dtype=m.float64))),
    ("histogramdd_1d", lambda m: m.histogramdd(m.tensor([1.0, 2.0]), 4)),
    ("histogramdd_bins_len", lambda m: m.histogramdd(m.zeros(3, 2), [4, 3, 2])),
    ("histogramdd_range_len", lambda m: m.histogramdd(m.zeros(3, 1), 4, range=[0.0, 1.0, 2.0])),
    ("cov_3d", lambda m: m.cov(m.zeros(2, 2, 2))),
    ("cov_bool", lambda m: m.cov(m.zeros(2, 2, dtype=m.bool))),
    ("cov_fweights_float", lambda m: m.cov(m.zeros(2, 3), fweights=m.tensor([1.0, 2.0, 1.0]))),
    ("cov_aweights_int", lambda m: m.cov(m.zeros(2, 3), aweights=m.tensor([1, 2, 1]))),
    ("cov_fweights_neg", lambda m: m.cov(m.zeros(2, 3), fweights=m.tensor([1, -2, 1]))),
    ("cov_aweights_neg", lambda m: m.cov(m.zeros(2, 3), aweights=m.tensor([1.0, -2.0, 1.0]))),
    ("cov_weights_numel", lambda m: m.cov(m.zeros(2, 3), fweights=m.tensor([1, 2]))),
    ("cov_weights_2d", lambda m: m.cov(m.zeros(2, 3), fweights=m.tensor([[1, 2, 1]]))),
    ("corrcoef_3d", lambda m: m.corrcoef(m.zeros(2, 2, 2))),
    ("cdist_p", lambda m: m.cdist(m.zeros(2, 2), m.zeros(3, 2), p=-1)),
    ("cdist_int", lambda m: m.cdist(m.zeros(2, 2, dtype=m.int64), m.zeros(3, 2, dtype=m.int64))),
    ("cdist_1d", lambda m: m.cdist(m.zeros(2), m.zeros(3, 2))),
    ("cdist_cols", lambda m: m.cdist(m.zeros(2, 2), m.zeros(3, 1))),
    ("cdist_mode", lambda m: m.cdist(m.zeros(2, 2), m.zeros(3, 2), compute_mode="foo")),
    ("cdist_dtypes", lambda m: m.cdist(m.zeros(2, 2), m.zeros(3, 2, dtype=m.float64))),
    ("cdist_batch", lambda m: m.cdist(m.zeros(3, 2, 2), m.zeros(2, 3, 2))),
    ("dist_int", lambda m: m.dist(m.zeros(2, dtype=m.int64), m.zeros(2, dtype=m.int64))),
    ("dist_shape", lambda m: m.dist(m.zeros(2, 2), m.zeros(3))),
    ("dist_neg_inf_empty", lambda m: m.dist(m.zeros(0), m.zeros(0), -math.inf)),
    ("renorm_1d", lambda m: m.renorm(m.zeros(3), 2, 0, 1)),
    ("renorm_p", lambda m: m.renorm(m.zeros(2, 2), 0, 0, 1)),
    ("renorm_maxnorm", lambda m: m.renorm(m.zeros(2, 2), 2, 0, -1)),
    ("renorm_int", lambda m: m.renorm(m.zeros(2, 2, dtype=m.int64), 2, 0, 1)),
    ("renorm_dim", lambda m: m.renorm(m.zeros(2, 2), 2, 3, 1)),
    ("trapezoid_bool", lambda m: m.trapezoid(m.tensor([True, False]))),
    ("trapezoid_x_len", lambda m: m.trapezoid(m.zeros(2, 3), m.tensor([0.0, 1.0]))),
    ("trapezoid_0d", lambda m: m.trapezoid(m.tensor(1.0))),
    ("trapezoid_dx_bool", lambda m: m.trapezoid(m.zeros(3), dx=True)),
    ("cumulative_trapezoid_0d", lambda m: m.cumulative_trapezoid(m.tensor(1.0))),
    ("gradient_edge_order", lambda m: m.gradient(m.zeros(4), edge_order=3)),
    ("gradient_too_short", lambda m: m.gradient(m.zeros(2, 3), dim=0, edge_order=2)),
    ("gradient_spacing_len", lambda m: m.gradient(m.zeros(2, 3), spacing=[2.0])),
    ("gradient_spacing_dim_len", lambda m: m.gradient(m.zeros(2, 3), spacing=[2.0], dim=[0, 1])),
    ("gradient_spacing_0d", lambda m: m.gradient(m.zeros(2, 3), spacing=[m.tensor(2.0), m.tensor(3.0)])),
    ("gradient_bool", lambda m: m.gradient(m.zeros(3, dtype=m.bool))),
    ("hann_int", lambda m: m.hann_window(4, dtype=m.int64)),
    ("hamming_negative", lambda m: m.hamming_window(-1)),
    ("blackman_float_length", lambda m: m.blackman_window(4.0)),
    ("kaiser_int", lambda m: m.kaiser_window(4, dtype=m.int64)),
    ("bartlett_negative", lambda m: m.bartlett_window(-2)),
]


@pytest.mark.parametrize("name,fn", ERROR_CASES, ids=[c[0] for c in ERROR_CASES])
def test_errors(name, fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as theirs:
            fn(pt)
        with pytest.raises(type(theirs.value)):
            fn(torch)


def test_error_messages_name_op():
    with pytest.raises(RuntimeError, match=r"searchsorted\(\).*\[2, 2\].*\[2\]"):
        torch.searchsorted(torch.tensor([[1, 3], [2, 4]]), torch.tensor([3, 6]))
    with pytest.raises(RuntimeError, match=r"cdist.*X1: 2 X2: 1"):
        torch.cdist(torch.zeros(2, 2), torch.zeros(3, 1))
    with pytest.raises(RuntimeError, match=r"cov\(\).*2 != 3"):
        torch.cov(torch.zeros(2, 3), fweights=torch.tensor([1, 2]))
    with pytest.raises(RuntimeError, match=r"quantile\(\) q must be in the range \[0, 1\] but got 1.5"):
        torch.quantile(torch.tensor([1.0]), 1.5)


# ------------------------------------------------------------------------ names and out=

def test_names_and_methods():
    methods = ["kthvalue", "mode", "nanmedian", "quantile", "nanquantile", "histc", "histogram", "cov", "corrcoef", "dist", "renorm", "renorm_"]
    functions = ["searchsorted", "bucketize", "isin", "histogramdd", "cdist", "trapezoid", "trapz", "cumulative_trapezoid", "gradient"] + WINDOWS
    for name in methods:
        assert hasattr(torch.Tensor, name) == hasattr(pt.Tensor, name), name
    for name in functions + methods[:-1]:
        assert callable(getattr(torch, name)), name
    assert type(torch.histogram(torch.zeros(3), 2)).__name__ == "histogram"
    assert type(torch.nanmedian(torch.zeros(2, 3), 1)).__module__ == "torch.return_types"
    r = torch.kthvalue(torch.tensor([3.0, 1.0]), 1)
    assert r._fields == ("values", "indices")


def test_out_arguments():
    a, b = _both(np.array([[0, 3, 6], [9, 1, 5]]))
    s, s_pt = _both(SORTED_1D)
    out, out_pt = torch.empty(2, 3, dtype=torch.int64), pt.empty(2, 3, dtype=pt.int64)
    assert torch.searchsorted(s, a, out=out) is out
    pt.searchsorted(s_pt, b, out=out_pt)
    _same(out, out_pt)
    x, x_pt = _both(QX)
    q_out, q_out_pt = torch.empty(4), pt.empty(4)
    torch.quantile(x.float(), 0.3, dim=1, out=q_out)
    pt.quantile(x_pt.float(), 0.3, dim=1, out=q_out_pt)
    _same(q_out, q_out_pt, rtol=1e-6, atol=1e-6)
    vals, idx = torch.empty(4, dtype=torch.float64), torch.empty(4, dtype=torch.int64)
    res = torch.kthvalue(x, 2, 1, out=(vals, idx))
    assert res[0] is vals and res[1] is idx
    _same((vals, idx), tuple(pt.kthvalue(x_pt, 2, 1)))
    h = torch.empty(5)
    torch.histc(x.float(), 5, out=h)
    _same(h, pt.histc(x_pt.float(), 5))


# ---------------------------------------------------------------------------------------------
# Regressions found by the differential fuzzer (tests/fuzz): each case is the fuzzer's own
# reproducing case, run on both libraries and compared by its rules (result dtype, shape and
# values, or the exception class).


def _run_fuzz_case(case: dict) -> None:
    import os
    import sys

    here = os.path.dirname(os.path.abspath(__file__))
    for p in (here, os.path.join(here, "fuzz")):
        if p not in sys.path:
            sys.path.insert(0, p)
    from fuzz_case import run_case
    from fuzz_known import excluded

    assert excluded(case) is None, "a regression case must not be one the fuzzer skips"
    run_case(case)


_FUZZ_REGRESSIONS = {
    'isin_bool_scalar': {'op': 'isin_scalar', 'inputs': [{'shape': [1, 4, 4], 'dtype': 'int16', 'layout': 'contiguous', 'values': 'ints', 'seed': 1}], 'args': [False]},
    'isin_scalar_out_of_dtype_range': {'op': 'isin_scalar', 'inputs': [{'shape': [2, 2], 'dtype': 'uint8', 'layout': 'expanded', 'values': 'ints', 'seed': 0, 'expand_dim': 0}], 'args': [300]},
    'isin_complex_tensor_scalar': {'op': 'isin_scalar', 'inputs': [{'shape': [4], 'dtype': 'complex64', 'layout': 'sliced', 'values': 'extreme', 'seed': 145712}], 'args': [2.0]},
    'cdist_bfloat16': {'op': 'cdist_mat', 'inputs': [{'shape': [4, 4], 'dtype': 'bfloat16', 'layout': 'expanded', 'values': 'normal', 'seed': 543, 'expand_dim': 0}, {'shape': [4, 4], 'dtype': 'bfloat16', 'layout': 'contiguous', 'values': 'normal', 'seed': 525063}], 'args': []},
    'cdist_empty_mixed_dtypes': {'op': 'cdist', 'inputs': [{'shape': [1, 0, 3], 'dtype': 'float32', 'layout': 'flipped', 'values': 'normal', 'seed': 636393}, {'shape': [1, 0, 3], 'dtype': 'float16', 'layout': 'sliced', 'values': 'normal', 'seed': 23743}], 'args': [0.0]},
    'histogram_half_bin_count': {'op': 'histogram', 'inputs': [{'shape': [2], 'dtype': 'float16', 'layout': 'contiguous', 'values': 'normal', 'seed': 0}], 'args': [4, False]},
    'histogram_half_with_range': {'op': 'histogram_range', 'inputs': [{'shape': [3, 1, 2], 'dtype': 'float16', 'layout': 'expanded', 'values': 'normal', 'seed': 21362, 'expand_dim': 2}], 'args': [4, -1.0, 0.1]},
    'histogram_one_edge': {'op': 'histogram_edges', 'inputs': [{'shape': [3, 5], 'dtype': 'float32', 'layout': 'transposed', 'values': 'normal', 'seed': 78001617}, {'shape': [], 'dtype': 'float32', 'layout': 'expanded', 'values': 'normal', 'seed': 525919}], 'args': []},
    'histogramdd_0d': {'op': 'histogramdd', 'inputs': [{'shape': [], 'dtype': 'float32', 'layout': 'contiguous', 'values': 'normal', 'seed': 6}], 'args': [0]},
    'histogramdd_zero_dims': {'op': 'histogramdd', 'inputs': [{'shape': [0, 0, 0], 'dtype': 'float32', 'layout': 'flipped', 'values': 'normal', 'seed': 3}], 'args': [3]},
    'histogramdd_half_empty': {'op': 'histogramdd', 'inputs': [{'shape': [1, 0, 1], 'dtype': 'float16', 'layout': 'flipped', 'values': 'normal', 'seed': 1292}], 'args': [3]},
    'cov_zero_weights': {'op': 'cov_weights', 'inputs': [{'shape': [3], 'dtype': 'float32', 'layout': 'contiguous', 'values': 'normal', 'seed': 1}, {'shape': [3], 'dtype': 'int64', 'layout': 'contiguous', 'values': 'index', 'seed': 1, 'lo': 0, 'hi': 0}], 'args': []},
    'cov_bool_fweights': {'op': 'cov_weights', 'inputs': [{'shape': [3], 'dtype': 'int8', 'layout': 'flipped', 'values': 'normal', 'seed': 5}, {'shape': [5], 'dtype': 'bool', 'layout': 'contiguous', 'values': 'normal', 'seed': 5, 'lo': 0, 'hi': 2}], 'args': []},
    'renorm_dim_before_dtype': {'op': 'renorm', 'inputs': [{'shape': [4, 7, 3, 3], 'dtype': 'int8', 'layout': 'contiguous', 'values': 'special', 'seed': 18436232}], 'args': [1.0, -5, 0.1]},
    'renorm_nan_maxnorm': {'op': 'renorm', 'inputs': [{'shape': [1, 2], 'dtype': 'float32', 'layout': 'permuted', 'values': 'normal', 'seed': 25423}], 'args': [2.0, 0, float("nan")]},
    'quantile_dim_before_q_values': {'op': 'quantile_tensor_q', 'inputs': [{'shape': [5, 5], 'dtype': 'float64', 'layout': 'transposed', 'values': 'normal', 'seed': 1992, 'lo': 0.0, 'hi': 1.0}, {'shape': [2, 5, 5, 5], 'dtype': 'float64', 'layout': 'transposed', 'values': 'normal', 'seed': 137}], 'args': [2]},
    'quantile_nan_q': {'op': 'quantile_tensor_q', 'inputs': [{'shape': [2, 3, 2, 2], 'dtype': 'float32', 'layout': 'flipped', 'values': 'ints', 'seed': 5239131}, {'shape': [2, 3, 2, 2], 'dtype': 'float32', 'layout': 'flipped', 'values': 'special', 'seed': 3111, 'lo': 0.0, 'hi': 1.0}], 'args': [None]},
    'nanquantile_list_q': {'op': 'nanquantile', 'inputs': [{'shape': [], 'dtype': 'int32', 'layout': 'transposed', 'values': 'ints', 'seed': 0}], 'args': [[0.5, 0.5, 0.25], 0, 'nearest']},
    'nanmedian_empty_dim_complex': {'op': 'nanmedian_dim', 'inputs': [{'shape': [4, 5, 0], 'dtype': 'complex128', 'layout': 'flipped', 'values': 'special', 'seed': 1409}], 'args': [2, True]},
    'bucketize_bool_input_int_boundaries': {'op': 'bucketize_raw', 'inputs': [{'shape': [1], 'dtype': 'int32', 'layout': 'expanded', 'values': 'normal', 'seed': 1, 'expand_dim': 0}, {'shape': [1], 'dtype': 'bool', 'layout': 'transposed', 'values': 'special', 'seed': 49613}], 'args': []},
    'bucketize_bool_empty_boundaries': {'op': 'bucketize', 'inputs': [{'shape': [0, 4, 3, 4], 'dtype': 'bool', 'layout': 'contiguous', 'values': 'special', 'seed': 789}, {'shape': [4, 1, 1, 5], 'dtype': 'bool', 'layout': 'permuted', 'values': 'normal', 'seed': 238}], 'args': [False]},
    'histogram_edges_as_pytorch_linspace': {'op': 'histogram', 'inputs': [{'shape': [7, 7, 7, 7], 'dtype': 'float32', 'layout': 'sliced', 'values': 'normal', 'seed': 58087}], 'args': [2, False]},
    'bucketize_empty_bool': {'op': 'bucketize', 'inputs': [{'shape': [0, 4, 3, 4], 'dtype': 'bool', 'layout': 'permuted', 'values': 'normal', 'seed': 789}, {'shape': [3, 0, 1, 5], 'dtype': 'bool', 'layout': 'permuted', 'values': 'normal', 'seed': 238}], 'args': [False]},
    'trapezoid_x_size_check': {'op': 'trapezoid_x', 'inputs': [{'shape': [3], 'dtype': 'int32', 'layout': 'flipped', 'values': 'normal', 'seed': 0}, {'shape': [2, 3], 'dtype': 'int32', 'layout': 'contiguous', 'values': 'extreme', 'seed': 5}], 'args': [0]},
    'trapezoid_x_empty_bool': {'op': 'trapezoid_x', 'inputs': [{'shape': [0, 7, 5, 3], 'dtype': 'bool', 'layout': 'transposed', 'values': 'normal', 'seed': 1}, {'shape': [3, 0, 7, 5, 3], 'dtype': 'bool', 'layout': 'transposed', 'values': 'normal', 'seed': 2}], 'args': [0]},
    'trapezoid_x_lower_rank': {'op': 'trapezoid_x', 'inputs': [{'shape': [7, 0, 5, 1], 'dtype': 'int8', 'layout': 'permuted', 'values': 'ints', 'seed': 226}, {'shape': [2, 4, 0], 'dtype': 'float64', 'layout': 'contiguous', 'values': 'normal', 'seed': 4699}], 'args': [3]},
    'trapz_0d_x': {'op': 'trapz', 'inputs': [{'shape': [2], 'dtype': 'float32', 'layout': 'sliced', 'values': 'ints', 'seed': 498}, {'shape': [], 'dtype': 'float32', 'layout': 'contiguous', 'values': 'normal', 'seed': 444395}], 'args': []},
    'cumulative_trapezoid_0d_x': {'op': 'cumulative_trapezoid_x', 'inputs': [{'shape': [7, 2, 1], 'dtype': 'int32', 'layout': 'flipped', 'values': 'normal', 'seed': 6390241}, {'shape': [], 'dtype': 'int16', 'layout': 'transposed', 'values': 'normal', 'seed': 150}], 'args': [1]},
    'cumulative_trapezoid_overflow': {'op': 'cumulative_trapezoid_x', 'inputs': [{'shape': [5, 4, 5, 7], 'dtype': 'float32', 'layout': 'transposed', 'values': 'extreme', 'seed': 7299}, {'shape': [5, 1, 5, 7], 'dtype': 'float32', 'layout': 'sliced', 'values': 'normal', 'seed': 257}], 'args': [-4]},
    'cumulative_trapezoid_float32_sum': {'op': 'cumulative_trapezoid', 'inputs': [{'shape': [5, 1, 5, 5], 'dtype': 'float32', 'layout': 'sliced', 'values': 'normal', 'seed': 6942}], 'args': [2]},
    'trapezoid_empty_keeps_dtype': {'op': 'trapezoid_dx', 'inputs': [{'shape': [0, 0, 0, 1], 'dtype': 'int8', 'layout': 'permuted', 'values': 'special', 'seed': 4}], 'args': [float("inf"), 1]},
    'trapezoid_dim_before_bool': {'op': 'trapezoid_dx', 'inputs': [{'shape': [3, 3], 'dtype': 'bool', 'layout': 'contiguous', 'values': 'special', 'seed': 0}], 'args': [0.0, 2]},
    'gradient_0d': {'op': 'gradient', 'inputs': [{'shape': [], 'dtype': 'float16', 'layout': 'contiguous', 'values': 'normal', 'seed': 337}], 'args': [0, 1]},
    'gradient_uint8': {'op': 'gradient', 'inputs': [{'shape': [5, 3, 3, 2], 'dtype': 'uint8', 'layout': 'sliced', 'values': 'special', 'seed': 3185}], 'args': [-3, 0]},
    'hann_window_complex': {'op': 'hann_window', 'inputs': [], 'args': [4, False, {'dtype': 'complex64'}]},
}


@pytest.mark.parametrize("name", sorted(_FUZZ_REGRESSIONS))
def test_fuzz_regression(name: str) -> None:
    _run_fuzz_case(_FUZZ_REGRESSIONS[name])
