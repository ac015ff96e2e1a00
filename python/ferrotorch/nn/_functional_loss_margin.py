"""Margin, ranking and embedding losses of ``ferrotorch.nn.functional`` (hinge-style losses
over scores, pairs and triplets), composed of differentiable ferrotorch ops."""

from __future__ import annotations

from typing import Any, Callable, Optional

import ferrotorch as _ft

from .. import _core
from .._op_entry import op_entry
from ._functional_loss import _check_broadcast, _check_reduction, _dtype_name, _reduce, _resolve, _zero

Tensor = _core.Tensor


@op_entry("multi_margin_loss")
def multi_margin_loss(input: Tensor, target: Tensor, p: int = 1, margin: float = 1.0, weight: Optional[Tensor] = None, size_average: Optional[bool] = None, reduce: Optional[bool] = None, reduction: str = "mean") -> Tensor:
    """Multi-class hinge: sum over j != y of w[y] max(0, margin - x[y] + x[j])^p, over C."""
    reduction = _resolve(size_average, reduce, reduction)
    _check_reduction(reduction)
    if p not in (1, 2):
        raise ValueError("multi_margin_loss: only p == 1 and p == 2 supported")
    if weight is not None and weight.ndim != 1:
        raise ValueError("multi_margin_loss: weight must be one-dimensional")
    if input.ndim > 2 or (input.ndim == 2 and input.shape[1] == 0):
        raise RuntimeError(f"multi_margin_loss: Expected non-empty vector or matrix with optional 0-dim batch size, but got: {list(input.shape)}")
    x = input.reshape(1, -1) if input.ndim < 2 else input
    t = target.reshape(-1)
    n, c = x.shape
    if t.shape[0] != n or target.ndim > 1:
        raise RuntimeError(
            "multi_margin_loss: target tensor should be 1-D with size equal to the number of input samples (batch size). "
            f"Expected target size [{n}], but got {list(target.shape)}. Input has shape {list(input.shape)}."
        )
    if t.numel() and bool(((t < 0) | (t >= c)).any()):
        raise RuntimeError(f"multi_margin_loss: target out of range (input of size {list(input.shape)})")
    xy = x.gather(1, t.unsqueeze(1))
    h = (margin - xy + x).clamp_min(0.0)
    if p == 2:
        h = h * h
    if weight is not None:
        h = h * weight.to(x.dtype).index_select(0, t).unsqueeze(1)
    others = (t.unsqueeze(1) != _core.arange(c).unsqueeze(0)).to(x.dtype)
    loss = (h * others).sum(1) / c
    if reduction == "none":
        return loss.reshape(target.shape) if input.ndim < 2 else loss
    return _reduce(loss, reduction)


@op_entry("multilabel_margin_loss")
def multilabel_margin_loss(input: Tensor, target: Tensor, size_average: Optional[bool] = None, reduce: Optional[bool] = None, reduction: str = "mean") -> Tensor:
    """Multi-label hinge: ``target`` lists each sample's classes, ended by the first -1; the loss
    sums max(0, 1 - (x[j] - x[i])) over listed j and unlisted i, over C."""
    reduction = _resolve(size_average, reduce, reduction)
    _check_reduction(reduction)
    if input.ndim > 2 or tuple(target.shape) != tuple(input.shape):
        raise RuntimeError(f"multilabel_margin_loss: inconsistent target size: {list(target.shape)} for input of size: {list(input.shape)}")
    x = input.reshape(1, -1) if input.ndim < 2 else input
    t = target.reshape(x.shape).long()
    c = x.shape[1]
    if t.numel() and bool(((t < -1) | (t >= c)).any()):
        raise RuntimeError(f"multilabel_margin_loss: argument #2 'target' is out of range (input of size {list(input.shape)})")
    listed = (t >= 0).long().cumprod(1).bool()  # positions before the first -1
    safe = _ft.where(listed, t, 0)
    is_target = ((safe.unsqueeze(2) == _core.arange(c).reshape(1, 1, c)) & listed.unsqueeze(2)).any(1)
    xj = x.gather(1, safe)
    h = (1 - (xj.unsqueeze(2) - x.unsqueeze(1))).clamp_min(0.0)
    mask = (listed.unsqueeze(2) & (~is_target).unsqueeze(1)).to(x.dtype)
    loss = (h * mask).sum((1, 2)) / c
    if reduction == "none":
        return loss.reshape(()) if input.ndim < 2 else loss
    return _reduce(loss, reduction)


def multilabel_soft_margin_loss(input: Tensor, target: Tensor, weight: Optional[Tensor] = None, size_average: Optional[bool] = None, reduce: Optional[bool] = None, reduction: str = "mean") -> Tensor:
    """Per-class logistic loss, averaged over the classes (last dim) of each sample."""
    reduction = _resolve(size_average, reduce, reduction)
    _check_reduction(reduction)
    _check_broadcast("multilabel_soft_margin_loss", input, target)
    loss = target * _core._softplus(-input, 1.0, 20.0) + (1 - target) * _core._softplus(input, 1.0, 20.0)
    if weight is not None:
        loss = loss * weight
    loss = loss.sum(input.ndim - 1) / input.shape[-1]
    return _reduce(loss, reduction)


@op_entry("soft_margin_loss")
def soft_margin_loss(input: Tensor, target: Tensor, size_average: Optional[bool] = None, reduce: Optional[bool] = None, reduction: str = "mean") -> Tensor:
    """Two-class logistic loss log(1 + exp(-y x)) for targets y of +1 / -1."""
    reduction = _resolve(size_average, reduce, reduction)
    _check_reduction(reduction)
    _check_broadcast("soft_margin_loss", input, target)
    if input.dtype == _core.bool:
        raise NotImplementedError("soft_margin_loss: Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.")
    if not input.dtype.is_floating_point:
        # The loss is computed in floating point and written in the input's dtype.
        common = _ft.promote_types(_ft.promote_types(input.dtype, target.dtype), _ft.get_default_dtype())
        raise RuntimeError(f"result type {_dtype_name(common)} can't be cast to the desired output type {_dtype_name(input.dtype)}")
    target = target.to(_ft.promote_types(input.dtype, target.dtype))  # a bool target is +1 / 0
    loss = _core._softplus(-target * input, 1.0, 20.0)
    if input.dtype.is_floating_point and loss.dtype != input.dtype:
        # PyTorch's result keeps the input's dtype, whatever the target's.
        loss = loss.to(input.dtype)
    return _reduce(loss, reduction)


@op_entry("cosine_embedding_loss")
def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0, size_average: Optional[bool] = None, reduce: Optional[bool] = None, reduction: str = "mean") -> Tensor:
    """1 - cos(x1, x2) where target is 1, max(0, cos(x1, x2) - margin) where it is -1."""
    reduction = _resolve(size_average, reduce, reduction)
    _check_reduction(reduction)
    if target.ndim > 1:
        raise RuntimeError(f"cosine_embedding_loss: 0D or 1D target tensor expected, multi-target not supported (got target: {list(target.shape)})")
    want = target.ndim + 1
    if input1.ndim != want or input2.ndim != want:
        raise RuntimeError(
            f"cosine_embedding_loss: {target.ndim}D target tensor expects {want}D input tensors, but found inputs with sizes "
            f"{list(input1.shape)} and {list(input2.shape)}."
        )
    _check_broadcast("cosine_embedding_loss", input1, input2, ("input1", "input2"))
    eps = 1e-12
    dim = input1.ndim - 1
    dot = (input1 * input2).sum(dim)
    norms = (((input1 * input1).sum(dim) + eps) * ((input2 * input2).sum(dim) + eps)).sqrt()
    cos = dot / norms
    zero = _zero(cos)
    loss = _ft.where(target == 1, 1 - cos, zero) + _ft.where(target == -1, (cos - margin).clamp_min(0.0), zero)
    return _reduce(loss, reduction)


@op_entry("hinge_embedding_loss")
def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0, size_average: Optional[bool] = None, reduce: Optional[bool] = None, reduction: str = "mean") -> Tensor:
    """x where target is 1, max(0, margin - x) where it is -1."""
    reduction = _resolve(size_average, reduce, reduction)
    _check_reduction(reduction)
    if input.is_complex():
        # PyTorch clamps margin - input before it broadcasts anything.
        raise NotImplementedError("hinge_embedding_loss: clamp is not supported for complex types")
    if input.dtype == _ft.bool:
        # PyTorch's first step, margin - input, fails on a bool input before any shape check.
        raise NotImplementedError(
            "hinge_embedding_loss: Subtraction, the `-` operator, with two bool tensors is not supported. "
            "Use the `^` or `logical_xor()` operator instead."
        )
    _check_broadcast("hinge_embedding_loss", input, target)
    floor: Any = 0.0
    if not (input.is_floating_point() or input.is_complex()):
        margin, floor = int(margin), 0  # PyTorch computes in the input's (integer) dtype
    zero = _zero(input)
    loss = _ft.where(target != -1, input, zero) + _ft.where(target != 1, (margin - input).clamp_min(floor), zero)
    return _reduce(loss, reduction)


@op_entry("margin_ranking_loss")
def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0, size_average: Optional[bool] = None, reduce: Optional[bool] = None, reduction: str = "mean") -> Tensor:
    """max(0, -y (x1 - x2) + margin): ``y`` = 1 asks for x1 to rank above x2."""
    reduction = _resolve(size_average, reduce, reduction)
    _check_reduction(reduction)
    if not (input1.ndim == input2.ndim == target.ndim):
        raise RuntimeError(
            f"margin_ranking_loss: All input tensors should have same dimension but got sizes: input1: {_ft.Size(input1.shape)}, "
            f"input2: {_ft.Size(input2.shape)}, target: {_ft.Size(target.shape)} "
        )
    _check_broadcast("margin_ranking_loss", input1, input2, ("input1", "input2"))
    _check_broadcast("margin_ranking_loss", input1 - input2, target, ("input1 - input2", "target"))
    return _reduce((-target * (input1 - input2) + margin).clamp_min(0.0), reduction)


def _pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    return (x1 - x2 + eps).norm(p, -1, keepdim)


def _triplet_dims(op: str, anchor: Tensor, positive: Tensor, negative: Tensor) -> None:
    a, p, n = anchor.ndim, positive.ndim, negative.ndim
    if not (a == p == n):
        raise RuntimeError(
            f"{op}: The anchor, positive, and negative tensors are expected to have the same number of dimensions, but got: "
            f"anchor {a}D, positive {p}D, and negative {n}D inputs"
        )


@op_entry("triplet_margin_loss")
def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0, p: float = 2, eps: float = 1e-6, swap: bool = False, size_average: Optional[bool] = None, reduce: Optional[bool] = None, reduction: str = "mean") -> Tensor:
    """max(0, margin + d(a, p) - d(a, n)) with the p-norm pairwise distance; ``swap`` uses
    min(d(a, n), d(p, n)) as the negative distance."""
    reduction = _resolve(size_average, reduce, reduction)
    _check_reduction(reduction)
    _triplet_dims("triplet_margin_loss", anchor, positive, negative)
    d_pos = _pairwise_distance(anchor, positive, p, eps)
    d_neg = _pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = _ft.minimum(d_neg, _pairwise_distance(positive, negative, p, eps))
    return _reduce((margin + d_pos - d_neg).clamp_min(0.0), reduction)


def triplet_margin_with_distance_loss(anchor: Tensor, positive: Tensor, negative: Tensor, *, distance_function: Optional[Callable[[Tensor, Tensor], Tensor]] = None, margin: float = 1.0, swap: bool = False, reduction: str = "mean") -> Tensor:
    """max(0, margin + d(a, p) - d(a, n)) for any ``distance_function`` (default: the
    Euclidean pairwise distance)."""
    _check_reduction(reduction)
    if margin <= 0:
        raise ValueError(f"triplet_margin_with_distance_loss: margin must be greater than 0, got {margin}")
    _triplet_dims("triplet_margin_with_distance_loss", anchor, positive, negative)
    dist = distance_function if distance_function is not None else _pairwise_distance
    d_pos = dist(anchor, positive)
    d_neg = dist(anchor, negative)
    if swap:
        d_neg = _ft.minimum(d_neg, dist(positive, negative))
    return _reduce((margin + d_pos - d_neg).clamp_min(0.0), reduction)
