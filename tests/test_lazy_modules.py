"""Lazy modules (LazyLinear, LazyBatchNorm, LazyInstanceNorm) before and after their first forward,
and loading a checkpoint into them, against PyTorch."""

from __future__ import annotations

import pytest

import ferrotorch as torch
from torch_oracle import assert_close, needs_torch, pt, to_ft

pytestmark = needs_torch


@pytest.mark.parametrize("bias", [True, False])
def test_lazy_linear_repr_and_materialization(bias: bool) -> None:
    for lib in (torch, pt):
        m = lib.nn.LazyLinear(3, bias=bias)
        assert repr(m) == f"LazyLinear(in_features=0, out_features=3, bias={bias})"
        assert m.has_uninitialized_params()
        y = m(lib.randn(2, 7))
        assert type(m).__name__ == "Linear" and repr(m) == f"Linear(in_features=7, out_features=3, bias={bias})"
        assert tuple(y.shape) == (2, 3) and tuple(m.weight.shape) == (3, 7)


def test_lazy_linear_loads_checkpoint_shapes() -> None:
    src = pt.nn.Linear(4, 3)
    ours, theirs = torch.nn.LazyLinear(3), pt.nn.LazyLinear(3)
    ours.load_state_dict({k: to_ft(v) for k, v in src.state_dict().items()})
    theirs.load_state_dict(src.state_dict())
    assert repr(ours) == repr(theirs)
    x = pt.randn(2, 4)
    assert_close(ours(to_ft(x)), theirs(x))
    assert repr(ours) == repr(theirs) == "Linear(in_features=4, out_features=3, bias=True)"


def test_lazy_linear_input_must_match_loaded_shapes() -> None:
    for lib in (torch, pt):
        m = lib.nn.LazyLinear(3, bias=False)
        m.load_state_dict({"weight": lib.ones(3, 4)})
        with pytest.raises(AssertionError, match="The in_features inferred from input: 5 is not equal to in_features from self.weight: 4"):
            m(lib.ones(2, 5))


def test_lazy_linear_inside_sequential_state_dict() -> None:
    ours = torch.nn.Sequential(torch.nn.LazyLinear(4), torch.nn.ReLU(), torch.nn.LazyLinear(2))
    theirs = pt.nn.Sequential(pt.nn.LazyLinear(4), pt.nn.ReLU(), pt.nn.LazyLinear(2))
    theirs(pt.randn(1, 6))
    ours.load_state_dict({k: to_ft(v) for k, v in theirs.state_dict().items()})
    x = pt.randn(3, 6)
    assert_close(ours(to_ft(x)), theirs(x))
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("name", ["LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d"])
def test_lazy_norm_repr_and_checkpoint(name: str) -> None:
    kw = {"momentum": 0.2, "bias": False}
    ours, theirs = getattr(torch.nn, name)(**kw), getattr(pt.nn, name)(**kw)
    assert repr(ours) == repr(theirs)
    dims = {"1": (2, 3, 4), "2": (2, 3, 2, 2), "3": (2, 3, 2, 2, 2)}[name[-2]]
    src = getattr(pt.nn, name.replace("Lazy", ""))(3, affine=True, track_running_stats=True, bias=False)
    src(pt.randn(*dims))
    ours.load_state_dict({k: to_ft(v) for k, v in src.state_dict().items()})
    theirs.load_state_dict(src.state_dict())
    x = pt.randn(*dims)
    if "Instance" in name:
        # PyTorch leaves num_features at 0 after loading, so an affine InstanceNorm rejects the input.
        for m, inp in ((ours, to_ft(x)), (theirs, x)):
            with pytest.raises(ValueError, match=r"expected input's size at dim=1 to match num_features \(0\), but got: 3."):
                m(inp)
        return
    assert_close(ours(to_ft(x)), theirs(x), 1e-5, 1e-6)
    assert repr(ours) == repr(theirs)
    for (n, a), (_, b) in zip(ours.named_buffers(), theirs.named_buffers()):
        assert_close(a, b, 1e-5, 1e-6, what=n)
