"""float64 gradcheck for every differentiable op of the table, and gradgradcheck for a
representative set (the same table drives both)."""

import numpy as np
import pytest
from op_table import BINARY, REDUCTIONS, UNARY

import ferrotorch as torch


def inputs(op, n, shape=(2, 3), seed=0):
    rng = np.random.default_rng(seed)
    lo, hi = op.domain
    return tuple(torch.tensor(rng.uniform(lo, hi, shape).tolist(), dtype=torch.float64, requires_grad=True) for _ in range(n))


@pytest.mark.parametrize("op", [o for o in UNARY if o.grad], ids=[o.name for o in UNARY if o.grad])
def test_unary_gradcheck(op):
    assert torch.autograd.gradcheck(op.fn, inputs(op, 1))


@pytest.mark.parametrize("op", [o for o in BINARY if o.grad], ids=[o.name for o in BINARY if o.grad])
def test_binary_gradcheck(op):
    a, b = inputs(op, 2)
    assert torch.autograd.gradcheck(op.fn, (a, b))
    # Broadcasting: gradients must be summed back to the smaller operand.
    (c,) = inputs(op, 1, shape=(1, 3), seed=1)
    assert torch.autograd.gradcheck(op.fn, (a, c))


@pytest.mark.parametrize("op", [o for o in REDUCTIONS if o.grad], ids=[o.name for o in REDUCTIONS if o.grad])
@pytest.mark.parametrize("dim,keepdim", [(None, False), (1, False), (0, True), ((0, 2), True)])
def test_reduction_gradcheck(op, dim, keepdim):
    if isinstance(dim, tuple) and not op.tuple_dims:
        pytest.skip("op takes a single dim")
    (x,) = inputs(op, 1, shape=(2, 3, 2))
    assert torch.autograd.gradcheck(lambda t: op.fn(t, dim, keepdim), (x,))


@pytest.mark.parametrize("op", [o for o in UNARY if o.grad], ids=[o.name for o in UNARY if o.grad])
def test_unary_gradcheck_strided_input(op):
    """The gradient of a transposed (non-contiguous) input lands in the right places."""
    (x,) = inputs(op, 1, shape=(3, 2), seed=7)
    assert torch.autograd.gradcheck(lambda t: op.fn(t.t()), (x,))


def test_gradcheck_ops_with_tensor_parameters():
    rng = np.random.default_rng(8)
    t = lambda *s: torch.tensor(rng.uniform(-1, 1, s).tolist(), dtype=torch.float64, requires_grad=True)  # noqa: E731
    x, lo, hi = t(3, 4), t(4), t(3, 1)
    lo = (lo - 2).detach().requires_grad_()
    hi = (hi + 2).detach().requires_grad_()
    # Gradient flows to x inside the bounds; the bounds here are never active.
    assert torch.autograd.gradcheck(lambda a: a.clamp(lo.detach(), hi.detach()), (x,))
    assert torch.autograd.gradcheck(lambda a, w: a.lerp(torch.zeros(3, 4, dtype=torch.float64), w), (x, t(3, 4)))
    assert torch.autograd.gradcheck(lambda a: torch.cummax(a, 1).values, (x,))
    assert torch.autograd.gradcheck(lambda a: a.logcumsumexp(0), (x,))
    assert torch.autograd.gradcheck(lambda a: a.softmax(0) * a.log_softmax(1), (x,))
    assert torch.autograd.gradcheck(lambda a: torch.nansum(a, 1), (x,))
    assert torch.autograd.gradcheck(lambda a: torch.aminmax(a, dim=0).max, (x,))


def test_clamp_gradient_at_the_bounds():
    # Number bounds: PyTorch's minimum-norm subgradient, 0 at the bounds (like relu/hardtanh).
    x = torch.tensor([-1.0, 0.0, 0.5, 1.0, 2.0], requires_grad=True)
    x.clamp(0.0, 1.0).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 1.0, 0.0, 0.0]
    x.grad = None
    x.clamp_min(0.0).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 1.0, 1.0, 1.0]
    # Tensor bounds: like maximum/minimum, a tie splits the gradient between input and bound.
    y = torch.tensor([-1.0, 0.0, 0.5, 1.0, 2.0], requires_grad=True)
    lo = torch.zeros(5, requires_grad=True)
    hi = torch.ones(5, requires_grad=True)
    torch.clamp(y, lo, hi).backward(torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0]))
    assert y.grad.tolist() == [0.0, 1.0, 3.0, 2.0, 0.0]
    assert lo.grad.tolist() == [1.0, 1.0, 0.0, 0.0, 0.0] and hi.grad.tolist() == [0.0, 0.0, 0.0, 2.0, 5.0]


def test_gradients_at_special_points():
    # std of a constant row: zero gradient, not NaN.
    x = torch.tensor([[1.0, 1.0, 1.0], [1.0, 2.0, 4.0]], dtype=torch.float64, requires_grad=True)
    x.std(1).sum().backward()
    assert x.grad.tolist()[0] == [0.0, 0.0, 0.0] and not x.grad.isnan().any().item()
    # x ** 0 at x == 0: zero gradient.
    z = torch.tensor([0.0, 2.0], requires_grad=True)
    (z**0).sum().backward()
    assert z.grad.tolist() == [0.0, 0.0]
    # cumprod through zeros: exact gradient without dividing by the input.
    c = torch.tensor([[2.0, 0.0, 3.0, 0.0, 5.0]], dtype=torch.float64, requires_grad=True)
    c.cumprod(1).sum().backward()
    assert c.grad.tolist() == [[1.0, 8.0, 0.0, 0.0, 0.0]]
    assert torch.autograd.gradcheck(lambda t: t.cumprod(1), (c,))
    assert torch.autograd.gradgradcheck(lambda t: t.cumprod(1), (c,))
    # div with rounding_mode='trunc' is differentiable with a zero gradient.
    d = torch.tensor([3.5], requires_grad=True)
    torch.div(d, 2, rounding_mode="trunc").sum().backward()
    assert d.grad.tolist() == [0.0]


def test_max_min_sort_topk_gradcheck():
    x = torch.tensor([[0.3, -1.2, 2.5], [1.1, 0.7, -0.4]], dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda t: t.max(1).values, (x,))
    assert torch.autograd.gradcheck(lambda t: t.min(0).values, (x,))
    assert torch.autograd.gradcheck(lambda t: t.max(), (x,))
    assert torch.autograd.gradcheck(lambda t: t.sort(1).values, (x,))
    assert torch.autograd.gradcheck(lambda t: t.topk(2, 1).values, (x,))


def test_view_ops_gradcheck():
    x = torch.tensor(np.arange(24.0).reshape(2, 3, 4).tolist(), dtype=torch.float64, requires_grad=True)
    for f in [
        lambda t: t.permute(2, 0, 1),
        lambda t: t.transpose(0, 2).reshape(4, 6),
        lambda t: t.narrow(2, 1, 2),
        lambda t: t.select(1, 2),
        lambda t: t.unsqueeze(1).expand(2, 5, 3, 4),
        lambda t: t.diagonal(0, 1, 2),
        lambda t: t.flatten(1),
        lambda t: t.unflatten(2, (2, 2)),
        lambda t: t.split([1, 3], 2)[1],
        lambda t: t.chunk(2, 2)[0],
        lambda t: t.flip(0, 2),
        lambda t: t.t() if t.ndim == 2 else t.mT,
        lambda t: t.contiguous().view(6, 4),
    ]:
        assert torch.autograd.gradcheck(f, (x,))


def test_matmul_family_gradcheck():
    rng = np.random.default_rng(3)
    t = lambda *s: torch.tensor(rng.standard_normal(s).tolist(), dtype=torch.float64, requires_grad=True)  # noqa: E731
    assert torch.autograd.gradcheck(torch.matmul, (t(2, 3), t(3, 4)))
    assert torch.autograd.gradcheck(torch.matmul, (t(2, 1, 2, 3), t(3, 3, 2)))
    assert torch.autograd.gradcheck(torch.matmul, (t(3), t(3, 2)))
    assert torch.autograd.gradcheck(torch.matmul, (t(2, 3), t(3)))
    assert torch.autograd.gradcheck(torch.dot, (t(4), t(4)))
    assert torch.autograd.gradcheck(torch.outer, (t(2), t(3)))
    assert torch.autograd.gradcheck(torch.bmm, (t(2, 2, 3), t(2, 3, 2)))
    assert torch.autograd.gradcheck(lambda a, b: a.t() @ b, (t(3, 2), t(3, 2)))


GRADGRAD = ["add", "sub", "mul", "div", "pow", "exp", "log", "tanh", "sigmoid", "softmax", "log_softmax", "logaddexp", "hypot", "xlogy", "gelu", "silu", "logcumsumexp"]


@pytest.mark.parametrize("name", GRADGRAD)
def test_gradgradcheck(name):
    op = next(o for o in UNARY + BINARY if o.name == name)
    assert torch.autograd.gradgradcheck(op.fn, inputs(op, op.arity))


@pytest.mark.parametrize("name", ["sum", "mean", "var", "std", "logsumexp", "norm", "prod"])
def test_gradgradcheck_reductions(name):
    op = next(o for o in REDUCTIONS if o.name == name)
    (x,) = inputs(op, 1)
    assert torch.autograd.gradgradcheck(lambda t: op.fn(t, 1, False) * op.fn(t, None, False), (x,))


def test_gradgradcheck_matmul_gather_indexing():
    rng = np.random.default_rng(4)
    a = torch.tensor(rng.standard_normal((2, 3)).tolist(), dtype=torch.float64, requires_grad=True)
    b = torch.tensor(rng.standard_normal((3, 2)).tolist(), dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradgradcheck(lambda x, y: (x @ y) ** 2, (a, b))
    idx = torch.tensor([[0, 2], [1, 1]])
    assert torch.autograd.gradgradcheck(lambda x: x.gather(1, idx) ** 2, (a,))
    assert torch.autograd.gradgradcheck(lambda x: x[:, [0, 2]] * x[1, [1, 2]], (a,))
