"""torch.nn.utils.rnn against PyTorch: PackedSequence's conversions and the errors of the
packing functions on inputs a PyTorch user can pass (empty batches, bad options, mixed dtypes)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import ferrotorch as torch
from torch_oracle import needs_torch, pt

pytestmark = needs_torch


def _seqs(lib: Any) -> list:
    rng = np.random.default_rng(0)
    return [lib.tensor(rng.standard_normal((n, 2)).astype(np.float32)) for n in (3, 2, 4)]


@pytest.mark.parametrize("method", ["half", "double", "float", "long", "int", "short", "char", "byte"])
def test_packed_sequence_dtype_conversions(method: str) -> None:
    ours = getattr(torch.nn.utils.rnn.pack_sequence(_seqs(torch), enforce_sorted=False), method)()
    theirs = getattr(pt.nn.utils.rnn.pack_sequence(_seqs(pt), enforce_sorted=False), method)()
    assert type(ours).__name__ == "PackedSequence"
    assert str(ours.data.dtype) == str(theirs.data.dtype)
    np.testing.assert_array_equal(ours.data.float().numpy(), theirs.data.float().numpy())
    np.testing.assert_array_equal(ours.sorted_indices.numpy(), theirs.sorted_indices.numpy())
    assert ours.is_cuda is theirs.is_cuda is False


def test_packed_sequence_cpu_and_pin_memory_keep_the_packing() -> None:
    packed = torch.nn.utils.rnn.pack_sequence(_seqs(torch), enforce_sorted=False)
    assert packed.cpu() is packed
    assert not packed.is_pinned()
    assert hasattr(packed, "pin_memory") and hasattr(packed, "cuda")


def _same_error(call: Callable[[Any], Any]) -> None:
    with pytest.raises(Exception) as theirs:
        call(pt)
    with pytest.raises(type(theirs.value)) as ours:
        call(torch)
    assert str(ours.value) == str(theirs.value)


def test_pack_padded_sequence_empty_batch() -> None:
    _same_error(lambda lib: lib.nn.utils.rnn.pack_padded_sequence(lib.zeros(3, 0, 2), []))


def test_pad_sequence_bad_padding_side() -> None:
    _same_error(lambda lib: lib.nn.utils.rnn.pad_sequence(_seqs(lib), padding_side="middle"))


def test_pad_sequence_takes_the_first_sequence_dtype() -> None:
    def run(lib: Any) -> Any:
        a, b = _seqs(lib)[:2]
        return lib.nn.utils.rnn.pad_sequence([a, b.double()], batch_first=True)

    ours, theirs = run(torch), run(pt)
    assert str(ours.dtype) == str(theirs.dtype)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy())
