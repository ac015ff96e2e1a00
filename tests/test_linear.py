"""F.linear runs as one fused node: values and gradients against NumPy and gradcheck, on
every layout the composition x @ W.T + b accepts."""

import numpy as np
import pytest

import ferrotorch as torch
import ferrotorch.nn.functional as F


def reference(x, w, b):
    out = x @ w.T
    return out + b if b is not None else out


def layouts(shape, dtype):
    """The same values as contiguous, transposed-back and sliced tensors."""
    a = np.random.default_rng(sum(shape)).standard_normal(shape)
    yield a, torch.tensor(a, dtype=dtype)
    if len(shape) >= 2:
        t = torch.tensor(np.ascontiguousarray(np.swapaxes(a, -1, -2)), dtype=dtype).transpose(-1, -2)
        assert not t.is_contiguous() or 0 in shape or 1 in shape[-2:]
        yield a, t
    wide = np.concatenate([a, a], axis=-1)
    yield a, torch.tensor(wide, dtype=dtype)[..., : shape[-1]]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("x_shape", [(5,), (4, 5), (2, 3, 5), (2, 1, 3, 5), (0, 5), (3, 0)])
@pytest.mark.parametrize("with_bias", [True, False])
def test_values_match_numpy_on_every_layout(dtype, x_shape, with_bias):
    k = x_shape[-1]
    tol = 1e-5 if dtype == torch.float32 else 1e-12
    b_np = np.arange(6.0) - 2.5 if with_bias else None
    for xn, x in layouts(x_shape, dtype):
        for wn, w in layouts((6, k), dtype):
            b = torch.tensor(b_np, dtype=dtype) if with_bias else None
            out = F.linear(x, w, b)
            assert out.shape == x_shape[:-1] + (6,)
            assert out.dtype == dtype
            np.testing.assert_allclose(out.numpy(), reference(xn, wn, b_np), rtol=tol, atol=tol)


@pytest.mark.parametrize("x_shape", [(5,), (4, 5), (2, 3, 5)])
@pytest.mark.parametrize("with_bias", [True, False])
def test_gradcheck(x_shape, with_bias):
    x = torch.randn(*x_shape, dtype=torch.float64, requires_grad=True)
    w = torch.randn(3, 5, dtype=torch.float64, requires_grad=True)
    args = (x, w, torch.randn(3, dtype=torch.float64, requires_grad=True)) if with_bias else (x, w)
    assert torch.autograd.gradcheck(F.linear, args)
    assert torch.autograd.gradgradcheck(F.linear, args)


def test_gradcheck_on_transposed_and_sliced_operands():
    x = torch.randn(5, 4, dtype=torch.float64).t().requires_grad_(True)
    w = torch.randn(3, 10, dtype=torch.float64)[:, ::2].detach().requires_grad_(True)
    b = torch.randn(6, dtype=torch.float64)[::2].detach().requires_grad_(True)
    assert torch.autograd.gradcheck(F.linear, (x, w, b))


def test_gradients_match_numpy_and_land_in_the_weight_layout():
    xn = np.random.default_rng(0).standard_normal((2, 3, 4))
    wn = np.random.default_rng(1).standard_normal((5, 4))
    x = torch.tensor(xn, requires_grad=True)
    w = torch.tensor(wn, requires_grad=True)
    b = torch.zeros(5, dtype=torch.float64, requires_grad=True)
    F.linear(x, w, b).pow(2).sum().backward()
    g = 2 * (xn @ wn.T)
    np.testing.assert_allclose(x.grad.numpy(), g @ wn, rtol=1e-12)
    np.testing.assert_allclose(w.grad.numpy(), g.reshape(-1, 5).T @ xn.reshape(-1, 4), rtol=1e-12)
    np.testing.assert_allclose(b.grad.numpy(), g.reshape(-1, 5).sum(0), rtol=1e-12)
    assert w.grad.is_contiguous() and w.grad.shape == (5, 4)


def test_only_the_inputs_that_require_grad_get_one():
    x = torch.randn(4, 3)
    w = torch.randn(2, 3, requires_grad=True)
    F.linear(x, w).sum().backward()
    assert x.grad is None and w.grad.shape == (2, 3)
    out = F.linear(x, torch.randn(2, 3))
    assert not out.requires_grad and out.grad_fn is None


def test_grad_fn_names_follow_pytorch():
    w = torch.randn(2, 3, requires_grad=True)
    assert F.linear(torch.randn(4, 3), w, torch.zeros(2)).grad_fn.name() == "AddmmBackward0"
    assert F.linear(torch.randn(4, 3), w).grad_fn.name() == "MmBackward0"


def test_other_dtypes_and_shapes_take_the_composition():
    x = torch.tensor([[1, 2], [3, 4]])
    w = torch.tensor([[1, 0], [0, 1], [1, 1]])
    assert F.linear(x, w).tolist() == [[1, 2, 3], [3, 4, 7]]
    xb = torch.randn(3, 4).to(torch.bfloat16)
    wb = torch.randn(2, 4).to(torch.bfloat16)
    assert F.linear(xb, wb).dtype == torch.bfloat16
    # A bias that broadcasts without being (out_features,) still broadcasts.
    out = F.linear(torch.ones(2, 3), torch.ones(4, 3), torch.tensor([1.0]))
    assert out.tolist() == [[4.0] * 4] * 2
    # A 1-D weight gives one output per row, as in PyTorch.
    assert F.linear(torch.ones(2, 3), torch.ones(3)).tolist() == [3.0, 3.0]


def test_bad_shapes_name_the_op_and_shapes():
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(4x3 and 5x2\)"):
        F.linear(torch.randn(4, 3), torch.randn(2, 5))
    with pytest.raises(RuntimeError):
        F.linear(torch.randn(4, 3), torch.randn(2, 3), torch.randn(3))
    with pytest.raises(RuntimeError):
        F.linear(torch.randn(4, 3), torch.randn(2, 3, dtype=torch.float64))


def test_linear_module_trains_the_same_in_float64():
    torch.manual_seed(0)
    layer = torch.nn.Linear(4, 3).double()
    x = torch.randn(8, 4, dtype=torch.float64)
    ref_w, ref_b = layer.weight.detach().numpy().copy(), layer.bias.detach().numpy().copy()
    layer(x).sum().backward()
    np.testing.assert_allclose(layer.weight.grad.numpy(), np.ones((8, 3)).T @ x.numpy(), rtol=1e-12)
    np.testing.assert_allclose(layer.bias.grad.numpy(), np.full(3, 8.0))
    np.testing.assert_allclose(layer(x).detach().numpy(), x.numpy() @ ref_w.T + ref_b, rtol=1e-12)
