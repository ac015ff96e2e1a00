"""float32 matmul through our AVX-512 and AVX2 tiles agrees with the gemm-crate path (taken
when the SIMD level is lowered to baseline) and with a float64 NumPy reference, on every
operand layout matmul and conv2d hand it: contiguous, transposed, sliced, batched,
broadcast, vectors."""

import numpy as np
import pytest

import ferrotorch as torch
import ferrotorch.nn.functional as F


@pytest.fixture
def levels():
    """The levels to compare: each of our tiles the CPU has, and the gemm-crate fallback."""
    best = torch._core._set_simd_level("avx512")
    if best == "baseline":
        pytest.skip("the CPU has neither AVX-512 nor AVX2")
    yield (["avx512"] if best == "avx512" else []) + ["avx2", "baseline"]
    torch._core._set_simd_level("avx512")
    torch.set_num_threads(2)


def randn(*shape, seed=0):
    return torch.from_numpy(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


def operand_pairs():
    """(name, a, b): each a view of the kind matmul meets."""
    yield "contiguous", randn(37, 53), randn(53, 29, seed=1)
    yield "a transposed", randn(53, 37).t(), randn(53, 29, seed=1)
    yield "b transposed", randn(37, 53), randn(29, 53, seed=1).t()
    yield "both transposed", randn(53, 37).t(), randn(29, 53, seed=1).t()
    yield "sliced", randn(40, 120)[3:38, 5:110:2], randn(70, 90, seed=1)[:53, 7:80]
    yield "stepped rows", randn(80, 60)[::2, ::3], randn(20, 33, seed=1)
    yield "batched", randn(5, 17, 33), randn(5, 33, 19, seed=1)
    yield "batched transposed", randn(5, 33, 17).transpose(1, 2), randn(5, 19, 33, seed=1).transpose(1, 2)
    yield "broadcast batch", randn(4, 1, 9, 21), randn(3, 21, 14, seed=1)
    yield "expanded", randn(1, 25, 31).expand(6, 25, 31), randn(6, 31, 18, seed=1)
    yield "matrix-vector", randn(45, 70), randn(70, seed=1)
    yield "vector-matrix", randn(70), randn(70, 45, seed=1)
    yield "dot", randn(300), randn(300, seed=1)
    yield "one row", randn(1, 257), randn(257, 33, seed=1)
    yield "one column", randn(33, 257), randn(257, 1, seed=1)
    yield "empty inner", randn(7, 0), randn(0, 9, seed=1)
    yield "linear sized", randn(128, 784), randn(512, 784, seed=1).t()
    yield "large square", randn(300, 300), randn(300, 300, seed=1)
    yield "attention", randn(2, 4, 64, 32), randn(2, 4, 32, 64, seed=1)


def reference(a, b):
    return np.matmul(a.double().numpy(), b.double().numpy())


def tolerance(a, b):
    """Float32 rounding grows with the inner dimension and the size of the terms."""
    k = a.shape[-1]
    scale = np.matmul(np.abs(a.double().numpy()), np.abs(b.double().numpy()))
    return 4 * (k + 2) * np.finfo(np.float32).eps * scale + 1e-30


@pytest.mark.parametrize("threads", [1, 2])
def test_every_layout_agrees_between_paths_and_with_float64(levels, threads):
    torch.set_num_threads(threads)
    for name, a, b in operand_pairs():
        want, tol = reference(a, b), tolerance(a, b)
        got = {}
        for level in levels:
            torch._core._set_simd_level(level)
            out = a @ b
            assert out.dtype == torch.float32 and tuple(out.shape) == want.shape, name
            got[level] = out.double().numpy()
            err = np.abs(got[level] - want)
            assert np.all(err <= tol), f"{name} at {level}: max error {err.max()}"
        for level in levels[:-1]:
            np.testing.assert_array_less(np.abs(got[level] - got["baseline"]), 2 * tol + 1e-30)


def test_matmul_gradients_agree_between_paths(levels):
    a0, b0 = randn(6, 40, 50), randn(50, 30, seed=1)
    grads = {}
    for level in levels:
        torch._core._set_simd_level(level)
        a, b = a0.clone().requires_grad_(), b0.clone().requires_grad_()
        (a @ b).square().sum().backward()
        grads[level] = (a.grad.numpy(), b.grad.numpy())
    for level in levels[:-1]:
        for x, y in zip(grads[level], grads["baseline"]):
            np.testing.assert_allclose(x, y, rtol=1e-4, atol=1e-4)


def test_conv2d_agrees_between_paths(levels):
    x0, w0, bias0 = randn(3, 6, 15, 17), randn(8, 3, 3, 3, seed=1), randn(8, seed=2)
    results = {}
    for level in levels:
        torch._core._set_simd_level(level)
        x, w, bias = (t.clone().requires_grad_() for t in (x0, w0, bias0))
        out = F.conv2d(x, w, bias, stride=1, padding=1, groups=2)
        out.square().sum().backward()
        results[level] = [t.detach().numpy() for t in (out, x.grad, w.grad, bias.grad)]
    for level in levels[:-1]:
        for x, y in zip(results[level], results["baseline"]):
            np.testing.assert_allclose(x, y, rtol=1e-4, atol=1e-4)


def test_bfloat16_matmul_goes_through_float32(levels):
    a, b = randn(20, 40).to(torch.bfloat16), randn(40, 24, seed=1).to(torch.bfloat16)
    outs = {}
    for level in levels:
        torch._core._set_simd_level(level)
        outs[level] = (a @ b).float().numpy()
    for level in levels[:-1]:
        np.testing.assert_array_equal(outs[level], outs["baseline"])


def test_special_values_propagate(levels):
    a = randn(20, 30)
    b = randn(30, 40, seed=1)
    a[3, 7] = float("nan")
    b[5, 11] = float("inf")
    for level in levels:
        torch._core._set_simd_level(level)
        out = (a @ b).numpy()
        assert np.isnan(out[3]).all()
        col = out[:, 11]
        assert np.isinf(col[np.arange(20) != 3]).all()
        rest = np.delete(np.delete(out, 3, axis=0), 11, axis=1)
        assert np.isfinite(rest).all()


def test_gradients_of_transposed_operands_match_and_stay_contiguous(levels):
    x0, w0, g = randn(8, 30), randn(20, 30, seed=1), randn(8, 20, seed=2)
    for level in levels:
        torch._core._set_simd_level(level)
        # A Linear's product: the weight enters transposed; its gradient needs no copy.
        x, w = x0.clone().requires_grad_(), w0.clone().requires_grad_()
        (x @ w.t()).backward(g)
        np.testing.assert_allclose(w.grad.numpy(), g.numpy().T @ x0.numpy(), rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(x.grad.numpy(), g.numpy() @ w0.numpy(), rtol=1e-5, atol=1e-5)
        assert w.grad.is_contiguous()
        # The left operand transposed: (x^T)^T @ w^T.
        xt = x0.t().contiguous().requires_grad_()
        (xt.t() @ w0.t()).backward(g)
        np.testing.assert_allclose(xt.grad.numpy(), (g.numpy() @ w0.numpy()).T, rtol=1e-5, atol=1e-5)
        assert xt.grad.is_contiguous()
