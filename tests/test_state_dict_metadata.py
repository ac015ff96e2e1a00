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


WRAPPED = {
    "compiled": lambda t: t.compile(t.nn.Sequential(t.nn.Linear(2, 3), t.nn.BatchNorm1d(3)), backend="eager"),
    "data_parallel": lambda t: t.nn.DataParallel(t.nn.Sequential(t.nn.Linear(2, 3), t.nn.BatchNorm1d(3))),
    "plain": lambda t: t.nn.Sequential(t.nn.Linear(2, 3), t.nn.BatchNorm1d(3)),
}


@pytest.mark.parametrize("prefix", ["_orig_mod.", "module.", "1.", "absent."])
@pytest.mark.parametrize("wrapper", list(WRAPPED))
def test_consume_prefix_in_state_dict_matches_pytorch(wrapper, prefix):
    from ferrotorch.nn.modules.utils import consume_prefix_in_state_dict_if_present

    pt.manual_seed(0)
    theirs = WRAPPED[wrapper](pt).state_dict()
    ours = WRAPPED[wrapper](torch).state_dict()
    assert list(ours) == list(theirs) and list(ours._metadata) == list(theirs._metadata)
    assert consume_prefix_in_state_dict_if_present(ours, prefix) is None
    pt.nn.modules.utils.consume_prefix_in_state_dict_if_present(theirs, prefix)
    assert list(ours) == list(theirs)
    assert list(ours._metadata) == list(theirs._metadata)
    assert [v.get("version") for v in ours._metadata.values()] == [v.get("version") for v in theirs._metadata.values()]
    # A plain dict (no _metadata) works too.
    plain_ours = {"module.a": 1, "b": 2, "module.c.d": 3}
    plain_theirs = dict(plain_ours)
    consume_prefix_in_state_dict_if_present(plain_ours, "module.")
    pt.nn.modules.utils.consume_prefix_in_state_dict_if_present(plain_theirs, "module.")
    assert list(plain_ours.items()) == list(plain_theirs.items())


@pytest.mark.parametrize("name", ["_single", "_pair", "_triple", "_quadruple"])
@pytest.mark.parametrize("value", [3, (1, 2), [4, 5, 6], 2.5])
def test_ntuple_helpers_match_pytorch(name, value):
    assert getattr(torch.nn.modules.utils, name)(value) == getattr(pt.nn.modules.utils, name)(value)


def test_reverse_repeat_and_list_with_default_match_pytorch():
    ours, theirs = torch.nn.modules.utils, pt.nn.modules.utils
    assert ours is not torch.nn.utils and callable(torch.nn.utils.clip_grad_norm_)
    assert ours._reverse_repeat_tuple((1, 2, 3), 2) == theirs._reverse_repeat_tuple((1, 2, 3), 2)
    for out_size, defaults in ((5, [1, 2, 3]), ([None, 4], [1, 2, 3]), ([None, None], [7, 8, 9])):
        assert ours._list_with_default(out_size, defaults) == theirs._list_with_default(out_size, defaults)
    for lib in (ours, theirs):
        with pytest.raises(ValueError, match="Input dimension should be at least 3"):
            lib._list_with_default([None, None], [1, 2])
