"""scaled_dot_product_attention's attn_mask must be bool, float32 or of the query's dtype, as
in PyTorch: a mask of another dtype is refused with PyTorch's message rather than silently cast."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import ferrotorch as torch
from torch_oracle import needs_torch, pt

pytestmark = needs_torch


def _call(lib: Any, query_dtype: str, mask_dtype: str) -> Any:
    rng = np.random.default_rng(0)
    q, k, v = (lib.tensor(rng.standard_normal((1, 2, 3, 4))).to(getattr(lib, query_dtype)) for _ in range(3))
    mask = lib.tensor(rng.standard_normal((3, 3)) > 0).to(getattr(lib, mask_dtype))
    return lib.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)


@pytest.mark.parametrize("query_dtype,mask_dtype", [("float32", "float64"), ("float32", "int64"), ("float64", "float16"), ("float32", "float16"), ("float32", "uint8"), ("float32", "int32")])
def test_mask_of_another_dtype_is_refused(query_dtype: str, mask_dtype: str) -> None:
    with pytest.raises(RuntimeError) as theirs:
        _call(pt, query_dtype, mask_dtype)
    with pytest.raises(RuntimeError) as ours:
        _call(torch, query_dtype, mask_dtype)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("query_dtype,mask_dtype", [("float32", "float32"), ("float64", "float64"), ("float64", "float32"), ("float32", "bool"), ("float64", "bool")])
def test_bool_or_matching_mask_is_accepted(query_dtype: str, mask_dtype: str) -> None:
    ours, theirs = _call(torch, query_dtype, mask_dtype), _call(pt, query_dtype, mask_dtype)
    assert str(ours.dtype) == str(theirs.dtype)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-6)
