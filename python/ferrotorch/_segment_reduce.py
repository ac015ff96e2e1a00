"""``torch.segment_reduce``: reduces consecutive runs ("segments") of ``data`` along ``axis``,
the runs given by ``lengths`` or ``offsets`` (one row per leading batch position).

Each element gets its segment's number (``repeat_interleave``) and the reduction is a
``scatter_reduce`` over those numbers, so autograd comes from the core's scatter."""

from __future__ import annotations

import math
from typing import Any, Optional, Tuple

from . import _core

Tensor = _core.Tensor

_REDUCE = {"sum": "sum", "mean": "mean", "max": "amax", "amax": "amax", "min": "amin", "amin": "amin", "prod": "prod"}
# What an empty segment holds when no ``initial`` is given.
_EMPTY = {"sum": 0.0, "mean": math.nan, "amax": -math.inf, "amin": math.inf, "prod": 1.0}


def segment_reduce(
    data: Tensor,
    reduce: str,
    *,
    lengths: Optional[Tensor] = None,
    indices: Optional[Tensor] = None,
    offsets: Optional[Tensor] = None,
    axis: int = 0,
    unsafe: bool = False,
    initial: Any = None,
) -> Tensor:
    """Reduces (sum, mean, max/amax, min/amin, prod) each segment of ``data`` along ``axis``;
    an empty segment holds ``initial`` (else 0, nan, -inf, inf, 1 by reduction), and
    ``initial`` also joins every non-empty segment's reduction (for mean: (initial + sum) / n)."""
    if reduce not in _REDUCE:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    op = _REDUCE[reduce]
    if indices is not None:
        raise RuntimeError("segment_reduce(): indices based reduction is not supported yet.")
    if lengths is None and offsets is None:
        raise RuntimeError("segment_reduce(): Either lengths or offsets must be defined.")
    if not data.dtype.is_floating_point:
        raise NotImplementedError(f'"_segment_reduce_cpu" not implemented for \'{_type_name(data.dtype)}\'')
    if lengths is None:
        assert offsets is not None
        if offsets.dtype not in (_core.int64, _core.int32):
            raise NotImplementedError(f"\"_segment_reduce_cpu_kernel1\" not implemented for '{_type_name(offsets.dtype)}'")
        lengths = offsets.narrow(-1, 1, offsets.shape[-1] - 1) - offsets.narrow(-1, 0, offsets.shape[-1] - 1)
    if lengths.dtype not in (_core.int64, _core.int32):
        raise NotImplementedError(f"\"_segment_reduce_lengths_cpu_kernel1\" not implemented for '{_type_name(lengths.dtype)}'")
    axis = axis + data.ndim if axis < 0 else axis
    if axis != lengths.ndim - 1 or tuple(lengths.shape[:-1]) != tuple(data.shape[:axis]):
        raise RuntimeError(
            f"segment_reduce(): Expected lengths of shape data.shape[:axis] + (segments,) with axis == lengths.dim() - 1, "
            f"got data {list(data.shape)}, lengths {list(lengths.shape)}, axis {axis}"
        )
    lengths = lengths.long()
    n = data.shape[axis]
    if not unsafe:
        if bool((lengths < 0).any()):
            raise RuntimeError("lengths contains negative value!")
        if not bool((lengths.sum(-1) == n).all()):
            raise RuntimeError(
                "segment_reduce(): Expected all rows of lengths along axis to sum to data.size(lengths.dim()-1) when !unsafe."
            )
    batch = math.prod(data.shape[:axis])
    segments = lengths.shape[-1]
    rest = tuple(data.shape[axis + 1 :])
    width = math.prod(rest)
    flat_lengths = lengths.reshape(batch, segments)
    # Segment number of each element, counted across the batch rows.
    seg_ids = _core.arange(batch * segments).reshape(batch, segments)
    src = data.reshape(batch, n, width)
    if bool((flat_lengths.sum(-1) == n).all()):
        ids_all = seg_ids.reshape(-1).repeat_interleave(flat_lengths.reshape(-1))
        values = src.reshape(batch * n, width)
    else:
        # unsafe lengths that do not fill the axis: each row reduces only its first sum(lengths) elements
        ids_rows = [seg_ids[b].repeat_interleave(flat_lengths[b]) for b in range(batch)]
        ids_rows = [ids.narrow(0, 0, min(int(ids.shape[0]), n)) for ids in ids_rows]
        ids_all = _core.cat(ids_rows)
        values = _core.cat([src[b].narrow(0, 0, int(ids.shape[0])) for b, ids in enumerate(ids_rows)], 0)
    index = ids_all.unsqueeze(1).expand(int(ids_all.shape[0]), width)
    counts = lengths.reshape(batch * segments, 1)
    empty = (counts == 0).expand(batch * segments, width)
    fill = _EMPTY[op] if initial is None else float(initial)
    if initial is None or op == "mean":
        base = _core.zeros(batch * segments, width, dtype=data.dtype, device=data.device)
        if op == "mean":
            out = base.scatter_reduce(0, index, values, "sum", include_self=False)
            if initial is not None:
                out = out + float(initial)
            out = out / counts.clamp_min(1).to(data.dtype)
        else:
            out = base.scatter_reduce(0, index, values, op, include_self=False)
    else:
        base = _core.full((batch * segments, width), float(initial), dtype=data.dtype, device=data.device)
        out = base.scatter_reduce(0, index, values, op, include_self=True)
    out = out.masked_fill(empty, fill)
    return out.reshape(tuple(data.shape[:axis]) + (segments,) + rest)


def _type_name(dt: Any) -> str:
    from ._type_info import scalar_type_name

    return scalar_type_name(dt)


__all__: Tuple[str, ...] = ("segment_reduce",)
METHODS: Tuple[Any, ...] = ()
