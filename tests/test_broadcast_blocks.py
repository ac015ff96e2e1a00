"""Binary ops on row-pattern broadcasts (bias over rows, one value per row, outer sums) read
the small operand in place; they must match NumPy for every dtype, op and pattern, and
keep their gradients."""

import numpy as np
import pytest

import ferrotorch as torch

SHAPES = [
    ((64, 1024), (1024,)),  # bias over rows
    ((1024,), (64, 1024)),
    ((64, 1024), (64, 1)),  # one value per row
    ((64, 1), (64, 1024)),
    ((1, 1024), (64, 1)),  # outer sum
    ((16, 64, 128), (64, 128)),
    ((3, 4, 5), (3, 1, 1)),
    ((2, 3), (4, 2, 1)),  # blocks disagree: the copying path
    ((4, 1, 5), (4, 3, 5)),  # middle broadcast: the copying path
    ((0, 5), (5,)),
    ((300, 300), (300,)),  # large enough to split across threads
]
OPS = [(lambda x, y: x + y, np.add), (lambda x, y: x - y, np.subtract), (lambda x, y: x * y, np.multiply), (lambda x, y: x / y, np.divide), (lambda x, y: x < y, np.less), (torch.maximum, np.maximum)]


@pytest.mark.parametrize("sa,sb", SHAPES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64])
def test_row_broadcasts_match_numpy(sa, sb, dtype):
    g = torch.Generator().manual_seed(0)
    a = (torch.randn(*sa, generator=g) * 10).to(dtype)
    b = (torch.randn(*sb, generator=g) * 10).to(dtype)
    if dtype == torch.int64:
        b = torch.where(b == 0, torch.ones_like(b), b)
    for op, ref in OPS:
        got, want = op(a, b).numpy(), ref(a.numpy(), b.numpy())
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-12 if dtype == torch.float64 else 1e-6)


def test_row_broadcast_gradients():
    a = torch.randn(6, 5, dtype=torch.float64, requires_grad=True)
    b = torch.randn(5, dtype=torch.float64, requires_grad=True)
    c = torch.randn(6, 1, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda a, b, c: (a + b) * c - b / (c * c + 1), (a, b, c))
