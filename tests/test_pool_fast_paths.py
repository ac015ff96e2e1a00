"""max_pool2d's branch-free 2x2 forward and its one-pass backward against NumPy."""

import numpy as np
import pytest

import ferrotorch as torch
from conftest import to_np
from ferrotorch import _nn_kernels as K


@pytest.mark.parametrize("k,s,p", [(2, 2, 0), (3, 2, 1), (3, 1, 0), (2, 1, 0)])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_max_pool2d_backward_adds_each_gradient_at_its_argmax(k, s, p, dtype):
    """Overlapping windows (stride < kernel) send several gradients to one input: they add."""
    rng = np.random.default_rng(k * 10 + s)
    x = rng.integers(0, 4, (3, 2, 9, 7)).astype(np.float64)  # ties: the first argmax wins
    tx = torch.tensor(x.tolist(), dtype=dtype, requires_grad=True)
    v, idx = K.max_pool2d(tx, k, s, p, return_indices=True)
    g = rng.standard_normal(tuple(v.shape))
    v.backward(torch.tensor(g.tolist(), dtype=dtype))
    want = np.zeros((3, 2, 9 * 7))
    flat_idx = to_np(idx).reshape(3, 2, -1)
    for a in range(3):
        for b in range(2):
            np.add.at(want[a, b], flat_idx[a, b], g[a, b].ravel())
    np.testing.assert_allclose(to_np(tx.grad), want.reshape(x.shape), rtol=1e-6, atol=1e-6)


def test_max_pool2d_2x2_matches_reference_on_random_floats():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 3, 10, 13))
    v, idx = K.max_pool2d(torch.tensor(x.tolist()), 2, 2, return_indices=True)
    win = x[:, :, :10, :12].reshape(4, 3, 5, 2, 6, 2).transpose(0, 1, 2, 4, 3, 5).reshape(4, 3, 5, 6, 4)
    np.testing.assert_allclose(to_np(v), win.max(-1).astype(np.float32), rtol=0, atol=0)
    arg = win.argmax(-1)
    rows = np.arange(5)[:, None] * 2 + arg // 2
    cols = np.arange(6)[None, :] * 2 + arg % 2
    np.testing.assert_array_equal(to_np(idx), rows * 13 + cols)


def test_max_pool2d_double_backward_still_differentiable():
    x = torch.randn(2, 2, 6, 6, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradgradcheck(lambda t: K.max_pool2d(t, 2, 2), (x,))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_max_pool2d_2x2_wide_rows_ties_and_nans(dtype):
    """Rows of 35 windows: two 16-window vector steps (float32 on AVX-512) and a scalar tail,
    with ties (the first wins) and NaNs in every window position (the first NaN wins)."""
    from test_conv_pool import np_max_pool_first_argmax

    rng = np.random.default_rng(7)
    x = rng.integers(0, 3, (2, 3, 6, 71)).astype(np.float64)
    for r, c in [(0, 0), (0, 3), (1, 4), (1, 7), (2, 40), (3, 41), (2, 43), (3, 42), (4, 69), (5, 68)]:
        x[1, 2, r, c] = np.nan
    x[0, 1, 2, 20] = x[0, 1, 3, 21] = np.nan
    v, idx = K.max_pool2d(torch.tensor(x.tolist(), dtype=dtype), 2, 2, return_indices=True)
    want_v, want_i = np_max_pool_first_argmax(x, 2, 2)
    np.testing.assert_array_equal(to_np(v).astype(np.float64), want_v)
    np.testing.assert_array_equal(to_np(idx), want_i)
