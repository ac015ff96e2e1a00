"""Dropout variants in training: what is dropped (elements or whole channels), the scale of what is
kept, and alpha dropout's mean/variance preservation. The module table only compares shapes here."""

from __future__ import annotations

import numpy as np
import pytest

import ferrotorch as torch
import ferrotorch.nn.functional as F


def _np(t: torch.Tensor) -> np.ndarray:
    return t.detach().numpy()


@pytest.mark.parametrize(
    "fn, shape, channels",
    [
        (F.dropout1d, (8, 16, 5), 128),
        (F.dropout1d, (16, 5), 16),
        (F.dropout2d, (8, 16, 3, 3), 128),
        (F.dropout3d, (8, 16, 2, 2, 2), 128),
        (F.dropout3d, (16, 2, 2, 2), 16),
    ],
)
def test_channel_dropout_drops_whole_channels_and_rescales(fn, shape, channels) -> None:
    torch.manual_seed(0)
    y = _np(fn(torch.ones(*shape), p=0.25, training=True)).reshape(channels, -1)
    # Every channel is either all zero or all 1/(1-p), and both happen.
    assert np.all(y.min(1) == y.max(1))
    first = y[:, 0]
    assert np.all(np.isclose(first, 0.0) | np.isclose(first, 1 / 0.75))
    assert 0 < np.isclose(first, 0.0).sum() < channels


def test_dropout_functionals_are_identity_in_eval() -> None:
    x = torch.randn(2, 3, 4, 4)
    for fn in (F.dropout1d, F.dropout2d, F.alpha_dropout, F.feature_alpha_dropout):
        inp = x[:, :, 0] if fn is F.dropout1d else x
        assert np.array_equal(_np(fn(inp, 0.5, training=False)), _np(inp))
    assert np.array_equal(_np(F.dropout3d(x.unsqueeze(2), 0.5, False)), _np(x.unsqueeze(2)))


def test_alpha_dropout_keeps_mean_and_variance() -> None:
    torch.manual_seed(1)
    x = torch.randn(200000)
    y = _np(F.alpha_dropout(x, 0.3, training=True))
    assert abs(y.mean()) < 0.02 and abs(y.var() - 1) < 0.03
    # Dropped values all share one value: SELU's saturation after the affine correction.
    assert np.unique(y.round(6)).size < 200000 * 0.75


def test_feature_alpha_dropout_masks_channels() -> None:
    torch.manual_seed(2)
    x = torch.zeros(6, 20, 7)
    y = _np(F.feature_alpha_dropout(x, 0.5, training=True)).reshape(120, 7)
    assert np.all(y.min(1) == y.max(1))
    assert len(np.unique(y[:, 0].round(6))) == 2


def test_dropout_module_modes_and_errors() -> None:
    m = torch.nn.Dropout2d(0.5)
    x = torch.randn(2, 3, 4, 4)
    m.eval()
    assert np.array_equal(_np(m(x)), _np(x))
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        torch.nn.Dropout1d(1.5)
    with pytest.raises(RuntimeError, match="dropout1d: Expected 2D or 3D input, but received a 4D input"):
        F.dropout1d(x)
    with pytest.warns(UserWarning, match="dropout2d: Received a 2-D input"):
        F.dropout2d(torch.randn(3, 4), 0.5, training=False)


@pytest.mark.parametrize("name", ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d"])
@pytest.mark.parametrize("p", [0.0, 1.0])
def test_inplace_dropout_on_a_non_leaf_keeps_gradients(name: str, p: float) -> None:
    # In place on an intermediate result: the output is the input object and backward works.
    x = torch.randn(*((2, 3, 4) if name == "Dropout1d" else (2, 3, 4, 4)), requires_grad=True)
    h = x * 2
    y = getattr(torch.nn, name)(p, inplace=True)(h)
    assert y is h
    (y * y).sum().backward()
    expected = 8 * _np(x) if p == 0.0 else np.zeros(x.shape)
    assert np.allclose(_np(x.grad), expected, atol=1e-5)
