"""The op table on the GPU: every unary, binary and reduction op of ``op_table``, on every dtype
it claims and every layout (contiguous, transposed, sliced, broadcast, zero-size, 0-d), run on
CUDA and compared with the same call on the CPU; float64 gradients compared with the CPU's
(which ``test_gradcheck`` checks numerically) and a numerical gradcheck on the device.

Skips cleanly where no CUDA device is available."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from op_table import BINARY, REDUCTIONS, UNARY
from test_ops_table import LAYOUTS, TOL, make, sample, shaped

import ferrotorch as torch
from conftest import to_np

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")


def on_device(t: Any, layout: str) -> Any:
    """The CUDA tensor with ``t``'s values in the same layout (the view is taken on the device)."""
    if layout == "transposed" and t.dim() >= 2:
        d = t.t().contiguous().cuda().t()
        assert not d.is_contiguous()
        return d
    if layout == "sliced" and t.dim() >= 1:
        big = t.unsqueeze(-1).expand(*t.shape, 2).contiguous().cuda()
        return big.select(-1, 0)
    return t.contiguous().cuda()


def same(got: Any, want: Any, dtype: str) -> None:
    """The device result equals the CPU result: dtype, shape, values (NaN where NaN)."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            same(g, w, dtype)
        return
    assert got.device.type == "cuda", got.device
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    g, w = to_np(got.cpu()), to_np(want)
    assert g.shape == w.shape, (g.shape, w.shape)
    if w.dtype.kind == "f":
        tol = TOL.get(dtype, 2e-5)
        np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=tol, atol=tol)
    else:
        np.testing.assert_array_equal(g, w)


def grads_match(fn: Any, *cpu_inputs: Any) -> None:
    """float64 gradients of ``sum(fn(...) * weights)`` on the device equal the CPU's."""
    cpu = [t.detach().clone().requires_grad_(True) for t in cpu_inputs]
    dev = [t.detach().cuda().requires_grad_(True) for t in cpu_inputs]
    first = lambda out: out[0] if isinstance(out, tuple) else out  # noqa: E731
    out_c = first(fn(*cpu))
    w = torch.randn(tuple(out_c.shape), dtype=out_c.dtype)
    (out_c * w).sum().backward()
    (first(fn(*dev)) * w.cuda()).sum().backward()
    for c, d in zip(cpu, dev):
        if c.grad is None:
            assert d.grad is None
            continue
        assert d.grad is not None and d.grad.device.type == "cuda"
        np.testing.assert_allclose(d.grad.cpu().numpy(), c.grad.numpy(), rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("op", UNARY, ids=[o.name for o in UNARY])
def test_unary_on_cuda(op, layout) -> None:
    rng = np.random.default_rng(0)
    for dtype in op.dtypes:
        a = shaped(layout, rng, op, dtype)
        t = make(a, dtype, "contiguous")
        d = on_device(t, layout)
        if layout == "expanded":
            t, d = t.expand(3, 4), d.expand(3, 4)
        same(op.fn(d), op.fn(t), dtype)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("op", BINARY, ids=[o.name for o in BINARY])
def test_binary_on_cuda(op, layout) -> None:
    rng = np.random.default_rng(1)
    for dtype in op.dtypes:
        a = shaped(layout, rng, op, dtype)
        b = sample(op, dtype, (3, 1), rng) if layout == "expanded" else shaped(layout, rng, op, dtype)
        ta, tb = make(a, dtype, "contiguous"), make(b, dtype, "contiguous")
        same(op.fn(on_device(ta, layout), tb.cuda()), op.fn(ta, tb), dtype)


@pytest.mark.parametrize("op", BINARY, ids=[o.name for o in BINARY])
def test_binary_with_a_host_scalar_tensor(op) -> None:
    """A 0-d CPU tensor beside a CUDA tensor is a scalar operand, as in PyTorch."""
    dtype = op.dtypes[0]
    rng = np.random.default_rng(4)
    a, b = sample(op, dtype, (3, 4), rng), sample(op, dtype, (), rng)
    ta, tb = make(a, dtype, "contiguous"), make(b, dtype, "contiguous")
    same(op.fn(ta.cuda(), tb), op.fn(ta, tb), dtype)


@pytest.mark.parametrize("op", REDUCTIONS, ids=[o.name for o in REDUCTIONS])
@pytest.mark.parametrize("dim,keepdim", [(None, False), (0, False), (1, True), ((0, 2), False), (-1, True)])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "sliced"])
def test_reductions_on_cuda(op, dim, keepdim, layout) -> None:
    if isinstance(dim, tuple) and not op.tuple_dims:
        pytest.skip("op takes a single dim")
    rng = np.random.default_rng(2)
    for dtype in op.dtypes:
        t = make(sample(op, dtype, (3, 4, 5), rng), dtype, "contiguous")
        if layout == "transposed":
            d = t.permute(2, 1, 0).contiguous().cuda().permute(2, 1, 0)
        elif layout == "sliced":
            d = t.unsqueeze(-1).expand(3, 4, 5, 2).contiguous().cuda().select(-1, 1)
        else:
            d = t.cuda()
        same(op.fn(d, dim, keepdim), op.fn(t, dim, keepdim), dtype)


DIFFERENTIABLE_UNARY = [o for o in UNARY if o.grad and "float64" in o.dtypes]
DIFFERENTIABLE_BINARY = [o for o in BINARY if o.grad and "float64" in o.dtypes]
DIFFERENTIABLE_REDUCTIONS = [o for o in REDUCTIONS if o.grad and "float64" in o.dtypes]


@pytest.mark.parametrize("op", DIFFERENTIABLE_UNARY, ids=[o.name for o in DIFFERENTIABLE_UNARY])
def test_unary_gradients_on_cuda(op) -> None:
    a = sample(op, "float64", (3, 4), np.random.default_rng(5))
    grads_match(op.fn, torch.tensor(a.tolist(), dtype=torch.float64))


@pytest.mark.parametrize("op", DIFFERENTIABLE_BINARY, ids=[o.name for o in DIFFERENTIABLE_BINARY])
def test_binary_gradients_on_cuda(op) -> None:
    rng = np.random.default_rng(6)
    a, b = sample(op, "float64", (3, 4), rng), sample(op, "float64", (4,), rng)
    grads_match(op.fn, torch.tensor(a.tolist(), dtype=torch.float64), torch.tensor(b.tolist(), dtype=torch.float64))


@pytest.mark.parametrize("op", DIFFERENTIABLE_REDUCTIONS, ids=[o.name for o in DIFFERENTIABLE_REDUCTIONS])
def test_reduction_gradients_on_cuda(op) -> None:
    a = sample(op, "float64", (3, 4, 5), np.random.default_rng(7))
    grads_match(lambda t: op.fn(t, 1, False), torch.tensor(a.tolist(), dtype=torch.float64))


GRADCHECKED = ["exp", "tanh", "sigmoid", "gelu", "log_softmax", "mul", "div", "pow", "atan2", "sum", "mean", "amax"]


@pytest.mark.parametrize("name", GRADCHECKED)
def test_gradcheck_on_cuda(name) -> None:
    """torch.autograd.gradcheck with float64 CUDA inputs (finite differences on the device)."""
    ops = {o.name: o for o in UNARY + BINARY + REDUCTIONS}
    if name not in ops:
        pytest.skip(f"{name} is not in the op table")
    op = ops[name]
    rng = np.random.default_rng(8)
    shape = (3, 4, 5) if op in REDUCTIONS else (3, 4)
    inputs = [
        torch.tensor(sample(op, "float64", shape, rng).tolist(), dtype=torch.float64, device="cuda").requires_grad_()
        for _ in range(2 if op in BINARY else 1)
    ]
    fn = (lambda t: op.fn(t, 1, False)) if op in REDUCTIONS else op.fn
    if isinstance(fn(*inputs), tuple):
        pytest.skip("tuple result")
    assert torch.autograd.gradcheck(fn, tuple(inputs))
