"""`t.data = other` and `b.copy_(leaf)` against PyTorch: the tensor object takes the other's
memory at any shape and dtype and keeps its autograd identity; a copy of a leaf is history."""

from __future__ import annotations

import ferrotorch as torch
from torch_oracle import needs_torch, pt

pytestmark = needs_torch


def _rebind(L):
    p = L.nn.Parameter(L.ones(2, 3))
    p.sum().backward()
    t = L.zeros(4)
    p.data = t
    t[0] = 5.0  # shared memory: p sees it
    return p


def test_data_assignment_rebinds_memory_and_keeps_identity() -> None:
    ours, theirs = _rebind(torch), _rebind(pt)
    assert ours.tolist() == theirs.tolist() == [5.0, 0.0, 0.0, 0.0]
    assert tuple(ours.grad.shape) == tuple(theirs.grad.shape) == (2, 3)
    assert ours.requires_grad and ours.is_leaf and type(ours).__name__ == "Parameter"
    for p in (ours, theirs):
        p.grad = None
        (p * 2).sum().backward()
    assert ours.grad.tolist() == theirs.grad.tolist() == [2.0] * 4


def test_data_assignment_other_dtype() -> None:
    for L in (torch, pt):
        a = L.ones(2)
        a.data = L.zeros(3, dtype=L.int64)
        assert a.tolist() == [0, 0, 0] and str(a.dtype).endswith("int64")


def test_data_assignment_same_shape_shares_memory() -> None:
    for L in (torch, pt):
        a, b = L.ones(3), L.zeros(3)
        a.data = b
        b.add_(2.0)
        assert a.tolist() == [2.0, 2.0, 2.0]


def test_copy_of_a_leaf_is_recorded() -> None:
    for L in (torch, pt):
        b = L.ones(3)
        c = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
        b.copy_(c)
        assert b.requires_grad and not b.is_leaf
        (b * L.tensor([1.0, 10.0, 100.0])).sum().backward()
        assert c.grad.tolist() == [1.0, 10.0, 100.0]


def test_module_to_keeps_the_parameter_objects() -> None:
    """PyTorch's Module._apply assigns .data: an optimizer built before .double() still steps
    the module's parameters."""
    for L in (torch, pt):
        m = L.nn.Linear(2, 3)
        opt = L.optim.SGD(m.parameters(), lr=0.1)
        w = m.weight
        m(L.ones(1, 2)).sum().backward()
        m.double()
        assert m.weight is w and str(w.dtype).endswith("float64") and str(w.grad.dtype).endswith("float64")
        before = w.detach().clone()
        opt.step()
        assert not L.equal(before, w.detach())


def test_lazy_parameters_materialize_in_place() -> None:
    for L in (torch, pt):
        m = L.nn.LazyLinear(3)
        w = m.weight
        m(L.ones(2, 5))
        assert m.weight is w and type(w).__name__ == "Parameter" and tuple(w.shape) == (3, 5)


def test_copy_or_fill_of_constants_cuts_the_old_history() -> None:
    """Overwritten elements pass no gradient to what they held before (PyTorch's CopyBackwards)."""
    cases = [
        lambda L, o: o[1:5].copy_(L.ones(4)),
        lambda L, o: o.copy_(L.ones(6)),
        lambda L, o: o[1:5].fill_(1),
        lambda L, o: o.zero_(),
        lambda L, o: o[2:].zero_(),
    ]
    for case in cases:
        grads = []
        for L in (torch, pt):
            a = L.arange(6.0, requires_grad=True)
            o = a.clone()
            case(L, o)
            assert o.requires_grad
            (o * L.arange(6.0)).sum().backward()
            grads.append(a.grad.tolist())
        assert grads[0] == grads[1]
