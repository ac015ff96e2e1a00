"""Regression cases of the differential fuzzer's seed 107 (issue #12): affine_grid's rounding
where the affine terms cancel, and grid_sampler at far (overflowing) or infinite coordinates,
each run under ferrotorch and PyTorch with the same inputs."""

from __future__ import annotations

import math
from typing import Any, Callable, Dict

import numpy as np
import pytest
from fuzz_found_checks import assert_same_outcome
from fuzz_found_checks import tensor_of as _t

from torch_oracle import needs_torch

pytestmark = needs_torch

INF = math.inf
# affine_grid is now PyTorch's sum bit for bit; the sampler keeps a float tolerance.
RTOL = {"float32": 1e-6, "float64": 1e-12}
# Seed 107's theta: x * t10 + y * t11 + t12 cancels to ~6e-4 at the first point.
THETA_107 = [
    [[-1.1467885971069336, -1.8743996620178223, -1.9135946035385132], [1.648149013519287, 2.1284241676330566, 2.243619203567505]],
    [[2.5854694843292236, -0.9176015257835388, -2.6393964290618896], [0.7867074012756348, -1.755955696105957, 2.311785936355591]],
]


def _image(L: Any, h: int = 7, w: int = 7, dtype: str = "float32") -> Any:
    return _t(L, np.arange(1.0, h * w + 1.0).reshape(1, 1, h, w), dtype)


def _volume(L: Any) -> Any:
    return _t(L, np.arange(1.0, 3 * 7 * 7 + 1.0).reshape(1, 1, 3, 7, 7))


def _sampler(points: list, mode: int, padding: int, align: bool, dtype: str = "float32") -> Callable[[Any], Any]:
    """grid_sampler of a 7x7 ramp at (x, y) points."""
    return lambda L: L.grid_sampler(_image(L, dtype=dtype), _t(L, [[points]], dtype), mode, padding, align)


def _sampler_3d(points: list, mode: int, padding: int, align: bool) -> Callable[[Any], Any]:
    """grid_sampler of a 3x7x7 ramp at (x, y, z) points."""
    return lambda L: L.grid_sampler(_volume(L), _t(L, [[[points]]]), mode, padding, align)


# Far points: (x + 1) * 7 overflows float32 from ~4.9e37 (PyTorch's 2-D kernel scales by 3.5
# instead, so its coordinate stays finite up to ~9.7e37); 1e8 and 123456.7 land on reflection
# positions that depend on the kernel's fused multiply-subtract.
FAR = [[5e37, 0.1], [-5e37, 0.3], [1e38, 0.1], [3e38, -0.2], [INF, 0.1], [-INF, 0.4], [1e8, 2e8], [123456.7, -0.5], [0.2, 1.15356456e8]]

CASES: Dict[str, Callable[[Any], Any]] = {
    "affine_grid_cancellation_f32": lambda L: L.nn.functional.affine_grid(_t(L, THETA_107), [2, 1, 3, 2], align_corners=False),
    "affine_grid_cancellation_f32_aligned": lambda L: L.nn.functional.affine_grid(_t(L, THETA_107), [2, 1, 5, 4], align_corners=True),
    "affine_grid_cancellation_f64": lambda L: L.nn.functional.affine_grid(_t(L, THETA_107, "float64"), [2, 1, 3, 2], align_corners=False),
    "affine_grid_3d_f32": lambda L: L.nn.functional.affine_grid(
        _t(L, np.array(THETA_107).reshape(-1)[:12].reshape(1, 3, 4)), [1, 1, 2, 3, 4], align_corners=False
    ),
    # Seed 107's grid_sampler cases: extreme input and grid values, bicubic, zeros padding.
    "grid_sampler_bicubic_zeros_extreme_seed107": lambda L: L.grid_sampler(
        _t(L, np.random.default_rng(1365).uniform(-3, 3, (1, 1, 4, 7)) * 1e37),
        _t(L, [[[[5.1e37, 0.2], [-0.3, 6e37]], [[1e-43, 0.5], [2.5e37, -8e37]]]]),
        2,
        0,
        False,
    ),
}
for _mode in (0, 1, 2):
    for _pad in (0, 1, 2):
        for _align in (False, True):
            CASES[f"grid_sampler_far_m{_mode}_p{_pad}_a{int(_align)}"] = _sampler(FAR, _mode, _pad, _align)
        CASES[f"grid_sampler_far_f64_m{_mode}_p{_pad}"] = _sampler([[1e300, 0.1], [INF, 0.2], [1e8, -0.3]], _mode, _pad, False, "float64")
for _mode in (0, 1):
    for _pad in (0, 1, 2):
        # The 3-D kernel: (x + 1) * 7 overflows to inf; an outside corner is skipped (0, not
        # 0 * NaN), and a NaN clipped coordinate goes to size - 1.
        CASES[f"grid_sampler_3d_far_m{_mode}_p{_pad}"] = _sampler_3d([[5e37, 0.1, 0.2], [INF, -0.5, 0.0], [-INF, 0.3, 0.9]], _mode, _pad, False)


@pytest.mark.parametrize("name", sorted(CASES))
def test_seed107_case_matches_torch(name: str) -> None:
    """Each case gives PyTorch's dtype, shape, NaN/inf positions and values."""
    assert_same_outcome(CASES[name], RTOL)
