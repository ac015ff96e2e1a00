"""ReduceOp → MPI operation, per dtype (checked before anything is sent)."""

from __future__ import annotations

from typing import Any

from ._reduce_op import RedOpType

_BOOL_OPS = {
    RedOpType.SUM: "LOR", RedOpType.MAX: "LOR", RedOpType.BOR: "LOR",
    RedOpType.PRODUCT: "LAND", RedOpType.MIN: "LAND", RedOpType.BAND: "LAND", RedOpType.BXOR: "LXOR",
}
_OPS = {
    RedOpType.SUM: "SUM", RedOpType.AVG: "SUM", RedOpType.PRODUCT: "PROD", RedOpType.MIN: "MIN",
    RedOpType.MAX: "MAX", RedOpType.BAND: "BAND", RedOpType.BOR: "BOR", RedOpType.BXOR: "BXOR",
}


def check_reduction(op: RedOpType, dtype: Any, op_name: str) -> None:
    """Raises a ValueError naming the op when ``op`` has no meaning for ``dtype``."""
    name = str(dtype).removeprefix("torch.")
    if op == RedOpType.PREMUL_SUM:
        raise ValueError(f"{op_name}: ReduceOp.PREMUL_SUM is only supported by the nccl backend")
    if op == RedOpType.AVG and not (dtype.is_floating_point or dtype.is_complex):
        raise ValueError(f"{op_name}: ReduceOp.AVG needs a floating point or complex tensor, got torch.{name}")
    if op in (RedOpType.MIN, RedOpType.MAX) and dtype.is_complex:
        raise ValueError(f"{op_name}: ReduceOp.{op.name} is not defined for complex tensors (torch.{name})")
    if op in (RedOpType.BAND, RedOpType.BOR, RedOpType.BXOR) and (dtype.is_floating_point or dtype.is_complex):
        raise ValueError(f"{op_name}: ReduceOp.{op.name} needs an integer or bool tensor, got torch.{name}")


def mpi_op(op: RedOpType, is_bool: bool) -> Any:
    """The MPI.Op that computes ``op`` (AVG sums; the caller divides)."""
    from mpi4py import MPI

    return getattr(MPI, _BOOL_OPS[op] if is_bool and op in _BOOL_OPS else _OPS[op])
