"""The rest of torch.utils.checkpoint's names beside PyTorch's: input helpers, device RNG
states, early stop and selective-checkpoint contexts (same values as PyTorch's)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ferrotorch as torch
from torch_oracle import needs_torch, pt

pytestmark = needs_torch


def test_all_names_exist():
    missing = [n for n in pt.utils.checkpoint.__all__ if not hasattr(torch.utils.checkpoint, n) and n != "GraphExecGroup"]
    assert missing == []


@pytest.mark.parametrize("lib", ["ours", "torch"])
def test_check_backward_validity_warns_without_grad(lib):
    m = torch if lib == "ours" else pt
    with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True"):
        m.utils.checkpoint.check_backward_validity([m.ones(2), 3])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m.utils.checkpoint.check_backward_validity([m.ones(2, requires_grad=True)])


def test_detach_variable_like_torch():
    for m in (torch, pt):
        x = m.ones(2, requires_grad=True)
        y = m.ones(2)
        a, b, c = m.utils.checkpoint.detach_variable((x * 2, y, 5))
        assert a.requires_grad and a.grad_fn is None and not b.requires_grad and c == 5
        with pytest.raises(RuntimeError, match="Only tuple of tensors is supported"):
            m.utils.checkpoint.detach_variable([x])


def test_device_states_of_cpu_tensors_are_empty_and_default_type():
    assert torch.utils.checkpoint.get_device_states(torch.ones(2), 3) == pt.utils.checkpoint.get_device_states(pt.ones(2), 3) == ([], [])
    torch.utils.checkpoint.set_device_states([], [])
    assert torch.utils.checkpoint.DefaultDeviceType.get_device_type() == pt.utils.checkpoint.DefaultDeviceType.get_device_type()
    torch.utils.checkpoint.DefaultDeviceType.set_device_type("cpu")
    assert torch.utils.checkpoint.DefaultDeviceType.get_device_type() == "cpu"
    torch.utils.checkpoint.DefaultDeviceType.set_device_type()
    assert torch.utils.checkpoint.DefaultDeviceType.get_device_type() == "cuda"
    torch.utils.checkpoint.DefaultDeviceType._default_device_type = None


def test_checkpoint_policy_members_match():
    assert [(p.name, p.value) for p in torch.utils.checkpoint.CheckpointPolicy] == [(p.name, p.value) for p in pt.utils.checkpoint.CheckpointPolicy]


def run_selective(lib, early_stop):
    def policy(ctx, op, *args, **kwargs):
        return lib.utils.checkpoint.CheckpointPolicy.PREFER_RECOMPUTE

    w = lib.tensor(np.linspace(-1, 1, 12).reshape(3, 4), requires_grad=True)
    x = lib.tensor(np.linspace(0, 2, 8).reshape(2, 4), requires_grad=True)

    def block(x):
        return lib.tanh(x @ w.T).sin().sum(-1)

    ctx_fn = lambda: lib.utils.checkpoint.create_selective_checkpoint_contexts(policy)  # noqa: E731
    with lib.utils.checkpoint.set_checkpoint_early_stop(early_stop):
        out = lib.utils.checkpoint.checkpoint(block, x, use_reentrant=False, context_fn=ctx_fn)
        out.sum().backward()
    return out.detach().numpy(), w.grad.numpy(), x.grad.numpy()


@pytest.mark.parametrize("early_stop", [True, False])
def test_selective_checkpoint_values_and_gradients_match(early_stop):
    for a, b in zip(run_selective(torch, early_stop), run_selective(pt, early_stop)):
        np.testing.assert_allclose(a, b, atol=1e-12)


def test_selective_contexts_accept_a_list_and_refuse_other_things():
    fwd, rec = torch.utils.checkpoint.create_selective_checkpoint_contexts([])
    with fwd, rec:
        pass
    with pytest.raises(TypeError):
        torch.utils.checkpoint.create_selective_checkpoint_contexts(3)
    ctx = torch.utils.checkpoint.SelectiveCheckpointContext(is_recompute=True)
    assert ctx.is_recompute is True
