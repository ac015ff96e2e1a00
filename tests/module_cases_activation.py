"""Module table cases: every activation module of torch.nn, with each constructor argument.

In-place variants run behind a Linear layer (a leaf cannot be modified in place while it
requires grad), so the gradients through the in-place op are compared too."""

from __future__ import annotations

from typing import Any, Callable, List, Tuple

import numpy as np

from module_table import ModCase, one

F64 = "float64"


def extreme(dtype: Any = np.float32) -> Callable[[np.random.Generator], Tuple[np.ndarray]]:
    """Values where naive formulas overflow (+-1000, +-30, +-20 around softplus' threshold) and
    the break points of the piecewise activations (0, +-0.5, +-1, +-3, 6)."""
    vals = [-1000.0, -30.0, -20.5, -20.0, -19.5, -5.0, -3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0, 5.0, 6.0, 19.5, 20.0, 20.5, 30.0, 1000.0]
    return lambda rng: (np.array(vals, dtype=dtype).reshape(1, -1),)


def behind_linear(make_act: Callable[[Any], Any], n: int = 6) -> Callable[[Any], Any]:
    """Linear then the activation: an in-place activation then works on a non-leaf."""
    return lambda t: t.nn.Sequential(t.nn.Linear(n, n, dtype=t.float64), make_act(t))


def pointwise(name: str, make: Callable[[Any], Any], extremes: bool = True, rtol: float = 1e-4, atol: float = 1e-5) -> List[ModCase]:
    """The standard battery for an elementwise activation: float32, float64, 0-d, zero-size,
    unbatched, extreme values."""
    cases = [
        ModCase(name, make, one(3, 5)),
        ModCase(f"{name}-f64", make, one(2, 3, 4, dtype=F64), rtol=1e-7, atol=1e-9),
        ModCase(f"{name}-0d", make, one(dtype=F64), rtol=1e-7, atol=1e-9),
        ModCase(f"{name}-zero-size", make, one(0, 4)),
        ModCase(f"{name}-1d", make, one(7)),
    ]
    if extremes:
        cases += [
            ModCase(f"{name}-extreme", make, extreme(), rtol=rtol, atol=atol),
            ModCase(f"{name}-extreme-f64", make, extreme(F64), rtol=1e-7, atol=1e-9),
        ]
    return cases


def inplace(name: str, make: Callable[[Any], Any]) -> List[ModCase]:
    """The in-place form, behind a Linear layer (float64; unbatched and 0-size batch too)."""
    seq = behind_linear(make)
    return [
        ModCase(f"{name}-inplace", seq, one(4, 6, dtype=F64), rtol=1e-7, atol=1e-9),
        ModCase(f"{name}-inplace-unbatched", seq, one(6, dtype=F64), rtol=1e-7, atol=1e-9),
        ModCase(f"{name}-inplace-zero-batch", seq, one(0, 6, dtype=F64)),
    ]


CASES: List[ModCase] = [
    *pointwise("ReLU", lambda t: t.nn.ReLU()),
    *pointwise("ReLU-inplace-flag-false", lambda t: t.nn.ReLU(inplace=False), extremes=False),
    *inplace("ReLU", lambda t: t.nn.ReLU(inplace=True)),
    *pointwise("ReLU6", lambda t: t.nn.ReLU6()),
    *inplace("ReLU6", lambda t: t.nn.ReLU6(True)),
    *pointwise("LeakyReLU", lambda t: t.nn.LeakyReLU()),
    *pointwise("LeakyReLU-slope", lambda t: t.nn.LeakyReLU(0.2)),
    *pointwise("LeakyReLU-negative-slope", lambda t: t.nn.LeakyReLU(negative_slope=-0.5), extremes=False),
    *inplace("LeakyReLU", lambda t: t.nn.LeakyReLU(0.3, inplace=True)),
    *pointwise("ELU", lambda t: t.nn.ELU()),
    *pointwise("ELU-alpha", lambda t: t.nn.ELU(alpha=0.5)),
    *inplace("ELU", lambda t: t.nn.ELU(2.0, inplace=True)),
    *pointwise("CELU", lambda t: t.nn.CELU()),
    *pointwise("CELU-alpha", lambda t: t.nn.CELU(alpha=0.5)),
    *inplace("CELU", lambda t: t.nn.CELU(1.5, inplace=True)),
    *pointwise("SELU", lambda t: t.nn.SELU()),
    *inplace("SELU", lambda t: t.nn.SELU(inplace=True)),
    *pointwise("GELU", lambda t: t.nn.GELU()),
    *pointwise("GELU-tanh", lambda t: t.nn.GELU(approximate="tanh")),
    *pointwise("GELU-none-explicit", lambda t: t.nn.GELU("none"), extremes=False),
    *pointwise("SiLU", lambda t: t.nn.SiLU()),
    *inplace("SiLU", lambda t: t.nn.SiLU(inplace=True)),
    *pointwise("Mish", lambda t: t.nn.Mish()),
    *inplace("Mish", lambda t: t.nn.Mish(inplace=True)),
    *pointwise("Sigmoid", lambda t: t.nn.Sigmoid()),
    *pointwise("Tanh", lambda t: t.nn.Tanh()),
    *pointwise("Hardtanh", lambda t: t.nn.Hardtanh()),
    *pointwise("Hardtanh-range", lambda t: t.nn.Hardtanh(-2.0, 3.5)),
    *pointwise("Hardtanh-int-range", lambda t: t.nn.Hardtanh(min_val=-2, max_val=2), extremes=False),
    *inplace("Hardtanh", lambda t: t.nn.Hardtanh(-0.5, 0.5, inplace=True)),
    ModCase("Hardtanh-deprecated-names", lambda t: t.nn.Hardtanh(min_value=-0.3, max_value=0.7), one(3, 4, dtype=F64)),
    *pointwise("Threshold", lambda t: t.nn.Threshold(0.1, 20.0)),
    *pointwise("Threshold-negative", lambda t: t.nn.Threshold(-1.0, -3.0), extremes=False),
    *inplace("Threshold", lambda t: t.nn.Threshold(0.2, -1.0, inplace=True)),
    *pointwise("Hardsigmoid", lambda t: t.nn.Hardsigmoid()),
    *inplace("Hardsigmoid", lambda t: t.nn.Hardsigmoid(inplace=True)),
    *pointwise("Hardswish", lambda t: t.nn.Hardswish()),
    *inplace("Hardswish", lambda t: t.nn.Hardswish(inplace=True)),
    # x * relu6(x + 3) / 6 is -inf * 0 = NaN at -inf, and -0.0 below -3.
    ModCase("Hardswish-infinities", lambda t: t.nn.Hardswish(), lambda rng: (np.array([-np.inf, -5.0, -3.0, 0.0, 3.0, np.inf]),), backward=False),
    *pointwise("Softplus", lambda t: t.nn.Softplus()),
    *pointwise("Softplus-beta", lambda t: t.nn.Softplus(beta=2.0)),
    *pointwise("Softplus-beta-threshold", lambda t: t.nn.Softplus(beta=0.5, threshold=5.0)),
    *pointwise("Softplus-int-args", lambda t: t.nn.Softplus(3, 10), extremes=False),
    *pointwise("LogSigmoid", lambda t: t.nn.LogSigmoid()),
    *pointwise("Softsign", lambda t: t.nn.Softsign()),
    *pointwise("Tanhshrink", lambda t: t.nn.Tanhshrink()),
    *pointwise("Hardshrink", lambda t: t.nn.Hardshrink()),
    *pointwise("Hardshrink-lambd", lambda t: t.nn.Hardshrink(lambd=1.0)),
    *pointwise("Softshrink", lambda t: t.nn.Softshrink()),
    *pointwise("Softshrink-lambd", lambda t: t.nn.Softshrink(1.5)),
    # PReLU: one slope or one per channel (dim 1, or dim 0 of an unbatched 1-d input).
    ModCase("PReLU", lambda t: t.nn.PReLU(), one(3, 4)),
    ModCase("PReLU-channels", lambda t: t.nn.PReLU(4, init=0.1), one(2, 4, 3, 3)),
    ModCase("PReLU-channels-2d", lambda t: t.nn.PReLU(num_parameters=5), one(3, 5)),
    ModCase("PReLU-1d", lambda t: t.nn.PReLU(1, init=0.6), one(5)),
    ModCase("PReLU-f64", lambda t: t.nn.PReLU(3, 0.5, dtype=t.float64, device="cpu"), one(2, 3, 4, dtype=F64), rtol=1e-7, atol=1e-9),
    ModCase("PReLU-0d", lambda t: t.nn.PReLU(dtype=t.float64), one(dtype=F64), rtol=1e-7, atol=1e-9),
    ModCase("PReLU-zero-batch", lambda t: t.nn.PReLU(4), one(0, 4, 2)),
    ModCase("PReLU-extreme", lambda t: t.nn.PReLU(init=-0.3, dtype=t.float64), extreme(F64), rtol=1e-7, atol=1e-9),
    # RReLU: random slopes in training (only shapes compared), their mean in eval.
    ModCase("RReLU", lambda t: t.nn.RReLU(), one(3, 5), random_train=True),
    ModCase("RReLU-bounds", lambda t: t.nn.RReLU(0.1, 0.3), one(2, 3, 4, dtype=F64), random_train=True, rtol=1e-7, atol=1e-9),
    ModCase("RReLU-equal-bounds", lambda t: t.nn.RReLU(lower=0.2, upper=0.2), one(4, 5, dtype=F64), rtol=1e-7, atol=1e-9),
    ModCase("RReLU-eval-0d", lambda t: t.nn.RReLU(0.05, 0.5), one(dtype=F64), modes=("eval",)),
    ModCase("RReLU-zero-size", lambda t: t.nn.RReLU(), one(0, 3), random_train=True),
    ModCase("RReLU-inplace", behind_linear(lambda t: t.nn.RReLU(0.1, 0.4, inplace=True)), one(4, 6, dtype=F64), random_train=True),
    # Softmax family: explicit dims, negative dims, and dim=None (the implicit-dim rule).
    ModCase("Softmax-dim1", lambda t: t.nn.Softmax(dim=1), one(3, 5)),
    ModCase("Softmax-dim-neg", lambda t: t.nn.Softmax(-1), one(2, 3, 4, dtype=F64), rtol=1e-7, atol=1e-9),
    ModCase("Softmax-dim0", lambda t: t.nn.Softmax(0), one(4, 3)),
    ModCase("Softmax-0d", lambda t: t.nn.Softmax(0), one(dtype=F64)),
    ModCase("Softmax-zero-batch", lambda t: t.nn.Softmax(1), one(0, 5)),
    ModCase("Softmax-extreme", lambda t: t.nn.Softmax(1), extreme(F64), rtol=1e-7, atol=1e-9),
    ModCase("Softmax-none-0d", lambda t: t.nn.Softmax(), one(dtype=F64)),
    ModCase("Softmax-none-1d", lambda t: t.nn.Softmax(), one(5)),
    ModCase("Softmax-none-2d", lambda t: t.nn.Softmax(), one(3, 4)),
    ModCase("Softmax-none-3d", lambda t: t.nn.Softmax(), one(2, 3, 4)),
    ModCase("Softmax-none-4d", lambda t: t.nn.Softmax(), one(2, 3, 2, 2)),
    ModCase("LogSoftmax-dim1", lambda t: t.nn.LogSoftmax(dim=1), one(3, 5)),
    ModCase("LogSoftmax-dim-neg", lambda t: t.nn.LogSoftmax(-2), one(2, 3, 4, dtype=F64), rtol=1e-7, atol=1e-9),
    ModCase("LogSoftmax-extreme", lambda t: t.nn.LogSoftmax(1), extreme(F64), rtol=1e-7, atol=1e-9),
    ModCase("LogSoftmax-zero-batch", lambda t: t.nn.LogSoftmax(1), one(0, 5)),
    ModCase("LogSoftmax-none-3d", lambda t: t.nn.LogSoftmax(), one(2, 3, 4)),
    ModCase("LogSoftmax-none-4d", lambda t: t.nn.LogSoftmax(), one(2, 3, 2, 2, dtype=F64), rtol=1e-7, atol=1e-9),
    ModCase("Softmin-dim1", lambda t: t.nn.Softmin(dim=1), one(3, 5)),
    ModCase("Softmin-dim0-f64", lambda t: t.nn.Softmin(0), one(4, 3, dtype=F64), rtol=1e-7, atol=1e-9),
    ModCase("Softmin-extreme", lambda t: t.nn.Softmin(-1), extreme(F64), rtol=1e-7, atol=1e-9),
    ModCase("Softmin-none-2d", lambda t: t.nn.Softmin(), one(3, 4)),
    ModCase("Softmin-none-3d", lambda t: t.nn.Softmin(), one(2, 3, 4, dtype=F64), rtol=1e-7, atol=1e-9),
    ModCase("Softmax2d", lambda t: t.nn.Softmax2d(), one(2, 3, 4, 5)),
    ModCase("Softmax2d-unbatched", lambda t: t.nn.Softmax2d(), one(3, 4, 5, dtype=F64), rtol=1e-7, atol=1e-9),
    ModCase("Softmax2d-zero-batch", lambda t: t.nn.Softmax2d(), one(0, 3, 2, 2)),
    # GLU halves a dim: the default last one, or any other.
    ModCase("GLU", lambda t: t.nn.GLU(), one(3, 6)),
    ModCase("GLU-dim1", lambda t: t.nn.GLU(dim=1), one(2, 4, 3, dtype=F64), rtol=1e-7, atol=1e-9),
    ModCase("GLU-dim0", lambda t: t.nn.GLU(0), one(4, 3)),
    ModCase("GLU-1d", lambda t: t.nn.GLU(), one(8)),
    ModCase("GLU-zero-batch", lambda t: t.nn.GLU(), one(0, 4)),
    ModCase("GLU-extreme", lambda t: t.nn.GLU(0), lambda rng: (np.array([[-1000.0, 30.0], [1000.0, -30.0]]),), rtol=1e-7, atol=1e-9),
]

# Invalid inputs: PyTorch's exception class and message (bool and integer inputs, a dtype
# mismatch).
_ERR = {"modes": ("eval",)}


def _bools(rng: np.random.Generator) -> Tuple[np.ndarray]:
    return (rng.standard_normal((2, 3)) > 0,)


def _ints(*shape: int) -> Callable[[np.random.Generator], Tuple[np.ndarray]]:
    return lambda rng: (rng.integers(-5, 5, shape),)


CASES += [
    ModCase("ReLU-error-bool", lambda t: t.nn.ReLU(), _bools, error=NotImplementedError, **_ERR),
    ModCase("ReLU6-error-bool", lambda t: t.nn.ReLU6(), _bools, error=NotImplementedError, **_ERR),
    ModCase("Hardtanh-error-bool", lambda t: t.nn.Hardtanh(), _bools, error=NotImplementedError, **_ERR),
    ModCase("Threshold-error-bool", lambda t: t.nn.Threshold(0.5, 2.0), _bools, error=NotImplementedError, **_ERR),
    ModCase("GLU-error-odd-int", lambda t: t.nn.GLU(0), _ints(5), error=RuntimeError, **_ERR),
    ModCase("PReLU-error-dtype", lambda t: t.nn.PReLU(), one(2, 3, dtype=F64), error=RuntimeError, **_ERR),
]
