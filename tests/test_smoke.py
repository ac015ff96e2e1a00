"""End-to-end smoke tests of the core: arithmetic, autograd, views."""

import numpy as np
import pytest

import ferrotorch as torch
from conftest import to_np


def test_backward_of_square_sum():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (x * x).sum().backward()
    assert x.grad.tolist() == [2.0, 4.0, 6.0]


def test_matmul_matches_numpy():
    a = np.random.rand(4, 5).astype(np.float32)
    b = np.random.rand(5, 3).astype(np.float32)
    r = torch.tensor(a.tolist()) @ torch.tensor(b.tolist())
    np.testing.assert_allclose(to_np(r), a @ b, rtol=1e-5)


def test_matmul_shape_error_names_op_and_shapes():
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)"):
        torch.ones(2, 3) @ torch.ones(4, 5)


def test_transposed_view_shares_storage():
    a = torch.arange(6).reshape(2, 3)
    t = a.t()
    assert not t.is_contiguous()
    assert t.stride() == (1, 3)
    assert t.data_ptr() == a.data_ptr()
