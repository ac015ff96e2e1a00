"""Fuzz seed 131: unflatten checks its sizes before its dim, as PyTorch does."""

import pytest

import ferrotorch as torch
from torch_oracle import needs_torch, pt


@needs_torch
@pytest.mark.parametrize("dim,sizes", [(1, []), (0, []), (-1, []), (1, [1]), (0, [1])])
def test_unflatten_of_a_0d_tensor_raises_as_pytorch(dim, sizes) -> None:
    for lib in (torch, pt):
        with pytest.raises((RuntimeError, IndexError)) as e:
            lib.zeros((), dtype=lib.uint8).unflatten(dim, sizes)
        if lib is torch:
            ours = e
        else:
            theirs = e
    assert type(ours.value) is type(theirs.value)
    # PyTorch wraps some of these messages in "unflatten got an unexpected error:" and a trace.
    assert str(ours.value).split(": ", 1)[-1] in str(theirs.value)


@needs_torch
def test_unflatten_with_no_sizes_is_refused_before_the_dim() -> None:
    with pytest.raises(RuntimeError, match="sizes must be non-empty"):
        torch.zeros(2, 3).unflatten(5, [])
    with pytest.raises(RuntimeError, match="sizes must be non-empty"):
        pt.zeros(2, 3).unflatten(5, [])
