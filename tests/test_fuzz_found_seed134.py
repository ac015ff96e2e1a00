"""Fuzz seed 134: a value written through a mask with more dims than the tensor is refused for
the index (IndexError) before the value is checked against a half dtype's range, as PyTorch."""

import pytest

import ferrotorch as torch
from torch_oracle import needs_torch, pt


@needs_torch
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_too_many_mask_dims_before_the_value_range(dtype: str) -> None:
    for lib in (torch, pt):
        x = lib.zeros(1, dtype=getattr(lib, dtype))
        mask = lib.tensor([[True], [False], [True]])
        with pytest.raises(IndexError, match="too many indices for tensor of dimension 1"):
            x[mask] = 1e300
        # A mask that fits: now the value is out of the half range.
        with pytest.raises(RuntimeError, match="without overflow"):
            x[lib.tensor([True])] = 1e300
