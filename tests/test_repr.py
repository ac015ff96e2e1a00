"""Tensor printing matches PyTorch (expected strings were produced by PyTorch itself)."""

import math  # noqa: F401

import pytest

import ferrotorch as torch

CASES = [
    ('tensor([1., 2.])', 'tensor([1., 2.])'),
    ('tensor([1., 2.5])', 'tensor([1.0000, 2.5000])'),
    ('tensor([1e-5, 1e5])', 'tensor([1.0000e-05, 1.0000e+05])'),
    ('tensor([[1, 2], [3, 4]])', 'tensor([[1, 2],\n        [3, 4]])'),
    ('tensor([True, False])', 'tensor([ True, False])'),
    ('tensor(3.)', 'tensor(3.)'),
    ('tensor(3.5)', 'tensor(3.5000)'),
    ('tensor([])', 'tensor([])'),
    ('tensor([-1.5, 2.25, 100.125])', 'tensor([ -1.5000,   2.2500, 100.1250])'),
    ("tensor([float('nan'), 1.0, float('inf')])", 'tensor([nan, 1., inf])'),
    ('tensor([-0.0, 1.0])', 'tensor([-0., 1.])'),
    ('tensor([1e9, 2e9])', 'tensor([1.0000e+09, 2.0000e+09])'),
    ('zeros(0, 3)', 'tensor([], size=(0, 3))'),
    ('ones(2, dtype=torch.float64)', 'tensor([1., 1.], dtype=torch.float64)'),
    ('arange(3, dtype=torch.int32)', 'tensor([0, 1, 2], dtype=torch.int32)'),
    ('ones(2, requires_grad=True)', 'tensor([1., 1.], requires_grad=True)'),
    ('arange(2000.)', 'tensor([0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 1.9970e+03, 1.9980e+03,\n        1.9990e+03])'),
    ('ones(2, 3, 2)', 'tensor([[[1., 1.],\n         [1., 1.],\n         [1., 1.]],\n\n        [[1., 1.],\n         [1., 1.],\n         [1., 1.]]])'),
    ('arange(30.)', 'tensor([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12., 13.,\n        14., 15., 16., 17., 18., 19., 20., 21., 22., 23., 24., 25., 26., 27.,\n        28., 29.])'),
    ('arange(2000).reshape(40, 50)', 'tensor([[   0,    1,    2,  ...,   47,   48,   49],\n        [  50,   51,   52,  ...,   97,   98,   99],\n        [ 100,  101,  102,  ...,  147,  148,  149],\n        ...,\n        [1850, 1851, 1852,  ..., 1897, 1898, 1899],\n        [1900, 1901, 1902,  ..., 1947, 1948, 1949],\n        [1950, 1951, 1952,  ..., 1997, 1998, 1999]])'),
    ('arange(24.).reshape(2, 3, 4) / 7', 'tensor([[[0.0000, 0.1429, 0.2857, 0.4286],\n         [0.5714, 0.7143, 0.8571, 1.0000],\n         [1.1429, 1.2857, 1.4286, 1.5714]],\n\n        [[1.7143, 1.8571, 2.0000, 2.1429],\n         [2.2857, 2.4286, 2.5714, 2.7143],\n         [2.8571, 3.0000, 3.1429, 3.2857]]])'),
    ('ones(3, dtype=torch.float16)', 'tensor([1., 1., 1.], dtype=torch.float16)'),
    ('linspace(0, 1, 30)', 'tensor([0.0000, 0.0345, 0.0690, 0.1034, 0.1379, 0.1724, 0.2069, 0.2414, 0.2759,\n        0.3103, 0.3448, 0.3793, 0.4138, 0.4483, 0.4828, 0.5172, 0.5517, 0.5862,\n        0.6207, 0.6552, 0.6897, 0.7241, 0.7586, 0.7931, 0.8276, 0.8621, 0.8966,\n        0.9310, 0.9655, 1.0000])'),
    ('arange(3000.).reshape(3, 1000)', 'tensor([[0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 9.9700e+02, 9.9800e+02,\n         9.9900e+02],\n        [1.0000e+03, 1.0010e+03, 1.0020e+03,  ..., 1.9970e+03, 1.9980e+03,\n         1.9990e+03],\n        [2.0000e+03, 2.0010e+03, 2.0020e+03,  ..., 2.9970e+03, 2.9980e+03,\n         2.9990e+03]])'),
]


@pytest.mark.parametrize("expr,expected", CASES, ids=[c[0] for c in CASES])
def test_repr_matches_pytorch(expr, expected):
    assert repr(eval("torch." + expr)) == expected


def test_grad_fn_suffix_and_printoptions():
    x = torch.ones(2, requires_grad=True)
    assert repr(x * 2) == "tensor([2., 2.], grad_fn=<MulBackward0>)"
    torch.set_printoptions(precision=2)
    try:
        assert repr(torch.tensor([1.2345])) == "tensor([1.23])"
    finally:
        torch.set_printoptions(profile="default")
    assert repr(torch.tensor([1.2345])) == "tensor([1.2345])"
