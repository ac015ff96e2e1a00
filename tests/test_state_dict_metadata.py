"""state_dict()._metadata versions as PyTorch's (BatchNorm/InstanceNorm are version 2), and the
lazy placeholders reachable from nn.parameter as in PyTorch."""

import pytest

import ferrotorch as torch
from torch_oracle import needs_torch, pt

pytestmark = needs_torch

BUILDERS = {
    "BatchNorm2d": lambda t: t.nn.BatchNorm2d(3),
    "InstanceNorm1d": lambda t: t.nn.InstanceNorm1d(3, affine=True, track_running_stats=True),
    "LayerNorm": lambda t: t.nn.LayerNorm(3),
    "Sequential": lambda t: t.nn.Sequential(t.nn.Linear(2, 3), t.nn.BatchNorm1d(3)),
}


@pytest.mark.parametrize("name", list(BUILDERS))
def test_metadata_versions_match_pytorch(name):
    ours = BUILDERS[name](torch).state_dict()._metadata
    theirs = BUILDERS[name](pt).state_dict()._metadata
    assert {k: v.get("version") for k, v in ours.items()} == {k: v.get("version") for k, v in theirs.items()}


def test_uninitialized_placeholders_in_nn_parameter():
    assert isinstance(torch.nn.LazyLinear(4).weight, torch.nn.parameter.UninitializedParameter)
    assert torch.nn.parameter.UninitializedBuffer is torch.nn.UninitializedBuffer
    with pytest.raises(AttributeError):
        torch.nn.parameter.NoSuchThing  # noqa: B018
