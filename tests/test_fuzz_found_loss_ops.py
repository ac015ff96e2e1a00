"""Regression cases the differential fuzzer found in rms_norm, embedding, the logits/hinge
losses, dist and grid_sample (issue #12), each run under ferrotorch and PyTorch with the same
inputs: same dtype, shape and values (NaN/inf positions included), or the same exception class."""

from __future__ import annotations

import math
from typing import Any, Callable, Dict

import numpy as np
import pytest
from fuzz_found_checks import assert_same_outcome
from fuzz_found_checks import tensor_of as _t

import ferrotorch as torch
from torch_oracle import needs_torch, pt

pytestmark = needs_torch

NAN, INF = math.nan, math.inf


def _c(L: Any, re: Any, im: Any, dtype: str = "float32") -> Any:
    return L.complex(_t(L, re, dtype), _t(L, im, dtype))


def _grid(L: Any, values: Any) -> Any:
    return _t(L, values, "float64").reshape(1, 1, 2, 2)


_IMG = [float(v) for v in range(14)]

CASES: Dict[str, Callable[[Any], Any]] = {
    # rms_norm: complex squares without conj and takes its real dtype's eps; half/bfloat16
    # compute in float32 with float32's eps (small inputs make eps visible); output in input dtype.
    "rms_norm_complex64": lambda L: L.rms_norm(_c(L, [[0.3, -1.2, 2.0], [1e-4, 2e-4, 0.0]], [[1.1, 0.4, -0.7], [0.0, 1e-4, 3e-4]]), (3,)),
    "rms_norm_complex128": lambda L: L.rms_norm(_c(L, [[0.3, -1.2], [1e-9, 0.0]], [[1.1, 0.4], [2e-9, 1e-9]], "float64"), (2,)),
    "rms_norm_bfloat16_small": lambda L: L.rms_norm(_t(L, [[1e-3, -2e-3, 5e-4], [0.7, -1.3, 2.1]], "bfloat16"), (3,)),
    "rms_norm_half_small": lambda L: L.rms_norm(_t(L, [[1e-3, -2e-3, 5e-4], [0.7, -1.3, 2.1]], "float16"), (3,)),
    "rms_norm_half_float_weight": lambda L: L.rms_norm(_t(L, [[1e-3, -2e-3, 5e-4]], "float16"), (3,), _t(L, [0.3, 1.7, -2.9])),
    "rms_norm_float_double_weight": lambda L: L.rms_norm(_t(L, [[0.4, -2.0, 5.0]]), (3,), _t(L, [0.3, 1.7, -2.9], "float64")),
    "rms_norm_module_bfloat16": lambda L: L.nn.RMSNorm(3)(_t(L, [[1e-3, -2e-3, 5e-4]], "bfloat16")),
    # embedding with an empty weight: index_select's RuntimeError, not the range check's IndexError.
    "embedding_empty_weight": lambda L: L.embedding(_t(L, [], "float16").reshape(0, 0), _t(L, [0, 0, 0], "int64")),
    "embedding_empty_weight_int8": lambda L: L.embedding(_t(L, [], "float32").reshape(0, 0).to(L.int8), _t(L, [0, 0], "int64")),
    "functional_embedding_empty_weight": lambda L: L.nn.functional.embedding(_t(L, [1, 0], "int64"), _t(L, [], "float32").reshape(0, 3)),
    "functional_embedding_empty_weight_2d_index": lambda L: L.nn.functional.embedding(_t(L, [[0], [0]], "int64"), _t(L, [], "float32").reshape(0, 0)),
    "embedding_empty_weight_no_index": lambda L: L.embedding(_t(L, [], "float32").reshape(0, 3), _t(L, [], "int64")),
    # hinge_embedding_loss with a bool input fails on the bool subtraction before the shape check.
    "hinge_bool_shape_mismatch": lambda L: L.hinge_embedding_loss(_t(L, [[1, 0], [0, 1]], "bool"), _t(L, [], "bool").reshape(2, 0), 1.0, 0),
    "hinge_bool_float_target": lambda L: L.hinge_embedding_loss(_t(L, [1, 0], "bool"), _t(L, [1.0, -1.0]), 1.0, 1),
    "hinge_float_bool_target": lambda L: L.hinge_embedding_loss(_t(L, [0.3, -2.0]), _t(L, [1, 0], "bool"), 1.0, 0),
    # bce_with_logits: log_sigmoid of a half input is one float32 rounding, then float64 math.
    "bce_logits_half_double": lambda L: L.binary_cross_entropy_with_logits(
        _t(L, [-2.71, -0.83, 0.05, 1.37, 2.99, -1.11, 0.61], "float16"), _t(L, [0.2, -1.4, 0.9, 2.2, -0.3, 0.5, 1.9], "float64"), None, None, 0
    ),
    "logsigmoid_half": lambda L: L.nn.functional.logsigmoid(_t(L, [-7.3, -2.71, -0.83, 0.05, 1.37, 2.99, 9.1], "float16")),
    "logsigmoid_bfloat16": lambda L: L.nn.functional.logsigmoid(_t(L, [-7.3, -2.71, -0.83, 0.05, 1.37, 2.99, 9.1], "bfloat16")),
    # dist of half values whose squares overflow half: accumulated in float32.
    "dist_half_overflow": lambda L: L.dist(_t(L, [[-5.139e4, -0.0], [-0.4744, -3.022e3]], "float16"), _t(L, 2.406, "float16"), 2.0),
    "dist_half_p3": lambda L: L.dist(_t(L, [3e4, -2e4, 7.0], "float16"), _t(L, [1.0, 2.0, 3.0], "float16"), 3.0),
    "dist_bfloat16_inf_norm": lambda L: L.dist(_t(L, [3e4, -2e4, 7.0], "bfloat16"), _t(L, [1.0, 2.0, 3.0], "bfloat16"), INF),
    # grid_sample: a coordinate that overflows or reflects to NaN samples at 0 (max(NaN, 0) = 0).
    "grid_sample_reflection_huge": lambda L: L.nn.functional.grid_sample(
        _t(L, _IMG, "float64").reshape(1, 1, 7, 2), _grid(L, [0.0, -1e308, 1e308, 0.0]), "bilinear", "reflection", False
    ),
    "grid_sample_reflection_inf_ac": lambda L: L.nn.functional.grid_sample(
        _t(L, _IMG, "float64").reshape(1, 1, 7, 2), _grid(L, [0.0, -INF, INF, 0.0]), "bilinear", "reflection", True
    ),
    "grid_sample_border_nan_nearest": lambda L: L.nn.functional.grid_sample(
        _t(L, _IMG, "float64").reshape(1, 1, 7, 2), _grid(L, [0.0, NAN, NAN, 0.5]), "nearest", "border", False
    ),
    "grid_sample_border_inf": lambda L: L.nn.functional.grid_sample(
        _t(L, _IMG, "float64").reshape(1, 1, 7, 2), _grid(L, [0.0, INF, -INF, 0.5]), "bilinear", "border", False
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_fuzz_found_loss_ops_vs_torch(name: str) -> None:
    assert_same_outcome(CASES[name], {"float16": 2e-3, "bfloat16": 8e-3, "float32": 2e-6, "complex64": 2e-6})


def test_rms_norm_half_gradient_vs_torch() -> None:
    data = [[1e-3, -2e-3, 5e-4], [0.7, -1.3, 2.1]]
    x = torch.tensor(data).to(torch.float16).requires_grad_()
    y = pt.tensor(data).to(pt.float16).requires_grad_()
    torch.rms_norm(x, (3,)).sum().backward()
    pt.rms_norm(y, (3,)).sum().backward()
    assert x.grad.dtype == torch.float16
    np.testing.assert_allclose(x.grad.float().numpy(), y.grad.float().numpy(), rtol=2e-2, atol=1e-2)
