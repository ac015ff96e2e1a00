"""Causal self-attention in blocks of queries (flash-style): each block attends only to the
keys at or before its last query and keeps one [block, keys] score tile, never the whole
[L, L] matrix; the backward recomputes each tile from the rows' saved log-sum-exp. At long
contexts this does half the products of the dense causal path, in memory linear in L."""

from __future__ import annotations

from typing import Any, List, Tuple

from .. import _core

Tensor = _core.Tensor

# Queries per block; below MIN_LENGTH the dense path's few large products are faster.
# Module attributes so that tests can exercise the blocking on small inputs.
BLOCK = 128
MIN_LENGTH = 512


def _ft() -> Any:
    import ferrotorch

    return ferrotorch


def usable(query: Tensor, key: Tensor, value: Tensor, dropout_p: float) -> bool:
    """Whether causal attention of these operands may take the blocked path: self-attention
    lengths (L == S) of at least MIN_LENGTH, float32/float64 on the CPU, no dropout."""
    ft = _ft()
    return (
        dropout_p == 0.0
        and query.ndim >= 2
        and query.shape[-2] >= MIN_LENGTH
        and query.shape[-2] == key.shape[-2] == value.shape[-2]
        and query.dtype in (ft.float32, ft.float64)
        and query.dtype == key.dtype == value.dtype
        and query.device.type == "cpu"
        and key.device.type == "cpu"
        and value.device.type == "cpu"
    )


def _blocks(length: int) -> List[Tuple[int, int]]:
    return [(q0, min(q0 + BLOCK, length)) for q0 in range(0, length, BLOCK)]


def _scores(q: Tensor, k: Tensor, q0: int, q1: int, scale: float) -> Tensor:
    """Scaled scores of queries q0..q1 against keys 0..q1, the keys after each query at -inf."""
    ft = _ft()
    s = q[..., q0:q1, :].matmul(k[..., :q1, :].transpose(-2, -1)) * scale
    rows = ft.arange(q0, q1).unsqueeze(1)
    cols = ft.arange(q1).unsqueeze(0)
    return s.masked_fill(cols > rows, float("-inf"))


def _forward(q: Tensor, k: Tensor, v: Tensor, scale: float) -> Tuple[Tensor, Tensor]:
    """The attention output and each row's log-sum-exp of its scores, block by block."""
    ft = _ft()
    outs, lses = [], []
    for q0, q1 in _blocks(q.shape[-2]):
        s = _scores(q, k, q0, q1, scale)
        m = s.amax(-1, keepdim=True).detach()
        p = (s - m).exp()
        total = p.sum(-1, keepdim=True)
        outs.append(p.matmul(v[..., :q1, :]) / total)
        lses.append(m + total.log())
    return ft.cat(outs, -2), ft.cat(lses, -2)


def _make_function() -> Any:
    ft = _ft()

    class _Blocked(ft.autograd.Function):
        @staticmethod
        def forward(ctx: Any, q: Tensor, k: Tensor, v: Tensor, scale: float) -> Tensor:
            o, lse = _forward(q, k, v, scale)
            ctx.save_for_backward(q, k, v, o, lse)
            ctx.scale = scale
            return o

        @staticmethod
        def backward(ctx: Any, do: Tensor) -> Any:
            q, k, v, o, lse = ctx.saved_tensors
            scale = ctx.scale
            if ft.is_grad_enabled():
                # create_graph: the output and log-sum-exp again, now as functions of q, k
                # and v, so that the gradient below can itself be differentiated.
                o, lse = _forward(q, k, v, scale)
            n = q.shape[-2]
            dot = (do * o).sum(-1, keepdim=True)
            dqs, dk, dv = [], None, None
            for q0, q1 in _blocks(n):
                p = (_scores(q, k, q0, q1, scale) - lse[..., q0:q1, :]).exp()
                do_b = do[..., q0:q1, :]
                ds = p * (do_b.matmul(v[..., :q1, :].transpose(-2, -1)) - dot[..., q0:q1, :])
                dqs.append(ds.matmul(k[..., :q1, :]) * scale)
                # Keys 0..q1 get this block's share; padded to all n keys to be summed.
                pad = [0, 0, 0, n - q1]
                dk_b = ft.nn.functional.pad(ds.transpose(-2, -1).matmul(q[..., q0:q1, :]) * scale, pad)
                dv_b = ft.nn.functional.pad(p.transpose(-2, -1).matmul(do_b), pad)
                dk = dk_b if dk is None else dk + dk_b
                dv = dv_b if dv is None else dv + dv_b
            return ft.cat(dqs, -2), dk, dv, None

    return _Blocked


_FUNCTION: List[Any] = []


def blocked_causal_attention(query: Tensor, key: Tensor, value: Tensor, scale: float) -> Tensor:
    """softmax(Q K^T * scale, keys after each query masked) V, computed block by block."""
    if not _FUNCTION:
        _FUNCTION.append(_make_function())
    return _FUNCTION[0].apply(query, key, value, scale)
