"""Activation backwards take one fused pass when no graph is built; they must equal the
composed formulas used under create_graph, and PyTorch's closed forms."""

import numpy as np
import pytest

import ferrotorch as torch
import ferrotorch.nn.functional as F

ACTIVATIONS = {
    "relu": lambda x: (x > 0).astype(x.dtype),
    "tanh": lambda x: 1 - np.tanh(x) ** 2,
    "sigmoid": lambda x: (1 / (1 + np.exp(-x))) * (1 - 1 / (1 + np.exp(-x))),
    "silu": lambda x: (1 / (1 + np.exp(-x))) * (1 + x * (1 - 1 / (1 + np.exp(-x)))),
}


@pytest.mark.parametrize("name", sorted(ACTIVATIONS) + ["gelu", "gelu_tanh"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16])
def test_fused_backward_equals_the_composed_one(name, dtype):
    fn = (lambda t: F.gelu(t, approximate="tanh")) if name == "gelu_tanh" else getattr(F, name)
    x = torch.linspace(-6, 6, 2001, dtype=torch.float64).to(dtype).requires_grad_(True)
    # A strided upstream gradient, as the engine may hand over.
    g = torch.linspace(-1, 1, 4002, dtype=torch.float64).to(dtype)[::2]
    fused, = torch.autograd.grad(fn(x), x, g)
    composed, = torch.autograd.grad(fn(x), x, g, create_graph=True)
    tol = {torch.float32: 1e-6, torch.float64: 1e-13, torch.bfloat16: 1e-2}[dtype]
    np.testing.assert_allclose(fused.double().numpy(), composed.detach().double().numpy(), rtol=tol, atol=tol)
    assert fused.dtype == dtype


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_fused_backward_matches_the_closed_form(name):
    xn = np.linspace(-5, 5, 1001)
    x = torch.tensor(xn, requires_grad=True)
    getattr(F, name)(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), ACTIVATIONS[name](xn), rtol=1e-12, atol=1e-14)


def test_relu_gradient_at_zero_and_nan_follows_pytorch():
    x = torch.tensor([0.0, float("nan"), -1.0, 2.0], requires_grad=True)
    F.relu(x).sum().backward()
    assert x.grad.tolist()[0] == 0.0 and x.grad.tolist()[2:] == [0.0, 1.0]
    assert x.grad.tolist()[1] == 1.0  # threshold_backward passes the gradient where x is NaN


def test_relu_gradient_at_nan_is_the_same_with_and_without_create_graph():
    # threshold_backward: blocked only where x <= 0, so a NaN input passes the gradient.
    for create_graph in (False, True):
        x = torch.tensor([float("nan"), -1.0, 0.0, 2.0], requires_grad=True)
        (g,) = torch.autograd.grad(torch.relu(x).sum(), x, create_graph=create_graph)
        assert g.tolist() == [1.0, 0.0, 0.0, 1.0], create_graph


def test_relu_double_backward_through_the_composed_form():
    x = torch.randn(5, 4, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradgradcheck(lambda t: torch.relu(t) * t, (x,))
