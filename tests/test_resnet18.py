"""A ResNet-18 written as people write it (tests/programs/resnet18_cifar.py) builds with the
same structure as under PyTorch, computes the same losses from the same weights, and trains."""

import numpy as np
import pytest
from program_runner import as_ferrotorch, load_program

import ferrotorch as torch
from torch_oracle import needs_torch, pt, to_ft

pytestmark = needs_torch


@pytest.fixture(scope="module")
def programs():
    return load_program("resnet18_cifar", "torch"), load_program("resnet18_cifar", "ferrotorch")


def test_import_rewrite_changes_only_imports():
    src = "import torch\nimport torch.nn as nn\nfrom torch.utils.data import DataLoader\nx = torch.zeros(1)\n"
    assert as_ferrotorch(src) == "import ferrotorch as torch\nimport ferrotorch.nn as nn\nfrom ferrotorch.utils.data import DataLoader\nx = torch.zeros(1)\n"


def test_structure_matches_pytorch(programs):
    mod_pt, mod_ft = programs
    theirs = mod_pt.resnet18(zero_init_residual=True)
    ours = mod_ft.resnet18(zero_init_residual=True)
    shapes = lambda m: [(n, tuple(p.shape)) for n, p in m.named_parameters()]  # noqa: E731
    assert shapes(ours) == shapes(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert repr(ours) == repr(theirs)
    assert sum(p.numel() for p in ours.parameters()) == 11_173_962
    # zero_init_residual: the last BatchNorm of every block starts at zero.
    assert all(float(m.bn2.weight.abs().sum()) == 0 for m in ours.modules() if isinstance(m, mod_ft.BasicBlock))
    # kaiming_normal_(mode="fan_out") on the stem: std sqrt(2 / (64 * 9)).
    std = float(ours.conv1.weight.std())
    assert abs(std - np.sqrt(2 / 576)) < 0.1 * np.sqrt(2 / 576)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_same_losses_as_pytorch_from_same_weights(programs, dtype):
    mod_pt, mod_ft = programs
    pt.manual_seed(0)
    theirs = mod_pt.resnet18(width=16).to(getattr(pt, dtype))
    ours = mod_ft.resnet18(width=16).to(getattr(torch, dtype))
    ours.load_state_dict({k: to_ft(v) for k, v in theirs.state_dict().items()})
    x, y = mod_pt.synthetic_data(64)
    x = x.to(getattr(pt, dtype))
    lt = mod_pt.train(theirs, x, y, steps=4, batch_size=16)
    lo = mod_ft.train(ours, to_ft(x), to_ft(y), steps=4, batch_size=16)
    # float32 rounding differences grow through 20 BatchNorms over the steps; float64 is exact.
    tol = 2e-3 if dtype == "float32" else 1e-10
    np.testing.assert_allclose(lo, lt, rtol=tol)
    if dtype == "float64":
        for (n, a), (_, b) in zip(ours.state_dict().items(), theirs.state_dict().items()):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-9, atol=1e-12, err_msg=n)


def test_trains(programs):
    _, mod_ft = programs
    torch.manual_seed(0)
    model = mod_ft.resnet18(zero_init_residual=True, width=16)
    x, y = mod_ft.synthetic_data(128)
    losses = mod_ft.train(model, x, y, steps=40, batch_size=32, lr=0.05)
    assert np.mean(losses[-5:]) < 0.5 * losses[0], losses
    assert mod_ft.accuracy(model, x, y) > 0.5
