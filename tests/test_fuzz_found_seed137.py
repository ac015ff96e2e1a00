"""Fuzz seed 137: a masked write into an expanded tensor sets a memory location wherever one of
its elements is selected. A NaN element whose alias is not selected stayed NaN and was counted
as changed (NaN != NaN), so it was written back over the new value; now, as PyTorch, it is not."""

import warnings

import numpy as np
import pytest

import ferrotorch as torch
from torch_oracle import needs_torch, pt

NAN = float("nan")


def _expanded(lib, dtype: str):
    base = lib.tensor([1.0, NAN, 2.0, NAN, -0.0], dtype=getattr(lib, dtype))
    return base.reshape(1, 1, 5).expand(3, 2, 5)


def _mask(lib):
    rng = np.random.default_rng(137)
    m = rng.random((3, 2, 5)) < 0.3
    m[0, 0, 3] = True  # selected in one alias only, NaN at that location
    m[1:, :, 3] = False
    return lib.tensor(m)


@needs_torch
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("how", ["setitem", "masked_fill_", "index_put_"])
def test_masked_write_into_expanded_tensor_keeps_every_selected_location(dtype: str, how: str) -> None:
    got = []
    for lib in (torch, pt):
        x, m = _expanded(lib, dtype), _mask(lib)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # PyTorch deprecates writes into expanded tensors
            if how == "setitem":
                x[m] = 0.5
            elif how == "masked_fill_":
                x.masked_fill_(m, 0.5)
            else:
                x.index_put_((m,), lib.tensor(0.5, dtype=x.dtype))
        got.append(np.asarray(x.numpy()))
    np.testing.assert_array_equal(got[0], got[1])
    assert not np.isnan(got[0][:, :, 3]).any()
