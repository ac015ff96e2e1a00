"""Constructor arguments PyTorch rejects up front: the same exception class and message."""

from __future__ import annotations

from typing import Any, Callable

import pytest

import ferrotorch as torch
from torch_oracle import needs_torch, pt

pytestmark = needs_torch

CASES: dict = {
    "Bilinear-in1-zero": lambda t: t.nn.Bilinear(0, 2, 3),
    "LPPool1d-norm-zero": lambda t: t.nn.LPPool1d(0, 2),
    "LPPool2d-norm-zero-float": lambda t: t.nn.LPPool2d(0.0, 2),
    "LPPool3d-norm-zero": lambda t: t.nn.LPPool3d(0, 2),
    "lp_pool2d-norm-zero": lambda t: t.nn.functional.lp_pool2d(t.ones(1, 1, 4, 4), 0, 2),
}


@pytest.mark.parametrize("name", list(CASES))
def test_rejected_like_torch(name: str) -> None:
    make: Callable[[Any], Any] = CASES[name]
    with pytest.raises(Exception) as theirs:
        make(pt)
    with pytest.raises(type(theirs.value)) as ours:
        make(torch)
    assert str(ours.value) == str(theirs.value)


def test_accepted_like_torch() -> None:
    for lib in (torch, pt):
        assert repr(lib.nn.LPPool2d(-1, 2)) == "LPPool2d(norm_type=-1, kernel_size=2, stride=None, ceil_mode=False)"
        assert tuple(lib.nn.Bilinear(2, 0, 3).weight.shape) == (3, 2, 0)


@pytest.mark.parametrize("name", ["Conv1d", "Conv2d", "Conv3d"])
def test_conv_takes_no_output_padding(name: str) -> None:
    for lib in (torch, pt):
        with pytest.raises(TypeError):
            getattr(lib.nn, name)(2, 2, 3, output_padding=1)
        assert getattr(lib.nn, name)(2, 2, 3).output_padding == (0,) * int(name[-2])
