"""Losses that own their output projection: AdaptiveLogSoftmaxWithLoss (a head over frequent
classes plus low-rank clusters for the rare ones) and LinearCrossEntropyLoss (a Linear layer
followed by cross entropy)."""

from __future__ import annotations

import math
from collections import namedtuple
from typing import Any, Optional, Sequence, Tuple

from ... import _core
from .. import _functional_loss as FL
from .container import ModuleList, Sequential
from .linear import Linear
from .loss import _WeightedLoss
from .module import Module

Tensor = _core.Tensor

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    """Efficient softmax for many classes: classes below ``cutoffs[0]`` are scored by the head,
    each later range by a cluster whose input is projected down by ``div_value`` per level.

    ``forward(input, target)`` returns ``(output, loss)``: each sample's log-probability of its
    target, and their negated mean."""

    def __init__(self, in_features: int, n_classes: int, cutoffs: Sequence[int], div_value: float = 4.0, head_bias: bool = False, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1 or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs):
            raise ValueError(
                "cutoffs should be a sequence of unique, positive integers sorted in an increasing order, where each value is between 1 and n_classes-1"
            )
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, device=device, dtype=dtype)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (i + 1)))
            width = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(Sequential(Linear(in_features, hidden, bias=False, device=device, dtype=dtype), Linear(hidden, width, bias=False, device=device, dtype=dtype)))

    def reset_parameters(self) -> None:
        """Re-initializes the head and every cluster projection."""
        self.head.reset_parameters()
        for down, up in self.tail:
            down.reset_parameters()
            up.reset_parameters()

    def forward(self, input_: Tensor, target_: Tensor) -> Tuple[Tensor, Tensor]:
        # Checked in PyTorch's order: the target's rank decides what the input must be.
        name = "AdaptiveLogSoftmaxWithLoss"
        if target_.ndim == 1:
            if input_.ndim == 0 or input_.shape[0] != target_.shape[0]:
                raise RuntimeError(f"{name}: Input and target should have the same size in the batch dimension.")
            if input_.ndim != 2:
                raise RuntimeError(f"{name}: 1D target tensor expects 2D input tensors, but found inputs with size {list(input_.shape)}")
        elif target_.ndim == 0:
            if input_.ndim != 1:
                raise RuntimeError(f"{name}: 0D target tensor expects 1D input tensors, but found inputs with size {list(input_.shape)}")
        else:
            raise RuntimeError(f"{name}: 0D or 1D target tensor expected, multi-target not supported")
        batched = target_.ndim == 1
        x = input_ if batched else input_.unsqueeze(0)
        target = target_ if batched else target_.unsqueeze(0)
        n = target.shape[0]
        if n and bool(((target < 0) | (target >= self.n_classes)).any()):
            raise RuntimeError(
                f"{name}: Target values should be in [0, {self.n_classes - 1}], but values in range "
                f"[{int(target.min().item())}, {int(target.max().item())}] were found. "
            )
        # Each sample's column in the head: its own class if frequent, else its cluster's slot.
        head_column = target.clone()
        output = _core.zeros((n,), dtype=x.dtype)
        for i in range(self.n_clusters):
            low, high = self.cutoffs[i], self.cutoffs[i + 1]
            rows = ((target >= low) & (target < high)).nonzero().reshape(-1)
            if rows.numel() == 0:
                continue
            head_column = head_column.index_fill(0, rows, self.shortlist_size + i)
            cluster_logp = self.tail[i](x.index_select(0, rows)).log_softmax(1)
            local = cluster_logp.gather(1, (target.index_select(0, rows) - low).unsqueeze(1)).squeeze(1)
            output = output.index_add(0, rows, local)
        head_logp = self.head(x).log_softmax(1)
        output = output + head_logp.gather(1, head_column.unsqueeze(1)).reshape(-1)
        loss = (-output).mean()
        return _ASMoutput(output if batched else output.squeeze(0), loss)

    def _full_log_prob(self, input: Tensor, head_output: Tensor) -> Tensor:
        head_logp = head_output.log_softmax(1)
        parts = [head_logp[:, : self.shortlist_size]]
        for i, cluster in enumerate(self.tail):
            parts.append(cluster(input).log_softmax(1) + head_logp[:, self.shortlist_size + i].unsqueeze(1))
        return _core.cat(parts, 1)

    def log_prob(self, input: Tensor) -> Tensor:
        """Log-probabilities of every class, [N, n_classes] (or [n_classes] unbatched)."""
        x = input if input.ndim == 2 else input.unsqueeze(0)
        out = self._full_log_prob(x, self.head(x))
        return out if input.ndim == 2 else out.squeeze(0)

    def predict(self, input: Tensor) -> Tensor:
        """The most likely class of each sample (same as ``log_prob(input).argmax(1)``)."""
        x = input if input.ndim == 2 else input.unsqueeze(0)
        out = self._full_log_prob(x, self.head(x)).argmax(1)
        return out if input.ndim == 2 else out.squeeze(0)


class LinearCrossEntropyLoss(_WeightedLoss):
    """A Linear projection to ``num_classes`` (times ``out_features``) logits followed by cross
    entropy; the projection's weight is stored flat, as ``linear.weight``."""

    def __init__(self, in_features: int, num_classes: int, *, out_features: Tuple[int, ...] = (), bias: bool = False, device: Any = None, dtype: Any = None, reduction: str = "mean", weight: Optional[Tensor] = None, ignore_index: Optional[int] = None, label_smoothing: float = 0.0, options: Any = None) -> None:
        if weight is not None and tuple(weight.shape) != (num_classes,):
            raise RuntimeError(f"LinearCrossEntropyLoss: expected weight shape to be {(num_classes,)}, got {tuple(weight.shape)}")
        if not 0 <= label_smoothing <= 1.0:
            raise RuntimeError(f"LinearCrossEntropyLoss: expected label_smoothing to be in range [0, 1], got {label_smoothing}")
        super().__init__(weight, None, None, reduction)
        self.num_classes = num_classes
        self.out_features = out_features
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing
        # Linear keeps a 2-D weight; forward views it as [C, *out_features, in_features].
        self.linear = Linear(in_features, math.prod(out_features, start=num_classes), bias=bias, device=device, dtype=dtype)
        self.options = options

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        shape = (self.num_classes, *self.out_features)
        weight = self.linear.weight.reshape(shape + (self.linear.in_features,))
        bias = self.linear.bias.reshape(shape) if self.linear.bias is not None else None
        return FL.linear_cross_entropy(input, weight, target, linear_bias=bias, weight=self.weight, reduction=self.reduction, ignore_index=self.ignore_index, label_smoothing=self.label_smoothing, options=self.options)

    def extra_repr(self) -> str:
        return (
            f"in_features={self.linear.in_features}, num_classes={self.num_classes}, out_features={self.out_features}, "
            f"bias={self.linear.bias is not None}, reduction={self.reduction}, ignore_index={self.ignore_index}, "
            f"label_smoothing={self.label_smoothing}, options={self.options}"
        )


__all__ = ["AdaptiveLogSoftmaxWithLoss", "LinearCrossEntropyLoss"]
