"""gaussian_nll_loss with a Python number for ``var``: PyTorch documents "Tensor or float"; an
int is taken as that float (PyTorch itself stumbles on it with a TypeError from ``any``)."""

from __future__ import annotations

import numpy as np
import pytest

import ferrotorch as torch
from torch_oracle import needs_torch, pt


@needs_torch
@pytest.mark.parametrize("var", [2, 1, 0.5])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_number_var_matches_float_var(var: float, reduction: str) -> None:
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    ours = torch.nn.functional.gaussian_nll_loss(torch.tensor(x), torch.tensor(y), var, reduction=reduction)
    theirs = pt.nn.functional.gaussian_nll_loss(pt.tensor(x), pt.tensor(y), float(var), reduction=reduction)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)


def test_negative_number_var_is_refused() -> None:
    with pytest.raises(ValueError, match="var has negative entry"):
        torch.nn.functional.gaussian_nll_loss(torch.zeros(3), torch.zeros(3), -1)
