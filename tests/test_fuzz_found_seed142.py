"""Fuzz seed 142: ``addcmul(..., value=2**64)`` on bool tensors. PyTorch converts a Python int
Scalar to 64 bits while parsing the arguments, so an int outside int64 and uint64 is an
OverflowError before the dtype is looked at; ours checked the dtype first."""

import pytest

import ferrotorch as torch
from torch_oracle import needs_torch, pt


@needs_torch
@pytest.mark.parametrize("dtype", ["bool", "float32", "int64"])
@pytest.mark.parametrize("value", [2**64, -(2**63) - 1])
@pytest.mark.parametrize("op", ["addcmul", "addcdiv", "addcmul_", "addcdiv_"])
def test_a_value_beyond_64_bits_is_an_overflow_first(dtype: str, value: int, op: str) -> None:
    for lib in (torch, pt):
        x = lib.ones(2, dtype=getattr(lib, dtype))
        fn = getattr(x, op) if op.endswith("_") else getattr(lib, op)
        args = (x, x) if op.endswith("_") else (x, x, x)
        with pytest.raises(OverflowError):
            fn(*args, value=value)


@needs_torch
@pytest.mark.parametrize("value", [2**63, 2**64 - 1, -(2**63)])
def test_values_that_fit_64_bits_are_used(value: int) -> None:
    x, tx = torch.ones(2), pt.ones(2)
    assert torch.addcmul(x, x, x, value=value).tolist() == pt.addcmul(tx, tx, tx, value=value).tolist()
