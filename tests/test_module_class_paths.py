"""Module paths and base classes that libraries test against (``nn.modules.batchnorm._BatchNorm``
to freeze BatchNorms, ``_DropoutNd``, ``LazyModuleMixin``): the same isinstance answers as PyTorch."""

from __future__ import annotations

import importlib

import pytest

import ferrotorch as torch
from torch_oracle import needs_torch, pt

pytestmark = needs_torch

BASES = [
    ("batchnorm", "_NormBase"),
    ("batchnorm", "_BatchNorm"),
    ("instancenorm", "_InstanceNorm"),
    ("dropout", "_DropoutNd"),
    ("lazy", "LazyModuleMixin"),
    ("container", "Sequential"),
]
MODULES = [
    lambda t: t.nn.BatchNorm1d(2),
    lambda t: t.nn.BatchNorm3d(2),
    lambda t: t.nn.SyncBatchNorm(2),
    lambda t: t.nn.LazyBatchNorm2d(),
    lambda t: t.nn.InstanceNorm2d(2),
    lambda t: t.nn.LazyInstanceNorm1d(),
    lambda t: t.nn.GroupNorm(1, 2),
    lambda t: t.nn.Dropout(),
    lambda t: t.nn.Dropout3d(),
    lambda t: t.nn.AlphaDropout(),
    lambda t: t.nn.FeatureAlphaDropout(),
    lambda t: t.nn.LazyLinear(2),
    lambda t: t.nn.Linear(2, 2),
    lambda t: t.nn.Sequential(),
]


def _base(lib, module: str, name: str):
    return getattr(importlib.import_module(f"{lib.__name__}.nn.modules.{module}"), name)


@pytest.mark.parametrize("make", MODULES)
def test_isinstance_of_pytorch_base_classes(make) -> None:
    ours, theirs = make(torch), make(pt)
    for module, name in BASES:
        expected = isinstance(theirs, _base(pt, module, name))
        assert isinstance(ours, _base(torch, module, name)) == expected, f"{type(theirs).__name__} vs {module}.{name}"
