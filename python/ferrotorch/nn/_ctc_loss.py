"""Connectionist temporal classification loss: the alpha (forward) and beta (backward)
recursions in log space over the blank-interleaved targets, written with ferrotorch ops and
joined in one autograd Function whose backward is PyTorch's CTC gradient."""

from __future__ import annotations

from typing import Any, List, Sequence, Union

import ferrotorch as _ft

from .. import _core
from .._op_entry import op_entry

Tensor = _core.Tensor
Lengths = Union[Tensor, Sequence[int], int]


def _as_list(lengths: Lengths, n: int, what: str) -> List[int]:
    if isinstance(lengths, Tensor):
        if lengths.dtype.is_floating_point:
            raise RuntimeError(f"ctc_loss: {what} must be integral, got {lengths.dtype}")
        out = lengths.reshape(-1).tolist()
    elif isinstance(lengths, int):
        out = [lengths]
    else:
        out = [int(v) for v in lengths]
    if len(out) != n:
        raise RuntimeError(f"ctc_loss: {what} must be of size batch_size ({n}), got {len(out)}")
    return out


def _logsumexp3(a: Tensor, b: Tensor, c: Tensor) -> Tensor:
    """log(e^a + e^b + e^c), -inf where all three are -inf (no gradient flows through it)."""
    return _core.stack([a, b, c], 0).logsumexp(0)


def _padded_targets(targets: Tensor, target_lengths: List[int]) -> Tensor:
    """[N, S] class indices from padded [N, S] or concatenated 1-D targets."""
    if targets.ndim == 2:
        return targets.long()
    width = max(target_lengths, default=0)
    rows, start = [], 0
    for length in target_lengths:
        row = targets[start : start + length].long()
        start += length
        if length < width:
            row = _core.cat([row, _core.zeros((width - length,), dtype=_core.int64)], 0)
        rows.append(row)
    return _core.stack(rows, 0) if rows else _core.zeros((0, 0), dtype=_core.int64)


class _Lattice:
    """The blank-interleaved targets of a batch: blank, l1, blank, l2, ..., blank (width 2S+1),
    which positions may be entered by skipping one back, and where each sample's paths end."""

    def __init__(self, labels: Tensor, tg_lens: List[int], in_lens: List[int], blank: int, dtype: Any) -> None:
        n = labels.shape[0]
        s_max = labels.shape[1] if labels.ndim == 2 else 0
        self.width = 2 * s_max + 1
        self.ext = _core.full((n, self.width), blank, dtype=_core.int64)
        if s_max:
            self.ext[:, 1::2] = labels
        # A skip from s-2 to s is allowed onto a label that differs from the label two back.
        prev2 = _core.cat([_core.full((n, 2), blank, dtype=_core.int64), self.ext[:, :-2]], 1)
        self.skip = (self.ext != blank) & (self.ext != prev2)
        last = _ft.tensor([2 * tl for tl in tg_lens], dtype=_core.int64).unsqueeze(1)
        positions = _ft.arange(self.width).unsqueeze(0)
        self.end = (positions == last) | ((positions == last - 1) & (last > 0))
        self.steps = _ft.tensor(in_lens, dtype=_core.int64).unsqueeze(1)
        self.neg_inf = _core.full((), float("-inf"), dtype=dtype)
        self.pad1 = _core.full((n, 1), float("-inf"), dtype=dtype)
        self.pad2 = _core.full((n, 2), float("-inf"), dtype=dtype)


class _CTCNegLogLikelihood(_ft.autograd.Function):
    """Per-sample -log p(target | log_probs): alpha recursion forward, beta recursion backward.

    The backward is PyTorch's: exp(log_probs) minus the label occupancies over each sample's
    valid steps (the first term cancels through the log_softmax that precedes this loss)."""

    @staticmethod
    def forward(ctx: Any, log_probs: Tensor, labels: Tensor, in_lens: List[int], tg_lens: List[int], blank: int, zero_infinity: bool) -> Tensor:
        t_max, n, _ = log_probs.shape
        g = _Lattice(labels, tg_lens, in_lens, blank, log_probs.dtype)
        lp = log_probs.gather(2, g.ext.unsqueeze(0).expand(t_max, n, g.width))
        alpha = _ft.where((_ft.arange(g.width) < 2).unsqueeze(0), lp[0], g.neg_inf)
        alphas = [alpha]
        for t in range(1, t_max):
            one_back = _core.cat([g.pad1, alpha[:, :-1]], 1)
            two_back = _ft.where(g.skip, _core.cat([g.pad2, alpha[:, :-2]], 1), g.neg_inf)
            alpha = _ft.where(g.steps > t, lp[t] + _logsumexp3(alpha, one_back, two_back), alpha)
            alphas.append(alpha)
        # Paths end on the last label or on the blank after it.
        nll = -_ft.where(g.end, alpha, g.neg_inf).logsumexp(1)
        # An empty input (length 0) can only produce an empty target.
        zero_len = _ft.tensor([il == 0 for il in in_lens])
        empty = _ft.tensor([tl == 0 for tl in tg_lens])
        nll = _ft.where(zero_len & empty, _core.zeros((), dtype=nll.dtype), _ft.where(zero_len, -g.neg_inf, nll))
        ctx.save_for_backward(log_probs, lp, _core.stack(alphas, 0), nll)
        ctx.lattice, ctx.zero_infinity = g, zero_infinity
        return nll

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Any:
        log_probs, lp, alphas, nll = ctx.saved_tensors
        g: _Lattice = ctx.lattice
        t_max, n, _ = log_probs.shape
        skip_ahead = _core.cat([g.skip[:, 2:], _core.zeros((n, 2), dtype=_core.bool)], 1)
        beta = _core.full((n, g.width), float("-inf"), dtype=lp.dtype)
        betas = [beta] * t_max
        for t in range(t_max - 1, -1, -1):
            one_ahead = _core.cat([beta[:, 1:], g.pad1], 1)
            two_ahead = _ft.where(skip_ahead, _core.cat([beta[:, 2:], g.pad2], 1), g.neg_inf)
            inner = lp[t] + _logsumexp3(beta, one_ahead, two_ahead)
            start = _ft.where(g.end, lp[t], g.neg_inf)
            beta = _ft.where(g.steps - 1 == t, start, _ft.where(g.steps - 1 > t, inner, g.neg_inf))
            betas[t] = beta
        # Occupancy of each lattice position: alpha beta / (y p), summed per class.
        occupancy = (alphas + _core.stack(betas, 0) - lp + nll.reshape(1, n, 1)).exp()
        index = g.ext.unsqueeze(0).expand(t_max, n, g.width)
        per_class = _core.zeros(tuple(log_probs.shape), dtype=log_probs.dtype).scatter_add(2, index, occupancy)
        valid = (_ft.arange(t_max).unsqueeze(1) < g.steps.reshape(1, n)).to(log_probs.dtype).unsqueeze(2)
        out = (log_probs.exp() * valid - per_class) * grad.reshape(1, n, 1)
        if ctx.zero_infinity:
            out = _ft.where((nll == float("inf")).reshape(1, n, 1), _core.zeros((), dtype=out.dtype), out)
        return out, None, None, None, None, None


@op_entry("ctc_loss")
def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths: Lengths, target_lengths: Lengths, blank: int = 0, reduction: str = "mean", zero_infinity: bool = False) -> Tensor:
    """CTC loss of log-probabilities [T, N, C] (or unbatched [T, C]) against targets padded
    [N, S] or concatenated [sum(target_lengths)]; ``mean`` divides each sample's loss by its
    target length, then averages over the batch."""
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    unbatched = log_probs.ndim == 2
    if unbatched:
        log_probs = log_probs.unsqueeze(1)
        targets = targets.unsqueeze(0) if targets.ndim == 1 else targets
    if log_probs.ndim != 3:
        raise RuntimeError(f"ctc_loss: log_probs must be 2-D (T, C) or 3-D (T, N, C), got {list(log_probs.shape)}")
    t_max, n, c = log_probs.shape
    in_lens = _as_list(input_lengths, n, "input_lengths")
    tg_lens = _as_list(target_lengths, n, "target_lengths")
    if not 0 <= blank < c:
        raise RuntimeError(f"ctc_loss: blank must be in label range, got blank {blank} for {c} classes")
    for i, (il, tl) in enumerate(zip(in_lens, tg_lens)):
        if il > t_max or il < 0:
            raise RuntimeError(f"ctc_loss: Expected input_lengths to have value at most {t_max}, but got value {il} (while checking arguments for ctc_loss)")
        if targets.ndim == 2 and tl > targets.shape[1]:
            raise RuntimeError(f"ctc_loss: Expected tensor to have size at least {tl} at dimension 1, but got size {targets.shape[1]} for argument #2 'targets' (while checking arguments for ctc_loss)")
    if targets.ndim == 1 and targets.shape[0] < sum(tg_lens):
        raise RuntimeError(
            f"ctc_loss: Expected tensor to have size {sum(tg_lens)} at dimension 0, but got size {targets.shape[0]} for argument #2 'targets' "
            "(while checking arguments for ctc_loss)"
        )
    labels = _padded_targets(targets, tg_lens)
    nll = _CTCNegLogLikelihood.apply(log_probs, labels, in_lens, tg_lens, blank, zero_infinity)
    if zero_infinity:
        nll = _ft.where(nll == float("inf"), _core.zeros((), dtype=nll.dtype), nll)
    if reduction == "none":
        return nll.squeeze(0) if unbatched else nll
    if reduction == "sum":
        return nll.sum()
    lengths = _ft.tensor(tg_lens, dtype=nll.dtype).clamp_min(1)
    return (nll / lengths).mean()
