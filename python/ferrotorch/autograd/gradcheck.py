"""Finite-difference checks of gradients (``gradcheck``) and of second derivatives
(``gradgradcheck``), in float64 as PyTorch recommends."""

from __future__ import annotations

import random
from typing import Any, Callable, List, Optional, Sequence, Tuple

from .. import _core

Tensor = _core.Tensor


class GradcheckError(RuntimeError):
    """Raised when analytical and numerical gradients disagree."""


def _as_tuple(x: Any) -> Tuple[Any, ...]:
    return x if isinstance(x, tuple) else (x,)


def _differentiable(t: Any) -> bool:
    return isinstance(t, Tensor) and (t.dtype.is_floating_point or t.dtype.is_complex)


def _flat(t: Any) -> List[float]:
    """The values as real numbers; a complex tensor gives (re, im) of each element in turn."""
    t = t.detach()
    if t.dtype.is_complex:
        t = _core.view_as_real(t)
    return [float(v) for v in t.reshape(-1).tolist()]


def _with_value(t: Any, i: int, value: float) -> Any:
    vals = _flat(t)
    vals[i] = value
    if t.dtype.is_complex:
        out = _core.view_as_complex(_core.tensor(vals, dtype=t.dtype.to_real()).reshape(tuple(t.shape) + (2,)))
    else:
        out = _core.tensor(vals, dtype=t.dtype).reshape(t.shape)
    # Keep requires_grad: functions like gradgradcheck's vjp differentiate their inputs.
    return out.requires_grad_(t.requires_grad)


def _outputs_flat(func: Callable, inputs: Sequence[Any]) -> List[float]:
    out: List[float] = []
    for o in _as_tuple(func(*inputs)):
        if _differentiable(o):
            out.extend(_flat(o))
    return out


def _numerical_jacobian(func: Callable, inputs: Sequence[Any], idx: int, eps: float) -> List[List[float]]:
    x = inputs[idx]
    base = _flat(x)
    cols = []
    for i in range(len(base)):
        args = list(inputs)
        args[idx] = _with_value(x, i, base[i] + eps)
        plus = _outputs_flat(func, args)
        args[idx] = _with_value(x, i, base[i] - eps)
        minus = _outputs_flat(func, args)
        cols.append([(p - m) / (2 * eps) for p, m in zip(plus, minus)])
    return cols


def _one_hot(o: Any, j: int) -> Any:
    """The grad_output that selects real component ``j`` of ``o``'s flat values: for a complex
    output, 1 selects the real part of an element and 1j its imaginary part (PyTorch's
    convention, under which the input's gradient is then d/dre + i d/dim of that part)."""
    if not o.dtype.is_complex:
        onehot = [0.0] * o.numel()
        onehot[j] = 1.0
        return _core.tensor(onehot, dtype=o.dtype).reshape(o.shape)
    pairs = [0.0] * (2 * o.numel())
    pairs[j] = 1.0
    return _core.view_as_complex(_core.tensor(pairs, dtype=o.dtype.to_real()).reshape(tuple(o.shape) + (2,)))


def _analytical_jacobian(func: Callable, inputs: Sequence[Any]) -> List[List[List[float]]]:
    """jac[k][i][j] = d output_j / d input_k[i] by backward passes with one-hot grads
    (complex inputs and outputs count as their real and imaginary parts)."""
    from . import grad

    outputs = [o for o in _as_tuple(func(*inputs)) if _differentiable(o)]
    diff = [x for x in inputs if isinstance(x, Tensor) and x.requires_grad]
    sizes = [len(_flat(o)) for o in outputs]
    jac = [[[0.0] * sum(sizes) for _ in range(len(_flat(x)))] for x in diff]
    col = 0
    for o, size in zip(outputs, sizes):
        for j in range(size):
            if not o.requires_grad:
                col += 1
                continue
            grads = grad([o], diff, [_one_hot(o, j)], retain_graph=True, allow_unused=True)
            for k, gk in enumerate(grads):
                if gk is None:
                    continue
                for i, v in enumerate(_flat(gk)):
                    jac[k][i][col] = v
            col += 1
    return jac


def gradcheck(
    func: Callable[..., Any],
    inputs: Any,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    fast_mode: bool = False,
    masked: Optional[bool] = None,
) -> bool:
    """Compares gradients from backward with central finite differences.

    >>> import ferrotorch as torch
    >>> x = torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True)
    >>> torch.autograd.gradcheck(torch.sin, (x,))
    True
    """
    inputs = _as_tuple(inputs)
    diff_idx = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    if not diff_idx:
        raise ValueError("gradcheck expects at least one input tensor to require gradient")
    analytical = _analytical_jacobian(func, inputs)
    for k, idx in enumerate(diff_idx):
        numerical = _numerical_jacobian(func, inputs, idx, eps)
        for i, col in enumerate(numerical):
            for j, n in enumerate(col):
                a = analytical[k][i][j]
                if abs(a - n) > atol + rtol * abs(n):
                    msg = (
                        f"Jacobian mismatch for output {j} with respect to input {idx}, element {i}:\n"
                        f"numerical:{n}\nanalytical:{a}\n"
                    )
                    if raise_exception:
                        raise GradcheckError(msg)
                    return False
    return True


def gradgradcheck(
    func: Callable[..., Any],
    inputs: Any,
    grad_outputs: Optional[Any] = None,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    gen_non_contig_grad_outputs: bool = False,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    fast_mode: bool = False,
    masked: bool = False,
) -> bool:
    """Checks second derivatives: gradcheck of the function's vector-Jacobian product."""
    from . import grad

    inputs = _as_tuple(inputs)
    outputs = [o for o in _as_tuple(func(*inputs)) if isinstance(o, Tensor) and o.requires_grad]
    if grad_outputs is None:
        rng = random.Random(0)
        grad_outputs = tuple(
            _core.tensor([rng.uniform(-1, 1) for _ in range(o.numel())], dtype=o.dtype)
            .reshape(o.shape)
            .requires_grad_(True)
            for o in outputs
        )
    else:
        grad_outputs = _as_tuple(grad_outputs)
    n = len(inputs)

    def vjp(*args: Any) -> Tuple[Any, ...]:
        ins, gos = args[:n], args[n:]
        outs = [o for o in _as_tuple(func(*ins)) if isinstance(o, Tensor) and o.requires_grad]
        diff = [x for x in ins if isinstance(x, Tensor) and x.requires_grad]
        grads = grad(outs, diff, list(gos), create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(vjp, tuple(inputs) + tuple(grad_outputs), eps=eps, atol=atol, rtol=rtol, raise_exception=raise_exception)
