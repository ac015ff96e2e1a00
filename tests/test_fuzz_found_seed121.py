"""Regression rows for fuzz seed 121 (issue #12): PyTorch's corner cases of cov with one
observation (one kind of weights centres it to exactly 0, so an infinite value gives 0, not
NaN; its product with a differently typed weighted copy raises; aweights alone with correction 1
count 0 degrees of freedom), and class-index losses of a 1-D input checking the target's dtype
before its size. Each row runs under ferrotorch and PyTorch and requires PyTorch's outcome."""

from __future__ import annotations

import math

import pytest
from fuzz_found_checks import assert_same_outcome, tensor_of

from torch_oracle import needs_torch

pytestmark = needs_torch

RTOL = {"float16": 2e-3, "float32": 2e-6, "float64": 1e-12, "complex64": 2e-6, "complex128": 1e-12}
ONE_OBS = [[math.inf], [1.5], [0.7]]


def _cov(L, dtype="float32", fw=None, aw=None, correction=1):
    kw = {}
    if fw is not None:
        kw["fweights"] = L.tensor(fw)
    if aw is not None:
        kw["aweights"] = L.tensor(aw)
    return L.cov(tensor_of(L, ONE_OBS, dtype), correction=correction, **kw)


ROWS = {
    "cov_one_obs_fweights": lambda L: _cov(L, fw=[2]),
    "cov_one_obs_fweights_half": lambda L: _cov(L, "float16", fw=[2]),
    "cov_one_obs_aweights": lambda L: _cov(L, aw=[0.5]),
    "cov_one_obs_aweights_correction_0": lambda L: _cov(L, aw=[0.5], correction=0),
    "cov_one_obs_both_weights": lambda L: _cov(L, fw=[2], aw=[0.5]),
    "cov_one_obs_no_weights_correction_0": lambda L: _cov(L, correction=0),
    "cov_one_obs_half_float_aweights_raises": lambda L: _cov(L, "float16", aw=[0.5]),
    "cov_one_obs_int_fweights": lambda L: L.cov(L.tensor([[3], [4]]), fweights=L.tensor([2])),
    "cov_complex_vector": lambda L: L.cov(L.tensor([[1 + 2j, 3 - 1j, 2j]])),
    "cov_complex_one_obs": lambda L: L.cov(L.tensor([[1 + 2j], [3 - 1j]]), fweights=L.tensor([3])),
    "cross_entropy_1d_bool_empty_target": lambda L: L.nn.functional.cross_entropy(tensor_of(L, [0.5] * 7), L.zeros(0, dtype=L.bool)),
    "nll_loss_1d_float_target": lambda L: L.nn.functional.nll_loss(tensor_of(L, [0.5] * 7), L.zeros(2)),
    "nll_loss_1d_int32_target": lambda L: L.nn.functional.nll_loss(tensor_of(L, [0.5] * 7), L.zeros(0, dtype=L.int32)),
    "nll_loss_1d_uint8_empty_target": lambda L: L.nn.functional.nll_loss(tensor_of(L, [0.5] * 7), L.zeros(0, dtype=L.uint8)),
}


@pytest.mark.parametrize("name", sorted(ROWS))
def test_seed121_row(name: str) -> None:
    assert_same_outcome(ROWS[name], RTOL)
