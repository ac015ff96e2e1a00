"""Tensor.unfold, as_strided and the in-place view ops (t_, transpose_, swapaxes_, swapdims_,
squeeze_, unsqueeze_, as_strided_) against PyTorch: values, strides, sharing, gradients,
errors."""

from __future__ import annotations

from typing import Any, Callable, Dict

import numpy as np
import pytest

import ferrotorch as torch
from torch_oracle import assert_close, needs_torch, pt

pytestmark = needs_torch


def _inputs(L: Any) -> Dict[str, Any]:
    base = L.arange(60).reshape(3, 4, 5)
    return {
        "contiguous": base.clone().double(),
        "transposed": base.double().transpose(0, 2),
        "sliced": base.double()[:, 1::2, ::2],
        "int": base.clone(),
        "bool": base % 3 == 0,
        "float32": base.float() / 7,
    }


UNFOLD_CASES = [(0, 2, 1), (1, 2, 2), (2, 3, 1), (-1, 5, 5), (2, 1, 3), (1, 0, 1), (0, 3, 3)]


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "sliced", "int", "bool", "float32"])
@pytest.mark.parametrize("dim,size,step", UNFOLD_CASES)
def test_unfold_values_and_strides(layout: str, dim: int, size: int, step: int) -> None:
    a, b = _inputs(torch)[layout], _inputs(pt)[layout]
    if size > b.shape[dim]:
        pytest.skip("window wider than the dim (tested as an error)")
    ours, theirs = a.unfold(dim, size, step), b.unfold(dim, size, step)
    assert_close(ours, theirs, rtol=0, atol=0, what=f"unfold{dim, size, step}")
    assert ours.stride() == theirs.stride()
    assert ours.data_ptr() == a.data_ptr() + (ours.storage_offset() - a.storage_offset()) * a.element_size()


def test_unfold_0d_and_zero_size() -> None:
    for L in (torch, pt):
        assert L.tensor(5.0).unfold(0, 1, 1).tolist() == [5.0]
        assert L.tensor(5.0).unfold(-1, 0, 2).shape == (0,)
    assert tuple(torch.zeros(3, 0).unfold(1, 0, 1).shape) == tuple(pt.zeros(3, 0).unfold(1, 0, 1).shape)
    assert tuple(torch.zeros(3, 0).unfold(0, 2, 1).shape) == tuple(pt.zeros(3, 0).unfold(0, 2, 1).shape)


def test_unfold_is_a_view_that_writes_through() -> None:
    x = torch.arange(10.0)
    w = x.unfold(0, 4, 3)
    w[1, 0] = -1.0
    assert x[3].item() == -1.0
    x[6] = 7.5
    assert w[1, 3].item() == 7.5 and w[2, 0].item() == 7.5


ERRORS: Dict[str, Callable[[Any], Any]] = {
    "unfold_too_wide": lambda L: L.arange(10.0).unfold(0, 11, 1),
    "unfold_step_0": lambda L: L.arange(10.0).unfold(0, 3, 0),
    "unfold_dim_out_of_range": lambda L: L.arange(10.0).unfold(1, 2, 1),
    "unfold_negative_size": lambda L: L.arange(10.0).unfold(0, -1, 1),
    "unfold_0d_size_2": lambda L: L.tensor(5.0).unfold(0, 2, 1),
    "as_strided_out_of_bounds": lambda L: L.arange(10.0).as_strided((3,), (5,)),
    "as_strided_negative_stride": lambda L: L.arange(10.0).as_strided((3,), (-1,)),
    "as_strided_length_mismatch": lambda L: L.arange(10.0).as_strided((3, 2), (1,)),
    "as_strided_negative_offset": lambda L: L.arange(10.0).as_strided((3,), (1,), -1),
    "as_strided_negative_size": lambda L: L.arange(10.0).as_strided((-1,), (1,)),
    "t__3d": lambda L: L.zeros(2, 3, 4).t_(),
    "unsqueeze__out_of_range": lambda L: L.zeros(2).unsqueeze_(3),
    "transpose__leaf_requires_grad": lambda L: L.zeros(2, 3, requires_grad=True).transpose_(0, 1),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_pytorch(name: str) -> None:
    fn = ERRORS[name]
    with pytest.raises(Exception) as theirs:
        fn(pt)
    with pytest.raises(type(theirs.value)):
        fn(torch)


AS_STRIDED_CASES = [
    ((2, 2), (1, 2), None),
    ((3, 3), (1, 1), 2),  # overlapping windows
    ((4,), (0,), 5),  # every element the same
    ((2, 3), (3, 1), 0),
    ((0, 3), (1, 1), None),
    ((), (), 7),
]


@pytest.mark.parametrize("size,stride,offset", AS_STRIDED_CASES)
def test_as_strided_values_and_gradients(size: Any, stride: Any, offset: Any) -> None:
    src = np.arange(12.0)
    a = torch.tensor(src, requires_grad=True)
    b = pt.tensor(src, requires_grad=True)
    ours, theirs = torch.as_strided(a, size, stride, offset), pt.as_strided(b, size, stride, offset)
    assert_close(ours, theirs, rtol=0, atol=0, what="as_strided")
    weights = np.arange(1.0, 1.0 + int(np.prod(size))).reshape(size)
    (ours * torch.tensor(weights)).sum().backward()
    (theirs * pt.tensor(weights)).sum().backward()
    assert_close(a.grad, b.grad, rtol=0, atol=0, what="as_strided grad")


def test_as_strided_of_a_view_uses_its_offset() -> None:
    for L in (torch, pt):
        x = L.arange(10.0)[2:]
        assert x.as_strided((2,), (1,)).tolist() == [2.0, 3.0]
        assert x.as_strided((2,), (1,), 0).tolist() == [0.0, 1.0]


@pytest.mark.parametrize("dim,size,step", [(1, 2, 1), (0, 2, 1), (1, 3, 2), (1, 1, 1)])
def test_unfold_gradients_vs_torch_and_gradcheck(dim: int, size: int, step: int) -> None:
    src = np.random.default_rng(3).standard_normal((3, 5))
    a = torch.tensor(src, requires_grad=True)
    b = pt.tensor(src, requires_grad=True)
    ua, ub = a.unfold(dim, size, step), b.unfold(dim, size, step)
    w = np.random.default_rng(4).standard_normal(tuple(ub.shape))
    (ua * torch.tensor(w)).sum().backward()
    (ub * pt.tensor(w)).sum().backward()
    assert_close(a.grad, b.grad, rtol=1e-12, atol=1e-12, what="unfold grad")
    x = torch.tensor(src, requires_grad=True)
    assert torch.autograd.gradcheck(lambda t: t.unfold(dim, size, step) ** 2, (x,))
    assert torch.autograd.gradgradcheck(lambda t: t.unfold(dim, size, step) ** 2, (x,))


def test_as_strided_gradcheck() -> None:
    x = torch.tensor(np.random.default_rng(5).standard_normal(9), requires_grad=True)
    assert torch.autograd.gradcheck(lambda t: t.as_strided((3, 3), (2, 1), 1).sin(), (x,))
    assert torch.autograd.gradgradcheck(lambda t: t.as_strided((3, 3), (2, 1), 1).sin(), (x,))


INPLACE_VIEWS: Dict[str, Callable[[Any], Any]] = {
    "t_": lambda x: x.t_(),
    "transpose_": lambda x: x.transpose_(0, 1),
    "swapaxes_": lambda x: x.swapaxes_(1, 0),
    "swapdims_": lambda x: x.swapdims_(0, 1),
    "unsqueeze_": lambda x: x.unsqueeze_(1),
    "unsqueeze__negative": lambda x: x.unsqueeze_(-1),
    "squeeze_": lambda x: x.unsqueeze_(0).squeeze_(),
    "squeeze__dim": lambda x: x.unsqueeze_(2).squeeze_(2),
    "as_strided_": lambda x: x.as_strided_((3, 2), (1, 3)),
}


@pytest.mark.parametrize("name", sorted(INPLACE_VIEWS))
def test_inplace_views_rebind_the_same_object(name: str) -> None:
    fn = INPLACE_VIEWS[name]
    a, b = torch.arange(6.0).reshape(2, 3), pt.arange(6.0).reshape(2, 3)
    ra, rb = fn(a), fn(b)
    assert ra is a and rb is b
    assert_close(a, b, rtol=0, atol=0, what=name)
    assert a.stride() == b.stride()
    assert a._version == b._version


def test_inplace_view_keeps_history_of_a_non_leaf() -> None:
    w = torch.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
    y = w * 2
    y.t_()
    assert tuple(y.shape) == (3, 1)
    (y * torch.tensor([[1.0], [10.0], [100.0]])).sum().backward()
    assert w.grad.tolist() == [[2.0, 20.0, 200.0]]
