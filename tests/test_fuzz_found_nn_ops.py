"""Regression cases the differential fuzzer found in the distance, norm, normalization, loss,
pooling, convolution, covariance and einsum ops (issue #12), each run under ferrotorch and
PyTorch with the same inputs: same dtype, shape and values, or the same exception class."""

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
I64_MIN, I64_MAX = -(2**63), 2**63 - 1


def _expand(L: Any, values: Any, shape: tuple, dtype: str = "float32") -> Any:
    return _t(L, values, dtype).expand(*shape)


CASES: Dict[str, Callable[[Any], Any]] = {
    # cosine_similarity: a half norm is accumulated in float32 (x*x overflows half).
    "cosine_similarity_half_extremes": lambda L: L.nn.functional.cosine_similarity(
        _t(L, [[2e4, -2e4, 1e4, 3.0], [6e4, 1.0, -5e4, 2e4]], "float16"), _t(L, [[1e4, 2e4, -3.0, 2e4], [6e4, 6e4, 1.0, -1.0]], "float16"), 1
    ),
    "cosine_similarity_half_int_expanded": lambda L: L.nn.functional.cosine_similarity(
        _t(L, [[2e4, 2e4], [1e-3, 6e4]], "float16"), _expand(L, [[3, -1]], (2, 2), "int64"), 1
    ),
    "cosine_similarity_float_bfloat16": lambda L: L.nn.functional.cosine_similarity(
        _t(L, [[0.3, -1.7, 2.2, 0.9], [1.1, 0.4, -0.8, 2.9]]), _t(L, [[1.3, 0.7, -2.1, 0.2], [0.5, -1.9, 2.3, 1.7]], "bfloat16"), -1
    ),
    # Tensor.norm / vector_norm: half overflow, the order of dim checks on empty tensors.
    "norm_half_overflow": lambda L: _t(L, [[2e4, 2e4, 1e4]], "float16").norm(dim=[1, 0], keepdim=True),
    "norm_bfloat16": lambda L: _t(L, [3.0, 4.0, 12.0], "bfloat16").norm(3.0),
    "norm_neg_inf_empty_dim_first": lambda L: L.zeros(4, 4, 1, 0).norm(-INF, [3, 3, 1, -5, 1]),
    "norm_neg_inf_empty_negative_dim": lambda L: L.zeros(4, 1, 1, 0).norm(-INF, [-1, -2, 4, 0, 2], keepdim=True),
    "norm_out_of_range_before_empty": lambda L: L.zeros(4, 1, 1, 0).norm(-INF, [1, 4, -1]),
    "norm_repeated_dim_before_out_of_range": lambda L: L.ones(1, 3, 1).norm(-INF, [-1, -1, 3, -2]),
    "norm_p0_empty_repeated": lambda L: L.zeros(4, 4, 1, 0).norm(0.0, [0, 0, 3]),
    "vector_norm_neg_empty_all": lambda L: L.linalg.vector_norm(L.zeros(2, 0), -1.0),
    "vector_norm_inf_empty_dims": lambda L: L.linalg.vector_norm(L.zeros(2, 0), INF, []),
    "vector_norm_p0_empty": lambda L: L.linalg.vector_norm(L.zeros(2, 0), 0.0),
    "norm_negative_order_infinities": lambda L: _t(L, [[INF, INF], [INF, 1.0], [0.0, 2.0]]).norm(-1.0, 1),
    "norm_negative_order_half": lambda L: _t(L, [[3.0, 1.0], [2.0, 5.0]], "float16").norm(-1.5, 1, True),
    "pairwise_distance_negative_p_infinite": lambda L: L.pairwise_distance(_expand(L, [3], (7,), "int64").to(L.uint8), _expand(L, [-INF], (1,)), -1.0),
    # pairwise_distance / pdist / cdist
    "pairwise_distance_p0_nonfinite": lambda L: L.pairwise_distance(_expand(L, [NAN], (2,)), _expand(L, [1.0], (2,)), 0.0),
    "pairwise_distance_p0_inf": lambda L: L.pairwise_distance(_t(L, [[INF, 0.0, NAN], [1.0, 0.0, 2.0]]), _t(L, [1.0, 1e-6 * 0, 2.0]), 0.0),
    "pairwise_distance_negative_p_empty": lambda L: L.pairwise_distance(L.zeros(3, 3, 0), L.zeros(3, 1, 1), -1.0),
    "pairwise_distance_int16_empty": lambda L: L.pairwise_distance(L.zeros(0, 0, dtype=L.int16), L.zeros(0, 3, 0, 0, dtype=L.int16), -1.0),
    "pdist_half": lambda L: L.pdist(_t(L, [[1, 2, 3], [3, 2, 1]], "float16"), 3.0),
    "pdist_half_no_columns": lambda L: L.pdist(L.zeros(3, 0, dtype=L.float16), 3.0),
    "pdist_half_one_row": lambda L: L.pdist(L.ones(1, 3, dtype=L.bfloat16)),
    "pdist_negative_p_first": lambda L: L.pdist(L.ones(2, 3, dtype=L.float16), -1.0),
    "cdist_bfloat16_float": lambda L: L.cdist(_expand(L, [[0.5]], (1, 4), "bfloat16"), _t(L, [[1, 2, 3, 4]]), INF),
    "cdist_float_bfloat16": lambda L: L.cdist(_t(L, [[1, 2, 3, 4]]), _t(L, [[1, 2, 3, 4]], "bfloat16"), 1.0),
    "cdist_half_mm": lambda L: L.cdist(L.arange(60.0).reshape(30, 2).to(L.float16) / 8, L.arange(60.0).reshape(30, 2).flip(0).to(L.float16) / 8),
    "cdist_mm_mixed": lambda L: L.cdist(L.ones(30, 2), L.ones(30, 2, dtype=L.float64)),
    "cdist_inf_skips_nan": lambda L: L.cdist(_t(L, [[NAN, 1.0, 2.0], [1.0, NAN, NAN], [NAN, NAN, NAN], [INF, 0.0, 1.0]]), _t(L, [[0.0, 0, 0], [5, 5, 5]]), INF),
    "cdist_one_keeps_nan": lambda L: L.cdist(_t(L, [[NAN, 1.0, 2.0]]), _t(L, [[0.0, 0, 0], [5, 5, 5]]), 1.0),
    "pdist_inf_keeps_nan": lambda L: L.pdist(_t(L, [[NAN, 1.0, 2.0], [1.0, NAN, NAN], [0.0, 0, 0]]), INF),
    "cdist_p0_nan": lambda L: L.cdist(_t(L, [[NAN, INF, -0.0, 2.0], [1.0, 0.0, 0.0, 2.0]]), L.zeros(2, 4), 0.0),
    "pdist_p0_nan": lambda L: L.pdist(_t(L, [[NAN, INF, -0.0, 2.0], [0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0]]), 0.0),
    "dist_p0_counts_nan": lambda L: L.dist(_t(L, [NAN, INF, -0.0, 2.0]), L.zeros(4), 0),
    "cdist_empty_batch_half": lambda L: L.cdist(L.ones(0, 4, 1, 5, dtype=L.float16), L.ones(0, 4, 1, 5), 0.5),
    "pairwise_distance_p0_complex": lambda L: L.pairwise_distance(L.ones(3, dtype=L.complex64), L.zeros(3), 0.0),
    # group_norm / batch_norm (ATen forms): PyTorch's order of checks
    "group_norm_empty_batch_indivisible": lambda L: L.group_norm(L.zeros(0, 2, 2, 2), 4),
    "group_norm_empty_batch": lambda L: L.group_norm(L.zeros(0, 4, 2, dtype=L.int64), 2),
    "group_norm_empty_spatial_before_groups": lambda L: L.group_norm(L.zeros(0, 2, 0, 2), 0),
    "group_norm_groups_before_divisible": lambda L: L.group_norm(L.zeros(2, 3, 2), 0),
    "group_norm_weight_shape": lambda L: L.group_norm(L.zeros(0, 4, 2), 2, L.ones(3)),
    "group_norm_int": lambda L: L.group_norm(L.ones(2, 4, 2, dtype=L.int64), 2),
    "batch_norm_1d_strided_uint8": lambda L: L.batch_norm(L.zeros(14, dtype=L.uint8)[::2], None, None, None, None, True, 0.1, 1e-5, False),
    "batch_norm_1d_expanded_bool": lambda L: L.batch_norm(L.zeros(1, dtype=L.bool).expand(7), None, None, None, None, True, 0.1, 1e-5, False),
    "batch_norm_1d_strided_float": lambda L: L.batch_norm(L.zeros(14)[::2], None, None, None, None, True, 0.1, 1e-5, False),
    "batch_norm_half_stats_rounded": lambda L: L.batch_norm(
        _t(L, [[1.25, 0.73, 2.28], [1.21, -0.07, 1.73], [0.1, 3.3, -2.0]], "float16"), None, None, None, None, True, 0.1, 1e-5, False
    ),
    "batch_norm_1d_uint8": lambda L: L.batch_norm(L.zeros(7, dtype=L.uint8), None, None, None, None, True, 0.1, 1e-5, False),
    # kl_div: a half target's x log x rounds log x to half first
    "kl_div_half_target": lambda L: L.kl_div(_t(L, [[0.5, -1.0, 0.2, 1.5]], "float64"), _t(L, [3.0, 2.0, 0.0, -1.0], "float16"), 0),
    "kl_div_bfloat16_target": lambda L: L.nn.functional.kl_div(_t(L, [[0.5, -1.0, 0.2]], "bfloat16"), _t(L, [3.0, 7.0, 0.5], "bfloat16"), reduction="sum"),
    # adaptive_max_pool1d
    "adaptive_max_pool1d_empty_channels": lambda L: L.adaptive_max_pool1d(L.zeros(7, 0, 0, dtype=L.float16), 0),
    "adaptive_max_pool1d_empty_length": lambda L: L.adaptive_max_pool1d(L.zeros(0, 0), 1),
    "adaptive_max_pool1d_empty_batch": lambda L: L.adaptive_max_pool1d(L.zeros(0, 3), 2),
    "adaptive_max_pool1d_unallocatable": lambda L: L.adaptive_max_pool1d(L.ones(1, 1), 2**40),
    "adaptive_max_pool1d_negative": lambda L: L.adaptive_max_pool1d(L.ones(1, 1), -1),
    "adaptive_max_pool1d_two_sizes": lambda L: L.adaptive_max_pool1d(L.ones(2, 0, 5), (2, 3)),
    "adaptive_max_pool1d_int_zero_size": lambda L: L.adaptive_max_pool1d(L.ones(3, 2, 2, dtype=L.int64), 0),
    "adaptive_max_pool1d_int": lambda L: L.adaptive_max_pool1d(L.ones(3, 2, 2, dtype=L.int64), 2),
    "adaptive_max_pool1d_nan_windows": lambda L: L.adaptive_max_pool1d(_t(L, [[[NAN, NAN, 1, NAN, 3, 3, 5, 5]]]), 3),
    "adaptive_max_pool1d_upsampling": lambda L: L.nn.functional.adaptive_max_pool1d(_t(L, [[NAN, 2, -INF, 4, 4]]), 13, True),
    "adaptive_max_pool2d_nan_windows": lambda L: L.nn.functional.adaptive_max_pool2d(_t(L, [[[[NAN, NAN, 1, NAN], [3, 3, 5, 5]]]]), (1, 2), True),
    "adaptive_max_pool3d_nan_windows": lambda L: L.nn.functional.adaptive_max_pool3d(_t(L, [[[[[NAN, NAN, 1, NAN], [3, 3, 5, 5]]]]]), (1, 1, 2), True),
    # avg_pool on int64: exact integer sums and truncating division
    "avg_pool1d_int64_extremes": lambda L: L.avg_pool1d(_t(L, [[-1, 0, I64_MIN], [1, -1, I64_MAX - 1], [I64_MIN + 1, I64_MAX, I64_MIN + 1]], "int64").t(), 1, (), 0, True),
    "avg_pool1d_int64_wrapping_sums": lambda L: L.nn.functional.avg_pool1d(
        _t(L, [[[I64_MAX, I64_MAX, -7, 5, I64_MIN, -3, 11]]], "int64"), 3, 2, 1, True, False
    ),
    "avg_pool2d_int64_divisor": lambda L: L.nn.functional.avg_pool2d(
        _t(L, [[[[I64_MAX, -5, 3], [7, I64_MIN + 1, 2], [2**60, 2**61, -(2**59)]]]], "int64"), 2, 1, 1, False, True, 3
    ),
    "avg_pool1d_half_window_sum_overflows": lambda L: L.nn.functional.avg_pool1d(_t(L, [[[2.4, 44256.0, 0.0, 35360.0, 1.0, -6e4, -6e4, 3.0]]], "float16"), 4),
    "avg_pool2d_half_padded": lambda L: L.nn.functional.avg_pool2d(_t(L, [[[[6e4, 6e4, 1.0], [6e4, -2.0, 5.0], [3e4, 3e4, 3e4]]]], "float16"), 2, 1, 1, True, False),
    "avg_pool3d_half": lambda L: L.nn.functional.avg_pool3d(L.ones(1, 1, 2, 2, 2, dtype=L.float16), 2),
    "avg_pool3d_bfloat16_empty_channels": lambda L: L.nn.functional.avg_pool3d(L.ones(1, 0, 2, 2, 2, dtype=L.bfloat16), 2),
    # conv1d: empty inputs never reach a kernel
    "conv1d_no_channels": lambda L: L.conv1d(L.zeros(5, 0, 3, dtype=L.bfloat16), L.zeros(5, 0, 3, dtype=L.bfloat16), None, 3),
    "conv1d_no_channels_mixed": lambda L: L.conv1d(L.zeros(3, 0, 3, dtype=L.int16), L.zeros(3, 0, 3), None, 2),
    "conv1d_no_channels_ints": lambda L: L.conv1d(L.zeros(3, 0, 4, dtype=L.int16), L.zeros(5, 0, 2, dtype=L.int32), None, 1, 1),
    "conv1d_no_samples_ints": lambda L: L.conv1d(L.zeros(0, 2, 4, dtype=L.int16), L.ones(5, 2, 2, dtype=L.int32)),
    "conv1d_no_samples_float_weight": lambda L: L.conv1d(L.zeros(0, 2, 4, dtype=L.int16), L.ones(5, 2, 2)),
    "conv1d_no_samples_bias_type": lambda L: L.conv1d(L.zeros(0, 2, 4), L.ones(5, 2, 2), L.ones(5, dtype=L.float64)),
    "conv1d_no_samples_kernel_too_big": lambda L: L.conv1d(L.zeros(0, 2, 1), L.ones(5, 2, 2)),
    "conv2d_no_channels": lambda L: L.conv2d(L.zeros(2, 0, 4, 4), L.zeros(3, 0, 2, 2), None, 2),
    "conv1d_bool": lambda L: L.conv1d(L.ones(2, 2, 2, dtype=L.bool), L.ones(2, 2, 2)),
    "conv1d_bool_float_bias": lambda L: L.conv1d(L.ones(2, 2, 2, dtype=L.bool), L.ones(2, 2, 2, dtype=L.bool), L.ones(2)),
    "conv2d_int8": lambda L: L.conv2d(L.ones(2, 2, 2, 2, dtype=L.int8), L.ones(2, 2, 2, 2, dtype=L.int8)),
    "conv3d_bool": lambda L: L.conv3d(L.ones(2, 2, 2, 2, 2, dtype=L.bool), L.ones(2, 2, 2, 2, 2, dtype=L.bool)),
    # renorm: a one-element slice's norm is its modulus (no overflowing square)
    "renorm_extremes": lambda L: _t(L, [[8.2e7], [-4.6e307], [-2.75], [-2.9e8], [6.3e307]], "float64").renorm_(2, 0, 1.0),
    "renorm_half": lambda L: L.renorm(_t(L, [[3.0, 4.0], [1e-3, 0.0], [3e4, 3e4]], "float16"), 2, 0, 1.0),
    # cov: an integer input's weighted sum stays int64 (wrapping)
    "cov_int64_fweights": lambda L: L.cov(_t(L, [-1, -1, 1, -1, -I64_MAX], "int64"), fweights=_t(L, [2, 2, 2, 1, 4], "int64")),
    "cov_int64_rows": lambda L: L.cov(_t(L, [[-1, -1, 1, -1, -I64_MAX], [1, 2, 3, 4, 5]], "int64")),
    "cov_int64_aweights": lambda L: L.cov(_t(L, [[-1, 7, 1, -1, -I64_MAX]], "int64"), aweights=_t(L, [0.5, 1, 2, 1, 1], "float64")),
    # einsum: pairs with no size>1 contraction multiply (types promote); bmm's dtype rules
    "einsum_broadcast_contraction": lambda L: L.einsum("ij,jk->ik", _expand(L, [[1.5], [2.0], [-1.0]], (3, 3), "float64"), _t(L, [[1.0, 2.0]], "float16")),
    "einsum_mismatch": lambda L: L.einsum("ij,jk->ik", L.ones(3, 3, dtype=L.float64), L.ones(3, 2, dtype=L.float16)),
    "einsum_bool_left": lambda L: L.einsum("ij,jk->ik", L.ones(2, 3, dtype=L.bool), L.ones(3, 2, dtype=L.complex128)),
    "einsum_empty_left": lambda L: L.einsum("ij,jk->ik", L.ones(0, 7, dtype=L.bfloat16), L.ones(7, 2, dtype=L.int16)),
    "einsum_empty_contraction": lambda L: L.einsum("ij,jk->ik", L.ones(2, 0, dtype=L.float64), L.ones(0, 3)),
    "einsum_elementwise_promotes": lambda L: L.einsum("ij,ij->ij", L.ones(2, 3), L.ones(2, 3, dtype=L.float64)),
    "einsum_private_sum_first": lambda L: L.einsum("ij,jk->ik", _t(L, [[INF], [NAN], [1.0]], "bfloat16"), _t(L, [[1.0], [-2.0], [0.5], [3.0]], "bfloat16")),
    "einsum_private_sum_widens": lambda L: L.einsum("ij,ij->i", L.ones(3, 1, dtype=L.int16), L.ones(3, 3, dtype=L.int16)),
    "einsum_size_one_both_keeps_dtype": lambda L: L.einsum("ij,jk->ik", L.ones(3, 1, dtype=L.int16), L.ones(1, 2, dtype=L.int16)),
    "einsum_bool_private_sums": lambda L: L.einsum("ij,jk->ik", L.ones(3, 3, dtype=L.bool), L.ones(1, 2, dtype=L.bool)),
    "einsum_empty_no_contraction_promotes": lambda L: L.einsum("ij,jk->ik", L.ones(0, 3, dtype=L.int8), L.ones(1, 2, dtype=L.int8)),
    "einsum_int_sum_then_half": lambda L: L.einsum("ij,jk->ik", L.ones(3, 3, dtype=L.int64), L.ones(1, 2, dtype=L.float16)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_fuzz_found_nn_ops_vs_torch(name: str) -> None:
    assert_same_outcome(CASES[name], {"float16": 2e-2, "bfloat16": 3e-2, "float32": 2e-5})


def test_pairwise_distance_p0_keeps_a_zero_gradient() -> None:
    x = torch.tensor([NAN, INF, 0.0, 2.0], requires_grad=True)
    r = torch.pairwise_distance(x, torch.ones(4), 0.0)
    assert r.requires_grad and r.item() == 4.0
    r.backward()
    assert x.grad is not None and x.grad.tolist() == [0.0, 0.0, 0.0, 0.0]


def test_adaptive_max_pool1d_gradient_goes_to_the_chosen_element() -> None:
    data = [[[1.0, 2.0, 3.0, 3.0, 2.0]]]
    x, y = torch.tensor(data, requires_grad=True), pt.tensor(data, requires_grad=True)
    torch.nn.functional.adaptive_max_pool1d(x, 3).sum().backward()
    pt.nn.functional.adaptive_max_pool1d(y, 3).sum().backward()
    assert x.grad.tolist() == y.grad.tolist()


def test_renorm_gradient_vs_torch() -> None:
    data = [[3.0, 4.0], [1e-3, 0.0]]
    x, y = torch.tensor(data, requires_grad=True), pt.tensor(data, requires_grad=True)
    torch.renorm(x, 2, 0, 1.0).sum().backward()
    pt.renorm(y, 2, 0, 1.0).sum().backward()
    np.testing.assert_allclose(np.array(x.grad.tolist()), y.grad.numpy(), rtol=1e-5)
