"""Lazy modules that are copied before their first forward (deepcopy, pickle, a state_dict of
placeholders) stay lazy and infer their shapes later, as PyTorch's do."""

from __future__ import annotations

import copy
import pickle
from typing import Any, Callable

import pytest

import ferrotorch as torch
from torch_oracle import needs_torch, pt

pytestmark = needs_torch

COPIES: dict = {
    "deepcopy": copy.deepcopy,
    "pickle": lambda m: pickle.loads(pickle.dumps(m)),
    "state_dict": lambda m: _reloaded(m),
}


def _reloaded(m: Any) -> Any:
    fresh = type(m)(*m._lazy_args)
    fresh.load_state_dict(m.state_dict())
    return fresh


MAKERS: dict = {
    "LazyLinear": (lambda lib: lib.nn.LazyLinear(3), (3,), (2, 5), (2, 3)),
    "LazyConv2d": (lambda lib: lib.nn.LazyConv2d(3, 2), (3, 2), (1, 4, 5, 5), (1, 3, 4, 4)),
}


@pytest.mark.parametrize("how", list(COPIES))
@pytest.mark.parametrize("name", list(MAKERS))
def test_copied_lazy_module_infers_shapes(name: str, how: str) -> None:
    make, args, in_shape, out_shape = MAKERS[name]
    copier: Callable[[Any], Any] = COPIES[how]
    for lib in (torch, pt):
        m = make(lib)
        m._lazy_args = args
        c = copier(m)
        assert c.has_uninitialized_params()
        y = c(lib.ones(*in_shape))
        assert tuple(y.shape) == out_shape
        assert type(c).__name__ == name[len("Lazy"):]
        assert m.has_uninitialized_params()


def test_lazy_state_dict_holds_placeholders() -> None:
    for lib in (torch, pt):
        sd = lib.nn.LazyBatchNorm1d().state_dict()
        assert [repr(v) for v in sd.values()][:4] == ["<UninitializedParameter>"] * 2 + ["<UninitializedBuffer>"] * 2
        fresh = lib.nn.LazyBatchNorm1d()
        fresh.load_state_dict(sd)
        assert tuple(fresh(lib.ones(2, 4)).shape) == (2, 4)


@pytest.mark.parametrize("convert", ["double", "half", "to"])
def test_dtype_conversion_before_first_forward_stays_lazy(convert: str) -> None:
    for lib in (torch, pt):
        want = lib.float16 if convert == "half" else lib.float64
        for m in (lib.nn.LazyLinear(3), lib.nn.LazyBatchNorm1d()):
            m = m.to(want) if convert == "to" else getattr(m, convert)()
            assert m.has_uninitialized_params()
            y = m(lib.ones(2, 3, dtype=want))
            assert y.dtype == want and m.weight.dtype == want
            assert tuple(m.weight.shape) in ((3, 3), (3,))
