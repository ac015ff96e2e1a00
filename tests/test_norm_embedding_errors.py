"""Bad arguments to the normalization, dropout, embedding, linear and distance layers raise the
exception class and message PyTorch raises (each call is made with both libraries)."""

from __future__ import annotations

import warnings
from typing import Any, Callable

import pytest

import ferrotorch as torch
from torch_oracle import needs_torch, pt

pytestmark = needs_torch


def _long(t: Any, *values: int) -> Any:
    return t.tensor(list(values), dtype=t.int64)


ERRORS = {
    "BatchNorm1d-4d": lambda t: t.nn.BatchNorm1d(3)(t.zeros(2, 3, 4, 4)),
    "BatchNorm2d-3d": lambda t: t.nn.BatchNorm2d(3)(t.zeros(2, 3, 4)),
    "BatchNorm3d-4d": lambda t: t.nn.BatchNorm3d(3)(t.zeros(2, 3, 4, 4)),
    "BatchNorm1d-one-value-per-channel": lambda t: t.nn.BatchNorm1d(3)(t.zeros(1, 3)),
    "InstanceNorm1d-4d": lambda t: t.nn.InstanceNorm1d(3)(t.zeros(2, 3, 4, 4)),
    "InstanceNorm2d-2d": lambda t: t.nn.InstanceNorm2d(3)(t.zeros(3, 4)),
    "InstanceNorm3d-3d": lambda t: t.nn.InstanceNorm3d(3)(t.zeros(3, 4, 4)),
    "InstanceNorm1d-affine-channels": lambda t: t.nn.InstanceNorm1d(3, affine=True)(t.zeros(2, 4, 5)),
    "InstanceNorm1d-one-spatial": lambda t: t.nn.InstanceNorm1d(3)(t.zeros(2, 3, 1)),
    "SyncBatchNorm-1d": lambda t: t.nn.SyncBatchNorm(3)(t.zeros(3)),
    "SyncBatchNorm-no-channels": lambda t: t.nn.SyncBatchNorm(0)(t.zeros(2, 0)),
    "GroupNorm-divisible": lambda t: t.nn.GroupNorm(3, 4),
    "GroupNorm-channels": lambda t: t.nn.GroupNorm(2, 4)(t.zeros(3, 6, 2)),
    "GroupNorm-1d": lambda t: t.nn.GroupNorm(2, 4)(t.zeros(4)),
    "group_norm-bias": lambda t: t.nn.functional.group_norm(t.zeros(3, 4, 5), 2, bias=t.ones(3)),
    "group_norm-divisible": lambda t: t.nn.functional.group_norm(t.zeros(3, 4, 5), 3),
    "LayerNorm-shape": lambda t: t.nn.LayerNorm((4, 5))(t.zeros(3, 4, 6)),
    "layer_norm-weight": lambda t: t.nn.functional.layer_norm(t.zeros(3, 4, 5), (5,), weight=t.ones(4)),
    "layer_norm-bias": lambda t: t.nn.functional.layer_norm(t.zeros(3, 4, 5), (5,), bias=t.ones(4)),
    "RMSNorm-shape": lambda t: t.nn.RMSNorm((4, 5))(t.zeros(3, 4, 6)),
    "rms_norm-weight": lambda t: t.nn.functional.rms_norm(t.zeros(3, 4, 5), (4, 5), weight=t.ones(5)),
    "BatchNorm1d-channels": lambda t: t.nn.BatchNorm1d(4)(t.zeros(3, 5)),
    "batch_norm-running-var": lambda t: t.nn.functional.batch_norm(t.zeros(3, 4, 5), t.zeros(4), t.ones(3)),
    "batch_norm-bias": lambda t: t.nn.functional.batch_norm(t.zeros(3, 4, 5), t.zeros(4), t.ones(4), bias=t.ones(3)),
    "LocalResponseNorm-2d": lambda t: t.nn.LocalResponseNorm(2)(t.zeros(3, 4)),
    "Dropout-p": lambda t: t.nn.Dropout(-0.1),
    "Dropout2d-p": lambda t: t.nn.Dropout2d(1.01),
    "AlphaDropout-p": lambda t: t.nn.AlphaDropout(2.0),
    "dropout1d-4d": lambda t: t.nn.functional.dropout1d(t.zeros(1, 2, 3, 4)),
    "dropout2d-1d": lambda t: t.nn.functional.dropout2d(t.zeros(3), 0.5, True),
    "feature_alpha_dropout-1d": lambda t: t.nn.functional.feature_alpha_dropout(t.zeros(3), 0.5, True),
    "Embedding-padding-range": lambda t: t.nn.Embedding(5, 2, padding_idx=5),
    "Embedding-padding-negative-range": lambda t: t.nn.Embedding(5, 2, padding_idx=-6),
    "Embedding-weight-shape": lambda t: t.nn.Embedding(5, 2, _weight=t.zeros(5, 3)),
    "Embedding-from-pretrained-1d": lambda t: t.nn.Embedding.from_pretrained(t.zeros(5)),
    "embedding-float-indices": lambda t: t.nn.functional.embedding(t.zeros(3), t.zeros(5, 2)),
    "EmbeddingBag-2d-with-offsets": lambda t: t.nn.EmbeddingBag(5, 2)(t.zeros(2, 3, dtype=t.int64), _long(t, 0, 1)),
    "EmbeddingBag-1d-without-offsets": lambda t: t.nn.EmbeddingBag(5, 2)(_long(t, 1, 2)),
    "EmbeddingBag-3d": lambda t: t.nn.EmbeddingBag(5, 2)(t.zeros(1, 2, 3, dtype=t.int64)),
    "EmbeddingBag-mode": lambda t: t.nn.EmbeddingBag(5, 2, mode="median")(t.zeros(2, 3, dtype=t.int64)),
    "EmbeddingBag-max-scale-grad": lambda t: t.nn.EmbeddingBag(5, 2, mode="max", scale_grad_by_freq=True)(t.zeros(2, 3, dtype=t.int64)),
    "EmbeddingBag-weights-mean": lambda t: t.nn.EmbeddingBag(5, 2)(t.zeros(2, 3, dtype=t.int64), per_sample_weights=t.ones(2, 3)),
    "EmbeddingBag-padding-range": lambda t: t.nn.EmbeddingBag(5, 2, padding_idx=7),
    "Bilinear-input1": lambda t: t.nn.Bilinear(3, 4, 2)(t.zeros(5, 4), t.zeros(5, 4)),
    "Bilinear-input2": lambda t: t.nn.Bilinear(3, 4, 2)(t.zeros(5, 3), t.zeros(5, 3)),
    "Bilinear-batch": lambda t: t.nn.Bilinear(3, 4, 2)(t.zeros(5, 3), t.zeros(4, 4)),
    "Bilinear-ndim": lambda t: t.nn.Bilinear(3, 4, 2)(t.zeros(3), t.zeros(5, 4)),
    "ModuleList-index": lambda t: t.nn.ModuleList([t.nn.ReLU()])[1],
    "ModuleList-extend-non-iterable": lambda t: t.nn.ModuleList().extend(t.nn.ReLU()),
    "Sequential-index": lambda t: t.nn.Sequential(t.nn.ReLU())[-2],
    "Sequential-add-list": lambda t: t.nn.Sequential() + [t.nn.ReLU()],
    "Sequential-mul-zero": lambda t: t.nn.Sequential(t.nn.ReLU()) * 0,
    "Sequential-insert-range": lambda t: t.nn.Sequential(t.nn.ReLU()).insert(3, t.nn.ReLU()),
    "Sequential-non-module": lambda t: t.nn.Sequential(3),
    "ModuleDict-update-bad-pair": lambda t: t.nn.ModuleDict().update([("a", t.nn.ReLU(), 1)]),
    "ParameterDict-int-key": lambda t: t.nn.ParameterDict()[3],
    "ParameterList-call": lambda t: t.nn.ParameterList()(),
    "ParameterList-extend-tensor": lambda t: t.nn.ParameterList().extend(t.zeros(2)),
    "pdist-3d": lambda t: t.nn.functional.pdist(t.zeros(2, 3, 4)),
}


def _raise(fn: Callable[[Any], Any], lib: Any) -> BaseException:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fn(lib)
        except Exception as e:  # noqa: BLE001 - the class is what we compare
            return e
    raise AssertionError(f"{lib.__name__} raised nothing")


@pytest.mark.parametrize("name", list(ERRORS))
def test_same_error_as_torch(name: str) -> None:
    theirs = _raise(ERRORS[name], pt)
    ours = _raise(ERRORS[name], torch)
    assert type(ours).__name__ == type(theirs).__name__, f"{type(ours).__name__}: {ours} vs torch {type(theirs).__name__}: {theirs}"
    # Class reprs in messages name our package.
    assert str(ours).replace("ferrotorch", "torch") == str(theirs)
