"""``scaled_dot_product_attention``: softmax(Q K^T * scale + mask) V, as PyTorch's math path
computes it (bool masks: True attends; a row with nothing to attend to gives zeros)."""

from __future__ import annotations

import math
from typing import Any, Optional

from ... import _core
from ..._op_entry import op_entry

Tensor = _core.Tensor


def _ft() -> Any:
    import ferrotorch

    return ferrotorch


# The C++ scalar type names PyTorch's attention messages use.
_C_TYPE_NAMES = {
    "float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
    "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char", "bool": "bool",
}


def _c_type_name(dtype: Any) -> str:
    name = str(dtype).split(".")[-1]
    return _C_TYPE_NAMES.get(name, name)


def causal_float_mask(lq: int, lk: int, dtype: Any) -> Tensor:
    """[lq, lk] additive mask: 0 where key j <= query i, -inf above that diagonal."""
    ft = _ft()
    i = ft.arange(lq).unsqueeze(1)
    j = ft.arange(lk).unsqueeze(0)
    return ft.where(j > i, ft.tensor(float("-inf"), dtype=dtype), ft.tensor(0.0, dtype=dtype))


def bool_to_float_mask(mask: Tensor, masked_when: bool, dtype: Any) -> Tensor:
    """Additive form of a bool mask: -inf where ``mask == masked_when``, 0 elsewhere."""
    ft = _ft()
    inf, zero = ft.tensor(float("-inf"), dtype=dtype), ft.tensor(0.0, dtype=dtype)
    return ft.where(mask, inf, zero) if masked_when else ft.where(mask, zero, inf)


def fused_usable(query: Tensor, key: Tensor, value: Tensor, dropout_p: float) -> bool:
    """Whether the fused kernel (one node, no [L, S] tensors kept for the backward) takes
    these operands: float32/float64 CPU tensors of one dtype, equal batch dims, no zero-size
    dim, no dropout. Masks other than ``is_causal`` take the composed path."""
    ft = _ft()
    nd = query.ndim
    return (
        dropout_p == 0.0
        and nd >= 2
        and key.ndim == nd
        and value.ndim == nd
        and query.dtype in (ft.float32, ft.float64)
        and query.dtype == key.dtype == value.dtype
        and query.shape[:-2] == key.shape[:-2] == value.shape[:-2]
        and query.shape[-1] == key.shape[-1]
        and key.shape[-2] == value.shape[-2]
        and query.numel() > 0
        and key.numel() > 0
        and value.numel() > 0
        and query.device.type == key.device.type == value.device.type == "cpu"
    )


def _fused_mask(attn_mask: Tensor, query: Tensor, lq: int, lk: int) -> Optional[Tensor]:
    """The additive form of ``attn_mask`` for the fused kernel (query's dtype), or None where
    the composed path must take it: a mask that needs a gradient, or one that does not
    broadcast to [*, L, S] (the composed path raises PyTorch's error)."""
    ft = _ft()
    if attn_mask.requires_grad or attn_mask.device.type != "cpu":
        return None
    target = tuple(query.shape[:-2]) + (lq, lk)
    if attn_mask.ndim > len(target) or any(a not in (1, b) for a, b in zip(reversed(attn_mask.shape), reversed(target))):
        return None
    if attn_mask.dtype == ft.bool:
        return bool_to_float_mask(attn_mask, False, query.dtype)
    return attn_mask.to(query.dtype)


def masked_softmax(scores: Tensor, mask: Tensor) -> Tensor:
    """softmax(scores + mask) over the last dim, where a row the additive ``mask`` wholly
    blocks gives zeros (not NaN). The check looks at the mask, usually far smaller."""
    from .. import functional as F

    ft = _ft()
    dead = (mask == float("-inf")).all(-1, keepdim=True)
    scores = scores + mask
    if not bool(dead.any()):
        return F.softmax(scores, -1)
    zero = ft.tensor(0.0, dtype=scores.dtype)
    # Keep the dead rows finite before softmax so their (zero) gradient stays free of NaN.
    return ft.where(dead, zero, F.softmax(ft.where(dead, zero, scores), -1))


@op_entry("scaled_dot_product_attention")
def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Optional[Tensor] = None, dropout_p: float = 0.0, is_causal: bool = False, scale: Optional[float] = None, enable_gqa: bool = False) -> Tensor:
    """Attention over the last two dims: query [..., L, E], key [..., S, E], value [..., S, Ev].

    ``attn_mask`` is bool (True = may attend) or float (added to the scores) and broadcasts to
    [..., L, S]; ``is_causal`` masks keys after each query (top-left aligned). With
    ``enable_gqa`` the key/value heads (dim -3) are repeated to match the query heads.
    """
    from .. import functional as F

    ft = _ft()
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
    if attn_mask is not None and attn_mask.dtype not in (ft.bool, ft.float32, query.dtype):
        raise RuntimeError(
            "Expected attn_mask dtype to be bool or float or to match query dtype, but got attn_mask.dtype: "
            f"{_c_type_name(attn_mask.dtype)} and  query.dtype: {_c_type_name(query.dtype)} instead."
        )
    if enable_gqa and query.shape[-3] != key.shape[-3]:
        groups = query.shape[-3] // key.shape[-3]
        key = key.repeat_interleave(groups, -3)
        value = value.repeat_interleave(groups, -3)
    lq, lk = query.shape[-2], key.shape[-2]
    s = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    if fused_usable(query, key, value, dropout_p):
        if attn_mask is None:
            return _core._fused_attention(query, key, value, float(s), bool(is_causal))
        m = _fused_mask(attn_mask, query, lq, lk)
        if m is not None:
            return _core._fused_attention(query, key, value, float(s), False, m)
    scores = query.matmul(key.transpose(-2, -1)) * s
    if is_causal:
        scores = scores + causal_float_mask(lq, lk, scores.dtype)
        attn = F.softmax(scores, -1)
    elif attn_mask is not None:
        m = bool_to_float_mask(attn_mask, False, scores.dtype) if attn_mask.dtype == ft.bool else attn_mask.to(scores.dtype)
        attn = masked_softmax(scores, m)
    else:
        attn = F.softmax(scores, -1)
    if dropout_p > 0.0:
        attn = F.dropout(attn, dropout_p, True)
    return attn.matmul(value)
