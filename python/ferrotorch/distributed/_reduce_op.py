"""``ReduceOp``: how a reduction combines the ranks' tensors (PyTorch's names and values)."""

from __future__ import annotations

from enum import IntEnum


class RedOpType(IntEnum):
    """The reduction kinds, numbered as PyTorch numbers them."""

    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7
    PREMUL_SUM = 8


class ReduceOp:
    """Names of the reductions ``all_reduce``, ``reduce`` and ``reduce_scatter_tensor`` take.

    >>> import ferrotorch.distributed as dist
    >>> dist.ReduceOp.SUM
    <RedOpType.SUM: 0>
    """

    RedOpType = RedOpType
    SUM = RedOpType.SUM
    AVG = RedOpType.AVG
    PRODUCT = RedOpType.PRODUCT
    MIN = RedOpType.MIN
    MAX = RedOpType.MAX
    BAND = RedOpType.BAND
    BOR = RedOpType.BOR
    BXOR = RedOpType.BXOR
    PREMUL_SUM = RedOpType.PREMUL_SUM


def as_red_op(op: object, op_name: str) -> RedOpType:
    """``op`` as a RedOpType, or a ValueError naming the collective."""
    try:
        return RedOpType(op)  # type: ignore[call-overload]
    except (ValueError, TypeError):
        raise ValueError(f"{op_name}: op must be a torch.distributed.ReduceOp, got {op!r}") from None
