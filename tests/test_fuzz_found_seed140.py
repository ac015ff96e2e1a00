"""Fuzz seed 140: bfloat16 values near the float range modulo a tiny divisor. PyTorch's
vectorized remainder gives NaN there (its quotient overflows), its one-element path the value;
ours gives the value at every length. Excluded from the fuzz comparison as kernel-dependent
(tests/fuzz/fuzz_known.py); here ours is held to PyTorch's one-element results."""

import numpy as np
import pytest

import ferrotorch as torch
from torch_oracle import needs_torch, pt

VALUES = [2.1401e38, 1.2794e37, -2.5787e38, 2.5920e38, -4.9846e37, 3.0e38, 0.5, -70.0]


@needs_torch
@pytest.mark.parametrize("dtype", ["bfloat16", "float32"])
@pytest.mark.parametrize("repeat", [1, 16])
def test_remainder_of_huge_values_by_a_tiny_divisor(dtype: str, repeat: int) -> None:
    x = torch.tensor(VALUES * repeat, dtype=getattr(torch, dtype))
    got = (x % 0.001).float().numpy()
    # PyTorch element by element (its scalar path, which does not overflow).
    want = [(pt.tensor([v], dtype=getattr(pt, dtype)) % 0.001).float().item() for v in x.float().tolist()]
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got, np.array(want, dtype=np.float32), rtol=1e-2, atol=1e-6)
