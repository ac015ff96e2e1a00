"""Inference tensors as PyTorch defines them: a tensor allocated under inference_mode() (or a
view of one) reports is_inference(), and cannot be made to require grad outside it."""

import numpy as np
import pytest

import ferrotorch as torch
from torch_oracle import needs_torch, pt

pytestmark = needs_torch


def _made_inside(lib, make):
    x = lib.ones(2, 3)
    with lib.inference_mode():
        return make(lib, x)


CASES = {
    "factory": lambda lib: _made_inside(lib, lambda lib, x: lib.zeros(3)),
    "arithmetic": lambda lib: _made_inside(lib, lambda lib, x: x * 2 + 1),
    "matmul": lambda lib: _made_inside(lib, lambda lib, x: x @ x.t()),
    "reduction": lambda lib: _made_inside(lib, lambda lib, x: x.sum(0)),
    "from_numpy": lambda lib: _made_inside(lib, lambda lib, x: lib.from_numpy(np.ones(2))),
    "clone": lambda lib: _made_inside(lib, lambda lib, x: x.clone()),
    "view_of_normal": lambda lib: _made_inside(lib, lambda lib, x: x.view(6)),
    "transpose_of_normal": lambda lib: _made_inside(lib, lambda lib, x: x.t()),
    "detach_of_normal": lambda lib: _made_inside(lib, lambda lib, x: x.detach()),
    "in_place_on_normal": lambda lib: _made_inside(lib, lambda lib, x: x.add_(1)),
    "view_of_inference_outside": lambda lib: _made_inside(lib, lambda lib, x: x * 1)[0],
    "clone_of_inference_outside": lambda lib: _made_inside(lib, lambda lib, x: x * 1).clone(),
    "made_outside": lambda lib: lib.ones(2),
    "inference_mode_false": lambda lib: _made_inside(lib, lambda lib, x: _disabled(lib)),
    "decorated": lambda lib: lib.inference_mode()(lambda: lib.ones(2) + 1)(),
    "no_grad_is_not_inference": lambda lib: _no_grad(lib),
}


def _disabled(lib):
    with lib.inference_mode(False):
        return lib.ones(1)


def _no_grad(lib):
    with lib.no_grad():
        return lib.ones(1) * 2


@pytest.mark.parametrize("name", list(CASES))
def test_is_inference_matches_pytorch(name):
    ours, theirs = CASES[name](torch), CASES[name](pt)
    assert ours.is_inference() == theirs.is_inference()
    assert torch.is_inference(ours) == pt.is_inference(theirs)
    assert not ours.requires_grad and not theirs.requires_grad


def test_requires_grad_on_inference_tensor_outside_inference_mode():
    for lib in (torch, pt):
        with lib.inference_mode():
            t = lib.ones(2)
            t.requires_grad_(True)  # allowed inside
            assert t.requires_grad
        u = _made_inside(lib, lambda lib, x: x * 2)
        with pytest.raises(RuntimeError, match=r"^Setting requires_grad=True on inference tensor outside InferenceMode is not allowed\.$"):
            u.requires_grad_(True)
        with pytest.raises(RuntimeError, match="Setting requires_grad=True on inference tensor"):
            u.requires_grad = True
        u.requires_grad_(False)
        assert lib.ones(1).requires_grad_(True).requires_grad


@pytest.mark.parametrize("bad", [3, [1.0], np.ones(2), None])
def test_is_inference_argument_errors(bad):
    with pytest.raises(TypeError) as ours:
        torch.is_inference(bad)
    with pytest.raises(TypeError) as theirs:
        pt.is_inference(bad)
    assert str(ours.value) == str(theirs.value)
