"""Connectionist temporal classification loss: the forward (alpha) recursion in log space over
the blank-interleaved target, written with differentiable ferrotorch ops so autograd supplies
the backward (beta) pass."""

from __future__ import annotations

from typing import Any, List, Sequence, Union

import ferrotorch as _ft

from .. import _core

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
    """log(e^a + e^b + e^c) that stays -inf (with zero, not NaN, gradients) where all are -inf."""
    stacked = _core.stack([a, b, c], 0)
    m = stacked.amax(0).detach()
    finite = m > float("-inf")
    shift = _ft.where(finite, m, _core.zeros((), dtype=m.dtype))
    total = (stacked - shift.unsqueeze(0)).exp().sum(0)
    safe = _ft.where(finite, total, _core.ones((), dtype=total.dtype))
    return _ft.where(finite, safe.log() + shift, m)


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
    s_max = labels.shape[1] if labels.ndim == 2 else 0
    width = 2 * s_max + 1

    # The extended label sequence: blank, l1, blank, l2, ..., blank.
    ext = _core.full((n, width), blank, dtype=_core.int64)
    if s_max:
        ext[:, 1::2] = labels
    lp = log_probs.gather(2, ext.unsqueeze(0).expand(t_max, n, width))
    # A skip from s-2 to s is allowed onto a label that differs from the label two back.
    prev2 = _core.cat([_core.full((n, 2), blank, dtype=_core.int64), ext[:, :-2]], 1)
    skip = (ext != blank) & (ext != prev2)

    neg_inf = _core.full((), float("-inf"), dtype=log_probs.dtype)
    pad1 = _core.full((n, 1), float("-inf"), dtype=log_probs.dtype)
    pad2 = _core.full((n, 2), float("-inf"), dtype=log_probs.dtype)
    start = _ft.arange(width) < 2
    alpha = _ft.where(start.unsqueeze(0), lp[0], neg_inf)
    steps = _ft.tensor(in_lens, dtype=_core.int64).unsqueeze(1)
    for t in range(1, t_max):
        one_back = _core.cat([pad1, alpha[:, :-1]], 1)
        two_back = _ft.where(skip, _core.cat([pad2, alpha[:, :-2]], 1), neg_inf)
        step = lp[t] + _logsumexp3(alpha, one_back, two_back)
        alpha = _ft.where(steps > t, step, alpha)

    # The path ends on the last label or on the blank after it.
    last = _ft.tensor([2 * tl for tl in tg_lens], dtype=_core.int64).unsqueeze(1)
    end_blank = alpha.gather(1, last).squeeze(1)
    end_label = alpha.gather(1, (last - 1).clamp_min(0)).squeeze(1)
    has_label = _ft.tensor([tl > 0 for tl in tg_lens])
    nll = -_logsumexp3(end_blank, _ft.where(has_label, end_label, neg_inf), neg_inf.expand(n))
    # An empty input (length 0) can only produce an empty target.
    zero_len = _ft.tensor([il == 0 for il in in_lens])
    nll = _ft.where(zero_len & ~has_label, _core.zeros((), dtype=nll.dtype), _ft.where(zero_len, -neg_inf, nll))
    nll = nll + _softmax_gradient_term(log_probs, in_lens)
    if zero_infinity:
        nll = _ft.where(nll == float("inf"), _core.zeros((), dtype=nll.dtype), nll)
    if reduction == "none":
        return nll.squeeze(0) if unbatched else nll
    if reduction == "sum":
        return nll.sum()
    lengths = _ft.tensor(tg_lens, dtype=nll.dtype).clamp_min(1)
    return (nll / lengths).mean()


def _softmax_gradient_term(log_probs: Tensor, in_lens: List[int]) -> Any:
    """Zero in value; its gradient adds exp(log_probs) over each sample's valid time steps.

    PyTorch's CTC backward folds that term in (it cancels through the log_softmax that always
    precedes this loss); adding it keeps gradients with respect to raw log_probs identical."""
    t_max = log_probs.shape[0]
    p = log_probs.exp()
    valid = (_ft.arange(t_max).unsqueeze(1) < _ft.tensor(in_lens, dtype=_core.int64).unsqueeze(0)).to(p.dtype)
    return ((p - p.detach()) * valid.unsqueeze(2)).sum((0, 2))
